#include "datapath/file_state.hpp"

namespace esmio::datapath {

std::string where(const FileState &file, int varid) {
  std::string w = "file '" + file.path + "'";
  if (varid >= 0 && varid < static_cast<int>(file.vars.size()))
    w = "variable '" + file.vars[varid].name + "' in " + w;
  return w;
}

}  // namespace esmio::datapath
