// profile.json as `mpidle report`, `compare` and `html` read it, with the loop
// summary it may carry.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "compress/summary_json.hpp"
#include "compress/summary_text.hpp"
#include "model/json_fields.hpp"
#include "model/profile_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto doc = mpidle::model::read_json(text);
    if (doc.is_discarded()) return 0;
    (void)mpidle::model::parse_profile(doc);
    if (doc.is_object() && doc.contains("summary")) {
      (void)mpidle::compress::render_summary_text(
          mpidle::compress::summary_from_json(doc["summary"]), {});
    }
  } catch (const std::exception&) {
    // A reader's refusal: the commands print it as one line.
  }
  return 0;
}
