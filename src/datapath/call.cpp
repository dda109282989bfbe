#include "datapath/call.hpp"

#include <string>

#include "common/agree.hpp"
#include "common/call_words.hpp"
#include "common/digest.hpp"
#include "common/types.hpp"

namespace esmio::datapath {

// A data call's collective arguments: variable, record, decomposition (by its creation number:
// ranks that pass different decompositions differ here) and memory type. The buffer length is
// local and not compared.
uint64_t darray_digest(const FileState &file, const char *what, int varid, int64_t record,
                       const Decomp *decomp, esmio_type memtype) {
  return Digest(what)
      .add(file.path)
      .add(int64_t(varid))
      .add(record)
      .add(decomp ? decomp->serial : int64_t(-1))
      .add(int64_t(memtype))
      .value();
}

CallWords darray_call(const FileState &file, const char *what, int varid, int64_t record,
                      const int64_t *decomp_serial, esmio_type memtype) {
  const bool known = varid >= 0 && varid < static_cast<int>(file.vars.size());
  CallWords call;
  call.call = what;
  call.verb = std::string(what) == "esmio_read_darray" ? "reads" : "writes";
  call.args = {
      {"file", "'" + file.path + "'"},
      {"variable", known ? "'" + file.vars[varid].name + "' (varid " + std::to_string(varid) + ")"
                         : "id " + std::to_string(varid) + " (none such)"},
      {"record", std::to_string(record)},
      {"decomposition", decomp_serial ? "#" + std::to_string(*decomp_serial) : std::string("null")},
      {"memory type", type_is_known(memtype) ? std::string(type_name(memtype))
                                             : "unknown (" + std::to_string(memtype) + ")"}};
  return call;
}

std::string darray_words(const FileState &file, const char *what, int varid, int64_t record,
                         const Decomp *decomp, esmio_type memtype, const Status &local,
                         const char *source) {
  CallWords call =
      darray_call(file, what, varid, record, decomp ? &decomp->serial : nullptr, memtype);
  if (source != nullptr) call.args.emplace_back("values", source);
  if (!local.is_ok()) call.refused = local.message();
  return encode(call);
}

// Agrees on the outcome of a data call. Out-of-range values are not one rank's error: the data
// is written (as fill) everywhere, and every rank reports the call's total count.
Status agree_with_range(const Group &group, const FileState &file, int varid, const char *what,
                        esmio_type from, esmio_type to, const Status &status,
                        const RangeCount &range) {
  const Status local =
      status.is_ok() && range.count > 0 ? Status(ESMIO_ERANGE, std::string()) : status;
  const Status agreed = agree(group.comm, local);
  if (agreed.code() != ESMIO_ERANGE) return agreed;
  int64_t total = 0;
  int source = 0;
  MPI_Allreduce(&range.count, &total, 1, MPI_INT64_T, MPI_SUM, group.comm);
  MPI_Allreduce(&range.source, &source, 1, MPI_INT, MPI_MIN, group.comm);
  return Status(ESMIO_ERANGE,
                std::string(what) + ": " + where(file, varid) + ": " + std::to_string(total) +
                    " value(s) out of the range of " + type_name(to) + " (from " + type_name(from) +
                    "), stored as the fill value; the first from rank " + std::to_string(source));
}

}  // namespace esmio::datapath
