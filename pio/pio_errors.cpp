// Errors: esmio's codes translated into netCDF's (PIO returns netCDF's codes), and PIO's three
// error handlers. esmio's collective calls already return the same code on every task, so
// PIO_BCAST_ERROR and PIO_RETURN_ERROR both just return it.
#include <cstdio>
#include <cstring>

#include "pio_state.hpp"

namespace esmio_pio {

int nc_code(int esmio_code) {
  switch (esmio_code) {
    case ESMIO_NOERR:
      return NC_NOERR;
    case ESMIO_ENOMEM:
      return NC_ENOMEM;
    case ESMIO_EBADID:
      return NC_EBADID;
    case ESMIO_ENOTVAR:
      return NC_ENOTVAR;
    case ESMIO_ENOTDIM:
      return NC_EBADDIM;
    case ESMIO_EINDEFINE:
      return NC_EINDEFINE;
    case ESMIO_ENOTINDEFINE:
      return NC_ENOTINDEFINE;
    case ESMIO_ERANGE:
      return NC_ERANGE;
    case ESMIO_EBADTYPE:
      return NC_EBADTYPE;
    case ESMIO_ESHAPE:
      return NC_EEDGE;
    case ESMIO_ERECORD:
      return NC_EINVALCOORDS;
    case ESMIO_ENOTNC:
      return NC_ENOTNC;
    case ESMIO_ENOTBUILT:
      return NC_ENOTBUILT;
    case ESMIO_EPERM:
      return NC_EPERM;
    case ESMIO_EEXIST:
      return NC_EEXIST;
    case ESMIO_ENAMEINUSE:
      return NC_ENAMEINUSE;
    case ESMIO_EMAXDIMS:
      return NC_EMAXDIMS;
    case ESMIO_EUNLIMPOS:
      return NC_EUNLIMPOS;
    case ESMIO_ECORRUPT:
      return NC_ETRUNC;
    case ESMIO_ENOTATT:
      return NC_ENOTATT;
    case ESMIO_EIO:
    case ESMIO_EBACKEND:
    case ESMIO_EMPI:
    case ESMIO_ENOSPC:
    case ESMIO_ECHECKSUM:
      return NC_EIO;
    default:
      return NC_EINVAL;  // EINVAL, EDECOMP, EBUFSIZE, EBADNAME, ESETTING, EMISMATCH
  }
}

int finish(const IoSystem *ios, int code, const char *call, const std::string &why) {
  if (code == PIO_NOERR) return PIO_NOERR;
  const int handler = ios ? ios->error_handler : default_error_handler();
  if (handler == PIO_INTERNAL_ERROR) {
    char text[PIO_MAX_NAME + 1];
    PIOc_strerror(code, text);
    std::fprintf(stderr, "%s failed: %s (error %d): %s\n", call, text, code, why.c_str());
    std::fflush(stderr);
    MPI_Abort(ios ? ios->comm : MPI_COMM_WORLD, 1);
  }
  return code;
}

int finish_esmio(const IoSystem *ios, int esmio_code, const char *call, int bad_id) {
  if (esmio_code == ESMIO_NOERR) return PIO_NOERR;
  return finish(ios, esmio_code == ESMIO_EBADID ? bad_id : nc_code(esmio_code), call,
                esmio_last_error());
}

}  // namespace esmio_pio

using namespace esmio_pio;

extern "C" int PIOc_strerror(int pioerr, char *errstr) {
  if (!errstr) return PIO_EINVAL;
  const char *text = nullptr;
  switch (pioerr) {
    case PIO_NOERR:
      text = "No error";
      break;
    case PIO_EBADIOTYPE:
      text = "Bad IO type";
      break;
    case PIO_EVARDIMMISMATCH:
      text = "Variable dimensions do not match in a multivar call";
      break;
    case PIO_EBADREARR:
      text = "Rearranger error";
      break;
    case NC_EBADID:
      text = "NetCDF: Not a valid ID";
      break;
    case NC_EINVAL:
      text = "NetCDF: Invalid argument";
      break;
    case NC_ENOMEM:
      text = "NetCDF: Memory allocation (malloc) failure";
      break;
    case NC_ENOTVAR:
      text = "NetCDF: Variable not found";
      break;
    case NC_EBADDIM:
      text = "NetCDF: Invalid dimension ID or name";
      break;
    case NC_ENOTATT:
      text = "NetCDF: Attribute not found";
      break;
    case NC_EINDEFINE:
      text = "NetCDF: Operation not allowed in define mode";
      break;
    case NC_ENOTINDEFINE:
      text = "NetCDF: Operation not allowed in data mode";
      break;
    case NC_ERANGE:
      text = "NetCDF: Numeric conversion not representable";
      break;
    case NC_EBADTYPE:
      text = "NetCDF: Not a valid data type or _FillValue type mismatch";
      break;
    case NC_EEDGE:
      text = "NetCDF: Start+count exceeds dimension bound";
      break;
    case NC_EINVALCOORDS:
      text = "NetCDF: Index exceeds dimension bound";
      break;
    case NC_ENOTNC:
      text = "NetCDF: Unknown file format";
      break;
    case NC_EPERM:
      text = "NetCDF: Write to read only";
      break;
    case NC_EEXIST:
      text = "NetCDF: File exists && NC_NOCLOBBER";
      break;
    case NC_ENAMEINUSE:
      text = "NetCDF: String match to name in use";
      break;
    case NC_EIO:
      text = "NetCDF: I/O failure";
      break;
    case NC_ETRUNC:
      text = "NetCDF: File likely truncated or possibly corrupted";
      break;
    case NC_EMAXDIMS:
      text = "NetCDF: NC_MAX_DIMS exceeded";
      break;
    case NC_EUNLIMPOS:
      text = "NetCDF: NC_UNLIMITED in the wrong index";
      break;
    case NC_ENOTBUILT:
      text = "NetCDF: Attempt to use feature that was not turned on when netCDF was built.";
      break;
    default:
      break;
  }
  if (text)
    std::snprintf(errstr, PIO_MAX_NAME + 1, "%s", text);
  else if (pioerr > 0)
    std::snprintf(errstr, PIO_MAX_NAME + 1, "%s", std::strerror(pioerr));
  else
    std::snprintf(errstr, PIO_MAX_NAME + 1, "Unknown Error: Unrecognized error code %d", pioerr);
  return PIO_NOERR;
}

static bool is_handler(int method) {
  return method == PIO_INTERNAL_ERROR || method == PIO_BCAST_ERROR || method == PIO_RETURN_ERROR;
}

extern "C" int PIOc_set_iosystem_error_handling(int iosysid, int method, int *old_method) {
  IoSystem *ios = nullptr;
  if (iosysid != PIO_DEFAULT && !(ios = find_iosystem(iosysid)))
    return finish(nullptr, PIO_EBADID, "PIOc_set_iosystem_error_handling",
                  "no I/O system has iosysid " + std::to_string(iosysid));
  if (!is_handler(method))
    return finish(ios, PIO_EINVAL, "PIOc_set_iosystem_error_handling",
                  "unknown error handling method " + std::to_string(method));
  int &handler = ios ? ios->error_handler : default_error_handler();
  if (old_method) *old_method = handler;
  handler = method;
  return PIO_NOERR;
}

extern "C" int PIOc_Set_IOSystem_Error_Handling(int iosysid, int method) {
  int old = 0;
  const int code = PIOc_set_iosystem_error_handling(iosysid, method, &old);
  // PIO returns the previous method, so a failure cannot be returned: it aborts, as PIO does.
  if (code != PIO_NOERR) {
    std::fprintf(stderr, "PIOc_Set_IOSystem_Error_Handling failed: iosysid %d, method %d\n",
                 iosysid, method);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return old;
}

extern "C" int PIOc_Set_File_Error_Handling(int ncid, int method) {
  File *file = find_file(ncid);
  IoSystem *ios = file ? find_iosystem(file->iosysid) : nullptr;
  if (!ios || !is_handler(method)) {
    std::fprintf(stderr, "PIOc_Set_File_Error_Handling failed: ncid %d, method %d\n", ncid, method);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int old = ios->error_handler;
  ios->error_handler = method;
  return old;
}

extern "C" int PIOc_set_log_level(int) { return PIO_NOERR; }
