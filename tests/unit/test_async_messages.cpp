// The arguments of the server protocol's messages and the servers' replies to the instance's
// calls (async/messages.hpp): each struct's bytes decode back to the same struct, and bytes cut
// short, left over or garbled are refused with a Status that names the call, never read past
// their end. Pure, without MPI.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "async/messages.hpp"

namespace {

using namespace esmio::async;
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

// Every proper prefix and a byte more are refused, naming the call.
template <typename R>
void check_reply_bytes(const R &reply) {
  std::vector<char> bytes = reply.encode().data();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    R out;
    const Status s = decode_reply(bytes, n, &out);
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
  const std::vector<char> refused = reply_head(Status(ESMIO_EMISMATCH, "ranks differ")).data();
  FinalizeReply fin{Status::ok(), "left over"};
  ASSERT_TRUE(decode_reply(refused, refused.size(), &fin).is_ok());
  EXPECT_EQ(fin.status.code(), ESMIO_EMISMATCH);
  EXPECT_EQ(fin.status.message(), "ranks differ");
  EXPECT_TRUE(fin.entries.empty());
  TraceReportReply tr;
  ASSERT_TRUE(decode_reply(refused, refused.size(), &tr).is_ok());
  EXPECT_EQ(tr.status.code(), ESMIO_EMISMATCH);

  const std::vector<char> bare = reply_head(Status::ok()).data();
  const Status s = decode_reply(bare, bare.size(), &tr);
  EXPECT_EQ(s.code(), ESMIO_EMPI);
  EXPECT_NE(s.message().find("esmio_trace_write"), std::string::npos) << s.message();
}

}  // namespace
