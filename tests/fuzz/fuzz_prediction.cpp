// prediction.json, as `mpidle compare` and `report` read it (a file beside a run).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "report/runs/prediction_run.hpp"

namespace {
const std::filesystem::path& scratch_file() {
  static const std::filesystem::path file = [] {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("mpidle-fuzz-prediction-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(MPIDLE_FUZZ_RUN_PROFILE, dir / "profile.json",
                               std::filesystem::copy_options::overwrite_existing);
    return dir / "prediction.json";
  }();
  return file;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    (void)mpidle::report::is_prediction_file(scratch_file());
    (void)mpidle::report::read_prediction_as_profile(scratch_file(), "");
  } catch (const std::exception&) {
  }
  return 0;
}
