// The id tables. Each kind of id has a range of its own, so that an id of one kind passed where
// another is expected is NC_EBADID rather than some other object.
#include "pio_state.hpp"

namespace esmio_pio {
namespace {

template <typename T>
struct Table {
  std::map<int, T> items;
  int next;
  explicit Table(int first) : next(first) {}
  T *find(int id) {
    auto it = items.find(id);
    return it == items.end() ? nullptr : &it->second;
  }
  int add(const T &item) {
    items.emplace(next, item);
    return next++;
  }
};

Table<IoSystem> &iosystems() {
  static Table<IoSystem> table(1);
  return table;
}
Table<File> &files() {
  static Table<File> table(16);
  return table;
}
Table<Decomp> &decomp_table() {
  static Table<Decomp> table(512);
  return table;
}

}  // namespace

IoSystem *find_iosystem(int iosysid) { return iosystems().find(iosysid); }
File *find_file(int ncid) { return files().find(ncid); }
Decomp *find_decomp(int ioid) { return decomp_table().find(ioid); }
int add_iosystem(const IoSystem &ios) { return iosystems().add(ios); }
int add_file(const File &file) { return files().add(file); }
int add_decomp(const Decomp &decomp) { return decomp_table().add(decomp); }
void remove_iosystem(int iosysid) { iosystems().items.erase(iosysid); }
void remove_file(int ncid) { files().items.erase(ncid); }
void remove_decomp(int ioid) { decomp_table().items.erase(ioid); }
std::map<int, Decomp> &decomps() { return decomp_table().items; }
std::map<int, File> &open_files() { return files().items; }

int &default_error_handler() {
  static int handler = PIO_INTERNAL_ERROR;  // PIO's default
  return handler;
}

int free_decomp_handles(Decomp *decomp) {
  int rc = esmio_decomp_free(&decomp->handle);
  for (auto &slice : decomp->slices) {
    const int slice_rc = esmio_decomp_free(&slice.second);
    if (rc == ESMIO_NOERR) rc = slice_rc;
  }
  decomp->slices.clear();
  return rc;
}

File *file_or_error(int ncid, const char *call, IoSystem **ios, int *code) {
  File *file = find_file(ncid);
  *ios = file ? find_iosystem(file->iosysid) : nullptr;
  *code = file ? PIO_NOERR
               : finish(nullptr, PIO_EBADID, call, "no open file has ncid " + std::to_string(ncid));
  return file;
}

bool to_esmio_type(nc_type type, esmio_type *out) {
  switch (type) {
    case NC_BYTE:
      *out = ESMIO_BYTE;
      return true;
    case NC_CHAR:
      *out = ESMIO_CHAR;
      return true;
    case NC_SHORT:
      *out = ESMIO_SHORT;
      return true;
    case NC_INT:
      *out = ESMIO_INT;
      return true;
    case NC_FLOAT:
      *out = ESMIO_FLOAT;
      return true;
    case NC_DOUBLE:
      *out = ESMIO_DOUBLE;
      return true;
    case NC_INT64:
      *out = ESMIO_INT64;
      return true;
    case NC_UBYTE:
      *out = ESMIO_UBYTE;
      return true;
    case NC_USHORT:
      *out = ESMIO_USHORT;
      return true;
    case NC_UINT:
      *out = ESMIO_UINT;
      return true;
    case NC_UINT64:
      *out = ESMIO_UINT64;
      return true;
    default:
      return false;
  }
}

int64_t type_size(nc_type type) {
  switch (type) {
    case NC_BYTE:
    case NC_CHAR:
    case NC_UBYTE:
      return 1;
    case NC_SHORT:
    case NC_USHORT:
      return 2;
    case NC_INT:
    case NC_UINT:
    case NC_FLOAT:
      return 4;
    case NC_DOUBLE:
    case NC_INT64:
    case NC_UINT64:
      return 8;
    default:
      return 0;
  }
}

nc_type long_type() { return sizeof(long) == 8 ? NC_INT64 : NC_INT; }

}  // namespace esmio_pio
