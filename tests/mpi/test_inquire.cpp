// Listing what a file holds by name (what the Python and Fortran bindings build on): dimension,
// variable and attribute names, counts and the unlimited dimension, on every backend, in define
// mode, after enddef and after reopening; the errors of each call the same on every rank.
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

std::string dimname(esmio_file_t f, int dimid) {
  char name[ESMIO_MAX_NAME];
  ok(esmio_inq_dimname(f, dimid, name, sizeof name), "inq_dimname");
  return name;
}

std::string varname(esmio_file_t f, int varid) {
  char name[ESMIO_MAX_NAME];
  ok(esmio_inq_varname(f, varid, name, sizeof name), "inq_varname");
  return name;
}

std::vector<std::string> attnames(esmio_file_t f, int varid) {
  int natts = -1;
  ok(esmio_inq_natts(f, varid, &natts), "inq_natts");
  std::vector<std::string> names;
  for (int i = 0; i < natts; ++i) {
    char name[ESMIO_MAX_NAME];
    ok(esmio_inq_attname(f, varid, i, name, sizeof name), "inq_attname");
    names.emplace_back(name);
  }
  return names;
}

// The file's names as one line, "dims|vars|global atts|atts of each var".
std::string listing(esmio_file_t f) {
  int ndims = -1, nvars = -1, unlim = -2;
  ok(esmio_inq_ndims(f, &ndims), "inq_ndims");
  ok(esmio_inq_nvars(f, &nvars), "inq_nvars");
  ok(esmio_inq_unlimdim(f, &unlim), "inq_unlimdim");
  std::string s = "unlim=" + std::to_string(unlim) + " dims:";
  for (int d = 0; d < ndims; ++d) s += " " + dimname(f, d);
  s += " | vars:";
  for (int v = 0; v < nvars; ++v) s += " " + varname(f, v);
  for (int v = ESMIO_GLOBAL; v < nvars; ++v) {
    s += " | atts of " + std::to_string(v) + ":";
    for (const auto &a : attnames(f, v)) s += " " + a;
  }
  return s;
}

void define(esmio_file_t f) {
  int time, lat, lon, vt, vps, vt2;
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &time), "def_dim");
  ok(esmio_def_dim(f, "lat", 3, &lat), "def_dim");
  ok(esmio_def_dim(f, "lon", 4, &lon), "def_dim");
  const int d3[] = {time, lat, lon};
  ok(esmio_def_var(f, "time", ESMIO_DOUBLE, 1, &time, &vt), "def_var");
  ok(esmio_def_var(f, "PS", ESMIO_FLOAT, 3, d3, &vps), "def_var");
  ok(esmio_def_var(f, "T_with_a_rather_long_name", ESMIO_DOUBLE, 3, d3, &vt2), "def_var");
  ok(esmio_put_att(f, ESMIO_GLOBAL, "title", ESMIO_CHAR, 4, "test"), "put_att");
  ok(esmio_put_att(f, ESMIO_GLOBAL, "Conventions", ESMIO_CHAR, 6, "CF-1.8"), "put_att");
  ok(esmio_put_att(f, vt, "units", ESMIO_CHAR, 4, "days"), "put_att");
  ok(esmio_put_att(f, vps, "units", ESMIO_CHAR, 2, "Pa"), "put_att");
  ok(esmio_put_att(f, vps, "long_name", ESMIO_CHAR, 16, "surface pressure"), "put_att");
}

const char *const kExpected =
    "unlim=0 dims: time lat lon | vars: time PS T_with_a_rather_long_name"
    " | atts of -1: title Conventions | atts of 0: units | atts of 1: units long_name"
    " | atts of 2:";

void errors(esmio_file_t f, const std::string &what) {
  char name[ESMIO_MAX_NAME];
  expect_all(esmio_inq_dimname(f, 3, name, sizeof name), ESMIO_EBADID, what + " dimid 3",
             "dimension with id 3");
  expect_all(esmio_inq_dimname(f, -1, name, sizeof name), ESMIO_EBADID, what + " dimid -1");
  expect_all(esmio_inq_varname(f, 2, name, 10), ESMIO_EINVAL, what + " short buffer",
             "T_with_a_rather_long_name");
  expect_all(esmio_inq_varname(f, 0, nullptr, 10), ESMIO_EINVAL, what + " null buffer");
  expect_all(esmio_inq_varname(f, 7, name, sizeof name), ESMIO_EBADID, what + " varid 7");
  expect_all(esmio_inq_natts(f, 9, nullptr), ESMIO_EBADID, what + " natts varid 9");
  expect_all(esmio_inq_attname(f, 1, 2, name, sizeof name), ESMIO_ENOTATT, what + " attnum 2",
             "PS");
  expect_all(esmio_inq_attname(f, ESMIO_GLOBAL, 0, name, 3), ESMIO_EINVAL,
             what + " short attname buffer", "title");
  // An attribute that does not exist has its own code (was ESMIO_EBACKEND).
  expect_all(esmio_inq_att(f, 1, "missing", nullptr, nullptr), ESMIO_ENOTATT,
             what + " inq_att missing", "missing");
  // A buffer too short on one rank only fails the call on every rank.
  expect_all(esmio_inq_attname(f, 1, 1, name, rank == nranks - 1 ? 4 : sizeof name), ESMIO_EINVAL,
             what + " short attname buffer on one rank", "long_name");
  if (nranks > 1)
    expect_all(esmio_inq_attname(f, 1, rank == 0 ? 0 : 1, name, sizeof name), ESMIO_EMISMATCH,
               what + " attnum differs across ranks");
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  const std::string dir = out_dir();
  for (const char *backend : {"pnetcdf", "netcdf4", "serial"}) {
    const std::string b(backend), path = dir + "/inquire_" + b + ".nc";
    esmio_file_t f;
    ok(esmio_create(io, path.c_str(), ("backend=" + b).c_str(), &f), "create");
    define(f);
    check(listing(f) == kExpected, b + " define mode: " + listing(f));
    ok(esmio_enddef(f), "enddef");
    check(listing(f) == kExpected, b + " data mode: " + listing(f));
    errors(f, b);
    ok(esmio_close(&f), "close");
    ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, ("backend=" + b).c_str(), &f), "open");
    check(listing(f) == kExpected, b + " reopened: " + listing(f));
    errors(f, b + " reopened");
    ok(esmio_close(&f), "close");
    // A closed file's handle is refused by every new call.
    int n = 0;
    char name[ESMIO_MAX_NAME];
    expect_all(esmio_inq_ndims(f, &n), ESMIO_EBADID, b + " ndims of closed");
    expect_all(esmio_inq_natts(f, ESMIO_GLOBAL, &n), ESMIO_EBADID, b + " natts of closed");
    expect_all(esmio_inq_attname(f, ESMIO_GLOBAL, 0, name, sizeof name), ESMIO_EBADID,
               b + " attname of closed");
  }
  ok(esmio_finalize(&io), "finalize");
  return finish("test_inquire");
}
