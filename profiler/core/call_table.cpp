#include "profiler/core/call_table.hpp"

#include <bit>
#include <cstdlib>
#include <new>
#include <type_traits>

namespace mpidle::profiler {

// calloc hands large blocks out as fresh zero pages (mmap), untouched until a key
// lands there, and a zero Slot is an unused one.
static_assert(std::is_trivially_destructible_v<CallKey>);

namespace {
std::size_t rounded_capacity(std::size_t capacity) {
  return std::bit_ceil(capacity < 4 ? std::size_t{4} : capacity);
}
}  // namespace

CallTable::CallTable(std::size_t capacity)
    : m_capacity(rounded_capacity(capacity)), m_limit(m_capacity / 4 * 3) {
  void* memory = std::calloc(m_capacity, sizeof(Slot));
  if (memory == nullptr) throw std::bad_alloc();
  m_slots.reset(static_cast<Slot*>(memory));
  m_page_touched.assign((m_capacity * sizeof(Slot) + kPageBytes - 1) / kPageBytes, false);
}

void CallTable::FreeSlots::operator()(Slot* slots) const {
  std::free(slots);
}

void CallTable::touch(std::size_t slot) {
  const std::size_t first = slot * sizeof(Slot) / kPageBytes;
  const std::size_t last = ((slot + 1) * sizeof(Slot) - 1) / kPageBytes;
  for (std::size_t page = first; page <= last; ++page) {
    if (m_page_touched[page]) continue;
    m_page_touched[page] = true;
    ++m_touched_pages;
  }
}

}  // namespace mpidle::profiler
