#include "profiler/core/regions.hpp"

#include <atomic>
#include <cstring>

#include "profiler/core/log.hpp"

namespace mpidle::profiler {
namespace {

std::uint64_t hash_of(std::string_view name) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

}  // namespace

std::string region_name(const char* name) {
  if (name == nullptr) return {};
  std::string out(name, strnlen(name, kMaxRegionName));
  for (char& c : out) {
    if (c == '/') c = '_';
  }
  return out;
}

std::uint16_t RegionRegistry::intern(std::uint16_t parent, std::string_view name) {
  std::lock_guard lock(m_mutex);
  if (parent >= m_paths.size()) return kFull;
  std::string path = m_paths[parent];
  if (!path.empty()) path += '/';
  path += name;
  if (auto it = m_index.find(path); it != m_index.end()) return it->second;
  if (m_paths.size() >= kCapacity) return kFull;
  const auto index = static_cast<std::uint16_t>(m_paths.size());
  m_index.emplace(path, index);
  m_paths.push_back(std::move(path));
  return index;
}

std::vector<std::string> RegionRegistry::paths() const {
  std::lock_guard lock(m_mutex);
  return m_paths;
}

bool RegionStack::begin(RegionRegistry& registry, const char* raw_name, Ticks now) {
  const std::string name = region_name(raw_name);
  if (name.empty()) return false;
  if (m_depth == kMaxDepth) {
    ++m_beyond;
    return false;
  }
  const std::uint64_t h = hash_of(name);
  Known& known = m_known[(h ^ m_current) % m_known.size()];
  std::uint16_t region = 0;
  if (known.used && known.name_hash == h && known.outer == m_current) {
    region = known.region;
  } else {
    region = registry.intern(m_current, name);
    if (region == RegionRegistry::kFull) {
      static std::atomic<bool> warned{false};  // one line per process is enough
      if (!warned.exchange(true)) {
        warn("more than " + std::to_string(RegionRegistry::kCapacity - 1) +
             " region paths: region \"" + name +
             "\" and later new ones count in their enclosing region");
      }
    }
    known = Known{h, m_current, region, true};
  }
  m_open[m_depth++] = Open{region, m_current, h, now};
  if (region == RegionRegistry::kFull) return false;
  ++m_visits[region];
  m_current = region;
  return true;
}

bool RegionStack::end(const char* raw_name, Ticks now, bool& unmatched) {
  unmatched = false;
  const std::string name = region_name(raw_name);
  if (name.empty()) return false;
  if (m_beyond > 0) {
    --m_beyond;
    return false;
  }
  const std::uint64_t h = hash_of(name);
  int at = m_depth - 1;
  while (at >= 0 && m_open[at].name_hash != h) --at;
  if (at < 0) {
    unmatched = true;
    return false;
  }
  // Regions opened inside it and never closed end with it.
  while (m_depth > at) {
    const Open& o = m_open[--m_depth];
    if (o.region != RegionRegistry::kFull) m_wall[o.region] += now - o.start;
  }
  const std::uint16_t before = m_current;
  m_current = m_open[at].outer;
  return m_current != before;
}

void RegionStack::totals(Ticks now, std::vector<Ticks>& wall,
                         std::vector<std::uint64_t>& visits) const {
  wall.assign(m_wall.begin(), m_wall.end());
  visits.assign(m_visits.begin(), m_visits.end());
  for (int i = 0; i < m_depth; ++i) {
    if (m_open[i].region != RegionRegistry::kFull) wall[m_open[i].region] += now - m_open[i].start;
  }
}

}  // namespace mpidle::profiler
