// A collective call in words that ranks can compare argument by argument. On a mismatch the
// agreement (common/agree.hpp) broadcasts what rank 0 and the first rank that differs were
// doing; with their calls as argument lists, the message names the argument that differs and
// both values ("esmio_write_darray on file 'F', variable 'T' ...: rank 0 writes record 0,
// rank 2 writes record 1") instead of two whole texts that look alike.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace esmio {

// One call: its name, the verb for its arguments ("rank 0 writes record 0"), its collective
// arguments in order, and, when this rank's checks refused it, why.
struct CallWords {
  std::string call;
  std::string verb;
  std::vector<std::pair<std::string, std::string>> args;  // ("record", "0")
  std::string refused;
  // How many of the leading arguments a contrast names when both ranks pass the same: the
  // rest (a call's many settings) are named only where they differ.
  int64_t shared_named = int64_t(1) << 30;  // all
};

// A sequence of calls compared as one (the cached calls since the last flush): `what` names
// them ("cached esmio_write_darray call(s) on file 'F' since the last flush"), `total` is how
// many there were, `calls` the first of them (at most a fixed number: bounded memory).
struct CallList {
  std::string what;
  int64_t total = 0;
  std::vector<CallWords> calls;
};

// The form that travels in the agreement's broadcast (what agree_call's describe() returns).
std::string encode(const CallWords &call);
std::string encode(const CallList &list);
// Free text (any other description) is not a list: false.
bool decode(const std::string &text, CallList *list);

// The mismatch between rank a's and rank b's descriptions, as one text: the first call where
// they differ, its common arguments, and each rank's differing ones. Descriptions that are
// not both lists are quoted whole.
std::string contrast(int rank_a, const std::string &a, int rank_b, const std::string &b);

}  // namespace esmio
