#include "json_fields.hpp"

#include <cstdio>

namespace mpidle::model {
namespace {

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Frame parse_frame(const Fields& f) {
  return Frame{f.get<std::string>("module"), f.get<std::uint64_t>("offset"),
               f.get<std::string>("function"), f.get<std::string>("file"),
               static_cast<std::int32_t>(f.get<std::int64_t>("line"))};
}

json frames_json(const Callsite& c) {
  json frames = json::array();
  for (const auto& f : c.frames) {
    frames.push_back({{"function", f.function},
                      {"file", f.file},
                      {"line", f.line},
                      {"module", f.module},
                      {"offset", f.offset}});
  }
  return frames;
}

std::string frame_location(const Frame& f) {
  const std::string function = f.function.empty() ? "?" : f.function;
  if (!f.file.empty() && f.line > 0) {
    return basename_of(f.file) + ":" + std::to_string(f.line) + " (" + function + ")";
  }
  char offset[32];
  std::snprintf(offset, sizeof offset, "%llx", static_cast<unsigned long long>(f.offset));
  return function + " (" + basename_of(f.module) + "+0x" + offset + ")";
}

std::string innermost_location(const std::vector<Frame>& frames) {
  return frames.empty() ? "?" : frame_location(frames.front());
}

}  // namespace mpidle::model
