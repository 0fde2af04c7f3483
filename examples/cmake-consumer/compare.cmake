# Runs the stencilc build and the reference build of heat2d on PES PEs with ARGS and fails unless
# both succeed and print the same line.
#   cmake -DCOMPILED=<exe> -DREFERENCE=<exe> -DPES=<n> [-DARGS=<a;b;c>] -P compare.cmake
foreach(var COMPILED REFERENCE PES)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "compare.cmake: -D${var}=... is missing")
  endif()
endforeach()

foreach(build IN ITEMS COMPILED REFERENCE)
  execute_process(COMMAND "${${build}}" ${ARGS} --stencilc-pes=${PES}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out_${build} ERROR_VARIABLE err TIMEOUT 50)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${${build}} ${ARGS} --stencilc-pes=${PES} failed (${rc}):\n${out_${build}}${err}")
  endif()
endforeach()

if(NOT out_COMPILED MATCHES "^heat2d ")
  message(FATAL_ERROR "unexpected output from ${COMPILED}:\n${out_COMPILED}")
endif()
if(NOT out_COMPILED STREQUAL out_REFERENCE)
  message(FATAL_ERROR "the outputs differ\n  stencilc:  ${out_COMPILED}  reference: ${out_REFERENCE}")
endif()
message(STATUS "${PES} PEs, same as the reference: ${out_COMPILED}")
