#pragma once
// Site configuration: the MPIDLE_* settings read from files as well as from the
// environment. A centre puts its defaults (MPIDLE_LOG_DIR, ...) in the system-wide
// file; MPIDLE_CONFIG names another one; the environment overrides both. No MPI.
//
// Format: one `KEY=value` per line, KEY with or without its MPIDLE_ prefix;
// blank lines and lines starting with '#' are ignored; whitespace around KEY and
// value is dropped; a value may be quoted with "..." or '...'.

#include <map>
#include <string>
#include <vector>

#include "settings/settings.hpp"

namespace mpidle::settings {

// The system-wide file, <sysconfdir>/mpidle.conf of the installation.
const char* system_config_path();

struct ConfigFile {
  std::string path;
  std::map<std::string, std::string> values;  // by full name, MPIDLE_<KEY>
  // Empty, or one line saying what was wrong with the file (unreadable, lines not
  // understood, unknown settings); the file's good lines still count.
  std::string problem;
};

// Reads `path`. A missing file is a problem only when `required`.
ConfigFile read_config_file(const std::string& path, bool required);

// The settings from the environment over MPIDLE_CONFIG's file over the system-wide
// file. Every file problem and malformed value adds one warning and keeps the
// lower layer's value (or the default).
Settings read_settings(const EnvLookup& environment, std::vector<std::string>& warnings,
                       const std::string& system_file = system_config_path());

}  // namespace mpidle::settings
