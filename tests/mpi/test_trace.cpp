// Trace counters: the API's view of calls and bytes at each boundary, the request-size
// histogram, reset, and the ESMIO_TRACE report written at finalize.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

esmio_counter counter(esmio_t io, const char *name) {
  esmio_counter c;
  ok(esmio_trace_counter(io, name, &c), name);
  return c;
}

int64_t sum_all(int64_t v) {
  int64_t total = 0;
  MPI_Allreduce(&v, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return total;
}
}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string dir = out_dir();
  const std::string report = dir + "/trace_np" + std::to_string(nranks) + ".json";
  const std::string path = dir + "/trace_np" + std::to_string(nranks) + ".nc";
  if (rank == 0) setenv("ESMIO_TRACE", report.c_str(), 1);  // rank 0 reads it for everyone

  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "num_iotasks=1", &io), "init");
  esmio_counter c;
  check(esmio_trace_counter(io, "no_such_phase", &c) == ESMIO_EBADNAME, "unknown counter name");

  const int64_t n = 1000;  // 1-D, block per rank
  const int64_t begin = rank * n / nranks, end = (rank + 1) * n / nranks;
  esmio_decomp_t d;
  const int64_t start = begin, count = end - begin;
  ok(esmio_decomp_create_block(io, 1, &n, &start, &count, nullptr, &d), "decomp");
  check(counter(io, "plan").calls == 1, "one plan built");
  std::vector<double> values(static_cast<std::size_t>(count), 1.5);

  esmio_file_t f;
  int dims[2], var;
  ok(esmio_create(io, path.c_str(), "cache=size=0", &f), "create");  // every write goes out
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &var), "def_var");
  ok(esmio_enddef(f), "enddef");
  const int records = 3;
  for (int t = 0; t < records; ++t)
    ok(esmio_write_darray(f, var, t, d, ESMIO_DOUBLE, values.data(), count), "write");
  ok(esmio_close(&f), "close");

  check(counter(io, "define").calls == 4, "4 definition calls");
  check(counter(io, "open").calls == 1, "one create");
  check(counter(io, "close").calls == 1, "one close");
  check(counter(io, "write_darray").calls == records, "write_darray calls");
  const esmio_counter conv = counter(io, "convert");
  check(conv.calls == records && conv.bytes == records * count * 4,
        "convert counts f32 bytes: " + std::to_string(conv.bytes));
  // The one I/O task writes everything, in one request per record.
  const esmio_counter be = counter(io, "backend_write");
  check(sum_all(be.bytes) == records * n * 4, "backend bytes over all ranks");
  check(sum_all(be.calls) == records, "one backend request per record");
  int64_t bins[ESMIO_TRACE_BINS];
  ok(esmio_trace_histogram(io, bins), "histogram");
  // 4000 bytes per request: bin floor(log2(4000)) = 11.
  check(sum_all(bins[11]) == records, "request sizes in bin 11");
  check(counter(io, "rearrange").seconds >= 0, "rearrange timed");

  // With the write cache, the three records reach the backend as one request, at close.
  ok(esmio_trace_reset(io), "reset");
  ok(esmio_create(io, path.c_str(), "", &f), "create cached");
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &var), "def_var");
  ok(esmio_enddef(f), "enddef");
  for (int t = 0; t < records; ++t)
    ok(esmio_write_darray(f, var, t, d, ESMIO_DOUBLE, values.data(), count), "write cached");
  check(sum_all(counter(io, "backend_write").calls) == 0, "nothing written before close");
  ok(esmio_close(&f), "close cached");
  check(sum_all(counter(io, "backend_write").calls) == 1, "one backend request for 3 records");
  check(sum_all(counter(io, "backend_write").bytes) == records * n * 4, "all bytes in it");
  ok(esmio_trace_histogram(io, bins), "histogram");
  check(sum_all(bins[13]) == 1, "12000 bytes: bin 13");  // floor(log2(12000)) = 13

  ok(esmio_trace_reset(io), "reset");
  check(counter(io, "write_darray").calls == 0, "reset clears");
  ok(esmio_trace_histogram(io, bins), "histogram");
  check(bins[11] == 0, "reset clears the histogram");

  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  ok(esmio_read_darray(f, var, 1, d, ESMIO_DOUBLE, values.data(), count), "read");
  ok(esmio_close(&f), "close");
  check(counter(io, "read_darray").calls == 1, "one read");
  check(sum_all(counter(io, "backend_read").bytes) == n * 4, "backend read bytes");

  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");

  if (rank == 0) {
    std::ifstream in(report);
    std::stringstream text;
    text << in.rdbuf();
    const std::string json = text.str();
    check(!json.empty(), "report written to " + report);
    check(json.find("\"nranks\": " + std::to_string(nranks)) != std::string::npos, "nranks");
    int ranks_seen = 0;
    for (std::size_t at = json.find("{\"rank\": "); at != std::string::npos;
         at = json.find("{\"rank\": ", at + 1))
      ++ranks_seen;
    check(ranks_seen == nranks, "one entry per rank");
    check(json.find("\"path\": \"" + path + "\"") != std::string::npos, "the file is listed");
    check(json.find("num_iotasks=1") != std::string::npos, "settings recorded");
    check(json.find("\"read_darray\": {\"calls\": 1") != std::string::npos, "read counted");
    std::remove(report.c_str());
    std::remove(path.c_str());
  }
  return finish("test_trace");
}
