/*
 * failfs: a FUSE file system that passes everything through to a backing directory, except
 * that writes reaching past a byte limit fail with EIO, as a failing device's would (not
 * ENOSPC: space is there, fallocate succeeds). The limit is read from BACKING/.failfs_limit
 * at every write (absent: no limit), so a test can arm it in the middle of a run. Likewise reads
 * reaching past BACKING/.failfs_read_limit fail with EIO, as a bad sector's would; with
 * FAILFS_DIRECT_IO=1 in its environment files are opened with direct I/O (no page cache), so that
 * each read arrives as the program made it, not widened to pages and read ahead by the kernel.
 *
 * With FAILFS_SLOW="LATENCY_US:MIB_PER_S" in its environment it is also a slow device, for
 * benchmarks of staging (esmio-bench --stage): every read and write occupies one shared device
 * for bytes / rate (requests queue behind each other, as on one disk or one network link) and
 * then waits LATENCY_US more (a round trip, which requests overlap); fsync waits the latency.
 *
 *   failfs BACKING MOUNTPOINT [fuse options]      (runs in the foreground: -f is implied)
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static char backing[PATH_MAX - 64];
static int direct_io; /* FAILFS_DIRECT_IO=1 */

/* The slow device (FAILFS_SLOW): off when rate_bytes_per_ns is 0. */
static double rate_bytes_per_ns;
static long long latency_ns;
static long long busy_until_ns; /* when the device finishes the requests queued so far */
static pthread_mutex_t device_lock = PTHREAD_MUTEX_INITIALIZER;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void device_time(size_t bytes) {
  if (rate_bytes_per_ns <= 0) return;
  pthread_mutex_lock(&device_lock);
  long long start = now_ns();
  if (busy_until_ns > start) start = busy_until_ns;
  busy_until_ns = start + (long long)((double)bytes / rate_bytes_per_ns);
  long long end = busy_until_ns + latency_ns;
  pthread_mutex_unlock(&device_lock);
  struct timespec t = {(time_t)(end / 1000000000LL), (long)(end % 1000000000LL)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {
  }
}

static void real(char *out, const char *path) { snprintf(out, PATH_MAX, "%s%s", backing, path); }

static long long limit_in(const char *name) {
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s/%s", backing, name);
  FILE *f = fopen(p, "r");
  if (!f) return -1;
  long long v = -1;
  if (fscanf(f, "%lld", &v) != 1) v = -1;
  fclose(f);
  return v;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  (void)fi;
  char p[PATH_MAX];
  real(p, path);
  return lstat(p, st) == 0 ? 0 : -errno;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
  (void)off, (void)fi, (void)flags;
  char p[PATH_MAX];
  real(p, path);
  DIR *d = opendir(p);
  if (!d) return -errno;
  for (struct dirent *e; (e = readdir(d));) fill(buf, e->d_name, NULL, 0, 0);
  closedir(d);
  return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi) {
  char p[PATH_MAX];
  real(p, path);
  int fd = open(p, fi->flags);
  if (fd < 0) return -errno;
  fi->fh = (uint64_t)fd;
  fi->direct_io = direct_io;
  return 0;
}

static int fs_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
  char p[PATH_MAX];
  real(p, path);
  int fd = open(p, fi->flags | O_CREAT, mode);
  if (fd < 0) return -errno;
  fi->fh = (uint64_t)fd;
  fi->direct_io = direct_io;
  return 0;
}

static int fs_read(const char *path, char *buf, size_t n, off_t off, struct fuse_file_info *fi) {
  (void)path;
  long long lim = limit_in(".failfs_read_limit");
  if (lim >= 0 && (long long)off + (long long)n > lim) return -EIO;
  device_time(n);
  ssize_t r = pread((int)fi->fh, buf, n, off);
  return r < 0 ? -errno : (int)r;
}

static int fs_write(const char *path, const char *buf, size_t n, off_t off,
                    struct fuse_file_info *fi) {
  (void)path;
  long long lim = limit_in(".failfs_limit");
  if (lim >= 0 && (long long)off + (long long)n > lim) return -EIO;
  device_time(n);
  ssize_t r = pwrite((int)fi->fh, buf, n, off);
  return r < 0 ? -errno : (int)r;
}

static int fs_release(const char *path, struct fuse_file_info *fi) {
  (void)path;
  close((int)fi->fh);
  return 0;
}

static int fs_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
  (void)path;
  device_time(0);
  int r = datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh);
  return r == 0 ? 0 : -errno;
}

static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
  if (fi) return ftruncate((int)fi->fh, size) == 0 ? 0 : -errno;
  char p[PATH_MAX];
  real(p, path);
  return truncate(p, size) == 0 ? 0 : -errno;
}

static int fs_unlink(const char *path) {
  char p[PATH_MAX];
  real(p, path);
  return unlink(p) == 0 ? 0 : -errno;
}

static int fs_rename(const char *from, const char *to, unsigned int flags) {
  if (flags) return -EINVAL;
  char a[PATH_MAX], b[PATH_MAX];
  real(a, from);
  real(b, to);
  return rename(a, b) == 0 ? 0 : -errno;
}

static int fs_mkdir(const char *path, mode_t mode) {
  char p[PATH_MAX];
  real(p, path);
  return mkdir(p, mode) == 0 ? 0 : -errno;
}

static int fs_statfs(const char *path, struct statvfs *st) {
  char p[PATH_MAX];
  real(p, path);
  return statvfs(p, st) == 0 ? 0 : -errno;
}

static int fs_fallocate(const char *path, int mode, off_t off, off_t len,
                        struct fuse_file_info *fi) {
  (void)path;
  return fallocate((int)fi->fh, mode, off, len) == 0 ? 0 : -errno;
}

static int fs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
  (void)fi;
  char p[PATH_MAX];
  real(p, path);
  return utimensat(AT_FDCWD, p, tv, 0) == 0 ? 0 : -errno;
}

static int fs_access(const char *path, int mask) {
  char p[PATH_MAX];
  real(p, path);
  return access(p, mask) == 0 ? 0 : -errno;
}

static const struct fuse_operations ops = {
    .getattr = fs_getattr,
    .readdir = fs_readdir,
    .open = fs_open,
    .create = fs_create,
    .read = fs_read,
    .write = fs_write,
    .release = fs_release,
    .fsync = fs_fsync,
    .truncate = fs_truncate,
    .unlink = fs_unlink,
    .rename = fs_rename,
    .mkdir = fs_mkdir,
    .statfs = fs_statfs,
    .fallocate = fs_fallocate,
    .utimens = fs_utimens,
    .access = fs_access,
};

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: failfs BACKING MOUNTPOINT [fuse options]\n");
    return 2;
  }
  char resolved[PATH_MAX];
  if (!realpath(argv[1], resolved) || strlen(resolved) >= sizeof backing) {
    fprintf(stderr, "failfs: bad backing directory %s\n", argv[1]);
    return 2;
  }
  strcpy(backing, resolved);
  const char *direct = getenv("FAILFS_DIRECT_IO");
  direct_io = direct && strcmp(direct, "1") == 0;
  const char *slow = getenv("FAILFS_SLOW");
  if (slow) {
    double us = 0, mibs = 0;
    if (sscanf(slow, "%lf:%lf", &us, &mibs) != 2 || us < 0 || mibs <= 0) {
      fprintf(stderr, "failfs: FAILFS_SLOW must be LATENCY_US:MIB_PER_S, not %s\n", slow);
      return 2;
    }
    latency_ns = (long long)(us * 1000);
    rate_bytes_per_ns = mibs * 1048576.0 / 1e9;
  }
  char *args[16] = {argv[0], argv[2], "-f", "-o", "default_permissions"};
  int n = 5;
  for (int i = 3; i < argc && n < 15; ++i) args[n++] = argv[i];
  return fuse_main(n, args, &ops, NULL);
}
