"""An independent reference for esmio's information quantisation, in plain numpy.

Written from the published sources, not from esmio's C++ (src/quantize/), so that a test can
compare the two on real fields (test_real_fields.py):

  * BitInformation.jl (milankl/BitInformation.jl, v0.6): signed_exponent! (signed_exponent.jl),
    bitpair_count with a mask (bitcount.jl: pairs (i, i+1) along the first Julia dimension,
    never across columns, skipped when either element is masked), mutual_information
    (mutual_information.jl: natural log, divided by log(base) at the end; nelements = the
    number of pairs counted), binom_confidence / binom_free_entropy / set_zero_insignificant!
    (remove_insignificant.jl), and IEEE round to nearest, ties to even (round_nearest.jl).
  * xbitinfo (observingClouds/xbitinfo, xbitinfo/xbitinfo.py, v0.0.3 .. 0.0.7):
    _cdf_from_info_per_bit (every bit not above 1.5 x the largest information of the last
    four bits is NaN, and xarray's cumsum skips NaN) and get_keepbits (the first position whose
    cdf is strictly above inflevel, plus one, minus sign and exponent bits; inflevel 1.0 keeps
    every mantissa bit; an all-NaN cdf gives argmax 0).
  * esmio's documented guard (docs/netcdf4.md, "Guarded where the reference fails";
    src/quantize/bit_information.hpp, keepbits_for and choose_keepbits): the rule, as text.

Julia's first dimension is numpy's last (C order), so pairs run along the last axis here.
Values are NaN-masked as BitInformation.jl's masked_value=NaN does, and the variable's fill
value is masked the same way (xarray turns it into NaN before xbitinfo sees it).
"""
import math
from statistics import NormalDist

import numpy as np

# IEEE layouts: (unsigned type, exponent bits, mantissa bits).
_LAYOUT = {
    np.dtype(np.float32): (np.uint32, 8, 23),
    np.dtype(np.float64): (np.uint64, 11, 52),
}


def layout(dtype):
    """(unsigned dtype, total bits, exponent bits, mantissa bits) of float32 or float64."""
    uint, ebits, mbits = _LAYOUT[np.dtype(dtype)]
    return np.dtype(uint), 1 + ebits + mbits, ebits, mbits


# ---------------------------------------------------------------- BitInformation.jl

def signed_exponent(values):
    """The bit patterns of BitInformation.jl's signed_exponent(A): the biased exponent is
    replaced by the de-biased exponent in sign-and-magnitude form, its sign in the first
    exponent bit; the value's sign and mantissa bits are unchanged. Returns unsigned ints.

    Julia (for T in Float16/32/64):
        sfmask = sign_mask(T) | significand_mask(T); emask = exponent_mask(T)
        esignmask = sign_mask(T) >> 1
        e = ((ui & emask) >> sbits) - bias; eabs = abs(e) % typeof(ui)
        esign = e < 0 ? esignmask : 0
        A[i] = reinterpret(T, (ui & sfmask) | esign | (eabs << sbits))
    """
    values = np.asarray(values)
    uint, nbits, ebits, mbits = layout(values.dtype)
    ui = values.view(uint)
    one = uint.type(1)
    sign_mask = one << uint.type(nbits - 1)
    significand_mask = (one << uint.type(mbits)) - one
    exponent_mask = ~(sign_mask | significand_mask)
    bias = (1 << (ebits - 1)) - 1
    e = ((ui & exponent_mask) >> uint.type(mbits)).astype(np.int64) - bias
    eabs = np.abs(e).astype(uint)
    esign = np.where(e < 0, sign_mask >> one, uint.type(0)).astype(uint)
    return (ui & (sign_mask | significand_mask)) | esign | (eabs << uint.type(mbits))


def usable(values, fill=None):
    """True where a value takes part in pairs: not NaN and not the fill value."""
    ok = ~np.isnan(values)
    if fill is not None:
        ok &= values != np.asarray(fill, dtype=values.dtype)
    return ok


def bitpair_counts(field, fill=None):
    """C[bit, j, k]: the number of neighbour pairs (a, b) = (x[..., i], x[..., i+1]) whose bit
    `bit` (0 = the sign, the most significant) is j in a and k in b, counted on the signed-
    exponent patterns; pairs never cross a row (the last axis), and a pair is left out when
    either element is NaN or the fill value. Returns (C as int64 of shape (nbits, 2, 2))."""
    field = np.asarray(field)
    if field.ndim == 0:
        field = field.reshape(1)
    uint, nbits, _, _ = layout(field.dtype)
    left, right = field[..., :-1], field[..., 1:]
    keep = usable(left, fill) & usable(right, fill)
    a = signed_exponent(left[keep])
    b = signed_exponent(right[keep])
    counts = np.zeros((nbits, 2, 2), dtype=np.int64)
    for bit in range(nbits):
        shift = uint.type(nbits - 1 - bit)
        ja = ((a >> shift) & uint.type(1)).astype(np.int64)
        kb = ((b >> shift) & uint.type(1)).astype(np.int64)
        counts[bit] = np.bincount(2 * ja + kb, minlength=4).reshape(2, 2)
    return counts


def mutual_information_2x2(p):
    """BitInformation.jl's mutual_information(p, base=2) of a 2x2 joint probability table:
    sum over p_ij > 0 of p_ij * log(p_ij / px_i / py_j), natural log, then / log(2)."""
    px = p.sum(axis=1)  # marginal of the first element (Julia: sum(p, dims=2))
    py = p.sum(axis=0)  # marginal of the second
    m = 0.0
    for j in range(2):  # Julia loops j (columns, y) outside, i (rows, x) inside
        for i in range(2):
            if p[i, j] > 0:
                m += p[i, j] * math.log(p[i, j] / px[i] / py[j])
    return m / math.log(2)


def entropy2(probabilities):
    """StatsBase.entropy(p, 2): -sum p log p over p > 0, divided by log(2)."""
    h = 0.0
    for q in probabilities:
        if q > 0:
            h -= q * math.log(q)
    return h / math.log(2)


def binom_confidence(n, confidence):
    """0.5 + quantile(Normal(), 1 - (1 - c)/2) / (2 sqrt(n)), capped at 1."""
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    return min(1.0, 0.5 + z / (2 * math.sqrt(n)))


def binom_free_entropy(n, confidence):
    p = binom_confidence(n, confidence)
    return 1 - entropy2([p, 1 - p])


def bit_information(counts, confidence=0.99, set_zero_insignificant=True):
    """Information per bit (sign first) from bitpair_counts, as BitInformation.jl's
    bitinformation(A, mask) returns it: nelements = the pairs counted (sum of C[1, :, :]).
    Julia asserts nelements > 0; here no pair gives all zeros (what esmio records)."""
    nelements = int(counts[0].sum())
    nbits = counts.shape[0]
    info = np.zeros(nbits)
    if nelements == 0:
        return info
    for bit in range(nbits):
        info[bit] = mutual_information_2x2(counts[bit] / nelements)
    if set_zero_insignificant:
        free = binom_free_entropy(nelements, confidence)
        info = np.where(info <= free, 0.0, info)
    return info


def bitround(values, keepbits, fill=None):
    """BitInformation.jl's round(X, keepbits): IEEE round to nearest, ties to even, to
    `keepbits` mantissa bits; NaN and the fill value (if any) are left as they are.
        ulp_half = ~(signed(~significand_mask) >> (keepbits+1)); shift = mbits - keepbits
        keep_mask = signed(~significand_mask) >> keepbits
        ui += ulp_half + ((ui >> shift) & 1); x = ui & keep_mask
    At keepbits == mantissa bits the values are returned unchanged, as numcodecs' BitRound
    (what xbitinfo's xr_bitround calls) does: the integer trick above would add the last bit
    there (shift 0, ulp_half 0), i.e. change every odd mantissa.
    """
    values = np.asarray(values)
    uint, nbits, _, mbits = layout(values.dtype)
    if not 0 <= keepbits <= mbits:
        raise ValueError(f"keepbits {keepbits} outside [0, {mbits}]")
    if keepbits == mbits:
        return values.copy()
    sint = np.dtype(f"i{uint.itemsize}")
    significand_mask = (1 << mbits) - 1
    not_sig = np.array(~significand_mask & ((1 << nbits) - 1), dtype=uint).view(sint)
    ulp_half = ~(not_sig >> sint.type(keepbits + 1)).view(uint)
    keep_mask = (not_sig >> sint.type(keepbits)).view(uint)
    shift = uint.type(mbits - keepbits)
    ui = values.view(uint)
    with np.errstate(over="ignore"):
        rounded = (ui + ulp_half + ((ui >> shift) & uint.type(1))) & keep_mask
    out = rounded.view(values.dtype).copy()
    leave = ~usable(values, fill)
    out[leave] = values[leave]
    return out


# ---------------------------------------------------------------- xbitinfo

def xbitinfo_keepbits(info, inflevel=0.99, dtype=np.float32):
    """xbitinfo's get_keepbits for one variable (default filter): NOT clamped.

        info_per_bit_cleaned = info_per_bit.where(
            info_per_bit > info_per_bit.isel({bitdim: slice(-4, None)}).max(bitdim) * 1.5)
        cdf = cleaned.cumsum(bitdim) / cleaned.cumsum(bitdim).isel({bitdim: -1})
        keepmantissabits = (cdf > inflevel).argmax(bitdim) + 1 - (n_bits - n_mant)
        inflevel 1.0: n_mant
    xarray's cumsum skips NaN (a running sum that adds 0 there); 0/0 is NaN, NaN > x is False,
    and argmax of all-False is 0.
    """
    _, nbits, ebits, mbits = layout(dtype)
    info = np.asarray(info, dtype=np.float64)
    assert info.shape == (nbits,)
    if inflevel == 1.0:
        return mbits
    noise = info[-4:].max() * 1.5
    cleaned = np.where(info > noise, info, np.nan)
    running = np.nancumsum(cleaned)
    with np.errstate(invalid="ignore", divide="ignore"):
        cdf = running / running[-1]
    above = cdf > inflevel
    return int(np.argmax(above)) + 1 - (nbits - mbits)


# ---------------------------------------------------------------- esmio's documented guard

def unfiltered_keepbits(info, fraction=0.99, dtype=np.float32):
    """The count without the noise filter, as bit_information.hpp documents keepbits_for: the
    first position whose cumulative share reaches `fraction` (>=), as mantissa bits counted from
    the first mantissa bit, clamped to [0, mantissa bits]; every mantissa bit when the total
    information is 0."""
    _, nbits, ebits, mbits = layout(dtype)
    running = np.cumsum(np.asarray(info, dtype=np.float64))
    total = running[-1]
    if not total > 0:
        return mbits
    position = nbits - 1
    for i in range(nbits):
        if running[i] / total >= fraction:
            position = i
            break
    return min(max(position + 1 - (1 + ebits), 0), mbits)


KEEPBITS_FLOOR = 4  # esmio's documented default floor (information:...:minbits=N)


def guarded_keepbits(info, fraction=0.99, maxrel=0.0, dtype=np.float32, minbits=KEEPBITS_FLOOR):
    """(keepbits, reference, reason) by the rule docs/netcdf4.md documents:
    no information at all -> every mantissa bit ('no_information'); the reference <= 0 -> the
    unfiltered count ('artificial_information'); a reference below minbits (default 4) ->
    minbits, at most the mantissa bits ('floor'); else the reference ('reference'). maxrel > 0
    then raises it to at least ceil(-log2(maxrel)) - 1 ('maxrel'), BitRound's relative error
    being at most 2^-(keepbits+1)."""
    _, _, _, mbits = layout(dtype)
    reference = xbitinfo_keepbits(info, fraction, dtype)
    if not np.sum(info) > 0:
        keepbits, reason = mbits, "no_information"
    elif reference <= 0:
        keepbits, reason = unfiltered_keepbits(info, fraction, dtype), "artificial_information"
    elif reference < min(minbits, mbits):
        keepbits, reason = min(minbits, mbits), "floor"
    else:
        keepbits, reason = min(reference, mbits), "reference"
    if maxrel > 0:
        needed = min(max(math.ceil(-math.log2(maxrel) - 1), 0), mbits)
        if needed > keepbits:
            keepbits, reason = needed, "maxrel"
    return keepbits, reference, reason


def analyse(field, fill=None, fraction=0.99, confidence=0.99, maxrel=0.0,
            minbits=KEEPBITS_FLOOR):
    """Everything the test compares for one field: a dict with info (per bit), keepbits,
    reference, reason, unfiltered and pairs."""
    field = np.asarray(field)
    counts = bitpair_counts(field, fill)
    info = bit_information(counts, confidence)
    keepbits, reference, reason = guarded_keepbits(info, fraction, maxrel, field.dtype, minbits)
    return {
        "info": info,
        "pairs": int(counts[0].sum()),
        "keepbits": keepbits,
        "reference": reference,
        "reason": reason,
        "unfiltered": unfiltered_keepbits(info, fraction, field.dtype),
    }


if __name__ == "__main__":
    # Self-checks against the published examples.
    # BitInformation.jl's docstring: signed_exponent(10f0) is "0 00000011 0100...".
    got = int(signed_exponent(np.array([10.0], dtype=np.float32))[0])
    assert got == 0b0_00000011_01000000000000000000000, bin(got)
    # 0.25 = 2^-2: exponent sign set, magnitude 2.
    got = int(signed_exponent(np.array([0.25], dtype=np.float32))[0])
    assert got == 0b0_10000010_00000000000000000000000, bin(got)
    # binom_confidence(1000, 0.95) = 0.5309897516152281 (its docstring).
    assert abs(binom_confidence(1000, 0.95) - 0.5309897516152281) < 1e-15
    # xbitinfo's tests/test_get_keepbits.py, RH2: 19 mantissa bits at 0.99.
    rh2 = [0, 0, 0, 0, 0, 0, 1.11799129e-01, 8.19114977e-01, 4.41578500e-01, 3.25470303e-01,
           4.35195738e-01, 2.81462993e-01, 2.10719742e-01, 1.46638224e-01, 9.24534031e-02,
           4.41090879e-02, 1.13842504e-02, 8.20088050e-04, 2.62239097e-06, 7.11284508e-07,
           1.18183485e-06, 9.49338973e-09, 1.80859255e-07, 7.72662891e-07, 1.37865391e-05,
           2.11117224e-06, 2.01353088e-07, 3.20755770e-02, 6.06721012e-03, 2.25987148e-04,
           1.71530452e-06, 5.13067595e-03]
    assert xbitinfo_keepbits(rh2) == 19
    assert xbitinfo_keepbits([0.0] * 32) == -8
    # Round to nearest, ties to even: at 1 mantissa bit 1.375 -> 1.5 (nearest), 1.25 -> 1.0 and
    # -1.75 -> -2.0 (ties, to the even pattern); at 2 bits 1.125 -> 1.0 (tie); NaN unchanged.
    x = np.array([1.375, 1.125, 1.25, -1.75, np.nan], dtype=np.float32)
    r = bitround(x, 1)
    assert r[0] == 1.5 and r[2] == 1.0 and r[3] == -2.0 and np.isnan(r[4]), r
    assert bitround(x, 2)[1] == 1.0 and bitround(x, 23)[0] == x[0]
    print("xbitinfo_reference: self-checks ok")
