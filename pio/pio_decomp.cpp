// Decompositions: PIO's map is 1-based with 0 for a hole (PIOc_InitDecomp) or 0-based with -1
// (PIOc_init_decomp); esmio's is 0-based with -1. PIO ties a decomposition to the type of the
// arrays in memory, esmio does not: the type is kept here and given with every array.
#include <utility>
#include <vector>

#include "pio_state.hpp"

using namespace esmio_pio;

namespace {

int init_decomp(const char *call, int iosysid, int pio_type, int ndims, const int *gdimlen,
                int maplen, const PIO_Offset *compmap, int *ioidp, int rearranger,
                PIO_Offset base) {
  IoSystem *ios = find_iosystem(iosysid);
  if (!ios)
    return finish(nullptr, PIO_EBADID, call,
                  "no I/O system has iosysid " + std::to_string(iosysid));
  esmio_type type;
  if (!to_esmio_type(pio_type, &type))
    return finish(ios, PIO_EBADTYPE, call, "memory type " + std::to_string(pio_type));
  if (!ioidp || !gdimlen || ndims < 1 || ndims > ESMIO_MAX_DIMS || maplen < 0 ||
      (maplen > 0 && !compmap))
    return finish(ios, PIO_EINVAL, call, "null pointer, or ndims or maplen out of range");
  // The rearranger is the I/O system's (esmio's layout is a setting of the instance): another
  // one for this decomposition is accepted and ignored, as are iostart/iocount.
  if (rearranger != 0 && rearranger != PIO_REARR_BOX && rearranger != PIO_REARR_SUBSET)
    return finish(ios, PIO_EINVAL, call, "unknown rearranger " + std::to_string(rearranger));
  std::vector<int64_t> dims(gdimlen, gdimlen + ndims);
  std::vector<int64_t> offsets(static_cast<std::size_t>(maplen));
  int64_t written = 0;
  for (int i = 0; i < maplen; ++i) {
    const int64_t offset = compmap[i] - base;
    offsets[i] = offset < 0 ? -1 : offset;
    written += offset < 0 ? 0 : 1;
  }
  Decomp decomp;
  decomp.iosysid = iosysid;
  decomp.pio_type = pio_type;
  decomp.maplen = maplen;
  const int rc =
      esmio_decomp_create(ios->io, ndims, dims.data(), maplen, offsets.data(), &decomp.handle);
  if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, call);
  // Whether some point is written by no task: then write_darray's fill value matters.
  int64_t total = 0, global_size = 1;
  MPI_Allreduce(&written, &total, 1, MPI_INT64_T, MPI_SUM, ios->comm);
  for (int64_t d : dims) global_size *= d;
  decomp.needs_fill = total < global_size;
  decomp.dims = std::move(dims);
  decomp.offsets = std::move(offsets);
  *ioidp = add_decomp(decomp);
  return PIO_NOERR;
}

}  // namespace

extern "C" int PIOc_InitDecomp(int iosysid, int pio_type, int ndims, const int *gdimlen, int maplen,
                               const PIO_Offset *compmap, int *ioidp, const int *rearr,
                               const PIO_Offset *, const PIO_Offset *) {
  return init_decomp("PIOc_InitDecomp", iosysid, pio_type, ndims, gdimlen, maplen, compmap, ioidp,
                     rearr ? *rearr : 0, 1);
}

extern "C" int PIOc_init_decomp(int iosysid, int pio_type, int ndims, const int *gdimlen,
                                int maplen, const PIO_Offset *compmap, int *ioidp, int rearranger,
                                const PIO_Offset *, const PIO_Offset *) {
  return init_decomp("PIOc_init_decomp", iosysid, pio_type, ndims, gdimlen, maplen, compmap, ioidp,
                     rearranger, 0);
}

extern "C" int PIOc_freedecomp(int iosysid, int ioid) {
  const char *call = "PIOc_freedecomp";
  IoSystem *ios = find_iosystem(iosysid);
  Decomp *decomp = find_decomp(ioid);
  if (!ios || !decomp || decomp->iosysid != iosysid)
    return finish(ios, PIO_EBADID, call,
                  "no decomposition has ioid " + std::to_string(ioid) + " in I/O system " +
                      std::to_string(iosysid));
  const int rc = free_decomp_handles(decomp);
  remove_decomp(ioid);
  return finish_esmio(ios, rc, call);
}

extern "C" int PIOc_get_local_array_size(int ioid) {
  Decomp *decomp = find_decomp(ioid);
  return decomp ? static_cast<int>(decomp->maplen) : PIO_EBADID;
}
