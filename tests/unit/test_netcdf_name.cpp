// netCDF's rule for names, as netCDF-C and PnetCDF check them.
#include <gtest/gtest.h>

#include <string>

#include "common/netcdf_name.hpp"

using esmio::netcdf_name_fault;

TEST(NetcdfName, NamesNetcdfTakes) {
  for (const std::string name :
       {"x", "T", "_FillValue", "2m_temperature", "with space", "a.b-c+d@e:(f)",
        "temp\xC3\xA9rature", "\xE2\x82\xAC", "\xF0\x9F\x8C\x8D", "\xF4\x8F\xBF\xBF", "x~tilde",
        "\xC3\xA9t\xC3\xA9"})
    EXPECT_EQ(netcdf_name_fault(name), "") << name;
}

TEST(NetcdfName, NamesNetcdfRefusesWithTheReason) {
  const struct {
    std::string name;
    std::string reason;
  } cases[] = {
      {"", "empty"},
      {"a/b", "'/'"},
      {"/a", "not '/'"},
      {"-x", "not '-'"},
      {".x", "not '.'"},
      {" x", "not ' '"},
      {"\x01x", "0x01"},
      {"x\x1Fy", "control character 0x1F at byte 1"},
      {"x\x7F", "control character 0x7F"},
      {"x ", "end in white space"},
      {"x\ty", "control character 0x09"},
      {"x\t", "0x09"},  // a control character, before its being white space
      {"~x", "not '~'"},
      {"x\xC3", "byte 1 (0xC3) is not valid UTF-8"},
      {"\xC3(", "byte 0 (0xC3)"},
      {"\xC0\xAF", "byte 0 (0xC0)"},          // an overlong '/'
      {"\xE0\x80\xAF", "byte 0 (0xE0)"},      // another overlong form
      {"\xED\xA0\x80", "byte 0 (0xED)"},      // a UTF-16 surrogate
      {"\xF4\x90\x80\x80", "byte 0 (0xF4)"},  // past U+10FFFF
      {"\xF5\x80\x80\x80", "byte 0 (0xF5)"},
      {"x\x80", "byte 1 (0x80)"},  // a continuation byte alone
  };
  for (const auto &c : cases) {
    const std::string fault = netcdf_name_fault(c.name);
    EXPECT_NE(fault, "") << c.name;
    EXPECT_NE(fault.find(c.reason), std::string::npos) << c.name << ": " << fault;
  }
}
