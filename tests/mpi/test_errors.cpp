// Every error path a user can hit through the public C API, on every rank: a collective call
// must return the same code on all ranks (checked with MPI_Allreduce of min and max), the same
// message everywhere, and esmio_last_error() must name the file, variable and cause. After each
// error the instance must still work: the test ends by writing and reading data successfully on
// every instance it used. A rank that owns no elements (the last one, from 3 ranks up) takes
// part in every call. Run under mpiexec with any number of ranks; exits nonzero on failure.
//
// Files go to $ESMIO_TEST_OUT (or the current directory), named after the rank count so that
// runs with different counts can share a directory, and are removed at the end.
#include <mpi.h>
#include <netcdf.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "esmio.h"

namespace {

int rank = 0, nranks = 1, failures = 0;
std::string out_dir = ".";
std::vector<std::string> created;  // files to remove at the end

std::vector<std::string> *collecting = nullptr;  // set while checking a collective call

void fail(int line, const std::string &what) {
  ++failures;
  const std::string text = "test_errors.cpp:" + std::to_string(line) + ": " + what;
  if (collecting)
    collecting->push_back(text);
  else
    std::fprintf(stderr, "[rank %d] FAIL %s\n", rank, text.c_str());
}

#define CHECK(cond, what)                                            \
  do {                                                               \
    if (!(cond)) fail(__LINE__, std::string(#cond) + ": " + (what)); \
  } while (0)

std::string code_text(int code) { return std::to_string(code) + " (" + esmio_strerror(code) + ")"; }

std::string broadcast_from_root(const std::string &text) {
  int len = static_cast<int>(text.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string root = rank == 0 ? text : std::string(static_cast<std::size_t>(len), '\0');
  if (len > 0) MPI_Bcast(&root[0], len, MPI_CHAR, 0, MPI_COMM_WORLD);
  return root;
}

// needle may list alternatives separated by '|': the message must contain one of them.
bool names(const std::string &message, const std::string &needle) {
  std::size_t from = 0;
  while (true) {
    const std::size_t bar = needle.find('|', from);
    const std::string alt = needle.substr(from, bar == std::string::npos ? bar : bar - from);
    if (!alt.empty() && message.find(alt) != std::string::npos) return true;
    if (bar == std::string::npos) return false;
    from = bar + 1;
  }
}

void check_message(int line, const std::string &what, const std::string &message,
                   const std::vector<std::string> &needles) {
  if (message.empty()) fail(line, what + ": empty esmio_last_error()");
  for (const std::string &n : needles)
    if (!names(message, n))
      fail(line, what + ": message does not name '" + n + "': \"" + message + "\"");
}

// A call made on this rank alone (null handles): the expected code and message, no communication.
void expect_one(int line, int code, int expected, const std::string &what,
                const std::vector<std::string> &needles) {
  const std::string message = esmio_last_error();
  if (code != expected)
    fail(line, what + ": returned " + code_text(code) + ", expected " + code_text(expected) +
                   "; message: \"" + message + "\"");
  if (expected != ESMIO_NOERR) check_message(line, what, message, needles);
}

// A collective call: the expected code here, one code and one message on every rank. Rank 0
// prints its failures; another rank prints its own only where they differ from rank 0's.
void expect_all(int line, int code, int expected, const std::string &what,
                const std::vector<std::string> &needles) {
  std::vector<std::string> found;
  collecting = &found;
  const std::string message = esmio_last_error();
  expect_one(line, code, expected, what, needles);
  int lo = 0, hi = 0;
  MPI_Allreduce(&code, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&code, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi)
    fail(line, what + ": ranks disagree on the code: from " + code_text(lo) + " to " +
                   code_text(hi) + " (here " + code_text(code) + ")");
  std::string root = broadcast_from_root(message);
  if (root != message)
    fail(line, what + ": message differs from rank 0's (\"" + root + "\"): \"" + message + "\"");
  collecting = nullptr;
  std::string mine;
  for (const std::string &f : found) mine += f + "\n";
  const std::string roots = broadcast_from_root(mine);
  if (rank == 0 || mine != roots)
    for (const std::string &f : found) std::fprintf(stderr, "[rank %d] FAIL %s\n", rank, f.c_str());
}

#define EXPECT_ALL(call, expected, what, ...) \
  expect_all(__LINE__, (call), (expected), (what), {__VA_ARGS__})
#define EXPECT_ONE(call, expected, what, ...) \
  expect_one(__LINE__, (call), (expected), (what), {__VA_ARGS__})
#define OK(call, what) expect_all(__LINE__, (call), ESMIO_NOERR, (what), {})

std::string path_of(const std::string &name) {
  const std::string p = out_dir + "/test_errors_np" + std::to_string(nranks) + "_" + name;
  if (rank == 0) created.push_back(p);
  return p;
}

// ---- the test decomposition: (y, x) = (6, 5); the last rank (from 3 up) owns nothing ------

const int64_t NY = 6, NX = 5, NG = NY * NX;
const int64_t kDims[2] = {NY, NX};

int writers() { return nranks >= 3 ? nranks - 1 : nranks; }
bool empty_rank() { return nranks >= 3 && rank == nranks - 1; }
// The one rank that does something wrong (never rank 0 when there are others, so the message
// must travel from it).
int bad_rank() { return nranks > 1 ? 1 : 0; }
std::string bad_rank_text() { return "rank " + std::to_string(bad_rank()); }
// The first (largest) offset of the bad rank, known on every rank.
int64_t bad_front() {
  int64_t g = NG - 1;
  while (g % (nranks >= 3 ? nranks - 1 : nranks) != bad_rank()) --g;
  return g;
}

// This rank's offsets, every writers()-th element, in descending order (memory != file order).
std::vector<int64_t> my_offsets() {
  std::vector<int64_t> offsets;
  if (empty_rank()) return offsets;
  for (int64_t g = NG - 1; g >= 0; --g)
    if (g % writers() == rank) offsets.push_back(g);
  return offsets;
}

double value(int64_t g, int64_t record) { return 1000.0 * record + g + 0.5; }

const int64_t *data_or_null(const std::vector<int64_t> &v) {
  return v.empty() ? nullptr : v.data();
}

esmio_decomp_t make_decomp(esmio_t io, const std::vector<int64_t> &offsets, int line,
                           const int64_t *dims = kDims) {
  esmio_decomp_t d = nullptr;
  expect_all(line,
             esmio_decomp_create(io, 2, dims, static_cast<int64_t>(offsets.size()),
                                 data_or_null(offsets), &d),
             ESMIO_NOERR, "esmio_decomp_create", {});
  return d;
}

std::vector<double> values_of(const std::vector<int64_t> &offsets, int64_t record) {
  std::vector<double> v;
  for (int64_t g : offsets) v.push_back(value(g, record));
  return v;
}

double *buf_or_null(std::vector<double> &v) { return v.empty() ? nullptr : v.data(); }

// Tries esmio_init with settings that must fail; finalizes the instance if it did not.
void expect_init_fails(int line, const std::string &settings, int expected,
                       const std::vector<std::string> &needles) {
  esmio_t io = nullptr;
  const int code = esmio_init(MPI_COMM_WORLD, settings.c_str(), &io);
  expect_all(line, code, expected, "esmio_init(\"" + settings + "\")", needles);
  if (code != ESMIO_NOERR && io != nullptr)
    fail(line, "esmio_init(\"" + settings + "\") failed but left a handle");
  if (code == ESMIO_NOERR) esmio_finalize(&io);
}

// Tries esmio_create with settings that must fail; closes the file if it did not.
void expect_create_fails(int line, esmio_t io, const std::string &path, const std::string &settings,
                         int expected, const std::vector<std::string> &needles) {
  esmio_file_t f = nullptr;
  const int code = esmio_create(io, path.c_str(), settings.c_str(), &f);
  expect_all(line, code, expected, "esmio_create('" + path + "', \"" + settings + "\")", needles);
  if (code != ESMIO_NOERR && f != nullptr) fail(line, "failed esmio_create left a handle");
  if (code == ESMIO_NOERR) esmio_close(&f);
}

void expect_open_fails(int line, esmio_t io, const std::string &path, int mode,
                       const std::string &settings, int expected,
                       const std::vector<std::string> &needles) {
  esmio_file_t f = nullptr;
  const int code = esmio_open(io, path.c_str(), mode, settings.c_str(), &f);
  expect_all(line, code, expected, "esmio_open('" + path + "', \"" + settings + "\")", needles);
  if (code != ESMIO_NOERR && f != nullptr) fail(line, "failed esmio_open left a handle");
  if (code == ESMIO_NOERR) esmio_close(&f);
}

// Rank 0 alone sets (or clears) an ESMIO_* variable: esmio reads it there and broadcasts it.
void set_env_on_root(const char *name, const char *value) {
  if (rank == 0) {
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// ---- settings --------------------------------------------------------------------------

void test_init_settings() {
  const std::string too_many = std::to_string(nranks + 1);
  expect_init_fails(__LINE__, "nosuchkey=1", ESMIO_EBADNAME, {"nosuchkey", "esmio_init"});
  expect_init_fails(__LINE__, "num_iotasks=abc", ESMIO_ESETTING, {"num_iotasks", "abc"});
  expect_init_fails(__LINE__, "num_iotasks", ESMIO_ESETTING, {"num_iotasks"});
  expect_init_fails(__LINE__, "num_iotasks=-2", ESMIO_ESETTING, {"num_iotasks", "-2"});
  expect_init_fails(__LINE__, "layout=diagonal", ESMIO_EBADNAME, {"layout", "diagonal"});
  expect_init_fails(__LINE__, "num_iotasks=" + too_many, ESMIO_ESETTING,
                    {"I/O tasks|num_iotasks", too_many});
  expect_init_fails(__LINE__, "layout=subset,num_iotasks=" + too_many, ESMIO_ESETTING,
                    {"I/O tasks|num_iotasks", too_many});
  expect_init_fails(__LINE__, "iotask_stride=0", ESMIO_ESETTING, {"iotask_stride"});
  expect_init_fails(__LINE__, "iotask_offset=" + std::to_string(nranks), ESMIO_ESETTING,
                    {"iotask_offset"});
  expect_init_fails(__LINE__, "max_message=0", ESMIO_ESETTING, {"max_message"});
  expect_init_fails(__LINE__, "max_message=12Q", ESMIO_ESETTING, {"max_message", "12Q"});
  expect_init_fails(__LINE__, "max_outstanding=-3", ESMIO_ESETTING, {"max_outstanding", "-3"});
  expect_init_fails(__LINE__, "clobber=maybe", ESMIO_ESETTING, {"clobber", "maybe"});
  // File defaults given to esmio_init are bad values of esmio_init, reported there.
  expect_init_fails(__LINE__, "backend=nosuch", ESMIO_EBADNAME, {"nosuch"});
  expect_init_fails(__LINE__, "format=cdf7", ESMIO_EBADNAME, {"cdf7"});

  // Environment: rank 0 alone has the variable; every rank must fail alike.
  set_env_on_root("ESMIO_LAYOUT", "diagonal");
  expect_init_fails(__LINE__, "", ESMIO_EBADNAME, {"diagonal", "ESMIO_LAYOUT|environment"});
  expect_init_fails(__LINE__, "layout=box", ESMIO_EBADNAME,
                    {"diagonal", "ESMIO_LAYOUT|environment"});
  set_env_on_root("ESMIO_LAYOUT", nullptr);
  set_env_on_root("ESMIO_NUM_IOTASKS", "many");
  expect_init_fails(__LINE__, "", ESMIO_ESETTING,
                    {"many", "num_iotasks", "ESMIO_NUM_IOTASKS|environment"});
  set_env_on_root("ESMIO_NUM_IOTASKS", nullptr);

  // A good value from rank 0's environment overrides the API on every rank.
  set_env_on_root("ESMIO_LAYOUT", "subset");
  esmio_t io = nullptr;
  OK(esmio_init(MPI_COMM_WORLD, "layout=box", &io), "esmio_init with ESMIO_LAYOUT=subset");
  set_env_on_root("ESMIO_LAYOUT", nullptr);
  char text[2048] = {0};
  OK(esmio_inq_settings(io, text, sizeof text), "esmio_inq_settings");
  CHECK(std::string(text).find("layout=subset") != std::string::npos,
        std::string("ESMIO_LAYOUT=subset on rank 0 not applied here: ") + text);
  // What esmio_inq_settings says is valid settings for esmio_init, which then says the same;
  // booleans in the words the documentation uses, num_iotasks resolved.
  const std::string said = text;
  for (const char *flag :
       {"clobber=true", "size_check=true", "direct_write=true", "read_back=true"})
    CHECK(said.find(flag) != std::string::npos,
          std::string("esmio_inq_settings: no ") + flag + " (booleans as true/false): " + said);
  CHECK(said.find(",iotasks=") == std::string::npos,
        "esmio_inq_settings: a key esmio_init rejects: " + said);
  int ntasks = 0, mine = -1;
  OK(esmio_inq_iotasks(io, &ntasks, &mine), "esmio_inq_iotasks");
  CHECK(said.find("num_iotasks=" + std::to_string(ntasks) + ",") != std::string::npos,
        "esmio_inq_settings: num_iotasks not resolved to " + std::to_string(ntasks) + ": " + said);
  esmio_t again = nullptr;
  OK(esmio_init(MPI_COMM_WORLD, said.c_str(), &again), "esmio_init with esmio_inq_settings' text");
  char text2[2048] = {0};
  OK(esmio_inq_settings(again, text2, sizeof text2), "esmio_inq_settings of the second instance");
  CHECK(said == text2, "settings differ after the round trip: " + said + " / " + text2);
  OK(esmio_finalize(&again), "esmio_finalize of the second instance");
  OK(esmio_finalize(&io), "esmio_finalize");
}

void test_create_settings(esmio_t io) {
  const std::string p = path_of("settings.nc");
  expect_create_fails(__LINE__, io, p, "backend=nosuch", ESMIO_EBADNAME, {"nosuch", p});
  expect_create_fails(__LINE__, io, p, "backend=pnetcdf,format=netcdf4", ESMIO_EBADNAME,
                      {"netcdf4", p});
  expect_create_fails(__LINE__, io, p, "backend=netcdf4,format=cdf5", ESMIO_EINVAL,
                      {"cdf5", "netcdf4", p});
  expect_create_fails(__LINE__, io, p, "format=cdf7", ESMIO_EBADNAME, {"cdf7", p});
  expect_create_fails(__LINE__, io, p, "backend=serial,format=cdf7", ESMIO_EBADNAME, {"cdf7", p});
  expect_create_fails(__LINE__, io, p, "nosuchkey=3", ESMIO_EBADNAME, {"nosuchkey", p});
  expect_create_fails(__LINE__, io, p, "clobber=maybe", ESMIO_ESETTING, {"clobber", "maybe", p});
  expect_create_fails(__LINE__, io, p, "max_request=0", ESMIO_ESETTING, {"max_request", p});
  expect_create_fails(__LINE__, io, p, "header_pad=lots", ESMIO_ESETTING,
                      {"header_pad", "lots", p});
  expect_create_fails(__LINE__, io, p, "format", ESMIO_ESETTING, {"format", p});
  // Instance-only keys: the message must say where they belong (esmio_init or ESMIO_LAYOUT).
  expect_create_fails(__LINE__, io, p, "layout=subset", ESMIO_EBADNAME,
                      {"layout", p, "esmio_init", "ESMIO_LAYOUT"});
  expect_create_fails(__LINE__, io, p, "num_iotasks=1", ESMIO_EBADNAME,
                      {"num_iotasks", p, "ESMIO_NUM_IOTASKS"});
  expect_create_fails(__LINE__, io, "", "", ESMIO_EINVAL, {"path"});
  expect_create_fails(__LINE__, io, p, "", ESMIO_NOERR, {});  // the instance still creates
  expect_open_fails(__LINE__, io, p, ESMIO_NOWRITE, "backend=nosuch", ESMIO_EBADNAME,
                    {"nosuch", p});
  expect_open_fails(__LINE__, io, p, 7, "", ESMIO_EINVAL, {"mode", p});

  // Through the environment, on rank 0 only.
  set_env_on_root("ESMIO_FORMAT", "cdf9");
  expect_create_fails(__LINE__, io, p, "", ESMIO_EBADNAME, {"cdf9", p});
  set_env_on_root("ESMIO_FORMAT", nullptr);
  set_env_on_root("ESMIO_CLOBBER", "maybe");
  expect_create_fails(__LINE__, io, p, "", ESMIO_ESETTING,
                      {"maybe", "clobber", "ESMIO_CLOBBER|environment", p});
  set_env_on_root("ESMIO_CLOBBER", nullptr);
  set_env_on_root("ESMIO_BACKEND", "nosuch");
  expect_create_fails(__LINE__, io, p, "backend=pnetcdf", ESMIO_EBADNAME, {"nosuch", p});
  set_env_on_root("ESMIO_BACKEND", nullptr);
  expect_create_fails(__LINE__, io, p, "", ESMIO_NOERR, {});
}

// ---- the file system ---------------------------------------------------------------------

void test_file_system(esmio_t io, const std::string &backend) {
  const std::string settings = "backend=" + backend;
  const std::string missing_dir = out_dir + "/test_errors_np" + std::to_string(nranks) +
                                  "_no_such_dir_" + backend + "/sub/out.nc";
  expect_create_fails(__LINE__, io, missing_dir, settings, ESMIO_EIO,
                      {missing_dir, "does not exist"});
  const std::string missing = path_of("missing_" + backend + ".nc");
  expect_open_fails(__LINE__, io, missing, ESMIO_NOWRITE, settings, ESMIO_EIO, {missing});

  const std::string text = path_of("not_netcdf_" + backend + ".nc");
  if (rank == 0) {
    FILE *fp = std::fopen(text.c_str(), "w");
    CHECK(fp != nullptr, "cannot write " + text);
    if (fp) {
      for (int i = 0; i < 64; ++i) std::fputs("this is a text file, not a netCDF file\n", fp);
      std::fclose(fp);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_open_fails(__LINE__, io, text, ESMIO_NOWRITE, settings, ESMIO_ENOTNC, {text});
  expect_open_fails(__LINE__, io, text, ESMIO_WRITE, settings, ESMIO_ENOTNC, {text});

  // noclobber on an existing file: refused, and the file is left as it was.
  const std::string existing = path_of("existing_" + backend + ".nc");
  esmio_file_t f = nullptr;
  OK(esmio_create(io, existing.c_str(), settings.c_str(), &f), "create " + existing);
  int dim = -1, var = -1;
  OK(esmio_def_dim(f, "n", 4, &dim), "def_dim");
  OK(esmio_def_var(f, "keep", ESMIO_INT, 1, &dim, &var), "def_var");
  OK(esmio_enddef(f), "enddef");
  const int keep[4] = {7, 8, 9, 10};
  OK(esmio_put_var(f, var, ESMIO_INT, keep, 4), "put_var");
  OK(esmio_close(&f), "close");
  expect_create_fails(__LINE__, io, existing, settings + ",clobber=false", ESMIO_EEXIST,
                      {existing});
  set_env_on_root("ESMIO_CLOBBER", "false");
  expect_create_fails(__LINE__, io, existing, settings, ESMIO_EEXIST, {existing});
  set_env_on_root("ESMIO_CLOBBER", nullptr);
  OK(esmio_open(io, existing.c_str(), ESMIO_NOWRITE, settings.c_str(), &f), "reopen");
  int back[4] = {0, 0, 0, 0};
  OK(esmio_inq_varid(f, "keep", &var), "inq_varid keep");
  OK(esmio_get_var(f, var, ESMIO_INT, back, 4), "get_var");
  CHECK(std::memcmp(back, keep, sizeof keep) == 0, existing + " changed by a refused create");
  OK(esmio_close(&f), "close");
}

// ---- decompositions ----------------------------------------------------------------------

void expect_decomp_fails(int line, esmio_t io, const std::vector<int64_t> &offsets,
                         const std::string &what, const std::vector<std::string> &needles) {
  esmio_decomp_t d = nullptr;
  const int code = esmio_decomp_create(io, 2, kDims, static_cast<int64_t>(offsets.size()),
                                       data_or_null(offsets), &d);
  expect_all(line, code, ESMIO_EDECOMP, what, needles);
  if (code != ESMIO_NOERR && d != nullptr) fail(line, what + ": failed but left a handle");
  if (code == ESMIO_NOERR) esmio_decomp_free(&d);
}

void test_decompositions(esmio_t io, const std::string &layout) {
  const std::string tag = " (" + layout + ")";
  const bool bad = rank == bad_rank();
  std::vector<int64_t> offsets = my_offsets();

  // Out of range on one rank only: too large, then below -1.
  std::vector<int64_t> o = offsets;
  if (bad) o[0] = NG;
  expect_decomp_fails(__LINE__, io, o, "offset out of range" + tag,
                      {bad_rank_text(), std::to_string(NG)});
  o = offsets;
  if (bad) o.back() = -7;
  expect_decomp_fails(__LINE__, io, o, "negative offset" + tag, {bad_rank_text(), "-7"});

  // The same offset twice on one rank.
  o = offsets;
  if (bad) o.back() = o.front();
  expect_decomp_fails(__LINE__, io, o, "duplicate on one rank" + tag,
                      {bad_rank_text(), "offset " + std::to_string(bad_front())});

  // The same offset on two ranks: rank 1 also writes rank 0's element 0.
  if (nranks >= 2) {
    o = offsets;
    if (rank == 1) o.push_back(0);
    expect_decomp_fails(__LINE__, io, o, "duplicate across ranks" + tag,
                        {"rank 0", "rank 1", "offset 0"});
  }

  // A block beyond the shape on one rank; the others (and the empty rank) give empty blocks.
  const int64_t start[2] = {bad ? NY - 1 : 0, 0}, count[2] = {bad ? 2 : 0, bad ? NX : 0};
  esmio_decomp_t d = nullptr;
  EXPECT_ALL(esmio_decomp_create_block(io, 2, kDims, start, count, nullptr, &d), ESMIO_EDECOMP,
             "block beyond the shape" + tag, bad_rank_text());
  if (d) esmio_decomp_free(&d);

  // A negative number of dimensions is a bad argument, not too many dimensions.
  EXPECT_ALL(esmio_decomp_create_block(io, -1, kDims, start, count, nullptr, &d), ESMIO_EINVAL,
             "decomp_create_block with -1 dimensions" + tag, "negative number of dimensions -1");
  if (d) esmio_decomp_free(&d);
  const int64_t one_offset[1] = {0};
  EXPECT_ALL(esmio_decomp_create(io, -2, kDims, 0, one_offset, &d), ESMIO_EINVAL,
             "decomp_create with -2 dimensions" + tag, "negative number of dimensions -2");
  if (d) esmio_decomp_free(&d);

  // After all that, a good map still works.
  d = make_decomp(io, offsets, __LINE__);
  OK(esmio_decomp_free(&d), "decomp_free");
}

// ---- the data phase ----------------------------------------------------------------------

struct DataFile {
  std::string path;
  int temp = -1, sal = -1, cnt = -1, fix = -1, lat = -1;
};

const float kSalFill = -999.0f;
const float kFloatFill = 9.9692099683868690e+36f;
const int32_t kIntFill = -2147483647;

// Reads record `record` of temperature, salinity, counts and checks values (fill at bad_g).
void check_records(esmio_file_t f, const DataFile &df, esmio_decomp_t d,
                   const std::vector<int64_t> &offsets, int64_t record, int64_t bad_g,
                   const std::string &what) {
  const int64_t n = static_cast<int64_t>(offsets.size());
  std::vector<double> t(offsets.size()), s(offsets.size()), c(offsets.size());
  OK(esmio_read_darray(f, df.temp, record, d, ESMIO_DOUBLE, buf_or_null(t), n), what + " read T");
  OK(esmio_read_darray(f, df.sal, record, d, ESMIO_DOUBLE, buf_or_null(s), n), what + " read S");
  OK(esmio_read_darray(f, df.cnt, record, d, ESMIO_DOUBLE, buf_or_null(c), n), what + " read C");
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const int64_t g = offsets[i];
    const double want = value(g, record);
    const std::string at =
        what + " record " + std::to_string(record) + " offset " + std::to_string(g);
    if (g == bad_g) {
      CHECK(t[i] == static_cast<double>(kFloatFill),
            at + ": temperature not the default fill: " + std::to_string(t[i]));
      CHECK(s[i] == static_cast<double>(kSalFill),
            at + ": salinity not its _FillValue: " + std::to_string(s[i]));
      CHECK(c[i] == static_cast<double>(kIntFill),
            at + ": counts not the int fill: " + std::to_string(c[i]));
    } else {
      CHECK(t[i] == want, at + ": temperature " + std::to_string(t[i]));
      CHECK(s[i] == want, at + ": salinity " + std::to_string(s[i]));
      CHECK(c[i] == std::floor(want), at + ": counts " + std::to_string(c[i]));
    }
  }
}

void test_data_phase(esmio_t io, esmio_t other_io, const std::string &backend,
                     const std::string &label) {
  const std::string settings = "backend=" + backend;
  DataFile df;
  df.path = path_of("data_" + label + ".nc");
  const std::string &p = df.path;
  const std::vector<int64_t> offsets = my_offsets();
  const int64_t n = static_cast<int64_t>(offsets.size());
  const bool bad = rank == bad_rank();
  esmio_decomp_t d = make_decomp(io, offsets, __LINE__);
  const int64_t wrong_dims[2] = {NX, NY};
  esmio_decomp_t d_wrong = make_decomp(io, offsets, __LINE__, wrong_dims);
  esmio_decomp_t d_other = make_decomp(other_io, offsets, __LINE__);

  esmio_file_t f = nullptr;
  OK(esmio_create(io, p.c_str(), settings.c_str(), &f), "create " + p);
  int dt = -1, dy = -1, dx = -1;
  OK(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dt), "def_dim time");
  OK(esmio_def_dim(f, "y", NY, &dy), "def_dim y");
  OK(esmio_def_dim(f, "x", NX, &dx), "def_dim x");
  const int tyx[3] = {dt, dy, dx};
  OK(esmio_def_var(f, "temperature", ESMIO_FLOAT, 3, tyx, &df.temp), "def_var temperature");
  OK(esmio_def_var(f, "salinity", ESMIO_FLOAT, 3, tyx, &df.sal), "def_var salinity");
  OK(esmio_def_var(f, "counts", ESMIO_INT, 3, tyx, &df.cnt), "def_var counts");
  OK(esmio_def_var(f, "fixed2d", ESMIO_FLOAT, 2, tyx + 1, &df.fix), "def_var fixed2d");
  OK(esmio_def_var(f, "lat", ESMIO_FLOAT, 1, &dy, &df.lat), "def_var lat");
  OK(esmio_def_var_fill(f, df.sal, &kSalFill), "def_var_fill salinity");
  // The fill value of a binding, converted to the variable's type (the default fills, which the
  // checks below expect, given as double and int64).
  const double huge = 1e300, fits = static_cast<double>(kFloatFill);
  const int64_t int_fill = kIntFill;
  EXPECT_ALL(esmio_def_var_fill_typed(f, df.temp, ESMIO_DOUBLE, &huge), ESMIO_ERANGE,
             "typed fill 1e300 into float", p, "temperature");
  EXPECT_ALL(esmio_def_var_fill_typed(f, df.temp, ESMIO_CHAR, "x"), ESMIO_EBADTYPE,
             "typed fill from text", p, "temperature");
  EXPECT_ALL(esmio_def_var_fill_typed(f, df.temp, ESMIO_DOUBLE, nullptr), ESMIO_EINVAL,
             "typed fill null", p, "temperature");
  EXPECT_ALL(esmio_def_var_fill_typed(f, 99, ESMIO_DOUBLE, &fits), ESMIO_EBADID,
             "typed fill varid 99", p, "99");
  OK(esmio_def_var_fill_typed(f, df.temp, ESMIO_DOUBLE, &fits), "typed fill temperature");
  OK(esmio_def_var_fill_typed(f, df.cnt, ESMIO_INT64, &int_fill), "typed fill counts");
  float got_float = 0;
  int got_int = 0;
  OK(esmio_get_att(f, df.temp, "_FillValue", ESMIO_FLOAT, 1, &got_float), "temperature fill");
  OK(esmio_get_att(f, df.cnt, "_FillValue", ESMIO_INT, 1, &got_int), "counts fill");
  CHECK(got_float == kFloatFill && got_int == kIntFill, "typed fills read back");

  std::vector<double> v0 = values_of(offsets, 0);
  double lat[NY] = {-75, -45, -15, 15, 45, 75};

  // Data access in define mode.
  EXPECT_ALL(esmio_write_darray(f, df.temp, 0, d, ESMIO_DOUBLE, buf_or_null(v0), n),
             ESMIO_EINDEFINE, "write_darray in define mode", p, "temperature");
  EXPECT_ALL(esmio_read_darray(f, df.temp, 0, d, ESMIO_DOUBLE, buf_or_null(v0), n), ESMIO_EINDEFINE,
             "read_darray in define mode", p, "temperature");
  EXPECT_ALL(esmio_put_var(f, df.lat, ESMIO_DOUBLE, lat, NY), ESMIO_EINDEFINE,
             "put_var in define mode", p, "lat");
  EXPECT_ALL(esmio_sync(f), ESMIO_EINDEFINE, "sync in define mode", p);
  OK(esmio_enddef(f), "enddef");

  // Definitions in data mode.
  int id = -1;
  EXPECT_ALL(esmio_def_dim(f, "z", 3, &id), ESMIO_ENOTINDEFINE, "def_dim after enddef", p);
  EXPECT_ALL(esmio_def_var(f, "late", ESMIO_FLOAT, 1, &dy, &id), ESMIO_ENOTINDEFINE,
             "def_var after enddef", p);
  EXPECT_ALL(esmio_put_att(f, ESMIO_GLOBAL, "title", ESMIO_CHAR, 3, "abc"), ESMIO_ENOTINDEFINE,
             "global put_att after enddef", p);
  EXPECT_ALL(esmio_put_att(f, df.temp, "units", ESMIO_CHAR, 1, "K"), ESMIO_ENOTINDEFINE,
             "put_att after enddef", p);
  EXPECT_ALL(esmio_def_var_fill(f, df.temp, &kSalFill), ESMIO_ENOTINDEFINE,
             "def_var_fill after enddef", p);
  EXPECT_ALL(esmio_enddef(f), ESMIO_ENOTINDEFINE, "enddef twice", p);

  OK(esmio_write_darray(f, df.temp, 0, d, ESMIO_DOUBLE, buf_or_null(v0), n), "write T 0");
  OK(esmio_write_darray(f, df.sal, 0, d, ESMIO_DOUBLE, buf_or_null(v0), n), "write S 0");
  OK(esmio_write_darray(f, df.cnt, 0, d, ESMIO_DOUBLE, buf_or_null(v0), n), "write C 0");

  // Unknown variables.
  EXPECT_ALL(esmio_write_darray(f, 99, 0, d, ESMIO_DOUBLE, buf_or_null(v0), n), ESMIO_EBADID,
             "write_darray varid 99", p, "99");
  EXPECT_ALL(esmio_write_darray(f, -1, 0, d, ESMIO_DOUBLE, buf_or_null(v0), n), ESMIO_EBADID,
             "write_darray varid -1", p, "-1");
  EXPECT_ALL(esmio_read_darray(f, 99, 0, d, ESMIO_DOUBLE, buf_or_null(v0), n), ESMIO_EBADID,
             "read_darray varid 99", p, "99");
  EXPECT_ALL(esmio_put_var(f, 99, ESMIO_DOUBLE, lat, NY), ESMIO_EBADID, "put_var varid 99", p,
             "99");
  EXPECT_ALL(esmio_inq_varid(f, "nosuch", &id), ESMIO_ENOTVAR, "inq_varid nosuch", p, "nosuch");
  EXPECT_ALL(esmio_inq_var(f, 42, nullptr, nullptr, nullptr), ESMIO_EBADID, "inq_var 42", p, "42");

  // Shape.
  EXPECT_ALL(esmio_write_darray(f, df.temp, 0, d_wrong, ESMIO_DOUBLE, buf_or_null(v0), n),
             ESMIO_ESHAPE, "write_darray with a (5,6) map", p, "temperature", "(5,6)", "(6,5)");
  EXPECT_ALL(esmio_read_darray(f, df.fix, 0, d_wrong, ESMIO_DOUBLE, buf_or_null(v0), n),
             ESMIO_ESHAPE, "read_darray with a (5,6) map", p, "fixed2d", "(5,6)", "(6,5)");
  EXPECT_ALL(esmio_write_darray(f, df.lat, 0, d, ESMIO_DOUBLE, buf_or_null(v0), n), ESMIO_ESHAPE,
             "write_darray of a 2-D map into 1-D lat", p, "lat");

  // Records.
  EXPECT_ALL(esmio_write_darray(f, df.temp, -1, d, ESMIO_DOUBLE, buf_or_null(v0), n), ESMIO_ERECORD,
             "write record -1", p, "temperature", "-1");
  EXPECT_ALL(esmio_read_darray(f, df.temp, -1, d, ESMIO_DOUBLE, buf_or_null(v0), n), ESMIO_ERECORD,
             "read record -1", p, "temperature", "-1");
  EXPECT_ALL(esmio_read_darray(f, df.temp, 1, d, ESMIO_DOUBLE, buf_or_null(v0), n), ESMIO_ERECORD,
             "read record 1 of 1", p, "temperature", "record 1");
  EXPECT_ALL(esmio_read_darray(f, df.temp, 7, d, ESMIO_DOUBLE, buf_or_null(v0), n), ESMIO_ERECORD,
             "read record 7 of 1", p, "temperature", "record 7");
  EXPECT_ALL(esmio_write_darray(f, df.fix, 1, d, ESMIO_DOUBLE, buf_or_null(v0), n), ESMIO_ERECORD,
             "record 1 of a fixed variable", p, "fixed2d");

  // Types.
  std::vector<char> text(offsets.size() + 1, 'a');
  EXPECT_ALL(esmio_write_darray(f, df.temp, 0, d, ESMIO_CHAR, text.data(), n), ESMIO_EBADTYPE,
             "write char into float", p, "temperature", "char", "float");
  EXPECT_ALL(esmio_read_darray(f, df.temp, 0, d, ESMIO_CHAR, text.data(), n), ESMIO_EBADTYPE,
             "read float into char", p, "temperature", "char", "float");
  EXPECT_ALL(esmio_write_darray(f, df.temp, 0, d, static_cast<esmio_type>(42), buf_or_null(v0), n),
             ESMIO_EBADTYPE, "write memtype 42", p, "temperature", "42");
  EXPECT_ALL(esmio_read_darray(f, df.temp, 0, d, static_cast<esmio_type>(0), buf_or_null(v0), n),
             ESMIO_EBADTYPE, "read memtype 0", p, "temperature");
  EXPECT_ALL(esmio_put_var(f, df.lat, ESMIO_CHAR, "abcdef", NY), ESMIO_EBADTYPE,
             "put_var char into float", p, "lat");

  // Buffers, one rank short.
  EXPECT_ALL(esmio_write_darray(f, df.temp, 0, d, ESMIO_DOUBLE, buf_or_null(v0), bad ? n - 1 : n),
             ESMIO_EBUFSIZE, "write_darray with a short buffer", p, "temperature", bad_rank_text());
  EXPECT_ALL(esmio_read_darray(f, df.temp, 0, d, ESMIO_DOUBLE, buf_or_null(v0), bad ? n - 1 : n),
             ESMIO_EBUFSIZE, "read_darray with a short buffer", p, "temperature", bad_rank_text());
  EXPECT_ALL(esmio_write_darray(f, df.temp, 0, d, ESMIO_DOUBLE, bad ? nullptr : buf_or_null(v0), n),
             ESMIO_EINVAL, "write_darray with a null buffer", p, "temperature", bad_rank_text());
  EXPECT_ALL(esmio_put_var(f, df.lat, ESMIO_DOUBLE, lat, NY - 1), ESMIO_EBUFSIZE,
             "put_var with a short buffer", p, "lat");
  // A record variable takes whole records: 1.5 records would drop half of one without a word.
  std::vector<double> one_and_half(static_cast<std::size_t>(NG + NG / 2), 1.0);
  EXPECT_ALL(esmio_put_var(f, df.temp, ESMIO_DOUBLE, one_and_half.data(), NG + NG / 2),
             ESMIO_EBUFSIZE, "put_var of a record variable, part of a record", p,
             "not a whole number of records");

  // Decompositions that do not belong here.
  EXPECT_ALL(esmio_write_darray(f, df.temp, 0, nullptr, ESMIO_DOUBLE, buf_or_null(v0), n),
             ESMIO_EBADID, "write_darray with a null decomposition", "decomposition");
  EXPECT_ALL(esmio_write_darray(f, df.temp, 0, d_other, ESMIO_DOUBLE, buf_or_null(v0), n),
             ESMIO_EINVAL, "write_darray with another instance's decomposition", p, "instance");

  // Out of range, from one rank only: ESMIO_ERANGE everywhere, fill there, data elsewhere.
  const int64_t bad_g_all = bad_front();
  if (bad) CHECK(offsets.front() == bad_g_all, "bad_front()");
  std::vector<double> v1 = values_of(offsets, 1);
  std::vector<double> t1 = v1, s1 = v1, c1 = v1;
  if (bad) {
    t1[0] = 1e40;
    s1[0] = -1e39;
    c1[0] = std::numeric_limits<double>::quiet_NaN();
  }
  EXPECT_ALL(esmio_write_darray(f, df.temp, 1, d, ESMIO_DOUBLE, buf_or_null(t1), n), ESMIO_ERANGE,
             "1e40 into float", p, "temperature", "1 value", bad_rank_text());
  EXPECT_ALL(esmio_write_darray(f, df.sal, 1, d, ESMIO_DOUBLE, buf_or_null(s1), n), ESMIO_ERANGE,
             "-1e39 into float", p, "salinity", "1 value", bad_rank_text());
  EXPECT_ALL(esmio_write_darray(f, df.cnt, 1, d, ESMIO_DOUBLE, buf_or_null(c1), n), ESMIO_ERANGE,
             "NaN into int", p, "counts", "1 value", bad_rank_text());
  int64_t nrec = -1;
  OK(esmio_inq_nrecords(f, &nrec), "inq_nrecords");
  CHECK(nrec == 2, "records after an ERANGE write: " + std::to_string(nrec));
  lat[2] = 1e40;
  EXPECT_ALL(esmio_put_var(f, df.lat, ESMIO_DOUBLE, lat, NY), ESMIO_ERANGE, "put_var 1e40", p,
             "lat", "1 value");
  lat[2] = -15;
  check_records(f, df, d, offsets, 0, -1, label);
  check_records(f, df, d, offsets, 1, bad_g_all, label);
  float lat_back[NY] = {0};
  OK(esmio_get_var(f, df.lat, ESMIO_FLOAT, lat_back, NY), "get_var lat");
  for (int i = 0; i < NY; ++i)
    CHECK(lat_back[i] == (i == 2 ? kFloatFill : static_cast<float>(lat[i])),
          label + ": lat[" + std::to_string(i) + "] = " + std::to_string(lat_back[i]));
  OK(esmio_sync(f), "sync");
  OK(esmio_close(&f), "close " + p);
  CHECK(f == nullptr, "close left the handle");

  // Read-only.
  OK(esmio_open(io, p.c_str(), ESMIO_NOWRITE, settings.c_str(), &f), "open read-only " + p);
  OK(esmio_inq_nrecords(f, &nrec), "inq_nrecords");
  CHECK(nrec == 2, "records in the reopened file: " + std::to_string(nrec));
  check_records(f, df, d, offsets, 0, -1, label + " reopened");
  check_records(f, df, d, offsets, 1, bad_g_all, label + " reopened");
  EXPECT_ALL(esmio_write_darray(f, df.temp, 2, d, ESMIO_DOUBLE, buf_or_null(v0), n), ESMIO_EPERM,
             "write_darray read-only", p, "temperature");
  EXPECT_ALL(esmio_put_var(f, df.lat, ESMIO_DOUBLE, lat, NY), ESMIO_EPERM, "put_var read-only", p,
             "lat");
  EXPECT_ALL(esmio_redef(f), ESMIO_EPERM, "redef read-only", p);
  EXPECT_ALL(esmio_read_darray(f, df.temp, 2, d, ESMIO_DOUBLE, buf_or_null(v0), n), ESMIO_ERECORD,
             "read record 2 of 2", p, "temperature", "record 2");
  OK(esmio_close(&f), "close");

  // Writable again: one more record goes in after all those errors.
  OK(esmio_open(io, p.c_str(), ESMIO_WRITE, settings.c_str(), &f), "open writable " + p);
  std::vector<double> v2 = values_of(offsets, 2);
  OK(esmio_write_darray(f, df.temp, 2, d, ESMIO_DOUBLE, buf_or_null(v2), n), "write T 2");
  OK(esmio_write_darray(f, df.sal, 2, d, ESMIO_DOUBLE, buf_or_null(v2), n), "write S 2");
  OK(esmio_write_darray(f, df.cnt, 2, d, ESMIO_DOUBLE, buf_or_null(v2), n), "write C 2");
  check_records(f, df, d, offsets, 2, -1, label + " appended");
  OK(esmio_close(&f), "close");

  OK(esmio_decomp_free(&d), "decomp_free");
  OK(esmio_decomp_free(&d_wrong), "decomp_free");
  OK(esmio_decomp_free(&d_other), "decomp_free");
}

// ---- definitions -------------------------------------------------------------------------

void test_definitions(esmio_t io, const std::string &backend) {
  const std::string p = path_of("defs_" + backend + ".nc");
  esmio_file_t f = nullptr;
  OK(esmio_create(io, p.c_str(), ("format=cdf1,backend=" + backend).c_str(), &f), "create " + p);
  int dt = -1, dy = -1, id = -1;
  OK(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dt), "def_dim time");
  EXPECT_ALL(esmio_def_dim(f, "time2", ESMIO_UNLIMITED, &id), ESMIO_EUNLIMPOS,
             "second unlimited dimension", p, "time");
  OK(esmio_def_dim(f, "y", NY, &dy), "def_dim y");
  EXPECT_ALL(esmio_def_dim(f, "y", 3, &id), ESMIO_ENAMEINUSE, "dimension name twice", p, "y");
  EXPECT_ALL(esmio_def_dim(f, "neg", -3, &id), ESMIO_EINVAL, "negative dimension", p, "neg");
  EXPECT_ALL(esmio_def_var(f, "big", ESMIO_INT64, 1, &dy, &id), ESMIO_EBADTYPE, "int64 in cdf1", p,
             "big", "int64", "cdf1");
  const int y_t[2] = {dy, dt};
  EXPECT_ALL(esmio_def_var(f, "late_time", ESMIO_FLOAT, 2, y_t, &id), ESMIO_EUNLIMPOS,
             "unlimited dimension second", p, "late_time", "time");
  EXPECT_ALL(esmio_def_var(f, "weird", static_cast<esmio_type>(42), 1, &dy, &id), ESMIO_EBADTYPE,
             "def_var type 42", p, "weird", "42");
  EXPECT_ALL(esmio_def_var(f, "negdims", ESMIO_FLOAT, -1, &dy, &id), ESMIO_EINVAL,
             "def_var with -1 dimensions", p, "negdims", "negative number of dimensions -1");
  const int many[ESMIO_MAX_DIMS + 1] = {};
  EXPECT_ALL(esmio_def_var(f, "manydims", ESMIO_FLOAT, ESMIO_MAX_DIMS + 1, many, &id),
             ESMIO_EMAXDIMS, "def_var with too many dimensions", p, "manydims", "at most");
  const int no_dim = 77;
  EXPECT_ALL(esmio_def_var(f, "nodim", ESMIO_FLOAT, 1, &no_dim, &id), ESMIO_EBADID,
             "def_var dimid 77", p, "nodim", "77");
  int v = -1;
  const int t_y[2] = {dt, dy};
  OK(esmio_def_var(f, "v", ESMIO_FLOAT, 2, t_y, &v), "def_var v");
  EXPECT_ALL(esmio_def_var(f, "v", ESMIO_DOUBLE, 1, &dy, &id), ESMIO_ENAMEINUSE,
             "variable name twice", p, "'v'");
  const float fill = -1.0f;
  const double dfill = -1.0;
  EXPECT_ALL(esmio_def_var_fill(f, 42, &fill), ESMIO_EBADID, "def_var_fill varid 42", p, "42");
  EXPECT_ALL(esmio_put_att(f, 42, "units", ESMIO_CHAR, 1, "K"), ESMIO_EBADID, "put_att varid 42", p,
             "42");
  EXPECT_ALL(esmio_put_att(f, v, "_FillValue", ESMIO_DOUBLE, 1, &dfill), ESMIO_EBADTYPE,
             "double _FillValue for a float", p, "'v'", "_FillValue");
  EXPECT_ALL(esmio_put_att(f, v, "units", static_cast<esmio_type>(42), 1, "K"), ESMIO_EBADTYPE,
             "put_att type 42", p, "units", "42");
  OK(esmio_put_att(f, v, "units", ESMIO_CHAR, 1, "K"), "put_att units");
  OK(esmio_enddef(f), "enddef");
  OK(esmio_close(&f), "close");

  // Nothing of the refused definitions reached the file.
  OK(esmio_open(io, p.c_str(), ESMIO_NOWRITE, ("backend=" + backend).c_str(), &f), "open " + p);
  int nvars = -1;
  OK(esmio_inq_nvars(f, &nvars), "inq_nvars");
  CHECK(nvars == 1, p + ": " + std::to_string(nvars) + " variables, expected 1");
  EXPECT_ALL(esmio_inq_dimid(f, "time2", &id), ESMIO_ENOTDIM, "inq_dimid time2", p, "time2");
  OK(esmio_close(&f), "close");
}

// A file made with netCDF-C with a variable of type xtype, "odd" (NC_UBYTE: every value 200;
// NC_STRING: netCDF-4, empty strings), and a float one, "ok" (value(g, 0)).
void make_netcdf_c_file(const std::string &p, nc_type xtype) {
  if (rank == 0) {
    int ncid = -1, dims[2], odd = -1, ok = -1;
    const int mode = xtype == NC_STRING ? NC_NETCDF4 : NC_64BIT_DATA;
    int err = nc_create(p.c_str(), NC_CLOBBER | mode, &ncid);
    if (err == NC_NOERR) err = nc_def_dim(ncid, "y", NY, &dims[0]);
    if (err == NC_NOERR) err = nc_def_dim(ncid, "x", NX, &dims[1]);
    if (err == NC_NOERR) err = nc_def_var(ncid, "odd", xtype, 2, dims, &odd);
    if (err == NC_NOERR) err = nc_def_var(ncid, "ok", NC_FLOAT, 2, dims, &ok);
    if (err == NC_NOERR) err = nc_enddef(ncid);
    std::vector<float> all(NG);
    std::vector<unsigned char> bytes(NG, 200);
    for (int64_t g = 0; g < NG; ++g) all[g] = static_cast<float>(value(g, 0));
    if (err == NC_NOERR) err = nc_put_var_float(ncid, ok, all.data());
    if (err == NC_NOERR && xtype == NC_UBYTE) err = nc_put_var_uchar(ncid, odd, bytes.data());
    if (ncid >= 0) nc_close(ncid);
    CHECK(err == NC_NOERR, std::string("netCDF-C: ") + nc_strerror(err));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Files made by another program: an unsigned byte variable of a CDF-5 file reads with its
// values (200, which a signed byte would take as -56); a string variable of a netCDF-4 file (a
// type esmio does not handle) is refused, naming the file and the variable, and the file's other
// variable reads.
void test_foreign_file_types(esmio_t io, const std::string &backend) {
  const std::vector<int64_t> offsets = my_offsets();
  const int64_t n = static_cast<int64_t>(offsets.size());
  esmio_decomp_t d = make_decomp(io, offsets, __LINE__);
  std::vector<double> back(offsets.size());
  const std::string ubyte = path_of("ubyte_" + backend + ".nc");
  make_netcdf_c_file(ubyte, NC_UBYTE);
  esmio_file_t f = nullptr;
  OK(esmio_open(io, ubyte.c_str(), ESMIO_NOWRITE, ("backend=" + backend).c_str(), &f),
     "open " + ubyte);
  int odd = -1, ok = -1;
  esmio_type type = ESMIO_BYTE;
  OK(esmio_inq_varid(f, "odd", &odd), "inq_varid odd");
  OK(esmio_inq_var(f, odd, &type, nullptr, nullptr), "inq_var odd");
  CHECK(type == ESMIO_UBYTE, ubyte + ": odd has type " + std::to_string(type));
  OK(esmio_read_darray(f, odd, 0, d, ESMIO_DOUBLE, buf_or_null(back), n), "read_darray ubyte");
  for (double v : back) CHECK(v == 200, ubyte + ": " + std::to_string(v) + ", expected 200");
  std::vector<unsigned char> raw(offsets.size());
  OK(esmio_read_darray(f, odd, 0, d, ESMIO_UBYTE, raw.empty() ? nullptr : raw.data(), n),
     "read_darray ubyte as ubyte");
  for (unsigned char v : raw) CHECK(v == 200, ubyte + ": " + std::to_string(v) + " as ubyte");
  OK(esmio_close(&f), "close");
  // netCDF-4 files are read by netCDF-C: the serial backend.
  if (backend == "serial") {
    const std::string p = path_of("string_" + backend + ".nc");
    make_netcdf_c_file(p, NC_STRING);
    OK(esmio_open(io, p.c_str(), ESMIO_NOWRITE, ("backend=" + backend).c_str(), &f), "open " + p);
    OK(esmio_inq_varid(f, "odd", &odd), "inq_varid odd");
    OK(esmio_inq_varid(f, "ok", &ok), "inq_varid ok");
    EXPECT_ALL(esmio_read_darray(f, odd, 0, d, ESMIO_DOUBLE, buf_or_null(back), n), ESMIO_EBADTYPE,
               "read_darray of string", p, "'odd'");
    double all[NG];
    EXPECT_ALL(esmio_get_var(f, odd, ESMIO_DOUBLE, all, NG), ESMIO_EBADTYPE, "get_var of string", p,
               "'odd'");
    OK(esmio_read_darray(f, ok, 0, d, ESMIO_DOUBLE, buf_or_null(back), n), "read_darray ok");
    for (std::size_t i = 0; i < offsets.size(); ++i)
      CHECK(back[i] == value(offsets[i], 0), p + ": ok at " + std::to_string(offsets[i]));
    OK(esmio_close(&f), "close");
  }
  OK(esmio_decomp_free(&d), "decomp_free");
}

// ---- handles -----------------------------------------------------------------------------

// Null handles are refused on the calling rank alone, without communication: only the last
// rank calls, and must come back (a collective here would hang until the test's timeout).
void test_null_handles() {
  if (rank == nranks - 1) {
    esmio_t io = nullptr;
    esmio_file_t f = nullptr;
    esmio_decomp_t d = nullptr;
    int id = 0, ntasks = 0, is_io = 0;
    int64_t len = 0;
    char text[64];
    const int64_t off[1] = {0};
    double x = 0;
    EXPECT_ONE(esmio_create(nullptr, "x.nc", "", &f), ESMIO_EBADID, "create null instance",
               "instance");
    EXPECT_ONE(esmio_open(nullptr, "x.nc", ESMIO_NOWRITE, "", &f), ESMIO_EBADID,
               "open null instance", "instance");
    EXPECT_ONE(esmio_decomp_create(nullptr, 2, kDims, 1, off, &d), ESMIO_EBADID,
               "decomp_create null instance", "instance");
    EXPECT_ONE(esmio_inq_iotasks(nullptr, &ntasks, &is_io), ESMIO_EBADID, "inq_iotasks null",
               "instance");
    EXPECT_ONE(esmio_inq_settings(nullptr, text, sizeof text), ESMIO_EBADID, "inq_settings null",
               "instance");
    EXPECT_ONE(esmio_finalize(nullptr), ESMIO_EBADID, "finalize(NULL)", "instance");
    EXPECT_ONE(esmio_finalize(&io), ESMIO_EBADID, "finalize(&null)", "instance");
    EXPECT_ONE(esmio_def_dim(nullptr, "n", 3, &id), ESMIO_EBADID, "def_dim null file", "file");
    EXPECT_ONE(esmio_def_var(nullptr, "v", ESMIO_FLOAT, 0, nullptr, &id), ESMIO_EBADID,
               "def_var null file", "file");
    EXPECT_ONE(esmio_put_att(nullptr, ESMIO_GLOBAL, "a", ESMIO_CHAR, 1, "a"), ESMIO_EBADID,
               "put_att null file", "file");
    EXPECT_ONE(esmio_def_var_fill(nullptr, 0, &x), ESMIO_EBADID, "def_var_fill null file", "file");
    EXPECT_ONE(esmio_enddef(nullptr), ESMIO_EBADID, "enddef null file", "file");
    EXPECT_ONE(esmio_redef(nullptr), ESMIO_EBADID, "redef null file", "file");
    EXPECT_ONE(esmio_sync(nullptr), ESMIO_EBADID, "sync null file", "file");
    EXPECT_ONE(esmio_inq_varid(nullptr, "v", &id), ESMIO_EBADID, "inq_varid null file", "file");
    EXPECT_ONE(esmio_inq_dimlen(nullptr, 0, &len), ESMIO_EBADID, "inq_dimlen null file", "file");
    EXPECT_ONE(esmio_inq_nrecords(nullptr, &len), ESMIO_EBADID, "inq_nrecords null file", "file");
    EXPECT_ONE(esmio_put_var(nullptr, 0, ESMIO_DOUBLE, &x, 1), ESMIO_EBADID, "put_var null file",
               "file");
    EXPECT_ONE(esmio_get_var(nullptr, 0, ESMIO_DOUBLE, &x, 1), ESMIO_EBADID, "get_var null file",
               "file");
    EXPECT_ONE(esmio_write_darray(nullptr, 0, 0, d, ESMIO_DOUBLE, &x, 1), ESMIO_EBADID,
               "write_darray null file", "file");
    EXPECT_ONE(esmio_read_darray(nullptr, 0, 0, d, ESMIO_DOUBLE, &x, 1), ESMIO_EBADID,
               "read_darray null file", "file");
    EXPECT_ONE(esmio_close(nullptr), ESMIO_EBADID, "close(NULL)", "file");
    EXPECT_ONE(esmio_close(&f), ESMIO_EBADID, "close(&null)", "file");
    EXPECT_ONE(esmio_decomp_free(nullptr), ESMIO_EBADID, "decomp_free(NULL)", "decomposition");
    EXPECT_ONE(esmio_decomp_free(&d), ESMIO_EBADID, "decomp_free(&null)", "decomposition");
    EXPECT_ONE(esmio_decomp_inq(nullptr, &id, nullptr, &len), ESMIO_EBADID, "decomp_inq null",
               "decomposition");
    EXPECT_ONE(esmio_decomp_save(nullptr, "x.map", "esmio"), ESMIO_EBADID, "decomp_save null",
               "decomposition");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// esmio_finalize refuses while a file is open or a decomposition is not freed, on every rank,
// and succeeds once they are gone.
void test_finalize_with_open_file() {
  esmio_t io = nullptr;
  OK(esmio_init(MPI_COMM_WORLD, "", &io), "esmio_init");
  const std::string p = path_of("finalize.nc");
  esmio_file_t f = nullptr;
  OK(esmio_create(io, p.c_str(), "", &f), "create " + p);
  esmio_decomp_t d = make_decomp(io, my_offsets(), __LINE__);
  int code = esmio_finalize(&io);
  EXPECT_ALL(code, ESMIO_EINVAL, "finalize with a file open", "still open");
  CHECK(io != nullptr, "a refused finalize cleared the handle");
  if (io == nullptr) return;
  int dim = -1, var = -1;
  OK(esmio_def_dim(f, "n", 3, &dim), "def_dim after a refused finalize");
  OK(esmio_def_var(f, "v", ESMIO_INT, 1, &dim, &var), "def_var");
  OK(esmio_enddef(f), "enddef");
  const int vals[3] = {1, 2, 3};
  OK(esmio_put_var(f, var, ESMIO_INT, vals, 3), "put_var");
  OK(esmio_close(&f), "close");
  code = esmio_finalize(&io);
  EXPECT_ALL(code, ESMIO_EINVAL, "finalize with a decomposition not freed", "not freed");
  CHECK(io != nullptr, "a refused finalize cleared the handle");
  if (io == nullptr) return;
  OK(esmio_decomp_free(&d), "decomp_free");
  OK(esmio_finalize(&io), "finalize after closing");
  CHECK(io == nullptr, "finalize left the handle");
}

// ---- the instance still works ------------------------------------------------------------

void test_still_works(esmio_t io, const std::string &backend, const std::string &label) {
  const std::string p = path_of("final_" + label + ".nc");
  const std::vector<int64_t> offsets = my_offsets();
  const int64_t n = static_cast<int64_t>(offsets.size());
  esmio_decomp_t d = make_decomp(io, offsets, __LINE__);
  esmio_file_t f = nullptr;
  OK(esmio_create(io, p.c_str(), ("backend=" + backend).c_str(), &f), "create " + p);
  int dt = -1, dy = -1, dx = -1, v = -1;
  OK(esmio_def_dim(f, "time", ESMIO_UNLIMITED, &dt), "def_dim");
  OK(esmio_def_dim(f, "y", NY, &dy), "def_dim");
  OK(esmio_def_dim(f, "x", NX, &dx), "def_dim");
  const int tyx[3] = {dt, dy, dx};
  OK(esmio_def_var(f, "ok", ESMIO_DOUBLE, 3, tyx, &v), "def_var");
  OK(esmio_enddef(f), "enddef");
  for (int64_t r = 0; r < 2; ++r) {
    std::vector<double> w = values_of(offsets, r);
    OK(esmio_write_darray(f, v, r, d, ESMIO_DOUBLE, buf_or_null(w), n), label + " final write");
  }
  OK(esmio_close(&f), "close");
  OK(esmio_open(io, p.c_str(), ESMIO_NOWRITE, ("backend=" + backend).c_str(), &f), "open " + p);
  for (int64_t r = 0; r < 2; ++r) {
    std::vector<double> back(offsets.size(), -1.0);
    OK(esmio_read_darray(f, v, r, d, ESMIO_DOUBLE, buf_or_null(back), n), label + " final read");
    CHECK(back == values_of(offsets, r), label + ": final read back differs");
  }
  OK(esmio_close(&f), "close");
  OK(esmio_decomp_free(&d), "decomp_free");
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (const char *dir = std::getenv("ESMIO_TEST_OUT")) out_dir = dir;
  // The test's own ESMIO_* settings only: clear whatever the caller's environment holds.
  for (const char *name : {"ESMIO_LAYOUT", "ESMIO_NUM_IOTASKS", "ESMIO_FORMAT", "ESMIO_BACKEND",
                           "ESMIO_CLOBBER", "ESMIO_IOTASK_STRIDE", "ESMIO_IOTASK_OFFSET"})
    unsetenv(name);

  test_init_settings();

  esmio_t box = nullptr, subset = nullptr, last = nullptr;
  OK(esmio_init(MPI_COMM_WORLD, "", &box), "esmio_init box");
  const std::string subset_settings =
      "layout=subset,num_iotasks=" + std::to_string(nranks >= 2 ? 2 : 1);
  OK(esmio_init(MPI_COMM_WORLD, subset_settings.c_str(), &subset), "esmio_init subset");
  // One I/O task, on the last rank (the one that owns nothing from 3 ranks up).
  const std::string last_settings = "num_iotasks=1,iotask_offset=" + std::to_string(nranks - 1);
  OK(esmio_init(MPI_COMM_WORLD, last_settings.c_str(), &last), "esmio_init last");

  test_create_settings(box);
  for (const char *backend : {"pnetcdf", "serial"}) test_file_system(box, backend);
  test_decompositions(box, "box");
  test_decompositions(subset, "subset");
  test_data_phase(box, subset, "pnetcdf", "box_pnetcdf");
  test_data_phase(subset, box, "pnetcdf", "subset_pnetcdf");
  test_data_phase(last, box, "pnetcdf", "last_pnetcdf");
  test_data_phase(box, subset, "serial", "box_serial");
  for (const char *backend : {"pnetcdf", "serial"}) {
    test_definitions(box, backend);
    test_foreign_file_types(box, backend);
  }
  test_null_handles();
  test_finalize_with_open_file();

  test_still_works(box, "pnetcdf", "box");
  test_still_works(subset, "pnetcdf", "subset");
  test_still_works(last, "pnetcdf", "last");
  test_still_works(box, "serial", "serial");
  OK(esmio_finalize(&box), "finalize box");
  OK(esmio_finalize(&subset), "finalize subset");
  OK(esmio_finalize(&last), "finalize last");

  MPI_Barrier(MPI_COMM_WORLD);
  for (const std::string &p : created) std::remove(p.c_str());

  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("test_errors on %d rank(s): %s (%d failed check(s) over all ranks)\n", nranks,
                total == 0 ? "PASS" : "FAIL", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
