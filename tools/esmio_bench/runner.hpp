// The measurement loop: every repeat runs every variant in turn (v1,v2,v3,v1,v2,v3,...), so
// that drift on a shared machine hits all variants alike.
#pragma once

#include <memory>
#include <vector>

#include "context.hpp"
#include "result.hpp"
#include "variants.hpp"

namespace esmio_bench {

// Collective over ctx.comm. Returns the results on rank 0 (writes first, then reads, in the
// order of the variants); other ranks get an empty vector.
std::vector<Result> run_variants(Context &ctx,
                                 const std::vector<std::unique_ptr<Variant>> &variants);

}  // namespace esmio_bench
