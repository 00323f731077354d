/* Keys in a table: the encoded key of an op, which rowsets' key ranges may
 * hold it, a point read (cf_table_get), and where a load's key lives
 * (cf_table_key_state). Reads only: this file must not change a store.
 */
#include <string.h>

#include "table_internal.h"

cf_status cf_tbl_encode_key(cf_table *t, const void *const *key, cf_error *err)
{
    const cf_schema *s = cf_table_schema(t);
    cf_buf_clear(&t->key);
    for (size_t k = 0; k < s->nkeys; k++)
        cf_rs_key_append(&t->key, s, k, key[k]);
    CF_CHECK(!t->key.oom, err, CF_ENOMEM, "table: out of memory");
    return CF_OK;
}

/* May rowset i hold the encoded key in t->key (its min/max key range covers it)? */
bool cf_tbl_covers(const cf_table *t, size_t i)
{
    return cf_rs_covers_key(t->rs[i], t->key.data, t->key.len);
}

cf_status cf_rs_table_get(cf_table *t, const void *const *key, uint64_t snapshot, cf_row_batch *out,
                          cf_error *err)
{
    memset(out, 0, sizeof(*out));
    CF_TRY(cf_rs_check_snapshot(snapshot, cf_table_ahm(t), err));
    const cf_schema *s = cf_table_schema(t);
    CF_TRY(cf_tbl_encode_key(t, key, err));
    cf_mrs_row *r = cf_mrs_find(t->mrs, t->key.data, t->key.len);
    if (r != NULL) {
        bool visible;
        CF_TRY(cf_mrs_row_at(t->mrs, r, snapshot, t->cells, &visible, err));
        CF_CHECK(visible, err, CF_ENOTFOUND, "key not found (deleted)");
        for (size_t c = 0; c < s->ncols; c++) {
            memset(&t->gcols[c], 0, sizeof(t->gcols[c]));
            t->gcols[c].count = 1;
            t->gcols[c].values = t->cells[c].slot;
            t->gnn[c] = t->cells[c].nonnull;
            if (s->cols[c].is_array) {
                /* the serialized cell, as flattened elements */
                cf_slice cell;
                memcpy(&cell, t->cells[c].slot, sizeof(cell));
                cf_buf_clear(&t->gvals[c]);
                cf_buf_clear(&t->genn[c]);
                size_t ne = 0;
                uint32_t k = 0;
                if (t->cells[c].nonnull)
                    CF_TRY(cf_rs_cell_to_flat(cell, s->cols[c].type, &t->gvals[c], &t->genn[c], &ne,
                                              &k, err));
                t->goffs[2 * c] = 0;
                t->goffs[2 * c + 1] = k;
                t->gcols[c].values = t->gvals[c].data;
                t->gcols[c].elem_offsets = &t->goffs[2 * c];
                t->gcols[c].elem_count = k;
                t->gcols[c].elem_nonnull = t->genn[c].data;
            }
            t->gcols[c].nonnull = s->cols[c].nullable ? &t->gnn[c] : NULL;
        }
        static const uint64_t zero = 0;
        out->count = 1;
        out->ncols = s->ncols;
        out->cols = t->gcols;
        out->ords = &zero;
        return CF_OK;
    }
    bool tried = false;
    for (size_t i = 0; i < t->nrs; i++) {
        if (!cf_tbl_covers(t, i))
            continue;
        cf_status st = cf_rowset_get(t->rs[i], key, snapshot, out, err);
        if (st != CF_ENOTFOUND)
            return st;
        tried = true;
    }
    if (tried)
        return CF_ENOTFOUND;
    CF_FAIL(err, CF_ENOTFOUND, "key not found");
}

cf_status cf_rs_table_key_state(cf_table *t, const uint8_t *key, size_t len,
                                const void *const *keyvals, int *state, const char **where,
                                size_t *store, cf_error *err)
{
    *state = 0;
    *where = NULL;
    *store = CF_TABLE_STORE_MRS;
    cf_mrs_row *r = cf_mrs_find(t->mrs, key, len);
    if (r != NULL) {
        *state = cf_mrs_row_alive(r) ? 1 : 2;
        *where = "the MemRowSet";
        return CF_OK;
    }
    for (size_t i = 0; i < t->nrs; i++) {
        if (!cf_rs_covers_key(t->rs[i], key, len))
            continue;
        uint64_t ord;
        bool pruned;
        cf_status st = cf_rs_probe_key(t->rs[i], key, len, &ord, &pruned, err);
        if (st == CF_ENOTFOUND)
            continue;
        CF_TRY(st);
        cf_row_batch b;
        st = cf_rowset_get(t->rs[i], keyvals, CF_SNAPSHOT_LATEST, &b, err);
        if (st != CF_OK && st != CF_ENOTFOUND)
            return st;
        *state = st == CF_OK ? 1 : 2;
        *where = t->names[i];
        *store = i;
        return CF_OK;
    }
    return CF_OK;
}
