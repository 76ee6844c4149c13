# cmake -P helper for the build's generated documents: runs EXE with ARGS
# (a ;-list) and writes its stdout to OUT, and, with GZ set, a reproducible
# gzip -9n of it to GZ (Debian policy for man pages). A failure fails the build.
# Written to a temporary file first, so a failed run leaves no half page.
execute_process(COMMAND ${EXE} ${ARGS} OUTPUT_FILE "${OUT}.tmp" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}.tmp")
  message(FATAL_ERROR "${EXE} ${ARGS}: exit ${rc}")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
if(GZ)
  execute_process(COMMAND gzip -9n -c "${OUT}" OUTPUT_FILE "${GZ}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip ${OUT}: exit ${rc}")
  endif()
endif()
