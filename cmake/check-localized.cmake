# check-localized.cmake - run by the static build after `ld -r` + `objcopy --localize-hidden`:
#   cmake -DREADELF=readelf -DOBJECT=actq_static.o -P check-localized.cmake
# Fails when the object still defines a hidden symbol that is not local (objcopy leaves
# e.g. STB_GNU_UNIQUE ones alone): such a symbol would be visible to a static user.
execute_process(COMMAND ${READELF} -sW ${OBJECT} OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check-localized: ${READELF} -sW ${OBJECT} failed")
endif()
string(REPLACE "\n" ";" lines "${syms}")
set(left "")
foreach(line IN LISTS lines)
  if(line MATCHES "^ *[0-9]+: [0-9a-f]+ +[0-9]+ +[A-Z_]+ +(GLOBAL|WEAK|UNIQUE) +(HIDDEN|INTERNAL) +([0-9]+|ABS|COM) +(.+)$")
    list(APPEND left "${CMAKE_MATCH_1} ${CMAKE_MATCH_4}")
  endif()
endforeach()
if(left)
  list(JOIN left "\n  " shown)
  message(FATAL_ERROR "check-localized: ${OBJECT} still defines hidden non-local symbols:\n  ${shown}")
endif()
