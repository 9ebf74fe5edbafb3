#pragma once
// How the probe repeats a measurement until it agrees with itself: batches, their
// median and their spread. Shared by the point-to-point, message-cost and
// collective measurements.

#include <mpi.h>

#include <algorithm>
#include <vector>

namespace mpidle::probe {

// --quick (tests): fewer sizes and shorter batches.
inline bool g_quick = false;

inline double batch_seconds() {
  return g_quick ? 0.004 : 0.02;
}
// Batches per measurement: at least the first, then more until their spread is
// within kBatchAgreement, at most the second.
inline int batches() {
  return g_quick ? 3 : 5;
}
inline int max_batches() {
  return g_quick ? 9 : 15;
}
inline constexpr double kBatchAgreement = 0.05;

// A measurement from repeated batches: their median, and their spread,
// (75th − 25th percentile) / median.
struct Measured {
  double seconds = 0;
  double spread = 0;
};

inline Measured median_and_spread(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  Measured m;
  m.seconds = values[n / 2];
  if (m.seconds > 0) m.spread = (values[(3 * n) / 4] - values[n / 4]) / m.seconds;
  return m;
}

// Runs `batch` (which returns one batch's value; every rank taking part calls it
// in step) batches() times, then more, up to max_batches(), while the spread is
// above kBatchAgreement. `decide` makes every rank take the same decision (a
// broadcast from the leader or a reduction).
template <typename Batch, typename Decide>
Measured repeat_until_agreeing(Batch batch, Decide decide) {
  std::vector<double> values;
  for (int b = 0; b < batches(); ++b) values.push_back(batch());
  Measured m = median_and_spread(values);
  while (static_cast<int>(values.size()) < max_batches() && decide(m.spread > kBatchAgreement)) {
    values.push_back(batch());
    m = median_and_spread(values);
  }
  return m;
}

// A decision for two ranks: the leader's, sent to the other.
inline bool pair_decision(bool leader, int peer, bool more) {
  int go_on = more ? 1 : 0;
  if (leader) {
    MPI_Send(&go_on, 1, MPI_INT, peer, 4, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&go_on, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return go_on != 0;
}

// Spins (outside MPI) for `seconds`: a rank computing.
inline void busy_for(double seconds) {
  const double until = MPI_Wtime() + seconds;
  while (MPI_Wtime() < until) {
  }
}

}  // namespace mpidle::probe
