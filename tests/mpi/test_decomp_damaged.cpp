// Damaged decomposition maps loaded with esmio_decomp_load on 3 ranks: each map is damaged where
// only some ranks read (the last process's piece, mostly), so that the rank that finds the
// damage knows the cause and the others do not. Every rank must return ESMIO_EDECOMP with the
// same message, naming the file, the line or entry, and what is wrong, never a disagreement
// about the call. Run on 3 ranks; exits nonzero on failure.
#include <netcdf.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

// Three processes of four elements each, for dims (12): process p holds 4p .. 4p+3.
const std::string kPio =
    "version 2001 npes 3 ndims 1\n12\n0 4\n1 2 3 4\n1 4\n5 6 7 8\n2 4\n9 10 11 12\n";
const std::string kEsmio =
    "esmio-decomp 1\nndims 1\ndims 12\nnprocs 3\nproc 0 4\n0 4\nproc 1 4\n4 4\nproc 2 4\n8 4\n"
    "end\n";

std::string replaced(std::string text, const std::string &from, const std::string &to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) {
    check(false, "test text lacks '" + from + "'");
    return text;
  }
  return text.replace(at, from.size(), to);
}

void write_text(const std::string &path, const std::string &text) {
  if (rank == 0) std::ofstream(path, std::ios::binary) << text;
  MPI_Barrier(MPI_COMM_WORLD);
}

int nc_check(int err, const char *what) {
  if (err != NC_NOERR) check(false, std::string(what) + ": " + nc_strerror(err));
  return err;
}

// An E3SM-IO map with decomposition D1 of dims (12), three processes of four elements, stored
// as raw (1-based) offsets; the last variable in the file is D1.raw_offsets, so cutting cut_bytes
// off the file's end loses the tail of the last process's offsets.
void write_e3sm_map(const std::string &path, off_t cut_bytes) {
  if (rank == 0) {
    int ncid = -1, dim_p = -1, dim_n = -1, nreqs = -1, raw_nreqs = -1, raw = -1;
    if (nc_check(nc_create(path.c_str(), NC_CLOBBER, &ncid), "nc_create") == NC_NOERR) {
      const int dims[1] = {12}, counts[3] = {4, 4, 4}, ones[3] = {1, 1, 1};
      std::vector<int> offsets;
      for (int i = 1; i <= 12; ++i) offsets.push_back(i);
      nc_check(nc_def_dim(ncid, "nprocs", 3, &dim_p), "nc_def_dim");
      nc_check(nc_def_dim(ncid, "D1.total_raw_nreqs", 12, &dim_n), "nc_def_dim");
      nc_check(nc_put_att_int(ncid, NC_GLOBAL, "D1.dims", NC_INT, 1, dims), "nc_put_att");
      nc_check(nc_def_var(ncid, "D1.nreqs", NC_INT, 1, &dim_p, &nreqs), "nc_def_var");
      nc_check(nc_def_var(ncid, "D1.raw_nreqs", NC_INT, 1, &dim_p, &raw_nreqs), "nc_def_var");
      nc_check(nc_def_var(ncid, "D1.raw_offsets", NC_INT, 1, &dim_n, &raw), "nc_def_var");
      nc_check(nc_enddef(ncid), "nc_enddef");
      nc_check(nc_put_var_int(ncid, nreqs, ones), "nc_put_var");
      nc_check(nc_put_var_int(ncid, raw_nreqs, counts), "nc_put_var");
      nc_check(nc_put_var_int(ncid, raw, offsets.data()), "nc_put_var");
      nc_check(nc_close(ncid), "nc_close");
    }
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    const off_t size = static_cast<off_t>(in.tellg());
    if (cut_bytes > 0) check(truncate(path.c_str(), size - cut_bytes) == 0, "truncate " + path);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// The message in the same words on every rank.
bool same_everywhere(const std::string &message) {
  int len = static_cast<int>(message.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string root(static_cast<std::size_t>(len), '\0');
  if (rank == 0) root = message;
  if (len > 0) MPI_Bcast(&root[0], len, MPI_CHAR, 0, MPI_COMM_WORLD);
  int same = root == message, all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

// Loads path on every rank: ESMIO_EDECOMP everywhere, one message everywhere, naming the file
// and, word for word, the cause.
void expect_cause(esmio_t io, const std::string &what, const std::string &path,
                  const std::string &format, const std::string &cause) {
  esmio_decomp_t d = nullptr;
  const int rc = esmio_decomp_load(io, path.c_str(), format.c_str(), &d);
  const std::string message = esmio_last_error();
  expect_all(rc, ESMIO_EDECOMP, what, cause);
  check(message.find(path) != std::string::npos,
        what + ": message does not name the file: " + message);
  check(same_everywhere(message), what + ": messages differ between ranks: " + message);
  if (rc == ESMIO_NOERR) esmio_decomp_free(&d);
}

// A whole map still loads, every rank its own process.
void expect_whole(esmio_t io, const std::string &path, const std::string &format) {
  esmio_decomp_t d = nullptr;
  const int rc = esmio_decomp_load(io, path.c_str(), format.c_str(), &d);
  expect_all(rc, ESMIO_NOERR, "whole " + format + " map");
  if (rc != ESMIO_NOERR) return;
  std::vector<int64_t> offsets(4, -2);
  ok(esmio_decomp_inq_offsets(d, offsets.data(), 4), "inq_offsets");
  for (int64_t i = 0; i < 4; ++i)
    check(offsets[i] == 4 * rank + i, "whole " + format + " map: offset " + std::to_string(i) +
                                          " is " + std::to_string(offsets[i]));
  ok(esmio_decomp_free(&d), "decomp_free");
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  if (nranks != 3) {
    if (rank == 0) std::fprintf(stderr, "test_decomp_damaged: run on 3 ranks\n");
    MPI_Finalize();
    return 1;
  }
  char dir[4096] = {0};
  if (rank == 0) {
    const char *tmp = std::getenv("TMPDIR");
    std::snprintf(dir, sizeof(dir), "%s/esmio_decomp_damaged_XXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) dir[0] = '\0';
  }
  MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (dir[0] == '\0') {
    if (rank == 0) std::fprintf(stderr, "test_decomp_damaged: cannot create a directory\n");
    MPI_Finalize();
    return 1;
  }
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  const std::string base = std::string(dir) + "/";

  const std::string pio = base + "map.dat";
  write_text(pio, kPio.substr(0, kPio.find("2 4\n")));
  expect_cause(io, "pio: last task missing", pio, "pio",
               pio + ":7: file ends early: expected header '2 <count>' of task 2 of 3");
  write_text(pio, replaced(kPio, "2 4\n", "2 5\n"));
  expect_cause(io, "pio: wrong count", pio, "pio",
               pio + ":8: task 2 declares 5 offsets but its line holds 4");
  write_text(pio, replaced(kPio, "5 6 7 8", "5 6 13 8"));
  expect_cause(io, "pio: offset out of range", pio, "pio",
               pio + ":6: task 1: offset 13 is out of range 0..12 (1-based, 0 = hole) for dims 12");
  write_text(pio, replaced(kPio, "2 4\n", "2 99999999999\n"));
  expect_cause(io, "pio: huge count", pio, "pio",
               pio + ":8: task 2 declares 99999999999 offsets but its line holds 4");
  write_text(pio, kPio.substr(0, kPio.size() - 7));
  expect_cause(io, "pio: truncated line", pio, "pio",
               pio + ":8: task 2 declares 4 offsets but its line holds 2 (file ends)");

  const std::string esm = base + "map.esmio";
  write_text(esm, kEsmio.substr(0, kEsmio.find("8 4") + 1));
  expect_cause(io, "esmio: cut in a run", esm, "esmio",
               esm + ":10: file ends early: expected the length of a run of process 2");
  write_text(esm, kEsmio.substr(0, kEsmio.find("end")));
  expect_cause(io, "esmio: cut before end", esm, "esmio",
               esm + ":11: file ends early: expected 'end'");
  write_text(esm, replaced(kEsmio, "8 4\n", "10 4\n"));
  expect_cause(io, "esmio: run overflows the dims", esm, "esmio",
               esm + ":10: process 2: run 10 4: offsets out of range 0..11 for dims 12");
  write_text(esm, replaced(kEsmio, "proc 2 4", "proc 2 9000000000000000000"));
  expect_cause(io, "esmio: huge count", esm, "esmio",
               esm +
                   ":9: process 2: element count 9000000000000000000 is not within 0..1048588 "
                   "(global size plus the hole allowance)");

  const std::string nc = base + "map.nc";
  write_e3sm_map(nc, 8);
  expect_cause(io, "e3sm: cut map", nc, "e3sm:D1",
               nc + ": variable D1.raw_offsets: entry 10 (process 2) = 0 is out of range 1..12 "
                    "(1-based) for dims 12; is the file truncated?");

  // The same files, whole, load: the damage above is what was reported.
  write_text(pio, kPio);
  expect_whole(io, pio, "pio");
  write_text(esm, kEsmio);
  expect_whole(io, esm, "esmio");
  write_e3sm_map(nc, 0);
  expect_whole(io, nc, "e3sm:D1");

  ok(esmio_finalize(&io), "finalize");
  if (rank == 0) std::system(("rm -rf '" + std::string(dir) + "'").c_str());
  return finish("test_decomp_damaged");
}
