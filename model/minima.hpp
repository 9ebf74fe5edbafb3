#pragma once
// The minimum method (Mao et al., EuroMPI'14): the minimum execution time of each
// (function, size class, peer, communicator shape) on each rank is taken as the
// call's cost without waiting; everything above it is wait. The global variant
// takes the minimum over all ranks and peers per (function, size class,
// communicator shape), which exposes static imbalance.

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "profile_tables.hpp"

namespace mpidle::model {

class Minima {
 public:
  explicit Minima(const ProfileTables& tables);

  // Minimum of (function, size class, peer, shape) on the rank at `rank_index`.
  double local(std::size_t rank_index, std::uint32_t function, std::int32_t size_class,
               std::int32_t peer, std::int32_t comm_shape = kNoCommShape) const;
  // Minimum of (function, size class, shape) over every rank and peer.
  double global(std::uint32_t function, std::int32_t size_class,
                std::int32_t comm_shape = kNoCommShape) const;

  // Wait of an entry: time − visits × minimum, so the subtraction is exact per visit.
  double wait_local(std::size_t rank_index, const Entry& e) const;
  double wait_global(const Entry& e) const;

 private:
  using Key = std::tuple<std::uint32_t, std::int32_t, std::int32_t, std::int32_t>;
  using GlobalKey = std::tuple<std::uint32_t, std::int32_t, std::int32_t>;
  std::vector<std::map<Key, double>> m_local;
  std::map<GlobalKey, double> m_global;
};

}  // namespace mpidle::model
