// BitRound: rounds floating-point values to a given number of mantissa bits (round to nearest,
// ties to even; Klöwer et al. 2021), so that a lossless codec afterwards finds trailing zeros.
//
// The result of a value depends on that value alone, never on its position or neighbours, so a
// variable rounded slab by slab on any number of I/O tasks gives the same bytes in the file
// (netCDF's BitGroom alternates by position and does not). Ties differ from netCDF-C's
// NC_QUANTIZE_BITROUND, which rounds ties away from zero; other values round the same.
#pragma once

#include <cstdint>

#include "common/status.hpp"
#include "esmio.h"

namespace esmio::quantize {

// Explicit mantissa bits of a floating type: 23 for ESMIO_FLOAT, 52 for ESMIO_DOUBLE, 0 for
// every other type (which the kernels here refuse).
int mantissa_bits(esmio_type type);
// Exponent bits: 8 for ESMIO_FLOAT, 11 for ESMIO_DOUBLE, 0 otherwise.
int exponent_bits(esmio_type type);

// Rounds the n values at `values` (ESMIO_FLOAT or ESMIO_DOUBLE, in place) to keepbits mantissa
// bits, 0 <= keepbits <= mantissa_bits(type); keepbits == mantissa_bits(type) leaves them as
// they are. A tie goes to the value whose last kept bit is 0; at keepbits 0 that bit is the
// exponent's lowest, so a tie between two powers of two goes to the even biased exponent (as in
// BitInformation.jl). NaN, +-Inf and values bit-equal to *fill (fill: one value of `type`, or null)
// are left exact. As in IEEE rounding to a shorter format, a value within half a kept unit of the
// largest finite value rounds to +-Inf, and subnormals round on the same absolute grid as the
// smallest normal binade.
// Errors: ESMIO_EBADTYPE for other types; ESMIO_EINVAL for keepbits out of range, n < 0, or a
// null `values` with n > 0. Nothing is written on error.
Status bitround(esmio_type type, void *values, int64_t n, int keepbits, const void *fill);

// The bound on |x - bitround(x)| / 2^e for a normal x with 2^e <= |x| < 2^(e+1), whose result
// is finite: half a unit in the last kept bit, 2^-(keepbits+1). (It bounds the relative error
// |x - q| / |x| too.) NaN for a type or keepbits that bitround() refuses.
double bitround_max_relative_error(esmio_type type, int keepbits);

}  // namespace esmio::quantize
