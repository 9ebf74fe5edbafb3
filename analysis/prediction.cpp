#include "prediction.hpp"

#include "collective_cost.hpp"
#include "model/function_catalog.hpp"
#include "model/huge_page_allocator.hpp"
#include "nanoseconds.hpp"
#include "prediction_tally.hpp"
#include "trace_links.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <utility>

namespace mpidle::analysis {
namespace {

using model::CollectiveKind;
using model::TraceRecord;
using model::TraceRole;

constexpr std::int64_t kNotYetPredicted = kUnknownTime;
constexpr std::uint64_t kNone = TraceLinks::kNone;

struct Instance {
  std::int64_t cost_ns = -1;         // the model's cost (−1: not yet known)
  std::int64_t latency_ns = 0;       // the 0-byte part of it
  std::vector<std::int64_t> enters;  // by member position
  std::vector<std::int64_t> exits;
  std::uint32_t entered = 0;
  std::vector<std::uint32_t> waiting;  // ranks (positions) parked on it
};

// The cost of a call's own work on the target, and how much of it is latency.
struct Cost {
  std::int64_t ns = 0;
  std::int64_t latency_ns = 0;
};

class Replay {
 public:
  Replay(const model::Trace& trace, const sync::TraceMatching& matching,
         const PredictionInput& input, const PredictionProgress& progress)
      : m_trace(trace),
        m_matching(matching),
        m_in(input),
        m_progress(progress),
        m_links(link_trace(trace, matching)),
        m_as_send(m_links.as_send),
        m_as_receive(m_links.as_receive),
        m_bytes(m_links.bytes),
        m_blocking_ends(m_links.blocking_ends),
        m_tally(trace) {
    for (const auto& r : trace.ranks) {
      if (r.synced.size() != 2 * r.records.size()) {
        throw model::TraceError("the trace has no synchronized timestamps (run mpidle sync first)");
      }
      m_total_records += r.records.size();
    }
    classify_functions();
    link();
  }

  Prediction run() {
    const std::size_t n = m_trace.ranks.size();
    m_state.assign(n, {});
    std::int64_t start = std::numeric_limits<std::int64_t>::max();
    for (std::size_t r = 0; r < n; ++r) {
      if (m_trace.ranks[r].records.empty()) continue;
      start = std::min(start, m_trace.ranks[r].synced[0]);
      m_ready.push_back(static_cast<std::uint32_t>(r));
    }
    for (;;) {
      while (!m_ready.empty()) {
        const std::uint32_t r = m_ready.back();
        m_ready.pop_back();
        advance(r, false);
      }
      // Everything left waits on something: a cycle in an inconsistent trace. Let
      // the blocked rank that entered earliest go on without what it waits for.
      std::uint32_t earliest = 0;
      std::int64_t earliest_enter = std::numeric_limits<std::int64_t>::max();
      for (std::uint32_t r = 0; r < n; ++r) {
        const auto& s = m_state[r];
        if (s.next < m_trace.ranks[r].records.size() && s.enter < earliest_enter) {
          earliest_enter = s.enter;
          earliest = r;
        }
      }
      if (earliest_enter == std::numeric_limits<std::int64_t>::max()) break;
      ++m_out_unresolved;
      advance(earliest, true);
    }
    return finish(start);
  }

 private:
  struct RankState {
    std::uint64_t next = 0;                 // the next call's main record
    std::int64_t clock = kNotYetPredicted;  // predicted exit of the previous call
    std::int64_t measured_exit = 0;         // its measured exit
    std::int64_t enter = kNotYetPredicted;  // predicted enter of the call in progress
    std::int64_t burst = 0;                 // the compute burst before it, predicted
    bool entered = false;                   // that call's enter is published
  };

  // The per-message state of the replay.
  void link() {
    const std::size_t n = m_trace.ranks.size();
    const auto& messages = m_matching.messages;
    m_send_enter.assign(messages.size(), kNotYetPredicted);
    m_posted.assign(messages.size(), kNotYetPredicted);
    m_moving.assign(messages.size(), kNotYetPredicted);
    m_out_link.assign(n, Link{});
    m_in_link.assign(n, Link{});
    m_send_done.assign(messages.size(), kNotYetPredicted);
    m_receive_done.assign(messages.size(), kNotYetPredicted);
    m_waiter.assign(messages.size(), -1);
    m_progress_pending.resize(n);
    m_two_way = two_way_exchanges(m_trace, m_matching);
    m_instances.resize(m_matching.collectives.size());
    for (std::uint64_t c = 0; c < m_matching.collectives.size(); ++c) {
      if (!m_matching.collectives[c].complete()) continue;
      m_instances[c].enters.assign(m_matching.collectives[c].members.size(), kNotYetPredicted);
    }
  }

  void classify_functions() {
    for (const auto& f : m_trace.functions) {
      const std::string name = model::collective_model_for(f);
      auto it = m_in.machine.collectives.find(name);
      m_collective_model.push_back(
          name.empty() || it == m_in.machine.collectives.end() ? nullptr : &it->second);
    }
  }

  // Whether ranks `from` and `to` ran on two nodes.
  bool apart(std::uint32_t from, std::uint32_t to) const {
    return !m_in.hosts.empty() && from < m_in.hosts.size() && to < m_in.hosts.size() &&
           m_in.hosts[from] != m_in.hosts[to];
  }
  const model::CostCurve& curve(std::uint32_t from, std::uint32_t to) const {
    return model::one_way_curve(m_in.machine, apart(from, to));
  }

  // A call that polls (MPI_Test*): MPI progresses there too, but the call returns.
  bool polls(const TraceRecord& rec) const { return m_links.polling[rec.function] != 0; }

  const model::MessageCosts* costs(std::uint32_t from, std::uint32_t to) const {
    return model::message_costs(m_in.machine, apart(from, to));
  }

  // How message m goes on the target: its protocol, and what each side's CPU pays.
  struct Protocol {
    bool rendezvous = false;
    bool progresses = true;  // moves while both sides are outside MPI
    bool overheads = false;  // the target's model has them (mpidle-machine/2)
    Cost send_overhead, receive_overhead;
    // A rendezvous transfer that waits for both sides to be in its completing calls.
    bool held() const { return rendezvous && !progresses; }
  };
  Protocol protocol(std::uint64_t m) const {
    const auto& msg = m_matching.messages[m];
    const TraceRecord& send = m_trace.ranks[msg.send.rank].records[msg.send.record];
    Protocol p;
    const model::MessageCosts* c = costs(msg.send.rank, msg.receive.rank);
    if (!c) {
      p.rendezvous = rendezvous(m, send);
      return p;
    }
    p.overheads = true;
    const std::uint64_t bytes = m_bytes[m];
    const model::ProtocolSegment& segment = c->protocol_for(bytes);
    p.rendezvous = segment.rendezvous || (send.flags & model::kTraceSynchronous) != 0;
    // Only a transfer both of whose ends block is held until both are inside MPI:
    // a polling loop enters MPI again and again, and the model has no record of when.
    p.progresses = segment.progresses || m_blocking_ends[m] == 0;
    p.send_overhead = {to_ns(c->send_overhead.at(bytes)), to_ns(c->send_overhead.at(0))};
    p.receive_overhead = {to_ns(c->receive_overhead.at(bytes)), to_ns(c->receive_overhead.at(0))};
    p.send_overhead.latency_ns = std::min(p.send_overhead.latency_ns, p.send_overhead.ns);
    p.receive_overhead.latency_ns = std::min(p.receive_overhead.latency_ns, p.receive_overhead.ns);
    return p;
  }

  // When message m's data starts to move: eager data from the send's start; a
  // rendezvous transfer once both sides are there (the receive posted, when known);
  // a held one once both are in the calls that complete it; a measured exchange both
  // ways once both ranks are in it. Every time it needs is known (the callers park
  // until then).
  std::int64_t transfer_start(std::uint64_t m, const Protocol& p) const {
    if (p.held()) return std::max(m_send_done[m], m_receive_done[m]);
    if ((p.rendezvous || exchange_curve(m)) && m_posted[m] != kNotYetPredicted)
      return std::max(m_send_enter[m], m_posted[m]);
    return m_send_enter[m];
  }

  // When message m's data moves on the links: from transfer_start, in the first
  // time after it when the sender's outgoing link and the receiver's incoming one
  // are both free for its bandwidth part (one link each way per rank, as Dimemas's
  // default node; the latency overlaps). Messages take the links in the order the
  // replay reaches them, which is not quite time order: a message placed later may
  // still take a gap before one placed earlier. Fixed at its first use, so that both
  // ends see one time.
  //
  // Returns the transfer's cost with the time it queued for the links, which is
  // bandwidth too: the links carry other data meanwhile.
  Cost on_links(std::uint64_t m, const Protocol& p, const Cost& t) {
    const std::int64_t ready = transfer_start(m, p);
    if (m_moving[m] == kNotYetPredicted) m_moving[m] = place_on_links(m, ready, t);
    return {t.ns + std::max<std::int64_t>(0, m_moving[m] - ready), t.latency_ns};
  }
  std::int64_t place_on_links(std::uint64_t m, std::int64_t start, const Cost& t) {
    const auto& msg = m_matching.messages[m];
    const std::int64_t busy = t.ns - t.latency_ns;
    if (msg.send.rank == msg.receive.rank || busy <= 0) return start;
    Link& out = m_out_link[msg.send.rank];
    Link& in = m_in_link[msg.receive.rank];
    for (bool moved = true; moved;) {
      moved = false;
      for (Link* link : {&out, &in}) {
        const std::int64_t free = link->free_from(start, busy);
        moved = moved || free != start;
        start = free;
      }
    }
    out.take(start, busy);
    in.take(start, busy);
    return start;
  }

  // The target's measured exchange both ways for message m, if m is part of one.
  const model::CostCurve* exchange_curve(std::uint64_t m) const {
    if (!m_two_way[m]) return nullptr;
    const auto& msg = m_matching.messages[m];
    const model::MessageCosts* c = costs(msg.send.rank, msg.receive.rank);
    return c && c->exchange ? &*c->exchange : nullptr;
  }

  Cost transfer(std::uint64_t m) const {
    const auto& msg = m_matching.messages[m];
    const model::CostCurve* exchange = exchange_curve(m);
    const auto& c = exchange ? *exchange : curve(msg.send.rank, msg.receive.rank);
    return {to_ns(c.at(m_bytes[m])), to_ns(c.latency_s())};
  }

  bool rendezvous(std::uint64_t m, const TraceRecord& send) const {
    return (send.flags & model::kTraceSynchronous) != 0 ||
           m_bytes[m] > m_in.machine.eager_limit_bytes;
  }

  std::int64_t synced_enter(std::uint32_t r, std::uint64_t i) const {
    return m_trace.ranks[r].synced[2 * i];
  }
  std::int64_t synced_exit(std::uint32_t r, std::uint64_t i) const {
    return m_trace.ranks[r].synced[2 * i + 1];
  }

  void wake(std::int32_t rank) {
    if (rank >= 0) m_ready.push_back(static_cast<std::uint32_t>(rank));
  }

  // A member entered instance `c`; the last one to enter fixes every member's exit.
  void enter_instance(std::uint64_t c, std::uint32_t member, std::int64_t at) {
    Instance& inst = m_instances[c];
    if (inst.enters[member] != kNotYetPredicted) return;
    inst.enters[member] = at;
    if (++inst.entered < inst.enters.size()) return;
    const auto& match = m_matching.collectives[c];
    const auto& first = match.members[0].enter;
    const TraceRecord& rec = m_trace.ranks[first.rank].records[first.record];
    const CollectiveCost cost = collective_cost(m_trace, match, m_collective_model[rec.function]);
    inst.cost_ns = cost.ns;
    inst.latency_ns = cost.latency_ns;
    inst.exits.assign(inst.enters.size(), 0);
    for (std::size_t k = 0; k < inst.enters.size(); ++k) {
      inst.exits[k] = *collective_exit(match, k, inst.enters, cost.ns);
    }
    for (auto r : inst.waiting) wake(static_cast<std::int32_t>(r));
    inst.waiting.clear();
  }

  // Replays rank r's calls until one must wait for another rank. `force`: the
  // current call goes on without what it waits for (a cycle).
  // What one record of a call asks of the replay: nothing more (done), a message or
  // instance not predicted yet, so that the rank waits for it (parked), or, when
  // forced past that, nothing of this record (skipped).
  enum class Part { done, parked, skipped };
  // The call being predicted: its exit so far, the model's part of it, and whether
  // the model describes any of it.
  struct CallEnd {
    std::int64_t exit = 0;
    Cost work;
    bool modelled = false;
  };

  // A part that needs a message or instance not predicted yet: the rank parks on
  // it (`park`), or, forced, goes on without this record, once.
  template <typename Park>
  static Part not_yet(bool& force, Park park) {
    if (!force) {
      park();
      return Part::parked;
    }
    force = false;
    return Part::skipped;
  }

  // The compute burst before the call `first`, at the target's speed: where it enters.
  void enter_call(std::uint32_t r, std::uint64_t first, std::uint64_t end,
                  std::int64_t measured_enter) {
    RankState& s = m_state[r];
    s.burst = 0;
    if (s.clock == kNotYetPredicted) {
      s.enter = measured_enter;
    } else {
      s.burst = std::llround(
          static_cast<double>(std::max<std::int64_t>(0, measured_enter - s.measured_exit)) *
          m_in.cpu_scale);
      s.enter = s.clock + s.burst;
    }
    s.entered = true;
    for (std::uint64_t i = first; i < end; ++i) publish(r, i, s.enter);
  }

  // A record that completes a receive: the transfer it waits for.
  Part receive_part(std::uint32_t r, std::uint64_t i, bool& force, CallEnd& call) {
    const TraceRecord& rec = m_trace.ranks[r].records[i];
    const std::uint64_t m = m_as_receive[r][i];
    if (m == kNone || (rec.role != TraceRole::recv && rec.role != TraceRole::completion)) {
      return Part::done;
    }
    call.modelled = true;
    const Cost t = transfer(m);
    const Protocol p = protocol(m);
    if (m_send_enter[m] == kNotYetPredicted || (p.held() && m_send_done[m] == kNotYetPredicted)) {
      return not_yet(force, [&] { park(r, m); });
    }
    // The receive's own CPU cost is paid even when the data is already there.
    const Cost queued = on_links(m, p, t);
    call.exit = std::max({call.exit, m_moving[m] + t.ns, m_state[r].enter + p.receive_overhead.ns});
    if (queued.ns > call.work.ns) call.work = queued;
    return Part::done;
  }

  // A record that sends (or completes or starts a send): rendezvous waits for the
  // receiver, eager costs the target's send overhead.
  Part send_part(std::uint32_t r, std::uint64_t i, bool first_record, std::int64_t measured_call,
                 bool& force, CallEnd& call) {
    const TraceRecord& rec = m_trace.ranks[r].records[i];
    const std::uint64_t m = m_as_send[r][i];
    const std::int64_t enter = m_state[r].enter;
    if (m != kNone && (rec.role == TraceRole::send || rec.role == TraceRole::completion ||
                       (first_record && rec.role == TraceRole::recv))) {
      const Cost t = transfer(m);
      const Protocol p = protocol(m);
      call.modelled = true;
      if (p.rendezvous) {
        if (m_posted[m] == kNotYetPredicted ||
            (p.held() && m_receive_done[m] == kNotYetPredicted)) {
          return not_yet(force, [&] { park(r, m); });
        }
        const Cost queued = on_links(m, p, t);
        call.exit = std::max(call.exit, m_moving[m] + t.ns);
        if (queued.ns > call.work.ns) call.work = queued;
      } else if (rec.role != TraceRole::completion) {
        // Eager: the data is copied out, the receiver is not waited for. With the
        // target's overheads measured, the send costs its CPU that much; without,
        // the transfer's time, at most what the call took here.
        const std::int64_t own = p.overheads ? p.send_overhead.ns : std::min(t.ns, measured_call);
        call.exit = std::max(call.exit, enter + own);
        if (own > call.work.ns) call.work = {own, std::min(own, t.latency_ns)};
      }
    } else if (m != kNone && rec.role == TraceRole::isend) {
      // A non-blocking send's start costs its CPU the target's send overhead.
      const Protocol p = protocol(m);
      if (p.overheads) {
        call.modelled = true;
        call.exit = std::max(call.exit, enter + p.send_overhead.ns);
        if (p.send_overhead.ns > call.work.ns) call.work = p.send_overhead;
      }
    }
    return Part::done;
  }

  // A collective's record: the instance's exit for this member.
  Part collective_part(std::uint32_t r, std::uint64_t i, bool& force, CallEnd& call) {
    const TraceRecord& rec = m_trace.ranks[r].records[i];
    const bool collective = rec.role == TraceRole::collective ||
                            (rec.role == TraceRole::completion && rec.collective_kind != 0);
    const std::uint64_t c = collective ? instance_of(r, i) : kNone;
    if (c == kNone) return Part::done;
    call.modelled = true;
    Instance& inst = m_instances[c];
    if (inst.cost_ns < 0) {
      return not_yet(force, [&] { park_on_instance(r, c); });
    }
    call.exit = std::max(call.exit, inst.exits[m_links.member[r].at(i)]);
    if (inst.cost_ns > call.work.ns) call.work = {inst.cost_ns, inst.latency_ns};
    return Part::done;
  }

  // Predicts rank r's calls until one waits for something not predicted yet (the
  // rank is then parked on it), or, with `force`, past the first such wait.
  void advance(std::uint32_t r, bool force) {
    const auto& records = m_trace.ranks[r].records;
    RankState& s = m_state[r];
    while (s.next < records.size()) {
      const std::uint64_t first = s.next;
      std::uint64_t end = first + 1;
      while (end < records.size() && records[end].extra != 0) ++end;
      const std::int64_t measured_enter = synced_enter(r, first);
      const std::int64_t measured_exit = synced_exit(r, first);
      if (!s.entered) enter_call(r, first, end, measured_enter);
      // The call's end: its own work, and what it waits for.
      CallEnd call;
      call.exit = s.enter;
      for (std::uint64_t i = first; i < end; ++i) {
        Part part = receive_part(r, i, force, call);
        if (part == Part::done) {
          part = send_part(r, i, i == first, measured_exit - measured_enter, force, call);
        }
        if (part == Part::done) part = collective_part(r, i, force, call);
        if (part == Part::parked) return;
      }
      const bool local_call = !call.modelled;
      if (local_call) call.exit = s.enter + (measured_exit - measured_enter);
      m_tally.call(r, records[first], s.burst, s.enter, call.exit, call.work.ns,
                   call.work.latency_ns, local_call);
      s.clock = call.exit;
      s.measured_exit = measured_exit;
      s.entered = false;
      s.next = end;
      m_done += end - first;
      if (m_progress && m_done >= m_next_progress) {
        m_progress(static_cast<double>(m_done) / static_cast<double>(m_total_records));
        m_next_progress += 1'000'000;
      }
    }
  }

  std::uint64_t instance_of(std::uint32_t r, std::uint64_t i) const {
    return m_links.instance_of(r, i);
  }

  // What the call's enter makes known to other ranks.
  void publish(std::uint32_t r, std::uint64_t i, std::int64_t enter) {
    const TraceRecord& rec = m_trace.ranks[r].records[i];
    // A transfer that needs progress moves while both of its ranks are inside MPI,
    // in any call that waits or polls, not only the one that completes it: two ranks
    // that each post a receive, then send to each other (LAMMPS' halo exchange),
    // move both messages at once while both are in their sends.
    const bool progresses = rec.role == TraceRole::send || rec.role == TraceRole::recv ||
                            rec.role == TraceRole::completion || rec.role == TraceRole::collective;
    if (progresses) {
      for (const auto& [m, sender] : std::exchange(m_progress_pending[r], {})) {
        auto& done = sender ? m_send_done[m] : m_receive_done[m];
        if (done == kNotYetPredicted) {
          done = enter;
          wake(std::exchange(m_waiter[m], -1));
        }
      }
    }
    const std::uint64_t m_send = m_as_send[r][i];
    if (m_send != kNone && rec.role != TraceRole::completion &&
        m_send_enter[m_send] == kNotYetPredicted) {
      m_send_enter[m_send] = enter;
      wake(std::exchange(m_waiter[m_send], -1));
    }
    // The call that completes a send (a blocking send, or the Wait of an Isend).
    if (m_send != kNone && (rec.role == TraceRole::send || rec.role == TraceRole::completion) &&
        m_send_done[m_send] == kNotYetPredicted) {
      m_send_done[m_send] = enter;
      wake(std::exchange(m_waiter[m_send], -1));
    }
    const std::uint64_t m_recv = m_as_receive[r][i];
    if (m_recv != kNone && (rec.role == TraceRole::recv || rec.role == TraceRole::irecv) &&
        m_posted[m_recv] == kNotYetPredicted) {
      m_posted[m_recv] = enter;
      wake(std::exchange(m_waiter[m_recv], -1));
    }
    if (m_recv != kNone && rec.role == TraceRole::irecv) {
      m_progress_pending[r].push_back({m_recv, false});
    }
    if (m_send != kNone && rec.role == TraceRole::isend) {
      m_progress_pending[r].push_back({m_send, true});
    }
    if (m_recv != kNone && (rec.role == TraceRole::recv || rec.role == TraceRole::completion) &&
        m_receive_done[m_recv] == kNotYetPredicted) {
      m_receive_done[m_recv] = enter;
      wake(std::exchange(m_waiter[m_recv], -1));
    }
    if (rec.role == TraceRole::collective || rec.role == TraceRole::icollective) {
      const std::uint64_t c = instance_of(r, i);
      if (c != kNone) enter_instance(c, m_links.member[r].at(i), enter);
    }
  }

  void park(std::uint32_t r, std::uint64_t m) { m_waiter[m] = static_cast<std::int32_t>(r); }
  void park_on_instance(std::uint32_t r, std::uint64_t c) { m_instances[c].waiting.push_back(r); }

  Prediction finish(std::int64_t start) {
    std::vector<std::int64_t> ends;
    for (const auto& st : m_state) ends.push_back(st.clock);
    return m_tally.finish(start, ends, m_in, m_total_records, m_out_unresolved);
  }

  const model::Trace& m_trace;
  const sync::TraceMatching& m_matching;
  const PredictionInput& m_in;
  const PredictionProgress& m_progress;

  const TraceLinks m_links;
  const std::vector<model::HugeVector<std::uint64_t>>&m_as_send, &m_as_receive;
  const model::HugeVector<std::uint64_t>& m_bytes;         // what each message carried
  const model::HugeVector<std::uint8_t>& m_blocking_ends;  // both ends block
  model::HugeVector<std::int64_t> m_send_enter, m_posted;  // per message, predicted
  model::HugeVector<std::int64_t> m_moving;                // per message: on_links()
  // A rank's link in one direction: the latest times it is busy, in time order. Only
  // the last few are kept (bounded memory on millions of messages); before them the
  // link counts as free.
  struct Link {
    static constexpr std::size_t kKept = 16;
    std::array<std::pair<std::int64_t, std::int64_t>, kKept> busy{};  // [from, to)
    std::size_t size = 0;
    // The first time from `start` on when it is free for `length`.
    std::int64_t free_from(std::int64_t start, std::int64_t length) const {
      for (std::size_t i = 0; i < size; ++i) {
        if (start + length <= busy[i].first) break;
        if (start < busy[i].second) start = busy[i].second;
      }
      return start;
    }
    void take(std::int64_t from, std::int64_t length) {
      std::size_t at = size;
      while (at > 0 && busy[at - 1].first > from) --at;
      if (size == kKept) {  // forget the oldest
        if (at == 0) return;
        std::move(busy.begin() + 1, busy.begin() + static_cast<std::ptrdiff_t>(at), busy.begin());
        --at;
        --size;
      }
      std::move_backward(busy.begin() + static_cast<std::ptrdiff_t>(at),
                         busy.begin() + static_cast<std::ptrdiff_t>(size),
                         busy.begin() + static_cast<std::ptrdiff_t>(size + 1));
      busy[at] = {from, from + length};
      ++size;
    }
  };
  std::vector<Link> m_out_link, m_in_link;
  // Per message: the predicted enters of the calls that complete it on each side,
  // and whether both of those block (only then can a transfer be held there).
  model::HugeVector<std::int64_t> m_send_done, m_receive_done;
  std::vector<std::uint8_t> m_two_way;       // per message: part of an exchange both ways
  model::HugeVector<std::int32_t> m_waiter;  // per message: the rank parked on it
  // Per rank: non-blocking messages it started whose progress waits for its next call
  // inside MPI (message, whether this rank sends it).
  std::vector<std::vector<std::pair<std::uint64_t, bool>>> m_progress_pending;
  std::vector<Instance> m_instances;
  std::vector<const model::CollectiveModel*> m_collective_model;  // per function

  std::vector<RankState> m_state;
  std::vector<std::uint32_t> m_ready;
  PredictionTally m_tally;
  std::uint64_t m_total_records = 0, m_done = 0, m_next_progress = 1'000'000;
  std::uint64_t m_out_unresolved = 0;
};

}  // namespace

void TimeSplit::add(const TimeSplit& o) {
  compute_s += o.compute_s;
  latency_s += o.latency_s;
  bandwidth_s += o.bandwidth_s;
  wait_s += o.wait_s;
  other_s += o.other_s;
}

std::string Prediction::dominant() const {
  const std::pair<double, const char*> parts[] = {{total.compute_s, "compute"},
                                                  {total.latency_s, "latency"},
                                                  {total.bandwidth_s, "bandwidth"},
                                                  {total.wait_s, "waiting"},
                                                  {total.other_s, "other MPI"}};
  return std::max_element(std::begin(parts), std::end(parts))->second;
}

std::uint64_t message_bytes(const model::Trace& trace, const sync::MessageMatch& message) {
  const model::RankTrace& rank = trace.ranks[message.send.rank];
  const TraceRecord& rec = rank.records[message.send.record];
  if (rec.role == TraceRole::send || rec.role == TraceRole::isend) return rec.bytes;
  for (std::uint64_t i = message.send.record + 1;
       i < rank.records.size() && rank.records[i].extra != 0; ++i) {
    if (rank.records[i].role == TraceRole::send) return rank.records[i].bytes;
  }
  return rec.bytes;
}

std::vector<std::uint8_t> two_way_exchanges(const model::Trace& trace,
                                            const sync::TraceMatching& matching) {
  const auto& messages = matching.messages;
  std::vector<std::uint8_t> two_way(messages.size(), 0);
  auto key = [](const sync::RecordRef& ref) {
    return (std::uint64_t{ref.rank} << 40) | ref.record;
  };
  auto blocking_receive = [](const sync::MessageMatch& msg) {
    return msg.posted.rank == msg.receive.rank && msg.posted.record == msg.receive.record;
  };
  // Messages sent by a call that also receives (its record is the receive's): a Sendrecv.
  std::unordered_map<std::uint64_t, std::uint64_t> sent_from;
  for (std::uint64_t m = 0; m < messages.size(); ++m) {
    const auto& msg = messages[m];
    const auto& call = trace.ranks[msg.send.rank].records[msg.send.record];
    if (call.role == TraceRole::recv) sent_from.emplace(key(msg.send), m);
  }
  if (sent_from.empty()) return two_way;
  for (std::uint64_t m = 0; m < messages.size(); ++m) {
    const auto& msg = messages[m];
    if (!blocking_receive(msg)) continue;
    auto back = sent_from.find(key(msg.receive_call));
    if (back == sent_from.end()) continue;
    const auto& reply = messages[back->second];
    two_way[m] = blocking_receive(reply) && key(reply.receive_call) == key(msg.send) ? 1 : 0;
  }
  return two_way;
}

Prediction predict(const model::Trace& trace, const sync::TraceMatching& matching,
                   const PredictionInput& input, const PredictionProgress& progress) {
  return Replay(trace, matching, input, progress).run();
}

model::PopEfficiency with_ideal_network(const model::Trace& trace,
                                        const sync::TraceMatching& matching,
                                        model::PopEfficiency measured) {
  PredictionInput ideal;
  ideal.machine = model::ideal_network();
  const auto replayed = predict(trace, matching, ideal);
  const double transfer =
      replayed.measured_wall_s > 0 ? replayed.wall_s / replayed.measured_wall_s : 1.0;
  model::add_ideal_network(measured, transfer * measured.runtime_s);
  return measured;
}

model::PopEfficiency with_ideal_network(const model::Trace& trace, model::PopEfficiency measured) {
  return with_ideal_network(trace, sync::match_trace(trace), measured);
}

}  // namespace mpidle::analysis
