#include "sync/window_pairing.hpp"

#include <algorithm>

#include "model/byte_stream.hpp"
#include "model/function_catalog.hpp"
#include "sync/trace_sync.hpp"

namespace mpidle::sync {
namespace {

using model::TraceRole;

std::vector<std::byte> joined(std::vector<std::vector<std::byte>> parts) {
  std::vector<std::byte> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

bool is_sendrecv(const model::Trace& tables, const model::TraceRecord& rec) {
  const model::FunctionInfo* f = model::find_function(tables.functions.at(rec.function));
  return f != nullptr && f->kind == "sendrecv";
}

}  // namespace

WindowPairing::WindowPairing(const model::Trace& tables, model::RankTrace& rank,
                             model::WindowOpenings openings, std::int64_t tolerance_ns, int size)
    : m_tables(tables),
      m_rank(rank),
      m_openings(std::move(openings)),
      m_tolerance_ns(tolerance_ns),
      // As the trace's: a rank whose measurements allow offset 0 reads rank 0's
      // clock (one host), and correcting it by their noise would only add error.
      m_clock(offset_model_of(rank)),
      m_items(scan_rank(rank, 0)) {
  // The records' times on the reference clock; the raw ones are the records'.
  m_reference.resize(2 * m_rank.records.size());
  for (std::uint64_t i = 0; i < m_rank.records.size(); ++i) {
    m_reference[2 * i] = m_clock.to_reference(m_rank.records[i].enter_ns);
    m_reference[2 * i + 1] = m_clock.to_reference(m_rank.records[i].exit_ns);
  }
  // Collective items do not change when the windows are separated (only
  // point-to-point records do): their indices here are those of partners().
  for (auto& r : collective_reports(m_rank, m_reference, m_items)) {
    m_reports[home_of(r.comm, r.instance, size)].push_back(r);
  }
}

Parcels WindowPairing::sends_by_destination() {
  std::map<int, model::ByteWriter> writers;
  std::map<int, std::uint64_t> channels;
  for (const auto& [key, sends] : m_items.sends) {
    const auto& [comm, source, dest, tag] = key;
    std::map<std::uint32_t, std::vector<std::uint64_t>> by_window;
    for (const auto& ref : sends) by_window[window_of(send_record(key, ref))].push_back(ref.record);
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
  Parcels out;
  for (auto& [dest, w] : writers) {
    model::ByteWriter head, tail;
    head.put(channels[dest]);
    auto it = m_reports.find(dest);
    write_reports(tail, it == m_reports.end() ? std::vector<CollectiveReport>{} : it->second);
    out.emplace_back(dest, joined({head.take(), w.take(), tail.take()}));
  }
  return out;
}

WindowPairing::ToldSends WindowPairing::read_sends(const Parcels& incoming) const {
  ToldSends told;
  for (const auto& [source, bytes] : incoming) {
    told.asked[source];  // every rank that told this one something awaits one answer
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
      auto& list = told.sends[key];
      auto& enters = told.call_enters[key];
      list.resize(count);
      enters.resize(count);
      for (std::uint64_t k = 0; k < count; ++k) {
        if (!r.get(list[k].enter_ns) || !r.get(list[k].bytes) || !r.get(enters[k]))
          throw model::TraceError("unreadable window sends");
      }
      told.asked[source].push_back(key);
    }
    if (!read_reports(r, told.reported)) throw model::TraceError("unreadable window sends");
  }
  return told;
}

std::map<WindowChannelKey, std::vector<std::size_t>> WindowPairing::receives_by_window() {
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
  return receives;
}

ChannelPairing WindowPairing::pair_channel(const WindowChannelKey& wkey,
                                           const std::vector<std::size_t>& indices,
                                           const ToldSends& told) {
  const auto& items = m_items.receives.at(wkey.second);
  auto s = told.sends.find(wkey);
  ChannelPairing p;
  if (s != told.sends.end()) {
    std::vector<WindowReceive> times;
    bool sizes = true;
    for (std::size_t k : indices) {
      const auto& done = m_rank.records[items[k].complete.record];
      sizes = sizes && !is_sendrecv(m_tables, m_rank.records[items[k].call.record]);
      times.push_back({m_clock.to_reference(done.exit_ns), done.bytes});
    }
    std::vector<WindowSend> compared = s->second;
    if (!sizes) {
      // A Sendrecv's record holds the bytes of both halves: its sizes say nothing.
      for (auto& t : times) t.bytes = 0;
      for (auto& c : compared) c.bytes = 0;
    }
    p = pair_window_channel(times, compared, m_tolerance_ns);
  }
  std::vector<BothClocks>& partner_enters = m_send_enter[wkey];
  std::vector<BothClocks>& posted = m_posted_here[wkey];
  for (std::size_t j = 0; j < indices.size(); ++j) {
    if (j < p.first_receive || j >= p.first_receive + p.pairs) {
      leave_out_receive(items[indices[j]]);
      continue;
    }
    const BothClocks sent = told.call_enters.at(wkey).at(p.first_send + (j - p.first_receive));
    const BothClocks done = exit_of(items[indices[j]].complete.record);
    // As the trace's clock check: a receive cannot end before its send began. The
    // measured latency is no bound here: the offset protocol's round trips take
    // longer than a shared-memory message or a two-rank Allreduce.
    for (std::size_t c = 0; c < 2; ++c) m_violations[c] += done[c] < sent[c];
    partner_enters.push_back(sent);
    posted.push_back(enter_of(items[indices[j]].posted.record));
  }
  return p;
}

Parcels WindowPairing::answers_to(
    const ToldSends& told, const std::map<WindowChannelKey, ChannelPairing>& pairings,
    const std::map<int, std::vector<CollectiveVerdict>>& verdicts) const {
  // The members of an instance judged here reported it here: all are in `asked`.
  Parcels answers;
  for (const auto& [source, keys] : told.asked) {
    model::ByteWriter w;
    w.put<std::uint64_t>(keys.size());
    for (const auto& key : keys) {
      auto it = pairings.find(key);
      const ChannelPairing p = it == pairings.end() ? ChannelPairing{} : it->second;
      w.put(key.first);
      w.put(std::get<0>(key.second));
      w.put(std::get<3>(key.second));
      w.put<std::uint64_t>(p.first_send);
      w.put<std::uint64_t>(p.pairs);
      auto posted = m_posted_here.find(key);
      for (std::uint64_t j = 0; j < p.pairs; ++j) w.put(posted->second.at(j));
    }
    auto it = verdicts.find(source);
    write_verdicts(w, it == verdicts.end() ? std::vector<CollectiveVerdict>{} : it->second);
    answers.emplace_back(source, w.take());
  }
  return answers;
}

Parcels WindowPairing::pair_receives(const Parcels& incoming) {
  ToldSends told = read_sends(incoming);
  std::map<WindowChannelKey, ChannelPairing> pairings;
  for (const auto& [wkey, indices] : receives_by_window()) {
    pairings[wkey] = pair_channel(wkey, indices, told);
  }
  std::map<int, std::vector<CollectiveVerdict>> verdicts;
  std::array<std::uint64_t, 2> judged{};
  for (const auto& v : judge_collectives(std::move(told.reported), nullptr, &judged, 0)) {
    verdicts[v.rank].push_back(v);
  }
  for (std::size_t c = 0; c < 2; ++c) m_violations[c] += judged[c];
  return answers_to(told, pairings, verdicts);
}

void WindowPairing::apply_answers(const Parcels& answers) {
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
    if (!read_verdicts(r, m_verdicts)) throw model::TraceError("unreadable window pairs");
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

void WindowPairing::separate_windows() {
  for (std::uint64_t i = 0; i < m_rank.records.size(); ++i) {
    auto& rec = m_rank.records[i];
    const bool p2p = rec.role == TraceRole::send || rec.role == TraceRole::isend ||
                     rec.role == TraceRole::recv || rec.role == TraceRole::irecv ||
                     rec.role == TraceRole::cancelled ||
                     (rec.role == TraceRole::completion && rec.collective_kind == 0);
    if (p2p) rec.comm = window_comm(rec.comm, window_of(i));
  }
}

void WindowPairing::use_clock(int clock) {
  const auto c = static_cast<std::size_t>(clock);
  m_rank.synced.resize(2 * m_rank.records.size());
  for (std::uint64_t i = 0; i < m_rank.records.size(); ++i) {
    m_rank.synced[2 * i] = enter_of(i)[c];
    m_rank.synced[2 * i + 1] = exit_of(i)[c];
  }
}

RankPartners WindowPairing::partners(int clock) {
  use_clock(clock);
  const auto c = static_cast<std::size_t>(clock);
  RankPartners p;
  p.items = scan_rank(m_rank, 0);
  auto in_window = [](const WindowChannelKey& key) {
    auto [comm, source, dest, tag] = key.second;
    return ChannelKey{window_comm(comm, key.first), source, dest, tag};
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
  apply_verdicts(p, m_verdicts, clock);
  return p;
}

std::uint64_t WindowPairing::send_record(const ChannelKey& key, RecordRef ref) const {
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

void WindowPairing::leave_out_receive(const ReceiveItem& item) {
  auto& done = m_rank.records[item.complete.record];
  if (done.role == TraceRole::completion) {
    done.sequence = 0;  // a request the window does not know: its call is not judged
    m_rank.records[item.posted.record].role = TraceRole::other;
  } else {
    done.role = TraceRole::other;
  }
}

void WindowPairing::leave_out_send(const ChannelKey& key, std::uint64_t call) {
  m_rank.records[send_record(key, {0, call})].role = TraceRole::other;
}

}  // namespace mpidle::sync
