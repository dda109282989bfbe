/*
 * The Zstandard HDF5 filter (id 32015): see zstd_h5filter.h for the format and why no HDF5
 * function may be called here.
 */
#include "zstd_h5filter.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>
#include <zstd_errors.h>

/* HDF5 chunks are smaller than 4 GiB; a frame announcing more is corrupt, and refusing it keeps a
 * damaged header from asking for an absurd allocation. */
#define MAX_CHUNK_BYTES ((unsigned long long)UINT32_MAX)

static esmio_h5z_zstd_tally g_tallies[2];

static double monotonic_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void esmio_h5z_zstd_tallies(esmio_h5z_zstd_tally out[2]) {
  memcpy(out, g_tallies, sizeof g_tallies);
}

/* Both codecs leave the input alone and hand back a new malloc'ed buffer, so that on failure
 * HDF5 still holds its chunk as it was. */
static size_t compress_chunk(int level, const void *in, size_t nbytes, void **out,
                             size_t *out_size) {
  size_t bound = ZSTD_compressBound(nbytes);
  if (ZSTD_isError(bound)) return 0;
  void *dst = malloc(bound);
  if (dst == NULL) return 0;
  /* ZSTD_compress records the content size in the frame header, which readers of this format
   * (ours included) use to size their output buffer. */
  size_t n = ZSTD_compress(dst, bound, in, nbytes, level);
  if (ZSTD_isError(n)) {
    free(dst);
    return 0;
  }
  *out = dst;
  *out_size = bound;
  return n;
}

/* For frames written without a content size (streaming writers) or several concatenated frames,
 * whose total size no single header gives: decode into a buffer that grows as needed. */
static size_t decompress_stream(const void *in, size_t nbytes, size_t capacity, void **out,
                                size_t *out_size) {
  if (capacity > MAX_CHUNK_BYTES) capacity = (size_t)MAX_CHUNK_BYTES;
  ZSTD_DStream *ds = ZSTD_createDStream();
  if (ds == NULL) return 0;
  unsigned char *dst = malloc(capacity);
  ZSTD_inBuffer input = {in, nbytes, 0};
  ZSTD_outBuffer output = {dst, capacity, 0};
  size_t last = 1;
  while (dst != NULL) {
    if (output.pos == output.size) {
      if (capacity >= MAX_CHUNK_BYTES) break;
      capacity = capacity > MAX_CHUNK_BYTES / 2 ? (size_t)MAX_CHUNK_BYTES : 2 * capacity;
      unsigned char *grown = realloc(dst, capacity);
      if (grown == NULL) break;
      dst = grown;
      output.dst = dst;
      output.size = capacity;
    }
    last = ZSTD_decompressStream(ds, &output, &input);
    if (ZSTD_isError(last)) break;
    /* With all input consumed, 0 means the last frame is decoded and flushed; anything else
     * with output room to spare means zstd wants input there is none of (truncated data). */
    if (input.pos == input.size && (last == 0 || output.pos < output.size)) break;
  }
  ZSTD_freeDStream(ds);
  if (dst == NULL || ZSTD_isError(last) || last != 0 || input.pos != input.size) {
    free(dst);
    return 0;
  }
  *out = dst;
  *out_size = capacity;
  return output.pos;
}

static size_t decompress_chunk(const void *in, size_t nbytes, void **out, size_t *out_size) {
  unsigned long long content = ZSTD_getFrameContentSize(in, nbytes);
  if (content == ZSTD_CONTENTSIZE_ERROR) return 0;
  if (content == ZSTD_CONTENTSIZE_UNKNOWN) {
    return decompress_stream(in, nbytes, nbytes < 4096 ? 16384 : 4 * nbytes, out, out_size);
  }
  if (content > MAX_CHUNK_BYTES) return 0;
  /* malloc(0) may return NULL, which would read as failure. */
  size_t capacity = content > 0 ? (size_t)content : 1;
  void *dst = malloc(capacity);
  if (dst == NULL) return 0;
  size_t n = ZSTD_decompress(dst, (size_t)content, in, nbytes);
  if (ZSTD_isError(n) || n != content) {
    free(dst);
    /* More than one frame: the first header undercounts, so decode without a size hint. */
    if (ZSTD_isError(n) && ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall) {
      return decompress_stream(in, nbytes, 2 * capacity, out, out_size);
    }
    return 0;
  }
  *out = dst;
  *out_size = capacity;
  return n;
}

size_t esmio_h5z_zstd_filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                             size_t nbytes, size_t *buf_size, void **buf) {
  if (buf == NULL || *buf == NULL || buf_size == NULL) return 0;
  void *out = NULL;
  size_t out_size = 0;
  size_t n;
  const double start = monotonic_seconds();
  const int reverse = (flags & H5Z_FLAG_REVERSE) ? 1 : 0;
  if (reverse) {
    /* The level is a writer's choice and plays no part in decoding. */
    n = decompress_chunk(*buf, nbytes, &out, &out_size);
  } else {
    /* Negative (fast) levels arrive as the unsigned image of a C int, as netCDF stores them. */
    int level = cd_nelmts > 0 ? (int)cd_values[0] : ESMIO_H5Z_ZSTD_DEFAULT_LEVEL;
    /* Rejected rather than clamped, so that a typo in the level fails the write loudly. */
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) return 0;
    n = compress_chunk(level, *buf, nbytes, &out, &out_size);
  }
  if (out == NULL) return 0;
  esmio_h5z_zstd_tally *t = &g_tallies[reverse];
  t->calls += 1;
  t->bytes_in += (long long)nbytes;
  t->bytes_out += (long long)n;
  t->seconds += monotonic_seconds() - start;
  /* HDF5 1.10 allocates and frees filter buffers with malloc/free. */
  free(*buf);
  *buf = out;
  *buf_size = out_size;
  return n;
}

const H5Z_class2_t esmio_h5z_zstd_class = {
    H5Z_CLASS_T_VERS,      /* version */
    ESMIO_H5Z_ZSTD_ID,     /* id */
    1,                     /* encoder_present */
    1,                     /* decoder_present */
    "Zstandard (esmio)",   /* name */
    NULL,                  /* can_apply */
    NULL,                  /* set_local */
    esmio_h5z_zstd_filter, /* filter */
};
