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
  if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, call);
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
    return finish_esmio(ios, rc, call);
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
  return finish_esmio(ios, rc, call);
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

ESMIO_PIO_VARA(, void, 0)
ESMIO_PIO_VARA(_text, char, NC_CHAR)
ESMIO_PIO_VARA(_schar, signed char, NC_BYTE)
ESMIO_PIO_VARA(_short, short, NC_SHORT)
ESMIO_PIO_VARA(_int, int, NC_INT)
ESMIO_PIO_VARA(_long, long, long_type())
ESMIO_PIO_VARA(_longlong, long long, NC_INT64)
ESMIO_PIO_VARA(_float, float, NC_FLOAT)
ESMIO_PIO_VARA(_double, double, NC_DOUBLE)
