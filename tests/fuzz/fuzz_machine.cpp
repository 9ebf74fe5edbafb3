// Machine files (mpidle probe's output), as `mpidle predict` reads them.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "model/json_fields.hpp"
#include "model/machine_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto doc =
        mpidle::model::read_json(std::string(reinterpret_cast<const char*>(data), size));
    if (!doc.is_discarded()) (void)mpidle::model::machine_from_json(doc, "fuzz input");
  } catch (const std::exception&) {
  }
  return 0;
}
