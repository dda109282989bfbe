#include "datapath/file_state.hpp"

namespace esmio::datapath {

std::string where(const FileState &file, int varid) {
  std::string w = "file '" + file.path + "'";
  if (varid >= 0 && varid < static_cast<int>(file.vars.size()))
    w = "variable '" + file.vars[varid].name + "' in " + w;
  return w;
}

namespace {

int id_of(const std::unordered_map<std::string, int> &ids, const std::string &name) {
  const auto found = ids.find(name);
  return found == ids.end() ? -1 : found->second;
}

}  // namespace

int dim_id(const FileState &file, const std::string &name) { return id_of(file.dim_ids, name); }

int var_id(const FileState &file, const std::string &name) { return id_of(file.var_ids, name); }

}  // namespace esmio::datapath
