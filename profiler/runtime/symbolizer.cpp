#include "profiler/runtime/symbolizer.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <map>
#include <memory>

#ifdef MPIDLE_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#endif

namespace mpidle::profiler {

#ifndef MPIDLE_HAVE_LIBDW

std::string symbolize(std::vector<model::Callsite>&) {
  return "this libmpidle was built without libdw; callsites show module and offset only";
}

#else

namespace {

// A demangled C++ name ("ns::f(int)"), or the name as it is (C, Fortran).
std::string demangled(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

// The function a scope DIE names: its linkage name demangled, else its name
// (both followed through abstract origins, as for inlined code).
std::string function_name(Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  for (const int at : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (dwarf_attr_integrate(die, at, &attribute) != nullptr) {
      if (const char* linkage = dwarf_formstring(&attribute)) return demangled(linkage);
    }
  }
  const char* name = dwarf_diename(die);
  return name ? name : "";
}

// One module's DWARF, read without running it: addresses are the file's own.
class ModuleDwarf {
 public:
  explicit ModuleDwarf(const std::string& path) {
    static const Dwfl_Callbacks kOffline = {dwfl_build_id_find_elf, dwfl_standard_find_debuginfo,
                                            dwfl_offline_section_address, nullptr};
    m_dwfl = dwfl_begin(&kOffline);
    if (m_dwfl == nullptr) return;
    dwfl_report_begin(m_dwfl);
    m_module = dwfl_report_elf(m_dwfl, path.c_str(), path.c_str(), -1, 0, false);
    dwfl_report_end(m_dwfl, nullptr, nullptr);
  }
  ~ModuleDwarf() {
    if (m_dwfl != nullptr) dwfl_end(m_dwfl);
  }
  ModuleDwarf(const ModuleDwarf&) = delete;
  ModuleDwarf& operator=(const ModuleDwarf&) = delete;

  bool readable() const { return m_module != nullptr; }

  void name(model::Frame& frame) {
    // A return address points after the call; the call is one byte earlier.
    const Dwarf_Addr pc = frame.offset > 0 ? frame.offset - 1 : 0;
    std::string function = innermost_function(pc);
    if (function.empty()) {
      GElf_Off offset = 0;
      GElf_Sym symbol;
      function = demangled(
          dwfl_module_addrinfo(m_module, pc, &offset, &symbol, nullptr, nullptr, nullptr));
    }
    if (!function.empty()) frame.function = function;
    if (Dwfl_Line* line = dwfl_module_getsrc(m_module, pc)) {
      int number = 0;
      const char* file = dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr);
      if (file != nullptr && number > 0) {
        frame.file = file;
        frame.line = number;
      }
    }
  }

 private:
  // The innermost function holding `pc`: an inlined one where the call was inlined,
  // as the line table's file and line are.
  std::string innermost_function(Dwarf_Addr pc) {
    Dwarf_Addr bias = 0;
    Dwarf_Die* cu = dwfl_module_addrdie(m_module, pc, &bias);
    if (cu == nullptr) return {};
    Dwarf_Die* scopes = nullptr;
    const int n = dwarf_getscopes(cu, pc - bias, &scopes);
    std::string name;
    for (int i = 0; i < n && name.empty(); ++i) {
      const int tag = dwarf_tag(&scopes[i]);
      if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
        name = function_name(&scopes[i]);
      }
    }
    std::free(scopes);
    return name;
  }

  Dwfl* m_dwfl = nullptr;
  Dwfl_Module* m_module = nullptr;
};

}  // namespace

std::string symbolize(std::vector<model::Callsite>& callsites) {
  // Frames named before, by (module, offset): a trace run symbolizes the trace's
  // callsites and then the profile's, mostly the same frames, and each module's
  // DWARF is read once. Only rank 0 symbolizes, at finalize, on one thread.
  // Never destroyed, as nothing of libmpidle's is: MPI_Finalize may come from a
  // static destructor that runs after this one would.
  static auto& named = *new std::map<std::pair<std::string, std::uint64_t>, model::Frame>;
  std::map<std::string, std::vector<model::Frame*> > by_module;
  for (auto& c : callsites) {
    for (auto& f : c.frames) {
      // Python frames come named (python_callers.hpp).
      if (f.module == "?" || !f.file.empty()) continue;
      if (const auto it = named.find({f.module, f.offset}); it != named.end()) {
        f = it->second;
      } else {
        by_module[f.module].push_back(&f);
      }
    }
  }
  std::string unreadable;
  for (auto& [module, frames] : by_module) {
    ModuleDwarf dwarf(module);
    if (!dwarf.readable()) {
      unreadable += (unreadable.empty() ? "" : ", ") + module;
      continue;
    }
    for (model::Frame* f : frames) {
      dwarf.name(*f);
      named.emplace(std::pair(f->module, f->offset), *f);
    }
  }
  if (unreadable.empty()) return {};
  return "could not read " + unreadable + " (" + dwfl_errmsg(-1) +
         "); its callsites show module and offset only";
}

#endif

}  // namespace mpidle::profiler
