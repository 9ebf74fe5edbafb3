#include "window_channels.hpp"

#include <algorithm>

namespace mpidle::sync {
namespace {

bool consistent(const std::vector<WindowReceive>& receives, const std::vector<WindowSend>& sends,
                const ChannelPairing& p, std::int64_t tolerance_ns) {
  for (std::size_t j = 0; j < p.pairs; ++j) {
    const WindowReceive& r = receives[p.first_receive + j];
    const WindowSend& s = sends[p.first_send + j];
    if (r.bytes != s.bytes || r.exit_ns + tolerance_ns < s.enter_ns) return false;
  }
  return true;
}

}  // namespace

ChannelPairing pair_window_channel(const std::vector<WindowReceive>& receives,
                                   const std::vector<WindowSend>& sends,
                                   std::int64_t tolerance_ns) {
  // From receives paired with the latest sends (the first sends left out) to the
  // earliest (the first receives left out): the first consistent pairing.
  const auto k = static_cast<std::ptrdiff_t>(kMaxWindowShift);
  for (std::ptrdiff_t shift = k; shift >= -k; --shift) {
    ChannelPairing p;
    p.first_send = shift > 0 ? static_cast<std::size_t>(shift) : 0;
    p.first_receive = shift < 0 ? static_cast<std::size_t>(-shift) : 0;
    if (p.first_send >= sends.size() || p.first_receive >= receives.size()) continue;
    p.pairs = std::min(sends.size() - p.first_send, receives.size() - p.first_receive);
    if (consistent(receives, sends, p, tolerance_ns)) return p;
  }
  return {};
}

std::uint32_t window_comm(std::uint32_t comm, std::uint32_t window) {
  // Communicator ids are hashes over the members: mixing the window in keeps them
  // distinct per window and equal on every member.
  std::uint64_t x = (std::uint64_t{comm} << 32) ^ (std::uint64_t{window} + 1);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x) | 1u;
}

model::RankTrace window_part(const model::RankTrace& rank, const model::WindowSchedule& schedule,
                             std::int64_t reference_ns, std::uint64_t records_per_window,
                             std::uint32_t* capped) {
  model::RankTrace part;
  part.rank = rank.rank;
  part.init = rank.init;
  part.final = rank.final;
  if (!schedule.enabled()) return part;
  bool inside = false;         // the current call (its first record and those after it)
  std::uint32_t window = ~0u;  // the window of the records kept last
  std::uint64_t kept = 0;      // records of `window` so far
  for (const auto& rec : rank.records) {
    if (rec.extra == 0) {
      const std::int64_t since = rec.enter_ns - reference_ns;
      const std::uint32_t w = since < 0 ? 0 : schedule.window_at(since);
      const std::int64_t opened = since < 0 ? -1 : schedule.open_ns(w);
      inside = opened >= 0 && since >= opened && since < opened + schedule.length_ns();
      if (inside && w != window) {
        window = w;
        kept = 0;
      }
      // The call that reached the limit keeps its records; later ones are out.
      if (inside && records_per_window > 0 && kept >= records_per_window) inside = false;
    }
    if (inside) {
      part.records.push_back(rec);
      if (++kept == records_per_window && capped) ++*capped;
    }
  }
  return part;
}

}  // namespace mpidle::sync
