#include "backend/pnetcdf/pnetcdf_backend.hpp"

#include <fcntl.h>
#include <pnetcdf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "backend/cdf_header.hpp"
#include "common/agree.hpp"
#include "common/types.hpp"

namespace esmio::backend {

namespace {

// The on-disk format flag for a format name; false for an unknown name.
bool format_flag(const std::string &format, int *flag) {
  if (format == "cdf1") {
    *flag = NC_CLASSIC_MODEL;
  } else if (format == "cdf2") {
    *flag = NC_64BIT_OFFSET;
  } else if (format == "cdf5") {
    *flag = NC_64BIT_DATA;
  } else {
    return false;
  }
  return true;
}

int get_att_typed(int ncid, int varid, const char *name, esmio_type type, void *values) {
  switch (type) {
    case ESMIO_BYTE:
      return ncmpi_get_att_schar(ncid, varid, name, static_cast<signed char *>(values));
    case ESMIO_CHAR:
      return ncmpi_get_att_text(ncid, varid, name, static_cast<char *>(values));
    case ESMIO_SHORT:
      return ncmpi_get_att_short(ncid, varid, name, static_cast<short *>(values));
    case ESMIO_INT:
      return ncmpi_get_att_int(ncid, varid, name, static_cast<int *>(values));
    case ESMIO_FLOAT:
      return ncmpi_get_att_float(ncid, varid, name, static_cast<float *>(values));
    case ESMIO_DOUBLE:
      return ncmpi_get_att_double(ncid, varid, name, static_cast<double *>(values));
    case ESMIO_INT64:
      return ncmpi_get_att_longlong(ncid, varid, name, static_cast<long long *>(values));
    case ESMIO_UBYTE:
      return ncmpi_get_att_uchar(ncid, varid, name, static_cast<unsigned char *>(values));
    case ESMIO_USHORT:
      return ncmpi_get_att_ushort(ncid, varid, name, static_cast<unsigned short *>(values));
    case ESMIO_UINT:
      return ncmpi_get_att_uint(ncid, varid, name, static_cast<unsigned int *>(values));
    case ESMIO_UINT64:
      return ncmpi_get_att_ulonglong(ncid, varid, name, static_cast<unsigned long long *>(values));
  }
  return NC_EBADTYPE;
}

// The MPI_Info for ncmpi_create/ncmpi_open: the user's hints, and PnetCDF's in-place byte swap
// off unless the user asks for it. In place, PnetCDF swaps the caller's buffer before the write
// and back after it; esmio posts one shared stretch of fill values for many holes in one wait,
// which was then swapped an even number of times and written in the wrong byte order (found by
// reading back what was written). PnetCDF swaps a copy instead.
MPI_Info pnetcdf_info(const FileOptions &options) {
  MPI_Info info = make_mpiio_info(options);
  for (const auto &[key, value] : options.mpiio_hints)
    if (key == "nc_in_place_swap") return info;
  if (info == MPI_INFO_NULL) MPI_Info_create(&info);
  MPI_Info_set(info, "nc_in_place_swap", "disable");
  return info;
}

}  // namespace

PnetcdfBackend::~PnetcdfBackend() {
  if (ncid_ >= 0) ncmpi_close(ncid_);
  prefetch_.stop();
  if (read_fd_ >= 0) ::close(read_fd_);
  release_comm();
}

void PnetcdfBackend::open_read_descriptor() {
  if (read_fd_ < 0 && options_.direct_read) read_fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  // Every rank reads the same way: the fallback, PnetCDF's read, is collective.
  int mine = read_fd_ >= 0 ? 1 : 0, all = 0;
  if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm_) != MPI_SUCCESS) all = 0;
  direct_read_ = all == 1;
}

void PnetcdfBackend::release_comm() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  comm_ = MPI_COMM_NULL;
}

std::string PnetcdfBackend::var_name(int varid) const {
  char name[NC_MAX_NAME + 1] = {0};
  if (varid == ESMIO_GLOBAL || ncid_ < 0 || ncmpi_inq_varname(ncid_, varid, name) != NC_NOERR) {
    return std::string();
  }
  return name;
}

Status PnetcdfBackend::status_of(int err, const std::string &op, int varid) const {
  if (err == NC_NOERR) return Status::ok();
  return pnetcdf::translate_error(err, op, path_, var_name(varid));
}

Status PnetcdfBackend::not_open(const char *op) const {
  return Status(ESMIO_EBADID, std::string("pnetcdf: ") + op + ": no file is open");
}

Status PnetcdfBackend::create(MPI_Comm comm, const std::string &path, const FileOptions &options) {
  if (ncid_ >= 0) {
    return Status(ESMIO_EINVAL,
                  "pnetcdf: create '" + path + "': the backend already has '" + path_ + "' open");
  }
  if (MPI_Comm_dup(comm, &comm_) != MPI_SUCCESS) {
    comm_ = MPI_COMM_NULL;
    return Status(ESMIO_EMPI, "pnetcdf: create '" + path + "': MPI_Comm_dup failed");
  }
  path_ = path;
  options_ = options;
  direct_.set_early_writeback(options_.early_writeback);
  writable_ = true;

  Status status;
  int format = 0;
  int ncid = -1;
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  // A disk already full: the header written at enddef or close would be lost under ompio.
  const int64_t header_room = std::max<int64_t>(options.header_pad, 0) + (int64_t(1) << 20);
  const int space_err = rank == 0 ? space::check_free(path, header_room) : 0;
  Status room = space_err != 0 ? space::failure(space_err, "pnetcdf", "create", path, header_room)
                               : Status::ok();
  room = agree(comm_, room);
  if (!room.is_ok()) {
    release_comm();
    return room;
  }
  if (!format_flag(options.format, &format)) {
    status = Status(ESMIO_EBADNAME, "pnetcdf: create '" + path + "': unknown format '" +
                                        options.format + "' (known: cdf1, cdf2, cdf5" +
                                        (options.format == "netcdf4" ? "; netcdf4 needs backend "
                                                                       "netcdf4)"
                                                                     : ")"));
  } else {
    const int cmode = (options.clobber ? NC_CLOBBER : NC_NOCLOBBER) | format;
    // PNETCDF_HINTS, read by PnetCDF itself, still overrides the user's hints.
    MPI_Info info = pnetcdf_info(options);
    const int err = ncmpi_create(comm_, path.c_str(), cmode, info, &ncid);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    status = status_of(err, "create");
    if (err == NC_NOERR) {
      ncid_ = ncid;
      in_define_ = true;
      reserver_.open(path);
      // esmio writes every element itself (holes as fill), so prefilling would write twice.
      int old_mode = 0;
      status = status_of(ncmpi_set_fill(ncid_, NC_NOFILL, &old_mode), "set_fill");
    }
  }
  Status agreed = agree(comm_, status);
  if (agreed.is_ok()) open_read_descriptor();
  if (!agreed.is_ok()) {
    // Closing is collective: only safe if every rank holds the file.
    int held = ncid_ >= 0 ? 1 : 0;
    int all_held = 0;
    MPI_Allreduce(&held, &all_held, 1, MPI_INT, MPI_MIN, comm_);
    if (all_held) ncmpi_close(ncid_);
    ncid_ = -1;
    release_comm();
  }
  return agreed;
}

Status PnetcdfBackend::read_schema(Schema *schema) const {
  int ndims = 0;
  int nvars = 0;
  int unlimdim = -1;
  int err = ncmpi_inq(ncid_, &ndims, &nvars, nullptr, &unlimdim);
  if (err != NC_NOERR) return status_of(err, "inq");
  schema->dims.assign(ndims, DimInfo());
  for (int i = 0; i < ndims; ++i) {
    char name[NC_MAX_NAME + 1] = {0};
    MPI_Offset len = 0;
    err = ncmpi_inq_dim(ncid_, i, name, &len);
    if (err != NC_NOERR) return status_of(err, "inq_dim");
    schema->dims[i].name = name;
    schema->dims[i].len = len;
    schema->dims[i].unlimited = i == unlimdim;
  }
  schema->vars.assign(nvars, VarInfo());
  for (int i = 0; i < nvars; ++i) {
    char name[NC_MAX_NAME + 1] = {0};
    nc_type xtype = NC_NAT;
    int var_ndims = 0;
    err = ncmpi_inq_varndims(ncid_, i, &var_ndims);
    if (err != NC_NOERR) return status_of(err, "inq_varndims", i);
    std::vector<int> dimids(var_ndims);
    err = ncmpi_inq_var(ncid_, i, name, &xtype, &var_ndims, dimids.data(), nullptr);
    if (err != NC_NOERR) return status_of(err, "inq_var", i);
    schema->vars[i].name = name;
    // Types esmio does not know (CDF-5 unsigned ones) pass through as their nc_type code, so
    // that the api layer can refuse access to those variables alone.
    schema->vars[i].type = static_cast<esmio_type>(xtype);
    schema->vars[i].dimids = std::move(dimids);
  }
  return Status::ok();
}

bool PnetcdfBackend::var_layout(int varid, VarLayout *layout) const {
  int ndims = 0, unlimdim = -1;
  MPI_Offset begin = 0, record_size = 0;
  nc_type xtype = NC_NAT;
  if (ncmpi_inq_varndims(ncid_, varid, &ndims) != NC_NOERR ||
      ncmpi_inq_vartype(ncid_, varid, &xtype) != NC_NOERR ||
      ncmpi_inq_varoffset(ncid_, varid, &begin) != NC_NOERR ||
      ncmpi_inq_recsize(ncid_, &record_size) != NC_NOERR ||
      ncmpi_inq_unlimdim(ncid_, &unlimdim) != NC_NOERR)
    return false;
  layout->begin = begin;
  layout->record_size = record_size;
  std::vector<int> dimids(static_cast<std::size_t>(ndims));
  if (ncmpi_inq_vardimid(ncid_, varid, dimids.data()) != NC_NOERR) return false;
  layout->len.assign(static_cast<std::size_t>(ndims), 0);
  for (int d = 0; d < ndims; ++d) {
    MPI_Offset len = 0;
    ncmpi_inq_dimlen(ncid_, dimids[d], &len);
    layout->len[d] = len;
  }
  layout->record = ndims > 0 && dimids[0] == unlimdim;
  layout->type = static_cast<esmio_type>(xtype);
  layout->esize = static_cast<MPI_Offset>(type_size(layout->type));
  return true;
}

MPI_Offset PnetcdfBackend::data_extent(MPI_Offset numrecs) const {
  int nvars = 0, unlimdim = -1;
  if (ncmpi_inq(ncid_, nullptr, &nvars, nullptr, &unlimdim) != NC_NOERR) return 0;
  if (numrecs < 0 && unlimdim >= 0) ncmpi_inq_dimlen(ncid_, unlimdim, &numrecs);
  MPI_Offset end = 0;
  VarLayout layout;
  for (int v = 0; v < nvars; ++v) {
    if (!var_layout(v, &layout) || (layout.record && numrecs <= 0)) continue;
    MPI_Offset n = 1;
    for (std::size_t d = layout.record ? 1 : 0; d < layout.len.size(); ++d) n *= layout.len[d];
    end = std::max<MPI_Offset>(end, layout.offset(layout.record ? numrecs - 1 : 0, n));
  }
  return end;
}

Status PnetcdfBackend::check_extent() const {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  if (rank != 0 || !options_.size_check) return Status::ok();
  const MPI_Offset end = data_extent();
  struct stat info;
  if (stat(path_.c_str(), &info) != 0) return Status::ok();  // open succeeded: nothing to add
  if (static_cast<MPI_Offset>(info.st_size) < end)
    return Status(ESMIO_ECORRUPT,
                  "pnetcdf: open '" + path_ + "': the file is truncated: it has " +
                      std::to_string(info.st_size) + " bytes, its header describes " +
                      std::to_string(end) +
                      "; data was lost when it was written or copied (a file written by "
                      "PnetCDF alone whose last variable was never written also ends early: "
                      "open it with size_check=false)");
  return Status::ok();
}

Status PnetcdfBackend::complete_extent(MPI_Offset extent) const {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  struct stat info;
  if (rank != 0 || extent <= 0 || stat(path_.c_str(), &info) != 0 ||
      static_cast<MPI_Offset>(info.st_size) >= extent)
    return Status::ok();
  if (truncate(path_.c_str(), static_cast<off_t>(extent)) != 0)
    return Status(ESMIO_EIO, "pnetcdf: extending '" + path_ + "' to the " + std::to_string(extent) +
                                 " bytes its header describes: " + std::strerror(errno));
  return Status::ok();
}

Status PnetcdfBackend::open(MPI_Comm comm, const std::string &path, bool writable,
                            const FileOptions &options, Schema *schema) {
  if (ncid_ >= 0) {
    return Status(ESMIO_EINVAL,
                  "pnetcdf: open '" + path + "': the backend already has '" + path_ + "' open");
  }
  if (MPI_Comm_dup(comm, &comm_) != MPI_SUCCESS) {
    comm_ = MPI_COMM_NULL;
    return Status(ESMIO_EMPI, "pnetcdf: open '" + path + "': MPI_Comm_dup failed");
  }
  path_ = path;
  options_ = options;
  direct_.set_early_writeback(options_.early_writeback);
  options_.header_pad = 0;  // the room was reserved when the file was created
  writable_ = writable;

  int ncid = -1;
  MPI_Info info = pnetcdf_info(options);
  const int err = ncmpi_open(comm_, path.c_str(), writable ? NC_WRITE : NC_NOWRITE, info, &ncid);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  Status status = status_of(err, "open");
  if (err == NC_NOERR) {
    ncid_ = ncid;
    if (writable) reserver_.open(path);
    if (schema != nullptr) status = read_schema(schema);
    if (status.is_ok()) status = check_extent();
  }
  Status agreed = agree(comm_, status);
  if (agreed.is_ok()) open_read_descriptor();
  if (!agreed.is_ok()) {
    int held = ncid_ >= 0 ? 1 : 0;
    int all_held = 0;
    MPI_Allreduce(&held, &all_held, 1, MPI_INT, MPI_MIN, comm_);
    if (all_held) ncmpi_close(ncid_);
    ncid_ = -1;
    release_comm();
  }
  return agreed;
}

Status PnetcdfBackend::def_dim(const std::string &name, int64_t len, int *dimid) {
  if (ncid_ < 0) return not_open("def_dim");
  int id = -1;
  const int err = ncmpi_def_dim(ncid_, name.c_str(), static_cast<MPI_Offset>(len), &id);
  if (err == NC_NOERR && dimid != nullptr) *dimid = id;
  return status_of(err, "def_dim '" + name + "'");
}

Status PnetcdfBackend::def_var(const std::string &name, esmio_type type,
                               const std::vector<int> &dimids, int *varid) {
  if (ncid_ < 0) return not_open("def_var");
  int id = -1;
  const int err = ncmpi_def_var(ncid_, name.c_str(), static_cast<nc_type>(type),
                                static_cast<int>(dimids.size()), dimids.data(), &id);
  if (err == NC_NOERR && varid != nullptr) *varid = id;
  return status_of(err, "def_var '" + name + "'");
}

Status PnetcdfBackend::put_att(int varid, const std::string &name, esmio_type type, int64_t len,
                               const void *values) {
  if (ncid_ < 0) return not_open("put_att");
  int err;
  if (type == ESMIO_CHAR) {
    err = ncmpi_put_att_text(ncid_, varid, name.c_str(), static_cast<MPI_Offset>(len),
                             static_cast<const char *>(values));
  } else {
    err = ncmpi_put_att(ncid_, varid, name.c_str(), static_cast<nc_type>(type),
                        static_cast<MPI_Offset>(len), values);
  }
  return status_of(err, "put_att '" + name + "'", varid);
}

Status PnetcdfBackend::enddef() {
  if (ncid_ < 0) return not_open("enddef");
  // v_align, v_minfree and r_align 0 keep PnetCDF's defaults (and PNETCDF_HINTS overrides);
  // h_minfree leaves room for attributes added later without moving the data. Only the first
  // enddef reserves it: asking again after redef would move the data to make new room.
  const MPI_Offset pad = std::max<int64_t>(options_.header_pad, 0);
  const MPI_Offset align = std::max<int64_t>(options_.align, 0);
  // Rank 0 writes the header: room for it first (ompio drops the error of that write).
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  Status room;
  if (rank == 0) {
    MPI_Offset header = 0;
    ncmpi_inq_header_size(ncid_, &header);
    const int64_t bytes = std::max<int64_t>(header, 0) + pad + (int64_t(1) << 20);
    const int err = reserver_.reserve({space::Range{0, bytes}});
    if (err != 0) room = space::failure(err, "pnetcdf", "enddef", path_, bytes);
  }
  ESMIO_RETURN_IF_ERROR(agree(comm_, room));
  Status status = agree(comm_, status_of(ncmpi__enddef(ncid_, pad, align, 0, align), "enddef"));
  if (status.is_ok()) {
    options_.header_pad = 0;
    in_define_ = false;
  }
  return status;
}

Status PnetcdfBackend::redef() {
  if (ncid_ < 0) return not_open("redef");
  Status status = status_of(ncmpi_redef(ncid_), "redef");
  if (status.is_ok()) {
    // PnetCDF sets the fill mode per define scope, so variables added now need it again.
    int old_mode = 0;
    status = status_of(ncmpi_set_fill(ncid_, NC_NOFILL, &old_mode), "set_fill");
  }
  status = agree(comm_, status);
  if (status.is_ok()) in_define_ = true;
  return status;
}

Status PnetcdfBackend::inq_att(int varid, const std::string &name, esmio_type *type, int64_t *len) {
  if (ncid_ < 0) return not_open("inq_att");
  nc_type xtype = NC_NAT;
  MPI_Offset n = 0;
  const int err = ncmpi_inq_att(ncid_, varid, name.c_str(), &xtype, &n);
  if (err == NC_NOERR) {
    if (type != nullptr) *type = static_cast<esmio_type>(xtype);
    if (len != nullptr) *len = n;
  }
  return agree(comm_, status_of(err, "inq_att '" + name + "'", varid));
}

Status PnetcdfBackend::inq_att_names(int varid, std::vector<std::string> *names) {
  if (ncid_ < 0) return not_open("inq_att_names");
  int natts = 0;
  int err = varid == NC_GLOBAL ? ncmpi_inq_natts(ncid_, &natts)
                               : ncmpi_inq_varnatts(ncid_, varid, &natts);
  names->clear();
  char name[NC_MAX_NAME + 1];
  for (int i = 0; err == NC_NOERR && i < natts; ++i) {
    err = ncmpi_inq_attname(ncid_, varid, i, name);
    if (err == NC_NOERR) names->emplace_back(name);
  }
  return agree(comm_, status_of(err, "inq_att_names", varid));
}

Status PnetcdfBackend::get_att(int varid, const std::string &name, esmio_type memtype,
                               void *values) {
  if (ncid_ < 0) return not_open("get_att");
  const int err = get_att_typed(ncid_, varid, name.c_str(), memtype, values);
  return agree(comm_, status_of(err, "get_att '" + name + "'", varid));
}

Status PnetcdfBackend::inq_nrecords(int64_t *nrecords) {
  if (ncid_ < 0) return not_open("inq_nrecords");
  int unlimdim = -1;
  MPI_Offset len = 0;
  int err = ncmpi_inq_unlimdim(ncid_, &unlimdim);
  if (err == NC_NOERR && unlimdim >= 0) err = ncmpi_inq_dimlen(ncid_, unlimdim, &len);
  if (err == NC_NOERR && nrecords != nullptr) *nrecords = len;
  return agree(comm_, status_of(err, "inq_nrecords"));
}

Status PnetcdfBackend::sync() {
  if (ncid_ < 0) return not_open("sync");
  if (reserver_.fd() < 0) return agree(comm_, status_of(ncmpi_sync(ncid_), "sync"));
  // Not ncmpi_sync: its MPI_File_sync hangs the other ranks when ompio holds a failed request on
  // one of them (it returns before its barrier there). Each rank fsyncs what it wrote through
  // its own descriptor (the same pages), and the record count reaches the header only after
  // the records' data is durable.
  const auto fsynced = [&](const char *what) {
    return fsync(reserver_.fd()) == 0 ? Status::ok()
                                      : Status(ESMIO_EIO, "pnetcdf: sync of '" + path_ + "' (" +
                                                              what + "): " + std::strerror(errno));
  };
  ESMIO_RETURN_IF_ERROR(agree(comm_, fsynced("data")));
  Status status = status_of(ncmpi_sync_numrecs(ncid_), "sync_numrecs");
  if (status.is_ok()) status = complete_extent(data_extent());
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  if (status.is_ok() && rank == 0) status = fsynced("header");
  return agree(comm_, status);
}

Status PnetcdfBackend::limit_records(int64_t nrecords) {
  record_limit_ = nrecords;
  return Status::ok();
}

Status PnetcdfBackend::close() {
  if (ncid_ < 0) return not_open("close");
  // A file still in define mode is ended first (room for its header reserved there, a
  // failure reported even where ompio drops it), so that its variables have their places
  // before the extent below is taken.
  Status room;
  if (in_define_) room = enddef();
  in_define_ = false;
  // The extent of what the file will claim, while the header is still at hand.
  MPI_Offset numrecs = -1;
  if (record_limit_ >= 0) {
    int64_t now = 0;
    if (inq_nrecords(&now).is_ok()) numrecs = std::min<int64_t>(now, record_limit_);
  }
  const MPI_Offset extent = writable_ ? data_extent(numrecs) : 0;
  const int err = ncmpi_close(ncid_);
  ncid_ = -1;
  Status agreed = agree(comm_, status_of(err, "close"));
  if (record_limit_ >= 0) {
    // PnetCDF wrote the records it was handed into the header, lost data included.
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    int64_t before = 0;
    Status lowered;
    if (rank == 0) lowered = cdf::lower_numrecs(path_, record_limit_, &before);
    lowered = agree(comm_, lowered);
    if (agreed.is_ok()) agreed = lowered;
  }
  if (agreed.is_ok()) agreed = agree(comm_, complete_extent(extent));
  reserver_.close();  // gives back what was reserved past the end
  prefetch_.stop();
  if (read_fd_ >= 0) ::close(read_fd_);
  read_fd_ = -1;
  direct_read_ = false;
  if (!room.is_ok()) agreed = room;
  release_comm();
  return agreed;
}

std::unique_ptr<Backend> make_pnetcdf_backend() { return std::make_unique<PnetcdfBackend>(); }

}  // namespace esmio::backend
