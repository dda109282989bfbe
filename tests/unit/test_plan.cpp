// Plans without MPI: N ranks simulated in one process. Each test moves real values through the
// plan (value = file offset) and checks where they land, so a wrong plan cannot pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "decomp/box_partition.hpp"
#include "decomp/decomposition.hpp"
#include "decomp/io_layout.hpp"
#include "decomp/plan.hpp"

using namespace esmio;
using namespace esmio::decomp;

namespace {

using Maps = std::vector<std::vector<int64_t>>;

struct Simulation {
  std::vector<SendPlan> send;
  std::vector<RecvPlan> recv;  // per task
  Status status;
};

// Runs the whole planning protocol as plan_builder does, with the exchange done in memory.
Simulation simulate(const std::vector<int64_t> &dims, const Maps &maps, const IoLayout &layout) {
  const int nranks = static_cast<int>(maps.size());
  const BoxPartition partition(dims, layout.ntasks());
  Simulation sim;
  std::vector<LocalMap> local(nranks);
  for (int r = 0; r < nranks; ++r)
    local[r] = compress_offsets(maps[r].data(), static_cast<int64_t>(maps[r].size()));
  auto deliver = [&](const BoxPartition *part, std::vector<SendPlan> *plans,
                     std::vector<SentOffsets> *sent) {
    plans->resize(nranks);
    sent->resize(nranks);
    for (int r = 0; r < nranks; ++r)
      build_send_plan(local[r], layout, part, r, &(*plans)[r], &(*sent)[r]);
  };
  auto incoming_for = [&](int task, const std::vector<SendPlan> &plans,
                          const std::vector<SentOffsets> &sent) {
    std::vector<Incoming> in;
    for (int r = 0; r < nranks; ++r)
      for (std::size_t k = 0; k < plans[r].peers.size(); ++k) {
        const int64_t first = k ? sent[r].peer_ends[k - 1] : 0;
        if (plans[r].peers[k].rank == layout.io_rank(task))
          in.push_back(Incoming{r, sent[r].runs.data() + first, sent[r].peer_ends[k] - first});
      }
    return in;
  };
  std::vector<SendPlan> box_send;
  std::vector<SentOffsets> box_sent;
  deliver(&partition, &box_send, &box_sent);
  std::vector<RecvPlan> box_recv(layout.ntasks());
  std::vector<std::vector<Run>> holes(layout.ntasks());
  for (int t = 0; t < layout.ntasks(); ++t) {
    Status s = build_recv_plan_box(partition, t, incoming_for(t, box_send, box_sent), &box_recv[t],
                                   &holes[t]);
    if (!s.is_ok() && sim.status.is_ok()) sim.status = s;
  }
  if (!sim.status.is_ok()) return sim;
  if (layout.kind() == LayoutKind::box) {
    sim.send = box_send;
    sim.recv = box_recv;
    return sim;
  }
  std::vector<SentOffsets> sent;
  deliver(nullptr, &sim.send, &sent);
  sim.recv.resize(layout.ntasks());
  for (int t = 0; t < layout.ntasks(); ++t) {
    Status s = build_recv_plan_subset(incoming_for(t, sim.send, sent), holes[t], &sim.recv[t]);
    if (!s.is_ok() && sim.status.is_ok()) sim.status = s;
  }
  return sim;
}

// Moves value = offset through the plan and checks every file element once: its value, or -1
// for a hole.
void check_moves(const std::vector<int64_t> &dims, const Maps &maps, const IoLayout &layout,
                 const Simulation &sim) {
  const int nranks = static_cast<int>(maps.size());
  const int64_t size = shape_size(dims);
  // packed[r][rank of task] = values rank r sends to that task
  std::map<std::pair<int, int>, std::vector<int64_t>> messages;
  for (int r = 0; r < nranks; ++r) {
    int64_t sent = 0;
    for (const Peer &p : sim.send[r].peers) {
      auto &msg = messages[{r, p.rank}];
      for (int64_t k = p.first_run; k < p.end_run; ++k)
        for (int64_t i = 0; i < sim.send[r].runs[k].length; ++i)
          msg.push_back(maps[r][sim.send[r].runs[k].begin + i]);
      ASSERT_EQ(static_cast<int64_t>(msg.size()), p.count);
      sent += p.count;
    }
    ASSERT_EQ(sent, sim.send[r].count);
  }
  std::vector<int> seen(size, 0);
  int64_t received_total = 0;
  for (int t = 0; t < layout.ntasks(); ++t) {
    const RecvPlan &plan = sim.recv[t];
    std::vector<int64_t> buffer(plan.buffer_size, -2);
    for (const Run &f : plan.fill_runs)
      for (int64_t i = 0; i < f.length; ++i) buffer[f.begin + i] = -1;
    for (const Peer &p : plan.peers) {
      auto it = messages.find({p.rank, layout.io_rank(t)});
      ASSERT_NE(it, messages.end()) << "task " << t << " expects data from rank " << p.rank;
      ASSERT_EQ(static_cast<int64_t>(it->second.size()), p.count);
      int64_t j = 0;
      for (int64_t k = p.first_run; k < p.end_run; ++k)
        for (int64_t i = 0; i < plan.runs[k].length; ++i)
          buffer[plan.runs[k].begin + i] = it->second[j++];
      messages.erase(it);
      received_total += p.count;
    }
    int64_t pos = 0;
    for (const Run &f : plan.file_runs)
      for (int64_t i = 0; i < f.length; ++i, ++pos) {
        const int64_t offset = f.begin + i;
        ASSERT_GE(offset, 0);
        ASSERT_LT(offset, size);
        ++seen[offset];
        ASSERT_TRUE(buffer[pos] == offset || buffer[pos] == -1)
            << "task " << t << " position " << pos << " holds " << buffer[pos] << ", not "
            << offset;
      }
    ASSERT_EQ(pos, plan.buffer_size);
    // The data extents are the received elements, nothing else: every position in them holds
    // its own offset's value, and together they count what arrived.
    int64_t in_extents = 0;
    for (const Extent &e : plan.data_extents)
      for (int64_t i = 0; i < e.length; ++i) {
        ASSERT_EQ(buffer[e.position + i], e.offset + i) << "task " << t;
        ++in_extents;
      }
    ASSERT_EQ(in_extents, plan.count) << "task " << t;
    int64_t in_holes = 0;
    for (const Extent &e : plan.fill_extents)
      for (int64_t i = 0; i < e.length; ++i) {
        ASSERT_EQ(buffer[e.position + i], -1) << "task " << t << " fill extent over data";
        ++in_holes;
      }
    ASSERT_EQ(in_extents + in_holes, plan.buffer_size) << "task " << t;
    // The packed buffer (data only) holds the same values at the packed extents.
    std::vector<int64_t> packed(plan.count, -2);
    ASSERT_EQ(plan.packed_runs.size(), plan.runs.size());
    for (std::size_t k = 0; k < plan.runs.size(); ++k)
      for (int64_t i = 0; i < plan.runs[k].length; ++i)
        packed.at(plan.packed_runs[k].begin + i) = buffer[plan.runs[k].begin + i];
    int64_t in_packed = 0;
    for (const Extent &e : plan.packed_extents)
      for (int64_t i = 0; i < e.length; ++i, ++in_packed)
        ASSERT_EQ(packed.at(e.position + i), e.offset + i) << "task " << t;
    ASSERT_EQ(in_packed, plan.count) << "task " << t;
  }
  EXPECT_TRUE(messages.empty()) << "sent data nobody received";
  int64_t expected = 0;
  for (const auto &m : maps)
    for (int64_t o : m) expected += o >= 0;
  EXPECT_EQ(received_total, expected);
  for (int64_t o = 0; o < size; ++o)
    ASSERT_EQ(seen[o], 1) << "offset " << o << " written " << seen[o] << " times";
}

// A random decomposition: a random subset of offsets (holes where others are left out), split
// into ranks of random sizes (some empty), with -1 entries sprinkled in.
Maps random_maps(std::mt19937 &rng, int64_t size, int nranks, double hole_fraction) {
  std::vector<int64_t> all(size);
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(static_cast<std::size_t>(size * (1.0 - hole_fraction)));
  std::vector<int64_t> cuts = {0, static_cast<int64_t>(all.size())};
  std::uniform_int_distribution<int64_t> pick(0, static_cast<int64_t>(all.size()));
  for (int r = 1; r < nranks; ++r) cuts.push_back(pick(rng));
  std::sort(cuts.begin(), cuts.end());
  Maps maps(nranks);
  std::bernoulli_distribution hole(0.05);
  for (int r = 0; r < nranks; ++r) {
    for (int64_t k = cuts[r]; k < cuts[r + 1]; ++k) {
      if (hole(rng)) maps[r].push_back(-1);
      maps[r].push_back(all[k]);
    }
    std::sort(maps[r].begin(), maps[r].end(), [&](int64_t a, int64_t b) {
      return (a * 7919) % 1013 < (b * 7919) % 1013;  // a scrambled but deterministic memory order
    });
  }
  return maps;
}

IoLayout layout_of(int nranks, int ntasks, const char *kind, int stride = 1) {
  IoLayout layout;
  Status s = IoLayout::make(nranks, ntasks, stride, 0, kind, &layout);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return layout;
}

std::vector<int64_t> block_offsets(const std::vector<int64_t> &dims,
                                   const std::vector<int64_t> &start,
                                   const std::vector<int64_t> &count, const std::vector<int> &order,
                                   Status *status) {
  LocalMap map;
  *status = block_map(dims, start, count, order, &map);
  std::vector<int64_t> offsets(map.nlocal);
  expand_offsets(map, offsets.data());
  return offsets;
}

}  // namespace

TEST(BoxPartition, EveryTaskGetsABalancedShare) {
  for (auto dims : std::vector<std::vector<int64_t>>{
           {26, 361, 576}, {361, 576}, {72, 866}, {866}, {5, 3}, {1, 1, 7}, {10, 0, 3}}) {
    for (int ntasks : {1, 2, 3, 4, 7, 16, 100}) {
      BoxPartition p(dims, ntasks);
      const int64_t size = shape_size(dims);
      ASSERT_EQ(p.begin(0), 0);
      ASSERT_EQ(p.end(ntasks - 1), size);
      int64_t smallest = INT64_MAX, largest = 0;
      for (int t = 0; t < ntasks; ++t) {
        ASSERT_LE(p.begin(t), p.end(t));
        smallest = std::min(smallest, p.end(t) - p.begin(t));
        largest = std::max(largest, p.end(t) - p.begin(t));
        if (p.size() / p.row_length() >= 2 * ntasks * p.quantum()) {
          ASSERT_GT(p.end(t), p.begin(t)) << "task " << t << " left idle";
        }
      }
      if (size > 0) {
        ASSERT_LE(largest - smallest, 2 * p.quantum() * p.row_length());
      }
      for (int64_t o = 0; o < size; o += 1 + size / 5000) {
        const int t = p.owner(o);
        ASSERT_GE(o, p.begin(t));
        ASSERT_LT(o, p.end(t));
      }
    }
  }
}

// Every chunk of unit_chunk()'s shape lies in one task's range, for any chunk size cap.
TEST(BoxPartition, ChunksAreNeverShared) {
  for (auto dims : std::vector<std::vector<int64_t>>{{26, 361, 576},
                                                     {361, 576},
                                                     {72, 866},
                                                     {866},
                                                     {3000000},
                                                     {50, 27, 36},
                                                     {5, 3},
                                                     {1, 1, 7},
                                                     {7, 1100, 13}}) {
    for (int ntasks : {1, 2, 3, 4, 7, 16}) {
      BoxPartition p(dims, ntasks);
      for (int64_t cap : {int64_t(1) << 20, int64_t(4096), int64_t(1)}) {
        const std::vector<int64_t> chunk = p.unit_chunk(cap);
        ASSERT_EQ(chunk.size(), dims.size());
        ASSERT_LE(shape_size(chunk), std::max<int64_t>(cap, p.quantum()));
        // Walk the chunk grid; the first and last element of every chunk (C order within the
        // chunk's box) have one owner, and so does every element in between along the range.
        std::vector<int64_t> grid(dims.size());
        for (std::size_t d = 0; d < dims.size(); ++d) grid[d] = (dims[d] + chunk[d] - 1) / chunk[d];
        const int64_t nchunks = shape_size(grid);
        for (int64_t c = 0; c < nchunks; c += 1 + nchunks / 3000) {
          std::vector<int64_t> lo(dims.size()), hi(dims.size());
          int64_t rest = c;
          for (std::size_t d = dims.size(); d-- > 0;) {
            lo[d] = rest % grid[d] * chunk[d];
            hi[d] = std::min(dims[d], lo[d] + chunk[d]) - 1;
            rest /= grid[d];
          }
          int64_t first = 0, last = 0;
          for (std::size_t d = 0; d < dims.size(); ++d) {
            first = first * dims[d] + lo[d];
            last = last * dims[d] + hi[d];
          }
          ASSERT_EQ(p.owner(first), p.owner(last))
              << "chunk " << c << " of " << nchunks << " shared, ntasks " << ntasks << " cap "
              << cap;
        }
      }
    }
  }
}

TEST(BoxPartition, SlowestDimensionWhenItSplitsWell) {
  BoxPartition p({26, 361, 576}, 2);
  EXPECT_EQ(p.row_length(), 361 * 576);  // whole levels: 13 each
  EXPECT_EQ(p.begin(1), 13 * 361 * 576);
}

TEST(BoxPartition, CountsBeyondTwoToThe31) {
  const std::vector<int64_t> dims = {100, 100000, 100000};  // 1e12 elements
  BoxPartition p(dims, 7);
  for (int t = 0; t < 7; ++t) {
    EXPECT_EQ(p.owner(p.begin(t)), t);
    EXPECT_EQ(p.owner(p.end(t) - 1), t);
  }
  EXPECT_EQ(p.end(6), int64_t(1000000000000));
}

TEST(LinearRangeSlabs, CoverExactlyTheRange) {
  std::mt19937 rng(3);
  for (auto dims : std::vector<std::vector<int64_t>>{{4, 5, 6}, {7}, {3, 1, 4, 2}, {2, 9}}) {
    const int64_t size = shape_size(dims);
    std::uniform_int_distribution<int64_t> pick(0, size);
    for (int trial = 0; trial < 300; ++trial) {
      int64_t a = pick(rng), b = pick(rng);
      if (a > b) std::swap(a, b);
      auto slabs = linear_range_slabs(dims, a, b);
      ASSERT_LE(slabs.size(), 2 * dims.size() - 1);
      std::vector<int64_t> covered;
      for (const Slab &s : slabs) {
        for (std::size_t d = 0; d < dims.size(); ++d) {
          ASSERT_GE(s.start[d], 0);
          ASSERT_GE(s.count[d], 1);
          ASSERT_LE(s.start[d] + s.count[d], dims[d]) << "slab leaves dimension " << d;
        }
        // enumerate the slab in C order
        std::vector<int64_t> idx(dims.size(), 0);
        int64_t n = shape_size(s.count);
        for (int64_t k = 0; k < n; ++k) {
          int64_t rem = k, off = 0;
          for (std::size_t d = dims.size(); d-- > 0;) {
            idx[d] = rem % s.count[d];
            rem /= s.count[d];
          }
          for (std::size_t d = 0; d < dims.size(); ++d) off = off * dims[d] + s.start[d] + idx[d];
          covered.push_back(off);
        }
      }
      std::vector<int64_t> want(b - a);
      std::iota(want.begin(), want.end(), a);
      ASSERT_EQ(covered, want) << "range " << a << ".." << b;
    }
  }
}

TEST(LinearRangeSlabs, WholeRowsAreOneSlab) {
  auto slabs = linear_range_slabs({26, 361, 576}, 13 * 361 * 576, 26 * 361 * 576);
  ASSERT_EQ(slabs.size(), 1u);
  EXPECT_EQ(slabs[0].start, (std::vector<int64_t>{13, 0, 0}));
  EXPECT_EQ(slabs[0].count, (std::vector<int64_t>{13, 361, 576}));
}

TEST(BlockOffsets, CamMemoryOrder) {
  // file (lev, lat, lon) = (3, 4, 5); the rank holds lat 1..2, all lev, lon 1..3, memory
  // [lat][lev][lon].
  Status s;
  const std::vector<int64_t> offsets =
      block_offsets({3, 4, 5}, {0, 1, 1}, {3, 2, 3}, {1, 0, 2}, &s);
  ASSERT_TRUE(s.is_ok());
  std::vector<int64_t> want;
  for (int lat = 1; lat < 3; ++lat)
    for (int lev = 0; lev < 3; ++lev)
      for (int lon = 1; lon < 4; ++lon) want.push_back((lev * 4 + lat) * 5 + lon);
  EXPECT_EQ(offsets, want);
}

TEST(BlockOffsets, TransposedMemoryHasSingleElementRuns) {
  // memory [lon][lat] of a file (lat, lon): the fastest memory dimension is strided in the file.
  LocalMap map;
  ASSERT_TRUE(block_map({4, 5}, {1, 0}, {2, 5}, {1, 0}, &map).is_ok());
  std::vector<int64_t> offsets(map.nlocal);
  expand_offsets(map, offsets.data());
  std::vector<int64_t> want;
  for (int lon = 0; lon < 5; ++lon)
    for (int lat = 1; lat < 3; ++lat) want.push_back(lat * 5 + lon);
  EXPECT_EQ(offsets, want);
}

TEST(BlockOffsets, RejectsBadInput) {
  Status s;
  block_offsets({3, 4}, {0, 3}, {1, 2}, {}, &s);
  EXPECT_EQ(s.code(), ESMIO_EDECOMP);
  block_offsets({3, 4}, {0, 0}, {1, 2}, {0, 0}, &s);
  EXPECT_EQ(s.code(), ESMIO_EINVAL);
  block_offsets({3, 4}, {0, 0}, {1, 2}, {1}, &s);
  EXPECT_EQ(s.code(), ESMIO_EINVAL);
  EXPECT_TRUE(block_offsets({3, 4}, {0, 0}, {0, 2}, {}, &s).empty());
  EXPECT_TRUE(s.is_ok());
}

TEST(LocalMapTest, CompressAndExpandRoundTrip) {
  const std::vector<int64_t> offsets = {5, 6, 7, -1, 8, 9, 3, 4, -1, -1, 0};
  const LocalMap map = compress_offsets(offsets.data(), static_cast<int64_t>(offsets.size()));
  EXPECT_EQ(map.runs.size(), 4u);  // 5..7 | 8..9 (memory gap) | 3..4 | 0
  EXPECT_EQ(map.count(), 8);
  std::vector<int64_t> back(map.nlocal);
  expand_offsets(map, back.data());
  EXPECT_EQ(back, offsets);
}

TEST(CheckOffsets, RangeErrorsNameRankAndElement) {
  const int64_t bad[] = {0, 5, -1, 12}, negative[] = {-2}, good[] = {0, 11, -1};
  Status s = check_offsets_in_range(bad, 4, 12, 3);
  ASSERT_EQ(s.code(), ESMIO_EDECOMP);
  EXPECT_NE(s.message().find("rank 3 element 3"), std::string::npos) << s.message();
  EXPECT_EQ(check_offsets_in_range(negative, 1, 12, 0).code(), ESMIO_EDECOMP);
  EXPECT_TRUE(check_offsets_in_range(good, 3, 12, 0).is_ok());
}

TEST(IoLayoutTest, PlacementAndErrors) {
  IoLayout l;
  ASSERT_TRUE(IoLayout::make(16, 4, 4, 1, "subset", &l).is_ok());
  EXPECT_EQ(l.io_ranks(), (std::vector<int>{1, 5, 9, 13}));
  EXPECT_EQ(l.task_of_rank(9), 2);
  EXPECT_EQ(l.task_of_rank(2), -1);
  for (int r = 0; r < 16; ++r) {
    const int t = l.serving_task(r);
    EXPECT_GE(r, l.group_begin(t));
    EXPECT_LT(r, l.group_end(t));
  }
  EXPECT_EQ(IoLayout::make(16, 5, 4, 0, "box", &l).code(), ESMIO_ESETTING);
  EXPECT_EQ(IoLayout::make(16, 2, 0, 0, "box", &l).code(), ESMIO_ESETTING);
  EXPECT_EQ(IoLayout::make(16, 2, 1, 16, "box", &l).code(), ESMIO_ESETTING);
  EXPECT_EQ(IoLayout::make(16, 2, 1, 0, "diagonal", &l).code(), ESMIO_EBADNAME);
  ASSERT_TRUE(IoLayout::make(6, 0, 2, 0, "box", &l).is_ok());
  EXPECT_EQ(l.ntasks(), 3);
}

TEST(Plan, RandomDecompositionsAllLayouts) {
  std::mt19937 rng(42);
  for (auto dims : std::vector<std::vector<int64_t>>{{6, 7, 5}, {50}, {3, 40}, {1, 1, 1}, {2, 3}}) {
    for (int nranks : {1, 2, 3, 4, 7}) {
      for (int ntasks : {1, 2, nranks}) {
        if (ntasks > nranks) continue;
        for (const char *kind : {"box", "subset"}) {
          for (double holes : {0.0, 0.3}) {
            const Maps maps = random_maps(rng, shape_size(dims), nranks, holes);
            const IoLayout layout = layout_of(nranks, ntasks, kind);
            const Simulation sim = simulate(dims, maps, layout);
            ASSERT_TRUE(sim.status.is_ok()) << sim.status.message();
            SCOPED_TRACE(std::string(kind) + " ranks " + std::to_string(nranks) + " tasks " +
                         std::to_string(ntasks));
            check_moves(dims, maps, layout, sim);
          }
        }
      }
    }
  }
}

TEST(Plan, MoreTasksThanRowsAndStridedTasks) {
  std::mt19937 rng(7);
  const std::vector<int64_t> dims = {3};  // 3 elements, 8 tasks: some tasks own nothing
  const Maps maps = random_maps(rng, 3, 8, 0.0);
  for (const char *kind : {"box", "subset"}) {
    const IoLayout layout = layout_of(8, 8, kind);
    const Simulation sim = simulate(dims, maps, layout);
    ASSERT_TRUE(sim.status.is_ok()) << sim.status.message();
    check_moves(dims, maps, layout, sim);
  }
  const Maps maps16 = random_maps(rng, 6 * 7 * 5, 16, 0.2);
  const IoLayout strided = layout_of(16, 4, "box", 4);
  const Simulation sim = simulate({6, 7, 5}, maps16, strided);
  ASSERT_TRUE(sim.status.is_ok());
  check_moves({6, 7, 5}, maps16, strided, sim);
}

TEST(Plan, BlockDecompositionMovesWholeRows) {
  // CAM: 4 ranks in latitude bands, memory [lat][lev][lon]; 2 box tasks.
  const std::vector<int64_t> dims = {4, 8, 16};
  Maps maps(4);
  for (int r = 0; r < 4; ++r) {
    Status s;
    maps[r] = block_offsets(dims, {0, 2 * r, 0}, {4, 2, 16}, {1, 0, 2}, &s);
    ASSERT_TRUE(s.is_ok());
  }
  const IoLayout layout = layout_of(4, 2, "box");
  const Simulation sim = simulate(dims, maps, layout);
  ASSERT_TRUE(sim.status.is_ok());
  check_moves(dims, maps, layout, sim);
  for (const SendPlan &p : sim.send)
    for (const esmio::Run &r : p.runs) EXPECT_EQ(r.length % 16, 0) << "rows of lon are split";
  for (const RecvPlan &p : sim.recv) EXPECT_TRUE(p.fill_runs.empty());
}

TEST(Plan, DuplicatesAcrossRanksAreFound) {
  const Maps maps = {{0, 1, 2}, {3, 2}};
  for (const char *kind : {"box", "subset"}) {
    const Simulation sim = simulate({5}, maps, layout_of(2, 2, kind));
    ASSERT_EQ(sim.status.code(), ESMIO_EDECOMP) << kind;
    EXPECT_NE(sim.status.message().find("offset 2 is given by both rank 0 and rank 1"),
              std::string::npos)
        << sim.status.message();
  }
}

TEST(Plan, DuplicatesOnOneRankAreFound) {
  const Maps maps = {{0, 4, 1, 4}, {2}};
  const Simulation sim = simulate({5}, maps, layout_of(2, 1, "box"));
  ASSERT_EQ(sim.status.code(), ESMIO_EDECOMP);
  EXPECT_NE(sim.status.message().find("offset 4 is given twice by rank 0"), std::string::npos)
      << sim.status.message();
}

TEST(Plan, AllHoles) {
  const Maps maps = {{-1, -1}, {}};
  for (const char *kind : {"box", "subset"}) {
    const IoLayout layout = layout_of(2, 2, kind);
    const Simulation sim = simulate({4}, maps, layout);
    ASSERT_TRUE(sim.status.is_ok());
    check_moves({4}, maps, layout, sim);
  }
}

TEST(Plan, DataExtentsSkipHolesAndFileGaps) {
  // Buffer = file offsets 10..14 then 20..22; holes at buffer positions 1..2 and 5.
  const std::vector<esmio::Run> file_runs = {{10, 5}, {20, 3}};
  const std::vector<esmio::Run> holes = {{1, 2}, {5, 1}};
  const std::vector<Extent> got = data_extents(file_runs, holes);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].offset, 10);  // position 0
  EXPECT_EQ(got[0].position, 0);
  EXPECT_EQ(got[0].length, 1);
  EXPECT_EQ(got[1].offset, 13);  // positions 3..4
  EXPECT_EQ(got[1].position, 3);
  EXPECT_EQ(got[1].length, 2);
  EXPECT_EQ(got[2].offset, 21);  // positions 6..7 (offset 20 is the hole at 5)
  EXPECT_EQ(got[2].position, 6);
  EXPECT_EQ(got[2].length, 2);
  EXPECT_TRUE(data_extents(file_runs, {{0, 8}}).empty());
  EXPECT_EQ(data_extents(file_runs, {}).size(), 2u);
}
