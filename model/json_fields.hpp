#pragma once
// Reading JSON written by mpidle: field access that names the field on failure,
// so bad input gives one readable error (ProfileError), and the callsite frames
// that several outputs share.

#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile_tables.hpp"

namespace mpidle::model {

// Bad input: missing file, not JSON, wrong schema or a missing/mistyped field.
class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using nlohmann::json;

// The deepest nesting any reader accepts. mpidle's files nest a few levels, a
// loop summary's trees a few hundred at most (its writer leaves deeper elements
// out); a file nested 10^5 levels deep made `mpidle sync` write gigabytes of
// indentation.
inline constexpr int kMaxJsonDepth = 2000;

// One JSON document from `in` or `text`, or a discarded value (is_discarded())
// for anything that is not JSON or is nested deeper than kMaxJsonDepth.
json read_json(std::istream& in);
json read_json(const std::string& text);

class Fields {
 public:
  Fields(const json& object, std::string where) : m_object(object), m_where(std::move(where)) {
    if (!m_object.is_object()) throw ProfileError(m_where + " is not an object");
  }
  bool has(const char* key) const { return m_object.contains(key); }
  const json& at(const char* key) const {
    auto it = m_object.find(key);
    if (it == m_object.end()) throw ProfileError(m_where + " has no \"" + key + "\"");
    return *it;
  }
  template <typename T>
  T get(const char* key) const {
    const json& v = at(key);
    if constexpr (std::is_same_v<T, std::string>) {
      if (!v.is_string()) fail(key, "a string");
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!v.is_number()) fail(key, "a number");
    } else if constexpr (std::is_unsigned_v<T>) {
      if (!v.is_number_unsigned()) fail(key, "a non-negative integer");
    } else if constexpr (std::is_integral_v<T>) {
      if (!v.is_number_integer()) fail(key, "an integer");
    }
    return v.get<T>();
  }
  // An optional field: `fallback` when absent (fields newer than the schema's first version).
  template <typename T>
  T get_or(const char* key, T fallback) const {
    if (!has(key)) return fallback;
    if constexpr (std::is_same_v<T, bool>) {
      if (!at(key).is_boolean()) fail(key, "a boolean");
      return at(key).get<bool>();
    } else {
      return get<T>(key);
    }
  }
  const json& array(const char* key) const {
    const json& v = at(key);
    if (!v.is_array()) fail(key, "an array");
    return v;
  }
  std::string where(const char* key) const { return m_where + "." + key; }

 private:
  [[noreturn]] void fail(const char* key, const char* what) const {
    throw ProfileError(m_where + "." + key + " is not " + what);
  }
  const json& m_object;
  std::string m_where;
};

template <typename Row, typename ParseRow>
std::vector<Row> rows(const Fields& parent, const char* key, ParseRow parse_row) {
  std::vector<Row> out;
  const json& items = parent.array(key);
  for (std::size_t i = 0; i < items.size(); ++i) {
    out.push_back(parse_row(Fields(items[i], parent.where(key) + "[" + std::to_string(i) + "]")));
  }
  return out;
}

Frame parse_frame(const Fields& f);
nlohmann::json frames_json(const Callsite& c);
// "file.c:42 (function)", or "function (module+0xoffset)" without line information.
std::string frame_location(const Frame& f);
// The location of a callsite's innermost frame, or "?" without frames.
std::string innermost_location(const std::vector<Frame>& frames);

}  // namespace mpidle::model
