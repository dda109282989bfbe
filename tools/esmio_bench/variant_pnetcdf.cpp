// pnetcdf-direct: what a careful user of PnetCDF does without a library in between. Each rank
// converts its float64 values to float32 locally, in ascending file order, posts all its pieces
// of a variable record with one nonblocking ncmpi_iput_varn_float (its contiguous file runs as
// hyperslabs), and ends the posts with one collective ncmpi_wait_all per record, or sooner once
// 64 MiB are posted on some rank (the buffers must live until the wait). One collective per
// variable record instead (put_varn_all) made the E3SM cases' hundreds of small 2-D fields
// pathological (esmio-bench e3sm-f, 2 ranks: 8.6 s for a 84 MB file). No rearrangement: MPI-IO's
// collective buffering does the rest.
// Case 'small' models a multi-tasked writer instead: one ncmpi_iput_vara per latitude slice,
// in the random order the rank holds them, then one ncmpi_wait_all per variable record.
#include <pnetcdf.h>

#include "variants.hpp"

namespace esmio_bench {

namespace {

void check_nc(int rc, const std::string &what) {
  if (rc != NC_NOERR) throw BenchError(what + ": " + ncmpi_strerror(rc));
}

// The hyperslabs of one grid with the record index in front, as PnetCDF's pointer arrays.
struct Requests {
  std::vector<MPI_Offset> starts, counts;
  std::vector<MPI_Offset *> start_ptrs, count_ptrs;
};

Requests requests_for(const LocalGrid &g, std::size_t ndims) {
  Requests r;
  const std::size_t n = g.slab_buffer.size(), stride = ndims + 1;
  r.starts.resize(n * stride);
  r.counts.resize(n * stride);
  for (std::size_t h = 0; h < n; ++h) {
    r.starts[h * stride] = 0;  // the record, set per write
    r.counts[h * stride] = 1;
    for (std::size_t d = 0; d < ndims; ++d) {
      r.starts[h * stride + 1 + d] = g.slab_starts[h * ndims + d];
      r.counts[h * stride + 1 + d] = g.slab_counts[h * ndims + d];
    }
  }
  for (std::size_t h = 0; h < n; ++h) {
    r.start_ptrs.push_back(&r.starts[h * stride]);
    r.count_ptrs.push_back(&r.counts[h * stride]);
  }
  return r;
}

void set_record(Requests *r, std::size_t ndims, int t) {
  for (std::size_t h = 0; h < r->start_ptrs.size(); ++h) r->starts[h * (ndims + 1)] = t;
}

class PnetcdfDirect : public Variant {
 public:
  std::string name() const override { return "pnetcdf-direct"; }
  std::string settings(const Context &) const override {
    return "PnetCDF " + std::string(ncmpi_inq_libvers()) +
           ", CDF-5, one iput_varn per variable record, one wait_all per record or 64 MiB "
           "(small: iput per slice + wait_all)";
  }

  void write(Context &ctx, const std::string &path) override {
    const Workload &w = *ctx.work;
    int ncid = -1;
    check_nc(ncmpi_create(ctx.comm, path.c_str(), NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid),
             "ncmpi_create " + path);
    std::vector<int> dimids(w.dims.size());
    for (std::size_t d = 0; d < w.dims.size(); ++d)
      check_nc(ncmpi_def_dim(ncid, w.dims[d].first.c_str(),
                             d == 0 ? NC_UNLIMITED : w.dims[d].second, &dimids[d]),
               "ncmpi_def_dim");
    std::vector<int> varids(w.vars.size());
    for (std::size_t v = 0; v < w.vars.size(); ++v) {
      std::vector<int> vd = {dimids[0]};
      for (int id : w.grids[w.vars[v].grid].dimids) vd.push_back(dimids[id]);
      check_nc(ncmpi_def_var(ncid, w.vars[v].name.c_str(), NC_FLOAT, static_cast<int>(vd.size()),
                             vd.data(), &varids[v]),
               "ncmpi_def_var " + w.vars[v].name);
    }
    check_nc(ncmpi_enddef(ncid), "ncmpi_enddef");
    std::vector<Requests> reqs;
    for (std::size_t i = 0; i < w.grids.size(); ++i)
      reqs.push_back(requests_for(ctx.grids[i], w.grids[i].shape.size()));
    std::vector<float> out;
    // Posted but not yet waited for: their buffers and, per grid, their hyperslabs (the record
    // is set per post, so each post keeps its own copy of the start array).
    std::vector<std::vector<float>> posted;
    std::vector<Requests> posted_reqs;
    int64_t posted_bytes = 0;
    constexpr int64_t kPostLimit = int64_t(64) << 20;
    auto wait_posted = [&] {
      check_nc(ncmpi_wait_all(ncid, NC_REQ_ALL, nullptr, nullptr), "ncmpi_wait_all");
      posted.clear();
      posted_reqs.clear();
      posted_bytes = 0;
    };
    for (int t = 0; t < w.records; ++t) {
      for (std::size_t v = 0; v < w.vars.size(); ++v) {
        const int gi = w.vars[v].grid;
        const LocalGrid &g = ctx.grids[gi];
        const std::size_t nd = w.grids[gi].shape.size();
        ctx.generate(static_cast<int>(v), t);
        const double t0 = MPI_Wtime();
        to_file_order(g, ctx.memory, &out);
        const double t1 = MPI_Wtime();
        ctx.add_phase("convert", t1 - t0);
        Requests &r = reqs[gi];
        set_record(&r, nd, t);
        if (!g.per_slice) {
          // Every rank waits when any rank's posts reach the limit: the wait is collective.
          const int64_t mine = posted_bytes + static_cast<int64_t>(out.size() * sizeof(float));
          int64_t most = 0;
          MPI_Allreduce(&mine, &most, 1, MPI_INT64_T, MPI_MAX, ctx.comm);
          if (most > kPostLimit && !posted.empty()) wait_posted();
          posted.push_back(out);
          posted_reqs.push_back(requests_for(g, nd));
          Requests &mine_reqs = posted_reqs.back();
          set_record(&mine_reqs, nd, t);
          int req;
          check_nc(
              ncmpi_iput_varn_float(ncid, varids[v], static_cast<int>(mine_reqs.start_ptrs.size()),
                                    mine_reqs.start_ptrs.data(), mine_reqs.count_ptrs.data(),
                                    posted.back().data(), &req),
              "ncmpi_iput_varn_float " + w.vars[v].name);
          posted_bytes += static_cast<int64_t>(out.size() * sizeof(float));
          ctx.add_phase("put", MPI_Wtime() - t1);
          continue;
        }
        {
          for (std::size_t h = 0; h < r.start_ptrs.size(); ++h) {
            int req;
            check_nc(ncmpi_iput_vara_float(ncid, varids[v], r.start_ptrs[h], r.count_ptrs[h],
                                           out.data() + g.slab_buffer[h], &req),
                     "ncmpi_iput_vara_float " + w.vars[v].name);
          }
          check_nc(ncmpi_wait_all(ncid, NC_REQ_ALL, nullptr, nullptr), "ncmpi_wait_all");
        }
        ctx.add_phase("put", MPI_Wtime() - t1);
      }
      const double tw = MPI_Wtime();
      if (!posted.empty()) wait_posted();
      ctx.add_phase("put", MPI_Wtime() - tw);
    }
    const double tc = MPI_Wtime();
    check_nc(ncmpi_close(ncid), "ncmpi_close " + path);
    ctx.add_phase("close", MPI_Wtime() - tc);
  }

  void read(Context &ctx, const std::string &path) override {
    const Workload &w = *ctx.work;
    int ncid = -1;
    check_nc(ncmpi_open(ctx.comm, path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &ncid),
             "ncmpi_open " + path);
    std::vector<Requests> reqs;
    for (std::size_t i = 0; i < w.grids.size(); ++i)
      reqs.push_back(requests_for(ctx.grids[i], w.grids[i].shape.size()));
    std::vector<float> in;
    for (int t = 0; t < w.records; ++t)
      for (std::size_t v = 0; v < w.vars.size(); ++v) {
        const int gi = w.vars[v].grid;
        const LocalGrid &g = ctx.grids[gi];
        int varid = -1;
        check_nc(ncmpi_inq_varid(ncid, w.vars[v].name.c_str(), &varid), "ncmpi_inq_varid");
        in.resize(static_cast<std::size_t>(g.nvalid));
        Requests &r = reqs[gi];
        set_record(&r, w.grids[gi].shape.size(), t);
        if (g.per_slice) {
          for (std::size_t h = 0; h < r.start_ptrs.size(); ++h) {
            int req;
            check_nc(ncmpi_iget_vara_float(ncid, varid, r.start_ptrs[h], r.count_ptrs[h],
                                           in.data() + g.slab_buffer[h], &req),
                     "ncmpi_iget_vara_float");
          }
          check_nc(ncmpi_wait_all(ncid, NC_REQ_ALL, nullptr, nullptr), "ncmpi_wait_all");
        } else {
          check_nc(ncmpi_get_varn_float_all(ncid, varid, static_cast<int>(r.start_ptrs.size()),
                                            r.start_ptrs.data(), r.count_ptrs.data(), in.data()),
                   "ncmpi_get_varn_float_all " + w.vars[v].name);
        }
        from_file_order(g, in, &ctx.memory);
        ctx.fold_read(static_cast<int>(v), t);
      }
    check_nc(ncmpi_close(ncid), "ncmpi_close " + path);
  }

 private:
  // float64 memory order -> float32 in the order of the requests' buffer.
  static void to_file_order(const LocalGrid &g, const std::vector<double> &mem,
                            std::vector<float> *out) {
    out->resize(static_cast<std::size_t>(g.nvalid));
    float *o = out->data();
    if (!g.sorted_slots.empty()) {
      const int64_t *slot = g.sorted_slots.data();
      for (std::size_t i = 0; i < out->size(); ++i) o[i] = static_cast<float>(mem[slot[i]]);
    } else if (static_cast<std::size_t>(g.nvalid) == g.offsets.size()) {
      for (std::size_t i = 0; i < out->size(); ++i) o[i] = static_cast<float>(mem[i]);
    } else {  // memory order with holes skipped (per-slice writers)
      std::size_t k = 0;
      for (std::size_t i = 0; i < g.offsets.size(); ++i)
        if (g.offsets[i] >= 0) o[k++] = static_cast<float>(mem[i]);
    }
  }

  static void from_file_order(const LocalGrid &g, const std::vector<float> &in,
                              std::vector<double> *mem) {
    double *m = mem->data();
    if (!g.sorted_slots.empty()) {
      for (std::size_t i = 0; i < in.size(); ++i) m[g.sorted_slots[i]] = in[i];
    } else if (in.size() == g.offsets.size()) {
      for (std::size_t i = 0; i < in.size(); ++i) m[i] = in[i];
    } else {
      std::size_t k = 0;
      for (std::size_t i = 0; i < g.offsets.size(); ++i)
        if (g.offsets[i] >= 0) m[i] = in[k++];
    }
  }
};

}  // namespace

std::unique_ptr<Variant> make_pnetcdf_direct_variant() { return std::make_unique<PnetcdfDirect>(); }

}  // namespace esmio_bench
