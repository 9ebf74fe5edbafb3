#pragma once
// Interns call stacks (MPIDLE_CALLSITE_DEPTH > 1) into small ids so that the call
// table keys stay fixed-size. Per thread, fixed capacity, no allocation after start.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace mpidle::profiler {

inline constexpr std::size_t kMaxStackDepth = 16;
// Stack ids are tagged so they never collide with return addresses (user space
// addresses have the top bit clear).
inline constexpr std::uintptr_t kStackIdTag = std::uintptr_t{1} << 63;

class StackTable {
 public:
  explicit StackTable(std::size_t capacity);

  // Id of this stack (innermost first, at most kMaxStackDepth frames), or 0 when full.
  std::uintptr_t intern(std::span<void* const> frames);
  // Frames of an id returned by intern().
  std::vector<std::uintptr_t> frames_of(std::uintptr_t id) const;
  std::size_t memory_bytes() const { return m_capacity * sizeof(Slot); }

 private:
  struct Slot {
    std::uint8_t depth = 0;  // 0 = empty
    std::array<std::uintptr_t, kMaxStackDepth> frames{};
  };
  std::size_t m_capacity;
  std::size_t m_size = 0;
  std::unique_ptr<Slot[]> m_slots;
};

}  // namespace mpidle::profiler
