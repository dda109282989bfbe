// Reading esmio_trace_counter / esmio_trace_histogram after a measurement.
#include "trace_phases.hpp"

#include <esmio.h>

namespace esmio_bench {

namespace {

const std::vector<std::string> kWriteCounters = {
    "open", "define", "plan",         "convert",    "rearrange",   "place",       "backend_write",
    "sync", "close",  "write_darray", "stage_copy", "stage_write", "stage_verify"};
const std::vector<std::string> kReadCounters = {
    "open", "plan", "rearrange", "place", "backend_read", "convert", "close", "read_darray"};

}  // namespace

void reset_trace(esmio_t io) {
  if (io) esmio_trace_reset(io);
}

void collect_trace(Context &ctx, esmio_t io, bool write, std::map<std::string, double> *phases,
                   std::vector<int64_t> *histogram) {
  const auto &names = write ? kWriteCounters : kReadCounters;
  std::vector<double> mine(names.size(), 0.0), worst(names.size(), 0.0);
  std::vector<int> known(names.size(), 0);
  for (std::size_t i = 0; i < names.size(); ++i) {
    esmio_counter c{};
    if (io && esmio_trace_counter(io, names[i].c_str(), &c) == ESMIO_NOERR) {
      mine[i] = c.seconds;
      known[i] = 1;
    }
  }
  MPI_Reduce(mine.data(), worst.data(), static_cast<int>(names.size()), MPI_DOUBLE, MPI_MAX, 0,
             ctx.comm);
  std::vector<int64_t> bins(ESMIO_TRACE_BINS, 0), sum(ESMIO_TRACE_BINS, 0);
  if (io) esmio_trace_histogram(io, bins.data());
  MPI_Reduce(bins.data(), sum.data(), ESMIO_TRACE_BINS, MPI_INT64_T, MPI_SUM, 0, ctx.comm);
  if (ctx.rank != 0) return;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (known[i]) (*phases)[names[i]] = worst[i];
  *histogram = sum;
}

}  // namespace esmio_bench
