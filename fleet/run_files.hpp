#pragma once
// The runs under a log tree as the tree holds them (docs/fleet.md, "What a run
// is"): every user can write into a log tree's days, so a name there may be a link
// to another user's run (counting it twice, or under another name) or to a file
// outside the tree. Below each root given, nothing is followed: directories are
// opened one component at a time with O_NOFOLLOW, a symbolic link anywhere is
// refused (one line), and a record is read from the file the walk found, checked
// by its identity (device and inode), never by its name. The roots themselves are
// the administrator's and may be links.

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace mpidle::fleet {

struct RunFile {
  std::filesystem::path run;     // the run directory: the job's key
  std::filesystem::path record;  // the file its record comes from
  // A run that never reached MPI_Finalize, whose record is its ranks' checkpoints
  // merged: `record` is its checkpoints directory. A killed job of a log tree
  // stays in its staging directory: `run` is then the place it would have had.
  bool checkpoints = false;
  std::filesystem::path root;  // the root it was found under
  std::int64_t size = 0, mtime_ns = 0;
  // The record file itself: what a run is, whatever names reach it.
  dev_t device = 0;
  ino_t inode = 0;
  uid_t record_owner = 0, run_owner = 0;  // of the record file and of the run directory
};

struct WalkCounts {
  std::size_t skipped = 0;  // roots that are no directory
  std::size_t refused = 0;  // symbolic links under a root
};

// Every run directory under `roots` (a root may be one itself), without following
// a link below a root; one line on `messages` for each refusal or skip.
std::vector<RunFile> find_run_files(const std::vector<std::string>& roots, std::FILE* messages,
                                    WalkCounts& counts);

// The bytes of `found`'s record, opened again from its root one component at a
// time without following links, and only if it is still the file found (its
// device and inode); throws a one-line reason otherwise (a link or another file
// put in its place since).
std::string read_run_file(const RunFile& found);

// The checkpoint files (rank-N) of a `checkpoints` run, by name, read as
// read_run_file reads a record (no link followed, the directory the one found);
// files that cannot be read are left out.
std::vector<std::pair<std::string, std::string>> read_run_checkpoints(const RunFile& found);

// "device:inode" of a run's record, the key a run counts once by.
std::string identity_of(const RunFile& found);

// Whether the run directory `run` still holds, as its record, the file `identity`
// names (a record seen under another name before may have gone since).
bool still_holds(const std::filesystem::path& run, const std::string& identity);

}  // namespace mpidle::fleet
