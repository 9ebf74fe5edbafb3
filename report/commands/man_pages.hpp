#pragma once
// Manual pages (roff) generated from the command table, the same text as
// `mpidle COMMAND --help`, and the settings table for the environment section.

#include <filesystem>
#include <string>

#include "report/commands/command.hpp"

namespace mpidle::report {

std::string command_man_page(const Command& command, const std::string& version);
std::string overview_man_page(const std::string& version);  // mpidle(1)

// Writes mpidle.1 and mpidle-COMMAND.1 for every command into `directory`.
void write_man_pages(const std::filesystem::path& directory, const std::string& version);

}  // namespace mpidle::report
