// The notices and returns of the shared-memory transport (ring_window.hpp), kept in shared memory
// beside each compute rank's ring instead of sent as MPI messages.
//
// Why: a notice sent with MPI_Send is eager only while MPI has room for it. A server busy writing
// makes no MPI call, its MPI takes no message in, and the compute ranks' sends of notices stall
// until it does: on 16 cores with one server (cam-fvd, 6 steps), posting took 5.2 s against
// 0.5 s of conversion with sent notices, and 0.28 s, the conversion alone, with this board. The
// returns (a message's space given back) would stall the same way the other way round while the
// model computes. Stores into shared memory never wait for the other side.
//
// The board of one compute rank, at the start of its segment of the window, per server group g:
//   posted[g]  notices published for group g's server (written by the compute rank);
//   freed[g]   1 + the id of the last message group g's server has read (written by the server):
//              every message of group g with a smaller id may be overwritten;
//   slots[g]   kSlots notices, the n-th in slot n mod kSlots.
// The compute rank keeps fewer than kSlots messages of a group in flight, so that a slot is read
// before it is written again. Each count is written by one side only, with release semantics,
// after what it announces; the other side reads it with acquire semantics, then what it
// announces. Pure: no MPI; unit-tested over ordinary memory.
#pragma once

#include <cstdint>

#include "async/protocol.hpp"

namespace esmio::async {

class NoticeBoard {
 public:
  static constexpr int64_t kSlots = 16384;

  // Bytes of the board of a rank for groups server groups, a multiple of the page size.
  static int64_t bytes(int groups);

  // The board over base (bytes(groups) bytes, shared by the compute rank and its servers).
  NoticeBoard(char *base, int groups);

  // Compute rank, once before any server reads the board: every count zero.
  void clear();
  // Compute rank: publishes notice n for group g's server. The caller keeps fewer than kSlots of
  // the group's messages in flight.
  void publish(int g, const Notice &n);
  // Compute rank: every message of group g with an id below this may be overwritten.
  int64_t freed(int g) const;

  // Server of group g: the notice number taken (0, 1, ...) if it was published, else false.
  bool take(int g, int64_t taken, Notice *out) const;
  // Server of group g: the message id was read, its space is free (ids come in increasing order).
  void give_back(int g, int64_t id);

 private:
  int64_t *posted(int g) const;
  int64_t *freed_slot(int g) const;
  Notice *slot(int g, int64_t n) const;

  char *base_;
  int groups_;
};

}  // namespace esmio::async
