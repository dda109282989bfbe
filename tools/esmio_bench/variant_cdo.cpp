// cdo: Debian's CDO running its own benchmark operators for the same number of values,
// 'cdo -f nc5 cdiwrite,1,GRID,LEVELS,STEPS,VARS FILE' (f64 generated, written as f32 CDF-5;
// parameters nruns, grid, nlevs, ntimesteps, nvars as cdo 2.1.1 prints with -v) and
// 'cdo cdiread,1 FILE' (read, converted to f64). Timed from outside (process start included,
// about 0.02 s). Its values are CDO's own test field, so its file is not checked.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "variants.hpp"

namespace esmio_bench {

namespace {

// Runs args[0] with stdout and stderr to /dev/null; returns its exit status (-1: did not run)
// and its peak RSS in MiB (wait4's rusage of that child alone).
int run_quietly(const std::vector<std::string> &args, double *peak_rss_mib) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      ::dup2(devnull, 1);
      ::dup2(devnull, 2);
    }
    std::vector<char *> argv;
    for (const auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage ru;
  if (::wait4(pid, &status, 0, &ru) < 0) return -1;
  *peak_rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class CdoVariant : public Variant {
 public:
  std::string name() const override { return "cdo"; }
  bool checkable() const override { return false; }
  bool rank0_only() const override { return true; }
  int io_tasks(const Context &) const override { return 1; }
  std::string settings(const Context &ctx) const override {
    return "cdo -f nc5 " + write_op(ctx) + " (CDO's own values)";
  }

  void write(Context &ctx, const std::string &path) override {
    const int rc =
        run_quietly({"cdo", "-s", "-f", "nc5", write_op(ctx), path}, &ctx.child_peak_rss_mib);
    if (rc != 0) throw BenchError("cdo cdiwrite exited with " + std::to_string(rc));
  }

  void read(Context &ctx, const std::string &path) override {
    const int rc = run_quietly({"cdo", "-s", "cdiread,1", path}, &ctx.child_peak_rss_mib);
    if (rc != 0) throw BenchError("cdo cdiread exited with " + std::to_string(rc));
  }

 private:
  static std::string write_op(const Context &ctx) {
    const Workload &w = *ctx.work;
    return "cdiwrite,1," + w.cdo_grid + "," + std::to_string(w.cdo_levels) + "," +
           std::to_string(w.cdo_steps) + "," + std::to_string(w.cdo_vars);
  }
};

}  // namespace

bool cdo_available() { return std::system("cdo -V >/dev/null 2>&1") == 0; }

std::unique_ptr<Variant> make_cdo_variant() { return std::make_unique<CdoVariant>(); }

}  // namespace esmio_bench
