// HTML pages: structure and numbers against profile.json, binning at 1,024
// ranks, and a real render in headless Chromium (Debian's chromium package).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include "model/rank_matrix.hpp"
#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Self-contained: nothing fetched, nothing run.
void check_self_contained(const std::string& page) {
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("<link") == std::string::npos);
  CHECK(page.find("src=") == std::string::npos);
  CHECK(page.find("url(") == std::string::npos);
  CHECK(page.find("http") == std::string::npos);
}

// Renders `page` in headless Chromium; the PNG's counts of the compute, MPI
// processing and wait colours, or nothing where Chromium is not installed.
std::optional<std::vector<long>> render(const std::string& page, const std::string& png) {
  const char* chromium = "/usr/bin/chromium";
  if (!std::filesystem::exists(chromium)) {
    WARN("chromium is not installed (apt-get install chromium): the browser render is skipped");
    return std::nullopt;
  }
  const auto r = run({chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                      "--hide-scrollbars", "--enable-logging=stderr", "--window-size=1280,1800",
                      "--screenshot=" + png, "file://" + page},
                     {}, 60);
  INFO(r.err);
  CHECK(r.status == 0);
  // A page that failed to load, or a script error, shows up in Chromium's log.
  CHECK(r.err.find("Uncaught") == std::string::npos);
  CHECK(r.err.find(":CONSOLE") == std::string::npos);
  CHECK(r.err.find("ERR_FILE_NOT_FOUND") == std::string::npos);
  const auto counts = run({MPIDLE_SYSTEM_PYTHON,
                           std::string(MPIDLE_SOURCE_DIR) + "/tests/integration/png_colors.py", png,
                           "76,120,168", "242,169,59", "214,39,40"});
  REQUIRE(counts.status == 0);
  std::vector<long> out;
  std::istringstream in(counts.out);
  for (long n; in >> n;) out.push_back(n);
  REQUIRE(out.size() == 3);
  return out;
}

}  // namespace

TEST_CASE("html: a profile run's page has every section, the JSON's numbers, and renders",
          "[mpi]") {
  const auto dir = scratch_dir("html_profile");
  REQUIRE(run_mpi(2, example("late_sender"), {}, {{"MPIDLE_OUTPUT", dir}}).status == 0);
  const std::string page_file = dir + "/report.html";
  const auto r = run({MPIDLE_BIN, "report", dir, "--html", page_file});
  REQUIRE(r.status == 0);
  const std::string page = read_text(page_file);
  check_self_contained(page);
  for (const char* id : {"run", "ranks", "callsites", "heatmap", "functions"}) {
    CHECK(page.find(std::string("<section id=\"") + id + "\">") != std::string::npos);
  }
  CHECK(page.find("id=\"summary\"") == std::string::npos);  // profile mode: no loop summary
  // Both bar charts (ranks, callsites) have a time axis with labelled ticks.
  CHECK(count_of(page, "<g class=\"axis\">") == 2);
  CHECK(count_of(page, "class=\"tick\"") >= 4);
  const auto doc = nlohmann::json::parse(read_text(dir + "/profile.json"));
  for (const auto& f : doc["functions"]) {
    const std::string row = "data-function=\"" + f["name"].get<std::string>() + "\" data-calls=\"" +
                            std::to_string(f["calls"].get<long>()) + "\"";
    CHECK(page.find(row) != std::string::npos);
  }
  CHECK(count_of(page, "data-first-rank=") == doc["ranks"].size());
  // The top callsite by wait is the receive the sender keeps waiting for.
  const auto first_site = page.find("<tr data-function=\"MPI_Recv\" data-wait-s=");
  CHECK(first_site != std::string::npos);
  CHECK(first_site < page.find("<tr data-function=\"MPI_Send\" data-wait-s="));

  if (const auto colours = render(page_file, dir + "/report.png")) {
    CHECK((*colours)[0] > 1000);  // compute bars
    CHECK((*colours)[1] > 100);   // MPI processing
    CHECK((*colours)[2] > 1000);  // wait bars and heatmap
  }
}

TEST_CASE("html: a trace run adds the loop summary and synchronization, and compare pages render",
          "[mpi]") {
  const auto dir = scratch_dir("html_trace");
  REQUIRE(run_mpi(2, example("loop_nest"), {"--outer", "9", "--inner", "4"},
                  {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}})
              .status == 0);
  const std::string page_file = dir + "/report.html";
  REQUIRE(run({MPIDLE_BIN, "report", dir, "--html", page_file}).status == 0);
  const std::string page = read_text(page_file);
  check_self_contained(page);
  CHECK(page.find("<section id=\"summary\">") != std::string::npos);
  CHECK(std::regex_search(
      page, std::regex("Sendrecv(\\d+)\\)\\[4\\] \\+ CPU\\d+\\+Allreduce\\d+\\)\\[9\\]")));
  CHECK(page.find("<section id=\"sync\">") != std::string::npos);

  // compare --html: the same program with more exchanges per step.
  const auto dir_b = scratch_dir("html_trace_b");
  REQUIRE(run_mpi(2, example("loop_nest"), {"--outer", "9", "--inner", "12"},
                  {{"MPIDLE_OUTPUT", dir_b}})
              .status == 0);
  const std::string compare_file = dir + "/compare.html";
  REQUIRE(run({MPIDLE_BIN, "compare", dir, dir_b, "--html", compare_file}).status == 0);
  const std::string compared = read_text(compare_file);
  check_self_contained(compared);
  for (const char* id : {"runs", "totals", "callsites"}) {
    CHECK(compared.find(std::string("<section id=\"") + id + "\">") != std::string::npos);
  }
  // The row marked is the one whose time changed most by the two profiles (which
  // one that is depends on this machine's noise: Sendrecv usually, not always).
  const auto pa = model::read_profile(dir), pb = model::read_profile(dir_b);
  std::string most;
  double most_change = -1;
  for (const auto& fa : pa.functions) {
    for (const auto& fb : pb.functions) {
      if (fa.name == fb.name && std::abs(fb.time_s - fa.time_s) > most_change) {
        most_change = std::abs(fb.time_s - fa.time_s);
        most = fa.name;
      }
    }
  }
  INFO("changed most by the profiles: " << most);
  CHECK(compared.find("<tr class=\"changed-most\" data-function=\"" + most + "\"") !=
        std::string::npos);
  if (const auto colours = render(compare_file, dir + "/compare.png")) {
    CHECK((*colours)[1] + (*colours)[2] > 1000);  // processing and wait bars
  }
}

TEST_CASE("html: 1,024 ranks are binned into 64 rows", "[mpi]") {
  // A real 2-rank profile, widened to 1,024 ranks.
  const auto dir = scratch_dir("html_wide");
  REQUIRE(run_mpi(2, example("late_sender"), {}, {{"MPIDLE_OUTPUT", dir}}).status == 0);
  auto doc = nlohmann::json::parse(read_text(dir + "/profile.json"));
  const auto two = doc["ranks"];
  doc["ranks"] = nlohmann::json::array();
  for (int r = 0; r < 1024; ++r) {
    auto row = two[r % 2];
    row["rank"] = r;
    doc["ranks"].push_back(row);
  }
  doc["run"]["ranks"] = 1024;
  // The rank matrix beside it, widened the same way.
  const std::string two_matrix = read_text(dir + "/callsite_ranks.bin");
  const auto narrow =
      model::decode_rank_matrix(std::as_bytes(std::span(two_matrix.data(), two_matrix.size())));
  REQUIRE(narrow);
  REQUIRE(narrow->ranks == 2);
  model::RankMatrix matrix{1024, narrow->callsites, {}};
  for (int r = 0; r < 1024; ++r) {
    for (std::uint32_t c = 0; c < narrow->callsites; ++c)
      matrix.cells.push_back(narrow->at(r % 2, c));
  }
  doc["rank_matrix"]["ranks"] = 1024;
  const auto wide = scratch_dir("html_wide_1024");
  std::filesystem::create_directories(wide);
  std::ofstream(wide + "/profile.json") << doc.dump();
  const auto matrix_bytes = model::encode_rank_matrix(matrix);
  std::ofstream(wide + "/callsite_ranks.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(matrix_bytes.data()),
             static_cast<std::streamsize>(matrix_bytes.size()));
  const auto wide_profile = model::read_profile(wide);
  REQUIRE_FALSE(wide_profile.rank_matrix_missing);
  std::size_t visiting = 0;  // of the two real ranks, at the first callsite
  for (std::uint32_t r = 0; r < 2; ++r) visiting += narrow->at(r, 0).visits > 0;
  CHECK(visiting > 0);
  CHECK(wide_profile.callsites.at(0).by_rank.size() == 512 * visiting);
  const std::string page_file = wide + "/report.html";
  REQUIRE(run({MPIDLE_BIN, "report", wide, "--html", page_file}).status == 0);
  const std::string page = read_text(page_file);
  CHECK(count_of(page, "data-first-rank=") == 64);
  CHECK(page.find("1024 ranks in 64 rows") != std::string::npos);
  CHECK(page.find(">ranks 0\u201315<") != std::string::npos);
  const std::size_t columns = std::min<std::size_t>(doc["callsites"].size(), 10);
  CHECK(count_of(page, "class=\"cell\"") == 64 * columns);
  CHECK(page.size() < 200 * 1024);
  if (const auto colours = render(page_file, wide + "/report.png")) {
    CHECK((*colours)[0] > 1000);
  }
}
