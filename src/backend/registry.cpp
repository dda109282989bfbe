// The one table of backends, filled explicitly: a static library linked into a Fortran model
// drops object files nobody references, so self-registering backends could vanish silently.
#include <cctype>
#include <memory>
#include <string>

#include "backend/backend.hpp"

// CMake defines these; a plain compiler invocation over src/ builds both, as CMake's does.
#ifndef ESMIO_HAVE_PNETCDF
#define ESMIO_HAVE_PNETCDF 1
#endif
#ifndef ESMIO_HAVE_NETCDF
#define ESMIO_HAVE_NETCDF 1
#endif

#if ESMIO_HAVE_PNETCDF
#include "backend/pnetcdf/pnetcdf_backend.hpp"
#endif
#if ESMIO_HAVE_NETCDF
#include "backend/netcdf4/netcdf4_backend.hpp"
#include "backend/serial/serial_backend.hpp"
#endif

namespace esmio::backend {

namespace {

using Maker = std::unique_ptr<Backend> (*)();

struct Entry {
  const char *name;
  Maker make;    // nullptr: known, but not built into this library
  bool gathers;  // see backend_gathers_to_root()
};

const Entry kBackends[] = {
#if ESMIO_HAVE_PNETCDF
    {"pnetcdf", &make_pnetcdf_backend, false},
#else
    {"pnetcdf", nullptr, false},
#endif
#if ESMIO_HAVE_NETCDF
    {"netcdf4", &make_netcdf4_backend, false},
#else
    {"netcdf4", nullptr, false},
#endif
#if ESMIO_HAVE_NETCDF
    {"serial", &make_serial_backend, true},
#else
    {"serial", nullptr, true},
#endif
};

std::string lower(const std::string &s) {
  std::string out = s;
  for (char &c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const Entry *find(const std::string &name) {
  const std::string key = lower(name);
  for (const Entry &entry : kBackends) {
    if (key == entry.name) return &entry;
  }
  return nullptr;
}

}  // namespace

Status make_backend(const std::string &name, std::unique_ptr<Backend> *out) {
  const Entry *entry = find(name);
  if (entry == nullptr) {
    std::string known;
    for (const Entry &e : kBackends) {
      if (!known.empty()) known += ", ";
      known += e.name;
    }
    return Status(ESMIO_EBADNAME, "unknown backend '" + name + "' (known: " + known + ")");
  }
  if (entry->make == nullptr) {
    return Status(ESMIO_ENOTBUILT,
                  std::string(entry->name) + " backend is not built in this version");
  }
  *out = entry->make();
  return Status::ok();
}

bool backend_gathers_to_root(const std::string &name) {
  const Entry *entry = find(name);
  return entry != nullptr && entry->gathers;
}

Status Backend::def_var_storage(int varid, const VarStorage &storage) {
  if (storage.empty()) return Status::ok();
  return Status(ESMIO_EINVAL, std::string(name()) + " backend: variable " + std::to_string(varid) +
                                  ": chunking and compression need backend netcdf4");
}

Status Backend::limit_records(int64_t) { return Status::ok(); }

int64_t Backend::read_ahead(int, int64_t, const std::vector<Run> &) { return 0; }
void Backend::read_ahead_cancel(int, int64_t) {}

Status Backend::put_requests(const std::vector<PutRequest> &requests) {
  Status status;
  for (const PutRequest &r : requests) {
    const Status s = put_boxes(r.varid, r.boxes, r.buftype, r.buffer);
    if (status.is_ok()) status = s;
  }
  return status;
}

Status Backend::put_extents(const std::vector<ExtentRequest> &requests) {
  std::vector<PutRequest> boxes;
  for (const ExtentRequest &r : requests)
    for (const Stretch &s : r.stretches)
      boxes.push_back(
          {r.varid, record_boxes(*r.shape, r.record_variable, r.record, {Run{s.offset, s.length}}),
           r.buftype, s.values});
  return put_requests(boxes);
}

}  // namespace esmio::backend
