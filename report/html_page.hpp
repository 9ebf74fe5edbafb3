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

// Horizontal stacked bars on one scale (the largest bar fills the width).
std::string stacked_bars(const std::vector<Bar>& bars, const std::string& css_class);

// Legend of the segment classes used in the bars.
std::string legend(const std::vector<std::pair<const char*, std::string>>& items);

}  // namespace mpidle::report::html
