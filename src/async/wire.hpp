// The bytes of a forwarded call: a Packer appends fixed-size integers, strings and byte blocks;
// an Unpacker reads them back in the same order and says when the bytes run out (a message
// cut short is an error, never a read past its end). Pure, host byte order (client and server
// run the same binary on the same kind of machine).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace esmio::async {

class Packer {
 public:
  Packer &i64(int64_t v) { return raw(&v, sizeof v); }
  Packer &str(const std::string &s) {
    i64(static_cast<int64_t>(s.size()));
    return raw(s.data(), s.size());
  }
  Packer &bytes(const void *p, std::size_t n) {
    i64(static_cast<int64_t>(n));
    return raw(p, n);
  }
  Packer &i64s(const std::vector<int64_t> &v) {
    i64(static_cast<int64_t>(v.size()));
    return raw(v.data(), v.size() * sizeof(int64_t));
  }
  Packer &ints(const std::vector<int> &v) {
    i64(static_cast<int64_t>(v.size()));
    for (int x : v) i64(x);
    return *this;
  }
  // A count, then each string as str() packs it.
  Packer &strs(const std::vector<std::string> &v) {
    i64(static_cast<int64_t>(v.size()));
    for (const std::string &x : v) str(x);
    return *this;
  }
  // Another packer's bytes, as if packed here.
  Packer &raw_append(const Packer &other) { return raw(other.data_.data(), other.data_.size()); }
  const std::vector<char> &data() const { return data_; }
  std::size_t size() const { return data_.size(); }

 private:
  Packer &raw(const void *p, std::size_t n) {
    const char *c = static_cast<const char *>(p);
    data_.insert(data_.end(), c, c + n);
    return *this;
  }
  std::vector<char> data_;
};

class Unpacker {
 public:
  Unpacker(const char *data, std::size_t size) : data_(data), size_(size) {}
  // False once a read ran past the end; every later read yields zeros and empties.
  bool ok() const { return ok_; }
  int64_t i64() {
    int64_t v = 0;
    raw(&v, sizeof v);
    return v;
  }
  std::string str() {
    const int64_t n = length(1);
    std::string s(data_ + at_, static_cast<std::size_t>(n));
    at_ += static_cast<std::size_t>(n);
    return s;
  }
  // A view of n bytes inside the message (valid as long as the message is).
  const char *bytes(std::size_t *n) {
    *n = static_cast<std::size_t>(length(1));
    const char *p = data_ + at_;
    at_ += *n;
    return p;
  }
  std::vector<int64_t> i64s() {
    const int64_t n = length(sizeof(int64_t));
    std::vector<int64_t> v(static_cast<std::size_t>(n));
    raw(v.data(), v.size() * sizeof(int64_t));
    return v;
  }
  std::vector<int> ints() {
    const int64_t n = length(sizeof(int64_t));
    std::vector<int> v;
    for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<int>(i64()));
    return v;
  }
  // A count checked against what is left (every string takes at least its length), then the
  // strings.
  std::vector<std::string> strs() {
    const int64_t n = length(sizeof(int64_t));
    std::vector<std::string> v;
    for (int64_t i = 0; i < n && ok_; ++i) v.push_back(str());
    return v;
  }
  std::size_t remaining() const { return size_ - at_; }

 private:
  // A length prefix, checked against what is left (elem bytes per unit).
  int64_t length(std::size_t elem) {
    const int64_t n = i64();
    if (!ok_ || n < 0 || static_cast<uint64_t>(n) > remaining() / elem) {
      ok_ = false;
      at_ = size_;
      return 0;
    }
    return n;
  }
  void raw(void *out, std::size_t n) {
    if (!ok_ || n > remaining()) {
      ok_ = false;
      at_ = size_;
      std::memset(out, 0, n);
      return;
    }
    std::memcpy(out, data_ + at_, n);
    at_ += n;
  }
  const char *data_;
  std::size_t size_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace esmio::async
