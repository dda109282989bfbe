#include "decomp/decomp_files.hpp"

#include <string>
#include <vector>

#include "common/text.hpp"

namespace esmio::decomp {

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

}  // namespace esmio::decomp
