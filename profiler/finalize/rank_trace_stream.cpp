#include "profiler/finalize/rank_trace_stream.hpp"

#include <string>
#include <unordered_map>
#include <vector>

#include "profiler/core/log.hpp"
#include "profiler/finalize/local_tables.hpp"

namespace mpidle::profiler {
namespace {

// Where one thread's records stand while the threads are merged.
struct ThreadCursor {
  const ThreadState* thread = nullptr;
  TraceBuffer* buffer = nullptr;
  std::span<const model::TraceRecord> chunk;
  std::size_t next = 0;
  std::int64_t head_ns = 0;    // the next record's enter, in nanoseconds
  std::size_t main_index = 0;  // main records taken so far: where their counts are
  bool counted = false;        // the thread has counts for its main records
  std::string error;
  // Callsite keys are per thread (interned stacks); each distinct key is resolved once.
  std::unordered_map<std::uintptr_t, std::uint32_t> site_index;

  bool refill(const TraceClock& clock) {
    while (next == chunk.size()) {
      chunk = buffer->drain_next(error);
      next = 0;
      if (chunk.empty()) return false;
    }
    head_ns = clock.local_ns(static_cast<Ticks>(chunk[next].enter_ns));
    return true;
  }
};

}  // namespace

std::uint64_t buffered_trace_records(Context& context) {
  std::uint64_t n = 0;
  for (const ThreadState* thread : context.threads()) {
    if (thread->trace_buffer() != nullptr) n += thread->trace_buffer()->records();
  }
  return n;
}

model::Trace stream_rank_trace(Context& context, const model::ClockMeasurement& final,
                               const TraceBatchSink& sink) {
  model::Trace t;
  model::RankTrace rank;
  rank.rank = context.rank();
  rank.init = context.init_offset();
  rank.final = final;
  if (context.papi().available) t.counter_names = context.papi().events;
  const std::size_t k = t.counter_names.size();
  const TraceClock& clock = context.trace_clock();

  std::vector<ThreadCursor> cursors;
  for (const ThreadState* thread : context.threads()) {
    if (thread->trace_buffer() == nullptr) continue;
    ThreadCursor c;
    c.thread = thread;
    c.buffer = thread->trace_buffer();
    c.counted = k > 0 && thread->counter_count() == k;
    cursors.push_back(std::move(c));
  }
  std::vector<ThreadCursor*> live;
  for (auto& c : cursors) {
    if (c.refill(clock)) live.push_back(&c);
  }

  CallsiteNumbering callsites(t.callsites);
  std::vector<std::int64_t> function_index(kMpiFnCount, -1);
  std::vector<model::TraceRecord> batch;
  std::vector<std::int64_t> batch_counters;
  batch.reserve(kTraceBatchRecords);
  batch_counters.reserve(kTraceBatchRecords * k);
  auto flush = [&] {
    if (batch.empty()) return;
    sink(batch, batch_counters);
    batch.clear();
    batch_counters.clear();
  };

  while (!live.empty()) {
    // Threads interleave: the earliest next record of any thread (the first
    // thread's on a tie), so that each rank's records are in time order.
    std::size_t pick = 0;
    for (std::size_t i = 1; i < live.size(); ++i) {
      if (live[i]->head_ns < live[pick]->head_ns) pick = i;
    }
    ThreadCursor& c = *live[pick];
    model::TraceRecord rec = c.chunk[c.next++];
    auto [site, new_key] = c.site_index.try_emplace(rec.callsite, 0);
    if (new_key) site->second = callsites.id(stack_of(*c.thread, rec.callsite));
    std::int64_t& fn = function_index.at(rec.function);
    if (fn < 0) {
      fn = static_cast<std::int64_t>(t.functions.size());
      t.functions.emplace_back(kMpiFnNames[rec.function]);
    }
    rec.callsite = site->second;
    rec.function = static_cast<std::uint32_t>(fn);
    rec.enter_ns = c.head_ns;
    rec.exit_ns = clock.local_ns(static_cast<Ticks>(rec.exit_ns));
    const auto& counts = c.thread->counters();
    const std::int64_t* count = nullptr;
    if (c.counted && rec.extra == 0 && (c.main_index + 1) * k <= counts.size()) {
      count = counts.data() + c.main_index * k;
    }
    if (rec.extra == 0) ++c.main_index;
    batch.push_back(rec);
    for (std::size_t i = 0; i < k; ++i) batch_counters.push_back(count ? count[i] : -1);
    if (batch.size() == kTraceBatchRecords) flush();
    if (!c.refill(clock)) live.erase(live.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  flush();

  for (const auto& c : cursors) {
    if (!c.error.empty()) warn(c.error);
    rank.spilled_chunks += c.buffer->spilled_chunks();
    rank.lost_records += c.buffer->lost_records();
  }
  if (t.functions.empty()) t.functions.emplace_back("");
  if (t.callsites.empty()) t.callsites.emplace_back();
  t.ranks.push_back(std::move(rank));
  return t;
}

}  // namespace mpidle::profiler
