#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>

#include "database.hpp"

namespace mpidle::fleet {
namespace {

class SqliteDatabase final : public Database {
 public:
  explicit SqliteDatabase(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
      const std::string why = m_db ? sqlite3_errmsg(m_db) : "out of memory";
      sqlite3_close(m_db);
      m_db = nullptr;
      throw DatabaseError(path + ": " + why);
    }
    // Several ingesters and reporters at once: wait for the lock (WAL lets readers
    // go on while one writes) rather than fail.
    sqlite3_busy_timeout(m_db, 60000);
    exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON");
  }
  ~SqliteDatabase() override {
    for (auto& [sql, stmt] : m_statements) sqlite3_finalize(stmt);
    sqlite3_close(m_db);
  }

  const char* dialect() const override { return "sqlite"; }

  void exec(const std::string& sql) override {
    for (int attempt = 0;; ++attempt) {
      char* error = nullptr;
      const int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error);
      if (rc == SQLITE_OK) return;
      const std::string why = error ? error : sqlite3_errmsg(m_db);
      sqlite3_free(error);
      if (!busy(rc) || attempt >= kRetries) throw DatabaseError(why);
      pause(attempt);
    }
  }

  std::vector<Row> query(const std::string& sql, const std::vector<Value>& params) override {
    sqlite3_stmt* stmt = prepared(sql);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i + 1);
      std::visit(
          [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::nullptr_t>) {
              sqlite3_bind_null(stmt, at);
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
              sqlite3_bind_int64(stmt, at, v);
            } else if constexpr (std::is_same_v<T, double>) {
              sqlite3_bind_double(stmt, at, v);
            } else {
              sqlite3_bind_text(stmt, at, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
            }
          },
          params[i]);
    }
    std::vector<Row> rows;
    for (int attempt = 0;;) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rows.empty() && busy(rc) && attempt < kRetries) {
        sqlite3_reset(stmt);
        pause(attempt++);
        continue;
      }
      if (rc != SQLITE_ROW) {
        const std::string why = sqlite3_errmsg(m_db);
        sqlite3_reset(stmt);
        throw DatabaseError(why);
      }
      Row row(static_cast<std::size_t>(sqlite3_column_count(stmt)));
      for (int c = 0; c < static_cast<int>(row.size()); ++c) {
        if (sqlite3_column_type(stmt, c) == SQLITE_NULL) continue;
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        row[static_cast<std::size_t>(c)] =
            std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, c)));
      }
      rows.push_back(std::move(row));
    }
    sqlite3_reset(stmt);
    return rows;
  }

  void begin_write() override { exec("BEGIN IMMEDIATE"); }
  void commit() override { exec("COMMIT"); }
  void rollback() noexcept override { sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr); }

 private:
  // The busy handler waits for most locks, but SQLite returns SQLITE_BUSY at once
  // where waiting could deadlock or while another connection makes a new file a
  // WAL database: such statements are tried again, for up to a minute.
  static constexpr int kRetries = 3000;
  static bool busy(int rc) { return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED; }
  static void pause(int attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(attempt < 10 ? 1 : 20));
  }

  sqlite3_stmt* prepared(const std::string& sql) {
    if (const auto it = m_statements.find(sql); it != m_statements.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) !=
        SQLITE_OK) {
      throw DatabaseError(std::string(sqlite3_errmsg(m_db)) + " in: " + sql);
    }
    m_statements.emplace(sql, stmt);
    return stmt;
  }

  sqlite3* m_db = nullptr;
  std::map<std::string, sqlite3_stmt*> m_statements;
};

}  // namespace

std::unique_ptr<Database> open_sqlite(const std::string& path) {
  return std::make_unique<SqliteDatabase>(path);
}

std::unique_ptr<Database> open_database(const std::string& target) {
  if (target.rfind("postgresql://", 0) == 0 || target.rfind("postgres://", 0) == 0) {
    return open_postgresql(target);
  }
  return open_sqlite(target);
}

double as_number(const std::optional<std::string>& cell) {
  return cell ? std::strtod(cell->c_str(), nullptr) : 0.0;
}

std::int64_t as_integer(const std::optional<std::string>& cell) {
  return cell ? std::strtoll(cell->c_str(), nullptr, 10) : 0;
}

}  // namespace mpidle::fleet
