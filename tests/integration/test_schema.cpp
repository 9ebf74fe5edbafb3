// docs/profile.schema.json against real outputs, with Debian's python3-jsonschema
// (scripts/validate-json.py): profile mode, trace mode with every optional
// section, and broken copies that the schema must reject.
#include <catch2/catch.hpp>

#include <fstream>

#include "process.hpp"

using namespace mpidle::test;

namespace {

Outcome validate(const std::string& file) {
  return run({MPIDLE_SYSTEM_PYTHON, std::string(MPIDLE_SOURCE_DIR) + "/scripts/validate-json.py",
              std::string(MPIDLE_SOURCE_DIR) + "/docs/profile.schema.json", file});
}

std::string write_json(const std::string& path, const nlohmann::json& doc) {
  std::ofstream(path) << doc.dump(1);
  return path;
}

}  // namespace

TEST_CASE("schema: profile.json of profile and trace runs conforms to docs/profile.schema.json",
          "[mpi]") {
  const auto profile_dir = scratch_dir("schema_profile");
  REQUIRE(run_mpi(2, example("nonblocking_halo"), {}, {{"MPIDLE_OUTPUT", profile_dir}}).status ==
          0);
  const auto ok = validate(profile_dir + "/profile.json");
  INFO(ok.out << ok.err);
  CHECK(ok.status == 0);

  const auto trace_dir = scratch_dir("schema_trace");
  REQUIRE(run_mpi(2, example("loop_nest"), {"--outer", "5"},
                  {{"MPIDLE_OUTPUT", trace_dir},
                   {"MPIDLE_TRACE", "1"},
                   {"MPIDLE_SUMMARY_SYMBOLS", "peer,size"}})
              .status == 0);
  const auto traced = validate(trace_dir + "/profile.json");
  INFO(traced.out << traced.err);
  CHECK(traced.status == 0);
  // The fleet's compact record of each run, beside its profile.
  for (const auto& dir : {profile_dir, trace_dir}) {
    const auto record = validate(dir + "/job.json");
    INFO(dir << ": " << record.out << record.err);
    CHECK(record.status == 0);
  }
  auto record = nlohmann::json::parse(read_text(profile_dir + "/job.json"));
  record["status"] = "halfway";
  record["callsites"] = nlohmann::json::array();
  for (int i = 0; i < 11; ++i) record["callsites"].push_back(record["functions"][0]);
  const auto broken_record = validate(write_json(profile_dir + "/broken_job.json", record));
  CHECK(broken_record.status == 1);
  CHECK(broken_record.out.find("status") != std::string::npos);
  CHECK(broken_record.out.find("callsites") != std::string::npos);

  // The schema is not a formality: broken copies fail, each error named by path.
  auto doc = nlohmann::json::parse(read_text(trace_dir + "/profile.json"));
  doc["run"]["mode"] = "fast";
  doc["ranks"][0]["calls"] = -3;
  doc["sync"].erase("violations_after");
  doc["summary"]["groups"][0]["sequence"].back()["tree"]["type"] = "twist";
  const auto broken = validate(write_json(trace_dir + "/broken.json", doc));
  CHECK(broken.status == 1);
  CHECK(broken.out.find("run/mode") != std::string::npos);
  CHECK(broken.out.find("ranks/0/calls") != std::string::npos);
  CHECK(broken.out.find("violations_after") != std::string::npos);
  CHECK(broken.out.find("summary/groups/0/sequence") != std::string::npos);
  // A trace section without its sync and summary sections is incomplete.
  auto partial = nlohmann::json::parse(read_text(trace_dir + "/profile.json"));
  partial.erase("summary");
  CHECK(validate(write_json(trace_dir + "/partial.json", partial)).status == 1);
}
