#include "report/html/html_page.hpp"

#include <algorithm>
#include <cmath>

#include "report/text/text_format.hpp"

namespace mpidle::report::html {

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string page_start(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
         escape(title) +
         "</title>\n<style>\n"
         "body{font:14px/1.4 system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#222}\n"
         "h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}\n"
         "table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 8px;text-align:left;"
         "border-bottom:1px solid #eee}td.num,th.num{text-align:right;font-variant-numeric:"
         "tabular-nums}\n"
         "pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}\n"
         ".note{color:#a33}.legend span{display:inline-block;width:12px;height:12px;margin:0 4px "
         "0 12px;vertical-align:middle}\n"
         ".compute{fill:#4c78a8;background:#4c78a8}.processing{fill:#f2a93b;background:#f2a93b}"
         ".wait{fill:#d62728;background:#d62728}.run-a{fill:#7f7f7f;background:#7f7f7f}"
         ".run-b{fill:#17becf;background:#17becf}.collective{fill:#9467bd;background:#9467bd}\n"
         ".cause.computation{fill:#4c78a8;background:#4c78a8}.cause.latency{fill:#f2a93b;"
         "background:#f2a93b}.cause.bandwidth{fill:#e45756;background:#e45756}"
         ".cause.propagated{fill:#9467bd;background:#9467bd}.cause.unexplained{fill:#bab0ac;"
         "background:#bab0ac}\n"
         "svg text{font:11px system-ui,sans-serif;fill:#333}\n"
         "rect.bin{fill:#4c78a8}figure{display:inline-block;margin:6px 16px 6px 0}"
         "figcaption{font-size:12px}\n"
         "</style></head><body>\n";
}

std::string page_end() {
  return "</body></html>\n";
}

std::vector<double> axis_ticks(double largest, int wanted) {
  if (!(largest > 0) || !std::isfinite(largest) || wanted < 1) return {0};
  const double raw = largest / wanted;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (int i = 0; ticks.empty() || ticks.back() < largest * (1 - 1e-9); ++i)
    ticks.push_back(i * step);
  return ticks;
}

std::string stacked_bars(const std::vector<Bar>& bars, const std::string& css_class) {
  constexpr int kLabel = 150, kWidth = 760, kRow = 18, kAxis = 24;
  double longest = 0;
  for (const auto& b : bars) {
    double total = 0;
    for (const auto& s : b.segments) total += std::max(0.0, s.value);
    longest = std::max(longest, total);
  }
  // The scale ends at the last tick, so that the axis reads in round numbers.
  const std::vector<double> ticks = axis_ticks(longest, 5);
  if (ticks.back() > 0) longest = ticks.back();
  const int rows = static_cast<int>(bars.size()) * kRow + 4;
  const int height = rows + kAxis;
  std::string out = format("<svg class=\"%s\" width=\"%d\" height=\"%d\" role=\"img\">\n",
                           css_class.c_str(), kLabel + kWidth + 40, height);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const int y = static_cast<int>(i) * kRow + 2;
    out += "<g class=\"bar\" " + bars[i].data_attributes + ">";
    out += format("<text x=\"0\" y=\"%d\">%s</text>", y + 12, escape(bars[i].label).c_str());
    double x = kLabel;
    for (const auto& s : bars[i].segments) {
      const double w = longest > 0 ? std::max(0.0, s.value) / longest * kWidth : 0;
      if (w > 0) {
        out += format(
            "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">"
            "<title>%s</title></rect>",
            s.css_class, x, y, w, kRow - 4, escape(s.tooltip).c_str());
      }
      x += w;
    }
    out += "</g>\n";
  }
  return out + time_axis(kLabel, kWidth, rows, longest, ticks, false) + "</svg>\n";
}

std::string time_axis(int x0, int width, int y, double scale_s, const std::vector<double>& ticks,
                      bool offsets) {
  std::string out =
      format("<g class=\"axis\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>",
             x0, y, x0 + width, y);
  for (const double t : ticks) {
    if (t > scale_s * (1 + 1e-9)) break;
    const double x = x0 + (scale_s > 0 ? t / scale_s * width : 0);
    const std::string label = t == 0 ? "0" : (offsets ? "+" : "") + seconds(t);
    out += format(
        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>"
        "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
        "data-value-s=\"%.9g\">%s</text>",
        x, y, x, y + 4, x, y + 16, t, label.c_str());
  }
  return out + "</g>";
}

std::string shade(double fraction, Rgb full) {
  const double f = std::isfinite(fraction) ? std::clamp(fraction, 0.0, 1.0) : 0.0;
  auto channel = [f](int c) { return static_cast<int>(std::lround(255 - f * (255 - c))); };
  return format("rgb(%d,%d,%d)", channel(full.r), channel(full.g), channel(full.b));
}

std::string legend(const std::vector<std::pair<const char*, std::string>>& items) {
  std::string out = "<div class=\"legend\">";
  for (const auto& [css_class, label] : items) {
    out += "<span class=\"" + std::string(css_class) + "\"></span>" + escape(label);
  }
  return out + "</div>\n";
}

}  // namespace mpidle::report::html
