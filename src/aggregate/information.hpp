// The name under which the data path (the schema's variables, the API's enddef) knows a
// variable's information quantisation, which src/quantize/ defines.
#pragma once

#include "quantize/information.hpp"

namespace esmio::aggregate {

using Information = quantize::Information;

}  // namespace esmio::aggregate
