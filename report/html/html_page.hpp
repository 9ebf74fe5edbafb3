#pragma once
// Building blocks of mpidle's HTML pages: one self-contained file (inline CSS
// and SVG, no scripts, nothing fetched), escaped text, horizontal stacked bars.

#include <string>
#include <vector>

namespace mpidle::report::html {

std::string escape(const std::string& text);

// <!DOCTYPE html> … <body>, with the shared style sheet.
std::string page_start(const std::string& title);
std::string page_end();

struct Segment {
  double value = 0;
  const char* css_class = "";  // fill colour, from the style sheet
  std::string tooltip;
};

struct Bar {
  std::string label;
  std::vector<Segment> segments;
  std::string data_attributes;  // e.g. data-ranks="0-3", for tests and tools
};

// Horizontal stacked bars of times on one scale (the largest bar fills the
// width), with a time axis: ticks at round values and their labels.
std::string stacked_bars(const std::vector<Bar>& bars, const std::string& css_class);

// A time axis at height `y`, from `x0` (0 s) to `x0 + width` (`scale_s`): a line,
// and a mark and a label at each tick up to the scale ("+1.2 ms" when `offsets`).
std::string time_axis(int x0, int width, int y, double scale_s, const std::vector<double>& ticks,
                      bool offsets);

// Round tick values from 0 to at least `largest` (steps of 1, 2 or 5 × 10^k),
// about `wanted` of them.
std::vector<double> axis_ticks(double largest, int wanted);

// The style sheet's colours, for cells shaded by value.
struct Rgb {
  int r = 0, g = 0, b = 0;
};
inline constexpr Rgb kComputeColour{76, 120, 168};
inline constexpr Rgb kWaitColour{214, 39, 40};
// "rgb(…)" from white (fraction 0) to `full` (fraction 1).
std::string shade(double fraction, Rgb full);

// Legend of the segment classes used in the bars.
std::string legend(const std::vector<std::pair<const char*, std::string>>& items);

}  // namespace mpidle::report::html
