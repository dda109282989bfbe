// The PIO layer's state: PIO names I/O systems, files and decompositions by small integers,
// esmio by opaque handles; these tables translate one into the other. Not thread-safe (nor is
// PIO): a model calls PIO from one thread per task.
#pragma once

#include <esmio.h>
#include <pio.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace esmio_pio {

struct IoSystem {
  esmio_t io = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;  // esmio's communicator of the instance (owned by esmio)
  int error_handler = PIO_INTERNAL_ERROR;
  int rearranger = PIO_REARR_BOX;  // the instance's layout; per-decomposition choices are ignored
  int io_rank = -1;                // this task's rank among the I/O tasks, -1 if it is not one
};

struct Decomp {
  int iosysid = 0;
  esmio_decomp_t handle = nullptr;
  int pio_type = 0;              // the memory type of the arrays written and read through it
  int64_t maplen = 0;            // this task's number of elements, holes included
  bool needs_fill = false;       // some point of the field is written by no task
  std::vector<int64_t> dims;     // the field's shape, slowest first
  std::vector<int64_t> offsets;  // esmio's map (0-based, -1 for holes)
  // PIO writes a decomposition of one dimension fewer than a variable without the record
  // dimension into slice (frame) of the variable's first dimension: the esmio decompositions of
  // those slices, made on first use, by (first dimension's length, frame).
  std::map<std::pair<int64_t, int64_t>, esmio_decomp_t> slices;
};

struct File {
  int iosysid = 0;
  esmio_file_t handle = nullptr;
  int iotype = 0;
  bool writable = false;
  // The mode PIOc_set_fill reports and sets, as PIO keeps it (netCDF's and PnetCDF's file mode);
  // esmio writes the same data in either (see PIOc_set_fill).
  int fill_mode = NC_NOFILL;
  std::map<int, int64_t> frames;  // varid -> record of the next write_darray/read_darray
};

// Lookups return nullptr for an unknown id.
IoSystem *find_iosystem(int iosysid);
File *find_file(int ncid);
Decomp *find_decomp(int ioid);
int add_iosystem(const IoSystem &ios);
int add_file(const File &file);
int add_decomp(const Decomp &decomp);
void remove_iosystem(int iosysid);
void remove_file(int ncid);
void remove_decomp(int ioid);
// The decompositions and open files of every I/O system, for PIOc_finalize to free and close.
std::map<int, Decomp> &decomps();
std::map<int, File> &open_files();

// The error handler for errors without an I/O system (PIO_DEFAULT), and for new I/O systems.
int &default_error_handler();

// Frees decomp's esmio decompositions (its own and its slices'); the first error, or 0.
int free_decomp_handles(Decomp *decomp);

// How a call ends: code 0 returns 0; otherwise the I/O system's error handler decides (NULL:
// the default handler). PIO_INTERNAL_ERROR prints call, code and why, then aborts.
int finish(const IoSystem *ios, int code, const char *call, const std::string &why);
// The same for an esmio return code: mapped to netCDF's code, with esmio's message. esmio says
// ESMIO_EBADID for a bad variable or dimension id as for a bad handle; the layer's handles are
// live, so in a call about a variable (dimension) it is netCDF's bad_id: NC_ENOTVAR
// (NC_EBADDIM), as PIO returns.
int finish_esmio(const IoSystem *ios, int esmio_code, const char *call, int bad_id = PIO_EBADID);
// esmio's error code as the netCDF (or PIO) code a PIO caller expects.
int nc_code(int esmio_code);

// The file (and its I/O system) of ncid; on an unknown ncid, *code is the finished error.
File *file_or_error(int ncid, const char *call, IoSystem **ios, int *code);

// nc_type -> esmio_type: false for a type esmio does not have (unsigned, string).
bool to_esmio_type(nc_type type, esmio_type *out);
// Size in bytes of one value (0 for a type esmio does not have).
int64_t type_size(nc_type type);
// nc_type of C's long.
nc_type long_type();

}  // namespace esmio_pio
