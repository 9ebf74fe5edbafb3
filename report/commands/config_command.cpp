#include <cstdio>

#include "report/commands/command.hpp"
#include "settings/settings.hpp"

namespace mpidle::report {

int config_command(Args args) {
  if (args.size() == 1 && args[0] == "--markdown") {
    std::fputs(settings::settings_markdown_table().c_str(), stdout);
    return 0;
  }
  if (!args.empty()) throw UsageError("takes no arguments but --markdown, not " + args[0]);
  for (const auto& s : settings::setting_specs()) {
    std::printf("%s (%s, default \"%s\"", s.env, settings::setting_type_name(s.type),
                s.default_value);
    if (*s.limits) std::printf(", %s", settings::setting_expectation(s).c_str());
    if (*s.option) std::printf(", mpidle run %s", s.option);
    std::printf(")\n    %s\n", s.description);
  }
  return 0;
}

}  // namespace mpidle::report
