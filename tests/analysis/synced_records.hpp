#pragma once
// Hand-built synchronized traces for the analysis tests.

#include <cstdint>
#include <vector>

#include "model/trace_file.hpp"

namespace mpidle::test {

// Appends a record to `rank` with synchronized times equal to its times; the
// callsite is the function's number, so that sites can be told apart.
inline model::TraceRecord& add_synced(model::Trace& t, int rank, std::uint32_t function,
                                      model::TraceRole role, std::int64_t enter, std::int64_t exit,
                                      std::int32_t peer = -1, std::uint64_t bytes = 0) {
  auto& r = t.ranks[static_cast<std::size_t>(rank)];
  model::TraceRecord rec;
  rec.function = function;
  rec.callsite = function;
  rec.role = role;
  rec.enter_ns = enter;
  rec.exit_ns = exit;
  rec.peer = peer;
  rec.tag = 0;
  rec.bytes = bytes;
  r.records.push_back(rec);
  r.synced.push_back(enter);
  r.synced.push_back(exit);
  return r.records.back();
}

// A collective of every rank on communicator 1: rank r enters at enters[r].
inline void add_collective(model::Trace& t, std::uint32_t function, model::CollectiveKind kind,
                           const std::vector<std::int64_t>& enters, std::int64_t exit) {
  for (std::size_t r = 0; r < enters.size(); ++r) {
    auto& rec =
        add_synced(t, static_cast<int>(r), function, model::TraceRole::collective, enters[r], exit);
    rec.comm = 1;
    rec.collective_kind = static_cast<std::uint8_t>(kind);
  }
}

}  // namespace mpidle::test
