// Per-variable netCDF-4 storage (esmio_def_var_chunking / _compress / _quantize and the chunking,
// compression and quantize settings), checked from the file itself: rank 0 reopens what esmio
// wrote with serial netCDF-C and looks at the filters, chunk shapes, quantisation attributes
// and every value. Three parts: lossless codecs (with the precedence of settings entries, API
// calls and the settings' default), quantisation (error bounds and independence of the I/O
// layout), and the errors, each collective and naming the file and the variable.
#include <hdf5.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "decomp/box_partition.hpp"
#include "esmio.h"
#include "mpi_check.hpp"
#include "quantize/bit_information.hpp"

using namespace mpi_check;

namespace {

// 200 x 1000: big enough that the box layout gives each of 3 I/O tasks a part of the record
// (it keeps units of at least 64K elements, so a 40 x 90 record would go to one task).
constexpr int64_t kNy = 200, kNx = 1000, kCells = kNy * kNx;
constexpr unsigned kDeflate = 1, kShuffle = 2, kZstd = 32015;  // HDF5 filter ids
const double kPi = std::acos(-1.0);

// This rank's block of the record: rank 0 the upper half of the rows, the other ranks
// the lower half cut into column blocks (a 2-D decomposition covering every cell).
struct Block {
  int64_t start[2] = {0, 0}, count[2] = {kNy, kNx};
  int64_t size() const { return count[0] * count[1]; }
  int64_t global(int64_t i) const {  // local index (C order) -> global linear offset
    return (start[0] + i / count[1]) * kNx + start[1] + i % count[1];
  }
};

Block my_block() {
  Block b;
  if (nranks == 1) return b;
  if (rank == 0) {
    b.count[0] = kNy / 2;
  } else {
    const int64_t parts = nranks - 1, r = rank - 1;
    b.start[0] = kNy / 2;
    b.count[0] = kNy - kNy / 2;
    b.start[1] = r * kNx / parts;
    b.count[1] = (r + 1) * kNx / parts - b.start[1];
  }
  return b;
}

// Noise in [-0.5, 0.5) from the global offset alone (splitmix64), the same on every rank.
double noise(int64_t g, int64_t salt) {
  uint64_t z = static_cast<uint64_t>(g) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(salt);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53 - 0.5;
}

// A smooth field (20 +- 300, so crossing zero and many binades and decades) plus small noise:
// full-precision values.
double field(int64_t g, int64_t t, int salt) {
  const double y = static_cast<double>(g / kNx), x = static_cast<double>(g % kNx);
  return 20.0 +
         300.0 * std::sin(2 * kPi * x / kNx + 0.3 * static_cast<double>(t) + salt) *
             std::cos(kPi * y / kNy) +
         0.4 * noise(g, 131 * t + salt);
}

// The same rounded to 1/32: at most 14 significant bits of the float's 24, so a lossless codec has
// trailing zero bits (and a smooth field) to squeeze.
double coarse(int64_t g, int64_t t, int salt) { return std::round(field(g, t, salt) * 32) / 32; }

// Integer-valued, for the int variable (no rounding question in the conversion).
double whole(int64_t g, int64_t t) { return std::round(field(g, t, 9) * 10); }

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

template <typename F>
void write_record(esmio_file_t f, int var, int64_t t, esmio_decomp_t d, const Block &b, F value) {
  std::vector<double> buf(static_cast<std::size_t>(b.size()));
  for (int64_t i = 0; i < b.size(); ++i) buf[i] = value(b.global(i), t);
  ok(esmio_write_darray(f, var, t, d, ESMIO_DOUBLE, buf.data(), b.size()), "write_darray");
}

// Defines dims t (unlimited), y, x in define mode; dims[3].
void def_dims(esmio_file_t f, int *dims) {
  ok(esmio_def_dim(f, "t", ESMIO_UNLIMITED, &dims[0]), "def_dim t");
  ok(esmio_def_dim(f, "y", kNy, &dims[1]), "def_dim y");
  ok(esmio_def_dim(f, "x", kNx, &dims[2]), "def_dim x");
}

int64_t file_size(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

// ---- serial netCDF-C reading, rank 0 ----------------------------------------------------

int nc_check(int err, const std::string &what) {
  check(err == NC_NOERR, what + ": " + nc_strerror(err));
  return err;
}

int varid_of(int ncid, const char *name) {
  int v = -1;
  nc_check(nc_inq_varid(ncid, name, &v), std::string("nc_inq_varid ") + name);
  return v;
}

std::vector<unsigned> filter_ids(int ncid, const char *name) {
  const int v = varid_of(ncid, name);
  size_t n = 0;
  if (nc_check(nc_inq_var_filter_ids(ncid, v, &n, nullptr), "filter ids") != NC_NOERR) return {};
  std::vector<unsigned> ids(n);
  if (n > 0) nc_check(nc_inq_var_filter_ids(ncid, v, &n, ids.data()), "filter ids");
  return ids;
}

std::string ids_text(const std::vector<unsigned> &ids) {
  std::string s = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return s + "}";
}

void check_filters(int ncid, const char *name, const std::vector<unsigned> &want,
                   const std::string &file) {
  const std::vector<unsigned> got = filter_ids(ncid, name);
  check(got == want, file + " " + name + ": filters " + ids_text(got) + ", expected " +
                         ids_text(want) + " (pipeline order)");
}

// The level given to filter 32015 (its one parameter).
unsigned zstd_level(int ncid, const char *name) {
  size_t n = 0;
  unsigned level = 0;
  const int v = varid_of(ncid, name);
  if (nc_check(nc_inq_var_filter_info(ncid, v, kZstd, &n, nullptr), "zstd info") != NC_NOERR ||
      n != 1)
    return 0;
  nc_check(nc_inq_var_filter_info(ncid, v, kZstd, &n, &level), "zstd info");
  return level;
}

std::vector<size_t> chunks_of(int ncid, const char *name) {
  int storage = -1;
  std::vector<size_t> c(3, 0);
  nc_check(nc_inq_var_chunking(ncid, varid_of(ncid, name), &storage, c.data()), "chunking");
  check(storage == NC_CHUNKED, std::string(name) + " is chunked");
  return c;
}

std::vector<float> read_floats(int ncid, const char *name, int64_t records) {
  std::vector<float> v(static_cast<std::size_t>(records * kCells));
  nc_check(nc_get_var_float(ncid, varid_of(ncid, name), v.data()), std::string("read ") + name);
  return v;
}

// Values that are not (float)want(g, t), bit for bit.
template <typename F>
int64_t wrong_floats(const std::vector<float> &got, int64_t records, F want) {
  int64_t bad = 0;
  for (int64_t t = 0; t < records; ++t)
    for (int64_t g = 0; g < kCells; ++g)
      if (bits(got[t * kCells + g]) != bits(static_cast<float>(want(g, t)))) ++bad;
  return bad;
}

// ---- part 1: lossless ----------------------------------------------------------------------

constexpr int64_t kRecords = 3;
const char *const kFloatVars[] = {"zs", "df", "dflt", "named"};

// Writes zs, df, dflt, named (floats, coarse values with salts 0..3) and iv (int). With
// storage: zs zstd:3:shuffle in 1x50x250 chunks (which cut across the I/O tasks' row ranges,
// so two tasks write into one chunk), df deflate:4, dflt left to the settings'
// default, named given deflate:5 by the API but "none" by its settings entry.
void write_lossless(esmio_t io, esmio_decomp_t d, const Block &b, const std::string &path,
                    const char *settings, bool storage) {
  esmio_file_t f;
  int dims[3], vars[5];
  ok(esmio_create(io, path.c_str(), settings, &f), "create lossless");
  def_dims(f, dims);
  for (int k = 0; k < 4; ++k)
    ok(esmio_def_var(f, kFloatVars[k], ESMIO_FLOAT, 3, dims, &vars[k]), "def_var");
  ok(esmio_def_var(f, "iv", ESMIO_INT, 3, dims, &vars[4]), "def_var iv");
  if (storage) {
    const int64_t chunks[3] = {1, 50, 250};
    ok(esmio_def_var_compress(f, vars[0], "zstd:3:shuffle"), "compress zs");
    ok(esmio_def_var_chunking(f, vars[0], 3, chunks), "chunking zs");
    ok(esmio_def_var_compress(f, vars[1], "deflate:4"), "compress df");
    ok(esmio_def_var_compress(f, vars[3], "deflate:5"), "compress named (overridden)");
  }
  ok(esmio_enddef(f), "enddef lossless");
  for (int64_t t = 0; t < kRecords; ++t) {
    for (int k = 0; k < 4; ++k)
      write_record(f, vars[k], t, d, b, [k](int64_t g, int64_t r) { return coarse(g, r, k); });
    write_record(f, vars[4], t, d, b, whole);
  }
  ok(esmio_close(&f), "close lossless");
}

void check_lossless_file(const std::string &path, bool storage, int ntasks,
                         std::vector<std::vector<float>> *floats, std::vector<int> *ints) {
  int ncid = -1;
  if (nc_check(nc_open(path.c_str(), NC_NOWRITE, &ncid), "nc_open " + path) != NC_NOERR) return;
  int tdim = -1;
  size_t nrec = 0;
  nc_check(nc_inq_dimid(ncid, "t", &tdim), "t");
  nc_check(nc_inq_dimlen(ncid, tdim, &nrec), "t length");
  check(nrec == static_cast<size_t>(kRecords), path + ": " + std::to_string(nrec) + " records");
  if (storage) {
    check_filters(ncid, "zs", {kShuffle, kZstd}, path);
    check_filters(ncid, "df", {kDeflate}, path);
    check_filters(ncid, "dflt", {kZstd}, path);
    check_filters(ncid, "named", {}, path);  // its settings entry "none" beats the API's deflate
    check_filters(ncid, "iv", {kZstd}, path);
    check(zstd_level(ncid, "zs") == 3, "zs: zstd level 3");
    check(zstd_level(ncid, "dflt") == 1, "dflt: zstd level 1 (settings default)");
    int shuffle = -1, deflate = -1, level = -1;
    nc_check(nc_inq_var_deflate(ncid, varid_of(ncid, "df"), &shuffle, &deflate, &level), "df");
    check(shuffle == 0 && deflate == 1 && level == 4,
          "df: deflate level " + std::to_string(level) + ", shuffle " + std::to_string(shuffle));
    check(chunks_of(ncid, "zs") == std::vector<size_t>({1, 50, 250}), "zs: chunks 1x50x250");
  } else {
    for (const char *name : {"zs", "df", "dflt", "named", "iv"})
      check_filters(ncid, name, {}, path);
  }
  // Without a chunk shape: esmio's default, one record by one unit of the box partition.
  const std::vector<int64_t> unit =
      esmio::decomp::BoxPartition({kNy, kNx}, ntasks)
          .unit_chunk(esmio::decomp::BoxPartition::kTargetUnitElements);
  const std::vector<size_t> want_default = {1, static_cast<size_t>(unit.at(0)),
                                            static_cast<size_t>(unit.at(1))};
  for (const char *name : {"df", "dflt", "named", "iv"})
    check(chunks_of(ncid, name) == want_default, path + " " + name + ": default chunk shape");
  if (!storage) check(chunks_of(ncid, "zs") == want_default, path + " zs: default chunk shape");

  floats->clear();
  for (int k = 0; k < 4; ++k) {
    floats->push_back(read_floats(ncid, kFloatVars[k], kRecords));
    const int64_t bad = wrong_floats(floats->back(), kRecords,
                                     [k](int64_t g, int64_t t) { return coarse(g, t, k); });
    check(bad == 0, path + " " + kFloatVars[k] + ": " + std::to_string(bad) + " wrong values");
  }
  ints->assign(static_cast<std::size_t>(kRecords * kCells), 0);
  nc_check(nc_get_var_int(ncid, varid_of(ncid, "iv"), ints->data()), "read iv");
  int64_t bad = 0;
  for (int64_t t = 0; t < kRecords; ++t)
    for (int64_t g = 0; g < kCells; ++g)
      if ((*ints)[t * kCells + g] != static_cast<int>(whole(g, t))) ++bad;
  check(bad == 0, path + " iv: " + std::to_string(bad) + " wrong values");
  nc_check(nc_close(ncid), "nc_close");
}

void lossless(esmio_t io, esmio_decomp_t d, const Block &b, const std::string &dir) {
  const std::string packed = dir + "/storage_lossless.nc", plain = dir + "/storage_plain.nc";
  write_lossless(io, d, b, packed, "backend=netcdf4,compression=default:zstd:1;named:none", true);
  write_lossless(io, d, b, plain, "backend=netcdf4", false);
  {
    // A process that never wrote zstd reads it: esmio_open registers the filter itself.
    H5Zunregister(32015);
    check(H5Zfilter_avail(32015) <= 0, "filter 32015 unregistered for the read test");
    esmio_file_t f;
    ok(esmio_open(io, packed.c_str(), ESMIO_NOWRITE, "", &f), "open the zstd file");
    int varid = -1;
    ok(esmio_inq_varid(f, kFloatVars[0], &varid), "inq_varid zs");
    std::vector<double> got(static_cast<std::size_t>(b.size()));
    ok(esmio_read_darray(f, varid, 1, d, ESMIO_DOUBLE, got.data(), b.size()), "read zs");
    int64_t wrong = 0;
    for (int64_t i = 0; i < b.size(); ++i)
      if (got[i] != static_cast<double>(static_cast<float>(coarse(b.global(i), 1, 0)))) ++wrong;
    check(wrong == 0, std::to_string(wrong) + " values of zs read back wrong after re-registering");
    ok(esmio_close(&f), "close the zstd file");
  }
  if (rank == 0) {
    int ntasks = 0, mine = 0;
    ok(esmio_inq_iotasks(io, &ntasks, &mine), "inq_iotasks");
    std::vector<std::vector<float>> pf, uf;
    std::vector<int> pi, ui;
    check_lossless_file(packed, true, ntasks, &pf, &pi);
    check_lossless_file(plain, false, ntasks, &uf, &ui);
    check(pf == uf && pi == ui, "the compressed and the plain file hold the same values");
    const int64_t ps = file_size(packed), us = file_size(plain);
    // named is stored plain in both; the four others shrink to about half.
    check(ps > 0 && us > 0 && 4 * ps < 3 * us, "the compressed file (" + std::to_string(ps) +
                                                   " bytes) is under 3/4 of the plain one (" +
                                                   std::to_string(us) + " bytes)");
    std::remove(packed.c_str());
    std::remove(plain.c_str());
  }
}

// ---- part 2: quantisation ------------------------------------------------------------------

constexpr int64_t kQuantRecords = 2;

// br: bitround:7 and zstd:3:shuffle through the API; gbr: granularbr:3 and zstd:3 through the
// settings (its own quantize entry, the compression default).
void write_quantized(esmio_t io, const std::string &path) {
  esmio_decomp_t d;
  const Block b = my_block();
  const int64_t shape[2] = {kNy, kNx};
  ok(esmio_decomp_create_block(io, 2, shape, b.start, b.count, nullptr, &d), "decomp quant");
  esmio_file_t f;
  int dims[3], br, gbr, inf;
  ok(esmio_create(io, path.c_str(),
                  "backend=netcdf4,quantize=gbr:granularbr:3,compression=default:zstd:3", &f),
     "create quant");
  def_dims(f, dims);
  ok(esmio_def_var(f, "br", ESMIO_FLOAT, 3, dims, &br), "def_var br");
  ok(esmio_def_var(f, "gbr", ESMIO_FLOAT, 3, dims, &gbr), "def_var gbr");
  ok(esmio_def_var_quantize(f, br, "bitround:7"), "quantize br");
  ok(esmio_def_var_compress(f, br, "zstd:3:shuffle"), "compress br");
  ok(esmio_def_var(f, "inf", ESMIO_FLOAT, 3, dims, &inf), "def_var inf");
  ok(esmio_def_var_quantize(f, inf, "information:0.99"), "quantize inf");
  ok(esmio_enddef(f), "enddef quant");
  for (int64_t t = 0; t < kQuantRecords; ++t) {
    write_record(f, br, t, d, b, [](int64_t g, int64_t r) { return field(g, r, 5); });
    write_record(f, gbr, t, d, b, [](int64_t g, int64_t r) { return field(g, r, 6); });
    write_record(f, inf, t, d, b, [](int64_t g, int64_t r) { return field(g, r, 7); });
  }
  ok(esmio_close(&f), "close quant");
  ok(esmio_decomp_free(&d), "free quant decomp");
}

int int_att(int ncid, int v, const char *name) {
  int value = -1;
  nc_check(nc_get_att_int(ncid, v, name, &value), std::string("attribute ") + name);
  return value;
}

// Checks one quantised file; its br and gbr values in *br, *gbr.
// The information quantisation of "inf": keepbits from the first record, computed here on one
// rank over the whole record (the parallel count must give the same), every value BitRounded
// to it (ties to even: |x - q| <= 2^(e - keepbits - 1)). Returns the values and *keepbits.
std::vector<float> check_information(int ncid, const std::string &path, int *keepbits) {
  const int v = varid_of(ncid, "inf");
  *keepbits = int_att(ncid, v, "esmio_keepbits");
  double level = 0;
  nc_check(nc_get_att_double(ncid, v, "esmio_information_level", &level), "level attribute");
  check(level == 0.99, path + " inf: esmio_information_level " + std::to_string(level));
  std::vector<float> first(static_cast<std::size_t>(kCells));
  for (int64_t g = 0; g < kCells; ++g) first[g] = static_cast<float>(field(g, 0, 7));
  esmio::quantize::BitPairCounts counts;
  const float fill = NC_FILL_FLOAT;
  check(esmio::quantize::count_neighbour_pairs(ESMIO_FLOAT, first.data(), 0, kCells, kNx, nullptr,
                                               &fill, &counts)
            .is_ok(),
        "serial count");
  const std::vector<double> per_bit = esmio::quantize::bit_information(counts);
  const esmio::quantize::KeepbitsChoice serial =
      esmio::quantize::choose_keepbits(ESMIO_FLOAT, per_bit, 0.99);
  check(*keepbits == serial.keepbits, path + " inf: esmio_keepbits " + std::to_string(*keepbits) +
                                          ", one rank over the whole record gives " +
                                          std::to_string(serial.keepbits));
  // How it was chosen is in the file too: the reference's value, the reason, the information.
  check(int_att(ncid, v, "esmio_keepbits_reference") == serial.reference,
        path + " inf: esmio_keepbits_reference");
  char reason[64] = {0};
  nc_check(nc_get_att_text(ncid, v, "esmio_keepbits_reason", reason), "reason attribute");
  check(std::string(reason) == esmio::quantize::keepbits_reason_name(serial.reason),
        path + " inf: esmio_keepbits_reason '" + reason + "'");
  std::size_t nbits = 0;
  nc_check(nc_inq_attlen(ncid, v, "esmio_information_per_bit", &nbits), "per-bit attribute");
  std::vector<double> stored(nbits);
  nc_check(nc_get_att_double(ncid, v, "esmio_information_per_bit", stored.data()),
           "per-bit attribute");
  std::string diff;
  for (std::size_t i = 0; i < stored.size() && i < per_bit.size(); ++i)
    if (stored[i] != per_bit[i])
      diff += " bit " + std::to_string(i) + ": " + std::to_string(stored[i]) + " vs " +
              std::to_string(per_bit[i]);
  check(stored.size() == per_bit.size() && diff.empty(),
        path + " inf: esmio_information_per_bit differs from one rank's:" + diff);
  check(*keepbits >= 0 && *keepbits < 23,
        path + " inf: keepbits " + std::to_string(*keepbits) + " drops no bit of noisy data");
  const std::vector<float> got = read_floats(ncid, "inf", kQuantRecords);
  int64_t out_of_bound = 0;
  for (int64_t t = 0; t < kQuantRecords; ++t)
    for (int64_t g = 0; g < kCells; ++g) {
      const float x = static_cast<float>(field(g, t, 7)), q = got[t * kCells + g];
      const int e = x == 0 ? -149 : static_cast<int>(std::floor(std::log2(std::fabs(x))));
      if (std::fabs(static_cast<double>(x) - q) > std::ldexp(1.0, e - *keepbits - 1))
        ++out_of_bound;
    }
  check(out_of_bound == 0, path + " inf: " + std::to_string(out_of_bound) +
                               " values off by more than half a unit of the last kept bit");
  return got;
}

void check_quantized_file(const std::string &path, std::vector<float> *br, std::vector<float> *gbr,
                          std::vector<float> *inf, int *keepbits) {
  int ncid = -1;
  if (nc_check(nc_open(path.c_str(), NC_NOWRITE, &ncid), "nc_open " + path) != NC_NOERR) return;
  const int vb = varid_of(ncid, "br"), vg = varid_of(ncid, "gbr");
  check_filters(ncid, "br", {kShuffle, kZstd}, path);  // quantisation is no HDF5 filter
  check_filters(ncid, "gbr", {kZstd}, path);
  int mode = -1, nsd = -1;
  nc_check(nc_inq_var_quantize(ncid, vb, &mode, &nsd), "inq_var_quantize br");
  check(mode == NC_QUANTIZE_BITROUND && nsd == 7,
        path + " br: quantize mode " + std::to_string(mode) + ", " + std::to_string(nsd) + " bits");
  nc_check(nc_inq_var_quantize(ncid, vg, &mode, &nsd), "inq_var_quantize gbr");
  check(mode == NC_QUANTIZE_GRANULARBR && nsd == 3, path + " gbr: quantize mode " +
                                                        std::to_string(mode) + ", " +
                                                        std::to_string(nsd) + " digits");
  check(int_att(ncid, vb, "_QuantizeBitRoundNumberOfSignificantBits") == 7,
        path + " br: _QuantizeBitRoundNumberOfSignificantBits = 7");
  check(int_att(ncid, vg, "_QuantizeGranularBitRoundNumberOfSignificantDigits") == 3,
        path + " gbr: _QuantizeGranularBitRoundNumberOfSignificantDigits = 3");

  // BitRound with NSB = 7 (netCDF-C 4.9, nc4_convert_type) keeps 7 explicit mantissa bits of
  // the float x: it adds 2^15 to x's bits and clears the low 16, i.e. rounds to the nearest
  // multiple of 2^(e-7), e = floor(log2|x|), ties away from zero. So |x - q| <= 2^(e-8), half a
  // unit in the 7th kept bit, and q is exactly that rounding.
  *br = read_floats(ncid, "br", kQuantRecords);
  int64_t out_of_bound = 0, not_rounding = 0, changed = 0;
  for (int64_t t = 0; t < kQuantRecords; ++t)
    for (int64_t g = 0; g < kCells; ++g) {
      const float x = static_cast<float>(field(g, t, 5)), q = (*br)[t * kCells + g];
      const int e = x == 0 ? -149 : static_cast<int>(std::floor(std::log2(std::fabs(x))));
      if (std::fabs(static_cast<double>(x) - q) > std::ldexp(1.0, e - 8)) ++out_of_bound;
      if (bits(q) != ((bits(x) + 0x8000u) & 0xFFFF0000u)) ++not_rounding;
      if (q != x) ++changed;
    }
  check(out_of_bound == 0, path + " br: " + std::to_string(out_of_bound) +
                               " values off by more than 2^(floor(log2|x|)-8)");
  check(not_rounding == 0, path + " br: " + std::to_string(not_rounding) +
                               " values are not x rounded to 7 bits, ties away from zero");
  check(changed > kCells,
        path + " br: quantisation changed only " + std::to_string(changed) + " values");

  // GranularBR with NSD = 3 (netCDF-C 4.9): for x = m 2^E (0.5 <= |m| < 1) with d =
  // floor(log10|x|) + 1 digits before the point, qnt = floor(log2(10) (d - 3)), it keeps
  // E - qnt - 1 explicit bits, so the last kept bit is 2^qnt <= 10^(d-3) and
  // |x - q| <= 2^(qnt-1) <= 0.5 10^(d-3): half a unit in the 3rd significant digit. netCDF-C
  // computes d in floating point (E log10(2) + log10|m|), so just below a power of ten it may
  // count one digit more than floor(log10|x|) + 1: d is taken at |x| (1 + 2^-20). Zero stays.
  *gbr = read_floats(ncid, "gbr", kQuantRecords);
  out_of_bound = changed = 0;
  for (int64_t t = 0; t < kQuantRecords; ++t)
    for (int64_t g = 0; g < kCells; ++g) {
      const float x = static_cast<float>(field(g, t, 6)), q = (*gbr)[t * kCells + g];
      if (x == 0) {
        if (q != 0) ++out_of_bound;
        continue;
      }
      const int d = static_cast<int>(std::floor(std::log10(std::fabs(x) * (1 + 0x1.0p-20)))) + 1;
      if (std::fabs(static_cast<double>(x) - q) > 0.5 * std::pow(10.0, d - 3)) ++out_of_bound;
      if (q != x) ++changed;
    }
  check(out_of_bound == 0, path + " gbr: " + std::to_string(out_of_bound) +
                               " values off by more than half a unit in the 3rd digit");
  check(changed > kCells,
        path + " gbr: quantisation changed only " + std::to_string(changed) + " values");
  *inf = check_information(ncid, path, keepbits);
  nc_check(nc_close(ncid), "nc_close");
}

void quantisation(const std::string &dir) {
  // Each instance's I/O tasks split the records differently; the files must not differ.
  const std::string one = dir + "/storage_quant_io1.nc", three = dir + "/storage_quant_io3.nc";
  for (int tasks : {1, 3}) {
    esmio_t io;
    const std::string settings = "num_iotasks=" + std::to_string(tasks);
    ok(esmio_init(MPI_COMM_WORLD, settings.c_str(), &io), "init quant");
    write_quantized(io, tasks == 1 ? one : three);
    // With 3 I/O tasks each writes a part of the records (else the comparison shows nothing).
    esmio_counter written{};
    ok(esmio_trace_counter(io, "backend_write", &written), "trace counter");
    int wrote = written.bytes > 0 ? 1 : 0, writers = 0;
    MPI_Allreduce(&wrote, &writers, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(writers == std::min(tasks, nranks),
          settings + ": " + std::to_string(writers) + " ranks handed data to netCDF");
    ok(esmio_finalize(&io), "finalize quant");
  }
  if (rank == 0) {
    std::vector<float> br1, gbr1, br3, gbr3, inf1, inf3;
    int keep1 = -1, keep3 = -2;
    check_quantized_file(one, &br1, &gbr1, &inf1, &keep1);
    check_quantized_file(three, &br3, &gbr3, &inf3, &keep3);
    check(keep1 == keep3, "inf: keepbits with 1 and 3 I/O tasks: " + std::to_string(keep1) + ", " +
                              std::to_string(keep3));
    check(inf1.size() == inf3.size() &&
              std::memcmp(inf1.data(), inf3.data(), inf1.size() * sizeof(float)) == 0,
          "inf: 1 and 3 I/O tasks store the same bits");
    const bool same_br = br1.size() == br3.size() &&
                         std::memcmp(br1.data(), br3.data(), br1.size() * sizeof(float)) == 0;
    const bool same_gbr = gbr1.size() == gbr3.size() &&
                          std::memcmp(gbr1.data(), gbr3.data(), gbr1.size() * sizeof(float)) == 0;
    check(same_br, "br: 1 and 3 I/O tasks store the same bits");
    check(same_gbr, "gbr: 1 and 3 I/O tasks store the same bits");
    std::remove(one.c_str());
    std::remove(three.c_str());
  }
}

// ---- part 3: errors ------------------------------------------------------------------------

// A call that must fail with want on every rank, its message naming the file and (where
// given) the variable.
void expect_error(int rc, int want, const std::string &what, const std::string &path,
                  const char *var) {
  const std::string message = esmio_last_error();
  int lo = 0, hi = 0;
  MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  check(rc == want && lo == hi, what + ": expected " + esmio_strerror(want) + " (" +
                                    std::to_string(want) + ") on every rank, got " +
                                    std::to_string(rc) + " (ranks: " + std::to_string(lo) + " to " +
                                    std::to_string(hi) + ")");
  check(message.find(path) != std::string::npos, what + ": message names the file: " + message);
  if (var != nullptr)
    check(message.find(std::string("'") + var + "'") != std::string::npos,
          what + ": message names variable '" + var + "': " + message);
}

// A netCDF-4 file in define mode with f(t,y,x) float, i(t,y,x) int and g(y,x) float.
struct ErrorFile {
  esmio_file_t f = nullptr;
  int dims[3] = {0, 0, 0}, fv = -1, iv = -1, gv = -1;
  ErrorFile(esmio_t io, const std::string &path, const char *settings) {
    ok(esmio_create(io, path.c_str(), settings, &f), "create error file");
    def_dims(f, dims);
    ok(esmio_def_var(f, "f", ESMIO_FLOAT, 3, dims, &fv), "def_var f");
    ok(esmio_def_var(f, "i", ESMIO_INT, 3, dims, &iv), "def_var i");
    ok(esmio_def_var(f, "g", ESMIO_FLOAT, 2, dims + 1, &gv), "def_var g");
  }
};

// enddef must fail with want; the file stays in define mode (a storage call still works) and
// closes.
void expect_enddef_error(ErrorFile &e, int want, const std::string &what, const std::string &path,
                         const char *var) {
  expect_error(esmio_enddef(e.f), want, what + " (esmio_enddef)", path, var);
  ok(esmio_def_var_compress(e.f, e.gv, "none"), "define mode after the failed enddef");
  ok(esmio_close(&e.f), "close after the failed enddef");
}

void errors(esmio_t io, const std::string &dir) {
  const std::string path = dir + "/storage_errors.nc";
  const char *nc4 = "backend=netcdf4";
  {
    // Refused by the calls themselves; then the file is still good.
    ErrorFile e(io, path, nc4);
    const int64_t two[2] = {20, 45};
    expect_error(esmio_def_var_compress(e.f, e.fv, "lz4"), ESMIO_EBADNAME, "codec lz4", path, "f");
    expect_error(esmio_def_var_compress(e.f, e.fv, "zstd:99"), ESMIO_ESETTING, "zstd:99", path,
                 "f");
    expect_error(esmio_def_var_compress(e.f, e.fv, "deflate:0"), ESMIO_ESETTING, "deflate:0", path,
                 "f");
    expect_error(esmio_def_var_quantize(e.f, e.fv, "bitgroom:3"), ESMIO_EINVAL, "bitgroom:3", path,
                 "f");
    expect_error(esmio_def_var_chunking(e.f, e.fv, 2, two), ESMIO_ESHAPE,
                 "2 chunk lengths for 3 dimensions", path, "f");
    // More digits than a float has: refused at enddef (it knows the type). The file is fixed
    // and used afterwards.
    ok(esmio_def_var_quantize(e.f, e.fv, "granularbr:9"), "quantize granularbr:9 (parsed)");
    expect_error(esmio_enddef(e.f), ESMIO_ESETTING, "granularbr:9 on a float (esmio_enddef)", path,
                 "f");
    ok(esmio_def_var_quantize(e.f, e.fv, "bitround:5"), "quantize after the failed enddef");
    ok(esmio_enddef(e.f), "enddef after the fix");
    expect_error(esmio_def_var_compress(e.f, e.fv, "zstd:3"), ESMIO_ENOTINDEFINE,
                 "compress after enddef", path, "f");
    ok(esmio_close(&e.f), "close");
  }
  {
    ErrorFile e(io, path, nc4);
    ok(esmio_def_var_quantize(e.f, e.iv, "bitround:7"), "quantize int (parsed)");
    expect_enddef_error(e, ESMIO_EBADTYPE, "quantize on an int variable", path, "i");
  }
  {
    ErrorFile e(io, path, nc4);
    const int64_t too_long[2] = {kNy + 1, kNx};
    ok(esmio_def_var_chunking(e.f, e.gv, 2, too_long), "chunking (y + 1) x x (checked at enddef)");
    expect_enddef_error(e, ESMIO_ESHAPE, "chunk longer than dimension y", path, "g");
  }
  {
    // The record dimension may have any chunk length; a fixed one may not.
    ErrorFile e(io, path, nc4);
    const int64_t long_record[3] = {4, kNy, kNx + 1};
    ok(esmio_def_var_chunking(e.f, e.fv, 3, long_record), "chunking 4 x y x (x + 1)");
    expect_enddef_error(e, ESMIO_ESHAPE, "chunk longer than dimension x", path, "f");
  }
  {
    const std::string cdf = dir + "/storage_errors_cdf5.nc";
    ErrorFile e(io, cdf, "backend=pnetcdf,format=cdf5");
    ok(esmio_def_var_compress(e.f, e.fv, "zstd:3"), "compress in a CDF-5 file (checked at enddef)");
    expect_enddef_error(e, ESMIO_EINVAL, "compression in a pnetcdf file", cdf, "f");
    if (rank == 0) std::remove(cdf.c_str());
  }
  {
    // A settings entry without NAME: is refused at enddef (the settings are text until then);
    // it belongs to no variable, so only the file is named.
    ErrorFile e(io, path, "backend=netcdf4,compression=zstd");
    expect_enddef_error(e, ESMIO_ESETTING, "compression=zstd (no NAME:)", path, nullptr);
  }
  {
    ErrorFile e(io, path, "backend=netcdf4,chunking=f:contiguous");
    expect_enddef_error(e, ESMIO_EINVAL, "contiguous record variable", path, "f");
  }
  {
    // A contiguous fixed-size variable cannot be compressed.
    ErrorFile e(io, path, "backend=netcdf4,chunking=g:contiguous,compression=g:deflate:2");
    expect_enddef_error(e, ESMIO_EINVAL, "compression of a contiguous variable", path, "g");
  }
  if (rank == 0) std::remove(path.c_str());
}

}  // namespace

int main(int argc, char **argv) {
  start(&argc, &argv);
  const std::string dir = out_dir();
  esmio_t io;
  ok(esmio_init(MPI_COMM_WORLD, "", &io), "init");
  const Block b = my_block();
  const int64_t shape[2] = {kNy, kNx};
  esmio_decomp_t d;
  ok(esmio_decomp_create_block(io, 2, shape, b.start, b.count, nullptr, &d), "decomp");

  lossless(io, d, b, dir);
  quantisation(dir);
  errors(io, dir);
  {
    // Information quantisation counts neighbours on slabs in file order: box layout only.
    esmio_t subset;
    ok(esmio_init(MPI_COMM_WORLD, "layout=subset", &subset), "init subset");
    const std::string path = dir + "/storage_subset.nc";
    ErrorFile e(subset, path, "backend=netcdf4");
    ok(esmio_def_var_quantize(e.f, e.fv, "information"), "quantize information (subset)");
    expect_enddef_error(e, ESMIO_EINVAL, "information with layout=subset", path, "f");
    ok(esmio_finalize(&subset), "finalize subset");
    if (rank == 0) std::remove(path.c_str());
  }

  ok(esmio_decomp_free(&d), "free");
  ok(esmio_finalize(&io), "finalize");
  return finish("test_storage");
}
