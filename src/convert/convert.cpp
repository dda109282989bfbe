#include "convert/convert.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/types.hpp"

namespace esmio::convert {
namespace {

// Values per range-check + cast pass. The trip counts are compile-time constants because gcc's
// -O2 cost model ("very-cheap") vectorises a loop only when no scalar epilogue is needed; 1024
// doubles (8 KiB) plus their results stay in L1 between the two passes.
constexpr int64_t kBlock = 1024;
// Leftovers of a run go through blocks of this size before the scalar tail, so that runs of a
// few dozen values (one row of a block decomposition) still take the vector path.
constexpr int64_t kSmallBlock = 16;

template <class T>
using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

template <class T>
Bits<T> bits_of(T v) {
  Bits<T> b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Whether D's range holds every value of the integer type S (signed or not), compared without
// overflow: S's minimum is 0 if S is unsigned, else D must be signed and at least as wide.
template <class S, class D>
constexpr bool integer_range_holds() {
  const bool low = !std::is_signed_v<S> || (std::is_signed_v<D> && sizeof(D) >= sizeof(S));
  const bool high = static_cast<uintmax_t>(std::numeric_limits<S>::max()) <=
                    static_cast<uintmax_t>(std::numeric_limits<D>::max());
  return low && high;
}

// What can go wrong converting S to D, and how to tell. Built once per call.
template <class S, class D>
struct Limits {
  static constexpr bool kSrcFloating = std::is_floating_point_v<S>;
  static constexpr bool kDstFloating = std::is_floating_point_v<D>;
  // Every integer fits a float's range; a float narrows into a smaller float or any integer;
  // an integer fails where D's range does not hold S's (narrower, or of the other signedness).
  static constexpr bool kCanFail =
      !std::is_same_v<S, D> && (kSrcFloating ? (!kDstFloating || sizeof(S) > sizeof(D))
                                             : (!kDstFloating && !integer_range_holds<S, D>()));
  // Integers of different signedness: a modular round trip does not tell (int32 -1 comes back
  // from uint32 as -1), so the exact test runs on every value.
  static constexpr bool kSignChange =
      !kSrcFloating && !kDstFloating && std::is_signed_v<S> != std::is_signed_v<D>;

  S lo{};  // exact test for a floating source: in range iff lo <= v <= hi (NaN fails it)
  S hi{};
  // Fast, conservative test for a floating source: |v| <= magnitude (as bits) is in range (and,
  // for an unsigned D, v not negative).
  Bits<S> magnitude_bits{};

  Limits() {
    if constexpr (kCanFail && kSrcFloating && kDstFloating) {
      hi = static_cast<S>(std::numeric_limits<D>::max());
      lo = -hi;
      magnitude_bits = bits_of(hi);
    } else if constexpr (kCanFail && kSrcFloating) {
      // min() (-2^(N-1), or 0) is exact in S. max() (2^(N-1)-1 or 2^N-1) may round up to a
      // power of two (int32 in float, int64 and uint64 in either), whose cast is undefined: step
      // down to the largest S below. This is netCDF's "v > (double)MAX" with the edge guarded;
      // long double holds every 64-bit integer exactly.
      lo = static_cast<S>(std::numeric_limits<D>::min());
      hi = static_cast<S>(std::numeric_limits<D>::max());
      if (static_cast<long double>(hi) > static_cast<long double>(std::numeric_limits<D>::max()))
        hi = std::nextafter(hi, S(0));
      magnitude_bits = bits_of(hi);  // for a signed D, hi < -lo: |v| <= hi implies lo <= v
    }
  }

  bool out_of_range(S v) const {
    if constexpr (!kCanFail) {
      return false;
    } else if constexpr (kSrcFloating && kDstFloating) {
      return v > hi || v < lo;  // NaN compares false: it converts to NaN
    } else if constexpr (kSrcFloating) {
      return !(v >= lo && v <= hi);  // NaN fails both: out of range for an integer
    } else {
      if constexpr (std::is_signed_v<S>) {
        if (v < 0) {
          if constexpr (!std::is_signed_v<D>) return true;
          return static_cast<intmax_t>(v) < static_cast<intmax_t>(std::numeric_limits<D>::min());
        }
      }
      return static_cast<uintmax_t>(v) > static_cast<uintmax_t>(std::numeric_limits<D>::max());
    }
  }

  // True if some of the N values at src may be out of range; false guarantees none is. Written
  // with integer operations only because gcc 12 cannot vectorise a reduction over comparisons
  // of doubles without SSE4 (no 64-bit vector compare result), and x86-64's baseline is SSE2.
  // (For double -> integer its cost model still keeps the loop scalar; not a hot pair.)
  template <int64_t N>
  bool maybe_out_of_range(const S *__restrict src) const {
    using U = Bits<S>;
    constexpr U kSign = U(1) << (8 * sizeof(U) - 1);
    U acc = 0;
    if constexpr (kSrcFloating && kDstFloating) {
      // Exact: out iff magnitude_bits < |v| <= Inf, so NaN passes. Both differences stay below
      // 2^(w-1), so each top bit is the comparison.
      const U inf_bits = bits_of(std::numeric_limits<S>::infinity());
      for (int64_t i = 0; i < N; ++i) {
        U a;
        std::memcpy(&a, &src[i], sizeof a);
        a &= ~kSign;
        acc |= (magnitude_bits - a) & (a - (inf_bits + 1));
      }
      return (acc & kSign) != 0;
    } else if constexpr (kSrcFloating) {
      for (int64_t i = 0; i < N; ++i) {
        U a;
        std::memcpy(&a, &src[i], sizeof a);
        acc |= magnitude_bits - (a & ~kSign);  // top bit set iff |v| > hi, NaN and Inf included
        // An unsigned D takes no negative value (-0 included here; the exact test lets it pass).
        if constexpr (!std::is_signed_v<D>) acc |= a & kSign;
      }
      return (acc & kSign) != 0;
    } else if constexpr (kSignChange) {
      int bad = 0;
      for (int64_t i = 0; i < N; ++i) bad |= out_of_range(src[i]) ? 1 : 0;
      return bad != 0;
    } else {
      // A narrowing integer conversion is modular (defined in gcc, and by C++20), so the value
      // survives the round trip iff it is in range.
      using SU = std::make_unsigned_t<S>;
      SU diff = 0;
      for (int64_t i = 0; i < N; ++i) {
        diff |= static_cast<SU>(src[i]) ^ static_cast<SU>(static_cast<S>(static_cast<D>(src[i])));
      }
      return diff != 0;
    }
  }
};

// Checks every value: for blocks that hold out-of-range values, and for the tail of a run.
template <class S, class D>
int64_t convert_checked(const S *__restrict src, D *__restrict dst, int64_t n,
                        const Limits<S, D> &limits, D fill) {
  int64_t nbad = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (limits.out_of_range(src[i])) {
      dst[i] = fill;
      ++nbad;
    } else {
      dst[i] = static_cast<D>(src[i]);
    }
  }
  return nbad;
}

template <class S, class D, int64_t N>
inline int64_t convert_block(const S *__restrict src, D *__restrict dst, const Limits<S, D> &limits,
                             D fill) {
  if constexpr (Limits<S, D>::kCanFail) {
    if (limits.template maybe_out_of_range<N>(src))
      return convert_checked(src, dst, N, limits, fill);
  }
  for (int64_t i = 0; i < N; ++i) dst[i] = static_cast<D>(src[i]);
  return 0;
}

template <class S, class D>
int64_t convert_run(const S *src, D *dst, int64_t n, const Limits<S, D> &limits, D fill) {
  int64_t nbad = 0;
  for (; n >= kBlock; n -= kBlock, src += kBlock, dst += kBlock)
    nbad += convert_block<S, D, kBlock>(src, dst, limits, fill);
  for (; n >= kSmallBlock; n -= kSmallBlock, src += kSmallBlock, dst += kSmallBlock)
    nbad += convert_block<S, D, kSmallBlock>(src, dst, limits, fill);
  if (n > 0) nbad += convert_checked(src, dst, n, limits, fill);
  return nbad;
}

template <class D>
D fill_value(esmio_type dst_type, const void *dst_fill) {
  D fill;
  if (dst_fill != nullptr)
    std::memcpy(&fill, dst_fill, sizeof fill);
  else
    default_fill_value(dst_type, &fill);
  return fill;
}

template <class S, class D>
int64_t convert_typed(const void *src, void *dst, int64_t n, esmio_type dst_type,
                      const void *dst_fill) {
  const Limits<S, D> limits;
  return convert_run(static_cast<const S *>(src), static_cast<D *>(dst), n, limits,
                     fill_value<D>(dst_type, dst_fill));
}

// Runs shorter than a small block skip the block machinery: in a gather of one-element runs
// the call would cost more than the conversion.
template <class S, class D>
inline int64_t convert_short_or_long(const S *src, D *dst, int64_t n, const Limits<S, D> &limits,
                                     D fill) {
  if (n < kSmallBlock) return convert_checked(src, dst, n, limits, fill);
  return convert_run(src, dst, n, limits, fill);
}

// Copies n elements between distinct buffers. A map that scatters its columns (E3SM's) gives
// runs of a few elements: there a library memcpy per run (what gcc turns a copy loop into)
// costs more than the bytes, so short runs are two overlapping fixed-size copies, which compile
// to a few moves.
template <class T>
inline void copy_elements(T *__restrict d, const T *__restrict s, int64_t n) {
  constexpr std::size_t z = sizeof(T);
  if (n >= 32) {
    std::memcpy(d, s, static_cast<std::size_t>(n) * z);
  } else if (n >= 16) {
    std::memcpy(d, s, 16 * z);
    std::memcpy(d + n - 16, s + n - 16, 16 * z);
  } else if (n >= 8) {
    std::memcpy(d, s, 8 * z);
    std::memcpy(d + n - 8, s + n - 8, 8 * z);
  } else if (n >= 4) {
    std::memcpy(d, s, 4 * z);
    std::memcpy(d + n - 4, s + n - 4, 4 * z);
  } else if (n >= 2) {
    std::memcpy(d, s, 2 * z);
    std::memcpy(d + n - 2, s + n - 2, 2 * z);
  } else if (n == 1) {
    std::memcpy(d, s, z);
  }
}

// One run of the gather, scatter or remap: a plain copy between equal types (nothing can be
// out of range), else the range-checked conversion.
template <class S, class D>
inline int64_t move_run(const S *src, D *dst, int64_t n, const Limits<S, D> &limits, D fill) {
  if constexpr (std::is_same_v<S, D>) {
    copy_elements(dst, src, n);
    return 0;
  } else {
    return convert_short_or_long(src, dst, n, limits, fill);
  }
}

template <class S, class D>
int64_t gather_typed(const void *src, const Run *runs, int64_t nruns, void *dst,
                     esmio_type dst_type, const void *dst_fill) {
  const Limits<S, D> limits;
  const D fill = fill_value<D>(dst_type, dst_fill);
  const S *s = static_cast<const S *>(src);
  D *d = static_cast<D *>(dst);
  int64_t nbad = 0;
  for (int64_t r = 0; r < nruns; ++r) {
    if (runs[r].length <= 0) continue;
    nbad += move_run(s + runs[r].begin, d, runs[r].length, limits, fill);
    d += runs[r].length;
  }
  return nbad;
}

template <class S, class D>
int64_t scatter_typed(const void *src, const Run *runs, int64_t nruns, void *dst,
                      esmio_type dst_type, const void *dst_fill) {
  const Limits<S, D> limits;
  const D fill = fill_value<D>(dst_type, dst_fill);
  const S *s = static_cast<const S *>(src);
  D *d = static_cast<D *>(dst);
  int64_t nbad = 0;
  for (int64_t r = 0; r < nruns; ++r) {
    if (runs[r].length <= 0) continue;
    nbad += move_run(s, d + runs[r].begin, runs[r].length, limits, fill);
    s += runs[r].length;
  }
  return nbad;
}

// Element k of the sequence lies at the k-th position of src_runs in src and lands at the k-th
// position of dst_runs in dst: a gather and a scatter in one pass. The totals must be equal.
template <class S, class D>
int64_t remap_typed(const void *src, const Run *src_runs, int64_t nsrc, void *dst,
                    const Run *dst_runs, int64_t ndst, esmio_type dst_type, const void *dst_fill) {
  int64_t src_total = 0, dst_total = 0;
  for (int64_t r = 0; r < nsrc; ++r) src_total += std::max<int64_t>(src_runs[r].length, 0);
  for (int64_t r = 0; r < ndst; ++r) dst_total += std::max<int64_t>(dst_runs[r].length, 0);
  if (src_total != dst_total) return -1;
  const Limits<S, D> limits;
  const D fill = fill_value<D>(dst_type, dst_fill);
  const S *s = static_cast<const S *>(src);
  D *d = static_cast<D *>(dst);
  int64_t nbad = 0;
  int64_t i = 0, j = 0, used_i = 0, used_j = 0;  // run indices and elements used of each
  while (i < nsrc && j < ndst) {
    const int64_t left_i = src_runs[i].length - used_i, left_j = dst_runs[j].length - used_j;
    if (left_i <= 0) {
      ++i;
      used_i = 0;
      continue;
    }
    if (left_j <= 0) {
      ++j;
      used_j = 0;
      continue;
    }
    const int64_t n = std::min(left_i, left_j);
    nbad +=
        move_run(s + src_runs[i].begin + used_i, d + dst_runs[j].begin + used_j, n, limits, fill);
    used_i += n;
    used_j += n;
  }
  return nbad;
}

// Element k lies at src[positions[k]] and lands at the k-th position of dst_runs: remap_typed
// for a scattered source (an E3SM map), with 4 bytes of map per element instead of a run each.
template <class S, class D>
int64_t remap_positions_typed(const void *src, const int32_t *positions, int64_t n, void *dst,
                              const Run *dst_runs, int64_t ndst, esmio_type dst_type,
                              const void *dst_fill) {
  int64_t dst_total = 0;
  for (int64_t r = 0; r < ndst; ++r) dst_total += std::max<int64_t>(dst_runs[r].length, 0);
  if (dst_total != n) return -1;
  const Limits<S, D> limits;
  const D fill = fill_value<D>(dst_type, dst_fill);
  const S *s = static_cast<const S *>(src);
  D *d = static_cast<D *>(dst);
  int64_t nbad = 0;
  for (int64_t r = 0; r < ndst; ++r) {
    D *out = d + dst_runs[r].begin;
    for (int64_t j = 0; j < dst_runs[r].length; ++j) {
      const S v = s[*positions++];
      if constexpr (Limits<S, D>::kCanFail) {
        if (limits.out_of_range(v)) {
          out[j] = fill;
          ++nbad;
          continue;
        }
      }
      out[j] = static_cast<D>(v);
    }
  }
  return nbad;
}

template <class T>
struct Tag {
  using type = T;
};

// Calls f(Tag<T>) with the C++ type of a numeric esmio_type; false if type is not numeric.
template <class F>
bool visit_numeric(esmio_type type, F &&f) {
  switch (type) {
    case ESMIO_BYTE:
      f(Tag<int8_t>{});
      return true;
    case ESMIO_SHORT:
      f(Tag<int16_t>{});
      return true;
    case ESMIO_INT:
      f(Tag<int32_t>{});
      return true;
    case ESMIO_FLOAT:
      f(Tag<float>{});
      return true;
    case ESMIO_DOUBLE:
      f(Tag<double>{});
      return true;
    case ESMIO_INT64:
      f(Tag<int64_t>{});
      return true;
    case ESMIO_UBYTE:
      f(Tag<uint8_t>{});
      return true;
    case ESMIO_USHORT:
      f(Tag<uint16_t>{});
      return true;
    case ESMIO_UINT:
      f(Tag<uint32_t>{});
      return true;
    case ESMIO_UINT64:
      f(Tag<uint64_t>{});
      return true;
    case ESMIO_CHAR:
      break;
  }
  return false;
}

// Same-type runs move as unsigned integers of the element's size: CHAR needs no instantiation
// of its own, and a copy never looks at the bits (a signalling NaN stays signalling).
template <class F>
void visit_copy(esmio_type type, F &&f) {
  switch (type_size(type)) {
    case 1:
      f(Tag<uint8_t>{});
      break;
    case 2:
      f(Tag<uint16_t>{});
      break;
    case 4:
      f(Tag<uint32_t>{});
      break;
    case 8:
      f(Tag<uint64_t>{});
      break;
  }
}

using RunsFn = int64_t (*)(const void *, const Run *, int64_t, void *, esmio_type, const void *);
using RemapFn = int64_t (*)(const void *, const Run *, int64_t, void *, const Run *, int64_t,
                            esmio_type, const void *);
using RemapPositionsFn = int64_t (*)(const void *, const int32_t *, int64_t, void *, const Run *,
                                     int64_t, esmio_type, const void *);

// The kernel for the pair, chosen once per call; null if the pair is not convertible.
template <template <class, class> class Kernel, class Fn = RunsFn>
Fn pick_runs_kernel(esmio_type src_type, esmio_type dst_type) {
  Fn fn = nullptr;
  if (!convertible(src_type, dst_type)) return fn;
  if (src_type == dst_type) {
    visit_copy(src_type, [&](auto t) {
      using T = typename decltype(t)::type;
      fn = &Kernel<T, T>::run;
    });
    return fn;
  }
  visit_numeric(src_type, [&](auto s) {
    visit_numeric(dst_type, [&](auto d) {
      fn = &Kernel<typename decltype(s)::type, typename decltype(d)::type>::run;
    });
  });
  return fn;
}

template <class S, class D>
struct Gather {
  static int64_t run(const void *src, const Run *runs, int64_t nruns, void *dst,
                     esmio_type dst_type, const void *dst_fill) {
    return gather_typed<S, D>(src, runs, nruns, dst, dst_type, dst_fill);
  }
};

template <class S, class D>
struct Scatter {
  static int64_t run(const void *src, const Run *runs, int64_t nruns, void *dst,
                     esmio_type dst_type, const void *dst_fill) {
    return scatter_typed<S, D>(src, runs, nruns, dst, dst_type, dst_fill);
  }
};

template <class S, class D>
struct RemapPositions {
  static int64_t run(const void *src, const int32_t *positions, int64_t n, void *dst,
                     const Run *dst_runs, int64_t ndst, esmio_type dst_type, const void *dst_fill) {
    return remap_positions_typed<S, D>(src, positions, n, dst, dst_runs, ndst, dst_type, dst_fill);
  }
};

template <class S, class D>
struct Remap {
  static int64_t run(const void *src, const Run *src_runs, int64_t nsrc, void *dst,
                     const Run *dst_runs, int64_t ndst, esmio_type dst_type, const void *dst_fill) {
    return remap_typed<S, D>(src, src_runs, nsrc, dst, dst_runs, ndst, dst_type, dst_fill);
  }
};

}  // namespace

bool convertible(esmio_type src, esmio_type dst) {
  if (src == ESMIO_CHAR || dst == ESMIO_CHAR) return src == dst;
  return type_is_numeric(src) && type_is_numeric(dst);
}

int64_t convert(esmio_type src_type, const void *src, esmio_type dst_type, void *dst, int64_t n,
                const void *dst_fill) {
  if (!convertible(src_type, dst_type) || n < 0) return -1;
  if (n == 0) return 0;
  if (src_type == dst_type) {
    if (src != dst) std::memcpy(dst, src, static_cast<std::size_t>(n) * type_size(src_type));
    return 0;
  }
  int64_t nbad = 0;
  visit_numeric(src_type, [&](auto s) {
    visit_numeric(dst_type, [&](auto d) {
      nbad = convert_typed<typename decltype(s)::type, typename decltype(d)::type>(
          src, dst, n, dst_type, dst_fill);
    });
  });
  return nbad;
}

int64_t gather_convert(esmio_type src_type, const void *src, const Run *runs, int64_t nruns,
                       esmio_type dst_type, void *dst, const void *dst_fill) {
  const RunsFn fn = pick_runs_kernel<Gather>(src_type, dst_type);
  if (fn == nullptr || nruns < 0) return -1;
  return fn(src, runs, nruns, dst, dst_type, dst_fill);
}

int64_t scatter_convert(esmio_type src_type, const void *src, const Run *runs, int64_t nruns,
                        esmio_type dst_type, void *dst, const void *dst_fill) {
  const RunsFn fn = pick_runs_kernel<Scatter>(src_type, dst_type);
  if (fn == nullptr || nruns < 0) return -1;
  return fn(src, runs, nruns, dst, dst_type, dst_fill);
}

namespace {

// Element k between position k of the packed side and position positions[k] of the other:
// Gather reads the positions (dst packed), the scatter writes them (src packed).
template <bool Gather, class U>
void move_positions_typed(const void *src, const int32_t *positions, int64_t n, void *dst) {
  const U *s = static_cast<const U *>(src);
  U *d = static_cast<U *>(dst);
  for (int64_t k = 0; k < n; ++k) {
    if constexpr (Gather)
      d[k] = s[positions[k]];
    else
      d[positions[k]] = s[k];
  }
}

template <bool Gather>
void move_positions(std::size_t esize, const void *src, const int32_t *positions, int64_t n,
                    void *dst) {
  switch (esize) {
    case 1:
      return move_positions_typed<Gather, uint8_t>(src, positions, n, dst);
    case 2:
      return move_positions_typed<Gather, uint16_t>(src, positions, n, dst);
    case 4:
      return move_positions_typed<Gather, uint32_t>(src, positions, n, dst);
    case 8:
      return move_positions_typed<Gather, uint64_t>(src, positions, n, dst);
  }
  const unsigned char *s = static_cast<const unsigned char *>(src);
  unsigned char *d = static_cast<unsigned char *>(dst);
  for (int64_t k = 0; k < n; ++k) {
    const std::size_t at = static_cast<std::size_t>(positions[k]) * esize,
                      packed = static_cast<std::size_t>(k) * esize;
    std::memcpy(d + (Gather ? packed : at), s + (Gather ? at : packed), esize);
  }
}

}  // namespace

void gather_positions(std::size_t esize, const void *src, const int32_t *positions, int64_t n,
                      void *dst) {
  move_positions<true>(esize, src, positions, n, dst);
}

void scatter_positions(std::size_t esize, const void *src, const int32_t *positions, int64_t n,
                       void *dst) {
  move_positions<false>(esize, src, positions, n, dst);
}

int64_t remap_convert(esmio_type src_type, const void *src, const Run *src_runs, int64_t nsrc,
                      esmio_type dst_type, void *dst, const Run *dst_runs, int64_t ndst,
                      const void *dst_fill) {
  const RemapFn fn = pick_runs_kernel<Remap, RemapFn>(src_type, dst_type);
  if (fn == nullptr || nsrc < 0 || ndst < 0) return -1;
  return fn(src, src_runs, nsrc, dst, dst_runs, ndst, dst_type, dst_fill);
}

int64_t remap_positions_convert(esmio_type src_type, const void *src, const int32_t *positions,
                                int64_t n, esmio_type dst_type, void *dst, const Run *dst_runs,
                                int64_t ndst, const void *dst_fill) {
  const RemapPositionsFn fn =
      pick_runs_kernel<RemapPositions, RemapPositionsFn>(src_type, dst_type);
  if (fn == nullptr || n < 0 || ndst < 0) return -1;
  return fn(src, positions, n, dst, dst_runs, ndst, dst_type, dst_fill);
}

namespace {

// A run this long or longer is filled by doubling copies; shorter ones (the many short holes
// of a land or ocean map) by a store per element, without a library call per run.
constexpr int64_t kDoublingElements = 64;

void fill_by_doubling(unsigned char *p, std::size_t bytes, const void *value, std::size_t size) {
  std::memcpy(p, value, size);
  for (std::size_t done = size; done < bytes; done *= 2)
    std::memcpy(p + done, p, std::min(done, bytes - done));
}

template <class U>
void fill_typed(unsigned char *base, const std::vector<Run> &runs, const void *value) {
  U v;
  std::memcpy(&v, value, sizeof v);
  for (const Run &r : runs) {
    if (r.length <= 0) continue;
    unsigned char *p = base + r.begin * int64_t(sizeof(U));
    if (r.length >= kDoublingElements) {
      fill_by_doubling(p, static_cast<std::size_t>(r.length) * sizeof(U), value, sizeof(U));
      continue;
    }
    for (int64_t k = 0; k < r.length; ++k) std::memcpy(p + k * int64_t(sizeof(U)), &v, sizeof v);
  }
}

}  // namespace

void fill_runs(void *buffer, const std::vector<Run> &runs, const void *value, std::size_t size) {
  unsigned char *base = static_cast<unsigned char *>(buffer);
  switch (size) {
    case 1:
      return fill_typed<uint8_t>(base, runs, value);
    case 2:
      return fill_typed<uint16_t>(base, runs, value);
    case 4:
      return fill_typed<uint32_t>(base, runs, value);
    case 8:
      return fill_typed<uint64_t>(base, runs, value);
  }
  for (const Run &r : runs)
    if (r.length > 0)
      fill_by_doubling(base + r.begin * static_cast<int64_t>(size),
                       static_cast<std::size_t>(r.length) * size, value, size);
}

}  // namespace esmio::convert
