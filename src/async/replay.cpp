#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "async/messages.hpp"
#include "async/outcome.hpp"
#include "async/protocol.hpp"
#include "async/server_loop.hpp"
#include "async/wire.hpp"
#include "common/schema_codec.hpp"
#include "common/types.hpp"
#include "esmio.h"

namespace esmio::async {

namespace {

// "variable 'T' in file 'out.nc'" for the servers' own messages.
std::string where(const ServedFile &file, int varid) {
  char name[ESMIO_MAX_NAME + 1] = {0};
  if (file.handle == nullptr ||
      esmio_inq_varname(file.handle, varid, name, static_cast<int64_t>(sizeof name)) != 0)
    std::snprintf(name, sizeof name, "%d", varid);
  return std::string("variable '") + name + "' in file '" + file.path + "'";
}

Status missing_decomp(const char *what, const ServedFile &file, int varid, int64_t serial) {
  return Status(ESMIO_EBADID, std::string(what) + ": " + where(file, varid) +
                                  ": decomposition number " + std::to_string(serial) +
                                  " is not on the I/O servers (its creation failed)");
}

}  // namespace

Status Server::dispatch() {
  const Message &first = ring_.message(0);
  ServedFile *file = first.file >= 0 ? &files_[first.file] : nullptr;
  // A file whose create or open failed on the servers: its calls fail with that failure.
  auto file_missing = [&] {
    return Status(
        ESMIO_EBADID,
        std::string(op_name(first.op)) + ": the file was not created or opened on the I/O servers" +
            (file->pending.is_ok() ? std::string() : " (" + file->pending.message() + ")"));
  };
  if (file && !file->handle && first.op != Op::create && first.op != Op::open) {
    const Status missing = file_missing();
    if (waits_for_reply(first.op)) {
      Status s = file->pending.is_ok() ? missing : file->pending;
      if (first.op == Op::close) files_.erase(first.file);
      return reply_all(encode_failure_alone(s));
    }
    return Status::ok();
  }
  const Replay replay = replay_of(first.op);
  // Every op has one: decode_args refused any other.
  return replay ? (this->*replay)(file) : Status::ok();
}

// The table of handlers, one per op of the protocol.
Server::Replay Server::replay_of(Op op) {
  static const std::map<Op, Replay> table = {
      {Op::finalize, &Server::finalize},
      {Op::decomp_create, &Server::decomp_create},
      {Op::create, &Server::create},
      {Op::open, &Server::open_file},
      {Op::def_dim, &Server::def_dim},
      {Op::def_var, &Server::def_var},
      {Op::put_att, &Server::put_att},
      {Op::def_var_chunking, &Server::def_var_chunking},
      {Op::def_var_compress, &Server::def_var_compress},
      {Op::def_var_quantize, &Server::def_var_quantize},
      {Op::enddef, &Server::enddef},
      {Op::redef, &Server::redef},
      {Op::write_darray, &Server::write_darray},
      {Op::read_darray, &Server::read_darray},
      {Op::put_vara, &Server::put_vara},
      {Op::get_vara, &Server::get_vara},
      {Op::inq_att, &Server::inq_att},
      {Op::get_att, &Server::get_att},
      {Op::att_names, &Server::att_names},
      {Op::stage_wait, &Server::stage_wait},
      {Op::sync, &Server::sync},
      {Op::close, &Server::close},
      {Op::trace_report, &Server::trace_report},
  };
  const auto it = table.find(op);
  return it == table.end() ? nullptr : it->second;
}

Status Server::finalize(ServedFile *) {
  // The servers' own finalize publishes their pending staged copies: its outcome goes back.
  Status s = instance_pending_;
  const Status finalized = finalize_instance();
  if (s.is_ok()) s = finalized;
  done_ = true;
  return reply_trace<FinalizeReply>(s, std::isnan(trace_epoch_) ? std::string() : final_entry_);
}

Status Server::trace_report(ServedFile *) {
  return reply_trace<TraceReportReply>(
      Status::ok(),
      hooks_.trace_entry ? hooks_.trace_entry(io_, report_rank_, world_rank_) : std::string());
}

Status Server::stage_wait(ServedFile *) {
  const auto &a = args<StageWaitArgs>();
  return reply_all(StageWaitReply{outcome_of(esmio_stage_wait(io_, a.path.c_str()))}.encode());
}

Status Server::decomp_create(ServedFile *) {
  return reply_all(DecompCreateReply{decomps_.create(io_, group_, ring_)}.encode());
}

Status Server::create(ServedFile *file) {
  const auto &a = args<CreateArgs>();
  file->path = a.path;
  file->keep(outcome_of(esmio_create(io_, a.path.c_str(), a.settings.c_str(), &file->handle)));
  return Status::ok();
}

Status Server::def_dim(ServedFile *file) {
  const auto &a = args<DefDimArgs>();
  int dimid = -1;
  file->keep(outcome_of(esmio_def_dim(file->handle, a.name.c_str(), a.len, &dimid)));
  return Status::ok();
}

Status Server::def_var(ServedFile *file) {
  const auto &a = args<DefVarArgs>();
  int varid = -1;
  file->keep(outcome_of(esmio_def_var(file->handle, a.name.c_str(), a.type,
                                      static_cast<int>(a.dimids.size()), a.dimids.data(), &varid)));
  return Status::ok();
}

Status Server::put_att(ServedFile *file) {
  const auto &a = args<PutAttArgs>();
  file->keep(outcome_of(
      esmio_put_att(file->handle, a.varid, a.name.c_str(), a.type, a.len, ring_.message(0).data)));
  return Status::ok();
}

Status Server::def_var_chunking(ServedFile *file) {
  const auto &a = args<DefVarChunkingArgs>();
  file->keep(
      outcome_of(esmio_def_var_chunking(file->handle, a.varid, static_cast<int>(a.chunks.size()),
                                        a.chunks.empty() ? nullptr : a.chunks.data())));
  return Status::ok();
}

Status Server::def_var_compress(ServedFile *file) {
  const auto &a = args<DefVarCompressArgs>();
  file->keep(outcome_of(esmio_def_var_compress(file->handle, a.varid, a.spec.c_str())));
  return Status::ok();
}

Status Server::def_var_quantize(ServedFile *file) {
  const auto &a = args<DefVarQuantizeArgs>();
  file->keep(outcome_of(esmio_def_var_quantize(file->handle, a.varid, a.spec.c_str())));
  return Status::ok();
}

Status Server::enddef(ServedFile *file) {
  file->keep(outcome_of(esmio_enddef(file->handle)));
  return Status::ok();
}

Status Server::redef(ServedFile *file) {
  file->keep(outcome_of(esmio_redef(file->handle)));
  return Status::ok();
}

Status Server::inq_att(ServedFile *file) {
  const auto &a = args<InqAttArgs>();
  esmio_type type = ESMIO_BYTE;
  int64_t len = 0;
  const Status s = outcome_of(esmio_inq_att(file->handle, a.varid, a.name.c_str(), &type, &len));
  return reply_all(InqAttReply{s, type, len}.encode());
}

Status Server::get_att(ServedFile *file) {
  const auto &a = args<GetAttArgs>();
  std::vector<char> values(static_cast<std::size_t>(a.len) * type_size(a.memtype));
  const Status s = outcome_of(
      esmio_get_att(file->handle, a.varid, a.name.c_str(), a.memtype, a.len, values.data()));
  return reply_all(GetAttReply{s, ValuesView{values.data(), values.size()}}.encode());
}

Status Server::att_names(ServedFile *file) {
  const int varid = args<AttNamesArgs>().varid;
  int natts = 0;
  Status st = outcome_of(esmio_inq_natts(file->handle, varid, &natts));
  AttNamesReply reply;
  char name[ESMIO_MAX_NAME + 1] = {0};
  for (int k = 0; st.is_ok() && k < natts; ++k) {
    st = outcome_of(
        esmio_inq_attname(file->handle, varid, k, name, static_cast<int64_t>(sizeof name)));
    reply.names.emplace_back(name);
  }
  reply.status = st;
  if (!st.is_ok()) reply.names.clear();  // no names when one failed
  return reply_all(reply.encode());
}

Status Server::sync(ServedFile *file) {
  Status s = outcome_of(esmio_sync(file->handle));
  // The first failure since the last report wins: it is what went wrong first.
  if (!file->pending.is_ok()) s = file->pending;
  file->pending = Status::ok();
  return reply_all(SyncReply{s}.encode());
}

Status Server::close(ServedFile *file) {
  Status s = outcome_of(esmio_close(&file->handle));
  if (!file->pending.is_ok())
    s = Status(file->pending.code(),
               file->pending.message() +
                   (s.is_ok() ? std::string("; the file was closed")
                              : "; closing the file then failed too: " + s.message()));
  files_.erase(ring_.message(0).file);
  return reply_all(CloseReply{s}.encode());
}

Status Server::write_darray(ServedFile *file) {
  const auto &a = args<WriteDarrayArgs>();
  const int varid = a.varid;
  const int64_t serial = a.decomp;
  const ServedDecomp &d = decomps_.get(serial);
  const std::size_t esize = type_size(a.type);
  values_.resize(static_cast<std::size_t>(d.total) * esize);
  std::size_t at = 0;
  for (std::size_t k = 0; k < clients_.size(); ++k) {
    const Message &m = ring_.message(k);
    // Each compute rank sent its part of the decomposition, no more (a decomposition the
    // servers never made has no parts).
    if (d.nlocal.size() != clients_.size() ||
        m.data_bytes != d.nlocal[k] * static_cast<int64_t>(esize)) {
      file->keep(missing_decomp("esmio_write_darray", *file, varid, serial));
      return Status::ok();
    }
    std::memcpy(values_.data() + at, m.data, static_cast<std::size_t>(m.data_bytes));
    at += static_cast<std::size_t>(m.data_bytes);
  }
  file->keep(outcome_of(esmio_write_darray(file->handle, varid, a.record, d.handle, a.type,
                                           values_.data(), d.total)));
  return Status::ok();
}

Status Server::read_darray(ServedFile *file) {
  const auto &a = args<ReadDarrayArgs>();
  const int varid = a.varid;
  const int64_t serial = a.decomp;
  const ServedDecomp &d = decomps_.get(serial);
  if (d.nlocal.size() != clients_.size())
    return reply_all(
        encode_failure_alone(missing_decomp("esmio_read_darray", *file, varid, serial)));
  const std::size_t esize = type_size(a.type);
  values_.resize(static_cast<std::size_t>(d.total) * esize);
  const Status s = outcome_of(
      esmio_read_darray(file->handle, varid, a.record, d.handle, a.type, values_.data(), d.total));
  std::size_t at = 0;
  const bool sends = s.is_ok() || s.code() == ESMIO_ERANGE;
  return reply_each([&](std::size_t k) {
    const std::size_t n = static_cast<std::size_t>(d.nlocal[k]) * esize;
    const ReadDarrayReply reply{s, ValuesView{values_.data() + at, sends ? n : 0}};
    at += n;
    return reply.encode();
  });
}

Status Server::put_vara(ServedFile *file) {
  // Every compute rank passed the same values (their call digests agree); the first of this
  // server's compute ranks sent them.
  const auto &slice = args<PutVaraArgs>();
  file->keep(outcome_of(esmio_put_vara(file->handle, slice.varid, slice.start.data(),
                                       slice.count.data(), slice.type, ring_.message(0).data)));
  return Status::ok();
}

Status Server::get_vara(ServedFile *file) {
  const auto &slice = args<GetVaraArgs>();
  values_.resize(static_cast<std::size_t>(slice.values()) * type_size(slice.type));
  const Status s = outcome_of(esmio_get_vara(file->handle, slice.varid, slice.start.data(),
                                             slice.count.data(), slice.type, values_.data()));
  return reply_all(GetVaraReply{s, ValuesView{values_.data(), values_.size()}}.encode());
}

// The schema goes back to the compute ranks with the reply.
Status Server::open_file(ServedFile *) {
  const auto &a = args<OpenArgs>();
  ServedFile &file = files_[ring_.message(0).file];
  file.path = a.path;
  OpenReply reply;
  reply.status =
      outcome_of(esmio_open(io_, a.path.c_str(), a.mode, a.settings.c_str(), &file.handle));
  if (reply.status.is_ok()) {
    int ndims = 0, nvars = 0, unlimdim = -1;
    esmio_inq_ndims(file.handle, &ndims);
    esmio_inq_nvars(file.handle, &nvars);
    esmio_inq_unlimdim(file.handle, &unlimdim);
    FileSchema &schema = reply.schema;
    char name[ESMIO_MAX_NAME + 1];
    for (int d = 0; d < ndims; ++d) {
      int64_t len = 0;
      esmio_inq_dimname(file.handle, d, name, sizeof name);
      esmio_inq_dimlen(file.handle, d, &len);
      schema.dims.push_back(SchemaDim{name, len, d == unlimdim});
    }
    for (int v = 0; v < nvars; ++v) {
      SchemaVar var;
      int nd = 0;
      var.dimids.resize(static_cast<std::size_t>(ndims) + 1);
      esmio_inq_varname(file.handle, v, name, sizeof name);
      esmio_inq_var(file.handle, v, &var.type, &nd, var.dimids.data());
      var.name = name;
      var.dimids.resize(static_cast<std::size_t>(nd));
      var.fill.resize(type_size(var.type));
      default_fill_value(var.type, var.fill.data());
      esmio_type att_type = ESMIO_BYTE;
      int64_t att_len = 0;
      if (esmio_inq_att(file.handle, v, "_FillValue", &att_type, &att_len) == ESMIO_NOERR &&
          att_type == var.type && att_len == 1)
        esmio_get_att(file.handle, v, "_FillValue", var.type, 1, var.fill.data());
      schema.vars.push_back(std::move(var));
    }
  } else {
    file.keep(reply.status);
  }
  return reply_all(reply.encode());
}

}  // namespace esmio::async
