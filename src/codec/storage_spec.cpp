#include "codec/storage_spec.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "common/text.hpp"

namespace esmio::codec {
namespace {

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    const std::size_t end = s.find(sep, at);
    out.push_back(trim(s.substr(at, end == std::string::npos ? std::string::npos : end - at)));
    if (end == std::string::npos) return out;
    at = end + 1;
  }
}

bool parse_long(const std::string &text, long long *value) {
  if (text.empty()) return false;
  errno = 0;
  char *end = nullptr;
  *value = std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && end == text.c_str() + text.size();  // a NUL inside is not the end
}

Status bad(const std::string &origin, const std::string &what, const std::string &text,
           const char *expected) {
  return Status(ESMIO_ESETTING,
                origin + ": bad " + what + " '" + text + "' (expected " + expected + ")");
}

}  // namespace

Status parse_codec(const std::string &text, const std::string &origin, CodecChoice *out) {
  const std::vector<std::string> parts = split(lower(text), ':');
  CodecChoice c;
  c.codec = parts[0];
  const char *expected = "none, deflate[:1-9][:shuffle] or zstd[:LEVEL][:shuffle]";
  if (c.codec == "none") {
    if (parts.size() > 1) return bad(origin, "compression", text, expected);
    *out = c;
    return Status::ok();
  }
  if (c.codec != "deflate" && c.codec != "zstd")
    return Status(ESMIO_EBADNAME, origin + ": unknown codec '" + parts[0] + "' in '" + text +
                                      "' (known: none, deflate, zstd)");
  // Measured on real fields, one core (bench/results/2026-11-25-codecs): zstd:1 compresses
  // 1.1-2.7x faster than zstd:3 to within 0-7 % of its ratio; deflate:1 is 3-6x slower than
  // zstd:1 for a smaller or equal ratio, and deflate:4 slower again for 0-3 % more.
  c.level = 1;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    long long level = 0;
    if (parts[i] == "shuffle" && !c.shuffle) {
      c.shuffle = true;
    } else if (i == 1 && parse_long(parts[i], &level)) {
      const bool ok = c.codec == "deflate" ? level >= 1 && level <= 9
                                           : (level >= -131072 && level <= 22 && level != 0);
      if (!ok)
        return bad(origin, c.codec + " level", parts[i],
                   c.codec == "deflate" ? "1 to 9" : "-131072 to -1 or 1 to 22");
      c.level = static_cast<int>(level);
    } else {
      return bad(origin, "compression", text, expected);
    }
  }
  *out = c;
  return Status::ok();
}

Status parse_quantize(const std::string &text, const std::string &origin, QuantizeChoice *out) {
  const std::vector<std::string> parts = split(lower(text), ':');
  QuantizeChoice q;
  q.mode = parts[0];
  const char *expected =
      "none, bitround:NSB, granularbr:NSD or information[:FRACTION][:maxrel=E][:minbits=N]";
  if (q.mode == "none") {
    if (parts.size() > 1) return bad(origin, "quantize", text, expected);
  } else if (q.mode == "bitround" || q.mode == "granularbr") {
    long long digits = 0;
    const long long most = q.mode == "bitround" ? 52 : 15;
    if (parts.size() != 2 || !parse_long(parts[1], &digits) || digits < 1 || digits > most)
      return bad(origin, "quantize", text,
                 q.mode == "bitround" ? "bitround:NSB with NSB 1 to 52"
                                      : "granularbr:NSD with NSD 1 to 15");
    q.digits = static_cast<int>(digits);
  } else if (q.mode == "information") {
    if (parts.size() > 4) return bad(origin, "quantize", text, expected);
    bool have_fraction = false, have_maxrel = false, have_minbits = false;
    for (std::size_t i = 1; i < parts.size(); ++i) {
      const bool is_maxrel = parts[i].rfind("maxrel=", 0) == 0;
      const bool is_minbits = parts[i].rfind("minbits=", 0) == 0;
      if (is_minbits) {
        long long n = 0;
        const std::string digits = parts[i].substr(8);
        if (have_minbits || digits.empty() ||
            !std::isdigit(static_cast<unsigned char>(digits[0])) || !parse_long(digits, &n) ||
            n > 52)
          return bad(origin, "quantize", text,
                     "information[:F]:minbits=N with N 0 to 52, e.g. information:0.99:minbits=4");
        q.minbits = static_cast<int>(n);
        have_minbits = true;
        continue;
      }
      const std::string number = is_maxrel ? parts[i].substr(7) : parts[i];
      char *end = nullptr;
      const double x = std::strtod(number.c_str(), &end);
      const bool parsed = !number.empty() && end == number.c_str() + number.size();
      if (is_maxrel) {
        if (have_maxrel || !parsed || !(x > 0 && x < 1))
          return bad(origin, "quantize", text,
                     "information[:F]:maxrel=E with 0 < E < 1, e.g. information:0.99:maxrel=1e-3");
        q.maxrel = x;
        have_maxrel = true;
      } else {
        if (have_fraction || have_maxrel || have_minbits || !parsed || !(x > 0 && x <= 1))
          return bad(origin, "quantize", text, "information:F with 0 < F <= 1, e.g. 0.99");
        q.fraction = x;
        have_fraction = true;
      }
    }
  } else if (q.mode == "bitgroom") {
    return Status(ESMIO_EINVAL, origin + ": quantize '" + text +
                                    "': BitGroom alternates by position within each write, so "
                                    "its bits would depend on the I/O layout; use granularbr or "
                                    "bitround");
  } else {
    return Status(ESMIO_EBADNAME, origin + ": unknown quantize mode '" + parts[0] + "' in '" +
                                      text + "' (known: none, bitround, granularbr, information)");
  }
  *out = q;
  return Status::ok();
}

Status parse_chunks(const std::string &text, const std::string &origin, ChunkChoice *out) {
  const std::string t = lower(trim(text));
  ChunkChoice c;
  if (t == "auto") {
    c.kind = ChunkChoice::Kind::automatic;
  } else if (t == "contiguous") {
    c.kind = ChunkChoice::Kind::contiguous;
  } else {
    c.kind = ChunkChoice::Kind::shape;
    for (const std::string &part : split(t, 'x')) {
      long long len = 0;
      if (!parse_long(part, &len) || len < 1)
        return bad(origin, "chunk shape", text, "auto, contiguous or lengths such as 1x26x64x576");
      c.shape.push_back(len);
    }
  }
  *out = c;
  return Status::ok();
}

Status parse_per_variable(const std::string &text, const std::string &origin,
                          std::map<std::string, std::string> *entries) {
  std::map<std::string, std::string> parsed;
  if (!trim(text).empty())
    for (const std::string &item : split(text, ';')) {
      if (item.empty()) continue;
      const std::size_t colon = item.find(':');
      const std::string name = trim(item.substr(0, colon));
      if (colon == std::string::npos || name.empty() || trim(item.substr(colon + 1)).empty())
        return Status(ESMIO_ESETTING, origin + ": entry '" + item +
                                          "' is not NAME:VALUE (NAME a variable or 'default')");
      parsed[name] = trim(item.substr(colon + 1));
    }
  *entries = std::move(parsed);
  return Status::ok();
}

}  // namespace esmio::codec
