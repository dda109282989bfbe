#include "datapath/mirror.hpp"

#include <cstdint>
#include <cstring>
#include <utility>

#include "common/agree.hpp"
#include "common/types.hpp"

namespace esmio::datapath {

void mirror_schema(const FileSchema &schema, FileState *file) {
  file->dims.clear();
  file->vars.clear();
  file->dim_ids.clear();
  file->var_ids.clear();
  for (const SchemaDim &d : schema.dims) {
    file->dim_ids.emplace(d.name, static_cast<int>(file->dims.size()));
    file->dims.push_back(Dimension{d.name, d.len, d.unlimited});
  }
  file->nrecords = file->nrecords_agreed = file->written_records = schema.nrecords();
  for (const SchemaVar &s : schema.vars) {
    Variable v;
    v.name = s.name;
    v.type = s.type;
    v.dimids = s.dimids;
    v.fill = s.fill;
    v.record = !v.dimids.empty() && file->dims[v.dimids[0]].unlimited;
    for (std::size_t k = v.record ? 1 : 0; k < v.dimids.size(); ++k)
      v.shape.push_back(file->dims[v.dimids[k]].len);
    v.filled_below = v.record ? file->nrecords : 1;  // data already there is not refilled
    v.storage_defined = true;                        // fixed when the file was written
    file->var_ids.emplace(v.name, static_cast<int>(file->vars.size()));
    file->vars.push_back(std::move(v));
  }
}

Status share_schema(const Group &group, FileState *file, const backend::Schema &schema) {
  // Backend calls are collective over the ranks holding the file: all of them read the fill
  // values; the root alone encodes.
  FileSchema found;
  if (file->backend) {
    for (const backend::DimInfo &d : schema.dims)
      found.dims.push_back(SchemaDim{d.name, d.len, d.unlimited});
    for (std::size_t v = 0; v < schema.vars.size(); ++v) {
      SchemaVar var{schema.vars[v].name, schema.vars[v].type, schema.vars[v].dimids, {}};
      var.fill.resize(type_size(var.type));
      default_fill_value(var.type, var.fill.data());
      esmio_type att_type;
      int64_t att_len = 0;
      if (file->backend->inq_att(static_cast<int>(v), "_FillValue", &att_type, &att_len).is_ok() &&
          att_type == var.type && att_len == 1)
        file->backend->get_att(static_cast<int>(v), "_FillValue", var.type, var.fill.data());
      found.vars.push_back(std::move(var));
    }
  }
  std::string bytes;
  if (group.rank == file->backend_root) bytes = encode_schema(found);
  const auto failed = [&](const char *call, int rc) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int n = 0;
    MPI_Error_string(rc, text, &n);
    return Status(ESMIO_EMPI, "esmio_open: " + where(*file) + ": broadcasting its schema, " + call +
                                  " failed: " + std::string(text, n));
  };
  Status status;
  int64_t len = static_cast<int64_t>(bytes.size());
  int rc = MPI_Bcast(&len, 1, MPI_INT64_T, file->backend_root, group.comm);
  if (rc != MPI_SUCCESS) status = failed("MPI_Bcast", rc);
  // Every rank takes part in the second broadcast whatever the first did (a rank that left
  // would leave the others waiting); a failed rank receives into nothing.
  if (!status.is_ok() || len < 0 || len > INT32_MAX) len = 0;
  bytes.resize(static_cast<std::size_t>(len));
  rc = MPI_Bcast(bytes.data(), static_cast<int>(len), MPI_CHAR, file->backend_root, group.comm);
  if (rc != MPI_SUCCESS && status.is_ok()) status = failed("MPI_Bcast", rc);
  FileSchema shared;
  if (status.is_ok()) status = decode_schema(bytes.data(), bytes.size(), "esmio_open", &shared);
  ESMIO_RETURN_IF_ERROR(agree(group.comm, status));
  mirror_schema(shared, file);
  return Status::ok();
}

void mirror_def_dim(FileState *file, const std::string &name, int64_t len) {
  file->dim_ids.emplace(name, static_cast<int>(file->dims.size()));
  file->dims.push_back(Dimension{name, len == ESMIO_UNLIMITED ? 0 : len, len == ESMIO_UNLIMITED});
}

void mirror_def_var(FileState *file, const std::string &name, esmio_type type,
                    const std::vector<int> &dimids) {
  Variable v;
  v.name = name;
  v.type = type;
  v.dimids = dimids;
  v.record = !dimids.empty() && file->dims[dimids[0]].unlimited;
  for (std::size_t k = v.record ? 1 : 0; k < dimids.size(); ++k)
    v.shape.push_back(file->dims[dimids[k]].len);
  v.fill.resize(type_size(type));
  default_fill_value(type, v.fill.data());
  file->var_ids.emplace(name, static_cast<int>(file->vars.size()));
  file->vars.push_back(std::move(v));
}

void mirror_put_att(FileState *file, int varid, const std::string &name, esmio_type type,
                    int64_t len, const void *values) {
  if (varid >= 0 && name == "_FillValue" && len == 1)
    std::memcpy(file->vars[varid].fill.data(), values, type_size(type));
}

}  // namespace esmio::datapath
