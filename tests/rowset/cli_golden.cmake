cmake_minimum_required(VERSION 3.25)
# CLI contract for `cfile table` (issue 9, item 5): the exact command forms run on
# the small CSVs in tests/rowset/cli/, each step's exit status, stdout and stderr
# compared byte for byte with tests/rowset/cli/expected/<NN>-<name>.txt.
# Steps run in order in WORK (so table directories and CSV names are relative and
# the outputs hold no temporary paths); timestamps are the tool's logical ones,
# and the only wall-clock figure ("in 0.02 s" after an import) is normalised.
# Run as: cmake -DCFILE=... -DDATA=tests/rowset/cli -DWORK=... [-DUPDATE=ON] -P cli_golden.cmake
# UPDATE=ON rewrites the expected files from what the tool prints (review the diff!).

set(work ${WORK}/rowset_cli_golden)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})
foreach(csv people.csv regions.csv unsorted.csv arrays.csv arrays-unsorted.csv)
  file(COPY ${DATA}/${csv} DESTINATION ${work})
endforeach()

set(failures 0)

# step(NAME ARGS...): run `cfile table ARGS...` and compare with expected/NAME.txt.
function(step name)
  set(args ${ARGN})
  execute_process(COMMAND ${CFILE} table ${args} WORKING_DIRECTORY ${work}
                  OUTPUT_VARIABLE out ERROR_VARIABLE errout RESULT_VARIABLE rc)
  string(REGEX REPLACE " in [0-9]+\\.[0-9]+ s\n" " in T s\n" out "${out}")
  # The command line as a shell would take it: quote words with spaces or quotes.
  set(line "$ cfile table")
  foreach(a IN LISTS args)
    if(a MATCHES "[ \"',]")
      string(REPLACE "'" "'\\''" a "${a}")
      set(a "'${a}'")
    endif()
    string(APPEND line " ${a}")
  endforeach()
  set(got "${line}\nexit ${rc}\n--- stdout\n${out}--- stderr\n${errout}")
  set(file ${DATA}/expected/${name}.txt)
  if(UPDATE)
    file(WRITE ${file} "${got}")
    return()
  endif()
  if(NOT EXISTS ${file})
    message(SEND_ERROR "${name}: no expected file ${file}")
    return()
  endif()
  file(READ ${file} want)
  if(NOT got STREQUAL want)
    message(SEND_ERROR "${name}: output differs from ${file}\n--- got:\n${got}--- want:\n${want}")
  else()
    message(STATUS "${name}: as expected")
  endif()
endfunction()

set(schema "id INT64 KEY, name STRING NULL, ts UNIXTIME_MICROS")

# Import, then every read form.
step(01-import import people --schema ${schema} people.csv)
step(02-scan scan people)
step(03-scan-json scan people --json)
step(04-scan-columns scan people --columns name,id)
step(05-scan-where scan people --json --where "id >= 2 AND name IS NOT NULL")
step(06-scan-where-null scan people --columns id,name --where "name IS NULL")
step(07-scan-where-string scan people --json --columns id --where "name > b AND id != 8")
step(08-get get people 3)
step(09-get-json get people --json 5 1)
# Mutations at the tool's logical timestamps (insert 1, then 2, 3, ...).
step(10-update update people --key 2 --set "name=dave,ts=1700000000000099")
step(11-delete delete people --key 1)
step(12-scan-after scan people --json)
step(13-scan-as-of-1 scan people --json --as-of 1)
step(14-scan-as-of-2 scan people --json --as-of 2)
step(15-info info people)
step(16-compact compact people)
step(17-info-compacted info people)
step(18-scan-compacted scan people)
step(19-scan-compacted-as-of scan people --json --as-of 2)
# A compound key: KEY arguments join the key columns with commas.
step(20-import-compound import regions --schema "region STRING KEY, id INT32 KEY, v DOUBLE NULL"
     regions.csv)
step(21-get-compound get regions --json eu,2 us,7)
step(22-scan-compound-where scan regions --where "region = us AND id >= 1")
step(23-update-compound update regions --key us,1 --set "v=NULL")
step(24-get-compound-updated get regions us,1)

# Errors: exit status and message.
step(30-bad-schema import bad --schema "id INT64 KEY, name BLOB" people.csv)
step(32-get-missing get people --json 3 4)
step(33-get-deleted get people 1)
step(34-update-missing update people --key 4 --set name=x)
step(35-delete-missing delete people --key 1)
step(36-bad-where scan people --where "bogus = 1")
step(37-bad-key get regions eu)
step(38-bad-set-value update regions --key eu,1 --set "v=")

# New keys: CSV in any order, `insert`, duplicates refused, merged reads.
step(40-import-unsorted import unsorted --schema ${schema} unsorted.csv)
step(41-scan-unsorted scan unsorted --json)
step(42-insert insert people --row "id=4,name=erin,ts=1700000000000004")
step(43-insert-duplicate insert people --row "id=3,name=x,ts=1")
step(44-scan-inserted scan people --json)
step(45-info-rowsets info people)

# Array columns: cells set by update in the JSON value forms scan prints (NULL or
# null for a NULL element), read at snapshots, carried by a compaction.
step(50-import-arrays import tagged --schema "id INT64 KEY, tags INT32[] NULL, names STRING[] NULL"
     arrays.csv)
step(51-update-array update tagged --key 1 --set "tags=[1,2,NULL]")
step(52-update-arrays update tagged --key 2 --set "tags=[],names=[\"x\",null,\"y,z\"]")
step(53-update-array-null update tagged --key 3 --set "tags=NULL")
step(54-scan-arrays scan tagged --json)
step(55-scan-arrays-as-of scan tagged --json --as-of 2)
step(56-compact-arrays compact tagged)
step(57-scan-arrays-compacted scan tagged --json)
step(58-get-arrays get tagged --json 2 3)
step(59-bad-array-value update tagged --key 1 --set "tags=[1,x]")
step(60-insert-array insert tagged --row "id=9,tags=[1]")
step(61-scan-arrays-inserted scan tagged --json)
step(62-import-arrays-unsorted import tagged2
     --schema "id INT64 KEY, tags INT32[] NULL, names STRING[] NULL" arrays-unsorted.csv)
step(63-scan-arrays-unsorted scan tagged2 --json)

# Threads (default auto) change nothing in what a scan prints; a bad count is usage.
step(64-scan-one-thread scan people --json --threads 1)
step(65-scan-four-threads scan tagged --json --threads 4 --where "id >= 2")
step(66-bad-threads scan people --threads 0)

# A failed import leaves nothing that opens as a table.
if(EXISTS ${work}/bad/MANIFEST)
  message(SEND_ERROR "a failed import left a MANIFEST behind")
endif()
