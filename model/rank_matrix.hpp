#pragma once
// The rank × callsite matrix of a version-2 profile, in its own file
// (kRankMatrixFile) so that profile.json stays small at any rank count:
//
//   8 bytes   "MPIDLEM1"
//   4 bytes   ranks R (uint32, little-endian), the rows, in the order of `ranks`
//   4 bytes   callsites C (uint32), the columns, in the order of callsite ids
//   R × C cells, rank-major, 20 bytes each: visits (uint64), time_s, wait_s,
//             wait_s_global_min (IEEE float32), all little-endian
//
// 10,000 ranks × 100 callsites is 20 MB. No MPI here.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace mpidle::model {

struct MatrixCell {
  std::uint64_t visits = 0;
  float time_s = 0, wait_s = 0, wait_s_global_min = 0;
};

struct RankMatrix {
  std::uint32_t ranks = 0, callsites = 0;
  std::vector<MatrixCell> cells;  // ranks × callsites, rank-major
  const MatrixCell& at(std::size_t rank_row, std::size_t callsite) const {
    return cells[rank_row * callsites + callsite];
  }
};

std::vector<std::byte> encode_rank_matrix(const RankMatrix& matrix);
// Empty when the bytes are not a complete matrix of the stated shape.
std::optional<RankMatrix> decode_rank_matrix(std::span<const std::byte> bytes);

}  // namespace mpidle::model
