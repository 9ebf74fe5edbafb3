#pragma once
// What `dies linger|deaf|hang S FILE` (tests/faults/programs/dies.c) keeps of each
// rank's loop in FILE.rank, a shared mapping that outlives the process: the steps
// it finished, when it started, its process id, and the count at the end of every
// 10 ms since then. The truth a killed job's checkpoints are checked against.

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "model/checkpoint_file.hpp"

namespace mpidle::test {

constexpr long kStepSlotNs = 10'000'000;
constexpr int kStepSlots = 30000;
struct StepsRecord {
  long steps = 0;
  long start_ns = 0;  // CLOCK_REALTIME
  long pid = 0;
  long at_slot[kStepSlots] = {};
};

// Rank `rank`'s record, once the rank has started its loop.
inline std::optional<StepsRecord> steps_of(const std::string& prefix, int rank) {
  std::ifstream in(prefix + "." + std::to_string(rank), std::ios::binary);
  auto record = std::make_unique<StepsRecord>();
  in.read(reinterpret_cast<char*>(record.get()), sizeof(StepsRecord));
  if (!in || record->start_ns == 0 || record->pid == 0) return std::nullopt;
  return *record;
}

inline double unix_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The count at the end of the last 10 ms slot that ended by `unix_s` (at most what
// the rank had done then), or at the end of the slot holding it (at least that).
inline long steps_before(const StepsRecord& r, double unix_s) {
  const long k = static_cast<long>((unix_s * 1e9 - static_cast<double>(r.start_ns)) / kStepSlotNs);
  long most = 0;
  for (long i = 0; i < std::min<long>(k, kStepSlots); ++i) most = std::max(most, r.at_slot[i]);
  return most;
}
inline long steps_after(const StepsRecord& r, double unix_s) {
  const long k = static_cast<long>((unix_s * 1e9 - static_cast<double>(r.start_ns)) / kStepSlotNs);
  long most = 0;
  for (long i = 0; i <= std::min<long>(k, kStepSlots - 1); ++i) {
    most = std::max(most, r.at_slot[i]);
  }
  return most;
}

// When the rank finished its last step, to 10 ms (0 before any).
inline double last_step_unix_s(const StepsRecord& r) {
  if (r.steps == 0) return 0;
  for (int i = 0; i < kStepSlots; ++i) {
    if (r.at_slot[i] == r.steps) {
      return static_cast<double>(r.start_ns + (i + 1) * kStepSlotNs) * 1e-9;
    }
  }
  return 0;
}

inline std::uint64_t allreduce_calls(const model::Checkpoint& c) {
  for (std::size_t f = 0; f < c.summary.functions.size(); ++f) {
    if (c.summary.functions[f] == "MPI_Allreduce") return c.summary.function_totals[f].calls;
  }
  return 0;
}

// A rank's checkpoint holds the calls the rank had made when the checkpoint says it
// was written: 10 Allreduce before the loop, 2 per step, and 1 more of a step in
// progress (the call that wrote it is not counted yet).
inline void check_checkpoint_counts(const model::Checkpoint& c, const StepsRecord& record) {
  const long before = steps_before(record, c.header.written_unix_s);
  const long after = steps_after(record, c.header.written_unix_s);
  const auto calls = static_cast<long>(allreduce_calls(c));
  INFO("rank " << c.header.rank << ", checkpoint " << c.header.sequence << " (" << c.header.ended
               << "): Allreduce " << calls << "; the program's steps then: " << before << " to "
               << after << ", at the end " << record.steps);
  CHECK(calls >= 10 + 2 * before);
  CHECK(calls <= 10 + 2 * after + 2);
}

}  // namespace mpidle::test
