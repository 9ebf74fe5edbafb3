#include <catch2/catch.hpp>

#include "sync/window_channels.hpp"

using namespace mpidle;
using sync::WindowReceive;
using sync::WindowSend;

namespace {
constexpr std::int64_t kMs = 1'000'000;
}

TEST_CASE("window channels: every receive pairs with the latest send it can have received",
          "[sync]") {
  SECTION("a late sender: no message in flight when the window opened") {
    // Sends every 5 ms from t = 5 ms; each receive ends 20 µs after its send began.
    std::vector<WindowSend> sends;
    std::vector<WindowReceive> receives;
    for (int i = 1; i <= 6; ++i) {
      sends.push_back({i * 5 * kMs, 8192});
      receives.push_back({i * 5 * kMs + 20'000, 8192});
    }
    const auto p = sync::pair_window_channel(receives, sends, 0);
    CHECK(p.first_receive == 0);
    CHECK(p.first_send == 0);
    CHECK(p.pairs == 6);
  }
  SECTION("a message sent before the window opened is received first inside it") {
    // The receiver is 1 ms behind: its first receive takes the message sent at −1 ms.
    std::vector<WindowSend> sends;
    std::vector<WindowReceive> receives;
    receives.push_back({100'000, 8192});
    for (int i = 1; i <= 4; ++i) {
      sends.push_back({i * 5 * kMs - 1 * kMs, 8192});
      receives.push_back({i * 5 * kMs, 8192});
    }
    const auto p = sync::pair_window_channel(receives, sends, 0);
    CHECK(p.first_receive == 1);
    CHECK(p.first_send == 0);
    CHECK(p.pairs == 4);
  }
  SECTION("a receive posted before the window took its first send") {
    std::vector<WindowSend> sends{{1 * kMs, 64}, {6 * kMs, 64}, {11 * kMs, 64}};
    std::vector<WindowReceive> receives{{6 * kMs + 5000, 64}, {11 * kMs + 5000, 64}};
    const auto p = sync::pair_window_channel(receives, sends, 0);
    CHECK(p.first_send == 1);
    CHECK(p.first_receive == 0);
    CHECK(p.pairs == 2);
  }
  SECTION("sizes tell messages apart where times cannot") {
    // Both pairings are causal; only one receives the sizes that were sent.
    std::vector<WindowSend> sends{{1 * kMs, 8}, {2 * kMs, 1 << 20}, {3 * kMs, 8}};
    std::vector<WindowReceive> receives{{4 * kMs, 1 << 20}, {5 * kMs, 8}};
    const auto p = sync::pair_window_channel(receives, sends, 0);
    CHECK(p.first_send == 1);
    CHECK(p.pairs == 2);
  }
  SECTION("the last sends, received after the window closed, stay unpaired") {
    std::vector<WindowSend> sends{{1 * kMs, 8}, {2 * kMs, 8}, {3 * kMs, 8}};
    std::vector<WindowReceive> receives{{1 * kMs + 900, 8}};
    const auto p = sync::pair_window_channel(receives, sends, 0);
    CHECK(p.first_send == 0);
    CHECK(p.pairs == 1);
  }
  SECTION("nothing consistent: nothing paired") {
    std::vector<WindowSend> sends{{5 * kMs, 8}};
    std::vector<WindowReceive> receives{{1 * kMs, 16}};
    CHECK(sync::pair_window_channel(receives, sends, 0).pairs == 0);
    CHECK(sync::pair_window_channel({}, sends, 0).pairs == 0);
    CHECK(sync::pair_window_channel(receives, {}, 0).pairs == 0);
  }
  SECTION("a late receiver whose window began between a send and its receive's post") {
    // Each step a Barrier, then a rendezvous send held 5 ms until its receive is
    // posted; the receive ends with it, and the next step's send begins 3 µs later
    // (the Barrier). The receiver's window holds the receive of the step whose send
    // began before the sender's window opened.
    std::vector<WindowSend> sends;
    std::vector<WindowReceive> receives;
    for (int i = 0; i < 4; ++i) {
      const std::int64_t step = i * 5 * kMs + i * 3'000;
      if (i > 0) sends.push_back({step, 1 << 20});
      receives.push_back({step + 5 * kMs, 1 << 20});
    }
    // One clock: no slack, and each receive pairs with its own step's send.
    const auto p = sync::pair_window_channel(receives, sends, 0);
    CHECK(p.first_receive == 1);
    CHECK(p.first_send == 0);
    CHECK(p.pairs == 3);
    // A slack of a latency (5 µs) holds the pairing one message off, with later
    // sends: why the profiler gives ranks of one node none.
    CHECK(sync::pair_window_channel(receives, sends, 5'000).first_receive == 0);
  }
  SECTION("the tolerance absorbs clock error between hosts") {
    std::vector<WindowSend> sends{{5 * kMs + 300, 8}};
    std::vector<WindowReceive> receives{{5 * kMs, 8}};
    CHECK(sync::pair_window_channel(receives, sends, 0).pairs == 0);
    CHECK(sync::pair_window_channel(receives, sends, 500).pairs == 1);
  }
}

TEST_CASE("window communicator ids differ per window and never name MPI_COMM_WORLD", "[sync]") {
  CHECK(sync::window_comm(0, 0) != sync::window_comm(0, 1));
  CHECK(sync::window_comm(0, 0) != sync::window_comm(5, 0));
  CHECK(sync::window_comm(0, 0) == sync::window_comm(0, 0));
  for (std::uint32_t w = 0; w < 100; ++w) CHECK(sync::window_comm(0, w) != 0);
}

TEST_CASE(
    "a window's part of a trace: calls that began inside a window, and with a record limit "
    "only up to the call that reached it, counted afresh in each window",
    "[sync]") {
  const model::WindowSchedule schedule(10 * kMs, 30'000 * kMs);  // [0, 10), [20, 30) ms, ...
  const std::int64_t reference = 1000;
  model::RankTrace rank;
  // A call every ms from -2 to 44 ms; every third also has a completion record.
  for (std::int64_t t = -2; t <= 44; ++t) {
    model::TraceRecord call;
    call.enter_ns = reference + t * kMs;
    call.exit_ns = call.enter_ns + 1000;
    rank.records.push_back(call);
    if (t % 3 == 0) {
      model::TraceRecord completion = call;
      completion.extra = 1;
      rank.records.push_back(completion);
    }
  }
  const auto starts = [](const model::RankTrace& part) {
    std::vector<std::int64_t> ms;
    for (const auto& r : part.records) {
      if (r.extra == 0) ms.push_back((r.enter_ns - 1000) / kMs);
    }
    return ms;
  };
  // No limit: the calls that began in [0, 10) and [20, 30) ms, with their completions.
  const auto whole = sync::window_part(rank, schedule, reference);
  CHECK(starts(whole) == std::vector<std::int64_t>{0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                                                   20, 21, 22, 23, 24, 25, 26, 27, 28, 29});
  CHECK(whole.records.size() == 20 + 4 + 3);  // completions at 0, 3, 6, 9 and 21, 24, 27

  // 4 records a window: calls 0 (2 records), 1, 2 reach it; call 3 and later are out.
  // Window 1 counts again from 0: 20, 21 (2 records), 22.
  std::uint32_t capped = 0;
  const auto limited = sync::window_part(rank, schedule, reference, 4, &capped);
  CHECK(starts(limited) == std::vector<std::int64_t>{0, 1, 2, 20, 21, 22});
  CHECK(limited.records.size() == 8);
  CHECK(capped == 2);

  // The call whose completion reaches the limit keeps that record: 3 records are
  // reached at call 1 (call 0 has two) and at call 21.
  capped = 0;
  CHECK(starts(sync::window_part(rank, schedule, reference, 3, &capped)) ==
        std::vector<std::int64_t>{0, 1, 20, 21});
  CHECK(capped == 2);
  // A limit no window reaches changes nothing.
  capped = 0;
  CHECK(sync::window_part(rank, schedule, reference, 100, &capped).records.size() ==
        whole.records.size());
  CHECK(capped == 0);
}
