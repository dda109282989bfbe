// Bands of a record for the netCDF-4 write (backend/netcdf4/band_regroup): which band each
// task holds, and the copies that move a linear range's boxes into the bands, without I/O.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "backend/netcdf4/band_regroup.hpp"
#include "decomp/box_partition.hpp"

namespace esmio::backend::netcdf4 {
namespace {

TEST(BandPlan, LevelsOfA3dFieldOverEightTasks) {
  // cam-fvd's 3-D record: chunks of one level and 114 rows (the box layout's units).
  BandPlan p;
  ASSERT_TRUE(plan_bands({1, 26, 361, 576}, {1, 1, 114, 576}, 1, 8, &p));
  EXPECT_EQ(p.dim, 1u);
  EXPECT_EQ(p.bounds, (std::vector<int64_t>{0, 3, 6, 9, 13, 16, 19, 22, 26}));
  const BandBox b = p.band({1, 26, 361, 576}, 1, 4, 3);
  EXPECT_EQ(b.start, (std::vector<int64_t>{4, 9, 0, 0}));
  EXPECT_EQ(b.count, (std::vector<int64_t>{1, 4, 361, 576}));
}

TEST(BandPlan, FewerChunksThanTasksLeavesSomeEmpty) {
  // A 2-D record of 4 chunks of rows over 8 tasks: the chunks go to every other task, whole.
  BandPlan p;
  ASSERT_TRUE(plan_bands({3, 361, 576}, {1, 114, 576}, 1, 8, &p));
  EXPECT_EQ(p.dim, 1u);
  EXPECT_EQ(p.bounds, (std::vector<int64_t>{0, 0, 114, 114, 228, 228, 342, 342, 361}));
  int64_t total = 0;
  for (int t = 0; t < 8; ++t) total += p.band({3, 361, 576}, 1, 2, t).elements();
  EXPECT_EQ(total, 361 * 576);
}

TEST(BandPlan, FirstDimensionWithEnoughChunksWins) {
  // 2 levels only: the rows (8 chunks of 10) are cut instead. Fixed-size (no record dimension).
  BandPlan p;
  ASSERT_TRUE(plan_bands({2, 80, 16}, {1, 10, 16}, 0, 4, &p));
  EXPECT_EQ(p.dim, 1u);
  EXPECT_EQ(p.bounds, (std::vector<int64_t>{0, 20, 40, 60, 80}));
}

TEST(BandPlan, NothingToSpread) {
  BandPlan p;
  EXPECT_FALSE(plan_bands({1, 4, 4}, {1, 4, 4}, 1, 4, &p));  // one chunk
  EXPECT_FALSE(plan_bands({1}, {1}, 1, 4, &p));              // a record of a scalar
  EXPECT_FALSE(plan_bands({2, 8}, {1, 2, 3}, 1, 4, &p));     // shapes that disagree
}

TEST(BandBoxes, IntersectionIsEmptyOrTheOverlap) {
  BandBox a{{0, 2, 0}, {1, 5, 10}}, b{{0, 4, 3}, {1, 10, 4}}, c{{1, 0, 0}, {1, 5, 5}}, out;
  ASSERT_TRUE(intersect(a, b, &out));
  EXPECT_EQ(out.start, (std::vector<int64_t>{0, 4, 3}));
  EXPECT_EQ(out.count, (std::vector<int64_t>{1, 3, 4}));
  EXPECT_FALSE(intersect(a, c, &out));  // another record
}

// The boxes of every task's linear range (as the box layout gives them) copied into the bands:
// each band then holds exactly the record's values there.
void check_regroup(const std::vector<int64_t> &record_shape, const std::vector<int64_t> &chunks,
                   int range_tasks, int band_tasks, bool several_boxes) {
  const std::size_t nd = record_shape.size() + 1;
  std::vector<int64_t> shape = {7};  // 7 records, record 5 written
  shape.insert(shape.end(), record_shape.begin(), record_shape.end());
  const int64_t record = 5, size = decomp::shape_size(record_shape);
  std::vector<float> values(static_cast<std::size_t>(size));
  std::iota(values.begin(), values.end(), 0.5f);

  BandPlan plan;
  ASSERT_TRUE(plan_bands(shape, chunks, 1, band_tasks, &plan));
  std::vector<std::vector<float>> bands(static_cast<std::size_t>(band_tasks));
  int64_t covered = 0;
  for (int t = 0; t < band_tasks; ++t) {
    const BandBox band = plan.band(shape, 1, record, t);
    bands[static_cast<std::size_t>(t)].assign(static_cast<std::size_t>(band.elements()), -1.0f);
    covered += band.elements();
    // Band edges on chunk boundaries (or the record's end): no chunk in two bands.
    EXPECT_TRUE(band.start[plan.dim] % chunks[plan.dim] == 0);
    const int64_t end = band.start[plan.dim] + band.count[plan.dim];
    EXPECT_TRUE(end % chunks[plan.dim] == 0 || end == shape[plan.dim]);
  }
  EXPECT_EQ(covered, size);

  const decomp::BoxPartition partition(record_shape, range_tasks);
  int pieces = 0;
  for (int r = 0; r < range_tasks; ++r) {
    for (const decomp::Slab &slab :
         decomp::linear_range_slabs(record_shape, partition.begin(r), partition.end(r))) {
      BandBox box{{record}, {1}};
      box.start.insert(box.start.end(), slab.start.begin(), slab.start.end());
      box.count.insert(box.count.end(), slab.count.begin(), slab.count.end());
      // The piece's own buffer, as the datapath hands it over: its values in C order.
      std::vector<float> piece(static_cast<std::size_t>(box.elements()));
      const BandBox whole{std::vector<int64_t>(nd, 0), shape};
      BandBox whole_record = whole;
      whole_record.start[0] = record;
      whole_record.count[0] = 1;
      copy_region(reinterpret_cast<const unsigned char *>(values.data()), whole_record,
                  reinterpret_cast<unsigned char *>(piece.data()), box, box, sizeof(float));
      ++pieces;
      for (int t = 0; t < band_tasks; ++t) {
        const BandBox band = plan.band(shape, 1, record, t);
        BandBox region;
        if (!intersect(box, band, &region)) continue;
        copy_region(reinterpret_cast<const unsigned char *>(piece.data()), box,
                    reinterpret_cast<unsigned char *>(bands[static_cast<std::size_t>(t)].data()),
                    band, region, sizeof(float));
      }
    }
  }
  // Some task had more than one box (3-D records): the case the regroup is for.
  if (several_boxes) {
    EXPECT_GT(pieces, range_tasks);
  }
  for (int t = 0; t < band_tasks; ++t) {
    const BandBox band = plan.band(shape, 1, record, t);
    if (band.elements() == 0) continue;
    BandBox whole_record{std::vector<int64_t>(nd, 0), shape};
    whole_record.start[0] = record;
    whole_record.count[0] = 1;
    std::vector<float> want(static_cast<std::size_t>(band.elements()));
    copy_region(reinterpret_cast<const unsigned char *>(values.data()), whole_record,
                reinterpret_cast<unsigned char *>(want.data()), band, band, sizeof(float));
    EXPECT_EQ(bands[static_cast<std::size_t>(t)], want) << "band of task " << t;
  }
}

TEST(BandRegroup, LinearRangesIntoLevelBands) {
  // Units of 328 rows of 200 (64K elements) in levels of 361: ranges end inside levels.
  check_regroup({26, 361, 200}, {1, 1, 328, 200}, 8, 8, true);
  check_regroup({5, 361, 200}, {1, 1, 328, 200}, 3, 4, true);
}

TEST(BandRegroup, LinearRangesIntoRowBands) {
  check_regroup({3, 400, 200}, {1, 1, 41, 200}, 4, 6, true);
  check_regroup({2000, 200}, {1, 328, 200}, 4, 3, false);  // whole rows: one box per range
}

}  // namespace
}  // namespace esmio::backend::netcdf4
