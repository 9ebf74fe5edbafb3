#include "window_partners.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "collective_waits.hpp"
#include "model/profile_tables.hpp"

namespace mpidle::sync {

using model::CollectiveKind;

std::vector<CollectiveReport> collective_reports(const model::RankTrace& rank,
                                                 const model::LargeArray<std::int64_t>& reference,
                                                 const RankMatchItems& items) {
  std::vector<CollectiveReport> out;
  out.reserve(items.collectives.size());
  for (std::size_t i = 0; i < items.collectives.size(); ++i) {
    const CollectiveItem& c = items.collectives[i];
    if (!c.member.has_enter) continue;  // a completion alone: nothing to judge
    const model::TraceRecord& rec = rank.records[c.member.enter.record];
    CollectiveReport r;
    r.instance = c.instance;
    r.enter_ns = {reference[2 * c.member.enter.record], rec.enter_ns};
    if (c.member.has_exit) {
      const std::uint64_t exit = c.member.exit.record;
      r.exit_ns = {reference[2 * exit + 1], rank.records[exit].exit_ns};
    }
    r.comm = c.comm;
    r.item = static_cast<std::uint32_t>(i);
    r.rank = c.member.rank;
    r.order = c.member.order;
    r.root = c.root;
    r.members = model::comm_size_of(rec.tag);
    r.kind = static_cast<std::uint8_t>(c.kind);
    r.whole = c.member.has_exit && rec.role == model::TraceRole::collective;
    out.push_back(r);
  }
  return out;
}

int home_of(std::uint32_t comm, std::uint64_t instance, int processes) {
  // splitmix64's finalizer: consecutive instances land on different processes.
  std::uint64_t x = (std::uint64_t{comm} << 32) ^ instance;
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return static_cast<int>(x % static_cast<std::uint64_t>(std::max(processes, 1)));
}

namespace {

// One instance's wait references on one clock (sync/collective_waits); how many
// members left less than `latency_ns` after the enter they needed (their cause).
std::uint64_t judge_on_clock(const std::vector<CollectiveReport>& members, int clock,
                             std::int64_t latency_ns, std::vector<CollectiveVerdict>& out) {
  std::vector<CollectiveEnter> enters(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    enters[i] = {members[i].rank, members[i].order, members[i].enter_ns[clock]};
  }
  std::vector<std::int64_t> until, cause;
  std::vector<std::size_t> by_order;
  const auto kind = static_cast<CollectiveKind>(members.front().kind);
  collective_wait_until(kind, members.front().root, enters, until, by_order);
  collective_clock_causes(kind, members.front().root, enters, cause, by_order);
  // Who each member waited for: the member whose entry its waiting lasted until.
  std::map<std::int64_t, std::int32_t> entered_by;
  for (const auto& e : enters) entered_by.emplace(e.enter_ns, e.rank);
  std::uint64_t violated = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    out[i].until[clock] = until[i];
    auto waited_for = entered_by.find(until[i]);
    if (until[i] != kClcNever && waited_for != entered_by.end() &&
        waited_for->second != members[i].rank) {
      out[i].cause_rank[clock] = waited_for->second;
    }
    violated += cause[i] != kClcNever && members[i].exit_ns[clock] < cause[i] + latency_ns;
  }
  return violated;
}

void judge_instance(const std::vector<CollectiveReport>& members,
                    std::vector<CollectiveVerdict>& out, std::uint64_t& complete,
                    std::array<std::uint64_t, 2>& violations, std::int64_t latency_ns) {
  // A shape of one member or none (a trace that does not record it): every rank
  // that reported the instance's communicator is a member, as in the replay.
  const std::size_t expected = members.front().members >= 2
                                   ? static_cast<std::size_t>(members.front().members)
                                   : members.size();
  bool whole = members.size() >= 2 && members.size() == expected;
  for (const auto& m : members) whole = whole && m.whole;
  std::vector<CollectiveVerdict> verdicts(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    verdicts[i].rank = members[i].rank;
    verdicts[i].item = members[i].item;
    verdicts[i].complete = whole;
  }
  if (whole) {
    ++complete;
    for (int clock : {kReferenceClock, kRawClock}) {
      violations[static_cast<std::size_t>(clock)] +=
          judge_on_clock(members, clock, latency_ns, verdicts);
    }
  }
  out.insert(out.end(), verdicts.begin(), verdicts.end());
}

}  // namespace

std::vector<CollectiveVerdict> judge_collectives(std::vector<CollectiveReport> reports,
                                                 std::uint64_t* complete,
                                                 std::array<std::uint64_t, 2>* violations,
                                                 std::int64_t latency_ns) {
  std::uint64_t ignored = 0;
  std::array<std::uint64_t, 2> ignored_violations{};
  if (!complete) complete = &ignored;
  if (!violations) violations = &ignored_violations;
  std::sort(reports.begin(), reports.end(), [](const auto& a, const auto& b) {
    return std::tie(a.comm, a.instance, a.rank) < std::tie(b.comm, b.instance, b.rank);
  });
  std::vector<CollectiveVerdict> out;
  out.reserve(reports.size());
  std::vector<CollectiveReport> members;
  for (std::size_t i = 0; i < reports.size();) {
    std::size_t j = i;
    members.clear();
    while (j < reports.size() && reports[j].comm == reports[i].comm &&
           reports[j].instance == reports[i].instance) {
      members.push_back(reports[j++]);
    }
    judge_instance(members, out, *complete, *violations, latency_ns);
    i = j;
  }
  return out;
}

void apply_verdicts(RankPartners& partners, const std::vector<CollectiveVerdict>& verdicts,
                    int clock) {
  const std::size_t n = partners.items.collectives.size();
  partners.until.assign(n, kClcNever);
  partners.complete.assign(n, 0);
  partners.cause_rank.assign(n, -1);
  for (const auto& v : verdicts) {
    if (v.item >= n) continue;
    partners.until[v.item] = v.until[static_cast<std::size_t>(clock)];
    partners.complete[v.item] = v.complete;
    partners.cause_rank[v.item] = v.cause_rank[static_cast<std::size_t>(clock)];
  }
}

namespace {

template <typename T>
void write_rows(model::ByteWriter& w, const std::vector<T>& rows) {
  w.put<std::uint64_t>(rows.size());
  for (const auto& r : rows) w.put(r);
}

template <typename T>
bool read_rows(model::ByteReader& r, std::vector<T>& out) {
  std::vector<T> rows;
  if (!r.get_array(rows)) return false;
  out.insert(out.end(), rows.begin(), rows.end());
  return true;
}

}  // namespace

void write_reports(model::ByteWriter& w, const std::vector<CollectiveReport>& reports) {
  write_rows(w, reports);
}
bool read_reports(model::ByteReader& r, std::vector<CollectiveReport>& out) {
  return read_rows(r, out);
}
void write_verdicts(model::ByteWriter& w, const std::vector<CollectiveVerdict>& verdicts) {
  write_rows(w, verdicts);
}
bool read_verdicts(model::ByteReader& r, std::vector<CollectiveVerdict>& out) {
  return read_rows(r, out);
}

}  // namespace mpidle::sync
