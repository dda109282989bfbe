/*
 * The community Zstandard HDF5 filter (registered id 32015, the format of
 * aparamon/HDF5Plugin-Zstandard and hdf5plugin): each chunk is one zstd frame with its content
 * size; cd_values[0], if given, is the compression level (a C int stored as unsigned).
 *
 * Uses HDF5's types only and calls no HDF5 function, so that the same code serves esmio in
 * process (registered with H5Zregister) and the plugin that serial readers load through
 * HDF5_PLUGIN_PATH, whichever libhdf5 they are linked to.
 */
#ifndef ESMIO_CODEC_ZSTD_H5FILTER_H
#define ESMIO_CODEC_ZSTD_H5FILTER_H

/* H5Zpublic.h uses hid_t without including its header (HDF5 1.10). */
#include <H5Ipublic.h>
#include <H5Zpublic.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ESMIO_H5Z_ZSTD_ID 32015
/* Level used when the variable's filter has no parameters (zstd's own default). */
#define ESMIO_H5Z_ZSTD_DEFAULT_LEVEL 3

/* An H5Z_func_t. Returns the number of valid bytes in *buf, or 0 on failure, in which case
 * *buf and *buf_size are left as they were. */
size_t esmio_h5z_zstd_filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                             size_t nbytes, size_t *buf_size, void **buf);

extern const H5Z_class2_t esmio_h5z_zstd_class;

/* What this copy of the filter did since the process started, for esmio's trace: chunks,
 * bytes before and after (compression: in = raw, out = compressed; decompression the other way
 * round) and seconds (monotonic clock) inside zstd. HDF5 runs filters on the calling thread,
 * one at a time. */
typedef struct {
  long long calls;
  long long bytes_in;
  long long bytes_out;
  double seconds;
} esmio_h5z_zstd_tally;
/* [0]: compression, [1]: decompression. */
void esmio_h5z_zstd_tallies(esmio_h5z_zstd_tally out[2]);

#ifdef __cplusplus
}
#endif

#endif /* ESMIO_CODEC_ZSTD_H5FILTER_H */
