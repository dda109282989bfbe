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
#include "datapath/describe.hpp"

using esmio::Status;
using esmio::api::check_name;
using esmio::api::check_varid;
using esmio::api::guarded;
using esmio::api::where;

namespace {

// An attribute inquiry in words, for a mismatch: where, which attribute (null: all of them),
// and for esmio_get_att the memory type and length asked for.
// attnum: esmio_inq_attname's attribute number (-1: none).
std::string inquiry_words(const esmio_file *file, const char *what, int varid, const Status &local,
                          const std::string *name, const esmio_type *memtype = nullptr,
                          const int64_t *len = nullptr, int attnum = -1) {
  const bool known = varid >= 0 && varid < static_cast<int>(file->vars.size());
  esmio::CallWords call = esmio::datapath::att_inquiry_call(
      what, file->path,
      esmio::datapath::variable_text(varid, known ? &file->vars[varid].name : nullptr), name,
      memtype, len);
  if (attnum >= 0) call.args.emplace_back("attribute number", std::to_string(attnum));
  return esmio::encode(esmio::datapath::checked(call, local));
}

// Copies name with its NUL into buf of buflen bytes; the message of a short buffer names it.
Status copy_name(const std::string &name, char *buf, int64_t buflen, const char *what) {
  return esmio::api::copy_text((std::string(what) + " of '" + name + "'").c_str(), name, buf,
                               buflen);
}

// Every rank gets the names of varid's attributes from the file's engine. Collective; the
// call's arguments are agreed first.
// attnum is part of the agreement only (-1 for esmio_inq_natts).
Status attribute_names(esmio_file *file, int varid, int attnum, const char *what, Status local,
                       std::vector<std::string> *names) {
  ESMIO_RETURN_IF_ERROR(esmio::agree_call(
      file->io->group.comm, local,
      esmio::Digest(what).add(file->path).add(int64_t(varid)).add(int64_t(attnum)).value(),
      [&] { return inquiry_words(file, what, varid, local, nullptr, nullptr, nullptr, attnum); }));
  return file->engine->att_names(varid, names);
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
    if (const int id = esmio::datapath::dim_id(*file, name); id >= 0) {
      if (dimid) *dimid = id;
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
    if (const int id = esmio::datapath::var_id(*file, name); id >= 0) {
      if (varid) *varid = id;
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
    ESMIO_RETURN_IF_ERROR(esmio::agree_call(
        file->io->group.comm, local,
        esmio::Digest("esmio_inq_att").add(file->path).add(int64_t(varid)).add(att).value(),
        [&] { return inquiry_words(file, "esmio_inq_att", varid, local, &att); }));
    return file->engine->inq_att(varid, att, type, len);
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
    ESMIO_RETURN_IF_ERROR(esmio::agree_call(
        file->io->group.comm, local,
        esmio::Digest("esmio_get_att")
            .add(file->path)
            .add(int64_t(varid))
            .add(att)
            .add(int64_t(memtype))
            .add(len)
            .value(),
        [&] { return inquiry_words(file, "esmio_get_att", varid, local, &att, &memtype, &len); }));
    return file->engine->get_att(varid, att, memtype, len, values);
  });
}

}  // extern "C"
