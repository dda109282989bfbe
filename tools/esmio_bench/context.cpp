// Building the shared state of a run: decompositions through esmio (timed: they are the setup
// cost a model pays once), then the values and file runs that the direct writers need.
#include "context.hpp"

#include <xxhash.h>

#include <algorithm>
#include <numeric>

namespace esmio_bench {

void check_esmio(int rc, const std::string &what) {
  if (rc != ESMIO_NOERR)
    throw BenchError(what + ": " + esmio_strerror(rc) + ": " + esmio_last_error());
}

void Context::generate(int v, int t) {
  const double t0 = MPI_Wtime();
  const LocalGrid &g = grids[work->vars[v].grid];
  double *out = memory.data();
  if (fields.real()) {
    // The variable's source sampled at setup (FieldSource::sample, as the checker uses): the
    // same field every record.
    const std::vector<float> &values = g.real_values.at(fields.source_of(v));
    const std::size_t n = values.size();
    const float *in = values.data();
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<double>(in[i]);
  } else {
    // value_of(v, t, g) split into its per-record constant and its per-slot part, the same
    // double operations in the same order.
    const double c = static_cast<double>(1000 * v + t);
    const std::size_t n = g.base.size();
    const double *base = g.base.data();
    for (std::size_t i = 0; i < n; ++i) out[i] = c + base[i];
  }
  add_phase("generate", MPI_Wtime() - t0);
}

void Context::fold_read(int v, int t) {
  const double t0 = MPI_Wtime();
  const LocalGrid &g = grids[work->vars[v].grid];
  if (opt->wrong_read && rank == size - 1 && g.nvalid > 0) {
    const auto valid =
        std::find_if(g.offsets.begin(), g.offsets.end(), [](int64_t off) { return off >= 0; });
    memory[static_cast<std::size_t>(valid - g.offsets.begin())] += 1.0;
  }
  digest_record(v, t);
  add_phase("check", MPI_Wtime() - t0);
}

void Context::digest_record(int v, int t) {
  const LocalGrid &g = grids[work->vars[v].grid];
  double *values = memory.data();
  for (int64_t slot : g.hole_slots) values[slot] = 0.0;  // reads leave holes untouched
  const uint64_t seed = (static_cast<uint64_t>(t) << 32) | static_cast<uint64_t>(v);
  read_digest += XXH3_64bits_withSeed(values, g.offsets.size() * sizeof(double), seed);
}

namespace {

esmio_decomp_t create_decomp(Context *ctx, const Grid &g) {
  esmio_decomp_t d = nullptr;
  const int nd = static_cast<int>(g.shape.size());
  switch (g.kind) {
    case Grid::Kind::block:
      check_esmio(
          esmio_decomp_create_block(ctx->io, nd, g.shape.data(), g.start.data(), g.count.data(),
                                    g.mem_order.empty() ? nullptr : g.mem_order.data(), &d),
          "esmio_decomp_create_block (" + g.name + ")");
      break;
    case Grid::Kind::offsets:
      check_esmio(esmio_decomp_create(ctx->io, nd, g.shape.data(),
                                      static_cast<int64_t>(g.offsets.size()), g.offsets.data(), &d),
                  "esmio_decomp_create (" + g.name + ")");
      break;
    case Grid::Kind::e3sm: {
      check_esmio(esmio_decomp_load(ctx->io, g.map_path.c_str(), g.map_format.c_str(), &d),
                  "esmio_decomp_load " + g.map_path + " " + g.map_format);
      int nd_map = 0;
      int64_t dims[ESMIO_MAX_DIMS], nlocal = 0;
      check_esmio(esmio_decomp_inq(d, &nd_map, dims, &nlocal), "esmio_decomp_inq");
      if (nd_map != nd || !std::equal(g.shape.begin(), g.shape.end(), dims))
        throw BenchError("map " + g.map_path + " " + g.map_format +
                         " does not have the shape the case expects (" + g.name + ")");
      break;
    }
  }
  return d;
}

// Offsets, values and the direct writers' runs and hyperslabs of one grid on this rank.
void prepare_grid(Context *ctx, const Grid &g, LocalGrid *lg) {
  int nd = 0;
  int64_t dims[ESMIO_MAX_DIMS], nlocal = 0;
  check_esmio(esmio_decomp_inq(lg->decomp, &nd, dims, &nlocal), "esmio_decomp_inq");
  lg->offsets.resize(static_cast<std::size_t>(nlocal));
  check_esmio(esmio_decomp_inq_offsets(lg->decomp, lg->offsets.data(), nlocal),
              "esmio_decomp_inq_offsets");
  // Only the per-slot arrays of the values in use: the others would be dead memory.
  const bool real = ctx->fields.real();
  if (real) {
    for (std::size_t v = 0; v < ctx->work->vars.size(); ++v) {
      if (&ctx->work->grids[static_cast<std::size_t>(ctx->work->vars[v].grid)] != &g) continue;
      const int s = ctx->fields.source_of(static_cast<int>(v));
      if (!lg->real_values.count(s))
        ctx->fields.sample_into(g, s, lg->offsets, &lg->real_values[s]);
    }
  } else {
    lg->base.resize(lg->offsets.size());
  }
  lg->nvalid = 0;
  for (std::size_t i = 0; i < lg->offsets.size(); ++i) {
    const int64_t off = lg->offsets[i];
    if (!real) lg->base[i] = off >= 0 ? static_cast<double>(off) * 1.0e-6 : 0.0;
    if (off >= 0)
      ++lg->nvalid;
    else
      lg->hole_slots.push_back(static_cast<int64_t>(i));
  }
  MPI_Allreduce(&lg->nvalid, &lg->global_valid, 1, MPI_INT64_T, MPI_SUM, ctx->comm);

  lg->per_slice = g.slice_len > 0;
  std::vector<int64_t> order;  // offsets in the order the direct writer's buffer holds them
  if (lg->per_slice) {
    order = lg->offsets;  // memory order: the model hands slices over as they come
  } else {
    std::vector<int64_t> slots;
    for (std::size_t i = 0; i < lg->offsets.size(); ++i)
      if (lg->offsets[i] >= 0) slots.push_back(static_cast<int64_t>(i));
    const bool ascending = std::is_sorted(slots.begin(), slots.end(), [&](int64_t a, int64_t b) {
      return lg->offsets[a] < lg->offsets[b];
    });
    bool dense = slots.size() == lg->offsets.size();
    if (!ascending || !dense) {
      std::sort(slots.begin(), slots.end(),
                [&](int64_t a, int64_t b) { return lg->offsets[a] < lg->offsets[b]; });
      lg->sorted_slots = slots;
    }
    order.reserve(slots.size());
    for (int64_t s : slots) order.push_back(lg->offsets[s]);
  }
  lg->runs = runs_in_sequence(order);
  for (const Run &r : lg->runs) {
    const std::size_t before = lg->slab_starts.size() / g.shape.size();
    run_to_hyperslabs(g.shape, r.offset, r.length, &lg->slab_starts, &lg->slab_counts);
    // Buffer position of each new hyperslab: the run's start plus what came before it.
    int64_t pos = r.buffer;
    for (std::size_t h = before; h < lg->slab_starts.size() / g.shape.size(); ++h) {
      lg->slab_buffer.push_back(pos);
      int64_t n = 1;
      for (std::size_t d = 0; d < g.shape.size(); ++d) n *= lg->slab_counts[h * g.shape.size() + d];
      pos += n;
    }
  }
}

// The slice decompositions of --calls slice: slice k of this rank is its memory slots
// [k call_len, (k+1) call_len), described by their file offsets.
void create_slices(Context *ctx, const Grid &g, LocalGrid *lg) {
  const int64_t n = static_cast<int64_t>(lg->offsets.size());
  const int64_t mine = (n + g.call_len - 1) / g.call_len;
  int64_t count = 0;
  MPI_Allreduce(&mine, &count, 1, MPI_INT64_T, MPI_MAX, ctx->comm);
  lg->call_len = g.call_len;
  const int nd = static_cast<int>(g.shape.size());
  for (int64_t k = 0; k < count; ++k) {
    const int64_t first = std::min(n, k * g.call_len), last = std::min(n, first + g.call_len);
    esmio_decomp_t d = nullptr;
    check_esmio(esmio_decomp_create(ctx->io, nd, g.shape.data(), last - first,
                                    lg->offsets.data() + first, &d),
                "esmio_decomp_create (slice " + std::to_string(k) + " of " + g.name + ")");
    lg->slices.push_back(d);
  }
}

}  // namespace

void setup_context(Context *ctx) {
  const Options &opt = *ctx->opt;
  std::string settings = "layout=" + opt.layout;
  if (opt.iotasks > 0)
    settings += ",num_iotasks=" + std::to_string(std::min(opt.iotasks, ctx->size));
  if (!opt.trace.empty()) settings += ",trace_timeline=true";  // --trace: spans for the report
  // An instance made by the caller (model-loop's, with I/O servers) is used as it is.
  if (ctx->io == nullptr)
    check_esmio(esmio_init(ctx->comm, settings.c_str(), &ctx->io), "esmio_init(" + settings + ")");
  // Every rank loads the few small source fields itself: no broadcast to get right, and the
  // same files give the same values everywhere.
  if (opt.fields == "real") {
    std::string why;
    if (!FieldSource::load_real(*ctx->work, &ctx->fields, &why)) throw BenchError(why);
  }
  set_fields_in_use(ctx->fields.label());
  MPI_Barrier(ctx->comm);
  const double t0 = MPI_Wtime();
  for (const Grid &g : ctx->work->grids) {
    LocalGrid lg;
    lg.decomp = create_decomp(ctx, g);
    ctx->grids.push_back(std::move(lg));
  }
  double mine = MPI_Wtime() - t0;
  MPI_Allreduce(&mine, &ctx->setup_seconds, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
  std::size_t largest = 1;
  for (std::size_t i = 0; i < ctx->grids.size(); ++i) {
    prepare_grid(ctx, ctx->work->grids[i], &ctx->grids[i]);
    largest = std::max(largest, ctx->grids[i].offsets.size());
  }
  if (ctx->work->slice_calls) {
    MPI_Barrier(ctx->comm);
    const double t1 = MPI_Wtime();
    for (std::size_t i = 0; i < ctx->grids.size(); ++i)
      if (ctx->work->grids[i].call_len > 0) create_slices(ctx, ctx->work->grids[i], &ctx->grids[i]);
    double slices = MPI_Wtime() - t1, most = 0;
    MPI_Allreduce(&slices, &most, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
    ctx->setup_seconds += most;
  }
  ctx->memory.assign(largest, 0.0);
  ctx->values = ctx->my_values = ctx->file_values = 0;
  for (const Var &v : ctx->work->vars) {
    ctx->values += ctx->grids[v.grid].global_valid * ctx->work->records;
    ctx->my_values += ctx->grids[v.grid].nvalid * ctx->work->records;
    int64_t cells = 1;
    for (int64_t len : ctx->work->grids[v.grid].shape) cells *= len;
    ctx->file_values += cells * ctx->work->records;
  }
  ctx->my_file_values = ctx->file_values / ctx->size + (ctx->rank < ctx->file_values % ctx->size);
}

void teardown_context(Context *ctx) {
  for (LocalGrid &g : ctx->grids) {
    if (g.decomp) esmio_decomp_free(&g.decomp);
    for (esmio_decomp_t &d : g.slices) esmio_decomp_free(&d);
  }
  ctx->grids.clear();
  if (ctx->io) esmio_finalize(&ctx->io);
}

}  // namespace esmio_bench
