// The backends through make_backend(): PnetCDF on every rank of MPI_COMM_WORLD (1-4 ranks, the
// last one with no boxes), serial netCDF on rank 0 alone. Data, attributes and schema must come
// back bit for bit, both backends must write the same data, splitting a request into tiny calls
// must not change the file, and every error must come back the same on every rank.
//
// Run: mpirun -np N test_backends [scratch directory]. Exit status 0 = all checks passed.
#include <mpi.h>
#include <pnetcdf.h>  // only to find where the format puts each variable's bytes

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "backend/pnetcdf/pnetcdf_backend.hpp"
#include "common/types.hpp"

namespace eb = esmio::backend;
using esmio::Status;

namespace {

int g_rank = 0;
int g_size = 1;
int g_failures = 0;

void fail(int line, const std::string &what) {
  ++g_failures;
  std::fprintf(stderr, "rank %d: test_backends.cpp:%d: FAILED: %s\n", g_rank, line, what.c_str());
}

#define CHECK(cond)                     \
  do {                                  \
    if (!(cond)) fail(__LINE__, #cond); \
  } while (0)

#define CHECK_OK(expr)                                                                    \
  do {                                                                                    \
    const Status s_ = (expr);                                                             \
    if (!s_.is_ok())                                                                      \
      fail(__LINE__,                                                                      \
           std::string(#expr) + " -> " + std::to_string(s_.code()) + " " + s_.message()); \
  } while (0)

#define CHECK_CODE(expr, expected)                                                    \
  do {                                                                                \
    const Status s_ = (expr);                                                         \
    if (s_.code() != (expected)) {                                                    \
      fail(__LINE__, std::string(#expr) + " -> " + std::to_string(s_.code()) + " '" + \
                         s_.message() + "', expected " + std::to_string(expected));   \
    }                                                                                 \
  } while (0)

// True if code (and message length) is the same on every rank of comm.
bool same_on_all(MPI_Comm comm, const Status &s) {
  long long mine[2] = {s.code(), static_cast<long long>(s.message().size())};
  long long lo[2];
  long long hi[2];
  MPI_Allreduce(mine, lo, 2, MPI_LONG_LONG, MPI_MIN, comm);
  MPI_Allreduce(mine, hi, 2, MPI_LONG_LONG, MPI_MAX, comm);
  return lo[0] == hi[0] && lo[1] == hi[1];
}

// ---- the test file's contents ---------------------------------------------------------------

constexpr int64_t kRecords = 3;
constexpr int64_t kY = 5;
constexpr int64_t kX = 7;

struct VarSpec {
  std::string name;
  esmio_type type;
  std::vector<int> dimids;  // 0 time, 1 y, 2 x
};

std::vector<esmio_type> types_for(const std::string &format) {
  std::vector<esmio_type> types = {ESMIO_BYTE, ESMIO_CHAR,  ESMIO_SHORT,
                                   ESMIO_INT,  ESMIO_FLOAT, ESMIO_DOUBLE};
  if (format == "cdf5")
    for (esmio_type t : {ESMIO_INT64, ESMIO_UBYTE, ESMIO_USHORT, ESMIO_UINT, ESMIO_UINT64})
      types.push_back(t);
  return types;
}

std::vector<VarSpec> vars_for(const std::string &format) {
  std::vector<VarSpec> vars;
  for (esmio_type t : types_for(format)) {
    vars.push_back({std::string("rec_") + esmio::type_name(t), t, {0, 1, 2}});
  }
  vars.push_back({"fixed", ESMIO_DOUBLE, {1, 2}});
  vars.push_back({"scalar", ESMIO_INT, {}});
  return vars;
}

std::vector<int64_t> shape_of(const VarSpec &v) {
  const int64_t lens[3] = {kRecords, kY, kX};
  std::vector<int64_t> shape;
  for (int d : v.dimids) shape.push_back(lens[d]);
  return shape;
}

// The value of element i (global C-order index) of variable v, as bytes of type t.
void gen_value(esmio_type t, int v, int64_t i, void *out) {
  switch (t) {
    case ESMIO_BYTE: {
      const int8_t x = static_cast<int8_t>((i * 7 + v) % 251 - 125);
      std::memcpy(out, &x, sizeof x);
      return;
    }
    case ESMIO_CHAR: {
      const char x = static_cast<char>('a' + (i + v) % 26);
      std::memcpy(out, &x, sizeof x);
      return;
    }
    case ESMIO_SHORT: {
      const int16_t x = static_cast<int16_t>((i * 331 + v * 17) % 65000 - 32500);
      std::memcpy(out, &x, sizeof x);
      return;
    }
    case ESMIO_INT: {
      const int32_t x = static_cast<int32_t>((i * 1000003) % 2000000000 - 1000000000 + v);
      std::memcpy(out, &x, sizeof x);
      return;
    }
    case ESMIO_FLOAT: {
      const float x = i == 3 ? std::nanf("") : static_cast<float>((i - 50) * 0.37 + v);
      std::memcpy(out, &x, sizeof x);
      return;
    }
    case ESMIO_DOUBLE: {
      const double x = i == 3 ? std::nan("") : (i - 50) / 3.0 + v * 1e-7;
      std::memcpy(out, &x, sizeof x);
      return;
    }
    case ESMIO_INT64: {
      const int64_t x = (i + 1) * 1000000007LL * (v + 1) - (int64_t(1) << 40);
      std::memcpy(out, &x, sizeof x);
      return;
    }
    // The unsigned types up to their top values, which a signed reading would take as negative.
    case ESMIO_UBYTE: {
      const uint8_t x = static_cast<uint8_t>(255 - (i * 7 + v) % 256);
      std::memcpy(out, &x, sizeof x);
      return;
    }
    case ESMIO_USHORT: {
      const uint16_t x = static_cast<uint16_t>(65535 - (i * 331 + v * 17) % 65536);
      std::memcpy(out, &x, sizeof x);
      return;
    }
    case ESMIO_UINT: {
      const uint32_t x = 4294967295U - static_cast<uint32_t>((i * 1000003 + v) % 4000000000LL);
      std::memcpy(out, &x, sizeof x);
      return;
    }
    case ESMIO_UINT64: {
      const uint64_t x = ~uint64_t(0) - static_cast<uint64_t>((i + 1) * 1000000007LL * (v + 1));
      std::memcpy(out, &x, sizeof x);
      return;
    }
  }
}

// Global C-order indices of a box's elements, in the box's own C order.
std::vector<int64_t> box_indices(const eb::Box &box, const std::vector<int64_t> &shape) {
  std::vector<int64_t> out;
  const size_t nd = shape.size();
  int64_t n = 1;
  for (int64_t c : box.count) n *= c;
  if (n == 0) return out;
  std::vector<int64_t> pos(nd, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t linear = 0;
    for (size_t d = 0; d < nd; ++d) linear = linear * shape[d] + box.start[d] + pos[d];
    out.push_back(linear);
    for (size_t d = nd; d-- > 0;) {
      if (++pos[d] < box.count[d]) break;
      pos[d] = 0;
    }
  }
  return out;
}

// Decomposition "rows": each (record, y) row is one box, dealt round-robin to the first
// max(1, nranks-1) ranks; the last rank of several gets nothing. "columns": each writer gets a
// range of x across all records and rows, a box with count > 1 in every dimension.
std::vector<eb::Box> boxes_for(const VarSpec &v, int kind, int rank, int nranks) {
  std::vector<eb::Box> boxes;
  const int writers = nranks > 1 ? nranks - 1 : 1;
  const std::vector<int64_t> shape = shape_of(v);
  // Every rank also passes an empty box, which must be harmless.
  if (!shape.empty())
    boxes.push_back({std::vector<int64_t>(shape.size(), 0), std::vector<int64_t>(shape.size(), 0)});
  if (shape.empty()) {
    if (rank == 0) boxes.push_back({{}, {}});
    return boxes;
  }
  const size_t nd = shape.size();
  if (kind == 0) {
    const int64_t rows = nd == 3 ? kRecords * kY : kY;
    for (int64_t row = 0; row < rows; ++row) {
      if (row % writers != rank) continue;
      eb::Box b;
      if (nd == 3) {
        b.start = {row / kY, row % kY, 0};
        b.count = {1, 1, kX};
      } else {
        b.start = {row, 0};
        b.count = {1, kX};
      }
      boxes.push_back(b);
    }
  } else if (rank < writers) {
    const int64_t x0 = kX * rank / writers;
    const int64_t x1 = kX * (rank + 1) / writers;
    if (x1 > x0) {
      eb::Box b;
      b.start = std::vector<int64_t>(nd, 0);
      b.count = shape;
      b.start[nd - 1] = x0;
      b.count[nd - 1] = x1 - x0;
      boxes.push_back(b);
    }
  }
  return boxes;
}

std::vector<unsigned char> buffer_for(const VarSpec &v, int varindex,
                                      const std::vector<eb::Box> &boxes, esmio_type buftype) {
  const std::vector<int64_t> shape = shape_of(v);
  const size_t elem = esmio::type_size(buftype);
  std::vector<unsigned char> buf;
  for (const eb::Box &b : boxes) {
    for (int64_t i : box_indices(b, shape)) {
      const size_t at = buf.size();
      buf.resize(at + elem);
      gen_value(buftype, varindex, i, buf.data() + at);
    }
  }
  return buf;
}

// The expected values of variable v read as memtype: generated in the file type, converted
// as netCDF converts.
std::vector<unsigned char> expected_as(const VarSpec &v, int varindex,
                                       const std::vector<eb::Box> &boxes, esmio_type memtype) {
  if (memtype == v.type) return buffer_for(v, varindex, boxes, v.type);
  const std::vector<unsigned char> raw = buffer_for(v, varindex, boxes, v.type);
  const size_t n = raw.size() / esmio::type_size(v.type);
  std::vector<unsigned char> out(n * esmio::type_size(memtype));
  for (size_t k = 0; k < n; ++k) {
    double x = 0;
    const unsigned char *p = raw.data() + k * esmio::type_size(v.type);
    switch (v.type) {
      case ESMIO_BYTE:
        x = *reinterpret_cast<const int8_t *>(p);
        break;
      case ESMIO_SHORT:
        x = *reinterpret_cast<const int16_t *>(p);
        break;
      case ESMIO_INT:
        x = *reinterpret_cast<const int32_t *>(p);
        break;
      default:
        break;
    }
    // Only integer file types are read converted here; to double that is exact.
    std::memcpy(out.data() + k * sizeof(double), &x, sizeof x);
  }
  return out;
}

// ---- attributes ---------------------------------------------------------------------------------

const char kTitle[] = "esmio backend test";
const int32_t kInts[3] = {1, -2, 3};
const float kScale[1] = {1.5f};
const double kRange[2] = {-1e300, 1e300};
const int16_t kShorts[2] = {-32767, 32767};
const int8_t kBytes[4] = {-128, 0, 1, 127};
const int64_t kInt64s[2] = {-(int64_t(1) << 62), (int64_t(1) << 62) + 5};
const uint8_t kUbytes[3] = {0, 128, 255};
const uint16_t kUshorts[2] = {1, 65535};
const uint32_t kUints[2] = {2147483648U, 4294967295U};
const uint64_t kUint64s[2] = {uint64_t(1) << 63, ~uint64_t(0)};

void put_atts(eb::Backend &be, const std::string &format, int first_var) {
  CHECK_OK(be.put_att(ESMIO_GLOBAL, "title", ESMIO_CHAR, sizeof kTitle - 1, kTitle));
  CHECK_OK(be.put_att(ESMIO_GLOBAL, "ints", ESMIO_INT, 3, kInts));
  CHECK_OK(be.put_att(first_var, "scale", ESMIO_FLOAT, 1, kScale));
  CHECK_OK(be.put_att(first_var, "range", ESMIO_DOUBLE, 2, kRange));
  CHECK_OK(be.put_att(first_var, "shorts", ESMIO_SHORT, 2, kShorts));
  CHECK_OK(be.put_att(first_var, "bytes", ESMIO_BYTE, 4, kBytes));
  if (format == "cdf5") {
    CHECK_OK(be.put_att(first_var, "int64s", ESMIO_INT64, 2, kInt64s));
    CHECK_OK(be.put_att(first_var, "ubytes", ESMIO_UBYTE, 3, kUbytes));
    CHECK_OK(be.put_att(first_var, "ushorts", ESMIO_USHORT, 2, kUshorts));
    CHECK_OK(be.put_att(first_var, "uints", ESMIO_UINT, 2, kUints));
    CHECK_OK(be.put_att(first_var, "uint64s", ESMIO_UINT64, 2, kUint64s));
  }
}

void check_att(eb::Backend &be, int varid, const char *name, esmio_type type, int64_t len,
               const void *values) {
  esmio_type t = ESMIO_BYTE;
  int64_t n = -1;
  CHECK_OK(be.inq_att(varid, name, &t, &n));
  CHECK(t == type);
  CHECK(n == len);
  if (t != type || n != len) return;
  std::vector<unsigned char> got(esmio::type_size(type) * len + 1);
  CHECK_OK(be.get_att(varid, name, type, got.data()));
  CHECK(std::memcmp(got.data(), values, esmio::type_size(type) * len) == 0);
}

void check_atts(eb::Backend &be, const std::string &format, int first_var) {
  check_att(be, ESMIO_GLOBAL, "title", ESMIO_CHAR, sizeof kTitle - 1, kTitle);
  check_att(be, ESMIO_GLOBAL, "ints", ESMIO_INT, 3, kInts);
  check_att(be, first_var, "scale", ESMIO_FLOAT, 1, kScale);
  check_att(be, first_var, "range", ESMIO_DOUBLE, 2, kRange);
  check_att(be, first_var, "shorts", ESMIO_SHORT, 2, kShorts);
  check_att(be, first_var, "bytes", ESMIO_BYTE, 4, kBytes);
  if (format == "cdf5") {
    check_att(be, first_var, "int64s", ESMIO_INT64, 2, kInt64s);
    check_att(be, first_var, "ubytes", ESMIO_UBYTE, 3, kUbytes);
    check_att(be, first_var, "ushorts", ESMIO_USHORT, 2, kUshorts);
    check_att(be, first_var, "uints", ESMIO_UINT, 2, kUints);
    check_att(be, first_var, "uint64s", ESMIO_UINT64, 2, kUint64s);
  }
  // Read converted, as netCDF converts.
  double ints[3] = {0, 0, 0};
  CHECK_OK(be.get_att(ESMIO_GLOBAL, "ints", ESMIO_DOUBLE, ints));
  CHECK(ints[0] == 1 && ints[1] == -2 && ints[2] == 3);
  // Text and numbers do not convert into each other.
  char text[8];
  CHECK_CODE(be.get_att(ESMIO_GLOBAL, "ints", ESMIO_CHAR, text), ESMIO_EBADTYPE);
}

// ---- write and verify one file
// -------------------------------------------------------------------

struct FileSpec {
  std::string backend;
  std::string format;
  int64_t max_request_bytes = int64_t(1) << 30;
  int64_t header_pad = 0;
};

void write_file(const FileSpec &spec, MPI_Comm comm, const std::string &path) {
  int rank = 0;
  int nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  std::unique_ptr<eb::Backend> be;
  CHECK_OK(eb::make_backend(spec.backend, &be));
  if (!be) return;
  CHECK(std::string(be->name()) == spec.backend);
  eb::FileOptions opt;
  opt.format = spec.format;
  opt.max_request_bytes = spec.max_request_bytes;
  opt.header_pad = spec.header_pad;
  const Status created = be->create(comm, path, opt);
  CHECK_OK(created);
  if (!created.is_ok()) return;

  int dimid = -1;
  CHECK_OK(be->def_dim("time", ESMIO_UNLIMITED, &dimid));
  CHECK(dimid == 0);
  CHECK_OK(be->def_dim("y", kY, &dimid));
  CHECK(dimid == 1);
  CHECK_OK(be->def_dim("x", kX, &dimid));
  CHECK(dimid == 2);
  const std::vector<VarSpec> vars = vars_for(spec.format);
  for (size_t v = 0; v < vars.size(); ++v) {
    int varid = -1;
    CHECK_OK(be->def_var(vars[v].name, vars[v].type, vars[v].dimids, &varid));
    CHECK(varid == static_cast<int>(v));
  }
  put_atts(*be, spec.format, 0);
  CHECK_OK(be->enddef());

  for (size_t v = 0; v < vars.size(); ++v) {
    const std::vector<eb::Box> boxes = boxes_for(vars[v], v % 2, rank, nranks);
    const std::vector<unsigned char> buf = buffer_for(vars[v], v, boxes, vars[v].type);
    CHECK_OK(be->put_boxes(v, boxes, vars[v].type, buf.data()));
  }
  int64_t nrec = -1;
  CHECK_OK(be->inq_nrecords(&nrec));
  CHECK(nrec == kRecords);
  CHECK_OK(be->sync());
  CHECK_OK(be->close());
}

void verify_file(const FileSpec &spec, MPI_Comm comm, const std::string &path) {
  int rank = 0;
  int nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  std::unique_ptr<eb::Backend> be;
  CHECK_OK(eb::make_backend(spec.backend, &be));
  if (!be) return;
  eb::FileOptions opt;
  opt.max_request_bytes = spec.max_request_bytes;
  eb::Schema schema;
  const Status opened = be->open(comm, path, false, opt, &schema);
  CHECK_OK(opened);
  if (!opened.is_ok()) return;

  const std::vector<VarSpec> vars = vars_for(spec.format);
  CHECK(schema.dims.size() == 3);
  if (schema.dims.size() == 3) {
    CHECK(schema.dims[0].name == "time" && schema.dims[0].unlimited &&
          schema.dims[0].len == kRecords);
    CHECK(schema.dims[1].name == "y" && !schema.dims[1].unlimited && schema.dims[1].len == kY);
    CHECK(schema.dims[2].name == "x" && !schema.dims[2].unlimited && schema.dims[2].len == kX);
  }
  CHECK(schema.vars.size() == vars.size());
  for (size_t v = 0; v < vars.size() && v < schema.vars.size(); ++v) {
    CHECK(schema.vars[v].name == vars[v].name);
    CHECK(schema.vars[v].type == vars[v].type);
    CHECK(schema.vars[v].dimids == vars[v].dimids);
  }
  int64_t nrec = -1;
  CHECK_OK(be->inq_nrecords(&nrec));
  CHECK(nrec == kRecords);
  check_atts(*be, spec.format, 0);

  for (size_t v = 0; v < vars.size(); ++v) {
    // Read in the other decomposition than the one written, then the whole variable.
    std::vector<eb::Box> boxes = boxes_for(vars[v], (v + 1) % 2, rank, nranks);
    std::vector<unsigned char> want = buffer_for(vars[v], v, boxes, vars[v].type);
    std::vector<unsigned char> got(want.size() + 1, 0xAB);
    CHECK_OK(be->get_boxes(v, boxes, vars[v].type, got.data()));
    CHECK(want.empty() || std::memcmp(got.data(), want.data(), want.size()) == 0);
    CHECK(got[want.size()] == 0xAB);  // nothing written past the request

    const std::vector<int64_t> shape = shape_of(vars[v]);
    boxes = {{std::vector<int64_t>(shape.size(), 0), shape}};
    want = buffer_for(vars[v], v, boxes, vars[v].type);
    got.assign(want.size(), 0);
    CHECK_OK(be->get_boxes(v, boxes, vars[v].type, got.data()));
    if (std::memcmp(got.data(), want.data(), want.size()) != 0) {
      fail(__LINE__, path + ": variable " + vars[v].name + " differs");
    }

    // A buffer type other than the variable's: the backend converts.
    if (vars[v].type == ESMIO_BYTE || vars[v].type == ESMIO_SHORT || vars[v].type == ESMIO_INT) {
      want = expected_as(vars[v], v, boxes, ESMIO_DOUBLE);
      got.assign(want.size(), 0);
      CHECK_OK(be->get_boxes(v, boxes, ESMIO_DOUBLE, got.data()));
      CHECK(std::memcmp(got.data(), want.data(), want.size()) == 0);
    }
  }
  CHECK_OK(be->close());
}

std::vector<char> read_bytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The byte ranges a CDF file assigns to its header and to each variable (every record of a
// record variable). The padding between records belongs to nobody: in NOFILL mode MPI-IO's data
// sieving and two-phase buffers leave whatever was in memory there (seen with ompio and
// romio321), so whole files written through MPI-IO need not be identical; these ranges must be.
std::vector<std::pair<int64_t, int64_t>> owned_ranges(const std::string &path) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  int ncid = -1;
  if (ncmpi_open(MPI_COMM_SELF, path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &ncid) != NC_NOERR) {
    return ranges;
  }
  MPI_Offset header = 0;
  MPI_Offset recsize = 0;
  int nvars = 0;
  int unlimdim = -1;
  ncmpi_inq_header_size(ncid, &header);
  ncmpi_inq_recsize(ncid, &recsize);
  ncmpi_inq_nvars(ncid, &nvars);
  ncmpi_inq_unlimdim(ncid, &unlimdim);
  MPI_Offset nrecs = 0;
  if (unlimdim >= 0) ncmpi_inq_dimlen(ncid, unlimdim, &nrecs);
  ranges.emplace_back(0, header);
  for (int v = 0; v < nvars; ++v) {
    MPI_Offset offset = 0;
    nc_type xtype = NC_NAT;
    int ndims = 0;
    ncmpi_inq_varndims(ncid, v, &ndims);
    std::vector<int> dimids(ndims + 1);  // PnetCDF's NC_MAX_VAR_DIMS is INT_MAX
    ncmpi_inq_varoffset(ncid, v, &offset);
    ncmpi_inq_vartype(ncid, v, &xtype);
    ncmpi_inq_vardimid(ncid, v, dimids.data());
    const bool record = ndims > 0 && dimids[0] == unlimdim;
    int64_t bytes = static_cast<int64_t>(esmio::type_size(static_cast<esmio_type>(xtype)));
    for (int d = record ? 1 : 0; d < ndims; ++d) {
      MPI_Offset len = 0;
      ncmpi_inq_dimlen(ncid, dimids[d], &len);
      bytes *= len;
    }
    for (MPI_Offset r = 0; r < (record ? nrecs : 1); ++r) {
      ranges.emplace_back(offset + r * recsize, bytes);
    }
  }
  ncmpi_close(ncid);
  return ranges;
}

// True if both files have the same layout and the same bytes in it.
bool same_contents(const std::string &a, const std::string &b) {
  const auto ranges = owned_ranges(a);
  if (ranges.empty() || ranges != owned_ranges(b)) return false;
  const std::vector<char> x = read_bytes(a);
  const std::vector<char> y = read_bytes(b);
  for (const auto &[offset, bytes] : ranges) {
    if (static_cast<int64_t>(x.size()) < offset + bytes ||
        static_cast<int64_t>(y.size()) < offset + bytes ||
        !std::equal(x.begin() + offset, x.begin() + offset + bytes, y.begin() + offset)) {
      return false;
    }
  }
  return true;
}

int64_t file_size(const std::string &path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? -1 : static_cast<int64_t>(n);
}

// ---- the tests --------------------------------------------------------------------------------

void test_registry() {
  std::unique_ptr<eb::Backend> be;
  Status s = eb::make_backend("nosuch", &be);
  CHECK(s.code() == ESMIO_EBADNAME);
  CHECK(s.message().find("nosuch") != std::string::npos);
  CHECK(s.message().find("pnetcdf") != std::string::npos);
  CHECK(s.message().find("serial") != std::string::npos);
  CHECK(s.message().find("netcdf4") != std::string::npos);
  CHECK(!be);
  CHECK_OK(eb::make_backend("netcdf4", &be));
  CHECK(be && std::string(be->name()) == "netcdf4");
  CHECK(!eb::backend_gathers_to_root("netcdf4"));
  CHECK_OK(eb::make_backend("pnetcdf", &be));
  CHECK(be && std::string(be->name()) == "pnetcdf");
  CHECK_OK(eb::make_backend("serial", &be));
  CHECK(be && std::string(be->name()) == "serial");
  CHECK(eb::backend_gathers_to_root("serial"));
  CHECK(!eb::backend_gathers_to_root("pnetcdf"));
  CHECK(!eb::backend_gathers_to_root("nosuch"));
  // What each backend says it can do agrees with the registry and with the data path's
  // choices: only netCDF-4 takes chunked storage and merged requests, only PnetCDF writes
  // dense slabs directly, only serial gathers to its root.
  for (const std::string name : {"pnetcdf", "netcdf4", "serial"}) {
    CHECK_OK(eb::make_backend(name, &be));
    const eb::Capabilities c = be->capabilities();
    CHECK(c.gathers_to_root == eb::backend_gathers_to_root(name));
    CHECK(c.gathers_to_root == (name == "serial"));
    CHECK(c.chunked_storage == (name == "netcdf4"));
    CHECK(c.merges_requests == (name == "netcdf4"));
    CHECK(c.direct_dense_writes == (name == "pnetcdf"));
  }
}

// Every call of a split request fits the limit, and the calls together hold the request's
// elements in the request's order.
void check_split(const std::vector<eb::Box> &boxes, const std::vector<int64_t> &shape,
                 int64_t elem_bytes, int64_t max_bytes, int64_t expected_calls) {
  const int nd = static_cast<int>(shape.size());
  const auto calls = eb::pnetcdf::split_request(boxes, nd, elem_bytes, max_bytes);
  if (expected_calls >= 0) CHECK(static_cast<int64_t>(calls.size()) == expected_calls);
  std::vector<int64_t> want;
  for (const eb::Box &b : boxes) {
    const auto idx = box_indices(b, shape);
    want.insert(want.end(), idx.begin(), idx.end());
  }
  std::vector<int64_t> got;
  int64_t next = 0;
  for (const auto &call : calls) {
    CHECK(call.first_element == next);
    CHECK(call.nelems * elem_bytes <= std::max(max_bytes, elem_bytes));
    CHECK(call.nboxes > 0);
    int64_t n = 0;
    for (int64_t b = 0; b < call.nboxes; ++b) {
      eb::Box piece;
      piece.start.assign(call.starts.begin() + b * nd, call.starts.begin() + (b + 1) * nd);
      piece.count.assign(call.counts.begin() + b * nd, call.counts.begin() + (b + 1) * nd);
      const auto idx = box_indices(piece, shape);
      n += static_cast<int64_t>(idx.size());
      got.insert(got.end(), idx.begin(), idx.end());
    }
    CHECK(n == call.nelems);
    next += call.nelems;
  }
  CHECK(got == want);
}

void test_split() {
  const std::vector<int64_t> shape = {3, 5, 7};
  const eb::Box whole{{0, 0, 0}, {3, 5, 7}};
  check_split({whole}, shape, 8, int64_t(1) << 30, 1);  // within the limit: one call
  check_split({whole}, shape, 8, 64, 15);               // one 56-byte row per call
  check_split({whole}, shape, 8, 280, 3);               // one record per call
  check_split({whole}, shape, 8, 8, 105);               // one element per call
  check_split({whole}, shape, 8, 1, 105);               // below one element: still one
  check_split({whole}, shape, 4, 64, -1);
  check_split({{{1, 2, 3}, {0, 2, 2}}}, shape, 8, 64, 0);  // empty boxes vanish
  // Random boxes and limits.
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<eb::Box> boxes;
    const int nboxes = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < nboxes; ++k) {
      eb::Box b;
      for (int d = 0; d < 3; ++d) {
        const int64_t s = rng() % shape[d];
        b.start.push_back(s);
        b.count.push_back(rng() % (shape[d] - s + 1));
      }
      boxes.push_back(b);
    }
    const int64_t elem = int64_t(1) << (rng() % 4);
    check_split(boxes, shape, elem, 1 + rng() % 300, -1);
  }
}

void test_roundtrip(const std::string &dir) {
  for (const std::string format : {"cdf1", "cdf2", "cdf5"}) {
    const std::string ppath = dir + "/pnetcdf_" + format + ".nc";
    const std::string spath = dir + "/serial_" + format + ".nc";
    const std::string qpath = dir + "/pnetcdf_split_" + format + ".nc";
    const FileSpec pspec{"pnetcdf", format};
    const FileSpec sspec{"serial", format};
    FileSpec qspec{"pnetcdf", format};
    qspec.max_request_bytes = 64;

    write_file(pspec, MPI_COMM_WORLD, ppath);
    verify_file(pspec, MPI_COMM_WORLD, ppath);
    if (g_rank == 0) {
      write_file(sspec, MPI_COMM_SELF, spath);
      verify_file(sspec, MPI_COMM_SELF, spath);
      verify_file(sspec, MPI_COMM_SELF, ppath);  // PnetCDF's file through netCDF-C
    }
    MPI_Barrier(MPI_COMM_WORLD);
    verify_file(pspec, MPI_COMM_WORLD, spath);  // netCDF-C's file through PnetCDF

    // Tiny calls, several per rank and a different number on each: same file.
    write_file(qspec, MPI_COMM_WORLD, qpath);
    verify_file(qspec, MPI_COMM_WORLD, qpath);
    if (g_rank == 0) {
      if (!same_contents(qpath, ppath)) fail(__LINE__, qpath + " differs from " + ppath);
      // Both backends lay the file out alike: header and data are byte-identical.
      if (!same_contents(spath, ppath)) fail(__LINE__, spath + " differs from " + ppath);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

// A buffer type other than the variable's converts; a value out of the file type's range is
// ESMIO_ERANGE on every rank, though only one rank passed it.
void test_conversion(const std::string &dir, const std::string &backend, MPI_Comm comm) {
  int rank = 0;
  int nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  const std::string path = dir + "/convert_" + backend + ".nc";
  std::unique_ptr<eb::Backend> be;
  CHECK_OK(eb::make_backend(backend, &be));
  eb::FileOptions opt;
  CHECK_OK(be->create(comm, path, opt));
  int dim = -1;
  int var = -1;
  CHECK_OK(be->def_dim("n", 4 * nranks, &dim));
  CHECK_OK(be->def_var("f", ESMIO_FLOAT, {dim}, &var));
  CHECK_OK(be->enddef());
  const double in[4] = {0.1, -2.5, 1e10, 3.0 + rank};
  const eb::Box mine{{4 * rank}, {4}};
  CHECK_OK(be->put_boxes(var, {mine}, ESMIO_DOUBLE, in));
  double out[4] = {0, 0, 0, 0};
  CHECK_OK(be->get_boxes(var, {mine}, ESMIO_DOUBLE, out));
  for (int k = 0; k < 4; ++k) CHECK(out[k] == static_cast<double>(static_cast<float>(in[k])));
  const double big[4] = {rank == nranks - 1 ? 1e300 : 1.0, 2.0, 3.0, 4.0};
  const Status s = be->put_boxes(var, {mine}, ESMIO_DOUBLE, big);
  CHECK(s.code() == ESMIO_ERANGE);
  CHECK(same_on_all(comm, s));
  CHECK_OK(be->close());
}

// Attributes added after the data was written fit into header_pad: the data does not move and
// the file does not grow. Without the pad the same addition moves the data.
void test_header_pad(const std::string &dir, const std::string &backend, MPI_Comm comm) {
  for (const int64_t pad : {int64_t(0), int64_t(8192)}) {
    FileSpec spec{backend, "cdf2"};
    spec.header_pad = pad;
    const std::string path = dir + "/pad_" + backend + std::to_string(pad) + ".nc";
    write_file(spec, comm, path);
    MPI_Barrier(comm);
    const int64_t before = file_size(path);
    MPI_Barrier(comm);

    std::unique_ptr<eb::Backend> be;
    CHECK_OK(eb::make_backend(backend, &be));
    eb::FileOptions opt;
    eb::Schema schema;
    CHECK_OK(be->open(comm, path, true, opt, &schema));
    CHECK_OK(be->redef());
    const std::string history(3000, 'h');
    CHECK_OK(be->put_att(ESMIO_GLOBAL, "history", ESMIO_CHAR, history.size(), history.data()));
    CHECK_OK(be->enddef());
    CHECK_OK(be->close());
    MPI_Barrier(comm);
    const int64_t after = file_size(path);
    if (pad > 0) {
      CHECK(after == before);
    } else {
      CHECK(after > before);
    }
    verify_file(spec, comm, path);
  }
}

void test_errors(const std::string &dir, const std::string &backend, MPI_Comm comm) {
  std::unique_ptr<eb::Backend> be;
  CHECK_OK(eb::make_backend(backend, &be));
  eb::FileOptions opt;
  eb::Schema schema;

  // A missing directory: the file system refuses, the same on every rank.
  const std::string missing = dir + "/no/such/dir/x.nc";
  Status s = be->create(comm, missing, opt);
  CHECK(s.code() == ESMIO_EIO);
  CHECK(s.message().find(missing) != std::string::npos);
  CHECK(same_on_all(comm, s));
  s = be->open(comm, dir + "/missing.nc", false, opt, &schema);
  CHECK(s.code() == ESMIO_EIO);
  CHECK(same_on_all(comm, s));

  // Not a netCDF file.
  const std::string text = dir + "/not_netcdf.nc";
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) std::ofstream(text) << "this is not a netCDF file, just some text\n";
  MPI_Barrier(comm);
  s = be->open(comm, text, false, opt, &schema);
  CHECK(s.code() == ESMIO_ENOTNC);
  CHECK(same_on_all(comm, s));

  // clobber = false on an existing file.
  eb::FileOptions noclobber;
  noclobber.clobber = false;
  s = be->create(comm, text, noclobber);
  CHECK(s.code() == ESMIO_EEXIST);
  CHECK(same_on_all(comm, s));

  // Unknown format.
  eb::FileOptions badformat;
  badformat.format = "cdf9";
  s = be->create(comm, dir + "/badformat.nc", badformat);
  CHECK(s.code() == ESMIO_EBADNAME);
  CHECK(s.message().find("cdf9") != std::string::npos);
  CHECK(same_on_all(comm, s));

  // The backend is usable after all these failures; a read-only file refuses writes; one
  // rank's bad box fails every rank alike, without a hang.
  const std::string path = dir + "/errors_" + backend + ".nc";
  FileSpec spec{backend, "cdf5"};
  write_file(spec, comm, path);
  CHECK_OK(be->open(comm, path, false, opt, &schema));
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  const int32_t value = 7;
  const int scalar = static_cast<int>(vars_for("cdf5").size()) - 1;
  s = be->put_boxes(scalar, {{{}, {}}}, ESMIO_INT, &value);
  CHECK(s.code() == ESMIO_EPERM);
  CHECK(same_on_all(comm, s));
  std::vector<double> sink(kX * kY);
  std::vector<eb::Box> boxes;
  if (rank == nranks - 1) boxes.push_back({{0, kY, 0}, {1, 1, kX}});  // beyond y
  s = be->get_boxes(4, boxes, ESMIO_DOUBLE, sink.data());
  CHECK(s.code() != ESMIO_NOERR);
  CHECK(s.message().find("rec_float") != std::string::npos);
  CHECK(same_on_all(comm, s));
  boxes.assign(1, {{0, 0}, {1, 1}});  // wrong number of dimensions
  s = be->get_boxes(4, rank == 0 ? boxes : std::vector<eb::Box>(), ESMIO_DOUBLE, sink.data());
  CHECK(s.code() == ESMIO_EINVAL);
  CHECK(same_on_all(comm, s));
  CHECK_CODE(be->get_boxes(99, {}, ESMIO_DOUBLE, sink.data()), ESMIO_ENOTVAR);
  // Still good for a correct read afterwards.
  boxes.assign(1, {{0, 0, 0}, {1, kY, kX}});
  CHECK_OK(be->get_boxes(5, boxes, ESMIO_DOUBLE, sink.data()));
  CHECK_OK(be->close());
  CHECK_CODE(be->close(), ESMIO_EBADID);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);

  // A scratch directory made by rank 0 and shared with the others.
  std::string dir;
  if (g_rank == 0) {
    std::string base = argc > 1 ? argv[1] : std::filesystem::temp_directory_path().string();
    std::string pattern = base + "/esmio_test_backends_XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr) dir = buf.data();
  }
  int len = static_cast<int>(dir.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  dir.resize(len);
  MPI_Bcast(dir.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (dir.empty()) {
    if (g_rank == 0) std::fprintf(stderr, "test_backends: cannot make a scratch directory\n");
    MPI_Finalize();
    return 2;
  }

  test_registry();
  test_split();
  test_roundtrip(dir);
  test_conversion(dir, "pnetcdf", MPI_COMM_WORLD);
  test_header_pad(dir, "pnetcdf", MPI_COMM_WORLD);
  test_errors(dir, "pnetcdf", MPI_COMM_WORLD);
  if (g_rank == 0) {
    test_conversion(dir, "serial", MPI_COMM_SELF);
    test_header_pad(dir, "serial", MPI_COMM_SELF);
    test_errors(dir, "serial", MPI_COMM_SELF);
  }
  if (g_size > 1) {
    // The serial backend takes one task, never a communicator of several.
    std::unique_ptr<eb::Backend> be;
    CHECK_OK(eb::make_backend("serial", &be));
    const Status s = be->create(MPI_COMM_WORLD, dir + "/serial_world.nc", eb::FileOptions());
    CHECK(s.code() == ESMIO_EINVAL);
  }

  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_rank == 0) {
    std::error_code ec;
    if (failures == 0) std::filesystem::remove_all(dir, ec);
    std::printf("test_backends (%d ranks): %s (%d failed checks)%s%s\n", g_size,
                failures == 0 ? "OK" : "FAILED", failures, failures ? "; files kept in " : "",
                failures ? dir.c_str() : "");
  }
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
