// The arguments of every message of the server protocol (protocol.hpp): one struct per op, next
// to its encoding. encode() gives the bytes a compute rank posts after the head; decode() reads
// them back on the server, all of them and no more: bytes cut short, bytes left over, or a
// length that does not fit what is left is refused with ESMIO_EMPI naming the call, never read
// past. The raw data of a message (values, a decomposition's runs) follows the arguments and
// is not theirs. The servers' replies, to the instance's calls and to a file's, are structs of
// the same kind (after the arguments). Pure: no MPI (tests/unit/test_async_messages.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "async/protocol.hpp"
#include "async/wire.hpp"
#include "common/schema_codec.hpp"
#include "common/status.hpp"
#include "esmio.h"

namespace esmio::async {

// The calls without arguments.
template <Op K>
struct NoArgs {
  static constexpr Op kOp = K;
  Packer encode() const { return Packer(); }
  static Status decode(Unpacker &u, NoArgs *out);
};
using FinalizeArgs = NoArgs<Op::finalize>;
using EnddefArgs = NoArgs<Op::enddef>;
using RedefArgs = NoArgs<Op::redef>;
using SyncArgs = NoArgs<Op::sync>;
using CloseArgs = NoArgs<Op::close>;
using TraceReportArgs = NoArgs<Op::trace_report>;

// data: this rank's MapRun triples (memory, offset, length).
struct DecompCreateArgs {
  static constexpr Op kOp = Op::decomp_create;
  int64_t serial;
  std::vector<int64_t> dims;
  int64_t nlocal;  // this rank's elements
  Packer encode() const;
  static Status decode(Unpacker &u, DecompCreateArgs *out);
};

struct CreateArgs {
  static constexpr Op kOp = Op::create;
  std::string path, settings;
  Packer encode() const;
  static Status decode(Unpacker &u, CreateArgs *out);
};

struct OpenArgs {
  static constexpr Op kOp = Op::open;
  std::string path;
  int mode;
  std::string settings;
  Packer encode() const;
  static Status decode(Unpacker &u, OpenArgs *out);
};

struct DefDimArgs {
  static constexpr Op kOp = Op::def_dim;
  std::string name;
  int64_t len;
  Packer encode() const;
  static Status decode(Unpacker &u, DefDimArgs *out);
};

struct DefVarArgs {
  static constexpr Op kOp = Op::def_var;
  std::string name;
  esmio_type type;
  std::vector<int> dimids;
  Packer encode() const;
  static Status decode(Unpacker &u, DefVarArgs *out);
};

// data: len values of type.
struct PutAttArgs {
  static constexpr Op kOp = Op::put_att;
  int varid;
  std::string name;
  esmio_type type;
  int64_t len;
  Packer encode() const;
  static Status decode(Unpacker &u, PutAttArgs *out);
};

struct DefVarChunkingArgs {
  static constexpr Op kOp = Op::def_var_chunking;
  int varid;
  std::vector<int64_t> chunks;  // empty: esmio's default
  Packer encode() const;
  static Status decode(Unpacker &u, DefVarChunkingArgs *out);
};

// def_var_compress and def_var_quantize: a variable and the text of its setting.
template <Op K>
struct VarSpecArgs {
  static constexpr Op kOp = K;
  int varid;
  std::string spec;
  Packer encode() const;
  static Status decode(Unpacker &u, VarSpecArgs *out);
};
using DefVarCompressArgs = VarSpecArgs<Op::def_var_compress>;
using DefVarQuantizeArgs = VarSpecArgs<Op::def_var_quantize>;

// write_darray (data: this rank's values in type) and read_darray: one record of a variable
// through a decomposition, in the variable's type.
template <Op K>
struct DarrayArgs {
  static constexpr Op kOp = K;
  int varid;
  int64_t record;
  int64_t decomp;  // the decomposition's serial (-1 in a call refused on the compute rank)
  esmio_type type;
  Packer encode() const;
  static Status decode(Unpacker &u, DarrayArgs *out);
};
using WriteDarrayArgs = DarrayArgs<Op::write_darray>;
using ReadDarrayArgs = DarrayArgs<Op::read_darray>;

// put_vara (data, from the first compute rank of each server only: the values) and get_vara: a
// slice of a variable, its values in type.
template <Op K>
struct VaraArgs {
  static constexpr Op kOp = K;
  int varid;
  std::vector<int64_t> start, count;
  esmio_type type;
  // The number of values in the slice.
  int64_t values() const;
  Packer encode() const;
  static Status decode(Unpacker &u, VaraArgs *out);
};
using PutVaraArgs = VaraArgs<Op::put_vara>;
using GetVaraArgs = VaraArgs<Op::get_vara>;

struct InqAttArgs {
  static constexpr Op kOp = Op::inq_att;
  int varid;
  std::string name;
  Packer encode() const;
  static Status decode(Unpacker &u, InqAttArgs *out);
};

struct GetAttArgs {
  static constexpr Op kOp = Op::get_att;
  int varid;
  std::string name;
  esmio_type memtype;
  int64_t len;
  Packer encode() const;
  static Status decode(Unpacker &u, GetAttArgs *out);
};

struct AttNamesArgs {
  static constexpr Op kOp = Op::att_names;
  int varid;
  Packer encode() const;
  static Status decode(Unpacker &u, AttNamesArgs *out);
};

struct StageWaitArgs {
  static constexpr Op kOp = Op::stage_wait;
  std::string path;
  Packer encode() const;
  static Status decode(Unpacker &u, StageWaitArgs *out);
};

// The arguments of any message.
using Args =
    std::variant<FinalizeArgs, DecompCreateArgs, CreateArgs, OpenArgs, DefDimArgs, DefVarArgs,
                 PutAttArgs, DefVarChunkingArgs, DefVarCompressArgs, DefVarQuantizeArgs, EnddefArgs,
                 RedefArgs, WriteDarrayArgs, ReadDarrayArgs, PutVaraArgs, GetVaraArgs, InqAttArgs,
                 GetAttArgs, AttNamesArgs, StageWaitArgs, SyncArgs, CloseArgs, TraceReportArgs>;

// The arguments of a message of op (its struct's decode); an op the protocol does not have is
// refused too.
Status decode_args(Op op, Unpacker &u, Args *out);

// The servers' replies to the calls the compute ranks wait for (waits_for_reply): the outcome
// (a code and its message), then the op's results. encode() gives the bytes a server sends;
// decode() reads them back on the compute rank as the arguments are read, and returns whether
// the bytes were whole: the servers' outcome is the reply's status. A failure may come alone,
// without the results (encode_failure_alone: a call the servers refused before replaying it):
// they read as empty. A success always comes with its results.
//
// The failure of a call the servers refused before replaying it, for any op that waits; every
// reply's decode() reads it.
Packer encode_failure_alone(const Status &failure);

// The instance's calls.
template <Op K>
struct StatusReply {
  static constexpr Op kOp = K;
  Status status;
  Packer encode() const;
  static Status decode(Unpacker &u, StatusReply *out);
};
using DecompCreateReply = StatusReply<Op::decomp_create>;
using StageWaitReply = StatusReply<Op::stage_wait>;

// esmio_finalize and esmio_trace_write: the server group's entries of the trace report, one
// line each, joined by ",\n"; for the compute rank 0 only (empty for the others, or when the
// servers keep none).
template <Op K>
struct TraceReply {
  static constexpr Op kOp = K;
  Status status;
  std::string entries;
  Packer encode() const;
  static Status decode(Unpacker &u, TraceReply *out);
};
using FinalizeReply = TraceReply<Op::finalize>;
using TraceReportReply = TraceReply<Op::trace_report>;

// A file's calls. esmio_sync (the servers' sync, or the first failure since the last report)
// and esmio_close: their outcome alone.
using SyncReply = StatusReply<Op::sync>;
using CloseReply = StatusReply<Op::close>;

// esmio_open: the file's schema (common/schema_codec.hpp, its one encoding), sent when the file
// opened. A schema that does not decode is refused as the reply's other bytes are.
struct OpenReply {
  static constexpr Op kOp = Op::open;
  Status status;
  FileSchema schema;
  Packer encode() const;
  static Status decode(Unpacker &u, OpenReply *out);
};

// esmio_inq_att: the attribute's type and length (sent whatever the outcome).
struct InqAttReply {
  static constexpr Op kOp = Op::inq_att;
  Status status;
  esmio_type type = ESMIO_BYTE;
  int64_t len = 0;
  Packer encode() const;
  static Status decode(Unpacker &u, InqAttReply *out);
};

// esmio_inq_attname: the names of a variable's (or the file's) attributes, in order, all at
// once (the compute ranks pick one by number); none when one could not be read.
struct AttNamesReply {
  static constexpr Op kOp = Op::att_names;
  Status status;
  std::vector<std::string> names;
  Packer encode() const;
  static Status decode(Unpacker &u, AttNamesReply *out);
};

// Values in a reply, as a view, not a copy (a rank's share of a field can be large): on the
// server, of the values it sends; on the compute rank, of the reply's bytes it was decoded
// from, valid as long as they are.
struct ValuesView {
  const char *data = nullptr;
  std::size_t size = 0;  // bytes
};

// The values of a reading call, as many bytes as came; the compute rank checks that they are
// the bytes it asked for. esmio_get_att: len values in memtype (sent whatever the outcome);
// esmio_read_darray: this rank's part of the record in the variable's type (none when the read
// failed other than by values out of range); esmio_get_vara: the slice in the variable's type
// (sent whatever the outcome).
template <Op K>
struct ValuesReply {
  static constexpr Op kOp = K;
  Status status;
  ValuesView values;
  Packer encode() const;
  static Status decode(Unpacker &u, ValuesReply *out);
};
using GetAttReply = ValuesReply<Op::get_att>;
using ReadDarrayReply = ValuesReply<Op::read_darray>;
using GetVaraReply = ValuesReply<Op::get_vara>;

// The head of a message as it travels: the Head, then the decompositions the rank freed since
// its last message to this server (client.hpp).
Packer encode_head(const Head &head, const std::vector<int64_t> &freed);
// Reads a head; the op's arguments follow it in u. A head cut short is refused.
Status decode_head(Unpacker &u, Head *head, std::vector<int64_t> *freed);

}  // namespace esmio::async
