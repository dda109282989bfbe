// Attributes. PIOc_put_att_<T> takes values of the C type T and writes them as xtype, as
// netCDF's nc_put_att_<T> does; esmio_put_att takes values of the attribute's own type, so
// they are converted here (out of range: written as converted, and NC_ERANGE, as netCDF does).
// Reads convert in esmio (esmio_get_att's memory type).
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "pio_state.hpp"

using namespace esmio_pio;

namespace {

template <typename To>
bool store(double value, void *to) {
  bool ok = true;
  if (std::numeric_limits<To>::is_integer) {
    // The 64-bit types' maximum rounds up to a power of two in double: test below it.
    constexpr int digits = std::numeric_limits<To>::digits;
    ok = std::isfinite(value) && value >= static_cast<double>(std::numeric_limits<To>::lowest()) &&
         (digits >= 53 ? value < std::ldexp(1.0, digits)
                       : value <= static_cast<double>(std::numeric_limits<To>::max()));
  }
  To converted = ok ? static_cast<To>(value) : To(0);
  if (!std::numeric_limits<To>::is_integer && std::isfinite(value) &&
      std::isinf(static_cast<double>(converted)))
    ok = false;
  std::memcpy(to, &converted, sizeof(To));
  return ok;
}

double load(nc_type type, const void *from) {
  switch (type) {
    case NC_BYTE:
      return *static_cast<const signed char *>(from);
    case NC_SHORT:
      return *static_cast<const short *>(from);
    case NC_INT:
      return *static_cast<const int *>(from);
    case NC_FLOAT:
      return *static_cast<const float *>(from);
    case NC_INT64:
      return static_cast<double>(*static_cast<const long long *>(from));
    case NC_UBYTE:
      return *static_cast<const unsigned char *>(from);
    case NC_USHORT:
      return *static_cast<const unsigned short *>(from);
    case NC_UINT:
      return *static_cast<const unsigned int *>(from);
    case NC_UINT64:
      return static_cast<double>(*static_cast<const unsigned long long *>(from));
    default:
      return *static_cast<const double *>(from);
  }
}

// Converts n values of type from into type to; false if one was out of range.
bool convert(nc_type from, const void *src, nc_type to, void *dst, int64_t n) {
  const int64_t from_size = type_size(from), to_size = type_size(to);
  bool ok = true;
  for (int64_t i = 0; i < n; ++i) {
    const void *in = static_cast<const char *>(src) + i * from_size;
    void *out = static_cast<char *>(dst) + i * to_size;
    if (from == to) {  // exact, 64-bit integers included
      std::memcpy(out, in, static_cast<std::size_t>(to_size));
      continue;
    }
    const double v = load(from, in);
    switch (to) {
      case NC_BYTE:
        ok = store<signed char>(v, out) && ok;
        break;
      case NC_SHORT:
        ok = store<short>(v, out) && ok;
        break;
      case NC_INT:
        ok = store<int>(v, out) && ok;
        break;
      case NC_FLOAT:
        ok = store<float>(v, out) && ok;
        break;
      case NC_INT64:
        ok = store<long long>(v, out) && ok;
        break;
      case NC_UBYTE:
        ok = store<unsigned char>(v, out) && ok;
        break;
      case NC_USHORT:
        ok = store<unsigned short>(v, out) && ok;
        break;
      case NC_UINT:
        ok = store<unsigned int>(v, out) && ok;
        break;
      case NC_UINT64:
        ok = store<unsigned long long>(v, out) && ok;
        break;
      default:
        ok = store<double>(v, out) && ok;
        break;
    }
  }
  return ok;
}

int put_att(const char *call, int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
            nc_type memtype, const void *op) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, call, &ios, &code);
  if (!file) return code;
  esmio_type type;
  if (!to_esmio_type(xtype, &type))
    return finish(ios, PIO_EBADTYPE, call, "attribute type " + std::to_string(xtype));
  if ((xtype == NC_CHAR) != (memtype == NC_CHAR))
    return finish(ios, NC_ECHAR, call, "text and numbers do not convert");
  if (len < 0 || (len > 0 && !op)) return finish(ios, PIO_EINVAL, call, "bad length or values");
  bool in_range = true;
  std::vector<char> converted;
  const void *values = op;
  if (memtype != xtype && len > 0) {
    converted.resize(static_cast<std::size_t>(len * type_size(xtype)));
    in_range = convert(memtype, op, xtype, converted.data(), len);
    values = converted.data();
  }
  const int rc = esmio_put_att(file->handle, varid, name, type, len, values);
  if (rc == ESMIO_NOERR && !in_range)
    return finish(ios, PIO_ERANGE, call,
                  std::string("a value of attribute '") + (name ? name : "") +
                      "' is out of the range of its type");
  return finish_esmio(ios, rc, call, PIO_ENOTVAR);
}

int get_att(const char *call, int ncid, int varid, const char *name, nc_type memtype, void *ip) {
  IoSystem *ios;
  int code;
  File *file = file_or_error(ncid, call, &ios, &code);
  if (!file) return code;
  esmio_type type;
  int64_t len = 0;
  int rc = esmio_inq_att(file->handle, varid, name, &type, &len);
  esmio_type mem = type;
  if (rc == ESMIO_NOERR && memtype != 0 && !to_esmio_type(memtype, &mem))
    return finish(ios, PIO_EBADTYPE, call, "memory type " + std::to_string(memtype));
  if (rc == ESMIO_NOERR && len > 0 && !ip) return finish(ios, PIO_EINVAL, call, "ip is NULL");
  if (rc == ESMIO_NOERR && len > 0) rc = esmio_get_att(file->handle, varid, name, mem, len, ip);
  return finish_esmio(ios, rc, call, PIO_ENOTVAR);
}

}  // namespace

extern "C" int PIOc_put_att(int ncid, int varid, const char *name, nc_type xtype, PIO_Offset len,
                            const void *op) {
  return put_att("PIOc_put_att", ncid, varid, name, xtype, len, xtype, op);
}
extern "C" int PIOc_put_att_text(int ncid, int varid, const char *name, PIO_Offset len,
                                 const char *op) {
  return put_att("PIOc_put_att_text", ncid, varid, name, NC_CHAR, len, NC_CHAR, op);
}
extern "C" int PIOc_put_att_schar(int ncid, int varid, const char *name, nc_type xtype,
                                  PIO_Offset len, const signed char *op) {
  return put_att("PIOc_put_att_schar", ncid, varid, name, xtype, len, NC_BYTE, op);
}
extern "C" int PIOc_put_att_short(int ncid, int varid, const char *name, nc_type xtype,
                                  PIO_Offset len, const short *op) {
  return put_att("PIOc_put_att_short", ncid, varid, name, xtype, len, NC_SHORT, op);
}
extern "C" int PIOc_put_att_int(int ncid, int varid, const char *name, nc_type xtype,
                                PIO_Offset len, const int *op) {
  return put_att("PIOc_put_att_int", ncid, varid, name, xtype, len, NC_INT, op);
}
extern "C" int PIOc_put_att_long(int ncid, int varid, const char *name, nc_type xtype,
                                 PIO_Offset len, const long *op) {
  return put_att("PIOc_put_att_long", ncid, varid, name, xtype, len, long_type(), op);
}
extern "C" int PIOc_put_att_longlong(int ncid, int varid, const char *name, nc_type xtype,
                                     PIO_Offset len, const long long *op) {
  return put_att("PIOc_put_att_longlong", ncid, varid, name, xtype, len, NC_INT64, op);
}
extern "C" int PIOc_put_att_float(int ncid, int varid, const char *name, nc_type xtype,
                                  PIO_Offset len, const float *op) {
  return put_att("PIOc_put_att_float", ncid, varid, name, xtype, len, NC_FLOAT, op);
}
extern "C" int PIOc_put_att_double(int ncid, int varid, const char *name, nc_type xtype,
                                   PIO_Offset len, const double *op) {
  return put_att("PIOc_put_att_double", ncid, varid, name, xtype, len, NC_DOUBLE, op);
}
extern "C" int PIOc_put_att_uchar(int ncid, int varid, const char *name, nc_type xtype,
                                  PIO_Offset len, const unsigned char *op) {
  return put_att("PIOc_put_att_uchar", ncid, varid, name, xtype, len, NC_UBYTE, op);
}
extern "C" int PIOc_put_att_ushort(int ncid, int varid, const char *name, nc_type xtype,
                                   PIO_Offset len, const unsigned short *op) {
  return put_att("PIOc_put_att_ushort", ncid, varid, name, xtype, len, NC_USHORT, op);
}
extern "C" int PIOc_put_att_uint(int ncid, int varid, const char *name, nc_type xtype,
                                 PIO_Offset len, const unsigned int *op) {
  return put_att("PIOc_put_att_uint", ncid, varid, name, xtype, len, NC_UINT, op);
}
extern "C" int PIOc_put_att_ulonglong(int ncid, int varid, const char *name, nc_type xtype,
                                      PIO_Offset len, const unsigned long long *op) {
  return put_att("PIOc_put_att_ulonglong", ncid, varid, name, xtype, len, NC_UINT64, op);
}

// memtype 0: the attribute's own type.
extern "C" int PIOc_get_att(int ncid, int varid, const char *name, void *ip) {
  return get_att("PIOc_get_att", ncid, varid, name, 0, ip);
}
extern "C" int PIOc_get_att_text(int ncid, int varid, const char *name, char *ip) {
  return get_att("PIOc_get_att_text", ncid, varid, name, NC_CHAR, ip);
}
extern "C" int PIOc_get_att_schar(int ncid, int varid, const char *name, signed char *ip) {
  return get_att("PIOc_get_att_schar", ncid, varid, name, NC_BYTE, ip);
}
extern "C" int PIOc_get_att_short(int ncid, int varid, const char *name, short *ip) {
  return get_att("PIOc_get_att_short", ncid, varid, name, NC_SHORT, ip);
}
extern "C" int PIOc_get_att_int(int ncid, int varid, const char *name, int *ip) {
  return get_att("PIOc_get_att_int", ncid, varid, name, NC_INT, ip);
}
extern "C" int PIOc_get_att_long(int ncid, int varid, const char *name, long *ip) {
  return get_att("PIOc_get_att_long", ncid, varid, name, long_type(), ip);
}
extern "C" int PIOc_get_att_longlong(int ncid, int varid, const char *name, long long *ip) {
  return get_att("PIOc_get_att_longlong", ncid, varid, name, NC_INT64, ip);
}
extern "C" int PIOc_get_att_float(int ncid, int varid, const char *name, float *ip) {
  return get_att("PIOc_get_att_float", ncid, varid, name, NC_FLOAT, ip);
}
extern "C" int PIOc_get_att_double(int ncid, int varid, const char *name, double *ip) {
  return get_att("PIOc_get_att_double", ncid, varid, name, NC_DOUBLE, ip);
}
extern "C" int PIOc_get_att_uchar(int ncid, int varid, const char *name, unsigned char *ip) {
  return get_att("PIOc_get_att_uchar", ncid, varid, name, NC_UBYTE, ip);
}
extern "C" int PIOc_get_att_ushort(int ncid, int varid, const char *name, unsigned short *ip) {
  return get_att("PIOc_get_att_ushort", ncid, varid, name, NC_USHORT, ip);
}
extern "C" int PIOc_get_att_uint(int ncid, int varid, const char *name, unsigned int *ip) {
  return get_att("PIOc_get_att_uint", ncid, varid, name, NC_UINT, ip);
}
extern "C" int PIOc_get_att_ulonglong(int ncid, int varid, const char *name,
                                      unsigned long long *ip) {
  return get_att("PIOc_get_att_ulonglong", ncid, varid, name, NC_UINT64, ip);
}
