#include "offset_model.hpp"

namespace mpidle::sync {

OffsetModel OffsetModel::from(const OffsetEstimate& init, const OffsetEstimate& final) {
  // The estimates carry reference-time midpoints; in local time those are
  // midpoint + offset.
  const double t0 = static_cast<double>(init.at_ns + init.offset_ns);
  const double t1 = static_cast<double>(final.at_ns + final.offset_ns);
  OffsetModel m;
  m.init_time_ns = init.at_ns + init.offset_ns;
  m.init_offset_ns = static_cast<double>(init.offset_ns);
  if (t1 > t0) {
    m.drift = static_cast<double>(final.offset_ns - init.offset_ns) / (t1 - t0);
  }
  return m;
}

}  // namespace mpidle::sync
