#include "async/protocol.hpp"

namespace esmio::async {

const char *op_name(Op op) {
  switch (op) {
    case Op::finalize:
      return "esmio_finalize";
    case Op::decomp_create:
      return "esmio_decomp_create";
    case Op::create:
      return "esmio_create";
    case Op::open:
      return "esmio_open";
    case Op::def_dim:
      return "esmio_def_dim";
    case Op::def_var:
      return "esmio_def_var";
    case Op::put_att:
      return "esmio_put_att";
    case Op::def_var_chunking:
      return "esmio_def_var_chunking";
    case Op::def_var_compress:
      return "esmio_def_var_compress";
    case Op::def_var_quantize:
      return "esmio_def_var_quantize";
    case Op::enddef:
      return "esmio_enddef";
    case Op::redef:
      return "esmio_redef";
    case Op::write_darray:
      return "esmio_write_darray";
    case Op::read_darray:
      return "esmio_read_darray";
    case Op::put_vara:
      return "esmio_put_vara";
    case Op::get_vara:
      return "esmio_get_vara";
    case Op::inq_att:
      return "esmio_inq_att";
    case Op::get_att:
      return "esmio_get_att";
    case Op::att_names:
      return "esmio_inq_attname";
    case Op::stage_wait:
      return "esmio_stage_wait";
    case Op::sync:
      return "esmio_sync";
    case Op::close:
      return "esmio_close";
    case Op::trace_report:
      return "esmio_trace_write";
  }
  return "an unknown call";
}

bool waits_for_reply(Op op) {
  switch (op) {
    case Op::finalize:
    case Op::decomp_create:
    case Op::open:
    case Op::read_darray:
    case Op::get_vara:
    case Op::inq_att:
    case Op::get_att:
    case Op::att_names:
    case Op::stage_wait:
    case Op::sync:
    case Op::close:
    case Op::trace_report:
      return true;
    default:
      return false;
  }
}

}  // namespace esmio::async
