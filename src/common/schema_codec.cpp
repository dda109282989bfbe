#include "common/schema_codec.hpp"

#include <cstring>

#include "common/types.hpp"

namespace esmio {
namespace {

class Writer {
 public:
  explicit Writer(std::string *out) : out_(out) {}
  void i64(int64_t v) { out_->append(reinterpret_cast<const char *>(&v), sizeof v); }
  void bytes(const void *p, std::size_t n) {
    i64(static_cast<int64_t>(n));
    out_->append(static_cast<const char *>(p), n);
  }

 private:
  std::string *out_;
};

// Reads what Writer wrote; once a read runs past the end, ok() is false and reads yield zeros.
class Reader {
 public:
  Reader(const char *data, std::size_t size) : data_(data), size_(size) {}
  bool ok() const { return ok_; }
  bool at_end() const { return at_ == size_; }
  int64_t i64() {
    int64_t v = 0;
    if (!ok_ || size_ - at_ < sizeof v) {
      ok_ = false;
      return 0;
    }
    std::memcpy(&v, data_ + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  // A length-prefixed block of bytes; its length checked against what is left.
  std::string bytes() {
    const int64_t n = i64();
    if (!ok_ || n < 0 || static_cast<uint64_t>(n) > size_ - at_) {
      ok_ = false;
      return std::string();
    }
    std::string s(data_ + at_, static_cast<std::size_t>(n));
    at_ += static_cast<std::size_t>(n);
    return s;
  }
  // A count of items of at least min_bytes each, checked against what is left.
  int64_t count(std::size_t min_bytes) {
    const int64_t n = i64();
    if (!ok_ || n < 0 || static_cast<uint64_t>(n) > (size_ - at_) / min_bytes) {
      ok_ = false;
      return 0;
    }
    return n;
  }

 private:
  const char *data_;
  std::size_t size_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace

int64_t FileSchema::nrecords() const {
  for (const SchemaDim &d : dims)
    if (d.unlimited) return d.len;
  return 0;
}

std::string encode_schema(const FileSchema &schema) {
  std::string out;
  Writer w(&out);
  w.i64(static_cast<int64_t>(schema.dims.size()));
  for (const SchemaDim &d : schema.dims) {
    w.bytes(d.name.data(), d.name.size());
    w.i64(d.len);
    w.i64(d.unlimited ? 1 : 0);
  }
  w.i64(static_cast<int64_t>(schema.vars.size()));
  for (const SchemaVar &v : schema.vars) {
    w.bytes(v.name.data(), v.name.size());
    w.i64(v.type);
    w.i64(static_cast<int64_t>(v.dimids.size()));
    for (int d : v.dimids) w.i64(d);
    w.bytes(v.fill.data(), v.fill.size());
  }
  return out;
}

Status decode_schema(const char *data, std::size_t size, const std::string &what, FileSchema *out) {
  const auto bad = [&](const std::string &why) {
    return Status(ESMIO_EMPI, what + ": the file's schema came damaged (" + why + ")");
  };
  FileSchema schema;
  Reader r(data, size);
  // Each dimension takes at least three integers, each variable four.
  const int64_t ndims = r.count(3 * sizeof(int64_t));
  for (int64_t i = 0; i < ndims && r.ok(); ++i) {
    SchemaDim d;
    d.name = r.bytes();
    d.len = r.i64();
    d.unlimited = r.i64() != 0;
    if (r.ok() && d.len < 0) return bad("dimension '" + d.name + "' of negative length");
    schema.dims.push_back(std::move(d));
  }
  const int64_t nvars = r.count(4 * sizeof(int64_t));
  for (int64_t i = 0; i < nvars && r.ok(); ++i) {
    SchemaVar v;
    v.name = r.bytes();
    v.type = static_cast<esmio_type>(r.i64());
    const int64_t nd = r.count(sizeof(int64_t));
    for (int64_t k = 0; k < nd && r.ok(); ++k) v.dimids.push_back(static_cast<int>(r.i64()));
    const std::string fill = r.bytes();
    v.fill.assign(fill.begin(), fill.end());
    if (!r.ok()) break;
    // A type esmio does not know (a file's ubyte, say) is kept: the mirror holds the
    // variable, and the calls that would convert its values refuse it.
    if (v.fill.size() != type_size(v.type))
      return bad("variable '" + v.name + "' with a fill value of " + std::to_string(v.fill.size()) +
                 " bytes");
    for (std::size_t k = 0; k < v.dimids.size(); ++k) {
      const int d = v.dimids[k];
      if (d < 0 || d >= static_cast<int>(schema.dims.size()))
        return bad("variable '" + v.name + "' on dimension id " + std::to_string(d));
      if (k > 0 && schema.dims[static_cast<std::size_t>(d)].unlimited)
        return bad("variable '" + v.name + "' with the unlimited dimension not first");
    }
    schema.vars.push_back(std::move(v));
  }
  if (!r.ok()) return bad("cut short");
  if (!r.at_end()) return bad("bytes left over");
  *out = std::move(schema);
  return Status::ok();
}

}  // namespace esmio
