// Decomposition files: the real E3SM maps (PIO text and E3SM-IO netCDF), esmio's own format, the
// streaming writer, and malformed input. N ranks are simulated by loading once per rank.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "decomp/decomp_files.hpp"

namespace esmio::decomp {
namespace {

std::string data_dir() {
  if (const char *env = std::getenv("ESMIO_TEST_DATA")) return std::string(env) + "/e3sm/";
  // Next to this source file, for runs without the environment (ctest's unit tests).
  std::string here = __FILE__;
  return here.substr(0, here.find_last_of('/') + 1) + "../data/e3sm/";
}

std::string pio_file(int ioid) {
  return data_dir() + "piodecomp16tasks16io0" + (ioid == 548 ? "2" : "1") + "dims_ioid_" +
         std::to_string(ioid) + ".dat";
}
const std::string kFMap = "map_f_case_16p.nc", kIMap = "map_i_case_16p.nc";

std::string read_text(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

bool exists(const std::string &path) { return access(path.c_str(), F_OK) == 0; }

class TempDir {
 public:
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp ? tmp : "/tmp") + "/esmio_decomp_files_XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data())) dir_ = buf.data();
  }
  ~TempDir() {
    if (!dir_.empty()) std::system(("rm -rf '" + dir_ + "'").c_str());
  }
  std::string path(const std::string &name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

LoadedDecomp load_ok(const std::string &path, const std::string &format, int rank, int nranks) {
  LoadedDecomp d;
  Status st = load_decomp_file(path, format, rank, nranks, &d);
  EXPECT_TRUE(st.is_ok()) << format << " " << path << " rank " << rank << "/" << nranks << ": "
                          << st.message();
  return d;
}

int load_code(const std::string &path, const std::string &format, int rank = 0, int nranks = 1,
              std::string *message = nullptr) {
  LoadedDecomp d;
  Status st = load_decomp_file(path, format, rank, nranks, &d);
  if (message) *message = st.message();
  if (!st.is_ok()) {
    EXPECT_TRUE(d.offsets.empty() && d.dims.empty()) << "partial result kept";
  }
  return st.code();
}

// All ranks' pieces for P = nranks, one vector per rank.
std::vector<std::vector<int64_t>> load_all(const std::string &path, const std::string &format,
                                           int nranks, std::vector<int64_t> *dims = nullptr) {
  std::vector<std::vector<int64_t>> out;
  for (int r = 0; r < nranks; ++r) {
    LoadedDecomp d = load_ok(path, format, r, nranks);
    if (dims) *dims = d.dims;
    out.push_back(d.offsets);
  }
  return out;
}

// What rank r of n gets of a file's processes procs (the rule in decomp_files.hpp): processes
// r, r+n, ... in order; on more ranks than processes, its consecutive part of process r mod P.
std::vector<int64_t> share_of(const std::vector<std::vector<int64_t>> &procs, int r, int n) {
  const int nprocs = static_cast<int>(procs.size());
  std::vector<int64_t> out;
  if (n <= nprocs) {
    for (int p = r; p < nprocs; p += n) out.insert(out.end(), procs[p].begin(), procs[p].end());
    return out;
  }
  const std::vector<int64_t> &mine = procs[r % nprocs];
  const int64_t part = r / nprocs, parts = (n - 1 - r % nprocs) / nprocs + 1;
  const int64_t size = static_cast<int64_t>(mine.size());
  return std::vector<int64_t>(mine.begin() + size * part / parts,
                              mine.begin() + size * (part + 1) / parts);
}

int64_t product(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::vector<int64_t> without_holes(const std::vector<int64_t> &v) {
  std::vector<int64_t> out;
  for (int64_t x : v)
    if (x != -1) out.push_back(x);
  return out;
}

// Every offset in range; no offset held twice across all ranks; returns how many are held.
int64_t check_union(const std::vector<std::vector<int64_t>> &ranks, int64_t gsize) {
  std::vector<char> seen(static_cast<std::size_t>(gsize), 0);
  int64_t held = 0;
  for (const auto &r : ranks)
    for (int64_t x : r) {
      if (x == -1) continue;
      EXPECT_TRUE(x >= 0 && x < gsize) << x;
      if (x < 0 || x >= gsize) continue;
      EXPECT_EQ(seen[x], 0) << "offset " << x << " held twice";
      seen[x] = 1;
      ++held;
    }
  return held;
}

// ---- PIO text files -------------------------------------------------------------------------

TEST(PioFile, Ioid514HeaderAndTask0) {
  LoadedDecomp d = load_ok(pio_file(514), "pio", 0, 1);
  EXPECT_EQ(d.dims, std::vector<int64_t>({866}));
  EXPECT_EQ(d.file_nprocs, 16);
  EXPECT_EQ(d.offsets.size(), 16u * 96u);
  // "1 2 ... 16 0 0 0 0 53 ..." in the file: 0-based, holes -1.
  for (int i = 0; i < 16; ++i) EXPECT_EQ(d.offsets[i], i);
  for (int i = 16; i < 20; ++i) EXPECT_EQ(d.offsets[i], -1);
  EXPECT_EQ(d.offsets[20], 52);

  auto ranks = load_all(pio_file(514), "pio", 16);
  for (const auto &r : ranks) EXPECT_EQ(r.size(), 96u);
}

TEST(PioFile, CountsMatchHeaders) {
  struct Case {
    int ioid;
    std::vector<int64_t> dims;
    std::size_t per_task;
  };
  // The dims line of ioid_548 says "866 72": Fortran order; C order is lev x ncol.
  for (const Case &c : {Case{514, {866}, 96}, Case{516, {866}, 64}, Case{548, {72, 866}, 4608}}) {
    SCOPED_TRACE(c.ioid);
    std::vector<int64_t> dims;
    auto ranks = load_all(pio_file(c.ioid), "pio", 16, &dims);
    EXPECT_EQ(dims, c.dims);
    for (const auto &r : ranks) EXPECT_EQ(r.size(), c.per_task);
    // The F case covers every element exactly once.
    EXPECT_EQ(check_union(ranks, product(c.dims)), product(c.dims));
  }
}

TEST(PioFile, StackTraceTrailerIsIgnored) {
  // The real files end with PIO's backtrace; a newer PIO adds "ioid <n>"; both are ignored.
  ASSERT_NE(read_text(pio_file(516)).find("Obtained 10 stack frames."), std::string::npos);
  TempDir tmp;
  const std::string path = tmp.path("trailer.dat");
  write_text(path,
             "version 2001 npes 2 ndims 1 \n4 \n0 2\n1 2 \n1 2\n3 0 \n\nObtained 3 stack "
             "frames.\n/x/e3sm.exe() [0x1]\nioid\t514\ninfo 7 8 9\n");
  LoadedDecomp d = load_ok(path, "pio", 0, 1);
  EXPECT_EQ(d.offsets, std::vector<int64_t>({0, 1, 2, -1}));
}

TEST(PioFile, RoundRobinAssignment) {
  auto sixteen = load_all(pio_file(548), "pio", 16);
  for (int n : {1, 3, 4, 5, 16, 20}) {
    for (int r = 0; r < n; ++r)
      EXPECT_EQ(load_ok(pio_file(548), "pio", r, n).offsets, share_of(sixteen, r, n))
          << r << "/" << n;
  }
}

// ---- E3SM-IO map files ------------------------------------------------------------------------

struct MapCase {
  std::string file;
  int k;
  std::vector<int64_t> dims;
};

std::vector<MapCase> map_cases() {
  return {{kFMap, 1, {866}},        {kFMap, 2, {866}},         {kFMap, 3, {72, 866}},
          {kIMap, 1, {96, 144}},    {kIMap, 2, {15, 96, 144}}, {kIMap, 3, {10, 96, 144}},
          {kIMap, 4, {9, 96, 144}}, {kIMap, 5, {17, 96, 144}}};
}

TEST(E3smMap, CountsRangeAndUniqueness) {
  for (const MapCase &c : map_cases()) {
    SCOPED_TRACE(c.file + " D" + std::to_string(c.k));
    const std::string path = data_dir() + c.file, d = "D" + std::to_string(c.k);
    E3smMapInfo info;
    Status st = inq_e3sm_map(path, d, &info);
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_EQ(info.nprocs, 16);
    ASSERT_EQ(info.raw_nreqs.size(), 16u);
    std::vector<int64_t> dims;
    auto ranks = load_all(path, "e3sm:" + d, 16, &dims);
    EXPECT_EQ(dims, c.dims);
    EXPECT_EQ(info.dims, c.dims);
    for (int p = 0; p < 16; ++p) {
      EXPECT_EQ(static_cast<int64_t>(ranks[p].size()), info.raw_nreqs[p]);
      EXPECT_LE(info.fill_starts[p], info.nreqs[p]);
    }
    const int64_t held = check_union(ranks, product(dims));
    if (c.file == kFMap) {
      EXPECT_EQ(held, product(dims));  // fully_covered = "true"
    }
    // The merged runs, read instead of the raw offsets, give the same elements in the same order.
    EXPECT_EQ(load_all(path, "e3sm:" + d + ":runs", 16), ranks);
  }
}

// Requests from fill_starts[p] on ("e3sm:Dk:fill") cover exactly the elements no process holds
// (E3SM-IO's -f option): none in the fully covered F case, many in the I case (land only).
TEST(E3smMap, FillRequestsCoverTheGaps) {
  for (const MapCase &c : map_cases()) {
    SCOPED_TRACE(c.file + " D" + std::to_string(c.k));
    const std::string path = data_dir() + c.file, d = "e3sm:D" + std::to_string(c.k);
    const int64_t gsize = product(c.dims);
    auto data = load_all(path, d, 16), fill = load_all(path, d + ":fill", 16);
    int64_t fill_elems = 0;
    for (const auto &r : fill) fill_elems += static_cast<int64_t>(r.size());
    std::vector<std::vector<int64_t>> both = data;
    both.insert(both.end(), fill.begin(), fill.end());
    EXPECT_EQ(check_union(both, gsize), gsize);  // disjoint, and together everything
    if (c.file == kFMap) {
      EXPECT_EQ(fill_elems, 0);
    } else {
      EXPECT_GT(fill_elems, 0);
    }
  }
}

TEST(E3smMap, RoundRobinN4) {
  for (const MapCase &c : map_cases()) {
    SCOPED_TRACE(c.file + " D" + std::to_string(c.k));
    const std::string path = data_dir() + c.file, fmt = "e3sm:D" + std::to_string(c.k);
    auto sixteen = load_all(path, fmt, 16);
    for (int r = 0; r < 4; ++r) {
      LoadedDecomp d = load_ok(path, fmt, r, 4);
      std::vector<int64_t> expect;
      for (int p = r; p < 16; p += 4)
        expect.insert(expect.end(), sixteen[p].begin(), sixteen[p].end());
      EXPECT_EQ(d.offsets, expect);
      EXPECT_EQ(d.file_nprocs, 16);
    }
  }
}

// More ranks than processes: the ranks r, r+16, r+32, ... share process r mod 16 in
// consecutive parts, as equal as the counts allow; together they hold each process's elements
// in its memory order. On 20 ranks processes 0-3 are halved and the others kept whole.
TEST(E3smMap, MoreRanksThanProcessesShareThem) {
  for (const MapCase &c : map_cases()) {
    SCOPED_TRACE(c.file + " D" + std::to_string(c.k));
    const std::string path = data_dir() + c.file, fmt = "e3sm:D" + std::to_string(c.k);
    const auto sixteen = load_all(path, fmt, 16);
    for (int n : {20, 64, 256}) {
      const auto many = load_all(path, fmt, n);
      for (int p = 0; p < 16; ++p) {
        std::vector<int64_t> joined;
        std::size_t least = SIZE_MAX, most = 0;
        for (int r = p; r < n; r += 16) {
          joined.insert(joined.end(), many[r].begin(), many[r].end());
          least = std::min(least, many[r].size());
          most = std::max(most, many[r].size());
        }
        EXPECT_EQ(joined, sixteen[p]) << n << " ranks, process " << p;
        EXPECT_LE(most - least, 1u) << n << " ranks, process " << p;
      }
    }
  }
  // The PIO text format too.
  const std::string pio = pio_file(548);
  const auto sixteen = load_all(pio, "pio", 16), many = load_all(pio, "pio", 64);
  for (int p = 0; p < 16; ++p) {
    std::vector<int64_t> joined;
    for (int r = p; r < 64; r += 16) joined.insert(joined.end(), many[r].begin(), many[r].end());
    EXPECT_EQ(joined, sixteen[p]) << "pio, process " << p;
  }
}

// ioid_514 is D1, ioid_516 is D2, ioid_548 is D3 of the F map: the same elements in the same
// memory order, with PIO's holes dropped.
TEST(E3smMap, MatchesPioFiles) {
  const std::string fmap = data_dir() + kFMap;
  const int ioids[] = {514, 516, 548};
  for (int k = 1; k <= 3; ++k) {
    std::vector<int64_t> e3sm_dims;
    auto e3sm = load_all(fmap, "e3sm:D" + std::to_string(k), 16, &e3sm_dims);
    for (int i = 0; i < 3; ++i) {
      std::vector<int64_t> pio_dims;
      auto pio = load_all(pio_file(ioids[i]), "pio", 16, &pio_dims);
      bool same = pio_dims == e3sm_dims;
      for (int p = 0; p < 16 && same; ++p) same = without_holes(pio[p]) == e3sm[p];
      EXPECT_EQ(same, i == k - 1) << "ioid " << ioids[i] << " vs D" << k;
    }
  }
}

TEST(E3smMap, FormatStrings) {
  const std::string fmap = data_dir() + kFMap;
  std::string msg;
  EXPECT_EQ(load_ok(fmap, "e3sm:D3:72x866", 0, 1).dims, std::vector<int64_t>({72, 866}));
  EXPECT_EQ(load_ok(fmap, "E3SM:d2:runs", 0, 1).offsets.size(), 866u);
  EXPECT_EQ(load_code(fmap, "e3sm:D4", 0, 1, &msg), ESMIO_EINVAL);
  EXPECT_NE(msg.find("D4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("num_decomp = 3"), std::string::npos) << msg;
  EXPECT_EQ(load_code(fmap, "e3sm:X1"), ESMIO_EINVAL);
  EXPECT_EQ(load_code(fmap, "e3sm:"), ESMIO_EINVAL);
  EXPECT_EQ(load_code(fmap, "e3sm:D0"), ESMIO_EINVAL);
  EXPECT_EQ(load_code(fmap, "e3sm:D3:72x865", 0, 1, &msg), ESMIO_EINVAL);
  EXPECT_NE(msg.find("72x866"), std::string::npos) << msg;
  EXPECT_EQ(load_code(fmap, "e3sm:D3:866x72"), ESMIO_EINVAL);
  EXPECT_EQ(load_code(fmap, "e3sm:D3:72x0"), ESMIO_EINVAL);
  EXPECT_EQ(load_code(fmap, "e3sm:D3:72x"), ESMIO_EINVAL);
  EXPECT_EQ(load_code(fmap, "e3sm:D3:abc"), ESMIO_EINVAL);
  EXPECT_EQ(load_code(fmap, "e3sm:D3:72x866:72x866"), ESMIO_EINVAL);
  EXPECT_EQ(load_code(fmap, "e3sm:D3:99999999999x99999999999"), ESMIO_EINVAL);
  EXPECT_EQ(load_code(fmap, "netcdf"), ESMIO_EBADNAME);
  EXPECT_EQ(load_code(fmap, ""), ESMIO_EBADNAME);
}

// A small E3SM-IO-style map written here, to reach the paths the real files do not.
struct SyntheticMap {
  std::vector<int> dims_att;   // empty: no Dk.dims attribute
  std::vector<int> ndims_att;  // empty: no Dk.ndims attribute
  bool raw = true, runs = true;
  std::vector<int> nreqs, fill_starts, offsets, lengths, raw_nreqs, raw_offsets;
};

// Writes the map as a netCDF classic (CDF-1) file byte by byte, so that the test needs no netCDF
// library of its own (the layout: netCDF's "Classic Format Specification").
void write_map(const std::string &path, const SyntheticMap &m) {
  std::string h;
  auto u32 = [&h](uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) h += static_cast<char>((v >> shift) & 0xff);
  };
  auto name = [&](const std::string &n) {
    u32(static_cast<uint32_t>(n.size()));
    h += n;
    while (h.size() % 4) h += '\0';
  };
  const uint32_t kDimension = 0x0A, kVariable = 0x0B, kAttribute = 0x0C, kInt = 4;
  h += "CDF";
  h += '\x01';
  u32(0);  // numrecs
  std::vector<std::pair<std::string, std::size_t>> dims = {{"num_decomp", 1},
                                                           {"decomp_nprocs", m.nreqs.size()}};
  if (m.runs) dims.push_back({"D1.total_nreqs", m.offsets.size()});
  if (m.raw) dims.push_back({"D1.total_raw_nreqs", m.raw_offsets.size()});
  u32(kDimension);
  u32(static_cast<uint32_t>(dims.size()));
  for (const auto &d : dims) {
    name(d.first);
    u32(static_cast<uint32_t>(d.second));
  }
  std::vector<std::pair<std::string, const std::vector<int> *>> atts;
  if (!m.dims_att.empty()) atts.push_back({"D1.dims", &m.dims_att});
  if (!m.ndims_att.empty()) atts.push_back({"D1.ndims", &m.ndims_att});
  if (atts.empty()) {
    u32(0);
    u32(0);
  } else {
    u32(kAttribute);
    u32(static_cast<uint32_t>(atts.size()));
    for (const auto &a : atts) {
      name(a.first);
      u32(kInt);
      u32(static_cast<uint32_t>(a.second->size()));
      for (int v : *a.second) u32(static_cast<uint32_t>(v));
    }
  }
  struct Var {
    std::string name;
    uint32_t dim;
    const std::vector<int> *values;
  };
  std::vector<Var> vars = {{"D1.nreqs", 1, &m.nreqs}};
  if (m.runs) {
    vars.push_back({"D1.fill_starts", 1, &m.fill_starts});
    vars.push_back({"D1.offsets", 2, &m.offsets});
    vars.push_back({"D1.lengths", 2, &m.lengths});
  }
  if (m.raw) {
    const uint32_t raw_dim = m.runs ? 3 : 2;
    vars.push_back({"D1.raw_nreqs", 1, &m.raw_nreqs});
    vars.push_back({"D1.raw_offsets", raw_dim, &m.raw_offsets});
  }
  u32(kVariable);
  u32(static_cast<uint32_t>(vars.size()));
  std::vector<std::size_t> begin_at;
  for (const Var &v : vars) {
    name(v.name);
    u32(1);
    u32(v.dim);
    u32(0);  // no attributes
    u32(0);
    u32(kInt);
    u32(static_cast<uint32_t>(v.values->size() * 4));
    begin_at.push_back(h.size());
    u32(0);  // begin, patched below once the header's size is known
  }
  std::string header = h;
  h.clear();
  std::size_t offset = header.size();
  for (std::size_t i = 0; i < vars.size(); ++i) {
    h.clear();
    u32(static_cast<uint32_t>(offset));
    header.replace(begin_at[i], 4, h);
    offset += vars[i].values->size() * 4;
  }
  h = header;
  for (const Var &v : vars)
    for (int x : *v.values) u32(static_cast<uint32_t>(x));
  write_text(path, h);
}

// 3 processes over a 4 x 5 array: process 1 holds nothing; elements 18, 19 are nobody's and are
// handed to process 2 as a fill request.
SyntheticMap small_map() {
  SyntheticMap m;
  m.dims_att = {4, 5};
  m.nreqs = {2, 0, 3};
  m.fill_starts = {2, 0, 2};
  m.offsets = {10, 0, 5, 16, 18};
  m.lengths = {3, 2, 1, 2, 2};
  m.raw_nreqs = {5, 0, 3};
  m.raw_offsets = {11, 12, 13, 1, 2, 6, 17, 18};
  return m;
}

TEST(E3smMap, SyntheticMapBothPaths) {
  TempDir tmp;
  const std::string path = tmp.path("small.nc");
  write_map(path, small_map());
  for (const char *fmt : {"e3sm:D1", "e3sm:D1:runs"}) {
    auto ranks = load_all(path, fmt, 3);
    EXPECT_EQ(ranks[0], std::vector<int64_t>({10, 11, 12, 0, 1}));
    EXPECT_TRUE(ranks[1].empty());
    EXPECT_EQ(ranks[2], std::vector<int64_t>({5, 16, 17}));
  }
  auto fill = load_all(path, "e3sm:D1:fill", 3);
  EXPECT_TRUE(fill[0].empty() && fill[1].empty());
  EXPECT_EQ(fill[2], std::vector<int64_t>({18, 19}));
  E3smMapInfo info;
  ASSERT_TRUE(inq_e3sm_map(path, "D1", &info).is_ok());
  EXPECT_EQ(info.dims, std::vector<int64_t>({4, 5}));
  EXPECT_EQ(info.nprocs, 3);
  EXPECT_EQ(info.nreqs, std::vector<int64_t>({2, 0, 3}));
  EXPECT_EQ(info.fill_starts, std::vector<int64_t>({2, 0, 2}));
  EXPECT_EQ(info.raw_nreqs, std::vector<int64_t>({5, 0, 3}));
  EXPECT_EQ(inq_e3sm_map(path, "D2", &info).code(), ESMIO_EINVAL);
  // Without raw variables the runs are used.
  SyntheticMap m = small_map();
  m.raw = false;
  write_map(path, m);
  ASSERT_TRUE(inq_e3sm_map(path, "D1", &info).is_ok());
  EXPECT_TRUE(info.raw_nreqs.empty());
  EXPECT_EQ(load_ok(path, "e3sm:D1", 0, 2).offsets,
            std::vector<int64_t>({10, 11, 12, 0, 1, 5, 16, 17}));
}

TEST(E3smMap, DimsWhenNotStored) {
  TempDir tmp;
  SyntheticMap m = small_map();
  m.dims_att.clear();
  const std::string path = tmp.path("nodims.nc");
  write_map(path, m);
  std::string msg;
  EXPECT_EQ(load_code(path, "e3sm:D1", 0, 1, &msg), ESMIO_EINVAL);
  EXPECT_NE(msg.find("e3sm:D1:"), std::string::npos) << msg;
  EXPECT_EQ(load_ok(path, "e3sm:D1:4x5", 0, 1).dims, std::vector<int64_t>({4, 5}));
  EXPECT_EQ(load_code(path, "e3sm:D1:2x5"), ESMIO_EDECOMP);  // offsets beyond 10 elements
  // A copy of a known benchmark map: its dims come from the built-in table.
  const std::string known = tmp.path(kFMap);
  write_map(known, m);
  EXPECT_EQ(load_ok(known, "e3sm:D1", 0, 1).dims, std::vector<int64_t>({866}));
}

TEST(E3smMap, MalformedMaps) {
  TempDir tmp;
  const std::string path = tmp.path("bad.nc");
  auto code = [&](const SyntheticMap &m, const char *fmt = "e3sm:D1") {
    write_map(path, m);
    if (::testing::Test::HasFatalFailure()) return -1;
    std::string msg;
    int c = load_code(path, fmt, 0, 1, &msg);
    if (c != ESMIO_NOERR) {
      EXPECT_NE(msg.find("bad.nc"), std::string::npos) << msg;
    }
    return c;
  };
  SyntheticMap m = small_map();
  m.raw_offsets[6] = 21;  // beyond 4 x 5, 1-based
  EXPECT_EQ(code(m), ESMIO_EDECOMP);
  m = small_map();
  m.raw_offsets[0] = 0;
  EXPECT_EQ(code(m), ESMIO_EDECOMP);
  m = small_map();
  m.raw_nreqs = {5, -1, 4};
  EXPECT_EQ(code(m), ESMIO_EDECOMP);
  m = small_map();
  m.raw_nreqs = {5, 0, 2};  // does not tile raw_offsets
  EXPECT_EQ(code(m), ESMIO_EDECOMP);
  m = small_map();
  m.raw_nreqs = {2000000000, 0, 3};
  EXPECT_EQ(code(m), ESMIO_EDECOMP);
  m = small_map();
  m.lengths[3] = 5;  // 16 + 5 > 20
  EXPECT_EQ(code(m, "e3sm:D1:runs"), ESMIO_EDECOMP);
  m = small_map();
  m.lengths[0] = 0;
  EXPECT_EQ(code(m, "e3sm:D1:runs"), ESMIO_EDECOMP);
  m = small_map();
  m.fill_starts[2] = 4;  // more than nreqs
  EXPECT_EQ(code(m, "e3sm:D1:runs"), ESMIO_EDECOMP);
  m = small_map();
  m.nreqs = {2, 0, 4};
  EXPECT_EQ(code(m, "e3sm:D1:runs"), ESMIO_EDECOMP);
  m = small_map();
  m.dims_att = {4, -5};
  EXPECT_EQ(code(m), ESMIO_EDECOMP);
  m = small_map();
  m.ndims_att = {2, 2, 2, 2, 2, 2, 2, 2};  // must not be read into one int
  EXPECT_EQ(code(m), ESMIO_EDECOMP);
  m.ndims_att = {3};
  EXPECT_EQ(code(m), ESMIO_EDECOMP);
  m.ndims_att = {2};
  EXPECT_EQ(code(m), ESMIO_NOERR);
}

TEST(E3smMap, NotNetcdfMissingOrTruncated) {
  TempDir tmp;
  EXPECT_EQ(load_code(tmp.path("missing.nc"), "e3sm:D1"), ESMIO_EIO);
  write_text(tmp.path("garbage.nc"), "version 2001 npes 1 ndims 1\n");
  EXPECT_EQ(load_code(tmp.path("garbage.nc"), "e3sm:D1"), ESMIO_ENOTNC);
  // netCDF-C reads the lost tail of a classic file as zeros; those must not pass as data.
  const std::string whole = read_text(data_dir() + kFMap);
  for (std::size_t cut : {whole.size() - 4, whole.size() / 2, std::size_t(100), std::size_t(0)}) {
    const std::string path = tmp.path("cut.nc");
    write_text(path, whole.substr(0, cut));
    bool any_error = false;
    for (int k = 1; k <= 3; ++k)
      any_error |= load_code(path, "e3sm:D" + std::to_string(k)) != ESMIO_NOERR;
    EXPECT_TRUE(any_error) << "cut at " << cut;
  }
}

// ---- esmio's text format and the writer ------------------------------------------------------

void write_file(const std::string &path, const std::string &format,
                const std::vector<int64_t> &dims, const std::vector<std::vector<int64_t>> &procs,
                std::size_t chunk = 3) {
  DecompFileWriter w;
  Status st = w.open(path, format, dims, static_cast<int64_t>(procs.size()));
  for (const auto &p : procs) {
    if (st.is_ok()) st = w.begin_piece(static_cast<int64_t>(p.size()));
    for (std::size_t i = 0; i < p.size() && st.is_ok(); i += chunk)
      st = w.add(p.data() + i, static_cast<int64_t>(std::min(chunk, p.size() - i)));
    if (st.is_ok()) st = w.end_piece();
  }
  if (st.is_ok()) st = w.commit();
  ASSERT_TRUE(st.is_ok()) << st.message();
}

TEST(EsmioFormat, ExactText) {
  TempDir tmp;
  const std::string path = tmp.path("small.esmio");
  write_file(path, "esmio", {2, 3}, {{0, 1, 2, -1, -1, 5}, {}, {4, 3}});
  EXPECT_EQ(read_text(path),
            "esmio-decomp 1\n"
            "# global linear offsets (C order, 0-based) of each process's elements in memory\n"
            "# order, as runs '<begin> <length>' (begin -1: length holes)\n"
            "ndims 2\ndims 2 3\nnprocs 3\n"
            "proc 0 6\n0 3 -1 2 5 1\n"
            "proc 1 0\n"
            "proc 2 2\n4 1 3 1\n"
            "end\n");
  EXPECT_FALSE(exists(path + ".esmio-tmp"));
}

TEST(EsmioFormat, RoundTripRandom) {
  std::mt19937_64 rng(42);
  const std::vector<int64_t> dims = {7, 11, 13};
  const int64_t gsize = product(dims);
  std::vector<int64_t> perm(gsize);
  for (int64_t i = 0; i < gsize; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  // Five processes, one empty, holes sprinkled in, some runs kept consecutive.
  std::vector<std::vector<int64_t>> procs(5);
  std::sort(perm.begin(), perm.begin() + 300);
  for (int64_t i = 0; i < gsize; ++i) {
    int p = static_cast<int>(rng() % 4);
    if (p == 3) p = 4;
    procs[p].push_back(perm[i]);
    if (rng() % 7 == 0) procs[p].push_back(-1);
  }
  TempDir tmp;
  for (const char *fmt : {"esmio", "pio"}) {
    SCOPED_TRACE(fmt);
    const std::string path = tmp.path(std::string("random.") + fmt);
    write_file(path, fmt, dims, procs, 17);
    std::vector<int64_t> got_dims;
    EXPECT_EQ(load_all(path, fmt, 5, &got_dims), procs);
    EXPECT_EQ(got_dims, dims);
    for (int n : {1, 2, 7}) {
      for (int r = 0; r < n; ++r)
        EXPECT_EQ(load_ok(path, fmt, r, n).offsets, share_of(procs, r, n)) << r << "/" << n;
    }
  }
}

TEST(EsmioFormat, BlockDecompositionIsCompact) {
  const std::vector<int64_t> dims = {60, 100, 200};  // 1.2 M elements
  std::vector<std::vector<int64_t>> procs(4);
  for (int p = 0; p < 4; ++p)  // slabs of 15 levels, each one run
    for (int64_t i = p * 15 * 20000; i < (p + 1) * 15 * 20000; ++i) procs[p].push_back(i);
  TempDir tmp;
  const std::string path = tmp.path("block.esmio");
  write_file(path, "esmio", dims, procs, 100000);
  EXPECT_LT(read_text(path).size(), 400u);
  EXPECT_EQ(load_all(path, "esmio", 4), procs);
}

TEST(EsmioFormat, CommentsAndFreeLineBreaks) {
  TempDir tmp;
  const std::string path = tmp.path("free.esmio");
  write_text(path,
             "# a map\nesmio-decomp 1 ndims 1 # shape\ndims\n10\nnprocs 2\nproc 0 3 0\n2 -1 1 "
             "proc 1 2 9 1\n\n 5 1\nend");
  auto ranks = load_all(path, "esmio", 2);
  EXPECT_EQ(ranks[0], std::vector<int64_t>({0, 1, -1}));
  EXPECT_EQ(ranks[1], std::vector<int64_t>({9, 5}));
}

// ---- the PIO writer ---------------------------------------------------------------------------

TEST(PioFormat, ExactTextAndHoles) {
  TempDir tmp;
  const std::string path = tmp.path("small.dat");
  write_file(path, "pio", {2, 3}, {{0, -1, 5}, {}, {4}});
  EXPECT_EQ(read_text(path), "version 2001 npes 3 ndims 2 \n3 2 \n0 3\n1 0 6 \n1 0\n\n2 1\n5 \n");
  auto ranks = load_all(path, "pio", 3);
  EXPECT_EQ(ranks[0], std::vector<int64_t>({0, -1, 5}));
  EXPECT_EQ(ranks[2], std::vector<int64_t>({4}));
}

// Re-writing what was read reproduces PIO's own bytes, up to its stack-trace trailer.
TEST(PioFormat, RewritesRealFilesByteForByte) {
  TempDir tmp;
  for (int ioid : {514, 516, 548}) {
    std::vector<int64_t> dims;
    auto ranks = load_all(pio_file(ioid), "pio", 16, &dims);
    const std::string path = tmp.path("rewrite.dat");
    write_file(path, "pio", dims, ranks, 1000);
    const std::string original = read_text(pio_file(ioid)), ours = read_text(path);
    EXPECT_EQ(original.substr(0, ours.size()), ours) << ioid;
    EXPECT_EQ(original.compare(ours.size(), 10, "\nObtained "), 0) << ioid;
  }
}

TEST(Writer, Errors) {
  TempDir tmp;
  const std::string path = tmp.path("w.esmio");
  {
    DecompFileWriter w;
    ASSERT_TRUE(w.open(path, "esmio", {10}, 2).is_ok());
    ASSERT_TRUE(w.begin_piece(2).is_ok());
    const int64_t bad[] = {3, 10};
    EXPECT_EQ(w.add(bad, 2).code(), ESMIO_EDECOMP);
    EXPECT_EQ(w.end_piece().code(), ESMIO_EDECOMP);  // sticky
    EXPECT_EQ(w.commit().code(), ESMIO_EDECOMP);
  }
  EXPECT_FALSE(exists(path));
  EXPECT_FALSE(exists(path + ".esmio-tmp"));
  {
    DecompFileWriter w;
    ASSERT_TRUE(w.open(path, "esmio", {10}, 2).is_ok());
    ASSERT_TRUE(w.begin_piece(1).is_ok());
    const int64_t two[] = {1, 2};
    EXPECT_EQ(w.add(two, 2).code(), ESMIO_EINVAL);
  }
  {
    DecompFileWriter w;
    ASSERT_TRUE(w.open(path, "pio", {10}, 2).is_ok());
    ASSERT_TRUE(w.begin_piece(0).is_ok());
    ASSERT_TRUE(w.end_piece().is_ok());
    EXPECT_EQ(w.commit().code(), ESMIO_EINVAL);  // one piece of two
  }
  {
    DecompFileWriter w;  // abandoned: nothing left behind
    ASSERT_TRUE(w.open(path, "pio", {10}, 1).is_ok());
  }
  EXPECT_FALSE(exists(path));
  EXPECT_FALSE(exists(path + ".esmio-tmp"));
  DecompFileWriter a, b, c, d;
  EXPECT_EQ(a.open(tmp.path("no/such/dir/x"), "pio", {10}, 1).code(), ESMIO_EIO);
  EXPECT_EQ(b.open(path, "netcdf", {10}, 1).code(), ESMIO_EBADNAME);
  EXPECT_EQ(c.open(path, "pio", {10, 0}, 1).code(), ESMIO_EINVAL);
  EXPECT_EQ(d.open(path, "pio", {10}, 0).code(), ESMIO_EINVAL);
}

// ---- malformed text -------------------------------------------------------------------------

struct BadCase {
  const char *format;
  const char *text;
  const char *why;  // a piece of the expected message
};

TEST(Malformed, TextFilesGiveEdecomp) {
  const BadCase cases[] = {
      {"pio", "", "file ends early"},
      {"pio", "\n\n", "file ends early"},
      {"pio", "garbage\n", "expected a PIO decomposition header"},
      {"pio", "version 2001 npes x ndims 1\n4\n0 1\n1\n", "number of processes"},
      {"pio", "version 9999 npes 1 ndims 1\n4\n0 1\n1\n", "version 9999"},
      {"pio", "version 2001 npes 0 ndims 1\n4\n", "number of processes 0"},
      {"pio", "version 2001 npes -3 ndims 1\n4\n", "number of processes -3"},
      {"pio", "version 2001 npes 1 ndims 0\n\n0 0\n", "ndims 0"},
      {"pio", "version 2001 npes 1 ndims 17\n1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n", "ndims 17"},
      {"pio", "version 2001 npes 1 ndims 1 extra\n4\n0 0\n", "unexpected 'extra'"},
      {"pio", "version 2001 npes 1 ndims 2\n4\n0 0\n", "line ends early"},
      {"pio", "version 2001 npes 1 ndims 1\n0\n0 0\n", "not positive"},
      {"pio", "version 2001 npes 1 ndims 1\n-4\n0 0\n", "not positive"},
      {"pio", "version 2001 npes 1 ndims 3\n4294967296 4294967296 4294967296\n0 0\n", "overflow"},
      {"pio", "version 2001 npes 2 ndims 1\n4\n0 2\n1 2\n", "file ends early: expected header '1"},
      {"pio", "version 2001 npes 2 ndims 1\n4\n0 2\n1 2\n\nObtained 3 stack frames.\n",
       "found 'Obtained'"},
      {"pio", "version 2001 npes 1 ndims 1\n4\n1 2\n1 2\n", "header '0 <count>'"},
      {"pio", "version 2001 npes 1 ndims 1\n4\n0 3\n1 2\n",
       "declares 3 offsets but its line holds 2"},
      {"pio", "version 2001 npes 1 ndims 1\n4\n0 1\n1 2\n", "holds more"},
      {"pio", "version 2001 npes 1 ndims 1\n4\n0 -2\n", "negative count"},
      {"pio", "version 2001 npes 1 ndims 1\n4\n0 999999999999999999\n1 2\n", "holds 2"},
      {"pio", "version 2001 npes 1 ndims 1\n4\n0 99999999999999999999999\n", "offset count"},
      {"pio", "version 2001 npes 1 ndims 1\n4\n0 2\n1 5\n", "offset 5 is out of range"},
      {"pio", "version 2001 npes 1 ndims 1\n4\n0 2\n1 -1\n", "offset -1 is out of range"},
      {"pio", "version 2001 npes 1 ndims 1\n4\n0 2\n1 2x\n", "not an integer: '2x'"},
      {"pio",
       "version 2001 npes 1 ndims 1\n4\n0 1\n-0000000000000000000000000000000000000000000001\n",
       "not an integer"},
      {"pio", "version 2001 npes 1 ndims 1\n4\n0 2\n1", "holds 1 (file ends)"},
      {"pio", "version 2001 npes 1 ndims 1\n4\n0 2\n1\n", "holds 1"},
      {"esmio", "", "file ends early"},
      {"esmio", "esmio-decomp 2\n", "version 2"},
      {"esmio", "version 2001 npes 1 ndims 1\n", "expected the esmio decomposition header"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 1\nproc 0 2\n0 2\n", "expected 'end'"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 1\nproc 0 2\n0 2\nend2\n", "found 'end2'"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 2\nproc 0 2\n0 2\nend\n",
       "expected 'proc'"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 1\nproc 1 2\n0 2\nend\n",
       "expected 'proc 0'"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 1\nproc 0 -2\nend\n", "element count -2"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 1\nproc 0 9000000000000000000\n-1 1\n",
       "element count 9000000000000000000"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 1\nproc 0 2\n0 0\n", "length is not"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 1\nproc 0 2\n0 3\n", "length is not"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 1\nproc 0 2\n3 2\n", "out of range"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 1\nproc 0 2\n-2 2\n", "out of range"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 1\nproc 0 8\n0 4 0 4\nend\n",
       "more offsets than the global size"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 1\nproc 0 2000000\n-1 2000000\nend\n",
       "element count 2000000"},
      {"esmio", "esmio-decomp 1\nndims 1\ndims 4\nnprocs 1\nproc 0 2\n0\n", "file ends early"},
      {"esmio", "esmio-decomp 1\nndims 2\ndims 4\nnprocs 1\n",
       "expected a dimension length, found 'nprocs'"},
  };
  TempDir tmp;
  const std::string path = tmp.path("bad.txt");
  for (const BadCase &c : cases) {
    SCOPED_TRACE(std::string(c.format) + ": " + c.text);
    write_text(path, c.text);
    std::string msg;
    EXPECT_EQ(load_code(path, c.format, 0, 1, &msg), ESMIO_EDECOMP);
    EXPECT_NE(msg.find(c.why), std::string::npos) << msg;
    EXPECT_EQ(msg.compare(0, path.size(), path), 0) << msg;
  }
}

TEST(Malformed, LineNumbersInMessages) {
  TempDir tmp;
  const std::string path = tmp.path("lines.dat");
  write_text(path, "version 2001 npes 2 ndims 1 \n4 \n0 2\n1 2 \n1 2\n3 9 \n");
  std::string msg;
  EXPECT_EQ(load_code(path, "pio", 0, 1, &msg), ESMIO_EDECOMP);
  EXPECT_NE(msg.find(":6: task 1: offset 9"), std::string::npos) << msg;
}

TEST(Malformed, MissingFilesAndBadArguments) {
  TempDir tmp;
  const std::string missing = tmp.path("missing");
  for (const char *fmt : {"pio", "esmio", "e3sm:D1"}) {
    std::string msg;
    EXPECT_EQ(load_code(missing, fmt, 0, 1, &msg), ESMIO_EIO) << fmt;
    EXPECT_NE(msg.find(missing), std::string::npos) << msg;
  }
  EXPECT_EQ(load_code(pio_file(514), "pio", 4, 4), ESMIO_EINVAL);
  EXPECT_EQ(load_code(pio_file(514), "pio", -1, 4), ESMIO_EINVAL);
  EXPECT_EQ(load_code(pio_file(514), "pio", 0, 0), ESMIO_EINVAL);
  EXPECT_EQ(load_code(pio_file(514), "esmio"), ESMIO_EDECOMP);
  EXPECT_EQ(load_code(data_dir() + kFMap, "pio"), ESMIO_EDECOMP);
}

TEST(Malformed, RandomBytesNeverCrash) {
  std::mt19937_64 rng(7);
  TempDir tmp;
  const std::string path = tmp.path("noise");
  const std::string prefixes[] = {"", "version 2001 npes 3 ndims 2\n", "esmio-decomp 1\nndims 1\n"};
  for (int trial = 0; trial < 300; ++trial) {
    std::string text = prefixes[trial % 3];
    const std::size_t n = rng() % 400;
    const char alphabet[] = "0123456789 -\n\t#x\0\xff";
    for (std::size_t i = 0; i < n; ++i)
      text += trial % 2 ? static_cast<char>(rng()) : alphabet[rng() % (sizeof(alphabet) - 1)];
    write_text(path, text);
    for (const char *fmt : {"pio", "esmio", "e3sm:D1"}) {
      LoadedDecomp d;
      Status st = load_decomp_file(path, fmt, static_cast<int>(rng() % 3), 3, &d);
      if (!st.is_ok()) {
        EXPECT_TRUE(st.code() == ESMIO_EDECOMP || st.code() == ESMIO_ENOTNC) << st.message();
        EXPECT_FALSE(st.message().empty());
      }
    }
  }
}

// Any cut inside the map is an error (PIO: until the last task's offsets, whose tail could be
// cut into smaller but valid numbers; esmio: anywhere before "end", thanks to it).
TEST(Malformed, TruncatedFiles) {
  TempDir tmp;
  const std::string pio_text = read_text(pio_file(514));
  const std::size_t last_line = pio_text.rfind("\n15 96\n");
  ASSERT_NE(last_line, std::string::npos);
  const std::string path = tmp.path("cut");
  for (std::size_t cut = 0; cut < last_line + 7; cut += cut < 200 ? 3 : 41) {
    write_text(path, pio_text.substr(0, cut));
    EXPECT_EQ(load_code(path, "pio"), ESMIO_EDECOMP) << "pio cut at " << cut;
  }
  const std::string esmio_path = tmp.path("whole.esmio");
  write_file(esmio_path, "esmio", {866}, load_all(pio_file(516), "pio", 16), 64);
  const std::string esmio_text = read_text(esmio_path);
  ASSERT_EQ(esmio_text.substr(esmio_text.size() - 4), "end\n");
  // Every cut near the ends (headers, "end"), a sample in between.
  for (std::size_t cut = 0; cut < esmio_text.size() - 1;
       cut += cut < 300 || cut + 100 > esmio_text.size() ? 1 : 37) {
    write_text(path, esmio_text.substr(0, cut));
    EXPECT_EQ(load_code(path, "esmio"), ESMIO_EDECOMP) << "esmio cut at " << cut;
  }
}

}  // namespace
}  // namespace esmio::decomp
