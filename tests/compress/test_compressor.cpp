// Run-length + pair replacement: structure found, and expansion gives back exactly
// the stream that went in.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "compress/summary.hpp"

using namespace mpidle::compress;

namespace {

// Letters as terminals: 'A' → 0, 'B' → 1, ... ; every event lasts (id + 1) ns.
Summary compress_text(const std::string& text, CompressorLimits limits = {}) {
  StreamCompressor c(limits);
  for (char ch : text) c.add(static_cast<std::uint32_t>(ch - 'A'), ch - 'A' + 1);
  return summarize(c);
}

std::string expanded_text(const Summary& s) {
  std::string out;
  for (auto t : expand(s)) out.push_back(static_cast<char>('A' + t));
  return out;
}

// The structure in the notation of summary.txt, with letters for terminals.
std::string shape(const Summary& s, std::uint32_t n) {
  const SummaryNode& node = s.nodes[n];
  switch (node.kind) {
    case NodeKind::leaf:
      return std::string(1, static_cast<char>('A' + node.a));
    case NodeKind::pair:
      return shape(s, node.a) + "+" + shape(s, node.b);
    case NodeKind::loop: {
      const std::string body = shape(s, node.a);
      const bool single = s.nodes[node.a].kind == NodeKind::leaf;
      return (single ? body : "(" + body + ")") + "[" + std::to_string(node.iterations) + "]";
    }
    case NodeKind::fold:
      return "{" + std::to_string(node.events) + "/" + std::to_string(node.calls) + "}";
  }
  return "?";
}

std::string shape(const Summary& s) {
  std::string out;
  for (const auto& e : s.sequence) out += (out.empty() ? "" : " ") + shape(s, e.node);
  return out;
}

std::string repeat(const std::string& unit, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += unit;
  return out;
}

}  // namespace

TEST_CASE("A^n becomes A[n]") {
  const auto s = compress_text(std::string(1000, 'A'));
  CHECK(shape(s) == "A[1000]");
  CHECK(expanded_text(s) == std::string(1000, 'A'));
}

TEST_CASE("(AB)^n becomes (A+B)[n]") {
  const auto s = compress_text(repeat("AB", 37));
  CHECK(shape(s) == "(A+B)[37]");
  CHECK(expanded_text(s) == repeat("AB", 37));
}

TEST_CASE("nested ((AB)^3 C)^5") {
  const std::string text = repeat(repeat("AB", 3) + "C", 5);
  const auto s = compress_text(text);
  CHECK(shape(s) == "((A+B)[3]+C)[5]");
  CHECK(expanded_text(s) == text);
}

TEST_CASE("no structure stays as it is") {
  const auto s = compress_text("ABCDEFG");
  CHECK(shape(s) == "A B C D E F G");
  CHECK(s.events == 7);
}

TEST_CASE("timing aggregates: count, total, min, max per symbol and loop") {
  StreamCompressor c;
  for (int i = 0; i < 10; ++i) {
    c.add(0, 100 + i);  // A
    c.add(1, 5);        // B
  }
  const auto s = summarize(c);
  REQUIRE(shape(s) == "(A+B)[10]");
  const SummaryNode& loop = s.nodes[s.sequence[0].node];
  CHECK(loop.iterations == 10);
  CHECK(loop.timing.count == 1);
  CHECK(loop.timing.total_ns == (100 * 10 + 45) + 50);
  CHECK(s.sequence[0].ns == loop.timing.total_ns);
  const SummaryNode& body = s.nodes[loop.a];
  CHECK(body.timing.count == 10);
  CHECK(body.timing.min_ns == 105);
  CHECK(body.timing.max_ns == 114);
  const SummaryNode& a = s.nodes[body.a];
  CHECK(a.timing.count == 10);
  CHECK(a.timing.total_ns == 1045);
  CHECK(a.timing.min_ns == 100);
  CHECK(a.timing.max_ns == 109);
}

TEST_CASE("alternating patterns with noise: round trip exact") {
  std::mt19937 rng(7);
  std::string text;
  for (int i = 0; i < 400; ++i) {
    text += (i % 2) ? "ABAB" : "CDC";
    if (rng() % 10 == 0) text.push_back(static_cast<char>('E' + rng() % 3));
  }
  const auto s = compress_text(text);
  CHECK(expanded_text(s) == text);
  CHECK(s.sequence.size() < text.size() / 4);
}

TEST_CASE("random sequences: round trip exact") {
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
    std::mt19937 rng(seed);
    const int alphabet = 2 + static_cast<int>(seed % 6);
    std::string text;
    for (int i = 0; i < 5000; ++i) text.push_back(static_cast<char>('A' + rng() % alphabet));
    for (std::size_t chunk : {std::size_t{16}, std::size_t{100}, std::size_t{16384}}) {
      CompressorLimits limits;
      limits.chunk_symbols = chunk;
      const auto s = compress_text(text, limits);
      INFO("seed " << seed << " chunk " << chunk);
      CHECK(expanded_text(s) == text);
      CHECK(s.events == text.size());
    }
  }
}

TEST_CASE("a loop cut by chunk boundaries comes out as one loop") {
  const std::string body = repeat("AB", 3) + "C" + "D";
  for (std::size_t chunk : {std::size_t{16}, std::size_t{17}, std::size_t{64}, std::size_t{1000}}) {
    CompressorLimits limits;
    limits.chunk_symbols = chunk;
    const auto s = compress_text(repeat(body, 5000), limits);
    INFO("chunk " << chunk);
    CHECK(shape(s) == "((A+B)[3]+C+D)[5000]");
  }
}

TEST_CASE("summary size does not grow with the iteration count") {
  const std::string body = "ABCB" + repeat("DE", 4) + "F";
  CompressorLimits limits;
  limits.chunk_symbols = 256;
  std::size_t nodes = 0;
  for (int n : {1000, 10000, 100000}) {
    StreamCompressor c(limits);
    for (int i = 0; i < n; ++i) {
      for (char ch : body) c.add(static_cast<std::uint32_t>(ch - 'A'), 1);
    }
    const auto s = summarize(c);
    INFO(n << " iterations: " << shape(s));
    CHECK(s.sequence.size() == 1);
    CHECK(s.nodes[s.sequence[0].node].iterations == static_cast<std::uint64_t>(n));
    if (nodes) CHECK(s.nodes.size() == nodes);
    nodes = s.nodes.size();
  }
}

TEST_CASE("past its limits a summary is cut short, still exact for what it kept") {
  std::mt19937 rng(3);
  std::string text;
  for (int i = 0; i < 20000; ++i) text.push_back(static_cast<char>('A' + rng() % 26));
  CompressorLimits limits;
  limits.chunk_symbols = 64;
  limits.max_elements = 500;
  const auto s = compress_text(text, limits);
  CHECK(s.truncated);
  CHECK(s.events + s.dropped_events == text.size());
  CHECK(expanded_text(s) == text.substr(0, s.events));
}
