# CMake functions for projects that build stencilc programs. Included by stencilcConfig.cmake
# (find_package(stencilc)) and by stencilc's own build. They need the targets stencilc::stencilc,
# stencilc::headers and stencilc::runtime_host.
#
#   stencilc_generate(<out-var> SOURCES <file>... [TARGET host|cuda]
#                     [SCHEDULE auto|cpu-free|host-controlled] [BACKEND p2p|nvshmem]
#                     [TARGET_PROPERTIES <cmake-target>] [OPTIONS <compile-arg>...]
#                     [OUTPUT_DIRECTORY <dir>])
#     Runs `stencilc --target=host --emit=cpp` (TARGET cuda: `--emit=cuda`, <name>.stencilc.cu,
#     with `--schedule=<SCHEDULE>` and `--backend=<BACKEND>`; both only with TARGET cuda) on
#     each source at build time and sets <out-var> to the generated files, <dir>/<name>.stencilc.cpp
#     (<dir> defaults to the current binary
#     directory). The front end gets the include directories and compile definitions of
#     <cmake-target> (read at generate time, so later target_* calls count) and then OPTIONS, the
#     way clang-tidy gets them after `--`. A source is regenerated when it, a file it includes
#     (stencilc's depfile) or stencilc changes. Each generated file's INCLUDE_DIRECTORIES source
#     property holds its source's directory, so the source's `#include "..."` still resolve.
#
#   stencilc_add_executable(<name> SOURCES <file>... [TARGET host|cuda]
#                           [SCHEDULE auto|cpu-free|host-controlled] [BACKEND p2p|nvshmem]
#                           [CUDA_ARCHITECTURES <arch>...] [OPTIONS <compile-arg>...])
#     An executable built from the code stencilc generates for SOURCES, linked with
#     stencilc::runtime_host. Give it include directories and definitions with
#     target_include_directories/target_compile_definitions(<name> ...): stencilc's front end
#     and the host compiler both see them (OPTIONS: arguments for the front end only). Only
#     TARGET host (the default; PEs are threads) and TARGET cuda (needs enable_language(CUDA);
#     CUDA_ARCHITECTURES defaults to 90). TARGET cuda takes SCHEDULE auto (the default: the
#     schedule of each run chosen at run time, docs/SCHEDULES.md), cpu-free (one persistent kernel
#     per GPU) or host-controlled (the CPU-controlled baseline: the host launches a kernel per
#     update and GPU), and BACKEND p2p (the default: one process drives every GPU) or
#     nvshmem (one process per GPU, run with mpirun -np N; separable compilation,
#     linked with NVSHMEM (stencilc_find_nvshmem) and MPI (find_package(MPI)), with an rpath to
#     NVSHMEM's libraries). TARGET host has neither but the defaults. The generated files are in
#     the target's STENCILC_GENERATED_SOURCES property.
#
#   stencilc_add_library(<name> SOURCES <file>... [HEADERS <file>...] [TARGET host|cuda]
#                        [SCHEDULE ...] [BACKEND ...] [CUDA_ARCHITECTURES <arch>...] [OPTIONS ...])
#     The same as a static library, for an application that has its own main: SOURCES define
#     the programs and plain functions that call them; the directories of HEADERS (the
#     declarations the application includes) are the library's public include directories, and
#     the stencilc runtime it needs comes with it (linked PUBLIC).
#
#   Both give the generated code -O2 (CUDA: -O3) when no build type is set, where CMake would
#   compile it unoptimized.
#
#   stencilc_find_nvshmem()
#     Sets STENCILC_NVSHMEM_FOUND and, when found, makes the imported targets stencilc::nvshmem
#     (libnvshmem_host.so.3, libnvshmem_device.a, their headers) and sets STENCILC_NVSHMEM_LIBRARY_DIR.
#     Looks in NVSHMEM_HOME (a CMake or environment variable), then the nvidia-nvshmem-cu13 wheel
#     of python3 (pip install nvidia-nvshmem-cu13==3.4.5), then /usr/local/nvshmem and
#     /opt/nvidia/nvshmem.
#
#   stencilc_add_reference_executable(<name> SOURCES <file>...)
#     The same sources built by the host compiler against the user header (serial reference
#     semantics): the build every compiled run is checked against.
#
#   stencilc_add_reference_test(<test> COMPILED <target> REFERENCE <target> [PES <n>...]
#                               [ARGS <argument-set>...] [ENV <NAME=VALUE>...] [TIMEOUT <s>])
#     A test that runs the stencilc build and the reference build with each argument set (one
#     string each, space-separated; default: none) on each PE count (default 1 2 3 4) and
#     compares every grid they hand back (Grid::copy_to) element by element and the numbers they
#     print: stencilc-compare (STENCILC_COMPARE_TOOL), the check tests/e2e runs on every sample.
#     ENV: set for the stencilc build's runs.
include_guard(GLOBAL)

# Recorded by the functions below (functions keep the policies of their definition): DEPFILE
# paths relative to the current binary directory, transformed for Ninja.
cmake_policy(SET CMP0116 NEW)

set(_stencilc_available_targets host cuda)

function(_stencilc_check_choice function what value known available)
  if(NOT value IN_LIST known)
    string(REPLACE ";" ", " known_text "${known}")
    message(FATAL_ERROR "${function}: unknown ${what} '${value}' (known: ${known_text})")
  endif()
  if(NOT value IN_LIST available)
    string(REPLACE ";" ", " available_text "${available}")
    message(FATAL_ERROR "${function}: ${what} ${value} is not available yet in this version of stencilc "
                        "(${stencilc_VERSION}); available: ${available_text}")
  endif()
endfunction()

# The schedules: auto and the CPU-free one for both targets (the host target has one schedule), the
# host-controlled baseline for cuda only.
function(_stencilc_check_schedule function target schedule)
  _stencilc_check_choice("${function}" SCHEDULE "${schedule}" "auto;cpu-free;host-controlled"
                         "auto;cpu-free;host-controlled")
  if(schedule STREQUAL "host-controlled" AND NOT target STREQUAL "cuda")
    message(FATAL_ERROR "${function}: SCHEDULE host-controlled needs TARGET cuda (the host target has one schedule)")
  endif()
endfunction()

# A one-value keyword given without its value is a mistake, not a request for the default.
function(_stencilc_check_values function keywords missing)
  foreach(keyword IN LISTS keywords)
    if(keyword IN_LIST missing)
      message(FATAL_ERROR "${function}: ${keyword} needs a value")
    endif()
  endforeach()
endfunction()

# One NVSHMEM install directory pair, if it has what the nvshmem backend links.
function(_stencilc_nvshmem_at include lib out_var)
  set(${out_var} FALSE PARENT_SCOPE)
  if(NOT EXISTS "${include}/nvshmem.h" OR NOT EXISTS "${lib}/libnvshmem_device.a")
    return()
  endif()
  foreach(name libnvshmem_host.so libnvshmem_host.so.3)
    if(EXISTS "${lib}/${name}")
      set(${out_var} "${lib}/${name}" PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

function(stencilc_find_nvshmem)
  if(TARGET stencilc::nvshmem)
    set(STENCILC_NVSHMEM_FOUND TRUE PARENT_SCOPE)
    return()
  endif()
  set(candidates)
  if(NOT NVSHMEM_HOME AND DEFINED ENV{NVSHMEM_HOME})
    set(NVSHMEM_HOME "$ENV{NVSHMEM_HOME}")
  endif()
  if(NVSHMEM_HOME)
    list(APPEND candidates "${NVSHMEM_HOME}")
  else()
    find_program(_stencilc_python NAMES python3 python)
    if(_stencilc_python)
      execute_process(COMMAND "${_stencilc_python}" -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])"
                      OUTPUT_VARIABLE wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
      if(rc EQUAL 0 AND wheel)
        list(APPEND candidates "${wheel}")
      endif()
    endif()
    list(APPEND candidates /usr/local/nvshmem /opt/nvidia/nvshmem)
  endif()
  foreach(dir IN LISTS candidates)
    _stencilc_nvshmem_at("${dir}/include" "${dir}/lib" host)
    if(host)
      add_library(stencilc::nvshmem_host SHARED IMPORTED GLOBAL)
      get_filename_component(soname "${host}" NAME)
      set_target_properties(stencilc::nvshmem_host PROPERTIES IMPORTED_LOCATION "${host}" IMPORTED_SONAME "${soname}"
                            INTERFACE_INCLUDE_DIRECTORIES "${dir}/include")
      add_library(stencilc::nvshmem_device STATIC IMPORTED GLOBAL)
      set_target_properties(stencilc::nvshmem_device PROPERTIES IMPORTED_LOCATION "${dir}/lib/libnvshmem_device.a"
                            INTERFACE_INCLUDE_DIRECTORIES "${dir}/include")
      add_library(stencilc::nvshmem INTERFACE IMPORTED GLOBAL)
      set_target_properties(stencilc::nvshmem PROPERTIES
                            INTERFACE_LINK_LIBRARIES "stencilc::nvshmem_device;stencilc::nvshmem_host")
      set(STENCILC_NVSHMEM_LIBRARY_DIR "${dir}/lib" CACHE INTERNAL "NVSHMEM's libraries (stencilc_find_nvshmem)")
      message(STATUS "stencilc: NVSHMEM in ${dir}")
      set(STENCILC_NVSHMEM_FOUND TRUE PARENT_SCOPE)
      return()
    endif()
  endforeach()
  string(REPLACE ";" ", " tried "${candidates}")
  message(STATUS "stencilc: NVSHMEM not found (looked in: ${tried})")
  set(STENCILC_NVSHMEM_FOUND FALSE PARENT_SCOPE)
endfunction()

function(stencilc_generate out_var)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TARGET;SCHEDULE;BACKEND;TARGET_PROPERTIES;OUTPUT_DIRECTORY" "SOURCES;OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "stencilc_generate: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "stencilc_generate: no SOURCES given")
  endif()
  _stencilc_check_values(stencilc_generate "TARGET;SCHEDULE;BACKEND;TARGET_PROPERTIES;OUTPUT_DIRECTORY"
                         "${arg_KEYWORDS_MISSING_VALUES}")
  if(NOT arg_TARGET)
    set(arg_TARGET host)
  endif()
  _stencilc_check_choice(stencilc_generate TARGET "${arg_TARGET}" "host;cuda" "${_stencilc_available_targets}")
  set(schedule_arg)
  if(arg_SCHEDULE)
    _stencilc_check_schedule(stencilc_generate "${arg_TARGET}" "${arg_SCHEDULE}")
    if(arg_TARGET STREQUAL "cuda")
      set(schedule_arg "--schedule=${arg_SCHEDULE}")
    endif()
  endif()
  set(backend_option)
  if(arg_BACKEND)
    _stencilc_check_choice(stencilc_generate BACKEND "${arg_BACKEND}" "p2p;nvshmem" "p2p;nvshmem")
    if(NOT arg_TARGET STREQUAL "cuda")
      message(FATAL_ERROR "stencilc_generate: BACKEND ${arg_BACKEND} needs TARGET cuda")
    endif()
    set(backend_option "--backend=${arg_BACKEND}")
  endif()
  if(NOT arg_OUTPUT_DIRECTORY)
    set(arg_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  get_filename_component(out_dir "${arg_OUTPUT_DIRECTORY}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")

  # The compile arguments stencilc's front end needs: the target's, then OPTIONS.
  set(compile_args)
  if(arg_TARGET_PROPERTIES)
    set(includes "$<REMOVE_DUPLICATES:$<TARGET_PROPERTY:${arg_TARGET_PROPERTIES},INCLUDE_DIRECTORIES>>")
    set(defines "$<REMOVE_DUPLICATES:$<TARGET_PROPERTY:${arg_TARGET_PROPERTIES},COMPILE_DEFINITIONS>>")
    list(APPEND compile_args "$<$<BOOL:${includes}>:-I$<JOIN:${includes},$<SEMICOLON>-I>>"
                             "$<$<BOOL:${defines}>:-D$<JOIN:${defines},$<SEMICOLON>-D>>")
  endif()
  list(APPEND compile_args ${arg_OPTIONS})

  set(generated)
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(source "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(source_dir "${source}" DIRECTORY)
    get_filename_component(name "${source}" NAME_WLE)
    get_filename_component(source_name "${source}" NAME)
    if(arg_TARGET STREQUAL "cuda")
      set(output "${out_dir}/${name}.stencilc.cu")
      set(emit cuda)
    else()
      set(output "${out_dir}/${name}.stencilc.cpp")
      set(emit cpp)
    endif()
    get_filename_component(output_name "${output}" NAME)
    if(output IN_LIST generated)
      message(FATAL_ERROR "stencilc_generate: two sources named ${name}.* would both generate ${output}; "
                          "give them separate OUTPUT_DIRECTORY")
    endif()
    add_custom_command(
      OUTPUT "${output}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
      COMMAND stencilc::stencilc --target=${arg_TARGET} ${schedule_arg} ${backend_option} --emit=${emit} "${source}" -o "${output}"
              -MD -MF "${output}.d" -- ${compile_args}
      DEPENDS "${source}" stencilc::stencilc
      DEPFILE "${output}.d"
      COMMENT "stencilc: generating ${output_name} from ${source_name}"
      COMMAND_EXPAND_LISTS VERBATIM)
    set_source_files_properties("${output}" PROPERTIES GENERATED TRUE INCLUDE_DIRECTORIES "${source_dir}")
    list(APPEND generated "${output}")
  endforeach()
  set(${out_var} "${generated}" PARENT_SCOPE)
endfunction()

# stencilc_add_executable and stencilc_add_library: <kind> is EXECUTABLE or LIBRARY.
function(_stencilc_add_program kind name)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "TARGET;SCHEDULE;BACKEND" "SOURCES;HEADERS;CUDA_ARCHITECTURES;OPTIONS")
  if(kind STREQUAL "LIBRARY")
    set(fn "stencilc_add_library(${name})")
    set(visibility PUBLIC)
  else()
    set(fn "stencilc_add_executable(${name})")
    set(visibility PRIVATE)
    if(arg_HEADERS)
      message(FATAL_ERROR "${fn}: HEADERS is for stencilc_add_library")
    endif()
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${fn}: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "${fn}: no SOURCES given")
  endif()
  _stencilc_check_values("${fn}" "TARGET;SCHEDULE;BACKEND" "${arg_KEYWORDS_MISSING_VALUES}")
  if(NOT arg_TARGET)
    set(arg_TARGET host)
  endif()
  if(NOT arg_SCHEDULE)
    set(arg_SCHEDULE cpu-free)
  endif()
  if(NOT arg_BACKEND)
    set(arg_BACKEND p2p)
  endif()
  _stencilc_check_choice("${fn}" TARGET "${arg_TARGET}" "host;cuda" "${_stencilc_available_targets}")
  _stencilc_check_schedule("${fn}" "${arg_TARGET}" "${arg_SCHEDULE}")
  _stencilc_check_choice("${fn}" BACKEND "${arg_BACKEND}" "p2p;nvshmem" "p2p;nvshmem")
  if(arg_BACKEND STREQUAL "nvshmem" AND NOT arg_TARGET STREQUAL "cuda")
    message(FATAL_ERROR "${fn}: BACKEND nvshmem needs TARGET cuda (one process per GPU)")
  endif()
  if(arg_BACKEND STREQUAL "nvshmem")
    stencilc_find_nvshmem()
    if(NOT STENCILC_NVSHMEM_FOUND)
      message(FATAL_ERROR "${fn}: BACKEND nvshmem needs NVSHMEM: pip install nvidia-nvshmem-cu13==3.4.5 "
                          "(scripts/install-deps.sh does), or set NVSHMEM_HOME")
    endif()
    # MPI's C API, through whichever of C and C++ the project enabled (FindMPI needs the language).
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    set(mpi_language CXX)
    if("C" IN_LIST languages)
      set(mpi_language C)
    endif()
    if(NOT TARGET MPI::MPI_${mpi_language})
      find_package(MPI COMPONENTS ${mpi_language})
    endif()
    if(NOT TARGET MPI::MPI_${mpi_language})
      message(FATAL_ERROR "${fn}: BACKEND nvshmem needs MPI (Debian: apt-get install libopenmpi-dev)")
    endif()
  endif()
  if(arg_TARGET STREQUAL "cuda")
    if(NOT CMAKE_CUDA_COMPILER)
      message(FATAL_ERROR "${fn}: TARGET cuda needs the CUDA language: call enable_language(CUDA) first")
    endif()
    if(NOT arg_CUDA_ARCHITECTURES)
      set(arg_CUDA_ARCHITECTURES 90)  # Hopper: H100, H200
    endif()
  elseif(arg_CUDA_ARCHITECTURES)
    message(AUTHOR_WARNING "${fn}: CUDA_ARCHITECTURES is ignored for TARGET ${arg_TARGET}")
  endif()

  if(kind STREQUAL "LIBRARY")
    add_library(${name} STATIC)
    # The headers that declare what the library offers: their directories are the library's
    # public include directories, for the application that links it.
    set(header_dirs)
    foreach(header IN LISTS arg_HEADERS)
      get_filename_component(header "${header}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      get_filename_component(dir "${header}" DIRECTORY)
      list(APPEND header_dirs "${dir}")
      target_sources(${name} PRIVATE "${header}")
    endforeach()
    list(REMOVE_DUPLICATES header_dirs)
    if(header_dirs)
      target_include_directories(${name} PUBLIC "$<BUILD_INTERFACE:${header_dirs}>")
    endif()
  else()
    add_executable(${name})
  endif()
  # Without a build type CMake passes no -O flag; stencilc's code is meant to run optimized.
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(NOT multi_config AND NOT CMAKE_BUILD_TYPE)
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-O2> $<$<COMPILE_LANGUAGE:CUDA>:-O3>)
  endif()
  set(backend_args)
  if(arg_TARGET STREQUAL "cuda")
    set(backend_args BACKEND ${arg_BACKEND})
  endif()
  stencilc_generate(generated SOURCES ${arg_SOURCES} TARGET ${arg_TARGET} SCHEDULE ${arg_SCHEDULE} ${backend_args} TARGET_PROPERTIES ${name}
                    OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/stencilc/${name}" OPTIONS ${arg_OPTIONS})
  target_sources(${name} PRIVATE ${generated})
  # compiled.hpp comes with the user header; the runtime brings its own headers and Threads.
  target_link_libraries(${name} ${visibility} stencilc::runtime_host stencilc::headers)
  if(arg_TARGET STREQUAL "cuda")
    # One persistent cooperative kernel per GPU (the p2p backend drives every GPU of the node).
    target_link_libraries(${name} ${visibility} stencilc::runtime_cuda)
    set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${arg_CUDA_ARCHITECTURES}" CUDA_STANDARD 17)
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
  endif()
  if(arg_BACKEND STREQUAL "nvshmem")
    # The generated files are compiled twice (docs/RUNTIME-CUDA.md, "Two units"): as the program,
    # and, with relocatable device code and STENCILC_NVSHMEM_DEVICE_UNIT, into a static library of
    # the kernels that make NVSHMEM's device calls, device-linked there with NVSHMEM's device
    # library.
    set(device_unit ${name}_nvshmem_device)
    add_library(${device_unit} STATIC ${generated})
    target_compile_definitions(${device_unit} PRIVATE STENCILC_NVSHMEM_DEVICE_UNIT)
    target_link_libraries(${device_unit} PRIVATE stencilc::runtime_host stencilc::headers stencilc::runtime_cuda
                                                 stencilc::nvshmem MPI::MPI_${mpi_language})
    set_target_properties(${device_unit} PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_RESOLVE_DEVICE_SYMBOLS ON
                          CUDA_ARCHITECTURES "${arg_CUDA_ARCHITECTURES}" CUDA_STANDARD 17 POSITION_INDEPENDENT_CODE ON)
    target_compile_options(${device_unit} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
    if(NOT multi_config AND NOT CMAKE_BUILD_TYPE)
      target_compile_options(${device_unit} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-O3>)
    endif()
    set_target_properties(${name} PROPERTIES BUILD_RPATH "${STENCILC_NVSHMEM_LIBRARY_DIR}"
                          INSTALL_RPATH "${STENCILC_NVSHMEM_LIBRARY_DIR}")
    target_link_libraries(${name} ${visibility} ${device_unit} stencilc::nvshmem_host MPI::MPI_${mpi_language})
  endif()
  set_target_properties(${name} PROPERTIES STENCILC_GENERATED_SOURCES "${generated}")
endfunction()

function(stencilc_add_executable name)
  _stencilc_add_program(EXECUTABLE ${ARGV})
endfunction()

function(stencilc_add_library name)
  _stencilc_add_program(LIBRARY ${ARGV})
endfunction()

function(stencilc_add_reference_executable name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "stencilc_add_reference_executable(${name}): unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "stencilc_add_reference_executable(${name}): no SOURCES given")
  endif()
  add_executable(${name} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE stencilc::headers)
endfunction()

# The comparison tool of tests/e2e (stencilc-compare): stencilcConfig.cmake sets it to the
# installed one; stencilc's own build uses the sources.
if(NOT STENCILC_COMPARE_TOOL)
  set(STENCILC_COMPARE_TOOL "${CMAKE_CURRENT_LIST_DIR}/../tools/stencilc-compare/stencilc-compare.py")
endif()

function(stencilc_add_reference_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "COMPILED;REFERENCE;TIMEOUT" "PES;ARGS;ENV")
  set(fn "stencilc_add_reference_test(${name})")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${fn}: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_COMPILED OR NOT arg_REFERENCE)
    message(FATAL_ERROR "${fn}: needs COMPILED <target> and REFERENCE <target>")
  endif()
  if(NOT arg_PES)
    set(arg_PES 1 2 3 4)
  endif()
  if(NOT arg_ARGS)
    set(arg_ARGS "")  # one run with no arguments
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  string(REPLACE ";" "," pes "${arg_PES}")
  set(command "${STENCILC_COMPARE_TOOL}" --exe "$<TARGET_FILE:${arg_COMPILED}>"
              --reference "$<TARGET_FILE:${arg_REFERENCE}>" --workdir "${CMAKE_CURRENT_BINARY_DIR}/${name}"
              --pes "${pes}")
  if(arg_ARGS STREQUAL "")
    list(APPEND command "--args=")
  else()
    foreach(args IN LISTS arg_ARGS)
      list(APPEND command "--args=${args}")
    endforeach()
  endif()
  foreach(env IN LISTS arg_ENV)
    list(APPEND command "--env=${env}")
  endforeach()
  add_test(NAME ${name} COMMAND ${command})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${arg_TIMEOUT})
endfunction()
