#pragma once
// The fleet database behind one small interface: SQLite (a file, embedded, no
// server) or PostgreSQL (a centre-wide server, `postgresql://...`). SQL is written
// once for both: parameters are $1, $2, ... in order of first use. No MPI.

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace mpidle::fleet {

class DatabaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Value = std::variant<std::nullptr_t, std::int64_t, double, std::string>;
using Row = std::vector<std::optional<std::string>>;  // NULL is nullopt

class Database {
 public:
  virtual ~Database() = default;
  // "sqlite" or "postgresql": the few places where the SQL differs.
  virtual const char* dialect() const = 0;
  // Statements without parameters or results (several, separated by ';').
  virtual void exec(const std::string& sql) = 0;
  // One statement; its rows as text. Prepared once per text and kept.
  virtual std::vector<Row> query(const std::string& sql, const std::vector<Value>& params = {}) = 0;
  // A write transaction. SQLite takes its write lock at once (BEGIN IMMEDIATE) so
  // that concurrent ingesters wait instead of failing mid-way.
  virtual void begin_write() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
};

// `target` is a file path (SQLite, made if missing) or a postgresql:// URI.
std::unique_ptr<Database> open_database(const std::string& target);

std::unique_ptr<Database> open_sqlite(const std::string& path);
std::unique_ptr<Database> open_postgresql(const std::string& uri);

// A number from a query's text column (0 for NULL).
double as_number(const std::optional<std::string>& cell);
std::int64_t as_integer(const std::optional<std::string>& cell);

}  // namespace mpidle::fleet
