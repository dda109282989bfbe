// Records too small for every I/O task to share are dealt out whole, by bytes: the E3SM F case's
// shapes at their test size (866 columns, 72 levels: 3.4 KiB 2-D and 249 KiB 3-D records), an
// unstructured column decomposition, through the automatic layout and with every rank an I/O
// task. Before the dealing, the first I/O task wrote every byte of these records and the others
// none.
//
// Checked: the automatic layout chose at least two I/O tasks here and says so; each I/O task handed
// the storage library a share of the file's bytes within 10 % of the mean (summed over the
// file: one flush of a few records cannot be split evenly), and the shares add up to the data
// exactly; every value reads back bit for bit, through the same decomposition (reads take the
// groups in turn) and whole through get_vara; with the subset layout the same file comes out.
#include <cstdint>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

constexpr int64_t kCols = 866, kLevs = 72;
constexpr int kVars2d = 40, kVars3d = 12, kRecords = 3;

float value(int v, int t, int64_t offset) {
  return static_cast<float>(v * 1000 + t * 100) + static_cast<float>(offset) * 0.001f;
}

// Columns in chunks of 7, dealt to the ranks in turn (a space-filling curve's pieces).
std::vector<int64_t> my_columns() {
  std::vector<int64_t> cols;
  for (int64_t c = 0; c < kCols; ++c)
    if ((c / 7) % nranks == rank) cols.push_back(c);
  return cols;
}

void write_and_check(const std::string &settings, const std::string &path) {
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, settings.c_str(), &io), "init");
  int ntasks = 0, mine = 0;
  ok(esmio_inq_iotasks(io, &ntasks, &mine), "inq_iotasks");
  if (settings.empty()) {
    char why[1024];
    ok(esmio_inq_iolayout(io, why, sizeof why), "inq_iolayout");
    check(ntasks >= 2 && ntasks <= nranks,
          "the automatic layout chooses 2 to " + std::to_string(nranks) +
              " I/O tasks here: " + std::to_string(ntasks) + " (" + why + ")");
    check(std::string(why).find("num_iotasks=0 (automatic") == 0,
          std::string("the layout says it was chosen automatically: ") + why);
  }
  const std::vector<int64_t> cols = my_columns();
  const int64_t ncols = static_cast<int64_t>(cols.size());
  std::vector<int64_t> off3(static_cast<std::size_t>(kLevs * ncols));
  for (int64_t k = 0; k < kLevs; ++k)
    for (int64_t i = 0; i < ncols; ++i) off3[k * ncols + i] = k * kCols + cols[i];
  const int64_t dims2[1] = {kCols}, dims3[2] = {kLevs, kCols};
  esmio_decomp_t d2, d3;
  ok(esmio_decomp_create(io, 1, dims2, ncols, cols.data(), &d2), "decomp 2-D");
  ok(esmio_decomp_create(io, 2, dims3, kLevs * ncols, off3.data(), &d3), "decomp 3-D");

  esmio_file_t f;
  int time = 0, lev = 0, col = 0;
  ok(esmio_create(io, path.c_str(), "", &f), "create");
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &time), "def time");
  ok(esmio_def_dim(f, "lev", kLevs, &lev), "def lev");
  ok(esmio_def_dim(f, "ncol", kCols, &col), "def ncol");
  std::vector<int> varids;
  for (int v = 0; v < kVars2d + kVars3d; ++v) {
    const bool three = v >= kVars2d;
    const int dimids[3] = {time, three ? lev : col, col};
    int id = 0;
    ok(esmio_def_var(f, ("F" + std::to_string(v)).c_str(), ESMIO_FLOAT, three ? 3 : 2, dimids, &id),
       "def var");
    varids.push_back(id);
  }
  ok(esmio_enddef(f), "enddef");
  ok(esmio_trace_reset(io), "trace reset");
  std::vector<float> buf(off3.size());
  for (int t = 0; t < kRecords; ++t)
    for (int v = 0; v < kVars2d + kVars3d; ++v) {
      const bool three = v >= kVars2d;
      const std::vector<int64_t> &offsets = three ? off3 : cols;
      for (std::size_t i = 0; i < offsets.size(); ++i) buf[i] = value(v, t, offsets[i]);
      ok(esmio_write_darray(f, varids[v], t, three ? d3 : d2, ESMIO_FLOAT, buf.data(),
                            static_cast<int64_t>(offsets.size())),
         "write_darray");
    }
  ok(esmio_close(&f), "close");

  // Each I/O task's bytes: within 10 % of the mean, adding up to the data exactly.
  esmio_counter written{};
  ok(esmio_trace_counter(io, "backend_write", &written), "counter");
  std::vector<int64_t> shares(static_cast<std::size_t>(nranks));
  const int64_t share = mine ? written.bytes : -1;
  MPI_Allgather(&share, 1, MPI_INT64_T, shares.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
  const int64_t data = int64_t(kRecords) * (kVars2d + kVars3d * kLevs) * kCols * 4;
  int64_t total = 0, tasks = 0;
  for (int64_t s : shares)
    if (s >= 0) total += s, ++tasks;
  check(total == data, "the storage library got each byte once: " + std::to_string(total) +
                           " bytes for " + std::to_string(data));
  const double mean = static_cast<double>(total) / static_cast<double>(tasks);
  std::string listed;
  for (int64_t s : shares)
    if (s >= 0) listed += " " + std::to_string(s);
  for (int64_t s : shares)
    if (s >= 0)
      check(s >= 0.9 * mean && s <= 1.1 * mean, settings +
                                                    ": I/O task shares within 10 % of the mean " +
                                                    std::to_string(mean) + ":" + listed);

  // Every value back, through the decompositions and whole.
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  std::vector<float> all(static_cast<std::size_t>(kLevs * kCols));
  for (int t = 0; t < kRecords; ++t)
    for (int v = 0; v < kVars2d + kVars3d; ++v) {
      const bool three = v >= kVars2d;
      const std::vector<int64_t> &offsets = three ? off3 : cols;
      ok(esmio_read_darray(f, varids[v], t, three ? d3 : d2, ESMIO_FLOAT, buf.data(),
                           static_cast<int64_t>(offsets.size())),
         "read_darray");
      int64_t bad = 0;
      for (std::size_t i = 0; i < offsets.size(); ++i)
        if (buf[i] != value(v, t, offsets[i])) ++bad;
      const int64_t start[3] = {t, 0, 0}, count[3] = {1, three ? kLevs : kCols, kCols};
      ok(esmio_get_vara(f, varids[v], start, count, ESMIO_FLOAT, all.data()), "get_vara");
      for (int64_t o = 0; o < (three ? kLevs * kCols : kCols); ++o)
        if (all[static_cast<std::size_t>(o)] != value(v, t, o)) ++bad;
      check(bad == 0, settings + ": F" + std::to_string(v) + " record " + std::to_string(t) + ": " +
                          std::to_string(bad) + " wrong values");
    }
  ok(esmio_close(&f), "close read");
  ok(esmio_decomp_free(&d2), "free");
  ok(esmio_decomp_free(&d3), "free");
  ok(esmio_finalize(&io), "finalize");
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string base = out_dir() + "/balance_np" + std::to_string(nranks);
  const std::string every = "num_iotasks=" + std::to_string(nranks);
  write_and_check("", base + "_auto.nc");
  write_and_check(every, base + "_every.nc");
  write_and_check(every + ",backend=netcdf4", base + "_netcdf4.nc");
  write_and_check("num_iotasks=2,cache=size=1M", base + "_two.nc");
  return finish("test_balance");
}
