#include "decomp/plan.hpp"

#include <algorithm>
#include <string>

namespace esmio::decomp {
namespace {

Status duplicate_error(int64_t offset, int rank_a, int rank_b) {
  if (rank_a == rank_b)
    return Status(ESMIO_EDECOMP, "decomposition: offset " + std::to_string(offset) +
                                     " is given twice by rank " + std::to_string(rank_a));
  return Status(ESMIO_EDECOMP, "decomposition: offset " + std::to_string(offset) +
                                   " is given by both rank " + std::to_string(rank_a) +
                                   " and rank " + std::to_string(rank_b));
}

// The ranks holding the duplicated offset: only on the error path, so a rescan is fine.
Status find_duplicate(const std::vector<Incoming> &incoming, int64_t offset) {
  int first = -1;
  for (const Incoming &in : incoming)
    for (int64_t j = 0; j < in.count; ++j)
      if (in.offsets[j] == offset) {
        if (first >= 0) return duplicate_error(offset, first, in.rank);
        first = in.rank;
      }
  return duplicate_error(offset, first, first);
}

}  // namespace

void build_send_plan(const std::vector<int64_t> &offsets, const IoLayout &layout,
                     const BoxPartition *partition, int my_rank, SendPlan *plan,
                     std::vector<int64_t> *send_offsets) {
  *plan = SendPlan{};
  send_offsets->clear();
  const int ntasks = layout.ntasks();
  const int64_t n = static_cast<int64_t>(offsets.size());
  if (partition == nullptr) {
    const int task = layout.serving_task(my_rank);
    for (int64_t i = 0; i < n; ++i) {
      if (offsets[i] < 0) continue;
      append_position(&plan->runs, i);
      send_offsets->push_back(offsets[i]);
    }
    plan->count = static_cast<int64_t>(send_offsets->size());
    if (plan->count > 0)
      plan->peers.push_back(
          Peer{layout.io_rank(task), plan->count, 0, static_cast<int64_t>(plan->runs.size())});
    return;
  }
  // Counting sort by destination task, stable so each group keeps memory order.
  std::vector<int32_t> task_of(n);
  std::vector<int64_t> start(ntasks + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (offsets[i] < 0) {
      task_of[i] = -1;
      continue;
    }
    task_of[i] = partition->owner(offsets[i]);
    ++start[task_of[i] + 1];
  }
  for (int t = 0; t < ntasks; ++t) start[t + 1] += start[t];
  plan->count = start[ntasks];
  std::vector<int64_t> position(plan->count);
  std::vector<int64_t> next(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < n; ++i)
    if (task_of[i] >= 0) position[next[task_of[i]]++] = i;
  send_offsets->resize(plan->count);
  for (int t = 0; t < ntasks; ++t) {
    if (start[t + 1] == start[t]) continue;
    const int64_t first_run = static_cast<int64_t>(plan->runs.size());
    // A run never spans two tasks: close the previous group's last run.
    for (int64_t k = start[t]; k < start[t + 1]; ++k) {
      const int64_t i = position[k];
      if (k == start[t])
        plan->runs.push_back(Run{i, 1});
      else
        append_position(&plan->runs, i);
      (*send_offsets)[k] = offsets[i];
    }
    plan->peers.push_back(Peer{layout.io_rank(t), start[t + 1] - start[t], first_run,
                               static_cast<int64_t>(plan->runs.size())});
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
  std::vector<bool> covered(plan->buffer_size, false);
  for (const Incoming &in : incoming) {
    if (in.count == 0) continue;
    const int64_t first_run = static_cast<int64_t>(plan->runs.size());
    bool first = true;
    for (int64_t j = 0; j < in.count; ++j) {
      const int64_t o = in.offsets[j];
      if (o < begin || o >= end)
        return Status(ESMIO_EDECOMP, "rearrangement: rank " + std::to_string(in.rank) +
                                         " sent offset " + std::to_string(o) +
                                         " to the I/O task owning " + std::to_string(begin) +
                                         ".." + std::to_string(end - 1));
      const int64_t p = o - begin;
      if (covered[p]) return find_duplicate(incoming, o);
      covered[p] = true;
      if (first)
        plan->runs.push_back(Run{p, 1});
      else
        append_position(&plan->runs, p);
      first = false;
    }
    plan->peers.push_back(
        Peer{in.rank, in.count, first_run, static_cast<int64_t>(plan->runs.size())});
    plan->count += in.count;
  }
  if (plan->count < plan->buffer_size) {
    for (int64_t p = 0; p < plan->buffer_size; ++p)
      if (!covered[p]) {
        append_position(&plan->fill_runs, p);
        append_position(holes, begin + p);
      }
  }
  return Status::ok();
}

Status build_recv_plan_subset(const std::vector<Incoming> &incoming,
                              const std::vector<Run> &hole_runs, RecvPlan *plan) {
  *plan = RecvPlan{};
  // (offset, index in the concatenation of all incoming lists), sorted by offset.
  struct Entry {
    int64_t offset;
    int64_t index;
  };
  std::vector<Entry> entries;
  int64_t total = 0;
  for (const Incoming &in : incoming) total += in.count;
  entries.reserve(total);
  for (const Incoming &in : incoming)
    for (int64_t j = 0; j < in.count; ++j)
      entries.push_back(Entry{in.offsets[j], static_cast<int64_t>(entries.size())});
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.offset < b.offset; });
  for (std::size_t k = 1; k < entries.size(); ++k)
    if (entries[k].offset == entries[k - 1].offset)
      return find_duplicate(incoming, entries[k].offset);

  // Merge data and holes in file order; a buffer position per element.
  std::vector<int64_t> position_of(total);
  int64_t p = 0;
  std::size_t h = 0;
  auto add_holes_before = [&](int64_t limit) {
    while (h < hole_runs.size() && hole_runs[h].begin < limit) {
      plan->fill_runs.push_back(Run{p, hole_runs[h].length});
      append_run(&plan->file_runs, hole_runs[h]);
      p += hole_runs[h].length;
      ++h;
    }
  };
  for (const Entry &e : entries) {
    add_holes_before(e.offset);
    append_position(&plan->file_runs, e.offset);
    position_of[e.index] = p++;
  }
  add_holes_before(INT64_MAX);
  plan->buffer_size = p;
  plan->count = total;

  int64_t index = 0;
  for (const Incoming &in : incoming) {
    if (in.count == 0) continue;
    const int64_t first_run = static_cast<int64_t>(plan->runs.size());
    for (int64_t j = 0; j < in.count; ++j, ++index) {
      if (j == 0)
        plan->runs.push_back(Run{position_of[index], 1});
      else
        append_position(&plan->runs, position_of[index]);
    }
    plan->peers.push_back(
        Peer{in.rank, in.count, first_run, static_cast<int64_t>(plan->runs.size())});
  }
  return Status::ok();
}

}  // namespace esmio::decomp
