#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "model/table_codec.hpp"

using namespace mpidle;

TEST_CASE("tables survive encode and decode unchanged", "[model]") {
  auto t = test::tables_for_rank(3, 6e-6, 1e-6);
  t.callsites[0].frames[0].function = "main";
  t.callsites[0].frames[0].file = "app.c";
  t.callsites[0].frames[0].line = 42;
  t.ranks[0].dropped_calls = 5;
  t.ranks[0].memory_bytes = 1u << 20;
  const auto bytes = model::encode_tables(t);
  const auto back = model::decode_tables(bytes);
  REQUIRE(back);
  CHECK(back->functions == t.functions);
  REQUIRE(back->callsites.size() == 2);
  CHECK(back->callsites[0].frames[0].file == "app.c");
  CHECK(back->callsites[0].frames[0].line == 42);
  CHECK(back->callsites[1].frames[0].offset == 0x2000);
  REQUIRE(back->ranks.size() == 1);
  const auto& r = back->ranks[0];
  CHECK(r.rank == 3);
  CHECK(r.host == "node3");
  CHECK(r.dropped_calls == 5);
  CHECK(r.memory_bytes == 1u << 20);
  REQUIRE(r.entries.size() == 2);
  CHECK(r.entries[0].visits == 3);
  CHECK(r.entries[0].time_s == 6e-6);
  CHECK(r.entries[0].min_s == 1e-6);
  CHECK(r.entries[0].peer == 1);
  CHECK(r.entries[0].size_class == 4);
  REQUIRE(r.first_calls.size() == 1);
  CHECK(r.first_calls[0].time_s == 10e-6);
}

TEST_CASE("empty tables round-trip", "[model]") {
  const auto back = model::decode_tables(model::encode_tables({}));
  REQUIRE(back);
  CHECK(back->ranks.empty());
}

TEST_CASE("truncated, corrupt or inconsistent bytes are refused", "[model]") {
  const auto bytes = model::encode_tables(test::tables_for_rank(0, 6e-6, 1e-6));
  for (std::size_t cut : {std::size_t{0}, std::size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    CHECK_FALSE(model::decode_tables(std::span(bytes.data(), cut)));
  }
  auto bad_magic = bytes;
  bad_magic[0] = std::byte{0};
  CHECK_FALSE(model::decode_tables(bad_magic));

  auto extra = bytes;
  extra.push_back(std::byte{1});
  CHECK_FALSE(model::decode_tables(extra));

  // An entry pointing past the callsite table must not get through.
  auto t = test::tables_for_rank(0, 6e-6, 1e-6);
  t.ranks[0].entries[0].callsite = 99;
  CHECK_FALSE(model::decode_tables(model::encode_tables(t)));
}
