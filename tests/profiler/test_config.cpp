#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include "config.hpp"

using namespace mpidle::profiler;

namespace {
Config parse(const std::map<std::string, std::string>& env, std::vector<std::string>& warnings) {
  return parse_config(
      [&](const char* name) -> std::optional<std::string> {
        auto it = env.find(name);
        if (it == env.end()) return std::nullopt;
        return it->second;
      },
      warnings);
}
}  // namespace

TEST_CASE("no environment gives the documented defaults", "[profiler]") {
  std::vector<std::string> warnings;
  const Config c = parse({}, warnings);
  CHECK(warnings.empty());
  CHECK(c.enable);
  CHECK(c.output.empty());
  CHECK(c.callsite_depth == 1);
  CHECK_FALSE(c.global_min);
  CHECK(c.timer == TimerChoice::automatic);
  CHECK(c.symbolize);
}

TEST_CASE("valid settings are taken", "[profiler]") {
  std::vector<std::string> warnings;
  const Config c = parse({{"MPIDLE_ENABLE", "off"},
                          {"MPIDLE_OUTPUT", "/tmp/run"},
                          {"MPIDLE_CALLSITE_DEPTH", "4"},
                          {"MPIDLE_GLOBAL_MIN", "YES"},
                          {"MPIDLE_TIMER", "clock_gettime"},
                          {"MPIDLE_TABLE_ENTRIES", "1024"}},
                         warnings);
  CHECK(warnings.empty());
  CHECK_FALSE(c.enable);
  CHECK(c.output == "/tmp/run");
  CHECK(c.callsite_depth == 4);
  CHECK(c.global_min);
  CHECK(c.timer == TimerChoice::clock_gettime);
  CHECK(c.table_entries == 1024);
}

TEST_CASE("garbage values warn once each and keep the default", "[profiler]") {
  std::vector<std::string> warnings;
  const Config c = parse({{"MPIDLE_ENABLE", "maybe"},
                          {"MPIDLE_CALLSITE_DEPTH", "3x"},
                          {"MPIDLE_GLOBAL_MIN", ""},
                          {"MPIDLE_TIMER", "sundial"},
                          {"MPIDLE_TABLE_ENTRIES", "99999999999"}},
                         warnings);
  REQUIRE(warnings.size() == 5);
  CHECK_THAT(warnings[0], Catch::Contains("MPIDLE_ENABLE=\"maybe\""));
  CHECK_THAT(warnings[1],
             Catch::Contains("MPIDLE_CALLSITE_DEPTH=\"3x\" is not an integer in [1, 16]"));
  CHECK(c.enable);
  CHECK(c.callsite_depth == 1);
  CHECK_FALSE(c.global_min);
  CHECK(c.timer == TimerChoice::automatic);
  CHECK(c.table_entries == 16384);
}

TEST_CASE("docs/configuration.md documents every setting with its default", "[profiler]") {
  std::ifstream in(std::string(MPIDLE_SOURCE_DIR) + "/docs/configuration.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  for (const auto& s : setting_specs()) {
    INFO(s.env);
    const std::string row = std::string("| `") + s.env + "` | `" + s.default_value + "` |";
    CHECK_THAT(doc, Catch::Contains(row));
  }
  // And describe_config names exactly the same settings.
  std::vector<std::string> warnings;
  const auto described = describe_config(parse({}, warnings));
  REQUIRE(described.size() == setting_specs().size());
  for (std::size_t i = 0; i < described.size(); ++i)
    CHECK(described[i].first == setting_specs()[i].env);
}
