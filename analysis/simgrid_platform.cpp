#include "simgrid_platform.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <unordered_set>

#include <simgrid/kernel/resource/NetworkModelIntf.hpp>

#include "simgrid_prediction.hpp"

namespace mpidle::analysis {
namespace {

namespace sg4 = simgrid::s4u;

// A full route table holds P² routes.
constexpr std::size_t kMaxRanks = 512;

// What the factor callbacks need, alive while the engine runs.
struct Factors {
  const model::MachineModel* machine = nullptr;
  std::vector<std::uint32_t> node_of;
  std::unordered_map<const sg4::Host*, std::uint32_t> position;

  // Whether src and dst are on two nodes; nothing for a rank to itself.
  std::optional<bool> apart(const sg4::Host* src, const sg4::Host* dst) const {
    const auto a = position.find(src), b = position.find(dst);
    if (a == position.end() || b == position.end() || a->second == b->second) return {};
    return node_of[a->second] != node_of[b->second];
  }
  const model::CostCurve& curve(const sg4::Host* src, const sg4::Host* dst) const {
    const auto far = apart(src, dst);
    return model::one_way_curve(*machine, far && *far);
  }
};

double route_latency(const std::vector<sg4::Link*>& links) {
  double latency = 0;
  for (const auto* l : links) latency += l->get_latency();
  return latency;
}

double route_bandwidth(const std::vector<sg4::Link*>& links) {
  double bandwidth = 0;
  for (const auto* l : links) {
    bandwidth = bandwidth == 0 ? l->get_bandwidth() : std::min(bandwidth, l->get_bandwidth());
  }
  return bandwidth;
}

struct LinkCurve {
  double latency_s = 1e-9;  // SimGrid needs a route with some latency to scale
  double bandwidth = 1e12;  // bytes per second
};
LinkCurve nominal(const model::CostCurve& c) {
  LinkCurve l;
  l.latency_s = std::max(c.latency_s(), 1e-9);
  const double b = c.bandwidth_bytes_per_s();
  if (b > 0) l.bandwidth = b;
  return l;
}

// A rank's port or a node's card: one medium for both directions (shared), or a
// link each way (split-duplex), whose receiving side two senders share, or not
// where the probe found that each sender's own rate decides (FATPIPE: every flow
// gets the whole rate).
struct Card {
  sg4::Link* medium = nullptr;
  sg4::Link* out = nullptr;
  sg4::Link* in = nullptr;
};

Card make_card(sg4::NetZone* zone, const std::string& name, const LinkCurve& c,
               model::LinkSharing sharing, bool receive_shared, double latency_share) {
  Card card;
  if (sharing == model::LinkSharing::shared) {
    card.medium = zone->create_link(name, c.bandwidth)
                      ->set_latency(c.latency_s * latency_share)
                      ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
                      ->seal();
    return card;
  }
  card.out = zone->create_link(name + "-out", c.bandwidth)
                 ->set_latency(c.latency_s * latency_share)
                 ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
                 ->seal();
  card.in = zone->create_link(name + "-in", c.bandwidth)
                ->set_latency(c.latency_s * latency_share)
                ->set_sharing_policy(receive_shared ? sg4::Link::SharingPolicy::SHARED
                                                    : sg4::Link::SharingPolicy::FATPIPE)
                ->seal();
  return card;
}

// The links from a card's owner to another's: one medium, or out then in.
void cross(std::vector<sg4::LinkInRoute>& route, const Card& from, const Card& to) {
  if (from.medium) {
    route.emplace_back(from.medium);
    if (to.medium != from.medium) route.emplace_back(to.medium);
    return;
  }
  route.emplace_back(from.out);
  route.emplace_back(to.in);
}

}  // namespace

Platform build_platform(const model::MachineModel& machine, const std::vector<std::string>& hosts,
                        std::size_t ranks, double cpu_scale) {
  if (ranks > kMaxRanks) {
    throw EngineError("the SimGrid platform holds a route per pair of ranks, at most " +
                      std::to_string(kMaxRanks) + " ranks");
  }
  Platform p;
  std::map<std::string, std::uint32_t> nodes;
  for (std::size_t r = 0; r < ranks; ++r) {
    const std::string host = r < hosts.size() ? hosts[r] : std::string();
    p.node_of.push_back(
        nodes.try_emplace(host, static_cast<std::uint32_t>(nodes.size())).first->second);
  }
  const bool several_nodes = nodes.size() > 1;
  const model::CostCurve& inter_curve = model::one_way_curve(machine, several_nodes);
  const model::MessageCosts* intra_costs = model::message_costs(machine, false);
  const model::MessageCosts* inter_costs = model::message_costs(machine, true);
  p.intra = model::link_sharing(intra_costs, machine.p2p);
  p.inter = model::link_sharing(inter_costs, inter_curve);
  // Whether two senders into one rank (node) share its receiving side.
  const bool intra_receive_shared = model::receive_side_shared(intra_costs);
  const bool inter_receive_shared = model::receive_side_shared(inter_costs);

  sg4::NetZone* zone = sg4::create_full_zone("machine");
  const double speed = kFlopsPerTracedSecond / cpu_scale;
  for (std::size_t r = 0; r < ranks; ++r) {
    sg4::Host* h = zone->create_host("rank-" + std::to_string(r), speed)->seal();
    p.position[h] = static_cast<std::uint32_t>(r);
    p.hosts.push_back(h);
  }
  const LinkCurve intra = nominal(machine.p2p), inter = nominal(inter_curve);
  // Within a node: one medium for all its ranks (shared), or a port per rank
  // (split-duplex). Between nodes: a network card per node.
  std::vector<Card> medium(nodes.size()), card(nodes.size()), port(ranks);
  std::vector<sg4::Link*> loop(ranks, nullptr);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (p.intra == model::LinkSharing::shared) {
      medium[n] = make_card(zone, "node-" + std::to_string(n) + "-medium", intra, p.intra,
                            intra_receive_shared, 1.0);
    }
    if (several_nodes) {
      card[n] = make_card(zone, "node-" + std::to_string(n) + "-card", inter, p.inter,
                          inter_receive_shared, 0.5);
    }
  }
  for (std::size_t r = 0; r < ranks; ++r) {
    if (p.intra != model::LinkSharing::shared) {
      port[r] = make_card(zone, "rank-" + std::to_string(r) + "-port", intra, p.intra,
                          intra_receive_shared, 0.5);
    }
    loop[r] = zone->create_link("rank-" + std::to_string(r) + "-loop", intra.bandwidth)
                  ->set_latency(intra.latency_s)
                  ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                  ->seal();
  }
  for (std::size_t a = 0; a < ranks; ++a) {
    for (std::size_t b = 0; b < ranks; ++b) {
      std::vector<sg4::LinkInRoute> route;
      if (a == b) {
        route.emplace_back(loop[a]);
      } else if (p.node_of[a] == p.node_of[b]) {
        if (p.intra == model::LinkSharing::shared) {
          cross(route, medium[p.node_of[a]], medium[p.node_of[a]]);
        } else {
          cross(route, port[a], port[b]);
        }
      } else {
        cross(route, card[p.node_of[a]], card[p.node_of[b]]);
      }
      zone->add_route(p.hosts[a]->get_netpoint(), p.hosts[b]->get_netpoint(), nullptr, nullptr,
                      route, false);
    }
  }
  zone->seal();

  // SMPI's piecewise model, from the curves themselves: a message of s bytes takes
  // the fixed part of its segment as latency and the rest at its own bandwidth.
  auto factors = std::make_shared<Factors>();
  factors->machine = &machine;
  factors->node_of = p.node_of;
  factors->position = p.position;
  auto* network = zone->get_network_model();
  network->set_lat_factor_cb([factors](double size, const sg4::Host* src, const sg4::Host* dst,
                                       const std::vector<sg4::Link*>& links,
                                       const std::unordered_set<sg4::NetZone*>&) {
    const double latency = route_latency(links);
    const auto bytes = static_cast<std::uint64_t>(size);
    return latency > 0 ? factors->curve(src, dst).fixed_part(bytes) / latency : 1.0;
  });
  network->set_bw_factor_cb([factors](double size, const sg4::Host* src, const sg4::Host* dst,
                                      const std::vector<sg4::Link*>& links,
                                      const std::unordered_set<sg4::NetZone*>&) {
    const double bandwidth = route_bandwidth(links);
    const auto bytes = static_cast<std::uint64_t>(size);
    const auto& c = factors->curve(src, dst);
    const double moving = c.at(bytes) - c.fixed_part(bytes);
    // An empty message goes as one byte (simgrid_replay.cpp), in no time beyond latency.
    if (bytes <= 1 || moving <= 0 || bandwidth <= 0) return 1e6;
    return size / moving / bandwidth;
  });
  return p;
}

}  // namespace mpidle::analysis
