// The Chrome export of traces at the edges of what the reader accepts.
#include <catch2/catch.hpp>

#include <sstream>

#include <nlohmann/json.hpp>

#include "../analysis/synced_records.hpp"
#include "report/export/chrome_export.hpp"

using namespace mpidle;
using model::TraceRole;

TEST_CASE("Chrome export of times at the trace reader's limits: no overflow, exact microseconds") {
  // ±2^60 ns: the timeline spans 2^61 ns from the first event (UBSan in
  // build-sanitize stops on any overflow), with a window near its end.
  constexpr std::int64_t far = model::kMaxTraceTimeNs;
  model::Trace t;
  t.functions = {"MPI_Send", "MPI_Recv"};
  t.callsites.resize(2);
  t.ranks.resize(2);
  t.ranks[1].rank = 1;
  test::add_synced(t, 1, 1, TraceRole::recv, -far, far - 6, 0);
  test::add_synced(t, 0, 0, TraceRole::send, far - 10, far - 5, 1);
  for (const auto& r : t.ranks) REQUIRE_NOTHROW(model::check_rank_trace(t, r));

  std::ostringstream all;
  const auto stats = report::write_chrome_trace(t, all);
  CHECK(stats.slices == 2);
  CHECK(stats.flows == 1);
  const auto doc = nlohmann::json::parse(all.str());
  bool found_send = false;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("name", "") != "MPI_Send") continue;
    found_send = true;
    CHECK(e["ts"].get<double>() == Approx(static_cast<double>(2 * far - 10) * 1e-3));
    CHECK(e["dur"].get<double>() == Approx(0.005));
  }
  CHECK(found_send);

  report::ChromeSelection late;
  late.from_s = static_cast<double>(2 * far - 100) * 1e-9;  // clamped to the longest window
  std::ostringstream window;
  CHECK_NOTHROW(report::write_chrome_trace(t, window, late));
  CHECK_NOTHROW(nlohmann::json::parse(window.str()));
}
