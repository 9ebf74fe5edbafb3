#pragma once
// Peer translation cache: communicator handle → world rank of each member.
// Built once per communicator (on its first use), then read without locks from
// any thread; a handle that MPI reuses for a new communicator is replaced.
// A freed communicator's entry is reclaimed once no pending wildcard receive
// still needs it, so programs that create and free communicators all run long
// stay within the memory of the communicators alive at once.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace mpidle::profiler {

class CommInfo {
 public:
  explicit CommInfo(std::vector<std::int32_t> world_ranks, std::uint32_t id = 0, int my_rank = -1,
                    std::int32_t shape = 0, int out_degree = -1)
      : m_world(std::move(world_ranks)),
        m_id(id),
        m_my_rank(my_rank),
        m_shape(shape),
        m_out_degree(out_degree) {}

  // World rank of `local` in the (remote, for intercommunicators) group, or -1.
  std::int32_t world_rank(int local) const {
    return local >= 0 && static_cast<std::size_t>(local) < m_world.size() ? m_world[local] : -1;
  }
  int size() const { return static_cast<int>(m_world.size()); }
  // Trace mode: the same id on every member rank, and this process' rank in it.
  std::uint32_t id() const { return m_id; }
  int my_rank() const { return m_my_rank; }
  // The communicator's shape in a minimum's key (model::kNoCommShape and friends):
  // its size, or −(local + remote size) for an intercommunicator.
  std::int32_t shape() const { return m_shape; }
  // Out-neighbours of this process in the communicator's topology (cartesian,
  // graph, distributed graph), or -1 without one: the length of the count arrays
  // of Neighbor_alltoallv/w.
  int out_degree() const { return m_out_degree; }
  // Collective instances on this communicator, numbered in call order (which MPI
  // requires to be the same on every member).
  std::uint32_t next_collective() { return m_collectives.fetch_add(1, std::memory_order_relaxed); }

  // A pending MPI_ANY_SOURCE receive translates its status' source through this
  // entry when it completes, possibly after MPI_Comm_free: it holds the entry.
  void hold() const { m_holds.fetch_add(1, std::memory_order_relaxed); }
  void release() const { m_holds.fetch_sub(1, std::memory_order_acq_rel); }
  bool held() const { return m_holds.load(std::memory_order_acquire) != 0; }

 private:
  std::vector<std::int32_t> m_world;
  std::uint32_t m_id;
  int m_my_rank;
  std::int32_t m_shape;
  int m_out_degree;
  std::atomic<std::uint32_t> m_collectives{0};
  mutable std::atomic<std::uint32_t> m_holds{0};
};

class CommTable {
 public:
  static constexpr std::size_t kCapacity = 4096;
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  // A slot being handed to another handle: readers probe past it.
  static constexpr std::uint64_t kMoving = ~std::uint64_t{1};

  CommTable();
  ~CommTable();
  CommTable(const CommTable&) = delete;
  CommTable& operator=(const CommTable&) = delete;

  CommInfo* find(std::uint64_t handle) const {
    for (std::size_t n = 0, i = slot_of(handle); n < kCapacity; ++n, i = (i + 1) % kCapacity) {
      const std::uint64_t k = m_slots[i].handle.load(std::memory_order_acquire);
      if (k == handle) return m_slots[i].info.load(std::memory_order_acquire);
      if (k == kEmpty) return nullptr;
    }
    return nullptr;
  }

  // Adds or replaces; returns the stored info, or nullptr when every slot holds a
  // live communicator.
  CommInfo* insert(std::uint64_t handle, std::vector<std::int32_t> world_ranks,
                   std::uint32_t id = 0, int my_rank = -1, std::int32_t shape = 0,
                   int out_degree = -1);
  // Forgets a handle (freed communicator) so that a reuse is rebuilt.
  void forget(std::uint64_t handle);
  // Entries kept for freed communicators (still held, or not yet swept).
  std::size_t retired() const;

 private:
  struct Slot {
    std::atomic<std::uint64_t> handle{kEmpty};
    std::atomic<CommInfo*> info{nullptr};
  };
  static std::size_t slot_of(std::uint64_t h) {
    return static_cast<std::size_t>((h * 0x9e3779b97f4a7c15ull) >> 40) % kCapacity;
  }

  // Moves a replaced or forgotten entry to m_retired and frees the retired
  // entries nothing holds any more. Called with m_write held.
  void retire(CommInfo* info);

  std::unique_ptr<Slot[]> m_slots;
  mutable std::mutex m_write;
  std::vector<CommInfo*> m_retired;
};

}  // namespace mpidle::profiler
