#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/file_replace.hpp"

namespace fs = std::filesystem;

namespace {

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a file written whole replaces a link at its name, never writes through it", "[log]") {
  const fs::path dir = fs::temp_directory_path() / ("mpidle-replace-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Another user's planted links, in a directory both can write: to a file of the
  // writer's (which a plain open for writing would truncate) and to a missing one.
  std::ofstream(dir / "precious") << "keep me";
  fs::create_symlink(dir / "precious", dir / "profile.json");
  fs::create_symlink(dir / "made-by-link", dir / "job.json");
  std::string error;
  REQUIRE(mpidle::model::replace_file(dir / "profile.json", "{}\n", error));
  REQUIRE(mpidle::model::replace_file(dir / "job.json", "{\"a\": 1}\n", error));
  CHECK(text_of(dir / "precious") == "keep me");
  CHECK_FALSE(fs::exists(dir / "made-by-link"));
  CHECK_FALSE(fs::is_symlink(dir / "profile.json"));
  CHECK(text_of(dir / "profile.json") == "{}\n");
  CHECK(text_of(dir / "job.json") == "{\"a\": 1}\n");
  // Written again: the new bytes, and nothing left beside it.
  REQUIRE(mpidle::model::replace_file(dir / "profile.json", "{\"b\": 2}\n", error));
  CHECK(text_of(dir / "profile.json") == "{\"b\": 2}\n");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  CHECK(files == 3);
  // A directory that cannot be written: false, a reason, nothing written.
  CHECK_FALSE(mpidle::model::replace_file(dir / "missing" / "profile.json", "x", error));
  CHECK_FALSE(error.empty());
  fs::remove_all(dir);
}
