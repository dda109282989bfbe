#include "decomp/decomp_file_writer.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>

#include "common/text.hpp"
#include "decomp/decomp_file_rules.hpp"

namespace esmio::decomp {

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

}  // namespace esmio::decomp
