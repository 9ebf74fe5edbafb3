#include "json_fields.hpp"

#include <cstdio>

namespace mpidle::model {
namespace {

struct TooDeep {};

// Aborts the parse at the first container past the limit.
bool bounded(int depth, json::parse_event_t event, json&) {
  if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
      depth >= kMaxJsonDepth) {
    throw TooDeep{};
  }
  return true;
}

template <typename Input>
json read_bounded(Input&& input) {
  try {
    return json::parse(std::forward<Input>(input), bounded, /*allow_exceptions=*/false);
  } catch (const TooDeep&) {
    return json(json::value_t::discarded);
  }
}

}  // namespace

json read_json(std::istream& in) {
  return read_bounded(in);
}

json read_json(const std::string& text) {
  return read_bounded(text);
}
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
