// The longest path MPI-IO can open. Open MPI 4's ompio aborts the process inside MPI_File_open
// for a path of 245 characters or more when it picks its shared-file-pointer component
// lockedfile (a fixed buffer in that component overflows: "buffer overflow detected"; measured
// with Open MPI 4.1.4, Debian 12's). esmio refuses such a path at esmio_create and esmio_open,
// naming the cause and the settings that avoid it, instead of letting the job die.
#pragma once

#include <cstdint>
#include <string>

namespace esmio {

// What decides it: the MPI library's version string and Open MPI's selections of its io and
// sharedfp components (MCA parameters "io" and "sharedfp": "" for the default, "romio321",
// "^lockedfile", ...).
struct MpiioSelection {
  std::string library;
  std::string io;
  std::string sharedfp;
};

// This process's, read once (MPI_Get_library_version and MPI_T's control variables).
const MpiioSelection &mpiio_selection();

// The longest path (in bytes) MPI_File_open takes with that selection, or -1 where no limit is
// known. Pure.
int64_t mpiio_path_limit(const MpiioSelection &selection);

}  // namespace esmio
