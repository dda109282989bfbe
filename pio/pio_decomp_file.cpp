// PIO's netCDF decomposition files (PIOc_write_nc_decomp, PIOc_read_nc_decomp), in PIO 2.7's
// layout: global attributes PIO_library_version, max_maplen, title and history (when given),
// source and array_order ("C" or "Fortran"); dimensions dims (the field's rank), task (the
// number of tasks) and map_element (the longest map); int variables global_size(dims),
// maplen(task) and map(task, map_element), each task's row its 0-based map (-1 for a hole),
// padded with NC_FILL_INT. Texts are written with their terminating NUL, as PIO writes them.
//
// PIO gathers every task's map on every task to write and read the file; here each task writes
// and reads its own row of map through an esmio decomposition of that variable, so that no task
// holds more than its own map and the list of map lengths.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "pio_state.hpp"

using namespace esmio_pio;

namespace {

// The version of PIO whose file layout this is, written as PIO writes its own.
const char *const kPioVersion = "2.7.0";
const char *const kSource = "Decomposition file produced by PIO library.";

int put_text(esmio_file_t file, const char *name, const char *text) {
  return esmio_put_att(file, ESMIO_GLOBAL, name, ESMIO_CHAR,
                       static_cast<int64_t>(std::strlen(text)) + 1, text);
}

// A text attribute into out (room for PIO_MAX_NAME + 1), cut there and NUL-terminated; an
// absent one is the empty text when optional, else ESMIO_ENOTATT.
int get_text(esmio_file_t file, const char *name, bool optional, char *out) {
  esmio_type type;
  int64_t len = 0;
  int rc = esmio_inq_att(file, ESMIO_GLOBAL, name, &type, &len);
  std::string text;
  if (rc == ESMIO_NOERR) {
    std::vector<char> buf(static_cast<std::size_t>(len) + 1, '\0');
    rc = esmio_get_att(file, ESMIO_GLOBAL, name, ESMIO_CHAR, len, buf.data());
    text = buf.data();
  } else if (rc == ESMIO_ENOTATT && optional) {
    rc = ESMIO_NOERR;
  }
  if (rc == ESMIO_NOERR && out) {
    const std::size_t n = std::min<std::size_t>(text.size(), PIO_MAX_NAME);
    std::memcpy(out, text.data(), n);
    out[n] = '\0';
  }
  return rc;
}

// As in PIO, whose file calls take their arguments from the first task, the file is named by
// task 0 of the I/O system (PIO's own tests give each task a name of its own).
std::string name_of_task0(const IoSystem *ios, const char *filename) {
  std::string name(filename);
  int len = static_cast<int>(name.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, ios->comm);
  name.resize(static_cast<std::size_t>(len));
  MPI_Bcast(&name[0], len, MPI_CHAR, 0, ios->comm);
  return name;
}

// The esmio decomposition by which this task writes or reads its row of map(ntasks, width):
// the first len points of row row.
int row_decomp(esmio_t io, int64_t ntasks, int64_t width, int64_t row, int64_t len,
               esmio_decomp_t *decomp) {
  const int64_t dims[2] = {ntasks, width};
  std::vector<int64_t> offsets(static_cast<std::size_t>(len));
  for (int64_t i = 0; i < len; ++i) offsets[i] = row * width + i;
  return esmio_decomp_create(io, 2, dims, len, offsets.data(), decomp);
}

int write_file(const IoSystem *ios, esmio_file_t file, const Decomp &decomp, const char *title,
               const char *history, int fortran_order) {
  int ntasks = 1, rank = 0;
  MPI_Comm_size(ios->comm, &ntasks);
  MPI_Comm_rank(ios->comm, &rank);
  std::vector<int64_t> maplens(static_cast<std::size_t>(ntasks));
  MPI_Allgather(&decomp.maplen, 1, MPI_INT64_T, maplens.data(), 1, MPI_INT64_T, ios->comm);
  const int64_t max_maplen = *std::max_element(maplens.begin(), maplens.end());
  // Map lengths are int (PIOc_init_decomp's maplen); the map's offsets, int in the file too,
  // are checked by esmio's conversion (ESMIO_ERANGE past 2^31 - 1).
  const int max_maplen_int = static_cast<int>(max_maplen);
  int rc = put_text(file, "PIO_library_version", kPioVersion);
  if (rc == ESMIO_NOERR)
    rc = esmio_put_att(file, ESMIO_GLOBAL, "max_maplen", ESMIO_INT, 1, &max_maplen_int);
  if (rc == ESMIO_NOERR && title) rc = put_text(file, "title", title);
  if (rc == ESMIO_NOERR && history) rc = put_text(file, "history", history);
  if (rc == ESMIO_NOERR) rc = put_text(file, "source", kSource);
  if (rc == ESMIO_NOERR) rc = put_text(file, "array_order", fortran_order ? "Fortran" : "C");
  int dim_dim = -1, task_dim = -1, elem_dim = -1, gsize_var = -1, maplen_var = -1, map_var = -1;
  const int ndims = static_cast<int>(decomp.dims.size());
  if (rc == ESMIO_NOERR) rc = esmio_def_dim(file, "dims", ndims, &dim_dim);
  if (rc == ESMIO_NOERR) rc = esmio_def_dim(file, "task", ntasks, &task_dim);
  if (rc == ESMIO_NOERR) rc = esmio_def_dim(file, "map_element", max_maplen, &elem_dim);
  if (rc == ESMIO_NOERR)
    rc = esmio_def_var(file, "global_size", ESMIO_INT, 1, &dim_dim, &gsize_var);
  if (rc == ESMIO_NOERR) rc = esmio_def_var(file, "maplen", ESMIO_INT, 1, &task_dim, &maplen_var);
  const int map_dims[2] = {task_dim, elem_dim};
  if (rc == ESMIO_NOERR) rc = esmio_def_var(file, "map", ESMIO_INT, 2, map_dims, &map_var);
  if (rc == ESMIO_NOERR) rc = esmio_enddef(file);
  if (rc == ESMIO_NOERR)
    rc = esmio_put_var(file, gsize_var, ESMIO_INT64, decomp.dims.data(), ndims);
  if (rc == ESMIO_NOERR) rc = esmio_put_var(file, maplen_var, ESMIO_INT64, maplens.data(), ntasks);
  esmio_decomp_t row = nullptr;
  if (rc == ESMIO_NOERR) rc = row_decomp(ios->io, ntasks, max_maplen, rank, decomp.maplen, &row);
  // The points past a task's map are written by no task: esmio fills them with the variable's
  // fill value, NC_FILL_INT, as PIO pads the rows.
  if (rc == ESMIO_NOERR)
    rc = esmio_write_darray(file, map_var, 0, row, ESMIO_INT64, decomp.offsets.data(),
                            decomp.maplen);
  if (row) {
    const int free_rc = esmio_decomp_free(&row);
    if (rc == ESMIO_NOERR) rc = free_rc;
  }
  return rc;
}

// What a decomposition file holds for this task: the field's shape, its row of the map
// (0-based, -1 for a hole) and the file's texts.
struct TaskMap {
  std::vector<int> gdims;
  std::vector<PIO_Offset> map;
  bool wrong_tasks = false;  // the file is for another number of tasks than comm has
  bool bad_order = false;    // array_order is neither "C" nor "Fortran"
};

int read_file(const IoSystem *ios, esmio_file_t file, MPI_Comm comm, char *title, char *history,
              int *fortran_order, TaskMap *out) {
  char order[PIO_MAX_NAME + 1];
  int rc = get_text(file, "PIO_library_version", false, nullptr);
  if (rc == ESMIO_NOERR) rc = get_text(file, "array_order", false, order);
  if (rc == ESMIO_NOERR) rc = get_text(file, "title", true, title);
  if (rc == ESMIO_NOERR) rc = get_text(file, "history", true, history);
  if (rc != ESMIO_NOERR) return rc;
  // As in PIO, the order is checked only for a caller who asks for it.
  if (fortran_order) {
    if (std::strcmp(order, "C") != 0 && std::strcmp(order, "Fortran") != 0) {
      out->bad_order = true;
      return ESMIO_NOERR;
    }
    *fortran_order = std::strcmp(order, "Fortran") == 0;
  }
  int dim_dim = -1, task_dim = -1, elem_dim = -1, gsize_var = -1, maplen_var = -1, map_var = -1;
  int64_t ndims = 0, ntasks = 0, width = 0;
  rc = esmio_inq_dimid(file, "dims", &dim_dim);
  if (rc == ESMIO_NOERR) rc = esmio_inq_dimlen(file, dim_dim, &ndims);
  if (rc == ESMIO_NOERR) rc = esmio_inq_dimid(file, "task", &task_dim);
  if (rc == ESMIO_NOERR) rc = esmio_inq_dimlen(file, task_dim, &ntasks);
  if (rc == ESMIO_NOERR) rc = esmio_inq_dimid(file, "map_element", &elem_dim);
  if (rc == ESMIO_NOERR) rc = esmio_inq_dimlen(file, elem_dim, &width);
  if (rc == ESMIO_NOERR) rc = esmio_inq_varid(file, "global_size", &gsize_var);
  if (rc == ESMIO_NOERR) rc = esmio_inq_varid(file, "maplen", &maplen_var);
  if (rc == ESMIO_NOERR) rc = esmio_inq_varid(file, "map", &map_var);
  if (rc != ESMIO_NOERR) return rc;
  out->gdims.resize(static_cast<std::size_t>(ndims));
  std::vector<int64_t> maplens(static_cast<std::size_t>(ntasks));
  rc = esmio_get_var(file, gsize_var, ESMIO_INT, out->gdims.data(), ndims);
  if (rc == ESMIO_NOERR) rc = esmio_get_var(file, maplen_var, ESMIO_INT64, maplens.data(), ntasks);
  if (rc != ESMIO_NOERR) return rc;
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  // As in PIO: the file must be for as many tasks as comm has (every task of the I/O system
  // still takes part in reading, with an empty row, before the error).
  out->wrong_tasks = size != ntasks;
  int64_t len = out->wrong_tasks ? 0 : std::min(std::max<int64_t>(maplens[rank], 0), width);
  esmio_decomp_t row = nullptr;
  rc = row_decomp(ios->io, ntasks, width, out->wrong_tasks ? 0 : rank, len, &row);
  std::vector<int64_t> map(static_cast<std::size_t>(len));
  if (rc == ESMIO_NOERR)
    rc = esmio_read_darray(file, map_var, 0, row, ESMIO_INT64, map.data(), len);
  if (row) {
    const int free_rc = esmio_decomp_free(&row);
    if (rc == ESMIO_NOERR) rc = free_rc;
  }
  out->map.assign(map.begin(), map.end());
  return rc;
}

}  // namespace

extern "C" int PIOc_write_nc_decomp(int iosysid, const char *filename, int cmode, int ioid,
                                    char *title, char *history, int fortran_order) {
  const char *call = "PIOc_write_nc_decomp";
  IoSystem *ios = find_iosystem(iosysid);
  if (!ios)
    return finish(nullptr, PIO_EBADID, call,
                  "no I/O system has iosysid " + std::to_string(iosysid));
  if (!filename) return finish(ios, PIO_EINVAL, call, "file name is NULL");
  if ((title && std::strlen(title) > PIO_MAX_NAME) ||
      (history && std::strlen(history) > PIO_MAX_NAME))
    return finish(ios, PIO_EINVAL, call,
                  "title or history longer than PIO_MAX_NAME (" + std::to_string(PIO_MAX_NAME) +
                      ") characters");
  const Decomp *decomp = find_decomp(ioid);
  if (!decomp || decomp->iosysid != iosysid)
    return finish(ios, PIO_EBADID, call,
                  "no decomposition has ioid " + std::to_string(ioid) + " in I/O system " +
                      std::to_string(iosysid));
  // The file is made as PIO makes it, by PIOc_create: cmode chooses the iotype and format.
  int ncid = -1;
  const std::string name = name_of_task0(ios, filename);
  int code = PIOc_create(iosysid, name.c_str(), cmode | NC_WRITE, &ncid);
  if (code != PIO_NOERR) return code;
  File *file = find_file(ncid);
  const int rc = write_file(ios, file->handle, *decomp, title, history, fortran_order);
  if (rc != ESMIO_NOERR) {
    const int first = finish_esmio(ios, rc, call);
    PIOc_closefile(ncid);
    return first;
  }
  return PIOc_closefile(ncid);
}

extern "C" int PIOc_read_nc_decomp(int iosysid, const char *filename, int *ioidp, MPI_Comm comm,
                                   int pio_type, char *title, char *history, int *fortran_order) {
  const char *call = "PIOc_read_nc_decomp";
  IoSystem *ios = find_iosystem(iosysid);
  if (!ios)
    return finish(nullptr, PIO_EBADID, call,
                  "no I/O system has iosysid " + std::to_string(iosysid));
  if (!filename || !ioidp) return finish(ios, PIO_EINVAL, call, "file name or ioidp is NULL");
  esmio_file_t file = nullptr;
  const std::string name = name_of_task0(ios, filename);
  int rc = esmio_open(ios->io, name.c_str(), ESMIO_NOWRITE, "backend=auto", &file);
  if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, call);
  TaskMap task;
  rc = read_file(ios, file, comm, title, history, fortran_order, &task);
  const int close_rc = esmio_close(&file);
  if (rc == ESMIO_NOERR) rc = close_rc;
  if (rc != ESMIO_NOERR) return finish_esmio(ios, rc, call);
  const std::string what = name + ": ";
  if (task.bad_order)
    return finish(ios, PIO_EINVAL, call, what + "array_order is neither \"C\" nor \"Fortran\"");
  if (task.wrong_tasks)
    return finish(ios, PIO_EINVAL, call,
                  what + "the decomposition is for another number of tasks than comm has");
  return PIOc_init_decomp(iosysid, pio_type, static_cast<int>(task.gdims.size()), task.gdims.data(),
                          static_cast<int>(task.map.size()), task.map.data(), ioidp, 0, nullptr,
                          nullptr);
}
