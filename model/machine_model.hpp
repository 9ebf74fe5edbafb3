#pragma once
// A machine model for prediction (docs/prediction.md): what `mpidle probe` measured
// on a machine, or what a user wrote from a vendor's figures. Message and
// collective costs are curves over message size; compute speed is the time of two
// fixed kernels, so that two machines' CPUs can be compared.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mpidle::model {

inline constexpr const char* kMachineSchema = "mpidle-machine/2";
inline constexpr const char* kMachineSchemaV1 = "mpidle-machine/1";  // still read

struct CostPoint {
  std::uint64_t bytes = 0;
  double seconds = 0;
  // How much the probe's repeated measurements of it disagreed: (75th − 25th
  // percentile) / median of its batches; 0 when not measured (a model written by hand).
  // A model of several launches (merge_launches): at least half the launches' range.
  double spread = 0;
  // Several launches: (largest − smallest) / median of the launches' times (0: one).
  double launch_spread = 0;
};

// Seconds against bytes: piecewise linear between the points, the last segment's
// slope continued beyond them (the asymptotic bandwidth), the first point's time
// below them. Points sorted by bytes, bytes distinct, times ≥ 0.
struct CostCurve {
  std::vector<CostPoint> points;
  double at(std::uint64_t bytes) const;
  double latency_s() const { return at(0); }
  // The part of at(bytes) that does not grow with size on its segment: the
  // segment's intercept at 0 bytes, within [0, at(bytes)]. At most the first point's
  // size, all of it. SMPI's piecewise model: each segment its latency and bandwidth.
  double fixed_part(std::uint64_t bytes) const;
  // Bytes per second of the last segment (0 if the curve has fewer than two points
  // or does not grow).
  double bandwidth_bytes_per_s() const;
  // The same curve with its 0-byte time set to `latency_s` (every point shifted),
  // or its growth beyond the first point set to `bandwidth` bytes/s.
  CostCurve with_latency(double latency_s) const;
  CostCurve with_bandwidth(double bytes_per_s) const;
  CostCurve scaled(double factor) const;
};

// One collective: a curve per communicator size measured. Other sizes take the
// nearest measured size's curve scaled by log2 of the size ratio (tree algorithms).
struct CollectiveModel {
  std::map<int, CostCurve> by_ranks;
  double at(int ranks, std::uint64_t bytes) const;
};

// Seconds of the two documented kernels (docs/prediction.md): a memory-bound
// stream over 64 MiB and a compute-bound dependent multiply-add chain.
struct ComputeReference {
  double memory_bound_s = 0;
  double compute_bound_s = 0;
  // (second best − best) / best of each kernel's rounds (0: not measured).
  double memory_bound_spread = 0;
  double compute_bound_spread = 0;
  // Several launches: (largest − smallest) / median of the launches' kernel times.
  double memory_bound_launch_spread = 0;
  double compute_bound_launch_spread = 0;
};

// From which size on a message goes by which protocol, and whether it then moves
// while its partner computes outside MPI (measured by the probe: the receive is
// posted, both ranks compute for a known time, then wait).
struct ProtocolSegment {
  std::uint64_t from_bytes = 0;
  bool rendezvous = false;  // the send waits for its receiver (else eager: buffered)
  bool progresses = true;   // the transfer advances with both sides outside MPI
};

// What one message costs each side's CPU besides its one-way time (LogGP's o):
// the send call of a message that need not wait for its receiver, and the receive
// of one that has arrived. The one-way time (MachineModel::p2p) includes both.
// Whether two transfers at once on a link share its rate (one medium for both
// directions, as a rate limit on one loopback) or each direction has its own (a
// full-duplex network card, split-duplex in SimGrid's terms).
enum class LinkSharing : std::uint8_t { unknown = 0, shared = 1, split_duplex = 2 };
const char* sharing_name(LinkSharing sharing);

struct MessageCosts {
  CostCurve send_overhead;
  CostCurve receive_overhead;
  std::vector<ProtocolSegment> protocols;  // sorted by from_bytes, the first from 0
  // One MPI_Sendrecv of `bytes` each way between two ranks that enter it together:
  // both directions at once share the CPUs, the link's acknowledgements and (Open MPI's
  // TCP) the rendezvous answers, which one-way times do not show. Absent in models
  // of earlier probes: such an exchange is then costed one way per direction.
  std::optional<CostCurve> exchange;
  // A blocking send whose receive is posted and waited for: how long the send call
  // takes, at most the one-way time. Over TCP a send returns once its data is in the
  // socket's buffer and the transfer goes on behind the program; over shared memory
  // once it was copied. Absent in models of earlier probes: a rendezvous send is then
  // held until its transfer ends.
  std::optional<CostCurve> blocking_send;
  // As the probe measured it: both directions at once over one way at the largest
  // size (exchange_ratio, 0: not measured), and what that says.
  LinkSharing sharing = LinkSharing::unknown;
  double exchange_ratio = 0;
  // Two ranks sending the largest size to one at once, over one sender alone
  // (0: not measured, which needs three ranks): about 2 where the receiver's side
  // of its card is one rate for both, about 1 where each sender's own limit decides.
  double incast_ratio = 0;
  const ProtocolSegment& protocol_for(std::uint64_t bytes) const;
};

// The link's sharing: as the model says, else from its exchange curve against the
// one-way curve at the largest size both measured (from 64 KiB, where bandwidth
// decides: twice one way or more than 1.5 times is one medium), else split-duplex,
// as every switched interconnect is.
LinkSharing link_sharing(const MessageCosts* costs, const CostCurve& one_way);
// What both directions at once taking `ratio` times one way says of the link: more
// than 1.5 is one medium (shared), else split-duplex (also for no ratio, 0).
LinkSharing sharing_of_ratio(double ratio);
// Whether transfers from two senders into one rank share its receiving side: as the
// incast ratio says (more than 1.5), and where it was not measured, yes, as every
// network card's receiving side is one rate.
bool receive_side_shared(const MessageCosts* costs);
// The exchange both ways over one way at the largest size of both curves that is at
// least 64 KiB, 0 where there is none.
double exchange_ratio(const CostCurve& exchange, const CostCurve& one_way);

struct MachineModel {
  std::string name;         // e.g. the host name of the probe's rank 0
  std::string description;  // MPI library, node names, date
  // Where the probe ran (its rank 0's host name and /proc/cpuinfo's model name):
  // two models of one host and CPU model compare compute at factor 1.
  std::string host, cpu_model;
  CostCurve p2p;  // one message's time between ranks of one node: half a ping-pong
  std::optional<CostCurve> p2p_inter_node;  // between nodes, when the probe had two
  // Sends up to this size complete without the receiver (eager protocol).
  std::uint64_t eager_limit_bytes = 0;
  // Overheads and protocols (mpidle-machine/2; absent in version 1 models, which
  // replay as before: no overheads, every transfer progressing).
  std::optional<MessageCosts> messages;
  std::optional<MessageCosts> messages_inter_node;
  // Barrier, Bcast, Allreduce, Alltoall, Allgather (collective_model_for maps the others).
  std::map<std::string, CollectiveModel> collectives;
  std::optional<ComputeReference> compute;
  std::uint32_t launches = 1;  // probe launches merged into this model
};

class MachineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

nlohmann::json machine_to_json(const MachineModel& machine);
// Throws MachineError naming the field for the wrong schema or a bad field.
MachineModel machine_from_json(const nlohmann::json& doc, const std::string& where);
MachineModel read_machine(const std::filesystem::path& file);
void write_machine(const std::filesystem::path& file, const MachineModel& machine);

// The collective whose measured curve stands for `function` ("MPI_Reduce" →
// "Allreduce", "MPI_Alltoallv" → "Alltoall"…); empty if none does.
std::string collective_model_for(const std::string& function);

// How much slower the target's CPU is than the source's (>1: slower), from their
// compute references: the geometric mean of the two kernels' ratios.
double cpu_ratio(const ComputeReference& source, const ComputeReference& target);
// The relative uncertainty of cpu_ratio from the kernels' spreads (0 without them).
double cpu_ratio_spread(const ComputeReference& source, const ComputeReference& target);
// The factor a prediction scales compute by: cpu_ratio, or exactly 1 where that lies
// within cpu_ratio_spread of 1. Two probes of one CPU must not make a faster or a
// slower CPU of it: on this VM the memory-bound kernel moves by up to a third from
// one launch to the next, and a ratio inside the probes' own spread says nothing.
double cpu_factor(const ComputeReference& source, const ComputeReference& target);

// Whether the probe recorded any spread in the model's curves.
bool has_spread(const MachineModel& machine);
// The model with every measured point moved by its spread: `direction` −1 for the
// fast end of what the probe saw, +1 for the slow end.
MachineModel shifted_by_spread(MachineModel machine, double direction);
// The ideal network of POP's transfer efficiency (and Dimemas'): no latency,
// infinite bandwidth, every send eager, every collective free. Compute keeps its time.
MachineModel ideal_network();

// Between two ranks on two nodes (`apart`), the model's inter-node one-way curve and
// message costs where it has them; else (and within a node) the intra-node ones.
const CostCurve& one_way_curve(const MachineModel& machine, bool apart);
const MessageCosts* message_costs(const MachineModel& machine, bool apart);

// The largest message size of the model's point-to-point curve(s).
std::uint64_t largest_measured_bytes(const MachineModel& machine);

}  // namespace mpidle::model
