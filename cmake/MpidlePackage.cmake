# The installable package: the MPI-free libraries (model, sync, compress, analysis)
# with their headers, an exported CMake package and a pkg-config file, so that other
# programs read mpidle's runs with mpidle's own readers:
#   find_package(mpidle 0.1 REQUIRED)
#   target_link_libraries(tool PRIVATE mpidle::analysis)   # or model, sync, compress
#   #include "model/profile_reader.hpp"
include(CMakePackageConfigHelpers)

set(mpidle_package_libraries model sync compress analysis)
set(MPIDLE_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/mpidle)
set(MPIDLE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mpidle)

foreach(part IN LISTS mpidle_package_libraries)
  set_target_properties(mpidle_${part} PROPERTIES EXPORT_NAME ${part})
  target_include_directories(mpidle_${part} PUBLIC
    $<INSTALL_INTERFACE:${MPIDLE_INSTALL_INCLUDEDIR}>)
  install(TARGETS mpidle_${part} EXPORT mpidleTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${part}/ DESTINATION ${MPIDLE_INSTALL_INCLUDEDIR}/${part}
    FILES_MATCHING PATTERN "*.hpp" PATTERN "*.def")
endforeach()
# The function catalog's generated tables sit beside function_catalog.hpp.
install(FILES ${PROJECT_BINARY_DIR}/model/generated/mpi_catalog.inc
              ${PROJECT_BINARY_DIR}/model/generated/mpi_collective_operations.inc
        DESTINATION ${MPIDLE_INSTALL_INCLUDEDIR}/model)

install(EXPORT mpidleTargets NAMESPACE mpidle:: DESTINATION ${MPIDLE_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mpidleConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mpidleConfig.cmake INSTALL_DESTINATION ${MPIDLE_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mpidleConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mpidleConfig.cmake ${PROJECT_BINARY_DIR}/mpidleConfigVersion.cmake
  DESTINATION ${MPIDLE_INSTALL_CMAKEDIR})

configure_file(${PROJECT_SOURCE_DIR}/cmake/mpidle.pc.in ${PROJECT_BINARY_DIR}/mpidle.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mpidle.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
