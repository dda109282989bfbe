#include "plan_case.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "aggregate/cache_bound.hpp"
#include "aggregate/cache_spec.hpp"
#include "aggregate/record_dealing.hpp"
#include "bench_json.hpp"
#include "decomp/box_partition.hpp"
#include "decomp/io_layout.hpp"
#include "decomp/plan.hpp"
#include "synthetic_maps.hpp"

namespace esmio_bench {
namespace {

using esmio::Run;
using esmio::Status;
namespace decomp = esmio::decomp;
namespace aggregate = esmio::aggregate;
namespace rearrange = esmio::rearrange;

constexpr int64_t kFloatBytes = 4;
// A storage request below this is small enough that its per-call cost shows (the goal: none).
constexpr int64_t kSmallRequest = int64_t(64) << 10;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double peak_rss_mib_now() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: KiB
}

// One decomposition of the case: `levels` copies of the horizontal map, record shape dims.
struct Grid {
  std::string name;
  std::vector<int64_t> dims;
  int levels;
};

struct VarGroup {
  std::string prefix;
  int count;
  int grid;
};

struct PlanCase {
  std::string name, description, grid_text;
  std::unique_ptr<HorizontalMap> map;
  std::vector<Grid> grids;
  std::vector<VarGroup> vars;  // in definition order: the order of the variables in a record
};

int default_ranks(const std::string &name) { return name == "e3sm-i-prod" ? 1344 : 21600; }

bool make_case(const std::string &name, int nranks, PlanCase *c, std::string *why) {
  c->name = name;
  if (name == "e3sm-f-ne120") {
    c->map = make_cubed_sphere_map(120, nranks);
    const int64_t ncol = c->map->points();
    c->grids = {{"ncol", {ncol}, 1}, {"lev x ncol", {72, ncol}, 72}};
    c->vars = {{"F2D_", 321, 0}, {"F3D_", 63, 1}};
    c->description =
        "E3SM F case at ne120: 321 2-D (ncol) + 63 3-D (lev x ncol) float record "
        "variables";
    c->grid_text = "ncol = " + std::to_string(ncol) + " columns, lev = 72";
    return true;
  }
  if (name == "e3sm-i-prod") {
    c->map = make_land_map(360, 720, nranks, 2);
    c->grids = {{"lat x lon", {360, 720}, 1},
                {"levdcmp x lat x lon", {15, 360, 720}, 15},
                {"levgrnd x lat x lon", {15, 360, 720}, 15},
                {"levlak x lat x lon", {10, 360, 720}, 10},
                {"ltype x lat x lon", {9, 360, 720}, 9},
                {"natpft x lat x lon", {17, 360, 720}, 17}};
    c->vars = {{"I2D_", 460, 0}, {"IDCMP_", 56, 1}, {"IGRND_", 13, 2},
               {"ILAK_", 2, 3},  {"ILTYPE_", 1, 4}, {"IPFT_", 1, 5}};
    c->description =
        "E3SM I case: 460 2-D (lat,lon) + 56 (levdcmp 15) + 13 (levgrnd 15) + 2 "
        "(levlak 10) + 1 (ltype 9) + 1 (natpft 17) float record variables";
    c->grid_text = "lat 360 x lon 720 = 259200 cells";
    return true;
  }
  *why = "unknown plan case '" + name + "' (e3sm-f-ne120, e3sm-i-prod)";
  return false;
}

// What one task of a grid's partition receives of each record: what the cache's bound and the
// flush's placement need, kept after the task's recv plan itself is dropped.
struct TaskShare {
  int64_t count = 0;         // elements received
  int64_t buffer = 0;        // the task's box range
  int64_t longest_hole = 0;  // longest stretch it fills with the fill value
  std::vector<Run> extents;  // record offsets it writes, data and holes, merged, ascending
};

struct GridPlan {
  int64_t global_count = 0;
  // units, groups and the reductions of rearrange::build_plan over the ranks (max_rank_*),
  // as the write cache's rules take them.
  rearrange::Plan figures;
  int64_t map_runs = 0, runs_sent = 0;
  std::vector<TaskShare> shares;  // per partition task (group 0; every group gets the same)
};

struct Phases {
  double maps = 0, send = 0, recv = 0, deal = 0;
};

// The whole planning protocol of rearrange::build_plan (box layout) with the exchange done in
// memory: the partition over the record's units, each rank's send plan towards group 0's
// tasks, and each task's recv plan from the runs the ranks sent it. A rank's map and send plan
// are dropped once its runs are appended to its tasks' lists; a task's lists once its recv
// plan is summarised.
bool plan_grid(const HorizontalMap &map, const Grid &grid, const decomp::IoLayout &layout,
               const std::vector<int> &task_of_rank, Phases *phases, GridPlan *plan,
               std::string *why) {
  const int ntasks = layout.ntasks();
  const int nranks = map.nranks();
  plan->figures.units = decomp::record_units(grid.dims, ntasks);
  plan->figures.groups = ntasks / plan->figures.units;
  const decomp::BoxPartition partition(grid.dims, plan->figures.units);
  struct Source {
    int rank;
    int64_t first, nruns;
  };
  std::vector<std::vector<Run>> runs(static_cast<std::size_t>(plan->figures.units));
  std::vector<std::vector<Source>> sources(static_cast<std::size_t>(plan->figures.units));
  std::vector<int64_t> task_send(static_cast<std::size_t>(ntasks), 0);
  int64_t max_send = 0;
  std::vector<decomp::MapRun> horizontal;
  decomp::LocalMap local;
  decomp::SendPlan send;
  decomp::SentOffsets sent;
  double t0 = now();
  for (int r = 0; r < nranks; ++r) {
    map.rank_runs(r, &horizontal);
    layered_map(horizontal, grid.levels, map.points(), &local);
    const double t1 = now();
    phases->maps += t1 - t0;
    decomp::build_send_plan(local, layout, &partition, r, &send, &sent);
    for (std::size_t k = 0; k < send.peers.size(); ++k) {
      const int t = send.tasks[k];
      const int64_t first = k ? sent.peer_ends[k - 1] : 0;
      std::vector<Run> &to = runs[static_cast<std::size_t>(t)];
      sources[static_cast<std::size_t>(t)].push_back(
          Source{r, static_cast<int64_t>(to.size()), sent.peer_ends[k] - first});
      to.insert(to.end(), sent.runs.begin() + first, sent.runs.begin() + sent.peer_ends[k]);
    }
    plan->global_count += send.count;
    plan->map_runs += static_cast<int64_t>(local.runs.size());
    plan->runs_sent += static_cast<int64_t>(sent.runs.size());
    max_send = std::max(max_send, send.count);
    if (task_of_rank[static_cast<std::size_t>(r)] >= 0)
      task_send[static_cast<std::size_t>(task_of_rank[static_cast<std::size_t>(r)])] = send.count;
    t0 = now();
    phases->send += t0 - t1;
  }
  plan->shares.assign(static_cast<std::size_t>(plan->figures.units), TaskShare{});
  decomp::RecvPlan recv;
  std::vector<Run> holes;
  std::vector<decomp::Incoming> incoming;
  for (int t = 0; t < plan->figures.units; ++t) {
    std::vector<Run> &in_runs = runs[static_cast<std::size_t>(t)];
    incoming.clear();
    for (const Source &s : sources[static_cast<std::size_t>(t)])
      incoming.push_back(decomp::Incoming{s.rank, in_runs.data() + s.first, s.nruns});
    const Status status = decomp::build_recv_plan_box(partition, t, incoming, &recv, &holes);
    if (!status.is_ok()) {
      *why = grid.name + ": " + status.message();
      return false;
    }
    TaskShare &share = plan->shares[static_cast<std::size_t>(t)];
    share.count = recv.count;
    share.buffer = recv.buffer_size;
    // The flush hands the backend the data stretches and the holes the write fills: together
    // they are what this task writes of the record.
    std::vector<Run> written;
    for (const decomp::Extent &e : recv.data_extents) written.push_back(Run{e.offset, e.length});
    for (const decomp::Extent &e : recv.fill_extents) {
      written.push_back(Run{e.offset, e.length});
      share.longest_hole = std::max(share.longest_hole, e.length);
    }
    std::sort(written.begin(), written.end(),
              [](const Run &a, const Run &b) { return a.begin < b.begin; });
    for (const Run &w : written) esmio::append_run(&share.extents, w);
    std::vector<Run>().swap(in_runs);
    std::vector<Source>().swap(sources[static_cast<std::size_t>(t)]);
  }
  phases->recv += now() - t0;
  // rearrange::build_plan's reductions: a task receives as partition task (task % units).
  plan->figures.max_rank_elements = max_send;
  plan->figures.max_rank_dense = max_send;
  plan->figures.max_rank_sent = max_send;
  for (int t = 0; t < ntasks; ++t) {
    const TaskShare &share = plan->shares[static_cast<std::size_t>(t % plan->figures.units)];
    const int64_t own = task_send[static_cast<std::size_t>(t)];
    plan->figures.max_rank_elements =
        std::max(plan->figures.max_rank_elements, own + 2 * share.count);
    plan->figures.max_rank_hole = std::max(plan->figures.max_rank_hole, share.longest_hole);
    plan->figures.max_rank_dense =
        std::max(plan->figures.max_rank_dense, own + share.count + share.buffer);
  }
  return true;
}

// When the write cache flushes, and what each I/O task then writes.
struct FlushRule {
  std::string name, text;
  bool whole_record = false;  // one flush per record (the sync after it), whatever the size
  aggregate::CacheSpec spec;
};

struct TaskTotals {
  int64_t requests = 0, bytes = 0;
  int64_t flushes = 0;  // flushes in which the task writes
};

struct Schedule {
  FlushRule rule;
  int64_t flushes = 0;
  int64_t least_writes = 0, most_writes = 0;  // variable records per flush
  std::vector<int64_t> writers;               // tasks that write, per flush
  std::vector<TaskTotals> tasks;
};

// The writes of `records` records, one write_darray per variable record in definition order,
// through the write cache as datapath/write.cpp drives it, with the cache's own rules
// (aggregate::CacheBound with dense slabs, as for the PnetCDF backend's direct path; every
// write is its record's first and fills its holes; a write that would pass the size flushes
// what is pending first; a write that passes it, or one that goes_out_at_once, flushes at
// once), and a sync after each record. Each flush deals the records that groups take whole
// (aggregate::RecordDealer, as the cache does) and places every task's stretches at their CDF-5
// offsets:
// records one after another, the variables of a record in definition order. A task's storage
// requests in a flush are its maximal runs of contiguous file bytes.
void simulate_flushes(const PlanCase &c, const std::vector<GridPlan> &plans, int ntasks,
                      int records, Schedule *out) {
  std::vector<int> grid_of;
  for (const VarGroup &g : c.vars) grid_of.insert(grid_of.end(), g.count, g.grid);
  std::vector<int64_t> var_offset, var_bytes;
  int64_t record_bytes = 0;
  for (int grid : grid_of) {
    var_offset.push_back(record_bytes);
    var_bytes.push_back(decomp::shape_size(c.grids[static_cast<std::size_t>(grid)].dims) *
                        kFloatBytes);
    record_bytes += var_bytes.back();
  }
  out->tasks.assign(static_cast<std::size_t>(ntasks), TaskTotals{});
  aggregate::RecordDealer dealer;
  // PnetCDF's direct path takes extents: a hole-filling write may be placed dense.
  aggregate::CacheBound bound;
  bound.set_dense(true);
  struct Pending {
    int var;
    int64_t record;
  };
  std::vector<Pending> pending;
  std::vector<int64_t> end(static_cast<std::size_t>(ntasks)), requests(end.size()),
      bytes(end.size());
  auto place = [&](int task, const TaskShare &share, int64_t base) {
    const std::size_t t = static_cast<std::size_t>(task);
    for (const Run &e : share.extents) {
      const int64_t at = base + e.begin * kFloatBytes, n = e.length * kFloatBytes;
      if (at != end[t]) ++requests[t];
      end[t] = at + n;
      bytes[t] += n;
    }
  };
  auto flush = [&] {
    if (pending.empty()) return;
    std::vector<double> loads(static_cast<std::size_t>(ntasks), 0.0);
    std::vector<aggregate::DealtRecord> dealt_records;
    for (const Pending &p : pending) {
      const GridPlan &plan = plans[static_cast<std::size_t>(grid_of[p.var])];
      const int64_t n = var_bytes[static_cast<std::size_t>(p.var)];
      if (plan.figures.groups == 1)
        for (double &l : loads) l += static_cast<double>(n) / ntasks;
      else
        dealt_records.push_back(aggregate::DealtRecord{n, plan.figures.units});
    }
    std::vector<int> groups;
    if (!dealt_records.empty()) groups = dealer.deal(dealt_records, std::move(loads));
    std::fill(end.begin(), end.end(), -1);
    std::fill(requests.begin(), requests.end(), 0);
    std::fill(bytes.begin(), bytes.end(), 0);
    std::size_t next_group = 0;
    for (const Pending &p : pending) {
      const GridPlan &plan = plans[static_cast<std::size_t>(grid_of[p.var])];
      const int64_t base = p.record * record_bytes + var_offset[static_cast<std::size_t>(p.var)];
      if (plan.figures.groups == 1) {
        for (int t = 0; t < ntasks; ++t) place(t, plan.shares[static_cast<std::size_t>(t)], base);
      } else {
        const int g = groups[next_group++];
        for (int j = 0; j < plan.figures.units; ++j)
          place(g * plan.figures.units + j, plan.shares[static_cast<std::size_t>(j)], base);
      }
    }
    int64_t writing = 0;
    for (std::size_t t = 0; t < end.size(); ++t) {
      if (requests[t] == 0) continue;
      ++writing;
      out->tasks[t].requests += requests[t];
      out->tasks[t].bytes += bytes[t];
      ++out->tasks[t].flushes;
    }
    out->writers.push_back(writing);
    const int64_t writes = static_cast<int64_t>(pending.size());
    out->least_writes = out->flushes ? std::min(out->least_writes, writes) : writes;
    out->most_writes = std::max(out->most_writes, writes);
    ++out->flushes;
    pending.clear();
    bound.clear();
  };
  const aggregate::CacheSpec &spec = out->rule.spec;
  for (int64_t record = 0; record < records; ++record) {
    for (int v = 0; v < static_cast<int>(grid_of.size()); ++v) {
      const rearrange::Plan &figures =
          plans[static_cast<std::size_t>(grid_of[static_cast<std::size_t>(v)])].figures;
      if (!out->rule.whole_record && !pending.empty() &&
          bound.with(figures, kFloatBytes, true) > spec.size)
        flush();
      pending.push_back(Pending{v, record});
      bound.add(figures, kFloatBytes, true);
      const bool large = aggregate::goes_out_at_once(figures, kFloatBytes, spec.direct);
      if (!out->rule.whole_record &&
          (spec.flush == aggregate::FlushPolicy::write || bound.bytes() > spec.size || large))
        flush();
    }
    flush();  // the sync that ends the record
  }
}

template <typename T>
Json spread(std::vector<T> values) {
  Json out = Json::object();
  if (values.empty()) return out;
  std::sort(values.begin(), values.end());
  out["min"] = values.front();
  out["median"] = values[values.size() / 2];
  out["max"] = values.back();
  return out;
}

std::string mib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1 << 20));
  return text;
}

std::string kib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f KiB", bytes / 1024);
  return text;
}

// The schedule's figures over the tasks that write (idle ones are counted apart), as JSON and
// printed.
Json report_schedule(const Schedule &s, const std::vector<int> &io_ranks, int records,
                     int64_t record_bytes) {
  Json tasks = Json::array();
  std::vector<double> per_flush, mean_bytes, flushes_in;
  int64_t total = 0, idle = 0, small = 0;
  for (std::size_t t = 0; t < s.tasks.size(); ++t) {
    const TaskTotals &x = s.tasks[t];
    total += x.bytes;
    Json task = {{"task", t},
                 {"rank", io_ranks[t]},
                 {"flushes", x.flushes},
                 {"requests", x.requests},
                 {"bytes", x.bytes}};
    if (x.requests == 0) {
      ++idle;
      task["requests_per_flush"] = 0;
      task["mean_request_bytes"] = nullptr;
    } else {
      const double rpf = static_cast<double>(x.requests) / static_cast<double>(x.flushes);
      const double mean = static_cast<double>(x.bytes) / static_cast<double>(x.requests);
      per_flush.push_back(rpf);
      flushes_in.push_back(static_cast<double>(x.flushes) / records);
      mean_bytes.push_back(mean);
      if (mean < static_cast<double>(kSmallRequest)) ++small;
      task["requests_per_flush"] = rpf;
      task["mean_request_bytes"] = mean;
    }
    tasks.push_back(task);
  }
  Json out = {{"name", s.rule.name},
              {"rule", s.rule.text},
              {"flushes", s.flushes},
              {"flushes_per_record", static_cast<double>(s.flushes) / records},
              {"writes_per_flush", {{"min", s.least_writes}, {"max", s.most_writes}}},
              {"bytes", total},
              {"bytes_per_record", static_cast<double>(total) / records},
              {"record_bytes", record_bytes},
              {"active_tasks", static_cast<int64_t>(s.tasks.size()) - idle},
              {"idle_tasks", idle},
              {"tasks_writing_per_flush", spread(s.writers)},
              {"flushes_written_per_record", spread(flushes_in)},
              {"requests_per_flush", spread(per_flush)},
              {"mean_request_bytes", spread(mean_bytes)},
              {"tasks_below_64KiB", small},
              {"any_below_64KiB", small > 0},
              {"tasks", tasks}};
  std::printf("  flushes '%s': %s\n", s.rule.name.c_str(), s.rule.text.c_str());
  std::printf(
      "    %lld flush(es) per record (%lld..%lld variable records each); %lld of %zu "
      "tasks write, %lld idle; bytes written per record %.0f (the record: %lld)\n",
      static_cast<long long>(s.flushes / records), static_cast<long long>(s.least_writes),
      static_cast<long long>(s.most_writes),
      static_cast<long long>(s.tasks.size()) - static_cast<long long>(idle), s.tasks.size(),
      static_cast<long long>(idle), static_cast<double>(total) / records,
      static_cast<long long>(record_bytes));
  if (!per_flush.empty()) {
    std::sort(per_flush.begin(), per_flush.end());
    std::sort(mean_bytes.begin(), mean_bytes.end());
    std::sort(flushes_in.begin(), flushes_in.end());
    std::vector<int64_t> writers = s.writers;
    std::sort(writers.begin(), writers.end());
    std::printf(
        "    tasks writing in a flush: min %lld median %lld max %lld; flushes a task writes "
        "in, per record: min %.1f median %.1f max %.1f\n",
        static_cast<long long>(writers.front()),
        static_cast<long long>(writers[writers.size() / 2]), static_cast<long long>(writers.back()),
        flushes_in.front(), flushes_in[flushes_in.size() / 2], flushes_in.back());
    std::printf(
        "    storage requests per task per flush (flushes it writes in): min %.2f median "
        "%.2f max %.2f\n",
        per_flush.front(), per_flush[per_flush.size() / 2], per_flush.back());
    std::printf(
        "    mean request size per task: min %s median %s max %s; tasks below 64 KiB: "
        "%lld\n",
        kib(mean_bytes.front()).c_str(), kib(mean_bytes[mean_bytes.size() / 2]).c_str(),
        kib(mean_bytes.back()).c_str(), static_cast<long long>(small));
  }
  return out;
}

}  // namespace

int run_plan(const Options &opt) {
  const double start = now();
  const int nranks = opt.ranks > 0 ? opt.ranks : default_ranks(opt.plan_case);
  const int per_node = std::min(opt.ranks_per_node, nranks);
  const int nodes = (nranks + opt.ranks_per_node - 1) / opt.ranks_per_node;
  const int records = opt.records > 0 ? opt.records : 1;
  PlanCase c;
  std::string why;
  if (opt.plan_case.empty()) why = "plan needs a case (e3sm-f-ne120, e3sm-i-prod)";
  Phases phases;
  const double m0 = now();
  if (why.empty()) make_case(opt.plan_case, nranks, &c, &why);
  phases.maps += now() - m0;
  // The I/O tasks: esmio's automatic rule, or the number given spread evenly over the ranks
  // (every (P / N)-th rank, as the automatic rule places its own).
  decomp::AutomaticIoTasks chosen;
  if (why.empty()) {
    if (opt.iotasks > 0) {
      if (opt.iotasks > nranks)
        why = std::to_string(opt.iotasks) + " I/O tasks for " + std::to_string(nranks) + " ranks";
      chosen.ntasks = opt.iotasks;
      chosen.stride = std::max(1, nranks / opt.iotasks);
      chosen.why = "num_iotasks=" + std::to_string(opt.iotasks) + ", one every " +
                   std::to_string(chosen.stride) + " ranks";
    } else {
      chosen = decomp::automatic_iotasks(nranks, nodes, per_node, per_node);
    }
  }
  decomp::IoLayout layout;
  if (why.empty()) {
    const Status made =
        decomp::IoLayout::make(nranks, chosen.ntasks, chosen.stride, 0, "box", &layout);
    if (!made.is_ok()) why = made.message();
  }
  FlushRule cache_rule{"cache", "", false, {}};
  if (why.empty() && !opt.cache.empty()) {
    const Status parsed = aggregate::parse_cache_spec(opt.cache, "--cache", &cache_rule.spec);
    if (!parsed.is_ok()) why = parsed.message();
  }
  if (!why.empty()) {
    std::fprintf(stderr, "esmio-bench plan: %s\n", why.c_str());
    return 2;
  }
  const int ntasks = layout.ntasks();
  std::vector<int> task_of_rank(static_cast<std::size_t>(nranks), -1);
  for (int t = 0; t < ntasks; ++t) task_of_rank[static_cast<std::size_t>(layout.io_rank(t))] = t;

  std::vector<GridPlan> plans(c.grids.size());
  for (std::size_t g = 0; g < c.grids.size(); ++g)
    if (!plan_grid(*c.map, c.grids[g], layout, task_of_rank, &phases, &plans[g], &why)) {
      std::fprintf(stderr, "esmio-bench plan: %s\n", why.c_str());
      return 1;
    }

  cache_rule.text = "esmio's write cache (" +
                    (opt.cache.empty() ? std::string("its default spec") : "--cache " + opt.cache) +
                    ": size " + std::to_string(cache_rule.spec.size) + " bytes, direct " +
                    std::to_string(cache_rule.spec.direct) +
                    " bytes; PnetCDF backend, direct_write) and a sync after each record";
  const FlushRule record_rule{
      "record", "one flush per record: all its variables, then a sync", true, {}};
  std::vector<Schedule> schedules(2);
  schedules[0].rule = cache_rule;
  schedules[1].rule = record_rule;
  const double d0 = now();
  for (Schedule &s : schedules) simulate_flushes(c, plans, ntasks, records, &s);
  phases.deal += now() - d0;
  const double total = now() - start;
  const double peak = peak_rss_mib_now();

  int64_t record_bytes = 0;
  int nvars = 0;
  for (const VarGroup &v : c.vars) {
    record_bytes +=
        v.count * decomp::shape_size(c.grids[static_cast<std::size_t>(v.grid)].dims) * kFloatBytes;
    nvars += v.count;
  }
  std::printf("esmio-bench plan %s: %s\n", c.name.c_str(), c.description.c_str());
  std::printf("  grid: %s; %lld of %lld points held by ranks (the rest are holes)\n",
              c.grid_text.c_str(), static_cast<long long>(c.map->covered()),
              static_cast<long long>(c.map->points()));
  std::printf("  decomposition: %s\n", c.map->description().c_str());
  std::printf("  %d ranks, %d node(s) of up to %d ranks; I/O tasks: %d (%s)\n", nranks, nodes,
              opt.ranks_per_node, ntasks, chosen.why.c_str());
  std::printf("  record: %d variables, %lld bytes (%s); %d record(s) simulated\n", nvars,
              static_cast<long long>(record_bytes), mib(static_cast<double>(record_bytes)).c_str(),
              records);
  Json grids = Json::array();
  for (std::size_t g = 0; g < c.grids.size(); ++g) {
    const GridPlan &p = plans[g];
    std::vector<int64_t> counts;
    for (const TaskShare &s : p.shares) counts.push_back(s.count);
    std::printf(
        "  plan %-20s split over %d task(s) (%d group(s) take whole records); "
        "map runs %lld, runs sent %lld; max_rank_elements %lld, max_rank_hole %lld, "
        "max_rank_dense %lld\n",
        c.grids[g].name.c_str(), p.figures.units, p.figures.groups,
        static_cast<long long>(p.map_runs), static_cast<long long>(p.runs_sent),
        static_cast<long long>(p.figures.max_rank_elements),
        static_cast<long long>(p.figures.max_rank_hole),
        static_cast<long long>(p.figures.max_rank_dense));
    grids.push_back({{"grid", c.grids[g].name},
                     {"dims", c.grids[g].dims},
                     {"units", p.figures.units},
                     {"groups", p.figures.groups},
                     {"global_count", p.global_count},
                     {"map_runs", p.map_runs},
                     {"runs_sent", p.runs_sent},
                     {"received_per_task", spread(counts)},
                     {"max_rank_elements", p.figures.max_rank_elements},
                     {"max_rank_hole", p.figures.max_rank_hole},
                     {"max_rank_dense", p.figures.max_rank_dense}});
  }
  std::printf("  seconds: maps %.3f, send plans %.3f, recv plans %.3f, dealing %.3f; total %.3f\n",
              phases.maps, phases.send, phases.recv, phases.deal, total);
  std::printf("  peak RSS (getrusage ru_maxrss): %.1f MiB\n", peak);
  Json reported = Json::array();
  for (const Schedule &s : schedules)
    reported.push_back(report_schedule(s, layout.io_ranks(), records, record_bytes));

  if (!opt.json_path.empty()) {
    Json vars = Json::array();
    for (const VarGroup &v : c.vars)
      vars.push_back({{"prefix", v.prefix},
                      {"count", v.count},
                      {"grid", c.grids[static_cast<std::size_t>(v.grid)].name}});
    const Json doc = {
        {"command", opt.command_line},
        {"case", c.name},
        {"description", c.description},
        {"grid",
         {{"text", c.grid_text}, {"points", c.map->points()}, {"covered", c.map->covered()}}},
        {"decomposition", c.map->description()},
        {"ranks", nranks},
        {"ranks_per_node", opt.ranks_per_node},
        {"nodes", nodes},
        {"iotasks",
         {{"ntasks", ntasks},
          {"stride", chosen.stride},
          {"automatic", opt.iotasks == 0},
          {"why", chosen.why}}},
        {"records", records},
        {"record_bytes", record_bytes},
        {"variables", vars},
        {"plans", grids},
        {"seconds",
         {{"maps", phases.maps},
          {"send_plans", phases.send},
          {"recv_plans", phases.recv},
          {"dealing", phases.deal},
          {"total", total}}},
        {"peak_rss_mib", peak},
        {"schedules", reported}};
    if (!write_json_file(opt.json_path, doc)) {
      std::fprintf(stderr, "esmio-bench plan: cannot write %s\n", opt.json_path.c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace esmio_bench
