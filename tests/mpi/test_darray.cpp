// Decomposed writes and reads through every layout, I/O task count and backend, compared
// bit for bit with the serial backend (the gather-to-root reference) and with the expected
// values, read back by netCDF-C itself. Run under mpiexec with any number of ranks.
//
//   test_darray [map_file format ...]   extra decompositions loaded with esmio_decomp_load
#include <netcdf.h>
#include <netcdf_filter.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "esmio.h"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

#define CHECK(cond, ...)                                                        \
  do {                                                                          \
    if (!(cond)) {                                                              \
      ++failures;                                                               \
      std::fprintf(stderr, "[rank %d] FAIL %s:%d: ", rank, __FILE__, __LINE__); \
      std::fprintf(stderr, __VA_ARGS__);                                        \
      std::fprintf(stderr, "\n");                                               \
    }                                                                           \
  } while (0)

// A decomposition as the test knows it: global dims and this rank's offsets.
struct Map {
  std::string name;
  std::vector<int64_t> dims;
  std::vector<int64_t> offsets;
};

int64_t size_of(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

Map block_cam_map() {  // (lev, lat, lon) = (4, 6, 10), latitude bands, memory [lat][lev][lon]
  Map m{"cam-block", {4, 6, 10}, {}};
  const int lat0 = rank * 6 / nranks, lat1 = (rank + 1) * 6 / nranks;
  for (int y = lat0; y < lat1; ++y)
    for (int z = 0; z < 4; ++z)
      for (int x = 0; x < 10; ++x) m.offsets.push_back((z * 6 + y) * 10 + x);
  return m;
}

Map random_map_with_holes() {  // (7, 13): 20 % never written, -1 slots, random memory order
  Map m{"random-holes", {7, 13}, {}};
  std::mt19937 rng(1234);
  std::vector<int64_t> all(7 * 13);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(all.size() * 4 / 5);
  for (std::size_t i = 0; i < all.size(); ++i)
    if (static_cast<int>(i % nranks) == rank) {
      if (i % 5 == 0) m.offsets.push_back(-1);
      m.offsets.push_back(all[i]);
    }
  return m;
}

Map first_rank_empty() {  // 1-D 37, rank 0 owns nothing (unless alone), others in reverse order
  Map m{"rank0-empty", {37}, {}};
  const int writers = nranks > 1 ? nranks - 1 : 1;
  const int me = nranks > 1 ? rank - 1 : 0;
  if (me >= 0)
    for (int64_t g = 36; g >= 0; --g)
      if (g % writers == me) m.offsets.push_back(g);
  return m;
}

// The read-back decomposition: a different owner and memory order for every element.
std::vector<int64_t> reader_offsets(const std::vector<int64_t> &dims) {
  std::vector<int64_t> o;
  const int64_t n = size_of(dims);
  for (int64_t g = n - 1; g >= 0; --g)
    if ((g * 7 + 3) % nranks == rank) o.push_back(g);
  return o;
}

struct VarSpec {
  const char *name;
  esmio_type file_type, mem_type;
  bool record;
  bool custom_fill;
};
const VarSpec kVars[] = {
    {"f32_from_f64", ESMIO_FLOAT, ESMIO_DOUBLE, true, false},
    {"f64", ESMIO_DOUBLE, ESMIO_DOUBLE, true, false},
    {"i32_fixed", ESMIO_INT, ESMIO_INT, false, false},
    {"i16_from_i32", ESMIO_SHORT, ESMIO_INT, true, false},
    {"i8_from_i16", ESMIO_BYTE, ESMIO_SHORT, false, false},
    {"i64", ESMIO_INT64, ESMIO_INT64, true, false},
    {"f32_fill", ESMIO_FLOAT, ESMIO_FLOAT, true, true},
};
const int kRecords = 2;

// The value of variable v, record t, file offset g, as a double (exact in every type used).
double value_of(int v, int t, int64_t g) {
  switch (kVars[v].file_type) {
    case ESMIO_BYTE:
      return static_cast<double>((g * 3 + t + v) % 200 - 100);
    case ESMIO_SHORT:
      return static_cast<double>((g * 31 + 7 * v + t) % 30000 - 15000);
    case ESMIO_INT:
      return static_cast<double>(g * 1001 - 5000 * t + v);
    case ESMIO_INT64:
      return static_cast<double>(g * 4096 + t) * 1048576.0;
    default:
      return (1000.0 * v + t) + static_cast<double>(g) * 1.0e-3 + 1.0 / 3.0;
  }
}

std::size_t size_of_type(esmio_type t) {
  switch (t) {
    case ESMIO_BYTE:
    case ESMIO_CHAR:
      return 1;
    case ESMIO_SHORT:
      return 2;
    case ESMIO_INT:
    case ESMIO_FLOAT:
      return 4;
    default:
      return 8;
  }
}

// Stores x as type t at p.
void store(esmio_type t, double x, void *p) {
  switch (t) {
    case ESMIO_BYTE: {
      int8_t v = static_cast<int8_t>(x);
      std::memcpy(p, &v, 1);
      break;
    }
    case ESMIO_SHORT: {
      int16_t v = static_cast<int16_t>(x);
      std::memcpy(p, &v, 2);
      break;
    }
    case ESMIO_INT: {
      int32_t v = static_cast<int32_t>(x);
      std::memcpy(p, &v, 4);
      break;
    }
    case ESMIO_INT64: {
      int64_t v = static_cast<int64_t>(x);
      std::memcpy(p, &v, 8);
      break;
    }
    case ESMIO_FLOAT: {
      float v = static_cast<float>(x);
      std::memcpy(p, &v, 4);
      break;
    }
    default:
      std::memcpy(p, &x, 8);
  }
}

const float kCustomFill = -1.5e30f;

// Default netCDF fill (or the custom one) of variable v, as bytes of its file type.
std::vector<unsigned char> fill_bytes(int v) {
  std::vector<unsigned char> b(size_of_type(kVars[v].file_type));
  switch (kVars[v].file_type) {
    case ESMIO_BYTE:
      store(ESMIO_BYTE, -127, b.data());
      break;
    case ESMIO_SHORT:
      store(ESMIO_SHORT, -32767, b.data());
      break;
    case ESMIO_INT:
      store(ESMIO_INT, -2147483647, b.data());
      break;
    case ESMIO_INT64: {
      int64_t f = -9223372036854775806LL;
      std::memcpy(b.data(), &f, 8);
      break;
    }
    case ESMIO_FLOAT:
      store(ESMIO_FLOAT, kVars[v].custom_fill ? kCustomFill : 9.9692099683868690e+36f, b.data());
      break;
    default:
      store(ESMIO_DOUBLE, 9.9692099683868690e+36, b.data());
  }
  return b;
}

const int kNumVars = static_cast<int>(sizeof kVars / sizeof kVars[0]);

// int64 variables exist in CDF-5 files only.
bool in_format(int v, bool cdf5) { return cdf5 || kVars[v].file_type != ESMIO_INT64; }

std::string var_name(const Map &m, int v) { return m.name + "_" + kVars[v].name; }

void write_file(esmio_t io, const std::string &path, const std::string &settings, bool cdf5,
                const std::vector<Map> &maps, const std::vector<esmio_decomp_t> &decomps) {
  esmio_file_t f;
  ok(esmio_create(io, path.c_str(), settings.c_str(), &f), "create");
  int dt;
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dt), "def_dim time");
  for (std::size_t m = 0; m < maps.size(); ++m) {
    std::vector<int> dimids;
    for (std::size_t d = 0; d < maps[m].dims.size(); ++d) {
      int id;
      ok(esmio_def_dim(f, (maps[m].name + "_d" + std::to_string(d)).c_str(), maps[m].dims[d], &id),
         "def_dim");
      dimids.push_back(id);
    }
    for (int v = 0; v < kNumVars; ++v) {
      if (!in_format(v, cdf5)) continue;
      std::vector<int> ids = dimids;
      if (kVars[v].record) ids.insert(ids.begin(), dt);
      int varid;
      ok(esmio_def_var(f, var_name(maps[m], v).c_str(), kVars[v].file_type,
                       static_cast<int>(ids.size()), ids.data(), &varid),
         "def_var");
      if (kVars[v].custom_fill) ok(esmio_def_var_fill(f, varid, &kCustomFill), "def_var_fill");
    }
  }
  ok(esmio_enddef(f), "enddef");
  // Every (map, variable, record) once, in a shuffled order that every rank shares: the write
  // cache must not care about the order.
  struct Write {
    std::size_t m;
    int v, t;
  };
  std::vector<Write> writes;
  for (std::size_t m = 0; m < maps.size(); ++m)
    for (int v = 0; v < kNumVars; ++v)
      for (int t = 0; in_format(v, cdf5) && t < (kVars[v].record ? kRecords : 1); ++t)
        writes.push_back({m, v, t});
  std::mt19937 rng(static_cast<unsigned>(path.size()));
  std::shuffle(writes.begin(), writes.end(), rng);
  for (const Write &w : writes) {
    int varid;
    ok(esmio_inq_varid(f, var_name(maps[w.m], w.v).c_str(), &varid), "inq_varid");
    const VarSpec &spec = kVars[w.v];
    const std::size_t n = maps[w.m].offsets.size();
    std::vector<unsigned char> buf(std::max<std::size_t>(1, n * size_of_type(spec.mem_type)));
    for (std::size_t i = 0; i < n; ++i) {
      const int64_t g = maps[w.m].offsets[i];
      store(spec.mem_type, g < 0 ? 77 : value_of(w.v, w.t, g),
            buf.data() + i * size_of_type(spec.mem_type));
    }
    // The buffer is reused at once: the cache must have taken its copy.
    ok(esmio_write_darray(f, varid, w.t, decomps[w.m], spec.mem_type, buf.data(),
                          static_cast<int64_t>(n)),
       "write_darray");
    std::fill(buf.begin(), buf.end(), 0xAB);
  }
  ok(esmio_close(&f), "close");
}

// Rank 0 reads both files with netCDF-C and compares every variable byte for byte, and with
// the expected values (fill where nobody wrote).
void compare_files(const std::string &got, const std::string &ref, bool cdf5,
                   const std::vector<Map> &maps, const std::vector<std::vector<char>> &covered,
                   const std::string &label) {
  if (rank != 0) return;
  int a, b;
  if (nc_open(got.c_str(), NC_NOWRITE, &a) != NC_NOERR ||
      nc_open(ref.c_str(), NC_NOWRITE, &b) != NC_NOERR) {
    CHECK(false, "%s: cannot open %s or %s", label.c_str(), got.c_str(), ref.c_str());
    return;
  }
  for (std::size_t m = 0; m < maps.size(); ++m)
    for (int v = 0; v < kNumVars; ++v) {
      if (!in_format(v, cdf5)) continue;
      int varid, refid;
      CHECK(nc_inq_varid(a, var_name(maps[m], v).c_str(), &varid) == NC_NOERR, "%s: no %s",
            label.c_str(), var_name(maps[m], v).c_str());
      CHECK(nc_inq_varid(b, var_name(maps[m], v).c_str(), &refid) == NC_NOERR, "%s: no ref %s",
            label.c_str(), var_name(maps[m], v).c_str());
      if (label.size() >= 7 && label.compare(label.size() - 7, 7, "netcdf4") == 0) {
        size_t nfilters = 0;  // the compression default reached every (non-scalar) variable
        CHECK(nc_inq_var_filter_ids(a, varid, &nfilters, nullptr) == NC_NOERR && nfilters > 0,
              "%s: %s has no filter", label.c_str(), var_name(maps[m], v).c_str());
      }
      const int64_t n = size_of(maps[m].dims);
      const int records = kVars[v].record ? kRecords : 1;
      const std::size_t es = size_of_type(kVars[v].file_type);
      std::vector<unsigned char> x(n * records * es), y(n * records * es), e(n * records * es);
      CHECK(nc_get_var(a, varid, x.data()) == NC_NOERR, "%s: read var %d", label.c_str(), varid);
      CHECK(nc_get_var(b, refid, y.data()) == NC_NOERR, "%s: read ref var %d", label.c_str(),
            varid);
      const std::vector<unsigned char> fill = fill_bytes(v);
      for (int t = 0; t < records; ++t)
        for (int64_t g = 0; g < n; ++g) {
          unsigned char *p = e.data() + (t * n + g) * es;
          if (covered[m][g])
            store(kVars[v].file_type, value_of(v, t, g), p);
          else
            std::memcpy(p, fill.data(), es);
        }
      CHECK(x == y, "%s: %s_%s differs from the serial reference", label.c_str(),
            maps[m].name.c_str(), kVars[v].name);
      CHECK(y == e, "%s: serial reference %s_%s differs from the expected values", label.c_str(),
            maps[m].name.c_str(), kVars[v].name);
    }
  nc_close(a);
  nc_close(b);
}

// Reads every record back into the reader decomposition and checks each value.
void read_back(esmio_t io, const std::string &path, bool cdf5, const std::vector<Map> &maps,
               const std::vector<std::vector<char>> &covered, const std::string &label) {
  esmio_file_t f;
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  int64_t nrec = -1;
  ok(esmio_inq_nrecords(f, &nrec), "inq_nrecords");
  CHECK(nrec == kRecords, "%s: %lld records", label.c_str(), static_cast<long long>(nrec));
  for (std::size_t m = 0; m < maps.size(); ++m) {
    const std::vector<int64_t> offsets = reader_offsets(maps[m].dims);
    esmio_decomp_t d;
    ok(esmio_decomp_create(io, static_cast<int>(maps[m].dims.size()), maps[m].dims.data(),
                           static_cast<int64_t>(offsets.size()), offsets.data(), &d),
       "reader decomp");
    for (int v = 0; v < kNumVars; ++v) {
      if (!in_format(v, cdf5)) continue;
      const std::string name = var_name(maps[m], v);
      int varid;
      ok(esmio_inq_varid(f, name.c_str(), &varid), "inq_varid");
      // Floats are read as double (conversion on read), other types as they are stored.
      const esmio_type ft = kVars[v].file_type;
      const esmio_type read_type = ft == ESMIO_FLOAT ? ESMIO_DOUBLE : ft;
      const std::size_t es = size_of_type(ft), rs = size_of_type(read_type);
      std::vector<unsigned char> buf(std::max<std::size_t>(1, offsets.size()) * rs);
      const std::vector<unsigned char> fill = fill_bytes(v);
      for (int t = 0; t < (kVars[v].record ? kRecords : 1); ++t) {
        ok(esmio_read_darray(f, varid, t, d, read_type, buf.data(),
                             static_cast<int64_t>(offsets.size())),
           "read_darray");
        for (std::size_t i = 0; i < offsets.size(); ++i) {
          const int64_t g = offsets[i];
          std::vector<unsigned char> want(es), have(es);
          if (covered[m][g])
            store(ft, value_of(v, t, g), want.data());
          else
            want = fill;
          if (read_type == ESMIO_DOUBLE && ft == ESMIO_FLOAT) {
            double x;
            std::memcpy(&x, buf.data() + i * rs, 8);
            store(ft, x, have.data());
          } else {
            std::memcpy(have.data(), buf.data() + i * rs, es);
          }
          CHECK(have == want, "%s: read %s record %d offset %lld", label.c_str(), name.c_str(), t,
                static_cast<long long>(g));
        }
      }
    }
    ok(esmio_decomp_free(&d), "free");
  }
  ok(esmio_close(&f), "close");
}

// Partial records: a (6 x 10) variable written one latitude row at a time through a
// decomposition per row (each rank a block of longitudes), rows in a shuffled order, row 4
// never written; two records. The first write of a record fills its holes, later rows must not
// overwrite earlier ones with fill. Compared with the serial backend written the same way.
void write_rows(esmio_t io, const std::string &path, const std::string &settings) {
  const int64_t dims[2] = {6, 10};
  std::vector<esmio_decomp_t> rows(6);
  for (int y = 0; y < 6; ++y) {
    const int64_t x0 = rank * 10 / nranks, x1 = (rank + 1) * 10 / nranks;
    const int64_t start[2] = {y, x0}, count[2] = {1, x1 - x0};
    ok(esmio_decomp_create_block(io, 2, dims, start, count, nullptr, &rows[y]), "row decomp");
  }
  esmio_file_t f;
  int dim[3], var;
  ok(esmio_create(io, path.c_str(), settings.c_str(), &f), "create rows");
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dim[0]), "def_dim");
  ok(esmio_def_dim(f, "y", 6, &dim[1]), "def_dim");
  ok(esmio_def_dim(f, "x", 10, &dim[2]), "def_dim");
  ok(esmio_def_var(f, "rows", ESMIO_FLOAT, 3, dim, &var), "def_var");
  ok(esmio_enddef(f), "enddef");
  std::vector<int> order = {3, 0, 5, 1, 2};  // row 4 stays a hole
  for (int t = 0; t < 2; ++t) {
    std::mt19937 rng(99 + t);
    std::shuffle(order.begin(), order.end(), rng);
    for (int y : order) {
      const int64_t x0 = rank * 10 / nranks, x1 = (rank + 1) * 10 / nranks;
      std::vector<double> v;
      for (int64_t x = x0; x < x1; ++x) v.push_back(value_of(0, t, y * 10 + x));
      ok(esmio_write_darray(f, var, t, rows[y], ESMIO_DOUBLE, v.data(), x1 - x0), "write row");
    }
  }
  ok(esmio_close(&f), "close rows");
  for (esmio_decomp_t &d : rows) ok(esmio_decomp_free(&d), "free row");
}

void check_rows(const std::string &path, const std::string &ref, const std::string &label) {
  if (rank != 0) return;
  int a, b, va, vb;
  std::vector<float> x(120), y(120);
  if (nc_open(path.c_str(), NC_NOWRITE, &a) != NC_NOERR ||
      nc_open(ref.c_str(), NC_NOWRITE, &b) != NC_NOERR) {
    CHECK(false, "%s: cannot open the row files", label.c_str());
    return;
  }
  nc_inq_varid(a, "rows", &va);
  nc_inq_varid(b, "rows", &vb);
  CHECK(nc_get_var_float(a, va, x.data()) == NC_NOERR &&
            nc_get_var_float(b, vb, y.data()) == NC_NOERR,
        "%s: read rows", label.c_str());
  for (int t = 0; t < 2; ++t)
    for (int g = 0; g < 60; ++g) {
      const float want =
          g / 10 == 4 ? 9.9692099683868690e+36f : static_cast<float>(value_of(0, t, g));
      CHECK(x[t * 60 + g] == want, "%s: rows record %d offset %d: %g, want %g", label.c_str(), t, g,
            x[t * 60 + g], want);
      CHECK(y[t * 60 + g] == want, "%s: serial rows record %d offset %d: %g, want %g",
            label.c_str(), t, g, y[t * 60 + g], want);
    }
  nc_close(a);
  nc_close(b);
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string dir = out_dir();
  const std::string stem = dir + "/darray_np" + std::to_string(nranks);

  std::vector<Map> maps = {block_cam_map(), random_map_with_holes(), first_rank_empty()};
  std::vector<std::pair<std::string, std::string>> loaded;  // (path, format)
  for (int i = 1; i + 1 < argc; i += 2) loaded.push_back({argv[i], argv[i + 1]});

  // Layouts under test: (instance settings). Every count of I/O tasks: 1, 2, all; strided.
  std::vector<std::string> configs;
  for (const char *layout : {"box", "subset"}) {
    std::vector<int> counts = {1};
    if (nranks >= 2) counts.push_back(2);
    if (nranks > 2) counts.push_back(nranks);
    for (int ntasks : counts) {
      configs.push_back(std::string("layout=") + layout + ",num_iotasks=" + std::to_string(ntasks));
    }
    if (nranks >= 4 && nranks <= 8)
      configs.push_back(std::string("layout=") + layout +
                        ",num_iotasks=2,iotask_stride=2,iotask_offset=1");
  }
  // Many ranks oversubscribed on few cores make every collective slow: there the layouts and
  // one small cache run, and the 1-4 rank runs cover the other variants.
  const bool oversubscribed = nranks > 8;
  if (!oversubscribed) {
    // Tiny messages and requests: the splitting paths that guard 2 GiB limits, at test size.
    configs.push_back("layout=box,num_iotasks=" + std::to_string(nranks > 1 ? 2 : 1) +
                      ",max_message=40,max_request=64");
    configs.push_back("layout=subset,max_message=24,max_request=40");
    // Real maps run the same splitting paths with limits of a few hundred values: at 40 bytes
    // their tens of thousands of messages would only make the test slow.
    if (!loaded.empty())
      configs.push_back("layout=box,num_iotasks=2,max_message=2K,max_request=4K");
    // The write cache off, flushing after every call, and small enough to flush every few calls.
    configs.push_back("layout=box,cache=size=0");
    configs.push_back("layout=subset,cache=size=64M;flush=write");
    configs.push_back("layout=subset,cache=size=2K;max_request=100");
  }
  configs.push_back("layout=box,cache=size=3K");

  for (std::size_t c = 0; c < configs.size(); ++c) {
    esmio_t io;
    ok(esmio_init(MPI_COMM_WORLD, configs[c].c_str(), &io), "init");
    std::vector<Map> all = maps;
    std::vector<esmio_decomp_t> decomps;
    for (const Map &m : all) {
      esmio_decomp_t d;
      ok(esmio_decomp_create(io, static_cast<int>(m.dims.size()), m.dims.data(),
                             static_cast<int64_t>(m.offsets.size()), m.offsets.data(), &d),
         "decomp_create");
      decomps.push_back(d);
    }
    const bool tiny_limits = configs[c].find("max_message=") != std::string::npos &&
                             configs[c].find("max_message=2K") == std::string::npos;
    for (std::size_t k = 0; k < loaded.size() && !tiny_limits; ++k) {
      esmio_decomp_t d;
      ok(esmio_decomp_load(io, loaded[k].first.c_str(), loaded[k].second.c_str(), &d),
         "decomp_load");
      int nd;
      int64_t dims[ESMIO_MAX_DIMS], nlocal;
      ok(esmio_decomp_inq(d, &nd, dims, &nlocal), "decomp_inq");
      Map m{"loaded" + std::to_string(k), std::vector<int64_t>(dims, dims + nd), {}};
      m.offsets.resize(static_cast<std::size_t>(nlocal));
      ok(esmio_decomp_inq_offsets(d, m.offsets.data(), nlocal), "decomp_inq_offsets");
      all.push_back(m);
      decomps.push_back(d);
    }
    // Saved and loaded back on the same ranks, a decomposition is the same map.
    if (c == 0)
      for (std::size_t k = 0; k < all.size(); ++k)
        for (const char *format : {"esmio", "pio"}) {
          const std::string saved = stem + "_map" + std::to_string(k) + "." + format;
          ok(esmio_decomp_save(decomps[k], saved.c_str(), format), "decomp_save");
          esmio_decomp_t again;
          ok(esmio_decomp_load(io, saved.c_str(), format, &again), "decomp_load saved");
          int nd;
          int64_t dims[ESMIO_MAX_DIMS], nlocal;
          ok(esmio_decomp_inq(again, &nd, dims, &nlocal), "decomp_inq");
          std::vector<int64_t> back(static_cast<std::size_t>(nlocal));
          ok(esmio_decomp_inq_offsets(again, back.data(), nlocal), "decomp_inq_offsets");
          CHECK(std::vector<int64_t>(dims, dims + nd) == all[k].dims, "%s: dims after save/load",
                saved.c_str());
          CHECK(back == all[k].offsets, "%s: offsets after save/load", saved.c_str());
          ok(esmio_decomp_free(&again), "free");
          MPI_Barrier(MPI_COMM_WORLD);
          if (rank == 0) std::remove(saved.c_str());
        }
    // Which offsets anyone writes (test-sized, so every rank may know).
    std::vector<std::vector<char>> covered;
    for (const Map &m : all) {
      std::vector<char> mine(size_of(m.dims), 0), any(size_of(m.dims), 0);
      for (int64_t g : m.offsets)
        if (g >= 0) mine[g] = 1;
      MPI_Allreduce(mine.data(), any.data(), static_cast<int>(mine.size()), MPI_CHAR, MPI_MAX,
                    MPI_COMM_WORLD);
      covered.push_back(any);
    }
    // The serial reference, then every classic format once and every layout in CDF-5 and
    // netCDF-4 (the serial backend writes netCDF-4 too, so each has a reference of its own).
    for (const char *format : {"cdf5", "netcdf4", "cdf2", "cdf1"}) {
      const bool netcdf4 = std::strcmp(format, "netcdf4") == 0;
      const bool every_layout = netcdf4 || std::strcmp(format, "cdf5") == 0;
      const bool int64_ok = every_layout;  // CDF-5 and netCDF-4 hold int64
      if (c > 0 && !every_layout) continue;
      // netCDF-4 in the box layouts: the subset layout reads one collective call per file run,
      // and netCDF-C adds an allreduce to each, which is slow on oversubscribed test ranks.
      if (netcdf4 && (oversubscribed || configs[c].find("layout=box") == std::string::npos))
        continue;
      const std::string ref = stem + "_serial_" + format + ".nc";
      if (c == 0) {
        write_file(io, ref, std::string("backend=serial,format=") + format, int64_ok, all, decomps);
        read_back(io, ref, int64_ok, all, covered, std::string("serial ") + format);
      }
      const std::string path = stem + "_c" + std::to_string(c) + "_" + format + ".nc";
      const std::string label = configs[c] + " " + format;
      // netCDF-4 compressed (lossless), alternating codecs: the same values as the reference.
      const std::string backend = !netcdf4 ? "backend=pnetcdf"
                                           : std::string("backend=netcdf4,compression=default:") +
                                                 (c % 2 == 0 ? "zstd:1" : "deflate:1:shuffle");
      write_file(io, path, backend + ",format=" + format, int64_ok, all, decomps);
      compare_files(path, ref, int64_ok, all, covered, label);
      read_back(io, path, int64_ok, all, covered, label);
      if (rank == 0) std::remove(path.c_str());
      if (rank == 0 && (!every_layout || c + 1 == configs.size())) std::remove(ref.c_str());
    }
    {
      const std::string rows = stem + "_rows_c" + std::to_string(c) + ".nc";
      const std::string rows_ref = stem + "_rows_serial.nc";
      write_rows(io, rows, "backend=pnetcdf");
      write_rows(io, rows_ref, "backend=serial");
      check_rows(rows, rows_ref, configs[c] + " partial records");
      if (rank == 0) {
        std::remove(rows.c_str());
        std::remove(rows_ref.c_str());
      }
    }
    for (esmio_decomp_t &d : decomps) ok(esmio_decomp_free(&d), "free");
    ok(esmio_finalize(&io), "finalize");
  }
  return finish(("test_darray, " + std::to_string(configs.size()) + " layouts").c_str());
}
