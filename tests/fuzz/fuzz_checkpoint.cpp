// A rank's checkpoint file (model/checkpoint_file.hpp), as every reader of a killed
// run reads it, then merged into the run's profile. The input is the file without
// its checksum, which this harness appends (FNV-1a, as the writer does), so that
// mutations reach the header, the minima and the summary instead of stopping at
// the checksum; the corpus holds real checkpoints cut so.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "model/checkpoint_merge.hpp"
#include "model/profile_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  std::uint64_t sum = 0xcbf29ce484222325ull;
  for (const char c : bytes) {
    sum ^= static_cast<unsigned char>(c);
    sum *= 0x100000001b3ull;
  }
  bytes.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  try {
    auto checkpoint = mpidle::model::decode_checkpoint(bytes);
    const auto document = mpidle::model::merge_checkpoints({std::move(checkpoint)});
    (void)mpidle::model::parse_profile(document.profile);
  } catch (const std::exception&) {
  }
  return 0;
}
