// Checkpoint files (model/checkpoint_file.hpp) and their merge into a run's profile
// (model/checkpoint_merge.hpp): what a killed job's ranks leave, read back whole or
// not at all.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "fixtures.hpp"
#include "model/checkpoint_merge.hpp"
#include "model/file_replace.hpp"
#include "model/profile_reader.hpp"

using namespace mpidle;
namespace fs = std::filesystem;

namespace {

// Rank `rank` of `size`, as its checkpoint `sequence` would hold it.
model::Checkpoint checkpoint_of(int rank, int size, std::uint64_t sequence = 1,
                                const std::string& start = "2026-12-06T10:00:00Z") {
  const auto tables = test::tables_for_rank(rank, 6e-6 * (rank + 1), 1e-6);
  model::Checkpoint c;
  c.minima = model::minima_of(tables);
  c.summary = model::summarize_rank(tables, c.minima);
  c.header.rank = rank;
  c.header.size = size;
  c.header.sequence = sequence;
  c.header.written_unix_s = 1796580000.0 + static_cast<double>(sequence) + rank * 0.001;
  c.header.wall_s = 60.0 * static_cast<double>(sequence);
  c.header.interval_s = 60;
  c.header.run.executable = "/bin/app";
  c.header.run.args = {"deck.in", "\xff not UTF-8"};
  c.header.run.start = start;
  c.header.run.mpi_library = "MPICH Version: 4.0.2";
  c.header.run.timer = "tsc";
  c.header.job = {{"scheduler", "slurm"}, {"job_id", "42"}};
  return c;
}

std::uint64_t calls_of(const model::ProfileSummary& s, const std::string& function) {
  for (std::size_t f = 0; f < s.functions.size(); ++f) {
    if (s.functions[f] == function) return s.function_totals[f].calls;
  }
  return 0;
}

fs::path fresh_run(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mpidle-ut-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir / model::kCheckpointDirectory);
  return dir;
}

void write(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("a checkpoint reads back as written, and a cut or changed one is refused") {
  const auto c = checkpoint_of(1, 4, 3);
  const std::string bytes = model::encode_checkpoint(c);
  const auto back = model::decode_checkpoint(bytes);
  CHECK(back.header.rank == 1);
  CHECK(back.header.size == 4);
  CHECK(back.header.sequence == 3);
  CHECK(back.header.written_unix_s == c.header.written_unix_s);
  CHECK(back.header.interval_s == 60);
  CHECK(back.header.run.executable == "/bin/app");
  CHECK(back.header.run.args.size() == 2);  // not UTF-8: replaced, kept
  CHECK(back.header.job["job_id"] == "42");
  CHECK(calls_of(back.summary, "MPI_Recv") == 3);
  CHECK(calls_of(back.summary, "MPI_Barrier") == 2);
  CHECK(back.minima.size() == c.minima.size());
  // Cut anywhere, or one byte changed anywhere: refused with a reason, never read.
  for (std::size_t cut = 0; cut < bytes.size(); cut += 1 + bytes.size() / 97) {
    CHECK_THROWS_AS(model::decode_checkpoint(bytes.substr(0, cut)), std::runtime_error);
  }
  for (std::size_t at = 0; at < bytes.size(); at += 1 + bytes.size() / 89) {
    std::string changed = bytes;
    changed[at] = static_cast<char>(changed[at] ^ 0x5a);
    CHECK_THROWS_AS(model::decode_checkpoint(changed), std::runtime_error);
  }
  CHECK_THROWS_WITH(model::decode_checkpoint("{\"schema\": 1}"),
                    Catch::Contains("not an mpidle checkpoint"));
}

TEST_CASE("checkpoints merge into the run's profile, saying which ranks and which none") {
  std::vector<model::Checkpoint> parts = {checkpoint_of(2, 5, 4), checkpoint_of(0, 5, 4),
                                          checkpoint_of(3, 5, 3)};
  const auto document = model::merge_checkpoints(parts);
  const auto profile = model::parse_profile(document.profile);
  REQUIRE(profile.checkpoints);
  CHECK(profile.run.ended == "checkpoint");
  CHECK(profile.checkpoints->ranks_expected == 5);
  CHECK(profile.checkpoints->ranks_found == 3);
  CHECK(profile.checkpoints->missing_ranks == "1,4");
  REQUIRE(profile.checkpoints->ranks.size() == 3);
  CHECK(profile.checkpoints->ranks[0].rank == 0);
  CHECK(profile.checkpoints->ranks[2].sequence == 3);
  REQUIRE(profile.ranks.size() == 3);
  CHECK(profile.run.wall_s == 240);  // the furthest rank's time
  std::uint64_t recv = 0;
  for (const auto& f : profile.functions) recv += f.name == "MPI_Recv" ? f.calls : 0;
  CHECK(recv == 9);
  CHECK(document.profile["job"]["job_id"] == "42");
  CHECK(model::rank_ranges({0, 1, 2, 5, 7, 8}) == "0-2,5,7-8");
  CHECK(model::rank_ranges({}).empty());
  CHECK_THROWS_AS(model::merge_checkpoints({}), std::runtime_error);
}

TEST_CASE("a run directory used again: the newest run's checkpoints are merged, others named") {
  std::vector<model::Checkpoint> parts = {checkpoint_of(0, 2, 9, "2026-12-01T08:00:00Z"),
                                          checkpoint_of(1, 2, 9, "2026-12-01T08:00:00Z"),
                                          checkpoint_of(0, 1, 10, "2026-12-06T10:00:00Z")};
  const auto profile = model::parse_profile(model::merge_checkpoints(parts).profile);
  REQUIRE(profile.checkpoints);
  CHECK(profile.checkpoints->ranks_expected == 1);
  CHECK(profile.checkpoints->ranks_found == 1);
  REQUIRE(profile.checkpoints->unreadable.size() == 2);
  CHECK_THAT(profile.checkpoints->unreadable[0], Catch::Contains("of another run"));
}

TEST_CASE("reading a run's checkpoints: a write cut short leaves the previous one") {
  const fs::path run = fresh_run("checkpoints_read");
  const fs::path dir = run / model::kCheckpointDirectory;
  std::string error;
  REQUIRE(
      model::replace_file(dir / "rank-0", model::encode_checkpoint(checkpoint_of(0, 3, 2)), error));
  // Rank 0 was killed writing its third: half of it under the temporary name the
  // writer uses, which readers never take for a checkpoint.
  const std::string third = model::encode_checkpoint(checkpoint_of(0, 3, 3));
  write(dir / "rank-0.partial-4242-7", third.substr(0, third.size() / 2));
  // Rank 1's file holds rank 2's checkpoint; rank 2's is cut short; a stall note.
  write(dir / "rank-1", model::encode_checkpoint(checkpoint_of(2, 3, 2)));
  const std::string two = model::encode_checkpoint(checkpoint_of(2, 3, 2));
  write(dir / "rank-2", two.substr(0, two.size() - 9));
  write(dir / "rank-2.stall", R"({"schema":"mpidle-stall/1","rank":2,"as_of_unix_s":5.0,)"
                              R"("no_call_ended_since_unix_s":2.5,"last_checkpoint_sequence":2,)"
                              R"("threads":[{"in":"MPI_Recv"},{"in":null}]})");
  std::vector<std::string> unreadable;
  const auto read = model::read_checkpoints(run, unreadable);
  REQUIRE(read.size() == 1);
  CHECK(read[0].header.rank == 0);
  CHECK(read[0].header.sequence == 2);
  REQUIRE(unreadable.size() == 2);
  CHECK_THAT(unreadable[0], Catch::Contains("rank-1: holds another rank's checkpoint"));
  CHECK_THAT(unreadable[1], Catch::Contains("rank-2: cut short or corrupt"));
  CHECK(model::has_checkpoints(run));
  // Every reader takes the run as the merge of what could be read.
  const auto profile = model::read_profile(run);
  REQUIRE(profile.checkpoints);
  CHECK(profile.checkpoints->missing_ranks == "1-2");
  CHECK(profile.checkpoints->unreadable.size() == 2);
  const auto note = model::read_stall_note(dir / "rank-2.stall");
  REQUIRE(note);
  CHECK(note->rank == 2);
  CHECK(note->no_call_ended_since_unix_s == 2.5);
  CHECK(note->threads == std::vector<std::string>{"MPI_Recv", ""});
  write(dir / "rank-1.stall", "{\"schema\":\"mpidle-stall/1\",\"rank\":");
  CHECK_FALSE(model::read_stall_note(dir / "rank-1.stall"));
  // Nothing readable: one clear error.
  const fs::path empty = fresh_run("checkpoints_none");
  write(empty / model::kCheckpointDirectory / "rank-0", "MPIDLECP garbage");
  CHECK_THROWS_WITH(model::read_profile(empty), Catch::Contains("no readable checkpoint"));
  CHECK(model::checkpoint_rank("rank-12") == 12);
  CHECK(model::checkpoint_rank("rank-1.partial-3-4") == -1);
  CHECK(model::checkpoint_rank("rank-") == -1);
  CHECK(model::checkpoint_rank("rank--1") == -1);
}
