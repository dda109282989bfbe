// Storage per dataset of a netCDF-4 (HDF5) file. A netCDF variable is the dataset of the same
// name in the file's root group (netCDF-C renames only a variable that shares a dimension's
// name without being its coordinate, "_nc4_non_coord_<name>"; tried second).
#include "storage_size.hpp"

#include <hdf5.h>

namespace esmio_bench {

bool dataset_storage_bytes(const std::string &path, const std::vector<std::string> &names,
                           std::vector<int64_t> *bytes, std::string *why) {
  // A missing dataset is an answer (-1), not an error to print: HDF5's error stack is off here.
  H5E_auto2_t old_func = nullptr;
  void *old_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  bytes->assign(names.size(), -1);
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) {
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    *why = "H5Fopen " + path + " failed";
    return false;
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    hid_t d = H5Dopen2(file, names[i].c_str(), H5P_DEFAULT);
    if (d < 0) d = H5Dopen2(file, ("_nc4_non_coord_" + names[i]).c_str(), H5P_DEFAULT);
    if (d < 0) continue;
    (*bytes)[i] = static_cast<int64_t>(H5Dget_storage_size(d));
    H5Dclose(d);
  }
  H5Fclose(file);
  H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
  return true;
}

}  // namespace esmio_bench
