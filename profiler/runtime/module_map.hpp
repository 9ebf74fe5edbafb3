#pragma once
// Turns code addresses into (module, offset), the form in which callsites match
// across ranks whatever ASLR and PIE did to each process' layout.

#include <cstdint>
#include <map>
#include <string>

#include "model/profile_tables.hpp"

namespace mpidle::profiler {

class ModuleMap {
 public:
  model::Frame frame_of(std::uintptr_t address);

 private:
  struct Module {
    std::string path;
    bool fixed_address = false;  // ET_EXEC: symbolized by absolute address
  };
  const Module& module_of(const char* reported_path);
  std::map<std::string, Module> m_modules;
};

}  // namespace mpidle::profiler
