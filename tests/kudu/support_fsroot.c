/* cf-needs: tables */
/* Shared helpers of the fs and LBM tests (support_fsroot.h). */
#include "support_fsroot.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

#include "kudufs/lbm_writer.h"

const char *const kfs_layouts[KFS_NLAYOUTS] = {"fbm-small-s4", "lbm-basic-s1", "lbm-compound-s2",
                                               "lbm-onedir-s3"};

void kfs_open_tablet(const char *root, const char *tablet, cf_kudu_fs **fs, cf_kudu_tablet **t)
{
    cf_kudu_fs_options o;
    cf_kudu_fs_options_init(&o);
    o.wal_dir = root;
    cf_error err;
    CF_ASSERT_OK(cf_kudu_fs_open(fs, &o, &err), &err);
    CF_ASSERT_OK(cf_kudu_tablet_open(t, *fs, tablet, &err), &err);
}

bool kfs_scan_next(cf_kudu_scanner *sc, cf_row_batch *b, cf_status *st, cf_error *err)
{
    if (*st != CF_OK)
        return false;
    *st = cf_kudu_scanner_next(sc, b, err);
    return *st == CF_OK && b->count > 0;
}

bool kfs_scan_next_ok(cf_kudu_scanner *sc, cf_row_batch *b)
{
    cf_error err;
    CF_ASSERT_OK(cf_kudu_scanner_next(sc, b, &err), &err);
    return b->count > 0;
}

void kfs_layout_path(char *out, size_t cap, const char *layout, const char *rel)
{
    int n = snprintf(out, cap, "%s/kudu-fs/%s/%s", cf_test_shared_dir(), layout, rel);
    assert_true(n > 0 && (size_t)n < cap);
}

void kfs_layout_load(kfs_layout *l, const char *name)
{
    memset(l, 0, sizeof *l);
    int n = snprintf(l->dir, sizeof l->dir, "%s/kudu-fs/%s", cf_test_shared_dir(), name);
    assert_true(n > 0 && (size_t)n < sizeof l->dir);
    kfs_expected(l, "fs.json", &l->fsj);
    const cf_json *w = cf_json_get(&l->fsj.root, "wal_root");
    const cf_json *d = cf_json_get(&l->fsj.root, "data_roots");
    assert_non_null(w);
    assert_non_null(d);
    snprintf(l->wal, sizeof l->wal, "%s/%s", l->dir, w->str);
    assert_true(d->n <= 8);
    for (size_t i = 0; i < d->n; i++) {
        snprintf(l->data[i], sizeof l->data[i], "%s/%s", l->dir, d->items[i].str);
        l->data_ptrs[i] = l->data[i];
    }
    l->ndata = d->n;
}

void kfs_layout_dispose(kfs_layout *l)
{
    cf_json_doc_dispose(&l->fsj);
}

cf_status kfs_layout_open(const kfs_layout *l, cf_kudu_fs **fs, cf_error *err)
{
    cf_kudu_fs_options o;
    cf_kudu_fs_options_init(&o);
    o.wal_dir = l->wal;
    o.data_dirs = l->data_ptrs;
    o.ndata_dirs = l->ndata;
    return cf_kudu_fs_open(fs, &o, err);
}

void kfs_expected(const kfs_layout *l, const char *name, cf_json_doc *doc)
{
    char p[1200], msg[256];
    snprintf(p, sizeof p, "%s/expected/%s", l->dir, name);
    if (cf_json_parse_file(doc, p, msg, sizeof msg) != 0)
        fail_msg("%s: %s", p, msg);
}

int64_t kfs_int(const cf_json *obj, const char *key)
{
    const cf_json *v = cf_json_get(obj, key);
    assert_non_null(v);
    assert_int_equal(v->kind, CF_JSON_NUMBER);
    return strtoll(v->str, NULL, 10);
}

void kfs_tmpdir(char *out, size_t cap)
{
    const char *t = getenv("TMPDIR");
    int n = snprintf(out, cap, "%s/cf-kudu-fs-XXXXXX", t != NULL && t[0] ? t : "/tmp");
    assert_true(n > 0 && (size_t)n < cap);
    assert_non_null(mkdtemp(out));
}

void kfs_scratch_new(kfs_scratch *s, const char *dir_type, const char *server_key)
{
    kfs_tmpdir(s->tmp, sizeof s->tmp);
    snprintf(s->root, sizeof s->root, "%s/r", s->tmp);
    snprintf(s->data, sizeof s->data, "%s/data", s->root);
    kfs_single_root(s->root, dir_type, server_key);
}

cf_kudu_root_spec kfs_root_spec(const char *root, const char *dir_type, const char *const *all)
{
    return (cf_kudu_root_spec){
        .root = root,
        .server_uuid = "fedcba9876543210fedcba9876543210",
        .server_key = NULL,
        .wal = true,
        .data = true,
        .dir_uuid = all[0],
        .all_uuids = all,
        .nall = 1,
        .dir_type = dir_type,
        .fs_block_size = 4096,
    };
}

void kfs_single_root(const char *root, const char *dir_type, const char *server_key)
{
    static const char *const all[] = {"0123456789abcdef0123456789abcdef"};
    cf_kudu_root_spec s = kfs_root_spec(root, dir_type, all);
    s.server_key = server_key;
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_root_write(&s, &e), &e);
}

void kfs_superblock_spec(cf_kudu_superblock_spec *sp, const char *tablet, const char *table_name,
                         const cf_schema *sch, const uint32_t *ids)
{
    cf_kudu_superblock_spec_init(sp);
    sp->tablet_id = tablet;
    sp->table_id = "fedcba9876543210fedcba9876543210";
    sp->table_name = table_name;
    sp->schema = sch;
    sp->column_ids = ids;
}

void kfs_superblock_write(const char *root, const cf_kudu_superblock_spec *sp)
{
    char p[1200];
    int n = snprintf(p, sizeof p, "%s/tablet-meta/%s", root, sp->tablet_id);
    assert_true(n > 0 && (size_t)n < sizeof p);
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_superblock_write(p, sp, &e), &e);
}

const cf_kudu_problem *kfs_problem(const cf_kudu_fs *fs, const char *needle)
{
    for (size_t i = 0; i < cf_kudu_fs_problem_count(fs); i++) {
        const cf_kudu_problem *p = cf_kudu_fs_problem_at(fs, i);
        if (strstr(p->what, needle) != NULL)
            return p;
    }
    return NULL;
}

static bool int_text(const cf_json *v, long long *out)
{
    if (v->kind == CF_JSON_NUMBER && cf_json_is_integer(v)) {
        *out = strtoll(v->str, NULL, 10);
        return true;
    }
    if (v->kind == CF_JSON_STRING && v->len > 0) {
        char *end;
        *out = strtoll(v->str, &end, 10);
        return *end == '\0';
    }
    return false;
}

bool kudu_json_equal_as(const cf_json *a, const cf_json *b, bool floats)
{
    long long x, y;
    if (int_text(a, &x) && int_text(b, &y))
        return x == y;
    if (a->kind != b->kind || a->n != b->n)
        return false;
    if (a->kind == CF_JSON_NUMBER) {
        double p = strtod(a->str, NULL), q = strtod(b->str, NULL);
        return p == q || (floats && (float)p == (float)q);
    }
    if (a->kind == CF_JSON_STRING)
        return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    /* arrays item by item; objects member by member, looked up by key in b */
    for (size_t i = 0; i < a->n; i++) {
        bool arr = a->kind == CF_JSON_ARRAY;
        const cf_json *av = arr ? &a->items[i] : &a->members[i].value;
        const cf_json *bv = arr ? &b->items[i] : cf_json_get(b, a->members[i].key);
        if (bv == NULL || !kudu_json_equal_as(av, bv, floats))
            return false;
    }
    return true;
}

bool kudu_json_equal(const cf_json *a, const cf_json *b)
{
    return kudu_json_equal_as(a, b, true);
}
