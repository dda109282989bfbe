// Inquiry: dimensions, variables and records from the definitions every rank mirrors (local,
// no communication), and attributes, which the backend holds (collective: read where the file
// is held and broadcast).
#include <cstring>
#include <string>
#include <vector>

#include "api/handles.hpp"
#include "common/agree.hpp"
#include "common/digest.hpp"
#include "common/types.hpp"

using esmio::Status;
using esmio::api::check_name;
using esmio::api::check_varid;
using esmio::api::guarded;
using esmio::api::where;

namespace {

// Copies name with its NUL into buf of buflen bytes; the message of a short buffer names it.
Status copy_name(const std::string &name, char *buf, int64_t buflen, const char *what) {
  return esmio::api::copy_text((std::string(what) + " of '" + name + "'").c_str(), name, buf,
                               buflen);
}

// Every rank gets the names of varid's attributes: read where the file is held, broadcast as
// one block of NUL-terminated names. Collective; the call's arguments are agreed first.
// attnum is part of the agreement only (-1 for esmio_inq_natts).
Status attribute_names(esmio_file *file, int varid, int attnum, const char *what, Status local,
                       std::vector<std::string> *names) {
  ESMIO_RETURN_IF_ERROR(esmio::agree_call(
      file->io->group.comm, local,
      esmio::Digest(what).add(int64_t(varid)).add(int64_t(attnum)).value(), [&] {
        return std::string(what) + "(varid " + std::to_string(varid) + ") on " + where(file);
      }));
  if (esmio::api::remote(file)) {
    const esmio::async::Packer args = esmio::async::AttNamesArgs{varid}.encode();
    std::vector<char> reply;
    std::optional<esmio::async::Unpacker> results;
    ESMIO_RETURN_IF_ERROR(
        esmio::api::forward_and_wait(file, esmio::async::Op::att_names, args, &reply, &results));
    names->clear();
    const int64_t n = results->i64();
    for (int64_t i = 0; i < n && results->ok(); ++i) names->push_back(results->str());
    return Status::ok();
  }
  Status status;
  std::string block;
  if (file->backend) {
    status = file->backend->inq_att_names(varid, names);
    for (const auto &n : *names) block.append(n).push_back('\0');
  }
  ESMIO_RETURN_IF_ERROR(esmio::agree(file->io->group.comm, status));
  int64_t size = static_cast<int64_t>(block.size());
  MPI_Bcast(&size, 1, MPI_INT64_T, file->backend_root, file->io->group.comm);
  block.resize(static_cast<std::size_t>(size));
  MPI_Bcast(block.data(), static_cast<int>(size), MPI_CHAR, file->backend_root,
            file->io->group.comm);
  names->clear();
  for (std::size_t at = 0; at < block.size();) {
    const std::size_t end = block.find('\0', at);
    names->push_back(block.substr(at, end - at));
    at = end + 1;
  }
  return Status::ok();
}

}  // namespace

extern "C" {

int esmio_inq_ndims(esmio_file_t file_handle, int *ndims) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_ndims", &file));
    if (ndims) *ndims = static_cast<int>(file->dims.size());
    return Status::ok();
  });
}

int esmio_inq_unlimdim(esmio_file_t file_handle, int *dimid) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_unlimdim", &file));
    int found = -1;
    for (std::size_t i = 0; i < file->dims.size() && found < 0; ++i)
      if (file->dims[i].unlimited) found = static_cast<int>(i);
    if (dimid) *dimid = found;
    return Status::ok();
  });
}

int esmio_inq_dimname(esmio_file_t file_handle, int dimid, char *name, int64_t buflen) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_dimname", &file));
    if (dimid < 0 || dimid >= static_cast<int>(file->dims.size()))
      return Status(ESMIO_EBADID, "esmio_inq_dimname: no dimension with id " +
                                      std::to_string(dimid) + " in " + where(file));
    return copy_name(file->dims[dimid].name, name, buflen, "esmio_inq_dimname");
  });
}

int esmio_inq_varname(esmio_file_t file_handle, int varid, char *name, int64_t buflen) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_varname", &file));
    ESMIO_RETURN_IF_ERROR(check_varid(file, varid, "esmio_inq_varname", false));
    return copy_name(file->vars[varid].name, name, buflen, "esmio_inq_varname");
  });
}

int esmio_inq_natts(esmio_file_t file_handle, int varid, int *natts) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_natts", &file));
    std::vector<std::string> names;
    ESMIO_RETURN_IF_ERROR(attribute_names(file, varid, -1, "esmio_inq_natts",
                                          check_varid(file, varid, "esmio_inq_natts", true),
                                          &names));
    if (natts) *natts = static_cast<int>(names.size());
    return Status::ok();
  });
}

int esmio_inq_attname(esmio_file_t file_handle, int varid, int attnum, char *name, int64_t buflen) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_attname", &file));
    std::vector<std::string> names;
    ESMIO_RETURN_IF_ERROR(attribute_names(file, varid, attnum, "esmio_inq_attname",
                                          check_varid(file, varid, "esmio_inq_attname", true),
                                          &names));
    // A buffer too short on one rank fails the call on every rank.
    Status local;
    if (attnum < 0 || attnum >= static_cast<int>(names.size()))
      local = Status(ESMIO_ENOTATT, "esmio_inq_attname: no attribute number " +
                                        std::to_string(attnum) + " of " + where(file, varid) +
                                        " (it has " + std::to_string(names.size()) + ")");
    else
      local = copy_name(names[attnum], name, buflen, "esmio_inq_attname");
    return esmio::agree(file->io->group.comm, local);
  });
}

int esmio_inq_dimid(esmio_file_t file_handle, const char *name, int *dimid) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_dimid", &file));
    ESMIO_RETURN_IF_ERROR(check_name("esmio_inq_dimid", name));
    for (std::size_t i = 0; i < file->dims.size(); ++i)
      if (file->dims[i].name == name) {
        if (dimid) *dimid = static_cast<int>(i);
        return Status::ok();
      }
    return Status(ESMIO_ENOTDIM,
                  "esmio_inq_dimid: no dimension '" + std::string(name) + "' in " + where(file));
  });
}

int esmio_inq_dimlen(esmio_file_t file_handle, int dimid, int64_t *len) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_dimlen", &file));
    if (dimid < 0 || dimid >= static_cast<int>(file->dims.size()))
      return Status(ESMIO_EBADID, "esmio_inq_dimlen: no dimension with id " +
                                      std::to_string(dimid) + " in " + where(file));
    if (len) *len = file->dims[dimid].unlimited ? file->nrecords : file->dims[dimid].len;
    return Status::ok();
  });
}

int esmio_inq_varid(esmio_file_t file_handle, const char *name, int *varid) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_varid", &file));
    ESMIO_RETURN_IF_ERROR(check_name("esmio_inq_varid", name));
    for (std::size_t i = 0; i < file->vars.size(); ++i)
      if (file->vars[i].name == name) {
        if (varid) *varid = static_cast<int>(i);
        return Status::ok();
      }
    return Status(ESMIO_ENOTVAR,
                  "esmio_inq_varid: no variable '" + std::string(name) + "' in " + where(file));
  });
}

int esmio_inq_var(esmio_file_t file_handle, int varid, esmio_type *type, int *ndims, int *dimids) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_var", &file));
    ESMIO_RETURN_IF_ERROR(check_varid(file, varid, "esmio_inq_var", false));
    const auto &v = file->vars[varid];
    if (type) *type = v.type;
    if (ndims) *ndims = static_cast<int>(v.dimids.size());
    if (dimids)
      for (std::size_t i = 0; i < v.dimids.size(); ++i) dimids[i] = v.dimids[i];
    return Status::ok();
  });
}

int esmio_inq_nvars(esmio_file_t file_handle, int *nvars) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_nvars", &file));
    if (nvars) *nvars = static_cast<int>(file->vars.size());
    return Status::ok();
  });
}

int esmio_inq_nrecords(esmio_file_t file_handle, int64_t *nrecords) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_nrecords", &file));
    if (nrecords) *nrecords = file->nrecords;
    return Status::ok();
  });
}

int esmio_inq_att(esmio_file_t file_handle, int varid, const char *name, esmio_type *type,
                  int64_t *len) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_inq_att", &file));
    Status local = check_varid(file, varid, "esmio_inq_att", true);
    if (local.is_ok()) local = check_name("esmio_inq_att", name);
    const std::string att = name ? name : "";
    ESMIO_RETURN_IF_ERROR(
        esmio::agree_call(file->io->group.comm, local,
                          esmio::Digest("esmio_inq_att").add(int64_t(varid)).add(att).value(), [&] {
                            return "esmio_inq_att(varid " + std::to_string(varid) + ", '" + att +
                                   "') on " + where(file);
                          }));
    if (esmio::api::remote(file)) {
      const esmio::async::Packer args = esmio::async::InqAttArgs{varid, att}.encode();
      std::vector<char> reply;
      std::optional<esmio::async::Unpacker> results;
      ESMIO_RETURN_IF_ERROR(
          esmio::api::forward_and_wait(file, esmio::async::Op::inq_att, args, &reply, &results));
      const auto t = static_cast<esmio_type>(results->i64());
      const int64_t n = results->i64();
      if (type) *type = t;
      if (len) *len = n;
      return Status::ok();
    }
    int64_t info[2] = {0, 0};
    Status status;
    if (file->backend) {
      esmio_type t = ESMIO_BYTE;
      status = file->backend->inq_att(varid, name, &t, &info[1]);
      info[0] = t;
    }
    ESMIO_RETURN_IF_ERROR(esmio::agree(file->io->group.comm, status));
    MPI_Bcast(info, 2, MPI_INT64_T, file->backend_root, file->io->group.comm);
    if (type) *type = static_cast<esmio_type>(info[0]);
    if (len) *len = info[1];
    return Status::ok();
  });
}

int esmio_get_att(esmio_file_t file_handle, int varid, const char *name, esmio_type memtype,
                  int64_t len, void *values) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(file_handle, "esmio_get_att", &file));
    Status local = check_varid(file, varid, "esmio_get_att", true);
    if (local.is_ok()) local = check_name("esmio_get_att", name);
    if (local.is_ok() && !esmio::type_is_known(memtype))
      local = Status(ESMIO_EBADTYPE, "esmio_get_att: unknown type " + std::to_string(memtype));
    if (local.is_ok() && (len < 0 || (len > 0 && values == nullptr)))
      local = Status(ESMIO_EINVAL, "esmio_get_att: negative length or null values");
    const std::string att = name ? name : "";
    ESMIO_RETURN_IF_ERROR(esmio::agree_call(file->io->group.comm, local,
                                            esmio::Digest("esmio_get_att")
                                                .add(int64_t(varid))
                                                .add(att)
                                                .add(int64_t(memtype))
                                                .add(len)
                                                .value(),
                                            [&] {
                                              return "esmio_get_att(varid " +
                                                     std::to_string(varid) + ", '" + att + "', " +
                                                     esmio::type_name(memtype) + ", " +
                                                     std::to_string(len) + " values) on " +
                                                     where(file);
                                            }));
    if (esmio::api::remote(file)) {
      const esmio::async::Packer args = esmio::async::GetAttArgs{varid, att, memtype, len}.encode();
      std::vector<char> reply;
      std::optional<esmio::async::Unpacker> results;
      ESMIO_RETURN_IF_ERROR(
          esmio::api::forward_and_wait(file, esmio::async::Op::get_att, args, &reply, &results));
      std::size_t bytes = 0;
      const char *got = results->bytes(&bytes);
      if (bytes != static_cast<std::size_t>(len) * esmio::type_size(memtype))
        return Status(ESMIO_EMPI,
                      "esmio_get_att: the I/O server sent " + std::to_string(bytes) + " bytes");
      if (bytes > 0) std::memcpy(values, got, bytes);
      return Status::ok();
    }
    Status status;
    if (file->backend) {
      esmio_type t = ESMIO_BYTE;
      int64_t n = 0;
      status = file->backend->inq_att(varid, name, &t, &n);
      if (status.is_ok() && n != len)
        status = Status(ESMIO_EINVAL, "esmio_get_att: attribute '" + std::string(name) + "' of " +
                                          where(file, varid) + " has " + std::to_string(n) +
                                          " values, the buffer " + std::to_string(len));
      if (status.is_ok() && n > 0) status = file->backend->get_att(varid, name, memtype, values);
    }
    ESMIO_RETURN_IF_ERROR(esmio::agree(file->io->group.comm, status));
    const int64_t bytes = len * static_cast<int64_t>(esmio::type_size(memtype));
    if (bytes > 0)
      MPI_Bcast(values, static_cast<int>(bytes), MPI_BYTE, file->backend_root,
                file->io->group.comm);
    return Status::ok();
  });
}

}  // extern "C"
