/* DuckDB (libduckdb.so from npm, tools/duckdb/README.md) driven through dlopen for
 * the Arrow stream tests: a few entry points of its C API, declared here because
 * the npm package ships no header. */
#ifndef CF_TEST_SUPPORT_DUCK_H
#define CF_TEST_SUPPORT_DUCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/arrow.h>

typedef uint64_t duck_idx;
/* duckdb_result: a fixed public layout, only ever passed by address. */
typedef struct duck_result {
    duck_idx column_count, row_count, rows_changed;
    void *columns;
    char *error;
    void *internal;
} duck_result;
typedef struct duck_hugeint {
    uint64_t lower;
    int64_t upper;
} duck_hugeint;
typedef struct duck_decimal {
    uint8_t width, scale;
    duck_hugeint value;
} duck_decimal;
typedef struct duck_blob {
    void *data;
    duck_idx size;
} duck_blob;
typedef struct duck_string {
    char *data;
    duck_idx size;
} duck_string;
typedef struct duck_date {
    int32_t days;
} duck_date;
typedef struct duck_timestamp {
    int64_t micros;
} duck_timestamp;

typedef struct duck {
    void *lib;
    void *db, *conn;
    int (*open)(const char *, void **);
    void (*close)(void **);
    int (*connect)(void *, void **);
    void (*disconnect)(void **);
    int (*query)(void *, const char *, duck_result *);
    void (*destroy_result)(duck_result *);
    const char *(*result_error)(duck_result *);
    duck_idx (*row_count)(duck_result *);
    bool (*is_null)(duck_result *, duck_idx, duck_idx);
    int64_t (*get_int64)(duck_result *, duck_idx, duck_idx);
    uint64_t (*get_uint64)(duck_result *, duck_idx, duck_idx);
    float (*get_float)(duck_result *, duck_idx, duck_idx);
    double (*get_double)(duck_result *, duck_idx, duck_idx);
    bool (*get_bool)(duck_result *, duck_idx, duck_idx);
    duck_decimal (*get_decimal)(duck_result *, duck_idx, duck_idx);
    duck_blob (*get_blob)(duck_result *, duck_idx, duck_idx);
    duck_string (*get_string)(duck_result *, duck_idx, duck_idx);
    duck_date (*get_date)(duck_result *, duck_idx, duck_idx);
    duck_timestamp (*get_timestamp)(duck_result *, duck_idx, duck_idx);
    void (*free)(void *);
    int (*arrow_scan)(void *, const char *, void *);
} duck;

/* dlopen libduckdb (CF_DUCKDB_DIR) and open an in-memory database with one
 * thread (so a scan keeps the stream's row order). Fails the test if missing. */
void duck_start(duck *d);
void duck_stop(duck *d);
/* Run sql; fails the test when DuckDB refuses it. */
void duck_exec(duck *d, const char *sql);
/* Run sql into res; false (and the error copied to why) when DuckDB refuses it. */
bool duck_query(duck *d, const char *sql, duck_result *res, char *why, size_t cap);
/* Scan the stream through DuckDB's Arrow stream scan into a new table `table`
 * (CREATE TABLE ... AS SELECT * FROM the scan). The stream is released.
 * false with DuckDB's error in why when the scan fails. */
bool duck_load(duck *d, struct ArrowArrayStream *s, const char *table, char *why, size_t cap);

#endif
