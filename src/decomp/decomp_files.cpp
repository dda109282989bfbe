#include "decomp/decomp_files.hpp"

#include <netcdf.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <new>
#include <string_view>

namespace esmio::decomp {

namespace {

constexpr int kPioVersion = 2001;
constexpr int kEsmioVersion = 1;
constexpr const char *kEsmioMagic = "esmio-decomp";
// A hole allowance that does not shrink to nothing for tiny arrays (halo slots, say).
constexpr int64_t kMinHoleLimit = int64_t(1) << 20;
// Elements per message when ranks send their pieces to rank 0: bounds rank 0's buffer.
constexpr int64_t kSaveChunk = int64_t(1) << 16;

std::string lower(std::string s) {
  for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool parse_int64(std::string_view text, int64_t *value) {
  if (text.empty()) return false;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && ptr == end;
}

// Product of dims, or -1 on overflow.
int64_t checked_product(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d <= 0) return -1;
    if (n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

int64_t hole_limit(int64_t gsize) { return std::max(gsize, kMinHoleLimit); }

// Most elements (offsets and holes) one process may hold in the esmio format; saturates, since
// prod(dims) may be close to 2^63.
int64_t max_nlocal(int64_t gsize) {
  const int64_t holes = hole_limit(gsize);
  return gsize > std::numeric_limits<int64_t>::max() - holes ? std::numeric_limits<int64_t>::max()
                                                             : gsize + holes;
}

std::string dims_text(const std::vector<int64_t> &dims) {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

Status check_rank(const std::string &path, int rank, int nranks) {
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return Status(ESMIO_EINVAL, path + ": bad reader rank " + std::to_string(rank) + " of " +
                                    std::to_string(nranks));
  return Status::ok();
}

// Last process of a P-process file that rank reads on nranks ranks, or -1 if none.
int64_t last_own_process(int64_t nprocs, int rank, int nranks) {
  if (rank >= nprocs) return -1;
  return rank + (nprocs - 1 - rank) / nranks * nranks;
}

// ---- text input --------------------------------------------------------------------------

// Whitespace-separated tokens, line by line, through a fixed buffer: memory does not grow
// with the length of a line, so a rank skipping other processes' pieces holds nothing of them.
class TextReader {
 public:
  enum Kind { kWord, kEol, kEof };

  ~TextReader() {
    if (file_) std::fclose(file_);
  }

  Status open(const std::string &path, char comment) {
    path_ = path;
    comment_ = comment;
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) return Status(ESMIO_EIO, path + ": cannot open: " + std::strerror(errno));
    buf_.resize(1 << 16);
    return Status::ok();
  }

  // A token longer than kMaxWord keeps its first kMaxWord characters; no number is that long.
  Kind next() {
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
  std::string quoted() const {
    std::string s = "'";
    for (char c : word().substr(0, 24)) s += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
    return s + (wlen_ > 24 || cut_ ? "...'" : "'");
  }

 private:
  static constexpr std::size_t kMaxWord = 40;

  static bool is_space(int c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
  }

  int get() {
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

  Status error(int64_t line, const std::string &what) const {
    return Status(ESMIO_EDECOMP, in_->path() + ":" + std::to_string(line) + ": " + what);
  }

  // The token just read was not what we wanted (kind k).
  Status unexpected(TextReader::Kind k, const std::string &expected) const {
    if (k == TextReader::kEof) {
      if (in_->read_failed())
        return Status(ESMIO_EIO, in_->path() + ": read error: " + std::strerror(in_->read_errno()));
      return error(in_->line(), "file ends early: expected " + expected);
    }
    if (k == TextReader::kEol) return error(in_->line(), "line ends early: expected " + expected);
    return error(in_->line(), "expected " + expected + ", found " + in_->quoted());
  }

  // An integer; on the current line, or anywhere after line ends (free-form). what (and the
  // process, if proc >= 0) are only turned into text for an error: this runs once per token.
  Status integer(int64_t *value, const char *what, bool free_form, int64_t proc = -1) {
    TextReader::Kind k = free_form ? in_->next_skipping_eol() : in_->next();
    if (k == TextReader::kWord && in_->integer(value)) return Status::ok();
    return unexpected(k, what + (proc >= 0 ? " of process " + std::to_string(proc) : ""));
  }

  Status keyword(const char *word, bool free_form) {
    TextReader::Kind k = free_form ? in_->next_skipping_eol() : in_->next();
    if (k != TextReader::kWord || in_->word() != word)
      return unexpected(k, std::string("'") + word + "'");
    return Status::ok();
  }

  // Nothing more on the current line.
  Status end_of_line(const std::string &after) {
    TextReader::Kind k = in_->next();
    if (k == TextReader::kWord)
      return error(in_->line(), "unexpected " + in_->quoted() + " after " + after);
    return Status::ok();
  }

  Status dims(int64_t ndims, bool free_form, bool reverse, std::vector<int64_t> *dims,
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

  Status ndims(int64_t *ndims, bool free_form) {
    ESMIO_RETURN_IF_ERROR(integer(ndims, "the number of dimensions", free_form));
    if (*ndims < 1 || *ndims > ESMIO_MAX_DIMS)
      return error(in_->line(), "ndims " + std::to_string(*ndims) + " is not within 1.." +
                                    std::to_string(ESMIO_MAX_DIMS));
    return Status::ok();
  }

  Status nprocs(int64_t *nprocs, bool free_form) {
    ESMIO_RETURN_IF_ERROR(integer(nprocs, "the number of processes", free_form));
    if (*nprocs < 1 || *nprocs > std::numeric_limits<int>::max())
      return error(in_->line(),
                   "number of processes " + std::to_string(*nprocs) + " is not within 1..2^31-1");
    return Status::ok();
  }

 private:
  TextReader *in_;
};

Status load_pio_impl(const std::string &path, int rank, int nranks, LoadedDecomp *out) {
  TextReader in;
  ESMIO_RETURN_IF_ERROR(in.open(path, 0));
  TextParser p(&in);

  TextReader::Kind k = in.next_skipping_eol();
  if (k != TextReader::kWord || in.word() != "version")
    return p.unexpected(k, "a PIO decomposition header 'version 2001 npes <P> ndims <D>'");
  int64_t version = 0, nprocs = 0, ndims = 0;
  ESMIO_RETURN_IF_ERROR(p.integer(&version, "the PIO version number", false));
  if (version != kPioVersion && version != 2000)
    return p.error(in.line(), "PIO decomposition version " + std::to_string(version) +
                                  " is not supported (expected 2001)");
  ESMIO_RETURN_IF_ERROR(p.keyword("npes", false));
  ESMIO_RETURN_IF_ERROR(p.nprocs(&nprocs, false));
  ESMIO_RETURN_IF_ERROR(p.keyword("ndims", false));
  ESMIO_RETURN_IF_ERROR(p.ndims(&ndims, false));
  ESMIO_RETURN_IF_ERROR(p.end_of_line("the header"));

  // Dimensions on the next nonblank line, Fortran order.
  if ((k = in.next_skipping_eol()) != TextReader::kWord) return p.unexpected(k, "the dims line");
  in.push_back();
  int64_t gsize = 0;
  ESMIO_RETURN_IF_ERROR(p.dims(ndims, false, true, &out->dims, &gsize));
  ESMIO_RETURN_IF_ERROR(p.end_of_line(std::to_string(ndims) + " dimension lengths"));
  out->file_nprocs = nprocs;

  const int64_t last = last_own_process(nprocs, rank, nranks);
  for (int64_t task = 0; task <= last; ++task) {
    const std::string header = "header '" + std::to_string(task) + " <count>' of task " +
                               std::to_string(task) + " of " + std::to_string(nprocs);
    if ((k = in.next_skipping_eol()) != TextReader::kWord) return p.unexpected(k, header);
    int64_t id = 0, count = 0;
    if (!in.integer(&id) || id != task) return p.unexpected(k, header);
    ESMIO_RETURN_IF_ERROR(p.integer(&count, "the offset count", false, task));
    if (count < 0)
      return p.error(in.line(), "task " + std::to_string(task) + " has a negative count " +
                                    std::to_string(count));
    ESMIO_RETURN_IF_ERROR(p.end_of_line("the header of task " + std::to_string(task)));
    if (count == 0) continue;  // PIO writes an empty line, which the next header skips

    const bool own = task % nranks == rank;
    const int64_t header_line = in.line();
    if ((k = in.next_skipping_eol()) != TextReader::kWord)
      return p.unexpected(k, "the " + std::to_string(count) + " offsets of task " +
                                 std::to_string(task) + " (header on line " +
                                 std::to_string(header_line) + ")");
    in.push_back();
    const int64_t line = in.line();
    int64_t seen = 0;
    while ((k = in.next()) == TextReader::kWord) {
      int64_t v = 0;
      if (!in.integer(&v))
        return p.error(line, "task " + std::to_string(task) + ": offset " +
                                 std::to_string(seen + 1) + " is not an integer: " + in.quoted());
      if (v < 0 || v > gsize)
        return p.error(line, "task " + std::to_string(task) + ": offset " + std::to_string(v) +
                                 " is out of range 0.." + std::to_string(gsize) +
                                 " (1-based, 0 = hole) for dims " + dims_text(out->dims));
      if (++seen > count)
        return p.error(line, "task " + std::to_string(task) + " declares " + std::to_string(count) +
                                 " offsets but its line holds more");
      if (own) out->offsets.push_back(v - 1);  // 0 (hole) becomes -1
    }
    if (k == TextReader::kEof && in.read_failed()) return p.unexpected(k, "");
    if (seen < count)
      return p.error(line, "task " + std::to_string(task) + " declares " + std::to_string(count) +
                               " offsets but its line holds " + std::to_string(seen) +
                               (k == TextReader::kEof ? " (file ends)" : ""));
  }
  return Status::ok();
}

Status load_esmio_impl(const std::string &path, int rank, int nranks, LoadedDecomp *out) {
  TextReader in;
  ESMIO_RETURN_IF_ERROR(in.open(path, '#'));
  TextParser p(&in);

  TextReader::Kind k = in.next_skipping_eol();
  if (k != TextReader::kWord || in.word() != kEsmioMagic)
    return p.unexpected(k, std::string("the esmio decomposition header '") + kEsmioMagic + " " +
                               std::to_string(kEsmioVersion) + "'");
  int64_t version = 0, ndims = 0, nprocs = 0, gsize = 0;
  ESMIO_RETURN_IF_ERROR(p.integer(&version, "the format version", true));
  if (version != kEsmioVersion)
    return p.error(in.line(), "esmio decomposition format version " + std::to_string(version) +
                                  " is not supported (expected " + std::to_string(kEsmioVersion) +
                                  ")");
  ESMIO_RETURN_IF_ERROR(p.keyword("ndims", true));
  ESMIO_RETURN_IF_ERROR(p.ndims(&ndims, true));
  ESMIO_RETURN_IF_ERROR(p.keyword("dims", true));
  ESMIO_RETURN_IF_ERROR(p.dims(ndims, true, false, &out->dims, &gsize));
  ESMIO_RETURN_IF_ERROR(p.keyword("nprocs", true));
  ESMIO_RETURN_IF_ERROR(p.nprocs(&nprocs, true));
  out->file_nprocs = nprocs;

  const int64_t max_holes = hole_limit(gsize);
  const int64_t last = last_own_process(nprocs, rank, nranks);
  for (int64_t proc = 0; proc <= last; ++proc) {
    ESMIO_RETURN_IF_ERROR(p.keyword("proc", true));
    int64_t id = 0, nlocal = 0;
    ESMIO_RETURN_IF_ERROR(p.integer(&id, "a process number after 'proc'", true));
    if (id != proc)
      return p.error(in.line(), "expected 'proc " + std::to_string(proc) + "', found 'proc " +
                                    std::to_string(id) + "'");
    const std::string who = "process " + std::to_string(proc);
    ESMIO_RETURN_IF_ERROR(p.integer(&nlocal, "the element count", true, proc));
    if (nlocal < 0 || nlocal > max_nlocal(gsize))
      return p.error(in.line(), who + ": element count " + std::to_string(nlocal) +
                                    " is not within 0.." + std::to_string(max_nlocal(gsize)) +
                                    " (global size plus the hole allowance)");
    const bool own = proc % nranks == rank;
    int64_t covered = 0, data = 0, holes = 0;
    while (covered < nlocal) {
      int64_t begin = 0, length = 0;
      ESMIO_RETURN_IF_ERROR(p.integer(&begin, "the begin of a run", true, proc));
      ESMIO_RETURN_IF_ERROR(p.integer(&length, "the length of a run", true, proc));
      auto run = [&] {
        return who + ": run " + std::to_string(begin) + " " + std::to_string(length);
      };
      if (length < 1 || length > nlocal - covered)
        return p.error(in.line(),
                       run() + ": length is not within 1.." + std::to_string(nlocal - covered) +
                           " (what remains of the element count " + std::to_string(nlocal) + ")");
      if (begin == -1) {
        holes += length;
        if (holes > max_holes)
          return p.error(in.line(), run() + ": more than " + std::to_string(max_holes) + " holes");
      } else if (begin < 0 || begin >= gsize || length > gsize - begin) {
        return p.error(in.line(), run() + ": offsets out of range 0.." + std::to_string(gsize - 1) +
                                      " for dims " + dims_text(out->dims));
      } else {
        data += length;
        if (data > gsize)
          return p.error(in.line(),
                         run() + ": more offsets than the global size " + std::to_string(gsize));
      }
      if (own) {
        if (begin == -1)
          out->offsets.insert(out->offsets.end(), static_cast<std::size_t>(length), -1);
        else
          for (int64_t i = 0; i < length; ++i) out->offsets.push_back(begin + i);
      }
      covered += length;
    }
  }
  if (last == nprocs - 1) ESMIO_RETURN_IF_ERROR(p.keyword("end", true));
  return Status::ok();
}

// ---- E3SM-IO map files -----------------------------------------------------------------------

struct KnownMap {
  const char *file;
  int decomp;
  std::vector<int64_t> dims;
};

// The maps shipped with the E3SM-IO benchmark (tests/data/e3sm/README.md), for copies whose
// Dk.dims attributes were stripped.
const std::vector<KnownMap> &known_maps() {
  static const std::vector<KnownMap> table = {
      {"map_f_case_16p.nc", 1, {866}},         {"map_f_case_16p.nc", 2, {866}},
      {"map_f_case_16p.nc", 3, {72, 866}},     {"map_i_case_16p.nc", 1, {96, 144}},
      {"map_i_case_16p.nc", 2, {15, 96, 144}}, {"map_i_case_16p.nc", 3, {10, 96, 144}},
      {"map_i_case_16p.nc", 4, {9, 96, 144}},  {"map_i_case_16p.nc", 5, {17, 96, 144}},
  };
  return table;
}

struct E3smSpec {
  std::string name;  // "D3"
  int decomp = 0;
  std::vector<int64_t> dims;  // empty: from the file
  bool runs = false;          // ":runs": expand offsets/lengths even when raw_offsets exist
  bool fill = false;          // ":fill": the fill requests instead of the data
};

Status parse_e3sm_spec(const std::string &path, const std::string &spec, E3smSpec *out) {
  const std::string format = "format 'e3sm:" + spec + "'";
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    std::size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  int64_t k = 0;
  const std::string &name = parts[0];
  if (name.size() < 2 || (name[0] != 'D' && name[0] != 'd') ||
      !parse_int64(std::string_view(name).substr(1), &k) || k < 1 || k > 1000000)
    return Status(ESMIO_EINVAL, path + ": " + format + ": unknown decomposition name '" + name +
                                    "' (expected D1, D2, ...)");
  out->decomp = static_cast<int>(k);
  out->name = "D" + std::to_string(k);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string &part = parts[i];
    if (lower(part) == "runs" && !out->runs) {
      out->runs = true;
      continue;
    }
    if (lower(part) == "fill" && !out->fill) {
      out->fill = true;
      continue;
    }
    if (!out->dims.empty() || part.empty())
      return Status(ESMIO_EINVAL, path + ": " + format + ": unexpected '" + part + "'");
    std::size_t b = 0;
    for (;;) {
      std::size_t x = part.find_first_of("xX", b);
      int64_t d = 0;
      if (!parse_int64(std::string_view(part).substr(b, x == std::string::npos ? x : x - b), &d) ||
          d < 1)
        return Status(ESMIO_EINVAL, path + ": " + format + ": bad dims '" + part +
                                        "' (expected positive lengths like 72x866, C order)");
      out->dims.push_back(d);
      if (x == std::string::npos) break;
      b = x + 1;
    }
    if (out->dims.size() > ESMIO_MAX_DIMS || checked_product(out->dims) < 0)
      return Status(ESMIO_EINVAL, path + ": " + format + ": dims '" + part +
                                      "' have too many dimensions or overflow 64 bits");
  }
  return Status::ok();
}

class NcFile {
 public:
  ~NcFile() {
    if (ncid_ >= 0) nc_close(ncid_);
  }

  Status open(const std::string &path) {
    path_ = path;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0)
      return Status(ESMIO_EIO, path + ": cannot open: " + std::strerror(errno));
    file_size_ = static_cast<int64_t>(st.st_size);
    int ncid = -1;
    int err = nc_open(path.c_str(), NC_NOWRITE, &ncid);
    if (err != NC_NOERR)
      return Status(err == NC_ENOTNC ? ESMIO_ENOTNC : ESMIO_EIO,
                    path + ": cannot open as netCDF: " + nc_strerror(err));
    ncid_ = ncid;
    int format = 0;
    if (nc_inq_format(ncid_, &format) == NC_NOERR)
      classic_ = format == NC_FORMAT_CLASSIC || format == NC_FORMAT_64BIT_OFFSET ||
                 format == NC_FORMAT_CDF5;
    return Status::ok();
  }

  int id() const { return ncid_; }
  const std::string &path() const { return path_; }

  bool has_var(const std::string &name) const {
    int varid = 0;
    return nc_inq_varid(ncid_, name.c_str(), &varid) == NC_NOERR;
  }

  Status error(const std::string &var, const std::string &what) const {
    return Status(ESMIO_EDECOMP, path_ + ": variable " + var + ": " + what);
  }

  // A one-dimensional integer variable: its id and length.
  Status int_var(const std::string &name, int *varid, int64_t *len) const {
    int err = nc_inq_varid(ncid_, name.c_str(), varid);
    if (err != NC_NOERR) return error(name, std::string("missing: ") + nc_strerror(err));
    int ndims = 0, dimid = 0;
    nc_type type = NC_NAT;
    if ((err = nc_inq_varndims(ncid_, *varid, &ndims)) != NC_NOERR)
      return error(name, nc_strerror(err));
    if (ndims != 1) return error(name, "has " + std::to_string(ndims) + " dimensions, expected 1");
    if ((err = nc_inq_vartype(ncid_, *varid, &type)) != NC_NOERR ||
        (err = nc_inq_vardimid(ncid_, *varid, &dimid)) != NC_NOERR)
      return error(name, nc_strerror(err));
    switch (type) {
      case NC_BYTE:
      case NC_SHORT:
      case NC_INT:
      case NC_INT64:
      case NC_UBYTE:
      case NC_USHORT:
      case NC_UINT:
        break;
      default:
        return error(name, "has type " + std::to_string(type) + ", not an integer type");
    }
    std::size_t n = 0, size = 1;
    if ((err = nc_inq_dimlen(ncid_, dimid, &n)) != NC_NOERR ||
        (err = nc_inq_type(ncid_, type, nullptr, &size)) != NC_NOERR)
      return error(name, nc_strerror(err));
    *len = static_cast<int64_t>(n);
    // In the classic formats a fixed variable's values are all in the file, so a corrupt
    // length is caught here instead of by a huge allocation below.
    if (*len < 0 || (classic_ && *len > file_size_ / static_cast<int64_t>(size)))
      return error(name, std::to_string(*len) + " values do not fit in the file's " +
                             std::to_string(file_size_) + " bytes");
    return Status::ok();
  }

  Status read(const std::string &name, int varid, int64_t start, int64_t count,
              std::vector<long long> *values) const {
    values->assign(static_cast<std::size_t>(count), 0);
    if (count == 0) return Status::ok();
    const std::size_t s = static_cast<std::size_t>(start), c = static_cast<std::size_t>(count);
    int err = nc_get_vara_longlong(ncid_, varid, &s, &c, values->data());
    if (err != NC_NOERR)
      return Status(ESMIO_EIO, path_ + ": variable " + name + ": reading [" +
                                   std::to_string(start) + ", " + std::to_string(start + count) +
                                   "): " + nc_strerror(err));
    return Status::ok();
  }

  // Reads a per-process count variable (length nprocs) and returns each process's start in the
  // variable it indexes (whose length is data_len), checking that the counts tile it exactly.
  Status counts(const std::string &name, int64_t nprocs, const std::string &data_name,
                int64_t data_len, std::vector<long long> *count, std::vector<int64_t> *first) {
    int varid = 0;
    int64_t len = 0;
    ESMIO_RETURN_IF_ERROR(int_var(name, &varid, &len));
    if (len != nprocs)
      return error(name, "has " + std::to_string(len) + " entries, expected one per process (" +
                             std::to_string(nprocs) + ")");
    ESMIO_RETURN_IF_ERROR(read(name, varid, 0, nprocs, count));
    first->assign(static_cast<std::size_t>(nprocs), 0);
    int64_t sum = 0;
    for (int64_t p = 0; p < nprocs; ++p) {
      const long long c = (*count)[static_cast<std::size_t>(p)];
      if (c < 0 || c > data_len - sum)
        return error(name, "process " + std::to_string(p) + ": count " + std::to_string(c) +
                               " is negative or runs past the end of " + data_name + " (" +
                               std::to_string(data_len) + " entries)");
      (*first)[static_cast<std::size_t>(p)] = sum;
      sum += c;
    }
    if (sum != data_len)
      return error(name, "counts sum to " + std::to_string(sum) + " but " + data_name + " has " +
                             std::to_string(data_len) + " entries");
    return Status::ok();
  }

 private:
  std::string path_;
  int ncid_ = -1;
  int64_t file_size_ = 0;
  bool classic_ = false;
};

Status e3sm_dims(const NcFile &nc, const E3smSpec &spec, const std::string &format,
                 std::vector<int64_t> *dims) {
  const std::string att = spec.name + ".dims";
  nc_type type = NC_NAT;
  std::size_t len = 0;
  std::vector<int64_t> stored;
  if (nc_inq_att(nc.id(), NC_GLOBAL, att.c_str(), &type, &len) == NC_NOERR) {
    if (len < 1 || len > ESMIO_MAX_DIMS || type == NC_CHAR || type == NC_STRING ||
        type == NC_FLOAT || type == NC_DOUBLE)
      return Status(ESMIO_EDECOMP, nc.path() + ": attribute " + att + " is not a list of 1.." +
                                       std::to_string(ESMIO_MAX_DIMS) + " integers");
    std::vector<long long> values(len);
    int err = nc_get_att_longlong(nc.id(), NC_GLOBAL, att.c_str(), values.data());
    if (err != NC_NOERR)
      return Status(ESMIO_EDECOMP, nc.path() + ": attribute " + att + ": " + nc_strerror(err));
    stored.assign(values.begin(), values.end());
    if (checked_product(stored) < 0)
      return Status(ESMIO_EDECOMP, nc.path() + ": attribute " + att + " = " + dims_text(stored) +
                                       ": lengths must be positive and their product fit 64 bits");
    const std::string ndims_att = spec.name + ".ndims";
    std::size_t ndims_len = 0;
    int ndims = static_cast<int>(len);
    if (nc_inq_attlen(nc.id(), NC_GLOBAL, ndims_att.c_str(), &ndims_len) == NC_NOERR &&
        (ndims_len != 1 ||
         nc_get_att_int(nc.id(), NC_GLOBAL, ndims_att.c_str(), &ndims) != NC_NOERR ||
         ndims != static_cast<int>(len)))
      return Status(ESMIO_EDECOMP, nc.path() + ": attribute " + ndims_att +
                                       " is not the single value " + std::to_string(len) +
                                       " that " + att + " = " + dims_text(stored) + " implies");
  }
  if (!spec.dims.empty()) {
    if (!stored.empty() && stored != spec.dims)
      return Status(ESMIO_EINVAL, nc.path() + ": " + format + " gives dims " +
                                      dims_text(spec.dims) + " but the file stores " + att + " = " +
                                      dims_text(stored));
    *dims = spec.dims;
    return Status::ok();
  }
  if (!stored.empty()) {
    *dims = stored;
    return Status::ok();
  }
  const std::string &path = nc.path();
  const std::size_t slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  for (const KnownMap &m : known_maps())
    if (base == m.file && spec.decomp == m.decomp) {
      *dims = m.dims;
      return Status::ok();
    }
  return Status(ESMIO_EINVAL, path + ": the file does not store the global dims of " + spec.name +
                                  " (attribute " + att + "); give them in the format, e.g. 'e3sm:" +
                                  spec.name + ":72x866' (C order)");
}

// What every reader of decomposition Dk needs: the open file, the number of processes and the
// global dims.
struct E3smDecomp {
  E3smSpec spec;
  std::string format;  // for messages
  NcFile nc;
  int64_t nprocs = 0;
  std::vector<int64_t> dims;
  int64_t gsize = 0;
};

Status open_e3sm(const std::string &path, const std::string &spec_text, E3smDecomp *d) {
  ESMIO_RETURN_IF_ERROR(parse_e3sm_spec(path, spec_text, &d->spec));
  d->format = "format 'e3sm:" + spec_text + "'";
  ESMIO_RETURN_IF_ERROR(d->nc.open(path));
  const std::string nreqs_name = d->spec.name + ".nreqs";
  if (!d->nc.has_var(nreqs_name)) {
    std::string have;
    int dimid = 0;
    std::size_t num = 0;
    if (nc_inq_dimid(d->nc.id(), "num_decomp", &dimid) == NC_NOERR &&
        nc_inq_dimlen(d->nc.id(), dimid, &num) == NC_NOERR)
      have = "; the file has num_decomp = " + std::to_string(num);
    return Status(ESMIO_EINVAL, path + ": " + d->format + ": no decomposition " + d->spec.name +
                                    " in the file (no variable " + nreqs_name + have + ")");
  }
  int varid = 0;
  ESMIO_RETURN_IF_ERROR(d->nc.int_var(nreqs_name, &varid, &d->nprocs));
  if (d->nprocs < 1 || d->nprocs > std::numeric_limits<int>::max())
    return d->nc.error(nreqs_name, "the number of processes " + std::to_string(d->nprocs) +
                                       " is not within 1..2^31-1");
  ESMIO_RETURN_IF_ERROR(e3sm_dims(d->nc, d->spec, d->format, &d->dims));
  d->gsize = checked_product(d->dims);
  return Status::ok();
}

// Dk.nreqs with each process's first request, and Dk.fill_starts (all of a process's requests
// are data when the variable is absent), checked against each other.
Status e3sm_requests(E3smDecomp &d, std::vector<long long> *nreqs, std::vector<int64_t> *first,
                     std::vector<long long> *fill_starts, int64_t *total) {
  const std::string &k = d.spec.name;
  int varid = 0;
  ESMIO_RETURN_IF_ERROR(d.nc.int_var(k + ".offsets", &varid, total));
  ESMIO_RETURN_IF_ERROR(d.nc.counts(k + ".nreqs", d.nprocs, k + ".offsets", *total, nreqs, first));
  *fill_starts = *nreqs;
  const std::string fill_name = k + ".fill_starts";
  if (d.nc.has_var(fill_name)) {
    int64_t len = 0;
    ESMIO_RETURN_IF_ERROR(d.nc.int_var(fill_name, &varid, &len));
    if (len != d.nprocs)
      return d.nc.error(fill_name, "has " + std::to_string(len) +
                                       " entries, expected one per process (" +
                                       std::to_string(d.nprocs) + ")");
    ESMIO_RETURN_IF_ERROR(d.nc.read(fill_name, varid, 0, d.nprocs, fill_starts));
    for (int64_t p = 0; p < d.nprocs; ++p) {
      const long long f = (*fill_starts)[p], n = (*nreqs)[p];
      if (f < 0 || f > n)
        return d.nc.error(fill_name, "process " + std::to_string(p) + ": " + std::to_string(f) +
                                         " is not within 0.." + std::to_string(n) + " (" + k +
                                         ".nreqs)");
    }
  }
  return Status::ok();
}

Status load_e3sm_impl(const std::string &path, const std::string &spec_text, int rank, int nranks,
                      LoadedDecomp *out) {
  E3smDecomp d;
  ESMIO_RETURN_IF_ERROR(open_e3sm(path, spec_text, &d));
  const NcFile &nc = d.nc;
  const std::string &k = d.spec.name;
  const int64_t gsize = d.gsize;
  out->dims = d.dims;
  out->file_nprocs = d.nprocs;
  const int64_t last = last_own_process(d.nprocs, rank, nranks);

  const std::string raw_counts = k + ".raw_nreqs", raw_name = k + ".raw_offsets";
  std::vector<long long> count, values, lengths;
  std::vector<int64_t> first;
  if (!d.spec.runs && !d.spec.fill && nc.has_var(raw_counts) && nc.has_var(raw_name)) {
    int raw_id = 0;
    int64_t raw_len = 0;
    ESMIO_RETURN_IF_ERROR(nc.int_var(raw_name, &raw_id, &raw_len));
    ESMIO_RETURN_IF_ERROR(d.nc.counts(raw_counts, d.nprocs, raw_name, raw_len, &count, &first));
    for (int64_t p = rank; p <= last; p += nranks) {
      ESMIO_RETURN_IF_ERROR(nc.read(raw_name, raw_id, first[p], count[p], &values));
      for (std::size_t i = 0; i < values.size(); ++i) {
        const long long v = values[i];
        // 1-based like the PIO maps they were converted from, holes dropped; a 0 is what
        // netCDF-C returns for the missing tail of a truncated classic file.
        if (v < 1 || v > gsize)
          return nc.error(raw_name, "entry " + std::to_string(first[p] + int64_t(i)) +
                                        " (process " + std::to_string(p) +
                                        ") = " + std::to_string(v) + " is out of range 1.." +
                                        std::to_string(gsize) + " (1-based) for dims " +
                                        dims_text(out->dims) +
                                        (v == 0 ? "; is the file truncated?" : ""));
        out->offsets.push_back(v - 1);
      }
    }
    return Status::ok();
  }

  // Runs: requests [0, fill_starts[p]) of process p are its data, the rest its fill requests.
  const std::string off_name = k + ".offsets", len_name = k + ".lengths";
  int off_id = 0, len_id = 0;
  int64_t off_len = 0, len_len = 0;
  std::vector<long long> fill_starts;
  ESMIO_RETURN_IF_ERROR(e3sm_requests(d, &count, &first, &fill_starts, &off_len));
  ESMIO_RETURN_IF_ERROR(nc.int_var(off_name, &off_id, &off_len));
  ESMIO_RETURN_IF_ERROR(nc.int_var(len_name, &len_id, &len_len));
  if (off_len != len_len)
    return nc.error(len_name, "has " + std::to_string(len_len) + " entries but " + off_name +
                                  " has " + std::to_string(off_len));
  for (int64_t p = rank; p <= last; p += nranks) {
    const int64_t begin = first[p] + (d.spec.fill ? fill_starts[p] : 0);
    const int64_t n = d.spec.fill ? count[p] - fill_starts[p] : fill_starts[p];
    ESMIO_RETURN_IF_ERROR(nc.read(off_name, off_id, begin, n, &values));
    ESMIO_RETURN_IF_ERROR(nc.read(len_name, len_id, begin, n, &lengths));
    int64_t held = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const long long b = values[i], len = lengths[i];
      if (b < 0 || len < 1 || b >= gsize || len > gsize - b)
        return nc.error(off_name, "request " + std::to_string(begin + int64_t(i)) + " (process " +
                                      std::to_string(p) + ") = offset " + std::to_string(b) +
                                      " length " + std::to_string(len) +
                                      " is out of range for dims " + dims_text(out->dims));
      held += len;
      if (held > gsize)
        return nc.error(len_name, "process " + std::to_string(p) +
                                      ": requests cover more than the global size " +
                                      std::to_string(gsize));
      for (long long j = 0; j < len; ++j) out->offsets.push_back(b + j);
    }
  }
  return Status::ok();
}

Status inq_e3sm_impl(const std::string &path, const std::string &spec_text, E3smMapInfo *info) {
  E3smDecomp d;
  ESMIO_RETURN_IF_ERROR(open_e3sm(path, spec_text, &d));
  info->dims = d.dims;
  info->nprocs = d.nprocs;
  std::vector<long long> nreqs, fill_starts;
  std::vector<int64_t> first;
  int64_t total = 0;
  ESMIO_RETURN_IF_ERROR(e3sm_requests(d, &nreqs, &first, &fill_starts, &total));
  info->nreqs.assign(nreqs.begin(), nreqs.end());
  info->fill_starts.assign(fill_starts.begin(), fill_starts.end());
  const std::string raw_counts = d.spec.name + ".raw_nreqs";
  if (d.nc.has_var(raw_counts)) {
    int varid = 0;
    int64_t len = 0;
    std::vector<long long> raw;
    ESMIO_RETURN_IF_ERROR(d.nc.int_var(raw_counts, &varid, &len));
    if (len != d.nprocs)
      return d.nc.error(raw_counts, "has " + std::to_string(len) +
                                        " entries, expected one per process (" +
                                        std::to_string(d.nprocs) + ")");
    ESMIO_RETURN_IF_ERROR(d.nc.read(raw_counts, varid, 0, d.nprocs, &raw));
    info->raw_nreqs.assign(raw.begin(), raw.end());
  }
  return Status::ok();
}

template <typename F>
Status guarded(const std::string &path, LoadedDecomp *out, F &&body) {
  *out = LoadedDecomp();
  Status st;
  try {
    st = body();
  } catch (const std::bad_alloc &) {
    st = Status(ESMIO_ENOMEM, path + ": out of memory reading the decomposition");
  }
  if (!st.is_ok()) *out = LoadedDecomp();
  return st;
}

}  // namespace

Status load_pio_decomp(const std::string &path, int rank, int nranks, LoadedDecomp *out) {
  ESMIO_RETURN_IF_ERROR(check_rank(path, rank, nranks));
  return guarded(path, out, [&] { return load_pio_impl(path, rank, nranks, out); });
}

Status load_esmio_decomp(const std::string &path, int rank, int nranks, LoadedDecomp *out) {
  ESMIO_RETURN_IF_ERROR(check_rank(path, rank, nranks));
  return guarded(path, out, [&] { return load_esmio_impl(path, rank, nranks, out); });
}

Status load_e3sm_decomp(const std::string &path, const std::string &spec, int rank, int nranks,
                        LoadedDecomp *out) {
  ESMIO_RETURN_IF_ERROR(check_rank(path, rank, nranks));
  return guarded(path, out, [&] { return load_e3sm_impl(path, spec, rank, nranks, out); });
}

Status inq_e3sm_map(const std::string &path, const std::string &spec, E3smMapInfo *info) {
  *info = E3smMapInfo();
  Status st;
  try {
    st = inq_e3sm_impl(path, spec, info);
  } catch (const std::bad_alloc &) {
    st = Status(ESMIO_ENOMEM, path + ": out of memory reading the decomposition tables");
  }
  if (!st.is_ok()) *info = E3smMapInfo();
  return st;
}

namespace {

Status load_as(const std::string &path, const std::string &format, int rank, int nranks,
               LoadedDecomp *out) {
  const std::string f = lower(format);
  if (f == "pio") return load_pio_decomp(path, rank, nranks, out);
  if (f == "esmio") return load_esmio_decomp(path, rank, nranks, out);
  if (f.compare(0, 5, "e3sm:") == 0)
    return load_e3sm_decomp(path, format.substr(5), rank, nranks, out);
  return Status(ESMIO_EBADNAME, path + ": unknown decomposition file format '" + format +
                                    "' (expected pio, esmio or e3sm:D<k>)");
}

}  // namespace

Status load_decomp_file(const std::string &path, const std::string &format, int rank, int nranks,
                        LoadedDecomp *out) {
  ESMIO_RETURN_IF_ERROR(load_as(path, format, rank, nranks, out));
  const int64_t nprocs = out->file_nprocs;
  if (nprocs < 1 || nranks <= nprocs) return Status::ok();
  // More ranks than processes: read process rank mod P as a rank of P would, then keep this
  // rank's part of it (the first read, of no process on ranks past P, read the header).
  const int64_t process = rank % nprocs, part = rank / nprocs;
  const int64_t parts = (nranks - 1 - process) / nprocs + 1;
  ESMIO_RETURN_IF_ERROR(
      load_as(path, format, static_cast<int>(process), static_cast<int>(nprocs), out));
  std::vector<int64_t> &offsets = out->offsets;
  const int64_t n = static_cast<int64_t>(offsets.size());
  const int64_t begin = n * part / parts, end = n * (part + 1) / parts;
  offsets.erase(offsets.begin() + end, offsets.end());
  offsets.erase(offsets.begin(), offsets.begin() + begin);
  offsets.shrink_to_fit();
  return Status::ok();
}

// ---- writing -----------------------------------------------------------------------------------

DecompFileWriter::~DecompFileWriter() {
  if (file_) {
    std::fclose(file_);
    std::remove(tmp_path_.c_str());
  }
}

Status DecompFileWriter::fail(Status status) {
  if (sticky_.is_ok()) sticky_ = std::move(status);
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
    std::remove(tmp_path_.c_str());
  }
  return sticky_;
}

Status DecompFileWriter::flush() {
  if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size())
    return fail(Status(ESMIO_EIO, path_ + ": write failed: " + std::strerror(errno)));
  buf_.clear();
  return Status::ok();
}

Status DecompFileWriter::put(const char *text, std::size_t len) {
  buf_.append(text, len);
  return buf_.size() >= (1 << 16) ? flush() : Status::ok();
}

Status DecompFileWriter::put_int(int64_t value, char after) {
  char text[24];
  auto res = std::to_chars(text, text + sizeof(text) - 1, value);
  *res.ptr++ = after;
  return put(text, static_cast<std::size_t>(res.ptr - text));
}

Status DecompFileWriter::open(const std::string &path, const std::string &format,
                              const std::vector<int64_t> &dims, int64_t nprocs) {
  if (file_ || !sticky_.is_ok())
    return fail(Status(ESMIO_EINVAL, path + ": decomposition writer opened twice"));
  path_ = path;
  const std::string f = lower(format);
  if (f != "pio" && f != "esmio")
    return fail(Status(ESMIO_EBADNAME, path + ": cannot write decomposition format '" + format +
                                           "' (expected pio or esmio)"));
  pio_ = f == "pio";
  gsize_ = checked_product(dims);
  if (dims.empty() || dims.size() > ESMIO_MAX_DIMS || gsize_ < 0)
    return fail(Status(ESMIO_EINVAL, path + ": bad dims " + dims_text(dims) + ": 1.." +
                                         std::to_string(ESMIO_MAX_DIMS) +
                                         " positive lengths whose product fits 64 bits"));
  if (nprocs < 1 || nprocs > std::numeric_limits<int>::max())
    return fail(Status(ESMIO_EINVAL, path + ": bad number of processes " + std::to_string(nprocs)));
  nprocs_ = nprocs;
  tmp_path_ = path + ".esmio-tmp";
  file_ = std::fopen(tmp_path_.c_str(), "wb");
  if (!file_)
    return fail(
        Status(ESMIO_EIO, path + ": cannot create " + tmp_path_ + ": " + std::strerror(errno)));
  const std::string nd = std::to_string(dims.size());
  std::string head;
  if (pio_) {
    // PIO's own spacing, so that its fscanf-based reader and E3SM-IO's tools read it as theirs.
    head = "version " + std::to_string(kPioVersion) + " npes " + std::to_string(nprocs) +
           " ndims " + nd + " \n";
    for (std::size_t i = dims.size(); i-- > 0;) head += std::to_string(dims[i]) + " ";
    head += "\n";
  } else {
    head = std::string(kEsmioMagic) + " " + std::to_string(kEsmioVersion) +
           "\n# global linear offsets (C order, 0-based) of each process's elements in memory"
           "\n# order, as runs '<begin> <length>' (begin -1: length holes)\nndims " +
           nd + "\ndims";
    for (int64_t d : dims) head += " " + std::to_string(d);
    head += "\nnprocs " + std::to_string(nprocs) + "\n";
  }
  return put(head.data(), head.size());
}

Status DecompFileWriter::begin_piece(int64_t nlocal) {
  ESMIO_RETURN_IF_ERROR(sticky_);
  if (!file_ || in_piece_ || proc_ >= nprocs_ || nlocal < 0)
    return fail(Status(ESMIO_EINVAL, path_ + ": piece " + std::to_string(proc_) +
                                         " begun out of order or with a negative count"));
  if (!pio_ && nlocal > max_nlocal(gsize_))
    return fail(Status(ESMIO_EDECOMP, path_ + ": process " + std::to_string(proc_) + " holds " +
                                          std::to_string(nlocal) +
                                          " elements, more than the esmio format allows (" +
                                          std::to_string(max_nlocal(gsize_)) + ")"));
  in_piece_ = true;
  nlocal_ = nlocal;
  written_ = data_ = holes_ = 0;
  run_length_ = runs_on_line_ = 0;
  std::string head = pio_ ? std::to_string(proc_) + " " + std::to_string(nlocal) + "\n"
                          : "proc " + std::to_string(proc_) + " " + std::to_string(nlocal) + "\n";
  return put(head.data(), head.size());
}

Status DecompFileWriter::flush_run() {
  if (run_length_ == 0) return Status::ok();
  if (runs_on_line_ > 0) ESMIO_RETURN_IF_ERROR(put(" ", 1));
  ESMIO_RETURN_IF_ERROR(put_int(run_begin_, ' '));
  const bool line_full = ++runs_on_line_ == 8;
  if (line_full) runs_on_line_ = 0;
  char text[24];
  auto res = std::to_chars(text, text + sizeof(text) - 1, run_length_);
  if (line_full) *res.ptr++ = '\n';
  run_length_ = 0;
  return put(text, static_cast<std::size_t>(res.ptr - text));
}

Status DecompFileWriter::add(const int64_t *offsets, int64_t n) {
  ESMIO_RETURN_IF_ERROR(sticky_);
  if (!in_piece_ || n < 0 || n > nlocal_ - written_ || (n > 0 && !offsets))
    return fail(Status(ESMIO_EINVAL, path_ + ": process " + std::to_string(proc_) +
                                         ": more offsets than the declared " +
                                         std::to_string(nlocal_)));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = offsets[i];
    if (v < -1 || v >= gsize_)
      return fail(Status(ESMIO_EDECOMP, path_ + ": process " + std::to_string(proc_) + ": offset " +
                                            std::to_string(v) + " at " +
                                            std::to_string(written_ + i) + " is out of range " +
                                            "-1.." + std::to_string(gsize_ - 1)));
    // The reader's limits, so that every file written here can be read back.
    const bool over = v == -1 ? ++holes_ > hole_limit(gsize_) : ++data_ > gsize_;
    if (over && !pio_)
      return fail(Status(ESMIO_EDECOMP, path_ + ": process " + std::to_string(proc_) +
                                            " has more " + (v == -1 ? "holes" : "offsets") +
                                            " than the esmio format allows"));
    if (pio_) {
      ESMIO_RETURN_IF_ERROR(put_int(v + 1, ' '));
      continue;
    }
    if (run_length_ > 0 &&
        (run_begin_ == -1 ? v == -1 : v != -1 && v == run_begin_ + run_length_)) {
      ++run_length_;
      continue;
    }
    ESMIO_RETURN_IF_ERROR(flush_run());
    run_begin_ = v;
    run_length_ = 1;
  }
  written_ += n;
  return Status::ok();
}

Status DecompFileWriter::end_piece() {
  ESMIO_RETURN_IF_ERROR(sticky_);
  if (!in_piece_ || written_ != nlocal_)
    return fail(Status(ESMIO_EINVAL, path_ + ": process " + std::to_string(proc_) + ": " +
                                         std::to_string(written_) + " offsets given, " +
                                         std::to_string(nlocal_) + " declared"));
  in_piece_ = false;
  ++proc_;
  if (pio_) return put("\n", 1);
  ESMIO_RETURN_IF_ERROR(flush_run());
  return runs_on_line_ > 0 ? put("\n", 1) : Status::ok();
}

Status DecompFileWriter::commit() {
  ESMIO_RETURN_IF_ERROR(sticky_);
  if (!file_ || in_piece_ || proc_ != nprocs_)
    return fail(Status(ESMIO_EINVAL, path_ + ": " + std::to_string(proc_) + " of " +
                                         std::to_string(nprocs_) + " pieces written at commit"));
  if (!pio_) ESMIO_RETURN_IF_ERROR(put("end\n", 4));
  ESMIO_RETURN_IF_ERROR(flush());
  std::FILE *f = file_;
  file_ = nullptr;
  if (std::fflush(f) != 0 || std::ferror(f)) {
    const int e = errno;
    std::fclose(f);
    std::remove(tmp_path_.c_str());
    return fail(Status(ESMIO_EIO, path_ + ": write failed: " + std::strerror(e)));
  }
  if (std::fclose(f) != 0) {
    const int e = errno;
    std::remove(tmp_path_.c_str());
    return fail(Status(ESMIO_EIO, path_ + ": close failed: " + std::strerror(e)));
  }
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp_path_.c_str());
    return fail(
        Status(ESMIO_EIO, path_ + ": cannot rename " + tmp_path_ + " to it: " + std::strerror(e)));
  }
  return Status::ok();
}

namespace {

Status mpi_error(int err, const char *what) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(err, text, &len) != MPI_SUCCESS) len = 0;
  return Status(ESMIO_EMPI, std::string("saving a decomposition: ") + what + ": " +
                                std::string(text, static_cast<std::size_t>(len)));
}

// The code and message of the lowest-numbered failing rank, on every rank.
Status agree(MPI_Comm comm, const Status &local) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine[2] = {local.code(), rank}, worst[2] = {0, 0};
  int err = MPI_Allreduce(mine, worst, 1, MPI_2INT, MPI_MINLOC, comm);
  if (err != MPI_SUCCESS) return mpi_error(err, "MPI_Allreduce");
  if (worst[0] == ESMIO_NOERR) return Status::ok();
  std::string message = local.message();
  int len = static_cast<int>(message.size());
  if ((err = MPI_Bcast(&len, 1, MPI_INT, worst[1], comm)) != MPI_SUCCESS)
    return mpi_error(err, "MPI_Bcast");
  message.resize(static_cast<std::size_t>(len));
  if (len > 0 && (err = MPI_Bcast(&message[0], len, MPI_CHAR, worst[1], comm)) != MPI_SUCCESS)
    return mpi_error(err, "MPI_Bcast");
  return Status(worst[0], message);
}

Status check_local(const std::string &path, const std::string &format,
                   const std::vector<int64_t> &dims, const int64_t *offsets, int64_t nlocal,
                   int rank) {
  const std::string f = lower(format);
  if (f != "pio" && f != "esmio")
    return Status(ESMIO_EBADNAME, path + ": cannot write decomposition format '" + format +
                                      "' (expected pio or esmio)");
  const int64_t gsize = checked_product(dims);
  if (dims.empty() || dims.size() > ESMIO_MAX_DIMS || gsize < 0)
    return Status(ESMIO_EINVAL, path + ": rank " + std::to_string(rank) + ": bad dims " +
                                    dims_text(dims) + ": 1.." + std::to_string(ESMIO_MAX_DIMS) +
                                    " positive lengths whose product fits 64 bits");
  if (nlocal < 0 || (nlocal > 0 && !offsets))
    return Status(ESMIO_EINVAL, path + ": rank " + std::to_string(rank) + ": bad local count " +
                                    std::to_string(nlocal) + " or no offsets");
  int64_t holes = 0;
  for (int64_t i = 0; i < nlocal; ++i) {
    const int64_t v = offsets[i];
    if (v < -1 || v >= gsize)
      return Status(ESMIO_EDECOMP, path + ": rank " + std::to_string(rank) + ": offset " +
                                       std::to_string(v) + " at " + std::to_string(i) +
                                       " is out of range -1.." + std::to_string(gsize - 1) +
                                       " for dims " + dims_text(dims));
    holes += v == -1;
  }
  if (f == "esmio" && (holes > hole_limit(gsize) || nlocal - holes > gsize))
    return Status(ESMIO_EDECOMP,
                  path + ": rank " + std::to_string(rank) + " holds " +
                      std::to_string(nlocal - holes) + " offsets and " + std::to_string(holes) +
                      " holes, more than the esmio format allows (" + std::to_string(gsize) +
                      " and " + std::to_string(hole_limit(gsize)) + ")");
  return Status::ok();
}

// Rank 0 takes the pieces of ranks 1.. one after another, each in chunks; a rank only sends when
// told to, and rank 0 tells the rest to skip once writing has failed, so nobody waits forever.
enum Tag { kTagGo = 1, kTagCount, kTagData };

Status save_impl(MPI_Comm comm, const std::string &path, const std::string &format,
                 const std::vector<int64_t> &dims, const int64_t *offsets, int64_t nlocal) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  Status local = check_local(path, format, dims, offsets, nlocal, rank);
  // Rank 0 writes its dims; every other rank must mean the same array.
  std::vector<int64_t> root_dims(ESMIO_MAX_DIMS + 1, 0);
  if (rank == 0) {
    root_dims[0] = static_cast<int64_t>(std::min<std::size_t>(dims.size(), ESMIO_MAX_DIMS));
    std::copy_n(dims.begin(), root_dims[0], root_dims.begin() + 1);
  }
  int err = MPI_Bcast(root_dims.data(), ESMIO_MAX_DIMS + 1, MPI_INT64_T, 0, comm);
  if (err != MPI_SUCCESS) local = mpi_error(err, "MPI_Bcast");
  if (local.is_ok() && rank != 0 &&
      std::vector<int64_t>(root_dims.begin() + 1, root_dims.begin() + 1 + root_dims[0]) != dims)
    local =
        Status(ESMIO_EINVAL, path + ": rank " + std::to_string(rank) + " has dims " +
                                 dims_text(dims) + ", rank 0 has " +
                                 dims_text(std::vector<int64_t>(
                                     root_dims.begin() + 1, root_dims.begin() + 1 + root_dims[0])));
  ESMIO_RETURN_IF_ERROR(agree(comm, local));

  if (rank != 0) {
    int go = 0;
    if ((err = MPI_Recv(&go, 1, MPI_INT, 0, kTagGo, comm, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
      return agree(comm, mpi_error(err, "MPI_Recv"));
    if (go) {
      err = MPI_Send(&nlocal, 1, MPI_INT64_T, 0, kTagCount, comm);
      for (int64_t i = 0; i < nlocal && err == MPI_SUCCESS; i += kSaveChunk)
        err = MPI_Send(offsets + i, static_cast<int>(std::min(kSaveChunk, nlocal - i)), MPI_INT64_T,
                       0, kTagData, comm);
      if (err != MPI_SUCCESS) return agree(comm, mpi_error(err, "MPI_Send"));
    }
    return agree(comm, Status::ok());
  }

  DecompFileWriter writer;
  Status st = writer.open(path, format, dims, size);
  if (st.is_ok()) st = writer.begin_piece(nlocal);
  if (st.is_ok()) st = writer.add(offsets, nlocal);
  if (st.is_ok()) st = writer.end_piece();
  std::vector<int64_t> chunk;
  for (int p = 1; p < size; ++p) {
    int go = st.is_ok() ? 1 : 0;
    if ((err = MPI_Send(&go, 1, MPI_INT, p, kTagGo, comm)) != MPI_SUCCESS) {
      st = mpi_error(err, "MPI_Send");
      break;
    }
    if (!go) continue;
    int64_t n = 0;
    if ((err = MPI_Recv(&n, 1, MPI_INT64_T, p, kTagCount, comm, MPI_STATUS_IGNORE)) !=
        MPI_SUCCESS) {
      st = mpi_error(err, "MPI_Recv");
      break;
    }
    st = writer.begin_piece(n);
    chunk.resize(static_cast<std::size_t>(std::min(kSaveChunk, n)));
    // The whole piece is received even after a write error: the sender is already sending.
    for (int64_t i = 0; i < n; i += kSaveChunk) {
      const int c = static_cast<int>(std::min(kSaveChunk, n - i));
      if ((err = MPI_Recv(chunk.data(), c, MPI_INT64_T, p, kTagData, comm, MPI_STATUS_IGNORE)) !=
          MPI_SUCCESS) {
        st = mpi_error(err, "MPI_Recv");
        break;
      }
      if (st.is_ok()) st = writer.add(chunk.data(), c);
    }
    if (err != MPI_SUCCESS) break;
    if (st.is_ok()) st = writer.end_piece();
  }
  if (st.is_ok()) st = writer.commit();
  return agree(comm, st);
}

}  // namespace

Status save_decomp_file(MPI_Comm comm, const std::string &path, const std::string &format,
                        const std::vector<int64_t> &dims, const int64_t *offsets, int64_t nlocal) {
  // A private communicator keeps these messages apart from the caller's.
  MPI_Comm dup = MPI_COMM_NULL;
  int err = MPI_Comm_dup(comm, &dup);
  if (err != MPI_SUCCESS) return mpi_error(err, "MPI_Comm_dup");
  Status st;
  try {
    st = save_impl(dup, path, format, dims, offsets, nlocal);
  } catch (const std::bad_alloc &) {
    st = agree(dup, Status(ESMIO_ENOMEM, path + ": out of memory saving the decomposition"));
  }
  MPI_Comm_free(&dup);
  return st;
}

}  // namespace esmio::decomp
