// Which ranks are I/O tasks, and (subset layout) which compute ranks each one serves.
// Pure: a function of the rank count and the settings, the same on every rank.
#pragma once

#include <string>
#include <vector>

#include "common/status.hpp"

namespace esmio::decomp {

enum class LayoutKind { box, subset };

class IoLayout {
 public:
  // num_iotasks 0 means as many as fit: ceil((nranks - offset) / stride).
  static Status make(int nranks, int num_iotasks, int stride, int offset, const std::string &kind,
                     IoLayout *out);
  // A layout with one I/O task on rank 0 (the serial baseline's view).
  static IoLayout single(int nranks);

  LayoutKind kind() const { return kind_; }
  int nranks() const { return nranks_; }
  int ntasks() const { return static_cast<int>(io_ranks_.size()); }
  int io_rank(int task) const { return io_ranks_[task]; }
  const std::vector<int> &io_ranks() const { return io_ranks_; }
  // Task index of rank, or -1 if rank is not an I/O task.
  int task_of_rank(int rank) const;
  // Subset layout: the task serving compute rank; groups are contiguous and balanced.
  int serving_task(int rank) const;
  // Subset layout: first and one-past-last compute rank served by task.
  int group_begin(int task) const;
  int group_end(int task) const { return group_begin(task + 1); }

 private:
  LayoutKind kind_ = LayoutKind::box;
  int nranks_ = 1;
  std::vector<int> io_ranks_;
};

}  // namespace esmio::decomp
