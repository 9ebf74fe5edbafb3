#include "profiler/finalize/trace_output.hpp"

#include <malloc.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <fstream>

#include "compress/summary_codec.hpp"
#include "compress/summary_json.hpp"
#include "compress/summary_text.hpp"
#include "compress/trace_symbols.hpp"
#include "model/callsite_merge.hpp"
#include "model/stage_log.hpp"
#include "model/table_merge.hpp"
#include "model/trace_file.hpp"
#include "profiler/core/log.hpp"
#include "profiler/finalize/offset_tree.hpp"
#include "profiler/finalize/own_trace.hpp"
#include "profiler/finalize/rank_trace_stream.hpp"
#include "profiler/finalize/tree_reduce.hpp"
#include "profiler/finalize/window_calibration.hpp"
#include "profiler/runtime/symbolizer.hpp"
#include "sync/clock_offset.hpp"
#include "sync/parallel_sync.hpp"
#include "sync/sync_report.hpp"
#include "transport/mpi_synchronize.hpp"
#include "transport/parallel_trace_writer.hpp"
#include "transport/wait_states_tree.hpp"

namespace mpidle::profiler {
namespace {

std::vector<std::byte> encode_summary(const compress::SummarySet& set) {
  return bytes_of(compress::encode_summary_set(set));
}

std::optional<compress::SummarySet> decode_summary(const std::vector<std::byte>& bytes) {
  return compress::decode_summary_set(text_of(bytes));
}

// Tables travel as a trace without ranks.
std::vector<std::byte> encode_tables(const model::Trace& tables) {
  return bytes_of(model::encode_trace(tables));
}

std::optional<model::Trace> decode_tables(const std::vector<std::byte>& bytes) {
  try {
    return model::decode_trace(text_of(bytes));
  } catch (const model::TraceError&) {
    return std::nullopt;
  }
}

// A rank whose records exceed its memory cap (MPIDLE_TRACE_MEM) finalizes out of
// core: from here to the end of the finalize its per-record and per-message arrays
// (records, synchronized and corrected times, counters, the replay's matching
// items and message times) are files mapped shared in the spill directory, which
// the kernel pages in and out as the replay walks them.
class OutOfCoreFinalize {
 public:
  static constexpr std::size_t kMinFileBytes = std::size_t{1} << 20;
  explicit OutOfCoreFinalize(Context& context) {
    const std::uint64_t bytes = buffered_trace_records(context) * sizeof(model::TraceRecord);
    if (bytes <= static_cast<std::uint64_t>(context.config().trace_mem_mib) << 20) return;
    m_failures_before = model::large_array_stats().failures;
    model::back_large_arrays_by_files(context.spill_directory(), kMinFileBytes);
    m_on = true;
  }
  // Says once whether some array fell back to the heap (a file could not be made,
  // or the disk filled up), and why.
  ~OutOfCoreFinalize() {
    if (!m_on) return;
    model::back_large_arrays_by_files("", 0);
    try {
      const auto stats = model::large_array_stats();
      if (stats.failures > m_failures_before) {
        warn("trace: this rank's finalize could not keep " +
             std::to_string(stats.failures - m_failures_before) + " of its arrays out of core (" +
             stats.last_failure + "); they were held in memory");
      }
    } catch (const std::exception&) {  // no memory left even for the line
    }
  }
  OutOfCoreFinalize(const OutOfCoreFinalize&) = delete;
  OutOfCoreFinalize& operator=(const OutOfCoreFinalize&) = delete;
  // Every array of the finalize so far went to a file.
  bool whole() const { return m_on && model::large_array_stats().failures == m_failures_before; }
  // Between stages: out of core, what the heap freed goes back to the system (the
  // allocator would keep it, e.g. MPI-IO's buffers after the trace is written).
  void give_back() const {
    if (m_on) malloc_trim(0);
  }

 private:
  bool m_on = false;
  std::uint64_t m_failures_before = 0;
};

// The run's tables: merged up the tree, symbolized and merged by source line on
// rank 0, back down. Returns them, and renumbers this rank's records into them.
model::Trace common_tables(Context& context, model::Trace& mine) {
  MPI_Comm comm = context.own_comm();
  model::Trace tables;
  tables.functions = mine.functions;
  tables.callsites = mine.callsites;
  tables.counter_names = mine.counter_names;
  TreeTraffic traffic;
  auto merged = tree_reduce(
      std::move(tables), comm, encode_tables, decode_tables,
      [](model::Trace& into, model::Trace&& from) {
        model::unify_tables(into.functions, into.callsites, from.functions, from.callsites);
        if (into.counter_names.empty()) into.counter_names = std::move(from.counter_names);
      },
      traffic);
  if (traffic.undecodable > 0) {
    warn(std::to_string(traffic.undecodable) + " subtrees of ranks sent unreadable trace tables");
  }
  // Rank 0: raw tables as merged (what each rank can find its entries in), the
  // symbolized ones, and which raw callsite became which.
  std::vector<std::byte> raw_bytes, final_bytes, map_bytes;
  if (merged) {
    model::Trace symbolized = *merged;
    if (context.config().symbolize) {
      if (const std::string failed = symbolize(symbolized.callsites); !failed.empty()) {
        warn("trace: " + failed);
      }
    }
    const auto map = model::merge_alike_callsites(symbolized.callsites);
    raw_bytes = encode_tables(*merged);
    final_bytes = encode_tables(symbolized);
    map_bytes.resize(map.size() * sizeof(std::uint32_t));
    std::memcpy(map_bytes.data(), map.data(), map_bytes.size());
  }
  raw_bytes = tree_broadcast(std::move(raw_bytes), comm, traffic);
  final_bytes = tree_broadcast(std::move(final_bytes), comm, traffic);
  map_bytes = tree_broadcast(std::move(map_bytes), comm, traffic);
  auto raw = decode_tables(raw_bytes);
  auto symbolized = decode_tables(final_bytes);
  if (!raw || !symbolized) throw model::TraceError("the run's trace tables did not arrive");
  std::vector<std::uint32_t> merged_into(map_bytes.size() / sizeof(std::uint32_t));
  std::memcpy(merged_into.data(), map_bytes.data(), map_bytes.size());

  const model::IndexMaps to_raw =
      model::unify_tables(raw->functions, raw->callsites, mine.functions, mine.callsites);
  for (auto& rec : mine.ranks.at(0).records) {
    rec.function = to_raw.functions.at(rec.function);
    rec.callsite = to_raw.callsites.at(rec.callsite);
    if (!merged_into.empty()) rec.callsite = merged_into.at(rec.callsite);
  }
  symbolized->min_latency_ns = 0;
  return std::move(*symbolized);
}

// What rank 0 needs of every rank for profile.json: fixed size, gathered once.
struct RankFacts {
  std::int32_t rank = 0;
  std::int32_t unused = 0;
  model::ClockMeasurement init, final;
  std::uint64_t spilled_chunks = 0, lost_records = 0, events = 0, finalize_memory_bytes = 0;
  std::uint64_t finalize_anonymous_bytes = 0, out_of_core = 0;
};

nlohmann::json sections_of(const std::vector<RankFacts>& facts,
                           const std::vector<std::int64_t>& burst_totals,
                           const model::Trace& tables, const sync::TraceSyncResult& replayed,
                           const compress::SummarySet& summary, const PapiStatus& papi,
                           model::Trace& headers) {
  headers.functions = tables.functions;
  headers.callsites = tables.callsites;
  headers.counter_names = tables.counter_names;
  headers.min_latency_ns = tables.min_latency_ns;
  sync::TraceSyncResult result = replayed;
  result.models.clear();
  std::vector<std::uint64_t> per_rank;
  std::uint64_t events = 0, spills = 0, lost = 0, out_of_core = 0;
  for (const auto& f : facts) {
    auto& r = headers.ranks.emplace_back();
    r.rank = f.rank;
    r.init = f.init;
    r.final = f.final;
    // As the replay corrected.
    result.models.push_back(sync::offset_model_of(r, result.params.raw_clocks));
    per_rank.push_back(f.events);
    events += f.events;
    spills += f.spilled_chunks;
    lost += f.lost_records;
    out_of_core += f.out_of_core;
  }
  nlohmann::json papi_json = {
      {"events", papi.events},
      {"available", papi.available},
      {"reason", papi.events.empty() ? "no events requested" : papi.reason}};
  if (!tables.counter_names.empty()) {
    // What every rank's compute bursts counted, per event (unknown bursts left out).
    const std::size_t k = tables.counter_names.size();
    nlohmann::json totals = nlohmann::json::array();
    for (std::size_t r = 0; r < facts.size(); ++r) {
      totals.push_back(std::vector<std::int64_t>(
          burst_totals.begin() + static_cast<std::ptrdiff_t>(r * k),
          burst_totals.begin() + static_cast<std::ptrdiff_t>((r + 1) * k)));
    }
    papi_json["burst_totals_by_rank"] = std::move(totals);
  }
  return {{"summary", compress::summary_to_json(summary)},
          {"trace",
           {{"file", kTraceFileName},
            {"format_version", model::kTraceFormatVersion},
            {"events", events},
            {"events_by_rank", per_rank},
            {"spills", spills},
            {"lost_records", lost},
            {"out_of_core_ranks", out_of_core},
            {"papi", std::move(papi_json)}}},
          {"sync", sync::sync_section(headers, result)}};
}

}  // namespace

std::optional<FinishedTrace> finish_trace(Context& context, const std::filesystem::path& dir,
                                          const PapiStatus& papi, double gamma, bool detail_high,
                                          FinalizeMemory& memory, model::Calibration& calibration,
                                          model::Calibration& window_check) {
  MPI_Comm comm = context.own_comm();
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  const auto final = measure_offset_to_parent(
      comm, context.trace_clock(), context.node_locality().edges, &context.init_offset());

  // Everything up to the replay is this rank's own work, or collective steps that
  // cannot fail halfway; the ranks agree on going on before the replay.
  const OutOfCoreFinalize out_of_core(context);
  auto between_stages = [&] {
    out_of_core.give_back();
    memory.sample();
  };
  model::Trace mine;
  model::Trace tables;
  std::string failure;
  try {
    mine = own_trace(context, final);
    between_stages();
    tables = common_tables(context, mine);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  int fine = failure.empty(), all_fine = 0;
  PMPI_Allreduce(&fine, &all_fine, 1, MPI_INT, MPI_MIN, comm);
  if (!all_fine) {
    if (!failure.empty()) warn("could not prepare the trace: " + failure);
    return std::nullopt;
  }
  // The windows' part first, before this rank's records are renumbered and
  // synchronized: cut as profile mode's windows would have recorded it.
  if (context.window_check_on()) {
    window_check = calibrate_from_window_part(context, memory, tables, mine.ranks.at(0));
  }
  model::RankTrace& own = mine.ranks.at(0);
  own.rank = rank;
  // Rank 0 says what takes long in a big trace's finalize (stderr only).
  std::uint64_t events = own.records.size();
  PMPI_Allreduce(MPI_IN_PLACE, &events, 1, MPI_UINT64_T, MPI_SUM, comm);
  const model::StageLog progress("mpidle(0): finalize", rank == 0 ? events : 0);
  progress("synchronizing the clocks of");
  compose_offsets(comm, own, context.node_locality().one_node);
  // Half the shortest round trip a rank measured to its parent bounds the one-way
  // latency; rank 0 measured none.
  std::int64_t latency = rank == 0 ? INT64_MAX : std::min(own.init.rtt_ns, own.final.rtt_ns) / 2;
  PMPI_Allreduce(MPI_IN_PLACE, &latency, 1, MPI_INT64_T, MPI_MIN, comm);
  tables.min_latency_ns = latency == INT64_MAX ? 0 : latency;

  sync::ClcParams params;
  params.gamma = gamma;
  params.min_latency_ns = -1;  // the one just measured, checked against the trace
  std::vector<std::int32_t> world(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) world[static_cast<std::size_t>(r)] = r;
  auto [result, partners, complete_collectives] = transport::synchronize_over_mpi(
      comm, {&own}, sync::block_directory(world, size), params, tables.min_latency_ns);
  between_stages();
  progress("writing the trace of");
  transport::write_trace_parallel(comm, dir / kTraceFileName, tables,
                                  static_cast<std::uint64_t>(size), {&own});
  between_stages();
  progress("finding the wait states of");
  transport::CalibrationRequest calibrate;
  calibrate.out = &calibration;
  auto waits = transport::gather_wait_states(
      comm, tables, {&own}, {static_cast<std::uint32_t>(rank)}, partners, complete_collectives,
      [](const std::string& what) { warn(what); }, calibrate);
  calibration.source = "trace";

  // Loop summaries, from the renumbered records.
  between_stages();
  progress("summarizing the loops of");
  compress::SummarySet summary;
  const auto symbols = compress::parse_symbol_options(context.config().summary_symbols);
  try {
    summary =
        compress::summarize_rank_trace(tables, own, symbols.value_or(compress::SymbolOptions{}));
  } catch (const std::exception& e) {
    warn(std::string("no loop summary for this rank: ") + e.what());
  }
  TreeTraffic traffic;
  auto merged = tree_reduce(
      std::move(summary), comm, encode_summary, decode_summary,
      [](compress::SummarySet& into, compress::SummarySet&& from) {
        compress::merge_summary_sets(into, std::move(from));
      },
      traffic);
  if (traffic.undecodable > 0) {
    warn(std::to_string(traffic.undecodable) +
         " subtrees of ranks sent unreadable loop summaries; left out");
  }

  RankFacts facts;
  facts.rank = rank;
  facts.init = own.init;
  facts.final = own.final;
  facts.spilled_chunks = own.spilled_chunks;
  facts.lost_records = own.lost_records;
  for (const auto& rec : own.records) facts.events += rec.extra == 0;
  facts.finalize_memory_bytes = memory.peak_added_bytes();
  facts.finalize_anonymous_bytes = memory.peak_added_anonymous_bytes();
  facts.out_of_core = out_of_core.whole();
  std::vector<RankFacts> all(rank == 0 ? static_cast<std::size_t>(size) : 0);
  PMPI_Gather(&facts, sizeof facts, MPI_BYTE, all.data(), sizeof facts, MPI_BYTE, 0, comm);
  const std::size_t k = tables.counter_names.size();
  std::vector<std::int64_t> totals(k, 0),
      all_totals(rank == 0 ? k * static_cast<std::size_t>(size) : 0);
  for (std::size_t i = 0; i < own.counters.size() && k > 0; ++i) {
    if (own.counters[i] >= 0) totals[i % k] += own.counters[i];
  }
  if (k > 0) {
    PMPI_Gather(totals.data(), static_cast<int>(k), MPI_INT64_T, all_totals.data(),
                static_cast<int>(k), MPI_INT64_T, 0, comm);
  }
  if (rank != 0 || !merged) return std::nullopt;
  progress("done with");

  if (result.unmatched_sends + result.unmatched_receives > 0) {
    warn(std::to_string(result.unmatched_sends) + " sends and " +
         std::to_string(result.unmatched_receives) +
         " receives found no partner in the trace; trace-based waits are not exact");
  }
  {
    std::ofstream out(dir / kSummaryFileName);
    compress::TextOptions text;
    text.detail = detail_high ? compress::Detail::high : compress::Detail::low;
    out << compress::render_summary_text(*merged, text);
    if (!out) warn("cannot write " + (dir / kSummaryFileName).string());
  }
  FinishedTrace finished;
  finished.sections = sections_of(all, all_totals, tables, result, *merged, papi, finished.headers);
  if (waits) finished.waits = std::move(*waits);
  for (const auto& f : all) finished.events += f.events;
  for (const auto& f : all) {
    const auto r = static_cast<std::size_t>(f.rank);
    if (r >= finished.finalize_memory_by_rank.size())
      finished.finalize_memory_by_rank.resize(r + 1);
    finished.finalize_memory_by_rank[r] = {f.finalize_memory_bytes, f.finalize_anonymous_bytes};
  }
  return finished;
}

}  // namespace mpidle::profiler
