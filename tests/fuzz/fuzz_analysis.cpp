// analysis.json as `mpidle report` prints it.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "model/json_fields.hpp"
#include "report/text/analysis_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto doc =
        mpidle::model::read_json(std::string(reinterpret_cast<const char*>(data), size));
    if (!doc.is_discarded()) (void)mpidle::report::analysis_text(doc, 10);
  } catch (const std::exception&) {
  }
  return 0;
}
