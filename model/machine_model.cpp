#include "machine_model.hpp"

#include "function_catalog.hpp"
#include "json_fields.hpp"
#include "run_info.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

namespace mpidle::model {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw MachineError(where + ": " + what);
}

double number(const json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) fail(where, std::string("no \"") + key + "\"");
  const json& v = object.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    fail(where, std::string("\"") + key + "\" is not a non-negative number");
  }
  return v.get<double>();
}

// A size in bytes: a point's "bytes", a protocol segment's "from_bytes".
std::uint64_t byte_count(const json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key) || !object.at(key).is_number_integer() ||
      object.at(key).get<std::int64_t>() < 0) {
    fail(where, std::string("needs \"") + key + "\", a non-negative integer");
  }
  return object.at(key).get<std::uint64_t>();
}

json curve_to_json(const CostCurve& c) {
  json points = json::array();
  for (const auto& p : c.points) {
    json point = {{"bytes", p.bytes}, {"seconds", p.seconds}};
    if (p.spread > 0) point["spread"] = p.spread;
    if (p.launch_spread > 0) point["launch_spread"] = p.launch_spread;
    points.push_back(std::move(point));
  }
  return points;
}

CostCurve curve_from_json(const json& points, const std::string& where) {
  if (!points.is_array() || points.empty()) fail(where, "is not a non-empty list of points");
  CostCurve c;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    const json& p = points[i];
    c.points.push_back({byte_count(p, "bytes", at), number(p, "seconds", at),
                        p.contains("spread") ? number(p, "spread", at) : 0.0,
                        p.contains("launch_spread") ? number(p, "launch_spread", at) : 0.0});
    if (i > 0 && c.points[i].bytes <= c.points[i - 1].bytes) {
      fail(at, "bytes must grow from point to point");
    }
  }
  return c;
}

json messages_to_json(const MessageCosts& m) {
  json protocols = json::array();
  for (const auto& p : m.protocols) {
    protocols.push_back({{"from_bytes", p.from_bytes},
                         {"protocol", p.rendezvous ? "rendezvous" : "eager"},
                         {"progresses", p.progresses}});
  }
  json doc = {{"send_overhead", curve_to_json(m.send_overhead)},
              {"receive_overhead", curve_to_json(m.receive_overhead)},
              {"protocols", std::move(protocols)}};
  if (m.exchange) doc["exchange"] = curve_to_json(*m.exchange);
  if (m.blocking_send) doc["blocking_send"] = curve_to_json(*m.blocking_send);
  if (m.sharing != LinkSharing::unknown) doc["sharing"] = sharing_name(m.sharing);
  if (m.exchange_ratio > 0) doc["exchange_ratio"] = m.exchange_ratio;
  if (m.incast_ratio > 0) doc["incast_ratio"] = m.incast_ratio;
  return doc;
}

MessageCosts messages_from_json(const json& doc, const std::string& where) {
  if (!doc.is_object()) fail(where, "is not an object");
  MessageCosts m;
  for (auto [key, curve] : {std::pair{"send_overhead", &m.send_overhead},
                            std::pair{"receive_overhead", &m.receive_overhead}}) {
    if (!doc.contains(key)) fail(where, std::string("no \"") + key + "\" curve");
    *curve = curve_from_json(doc.at(key), where + "." + key);
  }
  if (doc.contains("exchange"))
    m.exchange = curve_from_json(doc.at("exchange"), where + ".exchange");
  if (doc.contains("blocking_send"))
    m.blocking_send = curve_from_json(doc.at("blocking_send"), where + ".blocking_send");
  if (doc.contains("sharing")) {
    const json& v = doc.at("sharing");
    if (v == "shared") {
      m.sharing = LinkSharing::shared;
    } else if (v == "split_duplex") {
      m.sharing = LinkSharing::split_duplex;
    } else {
      fail(where, "\"sharing\" is not \"shared\" or \"split_duplex\"");
    }
  }
  if (doc.contains("exchange_ratio")) m.exchange_ratio = number(doc, "exchange_ratio", where);
  if (doc.contains("incast_ratio")) m.incast_ratio = number(doc, "incast_ratio", where);
  if (!doc.contains("protocols") || !doc.at("protocols").is_array() ||
      doc.at("protocols").empty()) {
    fail(where, "\"protocols\" is not a non-empty list");
  }
  const json& protocols = doc.at("protocols");
  for (std::size_t i = 0; i < protocols.size(); ++i) {
    const std::string at = where + ".protocols[" + std::to_string(i) + "]";
    const json& p = protocols[i];
    ProtocolSegment s;
    s.from_bytes = byte_count(p, "from_bytes", at);
    if (!p.contains("protocol") || !p.at("protocol").is_string() ||
        (p.at("protocol") != "eager" && p.at("protocol") != "rendezvous")) {
      fail(at, "\"protocol\" is not \"eager\" or \"rendezvous\"");
    }
    if (!p.contains("progresses") || !p.at("progresses").is_boolean()) {
      fail(at, "\"progresses\" is not true or false");
    }
    s.rendezvous = p.at("protocol") == "rendezvous";
    s.progresses = p.at("progresses").get<bool>();
    if (i == 0 && s.from_bytes != 0) fail(at, "the first protocol must start at 0 bytes");
    if (i > 0 && s.from_bytes <= m.protocols.back().from_bytes) {
      fail(at, "from_bytes must grow from segment to segment");
    }
    m.protocols.push_back(s);
  }
  return m;
}

}  // namespace

double CostCurve::at(std::uint64_t bytes) const {
  if (points.empty()) return 0;
  if (bytes <= points.front().bytes || points.size() == 1) return points.front().seconds;
  auto hi = std::lower_bound(points.begin(), points.end(), bytes,
                             [](const CostPoint& p, std::uint64_t b) { return p.bytes < b; });
  if (hi == points.end()) hi = points.end() - 1;  // beyond: the last segment continued
  const auto lo = hi - 1;
  const double span = static_cast<double>(hi->bytes - lo->bytes);
  const double t = (static_cast<double>(bytes) - static_cast<double>(lo->bytes)) / span;
  return std::max(0.0, lo->seconds + t * (hi->seconds - lo->seconds));
}

double CostCurve::fixed_part(std::uint64_t bytes) const {
  const double total = at(bytes);
  if (points.size() < 2 || bytes <= points.front().bytes) return total;
  auto hi = std::lower_bound(points.begin(), points.end(), bytes,
                             [](const CostPoint& p, std::uint64_t b) { return p.bytes < b; });
  if (hi == points.end()) hi = points.end() - 1;
  const auto lo = hi - 1;
  const double slope = (hi->seconds - lo->seconds) / static_cast<double>(hi->bytes - lo->bytes);
  const double intercept = lo->seconds - slope * static_cast<double>(lo->bytes);
  return std::clamp(intercept, 0.0, total);
}

const ProtocolSegment& MessageCosts::protocol_for(std::uint64_t bytes) const {
  static const ProtocolSegment kEager;
  auto it =
      std::upper_bound(protocols.begin(), protocols.end(), bytes,
                       [](std::uint64_t b, const ProtocolSegment& s) { return b < s.from_bytes; });
  return it == protocols.begin() ? kEager : *(it - 1);
}

double CostCurve::bandwidth_bytes_per_s() const {
  if (points.size() < 2) return 0;
  const auto& a = points[points.size() - 2];
  const auto& b = points.back();
  const double dt = b.seconds - a.seconds;
  return dt > 0 ? static_cast<double>(b.bytes - a.bytes) / dt : 0;
}

CostCurve CostCurve::with_latency(double latency_s) const {
  CostCurve c = *this;
  const double shift = latency_s - at(0);
  for (auto& p : c.points) p.seconds = std::max(0.0, p.seconds + shift);
  return c;
}

CostCurve CostCurve::with_bandwidth(double bytes_per_s) const {
  CostCurve c = *this;
  const double base = at(0);
  const std::uint64_t first = points.empty() ? 0 : points.front().bytes;
  for (auto& p : c.points) {
    p.seconds = base + static_cast<double>(p.bytes - first) / bytes_per_s;
  }
  if (c.points.size() == 1) c.points.push_back({first + 1'000'000, base + 1e6 / bytes_per_s});
  return c;
}

CostCurve CostCurve::scaled(double factor) const {
  CostCurve c = *this;
  for (auto& p : c.points) p.seconds *= factor;
  return c;
}

double CollectiveModel::at(int ranks, std::uint64_t bytes) const {
  if (by_ranks.empty()) return 0;
  // The measured size nearest on a log scale, then log2(P) scaling from it.
  auto best = by_ranks.begin();
  double best_distance = INFINITY;
  for (auto it = by_ranks.begin(); it != by_ranks.end(); ++it) {
    const double d = std::abs(std::log2(std::max(ranks, 2)) - std::log2(std::max(it->first, 2)));
    if (d < best_distance) {
      best_distance = d;
      best = it;
    }
  }
  const double t = best->second.at(bytes);
  if (best->first == ranks) return t;
  const double ratio = std::log2(std::max(ranks, 2)) / std::log2(std::max(best->first, 2));
  return t * std::max(ratio, 0.0);
}

json machine_to_json(const MachineModel& m) {
  json doc = {{"schema", kMachineSchema},
              {"producer", mpidle_producer()},
              {"name", m.name},
              {"description", m.description},
              {"p2p", {{"intra_node", curve_to_json(m.p2p)}}},
              {"eager_limit_bytes", m.eager_limit_bytes}};
  if (!m.host.empty()) doc["host"] = m.host;
  if (!m.cpu_model.empty()) doc["cpu_model"] = m.cpu_model;
  if (m.p2p_inter_node) doc["p2p"]["inter_node"] = curve_to_json(*m.p2p_inter_node);
  if (m.messages) doc["messages"]["intra_node"] = messages_to_json(*m.messages);
  if (m.messages_inter_node) {
    doc["messages"]["inter_node"] = messages_to_json(*m.messages_inter_node);
  }
  json collectives = json::object();
  for (const auto& [name, model] : m.collectives) {
    json sizes = json::array();
    for (const auto& [ranks, curve] : model.by_ranks) {
      sizes.push_back({{"ranks", ranks}, {"points", curve_to_json(curve)}});
    }
    collectives[name] = std::move(sizes);
  }
  doc["collectives"] = std::move(collectives);
  if (m.compute) {
    doc["compute"] = {{"memory_bound_s", m.compute->memory_bound_s},
                      {"compute_bound_s", m.compute->compute_bound_s}};
    if (m.compute->memory_bound_spread > 0 || m.compute->compute_bound_spread > 0) {
      doc["compute"]["memory_bound_spread"] = m.compute->memory_bound_spread;
      doc["compute"]["compute_bound_spread"] = m.compute->compute_bound_spread;
    }
    if (m.launches > 1) {
      doc["compute"]["memory_bound_launch_spread"] = m.compute->memory_bound_launch_spread;
      doc["compute"]["compute_bound_launch_spread"] = m.compute->compute_bound_launch_spread;
    }
  }
  if (m.launches > 1) doc["launches"] = m.launches;
  return doc;
}

MachineModel machine_from_json(const json& doc, const std::string& where) {
  if (!doc.is_object()) fail(where, "not a JSON object");
  if (!doc.contains("schema") || !doc.at("schema").is_string()) fail(where, "no \"schema\"");
  const auto schema = doc.at("schema").get<std::string>();
  if (schema != kMachineSchema && schema != kMachineSchemaV1) {
    fail(where, "schema \"" + schema + "\" is not a machine model (" + kMachineSchema + " or " +
                    kMachineSchemaV1 + ")");
  }
  MachineModel m;
  if (doc.contains("name") && doc.at("name").is_string()) m.name = doc.at("name");
  if (doc.contains("description") && doc.at("description").is_string()) {
    m.description = doc.at("description");
  }
  for (auto [key, field] : {std::pair{"host", &m.host}, std::pair{"cpu_model", &m.cpu_model}}) {
    if (doc.contains(key) && doc.at(key).is_string()) *field = doc.at(key);
  }
  if (!doc.contains("p2p") || !doc.at("p2p").is_object()) fail(where, "no \"p2p\" object");
  const json& p2p = doc.at("p2p");
  if (!p2p.contains("intra_node")) fail(where + ": p2p", "no \"intra_node\" curve");
  m.p2p = curve_from_json(p2p.at("intra_node"), where + ": p2p.intra_node");
  if (p2p.contains("inter_node")) {
    m.p2p_inter_node = curve_from_json(p2p.at("inter_node"), where + ": p2p.inter_node");
  }
  if (doc.contains("messages")) {
    const json& messages = doc.at("messages");
    if (!messages.is_object()) fail(where, "\"messages\" is not an object");
    if (messages.contains("intra_node")) {
      m.messages = messages_from_json(messages.at("intra_node"), where + ": messages.intra_node");
    }
    if (messages.contains("inter_node")) {
      m.messages_inter_node =
          messages_from_json(messages.at("inter_node"), where + ": messages.inter_node");
    }
  }
  if (doc.contains("eager_limit_bytes")) {
    if (!doc.at("eager_limit_bytes").is_number_integer() ||
        doc.at("eager_limit_bytes").get<std::int64_t>() < 0) {
      fail(where, "\"eager_limit_bytes\" is not a non-negative integer");
    }
    m.eager_limit_bytes = doc.at("eager_limit_bytes");
  }
  if (doc.contains("collectives")) {
    const json& all = doc.at("collectives");
    if (!all.is_object()) fail(where, "\"collectives\" is not an object");
    for (const auto& [name, sizes] : all.items()) {
      const std::string at = where + ": collectives." + name;
      if (!sizes.is_array()) fail(at, "is not a list of communicator sizes");
      CollectiveModel model;
      for (const auto& size : sizes) {
        if (!size.is_object() || !size.contains("ranks") || !size.at("ranks").is_number_integer() ||
            size.at("ranks").get<std::int64_t>() < 1 ||
            size.at("ranks").get<std::int64_t>() > 1 << 30) {
          fail(at, "each entry needs \"ranks\", a positive integer");
        }
        const int ranks = size.at("ranks").get<int>();
        if (!size.contains("points")) fail(at, "an entry has no \"points\"");
        model.by_ranks[ranks] =
            curve_from_json(size.at("points"), at + "[ranks " + std::to_string(ranks) + "]");
      }
      m.collectives[name] = std::move(model);
    }
  }
  if (doc.contains("compute")) {
    const json& c = doc.at("compute");
    ComputeReference ref;
    ref.memory_bound_s = number(c, "memory_bound_s", where + ": compute");
    ref.compute_bound_s = number(c, "compute_bound_s", where + ": compute");
    for (auto [key, field] :
         {std::pair{"memory_bound_spread", &ref.memory_bound_spread},
          std::pair{"compute_bound_spread", &ref.compute_bound_spread},
          std::pair{"memory_bound_launch_spread", &ref.memory_bound_launch_spread},
          std::pair{"compute_bound_launch_spread", &ref.compute_bound_launch_spread}}) {
      if (c.contains(key)) *field = number(c, key, where + ": compute");
    }
    if (ref.memory_bound_s <= 0 || ref.compute_bound_s <= 0) {
      fail(where + ": compute", "kernel times must be positive");
    }
    m.compute = ref;
  }
  if (doc.contains("launches")) {
    const std::uint64_t n = byte_count(doc, "launches", where);
    if (n < 1 || n > 1000) fail(where, "\"launches\" must be from 1 to 1000");
    m.launches = static_cast<std::uint32_t>(n);
  }
  return m;
}

const CostCurve& one_way_curve(const MachineModel& machine, bool apart) {
  return apart && machine.p2p_inter_node ? *machine.p2p_inter_node : machine.p2p;
}

const MessageCosts* message_costs(const MachineModel& machine, bool apart) {
  if (apart && machine.messages_inter_node) return &*machine.messages_inter_node;
  return machine.messages ? &*machine.messages : nullptr;
}

const char* sharing_name(LinkSharing sharing) {
  switch (sharing) {
    case LinkSharing::shared:
      return "shared";
    case LinkSharing::split_duplex:
      return "split_duplex";
    default:
      return "unknown";
  }
}

double exchange_ratio(const CostCurve& exchange, const CostCurve& one_way) {
  constexpr std::uint64_t kBandwidthBound = 64 * 1024;
  std::uint64_t largest = 0;
  for (const auto& p : exchange.points) {
    if (p.bytes >= kBandwidthBound && !one_way.points.empty() &&
        p.bytes <= one_way.points.back().bytes) {
      largest = p.bytes;
    }
  }
  const double alone = largest > 0 ? one_way.at(largest) : 0;
  return alone > 0 ? exchange.at(largest) / alone : 0;
}

LinkSharing link_sharing(const MessageCosts* costs, const CostCurve& one_way) {
  if (costs && costs->sharing != LinkSharing::unknown) return costs->sharing;
  const double ratio = costs && costs->exchange ? exchange_ratio(*costs->exchange, one_way) : 0;
  return sharing_of_ratio(ratio);
}

LinkSharing sharing_of_ratio(double ratio) {
  return ratio > 1.5 ? LinkSharing::shared : LinkSharing::split_duplex;
}

bool receive_side_shared(const MessageCosts* costs) {
  return !costs || costs->incast_ratio <= 0 ||
         sharing_of_ratio(costs->incast_ratio) == LinkSharing::shared;
}

MachineModel read_machine(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw MachineError("cannot open " + file.string());
  const json doc = read_json(in);
  if (doc.is_discarded()) throw MachineError(file.string() + ": not JSON");
  return machine_from_json(doc, file.string());
}

void write_machine(const std::filesystem::path& file, const MachineModel& machine) {
  std::ofstream out(file);
  out << machine_to_json(machine).dump(1) << '\n';
  out.flush();
  if (!out) throw MachineError("cannot write " + file.string());
}

std::string collective_model_for(const std::string& function) {
  const FunctionInfo* info = find_function(function);
  if (info == nullptr) return {};
  using Op = CollectiveOperation;
  switch (info->operation) {
    case Op::barrier:
      return "Barrier";
    case Op::bcast:
    case Op::scatter:
    case Op::scatterv:
      return "Bcast";
    case Op::allreduce:
    case Op::reduce:
    case Op::reduce_scatter:
    case Op::reduce_scatter_block:
    case Op::scan:
    case Op::exscan:
      return "Allreduce";
    case Op::alltoall:
    case Op::alltoallv:
    case Op::alltoallw:
      return "Alltoall";
    case Op::allgather:
    case Op::allgatherv:
    case Op::gather:
    case Op::gatherv:
      return "Allgather";
    default:
      return {};  // neighbourhood collectives: no model yet
  }
}

double cpu_ratio(const ComputeReference& source, const ComputeReference& target) {
  return std::sqrt((target.memory_bound_s / source.memory_bound_s) *
                   (target.compute_bound_s / source.compute_bound_s));
}

double cpu_ratio_spread(const ComputeReference& source, const ComputeReference& target) {
  // Each kernel's ratio is uncertain by about the sum of its two spreads; the
  // geometric mean of the two ratios by half the sum of those.
  return 0.5 * (source.memory_bound_spread + target.memory_bound_spread +
                source.compute_bound_spread + target.compute_bound_spread);
}

double cpu_factor(const ComputeReference& source, const ComputeReference& target) {
  const double ratio = cpu_ratio(source, target);
  return std::abs(ratio - 1) <= cpu_ratio_spread(source, target) ? 1.0 : ratio;
}

namespace {

// Every curve of `m` (a MachineModel, const or not).
template <typename Machine, typename Visit>
void for_each_curve(Machine& m, Visit visit) {
  visit(m.p2p);
  if (m.p2p_inter_node) visit(*m.p2p_inter_node);
  for (auto* messages : {&m.messages, &m.messages_inter_node}) {
    if (!*messages) continue;
    visit((*messages)->send_overhead);
    visit((*messages)->receive_overhead);
    if ((*messages)->exchange) visit(*(*messages)->exchange);
    if ((*messages)->blocking_send) visit(*(*messages)->blocking_send);
  }
  for (auto& [name, model] : m.collectives) {
    for (auto& [ranks, curve] : model.by_ranks) visit(curve);
  }
}

}  // namespace

bool has_spread(const MachineModel& machine) {
  bool any = false;
  for_each_curve(machine, [&](const CostCurve& c) {
    for (const auto& p : c.points) any = any || p.spread > 0;
  });
  return any;
}

MachineModel shifted_by_spread(MachineModel machine, double direction) {
  for_each_curve(machine, [&](CostCurve& c) {
    for (auto& p : c.points) p.seconds = std::max(0.0, p.seconds * (1 + direction * p.spread));
  });
  return machine;
}

std::uint64_t largest_measured_bytes(const MachineModel& machine) {
  std::uint64_t largest = machine.p2p.points.empty() ? 0 : machine.p2p.points.back().bytes;
  if (machine.p2p_inter_node && !machine.p2p_inter_node->points.empty()) {
    largest = std::max(largest, machine.p2p_inter_node->points.back().bytes);
  }
  return largest;
}

MachineModel ideal_network() {
  MachineModel m;
  m.name = "ideal network";
  m.description = "no latency, infinite bandwidth, free collectives";
  const CostCurve free{{CostPoint{0, 0.0, 0.0}, CostPoint{std::uint64_t{1} << 40, 0.0, 0.0}}};
  m.p2p = free;
  m.eager_limit_bytes = ~std::uint64_t{0};
  for (const char* name : {"Barrier", "Bcast", "Allreduce", "Alltoall", "Allgather"}) {
    m.collectives[name].by_ranks[2] = free;
  }
  return m;
}

}  // namespace mpidle::model
