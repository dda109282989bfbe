// I/O servers with io_server_close=background: esmio_close returns once the close is posted and
// the servers finish the file while the model goes on.
//
// - Files closed in the background read back bit for bit: after esmio_stage_wait, and when
//   opened again without a wait (the open waits for the close). A path created again in the
//   other server group waits for its earlier close, and holds the second file.
// - esmio_stage_wait returns each close's outcome once, then ESMIO_EINVAL (nothing pending).
// - A close that fails on the servers (a file in a missing directory) returns success from
//   esmio_close and its error from esmio_stage_wait, on every compute rank, naming the file,
//   also when the path is written again successfully before the wait; a failure never waited
//   for comes back from esmio_finalize. Files written through a 64 KiB ring meanwhile do not
//   wait on the servers' reply to the failed close.
// - A netCDF-4 file published at close (publish=atomic) opens at once with its format.
//
// Run with 3 ranks (1 server) or 5 (2 servers; the test adds io_server_groups=2).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

constexpr int64_t kN = 1000;  // values per record
constexpr int kRecords = 24;

struct Model {
  MPI_Comm comm = MPI_COMM_NULL;  // the compute ranks
  esmio_decomp_t d = nullptr;
  std::vector<int64_t> offsets;
};

double value(int64_t g, int record, int variant) { return 1000.0 * variant + record + g * 1e-3; }

void write_file(esmio_t io, const Model &m, const std::string &path, int variant,
                const std::string &settings = "backend=pnetcdf") {
  esmio_file_t f = nullptr;
  ok(esmio_create(io, path.c_str(), (settings + ",io_server_close=background").c_str(), &f),
     "create");
  int dims[2], v = -1;
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
  ok(esmio_def_dim(f, "x", kN, &dims[1]), "def_dim x");
  ok(esmio_def_var(f, "v", ESMIO_DOUBLE, 2, dims, &v), "def_var");
  ok(esmio_enddef(f), "enddef");
  std::vector<double> values(m.offsets.size());
  for (int r = 0; r < kRecords; ++r) {
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = value(m.offsets[k], r, variant);
    ok(esmio_write_darray(f, v, r, m.d, ESMIO_DOUBLE, values.data(),
                          static_cast<int64_t>(values.size())),
       "write_darray");
  }
  expect_all(esmio_close(&f), ESMIO_NOERR, path + ": close in the background", "", m.comm);
}

// Every value of every record, through the servers.
void check_file(esmio_t io, const Model &m, const std::string &path, int variant) {
  esmio_file_t f = nullptr;
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  int64_t records = -1;
  ok(esmio_inq_nrecords(f, &records), "inq_nrecords");
  check(records == kRecords, path + ": " + std::to_string(records) + " records");
  std::vector<double> got(m.offsets.size());
  int bad = 0;
  for (int r = 0; r < kRecords && r < records; ++r) {
    ok(esmio_read_darray(f, 0, r, m.d, ESMIO_DOUBLE, got.data(), static_cast<int64_t>(got.size())),
       "read_darray");
    for (std::size_t k = 0; k < got.size(); ++k) bad += got[k] != value(m.offsets[k], r, variant);
  }
  check(bad == 0, path + ": " + std::to_string(bad) + " values differ from those written");
  ok(esmio_close(&f), "close the file read");
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const int servers = nranks >= 5 ? 2 : 1;
  // A ring of 64 KiB: a file's records (4 KiB per compute rank each) fill it once or more.
  const std::string settings = "io_servers=" + std::to_string(servers) + ",async_buffer=64K" +
                               (servers == 2 ? ",io_server_groups=2" : "");
  esmio_t io = nullptr;
  ok(esmio_init(MPI_COMM_WORLD, settings.c_str(), &io), "init");
  int role = 0;
  ok(esmio_inq_role(io, &role), "inq_role");
  if (role == ESMIO_ROLE_SERVER) {
    esmio_finalize(&io);
    return finish("test_async_background_close");
  }
  Model m;
  MPI_Comm compute = MPI_COMM_NULL;
  ok(esmio_inq_comm(io, &compute), "inq_comm");
  MPI_Comm_dup(compute, &m.comm);  // outlives esmio_finalize
  int me = 0, p = 1;
  MPI_Comm_rank(m.comm, &me);
  MPI_Comm_size(m.comm, &p);
  for (int64_t g = kN * me / p; g < kN * (me + 1) / p; ++g) m.offsets.push_back(g);
  const int64_t n = kN;
  ok(esmio_decomp_create(io, 1, &n, static_cast<int64_t>(m.offsets.size()), m.offsets.data(), &m.d),
     "decomp_create");
  const std::string dir = out_dir() + "/test_async_background_close_np" + std::to_string(nranks);
  const std::string a = dir + "_a.nc", b = dir + "_b.nc", again = dir + "_again.nc";
  const std::string missing = dir + "_no_such_dir/lost.nc", never = dir + "_no_such_dir/never.nc";

  // Two files closed in the background, one after the other (different groups with 2 servers).
  write_file(io, m, a, 1);
  write_file(io, m, b, 2);
  expect_all(esmio_stage_wait(io, a.c_str()), ESMIO_NOERR, "stage_wait a", "", m.comm);
  expect_all(esmio_stage_wait(io, a.c_str()), ESMIO_EINVAL, "stage_wait a a second time",
             "no copy or background close", m.comm);
  check_file(io, m, a, 1);
  check_file(io, m, b, 2);  // opened without a wait: the open waits for the close
  expect_all(esmio_stage_wait(io, b.c_str()), ESMIO_NOERR, "stage_wait b after reading it", "",
             m.comm);

  // The same path twice: the second create (the next group with 2 servers) waits for the first
  // close, and the file holds the second one's values.
  write_file(io, m, again, 3);
  write_file(io, m, again, 4);
  check_file(io, m, again, 4);

  // A netCDF-4 file published at its close (publish=atomic): the path is not there until the
  // servers close it, and an open at once must find what they published (its format too).
  const std::string atomic = dir + "_atomic.nc";
  write_file(io, m, atomic, 7, "backend=netcdf4,format=netcdf4,publish=atomic");
  {
    // Opened for writing at once: a compressed variable added needs the file's own backend.
    esmio_file_t f = nullptr;
    ok(esmio_open(io, atomic.c_str(), ESMIO_WRITE, "", &f), "open the atomic file for writing");
    int x = -1, z = -1;
    ok(esmio_redef(f), "redef");
    ok(esmio_inq_dimid(f, "x", &x), "inq_dimid x");
    ok(esmio_def_var(f, "z", ESMIO_FLOAT, 1, &x, &z), "def_var z");
    ok(esmio_def_var_compress(f, z, "zstd:1"), "def_var_compress z");
    expect_all(esmio_enddef(f), ESMIO_NOERR, "enddef with a compressed variable", "", m.comm);
    ok(esmio_close(&f), "close the atomic file");
  }
  check_file(io, m, atomic, 7);
  expect_all(esmio_stage_wait(io, atomic.c_str()), ESMIO_NOERR, "stage_wait of the atomic file", "",
             m.comm);

  // A close the servers fail: success from esmio_close, the failure from esmio_stage_wait;
  // meanwhile many writes to another file through the small ring (the servers' reply to the
  // failed close must not block them).
  const std::string after_lost = dir + "_after_lost.nc";
  write_file(io, m, missing, 5);
  write_file(io, m, after_lost, 8);
  expect_all(esmio_stage_wait(io, missing.c_str()), ESMIO_EIO, "stage_wait of a lost file", missing,
             m.comm);
  {
    const std::string message = esmio_last_error();
    check(message.find("in the background") != std::string::npos,
          "the failure does not say the close was in the background: " + message);
  }
  expect_all(esmio_stage_wait(io, after_lost.c_str()), ESMIO_NOERR,
             "stage_wait of the file after the lost one", "", m.comm);

  // A failed close, then the same path written again (its directory made): the first failure
  // is not lost behind the second close's success.
  const std::string twice_dir = dir + "_later_dir", twice = twice_dir + "/twice.nc";
  const std::string between = dir + "_between.nc";
  write_file(io, m, twice, 9);
  write_file(io, m, between, 10);  // its writes wait for ring space past the lost close's reply
  MPI_Barrier(m.comm);
  if (me == 0) std::filesystem::create_directory(twice_dir);
  MPI_Barrier(m.comm);
  write_file(io, m, twice, 11);
  expect_all(esmio_stage_wait(io, twice.c_str()), ESMIO_EIO,
             "stage_wait of a path whose first close failed", twice, m.comm);
  check_file(io, m, twice, 11);

  // One never waited for: esmio_finalize reports it.
  write_file(io, m, never, 6);
  ok(esmio_decomp_free(&m.d), "decomp_free");
  expect_all(esmio_finalize(&io), ESMIO_EIO, "finalize after a lost file", never, m.comm);
  MPI_Barrier(m.comm);
  if (me == 0) {
    for (const std::string &path : {a, b, again, atomic, after_lost, between, twice})
      std::remove(path.c_str());
    std::filesystem::remove(twice_dir);
  }
  MPI_Comm_free(&m.comm);
  return finish("test_async_background_close");
}
