#include "minima.hpp"

#include <algorithm>

namespace mpidle::model {
namespace {

void keep_min(auto& map, const auto& key, double value) {
  auto [it, added] = map.try_emplace(key, value);
  if (!added) it->second = std::min(it->second, value);
}

double wait_above(const Entry& e, double minimum) {
  // Rounding can push an exact zero slightly negative.
  return std::max(0.0, e.time_s - static_cast<double>(e.visits) * minimum);
}

}  // namespace

Minima::Minima(const ProfileTables& tables) : m_local(tables.ranks.size()) {
  for (std::size_t r = 0; r < tables.ranks.size(); ++r) {
    for (const auto& e : tables.ranks[r].entries) {
      if (e.visits == 0) continue;
      keep_min(m_local[r], Key{e.function, e.size_class, e.peer, e.comm_shape}, e.min_s);
      keep_min(m_global, GlobalKey{e.function, e.size_class, e.comm_shape}, e.min_s);
    }
  }
}

double Minima::local(std::size_t rank_index, std::uint32_t function, std::int32_t size_class,
                     std::int32_t peer, std::int32_t comm_shape) const {
  const auto& map = m_local.at(rank_index);
  auto it = map.find(Key{function, size_class, peer, comm_shape});
  return it == map.end() ? 0.0 : it->second;
}

double Minima::global(std::uint32_t function, std::int32_t size_class,
                      std::int32_t comm_shape) const {
  auto it = m_global.find(GlobalKey{function, size_class, comm_shape});
  return it == m_global.end() ? 0.0 : it->second;
}

double Minima::wait_local(std::size_t rank_index, const Entry& e) const {
  return wait_above(e, local(rank_index, e.function, e.size_class, e.peer, e.comm_shape));
}

double Minima::wait_global(const Entry& e) const {
  return wait_above(e, global(e.function, e.size_class, e.comm_shape));
}

}  // namespace mpidle::model
