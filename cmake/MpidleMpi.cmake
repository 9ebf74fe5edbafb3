# Chooses the MPI to build for. On Debian, MPICH and Open MPI can be installed side by
# side and the plain `mpicc`/`mpiexec` alternatives point at whichever was installed
# with the higher priority, so each implementation is found by its own tools' names.
#   -DMPIDLE_MPI=mpich     mpicc.mpich, mpiexec.mpich, ...      (default where installed)
#   -DMPIDLE_MPI=openmpi   mpicc.openmpi, mpiexec.openmpi, ...
#   -DMPIDLE_MPI=system    whatever CMake's FindMPI finds: the `mpicc` on PATH, or
#                          MPI_HOME / MPI_C_COMPILER / MPIEXEC_EXECUTABLE as given
#                          (Cray MPICH, Intel MPI, a module-loaded Open MPI)
set(mpidle_default_mpi system)
find_program(mpidle_mpicc_mpich mpicc.mpich)
find_program(mpidle_mpicc_openmpi mpicc.openmpi)
if(mpidle_mpicc_mpich)
  set(mpidle_default_mpi mpich)
elseif(mpidle_mpicc_openmpi)
  set(mpidle_default_mpi openmpi)
endif()
set(MPIDLE_MPI ${mpidle_default_mpi} CACHE STRING "MPI to build for: mpich, openmpi or system")
set_property(CACHE MPIDLE_MPI PROPERTY STRINGS mpich openmpi system)
if(NOT MPIDLE_MPI MATCHES "^(mpich|openmpi|system)$")
  message(FATAL_ERROR "MPIDLE_MPI=${MPIDLE_MPI}: expected mpich, openmpi or system")
endif()

if(NOT MPIDLE_MPI STREQUAL "system")
  set(mpidle_mpi_vars MPI_C_COMPILER MPI_CXX_COMPILER MPI_Fortran_COMPILER MPIEXEC_EXECUTABLE)
  set(mpidle_mpi_tools mpicc mpicxx mpifort mpiexec)
  foreach(tool_var tool_name IN ZIP_LISTS mpidle_mpi_vars mpidle_mpi_tools)
    if(NOT ${tool_var})
      find_program(mpidle_${tool_name}_${MPIDLE_MPI} ${tool_name}.${MPIDLE_MPI})
      if(mpidle_${tool_name}_${MPIDLE_MPI})
        set(${tool_var} ${mpidle_${tool_name}_${MPIDLE_MPI}} CACHE FILEPATH "${MPIDLE_MPI} ${tool_name}")
      elseif(tool_name STREQUAL "mpicc" AND MPIDLE_ENABLE_PROFILER)
        message(FATAL_ERROR "MPIDLE_MPI=${MPIDLE_MPI}: ${tool_name}.${MPIDLE_MPI} not found "
                            "(Debian: apt-get install ${MPIDLE_MPI}-bin or lib${MPIDLE_MPI}-dev)")
      endif()
    endif()
  endforeach()
endif()

# mpi.h included from C++ must not pull in the deleted MPI-2 C++ bindings (Open MPI
# does, unless told; their symbols live in a library mpidle does not link).
add_compile_definitions(OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)

set(MPIDLE_HAVE_FORTRAN OFF)
set(MPIDLE_MPI_LIBRARY_VERSION "")
if(MPIDLE_ENABLE_PROFILER)
  set(MPI_DETERMINE_LIBRARY_VERSION TRUE)
  find_package(MPI REQUIRED COMPONENTS C)
  # The first line of MPI_Get_library_version: which MPI the build really found.
  string(REGEX REPLACE "\n.*" "" MPIDLE_MPI_LIBRARY_VERSION "${MPI_C_LIBRARY_VERSION_STRING}")
  if(MPIDLE_ENABLE_FORTRAN_TESTS)
    include(CheckLanguage)
    check_language(Fortran)
    if(CMAKE_Fortran_COMPILER)
      enable_language(Fortran)
      find_package(MPI COMPONENTS Fortran)
      if(MPI_Fortran_FOUND)
        set(MPIDLE_HAVE_FORTRAN ON)
      endif()
    endif()
  endif()
endif()

# Which MPI_Status fields hold a received message's byte count and cancelled flag
# (profiler/wrappers/status_count.h): read directly, as IPM does, they save a call into the
# MPI library per completed receive. Neither found: the portable calls stay.
set(MPIDLE_STATUS_DEFINITIONS "")
if(MPIDLE_ENABLE_PROFILER)
  include(CheckStructHasMember)
  set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
  set(CMAKE_REQUIRED_QUIET ON)
  foreach(field _ucount _cancelled count_lo count_hi_and_cancelled)
    string(TOUPPER "${field}" name)
    string(REGEX REPLACE "^_" "" name "${name}")
    string(REPLACE "COUNT_HI_AND_CANCELLED" "COUNT_HI" name "${name}")
    check_struct_has_member("MPI_Status" ${field} mpi.h MPIDLE_STATUS_${name} LANGUAGE C)
    if(MPIDLE_STATUS_${name})
      list(APPEND MPIDLE_STATUS_DEFINITIONS MPIDLE_STATUS_${name}=1)
    endif()
  endforeach()
  unset(CMAKE_REQUIRED_INCLUDES)
  unset(CMAKE_REQUIRED_QUIET)
endif()
