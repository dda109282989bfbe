// Unknown ESMIO_* environment variables: each warned about with the closest setting's name,
// none for the settings' own variables or for those that esmio's tools and tests read.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "common/settings.hpp"

using esmio::closest_setting_variable;
using esmio::unknown_environment_warnings;

namespace {

std::vector<std::string> warnings_for(std::vector<const char *> environment) {
  environment.push_back(nullptr);
  return unknown_environment_warnings(environment.data());
}

}  // namespace

TEST(UnknownEnvironment, NamesTheClosestSetting) {
  EXPECT_EQ(closest_setting_variable("ESMIO_NUM_IOTAKS"), "ESMIO_NUM_IOTASKS");
  EXPECT_EQ(closest_setting_variable("ESMIO_IOTASKS"), "ESMIO_NUM_IOTASKS");
  EXPECT_EQ(closest_setting_variable("ESMIO_layout"), "ESMIO_LAYOUT");
  EXPECT_EQ(closest_setting_variable("ESMIO_TRACE_TIMELIN"), "ESMIO_TRACE_TIMELINE");
  EXPECT_EQ(closest_setting_variable("ESMIO_COMPRESS"), "ESMIO_COMPRESSION");
  EXPECT_EQ(closest_setting_variable("ESMIO_VERBOSE"), "") << "no setting is close";
  EXPECT_EQ(closest_setting_variable("ESMIO_XYZZY_PLUGH_QUUX"), "");
}

TEST(UnknownEnvironment, WarnsOncePerUnknownVariable) {
  const std::vector<std::string> warnings =
      warnings_for({"PATH=/usr/bin", "ESMIO_NUM_IOTAKS=2", "ESMIO_LAYOUT=subset",
                    "ESMIO_CACHE=size=1M,flush=write", "ESMIO_VERBOSE=1", "esmio_layout=box"});
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0],
            "esmio: unknown environment variable ESMIO_NUM_IOTAKS (did you mean "
            "ESMIO_NUM_IOTASKS?); ignored");
  EXPECT_EQ(warnings[1].rfind("esmio: unknown environment variable ESMIO_VERBOSE (", 0), 0u)
      << warnings[1];
  EXPECT_NE(warnings[1].find("ignored"), std::string::npos);
}

TEST(UnknownEnvironment, EverySettingsVariableIsKnown) {
  std::vector<std::string> entries;
#define ESMIO_ENTRY(name, scope, kind, def, doc)                                                 \
  {                                                                                              \
    std::string variable = "ESMIO_" + std::string(#name);                                        \
    for (char &c : variable) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c))); \
    entries.push_back(variable + "=" + def);                                                     \
  }
  ESMIO_SETTINGS_TABLE(ESMIO_ENTRY)
#undef ESMIO_ENTRY
  std::vector<const char *> environment;
  for (const std::string &e : entries) environment.push_back(e.c_str());
  EXPECT_EQ(warnings_for(environment), std::vector<std::string>{});
  for (const std::string &e : entries)
    EXPECT_EQ(closest_setting_variable(e.substr(0, e.find('='))), e.substr(0, e.find('=')));
}

TEST(UnknownEnvironment, VariablesReadElsewhereAreNotWarned) {
  // The Python binding, esmio-report, esmio-bench, the library's test hooks and the tests.
  EXPECT_EQ(
      warnings_for({"ESMIO_LIBRARY=/x/libesmio.so", "ESMIO_REPORT_LIB=/x", "ESMIO_BENCH_DATA=/x",
                    "ESMIO_BENCH_REAL_DATA=/x", "ESMIO_BENCH_DIR=/x",
                    "ESMIO_TEST_STAGE_CORRUPT_BLOCK=1", "ESMIO_TEST_OUT=/tmp", "ESMIO_TEST_DATA=/x",
                    "ESMIO_FULL_DISK_CASES=tmpfs", "ESMIO_ASYNC_FULL_DISK_CASES=tmpfs",
                    "ESMIO_CLIENTS_KEEP=1", "ESMIO_PY_OUT=/tmp", "ESMIO_EXAMPLE_NP=5"}),
      std::vector<std::string>{});
  EXPECT_EQ(warnings_for({}), std::vector<std::string>{});
  EXPECT_EQ(unknown_environment_warnings(nullptr), std::vector<std::string>{});
}
