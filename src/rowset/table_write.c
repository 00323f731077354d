/* The write operations of a table (insert, update, delete, sync): each is
 * checked, its log record built and room for it reserved, then applied in
 * memory to the store holding its key, then appended to the log (and by
 * default synced) before it returns success. The apply_* functions are shared
 * with log replay (table_replay.c). This file must not flush, compact or write
 * TABLET: a flush due before or after an op is table_flush.c's, the segment
 * record table_walneed.c's.
 */
#include <inttypes.h>
#include <string.h>

#include "table_internal.h"

static cf_status check_ts(const cf_table *t, uint64_t ts, cf_error *err)
{
    CF_TRY(cf_rs_check_ts_range(ts, err));
    CF_CHECK(ts > t->last_ts && ts != CF_SNAPSHOT_LATEST, err, CF_EINVAL,
             "timestamp %" PRIu64 " is not after the last one (%" PRIu64 ")", ts, t->last_ts);
    return CF_OK;
}

cf_status cf_rs_rcl_add_value(cf_rcl_builder *b, const cf_column *c, size_t col, const void *value,
                              cf_error *err)
{
    if (value == NULL) {
        CF_CHECK(c->nullable, err, CF_EINVAL, "column '%s' cannot be NULL", c->name);
        return cf_rcl_builder_add(b, (uint32_t)col, NULL, 0, err);
    }
    if (c->is_array)
        return cf_rs_rcl_add_cell(b, (uint32_t)col, c, value, err);
    if (cf_type_is_binary(c->type)) {
        cf_slice s;
        memcpy(&s, value, sizeof(s));
        return cf_rcl_builder_add(b, (uint32_t)col, s.data ? s.data : (const uint8_t *)"", s.len,
                                  err);
    }
    return cf_rcl_builder_add(b, (uint32_t)col, value, cf_type_size(c->type), err);
}

static cf_status add_value(cf_table *t, size_t col, const void *value, cf_error *err)
{
    return cf_rs_rcl_add_value(t->rcl, &cf_table_schema(t)->cols[col], col, value, err);
}

void cf_tbl_set_last_ts(cf_table *t, uint64_t ts)
{
    if (ts > t->last_ts)
        t->last_ts = ts;
}

cf_status cf_tbl_usable(const cf_table *t, cf_error *err)
{
    return cf_sticky_replay(&t->sticky, "table", err);
}

/* t->lop.key := the key columns of `key` as an UPDATE change list. */
static cf_status log_key(cf_table *t, const void *const *key, cf_error *err)
{
    const cf_schema *s = cf_table_schema(t);
    cf_rcl_builder_reset(t->lkey, CF_RCL_UPDATE);
    for (size_t k = 0; k < s->nkeys; k++)
        CF_TRY(cf_rs_rcl_add_value(t->lkey, &s->cols[k], k, key[k], err));
    t->lop.key = cf_rcl_builder_bytes(t->lkey);
    return CF_OK;
}

static cf_status log_done(cf_table *t, uint8_t type, uint64_t ts, cf_error *err)
{
    t->lop.type = type;
    t->lop.ts = ts;
    t->lop.rcl = cf_rcl_builder_bytes(t->lrcl);
    /* checked before the op is applied: a refused append must not leave memory
     * ahead of the log (batch framing takes well under 64 bytes) */
    CF_CHECK(t->lop.key.len + t->lop.rcl.len <= CF_WAL_MAX_RECORD - 64, err, CF_EINVAL,
             "operation of %zu bytes is larger than a log record may be (%u)",
             t->lop.key.len + t->lop.rcl.len, CF_WAL_MAX_RECORD - 64);
    /* the TABLET names the segment this op goes to before the op can be
     * acknowledged ("the log segment the table needs") */
    if (t->wal != NULL && t->wal_need.seq != cf_wal_seq(t->wal))
        CF_TRY(cf_tbl_wal_record(t, err));
    /* the room to log it, taken now: out of memory refuses the op, where
     * after applying it the handle could only give up (memory ahead of the
     * log, its reads showing an op that failed) */
    return t->wal != NULL ? cf_wal_reserve(t->wal, &t->lop, 1, err) : CF_OK;
}

/* Append t->lop, the op just applied in memory. A failure makes the handle
 * unusable: memory is ahead of the log. */
static cf_status log_commit(cf_table *t, cf_error *err)
{
    t->lop.flags = t->lop_mrs ? CF_WAL_OP_MRS : 0;
    cf_status st = t->wal != NULL ? cf_wal_append(t->wal, &t->lop, 1, err) : CF_OK;
    if (st != CF_OK) {
        cf_error_prefix(err, st, "the operation was not logged (reopen the table): ");
        return cf_sticky_set(&t->sticky, st, err);
    }
    cf_tbl_flush_after(t);
    return CF_OK;
}

/* Route an insert of a key no live row has (t->key holds it encoded). */
cf_status cf_tbl_apply_insert(cf_table *t, const void *const *values, uint64_t ts, cf_error *err)
{
    const cf_schema *s = cf_table_schema(t);
    cf_mrs_row *r = cf_mrs_find(t->mrs, t->key.data, t->key.len);
    if (r != NULL) {
        CF_CHECK(!cf_mrs_row_alive(r), err, CF_EINVAL, "insert: duplicate key");
        cf_rcl_builder_reset(t->rcl, CF_RCL_REINSERT);
        for (size_t c = s->nkeys; c < s->ncols; c++)
            CF_TRY(add_value(t, c, values[c], err));
        CF_TRY(cf_mrs_mutate(t->mrs, r, cf_rcl_builder_bytes(t->rcl), ts, err));
        cf_tbl_set_last_ts(t, ts);
        t->lop_mrs = true;
        return CF_OK;
    }
    t->lop_mrs = false;
    for (size_t i = 0; i < t->nrs; i++) {
        if (!cf_tbl_covers(t, i))
            continue;
        cf_rowset_info info;
        cf_rowset_get_info(t->rs[i], &info);
        /* Such a rowset answers CF_ENOTSUP for every key: that must not read as
         * "not here", or a duplicate could reach the MemRowSet. */
        CF_CHECK(info.rows <= UINT32_MAX, err, CF_ENOTSUP,
                 "insert: rowset %s is too large to take deltas", t->names[i]);
        cf_error e2;
        cf_status st = cf_rowset_reinsert(t->rs[i], values, values, ts, &e2);
        if (st == CF_ENOTSUP)
            continue; /* not in this rowset */
        if (st == CF_EINVAL)
            CF_FAIL(err, CF_EINVAL, "insert: duplicate key");
        if (st != CF_OK) {
            if (err != NULL)
                *err = e2;
            return st;
        }
        cf_tbl_set_last_ts(t, ts);
        return CF_OK;
    }
    CF_TRY(cf_mrs_insert(t->mrs, t->key.data, t->key.len, values, ts, err));
    cf_tbl_set_last_ts(t, ts);
    t->lop_mrs = true;
    return CF_OK;
}

/* Apply an RCL change to a live MemRowSet row. */
static cf_status mutate_mrs(cf_table *t, cf_mrs_row *r, cf_slice change, uint64_t ts,
                            const char *what, cf_error *err)
{
    CF_CHECK(cf_mrs_row_alive(r), err, CF_ENOTFOUND, "%s: key not found (deleted)", what);
    CF_TRY(cf_mrs_mutate(t->mrs, r, change, ts, err));
    cf_tbl_set_last_ts(t, ts);
    t->lop_mrs = true;
    return CF_OK;
}

/* An update (del false) or delete of a key the MemRowSet does not hold: to the
 * first rowset whose key range covers it and that holds it. */
static cf_status mutate_rowsets(cf_table *t, const void *const *key, bool del,
                                const cf_column_change *changes, size_t n, uint64_t ts,
                                cf_error *err)
{
    t->lop_mrs = false;
    bool tried = false; /* then err holds the rowset's own message */
    for (size_t i = 0; i < t->nrs; i++) {
        if (!cf_tbl_covers(t, i))
            continue;
        cf_status st = del ? cf_rowset_delete(t->rs[i], key, ts, err)
                           : cf_rowset_update(t->rs[i], key, changes, n, ts, err);
        if (st == CF_ENOTFOUND) {
            tried = true;
            continue;
        }
        CF_TRY(st);
        cf_tbl_set_last_ts(t, ts);
        return CF_OK;
    }
    if (tried)
        return CF_ENOTFOUND;
    CF_FAIL(err, CF_ENOTFOUND, "key not found");
}

cf_status cf_tbl_apply_update(cf_table *t, const void *const *key, const cf_column_change *changes,
                              size_t n, uint64_t ts, cf_error *err)
{
    cf_mrs_row *r = cf_mrs_find(t->mrs, t->key.data, t->key.len);
    if (r == NULL)
        return mutate_rowsets(t, key, false, changes, n, ts, err);
    cf_rcl_builder_reset(t->rcl, CF_RCL_UPDATE);
    for (size_t i = 0; i < n; i++)
        CF_TRY(add_value(t, changes[i].col, changes[i].value, err));
    return mutate_mrs(t, r, cf_rcl_builder_bytes(t->rcl), ts, "update", err);
}

cf_status cf_tbl_apply_delete(cf_table *t, const void *const *key, uint64_t ts, cf_error *err)
{
    cf_mrs_row *r = cf_mrs_find(t->mrs, t->key.data, t->key.len);
    if (r == NULL)
        return mutate_rowsets(t, key, true, NULL, 0, ts, err);
    static const uint8_t del = CF_RCL_DELETE;
    return mutate_mrs(t, r, (cf_slice){&del, 1}, ts, "delete", err);
}

static cf_status begin_op(cf_table *t, uint64_t ts, cf_error *err)
{
    CF_TRY(cf_tbl_check_writable(t, err));
    CF_TRY(cf_tbl_usable(t, err));
    CF_TRY(cf_tbl_maybe_flush(t, err));
    return check_ts(t, ts, err);
}

cf_status cf_rs_table_insert(cf_table *t, const void *const *values, uint64_t ts, cf_error *err)
{
    const cf_schema *s = cf_table_schema(t);
    CF_TRY(begin_op(t, ts, err));
    for (size_t c = 0; c < s->ncols; c++) {
        CF_CHECK(values[c] != NULL || s->cols[c].nullable, err, CF_EINVAL,
                 "insert: column '%s' cannot be NULL", s->cols[c].name);
    }
    CF_TRY(log_key(t, values, err));
    cf_rcl_builder_reset(t->lrcl, CF_RCL_REINSERT);
    for (size_t c = s->nkeys; c < s->ncols; c++)
        CF_TRY(cf_rs_rcl_add_value(t->lrcl, &s->cols[c], c, values[c], err));
    CF_TRY(log_done(t, CF_WAL_INSERT, ts, err));
    CF_TRY(cf_tbl_encode_key(t, values, err));
    CF_TRY(cf_tbl_apply_insert(t, values, ts, err));
    return log_commit(t, err);
}

cf_status cf_rs_table_update(cf_table *t, const void *const *key, const cf_column_change *changes,
                             size_t n, uint64_t ts, cf_error *err)
{
    const cf_schema *s = cf_table_schema(t);
    CF_TRY(begin_op(t, ts, err));
    CF_CHECK(n > 0, err, CF_EINVAL, "update: no column to set");
    CF_TRY(log_key(t, key, err));
    cf_rcl_builder_reset(t->lrcl, CF_RCL_UPDATE);
    for (size_t i = 0; i < n; i++) {
        size_t c = changes[i].col;
        CF_CHECK(c < s->ncols, err, CF_EINVAL, "update: no column %zu", c);
        CF_CHECK(!s->cols[c].is_key, err, CF_EINVAL, "update: '%s' is a key column",
                 s->cols[c].name);
        CF_TRY(cf_rs_rcl_add_value(t->lrcl, &s->cols[c], c, changes[i].value, err));
    }
    CF_TRY(log_done(t, CF_WAL_UPDATE, ts, err));
    CF_TRY(cf_tbl_encode_key(t, key, err));
    CF_TRY(cf_tbl_apply_update(t, key, changes, n, ts, err));
    return log_commit(t, err);
}

cf_status cf_rs_table_delete(cf_table *t, const void *const *key, uint64_t ts, cf_error *err)
{
    CF_TRY(begin_op(t, ts, err));
    CF_TRY(log_key(t, key, err));
    cf_rcl_builder_reset(t->lrcl, CF_RCL_DELETE);
    CF_TRY(log_done(t, CF_WAL_DELETE, ts, err));
    CF_TRY(cf_tbl_encode_key(t, key, err));
    CF_TRY(cf_tbl_apply_delete(t, key, ts, err));
    return log_commit(t, err);
}

cf_status cf_rs_table_sync(cf_table *t, cf_error *err)
{
    CF_TRY(cf_tbl_usable(t, err));
    return t->wal != NULL ? cf_wal_sync(t->wal, err) : CF_OK;
}
