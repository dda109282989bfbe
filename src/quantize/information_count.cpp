#include "quantize/information_count.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "common/types.hpp"
#include "quantize/bitround.hpp"

namespace esmio::quantize {

FreshVariables fresh_variables(const std::vector<Information *> &information,
                               const std::vector<int64_t> &record) {
  FreshVariables fresh;
  for (std::size_t i = 0; i < information.size(); ++i) {
    Information *info = information[i];
    if (info == nullptr || info->keepbits >= 0) continue;
    auto it = std::find(fresh.variables.begin(), fresh.variables.end(), info);
    if (it == fresh.variables.end()) {
      fresh.variables.push_back(info);
      fresh.counted.emplace_back();
      it = fresh.variables.end() - 1;
    }
    fresh.counted[static_cast<std::size_t>(it - fresh.variables.begin())].push_back(i);
  }
  for (auto &list : fresh.counted) {
    int64_t first_record = INT64_MAX;
    for (std::size_t i : list) first_record = std::min(first_record, record[i]);
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](std::size_t i) { return record[i] != first_record; }),
               list.end());
  }
  return fresh;
}

Halo leading_value(const HeldSlab &slab) {
  Halo halo;
  if (!slab.has_range || slab.stretches.empty() || slab.values == nullptr) return halo;
  if (slab.stretches.front().offset != slab.range_begin) return halo;
  halo.held = 1;
  std::memcpy(&halo.bits, slab.values, type_size(slab.type));
  return halo;
}

Status count_held_pairs(const HeldSlab &slab, const Halo &next, BitPairCounts *counts) {
  Status status;
  if (slab.values == nullptr) return status;
  const int64_t esize = static_cast<int64_t>(type_size(slab.type));
  const std::vector<HeldStretch> &s = slab.stretches;
  for (std::size_t e = 0; e < s.size(); ++e) {
    const int64_t end = s[e].offset + s[e].length;
    const void *after = nullptr;
    if (e + 1 < s.size() && s[e + 1].offset == end)
      after = slab.values + s[e + 1].position * esize;
    else if (e + 1 == s.size() && next.held == 1 && slab.has_range && end == slab.range_end)
      after = &next.bits;
    const Status counted =
        count_neighbour_pairs(slab.type, slab.values + s[e].position * esize, s[e].offset,
                              s[e].length, slab.row, after, slab.fill, counts);
    if (status.is_ok()) status = counted;
  }
  return status;
}

void settle_keepbits(esmio_type type, const BitPairCounts &total, Information *info) {
  info->per_bit = bit_information(total);
  const KeepbitsChoice choice =
      choose_keepbits(type, info->per_bit, info->fraction, info->maxrel, info->minbits);
  info->keepbits = choice.keepbits;
  info->reference = choice.reference;
  info->reason = keepbits_reason_name(choice.reason);
  if (info->keepbits < 0) {  // not expected: the arguments are checked at enddef
    info->keepbits = mantissa_bits(type);
    info->reason = "every bit kept (the analysis failed)";
  }
}

}  // namespace esmio::quantize
