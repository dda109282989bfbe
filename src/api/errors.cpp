#include <cstring>
#include <string>

#include "api/handles.hpp"
#include "common/netcdf_name.hpp"

namespace esmio::api {
namespace {
thread_local std::string last_error;
}

int finish(const Status &status) {
  last_error = status.message();
  return status.code();
}

const char *last_error_message() { return last_error.c_str(); }

std::string where(const esmio_file *file, int varid) { return datapath::where(*file, varid); }

Status check_name(const char *what, const char *name) {
  if (name == nullptr || name[0] == '\0')
    return Status(ESMIO_EINVAL, std::string(what) + ": empty or null name");
  if (std::strlen(name) >= ESMIO_MAX_NAME)
    return Status(ESMIO_EINVAL, std::string(what) + ": name longer than " +
                                    std::to_string(ESMIO_MAX_NAME - 1) + " characters");
  return Status::ok();
}

Status check_new_name(const char *what, const char *name) {
  ESMIO_RETURN_IF_ERROR(check_name(what, name));
  const std::string fault = netcdf_name_fault(name);
  if (fault.empty()) return Status::ok();
  // The name as given, its bytes outside printable ASCII written as \xNN.
  std::string shown;
  for (const char *c = name; *c != '\0'; ++c) {
    const auto byte = static_cast<unsigned char>(*c);
    if (byte >= 0x20 && byte < 0x7F) {
      shown += *c;
    } else {
      static const char hex[] = "0123456789ABCDEF";
      shown += std::string("\\x") + hex[byte >> 4] + hex[byte & 15];
    }
  }
  return Status(ESMIO_EINVAL,
                std::string(what) + ": '" + shown + "' is not a netCDF name: " + fault);
}

Status check_varid(const esmio_file *file, int varid, const char *what, bool allow_global) {
  if (allow_global && varid == ESMIO_GLOBAL) return Status::ok();
  if (varid < 0 || varid >= static_cast<int>(file->vars.size()))
    return Status(ESMIO_EBADID, std::string(what) + ": no variable with id " +
                                    std::to_string(varid) + " in " + where(file));
  return Status::ok();
}

}  // namespace esmio::api

extern "C" {

const char *esmio_last_error(void) { return esmio::api::last_error_message(); }

const char *esmio_version(void) { return ESMIO_VERSION_STRING; }

const char *esmio_strerror(int code) {
  switch (code) {
    case ESMIO_NOERR:
      return "no error";
    case ESMIO_EINVAL:
      return "invalid argument";
    case ESMIO_ENOMEM:
      return "out of memory";
    case ESMIO_EBADID:
      return "bad handle, dimension id or variable id";
    case ESMIO_ENOTVAR:
      return "no such variable";
    case ESMIO_ENOTDIM:
      return "no such dimension";
    case ESMIO_EINDEFINE:
      return "operation not allowed in define mode (call esmio_enddef first)";
    case ESMIO_ENOTINDEFINE:
      return "operation not allowed in data mode (call esmio_redef first)";
    case ESMIO_ERANGE:
      return "values out of range of the target type (written as fill value)";
    case ESMIO_EBADTYPE:
      return "unknown type or no conversion between the types";
    case ESMIO_EDECOMP:
      return "bad decomposition (offset out of range or duplicated)";
    case ESMIO_ESHAPE:
      return "decomposition does not match the variable's shape";
    case ESMIO_EBUFSIZE:
      return "buffer shorter than the local part of the decomposition";
    case ESMIO_ERECORD:
      return "bad record index";
    case ESMIO_EMISMATCH:
      return "ranks passed different arguments to a collective call, or called different ones";
    case ESMIO_ECORRUPT:
      return "the file is truncated or corrupt (shorter than its header says)";
    case ESMIO_EIO:
      return "file system error";
    case ESMIO_ENOTNC:
      return "not a netCDF file";
    case ESMIO_EBACKEND:
      return "storage library error";
    case ESMIO_EBADNAME:
      return "unknown name";
    case ESMIO_ENOTBUILT:
      return "backend not built into this library";
    case ESMIO_ESETTING:
      return "bad setting value";
    case ESMIO_EMPI:
      return "MPI error";
    case ESMIO_EPERM:
      return "file not opened for writing";
    case ESMIO_EEXIST:
      return "file exists";
    case ESMIO_ENAMEINUSE:
      return "name already in use";
    case ESMIO_EMAXDIMS:
      return "too many dimensions";
    case ESMIO_EUNLIMPOS:
      return "the unlimited dimension must be the first, and only one";
    case ESMIO_ENOSPC:
      return "no space left on device (disk full, quota or file-size limit)";
    case ESMIO_ENOTATT:
      return "no attribute of that name";
    case ESMIO_ECHECKSUM:
      return "a staged file's copy does not read back as it was written (checksum mismatch)";
  }
  return "unknown error code";
}

}  // extern "C"
