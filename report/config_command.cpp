#include <cstdio>

#include "command.hpp"
#include "config.hpp"

namespace mpidle::report {

int config_command(Args args) {
  if (!args.empty()) throw UsageError("takes no arguments");
  for (const auto& s : profiler::setting_specs()) {
    std::printf("%s (%s, default \"%s\")\n    %s\n", s.env, s.type, s.default_value, s.description);
  }
  return 0;
}

}  // namespace mpidle::report
