// Site configuration (settings/config_file.hpp) and job metadata (fleet/records/job_metadata.hpp).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "fleet/records/job_metadata.hpp"
#include "settings/config_file.hpp"

using namespace mpidle::settings;
using namespace mpidle::fleet;

namespace {

namespace fs = std::filesystem;

EnvLookup lookup_in(const std::map<std::string, std::string>& env) {
  return [env](const char* name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("mpidle_site_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << text;
  return (dir / name).string();
}

}  // namespace

TEST_CASE("config file: the environment over MPIDLE_CONFIG's file over the system file",
          "[settings]") {
  const auto system = write_file("system.conf",
                                 "# the centre's defaults\n"
                                 "LOG_DIR = /var/log/mpidle\n"
                                 "MPIDLE_VERBOSE=1\n"
                                 "POLL_SAMPLE=4\n\n");
  const auto user = write_file("user.conf", "VERBOSE=2\r\nMETADATA=\"case=water, mesh=fine\"\n");
  std::vector<std::string> warnings;
  Settings s = read_settings(lookup_in({{"MPIDLE_CONFIG", user}, {"MPIDLE_POLL_SAMPLE", "8"}}),
                             warnings, system);
  CHECK(warnings.empty());
  CHECK(s.log_dir == "/var/log/mpidle");  // system file only
  CHECK(s.verbose == 2);                  // user's file over the system's
  CHECK(s.poll_sample == 8);              // environment over both
  CHECK(s.metadata == "case=water, mesh=fine");

  // Without MPIDLE_CONFIG, the system file alone; a missing system file is no problem.
  warnings.clear();
  s = read_settings(lookup_in({}), warnings, system);
  CHECK(s.verbose == 1);
  CHECK(s.poll_sample == 4);
  s = read_settings(lookup_in({}), warnings, "/nonexistent/mpidle.conf");
  CHECK(warnings.empty());
  CHECK(s.log_dir.empty());
}

TEST_CASE("config file: garbage gives one line per file and keeps the good lines", "[settings]") {
  const auto mixed = write_file("mixed.conf",
                                "VERBOSE=1\n"
                                "this is not a setting\n"
                                "MPIDLE_NO_SUCH_THING=3\n"
                                "TRACE_MEM=lots\n");
  std::vector<std::string> warnings;
  Settings s = read_settings(lookup_in({{"MPIDLE_CONFIG", mixed}}), warnings, "");
  CHECK(s.verbose == 1);
  CHECK(s.trace_mem_mib == 256);
  REQUIRE(warnings.size() == 2);
  CHECK_THAT(warnings[0], Catch::Contains(mixed) && Catch::Contains("2 lines not understood") &&
                              Catch::Contains("line 2: no KEY=value"));
  CHECK_THAT(warnings[1], Catch::Contains("MPIDLE_TRACE_MEM=\"lots\"") &&
                              Catch::Contains("using the default 256"));

  // A malformed environment value keeps the file's value, and says so.
  warnings.clear();
  s = read_settings(lookup_in({{"MPIDLE_CONFIG", mixed}, {"MPIDLE_VERBOSE", "loud"}}), warnings,
                    "");
  CHECK(s.verbose == 1);
  const auto verbose = std::find_if(warnings.begin(), warnings.end(), [](const std::string& w) {
    return w.find("MPIDLE_VERBOSE=\"loud\"") != std::string::npos;
  });
  REQUIRE(verbose != warnings.end());
  CHECK_THAT(*verbose, Catch::Contains("keeping 1"));

  std::string binary(4096, '\0');
  for (std::size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<char>(i * 131);
  const auto garbage = write_file("garbage.conf", binary);
  warnings.clear();
  s = read_settings(lookup_in({{"MPIDLE_CONFIG", garbage}}), warnings, "");
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("not a configuration file"));
  CHECK(s.verbose == 0);

  warnings.clear();
  read_settings(lookup_in({{"MPIDLE_CONFIG", "/nonexistent/mine.conf"}}), warnings, "");
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("/nonexistent/mine.conf: cannot be read"));
}

TEST_CASE("job metadata: each scheduler's job from its environment", "[job]") {
  auto job = detect_job(lookup_in({}), "alice");
  CHECK(job.scheduler == "none");
  CHECK(job.user == "alice");
  CHECK(job.job_id.empty());

  job = detect_job(lookup_in({{"SLURM_JOB_ID", "1001"},
                              {"SLURM_ARRAY_JOB_ID", "1000"},
                              {"SLURM_ARRAY_TASK_ID", "7"},
                              {"SLURM_STEP_ID", "2"},
                              {"SLURM_JOB_USER", "bob"},
                              {"SLURM_JOB_ACCOUNT", "chem"},
                              {"SLURM_JOB_PARTITION", "batch"},
                              {"SLURM_JOB_NUM_NODES", "4"},
                              {"SLURM_JOB_NODELIST", "n[01-04]"}}),
                   "alice");
  CHECK(job.scheduler == "slurm");
  CHECK(job.job_id == "1000");  // the array's id; the task is array_index
  CHECK(job.array_index == "7");
  CHECK(job.step == "2");
  CHECK(job.user == "bob");
  CHECK(job.account == "chem");
  CHECK(job.partition == "batch");
  CHECK(job.nodes_allocated == 4);
  CHECK(job.node_list == "n[01-04]");

  job = detect_job(lookup_in({{"PBS_JOBID", "77.server"},
                              {"PBS_ARRAY_INDEX", "3"},
                              {"PBS_ACCOUNT", "phys"},
                              {"PBS_QUEUE", "long"}}),
                   "carol");
  CHECK(job.scheduler == "pbs");
  CHECK(job.job_id == "77.server");
  CHECK(job.array_index == "3");
  CHECK(job.account == "phys");
  CHECK(job.partition == "long");
  CHECK(job.user == "carol");

  job = detect_job(lookup_in({{"LSB_JOBID", "55"},
                              {"LSB_JOBINDEX", "0"},
                              {"LSB_PROJECT_NAME", "bio"},
                              {"LSB_QUEUE", "normal"}}),
                   "dave");
  CHECK(job.scheduler == "lsf");
  CHECK(job.array_index.empty());  // LSF's 0 means "not an array"
  CHECK(job.account == "bio");
  CHECK(job.partition == "normal");

  job = detect_job(lookup_in({{"FLUX_JOB_ID", "f2KxY"}, {"FLUX_JOB_NNODES", "2"}}), "erin");
  CHECK(job.scheduler == "flux");
  CHECK(job.job_id == "f2KxY");
  CHECK(job.nodes_allocated == 2);
}

TEST_CASE("job metadata: the user's pairs, bounded", "[job]") {
  std::vector<std::string> warnings;
  auto pairs = parse_user_metadata("case=water;mesh = fine,,=nokey,novalue", warnings);
  CHECK(pairs.size() == 2);
  CHECK(pairs["case"] == "water");
  CHECK(pairs["mesh "] == " fine");
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("2 pairs skipped"));

  std::string many;
  for (int i = 0; i < 100; ++i)
    many += "k" + std::to_string(i) + "=" + std::string(1000, 'v') + ",";
  warnings.clear();
  pairs = parse_user_metadata(many, warnings);
  CHECK(pairs.size() == kMaxUserMetadata);
  for (const auto& [k, v] : pairs) CHECK(v.size() == kMaxMetadataValue);
  CHECK(warnings.size() == 1);
}

TEST_CASE("job metadata: an executable is known by its build id, else by its content", "[job]") {
  // This test program is built with a GNU build id (g++'s default on Debian).
  char self[4096] = {};
  REQUIRE(readlink("/proc/self/exe", self, sizeof self - 1) > 0);
  const std::string id = executable_identity(self);
  CHECK_THAT(id, Catch::StartsWith("build-id:"));
  CHECK(id.size() == std::string("build-id:").size() + 40);

  const auto script = write_file("script.sh", "#!/bin/sh\necho hello\n");
  const std::string hashed = executable_identity(script);
  CHECK_THAT(hashed, Catch::StartsWith("fnv1a64:"));
  CHECK(executable_identity(write_file("other.sh", "#!/bin/sh\necho world\n")) != hashed);
  CHECK(executable_identity("/nonexistent/program").empty());

  const auto j =
      job_json(detect_job(lookup_in({}), "alice"), {"a", "a", "b", "a"}, "s", "e", "MPICH");
  CHECK(j["nodes"] == 2);
  CHECK(j["ranks"] == 4);
  CHECK(j["ranks_per_node"]["min"] == 1);
  CHECK(j["ranks_per_node"]["max"] == 3);
  CHECK(j["node_list"] == "a,b");
  CHECK(j["job_id"].is_null());
}
