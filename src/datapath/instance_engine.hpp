// An instance's engine: what runs the calls on the instance itself (not on one of its files)
// once the API has resolved its handles, checked its arguments and agreed on the call. The API
// holds one per instance, chosen once in esmio_init, and never asks where the work happens: the
// local one (datapath/local_instance.hpp) runs it on the instance's own ranks; the forwarding
// one (async/forward_instance.hpp) posts it to the I/O servers, which replay it on an instance
// of their own. It also makes the engine of each file of the instance (engine.hpp), of the same
// kind.
//
// Every method is collective over the group's ranks and returns the same status on every rank,
// unless it says otherwise.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "datapath/decomp.hpp"
#include "datapath/engine.hpp"
#include "datapath/file_state.hpp"

namespace esmio::datapath {

class InstanceEngine {
 public:
  virtual ~InstanceEngine() = default;

  // The engine of a file of this instance, before its prepare. Local; file outlives the engine.
  virtual std::unique_ptr<Engine> file_engine(FileState &file) = 0;

  // A decomposition the ranks agreed on made ready for data calls: its rearrangement plan
  // built here, or the servers told (they build their own and answer whether they could).
  virtual Status create_decomp(Decomp *decomp) = 0;
  // A decomposition freed. Local: esmio_decomp_free is not collective.
  virtual void free_decomp(const Decomp &decomp) = 0;

  // esmio_create or esmio_open of path after the vote on its arguments, before anything looks
  // at the path: what the instance still does to it finishes first (a close in the background
  // on the I/O servers). Local.
  virtual Status before_file(const std::string &) { return Status::ok(); }

  // esmio_stage_wait after the vote: the pending copy of the staged file target published,
  // and its outcome. *pending is false (and the status ok) when no copy of target is pending.
  virtual Status stage_wait(const std::string &target, bool *pending) = 0;

  // esmio_finalize after the vote: the work the instance still holds is finished (staged
  // copies published; the servers' own finalize) and what it holds below the API is released.
  // The I/O servers' entries of the trace report (their last work included), when the trace
  // is on, are appended to server_entries.
  virtual Status finalize(std::vector<std::string> *server_entries) = 0;

  // The I/O servers' entries of the trace report now, appended to entries (one text per server
  // group; none without servers). Entries reach rank 0 only.
  virtual Status server_trace(std::vector<std::string> *entries) = 0;
};

}  // namespace esmio::datapath
