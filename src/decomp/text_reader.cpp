#include "decomp/text_reader.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <limits>

#include "decomp/decomp_file_rules.hpp"

namespace esmio::decomp {

Status TextReader::open(const std::string &path, char comment) {
  path_ = path;
  comment_ = comment;
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) return Status(ESMIO_EIO, path + ": cannot open: " + std::strerror(errno));
  buf_.resize(1 << 16);
  return Status::ok();
}

TextReader::Kind TextReader::next() {
  if (pushed_back_) {
    pushed_back_ = false;
    return last_;
  }
  for (;;) {
    int c = get();
    if (c == EOF) return last_ = kEof;
    if (c == '\n') {
      token_line_ = line_++;
      return last_ = kEol;
    }
    if (is_space(c)) continue;
    if (comment_ && c == comment_) {
      while ((c = get()) != EOF && c != '\n') {
      }
      if (c == EOF) return last_ = kEof;
      token_line_ = line_++;
      return last_ = kEol;
    }
    token_line_ = line_;
    wlen_ = 0;
    cut_ = false;
    do {
      if (wlen_ < kMaxWord)
        word_[wlen_++] = static_cast<char>(c);
      else
        cut_ = true;
      c = get();
    } while (c != EOF && !is_space(c) && c != '\n');
    if (c != EOF) --pos_;  // the separator is seen again: a newline must end the line
    return last_ = kWord;
  }
}

std::string TextReader::quoted() const {
  std::string s = "'";
  for (char c : word().substr(0, 24)) s += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return s + (wlen_ > 24 || cut_ ? "...'" : "'");
}

int TextReader::get() {
  if (pos_ == len_) {
    if (!file_ || failed_) return EOF;
    len_ = std::fread(buf_.data(), 1, buf_.size(), file_);
    pos_ = 0;
    if (len_ == 0) {
      if (std::ferror(file_)) {
        failed_ = true;
        read_errno_ = errno;
      }
      return EOF;
    }
  }
  return static_cast<unsigned char>(buf_[pos_++]);
}

Status TextParser::error(int64_t line, const std::string &what) const {
  return Status(ESMIO_EDECOMP, in_->path() + ":" + std::to_string(line) + ": " + what);
}

Status TextParser::unexpected(TextReader::Kind k, const std::string &expected) const {
  if (k == TextReader::kEof) {
    if (in_->read_failed())
      return Status(ESMIO_EIO, in_->path() + ": read error: " + std::strerror(in_->read_errno()));
    return error(in_->line(), "file ends early: expected " + expected);
  }
  if (k == TextReader::kEol) return error(in_->line(), "line ends early: expected " + expected);
  return error(in_->line(), "expected " + expected + ", found " + in_->quoted());
}

Status TextParser::integer(int64_t *value, const char *what, bool free_form, int64_t proc) {
  TextReader::Kind k = free_form ? in_->next_skipping_eol() : in_->next();
  if (k == TextReader::kWord && in_->integer(value)) return Status::ok();
  return unexpected(k, what + (proc >= 0 ? " of process " + std::to_string(proc) : ""));
}

Status TextParser::keyword(const char *word, bool free_form) {
  TextReader::Kind k = free_form ? in_->next_skipping_eol() : in_->next();
  if (k != TextReader::kWord || in_->word() != word)
    return unexpected(k, std::string("'") + word + "'");
  return Status::ok();
}

Status TextParser::end_of_line(const std::string &after) {
  TextReader::Kind k = in_->next();
  if (k == TextReader::kWord)
    return error(in_->line(), "unexpected " + in_->quoted() + " after " + after);
  return Status::ok();
}

Status TextParser::dims(int64_t ndims, bool free_form, bool reverse, std::vector<int64_t> *dims,
                        int64_t *gsize) {
  dims->assign(static_cast<std::size_t>(ndims), 0);
  for (int64_t i = 0; i < ndims; ++i) {
    int64_t d = 0;
    ESMIO_RETURN_IF_ERROR(integer(&d, "a dimension length", free_form));
    if (d < 1)
      return error(in_->line(), "dimension length " + std::to_string(d) + " is not positive");
    (*dims)[static_cast<std::size_t>(reverse ? ndims - 1 - i : i)] = d;
  }
  *gsize = checked_product(*dims);
  if (*gsize < 0)
    return error(in_->line(), "global size " + dims_text(*dims) + " overflows 64 bits");
  return Status::ok();
}

Status TextParser::ndims(int64_t *ndims, bool free_form) {
  ESMIO_RETURN_IF_ERROR(integer(ndims, "the number of dimensions", free_form));
  if (*ndims < 1 || *ndims > ESMIO_MAX_DIMS)
    return error(in_->line(), "ndims " + std::to_string(*ndims) + " is not within 1.." +
                                  std::to_string(ESMIO_MAX_DIMS));
  return Status::ok();
}

Status TextParser::nprocs(int64_t *nprocs, bool free_form) {
  ESMIO_RETURN_IF_ERROR(integer(nprocs, "the number of processes", free_form));
  if (*nprocs < 1 || *nprocs > std::numeric_limits<int>::max())
    return error(in_->line(),
                 "number of processes " + std::to_string(*nprocs) + " is not within 1..2^31-1");
  return Status::ok();
}

}  // namespace esmio::decomp
