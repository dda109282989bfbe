/*
 * HDF5 dynamic-plugin entry points for the Zstandard filter (id 32015): built with
 * zstd_h5filter.c into libesmio_h5zstd.so, which any HDF5 1.10+ reader loads from
 * HDF5_PLUGIN_PATH. Linked to zstd only, never to a libhdf5, so that serial and MPI builds of
 * HDF5 alike can load it.
 */
#include <H5PLextern.h>

#include "zstd_h5filter.h"

H5PL_type_t H5PLget_plugin_type(void) { return H5PL_TYPE_FILTER; }

const void *H5PLget_plugin_info(void) { return &esmio_h5z_zstd_class; }
