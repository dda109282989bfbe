#include "decomp/e3sm_spec.hpp"

#include <string_view>

#include "common/text.hpp"
#include "decomp/decomp_file_rules.hpp"

namespace esmio::decomp {

namespace {

struct KnownMap {
  const char *file;
  int decomp;
  std::vector<int64_t> dims;
};

// The maps shipped with the E3SM-IO benchmark (tests/data/e3sm/README.md), for copies whose
// Dk.dims attributes were stripped.
const std::vector<KnownMap> &known_maps() {
  static const std::vector<KnownMap> table = {
      {"map_f_case_16p.nc", 1, {866}},         {"map_f_case_16p.nc", 2, {866}},
      {"map_f_case_16p.nc", 3, {72, 866}},     {"map_i_case_16p.nc", 1, {96, 144}},
      {"map_i_case_16p.nc", 2, {15, 96, 144}}, {"map_i_case_16p.nc", 3, {10, 96, 144}},
      {"map_i_case_16p.nc", 4, {9, 96, 144}},  {"map_i_case_16p.nc", 5, {17, 96, 144}},
  };
  return table;
}

}  // namespace

Status parse_e3sm_spec(const std::string &path, const std::string &spec, E3smSpec *out) {
  const std::string format = "format 'e3sm:" + spec + "'";
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    std::size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  int64_t k = 0;
  const std::string &name = parts[0];
  if (name.size() < 2 || (name[0] != 'D' && name[0] != 'd') ||
      !parse_int64(std::string_view(name).substr(1), &k) || k < 1 || k > 1000000)
    return Status(ESMIO_EINVAL, path + ": " + format + ": unknown decomposition name '" + name +
                                    "' (expected D1, D2, ...)");
  out->decomp = static_cast<int>(k);
  out->name = "D" + std::to_string(k);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string &part = parts[i];
    if (lower(part) == "runs" && !out->runs) {
      out->runs = true;
      continue;
    }
    if (lower(part) == "fill" && !out->fill) {
      out->fill = true;
      continue;
    }
    if (!out->dims.empty() || part.empty())
      return Status(ESMIO_EINVAL, path + ": " + format + ": unexpected '" + part + "'");
    std::size_t b = 0;
    for (;;) {
      std::size_t x = part.find_first_of("xX", b);
      int64_t d = 0;
      if (!parse_int64(std::string_view(part).substr(b, x == std::string::npos ? x : x - b), &d) ||
          d < 1)
        return Status(ESMIO_EINVAL, path + ": " + format + ": bad dims '" + part +
                                        "' (expected positive lengths like 72x866, C order)");
      out->dims.push_back(d);
      if (x == std::string::npos) break;
      b = x + 1;
    }
    if (out->dims.size() > ESMIO_MAX_DIMS || checked_product(out->dims) < 0)
      return Status(ESMIO_EINVAL, path + ": " + format + ": dims '" + part +
                                      "' have too many dimensions or overflow 64 bits");
  }
  return Status::ok();
}

bool known_e3sm_map_dims(const std::string &file_name, int decomp, std::vector<int64_t> *dims) {
  for (const KnownMap &m : known_maps())
    if (file_name == m.file && decomp == m.decomp) {
      *dims = m.dims;
      return true;
    }
  return false;
}

}  // namespace esmio::decomp
