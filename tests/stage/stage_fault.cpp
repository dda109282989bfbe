// One staged write for stage_faults.sh: writes RECORDS records of a decomposed float64
// variable (8 MB a record over all ranks) to TARGET through STAGE, closes, and checks that
// every rank got the code the script expects (0, or an esmio code), that a failure's message
// names the staged file and the target, and that the staged file is kept after a failure.
// Prints "closing" before the close (the script kills the job during the copy from there).
// With STAGE_FAULT_RECORD_SLEEP_MS=N each rank sleeps N ms after each record and rank 0 prints
// "writing" after the first one (the script kills a rank during the write from there).
//
//   stage_fault TARGET STAGE RECORDS EXPECTED_CODE [SETTINGS]
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "esmio.h"
#include "stage/blocks.hpp"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 5) {
    if (rank == 0)
      std::fprintf(stderr, "usage: stage_fault TARGET STAGE RECORDS CODE [SETTINGS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string target = argv[1], stage = argv[2];
  const int records = std::atoi(argv[3]), expected = std::atoi(argv[4]);
  const std::string settings = "backend=pnetcdf,stage_block=1M,stage_dir=" + stage +
                               (argc > 5 ? "," + std::string(argv[5]) : "");
  auto must = [&](int rc, const char *what) {
    if (rc != ESMIO_NOERR) {
      std::fprintf(stderr, "[rank %d] %s: %s\n", rank, what, esmio_last_error());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  };
  esmio_t io;
  must(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  const int64_t n = int64_t(1) << 20;  // doubles a record
  std::vector<int64_t> offsets;
  for (int64_t g = n * rank / nranks; g < n * (rank + 1) / nranks; ++g) offsets.push_back(g);
  esmio_decomp_t d;
  must(esmio_decomp_create(io, 1, &n, static_cast<int64_t>(offsets.size()), offsets.data(), &d),
       "decomp");
  esmio_file_t f;
  must(esmio_create(io, target.c_str(), settings.c_str(), &f), "create");
  int dims[2], var;
  must(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
  must(esmio_def_dim(f, "x", n, &dims[1]), "def_dim");
  must(esmio_def_var(f, "V", ESMIO_DOUBLE, 2, dims, &var), "def_var");
  must(esmio_enddef(f), "enddef");
  std::vector<double> v(offsets.size());
  const char *sleep_ms = std::getenv("STAGE_FAULT_RECORD_SLEEP_MS");
  for (int r = 0; r < records; ++r) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = r + offsets[i] * 1e-6;
    must(esmio_write_darray(f, var, r, d, ESMIO_DOUBLE, v.data(), static_cast<int64_t>(v.size())),
         "write");
    if (sleep_ms) {
      if (r == 0 && rank == 0) std::printf("writing\n");
      std::fflush(stdout);
      usleep(static_cast<useconds_t>(std::atoi(sleep_ms)) * 1000);
    }
  }
  must(esmio_decomp_free(&d), "free");
  if (rank == 0) std::printf("closing\n");
  std::fflush(stdout);
  const int rc = esmio_close(&f);
  const std::string message = esmio_last_error();
  int lo = 0, hi = 0, failures = 0;
  MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const std::string staged = esmio::stage::staged_path(stage, target);
  if (lo != hi)
    ++failures, std::fprintf(stderr, "[rank %d] FAIL codes differ: %d %d\n", rank, lo, hi);
  if (rc != expected)
    ++failures, std::fprintf(stderr, "[rank %d] FAIL close returned %d (%s), want %d\n", rank, rc,
                             message.c_str(), expected);
  if (rc != ESMIO_NOERR) {
    if (message.find(staged) == std::string::npos || message.find(target) == std::string::npos)
      ++failures, std::fprintf(stderr, "[rank %d] FAIL message names not both paths: %s\n", rank,
                               message.c_str());
    if (rank == 0 && access(staged.c_str(), F_OK) != 0)
      ++failures, std::fprintf(stderr, "FAIL the staged file is gone after a failure\n");
    if (rank == 0 && access(esmio::stage::copy_path(target).c_str(), F_OK) == 0)
      ++failures, std::fprintf(stderr, "FAIL the failed copy is left next to the target\n");
    if (rank == 0) std::printf("close failed as expected: %s\n", message.c_str());
  } else if (rank == 0 && access(staged.c_str(), F_OK) == 0) {
    ++failures, std::fprintf(stderr, "FAIL the staged file is left after a verified copy\n");
  }
  esmio_finalize(&io);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total ? 1 : 0;
}
