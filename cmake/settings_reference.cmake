# docs/settings.md against `esmio --settings-help`, the reference made from the settings table.
# Usage: cmake -DESMIO=<the esmio command> -DDOC=<docs/settings.md> [-DUPDATE=ON] -P THIS
# With UPDATE the file is written; without, the script fails (naming the fix) where they differ.
execute_process(COMMAND ${ESMIO} --settings-help OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${ESMIO} --settings-help failed: ${rc}")
endif()
if(UPDATE)
  file(WRITE ${DOC} "${generated}")
  return()
endif()
if(NOT EXISTS ${DOC})
  message(FATAL_ERROR "${DOC} is missing: cmake --build <build> --target settings-doc writes it")
endif()
file(READ ${DOC} written)
if(NOT "${written}" STREQUAL "${generated}")
  set(fresh ${CMAKE_CURRENT_BINARY_DIR}/settings.md.generated)
  file(WRITE ${fresh} "${generated}")
  execute_process(COMMAND diff -u ${DOC} ${fresh})
  message(FATAL_ERROR "${DOC} differs from `esmio --settings-help` (the settings table): "
                      "cmake --build <build> --target settings-doc rewrites it")
endif()
message(STATUS "${DOC} is the text of `esmio --settings-help`")
