// Per-variable storage in netCDF-4 files: chunk shape, codec and quantisation, through the API
// (esmio_def_var_chunking / _compress / _quantize) or the chunking / compression / quantize
// settings, resolved at enddef into what the backend is told.
#include <string>

#include "api/handles.hpp"
#include "codec/storage_spec.hpp"
#include "common/agree.hpp"
#include "common/digest.hpp"
#include "common/types.hpp"
#include "decomp/box_partition.hpp"

namespace esmio::api {
namespace {

std::string shape_text(const std::vector<int64_t> &shape) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "scalar" : s;
}

// The settings' choice for var: its own entry, else nullptr (default entries apply later).
const std::string *entry_for(const std::map<std::string, std::string> &entries,
                             const std::string &name) {
  auto it = entries.find(name);
  return it == entries.end() ? nullptr : &it->second;
}

template <typename Choice, typename Parse>
Status choose(const std::map<std::string, std::string> &entries, const std::string &name,
              const std::optional<Choice> &from_api, const std::string &origin, Parse parse,
              Choice *out, bool *from_default) {
  *from_default = false;
  if (const std::string *own = entry_for(entries, name)) return parse(*own, origin, out);
  if (from_api) {
    *out = *from_api;
    return Status::ok();
  }
  if (const std::string *fallback = entry_for(entries, "default")) {
    *from_default = true;
    return parse(*fallback, origin, out);
  }
  *out = Choice{};
  return Status::ok();
}

// A default entry applies where it can: a chunk shape to variables of its rank that it fits,
// contiguous storage to fixed-size variables, a codec to chunked ones (not scalars), a
// quantisation to float and double variables. Elsewhere the variable keeps esmio's default;
// what a variable's own entry or the API asks for is checked, and refused with an error.
void fit_defaults(const datapath::Variable &var, const std::vector<int64_t> &file_shape,
                  bool chunks_default, bool codec_default, bool quantize_default,
                  codec::ChunkChoice *chunks, codec::CodecChoice *codec,
                  codec::QuantizeChoice *quantize) {
  if (chunks_default) {
    bool fits = chunks->kind != codec::ChunkChoice::Kind::contiguous || !var.record;
    if (chunks->kind == codec::ChunkChoice::Kind::shape) {
      fits = chunks->shape.size() == file_shape.size();
      for (std::size_t d = 0; fits && d < file_shape.size(); ++d)
        fits = (var.record && d == 0) || chunks->shape[d] <= std::max<int64_t>(file_shape[d], 1);
    }
    if (!fits) *chunks = codec::ChunkChoice{};
  }
  if (codec_default && (file_shape.empty() || chunks->kind == codec::ChunkChoice::Kind::contiguous))
    *codec = codec::CodecChoice{};
  if (quantize_default && var.type != ESMIO_FLOAT && var.type != ESMIO_DOUBLE)
    *quantize = codec::QuantizeChoice{};
}

Status storage_of(const esmio_file *file, int varid, const std::vector<int64_t> &file_shape,
                  const codec::ChunkChoice &chunks, const codec::CodecChoice &codec,
                  const codec::QuantizeChoice &quantize, backend::VarStorage *out,
                  codec::QuantizeChoice *information) {
  const datapath::Variable &var = file->vars[varid];
  const std::string at = "esmio_enddef: " + where(file, varid);
  const bool chunked = file->capabilities.chunked_storage;
  const bool asked = chunks.kind != codec::ChunkChoice::Kind::automatic || codec.codec != "none" ||
                     quantize.mode != "none";
  if (!chunked) {
    if (asked)
      return Status(ESMIO_EINVAL, at +
                                      ": chunking, compression and quantisation need backend "
                                      "netcdf4 (this file uses " +
                                      file->settings.backend + ")");
    return Status::ok();
  }
  backend::VarStorage s;
  const bool scalar = file_shape.empty();
  switch (chunks.kind) {
    case codec::ChunkChoice::Kind::automatic:
      if (!scalar) {
        if (var.record) s.chunks.push_back(1);
        // The partition the plans use: one chunk never spans two tasks' ranges.
        const decomp::BoxPartition partition(
            var.shape, decomp::record_units(var.shape, file->io->group.layout.ntasks()));
        for (int64_t c : partition.unit_chunk(decomp::BoxPartition::kTargetUnitElements))
          s.chunks.push_back(c);
      }
      break;
    case codec::ChunkChoice::Kind::contiguous:
      if (var.record)
        return Status(ESMIO_EINVAL, at + ": a variable with the unlimited dimension cannot be "
                                         "contiguous (netCDF-4 stores it in chunks)");
      s.contiguous = true;
      break;
    case codec::ChunkChoice::Kind::shape: {
      bool fits = chunks.shape.size() == file_shape.size();
      for (std::size_t d = 0; fits && d < file_shape.size(); ++d)
        fits = (var.record && d == 0) || chunks.shape[d] <= std::max<int64_t>(file_shape[d], 1);
      if (!fits)
        return Status(ESMIO_ESHAPE, at + ": chunk shape " + shape_text(chunks.shape) +
                                        " does not fit the variable's shape " +
                                        shape_text(file_shape) +
                                        " (one length per dimension, none longer than it)");
      s.chunks = chunks.shape;
      break;
    }
  }
  if (codec.codec != "none" && (scalar || s.contiguous))
    return Status(ESMIO_EINVAL, at + ": compression needs chunked storage (the variable is " +
                                    (scalar ? "a scalar" : "contiguous") + ")");
  s.codec = codec.codec;
  s.level = codec.level;
  s.shuffle = codec.shuffle;
  if (quantize.mode != "none") {
    if (var.type != ESMIO_FLOAT && var.type != ESMIO_DOUBLE)
      return Status(ESMIO_EBADTYPE, at +
                                        ": quantisation applies to float and double variables, "
                                        "not " +
                                        type_name(var.type));
    if (quantize.mode == "information") {
      // Neighbour pairs are counted on each task's slab, with a halo to the next task: that
      // needs slabs in file order, which only the box layout gives.
      if (file->io->settings.layout != "box")
        return Status(ESMIO_EINVAL, at +
                                        ": quantize mode 'information' needs layout=box (this "
                                        "instance uses layout=" +
                                        file->io->settings.layout + ")");
      *information = quantize;
      *out = s;
      return Status::ok();
    }
    const bool single = var.type == ESMIO_FLOAT;
    const int most = quantize.mode == "bitround" ? (single ? 23 : 52) : (single ? 7 : 15);
    if (quantize.digits > most)
      return Status(ESMIO_ESETTING, at + ": " + quantize.mode + ":" +
                                        std::to_string(quantize.digits) + " is more than the " +
                                        std::to_string(most) + " a " + type_name(var.type) +
                                        " has");
    s.quantize = quantize.mode;
    s.quantize_digits = quantize.digits;
  }
  *out = s;
  return Status::ok();
}

}  // namespace

Status resolve_storage(const esmio_file *file, datapath::StoragePlan *plan) {
  std::vector<std::pair<int, backend::VarStorage>> *storage = &plan->storage;
  std::vector<std::pair<int, codec::QuantizeChoice>> *information = &plan->information;
  storage->clear();
  information->clear();
  std::map<std::string, std::string> chunking, compression, quantize;
  ESMIO_RETURN_IF_ERROR(codec::parse_per_variable(file->settings.chunking,
                                                  "chunking setting of " + where(file), &chunking));
  ESMIO_RETURN_IF_ERROR(codec::parse_per_variable(
      file->settings.compression, "compression setting of " + where(file), &compression));
  ESMIO_RETURN_IF_ERROR(codec::parse_per_variable(file->settings.quantize,
                                                  "quantize setting of " + where(file), &quantize));
  for (std::size_t v = 0; v < file->vars.size(); ++v) {
    const datapath::Variable &var = file->vars[v];
    if (var.storage_defined) continue;
    codec::ChunkChoice chunks;
    codec::CodecChoice codec;
    codec::QuantizeChoice quant;
    const std::string origin = "esmio_enddef: " + where(file, static_cast<int>(v));
    bool chunks_default = false, codec_default = false, quantize_default = false;
    ESMIO_RETURN_IF_ERROR(choose(chunking, var.name, var.chunks, origin + ": chunking",
                                 codec::parse_chunks, &chunks, &chunks_default));
    ESMIO_RETURN_IF_ERROR(choose(compression, var.name, var.codec, origin + ": compression",
                                 codec::parse_codec, &codec, &codec_default));
    ESMIO_RETURN_IF_ERROR(choose(quantize, var.name, var.quantize, origin + ": quantize",
                                 codec::parse_quantize, &quant, &quantize_default));
    std::vector<int64_t> file_shape;
    for (int d : var.dimids) file_shape.push_back(file->dims[d].len);
    if (file->capabilities.chunked_storage)
      fit_defaults(var, file_shape, chunks_default, codec_default, quantize_default, &chunks,
                   &codec, &quant);
    backend::VarStorage s;
    codec::QuantizeChoice information_choice;  // mode "none" unless information applies
    ESMIO_RETURN_IF_ERROR(storage_of(file, static_cast<int>(v), file_shape, chunks, codec, quant,
                                     &s, &information_choice));
    if (!s.empty()) storage->emplace_back(static_cast<int>(v), s);
    if (information_choice.mode == "information")
      information->emplace_back(static_cast<int>(v), information_choice);
  }
  return Status::ok();
}

}  // namespace esmio::api

using esmio::Status;
using esmio::api::guarded;
using esmio::api::where;

namespace {

// The checks every esmio_def_var_* call shares: a file in define mode, a variable defined since
// the last enddef (netCDF-4 fixes storage at enddef).
Status check_storage_call(const esmio_file *file, int varid, const char *what) {
  if (varid < 0 || varid >= static_cast<int>(file->vars.size()))
    return Status(ESMIO_EBADID, std::string(what) + ": no variable with id " +
                                    std::to_string(varid) + " in " + where(file));
  if (!file->define_mode)
    return Status(ESMIO_ENOTINDEFINE, std::string(what) + ": " + where(file, varid) +
                                          ": the file is in data mode (storage is set before "
                                          "esmio_enddef)");
  if (file->vars[varid].storage_defined)
    return Status(ESMIO_EINVAL, std::string(what) + ": " + where(file, varid) +
                                    ": its storage was fixed at an earlier esmio_enddef");
  return Status::ok();
}

// request: the call for the file's engine (the storage itself is kept in the mirror by set).
template <typename Set>
int storage_call(esmio_file_t handle, int varid, const char *what,
                 esmio::datapath::StorageRequest request, Set set) {
  return guarded([&] {
    esmio_file *file = nullptr;
    ESMIO_RETURN_IF_ERROR(esmio::api::resolve(handle, what, &file));
    Status local = check_storage_call(file, varid, what);
    if (local.is_ok()) local = set(file, file->vars[varid]);
    ESMIO_RETURN_IF_ERROR(esmio::agree(file->io->group.comm, local));
    request.varid = varid;
    return file->engine->def_storage(request);
  });
}

}  // namespace

extern "C" {

int esmio_def_var_chunking(esmio_file_t file_handle, int varid, int ndims, const int64_t *chunks) {
  std::vector<int64_t> shape;
  for (int d = 0; chunks != nullptr && d < ndims; ++d) shape.push_back(chunks[d]);
  esmio::datapath::StorageRequest request;
  request.kind = esmio::datapath::StorageRequest::Kind::chunking;
  request.chunks = shape;
  return storage_call(
      file_handle, varid, "esmio_def_var_chunking", request,
      [&](esmio_file *file, esmio::datapath::Variable &var) {
        const std::string at = "esmio_def_var_chunking: " + where(file, varid);
        if (ndims == 0 && chunks == nullptr) {  // back to esmio's default
          var.chunks = esmio::codec::ChunkChoice{};
          return Status::ok();
        }
        if (ndims != static_cast<int>(var.dimids.size()) || chunks == nullptr)
          return Status(ESMIO_ESHAPE, at + ": " + std::to_string(ndims) + " chunk lengths for " +
                                          std::to_string(var.dimids.size()) + " dimensions");
        esmio::codec::ChunkChoice c;
        c.kind = esmio::codec::ChunkChoice::Kind::shape;
        for (int d = 0; d < ndims; ++d) {
          if (chunks[d] < 1)
            return Status(ESMIO_ESHAPE, at + ": chunk length " + std::to_string(chunks[d]) +
                                            " for dimension " + std::to_string(d));
          c.shape.push_back(chunks[d]);
        }
        var.chunks = c;
        return Status::ok();
      });
}

int esmio_def_var_compress(esmio_file_t file_handle, int varid, const char *spec) {
  esmio::datapath::StorageRequest request;
  request.kind = esmio::datapath::StorageRequest::Kind::compress;
  request.spec = spec ? spec : "";
  return storage_call(file_handle, varid, "esmio_def_var_compress", request,
                      [&](esmio_file *file, esmio::datapath::Variable &var) {
                        esmio::codec::CodecChoice c;
                        ESMIO_RETURN_IF_ERROR(esmio::codec::parse_codec(
                            spec ? spec : "", "esmio_def_var_compress: " + where(file, varid), &c));
                        var.codec = c;
                        return Status::ok();
                      });
}

int esmio_def_var_quantize(esmio_file_t file_handle, int varid, const char *spec) {
  esmio::datapath::StorageRequest request;
  request.kind = esmio::datapath::StorageRequest::Kind::quantize;
  request.spec = spec ? spec : "";
  return storage_call(file_handle, varid, "esmio_def_var_quantize", request,
                      [&](esmio_file *file, esmio::datapath::Variable &var) {
                        esmio::codec::QuantizeChoice q;
                        ESMIO_RETURN_IF_ERROR(esmio::codec::parse_quantize(
                            spec ? spec : "", "esmio_def_var_quantize: " + where(file, varid), &q));
                        var.quantize = q;
                        return Status::ok();
                      });
}

}  // extern "C"
