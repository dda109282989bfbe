#include "async/messages.hpp"

#include <string>

namespace esmio::async {

namespace {

// After a decode: every byte read, none missing, none left over.
Status finished(const Unpacker &u, Op op) {
  if (!u.ok())
    return Status(ESMIO_EMPI, std::string(op_name(op)) +
                                  ": the message's arguments were cut short or garbled (a "
                                  "length runs past their end)");
  if (u.remaining() != 0)
    return Status(ESMIO_EMPI, std::string(op_name(op)) + ": " + std::to_string(u.remaining()) +
                                  " byte(s) follow the message's arguments");
  return Status::ok();
}

// The same for a reply.
Status finished_reply(const Unpacker &u, Op op) {
  if (!u.ok())
    return Status(ESMIO_EMPI, std::string(op_name(op)) +
                                  ": the I/O servers' reply was cut short or garbled (a length "
                                  "runs past its end)");
  if (u.remaining() != 0)
    return Status(ESMIO_EMPI, std::string(op_name(op)) + ": " + std::to_string(u.remaining()) +
                                  " byte(s) follow the I/O servers' reply");
  return Status::ok();
}

// The outcome at the head of every reply.
Packer reply_head(const Status &status) {
  Packer p;
  p.i64(status.code()).str(status.message());
  return p;
}
Status read_outcome(Unpacker &u) {
  const auto code = static_cast<int>(u.i64());
  std::string message = u.str();
  return code == ESMIO_NOERR ? Status::ok() : Status(code, message);
}

// After the outcome: true when a failure came alone (its results then read as empty).
bool failure_alone(const Unpacker &u, const Status &status) {
  return u.ok() && !status.is_ok() && u.remaining() == 0;
}

int to_int(int64_t v) { return static_cast<int>(v); }
esmio_type to_type(int64_t v) { return static_cast<esmio_type>(v); }

}  // namespace

template <Op K>
Status NoArgs<K>::decode(Unpacker &u, NoArgs *) {
  return finished(u, K);
}

Packer DecompCreateArgs::encode() const {
  Packer p;
  p.i64(serial).i64s(dims).i64(nlocal);
  return p;
}
Status DecompCreateArgs::decode(Unpacker &u, DecompCreateArgs *out) {
  out->serial = u.i64();
  out->dims = u.i64s();
  out->nlocal = u.i64();
  return finished(u, kOp);
}

Packer CreateArgs::encode() const {
  Packer p;
  p.str(path).str(settings);
  return p;
}
Status CreateArgs::decode(Unpacker &u, CreateArgs *out) {
  out->path = u.str();
  out->settings = u.str();
  return finished(u, kOp);
}

Packer OpenArgs::encode() const {
  Packer p;
  p.str(path).i64(mode).str(settings);
  return p;
}
Status OpenArgs::decode(Unpacker &u, OpenArgs *out) {
  out->path = u.str();
  out->mode = to_int(u.i64());
  out->settings = u.str();
  return finished(u, kOp);
}

Packer DefDimArgs::encode() const {
  Packer p;
  p.str(name).i64(len);
  return p;
}
Status DefDimArgs::decode(Unpacker &u, DefDimArgs *out) {
  out->name = u.str();
  out->len = u.i64();
  return finished(u, kOp);
}

Packer DefVarArgs::encode() const {
  Packer p;
  p.str(name).i64(type).ints(dimids);
  return p;
}
Status DefVarArgs::decode(Unpacker &u, DefVarArgs *out) {
  out->name = u.str();
  out->type = to_type(u.i64());
  out->dimids = u.ints();
  return finished(u, kOp);
}

Packer PutAttArgs::encode() const {
  Packer p;
  p.i64(varid).str(name).i64(type).i64(len);
  return p;
}
Status PutAttArgs::decode(Unpacker &u, PutAttArgs *out) {
  out->varid = to_int(u.i64());
  out->name = u.str();
  out->type = to_type(u.i64());
  out->len = u.i64();
  return finished(u, kOp);
}

Packer DefVarChunkingArgs::encode() const {
  Packer p;
  p.i64(varid).i64s(chunks);
  return p;
}
Status DefVarChunkingArgs::decode(Unpacker &u, DefVarChunkingArgs *out) {
  out->varid = to_int(u.i64());
  out->chunks = u.i64s();
  return finished(u, kOp);
}

template <Op K>
Packer VarSpecArgs<K>::encode() const {
  Packer p;
  p.i64(varid).str(spec);
  return p;
}
template <Op K>
Status VarSpecArgs<K>::decode(Unpacker &u, VarSpecArgs *out) {
  out->varid = to_int(u.i64());
  out->spec = u.str();
  return finished(u, K);
}

template <Op K>
Packer DarrayArgs<K>::encode() const {
  Packer p;
  p.i64(varid).i64(record).i64(decomp).i64(type);
  return p;
}
template <Op K>
Status DarrayArgs<K>::decode(Unpacker &u, DarrayArgs *out) {
  out->varid = to_int(u.i64());
  out->record = u.i64();
  out->decomp = u.i64();
  out->type = to_type(u.i64());
  return finished(u, K);
}

template <Op K>
int64_t VaraArgs<K>::values() const {
  int64_t n = 1;
  for (int64_t c : count) n *= c;
  return n;
}
template <Op K>
Packer VaraArgs<K>::encode() const {
  Packer p;
  p.i64(varid).i64s(start).i64s(count).i64(type);
  return p;
}
template <Op K>
Status VaraArgs<K>::decode(Unpacker &u, VaraArgs *out) {
  out->varid = to_int(u.i64());
  out->start = u.i64s();
  out->count = u.i64s();
  out->type = to_type(u.i64());
  return finished(u, K);
}

Packer InqAttArgs::encode() const {
  Packer p;
  p.i64(varid).str(name);
  return p;
}
Status InqAttArgs::decode(Unpacker &u, InqAttArgs *out) {
  out->varid = to_int(u.i64());
  out->name = u.str();
  return finished(u, kOp);
}

Packer GetAttArgs::encode() const {
  Packer p;
  p.i64(varid).str(name).i64(memtype).i64(len);
  return p;
}
Status GetAttArgs::decode(Unpacker &u, GetAttArgs *out) {
  out->varid = to_int(u.i64());
  out->name = u.str();
  out->memtype = to_type(u.i64());
  out->len = u.i64();
  return finished(u, kOp);
}

Packer AttNamesArgs::encode() const {
  Packer p;
  p.i64(varid);
  return p;
}
Status AttNamesArgs::decode(Unpacker &u, AttNamesArgs *out) {
  out->varid = to_int(u.i64());
  return finished(u, kOp);
}

Packer StageWaitArgs::encode() const {
  Packer p;
  p.str(path);
  return p;
}
Status StageWaitArgs::decode(Unpacker &u, StageWaitArgs *out) {
  out->path = u.str();
  return finished(u, kOp);
}

Packer encode_failure_alone(const Status &failure) { return reply_head(failure); }

template <Op K>
Packer StatusReply<K>::encode() const {
  return reply_head(status);
}
template <Op K>
Status StatusReply<K>::decode(Unpacker &u, StatusReply *out) {
  out->status = read_outcome(u);
  return finished_reply(u, K);
}

template <Op K>
Packer TraceReply<K>::encode() const {
  Packer p = reply_head(status);
  p.str(entries);
  return p;
}
template <Op K>
Status TraceReply<K>::decode(Unpacker &u, TraceReply *out) {
  out->status = read_outcome(u);
  out->entries.clear();
  if (u.ok() && !out->status.is_ok() && u.remaining() == 0) return Status::ok();
  out->entries = u.str();
  return finished_reply(u, K);
}

Packer OpenReply::encode() const {
  Packer p = reply_head(status);
  if (status.is_ok()) {
    const std::string bytes = encode_schema(schema);
    p.bytes(bytes.data(), bytes.size());
  }
  return p;
}
Status OpenReply::decode(Unpacker &u, OpenReply *out) {
  out->status = read_outcome(u);
  out->schema = FileSchema();
  if (failure_alone(u, out->status)) return Status::ok();
  std::size_t n = 0;
  const char *bytes = u.bytes(&n);
  ESMIO_RETURN_IF_ERROR(finished_reply(u, kOp));
  return decode_schema(bytes, n, std::string(op_name(kOp)) + ": the I/O servers' reply",
                       &out->schema);
}

Packer InqAttReply::encode() const {
  Packer p = reply_head(status);
  p.i64(type).i64(len);
  return p;
}
Status InqAttReply::decode(Unpacker &u, InqAttReply *out) {
  out->status = read_outcome(u);
  out->type = ESMIO_BYTE;
  out->len = 0;
  if (failure_alone(u, out->status)) return Status::ok();
  out->type = to_type(u.i64());
  out->len = u.i64();
  return finished_reply(u, kOp);
}

Packer AttNamesReply::encode() const {
  Packer p = reply_head(status);
  p.strs(names);
  return p;
}
Status AttNamesReply::decode(Unpacker &u, AttNamesReply *out) {
  out->status = read_outcome(u);
  out->names.clear();
  if (failure_alone(u, out->status)) return Status::ok();
  out->names = u.strs();
  return finished_reply(u, kOp);
}

template <Op K>
Packer ValuesReply<K>::encode() const {
  Packer p = reply_head(status);
  p.bytes(values.data, values.size);
  return p;
}
template <Op K>
Status ValuesReply<K>::decode(Unpacker &u, ValuesReply *out) {
  out->status = read_outcome(u);
  out->values = ValuesView();
  if (failure_alone(u, out->status)) return Status::ok();
  out->values.data = u.bytes(&out->values.size);
  return finished_reply(u, K);
}

template struct NoArgs<Op::finalize>;
template struct NoArgs<Op::enddef>;
template struct NoArgs<Op::redef>;
template struct NoArgs<Op::sync>;
template struct NoArgs<Op::close>;
template struct NoArgs<Op::trace_report>;
template struct VarSpecArgs<Op::def_var_compress>;
template struct VarSpecArgs<Op::def_var_quantize>;
template struct DarrayArgs<Op::write_darray>;
template struct DarrayArgs<Op::read_darray>;
template struct VaraArgs<Op::put_vara>;
template struct VaraArgs<Op::get_vara>;
template struct StatusReply<Op::decomp_create>;
template struct StatusReply<Op::stage_wait>;
template struct StatusReply<Op::sync>;
template struct StatusReply<Op::close>;
template struct TraceReply<Op::finalize>;
template struct TraceReply<Op::trace_report>;
template struct ValuesReply<Op::get_att>;
template struct ValuesReply<Op::read_darray>;
template struct ValuesReply<Op::get_vara>;

namespace {

// Decodes the arguments of one struct into the variant.
template <typename A>
Status decode_as(Unpacker &u, Args *out) {
  A args{};
  const Status s = A::decode(u, &args);
  *out = std::move(args);
  return s;
}

// Every op's decoder, one entry per alternative of Args (each struct names its op).
template <typename... A>
Status decode_any(Op op, Unpacker &u, Args *out, std::variant<A...> *) {
  Status status(ESMIO_EMPI, "a message of an unknown call (op " +
                                std::to_string(static_cast<int64_t>(op)) + ") came");
  const bool known = ((A::kOp == op ? (status = decode_as<A>(u, out), true) : false) || ...);
  (void)known;
  return status;
}

}  // namespace

Status decode_args(Op op, Unpacker &u, Args *out) {
  return decode_any(op, u, out, static_cast<Args *>(nullptr));
}

Packer encode_head(const Head &head, const std::vector<int64_t> &freed) {
  Packer p;
  p.i64(static_cast<int64_t>(head.op)).i64(head.file).i64(static_cast<int64_t>(head.digest));
  p.i64(head.local.code()).str(head.local.message()).i64s(freed);
  return p;
}

Status decode_head(Unpacker &u, Head *head, std::vector<int64_t> *freed) {
  head->op = static_cast<Op>(u.i64());
  head->file = u.i64();
  head->digest = static_cast<uint64_t>(u.i64());
  const auto code = static_cast<int>(u.i64());
  std::string message = u.str();
  head->local = code == ESMIO_NOERR ? Status::ok() : Status(code, message);
  *freed = u.i64s();
  if (!u.ok()) return Status(ESMIO_EMPI, "a message's head was cut short or garbled");
  return Status::ok();
}

}  // namespace esmio::async
