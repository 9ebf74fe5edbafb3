#include "probe_messages.hpp"

#include <mpi.h>

#include <algorithm>
#include <vector>

#include "probe_measure.hpp"

namespace mpidle::probe {
namespace {

constexpr int kMessages = 4;  // per batch of the overhead measurements
constexpr int kData = 11, kReady = 12, kAllSent = 13;

// A pair of ranks measuring one message size with `kMessages` buffers each.
struct Pair {
  bool leader;  // rank 0: the sender
  int peer;
  int count;
  std::vector<std::vector<char>>& buffers;
  void* buffer(int i) const { return buffers[static_cast<std::size_t>(i)].data(); }
};

// The send call's own time while the receiver computes (its receives not posted):
// an eager send copies its data out and returns, a rendezvous send only posts.
double send_overhead_batch(const Pair& p, double receiver_busy_s) {
  MPI_Request requests[kMessages];
  double posting = 0;
  if (p.leader) {
    MPI_Recv(nullptr, 0, MPI_BYTE, p.peer, kReady, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < kMessages; ++i) {
      const double t0 = MPI_Wtime();
      MPI_Isend(p.buffer(i), p.count, MPI_BYTE, p.peer, kData, MPI_COMM_WORLD, &requests[i]);
      posting += MPI_Wtime() - t0;
    }
    MPI_Waitall(kMessages, requests, MPI_STATUSES_IGNORE);
  } else {
    MPI_Send(nullptr, 0, MPI_BYTE, p.peer, kReady, MPI_COMM_WORLD);
    busy_for(receiver_busy_s);
    for (int i = 0; i < kMessages; ++i) {
      MPI_Recv(p.buffer(i), p.count, MPI_BYTE, p.peer, kData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  return posting / kMessages;
}

// The receive call's own time for data that has arrived (eager sizes): the
// sender's later message, received first, arrived after them on the same path.
double receive_overhead_batch(const Pair& p, double settle_s) {
  double receiving = 0;
  if (p.leader) {
    MPI_Request requests[kMessages];
    for (int i = 0; i < kMessages; ++i) {
      MPI_Isend(p.buffer(i), p.count, MPI_BYTE, p.peer, kData, MPI_COMM_WORLD, &requests[i]);
    }
    MPI_Send(nullptr, 0, MPI_BYTE, p.peer, kAllSent, MPI_COMM_WORLD);
    MPI_Waitall(kMessages, requests, MPI_STATUSES_IGNORE);
  } else {
    MPI_Recv(nullptr, 0, MPI_BYTE, p.peer, kAllSent, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    busy_for(settle_s);
    for (int i = 0; i < kMessages; ++i) {
      const double t0 = MPI_Wtime();
      MPI_Recv(p.buffer(i), p.count, MPI_BYTE, p.peer, kData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      receiving += MPI_Wtime() - t0;
    }
  }
  // The receiver measured: the leader learns its value.
  MPI_Sendrecv_replace(&receiving, 1, MPI_DOUBLE, p.peer, kReady, p.peer, kReady, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  return receiving / kMessages;
}

// Posts the receive, tells the sender, both compute for `compute_s`, then wait:
// the longer of the two waits, and the receive's post.
struct Exchange {
  double wait_s = 0;
  double post_s = 0;
};
Exchange exchange(const Pair& p, double compute_s) {
  MPI_Request request;
  Exchange b;
  if (p.leader) {
    MPI_Recv(nullptr, 0, MPI_BYTE, p.peer, kReady, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Isend(p.buffer(0), p.count, MPI_BYTE, p.peer, kData, MPI_COMM_WORLD, &request);
  } else {
    const double t0 = MPI_Wtime();
    MPI_Irecv(p.buffer(0), p.count, MPI_BYTE, p.peer, kData, MPI_COMM_WORLD, &request);
    b.post_s = MPI_Wtime() - t0;
    MPI_Send(nullptr, 0, MPI_BYTE, p.peer, kReady, MPI_COMM_WORLD);
  }
  busy_for(compute_s);
  const double t0 = MPI_Wtime();
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  double both[2] = {MPI_Wtime() - t0, b.post_s};
  double other[2];
  MPI_Sendrecv(both, 2, MPI_DOUBLE, p.peer, kAllSent, other, 2, MPI_DOUBLE, p.peer, kAllSent,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  b.wait_s = std::max(both[0], other[0]);
  b.post_s = std::max(both[1], other[1]);
  return b;
}

// One exchange that waits at once (its wait is the whole transfer), then one that
// computes for longer than that before waiting. `held`: the second's wait over the
// first's; near 1, the message moved only once both were inside MPI; near 0, it
// moved while they computed. Both in one batch, so that a machine whose speed
// changes between launches or phases compares like with like.
struct ProgressBatch {
  double held = 1;
  double post_s = 0;  // the receive's post, the faster of the two
};
ProgressBatch progress_batch(const Pair& p, double transfer_s) {
  const Exchange at_once = exchange(p, 0);
  const Exchange later = exchange(p, 100e-6 + 3 * std::max(transfer_s, at_once.wait_s));
  return {at_once.wait_s > 0 ? later.wait_s / at_once.wait_s : 1,
          std::min(later.post_s, at_once.post_s)};
}

// A blocking send whose receive is posted and waited for: how long the send itself
// takes. Over TCP a send returns once its data is in the socket's buffer, long
// before it arrived (the transfer goes on behind the program); over shared memory
// once it was copied. The sender (the leader, whose values count) measures; nothing
// of it is left in flight after.
double blocking_send_batch(const Pair& p) {
  double sending = 0;
  if (p.leader) {
    MPI_Recv(nullptr, 0, MPI_BYTE, p.peer, kReady, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const double t0 = MPI_Wtime();
    MPI_Send(p.buffer(0), p.count, MPI_BYTE, p.peer, kData, MPI_COMM_WORLD);
    sending = MPI_Wtime() - t0;
    MPI_Recv(nullptr, 0, MPI_BYTE, p.peer, kAllSent, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Request request;
    MPI_Irecv(p.buffer(0), p.count, MPI_BYTE, p.peer, kData, MPI_COMM_WORLD, &request);
    MPI_Send(nullptr, 0, MPI_BYTE, p.peer, kReady, MPI_COMM_WORLD);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Send(nullptr, 0, MPI_BYTE, p.peer, kAllSent, MPI_COMM_WORLD);
  }
  return sending;
}

// One MPI_Sendrecv of the size each way, both ranks entering together (an empty
// exchange lines them up): the mean of `iterations` exchanges, the slower rank's.
double two_way_batch(const Pair& p, int iterations) {
  MPI_Sendrecv(nullptr, 0, MPI_BYTE, p.peer, kReady, nullptr, 0, MPI_BYTE, p.peer, kReady,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) {
    MPI_Sendrecv(p.buffer(0), p.count, MPI_BYTE, p.peer, kData, p.buffer(1), p.count, MPI_BYTE,
                 p.peer, kData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  double mine = (MPI_Wtime() - t0) / iterations, other = 0;
  MPI_Sendrecv(&mine, 1, MPI_DOUBLE, p.peer, kAllSent, &other, 1, MPI_DOUBLE, p.peer, kAllSent,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return std::max(mine, other);
}

// Both ranks send `count` bytes to each other at once, their receives posted first
// and the two lined up (an empty exchange): the slower rank's time until both
// messages are in. One exchange a batch, the link drained between, so that no
// queue of earlier data (or of Open MPI's rendezvous answers behind it) counts.
double both_ways_batch(const Pair& p) {
  MPI_Request requests[2];
  MPI_Irecv(p.buffer(1), p.count, MPI_BYTE, p.peer, kData, MPI_COMM_WORLD, &requests[0]);
  MPI_Sendrecv(nullptr, 0, MPI_BYTE, p.peer, kReady, nullptr, 0, MPI_BYTE, p.peer, kReady,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  const double t0 = MPI_Wtime();
  MPI_Isend(p.buffer(0), p.count, MPI_BYTE, p.peer, kData, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  double mine = MPI_Wtime() - t0, other = 0;
  MPI_Sendrecv(&mine, 1, MPI_DOUBLE, p.peer, kAllSent, &other, 1, MPI_DOUBLE, p.peer, kAllSent,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return std::max(mine, other);
}

// Two senders send `count` bytes to one receiver at once, its receives posted
// first and the three lined up (a word from the receiver to each): the receiver's
// time from that word until both messages are in. One batch at a time, the link
// drained between.
double incast_batch(int rank, int receiver, const int senders[2], int count,
                    std::vector<char>& buffer) {
  double took = 0;
  if (rank == receiver) {
    std::vector<char> second(buffer.size());
    MPI_Request requests[2];
    MPI_Irecv(buffer.data(), count, MPI_BYTE, senders[0], kData, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(second.data(), count, MPI_BYTE, senders[1], kData, MPI_COMM_WORLD, &requests[1]);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < 2; ++i) MPI_Send(nullptr, 0, MPI_BYTE, senders[i], kReady, MPI_COMM_WORLD);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    took = MPI_Wtime() - t0;
  } else {
    MPI_Recv(nullptr, 0, MPI_BYTE, receiver, kReady, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buffer.data(), count, MPI_BYTE, receiver, kData, MPI_COMM_WORLD);
  }
  return took;
}

}  // namespace

double incast_ratio(int rank, int receiver, const int senders[2], const model::CostCurve& one_way) {
  if (one_way.points.empty()) return 0;
  const std::uint64_t bytes = one_way.points.back().bytes;
  double ratio = 0;
  if (rank == receiver || rank == senders[0] || rank == senders[1]) {
    std::vector<char> buffer(std::max<std::uint64_t>(bytes, 1), 1);
    // The fastest of the batches, as for both ways at once; all three run the same
    // fixed number.
    double fastest = 0;
    for (int b = 0; b < std::max(batches(), 7); ++b) {
      const double t = incast_batch(rank, receiver, senders, static_cast<int>(bytes), buffer);
      fastest = b == 0 ? t : std::min(fastest, t);
    }
    const double alone = one_way.points.back().seconds;
    if (rank == receiver) ratio = alone > 0 ? fastest / alone : 0;
  }
  MPI_Bcast(&ratio, 1, MPI_DOUBLE, receiver, MPI_COMM_WORLD);
  return ratio;
}

double both_ways_ratio(int rank, int peer_rank, const model::CostCurve& one_way) {
  if (one_way.points.empty()) return 0;
  const std::uint64_t bytes = one_way.points.back().bytes;
  double ratio = 0;
  if (rank == 0 || rank == peer_rank) {
    std::vector<std::vector<char>> buffers(2,
                                           std::vector<char>(std::max<std::uint64_t>(bytes, 1), 1));
    const Pair p{rank == 0, rank == 0 ? peer_rank : 0, static_cast<int>(bytes), buffers};
    // The fastest of the batches: what slows a batch besides a shared rate only slows
    // it. Open MPI's TCP sends a large message's first fragment and waits for the
    // receiver's answer, which can queue behind the other direction's data: on a
    // split-duplex 200 Mbit/s link the median of a quick probe's batches was 1.02 in
    // one launch and 1.93 in another. Both ranks run the same fixed number.
    double fastest = 0;
    for (int b = 0; b < std::max(batches(), 7); ++b) {
      const double t = both_ways_batch(p);
      fastest = b == 0 ? t : std::min(fastest, t);
    }
    const double alone = one_way.points.back().seconds;
    ratio = alone > 0 ? fastest / alone : 0;
  }
  MPI_Bcast(&ratio, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return ratio;
}

model::MessageCosts measure_message_costs(int rank, int peer_rank, const model::CostCurve& one_way,
                                          std::uint64_t eager_limit) {
  model::MessageCosts costs;
  const bool measuring = rank == 0 || rank == peer_rank;
  std::vector<std::vector<char>> buffers(kMessages);
  bool previous_progress = true, previous_rendezvous = false;
  costs.protocols.push_back({0, false, true});
  costs.exchange.emplace();
  costs.blocking_send.emplace();
  for (const auto& point : one_way.points) {
    const std::uint64_t bytes = point.bytes;
    const bool rendezvous = bytes > eager_limit;
    // send, its spread, receive, its spread, progresses, exchange, its spread, blocking
    // send, its spread
    double values[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
    if (measuring) {
      for (auto& b : buffers) b.resize(std::max<std::uint64_t>(bytes, 1), 1);
      const Pair p{rank == 0, rank == 0 ? peer_rank : 0, static_cast<int>(bytes), buffers};
      const double transfer_s = point.seconds;
      const auto decide = [&](bool more) { return pair_decision(p.leader, p.peer, more); };
      const Measured send = repeat_until_agreeing(
          [&] { return send_overhead_batch(p, 50e-6 + 2 * kMessages * transfer_s); }, decide);
      Measured receive;
      if (rendezvous) {
        // The data waits for the receive: its own CPU cost is the post, and
        // whether the transfer then needs both sides inside MPI.
        std::vector<ProgressBatch> runs;
        const Measured held = repeat_until_agreeing(
            [&] {
              runs.push_back(progress_batch(p, transfer_s));
              return runs.back().held;
            },
            decide);
        std::vector<double> posts;
        for (const auto& r : runs) posts.push_back(r.post_s);
        receive = median_and_spread(posts);
        values[4] = held.seconds < 0.5 ? 1 : 0;
      } else {
        receive = repeat_until_agreeing(
            [&] { return receive_overhead_batch(p, 20e-6 + transfer_s); }, decide);
      }
      const int iterations =
          std::clamp(static_cast<int>(batch_seconds() / std::max(2 * transfer_s, 1e-7)), 2, 100000);
      two_way_batch(p, 1);  // warm-up
      const Measured both_ways =
          repeat_until_agreeing([&] { return two_way_batch(p, iterations); }, decide);
      values[0] = send.seconds;
      values[1] = send.spread;
      values[2] = receive.seconds;
      values[3] = receive.spread;
      values[5] = both_ways.seconds;
      values[6] = both_ways.spread;
      const Measured blocking =
          repeat_until_agreeing([&] { return blocking_send_batch(p); }, decide);
      values[7] = blocking.seconds;
      values[8] = blocking.spread;
    }
    MPI_Bcast(values, 9, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    // A blocking send takes at most the one-way time (the message has arrived then).
    costs.blocking_send->points.push_back({bytes, std::min(values[7], point.seconds), values[8]});
    costs.exchange->points.push_back({bytes, values[5], values[6]});
    // An overhead is part of the one-way time, never more.
    costs.send_overhead.points.push_back({bytes, std::min(values[0], point.seconds), values[1]});
    costs.receive_overhead.points.push_back({bytes, std::min(values[2], point.seconds), values[3]});
    const bool progresses = values[4] != 0;
    if (rendezvous != previous_rendezvous || progresses != previous_progress) {
      // The switch lies between the previous measured size and this one.
      const std::uint64_t from = rendezvous != previous_rendezvous ? eager_limit + 1 : bytes;
      costs.protocols.push_back({from, rendezvous, progresses});
      previous_rendezvous = rendezvous;
      previous_progress = progresses;
    }
  }
  return costs;
}

}  // namespace mpidle::probe
