// The message protocol between compute ranks and I/O servers.
//
// Every collective esmio call a compute rank makes in asynchronous mode becomes one message to
// the server that takes its calls (placement.hpp), in call order: the server replays the call
// on its own esmio instance once every one of its compute ranks has sent it. A message is
// written into the compute rank's ring buffer (client.hpp), which the servers read through an
// MPI window (MPI_Get, passive target: the compute rank need not be in MPI for it to move);
// all that travels by send is a Notice of three integers, small enough to be sent eagerly.
//
// A message in the ring: int64 head length, int64 data length, the head (Packer: op, file, call
// digest, this rank's status code and message, the decompositions this rank freed since its
// last message to this server, then the op's arguments; messages.hpp encodes and decodes
// both), then raw data (values already converted to the variable's type, or a
// decomposition's runs). A reply (kTagReply) is the outcome, then the op's results: one
// struct per op in messages.hpp.
//
// Every call but write_darray was agreed among the compute ranks before it was posted, so the
// servers see those at the same place in every rank's stream: they are the boundaries at which
// streams that went apart (ranks that posted different write_darray calls) line up again.
#pragma once

#include <cstdint>

#include "common/status.hpp"

namespace esmio::async {

enum class Op : int64_t {
  finalize = 1,
  decomp_create,  // args: serial, dims, nlocal; data: this rank's MapRun triples; reply: status
  create,         // args: path, settings
  open,           // args: path, mode, settings; reply: the schema
  def_dim,        // args: name, len, expected dimid
  def_var,        // args: name, type, dimids, expected varid
  put_att,        // args: varid, name, type, len; data: values
  def_var_chunking,
  def_var_compress,
  def_var_quantize,
  enddef,
  redef,
  write_darray,  // args: varid, record, decomp serial; data: values in the variable's type
  read_darray,   // args: varid, record, decomp serial; reply: values in the variable's type
  put_vara,      // args: varid, start, count; data (first compute rank only): values
  get_vara,      // args: varid, start, count; reply: values in the variable's type
  inq_att,       // args: varid, name; reply: type, len
  get_att,       // args: varid, name, memtype, len; reply: values in memtype
  att_names,     // args: varid; reply: count, names
  stage_wait,    // args: path; reply: status (the copy-back of a staged file)
  sync,          // reply: status
  close,         // reply: status
  trace_report,  // reply: status, the server group's entries of the trace report (to the
                 // compute rank 0 only; the others get an empty text)
};

// The esmio call an op stands for, in messages ("esmio_def_var").
const char *op_name(Op op);
// True for the calls whose compute ranks wait for the server's reply.
bool waits_for_reply(Op op);

// The head of a message: the call, its file (-1: none), the digest of its collective arguments
// (0 for calls the compute ranks agreed on before posting), and this rank's outcome of its
// checks. The op's arguments follow.
struct Head {
  Op op;
  int64_t file;
  uint64_t digest;
  Status local;
};

// The notice that a message is in the ring: where, and its number (returned when freed).
struct Notice {
  int64_t id;
  int64_t offset;
  int64_t length;
};

// Message tags on the instance's world communicator (a duplicate: no clash with the model's).
constexpr int kTagNotice = 1;  // compute rank -> server: a message is waiting in the ring
constexpr int kTagFreed = 2;   // server -> compute rank: message id read, its space is free
constexpr int kTagReply = 3;   // server -> compute rank: the answer to a call that waits for one
constexpr int kTagProbe = 4;   // server -> compute rank: a read of its window done (esmio_init)

}  // namespace esmio::async
