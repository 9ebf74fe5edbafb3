#include <charconv>
#include <cstdio>

#include "command.hpp"
#include "model/profile_reader.hpp"
#include "text_report.hpp"

namespace mpidle::report {

int report_command(Args args) {
  std::string path;
  ReportOptions options;
  bool estimate_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--top" || a == "--minimum") {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      const std::string& v = args[++i];
      if (a == "--top") {
        std::size_t n = 0;
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (ec != std::errc() || p != v.data() + v.size() || n == 0) {
          throw UsageError("--top needs a positive integer, not \"" + v + "\"");
        }
        options.top = n;
      } else {
        if (v != "local" && v != "global") throw UsageError("--minimum is local or global");
        options.estimate = v == "global" ? Estimate::global : Estimate::local;
        estimate_given = true;
      }
    } else {
      take_positional(a, path, "run directory or profile.json");
    }
  }
  if (path.empty()) throw UsageError("which run? (mpidle report RUN_DIR)");
  const auto profile = model::read_profile(path);
  if (!estimate_given) options.estimate = estimate_of(profile);
  std::fputs(format_report(profile, options).c_str(), stdout);
  return 0;
}

}  // namespace mpidle::report
