/* Every column type cfile reads and writes, in Kudu's DataType order: the one
 * list that tests and fuzzers looping over all types share, so that a new type
 * is added in one place (the ids have gaps, hence a list and not a range). */
#ifndef CF_ALL_TYPES_H
#define CF_ALL_TYPES_H

#include <stddef.h>

#include <cfile/types.h>

static const cf_type cf_all_types[] = {
    CF_TYPE_UINT8,     CF_TYPE_INT8,
    CF_TYPE_UINT16,    CF_TYPE_INT16,
    CF_TYPE_UINT32,    CF_TYPE_INT32,
    CF_TYPE_UINT64,    CF_TYPE_INT64,
    CF_TYPE_STRING,    CF_TYPE_BOOL,
    CF_TYPE_FLOAT,     CF_TYPE_DOUBLE,
    CF_TYPE_BINARY,    CF_TYPE_UNIXTIME_MICROS,
    CF_TYPE_INT128,    CF_TYPE_DECIMAL32,
    CF_TYPE_DECIMAL64, CF_TYPE_DECIMAL128,
    CF_TYPE_VARCHAR,   CF_TYPE_DATE,
};
#define CF_NTYPES (sizeof cf_all_types / sizeof cf_all_types[0])

#endif
