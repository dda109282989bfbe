// The `information` quantisation of one variable (Klöwer et al. 2021): the fewest mantissa
// bits that keep `fraction` of the bitwise real information, found from the first record
// written and kept for every later one, so that a time series has one precision.
#pragma once

#include <string>
#include <vector>

#include "quantize/bit_information.hpp"

namespace esmio::quantize {

struct Information {
  double fraction = 0.99;
  double maxrel = 0;             // the largest relative error allowed (0: no bound)
  int minbits = kKeepbitsFloor;  // the floor where the reference is positive
  int keepbits = -1;             // -1 until the first flush that holds the variable
  // How keepbits was chosen (choose_keepbits), recorded with it in the file: the reference's
  // value, the reason, and the information of each bit position (sign first).
  int reference = 0;
  std::string reason;
  std::vector<double> per_bit;
  bool recorded = false;  // written to the file as attributes
};

}  // namespace esmio::quantize
