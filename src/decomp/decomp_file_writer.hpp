// Writing decomposition files ("pio" or "esmio", see pio_format.hpp and esmio_format.hpp)
// process by process, streaming.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace esmio::decomp {

// Writes a decomposition file ("pio" or "esmio") process by process, streaming: the caller hands
// each process's offsets in pieces of any size, so no whole map is ever needed in memory. Writes
// to a temporary sibling of path and renames it on commit(), so that a failed or abandoned write
// never leaves a file at path that looks complete. Errors are sticky: after one, every call
// returns it.
class DecompFileWriter {
 public:
  DecompFileWriter() = default;
  DecompFileWriter(const DecompFileWriter &) = delete;
  DecompFileWriter &operator=(const DecompFileWriter &) = delete;
  ~DecompFileWriter();  // removes the temporary file unless committed

  Status open(const std::string &path, const std::string &format, const std::vector<int64_t> &dims,
              int64_t nprocs);
  // Pieces come in process order 0, 1, ..., nprocs-1; nlocal is the piece's total length.
  Status begin_piece(int64_t nlocal);
  Status add(const int64_t *offsets, int64_t n);
  Status end_piece();
  Status commit();

 private:
  Status fail(Status status);
  Status put(const char *text, std::size_t len);
  Status put_int(int64_t value, char after);
  Status flush();
  Status flush_run();

  Status sticky_;
  std::string path_, tmp_path_;
  bool pio_ = false;
  std::FILE *file_ = nullptr;
  std::string buf_;
  int64_t gsize_ = 0, nprocs_ = 0, proc_ = 0;
  bool in_piece_ = false;
  int64_t nlocal_ = 0, written_ = 0, data_ = 0, holes_ = 0;
  int64_t run_begin_ = 0, run_length_ = 0, runs_on_line_ = 0;
};

}  // namespace esmio::decomp
