// Every row of the MPI function table becomes an exported MPI_ and PMPI_ symbol of
// libmpidle.so; nothing else is exported.
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {
std::vector<std::string> wrapped_functions() {
  std::ifstream in(MPIDLE_WRAPPED_LIST);
  std::vector<std::string> names;
  const std::regex row(R"(^\| `(MPI_\w+)` \|)");
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, row)) names.push_back(m[1]);
  }
  return names;
}
}  // namespace

TEST_CASE("every wrapped function is exported under its MPI_ and PMPI_ names", "[profiler]") {
  const auto names = wrapped_functions();
  // MPICH 4.0 declares about 340 of the table's functions (with the MPI 4 large-count
  // variants), Open MPI 4.1 about 190 (none of those).
  REQUIRE(names.size() > 150);
  void* lib = dlopen(MPIDLE_LIB, RTLD_NOW | RTLD_LOCAL);
  REQUIRE(lib != nullptr);
  for (const auto& name : names) {
    INFO(name);
    CHECK(dlsym(lib, name.c_str()) != nullptr);
    CHECK(dlsym(lib, ("P" + name).c_str()) != nullptr);
  }
  // Internal symbols stay private (the export map keeps only MPI_* and PMPI_*).
  CHECK(dlsym(lib, "_ZN6mpidle5model12merge_tablesERNS0_13ProfileTablesERKS1_") == nullptr);
  dlclose(lib);
}
