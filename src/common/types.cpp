#include "common/types.hpp"

#include <cstring>

namespace esmio {

std::size_t type_size(esmio_type type) {
  switch (type) {
    case ESMIO_BYTE:
    case ESMIO_CHAR:
    case ESMIO_UBYTE:
      return 1;
    case ESMIO_SHORT:
    case ESMIO_USHORT:
      return 2;
    case ESMIO_INT:
    case ESMIO_UINT:
    case ESMIO_FLOAT:
      return 4;
    case ESMIO_DOUBLE:
    case ESMIO_INT64:
    case ESMIO_UINT64:
      return 8;
  }
  return 0;
}

bool type_is_known(esmio_type type) { return type_size(type) != 0; }

bool type_is_numeric(esmio_type type) { return type_is_known(type) && type != ESMIO_CHAR; }

bool type_needs_cdf5(esmio_type type) {
  return type == ESMIO_INT64 || type == ESMIO_UINT64 || type == ESMIO_UBYTE ||
         type == ESMIO_USHORT || type == ESMIO_UINT;
}

const char *type_name(esmio_type type) {
  switch (type) {
    case ESMIO_BYTE:
      return "byte";
    case ESMIO_CHAR:
      return "char";
    case ESMIO_SHORT:
      return "short";
    case ESMIO_INT:
      return "int";
    case ESMIO_FLOAT:
      return "float";
    case ESMIO_DOUBLE:
      return "double";
    case ESMIO_INT64:
      return "int64";
    case ESMIO_UBYTE:
      return "ubyte";
    case ESMIO_USHORT:
      return "ushort";
    case ESMIO_UINT:
      return "uint";
    case ESMIO_UINT64:
      return "uint64";
  }
  return "unknown";
}

void default_fill_value(esmio_type type, void *out) {
  // The values of netCDF's NC_FILL_* macros.
  switch (type) {
    case ESMIO_BYTE: {
      const int8_t v = -127;
      std::memcpy(out, &v, sizeof v);
      return;
    }
    case ESMIO_CHAR: {
      const char v = 0;
      std::memcpy(out, &v, sizeof v);
      return;
    }
    case ESMIO_SHORT: {
      const int16_t v = -32767;
      std::memcpy(out, &v, sizeof v);
      return;
    }
    case ESMIO_INT: {
      const int32_t v = -2147483647;
      std::memcpy(out, &v, sizeof v);
      return;
    }
    case ESMIO_FLOAT: {
      const float v = 9.9692099683868690e+36f;
      std::memcpy(out, &v, sizeof v);
      return;
    }
    case ESMIO_DOUBLE: {
      const double v = 9.9692099683868690e+36;
      std::memcpy(out, &v, sizeof v);
      return;
    }
    case ESMIO_INT64: {
      const int64_t v = -9223372036854775806LL;
      std::memcpy(out, &v, sizeof v);
      return;
    }
    case ESMIO_UBYTE: {
      const uint8_t v = 255;
      std::memcpy(out, &v, sizeof v);
      return;
    }
    case ESMIO_USHORT: {
      const uint16_t v = 65535;
      std::memcpy(out, &v, sizeof v);
      return;
    }
    case ESMIO_UINT: {
      const uint32_t v = 4294967295U;
      std::memcpy(out, &v, sizeof v);
      return;
    }
    case ESMIO_UINT64: {
      const uint64_t v = 18446744073709551614ULL;
      std::memcpy(out, &v, sizeof v);
      return;
    }
  }
}

}  // namespace esmio
