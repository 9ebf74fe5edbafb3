#include "tree_reduce.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "model/summary_codec.hpp"

namespace mpidle::profiler {
model::GlobalMinima allreduce_minima(const model::GlobalMinima& local, MPI_Comm comm,
                                     TreeTraffic& traffic) {
  auto reduced = tree_reduce(
      local, comm, [](const model::GlobalMinima& m) { return model::encode_minima(m); },
      [](const std::vector<std::byte>& bytes) { return model::decode_minima(bytes); },
      [](model::GlobalMinima& into, model::GlobalMinima&& from) {
        model::merge_minima(into, from);
      },
      traffic);
  const auto bytes = tree_broadcast(
      reduced ? model::encode_minima(*reduced) : std::vector<std::byte>{}, comm, traffic);
  if (reduced) return *reduced;
  auto global = model::decode_minima(bytes);
  if (!global) {
    ++traffic.undecodable;
    return local;  // this rank's wait then uses its own minima only
  }
  return std::move(*global);
}

std::optional<model::ProfileSummary> reduce_summary(model::ProfileSummary local, MPI_Comm comm,
                                                    TreeTraffic& traffic) {
  return tree_reduce(
      std::move(local), comm,
      [](const model::ProfileSummary& s) { return model::encode_summary(s); },
      [](const std::vector<std::byte>& bytes) { return model::decode_summary(bytes); },
      [](model::ProfileSummary& into, model::ProfileSummary&& from) {
        model::merge_summaries(into, from);
      },
      traffic);
}

}  // namespace mpidle::profiler
