// Real model output as the bench's values: a handful of 2-D horizontal slices from Debian's
// libncarg-data, tiled over every case's grids (docs/bench.md, "Values").
#include "real_fields.hpp"

#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace esmio_bench {

namespace {

// One slice: the (y, x) plane of var at index `level` of the dimension just before (y, x)
// (index 0 of any dimension before that, e.g. time). Only fields of at least 384 x 320 points:
// the canvas is cut from each of them without repeating anything, because repeated data is
// what LZ codecs find first, and tiling a small slice (ECHAM's 96 x 192 T, say) over a 270 x
// 360 plane made zstd's ratio 0.13 instead of the slice's own 0.66. Ocean (POP temperature and
// rotated velocities at z_t = 500.6 cm, its top level, with land), regional atmosphere (EUR-11
// 2 m temperature) and land (a 0.11 deg regional model's surface height).
struct SourceSpec {
  const char *file;  // under the data directory
  const char *var;
  int level;
};
constexpr SourceSpec kSources[] = {
    {"cdf/pop.nc", "t", 0},
    {"cdf/pop.nc", "urot", 0},
    {"cdf/pop.nc", "vrot", 0},
    {"nug/tas_rotated_grid_EUR11.nc", "tas", 0},
    {"nug/HSURF_regional_model_0.11deg.nc", "HSURF", 0},
};
constexpr int kSlices = sizeof kSources / sizeof kSources[0];

// The shift of variable v is v kRowStep rows of the canvas (mod its rows): a prime, so that
// variables reading the same slice start far apart; whole rows, so that no row gets a seam.
constexpr int64_t kRowStep = 97;

struct Slice {
  int64_t ny = 0, nx = 0;
  std::vector<float> values;
  double missing_fraction = 0;  // replaced by NC_FILL_FLOAT
};

std::string data_dir() {
  const char *env = std::getenv("ESMIO_BENCH_REAL_DATA");
  return env && *env ? env : "/usr/share/ncarg/data";
}

bool read_attribute(int ncid, int varid, const char *name, double *out) {
  nc_type type;
  size_t len = 0;
  if (nc_inq_att(ncid, varid, name, &type, &len) != NC_NOERR || len != 1) return false;
  return nc_get_att_double(ncid, varid, name, out) == NC_NOERR;
}

// Reads one slice as float32, unpacked (scale_factor, add_offset), its missing values
// (_FillValue, else netCDF's default fill of float/double; missing_value; anything not finite)
// replaced by netCDF's default float fill, as a model marks its land: the codecs see the long
// constant runs real files have there, and information quantisation leaves them out, as it
// does in real output (a constant stand-in would count as perfectly correlated neighbours in
// every bit and keep every bit).
bool read_slice(const std::string &dir, const SourceSpec &spec, Slice *out, std::string *why) {
  const std::string path = dir + "/" + spec.file;
  const std::string name = path + ":" + spec.var;
  int ncid = -1, varid = -1, nd = 0;
  int rc = nc_open(path.c_str(), NC_NOWRITE, &ncid);
  if (rc != NC_NOERR) {
    *why = "--fields real: cannot open " + path + ": " + nc_strerror(rc) +
           " (install libncarg-data or set ESMIO_BENCH_REAL_DATA)";
    return false;
  }
  int dimids[NC_MAX_VAR_DIMS];
  nc_type type = NC_NAT;
  rc = nc_inq_varid(ncid, spec.var, &varid);
  if (rc == NC_NOERR) rc = nc_inq_var(ncid, varid, nullptr, &type, &nd, dimids, nullptr);
  std::vector<size_t> start(static_cast<size_t>(std::max(nd, 0)), 0), count(start.size(), 1);
  for (int d = std::max(0, nd - 2); d < nd && rc == NC_NOERR; ++d)
    rc = nc_inq_dimlen(ncid, dimids[d], &count[d]);
  if (rc == NC_NOERR && nd > 2) {
    size_t levels = 0;
    rc = nc_inq_dimlen(ncid, dimids[nd - 3], &levels);
    if (rc == NC_NOERR && static_cast<size_t>(spec.level) >= levels) rc = NC_EINVALCOORDS;
    start[nd - 3] = static_cast<size_t>(spec.level);
  }
  if (rc == NC_NOERR && nd < 2) rc = NC_EINVALCOORDS;
  if (rc == NC_NOERR) {
    out->ny = static_cast<int64_t>(count[nd - 2]);
    out->nx = static_cast<int64_t>(count[nd - 1]);
    out->values.resize(static_cast<size_t>(out->ny * out->nx));
    rc = nc_get_vara_float(ncid, varid, start.data(), count.data(), out->values.data());
  }
  if (rc != NC_NOERR) {
    nc_close(ncid);
    *why =
        "--fields real: " + name + " level " + std::to_string(spec.level) + ": " + nc_strerror(rc);
    return false;
  }
  double fill = 0, missing = 0, scale = 1, offset = 0;
  bool has_fill = read_attribute(ncid, varid, "_FillValue", &fill);
  if (!has_fill && (type == NC_FLOAT || type == NC_DOUBLE)) {
    fill = type == NC_FLOAT ? NC_FILL_FLOAT : NC_FILL_DOUBLE;
    has_fill = true;
  }
  const bool has_missing = read_attribute(ncid, varid, "missing_value", &missing);
  const bool has_scale = read_attribute(ncid, varid, "scale_factor", &scale);
  const bool has_offset = read_attribute(ncid, varid, "add_offset", &offset);
  nc_close(ncid);
  // Fill and missing values are in the packed units: compare before unpacking.
  const float fill_f = static_cast<float>(fill), missing_f = static_cast<float>(missing);
  std::vector<unsigned char> bad(out->values.size(), 0);
  double sum = 0;
  int64_t valid = 0;
  for (size_t i = 0; i < out->values.size(); ++i) {
    const float raw = out->values[i];
    double x = raw;
    if (has_scale) x *= scale;
    if (has_offset) x += offset;
    const float value = static_cast<float>(x);
    if ((has_fill && raw == fill_f) || (has_missing && raw == missing_f) || !std::isfinite(value) ||
        value == NC_FILL_FLOAT) {
      bad[i] = 1;
      continue;
    }
    out->values[i] = value;
    sum += value;
    ++valid;
  }
  if (valid == 0) {
    *why = "--fields real: " + name + " holds no valid values";
    return false;
  }
  for (size_t i = 0; i < out->values.size(); ++i)
    if (bad[i]) out->values[i] = NC_FILL_FLOAT;
  out->missing_fraction = 1.0 - static_cast<double>(valid) / out->values.size();
  return true;
}

// "file:var levels a-b (x% missing -> fill)", consecutive levels of one field in one item.
std::string describe(const std::vector<Slice> &slices, int64_t ny, int64_t nx) {
  std::string out = "real:";
  for (int s = 0; s < kSlices;) {
    int e = s + 1;
    while (e < kSlices && std::string(kSources[e].file) == kSources[s].file &&
           std::string(kSources[e].var) == kSources[s].var &&
           kSources[e].level == kSources[e - 1].level + 1)
      ++e;
    const std::string file = kSources[s].file;
    out += (s ? ", " : " ") + file.substr(file.rfind('/') + 1) + ":" + kSources[s].var;
    if (e - s > 1)
      out += " levels " + std::to_string(kSources[s].level) + "-" +
             std::to_string(kSources[e - 1].level);
    else if (kSources[s].level > 0)
      out += " level " + std::to_string(kSources[s].level);
    double missing = 0;
    for (int k = s; k < e; ++k) missing = std::max(missing, slices[k].missing_fraction);
    if (missing > 0) {
      char buf[48];
      std::snprintf(buf, sizeof buf, " (%.0f%% missing -> fill)", 100 * missing);
      out += buf;
    }
    s = e;
  }
  return out + "; " + std::to_string(kSlices) + " slices cut to " + std::to_string(ny) + " x " +
         std::to_string(nx) + ", tiled";
}

std::string &label_in_use() {
  static std::string label = FieldSource().label();
  return label;
}

}  // namespace

bool FieldSource::load_real(FieldSource *out, std::string *why) {
  const std::string dir = data_dir();
  std::vector<Slice> slices(kSlices);
  for (int s = 0; s < kSlices; ++s)
    if (!read_slice(dir, kSources[s], &slices[s], why)) return false;
  FieldSource f;
  f.nslices_ = kSlices;
  f.ny_ = slices[0].ny;
  f.nx_ = slices[0].nx;
  for (const Slice &s : slices) {
    f.ny_ = std::min(f.ny_, s.ny);
    f.nx_ = std::min(f.nx_, s.nx);
  }
  // The canvas: the same extent cut from every slice (its first rows and columns), so that one
  // position (and one key per memory slot) serves every slice and no slice repeats itself.
  const int64_t plane = f.ny_ * f.nx_;
  if (2 * plane * kSlices >= int64_t{1} << 31) {  // FieldSource::at adds two such indices
    *why = "--fields real: the source slices are too large";
    return false;
  }
  f.plane_ = static_cast<uint32_t>(plane);
  f.stride_ = 2 * f.plane_;
  f.wrap_ = static_cast<uint32_t>(kSlices) * f.stride_;
  f.canvas_.resize(f.wrap_);
  for (int s = 0; s < kSlices; ++s) {
    const Slice &src = slices[s];
    float *dst = f.canvas_.data() + static_cast<int64_t>(s) * f.stride_;
    for (int64_t y = 0; y < f.ny_; ++y)
      std::copy_n(src.values.data() + y * src.nx, f.nx_, dst + y * f.nx_);
    std::copy(dst, dst + plane, dst + plane);
  }
  f.label_ = describe(slices, f.ny_, f.nx_);
  *out = std::move(f);
  return true;
}

uint32_t FieldSource::key(const Grid &grid, int64_t g) const {
  // The trailing horizontal dimensions: (y, x), tiled by canvas-sized tiles, or one
  // unstructured column dimension, which walks canvas planes in row-major order.
  const std::size_t nd = grid.shape.size();
  const std::size_t hd = std::min<std::size_t>(static_cast<std::size_t>(grid.horizontal_dims), nd);
  int64_t horizontal = 1;
  for (std::size_t d = nd - hd; d < nd; ++d) horizontal *= grid.shape[d];
  const int64_t level = g / horizontal, h = g % horizontal;
  int64_t pos = 0, tile = 0, tiles = 1;
  if (hd >= 2) {
    const int64_t ny = horizontal / grid.shape[nd - 1], nx = grid.shape[nd - 1];
    const int64_t y = h / nx, x = h % nx, tiles_x = (nx + nx_ - 1) / nx_;
    tiles = (ny + ny_ - 1) / ny_ * tiles_x;
    tile = y / ny_ * tiles_x + x / nx_;
    pos = y % ny_ * nx_ + x % nx_;
  } else {
    tiles = (horizontal + plane_ - 1) / plane_;
    tile = h / plane_;
    pos = h % plane_;
  }
  // Each tile of a plane, and each level, takes the next slice: a plane repeats nothing while
  // it has at most nslices tiles, and L consecutive levels while L * tiles <= nslices.
  const int64_t slice = (level * tiles + tile) % nslices_;
  return static_cast<uint32_t>(slice) * stride_ + static_cast<uint32_t>(pos);
}

FieldSource::Record FieldSource::record(int v, int t) const {
  // Variables and records step through the slices too: slice (v + t + level tiles + tile).
  const int64_t s = (static_cast<int64_t>(v) + t) % nslices_;
  const int64_t rows = static_cast<int64_t>(v) * kRowStep % ny_;
  return {static_cast<uint32_t>(s) * stride_, static_cast<uint32_t>(rows * nx_)};
}

const std::string &fields_in_use() { return label_in_use(); }

void set_fields_in_use(const std::string &label) { label_in_use() = label; }

}  // namespace esmio_bench
