// The ways of writing the same values that a run compares. Each variant writes (and reads)
// one file per repeat; the driver times it barrier to barrier and adds fsync when durable.
#pragma once

#include <memory>
#include <string>

#include "context.hpp"

namespace esmio_bench {

class Variant {
 public:
  virtual ~Variant() = default;
  virtual std::string name() const = 0;
  // A netCDF file the bench can check value by value (raw and cdo files are not).
  virtual bool checkable() const { return true; }
  // Holes (offsets nobody writes) hold the fill value afterwards.
  virtual bool fills_holes() const { return false; }
  // Reports esmio's trace counters (phases, request histogram) of trace_instance.
  virtual bool traced() const { return false; }
  virtual esmio_t trace_instance(const Context &ctx) const { return ctx.io; }
  // Only rank 0 acts (an external program); the other ranks wait.
  virtual bool rank0_only() const { return false; }
  virtual int io_tasks(const Context &ctx) const { return ctx.size; }
  // Largest relative error the file's values may have (lossy quantisation); 0: exact; -1:
  // each variable's own, from the keepbits recorded in the file (information quantisation).
  virtual double tolerance(const Context &) const { return 0; }
  virtual std::string settings(const Context &ctx) const = 0;
  virtual std::string file_suffix() const { return ".nc"; }
  // Write every record of every variable to path. Collective; throws BenchError.
  virtual void write(Context &ctx, const std::string &path) = 0;
  // Read them back into memory as float64. Collective; throws BenchError.
  virtual void read(Context &ctx, const std::string &path) = 0;
  // The file reaches path after write returns (esmio staging with stage_copy=background): the
  // clock stops at close, without the runner's fsync, and publish (collective, throws
  // BenchError) is called after the clock, timed as the phase copy_after_close.
  virtual bool publishes_later(const Context &) const { return false; }
  virtual void publish(Context &, const std::string &) {}
  // Before the first repeat and after the last, outside the clock (what a model does once:
  // an I/O system, decompositions). Collective; throw BenchError.
  virtual void prepare(Context &) {}
  virtual void release(Context &) {}
};

// esmio with the run's settings (backend from --backend); gather-root is esmio's serial
// backend: every record gathered to rank 0 and written with serial netCDF-C; unstaged is esmio
// as configured but without --stage (writing to the target directly, for comparison).
enum class EsmioFlavour { as_configured, no_cache, gather_root, unstaged };
std::unique_ptr<Variant> make_esmio_variant(const std::string &backend, EsmioFlavour flavour);
// Every rank writes its own pieces with one collective PnetCDF call per variable and record.
std::unique_ptr<Variant> make_pnetcdf_direct_variant();
// The esmio variant's file through PIO's C interface (libesmio_pio): PIOc_InitDecomp's maps,
// PIO_IOTYPE_PNETCDF, CDF-5, PIOc_setframe + PIOc_write_darray per variable record.
std::unique_ptr<Variant> make_pio_layer_variant();
// The same bytes with plain POSIX write() in 4 MiB blocks, each rank its own region of a file.
std::unique_ptr<Variant> make_raw_variant();
// CDO's cdiwrite/cdiread for the same number of values (case cdi, when cdo is installed).
std::unique_ptr<Variant> make_cdo_variant();
bool cdo_available();

}  // namespace esmio_bench
