#include "fleet/records/job_metadata.hpp"

#include <elf.h>
#include <pwd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <unordered_map>

#include "model/run_info.hpp"

namespace mpidle::fleet {
namespace {

std::string get(const settings::EnvLookup& env, const char* name) {
  const auto v = env(name);
  return v ? *v : std::string();
}

// The first of `names` that is set.
std::string first_of(const settings::EnvLookup& env, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (auto v = get(env, n); !v.empty()) return v;
  }
  return {};
}

std::int64_t integer_or_zero(const std::string& text) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    return used == text.size() && v > 0 ? v : 0;
  } catch (...) {
    return 0;
  }
}

std::string hex(const unsigned char* bytes, std::size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

// The NT_GNU_BUILD_ID note of a 64-bit ELF file, read from its program headers.
std::string build_id(std::ifstream& in) {
  Elf64_Ehdr eh{};
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh)) return {};
  if (std::char_traits<char>::compare(reinterpret_cast<const char*>(eh.e_ident), ELFMAG, SELFMAG) !=
          0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
    return {};
  }
  for (int i = 0; i < eh.e_phnum && i < 256; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + static_cast<std::uint64_t>(i) * sizeof ph));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) return {};
    if (ph.p_type != PT_NOTE || ph.p_filesz > (1 << 16)) continue;
    std::vector<unsigned char> notes(ph.p_filesz);
    in.seekg(static_cast<std::streamoff>(ph.p_offset));
    if (!in.read(reinterpret_cast<char*>(notes.data()), static_cast<std::streamsize>(notes.size())))
      continue;
    std::size_t at = 0;
    const auto align4 = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };
    while (at + sizeof(Elf64_Nhdr) <= notes.size()) {
      Elf64_Nhdr nh{};
      std::copy_n(notes.data() + at, sizeof nh, reinterpret_cast<unsigned char*>(&nh));
      const std::size_t name_at = at + sizeof nh;
      const std::size_t desc_at = name_at + align4(nh.n_namesz);
      const std::size_t next = desc_at + align4(nh.n_descsz);
      if (next > notes.size()) break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
          std::equal(notes.data() + name_at, notes.data() + name_at + 4, "GNU")) {
        return hex(notes.data() + desc_at, nh.n_descsz);
      }
      at = next;
    }
  }
  return {};
}

// FNV-1a over the whole file: identity, not security (a program without a build id
// is told apart from other builds of it).
std::string content_hash(std::ifstream& in) {
  in.clear();
  in.seekg(0);
  std::uint64_t h = 14695981039346656037ull;
  std::vector<char> buffer(1 << 16);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h = (h ^ static_cast<unsigned char>(buffer[static_cast<std::size_t>(i)])) * 1099511628211ull;
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

std::string cut(std::string s, std::size_t n) {
  if (s.size() > n) s.resize(n);
  return s;
}

}  // namespace

JobMetadata detect_job(const settings::EnvLookup& env, const std::string& user) {
  JobMetadata job;
  if (!get(env, "SLURM_JOB_ID").empty()) {
    job.scheduler = "slurm";
    // An array task's own job id is SLURM_JOB_ID; SLURM_ARRAY_JOB_ID names the array.
    job.job_id = first_of(env, {"SLURM_ARRAY_JOB_ID", "SLURM_JOB_ID"});
    job.array_index = get(env, "SLURM_ARRAY_TASK_ID");
    job.step = get(env, "SLURM_STEP_ID");
    job.user = get(env, "SLURM_JOB_USER");
    job.account = get(env, "SLURM_JOB_ACCOUNT");
    job.partition = get(env, "SLURM_JOB_PARTITION");
    job.job_name = get(env, "SLURM_JOB_NAME");
    job.nodes_allocated = integer_or_zero(first_of(env, {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"}));
    job.node_list = first_of(env, {"SLURM_JOB_NODELIST", "SLURM_NODELIST"});
  } else if (!get(env, "FLUX_JOB_ID").empty()) {
    job.scheduler = "flux";
    job.job_id = get(env, "FLUX_JOB_ID");
    job.nodes_allocated = integer_or_zero(get(env, "FLUX_JOB_NNODES"));
  } else if (!get(env, "LSB_JOBID").empty()) {
    job.scheduler = "lsf";
    job.job_id = get(env, "LSB_JOBID");
    const std::string index = get(env, "LSB_JOBINDEX");
    job.array_index = index == "0" ? "" : index;  // LSF sets 0 outside arrays
    job.account = get(env, "LSB_PROJECT_NAME");
    job.partition = get(env, "LSB_QUEUE");
    job.job_name = get(env, "LSB_JOBNAME");
    job.node_list = get(env, "LSB_MCPU_HOSTS");
  } else if (!get(env, "PBS_JOBID").empty()) {
    job.scheduler = "pbs";  // PBS Pro, OpenPBS and Torque
    job.job_id = get(env, "PBS_JOBID");
    job.array_index = first_of(env, {"PBS_ARRAY_INDEX", "PBS_ARRAYID"});
    job.user = get(env, "PBS_O_LOGNAME");
    job.account = first_of(env, {"PBS_ACCOUNT", "PBS_O_ACCOUNT"});
    job.partition = get(env, "PBS_QUEUE");
    job.job_name = get(env, "PBS_JOBNAME");
    job.nodes_allocated = integer_or_zero(get(env, "PBS_NUM_NODES"));
  }
  if (job.user.empty()) job.user = user;
  return job;
}

std::map<std::string, std::string> parse_user_metadata(const std::string& text,
                                                       std::vector<std::string>& warnings) {
  std::map<std::string, std::string> out;
  std::size_t skipped = 0;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find_first_of(",;", at), text.size());
    const std::string pair = text.substr(at, end - at);
    at = end + 1;
    if (pair.find_first_not_of(" \t") == std::string::npos) continue;
    const auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0 || out.size() >= kMaxUserMetadata) {
      ++skipped;
      continue;
    }
    out[cut(pair.substr(0, eq), kMaxMetadataKey)] = cut(pair.substr(eq + 1), kMaxMetadataValue);
  }
  if (skipped > 0) {
    warnings.push_back("MPIDLE_METADATA: " + std::to_string(skipped) +
                       " pairs skipped (each must be key=value, at most " +
                       std::to_string(kMaxUserMetadata) + " pairs)");
  }
  return out;
}

std::string executable_identity(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  if (const std::string id = build_id(in); !id.empty()) return "build-id:" + id;
  return "fnv1a64:" + content_hash(in);
}

nlohmann::json job_json(const JobMetadata& job, const std::vector<std::string>& rank_hosts,
                        const std::string& start, const std::string& end,
                        const std::string& mpi_library) {
  std::unordered_map<std::string, std::int64_t> per_host;
  for (const auto& h : rank_hosts) ++per_host[h];
  // The scheduler's compact node list, or else the ranks' hosts; cut, since the
  // record must stay small at any node count.
  std::string node_list = job.node_list;
  if (node_list.empty()) {
    for (const auto& h : std::set<std::string>(rank_hosts.begin(), rank_hosts.end())) {
      node_list += (node_list.empty() ? "" : ",") + h;
    }
  }
  if (node_list.size() > kMaxNodeList) node_list = node_list.substr(0, kMaxNodeList - 3) + "...";
  std::int64_t least = 0, most = 0;
  for (const auto& [host, n] : per_host) {
    least = least == 0 ? n : std::min(least, n);
    most = std::max(most, n);
  }
  const auto or_null = [](const std::string& s) -> nlohmann::json {
    return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
  };
  return {{"scheduler", job.scheduler},
          {"job_id", or_null(job.job_id)},
          {"step", or_null(job.step)},
          {"array_index", or_null(job.array_index)},
          {"job_name", or_null(job.job_name)},
          {"user", or_null(job.user)},
          {"account", or_null(job.account)},
          {"partition", or_null(job.partition)},
          {"nodes", static_cast<std::int64_t>(per_host.size())},
          {"nodes_allocated", job.nodes_allocated},
          {"node_list", node_list},
          {"ranks", static_cast<std::int64_t>(rank_hosts.size())},
          {"ranks_per_node", {{"min", least}, {"max", most}}},
          {"executable", job.executable},
          {"executable_id", or_null(job.executable_id)},
          {"mpi_library", mpi_library},
          {"mpidle_version", model::mpidle_version()},
          {"start", start},
          {"end", end},
          {"metadata", job.user_metadata}};
}

std::string account_name(unsigned uid) {
  passwd entry{};
  passwd* found = nullptr;
  char buffer[4096];
  if (getpwuid_r(static_cast<uid_t>(uid), &entry, buffer, sizeof buffer, &found) == 0 && found) {
    return found->pw_name;
  }
  return std::to_string(uid);
}

}  // namespace mpidle::fleet
