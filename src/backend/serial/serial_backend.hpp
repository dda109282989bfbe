// The serial backend: netCDF-C on one task, the classic gather-to-root baseline and the
// bit-for-bit reference. The api layer gathers whole records to that task and hands this
// backend a communicator of exactly one rank. This header does not include netcdf.h (its NC_*
// macros clash with pnetcdf.h).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/netcdf_c_common.hpp"

namespace esmio::backend {

class SerialBackend final : public netcdf_c::NetcdfCBackend {
 public:
  SerialBackend() : NetcdfCBackend("serial netcdf") {}
  SerialBackend(const SerialBackend &) = delete;
  SerialBackend &operator=(const SerialBackend &) = delete;

  const char *name() const override { return "serial"; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.gathers_to_root = true;
    return c;
  }

  Status create(MPI_Comm comm, const std::string &path, const FileOptions &options) override;
  Status open(MPI_Comm comm, const std::string &path, bool writable, const FileOptions &options,
              Schema *schema) override;
  Status enddef() override;

  Status put_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                   const void *buffer) override;
  Status get_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                   void *buffer) override;
  // The records the file claims once closed: netCDF's count, but after a write failed no more
  // than the last successful sync saw reach the file (below), nor than limit_records allows.
  Status inq_nrecords(int64_t *nrecords) override;
  Status sync() override;
  Status limit_records(int64_t nrecords) override;
  Status close() override;

 private:
  Status check_comm(MPI_Comm comm, const char *op, const std::string &path) const;
  Status transfer(bool write, int varid, const std::vector<Box> &boxes, esmio_type buftype,
                  void *buffer);
  Status read_schema(Schema *schema) const;
  Status claimed_records(int64_t *nrecords);

  // netCDF-C buffers what it is given: a put that returned success may still be lost when the
  // buffer is written out. The records the file held at the last successful nc_sync (or at
  // open) are known to be there; once a write or a sync failed, nothing later is trusted, and
  // the file is closed claiming only those.
  int64_t synced_records_ = 0;
  bool write_failed_ = false;
  int64_t record_limit_ = -1;  // limit_records: -1, none
};

std::unique_ptr<Backend> make_serial_backend();

}  // namespace esmio::backend
