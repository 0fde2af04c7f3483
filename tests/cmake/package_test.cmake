# The steps of tests/cmake (see CMakeLists.txt there), one per ctest test:
#   install      cmake --install the build into WORK_DIR/staged, move it to WORK_DIR/prefix (the
#                package must not depend on where it was installed), check its files, and that
#                the installed stencilc finds the installed headers.
#   consumer     configure, build and test a copy of examples/cmake-consumer against the prefix
#                (stencilc_add_executable, stencilc_add_library, `stencilc -c`, and
#                stencilc_add_reference_test with the installed stencilc-compare); a no-op
#                rebuild must not run stencilc, a rebuild after editing params.hpp must; without
#                a build type the generated code still compiles with -O2.
#   unavailable  stencilc_add_executable must refuse combinations it cannot build: SCHEDULE
#                host-controlled or BACKEND nvshmem without TARGET cuda.
# cmake -DSTEP=<step> -DSTENCILC_BINARY_DIR= -DSTENCILC_SOURCE_DIR= -DWORK_DIR= -DCONFIG=
#       -DGENERATOR= -DMAKE_PROGRAM= -DCXX= -P package_test.cmake
cmake_minimum_required(VERSION 3.20)

set(prefix "${WORK_DIR}/prefix")
set(package_dir "${prefix}/lib/cmake/stencilc")
set(generate_line "stencilc: generating heat2d.stencilc.cpp from heat2d.cpp")

# run(<what> [EXPECT_FAILURE] [OUTPUT <var>] [ENV <name=value>...] COMMAND <command>...)
function(run what)
  cmake_parse_arguments(PARSE_ARGV 1 arg "EXPECT_FAILURE" "OUTPUT" "ENV;COMMAND")
  message(STATUS "${what}: ${arg_COMMAND}")
  if(arg_ENV)
    list(PREPEND arg_COMMAND ${CMAKE_COMMAND} -E env ${arg_ENV})
  endif()
  execute_process(COMMAND ${arg_COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(arg_EXPECT_FAILURE AND rc EQUAL 0)
    message(FATAL_ERROR "${what}: succeeded, but should have failed:\n${out}")
  elseif(NOT arg_EXPECT_FAILURE AND NOT rc EQUAL 0)
    message(FATAL_ERROR "${what}: failed (${rc}):\n${out}")
  endif()
  if(arg_OUTPUT)
    set(${arg_OUTPUT} "${out}" PARENT_SCOPE)
  endif()
endfunction()

# configure(<what> <source-dir> <build-dir> [EXPECT_FAILURE] [DEFINES -D...]): its output in
# configure_output.
function(configure what source build)
  cmake_parse_arguments(PARSE_ARGV 3 arg "EXPECT_FAILURE;NO_BUILD_TYPE" "" "DEFINES")
  set(generator_args -G "${GENERATOR}")
  if(MAKE_PROGRAM)
    list(APPEND generator_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
  endif()
  set(build_type ${CONFIG})
  if(NOT build_type)
    set(build_type Release)
  endif()
  set(build_type_arg -DCMAKE_BUILD_TYPE=${build_type})
  if(arg_NO_BUILD_TYPE)
    set(build_type_arg)
  endif()
  set(expect)
  if(arg_EXPECT_FAILURE)
    set(expect EXPECT_FAILURE)
  endif()
  run("${what}" ${expect} OUTPUT out
      COMMAND ${CMAKE_COMMAND} -S "${source}" -B "${build}" ${generator_args} "-DCMAKE_CXX_COMPILER=${CXX}"
              ${build_type_arg} "-Dstencilc_DIR=${package_dir}" ${arg_DEFINES})
  set(configure_output "${out}" PARENT_SCOPE)
endfunction()

# A path as a regular expression that matches just it.
function(regex_escape out_var text)
  string(REGEX REPLACE "([][+.*?()^$|\\])" "\\\\\\1" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

function(expect_match what text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected to match '${regex}':\n${text}")
  endif()
endfunction()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE "${WORK_DIR}/staged" "${prefix}")
  set(config_args)
  if(CONFIG)
    set(config_args --config ${CONFIG})
  endif()
  run("install" COMMAND ${CMAKE_COMMAND} --install "${STENCILC_BINARY_DIR}" --prefix "${WORK_DIR}/staged" ${config_args})
  file(RENAME "${WORK_DIR}/staged" "${prefix}")
  regex_escape(prefix_re "${prefix}")
  foreach(file bin/stencilc bin/stencilc-compare include/stencilc/stencilc.hpp include/stencilc/compiled.hpp
               include/stencilc/detail/grid.hpp include/stencilc/runtime/host.hpp include/stencilc/runtime/halo.hpp
               lib/cmake/stencilc/stencilcConfig.cmake lib/cmake/stencilc/stencilcConfigVersion.cmake
               lib/cmake/stencilc/stencilcTargets.cmake lib/cmake/stencilc/stencilcFunctions.cmake)
    if(NOT EXISTS "${prefix}/${file}")
      message(FATAL_ERROR "the install has no ${file}")
    endif()
  endforeach()

  # Driver mode with a host compiler that only records its arguments: the installed stencilc
  # must compile against the installed headers, not against the sources it was built from.
  set(fake_cxx "${WORK_DIR}/record-cxx.sh")
  file(WRITE "${fake_cxx}" "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"${WORK_DIR}/cxx-args.txt\"\n")
  file(CHMOD "${fake_cxx}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  set(example "${STENCILC_SOURCE_DIR}/examples/cmake-consumer/heat2d.cpp")
  run("installed stencilc, driver mode" ENV "CXX=${fake_cxx}"
      COMMAND "${prefix}/bin/stencilc" --target=host "${example}" -o "${WORK_DIR}/heat2d" -MD -MF "${WORK_DIR}/heat2d.d")
  file(READ "${WORK_DIR}/cxx-args.txt" cxx_args)
  string(REPLACE "\n" " " cxx_args "${cxx_args}")
  expect_match("host compiler arguments" "${cxx_args}" "-I ${prefix_re}/bin/\\.\\./include -I ${prefix_re}/bin/\\.\\./include ")
  # The front end's header, seen through the depfile.
  file(READ "${WORK_DIR}/heat2d.d" depfile)
  expect_match("depfile" "${depfile}" "^[^:]*/heat2d:")
  expect_match("depfile" "${depfile}" "${prefix_re}/bin/\\.\\./include/stencilc/stencilc\\.hpp")
  expect_match("depfile" "${depfile}" "examples/cmake-consumer/params\\.hpp")
  string(FIND "${depfile}" "${STENCILC_SOURCE_DIR}/include/" in_sources)
  if(NOT in_sources EQUAL -1)
    message(FATAL_ERROR "the installed stencilc read the headers in the source tree:\n${depfile}")
  endif()

elseif(STEP STREQUAL "consumer")
  set(source "${WORK_DIR}/consumer-src")
  set(build "${WORK_DIR}/consumer-build")
  file(REMOVE_RECURSE "${source}" "${build}")
  file(COPY "${STENCILC_SOURCE_DIR}/examples/cmake-consumer/" DESTINATION "${source}")
  configure("configure the consumer" "${source}" "${build}")
  run("build the consumer" OUTPUT out COMMAND ${CMAKE_COMMAND} --build "${build}" --parallel 2)
  expect_match("first build" "${out}" "${generate_line}")
  expect_match("first build" "${out}" "stencilc -c: compiling plate\\.o from plate\\.cpp")
  expect_match("first build" "${out}" "stencilc: generating plate\\.stencilc\\.cpp from plate\\.cpp")
  # The CUDA build (where nvcc is) names the file it writes.
  if(out MATCHES "stencilc\\.cuda ")
    message(FATAL_ERROR "a generation step names a .cuda file; stencilc writes .stencilc.cu:\n${out}")
  endif()
  if(EXISTS "${build}/stencilc/heat2d_cuda")
    expect_match("first build (CUDA)" "${out}" "stencilc: generating heat2d\\.stencilc\\.cu from heat2d\\.cpp")
  endif()
  run("the consumer's tests" OUTPUT out COMMAND ${CMAKE_CTEST_COMMAND} --test-dir "${build}" --output-on-failure)
  expect_match("the consumer's tests" "${out}" "100% tests passed")
  # The application with its stencil library and with `stencilc -c`'s object, against its reference.
  expect_match("the consumer's tests" "${out}" "plate\\.library \\.+ +Passed")
  expect_match("the consumer's tests" "${out}" "plate\\.object \\.+ +Passed")

  set(generated "${build}/stencilc/heat2d/heat2d.stencilc.cpp")
  file(READ "${generated}.d" depfile)
  regex_escape(source_re "${source}")
  expect_match("the generated code's depfile" "${depfile}" "${source_re}/params\\.hpp")

  run("rebuild, nothing changed" OUTPUT out COMMAND ${CMAKE_COMMAND} --build "${build}" --parallel 2)
  if(out MATCHES "${generate_line}")
    message(FATAL_ERROR "a rebuild with nothing changed ran stencilc again:\n${out}")
  endif()

  # Edit the header heat2d.cpp includes: stencilc must run again, and both builds see it (the
  # host target's and the reference's: the CUDA targets would only build their kernels again).
  file(READ "${source}/params.hpp" params)
  string(REPLACE "kSteps = 200;" "kSteps = 150;" edited "${params}")
  if(edited STREQUAL params)
    message(FATAL_ERROR "params.hpp has no 'kSteps = 200;' to edit")
  endif()
  file(TIMESTAMP "${generated}" before "%s")
  execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
  file(WRITE "${source}/params.hpp" "${edited}")
  run("rebuild after editing params.hpp" OUTPUT out
      COMMAND ${CMAKE_COMMAND} --build "${build}" --parallel 2 --target heat2d heat2d_reference)
  expect_match("rebuild after editing params.hpp" "${out}" "${generate_line}")
  file(TIMESTAMP "${generated}" after "%s")
  if(NOT after GREATER before)
    message(FATAL_ERROR "${generated} was not rewritten (modified at ${after}, before the edit ${before})")
  endif()
  run("the consumer's tests after the edit" OUTPUT out
      COMMAND ${CMAKE_CTEST_COMMAND} --test-dir "${build}" --output-on-failure -R heat2d.default)
  run("heat2d after the edit" OUTPUT out COMMAND "${build}/heat2d" --stencilc-pes=2)
  expect_match("heat2d after the edit" "${out}" "steps=150 ")

  # Without a build type CMake adds no -O flag: the functions give stencilc's code one.
  set(plain "${WORK_DIR}/consumer-no-build-type")
  file(REMOVE_RECURSE "${plain}")
  configure("configure the consumer without a build type" "${source}" "${plain}" NO_BUILD_TYPE)
  run("build heat2d without a build type" OUTPUT out
      COMMAND ${CMAKE_COMMAND} --build "${plain}" --target heat2d --verbose)
  expect_match("the compile of heat2d.stencilc.cpp without a build type" "${out}"
               "[^\n]* -O2 [^\n]*heat2d\\.stencilc\\.cpp")

elseif(STEP STREQUAL "unavailable")
  # Combinations that make no sense: the host target has one schedule, and the nvshmem backend
  # runs one process per GPU (it needs TARGET cuda).
  foreach(case "SCHEDULE host-controlled|needs TARGET cuda \\(the host target has one schedule\\)"
               "BACKEND nvshmem|needs TARGET cuda")
    string(REPLACE "|" ";" parts "${case}")
    list(GET parts 0 setting)
    list(GET parts 1 expected)
    string(REPLACE " " ";" option "${setting}")
    string(REPLACE " " "-" name "${setting}")
    configure("stencilc_add_executable(... ${setting})" "${STENCILC_SOURCE_DIR}/tests/cmake/unavailable"
              "${WORK_DIR}/unavailable-${name}" EXPECT_FAILURE "DEFINES" "-DUNAVAILABLE_OPTION=${option}")
    string(REGEX REPLACE "[ \n]+" " " message "${configure_output}")  # CMake wraps long messages
    expect_match("stencilc_add_executable(... ${setting})" "${message}"
                 "stencilc_add_executable\\(prog\\): ${setting} ${expected}")
  endforeach()
else()
  message(FATAL_ERROR "package_test.cmake: unknown STEP '${STEP}'")
endif()
