#include "trace_output.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <fstream>
#include <map>

#include "compress/summary_codec.hpp"
#include "compress/summary_json.hpp"
#include "compress/summary_text.hpp"
#include "compress/trace_symbols.hpp"
#include "log.hpp"
#include "model/callsite_merge.hpp"
#include "offset_tree.hpp"
#include "rank_trace_stream.hpp"
#include "symbolizer.hpp"
#include "sync/clock_offset.hpp"
#include "sync/sync_report.hpp"
#include "trace_gather.hpp"
#include "tree_reduce.hpp"

namespace mpidle::profiler {
namespace {

std::vector<std::byte> encode_summary(const compress::SummarySet& set) {
  return bytes_of(compress::encode_summary_set(set));
}

std::optional<compress::SummarySet> decode_summary(const std::vector<std::byte>& bytes) {
  return compress::decode_summary_set(text_of(bytes));
}

// Summary callsites carry (module, offset); give them the trace's symbolized frames.
void symbolize_like(compress::SummarySet& summary, const model::Trace& trace) {
  std::map<std::vector<std::pair<std::string, std::uint64_t>>, const model::Callsite*> known;
  auto key = [](const model::Callsite& c) {
    std::vector<std::pair<std::string, std::uint64_t>> k;
    for (const auto& f : c.frames) k.emplace_back(f.module, f.offset);
    return k;
  };
  for (const auto& c : trace.callsites) known.emplace(key(c), &c);
  for (auto& t : summary.terminals) {
    auto it = known.find(key(t.callsite));
    if (it != known.end()) t.callsite = *it->second;
  }
}

}  // namespace

std::optional<GatheredTrace> gather_trace(Context& context) {
  const auto final = measure_offset_to_parent(context.own_comm(), context.trace_clock());
  const auto symbols = compress::parse_symbol_options(context.config().summary_symbols);
  // Each rank summarizes its records while they stream out to rank 0.
  compress::RankSummarizer summarizer(context.rank(), symbols.value_or(compress::SymbolOptions{}));
  bool summarizing = true;
  compress::SummarySet summary;
  // Half the shortest round trip a rank measured to its parent bounds the one-way
  // latency; rank 0 measured none.
  constexpr std::int64_t kUnknown = INT64_MAX / 4;
  auto source = [&](const TraceBatchSink& out) {
    model::Trace tables = stream_rank_trace(
        context, final,
        [&](std::span<const model::TraceRecord> records, std::span<const std::int64_t> counters) {
          if (summarizing) {
            try {
              for (const auto& r : records) summarizer.add(r);
            } catch (const std::exception& e) {
              warn(std::string("no loop summary for this rank: ") + e.what());
              summarizing = false;
            }
          }
          out(records, counters);
        });
    if (summarizing) {
      try {
        summary = summarizer.finish(tables.functions, tables.callsites);
      } catch (const std::exception& e) {
        warn(std::string("no loop summary for this rank: ") + e.what());
      }
    }
    const auto& rank = tables.ranks[0];
    tables.min_latency_ns =
        context.rank() == 0 ? kUnknown : std::min(rank.init.rtt_ns, rank.final.rtt_ns) / 2;
    return tables;
  };
  auto trace = gather_rank_traces(context.own_comm(), buffered_trace_records(context), source);
  // Every rank takes part in the summaries' tree merge, summarized or not.
  TreeTraffic traffic;
  auto merged = tree_reduce(
      std::move(summary), context.own_comm(), encode_summary, decode_summary,
      [](compress::SummarySet& into, compress::SummarySet&& from) {
        compress::merge_summary_sets(into, std::move(from));
      },
      traffic);
  if (traffic.undecodable > 0) {
    warn(std::to_string(traffic.undecodable) +
         " subtrees of ranks sent unreadable loop summaries; left out");
  }
  if (!trace || !merged) return std::nullopt;
  if (trace->min_latency_ns == kUnknown) trace->min_latency_ns = 0;
  return GatheredTrace{std::move(*trace), std::move(*merged)};
}

void compose_offsets(model::Trace& trace) {
  // Ranks come sorted, and a rank's parent is always a smaller rank.
  std::map<std::int32_t, std::pair<sync::OffsetEstimate, sync::OffsetEstimate>> to_root;
  for (auto& r : trace.ranks) {
    const sync::OffsetEstimate init{r.init.offset_ns, r.init.rtt_ns, r.init.at_ns};
    const sync::OffsetEstimate final{r.final.offset_ns, r.final.rtt_ns, r.final.at_ns};
    std::pair<sync::OffsetEstimate, sync::OffsetEstimate> mine{init, final};
    if (r.rank != 0) {
      auto parent = to_root.find(offset_tree_parent(r.rank));
      if (parent != to_root.end() && parent->first != 0) {
        mine.first = sync::compose(init, parent->second.first);
        mine.second = sync::compose(final, parent->second.second);
      }
    }
    to_root[r.rank] = mine;
    r.init = {mine.first.offset_ns, mine.first.rtt_ns, mine.first.at_ns};
    r.final = {mine.second.offset_ns, mine.second.rtt_ns, mine.second.at_ns};
  }
}

nlohmann::json write_synchronized_trace(GatheredTrace& gathered, const std::filesystem::path& dir,
                                        const PapiStatus& papi, double gamma, bool detail_high) {
  model::Trace& trace = gathered.trace;
  if (!symbolize(trace.callsites)) {
    warn("addr2line could not be run; trace callsites show module and offset only");
  }
  if (model::merge_alike_callsites(trace)) {
    // Calls the compiler duplicated (an unrolled loop) are one symbol now: the
    // ranks' summaries, made from raw addresses, are made again from the trace.
    gathered.summary = compress::summarize_trace(trace, gathered.summary.symbols);
  } else {
    symbolize_like(gathered.summary, trace);
  }
  {
    std::ofstream out(dir / kSummaryFileName);
    compress::TextOptions text;
    text.detail = detail_high ? compress::Detail::high : compress::Detail::low;
    out << compress::render_summary_text(gathered.summary, text);
    if (!out) warn("cannot write " + (dir / kSummaryFileName).string());
  }
  sync::ClcParams params;
  params.gamma = gamma;
  params.min_latency_ns = -1;  // as measured
  const auto result = sync::synchronize_trace(trace, params);
  if (result.unmatched_sends + result.unmatched_receives > 0) {
    warn(std::to_string(result.unmatched_sends) + " sends and " +
         std::to_string(result.unmatched_receives) +
         " receives found no partner in the trace; trace-based waits are not exact");
  }
  model::write_trace(dir / kTraceFileName, trace);

  const auto per_rank = sync::events_by_rank(trace);
  std::uint64_t events = 0, spills = 0, lost = 0;
  for (auto n : per_rank) events += n;
  for (const auto& r : trace.ranks) {
    spills += r.spilled_chunks;
    lost += r.lost_records;
  }
  nlohmann::json papi_json = {
      {"events", papi.events},
      {"available", papi.available},
      {"reason", papi.events.empty() ? "no events requested" : papi.reason}};
  if (!trace.counter_names.empty()) {
    // What every rank's compute bursts counted, per event (unknown bursts left out).
    nlohmann::json totals = nlohmann::json::array();
    const std::size_t k = trace.counter_names.size();
    for (const auto& r : trace.ranks) {
      std::vector<std::int64_t> sum(k, 0);
      for (std::size_t i = 0; i < r.counters.size(); ++i) {
        if (r.counters[i] >= 0) sum[i % k] += r.counters[i];
      }
      totals.push_back(sum);
    }
    papi_json["burst_totals_by_rank"] = std::move(totals);
  }
  return {{"summary", compress::summary_to_json(gathered.summary)},
          {"trace",
           {{"file", kTraceFileName},
            {"format_version", model::kTraceFormatVersion},
            {"events", events},
            {"events_by_rank", per_rank},
            {"spills", spills},
            {"lost_records", lost},
            {"papi", std::move(papi_json)}}},
          {"sync", sync::sync_section(trace, result)}};
}

}  // namespace mpidle::profiler
