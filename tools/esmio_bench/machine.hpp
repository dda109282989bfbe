// A description of the machine a run measured, for the JSON and the recorded results.
#pragma once

#include <string>

#include "bench_json.hpp"

namespace esmio_bench {

// The JSON object "machine", keys in this order: hostname, cpus, cpu_model, memory_gib, os,
// os_release, mpi, mpi_io, pnetcdf, netcdf, compiler, date (UTC, ISO 8601), filesystem of dir
// (type, device and mount).
Json describe_machine(const std::string &dir);

}  // namespace esmio_bench
