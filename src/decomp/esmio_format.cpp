#include "decomp/esmio_format.hpp"

#include "decomp/text_reader.hpp"

namespace esmio::decomp {

namespace {

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

}  // namespace

Status load_esmio_decomp(const std::string &path, int rank, int nranks, LoadedDecomp *out) {
  ESMIO_RETURN_IF_ERROR(check_rank(path, rank, nranks));
  return guarded_load(path, out, [&] { return load_esmio_impl(path, rank, nranks, out); });
}

}  // namespace esmio::decomp
