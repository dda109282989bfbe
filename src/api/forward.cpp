// Asynchronous mode on a compute rank: a call, once its checks passed and the compute ranks
// agreed on it, is posted to the file's I/O servers (async/client.hpp) instead of running the
// data path here; the servers replay it (async/server.hpp).
#include <algorithm>
#include <cstring>

#include "api/handles.hpp"
#include "common/agree.hpp"
#include "common/types.hpp"
#include "convert/convert.hpp"
#include "datapath/call.hpp"
#include "datapath/mirror.hpp"

namespace esmio::api {

Status forward(esmio_file *file, async::Op op, const async::Packer &args, int64_t data_bytes,
               const std::function<void(char *)> &fill, uint64_t digest, const Status &local) {
  async::Client &client = *file->io->client;
  return client.post(client.group_of_file(file->serial),
                     async::Head{op, file->serial, digest, local}, args, data_bytes, fill,
                     &file->counters, &file->io->group.counters);
}

Status forward_and_wait(esmio_file *file, async::Op op, const async::Packer &args,
                        std::vector<char> *reply, std::optional<async::Unpacker> *results,
                        int64_t data_bytes, const std::function<void(char *)> &fill) {
  // The servers see the call whatever happened here; a local failure (a call too large for
  // the buffer) reaches every rank through the servers' reply.
  forward(file, op, args, data_bytes, fill);
  async::Client &client = *file->io->client;
  ESMIO_RETURN_IF_ERROR(client.reply(client.group_of_file(file->serial), reply));
  results->emplace(reply->data(), reply->size());
  return async::reply_status(&**results);
}

Status check_compute_role(const esmio_instance *io, const char *what) {
  if (io->server)
    return Status(ESMIO_EINVAL, std::string(what) +
                                    ": this rank is an I/O server: its instance only answers "
                                    "esmio_inq_role and esmio_finalize");
  return Status::ok();
}

}  // namespace esmio::api

namespace esmio::api {
namespace {

// Converts the mapped slots of a decomposed buffer (holes are left zero): from (from_type)
// to (to_type), slot i of one to slot i of the other. Returns the values out of range.
int64_t convert_mapped(const decomp::LocalMap &map, esmio_type from_type, const void *from,
                       esmio_type to_type, void *to, const void *fill) {
  const std::size_t fsize = type_size(from_type), tsize = type_size(to_type);
  if (map.count() < map.nlocal) std::memset(to, 0, static_cast<std::size_t>(map.nlocal) * tsize);
  // Slot to slot in memory order: runs that follow each other in memory are one span however
  // far apart their file offsets are (a scattered map such as E3SM's has runs of one or two
  // elements that are contiguous in memory), so the spans are converted whole.
  int64_t out_of_range = 0;
  auto span = [&](int64_t first, int64_t length) {
    out_of_range += convert::convert(
        from_type, static_cast<const char *>(from) + static_cast<std::size_t>(first) * fsize,
        to_type, static_cast<char *>(to) + static_cast<std::size_t>(first) * tsize, length, fill);
  };
  int64_t first = 0, length = 0;
  for (const decomp::MapRun &r : map.runs) {
    if (length > 0 && r.memory == first + length) {
      length += r.length;
      continue;
    }
    if (length > 0) span(first, length);
    first = r.memory;
    length = r.length;
  }
  if (length > 0) span(first, length);
  return out_of_range;
}

}  // namespace

// agree_writes=flush's rules, with the servers in the place of the flush: a call whose checks
// failed here returns its error here and is posted with it, so the servers drop the call on
// every rank and report it at the next esmio_sync or esmio_close; values out of range are
// stored as fill and counted for the next esmio_sync or esmio_close.
Status write_remote(esmio_file *file, const datapath::Call &call, int varid, int64_t record,
                    const esmio_decomp *decomp, esmio_type memtype, const void *buf) {
  const bool ok = call.local.is_ok();
  const datapath::Variable *var = ok ? &file->vars[varid] : nullptr;
  const esmio_type type = ok ? var->type : ESMIO_BYTE;
  async::Packer args;
  args.i64(varid).i64(record).i64(ok ? decomp->serial : -1).i64(type);
  const int64_t bytes = ok ? decomp->map.nlocal * static_cast<int64_t>(type_size(type)) : 0;
  int64_t out_of_range = 0;
  const Status posted = forward(
      file, async::Op::write_darray, args, bytes,
      [&](char *to) {
        auto scope = traced(file, trace::Counter::convert, bytes);
        out_of_range = convert_mapped(decomp->map, memtype, buf, type, to, var->fill.data());
      },
      call.digest, call.local);
  if (!ok) return call.local;
  if (!posted.is_ok()) return posted;
  if (var->record) file->nrecords = std::max(file->nrecords, record + 1);
  if (out_of_range == 0) return Status::ok();
  if (file->pending_range == 0) file->pending_range_source = file->io->group.rank;
  file->pending_range += out_of_range;
  return Status(ESMIO_ERANGE, "esmio_write_darray: " + where(file, varid) + ": " +
                                  std::to_string(out_of_range) + " value(s) out of the range of " +
                                  type_name(type) + " on rank " +
                                  std::to_string(file->io->group.rank) +
                                  ", stored as the fill value (every rank is told at the next "
                                  "esmio_sync or esmio_close)");
}

// After the compute ranks agreed on the call: the servers read and send each rank its part in
// the variable's type, converted here.
Status read_remote(esmio_file *file, int varid, int64_t record, const esmio_decomp *decomp,
                   esmio_type memtype, void *buf) {
  const datapath::Variable &var = file->vars[varid];
  async::Packer args;
  args.i64(varid).i64(record).i64(decomp->serial).i64(var.type);
  std::vector<char> reply;
  std::optional<async::Unpacker> results;
  Status status = forward_and_wait(file, async::Op::read_darray, args, &reply, &results);
  datapath::RangeCount range;
  if (status.is_ok() || status.code() == ESMIO_ERANGE) {
    std::size_t n = 0;
    const char *values = results->bytes(&n);
    if (n != static_cast<std::size_t>(decomp->map.nlocal) * type_size(var.type)) {
      status = Status(ESMIO_EMPI, "esmio_read_darray: " + where(file, varid) +
                                      ": the I/O server sent " + std::to_string(n) + " bytes");
    } else {
      auto scope = traced(file, trace::Counter::convert, static_cast<int64_t>(n));
      range.add(convert_mapped(decomp->map, var.type, values, memtype, buf, nullptr),
                file->io->group.rank);
    }
  }
  return datapath::agree_with_range(file->io->group, *file, varid, "esmio_read_darray", var.type,
                                    memtype, status, range);
}

Status open_remote(esmio_file *file, int mode, const char *settings) {
  async::Packer args;
  args.str(file->path).i64(mode).str(settings ? settings : "");
  std::vector<char> reply;
  std::optional<async::Unpacker> results;
  ESMIO_RETURN_IF_ERROR(forward_and_wait(file, async::Op::open, args, &reply, &results));
  std::size_t n = 0;
  const char *bytes = results->bytes(&n);
  FileSchema schema;
  ESMIO_RETURN_IF_ERROR(decode_schema(bytes, results->ok() ? n : 0,
                                      "esmio_open: '" + file->path + "' (from the I/O servers)",
                                      &schema));
  datapath::mirror_schema(schema, file);
  return Status::ok();
}

}  // namespace esmio::api

namespace esmio::api {
namespace {

// A slice of varid for the servers: the values travel in the variable's own type.
async::Packer slice_args(const datapath::Variable &var, int varid, const int64_t *start,
                         const int64_t *count) {
  const std::size_t nd = var.dimids.size();
  async::Packer args;
  args.i64(varid)
      .i64s(std::vector<int64_t>(start, start + nd))
      .i64s(std::vector<int64_t>(count, count + nd))
      .i64(var.type);
  return args;
}

}  // namespace

// Every compute rank passed the same values (the vote compares them), so each converts them
// alike and knows the out-of-range count without asking; the first compute rank of each
// server sends them, in the variable's type.
Status put_vara_remote(esmio_file *file, const datapath::Call &call, int varid,
                       const int64_t *start, const int64_t *count, int64_t n, esmio_type memtype,
                       const void *buf) {
  ESMIO_RETURN_IF_ERROR(agree_call(file->io->group.comm, call.local, call.digest, call.words));
  datapath::Variable &var = file->vars[varid];
  const async::Packer args = slice_args(var, varid, start, count);
  std::vector<unsigned char> converted(static_cast<std::size_t>(n) * type_size(var.type));
  const int64_t out_of_range =
      convert::convert(memtype, buf, var.type, converted.data(), n, var.fill.data());
  async::Client &client = *file->io->client;
  const bool sends = client.first_of_server(client.group_of_file(file->serial));
  const auto bytes = sends ? static_cast<int64_t>(converted.size()) : 0;
  ESMIO_RETURN_IF_ERROR(forward(file, async::Op::put_vara, args, bytes, [&](char *to) {
    std::memcpy(to, converted.data(), converted.size());
  }));
  if (var.record && n > 0) {
    file->nrecords = std::max(file->nrecords, start[0] + count[0]);
    for (int64_t r = start[0]; r < start[0] + count[0]; ++r) var.claim_hole_fill(r);
  }
  if (out_of_range == 0) return Status::ok();
  return Status(ESMIO_ERANGE, "esmio_put_vara: " + where(file, varid) + ": " +
                                  std::to_string(out_of_range) + " value(s) out of the range of " +
                                  type_name(var.type) + ", stored as the fill value");
}

Status get_vara_remote(esmio_file *file, const datapath::Call &call, int varid,
                       const int64_t *start, const int64_t *count, int64_t n, esmio_type memtype,
                       void *buf) {
  ESMIO_RETURN_IF_ERROR(agree_call(file->io->group.comm, call.local, call.digest, call.words));
  const datapath::Variable &var = file->vars[varid];
  const async::Packer args = slice_args(var, varid, start, count);
  std::vector<char> reply;
  std::optional<async::Unpacker> results;
  ESMIO_RETURN_IF_ERROR(forward_and_wait(file, async::Op::get_vara, args, &reply, &results));
  std::size_t bytes = 0;
  const char *values = results->bytes(&bytes);
  if (bytes != static_cast<std::size_t>(n) * type_size(var.type))
    return Status(ESMIO_EMPI, "esmio_get_vara: " + where(file, varid) + ": the I/O server sent " +
                                  std::to_string(bytes) + " bytes");
  std::vector<unsigned char> memfill(type_size(memtype));
  default_fill_value(memtype, memfill.data());
  const int64_t out_of_range = convert::convert(var.type, values, memtype, buf, n, memfill.data());
  if (out_of_range == 0) return Status::ok();
  return Status(ESMIO_ERANGE, "esmio_get_vara: " + where(file, varid) + ": " +
                                  std::to_string(out_of_range) + " value(s) out of the range of " +
                                  type_name(memtype) + ", returned as its fill value");
}

}  // namespace esmio::api
