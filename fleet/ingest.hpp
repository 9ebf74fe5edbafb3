#pragma once
// mpidle fleet ingest: every run under the given log trees into the fleet
// database, once. A run's record is its job.json (else one built from its
// profile.json; a run that ended without MPI_Finalize, from its first partial
// rank). Incremental (a record whose size and time are unchanged is not read
// again) and idempotent (a run is keyed by its directory); batches are
// transactions, so several ingesters may run at once.

#include <cstdio>
#include <string>
#include <vector>

#include "database.hpp"
#include "record_owner.hpp"

namespace mpidle::fleet {

struct IngestCounts {
  std::size_t runs = 0;       // run directories found
  std::size_t added = 0;      // new in the database
  std::size_t updated = 0;    // changed since the last ingest (a partial run made whole)
  std::size_t unchanged = 0;  // already there as they are
  std::size_t skipped = 0;    // corrupt, partial, foreign: one line each on `messages`
  std::size_t refused = 0;    // speaking for a user they do not belong to: one line each
};

IngestCounts ingest(Database& db, const std::vector<std::string>& roots, std::FILE* messages,
                    const OwnerPolicy& owners = {});

}  // namespace mpidle::fleet
