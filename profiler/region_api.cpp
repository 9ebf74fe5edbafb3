// The program's side of code regions (docs/regions.md): mpidle_region_begin/end,
// which include/mpidle.h finds when libmpidle is loaded, and MPI_Pcontrol in
// whichever convention MPIDLE_PCONTROL names.

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <exception>

#include "context.hpp"
#include "hooks.hpp"
#include "log.hpp"

namespace mpidle::profiler::hooks {
namespace {

// A region opened before MPI_Init or closed after MPI_Finalize is not the profile's:
// nothing happens then.
ThreadState* region_thread() {
  return Context::current() != nullptr ? thread_state() : nullptr;
}

void warn_once(std::atomic<bool>& said, const std::string& message) {
  if (!said.exchange(true, std::memory_order_relaxed)) warn(message);
}

}  // namespace

void open_region(const char* name) noexcept {
  try {
    Context* context = Context::current();
    ThreadState* state = region_thread();
    if (context != nullptr && state != nullptr) state->region_begin(context->regions(), name);
  } catch (const std::exception& e) {
    static std::atomic<bool> said{false};
    warn_once(said, std::string("could not open a region: ") + e.what());
  }
}

void close_region(const char* name) noexcept {
  try {
    ThreadState* state = region_thread();
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
  // MPI library there is no name to read.
  if (context->mpi_code().contains(reinterpret_cast<std::uintptr_t>(callsite))) return;
  const char* name = va_arg(names, const char*);
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
