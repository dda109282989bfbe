// The esmio variants — as configured, with its write cache off (esmio-nocache), and gather-root
// (esmio's serial backend) — the library as a model uses it: define, then write_darray of
// float64 memory into float32 variables, record by record.
#include <esmio.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "variants.hpp"

namespace esmio_bench {

namespace {

class EsmioVariant : public Variant {
 public:
  EsmioVariant(std::string backend, EsmioFlavour flavour)
      : backend_(std::move(backend)), flavour_(flavour) {}

  std::string name() const override {
    switch (flavour_) {
      case EsmioFlavour::gather_root:
        return "gather-root";
      case EsmioFlavour::no_cache:
        return "esmio-nocache";
      case EsmioFlavour::unstaged:
        return "esmio-unstaged";
      default:
        return "esmio";
    }
  }
  bool fills_holes() const override { return true; }
  double tolerance(const Context &ctx) const override {
    const std::string &q = ctx.opt->quantize;
    if (!configured() || q.empty()) return 0;
    const std::size_t colon = q.find(':');
    const int digits = colon == std::string::npos ? 0 : std::atoi(q.c_str() + colon + 1);
    // BitRound keeps NSB mantissa bits: half a unit of the last, relative to the binade.
    if (q.rfind("bitround", 0) == 0) return std::ldexp(1.0, -digits);
    if (q.rfind("granularbr", 0) == 0) return std::pow(10.0, 1 - digits);
    if (q.rfind("information", 0) == 0) return -1;  // per variable, from esmio_keepbits
    return 0;
  }
  bool traced() const override { return true; }

  int io_tasks(const Context &ctx) const override {
    if (flavour_ == EsmioFlavour::gather_root) return 1;
    int n = 0, mine = 0;
    esmio_inq_iotasks(ctx.io, &n, &mine);
    return n;
  }

  std::string settings(const Context &ctx) const override {
    char buf[4096] = {0};
    esmio_inq_settings(ctx.io, buf, sizeof buf);
    std::string storage;
    if (configured()) {
      if (!ctx.opt->compression.empty()) storage += ";compression:" + ctx.opt->compression;
      if (!ctx.opt->quantize.empty()) storage += ";quantize:" + ctx.opt->quantize;
    }
    if (staged(ctx))
      storage += ";stage_dir:" + ctx.opt->stage + ";stage_copy:" + ctx.opt->stage_copy;
    return std::string(buf) + ";file:" + file_settings() + storage +
           (ctx.work->slice_calls ? ";calls:slice" : ";calls:field");
  }

  void write(Context &ctx, const std::string &path) override {
    const Workload &w = *ctx.work;
    esmio_file_t f = nullptr;
    std::string settings = file_settings();
    if (staged(ctx))  // --stage: written there, copied back (at close or in the background)
      settings += ",stage_dir=" + ctx.opt->stage + ",stage_copy=" + ctx.opt->stage_copy;
    if (configured()) {
      if (!ctx.opt->compression.empty()) settings += ",compression=default:" + ctx.opt->compression;
      if (!ctx.opt->quantize.empty()) settings += ",quantize=default:" + ctx.opt->quantize;
    }
    check_esmio(esmio_create(ctx.io, path.c_str(), settings.c_str(), &f), "esmio_create " + path);
    std::vector<int> dimids(w.dims.size());
    for (std::size_t d = 0; d < w.dims.size(); ++d)
      check_esmio(esmio_def_dim(f, w.dims[d].first.c_str(),
                                d == 0 ? ESMIO_UNLIMITED : w.dims[d].second, &dimids[d]),
                  "esmio_def_dim");
    std::vector<int> varids(w.vars.size());
    for (std::size_t v = 0; v < w.vars.size(); ++v) {
      std::vector<int> vd = {dimids[0]};
      for (int id : w.grids[w.vars[v].grid].dimids) vd.push_back(dimids[id]);
      check_esmio(esmio_def_var(f, w.vars[v].name.c_str(), ESMIO_FLOAT, static_cast<int>(vd.size()),
                                vd.data(), &varids[v]),
                  "esmio_def_var " + w.vars[v].name);
    }
    check_esmio(esmio_enddef(f), "esmio_enddef");
    for (int t = 0; t < w.records; ++t)
      for (std::size_t v = 0; v < w.vars.size(); ++v) {
        const LocalGrid &g = ctx.grids[w.vars[v].grid];
        ctx.generate(static_cast<int>(v), t);
        if (g.slices.empty()) {
          check_esmio(esmio_write_darray(f, varids[v], t, g.decomp, ESMIO_DOUBLE, ctx.memory.data(),
                                         static_cast<int64_t>(g.offsets.size())),
                      "esmio_write_darray " + w.vars[v].name);
          continue;
        }
        const int64_t n = static_cast<int64_t>(g.offsets.size());
        for (std::size_t k = 0; k < g.slices.size(); ++k) {
          const int64_t first = std::min<int64_t>(n, static_cast<int64_t>(k) * g.call_len);
          check_esmio(
              esmio_write_darray(f, varids[v], t, g.slices[k], ESMIO_DOUBLE,
                                 ctx.memory.data() + first, std::min(g.call_len, n - first)),
              "esmio_write_darray " + w.vars[v].name + " slice " + std::to_string(k));
        }
      }
    check_esmio(esmio_close(&f), "esmio_close " + path);
  }

  void read(Context &ctx, const std::string &path) override {
    const Workload &w = *ctx.work;
    esmio_file_t f = nullptr;
    check_esmio(esmio_open(ctx.io, path.c_str(), ESMIO_NOWRITE, read_settings().c_str(), &f),
                "esmio_open " + path);
    for (int t = 0; t < w.records; ++t)
      for (std::size_t v = 0; v < w.vars.size(); ++v) {
        const LocalGrid &g = ctx.grids[w.vars[v].grid];
        int varid = -1;
        check_esmio(esmio_inq_varid(f, w.vars[v].name.c_str(), &varid), "esmio_inq_varid");
        check_esmio(esmio_read_darray(f, varid, t, g.decomp, ESMIO_DOUBLE, ctx.memory.data(),
                                      static_cast<int64_t>(g.offsets.size())),
                    "esmio_read_darray " + w.vars[v].name);
        ctx.fold_read(static_cast<int>(v), t);
      }
    check_esmio(esmio_close(&f), "esmio_close " + path);
  }

  bool publishes_later(const Context &ctx) const override {
    return staged(ctx) && ctx.opt->stage_copy == "background";
  }
  void publish(Context &ctx, const std::string &path) override {
    check_esmio(esmio_stage_wait(ctx.io, path.c_str()), "esmio_stage_wait " + path);
  }

 private:
  // The run's compression and quantisation apply (not to the cache-off and gather-root
  // references).
  bool configured() const {
    return flavour_ == EsmioFlavour::as_configured || flavour_ == EsmioFlavour::unstaged;
  }
  bool staged(const Context &ctx) const {
    return flavour_ == EsmioFlavour::as_configured && !ctx.opt->stage.empty();
  }
  std::string file_settings() const {
    // gather-root writes the same format as esmio, so that the two are compared like for like.
    return read_settings() + (backend_ == "netcdf4" ? ",format=netcdf4" : ",format=cdf5") +
           (flavour_ == EsmioFlavour::no_cache ? ",cache=size=0" : "");
  }
  std::string read_settings() const {
    return "backend=" + std::string(flavour_ == EsmioFlavour::gather_root ? "serial" : backend_);
  }

  std::string backend_;
  EsmioFlavour flavour_;
};

}  // namespace

std::unique_ptr<Variant> make_esmio_variant(const std::string &backend, EsmioFlavour flavour) {
  return std::make_unique<EsmioVariant>(backend, flavour);
}

}  // namespace esmio_bench
