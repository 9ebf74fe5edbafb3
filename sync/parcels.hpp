#pragma once
// Bytes for other processes, by rank: what one step of a sparse exchange sends or
// receives (transport/sparse_exchange.hpp carries them over MPI; the unit tests hand
// them from one simulated rank to another).

#include <cstddef>
#include <utility>
#include <vector>

namespace mpidle::sync {

using Parcels = std::vector<std::pair<int, std::vector<std::byte>>>;  // (rank, bytes)

}  // namespace mpidle::sync
