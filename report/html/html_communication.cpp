#include "report/html/html_communication.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "report/html/html_page.hpp"
#include "report/html/html_report.hpp"
#include "report/html/rank_bins.hpp"
#include "report/text/text_format.hpp"

namespace mpidle::report {
namespace {

using html::escape;

struct PairTotals {
  double bytes = 0, wait_s = 0;
  std::uint64_t calls = 0;
};

// One panel of the matrix: rows are the ranks that made the calls, columns their
// peers, each cell shaded against the panel's largest.
std::string matrix_panel(const model::Profile& p, const std::vector<RankBin>& bins,
                         const std::vector<std::vector<PairTotals>>& cells, bool wait_panel,
                         int x0) {
  const int n = static_cast<int>(bins.size());
  const int cell = std::clamp(320 / std::max(n, 1), 5, 36);
  constexpr int kLabel = 110, kTop = 34;
  double peak = 0;
  for (const auto& row : cells) {
    for (const auto& c : row) peak = std::max(peak, wait_panel ? c.wait_s : c.bytes);
  }
  // Labels on every bin that has room, else on every k-th.
  const int label_every = cell >= 14 ? 1 : (14 + cell - 1) / cell;
  std::string out = format("<g class=\"matrix-panel\" data-value=\"%s\" data-peak=\"%.9g\">",
                           wait_panel ? "wait" : "bytes", peak);
  out += format(
      "<text x=\"%d\" y=\"12\">%s</text>", x0 + kLabel,
      wait_panel ? "wait, rank (row) with peer (column)" : "bytes, rank (row) with peer (column)");
  for (int q = 0; q < n; q += label_every) {
    out += format("<text x=\"%d\" y=\"%d\">%lld</text>", x0 + kLabel + q * cell + 1, kTop - 6,
                  static_cast<long long>(p.ranks[bins[static_cast<std::size_t>(q)].first].rank));
  }
  // The grid's frame: pairs that never talked stay blank inside it.
  out += format(
      "<rect class=\"grid\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
      "fill=\"#fcfcfc\" stroke=\"#ccc\"/>",
      x0 + kLabel - 1, kTop - 1, n * cell + 1, n * cell + 1);
  for (int b = 0; b < n; ++b) {
    const auto& row_bin = bins[static_cast<std::size_t>(b)];
    const int y = kTop + b * cell;
    if (b % label_every == 0) {
      out += format("<text x=\"%d\" y=\"%d\">%s</text>", x0, y + std::min(cell, 12) - 1,
                    escape(bin_label(p, row_bin)).c_str());
    }
    for (int q = 0; q < n; ++q) {
      const PairTotals& c = cells[static_cast<std::size_t>(b)][static_cast<std::size_t>(q)];
      // Empty cells stay blank, so that the page grows with the pairs that talk.
      if (c.calls == 0) continue;
      const double v = wait_panel ? c.wait_s : c.bytes;
      const auto& peer_bin = bins[static_cast<std::size_t>(q)];
      const std::string title =
          format("%s with peer%s %s: %s in %llu calls, wait %s", bin_label(p, row_bin).c_str(),
                 peer_bin.size() > 1 ? "s" : "", bin_range(p, peer_bin).c_str(),
                 bytes_text(c.bytes).c_str(), static_cast<unsigned long long>(c.calls),
                 seconds(c.wait_s).c_str());
      // The figures as data once, on the bytes panel's cell.
      const std::string data =
          wait_panel ? std::string()
                     : format(
                           " data-rank=\"%lld\" data-peer=\"%lld\" data-calls=\"%llu\" "
                           "data-bytes=\"%.17g\" data-wait-s=\"%.9g\"",
                           static_cast<long long>(p.ranks[row_bin.first].rank),
                           static_cast<long long>(p.ranks[peer_bin.first].rank),
                           static_cast<unsigned long long>(c.calls), c.bytes, c.wait_s);
      out += format(
          "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"%s>"
          "<title>%s</title></rect>",
          wait_panel ? "pair-wait" : "pair", x0 + kLabel + q * cell, y, cell - 1, cell - 1,
          html::shade(peak > 0 ? v / peak : 0,
                      wait_panel ? html::kWaitColour : html::kComputeColour)
              .c_str(),
          data.c_str(), escape(title).c_str());
    }
  }
  out += format("<text x=\"%d\" y=\"%d\">darkest: %s</text>", x0 + kLabel, kTop + n * cell + 14,
                wait_panel ? seconds(peak).c_str() : bytes_text(peak).c_str());
  return out + "</g>\n";
}

// "0 B" or the lower bound of size class `sc` (2^(sc−1) bytes and up).
std::string size_class_text(std::int64_t sc) {
  if (sc <= 0) return "0 B";
  return bytes_text(std::ldexp(1.0, static_cast<int>(sc - 1)));
}

}  // namespace

std::string communication_matrix_section(const model::Profile& p) {
  const std::string head =
      "<section id=\"matrix\"><h2>Communication between ranks</h2>\n"
      "<p>Point-to-point calls of each rank (row) with each peer (column, as a rank of "
      "MPI_COMM_WORLD): the bytes they moved, sent or received, and the time the row rank "
      "waited in them (local minimum). Collectives are not included.</p>\n";
  bool traffic = false;
  for (const auto& m : p.rank_minima) traffic = traffic || m.has_traffic;
  if (!traffic) {
    return head + "<p class=\"note\">" +
           (p.rank_minima.empty()
                ? std::string("The rank minima file is missing: no per-peer figures.")
                : std::string("This profile was written before the rank minima carried bytes "
                              "and wait: no per-peer figures.")) +
           "</p></section>\n";
  }
  const auto bins = rank_bins(p, kMaxRankRows);
  const auto bin_of = bin_of_rank(p, bins);
  std::vector<std::vector<PairTotals>> cells(bins.size(), std::vector<PairTotals>(bins.size()));
  bool any = false;
  for (const auto& m : p.rank_minima) {
    // Point-to-point calls are keyed by their peer alone (communicator shape 0).
    if (!m.has_traffic || m.peer < 0 || m.comm_size != 0) continue;
    const auto row = bin_of.find(m.rank), column = bin_of.find(m.peer);
    if (row == bin_of.end() || column == bin_of.end()) continue;
    PairTotals& c = cells[row->second][column->second];
    c.bytes += m.bytes;
    c.wait_s += m.wait_s;
    c.calls += m.count;
    any = true;
  }
  if (!any) return head + "<p>No point-to-point calls with a peer.</p></section>\n";
  const int n = static_cast<int>(bins.size());
  const int cell = std::clamp(320 / std::max(n, 1), 5, 36);
  const int panel_width = 110 + std::max(n * cell, 200) + 30;  // room for the panel's title
  const int height = 34 + n * cell + 24;
  std::string out = head;
  if (bins.size() < p.ranks.size()) {
    out += "<p>" + std::to_string(p.ranks.size()) + " ranks in " + std::to_string(bins.size()) +
           " bins of consecutive ranks; each cell sums its bins.</p>\n";
  }
  out += format("<svg class=\"matrix\" width=\"%d\" height=\"%d\" role=\"img\">\n", 2 * panel_width,
                height);
  out += matrix_panel(p, bins, cells, false, 0);
  out += matrix_panel(p, bins, cells, true, panel_width);
  return out + "</svg></section>\n";
}

std::string message_size_section(const model::Profile& p) {
  // Calls per (function, size class) over all ranks; a Test that completed
  // nothing (size class −1) carries no message.
  std::map<std::string, std::map<std::int64_t, std::uint64_t>> calls;
  for (const auto& m : p.minima) {
    if (m.size_class >= 0) calls[m.function][m.size_class] += m.count;
  }
  std::vector<std::pair<std::string, std::uint64_t>> functions;  // with data, by calls
  std::int64_t low = 64, high = 0;
  for (const auto& [function, by_class] : calls) {
    std::uint64_t total = 0;
    bool data = false;
    for (const auto& [sc, n] : by_class) {
      total += n;
      data = data || sc > 0;
    }
    if (!data) continue;
    functions.emplace_back(function, total);
    low = std::min(low, by_class.begin()->first);
    high = std::max(high, by_class.rbegin()->first);
  }
  if (functions.empty()) return "";
  std::stable_sort(functions.begin(), functions.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  constexpr std::size_t kMaxFunctions = 16;
  const bool cut = functions.size() > kMaxFunctions;
  if (cut) functions.resize(kMaxFunctions);
  const int columns = static_cast<int>(high - low + 1);
  const int column = columns > 32 ? 14 : 28;
  constexpr int kLabel = 150, kBar = 30, kRow = 42;
  const int rows = static_cast<int>(functions.size());
  std::string out =
      "<section id=\"sizes\"><h2>Message sizes</h2>\n<p>Calls per message size, all ranks: "
      "each column is a size class, from the size under it up to twice that; bars are "
      "scaled per function.</p>\n" +
      format("<svg class=\"sizes\" width=\"%d\" height=\"%d\" role=\"img\">\n",
             kLabel + columns * column + 60, rows * kRow + 40);
  for (int f = 0; f < rows; ++f) {
    const auto& [function, total] = functions[static_cast<std::size_t>(f)];
    const auto& by_class = calls[function];
    std::uint64_t peak = 0;
    for (const auto& [sc, n] : by_class) peak = std::max(peak, n);
    const int base = f * kRow + kBar + 4;
    out += format("<g class=\"histogram\" data-function=\"%s\" data-calls=\"%llu\">",
                  escape(function).c_str(), static_cast<unsigned long long>(total));
    out += format("<text x=\"0\" y=\"%d\">%s</text>", base - 4, escape(function).c_str());
    out += format("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>", kLabel, base,
                  kLabel + columns * column, base);
    for (const auto& [sc, n] : by_class) {
      const double h = peak > 0 ? static_cast<double>(n) / static_cast<double>(peak) * kBar : 0;
      out += format(
          "<rect class=\"size-bar processing\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
          "data-size-class=\"%lld\" data-calls=\"%llu\"><title>%s: %llu calls of %s%s</title>"
          "</rect>",
          kLabel + static_cast<int>(sc - low) * column + 1, base - h, column - 2, h,
          static_cast<long long>(sc), static_cast<unsigned long long>(n), escape(function).c_str(),
          static_cast<unsigned long long>(n), size_class_text(sc).c_str(),
          sc > 0 ? (" to " + size_class_text(sc + 1)).c_str() : "");
    }
    out += "</g>\n";
  }
  // The size axis, under the last function.
  const int axis = rows * kRow + 16;
  const int label_every = column >= 28 ? 2 : 4;
  for (std::int64_t sc = low; sc <= high; ++sc) {
    if ((sc - low) % label_every != 0) continue;
    out += format("<text class=\"size-tick\" x=\"%d\" y=\"%d\">%s</text>",
                  kLabel + static_cast<int>(sc - low) * column, axis, size_class_text(sc).c_str());
  }
  out += "</svg>\n";
  if (cut) out += "<p>The 16 functions with the most calls are shown.</p>\n";
  return out + "</section>\n";
}

}  // namespace mpidle::report
