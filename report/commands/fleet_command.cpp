// mpidle fleet ingest | report: many jobs' records in one database (fleet/).
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "fleet/fleet_report.hpp"
#include "fleet/ingest.hpp"
#include "report/commands/command.hpp"
#include "report/html/fleet_html.hpp"

namespace mpidle::report {
namespace {

std::int64_t date_option(const std::string& option, const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%d", &tm);
  if (!end || *end != '\0') throw UsageError(option + " " + text + ": not a date (YYYY-MM-DD)");
  return static_cast<std::int64_t>(timegm(&tm));
}

int ingest_command(Args args) {
  std::vector<std::string> roots;
  std::string db;
  fleet::OwnerPolicy owners;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(args[i] + " needs a value");
      return args[++i];
    };
    if (args[i] == "--db") {
      db = value();
    } else if (args[i] == "--service-account") {
      owners.services.push_back(value());
    } else if (args[i] == "--trust-records") {
      owners.check = false;
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw UsageError("unknown option " + args[i]);
    } else {
      roots.push_back(args[i]);
    }
  }
  if (roots.empty()) throw UsageError("names no LOG_DIR");
  if (db.empty()) throw UsageError("needs --db DB (a SQLite file or a postgresql:// URI)");
  auto database = fleet::open_database(db);
  const auto c = fleet::ingest(*database, roots, stderr, owners);
  std::printf(
      "mpidle fleet: %zu runs found: %zu added, %zu updated, %zu unchanged, %zu skipped, "
      "%zu refused\n",
      c.runs, c.added, c.updated, c.unchanged, c.skipped, c.refused);
  return 0;
}

int report_subcommand(Args args) {
  fleet::ReportFilter filter;
  std::string db, html;
  bool json = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--db") {
      db = value();
    } else if (a == "--since") {
      filter.since = date_option(a, value());
    } else if (a == "--until") {
      filter.until = date_option(a, value());
    } else if (a == "--user") {
      filter.user = value();
    } else if (a == "--account") {
      filter.account = value();
    } else if (a == "--app") {
      filter.application = value();
    } else if (a == "--json") {
      json = true;
    } else if (a == "--html") {
      html = value();
    } else {
      throw UsageError("unknown argument " + a);
    }
  }
  if (db.empty()) throw UsageError("needs --db DB (a SQLite file or a postgresql:// URI)");
  auto database = fleet::open_database(db);
  const auto report = fleet::fleet_report(*database, filter);
  if (!html.empty()) {
    std::ofstream out(html, std::ios::trunc);
    out << fleet_report_html(report);
    if (!out) throw std::runtime_error("cannot write " + html);
    std::fprintf(stderr, "mpidle fleet: report written to %s\n", html.c_str());
    return 0;
  }
  std::fputs(json ? (report.dump(1) + "\n").c_str() : fleet::fleet_report_text(report).c_str(),
             stdout);
  return 0;
}

}  // namespace

int fleet_command(Args args) {
  if (args.empty()) throw UsageError("needs a subcommand: ingest or report");
  const Args rest = args.subspan(1);
  if (args[0] == "ingest") return ingest_command(rest);
  if (args[0] == "report") return report_subcommand(rest);
  throw UsageError("unknown subcommand " + args[0] + " (ingest or report)");
}

}  // namespace mpidle::report
