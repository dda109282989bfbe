// Small text helpers shared by the parsers of settings and specs.
#pragma once

#include <string>

namespace esmio {

// s without leading and trailing white space.
std::string trim(const std::string &s);
// s in lower case (ASCII).
std::string lower(std::string s);

}  // namespace esmio
