// The named cases. Each builds the file layout and this rank's part of every grid; sizes come
// from the real models (see docs/bench.md for the sources) and scale with --scale.
#include "cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

namespace esmio_bench {

namespace {

int64_t scaled(int64_t n, double scale) {
  return std::max<int64_t>(1, static_cast<int64_t>(std::llround(static_cast<double>(n) * scale)));
}

// Contiguous share [first, last) of n items for part p of parts, balanced like the demo's.
void share(int64_t n, int p, int parts, int64_t *first, int64_t *last) {
  *first = n * p / parts;
  *last = n * (p + 1) / parts;
}

// The CAM FV 0.5-degree history record of the demo: latitude bands held as [lat][lev][lon].
void cam_fvd(const Options &opt, int rank, int nranks, Workload *w) {
  static const char *names3d[34] = {
      "T",      "U",      "V",      "Q",        "OMEGA", "Z3",  "RELHUM", "CLOUD", "CLDICE",
      "CLDLIQ", "CONCLD", "DTCOND", "DTV",      "QRL",   "QRS", "VD01",   "DCQ",   "CMFDT",
      "CMFDQ",  "ZMDT",   "ZMDQ",   "UU",       "VV",    "VU",  "VT",     "VQ",    "OMEGAT",
      "ICIMR",  "ICWMR",  "FICE",   "EVAPPREC", "QT",    "SL",  "TTEND"};
  const int64_t nlev = 26, nlat = scaled(361, opt.scale), nlon = scaled(576, opt.scale);
  int64_t lat0, lat1;
  share(nlat, rank, nranks, &lat0, &lat1);
  w->dims = {{"time", 0}, {"lev", nlev}, {"lat", nlat}, {"lon", nlon}};
  Grid g3;
  g3.name = "lev x lat x lon, latitude bands, memory [lat][lev][lon]";
  g3.dimids = {1, 2, 3};
  g3.shape = {nlev, nlat, nlon};
  g3.start = {0, lat0, 0};
  g3.count = {nlev, lat1 - lat0, nlon};
  g3.mem_order = {1, 0, 2};  // CAM's A(lon,lev,lat): slowest in memory is lat
  Grid g2;
  g2.name = "lat x lon, latitude bands";
  g2.dimids = {2, 3};
  g2.shape = {nlat, nlon};
  g2.start = {lat0, 0};
  g2.count = {lat1 - lat0, nlon};
  g3.call_len = nlev * nlon;  // one latitude of [lat][lev][lon] memory
  g2.call_len = nlon;
  w->grids = {g3, g2};
  for (int v = 0; v < 34; ++v) w->vars.push_back({names3d[v], 0});
  for (int v = 0; v < 61; ++v) {
    char name[32];
    std::snprintf(name, sizeof name, "FLD2D_%02d", v);
    w->vars.push_back({name, 1});
  }
  w->records = 1;
  char d[160];
  std::snprintf(d, sizeof d, "CAM FV: 34 3-D + 61 2-D float fields, %lld x %lld x %lld, f64 -> f32",
                (long long)nlev, (long long)nlat, (long long)nlon);
  w->description = d;
}

// CDO's cdiwrite: nvars x nlevs x grid per step, one process, record-sized pieces.
void cdi(const Options &opt, Workload *w) {
  const int nvars = 10, nlev = 10, nlat = 180, nlon = 360;  // cdo grid global_1
  w->single_process = true;
  w->dims = {{"time", 0}, {"lev", nlev}, {"lat", nlat}, {"lon", nlon}};
  Grid g;
  g.name = "lev x lat x lon, whole field on one process";
  g.dimids = {1, 2, 3};
  g.shape = {nlev, nlat, nlon};
  g.start = {0, 0, 0};
  g.count = g.shape;
  w->grids = {g};
  for (int v = 0; v < nvars; ++v) w->vars.push_back({"var" + std::to_string(v + 1), 0});
  w->records = static_cast<int>(scaled(16, opt.scale));
  w->cdo_grid = "global_1";
  w->cdo_levels = nlev;
  w->cdo_vars = nvars;
  char d[160];
  std::snprintf(d, sizeof d,
                "CDO cdiwrite method: %d vars x %d levels x %d x %d, f64 -> f32, 1 process", nvars,
                nlev, nlat, nlon);
  w->description = d;
}

// A multi-tasked model: latitude rows of few KB, dealt to ranks in a seeded random order and
// held in that order, so the file positions of consecutive slices jump about.
void small(const Options &opt, int rank, int nranks, Workload *w) {
  const int nvars = 64;
  const int64_t nlat = scaled(360, opt.scale), nlon = scaled(720, opt.scale);
  std::vector<int64_t> rows(nlat);
  for (int64_t y = 0; y < nlat; ++y) rows[y] = y;
  std::mt19937_64 rng(opt.seed);
  for (int64_t i = nlat - 1; i > 0; --i) {  // Fisher-Yates: the same order on every rank
    const int64_t j = static_cast<int64_t>(rng() % static_cast<uint64_t>(i + 1));
    std::swap(rows[i], rows[j]);
  }
  Grid g;
  g.name = "lat x lon, latitude slices in random order";
  g.kind = Grid::Kind::offsets;
  g.dimids = {1, 2};
  g.shape = {nlat, nlon};
  g.slice_len = nlon;
  g.call_len = nlon;
  for (int64_t i = rank; i < nlat; i += nranks)
    for (int64_t x = 0; x < nlon; ++x) g.offsets.push_back(rows[i] * nlon + x);
  w->dims = {{"time", 0}, {"lat", nlat}, {"lon", nlon}};
  w->grids = {g};
  for (int v = 0; v < nvars; ++v) {
    char name[32];
    std::snprintf(name, sizeof name, "S%02d", v);
    w->vars.push_back({name, 0});
  }
  w->records = 2;
  char d[160];
  std::snprintf(d, sizeof d, "%d 2-D fields %lld x %lld as %.1f KiB latitude slices, random order",
                nvars, (long long)nlat, (long long)nlon, static_cast<double>(nlon) * 4 / 1024);
  w->description = d;
}

Grid e3sm_grid(const std::string &map, const std::string &format, std::vector<int> dimids,
               std::vector<int64_t> shape, const std::string &name) {
  Grid g;
  g.name = name;
  g.kind = Grid::Kind::e3sm;
  g.map_path = map;
  g.map_format = format;
  g.dimids = std::move(dimids);
  g.shape = std::move(shape);
  return g;
}

void add_vars(Workload *w, const char *prefix, int count, int grid) {
  for (int v = 0; v < count; ++v) {
    char name[32];
    std::snprintf(name, sizeof name, "%s%03d", prefix, v);
    w->vars.push_back({name, grid});
  }
}

// E3SM F case (f_case_h0.txt): 321 float (time, ncol) and 63 float (time, lev, ncol).
void e3sm_f(const std::string &data_dir, Workload *w) {
  const std::string map = data_dir + "/e3sm/map_f_case_16p.nc";
  w->dims = {{"time", 0}, {"lev", 72}, {"ncol", 866}};
  w->grids = {e3sm_grid(map, "e3sm:D2", {2}, {866}, "ncol (map D2)"),
              e3sm_grid(map, "e3sm:D3", {1, 2}, {72, 866}, "lev x ncol (map D3)")};
  for (Grid &g : w->grids) g.horizontal_dims = 1;  // ncol: unstructured columns
  add_vars(w, "F2D_", 321, 0);
  add_vars(w, "F3D_", 63, 1);
  w->records = 5;
  w->description = "E3SM F case map (16p): 321 2-D (ncol) + 63 3-D (lev x ncol) fields";
}

// E3SM I case (i_case_h0.txt): 460 (lat,lon), 56 (levdcmp,..), 13 (levgrnd,..), 2 (levlak,..),
// 1 (ltype,..), 1 (natpft,..) float record variables.
void e3sm_i(const std::string &data_dir, Workload *w) {
  const std::string map = data_dir + "/e3sm/map_i_case_16p.nc";
  w->dims = {{"time", 0},  {"levgrnd", 15}, {"levdcmp", 15}, {"levlak", 10},
             {"ltype", 9}, {"natpft", 17},  {"lat", 96},     {"lon", 144}};
  w->grids = {e3sm_grid(map, "e3sm:D1", {6, 7}, {96, 144}, "lat x lon (D1)"),
              e3sm_grid(map, "e3sm:D2", {2, 6, 7}, {15, 96, 144}, "levdcmp x lat x lon (D2)"),
              e3sm_grid(map, "e3sm:D2", {1, 6, 7}, {15, 96, 144}, "levgrnd x lat x lon (D2)"),
              e3sm_grid(map, "e3sm:D3", {3, 6, 7}, {10, 96, 144}, "levlak x lat x lon (D3)"),
              e3sm_grid(map, "e3sm:D4", {4, 6, 7}, {9, 96, 144}, "ltype x lat x lon (D4)"),
              e3sm_grid(map, "e3sm:D5", {5, 6, 7}, {17, 96, 144}, "natpft x lat x lon (D5)")};
  add_vars(w, "I2D_", 460, 0);
  add_vars(w, "IDCMP_", 56, 1);
  add_vars(w, "IGRND_", 13, 2);
  add_vars(w, "ILAK_", 2, 3);
  add_vars(w, "ILTYPE_", 1, 4);
  add_vars(w, "IPFT_", 1, 5);
  w->records = 2;
  w->description = "E3SM I case map (16p): 460 2-D + 73 3-D land fields on 96 x 144";
}

// The PE layout px x py (px along x) with px * py = nranks whose aspect is nearest 48:15.
void pe_layout(int nranks, int *px, int *py) {
  double best = 1e300;
  for (int a = 1; a <= nranks; ++a) {
    if (nranks % a) continue;
    const double miss = std::fabs(std::log(static_cast<double>(a) / (nranks / a)) - std::log(3.2));
    if (miss < best) {
      best = miss;
      *px = a;
      *py = nranks / a;
    }
  }
}

// MOM 0.1-degree-like ocean: 2-D blocks over a PE layout, all levels, memory = file order.
void ocean(const Options &opt, int rank, int nranks, Workload *w) {
  const double s = opt.scale_given ? opt.scale : 0.1;
  const int64_t nx = scaled(3600, s), ny = scaled(2700, s), nz = 50;
  int px = 1, py = 1;
  pe_layout(nranks, &px, &py);
  int64_t x0, x1, y0, y1;
  share(nx, rank % px, px, &x0, &x1);
  share(ny, rank / px, py, &y0, &y1);
  w->dims = {{"time", 0}, {"zt", nz}, {"yt", ny}, {"xt", nx}};
  Grid g3;
  g3.name = "zt x yt x xt, " + std::to_string(px) + " x " + std::to_string(py) + " PE blocks";
  g3.dimids = {1, 2, 3};
  g3.shape = {nz, ny, nx};
  g3.start = {0, y0, x0};
  g3.count = {nz, y1 - y0, x1 - x0};
  Grid g2;
  g2.name = "yt x xt, " + std::to_string(px) + " x " + std::to_string(py) + " PE blocks";
  g2.dimids = {2, 3};
  g2.shape = {ny, nx};
  g2.start = {y0, x0};
  g2.count = {y1 - y0, x1 - x0};
  w->grids = {g3, g2};
  for (const char *n : {"temp", "salt", "u", "v"}) w->vars.push_back({n, 0});
  for (const char *n : {"eta_t", "tau_x", "tau_y", "mld"}) w->vars.push_back({n, 1});
  w->records = 1;
  char d[160];
  std::snprintf(d, sizeof d, "MOM-like ocean: 4 3-D + 4 2-D fields %lld x %lld x %lld, PE %d x %d",
                (long long)nx, (long long)ny, (long long)nz, px, py);
  w->description = d;
}

// Every case, in the order --help lists them. model-loop and plan run paths of their own
// (run_model_loop, run_plan) and build no Workload here.
using Build = void (*)(const Options &, int rank, int nranks, const std::string &data_dir,
                       Workload *);
struct Case {
  const char *name;
  Build build;
};
const Case kCases[] = {
    {"cam-fvd",
     [](const Options &o, int r, int n, const std::string &, Workload *w) { cam_fvd(o, r, n, w); }},
    {"cdi", [](const Options &o, int, int, const std::string &, Workload *w) { cdi(o, w); }},
    {"small",
     [](const Options &o, int r, int n, const std::string &, Workload *w) { small(o, r, n, w); }},
    {"e3sm-f", [](const Options &, int, int, const std::string &d, Workload *w) { e3sm_f(d, w); }},
    {"e3sm-i", [](const Options &, int, int, const std::string &d, Workload *w) { e3sm_i(d, w); }},
    {"ocean",
     [](const Options &o, int r, int n, const std::string &, Workload *w) { ocean(o, r, n, w); }},
    {"model-loop", nullptr},
    {"plan", nullptr},
};

}  // namespace

std::string case_list() {
  std::string list;
  for (const Case &c : kCases) list += (list.empty() ? "" : ", ") + std::string(c.name);
  return list;
}

bool make_workload(const Options &opt, int rank, int nranks, const std::string &data_dir,
                   Workload *out, std::string *why) {
  Workload w;
  w.case_name = opt.case_name;
  const Case *found = nullptr;
  for (const Case &c : kCases)
    if (opt.case_name == c.name) found = &c;
  if (!found || !found->build) {
    *why = "unknown case '" + opt.case_name + "' (" + case_list() + ")";
    return false;
  }
  found->build(opt, rank, nranks, data_dir, &w);
  if (opt.records > 0) w.records = opt.records;
  w.slice_calls = opt.calls == "slice" || (opt.calls == "auto" && opt.case_name == "small");
  if (w.slice_calls) {
    bool sliced = false;
    for (const Grid &g : w.grids) sliced = sliced || g.call_len > 0;
    if (!sliced) {
      *why = "case '" + opt.case_name +
             "' has no slice-per-call pattern (--calls slice: " + "small, cam-fvd)";
      return false;
    }
    w.description += ", esmio: one write_darray per slice";
  }
  w.cdo_steps = w.records;
  *out = std::move(w);
  return true;
}

}  // namespace esmio_bench
