#include "profiler/finalize/tree_reduce.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>

#include "model/byte_stream.hpp"
#include "model/summary_codec.hpp"

namespace mpidle::profiler {
namespace {

// The minima and, where the windows calibrate, a calibration: one message per round.
struct MinimaAndCalibration {
  model::GlobalMinima minima;
  std::optional<model::Calibration> calibration;
};

std::vector<std::byte> encode_both(const MinimaAndCalibration& m) {
  model::ByteWriter w;
  const auto minima = model::encode_minima(m.minima);
  w.put_array(std::span<const std::byte>(minima));
  w.put<std::uint8_t>(m.calibration ? 1 : 0);
  if (m.calibration) {
    const auto calibration = model::encode_calibration(*m.calibration);
    w.put_array(std::span<const std::byte>(calibration));
  }
  return w.take();
}

std::optional<MinimaAndCalibration> decode_both(std::span<const std::byte> bytes) {
  model::ByteReader r(bytes);
  std::vector<std::byte> part;
  std::uint8_t has_calibration = 0;
  if (!r.get_array(part)) return std::nullopt;
  auto minima = model::decode_minima(part);
  if (!minima || !r.get(has_calibration)) return std::nullopt;
  MinimaAndCalibration out{std::move(*minima), std::nullopt};
  if (has_calibration) {
    if (!r.get_array(part)) return std::nullopt;
    out.calibration = model::decode_calibration(part);
    if (!out.calibration) return std::nullopt;
  }
  if (!r.at_end()) return std::nullopt;
  return out;
}

void merge_both(MinimaAndCalibration& into, MinimaAndCalibration&& from) {
  model::merge_minima(into.minima, from.minima);
  if (!from.calibration) return;
  if (into.calibration) {
    model::merge_calibration(*into.calibration, *from.calibration);
  } else {
    into.calibration = std::move(from.calibration);
  }
}

}  // namespace

model::GlobalMinima allreduce_minima(const model::GlobalMinima& local,
                                     model::Calibration* calibration, MPI_Comm comm,
                                     TreeTraffic& traffic) {
  MinimaAndCalibration mine{local, std::nullopt};
  if (calibration) mine.calibration = *calibration;
  auto all = tree_allreduce(std::move(mine), comm, encode_both, decode_both, merge_both, traffic);
  if (!all) {
    // Only a rank beyond the largest power of two that could not read the result:
    // its wait then uses its own minima and calibration only.
    ++traffic.undecodable;
    return local;
  }
  if (calibration) {
    *calibration =
        model::with_own_part(all->calibration.value_or(model::Calibration{}), *calibration);
  }
  return std::move(all->minima);
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
