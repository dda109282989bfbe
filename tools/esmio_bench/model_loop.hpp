// Case model-loop (model_loop.cpp): a model's time loop with compute phases and one history
// record per step, compute only, with synchronous esmio and with I/O servers.
#pragma once

#include <string>

#include "options.hpp"

namespace esmio_bench {

// Runs the case on MPI_COMM_WORLD (the last opt.servers ranks are the servers), prints the
// table on rank 0 and writes opt.json_path. Collective; the exit status.
int run_model_loop(const Options &opt, const std::string &data_dir);

}  // namespace esmio_bench
