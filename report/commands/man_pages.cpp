#include "report/commands/man_pages.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "settings/settings.hpp"

namespace mpidle::report {
namespace {

// Text as roff shows it literally: backslashes escaped, no line read as a request.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string header(const std::string& page, const std::string& version) {
  return ".TH " + upper(page) + " 1 \"\" \"mpidle " + version + "\" \"mpidle manual\"\n";
}

// The environment section: every MPIDLE_* setting from the settings table.
std::string environment_section() {
  std::string out = ".SH ENVIRONMENT\n";
  for (const auto& s : settings::setting_specs()) {
    out += ".TP\n.B " + std::string(s.env) + "\n" +
           roff(std::string("(") + settings::setting_type_name(s.type) + ", default \"" +
                s.default_value + "\") " + s.description) +
           "\n";
  }
  return out;
}

}  // namespace

std::string command_man_page(const Command& command, const std::string& version) {
  const std::string page = std::string("mpidle-") + command.name;
  const std::string help = command.synopsis;
  const auto blank = help.find("\n\n");
  const std::string synopsis = help.substr(0, blank);
  const std::string body = blank == std::string::npos ? "" : help.substr(blank + 2);
  std::string out = header(page, version);
  out += ".SH NAME\n" + roff(page) + " \\- " + roff(command.description) + "\n";
  out += ".SH SYNOPSIS\n.nf\n" + roff(synopsis) + "\n.fi\n";
  if (!body.empty()) out += ".SH DESCRIPTION\n.nf\n" + roff(body) + ".fi\n";
  if (std::string(command.name) == "run") out += environment_section();
  out += ".SH SEE ALSO\n.BR mpidle (1)\n";
  return out;
}

std::string overview_man_page(const std::string& version) {
  std::string out = header("mpidle", version);
  out += ".SH NAME\nmpidle \\- wait\\-state profiler for MPI programs\n";
  out += ".SH SYNOPSIS\n.B mpidle\n.I COMMAND\n[\\fIARGS\\fR]\n";
  out +=
      ".SH DESCRIPTION\nmpidle measures where the ranks of an MPI program wait for each other. "
      "Its library, libmpidle.so, is preloaded into every rank (by \\fBmpidle run\\fR, or "
      "LD_PRELOAD by hand) and writes a run directory at MPI_Finalize; the commands below "
      "read it.\n";
  out += ".SH COMMANDS\n";
  for (const auto& c : commands()) {
    out += ".TP\n.BR mpidle\\-" + roff(c.name) + " (1)\n" + roff(c.description) + "\n";
  }
  out += environment_section();
  out += ".SH SEE ALSO\n";
  bool first = true;
  for (const auto& c : commands()) {
    out += std::string(first ? "" : ",\n") + ".BR mpidle\\-" + roff(c.name) + " (1)";
    first = false;
  }
  out += "\n";
  return out;
}

void write_man_pages(const std::filesystem::path& directory, const std::string& version) {
  std::filesystem::create_directories(directory);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream out(directory / name);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + (directory / name).string());
  };
  write("mpidle.1", overview_man_page(version));
  for (const auto& c : commands()) {
    write(std::string("mpidle-") + c.name + ".1", command_man_page(c, version));
  }
}

}  // namespace mpidle::report
