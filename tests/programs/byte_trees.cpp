// The finalize's byte trees (transport/byte_tree.hpp) on real ranks: a reduction, a
// broadcast and a recursive-doubling allreduce of every rank's part. Each rank
// contributes a list that merging appends (a merge that is not commutative) and a
// double; the allreduce must give every rank all parts, in one order on every rank,
// and bit-identical sums. Prints one line
// "byte trees: P ranks ok" from rank 0, or what went wrong, and exits non-zero.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "model/byte_stream.hpp"
#include "transport/byte_tree.hpp"

namespace {

struct Part {
  std::vector<std::int32_t> items;
  double sum = 0;
};

// Rank r's part; `extra` more items make it larger than any eager limit, so that
// partners exchanging at once must not wait for each other's receive.
Part part_of(int rank, int size, int extra) {
  Part p{{rank}, rank % 2 == 0 ? 1e16 + rank : 1.5};
  for (int i = 0; i < extra; ++i) p.items.push_back(size + rank * extra + i);
  return p;
}

std::vector<std::byte> encode(const Part& p) {
  mpidle::model::ByteWriter w;
  w.put<std::uint64_t>(p.items.size());
  for (std::int32_t i : p.items) w.put(i);
  w.put(p.sum);
  return w.take();
}

std::optional<Part> decode(std::span<const std::byte> bytes) {
  mpidle::model::ByteReader r(bytes);
  Part p;
  std::uint64_t n = 0;
  if (!r.get(n) || !r.can_hold(n, 4)) return std::nullopt;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::int32_t item = 0;
    if (!r.get(item)) return std::nullopt;
    p.items.push_back(item);
  }
  if (!r.get(p.sum)) return std::nullopt;
  return p;
}

void merge(Part& into, Part&& from) {
  into.items.insert(into.items.end(), from.items.begin(), from.items.end());
  into.sum += from.sum;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failures = 0;
  auto expect = [&](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "rank %d: %s\n", rank, what);
      ++failures;
    }
  };
  mpidle::transport::TreeTraffic traffic;
  auto everyone = [&](int extra) {
    Part all;
    for (int r = 0; r < size; ++r) merge(all, part_of(r, size, extra));
    return all.items;  // in rank order, as the binomial trees give it
  };
  auto reduced = mpidle::transport::tree_reduce(part_of(rank, size, 0), MPI_COMM_WORLD, encode,
                                                decode, merge, traffic);
  expect(rank == 0 ? reduced && reduced->items == everyone(0) : !reduced,
         "the reduction gave rank 0 every part and the others none");
  const auto down = mpidle::transport::tree_broadcast(
      rank == 0 ? encode(*reduced) : std::vector<std::byte>{}, MPI_COMM_WORLD, traffic);
  const auto broadcast = decode(down);
  expect(broadcast && broadcast->items == everyone(0),
         "the broadcast gave every rank rank 0's result");
  for (int extra : {0, 20000}) {
    auto all = mpidle::transport::tree_allreduce(part_of(rank, size, extra), MPI_COMM_WORLD, encode,
                                                 decode, merge, traffic);
    Part got = all.value_or(Part{});
    std::vector<std::int32_t> sorted = got.items;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::int32_t> want = everyone(extra);
    std::sort(want.begin(), want.end());
    expect(sorted == want, "the allreduce gave every rank every part");
    // Every rank the same order of the parts (FNV-1a of the list) and the same bits
    // of the sum.
    std::uint64_t mine[2] = {14695981039346656037ull, 0}, low[2], high[2];
    for (std::int32_t i : got.items)
      mine[0] = (mine[0] ^ static_cast<std::uint32_t>(i)) * 1099511628211ull;
    std::memcpy(&mine[1], &got.sum, sizeof mine[1]);
    MPI_Allreduce(mine, low, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, high, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    expect(low[0] == high[0], "the allreduce gave every rank the parts in one order");
    expect(low[1] == high[1], "the allreduce gave every rank the same sum");
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) std::printf("byte trees: %d ranks ok\n", size);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
