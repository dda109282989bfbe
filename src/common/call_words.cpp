#include "common/call_words.hpp"

#include <algorithm>
#include <cstddef>
#include <string>

namespace esmio {

namespace {

// Marks an encoded list; free text never starts with it.
const char kMagic[] =
    "\x1e"
    "esmio-call-list\x1e";

// Length-prefixed, so that names and paths may hold any byte.
void put(std::string *out, const std::string &s) {
  *out += std::to_string(s.size());
  *out += ':';
  *out += s;
}

bool get(const std::string &in, std::size_t *at, std::string *s) {
  const std::size_t colon = in.find(':', *at);
  if (colon == std::string::npos || colon == *at || colon - *at > 18) return false;
  std::size_t n = 0;
  for (std::size_t i = *at; i < colon; ++i) {
    if (in[i] < '0' || in[i] > '9') return false;
    n = n * 10 + static_cast<std::size_t>(in[i] - '0');
  }
  if (n > in.size() - colon - 1) return false;
  *s = in.substr(colon + 1, n);
  *at = colon + 1 + n;
  return true;
}

bool get_count(const std::string &in, std::size_t *at, int64_t *v) {
  std::string s;
  if (!get(in, at, &s) || s.empty() || s.size() > 18) return false;
  *v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    *v = *v * 10 + (c - '0');
  }
  return true;
}

std::string argument(const std::pair<std::string, std::string> &arg) {
  return arg.first + " " + arg.second;
}

// "esmio_write_darray(file 'F', variable 'T', record 0, ...)", and its refusal.
std::string render(const CallWords &call) {
  std::string text = call.call + "(";
  for (std::size_t i = 0; i < call.args.size(); ++i)
    text += (i ? ", " : "") + argument(call.args[i]);
  text += ")";
  if (!call.refused.empty()) text += ", which failed there: " + call.refused;
  return text;
}

std::string render(const CallList &list) {
  if (list.what.empty() && list.calls.size() == 1) return render(list.calls.front());
  std::string text = "the " + std::to_string(list.total) + " " + list.what;
  for (const CallWords &call : list.calls)
    if (!call.refused.empty()) return text + ", one of which failed there: " + call.refused;
  return text;
}

std::string rank_text(int rank) { return "rank " + std::to_string(rank); }

// "1st", "2nd", "3rd", "4th", "11th", ...
std::string ordinal(int64_t n) {
  const int64_t tens = n % 100, ones = n % 10;
  const char *suffix = (tens >= 11 && tens <= 13) ? "th"
                       : ones == 1                ? "st"
                       : ones == 2                ? "nd"
                       : ones == 3                ? "rd"
                                                  : "th";
  return std::to_string(n) + suffix;
}

// One rank's side of a call whose common arguments are said already.
std::string side(int rank, const CallWords &call, const std::vector<std::size_t> &differing) {
  std::string text = rank_text(rank) + " " + call.verb;
  if (differing.empty()) text += " it";
  for (std::size_t i = 0; i < differing.size(); ++i)
    text += (i ? ", " : " ") + argument(call.args[differing[i]]);
  if (!call.refused.empty()) text += ", which failed there: " + call.refused;
  return text;
}

bool same(const CallWords &a, const CallWords &b) {
  return a.call == b.call && a.args == b.args && a.refused == b.refused;
}

// Two versions of one call: the arguments they share, then each rank's own.
std::string contrast_call(int rank_a, const CallWords &a, int rank_b, const CallWords &b) {
  const bool comparable =
      a.call == b.call && a.args.size() == b.args.size() &&
      std::equal(a.args.begin(), a.args.end(), b.args.begin(),
                 [](const auto &x, const auto &y) { return x.first == y.first; });
  if (!comparable)
    return rank_text(rank_a) + ": " + render(a) + "; " + rank_text(rank_b) + ": " + render(b);
  std::string common;
  std::vector<std::size_t> differing;
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    if (a.args[i].second == b.args[i].second) {
      if (static_cast<int64_t>(i) < a.shared_named)
        common += (common.empty() ? " on " : ", ") + argument(a.args[i]);
    } else {
      differing.push_back(i);
    }
  }
  const bool refusal = !a.refused.empty() || !b.refused.empty();
  return a.call + common + ": " + side(rank_a, a, differing) + (refusal ? "; " : ", ") +
         side(rank_b, b, differing);
}

}  // namespace

std::string encode(const CallWords &call) {
  CallList list;
  list.total = 1;
  list.calls.push_back(call);
  return encode(list);
}

std::string encode(const CallList &list) {
  std::string out = kMagic;
  put(&out, list.what);
  put(&out, std::to_string(list.total));
  put(&out, std::to_string(list.calls.size()));
  for (const CallWords &call : list.calls) {
    put(&out, call.call);
    put(&out, call.verb);
    put(&out, call.refused);
    put(&out, std::to_string(call.shared_named));
    put(&out, std::to_string(call.args.size()));
    for (const auto &[name, value] : call.args) {
      put(&out, name);
      put(&out, value);
    }
  }
  return out;
}

bool decode(const std::string &text, CallList *list) {
  const std::size_t magic = sizeof(kMagic) - 1;
  if (text.compare(0, magic, kMagic) != 0) return false;
  std::size_t at = magic;
  int64_t ncalls = 0;
  CallList out;
  if (!get(text, &at, &out.what) || !get_count(text, &at, &out.total) ||
      !get_count(text, &at, &ncalls))
    return false;
  for (int64_t c = 0; c < ncalls; ++c) {
    CallWords call;
    int64_t nargs = 0;
    if (!get(text, &at, &call.call) || !get(text, &at, &call.verb) ||
        !get(text, &at, &call.refused) || !get_count(text, &at, &call.shared_named) ||
        !get_count(text, &at, &nargs))
      return false;
    for (int64_t i = 0; i < nargs; ++i) {
      std::pair<std::string, std::string> arg;
      if (!get(text, &at, &arg.first) || !get(text, &at, &arg.second)) return false;
      call.args.push_back(std::move(arg));
    }
    out.calls.push_back(std::move(call));
  }
  if (at != text.size()) return false;
  *list = std::move(out);
  return true;
}

std::string contrast(int rank_a, const std::string &a, int rank_b, const std::string &b) {
  CallList la, lb;
  const bool da = decode(a, &la), db = decode(b, &lb);
  if (!da || !db)
    return rank_text(rank_a) + ": " + (da ? render(la) : a) + "; " + rank_text(rank_b) + ": " +
           (db ? render(lb) : b);
  // One call each: the call itself.
  if (la.what.empty() && lb.what.empty() && la.calls.size() == 1 && lb.calls.size() == 1)
    return contrast_call(rank_a, la.calls.front(), rank_b, lb.calls.front());
  const std::string counts = rank_text(rank_a) + " made " + std::to_string(la.total) + ", " +
                             rank_text(rank_b) + " made " + std::to_string(lb.total);
  const std::string what = la.what.empty() ? lb.what : la.what;
  const std::size_t n = std::min(la.calls.size(), lb.calls.size());
  for (std::size_t i = 0; i < n; ++i)
    if (!same(la.calls[i], lb.calls[i]))
      return "the " + ordinal(static_cast<int64_t>(i) + 1) + " of the " + what + ": " +
             contrast_call(rank_a, la.calls[i], rank_b, lb.calls[i]) +
             (la.total == lb.total ? std::string() : " (" + counts + ")");
  // One sequence ends where the other goes on.
  if (la.calls.size() != lb.calls.size() &&
      (static_cast<int64_t>(n) == la.total || static_cast<int64_t>(n) == lb.total)) {
    const bool a_longer = la.calls.size() > n;
    const CallWords &extra = a_longer ? la.calls[n] : lb.calls[n];
    return "the " + what + ": " + counts + "; the " + ordinal(static_cast<int64_t>(n) + 1) +
           ", on " + rank_text(a_longer ? rank_a : rank_b) + " only: " + render(extra);
  }
  // The calls kept agree and the difference lies beyond them.
  if (static_cast<int64_t>(n) < std::max(la.total, lb.total))
    return "the " + what + ": " + counts + "; the first " + std::to_string(n) +
           " agree, a later one differs";
  return "the " + what + ": " + counts;
}

}  // namespace esmio
