cmake_minimum_required(VERSION 3.25)
# CLI contract for the golden bloom cases (../shared/golden/README.md "Bloom cases"):
# `cfile bloom write KEYS.txt OUT ARGS...` writes Kudu's bytes, and
# `cfile bloom probe --json FILE KEY...` gives Kudu's answers; `cfile info` says
# BloomFile. Run as: cmake -DCFILE=... -DGOLDEN=... -DWORK=... -P cli_golden.cmake
foreach(case bloom-100keys-4096b bloom-20000keys-512b-multiblock)
  set(dir ${GOLDEN}/${case})
  file(READ ${dir}/probes.json probes_json)
  string(JSON nargs LENGTH "${probes_json}" args)
  set(args "")
  math(EXPR last "${nargs} - 1")
  foreach(i RANGE ${last})
    string(JSON a GET "${probes_json}" args ${i})
    list(APPEND args ${a})
  endforeach()
  set(out ${WORK}/${case}.cfile)
  file(REMOVE ${out})
  execute_process(COMMAND ${CFILE} bloom write ${dir}/keys.txt ${out} ${args} OUTPUT_QUIET
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${case}: bloom write failed (${rc})")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${out} ${dir}/${case}.cfile
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${case}: bytes differ from Kudu's file")
  endif()

  string(JSON want GET "${probes_json}" probes)
  string(JSON nprobes LENGTH "${probes_json}" probes)
  set(keys "")
  math(EXPR last "${nprobes} - 1")
  foreach(i RANGE ${last})
    string(JSON k GET "${probes_json}" probes ${i} key)
    list(APPEND keys ${k})
  endforeach()
  set(hex "")
  if("--hex" IN_LIST args)
    set(hex --hex)
  endif()
  execute_process(COMMAND ${CFILE} bloom probe --json ${hex} ${dir}/${case}.cfile ${keys}
                  OUTPUT_VARIABLE got RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${case}: bloom probe failed (${rc})")
  endif()
  string(JSON same EQUAL "${got}" "${want}")
  if(NOT same)
    message(FATAL_ERROR "${case}: probe answers differ from Kudu's:\n${got}")
  endif()

  execute_process(COMMAND ${CFILE} info --json ${dir}/${case}.cfile OUTPUT_VARIABLE info
                  RESULT_VARIABLE rc)
  string(JSON kind GET "${info}" kind)
  if(NOT rc EQUAL 0 OR NOT kind STREQUAL "BloomFile")
    message(FATAL_ERROR "${case}: info says kind '${kind}' (${rc})")
  endif()
  message(STATUS "${case}: bytes identical, ${nprobes} probes as Kudu")
endforeach()

# Bad input: keys out of order is a clear failure (exit 1), bad options are usage (2).
file(WRITE ${WORK}/unsorted.txt "b\na\n")
execute_process(COMMAND ${CFILE} bloom write ${WORK}/unsorted.txt ${WORK}/unsorted.cfile
                ERROR_VARIABLE msg RESULT_VARIABLE rc)
if(NOT rc EQUAL 1 OR NOT msg MATCHES "unsorted.txt:2: .*sorted order")
  message(FATAL_ERROR "unsorted keys: exit ${rc}, '${msg}'")
endif()
if(EXISTS ${WORK}/unsorted.cfile)
  message(FATAL_ERROR "unsorted keys: a file was left behind")
endif()
execute_process(COMMAND ${CFILE} bloom write --fp-rate 1.5 ${WORK}/unsorted.txt ${WORK}/x.cfile
                ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "--fp-rate 1.5: exit ${rc}, want 2")
endif()
# Hex keys round trip: write with --hex, probe with --hex.
file(WRITE ${WORK}/hex.txt "00ff\n0100\n01ff02\n")
execute_process(COMMAND ${CFILE} bloom write --hex ${WORK}/hex.txt ${WORK}/hex.cfile RESULT_VARIABLE rc
                OUTPUT_QUIET)
execute_process(COMMAND ${CFILE} bloom probe --json --hex ${WORK}/hex.cfile 00ff 0100 01ff02 00
                OUTPUT_VARIABLE got RESULT_VARIABLE rc2)
string(JSON same EQUAL "${got}" [=[[{"key":"00ff","maybe_present":true},{"key":"0100","maybe_present":true},{"key":"01ff02","maybe_present":true},{"key":"00","maybe_present":false}]]=])
if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0 OR NOT same)
  message(FATAL_ERROR "hex keys: ${rc} ${rc2} ${got}")
endif()
