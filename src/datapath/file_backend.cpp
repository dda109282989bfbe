#include "datapath/file_backend.hpp"

#include <utility>
#include <vector>

#include "trace/traced_backend.hpp"

namespace esmio::datapath {

Status make_file_backend(Group &group, FileState *file, const FileSetup &setup,
                         std::unique_ptr<backend::Backend> *out) {
  std::unique_ptr<backend::Backend> made;
  ESMIO_RETURN_IF_ERROR(backend::make_backend(setup.backend, &made));
  file->capabilities = made->capabilities();
  made = trace::traced(std::move(made), &file->counters, &group.counters);
  // A backend that makes one collective call per request gets merged requests; one that writes
  // dense slabs straight to the file gets whole slabs.
  file->cache.set_merge(file->capabilities.merges_requests);
  file->cache.set_dense(file->capabilities.direct_dense_writes && setup.direct_write);
  std::vector<int> io_ranks;
  for (int t = 0; t < group.layout.ntasks(); ++t) io_ranks.push_back(group.layout.io_rank(t));
  file->cache.set_io_tasks(io_ranks, group.task);
  file->gather_to_root = file->capabilities.gathers_to_root;
  *out = std::move(made);
  return Status::ok();
}

}  // namespace esmio::datapath
