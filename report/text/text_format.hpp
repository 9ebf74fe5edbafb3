#pragma once
// Number formatting shared by the text reports: printf into a string, times with
// a unit that fits, bytes in binary units.

#include <string>

namespace mpidle::report {

[[gnu::format(printf, 1, 2)]] std::string format(const char* fmt, ...);
double percent(double part, double whole);
std::string seconds(double s);     // "1.23 ms"
std::string bytes_text(double b);  // "1.5 KiB"

}  // namespace mpidle::report
