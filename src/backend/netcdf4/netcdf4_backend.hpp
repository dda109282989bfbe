// The netcdf4 backend: parallel netCDF-4/HDF5 through netCDF-C (nc_create_par / nc_open_par on
// the I/O tasks' communicator), every variable in collective access so that chunked and
// filtered variables can be written in parallel (HDF5 >= 1.10.2 requires collective filtered
// writes with every rank calling). This header does not include netcdf.h (its NC_* macros
// clash with pnetcdf.h).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/netcdf4/band_exchange.hpp"
#include "backend/netcdf_c_common.hpp"
#include "backend/space.hpp"

namespace esmio::backend {

class Netcdf4Backend final : public netcdf_c::NetcdfCBackend {
 public:
  Netcdf4Backend() : NetcdfCBackend("netcdf4") {}
  Netcdf4Backend(const Netcdf4Backend &) = delete;
  Netcdf4Backend &operator=(const Netcdf4Backend &) = delete;
  ~Netcdf4Backend() override;

  const char *name() const override { return "netcdf4"; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.merges_requests = true;
    c.chunked_storage = true;
    return c;
  }

  Status create(MPI_Comm comm, const std::string &path, const FileOptions &options) override;
  Status open(MPI_Comm comm, const std::string &path, bool writable, const FileOptions &options,
              Schema *schema) override;

  Status def_var(const std::string &name, esmio_type type, const std::vector<int> &dimids,
                 int *varid) override;
  Status def_var_storage(int varid, const VarStorage &storage) override;
  Status enddef() override;
  Status redef() override;

  Status put_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                   const void *buffer) override;
  Status get_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                   void *buffer) override;
  Status put_requests(const std::vector<PutRequest> &requests) override;
  Status sync() override;
  // netCDF-4 counts the records of the longest variable: close cuts every record variable
  // back to nrecords after netCDF closed the file (hdf5_records.hpp).
  Status limit_records(int64_t nrecords) override;
  Status close() override;

 private:
  // One netCDF call's worth: a box and where its elements are in the caller's buffer.
  struct Piece {
    std::vector<size_t> start, count;
    unsigned char *data;
  };
  struct Transfer {
    int varid;
    std::vector<Box> boxes;
    esmio_type buftype;
    unsigned char *buffer;
  };
  // The collective core of every data call: each rank's transfers, grouped by variable in
  // ascending id; for each variable every rank makes the same number of netCDF calls (the
  // most boxes any rank has, each box cut to max_request_bytes), a rank with fewer boxes
  // passing empty ones.
  Status transfer(bool write, std::vector<Transfer> transfers);
  // Collective, after a write: for each variable written, one netCDF call on every rank, which
  // reads the corners of the box between the first and the last element the rank wrote and
  // compares those that lie in what it wrote (its first and last element at least) with what
  // it wrote. ompio drops the error of a collective write inside HDF5 on every rank
  // (tests/faults/io_error.sh): this is how esmio finds out.
  Status verify_written(const std::map<int, std::vector<Piece>> &pieces,
                        const std::vector<int64_t> &most);
  // Collective, before a write: each filtered variable that some task holds in several pieces,
  // all of one record that the tasks' pieces cover whole, is regrouped into bands
  // (netcdf4/band_regroup.hpp): afterwards every task holds it in one piece (or none), and
  // HDF5 writes it in one collective call in which every task compresses at once.
  Status regroup_into_bands(std::map<int, std::vector<Piece>> *pieces, std::vector<int64_t> *most);
  Status read_schema(Schema *schema);
  Status after_open(Schema *schema, bool writable);
  void release_comm();
  // Collective: rank 0 reserves tail bytes past the file's end and, for data (holes), the
  // file's holes: where HDF5 writes next. Every rank gets the outcome before HDF5 is asked to
  // write (backend/space.hpp). Metadata goes to the end of HDF5's address space.
  Status reserve(const char *op, int64_t tail, bool holes);
  Status before_metadata(const char *op) override;
  void start_reserving();

  MPI_Comm comm_ = MPI_COMM_NULL;  // our duplicate of the caller's communicator
  space::Reserver reserver_;       // rank 0 of comm_ only
  bool writable_ = false;          // the same on every rank: reservations are collective
  bool in_define_ = false;         // created or redef'd, and not yet ended
  int nvars_ = 0;
  std::vector<esmio_type> var_types_;
  // Set (on every rank: it is agreed) when a write did not reach the file. HDF5 is not asked
  // to write or flush again: ompio keeps the failed request, and the MPI_File_sync inside
  // every later H5Fflush returns early on one rank while the others wait in its barrier.
  Status failed_;
  int64_t record_limit_ = -1;  // limit_records: -1, none
  // The bands of the write in progress (regroup_into_bands) and the exchange's buffers, kept
  // from one write to the next.
  std::vector<std::vector<unsigned char>> band_values_;
  netcdf4::BandScratch band_scratch_;
  static constexpr std::size_t kKeptBandBytes = std::size_t(32) << 20;
  void release_large_bands();
};

std::unique_ptr<Backend> make_netcdf4_backend();

}  // namespace esmio::backend
