// raw: the disk's own speed for the bytes the netCDF file's variables hold (holes included:
// the data of a map with holes plus its fill values; otherwise exactly the data's bytes). One
// shared file; rank r writes its
// own contiguous region (offset = bytes of ranks before it) sequentially in 4 MiB blocks with
// pwrite(), and reads it back the same way. No conversion, no netCDF: only the bytes.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "variants.hpp"

namespace esmio_bench {

namespace {

constexpr std::size_t kBlock = 4u << 20;

class RawVariant : public Variant {
 public:
  RawVariant() : block_(kBlock / sizeof(float)) {
    for (std::size_t i = 0; i < block_.size(); ++i) block_[i] = static_cast<float>(i) * 1.0e-6f;
  }

  std::string name() const override { return "raw"; }
  bool checkable() const override { return false; }
  std::string file_suffix() const override { return ".raw"; }
  std::string settings(const Context &) const override {
    return "POSIX pwrite/pread, 4 MiB blocks, one shared file, one contiguous region per rank";
  }

  void write(Context &ctx, const std::string &path) override {
    const int fd = open_region(ctx, path, true);
    transfer(ctx, fd, path, true);
  }

  void read(Context &ctx, const std::string &path) override {
    const int fd = open_region(ctx, path, false);
    transfer(ctx, fd, path, false);
  }

 private:
  // Rank 0 creates (and truncates) the file before the others open it.
  int open_region(Context &ctx, const std::string &path, bool write) {
    int fd = -1;
    if (write && ctx.rank == 0) fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (write) MPI_Barrier(ctx.comm);
    if (fd < 0 && (ctx.rank != 0 || !write)) fd = ::open(path.c_str(), write ? O_WRONLY : O_RDONLY);
    int bad = fd < 0, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, ctx.comm);
    if (any) {
      if (fd >= 0) ::close(fd);
      throw BenchError("open " + path + ": " + std::strerror(errno));
    }
    return fd;
  }

  void transfer(Context &ctx, int fd, const std::string &path, bool write) {
    const long long mine = static_cast<long long>(ctx.my_file_values) * 4;
    long long before = 0;
    MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, ctx.comm);
    if (ctx.rank == 0) before = 0;
    bool ok = true;
    for (long long done = 0; done < mine && ok;) {
      const std::size_t n = static_cast<std::size_t>(std::min<long long>(kBlock, mine - done));
      const ssize_t got = write ? ::pwrite(fd, block_.data(), n, before + done)
                                : ::pread(fd, block_.data(), n, before + done);
      ok = got > 0;
      done += got;
    }
    ok = (::close(fd) == 0) && ok;
    int bad = !ok, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, ctx.comm);
    if (any) throw BenchError(std::string(write ? "pwrite " : "pread ") + path + " failed");
  }

  std::vector<float> block_;
};

}  // namespace

std::unique_ptr<Variant> make_raw_variant() { return std::make_unique<RawVariant>(); }

}  // namespace esmio_bench
