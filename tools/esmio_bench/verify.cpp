// Value-by-value check of a file with netCDF-C, independent of the writer that made it.
#include "verify.hpp"

#include <netcdf.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

namespace esmio_bench {

namespace {

// Which global offsets of grid g some rank writes: OR of every rank's marks, on rank 0.
std::vector<unsigned char> coverage(Context &ctx, const Grid &grid, const LocalGrid &g) {
  int64_t total = 1;
  for (int64_t n : grid.shape) total *= n;
  std::vector<unsigned char> mine(static_cast<std::size_t>(total), 0), all;
  for (int64_t off : g.offsets)
    if (off >= 0) mine[static_cast<std::size_t>(off)] = 1;
  if (ctx.rank == 0) all.resize(mine.size());
  for (int64_t done = 0; done < total;) {  // MPI counts are int: reduce in pieces
    const int n = static_cast<int>(std::min<int64_t>(total - done, INT_MAX / 2));
    MPI_Reduce(mine.data() + done, ctx.rank == 0 ? all.data() + done : nullptr, n,
               MPI_UNSIGNED_CHAR, MPI_BOR, 0, ctx.comm);
    done += n;
  }
  return all;
}

}  // namespace

Verification verify_file(Context &ctx, const std::string &path, bool check_holes,
                         double tolerance) {
  const Workload &w = *ctx.work;
  std::vector<std::vector<unsigned char>> covered;
  for (std::size_t i = 0; i < w.grids.size(); ++i)
    covered.push_back(coverage(ctx, w.grids[i], ctx.grids[i]));
  Verification result;
  long long bad = 0;
  std::string note;
  if (ctx.rank == 0) {
    int ncid = -1;
    int rc = nc_open(path.c_str(), NC_NOWRITE, &ncid);
    if (rc != NC_NOERR) {
      note = "nc_open: " + std::string(nc_strerror(rc));
      bad = -1;
    }
    std::vector<float> values;
    for (int t = 0; t < w.records && bad >= 0; ++t)
      for (std::size_t v = 0; v < w.vars.size() && bad >= 0; ++v) {
        const Grid &grid = w.grids[w.vars[v].grid];
        int varid = -1;
        rc = nc_inq_varid(ncid, w.vars[v].name.c_str(), &varid);
        std::vector<size_t> start = {static_cast<size_t>(t)}, count = {1};
        size_t total = 1;
        for (int64_t n : grid.shape) {
          start.push_back(0);
          count.push_back(static_cast<size_t>(n));
          total *= static_cast<size_t>(n);
        }
        values.resize(total);
        if (rc == NC_NOERR)
          rc = nc_get_vara_float(ncid, varid, start.data(), count.data(), values.data());
        if (rc != NC_NOERR) {
          note = w.vars[v].name + " record " + std::to_string(t) + ": " + nc_strerror(rc);
          bad = -1;
          break;
        }
        // Information quantisation (tolerance < 0): each variable's bound from the keepbits
        // esmio recorded in the file, half a unit of the last kept bit (relative, binade-wise:
        // 2^-keepbits is safe).
        double tol = tolerance;
        if (tolerance < 0) {
          int keepbits = -1;
          if (nc_get_att_int(ncid, varid, "esmio_keepbits", &keepbits) != NC_NOERR ||
              keepbits < 0) {
            note = w.vars[v].name + ": no esmio_keepbits attribute";
            bad = -1;
            break;
          }
          tol = std::ldexp(1.0, -keepbits);
        }
        const auto &cov = covered[w.vars[v].grid];
        for (size_t g = 0; g < total; ++g) {
          if (cov[g]) {
            const float want = static_cast<float>(
                ctx.fields.expected(grid, static_cast<int>(v), t, static_cast<int64_t>(g)));
            if (tol != 0 ? std::fabs(values[g] - want) > tol * std::fabs(want) : values[g] != want)
              ++bad;
          } else if (check_holes && values[g] != NC_FILL_FLOAT) {
            ++bad;
          }
        }
      }
    if (ncid >= 0) nc_close(ncid);
    if (bad > 0) note = std::to_string(bad) + " values differ from the expected ones";
    if (bad == 0)
      note = check_holes ? "every value checked, holes hold the fill value"
                         : "every written value checked (holes not checked)";
    if (bad == 0 && tolerance > 0)
      note += " (lossy: within " + std::to_string(tolerance) + " relative)";
    if (bad == 0 && tolerance < 0) note += " (lossy: within 2^-esmio_keepbits relative)";
  }
  MPI_Bcast(&bad, 1, MPI_LONG_LONG, 0, ctx.comm);
  result.mismatches = bad;
  result.verified = bad == 0;
  result.note = note;
  return result;
}

}  // namespace esmio_bench
