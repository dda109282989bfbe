#include "common/mpiio_path_limit.hpp"

#include <mpi.h>

#include <vector>

namespace esmio {

namespace {

// A component list as Open MPI reads it: "a,b" (only these) or "^a,b" (all but these).
bool excludes(const std::string &list, const std::string &component) {
  if (list.empty()) return false;
  const bool negated = list[0] == '^';
  const bool named = list.find(component) != std::string::npos;
  return negated ? named : !named;
}

// An MPI_T control variable of type MPI_CHAR, or "" where MPI_T has none of that name.
std::string control_variable(const char *wanted) {
  int count = 0;
  if (MPI_T_cvar_get_num(&count) != MPI_SUCCESS) return std::string();
  for (int i = 0; i < count; ++i) {
    char name[256];
    int name_len = static_cast<int>(sizeof name), verbosity = 0, bind = 0, scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, nullptr, nullptr,
                            &bind, &scope) != MPI_SUCCESS ||
        std::string(name) != wanted || type != MPI_CHAR)
      continue;
    MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
    int elements = 0;
    if (MPI_T_cvar_handle_alloc(i, nullptr, &handle, &elements) != MPI_SUCCESS) continue;
    std::vector<char> value(static_cast<std::size_t>(elements > 0 ? elements : 1) + 1, '\0');
    const bool read = MPI_T_cvar_read(handle, value.data()) == MPI_SUCCESS;
    MPI_T_cvar_handle_free(&handle);
    if (read) return std::string(value.data());
  }
  return std::string();
}

MpiioSelection read_selection() {
  MpiioSelection s;
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  if (MPI_Get_library_version(version, &length) == MPI_SUCCESS)
    s.library.assign(version, static_cast<std::size_t>(length));
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS) {
    s.io = control_variable("io");
    s.sharedfp = control_variable("sharedfp");
    MPI_T_finalize();
  }
  return s;
}

}  // namespace

const MpiioSelection &mpiio_selection() {
  static const MpiioSelection selection = read_selection();
  return selection;
}

int64_t mpiio_path_limit(const MpiioSelection &s) {
  if (s.library.rfind("Open MPI v4.", 0) != 0) return -1;
  if (excludes(s.io, "ompio")) return -1;  // ROMIO opens the file
  if (excludes(s.sharedfp, "lockedfile")) return -1;
  return 244;
}

}  // namespace esmio
