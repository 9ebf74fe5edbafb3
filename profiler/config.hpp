#pragma once
// Immutable configuration from MPIDLE_* environment variables (config_table.def).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mpidle::profiler {

enum class TimerChoice : std::uint8_t { automatic, tsc, clock_gettime };

struct Config {
  bool enable = true;
  std::string output;
  std::int64_t callsite_depth = 1;
  bool global_min = false;
  TimerChoice timer = TimerChoice::automatic;
  std::int64_t table_entries = 16384;
  std::int64_t request_entries = 16384;
  bool symbolize = true;
  std::int64_t verbose = 0;
  bool trace = false;
  std::int64_t trace_mem_mib = 256;
  std::string summary_symbols = "callsite";
  bool summary_detail_high = false;
  std::string papi_events;
  std::int64_t test_clock_offset_us = 0;
  std::int64_t test_clock_drift_ppm = 0;
};

struct SettingSpec {
  const char* member;
  const char* env;  // full name, MPIDLE_<KEY>
  const char* type;
  const char* default_value;
  const char* description;
};

const std::vector<SettingSpec>& setting_specs();

// Reads settings through `lookup` (getenv in the profiler, a map in tests).
// Every malformed value adds one warning to `warnings` and keeps the default.
using EnvLookup = std::function<std::optional<std::string>(const char*)>;
Config parse_config(const EnvLookup& lookup, std::vector<std::string>& warnings);

// The effective value of every setting, as text, in table order.
std::vector<std::pair<std::string, std::string>> describe_config(const Config& config);

}  // namespace mpidle::profiler
