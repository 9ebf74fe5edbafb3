#include "ingest.hpp"

#include <ctime>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fleet/records/job_record.hpp"
#include "model/checkpoint_merge.hpp"
#include "model/json_fields.hpp"
#include "run_files.hpp"
#include "schema.hpp"

namespace mpidle::fleet {
namespace {

constexpr std::size_t kBatch = 500;

struct Stamp {
  std::int64_t size = 0, mtime_ns = 0;
};

std::int64_t epoch_of(const std::string& iso) {
  std::tm tm{};
  if (iso.empty() || !strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return 0;
  return static_cast<std::int64_t>(timegm(&tm));
}

Value text_or_null(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return it->is_string() ? Value(it->get<std::string>()) : Value(it->dump());
}

double number(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return 0;
  if (!it->is_number()) throw std::runtime_error(std::string("\"") + key + "\" is not a number");
  return it->get<double>();
}

// The record of a run, or why it cannot be read.
nlohmann::json load_record(const RunFile& f) {
  if (f.checkpoints) {
    std::vector<model::Checkpoint> checkpoints;
    std::vector<std::string> unreadable;
    for (const auto& [name, bytes] : read_run_checkpoints(f)) {
      try {
        checkpoints.push_back(model::decode_checkpoint(bytes));
        if (checkpoints.back().header.rank != model::checkpoint_rank(name)) {
          checkpoints.pop_back();
          unreadable.push_back(name + ": holds another rank's checkpoint");
        }
      } catch (const std::exception& e) {
        unreadable.push_back(name + ": " + e.what());
      }
    }
    if (checkpoints.empty()) {
      throw std::runtime_error("no readable checkpoint" +
                               (unreadable.empty() ? "" : " (" + unreadable.front() + ")"));
    }
    return fleet::job_record(model::merge_checkpoints(std::move(checkpoints), unreadable).profile);
  }
  std::istringstream in(read_run_file(f));
  // The readers' own parse, with their nesting limit: a record is a few levels deep.
  const nlohmann::json doc = model::read_json(in);
  if (doc.is_discarded()) {
    throw std::runtime_error("not JSON, or cut short (a partial or corrupt file)");
  }
  const std::string schema = doc.is_object() ? doc.value("schema", "") : "";
  if (f.record.filename() == "profile.json") {
    if (schema.rfind("mpidle-profile/", 0) != 0) throw std::runtime_error("not an mpidle profile");
    return fleet::job_record(doc);
  }
  if (schema != fleet::kJobRecordSchema) {
    throw std::runtime_error("not an mpidle job record (schema \"" + schema + "\")");
  }
  return doc;
}

// Writes one job and its rows; true if it was new.
bool store(Database& db, const RunFile& f, const nlohmann::json& r, std::int64_t now) {
  const nlohmann::json job =
      r.contains("job") && r["job"].is_object() ? r["job"] : nlohmann::json::object();
  const bool existed =
      !db.query("SELECT 1 FROM jobs WHERE run_path = $1", {f.run.string()}).empty();
  const auto rows = db.query(
      "INSERT INTO jobs (run_path, record_size, record_mtime, status, scheduler, job_id, step, "
      "array_index, job_name, user_name, account, partition_name, application, executable, "
      "executable_id, mpi_library, mpidle_version, mode, start_time, end_time, ranks, nodes, "
      "wall_s, core_hours, mpi_s, wait_s, wait_core_hours, mpi_share, wait_share, ingested_at, "
      "record_identity) "
      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, "
      "$19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31) "
      "ON CONFLICT (run_path) DO UPDATE SET record_size = excluded.record_size, "
      "record_mtime = excluded.record_mtime, status = excluded.status, "
      "scheduler = excluded.scheduler, job_id = excluded.job_id, step = excluded.step, "
      "array_index = excluded.array_index, job_name = excluded.job_name, "
      "user_name = excluded.user_name, account = excluded.account, "
      "partition_name = excluded.partition_name, application = excluded.application, "
      "executable = excluded.executable, executable_id = excluded.executable_id, "
      "mpi_library = excluded.mpi_library, mpidle_version = excluded.mpidle_version, "
      "mode = excluded.mode, start_time = excluded.start_time, end_time = excluded.end_time, "
      "ranks = excluded.ranks, nodes = excluded.nodes, wall_s = excluded.wall_s, "
      "core_hours = excluded.core_hours, mpi_s = excluded.mpi_s, wait_s = excluded.wait_s, "
      "wait_core_hours = excluded.wait_core_hours, mpi_share = excluded.mpi_share, "
      "wait_share = excluded.wait_share, ingested_at = excluded.ingested_at, "
      "record_identity = excluded.record_identity RETURNING id",
      {f.run.string(),
       f.size,
       f.mtime_ns,
       r.value("status", "whole"),
       text_or_null(job, "scheduler"),
       text_or_null(job, "job_id"),
       text_or_null(job, "step"),
       text_or_null(job, "array_index"),
       text_or_null(job, "job_name"),
       text_or_null(job, "user"),
       text_or_null(job, "account"),
       text_or_null(job, "partition"),
       r.value("application", "unknown"),
       text_or_null(job, "executable"),
       text_or_null(job, "executable_id"),
       text_or_null(job, "mpi_library"),
       text_or_null(job, "mpidle_version"),
       text_or_null(r, "mode"),
       epoch_of(job.value("start", "")),
       epoch_of(job.value("end", "")),
       static_cast<std::int64_t>(number(r, "ranks")),
       static_cast<std::int64_t>(number(job, "nodes")),
       number(r, "wall_s"),
       number(r, "core_hours"),
       number(r, "mpi_s"),
       number(r, "wait_s"),
       number(r, "wait_core_hours"),
       number(r, "mpi_share"),
       number(r, "wait_share"),
       now,
       identity_of(f)});
  const std::int64_t id = as_integer(rows.at(0).at(0));
  const auto efficiency = [&](const char* key) -> Value {
    if (!r.contains("efficiency") || !r["efficiency"].is_object()) return nullptr;
    const auto& e = r["efficiency"];
    return e.contains(key) && e[key].is_number() ? Value(e[key].get<double>()) : Value(nullptr);
  };
  db.query(
      "UPDATE jobs SET parallel_efficiency = $1, load_balance = $2, communication_efficiency = $3 "
      "WHERE id = $4",
      {efficiency("parallel"), efficiency("load_balance"), efficiency("communication"), id});
  if (existed) {
    for (const char* table : {"job_metadata", "job_functions", "job_callsites"}) {
      db.query(std::string("DELETE FROM ") + table + " WHERE job = $1", {id});
    }
  }
  if (job.contains("metadata") && job["metadata"].is_object()) {
    for (const auto& [key, value] : job["metadata"].items()) {
      db.query("INSERT INTO job_metadata (job, key, value) VALUES ($1, $2, $3)",
               {id, key, value.is_string() ? value.get<std::string>() : value.dump()});
    }
  }
  for (const auto& fn : r.value("functions", nlohmann::json::array())) {
    db.query(
        "INSERT INTO job_functions (job, name, calls, time_s, wait_s, bytes) VALUES ($1, $2, $3, "
        "$4, $5, $6) ON CONFLICT (job, name) DO NOTHING",
        {id, fn.value("name", ""), number(fn, "calls"), number(fn, "time_s"), number(fn, "wait_s"),
         number(fn, "bytes")});
  }
  std::int64_t position = 0;
  for (const auto& c : r.value("callsites", nlohmann::json::array())) {
    db.query(
        "INSERT INTO job_callsites (job, position, function, location, visits, time_s, wait_s) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7)",
        {id, position++, c.value("function", ""), c.value("location", ""), number(c, "visits"),
         number(c, "time_s"), number(c, "wait_s")});
  }
  return !existed;
}

}  // namespace

IngestCounts ingest(Database& db, const std::vector<std::string>& roots, std::FILE* messages,
                    const OwnerPolicy& owners) {
  migrate(db);
  IngestCounts counts;
  WalkCounts walk;
  const auto found = find_run_files(roots, messages, walk);
  counts.skipped += walk.skipped;
  counts.refused += walk.refused;
  // A link refused stood where a run could have been: the counts still add up.
  counts.runs = found.size() + walk.refused;
  std::map<std::string, Stamp> known;
  // Which run each record file (device:inode) counts for already: a hard link, or
  // another name for the same file, is not another run.
  std::map<std::string, std::string> counted;
  for (const auto& row :
       db.query("SELECT run_path, record_size, record_mtime, record_identity FROM jobs")) {
    known[row[0].value_or("")] = Stamp{as_integer(row[1]), as_integer(row[2])};
    if (row[3]) counted.emplace(*row[3], row[0].value_or(""));
  }
  const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  std::size_t in_batch = 0;
  bool open = false;
  try {
    for (const auto& f : found) {
      const std::string identity = identity_of(f);
      const auto other = counted.find(identity);
      if (other != counted.end() && other->second != f.run.string() &&
          still_holds(other->second, identity)) {
        std::fprintf(messages, "mpidle fleet: %s: the same record file as %s; refused\n",
                     f.run.c_str(), other->second.c_str());
        ++counts.refused;
        continue;
      }
      counted[identity] = f.run.string();
      const auto it = known.find(f.run.string());
      if (it != known.end() && it->second.size == f.size && it->second.mtime_ns == f.mtime_ns) {
        ++counts.unchanged;
        continue;
      }
      nlohmann::json record;
      try {
        record = load_record(f);
      } catch (const std::exception& e) {
        std::fprintf(messages, "mpidle fleet: %s: %s; skipped\n", f.record.c_str(), e.what());
        ++counts.skipped;
        continue;
      }
      if (const auto why = owner_refusal(f.run, f.record_owner, f.run_owner, record, owners);
          !why.empty()) {
        std::fprintf(messages, "mpidle fleet: %s: %s; refused\n", f.run.c_str(), why.c_str());
        ++counts.refused;
        continue;
      }
      if (!open) {
        db.begin_write();
        // PostgreSQL: one batch at a time, as SQLite's write lock does, so that an
        // ingester sees what another committed before it decides a run is new.
        if (std::string(db.dialect()) == "postgresql") {
          db.exec("LOCK TABLE jobs IN SHARE ROW EXCLUSIVE MODE");
        }
        open = true;
      }
      // A record whose fields have the wrong types fails part-way: what it wrote
      // goes, the batch stays.
      db.exec("SAVEPOINT one_job");
      try {
        (store(db, f, record, now) ? counts.added : counts.updated) += 1;
        db.exec("RELEASE SAVEPOINT one_job");
      } catch (const DatabaseError&) {
        throw;
      } catch (const std::exception& e) {
        db.exec("ROLLBACK TO SAVEPOINT one_job");
        db.exec("RELEASE SAVEPOINT one_job");
        std::fprintf(messages, "mpidle fleet: %s: %s; skipped\n", f.record.c_str(), e.what());
        ++counts.skipped;
        continue;
      }
      if (++in_batch == kBatch) {
        db.commit();
        open = false;
        in_batch = 0;
      }
    }
    if (open) db.commit();
  } catch (...) {
    if (open) db.rollback();
    throw;
  }
  return counts;
}

}  // namespace mpidle::fleet
