// The backend interface: one storage library behind one abstract class (PnetCDF's dispatch
// table, in C++). Backends see netCDF metadata and lists of (start, count) boxes of packed
// elements; they never see decompositions or plans. Argument checks happen above, in api/.
//
// Collective rules: every method is collective over the communicator the file was created or
// opened on (the I/O tasks' communicator); a rank with nothing to transfer passes zero boxes
// but still calls. The definitions (def_dim, def_var, put_att) are made by every rank, with the
// same arguments, but do not communicate: each rank returns its own outcome, which the caller
// agrees. Methods return Status and never print or abort.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/run.hpp"
#include "common/status.hpp"
#include "esmio.h"

namespace esmio::backend {

// One hyperslab: start/count have one entry per dimension of the variable, the record
// dimension included. Its elements are packed in C order in the caller's buffer.
struct Box {
  std::vector<int64_t> start;
  std::vector<int64_t> count;
};

struct FileOptions {
  std::string format = "cdf5";  // cdf1 | cdf2 | cdf5 | netcdf4
  bool clobber = true;          // create: overwrite an existing file
  int64_t header_pad =
      0;  // free bytes after the header, reserved at the first enddef of a new file
  int64_t max_request_bytes = int64_t(1) << 30;  // split larger transfers into several calls
  // open: refuse a file that ends before the data its header describes (ESMIO_ECORRUPT).
  bool size_check = true;
  // After each write, read back the corners of every box written: MPI-IO components drop some
  // write errors (docs/guarantees.md, "Write errors below esmio").
  bool read_back = true;
  // pnetcdf: the I/O tasks write data with pwrite at the offsets PnetCDF placed it
  // (pnetcdf/direct_write.hpp) instead of through PnetCDF's collective write.
  bool direct_write = true;
  // pnetcdf: the I/O tasks read data with pread at those offsets (pnetcdf/direct_read.hpp).
  bool direct_read = true;
  // pnetcdf with direct_read, a file open read-only: the most bytes a task reads ahead into
  // memory (the read_ahead setting; 0: none).
  int64_t read_ahead = 0;
  // pnetcdf with direct_write: hand written stretches to the disk at once (sync_file_range).
  bool early_writeback = true;
  int64_t align = 0;  // alignment of the data sections in the file (0: the library's default)
  // MPI-IO hints handed to MPI_File_open through the backend, e.g. {"striping_unit", "4194304"}.
  std::vector<std::pair<std::string, std::string>> mpiio_hints;
};

struct DimInfo {
  std::string name;
  int64_t len = 0;  // current length (records written, for the unlimited dimension)
  bool unlimited = false;
};

struct VarInfo {
  std::string name;
  esmio_type type = ESMIO_FLOAT;
  std::vector<int> dimids;
};

// How a variable is stored, for backends with chunked storage (netCDF-4/HDF5). Empty chunks
// and codec "none" mean contiguous, uncompressed storage.
struct VarStorage {
  std::vector<int64_t> chunks;  // one length per dimension, the record dimension included
  bool contiguous = false;      // contiguous storage (no chunks; not for record variables)
  std::string codec = "none";   // none | deflate | zstd
  int level = 0;                // deflate 1-9, zstd -131072..22
  bool shuffle = false;         // byte shuffle before the codec
  // netCDF-C's own quantisation, applied as values are written: none | bitround (digits =
  // significant bits) | granularbr (digits = significant decimal digits).
  std::string quantize = "none";
  int quantize_digits = 0;
  bool compressed() const { return codec != "none"; }
  bool empty() const {
    return chunks.empty() && !contiguous && !compressed() && quantize == "none";
  }
};

// What open() finds in an existing file.
struct Schema {
  std::vector<DimInfo> dims;
  std::vector<VarInfo> vars;
};

// What a backend can do, for the choices the data path makes (HDF5's VFD `query` flags): asked
// of the backend, never read off its name, so that a new backend states its own.
struct Capabilities {
  // Each request is one collective library call: the write cache merges adjacent requests
  // into fewer (netCDF-4/HDF5).
  bool merges_requests = false;
  // Writes dense slabs straight to the file's bytes when FileOptions::direct_write is on: the
  // write cache then hands it whole slabs (PnetCDF's layout, pwrite).
  bool direct_dense_writes = false;
  // Runs on one task and takes whole records there (the gather-to-root baseline).
  bool gathers_to_root = false;
  // Chunked storage per variable: chunking, compression and quantisation
  // (esmio_def_var_chunking, esmio_def_var_compress, esmio_def_var_quantize, the settings).
  bool chunked_storage = false;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual const char *name() const = 0;
  virtual Capabilities capabilities() const = 0;

  virtual Status create(MPI_Comm comm, const std::string &path, const FileOptions &options) = 0;
  virtual Status open(MPI_Comm comm, const std::string &path, bool writable,
                      const FileOptions &options, Schema *schema) = 0;

  // Definition phase; ids are assigned in order from 0, as in netCDF.
  virtual Status def_dim(const std::string &name, int64_t len, int *dimid) = 0;
  virtual Status def_var(const std::string &name, esmio_type type, const std::vector<int> &dimids,
                         int *varid) = 0;
  // varid ESMIO_GLOBAL for a global attribute; values hold len elements of type.
  virtual Status put_att(int varid, const std::string &name, esmio_type type, int64_t len,
                         const void *values) = 0;
  // Chunking and compression of a variable just defined (before enddef). Backends without
  // chunked storage accept only an empty storage.
  virtual Status def_var_storage(int varid, const VarStorage &storage);
  virtual Status enddef() = 0;
  virtual Status redef() = 0;

  virtual Status inq_att(int varid, const std::string &name, esmio_type *type, int64_t *len) = 0;
  // The names of a variable's (or, for ESMIO_GLOBAL, the file's) attributes in netCDF's order.
  virtual Status inq_att_names(int varid, std::vector<std::string> *names) = 0;
  // Reads the attribute converted to memtype (netCDF's conversion); len must be its length.
  virtual Status get_att(int varid, const std::string &name, esmio_type memtype, void *values) = 0;

  // Data phase. buffer holds the boxes' elements packed in box order, of type buftype.
  virtual Status put_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                           const void *buffer) = 0;
  virtual Status get_boxes(int varid, const std::vector<Box> &boxes, esmio_type buftype,
                           void *buffer) = 0;
  // A hint that this rank will soon read the linear ranges `ranges` (offsets in C order within
  // one record, ascending; record ignored for a non-record variable): a backend that reads the
  // file itself starts reading them, and nothing waits for it. Local, never an error. Returns
  // the bytes asked for; the default asks for none.
  virtual int64_t read_ahead(int varid, int64_t record, const std::vector<Run> &ranges);
  // The read of (varid, record) asked for by read_ahead will not be made after all (the
  // prediction did not come true): what is held for it can go. Local; the default holds none.
  virtual void read_ahead_cancel(int varid, int64_t record);
  // Several variables' requests handed over at once, so that a backend with nonblocking
  // requests makes one collective wait for all of them (the write cache's flush). Every rank
  // passes its own list (possibly empty). The default writes them one by one, which is right
  // only for a backend on one rank (serial): collective backends override it.
  struct PutRequest {
    int varid;
    std::vector<Box> boxes;
    esmio_type buftype;
    const void *buffer;
  };
  virtual Status put_requests(const std::vector<PutRequest> &requests);
  // The same, as linear stretches of one record of a variable (offsets in C order within the
  // record, whose shape is `shape`; record ignored for a non-record variable), each with its
  // own values: what the write cache holds, without turning it into boxes. Collective like
  // put_requests. The default makes boxes (record_boxes) for put_requests; a backend that
  // writes stretches itself says so with takes_extents().
  struct Stretch {
    int64_t offset, length;
    const void *values;
  };
  struct ExtentRequest {
    int varid;
    int64_t record;
    bool record_variable;
    const std::vector<int64_t> *shape;
    esmio_type buftype;
    std::vector<Stretch> stretches;
  };
  virtual bool takes_extents() const { return false; }
  virtual Status put_extents(const std::vector<ExtentRequest> &requests);
  virtual Status inq_nrecords(int64_t *nrecords) = 0;

  virtual Status sync() = 0;
  virtual Status close() = 0;
  // Called before close() after a write failed: the file must not claim more than nrecords
  // records (the records whose data reached the file). A backend whose format counts records
  // in a header lowers the count there at close; the default does nothing.
  virtual Status limit_records(int64_t nrecords);
};

// The boxes of the linear ranges `ranges` (offsets within one record of a variable of record
// shape `shape`), with the record index prepended for a record variable: the fewest boxes, in
// file order, each range's elements packed in C order.
std::vector<Box> record_boxes(const std::vector<int64_t> &shape, bool record_variable,
                              int64_t record, const std::vector<Run> &ranges);

// The MPI_Info of options.mpiio_hints for MPI_File_open, or MPI_INFO_NULL when there are none;
// the caller frees it.
MPI_Info make_mpiio_info(const FileOptions &options);

// Cuts box into pieces of at most max_bytes (at elem_bytes per element), appended to pieces in
// C order, so that their elements follow each other in the box's buffer: along the slowest
// dimension with count > 1, recursively down to single elements if need be.
void cut_box(const Box &box, int64_t elem_bytes, int64_t max_bytes, std::vector<Box> *pieces);

// Creates the backend called name ("pnetcdf", "serial"). ESMIO_EBADNAME for an unknown name,
// ESMIO_ENOTBUILT for one known but not built into this library.
Status make_backend(const std::string &name, std::unique_ptr<Backend> *out);

// True if the backend runs on one task and takes whole records there (the gather-to-root
// baseline): the api layer then gathers instead of rearranging.
bool backend_gathers_to_root(const std::string &name);

}  // namespace esmio::backend
