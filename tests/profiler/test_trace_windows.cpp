// Profile mode's trace windows (profiler/core/trace_windows): where their edges fall as
// the measured tick rate changes, and what the finalize is told of them.
#include <catch2/catch.hpp>

#include "profiler/core/trace_windows.hpp"

using namespace mpidle;
using namespace mpidle::profiler;

TEST_CASE(
    "trace windows: each edge is placed with the rate measured when it is placed, and the "
    "openings are reported as placed",
    "[profiler]") {
  const model::WindowSchedule schedule(50'000'000, 30'000'000'000);  // opens at 0, 100, 300 ms
  const Ticks reference = 1'000;
  // Calibrated at 1 ns per tick at the start; measured again later, the tick is
  // 1.001 ns: the second window's edge must come 0.1% sooner in ticks.
  double measured = 1.0;
  TraceWindows windows;
  windows.start(schedule, reference, 1.0, [&] { return measured; });
  CHECK(windows.openings() == std::vector<Ticks>{reference});
  CHECK(detail::g_window_edge.load() == reference);

  windows.cross(reference);  // the first call to end past the edge opens window 0
  CHECK(detail::g_trace_open.load());
  CHECK(detail::g_window_edge.load() == reference + 50'000'000);

  measured = 1.001;
  windows.cross(reference + 50'000'000);  // closes window 0, places window 1
  CHECK_FALSE(detail::g_trace_open.load());
  const Ticks second = reference + static_cast<Ticks>(100'000'000.0 * (1.0 / 1.001));
  CHECK(detail::g_window_edge.load() == second);
  CHECK(windows.openings() == std::vector<Ticks>{reference, second});

  // A call that ends past the second window's end: that window was missed, the
  // third is placed with the rate of now.
  measured = 1.002;
  windows.cross(second + 60'000'000);
  const Ticks third = reference + static_cast<Ticks>(300'000'000.0 * (1.0 / 1.002));
  CHECK(windows.openings() == std::vector<Ticks>{reference, second, third});
  CHECK(detail::g_window_edge.load() == third);
  CHECK(windows.counts().opened == 1);
  CHECK(windows.counts().missed == 1);

  // Without a rate measured again, the edges stay where the calibration put them.
  TraceWindows fixed;
  fixed.start(schedule, reference, 1.0);
  fixed.cross(reference);
  fixed.cross(reference + 50'000'000);
  CHECK(fixed.openings() == std::vector<Ticks>{reference, reference + 100'000'000});

  // The process' switches back to no windows.
  fixed.start(model::WindowSchedule{}, 0, 1.0);
  CHECK_FALSE(detail::g_trace_open.load());
  CHECK(detail::g_window_edge.load() == ~Ticks{0});
}

TEST_CASE(
    "trace windows: a window whose records reach their limit closes early, and the next "
    "opens as scheduled",
    "[profiler]") {
  const model::WindowSchedule schedule(50'000'000, 30'000'000'000);  // opens at 0, 100, 300 ms
  const Ticks reference = 1'000;
  TraceWindows windows;
  windows.start(schedule, reference, 1.0);
  const auto number = detail::g_window_number.load();
  windows.cross(reference);
  CHECK(detail::g_trace_open.load());
  // Threads count their records afresh when the window number changes.
  CHECK(detail::g_window_number.load() == number + 1);

  windows.records_reached();
  CHECK_FALSE(detail::g_trace_open.load());
  CHECK(windows.counts().capped == 1);
  // The close edge stays: crossing it places the next window where it belongs.
  CHECK(detail::g_window_edge.load() == reference + 50'000'000);
  windows.records_reached();  // another thread at its limit too: counted once
  CHECK(windows.counts().capped == 1);
  windows.cross(reference + 50'000'000);
  CHECK_FALSE(detail::g_trace_open.load());
  CHECK(detail::g_window_edge.load() == reference + 100'000'000);
  windows.cross(reference + 100'000'000);
  CHECK(detail::g_trace_open.load());
  CHECK(detail::g_window_number.load() == number + 2);
  CHECK(windows.counts().opened == 2);
  CHECK(windows.counts().missed == 0);
  // Between windows, a limit reached late (a call that began inside) closes nothing.
  windows.cross(reference + 150'000'000);
  windows.records_reached();
  CHECK(windows.counts().capped == 1);
  CHECK_FALSE(detail::g_trace_open.load());

  windows.start(model::WindowSchedule{}, 0, 1.0);
}
