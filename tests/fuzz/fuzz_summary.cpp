// The binary formats: a trace's loop summaries, the profile summary and global
// minima ranks exchange at finalize, and callsite_ranks.bin of a run directory.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>

#include "compress/summary_codec.hpp"
#include "model/rank_matrix.hpp"
#include "model/summary_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    (void)mpidle::compress::decode_summary_set(
        std::string(reinterpret_cast<const char*>(data), size));
    (void)mpidle::model::decode_summary(bytes);
    (void)mpidle::model::decode_minima(bytes);
    (void)mpidle::model::decode_rank_matrix(bytes);
  } catch (const std::exception&) {
  }
  return 0;
}
