// Which ranks are I/O tasks, and (subset layout) which compute ranks each one serves.
// Pure: a function of the rank count and the settings, the same on every rank.
#pragma once

#include <string>
#include <vector>

#include "common/status.hpp"

namespace esmio::decomp {

enum class LayoutKind { box, subset };

// The I/O tasks esmio chooses when num_iotasks is 0 (automatic), from the node layout alone
// (a record's size then decides how many of them share it: record_units). Every rank, up to
// kMaxIoTasksPerNode per node and at most one per core of the node: a node's memory bandwidth
// and its link to the file system are shared by its writers, past a few of them each one's
// share of a flush only gets smaller; and an I/O task places and byte-swaps what it writes, so
// ranks that share a core (more ranks than cores) do not gain by all being I/O tasks. Spread
// evenly: every stride-th rank, so that ranks placed node by node put the same number of I/O
// tasks on every node.
constexpr int kMaxIoTasksPerNode = 8;
struct AutomaticIoTasks {
  int ntasks = 1;
  int stride = 1;
  std::string why;  // the rule's inputs and outcome, for the settings report and the trace
};
// nodes: the shared-memory nodes the ranks run on; most_per_node: the most ranks on one;
// cores_per_node: the cores of a node (the fewest of any node; 0: not known).
AutomaticIoTasks automatic_iotasks(int nranks, int nodes, int most_per_node,
                                   int cores_per_node = 0);
// "3 I/O tasks: ranks 0, 4, 8" (the first and last three of a long list).
std::string rank_list(const std::vector<int> &ranks);

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
