// The classic baseline (the serial backend): every rank sends its runs of offsets and its values
// (memory type) to rank 0, which assembles the whole record, converts it and writes it with one
// call. Rank 0 holds O(global) memory: deliberately the slow reference, not the esmio path.
#include "datapath/gathered.hpp"

#include <cstring>
#include <memory>
#include <vector>

#include "convert/convert.hpp"
#include "datapath/requests.hpp"
#include "decomp/box_partition.hpp"
#include "rearrange/exchange.hpp"

namespace esmio::datapath {
namespace {

struct Gathered {
  std::vector<int64_t> counts;  // per rank: runs, then elements
  std::vector<Run> runs;        // all ranks' runs of file offsets, rank after rank
};

// Rank 0 learns every rank's runs (offset, length) in memory order.
Status gather_runs(const Group &group, const decomp::LocalMap &map, Gathered *g) {
  std::vector<Run> mine;
  mine.reserve(map.runs.size());
  for (const decomp::MapRun &r : map.runs) mine.push_back(Run{r.offset, r.length});
  const int64_t local[2] = {static_cast<int64_t>(mine.size()), map.count()};
  g->counts.assign(group.rank == 0 ? 2 * group.nranks : 0, 0);
  MPI_Gather(local, 2, MPI_INT64_T, g->counts.data(), 2, MPI_INT64_T, 0, group.comm);
  std::vector<rearrange::RecvSegment> recvs;
  if (group.rank == 0) {
    int64_t total = 0;
    for (int r = 0; r < group.nranks; ++r) total += g->counts[2 * r];
    g->runs.resize(total);
    int64_t at = 0;
    for (int r = 0; r < group.nranks; ++r) {
      const int64_t n = g->counts[2 * r];
      recvs.push_back({r, g->runs.data() + at, n * static_cast<int64_t>(sizeof(Run))});
      at += n;
    }
  }
  return rearrange::exchange(group.comm,
                             {{0, mine.data(), local[0] * static_cast<int64_t>(sizeof(Run))}},
                             recvs, group.limits);
}

}  // namespace

Status write_gathered(Group &group, FileState *file, int varid, int64_t record,
                      const Decomp &decomp, esmio_type memtype, const void *buf,
                      RangeCount *range) {
  const Variable &var = file->vars[varid];
  const int64_t msize = static_cast<int64_t>(type_size(memtype));
  const int64_t fsize = static_cast<int64_t>(type_size(var.type));
  const bool fill_holes = file->vars[varid].claim_hole_fill(var.record ? record : 0);
  // The gather is this path's rearrangement: timed as such, as the conversion on rank 0 is.
  auto gather_scope = std::make_unique<trace::Scope>(trace::Counter::rearrange, &file->counters,
                                                     &group.counters, decomp.map.count() * msize);
  Gathered g;
  Status status = gather_runs(group, decomp.map, &g);
  std::vector<unsigned char> values(decomp.map.count() * msize);
  const unsigned char *in = static_cast<const unsigned char *>(buf);
  int64_t packed = 0;
  for (const decomp::MapRun &r : decomp.map.runs) {
    std::memcpy(values.data() + packed * msize, in + r.memory * msize,
                static_cast<std::size_t>(r.length * msize));
    packed += r.length;
  }
  std::vector<unsigned char> all_values;
  std::vector<rearrange::RecvSegment> recvs;
  if (group.rank == 0) {
    int64_t total = 0;
    for (int r = 0; r < group.nranks; ++r) total += g.counts[2 * r + 1];
    all_values.resize(total * msize);
    int64_t at = 0;
    for (int r = 0; r < group.nranks; ++r) {
      recvs.push_back({r, all_values.data() + at * msize, g.counts[2 * r + 1] * msize});
      at += g.counts[2 * r + 1];
    }
  }
  const Status moved =
      rearrange::exchange(group.comm, {{0, values.data(), packed * msize}}, recvs, group.limits);
  if (status.is_ok()) status = moved;
  gather_scope.reset();
  if (status.is_ok() && group.rank == 0) {
    const int64_t size = decomp::shape_size(var.shape);
    std::vector<unsigned char> full(size * fsize);
    convert::fill_runs(full.data(), {Run{0, size}}, var.fill.data(), var.fill.size());
    std::vector<unsigned char> converted;
    int64_t value_at = 0, run_at = 0;
    // The conversion's own scope: the backend's write below is backend_write, not convert.
    auto convert_scope = std::make_unique<trace::Scope>(trace::Counter::convert, &file->counters,
                                                        &group.counters, size * fsize);
    for (int r = 0; r < group.nranks; ++r) {
      const int64_t n = g.counts[2 * r + 1];
      converted.resize(n * fsize);
      range->add(convert::convert(memtype, all_values.data() + value_at * msize, var.type,
                                  converted.data(), n, var.fill.data()),
                 r);
      int64_t k = 0;
      for (int64_t j = 0; j < g.counts[2 * r]; ++j, ++run_at) {
        const Run &run = g.runs[run_at];
        std::memcpy(full.data() + run.begin * fsize, converted.data() + k * fsize,
                    static_cast<std::size_t>(run.length * fsize));
        k += run.length;
      }
      value_at += n;
    }
    convert_scope.reset();
    if (fill_holes) {
      status = file->backend->put_boxes(varid, boxes_of(var, record, {Run{0, size}}), var.type,
                                        full.data());
    } else {
      std::vector<decomp::Extent> extents;
      for (const Run &run : g.runs) extents.push_back({run.begin, run.begin, run.length});
      status = file->backend->put_requests(data_requests(var, varid, record, extents, full.data()));
    }
  }
  return status;
}

Status read_gathered(Group &group, FileState *file, int varid, int64_t record, const Decomp &decomp,
                     esmio_type memtype, void *buf, RangeCount *range) {
  const Variable &var = file->vars[varid];
  const int64_t fsize = static_cast<int64_t>(type_size(var.type));
  Gathered g;
  Status status;
  {
    auto scope = scope_of(group, file, trace::Counter::rearrange);
    status = gather_runs(group, decomp.map, &g);
  }
  std::vector<unsigned char> all_values;
  std::vector<rearrange::SendSegment> sends;
  if (group.rank == 0) {
    const int64_t size = decomp::shape_size(var.shape);
    std::vector<unsigned char> full(size * fsize);
    if (status.is_ok())
      status = file->backend->get_boxes(varid, boxes_of(var, record, {Run{0, size}}), var.type,
                                        full.data());
    int64_t total = 0;
    for (int r = 0; r < group.nranks; ++r) total += g.counts[2 * r + 1];
    all_values.resize(total * fsize);
    int64_t k = 0, run_at = 0;
    for (int r = 0; r < group.nranks; ++r) {
      sends.push_back({r, all_values.data() + k * fsize, g.counts[2 * r + 1] * fsize});
      for (int64_t j = 0; j < g.counts[2 * r]; ++j, ++run_at) {
        const Run &run = g.runs[run_at];
        std::memcpy(all_values.data() + k * fsize, full.data() + run.begin * fsize,
                    static_cast<std::size_t>(run.length * fsize));
        k += run.length;
      }
    }
  }
  const int64_t count = decomp.map.count();
  std::vector<unsigned char> mine(count * fsize);
  Status moved;
  {
    auto scope = scope_of(group, file, trace::Counter::rearrange, count * fsize);
    moved = rearrange::exchange(group.comm, sends, {{0, mine.data(), count * fsize}}, group.limits);
  }
  if (status.is_ok()) status = moved;
  std::vector<Run> positions;
  for (const decomp::MapRun &r : decomp.map.runs) append_run(&positions, Run{r.memory, r.length});
  std::vector<unsigned char> memfill(type_size(memtype));
  default_fill_value(memtype, memfill.data());
  auto convert_scope = scope_of(group, file, trace::Counter::convert, count * fsize);
  range->add(convert::scatter_convert(var.type, mine.data(), positions.data(),
                                      static_cast<int64_t>(positions.size()), memtype, buf,
                                      memfill.data()),
             group.rank);
  return status;
}

}  // namespace esmio::datapath
