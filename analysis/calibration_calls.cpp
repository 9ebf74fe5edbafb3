#include "calibration_calls.hpp"

#include <string>
#include <unordered_set>

#include "model/function_catalog.hpp"
#include "rank_calls.hpp"

namespace mpidle::analysis {
namespace {

using model::TraceRole;

// Per call record: whether it depends on a partner the analysis saw, and whether any
// of its dependencies stayed unknown.
constexpr std::uint8_t kJudged = 1;
constexpr std::uint8_t kUnknown = 2;

}  // namespace

model::Calibration calibrate_rank(const model::Trace& tables, const model::RankTrace& rank,
                                  const sync::RankPartners& partners, const CallWaits& call_waits,
                                  std::int64_t start_until_ns) {
  model::Calibration out;
  const auto& records = rank.records;
  if (call_waits.size() != records.size()) return out;
  model::LargeArray<std::uint8_t> state(records.size(), 0);
  auto mark = [&](std::uint64_t call, bool known) {
    if (call < state.size()) state[call] |= known ? kJudged : kUnknown;
  };
  // Receives, in posting order per channel: the first `matched` found their send. A
  // blocking probe is judged where the message it found is (its receive's posting
  // record is then in `found`).
  const auto probes = probe_receives(tables, rank);
  std::unordered_set<std::uint64_t> wanted, found;
  for (const auto& [probe, posted] : probes) wanted.insert(posted);
  for (const auto& [key, receives] : partners.items.receives) {
    auto it = partners.send_enter.find(key);
    const std::size_t matched = it == partners.send_enter.end() ? 0 : it->second.size();
    for (std::size_t k = 0; k < receives.size(); ++k) {
      mark(receives[k].call.record, k < matched);
      if (k < matched && wanted.count(receives[k].posted.record) != 0)
        found.insert(receives[k].posted.record);
    }
  }
  for (const auto& [probe, posted] : probes) mark(probe, found.count(posted) != 0);
  // Sends in call order per channel: a blocking send's call, and the call that
  // completed an Isend (a send can wait for its receive's post there).
  const auto completions = send_completions(rank);
  for (const auto& [key, sends] : partners.items.sends) {
    auto it = partners.posted_enter.find(key);
    const std::size_t matched = it == partners.posted_enter.end() ? 0 : it->second.size();
    for (std::size_t k = 0; k < sends.size(); ++k) {
      const auto& rec = records[sends[k].record];
      if (rec.role == TraceRole::send && rec.extra == 0) {
        mark(sends[k].record, k < matched);
      } else if (rec.role == TraceRole::isend && k >= matched) {
        if (const auto call = completing_call(completions, sends[k].record)) mark(*call, false);
      }
    }
  }
  for (std::size_t i = 0; i < partners.items.collectives.size(); ++i) {
    const auto& c = partners.items.collectives[i];
    const bool complete = i < partners.complete.size() && partners.complete[i] != 0;
    if (c.member.has_enter) mark(c.member.enter.record, complete);
  }
  // Completions: a request posted outside the trace (before a window opened), or a
  // non-blocking collective's, leaves its call unjudged; one that completes only
  // known sends is judged (it waits for nobody).
  std::unordered_set<std::uint32_t> started;
  std::uint64_t call = 0;
  for (std::uint64_t i = 0; i < records.size(); ++i) {
    const auto& rec = records[i];
    if (rec.extra == 0) call = i;
    if ((rec.role == TraceRole::isend || rec.role == TraceRole::irecv) && rec.sequence != 0) {
      started.insert(rec.sequence);
    } else if (rec.role == TraceRole::completion) {
      mark(call, rec.collective_kind == 0 && started.count(rec.sequence) != 0);
    }
  }

  model::SiteIdentities sites(tables.callsites);
  for (std::uint64_t i = 0; i < records.size(); ++i) {
    const auto& rec = records[i];
    if (rec.extra != 0 || rec.function >= tables.functions.size()) continue;
    const std::string& function = tables.functions[rec.function];
    if (!model::can_wait(function)) continue;
    if (state[i] != kJudged) {
      ++out.calls_left_out;
      continue;
    }
    const std::int32_t shape = rec.role == TraceRole::collective ? rec.tag : 0;
    const std::int64_t duration = rec.exit_ns - rec.enter_ns;
    const std::int64_t wait = std::min(call_waits[i], duration);
    const double cost_s = static_cast<double>(duration - wait) * 1e-9;
    const model::CalibratedCost call{cost_s, static_cast<double>(wait) * 1e-9, 1,
                                     static_cast<double>(rec.bytes), cost_s * cost_s};
    const bool start = rec.enter_ns < start_until_ns;
    out.keys[{function, rec.profile_size_class, shape}] += call;
    if (start) out.start_keys[{function, rec.profile_size_class, shape}] += call;
    if (const std::string* site = sites.of(rec.callsite)) {
      out.sites[{function, rec.profile_size_class, shape, *site}] += call;
      if (start) out.start_sites[{function, rec.profile_size_class, shape, *site}] += call;
    }
  }
  return out;
}

}  // namespace mpidle::analysis
