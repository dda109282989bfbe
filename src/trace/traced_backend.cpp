#include "trace/traced_backend.hpp"

#include "common/types.hpp"

namespace esmio::trace {
namespace {

int64_t request_bytes(const std::vector<backend::Box> &boxes, esmio_type buftype) {
  int64_t elements = 0;
  for (const backend::Box &b : boxes) {
    int64_t n = 1;
    for (int64_t c : b.count) n *= c;
    elements += n;
  }
  return elements * static_cast<int64_t>(type_size(buftype));
}

class TracedBackend final : public backend::Backend {
 public:
  TracedBackend(std::unique_ptr<backend::Backend> inner, Counters *file, Counters *instance)
      : inner_(std::move(inner)), file_(file), instance_(instance) {}

  const char *name() const override { return inner_->name(); }
  backend::Capabilities capabilities() const override { return inner_->capabilities(); }
  Status create(MPI_Comm comm, const std::string &path,
                const backend::FileOptions &options) override {
    return inner_->create(comm, path, options);
  }
  Status open(MPI_Comm comm, const std::string &path, bool writable,
              const backend::FileOptions &options, backend::Schema *schema) override {
    return inner_->open(comm, path, writable, options, schema);
  }
  Status def_dim(const std::string &name, int64_t len, int *dimid) override {
    return inner_->def_dim(name, len, dimid);
  }
  Status def_var(const std::string &name, esmio_type type, const std::vector<int> &dimids,
                 int *varid) override {
    return inner_->def_var(name, type, dimids, varid);
  }
  Status put_att(int varid, const std::string &name, esmio_type type, int64_t len,
                 const void *values) override {
    return inner_->put_att(varid, name, type, len, values);
  }
  Status def_var_storage(int varid, const backend::VarStorage &storage) override {
    return inner_->def_var_storage(varid, storage);
  }
  Status enddef() override { return inner_->enddef(); }
  Status redef() override { return inner_->redef(); }
  Status inq_att(int varid, const std::string &name, esmio_type *type, int64_t *len) override {
    return inner_->inq_att(varid, name, type, len);
  }
  Status inq_att_names(int varid, std::vector<std::string> *names) override {
    return inner_->inq_att_names(varid, names);
  }
  Status get_att(int varid, const std::string &name, esmio_type memtype, void *values) override {
    return inner_->get_att(varid, name, memtype, values);
  }
  Status put_boxes(int varid, const std::vector<backend::Box> &boxes, esmio_type buftype,
                   const void *buffer) override {
    const int64_t bytes = request_bytes(boxes, buftype);
    record_request(bytes);
    Scope scope(Counter::backend_write, file_, instance_, bytes);
    return inner_->put_boxes(varid, boxes, buftype, buffer);
  }
  Status get_boxes(int varid, const std::vector<backend::Box> &boxes, esmio_type buftype,
                   void *buffer) override {
    const int64_t bytes = request_bytes(boxes, buftype);
    record_request(bytes);
    Scope scope(Counter::backend_read, file_, instance_, bytes);
    return inner_->get_boxes(varid, boxes, buftype, buffer);
  }
  int64_t read_ahead(int varid, int64_t record, const std::vector<Run> &ranges) override {
    Scope scope(Counter::read_ahead, file_, instance_);
    const int64_t asked = inner_->read_ahead(varid, record, ranges);
    scope.set_bytes(asked);
    return asked;
  }
  void read_ahead_cancel(int varid, int64_t record) override {
    inner_->read_ahead_cancel(varid, record);
  }

  // A batch is one request for the histogram: the backend ends it with one collective wait.
  Status put_requests(const std::vector<PutRequest> &requests) override {
    int64_t bytes = 0;
    for (const PutRequest &r : requests) bytes += request_bytes(r.boxes, r.buftype);
    record_request(bytes);
    Scope scope(Counter::backend_write, file_, instance_, bytes);
    return inner_->put_requests(requests);
  }
  bool takes_extents() const override { return inner_->takes_extents(); }
  Status put_extents(const std::vector<ExtentRequest> &requests) override {
    int64_t bytes = 0;
    for (const ExtentRequest &r : requests)
      for (const Stretch &s : r.stretches)
        bytes += s.length * static_cast<int64_t>(type_size(r.buftype));
    record_request(bytes);
    Scope scope(Counter::backend_write, file_, instance_, bytes);
    return inner_->put_extents(requests);
  }
  Status inq_nrecords(int64_t *nrecords) override { return inner_->inq_nrecords(nrecords); }
  Status sync() override { return inner_->sync(); }
  Status close() override { return inner_->close(); }
  Status limit_records(int64_t nrecords) override { return inner_->limit_records(nrecords); }

 private:
  void record_request(int64_t bytes) {
    file_->add_request(bytes);
    if (instance_) instance_->add_request(bytes);
  }

  std::unique_ptr<backend::Backend> inner_;
  Counters *file_;
  Counters *instance_;
};

}  // namespace

std::unique_ptr<backend::Backend> traced(std::unique_ptr<backend::Backend> inner, Counters *file,
                                         Counters *instance) {
  return std::make_unique<TracedBackend>(std::move(inner), file, instance);
}

}  // namespace esmio::trace
