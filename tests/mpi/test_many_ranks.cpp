// The E3SM F and I maps (captured on 16 processes) replayed on many ranks, oversubscribed: each
// process's elements shared by the ranks r, r+16, ... (esmio_decomp_load). Every rank writes its
// part of a few variables of each map through the automatic I/O layout, then reads them back
// through the same decompositions and through get_vara; every value must come back bit for bit.
// Prints, per rank maximum, the seconds of decomposition set-up (the plan counter: loading,
// agreeing and planning) and the peak RSS, so that runs at 64, 128 and 256 ranks can be
// compared.
//
//   test_many_ranks <data dir with map_f_case_16p.nc and map_i_case_16p.nc>
#include <sys/resource.h>

#include <cstdint>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

struct Loaded {
  std::string name;
  esmio_decomp_t decomp = nullptr;
  std::vector<int64_t> dims, offsets;
};

float value(int v, int t, int64_t offset) {
  return static_cast<float>(v * 100000 + t * 10000) + static_cast<float>(offset % 9973);
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  if (argc < 2) {
    if (rank == 0) std::fprintf(stderr, "usage: test_many_ranks DATA_DIR\n");
    MPI_Finalize();
    return 2;
  }
  const std::string data = argv[1];
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  char layout[1024];
  ok(esmio_inq_iolayout(io, layout, sizeof layout), "inq_iolayout");
  if (rank == 0) std::printf("%d ranks; I/O tasks: %s\n", nranks, layout);

  const std::vector<std::pair<std::string, std::string>> maps = {{"map_f_case_16p.nc", "e3sm:D1"},
                                                                 {"map_f_case_16p.nc", "e3sm:D3"},
                                                                 {"map_i_case_16p.nc", "e3sm:D1"},
                                                                 {"map_i_case_16p.nc", "e3sm:D2"}};
  std::vector<Loaded> loaded;
  for (const auto &[file, format] : maps) {
    Loaded l;
    l.name = file + " " + format;
    ok(esmio_decomp_load(io, (data + "/" + file).c_str(), format.c_str(), &l.decomp),
       "decomp_load");
    int nd = 0;
    int64_t dims[ESMIO_MAX_DIMS], nlocal = 0;
    ok(esmio_decomp_inq(l.decomp, &nd, dims, &nlocal), "decomp_inq");
    l.dims.assign(dims, dims + nd);
    l.offsets.resize(static_cast<std::size_t>(nlocal));
    ok(esmio_decomp_inq_offsets(l.decomp, l.offsets.data(), nlocal), "decomp_inq_offsets");
    loaded.push_back(std::move(l));
  }
  // Every element of each map is held by exactly one rank (the maps have no duplicates).
  for (const Loaded &l : loaded) {
    int64_t held = 0, size = 1;
    for (int64_t d : l.dims) size *= d;
    for (int64_t o : l.offsets) held += o >= 0 ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &held, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    check(held > 0 && held <= size,
          l.name + ": " + std::to_string(held) + " elements held of " + std::to_string(size));
  }
  esmio_counter plan{};
  ok(esmio_trace_counter(io, "plan", &plan), "plan counter");

  const std::string path = out_dir() + "/many_ranks_np" + std::to_string(nranks) + ".nc";
  esmio_file_t f;
  ok(esmio_create(io, path.c_str(), "", &f), "create");
  int time = 0;
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &time), "def time");
  std::vector<int> varids;
  constexpr int kVarsPerMap = 3, kRecords = 2;
  for (std::size_t m = 0; m < loaded.size(); ++m) {
    std::vector<int> dimids = {time};
    for (std::size_t d = 0; d < loaded[m].dims.size(); ++d) {
      int id = 0;
      ok(esmio_def_dim(f, ("m" + std::to_string(m) + "_d" + std::to_string(d)).c_str(),
                       loaded[m].dims[d], &id),
         "def dim");
      dimids.push_back(id);
    }
    for (int v = 0; v < kVarsPerMap; ++v) {
      int id = 0;
      ok(esmio_def_var(f, ("m" + std::to_string(m) + "_v" + std::to_string(v)).c_str(), ESMIO_FLOAT,
                       static_cast<int>(dimids.size()), dimids.data(), &id),
         "def var");
      varids.push_back(id);
    }
  }
  ok(esmio_enddef(f), "enddef");
  std::vector<float> buf;
  for (int t = 0; t < kRecords; ++t)
    for (std::size_t m = 0; m < loaded.size(); ++m)
      for (int v = 0; v < kVarsPerMap; ++v) {
        const Loaded &l = loaded[m];
        const int var = static_cast<int>(m) * kVarsPerMap + v;
        buf.resize(l.offsets.size());
        for (std::size_t i = 0; i < l.offsets.size(); ++i) buf[i] = value(var, t, l.offsets[i]);
        ok(esmio_write_darray(f, varids[var], t, l.decomp, ESMIO_FLOAT, buf.data(),
                              static_cast<int64_t>(buf.size())),
           "write_darray");
      }
  ok(esmio_close(&f), "close");

  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  std::vector<float> all;
  for (int t = 0; t < kRecords; ++t)
    for (std::size_t m = 0; m < loaded.size(); ++m)
      for (int v = 0; v < kVarsPerMap; ++v) {
        const Loaded &l = loaded[m];
        const int var = static_cast<int>(m) * kVarsPerMap + v;
        buf.assign(l.offsets.size(), -1.0f);
        ok(esmio_read_darray(f, varids[var], t, l.decomp, ESMIO_FLOAT, buf.data(),
                             static_cast<int64_t>(buf.size())),
           "read_darray");
        int64_t bad = 0;
        for (std::size_t i = 0; i < l.offsets.size(); ++i)
          if (l.offsets[i] >= 0 && buf[i] != value(var, t, l.offsets[i])) ++bad;
        // And the whole record, as a reader of the file sees it (collective: every rank
        // gets it, each checks its own elements there).
        int64_t size = 1;
        for (int64_t d : l.dims) size *= d;
        std::vector<int64_t> start(l.dims.size() + 1, 0), count(l.dims.size() + 1, 1);
        start[0] = t;
        for (std::size_t d = 0; d < l.dims.size(); ++d) count[d + 1] = l.dims[d];
        all.assign(static_cast<std::size_t>(size), -1.0f);
        ok(esmio_get_vara(f, varids[var], start.data(), count.data(), ESMIO_FLOAT, all.data()),
           "get_vara");
        for (int64_t i : l.offsets)
          if (i >= 0 && all[static_cast<std::size_t>(i)] != value(var, t, i)) ++bad;
        check(bad == 0, l.name + " variable " + std::to_string(var) + " record " +
                            std::to_string(t) + ": " + std::to_string(bad) + " wrong values");
      }
  ok(esmio_close(&f), "close read");

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  double seconds = plan.seconds, rss = static_cast<double>(usage.ru_maxrss) / 1024.0;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &rss, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf(
        "decomposition set-up (load, agree, plan; 4 maps): %.3f s, peak RSS %.1f MiB "
        "(max over ranks)\n",
        seconds, rss);
  for (Loaded &l : loaded) ok(esmio_decomp_free(&l.decomp), "decomp_free");
  ok(esmio_finalize(&io), "finalize");
  return finish("test_many_ranks");
}
