// read_batch: on a file open read-only, small reads are made together with the reads predicted
// to follow them, one exchange for all, and the ranks keep their parts of the predicted ones
// until they are asked for. Every value read is the value written, bit for bit, whatever the
// order of the reads: the file's order (a guess, then learned), the same again, an order that
// breaks the prediction (reverse, skipped variables, a time series of one variable, an
// undecomposed read in between, other memory types), and a decomposition freed while its
// reads are kept. The trace shows the batches: fewer exchanges than reads, and one per read
// with read_ahead=0.
#include <cstdio>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

constexpr int64_t kColumns = 6000, kLevels = 3, kTiny = 7;
constexpr int kPairs = 6;             // variables a<k> (columns) and b<k> (levels x columns)
constexpr int kRecords = 3;           // and one tiny variable t, one undecomposed coordinate x
constexpr int kBig = 2 * kPairs + 2;  // a fixed-size column variable, some values 1e300
constexpr int64_t kBigEvery = 1000;

// Exact in float and double, different for every variable, record and element.
double value(int var, int record, int64_t i) {
  return var * 4096.0 + record * 1024.0 + static_cast<double>(i % 1000) * 0.5;
}

struct Decomps {
  esmio_decomp_t columns, levels, tiny;
  std::vector<int64_t> column_at, level_at, tiny_at;  // the global index of each local element
};

// Columns scattered over the ranks (element i on rank i % nranks, each rank's in reverse
// order: a map of single columns, as E3SM's), levels in blocks, the tiny one on rank 0.
void make_decomps(esmio_t io, Decomps *d) {
  const int64_t column_dims[1] = {kColumns}, level_dims[2] = {kLevels, kColumns};
  d->column_at.clear();
  for (int64_t i = kColumns - 1; i >= 0; --i)
    if (i % nranks == rank) d->column_at.push_back(i);
  ok(esmio_decomp_create(io, 1, column_dims, static_cast<int64_t>(d->column_at.size()),
                         d->column_at.data(), &d->columns),
     "decomp columns");
  const int64_t total = kLevels * kColumns;
  const int64_t first = total * rank / nranks, last = total * (rank + 1) / nranks;
  d->level_at.clear();
  for (int64_t i = first; i < last; ++i) d->level_at.push_back(i);
  ok(esmio_decomp_create(io, 2, level_dims, static_cast<int64_t>(d->level_at.size()),
                         d->level_at.data(), &d->levels),
     "decomp levels");
  d->tiny_at.clear();
  if (rank == 0)
    for (int64_t i = 0; i < kTiny; ++i) d->tiny_at.push_back(i);
  ok(esmio_decomp_create(io, 1, &kTiny, static_cast<int64_t>(d->tiny_at.size()), d->tiny_at.data(),
                         &d->tiny),
     "decomp tiny");
}

void free_decomps(Decomps *d) {
  ok(esmio_decomp_free(&d->columns), "free columns");
  ok(esmio_decomp_free(&d->levels), "free levels");
  ok(esmio_decomp_free(&d->tiny), "free tiny");
}

// Variable k of the file: a<j> (k = 2j, float), b<j> (k = 2j + 1, double), t (k = 2 kPairs,
// double).
std::string name_of(int k) {
  if (k == 2 * kPairs) return "t";
  return (k % 2 == 0 ? "a" : "b") + std::to_string(k / 2);
}

struct Through {
  esmio_decomp_t decomp;
  const std::vector<int64_t> *at;
};

Through through(const Decomps &d, int k) {
  if (k == 2 * kPairs) return {d.tiny, &d.tiny_at};
  return k % 2 == 0 ? Through{d.columns, &d.column_at} : Through{d.levels, &d.level_at};
}

void write_file(esmio_t io, const std::string &path, const Decomps &d) {
  esmio_file_t f;
  int t, col, lev, tiny, varid;
  ok(esmio_create(io, path.c_str(), nullptr, &f), "create");
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &t), "def_dim time");
  ok(esmio_def_dim(f, "lev", kLevels, &lev), "def_dim lev");
  ok(esmio_def_dim(f, "ncol", kColumns, &col), "def_dim ncol");
  ok(esmio_def_dim(f, "tiny", kTiny, &tiny), "def_dim tiny");
  for (int k = 0; k <= 2 * kPairs; ++k) {
    const int columns[2] = {t, col}, levels[3] = {t, lev, col}, small[2] = {t, tiny};
    if (k == 2 * kPairs)
      ok(esmio_def_var(f, "t", ESMIO_DOUBLE, 2, small, &varid), "def_var t");
    else if (k % 2 == 0)
      ok(esmio_def_var(f, name_of(k).c_str(), ESMIO_FLOAT, 2, columns, &varid), "def_var a");
    else
      ok(esmio_def_var(f, name_of(k).c_str(), ESMIO_DOUBLE, 3, levels, &varid), "def_var b");
  }
  ok(esmio_def_var(f, "x", ESMIO_DOUBLE, 1, &col, &varid), "def_var x");
  ok(esmio_def_var(f, "big", ESMIO_DOUBLE, 1, &col, &varid), "def_var big");
  ok(esmio_enddef(f), "enddef");
  for (int r = 0; r < kRecords; ++r)
    for (int k = 0; k <= 2 * kPairs; ++k) {
      const Through th = through(d, k);
      std::vector<double> values;
      for (int64_t i : *th.at) values.push_back(value(k, r, i));
      ok(esmio_write_darray(f, k, r, th.decomp, ESMIO_DOUBLE, values.data(),
                            static_cast<int64_t>(values.size())),
         "write");
    }
  std::vector<double> x(kColumns);
  for (int64_t i = 0; i < kColumns; ++i) x[static_cast<std::size_t>(i)] = value(99, 0, i);
  const int64_t start = 0, count = kColumns;
  ok(esmio_put_vara(f, 2 * kPairs + 1, &start, &count, ESMIO_DOUBLE, x.data()), "put x");
  // big: every kBigEvery-th column out of float's range.
  std::vector<double> big;
  for (int64_t i : d.column_at) big.push_back(i % kBigEvery == 0 ? 1e300 : 1.0);
  ok(esmio_write_darray(f, kBig, 0, d.columns, ESMIO_DOUBLE, big.data(),
                        static_cast<int64_t>(big.size())),
     "write big");
  ok(esmio_close(&f), "close");
}

struct Read {
  int var;  // k, or -1: the undecomposed x
  int record;
  esmio_type memtype;
};

int64_t exchanges(esmio_t io) {
  esmio_counter c;
  ok(esmio_trace_counter(io, "rearrange", &c), "trace_counter");
  return c.calls;
}

// Makes the reads in order and checks every value; returns this rank's exchanges.
int64_t read_file(esmio_t io, const std::string &path, const char *settings, Decomps *d,
                  const std::vector<Read> &reads, int free_after = -1) {
  const std::string what = std::string("settings '") + settings + "': ";
  ok(esmio_trace_reset(io), "trace_reset");
  esmio_file_t f;
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, settings, &f), "open");
  for (std::size_t n = 0; n < reads.size(); ++n) {
    const Read &r = reads[n];
    const std::string call = what + "read " + std::to_string(n) + " (" +
                             (r.var < 0 ? std::string("x") : name_of(r.var)) + ", record " +
                             std::to_string(r.record) + ")";
    if (r.var < 0) {
      std::vector<double> x(kColumns);
      const int64_t start = 100, count = 50;
      ok(esmio_get_vara(f, 2 * kPairs + 1, &start, &count, ESMIO_DOUBLE, x.data()), "get x");
      int64_t wrong = 0;
      for (int64_t i = 0; i < count; ++i)
        wrong += x[static_cast<std::size_t>(i)] != value(99, 0, start + i);
      check(wrong == 0, call + ": " + std::to_string(wrong) + " values differ");
      continue;
    }
    const Through th = through(*d, r.var);
    const std::size_t count = th.at->size();
    int64_t wrong = 0;
    if (r.memtype == ESMIO_FLOAT) {
      std::vector<float> back(count + 1, -1.0f);
      ok(esmio_read_darray(f, r.var, r.record, th.decomp, ESMIO_FLOAT, back.data(),
                           static_cast<int64_t>(count)),
         "read float");
      for (std::size_t i = 0; i < count; ++i)
        wrong += back[i] != static_cast<float>(value(r.var, r.record, (*th.at)[i]));
      wrong += back[count] != -1.0f;  // nothing past the decomposition's elements
    } else {
      std::vector<double> back(count + 1, -1.0);
      ok(esmio_read_darray(f, r.var, r.record, th.decomp, ESMIO_DOUBLE, back.data(),
                           static_cast<int64_t>(count)),
         "read double");
      for (std::size_t i = 0; i < count; ++i)
        wrong += back[i] != value(r.var, r.record, (*th.at)[i]);
      wrong += back[count] != -1.0;
    }
    check(wrong == 0, call + ": " + std::to_string(wrong) + " values differ from those written");
    if (static_cast<int>(n) == free_after) {
      // The decompositions the kept reads go through are freed and made again: the kept parts
      // are not served through the new ones, which read anew.
      free_decomps(d);
      make_decomps(io, d);
    }
  }
  ok(esmio_close(&f), "close");
  return exchanges(io);
}

// Calls that fail on some rank while the ranks keep reads from a batch: every rank gets the
// error, and what the ranks keep stays the same everywhere (the reads after them are right).
void failing_calls(esmio_t io, const std::string &path, Decomps *d) {
  esmio_file_t f;
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  std::vector<double> back(d->column_at.size() + 1);
  const int64_t n = static_cast<int64_t>(d->column_at.size());
  const auto read_right = [&](int k, const std::string &what) {
    ok(esmio_read_darray(f, k, 0, d->columns, ESMIO_DOUBLE, back.data(), n), what.c_str());
    int64_t wrong = 0;
    for (std::size_t i = 0; i < d->column_at.size(); ++i)
      wrong += back[i] != value(k, 0, d->column_at[i]);
    check(wrong == 0, what + ": " + std::to_string(wrong) + " values differ");
  };
  read_right(0, "a0, which makes a batch of a1 .. a5");
  if (nranks > 1) {
    // Different variables, both kept: a mismatch, not a hang.
    expect_all(esmio_read_darray(f, rank == 0 ? 2 : 4, 0, d->columns, ESMIO_DOUBLE, back.data(), n),
               ESMIO_EMISMATCH, "kept reads of different variables", "esmio_read_darray");
    read_right(6, "a3 after the mismatch");
    read_right(8, "a4");
    // One rank's buffer too short for a kept read (a0 made a batch of a3 and a4: the order
    // learned so far is a0, a3, a4): its error everywhere, not a disagreement.
    read_right(0, "a0 again");
    expect_all(esmio_read_darray(f, 6, 0, d->columns, ESMIO_DOUBLE, back.data(),
                                 rank == nranks - 1 ? n - 1 : n),
               ESMIO_EBUFSIZE, "a kept read with a short buffer on one rank", "buffer");
    read_right(6, "a3 after the short buffer");
    // Rank 0 in another call while the others read a kept variable: a mismatch everywhere. The
    // ranks that were reading let go of their batches and the other did not, so the next read
    // may find them keeping different reads: a mismatch again, never a hang; then they agree.
    read_right(0, "a0 once more");
    if (rank == 0) {
      std::vector<double> x(10);
      const int64_t start = 0, count = 10;
      expect_all(esmio_get_vara(f, kBig - 1, &start, &count, ESMIO_DOUBLE, x.data()),
                 ESMIO_EMISMATCH, "get_vara against kept reads");
    } else {
      expect_all(esmio_read_darray(f, 6, 0, d->columns, ESMIO_DOUBLE, back.data(), n),
                 ESMIO_EMISMATCH, "kept read against get_vara");
    }
    const int rc = esmio_read_darray(f, 8, 0, d->columns, ESMIO_DOUBLE, back.data(), n);
    if (rc != ESMIO_NOERR) expect_all(rc, ESMIO_EMISMATCH, "the read after", "read(s) kept");
    int all_ok = 0, mine_ok = rc == ESMIO_NOERR;
    MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) read_right(8, "a4 after the kept reads were let go");
    read_right(10, "a5");
  }
  // Values out of float's range in a kept read: ESMIO_ERANGE on every rank, counted over all.
  // On the file opened again: a0 makes a batch of a1 .. a5, big follows it, and a0 again makes
  // a batch of big (a0, big, a0: a cycle).
  ok(esmio_close(&f), "close");
  if (nranks > 1) {
    // A decomposition the prediction goes through, freed by rank 0 before a read and by the
    // others after it (esmio_decomp_free is local): the ranks make the same batch.
    ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open for the free");
    std::vector<double> levels(d->level_at.size() + 1);
    for (int k = 0; k < 4; ++k) {  // a0, b0, a1, b1 in record 0: learned
      const Through th = through(*d, k);
      ok(esmio_read_darray(f, k, 0, th.decomp, ESMIO_DOUBLE, k % 2 ? levels.data() : back.data(),
                           static_cast<int64_t>(th.at->size())),
         "read in record 0");
    }
    if (rank == 0) ok(esmio_decomp_free(&d->levels), "free levels on rank 0");
    ok(esmio_read_darray(f, 0, 1, d->columns, ESMIO_DOUBLE, back.data(), n), "a0, record 1");
    if (rank != 0) ok(esmio_decomp_free(&d->levels), "free levels on the others");
    ok(esmio_read_darray(f, 2, 1, d->columns, ESMIO_DOUBLE, back.data(), n), "a1, record 1");
    int64_t wrong = 0;
    for (std::size_t i = 0; i < d->column_at.size(); ++i)
      wrong += back[i] != value(2, 1, d->column_at[i]);
    check(wrong == 0, "a1 after the levels were freed: " + std::to_string(wrong) + " differ");
    ok(esmio_close(&f), "close after the free");
    const int64_t level_dims[2] = {kLevels, kColumns};
    ok(esmio_decomp_create(io, 2, level_dims, static_cast<int64_t>(d->level_at.size()),
                           d->level_at.data(), &d->levels),
       "decomp levels again");
  }
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open again");
  read_right(0, "a0");
  ok(esmio_read_darray(f, kBig, 0, d->columns, ESMIO_DOUBLE, back.data(), n), "big");
  read_right(0, "a0, followed by big last time");
  int64_t mine = 0, total = 0;
  for (int64_t i : d->column_at) mine += i % kBigEvery == 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  std::vector<float> narrow(d->column_at.size() + 1);
  expect_all(esmio_read_darray(f, kBig, 0, d->columns, ESMIO_FLOAT, narrow.data(), n), ESMIO_ERANGE,
             "big as float, kept", std::to_string(total) + " value(s) out of");
  ok(esmio_close(&f), "close");
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, nullptr, &io), "init");
  Decomps d;
  make_decomps(io, &d);
  const std::string path = out_dir() + "/read_batch_np" + std::to_string(nranks) + ".nc";
  write_file(io, path, d);

  std::vector<Read> in_order;
  for (int r = 0; r < kRecords; ++r)
    for (int k = 0; k <= 2 * kPairs; ++k) in_order.push_back({k, r, ESMIO_DOUBLE});
  const int64_t reads = static_cast<int64_t>(in_order.size());

  // One exchange per read without batches.
  const int64_t one_by_one = read_file(io, path, "read_ahead=0", &d, in_order);
  check(one_by_one == reads, "read_ahead=0: " + std::to_string(one_by_one) + " exchanges for " +
                                 std::to_string(reads) + " reads");
  // The file's order: guessed (the next variable of the same shape) in the first record,
  // learned after it. At most a third of the reads exchange.
  const int64_t batched = read_file(io, path, "", &d, in_order);
  check(batched * 3 <= reads, "default: " + std::to_string(batched) + " exchanges for " +
                                  std::to_string(reads) + " reads, expected batches");

  // Orders that break the prediction, memory types other than the file's.
  std::vector<Read> broken;
  for (int k = 2 * kPairs; k >= 0; k -= 1) broken.push_back({k, 1, ESMIO_DOUBLE});
  for (int k = 0; k <= 2 * kPairs; k += 3) broken.push_back({k, 0, ESMIO_FLOAT});
  broken.push_back({-1, 0, ESMIO_DOUBLE});
  for (int r = 0; r < kRecords; ++r) broken.push_back({3, r, ESMIO_FLOAT});
  broken.push_back({-1, 0, ESMIO_DOUBLE});
  for (int k = 0; k <= 2 * kPairs; ++k)
    broken.push_back({k, 2, k % 2 ? ESMIO_FLOAT : ESMIO_DOUBLE});
  for (int k = 0; k <= 2 * kPairs; ++k) broken.push_back({k, 2, ESMIO_DOUBLE});
  read_file(io, path, "", &d, broken);
  // Freed after the first read of the file's order, whose batch holds the next ones.
  read_file(io, path, "", &d, in_order, 0);
  failing_calls(io, path, &d);

  free_decomps(&d);
  ok(esmio_finalize(&io), "finalize");
  if (rank == 0) std::remove(path.c_str());
  return finish("read_batch");
}
