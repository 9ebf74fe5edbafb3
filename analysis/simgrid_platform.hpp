#pragma once
// The SimGrid platform a prediction runs on, from a machine model: one host per
// rank at the CPU factor's speed; ranks of one traced node joined by the model's
// intra-node link, nodes by its inter-node link, each shared or split-duplex (and
// its receiving side shared by two senders or not) as the probe measured; SimGrid's latency and
// bandwidth factors make a lone message of every size take the model's one-way time.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u.hpp>

#include "model/machine_model.hpp"

namespace mpidle::analysis {

// Host speed: one flop is one nanosecond of the traced run's compute.
inline constexpr double kFlopsPerTracedSecond = 1e9;

struct Platform {
  std::vector<simgrid::s4u::Host*> hosts;  // by position in the trace
  std::vector<std::uint32_t> node_of;      // by position: the traced node
  std::unordered_map<const simgrid::s4u::Host*, std::uint32_t> position;
  model::LinkSharing intra = model::LinkSharing::split_duplex;
  model::LinkSharing inter = model::LinkSharing::split_duplex;
};

// Builds the platform in the current engine (before it runs) and installs the
// factors. `hosts`: the traced node of each rank (empty: all on one node).
Platform build_platform(const model::MachineModel& machine, const std::vector<std::string>& hosts,
                        std::size_t ranks, double cpu_scale);

}  // namespace mpidle::analysis
