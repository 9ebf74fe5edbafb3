// A user's tool built against an installed mpidle: reads a trace run's profile and
// trace with mpidle's own readers, measures its wait states, and prints one line of
// figures that tests/install/check.sh compares with what `mpidle` itself says.
#include <cstdio>
#include <exception>

#include "analysis/wait_states.hpp"
#include "model/function_catalog.hpp"
#include "model/profile_reader.hpp"
#include "model/trace_file.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: read_run RUN_DIR\n");
    return 2;
  }
  try {
    const auto profile = mpidle::model::read_profile(argv[1]);
    if (!profile.trace) throw std::runtime_error("not a trace run");
    const auto trace = mpidle::model::read_trace(std::string(argv[1]) + "/" + profile.trace->file);
    std::uint64_t records = 0, collective_calls = 0;
    for (const auto& rank : trace.ranks) {
      records += rank.records.size();
      for (const auto& r : rank.records) {
        const auto* f = mpidle::model::find_function(trace.functions.at(r.function));
        if (f && f->group == mpidle::model::FunctionGroup::collective && r.extra == 0) {
          ++collective_calls;
        }
      }
    }
    const auto waits = mpidle::analysis::analyze_wait_states(trace);
    std::printf("ranks=%zu profile_ranks=%zu records=%llu collective_calls=%llu collectives=%llu\n",
                trace.ranks.size(), profile.ranks.size(), static_cast<unsigned long long>(records),
                static_cast<unsigned long long>(collective_calls),
                static_cast<unsigned long long>(waits.collectives));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "read_run: %s\n", e.what());
    return 1;
  }
}
