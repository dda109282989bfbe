#include "decomp/plan.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace esmio::decomp {
namespace {

Status duplicate_error(int64_t offset, int rank_a, int rank_b) {
  if (rank_a == rank_b)
    return Status(ESMIO_EDECOMP, "decomposition: offset " + std::to_string(offset) +
                                     " is given twice by rank " + std::to_string(rank_a));
  return Status(ESMIO_EDECOMP, "decomposition: offset " + std::to_string(offset) +
                                   " is given by both rank " +
                                   std::to_string(std::min(rank_a, rank_b)) + " and rank " +
                                   std::to_string(std::max(rank_a, rank_b)));
}

// One incoming run, remembered with its source for sorting by file offset.
struct Entry {
  int64_t begin;
  int64_t length;
  int rank;
  int64_t index;  // position in the concatenation of all incoming runs
};

// All incoming runs sorted by offset; overlapping runs are duplicates.
Status sorted_entries(const std::vector<Incoming> &incoming, std::vector<Entry> *entries) {
  entries->clear();
  for (const Incoming &in : incoming)
    for (int64_t j = 0; j < in.nruns; ++j)
      entries->push_back(Entry{in.runs[j].begin, in.runs[j].length, in.rank,
                               static_cast<int64_t>(entries->size())});
  std::sort(entries->begin(), entries->end(),
            [](const Entry &a, const Entry &b) { return a.begin < b.begin; });
  for (std::size_t k = 1; k < entries->size(); ++k) {
    const Entry &prev = (*entries)[k - 1], &next = (*entries)[k];
    if (prev.begin + prev.length > next.begin)
      return duplicate_error(next.begin, prev.rank, next.rank);
  }
  return Status::ok();
}

void add_peer(std::vector<Peer> *peers, int rank, int64_t count, int64_t first_run,
              const std::vector<Run> &runs) {
  peers->push_back(Peer{rank, count, first_run, static_cast<int64_t>(runs.size())});
}

}  // namespace

std::vector<Extent> extents_of(const std::vector<Run> &file_runs,
                               const std::vector<Run> &positions) {
  std::vector<Extent> out;
  std::size_t f = 0;
  int64_t run_start = 0;  // buffer position of file_runs[f]
  for (const Run &d : positions) {
    int64_t p = d.begin, left = d.length;
    while (left > 0) {
      while (run_start + file_runs[f].length <= p) run_start += file_runs[f++].length;
      const int64_t n = std::min(left, run_start + file_runs[f].length - p);
      out.push_back(Extent{file_runs[f].begin + (p - run_start), p, n});
      p += n;
      left -= n;
    }
  }
  return out;
}

std::vector<Extent> data_extents(const std::vector<Run> &file_runs,
                                 const std::vector<Run> &fill_runs) {
  int64_t total = 0;
  for (const Run &f : file_runs) total += f.length;
  std::vector<Run> data;
  int64_t at = 0;
  for (const Run &hole : fill_runs) {
    if (hole.begin > at) data.push_back(Run{at, hole.begin - at});
    at = hole.begin + hole.length;
  }
  if (at < total) data.push_back(Run{at, total - at});
  return extents_of(file_runs, data);
}

void build_send_plan(const LocalMap &map, const IoLayout &layout, const BoxPartition *partition,
                     int my_rank, SendPlan *plan, SentOffsets *sent) {
  *plan = SendPlan{};
  *sent = SentOffsets{};
  if (partition == nullptr) {
    const int task = layout.serving_task(my_rank);
    for (const MapRun &r : map.runs) {
      append_run(&plan->runs, Run{r.memory, r.length});
      append_run(&sent->runs, Run{r.offset, r.length});
      plan->count += r.length;
    }
    if (plan->count > 0) {
      add_peer(&plan->peers, layout.io_rank(task), plan->count, 0, plan->runs);
      sent->peer_ends.push_back(static_cast<int64_t>(sent->runs.size()));
    }
    return;
  }
  // Cut runs where the partition changes task, then a stable counting sort by task.
  struct Piece {
    int task;
    MapRun run;
  };
  std::vector<Piece> pieces;
  pieces.reserve(map.runs.size());
  const int ntasks = partition->ntasks();
  std::vector<int64_t> start(ntasks + 1, 0);
  for (MapRun r : map.runs) {
    while (r.length > 0) {
      const int t = partition->owner(r.offset);
      const int64_t n = std::min(r.length, partition->end(t) - r.offset);
      pieces.push_back(Piece{t, MapRun{r.memory, r.offset, n}});
      ++start[t + 1];
      r.memory += n;
      r.offset += n;
      r.length -= n;
    }
  }
  for (int t = 0; t < ntasks; ++t) start[t + 1] += start[t];
  std::vector<int64_t> order(pieces.size());
  std::vector<int64_t> next(start.begin(), start.end() - 1);
  for (std::size_t k = 0; k < pieces.size(); ++k)
    order[next[pieces[k].task]++] = static_cast<int64_t>(k);
  for (int t = 0; t < ntasks; ++t) {
    if (start[t + 1] == start[t]) continue;
    const int64_t first_run = static_cast<int64_t>(plan->runs.size());
    int64_t count = 0;
    // A run never spans two peers: the first piece of a group always opens a new run.
    for (int64_t k = start[t]; k < start[t + 1]; ++k) {
      const MapRun &r = pieces[order[k]].run;
      if (k == start[t]) {
        plan->runs.push_back(Run{r.memory, r.length});
        sent->runs.push_back(Run{r.offset, r.length});
      } else {
        append_run(&plan->runs, Run{r.memory, r.length});
        append_run(&sent->runs, Run{r.offset, r.length});
      }
      count += r.length;
    }
    add_peer(&plan->peers, layout.io_rank(t), count, first_run, plan->runs);
    plan->tasks.push_back(t);
    sent->peer_ends.push_back(static_cast<int64_t>(sent->runs.size()));
    plan->count += count;
  }
}

Status build_recv_plan_box(const BoxPartition &partition, int task,
                           const std::vector<Incoming> &incoming, RecvPlan *plan,
                           std::vector<Run> *holes) {
  *plan = RecvPlan{};
  holes->clear();
  const int64_t begin = partition.begin(task), end = partition.end(task);
  plan->buffer_size = end - begin;
  if (end > begin) plan->file_runs.push_back(Run{begin, end - begin});
  for (const Incoming &in : incoming) {
    if (in.nruns == 0) continue;
    const int64_t first_run = static_cast<int64_t>(plan->runs.size());
    int64_t count = 0;
    for (int64_t j = 0; j < in.nruns; ++j) {
      const Run &r = in.runs[j];
      if (r.length < 1 || r.begin < begin || r.begin + r.length > end)
        return Status(ESMIO_EDECOMP, "rearrangement: rank " + std::to_string(in.rank) +
                                         " sent offsets " + std::to_string(r.begin) + "+" +
                                         std::to_string(r.length) + " to the I/O task owning " +
                                         std::to_string(begin) + ".." + std::to_string(end - 1));
      const Run position{r.begin - begin, r.length};
      if (j == 0)
        plan->runs.push_back(position);
      else
        append_run(&plan->runs, position);
      count += r.length;
    }
    add_peer(&plan->peers, in.rank, count, first_run, plan->runs);
    plan->count += count;
  }
  std::vector<Entry> entries;
  ESMIO_RETURN_IF_ERROR(sorted_entries(incoming, &entries));
  int64_t covered_to = begin;
  for (const Entry &e : entries) {
    if (e.begin > covered_to) {
      append_run(&plan->fill_runs, Run{covered_to - begin, e.begin - covered_to});
      append_run(holes, Run{covered_to, e.begin - covered_to});
    }
    covered_to = e.begin + e.length;
  }
  if (end > covered_to) {
    append_run(&plan->fill_runs, Run{covered_to - begin, end - covered_to});
    append_run(holes, Run{covered_to, end - covered_to});
  }
  plan->data_extents = data_extents(plan->file_runs, plan->fill_runs);
  plan->fill_extents = extents_of(plan->file_runs, plan->fill_runs);
  pack_positions(plan);
  return Status::ok();
}

Status build_recv_plan_subset(const std::vector<Incoming> &incoming,
                              const std::vector<Run> &hole_runs, RecvPlan *plan) {
  *plan = RecvPlan{};
  std::vector<Entry> entries;
  ESMIO_RETURN_IF_ERROR(sorted_entries(incoming, &entries));

  // Data and holes merged in file order; each incoming run gets its buffer position.
  std::vector<int64_t> position_of(entries.size());
  int64_t p = 0;
  std::size_t h = 0;
  auto add_holes_before = [&](int64_t limit) {
    while (h < hole_runs.size() && hole_runs[h].begin < limit) {
      append_run(&plan->fill_runs, Run{p, hole_runs[h].length});
      append_run(&plan->file_runs, hole_runs[h]);
      p += hole_runs[h].length;
      ++h;
    }
  };
  for (const Entry &e : entries) {
    add_holes_before(e.begin);
    append_run(&plan->file_runs, Run{e.begin, e.length});
    position_of[e.index] = p;
    p += e.length;
  }
  add_holes_before(INT64_MAX);
  plan->buffer_size = p;
  plan->data_extents = data_extents(plan->file_runs, plan->fill_runs);
  plan->fill_extents = extents_of(plan->file_runs, plan->fill_runs);

  int64_t index = 0;
  for (const Incoming &in : incoming) {
    if (in.nruns == 0) continue;
    const int64_t first_run = static_cast<int64_t>(plan->runs.size());
    int64_t count = 0;
    for (int64_t j = 0; j < in.nruns; ++j, ++index) {
      const Run position{position_of[index], in.runs[j].length};
      if (j == 0)
        plan->runs.push_back(position);
      else
        append_run(&plan->runs, position);
      count += in.runs[j].length;
    }
    add_peer(&plan->peers, in.rank, count, first_run, plan->runs);
    plan->count += count;
  }
  pack_positions(plan);
  return Status::ok();
}

void expand_scattered_runs(RecvPlan *plan) {
  plan->positions.clear();
  if (plan->runs.empty() || 2 * static_cast<int64_t>(plan->runs.size()) <= plan->count ||
      plan->buffer_size > std::numeric_limits<int32_t>::max())
    return;
  plan->positions.reserve(static_cast<std::size_t>(plan->count));
  for (const Run &r : plan->runs)
    for (int64_t k = 0; k < r.length; ++k)
      plan->positions.push_back(static_cast<int32_t>(r.begin + k));
}

void pack_positions(RecvPlan *plan) {
  // A data position p moves down by the hole lengths before it; a run never spans a hole.
  std::vector<int64_t> hole_begin, holes_before;
  int64_t total = 0;
  for (const Run &h : plan->fill_runs) {
    hole_begin.push_back(h.begin);
    holes_before.push_back(total);
    total += h.length;
  }
  auto packed = [&](int64_t p) {
    const auto k = std::upper_bound(hole_begin.begin(), hole_begin.end(), p) - hole_begin.begin();
    return k == 0 ? p : p - holes_before[k - 1] - plan->fill_runs[k - 1].length;
  };
  plan->packed_runs.clear();
  plan->packed_runs.reserve(plan->runs.size());
  for (const Run &r : plan->runs) plan->packed_runs.push_back(Run{packed(r.begin), r.length});
  plan->packed_extents.clear();
  int64_t at = 0;
  for (const Extent &e : plan->data_extents) {
    plan->packed_extents.push_back(Extent{e.offset, at, e.length});
    at += e.length;
  }
}

}  // namespace esmio::decomp
