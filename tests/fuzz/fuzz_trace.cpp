// trace.mpidle as `mpidle sync`, `analyze`, `export` and `summary` read it: the
// in-memory decoder, every rank's consistency check, and the file reader (which
// seeks through the rank index); then what those commands do with a trace that
// was accepted (clock synchronization, wait states, the Chrome export), for
// traces small enough to keep the fuzzer fast.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include <sstream>

#include "analysis/wait_states.hpp"
#include "model/trace_file.hpp"
#include "report/export/chrome_export.hpp"
#include "sync/trace_sync.hpp"

namespace {
const std::filesystem::path& scratch_file() {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("mpidle-fuzz-trace-" + std::to_string(getpid()));
  return file;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    auto trace = mpidle::model::decode_trace(bytes);
    std::size_t records = 0;
    for (const auto& rank : trace.ranks) {
      mpidle::model::check_rank_trace(trace, rank);
      records += rank.records.size();
    }
    if (records <= 2048 && trace.ranks.size() <= 64) {
      std::ostringstream chrome;
      (void)mpidle::report::write_chrome_trace(trace, chrome);  // raw clocks
      (void)mpidle::sync::synchronize_trace(trace, {});
      (void)mpidle::analysis::analyze_wait_states(trace, mpidle::analysis::Progress{});
      (void)mpidle::report::write_chrome_trace(trace, chrome);  // synchronized
    }
  } catch (const std::exception&) {
  }
  {
    std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  try {
    const auto trace = mpidle::model::read_trace(scratch_file());
    for (const auto& rank : trace.ranks) mpidle::model::check_rank_trace(trace, rank);
  } catch (const std::exception&) {
  }
  return 0;
}
