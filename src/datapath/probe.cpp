#include "datapath/probe.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "backend/backend.hpp"

namespace esmio::datapath {

OnDisk probe_file(const Group &group, const std::string &path) {
  int64_t facts[3] = {0, 0, -1};  // kind (1, 2, 5: CDF-1/2/5; 4: HDF5), readable, size
  if (group.rank == 0) {
    unsigned char magic[8] = {0};
    if (FILE *f = std::fopen(path.c_str(), "rb")) {
      facts[1] = 1;
      const std::size_t n = std::fread(magic, 1, sizeof magic, f);
      if (n == sizeof magic && std::memcmp(magic, "\x89HDF\r\n\x1a\n", 8) == 0)
        facts[0] = 4;
      else if (n >= 4 && std::memcmp(magic, "CDF", 3) == 0 &&
               (magic[3] == 1 || magic[3] == 2 || magic[3] == 5))
        facts[0] = magic[3];
      std::fclose(f);
      struct stat info;
      if (stat(path.c_str(), &info) == 0) facts[2] = static_cast<int64_t>(info.st_size);
    }
  }
  MPI_Bcast(facts, 3, MPI_INT64_T, 0, group.comm);
  OnDisk d;
  d.format = facts[0] == 1   ? "cdf1"
             : facts[0] == 2 ? "cdf2"
             : facts[0] == 5 ? "cdf5"
             : facts[0] == 4 ? "netcdf4"
                             : "";
  d.readable = facts[1] != 0;
  d.size = facts[2];
  return d;
}

Status check_classic_extent(const Group &group, const std::string &path, const OnDisk &d,
                            const backend::FileOptions &options) {
  Status status;
  if (group.rank == 0 && options.size_check && !d.format.empty() && d.format != "netcdf4") {
    std::unique_ptr<backend::Backend> pnetcdf;
    status = backend::make_backend("pnetcdf", &pnetcdf);
    if (status.is_ok()) {
      backend::Schema schema;
      status = pnetcdf->open(MPI_COMM_SELF, path, false, options, &schema);
      if (status.is_ok()) status = pnetcdf->close();
    } else if (status.code() == ESMIO_ENOTBUILT) {
      status = Status::ok();  // nothing to check with
    }
  }
  return status;
}

Status explain_create_failure(const Group &group, const std::string &path, const Status &failed) {
  if (failed.is_ok()) return failed;
  // 1: the directory is missing; 2: it is on a read-only file system; 3: not writable.
  int reason = 0;
  std::string dir = path.substr(0, path.find_last_of('/') + 1);
  if (dir.empty()) dir = ".";
  if (group.rank == 0) {
    struct stat info;
    struct statvfs fs;
    if (stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
      reason = 1;
    else if (statvfs(dir.c_str(), &fs) == 0 && (fs.f_flag & ST_RDONLY))
      reason = 2;
    else if (access(dir.c_str(), W_OK) != 0)
      reason = 3;
  }
  MPI_Bcast(&reason, 1, MPI_INT, 0, group.comm);
  const char *why = reason == 1   ? "the directory does not exist"
                    : reason == 2 ? "the directory is on a read-only file system"
                    : reason == 3 ? "the directory is not writable (permission denied)"
                                  : nullptr;
  if (why == nullptr) return failed;
  return Status(ESMIO_EIO, "esmio_create: '" + path + "': " + why + " ('" + dir +
                               "'); the storage library said: " + failed.message());
}

Status explain_open_failure(const OnDisk &d, const std::string &path, const Status &failed) {
  if (failed.is_ok() || !d.readable || failed.code() == ESMIO_ECORRUPT) return failed;
  const std::string size = std::to_string(d.size) + " bytes";
  if (d.format.empty())
    return Status(ESMIO_ENOTNC, "esmio_open: '" + path + "' is not a netCDF file (" + size +
                                    ", starting with neither 'CDF' nor the HDF5 signature)");
  // A classic header that the library cannot parse is damaged; HDF5 files have their own
  // truncation check in the backend, and other HDF5 failures keep their code.
  const bool classic = d.format != "netcdf4";
  if (classic && (failed.code() == ESMIO_ENOTNC || failed.code() == ESMIO_EIO ||
                  failed.code() == ESMIO_EBACKEND || failed.code() == ESMIO_EUNLIMPOS))
    return Status(ESMIO_ECORRUPT, "esmio_open: '" + path + "' starts as a " + d.format +
                                      " file but its header is damaged or cut (" + size +
                                      "): " + failed.message());
  return failed;
}

}  // namespace esmio::datapath
