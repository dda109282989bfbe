// What the two halves of the data phase share: decomposed records (darray.cpp) and
// undecomposed slices (vara.cpp) check records alike and agree on out-of-range values alike.
#pragma once

#include <cstdint>
#include <string>

#include "api/handles.hpp"

namespace esmio::api {

// How far past the records in the file a write may go. Records skipped over are filled at
// close, one record at a time: a gap of a billion records (a bad index) would run for hours
// and allocate per record, so it is refused instead.
constexpr int64_t kMaxRecordGap = int64_t(1) << 20;

// ESMIO_ERECORD for a record the file's format cannot hold or too far past the last one.
Status check_record_bound(const esmio_file *file, int64_t record, const std::string &at);

// The checks every data call makes first: the variable exists, the file is in data mode and,
// for a write, writable. *at names the call and the variable, for the caller's later messages.
Status check_data_access(const esmio_file *file, int varid, const char *what, bool write,
                         std::string *at);

}  // namespace esmio::api
