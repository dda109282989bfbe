#include "backend/pnetcdf/big_endian.hpp"

#include <cstring>

namespace esmio::backend::pnetcdf {
namespace {

template <typename T, T (*Swap)(T)>
void swap_copy(char *dst, const char *src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, src + i * sizeof(T), sizeof(T));
    v = Swap(v);
    std::memcpy(dst + i * sizeof(T), &v, sizeof(T));
  }
}

uint16_t swap16(uint16_t v) { return __builtin_bswap16(v); }
uint32_t swap32(uint32_t v) { return __builtin_bswap32(v); }
uint64_t swap64(uint64_t v) { return __builtin_bswap64(v); }

}  // namespace

void copy_to_big_endian(char *dst, const char *src, int64_t bytes, int esize) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  esize = 1;
#endif
  switch (esize) {
    case 2:
      swap_copy<uint16_t, swap16>(dst, src, bytes / 2);
      break;
    case 4:
      swap_copy<uint32_t, swap32>(dst, src, bytes / 4);
      break;
    case 8:
      swap_copy<uint64_t, swap64>(dst, src, bytes / 8);
      break;
    default:
      if (dst != src) std::memmove(dst, src, static_cast<std::size_t>(bytes));
  }
}

}  // namespace esmio::backend::pnetcdf
