// Client test program: writes a netCDF-4 file whose variables use esmio's Zstandard filter
// (id 32015), with values from a formula that zstd_plugin_readers.sh recomputes exactly.
//
//   zstd_writer OUT.nc LEVEL
//
// T(time, lat, lon) float = ((i*i + 3*j*j + 17*t + i*j) % 251 - 125) / 8   (exact in float)
// n(lat, lon) int         = 1000*i + j
// time(time) double       = t days since 2000-01-01
// Every variable, the coordinate included, goes through the filter.
#include <netcdf.h>
#include <netcdf_filter.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "codec/zstd_filter.hpp"

namespace {

constexpr size_t kTime = 3, kLat = 96, kLon = 192;

void check(int rc, const char *what) {
  if (rc != NC_NOERR) {
    std::fprintf(stderr, "zstd_writer: %s: %s\n", what, nc_strerror(rc));
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s OUT.nc LEVEL\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const unsigned level = static_cast<unsigned>(std::atoi(argv[2]));

  esmio::Status st = esmio::codec::register_zstd_filter();
  if (!st.is_ok()) {
    std::fprintf(stderr, "zstd_writer: %s\n", st.message().c_str());
    return 1;
  }

  int ncid, dims[3], timeid, tid, nid;
  check(nc_create(path.c_str(), NC_NETCDF4 | NC_CLOBBER, &ncid), "create");
  check(nc_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]), "def_dim time");
  check(nc_def_dim(ncid, "lat", kLat, &dims[1]), "def_dim lat");
  check(nc_def_dim(ncid, "lon", kLon, &dims[2]), "def_dim lon");
  check(nc_def_var(ncid, "time", NC_DOUBLE, 1, dims, &timeid), "def_var time");
  check(nc_def_var(ncid, "T", NC_FLOAT, 3, dims, &tid), "def_var T");
  check(nc_def_var(ncid, "n", NC_INT, 2, dims + 1, &nid), "def_var n");
  const size_t tchunks[3] = {1, kLat, kLon};
  check(nc_def_var_chunking(ncid, tid, NC_CHUNKED, tchunks), "chunking T");
  check(nc_def_var_chunking(ncid, nid, NC_CHUNKED, tchunks + 1), "chunking n");
  for (int varid : {timeid, tid, nid}) {
    check(nc_def_var_filter(ncid, varid, esmio::codec::kZstdFilterId, 1, &level), "def_var_filter");
  }
  const std::string time_units = "days since 2000-01-01 00:00:00";
  check(nc_put_att_text(ncid, timeid, "units", time_units.size(), time_units.c_str()), "put_att");
  check(nc_put_att_text(ncid, tid, "units", 1, "K"), "put_att");
  check(nc_enddef(ncid), "enddef");

  std::vector<float> t(kTime * kLat * kLon);
  for (size_t k = 0; k < kTime; ++k) {
    for (size_t j = 0; j < kLat; ++j) {
      for (size_t i = 0; i < kLon; ++i) {
        long long v = static_cast<long long>((i * i + 3 * j * j + 17 * k + i * j) % 251) - 125;
        t[(k * kLat + j) * kLon + i] = static_cast<float>(v) / 8.0f;
      }
    }
  }
  std::vector<int> n(kLat * kLon);
  for (size_t j = 0; j < kLat; ++j) {
    for (size_t i = 0; i < kLon; ++i) n[j * kLon + i] = static_cast<int>(1000 * i + j);
  }
  const double time[kTime] = {0.0, 1.0, 2.0};
  const size_t start[3] = {0, 0, 0}, count[3] = {kTime, kLat, kLon};
  check(nc_put_vara_double(ncid, timeid, start, count, time), "put time");
  check(nc_put_vara_float(ncid, tid, start, count, t.data()), "put T");
  check(nc_put_var_int(ncid, nid, n.data()), "put n");
  check(nc_close(ncid), "close");
  std::printf("zstd_writer: wrote %s (level %u)\n", path.c_str(), level);
  return 0;
}
