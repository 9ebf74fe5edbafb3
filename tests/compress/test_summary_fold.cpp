// Bounded summaries: irregular stretches fold to counts within the print budget,
// what is kept still expands to the stream, events, calls and time are conserved,
// and a set lists at most kMaxSummaryGroups rank classes.
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <string>

#include "compress/summary_codec.hpp"
#include "compress/summary_fold.hpp"
#include "compress/summary_json.hpp"
#include "compress/summary_text.hpp"
#include "compress/trace_symbols.hpp"
#include "model/json_fields.hpp"

using namespace mpidle;
using namespace mpidle::compress;

namespace {

// Nodes printing the top level takes (what the budget bounds), as TreeWriter counts.
std::size_t printed_nodes(const Summary& s, std::uint32_t n) {
  const SummaryNode& node = s.nodes[n];
  if (node.kind == NodeKind::pair) return 1 + printed_nodes(s, node.a) + printed_nodes(s, node.b);
  if (node.kind == NodeKind::loop) return 1 + printed_nodes(s, node.a);
  return 1;
}

std::size_t printed_nodes(const Summary& s) {
  std::size_t total = 0;
  for (const auto& e : s.sequence) total += printed_nodes(s, e.node);
  return total;
}

// Two folds side by side would be one stretch printed as two.
bool folds_apart(const Summary& s) {
  for (std::size_t e = 1; e < s.sequence.size(); ++e) {
    if (s.nodes[s.sequence[e - 1].node].kind == NodeKind::fold &&
        s.nodes[s.sequence[e].node].kind == NodeKind::fold) {
      return false;
    }
  }
  return true;
}

std::size_t folds_in(const Summary& s) {
  std::size_t folds = 0;
  for (const auto& e : s.sequence) folds += s.nodes[e.node].kind == NodeKind::fold;
  return folds;
}

// Calls among the events of the top level, and the events, by expanding counts.
std::pair<std::uint64_t, std::uint64_t> calls_and_events(const SummarySet& set, const Summary& s) {
  std::vector<std::uint64_t> calls(s.nodes.size());
  const auto events = expanded_lengths(s);
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    const auto& n = s.nodes[i];
    calls[i] = n.kind == NodeKind::leaf   ? set.terminals[n.a].kind == TerminalKind::call
               : n.kind == NodeKind::pair ? calls[n.a] + calls[n.b]
               : n.kind == NodeKind::loop ? calls[n.a] * n.iterations
                                          : n.calls;
  }
  std::uint64_t c = 0, e = 0;
  for (const auto& element : s.sequence) {
    c += calls[element.node];
    e += events[element.node];
  }
  return {c, e};
}

// An HPC Challenge RandomAccess-like rank: post a receive, poll it with Testany a
// random number of times (1 to 300) until it completes, send an update to a
// random peer. Records come one at a time (10^8 events would not fit in memory as
// records); the same seed gives the same stream again.
class PollingRank {
 public:
  explicit PollingRank(std::uint32_t seed) : m_rng(seed) {}
  model::TraceRecord next() {
    model::TraceRecord r;
    if (m_polls_left == 0 && m_step == 0) {
      r.function = 0;  // MPI_Irecv
      r.callsite = 0;
      r.role = model::TraceRole::irecv;
      m_polls_left = 1 + m_rng() % 300;
      m_step = 1;
    } else if (m_polls_left > 0) {
      r.function = 1;  // MPI_Testany
      r.callsite = 1;
      --m_polls_left;
    } else {
      r.function = 2;  // MPI_Isend
      r.callsite = 2;
      r.role = model::TraceRole::isend;
      r.peer = static_cast<std::int32_t>(m_rng() % 64);
      m_step = 0;
    }
    m_t += 50 + m_rng() % 200;  // the burst before the call
    r.enter_ns = m_t;
    m_t += 20 + m_rng() % 100;
    r.exit_ns = m_t;
    return r;
  }

 private:
  std::mt19937 m_rng;
  std::uint32_t m_polls_left = 0;
  int m_step = 0;
  std::int64_t m_t = 0;
};

const std::vector<std::string> kFunctions = {"MPI_Irecv", "MPI_Testany", "MPI_Isend"};

std::vector<model::Callsite> callsites() {
  std::vector<model::Callsite> sites;
  for (std::uint64_t i = 0; i < 3; ++i) {
    model::Callsite c;
    c.frames.push_back({"/bin/ra", 0x2000 + 16 * i, "update", "ra.c", static_cast<int>(40 + i)});
    sites.push_back(c);
  }
  return sites;
}

// Terminal ids in the stream: burst/call pairs of three callsites, as letters.
SummarySet letters_set() {
  SummarySet set;
  for (int t = 0; t < 6; ++t) {
    Terminal term;
    term.kind = t % 2 == 0 ? TerminalKind::burst : TerminalKind::call;
    term.function = kFunctions[static_cast<std::size_t>(t / 2)];
    term.callsite = callsites()[static_cast<std::size_t>(t / 2)];
    set.terminals.push_back(term);
  }
  return set;
}

}  // namespace

TEST_CASE("an irregular polling trace of 10^8 events folds within the budget") {
  constexpr std::uint64_t kEvents = 100'000'000;  // two per call: burst and call
  RankSummarizer summarizer(0, SymbolOptions{});
  PollingRank rank(7);
  for (std::uint64_t i = 0; i < kEvents / 2; ++i) summarizer.add(rank.next());
  SummarySet set = summarizer.finish(kFunctions, callsites());
  REQUIRE(set.groups.size() == 1);
  const Summary& s = set.groups[0].summary;
  // The compressor's limits were reached; what came after is a fold, not left out.
  CHECK(s.truncated);
  CHECK(s.dropped_events == 0);
  CHECK(s.events == kEvents);
  // Folded, and within the budget.
  CHECK(folds_in(s) > 0);
  CHECK(folds_apart(s));
  CHECK(printed_nodes(s) <= kFoldBudget);
  // Nothing lost: the top level still stands for every summarized event, half of
  // them calls, and for their whole time.
  const auto [calls, events] = calls_and_events(set, s);
  CHECK(events == s.events);
  CHECK(calls == s.events / 2);
  std::int64_t time = 0;
  for (const auto& e : s.sequence) time += e.ns;
  PollingRank again(7);
  std::int64_t truth = 0, previous_exit = 0;
  std::map<std::string, std::uint64_t> calls_truth, calls_seen;
  for (std::uint64_t i = 0; i < s.events / 2; ++i) {
    const auto r = again.next();
    truth += (i == 0 ? 0 : r.enter_ns - previous_exit) + (r.exit_ns - r.enter_ns);
    previous_exit = r.exit_ns;
    ++calls_truth[kFunctions[r.function]];
  }
  CHECK(time == truth);
  // Which calls: the folds name them with their counts (three kinds, all listed),
  // the elements kept list them.
  for (const auto& e : s.sequence) {
    const SummaryNode& n = s.nodes[e.node];
    if (n.kind == NodeKind::fold) {
      for (const auto& c : n.top_calls) calls_seen[set.terminals[c.terminal].function] += c.count;
      continue;
    }
    Summary one = s;
    one.sequence = {e};
    for (const auto t : expand(one)) {
      if (set.terminals[t].kind == TerminalKind::call) ++calls_seen[set.terminals[t].function];
    }
  }
  CHECK(calls_seen == calls_truth);
  // What the outputs take: the JSON section and summary.txt.
  const std::string json = summary_to_json(set).dump();
  CHECK(json.size() < std::size_t{1} << 20);
  const std::string text = render_summary_text(set, {});
  CHECK(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) < kFoldBudget + 20);
  CHECK(text.find("{irregular: ") != std::string::npos);
  CHECK(text.find("Testany1 x") != std::string::npos);
  CHECK(json.find("\"omitted_elements\":0") != std::string::npos);
}

TEST_CASE("a loop amid irregular calls is kept whole, the stretches around it fold") {
  std::mt19937 rng(3);
  std::vector<std::uint32_t> stream;
  auto noise = [&] {
    for (int i = 0; i < 400; ++i) stream.push_back(rng() % 6);
  };
  noise();
  const std::size_t loop_at = stream.size();
  for (int i = 0; i < 10000; ++i) {
    for (std::uint32_t t : {0u, 1u, 2u, 3u}) stream.push_back(t);
  }
  noise();
  StreamCompressor compressor;
  std::int64_t total_ns = 0;
  for (std::size_t i = 0; i < stream.size(); ++i) {
    const auto ns = static_cast<std::int64_t>(100 + i % 7);
    compressor.add(stream[i], ns);
    total_ns += ns;
  }
  SummarySet set = letters_set();
  set.groups.push_back({{0}, summarize(compressor)});
  Summary& s = set.groups[0].summary;
  REQUIRE(printed_nodes(s) > 40);
  const std::uint64_t stream_calls = static_cast<std::uint64_t>(
      std::count_if(stream.begin(), stream.end(), [](std::uint32_t t) { return t % 2 == 1; }));

  fold_summary(s, set.terminals, 40);
  CHECK(printed_nodes(s) <= 40);
  CHECK(folds_in(s) >= 2);
  CHECK(folds_apart(s));
  const auto [calls, events] = calls_and_events(set, s);
  CHECK(events == stream.size());
  CHECK(calls == stream_calls);
  std::int64_t ns = 0;
  for (const auto& e : s.sequence) ns += e.ns;
  CHECK(ns == total_ns);
  // Every element kept expands to the stream where it stands; the 10,000-iteration
  // loop is among them.
  const auto lengths = expanded_lengths(s);
  std::size_t at = 0;
  bool loop_kept = false;
  for (const auto& e : s.sequence) {
    if (s.nodes[e.node].kind != NodeKind::fold) {
      Summary one = s;
      one.sequence = {e};
      const auto expanded = expand(one);
      CHECK(std::equal(expanded.begin(), expanded.end(),
                       stream.begin() + static_cast<std::ptrdiff_t>(at)));
      loop_kept = loop_kept || (s.nodes[e.node].kind == NodeKind::loop && at <= loop_at + 4 &&
                                lengths[e.node] >= 39990);
    }
    at += lengths[e.node];
  }
  CHECK(at == stream.size());
  CHECK(loop_kept);

  SECTION("folds survive the binary and JSON forms") {
    const auto back = decode_summary_set(encode_summary_set(set));
    REQUIRE(back);
    CHECK(render_summary_text(*back, {Detail::high, {}}) ==
          render_summary_text(set, {Detail::high, {}}));
    const auto j = summary_to_json(set);
    bool fold_seen = false;
    for (const auto& element : j["groups"][0]["sequence"]) {
      if (element["tree"]["type"] != "fold") continue;
      fold_seen = true;
      CHECK(element["tree"]["events"].get<std::uint64_t>() >=
            element["tree"]["calls"].get<std::uint64_t>());
      CHECK(element["text"].get<std::string>().rfind("{irregular: ", 0) == 0);
    }
    CHECK(fold_seen);
    CHECK(render_summary_text(summary_from_json(j), {}) == render_summary_text(set, {}));
    auto broken = j;
    for (auto& element : broken["groups"][0]["sequence"]) {
      if (element["tree"]["type"] == "fold") element["tree"]["calls"] = 1u << 30;
    }
    CHECK_THROWS_AS(summary_from_json(broken), model::ProfileError);
  }
  SECTION("folding again changes nothing") {
    const auto before = encode_summary_set(set);
    fold_summaries(set, 40);
    CHECK(encode_summary_set(set) == before);
  }
}

TEST_CASE("a regular summary is not folded") {
  std::vector<std::uint32_t> stream;
  for (int i = 0; i < 5000; ++i) {
    for (std::uint32_t t : {0u, 1u, 2u, 3u, 2u, 3u, 4u, 5u}) stream.push_back(t);
  }
  StreamCompressor compressor;
  for (auto t : stream) compressor.add(t, 10);
  SummarySet set = letters_set();
  set.groups.push_back({{0}, summarize(compressor)});
  const auto before = encode_summary_set(set);
  fold_summaries(set);
  CHECK(encode_summary_set(set) == before);
  CHECK(expand(set.groups[0].summary) == stream);
}

TEST_CASE("a set lists the rank classes with the most ranks and counts the others") {
  // Ranks 0-9 alike, ranks 10-39 each different: 31 classes.
  SummarySet all;
  for (std::int32_t r = 0; r < 40; ++r) {
    StreamCompressor compressor;
    const int iterations = r < 10 ? 5 : 100 + r;
    for (int i = 0; i < iterations; ++i) {
      compressor.add(0, 10);
      compressor.add(1, 20);
    }
    SummarySet one = letters_set();
    one.groups.push_back({{r}, summarize(compressor)});
    merge_summary_sets(all, std::move(one));
  }
  REQUIRE(all.groups.size() == kMaxSummaryGroups);
  CHECK(all.groups[0].ranks.size() == 10);  // by first rank: ranks 0-9 first
  CHECK(all.groups[1].ranks == std::vector<std::int32_t>{10});
  CHECK(all.omitted.groups == 31 - kMaxSummaryGroups);
  CHECK(all.omitted.ranks == 31 - kMaxSummaryGroups);
  std::uint64_t omitted_events = 0;
  for (std::int32_t r = 10 + static_cast<std::int32_t>(kMaxSummaryGroups) - 1; r < 40; ++r) {
    omitted_events += 2 * static_cast<std::uint64_t>(100 + r);
  }
  CHECK(all.omitted.events == omitted_events);
  const std::string text = render_summary_text(all, {});
  CHECK(text.find("15 more rank classes (15 ranks") != std::string::npos);
  CHECK(render_summary_text(all, {Detail::low, 39}).find("one of the 15 not listed") !=
        std::string::npos);
  CHECK(render_summary_text(all, {Detail::low, 24}).find("## rank 24:") != std::string::npos);
  const auto back = decode_summary_set(encode_summary_set(all));
  REQUIRE(back);
  CHECK(back->omitted.events == omitted_events);
  CHECK(summary_from_json(summary_to_json(all)).omitted.groups == all.omitted.groups);
}
