// A file's engine: what runs a call on a file once the API has resolved its handles, checked
// its arguments and built its Call. The API holds one per file and never asks where the work
// happens: the local engine (datapath/local_engine.hpp) runs the data path on the instance's
// own ranks; the forwarding engine (async/forward_engine.hpp) posts each call to the file's
// I/O servers, which replay it on a local engine of their own.
//
// The interface lives in datapath/ because it speaks the data path's vocabulary (FileState,
// Call, Decomp, Group) and the local engine is the data path itself; async/ sits above
// datapath/ and implements it there, and api/ sits above both and sees only this header (a
// folder of its own would hold one header that includes nothing but datapath/).
//
// Every method is collective over the group's ranks and returns the same status on every
// rank, unless it says otherwise. The mirror (FileState::dims, vars, nrecords) is the
// engine's to keep: the API reads it for its checks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "codec/storage_spec.hpp"
#include "common/status.hpp"
#include "datapath/call.hpp"
#include "datapath/decomp.hpp"
#include "datapath/file_state.hpp"
#include "esmio.h"

namespace esmio::datapath {

// What a file is made with, besides its state: the settings the engines act on.
struct FileSetup {
  std::string backend;               // the backend's name, resolved (not "auto")
  backend::FileOptions options;      // for the backend's create and open
  std::string settings;              // the caller's settings text (the servers parse it again)
  bool direct_write = false;         // FileOptions::direct_write, for the cache's dense slabs
  std::string stage_dir;             // staging: where the file is written before its copy back
  std::string stage_copy = "close";  // close | background | finalize
  int64_t stage_block = 0;
  int64_t read_ahead = 0;            // bytes an I/O task reads ahead (0: off)
  bool close_in_background = false;  // io_server_close=background (with I/O servers)
};

// The on-disk facts of a file being opened (datapath/probe.hpp).
struct OnDisk {
  std::string format;  // "" when it is neither CDF nor HDF5
  bool readable = false;
  int64_t size = -1;
};

// Storage asked for one variable before enddef (esmio_def_var_chunking, _compress,
// _quantize), already recorded in the mirror by the API: chunks for chunking, spec for the
// others. digest: the call and its arguments (ranks may ask for different storage).
struct StorageRequest {
  enum class Kind { chunking, compress, quantize } kind = Kind::chunking;
  int varid = 0;
  std::vector<int64_t> chunks;
  std::string spec;
  uint64_t digest = 0;
};

// The storage of the variables defined since the last enddef, as the API resolved it.
struct StoragePlan {
  std::vector<std::pair<int, backend::VarStorage>> storage;
  std::vector<std::pair<int, codec::QuantizeChoice>> information;
};

// A file still in define mode at close is ended as esmio_enddef would: the API's call for it
// and the storage it resolved.
struct Ending {
  Call call;
  StoragePlan plan;
};

class Engine {
 public:
  virtual ~Engine() = default;

  // The file's backend made and its data path set up (cache, ranks that hold it), after the
  // API agreed on the path and settings. Local: every rank reaches the same outcome.
  virtual Status prepare(const FileSetup &setup) = 0;
  // A new file (define mode); a failure because of its directory explained.
  virtual Status create() = 0;
  // An existing file, its schema mirrored on every rank.
  virtual Status open(int mode, const OnDisk &on_disk) = 0;

  // Definitions, each after the vote on call (the API's checks and the digest of its
  // arguments); the mirror grows once every rank agreed.
  virtual Status def_dim(const Call &call, const std::string &name, int64_t len) = 0;
  virtual Status def_var(const Call &call, const std::string &name, esmio_type type,
                         const std::vector<int> &dimids) = 0;
  virtual Status put_att(const Call &call, int varid, const std::string &name, esmio_type type,
                         int64_t len, const void *values) = 0;
  // After the ranks agreed on the request's local outcome.
  virtual Status def_storage(const StorageRequest &request) = 0;
  virtual Status enddef(const Call &call, const StoragePlan &plan) = 0;
  // After the API's vote on the call.
  virtual Status redef() = 0;

  // Attributes, after the API's vote on the call: every rank receives the answer.
  virtual Status att_names(int varid, std::vector<std::string> *names) = 0;
  virtual Status inq_att(int varid, const std::string &name, esmio_type *type, int64_t *len) = 0;
  virtual Status get_att(int varid, const std::string &name, esmio_type memtype, int64_t len,
                         void *values) = 0;

  // One record of one variable through a decomposition. The write votes on call where its
  // sequence needs it (decomp may be null when call.local says why); the read comes after
  // the API's vote.
  virtual Status write_darray(const Call &call, int varid, int64_t record, const Decomp *decomp,
                              esmio_type memtype, const void *buf) = 0;
  virtual Status read_darray(int varid, int64_t record, const Decomp &decomp, esmio_type memtype,
                             void *buf) = 0;
  // A read this rank kept from a batch (datapath/read_batch.hpp), converted into buf before the
  // API's vote, so that the call costs that one agreement: false where none is kept (the read
  // goes through read_darray after the vote). Local. After the vote every rank calls
  // kept_read_agreed where every rank served its read, and forget_kept where the call failed.
  virtual bool read_kept(int varid, int64_t record, const Decomp &decomp, esmio_type memtype,
                         void *buf, RangeCount *range) {
    (void)varid, (void)record, (void)decomp, (void)memtype, (void)buf, (void)range;
    return false;
  }
  virtual void kept_read_agreed(int varid, int64_t record, const Decomp &decomp) {
    (void)varid, (void)record, (void)decomp;
  }
  virtual void forget_kept() {}
  // What this rank keeps: a digest of the kept reads (0: none) and how many, the same on every
  // rank unless a call failed on some ranks only (the read's vote compares it).
  virtual void kept_state(uint64_t *digest, int64_t *count) const {
    *digest = 0;
    *count = 0;
  }
  // An undecomposed box of n values (start, count: one entry per dimension); the vote on call
  // is the engine's.
  virtual Status put_vara(const Call &call, int varid, const int64_t *start, const int64_t *count,
                          int64_t n, esmio_type memtype, const void *buf) = 0;
  virtual Status get_vara(const Call &call, int varid, const int64_t *start, const int64_t *count,
                          int64_t n, esmio_type memtype, void *buf) = 0;

  // After the API's vote: cached writes written, the file synced, and the values stored as
  // fill since the last report counted (ESMIO_ERANGE).
  virtual Status sync() = 0;
  // After the API's vote: everything written and the file closed; the outcome of the close.
  // ending: for a writable file still in define mode, else null.
  virtual Status close(const Ending *ending) = 0;
  // After close: the file takes its published name (publish=atomic, staging), or the reason
  // it did not is added to closed; then the values stored as fill since the last report are
  // counted (ESMIO_ERANGE).
  virtual Status publish(const Status &closed) = 0;
};

}  // namespace esmio::datapath
