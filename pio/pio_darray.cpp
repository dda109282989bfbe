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
    default:
      return NC_FILL_DOUBLE;
  }
}

// esmio writes the variable's own fill value (its _FillValue, else netCDF's default) where no
// task writes, and cannot take another one per call: a fill value argument that differs from
// it, for a decomposition that leaves points unwritten, is refused rather than ignored.
int check_fill(File *file, int varid, const Decomp &decomp, const void *fillvalue,
               std::string *why) {
  if (!fillvalue || !decomp.needs_fill) return PIO_NOERR;
  esmio_type type, att_type;
  int ndims = 0;
  int rc = esmio_inq_var(file->handle, varid, &type, &ndims, nullptr);
  if (rc != ESMIO_NOERR) return nc_code(rc);
  double fill = default_fill(type);
  int64_t len = 0;
  rc = esmio_inq_att(file->handle, varid, "_FillValue", &att_type, &len);
  if (rc == ESMIO_NOERR && len == 1) {
    // Read in the attribute's own type (text does not convert to double).
    unsigned char value[8] = {0};
    rc = esmio_get_att(file->handle, varid, "_FillValue", att_type, 1, value);
    if (rc == ESMIO_NOERR) fill = value_as_double(att_type, value);
  }
  if (rc != ESMIO_NOERR && rc != ESMIO_ENOTATT) return nc_code(rc);
  double given = value_as_double(decomp.pio_type, fillvalue);
  if (type == ESMIO_FLOAT) given = static_cast<float>(given), fill = static_cast<float>(fill);
  if (given == fill) return PIO_NOERR;
  *why = "fill value " + std::to_string(given) + " of variable " + std::to_string(varid) +
         " differs from its _FillValue " + std::to_string(fill) +
         ": define the fill value with PIOc_def_var_fill or the _FillValue attribute";
  return PIO_EINVAL;
}

int write_one(const char *call, int ncid, int varid, int ioid, PIO_Offset arraylen,
              const void *array, const void *fillvalue, const int64_t *record_given) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, call, &ios, &code);
  if (!file) return code;
  Decomp *decomp = find_decomp(ioid);
  if (!decomp)
    return finish(ios, PIO_EBADID, call, "no decomposition has ioid " + std::to_string(ioid));
  std::string why;
  code = check_fill(file, varid, *decomp, fillvalue, &why);
  if (code != PIO_NOERR) return finish(ios, code, call, why.empty() ? esmio_last_error() : why);
  int64_t record = 0;
  esmio_decomp_t handle = nullptr;
  int rc = target_of(file, ios, varid, decomp, record_given, &record, &handle);
  esmio_type memtype;
  to_esmio_type(decomp->pio_type, &memtype);
  if (rc == ESMIO_NOERR)
    rc = esmio_write_darray(file->handle, varid, record, handle, memtype, array, arraylen);
  return finish_esmio(ios, rc, call);
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
  return write_one("PIOc_write_darray", ncid, varid, ioid, arraylen, array, fillvalue, nullptr);
}

// The arrays are written one variable after the other: esmio's write cache coalesces them.
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
  const int64_t bytes = arraylen * type_size(decomp->pio_type);
  for (int v = 0; v < nvars; ++v) {
    const int64_t record = frame ? frame[v] : 0;
    const int code = write_one(call, ncid, varids[v], ioid, arraylen,
                               static_cast<const char *>(array) + v * bytes,
                               fillvalue ? fillvalue[v] : nullptr, frame ? &record : nullptr);
    if (code != PIO_NOERR) return code;
  }
  return flushtodisk ? finish_esmio(ios, esmio_sync(file->handle), call) : PIO_NOERR;
}

extern "C" int PIOc_read_darray(int ncid, int varid, int ioid, PIO_Offset arraylen, void *array) {
  const char *call = "PIOc_read_darray";
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
  return finish_esmio(ios, rc, call);
}
