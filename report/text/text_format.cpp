#include "report/text/text_format.hpp"

#include <cstdarg>
#include <cstdio>

namespace mpidle::report {

std::string format(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

double percent(double part, double whole) {
  return whole > 0 ? 100.0 * part / whole : 0.0;
}

std::string seconds(double s) {
  if (s >= 100) return format("%.0f s", s);
  if (s >= 1) return format("%.2f s", s);
  if (s >= 1e-3) return format("%.2f ms", s * 1e3);
  if (s >= 1e-6 || s == 0) return format("%.1f us", s * 1e6);
  return format("%.1f ns", s * 1e9);
}

std::string bytes_text(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return u == 0 ? format("%.0f B", b) : format("%.1f %s", b, units[u]);
}

}  // namespace mpidle::report
