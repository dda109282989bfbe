// The local instance engine: the instance's calls run on its own ranks (the synchronous mode,
// and the I/O servers' own instances). It holds the staged files whose copy back finishes
// later (stage_copy=background or finalize), published by esmio_stage_wait or esmio_finalize.
#pragma once

#include <memory>

#include "datapath/group.hpp"
#include "datapath/instance_engine.hpp"

namespace esmio::datapath {

// group outlives the engine.
std::unique_ptr<InstanceEngine> make_local_instance(Group &group);

}  // namespace esmio::datapath
