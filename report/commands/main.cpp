// mpidle: runs MPI programs under the profiler and reads what it wrote.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "model/profile_reader.hpp"
#include "report/commands/command.hpp"
#include "report/commands/man_pages.hpp"

namespace {

void print_help() {
  std::printf(
      "mpidle — wait-state profiler for MPI programs\n\n"
      "usage: mpidle COMMAND [ARGS]\n\ncommands:\n");
  for (const auto& c : mpidle::report::commands()) {
    std::printf("  %-8s %s\n", c.name, c.description);
  }
  std::printf(
      "\n`mpidle COMMAND --help` (or `man mpidle-COMMAND`) describes one command;\n"
      "`mpidle --version` says which build this is.\n");
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    print_help();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::printf("mpidle %s (profiler built for %s)\n", MPIDLE_VERSION, MPIDLE_BUILT_FOR_MPI);
    return 0;
  }
  // The build writes the manual pages from the command table (not a user command).
  if (args[0] == "--write-man-pages" && args.size() == 2) {
    try {
      mpidle::report::write_man_pages(args[1], MPIDLE_VERSION);
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mpidle: %s\n", e.what());
      return 2;
    }
  }
  for (const auto& c : mpidle::report::commands()) {
    if (args[0] != c.name) continue;
    try {
      const mpidle::report::Args rest(args.data() + 1, args.size() - 1);
      if (mpidle::report::wants_help(c, rest)) return 0;
      return c.run(rest);
    } catch (const mpidle::report::UsageError& e) {
      std::fprintf(stderr, "mpidle %s: %s\n", c.name, e.what());
    } catch (const mpidle::model::ProfileError& e) {
      std::fprintf(stderr, "mpidle %s: %s\n", c.name, e.what());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mpidle %s: %s\n", c.name, e.what());
    }
    return 2;
  }
  std::fprintf(stderr, "mpidle: unknown command \"%s\" (try mpidle --help)\n", args[0].c_str());
  return 2;
}
