// The arguments of the server protocol's messages and the servers' replies to the instance's
// and the files' calls (async/messages.hpp): each struct's bytes decode back to the same
// struct, and bytes cut short, left over or garbled are refused with a Status that names the
// call, never read past their end. Pure, without MPI.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "async/messages.hpp"
#include "common/types.hpp"

namespace {

using namespace esmio::async;
using esmio::FileSchema;
using esmio::SchemaDim;
using esmio::SchemaVar;
using esmio::Status;

// The bytes of args in a buffer of exactly their size, so that a read past the end would leave
// the buffer.
template <typename A>
std::vector<char> bytes_of(const A &args) {
  return args.encode().data();
}

template <typename A>
Status decode_bytes(Op op, const std::vector<char> &bytes, std::size_t n, Args *out) {
  std::vector<char> copy(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
  Unpacker u(copy.data(), copy.size());
  return decode_args(op, u, out);
}

template <typename A>
A round_trip(const A &args) {
  const std::vector<char> bytes = bytes_of(args);
  Args out;
  const Status s = decode_bytes<A>(A::kOp, bytes, bytes.size(), &out);
  EXPECT_TRUE(s.is_ok()) << s.message();
  EXPECT_TRUE(std::holds_alternative<A>(out)) << op_name(A::kOp);
  return std::holds_alternative<A>(out) ? std::get<A>(out) : A{};
}

// Every proper prefix of the bytes is refused, naming the call.
template <typename A>
void refuses_every_prefix(const A &args) {
  const std::vector<char> bytes = bytes_of(args);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    Args out;
    const Status s = decode_bytes<A>(A::kOp, bytes, n, &out);
    EXPECT_EQ(s.code(), ESMIO_EMPI) << op_name(A::kOp) << ": " << n << " of " << bytes.size();
    EXPECT_NE(s.message().find(op_name(A::kOp)), std::string::npos) << s.message();
  }
}

// A byte more than the arguments is refused too.
template <typename A>
void refuses_a_byte_more(const A &args) {
  std::vector<char> bytes = bytes_of(args);
  bytes.push_back('x');
  Args out;
  const Status s = decode_bytes<A>(A::kOp, bytes, bytes.size(), &out);
  EXPECT_EQ(s.code(), ESMIO_EMPI) << op_name(A::kOp);
  EXPECT_NE(s.message().find("1 byte(s) follow"), std::string::npos) << s.message();
}

template <typename A>
void check_bytes(const A &args) {
  refuses_every_prefix(args);
  refuses_a_byte_more(args);
}

TEST(AsyncMessages, ArgumentsComeBackAsSent) {
  const auto dc = round_trip(DecompCreateArgs{7, {3, 40, 50}, 123});
  EXPECT_EQ(dc.serial, 7);
  EXPECT_EQ(dc.dims, (std::vector<int64_t>{3, 40, 50}));
  EXPECT_EQ(dc.nlocal, 123);

  const auto cr = round_trip(CreateArgs{"out/a.nc", "backend=pnetcdf"});
  EXPECT_EQ(cr.path, "out/a.nc");
  EXPECT_EQ(cr.settings, "backend=pnetcdf");

  const auto op = round_trip(OpenArgs{"in.nc", ESMIO_WRITE, ""});
  EXPECT_EQ(op.path, "in.nc");
  EXPECT_EQ(op.mode, ESMIO_WRITE);
  EXPECT_EQ(op.settings, "");

  const auto dd = round_trip(DefDimArgs{"time", ESMIO_UNLIMITED});
  EXPECT_EQ(dd.name, "time");
  EXPECT_EQ(dd.len, ESMIO_UNLIMITED);

  const auto dv = round_trip(DefVarArgs{"T", ESMIO_FLOAT, {0, 2, 1}});
  EXPECT_EQ(dv.name, "T");
  EXPECT_EQ(dv.type, ESMIO_FLOAT);
  EXPECT_EQ(dv.dimids, (std::vector<int>{0, 2, 1}));

  const auto pa = round_trip(PutAttArgs{ESMIO_GLOBAL, "title", ESMIO_CHAR, 11});
  EXPECT_EQ(pa.varid, ESMIO_GLOBAL);
  EXPECT_EQ(pa.name, "title");
  EXPECT_EQ(pa.type, ESMIO_CHAR);
  EXPECT_EQ(pa.len, 11);

  const auto ch = round_trip(DefVarChunkingArgs{4, {1, 96, 192}});
  EXPECT_EQ(ch.varid, 4);
  EXPECT_EQ(ch.chunks, (std::vector<int64_t>{1, 96, 192}));
  EXPECT_TRUE(round_trip(DefVarChunkingArgs{4, {}}).chunks.empty());

  const auto co = round_trip(DefVarCompressArgs{2, "zstd:3"});
  EXPECT_EQ(co.varid, 2);
  EXPECT_EQ(co.spec, "zstd:3");
  const auto qu = round_trip(DefVarQuantizeArgs{3, "bitround:7"});
  EXPECT_EQ(qu.varid, 3);
  EXPECT_EQ(qu.spec, "bitround:7");

  const auto wd = round_trip(WriteDarrayArgs{5, 17, 2, ESMIO_DOUBLE});
  EXPECT_EQ(wd.varid, 5);
  EXPECT_EQ(wd.record, 17);
  EXPECT_EQ(wd.decomp, 2);
  EXPECT_EQ(wd.type, ESMIO_DOUBLE);
  const auto rd = round_trip(ReadDarrayArgs{6, 0, -1, ESMIO_INT});
  EXPECT_EQ(rd.varid, 6);
  EXPECT_EQ(rd.record, 0);
  EXPECT_EQ(rd.decomp, -1);
  EXPECT_EQ(rd.type, ESMIO_INT);

  const auto pv = round_trip(PutVaraArgs{1, {0, 2}, {3, 4}, ESMIO_SHORT});
  EXPECT_EQ(pv.varid, 1);
  EXPECT_EQ(pv.start, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(pv.count, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(pv.type, ESMIO_SHORT);
  EXPECT_EQ(pv.values(), 12);
  const auto gv = round_trip(GetVaraArgs{0, {}, {}, ESMIO_FLOAT});
  EXPECT_EQ(gv.values(), 1);  // a scalar

  const auto ia = round_trip(InqAttArgs{3, "units"});
  EXPECT_EQ(ia.varid, 3);
  EXPECT_EQ(ia.name, "units");
  const auto ga = round_trip(GetAttArgs{3, "valid_range", ESMIO_DOUBLE, 2});
  EXPECT_EQ(ga.varid, 3);
  EXPECT_EQ(ga.name, "valid_range");
  EXPECT_EQ(ga.memtype, ESMIO_DOUBLE);
  EXPECT_EQ(ga.len, 2);
  EXPECT_EQ(round_trip(AttNamesArgs{9}).varid, 9);
  EXPECT_EQ(round_trip(StageWaitArgs{"/scratch/x.nc"}).path, "/scratch/x.nc");

  round_trip(FinalizeArgs{});
  round_trip(EnddefArgs{});
  round_trip(RedefArgs{});
  round_trip(SyncArgs{});
  round_trip(CloseArgs{});
  round_trip(TraceReportArgs{});
}

TEST(AsyncMessages, ArgumentsCutShortOrRunOnAreRefused) {
  check_bytes(DecompCreateArgs{7, {3, 40, 50}, 123});
  check_bytes(CreateArgs{"out/a.nc", "backend=pnetcdf"});
  check_bytes(OpenArgs{"in.nc", ESMIO_WRITE, "x=1"});
  check_bytes(DefDimArgs{"time", ESMIO_UNLIMITED});
  check_bytes(DefVarArgs{"T", ESMIO_FLOAT, {0, 2, 1}});
  check_bytes(PutAttArgs{ESMIO_GLOBAL, "title", ESMIO_CHAR, 11});
  check_bytes(DefVarChunkingArgs{4, {1, 96, 192}});
  check_bytes(DefVarCompressArgs{2, "zstd:3"});
  check_bytes(DefVarQuantizeArgs{3, "bitround:7"});
  check_bytes(WriteDarrayArgs{5, 17, 2, ESMIO_DOUBLE});
  check_bytes(ReadDarrayArgs{6, 0, 1, ESMIO_INT});
  check_bytes(PutVaraArgs{1, {0, 2}, {3, 4}, ESMIO_SHORT});
  check_bytes(GetVaraArgs{1, {0}, {3}, ESMIO_SHORT});
  check_bytes(InqAttArgs{3, "units"});
  check_bytes(GetAttArgs{3, "valid_range", ESMIO_DOUBLE, 2});
  check_bytes(AttNamesArgs{9});
  check_bytes(StageWaitArgs{"/scratch/x.nc"});
  refuses_a_byte_more(FinalizeArgs{});
  refuses_a_byte_more(SyncArgs{});
  refuses_a_byte_more(CloseArgs{});
}

// A length prefix that says more than is left (or less than nothing) is refused, not followed.
TEST(AsyncMessages, GarbledLengthsAreRefused) {
  for (int64_t garbled : {int64_t(1) << 40, int64_t(-1), int64_t(1000)}) {
    std::vector<char> bytes = bytes_of(DefDimArgs{"lat", 96});
    std::memcpy(bytes.data(), &garbled, sizeof garbled);  // the name's length
    Args out;
    const Status s = decode_bytes<DefDimArgs>(Op::def_dim, bytes, bytes.size(), &out);
    EXPECT_EQ(s.code(), ESMIO_EMPI) << garbled;
    EXPECT_NE(s.message().find("esmio_def_dim"), std::string::npos) << s.message();
  }
  std::vector<char> bytes = bytes_of(DefVarChunkingArgs{0, {4, 4}});
  const int64_t many = int64_t(1) << 61;  // times 8 bytes would wrap around
  std::memcpy(bytes.data() + sizeof(int64_t), &many, sizeof many);
  Args out;
  EXPECT_EQ(
      decode_bytes<DefVarChunkingArgs>(Op::def_var_chunking, bytes, bytes.size(), &out).code(),
      ESMIO_EMPI);
}

TEST(AsyncMessages, AnUnknownCallIsRefused) {
  for (int64_t op : {int64_t(0), int64_t(Op::trace_report) + 1, int64_t(-5)}) {
    Unpacker u(nullptr, 0);
    Args out;
    const Status s = decode_args(static_cast<Op>(op), u, &out);
    EXPECT_EQ(s.code(), ESMIO_EMPI);
    EXPECT_NE(s.message().find("unknown call"), std::string::npos) << s.message();
  }
}

// The bytes that the compute rank posts for a call are the bytes each decoder reads: the same
// op decodes them, another op's decoder refuses them or reads other fields.
TEST(AsyncMessages, EachOpHasItsOwnDecoder) {
  const std::vector<char> bytes = bytes_of(InqAttArgs{3, "units"});
  Args out;
  EXPECT_TRUE(decode_bytes<InqAttArgs>(Op::inq_att, bytes, bytes.size(), &out).is_ok());
  EXPECT_TRUE(std::holds_alternative<InqAttArgs>(out));
  EXPECT_FALSE(decode_bytes<InqAttArgs>(Op::get_att, bytes, bytes.size(), &out).is_ok());
  EXPECT_FALSE(decode_bytes<InqAttArgs>(Op::sync, bytes, bytes.size(), &out).is_ok());
}

TEST(AsyncMessages, HeadComesBackAsSent) {
  const Head head{Op::write_darray, 4, 0xfeedbeefcafe1234ull,
                  Status(ESMIO_EINVAL, "esmio_write_darray: bad")};
  const Packer p = encode_head(head, {3, 5});
  Packer message = p;
  message.raw_append(WriteDarrayArgs{1, 2, 3, ESMIO_FLOAT}.encode());
  Unpacker u(message.data().data(), message.size());
  Head got{};
  std::vector<int64_t> freed;
  ASSERT_TRUE(decode_head(u, &got, &freed).is_ok());
  EXPECT_EQ(got.op, Op::write_darray);
  EXPECT_EQ(got.file, 4);
  EXPECT_EQ(got.digest, 0xfeedbeefcafe1234ull);
  EXPECT_EQ(got.local.code(), ESMIO_EINVAL);
  EXPECT_EQ(got.local.message(), "esmio_write_darray: bad");
  EXPECT_EQ(freed, (std::vector<int64_t>{3, 5}));
  Args args;
  ASSERT_TRUE(decode_args(got.op, u, &args).is_ok());
  EXPECT_EQ(std::get<WriteDarrayArgs>(args).decomp, 3);

  const Head fine{Op::sync, 1, 0, Status::ok()};
  const Packer q = encode_head(fine, {});
  Unpacker v(q.data().data(), q.size());
  ASSERT_TRUE(decode_head(v, &got, &freed).is_ok());
  EXPECT_TRUE(got.local.is_ok());
  EXPECT_TRUE(freed.empty());
}

TEST(AsyncMessages, HeadCutShortIsRefused) {
  const Packer p = encode_head(Head{Op::close, 2, 7, Status::ok()}, {1});
  for (std::size_t n = 0; n < p.size(); ++n) {
    std::vector<char> copy(p.data().begin(), p.data().begin() + static_cast<std::ptrdiff_t>(n));
    Unpacker u(copy.data(), copy.size());
    Head got{};
    std::vector<int64_t> freed;
    const Status s = decode_head(u, &got, &freed);
    EXPECT_EQ(s.code(), ESMIO_EMPI) << n;
    EXPECT_NE(s.message().find("cut short"), std::string::npos) << s.message();
  }
}

// A reply's bytes, decoded from a buffer of exactly n of them.
template <typename R>
Status decode_reply(const std::vector<char> &bytes, std::size_t n, R *out) {
  std::vector<char> copy(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
  Unpacker u(copy.data(), copy.size());
  return R::decode(u, out);
}

template <typename R>
R reply_round_trip(const R &reply) {
  const std::vector<char> bytes = reply.encode().data();
  R out;
  const Status s = decode_reply(bytes, bytes.size(), &out);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return out;
}

// Every proper prefix and a byte more are refused, naming the call; but for a failure, the
// prefix that is its outcome alone (a failure may come alone).
template <typename R>
void check_reply_bytes(const R &reply) {
  std::vector<char> bytes = reply.encode().data();
  const std::size_t alone = encode_failure_alone(reply.status).size();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    R out;
    const Status s = decode_reply(bytes, n, &out);
    if (!reply.status.is_ok() && n == alone) {
      EXPECT_TRUE(s.is_ok()) << op_name(R::kOp) << ": " << s.message();
      EXPECT_EQ(out.status.code(), reply.status.code()) << op_name(R::kOp);
      continue;
    }
    EXPECT_EQ(s.code(), ESMIO_EMPI) << op_name(R::kOp) << ": " << n << " of " << bytes.size();
    EXPECT_NE(s.message().find(op_name(R::kOp)), std::string::npos) << s.message();
  }
  bytes.push_back('x');
  R out;
  const Status s = decode_reply(bytes, bytes.size(), &out);
  EXPECT_EQ(s.code(), ESMIO_EMPI) << op_name(R::kOp);
  EXPECT_NE(s.message().find("1 byte(s) follow"), std::string::npos) << s.message();
}

TEST(AsyncReplies, RepliesComeBackAsSent) {
  const auto dc = reply_round_trip(DecompCreateReply{Status(ESMIO_EINVAL, "map: duplicate 7")});
  EXPECT_EQ(dc.status.code(), ESMIO_EINVAL);
  EXPECT_EQ(dc.status.message(), "map: duplicate 7");
  EXPECT_TRUE(reply_round_trip(StageWaitReply{Status::ok()}).status.is_ok());

  const auto fin = reply_round_trip(FinalizeReply{Status::ok(), "{\"rank\": 4},\n{\"rank\": 5}"});
  EXPECT_TRUE(fin.status.is_ok());
  EXPECT_EQ(fin.entries, "{\"rank\": 4},\n{\"rank\": 5}");
  // A failed finalize still carries the servers' entries.
  const auto failed = reply_round_trip(FinalizeReply{Status(ESMIO_EIO, "copy back"), "{}"});
  EXPECT_EQ(failed.status.code(), ESMIO_EIO);
  EXPECT_EQ(failed.entries, "{}");
  const auto tr = reply_round_trip(TraceReportReply{Status::ok(), ""});
  EXPECT_TRUE(tr.status.is_ok());
  EXPECT_TRUE(tr.entries.empty());
}

TEST(AsyncReplies, RepliesCutShortOrRunOnAreRefused) {
  check_reply_bytes(DecompCreateReply{Status(ESMIO_EINVAL, "map")});
  check_reply_bytes(StageWaitReply{Status::ok()});
  check_reply_bytes(FinalizeReply{Status::ok(), "{\"rank\": 4}"});
  check_reply_bytes(TraceReportReply{Status::ok(), ""});
}

// The servers answer a call they refused before its replay with its status alone: a failure
// reads without its results, a success does not.
TEST(AsyncReplies, AFailureMayComeAlone) {
  const std::vector<char> refused =
      encode_failure_alone(Status(ESMIO_EMISMATCH, "ranks differ")).data();
  FinalizeReply fin{Status::ok(), "left over"};
  ASSERT_TRUE(decode_reply(refused, refused.size(), &fin).is_ok());
  EXPECT_EQ(fin.status.code(), ESMIO_EMISMATCH);
  EXPECT_EQ(fin.status.message(), "ranks differ");
  EXPECT_TRUE(fin.entries.empty());
  TraceReportReply tr;
  ASSERT_TRUE(decode_reply(refused, refused.size(), &tr).is_ok());
  EXPECT_EQ(tr.status.code(), ESMIO_EMISMATCH);

  const std::vector<char> bare = encode_failure_alone(Status::ok()).data();
  const Status s = decode_reply(bare, bare.size(), &tr);
  EXPECT_EQ(s.code(), ESMIO_EMPI);
  EXPECT_NE(s.message().find("esmio_trace_write"), std::string::npos) << s.message();
}

// A schema with a record dimension, a fixed one, and variables with their fill values.
FileSchema sample_schema() {
  FileSchema schema;
  schema.dims = {SchemaDim{"time", 3, true}, SchemaDim{"lat", 96, false}};
  SchemaVar t;
  t.name = "T";
  t.type = ESMIO_FLOAT;
  t.dimids = {0, 1};
  t.fill.resize(esmio::type_size(ESMIO_FLOAT));
  const float fill = -999.0f;
  std::memcpy(t.fill.data(), &fill, sizeof fill);
  SchemaVar lat;
  lat.name = "lat";
  lat.type = ESMIO_DOUBLE;
  lat.dimids = {1};
  lat.fill.assign(esmio::type_size(ESMIO_DOUBLE), 0x7f);
  schema.vars = {t, lat};
  return schema;
}

std::string text_of(const ValuesView &v) { return std::string(v.data, v.size); }

TEST(AsyncFileReplies, RepliesComeBackAsSent) {
  EXPECT_TRUE(reply_round_trip(SyncReply{Status::ok()}).status.is_ok());
  const auto sy = reply_round_trip(SyncReply{Status(ESMIO_EIO, "disk full")});
  EXPECT_EQ(sy.status.code(), ESMIO_EIO);
  EXPECT_EQ(sy.status.message(), "disk full");
  EXPECT_EQ(reply_round_trip(CloseReply{Status(ESMIO_ERANGE, "3 values")}).status.code(),
            ESMIO_ERANGE);

  const FileSchema schema = sample_schema();
  const auto op = reply_round_trip(OpenReply{Status::ok(), schema});
  EXPECT_TRUE(op.status.is_ok());
  ASSERT_EQ(op.schema.dims.size(), 2u);
  EXPECT_EQ(op.schema.dims[0].name, "time");
  EXPECT_EQ(op.schema.dims[0].len, 3);
  EXPECT_TRUE(op.schema.dims[0].unlimited);
  EXPECT_EQ(op.schema.dims[1].name, "lat");
  EXPECT_FALSE(op.schema.dims[1].unlimited);
  ASSERT_EQ(op.schema.vars.size(), 2u);
  EXPECT_EQ(op.schema.vars[0].name, "T");
  EXPECT_EQ(op.schema.vars[0].type, ESMIO_FLOAT);
  EXPECT_EQ(op.schema.vars[0].dimids, (std::vector<int>{0, 1}));
  EXPECT_EQ(op.schema.vars[0].fill, schema.vars[0].fill);
  EXPECT_EQ(op.schema.vars[1].fill, schema.vars[1].fill);
  EXPECT_EQ(op.schema.nrecords(), 3);
  // A failed open sends no schema.
  const auto failed = reply_round_trip(OpenReply{Status(ESMIO_ENOTNC, "not netCDF"), schema});
  EXPECT_EQ(failed.status.code(), ESMIO_ENOTNC);
  EXPECT_TRUE(failed.schema.dims.empty());
  EXPECT_TRUE(failed.schema.vars.empty());

  const auto ia = reply_round_trip(InqAttReply{Status::ok(), ESMIO_DOUBLE, 2});
  EXPECT_EQ(ia.type, ESMIO_DOUBLE);
  EXPECT_EQ(ia.len, 2);
  const auto ia_failed =
      reply_round_trip(InqAttReply{Status(ESMIO_ENOTATT, "units"), ESMIO_BYTE, 0});
  EXPECT_EQ(ia_failed.status.code(), ESMIO_ENOTATT);

  const auto an = reply_round_trip(AttNamesReply{Status::ok(), {"units", "", "long_name"}});
  EXPECT_EQ(an.names, (std::vector<std::string>{"units", "", "long_name"}));
  EXPECT_TRUE(reply_round_trip(AttNamesReply{Status::ok(), {}}).names.empty());

  const std::string values = "\x01\x02\x03\x04\x05\x06\x07\x08";
  const std::vector<char> bytes =
      GetAttReply{Status::ok(), ValuesView{values.data(), values.size()}}.encode().data();
  GetAttReply ga;
  ASSERT_TRUE(decode_reply(bytes, bytes.size(), &ga).is_ok());
  EXPECT_EQ(text_of(ga.values), values);
  const auto rd = reply_round_trip(
      ReadDarrayReply{Status(ESMIO_ERANGE, "2 values"), ValuesView{values.data(), 4}});
  EXPECT_EQ(rd.status.code(), ESMIO_ERANGE);
  EXPECT_EQ(rd.values.size, 4u);
  const auto gv = reply_round_trip(GetVaraReply{Status::ok(), ValuesView{}});
  EXPECT_EQ(gv.values.size, 0u);
}

// The values are a view of the reply's bytes, not a copy: a rank's share of a field is not
// copied on its way to the conversion.
TEST(AsyncFileReplies, ValuesAreAViewOfTheReply) {
  const std::string values(1000, 'v');
  const std::vector<char> bytes =
      ReadDarrayReply{Status::ok(), ValuesView{values.data(), values.size()}}.encode().data();
  Unpacker u(bytes.data(), bytes.size());
  ReadDarrayReply got;
  ASSERT_TRUE(ReadDarrayReply::decode(u, &got).is_ok());
  EXPECT_EQ(got.values.data + got.values.size, bytes.data() + bytes.size());
  EXPECT_EQ(text_of(got.values), values);
}

TEST(AsyncFileReplies, RepliesCutShortOrRunOnAreRefused) {
  check_reply_bytes(SyncReply{Status::ok()});
  check_reply_bytes(CloseReply{Status(ESMIO_EIO, "close")});
  check_reply_bytes(OpenReply{Status::ok(), sample_schema()});
  check_reply_bytes(OpenReply{Status::ok(), FileSchema()});
  check_reply_bytes(InqAttReply{Status::ok(), ESMIO_CHAR, 11});
  check_reply_bytes(InqAttReply{Status(ESMIO_ENOTATT, "units"), ESMIO_BYTE, 0});
  check_reply_bytes(AttNamesReply{Status::ok(), {"units", "long_name"}});
  check_reply_bytes(AttNamesReply{Status(ESMIO_EBADID, "varid 9"), {}});
  const std::string values = "abcdefgh";
  check_reply_bytes(GetAttReply{Status::ok(), ValuesView{values.data(), values.size()}});
  check_reply_bytes(ReadDarrayReply{Status::ok(), ValuesView{values.data(), values.size()}});
  check_reply_bytes(ReadDarrayReply{Status(ESMIO_ERANGE, "1 value"), ValuesView{values.data(), 4}});
  check_reply_bytes(ReadDarrayReply{Status(ESMIO_EIO, "read"), ValuesView{}});
  check_reply_bytes(GetVaraReply{Status::ok(), ValuesView{values.data(), values.size()}});
  check_reply_bytes(GetVaraReply{Status(ESMIO_EIO, "read"), ValuesView{values.data(), 8}});
}

// A failure comes alone when the servers refused the call before its replay; a success never
// does: the results it promises must follow.
TEST(AsyncFileReplies, AFailureMayComeAloneASuccessNot) {
  const std::vector<char> refused = encode_failure_alone(Status(ESMIO_EBADID, "not opened")).data();
  const std::vector<char> bare = encode_failure_alone(Status::ok()).data();
  auto check = [&](auto reply) {
    using R = decltype(reply);
    EXPECT_TRUE(decode_reply(refused, refused.size(), &reply).is_ok()) << op_name(R::kOp);
    EXPECT_EQ(reply.status.code(), ESMIO_EBADID) << op_name(R::kOp);
    EXPECT_EQ(reply.status.message(), "not opened");
    R success;
    const Status s = decode_reply(bare, bare.size(), &success);
    EXPECT_EQ(s.code(), ESMIO_EMPI) << op_name(R::kOp);
    EXPECT_NE(s.message().find(op_name(R::kOp)), std::string::npos) << s.message();
    return reply;
  };
  // The results read as empty, whatever the struct held before.
  EXPECT_TRUE(check(OpenReply{Status::ok(), sample_schema()}).schema.vars.empty());
  EXPECT_EQ(check(InqAttReply{Status::ok(), ESMIO_INT, 5}).len, 0);
  EXPECT_TRUE(check(AttNamesReply{Status::ok(), {"units"}}).names.empty());
  EXPECT_EQ(check(GetAttReply{Status::ok(), ValuesView{"ab", 2}}).values.size, 0u);
  EXPECT_EQ(check(ReadDarrayReply{Status::ok(), ValuesView{"ab", 2}}).values.size, 0u);
  EXPECT_EQ(check(GetVaraReply{Status::ok(), ValuesView{"ab", 2}}).values.size, 0u);
  // Sync and close have no results: their outcome alone is the whole reply.
  SyncReply sync;
  ASSERT_TRUE(decode_reply(bare, bare.size(), &sync).is_ok());
  EXPECT_TRUE(sync.status.is_ok());
  CloseReply close;
  ASSERT_TRUE(decode_reply(refused, refused.size(), &close).is_ok());
  EXPECT_EQ(close.status.code(), ESMIO_EBADID);
}

// The replies keep the protocol's bytes (protocol.hpp): the outcome, then the results, packed
// as the wire packs them; a failed esmio_inq_attname's reply still says "no names".
TEST(AsyncFileReplies, RepliesAreTheProtocolsBytes) {
  const Status fail(ESMIO_EIO, "x");
  Packer inq = encode_failure_alone(fail);
  inq.i64(ESMIO_SHORT).i64(4);
  EXPECT_EQ((InqAttReply{fail, ESMIO_SHORT, 4}.encode().data()), inq.data());

  Packer names = encode_failure_alone(Status::ok());
  names.i64(2).str("a").str("bc");
  EXPECT_EQ((AttNamesReply{Status::ok(), {"a", "bc"}}.encode().data()), names.data());
  Packer none = encode_failure_alone(fail);
  none.i64(0);
  EXPECT_EQ((AttNamesReply{fail, {}}.encode().data()), none.data());

  Packer values = encode_failure_alone(Status::ok());
  values.bytes("abc", 3);
  EXPECT_EQ((GetVaraReply{Status::ok(), ValuesView{"abc", 3}}.encode().data()), values.data());

  const std::string schema = encode_schema(sample_schema());
  Packer open = encode_failure_alone(Status::ok());
  open.bytes(schema.data(), schema.size());
  EXPECT_EQ((OpenReply{Status::ok(), sample_schema()}.encode().data()), open.data());
  EXPECT_EQ((OpenReply{fail, sample_schema()}.encode().data()), encode_failure_alone(fail).data());
  EXPECT_EQ(SyncReply{fail}.encode().data(), encode_failure_alone(fail).data());
}

// Counts and lengths that say more than is left, or less than nothing, and a schema that does
// not decode are refused, naming the call.
TEST(AsyncFileReplies, GarbledRepliesAreRefused) {
  const std::size_t head = encode_failure_alone(Status::ok()).size();
  for (int64_t garbled : {int64_t(-1), int64_t(3), int64_t(1) << 61}) {
    std::vector<char> bytes = AttNamesReply{Status::ok(), {"a", "b"}}.encode().data();
    std::memcpy(bytes.data() + head, &garbled, sizeof garbled);  // the count of names
    AttNamesReply names;
    const Status s = decode_reply(bytes, bytes.size(), &names);
    EXPECT_EQ(s.code(), ESMIO_EMPI) << garbled;
    EXPECT_NE(s.message().find("esmio_inq_attname"), std::string::npos) << s.message();

    std::vector<char> values = GetAttReply{Status::ok(), ValuesView{"abcd", 4}}.encode().data();
    std::memcpy(values.data() + head, &garbled, sizeof garbled);  // the values' length
    GetAttReply att;
    EXPECT_EQ(decode_reply(values, values.size(), &att).code(), ESMIO_EMPI) << garbled;
  }
  // A negative count with nothing after it: not read as no names.
  Packer negative = encode_failure_alone(Status::ok());
  negative.i64(-1);
  AttNamesReply names;
  EXPECT_EQ(decode_reply(negative.data(), negative.size(), &names).code(), ESMIO_EMPI);
  // Whole bytes that hold no schema: the schema's own codec refuses them.
  Packer damaged = encode_failure_alone(Status::ok());
  damaged.bytes("not a schema", 12);
  OpenReply open;
  const Status s = decode_reply(damaged.data(), damaged.size(), &open);
  EXPECT_EQ(s.code(), ESMIO_EMPI);
  EXPECT_NE(s.message().find("esmio_open"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("schema"), std::string::npos) << s.message();
}

}  // namespace
