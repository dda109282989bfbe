// The classic netCDF formats hold every value big-endian: the byte order esmio's own data path
// (direct_write, direct_read) converts to and from.
#pragma once

#include <cstdint>

namespace esmio::backend::pnetcdf {

// dst = src with each esize-byte element's bytes reversed (big-endian on a little-endian host;
// a plain copy on a big-endian one or for esize 1). The swap is its own inverse, so the same
// call converts file bytes to native values; dst == src swaps in place.
void copy_to_big_endian(char *dst, const char *src, int64_t bytes, int esize);
inline void copy_from_big_endian(char *dst, const char *src, int64_t bytes, int esize) {
  copy_to_big_endian(dst, src, bytes, esize);
}

}  // namespace esmio::backend::pnetcdf
