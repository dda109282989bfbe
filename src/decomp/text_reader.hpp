// The token reader under the two text formats of decomposition files (PIO's and esmio's):
// whitespace-separated tokens, line by line, through a fixed buffer, and the parsing helpers
// both formats share. Every error names the file and the line.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"
#include "common/text.hpp"

namespace esmio::decomp {

// Whitespace-separated tokens, line by line, through a fixed buffer: memory does not grow
// with the length of a line, so a rank skipping other processes' pieces holds nothing of them.
class TextReader {
 public:
  enum Kind { kWord, kEol, kEof };

  ~TextReader() {
    if (file_) std::fclose(file_);
  }

  Status open(const std::string &path, char comment);

  // A token longer than kMaxWord keeps its first kMaxWord characters; no number is that long.
  Kind next();
  void push_back() { pushed_back_ = true; }

  // Skips line ends; returns the kind of the first token after them.
  Kind next_skipping_eol() {
    Kind k;
    while ((k = next()) == kEol) {
    }
    return k;
  }

  std::string_view word() const { return std::string_view(word_, wlen_); }
  // The token as an integer; a token cut to kMaxWord never is one, whatever its prefix says.
  bool integer(int64_t *value) const { return !cut_ && parse_int64(word(), value); }
  int64_t line() const { return last_ == kEof ? line_ : token_line_; }
  bool read_failed() const { return failed_; }
  int read_errno() const { return read_errno_; }
  const std::string &path() const { return path_; }

  // For messages: the token, cut to a printable length.
  std::string quoted() const;

 private:
  static constexpr std::size_t kMaxWord = 40;

  static bool is_space(int c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
  }

  int get();

  std::string path_;
  std::FILE *file_ = nullptr;
  std::vector<char> buf_;
  std::size_t pos_ = 0, len_ = 0;
  int64_t line_ = 1, token_line_ = 1;
  char word_[kMaxWord];
  std::size_t wlen_ = 0;
  char comment_ = 0;
  bool failed_ = false, pushed_back_ = false, cut_ = false;
  int read_errno_ = 0;
  Kind last_ = kEol;
};

// Parsing helpers shared by the two text formats; every error names file and line.
class TextParser {
 public:
  explicit TextParser(TextReader *in) : in_(in) {}

  Status error(int64_t line, const std::string &what) const;

  // The token just read was not what we wanted (kind k).
  Status unexpected(TextReader::Kind k, const std::string &expected) const;

  // An integer; on the current line, or anywhere after line ends (free-form). what (and the
  // process, if proc >= 0) are only turned into text for an error: this runs once per token.
  Status integer(int64_t *value, const char *what, bool free_form, int64_t proc = -1);

  Status keyword(const char *word, bool free_form);

  // Nothing more on the current line.
  Status end_of_line(const std::string &after);

  Status dims(int64_t ndims, bool free_form, bool reverse, std::vector<int64_t> *dims,
              int64_t *gsize);

  Status ndims(int64_t *ndims, bool free_form);

  Status nprocs(int64_t *nprocs, bool free_form);

 private:
  TextReader *in_;
};

}  // namespace esmio::decomp
