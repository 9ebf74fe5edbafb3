#pragma once
// One rank's part in pairing the messages and collectives of profile mode's trace
// windows (docs/calibration.md, step 3 of profiler/finalize/window_calibration.hpp).
// Pure C++, no MPI: the finalize carries the parcels between the ranks with its
// sparse exchange (transport/), the unit tests between simulated ranks.
//  1. sends_by_destination: each sender tells each receiver, per window and channel,
//     when its sends began and their sizes, and each collective's home process this
//     rank's part of the instances it judges (sync/window_partners.hpp).
//  2. pair_receives: each receiver pairs them with its receives (window_channels.hpp)
//     and answers which sends were received inside the window, and where each paired
//     receive was posted, with the verdicts on the collectives judged here.
//  3. apply_answers: each sender leaves out the sends outside the pairs.
//  4. separate_windows: every channel gets ids of its window's own, so that no pair
//     spans two windows; partners(clock) then holds what the wait-state analysis
//     needs of the other side of each message and instance, on either clock.

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "model/large_array.hpp"
#include "model/trace_file.hpp"
#include "model/window_schedule.hpp"
#include "sync/offset_model.hpp"
#include "sync/parallel_sync.hpp"
#include "sync/parcels.hpp"
#include "sync/trace_matching.hpp"
#include "sync/window_channels.hpp"
#include "sync/window_partners.hpp"

namespace mpidle::sync {

class WindowPairing {
 public:
  // `rank`: this rank's window records, its functions numbered as `tables`' (the
  // same on every rank); changed in place as pairs are found and windows separated.
  // `openings`: where its windows opened, on its own clock as its records.
  // `tolerance_ns`: how much earlier than its send a receive may seem to end (clock
  // error). `size`: the processes, which decides each collective's home.
  WindowPairing(const model::Trace& tables, model::RankTrace& rank, model::WindowOpenings openings,
                std::int64_t tolerance_ns, int size);

  // Step 1. Per destination: (window, channel) → its sends, encoded; then this
  // rank's part of the collective instances the destination judges.
  Parcels sends_by_destination();
  // Step 2. One answer to every rank in `incoming`. Throws model::TraceError on
  // bytes it cannot read.
  Parcels pair_receives(const Parcels& incoming);
  // Step 3. Throws model::TraceError on bytes it cannot read.
  void apply_answers(const Parcels& answers);
  // Step 4: point-to-point records get their window's communicator ids.
  void separate_windows();
  // After separate_windows, on `clock` (kReferenceClock or kRawClock): the
  // records' times, and what the wait-state analysis needs of the other side of
  // each paired message and collective instance.
  RankPartners partners(int clock);
  // The records' times (their `synced` pair) on `clock`.
  void use_clock(int clock);

  // Clock-condition violations this rank found (its receives, the instances it
  // judged), per clock: summed over the ranks, they choose the clock.
  const std::array<std::uint64_t, 2>& violations() const { return m_violations; }

 private:
  // What each source told this rank in step 1.
  struct ToldSends {
    std::map<WindowChannelKey, std::vector<WindowSend>> sends;
    std::map<WindowChannelKey, std::vector<BothClocks>> call_enters;
    std::map<int, std::vector<WindowChannelKey>> asked;  // per source, in its order
    std::vector<CollectiveReport> reported;
  };
  ToldSends read_sends(const Parcels& incoming) const;
  // This rank's receives per (window, channel), posted and completed in one window;
  // the others are left out.
  std::map<WindowChannelKey, std::vector<std::size_t>> receives_by_window();
  // Pairs one channel's receives in one window with what its source told.
  ChannelPairing pair_channel(const WindowChannelKey& key, const std::vector<std::size_t>& indices,
                              const ToldSends& told);
  Parcels answers_to(const ToldSends& told,
                     const std::map<WindowChannelKey, ChannelPairing>& pairings,
                     const std::map<int, std::vector<CollectiveVerdict>>& verdicts) const;

  // A record's enter or exit on both clocks.
  BothClocks enter_of(std::uint64_t record) const {
    return {m_reference[2 * record], m_rank.records[record].enter_ns};
  }
  BothClocks exit_of(std::uint64_t record) const {
    return {m_reference[2 * record + 1], m_rank.records[record].exit_ns};
  }
  std::uint32_t window_of(std::uint64_t record) const {
    return m_openings.window_at(m_rank.records[record].enter_ns);
  }
  // The record that holds a send of `key` whose call is `ref`: the call's own, or a
  // Sendrecv's send half after it.
  std::uint64_t send_record(const ChannelKey& key, RecordRef ref) const;
  void leave_out_receive(const ReceiveItem& item);
  void leave_out_send(const ChannelKey& key, std::uint64_t call);

  const model::Trace& m_tables;
  model::RankTrace& m_rank;
  model::WindowOpenings m_openings;  // on this rank's clock, as its records
  std::int64_t m_tolerance_ns;
  OffsetModel m_clock;
  RankMatchItems m_items;
  std::map<WindowChannelKey, std::vector<std::uint64_t>> m_sent;  // call records
  // Receiver side, per channel's paired receives: the partner send call's enter,
  // and the receive's own posting enter (sent back). Sender side: the posting enters.
  std::map<WindowChannelKey, std::vector<BothClocks>> m_send_enter, m_posted_here, m_posted_there;
  model::LargeArray<std::int64_t> m_reference;  // 2 per record, on the reference clock
  std::array<std::uint64_t, 2> m_violations{};
  std::map<int, std::vector<CollectiveReport>> m_reports;  // by home process
  std::vector<CollectiveVerdict> m_verdicts;               // for this rank's items
};

}  // namespace mpidle::sync
