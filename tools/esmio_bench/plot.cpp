// Finds esmio_bench_plot.py next to the executable (CMake copies and installs it there), or in
// the source tree the binary was built from, and runs it.
#include "plot.hpp"

#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#ifndef ESMIO_BENCH_PLOT_SCRIPT
#define ESMIO_BENCH_PLOT_SCRIPT ""
#endif

namespace esmio_bench {

namespace {

std::string quoted(const std::string &s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string find_script() {
  char exe[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    std::string dir = exe;
    dir = dir.substr(0, dir.rfind('/'));
    for (const char *rel : {"/esmio_bench_plot.py", "/../share/esmio/esmio_bench_plot.py"}) {
      const std::string candidate = dir + rel;
      if (::access(candidate.c_str(), R_OK) == 0) return candidate;
    }
  }
  const std::string built_from = ESMIO_BENCH_PLOT_SCRIPT;
  if (!built_from.empty() && ::access(built_from.c_str(), R_OK) == 0) return built_from;
  return "";
}

}  // namespace

int draw_plot(const std::string &json_path, const std::string &png_path) {
  const std::string script = find_script();
  if (script.empty()) return -1;
  const std::string cmd =
      "/usr/bin/python3 " + quoted(script) + " " + quoted(json_path) + " " + quoted(png_path);
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace esmio_bench
