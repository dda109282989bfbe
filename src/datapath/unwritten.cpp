#include "datapath/unwritten.hpp"

#include <algorithm>
#include <cstdint>

#include "common/agree.hpp"
#include "common/run.hpp"
#include "common/types.hpp"
#include "convert/convert.hpp"
#include "decomp/box_partition.hpp"

namespace esmio::datapath {

namespace {

constexpr int64_t kLeastPiece = int64_t(1) << 20;  // bytes per round, whatever the cache size

}  // namespace

std::vector<int> unwritten_variables(const FileState &file) {
  std::vector<int> varids;
  if (!file.writable || file.define_mode) return varids;
  for (std::size_t v = 0; v < file.vars.size(); ++v) {
    const Variable &var = file.vars[v];
    // filled_below is 1 for a variable found in a file opened for writing: its data, if any,
    // is older than this handle.
    if (!var.record && var.filled_below == 0 && !var.holes_filled.contains(0) && !var.vara_written)
      varids.push_back(static_cast<int>(v));
  }
  return varids;
}

Status fill_unwritten(Group &group, FileState *file, const std::vector<int> &varids) {
  if (varids.empty()) return Status::ok();
  Status status;
  if (file->backend) {
    int ntasks = 1, task = 0;
    MPI_Comm_size(file->backend_comm, &ntasks);
    MPI_Comm_rank(file->backend_comm, &task);
    const int64_t piece_bytes = std::max(file->cache_spec.size, kLeastPiece);
    std::vector<unsigned char> fill;
    for (int varid : varids) {
      const Variable &var = file->vars[varid];
      const int64_t n = decomp::shape_size(var.shape);  // 1 for a scalar
      const int64_t esize = static_cast<int64_t>(type_size(var.type));
      const int64_t piece = std::max<int64_t>(1, piece_bytes / esize);
      // Task t's share is [t n / T, (t+1) n / T); every task makes as many rounds as the
      // largest share needs (the backend's writes are collective), some with nothing to write.
      const int64_t begin = task * n / ntasks, end = (task + 1) * n / ntasks;
      const int64_t largest = (n + ntasks - 1) / ntasks;
      const int64_t rounds = (largest + piece - 1) / piece;
      const int64_t held = std::min(piece, end - begin);
      fill.resize(static_cast<std::size_t>(std::max<int64_t>(held, 0) * esize));
      if (held > 0)
        convert::fill_runs(fill.data(), {Run{0, held}}, var.fill.data(), var.fill.size());
      for (int64_t r = 0; r < rounds; ++r) {
        backend::Backend::ExtentRequest request{varid, 0, false, &var.shape, var.type, {}};
        const int64_t at = begin + r * piece, length = std::min(piece, end - at);
        if (length > 0) request.stretches.push_back({at, length, fill.data()});
        const Status written = file->backend->put_extents({request});
        if (status.is_ok()) status = written;
      }
      // Agreed over the tasks before the next variable's rounds, which a failed task would
      // otherwise leave the others waiting in.
      status = agree(file->backend_comm, status);
      if (!status.is_ok()) break;
    }
  }
  status = agree(group.comm, status);
  if (status.is_ok()) return status;
  return Status(status.code(), "esmio_close: " + where(*file) +
                                   ": writing the fill value of the variables no call wrote (" +
                                   variable_names(*file, varids) + "): " + status.message());
}

std::string variable_names(const FileState &file, const std::vector<int> &varids) {
  std::string names;
  for (int varid : varids) names += (names.empty() ? "'" : ", '") + file.vars[varid].name + "'";
  return names;
}

}  // namespace esmio::datapath
