// Registration of the Zstandard HDF5 filter in this process (see zstd_filter.hpp).
#include "codec/zstd_filter.hpp"

#include <hdf5.h>

#include <string>

#include "codec/zstd_h5filter.h"

namespace esmio::codec {

static_assert(kZstdFilterId == ESMIO_H5Z_ZSTD_ID, "C and C++ filter ids differ");

Status register_zstd_filter() {
  // Registered even where a filter for the id is already available (the plugin, found through
  // HDF5_PLUGIN_PATH): H5Zregister replaces it with this copy of the same code, whose tallies
  // the trace reads (a plugin's copy compresses the same bytes, untimed: the codec's seconds
  // then vanish from the trace). Registering again is a no-op.
  if (H5Zregister(&esmio_h5z_zstd_class) < 0) {
    return Status(ESMIO_EBACKEND,
                  "HDF5: cannot register the zstd filter " + std::to_string(kZstdFilterId));
  }
  return Status::ok();
}

}  // namespace esmio::codec
