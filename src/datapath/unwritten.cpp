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

Status fill_extent(FileState *file, int varid, int64_t record) {
  if (!file->backend) return Status::ok();
  int ntasks = 1, task = 0;
  MPI_Comm_size(file->backend_comm, &ntasks);
  MPI_Comm_rank(file->backend_comm, &task);
  const Variable &var = file->vars[varid];
  const int64_t piece_bytes = std::max(file->cache_spec.size, kLeastPiece);
  const int64_t n = decomp::shape_size(var.shape);  // 1 for a scalar
  const int64_t esize = static_cast<int64_t>(type_size(var.type));
  const int64_t piece = std::max<int64_t>(1, piece_bytes / esize);
  // Task t's share is [t n / T, (t+1) n / T); every task makes as many rounds as the largest
  // share needs (the backend's writes are collective), some with nothing to write.
  const int64_t begin = task * n / ntasks, end = (task + 1) * n / ntasks;
  const int64_t largest = (n + ntasks - 1) / ntasks;
  const int64_t rounds = (largest + piece - 1) / piece;
  const int64_t held = std::min(piece, end - begin);
  std::vector<unsigned char> fill(static_cast<std::size_t>(std::max<int64_t>(held, 0) * esize));
  if (held > 0) convert::fill_runs(fill.data(), {Run{0, held}}, var.fill.data(), var.fill.size());
  Status status;
  for (int64_t r = 0; r < rounds; ++r) {
    backend::Backend::ExtentRequest request{
        varid, var.record ? record : 0, var.record, &var.shape, var.type, {}};
    const int64_t at = begin + r * piece, length = std::min(piece, end - at);
    if (length > 0) request.stretches.push_back({at, length, fill.data()});
    const Status written = file->backend->put_extents({request});
    if (status.is_ok()) status = written;
  }
  // Agreed over the tasks: a failed task would otherwise leave the others waiting in the next
  // collective write, and a write that follows (put_vara's own) lands after every task's fill.
  return agree(file->backend_comm, status);
}

Status fill_unwritten(Group &group, FileState *file, const std::vector<int> &varids) {
  if (varids.empty()) return Status::ok();
  Status status;
  for (int varid : varids) {
    status = fill_extent(file, varid, 0);
    if (!status.is_ok()) break;
  }
  status = agree(group.comm, status);
  if (status.is_ok()) return status;
  return Status(status.code(), "esmio_close: " + where(*file) +
                                   ": writing the fill value of the variables no call wrote (" +
                                   variable_names(*file, varids) + "): " + status.message());
}

std::vector<int64_t> fill_before_slice(const Variable &var, const int64_t *start,
                                       const int64_t *count) {
  // The slice's extent beyond the record dimension: the whole record (or variable)?
  const std::size_t first = var.record ? 1 : 0;
  bool whole = true;
  for (std::size_t d = first; d < first + var.shape.size(); ++d)
    whole = whole && start[d] == 0 && count[d] == var.shape[d - first];
  std::vector<int64_t> records;
  if (whole) return records;
  if (!var.record) {
    // Defined by this handle and written by no call so far.
    if (var.filled_below == 0 && !var.holes_filled.contains(0) && !var.vara_written)
      records.push_back(0);
    return records;
  }
  for (int64_t r = start[0]; r < start[0] + count[0]; ++r)
    if (r >= var.filled_below && !var.holes_filled.contains(r)) records.push_back(r);
  return records;
}

std::string variable_names(const FileState &file, const std::vector<int> &varids) {
  std::string names;
  for (int varid : varids) names += (names.empty() ? "'" : ", '") + file.vars[varid].name + "'";
  return names;
}

}  // namespace esmio::datapath
