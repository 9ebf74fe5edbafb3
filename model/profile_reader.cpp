#include "profile_reader.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include "checkpoint_merge.hpp"
#include "rank_matrix.hpp"
#include "region_totals.hpp"
#include "run_info.hpp"

namespace mpidle::model {
namespace {

using nlohmann::json;

// [[lower edge in seconds, calls, their total seconds], ...], bins in increasing order.
DurationHistogram parse_histogram(const Fields& f, const char* key) {
  DurationHistogram h;
  if (!f.has(key)) return h;
  for (const auto& b : f.array(key)) {
    if (!b.is_array() || b.size() != 3 || !b[0].is_number() || !b[1].is_number_unsigned() ||
        !b[2].is_number()) {
      throw ProfileError(f.where(key) + ": a bin is not [lower_s, count, sum_s]");
    }
    const double lower = b[0].get<double>();
    const std::int32_t bin = duration_bin_of(lower * 1.0000001);  // the edge itself
    if (!(lower >= 0) || duration_bin_lower_s(bin) > lower * 1.0000001 + 1e-18) {
      throw ProfileError(f.where(key) + ": a bin's lower edge is not a power of two of ns");
    }
    h.push_back(DurationBin{bin, b[1].get<std::uint64_t>(), b[2].get<double>()});
  }
  if (!valid_histogram(h)) {
    throw ProfileError(f.where(key) + ": bins out of order or with a negative total");
  }
  return h;
}

// The estimates by name; a profile from before the robust estimate has only wait_s
// (against the rank's own minima) and wait_s_global_min.
WaitColumns parse_estimates(const Fields& f) {
  WaitColumns w;
  w.wait_s_minimum = f.get_or<double>("wait_s_minimum", f.get<double>("wait_s"));
  w.wait_s_robust = f.get_or<double>("wait_s_robust", w.wait_s_minimum);
  w.wait_s_calibrated = f.get_or<double>("wait_s_calibrated", w.wait_s_robust);
  w.variation_s = f.get_or<double>("variation_s", 0.0);
  w.transfer_s = f.get_or<double>("transfer_s", 0.0);
  w.wait_or_transfer_s = f.get_or<double>("wait_or_transfer_s", 0.0);
  return w;
}

RunSummary parse_run(const Fields& f) {
  RunSummary r;
  r.executable = f.get<std::string>("executable");
  for (const auto& a : f.array("args")) r.args.push_back(a.is_string() ? a.get<std::string>() : "");
  r.ranks = f.get<std::int64_t>("ranks");
  for (const auto& h : f.array("hosts"))
    r.hosts.push_back(h.is_string() ? h.get<std::string>() : "");
  r.mpi_library = f.get<std::string>("mpi_library");
  r.start = f.get<std::string>("start");
  r.wall_s = f.get<double>("wall_s");
  r.timer = f.get<std::string>("timer");
  r.timer_resolution_s = f.get<double>("timer_resolution_s");
  r.mode = f.get<std::string>("mode");
  r.ended = f.get_or<std::string>("ended", "MPI_Finalize");
  // Never destroyed: libmpidle reads the profile it wrote at MPI_Finalize, which may
  // come from a static destructor that runs after this one would.
  static const auto& endings = *new const std::set<std::string>{
      "MPI_Finalize", "MPI_Abort", "exit", "SIGTERM", "SIGINT", "SIGHUP", "SIGXCPU", "checkpoint"};
  if (endings.count(r.ended) == 0) {
    throw ProfileError(
        "run.ended is not MPI_Finalize, MPI_Abort, exit, checkpoint or a signal's name");
  }
  r.minimum = f.get<std::string>("minimum");
  if (r.minimum != "local" && r.minimum != "global") {
    throw ProfileError("run.minimum is neither \"local\" nor \"global\"");
  }
  r.wait_estimate =
      f.get_or<std::string>("wait_estimate", r.minimum == "global" ? "global" : "minimum");
  if (r.wait_estimate != "calibrated" && r.wait_estimate != "robust" &&
      r.wait_estimate != "minimum" && r.wait_estimate != "global") {
    throw ProfileError(
        "run.wait_estimate is not \"calibrated\", \"robust\", \"minimum\" or \"global\"");
  }
  r.callsite_depth = f.get<std::int64_t>("callsite_depth");
  Fields overhead(f.at("overhead"), f.where("overhead"));
  r.overhead_per_call_s = overhead.get<double>("per_call_s");
  r.overhead_total_s = overhead.get<double>("total_s");
  r.overhead_fraction = overhead.get<double>("fraction");
  r.setup_s = overhead.get_or<double>("setup_s", 0.0);
  return r;
}

// Version 1 has no statistics: they follow from by_rank.
RankStatistics statistics_of(const std::vector<CallsiteRankRow>& by_rank) {
  std::vector<std::pair<std::int64_t, double>> waits;
  for (const auto& r : by_rank) waits.emplace_back(r.rank, r.wait_s);
  return rank_statistics(std::move(waits));
}

RankStatistics parse_statistics(const Fields& f) {
  RankStatistics s;
  s.count = f.get<std::uint64_t>("count");
  if (s.count == 0) return s;
  Fields wait(f.at("wait_s"), f.where("wait_s"));
  s.min_s = wait.get<double>("min");
  s.median_s = wait.get<double>("median");
  s.mean_s = wait.get<double>("mean");
  s.max_s = wait.get<double>("max");
  s.max_rank = f.get<std::int64_t>("max_rank");
  for (const auto& t : rows<std::pair<std::int64_t, double>>(f, "top", [](const Fields& r) {
         return std::make_pair(r.get<std::int64_t>("rank"), r.get<double>("wait_s"));
       })) {
    s.top.push_back(t);
  }
  return s;
}

// POP's efficiencies as written; each ratio must lie within 0..1.
void parse_efficiency(const Fields& e, PopEfficiency& into) {
  for (const char* key : {"load_balance", "communication", "parallel"}) {
    const double v = e.get<double>(key);
    if (!(v >= 0 && v <= 1)) throw ProfileError(e.where(key) + " is not within 0..1");
  }
  into.runtime_s = e.get_or<double>("runtime_s", into.runtime_s);
  into.useful_mean_s = e.get_or<double>("useful_mean_s", into.useful_mean_s);
  into.useful_max_s = e.get_or<double>("useful_max_s", into.useful_max_s);
  into.load_balance = e.get<double>("load_balance");
  into.communication = e.get<double>("communication");
  into.parallel = e.get<double>("parallel");
  if (e.has("ideal_runtime_s")) {
    into.ideal_runtime_s = e.get<double>("ideal_runtime_s");
    into.serialization = e.get<double>("serialization");
    into.transfer = e.get<double>("transfer");
  }
}

// The profile's schema version (1 or 2); a ProfileError for anything else.
int schema_version(const json& doc) {
  if (!doc.is_object()) throw ProfileError("not a profile: the top level is not a JSON object");
  auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_string()) {
    throw ProfileError("not an mpidle profile: no \"schema\" field");
  }
  if (*schema != kProfileSchema && *schema != kProfileSchemaV1) {
    throw ProfileError("unsupported schema \"" + schema->get<std::string>() + "\" (expected \"" +
                       kProfileSchema + "\" or \"" + kProfileSchemaV1 + "\")");
  }
  return *schema == kProfileSchema ? 2 : 1;
}

RankRow parse_rank_row(const Fields& f) {
  RankRow row{f.get<std::int64_t>("rank"),
              f.get<std::string>("host"),
              f.get<double>("wall_s"),
              f.get<double>("mpi_s"),
              f.get<double>("wait_s"),
              f.get<double>("wait_s_global_min"),
              f.get<double>("first_call_wait_s"),
              f.get<std::uint64_t>("calls"),
              f.get<std::uint64_t>("dropped_calls"),
              f.get<std::uint64_t>("memory_bytes")};
  row.untracked_requests = f.get_or<std::uint64_t>("untracked_requests", 0);
  row.untimed_calls = f.get_or<std::uint64_t>("untimed_calls", 0);
  row.finalize_memory_bytes = f.get_or<std::uint64_t>("finalize_memory_bytes", 0);
  row.finalize_anonymous_bytes = f.get_or<std::uint64_t>("finalize_anonymous_bytes", 0);
  row.estimates = parse_estimates(f);
  return row;
}

RegionRow parse_region_row(const Fields& f) {
  RegionRow r;
  r.path = f.get<std::string>("path");
  if (r.path.empty()) throw ProfileError(f.where("path") + " is empty");
  r.depth = region_depth(r.path);
  r.visits = f.get<std::uint64_t>("visits");
  r.ranks = f.get<std::uint64_t>("ranks");
  r.calls = f.get<std::uint64_t>("calls");
  r.wall_max_s = f.get<double>("wall_max_s");
  r.mpi_s = f.get<double>("mpi_s");
  r.wait_s = f.get<double>("wait_s");
  r.wait_s_global_min = f.get<double>("wait_s_global_min");
  r.estimates = parse_estimates(f);
  parse_efficiency(Fields(f.at("efficiency"), f.where("efficiency")), r.efficiency);
  return r;
}

FunctionRow parse_function_row(const Fields& f) {
  FunctionRow row{f.get<std::string>("name"),
                  f.get<std::uint64_t>("calls"),
                  f.get<std::uint64_t>("incomplete_calls"),
                  f.get<double>("time_s"),
                  f.get<double>("wait_s"),
                  f.get<double>("wait_s_global_min"),
                  f.get<double>("bytes")};
  row.estimates = parse_estimates(f);
  row.can_wait = f.get_or<bool>("can_wait", true);
  return row;
}

CallsiteRow parse_callsite_row(const Fields& f, int version) {
  CallsiteRow c;
  c.id = f.get<std::int64_t>("id");
  c.function = f.get<std::string>("function");
  c.frames = rows<Frame>(f, "frames", parse_frame);
  c.visits = f.get<std::uint64_t>("visits");
  if (f.has("bytes")) c.bytes = f.get<double>("bytes");
  c.time_s = f.get<double>("time_s");
  c.wait_s = f.get<double>("wait_s");
  c.wait_s_global_min = f.get<double>("wait_s_global_min");
  c.estimates = parse_estimates(f);
  c.durations = parse_histogram(f, "durations");
  if (f.has("root_causes")) {
    const Fields r(f.at("root_causes"), f.where("root_causes"));
    c.causes = {r.get<std::uint64_t>("wait_states"), r.get<double>("windowed_wait_s"),
                r.get<double>("computation_s"),      r.get<double>("latency_s"),
                r.get<double>("bandwidth_s"),        r.get<double>("propagated_s"),
                r.get<double>("unexplained_s")};
  }
  if (version == 1) {
    c.by_rank = rows<CallsiteRankRow>(f, "by_rank", [](const Fields& r) {
      return CallsiteRankRow{r.get<std::int64_t>("rank"), r.get<std::uint64_t>("visits"),
                             r.get<double>("time_s"), r.get<double>("wait_s")};
    });
    c.rank_stats = statistics_of(c.by_rank);
  } else {
    c.rank_stats = parse_statistics(Fields(f.at("ranks"), f.where("ranks")));
  }
  return c;
}

MinimumRow parse_minimum_row(const Fields& f, int version) {
  MinimumRow m{f.get<std::string>("function"),
               f.get<std::int64_t>("size_class"),
               version == 1 ? f.get<std::int64_t>("peer") : kNoPeer,
               f.get<std::int64_t>("rank"),
               f.get<double>("min_s"),
               f.get<std::uint64_t>("count")};
  m.comm_size = f.get_or<std::int64_t>("comm_size", 0);
  m.intercomm = f.get_or<bool>("intercomm", false);
  m.ranks = version == 1 ? 1 : f.get<std::uint64_t>("ranks");
  m.baseline_s = f.get_or<double>("baseline_s", m.min_s);
  m.durations = parse_histogram(f, "durations");
  return m;
}

TraceSection parse_trace_section(const Fields& f) {
  TraceSection t;
  t.file = f.get<std::string>("file");
  // Commands open, and `mpidle sync` rewrites, this file: it must be one in the
  // run directory, never a path that leads out of it.
  if (t.file.empty() || t.file == "." || t.file == ".." ||
      t.file.find_first_of("/\\") != std::string::npos || t.file.find('\0') != std::string::npos) {
    throw ProfileError("trace.file must name a file in the run directory, not \"" +
                       t.file.substr(0, 80) + "\"");
  }
  t.events = f.get<std::uint64_t>("events");
  for (const auto& n : f.array("events_by_rank")) {
    if (!n.is_number_unsigned()) throw ProfileError("trace.events_by_rank holds a non-count");
    t.events_by_rank.push_back(n.get<std::uint64_t>());
  }
  t.spills = f.get<std::uint64_t>("spills");
  t.lost_records = f.get_or<std::uint64_t>("lost_records", 0);
  t.out_of_core_ranks = f.get_or<std::uint64_t>("out_of_core_ranks", 0);
  Fields papi(f.at("papi"), "trace.papi");
  for (const auto& e : papi.array("events"))
    t.papi_events.push_back(e.is_string() ? e.get<std::string>() : "");
  const auto& available = papi.at("available");
  if (!available.is_boolean()) throw ProfileError("trace.papi.available is not a boolean");
  t.papi_available = available.get<bool>();
  t.papi_reason = papi.get<std::string>("reason");
  if (f.at("papi").contains("burst_totals_by_rank")) {
    for (const auto& rank : papi.array("burst_totals_by_rank")) {
      if (!rank.is_array()) throw ProfileError("trace.papi.burst_totals_by_rank holds a non-array");
      auto& row = t.papi_burst_totals.emplace_back();
      for (const auto& v : rank) {
        if (!v.is_number_integer())
          throw ProfileError("trace.papi.burst_totals_by_rank holds a non-count");
        row.push_back(v.get<std::int64_t>());
      }
    }
  }
  return t;
}

CalibrationSection parse_calibration_section(const Fields& f) {
  CalibrationSection c;
  c.source = f.get<std::string>("source");
  c.windows = f.get<std::uint64_t>("windows");
  c.windows_cut = f.get<std::uint64_t>("windows_cut");
  c.windows_capped = f.get<std::uint64_t>("windows_capped");
  c.calibrated_keys = f.get<std::uint64_t>("calibrated_keys");
  c.calls_left_out = f.get<std::uint64_t>("calls_left_out");
  c.records = f.get<std::uint64_t>("records");
  return c;
}

SyncSection parse_sync_section(const Fields& f) {
  SyncSection s;
  s.offsets = rows<SyncOffset>(f, "offsets", [](const Fields& o) {
    return SyncOffset{o.get<std::int64_t>("rank"),     o.get<double>("init_offset_s"),
                      o.get<double>("final_offset_s"), o.get<double>("drift"),
                      o.get<double>("rtt_s"),          o.get_or<double>("final_rtt_s", 0.0),
                      o.get_or<double>("span_s", 0.0)};
  });
  s.min_latency_s = f.get<double>("min_latency_s");
  s.gamma = f.get<double>("gamma");
  s.violations_raw = f.get<std::uint64_t>("violations_raw");
  s.violations_before = f.get<std::uint64_t>("violations_before");
  s.violations_after = f.get<std::uint64_t>("violations_after");
  s.events_moved = f.get<std::uint64_t>("events_moved");
  s.max_shift_s = f.get<double>("max_shift_s");
  s.mean_shift_s = f.get<double>("mean_shift_s");
  s.interval_change_mean = f.get<double>("interval_change_mean");
  s.messages = f.get_or<std::uint64_t>("messages", 0);
  s.unmatched_sends = f.get_or<std::uint64_t>("unmatched_sends", 0);
  s.unmatched_receives = f.get_or<std::uint64_t>("unmatched_receives", 0);
  s.cancelled = f.get_or<std::uint64_t>("cancelled", 0);
  if (f.has("clock")) {
    Fields c(f.at("clock"), "sync.clock");
    s.correction = c.get<std::string>("correction");
    s.clock_reason = c.get<std::string>("reason");
    s.latency_reason = c.get<std::string>("latency_reason");
    s.reference_clock_ranks = c.get<std::uint64_t>("reference_clock_ranks");
    s.violations_with_offsets = c.get<std::uint64_t>("violations_with_offsets");
    s.min_latency_measured_s = c.get<double>("min_latency_measured_s");
  }
  return s;
}

}  // namespace

Profile parse_profile(const json& doc) {
  const int version = schema_version(doc);
  Fields top(doc, "profile");
  Profile p;
  p.schema_version = version;
  p.run = parse_run(Fields(top.at("run"), "run"));
  p.ranks = rows<RankRow>(top, "ranks", parse_rank_row);
  p.efficiency = pop_efficiency_of(p.ranks);
  if (top.has("efficiency"))
    parse_efficiency(Fields(top.at("efficiency"), "efficiency"), p.efficiency);
  if (top.has("regions")) {
    p.regions = rows<RegionRow>(top, "regions", parse_region_row);
  }
  p.functions = rows<FunctionRow>(top, "functions", parse_function_row);
  p.callsites = rows<CallsiteRow>(
      top, "callsites", [version](const Fields& f) { return parse_callsite_row(f, version); });
  if (doc.contains("trace")) p.trace = parse_trace_section(Fields(doc.at("trace"), "trace"));
  if (doc.contains("calibration"))
    p.calibration = parse_calibration_section(Fields(doc.at("calibration"), "calibration"));
  if (doc.contains("sync")) p.sync = parse_sync_section(Fields(doc.at("sync"), "sync"));
  if (doc.contains("checkpoints")) {
    const Fields f(doc.at("checkpoints"), "checkpoints");
    CheckpointsSection c;
    c.ranks_expected = f.get_or<std::int64_t>("ranks_expected", 0);
    c.ranks_found = f.get_or<std::int64_t>("ranks_found", 0);
    c.missing_ranks = f.get_or<std::string>("missing_ranks", "");
    c.oldest = f.get_or<std::string>("oldest", "");
    c.newest = f.get_or<std::string>("newest", "");
    c.unreadable = f.get_or<std::vector<std::string>>("unreadable", {});
    c.ranks = rows<CheckpointRank>(f, "ranks", [](const Fields& r) {
      CheckpointRank row;
      row.rank = r.get<std::int32_t>("rank");
      row.written_unix_s = r.get<double>("written_unix_s");
      row.wall_s = r.get<double>("wall_s");
      row.interval_s = r.get_or<double>("interval_s", 0);
      row.sequence = r.get<std::uint64_t>("sequence");
      row.ended = r.get<std::string>("ended");
      return row;
    });
    p.checkpoints = std::move(c);
  }
  p.minima = rows<MinimumRow>(top, "minima",
                              [version](const Fields& f) { return parse_minimum_row(f, version); });
  if (version == 1) p.rank_minima = p.minima;
  return p;
}

bool attach_rank_minima(Profile& p, const std::filesystem::path& run_directory) {
  if (p.schema_version < 2) return true;
  std::ifstream in(run_directory / kRankMinimaFile);
  if (!in) return false;
  std::vector<MinimumRow> rows;
  for (std::string line; std::getline(in, line);) {
    const json doc = read_json(line);
    if (!doc.is_object() || !doc.contains("rank") || !doc["rank"].is_number_integer() ||
        !doc.contains("minima") || !doc["minima"].is_array()) {
      return false;
    }
    for (const auto& m : doc["minima"]) {
      // 7 fields, or 9 with bytes and wait (since they were added).
      if (!m.is_array() || (m.size() != 7 && m.size() != 9) || !m[0].is_string() ||
          !m[1].is_number_integer() || !m[2].is_number_integer() || !m[3].is_number_integer() ||
          !m[4].is_boolean() || !m[5].is_number() || !m[6].is_number_unsigned() ||
          (m.size() == 9 && (!m[7].is_number() || !m[8].is_number()))) {
        return false;
      }
      MinimumRow row{m[0].get<std::string>(),  m[1].get<std::int64_t>(),
                     m[2].get<std::int64_t>(), doc["rank"].get<std::int64_t>(),
                     m[5].get<double>(),       m[6].get<std::uint64_t>()};
      row.comm_size = m[3].get<std::int64_t>();
      row.intercomm = m[4].get<bool>();
      if (m.size() == 9) {
        row.has_traffic = true;
        row.bytes = m[7].get<double>();
        row.wait_s = m[8].get<double>();
      }
      rows.push_back(std::move(row));
    }
  }
  p.rank_minima = std::move(rows);
  return true;
}

bool attach_rank_matrix(Profile& p, const std::filesystem::path& run_directory) {
  if (p.schema_version < 2) return true;
  std::ifstream in(run_directory / kRankMatrixFile, std::ios::binary);
  std::vector<std::byte> bytes;
  if (in) {
    std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes.resize(raw.size());
    std::memcpy(bytes.data(), raw.data(), raw.size());
  }
  return attach_rank_matrix(p, bytes);
}

bool attach_rank_matrix(Profile& p, std::span<const std::byte> bytes) {
  if (p.schema_version < 2) return true;
  const auto matrix = decode_rank_matrix(bytes);
  if (!matrix || matrix->ranks != p.ranks.size() || matrix->callsites != p.callsites.size()) {
    p.rank_matrix_missing = true;
    return false;
  }
  for (std::size_t col = 0; col < p.callsites.size(); ++col) {
    auto& by_rank = p.callsites[col].by_rank;
    by_rank.clear();
    for (std::size_t row = 0; row < p.ranks.size(); ++row) {
      const MatrixCell& cell = matrix->at(row, col);
      if (cell.visits == 0) continue;
      by_rank.push_back(CallsiteRankRow{p.ranks[row].rank, cell.visits, cell.time_s, cell.wait_s});
    }
  }
  return true;
}

Profile read_profile(const std::filesystem::path& path) {
  std::filesystem::path file = path;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) file = path / "profile.json";
  if (file != path && !std::filesystem::exists(file, ec) && has_checkpoints(path)) {
    ProfileDocument merged;
    try {
      merged = profile_from_checkpoints(path);
    } catch (const std::exception& e) {
      throw ProfileError(e.what());
    }
    Profile p = parse_profile(merged.profile);
    attach_rank_matrix(p, merged.rank_matrix);
    return p;
  }
  std::ifstream in(file);
  if (!in) throw ProfileError("cannot open " + file.string());
  json doc = read_json(in);
  if (doc.is_discarded()) throw ProfileError(file.string() + " is not valid JSON");
  Profile p;
  try {
    p = parse_profile(doc);
  } catch (const ProfileError& e) {
    throw ProfileError(file.string() + ": " + e.what());
  }
  attach_rank_matrix(p, file.parent_path());
  attach_rank_minima(p, file.parent_path());
  return p;
}

}  // namespace mpidle::model
