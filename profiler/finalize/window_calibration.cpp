#include "profiler/finalize/window_calibration.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>

#include "analysis/calibration_calls.hpp"
#include "analysis/rank_waits.hpp"
#include "analysis/wait_states_codec.hpp"
#include "model/byte_stream.hpp"
#include "model/function_catalog.hpp"
#include "profiler/core/log.hpp"
#include "profiler/core/trace_windows.hpp"
#include "profiler/finalize/offset_tree.hpp"
#include "profiler/finalize/own_trace.hpp"
#include "sync/offset_model.hpp"
#include "sync/trace_matching.hpp"
#include "sync/trace_sync.hpp"
#include "sync/window_alignment.hpp"
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

std::vector<std::byte> joined(std::vector<std::vector<std::byte>> parts) {
  std::vector<std::byte> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

bool is_sendrecv(const model::Trace& tables, const model::TraceRecord& rec) {
  const model::FunctionInfo* f = model::find_function(tables.functions.at(rec.function));
  return f != nullptr && f->kind == "sendrecv";
}

// One rank's part of step 3.
class WindowAlignment {
 public:
  WindowAlignment(const model::Trace& tables, model::RankTrace& rank,
                  model::WindowOpenings openings, std::int64_t tolerance_ns, int size)
      : m_tables(tables),
        m_rank(rank),
        m_openings(std::move(openings)),
        m_tolerance_ns(tolerance_ns),
        // As the trace's: a rank whose measurements allow offset 0 reads rank 0's
        // clock (one host), and correcting it by their noise would only add error.
        m_clock(sync::offset_model_of(rank)),
        m_items(sync::scan_rank(rank, 0)) {
    // The records' times on the reference clock; the raw ones are the records'.
    m_reference.resize(2 * m_rank.records.size());
    for (std::uint64_t i = 0; i < m_rank.records.size(); ++i) {
      m_reference[2 * i] = m_clock.to_reference(m_rank.records[i].enter_ns);
      m_reference[2 * i + 1] = m_clock.to_reference(m_rank.records[i].exit_ns);
    }
    // Collective items do not change when the windows are separated (only
    // point-to-point records do): their indices here are those of partners().
    for (auto& r : sync::collective_reports(m_rank, m_reference, m_items)) {
      m_reports[sync::home_of(r.comm, r.instance, size)].push_back(r);
    }
  }

  // A record's enter or exit on both clocks.
  sync::BothClocks enter_of(std::uint64_t record) const {
    return {m_reference[2 * record], m_rank.records[record].enter_ns};
  }
  sync::BothClocks exit_of(std::uint64_t record) const {
    return {m_reference[2 * record + 1], m_rank.records[record].exit_ns};
  }
  // Clock-condition violations this rank found (its receives, the instances it
  // judged), per clock: summed over the ranks, they choose the clock.
  const std::array<std::uint64_t, 2>& violations() const { return m_violations; }

  std::uint32_t window_of(std::uint64_t record) const {
    return m_openings.window_at(m_rank.records[record].enter_ns);
  }

  // Per destination: (window, channel) → its sends, encoded; then this rank's part
  // of the collective instances the destination judges.
  transport::Parcels sends_by_destination() {
    std::map<int, model::ByteWriter> writers;
    std::map<int, std::uint64_t> channels;
    for (const auto& [key, sends] : m_items.sends) {
      const auto& [comm, source, dest, tag] = key;
      std::map<std::uint32_t, std::vector<std::uint64_t>> by_window;
      for (const auto& ref : sends)
        by_window[window_of(send_record(key, ref))].push_back(ref.record);
      for (auto& [window, calls] : by_window) {
        m_sent[{window, key}] = calls;
        auto& w = writers[dest];
        ++channels[dest];
        w.put(window);
        w.put(comm);
        w.put(tag);
        w.put<std::uint64_t>(calls.size());
        for (std::uint64_t call : calls) {
          const auto& rec = m_rank.records[send_record(key, {0, call})];
          w.put(m_clock.to_reference(rec.enter_ns));
          w.put(rec.bytes);
          w.put(enter_of(call));
        }
      }
    }
    for (const auto& [home, reports] : m_reports) writers[home];
    transport::Parcels out;
    for (auto& [dest, w] : writers) {
      model::ByteWriter head, tail;
      head.put(channels[dest]);
      auto it = m_reports.find(dest);
      sync::write_reports(
          tail, it == m_reports.end() ? std::vector<sync::CollectiveReport>{} : it->second);
      out.emplace_back(dest, joined({head.take(), w.take(), tail.take()}));
    }
    return out;
  }

  // Pairs this rank's receives with what each source sent, and judges the
  // collective instances reported here; returns the answers: the pairs, where each
  // paired receive was posted, and the verdicts for each member.
  transport::Parcels pair_receives(const transport::Parcels& incoming) {
    std::map<WindowChannelKey, std::vector<sync::WindowSend>> sends;
    std::map<WindowChannelKey, std::vector<sync::BothClocks>> call_enters;
    std::map<int, std::vector<WindowChannelKey>> asked;  // per source, in its order
    std::vector<sync::CollectiveReport> reported;
    for (const auto& [source, bytes] : incoming) {
      asked[source];  // every rank that told this one something awaits one answer
      model::ByteReader r(bytes);
      std::uint64_t n = 0;
      if (!r.get(n)) throw model::TraceError("unreadable window sends");
      for (std::uint64_t c = 0; c < n; ++c) {
        std::uint32_t window = 0, comm = 0;
        std::int32_t tag = 0;
        std::uint64_t count = 0;
        if (!r.get(window) || !r.get(comm) || !r.get(tag) || !r.get(count) ||
            !r.can_hold(count, 32)) {
          throw model::TraceError("unreadable window sends");
        }
        const WindowChannelKey key{window, ChannelKey{comm, source, m_rank.rank, tag}};
        auto& list = sends[key];
        auto& enters = call_enters[key];
        list.resize(count);
        enters.resize(count);
        for (std::uint64_t k = 0; k < count; ++k) {
          if (!r.get(list[k].enter_ns) || !r.get(list[k].bytes) || !r.get(enters[k]))
            throw model::TraceError("unreadable window sends");
        }
        asked[source].push_back(key);
      }
      if (!sync::read_reports(r, reported)) throw model::TraceError("unreadable window sends");
    }
    // This rank's receives per (window, channel), posted and completed in one window.
    std::map<WindowChannelKey, std::vector<std::size_t>> receives;  // indices into the channel
    for (const auto& [key, items] : m_items.receives) {
      for (std::size_t k = 0; k < items.size(); ++k) {
        const std::uint32_t window = window_of(items[k].posted.record);
        if (window_of(items[k].complete.record) != window) {
          leave_out_receive(items[k]);
          continue;
        }
        receives[{window, key}].push_back(k);
      }
    }
    std::map<WindowChannelKey, sync::ChannelPairing> pairings;
    for (const auto& [wkey, indices] : receives) {
      const auto& items = m_items.receives.at(wkey.second);
      auto s = sends.find(wkey);
      sync::ChannelPairing p;
      if (s != sends.end()) {
        std::vector<sync::WindowReceive> times;
        bool sizes = true;
        for (std::size_t k : indices) {
          const auto& done = m_rank.records[items[k].complete.record];
          sizes = sizes && !is_sendrecv(m_tables, m_rank.records[items[k].call.record]);
          times.push_back({m_clock.to_reference(done.exit_ns), done.bytes});
        }
        std::vector<sync::WindowSend> compared = s->second;
        if (!sizes) {
          // A Sendrecv's record holds the bytes of both halves: its sizes say nothing.
          for (auto& t : times) t.bytes = 0;
          for (auto& c : compared) c.bytes = 0;
        }
        p = sync::pair_window_channel(times, compared, m_tolerance_ns);
      }
      std::vector<sync::BothClocks>& partner_enters = m_send_enter[wkey];
      std::vector<sync::BothClocks>& posted = m_posted_here[wkey];
      for (std::size_t j = 0; j < indices.size(); ++j) {
        if (j < p.first_receive || j >= p.first_receive + p.pairs) {
          leave_out_receive(items[indices[j]]);
          continue;
        }
        const sync::BothClocks sent = call_enters.at(wkey).at(p.first_send + (j - p.first_receive));
        const sync::BothClocks done = exit_of(items[indices[j]].complete.record);
        // As the trace's clock check: a receive cannot end before its send began. The
        // measured latency is no bound here: the offset protocol's round trips take
        // longer than a shared-memory message or a two-rank Allreduce.
        for (std::size_t c = 0; c < 2; ++c) m_violations[c] += done[c] < sent[c];
        partner_enters.push_back(sent);
        posted.push_back(enter_of(items[indices[j]].posted.record));
      }
      pairings[wkey] = p;
    }
    std::map<int, std::vector<sync::CollectiveVerdict>> verdicts;
    std::array<std::uint64_t, 2> judged{};
    for (const auto& v : sync::judge_collectives(std::move(reported), nullptr, &judged, 0)) {
      verdicts[v.rank].push_back(v);
    }
    for (std::size_t c = 0; c < 2; ++c) m_violations[c] += judged[c];
    // The members of an instance judged here reported it here: all are in `asked`.
    transport::Parcels answers;
    for (const auto& [source, keys] : asked) {
      model::ByteWriter w;
      w.put<std::uint64_t>(keys.size());
      for (const auto& key : keys) {
        auto it = pairings.find(key);
        const sync::ChannelPairing p = it == pairings.end() ? sync::ChannelPairing{} : it->second;
        w.put(key.first);
        w.put(std::get<0>(key.second));
        w.put(std::get<3>(key.second));
        w.put<std::uint64_t>(p.first_send);
        w.put<std::uint64_t>(p.pairs);
        auto posted = m_posted_here.find(key);
        for (std::uint64_t j = 0; j < p.pairs; ++j) w.put(posted->second.at(j));
      }
      auto it = verdicts.find(source);
      sync::write_verdicts(
          w, it == verdicts.end() ? std::vector<sync::CollectiveVerdict>{} : it->second);
      answers.emplace_back(source, w.take());
    }
    return answers;
  }

  // The receivers' answers: sends outside their pairs are left out; the paired ones
  // learn where their receives were posted.
  void apply_answers(const transport::Parcels& answers) {
    std::map<WindowChannelKey, std::pair<std::uint64_t, std::uint64_t>> kept;
    for (const auto& [dest, bytes] : answers) {
      model::ByteReader r(bytes);
      std::uint64_t n = 0;
      if (!r.get(n)) throw model::TraceError("unreadable window pairs");
      for (std::uint64_t c = 0; c < n; ++c) {
        std::uint32_t window = 0, comm = 0;
        std::int32_t tag = 0;
        std::uint64_t first = 0, pairs = 0;
        if (!r.get(window) || !r.get(comm) || !r.get(tag) || !r.get(first) || !r.get(pairs) ||
            !r.can_hold(pairs, 16)) {
          throw model::TraceError("unreadable window pairs");
        }
        const WindowChannelKey key{window, ChannelKey{comm, m_rank.rank, dest, tag}};
        kept[key] = {first, pairs};
        auto& posted = m_posted_there[key];
        posted.resize(pairs);
        for (auto& t : posted) {
          if (!r.get(t)) throw model::TraceError("unreadable window pairs");
        }
      }
      if (!sync::read_verdicts(r, m_verdicts)) throw model::TraceError("unreadable window pairs");
    }
    for (const auto& [wkey, calls] : m_sent) {
      auto it = kept.find(wkey);
      const auto [first, pairs] =
          it == kept.end() ? std::pair<std::uint64_t, std::uint64_t>{0, 0} : it->second;
      for (std::size_t j = 0; j < calls.size(); ++j) {
        if (j < first || j >= first + pairs) leave_out_send(wkey.second, calls[j]);
      }
    }
  }

  // Point-to-point records get their window's communicator ids.
  void separate_windows() {
    for (std::uint64_t i = 0; i < m_rank.records.size(); ++i) {
      auto& rec = m_rank.records[i];
      const bool p2p = rec.role == TraceRole::send || rec.role == TraceRole::isend ||
                       rec.role == TraceRole::recv || rec.role == TraceRole::irecv ||
                       rec.role == TraceRole::cancelled ||
                       (rec.role == TraceRole::completion && rec.collective_kind == 0);
      if (p2p) rec.comm = sync::window_comm(rec.comm, window_of(i));
    }
  }

  // The records' times (their `synced` pair) on `clock`.
  void use_clock(int clock) {
    const auto c = static_cast<std::size_t>(clock);
    m_rank.synced.resize(2 * m_rank.records.size());
    for (std::uint64_t i = 0; i < m_rank.records.size(); ++i) {
      m_rank.synced[2 * i] = enter_of(i)[c];
      m_rank.synced[2 * i + 1] = exit_of(i)[c];
    }
  }

  // After separate_windows, on `clock`: the records' times, and what the wait-state
  // analysis needs of the other side of each paired message and collective instance.
  sync::RankPartners partners(int clock) {
    use_clock(clock);
    const auto c = static_cast<std::size_t>(clock);
    sync::RankPartners p;
    p.items = sync::scan_rank(m_rank, 0);
    auto in_window = [](const WindowChannelKey& key) {
      auto [comm, source, dest, tag] = key.second;
      return ChannelKey{sync::window_comm(comm, key.first), source, dest, tag};
    };
    auto on_clock = [&](const auto& from, auto& to) {
      for (const auto& [key, times] : from) {
        if (times.empty()) continue;
        auto& list = to[in_window(key)];
        for (const auto& t : times) list.push_back(t[c]);
      }
    };
    on_clock(m_send_enter, p.send_enter);
    on_clock(m_posted_there, p.posted_enter);
    sync::apply_verdicts(p, m_verdicts, clock);
    return p;
  }

 private:
  // The record that holds a send of `key` whose call is `ref`: the call's own, or a
  // Sendrecv's send half after it.
  std::uint64_t send_record(const ChannelKey& key, sync::RecordRef ref) const {
    const auto& [comm, source, dest, tag] = key;
    for (std::uint64_t i = ref.record; i < m_rank.records.size(); ++i) {
      const auto& rec = m_rank.records[i];
      if (i > ref.record && rec.extra == 0) break;
      if ((rec.role == TraceRole::send || rec.role == TraceRole::isend) && rec.comm == comm &&
          rec.peer == dest && rec.tag == tag) {
        return i;
      }
    }
    return ref.record;
  }
  void leave_out_receive(const sync::ReceiveItem& item) {
    auto& done = m_rank.records[item.complete.record];
    if (done.role == TraceRole::completion) {
      done.sequence = 0;  // a request the window does not know: its call is not judged
      m_rank.records[item.posted.record].role = TraceRole::other;
    } else {
      done.role = TraceRole::other;
    }
  }
  void leave_out_send(const ChannelKey& key, std::uint64_t call) {
    m_rank.records[send_record(key, {0, call})].role = TraceRole::other;
  }

  const model::Trace& m_tables;
  model::RankTrace& m_rank;
  model::WindowOpenings m_openings;  // on this rank's clock, as its records
  std::int64_t m_tolerance_ns;
  sync::OffsetModel m_clock;
  sync::RankMatchItems m_items;
  std::map<WindowChannelKey, std::vector<std::uint64_t>> m_sent;  // call records
  // Receiver side, per channel's paired receives: the partner send call's enter,
  // and the receive's own posting enter (sent back). Sender side: the posting enters.
  std::map<WindowChannelKey, std::vector<sync::BothClocks>> m_send_enter, m_posted_here,
      m_posted_there;
  model::LargeArray<std::int64_t> m_reference;  // 2 per record, on the reference clock
  std::array<std::uint64_t, 2> m_violations{};
  std::map<int, std::vector<sync::CollectiveReport>> m_reports;  // by home process
  std::vector<sync::CollectiveVerdict> m_verdicts;               // for this rank's items
};

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

// Steps 2 to 4 on this rank's window records `mine` (its function table still its
// own), whose windows opened at `openings`; `failure` says why this rank has none.
// Collective. Returns this rank's part of the calibration (an empty one on every
// rank where any failed), or with `reduce` the run's.
model::Calibration calibrate(Context& context, FinalizeMemory& memory, model::Trace& mine,
                             model::WindowOpenings openings, std::string failure,
                             const WindowCounts& counts, bool reduce) {
  MPI_Comm comm = context.own_comm();
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  // MPIDLE_VERBOSE=2: each step's time on rank 0, to see where the finalize goes.
  const std::uint64_t start_ns = monotonic_ns();
  auto progress = [&](const char* step) {
    if (rank != 0 || context.config().verbose < 2) return;
    warn(std::string("finalize: windows' ") + step + " after " +
         std::to_string(static_cast<double>(monotonic_ns() - start_ns) * 1e-6) + " ms");
  };
  if (failure.empty()) {
    try {
      number_functions_as_the_table(mine);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  memory.sample();
  if (mine.ranks.empty()) mine.ranks.emplace_back();  // failed: still takes part
  model::RankTrace& own = mine.ranks.at(0);
  own.rank = rank;
  compose_offsets(comm, own, context.node_locality().one_node);
  mine.min_latency_ns = context.window_latency_ns();
  progress("offsets");

  // Steps 3 and 4 in two exchanges: the windows' messages are paired and each learns
  // its other side, and each collective instance is judged at its home process
  // (sync/window_partners). A rank that fails still takes part in both (with nothing
  // to say, and an empty answer to every rank that told it something), so that no
  // other rank waits for it.
  std::optional<WindowAlignment> align;
  // Where the first window's calls end: the second window's opening (none: all are).
  std::int64_t start_until_ns = INT64_MAX;
  transport::Parcels sends, answers;
  auto attempt = [&](auto step) {
    if (!failure.empty()) return;
    try {
      step();
    } catch (const std::exception& e) {
      failure = e.what();
    }
  };
  const std::string& test_fail = context.config().test_window_fail;
  const bool test_failing = rank == size - 1 && test_fail != "none";
  attempt([&] {
    if (test_failing && test_fail == "sends")
      throw model::TraceError("test failure before the sends");
    // A receive cannot end before its send began. Between nodes the offsets may err
    // by about the smallest latency measured; on one node every rank reads one clock,
    // and that latency as slack paired a late receiver one message off: a receive
    // ends a Barrier's microseconds before the next step's send begins, and the
    // first pairing tried, with the later sends, then held (the trace's windows
    // read a systematic late receiver at 0.43 of its exact wait).
    const std::int64_t slack = context.node_locality().one_node ? 0 : mine.min_latency_ns;
    if (openings.ns.size() > 1) start_until_ns = openings.ns[1];
    align.emplace(mine, own, std::move(openings), slack, size);
    sends = align->sends_by_destination();
  });
  if (!failure.empty()) sends.clear();
  const auto received = transport::sparse_exchange(comm, sends, kSendsTag);
  attempt([&] {
    if (test_failing && test_fail == "pairs")
      throw model::TraceError("test failure before the answers");
    answers = align->pair_receives(received);
  });
  if (!failure.empty()) {
    answers.clear();
    for (const auto& [source, bytes] : received)
      answers.emplace_back(source, std::vector<std::byte>{});
  }
  const auto expected =
      static_cast<std::size_t>(std::count_if(sends.begin(), sends.end(), [](const auto& p) {
        return transport::fits_one_message(p.second);
      }));
  const auto answered = transport::answer_exchange(comm, answers, expected, kPairsTag);
  attempt([&] {
    align->apply_answers(answered);
    align->separate_windows();
  });
  // Both clocks' partners and send classes, so that one reduction can both choose
  // the clock and agree on the send classes for it.
  std::array<sync::RankPartners, 2> partners_on;
  std::string unpaired;  // why this rank's windows have no partners, if so
  WindowAgreement agreement;
  agreement.failed = failure.empty() ? 0 : 1;
  const std::uint64_t records = own.records.size();
  if (failure.empty()) {
    for (int clock : {sync::kReferenceClock, sync::kRawClock}) {
      const auto c = static_cast<std::size_t>(clock);
      agreement.violations[c] = align->violations()[c];
      try {
        partners_on[c] = align->partners(clock);
        agreement.send_classes[c] = analysis::send_classes(own, partners_on[c]);
      } catch (const std::exception& e) {
        unpaired = e.what();
      }
    }
  }
  transport::TreeTraffic traffic;
  agreement = transport::tree_allreduce(std::move(agreement), comm, encode_agreement,
                                        decode_agreement, merge_agreement, traffic)
                  .value_or(failed_agreement());
  if (agreement.failed > 0) {
    if (!failure.empty()) warn("no calibration from the trace windows: " + failure);
    return {};
  }
  // As the trace's clock plan: offsets that break more clock conditions than the
  // raw clocks are not used (ranks on one node read one clock).
  const int clock =
      agreement.violations[sync::kRawClock] < agreement.violations[sync::kReferenceClock]
          ? sync::kRawClock
          : sync::kReferenceClock;
  std::vector<sync::RankPartners> partners(1);
  if (!unpaired.empty()) {
    warn("no wait states from this rank's windows: " + unpaired);
    own.records.clear();
    own.synced.clear();
  } else {
    partners[0] = std::move(partners_on[static_cast<std::size_t>(clock)]);
    align->use_clock(clock);  // partners() left the records on the clock it found last
  }
  memory.sample();
  progress((std::string(clock == sync::kRawClock ? "alignment and partners (raw clocks"
                                                 : "alignment and partners (offset clocks") +
            ", clock-condition violations " +
            std::to_string(agreement.violations[sync::kReferenceClock]) + " with offsets, " +
            std::to_string(agreement.violations[sync::kRawClock]) + " raw)")
               .c_str());
  // This rank's calls' costs from its exact waits (no MPI): summed over the ranks
  // by the caller, or here with `reduce`.
  model::Calibration calibration;
  try {
    if (!own.records.empty()) {
      analysis::CallWaits call_waits;
      analysis::rank_wait_states(mine, own, static_cast<std::uint32_t>(rank), partners[0],
                                 agreement.send_classes[static_cast<std::size_t>(clock)],
                                 &call_waits);
      calibration = analysis::calibrate_rank(mine, own, partners[0], call_waits, start_until_ns);
    }
  } catch (const std::exception& e) {
    warn(std::string("no wait states from this rank's windows: ") + e.what());
    calibration = model::Calibration{};
  }
  // This rank's figures: summed over the ranks with its calls (the most windows
  // any rank opened, the ranks whose buffer filled, the records).
  calibration.source = "windows";
  calibration.windows = counts.opened;
  calibration.windows_cut = counts.cut;
  calibration.windows_capped = counts.capped;
  calibration.records = records;
  if (reduce) {
    transport::TreeTraffic sums;
    const model::Calibration part = calibration;
    calibration = model::with_own_part(
        transport::tree_allreduce(
            std::move(calibration), comm, model::encode_calibration, model::decode_calibration,
            [](model::Calibration& into, model::Calibration&& from) {
              model::merge_calibration(into, from);
            },
            sums)
            .value_or(part),
        part);
  }
  progress("wait states");
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
