#include "common/netcdf_name.hpp"

#include <cstdio>

namespace esmio {

namespace {

bool between(unsigned char c, unsigned lo, unsigned hi) { return c >= lo && c <= hi; }

// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
// nothing past U+10FFFF) that starts at name[at] with a byte of 0x80 or more; 0 if there is none.
std::size_t utf8_length(std::string_view name, std::size_t at) {
  const auto byte = [&](std::size_t k) -> unsigned char {
    return at + k < name.size() ? static_cast<unsigned char>(name[at + k]) : 0;
  };
  const unsigned char b0 = byte(0);
  const auto tail = [&](std::size_t k) { return between(byte(k), 0x80, 0xBF); };
  if (between(b0, 0xC2, 0xDF)) return tail(1) ? 2 : 0;
  if (b0 == 0xE0) return between(byte(1), 0xA0, 0xBF) && tail(2) ? 3 : 0;
  if (between(b0, 0xE1, 0xEC) || between(b0, 0xEE, 0xEF)) return tail(1) && tail(2) ? 3 : 0;
  if (b0 == 0xED) return between(byte(1), 0x80, 0x9F) && tail(2) ? 3 : 0;
  if (b0 == 0xF0) return between(byte(1), 0x90, 0xBF) && tail(2) && tail(3) ? 4 : 0;
  if (between(b0, 0xF1, 0xF3)) return tail(1) && tail(2) && tail(3) ? 4 : 0;
  if (b0 == 0xF4) return between(byte(1), 0x80, 0x8F) && tail(2) && tail(3) ? 4 : 0;
  return 0;
}

std::string byte_text(unsigned char c) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02X", c);
  return text;
}

bool ascii_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

}  // namespace

std::string netcdf_name_fault(std::string_view name) {
  if (name.empty()) return "a name cannot be empty";
  const auto first = static_cast<unsigned char>(name[0]);
  if (first < 0x80 && !(between(first, 'A', 'Z') || between(first, 'a', 'z') ||
                        between(first, '0', '9') || first == '_'))
    return "a name starts with a letter, a digit or '_', not " +
           (first >= 0x20 && first < 0x7F ? "'" + std::string(1, static_cast<char>(first)) + "'"
                                          : byte_text(first));
  for (std::size_t at = 0; at < name.size();) {
    const auto c = static_cast<unsigned char>(name[at]);
    if (c < 0x80) {
      if (c == '/') return "'/' is not allowed in a name";
      if (c < 0x20 || c == 0x7F)
        return "the control character " + byte_text(c) + " at byte " + std::to_string(at) +
               " is not allowed in a name";
      ++at;
      continue;
    }
    const std::size_t length = utf8_length(name, at);
    if (length == 0)
      return "byte " + std::to_string(at) + " (" + byte_text(c) + ") is not valid UTF-8";
    at += length;
  }
  if (ascii_space(static_cast<unsigned char>(name.back())))
    return "a name cannot end in white space";
  return std::string();
}

}  // namespace esmio
