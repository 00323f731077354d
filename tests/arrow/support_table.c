/* The Arrow tests' table (support_table.h). */
/* cf-needs: tables */
#include "support_table.h"

#include <cfile/delta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_common.h"

static void insert(cf_table *t, int64_t id, uint64_t ts)
{
    cf_error err;
    char name[32];
    snprintf(name, sizeof name, "name-%lld", (long long)id);
    cf_slice nm = {(const uint8_t *)name, strlen(name)};
    double score = (double)id / 8.0 - 100.0;
    int32_t elems[4] = {(int32_t)id, -(int32_t)id, 7, (int32_t)(id * 3)};
    uint8_t enn = 0x0b; /* element 2 NULL */
    cf_array_cell cell = {CF_TYPE_INT32, (size_t)(id % 5), elems, &enn};
    int64_t price = id * 101 - 50000, at = 1700000000000000 + id * 1000003;
    uint8_t ok = id % 2;
    uint8_t rawb[3] = {0xff, (uint8_t)id, 0x00};
    cf_slice raw = {rawb, (size_t)(id % 4)};
    const void *v[8] = {&id,
                        id % 7 == 3 ? NULL : &nm,
                        id % 11 == 5 ? NULL : &score,
                        id % 6 == 1 ? NULL : &cell,
                        id % 9 == 2 ? NULL : &price,
                        id % 13 == 4 ? NULL : &at,
                        id % 5 == 0 ? NULL : &ok,
                        id % 8 == 7 ? NULL : &raw};
    CF_ASSERT_OK(cf_table_insert(t, v, ts, &err), &err);
}

cf_table *fixture_table(char *dir)
{
    cf_error err;
    snprintf(dir, 256, "/tmp/cf_arrow_test_XXXXXX");
    assert_non_null(mkdtemp(dir));
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s,
                                 "id INT64 KEY, name STRING NULL, score DOUBLE NULL, "
                                 "tags INT32[] NULL, price DECIMAL64(10,2) NULL, "
                                 "at UNIXTIME_MICROS NULL, ok BOOL NULL, raw BINARY NULL",
                                 &err),
                 &err);
    CF_ASSERT_OK(cf_rowset_create_empty(dir, s, &err), &err);
    cf_schema_free(s);
    cf_table *t;
    CF_ASSERT_OK(cf_table_open(&t, dir, NULL, &err), &err);
    cf_table_set_compaction(t, false, 0);
    cf_table_set_sync(t, CF_TABLE_SYNC_NONE, 0);
    /* Interleaved key ranges, so every rowset overlaps the others. */
    uint64_t ts = 2; /* an empty table has last_ts 1 */
    for (uint64_t part = 0; part < 4; part++) {
        for (int64_t id = (int64_t)part; id < FIX_ROWS; id += 4)
            insert(t, id, ts++);
        if (part < 3)
            CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    }
    assert_true(cf_table_rowset_count(t) >= 3);
    assert_true(cf_table_mrs_rows(t) > 0);
    for (int64_t id = 0; id < FIX_ROWS; id += 17) {
        char name[32];
        snprintf(name, sizeof name, "upd-%lld", (long long)id);
        cf_slice nm = {(const uint8_t *)name, strlen(name)};
        double score = -1.5;
        cf_column_change ch[2] = {{1, &nm}, {2, id % 2 ? NULL : &score}};
        const void *key[1] = {&id};
        CF_ASSERT_OK(cf_table_update(t, key, ch, 2, FIX_TS_UPDATE + (uint64_t)id / 17, &err), &err);
    }
    for (int64_t id = 5; id < FIX_ROWS; id += 29) {
        const void *key[1] = {&id};
        CF_ASSERT_OK(cf_table_delete(t, key, FIX_TS_DELETE + (uint64_t)id / 29, &err), &err);
    }
    return t;
}
