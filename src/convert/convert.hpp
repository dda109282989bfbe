// Type conversion kernels: memory type <-> file type, run on the compute rank before data moves.
//
// Semantics follow netCDF's conversion rules: a value outside the range of the destination
// type is NC_ERANGE; esmio then writes the destination's fill value in its place (PnetCDF's
// ERANGE_FILL behaviour, so the result never depends on undefined casts) and counts it. NaN is
// kept between floating types and out of range for integer types; +-Inf is out of range for
// float32 from float64. Rounding is C's (round to nearest for floating, truncation toward zero
// from floating to integer). Denormals convert without error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/run.hpp"
#include "esmio.h"

namespace esmio::convert {

// True if values of src can be converted to dst (both numeric, or both ESMIO_CHAR).
bool convertible(esmio_type src, esmio_type dst);

// Converts n values from src (type src_type) into dst (type dst_type). dst_fill points to one
// value of dst_type, written for out-of-range values (null: the type's default fill). Returns the
// number of out-of-range values.
// src and dst must not overlap unless they are the same pointer and the types are the same.
// The caller checks convertible() first; a pair that is not convertible, or n < 0, writes
// nothing and returns -1.
int64_t convert(esmio_type src_type, const void *src, esmio_type dst_type, void *dst, int64_t n,
                const void *dst_fill);

// Gathers runs of elements from src (src_type) at element positions given by runs of
// [begin, begin+length) into dst, packed in run order, converting to dst_type.
// Returns the number of out-of-range values. Runs of length <= 0 are skipped; dst_fill and the
// -1 return (not convertible, nruns < 0) are as for convert().
using Run = esmio::Run;
int64_t gather_convert(esmio_type src_type, const void *src, const Run *runs, int64_t nruns,
                       esmio_type dst_type, void *dst, const void *dst_fill);
// The reverse: src is packed in run order; each run lands at dst[begin .. begin+length).
int64_t scatter_convert(esmio_type src_type, const void *src, const Run *runs, int64_t nruns,
                        esmio_type dst_type, void *dst, const void *dst_fill);

// The same for a scattered map, without conversion: element k of src lands at
// dst[positions[k]] (elements of esize bytes: 1, 2, 4 or 8). Four bytes of map per element
// instead of sixteen per run: a map of single elements (an E3SM map) moves several times faster.
void scatter_positions(std::size_t esize, const void *src, const int32_t *positions, int64_t n,
                       void *dst);
// Its reverse: dst[k] = src[positions[k]].
void gather_positions(std::size_t esize, const void *src, const int32_t *positions, int64_t n,
                      void *dst);

// Both at once: the k-th element of src_runs (positions in src) lands at the k-th position of
// dst_runs in dst, converted; no packed copy in between (a rank that is its own I/O task moves
// its share this way). The two lists must hold as many elements; if not, nothing is written
// and -1 is returned, as for a pair that is not convertible.
int64_t remap_convert(esmio_type src_type, const void *src, const Run *src_runs, int64_t nsrc,
                      esmio_type dst_type, void *dst, const Run *dst_runs, int64_t ndst,
                      const void *dst_fill);
// The same with the source positions one per element (a scattered map): element k is
// src[positions[k]]; n of them, as many as dst_runs hold (else -1 and nothing written).
int64_t remap_positions_convert(esmio_type src_type, const void *src, const int32_t *positions,
                                int64_t n, esmio_type dst_type, void *dst, const Run *dst_runs,
                                int64_t ndst, const void *dst_fill);

// Writes value (size bytes) at every element position of runs in buffer: the fill value into
// holes, with doubling copies rather than one call per element.
void fill_runs(void *buffer, const std::vector<Run> &runs, const void *value, std::size_t size);

}  // namespace esmio::convert
