// mpidle export --otf2 on real trace runs, read back with the OTF2 library's own
// reader: every rank is a location with as many calls, sends, receives and
// collective calls as its trace holds, calls nest, time never goes back, and every
// message's send finds its receive (sender, receiver, communicator, tag, bytes)
// through the communicator groups the archive defines. otf2-print reads it too.
#include <catch2/catch.hpp>

#include <otf2/otf2.h>

#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "model/trace_file.hpp"
#include "process.hpp"

using namespace mpidle;
using namespace mpidle::test;

namespace {

struct LocationCounts {
  std::uint64_t enters = 0, leaves = 0, sends = 0, receives = 0, collectives = 0;
  int depth = 0, min_depth = 0;
  OTF2_TimeStamp last = 0;
  bool backwards = false;
};

// (sender world rank, receiver world rank, communicator, tag, bytes)
using Message =
    std::tuple<std::uint64_t, std::uint64_t, OTF2_CommRef, std::uint32_t, std::uint64_t>;

struct Archive {
  std::vector<std::uint64_t> locations;
  std::map<OTF2_GroupRef, std::vector<std::uint64_t>> groups;  // members
  std::map<OTF2_GroupRef, OTF2_GroupType> group_types;
  std::map<OTF2_CommRef, OTF2_GroupRef> comms;
  std::map<std::uint64_t, LocationCounts> counts;
  std::multiset<Message> sent, received;

  // World rank (location) of rank `r` of communicator `comm`.
  std::uint64_t world(OTF2_CommRef comm, std::uint32_t r) const {
    const auto& members = groups.at(comms.at(comm));
    OTF2_GroupRef all = 0;
    for (const auto& [g, type] : group_types) {
      if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS) all = g;
    }
    return groups.at(all).at(members.at(r));
  }
  void step(OTF2_LocationRef l, OTF2_TimeStamp t) {
    auto& c = counts[l];
    if (t < c.last) c.backwards = true;
    c.last = t;
  }
};

OTF2_CallbackCode on_location(void* a, OTF2_LocationRef self, OTF2_StringRef, OTF2_LocationType,
                              uint64_t, OTF2_LocationGroupRef) {
  static_cast<Archive*>(a)->locations.push_back(self);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_group(void* a, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type,
                           OTF2_Paradigm, OTF2_GroupFlag, uint32_t n, const uint64_t* members) {
  auto* archive = static_cast<Archive*>(a);
  archive->groups[self].assign(members, members + n);
  archive->group_types[self] = type;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_comm(void* a, OTF2_CommRef self, OTF2_StringRef, OTF2_GroupRef group,
                          OTF2_CommRef, OTF2_CommFlag) {
  static_cast<Archive*>(a)->comms[self] = group;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void* a, OTF2_AttributeList*,
                           OTF2_RegionRef) {
  auto* archive = static_cast<Archive*>(a);
  archive->step(l, t);
  auto& c = archive->counts[l];
  ++c.enters;
  ++c.depth;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_leave(OTF2_LocationRef l, OTF2_TimeStamp t, void* a, OTF2_AttributeList*,
                           OTF2_RegionRef) {
  auto* archive = static_cast<Archive*>(a);
  archive->step(l, t);
  auto& c = archive->counts[l];
  ++c.leaves;
  c.min_depth = std::min(c.min_depth, --c.depth);
  return OTF2_CALLBACK_SUCCESS;
}
void sent(Archive* a, OTF2_LocationRef l, uint32_t to, OTF2_CommRef comm, uint32_t tag,
          uint64_t bytes) {
  ++a->counts[l].sends;
  a->sent.insert({l, a->world(comm, to), comm, tag, bytes});
}
void received(Archive* a, OTF2_LocationRef l, uint32_t from, OTF2_CommRef comm, uint32_t tag,
              uint64_t bytes) {
  ++a->counts[l].receives;
  a->received.insert({a->world(comm, from), l, comm, tag, bytes});
}
OTF2_CallbackCode on_send(OTF2_LocationRef l, OTF2_TimeStamp t, void* a, OTF2_AttributeList*,
                          uint32_t to, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  static_cast<Archive*>(a)->step(l, t);
  sent(static_cast<Archive*>(a), l, to, comm, tag, bytes);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_isend(OTF2_LocationRef l, OTF2_TimeStamp t, void* a, OTF2_AttributeList*,
                           uint32_t to, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t) {
  static_cast<Archive*>(a)->step(l, t);
  sent(static_cast<Archive*>(a), l, to, comm, tag, bytes);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_recv(OTF2_LocationRef l, OTF2_TimeStamp t, void* a, OTF2_AttributeList*,
                          uint32_t from, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  static_cast<Archive*>(a)->step(l, t);
  received(static_cast<Archive*>(a), l, from, comm, tag, bytes);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_irecv(OTF2_LocationRef l, OTF2_TimeStamp t, void* a, OTF2_AttributeList*,
                           uint32_t from, OTF2_CommRef comm, uint32_t tag, uint64_t bytes,
                           uint64_t) {
  static_cast<Archive*>(a)->step(l, t);
  received(static_cast<Archive*>(a), l, from, comm, tag, bytes);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_collective(OTF2_LocationRef l, OTF2_TimeStamp t, void* a, OTF2_AttributeList*,
                                OTF2_CollectiveOp, OTF2_CommRef, uint32_t, uint64_t, uint64_t) {
  static_cast<Archive*>(a)->step(l, t);
  ++static_cast<Archive*>(a)->counts[l].collectives;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_nbc(OTF2_LocationRef l, OTF2_TimeStamp t, void* a, OTF2_AttributeList* list,
                         OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t s,
                         uint64_t r, uint64_t) {
  return on_collective(l, t, a, list, op, comm, root, s, r);
}

Archive read_archive(const std::string& anchor) {
  Archive archive;
  OTF2_Reader* reader = OTF2_Reader_Open(anchor.c_str());
  REQUIRE(reader != nullptr);
  REQUIRE(OTF2_Reader_SetSerialCollectiveCallbacks(reader) == OTF2_SUCCESS);
  OTF2_GlobalDefReader* defs = OTF2_Reader_GetGlobalDefReader(reader);
  REQUIRE(defs != nullptr);
  OTF2_GlobalDefReaderCallbacks* def_callbacks = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(def_callbacks, on_location);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(def_callbacks, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(def_callbacks, on_comm);
  OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, def_callbacks, &archive);
  uint64_t read = 0;
  REQUIRE(OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &read) == OTF2_SUCCESS);
  OTF2_GlobalDefReaderCallbacks_Delete(def_callbacks);
  OTF2_Reader_CloseGlobalDefReader(reader, defs);

  for (const auto l : archive.locations) OTF2_Reader_SelectLocation(reader, l);
  REQUIRE(OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS);
  REQUIRE(OTF2_Reader_OpenEvtFiles(reader) == OTF2_SUCCESS);
  for (const auto l : archive.locations) {
    if (OTF2_DefReader* local = OTF2_Reader_GetDefReader(reader, l)) {
      uint64_t n = 0;
      OTF2_Reader_ReadAllLocalDefinitions(reader, local, &n);
      OTF2_Reader_CloseDefReader(reader, local);
    }
    REQUIRE(OTF2_Reader_GetEvtReader(reader, l) != nullptr);
  }
  OTF2_Reader_CloseDefFiles(reader);

  OTF2_GlobalEvtReader* events = OTF2_Reader_GetGlobalEvtReader(reader);
  REQUIRE(events != nullptr);
  OTF2_GlobalEvtReaderCallbacks* cb = OTF2_GlobalEvtReaderCallbacks_New();
  OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_enter);
  OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
  OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_collective);
  OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, on_nbc);
  OTF2_Reader_RegisterGlobalEvtCallbacks(reader, events, cb, &archive);
  REQUIRE(OTF2_Reader_ReadAllGlobalEvents(reader, events, &read) == OTF2_SUCCESS);
  OTF2_GlobalEvtReaderCallbacks_Delete(cb);
  OTF2_Reader_CloseGlobalEvtReader(reader, events);
  OTF2_Reader_CloseEvtFiles(reader);
  OTF2_Reader_Close(reader);
  return archive;
}

// What the trace says each rank must show.
struct Expected {
  std::uint64_t calls = 0, sends = 0, receives = 0, collectives = 0;
};

Expected expected_of(const model::RankTrace& rank) {
  Expected e;
  std::set<std::uint32_t> irecvs;
  std::set<std::pair<std::uint32_t, std::uint32_t>> icollectives;
  for (const auto& r : rank.records) {
    if (r.extra == 0) ++e.calls;
    switch (r.role) {
      case model::TraceRole::send:
      case model::TraceRole::isend:
        ++e.sends;
        break;
      case model::TraceRole::recv:
        ++e.receives;
        break;
      case model::TraceRole::irecv:
        irecvs.insert(r.sequence);
        break;
      case model::TraceRole::completion:
        if (r.collective_kind != 0) {
          e.collectives += icollectives.erase({r.comm, r.sequence});
        } else {
          e.receives += irecvs.erase(r.sequence);
        }
        break;
      case model::TraceRole::collective:
        ++e.collectives;
        break;
      case model::TraceRole::icollective:
        icollectives.insert({r.comm, r.sequence});
        break;
      default:
        break;
    }
  }
  return e;
}

void check_export(const std::string& name, const std::string& program, int ranks,
                  const std::vector<std::string>& args) {
  INFO(name << " at " << ranks << " ranks");
  const auto dir = scratch_dir("otf2_" + name);
  const auto r = run_mpi(ranks, program, args, {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}});
  REQUIRE(r.status == 0);
  const std::string out = dir + "/otf2";
  const auto e = run({build_tree::mpidle_bin, "export", dir, "--otf2", out});
  INFO(e.err);
  REQUIRE(e.status == 0);
  CHECK_THAT(e.err, Catch::Contains("traces.otf2"));

  const auto trace = model::read_trace(std::filesystem::path(dir) / "trace.mpidle");
  const Archive archive = read_archive(out + "/traces.otf2");
  REQUIRE(archive.locations.size() == trace.ranks.size());
  std::uint64_t total_sends = 0, collectives = 0, calls = 0;
  for (const auto& rank : trace.ranks) {
    INFO("rank " << rank.rank);
    const Expected want = expected_of(rank);
    REQUIRE(archive.counts.count(rank.rank));
    const LocationCounts& got = archive.counts.at(rank.rank);
    CHECK(got.enters == want.calls);
    CHECK(got.leaves == want.calls);
    CHECK(got.min_depth == 0);  // Leave never before its Enter
    CHECK(got.depth == 0);
    CHECK_FALSE(got.backwards);
    CHECK(got.sends == want.sends);
    CHECK(got.receives == want.receives);
    CHECK(got.collectives == want.collectives);
    total_sends += got.sends;
    collectives += got.collectives;
    calls += got.enters;
  }
  CHECK(total_sends + collectives > 0);
  // Every message sent is received, with the same ends, communicator, tag and bytes.
  CHECK(archive.sent == archive.received);

  // OTF2's own printer sees the same calls.
  const auto print = run({"otf2-print", out + "/traces.otf2"});
  CHECK(print.status == 0);
  std::uint64_t printed_enters = 0;
  for (std::size_t at = print.out.find("\nENTER "); at != std::string::npos;
       at = print.out.find("\nENTER ", at + 1)) {
    ++printed_enters;
  }
  CHECK(printed_enters == calls);
}

}  // namespace

TEST_CASE("export: OTF2 archives of the examples read back with the OTF2 reader", "[mpi]") {
  check_export("loop_nest", example("loop_nest"), 2, {"--outer", "5", "--inner", "3"});
  check_export("late_sender", example("late_sender"), 3, {});
  check_export("nonblocking_halo", example("nonblocking_halo"), 3, {});
  check_export("imbalance_allreduce", example("imbalance_allreduce"), 2, {});
}

TEST_CASE("export: OTF2 maps peers on sub-communicators back to their world ranks", "[mpi]") {
  check_export("comm_split_peers", program("comm_split_peers"), 4, {});
  check_export("subcomm_collectives", program("subcomm_collectives"), 3, {});
  check_export("completion_calls", program("completion_calls"), 2, {});
}

TEST_CASE("export: --otf2 refuses to overwrite an archive, one line, exit 2", "[mpi]") {
  const auto dir = scratch_dir("otf2_twice");
  REQUIRE(run_mpi(2, example("loop_nest"), {"--outer", "2", "--inner", "2"},
                  {{"MPIDLE_OUTPUT", dir}, {"MPIDLE_TRACE", "1"}})
              .status == 0);
  REQUIRE(run({build_tree::mpidle_bin, "export", dir, "--otf2", dir + "/otf2"}).status == 0);
  const auto again = run({build_tree::mpidle_bin, "export", dir, "--otf2", dir + "/otf2"});
  CHECK(again.status == 2);
  CHECK_THAT(again.err, Catch::Contains("already holds an OTF2 archive"));
  CHECK(std::count(again.err.begin(), again.err.end(), '\n') == 1);
}
