// The trace replayed by SimGrid's s4u actors, one per rank (docs/prediction.md,
// "The engine"). Every call keeps its recorded order; compute bursts execute at the
// host's speed; messages are SimGrid communications: eager ones start at their send
// on a mailbox whose receiver is known in advance (SMPI's small messages), rendezvous
// ones once both sides posted them; collectives end the target's measured cost
// after the members they depend on entered.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "collective_cost.hpp"
#include "nanoseconds.hpp"
#include "prediction_tally.hpp"
#include "simgrid_platform.hpp"
#include "simgrid_prediction.hpp"
#include "trace_links.hpp"

namespace mpidle::analysis {
namespace {

namespace sg4 = simgrid::s4u;
using model::TraceRecord;
using model::TraceRole;

constexpr std::uint64_t kNone = TraceLinks::kNone;

// What a communication carries: nothing; SimGrid needs an address.
int g_payload = 0;

class Simulation {
 public:
  Simulation(const model::Trace& trace, const sync::TraceMatching& matching,
             const PredictionInput& input)
      : m_trace(trace),
        m_matching(matching),
        m_in(input),
        m_links(link_trace(trace, matching)),
        m_tally(trace) {
    for (const auto& r : trace.ranks) {
      if (r.synced.size() != 2 * r.records.size()) {
        throw model::TraceError("the trace has no synchronized timestamps (run mpidle sync first)");
      }
      m_events += r.records.size();
    }
    for (const auto& f : trace.functions) {
      const std::string name = model::collective_model_for(f);
      auto it = m_in.machine.collectives.find(name);
      m_collective_model.push_back(
          name.empty() || it == m_in.machine.collectives.end() ? nullptr : &it->second);
    }
    m_instances.resize(matching.collectives.size());
    m_posted_at.assign(matching.messages.size(), -1);
    m_two_way = two_way_exchanges(trace, matching);
    m_put_at.assign(matching.messages.size(), -1);
  }

  Prediction run() {
    std::vector<std::string> args = {"mpidle-predict", "--log=root.thresh:critical",
                                     "--log=root.app:stderr", "--cfg=network/model:CM02",
                                     // The probe's one-way times hold their acknowledgements;
                                     // SimGrid's would add 5% of the rate the other way.
                                     "--cfg=network/crosstraffic:0",
                                     "--cfg=contexts/stack-size:256"};
#ifdef MPIDLE_SIMGRID_THREADS
    args.back() = "--cfg=contexts/factory:thread";  // and the default stacks
#endif
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    int argc = static_cast<int>(argv.size());
    sg4::Engine engine(&argc, argv.data());
    const std::size_t n = m_trace.ranks.size();
    m_platform = build_platform(m_in.machine, m_in.hosts, n, m_in.cpu_scale);
    m_start = std::numeric_limits<std::int64_t>::max();
    for (const auto& r : m_trace.ranks) {
      if (!r.records.empty()) m_start = std::min(m_start, r.synced[0]);
    }
    if (m_start == std::numeric_limits<std::int64_t>::max()) m_start = 0;
    m_end.assign(n, m_start);
    m_finished.assign(n, 0);
    m_ranks.resize(n);
    for (std::uint32_t r = 0; r < n; ++r) {
      m_actors.push_back(sg4::Actor::create("rank-" + std::to_string(r), m_platform.hosts[r],
                                            [this, r] { replay_rank(r); }));
    }
    engine.run();
    for (std::uint32_t r = 0; r < n; ++r) {
      if (!m_finished[r]) {
        throw EngineError("the replay on SimGrid blocked: rank " +
                          std::to_string(m_trace.ranks[r].rank) +
                          " waits for a message or collective no rank sends (an inconsistent "
                          "trace)");
      }
    }
    for (auto& [key, box] : m_mailboxes) box->set_receiver(nullptr);
    // SimGrid's objects go before its engine does.
    m_ranks.clear();
    m_instances.clear();
    m_post_waiters.clear();
    m_exchanges.clear();
    m_actors.clear();
    Prediction p = m_tally.finish(m_start, m_end, m_in, m_events, 0);
    p.engine = "simgrid " + simgrid_version();
    return p;
  }

 private:
  struct Instance {
    std::vector<std::int64_t> enters;
    CollectiveCost cost;
    bool costed = false;
    // Members blocked until another enters. Semaphores, not suspended actors: a
    // suspended actor's transfers in flight would stop too.
    std::vector<sg4::SemaphorePtr> waiting;
  };
  // A rank's open communications, by message.
  struct RankComms {
    std::unordered_map<std::uint64_t, sg4::CommPtr> sends, receives;
    // Sends that returned before their data arrived (the target's blocking_send):
    // their transfers go on, and end before the rank does.
    std::vector<sg4::CommPtr> behind;
    // Rendezvous transfers that move only while both sides are in MPI: posted at
    // the rank's next call that waits or polls (message, whether it sends it).
    std::vector<std::pair<std::uint64_t, bool>> held;
  };
  // The model's part of a call so far.
  struct Work {
    std::int64_t ns = 0, latency_ns = 0;
    void at_least(std::int64_t total, std::int64_t latency) {
      if (total > ns) {
        ns = total;
        latency_ns = std::min(latency, total);
      }
    }
  };

  std::int64_t now_ns() const {
    return m_start + to_ns(sg4::Engine::get_clock());
  }
  void sleep_until_ns(std::int64_t t) const {
    const double at = static_cast<double>(t - m_start) * 1e-9;
    if (at > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(at);
  }

  bool apart(std::uint32_t from, std::uint32_t to) const {
    return m_platform.node_of[from] != m_platform.node_of[to];
  }
  const model::MessageCosts* costs(std::uint32_t from, std::uint32_t to) const {
    return model::message_costs(m_in.machine, apart(from, to));
  }
  const model::CostCurve& curve(std::uint32_t from, std::uint32_t to) const {
    return model::one_way_curve(m_in.machine, apart(from, to));
  }

  struct Protocol {
    bool rendezvous = false;
    bool held = false;  // moves only while both sides are in MPI
    std::int64_t send_overhead_ns = 0, receive_overhead_ns = 0;
  };
  Protocol protocol(std::uint64_t m) const {
    const auto& msg = m_matching.messages[m];
    const TraceRecord& send = m_trace.ranks[msg.send.rank].records[msg.send.record];
    const std::uint64_t bytes = m_links.bytes[m];
    const bool synchronous = (send.flags & model::kTraceSynchronous) != 0;
    Protocol p;
    const model::MessageCosts* c = costs(msg.send.rank, msg.receive.rank);
    if (!c) {
      p.rendezvous = synchronous || bytes > m_in.machine.eager_limit_bytes;
      return p;
    }
    const model::ProtocolSegment& segment = c->protocol_for(bytes);
    p.rendezvous = segment.rendezvous || synchronous;
    p.held = p.rendezvous && !segment.progresses && m_links.blocking_ends[m] != 0;
    p.send_overhead_ns = to_ns(c->send_overhead.at(bytes));
    p.receive_overhead_ns = to_ns(c->receive_overhead.at(bytes));
    return p;
  }

  // One mailbox per channel (sender, receiver, communicator, tag) and protocol: MPI
  // keeps a channel's messages in order, and the trace's matching names the channel of
  // every message, wildcard receives included.
  sg4::Mailbox* mailbox(std::uint64_t m, bool eager) {
    const auto& msg = m_matching.messages[m];
    const TraceRecord& send = m_trace.ranks[msg.send.rank].records[msg.send.record];
    const auto key =
        std::make_tuple(static_cast<std::uint32_t>(msg.send.rank),
                        static_cast<std::uint32_t>(msg.receive.rank), send.comm, send.tag, eager);
    auto it = m_mailboxes.find(key);
    if (it != m_mailboxes.end()) return it->second;
    sg4::Mailbox* box = sg4::Mailbox::by_name(
        "m" + std::to_string(msg.send.rank) + "-" + std::to_string(msg.receive.rank) + "-" +
        std::to_string(send.comm) + "-" + std::to_string(send.tag) + (eager ? "e" : "r"));
    // Eager data leaves at once, before its receive is posted (SMPI's small messages).
    if (eager) box->set_receiver(m_actors[msg.receive.rank]);
    m_mailboxes.emplace(key, box);
    return box;
  }

  void post_send(std::uint32_t r, std::uint64_t m) {
    const Protocol p = protocol(m);
    auto* box = mailbox(m, !p.rendezvous);
    // At least a byte: SimGrid completes an empty message to a known receiver at once,
    // without its latency.
    const std::uint64_t bytes = std::max<std::uint64_t>(1, m_links.bytes[m]);
    m_put_at[m] = sg4::Engine::get_clock();
    if (p.rendezvous) {
      m_ranks[r].sends[m] = box->put_async(&g_payload, bytes);
    } else {
      box->put_init(&g_payload, bytes)->detach();
    }
  }
  void post_receive(std::uint32_t r, std::uint64_t m) {
    const Protocol p = protocol(m);
    void* data = nullptr;
    m_ranks[r].receives[m] = mailbox(m, !p.rendezvous)->get_async(&data);
    m_posted_at[m] = sg4::Engine::get_clock();
    auto waiter = m_post_waiters.find(m);
    if (waiter != m_post_waiters.end()) {
      waiter->second->release();
      m_post_waiters.erase(waiter);
    }
  }

  // The target's blocking send curve for message m, if its model measured one.
  const model::CostCurve* blocking_send(std::uint64_t m) const {
    const auto& msg = m_matching.messages[m];
    const model::MessageCosts* c = costs(msg.send.rank, msg.receive.rank);
    return c && c->blocking_send ? &*c->blocking_send : nullptr;
  }

  // A rendezvous send (blocking, or the Wait of an Isend) ends its target's
  // blocking-send time after its transfer could start (the send posted and the
  // receive too), or with the transfer where that is sooner; a transfer still
  // moving then goes on behind the rank.
  void complete_send(std::uint32_t r, std::uint64_t m, const sg4::CommPtr& comm, Work& work) {
    const model::CostCurve* curve = blocking_send(m);
    if (!curve) {
      comm->wait();
      const Work w = transfer_work(m, comm);
      work.at_least(w.ns, w.latency_ns);
      return;
    }
    while (m_posted_at[m] < 0) {
      auto blocked = sg4::Semaphore::create(0);
      m_post_waiters[m] = blocked;
      blocked->acquire();
    }
    const std::uint64_t bytes = m_links.bytes[m];
    const double returns = std::max(m_put_at[m], m_posted_at[m]) + curve->at(bytes);
    if (returns > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(returns);
    if (comm->get_state() == sg4::Activity::State::FINISHED) {
      const Work w = transfer_work(m, comm);
      work.at_least(std::min(w.ns, to_ns(curve->at(bytes))), w.latency_ns);
    } else {
      m_ranks[r].behind.push_back(comm);
      work.at_least(to_ns(curve->at(bytes)), to_ns(curve->at(0)));
    }
  }
  // A held transfer's side posts at its next call inside MPI that waits or polls.
  void post_held(std::uint32_t r) {
    for (const auto& [m, sends] : std::exchange(m_ranks[r].held, {})) {
      sends ? post_send(r, m) : post_receive(r, m);
    }
  }

  // How long the transfer of communication `c` took on the simulated links (its
  // turn behind others and its share of a link are bandwidth), at least its model
  // time alone.
  Work transfer_work(std::uint64_t m, const sg4::CommPtr& c) const {
    const auto& msg = m_matching.messages[m];
    const model::CostCurve& k = curve(msg.send.rank, msg.receive.rank);
    Work w;
    w.at_least(to_ns(k.at(m_links.bytes[m])), to_ns(k.latency_s()));
    const double start = c->get_start_time(), finish = c->get_finish_time();
    if (start >= 0 && finish >= start) w.at_least(to_ns(finish - start), w.latency_ns);
    return w;
  }

  Instance& instance(std::uint64_t c) {
    Instance& inst = m_instances[c];
    if (!inst.costed) {
      const auto& match = m_matching.collectives[c];
      const auto& first = match.members[0].enter;
      const TraceRecord& rec = m_trace.ranks[first.rank].records[first.record];
      inst.cost = collective_cost(m_trace, match, m_collective_model[rec.function]);
      inst.enters.assign(match.members.size(), kUnknownTime);
      inst.costed = true;
    }
    return inst;
  }
  void enter_collective(std::uint64_t c, std::uint32_t k, std::int64_t at) {
    Instance& inst = instance(c);
    if (inst.enters[k] != kUnknownTime) return;
    inst.enters[k] = at;
    for (auto& blocked : std::exchange(inst.waiting, {})) blocked->release();
  }
  // Blocks until member k's exit is known, then until that time.
  void leave_collective(std::uint64_t c, std::uint32_t k, Work& work) {
    Instance& inst = instance(c);
    const auto& match = m_matching.collectives[c];
    std::optional<std::int64_t> exit;
    while (!(exit = collective_exit(match, k, inst.enters, inst.cost.ns))) {
      inst.waiting.push_back(sg4::Semaphore::create(0));
      auto blocked = inst.waiting.back();
      blocked->acquire();
    }
    sleep_until_ns(*exit);
    work.at_least(inst.cost.ns, inst.cost.latency_ns);
  }

  void replay_rank(std::uint32_t r) {
    const auto& rank = m_trace.ranks[r];
    const auto& records = rank.records;
    std::int64_t measured_exit = 0;
    bool first_call = true;
    for (std::uint64_t first = 0; first < records.size();) {
      std::uint64_t end = first + 1;
      while (end < records.size() && records[end].extra != 0) ++end;
      const TraceRecord& main = records[first];
      const std::int64_t measured_enter = rank.synced[2 * first];
      std::int64_t burst = 0;
      if (first_call) {
        sleep_until_ns(measured_enter);
      } else {
        burst = std::llround(
            static_cast<double>(std::max<std::int64_t>(0, measured_enter - measured_exit)) *
            m_in.cpu_scale);
        if (burst > 0) sg4::this_actor::execute(static_cast<double>(burst) / m_in.cpu_scale);
      }
      first_call = false;
      const std::int64_t enter = now_ns();
      const bool modelled = replay_call(r, first, end, enter, burst);
      if (!modelled) {
        sleep_until_ns(enter + (rank.synced[2 * first + 1] - measured_enter));
        m_tally.call(r, main, burst, enter, now_ns(), 0, 0, true);
      }
      measured_exit = rank.synced[2 * first + 1];
      first = end;
    }
    m_end[r] = now_ns();
    // Its transfers still moving end before the rank does: SimGrid cancels the
    // communications of an actor that ends.
    for (auto& comm : std::exchange(m_ranks[r].behind, {})) comm->wait();
    m_finished[r] = 1;
  }

  // Replays the call of records [first, end) of rank r; false if the model covers
  // none of it (a local call: it keeps its measured time).
  // The target's measured exchange both ways for message m, if m is one direction of
  // an MPI_Sendrecv exchange between two ranks (two_way_exchanges) and the exchange
  // took less than one way: both directions' copies overlapping in memory, which no
  // flows on links show. Where it took more, the links' sharing decides: the probe's
  // back-to-back exchanges measure queues that programs with work between their
  // exchanges do not meet (Open MPI's TCP at 200 Mbit/s: 1.5 times one way, where
  // MPB's transposes and a ring of Sendrecvs ran at one way per direction).
  const model::CostCurve* exchange_curve(std::uint64_t m) const {
    if (!m_two_way[m]) return nullptr;
    const auto& msg = m_matching.messages[m];
    const model::MessageCosts* c = costs(msg.send.rank, msg.receive.rank);
    if (!c || !c->exchange) return nullptr;
    const std::uint64_t bytes = m_links.bytes[m];
    return c->exchange->at(bytes) < curve(msg.send.rank, msg.receive.rank).at(bytes) ? &*c->exchange
                                                                                     : nullptr;
  }

  // Such an exchange ends the target's measured exchange for its bytes after the
  // later of the two ranks entered, as mpidle's replay has it (a 256 KiB ring over
  // shared memory, MPICH: 1.29 times the runs with one-way transfers, 0.92 with the
  // exchange, its runs 1.7 apart).
  void replay_exchange(std::uint32_t r, const TraceRecord& main, std::uint64_t received,
                       std::uint64_t sent, std::int64_t enter, std::int64_t burst) {
    const model::CostCurve& curve = *exchange_curve(received);
    const std::uint64_t key = std::min(received, sent);
    const int side = received < sent ? 0 : 1;
    Exchange& x = m_exchanges[key];
    x.enters[side] = enter;
    if (x.enters[1 - side] == kUnknownTime) {
      x.waiting = sg4::Semaphore::create(0);
      auto blocked = x.waiting;
      blocked->acquire();
    } else if (x.waiting) {
      x.waiting->release();
    }
    const std::int64_t later = std::max(x.enters[0], x.enters[1]);
    if (++x.left == 2) m_exchanges.erase(key);
    const std::int64_t cost = to_ns(curve.at(m_links.bytes[received]));
    sleep_until_ns(later + cost);
    m_tally.call(r, main, burst, enter, now_ns(), cost, to_ns(curve.latency_s()), false);
  }

  bool replay_call(std::uint32_t r, std::uint64_t first, std::uint64_t end, std::int64_t enter,
                   std::int64_t burst) {
    const auto& records = m_trace.ranks[r].records;
    {
      const std::uint64_t received = m_links.as_receive[r][first];
      const std::uint64_t sent = m_links.as_send[r][first];
      if (records[first].role == TraceRole::recv && received != kNone && sent != kNone &&
          m_two_way[sent] && exchange_curve(received)) {
        replay_exchange(r, records[first], received, sent, enter, burst);
        return true;
      }
    }
    RankComms& mine = m_ranks[r];
    bool modelled = false;
    bool progresses = false;  // a call that waits or polls: MPI moves held transfers
    for (std::uint64_t i = first; i < end; ++i) {
      const TraceRole role = records[i].role;
      progresses = progresses || role == TraceRole::send || role == TraceRole::recv ||
                   role == TraceRole::completion || role == TraceRole::collective;
    }
    if (progresses) post_held(r);
    Work work;
    std::int64_t own_cpu = 0;  // the overheads this call pays its CPU at least
    std::vector<std::pair<std::uint64_t, sg4::CommPtr>> waits;  // (message, communication)
    std::vector<std::pair<std::uint64_t, sg4::CommPtr>> sends;  // rendezvous sends it completes
    std::vector<std::pair<std::uint64_t, std::uint32_t>> collectives;
    for (std::uint64_t i = first; i < end; ++i) {
      const TraceRecord& rec = records[i];
      const std::uint64_t m_recv = m_links.as_receive[r][i];
      const std::uint64_t m_send = m_links.as_send[r][i];
      if (m_recv != kNone && (rec.role == TraceRole::recv || rec.role == TraceRole::irecv)) {
        const Protocol p = protocol(m_recv);
        if (p.held && rec.role == TraceRole::irecv) {
          mine.held.push_back({m_recv, false});
        } else {
          post_receive(r, m_recv);
        }
        modelled = true;
      }
      const bool starts_send =
          m_send != kNone && (rec.role == TraceRole::send || rec.role == TraceRole::isend ||
                              (i == first && rec.role == TraceRole::recv));
      if (starts_send) {
        const Protocol p = protocol(m_send);
        if (p.held && rec.role == TraceRole::isend) {
          mine.held.push_back({m_send, true});
        } else {
          post_send(r, m_send);
        }
        if (!p.rendezvous || rec.role == TraceRole::isend) {
          own_cpu = std::max(own_cpu, p.send_overhead_ns);
          work.at_least(p.send_overhead_ns, p.send_overhead_ns);
        }
        if (p.rendezvous && rec.role != TraceRole::isend) {
          sends.push_back({m_send, mine.sends.at(m_send)});
          mine.sends.erase(m_send);
        }
        modelled = true;
      }
      if (m_recv != kNone && (rec.role == TraceRole::recv || rec.role == TraceRole::completion)) {
        auto it = mine.receives.find(m_recv);
        if (it == mine.receives.end()) {  // held, or an Irecv the trace lost
          post_receive(r, m_recv);
          it = mine.receives.find(m_recv);
        }
        waits.push_back({m_recv, it->second});
        mine.receives.erase(it);
        own_cpu = std::max(own_cpu, protocol(m_recv).receive_overhead_ns);
        modelled = true;
      }
      if (m_send != kNone && rec.role == TraceRole::completion) {
        auto it = mine.sends.find(m_send);
        if (it == mine.sends.end() && protocol(m_send).rendezvous) {
          post_send(r, m_send);  // held until now
          it = mine.sends.find(m_send);
        }
        if (it != mine.sends.end()) {
          sends.push_back({m_send, it->second});
          mine.sends.erase(it);
        }
        modelled = true;
      }
      const bool collective = rec.role == TraceRole::collective ||
                              rec.role == TraceRole::icollective ||
                              (rec.role == TraceRole::completion && rec.collective_kind != 0);
      const std::uint64_t c = collective ? m_links.instance_of(r, i) : kNone;
      if (c != kNone) {
        const std::uint32_t k = m_links.member[r].at(i);
        if (rec.role != TraceRole::completion) enter_collective(c, k, enter);
        if (rec.role != TraceRole::icollective) collectives.push_back({c, k});
        modelled = true;
      }
    }
    for (auto& [m, comm] : waits) {
      comm->wait();
      const Work w = transfer_work(m, comm);
      work.at_least(w.ns, w.latency_ns);
    }
    for (auto& [m, comm] : sends) complete_send(r, m, comm, work);
    for (const auto& [c, k] : collectives) leave_collective(c, k, work);
    sleep_until_ns(enter + own_cpu);
    if (modelled) {
      m_tally.call(r, records[first], burst, enter, now_ns(), work.ns, work.latency_ns, false);
    }
    return modelled;
  }

  const model::Trace& m_trace;
  const sync::TraceMatching& m_matching;
  const PredictionInput& m_in;
  const TraceLinks m_links;
  PredictionTally m_tally;
  std::vector<const model::CollectiveModel*> m_collective_model;  // per function
  std::uint64_t m_events = 0;
  Platform m_platform;
  std::int64_t m_start = 0;
  std::vector<std::int64_t> m_end;
  std::vector<std::uint8_t> m_finished;
  std::vector<RankComms> m_ranks;
  std::vector<Instance> m_instances;
  std::vector<std::uint8_t> m_two_way;  // per message: one direction of an exchange both ways
  // Exchanges both ways in progress, by the smaller of their two messages.
  struct Exchange {
    std::int64_t enters[2] = {kUnknownTime, kUnknownTime};
    sg4::SemaphorePtr waiting;  // the side that entered first
    int left = 0;
  };
  std::unordered_map<std::uint64_t, Exchange> m_exchanges;
  // Per message: when its receive and its send were posted (simulated seconds, -1
  // not yet), and the sender waiting for the receive's post.
  std::vector<double> m_posted_at, m_put_at;
  std::unordered_map<std::uint64_t, sg4::SemaphorePtr> m_post_waiters;
  std::vector<sg4::ActorPtr> m_actors;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::int32_t, bool>,
           sg4::Mailbox*>
      m_mailboxes;
};

}  // namespace

Prediction simulate_on_simgrid(const model::Trace& trace, const sync::TraceMatching& matching,
                               const PredictionInput& input) {
  return Simulation(trace, matching, input).run();
}

}  // namespace mpidle::analysis
