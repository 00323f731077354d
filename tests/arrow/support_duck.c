/* DuckDB through dlopen (support_duck.h). */
#include "support_duck.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

#ifndef CF_DUCKDB_LIB
#define CF_DUCKDB_LIB "libduckdb.so"
#endif

static void *sym(duck *d, const char *name)
{
    void *p = dlsym(d->lib, name);
    if (p == NULL)
        fail_msg("libduckdb has no %s", name);
    return p;
}

void duck_start(duck *d)
{
    memset(d, 0, sizeof *d);
    d->lib = dlopen(CF_DUCKDB_LIB, RTLD_NOW | RTLD_LOCAL);
    if (d->lib == NULL)
        fail_msg("cannot load DuckDB (%s): %s; ./test installs it (tools/duckdb/README.md)",
                 CF_DUCKDB_LIB, dlerror());
    *(void **)&d->open = sym(d, "duckdb_open");
    *(void **)&d->close = sym(d, "duckdb_close");
    *(void **)&d->connect = sym(d, "duckdb_connect");
    *(void **)&d->disconnect = sym(d, "duckdb_disconnect");
    *(void **)&d->query = sym(d, "duckdb_query");
    *(void **)&d->destroy_result = sym(d, "duckdb_destroy_result");
    *(void **)&d->result_error = sym(d, "duckdb_result_error");
    *(void **)&d->row_count = sym(d, "duckdb_row_count");
    *(void **)&d->is_null = sym(d, "duckdb_value_is_null");
    *(void **)&d->get_int64 = sym(d, "duckdb_value_int64");
    *(void **)&d->get_uint64 = sym(d, "duckdb_value_uint64");
    *(void **)&d->get_float = sym(d, "duckdb_value_float");
    *(void **)&d->get_double = sym(d, "duckdb_value_double");
    *(void **)&d->get_bool = sym(d, "duckdb_value_boolean");
    *(void **)&d->get_decimal = sym(d, "duckdb_value_decimal");
    *(void **)&d->get_blob = sym(d, "duckdb_value_blob");
    *(void **)&d->get_string = sym(d, "duckdb_value_string");
    *(void **)&d->get_date = sym(d, "duckdb_value_date");
    *(void **)&d->get_timestamp = sym(d, "duckdb_value_timestamp");
    *(void **)&d->free = sym(d, "duckdb_free");
    *(void **)&d->arrow_scan = sym(d, "duckdb_arrow_scan");
    assert_int_equal(d->open(NULL, &d->db), 0);
    assert_int_equal(d->connect(d->db, &d->conn), 0);
    duck_exec(d, "SET threads TO 1");
}

void duck_stop(duck *d)
{
    if (d->conn)
        d->disconnect(&d->conn);
    if (d->db)
        d->close(&d->db);
    /* libduckdb stays loaded: unloading C++ libraries at exit is fragile. */
}

bool duck_query(duck *d, const char *sql, duck_result *res, char *why, size_t cap)
{
    memset(res, 0, sizeof *res);
    if (d->query(d->conn, sql, res) == 0)
        return true;
    const char *e = d->result_error(res);
    snprintf(why, cap, "%s", e ? e : "(no message)");
    d->destroy_result(res);
    return false;
}

void duck_exec(duck *d, const char *sql)
{
    duck_result r;
    char why[1024];
    if (!duck_query(d, sql, &r, why, sizeof why))
        fail_msg("duckdb: %s: %s", sql, why);
    d->destroy_result(&r);
}

/* DuckDB's C entry point keeps the schemas it asks for without releasing every
 * one; this wrapper hands out schemas whose top-level release does nothing and
 * releases the real ones itself afterwards, so the test leaks nothing. */
typedef struct wrap {
    struct ArrowArrayStream *inner;
    struct ArrowSchema held[32];
    int nheld;
} wrap;

static void noop_release(struct ArrowSchema *s)
{
    s->release = NULL;
}

static int w_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    wrap *w = s->private_data;
    if (w->nheld == 32)
        return 12; /* ENOMEM: far more than DuckDB asks for */
    int rc = w->inner->get_schema(w->inner, out);
    if (rc == 0) {
        w->held[w->nheld++] = *out;
        out->release = noop_release;
    }
    return rc;
}

static int w_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    wrap *w = s->private_data;
    return w->inner->get_next(w->inner, out);
}

static const char *w_get_last_error(struct ArrowArrayStream *s)
{
    wrap *w = s->private_data;
    return w->inner->get_last_error(w->inner);
}

static void w_release(struct ArrowArrayStream *s)
{
    s->release = NULL;
}

bool duck_load(duck *d, struct ArrowArrayStream *s, const char *table, char *why, size_t cap)
{
    wrap w = {.inner = s};
    struct ArrowArrayStream pub = {w_get_schema, w_get_next, w_get_last_error, w_release, &w};
    bool ok = d->arrow_scan(d->conn, "cf_arrow_scan_view", &pub) == 0;
    if (!ok)
        snprintf(why, cap, "duckdb_arrow_scan refused the stream");
    char sql[256];
    if (ok) {
        snprintf(sql, sizeof sql, "CREATE TABLE %s AS SELECT * FROM cf_arrow_scan_view", table);
        duck_result r;
        ok = duck_query(d, sql, &r, why, cap);
        if (ok)
            d->destroy_result(&r);
        duck_exec(d, "DROP VIEW IF EXISTS cf_arrow_scan_view");
    }
    for (int i = 0; i < w.nheld; i++)
        if (w.held[i].release)
            w.held[i].release(&w.held[i]);
    s->release(s);
    return ok;
}
