// Asynchronous mode (io_servers): files written through I/O servers hold exactly what a
// synchronous serial write of the same calls holds (every backend, layouts, server counts,
// placements, groups), read back through the servers as written; the roles and the compute
// communicator are what the API says; a server-side failure reaches every compute rank.
#include <netcdf.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "codec/zstd_filter.hpp"
#include "mpi_check.hpp"

using namespace mpi_check;

namespace {

constexpr int kLev = 3, kLat = 5, kLon = 8, kRecords = 3;

// This compute rank's part of a field of size n: element g belongs to rank (7g + 3) mod p,
// every 11th element to nobody (a hole in the file: fill); shift moves ownership between maps.
std::vector<int64_t> scattered_map(int64_t n, int me, int p, int shift) {
  std::vector<int64_t> offsets;
  for (int64_t g = n - 1; g >= 0; --g) {  // descending: memory order is not file order
    if (g % 11 == 5) continue;
    if ((7 * g + 3 + shift) % p == me) offsets.push_back(g);
  }
  if (me == p - 1) offsets.push_back(-1);  // a hole slot in memory
  return offsets;
}

double value_of(int64_t g, int record, int var) {
  return std::sin(0.37 * static_cast<double>(g) + record + 0.5 * var) * 100.0 + 1e-9 * g;
}

struct Decomps {
  esmio_decomp_t d3 = nullptr, d2 = nullptr;
  std::vector<int64_t> o3, o2;
};

Decomps make_decomps(esmio_t io, int me, int p) {
  Decomps d;
  d.o3 = scattered_map(int64_t(kLev) * kLat * kLon, me, p, 0);
  d.o2 = scattered_map(int64_t(kLat) * kLon, me, p, 1);
  const int64_t dims3[3] = {kLev, kLat, kLon}, dims2[2] = {kLat, kLon};
  ok(esmio_decomp_create(io, 3, dims3, static_cast<int64_t>(d.o3.size()), d.o3.data(), &d.d3),
     "decomp 3d");
  ok(esmio_decomp_create(io, 2, dims2, static_cast<int64_t>(d.o2.size()), d.o2.data(), &d.d2),
     "decomp 2d");
  return d;
}

// The same calls, whoever runs them: T float from double, PS double, MASK int, a time axis
// and a coordinate by put_vara, attributes, a fill value, a sync in the middle.
void write_file(esmio_t io, const Decomps &d, const std::string &path,
                const std::string &settings) {
  esmio_file_t f;
  ok(esmio_create(io, path.c_str(), settings.c_str(), &f), ("create " + path).c_str());
  int time, lev, lat, lon;
  ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &time), "def_dim");
  ok(esmio_def_dim(f, "lev", kLev, &lev), "def_dim");
  ok(esmio_def_dim(f, "lat", kLat, &lat), "def_dim");
  ok(esmio_def_dim(f, "lon", kLon, &lon), "def_dim");
  int t_id, ps_id, mask_id, time_id, lat_id;
  const int t_dims[4] = {time, lev, lat, lon}, ps_dims[3] = {time, lat, lon},
            m_dims[2] = {lat, lon};
  ok(esmio_def_var(f, "T", ESMIO_FLOAT, 4, t_dims, &t_id), "def_var T");
  ok(esmio_def_var(f, "PS", ESMIO_DOUBLE, 3, ps_dims, &ps_id), "def_var PS");
  ok(esmio_def_var(f, "MASK", ESMIO_INT, 2, m_dims, &mask_id), "def_var MASK");
  ok(esmio_def_var(f, "time", ESMIO_DOUBLE, 1, &time, &time_id), "def_var time");
  ok(esmio_def_var(f, "lat", ESMIO_DOUBLE, 1, &lat, &lat_id), "def_var lat");
  const float fill = -999.0f;
  ok(esmio_def_var_fill(f, t_id, &fill), "def_var_fill");
  const char title[] = "esmio async test";
  ok(esmio_put_att(f, ESMIO_GLOBAL, "title", ESMIO_CHAR, sizeof title - 1, title), "put_att");
  ok(esmio_put_att(f, t_id, "units", ESMIO_CHAR, 1, "K"), "put_att units");
  const double range[2] = {-100, 100};
  ok(esmio_put_att(f, ps_id, "valid_range", ESMIO_DOUBLE, 2, range), "put_att range");
  ok(esmio_enddef(f), "enddef");

  std::vector<double> lats(kLat);
  for (int j = 0; j < kLat; ++j) lats[j] = -60.0 + 30.0 * j;
  ok(esmio_put_var(f, lat_id, ESMIO_DOUBLE, lats.data(), kLat), "put_var lat");
  std::vector<int> mask(d.o2.size());
  for (std::size_t i = 0; i < d.o2.size(); ++i) mask[i] = d.o2[i] >= 0 ? int(d.o2[i] % 3) : 0;
  ok(esmio_write_darray(f, mask_id, 0, d.d2, ESMIO_INT, mask.data(),
                        static_cast<int64_t>(mask.size())),
     "write MASK");
  for (int r = 0; r < kRecords; ++r) {
    std::vector<double> t(d.o3.size()), ps(d.o2.size());
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = d.o3[i] >= 0 ? value_of(d.o3[i], r, 0) : 0;
    for (std::size_t i = 0; i < ps.size(); ++i) ps[i] = d.o2[i] >= 0 ? value_of(d.o2[i], r, 1) : 0;
    ok(esmio_write_darray(f, t_id, r, d.d3, ESMIO_DOUBLE, t.data(), static_cast<int64_t>(t.size())),
       "write T");
    ok(esmio_write_darray(f, ps_id, r, d.d2, ESMIO_DOUBLE, ps.data(),
                          static_cast<int64_t>(ps.size())),
       "write PS");
    const int64_t start = r, count = 1;
    const double when = 6.0 * r;
    ok(esmio_put_vara(f, time_id, &start, &count, ESMIO_DOUBLE, &when), "put_vara time");
    if (r == 1) ok(esmio_sync(f), "sync");
  }
  ok(esmio_close(&f), ("close " + path).c_str());
}

// Every variable's values and every attribute of a against b, read with netCDF-C.
void compare_files(const std::string &a, const std::string &b, const std::string &label) {
  int fa, fb;
  if (nc_open(a.c_str(), NC_NOWRITE, &fa) != NC_NOERR ||
      nc_open(b.c_str(), NC_NOWRITE, &fb) != NC_NOERR) {
    check(false, label + ": cannot open " + a + " or " + b);
    return;
  }
  int nva = 0, nvb = 0, nga = 0, ngb = 0;
  nc_inq_nvars(fa, &nva);
  nc_inq_nvars(fb, &nvb);
  nc_inq_natts(fa, &nga);
  nc_inq_natts(fb, &ngb);
  check(nva == nvb && nva == 5, label + ": variable count");
  check(nga == ngb, label + ": global attribute count");
  for (int v = -1; v < nva && v < nvb; ++v) {
    int na = 0, nb = 0;
    nc_inq_varnatts(fa, v, &na);
    nc_inq_varnatts(fb, v, &nb);
    check(na == nb, label + ": attribute count of variable " + std::to_string(v));
    for (int k = 0; k < na && k < nb; ++k) {
      char name[NC_MAX_NAME + 1];
      nc_inq_attname(fa, v, k, name);
      nc_type ta, tb;
      size_t la = 0, lb = 0;
      nc_inq_att(fa, v, name, &ta, &la);
      const bool found = nc_inq_att(fb, v, name, &tb, &lb) == NC_NOERR;
      check(found && ta == tb && la == lb, label + ": attribute " + name);
      if (!found || ta != tb || la != lb) continue;
      std::vector<char> va(la * 8 + 1), vb(lb * 8 + 1);
      nc_get_att(fa, v, name, va.data());
      nc_get_att(fb, v, name, vb.data());
      check(va == vb, label + ": values of attribute " + name);
    }
    if (v < 0) continue;
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int nd;
    int dimids[NC_MAX_VAR_DIMS];
    nc_inq_var(fa, v, name, &type, &nd, dimids, nullptr);
    size_t n = 1;
    for (int k = 0; k < nd; ++k) {
      size_t len = 0;
      nc_inq_dimlen(fa, dimids[k], &len);
      n *= len;
    }
    int vb_id = -1;
    nc_inq_varid(fb, name, &vb_id);
    size_t nbv = 1;
    int ndb = 0;
    int dimb[NC_MAX_VAR_DIMS];
    nc_inq_var(fb, vb_id, nullptr, nullptr, &ndb, dimb, nullptr);
    for (int k = 0; k < ndb; ++k) {
      size_t len = 0;
      nc_inq_dimlen(fb, dimb[k], &len);
      nbv *= len;
    }
    check(n == nbv, label + ": size of " + name);
    std::vector<char> da(n * 8), db(n * 8);
    check(nc_get_var(fa, v, da.data()) == NC_NOERR, label + ": reading " + name + " of " + a);
    check(nc_get_var(fb, vb_id, db.data()) == NC_NOERR, label + ": reading " + name + " of " + b);
    check(std::memcmp(da.data(), db.data(), n * 8 > 0 ? n * 8 : 0) == 0 || n != nbv,
          label + ": values of " + name + " differ");
  }
  nc_close(fa);
  nc_close(fb);
}

// Reads the file back through io (the servers, in asynchronous mode) and checks the values.
void read_back(esmio_t io, const Decomps &d, const std::string &path, const std::string &label) {
  esmio_file_t f;
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open");
  int t_id, time_id;
  ok(esmio_inq_varid(f, "T", &t_id), "inq_varid T");
  ok(esmio_inq_varid(f, "time", &time_id), "inq_varid time");
  int64_t nrec = 0;
  ok(esmio_inq_nrecords(f, &nrec), "inq_nrecords");
  check(nrec == kRecords, label + ": records after open");
  std::vector<double> t(d.o3.size());
  for (int r = 0; r < kRecords; ++r) {
    ok(esmio_read_darray(f, t_id, r, d.d3, ESMIO_DOUBLE, t.data(), static_cast<int64_t>(t.size())),
       "read T");
    for (std::size_t i = 0; i < t.size(); ++i)
      if (d.o3[i] >= 0)
        check(t[i] == static_cast<double>(static_cast<float>(value_of(d.o3[i], r, 0))),
              label + ": T read back at offset " + std::to_string(d.o3[i]));
  }
  std::vector<double> times(kRecords);
  ok(esmio_get_var(f, time_id, ESMIO_DOUBLE, times.data(), kRecords), "get_var time");
  for (int r = 0; r < kRecords; ++r) check(times[r] == 6.0 * r, label + ": time read back");
  char units[2] = {0, 0};
  esmio_type type;
  int64_t len = 0;
  ok(esmio_inq_att(f, t_id, "units", &type, &len), "inq_att");
  check(type == ESMIO_CHAR && len == 1, label + ": units attribute");
  ok(esmio_get_att(f, t_id, "units", ESMIO_CHAR, 1, units), "get_att");
  check(units[0] == 'K', label + ": units value");
  int natts = 0;
  ok(esmio_inq_natts(f, t_id, &natts), "inq_natts");
  check(natts == 2, label + ": T has _FillValue and units, got " + std::to_string(natts));
  ok(esmio_close(&f), "close read");
}

// Back-pressure: messages of most of the ring, so that nearly every post waits for the
// server to take the one before, and sizes that alternate, so that the ring wraps around.
void stress(esmio_t io, int me, int p, const std::string &path, const std::string &label) {
  const int64_t big = 16000, small = 700;
  std::vector<int64_t> ob, os;
  for (int64_t g = big * me / p; g < big * (me + 1) / p; ++g) ob.push_back(g);
  for (int64_t g = 0; g < small; ++g)
    if ((g / 3) % p == me) os.push_back(g);
  esmio_decomp_t db, ds;
  ok(esmio_decomp_create(io, 1, &big, static_cast<int64_t>(ob.size()), ob.data(), &db), "big");
  ok(esmio_decomp_create(io, 1, &small, static_cast<int64_t>(os.size()), os.data(), &ds), "small");
  esmio_file_t f;
  ok(esmio_create(io, path.c_str(), "backend=pnetcdf", &f), "create stress");
  int t, x, y, a, b;
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &t), "def_dim");
  ok(esmio_def_dim(f, "x", big, &x), "def_dim");
  ok(esmio_def_dim(f, "y", small, &y), "def_dim");
  const int da[2] = {t, x}, dbd[2] = {t, y};
  ok(esmio_def_var(f, "A", ESMIO_DOUBLE, 2, da, &a), "def_var");
  ok(esmio_def_var(f, "B", ESMIO_FLOAT, 2, dbd, &b), "def_var");
  ok(esmio_enddef(f), "enddef");
  const int records = 12;
  std::vector<double> va(ob.size()), vb(os.size());
  for (int r = 0; r < records; ++r) {
    for (std::size_t i = 0; i < ob.size(); ++i) va[i] = value_of(ob[i], r, 2);
    for (std::size_t i = 0; i < os.size(); ++i) vb[i] = value_of(os[i], r, 3);
    ok(esmio_write_darray(f, a, r, db, ESMIO_DOUBLE, va.data(), static_cast<int64_t>(va.size())),
       "write A");
    ok(esmio_write_darray(f, b, r, ds, ESMIO_DOUBLE, vb.data(), static_cast<int64_t>(vb.size())),
       "write B");
  }
  ok(esmio_close(&f), "close stress");
  ok(esmio_open(io, path.c_str(), ESMIO_NOWRITE, "", &f), "open stress");
  for (int r = 0; r < records; ++r) {
    ok(esmio_read_darray(f, a, r, db, ESMIO_DOUBLE, va.data(), static_cast<int64_t>(va.size())),
       "read A");
    ok(esmio_read_darray(f, b, r, ds, ESMIO_DOUBLE, vb.data(), static_cast<int64_t>(vb.size())),
       "read B");
    bool same = true;
    for (std::size_t i = 0; i < ob.size(); ++i) same = same && va[i] == value_of(ob[i], r, 2);
    for (std::size_t i = 0; i < os.size(); ++i)
      same = same && vb[i] == static_cast<double>(static_cast<float>(value_of(os[i], r, 3)));
    check(same, label + ": stress record " + std::to_string(r) + " read back");
  }
  ok(esmio_close(&f), "close stress read");
  esmio_counter waited{};
  ok(esmio_trace_counter(io, "async_wait", &waited), "trace counter");
  // A 64 KiB ring and messages of a third to all of it: the ranks must have waited.
  check(waited.calls > 0, label + ": no post waited for ring space");
  ok(esmio_decomp_free(&db), "free");
  ok(esmio_decomp_free(&ds), "free");
}

// A real model decomposition (E3SM's maps, loaded by name): one record variable written
// through the servers and by the synchronous reference, compared value for value.
void loaded_map(esmio_t io, esmio_t ref_io, const std::string &map, const std::string &format,
                const std::string &stem, const std::string &settings, MPI_Comm comm,
                const std::string &label) {
  const std::string paths[2] = {stem + "_map.nc", stem + "_map_ref.nc"};
  const esmio_t ios[2] = {io, ref_io};
  const std::string how[2] = {settings, "backend=serial"};
  for (int k = 0; k < 2; ++k) {
    esmio_decomp_t d;
    ok(esmio_decomp_load(ios[k], map.c_str(), format.c_str(), &d), "decomp_load");
    int nd = 0;
    int64_t dims[ESMIO_MAX_DIMS], nlocal = 0;
    ok(esmio_decomp_inq(d, &nd, dims, &nlocal), "decomp_inq");
    std::vector<int64_t> offsets(static_cast<std::size_t>(nlocal));
    ok(esmio_decomp_inq_offsets(d, offsets.data(), nlocal), "decomp_inq_offsets");
    esmio_file_t f;
    ok(esmio_create(ios[k], paths[k].c_str(), how[k].c_str(), &f), "create map file");
    int ids[ESMIO_MAX_DIMS + 1], var;
    ok(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &ids[0]), "def_dim");
    for (int i = 0; i < nd; ++i)
      ok(esmio_def_dim(f, ("d" + std::to_string(i)).c_str(), dims[i], &ids[i + 1]), "def_dim");
    ok(esmio_def_var(f, "F", ESMIO_FLOAT, nd + 1, ids, &var), "def_var");
    ok(esmio_enddef(f), "enddef");
    std::vector<double> v(offsets.size());
    for (int r = 0; r < 2; ++r) {
      for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = offsets[i] >= 0 ? value_of(offsets[i], r, 4) : 0;
      ok(esmio_write_darray(f, var, r, d, ESMIO_DOUBLE, v.data(), nlocal), "write map");
    }
    ok(esmio_close(&f), "close map file");
    ok(esmio_decomp_free(&d), "free");
  }
  int me = 0;
  MPI_Comm_rank(comm, &me);
  if (me == 0) {
    int fa, fb, va, vb;
    check(nc_open(paths[0].c_str(), NC_NOWRITE, &fa) == NC_NOERR &&
              nc_open(paths[1].c_str(), NC_NOWRITE, &fb) == NC_NOERR,
          label + ": open map files");
    nc_inq_varid(fa, "F", &va);
    nc_inq_varid(fb, "F", &vb);
    int nd = 0, dimids[NC_MAX_VAR_DIMS];
    nc_inq_var(fa, va, nullptr, nullptr, &nd, dimids, nullptr);
    size_t n = 1;
    for (int i = 0; i < nd; ++i) {
      size_t len = 0;
      nc_inq_dimlen(fa, dimids[i], &len);
      n *= len;
    }
    std::vector<float> a(n), b(n);
    check(nc_get_var_float(fa, va, a.data()) == NC_NOERR &&
              nc_get_var_float(fb, vb, b.data()) == NC_NOERR,
          label + ": read map files");
    check(n > 1 && std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0,
          label + ": " + map + " through the servers differs from the reference");
    nc_close(fa);
    nc_close(fb);
    std::remove(paths[0].c_str());
    std::remove(paths[1].c_str());
  }
}

// Two files open at once, their writes interleaved (with io_server_groups=2 each file has its
// own servers), a decomposition freed and another made while they are open; then read back.
void two_files(esmio_t io, int me, int p, const std::string &stem, const std::string &label) {
  const int64_t n = 600;
  std::vector<int64_t> offsets;
  for (int64_t g = 0; g < n; ++g)
    if ((g / 7) % p == me) offsets.push_back(g);
  esmio_decomp_t first, second;
  const auto nlocal = static_cast<int64_t>(offsets.size());
  ok(esmio_decomp_create(io, 1, &n, nlocal, offsets.data(), &first), "decomp first");
  const std::string paths[2] = {stem + "_one.nc", stem + "_two.nc"};
  esmio_file_t f[2];
  int var[2];
  for (int k = 0; k < 2; ++k) {
    ok(esmio_create(io, paths[k].c_str(), k ? "backend=netcdf4" : "backend=pnetcdf", &f[k]),
       "create");
    int dims[2];
    ok(esmio_def_dim(f[k], "t", ESMIO_UNLIMITED, &dims[0]), "def_dim");
    ok(esmio_def_dim(f[k], "x", n, &dims[1]), "def_dim");
    ok(esmio_def_var(f[k], "V", k ? ESMIO_FLOAT : ESMIO_DOUBLE, 2, dims, &var[k]), "def_var");
    ok(esmio_enddef(f[k]), "enddef");
  }
  std::vector<double> v(offsets.size());
  for (int r = 0; r < 4; ++r) {
    // The second half of the records through a decomposition made while the files are open.
    if (r == 2) {
      ok(esmio_decomp_free(&first), "free first");
      ok(esmio_decomp_create(io, 1, &n, nlocal, offsets.data(), &second), "decomp second");
    }
    for (int k = 0; k < 2; ++k) {
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = value_of(offsets[i], r, 5 + k);
      ok(esmio_write_darray(f[k], var[k], r, r < 2 ? first : second, ESMIO_DOUBLE, v.data(),
                            nlocal),
         "write interleaved");
    }
  }
  for (int k = 0; k < 2; ++k) ok(esmio_close(&f[k]), "close");
  ok(esmio_decomp_free(&second), "free second");
  if (me == 0)
    for (int k = 0; k < 2; ++k) {
      int nc, id;
      check(nc_open(paths[k].c_str(), NC_NOWRITE, &nc) == NC_NOERR, label + ": open " + paths[k]);
      nc_inq_varid(nc, "V", &id);
      std::vector<double> got(4 * n);
      check(nc_get_var_double(nc, id, got.data()) == NC_NOERR, label + ": read " + paths[k]);
      bool same = true;
      for (int r = 0; r < 4; ++r)
        for (int64_t g = 0; g < n; ++g) {
          const double want = value_of(g, r, 5 + k);
          same = same && got[r * n + g] == (k ? double(float(want)) : want);
        }
      check(same, label + ": " + paths[k] + " written while the other file was open");
      nc_close(nc);
      std::remove(paths[k].c_str());
    }
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  // The servers compress; compute rank 0 reads their files with netCDF-C here.
  ok(esmio::codec::register_zstd_filter().code(), "register zstd");
  const std::string dir = out_dir();
  const std::string stem = dir + "/async_np" + std::to_string(nranks);

  // Real decompositions to write through the servers: (map file, format) pairs.
  std::vector<std::pair<std::string, std::string>> maps;
  for (int i = 1; i + 1 < argc; i += 2) maps.push_back({argv[i], argv[i + 1]});
  // Server counts, placements, groups and server layouts under test.
  std::vector<std::string> configs = {"io_servers=1",
                                      "io_servers=1,layout=subset,cache=size=0,async_buffer=64K"};
  if (!maps.empty())
    configs = {"io_servers=1", "io_servers=2,io_server_placement=spread,layout=subset"};
  else if (nranks >= 4) {
    configs.push_back("io_servers=2,io_server_placement=spread");
    configs.push_back("io_servers=2,io_server_groups=2,cache=size=2K");
    configs.push_back("io_servers=2,layout=box,num_iotasks=1,async_buffer=64K");
  }
  const std::vector<std::string> backends = {"backend=pnetcdf", "backend=netcdf4",
                                             "backend=netcdf4,compression=default:zstd:1",
                                             "backend=serial"};
  for (std::size_t c = 0; c < configs.size(); ++c) {
    esmio_t io;
    ok(esmio_init(MPI_COMM_WORLD, configs[c].c_str(), &io), "init async");
    int role = -1;
    ok(esmio_inq_role(io, &role), "inq_role");
    MPI_Comm comm = MPI_COMM_NULL;
    ok(esmio_inq_comm(io, &comm), "inq_comm");
    if (role == ESMIO_ROLE_SERVER) {
      check(comm == MPI_COMM_NULL, "a server has no compute communicator");
      esmio_file_t f;
      check(esmio_create(io, "x.nc", "", &f) == ESMIO_EINVAL, "a server's instance refuses calls");
      ok(esmio_finalize(&io), "finalize server");
      continue;
    }
    int me = 0, p = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    const int k = std::stoi(configs[c].substr(configs[c].find('=') + 1, 1));
    check(p == nranks - k, configs[c] + ": compute ranks " + std::to_string(p));
    Decomps d = make_decomps(io, me, p);

    // The reference: the same calls, synchronous, gathered to one rank, on the compute ranks.
    esmio_t ref_io;
    ok(esmio_init(comm, "", &ref_io), "init reference");
    Decomps rd = make_decomps(ref_io, me, p);
    for (const auto &m : maps)
      loaded_map(io, ref_io, m.first, m.second, stem, "backend=pnetcdf", comm,
                 configs[c] + " " + m.first + " " + m.second);
    for (std::size_t b = 0; b < backends.size() && maps.empty(); ++b) {
      const bool nc4 = backends[b].find("netcdf4") != std::string::npos;
      const std::string ref = stem + "_ref" + (nc4 ? "4" : "5") + ".nc";
      if (b < 2)
        write_file(ref_io, rd, ref,
                   std::string("backend=serial,format=") + (nc4 ? "netcdf4" : "cdf5"));
      const std::string path = stem + "_c" + std::to_string(c) + "_b" + std::to_string(b) + ".nc";
      const std::string label = configs[c] + " " + backends[b];
      write_file(io, d, path, backends[b] + (nc4 || b == 3 ? ",format=netcdf4" : ""));
      if (me == 0) compare_files(path, b == 3 ? stem + "_ref4.nc" : ref, label);
      read_back(io, d, path, label);
      MPI_Barrier(comm);
      if (me == 0) std::remove(path.c_str());
    }
    for (esmio_decomp_t *x : {&rd.d3, &rd.d2}) ok(esmio_decomp_free(x), "free");
    ok(esmio_finalize(&ref_io), "finalize reference");

    // A server-side failure: a file the servers cannot create. The create returns at once;
    // the failure comes back at close, alike on every compute rank, naming the path.
    {
      esmio_file_t f;
      const std::string bad = dir + "/no_such_dir/async.nc";
      ok(esmio_create(io, bad.c_str(), "backend=pnetcdf", &f), "create (posted)");
      int dim, var;
      ok(esmio_def_dim(f, "x", 4, &dim), "def_dim (posted)");
      ok(esmio_def_var(f, "v", ESMIO_INT, 1, &dim, &var), "def_var (posted)");
      ok(esmio_enddef(f), "enddef (posted)");
      const int rc = esmio_close(&f);
      const std::string message = esmio_last_error();
      check(rc != ESMIO_NOERR, configs[c] + ": close of an uncreatable file must fail");
      check(message.find("no_such_dir") != std::string::npos,
            "the failure names the path: " + message);
      int lo = 0, hi = 0;
      MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, comm);
      MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, comm);
      check(lo == hi, "every compute rank returns the same code");
    }
    if (maps.empty()) two_files(io, me, p, stem, configs[c]);
    if (configs[c].find("async_buffer=64K") != std::string::npos && p <= 4)
      stress(io, me, p, stem + "_stress.nc", configs[c]);
    for (esmio_decomp_t *x : {&d.d3, &d.d2}) ok(esmio_decomp_free(x), "free");
    ok(esmio_finalize(&io), "finalize async");
    if (me == 0) std::remove((stem + "_stress.nc").c_str());
    if (me == 0) {
      std::remove((stem + "_ref4.nc").c_str());
      std::remove((stem + "_ref5.nc").c_str());
    }
  }
  return finish(("test_async, " + std::to_string(configs.size()) + " configurations").c_str());
}
