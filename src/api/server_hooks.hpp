// What the I/O servers' loop (src/async/server.cpp) needs of the instance it replays calls on,
// beyond the public API: its trace. Handed to async::serve as async::InstanceHooks (async/ is
// below api/ and does not include this). A server's instance is an ordinary synchronous one; these
// put its timeline on the compute ranks' clock and hand its entry of the trace report to the
// compute ranks, which write the report.
#pragma once

#include <string>

#include "esmio.h"
#include "trace/counters.hpp"

namespace esmio::api {

// The instance's counters, for the server's own waits (serve_wait, serve_receive); null for a
// handle that is not a live instance.
trace::Counters *server_counters(esmio_t io);

// With the timeline on: time 0 of its spans becomes the instant epoch (trace::now() scale), the
// epoch of the instance the server came from (aligned to world rank 0 in esmio_init).
void server_align_trace(esmio_t io, double epoch);

// The instance's entry of the trace report, as the report's rank report_rank (after the compute
// ranks), marked "role": "server" with its world rank.
std::string server_trace_entry(esmio_t io, int report_rank, int world_rank);

// esmio_finalize of the instance stores its entry (as above) in *sink once its last work (staged
// copies) is done, before the instance goes. sink must outlive the instance.
void server_keep_final_entry(esmio_t io, int report_rank, int world_rank, std::string *sink);

}  // namespace esmio::api
