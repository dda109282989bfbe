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

  Status create(MPI_Comm comm, const std::string &path, const FileOptions &options) override;
  Status open(MPI_Comm comm, const std::string &path, bool writable, const FileOptions &options,
              Schema *schema) override;
  Status enddef() override;

  Status put_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                   const void *buffer) override;
  Status get_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                   void *buffer) override;
  Status close() override;

 private:
  Status check_comm(MPI_Comm comm, const char *op, const std::string &path) const;
  Status transfer(bool write, int varid, const std::vector<Box> &boxes, esmio_type buftype,
                  void *buffer);
  Status read_schema(Schema *schema) const;
};

std::unique_ptr<Backend> make_serial_backend();

}  // namespace esmio::backend
