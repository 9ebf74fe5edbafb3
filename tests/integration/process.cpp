#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "fleet/records/log_tree.hpp"

extern char** environ;

namespace mpidle::test {
namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Outcome run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
            int timeout_s, int signal_after_ms, int signal) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    // The test's own environment must not steer the profiler.
    if (eq != std::string::npos && kv.rfind("MPIDLE_", 0) != 0 && kv.rfind("LD_PRELOAD=", 0) != 0) {
      merged[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
  }
  for (const auto& [k, v] : env) merged[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : merged) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);

  // Per call, not per process: tests may run commands from several threads.
  static std::atomic<unsigned> calls{0};
  const std::string id = std::to_string(getpid()) + "-" + std::to_string(calls++);
  const fs::path out_file = fs::temp_directory_path() / ("mpidle-test-out-" + id);
  const fs::path err_file = fs::temp_directory_path() / ("mpidle-test-err-" + id);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // No stdin: mpiexec would otherwise keep forwarding the test's stdin to rank 0.
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // so that a hang can be killed whole
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  Outcome o;
  if (posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data()) != 0) {
    o.err = "cannot start " + argv[0];
    return o;
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::seconds(timeout_s);
  const auto signal_at = start + std::chrono::milliseconds(signal_after_ms);
  bool signalled = signal_after_ms <= 0;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (!signalled && std::chrono::steady_clock::now() > signal_at) {
      kill(pid, signal);
      signalled = true;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  o.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = read_text(out_file);
  o.err = read_text(err_file);
  fs::remove(out_file);
  fs::remove(err_file);
  return o;
}

std::size_t count_lines_with(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

std::map<int, long> peak_rss_kib_by_rank(const std::string& out) {
  std::map<int, long> peaks;
  static const std::regex line(R"(rank (\d+) peak_rss_kib (\d+))");
  for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it) {
    peaks[std::stoi((*it)[1])] = std::stol((*it)[2]);
  }
  return peaks;
}

bool testing_open_mpi() {
  return std::string(MPIDLE_TEST_MPI) == "openmpi";
}

std::map<std::string, std::string> transport(const std::string& which) {
  if (testing_open_mpi()) {
    return {{"OMPI_MCA_pml", "ob1"}, {"OMPI_MCA_btl", which == "tcp" ? "self,tcp" : "self,vader"}};
  }
  if (which == "tcp") return {{"UCX_TLS", "tcp,self"}};
  return {};
}

Outcome run_mpi(int ranks, const std::string& program, const std::vector<std::string>& args,
                std::map<std::string, std::string> env, bool preload) {
  const auto argv = mpi_command(ranks, program, args, env, preload);
  return run(argv, env);
}

std::vector<std::string> mpi_command(int ranks, const std::string& program,
                                     const std::vector<std::string>& args,
                                     std::map<std::string, std::string>& env, bool preload) {
  if (preload) env["LD_PRELOAD"] = MPIDLE_LIB;
  std::vector<std::string> argv = {MPIEXEC};
  if (testing_open_mpi()) {
    // Open MPI's launcher forwards only what -x names, refuses root without
    // --allow-run-as-root and more ranks than cores without --oversubscribe.
    argv.push_back("--oversubscribe");
    if (geteuid() == 0) argv.push_back("--allow-run-as-root");
    for (const auto& [name, value] : env) {
      argv.push_back("-x");
      argv.push_back(name);
    }
  }
  argv.insert(argv.end(), {"-n", std::to_string(ranks), program});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::string scratch_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mpidle-it-" + name);
  fs::remove_all(dir);
  return dir.string();
}

extern int g_failed_assertions;  // tests/main.cpp

void skip_test(const std::string& why) {
  if (g_failed_assertions > 0) {
    std::printf("not skipped (%s): %d checks failed before\n", why.c_str(), g_failed_assertions);
    std::fflush(stdout);
    std::_Exit(1);
  }
  std::printf("SKIPPED: %s\n", why.c_str());
  std::fflush(stdout);
  std::_Exit(77);
}

LogTreeRuns log_tree_runs(const fs::path& tree) {
  LogTreeRuns found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(tree, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() != 3 || !it->is_directory()) continue;
    if (fleet::is_staging_name(it->path().filename().string())) {
      ++found.staging;
    } else {
      found.runs.push_back(it->path());
    }
  }
  return found;
}

std::string example(const std::string& name) {
  return std::string(EXAMPLES_DIR) + "/" + name;
}
std::string program(const std::string& name) {
  return std::string(PROGRAMS_DIR) + "/" + name;
}

nlohmann::json truth_of(const std::string& text) {
  const auto start = text.find('{');
  if (start == std::string::npos) return nlohmann::json::object();
  return nlohmann::json::parse(text.substr(start, text.find('\n', start) - start), nullptr, false);
}

const model::FunctionRow* function_row(const model::Profile& p, const std::string& name) {
  for (const auto& f : p.functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::uint64_t calls_of(const model::Profile& p, const std::string& name) {
  const auto* f = function_row(p, name);
  return f ? f->calls : 0;
}

double rank_wait(const model::Profile& p, const std::string& function, std::int64_t rank) {
  double wait = 0;
  for (const auto& c : p.callsites) {
    if (c.function != function) continue;
    for (const auto& r : c.by_rank) {
      if (r.rank == rank) wait += r.wait_s;
    }
  }
  return wait;
}

}  // namespace mpidle::test
