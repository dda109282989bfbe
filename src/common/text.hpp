// Small text helpers shared by the parsers of settings and specs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace esmio {

// s without leading and trailing white space.
std::string trim(const std::string &s);
// s in lower case (ASCII).
std::string lower(std::string s);
// text as a whole decimal integer that fits int64_t: an optional '-', then digits, nothing else
// (no blanks, no '+'); false for anything else, and *value is then unspecified.
bool parse_int64(std::string_view text, int64_t *value);

}  // namespace esmio
