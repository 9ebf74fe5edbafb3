#include "settings/settings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace mpidle::settings {
namespace {

std::string lower(std::string_view text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || p != end) return std::nullopt;
  return value;
}

struct CountRange {
  std::int64_t min, max;
};

CountRange count_range(const SettingSpec& spec) {
  const std::string_view limits = spec.limits;
  const auto dots = limits.find("..");
  return {parse_integer(limits.substr(0, dots)).value_or(INT64_MIN),
          parse_integer(limits.substr(dots + 2)).value_or(INT64_MAX)};
}

std::vector<std::string> choices(const SettingSpec& spec) {
  std::vector<std::string> out;
  std::string_view rest = spec.limits;
  while (!rest.empty()) {
    const auto bar = rest.find('|');
    out.emplace_back(rest.substr(0, bar));
    rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
  }
  return out;
}

bool assign_field(const SettingSpec&, bool& field, std::string_view text) {
  const std::string v = lower(text);
  if (v == "1" || v == "yes" || v == "true" || v == "on") {
    field = true;
  } else if (v == "0" || v == "no" || v == "false" || v == "off") {
    field = false;
  } else {
    return false;
  }
  return true;
}

bool assign_field(const SettingSpec& spec, std::int64_t& field, std::string_view text) {
  const auto value = parse_integer(text);
  const CountRange range = count_range(spec);
  if (!value || *value < range.min || *value > range.max) return false;
  field = *value;
  return true;
}

bool assign_field(const SettingSpec& spec, std::string& field, std::string_view text) {
  if (spec.type == SettingType::text) {
    field = text;
    return true;
  }
  const std::string v = lower(text);
  for (const auto& choice : choices(spec)) {
    if (v == choice) {
      field = choice;
      return true;
    }
  }
  return false;
}

std::string show_field(bool value) {
  return value ? "1" : "0";
}
std::string show_field(std::int64_t value) {
  return std::to_string(value);
}
std::string show_field(const std::string& value) {
  return value;
}

// A value echoed in a warning: a 100 KB environment variable must not become a 100 KB line.
constexpr std::size_t kEchoLimit = 64;

std::string echo(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, kEchoLimit)) {
    out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  }
  if (text.size() > kEchoLimit) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace

Settings::Settings() {
  for (const auto& spec : setting_specs()) spec.assign(spec, *this, spec.default_value);
}

const std::vector<SettingSpec>& setting_specs() {
  // Never destroyed: libmpidle reads the settings until the program's last
  // MPI_Finalize, which may come from a static destructor that runs after this one
  // would.
  static const auto& specs = *new const std::vector<SettingSpec>{
#define MPIDLE_SETTING(member, key, type, def, limits, option, desc) \
  {#member,                                                          \
   "MPIDLE_" #key,                                                   \
   SettingType::type,                                                \
   def,                                                              \
   limits,                                                           \
   option,                                                           \
   desc,                                                             \
   [](const SettingSpec& spec, Settings& s, std::string_view text) { \
     return assign_field(spec, s.member, text);                      \
   },                                                                \
   [](const Settings& s) { return show_field(s.member); }},
#include "settings/settings_table.def"
#undef MPIDLE_SETTING
  };
  return specs;
}

const SettingSpec* find_setting_for_option(std::string_view option) {
  for (const auto& spec : setting_specs()) {
    if (*spec.option && option == spec.option) return &spec;
  }
  return nullptr;
}

const char* setting_type_name(SettingType type) {
  switch (type) {
    case SettingType::flag:
      return "flag";
    case SettingType::count:
      return "count";
    case SettingType::choice:
      return "choice";
    case SettingType::text:
      return "text";
  }
  return "text";
}

std::string setting_expectation(const SettingSpec& spec) {
  switch (spec.type) {
    case SettingType::flag:
      return "0 or 1";
    case SettingType::count: {
      const CountRange r = count_range(spec);
      return "an integer in [" + std::to_string(r.min) + ", " + std::to_string(r.max) + "]";
    }
    case SettingType::choice: {
      const auto list = choices(spec);
      std::string out;
      for (std::size_t i = 0; i < list.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == list.size() ? " or " : ", ") + list[i];
      }
      return out;
    }
    case SettingType::text:
      return "text";
  }
  return "text";
}

std::string setting_warning(const SettingSpec& spec, std::string_view text) {
  return setting_warning(spec, text, spec.default_value);
}

std::string setting_warning(const SettingSpec& spec, std::string_view text,
                            const std::string& kept) {
  const std::string shown = kept.empty() ? "(empty)" : kept;
  return std::string(spec.env) + "=\"" + echo(text) + "\" is not " + setting_expectation(spec) +
         (kept == spec.default_value ? "; using the default " + shown : "; keeping " + shown);
}

std::optional<std::string> environment_variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

Settings parse_settings(const EnvLookup& lookup, std::vector<std::string>& warnings) {
  Settings settings;
  for (const auto& spec : setting_specs()) {
    const auto text = lookup(spec.env);
    if (text && !spec.assign(spec, settings, *text))
      warnings.push_back(setting_warning(spec, *text));
  }
  return settings;
}

std::string settings_markdown_table() {
  std::string out =
      "| variable | default | values | `mpidle run` | meaning |\n|---|---|---|---|---|\n";
  for (const auto& spec : setting_specs()) {
    std::string values;
    if (spec.type == SettingType::choice) {
      for (const auto& c : choices(spec)) values += (values.empty() ? "`" : ", `") + c + "`";
    } else {
      values = setting_expectation(spec);
    }
    const std::string def = *spec.default_value ? std::string("`") + spec.default_value + "`" : "";
    out += std::string("| `") + spec.env + "` | " + def + " | " + values + " | " +
           (*spec.option ? std::string("`") + spec.option + "`" : std::string()) + " | " +
           spec.description + " |\n";
  }
  return out;
}

}  // namespace mpidle::settings
