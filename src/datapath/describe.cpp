#include "datapath/describe.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "common/digest.hpp"
#include "common/types.hpp"

namespace esmio::datapath {

namespace {

// Enough values to see where short arrays (attributes, a few coordinates) differ; text is shown
// up to a line's worth.
constexpr int64_t kShownValues = 8;
constexpr int64_t kShownChars = 64;

template <typename T>
T element(const void *values, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char *>(values) + i * sizeof(T), sizeof(T));
  return v;
}

std::string number(esmio_type type, const void *values, int64_t i) {
  char text[40];
  switch (type) {
    case ESMIO_BYTE:
      return std::to_string(element<signed char>(values, i));
    case ESMIO_SHORT:
      return std::to_string(element<int16_t>(values, i));
    case ESMIO_INT:
      return std::to_string(element<int32_t>(values, i));
    case ESMIO_INT64:
      return std::to_string(element<int64_t>(values, i));
    case ESMIO_UBYTE:
      return std::to_string(element<uint8_t>(values, i));
    case ESMIO_USHORT:
      return std::to_string(element<uint16_t>(values, i));
    case ESMIO_UINT:
      return std::to_string(element<uint32_t>(values, i));
    case ESMIO_UINT64:
      return std::to_string(element<uint64_t>(values, i));
    case ESMIO_FLOAT:
      std::snprintf(text, sizeof text, "%.9g", static_cast<double>(element<float>(values, i)));
      return text;
    case ESMIO_DOUBLE:
      std::snprintf(text, sizeof text, "%.17g", element<double>(values, i));
      return text;
    default:
      return "?";
  }
}

CallWords call_on(const std::string &what, const char *verb, const std::string &path) {
  CallWords call;
  call.call = what;
  call.verb = verb;
  call.args.emplace_back("file", quoted(path));
  return call;
}

}  // namespace

std::string quoted(const std::string &text) { return "'" + text + "'"; }

std::string list_text(const std::vector<int64_t> &values) {
  std::string text = "(";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i ? "," : "") + std::to_string(values[i]);
  return text + ")";
}

std::string type_text(esmio_type type) {
  return type_is_known(type) ? std::string(type_name(type))
                             : "unknown (" + std::to_string(type) + ")";
}

std::string variable_text(int varid, const std::string *name) {
  if (varid == ESMIO_GLOBAL) return "global";
  if (name == nullptr) return "id " + std::to_string(varid) + " (none such)";
  return quoted(*name) + " (varid " + std::to_string(varid) + ")";
}

std::string values_text(esmio_type type, const void *values, int64_t n) {
  if (values == nullptr || n <= 0 || !type_is_known(type)) return "none";
  const std::size_t size = type_size(type);
  std::string text;
  int64_t shown = 0;
  if (type == ESMIO_CHAR) {
    shown = n < kShownChars ? n : kShownChars;
    text = quoted(std::string(static_cast<const char *>(values), static_cast<std::size_t>(shown)));
  } else {
    shown = n < kShownValues ? n : kShownValues;
    for (int64_t i = 0; i < shown; ++i) text += (i ? ", " : "") + number(type, values, i);
  }
  if (shown == n) return text;
  char digest[24];
  std::snprintf(digest, sizeof digest, "%016llx",
                static_cast<unsigned long long>(
                    Digest("values").add(values, static_cast<std::size_t>(n) * size).value()));
  return text + ", ... (" + std::to_string(n) + " values, digest " + digest + ")";
}

CallWords file_call(const std::string &what, const std::string &path) {
  return call_on(what, "calls", path);
}

CallWords def_dim_call(const std::string &path, const std::string &name, int64_t len) {
  CallWords call = call_on("esmio_def_dim", "defines", path);
  call.args.emplace_back("dimension", quoted(name));
  call.args.emplace_back("length", len == ESMIO_UNLIMITED ? "unlimited" : std::to_string(len));
  return call;
}

CallWords def_var_call(const std::string &path, const std::string &name, esmio_type type,
                       const std::string &dims) {
  CallWords call = call_on("esmio_def_var", "defines", path);
  call.args.emplace_back("variable", quoted(name));
  call.args.emplace_back("type", type_text(type));
  call.args.emplace_back("dimensions", dims);
  return call;
}

CallWords put_att_call(const std::string &path, const std::string &variable,
                       const std::string &name, esmio_type type, int64_t len,
                       const std::string &values) {
  CallWords call = call_on("esmio_put_att", "puts", path);
  call.args.emplace_back("variable", variable);
  call.args.emplace_back("attribute", quoted(name));
  call.args.emplace_back("type", type_text(type));
  call.args.emplace_back("length", std::to_string(len));
  call.args.emplace_back("values", values);
  return call;
}

CallWords enddef_call(const std::string &path, const std::string &dims, const std::string &vars,
                      const std::string &storage) {
  CallWords call = call_on("esmio_enddef", "has", path);
  call.args.emplace_back("dimensions", dims);
  call.args.emplace_back("variables", vars);
  call.args.emplace_back("storage", storage);
  call.shared_named = 1;  // a whole definition is named only where it differs
  return call;
}

CallWords vara_call(const std::string &what, const std::string &path, const std::string &variable,
                    const std::string &start, const std::string &count, esmio_type memtype,
                    const std::string *values) {
  CallWords call = call_on(what, values ? "writes" : "reads", path);
  call.args.emplace_back("variable", variable);
  call.args.emplace_back("start", start);
  call.args.emplace_back("count", count);
  call.args.emplace_back("memory type", type_text(memtype));
  if (values) call.args.emplace_back("values", *values);
  return call;
}

CallWords whole_var_call(const std::string &what, const std::string &path,
                         const std::string &variable, esmio_type memtype,
                         const std::string &count) {
  CallWords call = call_on(what, what == "esmio_put_var" ? "writes" : "reads", path);
  call.args.emplace_back("variable", variable);
  call.args.emplace_back("memory type", type_text(memtype));
  call.args.emplace_back("count", count);
  return call;
}

CallWords att_inquiry_call(const std::string &what, const std::string &path,
                           const std::string &variable, const std::string *name,
                           const esmio_type *memtype, const int64_t *len) {
  CallWords call = call_on(what, "asks for", path);
  call.args.emplace_back("variable", variable);
  if (name) call.args.emplace_back("attribute", quoted(*name));
  if (memtype) call.args.emplace_back("memory type", type_text(*memtype));
  if (len) call.args.emplace_back("length", std::to_string(*len));
  return call;
}

CallWords decomp_call(const std::string &what, const std::vector<int64_t> &shape) {
  CallWords call;
  call.call = what;
  call.verb = "passes";
  call.args.emplace_back("global shape", list_text(shape));
  return call;
}

CallWords checked(CallWords call, const Status &local) {
  if (!local.is_ok()) call.refused = local.message();
  return call;
}

}  // namespace esmio::datapath
