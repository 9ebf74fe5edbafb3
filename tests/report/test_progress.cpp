// Progress lines of long post-mortem commands: on the stream given (stderr in the
// commands), one per stage, only for traces of a million events and more.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "model/stage_log.hpp"

using namespace mpidle::model;

namespace {

std::string written(std::uint64_t events) {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  const StageLog progress("mpidle sync", events, f);
  progress("reading");
  progress("synchronizing");
  std::string text;
  std::rewind(f);
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  std::fclose(f);
  return text;
}

}  // namespace

TEST_CASE("progress: one line per stage from a million events, nothing below", "[report]") {
  CHECK(written(999'999).empty());
  const std::string text = written(4'000'000);
  CHECK(text.rfind("mpidle sync: reading 4.0 M events (", 0) == 0);
  CHECK(text.find("\nmpidle sync: synchronizing 4.0 M events (") != std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 2);
}
