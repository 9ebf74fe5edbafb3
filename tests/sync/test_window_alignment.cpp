#include <catch2/catch.hpp>

#include "sync/window_alignment.hpp"

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
