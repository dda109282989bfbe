#include "decomp/io_layout.hpp"

#include <algorithm>

namespace esmio::decomp {

Status IoLayout::make(int nranks, int num_iotasks, int stride, int offset, const std::string &kind,
                      IoLayout *out) {
  IoLayout layout;
  layout.nranks_ = nranks;
  if (kind == "box")
    layout.kind_ = LayoutKind::box;
  else if (kind == "subset")
    layout.kind_ = LayoutKind::subset;
  else
    return Status(ESMIO_EBADNAME, "unknown I/O layout '" + kind + "' (known: box, subset)");
  if (stride < 1)
    return Status(ESMIO_ESETTING,
                  "iotask_stride must be at least 1, got " + std::to_string(stride));
  if (offset < 0 || offset >= nranks)
    return Status(ESMIO_ESETTING, "iotask_offset " + std::to_string(offset) +
                                      " is not a rank of the communicator (0.." +
                                      std::to_string(nranks - 1) + ")");
  const int fit = (nranks - offset + stride - 1) / stride;
  if (num_iotasks < 0)
    return Status(ESMIO_ESETTING, "num_iotasks must be 0 (automatic) or positive, got " +
                                      std::to_string(num_iotasks));
  if (num_iotasks == 0) num_iotasks = fit;
  if (num_iotasks > fit)
    return Status(ESMIO_ESETTING,
                  std::to_string(num_iotasks) + " I/O tasks with stride " + std::to_string(stride) +
                      " and offset " + std::to_string(offset) + " do not fit in " +
                      std::to_string(nranks) + " ranks (at most " + std::to_string(fit) + ")");
  for (int i = 0; i < num_iotasks; ++i) layout.io_ranks_.push_back(offset + i * stride);
  *out = std::move(layout);
  return Status::ok();
}

AutomaticIoTasks automatic_iotasks(int nranks, int nodes, int most_per_node, int cores_per_node) {
  AutomaticIoTasks out;
  nranks = std::max(nranks, 1);
  nodes = std::max(nodes, 1);
  most_per_node = std::max(most_per_node, 1);
  int per_node = std::min(most_per_node, kMaxIoTasksPerNode);
  if (cores_per_node > 0) per_node = std::min(per_node, cores_per_node);
  out.ntasks =
      static_cast<int>(std::min<long long>(nranks, static_cast<long long>(per_node) * nodes));
  out.stride = nranks / out.ntasks;
  std::vector<int> ranks;
  for (int i = 0; i < out.ntasks; ++i) ranks.push_back(i * out.stride);
  out.why = "num_iotasks=0 (automatic: " + std::to_string(nranks) + " rank" +
            (nranks == 1 ? "" : "s") + " on " + std::to_string(nodes) + " node" +
            (nodes == 1 ? "" : "s") + ", at most " + std::to_string(most_per_node) + " on one" +
            (cores_per_node > 0 ? ", " + std::to_string(cores_per_node) + " cores per node" : "") +
            "; up to " + std::to_string(kMaxIoTasksPerNode) +
            " I/O tasks per node and one per core, every iotask_stride-th rank; iotask_stride=" +
            std::to_string(out.stride) + "): " + rank_list(ranks);
  return out;
}

std::string rank_list(const std::vector<int> &ranks) {
  const std::size_t n = ranks.size();
  std::string text =
      std::to_string(n) + " I/O task" + (n == 1 ? "" : "s") + ": rank" + (n == 1 ? " " : "s ");
  for (std::size_t i = 0; i < n; ++i) {
    if (n > 8 && i == 3) {
      text += "..., ";
      i = n - 3;
    }
    text += std::to_string(ranks[i]) + (i + 1 < n ? ", " : "");
  }
  return text;
}

IoLayout IoLayout::single(int nranks) {
  IoLayout layout;
  layout.nranks_ = nranks;
  layout.kind_ = LayoutKind::subset;
  layout.io_ranks_ = {0};
  return layout;
}

int IoLayout::task_of_rank(int rank) const {
  for (int i = 0; i < ntasks(); ++i)
    if (io_ranks_[i] == rank) return i;
  return -1;
}

int IoLayout::group_begin(int task) const {
  return static_cast<int>(static_cast<long long>(task) * nranks_ / ntasks());
}

int IoLayout::serving_task(int rank) const {
  return static_cast<int>((static_cast<long long>(rank + 1) * ntasks() - 1) / nranks_);
}

}  // namespace esmio::decomp
