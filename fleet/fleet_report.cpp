#include "fleet_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <vector>

#include "schema.hpp"

namespace mpidle::fleet {
namespace {

struct JobRow {
  std::int64_t id = 0, start = 0, ranks = 0;
  std::string application, user, account, run_path, job_id, status;
  double wall_s = 0, core_hours = 0, wait_s = 0, wait_share = 0;
  std::optional<double> parallel_efficiency;  // NULL for jobs ingested before it existed
};

// Sums of one group (an application, a user, a day...).
struct Totals {
  std::int64_t jobs = 0;
  double core_hours = 0, wait_s = 0, rank_seconds = 0;
  void add(const JobRow& j) {
    ++jobs;
    core_hours += j.core_hours;
    wait_s += j.wait_s;
    rank_seconds += j.wall_s * static_cast<double>(j.ranks);
  }
  nlohmann::json json() const {
    return {{"jobs", jobs},
            {"core_hours", core_hours},
            {"wait_core_hours", wait_s / 3600},
            {"wait_share", rank_seconds > 0 ? wait_s / rank_seconds : 0.0}};
  }
};

std::string where_clause(const ReportFilter& f, std::vector<Value>& params,
                         const char* prefix = "") {
  std::string sql;
  const auto add = [&](const std::string& condition, Value v) {
    params.push_back(std::move(v));
    sql += (sql.empty() ? " WHERE " : " AND ") + std::string(prefix) + condition + " $" +
           std::to_string(params.size());
  };
  if (f.since) add("start_time >=", *f.since);
  if (f.until) add("start_time <", *f.until);
  if (!f.user.empty()) add("user_name =", f.user);
  if (!f.account.empty()) add("account =", f.account);
  if (!f.application.empty()) add("application =", f.application);
  return sql;
}

// A job's start as UTC text in strftime's `format`.
std::string utc_text(std::int64_t t, const char* format) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char text[16];
  std::strftime(text, sizeof text, format, &tm);
  return text;
}

std::string day_of(std::int64_t t) {
  return utc_text(t, "%Y-%m-%d");
}

std::string week_of(std::int64_t t) {
  return utc_text(t, "%G-W%V");  // ISO 8601 week
}

nlohmann::json top_groups(const std::map<std::string, Totals>& groups, const char* key,
                          std::size_t n) {
  std::vector<std::pair<std::string, Totals>> sorted(groups.begin(), groups.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.second.core_hours > b.second.core_hours; });
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < sorted.size() && i < n; ++i) {
    auto row = sorted[i].second.json();
    row[key] = sorted[i].first;
    out.push_back(std::move(row));
  }
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace

nlohmann::json fleet_report(Database& db, const ReportFilter& filter) {
  migrate(db);
  std::vector<Value> params;
  const std::string where = where_clause(filter, params);
  std::vector<JobRow> jobs;
  for (const auto& r : db.query("SELECT id, start_time, ranks, application, user_name, account, "
                                "run_path, job_id, status, wall_s, core_hours, wait_s, wait_share, "
                                "parallel_efficiency FROM jobs" +
                                    where,
                                params)) {
    jobs.push_back({as_integer(r[0]), as_integer(r[1]), as_integer(r[2]), r[3].value_or(""),
                    r[4].value_or(""), r[5].value_or(""), r[6].value_or(""), r[7].value_or(""),
                    r[8].value_or(""), as_number(r[9]), as_number(r[10]), as_number(r[11]),
                    as_number(r[12]),
                    r[13] ? std::optional<double>(as_number(r[13])) : std::nullopt});
  }
  Totals all;
  std::map<std::string, Totals> by_app, by_user, by_account, by_status, by_day, by_week;
  std::map<std::string, std::vector<const JobRow*>> app_jobs;
  std::vector<std::int64_t> histogram(10, 0), efficiency_histogram(10, 0);
  std::int64_t first = 0, last = 0;
  for (const auto& j : jobs) {
    all.add(j);
    by_app[j.application].add(j);
    by_user[j.user.empty() ? "(unknown)" : j.user].add(j);
    by_account[j.account.empty() ? "(none)" : j.account].add(j);
    // whole, incomplete (killed or still running, from its checkpoints), partial
    by_status[j.status].add(j);
    if (j.start > 0) {
      by_day[day_of(j.start)].add(j);
      by_week[week_of(j.start)].add(j);
      first = first == 0 ? j.start : std::min(first, j.start);
      last = std::max(last, j.start);
    }
    app_jobs[j.application].push_back(&j);
    const auto bin = std::clamp(static_cast<int>(std::floor(j.wait_share * 10)), 0, 9);
    ++histogram[static_cast<std::size_t>(bin)];
    if (j.parallel_efficiency) {
      const auto e = std::clamp(static_cast<int>(std::floor(*j.parallel_efficiency * 10)), 0, 9);
      ++efficiency_histogram[static_cast<std::size_t>(e)];
    }
  }

  nlohmann::json report;
  report["schema"] = "mpidle-fleet-report/1";
  report["filter"] = {
      {"since", filter.since ? nlohmann::json(day_of(*filter.since)) : nlohmann::json(nullptr)},
      {"until", filter.until ? nlohmann::json(day_of(*filter.until)) : nlohmann::json(nullptr)},
      {"user", filter.user},
      {"account", filter.account},
      {"application", filter.application}};
  report["totals"] = all.json();
  report["totals"]["first_job"] = first ? nlohmann::json(day_of(first)) : nlohmann::json(nullptr);
  report["totals"]["last_job"] = last ? nlohmann::json(day_of(last)) : nlohmann::json(nullptr);
  report["by_application"] = top_groups(by_app, "application", 20);
  report["by_user"] = top_groups(by_user, "user", 20);
  report["by_account"] = top_groups(by_account, "account", 20);
  report["by_status"] = top_groups(by_status, "status", 3);

  std::vector<const JobRow*> wasteful;
  for (const auto& j : jobs) wasteful.push_back(&j);
  const std::size_t keep = std::min<std::size_t>(10, wasteful.size());
  std::partial_sort(wasteful.begin(), wasteful.begin() + static_cast<std::ptrdiff_t>(keep),
                    wasteful.end(),
                    [](const JobRow* a, const JobRow* b) { return a->wait_s > b->wait_s; });
  report["top_jobs"] = nlohmann::json::array();
  for (std::size_t i = 0; i < keep; ++i) {
    const auto* j = wasteful[i];
    report["top_jobs"].push_back({{"run", j->run_path},
                                  {"application", j->application},
                                  {"user", j->user},
                                  {"job_id", j->job_id},
                                  {"start", j->start ? day_of(j->start) : ""},
                                  {"ranks", j->ranks},
                                  {"core_hours", j->core_hours},
                                  {"wait_core_hours", j->wait_s / 3600},
                                  {"wait_share", j->wait_share},
                                  {"status", j->status}});
  }

  std::vector<Value> cs_params;
  const std::string cs_where = where_clause(filter, cs_params, "j.");
  report["top_callsites"] = nlohmann::json::array();
  for (const auto& r : db.query(
           "SELECT j.application, c.function, c.location, sum(c.wait_s), sum(c.time_s), "
           "count(DISTINCT j.id) FROM job_callsites c JOIN jobs j ON c.job = j.id" +
               cs_where +
               " GROUP BY j.application, c.function, c.location ORDER BY 4 DESC, 1, 2, 3 LIMIT 10",
           cs_params)) {
    report["top_callsites"].push_back({{"application", r[0].value_or("")},
                                       {"function", r[1].value_or("")},
                                       {"location", r[2].value_or("")},
                                       {"wait_core_hours", as_number(r[3]) / 3600},
                                       {"time_core_hours", as_number(r[4]) / 3600},
                                       {"jobs", as_integer(r[5])}});
  }

  const auto tenths = [](const std::vector<std::int64_t>& counts) {
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t b = 0; b < counts.size(); ++b) {
      out.push_back({{"from", static_cast<double>(b) / 10},
                     {"to", static_cast<double>(b + 1) / 10},
                     {"jobs", counts[b]}});
    }
    return out;
  };
  report["wait_share_histogram"] = tenths(histogram);
  // POP's parallel efficiency over the jobs that have it (docs/fleet.md).
  report["parallel_efficiency_histogram"] = tenths(efficiency_histogram);
  const auto trend = [](const std::map<std::string, Totals>& m, const char* key) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [period, t] : m) {
      auto row = t.json();
      row[key] = period;
      out.push_back(std::move(row));
    }
    return out;
  };
  report["per_day"] = trend(by_day, "day");
  report["per_week"] = trend(by_week, "week");

  // Each application's recent jobs (its last kRecentDays) against its own history.
  report["rising"] = nlohmann::json::array();
  for (auto& [app, list] : app_jobs) {
    std::int64_t newest = 0;
    for (const auto* j : list) newest = std::max(newest, j->start);
    const std::int64_t cut = newest - kRecentDays * 86400;
    std::vector<double> history;
    double recent_sum = 0;
    std::size_t recent = 0;
    for (const auto* j : list) {
      if (j->start > cut) {
        recent_sum += j->wait_share;
        ++recent;
      } else {
        history.push_back(j->wait_share);
      }
    }
    if (recent < 3 || history.size() < 5) continue;
    const double before = median(history);
    const double now = recent_sum / static_cast<double>(recent);
    if (now - before >= kRiseShare) {
      report["rising"].push_back({{"application", app},
                                  {"recent_jobs", recent},
                                  {"recent_wait_share", now},
                                  {"history_jobs", history.size()},
                                  {"history_wait_share", before}});
    }
  }
  std::sort(report["rising"].begin(), report["rising"].end(), [](const auto& a, const auto& b) {
    return a["recent_wait_share"].template get<double>() -
               a["history_wait_share"].template get<double>() >
           b["recent_wait_share"].template get<double>() -
               b["history_wait_share"].template get<double>();
  });
  return report;
}

std::string fleet_report_text(const nlohmann::json& r) {
  std::string out;
  char line[512];
  const auto& t = r["totals"];
  std::snprintf(line, sizeof line,
                "mpidle fleet report: %lld jobs, %.1f core-hours, %.1f waiting in MPI (%.1f%%)\n",
                t["jobs"].get<long long>(), t["core_hours"].get<double>(),
                t["wait_core_hours"].get<double>(), 100 * t["wait_share"].get<double>());
  out += line;
  if (!t["first_job"].is_null()) {
    out += "  jobs from " + t["first_job"].get<std::string>() + " to " +
           t["last_job"].get<std::string>() + "\n";
  }
  const auto table = [&](const char* title, const char* key) {
    out += std::string("\n") + title + "\n";
    std::snprintf(line, sizeof line, "  %-28s %8s %12s %12s %7s\n", key, "jobs", "core-h",
                  "wait core-h", "wait%");
    out += line;
    for (const auto& row : r[std::string("by_") + key]) {
      std::snprintf(line, sizeof line, "  %-28.28s %8lld %12.2f %12.2f %6.1f%%\n",
                    row[key].get<std::string>().c_str(), row["jobs"].get<long long>(),
                    row["core_hours"].get<double>(), row["wait_core_hours"].get<double>(),
                    100 * row["wait_share"].get<double>());
      out += line;
    }
  };
  table("By application", "application");
  table("By user", "user");
  table("By account", "account");
  // whole; incomplete: killed (or still running), as of its ranks' last checkpoints
  table("By how the job ended", "status");
  out += "\nJobs that waited most\n";
  for (const auto& j : r["top_jobs"]) {
    const std::string status = j.value("status", "whole");
    std::snprintf(line, sizeof line, "  %8.2f wait core-h (%5.1f%%)  %-16.16s %-10.10s %s%s\n",
                  j["wait_core_hours"].get<double>(), 100 * j["wait_share"].get<double>(),
                  j["application"].get<std::string>().c_str(), j["user"].get<std::string>().c_str(),
                  j["run"].get<std::string>().c_str(),
                  status == "whole" ? "" : (" (" + status + ")").c_str());
    out += line;
  }
  out += "\nCallsites that waited most\n";
  for (const auto& c : r["top_callsites"]) {
    std::snprintf(line, sizeof line, "  %8.2f wait core-h in %lld jobs  %s %s at %s\n",
                  c["wait_core_hours"].get<double>(), c["jobs"].get<long long>(),
                  c["application"].get<std::string>().c_str(),
                  c["function"].get<std::string>().c_str(),
                  c["location"].get<std::string>().c_str());
    out += line;
  }
  const auto histogram = [&](const char* title, const char* key) {
    if (!r.contains(key)) return;
    out += std::string("\n") + title + "\n";
    long long most = 1;
    for (const auto& b : r[key]) most = std::max(most, b["jobs"].get<long long>());
    for (const auto& b : r[key]) {
      const long long n = b["jobs"].get<long long>();
      std::snprintf(line, sizeof line, "  %3.0f-%3.0f%% %8lld %s\n", 100 * b["from"].get<double>(),
                    100 * b["to"].get<double>(), n,
                    std::string(static_cast<std::size_t>(40 * n / most), '#').c_str());
      out += line;
    }
  };
  histogram("Wait share of jobs", "wait_share_histogram");
  histogram("Parallel efficiency of jobs (POP)", "parallel_efficiency_histogram");
  const auto trend = [&](const char* title, const char* list, const char* key, std::size_t last) {
    out += std::string("\n") + title + "\n";
    const auto& rows = r[list];
    const std::size_t from = rows.size() > last ? rows.size() - last : 0;
    for (std::size_t i = from; i < rows.size(); ++i) {
      const auto& row = rows[i];
      std::snprintf(line, sizeof line, "  %-10s %8lld jobs %12.2f core-h %6.1f%% waiting\n",
                    row[key].get<std::string>().c_str(), row["jobs"].get<long long>(),
                    row["core_hours"].get<double>(), 100 * row["wait_share"].get<double>());
      out += line;
    }
  };
  trend("Per day (last 14)", "per_day", "day", 14);
  trend("Per week (last 8)", "per_week", "week", 8);
  out += "\nApplications whose wait share rose (last 7 days against their history)\n";
  if (r["rising"].empty()) out += "  none\n";
  for (const auto& a : r["rising"]) {
    std::snprintf(line, sizeof line,
                  "  %-28.28s %5.1f%% in %lld recent jobs, %5.1f%% before (%lld jobs)\n",
                  a["application"].get<std::string>().c_str(),
                  100 * a["recent_wait_share"].get<double>(), a["recent_jobs"].get<long long>(),
                  100 * a["history_wait_share"].get<double>(), a["history_jobs"].get<long long>());
    out += line;
  }
  return out;
}

}  // namespace mpidle::fleet
