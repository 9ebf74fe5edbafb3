#pragma once
// What profile.json says about the run itself ("run" section).

#include <cstdint>
#include <string>
#include <vector>

namespace mpidle::model {

inline constexpr const char* kProfileSchema = "mpidle-profile/1";

struct RunInfo {
  std::string executable;
  std::vector<std::string> args;
  std::string mpi_library;
  std::string start;  // ISO 8601, UTC
  double wall_s = 0;
  std::string timer;
  double timer_resolution_s = 0;
  std::string mode = "profile";
  bool global_minimum = false;  // which estimate the text report shows
  std::int32_t callsite_depth = 1;
  double per_call_overhead_s = 0;  // measured cost of one intercepted call's bookkeeping
};

}  // namespace mpidle::model
