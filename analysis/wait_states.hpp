#pragma once
// Exact wait states from a synchronized trace, the patterns as Scalasca defines
// them. Every waiting time is measured on the controlled-logical-clock timestamps
// and bounded by the waiting call's own duration:
//   late_sender     a receive (blocking, or the Wait/Waitall/Waitsome that
//                   completes Irecvs) that started before its matching send. A call
//                   that completes several receives waits once, for the latest of
//                   their senders: min(latest send start, call end) − call start
//   late_receiver   a blocking send that waited for its receive to be posted:
//                   post − send start, for sends that could not complete without
//                   their receiver (send_classes.hpp: synchronous sends, and sends
//                   of a class none of which ended before its post; an eager
//                   send that happened to overlap the post is not late receiver
//                   waiting)
//   wait_nxn        Allreduce, Allgather(v), Alltoall(v/w), Reduce_scatter: last
//                   enter − own enter
//   wait_barrier    the same for MPI_Barrier
//   late_broadcast  Bcast, Scatter(v): the root's enter − own enter
//   early_reduce    Reduce, Gather(v): the root entered before any sender could
//                   send: first sender's enter − root's enter
//   early_scan      Scan, Exscan: latest enter of lower ranks − own enter
// Pure C++, no MPI.

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace_file.hpp"
#include "sync/trace_matching.hpp"

namespace mpidle::analysis {

enum class Pattern : std::uint8_t {
  late_sender,
  late_receiver,
  wait_nxn,
  wait_barrier,
  late_broadcast,
  early_reduce,
  early_scan,
};
inline constexpr std::size_t kPatterns = 7;
const char* pattern_key(Pattern p);  // the JSON key: "late_sender", ...
// The pattern of a collective's waiting, by its kind and function (a Barrier's
// N-to-N is wait_barrier); none for a kind without one.
std::optional<Pattern> collective_pattern(model::CollectiveKind kind, std::string_view function);

using PatternSeconds = std::array<double, kPatterns>;

struct SiteWaits {
  std::uint32_t callsite = 0;  // index into the trace's callsites
  std::uint32_t function = 0;  // index into the trace's functions
  PatternSeconds total{};
  std::map<std::uint32_t, PatternSeconds> by_rank;  // position in trace.ranks → its waits here
  std::uint64_t instances = 0;                      // waits found (positive), all patterns
};

struct WaitStates {
  std::vector<SiteWaits> sites;
  PatternSeconds totals{};
  std::uint64_t events = 0;  // records analysed
  std::uint64_t messages = 0, collectives = 0;
};

// Adds waits to a WaitStates, one SiteWaits per (callsite, function): the
// sequential analysis, each rank's in the parallel replay, and their merge.
class SiteWaitsBuilder {
 public:
  explicit SiteWaitsBuilder(WaitStates& out);  // finds the sites `out` has already
  // The site, added empty on first use.
  SiteWaits& site(std::uint32_t callsite, std::uint32_t function);
  // The call (enter `start`, exit `end`) of the rank at `position` waited until
  // `until`, within its own duration; nothing when that is not positive.
  void wait(Pattern p, const model::TraceRecord& call, std::uint32_t position, std::int64_t start,
            std::int64_t end, std::int64_t until);
  // A point-to-point call waits once: until the latest send start of the receives it
  // completed (late sender), then on until the latest post of a receive that a send
  // it judged needed (late receiver); kNoTime for either it has none of. Returns the
  // call's whole waiting in ns.
  static constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();
  std::int64_t point_to_point(const model::TraceRecord& call, std::uint32_t position,
                              std::int64_t start, std::int64_t end, std::int64_t latest_send,
                              std::int64_t latest_post);

 private:
  WaitStates& m_out;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> m_index;
};

// Called now and then with the share of the work done (0..1).
using Progress = std::function<void(double)>;

// One wait state as the patterns found it: the waiting call (its first record),
// when its waiting began and ended, and the partner's record whose enter ended it
// (the late send, the late post, the collective member the others waited for).
struct WaitEvent {
  Pattern pattern = Pattern::late_sender;
  sync::RecordRef at;
  std::int64_t start = 0, until = 0;  // synchronized ns, within the call
  sync::RecordRef cause;
};
using WaitObserver = std::function<void(const WaitEvent&)>;

// Needs synchronized timestamps (trace.ranks[*].synced); throws model::TraceError
// for a trace without them. `observer`, when given, hears of every wait state.
// `matching`: the trace's (sync::match_trace), where the caller has it already.
WaitStates analyze_wait_states(const model::Trace& trace, const sync::TraceMatching& matching,
                               const Progress& progress = {}, const WaitObserver& observer = {});
WaitStates analyze_wait_states(const model::Trace& trace, const Progress& progress = {},
                               const WaitObserver& observer = {});

}  // namespace mpidle::analysis
