#pragma once
// Two lists sorted by one key, merged into the first: items of one list only are
// kept as they are, two items with equal keys become one by `combine(into, from)`.
// What the finalize tree does at each level with the global minima, the callsites'
// duration histograms and the bins of a histogram. No MPI.

#include <utility>
#include <vector>

namespace mpidle::model {

template <typename T, typename Less, typename Combine>
void merge_sorted(std::vector<T>& into, const std::vector<T>& from, Less less, Combine combine) {
  std::vector<T> merged;
  merged.reserve(into.size() + from.size());
  auto a = into.begin();
  auto b = from.begin();
  while (a != into.end() || b != from.end()) {
    if (b == from.end() || (a != into.end() && less(*a, *b))) {
      merged.push_back(std::move(*a++));
    } else if (a == into.end() || less(*b, *a)) {
      merged.push_back(*b++);
    } else {
      T item = std::move(*a++);
      combine(item, *b++);
      merged.push_back(std::move(item));
    }
  }
  into = std::move(merged);
}

}  // namespace mpidle::model
