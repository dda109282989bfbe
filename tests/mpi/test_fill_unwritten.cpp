// Writes the files check_fill_unwritten.py reads: variables defined and never written must read as
// their fill value once the file is closed (the _FillValue attribute, or netCDF's default for
// the type), as netCDF's fill mode gives, although esmio keeps files in NOFILL mode (and a variable
// written through a decomposition with holes holds the fill there, as before); so must the parts
// of a variable, or of a record, that put_vara slices leave out. Per backend
// two files in OUTDIR: fresh_TAG.nc, closed once; reopened_TAG.nc, the same file opened again
// for writing, a variable defined then and one written, a record added (the data of the first
// open must not be overwritten with fill). The values are a formula of the global index alone,
// so the files do not depend on the number of ranks.
// Usage: test_fill_unwritten OUTDIR [INIT_SETTINGS]   (io_servers=1: through an I/O server)
#include <cstdint>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

constexpr int64_t kY = 4, kX = 250, kW = 1600;  // big: kW x kX doubles, 3.2 MB (several rounds)

struct Ids {
  int written_f, fill_f, default_d, fill_i, default_i, coord, scalar, big, rec_f, rec_i, rec_d,
      holes_f, part_f, rec_part_d;
};

// This rank's rows of a (kY, kX) field, and its values: base + the global index.
struct Rows {
  int64_t begin, count;
  esmio_decomp_t decomp;
  std::vector<double> values(double base) const {
    std::vector<double> v(static_cast<std::size_t>(count * kX) + 1);
    for (int64_t i = 0; i < count * kX; ++i) v[i] = base + static_cast<double>(begin * kX + i);
    return v;
  }
};

// Rank me's share of the first `rows` rows of a (kY, kX) field (rows = kY: the whole field).
Rows rows_of(esmio_t io, int64_t rows, int me, int p) {
  Rows r;
  r.begin = me * rows / p;
  r.count = (me + 1) * rows / p - r.begin;
  const int64_t shape[2] = {kY, kX}, start[2] = {r.begin, 0}, count[2] = {r.count, kX};
  ok(esmio_decomp_create_block(io, 2, shape, start, count, nullptr, &r.decomp), "decomp");
  return r;
}

void write_rows(esmio_file_t f, int varid, int64_t record, const Rows &r, double base) {
  const std::vector<double> v = r.values(base);
  ok(esmio_write_darray(f, varid, record, r.decomp, ESMIO_DOUBLE, v.data(), r.count * kX),
     "write_darray");
}

// The first open: every kind of variable, some written.
void create_file(esmio_t io, const std::string &path, const char *settings, const Rows &rows,
                 const Rows &half) {
  esmio_file_t f;
  int t, y, x, w;
  Ids v;
  ok(esmio_create(io, path.c_str(), settings, &f), "create");
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &t), "def_dim t");
  ok(esmio_def_dim(f, "y", kY, &y), "def_dim y");
  ok(esmio_def_dim(f, "x", kX, &x), "def_dim x");
  ok(esmio_def_dim(f, "w", kW, &w), "def_dim w");
  const int yx[2] = {y, x}, wx[2] = {w, x}, tyx[3] = {t, y, x}, tx[2] = {t, x};
  ok(esmio_def_var(f, "written_f", ESMIO_FLOAT, 2, yx, &v.written_f), "def written_f");
  ok(esmio_def_var(f, "fill_f", ESMIO_FLOAT, 2, yx, &v.fill_f), "def fill_f");
  ok(esmio_def_var(f, "default_d", ESMIO_DOUBLE, 2, yx, &v.default_d), "def default_d");
  ok(esmio_def_var(f, "fill_i", ESMIO_INT, 1, &x, &v.fill_i), "def fill_i");
  ok(esmio_def_var(f, "default_i", ESMIO_INT, 2, yx, &v.default_i), "def default_i");
  ok(esmio_def_var(f, "coord", ESMIO_DOUBLE, 1, &x, &v.coord), "def coord");
  ok(esmio_def_var(f, "scalar", ESMIO_DOUBLE, 0, nullptr, &v.scalar), "def scalar");
  ok(esmio_def_var(f, "big", ESMIO_DOUBLE, 2, wx, &v.big), "def big");
  ok(esmio_def_var(f, "rec_f", ESMIO_FLOAT, 3, tyx, &v.rec_f), "def rec_f");
  ok(esmio_def_var(f, "rec_i", ESMIO_INT, 3, tyx, &v.rec_i), "def rec_i");
  ok(esmio_def_var(f, "rec_d", ESMIO_DOUBLE, 2, tx, &v.rec_d), "def rec_d");
  ok(esmio_def_var(f, "holes_f", ESMIO_FLOAT, 2, yx, &v.holes_f), "def holes_f");
  ok(esmio_def_var(f, "part_f", ESMIO_FLOAT, 2, yx, &v.part_f), "def part_f");
  ok(esmio_def_var(f, "rec_part_d", ESMIO_DOUBLE, 2, tx, &v.rec_part_d), "def rec_part_d");
  const float fill_f = -7.0f;
  const int fill_i = -5, rec_fill_i = -3;
  const double big_fill = 1.5;
  ok(esmio_def_var_fill(f, v.fill_f, &fill_f), "fill fill_f");
  ok(esmio_put_att(f, v.fill_i, "_FillValue", ESMIO_INT, 1, &fill_i), "_FillValue fill_i");
  ok(esmio_def_var_fill(f, v.big, &big_fill), "fill big");
  ok(esmio_def_var_fill(f, v.rec_i, &rec_fill_i), "fill rec_i");
  const float part_fill = -2.0f;
  ok(esmio_def_var_fill(f, v.part_f, &part_fill), "fill part_f");
  ok(esmio_enddef(f), "enddef");
  write_rows(f, v.written_f, 0, rows, 0.0);
  std::vector<double> coord(kX);
  for (int64_t i = 0; i < kX; ++i) coord[i] = 0.5 * static_cast<double>(i);
  ok(esmio_put_var(f, v.coord, ESMIO_DOUBLE, coord.data(), kX), "put_var coord");
  write_rows(f, v.rec_f, 0, rows, 1000.0);
  write_rows(f, v.rec_f, 2, rows, 3000.0);
  // Written in part: the rows its decomposition leaves out are holes, filled by that write.
  write_rows(f, v.holes_f, 0, half, 7000.0);
  // Written in part by put_vara, rows 1 and 3 in two calls: rows 0 and 2 hold the fill value
  // (the second call must not fill over the first).
  for (int64_t row : {1, 3}) {
    std::vector<double> line(kX);
    for (int64_t i = 0; i < kX; ++i) line[i] = 8000.0 + static_cast<double>(row * kX + i);
    const int64_t start[2] = {row, 0}, count[2] = {1, kX};
    ok(esmio_put_vara(f, v.part_f, start, count, ESMIO_DOUBLE, line.data()), "put_vara part_f");
  }
  // Ten columns of record 1: the rest of that record holds the fill value.
  {
    std::vector<double> cols(10);
    for (int64_t i = 0; i < 10; ++i) cols[i] = 9000.0 + static_cast<double>(i);
    const int64_t start[2] = {1, 10}, count[2] = {1, 10};
    ok(esmio_put_vara(f, v.rec_part_d, start, count, ESMIO_DOUBLE, cols.data()),
       "put_vara rec_part_d");
  }
  ok(esmio_close(&f), "close");
}

// The second open, for writing: a variable defined and never written, one defined and written,
// a record of rec_f added; nothing written in the first open is touched.
void reopen_file(esmio_t io, const std::string &path, const Rows &rows) {
  esmio_file_t f;
  ok(esmio_open(io, path.c_str(), ESMIO_WRITE, "", &f), "open for writing");
  int y, x, late_f, late_w, rec_f;
  ok(esmio_inq_dimid(f, "y", &y), "inq y");
  ok(esmio_inq_dimid(f, "x", &x), "inq x");
  ok(esmio_inq_varid(f, "rec_f", &rec_f), "inq rec_f");
  ok(esmio_redef(f), "redef");
  const int yx[2] = {y, x};
  ok(esmio_def_var(f, "late_f", ESMIO_FLOAT, 2, yx, &late_f), "def late_f");
  ok(esmio_def_var(f, "late_w", ESMIO_FLOAT, 2, yx, &late_w), "def late_w");
  const float late_fill = -9.0f;
  ok(esmio_def_var_fill(f, late_f, &late_fill), "fill late_f");
  ok(esmio_enddef(f), "enddef");
  write_rows(f, late_w, 0, rows, 5000.0);
  write_rows(f, rec_f, 3, rows, 4000.0);
  ok(esmio_close(&f), "close reopened");
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string dir = argc > 1 ? argv[1] : out_dir();
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, argc > 2 ? argv[2] : "", &io), "init");
  int role = -1;
  ok(esmio_inq_role(io, &role), "inq_role");
  if (role == ESMIO_ROLE_SERVER) {  // it served the compute ranks' calls until they finalized
    ok(esmio_finalize(&io), "finalize server");
    return finish("fill_unwritten");
  }
  MPI_Comm comm = MPI_COMM_NULL;
  ok(esmio_inq_comm(io, &comm), "inq_comm");
  int me = 0, p = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  const Rows rows = rows_of(io, kY, me, p), half = rows_of(io, kY / 2, me, p);
  // cache=size=0: the fill is written in rounds of 1 MiB, so that big takes several.
  const char *cases[][2] = {{"pnetcdf", "backend=pnetcdf"},
                            {"cdf2", "backend=pnetcdf,format=cdf2,cache=size=0"},
                            {"mpiio", "backend=pnetcdf,direct_write=false,cache=size=0"},
                            {"netcdf4", "backend=netcdf4,cache=size=0"},
                            {"serial", "backend=serial,cache=size=0"}};
  for (const auto &c : cases) {
    create_file(io, dir + "/fresh_" + c[0] + ".nc", c[1], rows, half);
    create_file(io, dir + "/reopened_" + c[0] + ".nc", c[1], rows, half);
    reopen_file(io, dir + "/reopened_" + c[0] + ".nc", rows);
  }
  for (esmio_decomp_t d : {rows.decomp, half.decomp}) ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");
  return finish("fill_unwritten");
}
