#include "aggregate/record_dealing.hpp"

#include <algorithm>
#include <numeric>

namespace esmio::aggregate {

std::vector<int> deal_records(const std::vector<DealtRecord> &records, std::vector<double> loads) {
  std::vector<int> group(records.size(), 0);
  const int ntasks = static_cast<int>(loads.size());
  if (ntasks <= 1 || records.empty()) return group;
  double dealt = 0;
  for (const DealtRecord &r : records) dealt += static_cast<double>(r.bytes);
  // The level every task should reach: the records fill the tasks below it up to it (water
  // filling), and a task already above it (a large shared record's uneven split) gets none.
  double low = *std::min_element(loads.begin(), loads.end());
  double high = *std::max_element(loads.begin(), loads.end()) + dealt;
  for (int i = 0; i < 100 && high - low > 1e-9 * high; ++i) {
    const double level = (low + high) / 2;
    double room = 0;
    for (double l : loads) room += std::max(0.0, level - l);
    (room < dealt ? low : high) = level;
  }
  // The tasks' room laid end to end: task t takes the stretch [room_end[t], room_end[t+1]).
  // The records are laid along it in file order, each going to the group of the task its
  // middle falls in: a group takes consecutive records, and no rounding piles up at the end.
  std::vector<double> room_end(static_cast<std::size_t>(ntasks) + 1, 0.0);
  for (int t = 0; t < ntasks; ++t) room_end[t + 1] = room_end[t] + std::max(0.0, high - loads[t]);
  double at = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const int units = std::max(1, records[i].units);
    const double bytes = static_cast<double>(records[i].bytes);
    const double middle = at + bytes / 2;
    at += bytes;
    int task = static_cast<int>(std::upper_bound(room_end.begin() + 1, room_end.end(), middle) -
                                (room_end.begin() + 1));
    task = std::min(task, ntasks - 1);
    group[i] = std::min(task / units, ntasks / units - 1);
  }
  return group;
}

std::vector<int> RecordDealer::deal(const std::vector<DealtRecord> &records,
                                    std::vector<double> shared) {
  if (carried_.size() != shared.size()) carried_.assign(shared.size(), 0.0);
  // What earlier flushes left uneven weighs at most one of this flush's records per task: it
  // decides where the remainder goes (which group takes a flush's only record), but a flush of
  // many records is balanced in itself, since the flush's time is its busiest task's.
  double largest = 0;
  for (const DealtRecord &r : records)
    largest = std::max(largest, static_cast<double>(r.bytes) / std::max(1, r.units));
  for (std::size_t t = 0; t < shared.size(); ++t) {
    carried_[t] = std::min(carried_[t], largest);
    shared[t] += carried_[t];
  }
  const std::vector<int> groups = deal_records(records, std::move(shared));
  if (records.empty() || carried_.empty()) return groups;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const int units = std::max(1, records[i].units);
    for (int t = groups[i] * units; t < (groups[i] + 1) * units; ++t)
      carried_[static_cast<std::size_t>(t)] += static_cast<double>(records[i].bytes) / units;
  }
  const double least = *std::min_element(carried_.begin(), carried_.end());
  for (double &c : carried_) c -= least;
  return groups;
}

}  // namespace esmio::aggregate
