#include "datapath/decomp.hpp"

namespace esmio::datapath {

Status plan_decomp(const Group &group, Decomp *d) {
  auto plan = std::make_shared<rearrange::Plan>();
  ESMIO_RETURN_IF_ERROR(
      rearrange::build_plan(group.comm, group.layout, d->dims, d->map, group.limits, plan.get()));
  d->plan = std::move(plan);
  return Status::ok();
}

}  // namespace esmio::datapath
