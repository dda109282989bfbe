// The API's collective calls in words: values rendered in their type, and the contrast of two
// ranks' calls naming the argument that differs with both values (and a refusing rank's cause).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/call_words.hpp"
#include "common/status.hpp"
#include "datapath/describe.hpp"

using esmio::contrast;
using esmio::encode;
using esmio::Status;
namespace dp = esmio::datapath;

TEST(Describe, ValuesInTheirType) {
  const double d[3] = {1.0, 2.5, -3.0};
  EXPECT_EQ(dp::values_text(ESMIO_DOUBLE, d, 3), "1, 2.5, -3");
  const float f[1] = {0.1f};
  EXPECT_EQ(dp::values_text(ESMIO_FLOAT, f, 1), "0.100000001");
  const int i[2] = {-7, 42};
  EXPECT_EQ(dp::values_text(ESMIO_INT, i, 2), "-7, 42");
  const signed char b[2] = {-1, 5};
  EXPECT_EQ(dp::values_text(ESMIO_BYTE, b, 2), "-1, 5");
  const short s[1] = {-300};
  EXPECT_EQ(dp::values_text(ESMIO_SHORT, s, 1), "-300");
  const int64_t l[1] = {int64_t(1) << 40};
  EXPECT_EQ(dp::values_text(ESMIO_INT64, l, 1), "1099511627776");
  EXPECT_EQ(dp::values_text(ESMIO_CHAR, "degK", 4), "'degK'");
  EXPECT_EQ(dp::values_text(ESMIO_DOUBLE, nullptr, 3), "none");
  EXPECT_EQ(dp::values_text(ESMIO_DOUBLE, d, 0), "none");
}

TEST(Describe, LongArraysDifferBeyondTheirFirstValues) {
  std::vector<int> a(20, 1), b(20, 1);
  b[19] = 2;
  const std::string ta = dp::values_text(ESMIO_INT, a.data(), 20);
  const std::string tb = dp::values_text(ESMIO_INT, b.data(), 20);
  EXPECT_EQ(ta.rfind("1, 1, 1, 1, 1, 1, 1, 1, ... (20 values, digest ", 0), 0u) << ta;
  EXPECT_NE(ta, tb);
  EXPECT_EQ(ta, dp::values_text(ESMIO_INT, a.data(), 20));
}

TEST(Describe, ArgumentTexts) {
  EXPECT_EQ(dp::list_text({4, 6}), "(4,6)");
  EXPECT_EQ(dp::list_text({}), "()");
  EXPECT_EQ(dp::type_text(ESMIO_FLOAT), "float");
  EXPECT_EQ(dp::type_text(static_cast<esmio_type>(99)), "unknown (99)");
  const std::string name = "T";
  EXPECT_EQ(dp::variable_text(0, &name), "'T' (varid 0)");
  EXPECT_EQ(dp::variable_text(ESMIO_GLOBAL, nullptr), "global");
  EXPECT_EQ(dp::variable_text(7, nullptr), "id 7 (none such)");
}

TEST(Describe, DefinitionCallsNameTheArgument) {
  EXPECT_EQ(contrast(0, encode(dp::def_dim_call("a.nc", "x", 12)), 2,
                     encode(dp::def_dim_call("a.nc", "x", 13))),
            "esmio_def_dim on file 'a.nc', dimension 'x': rank 0 defines length 12, rank 2 "
            "defines length 13");
  EXPECT_EQ(contrast(0, encode(dp::def_dim_call("a.nc", "time", ESMIO_UNLIMITED)), 1,
                     encode(dp::def_dim_call("a.nc", "time", 5))),
            "esmio_def_dim on file 'a.nc', dimension 'time': rank 0 defines length unlimited, "
            "rank 1 defines length 5");
  EXPECT_EQ(contrast(0, encode(dp::def_var_call("a.nc", "v", ESMIO_FLOAT, "(time,y,x)")), 2,
                     encode(dp::def_var_call("a.nc", "v", ESMIO_DOUBLE, "(time,y,x)"))),
            "esmio_def_var on file 'a.nc', variable 'v', dimensions (time,y,x): rank 0 defines "
            "type float, rank 2 defines type double");
  const double two = 2, three = 3;
  EXPECT_EQ(contrast(0,
                     encode(dp::put_att_call("a.nc", "'v' (varid 0)", "scale", ESMIO_DOUBLE, 1,
                                             dp::values_text(ESMIO_DOUBLE, &two, 1))),
                     2,
                     encode(dp::put_att_call("a.nc", "'v' (varid 0)", "scale", ESMIO_DOUBLE, 1,
                                             dp::values_text(ESMIO_DOUBLE, &three, 1)))),
            "esmio_put_att on file 'a.nc', variable 'v' (varid 0), attribute 'scale', type double, "
            "length 1: rank 0 puts values 2, rank 2 puts values 3");
}

TEST(Describe, WholeDefinitionNamesOnlyWhatDiffers) {
  EXPECT_EQ(contrast(0, encode(dp::enddef_call("a.nc", "('x' 4)", "('v' float (x))", "()")), 1,
                     encode(dp::enddef_call("a.nc", "('x' 4)", "('v' double (x))", "()"))),
            "esmio_enddef on file 'a.nc': rank 0 has variables ('v' float (x)), rank 1 has "
            "variables ('v' double (x))");
}

TEST(Describe, DataCallsNameTheSlabAndValues) {
  const std::string v1 = "1, 2, 3", v2 = "1, 2, 4";
  EXPECT_EQ(contrast(0,
                     encode(dp::vara_call("esmio_put_vara", "a.nc", "'v' (varid 0)", "(0,0,0)",
                                          "(1,1,3)", ESMIO_DOUBLE, &v1)),
                     2,
                     encode(dp::vara_call("esmio_put_vara", "a.nc", "'v' (varid 0)", "(0,0,0)",
                                          "(1,1,3)", ESMIO_DOUBLE, &v2))),
            "esmio_put_vara on file 'a.nc', variable 'v' (varid 0), start (0,0,0), count "
            "(1,1,3), memory type double: rank 0 writes values 1, 2, 3, rank 2 writes values 1, "
            "2, 4");
  EXPECT_EQ(contrast(0,
                     encode(dp::vara_call("esmio_get_vara", "a.nc", "'v' (varid 0)", "(0,0)",
                                          "(2,3)", ESMIO_INT, nullptr)),
                     1,
                     encode(dp::vara_call("esmio_get_vara", "a.nc", "'v' (varid 0)", "(1,0)",
                                          "(2,3)", ESMIO_INT, nullptr))),
            "esmio_get_vara on file 'a.nc', variable 'v' (varid 0), count (2,3), memory type "
            "int: rank 0 reads start (0,0), rank 1 reads start (1,0)");
  EXPECT_EQ(contrast(0,
                     encode(dp::whole_var_call("esmio_get_var", "a.nc", "'v' (varid 0)",
                                               ESMIO_DOUBLE, "(3,4)")),
                     1,
                     encode(dp::whole_var_call("esmio_get_var", "a.nc", "'v' (varid 0)",
                                               ESMIO_DOUBLE, "(2,4)"))),
            "esmio_get_var on file 'a.nc', variable 'v' (varid 0), memory type double: rank 0 "
            "reads count (3,4), rank 1 reads count (2,4)");
}

TEST(Describe, InquiriesAndDecompositions) {
  const std::string a = "units", b = "long_name";
  EXPECT_EQ(
      contrast(
          0, encode(dp::att_inquiry_call("esmio_inq_att", "a.nc", "global", &a, nullptr, nullptr)),
          2, encode(dp::att_inquiry_call("esmio_inq_att", "a.nc", "global", &b, nullptr, nullptr))),
      "esmio_inq_att on file 'a.nc', variable global: rank 0 asks for attribute 'units', rank 2 "
      "asks for attribute 'long_name'");
  const esmio_type type = ESMIO_FLOAT;
  const int64_t one = 1, two = 2;
  EXPECT_EQ(
      contrast(0, encode(dp::att_inquiry_call("esmio_get_att", "a.nc", "global", &a, &type, &one)),
               1, encode(dp::att_inquiry_call("esmio_get_att", "a.nc", "global", &a, &type, &two))),
      "esmio_get_att on file 'a.nc', variable global, attribute 'units', memory type "
      "float: rank 0 asks for length 1, rank 1 asks for length 2");
  EXPECT_EQ(contrast(0, encode(dp::decomp_call("esmio_decomp_create", {4, 6})), 2,
                     encode(dp::decomp_call("esmio_decomp_create", {4, 7}))),
            "esmio_decomp_create: rank 0 passes global shape (4,6), rank 2 passes global shape "
            "(4,7)");
  EXPECT_EQ(contrast(0, encode(dp::file_call("esmio_sync", "a.nc")), 1,
                     encode(dp::file_call("esmio_sync", "b.nc"))),
            "esmio_sync: rank 0 calls file 'a.nc', rank 1 calls file 'b.nc'");
}

TEST(Describe, ARefusedCallCarriesItsCause) {
  const esmio::CallWords ok = dp::checked(dp::def_dim_call("a.nc", "x", 12), Status::ok());
  EXPECT_TRUE(ok.refused.empty());
  const esmio::CallWords refused =
      dp::checked(dp::def_dim_call("a.nc", "x", -1),
                  Status(ESMIO_EINVAL, "esmio_def_dim: negative length -1 for dimension 'x'"));
  EXPECT_EQ(contrast(0, encode(ok), 2, encode(refused)),
            "esmio_def_dim on file 'a.nc', dimension 'x': rank 0 defines length 12; rank 2 "
            "defines length -1, which failed there: esmio_def_dim: negative length -1 for "
            "dimension 'x'");
}
