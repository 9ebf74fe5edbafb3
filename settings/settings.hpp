#pragma once
// The MPIDLE_* settings (settings_table.def): one declaration each, read by the
// profiler at MPI_Init, printed by `mpidle config`, taken as options by `mpidle run`
// and documented in docs/configuration.md, all from the same table. No MPI.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpidle::settings {

enum class SettingType : std::uint8_t { flag, count, choice, text };

// The value of every setting; constructed with the table's defaults.
struct Settings {
#define MPIDLE_SETTING_FIELD_flag bool
#define MPIDLE_SETTING_FIELD_count std::int64_t
#define MPIDLE_SETTING_FIELD_choice std::string
#define MPIDLE_SETTING_FIELD_text std::string
#define MPIDLE_SETTING(member, key, type, def, limits, option, desc) \
  MPIDLE_SETTING_FIELD_##type member{};
#include "settings/settings_table.def"
#undef MPIDLE_SETTING
#undef MPIDLE_SETTING_FIELD_flag
#undef MPIDLE_SETTING_FIELD_count
#undef MPIDLE_SETTING_FIELD_choice
#undef MPIDLE_SETTING_FIELD_text
  Settings();
};

struct SettingSpec {
  const char* member;
  const char* env;  // full name, MPIDLE_<KEY>
  SettingType type;
  const char* default_value;
  const char* limits;  // count: "MIN..MAX"; choice: "a|b|c"; else ""
  const char* option;  // the `mpidle run` option that sets it, or ""
  const char* description;
  // Stores `text` into the setting's field; false (field untouched) if it is not valid.
  bool (*assign)(const SettingSpec& spec, Settings& settings, std::string_view text);
  std::string (*show)(const Settings& settings);  // the field's value as text
};

const std::vector<SettingSpec>& setting_specs();
// The setting a `mpidle run` option sets ("--trace"), or nullptr.
const SettingSpec* find_setting_for_option(std::string_view option);

const char* setting_type_name(SettingType type);
// What a valid value looks like: "0 or 1", "an integer in [1, 16]", "low or high".
std::string setting_expectation(const SettingSpec& spec);

// Reads settings through `lookup` (getenv in the profiler, a map in tests). Every
// malformed value adds one warning to `warnings` and keeps the default.
using EnvLookup = std::function<std::optional<std::string>(const char*)>;
// The process' own environment (getenv), as an EnvLookup.
std::optional<std::string> environment_variable(const char* name);
Settings parse_settings(const EnvLookup& lookup, std::vector<std::string>& warnings);

// The warning for a malformed value (the value cut to a readable length).
std::string setting_warning(const SettingSpec& spec, std::string_view text);
// The same, when the value kept is `kept` (a configuration file's) rather than the default.
std::string setting_warning(const SettingSpec& spec, std::string_view text,
                            const std::string& kept);

// The settings as docs/configuration.md shows them: a Markdown table.
std::string settings_markdown_table();

}  // namespace mpidle::settings
