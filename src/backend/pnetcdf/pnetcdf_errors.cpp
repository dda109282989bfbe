// PnetCDF's error space (NC_* codes, netCDF's and PnetCDF's own) mapped onto esmio's.
#include <pnetcdf.h>

#include <string>
#include <utility>

#include "backend/pnetcdf/pnetcdf_backend.hpp"

namespace esmio::backend::pnetcdf {

namespace {

int esmio_code(int nc_err) {
  switch (nc_err) {
    // The file system refused: MPI-IO reports a missing directory as a missing file.
    case NC_ENOENT:
    case NC_EACCESS:
    case NC_EBAD_FILE:
    case NC_ENO_SPACE:
    case NC_EQUOTA:
    case NC_EFILE:
    case NC_EOFILE:
    case NC_EREAD:
    case NC_EWRITE:
    case NC_EIO:
      return ESMIO_EIO;
    case NC_ENOTNC:
      return ESMIO_ENOTNC;
    case NC_EEXIST:
      return ESMIO_EEXIST;
    case NC_ERANGE:
      return ESMIO_ERANGE;
    case NC_EPERM:
      return ESMIO_EPERM;
    // Codes with an exact esmio counterpart keep their meaning; the api layer checks these
    // cases itself, so they reach here only when the two disagree.
    case NC_ENOMEM:
      return ESMIO_ENOMEM;
    case NC_ENAMEINUSE:
      return ESMIO_ENAMEINUSE;
    case NC_EINDEFINE:
      return ESMIO_EINDEFINE;
    case NC_ENOTINDEFINE:
      return ESMIO_ENOTINDEFINE;
    case NC_EUNLIMPOS:
    case NC_EUNLIMIT:
      return ESMIO_EUNLIMPOS;
    case NC_EMAXDIMS:
      return ESMIO_EMAXDIMS;
    case NC_ENOTVAR:
      return ESMIO_ENOTVAR;
    case NC_ENOTATT:
      return ESMIO_ENOTATT;
    case NC_EBADID:
    case NC_EBADDIM:
      return ESMIO_EBADID;
    case NC_EBADTYPE:
    case NC_ECHAR:
    case NC_ESTRICTCDF2:
      return ESMIO_EBADTYPE;
    case NC_EINVAL:
    case NC_EBADNAME:
    case NC_EINVALCOORDS:
    case NC_EEDGE:
    case NC_ENEGATIVECNT:
      return ESMIO_EINVAL;
    default:
      return ESMIO_EBACKEND;
  }
}

}  // namespace

Status translate_error(int nc_err, const std::string &operation, const std::string &path,
                       const std::string &variable) {
  if (nc_err == NC_NOERR) return Status::ok();
  std::string message = "pnetcdf: " + operation + " on '" + path + "'";
  if (!variable.empty()) message += " variable '" + variable + "'";
  message += ": ";
  message += ncmpi_strerror(nc_err);
  message += " (code " + std::to_string(nc_err) + ")";
  return Status(esmio_code(nc_err), std::move(message));
}

}  // namespace esmio::backend::pnetcdf
