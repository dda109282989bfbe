// The pure readers of the text formats (PIO's, esmio's) and of the E3SM map format string, one
// rank of N at a time and without MPI: a damaged map gives ESMIO_EDECOMP, with a message that
// names the file, the line and what is wrong, on the ranks whose pieces reach the damage; ranks
// that stop before it read their own pieces whole.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "decomp/e3sm_spec.hpp"
#include "decomp/esmio_format.hpp"
#include "decomp/pio_format.hpp"

namespace esmio::decomp {
namespace {

class TextFile {
 public:
  explicit TextFile(const std::string &text) {
    const char *tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp ? tmp : "/tmp") + "/esmio_decomp_formats_XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    const int fd = mkstemp(buf.data());
    if (fd >= 0) close(fd);
    path_ = buf.data();
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TextFile() { std::remove(path_.c_str()); }
  const std::string &path() const { return path_; }

 private:
  std::string path_;
};

using Loader = Status (*)(const std::string &, int, int, LoadedDecomp *);

// Three processes of four elements each, for dims (12): process p holds 4p .. 4p+3.
const std::string kPio =
    "version 2001 npes 3 ndims 1\n12\n0 4\n1 2 3 4\n1 4\n5 6 7 8\n2 4\n9 10 11 12\n";
const std::string kEsmio =
    "esmio-decomp 1\nndims 1\ndims 12\nnprocs 3\nproc 0 4\n0 4\nproc 1 4\n4 4\nproc 2 4\n8 4\n"
    "end\n";

std::vector<int64_t> own(int rank) { return {4 * rank, 4 * rank + 1, 4 * rank + 2, 4 * rank + 3}; }

void expect_whole(Loader load, const std::string &text) {
  TextFile f(text);
  for (int rank = 0; rank < 3; ++rank) {
    LoadedDecomp d;
    const Status st = load(f.path(), rank, 3, &d);
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(d.dims, std::vector<int64_t>{12});
    EXPECT_EQ(d.file_nprocs, 3);
    EXPECT_EQ(d.offsets, own(rank));
  }
}

// Loaded on 3 ranks: ranks below first_bad read their pieces; the others get ESMIO_EDECOMP with
// the message "<path>:<cause>".
void expect_damage(Loader load, const std::string &text, int first_bad, const std::string &cause) {
  SCOPED_TRACE(text);
  TextFile f(text);
  for (int rank = 0; rank < 3; ++rank) {
    LoadedDecomp d;
    const Status st = load(f.path(), rank, 3, &d);
    if (rank < first_bad) {
      EXPECT_TRUE(st.is_ok()) << "rank " << rank << ": " << st.message();
      EXPECT_EQ(d.offsets, own(rank)) << "rank " << rank;
      continue;
    }
    EXPECT_EQ(st.code(), ESMIO_EDECOMP) << "rank " << rank;
    EXPECT_EQ(st.message(), f.path() + ":" + cause) << "rank " << rank;
    EXPECT_TRUE(d.offsets.empty() && d.dims.empty()) << "rank " << rank << ": partial result kept";
  }
}

std::string replaced(std::string text, const std::string &from, const std::string &to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(PioFormat, ReadsEachRanksTasks) { expect_whole(load_pio_decomp, kPio); }

TEST(PioFormat, LastTaskMissing) {
  expect_damage(load_pio_decomp, kPio.substr(0, kPio.find("2 4\n")), 2,
                "7: file ends early: expected header '2 <count>' of task 2 of 3");
}

TEST(PioFormat, WrongCount) {
  expect_damage(load_pio_decomp, replaced(kPio, "2 4\n", "2 5\n"), 2,
                "8: task 2 declares 5 offsets but its line holds 4");
  expect_damage(load_pio_decomp, replaced(kPio, "1 4\n", "1 3\n"), 1,
                "6: task 1 declares 3 offsets but its line holds more");
}

TEST(PioFormat, OffsetOutOfRange) {
  expect_damage(load_pio_decomp, replaced(kPio, "5 6 7 8", "5 6 13 8"), 1,
                "6: task 1: offset 13 is out of range 0..12 (1-based, 0 = hole) for dims 12");
}

TEST(PioFormat, HugeCount) {
  expect_damage(load_pio_decomp, replaced(kPio, "2 4\n", "2 99999999999\n"), 2,
                "8: task 2 declares 99999999999 offsets but its line holds 4");
}

TEST(PioFormat, TruncatedLine) {
  expect_damage(load_pio_decomp, kPio.substr(0, kPio.size() - 7), 2,
                "8: task 2 declares 4 offsets but its line holds 2 (file ends)");
}

TEST(PioFormat, BadHeaderReachesEveryRank) {
  expect_damage(load_pio_decomp, replaced(kPio, "npes 3", "npes 0"), 0,
                "1: number of processes 0 is not within 1..2^31-1");
}

TEST(EsmioFormat, ReadsEachRanksProcesses) { expect_whole(load_esmio_decomp, kEsmio); }

TEST(EsmioFormat, Cut) {
  expect_damage(load_esmio_decomp, kEsmio.substr(0, kEsmio.find("8 4") + 1), 2,
                "10: file ends early: expected the length of a run of process 2");
  expect_damage(load_esmio_decomp, kEsmio.substr(0, kEsmio.find("end")), 2,
                "11: file ends early: expected 'end'");
}

TEST(EsmioFormat, Overflow) {
  expect_damage(load_esmio_decomp, replaced(kEsmio, "8 4\n", "10 4\n"), 2,
                "10: process 2: run 10 4: offsets out of range 0..11 for dims 12");
  expect_damage(load_esmio_decomp, replaced(kEsmio, "4 4\n", "4 2 6 3\n"), 1,
                "8: process 1: run 6 3: length is not within 1..2 (what remains of the element "
                "count 4)");
}

TEST(EsmioFormat, HugeCount) {
  expect_damage(load_esmio_decomp, replaced(kEsmio, "proc 2 4", "proc 2 9000000000000000000"), 2,
                "9: process 2: element count 9000000000000000000 is not within 0..1048588 "
                "(global size plus the hole allowance)");
}

TEST(E3smSpec, ParsesNameDimsAndOptions) {
  E3smSpec s;
  ASSERT_TRUE(parse_e3sm_spec("m.nc", "d3:72x866:RUNS", &s).is_ok());
  EXPECT_EQ(s.name, "D3");
  EXPECT_EQ(s.decomp, 3);
  EXPECT_EQ(s.dims, (std::vector<int64_t>{72, 866}));
  EXPECT_TRUE(s.runs);
  EXPECT_FALSE(s.fill);
  E3smSpec f;
  ASSERT_TRUE(parse_e3sm_spec("m.nc", "D1:fill", &f).is_ok());
  EXPECT_TRUE(f.fill && f.dims.empty());
}

TEST(E3smSpec, BadSpecsNameTheirCause) {
  const struct {
    const char *spec, *why;
  } cases[] = {
      {"X3", "unknown decomposition name 'X3'"},
      {"D0", "unknown decomposition name 'D0'"},
      {"D", "unknown decomposition name 'D'"},
      {"D1:0x3", "bad dims '0x3'"},
      {"D1:72x", "bad dims '72x'"},
      {"D1:runs:runs", "bad dims 'runs'"},
      {"D1:4:5", "unexpected '5'"},
      {"D1:4294967296x4294967296", "overflow 64 bits"},
  };
  for (const auto &c : cases) {
    E3smSpec s;
    const Status st = parse_e3sm_spec("m.nc", c.spec, &s);
    EXPECT_EQ(st.code(), ESMIO_EINVAL) << c.spec;
    EXPECT_EQ(st.message().rfind(std::string("m.nc: format 'e3sm:") + c.spec + "'", 0), 0u)
        << st.message();
    EXPECT_NE(st.message().find(c.why), std::string::npos) << st.message();
  }
}

TEST(E3smSpec, KnownBenchmarkMaps) {
  std::vector<int64_t> dims;
  ASSERT_TRUE(known_e3sm_map_dims("map_f_case_16p.nc", 3, &dims));
  EXPECT_EQ(dims, (std::vector<int64_t>{72, 866}));
  ASSERT_TRUE(known_e3sm_map_dims("map_i_case_16p.nc", 2, &dims));
  EXPECT_EQ(dims, (std::vector<int64_t>{15, 96, 144}));
  EXPECT_FALSE(known_e3sm_map_dims("map_f_case_16p.nc", 4, &dims));
  EXPECT_FALSE(known_e3sm_map_dims("other.nc", 1, &dims));
}

}  // namespace
}  // namespace esmio::decomp
