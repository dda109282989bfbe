// Dealing whole variable records out to groups of I/O tasks. A record too small for every I/O
// task to get a share (a 2-D field of a few thousand columns, decomp::record_units) is written
// by one group of `units` consecutive tasks; which group takes each such record of a flush is
// decided here, from the bytes alone, so that every task ends the flush with about the same
// bytes. Records go out in file order and a group takes consecutive records until it holds its
// share: its stretches of the file join into few large writes. Records of larger groups are
// dealt first; those of smaller ones (down to one task) then fill what the large ones left
// uneven. Pure: the same answer on every rank, unit-tested without MPI.
#pragma once

#include <cstdint>
#include <vector>

namespace esmio::aggregate {

struct DealtRecord {
  int64_t bytes;  // what the record's writes put in the file in this flush
  int units;      // tasks per group (a divisor of the task count)
};

// records in file order; loads: the bytes each I/O task already writes in this flush (records
// that every task shares). Returns the group of each record: record i is written by tasks
// group[i] * units .. group[i] * units + units - 1.
std::vector<int> deal_records(const std::vector<DealtRecord> &records, std::vector<double> loads);

// deal_records flush after flush: the bytes each task took of the dealt records since the
// first flush (less the least of them) are carried into the next, so that the remainder of a
// flush that cannot be split evenly (one record, or a few large ones) goes to a task that has
// had fewer, and the file's bytes are spread evenly where a flush's cannot be. Where the
// flush's records all go to groups of one size (and shared records load tasks alike), the
// flush is dealt as evenly as whole records allow and its groups are then relabelled, the
// fullest to the tasks that had least: every flush stays within a record of even. Otherwise
// the carry, up to one record per task, weighs in the dealing.
class RecordDealer {
 public:
  // shared: the bytes each of ntasks tasks writes in this flush of records every task shares.
  std::vector<int> deal(const std::vector<DealtRecord> &records, std::vector<double> shared);

 private:
  std::vector<double> carried_;
};

}  // namespace esmio::aggregate
