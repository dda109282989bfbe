// A record written in many small pieces reaches the file whole: a multi-tasked model writes
// each variable record as latitude rows, one esmio_write_darray per row, in a random order on
// every rank, into a cache much smaller than the file. When the cache fills in the middle of
// a record, the rows of that record written so far stay in the cache (hold_back_record) and
// go out with the rest of the record at the next flush.
//
// Checked: every value of the file, read back, is what was written (bit for bit, float), and
// the bytes the I/O tasks handed to the storage library add up to the file's data exactly: a
// record split across two flushes would be written twice in part (the first flush fills the
// record's holes, which the rest of the record then overwrites), so more bytes would go down.
// Also that several flushes happened (the cache really was full mid-record).
//
// usage: test_cache_records [backend]   (pnetcdf by default)
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string backend = argc > 1 ? argv[1] : "pnetcdf";
  const std::string path =
      out_dir() + "/cache_records_" + backend + "_np" + std::to_string(nranks) + ".nc";
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, ("num_iotasks=2,backend=" + backend).c_str(), &io), "init");

  const int64_t nlat = 90, nlon = 144;
  const int nvars = 6, nrecords = 2;
  // Rank r holds rows r, r + nranks, ...; it writes them in its own random order, one
  // decomposition per call (the k-th row it writes), as the bench's `small` case does.
  std::vector<int64_t> rows;
  for (int64_t y = rank; y < nlat; y += nranks) rows.push_back(y);
  std::mt19937 rng(1234 + static_cast<unsigned>(rank));
  std::shuffle(rows.begin(), rows.end(), rng);
  int64_t calls = static_cast<int64_t>(rows.size());
  MPI_Allreduce(MPI_IN_PLACE, &calls, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  const int64_t dims[2] = {nlat, nlon};
  std::vector<esmio_decomp_t> decomps(static_cast<std::size_t>(calls));
  for (int64_t k = 0; k < calls; ++k) {
    const bool mine = k < static_cast<int64_t>(rows.size());
    const int64_t start[2] = {mine ? rows[k] : 0, 0}, count[2] = {mine ? 1 : 0, mine ? nlon : 0};
    ok(esmio_decomp_create_block(io, 2, dims, start, count, nullptr, &decomps[k]), "decomp");
  }
  auto value = [&](int v, int t, int64_t y, int64_t x) {
    return static_cast<float>(v * 1000 + t * 100) + static_cast<float>(y * nlon + x) * 0.001f;
  };

  esmio_file_t f;
  int dimids[3], varids[nvars];
  // 256 KiB of cache per rank: a record takes about 80 KiB of it (its rows on the I/O task and
  // the hole fill it may need), the file is 622 KB.
  ok(esmio_create(io, path.c_str(), "cache=size=256K", &f), "create");
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dimids[0]), "def time");
  ok(esmio_def_dim(f, "lat", nlat, &dimids[1]), "def lat");
  ok(esmio_def_dim(f, "lon", nlon, &dimids[2]), "def lon");
  for (int v = 0; v < nvars; ++v)
    ok(esmio_def_var(f, ("v" + std::to_string(v)).c_str(), ESMIO_FLOAT, 3, dimids, &varids[v]),
       "def var");
  ok(esmio_enddef(f), "enddef");
  ok(esmio_trace_reset(io), "trace reset");
  std::vector<float> row(static_cast<std::size_t>(nlon));
  for (int t = 0; t < nrecords; ++t)
    for (int v = 0; v < nvars; ++v)
      for (int64_t k = 0; k < calls; ++k) {
        const bool mine = k < static_cast<int64_t>(rows.size());
        for (int64_t x = 0; mine && x < nlon; ++x) row[x] = value(v, t, rows[k], x);
        ok(esmio_write_darray(f, varids[v], t, decomps[k], ESMIO_FLOAT, row.data(),
                              mine ? nlon : 0),
           "write row");
      }
  ok(esmio_close(&f), "close");

  esmio_counter written{};
  ok(esmio_trace_counter(io, "backend_write", &written), "counter");
  int64_t bytes = written.bytes, calls_made = written.calls;
  MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &calls_made, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  const int64_t data = int64_t(nvars) * nrecords * nlat * nlon * 4;
  check(calls_made >= 3,
        "the cache was flushed several times (backend_write calls on the "
        "busiest rank: " +
            std::to_string(calls_made) + ")");
  check(bytes == data, "the storage library got each byte once: " + std::to_string(bytes) +
                           " bytes handed over for " + std::to_string(data) + " bytes of data");

  // Every value, read back whole on every rank.
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  std::vector<float> all(static_cast<std::size_t>(nlat * nlon));
  for (int t = 0; t < nrecords; ++t)
    for (int v = 0; v < nvars; ++v) {
      const int64_t start[3] = {t, 0, 0}, count[3] = {1, nlat, nlon};
      ok(esmio_get_vara(f, varids[v], start, count, ESMIO_FLOAT, all.data()), "get_vara");
      int64_t bad = 0;
      for (int64_t y = 0; y < nlat; ++y)
        for (int64_t x = 0; x < nlon; ++x)
          if (all[static_cast<std::size_t>(y * nlon + x)] != value(v, t, y, x)) ++bad;
      check(bad == 0, "v" + std::to_string(v) + " record " + std::to_string(t) + ": " +
                          std::to_string(bad) + " wrong values");
    }
  ok(esmio_close(&f), "close read");
  for (auto &d : decomps) ok(esmio_decomp_free(&d), "decomp free");
  ok(esmio_finalize(&io), "finalize");
  return finish("test_cache_records");
}
