// How a variable is stored in a netCDF-4 file, as users write it: a codec ("zstd:3",
// "deflate:4:shuffle"), a quantisation ("bitround:7", "granularbr:3", "information:0.99") and a
// chunk shape ("1x26x64x576", "auto", "contiguous"), per variable or as a default in one setting
// ("T:zstd:5;default:zstd:3"). Pure parsing: every error names the origin and the bad text.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace esmio::codec {

struct CodecChoice {
  std::string codec = "none";  // none | deflate | zstd
  int level = 0;
  bool shuffle = false;
};

struct QuantizeChoice {
  // none | bitround (digits = significant bits) | granularbr (digits = significant decimal
  // digits) | information (fraction of the real information kept)
  std::string mode = "none";
  int digits = 0;
  double fraction = 0.99;
  double maxrel = 0;  // information: the largest relative error allowed (0: no bound)
  // information: the fewest mantissa bits kept where the reference is positive (the floor)
  int minbits = -1;  // -1: not given, the default floor (quantize::kKeepbitsFloor, 4)
};

struct ChunkChoice {
  enum class Kind { automatic, contiguous, shape } kind = Kind::automatic;
  std::vector<int64_t> shape;  // Kind::shape: one length per dimension, record dimension first
};

// "none" | "deflate[:LEVEL][:shuffle]" (LEVEL 1-9, default 1) | "zstd[:LEVEL][:shuffle]" (LEVEL
// -131072..-1 or 1..22, default 1: the measured best trade-off, storage_spec.cpp).
Status parse_codec(const std::string &text, const std::string &origin, CodecChoice *out);
// "none" | "bitround:NSB" (1-52) | "granularbr:NSD" (1-15) |
// "information[:FRACTION][:maxrel=E][:minbits=N]" (0 < F <= 1, default 0.99; 0 < E < 1;
// N 0 to 52, not given: -1, the default floor; F first, then the others in any order).
// BitGroom is refused: netCDF-C's alternates by position within each call, so its bits would
// depend on how the record is split across I/O tasks.
Status parse_quantize(const std::string &text, const std::string &origin, QuantizeChoice *out);
// "auto" | "contiguous" | "AxBxC..." (positive lengths).
Status parse_chunks(const std::string &text, const std::string &origin, ChunkChoice *out);
// "NAME:VALUE;NAME:VALUE..." (NAME "default" for every variable without its own entry; VALUE
// may hold ':'); a later entry for the same name wins. Empty text: no entries.
Status parse_per_variable(const std::string &text, const std::string &origin,
                          std::map<std::string, std::string> *entries);

}  // namespace esmio::codec
