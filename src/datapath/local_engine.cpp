#include "datapath/local_engine.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "common/agree.hpp"
#include "common/types.hpp"
#include "datapath/close.hpp"
#include "datapath/define.hpp"
#include "datapath/file_backend.hpp"
#include "datapath/flush.hpp"
#include "datapath/gathered.hpp"
#include "datapath/mirror.hpp"
#include "datapath/probe.hpp"
#include "datapath/read.hpp"
#include "datapath/vara.hpp"
#include "datapath/write.hpp"
#include "stage/publish.hpp"

namespace esmio::datapath {
namespace {

class LocalEngine final : public Engine {
 public:
  LocalEngine(Group &group, FileState &file, std::vector<PendingCopy> *later)
      : group_(group), file_(file), later_(later) {}

  Status prepare(const FileSetup &setup) override {
    setup_ = setup;
    // Only the pnetcdf backend's own reads (direct_read) take the hints.
    file_.read_ahead_bytes =
        setup.backend == "pnetcdf" && setup.options.direct_read ? setup.read_ahead : 0;
    file_.read_batch_bytes = setup.read_ahead;
    std::unique_ptr<backend::Backend> made;
    ESMIO_RETURN_IF_ERROR(make_file_backend(group_, &file_, setup, &made));
    if (file_.gather_to_root) {
      file_.backend_root = 0;
      if (group_.rank == 0) {
        file_.backend = std::move(made);
        file_.backend_comm = MPI_COMM_SELF;
      }
    } else {
      file_.backend_root = group_.layout.io_rank(0);
      if (group_.task >= 0) {
        file_.backend = std::move(made);
        file_.backend_comm = group_.io_comm;
      }
    }
    return Status::ok();
  }

  Status create() override {
    // The stage must be there, and the same directory for every task that copies it back.
    if (file_.staged) {
      const Status status = stage::check_stage_dir(copiers(group_), setup_.stage_dir);
      if (!status.is_ok())
        return Status(status.code(),
                      "esmio_create: file '" + file_.path + "': " + status.message());
    }
    Status status;
    if (file_.backend) {
      // The temporary name is esmio's: a partial one left by a killed run is overwritten.
      backend::FileOptions options = setup_.options;
      if (file_.atomic || file_.staged) options.clobber = true;
      status = file_.backend->create(file_.backend_comm, file_.storage_path, options);
    }
    return explain_create_failure(group_, file_.path, agree(group_.comm, status));
  }

  Status open(int mode, const OnDisk &on_disk) override {
    backend::Schema schema;
    Status status;
    if (file_.gather_to_root)
      status = check_classic_extent(group_, file_.path, on_disk, setup_.options);
    if (file_.backend && status.is_ok())
      status = file_.backend->open(file_.backend_comm, file_.path, mode == ESMIO_WRITE,
                                   setup_.options, &schema);
    ESMIO_RETURN_IF_ERROR(explain_open_failure(on_disk, file_.path, agree(group_.comm, status)));
    return share_schema(group_, &file_, schema);
  }

  Status def_dim(const Call &call, const std::string &name, int64_t len) override {
    int id = 0;
    ESMIO_RETURN_IF_ERROR(define(group_, &file_, call,
                                 [&](backend::Backend &b) { return b.def_dim(name, len, &id); }));
    mirror_def_dim(&file_, name, len);
    return Status::ok();
  }

  Status def_var(const Call &call, const std::string &name, esmio_type type,
                 const std::vector<int> &dimids) override {
    int id = 0;
    ESMIO_RETURN_IF_ERROR(define(group_, &file_, call, [&](backend::Backend &b) {
      return b.def_var(name, type, dimids, &id);
    }));
    mirror_def_var(&file_, name, type, dimids);
    return Status::ok();
  }

  Status put_att(const Call &call, int varid, const std::string &name, esmio_type type, int64_t len,
                 const void *values) override {
    ESMIO_RETURN_IF_ERROR(define(group_, &file_, call, [&](backend::Backend &b) {
      return b.put_att(varid, name, type, len, values);
    }));
    mirror_put_att(&file_, varid, name, type, len, values);
    return Status::ok();
  }

  // The mirror holds the request until enddef hands the storage to the backend.
  Status def_storage(const StorageRequest &) override { return Status::ok(); }

  Status enddef(const Call &call, const StoragePlan &plan) override {
    return end_definitions(group_, &file_, call, plan);
  }

  Status redef() override {
    ESMIO_RETURN_IF_ERROR(flush_cache(group_, &file_));  // pending writes need data mode
    ESMIO_RETURN_IF_ERROR(
        agree(group_.comm, file_.backend ? file_.backend->redef() : Status::ok()));
    file_.define_mode = true;
    return Status::ok();
  }

  // Read where the file is held, broadcast as one block of NUL-terminated names.
  Status att_names(int varid, std::vector<std::string> *names) override {
    Status status;
    std::string block;
    if (file_.backend) {
      status = file_.backend->inq_att_names(varid, names);
      for (const auto &n : *names) block.append(n).push_back('\0');
    }
    ESMIO_RETURN_IF_ERROR(agree(group_.comm, status));
    int64_t size = static_cast<int64_t>(block.size());
    ESMIO_RETURN_IF_ERROR(broadcast(&size, 1, MPI_INT64_T, "attribute names"));
    block.resize(static_cast<std::size_t>(size));
    ESMIO_RETURN_IF_ERROR(
        broadcast(block.data(), static_cast<int>(size), MPI_CHAR, "attribute names"));
    names->clear();
    for (std::size_t at = 0; at < block.size();) {
      const std::size_t end = block.find('\0', at);
      names->push_back(block.substr(at, end - at));
      at = end + 1;
    }
    return Status::ok();
  }

  Status inq_att(int varid, const std::string &name, esmio_type *type, int64_t *len) override {
    int64_t info[2] = {0, 0};
    Status status;
    if (file_.backend) {
      esmio_type t = ESMIO_BYTE;
      status = file_.backend->inq_att(varid, name, &t, &info[1]);
      info[0] = t;
    }
    ESMIO_RETURN_IF_ERROR(agree(group_.comm, status));
    ESMIO_RETURN_IF_ERROR(broadcast(info, 2, MPI_INT64_T, "esmio_inq_att"));
    if (type) *type = static_cast<esmio_type>(info[0]);
    if (len) *len = info[1];
    return Status::ok();
  }

  Status get_att(int varid, const std::string &name, esmio_type memtype, int64_t len,
                 void *values) override {
    Status status;
    if (file_.backend) {
      esmio_type t = ESMIO_BYTE;
      int64_t n = 0;
      status = file_.backend->inq_att(varid, name, &t, &n);
      if (status.is_ok() && n != len)
        status = Status(ESMIO_EINVAL, "esmio_get_att: attribute '" + name + "' of " +
                                          where(file_, varid) + " has " + std::to_string(n) +
                                          " values, the buffer " + std::to_string(len));
      if (status.is_ok() && n > 0) status = file_.backend->get_att(varid, name, memtype, values);
    }
    ESMIO_RETURN_IF_ERROR(agree(group_.comm, status));
    const int64_t bytes = len * static_cast<int64_t>(type_size(memtype));
    if (bytes > 0)
      ESMIO_RETURN_IF_ERROR(broadcast(values, static_cast<int>(bytes), MPI_BYTE, "esmio_get_att"));
    return Status::ok();
  }

  Status write_darray(const Call &call, int varid, int64_t record, const Decomp *decomp,
                      esmio_type memtype, const void *buf) override {
    return write_record(group_, &file_, call, varid, record, decomp, memtype, buf);
  }

  // The cache's writes first, so that the read sees them; then the serial baseline's gathered
  // read or the rearranged one. A file open read-only caches nothing: all it can hold pending
  // are writes refused on it (ESMIO_EPERM) under agree_writes=flush, which made no collective;
  // esmio_close settles them, and its reads skip that agreement (one allreduce per read).
  Status read_darray(int varid, int64_t record, const Decomp &decomp, esmio_type memtype,
                     void *buf) override {
    if (file_.writable) ESMIO_RETURN_IF_ERROR(flush_cache(group_, &file_));
    RangeCount range;
    const Status status =
        file_.gather_to_root
            ? read_gathered(group_, &file_, varid, record, decomp, memtype, buf, &range)
            : read_rearranged(group_, &file_, varid, record, decomp, memtype, buf, &range);
    return agree_with_range(group_, file_, varid, "esmio_read_darray", file_.vars[varid].type,
                            memtype, status, range);
  }

  bool read_kept(int varid, int64_t record, const Decomp &decomp, esmio_type memtype, void *buf,
                 RangeCount *range) override {
    if (file_.writable || file_.gather_to_root) return false;
    return datapath::read_kept(group_, &file_, varid, record, decomp, memtype, buf, range);
  }
  void kept_read_agreed(int varid, int64_t record, const Decomp &decomp) override {
    datapath::kept_read_agreed(&file_, varid, record, decomp);
  }
  void forget_kept() override { file_.read_batch.clear(); }
  void kept_state(uint64_t *digest, int64_t *count) const override {
    *digest = file_.read_batch.digest();
    *count = file_.read_batch.kept();
  }

  Status put_vara(const Call &call, int varid, const int64_t *start, const int64_t *count,
                  int64_t n, esmio_type memtype, const void *buf) override {
    return datapath::put_vara(group_, &file_, call, varid, start, count, n, memtype, buf);
  }

  Status get_vara(const Call &call, int varid, const int64_t *start, const int64_t *count,
                  int64_t n, esmio_type memtype, void *buf) override {
    return datapath::get_vara(group_, &file_, call, varid, start, count, n, memtype, buf);
  }

  Status sync() override {
    ESMIO_RETURN_IF_ERROR(flush_cache(group_, &file_));
    ESMIO_RETURN_IF_ERROR(record_information(group_, &file_));
    ESMIO_RETURN_IF_ERROR(agree(group_.comm, file_.backend ? file_.backend->sync() : Status::ok()));
    ESMIO_RETURN_IF_ERROR(report_taken_back(&file_));  // the same on every rank
    return report_pending_range(group_, &file_);
  }

  Status close(const Ending *ending) override { return close_file(group_, &file_, ending); }

  Status publish(const Status &closed) override {
    Status status = closed;
    if (file_.atomic) status = publish_atomic(group_, file_, status);
    if (file_.staged)
      status =
          publish_staged(group_, &file_, status, setup_.stage_copy, setup_.stage_block, later_);
    // After publishing: values stored as fill are reported, not a failed close.
    if (status.is_ok()) status = report_pending_range(group_, &file_);
    return status;
  }

 private:
  // A broadcast from the backend root, its failure named.
  Status broadcast(void *data, int count, MPI_Datatype type, const char *what) {
    const int rc = MPI_Bcast(data, count, type, file_.backend_root, group_.comm);
    if (rc == MPI_SUCCESS) return Status::ok();
    return Status(ESMIO_EMPI, std::string(what) + ": " + where(file_) +
                                  ": MPI_Bcast failed (code " + std::to_string(rc) + ")");
  }

  Group &group_;
  FileState &file_;
  std::vector<PendingCopy> *later_;
  FileSetup setup_;
};

}  // namespace

std::unique_ptr<Engine> make_local_engine(Group &group, FileState &file,
                                          std::vector<PendingCopy> *later) {
  return std::make_unique<LocalEngine>(group, file, later);
}

}  // namespace esmio::datapath
