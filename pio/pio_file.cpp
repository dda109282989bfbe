// Files and their definitions. PIO's iotype and netCDF mode flags become esmio's backend and
// format settings of the file:
//   PIO_IOTYPE_PNETCDF  -> backend=pnetcdf, format cdf1 (cdf2 with NC_64BIT_OFFSET, cdf5 with
//                          NC_64BIT_DATA)
//   PIO_IOTYPE_NETCDF   -> backend=serial (gather to one task, serial netCDF), the same formats
//   PIO_IOTYPE_NETCDF4C -> backend=netcdf4 (parallel; PIO writes these through one task)
//   PIO_IOTYPE_NETCDF4P -> backend=netcdf4
#include <string>
#include <vector>

#include "pio_state.hpp"

using namespace esmio_pio;

namespace {

const char *backend_of(int iotype) {
  switch (iotype) {
    case PIO_IOTYPE_PNETCDF:
      return "pnetcdf";
    case PIO_IOTYPE_NETCDF:
      return "serial";
    case PIO_IOTYPE_NETCDF4C:
    case PIO_IOTYPE_NETCDF4P:
      return "netcdf4";
    default:
      return nullptr;
  }
}

// As in PIO, chunking, compression and quantisation are for the netCDF-4 iotypes (PIO_ENOTNC4
// otherwise, at the call rather than at esmio's end of the definitions).
int netcdf4_only(const File *file, const IoSystem *ios, const char *call) {
  if (file->iotype == PIO_IOTYPE_NETCDF4C || file->iotype == PIO_IOTYPE_NETCDF4P) return PIO_NOERR;
  return finish(ios, PIO_ENOTNC4, call,
                "the file's iotype " + std::to_string(file->iotype) + " is not a netCDF-4 one");
}

// netCDF's nc_create mode flags -> iotype, as PIO reads them.
int iotype_of_mode(int mode) {
  if (mode & NC_NETCDF4) return (mode & NC_MPIIO) ? PIO_IOTYPE_NETCDF4P : PIO_IOTYPE_NETCDF4C;
  return (mode & NC_PNETCDF) ? PIO_IOTYPE_PNETCDF : PIO_IOTYPE_NETCDF;
}

// The fill mode a file starts in where PIO leaves it to the library: PnetCDF's default is
// NOFILL, netCDF's (classic and netCDF-4) FILL. PIOc_createfile sets NOFILL whatever the iotype.
int library_fill_mode(int iotype) { return iotype == PIO_IOTYPE_PNETCDF ? NC_NOFILL : NC_FILL; }

int create(const char *call, int iosysid, int *ncidp, int iotype, const char *fname, int mode,
           int fill_mode) {
  IoSystem *ios = find_iosystem(iosysid);
  if (!ios)
    return finish(nullptr, PIO_EBADID, call,
                  "no I/O system has iosysid " + std::to_string(iosysid));
  const char *backend = backend_of(iotype);
  if (!ncidp || !fname) return finish(ios, PIO_EINVAL, call, "ncidp or file name is NULL");
  // PIO 2.7 says PIO_EINVAL for an iotype it does not know, not PIO_EBADIOTYPE.
  if (!backend) return finish(ios, PIO_EINVAL, call, "unknown iotype " + std::to_string(iotype));
  std::string settings = std::string("backend=") + backend + ",format=";
  if (iotype == PIO_IOTYPE_NETCDF4C || iotype == PIO_IOTYPE_NETCDF4P)
    settings += "netcdf4";
  else if (mode & NC_64BIT_DATA)
    settings += "cdf5";
  else if (mode & NC_64BIT_OFFSET)
    settings += "cdf2";
  else
    settings += "cdf1";
  settings += (mode & NC_NOCLOBBER) ? ",clobber=false" : ",clobber=true";
  File file;
  file.iosysid = iosysid;
  file.iotype = iotype;
  file.writable = true;
  file.fill_mode = fill_mode;
  const int rc = esmio_create(ios->io, fname, settings.c_str(), &file.handle);
  if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, call);
  *ncidp = add_file(file);
  return PIO_NOERR;
}

// retry: PIOc_openfile's behaviour, which falls back to whatever format the file has.
int open(const char *call, int iosysid, int *ncidp, int iotype, const char *fname, int mode,
         bool retry) {
  IoSystem *ios = find_iosystem(iosysid);
  if (!ios)
    return finish(nullptr, PIO_EBADID, call,
                  "no I/O system has iosysid " + std::to_string(iosysid));
  const char *backend = backend_of(iotype);
  if (!ncidp || !fname) return finish(ios, PIO_EINVAL, call, "ncidp or file name is NULL");
  // PIO 2.7 says PIO_EINVAL for an iotype it does not know, not PIO_EBADIOTYPE.
  if (!backend) return finish(ios, PIO_EINVAL, call, "unknown iotype " + std::to_string(iotype));
  File file;
  file.iosysid = iosysid;
  file.iotype = iotype;
  file.writable = (mode & NC_WRITE) != 0;
  file.fill_mode = library_fill_mode(iotype);
  const int esmio_mode = file.writable ? ESMIO_WRITE : ESMIO_NOWRITE;
  const std::string settings = std::string("backend=") + backend;
  int rc = esmio_open(ios->io, fname, esmio_mode, settings.c_str(), &file.handle);
  if (retry && (rc == ESMIO_ENOTNC || rc == ESMIO_EBACKEND))
    rc = esmio_open(ios->io, fname, esmio_mode, "backend=auto", &file.handle);
  if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, call);
  *ncidp = add_file(file);
  return PIO_NOERR;
}

}  // namespace

extern "C" int PIOc_createfile(int iosysid, int *ncidp, int *iotype, const char *fname, int mode) {
  if (!iotype)
    return finish(find_iosystem(iosysid), PIO_EINVAL, "PIOc_createfile", "iotype is NULL");
  return create("PIOc_createfile", iosysid, ncidp, *iotype, fname, mode, NC_NOFILL);
}

extern "C" int PIOc_create(int iosysid, const char *path, int cmode, int *ncidp) {
  const int iotype = iotype_of_mode(cmode);
  return create("PIOc_create", iosysid, ncidp, iotype, path, cmode, library_fill_mode(iotype));
}

extern "C" int PIOc_openfile(int iosysid, int *ncidp, int *iotype, const char *fname, int mode) {
  if (!iotype) return finish(find_iosystem(iosysid), PIO_EINVAL, "PIOc_openfile", "iotype is NULL");
  return open("PIOc_openfile", iosysid, ncidp, *iotype, fname, mode, true);
}

extern "C" int PIOc_openfile2(int iosysid, int *ncidp, int *iotype, const char *fname, int mode) {
  if (!iotype)
    return finish(find_iosystem(iosysid), PIO_EINVAL, "PIOc_openfile2", "iotype is NULL");
  return open("PIOc_openfile2", iosysid, ncidp, *iotype, fname, mode, false);
}

extern "C" int PIOc_open(int iosysid, const char *path, int mode, int *ncidp) {
  return open("PIOc_open", iosysid, ncidp, iotype_of_mode(mode), path, mode, false);
}

extern "C" int PIOc_closefile(int ncid) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, "PIOc_closefile", &ios, &code);
  if (!file) return code;
  const int rc = esmio_close(&file->handle);
  // esmio closes the file even when the flush failed; only a disagreement keeps it open.
  if (rc != ESMIO_EMISMATCH) remove_file(ncid);
  return finish_esmio(ios, rc, "PIOc_closefile");
}

extern "C" int PIOc_File_is_Open(int ncid) { return find_file(ncid) ? 1 : 0; }

// bad_id: the netCDF code for esmio's ESMIO_EBADID in this call (see finish_esmio).
#define ESMIO_PIO_FILE_CALL_ABOUT(call, bad_id, expr)  \
  IoSystem *ios;                                       \
  int code;                                            \
  File *file = file_or_error(ncid, call, &ios, &code); \
  if (!file) return code;                              \
  return finish_esmio(ios, (expr), call, bad_id)
#define ESMIO_PIO_FILE_CALL(call, expr) ESMIO_PIO_FILE_CALL_ABOUT(call, PIO_EBADID, expr)

extern "C" int PIOc_sync(int ncid) { ESMIO_PIO_FILE_CALL("PIOc_sync", esmio_sync(file->handle)); }

extern "C" int PIOc_enddef(int ncid) {
  ESMIO_PIO_FILE_CALL("PIOc_enddef", esmio_enddef(file->handle));
}

extern "C" int PIOc_redef(int ncid) {
  ESMIO_PIO_FILE_CALL("PIOc_redef", esmio_redef(file->handle));
}

extern "C" int PIOc_def_dim(int ncid, const char *name, PIO_Offset len, int *idp) {
  ESMIO_PIO_FILE_CALL("PIOc_def_dim", esmio_def_dim(file->handle, name, len, idp));
}

extern "C" int PIOc_def_var(int ncid, const char *name, nc_type xtype, int ndims,
                            const int *dimidsp, int *varidp) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, "PIOc_def_var", &ios, &code);
  if (!file) return code;
  esmio_type type;
  if (!to_esmio_type(xtype, &type))
    return finish(
        ios, PIO_EBADTYPE, "PIOc_def_var",
        "type " + std::to_string(xtype) + " of variable '" + (name ? name : "") +
            "' (esmio writes byte, char, short, int, float, double, int64 and the unsigned "
            "types)");
  return finish_esmio(ios, esmio_def_var(file->handle, name, type, ndims, dimidsp, varidp),
                      "PIOc_def_var", PIO_EBADDIM);
}

// no_fill: esmio always writes the fill value where no task writes, so turning filling off is
// accepted and has no effect. For a PIO_IOTYPE_NETCDF file PIO turns the file's fill mode on
// (classic netCDF has no fill mode per variable); so does the layer, for PIOc_set_fill to report.
extern "C" int PIOc_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, "PIOc_def_var_fill", &ios, &code);
  if (!file) return code;
  const int rc =
      (no_fill || !fill_value) ? ESMIO_NOERR : esmio_def_var_fill(file->handle, varid, fill_value);
  if (rc == ESMIO_NOERR && file->iotype == PIO_IOTYPE_NETCDF) file->fill_mode = NC_FILL;
  return finish_esmio(ios, rc, "PIOc_def_var_fill", PIO_ENOTVAR);
}

// The mode is kept and reported per file as PIO does (NOFILL after PIOc_createfile; after
// PIOc_create and the opens, the library's default: NOFILL for PnetCDF, FILL for netCDF), and
// changes nothing in the data: esmio writes without the libraries' fill mode in both, and fills
// what no call writes itself (holes of decompositions, records skipped, variables never written).
// As in netCDF and PnetCDF, a file opened read-only has no mode to set: NC_EPERM.
extern "C" int PIOc_set_fill(int ncid, int fillmode, int *old_modep) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, "PIOc_set_fill", &ios, &code);
  if (!file) return code;
  if (fillmode != NC_FILL && fillmode != NC_NOFILL)
    return finish(ios, PIO_EINVAL, "PIOc_set_fill", "fill mode " + std::to_string(fillmode));
  if (!file->writable)
    return finish(ios, NC_EPERM, "PIOc_set_fill", "the file was opened read-only");
  if (old_modep) *old_modep = file->fill_mode;
  file->fill_mode = fillmode;
  return PIO_NOERR;
}

extern "C" int PIOc_def_var_deflate(int ncid, int varid, int shuffle, int deflate,
                                    int deflate_level) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, "PIOc_def_var_deflate", &ios, &code);
  if (!file) return code;
  code = netcdf4_only(file, ios, "PIOc_def_var_deflate");
  if (code != PIO_NOERR) return code;
  std::string spec = "none";
  if (deflate) spec = "deflate:" + std::to_string(deflate_level) + (shuffle ? ":shuffle" : "");
  return finish_esmio(ios, esmio_def_var_compress(file->handle, varid, spec.c_str()),
                      "PIOc_def_var_deflate", PIO_ENOTVAR);
}

// PIO's quantize modes are netCDF's. esmio has BitRound and Granular BitRound; BitGroom, whose
// values differ from both, is refused with PIO_EINVAL rather than replaced. As in netCDF, a
// variable that is neither float nor double is PIO_EINVAL.
extern "C" int PIOc_def_var_quantize(int ncid, int varid, int quantize_mode, int nsd) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, "PIOc_def_var_quantize", &ios, &code);
  if (!file) return code;
  code = netcdf4_only(file, ios, "PIOc_def_var_quantize");
  if (code != PIO_NOERR) return code;
  std::string spec;
  if (quantize_mode == PIO_NOQUANTIZE)
    spec = "none";
  else if (quantize_mode == PIO_QUANTIZE_BITROUND)
    spec = "bitround:" + std::to_string(nsd);
  else if (quantize_mode == PIO_QUANTIZE_GRANULARBR)
    spec = "granularbr:" + std::to_string(nsd);
  else
    return finish(ios, PIO_EINVAL, "PIOc_def_var_quantize",
                  "quantize mode " + std::to_string(quantize_mode) +
                      " (esmio has PIO_QUANTIZE_BITROUND and PIO_QUANTIZE_GRANULARBR, not "
                      "BitGroom)");
  // esmio checks the type when the definitions end; netCDF and PIO at once.
  esmio_type type;
  int ndims = 0;
  int rc = esmio_inq_var(file->handle, varid, &type, &ndims, nullptr);
  if (rc == ESMIO_NOERR && quantize_mode != PIO_NOQUANTIZE && type != ESMIO_FLOAT &&
      type != ESMIO_DOUBLE)
    return finish(ios, PIO_EINVAL, "PIOc_def_var_quantize",
                  "variable " + std::to_string(varid) + " is neither float nor double");
  if (rc == ESMIO_NOERR) rc = esmio_def_var_quantize(file->handle, varid, spec.c_str());
  return finish_esmio(ios, rc, "PIOc_def_var_quantize", PIO_ENOTVAR);
}

// NC_CONTIGUOUS is accepted and leaves esmio's default chunking.
extern "C" int PIOc_def_var_chunking(int ncid, int varid, int storage,
                                     const PIO_Offset *chunksizesp) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, "PIOc_def_var_chunking", &ios, &code);
  if (!file) return code;
  code = netcdf4_only(file, ios, "PIOc_def_var_chunking");
  if (code != PIO_NOERR) return code;
  if (storage != NC_CHUNKED) return PIO_NOERR;
  esmio_type type;
  int ndims = 0;
  int rc = esmio_inq_var(file->handle, varid, &type, &ndims, nullptr);
  if (rc == ESMIO_NOERR) {
    if (!chunksizesp)
      return finish(ios, PIO_EINVAL, "PIOc_def_var_chunking", "chunk sizes are NULL");
    std::vector<int64_t> chunks(chunksizesp, chunksizesp + ndims);
    rc = esmio_def_var_chunking(file->handle, varid, ndims, chunks.data());
  }
  return finish_esmio(ios, rc, "PIOc_def_var_chunking", PIO_ENOTVAR);
}

// Filling is always on in esmio (*no_fill is 0); the fill value is the _FillValue attribute, else
// netCDF's default for the variable's type, written in that type.
extern "C" int PIOc_inq_var_fill(int ncid, int varid, int *no_fill, void *fill_valuep) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, "PIOc_inq_var_fill", &ios, &code);
  if (!file) return code;
  esmio_type type, att_type;
  int ndims = 0;
  int64_t len = 0;
  int rc = esmio_inq_var(file->handle, varid, &type, &ndims, nullptr);
  if (rc == ESMIO_NOERR) rc = esmio_inq_att(file->handle, varid, "_FillValue", &att_type, &len);
  if (rc == ESMIO_NOERR && fill_valuep)
    rc = esmio_get_att(file->handle, varid, "_FillValue", type, 1, fill_valuep);
  if (rc == ESMIO_ENOTATT && fill_valuep) {
    rc = ESMIO_NOERR;
    switch (type) {
      case ESMIO_BYTE:
        *static_cast<signed char *>(fill_valuep) = NC_FILL_BYTE;
        break;
      case ESMIO_CHAR:
        *static_cast<char *>(fill_valuep) = NC_FILL_CHAR;
        break;
      case ESMIO_SHORT:
        *static_cast<short *>(fill_valuep) = NC_FILL_SHORT;
        break;
      case ESMIO_INT:
        *static_cast<int *>(fill_valuep) = NC_FILL_INT;
        break;
      case ESMIO_FLOAT:
        *static_cast<float *>(fill_valuep) = NC_FILL_FLOAT;
        break;
      case ESMIO_INT64:
        *static_cast<long long *>(fill_valuep) = NC_FILL_INT64;
        break;
      case ESMIO_UBYTE:
        *static_cast<unsigned char *>(fill_valuep) = NC_FILL_UBYTE;
        break;
      case ESMIO_USHORT:
        *static_cast<unsigned short *>(fill_valuep) = NC_FILL_USHORT;
        break;
      case ESMIO_UINT:
        *static_cast<unsigned int *>(fill_valuep) = NC_FILL_UINT;
        break;
      case ESMIO_UINT64:
        *static_cast<unsigned long long *>(fill_valuep) = NC_FILL_UINT64;
        break;
      default:
        *static_cast<double *>(fill_valuep) = NC_FILL_DOUBLE;
        break;
    }
  } else if (rc == ESMIO_ENOTATT) {
    rc = ESMIO_NOERR;
  }
  if (rc == ESMIO_NOERR && no_fill) *no_fill = 0;
  return finish_esmio(ios, rc, "PIOc_inq_var_fill", PIO_ENOTVAR);
}
