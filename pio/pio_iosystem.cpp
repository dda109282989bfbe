// I/O systems: PIO's intracommunicator I/O system is an esmio instance whose I/O tasks are
// chosen by the same three numbers (how many, the stride between them, the first one).
#include <string>

#include "pio_state.hpp"

using namespace esmio_pio;

extern "C" int PIOc_Init_Intracomm(MPI_Comm comp_comm, int num_iotasks, int stride, int base,
                                   int rearr, int *iosysidp) {
  const char *call = "PIOc_Init_Intracomm";
  int size = 0;
  if (comp_comm == MPI_COMM_NULL || MPI_Comm_size(comp_comm, &size) != MPI_SUCCESS)
    return finish(nullptr, PIO_EINVAL, call, "the communicator is not valid");
  if (!iosysidp || num_iotasks < 1 || stride < 1 || base < 0 || base >= size ||
      static_cast<int64_t>(num_iotasks) * stride > size)
    return finish(nullptr, PIO_EINVAL, call,
                  "num_iotasks " + std::to_string(num_iotasks) + ", stride " +
                      std::to_string(stride) + ", base " + std::to_string(base) + " do not fit " +
                      std::to_string(size) + " tasks");
  if (rearr != PIO_REARR_BOX && rearr != PIO_REARR_SUBSET)
    return finish(nullptr, PIO_EINVAL, call, "unknown rearranger " + std::to_string(rearr));
  // The tasks base, base+stride, ... must lie in the communicator: fewer if they do not all.
  const int fit = (size - 1 - base) / stride + 1;
  const int tasks = num_iotasks < fit ? num_iotasks : fit;
  const std::string settings = "num_iotasks=" + std::to_string(tasks) +
                               ",iotask_stride=" + std::to_string(stride) +
                               ",iotask_offset=" + std::to_string(base) +
                               ",layout=" + (rearr == PIO_REARR_SUBSET ? "subset" : "box");
  IoSystem ios;
  ios.error_handler = default_error_handler();
  ios.rearranger = rearr;
  int rc = esmio_init(comp_comm, settings.c_str(), &ios.io);
  if (rc != ESMIO_NOERR) return finish_esmio(nullptr, rc, call);
  rc = esmio_inq_comm(ios.io, &ios.comm);
  if (rc != ESMIO_NOERR) {
    esmio_finalize(&ios.io);
    return finish_esmio(nullptr, rc, call);
  }
  // PIO numbers the I/O tasks in the order of their ranks (PIOc_iotask_rank).
  int num = 0, is_iotask = 0, below = 0;
  rc = esmio_inq_iotasks(ios.io, &num, &is_iotask);
  MPI_Exscan(&is_iotask, &below, 1, MPI_INT, MPI_SUM, ios.comm);
  int rank = 0;
  MPI_Comm_rank(ios.comm, &rank);
  ios.io_rank = is_iotask ? (rank == 0 ? 0 : below) : -1;
  if (rc != ESMIO_NOERR) {
    esmio_finalize(&ios.io);
    return finish_esmio(nullptr, rc, call);
  }
  *iosysidp = add_iosystem(ios);
  return PIO_NOERR;
}

// Fortran's PIO_init holds its communicator as a Fortran integer, which only C can convert.
extern "C" int PIOc_Init_Intracomm_from_F90(int f90_comp_comm, const int num_iotasks,
                                            const int stride, const int base, const int rearr,
                                            rearr_opt_t *rearr_opts, int *iosysidp) {
  int rc =
      PIOc_Init_Intracomm(MPI_Comm_f2c(f90_comp_comm), num_iotasks, stride, base, rearr, iosysidp);
  if (rc != PIO_NOERR || !rearr_opts) return rc;
  return PIOc_set_rearr_opts(*iosysidp, rearr_opts->comm_type, rearr_opts->fcd,
                             rearr_opts->comp2io.hs, rearr_opts->comp2io.isend,
                             rearr_opts->comp2io.max_pend_req, rearr_opts->io2comp.hs,
                             rearr_opts->io2comp.isend, rearr_opts->io2comp.max_pend_req);
}

// PIO's asynchronous I/O system is esmio's io_servers mode: PIO's I/O processes become esmio's
// servers and its computation component esmio's compute ranks. On the I/O processes the call
// serves, as PIO's does, until the component frees its I/O system, then returns with the I/O
// communicator. esmio serves one component per instance: component_count other than 1 is
// PIO_EINVAL, as are I/O and computation processes that overlap or miss some of world.
extern "C" int PIOc_init_async(MPI_Comm world, int num_io_procs, int *io_proc_list,
                               int component_count, int *num_procs_per_comp, int **proc_list,
                               MPI_Comm *user_io_comm, MPI_Comm *user_comp_comm, int rearranger,
                               int *iosysidp) {
  const char *call = "PIOc_init_async";
  int size = 0, rank = 0;
  if (world == MPI_COMM_NULL || MPI_Comm_size(world, &size) != MPI_SUCCESS)
    return finish(nullptr, PIO_EINVAL, call, "the communicator is not valid");
  MPI_Comm_rank(world, &rank);
  if (component_count != 1 || !num_procs_per_comp || !iosysidp || num_io_procs < 1 ||
      num_io_procs + num_procs_per_comp[0] != size)
    return finish(nullptr, PIO_EINVAL, call,
                  "esmio serves one component whose processes and the " +
                      std::to_string(num_io_procs) + " I/O processes make up the " +
                      std::to_string(size) + " tasks (component_count " +
                      std::to_string(component_count) + ")");
  if (rearranger != PIO_REARR_BOX && rearranger != PIO_REARR_SUBSET)
    return finish(nullptr, PIO_EINVAL, call, "unknown rearranger " + std::to_string(rearranger));
  // This task's place: io >= 0 among the I/O processes, comp >= 0 in the component (PIO's
  // default lists: the I/O processes first, then the component).
  int io = -1, comp = -1, claimed = 0;
  for (int p = 0; p < num_io_procs; ++p)
    if ((io_proc_list ? io_proc_list[p] : p) == rank) io = p, ++claimed;
  for (int p = 0; p < num_procs_per_comp[0]; ++p)
    if ((proc_list && proc_list[0] ? proc_list[0][p] : num_io_procs + p) == rank)
      comp = p, ++claimed;
  int all_claimed = 0;
  MPI_Allreduce(&claimed, &all_claimed, 1, MPI_INT, MPI_MIN, world);
  int most_claimed = 0;
  MPI_Allreduce(&claimed, &most_claimed, 1, MPI_INT, MPI_MAX, world);
  if (all_claimed != 1 || most_claimed != 1)
    return finish(nullptr, PIO_EINVAL, call,
                  "every task must be in exactly one of the I/O processes and the component");
  // esmio takes its servers as the last ranks: order the component first, the I/O after it.
  MPI_Comm ordered = MPI_COMM_NULL, io_comm = MPI_COMM_NULL, comp_comm = MPI_COMM_NULL;
  MPI_Comm_split(world, 0, io >= 0 ? num_procs_per_comp[0] + io : comp, &ordered);
  MPI_Comm_split(world, io >= 0 ? 0 : MPI_UNDEFINED, io, &io_comm);
  MPI_Comm_split(world, comp >= 0 ? 0 : MPI_UNDEFINED, comp, &comp_comm);
  const std::string settings =
      "io_servers=" + std::to_string(num_io_procs) +
      ",io_server_placement=last,layout=" + (rearranger == PIO_REARR_SUBSET ? "subset" : "box");
  IoSystem ios;
  ios.error_handler = default_error_handler();
  ios.rearranger = rearranger;
  int rc = esmio_init(ordered, settings.c_str(), &ios.io);
  MPI_Comm_free(&ordered);
  if (rc == ESMIO_NOERR && io >= 0) rc = esmio_finalize(&ios.io);  // the component is done
  if (rc == ESMIO_NOERR && comp >= 0) rc = esmio_inq_comm(ios.io, &ios.comm);
  if (rc != ESMIO_NOERR) {
    if (ios.io) esmio_finalize(&ios.io);
    if (io_comm != MPI_COMM_NULL) MPI_Comm_free(&io_comm);
    if (comp_comm != MPI_COMM_NULL) MPI_Comm_free(&comp_comm);
    return finish_esmio(nullptr, rc, call);
  }
  if (user_io_comm)
    *user_io_comm = io_comm;
  else if (io_comm != MPI_COMM_NULL)
    MPI_Comm_free(&io_comm);
  if (comp >= 0) {
    ios.io_rank = -1;  // the component's tasks do no I/O themselves
    *iosysidp = add_iosystem(ios);
    if (user_comp_comm)
      user_comp_comm[0] = comp_comm;
    else
      MPI_Comm_free(&comp_comm);
  }
  return PIO_NOERR;
}

extern "C" int PIOc_free_iosystem(int iosysid) {
  const char *call = "PIOc_free_iosystem";
  IoSystem *ios = find_iosystem(iosysid);
  if (!ios)
    return finish(nullptr, PIO_EBADID, call,
                  "no I/O system has iosysid " + std::to_string(iosysid));
  // PIO frees an I/O system (and releases its servers) even with files still open; esmio closes
  // them first, else its servers would wait for the component for ever. The first close error
  // is returned after the I/O system is freed.
  int close_rc = ESMIO_NOERR;
  auto &files = open_files();
  for (auto it = files.begin(); it != files.end();) {
    if (it->second.iosysid == iosysid) {
      const int rc = esmio_close(&it->second.handle);
      if (close_rc == ESMIO_NOERR) close_rc = rc;
      it = files.erase(it);
    } else {
      ++it;
    }
  }
  // PIO frees the I/O system's decompositions with it; esmio wants them freed first.
  auto &all = decomps();
  for (auto it = all.begin(); it != all.end();) {
    if (it->second.iosysid == iosysid) {
      free_decomp_handles(&it->second);
      it = all.erase(it);
    } else {
      ++it;
    }
  }
  const int rc = esmio_finalize(&ios->io);
  if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, call);
  IoSystem freed = *ios;
  freed.comm = MPI_COMM_WORLD;  // esmio's communicator went with the instance
  remove_iosystem(iosysid);
  return finish_esmio(&freed, close_rc, call);
}

extern "C" int PIOc_finalize(int iosysid) { return PIOc_free_iosystem(iosysid); }

extern "C" int PIOc_get_numiotasks(int iosysid, int *numiotasks) {
  IoSystem *ios = find_iosystem(iosysid);
  if (!ios)
    return finish(nullptr, PIO_EBADID, "PIOc_get_numiotasks",
                  "no I/O system has iosysid " + std::to_string(iosysid));
  int n = 0, is_iotask = 0;
  const int rc = esmio_inq_iotasks(ios->io, &n, &is_iotask);
  if (rc == ESMIO_NOERR && numiotasks) *numiotasks = n;
  return finish_esmio(ios, rc, "PIOc_get_numiotasks");
}

extern "C" int PIOc_iam_iotask(int iosysid, bool *ioproc) {
  IoSystem *ios = find_iosystem(iosysid);
  if (!ios)
    return finish(nullptr, PIO_EBADID, "PIOc_iam_iotask",
                  "no I/O system has iosysid " + std::to_string(iosysid));
  int n = 0, is_iotask = 0;
  const int rc = esmio_inq_iotasks(ios->io, &n, &is_iotask);
  if (rc == ESMIO_NOERR && ioproc) *ioproc = is_iotask != 0;
  return finish_esmio(ios, rc, "PIOc_iam_iotask");
}

extern "C" int PIOc_iotask_rank(int iosysid, int *iorank) {
  IoSystem *ios = find_iosystem(iosysid);
  if (!ios)
    return finish(nullptr, PIO_EBADID, "PIOc_iotask_rank",
                  "no I/O system has iosysid " + std::to_string(iosysid));
  if (iorank) *iorank = ios->io_rank;
  return PIO_NOERR;
}

// active may be NULL, as in PIO.
extern "C" int PIOc_iosystem_is_active(int iosysid, bool *active) {
  if (active) *active = find_iosystem(iosysid) != nullptr;
  return PIO_NOERR;
}

extern "C" int PIOc_iotype_available(int iotype) {
  return iotype >= PIO_IOTYPE_PNETCDF && iotype <= PIO_IOTYPE_NETCDF4P;
}

// Rearranger communication options: esmio plans its exchange itself (one collective exchange
// or bounded point-to-point); the options are checked for an I/O system and ignored.
extern "C" int PIOc_set_rearr_opts(int iosysid, int comm_type, int fcd, bool, bool, int, bool, bool,
                                   int) {
  IoSystem *ios = find_iosystem(iosysid);
  if (!ios)
    return finish(nullptr, PIO_EBADID, "PIOc_set_rearr_opts",
                  "no I/O system has iosysid " + std::to_string(iosysid));
  if ((comm_type != PIO_REARR_COMM_P2P && comm_type != PIO_REARR_COMM_COLL) ||
      fcd < PIO_REARR_COMM_FC_2D_ENABLE || fcd > PIO_REARR_COMM_FC_2D_DISABLE)
    return finish(ios, PIO_EINVAL, "PIOc_set_rearr_opts", "unknown comm_type or fcd");
  return PIO_NOERR;
}

// MPI-IO hints are an esmio setting of the instance (mpiio_hints, or ESMIO_MPIIO_HINTS), fixed
// at init: a hint given later is accepted and ignored.
extern "C" int PIOc_set_hint(int iosysid, const char *hint, const char *hintval) {
  IoSystem *ios = find_iosystem(iosysid);
  if (!ios)
    return finish(nullptr, PIO_EBADID, "PIOc_set_hint",
                  "no I/O system has iosysid " + std::to_string(iosysid));
  if (!hint || !hintval) return finish(ios, PIO_EINVAL, "PIOc_set_hint", "hint or value is NULL");
  return PIO_NOERR;
}

// The block size of PIO's box rearranger: esmio balances its box layout itself, so the size is
// accepted and ignored (a size below 1 is ignored by PIO too).
extern "C" int PIOc_set_blocksize(int) { return PIO_NOERR; }

// esmio's write cache is sized by the cache setting (or ESMIO_CACHE); the limit is remembered
// and returned as PIO does, and otherwise ignored.
extern "C" PIO_Offset PIOc_set_buffer_size_limit(PIO_Offset limit) {
  static PIO_Offset current = 134217728;  // PIO 2.7's default (its PIO_BUFFER_SIZE)
  const PIO_Offset old = current;
  if (limit > 0) current = limit;
  return old;
}
