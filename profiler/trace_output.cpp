#include "trace_output.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <fstream>
#include <map>
#include <unordered_map>

#include "compress/summary_codec.hpp"
#include "compress/summary_json.hpp"
#include "compress/summary_text.hpp"
#include "compress/trace_symbols.hpp"
#include "local_tables.hpp"
#include "log.hpp"
#include "model/callsite_merge.hpp"
#include "module_map.hpp"
#include "offset_tree.hpp"
#include "symbolizer.hpp"
#include "sync/clock_offset.hpp"
#include "sync/sync_report.hpp"
#include "tree_reduce.hpp"

namespace mpidle::profiler {
namespace {

model::Trace local_trace(Context& context, const model::ClockMeasurement& final) {
  model::Trace t;
  model::RankTrace rank;
  rank.rank = context.rank();
  rank.init = context.init_offset();
  rank.final = final;
  if (context.papi().available) t.counter_names = context.papi().events;
  const std::size_t k = t.counter_names.size();
  ModuleMap modules;
  std::map<std::vector<std::uintptr_t>, std::uint32_t> callsite_index;
  std::vector<std::int64_t> function_index(kMpiFnCount, -1);
  const TraceClock& clock = context.trace_clock();
  // Every thread's records, each with where its burst counts are (or none).
  struct Pending {
    model::TraceRecord record;
    const std::int64_t* counts;
  };
  std::vector<Pending> all;
  for (const ThreadState* thread : context.threads()) {
    TraceBuffer* buffer = thread->trace_buffer();
    if (buffer == nullptr) continue;
    std::string error;
    auto records = buffer->drain(error);
    if (!error.empty()) warn(error);
    rank.spilled_chunks += buffer->spilled_chunks();
    rank.lost_records += buffer->lost_records();
    const auto& counts = thread->counters();
    const bool counted = k > 0 && thread->counter_count() == k;
    std::size_t main_index = 0;
    // Callsite keys are per thread (interned stacks); resolve each distinct key once.
    std::unordered_map<std::uintptr_t, std::uint32_t> site_index;
    for (auto& rec : records) {
      auto [site, new_key] = site_index.try_emplace(rec.callsite, 0);
      if (new_key) {
        const auto stack = stack_of(*thread, rec.callsite);
        auto [cs, new_site] =
            callsite_index.try_emplace(stack, static_cast<std::uint32_t>(t.callsites.size()));
        if (new_site) {
          model::Callsite c;
          for (auto address : stack) c.frames.push_back(modules.frame_of(address));
          t.callsites.push_back(std::move(c));
        }
        site->second = cs->second;
      }
      std::int64_t& fn = function_index.at(rec.function);
      if (fn < 0) {
        fn = static_cast<std::int64_t>(t.functions.size());
        t.functions.emplace_back(kMpiFnNames[rec.function]);
      }
      rec.callsite = site->second;
      rec.function = static_cast<std::uint32_t>(fn);
      rec.enter_ns = clock.local_ns(static_cast<Ticks>(rec.enter_ns));
      rec.exit_ns = clock.local_ns(static_cast<Ticks>(rec.exit_ns));
      const std::int64_t* c = nullptr;
      if (counted && rec.extra == 0 && (main_index + 1) * k <= counts.size()) {
        c = counts.data() + main_index * k;
      }
      if (rec.extra == 0) ++main_index;
      all.push_back({rec, c});
    }
  }
  // Threads interleave: one rank's records in time order.
  std::stable_sort(all.begin(), all.end(), [](const Pending& a, const Pending& b) {
    return a.record.enter_ns < b.record.enter_ns;
  });
  rank.records.reserve(all.size());
  if (k > 0) rank.counters.reserve(all.size() * k);
  for (const auto& p : all) {
    rank.records.push_back(p.record);
    for (std::size_t i = 0; i < k; ++i) rank.counters.push_back(p.counts ? p.counts[i] : -1);
  }
  if (t.functions.empty()) t.functions.emplace_back("");
  if (t.callsites.empty()) t.callsites.emplace_back();
  t.ranks.push_back(std::move(rank));
  return t;
}

// A subtree's trace and summary travel as one message: the trace's length, the
// trace, then the summary.
std::vector<std::byte> encode_gathered(const GatheredTrace& g) {
  const std::string trace = model::encode_trace(g.trace);
  const std::string summary = compress::encode_summary_set(g.summary);
  std::vector<std::byte> bytes(sizeof(std::uint64_t) + trace.size() + summary.size());
  const std::uint64_t length = trace.size();
  std::memcpy(bytes.data(), &length, sizeof length);
  std::memcpy(bytes.data() + sizeof length, trace.data(), trace.size());
  std::memcpy(bytes.data() + sizeof length + trace.size(), summary.data(), summary.size());
  return bytes;
}

std::optional<GatheredTrace> decode_gathered(const std::vector<std::byte>& bytes) {
  std::uint64_t length = 0;
  if (bytes.size() < sizeof length) return std::nullopt;
  std::memcpy(&length, bytes.data(), sizeof length);
  if (length > bytes.size() - sizeof length) return std::nullopt;
  const char* p = reinterpret_cast<const char*>(bytes.data()) + sizeof length;
  auto summary =
      compress::decode_summary_set(std::string(p + length, bytes.size() - sizeof length - length));
  if (!summary) return std::nullopt;
  try {
    return GatheredTrace{model::decode_trace(std::string(p, length)), std::move(*summary)};
  } catch (const model::TraceError&) {
    return std::nullopt;
  }
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
  GatheredTrace local;
  local.trace = local_trace(context, final);
  const auto symbols = compress::parse_symbol_options(context.config().summary_symbols);
  try {
    local.summary = compress::summarize_rank_trace(local.trace, local.trace.ranks[0],
                                                   symbols.value_or(compress::SymbolOptions{}));
  } catch (const std::exception& e) {
    // Every rank must still take part in the tree merge below.
    warn(std::string("no loop summary for this rank: ") + e.what());
    local.summary = {};
  }
  // Half the shortest round trip a rank measured to its parent bounds the one-way
  // latency; rank 0 measured none.
  constexpr std::int64_t kUnknown = INT64_MAX / 4;
  local.trace.min_latency_ns =
      context.rank() == 0 ? kUnknown : std::min(local.trace.ranks[0].init.rtt_ns, final.rtt_ns) / 2;
  TreeTraffic traffic;
  auto merged = tree_reduce(
      std::move(local), context.own_comm(), encode_gathered, decode_gathered,
      [](GatheredTrace& into, GatheredTrace&& from) {
        model::merge_traces(into.trace, std::move(from.trace));
        compress::merge_summary_sets(into.summary, std::move(from.summary));
      },
      traffic);
  if (traffic.undecodable > 0) {
    warn(std::to_string(traffic.undecodable) +
         " subtrees of ranks sent unreadable traces; left out");
  }
  if (merged && merged->trace.min_latency_ns == kUnknown) merged->trace.min_latency_ns = 0;
  return merged;
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
