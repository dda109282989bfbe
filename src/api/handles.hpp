// The objects behind the public opaque handles, and the helpers every entry point shares.
// api/ is the dispatcher: it owns the per-file metadata mirror (every rank knows every
// dimension and variable, so argument checks need no communication), checks arguments, and
// agrees on errors before any collective data movement starts.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aggregate/cache_spec.hpp"
#include "aggregate/write_cache.hpp"
#include "backend/backend.hpp"
#include "codec/storage_spec.hpp"
#include "common/settings.hpp"
#include "common/status.hpp"
#include "decomp/decomposition.hpp"
#include "decomp/io_layout.hpp"
#include "esmio.h"
#include "rearrange/exchange.hpp"
#include "rearrange/plan_builder.hpp"
#include "trace/counters.hpp"

struct esmio_instance {
  MPI_Comm comm = MPI_COMM_NULL;     // duplicated user communicator
  MPI_Comm io_comm = MPI_COMM_NULL;  // the I/O tasks (MPI_COMM_NULL elsewhere)
  int rank = 0;
  int nranks = 1;
  int task = -1;  // this rank's I/O task index, or -1
  esmio::Settings settings;
  esmio::decomp::IoLayout layout;
  esmio::rearrange::ExchangeLimits limits;
  int open_files = 0;
  int open_decomps = 0;
  esmio::trace::Counters counters;  // this rank's totals
  // Closed files' own counters, for the ESMIO_TRACE report.
  std::vector<std::pair<std::string, esmio::trace::Counters>> closed_files;
};

struct esmio_decomp {
  esmio_instance *io = nullptr;
  std::vector<int64_t> dims;
  esmio::decomp::LocalMap map;  // this rank's part, as runs
  // Shared with the write cache, which may still hold writes through it after a free.
  std::shared_ptr<const esmio::rearrange::Plan> plan;
};

namespace esmio::api {

struct DimMeta {
  std::string name;
  int64_t len = 0;
  bool unlimited = false;
};

struct VarMeta {
  std::string name;
  esmio_type type = ESMIO_FLOAT;
  std::vector<int> dimids;
  bool record = false;              // first dimension is the unlimited one
  std::vector<int64_t> shape;       // lengths of the non-record dimensions
  std::vector<unsigned char> fill;  // fill value in the variable's type
  // Storage asked for with esmio_def_var_chunking/compress/quantize; resolved with the
  // chunking/compression/quantize settings and handed to the backend at the next enddef.
  std::optional<codec::ChunkChoice> chunks;
  std::optional<codec::CodecChoice> codec;
  std::optional<codec::QuantizeChoice> quantize;
  bool storage_defined = false;
  std::shared_ptr<aggregate::Information> information;  // information quantisation
  // Records whose holes have had their fill value written: a record's holes are filled by its
  // first write only, so that later partial writes of it do not overwrite data with fill.
  // Records below filled_below (those in a file when it was opened) count as filled.
  int64_t filled_below = 0;
  std::vector<bool> holes_filled;
  // True (and remembered) the first time record's holes are claimed.
  bool claim_hole_fill(int64_t record) {
    if (record < filled_below) return false;
    const auto i = static_cast<std::size_t>(record - filled_below);
    if (i >= holes_filled.size()) holes_filled.resize(i + 1, false);
    if (holes_filled[i]) return false;
    holes_filled[i] = true;
    return true;
  }
  // Undoes a claim that just succeeded (the write it was for did not happen).
  void release_hole_fill(int64_t record) {
    const auto i = static_cast<std::size_t>(record - filled_below);
    if (record >= filled_below && i < holes_filled.size()) holes_filled[i] = false;
  }
};

}  // namespace esmio::api

struct esmio_file {
  esmio_instance *io = nullptr;
  std::string path;
  esmio::Settings settings;
  bool define_mode = true;
  bool writable = true;
  bool gather_to_root = false;  // the serial baseline's data path
  int backend_root = 0;         // rank in io->comm that reads/writes undecomposed data
  MPI_Comm backend_comm = MPI_COMM_NULL;
  std::unique_ptr<esmio::backend::Backend> backend;  // on the ranks that hold the file
  std::vector<esmio::api::DimMeta> dims;
  std::vector<esmio::api::VarMeta> vars;
  int64_t nrecords = 0;
  esmio::trace::Counters counters;
  esmio::aggregate::CacheSpec cache_spec;
  std::vector<std::pair<std::string, std::string>> mpiio_hints;
  esmio::aggregate::WriteCache cache;
  // Reused across calls so the hot path does not allocate.
  std::vector<unsigned char> send_buffer, recv_buffer, io_buffer;
};

namespace esmio::api {

// Stores the message for esmio_last_error and returns the code.
int finish(const Status &status);
const char *last_error_message();
// Runs body, turning exceptions into codes; body returns a Status.
template <typename Body>
int guarded(Body &&body) {
  try {
    return finish(body());
  } catch (const std::bad_alloc &) {
    return finish(Status(ESMIO_ENOMEM, "out of memory"));
  } catch (const std::exception &e) {
    return finish(Status(ESMIO_EINVAL, std::string("internal error: ") + e.what()));
  }
}

// The ESMIO_* overrides, read on rank 0 and broadcast. Collective over comm.
std::string environment_settings(MPI_Comm comm);

// Writes what the file's cache holds (collective; nothing to do when it is empty).
Status flush_cache(esmio_file *file);

// "key=value,..." of the instance's settings and its number of I/O tasks.
std::string effective_settings(const esmio_instance *io);
// Copies text into the caller's buffer of buflen bytes, NUL-terminated; ESMIO_EINVAL naming
// what if it does not fit.
Status copy_text(const char *what, const std::string &text, char *buf, int64_t buflen);

// Collective: writes the ESMIO_TRACE report of every rank to io->settings.trace.
Status write_trace_report(const esmio_instance *io, const std::string &settings);

// Times a scope of a file call into the file's and the instance's counters.
inline trace::Scope traced(esmio_file *file, trace::Counter counter, int64_t bytes = 0) {
  return trace::Scope(counter, &file->counters, &file->io->counters, bytes);
}

// "in file 'path'" / "variable 'name' in file 'path'" for messages.
std::string where(const esmio_file *file, int varid = ESMIO_GLOBAL);
// The storage of every variable defined since the last enddef, as (varid, storage) for the
// backend: settings entries named for the variable, then the API's choices, then default
// entries, then esmio's defaults (netCDF-4: chunks of one box-partition unit). Local (the
// same on every rank); errors name the variable. (storage_api.cpp)
// Variables with information quantisation come back in information as (varid, fraction).
Status resolve_storage(const esmio_file *file,
                       std::vector<std::pair<int, backend::VarStorage>> *storage,
                       std::vector<std::pair<int, double>> *information);
// Writes the keepbits chosen by information quantisation (esmio_keepbits) and the level
// (esmio_information_level) as attributes of each variable not yet recorded. Collective.
Status record_information(esmio_file *file);

}  // namespace esmio::api
