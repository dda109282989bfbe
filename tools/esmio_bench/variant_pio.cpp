// The pio-layer variant: the esmio variant's file written through PIO's C interface
// (libesmio_pio), as a model written for PIO writes it: what the layer costs over esmio itself.
// The I/O system and the decompositions are made once, before the first repeat (as the esmio
// variant's decompositions are made at setup), with the esmio variant's I/O tasks and layout.
#include <pio.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "pio_state.hpp"
#include "variants.hpp"

namespace esmio_bench {

namespace {

// Throws BenchError naming `what` when a PIOc_* call fails (the I/O system returns its errors).
void check_pio(int rc, const std::string &what) {
  if (rc == PIO_NOERR) return;
  char why[PIO_MAX_NAME + 1] = {0};
  PIOc_strerror(rc, why);
  throw BenchError(what + ": " + why + " (" + std::to_string(rc) + ")");
}

class PioLayerVariant : public Variant {
 public:
  std::string name() const override { return "pio-layer"; }
  bool fills_holes() const override { return true; }
  bool traced() const override { return true; }
  int io_tasks(const Context &ctx) const override {
    int n = 0, mine = 0;
    esmio_inq_iotasks(ctx.io, &n, &mine);
    return n;
  }
  std::string settings(const Context &ctx) const override {
    return "PIOc_Init_Intracomm(num_iotasks=" + std::to_string(io_tasks(ctx)) +
           ",stride=" + std::to_string(stride_) + ",base=" + std::to_string(base_) +
           ",rearr=" + ctx.opt->layout +
           ");iotype:PIO_IOTYPE_PNETCDF;mode:PIO_64BIT_DATA;calls:PIOc_write_darray";
  }
  esmio_t trace_instance(const Context &) const override {
    const esmio_pio::IoSystem *ios = esmio_pio::find_iosystem(iosysid_);
    return ios ? ios->io : nullptr;
  }

  void prepare(Context &ctx) override {
    const Options &opt = *ctx.opt;
    // What the layer can write as the esmio variant does: PnetCDF, one call per record.
    if (opt.backend != "pnetcdf")
      throw BenchError("pio-layer writes with PIO_IOTYPE_PNETCDF only (--backend " + opt.backend +
                       " is the esmio variant's)");
    if (ctx.work->slice_calls)
      throw BenchError(
          "pio-layer writes one PIOc_write_darray per variable record, not slice by "
          "slice (--calls " +
          opt.calls + "): use --calls field");
    if (!opt.compression.empty() || !opt.quantize.empty() || !opt.stage.empty())
      throw BenchError("pio-layer writes plain CDF-5: no --compression, --quantize or --stage");
    if (opt.layout != "box" && opt.layout != "subset")
      throw BenchError("pio-layer: no PIO rearranger for --layout " + opt.layout);
    for (const Grid &g : ctx.work->grids)
      for (int64_t len : g.shape)
        if (len > INT32_MAX)
          throw BenchError("pio-layer: grid " + g.name + " has a dimension over PIO's int");
    // PIOc_InitDecomp's maplen is an int: agreed by every rank before any collective call.
    uint64_t longest = 0, longest_anywhere = 0;
    for (const LocalGrid &g : ctx.grids) longest = std::max<uint64_t>(longest, g.offsets.size());
    MPI_Allreduce(&longest, &longest_anywhere, 1, MPI_UINT64_T, MPI_MAX, ctx.comm);
    if (longest_anywhere > static_cast<uint64_t>(INT32_MAX))
      throw BenchError("pio-layer: a rank holds more elements of a grid than PIO's int counts");
    // The esmio variant's I/O tasks, found from esmio's choice: the first one and the ranks
    // between them.
    int n = 0, mine = 0;
    check_esmio(esmio_inq_iotasks(ctx.io, &n, &mine), "esmio_inq_iotasks");
    std::vector<int> is_io(static_cast<std::size_t>(ctx.size), 0);
    MPI_Allgather(&mine, 1, MPI_INT, is_io.data(), 1, MPI_INT, ctx.comm);
    std::vector<int> io_ranks;
    for (int r = 0; r < ctx.size; ++r)
      if (is_io[static_cast<std::size_t>(r)]) io_ranks.push_back(r);
    base_ = io_ranks.empty() ? 0 : io_ranks[0];
    stride_ = io_ranks.size() < 2 ? 1 : io_ranks[1] - io_ranks[0];
    int old = 0;
    PIOc_set_iosystem_error_handling(PIO_DEFAULT, PIO_RETURN_ERROR, &old);
    check_pio(
        PIOc_Init_Intracomm(ctx.comm, n, stride_, base_,
                            opt.layout == "subset" ? PIO_REARR_SUBSET : PIO_REARR_BOX, &iosysid_),
        "PIOc_Init_Intracomm");
    // PIO's maps: the grid's offsets, 1-based, 0 for a hole.
    for (std::size_t k = 0; k < ctx.grids.size(); ++k) {
      const LocalGrid &g = ctx.grids[k];
      const Grid &shape = ctx.work->grids[k];
      std::vector<int> dims(shape.shape.begin(), shape.shape.end());
      std::vector<PIO_Offset> map(g.offsets.size());
      for (std::size_t i = 0; i < map.size(); ++i) map[i] = g.offsets[i] < 0 ? 0 : g.offsets[i] + 1;
      int ioid = -1;
      check_pio(PIOc_InitDecomp(iosysid_, PIO_DOUBLE, static_cast<int>(dims.size()), dims.data(),
                                static_cast<int>(map.size()), map.data(), &ioid, nullptr, nullptr,
                                nullptr),
                "PIOc_InitDecomp " + shape.name);
      ioids_.push_back(ioid);
    }
  }

  void release(Context &) override {
    if (iosysid_ < 0) return;
    int first = PIO_NOERR;
    for (int ioid : ioids_) {
      const int rc = PIOc_freedecomp(iosysid_, ioid);
      if (first == PIO_NOERR) first = rc;
    }
    ioids_.clear();
    const int rc = PIOc_finalize(iosysid_);
    iosysid_ = -1;
    check_pio(first, "PIOc_freedecomp");
    check_pio(rc, "PIOc_finalize");
  }

  void write(Context &ctx, const std::string &path) override {
    const Workload &w = *ctx.work;
    int ncid = -1, iotype = PIO_IOTYPE_PNETCDF;
    check_pio(PIOc_createfile(iosysid_, &ncid, &iotype, path.c_str(), PIO_CLOBBER | PIO_64BIT_DATA),
              "PIOc_createfile " + path);
    std::vector<int> dimids(w.dims.size());
    for (std::size_t d = 0; d < w.dims.size(); ++d)
      check_pio(PIOc_def_dim(ncid, w.dims[d].first.c_str(),
                             d == 0 ? PIO_UNLIMITED : w.dims[d].second, &dimids[d]),
                "PIOc_def_dim");
    std::vector<int> varids(w.vars.size());
    for (std::size_t v = 0; v < w.vars.size(); ++v) {
      std::vector<int> vd = {dimids[0]};
      for (int id : w.grids[w.vars[v].grid].dimids) vd.push_back(dimids[id]);
      check_pio(PIOc_def_var(ncid, w.vars[v].name.c_str(), PIO_FLOAT, static_cast<int>(vd.size()),
                             vd.data(), &varids[v]),
                "PIOc_def_var " + w.vars[v].name);
    }
    check_pio(PIOc_enddef(ncid), "PIOc_enddef");
    for (int t = 0; t < w.records; ++t)
      for (std::size_t v = 0; v < w.vars.size(); ++v) {
        const LocalGrid &g = ctx.grids[w.vars[v].grid];
        ctx.generate(static_cast<int>(v), t);
        check_pio(PIOc_setframe(ncid, varids[v], t), "PIOc_setframe");
        check_pio(PIOc_write_darray(ncid, varids[v], ioids_[w.vars[v].grid],
                                    static_cast<PIO_Offset>(g.offsets.size()), ctx.memory.data(),
                                    nullptr),
                  "PIOc_write_darray " + w.vars[v].name);
      }
    check_pio(PIOc_closefile(ncid), "PIOc_closefile " + path);
  }

  void read(Context &ctx, const std::string &path) override {
    const Workload &w = *ctx.work;
    int ncid = -1, iotype = PIO_IOTYPE_PNETCDF;
    check_pio(PIOc_openfile(iosysid_, &ncid, &iotype, path.c_str(), PIO_NOWRITE),
              "PIOc_openfile " + path);
    for (int t = 0; t < w.records; ++t)
      for (std::size_t v = 0; v < w.vars.size(); ++v) {
        const LocalGrid &g = ctx.grids[w.vars[v].grid];
        int varid = -1;
        check_pio(PIOc_inq_varid(ncid, w.vars[v].name.c_str(), &varid), "PIOc_inq_varid");
        check_pio(PIOc_setframe(ncid, varid, t), "PIOc_setframe");
        check_pio(PIOc_read_darray(ncid, varid, ioids_[w.vars[v].grid],
                                   static_cast<PIO_Offset>(g.offsets.size()), ctx.memory.data()),
                  "PIOc_read_darray " + w.vars[v].name);
        ctx.fold_read(static_cast<int>(v), t);
      }
    check_pio(PIOc_closefile(ncid), "PIOc_closefile " + path);
  }

 private:
  int iosysid_ = -1;
  int stride_ = 1, base_ = 0;
  std::vector<int> ioids_;  // one per grid
};

}  // namespace

std::unique_ptr<Variant> make_pio_layer_variant() { return std::make_unique<PioLayerVariant>(); }

}  // namespace esmio_bench
