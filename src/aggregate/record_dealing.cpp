#include "aggregate/record_dealing.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

namespace esmio::aggregate {

namespace {

// The level that `bytes` more raise the tasks below it to (water filling); a task already
// above it (a large shared record's uneven split) gets none.
double water_level(const std::vector<double> &loads, double bytes) {
  double low = *std::min_element(loads.begin(), loads.end());
  double high = *std::max_element(loads.begin(), loads.end()) + bytes;
  for (int i = 0; i < 100 && high - low > 1e-9 * high; ++i) {
    const double level = (low + high) / 2;
    double room = 0;
    for (double l : loads) room += std::max(0.0, level - l);
    (room < bytes ? low : high) = level;
  }
  return high;
}

}  // namespace

std::vector<int> deal_records(const std::vector<DealtRecord> &records, std::vector<double> loads) {
  std::vector<int> group(records.size(), 0);
  const int ntasks = static_cast<int>(loads.size());
  if (ntasks <= 1 || records.empty()) return group;
  // Records of the largest groups first: the smaller ones (down to one task each) then fill
  // what the large ones left uneven on single tasks.
  std::vector<int> sizes;
  double remaining = 0;
  for (const DealtRecord &r : records) {
    sizes.push_back(std::max(1, r.units));
    remaining += static_cast<double>(r.bytes);
  }
  std::sort(sizes.begin(), sizes.end(), std::greater<int>());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (const int units : sizes) {
    const int groups = ntasks / units;
    double phase = 0;
    for (const DealtRecord &r : records)
      if (std::max(1, r.units) == units) phase += static_cast<double>(r.bytes);
    // Every task's room up to the level all remaining records reach; a group can take what
    // its fullest task has room for, on each of its tasks. The groups' room laid end to end,
    // the records of this size laid along it in file order, each going to the group its middle
    // falls in: a group takes consecutive records, and no rounding piles up at the end.
    const double level = water_level(loads, remaining);
    std::vector<double> room_end(static_cast<std::size_t>(groups) + 1, 0.0);
    for (int g = 0; g < groups; ++g) {
      double least = level;
      for (int t = g * units; t < (g + 1) * units; ++t) least = std::min(least, level - loads[t]);
      room_end[g + 1] = room_end[g] + units * std::max(0.0, least);
    }
    // Less room than bytes (a group's tasks unevenly full): stretched alike, or equal shares.
    const double line = room_end[groups];
    for (int g = 1; g <= groups; ++g)
      room_end[g] = line > 0 ? room_end[g] * phase / line : phase * g / groups;
    double at = 0;
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (std::max(1, records[i].units) != units) continue;
      const double bytes = static_cast<double>(records[i].bytes);
      const double middle = at + bytes / 2;
      at += bytes;
      const int g = static_cast<int>(
          std::upper_bound(room_end.begin() + 1, room_end.end(), middle) - (room_end.begin() + 1));
      group[i] = std::min(g, groups - 1);
      for (int t = group[i] * units; t < (group[i] + 1) * units; ++t) loads[t] += bytes / units;
    }
    remaining -= phase;
  }
  return group;
}

namespace {

// Whether the flush's records all go to groups of one size and the shared records load every
// task alike: then any relabelling of the groups keeps the flush's balance.
bool relabelling_keeps_balance(const std::vector<DealtRecord> &records,
                               const std::vector<double> &shared) {
  if (records.empty() || shared.empty()) return false;
  for (const DealtRecord &r : records)
    if (std::max(1, r.units) != std::max(1, records[0].units)) return false;
  const auto [lo, hi] = std::minmax_element(shared.begin(), shared.end());
  return *hi - *lo <= 1e-9 * std::max(1.0, *hi);
}

}  // namespace

std::vector<int> RecordDealer::deal(const std::vector<DealtRecord> &records,
                                    std::vector<double> shared) {
  if (carried_.size() != shared.size()) carried_.assign(shared.size(), 0.0);
  std::vector<int> groups;
  if (relabelling_keeps_balance(records, shared)) {
    // The flush dealt as balanced in itself as whole records allow; then the groups that took
    // most become the groups whose tasks had least before (a flush's remainder goes round),
    // each keeping its run of consecutive records.
    groups = deal_records(records, shared);
    const int units = std::max(1, records[0].units);
    const std::size_t ngroups = shared.size() / static_cast<std::size_t>(units);
    std::vector<double> took(ngroups, 0.0), had(ngroups, 0.0);
    for (std::size_t i = 0; i < records.size(); ++i)
      took[static_cast<std::size_t>(groups[i])] += static_cast<double>(records[i].bytes);
    for (std::size_t t = 0; t < carried_.size(); ++t) had[t / units] += carried_[t];
    std::vector<int> by_took(ngroups), by_had(ngroups), relabel(ngroups);
    std::iota(by_took.begin(), by_took.end(), 0);
    std::iota(by_had.begin(), by_had.end(), 0);
    std::stable_sort(by_took.begin(), by_took.end(),
                     [&](int a, int b) { return took[a] > took[b]; });
    std::stable_sort(by_had.begin(), by_had.end(), [&](int a, int b) { return had[a] < had[b]; });
    for (std::size_t k = 0; k < ngroups; ++k) relabel[by_took[k]] = by_had[k];
    for (int &g : groups) g = relabel[static_cast<std::size_t>(g)];
  } else {
    // Groups of several sizes, or shared records that load tasks unevenly: what earlier
    // flushes left uneven weighs in the dealing itself, at most one of the flush's records per
    // task; it decides where the remainder goes (which group takes a flush's only record), but
    // a flush of many records is balanced in itself, since the flush's time is its busiest
    // task's.
    double largest = 0;
    for (const DealtRecord &r : records)
      largest = std::max(largest, static_cast<double>(r.bytes) / std::max(1, r.units));
    for (std::size_t t = 0; t < shared.size(); ++t) {
      carried_[t] = std::min(carried_[t], largest);
      shared[t] += carried_[t];
    }
    groups = deal_records(records, std::move(shared));
  }
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
