// A file's schema as it travels between ranks: its dimensions (with their current lengths, so
// the record count too) and its variables with their fill values. One encoding for every path
// that hands a schema on: the rank that opened a file broadcasting it (datapath/mirror.cpp),
// and the I/O servers answering an open for the compute ranks (the reply's codec,
// async/messages.cpp). Pure: no MPI, no backend, so that it is tested alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "esmio.h"

namespace esmio {

struct SchemaDim {
  std::string name;
  int64_t len = 0;  // the records written, for the unlimited dimension
  bool unlimited = false;
};

struct SchemaVar {
  std::string name;
  esmio_type type = ESMIO_FLOAT;
  std::vector<int> dimids;
  std::vector<unsigned char> fill;  // one value in the variable's type
};

struct FileSchema {
  std::vector<SchemaDim> dims;
  std::vector<SchemaVar> vars;
  // The length of the unlimited dimension, or 0 without one.
  int64_t nrecords() const;
};

// The schema as bytes (host byte order: every rank runs the same binary).
std::string encode_schema(const FileSchema &schema);
// Reads bytes written by encode_schema. ESMIO_EMPI naming what, for bytes cut short or left
// over, a negative length, a fill value of the wrong size for its type, a dimension id
// outside the schema or an unlimited dimension that is not a variable's first: the schema
// decoded is one the mirror can hold.
Status decode_schema(const char *data, std::size_t size, const std::string &what, FileSchema *out);

}  // namespace esmio
