#pragma once
// Generated traces for the replay tests: runs of a few ranks with every pattern
// the matcher knows (blocking and non-blocking point-to-point, Waitall completing
// receives in either order, Sendrecv, synchronous sends held by late receivers,
// every collective kind on the world, a sub-communicator and one in reverse order, non-blocking
// collectives, cancelled receives, unmatched sends), on one true timeline whose
// ranks' clocks are then offset and their offset measurements slightly wrong.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "model/trace_file.hpp"

namespace mpidle::test {

using model::CollectiveKind;
using model::TraceRecord;
using model::TraceRole;

// A run of `ranks` ranks on one true timeline: causes always precede their effects
// (plus a latency), then every rank's clock gets an offset that its recorded
// offset measurements get slightly wrong, so that interpolation leaves clock-
// condition violations for the controlled logical clock to repair.
class TraceBuilder {
 public:
  TraceBuilder(std::uint32_t ranks, std::uint64_t seed) : m_rng(seed), m_now(ranks, 1000) {
    m_trace.functions = {"MPI_Send", "MPI_Barrier"};
    m_trace.callsites = {model::Callsite{}};
    m_trace.ranks.resize(ranks);
    for (std::uint32_t r = 0; r < ranks; ++r) m_trace.ranks[r].rank = static_cast<std::int32_t>(r);
  }

  std::uint32_t ranks() const { return static_cast<std::uint32_t>(m_trace.ranks.size()); }
  std::int64_t jitter(std::int64_t most) { return static_cast<std::int64_t>(m_rng() % most); }
  bool chance(int percent) { return static_cast<int>(m_rng() % 100) < percent; }

  TraceRecord& add(std::uint32_t r, TraceRole role, std::int64_t enter, std::int64_t exit,
                   std::int32_t peer = -1, std::int32_t tag = 0) {
    TraceRecord rec;
    rec.role = role;
    rec.enter_ns = enter;
    rec.exit_ns = std::max(enter, exit);
    rec.peer = peer;
    rec.tag = tag;
    m_now[r] = rec.exit_ns + 1 + jitter(50);
    m_trace.ranks[r].records.push_back(rec);
    return m_trace.ranks[r].records.back();
  }
  std::int64_t& now(std::uint32_t r) { return m_now[r]; }
  std::uint32_t serial() { return ++m_serial; }

  model::Trace finish() {
    for (auto& r : m_trace.ranks) {
      const std::int64_t offset = jitter(40'000) - 20'000;
      for (auto& rec : r.records) {
        rec.enter_ns += offset;
        rec.exit_ns += offset;
      }
      r.init = {offset + jitter(6000) - 3000, 2000, 0};
      r.final = {offset + jitter(6000) - 3000, 2000, 1'000'000'000};
    }
    m_trace.min_latency_ns = 200;
    return std::move(m_trace);
  }

 private:
  std::mt19937_64 m_rng;
  std::vector<std::int64_t> m_now;
  std::uint32_t m_serial = 0;
  model::Trace m_trace;
};

inline constexpr std::int64_t kLatency = 300;

inline void ring_blocking(TraceBuilder& b, int shift) {
  const auto n = b.ranks();
  std::vector<std::int64_t> sent(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    sent[r] = b.now(r) + b.jitter(800);
    b.add(r, TraceRole::send, sent[r], sent[r] + 100, static_cast<std::int32_t>((r + shift) % n),
          3);
  }
  for (std::uint32_t r = 0; r < n; ++r) {
    const std::uint32_t left = (r + n - static_cast<std::uint32_t>(shift)) % n;
    const std::int64_t enter = b.now(r) + b.jitter(800);
    b.add(r, TraceRole::recv, enter, std::max(enter, sent[left] + kLatency) + b.jitter(100),
          static_cast<std::int32_t>(left), 3);
  }
}

// Synchronous sends to the right, whose receives are posted later: the sends are
// held until then (late receiver).
inline void synchronous_ring(TraceBuilder& b) {
  const auto n = b.ranks();
  std::vector<std::int64_t> sent(n), posted(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    sent[r] = b.now(r) + b.jitter(300);
    posted[r] = b.now(r) + 400 + b.jitter(1500);
  }
  for (std::uint32_t r = 0; r < n; ++r) {
    const std::uint32_t right = (r + 1) % n;
    const std::int64_t exit = std::max(sent[r] + 100, posted[right] + kLatency) + b.jitter(50);
    b.add(r, TraceRole::send, sent[r], exit, static_cast<std::int32_t>(right), 13).flags =
        model::kTraceSynchronous;
  }
  for (std::uint32_t r = 0; r < n; ++r) {
    const std::uint32_t left = (r + n - 1) % n;
    const std::int64_t enter = std::max(b.now(r), posted[r]);
    b.add(r, TraceRole::recv, enter, std::max(enter, sent[left] + kLatency) + b.jitter(50),
          static_cast<std::int32_t>(left), 13);
  }
}

inline void sendrecv_ring(TraceBuilder& b) {
  const auto n = b.ranks();
  std::vector<std::int64_t> enter(n);
  for (std::uint32_t r = 0; r < n; ++r) enter[r] = b.now(r) + b.jitter(800);
  for (std::uint32_t r = 0; r < n; ++r) {
    const std::uint32_t left = (r + n - 1) % n, right = (r + 1) % n;
    const std::int64_t exit = std::max(enter[r], enter[left] + kLatency) + b.jitter(200);
    b.add(r, TraceRole::recv, enter[r], exit, static_cast<std::int32_t>(left), 5);
    auto& send = b.add(r, TraceRole::send, exit, exit, static_cast<std::int32_t>(right), 5);
    send.extra = 1;
  }
}

// Irecv from both neighbours, Isend to both, then one Waitall completing the
// receives in either order.
inline void halo_nonblocking(TraceBuilder& b) {
  const auto n = b.ranks();
  struct Posted {
    std::uint32_t serial;
    std::int32_t from;
  };
  std::vector<std::vector<Posted>> posted(n);
  std::vector<std::int64_t> sent(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    for (const std::uint32_t from : {(r + n - 1) % n, (r + 1) % n}) {
      auto& rec =
          b.add(r, TraceRole::irecv, b.now(r), b.now(r) + 50, static_cast<std::int32_t>(from), 7);
      rec.sequence = b.serial();
      posted[r].push_back({rec.sequence, static_cast<std::int32_t>(from)});
    }
    sent[r] = b.now(r) + b.jitter(500);
    for (const std::uint32_t to : {(r + 1) % n, (r + n - 1) % n}) {
      auto& rec =
          b.add(r, TraceRole::isend, sent[r], sent[r] + 80, static_cast<std::int32_t>(to), 7);
      rec.sequence = b.serial();
    }
  }
  for (std::uint32_t r = 0; r < n; ++r) {
    // Both neighbours' isends started at sent[...] (the second one 80+ ns later).
    std::int64_t ready = 0;
    for (const auto& p : posted[r])
      ready = std::max(ready, sent[static_cast<std::uint32_t>(p.from)] + 200);
    const std::int64_t enter = b.now(r) + b.jitter(300);
    const std::int64_t exit = std::max(enter, ready + kLatency) + b.jitter(100);
    auto order = posted[r];
    if (b.chance(50)) std::swap(order[0], order[1]);
    for (std::size_t i = 0; i < order.size(); ++i) {
      auto& rec = b.add(r, TraceRole::completion, i == 0 ? enter : exit, exit, order[i].from, 7);
      rec.sequence = order[i].serial;
      rec.extra = i == 0 ? 0 : 1;
      b.now(r) = exit;
    }
    b.now(r) = exit + 10;
  }
}

// One collective instance among `members` (world ranks in communicator order).
inline void collective(TraceBuilder& b, const std::vector<std::uint32_t>& members,
                       std::uint32_t comm, std::uint32_t instance, CollectiveKind kind,
                       bool nonblocking) {
  const std::size_t n = members.size();
  const std::uint32_t root =
      members[static_cast<std::size_t>(b.jitter(static_cast<std::int64_t>(n)))];
  std::vector<std::int64_t> enter(n);
  for (std::size_t i = 0; i < n; ++i) enter[i] = b.now(members[i]) + b.jitter(2000);
  std::int64_t all = 0, root_enter = 0;
  for (std::size_t i = 0; i < n; ++i) {
    all = std::max(all, enter[i]);
    if (members[i] == root) root_enter = enter[i];
  }
  std::int64_t prefix = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t r = members[i];
    std::int64_t ready = enter[i];
    switch (kind) {
      case CollectiveKind::n_to_n:
        ready = all + kLatency;
        break;
      case CollectiveKind::one_to_n:
        ready = r == root ? enter[i] : root_enter + kLatency;
        break;
      case CollectiveKind::n_to_one:
        ready = r == root ? all + kLatency : enter[i];
        break;
      case CollectiveKind::scan:
        prefix = std::max(prefix, enter[i]);
        ready = prefix + kLatency;
        break;
      case CollectiveKind::exscan:
        ready = i == 0 ? enter[i] : prefix + kLatency;
        prefix = std::max(prefix, enter[i]);
        break;
      case CollectiveKind::none:
        break;
    }
    const std::int64_t exit = std::max(enter[i], ready) + b.jitter(300);
    const bool scan = kind == CollectiveKind::scan || kind == CollectiveKind::exscan;
    auto set = [&](TraceRecord& rec) {
      rec.comm = comm;
      rec.sequence = instance;
      rec.collective_kind = static_cast<std::uint8_t>(kind);
      rec.root = scan ? static_cast<std::int32_t>(i) : static_cast<std::int32_t>(root);
    };
    if (!nonblocking) {
      auto& rec = b.add(r, TraceRole::collective, enter[i], exit);
      set(rec);
      if (kind == CollectiveKind::n_to_n && instance % 2 == 1) rec.function = 1;  // a Barrier
      continue;
    }
    set(b.add(r, TraceRole::icollective, enter[i], enter[i] + 100));
    b.add(r, TraceRole::other, b.now(r), b.now(r) + 200);  // work between start and wait
    set(b.add(r, TraceRole::completion, std::min(b.now(r), exit), exit));
  }
}

inline model::Trace generated(std::uint32_t ranks, std::uint64_t seed, int iterations) {
  TraceBuilder b(ranks, seed);
  std::vector<std::uint32_t> world, even;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    world.push_back(r);
    if (r % 2 == 0) even.push_back(r);
  }
  // A communicator whose ranks run against the world's (a scan's order is then not
  // the world rank's).
  const std::vector<std::uint32_t> reversed(world.rbegin(), world.rend());
  std::uint32_t world_instance = 0, even_instance = 0, reversed_instance = 0;
  const CollectiveKind kinds[] = {CollectiveKind::n_to_n, CollectiveKind::one_to_n,
                                  CollectiveKind::n_to_one, CollectiveKind::scan,
                                  CollectiveKind::exscan};
  for (int it = 0; it < iterations; ++it) {
    ring_blocking(b, 1);
    if (ranks > 2) ring_blocking(b, 2);
    halo_nonblocking(b);
    synchronous_ring(b);
    sendrecv_ring(b);
    collective(b, world, 0, world_instance++, kinds[it % 5], b.chance(20));
    if (even.size() >= 2 && it % 2 == 0) {
      collective(b, even, 7, even_instance++, kinds[(it / 2) % 5], false);
    }
    if (ranks >= 3 && it % 3 == 1) {
      collective(b, reversed, 9, reversed_instance++, kinds[(it / 3) % 5], false);
    }
    if (b.chance(10)) {  // a receive posted and cancelled
      const std::uint32_t r = 1 % ranks, serial = b.serial();
      b.add(r, TraceRole::irecv, b.now(r), b.now(r) + 20, 0, 11).sequence = serial;
      b.add(r, TraceRole::cancelled, b.now(r), b.now(r) + 20).sequence = serial;
    }
    if (b.chance(10)) b.add(0, TraceRole::send, b.now(0), b.now(0) + 30, 1, 99);  // never received
  }
  return b.finish();
}

}  // namespace mpidle::test
