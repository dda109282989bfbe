// Status: what every internal layer returns instead of printing or aborting. The api layer turns
// it into a collective error code and message.
#pragma once

#include <string>
#include <utility>

#include "esmio.h"

namespace esmio {

class Status {
 public:
  Status() = default;
  Status(int code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }
  bool is_ok() const { return code_ == ESMIO_NOERR; }
  int code() const { return code_; }
  const std::string &message() const { return message_; }

 private:
  int code_ = ESMIO_NOERR;
  std::string message_;
};

#define ESMIO_RETURN_IF_ERROR(expr)       \
  do {                                    \
    ::esmio::Status status_ = (expr);     \
    if (!status_.is_ok()) return status_; \
  } while (0)

}  // namespace esmio
