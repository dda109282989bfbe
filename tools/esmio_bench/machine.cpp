// Hostname, CPUs, memory, OS, library versions, date and the file system under --dir.
#include "machine.hpp"

#include <limits.h>
#include <mpi.h>
#include <netcdf.h>
#include <pnetcdf.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "result.hpp"

namespace esmio_bench {

namespace {

std::string first_line_with(const char *file, const char *key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) {
      const std::size_t colon = line.find(':');
      std::string v = colon == std::string::npos ? line : line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "";
}

// The mount holding dir (longest matching mount point in /proc/mounts): "type device mnt".
std::string filesystem_of(const std::string &dir) {
  char real[PATH_MAX];
  if (!::realpath(dir.c_str(), real)) return "unknown";
  std::ifstream in("/proc/mounts");
  std::string dev, mnt, type, best = "unknown";
  std::size_t best_len = 0;
  std::string rest;
  while (in >> dev >> mnt >> type && std::getline(in, rest)) {
    const std::string r = real;
    if (r.rfind(mnt, 0) == 0 && (r.size() == mnt.size() || r[mnt.size()] == '/' || mnt == "/") &&
        mnt.size() >= best_len) {
      best_len = mnt.size();
      best = type + " " + dev + " on " + mnt;
    }
  }
  return best;
}

}  // namespace

std::string read_loadavg() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  if (!(in >> a >> b >> c)) return "";
  return a + " " + b + " " + c;
}

Json describe_machine(const std::string &dir) {
  Json m = Json::object();
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  m["hostname"] = host;
  m["cpus"] = static_cast<long long>(::sysconf(_SC_NPROCESSORS_ONLN));
  m["cpu_model"] = first_line_with("/proc/cpuinfo", "model name");
  const double mem_kib = std::atof(first_line_with("/proc/meminfo", "MemTotal").c_str());
  m["memory_gib"] = std::round(mem_kib / 1048576.0 * 10) / 10;  // to 0.1 GiB
  struct utsname u;
  ::uname(&u);
  m["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  std::string release = first_line_with("/etc/os-release", "PRETTY_NAME=");
  release = release.substr(release.find('=') + 1);  // the line has no ':'; drop the key
  if (release.size() >= 2 && release.front() == '"')
    release = release.substr(1, release.size() - 2);
  m["os_release"] = release;
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(mpi, &len);
  std::string mpi_s(mpi, static_cast<std::size_t>(len));
  m["mpi"] = mpi_s.substr(0, mpi_s.find_first_of(",\n"));
  const char *mca_io = std::getenv("OMPI_MCA_io");
  m["mpi_io"] = mca_io ? mca_io : "default (ompio)";
  m["pnetcdf"] = ncmpi_inq_libvers();
  const std::string nc = nc_inq_libvers();
  m["netcdf"] = nc.substr(0, nc.find(' '));
  m["compiler"] = __VERSION__;
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m["date"] = date;
  m["filesystem"] = filesystem_of(dir);
  return m;
}

}  // namespace esmio_bench
