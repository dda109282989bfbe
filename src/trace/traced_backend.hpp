// A backend that times and counts the requests it forwards to another (the HDF5 log VFD's
// idea): the storage layer's share of the time and the sizes of the requests handed to it.
#pragma once

#include <memory>

#include "backend/backend.hpp"
#include "trace/counters.hpp"

namespace esmio::trace {

// file and instance receive the counts (instance may be null).
std::unique_ptr<backend::Backend> traced(std::unique_ptr<backend::Backend> inner, Counters *file,
                                         Counters *instance);

}  // namespace esmio::trace
