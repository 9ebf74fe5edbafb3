#pragma once
// Which messages of profile mode's trace windows can be matched (docs/calibration.md).
// A window opens on every rank at about the same instant, so a channel's records in
// it may begin with receives of messages sent before it opened, or with sends whose
// receives were posted before it; and they may end with sends received after it
// closed. MPI's non-overtaking order still holds inside the window, so the window's
// receives and sends of one channel pair up with a shift: receive a + j with send
// b + j. The shift is the one that pairs every receive with the latest send it can
// have received: each paired receive ended after its send began (within a
// tolerance for the clocks) and received the send's bytes. Everything outside the
// pairs is left out of the analysis, together with the calls it belongs to.
//
// A receiver lagging a whole message behind its sender at the moment a window
// opens (messages queued, the sender running ahead) is indistinguishable by time
// from one that is not; such a channel can be paired one message late.
// Pure C++, no MPI.

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "model/trace_file.hpp"
#include "model/window_schedule.hpp"
#include "trace_matching.hpp"

namespace mpidle::sync {

struct WindowSend {
  std::int64_t enter_ns = 0;  // on the reference (rank 0) clock
  std::uint64_t bytes = 0;
};

struct WindowReceive {
  std::int64_t exit_ns = 0;  // the completing record's exit, on the reference clock
  std::uint64_t bytes = 0;
};

// Receive first_receive + j pairs with send first_send + j, for j < pairs.
struct ChannelPairing {
  std::size_t first_receive = 0, first_send = 0, pairs = 0;
};

// Shifts tried each way: more messages in flight than this when a window opens
// leave the channel out of that window.
inline constexpr std::size_t kMaxWindowShift = 8;

// The pairing of one channel in one window; pairs 0 where no shift is consistent.
ChannelPairing pair_window_channel(const std::vector<WindowReceive>& receives,
                                   const std::vector<WindowSend>& sends, std::int64_t tolerance_ns);

// A channel within one window: (window, communicator, source, destination, tag).
using WindowChannelKey = std::pair<std::uint32_t, ChannelKey>;

// Trace records of windows are renumbered so that no channel spans two windows: the
// communicator id of a point-to-point record becomes window-specific.
std::uint32_t window_comm(std::uint32_t comm, std::uint32_t window);

// The calls of a whole rank's trace that the windows of `schedule`, placed at
// `reference_ns` (on the rank's own clock), would have recorded: those that began
// while a window was open (trace mode's window check). Clock measurements are kept,
// PAPI counts are not. With `records_per_window` > 0 a window also closes after the
// call whose records reach that many, as MPIDLE_WINDOW_RECORDS closes it in profile
// mode (there per thread; here the rank's records count); `capped`, if given,
// counts the windows so closed.
model::RankTrace window_part(const model::RankTrace& rank, const model::WindowSchedule& schedule,
                             std::int64_t reference_ns, std::uint64_t records_per_window = 0,
                             std::uint32_t* capped = nullptr);

}  // namespace mpidle::sync
