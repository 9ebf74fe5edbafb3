#include "trace_matching.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace mpidle::sync {
namespace {

using model::CollectiveKind;
using model::TraceRecord;
using model::TraceRole;

// Collective instance numbers are 32-bit on the record (it stays 64 bytes); a
// rank's numbers on one communicator only grow, and a completion names an instance
// started shortly before, so the full 64-bit number is the one nearest to the last
// seen on that communicator. More than 2^31 instances in flight would be needed to
// confuse it.
class SequenceUnwrapper {
 public:
  std::uint64_t operator()(std::uint32_t comm, std::uint32_t sequence) {
    auto [it, added] = m_last.try_emplace(comm, sequence);
    if (added) return sequence;
    const std::uint64_t last = it->second;
    const auto step = static_cast<std::int32_t>(sequence - static_cast<std::uint32_t>(last));
    const std::uint64_t full = last + static_cast<std::uint64_t>(static_cast<std::int64_t>(step));
    it->second = std::max(last, full);
    return full;
  }

 private:
  std::unordered_map<std::uint32_t, std::uint64_t> m_last;
};

}  // namespace

bool CollectiveMatch::complete() const {
  if (members.size() < 2) return false;
  for (const auto& m : members) {
    if (!m.has_enter || !m.has_exit) return false;
  }
  return true;
}

RankMatchItems scan_rank(const model::RankTrace& rank, std::uint32_t ri) {
  RankMatchItems out;
  struct Send {
    RecordRef call;
    bool cancelled = false;
  };
  std::map<ChannelKey, std::vector<Send>> sends;
  const std::int32_t me = rank.rank;
  // Request serials are 32-bit and wrap; they only need to be unique among the
  // requests alive at one time, and each entry goes when its request completes.
  std::unordered_map<std::uint32_t, std::uint64_t> posted_irecv;  // request serial → record
  SequenceUnwrapper instance;
  // Request serial of a started isend → where its send sits in `sends`.
  std::unordered_map<std::uint32_t, std::pair<ChannelKey, std::size_t>> started_isend;
  // (communicator, instance) → this rank's item.
  std::map<std::pair<std::uint32_t, std::uint64_t>, CollectiveItem> collectives;
  auto item_of = [&](std::uint32_t comm, std::uint64_t number) -> CollectiveItem& {
    auto [it, added] = collectives.try_emplace({comm, number});
    if (added) {
      it->second.comm = comm;
      it->second.instance = number;
      it->second.member.rank = me;
    }
    return it->second;
  };
  std::uint64_t call = 0;  // the record of the call this record belongs to
  for (std::uint64_t i = 0; i < rank.records.size(); ++i) {
    const TraceRecord& rec = rank.records[i];
    if (rec.extra == 0) call = i;
    const RecordRef here{ri, i};
    switch (rec.role) {
      case TraceRole::send:
      case TraceRole::isend:
        // A send is at the enter of its call. For the send half of a Sendrecv
        // (a further record, after the receive's exit in the rank's order) that
        // is the call's own enter: taking the further record's would put the
        // send after the receive and make every exchange a cycle.
        if (rec.peer >= 0) {
          const ChannelKey key{rec.comm, me, rec.peer, rec.tag};
          auto& channel = sends[key];
          if (rec.role == TraceRole::isend && rec.sequence != 0) {
            started_isend[rec.sequence] = {key, channel.size()};
          }
          channel.push_back({{ri, call}});
        }
        break;
      case TraceRole::recv:
        if (rec.peer >= 0) {
          out.receives[{rec.comm, rec.peer, me, rec.tag}].push_back({here, here, {ri, call}});
        } else {
          ++out.unknown_source_receives;
        }
        break;
      case TraceRole::irecv:
        posted_irecv[rec.sequence] = i;
        break;
      case TraceRole::completion:
        if (rec.collective_kind != 0) {
          auto& m = item_of(rec.comm, instance(rec.comm, rec.sequence)).member;
          m.exit = here;
          m.has_exit = true;
        } else if (auto it = posted_irecv.find(rec.sequence); it != posted_irecv.end()) {
          if (rec.peer >= 0) {
            out.receives[{rec.comm, rec.peer, me, rec.tag}].push_back(
                {{ri, it->second}, here, {ri, call}});
          } else {
            ++out.unknown_source_receives;
          }
          posted_irecv.erase(it);
        }
        break;
      case TraceRole::cancelled:
        // A cancelled receive never matched; a cancelled send was never sent.
        if (auto it = posted_irecv.find(rec.sequence); it != posted_irecv.end()) {
          posted_irecv.erase(it);
          ++out.cancelled;
        } else if (auto s = started_isend.find(rec.sequence); s != started_isend.end()) {
          sends[s->second.first][s->second.second].cancelled = true;
          started_isend.erase(s);
          ++out.cancelled;
        }
        break;
      case TraceRole::collective:
      case TraceRole::icollective: {
        auto& c = item_of(rec.comm, instance(rec.comm, rec.sequence));
        c.kind = static_cast<CollectiveKind>(rec.collective_kind);
        auto& m = c.member;
        if (model::is_scan(c.kind)) {
          m.order = rec.root;  // scans carry the caller's rank in the communicator
        } else {
          c.root = rec.root;
          m.order = me;
        }
        m.enter = here;
        m.has_enter = true;
        if (rec.role == TraceRole::collective) {
          m.exit = here;
          m.has_exit = true;
        }
        break;
      }
      case TraceRole::other:
        break;
    }
  }
  for (auto& [key, channel] : sends) {
    auto& kept = out.sends[key];
    for (const auto& s : channel) {
      if (!s.cancelled) kept.push_back(s.call);
    }
  }
  for (auto& [key, recvs] : out.receives) {
    std::stable_sort(recvs.begin(), recvs.end(), [](const ReceiveItem& a, const ReceiveItem& b) {
      return a.posted.record < b.posted.record;
    });
  }
  for (auto& [key, c] : collectives) out.collectives.push_back(c);
  return out;
}

TraceMatching match_trace(const model::Trace& trace) {
  std::map<ChannelKey, model::LargeArray<RecordRef>> sends;
  std::map<ChannelKey, model::LargeArray<ReceiveItem>> receives;
  std::map<std::pair<std::uint32_t, std::uint64_t>, CollectiveMatch> collectives;
  TraceMatching out;

  if (trace.ranks.size() >= RecordRef::kMaxRanks) {
    throw model::TraceError("more ranks than trace matching can address (2^24)");
  }
  for (const auto& r : trace.ranks) {
    if (r.records.size() >= RecordRef::kMaxRecords) {
      throw model::TraceError("rank " + std::to_string(r.rank) +
                              " has more records than trace matching can address (2^40)");
    }
  }
  for (std::uint32_t ri = 0; ri < trace.ranks.size(); ++ri) {
    RankMatchItems items = scan_rank(trace.ranks[ri], ri);
    out.unmatched_receives += items.unknown_source_receives;
    out.cancelled += items.cancelled;
    // A channel has one sender and one receiver: each rank's lists are whole.
    sends.merge(items.sends);
    receives.merge(items.receives);
    for (auto& item : items.collectives) {
      auto& c = collectives[{item.comm, item.instance}];
      if (item.member.has_enter) {
        c.kind = item.kind;
        if (c.kind != CollectiveKind::scan && c.kind != CollectiveKind::exscan) c.root = item.root;
      }
      c.members.push_back(item.member);
    }
  }

  for (auto& [key, channel] : sends) {
    if (!receives.contains(key)) out.unmatched_sends += channel.size();
  }
  for (auto& [key, recvs] : receives) {
    auto it = sends.find(key);
    const std::size_t n_sends = it == sends.end() ? 0 : it->second.size();
    const std::size_t n = std::min(recvs.size(), n_sends);
    for (std::size_t k = 0; k < n; ++k) {
      out.messages.push_back({it->second[k], recvs[k].complete, recvs[k].posted, recvs[k].call});
    }
    out.unmatched_receives += recvs.size() - n;
    out.unmatched_sends += n_sends - n;
  }
  for (auto& [key, c] : collectives) {
    std::sort(c.members.begin(), c.members.end(),
              [](const auto& a, const auto& b) { return a.order < b.order; });
    out.collectives.push_back(std::move(c));
  }
  return out;
}

}  // namespace mpidle::sync
