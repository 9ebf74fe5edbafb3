#include "config.hpp"

#include "compress/summary_set.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace mpidle::profiler {
namespace {

struct CountRange {
  std::int64_t min, max;
};

CountRange range_of(std::string_view member) {
  if (member == "callsite_depth") return {1, 16};
  if (member == "table_entries") return {64, 1 << 24};
  if (member == "request_entries") return {64, 1 << 24};
  if (member == "verbose") return {0, 2};
  if (member == "trace_mem_mib") return {1, 1 << 20};
  if (member == "test_clock_offset_us") return {-1'000'000, 1'000'000};
  if (member == "test_clock_drift_ppm") return {-100'000, 100'000};
  return {0, INT64_MAX};
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::optional<bool> parse_flag(const std::string& text) {
  const std::string v = lower(text);
  if (v == "1" || v == "yes" || v == "true" || v == "on") return true;
  if (v == "0" || v == "no" || v == "false" || v == "off") return false;
  return {};
}

std::optional<std::int64_t> parse_count(const std::string& text, CountRange range) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || p != end || value < range.min || value > range.max) return {};
  return value;
}

std::optional<TimerChoice> parse_timer(const std::string& text) {
  const std::string v = lower(text);
  if (v == "auto") return TimerChoice::automatic;
  if (v == "tsc") return TimerChoice::tsc;
  if (v == "clock_gettime") return TimerChoice::clock_gettime;
  return {};
}

template <typename T>
void set_flag_or_warn(T& field, const std::optional<T>& parsed, const SettingSpec& spec,
                      const std::string& text, std::vector<std::string>& warnings,
                      const std::string& expected) {
  if (parsed) {
    field = *parsed;
    return;
  }
  warnings.push_back(std::string(spec.env) + "=\"" + text + "\" is not " + expected +
                     "; using the default " + spec.default_value);
}

}  // namespace

const std::vector<SettingSpec>& setting_specs() {
  static const std::vector<SettingSpec> specs = {
#define MPIDLE_SETTING(member, key, type, def, desc) {#member, "MPIDLE_" #key, #type, def, desc},
#include "config_table.def"
#undef MPIDLE_SETTING
  };
  return specs;
}

Config parse_config(const EnvLookup& lookup, std::vector<std::string>& warnings) {
  Config c;
  for (const auto& spec : setting_specs()) {
    const auto text = lookup(spec.env);
    if (!text) continue;
    const std::string_view m = spec.member;
    const std::string type = spec.type;
    if (type == "flag") {
      bool& field = m == "enable"       ? c.enable
                    : m == "global_min" ? c.global_min
                    : m == "trace"      ? c.trace
                                        : c.symbolize;
      set_flag_or_warn(field, parse_flag(*text), spec, *text, warnings, "0 or 1");
    } else if (type == "count") {
      const auto r = range_of(m);
      std::int64_t& field = m == "callsite_depth"         ? c.callsite_depth
                            : m == "table_entries"        ? c.table_entries
                            : m == "request_entries"      ? c.request_entries
                            : m == "trace_mem_mib"        ? c.trace_mem_mib
                            : m == "test_clock_offset_us" ? c.test_clock_offset_us
                            : m == "test_clock_drift_ppm" ? c.test_clock_drift_ppm
                                                          : c.verbose;
      set_flag_or_warn(
          field, parse_count(*text, r), spec, *text, warnings,
          "an integer in [" + std::to_string(r.min) + ", " + std::to_string(r.max) + "]");
    } else if (type == "timer") {
      set_flag_or_warn(c.timer, parse_timer(*text), spec, *text, warnings,
                       "auto, tsc or clock_gettime");
    } else if (type == "symbols") {
      std::optional<std::string> valid;
      if (compress::parse_symbol_options(*text)) valid = *text;
      set_flag_or_warn(c.summary_symbols, valid, spec, *text, warnings,
                       "callsite, peer, size or peer,size");
    } else if (type == "detail") {
      const std::string v = lower(*text);
      set_flag_or_warn(c.summary_detail_high,
                       v == "low" || v == "high" ? std::optional<bool>(v == "high") : std::nullopt,
                       spec, *text, warnings, "low or high");
    } else if (m == "output") {
      c.output = *text;
    } else if (m == "papi_events") {
      c.papi_events = *text;
    }
  }
  return c;
}

std::vector<std::pair<std::string, std::string>> describe_config(const Config& c) {
  const char* timers[] = {"auto", "tsc", "clock_gettime"};
  return {{"MPIDLE_ENABLE", c.enable ? "1" : "0"},
          {"MPIDLE_OUTPUT", c.output},
          {"MPIDLE_CALLSITE_DEPTH", std::to_string(c.callsite_depth)},
          {"MPIDLE_GLOBAL_MIN", c.global_min ? "1" : "0"},
          {"MPIDLE_TIMER", timers[static_cast<int>(c.timer)]},
          {"MPIDLE_TABLE_ENTRIES", std::to_string(c.table_entries)},
          {"MPIDLE_REQUEST_ENTRIES", std::to_string(c.request_entries)},
          {"MPIDLE_SYMBOLIZE", c.symbolize ? "1" : "0"},
          {"MPIDLE_VERBOSE", std::to_string(c.verbose)},
          {"MPIDLE_TRACE", c.trace ? "1" : "0"},
          {"MPIDLE_TRACE_MEM", std::to_string(c.trace_mem_mib)},
          {"MPIDLE_SUMMARY_SYMBOLS", c.summary_symbols},
          {"MPIDLE_SUMMARY_DETAIL", c.summary_detail_high ? "high" : "low"},
          {"MPIDLE_PAPI_EVENTS", c.papi_events},
          {"MPIDLE_TEST_CLOCK_OFFSET_US", std::to_string(c.test_clock_offset_us)},
          {"MPIDLE_TEST_CLOCK_DRIFT_PPM", std::to_string(c.test_clock_drift_ppm)}};
}

}  // namespace mpidle::profiler
