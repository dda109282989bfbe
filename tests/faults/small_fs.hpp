// The full-disk tests' launchers (root): a shell command's exit code, a small file system
// mounted on a directory — a tmpfs, or an ext4 loop image — whose size makes the disk fill, and
// the cases run on such file systems under mpirun with a time limit, two at a time.
#pragma once

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

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

// One case of a launcher: its name, its file system ("tmpfs" or "ext4"), the shell command that
// runs it on the file system mounted at mnt, and what is checked on the file system afterwards
// (a line of text for each problem, empty when none).
struct Case {
  std::string name, fs;
  std::function<std::string(const std::string &mnt)> command;
  std::function<std::string(const std::string &mnt)> check;
};

// Runs the cases two at a time, each on a file system of its own of `megabytes` under base
// (mounted, run under `timeout -k 5 limit`, unmounted): most of a case is waiting (MPI's start,
// the disk filling), so two share the cores without slowing each other much. Each case's
// output is printed whole when it ends, then "HANG", "passed" or "FAILED". The number failed;
// *ran: the number run.
inline int run_cases(const std::string &base, long megabytes, const std::vector<Case> &cases,
                     int limit, int *ran) {
  std::atomic<std::size_t> next{0};
  std::atomic<int> failed{0}, count{0};
  std::mutex print;
  const auto slot = [&](int id) {
    const std::string dir = base + "/" + std::to_string(id), mnt = dir + "/mnt",
                      image = dir + "/ext4.img", log = dir + "/log";
    mkdir(dir.c_str(), 0755);
    mkdir(mnt.c_str(), 0755);
    for (std::size_t i; (i = next++) < cases.size();) {
      const Case &c = cases[i];
      std::string text = c.name + "\n";
      bool bad = true;
      if (mount(c.fs, mnt, image, megabytes)) {
        const int rc =
            run("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout -k 5 " +
                std::to_string(limit) + " " + c.command(mnt) + " > " + log + " 2>&1");
        bad = rc != 0;
        if (FILE *f = std::fopen(log.c_str(), "r")) {
          char buf[4096];
          for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
          std::fclose(f);
        }
        if (rc == 124 || rc == 137)
          text += "  HANG (killed after " + std::to_string(limit) + " s)\n";
        if (c.check) {
          const std::string problems = c.check(mnt);
          text += problems;
          bad = bad || !problems.empty();
        }
        umount2(mnt.c_str(), MNT_DETACH);
        if (c.fs == "ext4") unlink(image.c_str());
      } else {
        text += "  cannot mount\n";
      }
      text += std::string("  ") + (bad ? "FAILED" : "passed") + "\n";
      failed += bad;
      ++count;
      const std::lock_guard<std::mutex> lock(print);
      std::fputs(text.c_str(), stdout);
      std::fflush(stdout);
    }
    unlink(log.c_str());
    rmdir(mnt.c_str());
    rmdir(dir.c_str());
  };
  std::thread second(slot, 1);
  slot(0);
  second.join();
  *ran = count;
  return failed;
}

}  // namespace small_fs
