// One measurement: barrier, clock, the variant's write (or read), fsync when durable, barrier,
// clock. Before it the peak RSS and esmio's counters are reset; after it they are gathered.
// Outside the clock: settling dirty pages, dropping or warming the cache for reads, checking
// the file's values (first repeat) and removing it.
#include "runner.hpp"

#include <esmio.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "durability.hpp"
#include "memory.hpp"
#include "trace_phases.hpp"
#include "verify.hpp"

namespace esmio_bench {

namespace {

// Runs body on the ranks that take part and agrees on failure. Returns "" or the message
// (rank 0's own, or a note that another rank failed).
template <typename F>
std::string agreed(Context &ctx, bool rank0_only, F body) {
  std::string error;
  if (!rank0_only || ctx.rank == 0) {
    try {
      body();
    } catch (const BenchError &e) {
      error = e.what();
    }
  }
  int bad = !error.empty(), any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, ctx.comm);
  if (any && error.empty()) error = "failed on another rank";
  return any ? error : "";
}

std::vector<double> gather_doubles(Context &ctx, double mine) {
  std::vector<double> all(ctx.rank == 0 ? ctx.size : 0);
  MPI_Gather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, ctx.comm);
  return all;
}

// The bench-side phases, max over ranks (every rank has the same names: a fixed list).
void collect_bench_phases(Context &ctx, std::map<std::string, double> *phases) {
  static const char *names[] = {"generate", "check", "convert",         "put",
                                "close",    "fsync", "copy_after_close"};
  constexpr int kNames = sizeof names / sizeof names[0];
  double mine[kNames], worst[kNames];
  for (int i = 0; i < kNames; ++i) {
    auto it = ctx.phases.find(names[i]);
    mine[i] = it == ctx.phases.end() ? -1.0 : it->second;  // -1: not a phase of this variant
  }
  MPI_Reduce(mine, worst, kNames, MPI_DOUBLE, MPI_MAX, 0, ctx.comm);
  if (ctx.rank == 0)
    for (int i = 0; i < kNames; ++i)
      if (worst[i] >= 0 && !phases->count(names[i])) (*phases)[names[i]] = worst[i];
}

void progress(const Context &ctx, int repeat, const Variant &v, const char *op, double s) {
  if (ctx.rank != 0) return;
  std::fprintf(stderr, "esmio-bench %s: repeat %d/%d %-15s %-5s %8.3f s  %8.1f MiB/s\n",
               ctx.work->case_name.c_str(), repeat + 1, ctx.opt->repeat, v.name().c_str(), op, s,
               s > 0 ? ctx.values * 4.0 / 1048576.0 / s : 0.0);
}

Result blank_result(const Context &ctx, const Variant &v, const char *op) {
  Result r;
  r.case_name = ctx.work->case_name;
  r.operation = op;
  r.variant = v.name();
  r.durability = to_string(ctx.opt->durability);
  const bool write = r.operation == "write";
  r.read_mode = write ? "" : to_string(ctx.opt->read);
  if (write && v.publishes_later(ctx))
    r.label = "to close (staged)";  // the copy-back and its fsync come after the clock
  else if (write)
    r.label = ctx.opt->durability == Durability::durable ? "durable (fsync)" : "page cache";
  else
    r.label = ctx.opt->read == ReadMode::cold ? "cold read" : "page cache (warm)";
  r.ranks = v.rank0_only() ? 1 : ctx.size;
  r.io_tasks = v.io_tasks(ctx);
  r.settings = v.settings(ctx);
  r.values = ctx.values;
  r.bytes = ctx.values * 4;
  r.peak_rss_mib.assign(ctx.rank == 0 ? r.ranks : 0, 0.0);
  if (!write)
    r.verify_note = !v.checkable() ? "not checked: the program's own values"
                    : v.tolerance(ctx) != 0
                        ? "not checked: a quantised file holds other values than those written"
                        : "";
  return r;
}

// --trace: the esmio variant's last write, as esmio's trace report and esmio-report's page. The
// report tool is looked for next to this program (the build tree's wrapper, or the installed
// bin/), then on PATH; without it the trace alone is written and a note says so.
void write_trace_and_report(Context &ctx) {
  const std::string base = ctx.opt->trace + "/esmio-bench-" + ctx.work->case_name;
  const std::string trace = base + "-trace.json", page = base + "-report.html";
  check_esmio(esmio_trace_write(ctx.io, trace.c_str()), "esmio_trace_write " + trace);
  if (ctx.rank != 0) return;
  char self[4096] = {0};
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string tool = "esmio-report";
  if (n > 0) {
    std::string dir(self, static_cast<std::size_t>(n));
    dir = dir.substr(0, dir.find_last_of('/'));
    if (::access((dir + "/esmio-report").c_str(), X_OK) == 0) tool = dir + "/esmio-report";
  }
  auto quoted = [](const std::string &s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  const std::string command =
      quoted(tool) + " " + quoted(trace) + " -o " + quoted(page) + " >/dev/null";
  if (std::system(command.c_str()) == 0)
    std::fprintf(stderr, "esmio-bench: trace %s, report %s\n", trace.c_str(), page.c_str());
  else
    std::fprintf(stderr,
                 "esmio-bench: trace %s written; esmio-report failed or is not installed (%s)\n",
                 trace.c_str(), tool.c_str());
}

// Times one write or read of variant v into *r (rank 0). Returns false if the variant failed.
bool measure(Context &ctx, Variant &v, const std::string &path, bool write, Result *r) {
  const bool durable = ctx.opt->durability == Durability::durable;
  ctx.phases.clear();
  reset_trace(v.trace_instance(ctx));
  // Give freed heap back first, so that the baseline and the peak are this variant's, not
  // memory an earlier variant freed but the allocator kept.
  ::malloc_trim(0);
  const double baseline = current_rss_mib();
  reset_peak_rss();
  ctx.child_peak_rss_mib = 0;
  ctx.read_digest = 0;
  MPI_Barrier(ctx.comm);
  const double t0 = MPI_Wtime();
  std::string error = agreed(ctx, v.rank0_only(), [&] {
    if (write)
      v.write(ctx, path);
    else
      v.read(ctx, path);
  });
  const bool later = write && v.publishes_later(ctx);
  if (error.empty() && write && durable && !later) {
    // Every variant, raw included: the data is on disk before the clock stops. Each writer
    // rank syncs (one would do on one node; on a parallel file system each client must),
    // and rank 0 syncs the directory entry of the new file.
    const double tf = MPI_Wtime();
    error = agreed(ctx, v.rank0_only(), [&] {
      if (!fsync_file(path) || (ctx.rank == 0 && !fsync_parent_dir(path)))
        throw BenchError("fsync " + path + " failed");
    });
    ctx.add_phase("fsync", MPI_Wtime() - tf);
  }
  MPI_Barrier(ctx.comm);
  // The bench's own work inside the variant: the values made just before each variable is
  // written (Context::generate, the model's work) and the digest of each variable read
  // (Context::fold_read, the check). raw, writing a ready buffer and reading into one, does
  // neither. The clock leaves both out: less the smallest such time of any rank, so that no
  // rank is credited with more than the slowest one (on the critical path) spent.
  const double elapsed = MPI_Wtime() - t0;
  double own = 0.0, least = 0.0;
  for (const char *bench_work : {"generate", "check"}) {
    const auto it = ctx.phases.find(bench_work);
    if (it != ctx.phases.end()) own += it->second;
  }
  MPI_Allreduce(&own, &least, 1, MPI_DOUBLE, MPI_MIN, ctx.comm);
  const double seconds = elapsed - least;
  if (error.empty() && later) {
    // The staged copy goes on after close; it ends here, after the clock (durable: esmio
    // syncs the copy before it renames it into place).
    const double tp = MPI_Wtime();
    error = agreed(ctx, false, [&] { v.publish(ctx, path); });
    ctx.add_phase("copy_after_close", MPI_Wtime() - tp);
  }
  const double peak = std::max(peak_rss_mib(), ctx.child_peak_rss_mib);
  if (!error.empty()) {
    if (ctx.rank == 0) r->error = error;
    return false;
  }
  std::map<std::string, double> phases;
  std::vector<int64_t> histogram;
  if (v.traced()) collect_trace(ctx, v.trace_instance(ctx), write, &phases, &histogram);
  collect_bench_phases(ctx, &phases);
  const auto peaks = gather_doubles(ctx, peak), baselines = gather_doubles(ctx, baseline);
  if (ctx.rank == 0) {
    r->seconds.push_back(seconds);
    r->phases.push_back(phases);
    if (!histogram.empty()) r->request_histogram = histogram;
    for (std::size_t i = 0; i < r->peak_rss_mib.size() && i < peaks.size(); ++i) {
      r->peak_rss_mib[i] = std::max(r->peak_rss_mib[i], peaks[i]);
    }
    if (r->baseline_rss_mib.empty())
      r->baseline_rss_mib.assign(baselines.begin(),
                                 baselines.begin() + static_cast<long>(r->peak_rss_mib.size()));
  }
  return true;
}

}  // namespace

std::vector<Result> run_variants(Context &ctx,
                                 const std::vector<std::unique_ptr<Variant>> &variants) {
  const Options &opt = *ctx.opt;
  const bool reads = opt.read != ReadMode::none;
  std::vector<Result> writes, readbacks;
  for (const auto &v : variants) {
    writes.push_back(blank_result(ctx, *v, "write"));
    readbacks.push_back(blank_result(ctx, *v, "read"));
  }
  std::vector<bool> failed(variants.size(), false);
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const std::string error = agreed(ctx, false, [&] { variants[i]->prepare(ctx); });
    if (error.empty()) continue;
    failed[i] = true;
    if (ctx.rank == 0) writes[i].error = error;
  }
  for (int rep = 0; rep < opt.repeat; ++rep) {
    for (std::size_t i = 0; i < variants.size(); ++i) {
      if (failed[i]) continue;
      Variant &v = *variants[i];
      const std::string path =
          opt.dir + "/esmio-bench-" + ctx.work->case_name + "-" + v.name() + v.file_suffix();
      if (!measure(ctx, v, path, true, &writes[i])) {
        failed[i] = true;
        continue;
      }
      progress(ctx, rep, v, "write", ctx.rank == 0 ? writes[i].seconds.back() : 0);
      // Settle: no dirty pages of this file may be written back during the next measurement.
      if (ctx.rank == 0) fsync_file(path);
      if (rep == 0 && ctx.rank == 0) writes[i].file_bytes = file_disk_bytes(path);
      if (reads) {
        if (ctx.rank == 0) {
          if (opt.read == ReadMode::cold)
            drop_from_cache(path);
          else
            read_through(path);
          readbacks[i].residency.push_back(resident_fraction(path));
          readbacks[i].file_bytes = writes[i].file_bytes;
        }
        if (!measure(ctx, v, path, false, &readbacks[i])) {
          failed[i] = true;
        } else {
          progress(ctx, rep, v, "read", ctx.rank == 0 ? readbacks[i].seconds.back() : 0);
          // After the clock: every value read against the values written.
          if (v.checkable() && v.tolerance(ctx) == 0) {
            const int wrong = check_reads(ctx);
            if (ctx.rank == 0 && wrong > 0)
              readbacks[i].error = "the values read differ from those written on " +
                                   std::to_string(wrong) + " of " + std::to_string(ctx.size) +
                                   " ranks";
            else if (ctx.rank == 0 && rep == 0) {
              readbacks[i].verified = true;
              readbacks[i].verify_note = "every value read checked against the values written";
            }
            if (wrong > 0) failed[i] = true;
          }
        }
      }
      if (rep == opt.repeat - 1 && !opt.trace.empty() && v.name() == "esmio") {
        // The counters and spans still hold this write. A trace that cannot be written is
        // reported, not fatal: the measurements stand.
        const std::string error = agreed(ctx, false, [&] { write_trace_and_report(ctx); });
        if (!error.empty() && ctx.rank == 0)
          std::fprintf(stderr, "esmio-bench: --trace: %s\n", error.c_str());
      }
      if (rep == 0 && v.checkable()) {
        const Verification check = verify_file(ctx, path, v.fills_holes(), v.tolerance(ctx));
        if (ctx.rank == 0) {
          writes[i].verified = check.verified;
          writes[i].verify_note = check.note;
          writes[i].variables = check.vars;
        }
      } else if (rep == 0 && ctx.rank == 0) {
        writes[i].verify_note = v.name() == "raw" ? "not netCDF: the same number of bytes only"
                                                  : "not checked: the program's own values";
      }
      if (ctx.rank == 0 && !(opt.keep && rep == opt.repeat - 1)) ::unlink(path.c_str());
      MPI_Barrier(ctx.comm);
    }
  }
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const std::string error = agreed(ctx, false, [&] { variants[i]->release(ctx); });
    if (!error.empty() && ctx.rank == 0) {
      std::fprintf(stderr, "esmio-bench: %s: %s\n", variants[i]->name().c_str(), error.c_str());
      if (writes[i].error.empty()) writes[i].error = error;
    }
  }
  std::vector<Result> out;
  if (ctx.rank != 0) return out;
  for (auto &r : writes) out.push_back(std::move(r));
  if (reads)
    for (auto &r : readbacks) out.push_back(std::move(r));
  return out;
}

}  // namespace esmio_bench
