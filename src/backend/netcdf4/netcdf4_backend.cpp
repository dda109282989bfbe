#include "backend/netcdf4/netcdf4_backend.hpp"

#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_par.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backend/netcdf4/hdf5_records.hpp"
#include "backend/netcdf4/hdf5_superblock.hpp"
#include "backend/netcdf_c_common.hpp"
#include "codec/zstd_filter.hpp"
#include "common/agree.hpp"
#include "common/types.hpp"
#include "decomp/box_partition.hpp"

namespace esmio::backend {

namespace {

constexpr unsigned kDeflateFilterId = 1;  // H5Z_FILTER_DEFLATE
constexpr unsigned kShuffleFilterId = 2;  // H5Z_FILTER_SHUFFLE
// Room for HDF5's metadata (object headers, chunk indices, the superblock) at each write.
constexpr int64_t kMetadataRoom = int64_t(1) << 20;
// The read-back after a write reads the corners of the box between a rank's first and last
// element written, in up to this many dimensions (16 values).
constexpr int kCornerDims = 4;

// Whether an element read back is the one written. netCDF's own quantisation changes the
// values on their way to the file: there only a value that is not even of the same magnitude
// (what a lost write leaves: zeros, or older data) counts as different.
bool same_element(esmio_type type, bool quantized, const unsigned char *got,
                  const unsigned char *wrote) {
  const std::size_t esize = type_size(type);
  if (std::memcmp(got, wrote, esize) == 0) return true;
  if (!quantized || (type != ESMIO_FLOAT && type != ESMIO_DOUBLE)) return false;
  double a = 0, b = 0;
  if (type == ESMIO_FLOAT) {
    float fa, fb;
    std::memcpy(&fa, got, sizeof fa);
    std::memcpy(&fb, wrote, sizeof fb);
    a = fa;
    b = fb;
  } else {
    std::memcpy(&a, got, sizeof a);
    std::memcpy(&b, wrote, sizeof b);
  }
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= 0.5 * std::fabs(b);
}

}  // namespace

Netcdf4Backend::~Netcdf4Backend() {
  close_file();  // before the communicator it was opened on goes
  release_comm();
}

void Netcdf4Backend::release_comm() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void Netcdf4Backend::start_reserving() {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  if (rank == 0) reserver_.open(path_);
  writable_ = true;
}

Status Netcdf4Backend::reserve(const char *op, int64_t tail, bool holes) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  Status status;
  if (rank == 0) {
    const int err = reserver_.reserve_holes_and_tail(tail, holes);
    if (err != 0) status = space::failure(err, "netcdf4", op, path_, tail);
  }
  return agree(comm_, status);
}

Status Netcdf4Backend::before_metadata(const char *op) {
  return writable_ ? reserve(op, kMetadataRoom, false) : Status::ok();
}

Status Netcdf4Backend::create(MPI_Comm comm, const std::string &path, const FileOptions &options) {
  if (ncid_ >= 0)
    return Status(ESMIO_EINVAL,
                  "netcdf4: create '" + path + "': the backend already has '" + path_ + "' open");
  if (options.format != "netcdf4")
    return Status(ESMIO_EINVAL, "netcdf4: create '" + path + "': format '" + options.format +
                                    "' is not netCDF-4 (use format=netcdf4, or backend pnetcdf)");
  path_ = path;
  options_ = options;
  MPI_Comm_dup(comm, &comm_);
  {
    // A disk already full: HDF5's first metadata writes would fail on some ranks only.
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    Status room;
    const int err = rank == 0 ? space::check_free(path, kMetadataRoom) : 0;
    if (err != 0) room = space::failure(err, "netcdf4", "create", path, kMetadataRoom);
    room = agree(comm_, room);
    if (!room.is_ok()) {
      release_comm();
      return room;
    }
  }
  MPI_Info info = make_mpiio_info(options);
  int ncid = -1;
  const int cmode = NC_NETCDF4 | (options.clobber ? NC_CLOBBER : NC_NOCLOBBER);
  int err = nc_create_par(path.c_str(), cmode, comm_, info, &ncid);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  if (err != NC_NOERR) {
    release_comm();
    return status_of(err, "create");
  }
  ncid_ = ncid;
  nvars_ = 0;
  var_types_.clear();
  // esmio writes every element itself (holes as fill); HDF5 would otherwise write fill values
  // when it allocates chunks, and parallel HDF5 allocates them all at once.
  int old_mode = 0;
  err = nc_set_fill(ncid_, NC_NOFILL, &old_mode);
  if (err != NC_NOERR) {
    Status status = status_of(err, "set_fill");
    nc_close(ncid_);
    ncid_ = -1;
    release_comm();
    return status;
  }
  start_reserving();
  in_define_ = true;
  return Status::ok();
}

Status Netcdf4Backend::read_schema(Schema *schema) {
  Schema local;
  Schema &s = schema ? *schema : local;
  int bad_varid = ESMIO_GLOBAL;
  ESMIO_RETURN_IF_ERROR(status_of(netcdf_c::read_schema(ncid_, &s, &bad_varid), "inq", bad_varid));
  nvars_ = static_cast<int>(s.vars.size());
  var_types_.clear();
  for (const VarInfo &v : s.vars) var_types_.push_back(v.type);
  return Status::ok();
}

Status Netcdf4Backend::after_open(Schema *schema, bool writable) {
  Status status;
  if (writable) {
    int old_mode = 0;
    status = status_of(nc_set_fill(ncid_, NC_NOFILL, &old_mode), "set_fill");
  }
  if (status.is_ok()) status = read_schema(schema);
  for (int v = 0; status.is_ok() && v < nvars_; ++v)
    status = status_of(nc_var_par_access(ncid_, v, NC_COLLECTIVE), "var_par_access", v);
  return status;
}

Status Netcdf4Backend::open(MPI_Comm comm, const std::string &path, bool writable,
                            const FileOptions &options, Schema *schema) {
  if (ncid_ >= 0)
    return Status(ESMIO_EINVAL,
                  "netcdf4: open '" + path + "': the backend already has '" + path_ + "' open");
  // A file written with zstd is read in any process, without HDF5_PLUGIN_PATH.
  ESMIO_RETURN_IF_ERROR(codec::register_zstd_filter());
  path_ = path;
  options_ = options;
  MPI_Comm_dup(comm, &comm_);
  MPI_Info info = make_mpiio_info(options);
  int ncid = -1;
  const int err = nc_open_par(path.c_str(), writable ? NC_WRITE : NC_NOWRITE, comm_, info, &ncid);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  if (err != NC_NOERR) {
    release_comm();
    const Status cut = hdf5::check_truncated(path);  // HDF5 says only "HDF error"
    return cut.is_ok() ? status_of(err, "open") : cut;
  }
  ncid_ = ncid;
  Status status = after_open(schema, writable);
  if (!status.is_ok()) {
    nc_close(ncid_);
    ncid_ = -1;
    release_comm();
  } else if (writable) {
    start_reserving();
  }
  return status;
}

Status Netcdf4Backend::def_var(const std::string &name, esmio_type type,
                               const std::vector<int> &dimids, int *varid) {
  int id = -1;
  ESMIO_RETURN_IF_ERROR(NetcdfCBackend::def_var(name, type, dimids, &id));
  if (varid != nullptr) *varid = id;
  nvars_ = std::max(nvars_, id + 1);
  var_types_.resize(static_cast<std::size_t>(nvars_), ESMIO_FLOAT);
  var_types_[static_cast<std::size_t>(id)] = type;
  // Filtered variables can only be written collectively; esmio makes every call collective.
  return status_of(nc_var_par_access(ncid_, id, NC_COLLECTIVE), "var_par_access '" + name + "'",
                   id);
}

Status Netcdf4Backend::def_var_storage(int varid, const VarStorage &storage) {
  if (ncid_ < 0) return not_open("def_var_storage");
  const std::string op = "define storage";
  if (storage.contiguous)
    ESMIO_RETURN_IF_ERROR(
        status_of(nc_def_var_chunking(ncid_, varid, NC_CONTIGUOUS, nullptr), op, varid));
  if (!storage.chunks.empty()) {
    std::vector<size_t> sizes(storage.chunks.begin(), storage.chunks.end());
    ESMIO_RETURN_IF_ERROR(
        status_of(nc_def_var_chunking(ncid_, varid, NC_CHUNKED, sizes.data()), op, varid));
  }
  std::vector<unsigned> expected;
  if (storage.shuffle) expected.push_back(kShuffleFilterId);
  if (storage.codec == "deflate") {
    ESMIO_RETURN_IF_ERROR(status_of(
        nc_def_var_deflate(ncid_, varid, storage.shuffle ? 1 : 0, 1, storage.level), op, varid));
    expected.push_back(kDeflateFilterId);
  } else if (storage.codec == "zstd") {
    ESMIO_RETURN_IF_ERROR(codec::register_zstd_filter());
    if (storage.shuffle)
      ESMIO_RETURN_IF_ERROR(status_of(nc_def_var_deflate(ncid_, varid, 1, 0, 0), op, varid));
    const unsigned level = static_cast<unsigned>(storage.level);
    ESMIO_RETURN_IF_ERROR(status_of(
        nc_def_var_filter(ncid_, varid, codec::kZstdFilterId, 1, &level), op + " (zstd)", varid));
    expected.push_back(codec::kZstdFilterId);
  } else if (storage.codec != "none") {
    return Status(ESMIO_EBADNAME, "netcdf4: " + op + " on '" + path_ + "' variable '" +
                                      var_name(varid) + "': unknown codec '" + storage.codec + "'");
  }
  if (storage.quantize != "none") {
    const int mode = storage.quantize == "bitround" ? NC_QUANTIZE_BITROUND : NC_QUANTIZE_GRANULARBR;
    ESMIO_RETURN_IF_ERROR(
        status_of(nc_def_var_quantize(ncid_, varid, mode, storage.quantize_digits),
                  op + " (quantize)", varid));
  }
  // A filter that silently did nothing (netCDF-C built without it) must not pass as success.
  size_t nfilters = 0;
  ESMIO_RETURN_IF_ERROR(
      status_of(nc_inq_var_filter_ids(ncid_, varid, &nfilters, nullptr), op, varid));
  std::vector<unsigned> ids(nfilters);
  if (nfilters > 0)
    ESMIO_RETURN_IF_ERROR(
        status_of(nc_inq_var_filter_ids(ncid_, varid, &nfilters, ids.data()), op, varid));
  for (unsigned id : expected)
    if (std::find(ids.begin(), ids.end(), id) == ids.end())
      return Status(ESMIO_EBACKEND, "netcdf4: " + op + " on '" + path_ + "' variable '" +
                                        var_name(varid) + "': HDF5 filter " + std::to_string(id) +
                                        " was accepted but is not in place");
  return Status::ok();
}

Status Netcdf4Backend::enddef() {
  if (ncid_ < 0) return not_open("enddef");
  ESMIO_RETURN_IF_ERROR(reserve("enddef", kMetadataRoom, false));
  Status status = status_of(nc_enddef(ncid_), "enddef");
  if (status.is_ok()) in_define_ = false;
  return status;
}

Status Netcdf4Backend::redef() {
  Status status = NetcdfCBackend::redef();
  if (status.is_ok()) in_define_ = true;
  return status;
}

Status Netcdf4Backend::transfer(bool write, std::vector<Transfer> transfers) {
  const char *op = write ? "put_vara" : "get_vara";
  if (write && !failed_.is_ok()) return failed_;
  // This rank's pieces per variable, in request order.
  std::map<int, std::vector<Piece>> pieces;
  int64_t bytes = 0;  // what this rank writes
  Status status;
  std::vector<Box> cut;
  for (Transfer &t : transfers) {
    if (t.varid < 0 || t.varid >= nvars_) {
      if (status.is_ok()) status = status_of(NC_ENOTVAR, op, t.varid);
      continue;
    }
    if (t.buftype != var_types_[static_cast<std::size_t>(t.varid)]) {
      if (status.is_ok())
        status = Status(ESMIO_EBADTYPE, std::string("netcdf4: ") + op + " on '" + path_ +
                                            "' variable '" + var_name(t.varid) +
                                            "': buffer type differs from the variable's");
      continue;
    }
    const int64_t esize = static_cast<int64_t>(type_size(t.buftype));
    unsigned char *at = t.buffer;
    for (const Box &box : t.boxes) {
      const int64_t n = decomp::shape_size(box.count);
      if (n == 0) continue;
      cut.clear();
      cut_box(box, esize, options_.max_request_bytes, &cut);
      for (const Box &b : cut) {
        pieces[t.varid].push_back(Piece{std::vector<size_t>(b.start.begin(), b.start.end()),
                                        std::vector<size_t>(b.count.begin(), b.count.end()), at});
        at += decomp::shape_size(b.count) * esize;
        bytes += decomp::shape_size(b.count) * esize;
      }
    }
  }
  // Every rank makes as many calls per variable as the rank with the most pieces.
  std::vector<int64_t> mine(static_cast<std::size_t>(nvars_), 0), most(mine.size(), 0);
  for (const auto &p : pieces) mine[static_cast<std::size_t>(p.first)] = p.second.size();
  if (nvars_ > 0 &&
      MPI_Allreduce(mine.data(), most.data(), nvars_, MPI_INT64_T, MPI_MAX, comm_) != MPI_SUCCESS)
    return Status(ESMIO_EMPI, std::string("netcdf4: ") + op + " on '" + path_ +
                                  "': MPI_Allreduce of request counts failed");
  if (write && writable_) {
    // Room for everything about to be written, before HDF5 writes any of it: a write that
    // fails inside HDF5 or MPI-IO is not reported on every rank, or at all (space.hpp).
    int64_t total = 0;
    MPI_Allreduce(&bytes, &total, 1, MPI_INT64_T, MPI_SUM, comm_);
    if (total > 0) {
      std::vector<std::string> names;
      for (int v = 0; v < nvars_; ++v)
        if (most[static_cast<std::size_t>(v)] > 0) names.push_back(var_name(v));
      const std::string what = op + space::of_variables(names);
      Status room = reserve(what.c_str(), total + total / 16 + kMetadataRoom, true);
      if (!room.is_ok()) return room;
    }
  }
  // The bands' buffers are kept for the next write up to kKeptBandBytes, released past it: a
  // file handle does not keep twice a task's share of its largest compressed record.
  struct ReleaseLargeBands {
    Netcdf4Backend *backend;
    ~ReleaseLargeBands() { backend->release_large_bands(); }
  } release_large_bands{this};
  if (write && writable_) ESMIO_RETURN_IF_ERROR(regroup_into_bands(&pieces, &most));
  unsigned char dummy[8] = {0};
  for (int v = 0; v < nvars_; ++v) {
    const std::vector<Piece> *list = pieces.count(v) ? &pieces[v] : nullptr;
    int ndims = 0;
    if (most[static_cast<std::size_t>(v)] > 0) nc_inq_varndims(ncid_, v, &ndims);
    const std::vector<size_t> zeros(static_cast<std::size_t>(ndims), 0);
    // A scalar has no empty selection: a rank without its value would write its dummy over
    // it. Only the rank that holds it writes, independently (a scalar is never filtered).
    const bool scalar_write = write && ndims == 0 && most[static_cast<std::size_t>(v)] > 0;
    if (scalar_write) {
      const int err = nc_var_par_access(ncid_, v, NC_INDEPENDENT);
      if (err != NC_NOERR && status.is_ok()) status = status_of(err, op, v);
    }
    for (int64_t k = 0; k < most[static_cast<std::size_t>(v)]; ++k) {
      const bool real = list != nullptr && k < static_cast<int64_t>(list->size());
      if (scalar_write && !real) continue;
      const size_t *start = real ? (*list)[k].start.data() : zeros.data();
      const size_t *count = real ? (*list)[k].count.data() : zeros.data();
      unsigned char *data = real ? (*list)[k].data : dummy;
      // A failed rank keeps calling: the others are in the same collective.
      const int err = write ? nc_put_vara(ncid_, v, start, count, data)
                            : nc_get_vara(ncid_, v, start, count, data);
      if (err != NC_NOERR && status.is_ok()) status = status_of(err, op, v);
    }
    if (scalar_write) {
      const int err = nc_var_par_access(ncid_, v, NC_COLLECTIVE);
      if (err != NC_NOERR && status.is_ok()) status = status_of(err, op, v);
    }
  }
  if (!write || !writable_ || !options_.read_back) return status;
  // Even where HDF5 reported an error: whether the data reached the file says which error.
  Status verified = verify_written(pieces, most);
  if (!verified.is_ok()) {
    if (!status.is_ok())
      verified = Status(ESMIO_EIO, verified.message() + " (HDF5: " + status.message() + ")");
    failed_ = verified;
    return verified;
  }
  return status;
}

void Netcdf4Backend::release_large_bands() {
  std::size_t held = band_scratch_.send.capacity() + band_scratch_.recv.capacity();
  for (const auto &values : band_values_) held += values.capacity();
  if (held <= kKeptBandBytes) return;
  band_values_ = {};
  band_scratch_.send = {};
  band_scratch_.recv = {};
}

Status Netcdf4Backend::regroup_into_bands(std::map<int, std::vector<Piece>> *pieces,
                                          std::vector<int64_t> *most) {
  int ntasks = 1;
  MPI_Comm_size(comm_, &ntasks);
  if (ntasks < 2) return Status::ok();
  // The candidates, the same on every task: `most` is agreed and the filters are the file's.
  std::vector<int> candidates;
  for (int v = 0; v < nvars_; ++v) {
    if ((*most)[static_cast<std::size_t>(v)] < 2) continue;
    size_t nfilters = 0;
    if (nc_inq_var_filter_ids(ncid_, v, &nfilters, nullptr) == NC_NOERR && nfilters > 0)
      candidates.push_back(v);
  }
  if (candidates.empty()) return Status::ok();
  int nunlim = 0, unlim[NC_MAX_DIMS];
  nc_inq_unlimdims(ncid_, &nunlim, unlim);

  // Per candidate: the lowest and highest record of this task's pieces and their elements,
  // agreed over the tasks (one allreduce of maxima, the lowest as its negation, one of sums).
  const std::size_t k = candidates.size();
  std::vector<int64_t> high(2 * k), total(k, 0);
  std::vector<std::vector<int64_t>> shapes(k);
  std::vector<bool> record_var(k, false);
  for (std::size_t i = 0; i < k; ++i) {
    const int v = candidates[i];
    int ndims = 0, dimids[NC_MAX_VAR_DIMS];
    nc_inq_varndims(ncid_, v, &ndims);
    nc_inq_vardimid(ncid_, v, dimids);
    for (int d = 0; d < ndims; ++d) {
      size_t len = 0;
      nc_inq_dimlen(ncid_, dimids[d], &len);
      shapes[i].push_back(static_cast<int64_t>(len));
    }
    record_var[i] = ndims > 0 && std::find(unlim, unlim + nunlim, dimids[0]) != unlim + nunlim;
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
    const auto list = pieces->find(v);
    if (list != pieces->end())
      for (const Piece &p : list->second) {
        const int64_t r = record_var[i] ? static_cast<int64_t>(p.start[0]) : 0;
        const int64_t last = record_var[i] ? r + static_cast<int64_t>(p.count[0]) - 1 : 0;
        lo = std::min(lo, r);
        hi = std::max(hi, last);
        int64_t n = 1;
        for (size_t c : p.count) n *= static_cast<int64_t>(c);
        total[i] += n;
      }
    high[2 * i] =
        lo == std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::min() : -lo;
    high[2 * i + 1] = hi;
  }
  if (MPI_Allreduce(MPI_IN_PLACE, high.data(), static_cast<int>(2 * k), MPI_INT64_T, MPI_MAX,
                    comm_) != MPI_SUCCESS ||
      MPI_Allreduce(MPI_IN_PLACE, total.data(), static_cast<int>(k), MPI_INT64_T, MPI_SUM, comm_) !=
          MPI_SUCCESS)
    return Status(ESMIO_EMPI, "netcdf4: write to '" + path_ +
                                  "': MPI_Allreduce of the pieces to regroup failed");

  band_values_.resize(k);
  for (std::size_t i = 0; i < k; ++i) {
    const int v = candidates[i];
    const int64_t first = -high[2 * i], last = high[2 * i + 1];
    if (first != last || first < 0) continue;  // several records, or none: left as it is
    std::vector<int64_t> shape = shapes[i];
    const std::size_t record_dims = record_var[i] ? 1 : 0;
    if (record_var[i]) shape[0] = std::max<int64_t>(shape[0], first + 1);
    int64_t record_size = 1;
    for (std::size_t d = record_dims; d < shape.size(); ++d) record_size *= shape[d];
    const std::size_t esize = type_size(var_types_[static_cast<std::size_t>(v)]);
    // Every element once (the record whole), and what one task sends another fits an int.
    if (total[i] != record_size ||
        record_size * static_cast<int64_t>(esize) > std::numeric_limits<int>::max() / 2)
      continue;
    int storage = NC_CONTIGUOUS;
    std::vector<size_t> chunk_sizes(shape.size(), 1);
    nc_inq_var_chunking(ncid_, v, &storage, chunk_sizes.data());
    if (storage != NC_CHUNKED) continue;
    const std::vector<int64_t> chunks(chunk_sizes.begin(), chunk_sizes.end());
    netcdf4::BandPlan plan;
    if (!netcdf4::plan_bands(shape, chunks, record_dims, ntasks, &plan)) continue;
    std::vector<netcdf4::BandPiece> mine;
    auto &list = (*pieces)[v];
    for (const Piece &p : list)
      mine.push_back(
          netcdf4::BandPiece{netcdf4::BandBox{std::vector<int64_t>(p.start.begin(), p.start.end()),
                                              std::vector<int64_t>(p.count.begin(), p.count.end())},
                             p.data});
    netcdf4::BandBox band;
    ESMIO_RETURN_IF_ERROR(netcdf4::exchange_into_bands(comm_, plan, shape, record_dims, first, mine,
                                                       esize, &band_values_[i], &band,
                                                       &band_scratch_));
    list.clear();
    if (band.elements() > 0)
      list.push_back(Piece{std::vector<size_t>(band.start.begin(), band.start.end()),
                           std::vector<size_t>(band.count.begin(), band.count.end()),
                           band_values_[i].data()});
    (*most)[static_cast<std::size_t>(v)] = 1;
  }
  return Status::ok();
}

Status Netcdf4Backend::verify_written(const std::map<int, std::vector<Piece>> &pieces,
                                      const std::vector<int64_t> &most) {
  Status status;
  unsigned char dummy[8] = {0};
  std::vector<size_t> start, count, at;
  std::vector<ptrdiff_t> stride;
  std::vector<unsigned char> got;
  for (int v = 0; v < nvars_; ++v) {
    if (most[static_cast<std::size_t>(v)] == 0) continue;
    int ndims = 0, quantize = NC_NOQUANTIZE;
    nc_inq_varndims(ncid_, v, &ndims);
    nc_inq_var_quantize(ncid_, v, &quantize, nullptr);
    const std::size_t nd = static_cast<std::size_t>(ndims);
    const auto list = pieces.find(v);
    if (list == pieces.end() || list->second.empty()) {
      // One collective read per variable: a rank that wrote none of it reads nothing.
      const std::vector<size_t> zeros(nd, 0);
      const std::vector<ptrdiff_t> unit(nd, 1);
      nc_get_vars(ncid_, v, zeros.data(), zeros.data(), unit.data(), dummy);
      continue;
    }
    const std::vector<Piece> &written = list->second;
    const esmio_type type = var_types_[static_cast<std::size_t>(v)];
    const std::size_t esize = type_size(type);
    // The corners of the box between the first element this rank wrote and its last: one
    // strided read holds both (and the other corners, compared where they lie in what this
    // rank wrote). Every collective HDF5 call on a filtered variable costs every rank a few
    // milliseconds (docs/netcdf4.md), hence one read per variable rather than one per piece.
    const Piece &first = written.front(), &last = written.back();
    start.assign(nd, 0);
    count.assign(nd, 1);
    stride.assign(nd, 1);
    std::size_t corners = 1;
    int varying = 0;
    for (std::size_t d = 0; d < nd; ++d) {
      const size_t a = first.start[d], b = last.start[d] + last.count[d] - 1;
      start[d] = a;
      if (a == b || varying == kCornerDims) continue;  // past kCornerDims: the first's index
      ++varying;
      start[d] = std::min(a, b);
      count[d] = 2;
      stride[d] = static_cast<ptrdiff_t>(a > b ? a - b : b - a);
      corners *= 2;
    }
    got.resize(corners * esize);
    const int err = nc_get_vars(ncid_, v, start.data(), count.data(), stride.data(), got.data());
    if (!status.is_ok()) continue;
    bool same = err == NC_NOERR;
    for (std::size_t c = 0; same && c < corners; ++c) {
      // Corner c's index in each dimension (C order over the 2-point dimensions), then the
      // piece that holds it, if any, and its position in that piece's buffer.
      at.assign(nd, 0);
      std::size_t rest = c;
      for (std::size_t d = nd; d-- > 0;) {
        at[d] = start[d] + (count[d] == 2 ? (rest % 2) * static_cast<size_t>(stride[d]) : 0);
        rest /= count[d];
      }
      for (const Piece &p : written) {
        std::size_t offset = 0;
        bool inside = true;
        for (std::size_t d = 0; inside && d < nd; ++d) {
          inside = at[d] >= p.start[d] && at[d] < p.start[d] + p.count[d];
          offset = offset * p.count[d] + (at[d] - p.start[d]);
        }
        if (!inside) continue;
        same =
            same_element(type, quantize != NC_NOQUANTIZE, &got[c * esize], p.data + offset * esize);
        break;
      }
    }
    if (!same)
      status = Status(
          ESMIO_EIO,
          "netcdf4: write to '" + path_ + "' variable '" + var_name(v) + "': the data " +
              (err != NC_NOERR ? "cannot be read back (" + std::string(nc_strerror(err)) + ")"
                               : std::string("read back is not what was written")) +
              ": the write failed below HDF5 (an I/O error, a full disk or a quota that "
              "MPI-IO did not report)");
  }
  return agree(comm_, status);
}

Status Netcdf4Backend::put_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                                 const void *buffer) {
  if (ncid_ < 0) return not_open("put_boxes");
  // netCDF's put takes a const buffer; transfer() shares one path for both directions.
  return transfer(true, {Transfer{varid, boxes, buftype,
                                  static_cast<unsigned char *>(const_cast<void *>(buffer))}});
}

Status Netcdf4Backend::get_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                                 void *buffer) {
  if (ncid_ < 0) return not_open("get_boxes");
  return transfer(false, {Transfer{varid, boxes, buftype, static_cast<unsigned char *>(buffer)}});
}

Status Netcdf4Backend::put_requests(const std::vector<PutRequest> &requests) {
  if (ncid_ < 0) return not_open("put_requests");
  std::vector<Transfer> transfers;
  transfers.reserve(requests.size());
  for (const PutRequest &r : requests)
    transfers.push_back(Transfer{r.varid, r.boxes, r.buftype,
                                 static_cast<unsigned char *>(const_cast<void *>(r.buffer))});
  return transfer(true, std::move(transfers));
}

Status Netcdf4Backend::sync() {
  if (ncid_ < 0) return not_open("sync");
  if (!failed_.is_ok()) return failed_;
  if (writable_) {
    // A device error during write-back reaches fsync on every descriptor open at the time
    // (Linux's errseq): rank 0 asks through its own before H5Fflush's MPI_File_sync would
    // fail on some ranks only and hang the others in its barrier.
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    Status local;
    if (rank == 0 && reserver_.fd() >= 0 && fsync(reserver_.fd()) != 0)
      local = Status(errno == ENOSPC || errno == EDQUOT ? ESMIO_ENOSPC : ESMIO_EIO,
                     "netcdf4: sync of '" + path_ + "': fsync: " + std::strerror(errno) +
                         ": data written earlier did not reach the disk");
    local = agree(comm_, local);
    if (!local.is_ok()) {
      failed_ = local;
      return local;
    }
  }
  return NetcdfCBackend::sync();
}

Status Netcdf4Backend::close() {
  if (ncid_ < 0) return not_open("close");
  // Room for the metadata written at close; the file is closed whatever the outcome (a
  // handle cannot be kept), and the failure reported.
  Status room = writable_ ? reserve("close", kMetadataRoom, false) : Status::ok();
  writable_ = false;
  // Where even that room is missing, HDF5 may still fail its last metadata writes on some
  // ranks only and hang in them: nc_abort is no way out (netCDF-C 4.9 crashes in it, in
  // reportopenobjects, after H5Fclose fails). create checks for free space to make this rare.
  int err = NC_NOERR;
  if (failed_.is_ok()) {
    err = close_file();
  } else {
    // nc_close would flush through H5Fflush and hang in its MPI_File_sync (failed_). nc_abort
    // skips that flush; H5Fclose's own flush at close calls no MPI_File_sync.
    err = nc_abort(ncid_);
    ncid_ = -1;
  }
  in_define_ = false;
  reserver_.close();  // after HDF5 set the final size: gives back what was reserved past it
  Status lowered;
  if (record_limit_ >= 0) {
    // A variable written past the limit (a time coordinate put with esmio_put_vara for a
    // record whose data a failed flush lost) would make the file count that record.
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    int64_t before = 0;
    if (rank == 0) lowered = hdf5::lower_records(path_, record_limit_, &before);
    lowered = agree(comm_, lowered);
  }
  release_comm();
  if (!room.is_ok()) return room;
  if (!failed_.is_ok()) return failed_;
  const Status closed = status_of(err, "close");
  return closed.is_ok() ? lowered : closed;
}

Status Netcdf4Backend::limit_records(int64_t nrecords) {
  record_limit_ = nrecords;
  return Status::ok();
}

std::unique_ptr<Backend> make_netcdf4_backend() { return std::make_unique<Netcdf4Backend>(); }

}  // namespace esmio::backend
