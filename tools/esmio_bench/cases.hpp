// The named cases as Workloads for this rank, and the list of every case's name.
#pragma once

#include <string>

#include "options.hpp"
#include "workload.hpp"

namespace esmio_bench {

// The names of every case (those below, model-loop and plan), comma-separated, for messages.
std::string case_list();

// Builds the case for rank `rank` of `nranks`. data_dir holds the E3SM maps. Returns false and
// sets *why for an unknown case or a size that cannot be run.
bool make_workload(const Options &opt, int rank, int nranks, const std::string &data_dir,
                   Workload *out, std::string *why);

}  // namespace esmio_bench
