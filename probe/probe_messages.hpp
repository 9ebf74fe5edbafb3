#pragma once
// What one message costs each side's CPU, and whether it moves while its partner
// computes (mpidle-machine/2's "messages", docs/prediction.md): measured between
// rank 0 and one peer, size by size, after the one-way curve.

#include <cstdint>

#include "model/machine_model.hpp"

namespace mpidle::probe {

// Every rank calls it; only rank 0 and `peer` measure, and rank 0's result is the
// model's (the other ranks get an empty one). `one_way`: the pair's measured
// one-way curve, which sets how long the probe computes between post and wait.
model::MessageCosts measure_message_costs(int rank, int peer, const model::CostCurve& one_way,
                                          std::uint64_t eager_limit);

// Whether two transfers at once share the link: both ranks send the curve's largest
// size to each other at once, against one way (about 1: split-duplex, each direction
// its own rate; about 2: one medium). Every rank calls it; all get rank 0's value.
double both_ways_ratio(int rank, int peer, const model::CostCurve& one_way);

// Whether two senders into one receiver share its side of the link: `senders` send
// the curve's largest size to `receiver` at once, against one sender alone (about 1:
// each sender's own rate decides; about 2: the receiver's side is one rate). Every
// rank calls it; all get the receiver's value.
double incast_ratio(int rank, int receiver, const int senders[2], const model::CostCurve& one_way);

}  // namespace mpidle::probe
