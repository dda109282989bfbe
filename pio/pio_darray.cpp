// Decomposed data. PIO keeps a frame (the record) per variable of a file, set by
// PIOc_setframe / PIOc_advanceframe; esmio takes the record as an argument: the frames are
// kept here, per (file, variable), and passed on. A frame never set is record 0. PIO also lets
// a decomposition of one dimension fewer than a fixed-size variable write the slice (frame) of
// its first dimension: esmio is given a decomposition of that slice.
#include <cstring>
#include <string>
#include <vector>

#include "pio_state.hpp"

using namespace esmio_pio;

namespace {

// Where an array of decomp goes in varid: the esmio record and decomposition. A record
// variable: its frame (or record_given), through decomp itself. A variable without the record
// dimension whose first dimension decomp lacks: record 0, through the decomposition of slice
// (frame) of that dimension, as PIO writes it. Otherwise record 0 through decomp.
// Returns esmio's code.
int target_of(File *file, IoSystem *ios, int varid, Decomp *decomp, const int64_t *record_given,
              int64_t *record, esmio_decomp_t *handle) {
  esmio_type type;
  int ndims = 0, unlimdim = -1;
  int dimids[ESMIO_MAX_DIMS];
  int rc = esmio_inq_var(file->handle, varid, &type, &ndims, dimids);
  if (rc == ESMIO_NOERR) rc = esmio_inq_unlimdim(file->handle, &unlimdim);
  if (rc != ESMIO_NOERR) return rc;
  const bool is_record = ndims > 0 && unlimdim >= 0 && dimids[0] == unlimdim;
  auto found = file->frames.find(varid);
  const int64_t frame = record_given                  ? *record_given
                        : found != file->frames.end() ? found->second
                                                      : 0;
  *record = is_record ? frame : 0;
  *handle = decomp->handle;
  if (is_record || ndims != static_cast<int>(decomp->dims.size()) + 1) return ESMIO_NOERR;
  int64_t leading = 0;
  rc = esmio_inq_dimlen(file->handle, dimids[0], &leading);
  if (rc != ESMIO_NOERR) return rc;
  // A frame outside the first dimension is esmio's to report (through decomp: a shape error).
  if (frame < 0 || frame >= leading) return ESMIO_NOERR;
  auto &slice = decomp->slices[{leading, frame}];
  if (!slice) {
    int64_t slice_size = 1;
    for (int64_t d : decomp->dims) slice_size *= d;
    std::vector<int64_t> dims(1, leading);
    dims.insert(dims.end(), decomp->dims.begin(), decomp->dims.end());
    std::vector<int64_t> offsets(decomp->offsets);
    for (int64_t &offset : offsets)
      if (offset >= 0) offset += frame * slice_size;
    rc = esmio_decomp_create(ios->io, static_cast<int>(dims.size()), dims.data(),
                             static_cast<int64_t>(offsets.size()), offsets.data(), &slice);
    if (rc != ESMIO_NOERR) {
      decomp->slices.erase({leading, frame});
      return rc;
    }
  }
  *handle = slice;
  return ESMIO_NOERR;
}

double value_as_double(nc_type type, const void *value) {
  switch (type) {
    case NC_BYTE:
      return *static_cast<const signed char *>(value);
    case NC_CHAR:
      return *static_cast<const char *>(value);
    case NC_SHORT:
      return *static_cast<const short *>(value);
    case NC_INT:
      return *static_cast<const int *>(value);
    case NC_FLOAT:
      return *static_cast<const float *>(value);
    case NC_INT64:
      return static_cast<double>(*static_cast<const long long *>(value));
    case NC_UBYTE:
      return *static_cast<const unsigned char *>(value);
    case NC_USHORT:
      return *static_cast<const unsigned short *>(value);
    case NC_UINT:
      return *static_cast<const unsigned int *>(value);
    case NC_UINT64:
      return static_cast<double>(*static_cast<const unsigned long long *>(value));
    default:
      return *static_cast<const double *>(value);
  }
}

double default_fill(esmio_type type) {
  switch (type) {
    case ESMIO_BYTE:
      return NC_FILL_BYTE;
    case ESMIO_CHAR:
      return NC_FILL_CHAR;
    case ESMIO_SHORT:
      return NC_FILL_SHORT;
    case ESMIO_INT:
      return NC_FILL_INT;
    case ESMIO_FLOAT:
      return NC_FILL_FLOAT;
    case ESMIO_INT64:
      return static_cast<double>(NC_FILL_INT64);
    case ESMIO_UBYTE:
      return NC_FILL_UBYTE;
    case ESMIO_USHORT:
      return NC_FILL_USHORT;
    case ESMIO_UINT:
      return NC_FILL_UINT;
    case ESMIO_UINT64:
      return static_cast<double>(NC_FILL_UINT64);
    default:
      return NC_FILL_DOUBLE;
  }
}

// esmio writes the variable's own fill value (its _FillValue, else netCDF's default) where no
// task writes, and cannot take another one per call. PIO refuses a fill value argument that
// differs from the variable's while the variable is filled, which in esmio it always is:
// PIO_EINVAL, whether or not the decomposition leaves points unwritten. fill_type: the C type of
// *fillvalue (0: the variable's, as PIOc_write_darray takes it).
int check_fill(File *file, int varid, nc_type fill_type, const void *fillvalue, std::string *why) {
  if (!fillvalue) return PIO_NOERR;
  esmio_type type, att_type;
  int ndims = 0;
  int rc = esmio_inq_var(file->handle, varid, &type, &ndims, nullptr);
  if (rc != ESMIO_NOERR) return rc == ESMIO_EBADID ? PIO_ENOTVAR : nc_code(rc);
  double fill = default_fill(type);
  int64_t len = 0;
  rc = esmio_inq_att(file->handle, varid, "_FillValue", &att_type, &len);
  if (rc == ESMIO_NOERR && len == 1) {
    // Read in the attribute's own type (text does not convert to double).
    unsigned char value[8] = {0};
    rc = esmio_get_att(file->handle, varid, "_FillValue", att_type, 1, value);
    if (rc == ESMIO_NOERR) fill = value_as_double(att_type, value);
  }
  if (rc != ESMIO_NOERR && rc != ESMIO_ENOTATT)
    return rc == ESMIO_EBADID ? PIO_ENOTVAR : nc_code(rc);
  double given =
      value_as_double(fill_type != 0 ? fill_type : static_cast<nc_type>(type), fillvalue);
  if (type == ESMIO_FLOAT) given = static_cast<float>(given), fill = static_cast<float>(fill);
  if (given == fill) return PIO_NOERR;
  *why = "fill value " + std::to_string(given) + " of variable " + std::to_string(varid) +
         " differs from its _FillValue " + std::to_string(fill) +
         ": define the fill value with PIOc_def_var_fill or the _FillValue attribute";
  return PIO_EINVAL;
}

int write_one(const char *call, int ncid, int varid, int ioid, PIO_Offset arraylen,
              const void *array, const void *fillvalue, nc_type fill_type,
              const int64_t *record_given) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, call, &ios, &code);
  if (!file) return code;
  Decomp *decomp = find_decomp(ioid);
  if (!decomp)
    return finish(ios, PIO_EBADID, call, "no decomposition has ioid " + std::to_string(ioid));
  std::string why;
  code = check_fill(file, varid, fill_type, fillvalue, &why);
  if (code != PIO_NOERR) return finish(ios, code, call, why.empty() ? esmio_last_error() : why);
  int64_t record = 0;
  esmio_decomp_t handle = nullptr;
  int rc = target_of(file, ios, varid, decomp, record_given, &record, &handle);
  esmio_type memtype;
  to_esmio_type(decomp->pio_type, &memtype);
  if (rc == ESMIO_NOERR)
    rc = esmio_write_darray(file->handle, varid, record, handle, memtype, array, arraylen);
  return finish_esmio(ios, rc, call, PIO_ENOTVAR);
}

int read_one(const char *call, int ncid, int varid, int ioid, PIO_Offset arraylen, void *array) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, call, &ios, &code);
  if (!file) return code;
  Decomp *decomp = find_decomp(ioid);
  if (!decomp)
    return finish(ios, PIO_EBADID, call, "no decomposition has ioid " + std::to_string(ioid));
  // esmio leaves the slots of holes as they are; PIO's holes read as 0.
  if (array && arraylen > 0)
    std::memset(array, 0, static_cast<std::size_t>(arraylen * type_size(decomp->pio_type)));
  int64_t record = 0;
  esmio_decomp_t handle = nullptr;
  int rc = target_of(file, ios, varid, decomp, nullptr, &record, &handle);
  esmio_type memtype;
  to_esmio_type(decomp->pio_type, &memtype);
  if (rc == ESMIO_NOERR)
    rc = esmio_read_darray(file->handle, varid, record, handle, memtype, array, arraylen);
  return finish_esmio(ios, rc, call, PIO_ENOTVAR);
}

// PIOc_put_vard / PIOc_get_vard: a whole local array of decompid at record recnum, which becomes
// the variable's frame, as in PIO; the memory type must be the variable's (memtype 0: no check).
int vard(const char *call, bool write, int ncid, int varid, int decompid, PIO_Offset recnum,
         nc_type memtype, const void *in, void *out) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, call, &ios, &code);
  if (!file) return code;
  esmio_type type;
  int ndims = 0;
  const int rc = esmio_inq_var(file->handle, varid, &type, &ndims, nullptr);
  if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, call, PIO_ENOTVAR);
  Decomp *decomp = find_decomp(decompid);
  if (!decomp)
    return finish(ios, PIO_EBADID, call, "no decomposition has ioid " + std::to_string(decompid));
  if (memtype != 0 && memtype != static_cast<nc_type>(type))
    return finish(ios, PIO_EBADTYPE, call,
                  "memory type " + std::to_string(memtype) + " is not the type " +
                      std::to_string(type) + " of variable " + std::to_string(varid));
  file->frames[varid] = recnum;
  return write ? write_one(call, ncid, varid, decompid, decomp->maplen, in, nullptr, 0, nullptr)
               : read_one(call, ncid, varid, decompid, decomp->maplen, out);
}

}  // namespace

extern "C" int PIOc_setframe(int ncid, int varid, int frame) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, "PIOc_setframe", &ios, &code);
  if (!file) return code;
  int nvars = 0;
  esmio_inq_nvars(file->handle, &nvars);
  if (varid < 0 || varid >= nvars)
    return finish(ios, PIO_ENOTVAR, "PIOc_setframe",
                  "no variable has varid " + std::to_string(varid));
  file->frames[varid] = frame;
  return PIO_NOERR;
}

extern "C" int PIOc_advanceframe(int ncid, int varid) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, "PIOc_advanceframe", &ios, &code);
  if (!file) return code;
  int nvars = 0;
  esmio_inq_nvars(file->handle, &nvars);
  if (varid < 0 || varid >= nvars)
    return finish(ios, PIO_ENOTVAR, "PIOc_advanceframe",
                  "no variable has varid " + std::to_string(varid));
  ++file->frames[varid];
  return PIO_NOERR;
}

extern "C" int PIOc_write_darray(int ncid, int varid, int ioid, PIO_Offset arraylen, void *array,
                                 void *fillvalue) {
  return write_one("PIOc_write_darray", ncid, varid, ioid, arraylen, array, fillvalue, 0, nullptr);
}

// The arrays are written one variable after the other: esmio's write cache coalesces them.
// fillvalue, though declared void **, is what PIO reads it as: nvars values of the
// decomposition's type one after the other (PIO's own programs pass such an array). PIO uses
// them for the points no task writes and checks them against nothing: they are checked (and
// must be the variables' own) only where the decomposition leaves such points.
extern "C" int PIOc_write_darray_multi(int ncid, const int *varids, int ioid, int nvars,
                                       PIO_Offset arraylen, void *array, const int *frame,
                                       void **fillvalue, bool flushtodisk) {
  const char *call = "PIOc_write_darray_multi";
  Decomp *decomp = find_decomp(ioid);
  File *file = find_file(ncid);
  IoSystem *ios = file ? find_iosystem(file->iosysid) : nullptr;
  if (!file || !decomp)
    return finish(ios, PIO_EBADID, call,
                  "ncid " + std::to_string(ncid) + " or ioid " + std::to_string(ioid));
  if (nvars < 1 || !varids || (arraylen > 0 && !array))
    return finish(ios, PIO_EINVAL, call, "no variables, or no array");
  // As in PIO, the variables must have the same number of dimensions (all record variables, or
  // none).
  std::vector<int> ndims(static_cast<std::size_t>(nvars), 0);
  for (int v = 0; v < nvars; ++v) {
    esmio_type type;
    const int rc = esmio_inq_var(file->handle, varids[v], &type, &ndims[v], nullptr);
    if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, call, PIO_ENOTVAR);
    if (ndims[v] != ndims[0])
      return finish(ios, PIO_EVARDIMMISMATCH, call,
                    "variable " + std::to_string(varids[v]) + " has " + std::to_string(ndims[v]) +
                        " dimensions, variable " + std::to_string(varids[0]) + " " +
                        std::to_string(ndims[0]));
  }
  const int64_t value_size = type_size(decomp->pio_type), bytes = arraylen * value_size;
  for (int v = 0; v < nvars; ++v) {
    const int64_t record = frame ? frame[v] : 0;
    const char *fill = fillvalue && decomp->needs_fill
                           ? reinterpret_cast<const char *>(fillvalue) + v * value_size
                           : nullptr;
    const int code = write_one(call, ncid, varids[v], ioid, arraylen,
                               static_cast<const char *>(array) + v * bytes, fill, decomp->pio_type,
                               frame ? &record : nullptr);
    if (code != PIO_NOERR) return code;
  }
  return flushtodisk ? finish_esmio(ios, esmio_sync(file->handle), call) : PIO_NOERR;
}

extern "C" int PIOc_read_darray(int ncid, int varid, int ioid, PIO_Offset arraylen, void *array) {
  return read_one("PIOc_read_darray", ncid, varid, ioid, arraylen, array);
}

#define ESMIO_PIO_VARD(suffix, ctype, memtype)                                                     \
  extern "C" int PIOc_put_vard##suffix(int ncid, int varid, int decompid, const PIO_Offset recnum, \
                                       const ctype *op) {                                          \
    return vard("PIOc_put_vard" #suffix, true, ncid, varid, decompid, recnum, memtype, op,         \
                nullptr);                                                                          \
  }                                                                                                \
  extern "C" int PIOc_get_vard##suffix(int ncid, int varid, int decompid, const PIO_Offset recnum, \
                                       ctype *buf) {                                               \
    return vard("PIOc_get_vard" #suffix, false, ncid, varid, decompid, recnum, memtype, nullptr,   \
                buf);                                                                              \
  }

ESMIO_PIO_VARD(, void, 0)
ESMIO_PIO_VARD(_text, char, NC_CHAR)
ESMIO_PIO_VARD(_schar, signed char, NC_BYTE)
ESMIO_PIO_VARD(_short, short, NC_SHORT)
ESMIO_PIO_VARD(_int, int, NC_INT)
ESMIO_PIO_VARD(_float, float, NC_FLOAT)
ESMIO_PIO_VARD(_double, double, NC_DOUBLE)
ESMIO_PIO_VARD(_longlong, long long, NC_INT64)
ESMIO_PIO_VARD(_uchar, unsigned char, NC_UBYTE)
ESMIO_PIO_VARD(_ushort, unsigned short, NC_USHORT)
ESMIO_PIO_VARD(_uint, unsigned int, NC_UINT)
ESMIO_PIO_VARD(_ulonglong, unsigned long long, NC_UINT64)
