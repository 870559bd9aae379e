# Precompiled headers for the plain gcc build (CI's): the standard library,
# nlohmann-json, yaml-cpp and Boost headers that most translation units
# parse are compiled once per flag set and loaded by every unity batch,
# instead of parsed in each (docs/testing.md, "CI time budget").
#
# Two PCHs, one per flag set: the libraries' (the build type's -O2) and the
# tests' (-O1, with Catch2). gcc loads a PCH only where the macros agree;
# CMake adds -Winvalid-pch, so under -Werror a mismatch fails the build
# rather than silently parsing the headers again (hence the Boost macros
# below). The clang builds (scripts/sanitize, scripts/fuzz) leave them out.
option(SIMCTL_PCH "Precompile the heavy third-party headers (gcc plain builds)" ON)

set(simctl_pch_headers
    <algorithm> <array> <cstdint> <filesystem> <fstream> <functional> <map> <memory> <optional> <set>
    <sstream> <stdexcept> <string> <string_view> <variant> <vector>
    <nlohmann/json.hpp> <yaml-cpp/yaml.h> <boost/graph/adjacency_list.hpp> <boost/program_options.hpp>)

set(simctl_use_pch OFF)
if(SIMCTL_PCH AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT SIMCTL_SANITIZE AND NOT SIMCTL_FUZZ)
  set(simctl_use_pch ON)
  # The macros Boost's imported targets give their users, given to every
  # target: gcc refuses a PCH built with macros a translation unit lacks
  # (these only matter for Windows DLLs and auto-linking).
  add_compile_definitions(BOOST_ALL_NO_LIB BOOST_GRAPH_DYN_LINK BOOST_PROGRAM_OPTIONS_DYN_LINK BOOST_REGEX_DYN_LINK)
  # ccache caches a compile that loads a PCH only when told that the PCH's
  # macros and timestamps may be trusted; otherwise every one misses.
  if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
    set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime ${CMAKE_CXX_COMPILER_LAUNCHER})
  endif()
  add_library(simctl_pch OBJECT ${CMAKE_SOURCE_DIR}/cmake/pch.cpp)
  target_link_libraries(simctl_pch PRIVATE nlohmann_json::nlohmann_json yaml-cpp Boost::graph Boost::program_options)
  target_precompile_headers(simctl_pch PRIVATE ${simctl_pch_headers})
endif()

# The libraries' PCH for TARGET.
function(simctl_library_pch target)
  if(simctl_use_pch)
    target_precompile_headers(${target} REUSE_FROM simctl_pch)
  endif()
endfunction()

# The tests' PCH (their -O1 and Catch2), built once on first use.
function(simctl_test_pch target)
  if(NOT simctl_use_pch)
    return()
  endif()
  if(NOT TARGET simctl_test_pch)
    add_library(simctl_test_pch OBJECT ${CMAKE_SOURCE_DIR}/cmake/pch.cpp)
    target_link_libraries(simctl_test_pch PRIVATE Catch2::Catch2 nlohmann_json::nlohmann_json yaml-cpp Boost::graph Boost::program_options)
    if(CMAKE_BUILD_TYPE MATCHES "^(RelWithDebInfo|Release)$")
      target_compile_options(simctl_test_pch PRIVATE -O1)
    endif()
    target_precompile_headers(simctl_test_pch PRIVATE ${simctl_pch_headers} <catch2/catch.hpp>)
  endif()
  target_precompile_headers(${target} REUSE_FROM simctl_test_pch)
endfunction()
