// The ranks a data path runs over: their communicator, which of them are I/O tasks, how data is
// laid out over those tasks, and this rank's trace totals. The API's instance holds one; with
// asynchronous I/O servers the servers hold one of their own.
#pragma once

#include <mpi.h>

#include "decomp/io_layout.hpp"
#include "rearrange/exchange.hpp"
#include "trace/counters.hpp"

namespace esmio::datapath {

struct Group {
  MPI_Comm comm = MPI_COMM_NULL;     // every rank of the path (the API's duplicated communicator)
  MPI_Comm io_comm = MPI_COMM_NULL;  // the I/O tasks (MPI_COMM_NULL elsewhere)
  int rank = 0;
  int nranks = 1;
  int task = -1;  // this rank's I/O task index, or -1
  decomp::IoLayout layout;
  rearrange::ExchangeLimits limits;
  trace::Counters counters;  // this rank's totals
};

}  // namespace esmio::datapath
