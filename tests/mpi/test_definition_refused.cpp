// Definitions the storage library could refuse.
//
// What a file's format cannot hold (a CDF-5 type in a CDF-1/2 attribute, a dimension too long
// for CDF-1/2, a netCDF-4 fill value set too late) fails at its call on every rank.
//
// A name outside netCDF's rule fails at its call, on every rank and with every backend alike,
// before any backend sees it, and defines nothing; unusual names inside the rule are defined
// and found again after the file is reopened.
//
// A definition the storage library refuses after every rank's checks passed (netCDF-4 reserves
// the global attribute "_NCProperties"; with one I/O task only that rank holds the file) is not
// agreed at its own call: the next definition, esmio_enddef and esmio_close fail on every rank
// with the same code and message, naming the refused attribute and the rank; the file left
// behind holds the definitions before it and opens.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using mpi_check::check;
using mpi_check::expect_all;
using mpi_check::ok;
using mpi_check::rank;

namespace {

std::vector<std::string> created;  // removed at the end

std::string path_of(const std::string &name) {
  const std::string p = mpi_check::out_dir() + "/test_definition_refused_np" +
                        std::to_string(mpi_check::nranks) + "_" + name;
  created.push_back(p);
  return p;
}

// The same text on every rank (a collective call's message).
void check_same_everywhere(const std::string &text, const std::string &what) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string root = rank == 0 ? text : std::string(static_cast<std::size_t>(length), '\0');
  if (length > 0) MPI_Bcast(root.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  check(root == text,
        what + ": the message differs from rank 0's: \"" + text + "\" against \"" + root + "\"");
}

void expect_refused(int rc, int want, const std::string &what,
                    const std::vector<std::string> &needles) {
  const std::string message = esmio_last_error();
  expect_all(rc, want, what);
  for (const std::string &n : needles)
    check(message.find(n) != std::string::npos,
          what + ": the message does not name '" + n + "': " + message);
  check_same_everywhere(message, what);
}

void test_names(esmio_t io, const std::string &backend) {
  const std::string p = path_of("names_" + backend + ".nc");
  const std::string settings =
      "backend=" + backend + (backend == "netcdf4" ? ",format=netcdf4" : ",format=cdf5");
  esmio_file_t f = nullptr;
  ok(esmio_create(io, p.c_str(), settings.c_str(), &f), "create");
  int x = -1;
  ok(esmio_def_dim(f, "x", 4, &x), "def_dim x");
  const std::vector<std::string> bad = {
      "a/b",     "-dash",   " lead",   "trail ",
      "tab\tin", "del\x7F", "cut\xC3", "\xED\xA0\x80" /* a UTF-16 surrogate */,
      "\xC0\xAF" /* overlong '/' */};
  for (const std::string &name : bad) {
    const std::string what = backend + ": the name \"" + name + "\"";
    int id = -1;
    expect_refused(esmio_def_dim(f, name.c_str(), 3, &id), ESMIO_EINVAL, what + " in def_dim",
                   {"esmio_def_dim", "is not a netCDF name"});
    expect_refused(esmio_def_var(f, name.c_str(), ESMIO_FLOAT, 1, &x, &id), ESMIO_EINVAL,
                   what + " in def_var", {"esmio_def_var", "is not a netCDF name"});
    expect_refused(esmio_put_att(f, ESMIO_GLOBAL, name.c_str(), ESMIO_CHAR, 1, "k"), ESMIO_EINVAL,
                   what + " in put_att", {"esmio_put_att", "is not a netCDF name"});
  }
  int ndims = -1, nvars = -1, natts = -1;
  ok(esmio_inq_ndims(f, &ndims), "inq_ndims");
  ok(esmio_inq_nvars(f, &nvars), "inq_nvars");
  ok(esmio_inq_natts(f, ESMIO_GLOBAL, &natts), "inq_natts");
  check(ndims == 1 && nvars == 0 && natts == 0,
        backend + ": refused names defined something: " + std::to_string(ndims) + " dims, " +
            std::to_string(nvars) + " vars, " + std::to_string(natts) + " attributes");

  const std::vector<std::string> good = {"2m_temperature", "temp\xC3\xA9rature", "with space", "_x",
                                         "a.b-c+d@e:(f)",  "\xE2\x82\xAC" /* euro sign */};
  for (const std::string &name : good) {
    int id = -1;
    expect_all(esmio_def_var(f, name.c_str(), ESMIO_FLOAT, 1, &x, &id), ESMIO_NOERR,
               backend + ": def_var \"" + name + "\"");
    expect_all(esmio_put_att(f, id, name.c_str(), ESMIO_CHAR, 1, "k"), ESMIO_NOERR,
               backend + ": put_att \"" + name + "\"");
  }
  ok(esmio_enddef(f), "enddef");
  ok(esmio_close(&f), "close");
  ok(esmio_open(io, p.c_str(), ESMIO_NOWRITE, "", &f), "open");
  for (const std::string &name : good) {
    int id = -1;
    expect_all(esmio_inq_varid(f, name.c_str(), &id), ESMIO_NOERR,
               backend + ": inq_varid \"" + name + "\" after reopening");
    esmio_type type = ESMIO_FLOAT;
    int64_t len = -1;
    if (id >= 0)
      expect_all(esmio_inq_att(f, id, name.c_str(), &type, &len), ESMIO_NOERR,
                 backend + ": inq_att \"" + name + "\" after reopening");
  }
  ok(esmio_close(&f), "close the reopened file");
}

// What a format cannot hold fails at the call on every rank, not later in the storage library:
// a CDF-5 type in an attribute of a CDF-1/2 file, a dimension longer than CDF-1/2 count, and
// netCDF-4's fill value of a variable defined before the last esmio_enddef.
void test_format_limits(esmio_t io) {
  for (const char *format : {"cdf1", "cdf2"}) {
    for (const char *backend : {"pnetcdf", "serial"}) {
      const std::string label = std::string(backend) + " " + format;
      const std::string p = path_of(std::string("limits_") + backend + "_" + format + ".nc");
      esmio_file_t f = nullptr;
      ok(esmio_create(io, p.c_str(),
                      (std::string("backend=") + backend + ",format=" + format).c_str(), &f),
         "create");
      const int64_t longest =
          std::string(format) == "cdf1" ? (int64_t(1) << 31) - 4 : (int64_t(1) << 32) - 4;
      int d = -1;
      expect_refused(esmio_def_dim(f, "too_long", longest + 1, &d), ESMIO_EINVAL,
                     label + ": a dimension one longer than the format holds",
                     {"too_long", std::to_string(longest), format});
      expect_all(esmio_def_dim(f, "longest", longest, &d), ESMIO_NOERR,
                 label + ": a dimension as long as the format holds");
      const int64_t big = 1;
      expect_refused(esmio_put_att(f, ESMIO_GLOBAL, "i64", ESMIO_INT64, 1, &big), ESMIO_EBADTYPE,
                     label + ": an int64 attribute", {"i64", "int64", format});
      // Nothing refused is left for a later call to report.
      expect_all(esmio_put_att(f, ESMIO_GLOBAL, "title", ESMIO_CHAR, 1, "t"), ESMIO_NOERR,
                 label + ": an attribute after the refusals");
      expect_all(esmio_enddef(f), ESMIO_NOERR, label + ": enddef after the refusals");
      expect_all(esmio_close(&f), ESMIO_NOERR, label + ": close after the refusals");
    }
  }
  const std::string p = path_of("limits_netcdf4.nc");
  esmio_file_t f = nullptr;
  ok(esmio_create(io, p.c_str(), "backend=netcdf4,format=netcdf4", &f), "create");
  int x = -1, v = -1, w = -1;
  ok(esmio_def_dim(f, "x", 4, &x), "def_dim x");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 1, &x, &v), "def_var v");
  ok(esmio_enddef(f), "enddef");
  ok(esmio_redef(f), "redef");
  const float fill = -5.0f;
  expect_refused(esmio_put_att(f, v, "_FillValue", ESMIO_FLOAT, 1, &fill), ESMIO_EINVAL,
                 "netcdf4: the fill value of a variable defined before esmio_enddef",
                 {"_FillValue", "'v'", "netCDF-4"});
  ok(esmio_def_var(f, "w", ESMIO_FLOAT, 1, &x, &w), "def_var w");
  expect_all(esmio_put_att(f, w, "_FillValue", ESMIO_FLOAT, 1, &fill), ESMIO_NOERR,
             "netcdf4: the fill value of a variable defined since");
  expect_all(esmio_enddef(f), ESMIO_NOERR, "netcdf4: enddef after the refusal");
  expect_all(esmio_close(&f), ESMIO_NOERR, "netcdf4: close after the refusal");
}

// "_NCProperties" is refused by netCDF-4 on the ranks that hold the file (one rank with
// one_task, every rank otherwise).
void test_refused(esmio_t io, const std::string &label) {
  const std::string p = path_of("refused_" + label + ".nc");
  esmio_file_t f = nullptr;
  ok(esmio_create(io, p.c_str(), "backend=netcdf4,format=netcdf4", &f), "create");
  int x = -1, v = -1, w = -1;
  ok(esmio_def_dim(f, "x", 4, &x), "def_dim x");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 1, &x, &v), "def_var v");
  ok(esmio_put_att(f, v, "units", ESMIO_CHAR, 1, "K"), "put_att units");
  // Refused inside netCDF-4 only: esmio's checks pass it, and the call returns before its
  // outcome is agreed.
  expect_all(esmio_put_att(f, ESMIO_GLOBAL, "_NCProperties", ESMIO_CHAR, 4, "mine"), ESMIO_NOERR,
             label + ": put_att _NCProperties (refused by the storage library, not yet agreed)");
  const std::vector<std::string> names = {"_NCProperties", "rank 0", p};
  expect_refused(esmio_def_var(f, "w", ESMIO_FLOAT, 1, &x, &w), ESMIO_ENAMEINUSE,
                 label + ": def_var after the refusal", names);
  expect_refused(esmio_put_att(f, v, "long_name", ESMIO_CHAR, 1, "t"), ESMIO_ENAMEINUSE,
                 label + ": put_att after the refusal", names);
  expect_refused(esmio_enddef(f), ESMIO_ENAMEINUSE, label + ": enddef after the refusal", names);
  std::vector<std::string> closed = names;
  closed.push_back("the file was closed");
  expect_refused(esmio_close(&f), ESMIO_ENAMEINUSE, label + ": close after the refusal", closed);
  check(f == nullptr, label + ": the handle outlived the close");

  // What came before the refusal is in the file; what came after is not.
  ok(esmio_open(io, p.c_str(), ESMIO_NOWRITE, "", &f), "open the file left behind");
  int nvars = -1, id = -1;
  ok(esmio_inq_nvars(f, &nvars), "inq_nvars");
  check(nvars == 1, label + ": " + std::to_string(nvars) + " variables in the file, expected 1");
  expect_all(esmio_inq_varid(f, "w", &id), ESMIO_ENOTVAR, label + ": w is not in the file");
  char units[2] = {0, 0};
  ok(esmio_inq_varid(f, "v", &id), "inq_varid v");
  ok(esmio_get_att(f, id, "units", ESMIO_CHAR, 1, units), "get_att units");
  check(units[0] == 'K', label + ": units read back as '" + std::string(units) + "'");
  int natts = -1;
  ok(esmio_inq_natts(f, id, &natts), "inq_natts v");
  check(natts == 1, label + ": v has " + std::to_string(natts) + " attributes, expected 1");
  ok(esmio_close(&f), "close the file left behind");
}

}  // namespace

int main(int argc, char **argv) {
  mpi_check::start(&argc, &argv);
  esmio_t io = nullptr, one_task = nullptr;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  ok(esmio_init(MPI_COMM_WORLD, "num_iotasks=1", &one_task), "init with one I/O task");
  for (const char *backend : {"pnetcdf", "serial", "netcdf4"}) test_names(io, backend);
  test_format_limits(io);
  test_refused(io, "every_task");
  test_refused(one_task, "one_task");
  ok(esmio_finalize(&one_task), "finalize one_task");
  ok(esmio_finalize(&io), "finalize");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    for (const std::string &p : created) std::remove(p.c_str());
  return mpi_check::finish("test_definition_refused");
}
