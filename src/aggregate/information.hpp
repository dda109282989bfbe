// The `information` quantisation of one variable (Klöwer et al. 2021): the fewest mantissa
// bits that keep `fraction` of the bitwise real information, found from the first record
// written and kept for every later one, so that a time series has one precision.
#pragma once

namespace esmio::aggregate {

struct Information {
  double fraction = 0.99;
  int keepbits = -1;      // -1 until the first flush that holds the variable
  bool recorded = false;  // written to the file as attributes
};

}  // namespace esmio::aggregate
