// Registration of the Zstandard HDF5 filter in this process (see zstd_filter.hpp).
#include "codec/zstd_filter.hpp"

#include <hdf5.h>

#include <string>

#include "codec/zstd_h5filter.h"

namespace esmio::codec {

static_assert(kZstdFilterId == ESMIO_H5Z_ZSTD_ID, "C and C++ filter ids differ");

Status register_zstd_filter() {
  htri_t avail = H5Zfilter_avail(kZstdFilterId);
  if (avail < 0) {
    return Status(ESMIO_EBACKEND, "HDF5: cannot query filter " + std::to_string(kZstdFilterId));
  }
  if (avail > 0) return Status::ok();
  if (H5Zregister(&esmio_h5z_zstd_class) < 0) {
    return Status(ESMIO_EBACKEND,
                  "HDF5: cannot register the zstd filter " + std::to_string(kZstdFilterId));
  }
  return Status::ok();
}

}  // namespace esmio::codec
