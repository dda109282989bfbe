// I/O systems: PIO's intracommunicator I/O system is an esmio instance whose I/O tasks are
// chosen by the same three numbers (how many, the stride between them, the first one); PIO's
// asynchronous I/O system is an esmio instance with I/O servers (io_servers) on the same ranks.
#include <algorithm>
#include <string>
#include <vector>

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

namespace {

std::string rank_list(const std::vector<int> &ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size() && i < 8; ++i)
    text += (i ? "," : "") + std::to_string(ranks[i]);
  if (ranks.size() > 8) text += ",...";
  return "(" + text + ")";
}

// esmio's name for where the k servers of n ranks are, or "" where it has none.
std::string placement_of(const std::vector<int> &io, int n) {
  const int k = static_cast<int>(io.size());
  std::vector<int> first, last, spread;
  for (int i = 0; i < k; ++i) {
    first.push_back(i);
    last.push_back(n - k + i);
    spread.push_back(static_cast<int>((int64_t(i) + 1) * n / k) - 1);
  }
  if (io == first) return "first";
  if (io == last) return "last";
  if (io == spread) return "spread";
  return "";
}

}  // namespace

extern "C" int PIOc_init_async(MPI_Comm world, int num_io_procs, int *io_proc_list,
                               int component_count, int *num_procs_per_comp, int **proc_list,
                               MPI_Comm *io_comm, MPI_Comm *comp_comm, int rearranger,
                               int *iosysidp) {
  const char *call = "PIOc_init_async";
  int n = 0, rank = 0;
  if (world == MPI_COMM_NULL || MPI_Comm_size(world, &n) != MPI_SUCCESS ||
      MPI_Comm_rank(world, &rank) != MPI_SUCCESS)
    return finish(nullptr, PIO_EINVAL, call, "the communicator is not valid");
  if (component_count != 1)
    return finish(nullptr, PIO_EINVAL, call,
                  "component_count " + std::to_string(component_count) +
                      ": esmio serves one computational component per I/O system (call "
                      "PIOc_init_async once per component)");
  if (!iosysidp || !num_procs_per_comp || num_io_procs < 1 || num_io_procs >= n)
    return finish(nullptr, PIO_EINVAL, call,
                  std::to_string(num_io_procs) + " I/O processes on " + std::to_string(n) +
                      " tasks (or a NULL iosysidp or num_procs_per_comp)");
  if (rearranger != PIO_REARR_BOX && rearranger != PIO_REARR_SUBSET)
    return finish(nullptr, PIO_EINVAL, call, "unknown rearranger " + std::to_string(rearranger));
  // PIO's defaults: the I/O processes first, then the component's, in order.
  std::vector<int> io, comp;
  for (int i = 0; i < num_io_procs; ++i) io.push_back(io_proc_list ? io_proc_list[i] : i);
  for (int i = 0; i < num_procs_per_comp[0]; ++i)
    comp.push_back(proc_list && proc_list[0] ? proc_list[0][i] : num_io_procs + i);
  std::vector<int> all = io;
  all.insert(all.end(), comp.begin(), comp.end());
  std::sort(all.begin(), all.end());
  bool every_task_once = static_cast<int>(all.size()) == n;
  for (int i = 0; i < n && every_task_once; ++i)
    every_task_once = all[static_cast<std::size_t>(i)] == i;
  if (!every_task_once)
    return finish(nullptr, PIO_EINVAL, call,
                  "the I/O processes " + rank_list(io) + " and the component's " + rank_list(comp) +
                      " are not the " + std::to_string(n) +
                      " tasks of the communicator, each once (esmio's I/O servers serve the "
                      "other tasks of one communicator)");
  std::sort(io.begin(), io.end());
  const std::string placement = placement_of(io, n);
  if (placement.empty())
    return finish(nullptr, PIO_EINVAL, call,
                  "I/O processes " + rank_list(io) + " of " + std::to_string(n) +
                      " tasks: esmio places its I/O servers on the first, the last, or the last "
                      "task of each of equal blocks (io_server_placement first, last, spread)");
  const bool io_task = std::binary_search(io.begin(), io.end(), rank);
  // The communicators PIO hands back, made before the I/O processes start serving.
  MPI_Comm part = MPI_COMM_NULL;
  if (MPI_Comm_split(world, io_task ? 0 : 1, rank, &part) != MPI_SUCCESS)
    return finish(nullptr, PIO_EINVAL, call, "MPI_Comm_split failed");
  if (io_comm) *io_comm = io_task ? part : MPI_COMM_NULL;
  if (comp_comm) comp_comm[0] = io_task ? MPI_COMM_NULL : part;
  if ((io_task && !io_comm) || (!io_task && !comp_comm)) MPI_Comm_free(&part);
  const std::string settings = "io_servers=" + std::to_string(io.size()) +
                               ",io_server_placement=" + placement +
                               ",layout=" + (rearranger == PIO_REARR_SUBSET ? "subset" : "box");
  IoSystem ios;
  ios.error_handler = default_error_handler();
  ios.rearranger = rearranger;
  int rc = esmio_init(world, settings.c_str(), &ios.io);
  if (rc != ESMIO_NOERR) return finish_esmio(nullptr, rc, call);
  int role = ESMIO_ROLE_COMPUTE;
  rc = esmio_inq_role(ios.io, &role);
  if (rc == ESMIO_NOERR && role == ESMIO_ROLE_SERVER) {
    // An I/O process returns once the component has finalized, as in PIO.
    iosysidp[0] = -1;
    return finish_esmio(nullptr, esmio_finalize(&ios.io), call);
  }
  if (rc == ESMIO_NOERR) rc = esmio_inq_comm(ios.io, &ios.comm);
  if (rc != ESMIO_NOERR) {
    esmio_finalize(&ios.io);
    return finish_esmio(nullptr, rc, call);
  }
  iosysidp[0] = add_iosystem(ios);
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
