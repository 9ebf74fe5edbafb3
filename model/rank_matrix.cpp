#include "rank_matrix.hpp"

#include <bit>
#include <cstring>

#include "byte_stream.hpp"

namespace mpidle::model {
namespace {
constexpr char kMagic[8] = {'M', 'P', 'I', 'D', 'L', 'E', 'M', '1'};
constexpr std::size_t kCellBytes = 20;
static_assert(std::endian::native == std::endian::little, "the matrix file is little-endian");
}  // namespace

std::vector<std::byte> encode_rank_matrix(const RankMatrix& m) {
  ByteWriter w;
  for (char c : kMagic) w.put(c);
  w.put(m.ranks);
  w.put(m.callsites);
  for (const MatrixCell& c : m.cells) {
    w.put(c.visits);
    w.put(c.time_s);
    w.put(c.wait_s);
    w.put(c.wait_s_global_min);
  }
  return w.take();
}

std::optional<RankMatrix> decode_rank_matrix(std::span<const std::byte> bytes) {
  ByteReader r(bytes);
  char magic[8] = {};
  for (char& c : magic) {
    if (!r.get(c)) return {};
  }
  RankMatrix m;
  if (std::memcmp(magic, kMagic, sizeof magic) != 0 || !r.get(m.ranks) || !r.get(m.callsites)) {
    return {};
  }
  const std::uint64_t n = std::uint64_t{m.ranks} * m.callsites;
  if (!r.can_hold(n, kCellBytes)) return {};
  m.cells.resize(n);
  for (MatrixCell& c : m.cells) {
    if (!r.get(c.visits) || !r.get(c.time_s) || !r.get(c.wait_s) || !r.get(c.wait_s_global_min)) {
      return {};
    }
  }
  if (!r.at_end()) return {};
  return m;
}

}  // namespace mpidle::model
