#pragma once
// Calls that a Python extension module (mpi4py's MPI module, or any module linked
// to the MPI library) makes on the interpreter's behalf. All of one function's calls
// leave such a module from one return address, so their callsite is the Python line
// that made them instead: read from the calling thread's interpreter frames by the
// CPython layout this build knows (python_layout.c), without the GIL, which mpi4py
// has released around blocking calls, and without calling into Python.

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "model/profile_tables.hpp"
#include "profiler/runtime/code_ranges.hpp"

namespace mpidle::profiler {

// A Python frame's key in the callsite tables: a pointer to its PythonFrame,
// tagged so that it never collides with a return address (user space addresses
// have the top bits clear) or a stack id (kStackIdTag, bit 63).
inline constexpr std::uintptr_t kPythonFrameTag = std::uintptr_t{1} << 62;

class PythonCallers {
 public:
  // The loaded Python extension modules that reach the MPI library, when this
  // process runs a CPython whose frames this build reads. Null otherwise (not
  // Python, or another version: `why_not` then says why, for a Python one).
  static std::unique_ptr<PythonCallers> detect(std::string& why_not);

  bool contains(std::uintptr_t address) const { return m_modules.contains(address); }
  // The calling thread's PyThreadState, whether or not it holds the GIL.
  const void* thread_state() const { return m_this_thread_state(); }
  int line_of(const void* code, int offset) const {
    return m_addr2line(const_cast<void*>(code), offset);
  }

 private:
  CodeRanges m_modules;
  void* (*m_this_thread_state)() = nullptr;
  int (*m_addr2line)(void*, int) = nullptr;
};

// One Python frame, named when first met (its code object is alive then: it is
// running; at MPI_Finalize, from mpi4py's exit handler, it may not be).
struct PythonFrame {
  const void* code = nullptr;
  int offset = -1;
  int line = 0;
  bool in_mpi4py = false;  // mpi4py's own Python code, not the program's
  char path[256] = {};
  char function[96] = {};
};

// One thread's Python frames, interned: fixed capacity, allocated once.
class PythonFrames {
 public:
  explicit PythonFrames(const PythonCallers& callers, std::size_t capacity = 2048);
  // The keys of the calling thread's innermost Python frames that are the
  // program's (at most out.size()), innermost first; mpi4py's own frames are skipped
  // unless nothing else is there. 0 when Python has no frame or the table is full.
  std::size_t current(std::span<std::uintptr_t> out);
  std::size_t memory_bytes() const { return m_capacity * sizeof(PythonFrame); }

 private:
  const PythonFrame* intern(const void* code, int offset);
  const PythonCallers& m_callers;
  std::size_t m_capacity, m_size = 0;
  std::unique_ptr<PythonFrame[]> m_frames;
  std::unique_ptr<std::uint32_t[]> m_index;  // open addressing, 2 x capacity, 0 = empty
};

// The callsite frame of a PythonFrame key: the file's path as its module and its
// line as its offset (its identity across ranks), named already.
model::Frame python_frame_of(std::uintptr_t key);

}  // namespace mpidle::profiler
