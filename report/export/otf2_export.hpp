#pragma once
// OTF2 archive of a synchronized trace, written with the OTF2 library, for Vampir,
// Scalasca and every other OTF2 reader (docs/export.md). One location per rank, a
// region per MPI function, the callsite as an attribute of every Enter, MPI
// point-to-point and collective records with communicator, tag, root and bytes.

#include <cstdint>
#include <filesystem>
#include <string>

#include "model/trace_file.hpp"

namespace mpidle::report {

struct Otf2ExportStats {
  std::uint64_t events = 0;       // every event written, all locations
  std::uint64_t calls = 0;        // Enter/Leave pairs
  std::uint64_t sends = 0;        // MpiSend + MpiIsend
  std::uint64_t receives = 0;     // MpiRecv + MpiIrecv
  std::uint64_t collectives = 0;  // MpiCollectiveEnd + NonBlockingCollectiveComplete
  std::uint64_t communicators = 0;
  bool synchronized = true;  // false: raw local clocks
};

// True if this mpidle was built with the OTF2 library.
bool otf2_available();

// Writes `trace` as the archive `directory`/traces.otf2 (the directory must not
// exist yet). Throws std::runtime_error with OTF2's own words for what failed.
Otf2ExportStats write_otf2_archive(const model::Trace& trace,
                                   const std::filesystem::path& directory);

}  // namespace mpidle::report
