#pragma once
// The fleet database's schema, versioned: each migration takes it one version up,
// in one transaction, once, however many ingesters start at the same time.
// docs/fleet.md documents the tables.

#include "database.hpp"

namespace mpidle::fleet {

inline constexpr int kSchemaVersion = 3;

// Brings the database to kSchemaVersion; returns the version it had (0: new).
// Throws DatabaseError for a database newer than this mpidle.
int migrate(Database& db);

}  // namespace mpidle::fleet
