#include "profiler/runtime/module_map.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include <fstream>

namespace mpidle::profiler {
namespace {

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) ? std::string(buf) : path;
}

bool is_fixed_address_executable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char header[EI_NIDENT + 2] = {};
  if (!in.read(reinterpret_cast<char*>(header), sizeof header)) return false;
  const std::uint16_t type =
      static_cast<std::uint16_t>(header[EI_NIDENT] | header[EI_NIDENT + 1] << 8);
  return type == ET_EXEC;
}

}  // namespace

const ModuleMap::Module& ModuleMap::module_of(const char* reported_path) {
  // dladdr reports the main program by the name it was started with (argv[0],
  // which may be a bare name found on PATH), or not at all.
  std::string key = reported_path && *reported_path ? reported_path : "";
  auto it = m_modules.find(key);
  if (it != m_modules.end()) return it->second;
  const bool main_program =
      key.empty() || key == program_invocation_name || key.find('/') == std::string::npos;
  Module m;
  m.path = real_path(main_program ? "/proc/self/exe" : key);
  m.fixed_address = is_fixed_address_executable(m.path);
  return m_modules.emplace(key, m).first->second;
}

model::Frame ModuleMap::frame_of(std::uintptr_t address) {
  model::Frame f;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(address), &info) == 0) {
    f.module = std::string(1, '?');  // (a literal here trips GCC 12 -Wrestrict)
    f.offset = address;
    return f;
  }
  const Module& m = module_of(info.dli_fname);
  f.module = m.path;
  const auto base = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  f.offset = m.fixed_address ? address : address - base;
  if (info.dli_sname) f.function = info.dli_sname;
  return f;
}

}  // namespace mpidle::profiler
