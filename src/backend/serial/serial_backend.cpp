#include "backend/serial/serial_backend.hpp"

#include <netcdf.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "backend/cdf_header.hpp"
#include "backend/netcdf4/hdf5_records.hpp"
#include "backend/netcdf_c_common.hpp"
#include "common/types.hpp"

namespace esmio::backend {

namespace {

// The layout PnetCDF gives by default (data section aligned to 512 bytes, record section to
// 4), so that the reference files and PnetCDF's share one layout.
constexpr size_t kVarAlign = 512;
constexpr size_t kRecordAlign = 4;

bool format_flag(const std::string &format, int *flag) {
  if (format == "cdf1") {
    *flag = 0;
  } else if (format == "cdf2") {
    *flag = NC_64BIT_OFFSET;
  } else if (format == "cdf5") {
    *flag = NC_64BIT_DATA;
  } else if (format == "netcdf4") {
    *flag = NC_NETCDF4;
  } else {
    return false;
  }
  return true;
}

int put_vara(int ncid, int varid, const size_t *start, const size_t *count, esmio_type type,
             const void *buf) {
  switch (type) {
    case ESMIO_BYTE:
      return nc_put_vara_schar(ncid, varid, start, count, static_cast<const signed char *>(buf));
    case ESMIO_CHAR:
      return nc_put_vara_text(ncid, varid, start, count, static_cast<const char *>(buf));
    case ESMIO_SHORT:
      return nc_put_vara_short(ncid, varid, start, count, static_cast<const short *>(buf));
    case ESMIO_INT:
      return nc_put_vara_int(ncid, varid, start, count, static_cast<const int *>(buf));
    case ESMIO_FLOAT:
      return nc_put_vara_float(ncid, varid, start, count, static_cast<const float *>(buf));
    case ESMIO_DOUBLE:
      return nc_put_vara_double(ncid, varid, start, count, static_cast<const double *>(buf));
    case ESMIO_INT64:
      return nc_put_vara_longlong(ncid, varid, start, count, static_cast<const long long *>(buf));
    case ESMIO_UBYTE:
      return nc_put_vara_uchar(ncid, varid, start, count, static_cast<const unsigned char *>(buf));
    case ESMIO_USHORT:
      return nc_put_vara_ushort(ncid, varid, start, count,
                                static_cast<const unsigned short *>(buf));
    case ESMIO_UINT:
      return nc_put_vara_uint(ncid, varid, start, count, static_cast<const unsigned int *>(buf));
    case ESMIO_UINT64:
      return nc_put_vara_ulonglong(ncid, varid, start, count,
                                   static_cast<const unsigned long long *>(buf));
  }
  return NC_EBADTYPE;
}

int get_vara(int ncid, int varid, const size_t *start, const size_t *count, esmio_type type,
             void *buf) {
  switch (type) {
    case ESMIO_BYTE:
      return nc_get_vara_schar(ncid, varid, start, count, static_cast<signed char *>(buf));
    case ESMIO_CHAR:
      return nc_get_vara_text(ncid, varid, start, count, static_cast<char *>(buf));
    case ESMIO_SHORT:
      return nc_get_vara_short(ncid, varid, start, count, static_cast<short *>(buf));
    case ESMIO_INT:
      return nc_get_vara_int(ncid, varid, start, count, static_cast<int *>(buf));
    case ESMIO_FLOAT:
      return nc_get_vara_float(ncid, varid, start, count, static_cast<float *>(buf));
    case ESMIO_DOUBLE:
      return nc_get_vara_double(ncid, varid, start, count, static_cast<double *>(buf));
    case ESMIO_INT64:
      return nc_get_vara_longlong(ncid, varid, start, count, static_cast<long long *>(buf));
    case ESMIO_UBYTE:
      return nc_get_vara_uchar(ncid, varid, start, count, static_cast<unsigned char *>(buf));
    case ESMIO_USHORT:
      return nc_get_vara_ushort(ncid, varid, start, count, static_cast<unsigned short *>(buf));
    case ESMIO_UINT:
      return nc_get_vara_uint(ncid, varid, start, count, static_cast<unsigned int *>(buf));
    case ESMIO_UINT64:
      return nc_get_vara_ulonglong(ncid, varid, start, count,
                                   static_cast<unsigned long long *>(buf));
  }
  return NC_EBADTYPE;
}

}  // namespace

// The rule is the same on every rank of comm, so every rank returns the same refusal without
// communicating.
Status SerialBackend::check_comm(MPI_Comm comm, const char *op, const std::string &path) const {
  int size = 0;
  if (MPI_Comm_size(comm, &size) != MPI_SUCCESS) {
    return Status(ESMIO_EMPI,
                  std::string("serial netcdf: ") + op + " '" + path + "': MPI_Comm_size failed");
  }
  if (size != 1) {
    return Status(ESMIO_EINVAL, std::string("serial netcdf: ") + op + " '" + path +
                                    "': the serial backend runs on one task, but was given " +
                                    std::to_string(size) + " ranks");
  }
  if (ncid_ >= 0) {
    return Status(ESMIO_EINVAL, std::string("serial netcdf: ") + op + " '" + path +
                                    "': the backend already has '" + path_ + "' open");
  }
  return Status::ok();
}

Status SerialBackend::create(MPI_Comm comm, const std::string &path, const FileOptions &options) {
  ESMIO_RETURN_IF_ERROR(check_comm(comm, "create", path));
  int format = 0;
  if (!format_flag(options.format, &format)) {
    return Status(ESMIO_EBADNAME, "serial netcdf: create '" + path + "': unknown format '" +
                                      options.format + "' (known: cdf1, cdf2, cdf5, netcdf4)");
  }
  path_ = path;
  options_ = options;
  int ncid = -1;
  const int cmode = (options.clobber ? NC_CLOBBER : NC_NOCLOBBER) | format;
  int err = nc_create(path.c_str(), cmode, &ncid);
  if (err != NC_NOERR) return status_of(err, "create");
  ncid_ = ncid;
  synced_records_ = 0;
  write_failed_ = false;
  record_limit_ = -1;
  // esmio writes every element itself (holes as fill), so prefilling would write twice.
  int old_mode = 0;
  err = nc_set_fill(ncid_, NC_NOFILL, &old_mode);
  if (err != NC_NOERR) {
    Status status = status_of(err, "set_fill");
    nc_close(ncid_);
    ncid_ = -1;
    return status;
  }
  return Status::ok();
}

Status SerialBackend::read_schema(Schema *schema) const {
  int bad_varid = ESMIO_GLOBAL;
  const int err = netcdf_c::read_schema(ncid_, schema, &bad_varid);
  return status_of(err, "inq", bad_varid);
}

Status SerialBackend::open(MPI_Comm comm, const std::string &path, bool writable,
                           const FileOptions &options, Schema *schema) {
  ESMIO_RETURN_IF_ERROR(check_comm(comm, "open", path));
  path_ = path;
  options_ = options;
  options_.header_pad = 0;  // the room was reserved when the file was created
  int ncid = -1;
  int err = nc_open(path.c_str(), writable ? NC_WRITE : NC_NOWRITE, &ncid);
  if (err != NC_NOERR) return status_of(err, "open");
  ncid_ = ncid;
  write_failed_ = false;
  record_limit_ = -1;
  Status status = status_of(netcdf_c::inq_nrecords(ncid_, &synced_records_), "inq_nrecords");
  if (status.is_ok() && writable) {
    int old_mode = 0;
    status = status_of(nc_set_fill(ncid_, NC_NOFILL, &old_mode), "set_fill");
  }
  if (status.is_ok() && schema != nullptr) status = read_schema(schema);
  if (!status.is_ok()) {
    nc_close(ncid_);
    ncid_ = -1;
  }
  return status;
}

Status SerialBackend::enddef() {
  if (ncid_ < 0) return not_open("enddef");
  // h_minfree leaves room for attributes added later without moving the data. Only the first
  // enddef reserves it: asking again after redef would move the data to make new room.
  const size_t pad = static_cast<size_t>(std::max<int64_t>(options_.header_pad, 0));
  const size_t align = options_.align > 0 ? static_cast<size_t>(options_.align) : kVarAlign;
  const size_t record_align = options_.align > 0 ? align : kRecordAlign;
  Status status = status_of(nc__enddef(ncid_, pad, align, 0, record_align), "enddef");
  if (status.is_ok()) options_.header_pad = 0;
  return status;
}

Status SerialBackend::transfer(bool write, int varid, const std::vector<Box> &boxes,
                               esmio_type buftype, void *buffer) {
  const char *op = write ? "put_vara" : "get_vara";
  int ndims = 0;
  int err = nc_inq_varndims(ncid_, varid, &ndims);
  if (err != NC_NOERR) return status_of(err, op, varid);
  if (!type_is_known(buftype)) return status_of(NC_EBADTYPE, op, varid);
  const std::size_t elem = type_size(buftype);

  Status status;
  std::vector<size_t> start(ndims);
  std::vector<size_t> count(ndims);
  char *buf = static_cast<char *>(buffer);
  for (const Box &box : boxes) {
    bool ok =
        static_cast<int>(box.start.size()) == ndims && static_cast<int>(box.count.size()) == ndims;
    int64_t nelems = 1;
    for (int d = 0; ok && d < ndims; ++d) {
      ok = box.start[d] >= 0 && box.count[d] >= 0;
      nelems *= box.count[d];
    }
    if (!ok) {
      return Status(ESMIO_EINVAL,
                    "serial netcdf: " + std::string(op) + " on '" + path_ + "' variable '" +
                        var_name(varid) + "': a box does not have one non-negative start and " +
                        "count for each of its " + std::to_string(ndims) + " dimensions");
    }
    if (nelems == 0) continue;
    for (int d = 0; d < ndims; ++d) {
      start[d] = static_cast<size_t>(box.start[d]);
      count[d] = static_cast<size_t>(box.count[d]);
    }
    err = write ? put_vara(ncid_, varid, start.data(), count.data(), buftype, buf)
                : get_vara(ncid_, varid, start.data(), count.data(), buftype, buf);
    if (err != NC_NOERR) {
      // NC_ERANGE still transferred the box; anything else stops the request, and a failed
      // write may have lost data netCDF buffered for earlier puts too.
      if (write && err != NC_ERANGE) write_failed_ = true;
      if (status.is_ok()) status = status_of(err, op, varid);
      if (err != NC_ERANGE) return status;
    }
    buf += nelems * elem;
  }
  return status;
}

Status SerialBackend::put_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                                const void *buffer) {
  if (ncid_ < 0) return not_open("put_boxes");
  // netCDF's put takes a const buffer; transfer() shares one path for both directions.
  return transfer(true, varid, boxes, buftype, const_cast<void *>(buffer));
}

Status SerialBackend::get_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                                void *buffer) {
  if (ncid_ < 0) return not_open("get_boxes");
  return transfer(false, varid, boxes, buftype, buffer);
}

Status SerialBackend::claimed_records(int64_t *nrecords) {
  ESMIO_RETURN_IF_ERROR(status_of(netcdf_c::inq_nrecords(ncid_, nrecords), "inq_nrecords"));
  if (write_failed_) *nrecords = std::min(*nrecords, synced_records_);
  if (record_limit_ >= 0) *nrecords = std::min(*nrecords, record_limit_);
  return Status::ok();
}

Status SerialBackend::inq_nrecords(int64_t *nrecords) {
  if (ncid_ < 0) return not_open("inq_nrecords");
  int64_t n = 0;
  ESMIO_RETURN_IF_ERROR(claimed_records(&n));
  if (nrecords != nullptr) *nrecords = n;
  return Status::ok();
}

Status SerialBackend::sync() {
  if (ncid_ < 0) return not_open("sync");
  const Status status = NetcdfCBackend::sync();
  int64_t n = 0;
  if (!status.is_ok())
    write_failed_ = true;
  else if (!write_failed_ && netcdf_c::inq_nrecords(ncid_, &n) == NC_NOERR)
    synced_records_ = n;
  return status;
}

Status SerialBackend::limit_records(int64_t nrecords) {
  record_limit_ = nrecords;
  return Status::ok();
}

Status SerialBackend::close() {
  if (ncid_ < 0) return not_open("close");
  int format = 0;
  const bool known_format = nc_inq_format(ncid_, &format) == NC_NOERR;
  int64_t claim = -1;  // -1: whatever netCDF counts
  const bool limited = write_failed_ || record_limit_ >= 0;
  Status claimed = limited ? claimed_records(&claim) : Status::ok();
  Status status = status_of(close_file(), "close");
  // netCDF's close writes its own count (the records it was given, lost data included) and
  // the buffers it still held: a failure there may have lost data the last sync did not see.
  if (!status.is_ok() && !write_failed_) {
    write_failed_ = true;
    if (claimed.is_ok()) claim = claim < 0 ? synced_records_ : std::min(claim, synced_records_);
  }
  if (!claimed.is_ok()) {
    // The count could not be read: claim no more than the last sync saw.
    claim = record_limit_ >= 0 ? std::min(record_limit_, synced_records_) : synced_records_;
  }
  if (claim >= 0) {
    int64_t before = 0;
    const Status lowered = known_format && format == NC_FORMAT_NETCDF4
                               ? hdf5::lower_records(path_, claim, &before)
                               : cdf::lower_numrecs(path_, claim, &before);
    // Neither failure is dropped: the count esmio reports holds only if the lowering worked.
    if (status.is_ok())
      status = lowered;
    else if (!lowered.is_ok())
      status = Status(status.code(), status.message() + "; " + lowered.message());
  }
  return status;
}

std::unique_ptr<Backend> make_serial_backend() { return std::make_unique<SerialBackend>(); }

}  // namespace esmio::backend
