// The three tables behind the public handles.
#include "api/handles.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>

#include "api/handle_table.hpp"

namespace esmio::api {
namespace {

HandleTable<esmio_instance> &instances() {
  static HandleTable<esmio_instance> table(0xe1);
  return table;
}
HandleTable<esmio_file> &files() {
  static HandleTable<esmio_file> table(0xf1);
  return table;
}
HandleTable<esmio_decomp> &decomps() {
  static HandleTable<esmio_decomp> table(0xd1);
  return table;
}

template <typename T>
Status find(const HandleTable<T> &table, const T *handle, const char *what, const char *kind,
            T **out) {
  *out = nullptr;
  if (handle == nullptr) return Status(ESMIO_EBADID, std::string(what) + ": null " + kind);
  *out = table.find(handle);
  if (*out == nullptr)
    return Status(ESMIO_EBADID, std::string(what) + ": not a live " + kind +
                                    " (already closed or freed, or not an esmio handle of this "
                                    "kind)");
  return Status::ok();
}

}  // namespace

Status check_compute_role(const esmio_instance *io, const char *what) {
  if (io->server)
    return Status(ESMIO_EINVAL, std::string(what) +
                                    ": this rank is an I/O server: its instance only answers "
                                    "esmio_inq_role and esmio_finalize");
  return Status::ok();
}

esmio_t publish(esmio_instance *io) { return instances().add(io); }
esmio_file_t publish(esmio_file *file) { return files().add(file); }
esmio_decomp_t publish(esmio_decomp *decomp) { return decomps().add(decomp); }

Status resolve(esmio_t handle, const char *what, esmio_instance **io) {
  ESMIO_RETURN_IF_ERROR(find(instances(), handle, what, "instance", io));
  // A server's instance answers only what a model's main asks after esmio_init returns there.
  static const char *const server_calls[] = {"esmio_finalize",    "esmio_inq_role",
                                             "esmio_inq_comm",    "esmio_inq_settings",
                                             "esmio_inq_iotasks", "esmio_inq_iolayout"};
  if ((*io)->server && std::none_of(std::begin(server_calls), std::end(server_calls),
                                    [&](const char *c) { return std::strcmp(c, what) == 0; })) {
    const Status refused = check_compute_role(*io, what);
    *io = nullptr;
    return refused;
  }
  return Status::ok();
}
Status resolve(esmio_file_t handle, const char *what, esmio_file **file) {
  return find(files(), handle, what, "file handle", file);
}
Status resolve(esmio_decomp_t handle, const char *what, esmio_decomp **decomp) {
  return find(decomps(), handle, what, "decomposition", decomp);
}

void retire(esmio_t handle) { instances().remove(handle); }
void retire(esmio_file_t handle) { files().remove(handle); }
void retire(esmio_decomp_t handle) { decomps().remove(handle); }

}  // namespace esmio::api
