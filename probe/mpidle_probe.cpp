// mpidle-probe: measures a machine model for `mpidle predict` (docs/prediction.md).
// Started by `mpidle probe -- LAUNCHER ARGS...` on 2 or more ranks (on a cluster,
// ranks on two nodes give the inter-node curve too). Rank 0 writes the model and
// prints a summary; progress goes to stderr.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "model/machine_model.hpp"
#include "probe_kernels.hpp"
#include "probe_measure.hpp"
#include "probe_messages.hpp"

namespace {

using mpidle::model::CostCurve;
using mpidle::model::MachineModel;
using namespace mpidle::probe;

struct Options {
  std::string output = "machine.json";
  std::string name;
  bool quick = false;  // fewer sizes and shorter batches (tests)
};

int g_rank = 0;

void progress(const std::string& what) {
  if (g_rank == 0) std::fprintf(stderr, "mpidle probe: %s\n", what.c_str());
}

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

// Half a round trip between `me` and `peer` for `bytes`, the median of several
// batches (what an application sees, not the best case). Both call it.
Measured ping_pong(int me, int peer, bool leader, std::uint64_t bytes, std::vector<char>& buffer) {
  const int n = static_cast<int>(bytes);
  auto round_trip = [&] {
    if (leader) {
      MPI_Send(buffer.data(), n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(buffer.data(), n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer.data(), n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    }
  };
  for (int i = 0; i < 3; ++i) round_trip();  // warm-up: connections, registration
  // The leader times one round trip and tells the other how many make a batch.
  int iterations = 1;
  if (leader) {
    const double t0 = MPI_Wtime();
    round_trip();
    const double one = std::max(MPI_Wtime() - t0, 1e-7);
    iterations = std::clamp(static_cast<int>(batch_seconds() / one), 2, 100000);
    MPI_Send(&iterations, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
  } else {
    round_trip();
    MPI_Recv(&iterations, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  (void)me;
  return repeat_until_agreeing(
      [&] {
        const double t0 = MPI_Wtime();
        for (int i = 0; i < iterations; ++i) round_trip();
        return (MPI_Wtime() - t0) / iterations / 2;
      },
      [&](bool more) { return pair_decision(leader, peer, more); });
}

std::vector<std::uint64_t> p2p_sizes() {
  if (g_quick) return {0, 64, 4096, 65536, 262144, 1 << 20};
  return {0, 8, 64, 512, 4096, 16384, 65536, 262144, 1 << 20, 4 << 20};
}

// The curve between rank 0 and `peer`; every rank calls it (the others only wait).
CostCurve p2p_curve(int peer, const std::string& label) {
  CostCurve curve;
  std::vector<char> buffer(4 << 20, 1);
  for (const auto bytes : p2p_sizes()) {
    Measured t;
    if (g_rank == 0) t = ping_pong(0, peer, true, bytes, buffer);
    if (g_rank == peer) t = ping_pong(peer, 0, false, bytes, buffer);
    double both[2] = {t.seconds, t.spread};
    MPI_Bcast(both, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    curve.points.push_back({bytes, both[0], both[1]});
  }
  progress(label + ": " + std::to_string(curve.latency_s() * 1e6).substr(0, 6) + " us at 0 B, " +
           std::to_string(curve.bandwidth_bytes_per_s() / 1e9).substr(0, 5) + " GB/s");
  return curve;
}

// The largest power-of-two message a send completes without its receiver: the
// receiver arrives 3 ms late, and an eager send returns long before that.
std::uint64_t eager_limit(int peer) {
  std::uint64_t limit = 0;
  std::vector<char> buffer(4 << 20, 1);
  for (std::uint64_t bytes = 256; bytes <= (4u << 20); bytes *= 2) {
    int eager = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == 0) {
      const double t0 = MPI_Wtime();
      MPI_Send(buffer.data(), static_cast<int>(bytes), MPI_BYTE, peer, 3, MPI_COMM_WORLD);
      eager = MPI_Wtime() - t0 < 1.5e-3;
    } else if (g_rank == peer) {
      usleep(3000);
      MPI_Recv(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 0, 3, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
    MPI_Bcast(&eager, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!eager) break;
    limit = bytes;
  }
  return limit;
}

// Mean time of one collective call on `comm` with all its ranks arriving together,
// the slowest rank's.
template <typename Call>
Measured time_collective(MPI_Comm comm, Call call) {
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  call();
  double one = std::max(MPI_Wtime() - t0, 1e-7);
  MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_DOUBLE, MPI_MAX, comm);
  const int iterations = std::clamp(static_cast<int>(batch_seconds() / one), 2, 100000);
  // Every rank has the same batch means (the reduction), so every rank decides alike.
  return repeat_until_agreeing(
      [&] {
        MPI_Barrier(comm);
        const double start = MPI_Wtime();
        for (int i = 0; i < iterations; ++i) call();
        double mean = (MPI_Wtime() - start) / iterations;
        MPI_Allreduce(MPI_IN_PLACE, &mean, 1, MPI_DOUBLE, MPI_MAX, comm);
        return mean;
      },
      [](bool more) { return more; });
}

std::vector<std::uint64_t> collective_sizes() {
  // 64 KiB too: a collective's algorithm and protocol change between 4 and 256 KiB.
  if (g_quick) return {8, 4096, 65536, 262144};
  return {8, 1024, 65536, 1 << 20};
}

void measure_collectives(MachineModel& m, int world) {
  std::vector<int> comm_sizes;
  for (int k = 2; k < world; k *= 2) comm_sizes.push_back(k);
  comm_sizes.push_back(world);
  for (const int k : comm_sizes) {
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, g_rank < k ? 0 : MPI_UNDEFINED, g_rank, &comm);
    if (comm != MPI_COMM_NULL) {
      // Buffers for the largest size; Alltoall and Allgather move k times it.
      const std::uint64_t largest = collective_sizes().back();
      std::vector<char> send(largest * k, 1), recv(largest * k, 0);
      auto add = [&](const char* name, std::uint64_t bytes, const Measured& t) {
        m.collectives[name].by_ranks[k].points.push_back({bytes, t.seconds, t.spread});
      };
      add("Barrier", 0, time_collective(comm, [&] { MPI_Barrier(comm); }));
      for (const auto bytes : collective_sizes()) {
        const int n = static_cast<int>(bytes);
        add("Bcast", bytes,
            time_collective(comm, [&] { MPI_Bcast(send.data(), n, MPI_BYTE, 0, comm); }));
        add("Allreduce", bytes, time_collective(comm, [&] {
              MPI_Allreduce(send.data(), recv.data(), n / 8, MPI_DOUBLE, MPI_SUM, comm);
            }));
        add("Allgather", bytes, time_collective(comm, [&] {
              MPI_Allgather(send.data(), n, MPI_BYTE, recv.data(), n, MPI_BYTE, comm);
            }));
        add("Alltoall", bytes, time_collective(comm, [&] {
              MPI_Alltoall(send.data(), n, MPI_BYTE, recv.data(), n, MPI_BYTE, comm);
            }));
      }
      MPI_Comm_free(&comm);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    progress("collectives on " + std::to_string(k) + " ranks: Allreduce 8 B " +
             std::to_string(m.collectives["Allreduce"].by_ranks[k].at(8) * 1e6).substr(0, 6) +
             " us, Barrier " +
             std::to_string(m.collectives["Barrier"].by_ranks[k].at(0) * 1e6).substr(0, 6) + " us");
  }
  // Only rank 0 needs the model; the others' maps may be partial.
}

// "send 1.2 us, receive 0.8 us at 0 B; a Sendrecv both ways 1.9 us; rendezvous from
// 8 KiB, progressing alone".
std::string overheads_text(const mpidle::model::MessageCosts& c) {
  std::string text = "send " + std::to_string(c.send_overhead.at(0) * 1e6).substr(0, 5) +
                     " us, receive " + std::to_string(c.receive_overhead.at(0) * 1e6).substr(0, 5) +
                     " us at 0 B";
  if (c.exchange) {
    text +=
        "; a Sendrecv both ways " + std::to_string(c.exchange->at(0) * 1e6).substr(0, 5) + " us";
  }
  for (const auto& s : c.protocols) {
    if (s.from_bytes == 0) continue;
    text += std::string("; ") + (s.rendezvous ? "rendezvous" : "eager") + " from " +
            size_text(s.from_bytes) +
            (s.progresses ? ", progressing alone" : ", moving only inside MPI");
  }
  return text;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--output" || a == "--name") && i + 1 < argc) {
      (a == "--output" ? o.output : o.name) = argv[++i];
    } else if (a == "--quick") {
      o.quick = true;
    } else {
      if (g_rank == 0) std::fprintf(stderr, "mpidle-probe: unknown argument \"%s\"\n", a.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Options o = parse(argc, argv);
  g_quick = o.quick;
  if (size < 2) {
    std::fprintf(stderr, "mpidle-probe: needs 2 ranks or more (mpidle probe -- mpiexec -n 2)\n");
    MPI_Finalize();
    return 2;
  }
  const auto started = std::chrono::steady_clock::now();

  // Which ranks share rank 0's node, and which do not.
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> names(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, MPI_COMM_WORLD);
  auto host_of = [&](int r) {
    return std::string(&names[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
  };
  int same_node = -1, other_node = -1, nodes = 1;
  // Two more senders for the incast: a second rank on rank 0's node, and a rank on
  // a node neither rank 0's nor other_node's.
  int second_same = -1, second_other = -1;
  std::vector<std::string> seen{host_of(0)};
  for (int r = 1; r < size; ++r) {
    const bool same = host_of(r) == host_of(0);
    if (same && same_node >= 0 && second_same < 0) second_same = r;
    if (!same && other_node >= 0 && second_other < 0 && host_of(r) != host_of(other_node))
      second_other = r;
    if (same && same_node < 0) same_node = r;
    if (!same && other_node < 0) other_node = r;
    if (std::find(seen.begin(), seen.end(), host_of(r)) == seen.end()) {
      seen.push_back(host_of(r));
      ++nodes;
    }
  }

  MachineModel m;
  m.name = o.name.empty() ? host_of(0) : o.name;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int version_length = 0;
  MPI_Get_library_version(version, &version_length);
  std::string library(version);
  library = library.substr(0, library.find('\n'));
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  m.description = std::to_string(size) + " ranks on " + std::to_string(nodes) + " node" +
                  (nodes > 1 ? "s" : "") + ", " + library + ", " + date;

  progress("measuring " + m.name + " with " + std::to_string(size) + " ranks on " +
           std::to_string(nodes) + " node(s)" + (o.quick ? " (quick)" : ""));
  if (same_node > 0) m.p2p = p2p_curve(same_node, "point-to-point within a node");
  if (other_node > 0) {
    m.p2p_inter_node = p2p_curve(other_node, "point-to-point between nodes");
    if (same_node < 0) m.p2p = *m.p2p_inter_node;  // one rank per node: the only curve there is
  }
  m.eager_limit_bytes = eager_limit(same_node > 0 ? same_node : other_node);
  progress("eager sends up to " + size_text(m.eager_limit_bytes));
  if (same_node > 0) {
    m.messages = measure_message_costs(g_rank, same_node, m.p2p, m.eager_limit_bytes);
    progress("message costs within a node: " + overheads_text(*m.messages));
  }
  if (other_node > 0) {
    m.messages_inter_node =
        measure_message_costs(g_rank, other_node, *m.p2p_inter_node, m.eager_limit_bytes);
    if (same_node < 0) m.messages = m.messages_inter_node;
    progress("message costs between nodes: " + overheads_text(*m.messages_inter_node));
  }
  // Whether both directions of the link share its rate: the exchange both ways
  // against one way, at the largest size (docs/prediction.md, "The platform").
  // Whether both directions of the link share its rate (docs/prediction.md, "The
  // platform"): the ratio decides as link_sharing does.
  auto measure_sharing = [](std::optional<mpidle::model::MessageCosts>& costs, int peer,
                            const mpidle::model::CostCurve& one_way) {
    const double ratio = mpidle::probe::both_ways_ratio(g_rank, peer, one_way);
    if (!costs || ratio <= 0) return;
    costs->exchange_ratio = ratio;
    costs->sharing = mpidle::model::sharing_of_ratio(ratio);
  };
  if (same_node > 0) measure_sharing(m.messages, same_node, m.p2p);
  if (other_node > 0) measure_sharing(m.messages_inter_node, other_node, *m.p2p_inter_node);
  // Whether two senders into one rank share its side (three ranks or more).
  auto measure_incast = [](std::optional<mpidle::model::MessageCosts>& costs, int first, int second,
                           const mpidle::model::CostCurve& one_way) {
    const int senders[2] = {first, second};
    const double ratio = mpidle::probe::incast_ratio(g_rank, 0, senders, one_way);
    if (costs && ratio > 0) costs->incast_ratio = ratio;
  };
  if (second_same > 0) measure_incast(m.messages, same_node, second_same, m.p2p);
  if (second_other > 0)
    measure_incast(m.messages_inter_node, other_node, second_other, *m.p2p_inter_node);
  if (same_node < 0) m.messages = m.messages_inter_node;  // with its ratios now
  if (m.messages) {
    std::string incast = "; two senders into one: not measured (3 ranks needed)";
    if (m.messages->incast_ratio > 0) {
      incast = "; two senders into one take " + std::to_string(m.messages->incast_ratio) +
               " x one, its receiving side " +
               (mpidle::model::receive_side_shared(&*m.messages) ? "shared" : "not shared");
    }
    progress(std::string("link: ") + mpidle::model::sharing_name(m.messages->sharing) +
             " (both ways at once take " + std::to_string(m.messages->exchange_ratio) +
             " x one way" + incast + ")");
  }
  m.host = host_of(0);
  m.cpu_model = mpidle::probe::cpu_model_name();
  measure_collectives(m, size);

  progress("compute kernels (every rank at once)");
  const int rounds = o.quick ? 6 : 10;
  const auto memory = mpidle::probe::memory_bound_kernel(rounds);
  const auto compute = mpidle::probe::compute_bound_kernel(rounds);
  // The slowest rank's time, and the largest spread.
  double kernels[4] = {memory.seconds, compute.seconds, memory.spread, compute.spread};
  MPI_Allreduce(MPI_IN_PLACE, kernels, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  m.compute = mpidle::model::ComputeReference{kernels[0], kernels[1], kernels[2], kernels[3]};

  int status = 0;
  if (g_rank == 0) {
    try {
      mpidle::model::write_machine(o.output, m);
      const double took =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::printf("mpidle probe: wrote %s (%s) in %.1f s\n", o.output.c_str(), m.name.c_str(),
                  took);
      std::printf("  point-to-point: %.2f us latency, %.2f GB/s, eager up to %s\n",
                  m.p2p.latency_s() * 1e6, m.p2p.bandwidth_bytes_per_s() / 1e9,
                  size_text(m.eager_limit_bytes).c_str());
      if (m.p2p_inter_node) {
        std::printf("  between nodes:  %.2f us latency, %.2f GB/s\n",
                    m.p2p_inter_node->latency_s() * 1e6,
                    m.p2p_inter_node->bandwidth_bytes_per_s() / 1e9);
      }
      std::printf("  Allreduce 8 B on %d ranks: %.2f us; Barrier: %.2f us\n", size,
                  m.collectives["Allreduce"].at(size, 8) * 1e6,
                  m.collectives["Barrier"].at(size, 0) * 1e6);
      std::printf(
          "  compute: memory-bound kernel %.4f s (spread %.1f%%), compute-bound kernel %.4f s "
          "(spread %.1f%%)\n",
          kernels[0], 100 * kernels[2], kernels[1], 100 * kernels[3]);
      double worst = 0;
      for (const auto& point : m.p2p.points) worst = std::max(worst, point.spread);
      std::printf("  largest point-to-point spread: %.1f%% (repeated batches)\n", 100 * worst);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mpidle-probe: %s\n", e.what());
      status = 2;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  // The ranks enter MPI_Finalize together: MPICH 4.0.2 over UCX's TCP transport hung
  // there now and then when they came apart (as libmpidle's leave_together says).
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
