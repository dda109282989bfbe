// The full-disk tests' launchers (root): a shell command's exit code, a small file system
// mounted on a directory — a tmpfs, or an ext4 loop image — whose size makes the disk fill, and
// one case run on it under mpirun with a time limit.
#pragma once

#include <sys/mount.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace small_fs {

// The command's exit code (128 when it did not exit normally: killed by a signal).
inline int run(const std::string &cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// fs "tmpfs" or "ext4" (the image file made at image, mounted through a loop device, its
// lost+found removed so that the test sees an empty directory). True when mounted.
// mkfs_options: more options of mkfs.ext4 (mkfs gives images under 512 MB 1 KiB blocks; "-b
// 4096" gives them the blocks of a real disk).
inline bool mount(const std::string &fs, const std::string &mnt, const std::string &image,
                  long megabytes, const std::string &mkfs_options = "") {
  if (fs == "tmpfs")
    return ::mount("tmpfs", mnt.c_str(), "tmpfs", 0,
                   ("size=" + std::to_string(megabytes) + "m").c_str()) == 0;
  return run("dd if=/dev/zero of=" + image + " bs=1M count=" + std::to_string(megabytes) +
             " status=none && mkfs.ext4 -q -F " + mkfs_options + " " + image +
             " && mount -o loop " + image + " " + mnt + " && rmdir " + mnt + "/lost+found") == 0;
}

// Runs `self --worker args` on np ranks under mpirun, killed after limit seconds, and prints
// "HANG" when it was and "passed"/"FAILED". Returns the exit code (0: passed).
inline int run_worker(const std::string &self, int np, const std::string &args, int limit) {
  const int rc = run("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout -k 5 " +
                     std::to_string(limit) + " mpirun --oversubscribe -np " + std::to_string(np) +
                     " " + self + " --worker " + args);
  if (rc == 124 || rc == 137) std::printf("  HANG (killed after %d s)\n", limit);
  std::printf("  %s\n", rc ? "FAILED" : "passed");
  std::fflush(stdout);
  return rc;
}

}  // namespace small_fs
