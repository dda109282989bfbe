// Inquiry: netCDF's nc_inq_* shapes over esmio's inquiry calls. Output pointers may be NULL, as
// in netCDF. Names are written into buffers of PIO_MAX_NAME + 1 bytes.
#include <cstring>
#include <string>

#include "pio_state.hpp"

using namespace esmio_pio;

namespace {

// The file of ncid, or the error finished under call's name.
#define ESMIO_PIO_LOOKUP(call)                         \
  IoSystem *ios;                                       \
  int code;                                            \
  File *file = file_or_error(ncid, call, &ios, &code); \
  if (!file) return code

const int64_t name_len = PIO_MAX_NAME + 1;

}  // namespace

extern "C" int PIOc_inq_ndims(int ncid, int *ndimsp) {
  ESMIO_PIO_LOOKUP("PIOc_inq_ndims");
  int n = 0;
  const int rc = esmio_inq_ndims(file->handle, &n);
  if (rc == ESMIO_NOERR && ndimsp) *ndimsp = n;
  return finish_esmio(ios, rc, "PIOc_inq_ndims");
}

extern "C" int PIOc_inq_nvars(int ncid, int *nvarsp) {
  ESMIO_PIO_LOOKUP("PIOc_inq_nvars");
  int n = 0;
  const int rc = esmio_inq_nvars(file->handle, &n);
  if (rc == ESMIO_NOERR && nvarsp) *nvarsp = n;
  return finish_esmio(ios, rc, "PIOc_inq_nvars");
}

extern "C" int PIOc_inq_natts(int ncid, int *ngattsp) {
  ESMIO_PIO_LOOKUP("PIOc_inq_natts");
  int n = 0;
  const int rc = esmio_inq_natts(file->handle, ESMIO_GLOBAL, &n);
  if (rc == ESMIO_NOERR && ngattsp) *ngattsp = n;
  return finish_esmio(ios, rc, "PIOc_inq_natts");
}

extern "C" int PIOc_inq_unlimdim(int ncid, int *unlimdimidp) {
  ESMIO_PIO_LOOKUP("PIOc_inq_unlimdim");
  int id = -1;
  const int rc = esmio_inq_unlimdim(file->handle, &id);
  if (rc == ESMIO_NOERR && unlimdimidp) *unlimdimidp = id;
  return finish_esmio(ios, rc, "PIOc_inq_unlimdim");
}

// netCDF-4 files may have several unlimited dimensions; esmio's files have at most one.
extern "C" int PIOc_inq_unlimdims(int ncid, int *nunlimdimsp, int *unlimdimidsp) {
  ESMIO_PIO_LOOKUP("PIOc_inq_unlimdims");
  int id = -1;
  const int rc = esmio_inq_unlimdim(file->handle, &id);
  if (rc == ESMIO_NOERR && nunlimdimsp) *nunlimdimsp = id >= 0 ? 1 : 0;
  if (rc == ESMIO_NOERR && unlimdimidsp && id >= 0) unlimdimidsp[0] = id;
  return finish_esmio(ios, rc, "PIOc_inq_unlimdims");
}

extern "C" int PIOc_inq(int ncid, int *ndimsp, int *nvarsp, int *ngattsp, int *unlimdimidp) {
  int code = PIOc_inq_ndims(ncid, ndimsp);
  if (code == PIO_NOERR) code = PIOc_inq_nvars(ncid, nvarsp);
  if (code == PIO_NOERR && ngattsp) code = PIOc_inq_natts(ncid, ngattsp);
  if (code == PIO_NOERR) code = PIOc_inq_unlimdim(ncid, unlimdimidp);
  return code;
}

extern "C" int PIOc_inq_dimid(int ncid, const char *name, int *idp) {
  ESMIO_PIO_LOOKUP("PIOc_inq_dimid");
  int id = -1;
  const int rc = esmio_inq_dimid(file->handle, name, &id);
  if (rc == ESMIO_NOERR && idp) *idp = id;
  return finish_esmio(ios, rc, "PIOc_inq_dimid");
}

extern "C" int PIOc_inq_dimname(int ncid, int dimid, char *name) {
  ESMIO_PIO_LOOKUP("PIOc_inq_dimname");
  char buf[PIO_MAX_NAME + 1];
  const int rc = esmio_inq_dimname(file->handle, dimid, buf, name_len);
  if (rc == ESMIO_NOERR && name) std::memcpy(name, buf, std::strlen(buf) + 1);
  return finish_esmio(ios, rc, "PIOc_inq_dimname", PIO_EBADDIM);
}

extern "C" int PIOc_inq_dimlen(int ncid, int dimid, PIO_Offset *lenp) {
  ESMIO_PIO_LOOKUP("PIOc_inq_dimlen");
  int64_t len = 0;
  const int rc = esmio_inq_dimlen(file->handle, dimid, &len);
  if (rc == ESMIO_NOERR && lenp) *lenp = len;
  return finish_esmio(ios, rc, "PIOc_inq_dimlen", PIO_EBADDIM);
}

extern "C" int PIOc_inq_dim(int ncid, int dimid, char *name, PIO_Offset *lenp) {
  const int code = PIOc_inq_dimname(ncid, dimid, name);
  return code == PIO_NOERR ? PIOc_inq_dimlen(ncid, dimid, lenp) : code;
}

extern "C" int PIOc_inq_varid(int ncid, const char *name, int *varidp) {
  ESMIO_PIO_LOOKUP("PIOc_inq_varid");
  int id = -1;
  const int rc = esmio_inq_varid(file->handle, name, &id);
  if (rc == ESMIO_NOERR && varidp) *varidp = id;
  return finish_esmio(ios, rc, "PIOc_inq_varid");
}

extern "C" int PIOc_inq_var(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp,
                            int *dimidsp, int *nattsp) {
  ESMIO_PIO_LOOKUP("PIOc_inq_var");
  esmio_type type;
  int ndims = 0, natts = 0;
  int dimids[ESMIO_MAX_DIMS];
  char buf[PIO_MAX_NAME + 1];
  int rc = esmio_inq_var(file->handle, varid, &type, &ndims, dimids);
  if (rc == ESMIO_NOERR && name) rc = esmio_inq_varname(file->handle, varid, buf, name_len);
  if (rc == ESMIO_NOERR && nattsp) rc = esmio_inq_natts(file->handle, varid, &natts);
  if (rc == ESMIO_NOERR) {
    if (name) std::memcpy(name, buf, std::strlen(buf) + 1);
    if (xtypep) *xtypep = type;
    if (ndimsp) *ndimsp = ndims;
    if (dimidsp) std::memcpy(dimidsp, dimids, sizeof(int) * ndims);
    if (nattsp) *nattsp = natts;
  }
  return finish_esmio(ios, rc, "PIOc_inq_var", PIO_ENOTVAR);
}

extern "C" int PIOc_inq_varname(int ncid, int varid, char *name) {
  return PIOc_inq_var(ncid, varid, name, nullptr, nullptr, nullptr, nullptr);
}
extern "C" int PIOc_inq_vartype(int ncid, int varid, nc_type *xtypep) {
  return PIOc_inq_var(ncid, varid, nullptr, xtypep, nullptr, nullptr, nullptr);
}
extern "C" int PIOc_inq_varndims(int ncid, int varid, int *ndimsp) {
  return PIOc_inq_var(ncid, varid, nullptr, nullptr, ndimsp, nullptr, nullptr);
}
extern "C" int PIOc_inq_vardimid(int ncid, int varid, int *dimidsp) {
  return PIOc_inq_var(ncid, varid, nullptr, nullptr, nullptr, dimidsp, nullptr);
}
extern "C" int PIOc_inq_varnatts(int ncid, int varid, int *nattsp) {
  return PIOc_inq_var(ncid, varid, nullptr, nullptr, nullptr, nullptr, nattsp);
}

extern "C" int PIOc_inq_att(int ncid, int varid, const char *name, nc_type *xtypep,
                            PIO_Offset *lenp) {
  ESMIO_PIO_LOOKUP("PIOc_inq_att");
  esmio_type type;
  int64_t len = 0;
  const int rc = esmio_inq_att(file->handle, varid, name, &type, &len);
  if (rc == ESMIO_NOERR) {
    if (xtypep) *xtypep = type;
    if (lenp) *lenp = len;
  }
  return finish_esmio(ios, rc, "PIOc_inq_att", PIO_ENOTVAR);
}

extern "C" int PIOc_inq_attlen(int ncid, int varid, const char *name, PIO_Offset *lenp) {
  return PIOc_inq_att(ncid, varid, name, nullptr, lenp);
}
extern "C" int PIOc_inq_atttype(int ncid, int varid, const char *name, nc_type *xtypep) {
  return PIOc_inq_att(ncid, varid, name, xtypep, nullptr);
}

extern "C" int PIOc_inq_attname(int ncid, int varid, int attnum, char *name) {
  ESMIO_PIO_LOOKUP("PIOc_inq_attname");
  char buf[PIO_MAX_NAME + 1];
  const int rc = esmio_inq_attname(file->handle, varid, attnum, buf, name_len);
  if (rc == ESMIO_NOERR && name) std::memcpy(name, buf, std::strlen(buf) + 1);
  return finish_esmio(ios, rc, "PIOc_inq_attname", PIO_ENOTVAR);
}

// An attribute's number: its position among the variable's attributes, which esmio names by
// number.
extern "C" int PIOc_inq_attid(int ncid, int varid, const char *name, int *idp) {
  ESMIO_PIO_LOOKUP("PIOc_inq_attid");
  if (!name) return finish(ios, PIO_EINVAL, "PIOc_inq_attid", "the name is NULL");
  int natts = 0;
  int rc = esmio_inq_natts(file->handle, varid, &natts);
  char buf[PIO_MAX_NAME + 1];
  for (int a = 0; rc == ESMIO_NOERR && a < natts; ++a) {
    rc = esmio_inq_attname(file->handle, varid, a, buf, name_len);
    if (rc == ESMIO_NOERR && std::strcmp(buf, name) == 0) {
      if (idp) *idp = a;
      return PIO_NOERR;
    }
  }
  if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, "PIOc_inq_attid", PIO_ENOTVAR);
  return finish(ios, PIO_ENOTATT, "PIOc_inq_attid",
                std::string("variable ") + std::to_string(varid) + " has no attribute " + name);
}

extern "C" int PIOc_inq_type(int ncid, nc_type xtype, char *name, PIO_Offset *sizep) {
  ESMIO_PIO_LOOKUP("PIOc_inq_type");
  static const struct {
    nc_type type;
    const char *name;
    PIO_Offset size;
  } types[] = {{NC_BYTE, "byte", 1},   {NC_CHAR, "char", 1},     {NC_SHORT, "short", 2},
               {NC_INT, "int", 4},     {NC_FLOAT, "float", 4},   {NC_DOUBLE, "double", 8},
               {NC_UBYTE, "ubyte", 1}, {NC_USHORT, "ushort", 2}, {NC_UINT, "uint", 4},
               {NC_INT64, "int64", 8}, {NC_UINT64, "uint64", 8}, {NC_STRING, "string", 8}};
  for (const auto &t : types)
    if (t.type == xtype) {
      if (name) std::strcpy(name, t.name);
      if (sizep) *sizep = t.size;
      return PIO_NOERR;
    }
  return finish(ios, PIO_EBADTYPE, "PIOc_inq_type", "type " + std::to_string(xtype));
}

// The format, from the file's effective esmio settings.
extern "C" int PIOc_inq_format(int ncid, int *formatp) {
  ESMIO_PIO_LOOKUP("PIOc_inq_format");
  char settings[4096];
  const int rc = esmio_inq_file_settings(file->handle, settings, sizeof settings);
  if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, "PIOc_inq_format");
  const std::string text = std::string(",") + settings + ",";
  int format = NC_FORMAT_CDF5;
  if (text.find(",format=cdf1,") != std::string::npos)
    format = NC_FORMAT_CLASSIC;
  else if (text.find(",format=cdf2,") != std::string::npos)
    format = NC_FORMAT_64BIT_OFFSET;
  else if (text.find(",format=netcdf4,") != std::string::npos)
    format = NC_FORMAT_NETCDF4;
  if (formatp) *formatp = format;
  return PIO_NOERR;
}
