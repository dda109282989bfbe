#include "async/forward_engine.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <utility>

#include "async/messages.hpp"
#include "async/protocol.hpp"
#include "async/wire.hpp"
#include "common/agree.hpp"
#include "common/digest.hpp"
#include "common/types.hpp"
#include "convert/convert.hpp"
#include "datapath/define.hpp"
#include "datapath/file_backend.hpp"
#include "datapath/flush.hpp"
#include "datapath/mirror.hpp"

namespace esmio::async {
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

// A slice of varid for the servers (PutVaraArgs or GetVaraArgs): the values travel in the
// variable's own type.
template <typename SliceArgs>
Packer slice_args(const datapath::Variable &var, int varid, const int64_t *start,
                  const int64_t *count) {
  const std::size_t nd = var.dimids.size();
  return SliceArgs{varid, std::vector<int64_t>(start, start + nd),
                   std::vector<int64_t>(count, count + nd), var.type}
      .encode();
}

class ForwardEngine final : public datapath::Engine {
 public:
  ForwardEngine(datapath::Group &group, datapath::FileState &file, const ForwardingContext &context)
      : group_(group), file_(file), context_(context), client_(*context.client) {}

  // The backend is made for what it tells (its capabilities, an unknown or unbuilt name on
  // every compute rank) and dropped: the servers hold the file.
  Status prepare(const datapath::FileSetup &setup) override {
    setup_ = setup;
    std::unique_ptr<backend::Backend> made;
    ESMIO_RETURN_IF_ERROR(datapath::make_file_backend(group_, &file_, setup, &made));
    file_.backend_root = -1;
    return Status::ok();
  }

  // A create the servers refuse is reported at the file's next esmio_sync or esmio_close.
  // A background close of the same path has finished (ForwardInstance::before_file).
  Status create() override {
    serial_ = (*context_.next_file)++;
    return forward(Op::create, CreateArgs{file_.path, setup_.settings}.encode());
  }

  // The servers open the file and send its schema, which becomes the mirror.
  Status open(int mode, const datapath::OnDisk &) override {
    serial_ = (*context_.next_file)++;
    std::vector<char> bytes;
    OpenReply reply;
    ESMIO_RETURN_IF_ERROR(
        forward_and_wait(OpenArgs{file_.path, mode, setup_.settings}.encode(), &bytes, &reply));
    datapath::mirror_schema(reply.schema, &file_);
    return Status::ok();
  }

  Status def_dim(const datapath::Call &call, const std::string &name, int64_t len) override {
    ESMIO_RETURN_IF_ERROR(agreed(call));
    datapath::mirror_def_dim(&file_, name, len);
    return forward(Op::def_dim, DefDimArgs{name, len}.encode());
  }

  Status def_var(const datapath::Call &call, const std::string &name, esmio_type type,
                 const std::vector<int> &dimids) override {
    ESMIO_RETURN_IF_ERROR(agreed(call));
    datapath::mirror_def_var(&file_, name, type, dimids);
    return forward(Op::def_var, DefVarArgs{name, type, dimids}.encode());
  }

  Status put_att(const datapath::Call &call, int varid, const std::string &name, esmio_type type,
                 int64_t len, const void *values) override {
    ESMIO_RETURN_IF_ERROR(agreed(call));
    datapath::mirror_put_att(&file_, varid, name, type, len, values);
    const Packer args = PutAttArgs{varid, name, type, len}.encode();
    const auto bytes = static_cast<int64_t>(len * type_size(type));
    return forward(Op::put_att, args, bytes, [&](char *to) { std::memcpy(to, values, bytes); });
  }

  // Ranks may ask for different storage (esmio_enddef compares what they resolved): the
  // servers compare the arguments too.
  Status def_storage(const datapath::StorageRequest &request) override {
    using Kind = datapath::StorageRequest::Kind;
    const char *what = request.kind == Kind::chunking   ? "esmio_def_var_chunking"
                       : request.kind == Kind::compress ? "esmio_def_var_compress"
                                                        : "esmio_def_var_quantize";
    const Op op = request.kind == Kind::chunking   ? Op::def_var_chunking
                  : request.kind == Kind::compress ? Op::def_var_compress
                                                   : Op::def_var_quantize;
    Packer args;
    if (request.kind == Kind::chunking)
      args = DefVarChunkingArgs{request.varid, request.chunks}.encode();
    else if (request.kind == Kind::compress)
      args = DefVarCompressArgs{request.varid, request.spec}.encode();
    else
      args = DefVarQuantizeArgs{request.varid, request.spec}.encode();
    const std::vector<char> &bytes = args.data();
    const uint64_t digest =
        Digest(what).add(int64_t(request.varid)).add(bytes.data(), bytes.size()).value();
    return forward(op, args, 0, nullptr, digest);
  }

  Status enddef(const datapath::Call &call, const datapath::StoragePlan &plan) override {
    ESMIO_RETURN_IF_ERROR(datapath::end_definitions(group_, &file_, call, plan));
    return forward(Op::enddef, EnddefArgs{}.encode());
  }

  Status redef() override {
    file_.define_mode = true;
    return forward(Op::redef, RedefArgs{}.encode());
  }

  Status att_names(int varid, std::vector<std::string> *names) override {
    std::vector<char> bytes;
    AttNamesReply reply;
    ESMIO_RETURN_IF_ERROR(forward_and_wait(AttNamesArgs{varid}.encode(), &bytes, &reply));
    *names = std::move(reply.names);
    return Status::ok();
  }

  Status inq_att(int varid, const std::string &name, esmio_type *type, int64_t *len) override {
    std::vector<char> bytes;
    InqAttReply reply;
    ESMIO_RETURN_IF_ERROR(forward_and_wait(InqAttArgs{varid, name}.encode(), &bytes, &reply));
    if (type) *type = reply.type;
    if (len) *len = reply.len;
    return Status::ok();
  }

  Status get_att(int varid, const std::string &name, esmio_type memtype, int64_t len,
                 void *values) override {
    std::vector<char> bytes;
    GetAttReply reply;
    ESMIO_RETURN_IF_ERROR(
        forward_and_wait(GetAttArgs{varid, name, memtype, len}.encode(), &bytes, &reply));
    const std::size_t n = reply.values.size;
    if (n != static_cast<std::size_t>(len) * type_size(memtype))
      return Status(ESMIO_EMPI,
                    "esmio_get_att: the I/O server sent " + std::to_string(n) + " bytes");
    if (n > 0) std::memcpy(values, reply.values.data, n);
    return Status::ok();
  }

  // agree_writes=flush's rules, with the servers in the place of the flush: a call whose checks
  // failed here returns its error here and is posted with it, so the servers drop the call on
  // every rank and report it at the next esmio_sync or esmio_close; values out of range are
  // stored as fill and counted for the next esmio_sync or esmio_close.
  Status write_darray(const datapath::Call &call, int varid, int64_t record,
                      const datapath::Decomp *decomp, esmio_type memtype,
                      const void *buf) override {
    const bool ok = call.local.is_ok();
    const datapath::Variable *var = ok ? &file_.vars[varid] : nullptr;
    const esmio_type type = ok ? var->type : ESMIO_BYTE;
    const Packer args = WriteDarrayArgs{varid, record, ok ? decomp->serial : -1, type}.encode();
    const int64_t bytes = ok ? decomp->map.nlocal * static_cast<int64_t>(type_size(type)) : 0;
    int64_t out_of_range = 0;
    const Status posted = forward(
        Op::write_darray, args, bytes,
        [&](char *to) {
          auto scope = datapath::scope_of(group_, &file_, trace::Counter::convert, bytes);
          out_of_range = convert_mapped(decomp->map, memtype, buf, type, to, var->fill.data());
        },
        call.digest, call.local);
    if (!ok) return call.local;
    if (!posted.is_ok()) return posted;
    if (var->record) file_.nrecords = std::max(file_.nrecords, record + 1);
    if (out_of_range == 0) return Status::ok();
    if (file_.pending_range == 0) file_.pending_range_source = group_.rank;
    file_.pending_range += out_of_range;
    return Status(ESMIO_ERANGE, "esmio_write_darray: " + datapath::where(file_, varid) + ": " +
                                    std::to_string(out_of_range) +
                                    " value(s) out of the range of " + type_name(type) +
                                    " on rank " + std::to_string(group_.rank) +
                                    ", stored as the fill value (every rank is told at the next "
                                    "esmio_sync or esmio_close)");
  }

  // The servers read and send each rank its part in the variable's type, converted here.
  Status read_darray(int varid, int64_t record, const datapath::Decomp &decomp, esmio_type memtype,
                     void *buf) override {
    const datapath::Variable &var = file_.vars[varid];
    const Packer args = ReadDarrayArgs{varid, record, decomp.serial, var.type}.encode();
    std::vector<char> bytes;
    ReadDarrayReply reply;
    Status status = forward_and_wait(args, &bytes, &reply);
    datapath::RangeCount range;
    if (status.is_ok() || status.code() == ESMIO_ERANGE) {
      const std::size_t n = reply.values.size;
      const char *values = reply.values.data;
      if (n != static_cast<std::size_t>(decomp.map.nlocal) * type_size(var.type)) {
        status = Status(ESMIO_EMPI, "esmio_read_darray: " + datapath::where(file_, varid) +
                                        ": the I/O server sent " + std::to_string(n) + " bytes");
      } else {
        auto scope =
            datapath::scope_of(group_, &file_, trace::Counter::convert, static_cast<int64_t>(n));
        range.add(convert_mapped(decomp.map, var.type, values, memtype, buf, nullptr), group_.rank);
      }
    }
    return datapath::agree_with_range(group_, file_, varid, "esmio_read_darray", var.type, memtype,
                                      status, range);
  }

  // Every compute rank passed the same values (the vote compares them), so each converts them
  // alike and knows the out-of-range count without asking; the first compute rank of each
  // server sends them, in the variable's type.
  Status put_vara(const datapath::Call &call, int varid, const int64_t *start, const int64_t *count,
                  int64_t n, esmio_type memtype, const void *buf) override {
    ESMIO_RETURN_IF_ERROR(
        agree_checked_call(group_.comm, call.local, call.digest, call.checked, call.words));
    datapath::Variable &var = file_.vars[varid];
    const Packer args = slice_args<PutVaraArgs>(var, varid, start, count);
    std::vector<unsigned char> converted(static_cast<std::size_t>(n) * type_size(var.type));
    const int64_t out_of_range =
        convert::convert(memtype, buf, var.type, converted.data(), n, var.fill.data());
    const bool sends = client_.first_of_server(client_.group_of_file(serial_));
    const auto bytes = sends ? static_cast<int64_t>(converted.size()) : 0;
    ESMIO_RETURN_IF_ERROR(forward(Op::put_vara, args, bytes, [&](char *to) {
      std::memcpy(to, converted.data(), converted.size());
    }));
    if (var.record && n > 0) {
      file_.nrecords = std::max(file_.nrecords, start[0] + count[0]);
      for (int64_t r = start[0]; r < start[0] + count[0]; ++r) var.claim_hole_fill(r);
    }
    if (out_of_range == 0) return Status::ok();
    return Status(ESMIO_ERANGE, "esmio_put_vara: " + datapath::where(file_, varid) + ": " +
                                    std::to_string(out_of_range) +
                                    " value(s) out of the range of " + type_name(var.type) +
                                    ", stored as the fill value");
  }

  Status get_vara(const datapath::Call &call, int varid, const int64_t *start, const int64_t *count,
                  int64_t n, esmio_type memtype, void *buf) override {
    ESMIO_RETURN_IF_ERROR(
        agree_checked_call(group_.comm, call.local, call.digest, call.checked, call.words));
    const datapath::Variable &var = file_.vars[varid];
    std::vector<char> bytes;
    GetVaraReply reply;
    ESMIO_RETURN_IF_ERROR(
        forward_and_wait(slice_args<GetVaraArgs>(var, varid, start, count), &bytes, &reply));
    const char *values = reply.values.data;
    if (reply.values.size != static_cast<std::size_t>(n) * type_size(var.type))
      return Status(ESMIO_EMPI, "esmio_get_vara: " + datapath::where(file_, varid) +
                                    ": the I/O server sent " + std::to_string(reply.values.size) +
                                    " bytes");
    std::vector<unsigned char> memfill(type_size(memtype));
    default_fill_value(memtype, memfill.data());
    const int64_t out_of_range =
        convert::convert(var.type, values, memtype, buf, n, memfill.data());
    if (out_of_range == 0) return Status::ok();
    return Status(ESMIO_ERANGE, "esmio_get_vara: " + datapath::where(file_, varid) + ": " +
                                    std::to_string(out_of_range) +
                                    " value(s) out of the range of " + type_name(memtype) +
                                    ", returned as its fill value");
  }

  // The servers' outcome: their sync, or the first failure since the last report.
  Status sync() override {
    std::vector<char> bytes;
    SyncReply reply;
    const Status synced = forward_and_wait(SyncArgs{}.encode(), &bytes, &reply);
    const Status range = datapath::report_pending_range(group_, &file_);
    return synced.is_ok() ? range : synced;
  }

  // The servers end a file left in define mode themselves.
  // io_server_close=background: posted only; the servers' outcome is received later
  // (Client::expect_close) and reported by esmio_stage_wait or esmio_finalize.
  Status close(const datapath::Ending *) override {
    if (setup_.close_in_background) {
      // A post that fails here reaches every rank through the servers' reply, as for a close
      // that waits.
      forward(Op::close, CloseArgs{}.encode());
      client_.expect_close(client_.group_of_file(serial_), file_.path);
      return Status::ok();
    }
    std::vector<char> bytes;
    CloseReply reply;
    return forward_and_wait(CloseArgs{}.encode(), &bytes, &reply);
  }

  // The servers published an atomic or staged file themselves; a copy they finish later is
  // waited for at the group that holds it.
  Status publish(const Status &closed) override {
    if (file_.staged && setup_.stage_copy != "close" &&
        (closed.is_ok() || closed.code() == ESMIO_ERANGE))
      context_.remote_copies->emplace_back(file_.path, client_.group_of_file(serial_));
    if (!closed.is_ok()) return closed;
    return datapath::report_pending_range(group_, &file_);
  }

 private:
  // Definitions: the compute ranks agree as the local engine does, on no backend.
  Status agreed(const datapath::Call &call) {
    return datapath::define(group_, &file_, call, [](backend::Backend &) { return Status::ok(); });
  }

  // Posts a call on the file to its servers, after the compute ranks agreed on it (digest 0)
  // or, for write_darray, with its digest and this rank's checks. data_bytes bytes follow the
  // arguments, written by fill. Local; an error (a call too large for async_buffer) is this
  // rank's, and the servers see it too.
  Status forward(Op op, const Packer &args, int64_t data_bytes = 0,
                 const std::function<void(char *)> &fill = nullptr, uint64_t digest = 0,
                 const Status &local = Status::ok()) {
    return client_.post(client_.group_of_file(serial_), Head{op, serial_, digest, local}, args,
                        data_bytes, fill, &file_.counters, &group_.counters);
  }

  // The same for a call whose answer the compute ranks wait for (the op of its Reply, whose
  // codec is in messages.hpp): the servers' reply, received into *bytes and decoded into
  // *reply (whose values are a view of *bytes). Returns a reply that does not decode
  // (ESMIO_EMPI naming the call, here with the file), else the servers' outcome, alike on every
  // compute rank.
  template <typename Reply>
  Status forward_and_wait(const Packer &args, std::vector<char> *bytes, Reply *reply) {
    // The servers see the call whatever happened here; a local failure (a call too large for
    // the buffer) reaches every rank through the servers' reply.
    forward(Reply::kOp, args);
    ESMIO_RETURN_IF_ERROR(client_.reply(client_.group_of_file(serial_), bytes));
    Unpacker u(bytes->data(), bytes->size());
    const Status decoded = Reply::decode(u, reply);
    if (!decoded.is_ok())
      return Status(decoded.code(), decoded.message() + " (file '" + file_.path + "')");
    return reply->status;
  }

  datapath::Group &group_;
  datapath::FileState &file_;
  ForwardingContext context_;
  Client &client_;
  datapath::FileSetup setup_;
  int64_t serial_ = -1;  // the servers' name for the file
};

}  // namespace

std::unique_ptr<datapath::Engine> make_forward_engine(datapath::Group &group,
                                                      datapath::FileState &file,
                                                      const ForwardingContext &context) {
  return std::make_unique<ForwardEngine>(group, file, context);
}

}  // namespace esmio::async
