#include <libpq-fe.h>

#include <cstdio>

#include "database.hpp"

namespace mpidle::fleet {
namespace {

// libpq's messages span lines ("ERROR: ...\nDETAIL: ..."): one line for ours.
std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& c : text) c = (c == '\n' || c == '\t') ? ' ' : c;
  for (std::size_t at; (at = text.find("  ")) != std::string::npos;) text.erase(at, 1);
  return text;
}

std::string text_of(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", *d);
    return text;
  }
  return std::get<std::string>(v);
}

class PostgresDatabase final : public Database {
 public:
  explicit PostgresDatabase(const std::string& uri) : m_conn(PQconnectdb(uri.c_str())) {
    if (!m_conn || PQstatus(m_conn) != CONNECTION_OK) {
      const std::string why = one_line(m_conn ? PQerrorMessage(m_conn) : "out of memory");
      PQfinish(m_conn);
      m_conn = nullptr;
      throw DatabaseError("cannot connect to the database: " + why);
    }
    exec("SET client_min_messages TO WARNING");
  }
  ~PostgresDatabase() override { PQfinish(m_conn); }

  const char* dialect() const override { return "postgresql"; }

  void exec(const std::string& sql) override { check(PQexec(m_conn, sql.c_str())); }

  std::vector<Row> query(const std::string& sql, const std::vector<Value>& params) override {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (std::holds_alternative<std::nullptr_t>(params[i])) continue;
      texts[i] = text_of(params[i]);
      values[i] = texts[i].c_str();
    }
    PGresult* result = PQexecParams(m_conn, sql.c_str(), static_cast<int>(params.size()), nullptr,
                                    values.data(), nullptr, nullptr, 0);
    check_status(result);
    std::vector<Row> rows(static_cast<std::size_t>(PQntuples(result)));
    const int columns = PQnfields(result);
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
      auto& row = rows[static_cast<std::size_t>(r)];
      row.resize(static_cast<std::size_t>(columns));
      for (int c = 0; c < columns; ++c) {
        if (!PQgetisnull(result, r, c)) row[static_cast<std::size_t>(c)] = PQgetvalue(result, r, c);
      }
    }
    PQclear(result);
    return rows;
  }

  void begin_write() override { exec("BEGIN"); }
  void commit() override { exec("COMMIT"); }
  void rollback() noexcept override { PQclear(PQexec(m_conn, "ROLLBACK")); }

 private:
  void check_status(PGresult* result) {
    const auto status = PQresultStatus(result);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
    const std::string why = one_line(PQresultErrorMessage(result));
    PQclear(result);
    throw DatabaseError(why.empty() ? "the database refused a statement" : why);
  }
  void check(PGresult* result) {
    check_status(result);
    PQclear(result);
  }

  PGconn* m_conn;
};

}  // namespace

std::unique_ptr<Database> open_postgresql(const std::string& uri) {
  return std::make_unique<PostgresDatabase>(uri);
}

}  // namespace mpidle::fleet
