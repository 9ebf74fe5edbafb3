// The last phase: the clock condition checked before and after, and each
// collective member's wait (until when it waited for the others) for the analysis.

#include "parallel_sync_state.hpp"

namespace mpidle::sync {

void ParallelSync::Impl::start_check() {
  for (auto& r : ranks) {
    for (const auto& out : r.outgoing) {
      const auto e = out.event;
      emit(r, out, {r.raw(e), r.interp(e), r.lc[e]}, true);
    }
    // Senders learn where their receives were posted (late receiver).
    to_senders(r, ReplayItemType::check_back,
               [&](const ReceiveItem& receive) { return r.lc[2 * receive.posted.record]; });
  }
}

void ParallelSync::Impl::count_violations() {
  for (auto& r : ranks) {
    for (std::size_t i = 0; i < r.incoming.size();) {
      const std::uint64_t e = r.incoming[i].event;
      Triple cause = kNoCause;
      for (; i < r.incoming.size() && r.incoming[i].event == e; ++i) {
        const auto& in = r.incoming[i];
        if (in.collective) {
          if (r.check_replied[in.index]) {
            const Triple& latest_enter = r.check_reply[in.index];
            cause = max_of(cause, latest_enter);
            if (latest_enter != kNoCause) {
              note_gap(stats.min_gap_raw_ns, r.raw(e) - latest_enter[0]);
              note_gap(stats.min_gap_corrected_ns, r.interp(e) - latest_enter[1]);
            }
          }
        } else if (in.number < r.check_arrived[in.index].size()) {
          const Triple& send = r.check_arrived[in.index][in.number];
          cause = max_of(cause, send);
          note_gap(stats.min_gap_raw_ns, r.raw(e) - send[0]);
          note_gap(stats.min_gap_corrected_ns, r.interp(e) - send[1]);
        }
      }
      stats.violations_raw += r.raw(e) < cause[0];
      stats.violations_before += r.interp(e) < cause[1];
      stats.violations_after += r.lc[e] < cause[2];
    }
    for (std::uint64_t e = 0; e < r.events(); ++e) {
      const std::int64_t shift = r.lc[e] - r.interp(e);
      stats.events_moved += shift != 0;
      stats.max_shift_ns = std::max(stats.max_shift_ns, shift);
      stats.shift_sum_ns += static_cast<double>(shift);
      if (e > 0) {
        const std::int64_t old_interval = r.interp(e) - r.interp(e - 1);
        const std::int64_t new_interval = r.lc[e] - r.lc[e - 1];
        stats.interval_change_sum_ns += std::abs(static_cast<double>(new_interval - old_interval));
        ++stats.intervals;
      }
    }
    stats.events += r.events();
  }
}

}  // namespace mpidle::sync
