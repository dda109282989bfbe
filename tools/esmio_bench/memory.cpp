// /proc/self/status and clear_refs; see memory.hpp.
#include "memory.hpp"

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace esmio_bench {

namespace {

// The value in kB of a "Key:   123 kB" line of /proc/self/status, or -1.
double status_kib(const char *key) {
  FILE *f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  double value = -1;
  const std::size_t n = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, n) == 0 && line[n] == ':') {
      value = std::atof(line + n + 1);
      break;
    }
  std::fclose(f);
  return value;
}

}  // namespace

bool reset_peak_rss() {
  FILE *f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

double peak_rss_mib() {
  const double hwm = status_kib("VmHWM");
  if (hwm >= 0) return hwm / 1024.0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

double current_rss_mib() {
  const double rss = status_kib("VmRSS");
  return rss >= 0 ? rss / 1024.0 : -1;
}

}  // namespace esmio_bench
