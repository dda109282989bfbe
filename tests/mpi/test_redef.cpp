// Reopening a file to add attributes and variables: the header's reserved room (header_pad)
// keeps the data where it is, and the data survives; with no room, PnetCDF moves it (the trap
// header_pad exists for). Checked with PnetCDF's own view of the variable's file offset.
#include <pnetcdf.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

MPI_Offset var_offset(const std::string &path, const char *name) {
  MPI_Offset offset = -1;
  if (rank == 0) {
    int nc, varid;
    if (ncmpi_open(MPI_COMM_SELF, path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &nc) == NC_NOERR) {
      if (ncmpi_inq_varid(nc, name, &varid) == NC_NOERR) ncmpi_inq_varoffset(nc, varid, &offset);
      ncmpi_close(nc);
    }
  }
  MPI_Bcast(&offset, 1, MPI_OFFSET, 0, MPI_COMM_WORLD);
  return offset;
}

// Writes x(40) through a decomposition, reopens, adds a 4000-byte attribute and a variable y,
// writes y, and checks x and y. Returns x's file offset before and after.
std::pair<MPI_Offset, MPI_Offset> grow_header(esmio_t io, const std::string &path,
                                              const char *settings) {
  const int64_t n = 40;
  std::vector<int64_t> offsets;
  for (int64_t g = rank; g < n; g += nranks) offsets.push_back(g);
  esmio_decomp_t d;
  ok(esmio_decomp_create(io, 1, &n, static_cast<int64_t>(offsets.size()), offsets.data(), &d),
     "decomp");
  std::vector<double> values(offsets.size()), back(offsets.size());
  for (std::size_t i = 0; i < offsets.size(); ++i)
    values[i] = 0.5 * static_cast<double>(offsets[i]);

  esmio_file_t f;
  int dim, x, y;
  ok(esmio_create(io, path.c_str(), settings, &f), "create");
  ok(esmio_def_dim(f, "n", n, &dim), "def_dim");
  ok(esmio_def_var(f, "x", ESMIO_DOUBLE, 1, &dim, &x), "def_var");
  ok(esmio_enddef(f), "enddef");
  ok(esmio_write_darray(f, x, 0, d, ESMIO_DOUBLE, values.data(),
                        static_cast<int64_t>(values.size())),
     "write x");
  ok(esmio_close(&f), "close");
  const MPI_Offset before = var_offset(path, "x");

  ok(esmio_open(io, path.c_str(), ESMIO_WRITE, settings, &f), "open for writing");
  ok(esmio_redef(f), "redef");
  const std::string history(4000, 'h');
  ok(esmio_put_att(f, ESMIO_GLOBAL, "history", ESMIO_CHAR, static_cast<int64_t>(history.size()),
                   history.data()),
     "put_att");
  ok(esmio_inq_dimid(f, "n", &dim), "inq_dimid");
  ok(esmio_def_var(f, "y", ESMIO_FLOAT, 1, &dim, &y), "def_var y");
  ok(esmio_enddef(f), "enddef again");
  ok(esmio_write_darray(f, y, 0, d, ESMIO_DOUBLE, values.data(),
                        static_cast<int64_t>(values.size())),
     "write y");
  ok(esmio_close(&f), "close again");
  const MPI_Offset after = var_offset(path, "x");

  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open to read");
  ok(esmio_inq_varid(f, "x", &x), "inq x");
  ok(esmio_inq_varid(f, "y", &y), "inq y");
  ok(esmio_read_darray(f, x, 0, d, ESMIO_DOUBLE, back.data(), static_cast<int64_t>(back.size())),
     "read x");
  check(back == values, path + ": x changed by the header growth");
  ok(esmio_read_darray(f, y, 0, d, ESMIO_DOUBLE, back.data(), static_cast<int64_t>(back.size())),
     "read y");
  check(back == values, path + ": y not as written");
  int64_t len = 0;
  esmio_type type;
  ok(esmio_inq_att(f, ESMIO_GLOBAL, "history", &type, &len), "inq_att");
  check(type == ESMIO_CHAR && len == 4000, path + ": history attribute");
  ok(esmio_close(&f), "close read");
  ok(esmio_decomp_free(&d), "free");
  if (rank == 0) std::remove(path.c_str());
  return {before, after};
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string dir = out_dir();
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "num_iotasks=2", &io), "init");
  for (const char *backend : {"pnetcdf", "serial"}) {
    const std::string b(backend);
    auto padded = grow_header(io, dir + "/redef_pad_" + b + ".nc", ("backend=" + b).c_str());
    check(padded.first > 0 && padded.first == padded.second,
          b + ": with the default header_pad the data moved from " + std::to_string(padded.first) +
              " to " + std::to_string(padded.second));
    auto tight =
        grow_header(io, dir + "/redef_nopad_" + b + ".nc", ("header_pad=0,backend=" + b).c_str());
    check(tight.second > tight.first,
          b + ": with header_pad=0 a 4000-byte attribute should have moved the data (" +
              std::to_string(tight.first) + " -> " + std::to_string(tight.second) + ")");
  }
  // Data alignment two ways: the cache spec's align (esmio's enddef), and an MPI-IO/PnetCDF
  // hint passed through mpiio_hints (PnetCDF reads nc_var_align_size from the MPI_Info).
  const std::pair<const char *, const char *> aligned[] = {
      {"cache=align=1M", "cache align"},
      {"mpiio_hints=nc_var_align_size=1048576;cb_nodes=1", "mpiio_hints"}};
  for (const auto &a : aligned) {
    const std::string path = dir + "/redef_align.nc";
    const auto offsets = grow_header(io, path, a.first);
    check(offsets.first > 0 && offsets.first % 1048576 == 0,
          std::string(a.second) + ": x starts at " + std::to_string(offsets.first) +
              ", not on a 1 MiB boundary");
  }
  esmio_file_t f;
  const int bad =
      esmio_create(io, (dir + "/redef_bad.nc").c_str(), "mpiio_hints=striping_unit", &f);
  check(bad == ESMIO_ESETTING, "a hint without a value is refused");
  check(std::string(esmio_last_error()).find("striping_unit") != std::string::npos,
        "the message names the hint");
  ok(esmio_finalize(&io), "finalize");
  return finish("test_redef");
}
