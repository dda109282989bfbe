// Undecomposed data: every task passes the same values (PIO writes them from the I/O tasks,
// esmio the same), and every task receives what is read. The C type of the buffer is the
// memory type; esmio converts to and from the variable's type.
#include <vector>

#include "pio_state.hpp"

using namespace esmio_pio;

namespace {

// varid's dimension lengths (the record dimension: the records written so far).
int shape_of(File *file, int varid, std::vector<int64_t> *shape, esmio_type *type) {
  int ndims = 0;
  int dimids[ESMIO_MAX_DIMS];
  int rc = esmio_inq_var(file->handle, varid, type, &ndims, dimids);
  shape->assign(static_cast<std::size_t>(rc == ESMIO_NOERR ? ndims : 0), 0);
  for (int d = 0; rc == ESMIO_NOERR && d < ndims; ++d)
    rc = esmio_inq_dimlen(file->handle, dimids[d], &(*shape)[d]);
  return rc;
}

// netCDF's code for a region outside the variable, where esmio says ESMIO_EINVAL: a start
// past the end is NC_EINVALCOORDS, a count that runs past it NC_EEDGE (writes may add records).
// PIO_NOERR if the region lies inside.
int edge_code(File *file, int varid, bool write, const std::vector<int64_t> &shape,
              const std::vector<int64_t> &start, const std::vector<int64_t> &count) {
  int unlimdim = -1, ndims = 0;
  int dimids[ESMIO_MAX_DIMS];
  esmio_type type;
  if (esmio_inq_unlimdim(file->handle, &unlimdim) != ESMIO_NOERR ||
      esmio_inq_var(file->handle, varid, &type, &ndims, dimids) != ESMIO_NOERR)
    return PIO_NOERR;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (write && dimids[d] == unlimdim) continue;
    if (start[d] < 0 || start[d] > shape[d]) return PIO_EINVALCOORDS;
    if (count[d] < 0 || start[d] + count[d] > shape[d]) return PIO_EEDGE;
  }
  return PIO_NOERR;
}

// memtype 0: the variable's own type. whole: put_var/get_var (start and count unused).
int access(const char *call, bool write, bool whole, int ncid, int varid, const PIO_Offset *start,
           const PIO_Offset *count, nc_type memtype, const void *in, void *out) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, call, &ios, &code);
  if (!file) return code;
  std::vector<int64_t> shape;
  esmio_type type;
  int rc = shape_of(file, varid, &shape, &type);
  if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, call, PIO_ENOTVAR);
  esmio_type mem = type;
  if (memtype != 0 && !to_esmio_type(memtype, &mem))
    return finish(ios, PIO_EBADTYPE, call, "memory type " + std::to_string(memtype));
  if ((write ? in : out) == nullptr) return finish(ios, PIO_EINVAL, call, "the buffer is NULL");
  if (!whole && !shape.empty() && (!start || !count))
    return finish(ios, PIO_EINVAL, call, "start or count is NULL");
  if (whole) {
    int64_t nelems = 1;
    for (int64_t len : shape) nelems *= len;
    rc = write ? esmio_put_var(file->handle, varid, mem, in, nelems)
               : esmio_get_var(file->handle, varid, mem, out, nelems);
    return finish_esmio(ios, rc, call, PIO_ENOTVAR);
  }
  // PIO_Offset (MPI_Offset) and int64_t are both 64 bits but may be different C types.
  std::vector<int64_t> start64(start, start + shape.size());
  std::vector<int64_t> count64(count, count + shape.size());
  rc = write ? esmio_put_vara(file->handle, varid, start64.data(), count64.data(), mem, in)
             : esmio_get_vara(file->handle, varid, start64.data(), count64.data(), mem, out);
  if (rc == ESMIO_EINVAL || rc == ESMIO_ERECORD) {
    const int edge = edge_code(file, varid, write, shape, start64, count64);
    if (edge != PIO_NOERR) return finish(ios, edge, call, esmio_last_error());
  }
  return finish_esmio(ios, rc, call, PIO_ENOTVAR);
}

// PIOc_*_vars: esmio has no strided access, so the region is written or read as blocks that
// are contiguous in the file: one esmio_put_vara/get_vara per index of the dimensions up to the
// last one with a stride other than 1, each covering every dimension after it whole. A stride
// of 1 everywhere (or NULL) is one call. Every task passes the same values, as for vara.
int strided(const char *call, bool write, int ncid, int varid, const PIO_Offset *start,
            const PIO_Offset *count, const PIO_Offset *stride, nc_type memtype, const void *in,
            void *out) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, call, &ios, &code);
  if (!file) return code;
  std::vector<int64_t> shape;
  esmio_type type;
  const int rc = shape_of(file, varid, &shape, &type);
  if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, call, PIO_ENOTVAR);
  const int ndims = static_cast<int>(shape.size());
  int last = -1;  // the last dimension with a stride other than 1
  for (int d = 0; stride && start && count && d < ndims; ++d) {
    if (stride[d] < 1)
      return finish(ios, PIO_ESTRIDE, call,
                    "stride " + std::to_string(stride[d]) + " of dimension " + std::to_string(d));
    if (stride[d] != 1) last = d;
  }
  int64_t blocks = 1;
  for (int d = 0; d <= last; ++d) blocks *= count[d];
  if (last < 0 || blocks == 0)
    return access(call, write, false, ncid, varid, start, count, memtype, in, out);
  const int64_t value_size = type_size(memtype != 0 ? memtype : static_cast<nc_type>(type));
  int64_t block_values = 1;
  for (int d = last + 1; d < ndims; ++d) block_values *= count[d];
  std::vector<PIO_Offset> block_start(start, start + ndims), block_count(count, count + ndims);
  std::vector<int64_t> index(static_cast<std::size_t>(last) + 1, 0);
  for (int d = 0; d <= last; ++d) block_count[d] = 1;
  for (int64_t b = 0; b < blocks; ++b) {
    for (int d = 0; d <= last; ++d) block_start[d] = start[d] + index[d] * stride[d];
    const int64_t offset = b * block_values * value_size;
    code = access(call, write, false, ncid, varid, block_start.data(), block_count.data(), memtype,
                  write ? static_cast<const char *>(in) + offset : nullptr,
                  write ? nullptr : static_cast<char *>(out) + offset);
    if (code != PIO_NOERR) return code;
    for (int d = last; d >= 0 && ++index[d] == count[d]; --d) index[d] = 0;
  }
  return PIO_NOERR;
}

// PIOc_*_var1: one value, a region of one element along every dimension (index may be NULL for
// a scalar).
int single(const char *call, bool write, int ncid, int varid, const PIO_Offset *index,
           nc_type memtype, const void *in, void *out) {
  std::vector<PIO_Offset> ones(ESMIO_MAX_DIMS, 1);
  return access(call, write, false, ncid, varid, index, ones.data(), memtype, in, out);
}

}  // namespace

#define ESMIO_PIO_VARA(suffix, ctype, memtype)                                                    \
  extern "C" int PIOc_put_vara##suffix(int ncid, int varid, const PIO_Offset *start,              \
                                       const PIO_Offset *count, const ctype *op) {                \
    return access("PIOc_put_vara" #suffix, true, false, ncid, varid, start, count, memtype, op,   \
                  nullptr);                                                                       \
  }                                                                                               \
  extern "C" int PIOc_get_vara##suffix(int ncid, int varid, const PIO_Offset *start,              \
                                       const PIO_Offset *count, ctype *buf) {                     \
    return access("PIOc_get_vara" #suffix, false, false, ncid, varid, start, count, memtype,      \
                  nullptr, buf);                                                                  \
  }                                                                                               \
  extern "C" int PIOc_put_var##suffix(int ncid, int varid, const ctype *op) {                     \
    return access("PIOc_put_var" #suffix, true, true, ncid, varid, nullptr, nullptr, memtype, op, \
                  nullptr);                                                                       \
  }                                                                                               \
  extern "C" int PIOc_get_var##suffix(int ncid, int varid, ctype *buf) {                          \
    return access("PIOc_get_var" #suffix, false, true, ncid, varid, nullptr, nullptr, memtype,    \
                  nullptr, buf);                                                                  \
  }

#define ESMIO_PIO_VARS(suffix, ctype, memtype)                                                     \
  extern "C" int PIOc_put_vars##suffix(int ncid, int varid, const PIO_Offset *start,               \
                                       const PIO_Offset *count, const PIO_Offset *stride,          \
                                       const ctype *op) {                                          \
    return strided("PIOc_put_vars" #suffix, true, ncid, varid, start, count, stride, memtype, op,  \
                   nullptr);                                                                       \
  }                                                                                                \
  extern "C" int PIOc_get_vars##suffix(int ncid, int varid, const PIO_Offset *start,               \
                                       const PIO_Offset *count, const PIO_Offset *stride,          \
                                       ctype *buf) {                                               \
    return strided("PIOc_get_vars" #suffix, false, ncid, varid, start, count, stride, memtype,     \
                   nullptr, buf);                                                                  \
  }                                                                                                \
  extern "C" int PIOc_put_var1##suffix(int ncid, int varid, const PIO_Offset *index,               \
                                       const ctype *op) {                                          \
    return single("PIOc_put_var1" #suffix, true, ncid, varid, index, memtype, op, nullptr);        \
  }                                                                                                \
  extern "C" int PIOc_get_var1##suffix(int ncid, int varid, const PIO_Offset *index, ctype *buf) { \
    return single("PIOc_get_var1" #suffix, false, ncid, varid, index, memtype, nullptr, buf);      \
  }

ESMIO_PIO_VARA(, void, 0)
ESMIO_PIO_VARA(_text, char, NC_CHAR)
ESMIO_PIO_VARA(_schar, signed char, NC_BYTE)
ESMIO_PIO_VARA(_short, short, NC_SHORT)
ESMIO_PIO_VARA(_int, int, NC_INT)
ESMIO_PIO_VARA(_long, long, long_type())
ESMIO_PIO_VARA(_longlong, long long, NC_INT64)
ESMIO_PIO_VARA(_float, float, NC_FLOAT)
ESMIO_PIO_VARA(_double, double, NC_DOUBLE)
ESMIO_PIO_VARA(_uchar, unsigned char, NC_UBYTE)
ESMIO_PIO_VARA(_ushort, unsigned short, NC_USHORT)
ESMIO_PIO_VARA(_uint, unsigned int, NC_UINT)
ESMIO_PIO_VARA(_ulonglong, unsigned long long, NC_UINT64)
ESMIO_PIO_VARS(, void, 0)
ESMIO_PIO_VARS(_text, char, NC_CHAR)
ESMIO_PIO_VARS(_schar, signed char, NC_BYTE)
ESMIO_PIO_VARS(_short, short, NC_SHORT)
ESMIO_PIO_VARS(_int, int, NC_INT)
ESMIO_PIO_VARS(_long, long, long_type())
ESMIO_PIO_VARS(_longlong, long long, NC_INT64)
ESMIO_PIO_VARS(_float, float, NC_FLOAT)
ESMIO_PIO_VARS(_double, double, NC_DOUBLE)
ESMIO_PIO_VARS(_uchar, unsigned char, NC_UBYTE)
ESMIO_PIO_VARS(_ushort, unsigned short, NC_USHORT)
ESMIO_PIO_VARS(_uint, unsigned int, NC_UINT)
ESMIO_PIO_VARS(_ulonglong, unsigned long long, NC_UINT64)
