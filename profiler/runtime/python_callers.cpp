#include "profiler/runtime/python_callers.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>

#include "profiler/core/stack_table.hpp"
#include "profiler/runtime/python_layout.h"

namespace mpidle::profiler {
namespace {

// A Python extension module defines PyInit_<name> (Python's import protocol), its
// name being the file's up to the first dot: MPI.cpython-311-x86_64-linux-gnu.so.
// It calls MPI for the interpreter when the MPI library is among what it links.
bool python_module_reaching_mpi(const char* path, void* handle, std::uintptr_t base) {
  const char* slash = std::strrchr(path, '/');
  const std::string file = slash ? slash + 1 : path;
  const std::string init = "PyInit_" + file.substr(0, file.find('.'));
  return CodeRanges::defines(handle, init.c_str(), base) &&
         dlsym(handle, "PMPI_Comm_rank") != nullptr;
}

std::uint64_t mix(const void* code, int offset) {
  auto h = reinterpret_cast<std::uint64_t>(code) ^ (static_cast<std::uint64_t>(offset) << 40);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

std::unique_ptr<PythonCallers> PythonCallers::detect(std::string& why_not) {
  auto* version = reinterpret_cast<const char* (*)()>(dlsym(RTLD_DEFAULT, "Py_GetVersion"));
  auto* initialized = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "Py_IsInitialized"));
  if (version == nullptr || initialized == nullptr || initialized() == 0) return nullptr;
  const std::string running = version();
  const char* layout = mpidle_python_layout_version();
  const std::size_t n = layout ? std::strlen(layout) : 0;
  if (layout == nullptr || running.compare(0, n, layout) != 0 ||
      (running.size() > n && running[n] >= '0' && running[n] <= '9')) {
    why_not = "Python " + running.substr(0, running.find(' ')) +
              (layout ? std::string(": this build reads the frames of Python ") + layout
                      : std::string(": this build has no Python headers")) +
              "; callsites of Python programs name the extension module";
    return nullptr;
  }
  auto callers = std::make_unique<PythonCallers>();
  callers->m_this_thread_state =
      reinterpret_cast<void* (*)()>(dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState"));
  callers->m_addr2line =
      reinterpret_cast<int (*)(void*, int)>(dlsym(RTLD_DEFAULT, "PyCode_Addr2Line"));
  if (callers->m_this_thread_state == nullptr || callers->m_addr2line == nullptr) {
    why_not = "Python " + running.substr(0, running.find(' ')) +
              " without PyGILState_GetThisThreadState or PyCode_Addr2Line";
    return nullptr;
  }
  callers->m_modules = CodeRanges::of_modules_where(python_module_reaching_mpi);
  if (callers->m_modules.empty()) return nullptr;  // Python, but MPI is not called from it
  return callers;
}

PythonFrames::PythonFrames(const PythonCallers& callers, std::size_t capacity)
    : m_callers(callers),
      m_capacity(capacity),
      m_frames(std::make_unique<PythonFrame[]>(capacity)),
      m_index(std::make_unique<std::uint32_t[]>(2 * capacity)) {}

const PythonFrame* PythonFrames::intern(const void* code, int offset) {
  const std::size_t slots = 2 * m_capacity;
  for (std::size_t i = mix(code, offset) % slots, probes = 0; probes < slots;
       i = (i + 1) % slots, ++probes) {
    const std::uint32_t at = m_index[i];
    if (at == 0) {
      if (m_size == m_capacity) return nullptr;
      PythonFrame& f = m_frames[m_size];
      f.code = code;
      f.offset = offset;
      // Named now, while the code runs: string work once per new Python line.
      mpidle_python_code_names(code, f.path, sizeof f.path, f.function, sizeof f.function);
      f.line = m_callers.line_of(code, offset);
      f.in_mpi4py = std::strstr(f.path, "/mpi4py/") != nullptr;
      m_index[i] = static_cast<std::uint32_t>(++m_size);
      return &f;
    }
    const PythonFrame& f = m_frames[at - 1];
    if (f.code == code && f.offset == offset) return &f;
  }
  return nullptr;
}

std::size_t PythonFrames::current(std::span<std::uintptr_t> out) {
  // As deep as asked, and a few frames more for mpi4py's own to be skipped.
  constexpr std::size_t kMaxSkipped = 8;
  mpidle_python_frame stack[kMaxStackDepth + kMaxSkipped];
  const std::size_t walk = std::min(out.size(), kMaxStackDepth) + kMaxSkipped;
  const void* thread = m_callers.thread_state();
  if (thread == nullptr) return 0;  // the interpreter is finalizing
  const int n = mpidle_python_stack(thread, stack, static_cast<int>(walk));
  std::size_t kept = 0;
  const PythonFrame* last_mpi4py = nullptr;
  for (int i = 0; i < n && kept < out.size(); ++i) {
    const PythonFrame* f = intern(stack[i].code, stack[i].offset);
    if (f == nullptr) return 0;
    if (f->in_mpi4py && kept == 0) {
      last_mpi4py = f;
      continue;
    }
    out[kept++] = reinterpret_cast<std::uintptr_t>(f) | kPythonFrameTag;
  }
  if (kept == 0 && last_mpi4py != nullptr && !out.empty()) {
    out[kept++] = reinterpret_cast<std::uintptr_t>(last_mpi4py) | kPythonFrameTag;
  }
  return kept;
}

model::Frame python_frame_of(std::uintptr_t key) {
  const auto* f = reinterpret_cast<const PythonFrame*>(key & ~kPythonFrameTag);
  model::Frame frame;
  frame.module = f->path;
  frame.offset = static_cast<std::uint64_t>(f->line > 0 ? f->line : 0);
  frame.function = f->function;
  const char* slash = std::strrchr(f->path, '/');
  frame.file = slash ? slash + 1 : f->path;
  frame.line = f->line;
  return frame;
}

}  // namespace mpidle::profiler
