// Bitwise real information content (Klöwer et al. 2021, "Compressing atmospheric data into its
// real information content"): the mutual information of each bit position between neighbouring
// values, and the number of mantissa bits that keeps a given fraction of it.
//
// The counting is split from the analysis so that it can run on slabs held by different I/O
// tasks: each task counts the pairs of its slab, the caller sums the counts (BitPairCounts::counts
// as MPI_UINT64_T, MPI_SUM), and every task then derives the same keepbits from the sum. Counts,
// and so the result, do not depend on how a record is split, provided each task passes the
// first element of the next slab as the halo (see count_neighbour_pairs).
//
// The pairs are counted on BitInformation.jl's signed-exponent patterns (the exponent as sign
// and magnitude), as xbitinfo counts them: mantissa bits are the same either way, but the
// exponent bits' share of the total, and so the cutoff, is the reference's only this way.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.hpp"
#include "esmio.h"

namespace esmio::quantize {

// Joint occurrences of (bit of a, bit of b) over neighbour pairs (a, b), per bit position.
// Positions run from the most significant (sign) bit, 0, to the last mantissa bit, nbits-1.
struct BitPairCounts {
  int nbits = 0;  // 32 (float) or 64 (double); 0: not yet bound to a type
  // counts[bit * 4 + 2 * a + b]; flat so that it can be reduced with one MPI call.
  std::vector<uint64_t> counts;

  BitPairCounts() = default;
  // Zero counts for a type of nbits bits.
  explicit BitPairCounts(int nbits) : nbits(nbits), counts(static_cast<size_t>(nbits) * 4, 0) {}
  // Zero counts for ESMIO_FLOAT or ESMIO_DOUBLE; unbound (nbits 0) for other types.
  static BitPairCounts for_type(esmio_type type);

  uint64_t at(int bit, int a, int b) const { return counts[bit * 4 + 2 * a + b]; }
  // Number of pairs counted (the same for every bit position; 0 when unbound).
  uint64_t pairs() const;
  // Adds other's counts. An unbound *this takes other's type; false (and nothing added) if both
  // are bound to different sizes.
  bool merge(const BitPairCounts &other);
};

// Adds to *counts the neighbour pairs of one slab: the n values at `values` (ESMIO_FLOAT or
// ESMIO_DOUBLE) have the global C-order linear indices first .. first+n-1 of one record, whose
// fastest dimension has row_length elements. The pair (g, g+1) is counted when both are in the
// record and (g+1) % row_length != 0, i.e. pairs never cross a row. The pair whose left element
// is the slab's last belongs to this slab: `next` points at the element with index first+n (the
// first of the next slab), or is null when there is none (end of the record, or a gap). So over
// slabs that tile a record, each with its halo, every pair is counted exactly once.
// Pairs where either element is NaN, or bit-equal to *fill (fill: one value of `type`, or null),
// are left out. An unbound *counts is bound to the type; one bound to another size is an error.
// Errors: ESMIO_EBADTYPE for other types; ESMIO_EINVAL for null counts, a size mismatch,
// first < 0, n < 0, row_length <= 0, or null values with n > 0. Nothing is added on error.
Status count_neighbour_pairs(esmio_type type, const void *values, int64_t first, int64_t n,
                             int64_t row_length, const void *next, const void *fill,
                             BitPairCounts *counts);

// Mutual information, in bits, of each bit position between neighbours (size c.nbits), from the
// joint 2x2 frequencies: M = sum_ij p_ij log2(p_ij / (p_i. p_.j)). Information not above the
// free entropy of a fair coin tossed N = c.pairs() times at the given confidence
// (binomial_free_entropy) is set to 0, as BitInformation.jl's set_zero_insignificant does.
// All zeros when no pair was counted. Empty for confidence outside [0, 1) or unbound counts.
std::vector<double> bit_information(const BitPairCounts &c, double confidence = 0.99);

// The number of mantissa bits to keep so that the kept bit positions (sign, exponent, then
// mantissa from the top) hold at least `fraction` of the total information: the first position
// whose cumulative share reaches fraction, counted from the first mantissa bit, clamped to
// [0, mantissa_bits(type)]. info is bit_information()'s result for the type (32 or 64 entries).
// When the total information is 0 (a constant field, pure noise, or no pairs) there is nothing
// to tell the real bits from the false ones, so it keeps every mantissa bit rather than guess.
// -1 for a type other than ESMIO_FLOAT/ESMIO_DOUBLE, fraction outside (0, 1], info of the wrong
// size, or a negative or non-finite entry.
int keepbits_for(esmio_type type, const std::vector<double> &info, double fraction);

// xbitinfo's get_keepbits (observingClouds/xbitinfo, xbitinfo.py: _cdf_from_info_per_bit and
// get_keepbits, v0.0.3 to at least 0.0.7): every bit position whose information is not above 1.5
// times the largest of the last four (mantissa) bits counts as noise (0), sign and exponent
// included; then keepbits = p + 1 - (1 + exponent bits), p the first position whose cumulative
// share is above fraction. Not clamped: 0 or less where the cutoff falls in the exponent, and
// -exponent_bits(type) when nothing is left above the noise (a constant field, runs of one
// value, pre-packed data). fraction 1: every mantissa bit. INT_MIN for bad arguments, as
// keepbits_for's -1.
int reference_keepbits(esmio_type type, const std::vector<double> &info, double fraction);

// What esmio keeps, and why (recorded in the file as esmio_keepbits_reason).
enum class KeepbitsReason {
  reference,               // the reference's value
  floor,                   // the reference's value was below the floor (minbits)
  no_information,          // no information at all: constant, pure noise or no pairs; lossless
  artificial_information,  // the reference gives 0 or less: keeps keepbits_for's value instead
  maxrel,                  // raised to bound the relative error as the user asked
};
const char *keepbits_reason_name(KeepbitsReason reason);

// The default floor (`information:...:minbits=N` sets another): where the reference is positive,
// esmio never keeps fewer mantissa bits than this. BitRound's relative error is at most
// 2^-(keepbits+1): 3.1 % at 4 bits, 12.5 % at 2. Chosen on the ten real fields of
// tests/data/fields (bench/results/2026-11-25-keepbits-floor/README.md): the reference gives 2 and
// 1 bits on a velocity and an orography, where BitRound's RMS error is 1.4 and 1.6 times the median
// neighbour difference (0.36-1.09 on the six fields it keeps 6-10 bits of); at 4 bits it is 0.36
// and 0.22, the error at most 3.1 %, and the file of all ten 5 % larger; 7 would override the
// reference on a sane field (POP temperature, 6).
constexpr int kKeepbitsFloor = 4;

struct KeepbitsChoice {
  int keepbits = -1;  // the mantissa bits kept; -1 for bad arguments
  int reference = 0;  // reference_keepbits
  KeepbitsReason reason = KeepbitsReason::reference;
};

// The reference's keepbits guarded against its failures: all mantissa bits when the field has no
// information; keepbits_for's unfiltered value when the reference gives 0 or less (the noise
// filter took everything: runs of identical values or pre-packed data, where its answer would
// lose up to half of each value); else the reference, at least minbits (clamped to the type's
// mantissa bits; 0 or 1: the reference as it is). maxrel > 0 then raises it to the fewest bits
// whose BitRound error is at most maxrel (relative). keepbits -1 for minbits < 0 as well.
KeepbitsChoice choose_keepbits(esmio_type type, const std::vector<double> &info, double fraction,
                               double maxrel = 0, int minbits = kKeepbitsFloor);

// The standard normal quantile: z with Phi(z) = p, within 1e-12 relative (Acklam's rational
// approximation, then one Halley step). -Inf at p = 0, +Inf at p = 1, NaN outside [0, 1].
double normal_quantile(double p);

// 1 - H(p) with p = min(1, 0.5 + z / (2 sqrt(n))), z = normal_quantile(1 - (1 - confidence)/2)
// and H the binary entropy in bits: the most information n tosses of a fair coin show at that
// confidence (BitInformation.jl's binom_free_entropy). 1 for n = 0.
double binomial_free_entropy(uint64_t n, double confidence);

}  // namespace esmio::quantize
