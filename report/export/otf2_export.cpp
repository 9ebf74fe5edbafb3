#include "report/export/otf2_export.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "model/function_catalog.hpp"
#include "model/json_fields.hpp"
#include "report/export/trace_times.hpp"

#ifdef MPIDLE_HAVE_OTF2
#include <otf2/otf2.h>
#endif

namespace mpidle::report {

#ifndef MPIDLE_HAVE_OTF2

bool otf2_available() {
  return false;
}

Otf2ExportStats write_otf2_archive(const model::Trace&, const std::filesystem::path&) {
  throw std::runtime_error(
      "this mpidle was built without the OTF2 library (Debian: apt-get install "
      "libotf2-trace-dev, then rebuild)");
}

#else

namespace {

namespace fs = std::filesystem;
using model::CollectiveKind;
using model::CollectiveOperation;
using model::TraceRecord;
using model::TraceRole;

void check(OTF2_ErrorCode code, const char* what) {
  if (code != OTF2_SUCCESS) {
    throw std::runtime_error(std::string("OTF2: ") + what + ": " + OTF2_Error_GetName(code) + " (" +
                             OTF2_Error_GetDescription(code) + ")");
  }
}

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
  return OTF2_FLUSH;
}
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) {
  return 0;
}
OTF2_FlushCallbacks kFlushCallbacks = {pre_flush, post_flush};

// OTF2 knows the classic collectives; neighbourhood collectives have no operation
// there and are written as calls only.
bool otf2_operation(CollectiveOperation op, OTF2_CollectiveOp& out) {
  using Op = CollectiveOperation;
  switch (op) {
    case Op::barrier:
      out = OTF2_COLLECTIVE_OP_BARRIER;
      return true;
    case Op::bcast:
      out = OTF2_COLLECTIVE_OP_BCAST;
      return true;
    case Op::gather:
      out = OTF2_COLLECTIVE_OP_GATHER;
      return true;
    case Op::gatherv:
      out = OTF2_COLLECTIVE_OP_GATHERV;
      return true;
    case Op::scatter:
      out = OTF2_COLLECTIVE_OP_SCATTER;
      return true;
    case Op::scatterv:
      out = OTF2_COLLECTIVE_OP_SCATTERV;
      return true;
    case Op::allgather:
      out = OTF2_COLLECTIVE_OP_ALLGATHER;
      return true;
    case Op::allgatherv:
      out = OTF2_COLLECTIVE_OP_ALLGATHERV;
      return true;
    case Op::alltoall:
      out = OTF2_COLLECTIVE_OP_ALLTOALL;
      return true;
    case Op::alltoallv:
      out = OTF2_COLLECTIVE_OP_ALLTOALLV;
      return true;
    case Op::alltoallw:
      out = OTF2_COLLECTIVE_OP_ALLTOALLW;
      return true;
    case Op::allreduce:
      out = OTF2_COLLECTIVE_OP_ALLREDUCE;
      return true;
    case Op::reduce:
      out = OTF2_COLLECTIVE_OP_REDUCE;
      return true;
    case Op::reduce_scatter:
      out = OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
      return true;
    case Op::reduce_scatter_block:
      out = OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
      return true;
    case Op::scan:
      out = OTF2_COLLECTIVE_OP_SCAN;
      return true;
    case Op::exscan:
      out = OTF2_COLLECTIVE_OP_EXSCAN;
      return true;
    default:
      return false;
  }
}

OTF2_RegionRole region_role(const model::FunctionInfo* f) {
  if (f == nullptr) return OTF2_REGION_ROLE_FUNCTION;
  switch (f->group) {
    case model::FunctionGroup::point_to_point:
      return OTF2_REGION_ROLE_POINT2POINT;
    case model::FunctionGroup::io:
      return OTF2_REGION_ROLE_FILE_IO;
    case model::FunctionGroup::rma:
      return OTF2_REGION_ROLE_RMA;
    case model::FunctionGroup::collective:
      if (f->operation == CollectiveOperation::barrier) return OTF2_REGION_ROLE_BARRIER;
      switch (f->dependency) {
        case CollectiveKind::one_to_n:
          return OTF2_REGION_ROLE_COLL_ONE2ALL;
        case CollectiveKind::n_to_one:
          return OTF2_REGION_ROLE_COLL_ALL2ONE;
        case CollectiveKind::n_to_n:
          return OTF2_REGION_ROLE_COLL_ALL2ALL;
        default:
          return OTF2_REGION_ROLE_COLL_OTHER;
      }
    default:
      return OTF2_REGION_ROLE_FUNCTION;
  }
}

class StringTable {
 public:
  OTF2_StringRef ref(const std::string& s) {
    auto [it, added] = m_index.try_emplace(s, static_cast<OTF2_StringRef>(m_strings.size()));
    if (added) m_strings.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return m_strings; }

 private:
  std::unordered_map<std::string, OTF2_StringRef> m_index;
  std::vector<std::string> m_strings;
};

// A communicator as OTF2 defines it: its members (positions of ranks in the trace)
// in ascending world rank. Ranks in it are positions in that list, so that readers
// map every peer and root back to the right world rank.
struct Communicator {
  OTF2_CommRef ref = 0;
  std::vector<std::uint64_t> members;
  std::unordered_map<std::int32_t, std::uint32_t> rank_of_world;
};

enum class EventKind : std::uint8_t {
  enter,
  leave,
  send,
  isend,
  isend_complete,
  irecv_request,
  recv,
  irecv,
  request_cancelled,
  collective_begin,
  collective_end,
  nbc_request,
  nbc_complete,
};

struct Event {
  std::int64_t time;
  EventKind kind;
  std::uint32_t record;   // the record it is about (for a completed collective: its start)
  std::uint64_t request;  // request id (non-blocking events)
};

class Exporter {
 public:
  explicit Exporter(const model::Trace& trace)
      : m_trace(trace), m_times(trace), m_t0(m_times.first()) {
    m_stats.synchronized = m_times.synchronized();
    for (std::size_t i = 0; i < trace.ranks.size(); ++i)
      m_position_of_rank[trace.ranks[i].rank] = i;
    m_empty = m_strings.ref("");
    for (const auto& f : trace.functions) m_function_info.push_back(model::find_function(f));
    for (const auto& c : trace.callsites) {
      m_callsite_strings.push_back(m_strings.ref(model::innermost_location(c.frames)));
    }
    find_communicators();
  }

  Otf2ExportStats write(const fs::path& directory) {
    OTF2_Archive* archive =
        OTF2_Archive_Open(directory.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                          4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive == nullptr) throw std::runtime_error("OTF2: cannot create " + directory.string());
    try {
      check(OTF2_Archive_SetFlushCallbacks(archive, &kFlushCallbacks, nullptr), "flush callbacks");
      check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "collective callbacks");
      check(OTF2_Archive_SetCreator(archive, "mpidle export"), "creator");
      check(OTF2_Archive_OpenEvtFiles(archive), "opening event files");
      m_event_counts.assign(m_trace.ranks.size(), 0);
      for (std::size_t i = 0; i < m_trace.ranks.size(); ++i) write_location(archive, i);
      check(OTF2_Archive_CloseEvtFiles(archive), "closing event files");
      check(OTF2_Archive_OpenDefFiles(archive), "opening definition files");
      for (const auto& r : m_trace.ranks) {
        OTF2_DefWriter* defs = OTF2_Archive_GetDefWriter(archive, location_of(r.rank));
        if (defs == nullptr) throw std::runtime_error("OTF2: no definition writer");
        check(OTF2_Archive_CloseDefWriter(archive, defs), "closing a definition writer");
      }
      check(OTF2_Archive_CloseDefFiles(archive), "closing definition files");
      write_global_definitions(archive);
    } catch (...) {
      OTF2_Archive_Close(archive);
      throw;
    }
    check(OTF2_Archive_Close(archive), "closing the archive");
    return m_stats;
  }

 private:
  std::int64_t time(std::size_t i, std::size_t k, bool exit) const {
    return m_times.time(i, k, exit);
  }
  OTF2_TimeStamp stamp(std::int64_t t) const {
    return t <= m_t0 ? 0 : static_cast<OTF2_TimeStamp>(t) - static_cast<OTF2_TimeStamp>(m_t0);
  }
  static OTF2_LocationRef location_of(std::int32_t rank) {
    return static_cast<OTF2_LocationRef>(rank);
  }

  static bool names_communicator(const TraceRecord& r) {
    return r.role != TraceRole::other && r.role != TraceRole::cancelled;
  }

  void find_communicators() {
    std::map<std::uint32_t, std::set<std::int32_t> > members;
    for (const auto& rank : m_trace.ranks) {
      for (const auto& r : rank.records) {
        if (!names_communicator(r)) continue;
        auto& set = members[r.comm];
        set.insert(rank.rank);
        const bool point_to_point = r.role != TraceRole::collective &&
                                    r.role != TraceRole::icollective && r.collective_kind == 0;
        if (point_to_point && r.peer >= 0 && m_position_of_rank.count(r.peer)) set.insert(r.peer);
      }
    }
    for (const auto& [id, ranks] : members) {
      Communicator c;
      c.ref = static_cast<OTF2_CommRef>(m_comms.size());
      for (const std::int32_t rank : ranks) {
        c.rank_of_world[rank] = static_cast<std::uint32_t>(c.members.size());
        c.members.push_back(m_position_of_rank.at(rank));
      }
      m_comm_ids.push_back(id);
      m_comms.emplace(id, std::move(c));
    }
    m_stats.communicators = m_comms.size();
  }

  // The rank of world rank `rank` in communicator `comm`, as the archive defines it.
  std::uint32_t comm_rank(std::uint32_t comm, std::int32_t rank) const {
    const auto& c = m_comms.at(comm);
    const auto it = c.rank_of_world.find(rank);
    return it == c.rank_of_world.end() ? OTF2_UNDEFINED_UINT32 : it->second;
  }

  bool collective_operation(const TraceRecord& r, OTF2_CollectiveOp& op) const {
    const model::FunctionInfo* f = m_function_info.at(r.function);
    return f != nullptr && otf2_operation(f->operation, op);
  }

  std::uint32_t collective_root(const TraceRecord& r) const {
    const auto kind = static_cast<CollectiveKind>(r.collective_kind);
    // Scans carry the caller's own rank in `root`; they have no root.
    if (r.root < 0 || model::is_scan(kind)) {
      return OTF2_UNDEFINED_UINT32;
    }
    return comm_rank(r.comm, r.root);
  }

  // A Sendrecv's record counts the bytes of both halves (as its profile entry); its
  // send half follows as a further record with the bytes sent.
  static std::uint64_t received_bytes(const model::LargeArray<TraceRecord>& records,
                                      std::size_t k) {
    const TraceRecord& r = records[k];
    if (k + 1 < records.size() && records[k + 1].extra != 0 &&
        records[k + 1].role == TraceRole::send) {
      return r.bytes >= records[k + 1].bytes ? r.bytes - records[k + 1].bytes : 0;
    }
    return r.bytes;
  }

  // A rank's events in the order OTF2 wants them: by time, and at equal times as the
  // calls happened (Enter before the send at the same instant, the receive before Leave).
  std::vector<Event> events_of(std::size_t i) {
    const auto& records = m_trace.ranks[i].records;
    std::vector<Event> events;
    events.reserve(records.size() * 2 + 16);
    bool open = false;
    std::int64_t open_exit = 0;
    std::uint32_t open_record = 0;
    std::set<std::uint32_t> isends, irecvs;
    // (communicator, instance) → (request id, the record that started it)
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint64_t, std::uint32_t> >
        icollectives;
    std::uint64_t next_request = 1;
    for (std::uint32_t k = 0; k < records.size(); ++k) {
      const TraceRecord& r = records[k];
      const std::int64_t enter = time(i, k, false), exit = time(i, k, true);
      if (r.extra == 0) {
        if (open) events.push_back({open_exit, EventKind::leave, open_record, 0});
        events.push_back({enter, EventKind::enter, k, 0});
        open = true;
        open_exit = exit;
        open_record = k;
      }
      OTF2_CollectiveOp op{};
      switch (r.role) {
        case TraceRole::send:
          events.push_back({enter, EventKind::send, k, 0});
          break;
        case TraceRole::isend:
          events.push_back({enter, EventKind::isend, k, r.sequence});
          isends.insert(r.sequence);
          break;
        case TraceRole::recv:
          events.push_back({exit, EventKind::recv, k, 0});
          break;
        case TraceRole::irecv:
          events.push_back({enter, EventKind::irecv_request, k, r.sequence});
          irecvs.insert(r.sequence);
          break;
        case TraceRole::completion:
          if (r.collective_kind != 0) {
            const auto it = icollectives.find({r.comm, r.sequence});
            if (it != icollectives.end()) {
              // About the start's record: its operation, root and bytes.
              events.push_back(
                  {exit, EventKind::nbc_complete, it->second.second, it->second.first});
              icollectives.erase(it);
            }
          } else if (irecvs.erase(r.sequence)) {
            events.push_back({exit, EventKind::irecv, k, r.sequence});
          } else if (isends.erase(r.sequence)) {
            events.push_back({exit, EventKind::isend_complete, k, r.sequence});
          }
          break;
        case TraceRole::cancelled:
          if (irecvs.erase(r.sequence) || isends.erase(r.sequence)) {
            events.push_back({exit, EventKind::request_cancelled, k, r.sequence});
          }
          break;
        case TraceRole::collective:
          if (collective_operation(r, op)) {
            events.push_back({enter, EventKind::collective_begin, k, 0});
            events.push_back({exit, EventKind::collective_end, k, 0});
          }
          break;
        case TraceRole::icollective:
          if (collective_operation(r, op)) {
            // Request ids of collectives stay clear of the point-to-point serials (32 bit).
            const std::uint64_t id = (std::uint64_t{1} << 32) + next_request++;
            icollectives[{r.comm, r.sequence}] = {id, k};
            events.push_back({enter, EventKind::nbc_request, k, id});
          }
          break;
        case TraceRole::other:
          break;
      }
    }
    if (open) events.push_back({open_exit, EventKind::leave, open_record, 0});
    std::stable_sort(events.begin(), events.end(),
                     [](const Event& a, const Event& b) { return a.time < b.time; });
    return events;
  }

  void write_location(OTF2_Archive* archive, std::size_t i) {
    const auto& rank = m_trace.ranks[i];
    const auto& records = rank.records;
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, location_of(rank.rank));
    if (w == nullptr) throw std::runtime_error("OTF2: no event writer");
    OTF2_AttributeList* attributes = OTF2_AttributeList_New();
    for (const Event& e : events_of(i)) {
      const TraceRecord& r = records[e.record];
      const OTF2_TimeStamp t = stamp(e.time);
      const OTF2_CommRef comm =
          m_comms.count(r.comm) ? m_comms.at(r.comm).ref : OTF2_UNDEFINED_COMM;
      const std::uint32_t peer =
          r.peer >= 0 && m_comms.count(r.comm) ? comm_rank(r.comm, r.peer) : OTF2_UNDEFINED_UINT32;
      const std::uint32_t tag = static_cast<std::uint32_t>(r.tag);
      OTF2_CollectiveOp op{};
      switch (e.kind) {
        case EventKind::enter:
          check(OTF2_AttributeList_AddStringRef(attributes, 0, m_callsite_strings.at(r.callsite)),
                "callsite attribute");
          check(OTF2_EvtWriter_Enter(w, attributes, t, r.function), "Enter");
          ++m_stats.calls;
          break;
        case EventKind::leave:
          check(OTF2_EvtWriter_Leave(w, nullptr, t, r.function), "Leave");
          break;
        case EventKind::send:
          check(OTF2_EvtWriter_MpiSend(w, nullptr, t, peer, comm, tag, r.bytes), "MpiSend");
          ++m_stats.sends;
          break;
        case EventKind::isend:
          check(OTF2_EvtWriter_MpiIsend(w, nullptr, t, peer, comm, tag, r.bytes, e.request),
                "MpiIsend");
          ++m_stats.sends;
          break;
        case EventKind::isend_complete:
          check(OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t, e.request), "MpiIsendComplete");
          break;
        case EventKind::irecv_request:
          check(OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, e.request), "MpiIrecvRequest");
          break;
        case EventKind::recv:
          check(OTF2_EvtWriter_MpiRecv(w, nullptr, t, peer, comm, tag,
                                       received_bytes(records, e.record)),
                "MpiRecv");
          ++m_stats.receives;
          break;
        case EventKind::irecv:
          check(OTF2_EvtWriter_MpiIrecv(w, nullptr, t, peer, comm, tag, r.bytes, e.request),
                "MpiIrecv");
          ++m_stats.receives;
          break;
        case EventKind::request_cancelled:
          check(OTF2_EvtWriter_MpiRequestCancelled(w, nullptr, t, e.request),
                "MpiRequestCancelled");
          break;
        case EventKind::collective_begin:
          check(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t), "MpiCollectiveBegin");
          break;
        case EventKind::collective_end:
          collective_operation(r, op);
          // mpidle records one byte figure per collective call: what this rank passed.
          check(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t, op, comm, collective_root(r),
                                                r.bytes, 0),
                "MpiCollectiveEnd");
          ++m_stats.collectives;
          break;
        case EventKind::nbc_request:
          check(OTF2_EvtWriter_NonBlockingCollectiveRequest(w, nullptr, t, e.request),
                "NonBlockingCollectiveRequest");
          break;
        case EventKind::nbc_complete:
          collective_operation(r, op);
          check(OTF2_EvtWriter_NonBlockingCollectiveComplete(
                    w, nullptr, t, op, comm, collective_root(r), r.bytes, 0, e.request),
                "NonBlockingCollectiveComplete");
          ++m_stats.collectives;
          break;
      }
      ++m_event_counts[i];
      ++m_stats.events;
    }
    OTF2_AttributeList_Delete(attributes);
    check(OTF2_Archive_CloseEvtWriter(archive, w), "closing an event writer");
  }

  void write_global_definitions(OTF2_Archive* archive) {
    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
    if (g == nullptr) throw std::runtime_error("OTF2: no global definition writer");
    // Every string the definitions name, first.
    std::vector<OTF2_StringRef> function_names;
    for (const auto& f : m_trace.functions) function_names.push_back(m_strings.ref(f));
    const OTF2_StringRef node_name = m_strings.ref("mpidle run");
    const OTF2_StringRef node_class = m_strings.ref("machine");
    const OTF2_StringRef attribute_name = m_strings.ref("callsite");
    const OTF2_StringRef attribute_description = m_strings.ref(
        "where the call was made: function (file:line), from mpidle's callsite table");
    const OTF2_StringRef all_ranks = m_strings.ref("all ranks");
    const OTF2_StringRef mpi_name = m_strings.ref("MPI");
    std::vector<OTF2_StringRef> rank_names, comm_names;
    for (const auto& r : m_trace.ranks)
      rank_names.push_back(m_strings.ref("rank " + std::to_string(r.rank)));
    for (const std::uint32_t id : m_comm_ids) {
      comm_names.push_back(m_strings.ref("communicator " + std::to_string(id) + " (" +
                                         std::to_string(m_comms.at(id).members.size()) +
                                         " ranks)"));
    }
    for (std::uint32_t s = 0; s < m_strings.strings().size(); ++s) {
      check(OTF2_GlobalDefWriter_WriteString(g, s, m_strings.strings()[s].c_str()), "String");
    }

    std::int64_t t_end = m_t0;
    for (std::size_t i = 0; i < m_trace.ranks.size(); ++i) {
      const auto n = m_trace.ranks[i].records.size();
      for (std::size_t k = 0; k < n; ++k) t_end = std::max(t_end, time(i, k, true));
    }
    check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1'000'000'000, 0, stamp(t_end),
                                                    OTF2_UNDEFINED_TIMESTAMP),
          "ClockProperties");
    check(OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, mpi_name,
                                             OTF2_PARADIGM_CLASS_PROCESS),
          "Paradigm");
    check(OTF2_GlobalDefWriter_WriteAttribute(g, 0, attribute_name, attribute_description,
                                              OTF2_TYPE_STRING),
          "Attribute");
    for (std::uint32_t f = 0; f < m_trace.functions.size(); ++f) {
      check(OTF2_GlobalDefWriter_WriteRegion(g, f, function_names[f], function_names[f], m_empty,
                                             region_role(m_function_info[f]), OTF2_PARADIGM_MPI,
                                             OTF2_REGION_FLAG_NONE, m_empty, 0, 0),
            "Region");
    }
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, node_name, node_class,
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "SystemTreeNode");
    std::vector<std::uint64_t> locations;
    for (std::size_t i = 0; i < m_trace.ranks.size(); ++i) {
      const std::int32_t rank = m_trace.ranks[i].rank;
      check(OTF2_GlobalDefWriter_WriteLocationGroup(g, static_cast<OTF2_LocationGroupRef>(rank),
                                                    rank_names[i], OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                    0, OTF2_UNDEFINED_LOCATION_GROUP),
            "LocationGroup");
      check(OTF2_GlobalDefWriter_WriteLocation(g, location_of(rank), rank_names[i],
                                               OTF2_LOCATION_TYPE_CPU_THREAD, m_event_counts[i],
                                               static_cast<OTF2_LocationGroupRef>(rank)),
            "Location");
      locations.push_back(location_of(rank));
    }
    check(OTF2_GlobalDefWriter_WriteGroup(
              g, 0, all_ranks, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
              OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(locations.size()), locations.data()),
          "Group (locations)");
    for (std::size_t c = 0; c < m_comm_ids.size(); ++c) {
      const Communicator& comm = m_comms.at(m_comm_ids[c]);
      const auto group = static_cast<OTF2_GroupRef>(1 + c);
      check(OTF2_GlobalDefWriter_WriteGroup(g, group, comm_names[c], OTF2_GROUP_TYPE_COMM_GROUP,
                                            OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                            static_cast<std::uint32_t>(comm.members.size()),
                                            comm.members.data()),
            "Group (communicator)");
      check(OTF2_GlobalDefWriter_WriteComm(g, comm.ref, comm_names[c], group, OTF2_UNDEFINED_COMM,
                                           OTF2_COMM_FLAG_NONE),
            "Comm");
    }
  }

  const model::Trace& m_trace;
  const TraceTimes m_times;
  const std::int64_t m_t0;  // the run's first event: time 0 of the archive
  Otf2ExportStats m_stats;
  StringTable m_strings;
  OTF2_StringRef m_empty = 0;
  std::vector<OTF2_StringRef> m_callsite_strings;
  std::vector<const model::FunctionInfo*> m_function_info;
  std::unordered_map<std::int32_t, std::size_t> m_position_of_rank;
  std::map<std::uint32_t, Communicator> m_comms;
  std::vector<std::uint32_t> m_comm_ids;
  std::vector<std::uint64_t> m_event_counts;
};

}  // namespace

bool otf2_available() {
  return true;
}

Otf2ExportStats write_otf2_archive(const model::Trace& trace, const fs::path& directory) {
  std::error_code ec;
  if (fs::exists(directory / "traces.otf2", ec)) {
    throw std::runtime_error(directory.string() + " already holds an OTF2 archive");
  }
  return Exporter(trace).write(directory);
}

#endif

}  // namespace mpidle::report
