#pragma once
// Calibrated baselines (docs/calibration.md): per (function, size class,
// communicator shape), what the calls the exact analysis could judge cost without
// their waiting, mean(duration − exact wait). Where a key has enough such calls,
// its baseline gives the whole run's wait of that key; elsewhere the robust
// baseline stays. Summed over ranks up the finalize tree; no MPI.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "profile_tables.hpp"

namespace mpidle::model {

struct CalibratedCost {
  double cost_s = 0;        // Σ (duration − exact wait) of the calls judged
  double wait_s = 0;        // Σ exact wait of those calls
  std::uint64_t calls = 0;  // how many
  double bytes = 0;         // Σ their bytes (as the profile counts a call's bytes)
  double cost_sq_s2 = 0;    // Σ (duration − exact wait)²: how much the costs varied

  CalibratedCost& operator-=(const CalibratedCost& other) {
    cost_s -= other.cost_s;
    cost_sq_s2 -= other.cost_sq_s2;
    wait_s -= other.wait_s;
    calls -= std::min(calls, other.calls);
    bytes -= other.bytes;
    return *this;
  }

  CalibratedCost& operator+=(const CalibratedCost& other) {
    cost_s += other.cost_s;
    cost_sq_s2 += other.cost_sq_s2;
    wait_s += other.wait_s;
    calls += other.calls;
    bytes += other.bytes;
    return *this;
  }
};

// Why the windows' wait states at one callsite waited: their waiting summed by root
// cause (analysis/window_delays.hpp; docs/analysis-format.md, "Why it waited").
struct WindowCauses {
  double wait_s = 0, computation_s = 0, latency_s = 0, bandwidth_s = 0, propagated_s = 0,
         unexplained_s = 0;
  std::uint64_t wait_states = 0;

  WindowCauses& operator+=(const WindowCauses& o) {
    wait_s += o.wait_s;
    computation_s += o.computation_s;
    latency_s += o.latency_s;
    bandwidth_s += o.bandwidth_s;
    propagated_s += o.propagated_s;
    unexplained_s += o.unexplained_s;
    wait_states += o.wait_states;
    return *this;
  }
};
// (function name, site_identity): a callsite as every rank names it.
using CauseSiteKey = std::pair<std::string, std::string>;

// A baseline as a line in a call's mean bytes. A size class spans a factor of two
// in bytes, and where a transfer dominates, what a call costs grows with its bytes
// inside its class: windows that saw the lower half of a class (a program whose
// sizes grow from phase to phase, as NetPIPE's) would read the upper half's
// transfer as wait. The slope comes from the neighbouring calibrated size classes.
struct CalibratedBaseline {
  double cost_s = 0;  // the mean cost of the calls judged
  double bytes = 0;   // their mean bytes
  double slope_s_per_byte = 0;
  // How many calls that mean rests on (effective_calls); an interpolated line, its
  // neighbours' calls.
  double effective_calls = 0;

  // What calls of `mean_bytes` bytes cost without waiting.
  double at(double mean_bytes) const;
};

// The standard error of a key's mean cost: how far the windows' sample of its calls
// may put its baseline from the mean over all of them (0 with fewer than 2 calls).
// Extrapolated to a run's calls, it bounds what the sampling alone can err by.
double baseline_standard_error_s(const CalibratedCost& cost);

// (function name, size class, communicator shape): the robust baseline's key.
using CalibrationKey = std::tuple<std::string, std::int32_t, std::int32_t>;
// The same at one callsite (site_identity): one function's calls of one size cost
// differently at different places (a rendezvous send here, an eager one there, a
// receive whose transfer overlaps computation), and one mean over all of them reads
// the dearer places' cost as wait.
using SiteCalibrationKey = std::tuple<std::string, std::int32_t, std::int32_t, std::string>;

// The calls a baseline is the mean of, where `all` are enough (kMinCalibratedCalls):
// `all` without the first window's `start` (nullptr: none) where that leaves
// kMinLaterCalls, else `all`. The first window's calls count with their exact wait
// (start_window_correction_s), so the baseline stands only for the calls outside
// the windows, which the later windows sample without the run's set-up.
CalibratedCost baseline_sample(const CalibratedCost& all, const CalibratedCost* start);

struct Calibration {
  std::map<CalibrationKey, CalibratedCost> keys;
  std::map<SiteCalibrationKey, CalibratedCost> sites;  // the same calls, per callsite
  // This rank's own calls per callsite (kept on the rank: neither merged nor
  // encoded). Two ranks' calls at one callsite can cost differently (a receive that
  // copies from a remote socket, a send whose partner is slow to drain), and the
  // mean over both reads the dearer rank's cost as wait.
  std::map<SiteCalibrationKey, CalibratedCost> own_sites;
  // The part of those calls (keys, sites, own sites) that the run's first window
  // held. A run's first calls pay for setting up (first touch of buffers, lazy
  // connections: a 1 MiB MPI_Scan's first call cost 16 ms against 0.3 ms after),
  // and the first window always opens at the start, where a run of N steps holds
  // one first call in N but a window sample one in a few. So a baseline comes from
  // the later windows where they hold enough calls, and a rank's calls in the first
  // window count with their exact wait (own_start_sites; start_window_correction_s).
  // Empty for a calibration from a whole trace, which samples nothing.
  std::map<CalibrationKey, CalibratedCost> start_keys;
  std::map<SiteCalibrationKey, CalibratedCost> start_sites;
  std::map<SiteCalibrationKey, CalibratedCost> own_start_sites;  // kept on the rank
  // The windows' wait states by root cause, per callsite (empty for a calibration
  // from a whole trace, whose analysis.json has root_causes of its own).
  std::map<CauseSiteKey, WindowCauses> causes;
  // Where the calls came from: "windows" (profile mode) or "trace" (every call).
  std::string source;
  std::uint32_t windows = 0;      // windows opened (the most any rank opened)
  std::uint32_t windows_cut = 0;  // ranks whose window buffer filled up
  // Windows closed early by MPIDLE_WINDOW_RECORDS (the most on any rank).
  std::uint32_t windows_capped = 0;
  std::uint64_t records = 0;  // trace records the windows held, all ranks
  // Calls of functions that can wait that the analysis could not judge: a message
  // or collective that began or ended outside a window.
  std::uint64_t calls_left_out = 0;

  bool empty() const { return keys.empty(); }
};

// A key's calls judged are enough to stand for all of its calls.
inline constexpr std::uint64_t kMinCalibratedCalls = 8;
// Of those, how many outside the first window make its baseline without the first
// window's: a rank's own calls at a callsite in a run under a second are often 8,
// 2 of them in the first window (the truth matrix's 1 MiB MPI_Scan), and two
// ranks' calls cost differently there.
inline constexpr std::uint64_t kMinLaterCalls = kMinCalibratedCalls / 2;
// How many calls a baseline's mean rests on at least to stand above the robust
// baseline. A rank descheduled inside one judged call (85 ms inside a late sender's
// 5 us receive) makes that call's cost the whole mean, and extrapolated over the
// calls outside the windows it reads all their waiting as cost. Below this, the
// baseline is at most what the robust estimate takes such a call to cost.
inline constexpr double kMinEffectiveCalls = 3;

// How many calls a sum of costs rests on: (sum c)^2 / sum c^2, Kish's effective
// sample size; n for n equal costs, about 1 where one cost outweighs the rest.
double effective_calls(const CalibratedCost& cost);

// The calibrated baseline of a key, or nothing where it has too few calls. Its
// slope: the secant through the nearest calibrated size classes of the same
// function and shape on either side (the key itself where one side has none), never
// negative; 0 without a neighbour.
std::optional<CalibratedBaseline> calibrated_baseline(const Calibration& c,
                                                      const CalibrationKey& key);
// The key's baseline at `site`: this rank's own calls there where they are enough,
// else all ranks' calls there, else the key's; with the key's slope.
std::optional<CalibratedBaseline> calibrated_baseline(const Calibration& c,
                                                      const CalibrationKey& key,
                                                      const std::string& site);
// `key_line` (`key`'s calibrated baseline) with the mean cost and bytes of the calls at
// `site`, as the call above chooses them; `key_line` itself where neither has enough.
CalibratedBaseline at_site(const Calibration& c, const CalibrationKey& key, const std::string& site,
                           CalibratedBaseline key_line);

// A key the windows did not calibrate, between two calibrated size classes of the
// same function and communicator shape: the line between their (mean bytes, mean
// cost), so that a call's baseline is interpolated at its own bytes. What a call
// costs without waiting grows with the size of its message, so the neighbours bound
// it; a run whose message sizes change from phase to phase (NetPIPE) has windows in
// some of its sizes only. Where the neighbours' bytes are not known apart, the
// interpolation is in the size class. Nothing where a side has no calibrated
// neighbour.
std::optional<CalibratedBaseline> interpolated_baseline(const Calibration& c,
                                                        const CalibrationKey& key);

// A callsite's identity on every rank: its frames' (module, offset), innermost first,
// as captured (symbolization does not change them).
std::string site_identity(const Callsite& callsite);

// The identities of a table's callsites, each made once, when first asked for.
class SiteIdentities {
 public:
  explicit SiteIdentities(const std::vector<Callsite>& callsites)
      : m_callsites(callsites), m_ids(callsites.size()) {}
  // Nothing for an index outside the table.
  const std::string* of(std::uint64_t callsite);

 private:
  const std::vector<Callsite>& m_callsites;
  std::vector<std::optional<std::string>> m_ids;
};

// The calls of `key` (all ranks) its baseline is the mean of (baseline_sample).
CalibratedCost key_sample(const Calibration& c, const CalibrationKey& key);

// What a rank's calls at `site` in the first window change in its wait above
// `baseline_s` per call: they count with their exact wait, not the baseline, so
// (their calls × baseline_s − their cost); 0 where the rank had none there.
double start_window_correction_s(const Calibration& c, const SiteCalibrationKey& site,
                                 double baseline_s);

// How many keys have enough calls to be calibrated; the same per callsite.
std::size_t calibrated_keys(const Calibration& c);
std::size_t calibrated_sites(const Calibration& c);

// Adds `from` into `into` (a finalize tree step).
void merge_calibration(Calibration& into, const Calibration& from);

// `reduced` (every rank's calibration, summed) with this rank's own part of it,
// `mine`, kept beside it (own_sites, own_start_sites): what a rank's summary uses.
Calibration with_own_part(Calibration reduced, const Calibration& mine);

std::vector<std::byte> encode_calibration(const Calibration& c);
std::optional<Calibration> decode_calibration(std::span<const std::byte> bytes);

}  // namespace mpidle::model
