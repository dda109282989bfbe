// The outcome of a call a server replayed on its own instance, as a Status with the message
// esmio gave for it.
#pragma once

#include "common/status.hpp"
#include "esmio.h"

namespace esmio::async {

inline Status outcome_of(int code) {
  return code == ESMIO_NOERR ? Status::ok() : Status(code, esmio_last_error());
}

}  // namespace esmio::async
