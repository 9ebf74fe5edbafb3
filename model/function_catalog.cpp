#include "function_catalog.hpp"

#include <algorithm>
#include <array>

namespace mpidle::model {
namespace {

constexpr FunctionInfo kCatalog[] = {
#define MPIDLE_FUNCTION(name, group, kind, dependency, operation, can_wait) \
  {                                                                         \
      name,                                                                 \
      FunctionGroup::group,                                                 \
      kind,                                                                 \
      CollectiveKind::dependency,                                           \
      CollectiveOperation::operation,                                       \
      can_wait},
#include "mpi_catalog.inc"
#undef MPIDLE_FUNCTION
};

constexpr std::string_view kOperationNames[] = {
    "none",
#define MPIDLE_OPERATION(name) #name,
#include "mpi_collective_operations.inc"
#undef MPIDLE_OPERATION
};

}  // namespace

const FunctionInfo* find_function(std::string_view name) {
  // Sorted once: a trace or profile names a few dozen functions, each looked up once.
  static const auto sorted = [] {
    std::array<const FunctionInfo*, std::size(kCatalog)> entries{};
    for (std::size_t i = 0; i < entries.size(); ++i) entries[i] = &kCatalog[i];
    std::sort(entries.begin(), entries.end(),
              [](const FunctionInfo* a, const FunctionInfo* b) { return a->name < b->name; });
    return entries;
  }();
  const auto it = std::lower_bound(
      sorted.begin(), sorted.end(), name,
      [](const FunctionInfo* entry, std::string_view key) { return entry->name < key; });
  return it != sorted.end() && (*it)->name == name ? *it : nullptr;
}

bool is_completion(std::string_view name) {
  const FunctionInfo* f = find_function(name);
  return f != nullptr && f->group == FunctionGroup::completion;
}

bool is_poll(std::string_view name) {
  return name.substr(0, 8) == "MPI_Test";
}

bool can_wait(std::string_view name) {
  const FunctionInfo* f = find_function(name);
  return f == nullptr || f->can_wait;
}

bool is_barrier(std::string_view name) {
  const FunctionInfo* f = find_function(name);
  return f != nullptr && f->operation == CollectiveOperation::barrier;
}

std::string_view operation_name(CollectiveOperation operation) {
  const auto i = static_cast<std::size_t>(operation);
  return i < std::size(kOperationNames) ? kOperationNames[i] : "none";
}

}  // namespace mpidle::model
