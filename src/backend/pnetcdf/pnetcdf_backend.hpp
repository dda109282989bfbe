// The PnetCDF backend: CDF-1/2/5 files written collectively through MPI-IO by all I/O tasks.
// This header does not include pnetcdf.h, so that it can sit next to netcdf.h (both define the
// same NC_* macros with different values).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/pnetcdf/direct_read.hpp"
#include "backend/pnetcdf/direct_write.hpp"
#include "backend/pnetcdf/prefetch.hpp"
#include "backend/pnetcdf/var_layout.hpp"
#include "backend/space.hpp"

namespace esmio::backend {

class PnetcdfBackend final : public Backend {
 public:
  PnetcdfBackend() = default;
  PnetcdfBackend(const PnetcdfBackend &) = delete;
  PnetcdfBackend &operator=(const PnetcdfBackend &) = delete;
  // Collective, like close(): a file left open is closed here, so every rank must destroy its
  // backend (the api layer does, also on error paths).
  ~PnetcdfBackend() override;

  const char *name() const override { return "pnetcdf"; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.direct_dense_writes = true;
    return c;
  }

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
  Status inq_att_names(int varid, std::vector<std::string> *names) override;
  Status get_att(int varid, const std::string &name, esmio_type memtype, void *values) override;

  Status put_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                   const void *buffer) override;
  Status get_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                   void *buffer) override;
  // direct_read on a file open read-only: the ranges' stretches of the file read into memory
  // by a thread of the task's (pnetcdf/prefetch.hpp), for the read of (varid, record) to take.
  int64_t read_ahead(int varid, int64_t record, const std::vector<Run> &ranges) override;
  void read_ahead_cancel(int varid, int64_t record) override;
  Status put_requests(const std::vector<PutRequest> &requests) override;
  bool takes_extents() const override { return options_.direct_write && reserver_.is_open(); }
  Status put_extents(const std::vector<ExtentRequest> &requests) override;
  Status inq_nrecords(int64_t *nrecords) override;

  Status sync() override;
  Status close() override;
  Status limit_records(int64_t nrecords) override;

 private:
  // Translates a PnetCDF code for operation op (on variable varid, or none for ESMIO_GLOBAL).
  Status status_of(int err, const std::string &op, int varid = ESMIO_GLOBAL) const;
  // Empty for ESMIO_GLOBAL or an id that names no variable.
  std::string var_name(int varid) const;
  Status not_open(const char *op) const;
  // Nonblocking posts for every box of every request, one collective wait per call of at most
  // max_request_bytes. For reads, the requests' buffers are written.
  // direct: stretches esmio writes itself (put_extents; their variables' layouts in layouts
  // and their buffer type the variable's).
  Status transfer(bool write, const std::vector<PutRequest> &requests,
                  const std::vector<const ExtentRequest *> *direct = nullptr,
                  std::map<int, pnetcdf::VarLayout> layouts = {});
  using VarLayout = pnetcdf::VarLayout;
  // False when PnetCDF cannot say (the variable is not placed yet).
  bool var_layout(int varid, VarLayout *layout) const;
  // Raises *end to the file offset just past the last byte the boxes write, and appends to
  // *ranges the bytes each box writes in each of its records (first to last byte).
  static void note_file_end(const VarLayout &layout, const std::vector<Box> &boxes, MPI_Offset *end,
                            std::vector<space::Range> *ranges);
  // ESMIO_EIO when the first or last element of a box just written does not read back as
  // written (CDF stores big-endian; boxes PnetCDF converted from another type are not read).
  Status verify_written(int varid, const VarLayout &layout, const MPI_Offset *start,
                        const MPI_Offset *count, const char *buffer) const;
  // direct_read: the boxes' stretches read with pread (local; the caller agrees).
  Status read_direct(int varid, const VarLayout &layout, const std::vector<Box> &boxes,
                     void *buffer);
  // Opens read_fd_ on every rank and sets direct_read_ where all of them could (collective).
  void open_read_descriptor();
  Status read_schema(Schema *schema) const;
  // Where the data the header describes ends, with numrecs records (-1: the current count).
  MPI_Offset data_extent(MPI_Offset numrecs = -1) const;
  // ESMIO_ECORRUPT when the file ends before the data its header describes (a truncated
  // file, or records counted whose data never reached the disk). Local (rank 0 stats).
  Status check_extent() const;
  // PnetCDF leaves a file short when the last data in it was never written (NOFILL);
  // netCDF-C extends it at close, and so does esmio, so that every file it writes covers its
  // header's extent and a cut file is recognised at open. Rank 0, after a sync or close.
  Status complete_extent(MPI_Offset extent) const;
  void release_comm();

  MPI_Comm comm_ = MPI_COMM_NULL;  // our duplicate of the caller's communicator
  int ncid_ = -1;
  space::Reserver reserver_;        // the bytes written are reserved first (backend/space.hpp)
  pnetcdf::DirectWriter direct_;    // writes data through reserver_'s descriptor (direct_write)
  std::vector<pnetcdf::Run> runs_;  // of one transfer; kept to reuse its memory
  // direct_read: a read-only descriptor on every rank, the same decision everywhere.
  int read_fd_ = -1;
  bool direct_read_ = false;
  pnetcdf::DirectReader reader_;
  pnetcdf::Prefetcher prefetch_;  // read_ahead: stopped before read_fd_ closes
  std::vector<pnetcdf::ReadRun> read_runs_;
  bool in_define_ = false;  // created or redef'd, and not yet ended
  std::string path_;
  FileOptions options_;
  bool writable_ = false;
  int64_t record_limit_ = -1;  // limit_records(): the header's count is lowered at close
};

namespace pnetcdf {

// Translates a PnetCDF (or netCDF) error code into an esmio Status whose message names the
// operation, the file and, if not empty, the variable. NC_NOERR gives ok. (pnetcdf_errors.cpp)
Status translate_error(int nc_err, const std::string &operation, const std::string &path,
                       const std::string &variable);

// One collective call's share of a request: boxes (ndims entries each in starts/counts, flat)
// whose elements lie contiguously in the caller's buffer from element first_element on.
struct CallPiece {
  std::vector<int64_t> starts;
  std::vector<int64_t> counts;
  int64_t nboxes = 0;
  int64_t first_element = 0;
  int64_t nelems = 0;
};

// Splits a request so that no call moves more than max_bytes (at elem_bytes per element):
// boxes too big are cut along their slowest dimension with count > 1 (recursively, down to
// single elements if need be), then consecutive pieces are packed greedily into calls, keeping
// buffer order. Boxes with no elements are dropped. Every box must have ndims entries.
// A request within the limit gives one call holding all its boxes.
std::vector<CallPiece> split_request(const std::vector<Box> &boxes, int ndims, int64_t elem_bytes,
                                     int64_t max_bytes);

}  // namespace pnetcdf

std::unique_ptr<Backend> make_pnetcdf_backend();

}  // namespace esmio::backend
