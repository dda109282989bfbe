// The longest path MPI-IO opens: Open MPI 4's ompio with its sharedfp component lockedfile takes
// 244 characters; another library, ROMIO, or lockedfile excluded: no limit known.
#include <gtest/gtest.h>

#include "common/mpiio_path_limit.hpp"

using esmio::mpiio_path_limit;
using esmio::MpiioSelection;

namespace {
const char *kOpenMpi4 = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4";
}

TEST(MpiioPathLimit, OpenMpi4OmpioWithLockedfile) {
  EXPECT_EQ(mpiio_path_limit({kOpenMpi4, "", ""}), 244);
  EXPECT_EQ(mpiio_path_limit({kOpenMpi4, "ompio", ""}), 244);
  EXPECT_EQ(mpiio_path_limit({kOpenMpi4, "ompio,romio321", "lockedfile,sm"}), 244);
  EXPECT_EQ(mpiio_path_limit({kOpenMpi4, "^romio321", "^sm"}), 244);
}

TEST(MpiioPathLimit, NoLimitWhereLockedfileOrOmpioIsNotChosen) {
  EXPECT_EQ(mpiio_path_limit({kOpenMpi4, "romio321", ""}), -1);
  EXPECT_EQ(mpiio_path_limit({kOpenMpi4, "^ompio", ""}), -1);
  EXPECT_EQ(mpiio_path_limit({kOpenMpi4, "", "^lockedfile"}), -1);
  EXPECT_EQ(mpiio_path_limit({kOpenMpi4, "", "sm,individual"}), -1);
  EXPECT_EQ(mpiio_path_limit({"MPICH Version: 4.1", "", ""}), -1);
  EXPECT_EQ(mpiio_path_limit({"Open MPI v5.0.3, package: Open MPI", "", ""}), -1);
  EXPECT_EQ(mpiio_path_limit({"", "", ""}), -1);
}
