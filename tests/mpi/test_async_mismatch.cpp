// Asynchronous mode: faults that only the I/O servers can see, with 1 and 2 servers and both
// the pnetcdf and netcdf4 backends. Every case runs the same model around its fault:
//   record 0 of A and B written and synced (must succeed), the fault, the esmio_sync after it
//   (the fault's error, the same code on every compute rank, never a hang), then records 2 and 3
//   written (a sync in between), the file closed and the instance finalized, both without error
//   on every compute rank: the servers lined the ranks' streams up again at the next call the
//   compute ranks agreed on (async/protocol.hpp), and a failure already returned is not
//   returned again. Last, compute rank 0 reads the file with netCDF-C: records 0, 2 and 3 of A
//   and B hold exactly the values written.
// Groups of cases (the first argument; every group by default):
//   mismatch: write_darray calls that differ between compute ranks, answered by ESMIO_EMISMATCH
//     at the next esmio_sync, naming the file and the calls: one write more or one less (on the
//     first or the last compute rank, as the last call before the sync), another record,
//     another variable, another decomposition, the same two writes in another order;
//   buffer: a call larger than async_buffer=64K on one rank only: ESMIO_EINVAL naming
//     async_buffer at once on that rank, success on the others, and ESMIO_EINVAL naming
//     async_buffer from the next esmio_sync everywhere; a decomposition whose map is larger than
//     the buffer on one rank: esmio_decomp_create fails on every compute rank, alike;
//   server_args: arguments only the servers can refuse: a decomposition in which two compute
//     ranks claim the same offset (esmio_decomp_create fails on every compute rank with the
//     code and the words synchronous mode gives: the offset and the two compute ranks), and a
//     netCDF-4 chunk shape within the variable's shape but larger than HDF5 allows (4 GiB):
//     the compute ranks accept it, the servers' backend refuses it at enddef, and the next
//     esmio_sync returns the code synchronous mode's esmio_enddef gives, naming the file and
//     the variable; the file is then closed and opens with netCDF-C.
// Usage: test_async_mismatch [mismatch|buffer|server_args|all] [case]; run on 3 or more ranks
// (io_servers=2 needs 4).
#include <netcdf.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

constexpr int64_t kPerRank = 500;  // elements of A and B per compute rank

double a_value(int64_t g, int record) { return 1000.0 * record + static_cast<double>(g) + 0.25; }
float b_value(int64_t g, int record) { return -static_cast<float>(1000 * record + g) - 0.5f; }

struct Model {
  esmio_t io = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;  // a copy of the compute ranks' communicator
  int me = 0, p = 1;
  int64_t n = 0;                             // length of A and B
  esmio_decomp_t d = nullptr, d2 = nullptr;  // d2: the same map, another decomposition
  std::vector<int64_t> offsets;
  esmio_file_t f = nullptr;
  int a = -1, b = -1;
  std::string path, label;
};

int write_a(Model &m, int record, esmio_decomp_t d = nullptr) {
  std::vector<double> v(m.offsets.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = a_value(m.offsets[i], record);
  return esmio_write_darray(m.f, m.a, record, d ? d : m.d, ESMIO_DOUBLE, v.data(),
                            static_cast<int64_t>(v.size()));
}

int write_b(Model &m, int record) {
  std::vector<float> v(m.offsets.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = b_value(m.offsets[i], record);
  return esmio_write_darray(m.f, m.b, record, m.d, ESMIO_FLOAT, v.data(),
                            static_cast<int64_t>(v.size()));
}

// Every compute rank's write of one record, each call's code the same on every rank (a post
// makes no collective, so this checks that no rank failed where the others did not).
void write_record(Model &m, int record, const std::string &what) {
  expect_all(write_a(m, record), ESMIO_NOERR, m.label + ": " + what + ": write A", "", m.comm);
  expect_all(write_b(m, record), ESMIO_NOERR, m.label + ": " + what + ": write B", "", m.comm);
}

// Compute rank 0: records 0, 2 and 3 of A and B in the file hold what was written.
void verify_file(const Model &m) {
  if (m.me != 0) return;
  int nc = -1, a = -1, b = -1, unlim = -1;
  if (nc_open(m.path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) {
    check(false, m.label + ": the file left behind does not open with netCDF-C");
    return;
  }
  size_t nrec = 0;
  nc_inq_unlimdim(nc, &unlim);
  nc_inq_dimlen(nc, unlim, &nrec);
  check(nrec == 4, m.label + ": the file has " + std::to_string(nrec) + " records, expected 4");
  check(nc_inq_varid(nc, "A", &a) == NC_NOERR && nc_inq_varid(nc, "B", &b) == NC_NOERR,
        m.label + ": variables A and B in the file");
  for (int record : {0, 2, 3}) {
    if (static_cast<size_t>(record) >= nrec) continue;
    std::vector<double> va(static_cast<std::size_t>(m.n));
    std::vector<float> vb(static_cast<std::size_t>(m.n));
    const size_t start[2] = {static_cast<size_t>(record), 0}, count[2] = {1, size_t(m.n)};
    const bool read = nc_get_vara_double(nc, a, start, count, va.data()) == NC_NOERR &&
                      nc_get_vara_float(nc, b, start, count, vb.data()) == NC_NOERR;
    check(read, m.label + ": reading record " + std::to_string(record));
    int64_t wrong = 0;
    for (int64_t g = 0; read && g < m.n; ++g)
      wrong += (va[g] != a_value(g, record)) + (vb[g] != b_value(g, record));
    check(read && wrong == 0, m.label + ": record " + std::to_string(record) + ": " +
                                  std::to_string(wrong) + " values differ from those written");
  }
  nc_close(nc);
}

// The code synchronous mode gives for the same calls, on the compute ranks (a reference).
int synchronous_code(MPI_Comm comm, const std::function<int(esmio_t)> &calls) {
  esmio_t ref;
  ok(esmio_init(comm, "", &ref), "init reference");
  const int rc = calls(ref);
  ok(esmio_finalize(&ref), "finalize reference");
  return rc;
}

// A decomposition in which the first and the last compute rank both claim offset 0 (the others
// hold one offset each, all different): no rank can see the duplicate alone.
int duplicate_decomp(esmio_t io, int me, int p, esmio_decomp_t *d) {
  const int64_t n = 10 + p;
  const int64_t offset = me == p - 1 ? 0 : me;
  return esmio_decomp_create(io, 1, &n, 1, &offset, d);
}

// A netCDF-4 variable H(t, 70000, 70000) float with one chunk per record: 19.6 GB, inside the
// shape (the compute ranks' check) but over HDF5's 4 GiB chunk limit.
int define_huge_chunk(esmio_file_t f, int t, int *h) {
  int dims[3] = {t, -1, -1};
  int rc = esmio_def_dim(f, "hy", 70000, &dims[1]);
  if (rc == ESMIO_NOERR) rc = esmio_def_dim(f, "hx", 70000, &dims[2]);
  if (rc == ESMIO_NOERR) rc = esmio_def_var(f, "H", ESMIO_FLOAT, 3, dims, h);
  const int64_t chunks[3] = {1, 70000, 70000};
  if (rc == ESMIO_NOERR) rc = esmio_def_var_chunking(f, *h, 3, chunks);
  return rc;
}

struct Case {
  const char *group;
  const char *name;
  bool netcdf4_only;
  // The fault, between the synced record 0 and the sync that must report it. define: extra
  // definitions before enddef (nullptr: none).
  std::function<void(Model &)> fault;
  std::function<void(Model &)> define;
  int want;                     // the code the sync after the fault returns on every compute rank
  const char *needle;           // in that sync's message
  bool variable_in_message;     // that message names variable H too
  bool file_in_message = true;  // and the file (not asked of a call refused for its size)
};

// Runs one case: init with servers, the model around the fault, finalize, the file checked.
void run_case(const Case &c, int servers, const std::string &backend, const std::string &dir) {
  esmio_t io;
  const std::string settings = "io_servers=" + std::to_string(servers) + ",async_buffer=64K";
  ok(esmio_init(MPI_COMM_WORLD, settings.c_str(), &io), "init");
  int role = 0;
  ok(esmio_inq_role(io, &role), "inq_role");
  if (role == ESMIO_ROLE_SERVER) {
    ok(esmio_finalize(&io), "finalize server");
    return;
  }
  Model m;
  m.io = io;
  MPI_Comm esmio_comm;
  ok(esmio_inq_comm(io, &esmio_comm), "inq_comm");
  MPI_Comm_dup(esmio_comm, &m.comm);
  MPI_Comm_rank(m.comm, &m.me);
  MPI_Comm_size(m.comm, &m.p);
  m.label = std::string(c.name) + " io_servers=" + std::to_string(servers) + " " + backend;
  if (m.me == 0) {
    std::printf("%s\n", m.label.c_str());
    std::fflush(stdout);
  }
  m.n = kPerRank * m.p;
  for (int64_t g = kPerRank * m.me; g < kPerRank * (m.me + 1); ++g) m.offsets.push_back(g);
  const auto nlocal = static_cast<int64_t>(m.offsets.size());
  ok(esmio_decomp_create(io, 1, &m.n, nlocal, m.offsets.data(), &m.d), "decomp");
  ok(esmio_decomp_create(io, 1, &m.n, nlocal, m.offsets.data(), &m.d2), "decomp 2");
  m.path = dir + "/async_mismatch_np" + std::to_string(nranks) + "_" + c.name + ".nc";
  ok(esmio_create(io, m.path.c_str(), ("backend=" + backend).c_str(), &m.f), "create");
  int dims[2];
  ok(esmio_def_dim(m.f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  ok(esmio_def_dim(m.f, "x", m.n, &dims[1]), "def_dim");
  ok(esmio_def_var(m.f, "A", ESMIO_DOUBLE, 2, dims, &m.a), "def_var A");
  ok(esmio_def_var(m.f, "B", ESMIO_FLOAT, 2, dims, &m.b), "def_var B");
  if (c.define) c.define(m);
  expect_all(esmio_enddef(m.f), ESMIO_NOERR, m.label + ": enddef (posted)", "", m.comm);

  write_record(m, 0, "record 0");
  // H's refused chunking fails the first sync already: the servers' enddef came before it.
  const bool fails_early = c.define != nullptr;
  int rc = esmio_sync(m.f);
  if (!fails_early) expect_all(rc, ESMIO_NOERR, m.label + ": sync of record 0", "", m.comm);

  if (c.fault) {
    c.fault(m);
    rc = esmio_sync(m.f);
  }
  const std::string message = esmio_last_error();
  expect_all(rc, c.want, m.label + ": the sync after the fault", c.needle, m.comm);
  if (rc != ESMIO_NOERR && c.file_in_message) {
    check(message.find(m.path) != std::string::npos,
          m.label + ": the sync's message names the file: " + message);
    if (c.variable_in_message)
      check(message.find("'H'") != std::string::npos,
            m.label + ": the sync's message names variable H: " + message);
  }
  if (m.me == 0 && rc != ESMIO_NOERR)
    std::printf("  sync after the fault: %s: %s\n", esmio_strerror(rc), message.c_str());

  if (!fails_early) {
    // The streams are lined up again: the file writes, syncs and closes.
    write_record(m, 2, "record 2 after the fault");
    expect_all(esmio_sync(m.f), ESMIO_NOERR, m.label + ": sync of record 2 after the fault", "",
               m.comm);
    write_record(m, 3, "record 3 after the fault");
    expect_all(esmio_close(&m.f), ESMIO_NOERR, m.label + ": close", "", m.comm);
  } else {
    // The file never left define mode on the servers: the close reports it again (or not), the
    // same everywhere; the handle is gone either way.
    rc = esmio_close(&m.f);
    expect_all(rc, rc, m.label + ": close", "", m.comm);
    if (m.me == 0) std::printf("  close: %s: %s\n", esmio_strerror(rc), esmio_last_error());
    check(m.f == nullptr, m.label + ": a failed close releases the handle");
    // The servers closed it all the same: a netCDF file with the definitions that reached it.
    int nc = -1;
    if (m.me == 0) {
      check(nc_open(m.path.c_str(), NC_NOWRITE, &nc) == NC_NOERR,
            m.label + ": the file left behind opens with netCDF-C");
      if (nc >= 0) nc_close(nc);
    }
  }
  ok(esmio_decomp_free(&m.d), "free");
  ok(esmio_decomp_free(&m.d2), "free 2");
  rc = esmio_finalize(&io);
  expect_all(rc, ESMIO_NOERR, m.label + ": finalize", "", m.comm);
  if (!fails_early) verify_file(m);
  MPI_Barrier(m.comm);
  if (m.me == 0) std::remove(m.path.c_str());
  MPI_Comm_free(&m.comm);
}

std::vector<Case> cases() {
  std::vector<Case> all;
  const char *differ = "esmio_write_darray";  // the message names the calls that differ
  // write_darray calls that differ: ESMIO_EMISMATCH at the next sync.
  all.push_back({"mismatch", "extra_first", false,
                 [](Model &m) {
                   write_record(m, 1, "record 1");
                   if (m.me == 0) write_a(m, 1);  // one write more, right before the sync
                 },
                 nullptr, ESMIO_EMISMATCH, differ, false});
  all.push_back({"mismatch", "extra_last", false,
                 [](Model &m) {
                   write_record(m, 1, "record 1");
                   if (m.me == m.p - 1) write_a(m, 1);
                 },
                 nullptr, ESMIO_EMISMATCH, differ, false});
  all.push_back({"mismatch", "missing_first", false,
                 [](Model &m) {
                   write_a(m, 1);
                   if (m.me != 0) write_b(m, 1);  // the first compute rank skips B
                 },
                 nullptr, ESMIO_EMISMATCH, differ, false});
  all.push_back({"mismatch", "missing_last", false,
                 [](Model &m) {
                   write_a(m, 1);
                   if (m.me != m.p - 1) write_b(m, 1);
                 },
                 nullptr, ESMIO_EMISMATCH, differ, false});
  all.push_back({"mismatch", "record", false,
                 [](Model &m) {
                   write_a(m, m.me == m.p - 1 ? 2 : 1);  // another record on the last rank
                   write_b(m, 1);
                 },
                 nullptr, ESMIO_EMISMATCH, "writes record 2", false});
  all.push_back({"mismatch", "variable", false,
                 [](Model &m) {
                   if (m.me == m.p / 2)
                     write_b(m, 1);  // B where the others write A
                   else
                     write_a(m, 1);
                   write_b(m, 1);
                 },
                 nullptr, ESMIO_EMISMATCH, differ, false});
  all.push_back({"mismatch", "decomposition", false,
                 [](Model &m) {
                   write_a(m, 1, m.me == 0 ? m.d2 : m.d);  // the same map, another handle
                   write_b(m, 1);
                 },
                 nullptr, ESMIO_EMISMATCH, differ, false});
  all.push_back({"mismatch", "order", false,
                 [](Model &m) {
                   if (m.me == 0) {
                     write_a(m, 1);
                     write_b(m, 1);
                   } else {
                     write_b(m, 1);
                     write_a(m, 1);
                   }
                 },
                 nullptr, ESMIO_EMISMATCH, differ, false});
  // A call larger than the 64 KiB buffer on one rank.
  for (int last = 0; last < 2; ++last)
    all.push_back(
        {"buffer", last ? "big_write_last" : "big_write_first", false,
         [last](Model &m) {
           const int chosen = last ? m.p - 1 : 0;
           // 10000 doubles (80 KB) on the chosen rank, one value on the others.
           const int64_t big = 10000, wn = big + m.p;
           std::vector<int64_t> mine;
           if (m.me == chosen)
             for (int64_t g = 0; g < big; ++g) mine.push_back(g);
           else
             mine.push_back(big + m.me);
           esmio_decomp_t wide;
           ok(esmio_decomp_create(m.io, 1, &wn, static_cast<int64_t>(mine.size()), mine.data(),
                                  &wide),
              "wide decomposition");
           // W is defined by redef: the file goes on with A and B afterwards.
           ok(esmio_redef(m.f), "redef");
           int x = -1, w = -1, t = 0;
           ok(esmio_def_dim(m.f, "w", wn, &x), "def_dim w");
           const int dims[2] = {t, x};
           ok(esmio_def_var(m.f, "W", ESMIO_DOUBLE, 2, dims, &w), "def_var W");
           ok(esmio_enddef(m.f), "enddef W");
           write_record(m, 1, "record 1");
           std::vector<double> values(mine.size(), 3.0);
           const int rc = esmio_write_darray(m.f, w, 1, wide, ESMIO_DOUBLE, values.data(),
                                             static_cast<int64_t>(values.size()));
           const std::string message = esmio_last_error();
           if (m.me == chosen) {
             check(rc == ESMIO_EINVAL,
                   m.label + ": the large call is refused at once, got " + std::to_string(rc));
             check(message.find("async_buffer") != std::string::npos,
                   m.label + ": the refusal names async_buffer: " + message);
           } else {
             check(rc == ESMIO_NOERR, m.label + ": the other ranks' calls are posted, got " +
                                          std::to_string(rc) + ": " + message);
           }
           ok(esmio_decomp_free(&wide), "free wide");
         },
         nullptr, ESMIO_EINVAL, "async_buffer", false, false});
  // A decomposition map over 64 KiB on one rank: 3000 runs of one element (72 KB of triples).
  all.push_back({"buffer", "big_map", false,
                 [](Model &m) {
                   const int64_t runs = 3000, wn = 2 * runs + m.p;
                   std::vector<int64_t> mine;
                   if (m.me == 0)
                     for (int64_t k = 0; k < runs; ++k) mine.push_back(2 * k);
                   else
                     mine.push_back(2 * runs + m.me);
                   esmio_decomp_t wide = nullptr;
                   const int rc = esmio_decomp_create(
                       m.io, 1, &wn, static_cast<int64_t>(mine.size()), mine.data(), &wide);
                   expect_all(rc == ESMIO_NOERR ? 0 : 1, 1,
                              m.label + ": a map over async_buffer fails on every compute rank", "",
                              m.comm);
                   expect_all(rc, rc, m.label + ": the same code everywhere", "", m.comm);
                   check(std::string(esmio_last_error()).find("async_buffer") != std::string::npos,
                         m.label + ": the failure names async_buffer: " + esmio_last_error());
                   if (rc == ESMIO_NOERR) esmio_decomp_free(&wide);
                   write_record(m, 1, "record 1");
                 },
                 nullptr, ESMIO_NOERR, "", false});
  // Arguments only the servers can refuse.
  all.push_back({"server_args", "duplicate_offset", false,
                 [](Model &m) {
                   const std::string named =
                       "offset 0 is given by both rank 0 and rank " + std::to_string(m.p - 1);
                   std::string sync_message;
                   const int want = synchronous_code(m.comm, [&](esmio_t ref) {
                     esmio_decomp_t d = nullptr;
                     const int rc = duplicate_decomp(ref, m.me, m.p, &d);
                     sync_message = esmio_last_error();
                     if (rc == ESMIO_NOERR) esmio_decomp_free(&d);
                     return rc;
                   });
                   check(want == ESMIO_EDECOMP && sync_message.find(named) != std::string::npos,
                         m.label + ": synchronous mode refuses the map with " +
                             std::to_string(want) + ": " + sync_message);
                   esmio_decomp_t d = nullptr;
                   const int rc = duplicate_decomp(m.io, m.me, m.p, &d);
                   const std::string message = esmio_last_error();
                   // Named as synchronous mode names it: by the compute ranks that gave the offset.
                   expect_all(rc, want, m.label + ": esmio_decomp_create of a map with a duplicate",
                              named, m.comm);
                   if (m.me == 0) std::printf("  esmio_decomp_create: %s\n", message.c_str());
                   if (rc == ESMIO_NOERR) esmio_decomp_free(&d);
                   write_record(m, 1, "record 1");
                 },
                 nullptr, ESMIO_NOERR, "", false});
  all.push_back({"server_args", "huge_chunk", true, nullptr,
                 [](Model &m) {
                   int h = -1;
                   ok(define_huge_chunk(m.f, 0, &h), "define H (the compute ranks accept it)");
                 },
                 // Filled in by main from synchronous mode's esmio_enddef.
                 ESMIO_NOERR, "", true});
  return all;
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string group = argc > 1 ? argv[1] : "all";
  const std::string only = argc > 2 ? argv[2] : "";
  const std::string dir = out_dir();
  std::vector<Case> all = cases();
  // The code synchronous mode's esmio_enddef gives for H's chunks (on every rank, over the
  // whole communicator): what the servers' enddef must report.
  int huge_chunk_code = ESMIO_NOERR;
  if (group == "all" || group == "server_args") {
    esmio_t ref;
    ok(esmio_init(MPI_COMM_WORLD, "", &ref), "init reference");
    const std::string path = dir + "/async_mismatch_np" + std::to_string(nranks) + "_ref.nc";
    esmio_file_t f;
    ok(esmio_create(ref, path.c_str(), "backend=netcdf4", &f), "create reference");
    int t = -1, h = -1;
    ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &t), "def_dim reference");
    ok(define_huge_chunk(f, t, &h), "define H (synchronous mode accepts it before enddef)");
    huge_chunk_code = esmio_enddef(f);
    const std::string message = esmio_last_error();
    expect_all(huge_chunk_code == ESMIO_NOERR ? 0 : 1, 1,
               "synchronous mode refuses a chunk over 4 GiB at enddef");
    if (rank == 0)
      std::printf("synchronous enddef of H: %s: %s\n", esmio_strerror(huge_chunk_code),
                  message.c_str());
    esmio_close(&f);
    ok(esmio_finalize(&ref), "finalize reference");
    if (rank == 0) std::remove(path.c_str());
  }
  for (Case &c : all)
    if (std::string(c.name) == "huge_chunk") {
      c.want = huge_chunk_code;
      c.needle = "H";
    }
  int ran = 0;
  for (const Case &c : all) {
    if (group != "all" && group != c.group) continue;
    if (!only.empty() && only != c.name) continue;
    for (int servers : {1, 2}) {
      if (2 * servers > nranks) continue;
      for (const std::string backend : {"pnetcdf", "netcdf4"}) {
        if (c.netcdf4_only && backend != "netcdf4") continue;
        run_case(c, servers, backend, dir);
        ++ran;
      }
    }
  }
  check(ran > 0, "no case matched '" + group + " " + only + "'");
  return finish(("test_async_mismatch " + group + ", " + std::to_string(ran) + " runs").c_str());
}
