#pragma once
// Hand-built tables with known answers, shared by the model tests.

#include "model/profile_tables.hpp"

namespace mpidle::test {

// One rank: MPI_Recv from peer 1 at one callsite, visits of 1, 1, 4 µs in total
// 6 µs (min 1 µs), and MPI_Barrier with a first call of 10 µs.
inline model::RankData rank_with(std::int32_t rank, double recv_time, double recv_min) {
  model::RankData r;
  r.rank = rank;
  r.host = "node" + std::to_string(rank);
  r.wall_s = 1.0;
  r.entries.push_back(model::Entry{0, 0, 4, 1, 3, recv_time, recv_min, 24});
  r.entries.push_back(model::Entry{1, 1, 0, -1, 2, 12e-6, 2e-6, 0});
  r.first_calls.push_back(model::FirstCall{1, 0, -1, 10e-6});
  return r;
}

inline model::ProfileTables tables_for_rank(std::int32_t rank, double recv_time, double recv_min,
                                            const std::string& module = "/bin/app") {
  model::ProfileTables t;
  t.functions = {"MPI_Recv", "MPI_Barrier"};
  t.callsites = {model::Callsite{{model::Frame{module, 0x1000, "", "", 0}}, {}},
                 model::Callsite{{model::Frame{module, 0x2000, "", "", 0}}, {}}};
  t.ranks.push_back(rank_with(rank, recv_time, recv_min));
  return t;
}

}  // namespace mpidle::test
