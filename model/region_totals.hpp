#pragma once
// Code regions (docs/regions.md): phases a program marks by name (MPI_Pcontrol in
// IPM's convention, or mpidle_region_begin/end), nested. Each rank's tables carry
// the region of every call and the time it spent inside each region; here they
// become per-region totals that the finalize tree adds up, bounded by the number of
// regions, not by P. Everything is inclusive: a region's time holds its children's.
// No MPI.

#include <cstdint>
#include <string>
#include <vector>

#include "pop_metrics.hpp"
#include "wait_estimates.hpp"

namespace mpidle::model {

// Paths join nested names with '/'; the empty path is the whole program.
inline constexpr char kRegionSeparator = '/';
// A region's parent path ("" for a top-level region).
std::string parent_region(const std::string& path);
// How deep a region is: 1 for a top-level one.
int region_depth(const std::string& path);

struct RegionTotals : WaitEstimates {
  std::string path;
  std::uint64_t visits = 0;                   // entries, all ranks
  std::uint64_t ranks = 0;                    // ranks that entered it
  std::uint64_t calls = 0;                    // MPI calls made inside
  double mpi_s = 0;                           // their time, all ranks
  double wall_sum_s = 0, wall_max_s = 0;      // time inside, per rank
  double useful_sum_s = 0, useful_max_s = 0;  // time inside and outside MPI, per rank
};

// One rank's regions: `wall_s[i]` is the rank's time inside `paths[i]`, and each of
// its calls adds to its own region and every enclosing one. Sorted by path.
struct RegionCall {
  std::uint32_t region = 0;  // index into `paths`
  std::uint64_t visits = 0;
  double time_s = 0;
  WaitEstimates wait;
};
std::vector<RegionTotals> rank_regions(const std::vector<std::string>& paths,
                                       const std::vector<double>& wall_s,
                                       const std::vector<std::uint64_t>& visits,
                                       const std::vector<RegionCall>& calls);

// Adds `from` into `into`; both sorted by path.
void merge_regions(std::vector<RegionTotals>& into, const std::vector<RegionTotals>& from);

// POP's efficiencies of one region over a run of `run_ranks` ranks: ranks that never
// entered it count as doing no useful work there (POP's definition takes the mean
// over every process).
PopEfficiency region_efficiency(const RegionTotals& region, std::uint64_t run_ranks);

}  // namespace mpidle::model
