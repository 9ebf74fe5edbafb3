// Compression throughput and summary size (compress/): symbols per second on 10^7
// symbols of a regular loop nest and of random symbols, the summary's size for one
// fixed loop body at 10^3 … 10^7 iterations, and a rank that polls irregularly
// (10^8 events) summarized as the profiler does, folds and all. Prints JSON.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "compress/summary.hpp"
#include "compress/summary_json.hpp"
#include "compress/summary_text.hpp"
#include "compress/trace_symbols.hpp"

using namespace mpidle::compress;

namespace {

// A timestep loop as a tracer sees it, compute burst before every call: 4
// exchanges (Irecv, Isend, Waitall on 2 neighbours), then an Allreduce.
std::vector<std::uint32_t> loop_body() {
  std::vector<std::uint32_t> calls;
  for (std::uint32_t neighbour = 0; neighbour < 2; ++neighbour) {
    for (std::uint32_t call = 0; call < 3; ++call) calls.push_back(neighbour * 3 + call);
  }
  calls.push_back(6);
  std::vector<std::uint32_t> body;
  for (auto c : calls) {
    body.push_back(100 + c);  // burst before the call
    body.push_back(c);
  }
  return body;
}

struct Result {
  double seconds = 0;
  std::size_t elements = 0;
  std::size_t nodes = 0;
  std::size_t peak_bytes = 0;
  std::uint64_t kept = 0;  // symbols summarized before the limits cut the summary short
};

template <typename Next>
Result run(std::size_t symbols, Next next, CompressorLimits limits = {}) {
  std::vector<std::uint32_t> input(symbols);
  for (auto& s : input) s = next();
  StreamCompressor c(limits);
  const auto t0 = std::chrono::steady_clock::now();
  std::int64_t ns = 1000;
  for (auto s : input) c.add(s, ns++ & 1023);
  const auto t1 = std::chrono::steady_clock::now();
  const Summary s = summarize(c);
  return {std::chrono::duration<double>(t1 - t0).count(), s.sequence.size(), s.nodes.size(),
          c.peak_memory_bytes(), s.events};
}

// HPC Challenge's RandomAccess as a tracer sees it: post a receive, test for it
// with MPI_Testany until it completes (geometrically many times, mean 100), send
// an update. Returns the summary's figures as JSON.
std::string irregular_polling(std::uint64_t events) {
  const std::vector<std::string> functions = {"MPI_Irecv", "MPI_Testany", "MPI_Isend"};
  std::vector<mpidle::model::Callsite> callsites(3);
  for (std::uint64_t i = 0; i < 3; ++i) callsites[i].frames.push_back({"ra", 16 * i, "", "", 0});
  std::mt19937_64 rng(5);
  std::geometric_distribution<int> polls(0.01);
  RankSummarizer summarizer(0, SymbolOptions{});
  mpidle::model::TraceRecord r;
  std::int64_t t = 0;
  std::uint64_t calls = 0;
  const std::uint64_t total = events / 2;  // a burst and a call each
  auto call = [&](std::uint32_t function) {
    if (calls++ >= total) return;
    r.function = function;
    r.callsite = function;
    t += 100 + static_cast<std::int64_t>(rng() % 64);
    r.enter_ns = t;
    t += 40;
    r.exit_ns = t;
    summarizer.add(r);
  };
  const auto t0 = std::chrono::steady_clock::now();
  while (calls < total) {
    call(0);
    for (int p = polls(rng) + 1; p > 0; --p) call(1);
    call(2);
  }
  const SummarySet set = summarizer.finish(functions, callsites);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string text = render_summary_text(set, {});
  const auto& s = set.groups.at(0).summary;
  std::size_t folds = 0;
  for (const auto& e : s.sequence) folds += s.nodes[e.node].kind == NodeKind::fold;
  return "{\"events\": " + std::to_string(s.events) + ", \"events_per_s\": " +
         std::to_string(static_cast<long long>(static_cast<double>(s.events) / seconds)) +
         ", \"elements\": " + std::to_string(s.sequence.size()) +
         ", \"folds\": " + std::to_string(folds) +
         ", \"json_bytes\": " + std::to_string(summary_to_json(set).dump().size()) +
         ", \"text_lines\": " + std::to_string(std::count(text.begin(), text.end(), '\n')) + "}";
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t symbols = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  const auto body = loop_body();

  std::size_t pos = 0;
  std::vector<double> regular_rates;
  Result regular;
  for (int repeat = 0; repeat < 5; ++repeat) {
    pos = 0;
    regular = run(symbols, [&] { return body[pos++ % body.size()]; });
    regular_rates.push_back(static_cast<double>(symbols) / regular.seconds);
  }
  std::sort(regular_rates.begin(), regular_rates.end());

  // Random symbols: the algorithm's speed without limits, then where the default
  // limits cut the summary short.
  std::mt19937 rng(1);
  CompressorLimits unbounded;
  unbounded.max_elements = unbounded.max_rules = ~std::size_t{0};
  const Result random = run(
      symbols, [&] { return static_cast<std::uint32_t>(rng() % 64); }, unbounded);
  const Result random_limited =
      run(symbols, [&] { return static_cast<std::uint32_t>(rng() % 64); });

  std::string sizes;
  for (std::size_t iterations = 1000; iterations <= 10'000'000; iterations *= 10) {
    pos = 0;
    const Result r = run(iterations * body.size(), [&] { return body[pos++ % body.size()]; });
    sizes += (sizes.empty() ? "" : ", ") + std::string("{\"iterations\": ") +
             std::to_string(iterations) + ", \"elements\": " + std::to_string(r.elements) +
             ", \"nodes\": " + std::to_string(r.nodes) + "}";
  }
  std::printf(
      "{\"symbols\": %zu, \"regular_symbols_per_s\": %.0f, \"regular_peak_bytes\": %zu, "
      "\"regular_nodes\": %zu, \"random_symbols_per_s\": %.0f, \"random_peak_bytes\": %zu, "
      "\"random_elements\": %zu, \"random_kept_with_default_limits\": %llu, "
      "\"random_peak_bytes_with_default_limits\": %zu, \"size_by_iterations\": [%s], "
      "\"irregular_polling\": %s}\n",
      symbols, regular_rates[regular_rates.size() / 2], regular.peak_bytes, regular.nodes,
      static_cast<double>(symbols) / random.seconds, random.peak_bytes, random.elements,
      static_cast<unsigned long long>(random_limited.kept), random_limited.peak_bytes,
      sizes.c_str(), irregular_polling(100'000'000).c_str());
  return 0;
}
