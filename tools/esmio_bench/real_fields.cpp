// Real model output as the bench's values: one source field from Debian's libncarg-data per
// variable, resampled onto the case's grid (docs/bench.md, "Values").
#include "real_fields.hpp"

#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace esmio_bench {

namespace {

// One source: the horizontal field of var (its last hdims dimensions: (y, x), or 1 for an
// unstructured cell dimension), at index 0 of every dimension before those but the one just
// before them, the levels: all of them (level -1), or that one. level2d: the level a variable
// without levels takes (-1: the middle one).
struct SourceSpec {
  const char *key;   // the case lists below name sources by it
  const char *file;  // under the data directory
  const char *var;
  int hdims;
  int level;
  int level2d;
  const char *what;
};
constexpr SourceSpec kCatalogue[] = {
    {"pop_t", "cdf/pop.nc", "t", 2, -1, 0, "POP ocean temperature, top level, land as fill"},
    {"pop_urot", "cdf/pop.nc", "urot", 2, -1, 0, "POP zonal velocity, top level, land as fill"},
    {"pop_vrot", "cdf/pop.nc", "vrot", 2, -1, 0, "POP meridional velocity, top level"},
    {"mpiom_tos", "nug/tos_ocean_bipolar_grid.nc", "tos", 2, 0, 0,
     "MPIOM sea surface temperature, land as fill, sea ice at 271.25"},
    {"eur11_tas", "nug/tas_rotated_grid_EUR11.nc", "tas", 2, 0, 0, "EUR-11 2 m temperature"},
    {"hsurf", "nug/HSURF_regional_model_0.11deg.nc", "HSURF", 2, 0, 0,
     "0.11 deg regional surface height, 0.0 over sea"},
    {"echam_t", "nug/rectilinear_grid_3D.nc", "t", 2, -1, -1, "ECHAM5 temperature, 17 levels"},
    {"echam_rh", "nug/rectilinear_grid_3D.nc", "rhumidity", 2, -1, -1,
     "ECHAM5 relative humidity, 17 levels"},
    {"cam_t", "cdf/vinth2p.nc", "T", 2, -1, -1, "CAM temperature, 18 levels"},
    {"uvt_t", "cdf/nc4uvt.nc", "T", 2, -1, -1, "temperature, 14 levels"},
    {"uvt_u", "cdf/nc4uvt.nc", "U", 2, -1, -1, "zonal wind, 14 levels"},
    {"uvt_v", "cdf/nc4uvt.nc", "V", 2, -1, -1, "meridional wind, 14 levels"},
    {"tas", "nug/tas_rectilinear_grid_2D.nc", "tas", 2, 0, 0, "global 2 m temperature, month 1"},
    {"uas", "nug/uas_rectilinear_grid_2D.nc", "uas", 2, 0, 0, "global 10 m zonal wind"},
    {"vas", "nug/vas_rectilinear_grid_2D.nc", "vas", 2, 0, 0, "global 10 m meridional wind"},
    {"camse_t850", "nug/camse_unstructured_grid.nc", "T850", 1, -1, 0,
     "CAM-SE 850 hPa temperature, unstructured"},
    {"icon_s", "nug/triangular_grid_ICON.nc", "S", 1, -1, 0,
     "ICON ocean salinity, 3 depths, unstructured, 0.0 on land"},
};
constexpr int kCatalogueSize = sizeof kCatalogue / sizeof kCatalogue[0];

// Which sources a case's variables take, in turn, by kind of grid: variables with levels, on
// (y, x) planes; without; and on unstructured columns (with and without levels). Sources with
// levels go to variables with levels. The ocean case writes ocean fields.
struct CaseSources {
  std::vector<const char *> leveled, plane, columns_leveled, columns;
};
CaseSources sources_for(const std::string &case_name) {
  CaseSources c;
  c.columns_leveled = {"icon_s", "camse_t850"};
  c.columns = {"camse_t850", "icon_s"};
  if (case_name == "ocean") {
    c.leveled = {"pop_t", "mpiom_tos", "pop_urot", "pop_vrot"};
    c.plane = {"hsurf", "uas", "vas", "eur11_tas"};
  } else {
    c.leveled = {"echam_t", "uvt_u", "uvt_v", "echam_rh", "cam_t", "uvt_t"};
    c.plane = {"pop_t", "eur11_tas", "hsurf",    "mpiom_tos", "tas",      "uas",
               "vas",   "pop_urot",  "pop_vrot", "echam_t",   "echam_rh", "cam_t"};
  }
  return c;
}

// A source with one level in a variable with levels: level k samples it shifted by k times
// this many source cells along x, so that no two levels are equal (a stand-in for the vertical
// structure the source does not have; equal planes in one chunk would inflate zstd's ratio).
constexpr double kLevelShift = 0.37;

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

// Reads one source as float32, unpacked (scale_factor, add_offset), its missing values
// (_FillValue, else netCDF's default fill of float/double; missing_value; anything not finite)
// replaced by netCDF's default float fill, as a model marks its land: the codecs see the long
// constant runs real files have there, and information quantisation leaves them out, as it
// does in real output.
bool read_source(const std::string &dir, const SourceSpec &spec, RealSource *out,
                 std::string *why) {
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
  if (rc == NC_NOERR && nd < spec.hdims) rc = NC_EINVALCOORDS;
  std::vector<size_t> start(static_cast<size_t>(std::max(nd, 0)), 0), count(start.size(), 1);
  for (int d = std::max(0, nd - spec.hdims); d < nd && rc == NC_NOERR; ++d)
    rc = nc_inq_dimlen(ncid, dimids[d], &count[d]);
  const int ld = nd - spec.hdims - 1;  // the level dimension, if any
  if (rc == NC_NOERR && ld >= 0) {
    size_t levels = 0;
    rc = nc_inq_dimlen(ncid, dimids[ld], &levels);
    if (spec.level < 0) {
      count[ld] = levels;
    } else {
      if (rc == NC_NOERR && static_cast<size_t>(spec.level) >= levels) rc = NC_EINVALCOORDS;
      start[ld] = static_cast<size_t>(spec.level);
    }
  }
  if (rc == NC_NOERR) {
    out->name = std::string(std::strrchr(spec.file, '/') + 1) + ":" + spec.var;
    out->what = spec.what;
    out->unstructured = spec.hdims == 1;
    out->levels = ld >= 0 ? static_cast<int64_t>(count[ld]) : 1;
    out->nx = static_cast<int64_t>(count[nd - 1]);
    out->ny = spec.hdims == 2 ? static_cast<int64_t>(count[nd - 2]) : 1;
    out->level2d = spec.level2d >= 0 ? spec.level2d : static_cast<int>(out->levels / 2);
    out->values.resize(static_cast<size_t>(out->levels * out->ny * out->nx));
    rc = nc_get_vara_float(ncid, varid, start.data(), count.data(), out->values.data());
  }
  if (rc != NC_NOERR) {
    nc_close(ncid);
    *why = "--fields real: " + name + ": " + nc_strerror(rc);
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
  int64_t valid = 0;
  for (float &v : out->values) {
    const float raw = v;
    double x = raw;
    if (has_scale) x *= scale;
    if (has_offset) x += offset;
    const float value = static_cast<float>(x);
    const bool bad = (has_fill && raw == fill_f) || (has_missing && raw == missing_f) ||
                     !std::isfinite(value) || value == NC_FILL_FLOAT;
    v = bad ? NC_FILL_FLOAT : value;
    valid += !bad;
  }
  if (valid == 0) {
    *why = "--fields real: " + name + " holds no valid values";
    return false;
  }
  out->missing_fraction =
      1.0 - static_cast<double>(valid) / static_cast<double>(out->values.size());
  return true;
}

int catalogue_index(const char *key) {
  for (int i = 0; i < kCatalogueSize; ++i)
    if (std::strcmp(kCatalogue[i].key, key) == 0) return i;
  return -1;
}

std::string &label_in_use() {
  static std::string label = FieldSource().label();
  return label;
}

}  // namespace

bool FieldSource::load_real(const Workload &w, FieldSource *out, std::string *why) {
  const CaseSources lists = sources_for(w.case_name);
  // Each variable takes the next source of its kind's list.
  std::vector<int> loaded_of(kCatalogueSize, -1);  // catalogue index -> sources_ index
  std::vector<int> catalogue_of;
  FieldSource f;
  std::size_t used[4] = {0, 0, 0, 0};
  for (const Var &v : w.vars) {
    const Grid &g = w.grids[static_cast<std::size_t>(v.grid)];
    const bool columns = g.horizontal_dims == 1;
    const bool leveled = g.shape.size() > static_cast<std::size_t>(g.horizontal_dims);
    const int kind = (columns ? 2 : 0) + (leveled ? 0 : 1);
    const std::vector<const char *> &list = kind == 0   ? lists.leveled
                                            : kind == 1 ? lists.plane
                                            : kind == 2 ? lists.columns_leveled
                                                        : lists.columns;
    const int c = catalogue_index(list[used[kind]++ % list.size()]);
    if (loaded_of[static_cast<std::size_t>(c)] < 0) {
      loaded_of[static_cast<std::size_t>(c)] = static_cast<int>(catalogue_of.size());
      catalogue_of.push_back(c);
    }
    f.var_source_.push_back(loaded_of[static_cast<std::size_t>(c)]);
  }
  const std::string dir = data_dir();
  f.sources_.resize(catalogue_of.size());
  for (std::size_t s = 0; s < catalogue_of.size(); ++s)
    if (!read_source(dir, kCatalogue[catalogue_of[s]], &f.sources_[s], why)) return false;
  std::string label =
      "real: one source per variable, resampled onto the grid (bilinear, linear "
      "between levels); " +
      std::to_string(f.sources_.size()) + " sources:";
  for (std::size_t s = 0; s < f.sources_.size(); ++s) {
    const RealSource &src = f.sources_[s];
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s %s (%lld%s x %lld%s", s ? "," : "", src.name.c_str(),
                  static_cast<long long>(src.levels), src.levels > 1 ? " levels" : " level",
                  static_cast<long long>(src.ny * src.nx), src.unstructured ? " cells" : " points");
    label += buf;
    if (src.missing_fraction > 0) {
      std::snprintf(buf, sizeof buf, ", %.0f%% missing -> fill", 100 * src.missing_fraction);
      label += buf;
    }
    label += ")";
  }
  f.label_ = label;
  *out = std::move(f);
  return true;
}

float FieldSource::sample(const Grid &grid, int s, int64_t g) const {
  const RealSource &src = sources_[static_cast<std::size_t>(s)];
  // The grid's record: nz levels (every leading dimension, in C order) of ny x nx planes.
  const std::size_t nd = grid.shape.size();
  const std::size_t hd = std::min<std::size_t>(static_cast<std::size_t>(grid.horizontal_dims), nd);
  const int64_t nx = grid.shape[nd - 1], ny = hd >= 2 ? grid.shape[nd - 2] : 1;
  int64_t nz = 1;
  for (std::size_t d = 0; d + hd < nd; ++d) nz *= grid.shape[d];
  const int64_t plane = ny * nx, k = g / plane, y = g % plane / nx, x = g % nx;
  // Cell centres matched: source position of the grid point, in source cells.
  double ys =
      (static_cast<double>(y) + 0.5) * static_cast<double>(src.ny) / static_cast<double>(ny) - 0.5;
  double xs =
      (static_cast<double>(x) + 0.5) * static_cast<double>(src.nx) / static_cast<double>(nx) - 0.5;
  double zs = 0;
  if (nz == 1)
    zs = src.level2d;
  else if (src.levels > 1)
    zs = static_cast<double>(k) * static_cast<double>(src.levels - 1) / static_cast<double>(nz - 1);
  else
    xs += kLevelShift * static_cast<double>(k);
  ys = std::min(std::max(ys, 0.0), static_cast<double>(src.ny - 1));
  xs -= std::floor(xs / static_cast<double>(src.nx)) * static_cast<double>(src.nx);  // x wraps
  const int64_t y0 = static_cast<int64_t>(ys), z0 = static_cast<int64_t>(zs);
  const int64_t x0 = std::min(static_cast<int64_t>(xs), src.nx - 1);
  const double fy = ys - static_cast<double>(y0), fx = xs - static_cast<double>(x0),
               fz = zs - static_cast<double>(z0);
  const int64_t y1 = std::min(y0 + 1, src.ny - 1), x1 = (x0 + 1) % src.nx,
                z1 = std::min(z0 + 1, src.levels - 1);
  auto at = [&](int64_t zz, int64_t yy, int64_t xx) {
    return src.values[static_cast<std::size_t>((zz * src.ny + yy) * src.nx + xx)];
  };
  // The nearest source point decides whether the value is missing (the land mask keeps its
  // shape); the value is the weighted mean of the valid corners.
  if (at(fz < 0.5 ? z0 : z1, fy < 0.5 ? y0 : y1, fx < 0.5 ? x0 : x1) == NC_FILL_FLOAT)
    return NC_FILL_FLOAT;
  double sum = 0, weights = 0;
  for (int c = 0; c < 8; ++c) {
    const double w = ((c & 4) ? fz : 1 - fz) * ((c & 2) ? fy : 1 - fy) * ((c & 1) ? fx : 1 - fx);
    if (w <= 0) continue;
    const float v = at((c & 4) ? z1 : z0, (c & 2) ? y1 : y0, (c & 1) ? x1 : x0);
    if (v == NC_FILL_FLOAT) continue;
    sum += w * static_cast<double>(v);
    weights += w;
  }
  return static_cast<float>(sum / weights);
}

double FieldSource::zoom(const Grid &grid, int s) const {
  const RealSource &src = sources_[static_cast<std::size_t>(s)];
  const std::size_t nd = grid.shape.size();
  const std::size_t hd = std::min<std::size_t>(static_cast<std::size_t>(grid.horizontal_dims), nd);
  double points = 1;
  for (std::size_t d = nd - hd; d < nd; ++d) points *= static_cast<double>(grid.shape[d]);
  return points / static_cast<double>(src.ny * src.nx);
}

void FieldSource::sample_into(const Grid &grid, int s, const std::vector<int64_t> &offsets,
                              std::vector<float> *out) const {
  out->resize(offsets.size());
  for (std::size_t i = 0; i < offsets.size(); ++i)
    (*out)[i] = offsets[i] >= 0 ? sample(grid, s, offsets[i]) : 0.0f;
}

const std::string &fields_in_use() { return label_in_use(); }

void set_fields_in_use(const std::string &label) { label_in_use() = label; }

}  // namespace esmio_bench
