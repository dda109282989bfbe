// The collective calls of the API in words, argument by argument (common/call_words.hpp), for
// the message of a mismatch: ranks that differ are told which argument differs and both values
// ("esmio_def_dim on file 'F', dimension 'x': rank 0 defines length 12, rank 2 defines length
// 13") instead of two whole texts that look alike. Pure: the caller renders what only the file
// knows (a variable's name) with the functions below, so that every message words it alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/call_words.hpp"
#include "common/status.hpp"
#include "esmio.h"

namespace esmio::datapath {

// 'text'
std::string quoted(const std::string &text);
// (4,6); () for none
std::string list_text(const std::vector<int64_t> &values);
// double; unknown (99) for a type esmio does not know
std::string type_text(esmio_type type);
// 'T' (varid 0); global for ESMIO_GLOBAL; id 7 (none such) where name is null
std::string variable_text(int varid, const std::string *name);
// The first values of an array in its type, so that two ranks' differ where they see them:
// 1, 2.5, -3 (text as 'text'); a longer array adds its length and a digest of all of it, so
// that arrays alike in their first values still differ in words. "none" for no values.
std::string values_text(esmio_type type, const void *values, int64_t n);

// Calls on a file with no argument but the file: esmio_sync, esmio_close, esmio_redef.
CallWords file_call(const std::string &what, const std::string &path);
// esmio_def_dim: the dimension's name and length (unlimited for ESMIO_UNLIMITED).
CallWords def_dim_call(const std::string &path, const std::string &name, int64_t len);
// esmio_def_var: name, type and its dimensions by name (dims: rendered by the caller).
CallWords def_var_call(const std::string &path, const std::string &name, esmio_type type,
                       const std::string &dims);
// esmio_put_att (and the fill value calls through it): where, name, type, length, values.
CallWords put_att_call(const std::string &path, const std::string &variable,
                       const std::string &name, esmio_type type, int64_t len,
                       const std::string &values);
// esmio_enddef: the whole definition, as three arguments (dimensions, variables, storage) so that
// ranks with different numbers of definitions still compare.
CallWords enddef_call(const std::string &path, const std::string &dims, const std::string &vars,
                      const std::string &storage);
// esmio_put_vara / esmio_get_vara: the slab and memory type, and for a write the values.
CallWords vara_call(const std::string &what, const std::string &path, const std::string &variable,
                    const std::string &start, const std::string &count, esmio_type memtype,
                    const std::string *values);
// esmio_put_var / esmio_get_var: the count the buffer gives (the buffer's length is local).
CallWords whole_var_call(const std::string &what, const std::string &path,
                         const std::string &variable, esmio_type memtype, const std::string &count);
// Attribute inquiries: esmio_inq_att, esmio_get_att (memtype and length), the attribute names.
CallWords att_inquiry_call(const std::string &what, const std::string &path,
                           const std::string &variable, const std::string *name,
                           const esmio_type *memtype, const int64_t *len);
// A new decomposition: its global shape (the map is local and not compared).
CallWords decomp_call(const std::string &what, const std::vector<int64_t> &shape);

// The call as this rank's checks left it: refused with their message when they failed, so that a
// mismatch names the cause one rank knew.
CallWords checked(CallWords call, const Status &local);

}  // namespace esmio::datapath
