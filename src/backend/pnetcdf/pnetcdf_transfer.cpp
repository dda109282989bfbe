// The pnetcdf backend's data transfers: PnetCDF's nonblocking posts and collective waits, and
// esmio's own data path (direct_write, direct_read) at the offsets PnetCDF gave the variables.
// The file's life cycle and its metadata are in pnetcdf_backend.cpp.
#include <pnetcdf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "backend/pnetcdf/big_endian.hpp"
#include "backend/pnetcdf/pnetcdf_backend.hpp"
#include "common/agree.hpp"
#include "common/types.hpp"

namespace esmio::backend {

namespace {
int64_t box_elements(const int64_t *count, int ndims) {
  int64_t n = 1;
  for (int d = 0; d < ndims; ++d) n *= count[d];
  return n;
}

// Typed nonblocking posts: the typed variants let PnetCDF check text against numbers
// (NC_ECHAR) and convert between buftype and the variable's type.
int iput_vara(int ncid, int varid, const MPI_Offset *start, const MPI_Offset *count,
              esmio_type type, const void *buf, int *req) {
  switch (type) {
    case ESMIO_BYTE:
      return ncmpi_iput_vara_schar(ncid, varid, start, count, static_cast<const signed char *>(buf),
                                   req);
    case ESMIO_CHAR:
      return ncmpi_iput_vara_text(ncid, varid, start, count, static_cast<const char *>(buf), req);
    case ESMIO_SHORT:
      return ncmpi_iput_vara_short(ncid, varid, start, count, static_cast<const short *>(buf), req);
    case ESMIO_INT:
      return ncmpi_iput_vara_int(ncid, varid, start, count, static_cast<const int *>(buf), req);
    case ESMIO_FLOAT:
      return ncmpi_iput_vara_float(ncid, varid, start, count, static_cast<const float *>(buf), req);
    case ESMIO_DOUBLE:
      return ncmpi_iput_vara_double(ncid, varid, start, count, static_cast<const double *>(buf),
                                    req);
    case ESMIO_INT64:
      return ncmpi_iput_vara_longlong(ncid, varid, start, count,
                                      static_cast<const long long *>(buf), req);
    case ESMIO_UBYTE:
      return ncmpi_iput_vara_uchar(ncid, varid, start, count,
                                   static_cast<const unsigned char *>(buf), req);
    case ESMIO_USHORT:
      return ncmpi_iput_vara_ushort(ncid, varid, start, count,
                                    static_cast<const unsigned short *>(buf), req);
    case ESMIO_UINT:
      return ncmpi_iput_vara_uint(ncid, varid, start, count, static_cast<const unsigned int *>(buf),
                                  req);
    case ESMIO_UINT64:
      return ncmpi_iput_vara_ulonglong(ncid, varid, start, count,
                                       static_cast<const unsigned long long *>(buf), req);
  }
  return NC_EBADTYPE;
}

int iget_vara(int ncid, int varid, const MPI_Offset *start, const MPI_Offset *count,
              esmio_type type, void *buf, int *req) {
  switch (type) {
    case ESMIO_BYTE:
      return ncmpi_iget_vara_schar(ncid, varid, start, count, static_cast<signed char *>(buf), req);
    case ESMIO_CHAR:
      return ncmpi_iget_vara_text(ncid, varid, start, count, static_cast<char *>(buf), req);
    case ESMIO_SHORT:
      return ncmpi_iget_vara_short(ncid, varid, start, count, static_cast<short *>(buf), req);
    case ESMIO_INT:
      return ncmpi_iget_vara_int(ncid, varid, start, count, static_cast<int *>(buf), req);
    case ESMIO_FLOAT:
      return ncmpi_iget_vara_float(ncid, varid, start, count, static_cast<float *>(buf), req);
    case ESMIO_DOUBLE:
      return ncmpi_iget_vara_double(ncid, varid, start, count, static_cast<double *>(buf), req);
    case ESMIO_INT64:
      return ncmpi_iget_vara_longlong(ncid, varid, start, count, static_cast<long long *>(buf),
                                      req);
    case ESMIO_UBYTE:
      return ncmpi_iget_vara_uchar(ncid, varid, start, count, static_cast<unsigned char *>(buf),
                                   req);
    case ESMIO_USHORT:
      return ncmpi_iget_vara_ushort(ncid, varid, start, count, static_cast<unsigned short *>(buf),
                                    req);
    case ESMIO_UINT:
      return ncmpi_iget_vara_uint(ncid, varid, start, count, static_cast<unsigned int *>(buf), req);
    case ESMIO_UINT64:
      return ncmpi_iget_vara_ulonglong(ncid, varid, start, count,
                                       static_cast<unsigned long long *>(buf), req);
  }
  return NC_EBADTYPE;
}

// What the ranks reduce before a transfer: the most collective calls any rank makes, and the
// bytes they write (in all, within [begin, end)).
struct TransferPlan {
  long long calls = 0;
  long long begin = std::numeric_limits<long long>::max();
  long long end = 0;
  long long bytes = 0;
};

void combine_plans(void *in, void *inout, int *len, MPI_Datatype *) {
  const TransferPlan *a = static_cast<const TransferPlan *>(in);
  TransferPlan *b = static_cast<TransferPlan *>(inout);
  for (int i = 0; i < *len; ++i) {
    b[i].calls = std::max(a[i].calls, b[i].calls);
    b[i].begin = std::min(a[i].begin, b[i].begin);
    b[i].end = std::max(a[i].end, b[i].end);
    b[i].bytes += a[i].bytes;
  }
}

// Created once, at the first transfer (after MPI_Init), and kept until the process ends.
MPI_Datatype plan_type() {
  static const MPI_Datatype type = [] {
    MPI_Datatype t;
    MPI_Type_contiguous(4, MPI_LONG_LONG, &t);
    MPI_Type_commit(&t);
    return t;
  }();
  return type;
}

MPI_Op plan_op() {
  static const MPI_Op reduce = [] {
    MPI_Op o;
    MPI_Op_create(&combine_plans, 1, &o);
    return o;
  }();
  return reduce;
}

}  // namespace

namespace pnetcdf {

std::vector<CallPiece> split_request(const std::vector<Box> &boxes, int ndims, int64_t elem_bytes,
                                     int64_t max_bytes) {
  elem_bytes = std::max<int64_t>(elem_bytes, 1);
  max_bytes = std::max(max_bytes, elem_bytes);  // a single element always goes through

  std::vector<CallPiece> calls;
  CallPiece current;
  int64_t current_bytes = 0;
  int64_t element = 0;  // position of the next piece in the caller's buffer
  auto add = [&](const std::vector<int64_t> &start, const std::vector<int64_t> &count) {
    const int64_t n = box_elements(count.data(), ndims);
    if (current.nboxes > 0 && current_bytes + n * elem_bytes > max_bytes) {
      calls.push_back(std::move(current));
      current = CallPiece();
      current_bytes = 0;
    }
    if (current.nboxes == 0) current.first_element = element;
    current.starts.insert(current.starts.end(), start.begin(), start.end());
    current.counts.insert(current.counts.end(), count.begin(), count.end());
    ++current.nboxes;
    current.nelems += n;
    current_bytes += n * elem_bytes;
    element += n;
  };

  std::vector<Box> pieces;
  for (const Box &box : boxes) {
    if (box_elements(box.count.data(), ndims) == 0) continue;
    pieces.clear();
    cut_box(box, elem_bytes, max_bytes, &pieces);
    for (const Box &piece : pieces) add(piece.start, piece.count);
  }
  if (current.nboxes > 0) calls.push_back(std::move(current));
  return calls;
}

}  // namespace pnetcdf

Status PnetcdfBackend::transfer(bool write, const std::vector<PutRequest> &requests,
                                const std::vector<const ExtentRequest *> *direct_stretches,
                                std::map<int, VarLayout> layouts) {
  const char *op = write ? "iput_vara" : "iget_vara";
  Status status;

  // Every box of every request becomes one nonblocking post; posts are grouped into calls of
  // at most max_request_bytes, each ended by one collective ncmpi_wait_all. A local problem
  // leaves this rank with no posts of its own; it still joins the others' collective calls.
  struct Post {
    int varid;
    std::size_t first;  // index of its start/count in starts/counts
    esmio_type buftype;
    char *buffer;
    int64_t bytes;
  };
  std::vector<Post> posts;
  std::vector<MPI_Offset> starts, counts;
  struct RecordsReached {
    int64_t end = 0;  // one past the last record esmio writes itself
    int varid = -1;
    esmio_type buftype = ESMIO_FLOAT;
    std::vector<int64_t> last;  // the coordinates of that box's last element
    char *element = nullptr;    // and where it is in the caller's buffer
    void set(int64_t end_, int varid_, esmio_type buftype_, char *element_) {
      end = end_;
      varid = varid_;
      buftype = buftype_;
      element = element_;
    }
  } records_reached;
  runs_.clear();
  // layouts: of the variables written, looked up once per call (put_extents passes its own)
  MPI_Offset data_end = 0;           // the file must reach this far once the writes are done
  std::vector<space::Range> ranges;  // the bytes this rank writes
  for (const PutRequest &request : requests) {
    const int varid = request.varid;
    nc_type xtype = NC_NAT;
    int ndims = 0;
    int err = ncmpi_inq_vartype(ncid_, varid, &xtype);
    if (err == NC_NOERR) err = ncmpi_inq_varndims(ncid_, varid, &ndims);
    if (err != NC_NOERR) {
      status = status_of(err, op, varid);
      break;
    }
    if (!type_is_known(request.buftype)) {
      status = status_of(NC_EBADTYPE, op, varid);
      break;
    }
    for (const Box &box : request.boxes) {
      bool ok = static_cast<int>(box.start.size()) == ndims &&
                static_cast<int>(box.count.size()) == ndims;
      for (std::size_t d = 0; ok && d < box.count.size(); ++d) ok = box.count[d] >= 0;
      if (!ok) {
        status =
            Status(ESMIO_EINVAL, "pnetcdf: " + std::string(op) + " on '" + path_ + "' variable '" +
                                     var_name(varid) + "': a box does not have one start and one " +
                                     "non-negative count for each of its " + std::to_string(ndims) +
                                     " dimensions");
        break;
      }
    }
    if (!status.is_ok()) break;
    if (write) {
      auto known = layouts.find(varid);
      if (known == layouts.end()) {
        VarLayout layout;
        if (var_layout(varid, &layout)) known = layouts.emplace(varid, std::move(layout)).first;
      }
      if (known != layouts.end()) note_file_end(known->second, request.boxes, &data_end, &ranges);
    }
    const std::size_t buf_elem = type_size(request.buftype);
    const int64_t elem_bytes = std::max(buf_elem, type_size(esmio_type(xtype)));
    char *base = static_cast<char *>(const_cast<void *>(request.buffer));
    const VarLayout *direct = nullptr;  // esmio writes this request's data itself
    if (write && options_.direct_write && reserver_.fd() >= 0) {
      const auto known = layouts.find(varid);
      if (known != layouts.end() && known->second.type == request.buftype) direct = &known->second;
    }
    if (direct != nullptr) {
      int64_t element = 0;
      for (const Box &box : request.boxes) {
        int64_t nelems = 1;
        for (int64_t c : box.count) nelems *= c;
        if (nelems == 0) continue;
        const char *data = base + element * buf_elem;
        pnetcdf::box_runs(*direct, box.start.data(), box.count.data(), data, &runs_);
        element += nelems;
        // The box that reaches furthest into the records keeps PnetCDF's record count up.
        const int64_t end = direct->record ? box.start[0] + box.count[0] : 0;
        if (end > 0 && end >= records_reached.end) {
          records_reached.last.resize(static_cast<std::size_t>(ndims));
          for (int d = 0; d < ndims; ++d) records_reached.last[d] = box.start[d] + box.count[d] - 1;
          records_reached.set(end, varid, request.buftype,
                              const_cast<char *>(data) + (nelems - 1) * buf_elem);
        }
      }
      continue;
    }
    for (const pnetcdf::CallPiece &piece :
         pnetcdf::split_request(request.boxes, ndims, elem_bytes, options_.max_request_bytes)) {
      int64_t element = piece.first_element;
      for (int64_t b = 0; b < piece.nboxes; ++b) {
        int64_t nelems = 1;
        const std::size_t first = starts.size();
        for (int d = 0; d < ndims; ++d) {
          starts.push_back(piece.starts[b * ndims + d]);
          counts.push_back(piece.counts[b * ndims + d]);
          nelems *= piece.counts[b * ndims + d];
        }
        posts.push_back(
            Post{varid, first, request.buftype, base + element * buf_elem, nelems * elem_bytes});
        element += nelems;
      }
    }
  }
  if (direct_stretches != nullptr && status.is_ok()) {
    for (const ExtentRequest *request : *direct_stretches) {
      const ExtentRequest &r = *request;
      const VarLayout &layout = layouts.at(r.varid);  // put_extents looked it up
      const int64_t record = layout.record ? r.record : 0;
      const Stretch *last = nullptr;
      for (const Stretch &st : r.stretches) {
        if (st.length <= 0) continue;
        const int64_t at = layout.offset(record, st.offset), bytes = st.length * layout.esize;
        runs_.push_back(pnetcdf::Run{at, static_cast<const char *>(st.values), bytes,
                                     static_cast<int>(layout.esize)});
        ranges.push_back(space::Range{at, at + bytes});
        data_end = std::max<MPI_Offset>(data_end, at + bytes);
        last = &st;
      }
      if (last != nullptr && layout.record && r.record + 1 >= records_reached.end) {
        // The coordinates of the last element: its record, then its place in the record.
        std::vector<int64_t> &coords = records_reached.last;
        coords.resize(r.shape->size() + 1);
        coords[0] = r.record;
        int64_t rest = last->offset + last->length - 1;
        for (std::size_t d = r.shape->size(); d > 0; --d) {
          coords[d] = rest % (*r.shape)[d - 1];
          rest /= (*r.shape)[d - 1];
        }
        records_reached.set(r.record + 1, r.varid, r.buftype,
                            static_cast<char *>(const_cast<void *>(last->values)) +
                                (last->length - 1) * layout.esize);
      }
    }
  }
  if (!status.is_ok()) {
    posts.clear();
    runs_.clear();
  }
  // PnetCDF counts records from what it writes: where esmio's own writes reach past its
  // count, the last element of the box that reaches furthest goes through PnetCDF again (the
  // same bytes to the same place), and its collective wait raises the count on every rank.
  // Of the boxes that reach furthest, the last in order: a later one may overwrite an earlier
  // one (a dense slab's fill under a later write's data), never the reverse.
  if (status.is_ok() && records_reached.end > 0) {
    int unlimdim = -1;
    MPI_Offset numrecs = 0;
    if (ncmpi_inq_unlimdim(ncid_, &unlimdim) == NC_NOERR && unlimdim >= 0)
      ncmpi_inq_dimlen(ncid_, unlimdim, &numrecs);
    if (records_reached.end > numrecs) {
      const std::size_t first = starts.size();
      for (int64_t at : records_reached.last) {
        starts.push_back(at);
        counts.push_back(1);
      }
      posts.push_back(Post{records_reached.varid, first, records_reached.buftype,
                           records_reached.element,
                           static_cast<int64_t>(type_size(records_reached.buftype))});
    }
  }

  // Greedy grouping in order; split_request already cut every box to fit.
  std::vector<std::size_t> call_ends;
  int64_t call_bytes = 0;
  for (std::size_t k = 0; k < posts.size(); ++k) {
    if (k > 0 && call_bytes + posts[k].bytes > options_.max_request_bytes) {
      call_ends.push_back(k);
      call_bytes = 0;
    }
    call_bytes += posts[k].bytes;
  }
  if (!posts.empty()) call_ends.push_back(posts.size());

  // One reduction says how many collective calls the ranks make (every rank makes the same
  // number, however its share was split) and where the bytes all of them write lie.
  TransferPlan local;
  local.calls = static_cast<long long>(call_ends.size());
  if (write) {
    for (const space::Range &r : ranges) {
      if (r.end <= r.begin) continue;
      local.begin = std::min<long long>(local.begin, r.begin);
      local.end = std::max<long long>(local.end, r.end);
      local.bytes += r.end - r.begin;
    }
  }
  TransferPlan global;
  if (MPI_Allreduce(&local, &global, 1, plan_type(), plan_op(), comm_) != MPI_SUCCESS) {
    return Status(ESMIO_EMPI, "pnetcdf: " + std::string(op) + " on '" + path_ +
                                  "': MPI_Allreduce of the transfer plan failed");
  }

  // Blocks for every byte written, before anything is posted anywhere: a write that fails
  // inside MPI-IO is not reported on every rank, or at all (backend/space.hpp).
  if (global.bytes > 0) {
    const space::Range span{global.begin, global.end};
    const bool as_span = space::reserve_as_span(span, global.bytes);
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    int err = 0;
    int64_t bytes = 0;
    if (as_span) {
      if (rank == 0) err = reserver_.reserve({span});
      bytes = span.end - span.begin;
    } else if (!ranges.empty()) {
      err = reserver_.reserve(ranges);
      bytes = local.bytes;
    }
    Status room;
    if (err != 0) {
      std::vector<std::string> names;
      auto named = [&](int varid) {
        const std::string name = var_name(varid);
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      };
      for (const PutRequest &request : requests) named(request.varid);
      if (direct_stretches)
        for (const ExtentRequest *r : *direct_stretches) named(r->varid);
      room = space::failure(err, "pnetcdf", op + space::of_variables(names), path_, bytes);
    }
    // Nothing was posted anywhere: every rank returns the same error and the file is unchanged.
    room = agree(comm_, room);
    if (!room.is_ok()) {
      runs_.clear();
      return room;
    }
  }
  const long long ncalls_local = local.calls, ncalls = global.calls;

  if (!runs_.empty()) {
    int64_t failed_at = 0;
    const int err = direct_.write(reserver_.fd(), &runs_, &failed_at);
    runs_.clear();
    if (err != 0 && status.is_ok()) {
      const bool space = err == ENOSPC || err == EDQUOT || err == EFBIG;
      status =
          Status(space ? ESMIO_ENOSPC : ESMIO_EIO,
                 "pnetcdf: write to '" + path_ + "' at byte " + std::to_string(failed_at) + ": " +
                     std::strerror(err) + (space ? "" : " (the data did not reach the file)"));
    }
  }

  // Nonblocking posts and one ncmpi_wait_all per call: the same single collective as
  // ncmpi_put_varn_all (which is built that way), without two bugs of PnetCDF 1.12.3's varn:
  // a box spanning several records gets every record after the first wrong (read past the
  // buffer; with one record variable MPI_File_set_view fails), and a scalar variable written by
  // some ranks (num = 1) but not others (num = 0) sends the two groups into different
  // collectives, which hangs.
  std::vector<int> reqs, req_var, statuses;
  std::size_t next = 0;
  for (long long c = 0; c < ncalls; ++c) {
    reqs.clear();
    req_var.clear();
    const std::size_t end = c < ncalls_local ? call_ends[c] : next;
    for (; next < end; ++next) {
      const Post &p = posts[next];
      int req = NC_REQ_NULL;
      const int err = write ? iput_vara(ncid_, p.varid, &starts[p.first], &counts[p.first],
                                        p.buftype, p.buffer, &req)
                            : iget_vara(ncid_, p.varid, &starts[p.first], &counts[p.first],
                                        p.buftype, p.buffer, &req);
      if (err != NC_NOERR && status.is_ok()) status = status_of(err, op, p.varid);
      if (req != NC_REQ_NULL) {
        reqs.push_back(req);
        req_var.push_back(p.varid);
      }
    }
    // Later calls go ahead after an error: the other ranks are in them, and an NC_ERANGE
    // still transfers the rest of the data.
    statuses.assign(reqs.size() + 1, NC_NOERR);
    int no_request = NC_REQ_NULL;
    const int nreqs = static_cast<int>(reqs.size());
    const int err =
        ncmpi_wait_all(ncid_, nreqs, nreqs > 0 ? reqs.data() : &no_request, statuses.data());
    if (err != NC_NOERR) {
      if (status.is_ok())
        status = status_of(err, "wait_all", req_var.empty() ? ESMIO_GLOBAL : req_var[0]);
      // A wait refused outright (define mode) leaves the posts pending; close would fail.
      if (nreqs > 0) ncmpi_cancel(ncid_, nreqs, reqs.data(), nullptr);
    }
    for (int r = 0; r < nreqs && status.is_ok(); ++r) {
      if (statuses[r] != NC_NOERR) status = status_of(statuses[r], "wait_all", req_var[r]);
    }
  }
  // Open MPI's ompio returns success from a collective write whose writev failed (a full disk,
  // a quota, a file-size limit): the data is lost without a word. A file that ends before the
  // data just written is the sign of it. The barrier first: an aggregator of the two-phase
  // write may still be writing this rank's data after this rank's wait returned.
  if (write && ncalls > 0) MPI_Barrier(comm_);
  // ompio also drops the error of a write inside the file's size (EIO from a device, a sparse
  // region): each rank reads back the first and last element of every box it wrote.
  if (write && status.is_ok() && options_.read_back) {
    for (const Post &p : posts) {
      const auto layout = layouts.find(p.varid);
      // Boxes PnetCDF converted from another type are not read back.
      if (layout != layouts.end() && layout->second.type == p.buftype)
        status =
            verify_written(p.varid, layout->second, &starts[p.first], &counts[p.first], p.buffer);
      if (!status.is_ok()) break;
    }
  }
  struct stat info;
  if (write && status.is_ok() && data_end > 0 && stat(path_.c_str(), &info) == 0 &&
      static_cast<MPI_Offset>(info.st_size) < data_end)
    status = Status(ESMIO_EIO, "pnetcdf: write to '" + path_ +
                                   "': the file system did not take "
                                   "the data (the file ends at byte " +
                                   std::to_string(info.st_size) + ", the data written at byte " +
                                   std::to_string(data_end) +
                                   "): an I/O error, a full disk, a quota or a file-size limit");
  return agree(comm_, status);
}

Status PnetcdfBackend::verify_written(int varid, const VarLayout &layout, const MPI_Offset *start,
                                      const MPI_Offset *count, const char *buffer) const {
  const int ndims = static_cast<int>(layout.len.size());
  int64_t nelems = 1;
  for (int d = 0; d < ndims; ++d) nelems *= count[d];
  if (reserver_.fd() < 0 || nelems == 0) return Status::ok();
  const int64_t esize = layout.esize;
  // The file offsets of the box's first and last elements.
  MPI_Offset offsets[2];
  for (int which = 0; which < 2; ++which)
    offsets[which] = layout.offset(layout.record ? start[0] + (which ? count[0] - 1 : 0) : 0,
                                   layout.linear(start, count, which == 1));
  for (int which = 0; which < 2; ++which) {
    unsigned char on_disk[8] = {0}, expected[8] = {0};
    const char *element = buffer + (which ? (nelems - 1) * esize : 0);
    const uint16_t probe = 1;
    const bool little_endian = *reinterpret_cast<const unsigned char *>(&probe) == 1;
    for (int64_t b = 0; b < esize; ++b)
      expected[b] = static_cast<unsigned char>(element[little_endian ? esize - 1 - b : b]);
    const ssize_t got =
        pread(reserver_.fd(), on_disk, static_cast<std::size_t>(esize), offsets[which]);
    if (got != esize || std::memcmp(on_disk, expected, static_cast<std::size_t>(esize)) != 0)
      return Status(ESMIO_EIO, "pnetcdf: write to '" + path_ + "' variable '" + var_name(varid) +
                                   "': the data read back at byte " +
                                   std::to_string(offsets[which]) +
                                   " is not what was written: the write failed below MPI-IO "
                                   "(an I/O error the MPI-IO component did not report)");
  }
  return Status::ok();
}

void PnetcdfBackend::note_file_end(const VarLayout &layout, const std::vector<Box> &boxes,
                                   MPI_Offset *end, std::vector<space::Range> *ranges) {
  for (const Box &box : boxes) {
    bool empty = false;
    for (int64_t c : box.count) empty |= c == 0;
    if (empty) continue;
    const MPI_Offset first = layout.linear(box.start.data(), box.count.data(), false);
    const MPI_Offset last = layout.linear(box.start.data(), box.count.data(), true);
    const MPI_Offset record = layout.record ? box.start[0] + box.count[0] - 1 : 0;
    *end = std::max<MPI_Offset>(*end, layout.offset(record, last + 1));
    for (MPI_Offset r = layout.record ? box.start[0] : 0; r <= record; ++r)
      ranges->push_back(space::Range{layout.offset(r, first), layout.offset(r, last + 1)});
  }
}

Status PnetcdfBackend::put_extents(const std::vector<ExtentRequest> &requests) {
  if (ncid_ < 0) return not_open("put_extents");
  // Stretches esmio can place itself go straight to the file; any other (a variable PnetCDF
  // has not placed, a buffer of another type) goes through PnetCDF as boxes, in the same
  // collective transfer.
  std::vector<const ExtentRequest *> direct;
  std::vector<PutRequest> boxes;
  std::map<int, VarLayout> layouts;  // of the variables placed, handed on to transfer
  std::map<int, bool> placed;
  for (const ExtentRequest &r : requests) {
    auto known = placed.find(r.varid);
    if (known == placed.end()) {
      VarLayout layout;
      const bool ok = var_layout(r.varid, &layout) && layout.type == r.buftype;
      if (ok) layouts.emplace(r.varid, std::move(layout));
      known = placed.emplace(r.varid, ok).first;
    }
    if (known->second) {
      direct.push_back(&r);
      continue;
    }
    for (const Stretch &st : r.stretches)
      boxes.push_back(
          {r.varid,
           record_boxes(*r.shape, r.record_variable, r.record, {Run{st.offset, st.length}}),
           r.buftype, st.values});
  }
  return transfer(true, boxes, &direct, std::move(layouts));
}

Status PnetcdfBackend::put_requests(const std::vector<PutRequest> &requests) {
  if (ncid_ < 0) return not_open("put_requests");
  return transfer(true, requests);
}

Status PnetcdfBackend::put_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                                 const void *buffer) {
  if (ncid_ < 0) return not_open("put_boxes");
  return transfer(true, {PutRequest{varid, boxes, buftype, buffer}});
}

Status PnetcdfBackend::get_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                                 void *buffer) {
  if (ncid_ < 0) return not_open("get_boxes");
  // The same choice on every rank: the header, the settings and the descriptors (agreed at
  // open) decide, never the boxes, which differ from rank to rank.
  VarLayout layout;
  if (direct_read_ && !in_define_ && var_layout(varid, &layout) && layout.type == buftype)
    return agree(comm_, read_direct(varid, layout, boxes, buffer));
  // PutRequest's buffer is const; iget writes through it (transfer() serves both directions).
  return transfer(false, {PutRequest{varid, boxes, buftype, buffer}});
}

int64_t PnetcdfBackend::read_ahead(int varid, int64_t record, const std::vector<Run> &ranges) {
  // Only where nothing can change the bytes before they are read: a file open read-only.
  VarLayout layout;
  if (writable_ || !direct_read_ || in_define_ || read_fd_ < 0 || options_.read_ahead <= 0 ||
      !var_layout(varid, &layout))
    return 0;
  const int64_t in_record = layout.record ? record : 0;
  // Stretches of the file, ranges closer than the reader's gap joined (the reader reads them in
  // one call too).
  std::vector<pnetcdf::Prefetcher::Stretch> stretches;
  try {  // a hint: no memory for it means no read ahead, not an error
    stretches.reserve(ranges.size());
  } catch (const std::bad_alloc &) {
    return 0;
  }
  for (const Run &r : ranges) {
    if (r.length <= 0) continue;
    const int64_t from = layout.offset(in_record, r.begin);
    const int64_t to = from + r.length * layout.esize;
    if (!stretches.empty()) {
      pnetcdf::Prefetcher::Stretch &last = stretches.back();
      const int64_t end = last.offset + last.bytes;
      if (from >= end && from - end <= pnetcdf::DirectReader::kGapBytes) {
        last.bytes = to - last.offset;
        continue;
      }
    }
    stretches.push_back({from, to - from});
  }
  return prefetch_.ask(read_fd_, varid, in_record, std::move(stretches), options_.read_ahead);
}

void PnetcdfBackend::read_ahead_cancel(int varid, int64_t record) {
  VarLayout layout;
  if (var_layout(varid, &layout)) prefetch_.cancel(varid, layout.record ? record : 0);
}

Status PnetcdfBackend::read_direct(int varid, const VarLayout &layout,
                                   const std::vector<Box> &boxes, void *buffer) {
  // PnetCDF's own checks of a read: the box inside the variable, records that exist. (A
  // record variable's first length is the number of records.)
  const std::size_t ndims = layout.len.size();
  for (const Box &box : boxes) {
    if (box.start.size() != ndims || box.count.size() != ndims)
      return status_of(NC_EINVALCOORDS, "iget_vara", varid);
    for (std::size_t d = 0; d < ndims; ++d) {
      if (box.start[d] < 0 || box.start[d] > layout.len[d] ||
          (box.count[d] > 0 && box.start[d] == layout.len[d]))
        return status_of(NC_EINVALCOORDS, "iget_vara", varid);
      if (box.count[d] < 0 || box.start[d] + box.count[d] > layout.len[d])
        return status_of(NC_EEDGE, "iget_vara", varid);
    }
  }
  runs_.clear();
  read_runs_.clear();
  const char *data = static_cast<const char *>(buffer);
  for (const Box &box : boxes) {
    int64_t nelems = 1;
    for (int64_t c : box.count) nelems *= c;
    if (nelems == 0) continue;
    pnetcdf::box_runs(layout, box.start.data(), box.count.data(), data, &runs_);
    data += nelems * layout.esize;
  }
  // box_runs serves both directions; here its pointers are the caller's writable buffer.
  for (const pnetcdf::Run &r : runs_)
    read_runs_.push_back(pnetcdf::ReadRun{r.offset, const_cast<char *>(r.data), r.bytes, r.esize});
  runs_.clear();
  // What was read ahead for this read is taken from memory; the reader reads the rest.
  if (!writable_ && !boxes.empty())
    prefetch_.serve(varid, layout.record ? boxes.front().start[0] : 0, &read_runs_);
  int64_t failed_at = 0;
  const int err = reader_.read(read_fd_, &read_runs_, &failed_at);
  if (err != 0)
    return Status(ESMIO_EIO, "pnetcdf: read of '" + path_ + "' variable '" + var_name(varid) +
                                 "' at byte " + std::to_string(failed_at) + ": " +
                                 std::strerror(err));
  return Status::ok();
}

}  // namespace esmio::backend
