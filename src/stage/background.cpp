#include "stage/background.hpp"

#include <utility>

#include "stage/publish.hpp"

namespace esmio::stage {

BackgroundCopy::BackgroundCopy(CopyJob mine) : mine_(std::move(mine)) {
  thread_ = std::thread([this] { status_ = copy_and_verify(mine_, &times_); });
}

BackgroundCopy::~BackgroundCopy() {
  if (thread_.joinable()) thread_.join();
}

Status BackgroundCopy::join(CopyTimes *times) {
  if (thread_.joinable()) thread_.join();
  *times = times_;
  return status_;
}

}  // namespace esmio::stage
