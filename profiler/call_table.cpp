#include "call_table.hpp"

#include <bit>

namespace mpidle::profiler {

CallTable::CallTable(std::size_t capacity)
    : m_capacity(std::bit_ceil(capacity < 4 ? std::size_t{4} : capacity)),
      m_limit(m_capacity / 4 * 3),
      m_slots(new Slot[m_capacity]) {}

}  // namespace mpidle::profiler
