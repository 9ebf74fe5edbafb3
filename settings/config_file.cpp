#include "settings/config_file.hpp"

#include <fstream>
#include <set>
#include <string_view>

namespace mpidle::settings {
namespace {

// A configuration file is a few lines; more than this is not one.
constexpr std::size_t kMaxFileBytes = 1 << 20;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string_view unquote(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

const std::set<std::string>& known_names() {
  static const auto& names = *new std::set<std::string>([] {
    std::set<std::string> out;
    for (const auto& spec : setting_specs()) out.insert(spec.env);
    return out;
  }());
  return names;
}

}  // namespace

const char* system_config_path() {
  return MPIDLE_SYSTEM_CONFIG;
}

ConfigFile read_config_file(const std::string& path, bool required) {
  ConfigFile file{path, {}, {}};
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (required) file.problem = path + ": cannot be read; its settings are not used";
    return file;
  }
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxFileBytes || text.find('\0') != std::string::npos) {
    file.problem = path + ": not a configuration file (binary, or over 1 MiB); not used";
    return file;
  }
  std::size_t bad = 0;
  std::string first_bad;
  std::string_view rest = text;
  for (std::size_t number = 1; !rest.empty(); ++number) {
    const auto eol = rest.find('\n');
    const std::string_view line = trim(rest.substr(0, eol));
    rest = eol == std::string_view::npos ? std::string_view{} : rest.substr(eol + 1);
    if (line.empty() || line.front() == '#') continue;
    const auto eq = line.find('=');
    std::string key(trim(line.substr(0, eq == std::string_view::npos ? line.size() : eq)));
    if (key.rfind("MPIDLE_", 0) != 0) key = "MPIDLE_" + key;
    if (eq == std::string_view::npos || known_names().count(key) == 0) {
      if (bad++ == 0) {
        first_bad = "line " + std::to_string(number) + ": " +
                    (eq == std::string_view::npos ? "no KEY=value" : "unknown setting " + key);
      }
      continue;
    }
    file.values[key] = std::string(unquote(trim(line.substr(eq + 1))));
  }
  if (bad > 0) {
    file.problem = path + ": " + std::to_string(bad) + " line" + (bad == 1 ? "" : "s") +
                   " not understood and ignored (" + first_bad + ")";
  }
  return file;
}

Settings read_settings(const EnvLookup& environment, std::vector<std::string>& warnings,
                       const std::string& system_file) {
  std::vector<ConfigFile> files;  // lowest layer first
  if (!system_file.empty()) files.push_back(read_config_file(system_file, false));
  if (const auto named = environment("MPIDLE_CONFIG"); named && !named->empty()) {
    files.push_back(read_config_file(*named, true));
  }
  for (const auto& f : files) {
    if (!f.problem.empty()) warnings.push_back(f.problem);
  }
  Settings settings;
  for (const auto& spec : setting_specs()) {
    for (const auto& f : files) {
      const auto it = f.values.find(spec.env);
      if (it == f.values.end()) continue;
      const std::string kept = spec.show(settings);
      if (!spec.assign(spec, settings, it->second)) {
        warnings.push_back(f.path + ": " + setting_warning(spec, it->second, kept));
      }
    }
    const auto text = environment(spec.env);
    if (!text) continue;
    const std::string kept = spec.show(settings);
    if (!spec.assign(spec, settings, *text)) {
      warnings.push_back(setting_warning(spec, *text, kept));
    }
  }
  return settings;
}

}  // namespace mpidle::settings
