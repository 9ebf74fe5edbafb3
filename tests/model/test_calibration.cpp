#include <catch2/catch.hpp>

#include <cmath>

#include "model/calibration.hpp"
#include "model/profile_summary.hpp"
#include "model/window_schedule.hpp"

using namespace mpidle;

TEST_CASE("windows open at the start, after doubling gaps, then once per period", "[model]") {
  const model::WindowSchedule s(50'000'000, 30'000'000'000);  // 50 ms, 30 s
  REQUIRE(s.enabled());
  const std::int64_t ms = 1'000'000;
  CHECK(s.open_ns(0) == 0);
  CHECK(s.open_ns(1) == 100 * ms);
  CHECK(s.open_ns(2) == 300 * ms);
  CHECK(s.open_ns(3) == 700 * ms);
  CHECK(s.open_ns(8) == 25'500 * ms);
  CHECK(s.open_ns(9) == 51'100 * ms);  // the last doubling gap: 25.6 s
  CHECK(s.open_ns(10) == 81'100 * ms);
  CHECK(s.open_ns(11) == 111'100 * ms);
  // The window a time belongs to: the latest that opened at or before it.
  CHECK(s.window_at(-5) == 0);
  CHECK(s.window_at(10 * ms) == 0);
  CHECK(s.window_at(120 * ms) == 1);
  CHECK(s.window_at(299 * ms) == 1);
  CHECK(s.window_at(300 * ms) == 2);
  CHECK(s.window_at(81'100 * ms) == 10);
  CHECK(s.window_at(111'099 * ms) == 10);
  for (std::uint32_t k = 0; k < 40; ++k) {
    INFO("window " << k);
    CHECK(s.window_at(s.open_ns(k)) == k);
    CHECK(s.open_ns(k + 1) - s.open_ns(k) <= 30'000'000'000);
  }
  CHECK_FALSE(model::WindowSchedule(0, 30'000'000'000).enabled());
  // A period shorter than two windows is stretched: windows never overlap.
  const model::WindowSchedule tight(50 * ms, 10 * ms);
  CHECK(tight.open_ns(1) - tight.open_ns(0) >= 100 * ms);
  // The openings from a reference up to an instant, and the window of a time among them.
  const auto openings = s.openings(1'000 * ms, 1'000 * ms + 700 * ms);
  CHECK(openings.ns == std::vector<std::int64_t>{1'000 * ms, 1'100 * ms, 1'300 * ms, 1'700 * ms});
  CHECK(openings.window_at(0) == 0);
  CHECK(openings.window_at(1'299 * ms) == 1);
  CHECK(openings.window_at(1'300 * ms) == 2);
  CHECK(openings.window_at(5'000 * ms) == 3);
  CHECK(model::WindowOpenings{}.window_at(7) == 0);
}

TEST_CASE("calibration: baselines from enough judged calls, merged, and read back", "[model]") {
  model::Calibration a;
  a.source = "windows";
  a.windows = 3;
  a.keys[{"MPI_Recv", 14, 0}] = {5 * 60e-6, 5 * 5e-3, 5};
  a.keys[{"MPI_Allreduce", 4, 2}] = {20 * 2e-6, 0.01, 20};
  model::Calibration b;
  b.windows = 4;
  b.windows_cut = 1;
  b.calls_left_out = 2;
  b.keys[{"MPI_Recv", 14, 0}] = {4 * 60e-6, 4 * 5e-3, 4};
  CHECK_FALSE(model::calibrated_baseline(a, {"MPI_Recv", 14, 0}));  // 5 calls: too few
  model::merge_calibration(a, b);
  CHECK(a.windows == 4);
  CHECK(a.windows_cut == 1);
  CHECK(a.calls_left_out == 2);
  CHECK(model::calibrated_keys(a) == 2);
  CHECK(model::calibrated_baseline(a, {"MPI_Recv", 14, 0})->cost_s == Approx(60e-6));
  CHECK(model::calibrated_baseline(a, {"MPI_Allreduce", 4, 2})->cost_s == Approx(2e-6));
  CHECK_FALSE(model::calibrated_baseline(a, {"MPI_Send", 14, 0}));
  const auto bytes = model::encode_calibration(a);
  const auto back = model::decode_calibration(bytes);
  REQUIRE(back);
  CHECK(back->source == "windows");
  CHECK(back->keys.size() == 2);
  CHECK(back->keys.at({"MPI_Recv", 14, 0}).calls == 9);
  // Truncated bytes are refused, never read past.
  for (std::size_t n = 0; n < bytes.size(); n += 7) {
    CHECK_FALSE(model::decode_calibration(std::span(bytes.data(), n)));
  }
}

TEST_CASE("calibration: a key's baseline has the standard error of its calls' costs", "[model]") {
  // Costs 1, 3, 2 and 6 ms: mean 3 ms, sample variance 14/3 ms^2, so the mean is
  // uncertain by sqrt(14/3/4) ms. Merged from two ranks' halves, and read back.
  model::CalibratedCost a, b;
  for (const double ms : {1.0, 3.0}) a += {ms * 1e-3, 0, 1, 0, ms * ms * 1e-6};
  for (const double ms : {2.0, 6.0}) b += {ms * 1e-3, 0, 1, 0, ms * ms * 1e-6};
  CHECK(model::baseline_standard_error_s(model::CalibratedCost{1e-3, 0, 1, 0, 1e-6}) == 0);
  a += b;
  CHECK(model::baseline_standard_error_s(a) == Approx(std::sqrt(14.0 / 3 / 4) * 1e-3));
  model::Calibration c;
  c.keys[{"MPI_Waitsome", 21, 0}] = a;
  const auto back = model::decode_calibration(model::encode_calibration(c));
  REQUIRE(back);
  CHECK(model::baseline_standard_error_s(back->keys.at({"MPI_Waitsome", 21, 0})) ==
        Approx(model::baseline_standard_error_s(a)));
}

TEST_CASE("a calibrated key's wait is its time above the calibrated baseline", "[model]") {
  model::ProfileTables t;
  t.functions = {"MPI_Recv", "MPI_Send"};
  t.callsites.resize(1);
  t.ranks.resize(2);
  t.ranks[0].rank = 0;
  t.ranks[1].rank = 1;
  // Rank 1's 40 receives all waited 5 ms (histogram: one cluster); rank 0's sends
  // cost 3 µs.
  model::Entry recv{0, 0, 14, 0, 40, 40 * 5.06e-3, 5.0e-3, 40 * 8192.0};
  model::add_durations(recv.durations, 40, 40 * 5.06e-3);
  t.ranks[1].entries.push_back(recv);
  model::Entry send{0, 1, 14, 1, 40, 40 * 3e-6, 2e-6, 40 * 8192.0};
  model::add_durations(send.durations, 40, 40 * 3e-6);
  t.ranks[0].entries.push_back(send);
  const auto global = model::minima_of(t);
  model::Calibration c;
  c.source = "windows";
  c.keys[{"MPI_Recv", 14, 0}] = {16 * 60e-6, 16 * 5.0e-3, 16};
  c.keys[{"MPI_Send", 14, 0}] = {16 * 3e-6, 0, 16};
  const auto with = model::summarize_rank(t, global, &c);
  const auto& rank1 = with.ranks[1];
  CHECK(rank1.wait_s_calibrated == Approx(40 * (5.06e-3 - 60e-6)));
  // Without a calibration the fallback stands: the robust baseline, bounded by the sends.
  const auto without = model::summarize_rank(t, global);
  CHECK(without.ranks[1].wait_s_calibrated == Approx(without.ranks[1].wait_s));
  CHECK(without.ranks[1].wait_s == Approx(40 * (5.06e-3 - 4 * 3e-6)));
}

TEST_CASE("calibration: too few calls judged still count their exact wait", "[model]") {
  // Five receives, each waiting 5 ms and costing 40 µs more; the windows judged four
  // of them, too few to stand for the others (kMinCalibratedCalls). Every call looks
  // alike, so the robust baseline reads them all as cost; the four judged keep their
  // exact wait and only the fifth falls back.
  model::ProfileTables t;
  t.functions = {"MPI_Recv"};
  t.callsites.resize(1);
  t.callsites[0].frames = {{"app", 0x100, "", "", 0}};
  t.ranks.resize(1);
  model::Entry recv{0, 0, 14, 1, 5, 5 * 5.04e-3, 5.04e-3, 5 * 8192.0};
  model::add_durations(recv.durations, 5, 5 * 5.04e-3);
  t.ranks[0].entries = {recv};
  const auto global = model::minima_of(t);
  const double fallback = model::summarize_rank(t, global).ranks[0].wait_s;
  CHECK(fallback < 5e-3);
  model::Calibration c;
  c.source = "windows";
  const std::string site = model::site_identity(t.callsites[0]);
  c.keys[{"MPI_Recv", 14, 0}] = {4 * 40e-6, 4 * 5e-3, 4};
  c.sites[{"MPI_Recv", 14, 0, site}] = c.keys[{"MPI_Recv", 14, 0}];
  REQUIRE_FALSE(model::calibrated_baseline(c, {"MPI_Recv", 14, 0}));
  // Without this rank's own calls the fallback stands.
  CHECK(model::summarize_rank(t, global, &c).ranks[0].wait_s_calibrated == Approx(fallback));
  c.own_sites = c.sites;
  CHECK(model::summarize_rank(t, global, &c).ranks[0].wait_s_calibrated ==
        Approx(4 * 5e-3 + fallback / 5));
}

TEST_CASE("calibration: a baseline that one call decides stays within the robust cost", "[model]") {
  // A late sender's 60 receives cost 5 µs, and 50 of them wait 5 ms; the rank was
  // descheduled for 85 ms inside one of the 15 the windows judged. That call's cost
  // is then the whole mean (5.7 ms), and extrapolated it reads the waiting of all 60
  // calls as cost.
  const double cost = 5e-6, wait = 5e-3, stall = 85e-3;
  auto call = [](double c, double w) { return model::CalibratedCost{c, w, 1, 8.0, c * c}; };
  model::CalibratedCost steady;
  for (int i = 0; i < 15; ++i) steady += call(cost, wait);
  CHECK(model::effective_calls(steady) == Approx(15));
  model::CalibratedCost stalled;
  for (int i = 0; i < 14; ++i) stalled += call(cost, i < 12 ? wait : 0);
  stalled += call(cost + stall, wait);
  CHECK(model::effective_calls(stalled) < 1.01);
  model::CalibratedCost spread;  // the same total over every call
  for (int i = 0; i < 15; ++i) spread += call(cost + stall / 15, wait);
  CHECK(model::effective_calls(spread) == Approx(15));

  model::ProfileTables t;
  t.functions = {"MPI_Recv"};
  t.callsites.resize(1);
  t.callsites[0].frames = {{"app", 0x100, "", "", 0}};
  t.ranks.resize(1);
  const double time = 60 * cost + 50 * wait + stall;
  model::Entry recv{0, 0, 3, 1, 60, time, cost, 60 * 8.0};
  model::add_durations(recv.durations, 10, 10 * cost);
  model::add_durations(recv.durations, 49, 49 * (cost + wait));
  model::add_durations(recv.durations, 1, cost + wait + stall);
  t.ranks[0].entries = {recv};
  const auto global = model::minima_of(t);
  model::Calibration c;
  c.source = "windows";
  const std::string site = model::site_identity(t.callsites[0]);
  c.keys[{"MPI_Recv", 3, 0}] = stalled;
  c.sites[{"MPI_Recv", 3, 0, site}] = stalled;
  c.own_sites = c.sites;
  const auto line = model::calibrated_baseline(c, {"MPI_Recv", 3, 0});
  REQUIRE(line);
  CHECK(line->cost_s == Approx(cost + stall / 15));
  CHECK(line->effective_calls < model::kMinEffectiveCalls);
  // The baseline is at most the robust one: the waiting is read as such.
  const double calibrated = model::summarize_rank(t, global, &c).ranks[0].wait_s_calibrated;
  INFO("calibrated " << calibrated << " s of 0.25 s waited");
  CHECK(calibrated >= stalled.wait_s);
  CHECK(calibrated >= 0.25);
  CHECK(calibrated <= 0.25 + stall);
  // Extrapolating the stalled mean would have read almost none of it (a sum of
  // squares of 0 says nothing of how the costs spread).
  c.keys[{"MPI_Recv", 3, 0}].cost_sq_s2 = 0;
  c.sites[{"MPI_Recv", 3, 0, site}].cost_sq_s2 = 0;
  c.own_sites = c.sites;
  CHECK(model::summarize_rank(t, global, &c).ranks[0].wait_s_calibrated < 2 * wait);
}

TEST_CASE("calibration: a callsite with enough calls has its own baseline", "[model]") {
  // Two callsites of one key: sends that cost 3 µs and sends that cost 40 µs (a
  // rendezvous), neither waiting. The key's mean reads part of the dearer site's
  // cost as wait; each site's own baseline reads none.
  model::ProfileTables t;
  t.functions = {"MPI_Send"};
  t.callsites.resize(2);
  t.callsites[0].frames = {{"app", 0x100, "", "", 0}};
  t.callsites[1].frames = {{"app", 0x200, "", "", 0}};
  t.ranks.resize(1);
  model::Entry cheap{0, 0, 14, 1, 30, 30 * 3e-6, 3e-6, 30 * 8192.0};
  model::add_durations(cheap.durations, 30, 30 * 3e-6);
  model::Entry dear{1, 0, 14, 1, 10, 10 * 40e-6, 40e-6, 10 * 8192.0};
  model::add_durations(dear.durations, 10, 10 * 40e-6);
  t.ranks[0].entries = {cheap, dear};
  const auto global = model::minima_of(t);
  const std::string cheap_site = model::site_identity(t.callsites[0]);
  const std::string dear_site = model::site_identity(t.callsites[1]);
  CHECK(cheap_site != dear_site);
  model::Calibration c;
  c.source = "trace";
  c.keys[{"MPI_Send", 14, 0}] = {30 * 3e-6 + 10 * 40e-6, 0, 40};
  // Only the key: the mean, 12.25 µs, puts 10 × 27.75 µs of the dear site's cost down as wait.
  CHECK(model::summarize_rank(t, global, &c).ranks[0].wait_s_calibrated ==
        Approx(10 * (40e-6 - 12.25e-6)));
  c.sites[{"MPI_Send", 14, 0, cheap_site}] = {30 * 3e-6, 0, 30};
  c.sites[{"MPI_Send", 14, 0, dear_site}] = {10 * 40e-6, 0, 10};
  CHECK(model::calibrated_sites(c) == 2);
  CHECK(model::calibrated_baseline(c, {"MPI_Send", 14, 0}, dear_site)->cost_s == Approx(40e-6));
  CHECK(model::calibrated_baseline(c, {"MPI_Send", 14, 0}, "elsewhere")->cost_s ==
        Approx(12.25e-6));
  CHECK(model::summarize_rank(t, global, &c).ranks[0].wait_s_calibrated == Approx(0).margin(1e-12));
  // This rank's own calls at a site, where enough, come before all ranks' there.
  model::Calibration own = c;
  own.own_sites[{"MPI_Send", 14, 0, dear_site}] = {9 * 50e-6, 0, 9};
  CHECK(model::calibrated_baseline(own, {"MPI_Send", 14, 0}, dear_site)->cost_s == Approx(50e-6));
  own.own_sites[{"MPI_Send", 14, 0, dear_site}].calls = 7;
  CHECK(model::calibrated_baseline(own, {"MPI_Send", 14, 0}, dear_site)->cost_s == Approx(40e-6));
  // The own sites stay on the rank.
  CHECK(model::decode_calibration(model::encode_calibration(own))->own_sites.empty());
  // A site with too few calls takes the key's baseline.
  c.sites[{"MPI_Send", 14, 0, dear_site}].calls = 7;
  CHECK(model::calibrated_baseline(c, {"MPI_Send", 14, 0}, dear_site)->cost_s == Approx(12.25e-6));
  // The sites travel with the rest, and merge.
  const auto bytes = model::encode_calibration(c);
  const auto back = model::decode_calibration(bytes);
  REQUIRE(back);
  CHECK(back->sites.size() == 2);
  for (std::size_t n = 0; n < bytes.size(); n += 5) {
    CHECK_FALSE(model::decode_calibration(std::span(bytes.data(), n)));
  }
  CHECK(back->sites.at({"MPI_Send", 14, 0, cheap_site}).calls == 30);
  model::Calibration twice = *back;
  model::merge_calibration(twice, *back);
  CHECK(twice.sites.at({"MPI_Send", 14, 0, cheap_site}).calls == 60);
}

TEST_CASE("calibration: the first window's calls count exactly, the later ones give the baseline",
          "[model]") {
  // One rank's 40 Scans, each waiting 7 ms and costing 0.3 ms, but the first two
  // (set-up: first touch) cost 16 and 8 ms. The first window held 5 calls (the two
  // dear ones), the later windows 10. Their mean over all 15, 1.83 ms, would read
  // 40 × 1.53 ms of cost as no wait; the later windows' 0.3 ms and the first
  // window's calls at their own cost give the exact wait.
  model::ProfileTables t;
  t.functions = {"MPI_Scan"};
  t.callsites.resize(1);
  t.callsites[0].frames = {{"app", 0x100, "", "", 0}};
  t.ranks.resize(1);
  const double start_cost = 16e-3 + 8e-3 + 3 * 0.3e-3, later_cost = 0.3e-3;
  const double time = 40 * 7e-3 + start_cost + 35 * later_cost;
  model::Entry scan{0, 0, 21, model::kNoPeer, 40, time, 7.3e-3, 40 * 1048576.0, 2};
  model::add_durations(scan.durations, 40, time);
  t.ranks[0].entries = {scan};
  const auto global = model::minima_of(t);
  const std::string site = model::site_identity(t.callsites[0]);
  const model::CalibratedCost start{start_cost, 5 * 7e-3, 5, 5 * 1048576.0};
  const model::CalibratedCost later{10 * later_cost, 10 * 7e-3, 10, 10 * 1048576.0};
  model::CalibratedCost all = start;
  all += later;
  model::Calibration c;
  c.source = "windows";
  c.keys[{"MPI_Scan", 21, 2}] = all;
  c.sites[{"MPI_Scan", 21, 2, site}] = all;
  // Without the first window's part: the mean of all, and the dear calls extrapolated.
  CHECK(model::calibrated_baseline(c, {"MPI_Scan", 21, 2})->cost_s == Approx(all.cost_s / 15));
  CHECK(model::summarize_rank(t, global, &c).ranks[0].wait_s_calibrated ==
        Approx(time - 40 * all.cost_s / 15));
  c.start_keys[{"MPI_Scan", 21, 2}] = start;
  c.start_sites[{"MPI_Scan", 21, 2, site}] = start;
  c.own_sites = c.sites;
  c.own_start_sites = c.start_sites;
  CHECK(model::key_sample(c, {"MPI_Scan", 21, 2}).calls == 10);
  CHECK(model::calibrated_baseline(c, {"MPI_Scan", 21, 2})->cost_s == Approx(later_cost));
  CHECK(model::calibrated_baseline(c, {"MPI_Scan", 21, 2}, site)->cost_s == Approx(later_cost));
  CHECK(model::summarize_rank(t, global, &c).ranks[0].wait_s_calibrated == Approx(40 * 7e-3));
  // 7 later calls of 12 still make the baseline (half of min_calls do)...
  model::Calibration few = c;
  few.keys[{"MPI_Scan", 21, 2}].calls = 12;
  few.sites.clear();
  few.own_sites.clear();
  CHECK(model::calibrated_baseline(few, {"MPI_Scan", 21, 2})->cost_s ==
        Approx(10 * later_cost / 7));
  // ...3 of 8 do not: the baseline is the mean of all again, and the first window's
  // calls still count at their own cost.
  few.keys[{"MPI_Scan", 21, 2}].calls = 8;
  CHECK(model::calibrated_baseline(few, {"MPI_Scan", 21, 2})->cost_s == Approx(all.cost_s / 8));
  const double b = all.cost_s / 8;
  CHECK(model::summarize_rank(t, global, &few).ranks[0].wait_s_calibrated ==
        Approx(time - 40 * b + (5 * b - start_cost)));
  // The start part travels and merges with the rest; the rank's own stays on it.
  const auto back = model::decode_calibration(model::encode_calibration(c));
  REQUIRE(back);
  CHECK(back->start_keys.at({"MPI_Scan", 21, 2}).calls == 5);
  CHECK(back->start_sites.at({"MPI_Scan", 21, 2, site}).calls == 5);
  CHECK(back->own_start_sites.empty());
  model::Calibration twice = *back;
  model::merge_calibration(twice, *back);
  CHECK(twice.start_keys.at({"MPI_Scan", 21, 2}).calls == 10);
}

TEST_CASE("calibration: a size between two calibrated sizes is interpolated", "[model]") {
  model::Calibration c;
  c.source = "windows";
  c.keys[{"MPI_Recv", 4, 0}] = {10 * 2e-6, 0, 10};
  c.keys[{"MPI_Recv", 8, 0}] = {10 * 10e-6, 0, 10};
  c.keys[{"MPI_Recv", 6, 0}] = {3 * 100e-6, 0, 3};    // too few calls: not a neighbour
  c.keys[{"MPI_Recv", 12, 2}] = {10 * 50e-6, 0, 10};  // another shape: not a neighbour
  // Size class 6 lies halfway between 4 (2 µs) and 8 (10 µs).
  CHECK(model::interpolated_baseline(c, {"MPI_Recv", 6, 0})->at(0) == Approx(6e-6));
  CHECK(model::interpolated_baseline(c, {"MPI_Recv", 7, 0})->at(0) == Approx(8e-6));
  // Outside the calibrated range, or without neighbours of its shape: nothing.
  CHECK_FALSE(model::interpolated_baseline(c, {"MPI_Recv", 9, 0}));
  CHECK_FALSE(model::interpolated_baseline(c, {"MPI_Recv", 2, 0}));
  CHECK_FALSE(model::interpolated_baseline(c, {"MPI_Recv", 10, 2}));
  CHECK_FALSE(model::interpolated_baseline(c, {"MPI_Send", 6, 0}));

  // In the summary: 20 receives of size class 6 that took 30 µs each wait 24 µs each.
  model::ProfileTables t;
  t.functions = {"MPI_Recv"};
  t.callsites.resize(1);
  t.ranks.resize(1);
  model::Entry recv{0, 0, 6, 1, 20, 20 * 30e-6, 30e-6, 20 * 40.0};
  model::add_durations(recv.durations, 20, 20 * 30e-6);
  t.ranks[0].entries.push_back(recv);
  const auto s = model::summarize_rank(t, model::minima_of(t), &c);
  CHECK(s.ranks[0].wait_s_calibrated == Approx(20 * (30e-6 - 6e-6)));
}

TEST_CASE("calibration: a baseline follows a call's bytes inside its size class", "[model]") {
  // Windows that saw the lower part of size class 15 (20,000 B on average, 10 µs),
  // between class 14 (12,000 B, 6 µs) and class 16 (48,000 B, 24 µs): 0.5 ns a byte.
  model::Calibration c;
  c.source = "windows";
  c.keys[{"MPI_Recv", 14, 0}] = {10 * 6e-6, 0, 10, 10 * 12000.0};
  c.keys[{"MPI_Recv", 15, 0}] = {10 * 10e-6, 0, 10, 10 * 20000.0};
  c.keys[{"MPI_Recv", 16, 0}] = {10 * 24e-6, 0, 10, 10 * 48000.0};
  const auto line = model::calibrated_baseline(c, {"MPI_Recv", 15, 0});
  REQUIRE(line);
  CHECK(line->slope_s_per_byte == Approx(0.5e-9));
  CHECK(line->at(20000) == Approx(10e-6));  // the windows' own calls: their mean cost
  CHECK(line->at(28000) == Approx(14e-6));
  // An end class takes the secant to its one neighbour; a falling one counts as flat.
  CHECK(model::calibrated_baseline(c, {"MPI_Recv", 16, 0})->slope_s_per_byte ==
        Approx(14e-6 / 28000));
  model::Calibration falling = c;
  falling.keys[{"MPI_Recv", 16, 0}] = {10 * 4e-6, 0, 10, 10 * 48000.0};
  CHECK(model::calibrated_baseline(falling, {"MPI_Recv", 15, 0})->slope_s_per_byte == 0);
  // A callsite keeps its own mean cost and bytes, with the key's slope.
  c.sites[{"MPI_Recv", 15, 0, "site"}] = {8 * 12e-6, 0, 8, 8 * 24000.0};
  CHECK(model::calibrated_baseline(c, {"MPI_Recv", 15, 0}, "site")->at(26000) == Approx(13e-6));

  // In the summary: 10 receives of 28,000 B that took 20 µs each wait 6 µs each, not
  // the 10 µs the windows' mean cost would leave.
  model::ProfileTables t;
  t.functions = {"MPI_Recv"};
  t.callsites.resize(1);
  t.ranks.resize(1);
  model::Entry recv{0, 0, 15, 1, 10, 10 * 20e-6, 20e-6, 10 * 28000.0};
  model::add_durations(recv.durations, 10, 10 * 20e-6);
  t.ranks[0].entries.push_back(recv);
  CHECK(model::summarize_rank(t, model::minima_of(t), &c).ranks[0].wait_s_calibrated ==
        Approx(10 * 6e-6));

  // Class 15 not calibrated: the line between its neighbours, read at the call's bytes.
  c.keys.erase({"MPI_Recv", 15, 0});
  const auto between = model::interpolated_baseline(c, {"MPI_Recv", 15, 0});
  REQUIRE(between);
  CHECK(between->at(24000) == Approx(12e-6));
  CHECK(model::summarize_rank(t, model::minima_of(t), &c).ranks[0].wait_s_calibrated ==
        Approx(10 * (20e-6 - 14e-6)));
  // A calibrated key is never interpolated.
  CHECK_FALSE(model::interpolated_baseline(c, {"MPI_Recv", 14, 0}));
}
