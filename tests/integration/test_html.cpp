// HTML pages: structure and numbers against profile.json, binning at 1,024
// ranks, and a real render in headless Chromium (Debian's chromium package).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <tuple>

#include "model/rank_matrix.hpp"
#include "model/trace_file.hpp"
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

// The matrix's cells (rank, peer) as the bytes panel's data attributes give them;
// pairs that never talked have none.
struct MatrixCell {
  long calls = 0;
  double bytes = 0, wait_s = 0;
};
std::map<std::pair<int, int>, MatrixCell> matrix_cells(const std::string& page) {
  std::map<std::pair<int, int>, MatrixCell> cells;
  const std::regex pair_rect(
      "data-rank=\"(\\d+)\" data-peer=\"(\\d+)\" data-calls=\"(\\d+)\" data-bytes=\"([^\"]+)\" "
      "data-wait-s=\"([^\"]+)\"");
  for (std::sregex_iterator it(page.begin(), page.end(), pair_rect), end; it != end; ++it) {
    cells.emplace(std::make_pair(std::stoi((*it)[1]), std::stoi((*it)[2])),
                  MatrixCell{std::stol((*it)[3]), std::stod((*it)[4]), std::stod((*it)[5])});
  }
  return cells;
}

}  // namespace

TEST_CASE("html: a profile run's page has every section, the JSON's numbers, and renders",
          "[mpi]") {
  const auto dir = scratch_dir("html_profile");
  REQUIRE(run_mpi(2, example("late_sender"), {}, {{"MPIDLE_OUTPUT", dir}}).status == 0);
  const std::string page_file = dir + "/report.html";
  const auto r = run({build_tree::mpidle_bin, "report", dir, "--html", page_file});
  REQUIRE(r.status == 0);
  const std::string page = read_text(page_file);
  check_self_contained(page);
  for (const char* id : {"run", "ranks", "callsites", "heatmap", "functions", "matrix", "sizes"}) {
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
  REQUIRE(run({build_tree::mpidle_bin, "report", dir, "--html", page_file}).status == 0);
  const std::string page = read_text(page_file);
  check_self_contained(page);
  CHECK(page.find("<section id=\"summary\">") != std::string::npos);
  CHECK(std::regex_search(
      page, std::regex("Sendrecv(\\d+)\\)\\[4\\] \\+ CPU\\d+\\+Allreduce\\d+\\)\\[9\\]")));
  CHECK(page.find("<section id=\"sync\">") != std::string::npos);

  // The top loop's timeline: iterations 5–9 of the 9, drawn from the trace's own
  // synchronized times; rank 0's lane holds exactly their 25 calls, in order.
  CHECK(page.find("<section id=\"timeline\">") != std::string::npos);
  CHECK(page.find("data-first-iteration=\"5\" data-iterations=\"5\"") != std::string::npos);
  CHECK(count_of(page, "<g class=\"lane\"") == 2);
  const auto lane_at = page.find("<g class=\"lane\" data-rank=\"0\" data-calls=\"25\">");
  REQUIRE(lane_at != std::string::npos);
  const std::string lane = page.substr(lane_at, page.find("</g>", lane_at) - lane_at);
  std::vector<std::tuple<std::string, long long, long long>> drawn;
  const std::regex call_rect(
      "data-function=\"([A-Za-z_]+)\" data-enter-ns=\"(-?\\d+)\" data-exit-ns=\"(-?\\d+)\"");
  for (std::sregex_iterator it(lane.begin(), lane.end(), call_rect), end; it != end; ++it) {
    drawn.emplace_back((*it)[1], std::stoll((*it)[2]), std::stoll((*it)[3]));
  }
  REQUIRE(drawn.size() == 25);
  const auto trace = model::read_trace(dir + "/" + model::read_profile(dir).trace->file);
  const auto& rank0 = trace.ranks.at(0);
  std::vector<std::size_t> calls;  // rank 0's calls, without a call's further records
  for (std::size_t k = 0; k < rank0.records.size(); ++k) {
    if (rank0.records[k].extra == 0) calls.push_back(k);
  }
  std::size_t loop_start = 0;  // the first Sendrecv: the loop's first call
  while (loop_start < calls.size() &&
         trace.functions[rank0.records[calls[loop_start]].function] != "MPI_Sendrecv") {
    ++loop_start;
  }
  REQUIRE(loop_start + 45 <= calls.size());
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    const std::size_t k = calls[loop_start + 20 + i];  // 4 iterations of 5 calls before
    INFO("drawn call " << i);
    CHECK(std::get<0>(drawn[i]) == trace.functions[rank0.records[k].function]);
    CHECK(std::get<1>(drawn[i]) == rank0.synced.at(2 * k));
    CHECK(std::get<2>(drawn[i]) == rank0.synced.at(2 * k + 1));
  }
  CHECK(std::get<0>(drawn[4]) == "MPI_Allreduce");

  // Lanes are read whole: past 8 million calls in all they are left out, and with
  // the loop's own rank past it there is no timeline (the profile says how many
  // calls each rank made; here it is made to say more).
  for (const long long rank0_calls : {7'000'000LL, 9'000'000LL}) {
    const auto big = scratch_dir("html_trace_big_" + std::to_string(rank0_calls));
    std::filesystem::copy(dir, big,
                          std::filesystem::copy_options::recursive |
                              std::filesystem::copy_options::overwrite_existing);
    auto doc = nlohmann::json::parse(read_text(big + "/profile.json"));
    doc["trace"]["events_by_rank"] = {rank0_calls, 2'000'000};
    std::ofstream(big + "/profile.json") << doc.dump();
    REQUIRE(run({build_tree::mpidle_bin, "report", big, "--html", big + "/report.html"}).status ==
            0);
    const std::string limited = read_text(big + "/report.html");
    if (rank0_calls < 8'000'000) {
      CHECK(count_of(limited, "<g class=\"lane\"") == 1);
      CHECK(limited.find(", 1 of 2 ranks.") != std::string::npos);
    } else {
      CHECK(count_of(limited, "<g class=\"lane\"") == 0);
      CHECK(limited.find("Rank 0's 9000000 calls are more than the timeline reads") !=
            std::string::npos);
    }
  }

  // compare --html: the same program with more exchanges per step.
  const auto dir_b = scratch_dir("html_trace_b");
  REQUIRE(run_mpi(2, example("loop_nest"), {"--outer", "9", "--inner", "12"},
                  {{"MPIDLE_OUTPUT", dir_b}})
              .status == 0);
  const std::string compare_file = dir + "/compare.html";
  REQUIRE(run({build_tree::mpidle_bin, "compare", dir, dir_b, "--html", compare_file}).status == 0);
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
  // The rank minima too: rank r is rank r % 2 again, its peer the other of its pair.
  std::vector<nlohmann::json> two_minima;
  {
    std::istringstream lines(read_text(dir + "/rank_minima.jsonl"));
    for (std::string line; std::getline(lines, line);)
      two_minima.push_back(nlohmann::json::parse(line));
  }
  REQUIRE(two_minima.size() == 2);
  double two_rank_bytes = 0;  // point-to-point bytes of the real ranks
  {
    std::ofstream minima(wide + "/rank_minima.jsonl");
    for (int r = 0; r < 1024; ++r) {
      auto line = two_minima[r % 2];
      line["rank"] = r;
      for (auto& m : line["minima"]) {
        if (m[2].get<int>() < 0) continue;
        if (r < 2 && m[3].get<int>() == 0) two_rank_bytes += m[7].get<double>();
        m[2] = r - r % 2 + m[2].get<int>();
      }
      minima << line.dump() << "\n";
    }
  }
  CHECK(two_rank_bytes > 0);
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
  REQUIRE(run({build_tree::mpidle_bin, "report", wide, "--html", page_file}).status == 0);
  const std::string page = read_text(page_file);
  CHECK(count_of(page, "data-first-rank=") == 64);
  CHECK(page.find("1024 ranks in 64 rows") != std::string::npos);
  CHECK(page.find(">ranks 0\u201315<") != std::string::npos);
  const std::size_t columns = std::min<std::size_t>(doc["callsites"].size(), 10);
  CHECK(count_of(page, "class=\"cell\"") == 64 * columns);
  CHECK(page.size() < 200 * 1024);
  // The matrix: pairs (2k, 2k + 1) fall into the same bin of 16 ranks, so only
  // the 64 diagonal cells hold anything, and all of them the bytes of 512 pairs.
  CHECK(page.find("1024 ranks in 64 bins") != std::string::npos);
  const auto wide_cells = matrix_cells(page);
  CHECK(wide_cells.size() == 64);
  double matrix_bytes_total = 0;
  for (const auto& [key, cell] : wide_cells) {
    CHECK(key.first == key.second);
    matrix_bytes_total += cell.bytes;
  }
  CHECK(matrix_bytes_total == Approx(512 * two_rank_bytes));
  if (const auto colours = render(page_file, wide + "/report.png")) {
    CHECK((*colours)[0] > 1000);
  }
}

TEST_CASE(
    "html: the communication matrix and the message sizes are what the program sent and waited",
    "[mpi]") {
  const auto dir = scratch_dir("html_matrix");
  const auto ran = run_mpi(3, program("hub_exchange"), {}, {{"MPIDLE_OUTPUT", dir}});
  REQUIRE(ran.status == 0);
  const auto truth = truth_of(ran.out);
  REQUIRE(truth.contains("pairs"));
  const long steps = truth["steps"].get<long>();
  const std::string page_file = dir + "/report.html";
  REQUIRE(run({build_tree::mpidle_bin, "report", dir, "--html", page_file}).status == 0);
  const std::string page = read_text(page_file);
  check_self_contained(page);
  REQUIRE(page.find("<section id=\"matrix\">") != std::string::npos);
  REQUIRE(page.find("<section id=\"sizes\">") != std::string::npos);
  // Cells only for pairs that talked: the hub with each spoke, both ways, in
  // both panels.
  CHECK(count_of(page, "class=\"pair\"") == 4);
  CHECK(count_of(page, "class=\"pair-wait\"") == 4);
  auto cells = matrix_cells(page);
  const auto profile = model::read_profile(dir);
  std::map<std::string, std::map<int, long>> sizes;  // function → size class → calls
  for (const auto& pair : truth["pairs"]) {
    const int rank = pair["rank"], peer = pair["peer"];
    const double sent = pair["sent"], received = pair["received"];
    const double observed = pair["wait_s"], in_calls = pair["calls_s"];
    const MatrixCell& cell = cells[{rank, peer}];
    INFO("rank " << rank << " with peer " << peer << ": observed wait " << observed << " s, calls "
                 << in_calls << " s, matrix " << cell.wait_s << " s");
    // Every message's bytes, both ways, and one send and one receive per step.
    CHECK(cell.bytes == sent + received);
    CHECK(cell.calls == 2 * steps);
    // The minimum method's wait (time − visits × the fastest visit) lies between
    // the late-sender wait the program saw less the fastest receives' time, and
    // the calls' whole time: a rank that lost its core inside a call (3 ranks on
    // 2 cores, a loaded machine) looks like it waited, which no profiler can tell
    // apart. On a quiet machine it is within 3% of the observed wait.
    double fastest = 0;  // visits × minimum of the rank's receives from this peer
    for (const auto& m : profile.rank_minima) {
      if (m.rank == rank && m.peer == peer && m.function == "MPI_Recv")
        fastest += static_cast<double>(m.count) * m.min_s;
    }
    INFO("receives' visits × minimum " << fastest << " s");
    CHECK(fastest > 0);
    CHECK(cell.wait_s >= observed - fastest - 1e-3);
    CHECK(cell.wait_s <= in_calls + 1e-3);
    sizes["MPI_Send"][model::size_class(static_cast<std::uint64_t>(sent) / steps)] += steps;
    sizes["MPI_Recv"][model::size_class(static_cast<std::uint64_t>(received) / steps)] += steps;
  }
  // The spokes never talk to each other, nor anyone to itself.
  for (const auto& [key, cell] : cells) {
    INFO("rank " << key.first << " with peer " << key.second);
    CHECK((key.first == 0) != (key.second == 0));
  }
  // Each function's histogram: calls per size class, as the program sent them.
  for (const auto& [function, expected] : sizes) {
    const auto at = page.find("<g class=\"histogram\" data-function=\"" + function + "\"");
    REQUIRE(at != std::string::npos);
    const std::string group = page.substr(at, page.find("</g>", at) - at);
    std::map<int, long> shown;
    const std::regex bar("data-size-class=\"(\\d+)\" data-calls=\"(\\d+)\"");
    for (std::sregex_iterator it(group.begin(), group.end(), bar), end; it != end; ++it) {
      shown[std::stoi((*it)[1])] = std::stol((*it)[2]);
    }
    INFO(function);
    CHECK(shown == expected);
  }
  if (const auto colours = render(page_file, dir + "/report.png")) {
    CHECK((*colours)[0] > 1000);  // compute bars and the bytes panel
    CHECK((*colours)[2] > 1000);  // wait bars, heatmap and the wait panel
  }
}
