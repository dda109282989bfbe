#include "decomp/pio_format.hpp"

#include "decomp/text_reader.hpp"

namespace esmio::decomp {

namespace {

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

}  // namespace

Status load_pio_decomp(const std::string &path, int rank, int nranks, LoadedDecomp *out) {
  ESMIO_RETURN_IF_ERROR(check_rank(path, rank, nranks));
  return guarded_load(path, out, [&] { return load_pio_impl(path, rank, nranks, out); });
}

}  // namespace esmio::decomp
