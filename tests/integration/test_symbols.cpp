// Callsites name the source file and line of the call, read from DWARF 5 in
// process: also for a function defined in a header, unoptimized and optimized.
#include <catch2/catch.hpp>

#include <algorithm>

#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {

// The line of `mark` in a test program's source file.
int line_of(const std::string& file, const std::string& mark) {
  const std::string text = read_text(std::string(MPIDLE_SOURCE_DIR) + "/tests/programs/" + file);
  const auto at = text.find(mark);
  REQUIRE(at != std::string::npos);
  return static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')) + 1;
}

}  // namespace

TEST_CASE("symbols: a helper in a header is named by its header's file and line, -O0 and -O2",
          "[mpi]") {
  const int header_line = line_of("header_helper.h", "HEADER_HELPER_CALL");
  const int main_line = line_of("header_helper.c", "MAIN_CALL");
  for (const std::string level : {"O0", "O2"}) {
    INFO("-" << level);
    const auto dir = scratch_dir("symbols_" + level);
    const auto r = run_mpi(2, program("header_helper_" + level), {}, {{"MPIDLE_OUTPUT", dir}});
    REQUIRE(r.status == 0);
    INFO(r.err);
    const auto p = model::read_profile(dir);
    bool barrier = false, allreduce = false;
    for (const auto& c : p.callsites) {
      REQUIRE_FALSE(c.frames.empty());
      const auto& f = c.frames[0];
      if (c.function == "MPI_Barrier") {
        barrier = true;
        CHECK_THAT(f.file, Catch::EndsWith("header_helper.h"));
        CHECK(f.line == header_line);
        CHECK(f.function == "header_helper_barrier");
      } else if (c.function == "MPI_Allreduce") {
        allreduce = true;
        CHECK_THAT(f.file, Catch::EndsWith("header_helper.c"));
        CHECK(f.line == main_line);
        CHECK(f.function == "main");
      }
    }
    CHECK(barrier);
    CHECK(allreduce);
    CHECK(r.err.find("mpidle:") == std::string::npos);  // nothing to warn about
  }
}
