// --plot: hands the JSON to tools/esmio_bench_plot.py (matplotlib, Debian's /usr/bin/python3).
#pragma once

#include <string>

namespace esmio_bench {

// Returns the script's exit status (0 on success), or -1 when the script cannot be found.
int draw_plot(const std::string &json_path, const std::string &png_path);

}  // namespace esmio_bench
