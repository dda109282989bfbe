// Trace counters: the API's view of calls and bytes at each boundary, the request-size
// histogram, reset, and the ESMIO_TRACE report written at finalize: valid JSON (parsed here)
// for a file whose name holds a quote and a backslash, every rank's counters, and the timeline:
// spans with the counter, file and variable, aligned clocks, the limit on spans honoured.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
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
  // A quote and a backslash in the name: the report must stay valid JSON.
  const std::string path = dir + "/trace \"q\" back\\slash np" + std::to_string(nranks) + ".nc";
  if (rank == 0) setenv("ESMIO_TRACE", report.c_str(), 1);  // rank 0 reads it for everyone

  esmio_t io;
  // 40 spans per rank: fewer than this test makes, so that the limit is exercised.
  ok(esmio_init(MPI_COMM_WORLD, "num_iotasks=1,trace_spans=40", &io), "init");
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
  // The I/O task places what it received once per flush (here, every write).
  check(sum_all(counter(io, "place").calls) == records, "one placement per uncached write");

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
  // One flush, placed once. With several ranks each record's buffer is filled from them all
  // (its bytes: the buffer); one rank writes straight from what it packed, placing nothing.
  const esmio_counter placed = counter(io, "place");
  check(sum_all(placed.calls) == 1, "one placement for the flush");
  check(sum_all(placed.bytes) == (nranks > 1 ? records * n * 4 : 0),
        "placement bytes: " + std::to_string(sum_all(placed.bytes)));

  ok(esmio_trace_reset(io), "reset");
  check(counter(io, "write_darray").calls == 0, "reset clears");
  ok(esmio_trace_histogram(io, bins), "histogram");
  check(bins[11] == 0, "reset clears the histogram");

  // Enough calls for more spans than trace_spans=40 (each uncached write is a write_darray, a
  // convert, a rearrange and a backend write): the timeline keeps 40, counts the rest.
  const std::string many = dir + "/trace_many_np" + std::to_string(nranks) + ".nc";
  ok(esmio_create(io, many.c_str(), "cache=size=0", &f), "create many");
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &var), "def_var");
  ok(esmio_enddef(f), "enddef");
  for (int t = 0; t < 30; ++t)
    ok(esmio_write_darray(f, var, t, d, ESMIO_DOUBLE, values.data(), count), "write many");
  ok(esmio_close(&f), "close many");

  const esmio_counter place_before = counter(io, "place");
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  ok(esmio_read_darray(f, var, 1, d, ESMIO_DOUBLE, values.data(), count), "read");
  ok(esmio_close(&f), "close");
  check(counter(io, "read_darray").calls == 1, "one read");
  check(sum_all(counter(io, "backend_read").bytes) == n * 4, "backend read bytes");
  // The I/O task takes each other rank's elements out of what it read; its own go straight
  // from its buffer into the caller's memory.
  const esmio_counter place_after = counter(io, "place");
  check(sum_all(place_after.calls - place_before.calls) == 1, "one placement for the read");
  const int64_t io_rank_count = place_after.calls > place_before.calls ? count : 0;
  check(sum_all(place_after.bytes - place_before.bytes) == (n - sum_all(io_rank_count)) * 4,
        "the read's placement: the other ranks' elements");

  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");

  if (rank == 0) {
    std::ifstream in(report);
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(in);
    } catch (const std::exception &e) {
      check(false, "the report " + report + " is valid JSON: " + e.what());
      return finish("test_trace");
    }
    check(doc["nranks"] == nranks, "nranks");
    check(doc["ranks"].size() == static_cast<std::size_t>(nranks), "one entry per rank");
    check(doc["settings"].get<std::string>().find("num_iotasks=1") != std::string::npos,
          "settings recorded");
    const auto &names = doc["counters"];
    auto index_of = [&](const std::string &name) {
      for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return static_cast<int>(i);
      return -1;
    };
    check(index_of("write_darray") >= 0 && index_of("backend_write") >= 0, "counter names");
    std::set<int> ranks_seen;
    for (const auto &r : doc["ranks"]) {
      ranks_seen.insert(r["rank"].get<int>());
      bool listed = false;
      for (const auto &f : r["files"]) listed = listed || f["path"] == path;
      check(listed, "the file is listed under its name");
      check(r["totals"]["read_darray"]["calls"] == 1, "read counted");
      // The timeline: 40 spans kept, the rest counted; the files named; spans well formed.
      const auto &tl = r["timeline"];
      const auto &spans = tl["spans"];
      check(spans.size() == 40, "trace_spans=40 spans kept, got " + std::to_string(spans.size()));
      check(tl["dropped"].get<int64_t>() > 0, "the spans past the limit counted as dropped");
      int64_t dropped_calls = 0;
      for (const auto &[name, t] : tl["dropped_by_counter"].items())
        dropped_calls += t["calls"].get<int64_t>();
      check(dropped_calls == tl["dropped"].get<int64_t>(), "dropped spans tallied per counter");
      bool named = false;
      for (const auto &[id, p] : tl["files"].items()) named = named || p == many;
      check(named, "the timeline names the file");
      bool write_span = false;
      for (const auto &s : spans) {
        const int c = s[0].get<int>();
        const double t0 = s[1].get<double>(), t1 = s[2].get<double>();
        check(c >= 0 && c < static_cast<int>(names.size()), "span counter index");
        check(t0 <= t1, "a span ends after it starts");
        if (c == index_of("write_darray")) write_span = write_span || (s[3] >= 0 && s[4] == var);
      }
      check(write_span, "a write_darray span with its file and variable");
    }
    check(ranks_seen.size() == static_cast<std::size_t>(nranks), "every rank once");
    std::remove(report.c_str());
    std::remove(path.c_str());
    std::remove(many.c_str());
  }
  return finish("test_trace");
}
