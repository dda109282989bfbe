// The ESMIO_TRACE report for files whose paths hold a double quote, a backslash, a tab and a
// non-ASCII character, and one whose path holds a byte that is not UTF-8 (a path is any bytes),
// the report's own path of the same kind: the report parses (strictly: JSON, UTF-8), and every
// rank's files[].path and timeline files hold the first path exactly and the second with that
// byte as U+FFFD, the rest exact.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

// Creates path with one variable and writes one record of it. Collective.
void write_file(esmio_t io, esmio_decomp_t d, const std::string &path, int64_t n,
                const std::vector<double> &values) {
  esmio_file_t f;
  int dims[2], var;
  ok(esmio_create(io, path.c_str(), "", &f), "create");
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  ok(esmio_def_dim(f, "x", n, &dims[1]), "def_dim");
  ok(esmio_def_var(f, "v", ESMIO_FLOAT, 2, dims, &var), "def_var");
  ok(esmio_enddef(f), "enddef");
  ok(esmio_write_darray(f, var, 0, d, ESMIO_DOUBLE, values.data(),
                        static_cast<int64_t>(values.size())),
     "write");
  ok(esmio_close(&f), "close");
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string dir = out_dir(), np = " np" + std::to_string(nranks);
  const std::string report = dir + "/trace names \"r\" back\\slash \xC3\xA9" + np + ".json";
  // UTF-8: the report holds it exactly (quote, backslash and tab escaped, é as it is).
  const std::string exact = dir + "/trace names \"q\" back\\slash \xC3\xA9 tab\there" + np + ".nc";
  // The byte 0xff is not UTF-8: the report holds U+FFFD (EF BF BD) in its place.
  const std::string bytes = dir + "/trace names \"b\" \xFF" + np + ".nc";
  const std::string replaced = dir + "/trace names \"b\" \xEF\xBF\xBD" + np + ".nc";
  if (rank == 0) setenv("ESMIO_TRACE", report.c_str(), 1);  // rank 0 reads it for everyone

  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "num_iotasks=1", &io), "init");
  const int64_t n = 100;
  const int64_t start = rank * n / nranks, count = (rank + 1) * n / nranks - start;
  esmio_decomp_t d;
  ok(esmio_decomp_create_block(io, 1, &n, &start, &count, nullptr, &d), "decomp");
  const std::vector<double> values(static_cast<std::size_t>(count), 2.5);
  write_file(io, d, exact, n, values);
  write_file(io, d, bytes, n, values);
  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");

  if (rank == 0) {
    nlohmann::json doc;
    try {
      std::ifstream in(report);
      doc = nlohmann::json::parse(in);  // throws on bytes that are not UTF-8
    } catch (const std::exception &e) {
      check(false, "the report is valid JSON: " + std::string(e.what()));
      return finish("test_trace_names");
    }
    check(doc["ranks"].size() == static_cast<std::size_t>(nranks), "one entry per rank");
    for (const auto &r : doc["ranks"]) {
      const std::string who = "rank " + r["rank"].dump() + ": ";
      std::vector<std::string> paths, named;
      for (const auto &f : r["files"]) paths.push_back(f["path"].get<std::string>());
      for (const auto &[id, p] : r["timeline"]["files"].items())
        named.push_back(p.get<std::string>());
      for (const std::string &want : {exact, replaced}) {
        bool listed = false, in_timeline = false;
        for (const std::string &p : paths) listed = listed || p == want;
        for (const std::string &p : named) in_timeline = in_timeline || p == want;
        check(listed, who + "files[] holds " + want);
        check(in_timeline, who + "the timeline names " + want);
      }
    }
    std::remove(report.c_str());
    std::remove(exact.c_str());
    std::remove(bytes.c_str());
  }
  return finish("test_trace_names");
}
