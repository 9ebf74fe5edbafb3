#include "checkpoint_file.hpp"

#include <charconv>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "byte_stream.hpp"
#include "summary_codec.hpp"

namespace mpidle::model {
namespace {

constexpr char kCheckpointMagic[8] = {'M', 'P', 'I', 'D', 'L', 'E', 'C', 'P'};

std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

nlohmann::json header_json(const CheckpointHeader& h) {
  return {{"rank", h.rank},
          {"size", h.size},
          {"sequence", h.sequence},
          {"written_unix_s", h.written_unix_s},
          {"wall_s", h.wall_s},
          {"interval_s", h.interval_s},
          {"build_s", h.build_s},
          {"previous_s", h.previous_s},
          {"ended", h.ended},
          {"run", run_info_json(h.run)},
          {"job", h.job}};
}

CheckpointHeader header_of(const nlohmann::json& j) {
  CheckpointHeader h;
  h.rank = j.at("rank").get<std::int32_t>();
  h.size = j.at("size").get<std::int32_t>();
  h.sequence = j.at("sequence").get<std::uint64_t>();
  h.written_unix_s = j.at("written_unix_s").get<double>();
  h.wall_s = j.at("wall_s").get<double>();
  h.interval_s = j.value("interval_s", 0.0);
  h.build_s = j.value("build_s", 0.0);
  h.previous_s = j.value("previous_s", 0.0);
  h.ended = j.at("ended").get<std::string>();
  h.run = run_info_of(j.at("run"));
  if (j.contains("job") && j["job"].is_object()) h.job = j["job"];
  if (h.size < 1 || h.rank < 0 || h.rank >= h.size) {
    throw std::runtime_error("its rank (" + std::to_string(h.rank) + ") is not one of " +
                             std::to_string(h.size));
  }
  return h;
}

// A length-prefixed blob.
bool get_blob(ByteReader& r, std::vector<std::byte>& out) {
  return r.get_array(out);
}

}  // namespace

std::string checkpoint_name(int rank) {
  return "rank-" + std::to_string(rank);
}

int checkpoint_rank(std::string_view name) {
  if (name.substr(0, 5) != "rank-" || name.size() == 5) return -1;
  int rank = -1;
  const auto [end, ec] = std::from_chars(name.data() + 5, name.data() + name.size(), rank);
  return ec == std::errc() && end == name.data() + name.size() && rank >= 0 ? rank : -1;
}

std::optional<StallNote> read_stall_note(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  const auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("schema", "") != "mpidle-stall/1") {
    return std::nullopt;
  }
  try {
    StallNote note;
    note.rank = j.at("rank").get<std::int32_t>();
    note.as_of_unix_s = j.at("as_of_unix_s").get<double>();
    note.no_call_ended_since_unix_s = j.at("no_call_ended_since_unix_s").get<double>();
    note.last_checkpoint_sequence = j.at("last_checkpoint_sequence").get<std::uint64_t>();
    for (const auto& t : j.at("threads")) {
      note.threads.push_back(t.at("in").is_string() ? t["in"].get<std::string>() : "");
    }
    return note;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

nlohmann::json run_info_json(const RunInfo& run) {
  return {{"executable", run.executable},
          {"args", run.args},
          {"mpi_library", run.mpi_library},
          {"start", run.start},
          {"wall_s", run.wall_s},
          {"timer", run.timer},
          {"timer_resolution_s", run.timer_resolution_s},
          {"mode", run.mode},
          {"wait_estimate", run.wait_estimate},
          {"callsite_depth", run.callsite_depth},
          {"per_call_overhead_s", run.per_call_overhead_s},
          {"per_untimed_call_overhead_s", run.per_untimed_call_overhead_s},
          {"setup_s", run.setup_s},
          {"built_for_mpi", run.built_for_mpi},
          {"ended", run.ended}};
}

RunInfo run_info_of(const nlohmann::json& j) {
  RunInfo run;
  run.executable = j.at("executable").get<std::string>();
  run.args = j.at("args").get<std::vector<std::string>>();
  run.mpi_library = j.at("mpi_library").get<std::string>();
  run.start = j.at("start").get<std::string>();
  run.wall_s = j.at("wall_s").get<double>();
  run.timer = j.at("timer").get<std::string>();
  run.timer_resolution_s = j.at("timer_resolution_s").get<double>();
  run.mode = j.at("mode").get<std::string>();
  run.wait_estimate = j.at("wait_estimate").get<std::string>();
  run.callsite_depth = j.at("callsite_depth").get<std::int32_t>();
  run.per_call_overhead_s = j.at("per_call_overhead_s").get<double>();
  run.per_untimed_call_overhead_s = j.at("per_untimed_call_overhead_s").get<double>();
  run.setup_s = j.at("setup_s").get<double>();
  run.built_for_mpi = j.at("built_for_mpi").get<std::string>();
  run.ended = j.at("ended").get<std::string>();
  return run;
}

std::string encode_checkpoint(const Checkpoint& checkpoint) {
  ByteWriter w;
  for (const char c : kCheckpointMagic) w.put(c);
  w.put<std::uint32_t>(kCheckpointVersion);
  // Arguments need not be UTF-8: replaced, never thrown on.
  w.put_string(header_json(checkpoint.header)
                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  const auto minima = encode_minima(checkpoint.minima);
  w.put_array(std::span<const std::byte>(minima));
  const auto summary = encode_summary(checkpoint.summary);
  w.put_array(std::span<const std::byte>(summary));
  const auto bytes = w.take();
  std::string out(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const std::uint64_t sum = fnv1a(out);
  out.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  return out;
}

Checkpoint decode_checkpoint(std::string_view bytes) {
  if (bytes.size() < sizeof kCheckpointMagic + sizeof(std::uint32_t) + sizeof(std::uint64_t) ||
      std::memcmp(bytes.data(), kCheckpointMagic, sizeof kCheckpointMagic) != 0) {
    throw std::runtime_error("not an mpidle checkpoint");
  }
  const std::string_view body = bytes.substr(0, bytes.size() - sizeof(std::uint64_t));
  std::uint64_t sum = 0;
  std::memcpy(&sum, bytes.data() + body.size(), sizeof sum);
  if (sum != fnv1a(body)) throw std::runtime_error("cut short or corrupt (its checksum differs)");
  ByteReader r(std::span(reinterpret_cast<const std::byte*>(body.data()), body.size()));
  char magic[sizeof kCheckpointMagic];
  for (char& c : magic) r.get(c);
  std::uint32_t version = 0;
  if (!r.get(version) || version != kCheckpointVersion) {
    throw std::runtime_error("checkpoint version " + std::to_string(version) +
                             ", this mpidle reads " + std::to_string(kCheckpointVersion));
  }
  std::string header;
  std::vector<std::byte> minima, summary;
  if (!r.get_string(header) || !get_blob(r, minima) || !get_blob(r, summary) || !r.at_end()) {
    throw std::runtime_error("cut short or corrupt");
  }
  Checkpoint c;
  const auto json = nlohmann::json::parse(header, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    throw std::runtime_error("its header is not JSON");
  }
  try {
    c.header = header_of(json);
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error("its header lacks a field or has one of the wrong type");
  }
  auto decoded_minima = decode_minima(minima);
  auto decoded_summary = decode_summary(summary);
  if (!decoded_minima || !decoded_summary) throw std::runtime_error("its tables are corrupt");
  c.minima = std::move(*decoded_minima);
  c.summary = std::move(*decoded_summary);
  if (c.summary.ranks.size() != 1 || c.summary.ranks.front().rank != c.header.rank) {
    throw std::runtime_error("its tables are not its rank's");
  }
  return c;
}

}  // namespace mpidle::model
