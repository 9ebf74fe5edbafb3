#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include "settings/settings.hpp"

using namespace mpidle::settings;

namespace {
Settings parse(const std::map<std::string, std::string>& env, std::vector<std::string>& warnings) {
  return parse_settings(
      [&](const char* name) -> std::optional<std::string> {
        auto it = env.find(name);
        if (it == env.end()) return std::nullopt;
        return it->second;
      },
      warnings);
}
}  // namespace

TEST_CASE("settings: no environment gives the table's defaults", "[settings]") {
  std::vector<std::string> warnings;
  const Settings s = parse({}, warnings);
  CHECK(warnings.empty());
  CHECK(s.enable);
  CHECK(s.output.empty());
  CHECK(s.callsite_depth == 1);
  CHECK_FALSE(s.global_min);
  CHECK(s.timer == "auto");
  CHECK(s.symbolize);
  CHECK(s.table_entries == 16384);
  CHECK(s.summary_detail == "low");
  // Every default is a valid value of its own setting.
  for (const auto& spec : setting_specs()) {
    INFO(spec.env);
    Settings scratch;
    CHECK(spec.assign(spec, scratch, spec.default_value));
    CHECK(spec.show(s) == spec.default_value);
  }
}

TEST_CASE("settings: valid values are taken, choices in any case", "[settings]") {
  std::vector<std::string> warnings;
  const Settings s = parse({{"MPIDLE_ENABLE", "off"},
                            {"MPIDLE_OUTPUT", "/tmp/run"},
                            {"MPIDLE_CALLSITE_DEPTH", "4"},
                            {"MPIDLE_GLOBAL_MIN", "YES"},
                            {"MPIDLE_TIMER", "Clock_Gettime"},
                            {"MPIDLE_SUMMARY_SYMBOLS", "size,peer"},
                            {"MPIDLE_TABLE_ENTRIES", "1024"}},
                           warnings);
  CHECK(warnings.empty());
  CHECK_FALSE(s.enable);
  CHECK(s.output == "/tmp/run");
  CHECK(s.callsite_depth == 4);
  CHECK(s.global_min);
  CHECK(s.timer == "clock_gettime");
  CHECK(s.summary_symbols == "size,peer");
  CHECK(s.table_entries == 1024);
}

TEST_CASE("settings: garbage values warn once each and keep the default", "[settings]") {
  std::vector<std::string> warnings;
  const Settings s = parse({{"MPIDLE_ENABLE", "maybe"},
                            {"MPIDLE_CALLSITE_DEPTH", "3x"},
                            {"MPIDLE_GLOBAL_MIN", ""},
                            {"MPIDLE_TIMER", "sundial"},
                            {"MPIDLE_TABLE_ENTRIES", "99999999999"},
                            {"MPIDLE_VERBOSE", "-1"}},
                           warnings);
  REQUIRE(warnings.size() == 6);
  CHECK_THAT(warnings[0], Catch::Contains("MPIDLE_ENABLE=\"maybe\" is not 0 or 1"));
  CHECK_THAT(warnings[1],
             Catch::Contains("MPIDLE_CALLSITE_DEPTH=\"3x\" is not an integer in [1, 16]"));
  CHECK_THAT(warnings[3], Catch::Contains("is not auto, tsc or clock_gettime"));
  CHECK(s.enable);
  CHECK(s.callsite_depth == 1);
  CHECK_FALSE(s.global_min);
  CHECK(s.timer == "auto");
  CHECK(s.table_entries == 16384);
  CHECK(s.verbose == 0);
}

TEST_CASE("settings: a huge or binary value is echoed cut short", "[settings]") {
  std::vector<std::string> warnings;
  parse({{"MPIDLE_TIMER", std::string(100'000, 'x') + "\x01"}}, warnings);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].size() < 200);
  CHECK_THAT(warnings[0], Catch::Contains("(100001 bytes)"));
  warnings.clear();
  parse({{"MPIDLE_TIMER", "a\nb"}}, warnings);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find('\n') == std::string::npos);
}

TEST_CASE("settings: docs/configuration.md holds the table mpidle config --markdown prints",
          "[settings]") {
  std::ifstream in(std::string(MPIDLE_SOURCE_DIR) + "/docs/configuration.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string table = settings_markdown_table();
  INFO("regenerate with: mpidle config --markdown");
  CHECK_THAT(text.str(), Catch::Contains(table));
  for (const auto& spec : setting_specs()) CHECK_THAT(table, Catch::Contains(spec.env));
}

TEST_CASE("settings: the README's table names every setting", "[settings]") {
  std::ifstream in(std::string(MPIDLE_SOURCE_DIR) + "/README.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  for (const auto& spec : setting_specs()) {
    INFO(spec.env);
    CHECK_THAT(text.str(), Catch::Contains(std::string("| `") + spec.env + "` |"));
  }
}
