// Decompositions: created from offsets, from a block, or from a file; the rearrangement plan
// for the instance's I/O layout is built at creation, so every error in the map surfaces there.
#include <cstring>
#include <string>

#include "api/handles.hpp"
#include "common/agree.hpp"
#include "common/digest.hpp"
#include "datapath/describe.hpp"
#include "decomp/box_partition.hpp"
#include "decomp/decomp_files.hpp"
#include "decomp/decomposition.hpp"

namespace esmio::api {

Status check_dims(const char *what, int ndims, const int64_t *dims) {
  if (ndims < 0)
    return Status(ESMIO_EINVAL,
                  std::string(what) + ": negative number of dimensions " + std::to_string(ndims));
  if (ndims > ESMIO_MAX_DIMS)
    return Status(ESMIO_EMAXDIMS, std::string(what) + ": " + std::to_string(ndims) +
                                      " dimensions (at most " + std::to_string(ESMIO_MAX_DIMS) +
                                      ")");
  if (ndims > 0 && dims == nullptr) return Status(ESMIO_EINVAL, std::string(what) + ": null dims");
  for (int d = 0; d < ndims; ++d)
    if (dims[d] < 0)
      return Status(ESMIO_EINVAL, std::string(what) + ": dimension " + std::to_string(d) +
                                      " has negative length " + std::to_string(dims[d]));
  return Status::ok();
}

// The global shape as the caller passed it, wherever it can be read: compared across ranks even
// when this rank's own checks (its offsets, its block) failed, so that its error, not a
// disagreement over the shape, is what every rank gets.
std::vector<int64_t> shape_of(int ndims, const int64_t *dims) {
  if (ndims <= 0 || ndims > ESMIO_MAX_DIMS || dims == nullptr) return {};
  return std::vector<int64_t>(dims, dims + ndims);
}

// Agrees on the local checks, builds the plan, hands out the handle.
Status finish_decomp(esmio_instance *io, const char *what, Status local, std::vector<int64_t> dims,
                     decomp::LocalMap map, esmio_decomp_t *out) {
  trace::Scope scope(trace::Counter::plan, &io->group.counters);
  // Every rank must describe the same global shape: a plan built over different shapes would
  // send elements to places that do not exist.
  ESMIO_RETURN_IF_ERROR(agree_call(
      io->group.comm, local, Digest("decomposition").add(dims).value(),
      [&] { return encode(datapath::checked(datapath::decomp_call(what, dims), local)); }));
  auto decomp = std::make_unique<esmio_decomp>();
  decomp->io = io;
  decomp->serial = io->next_decomp_serial;
  decomp->dims = std::move(dims);
  decomp->map = std::move(map);
  ESMIO_RETURN_IF_ERROR(io->engine->create_decomp(decomp.get()));
  ++io->next_decomp_serial;
  ++io->open_decomps;
  *out = publish(decomp.release());
  return Status::ok();
}

}  // namespace esmio::api

using esmio::Status;
using esmio::api::guarded;

extern "C" {

int esmio_decomp_create(esmio_t io_handle, int ndims, const int64_t *dims, int64_t nlocal,
                        const int64_t *offsets, esmio_decomp_t *out) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_decomp_create", &io));
    if (out == nullptr) return Status(ESMIO_EINVAL, "esmio_decomp_create: null handle pointer");
    *out = nullptr;
    Status local = esmio::api::check_dims("esmio_decomp_create", ndims, dims);
    if (local.is_ok() && (nlocal < 0 || (nlocal > 0 && offsets == nullptr)))
      local = Status(ESMIO_EINVAL, "esmio_decomp_create: rank " + std::to_string(io->group.rank) +
                                       ": negative count or null offsets");
    std::vector<int64_t> d = esmio::api::shape_of(ndims, dims);
    esmio::decomp::LocalMap map;
    if (local.is_ok()) {
      local = esmio::decomp::check_offsets_in_range(offsets, nlocal, esmio::decomp::shape_size(d),
                                                    io->group.rank);
    }
    if (local.is_ok()) map = esmio::decomp::compress_offsets(offsets, nlocal);
    return esmio::api::finish_decomp(io, "esmio_decomp_create", local, std::move(d), std::move(map),
                                     out);
  });
}

int esmio_decomp_create_block(esmio_t io_handle, int ndims, const int64_t *dims,
                              const int64_t *start, const int64_t *count, const int *mem_order,
                              esmio_decomp_t *out) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_decomp_create_block", &io));
    if (out == nullptr)
      return Status(ESMIO_EINVAL, "esmio_decomp_create_block: null handle pointer");
    *out = nullptr;
    Status local = esmio::api::check_dims("esmio_decomp_create_block", ndims, dims);
    if (local.is_ok() && ndims > 0 && (start == nullptr || count == nullptr))
      local = Status(ESMIO_EINVAL, "esmio_decomp_create_block: null start or count");
    std::vector<int64_t> d = esmio::api::shape_of(ndims, dims);
    esmio::decomp::LocalMap map;
    if (local.is_ok()) {
      std::vector<int> order;
      if (mem_order) order.assign(mem_order, mem_order + ndims);
      local = esmio::decomp::block_map(d, std::vector<int64_t>(start, start + ndims),
                                       std::vector<int64_t>(count, count + ndims), order, &map);
      if (!local.is_ok())
        local = Status(local.code(), "esmio_decomp_create_block: rank " +
                                         std::to_string(io->group.rank) + ": " + local.message());
    }
    return esmio::api::finish_decomp(io, "esmio_decomp_create_block", local, std::move(d),
                                     std::move(map), out);
  });
}

int esmio_decomp_load(esmio_t io_handle, const char *path, const char *format,
                      esmio_decomp_t *out) {
  return guarded([&] {
    esmio_instance *io = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(io_handle, "esmio_decomp_load", &io));
    if (out == nullptr) return Status(ESMIO_EINVAL, "esmio_decomp_load: null handle pointer");
    *out = nullptr;
    Status local;
    if (path == nullptr || format == nullptr)
      local = Status(ESMIO_EINVAL, "esmio_decomp_load: null path or format");
    // Collective: the cause of a damaged map reaches every rank, not only the one that read it.
    esmio::decomp::LoadedDecomp loaded;
    ESMIO_RETURN_IF_ERROR(esmio::decomp::load_decomp_file(io->group.comm, path ? path : "",
                                                          format ? format : "", &loaded, local));
    if (local.is_ok())
      local = esmio::decomp::check_offsets_in_range(
          loaded.offsets.data(), static_cast<int64_t>(loaded.offsets.size()),
          esmio::decomp::shape_size(loaded.dims), io->group.rank);
    esmio::decomp::LocalMap map;
    if (local.is_ok())
      map = esmio::decomp::compress_offsets(loaded.offsets.data(),
                                            static_cast<int64_t>(loaded.offsets.size()));
    return esmio::api::finish_decomp(io, "esmio_decomp_load", local, std::move(loaded.dims),
                                     std::move(map), out);
  });
}

int esmio_decomp_save(esmio_decomp_t decomp_handle, const char *path, const char *format) {
  return guarded([&] {
    esmio_decomp *decomp = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(decomp_handle, "esmio_decomp_save", &decomp));
    Status local;
    if (path == nullptr || format == nullptr)
      local = Status(ESMIO_EINVAL, "esmio_decomp_save: null path or format");
    const std::string where = path ? path : "", how = format ? format : "";
    ESMIO_RETURN_IF_ERROR(esmio::agree_call(
        decomp->io->group.comm, local,
        esmio::Digest("esmio_decomp_save").add(where).add(how).add(decomp->serial).value(), [&] {
          esmio::CallWords call{"esmio_decomp_save",
                                "saves",
                                {{"decomposition", "#" + std::to_string(decomp->serial)},
                                 {"path", esmio::datapath::quoted(where)},
                                 {"format", esmio::datapath::quoted(how)}},
                                ""};
          return esmio::encode(esmio::datapath::checked(call, local));
        }));
    std::vector<int64_t> offsets(decomp->map.nlocal);
    esmio::decomp::expand_offsets(decomp->map, offsets.data());
    return esmio::decomp::save_decomp_file(decomp->io->group.comm, path, format, decomp->dims,
                                           offsets.data(), decomp->map.nlocal);
  });
}

int esmio_decomp_inq_offsets(esmio_decomp_t decomp_handle, int64_t *offsets, int64_t len) {
  return guarded([&] {
    esmio_decomp *decomp = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(decomp_handle, "esmio_decomp_inq_offsets", &decomp));
    const int64_t n = decomp->map.nlocal;
    if (len < n || (n > 0 && offsets == nullptr))
      return Status(ESMIO_EBUFSIZE, "esmio_decomp_inq_offsets: buffer of " + std::to_string(len) +
                                        " for " + std::to_string(n) + " offsets");
    esmio::decomp::expand_offsets(decomp->map, offsets);
    return Status::ok();
  });
}

int esmio_decomp_inq(esmio_decomp_t decomp_handle, int *ndims, int64_t *dims, int64_t *nlocal) {
  return guarded([&] {
    esmio_decomp *decomp = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(decomp_handle, "esmio_decomp_inq", &decomp));
    if (ndims) *ndims = static_cast<int>(decomp->dims.size());
    if (dims)
      for (std::size_t i = 0; i < decomp->dims.size(); ++i) dims[i] = decomp->dims[i];
    if (nlocal) *nlocal = decomp->map.nlocal;
    return Status::ok();
  });
}

int esmio_decomp_free(esmio_decomp_t *handle) {
  return guarded([&] {
    if (handle == nullptr)
      return Status(ESMIO_EBADID, "esmio_decomp_free: null decomposition pointer");
    esmio_decomp *decomp = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(*handle, "esmio_decomp_free", &decomp));
    --decomp->io->open_decomps;
    decomp->io->engine->free_decomp(*decomp);
    esmio::api::retire(*handle);
    delete decomp;
    *handle = nullptr;
    return Status::ok();
  });
}

}  // extern "C"
