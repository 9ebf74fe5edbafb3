#pragma once
// Code regions (docs/regions.md): phases a program opens and closes by name, nested,
// through mpidle_region_begin/end (include/mpidle.h) or IPM's MPI_Pcontrol(±1, name)
// with MPIDLE_PCONTROL=regions. The registry numbers each path once per process; each
// thread keeps its own stack of open regions and the time it spent in each. Neither
// is on a call's hot path: opening or closing a region changes the thread's current
// index, which the call table's new keys take (thread_state.hpp).

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/core/clock.hpp"

namespace mpidle::profiler {

class RegionRegistry {
 public:
  // Paths per process, "" (outside every region) included: bounded, so that a
  // program naming regions in a loop cannot grow the tables.
  static constexpr std::uint16_t kCapacity = 256;
  static constexpr std::uint16_t kFull = 0xffff;

  // The index of region `name` opened inside region `parent`; kFull when full.
  std::uint16_t intern(std::uint16_t parent, std::string_view name);
  // Every path, by index.
  std::vector<std::string> paths() const;

 private:
  mutable std::mutex m_mutex;
  std::vector<std::string> m_paths{std::string{}};
  std::map<std::string, std::uint16_t, std::less<>> m_index;
};

// A name as regions keep it: at most kMaxRegionName bytes, '/' (which joins nested
// names into a path) turned into '_'. Empty for a null or empty name.
inline constexpr std::size_t kMaxRegionName = 64;
std::string region_name(const char* name);

// One thread's open regions, innermost last, and its time inside each region.
class RegionStack {
 public:
  static constexpr int kMaxDepth = 32;

  // Each returns whether the thread's current region changed.
  bool begin(RegionRegistry& registry, const char* name, Ticks now);
  // Closes the innermost open region named `name`, and any opened inside it and
  // left open; a name that is not open changes nothing (`unmatched` set).
  bool end(const char* name, Ticks now, bool& unmatched);

  std::uint16_t current() const { return m_current; }
  // Ticks inside each region (open ones up to `now`) and entries, by index.
  void totals(Ticks now, std::vector<Ticks>& wall, std::vector<std::uint64_t>& visits) const;

 private:
  struct Open {
    std::uint16_t region = 0;  // RegionRegistry::kFull: past the registry, not timed
    std::uint16_t outer = 0;   // the current region before this one
    std::uint64_t name_hash = 0;
    Ticks start = 0;
  };
  std::array<Open, kMaxDepth> m_open{};
  int m_depth = 0;
  int m_beyond = 0;  // opened past kMaxDepth: only counted, so that ends still match
  std::uint16_t m_current = 0;
  std::array<Ticks, RegionRegistry::kCapacity> m_wall{};
  std::array<std::uint64_t, RegionRegistry::kCapacity> m_visits{};
  // (outer region, name) → region, so that a region opened again takes no lock.
  struct Known {
    std::uint64_t name_hash = 0;
    std::uint16_t outer = 0, region = 0;
    bool used = false;
  };
  std::array<Known, 64> m_known{};
};

}  // namespace mpidle::profiler
