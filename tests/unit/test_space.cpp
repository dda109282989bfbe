// Disk-space reservation (backend/space): which errors are "no space" and how they are named,
// and that a reservation allocates blocks without changing the file's size. A quota cannot be
// set up on every kernel (this machine's has no CONFIG_QFMT_V2 and no tmpfs quotas), so the
// EDQUOT path is checked here, where fallocate's errno is classified.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "backend/space.hpp"
#include "esmio.h"
#include "gtest/gtest.h"

namespace space = esmio::backend::space;

TEST(Space, QuotaDiskFullAndFileSizeLimitAreNoSpace) {
  const struct {
    int err;
    const char *names;
  } cases[] = {{ENOSPC, "(disk full)"}, {EDQUOT, "(quota)"}, {EFBIG, "(file-size limit)"}};
  for (const auto &c : cases) {
    const esmio::Status s = space::failure(c.err, "pnetcdf", "put", "/x/out.nc", 4096);
    EXPECT_EQ(s.code(), ESMIO_ENOSPC) << c.names;
    EXPECT_NE(s.message().find(c.names), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("'/x/out.nc'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("4096 bytes"), std::string::npos) << s.message();
  }
}

TEST(Space, OtherErrorsAreIoErrors) {
  const esmio::Status s = space::failure(EIO, "netcdf4", "close", "/x/out.nc", 1);
  EXPECT_EQ(s.code(), ESMIO_EIO);
  EXPECT_NE(s.message().find("netcdf4: close on '/x/out.nc'"), std::string::npos) << s.message();
}

TEST(Space, ReservationKeepsTheSizeAndAllocatesBlocks) {
  char path[] = "/tmp/esmio_space_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  close(fd);
  {
    space::Reserver r;
    r.open(path);
    ASSERT_TRUE(r.is_open());
    ASSERT_EQ(r.reserve({space::Range{0, 1 << 20}}), 0);
    struct stat st;
    ASSERT_EQ(stat(path, &st), 0);
    EXPECT_EQ(st.st_size, 4096);
    if (r.supported()) {
      EXPECT_GE(st.st_blocks * 512, 1 << 20);  // blocks held for the data
    }
  }
  // Blocks past the end are given back at close; the size is still the file's own.
  struct stat st;
  ASSERT_EQ(stat(path, &st), 0);
  EXPECT_EQ(st.st_size, 4096);
  EXPECT_LT(st.st_blocks * 512, 1 << 20);
  unlink(path);
}

TEST(Space, DenseSpansAreReservedWholeSparseOnesPieceByPiece) {
  constexpr int64_t MiB = int64_t(1) << 20;
  // Written bytes fill the span: one reservation.
  EXPECT_TRUE(space::reserve_as_span(space::Range{4096, 4096 + 80 * MiB}, 80 * MiB));
  // Gaps of up to a quarter of the bytes written, plus 1 MiB.
  EXPECT_TRUE(space::reserve_as_span(space::Range{0, 100 * MiB + MiB}, 80 * MiB));
  EXPECT_FALSE(space::reserve_as_span(space::Range{0, 100 * MiB + MiB + 1}, 80 * MiB));
  // Small writes far apart (a record written far past the others): piece by piece.
  EXPECT_TRUE(space::reserve_as_span(space::Range{0, MiB}, 4096));
  EXPECT_FALSE(space::reserve_as_span(space::Range{0, 64 * MiB}, 2 * 4096));
  // Nothing written: nothing to reserve.
  EXPECT_FALSE(space::reserve_as_span(space::Range{0, 0}, 0));
}
