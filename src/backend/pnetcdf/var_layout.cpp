#include "backend/pnetcdf/var_layout.hpp"

namespace esmio::backend::pnetcdf {

void box_runs(const VarLayout &layout, const int64_t *start, const int64_t *count, const char *data,
              std::vector<Run> *runs) {
  const std::size_t ndims = layout.len.size();
  const std::size_t first = layout.record ? 1 : 0;  // the first dimension within a record
  for (std::size_t d = 0; d < ndims; ++d)
    if (count[d] <= 0) return;
  // Dimensions inner..ndims-1 form one run: those after inner span their whole length.
  std::size_t inner = ndims;
  int64_t run_elems = 1;
  while (inner > first) {
    const std::size_t d = inner - 1;
    run_elems *= count[d];
    inner = d;
    if (count[d] != layout.len[d]) break;
  }
  const int64_t run_bytes = run_elems * layout.esize;
  const int64_t records = layout.record ? count[0] : 1;
  const int64_t record0 = layout.record ? start[0] : 0;
  // An odometer over the dimensions [first, inner) of the box.
  std::vector<int64_t> at(ndims, 0);
  const char *src = data;
  for (int64_t r = 0; r < records; ++r) {
    for (std::size_t d = first; d < inner; ++d) at[d] = 0;
    while (true) {
      int64_t linear = 0;
      for (std::size_t d = first; d < ndims; ++d)
        linear = linear * layout.len[d] + start[d] + (d < inner ? at[d] : 0);
      runs->push_back(
          Run{layout.offset(record0 + r, linear), src, run_bytes, static_cast<int>(layout.esize)});
      src += run_bytes;
      bool advanced = false;
      for (std::size_t d = inner; d > first && !advanced;) {
        --d;
        advanced = ++at[d] < count[d];
        if (!advanced) at[d] = 0;
      }
      if (!advanced) break;
    }
  }
}

}  // namespace esmio::backend::pnetcdf
