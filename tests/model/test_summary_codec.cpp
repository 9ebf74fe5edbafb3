// What the finalize tree sends survives encoding, and nothing malformed gets through.
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "model/summary_codec.hpp"

using namespace mpidle;

TEST_CASE("a summary survives encode and decode unchanged", "[model]") {
  auto t = test::tables_for_rank(3, 6e-6, 1e-6);
  t.callsites[0].frames[0].file = "app.c";
  t.callsites[0].frames[0].line = 42;
  t.ranks[0].dropped_calls = 5;
  t.ranks[0].memory_bytes = 1u << 20;
  const auto s = model::summarize_all(t);
  const auto back = model::decode_summary(model::encode_summary(s));
  REQUIRE(back);
  CHECK(back->functions == s.functions);
  REQUIRE(back->callsites.size() == 2);
  CHECK(back->callsites[0].frames[0].file == "app.c");
  CHECK(back->callsites[0].frames[0].line == 42);
  REQUIRE(back->ranks.size() == 1);
  const auto& r = back->ranks[0];
  CHECK(r.rank == 3);
  CHECK(r.host == "node3");
  CHECK(r.dropped_calls == 5);
  CHECK(r.memory_bytes == 1u << 20);
  CHECK(r.wait_s == s.ranks[0].wait_s);
  REQUIRE(r.shares.size() == 2);
  CHECK(r.shares[0].visits == 3);
  CHECK(r.shares[0].time_s == 6e-6);
  REQUIRE(back->minima.size() == 2);
  CHECK(back->minima[0].min_s == s.minima[0].min_s);
  CHECK(back->function_totals[0].calls == s.function_totals[0].calls);
}

TEST_CASE("global minima survive encode and decode", "[model]") {
  const auto m = model::minima_of(test::tables_for_rank(2, 6e-6, 1e-6));
  const auto back = model::decode_minima(model::encode_minima(m));
  REQUIRE(back);
  REQUIRE(back->size() == m.size());
  CHECK((*back)[1].function == m[1].function);
  CHECK((*back)[1].rank == 2);
}

TEST_CASE("truncated, corrupt or inconsistent bytes are refused", "[model]") {
  const auto bytes =
      model::encode_summary(model::summarize_all(test::tables_for_rank(0, 6e-6, 1e-6)));
  for (std::size_t cut : {std::size_t{0}, std::size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    CHECK_FALSE(model::decode_summary(std::span(bytes.data(), cut)));
  }
  auto bad_magic = bytes;
  bad_magic[0] = std::byte{0};
  CHECK_FALSE(model::decode_summary(bad_magic));
  auto extra = bytes;
  extra.push_back(std::byte{1});
  CHECK_FALSE(model::decode_summary(extra));
  // A share pointing past the callsite table must not get through.
  auto s = model::summarize_all(test::tables_for_rank(0, 6e-6, 1e-6));
  s.ranks[0].shares[0].callsite = 99;
  CHECK_FALSE(model::decode_summary(model::encode_summary(s)));
  // Minima bytes are not a summary, nor the other way round.
  const auto minima = model::encode_minima(s.minima);
  CHECK_FALSE(model::decode_summary(minima));
  CHECK_FALSE(model::decode_minima(bytes));
}
