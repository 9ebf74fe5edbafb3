// Collective instances over their members' binomial tree, in the forward replay,
// the clock-condition check and the backward replay. Each member's node sums its
// subtree and passes the sum to its parent; the top's total comes down again,
// and so, as soon as they are known, do a 1-to-N root's time and a scan's prefix
// (forward and check), so that no member waits for more than the sequential
// replay makes it wait for (trace_sync's add_collective and latest_allowed; the
// analysis' collective waits). A node lives at its member's process: per instance
// a process handles its nodes' children and parents only, and a member's answer
// is at most 2⌈log2 N⌉ items behind the times it depends on.

#include "parallel_sync_state.hpp"

namespace mpidle::sync {

namespace {

// Whether a subtree's `value` is its flagged member's time rather than the latest.
bool flagged_value(Stage s, CollectiveKind k) {
  return s == Stage::backward ? k == CollectiveKind::n_to_one : k == CollectiveKind::one_to_n;
}

std::uint8_t hop(std::uint8_t hops) {
  return static_cast<std::uint8_t>(std::min(255, hops + 1));
}

// A member's own item as a subtree of one.
TreeSum sum_of_member(Stage s, const ReplayItem& m) {
  TreeSum t;
  const auto kind = static_cast<CollectiveKind>(m.kind);
  const bool is_root = m.source == m.root;
  const Triple v = {m.value[0], m.value[1], m.value[2]};
  if (s != Stage::backward) {
    t.complete = m.has_exit && m.blocking;
    if (kind == CollectiveKind::one_to_n) {
      if (is_root) {
        t.value = v;
        t.flag = true;
      }
    } else if (kind == CollectiveKind::n_to_one) {
      if (!is_root) {
        t.value = v;
        t.aux = v[2];
      }
    } else {
      t.value = v;
    }
    return t;
  }
  t.complete = m.wants;  // entered: a scan's bounds need every member's
  const std::int64_t exit = m.has_exit ? m.value[0] : kUnbounded;
  if (kind == CollectiveKind::one_to_n) {
    if (!is_root && m.has_exit) {
      t.aux = exit;
      t.flag = true;
    }
  } else if (kind == CollectiveKind::n_to_one) {
    if (is_root && m.has_exit) {
      t.value = v;
      t.flag = true;
    }
  } else {
    t.aux = exit;
  }
  return t;
}

// `link`: 1 when `from` came from a child (one item further).
void add_to(Stage s, CollectiveKind k, TreeSum& into, const TreeSum& from, int link) {
  if (!flagged_value(s, k)) {
    into.value = max_of(into.value, from.value);
  } else if (from.flag) {
    into.value = from.value;
  }
  into.aux = std::min(into.aux, from.aux);
  into.flag = into.flag || from.flag;
  into.complete = into.complete && from.complete;
  into.hops = std::max(into.hops, link ? hop(from.hops) : from.hops);
}

}  // namespace

void ParallelSync::Impl::member_count(const ReplayItem& item) {
  auto* r = local(item.destination);
  if (!r) return;
  CommTree& t = r->trees[item.comm];
  t.index = item.order;
  t.size = static_cast<std::int32_t>(item.number);
  t.parent = item.root;
  t.top = item.wants != 0;
  if (t.parent < 0) return;
  ReplayItem child;
  child.type = ReplayItemType::tree_child;
  child.comm = item.comm;
  child.source = r->world;
  child.destination = t.parent;
  child.order = t.index;
  post(dir.process_of(t.parent), child);
}

TreeNode* ParallelSync::Impl::tree_node(Stage stage, RankState& r, std::uint32_t comm,
                                        std::uint64_t instance) {
  const CommTree& t = r.trees[comm];  // none: a member of one, as the sequential replay has it
  auto [it, fresh] =
      trees[static_cast<std::size_t>(stage)].try_emplace(TreeKey{r.world, comm, instance});
  TreeNode& n = it->second;
  if (fresh) {
    n.child_sum.assign(t.children.size(), TreeSum{});
    n.child_in.assign(t.children.size(), 0);
    n.context_sent.assign(t.children.size(), 0);
    n.context_known = t.top;  // nothing before the top's subtree, nor after it
  }
  return &n;
}

void ParallelSync::Impl::tree_arrive(Stage stage, RankState& r, std::uint32_t item_index,
                                     const ReplayItem& item) {
  const bool outermost = !draining;
  draining = true;
  TreeNode& n = *tree_node(stage, r, item.comm, item.number);
  n.own = true;
  n.mine = item;
  n.item = item_index;
  n.kind = item.kind;
  n.root = item.root;
  const auto kind = static_cast<CollectiveKind>(item.kind);
  add_to(stage, kind, n.sub, sum_of_member(stage, item), 0);
  if (stage != Stage::backward && kind == CollectiveKind::one_to_n && item.source == item.root) {
    n.root_known = true;
    n.root_value = {item.value[0], item.value[1], item.value[2]};
  }
  advance(stage, r, TreeKey{r.world, item.comm, item.number}, n);
  if (outermost) {
    draining = false;
    drain();
  }
}

void ParallelSync::Impl::tree_item(const ReplayItem& item) {
  auto* r = local(item.destination);
  if (!r) return;
  const auto stage = static_cast<Stage>(item.stage);
  TreeNode& n = *tree_node(stage, *r, item.comm, item.number);
  n.kind = item.kind;
  n.root = item.root;
  const Triple value = {item.value[0], item.value[1], item.value[2]};
  switch (item.type) {
    case ReplayItemType::tree_up: {
      const auto& children = r->trees[item.comm].children;
      for (std::size_t k = 0; k < children.size(); ++k) {
        if (children[k].first != item.order || n.child_in[k]) continue;
        const TreeSum got{value, item.aux, item.wants != 0, item.has_exit != 0, item.hops};
        n.child_in[k] = 1;
        n.child_sum[k] = got;
        add_to(stage, static_cast<CollectiveKind>(item.kind), n.sub, got, 1);
        ++n.reported;
      }
      break;
    }
    case ReplayItemType::tree_root_up:
    case ReplayItemType::tree_root_down:
      if (item.type == ReplayItemType::tree_root_down) n.root_from_above = true;
      if (!n.root_known) {
        n.root_known = true;
        n.root_value = value;
        n.root_hops = item.hops;
      }
      break;
    case ReplayItemType::tree_total:
      n.total_known = true;
      n.total = {value, item.aux, item.wants != 0, item.has_exit != 0, item.hops};
      break;
    case ReplayItemType::tree_context:
      n.context_known = true;
      n.context = value;
      n.context_min = item.aux;
      n.context_hops = item.hops;
      break;
    default:
      return;
  }
  advance(stage, *r, TreeKey{r->world, item.comm, item.number}, n);
}

void ParallelSync::Impl::advance(Stage stage, RankState& r, const TreeKey& key, TreeNode& n) {
  const CommTree& t = r.trees[key.comm];
  const auto kind = static_cast<CollectiveKind>(n.kind);
  const bool top = t.top;
  const std::size_t children = t.children.size();
  // An item to the parent or a child, with what it says in a TreeSum's fields.
  auto send = [&](ReplayItemType type, std::int32_t to, const TreeSum& what) {
    ReplayItem item;
    item.type = type;
    item.stage = static_cast<std::uint8_t>(stage);
    item.comm = key.comm;
    item.number = key.instance;
    item.source = key.world;
    item.destination = to;
    item.order = t.index;
    item.kind = n.kind;
    item.root = n.root;
    std::copy(what.value.begin(), what.value.end(), item.value);
    item.aux = what.aux;
    item.wants = what.flag ? 1 : 0;
    item.has_exit = what.complete ? 1 : 0;
    item.hops = what.hops;
    post(dir.process_of(to), item);
  };
  auto child = [&](std::size_t k) { return t.children[k].second; };
  // A 1-to-N root's time: up to the top, then down to every member.
  if (n.root_known && stage != Stage::backward) {
    if (!top && !n.root_from_above && !n.root_up_sent) {
      send(ReplayItemType::tree_root_up, t.parent, {n.root_value, 0, true, true, hop(n.root_hops)});
      n.root_up_sent = true;
    }
    if ((top || n.root_from_above) && !n.root_down_sent) {
      for (std::size_t k = 0; k < children; ++k) {
        send(ReplayItemType::tree_root_down, child(k),
             {n.root_value, 0, true, true, hop(n.root_hops)});
      }
      n.root_down_sent = true;
    }
  }
  // The subtree, once whole, to the parent; at the top it is the total.
  if (n.own && n.reported == children && !n.up_sent) {
    n.up_sent = true;
    if (top) {
      n.total = n.sub;
      n.total_known = true;
      if (stage == Stage::check && t.size >= 2 && n.total.complete) ++stats.complete_collectives;
    } else {
      send(ReplayItemType::tree_up, t.parent, n.sub);
    }
  }
  if (n.total_known && !n.total_sent) {
    for (std::size_t k = 0; k < children; ++k) {
      TreeSum down = n.total;
      down.hops = hop(n.total.hops);
      send(ReplayItemType::tree_total, child(k), down);
    }
    n.total_sent = true;
  }
  // Scans: each child's context, as soon as what comes before it (after it, in the
  // backward replay) is known.
  if (model::is_scan(kind) && n.context_known) {
    for (std::size_t k = 0; k < children; ++k) {
      if (n.context_sent[k]) continue;
      Triple before = n.context;
      std::int64_t after = n.context_min;
      std::uint8_t hops = n.context_hops;
      bool ready = true;
      if (stage != Stage::backward) {
        ready = n.own;
        if (ready) before = max_of(before, {n.mine.value[0], n.mine.value[1], n.mine.value[2]});
        for (std::size_t j = 0; j < k && ready; ++j) {
          ready = n.child_in[j];
          before = max_of(before, n.child_sum[j].value);
          hops = std::max(hops, hop(n.child_sum[j].hops));
        }
        if (!ready) break;  // the later children need it too
      } else {
        for (std::size_t j = k + 1; j < children && ready; ++j) {
          ready = n.child_in[j];
          after = std::min(after, n.child_sum[j].aux);
          hops = std::max(hops, hop(n.child_sum[j].hops));
        }
        if (!ready) continue;
      }
      send(ReplayItemType::tree_context, child(k), {before, after, false, true, hop(hops)});
      n.context_sent[k] = 1;
    }
  }
  deliver(stage, r, n);
  const bool contexts_done =
      !model::is_scan(kind) ||
      (n.context_known &&
       std::all_of(n.context_sent.begin(), n.context_sent.end(), [](auto s) { return s != 0; }));
  const bool root_done = stage == Stage::backward || kind != CollectiveKind::one_to_n ||
                         n.root_down_sent || (n.total_known && !n.total.flag);
  if (n.own && n.total_sent && contexts_done && root_done) {
    trees[static_cast<std::size_t>(stage)].erase(key);
  }
}

void ParallelSync::Impl::deliver(Stage stage, RankState& r, TreeNode& n) {
  if (!n.own) return;
  const ReplayItem& m = n.mine;
  const CommTree& t = r.trees[m.comm];
  const auto kind = static_cast<CollectiveKind>(m.kind);
  const bool is_root = m.source == m.root;
  const std::uint32_t i = n.item;
  if (stage == Stage::backward) {
    if (n.replied || !m.wants || t.size < 2 || !n.total_known) return;
    const std::int64_t latency = p.min_latency_ns;
    std::int64_t bound = kUnbounded;
    switch (kind) {
      case CollectiveKind::n_to_n:
        bound = n.total.aux - latency;
        break;
      case CollectiveKind::one_to_n:
        if (is_root && n.total.flag) bound = n.total.aux - latency;
        break;
      case CollectiveKind::n_to_one:
        if (!is_root && n.total.flag) bound = n.total.value[0] - latency;
        break;
      case CollectiveKind::scan:
      case CollectiveKind::exscan: {
        if (!n.total.complete) break;
        if (!n.context_known || n.reported < t.children.size()) return;
        std::int64_t after = n.context_min;  // the earliest exit of the orders after this one
        for (const auto& c : n.child_sum) after = std::min(after, c.aux);
        if (kind == CollectiveKind::scan && m.has_exit) after = std::min(after, m.value[0]);
        bound = after - latency;
        break;
      }
      case CollectiveKind::none:
        break;
    }
    n.replied = true;
    if (bound != kUnbounded) {
      r.lower_bound_of(2 * r.items.collectives[i].member.enter.record, bound);
    }
    return;
  }
  if (!n.replied && m.wants) {
    bool ready = false;
    Triple value = kNoCause;
    std::uint8_t hops = 0;
    if (t.size < 2 || kind == CollectiveKind::none) {
      ready = true;
    } else if (kind == CollectiveKind::n_to_n || kind == CollectiveKind::n_to_one) {
      ready = n.total_known;
      value = n.total.value;
      hops = n.total.hops;
    } else if (kind == CollectiveKind::one_to_n) {
      ready = n.root_known || (n.total_known && !n.total.flag);
      value = n.root_known ? n.root_value : kNoCause;
      hops = n.root_known ? n.root_hops : n.total.hops;
    } else {
      ready = n.context_known;
      value = kind == CollectiveKind::scan ? max_of(n.context, {m.value[0], m.value[1], m.value[2]})
                                           : n.context;
      hops = n.context_hops;
    }
    if (ready) {
      n.replied = true;
      stats.collective_rounds = std::max<std::uint64_t>(stats.collective_rounds, hops);
      if (stage == Stage::forward) {
        r.reply[i] = value[0];
        r.replied[i] = 1;
      } else {
        r.check_reply[i] = value;
        r.check_replied[i] = 1;
      }
    }
  }
  // Until when the member waited, as analysis::analyze_wait_states measures it
  // (complete, blocking instances only).
  if (stage != Stage::check || n.waited || !n.total_known) return;
  std::int64_t until = kNever;
  if (t.size >= 2 && n.total.complete) {
    switch (kind) {
      case CollectiveKind::n_to_n:
        until = n.total.value[2];
        break;
      case CollectiveKind::one_to_n:
        if (!is_root && n.total.flag) until = n.total.value[2];
        break;
      case CollectiveKind::n_to_one:
        if (is_root) until = n.total.aux;
        break;
      case CollectiveKind::scan:
      case CollectiveKind::exscan:
        if (!n.context_known) return;
        if (!t.top) until = n.context[2];
        break;
      case CollectiveKind::none:
        break;
    }
  }
  n.waited = true;
  if (until != kNever) r.until[i] = until;
  r.complete[i] = t.size >= 2 && n.total.complete;
}

}  // namespace mpidle::sync
