// The named cases (cam-fvd, cdi, small, e3sm-f, e3sm-i, ocean) as Workloads for this rank.
#pragma once

#include "options.hpp"
#include "workload.hpp"

namespace esmio_bench {

// Builds the case for rank `rank` of `nranks`. data_dir holds the E3SM maps. Returns false and
// sets *why for an unknown case or a size that cannot be run.
bool make_workload(const Options &opt, int rank, int nranks, const std::string &data_dir,
                   Workload *out, std::string *why);

}  // namespace esmio_bench
