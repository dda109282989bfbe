#include "decomp/e3sm_map.hpp"

#include <netcdf.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "decomp/e3sm_spec.hpp"

namespace esmio::decomp {

namespace {

class NcFile {
 public:
  ~NcFile() {
    if (ncid_ >= 0) nc_close(ncid_);
  }

  Status open(const std::string &path) {
    path_ = path;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0)
      return Status(ESMIO_EIO, path + ": cannot open: " + std::strerror(errno));
    file_size_ = static_cast<int64_t>(st.st_size);
    int ncid = -1;
    int err = nc_open(path.c_str(), NC_NOWRITE, &ncid);
    if (err != NC_NOERR)
      return Status(err == NC_ENOTNC ? ESMIO_ENOTNC : ESMIO_EIO,
                    path + ": cannot open as netCDF: " + nc_strerror(err));
    ncid_ = ncid;
    int format = 0;
    if (nc_inq_format(ncid_, &format) == NC_NOERR)
      classic_ = format == NC_FORMAT_CLASSIC || format == NC_FORMAT_64BIT_OFFSET ||
                 format == NC_FORMAT_CDF5;
    return Status::ok();
  }

  int id() const { return ncid_; }
  const std::string &path() const { return path_; }

  bool has_var(const std::string &name) const {
    int varid = 0;
    return nc_inq_varid(ncid_, name.c_str(), &varid) == NC_NOERR;
  }

  Status error(const std::string &var, const std::string &what) const {
    return Status(ESMIO_EDECOMP, path_ + ": variable " + var + ": " + what);
  }

  // A one-dimensional integer variable: its id and length.
  Status int_var(const std::string &name, int *varid, int64_t *len) const {
    int err = nc_inq_varid(ncid_, name.c_str(), varid);
    if (err != NC_NOERR) return error(name, std::string("missing: ") + nc_strerror(err));
    int ndims = 0, dimid = 0;
    nc_type type = NC_NAT;
    if ((err = nc_inq_varndims(ncid_, *varid, &ndims)) != NC_NOERR)
      return error(name, nc_strerror(err));
    if (ndims != 1) return error(name, "has " + std::to_string(ndims) + " dimensions, expected 1");
    if ((err = nc_inq_vartype(ncid_, *varid, &type)) != NC_NOERR ||
        (err = nc_inq_vardimid(ncid_, *varid, &dimid)) != NC_NOERR)
      return error(name, nc_strerror(err));
    switch (type) {
      case NC_BYTE:
      case NC_SHORT:
      case NC_INT:
      case NC_INT64:
      case NC_UBYTE:
      case NC_USHORT:
      case NC_UINT:
        break;
      default:
        return error(name, "has type " + std::to_string(type) + ", not an integer type");
    }
    std::size_t n = 0, size = 1;
    if ((err = nc_inq_dimlen(ncid_, dimid, &n)) != NC_NOERR ||
        (err = nc_inq_type(ncid_, type, nullptr, &size)) != NC_NOERR)
      return error(name, nc_strerror(err));
    *len = static_cast<int64_t>(n);
    // In the classic formats a fixed variable's values are all in the file, so a corrupt
    // length is caught here instead of by a huge allocation below.
    if (*len < 0 || (classic_ && *len > file_size_ / static_cast<int64_t>(size)))
      return error(name, std::to_string(*len) + " values do not fit in the file's " +
                             std::to_string(file_size_) + " bytes");
    return Status::ok();
  }

  Status read(const std::string &name, int varid, int64_t start, int64_t count,
              std::vector<long long> *values) const {
    values->assign(static_cast<std::size_t>(count), 0);
    if (count == 0) return Status::ok();
    const std::size_t s = static_cast<std::size_t>(start), c = static_cast<std::size_t>(count);
    int err = nc_get_vara_longlong(ncid_, varid, &s, &c, values->data());
    if (err != NC_NOERR)
      return Status(ESMIO_EIO, path_ + ": variable " + name + ": reading [" +
                                   std::to_string(start) + ", " + std::to_string(start + count) +
                                   "): " + nc_strerror(err));
    return Status::ok();
  }

  // Reads a per-process count variable (length nprocs) and returns each process's start in the
  // variable it indexes (whose length is data_len), checking that the counts tile it exactly.
  Status counts(const std::string &name, int64_t nprocs, const std::string &data_name,
                int64_t data_len, std::vector<long long> *count, std::vector<int64_t> *first) {
    int varid = 0;
    int64_t len = 0;
    ESMIO_RETURN_IF_ERROR(int_var(name, &varid, &len));
    if (len != nprocs)
      return error(name, "has " + std::to_string(len) + " entries, expected one per process (" +
                             std::to_string(nprocs) + ")");
    ESMIO_RETURN_IF_ERROR(read(name, varid, 0, nprocs, count));
    first->assign(static_cast<std::size_t>(nprocs), 0);
    int64_t sum = 0;
    for (int64_t p = 0; p < nprocs; ++p) {
      const long long c = (*count)[static_cast<std::size_t>(p)];
      if (c < 0 || c > data_len - sum)
        return error(name, "process " + std::to_string(p) + ": count " + std::to_string(c) +
                               " is negative or runs past the end of " + data_name + " (" +
                               std::to_string(data_len) + " entries)");
      (*first)[static_cast<std::size_t>(p)] = sum;
      sum += c;
    }
    if (sum != data_len)
      return error(name, "counts sum to " + std::to_string(sum) + " but " + data_name + " has " +
                             std::to_string(data_len) + " entries");
    return Status::ok();
  }

 private:
  std::string path_;
  int ncid_ = -1;
  int64_t file_size_ = 0;
  bool classic_ = false;
};

Status e3sm_dims(const NcFile &nc, const E3smSpec &spec, const std::string &format,
                 std::vector<int64_t> *dims) {
  const std::string att = spec.name + ".dims";
  nc_type type = NC_NAT;
  std::size_t len = 0;
  std::vector<int64_t> stored;
  if (nc_inq_att(nc.id(), NC_GLOBAL, att.c_str(), &type, &len) == NC_NOERR) {
    if (len < 1 || len > ESMIO_MAX_DIMS || type == NC_CHAR || type == NC_STRING ||
        type == NC_FLOAT || type == NC_DOUBLE)
      return Status(ESMIO_EDECOMP, nc.path() + ": attribute " + att + " is not a list of 1.." +
                                       std::to_string(ESMIO_MAX_DIMS) + " integers");
    std::vector<long long> values(len);
    int err = nc_get_att_longlong(nc.id(), NC_GLOBAL, att.c_str(), values.data());
    if (err != NC_NOERR)
      return Status(ESMIO_EDECOMP, nc.path() + ": attribute " + att + ": " + nc_strerror(err));
    stored.assign(values.begin(), values.end());
    if (checked_product(stored) < 0)
      return Status(ESMIO_EDECOMP, nc.path() + ": attribute " + att + " = " + dims_text(stored) +
                                       ": lengths must be positive and their product fit 64 bits");
    const std::string ndims_att = spec.name + ".ndims";
    std::size_t ndims_len = 0;
    int ndims = static_cast<int>(len);
    if (nc_inq_attlen(nc.id(), NC_GLOBAL, ndims_att.c_str(), &ndims_len) == NC_NOERR &&
        (ndims_len != 1 ||
         nc_get_att_int(nc.id(), NC_GLOBAL, ndims_att.c_str(), &ndims) != NC_NOERR ||
         ndims != static_cast<int>(len)))
      return Status(ESMIO_EDECOMP, nc.path() + ": attribute " + ndims_att +
                                       " is not the single value " + std::to_string(len) +
                                       " that " + att + " = " + dims_text(stored) + " implies");
  }
  if (!spec.dims.empty()) {
    if (!stored.empty() && stored != spec.dims)
      return Status(ESMIO_EINVAL, nc.path() + ": " + format + " gives dims " +
                                      dims_text(spec.dims) + " but the file stores " + att + " = " +
                                      dims_text(stored));
    *dims = spec.dims;
    return Status::ok();
  }
  if (!stored.empty()) {
    *dims = stored;
    return Status::ok();
  }
  const std::string &path = nc.path();
  const std::size_t slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (known_e3sm_map_dims(base, spec.decomp, dims)) return Status::ok();
  return Status(ESMIO_EINVAL, path + ": the file does not store the global dims of " + spec.name +
                                  " (attribute " + att + "); give them in the format, e.g. 'e3sm:" +
                                  spec.name + ":72x866' (C order)");
}

// What every reader of decomposition Dk needs: the open file, the number of processes and the
// global dims.
struct E3smDecomp {
  E3smSpec spec;
  std::string format;  // for messages
  NcFile nc;
  int64_t nprocs = 0;
  std::vector<int64_t> dims;
  int64_t gsize = 0;
};

Status open_e3sm(const std::string &path, const std::string &spec_text, E3smDecomp *d) {
  ESMIO_RETURN_IF_ERROR(parse_e3sm_spec(path, spec_text, &d->spec));
  d->format = "format 'e3sm:" + spec_text + "'";
  ESMIO_RETURN_IF_ERROR(d->nc.open(path));
  const std::string nreqs_name = d->spec.name + ".nreqs";
  if (!d->nc.has_var(nreqs_name)) {
    std::string have;
    int dimid = 0;
    std::size_t num = 0;
    if (nc_inq_dimid(d->nc.id(), "num_decomp", &dimid) == NC_NOERR &&
        nc_inq_dimlen(d->nc.id(), dimid, &num) == NC_NOERR)
      have = "; the file has num_decomp = " + std::to_string(num);
    return Status(ESMIO_EINVAL, path + ": " + d->format + ": no decomposition " + d->spec.name +
                                    " in the file (no variable " + nreqs_name + have + ")");
  }
  int varid = 0;
  ESMIO_RETURN_IF_ERROR(d->nc.int_var(nreqs_name, &varid, &d->nprocs));
  if (d->nprocs < 1 || d->nprocs > std::numeric_limits<int>::max())
    return d->nc.error(nreqs_name, "the number of processes " + std::to_string(d->nprocs) +
                                       " is not within 1..2^31-1");
  ESMIO_RETURN_IF_ERROR(e3sm_dims(d->nc, d->spec, d->format, &d->dims));
  d->gsize = checked_product(d->dims);
  return Status::ok();
}

// Dk.nreqs with each process's first request, and Dk.fill_starts (all of a process's requests
// are data when the variable is absent), checked against each other.
Status e3sm_requests(E3smDecomp &d, std::vector<long long> *nreqs, std::vector<int64_t> *first,
                     std::vector<long long> *fill_starts, int64_t *total) {
  const std::string &k = d.spec.name;
  int varid = 0;
  ESMIO_RETURN_IF_ERROR(d.nc.int_var(k + ".offsets", &varid, total));
  ESMIO_RETURN_IF_ERROR(d.nc.counts(k + ".nreqs", d.nprocs, k + ".offsets", *total, nreqs, first));
  *fill_starts = *nreqs;
  const std::string fill_name = k + ".fill_starts";
  if (d.nc.has_var(fill_name)) {
    int64_t len = 0;
    ESMIO_RETURN_IF_ERROR(d.nc.int_var(fill_name, &varid, &len));
    if (len != d.nprocs)
      return d.nc.error(fill_name, "has " + std::to_string(len) +
                                       " entries, expected one per process (" +
                                       std::to_string(d.nprocs) + ")");
    ESMIO_RETURN_IF_ERROR(d.nc.read(fill_name, varid, 0, d.nprocs, fill_starts));
    for (int64_t p = 0; p < d.nprocs; ++p) {
      const long long f = (*fill_starts)[p], n = (*nreqs)[p];
      if (f < 0 || f > n)
        return d.nc.error(fill_name, "process " + std::to_string(p) + ": " + std::to_string(f) +
                                         " is not within 0.." + std::to_string(n) + " (" + k +
                                         ".nreqs)");
    }
  }
  return Status::ok();
}

Status load_e3sm_impl(const std::string &path, const std::string &spec_text, int rank, int nranks,
                      LoadedDecomp *out) {
  E3smDecomp d;
  ESMIO_RETURN_IF_ERROR(open_e3sm(path, spec_text, &d));
  const NcFile &nc = d.nc;
  const std::string &k = d.spec.name;
  const int64_t gsize = d.gsize;
  out->dims = d.dims;
  out->file_nprocs = d.nprocs;
  const int64_t last = last_own_process(d.nprocs, rank, nranks);

  const std::string raw_counts = k + ".raw_nreqs", raw_name = k + ".raw_offsets";
  std::vector<long long> count, values, lengths;
  std::vector<int64_t> first;
  if (!d.spec.runs && !d.spec.fill && nc.has_var(raw_counts) && nc.has_var(raw_name)) {
    int raw_id = 0;
    int64_t raw_len = 0;
    ESMIO_RETURN_IF_ERROR(nc.int_var(raw_name, &raw_id, &raw_len));
    ESMIO_RETURN_IF_ERROR(d.nc.counts(raw_counts, d.nprocs, raw_name, raw_len, &count, &first));
    for (int64_t p = rank; p <= last; p += nranks) {
      ESMIO_RETURN_IF_ERROR(nc.read(raw_name, raw_id, first[p], count[p], &values));
      for (std::size_t i = 0; i < values.size(); ++i) {
        const long long v = values[i];
        // 1-based like the PIO maps they were converted from, holes dropped; a 0 is what
        // netCDF-C returns for the missing tail of a truncated classic file.
        if (v < 1 || v > gsize)
          return nc.error(raw_name, "entry " + std::to_string(first[p] + int64_t(i)) +
                                        " (process " + std::to_string(p) +
                                        ") = " + std::to_string(v) + " is out of range 1.." +
                                        std::to_string(gsize) + " (1-based) for dims " +
                                        dims_text(out->dims) +
                                        (v == 0 ? "; is the file truncated?" : ""));
        out->offsets.push_back(v - 1);
      }
    }
    return Status::ok();
  }

  // Runs: requests [0, fill_starts[p]) of process p are its data, the rest its fill requests.
  const std::string off_name = k + ".offsets", len_name = k + ".lengths";
  int off_id = 0, len_id = 0;
  int64_t off_len = 0, len_len = 0;
  std::vector<long long> fill_starts;
  ESMIO_RETURN_IF_ERROR(e3sm_requests(d, &count, &first, &fill_starts, &off_len));
  ESMIO_RETURN_IF_ERROR(nc.int_var(off_name, &off_id, &off_len));
  ESMIO_RETURN_IF_ERROR(nc.int_var(len_name, &len_id, &len_len));
  if (off_len != len_len)
    return nc.error(len_name, "has " + std::to_string(len_len) + " entries but " + off_name +
                                  " has " + std::to_string(off_len));
  for (int64_t p = rank; p <= last; p += nranks) {
    const int64_t begin = first[p] + (d.spec.fill ? fill_starts[p] : 0);
    const int64_t n = d.spec.fill ? count[p] - fill_starts[p] : fill_starts[p];
    ESMIO_RETURN_IF_ERROR(nc.read(off_name, off_id, begin, n, &values));
    ESMIO_RETURN_IF_ERROR(nc.read(len_name, len_id, begin, n, &lengths));
    int64_t held = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const long long b = values[i], len = lengths[i];
      if (b < 0 || len < 1 || b >= gsize || len > gsize - b)
        return nc.error(off_name, "request " + std::to_string(begin + int64_t(i)) + " (process " +
                                      std::to_string(p) + ") = offset " + std::to_string(b) +
                                      " length " + std::to_string(len) +
                                      " is out of range for dims " + dims_text(out->dims));
      held += len;
      if (held > gsize)
        return nc.error(len_name, "process " + std::to_string(p) +
                                      ": requests cover more than the global size " +
                                      std::to_string(gsize));
      for (long long j = 0; j < len; ++j) out->offsets.push_back(b + j);
    }
  }
  return Status::ok();
}

Status inq_e3sm_impl(const std::string &path, const std::string &spec_text, E3smMapInfo *info) {
  E3smDecomp d;
  ESMIO_RETURN_IF_ERROR(open_e3sm(path, spec_text, &d));
  info->dims = d.dims;
  info->nprocs = d.nprocs;
  std::vector<long long> nreqs, fill_starts;
  std::vector<int64_t> first;
  int64_t total = 0;
  ESMIO_RETURN_IF_ERROR(e3sm_requests(d, &nreqs, &first, &fill_starts, &total));
  info->nreqs.assign(nreqs.begin(), nreqs.end());
  info->fill_starts.assign(fill_starts.begin(), fill_starts.end());
  const std::string raw_counts = d.spec.name + ".raw_nreqs";
  if (d.nc.has_var(raw_counts)) {
    int varid = 0;
    int64_t len = 0;
    std::vector<long long> raw;
    ESMIO_RETURN_IF_ERROR(d.nc.int_var(raw_counts, &varid, &len));
    if (len != d.nprocs)
      return d.nc.error(raw_counts, "has " + std::to_string(len) +
                                        " entries, expected one per process (" +
                                        std::to_string(d.nprocs) + ")");
    ESMIO_RETURN_IF_ERROR(d.nc.read(raw_counts, varid, 0, d.nprocs, &raw));
    info->raw_nreqs.assign(raw.begin(), raw.end());
  }
  return Status::ok();
}

}  // namespace

Status load_e3sm_decomp(const std::string &path, const std::string &spec, int rank, int nranks,
                        LoadedDecomp *out) {
  ESMIO_RETURN_IF_ERROR(check_rank(path, rank, nranks));
  return guarded_load(path, out, [&] { return load_e3sm_impl(path, spec, rank, nranks, out); });
}

Status inq_e3sm_map(const std::string &path, const std::string &spec, E3smMapInfo *info) {
  *info = E3smMapInfo();
  Status st;
  try {
    st = inq_e3sm_impl(path, spec, info);
  } catch (const std::bad_alloc &) {
    st = Status(ESMIO_ENOMEM, path + ": out of memory reading the decomposition tables");
  }
  if (!st.is_ok()) *info = E3smMapInfo();
  return st;
}

}  // namespace esmio::decomp
