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

namespace esmio::backend {

class SerialBackend final : public Backend {
 public:
  SerialBackend() = default;
  SerialBackend(const SerialBackend &) = delete;
  SerialBackend &operator=(const SerialBackend &) = delete;
  ~SerialBackend() override;

  const char *name() const override { return "serial"; }

  Status create(MPI_Comm comm, const std::string &path, const FileOptions &options) override;
  Status open(MPI_Comm comm, const std::string &path, bool writable, const FileOptions &options,
              Schema *schema) override;

  Status def_dim(const std::string &name, int64_t len, int *dimid) override;
  Status def_var(const std::string &name, esmio_type type, const std::vector<int> &dimids,
                 int *varid) override;
  Status put_att(int varid, const std::string &name, esmio_type type, int64_t len,
                 const void *values) override;
  Status enddef() override;
  Status redef() override;

  Status inq_att(int varid, const std::string &name, esmio_type *type, int64_t *len) override;
  Status get_att(int varid, const std::string &name, esmio_type memtype, void *values) override;

  Status put_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                   const void *buffer) override;
  Status get_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                   void *buffer) override;
  Status inq_nrecords(int64_t *nrecords) override;

  Status sync() override;
  Status close() override;

 private:
  Status status_of(int err, const std::string &op, int varid = ESMIO_GLOBAL) const;
  std::string var_name(int varid) const;
  Status not_open(const char *op) const;
  Status check_comm(MPI_Comm comm, const char *op, const std::string &path) const;
  Status transfer(bool write, int varid, const std::vector<Box> &boxes, esmio_type buftype,
                  void *buffer);
  Status read_schema(Schema *schema) const;

  int ncid_ = -1;
  std::string path_;
  FileOptions options_;
};

std::unique_ptr<Backend> make_serial_backend();

}  // namespace esmio::backend
