#include "schema.hpp"

#include <string>
#include <vector>

namespace mpidle::fleet {
namespace {

// One migration per version; `{id}` is the dialect's auto-numbered key, `{real}`
// its double.
const std::vector<std::string>& migrations() {
  static const std::vector<std::string> steps = {
      // Version 1: jobs, their metadata, top functions and callsites.
      R"(CREATE TABLE jobs (
  id {id},
  run_path TEXT NOT NULL UNIQUE,
  record_size BIGINT NOT NULL,
  record_mtime BIGINT NOT NULL,
  status TEXT NOT NULL,
  scheduler TEXT, job_id TEXT, step TEXT, array_index TEXT, job_name TEXT,
  user_name TEXT, account TEXT, partition_name TEXT,
  application TEXT NOT NULL, executable TEXT, executable_id TEXT,
  mpi_library TEXT, mpidle_version TEXT, mode TEXT,
  start_time BIGINT, end_time BIGINT,
  ranks BIGINT NOT NULL, nodes BIGINT,
  wall_s {real} NOT NULL, core_hours {real} NOT NULL,
  mpi_s {real} NOT NULL, wait_s {real} NOT NULL, wait_core_hours {real} NOT NULL,
  mpi_share {real} NOT NULL, wait_share {real} NOT NULL,
  ingested_at BIGINT NOT NULL);
CREATE INDEX jobs_by_start ON jobs (start_time);
CREATE INDEX jobs_by_user ON jobs (user_name);
CREATE INDEX jobs_by_account ON jobs (account);
CREATE INDEX jobs_by_application ON jobs (application);
CREATE TABLE job_metadata (
  job BIGINT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY (job, key));
CREATE TABLE job_functions (
  job BIGINT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  name TEXT NOT NULL, calls {real}, time_s {real}, wait_s {real}, bytes {real},
  PRIMARY KEY (job, name));
CREATE TABLE job_callsites (
  job BIGINT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  position INTEGER NOT NULL, function TEXT NOT NULL, location TEXT NOT NULL,
  visits {real}, time_s {real}, wait_s {real},
  PRIMARY KEY (job, position)))",
      // Version 2: POP's efficiencies per job (NULL for jobs ingested before).
      R"(ALTER TABLE jobs ADD COLUMN parallel_efficiency {real};
ALTER TABLE jobs ADD COLUMN load_balance {real};
ALTER TABLE jobs ADD COLUMN communication_efficiency {real})",
      // Version 3: the record file's identity (device:inode; NULL for jobs ingested
      // before), so that a run counts once whatever names reach it.
      R"(ALTER TABLE jobs ADD COLUMN record_identity TEXT;
CREATE INDEX jobs_by_record ON jobs (record_identity))",
  };
  return steps;
}

std::string in_dialect(std::string sql, const Database& db) {
  const bool pg = std::string(db.dialect()) == "postgresql";
  const auto replace = [&](const std::string& from, const std::string& to) {
    for (std::size_t at; (at = sql.find(from)) != std::string::npos;)
      sql.replace(at, from.size(), to);
  };
  replace("{id}", pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY");
  replace("{real}", pg ? "DOUBLE PRECISION" : "REAL");
  return sql;
}

int current_version(Database& db) {
  const auto rows = db.query("SELECT max(version) FROM schema_version");
  return rows.empty() ? 0 : static_cast<int>(as_integer(rows[0][0]));
}

}  // namespace

int migrate(Database& db) {
  db.begin_write();
  try {
    // One migrator at a time (the table's creation too); the others find the work
    // done when they get the lock.
    if (std::string(db.dialect()) == "postgresql") {
      db.query("SELECT pg_advisory_xact_lock(742019)");
    }
    db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    const int found = current_version(db);
    if (found > kSchemaVersion) {
      throw DatabaseError("the database has schema version " + std::to_string(found) +
                          "; this mpidle knows up to " + std::to_string(kSchemaVersion));
    }
    for (int v = found; v < kSchemaVersion; ++v) {
      db.exec(in_dialect(migrations()[static_cast<std::size_t>(v)], db));
      db.query("INSERT INTO schema_version (version) VALUES ($1)", {std::int64_t{v + 1}});
    }
    db.commit();
    return found;
  } catch (...) {
    db.rollback();
    throw;
  }
}

}  // namespace mpidle::fleet
