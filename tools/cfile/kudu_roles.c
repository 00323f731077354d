/* Block roles from the superblocks (kudu_roles.h), as Kudu's `kudu fs list` finds
 * them (src/kudu/tools/tool_action_fs.cc: it walks each tablet's rowsets and their
 * column, bloom, ad-hoc index, REDO and UNDO blocks). */
#include "kudu_roles.h"

#include <stdlib.h>
#include <string.h>

static int role_cmp(const void *a, const void *b)
{
    const cf_kudu_role *x = a, *y = b;
    if (x->block_id != y->block_id)
        return x->block_id < y->block_id ? -1 : 1;
    int t = strcmp(x->tablet_id, y->tablet_id);
    if (t != 0)
        return t;
    return x->rowset_id < y->rowset_id ? -1 : x->rowset_id > y->rowset_id;
}

static bool push(cf_kudu_roles *r, size_t *cap, const cf_kudu_role *role)
{
    if (r->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 256;
        cf_kudu_role *p = realloc(r->v, ncap * sizeof *p);
        if (p == NULL)
            return false;
        r->v = p;
        *cap = ncap;
    }
    r->v[r->n++] = *role;
    return true;
}

/* The name of the schema column whose Kudu column id is `id`, or NULL. */
static const char *column_name(const cf_kudu_tablet *t, uint32_t id)
{
    const cf_schema *s = cf_kudu_tablet_schema(t);
    if (s == NULL)
        return NULL;
    size_t n = cf_schema_column_count(s);
    for (size_t i = 0; i < n; i++)
        if (cf_kudu_tablet_column_id(t, i) == id)
            return cf_schema_column_at(s, i)->name;
    return NULL;
}

static bool add_tablet(cf_kudu_roles *r, size_t *cap, const cf_kudu_tablet *t)
{
    cf_kudu_role base = {
        .tablet_id = cf_kudu_tablet_id(t),
        .table_name = cf_kudu_tablet_table_name(t),
        .delta_index = -1,
    };
    size_t nrs = cf_kudu_tablet_rowset_count(t);
    for (size_t i = 0; i < nrs; i++) {
        const cf_kudu_rowset *rs = cf_kudu_tablet_rowset_at(t, i);
        cf_kudu_role x = base;
        x.rowset_id = rs->id;
        for (size_t k = 0; k < rs->ncolumns; k++) {
            x.block_id = rs->column_blocks[k];
            x.kind = CF_KUDU_BLOCK_COLUMN;
            x.column = column_name(t, rs->column_ids[k]);
            if (!push(r, cap, &x))
                return false;
        }
        x.column = NULL;
        if (rs->has_bloom) {
            x.block_id = rs->bloom_block;
            x.kind = CF_KUDU_BLOCK_BLOOM;
            if (!push(r, cap, &x))
                return false;
        }
        if (rs->has_adhoc_index) {
            x.block_id = rs->adhoc_index_block;
            x.kind = CF_KUDU_BLOCK_ADHOC_INDEX;
            if (!push(r, cap, &x))
                return false;
        }
        for (size_t k = 0; k < rs->nundo; k++) {
            x.block_id = rs->undo_blocks[k];
            x.kind = CF_KUDU_BLOCK_UNDO;
            x.delta_index = (int64_t)k;
            if (!push(r, cap, &x))
                return false;
        }
        for (size_t k = 0; k < rs->nredo; k++) {
            x.block_id = rs->redo_blocks[k];
            x.kind = CF_KUDU_BLOCK_REDO;
            x.delta_index = (int64_t)k;
            if (!push(r, cap, &x))
                return false;
        }
    }
    return true;
}

int cf_kudu_roles_load(cf_cli *c, const cf_kudu_fs *fs, cf_kudu_roles *r)
{
    memset(r, 0, sizeof *r);
    size_t nt = cf_kudu_fs_tablet_count(fs), cap = 0;
    if (nt > 0) {
        r->tablets = calloc(nt, sizeof *r->tablets);
        r->failed = calloc(nt, sizeof *r->failed);
        if (r->tablets == NULL || r->failed == NULL)
            return cf_cli_fail(c, "out of memory");
    }
    for (size_t i = 0; i < nt; i++) {
        const char *id = cf_kudu_fs_tablet_at(fs, i);
        cf_error e = {0};
        cf_kudu_tablet *t = NULL;
        cf_status st = cf_kudu_tablet_open(&t, fs, id, &e);
        if (st == CF_ENOMEM)
            return cf_cli_lib_fail(c, id, st, &e);
        if (st != CF_OK) {
            cf_kudu_role_failure *f = &r->failed[r->nfailed++];
            f->tablet_id = id;
            f->st = st;
            snprintf(f->msg, sizeof f->msg, "%s", e.msg[0] ? e.msg : cf_status_str(st));
            continue;
        }
        r->tablets[r->ntablets++] = t;
        if (!add_tablet(r, &cap, t))
            return cf_cli_fail(c, "out of memory");
    }
    if (r->n > 1)
        qsort(r->v, r->n, sizeof *r->v, role_cmp);
    return 0;
}

void cf_kudu_roles_free(cf_kudu_roles *r)
{
    for (size_t i = 0; i < r->ntablets; i++)
        cf_kudu_tablet_free(r->tablets[i]);
    free(r->tablets);
    free(r->failed);
    free(r->v);
    memset(r, 0, sizeof *r);
}

static int id_cmp(const void *key, const void *elem)
{
    uint64_t id = *(const uint64_t *)key, b = ((const cf_kudu_role *)elem)->block_id;
    return id < b ? -1 : id > b;
}

const cf_kudu_role *cf_kudu_roles_find(const cf_kudu_roles *r, uint64_t id, size_t *count)
{
    /* libc's bsearch finds one of the block's roles; sorted by block id, the
     * others (a block has a handful at most) are its neighbours. */
    const cf_kudu_role *p = r->n > 0 ? bsearch(&id, r->v, r->n, sizeof *r->v, id_cmp) : NULL;
    size_t n = 0;
    if (p != NULL) {
        while (p > r->v && p[-1].block_id == id)
            p--;
        while (p + n < r->v + r->n && p[n].block_id == id)
            n++;
    }
    if (count != NULL)
        *count = n;
    return p;
}
