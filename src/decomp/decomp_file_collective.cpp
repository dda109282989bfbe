// Loading and saving decompositions collectively: which rank reads or writes what, and agreement
// on the outcome.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "common/agree.hpp"
#include "common/text.hpp"
#include "decomp/decomp_file_rules.hpp"
#include "decomp/decomp_file_writer.hpp"
#include "decomp/decomp_files.hpp"

namespace esmio::decomp {

namespace {

// Elements per message when ranks send their pieces to rank 0: bounds rank 0's buffer.
constexpr int64_t kSaveChunk = int64_t(1) << 16;

Status mpi_error(int err, const char *what) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(err, text, &len) != MPI_SUCCESS) len = 0;
  return Status(ESMIO_EMPI, std::string("saving a decomposition: ") + what + ": " +
                                std::string(text, static_cast<std::size_t>(len)));
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

Status load_decomp_file(MPI_Comm comm, const std::string &path, const std::string &format,
                        LoadedDecomp *out, const Status &before) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  *out = LoadedDecomp();
  Status local = before;
  if (local.is_ok()) local = load_decomp_file(path, format, rank, size, out);
  // Only the ranks that read the damaged part of a map know what is wrong with it; the others
  // must not go on to create a decomposition that disagrees with theirs.
  Status agreed = agree(comm, local);
  if (!agreed.is_ok()) *out = LoadedDecomp();
  return agreed;
}

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
