#pragma once
// What a trace record says beyond time, peer and size; filled by the hooks.

#include <cstdint>

#include "model/trace_events.hpp"

namespace mpidle::profiler {

struct TraceInfo {
  model::TraceRole role = model::TraceRole::other;
  std::int32_t tag = -1;
  std::uint32_t comm = 0;
  std::uint32_t sequence = 0;
  std::int32_t root = model::kTraceNoRoot;
  model::CollectiveKind kind = model::CollectiveKind::none;
  std::uint8_t flags = 0;
};

}  // namespace mpidle::profiler
