// The program's side of code regions (docs/regions.md): mpidle_region_begin/end,
// which include/mpidle.h finds when libmpidle is loaded, and MPI_Pcontrol in
// whichever convention MPIDLE_PCONTROL names.

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>

#include "profiler/core/log.hpp"
#include "profiler/runtime/context.hpp"
#include "profiler/wrappers/hooks.hpp"

namespace mpidle::profiler::hooks {
namespace {

void warn_once(std::atomic<bool>& said, const std::string& message) {
  if (!said.exchange(true, std::memory_order_relaxed)) warn(message);
}

enum class NameRead { copied, no_name, cannot_check };

// Copies a region name from a pointer that may not point to one: through the kernel,
// which refuses unreadable memory instead of faulting, and only if it ends within
// kMaxRegionName bytes and is printable text.
NameRead copy_region_name(const char* argument, char (&name)[kMaxRegionName + 1]) {
  if (argument == nullptr) return NameRead::no_name;
  // Up to the end of the argument's page first: the next page may not be mapped.
  const auto address = reinterpret_cast<std::uintptr_t>(argument);
  const std::size_t page = 4096, to_page_end = page - address % page;
  std::size_t copied = 0;
  for (const std::size_t part : {std::min(to_page_end, kMaxRegionName + 1), kMaxRegionName + 1}) {
    if (copied >= part) continue;
    iovec local{name + copied, part - copied};
    iovec remote{const_cast<char*>(argument) + copied, part - copied};
    const ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
      // A seccomp filter (some containers) forbids the call: no name can be checked.
      static std::atomic<bool> said{false};
      warn_once(said, std::string("MPIDLE_PCONTROL=regions cannot check region names here "
                                  "(process_vm_readv: ") +
                          std::strerror(errno) + "); use mpidle_region_begin/end (mpidle.h)");
      return NameRead::cannot_check;
    }
    if (n <= 0) break;
    copied += static_cast<std::size_t>(n);
    if (std::memchr(name, '\0', copied) != nullptr) break;
  }
  const void* end = std::memchr(name, '\0', copied);
  if (end == nullptr || end == name) return NameRead::no_name;
  for (const char* c = name; c != end; ++c) {
    if (!std::isprint(static_cast<unsigned char>(*c))) return NameRead::no_name;
  }
  return NameRead::copied;
}

}  // namespace

void open_region(const char* name) noexcept {
  try {
    // A region opened before MPI_Init or after MPI_Finalize is not the profile's.
    Context* context = Context::current();
    if (context == nullptr) return;
    if (ThreadState* state = thread_state()) state->region_begin(context->regions(), name);
  } catch (const std::exception& e) {
    static std::atomic<bool> said{false};
    warn_once(said, std::string("could not open a region: ") + e.what());
  }
}

void close_region(const char* name) noexcept {
  try {
    if (Context::current() == nullptr) return;  // closed after MPI_Finalize
    ThreadState* state = thread_state();
    if (state != nullptr && !state->region_end(name)) {
      static std::atomic<bool> said{false};
      warn_once(said, std::string("region \"") + region_name(name) +
                          "\" closed but not open on this thread; such ends are ignored");
    }
  } catch (const std::exception& e) {
    static std::atomic<bool> said{false};
    warn_once(said, std::string("could not close a region: ") + e.what());
  }
}

void on_pcontrol(void* callsite, int level, std::va_list names) {
  Context* context = Context::current();
  if (context == nullptr) return;
  const std::string& convention = context->config().pcontrol;
  if (convention == "pause") {
    context->set_paused(level == 0);
    return;
  }
  if (convention != "regions" || (level != 1 && level != -1)) return;
  // The Fortran bindings call MPI_Pcontrol with the level alone: from inside the
  // MPI library there is no name to read. A binding that tail-calls MPI_Pcontrol
  // leaves no trace of itself, so the name is also copied, not read in place: a
  // level passed alone leaves a stray pointer there.
  if (context->mpi_code().contains(reinterpret_cast<std::uintptr_t>(callsite))) return;
  const char* argument = va_arg(names, const char*);
  char name[kMaxRegionName + 1];
  const NameRead read = copy_region_name(argument, name);
  if (read == NameRead::cannot_check) return;
  if (read == NameRead::no_name) {
    static std::atomic<bool> said{false};
    warn_once(said, "MPI_Pcontrol(" + std::to_string(level) +
                        ") without a readable region name after the level is ignored "
                        "(MPIDLE_PCONTROL=regions)");
    return;
  }
  if (level == 1) {
    open_region(name);
  } else {
    close_region(name);
  }
}

}  // namespace mpidle::profiler::hooks

// The C entry points (include/mpidle.h); exported by profiler/exports.map.
extern "C" __attribute__((visibility("default"))) void mpidle_region_begin(const char* name) {
  mpidle::profiler::hooks::open_region(name);
}

extern "C" __attribute__((visibility("default"))) void mpidle_region_end(const char* name) {
  mpidle::profiler::hooks::close_region(name);
}
