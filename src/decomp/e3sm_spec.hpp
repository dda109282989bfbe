// The format string of an E3SM-IO map, "e3sm:Dk[:AxBxC][:runs|:fill]" (see e3sm_map.hpp), and
// the global dims of the maps shipped with the E3SM-IO benchmark. Pure: no netCDF, no MPI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace esmio::decomp {

struct E3smSpec {
  std::string name;  // "D3"
  int decomp = 0;
  std::vector<int64_t> dims;  // empty: from the file
  bool runs = false;          // ":runs": expand offsets/lengths even when raw_offsets exist
  bool fill = false;          // ":fill": the fill requests instead of the data
};

// spec is the part of the format after "e3sm:", e.g. "D3", "D3:72x866", "D3:runs"; path only
// names the file in messages (ESMIO_EINVAL).
Status parse_e3sm_spec(const std::string &path, const std::string &spec, E3smSpec *out);

// The global dims (C order) of decomposition decomp of a map of the E3SM-IO benchmark, known by
// its file name (without directory), for copies whose Dk.dims attributes were stripped; false
// for any other map.
bool known_e3sm_map_dims(const std::string &file_name, int decomp, std::vector<int64_t> *dims);

}  // namespace esmio::decomp
