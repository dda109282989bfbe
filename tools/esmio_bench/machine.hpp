// A description of the machine a run measured, for the JSON and the recorded results.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace esmio_bench {

// Ordered (key, JSON value) pairs: hostname, cpus, cpu_model, memory_gib, os, mpi, pnetcdf,
// netcdf, compiler, date (UTC, ISO 8601), filesystem of dir (type and device).
std::vector<std::pair<std::string, std::string>> describe_machine(const std::string &dir);

// A JSON string literal of s (quotes and escapes included).
std::string json_string(const std::string &s);

}  // namespace esmio_bench
