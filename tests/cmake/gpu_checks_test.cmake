# tests/gpu as a project of its own (a GPU machine without LLVM): configured on CUDA generated
# elsewhere (-DSTENCILC_GPU_GEN), it lists the gpu tests but gpu.generate; without the folder it
# stops with a message naming the variable. Runs nothing on a GPU.
#   cmake -DSTENCILC_SOURCE_DIR=... -DWORK_DIR=... -P gpu_checks_test.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/gen")
file(WRITE "${WORK_DIR}/gen/jacobi2d.cu" "// stands for tests/gpu/generate.sh's output\n")

execute_process(COMMAND ${CMAKE_COMMAND} -S "${STENCILC_SOURCE_DIR}/tests/gpu" -B "${WORK_DIR}/build"
                        "-DSTENCILC_GPU_GEN=${WORK_DIR}/gen"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring tests/gpu on its own failed:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir "${WORK_DIR}/build" -N -L gpu
                RESULT_VARIABLE rc OUTPUT_VARIABLE listed ERROR_VARIABLE listed)
foreach(test gpu.samples.jacobi2d gpu.samples.cg2d gpu.samples.spmd_ring gpu.samples.several_walks
             gpu.regs_contract gpu.runtime_checks gpu.runtime)
  if(NOT listed MATCHES "${test}")
    message(FATAL_ERROR "ctest -L gpu does not list ${test}:\n${listed}")
  endif()
endforeach()
if(listed MATCHES "gpu.generate")
  message(FATAL_ERROR "gpu.generate listed though the CUDA was generated elsewhere:\n${listed}")
endif()
# Each sample's check reads the given folder, for its sample alone.
file(READ "${WORK_DIR}/build/CTestTestfile.cmake" testfile)
string(FIND "${testfile}" "SAMPLES=cg2d\" \"bash\" \"${STENCILC_SOURCE_DIR}/tests/gpu/run_generated.sh\" \"${WORK_DIR}/gen\"" at)  # a path, not a regex
if(at EQUAL -1)
  message(FATAL_ERROR "gpu.samples.cg2d does not check cg2d in ${WORK_DIR}/gen:\n${testfile}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -S "${STENCILC_SOURCE_DIR}/tests/gpu" -B "${WORK_DIR}/bare"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0 OR NOT out MATCHES "STENCILC_GPU_GEN=DIR")
  message(FATAL_ERROR "tests/gpu on its own without STENCILC_GPU_GEN: expected an error naming it, got (${rc}):\n${out}")
endif()
message(STATUS "tests/gpu on its own: configured on ${WORK_DIR}/gen, refused without it")
