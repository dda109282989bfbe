#include "backend/netcdf4/hdf5_records.hpp"

#include <hdf5.h>

#include <algorithm>
#include <vector>

namespace esmio::backend::hdf5 {

namespace {

struct Lowering {
  int64_t nrecords = 0;
  int64_t before = 0;
  std::string failed;  // the first dataset that could not be cut back, and why
};

// One link of a group: a dataset cut back, a group recursed into (H5Literate's callback).
herr_t lower_object(hid_t group, const char *name, const H5L_info_t *, void *data) {
  auto *lowering = static_cast<Lowering *>(data);
  const hid_t object = H5Oopen(group, name, H5P_DEFAULT);
  if (object < 0) {
    lowering->failed = std::string("open '") + name + "'";
    return -1;
  }
  herr_t err = 0;
  if (H5Iget_type(object) == H5I_GROUP) {
    err = H5Literate(object, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, lower_object, data);
  } else if (H5Iget_type(object) == H5I_DATASET) {
    const hid_t space = H5Dget_space(object);
    const int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0))), max(dims.size());
    if (rank < 0 || (rank > 0 && H5Sget_simple_extent_dims(space, dims.data(), max.data()) < 0))
      err = -1;
    if (err == 0 && rank > 0 && max[0] == H5S_UNLIMITED) {
      lowering->before = std::max(lowering->before, static_cast<int64_t>(dims[0]));
      if (static_cast<int64_t>(dims[0]) > lowering->nrecords) {
        dims[0] = static_cast<hsize_t>(lowering->nrecords);
        err = H5Dset_extent(object, dims.data());
      }
    }
    if (space >= 0) H5Sclose(space);
    if (err < 0 && lowering->failed.empty())
      lowering->failed = std::string("cut dataset '") + name + "' back";
  }
  if (H5Oclose(object) < 0 && err == 0) err = -1;
  if (err < 0 && lowering->failed.empty()) lowering->failed = std::string("close '") + name + "'";
  return err;
}

}  // namespace

Status lower_records(const std::string &path, int64_t nrecords, int64_t *before) {
  // HDF5's error stack stays quiet: the failure is reported in the status.
  H5E_auto2_t old_func = nullptr;
  void *old_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Lowering lowering;
  lowering.nrecords = nrecords;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) {
    lowering.failed = "open";
  } else {
    if (H5Literate(file, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, lower_object, &lowering) < 0 &&
        lowering.failed.empty())
      lowering.failed = "visit the datasets";
    if (H5Fclose(file) < 0 && lowering.failed.empty()) lowering.failed = "close";
  }
  H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
  *before = lowering.before;
  if (lowering.failed.empty()) return Status::ok();
  return Status(ESMIO_EIO, "lowering the record count of '" + path + "' to " +
                               std::to_string(nrecords) + ": HDF5 could not " + lowering.failed);
}

}  // namespace esmio::backend::hdf5
