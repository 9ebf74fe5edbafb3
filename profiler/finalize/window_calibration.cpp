#include "profiler/finalize/window_calibration.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>

#include "analysis/calibration_calls.hpp"
#include "analysis/rank_waits.hpp"
#include "analysis/wait_states_codec.hpp"
#include "analysis/window_delays.hpp"
#include "model/byte_stream.hpp"
#include "model/function_catalog.hpp"
#include "profiler/core/log.hpp"
#include "profiler/core/trace_windows.hpp"
#include "profiler/finalize/offset_tree.hpp"
#include "profiler/finalize/own_trace.hpp"
#include "sync/offset_model.hpp"
#include "sync/trace_matching.hpp"
#include "sync/trace_sync.hpp"
#include "sync/window_pairing.hpp"
#include "sync/window_partners.hpp"
#include "transport/byte_tree.hpp"
#include "transport/sparse_exchange.hpp"

namespace mpidle::profiler {
namespace {

using model::TraceRole;
using sync::ChannelKey;
using sync::WindowChannelKey;

constexpr int kSendsTag = 7321;
constexpr int kPairsTag = 7322;
constexpr int kDelayQueriesTag = 7323;
constexpr int kDelayAnswersTag = 7324;

// The fault the tests inject into the windows' finalize (tests/programs/window_fault.c):
// "sends" or "pairs", the step at which the last rank fails. Only a library that a
// test preloads defines the function; no setting or mpidle.conf reaches it, and in
// a user's run the lookup finds nothing. Once per finalize, never in a call.
std::string test_window_fault() {
  using Fault = const char* (*)();
  const auto fault = reinterpret_cast<Fault>(dlsym(RTLD_DEFAULT, "mpidle_test_window_fault"));
  const char* step = fault ? fault() : nullptr;
  return step ? step : "";
}

// Records numbered by the function table (kMpiFnNames), the same on every rank.
void number_functions_as_the_table(model::Trace& mine) {
  // The rank's table holds the functions it called, a few: looked up one by one.
  std::vector<std::uint32_t> to(mine.functions.size(), 0);
  for (std::size_t i = 0; i < mine.functions.size(); ++i) {
    const auto* it = std::find(kMpiFnNames, kMpiFnNames + kMpiFnCount, mine.functions[i]);
    if (it == kMpiFnNames + kMpiFnCount) {
      throw model::TraceError("unknown function " + mine.functions[i]);
    }
    to[i] = static_cast<std::uint32_t>(it - kMpiFnNames);
  }
  for (auto& rec : mine.ranks.at(0).records) rec.function = to.at(rec.function);
  mine.functions.assign(kMpiFnNames, kMpiFnNames + kMpiFnCount);
}

// What every rank must agree on after the exchanges, in one reduction: whether any
// rank failed, the clock-condition violations on each clock (they choose it), and
// the classes of blocking sends on each.
struct WindowAgreement {
  std::uint64_t failed = 0;
  std::array<std::uint64_t, 2> violations{};
  std::array<analysis::SendClasses, 2> send_classes;
};

// What a rank that cannot read the reduction's result holds.
WindowAgreement failed_agreement() {
  WindowAgreement a;
  a.failed = 1;
  return a;
}

std::vector<std::byte> encode_agreement(const WindowAgreement& a) {
  model::ByteWriter w;
  for (std::uint64_t n : {a.failed, a.violations[0], a.violations[1]}) w.put(n);
  for (const auto& classes : a.send_classes) {
    const auto bytes = analysis::encode_send_classes(classes);
    w.put_array(std::span<const std::byte>(bytes));
  }
  return w.take();
}

std::optional<WindowAgreement> decode_agreement(std::span<const std::byte> bytes) {
  model::ByteReader r(bytes);
  WindowAgreement a;
  for (std::uint64_t* n : {&a.failed, &a.violations[0], &a.violations[1]}) {
    if (!r.get(*n)) return std::nullopt;
  }
  for (auto& classes : a.send_classes) {
    std::vector<std::byte> bytes;
    if (!r.get_array(bytes)) return std::nullopt;
    auto decoded = analysis::decode_send_classes(bytes);
    if (!decoded) return std::nullopt;
    classes = std::move(*decoded);
  }
  if (!r.at_end()) return std::nullopt;
  return a;
}

void merge_agreement(WindowAgreement& into, WindowAgreement&& from) {
  into.failed += from.failed;
  for (std::size_t c = 0; c < 2; ++c) {
    into.violations[c] += from.violations[c];
    analysis::merge_send_classes(into.send_classes[c], from.send_classes[c]);
  }
}

// Steps 2 to 5 on one rank, each a method; every rank calls them in the same order
// (each is collective where it exchanges). A rank that fails keeps going with
// nothing to say, so that no other rank waits for it; `failure` says why.
class WindowCalibration {
 public:
  WindowCalibration(Context& context, FinalizeMemory& memory, model::Trace& mine,
                    std::string failure)
      : m_context(context),
        m_memory(memory),
        m_mine(mine),
        m_failure(std::move(failure)),
        m_comm(context.own_comm()),
        m_start_ns(monotonic_ns()) {
    PMPI_Comm_rank(m_comm, &m_rank);
    PMPI_Comm_size(m_comm, &m_size);
  }

  // Step 2: the rank's records numbered as the table, its offsets to rank 0.
  model::RankTrace& offsets() {
    attempt([&] { number_functions_as_the_table(m_mine); });
    m_memory.sample();
    if (m_mine.ranks.empty()) m_mine.ranks.emplace_back();  // failed: still takes part
    model::RankTrace& own = m_mine.ranks.at(0);
    own.rank = m_rank;
    compose_offsets(m_comm, own, m_context.node_locality().one_node);
    m_mine.min_latency_ns = m_context.window_latency_ns();
    progress("offsets");
    return own;
  }

  // Step 3 in two exchanges: the windows' messages are paired and each learns its
  // other side, and each collective instance is judged at its home process
  // (sync/window_pairing.hpp). A rank that fails still takes part in both (with
  // nothing to say, and an empty answer to every rank that told it something).
  void pair(model::RankTrace& own, model::WindowOpenings openings) {
    const std::string test_fail = m_rank == m_size - 1 ? test_window_fault() : "";
    transport::Parcels sends;
    attempt([&] {
      if (test_fail == "sends") throw model::TraceError("test failure before the sends");
      // A receive cannot end before its send began. Between nodes the offsets may err
      // by about the smallest latency measured; on one node every rank reads one
      // clock, and that latency as slack paired a late receiver one message off: a
      // receive ends a Barrier's microseconds before the next step's send begins, and
      // the first pairing tried, with the later sends, then held (the trace's windows
      // read a systematic late receiver at 0.43 of its exact wait).
      const std::int64_t slack = m_context.node_locality().one_node ? 0 : m_mine.min_latency_ns;
      if (openings.ns.size() > 1) m_start_until_ns = openings.ns[1];
      m_openings = openings;
      m_pairing.emplace(m_mine, own, std::move(openings), slack, m_size);
      sends = m_pairing->sends_by_destination();
    });
    if (!m_failure.empty()) sends.clear();
    const auto answered = transport::ask_and_answer(
        m_comm, sends, kSendsTag, kPairsTag,
        [&](const sync::Parcels& received) -> std::optional<sync::Parcels> {
          sync::Parcels answers;
          attempt([&] {
            if (test_fail == "pairs") throw model::TraceError("test failure before the answers");
            answers = m_pairing->pair_receives(received);
          });
          if (!m_failure.empty()) return std::nullopt;
          return answers;
        });
    attempt([&] {
      m_pairing->apply_answers(answered);
      m_pairing->separate_windows();
    });
  }

  // Step 4's reduction: both clocks' partners and send classes, so that one
  // reduction both chooses the clock and agrees on the send classes for it. Returns
  // the clock, with the records and partners on it, or nothing (and every rank
  // knows) where any rank failed.
  std::optional<int> agree(model::RankTrace& own) {
    WindowAgreement agreement;
    agreement.failed = m_failure.empty() ? 0 : 1;
    if (m_failure.empty()) {
      for (int clock : {sync::kReferenceClock, sync::kRawClock}) {
        const auto c = static_cast<std::size_t>(clock);
        agreement.violations[c] = m_pairing->violations()[c];
        try {
          m_partners_on[c] = m_pairing->partners(clock);
          agreement.send_classes[c] = analysis::send_classes(own, m_partners_on[c]);
        } catch (const std::exception& e) {
          m_unpaired = e.what();
        }
      }
    }
    transport::TreeTraffic traffic;
    agreement = transport::tree_allreduce(std::move(agreement), m_comm, encode_agreement,
                                          decode_agreement, merge_agreement, traffic)
                    .value_or(failed_agreement());
    if (agreement.failed > 0) {
      if (!m_failure.empty()) warn("no calibration from the trace windows: " + m_failure);
      return std::nullopt;
    }
    // As the trace's clock plan: offsets that break more clock conditions than the
    // raw clocks are not used (ranks on one node read one clock).
    const int clock =
        agreement.violations[sync::kRawClock] < agreement.violations[sync::kReferenceClock]
            ? sync::kRawClock
            : sync::kReferenceClock;
    m_send_classes = agreement.send_classes[static_cast<std::size_t>(clock)];
    if (!m_unpaired.empty()) {
      warn("no wait states from this rank's windows: " + m_unpaired);
      own.records.clear();
      own.synced.clear();
    } else {
      m_partners = std::move(m_partners_on[static_cast<std::size_t>(clock)]);
      m_pairing->use_clock(clock);  // partners() left the records on the clock it found last
    }
    m_memory.sample();
    progress((std::string(clock == sync::kRawClock ? "alignment and partners (raw clocks"
                                                   : "alignment and partners (offset clocks") +
              ", clock-condition violations " +
              std::to_string(agreement.violations[sync::kReferenceClock]) + " with offsets, " +
              std::to_string(agreement.violations[sync::kRawClock]) + " raw)")
                 .c_str());
    return clock;
  }

  // Step 4 on this rank: its calls' costs from its exact waits (no MPI).
  model::Calibration costs(model::RankTrace& own) {
    try {
      if (own.records.empty()) return {};
      m_events.clear();
      analysis::rank_wait_states(m_mine, own, static_cast<std::uint32_t>(m_rank), m_partners,
                                 m_send_classes, &m_call_waits,
                                 [&](const analysis::RankWaitEvent& e) { m_events.push_back(e); });
      m_judged = true;
      return analysis::calibrate_rank(m_mine, own, m_partners, m_call_waits, m_start_until_ns);
    } catch (const std::exception& e) {
      warn(std::string("no wait states from this rank's windows: ") + e.what());
      return {};
    }
  }

  // Step 5, why they waited (analysis/window_delays.hpp): each rank asks the ranks
  // that made it wait for their time in the intervals before, answers what it is
  // asked, and splits its waiting by root cause into `into`. Two exchanges every
  // rank takes part in; a rank with nothing to ask or answer sends nothing.
  void root_causes(model::RankTrace& own, model::Calibration& into) {
    std::optional<analysis::RankTimeline> timeline;
    std::optional<analysis::WindowDelays> delays;
    transport::Parcels queries;
    std::string failed;
    attempt(
        [&] {
          if (!m_judged) throw model::TraceError("no wait states");
          timeline.emplace(own, m_call_waits, m_openings);
          delays.emplace(m_mine, own, m_rank, m_size, m_openings, std::move(m_events));
          queries = delays->queries();
        },
        failed);
    if (!failed.empty()) queries.clear();
    const auto answered =
        transport::ask_and_answer(m_comm, queries, kDelayQueriesTag, kDelayAnswersTag,
                                  [&](const sync::Parcels& asked) -> std::optional<sync::Parcels> {
                                    if (!timeline) return std::nullopt;
                                    return analysis::answer_delay_queries(*timeline, asked);
                                  });
    attempt(
        [&] {
          delays->apply(answered, *timeline);
          into.causes = delays->causes();
        },
        failed);
    if (!failed.empty() && m_judged) warn("no root causes from this rank's windows: " + failed);
  }

  // This rank's part summed over the ranks, each keeping its own part beside.
  model::Calibration reduced(model::Calibration part) {
    transport::TreeTraffic sums;
    model::Calibration sum = part;
    return model::with_own_part(
        transport::tree_allreduce(
            std::move(sum), m_comm, model::encode_calibration, model::decode_calibration,
            [](model::Calibration& into, model::Calibration&& from) {
              model::merge_calibration(into, from);
            },
            sums)
            .value_or(part),
        part);
  }

  // MPIDLE_VERBOSE=2: each step's time on rank 0, to see where the finalize goes.
  void progress(const char* step) const {
    if (m_rank != 0 || m_context.config().verbose < 2) return;
    warn(std::string("finalize: windows' ") + step + " after " +
         std::to_string(static_cast<double>(monotonic_ns() - m_start_ns) * 1e-6) + " ms");
  }

 private:
  // `step`, unless `failure` says an earlier one failed; its exception becomes the
  // failure. The steps up to the reduction share m_failure; step 5 has its own.
  template <typename Step>
  void attempt(Step step, std::string& failure) {
    if (!failure.empty()) return;
    try {
      step();
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  template <typename Step>
  void attempt(Step step) {
    attempt(step, m_failure);
  }

  Context& m_context;
  FinalizeMemory& m_memory;
  model::Trace& m_mine;
  std::string m_failure;
  MPI_Comm m_comm;
  int m_rank = 0, m_size = 1;
  std::uint64_t m_start_ns;
  std::optional<sync::WindowPairing> m_pairing;
  // Where the first window's calls end: the second window's opening (none: all are).
  std::int64_t m_start_until_ns = INT64_MAX;
  std::array<sync::RankPartners, 2> m_partners_on;  // by clock
  sync::RankPartners m_partners;                    // on the chosen clock
  std::string m_unpaired;                // why this rank's windows have no partners, if so
  analysis::SendClasses m_send_classes;  // on the chosen clock
  model::WindowOpenings m_openings;      // on the clock of the records' enter_ns
  // Step 4's exact waits, for step 5: each record's, and every wait state.
  analysis::CallWaits m_call_waits;
  std::vector<analysis::RankWaitEvent> m_events;
  bool m_judged = false;  // step 4 found this rank's wait states
};

// Steps 2 to 5 on this rank's window records `mine` (its function table still its
// own), whose windows opened at `openings`; `failure` says why this rank has none.
// Collective. Returns this rank's part of the calibration (an empty one on every
// rank where any failed), or with `reduce` the run's.
model::Calibration calibrate(Context& context, FinalizeMemory& memory, model::Trace& mine,
                             model::WindowOpenings openings, std::string failure,
                             const WindowCounts& counts, bool reduce) {
  WindowCalibration steps(context, memory, mine, std::move(failure));
  model::RankTrace& own = steps.offsets();
  steps.pair(own, std::move(openings));
  const std::uint64_t records = own.records.size();
  if (!steps.agree(own)) return {};
  // This rank's figures: summed over the ranks with its calls (the most windows
  // any rank opened, the ranks whose buffer filled, the records), by the caller or
  // here with `reduce`.
  model::Calibration calibration = steps.costs(own);
  steps.root_causes(own, calibration);
  calibration.source = "windows";
  calibration.windows = counts.opened;
  calibration.windows_cut = counts.cut;
  calibration.windows_capped = counts.capped;
  calibration.records = records;
  if (reduce) calibration = steps.reduced(calibration);
  steps.progress("wait states");
  return calibration;
}

}  // namespace

model::Calibration calibrate_from_windows(Context& context, FinalizeMemory& memory,
                                          double* offsets_s) {
  const std::uint64_t start_ns = monotonic_ns();
  const auto final =
      measure_offset_to_parent(context.own_comm(), context.trace_clock(),
                               context.node_locality().edges, &context.init_offset());
  if (offsets_s) *offsets_s = static_cast<double>(monotonic_ns() - start_ns) * 1e-9;
  model::Trace mine;
  model::WindowOpenings openings;
  std::string failure;
  try {
    mine = own_trace(context, final);
    // The edges as this rank placed them, on the clock its records are now on.
    for (Ticks t : trace_windows().openings())
      openings.ns.push_back(context.trace_clock().local_ns(t));
  } catch (const std::exception& e) {
    failure = e.what();
  }
  return calibrate(context, memory, mine, std::move(openings), failure, trace_windows().counts(),
                   false);
}

model::Calibration calibrate_from_window_part(Context& context, FinalizeMemory& memory,
                                              const model::Trace& tables,
                                              const model::RankTrace& own) {
  model::Trace mine;
  model::WindowOpenings openings;
  std::string failure;
  WindowCounts counts;
  try {
    mine.functions = tables.functions;
    mine.callsites = tables.callsites;
    const TraceWindows& windows = trace_windows();
    const std::int64_t reference = context.trace_clock().local_ns(windows.reference());
    mine.ranks.push_back(sync::window_part(own, windows.schedule(), reference,
                                           context.config().window_records, &counts.capped));
    const auto& part = mine.ranks.back().records;
    std::int64_t until = reference;
    for (const auto& rec : part) until = std::max(until, rec.enter_ns);
    openings = windows.schedule().openings(reference, until);
    // The windows that held calls: as many as profile mode would have opened.
    std::uint32_t last = 0;
    bool any = false;
    for (const auto& rec : part) {
      const std::uint32_t w = openings.window_at(rec.enter_ns);
      if (!any || w != last) ++counts.opened;
      any = true;
      last = w;
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  model::Calibration c =
      calibrate(context, memory, mine, std::move(openings), failure, counts, true);
  if (!c.source.empty()) c.source = "window check";
  return c;
}

}  // namespace mpidle::profiler
