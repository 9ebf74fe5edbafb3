#include "window_schedule.hpp"

#include <algorithm>
#include <cmath>

namespace mpidle::model {
namespace {
// Gap before window k (k >= 1), while it is below the period: length × 2^k.
std::int64_t doubling_gap(std::int64_t length_ns, std::uint32_t k) {
  return k >= 40 ? INT64_MAX / 4 : length_ns << k;
}
}  // namespace

WindowSchedule::WindowSchedule(std::int64_t length_ns, std::int64_t period_ns)
    : m_length_ns(std::max<std::int64_t>(0, length_ns)),
      m_period_ns(std::max(period_ns, 2 * std::max<std::int64_t>(1, length_ns))) {
  if (m_length_ns == 0) return;
  // Windows 0..m_doubling open after doubling gaps; later ones one period apart.
  std::int64_t at = 0;
  std::uint32_t k = 0;
  while (doubling_gap(m_length_ns, k + 1) < m_period_ns) {
    ++k;
    at += doubling_gap(m_length_ns, k);
  }
  m_doubling = k;
  m_periodic_from_ns = at;
}

WindowOpenings WindowSchedule::openings(std::int64_t reference_ns, std::int64_t until_ns) const {
  WindowOpenings out;
  if (!enabled()) return out;
  for (std::uint32_t k = 0;; ++k) {
    const std::int64_t at = reference_ns + open_ns(k);
    if (k > 0 && at > until_ns) break;
    out.ns.push_back(at);
  }
  return out;
}

std::uint32_t WindowOpenings::window_at(std::int64_t t) const {
  const auto after = std::upper_bound(ns.begin(), ns.end(), t);
  return after == ns.begin() ? 0 : static_cast<std::uint32_t>(after - ns.begin() - 1);
}

std::int64_t WindowSchedule::open_ns(std::uint32_t k) const {
  if (k <= m_doubling) {
    std::int64_t at = 0;
    for (std::uint32_t i = 1; i <= k; ++i) at += doubling_gap(m_length_ns, i);
    return at;
  }
  return m_periodic_from_ns + static_cast<std::int64_t>(k - m_doubling) * m_period_ns;
}

std::uint32_t WindowSchedule::window_at(std::int64_t since_reference_ns) const {
  if (!enabled() || since_reference_ns <= 0) return 0;
  if (since_reference_ns >= m_periodic_from_ns) {
    const std::int64_t periods = (since_reference_ns - m_periodic_from_ns) / m_period_ns;
    return m_doubling + static_cast<std::uint32_t>(std::min<std::int64_t>(periods, 1 << 30));
  }
  std::uint32_t k = 0;
  while (k < m_doubling && open_ns(k + 1) <= since_reference_ns) ++k;
  return k;
}

}  // namespace mpidle::model
