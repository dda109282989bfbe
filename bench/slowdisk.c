// slowdisk: a FUSE file system over a directory whose reads take the time a disk of a given
// rate and latency would, one request after another. The page cache and the kernel's read-ahead
// stay in front of it, so it shows what a host-cached disk hides: a reader that leaves the disk
// idle while it computes loses that time, as on a real disk (a rate limiter such as blkio's
// throttle credits idle time back and does not). Writes pass straight through.
//
//   built as build/tools/slowdisk (or: cc -O2 -o slowdisk bench/slowdisk.c $(pkg-config --cflags
//   --libs fuse3))
//   export SLOWDISK_BACKING=/tmp/backing SLOWDISK_MBPS=300 SLOWDISK_LATENCY_US=200
//   ./slowdisk -s -o allow_other /mnt/slow     # -s: one thread, so requests queue
//   ... esmio-bench CASE --read cold --dir /mnt/slow/out ...
//   fusermount3 -u /mnt/slow
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *backing;
static double bytes_per_second, latency;
static double busy_until;  // when the simulated disk finishes what it was given

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void wait_until(double t) {
  for (double d; (d = t - now()) > 0;) {
    struct timespec s = {(time_t)d, (long)((d - (time_t)d) * 1e9)};
    nanosleep(&s, NULL);
  }
}

static void full(const char *path, char *out) { snprintf(out, PATH_MAX, "%s%s", backing, path); }

static int sd_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  (void)fi;
  char p[PATH_MAX];
  full(path, p);
  return lstat(p, st) == 0 ? 0 : -errno;
}

static int sd_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
  (void)off, (void)fi, (void)flags;
  char p[PATH_MAX];
  full(path, p);
  DIR *d = opendir(p);
  if (!d) return -errno;
  for (struct dirent *e; (e = readdir(d));) fill(buf, e->d_name, NULL, 0, 0);
  closedir(d);
  return 0;
}

static int sd_mkdir(const char *path, mode_t mode) {
  char p[PATH_MAX];
  full(path, p);
  return mkdir(p, mode) == 0 ? 0 : -errno;
}
static int sd_rmdir(const char *path) {
  char p[PATH_MAX];
  full(path, p);
  return rmdir(p) == 0 ? 0 : -errno;
}
static int sd_unlink(const char *path) {
  char p[PATH_MAX];
  full(path, p);
  return unlink(p) == 0 ? 0 : -errno;
}
static int sd_rename(const char *from, const char *to, unsigned int flags) {
  if (flags) return -EINVAL;
  char a[PATH_MAX], b[PATH_MAX];
  full(from, a);
  full(to, b);
  return rename(a, b) == 0 ? 0 : -errno;
}
static int sd_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
  if (fi) return ftruncate((int)fi->fh, size) == 0 ? 0 : -errno;
  char p[PATH_MAX];
  full(path, p);
  return truncate(p, size) == 0 ? 0 : -errno;
}

static int sd_open(const char *path, struct fuse_file_info *fi) {
  char p[PATH_MAX];
  full(path, p);
  const int fd = open(p, fi->flags & ~O_DIRECT);
  if (fd < 0) return -errno;
  fi->fh = (uint64_t)fd;
  return 0;
}
static int sd_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
  char p[PATH_MAX];
  full(path, p);
  const int fd = open(p, (fi->flags & ~O_DIRECT) | O_CREAT, mode);
  if (fd < 0) return -errno;
  fi->fh = (uint64_t)fd;
  return 0;
}

static int sd_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  (void)path;
  const ssize_t n = pread((int)fi->fh, buf, size, off);
  if (n < 0) return -errno;
  // The request starts when the disk is free and lasts latency + size / rate.
  const double start = now() > busy_until ? now() : busy_until;
  busy_until = start + latency + (double)n / bytes_per_second;
  wait_until(busy_until);
  return (int)n;
}

static int sd_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi) {
  (void)path;
  const ssize_t n = pwrite((int)fi->fh, buf, size, off);
  return n < 0 ? -errno : (int)n;
}

static int sd_fallocate(const char *path, int mode, off_t off, off_t len,
                        struct fuse_file_info *fi) {
  (void)path;
  return fallocate((int)fi->fh, mode, off, len) == 0 ? 0 : -errno;
}

static int sd_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
  (void)path;
  return (datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh)) == 0 ? 0 : -errno;
}

static int sd_release(const char *path, struct fuse_file_info *fi) {
  (void)path;
  close((int)fi->fh);
  return 0;
}

static int sd_statfs(const char *path, struct statvfs *st) {
  (void)path;
  return statvfs(backing, st) == 0 ? 0 : -errno;
}

static const struct fuse_operations ops = {
    .getattr = sd_getattr,
    .readdir = sd_readdir,
    .mkdir = sd_mkdir,
    .rmdir = sd_rmdir,
    .unlink = sd_unlink,
    .rename = sd_rename,
    .truncate = sd_truncate,
    .open = sd_open,
    .create = sd_create,
    .read = sd_read,
    .write = sd_write,
    .fallocate = sd_fallocate,
    .fsync = sd_fsync,
    .release = sd_release,
    .statfs = sd_statfs,
};

int main(int argc, char **argv) {
  backing = getenv("SLOWDISK_BACKING");
  const char *mbps = getenv("SLOWDISK_MBPS"), *us = getenv("SLOWDISK_LATENCY_US");
  if (!backing || !mbps) {
    fprintf(stderr, "slowdisk: set SLOWDISK_BACKING (a directory) and SLOWDISK_MBPS\n");
    return 2;
  }
  bytes_per_second = atof(mbps) * 1e6;
  latency = us ? atof(us) * 1e-6 : 0;
  return fuse_main(argc, argv, &ops, NULL);
}
