// Value-by-value check of a file with netCDF-C, independent of the writer that made it.
#include "verify.hpp"

#include <netcdf.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

#include "storage_size.hpp"

namespace esmio_bench {

namespace {

// An integer attribute of one value, or false.
bool int_attribute(int ncid, int varid, const char *name, int *out) {
  size_t len = 0;
  return nc_inq_attlen(ncid, varid, name, &len) == NC_NOERR && len == 1 &&
         nc_get_att_int(ncid, varid, name, out) == NC_NOERR;
}

std::string text_attribute(int ncid, int varid, const char *name) {
  size_t len = 0;
  nc_type type = NC_NAT;
  if (nc_inq_att(ncid, varid, name, &type, &len) != NC_NOERR || type != NC_CHAR) return "";
  std::string out(len, '\0');
  if (nc_get_att_text(ncid, varid, name, &out[0]) != NC_NOERR) return "";
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return out;
}

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

Verification verify_file(Context &ctx, const std::string &path, bool check_holes, double tolerance,
                         int first_step, int records) {
  const Workload &w = *ctx.work;
  if (records < 0) records = w.records;
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
    std::string storage_note;
    int format = 0;
    if (ncid >= 0 && nc_inq_format(ncid, &format) != NC_NOERR) format = 0;
    result.vars.resize(w.vars.size());
    for (std::size_t v = 0; v < w.vars.size(); ++v) {
      VarCheck &c = result.vars[v];
      c.name = w.vars[v].name;
      c.source = ctx.fields.source_name(static_cast<int>(v));
      if (ctx.fields.real())
        c.zoom =
            ctx.fields.zoom(w.grids[w.vars[v].grid], ctx.fields.source_of(static_cast<int>(v)));
      int64_t cells = 1;
      for (int64_t n : w.grids[w.vars[v].grid].shape) cells *= n;
      c.float32_bytes = 4 * cells * records;
    }
    std::vector<float> values;
    for (int t = 0; t < records && bad >= 0; ++t)
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
        VarCheck &c = result.vars[v];
        if (t == 0) {
          if (!int_attribute(ncid, varid, "esmio_keepbits", &c.keepbits)) c.keepbits = -1;
          c.has_keepbits_reference =
              int_attribute(ncid, varid, "esmio_keepbits_reference", &c.keepbits_reference);
          c.keepbits_reason = text_attribute(ncid, varid, "esmio_keepbits_reason");
        }
        const auto &cov = covered[w.vars[v].grid];
        const long long before = bad;
        for (size_t g = 0; g < total; ++g) {
          if (cov[g]) {
            const float want = static_cast<float>(ctx.fields.expected(
                grid, static_cast<int>(v), first_step + t, static_cast<int64_t>(g)));
            const double err = std::fabs(static_cast<double>(values[g]) - want);
            if (tol != 0 ? err > tol * std::fabs(want) : values[g] != want) ++bad;
            ++c.values_checked;
            if (want == NC_FILL_FLOAT || values[g] == NC_FILL_FLOAT) continue;  // counted above
            c.max_abs_error = std::max(c.max_abs_error, err);
            if (want != 0) c.max_rel_error = std::max(c.max_rel_error, err / std::fabs(want));
          } else if (check_holes && values[g] != NC_FILL_FLOAT) {
            ++bad;
          }
        }
        c.mismatches += bad - before;
      }
    if (ncid >= 0) nc_close(ncid);
    // The stored bytes of every variable, from HDF5 (after the close: a file is opened once).
    if (bad >= 0 && (format == NC_FORMAT_NETCDF4 || format == NC_FORMAT_NETCDF4_CLASSIC)) {
      std::vector<std::string> names;
      for (const VarCheck &c : result.vars) names.push_back(c.name);
      std::vector<int64_t> stored;
      std::string why;
      if (dataset_storage_bytes(path, names, &stored, &why))
        for (std::size_t v = 0; v < stored.size(); ++v) result.vars[v].stored_bytes = stored[v];
      else
        storage_note = "; no stored sizes: " + why;
    }
    if (bad > 0) note = std::to_string(bad) + " values differ from the expected ones";
    if (bad == 0)
      note = check_holes ? "every value checked, holes hold the fill value"
                         : "every written value checked (holes not checked)";
    if (bad == 0 && tolerance > 0)
      note += " (lossy: within " + std::to_string(tolerance) + " relative)";
    if (bad == 0 && tolerance < 0) note += " (lossy: within 2^-esmio_keepbits relative)";
    note += storage_note;
  }
  MPI_Bcast(&bad, 1, MPI_LONG_LONG, 0, ctx.comm);
  result.mismatches = bad;
  result.verified = bad == 0;
  result.note = note;
  return result;
}

int check_reads(Context &ctx) {
  const uint64_t read = ctx.read_digest;
  const std::map<std::string, double> phases = ctx.phases;  // generating here is not a phase
  ctx.read_digest = 0;
  for (int t = 0; t < ctx.work->records; ++t)
    for (std::size_t v = 0; v < ctx.work->vars.size(); ++v) {
      ctx.generate(static_cast<int>(v), t);
      const LocalGrid &g = ctx.grids[ctx.work->vars[v].grid];
      double *values = ctx.memory.data();
      for (std::size_t i = 0; i < g.offsets.size(); ++i)
        values[i] = static_cast<double>(static_cast<float>(values[i]));
      ctx.digest_record(static_cast<int>(v), t);
    }
  const uint64_t written = ctx.read_digest;
  ctx.read_digest = read;
  ctx.phases = phases;
  int wrong = read != written, ranks = 0;
  MPI_Allreduce(&wrong, &ranks, 1, MPI_INT, MPI_SUM, ctx.comm);
  return ranks;
}

}  // namespace esmio_bench
