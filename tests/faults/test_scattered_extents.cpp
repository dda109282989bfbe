// The blocks esmio reserves before a write (backend/space.hpp) must not leave a file that many
// ranks wrote in small interleaved pieces as thousands of small extents scattered over the disk:
// ext4 then converts and writes every piece on its own at write-back, and fsync takes an order
// of magnitude longer than for the same bytes written without a reservation.
//
// Run as root (without arguments), the program mounts a 64 MB ext4 loop image itself and runs
// an E3SM F-case-like history file (2-D (time, ncol) and 3-D (time, lev, ncol) float fields,
// ncol 866, lev 72, columns dealt round-robin to 16 ranks: every rank writes a few KiB per level
// of every variable) under mpirun with a time limit, with esmio's own writes and through
// MPI-IO (direct_write false). Then, after an fsync, it reads the file's extent map (FIEMAP)
// and checks that
//   - the data lies in a few long extents: fewer than there are ranks, where ranks reserving
//     their own pieces give about one extent per piece (ranks x 3-D variables x records);
//   - no unwritten (reserved but never written) extent remains past the header's room, nor
//     past the end of the file.
// No timing: the extent map is what makes fsync slow. Not root, or no mkfs.ext4: prints why
// and exits 77 (ctest: skipped).
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <mpi.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "esmio.h"
#include "small_fs.hpp"

namespace {

constexpr int kRanks = 16;
constexpr int64_t kNcol = 866, kNlev = 72;
constexpr int kVars2d = 32, kVars3d = 16, kRecords = 3;  // 12 MB of float
constexpr long kFsMb = 64;
// What esmio reserves at the file's start: the header, its free room (header_pad) and 1 MiB.
// Bytes there that nothing writes may stay unwritten; the data lies past it.
constexpr int64_t kHeaderRoom = int64_t(2) << 20;

// ---- worker (one MPI run) ----------------------------------------------------------------

int worker(const std::string &path) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int failures = 0;
  const auto check = [&](const char *what, int rc) {
    if (rc == ESMIO_NOERR) return;
    ++failures;
    std::fprintf(stderr, "[rank %d] FAIL %s: %s\n", rank, what, esmio_last_error());
  };
  esmio_t io;
  if (esmio_init(MPI_COMM_WORLD, "", &io) != ESMIO_NOERR) MPI_Abort(MPI_COMM_WORLD, 2);
  // Unstructured columns dealt round-robin, every level of each: as E3SM's maps, no rank's
  // share of a level is contiguous in the file.
  std::vector<int64_t> cols;
  for (int64_t c = rank; c < kNcol; c += nranks) cols.push_back(c);
  std::vector<int64_t> offsets2d = cols, offsets3d;
  for (int64_t k = 0; k < kNlev; ++k)
    for (int64_t c : cols) offsets3d.push_back(k * kNcol + c);
  const int64_t shape2d[1] = {kNcol}, shape3d[2] = {kNlev, kNcol};
  esmio_decomp_t d2, d3;
  check("decomp 2-D", esmio_decomp_create(io, 1, shape2d, static_cast<int64_t>(offsets2d.size()),
                                          offsets2d.data(), &d2));
  check("decomp 3-D", esmio_decomp_create(io, 2, shape3d, static_cast<int64_t>(offsets3d.size()),
                                          offsets3d.data(), &d3));
  esmio_file_t f = nullptr;
  check("create", esmio_create(io, path.c_str(), "backend=pnetcdf", &f));
  if (f != nullptr) {
    int time = -1, lev = -1, ncol = -1;
    esmio_def_dim(f, "time", ESMIO_UNLIMITED, &time);
    esmio_def_dim(f, "lev", kNlev, &lev);
    esmio_def_dim(f, "ncol", kNcol, &ncol);
    std::vector<int> vars;
    for (int v = 0; v < kVars2d + kVars3d; ++v) {
      const bool is3d = v >= kVars2d;
      const int dims[3] = {time, is3d ? lev : ncol, ncol};
      const std::string name = (is3d ? "F3D_" : "F2D_") + std::to_string(v);
      int id = -1;
      check("def_var", esmio_def_var(f, name.c_str(), ESMIO_FLOAT, is3d ? 3 : 2, dims, &id));
      vars.push_back(id);
    }
    check("enddef", esmio_enddef(f));
    std::vector<float> buf(offsets3d.size());
    for (int rec = 0; rec < kRecords; ++rec)
      for (int v = 0; v < kVars2d + kVars3d; ++v) {
        const std::vector<int64_t> &offsets = v >= kVars2d ? offsets3d : offsets2d;
        for (std::size_t i = 0; i < offsets.size(); ++i)
          buf[i] = static_cast<float>(1000 * v + rec) + 1e-3f * static_cast<float>(offsets[i]);
        check("write_darray",
              esmio_write_darray(f, vars[v], rec, v >= kVars2d ? d3 : d2, ESMIO_FLOAT, buf.data(),
                                 static_cast<int64_t>(offsets.size())));
      }
    check("close", esmio_close(&f));
  }
  esmio_decomp_free(&d2);
  esmio_decomp_free(&d3);
  esmio_finalize(&io);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total ? 1 : 0;
}

// ---- launcher (root): mounts, runs, reads the extent map, unmounts -----------------------

struct Extent {
  uint64_t logical, physical, length;
  uint32_t flags;
};

// Every extent of the file, past its end included (blocks kept with FALLOC_FL_KEEP_SIZE).
bool extent_map(int fd, std::vector<Extent> *out) {
  constexpr unsigned kBatch = 256;
  std::vector<char> buf(sizeof(fiemap) + kBatch * sizeof(fiemap_extent));
  uint64_t start = 0;
  for (;;) {
    std::memset(buf.data(), 0, buf.size());
    fiemap *map = reinterpret_cast<fiemap *>(buf.data());
    map->fm_start = start;
    map->fm_length = FIEMAP_MAX_OFFSET - start;
    map->fm_extent_count = kBatch;
    if (ioctl(fd, FS_IOC_FIEMAP, map) != 0) return false;
    if (map->fm_mapped_extents == 0) return true;
    for (unsigned i = 0; i < map->fm_mapped_extents; ++i) {
      const fiemap_extent &e = map->fm_extents[i];
      out->push_back(Extent{e.fe_logical, e.fe_physical, e.fe_length, e.fe_flags});
      if (e.fe_flags & FIEMAP_EXTENT_LAST) return true;
    }
    start = out->back().logical + out->back().length;
  }
}

// The file's extent map against the bounds in the file comment; 0 when it keeps them.
int check_extents(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    std::printf("  no file %s\n", path.c_str());
    return 1;
  }
  struct stat st;
  fstat(fd, &st);
  std::vector<Extent> map;
  // fsync first: write-back converts the unwritten extents that writes reached.
  const bool read = fsync(fd) == 0 && extent_map(fd, &map);
  ::close(fd);
  if (!read) {
    std::printf("  FIEMAP failed on %s: %s\n", path.c_str(), std::strerror(errno));
    return 1;
  }
  int bad = 0, unwritten = 0, apart = 0;
  for (std::size_t i = 0; i < map.size(); ++i) {
    const Extent &e = map[i];
    if (i > 0 && map[i - 1].physical + map[i - 1].length != e.physical) ++apart;
    if (!(e.flags & FIEMAP_EXTENT_UNWRITTEN)) continue;
    ++unwritten;
    const uint64_t end = e.logical + e.length;
    if (end > static_cast<uint64_t>(kHeaderRoom)) {
      std::printf("  unwritten extent [%llu, %llu) past the header's room (%lld bytes)\n",
                  static_cast<unsigned long long>(e.logical), static_cast<unsigned long long>(end),
                  static_cast<long long>(kHeaderRoom));
      ++bad;
    }
  }
  std::printf("  %lld bytes: %zu extents (%d unwritten), %d where the next is elsewhere on disk\n",
              static_cast<long long>(st.st_size), map.size(), unwritten, apart);
  if (map.size() >= static_cast<std::size_t>(kRanks)) {
    std::printf(
        "  %zu extents: the data is scattered (at most %d expected, one or more per piece "
        "reserved rank by rank: %d)\n",
        map.size(), kRanks - 1, kRanks * kVars3d * kRecords);
    ++bad;
  }
  return bad;
}

int launcher(const char *self) {
  if (geteuid() != 0) {
    std::printf("test_scattered_extents: skipped: mounting an ext4 image needs root\n");
    return 77;
  }
  if (small_fs::run("command -v mkfs.ext4 > /dev/null") != 0) {
    std::printf("test_scattered_extents: skipped: no mkfs.ext4\n");
    return 77;
  }
  char tmpl[] = "/tmp/esmio_extents.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 1;
  const std::string base = tmpl, mnt = base + "/mnt", image = base + "/ext4.img";
  mkdir(mnt.c_str(), 0755);
  int failed = 0, ran = 0;
  for (const std::string direct : {"true", "false"}) {
    const std::string name = "ext4 np" + std::to_string(kRanks) + " direct_write " + direct;
    std::printf("%s\n", name.c_str());
    std::fflush(stdout);
    if (!small_fs::mount("ext4", mnt, image, kFsMb, "-b 4096")) {
      std::printf("  cannot mount, FAILED\n");
      ++failed;
      continue;
    }
    const std::string path = mnt + "/e3sm_f.nc";
    const std::string cmd = "ESMIO_DIRECT_WRITE=" + direct +
                            " OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
                            " timeout -k 5 120 mpirun --oversubscribe -np " +
                            std::to_string(kRanks) + " " + self + " --worker " + path;
    const int rc = small_fs::run(cmd);
    bool bad = rc != 0;
    if (rc == 124 || rc == 137) std::printf("  HANG (killed after 120 s)\n");
    if (rc == 0) bad = check_extents(path) != 0;
    std::printf("  %s\n", bad ? "FAILED" : "passed");
    failed += bad;
    ++ran;
    umount2(mnt.c_str(), MNT_DETACH);
    unlink(image.c_str());
  }
  rmdir(mnt.c_str());
  rmdir(base.c_str());
  std::printf("test_scattered_extents: %d of %d runs failed\n", failed, ran);
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc >= 3 && std::strcmp(argv[1], "--worker") == 0) {
    MPI_Init(&argc, &argv);
    const int rc = worker(argv[2]);
    MPI_Finalize();
    return rc;
  }
  return launcher(argv[0]);
}
