#include "aggregate/cache_store.hpp"

#include <algorithm>
#include <iterator>

#include "common/types.hpp"
#include "convert/convert.hpp"

namespace esmio::aggregate {

int64_t element_size(esmio_type type) { return static_cast<int64_t>(type_size(type)); }

int64_t CacheStore::records_end() const {
  int64_t end = 0;
  for (const CachedWrite &w : pending_)
    if (w.record_variable) end = std::max(end, w.record + 1);
  return end;
}

int64_t CacheStore::add(CachedWrite write, esmio_type memtype, const void *values) {
  const int64_t esize = element_size(write.type);
  const decomp::SendPlan &send = write.plan->send;
  int64_t out_of_range = 0;
  sizes_before_last_.clear();
  bound_before_last_ = bound_;
  floating_before_last_ = static_cast<int64_t>(floating_.size());
  write.group = 0;
  write.floating_at = -1;
  if (write.plan->groups > 1) {
    // Its destination is known at the flush: every peer's values, back to back.
    write.floating_at = static_cast<int64_t>(floating_.size());
    floating_.resize(floating_.size() + static_cast<std::size_t>(send.count * esize));
  }
  int64_t floating_at = write.floating_at;
  for (const decomp::Peer &peer : send.peers) {
    unsigned char *into = nullptr;
    if (write.floating_at >= 0) {
      into = floating_.data() + floating_at;
      floating_at += peer.count * esize;
    } else {
      std::vector<unsigned char> &out = outgoing_[peer.rank];
      const std::size_t at = out.size();
      sizes_before_last_.emplace_back(peer.rank, at);
      out.resize(at + static_cast<std::size_t>(peer.count * esize));
      into = out.data() + at;
    }
    out_of_range +=
        convert::gather_convert(memtype, values, send.runs.data() + peer.first_run,
                                peer.end_run - peer.first_run, write.type, into, write.fill.data());
  }
  bound_.add(*write.plan, esize, write.fill_holes);
  pending_.push_back(std::move(write));
  return out_of_range;
}

void CacheStore::drop_last() {
  if (pending_.empty()) return;
  pending_.pop_back();
  for (const auto &[rank, size] : sizes_before_last_) outgoing_[rank].resize(size);
  sizes_before_last_.clear();
  floating_.resize(static_cast<std::size_t>(floating_before_last_));
  bound_ = bound_before_last_;
}

void CacheStore::take_back(const std::vector<std::size_t> &writes) {
  if (writes.empty()) return;
  // Each write's values are, in list order, the next stretch of each of its destinations'
  // outgoing buffers (or of the floating buffer): rebuilt without the stretches taken back.
  Buffers kept_outgoing;
  std::vector<unsigned char> kept_floating;
  std::map<int, std::size_t> at;
  std::vector<CachedWrite> kept;
  std::size_t next = 0;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    CachedWrite &w = pending_[i];
    const bool gone = next < writes.size() && writes[next] == i;
    if (gone) ++next;
    const int64_t esize = element_size(w.type);
    if (w.floating_at >= 0) {
      const auto from = floating_.begin() + static_cast<std::ptrdiff_t>(w.floating_at);
      const auto to = from + static_cast<std::ptrdiff_t>(w.plan->send.count * esize);
      if (gone) continue;
      w.floating_at = static_cast<int64_t>(kept_floating.size());
      kept_floating.insert(kept_floating.end(), from, to);
    } else {
      for (const decomp::Peer &peer : w.plan->send.peers) {
        const std::vector<unsigned char> &out = outgoing_[peer.rank];
        const std::size_t from = at[peer.rank];
        const std::size_t n = static_cast<std::size_t>(peer.count * esize);
        at[peer.rank] = from + n;
        if (!gone) {
          std::vector<unsigned char> &into = kept_outgoing[peer.rank];
          into.insert(into.end(), out.begin() + static_cast<std::ptrdiff_t>(from),
                      out.begin() + static_cast<std::ptrdiff_t>(from + n));
        }
      }
    }
    if (!gone) kept.push_back(std::move(w));
  }
  pending_ = std::move(kept);
  for (auto &[rank, out] : outgoing_) {
    auto found = kept_outgoing.find(rank);
    if (found == kept_outgoing.end())
      out.clear();
    else
      out.swap(found->second);
  }
  floating_.swap(kept_floating);
  sizes_before_last_.clear();  // drop_last() no longer knows the last write
  recompute_bound();
}

void CacheStore::recompute_bound() {
  bound_.clear();
  for (const CachedWrite &w : pending_) bound_.add(*w.plan, element_size(w.type), w.fill_holes);
}

bool CacheStore::hold_back_record(int varid, int64_t record, int64_t limit) {
  std::size_t first = pending_.size();
  while (first > 0 && pending_[first - 1].varid == varid && pending_[first - 1].record == record)
    --first;
  if (first == pending_.size() || first == 0) return false;
  // The tail's bound, computed as the cache does (the same on every rank).
  CacheBound tail_bound = bound_;
  tail_bound.clear();
  for (std::size_t i = first; i < pending_.size(); ++i)
    tail_bound.add(*pending_[i].plan, element_size(pending_[i].type), pending_[i].fill_holes);
  const int64_t tail = tail_bound.bytes();
  if (tail > limit) return false;
  // The tail writes' packed values are the tails of the outgoing buffers.
  std::map<int, int64_t> bytes;
  int64_t floating_from = -1;  // the tail writes' values in the floating buffer start here
  for (std::size_t i = first; i < pending_.size(); ++i) {
    if (pending_[i].floating_at >= 0) {
      if (floating_from < 0) floating_from = pending_[i].floating_at;
      continue;
    }
    for (const decomp::Peer &peer : pending_[i].plan->send.peers)
      bytes[peer.rank] += peer.count * element_size(pending_[i].type);
  }
  held_floating_.clear();
  if (floating_from >= 0) {
    held_floating_.assign(floating_.begin() + floating_from, floating_.end());
    floating_.resize(static_cast<std::size_t>(floating_from));
    for (std::size_t i = first; i < pending_.size(); ++i)
      if (pending_[i].floating_at >= 0) pending_[i].floating_at -= floating_from;
  }
  for (const auto &[rank, n] : bytes) {
    std::vector<unsigned char> &out = outgoing_[rank];
    const auto from = out.end() - static_cast<std::ptrdiff_t>(n);
    held_outgoing_[rank].assign(from, out.end());
    out.erase(from, out.end());
  }
  held_.assign(std::make_move_iterator(pending_.begin() + static_cast<std::ptrdiff_t>(first)),
               std::make_move_iterator(pending_.end()));
  pending_.resize(first);
  recompute_bound();
  return true;
}

void CacheStore::restore_held() {
  if (held_.empty()) return;
  const int64_t floating_base = static_cast<int64_t>(floating_.size());
  floating_.insert(floating_.end(), held_floating_.begin(), held_floating_.end());
  held_floating_.clear();
  for (CachedWrite &w : held_) {
    if (w.floating_at >= 0) w.floating_at += floating_base;
    pending_.push_back(std::move(w));
  }
  held_.clear();
  for (auto &[rank, bytes] : held_outgoing_) {
    std::vector<unsigned char> &out = outgoing_[rank];
    out.insert(out.end(), bytes.begin(), bytes.end());
  }
  held_outgoing_.clear();
  recompute_bound();
}

void CacheStore::clear() {
  pending_.clear();
  for (auto &o : outgoing_) o.second.clear();
  floating_.clear();
  bound_.clear();
}

}  // namespace esmio::aggregate
