#include <catch2/catch.hpp>

#include "model/profile_tables.hpp"

using mpidle::model::size_class;

TEST_CASE("size class is 0 for empty messages and floor(log2(bytes)) + 1 otherwise", "[model]") {
  CHECK(size_class(0) == 0);
  CHECK(size_class(1) == 1);
  CHECK(size_class(2) == 2);
  CHECK(size_class(3) == 2);
  CHECK(size_class(4) == 3);
  CHECK(size_class(1023) == 10);
  CHECK(size_class(1024) == 11);
  CHECK(size_class(~std::uint64_t{0}) == 64);
}
