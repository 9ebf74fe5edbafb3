#include <catch2/catch.hpp>

#include <regex>

#include "report/html/html_page.hpp"

using namespace mpidle::report;

TEST_CASE("html: axis ticks are round values that reach the largest bar", "[report]") {
  CHECK(html::axis_ticks(0.37, 5) == std::vector<double>{0, 0.1, 0.2, 0.30000000000000004, 0.4});
  const auto ms = html::axis_ticks(0.0123, 5);  // 12.3 ms: steps of 5 ms
  REQUIRE(ms.size() == 4);
  CHECK(ms[1] == Approx(0.005));
  CHECK(ms.back() >= 0.0123);
  const auto big = html::axis_ticks(734.0, 5);  // steps of 200 s
  CHECK(big[1] == Approx(200));
  CHECK(big.back() == Approx(800));
  for (double largest : {1e-9, 3e-6, 0.999, 1.0, 1.001, 55.5, 1e4}) {
    INFO(largest);
    const auto t = html::axis_ticks(largest, 5);
    CHECK(t.front() == 0);
    CHECK(t.back() >= largest * (1 - 1e-9));
    CHECK(t.size() >= 2);
    CHECK(t.size() <= 12);
  }
  CHECK(html::axis_ticks(0, 5) == std::vector<double>{0});
}

TEST_CASE("html: stacked bars carry a time axis on the bars' own scale", "[report]") {
  const std::vector<html::Bar> bars = {
      {"rank 0", {{0.010, "compute", ""}, {0.002, "wait", ""}}, ""},
      {"rank 1", {{0.006, "compute", ""}}, ""}};
  const std::string svg = html::stacked_bars(bars, "rank-bars");
  CHECK(svg.find("<g class=\"axis\">") != std::string::npos);
  // Ticks 0, 5 ms, 10 ms, 15 ms (the 12 ms bar is inside the last one).
  std::regex tick("class=\"tick\" x=\"([0-9.]+)\"[^>]*data-value-s=\"([0-9.e-]+)\">([^<]+)<");
  std::vector<std::pair<double, std::string>> seen;
  for (std::sregex_iterator it(svg.begin(), svg.end(), tick), end; it != end; ++it) {
    seen.emplace_back(std::stod((*it)[1]), (*it)[3]);
  }
  REQUIRE(seen.size() == 4);
  CHECK(seen[0].second == "0");
  CHECK(seen[1].second == "5.00 ms");
  CHECK(seen[3].second == "15.00 ms");
  // The 12 ms bar ends where 12 ms is on the axis.
  std::regex rect("<rect class=\"(\\w+)\" x=\"([0-9.]+)\" y=\"\\d+\" width=\"([0-9.]+)\"");
  double end_of_first = 0;
  for (std::sregex_iterator it(svg.begin(), svg.end(), rect), end; it != end; ++it) {
    end_of_first = std::max(end_of_first, std::stod((*it)[2]) + std::stod((*it)[3]));
  }
  const double per_second = (seen[3].first - seen[0].first) / 0.015;
  CHECK(end_of_first == Approx(seen[0].first + 0.012 * per_second).margin(0.5));
}
