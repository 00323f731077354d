/* cf-needs: tables */
/* Tablet scans (src/kudu/scan.c) and the bootstrap decisions behind them
 * (src/kudu/bootstrap.c) over the Kudu-written layouts in shared/kudu-fs:
 *   - every WAL row op's decision equals expected/wal_ops.json's `bootstrap` (what
 *     tablet_bootstrap.cc's FilterOperation decides given the superblock);
 *   - each layout scanned latest, --no-wal and --as-of gives the expected row count
 *     (the values themselves are compared by tests/cli/test_cli_kudu_scan.c);
 *   - the rows do not depend on the batch size (1, 7, 1024);
 *   - projection and predicates give the full scan's rows filtered and projected;
 *   - bad options are refused.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cfile/delta.h>
#include <cfile/io.h>
#include <cfile/kudu.h>
#include <cfile/writer.h>

#include "support_fsroot.h"
#include "support_walgen.h"
#include "test_common.h"

#include "kudufs/lbm_writer.h"
#include "kudu/replay.h"
#include "kudu/tablet.h"
#include "kudu/wal.h"
#include "kudu_log.pb-c.h"
#include "kudu_tablet.pb-c.h"
#include "util/buf.h"

#define MAX_DIRS 8

typedef struct layout {
    char root[512];
    char wal[600];
    char data[MAX_DIRS][600];
    const char *datap[MAX_DIRS];
    size_t ndata;
    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
} layout;

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Open layout `name` (fs/wal + fs/data0, data1, ... in order); false when the
 * shared layouts are not there (the test is then skipped). */
static bool open_root(layout *l, const char *root);

static bool open_layout(layout *l, const char *name)
{
    char root[512];
    snprintf(root, sizeof(root), "%s/kudu-fs/%s", cf_test_shared_dir(), name);
    return open_root(l, root);
}

static bool open_root(layout *l, const char *root)
{
    memset(l, 0, sizeof(*l));
    snprintf(l->root, sizeof(l->root), "%s", root);
    snprintf(l->wal, sizeof(l->wal), "%s/fs/wal", l->root);
    if (!is_dir(l->wal))
        return false;
    for (size_t i = 0; i < MAX_DIRS; i++) {
        char d[sizeof(l->data[0])];
        snprintf(d, sizeof(d), "%s/fs/data%zu", l->root, i);
        if (!is_dir(d))
            break;
        memcpy(l->data[l->ndata], d, sizeof(d));
        l->datap[l->ndata] = l->data[l->ndata];
        l->ndata++;
    }
    cf_kudu_fs_options o;
    cf_kudu_fs_options_init(&o);
    o.wal_dir = l->wal;
    o.data_dirs = l->datap;
    o.ndata_dirs = l->ndata;
    cf_error err;
    CF_ASSERT_OK(cf_kudu_fs_open(&l->fs, &o, &err), &err);
    assert_int_equal(cf_kudu_fs_tablet_count(l->fs), 1);
    CF_ASSERT_OK(cf_kudu_tablet_open(&l->t, l->fs, cf_kudu_fs_tablet_at(l->fs, 0), &err), &err);
    return true;
}

static void close_layout(layout *l)
{
    cf_kudu_tablet_free(l->t);
    cf_kudu_fs_free(l->fs);
}

static char *read_expected(const layout *l, const char *file)
{
    char p[700];
    snprintf(p, sizeof(p), "%s/expected/%s", l->root, file);
    size_t len;
    char *s = (char *)cf_test_read_file(p, &len);
    if (s == NULL)
        return NULL;
    char *z = realloc(s, len + 1);
    assert_non_null(z);
    z[len] = '\0';
    return z;
}

/* fn on each of the shared layouts, opened (closed after); the test is skipped
 * when they are not there. */
static void each_layout(void (*fn)(layout *l, const char *name))
{
    for (size_t i = 0; i < KFS_NLAYOUTS; i++) {
        layout l;
        if (!open_layout(&l, kfs_layouts[i]))
            skip();
        fn(&l, kfs_layouts[i]);
        close_layout(&l);
    }
}

/* Layout `name` opened into l (the test skipped when absent) and its fs/ and
 * expected/ copied into a fresh directory tmp, for a test to damage. */
static void copy_layout(layout *l, const char *name, char tmp[21])
{
    if (!open_layout(l, name))
        skip();
    snprintf(tmp, 21, "/tmp/cf_kscan_XXXXXX");
    assert_non_null(mkdtemp(tmp));
    char cmd[1400];
    snprintf(cmd, sizeof(cmd), "cp -a '%s/fs' '%s/' && cp -a '%s/expected' '%s/'", l->root, tmp,
             l->root, tmp);
    assert_int_equal(system(cmd), 0);
}

/* The rest of sc's batches read (st: its status so far); the final status. */
static cf_status scan_to_end(cf_kudu_scanner *sc, cf_status st, cf_error *err)
{
    cf_row_batch b;
    while (kfs_scan_next(sc, &b, &st, err))
        ;
    return st;
}

/* The number after `"key": ` in a JSON text (the first such member). */
static uint64_t json_u64(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\": ", key);
    const char *p = strstr(text, pat);
    assert_non_null(p);
    return strtoull(p + strlen(pat), NULL, 10);
}

/* ---- rows as bytes, to compare scans ------------------------------------------------------ */

typedef struct bytes {
    uint8_t *p;
    size_t len, cap;
} bytes;

static void put(bytes *b, const void *v, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->len, v, n);
    b->len += n;
}

/* Row r of a batch, columns `cols` of s in batch order. */
static void put_row(bytes *b, const cf_schema *s, const size_t *cols, const cf_row_batch *rb,
                    size_t r)
{
    for (size_t j = 0; j < rb->ncols; j++) {
        const cf_column *c = cf_schema_column_at(s, cols[j]);
        const cf_batch *cb = &rb->cols[j];
        uint8_t nn = cb->nonnull == NULL || (cb->nonnull[r / 8] >> (r % 8)) & 1;
        put(b, &nn, 1);
        if (!nn)
            continue;
        size_t w = cf_type_size(c->type);
        const uint8_t *v = (const uint8_t *)cb->values + r * w;
        if (cf_type_is_binary(c->type)) {
            cf_slice sl;
            memcpy(&sl, v, sizeof(sl));
            uint64_t n = sl.len;
            put(b, &n, sizeof(n));
            put(b, sl.data, sl.len);
        } else {
            put(b, v, w);
        }
    }
}

/* Scan with `o` (cols NULL: every column) into bytes; returns the row count. */
static uint64_t scan_all(const layout *l, const cf_kudu_scan_options *o, bytes *out)
{
    const cf_schema *s = cf_kudu_tablet_schema(l->t);
    size_t all[256];
    for (size_t i = 0; i < cf_schema_column_count(s) && i < 256; i++)
        all[i] = i;
    const size_t *cols = o->cols != NULL ? o->cols : all;
    cf_kudu_scanner *sc;
    cf_error err;
    CF_ASSERT_OK(cf_kudu_scanner_create(&sc, l->t, o, &err), &err);
    uint64_t rows = 0;
    cf_row_batch b;
    while (kfs_scan_next_ok(sc, &b)) {
        assert_true(b.count <= (o->batch_rows ? o->batch_rows : 1024));
        for (size_t r = 0; r < b.count; r++)
            put_row(out, s, cols, &b, r);
        rows += b.count;
    }
    cf_kudu_scanner_free(sc);
    return rows;
}

/* ---- bootstrap decisions -------------------------------------------------------------------- */

typedef struct acts {
    const char *names[8192];
    size_t n;
} acts;

static cf_status collect(void *ctx, const cf_kudu_wal_entry *rep, const cf_kudu_wal_entry *commit,
                         size_t op, cf_kudu_op_action act, cf_error *err)
{
    (void)rep;
    (void)commit;
    (void)op;
    (void)err;
    acts *a = ctx;
    assert_true(a->n < 8192);
    a->names[a->n++] = cf_kudu_op_action_name(act);
    return CF_OK;
}

static void bootstrap_decisions(layout *l, const char *name)
{
    char *want = read_expected(l, "wal_ops.json");
    if (want == NULL)
        return;
    cf_kudu_wal *w;
    cf_error err;
    CF_ASSERT_OK(cf_kudu_wal_open(&w, l->fs, cf_kudu_tablet_id(l->t), &err), &err);
    static acts got;
    got.n = 0;
    CF_ASSERT_OK(cf_kudu_replay_walk(l->t, w, collect, &got, NULL, &err), &err);
    /* Every string of every "bootstrap": [...] array, in file (= WAL) order. */
    size_t k = 0, replay = 0;
    for (const char *p = strstr(want, "\"bootstrap\": ["); p != NULL;
         p = strstr(p, "\"bootstrap\": [")) {
        p += strlen("\"bootstrap\": [");
        const char *end = strchr(p, ']');
        assert_non_null(end);
        while (p < end) {
            const char *q = strchr(p, '"');
            if (q == NULL || q > end)
                break;
            const char *e = strchr(q + 1, '"');
            assert_non_null(e);
            size_t n = (size_t)(e - q - 1);
            if (k >= got.n)
                fail_msg("%s: expected more decisions than the %zu made", name, got.n);
            if (strlen(got.names[k]) != n || memcmp(got.names[k], q + 1, n) != 0)
                fail_msg("%s: row op %zu: decided %s, expected %.*s", name, k, got.names[k], (int)n,
                         q + 1);
            replay += strcmp(got.names[k], "NEEDS_REPLAY") == 0;
            k++;
            p = e + 1;
        }
    }
    assert_int_equal(k, got.n);
    assert_int_equal(replay, json_u64(strstr(want, "\"summary\""), "row_ops_replayed"));
    cf_kudu_wal_free(w);
    free(want);
}

static void test_scan__bootstrap_decisions(void **state)
{
    (void)state;
    each_layout(bootstrap_decisions);
}

/* FilterOperation's rules one by one, against lbm-basic-s1's superblock
 * (last_durable_mrs_id 4; rowsets 0, 2 and 4 with last durable DMS ids -1, 1, 0). */
static void test_scan__bootstrap_rules(void **state)
{
    (void)state;
    layout l;
    if (!open_layout(&l, "lbm-basic-s1"))
        skip();
    assert_int_equal(cf_kudu_tablet_last_durable_mrs_id(l.t), 4);
    static const struct {
        cf_kudu_mem_store stores[3];
        size_t n;
        bool failed, skip;
        cf_status st;
        cf_kudu_op_action act;
    } cases[] = {
        {{{4, -1, -1, -1}}, 1, false, false, CF_OK, CF_KUDU_ACT_SKIP_FLUSHED}, /* durable MRS */
        {{{5, -1, -1, -1}}, 1, false, false, CF_OK, CF_KUDU_ACT_REPLAY},       /* newer MRS */
        {{{-1, 2, 1, -1}}, 1, false, false, CF_OK, CF_KUDU_ACT_SKIP_FLUSHED},  /* durable DMS */
        {{{-1, 2, 2, -1}}, 1, false, false, CF_OK, CF_KUDU_ACT_REPLAY},        /* newer DMS */
        {{{-1, 0, 0, -1}}, 1, false, false, CF_OK, CF_KUDU_ACT_REPLAY},        /* rowset 0: -1 */
        {{{-1, 3, 9, -1}}, 1, false, false, CF_OK, CF_KUDU_ACT_SKIP_FLUSHED},  /* compacted away */
        {{{0, 0, 0, -1}}, 0, false, false, CF_OK, CF_KUDU_ACT_SKIP_FLUSHED},   /* no store */
        {{{5, -1, -1, -1}}, 1, true, false, CF_OK, CF_KUDU_ACT_SKIP_FAILED},   /* failed */
        {{{5, -1, -1, -1}}, 1, false, true, CF_OK, CF_KUDU_ACT_SKIP_FLUSHED},  /* skip_on_replay */
        {{{-1, 4, 0, -1}, {-1, 2, 2, -1}},
         2,
         false,
         false,
         CF_OK,
         CF_KUDU_ACT_REPLAY},                                                /* duplicated
                                                                              */
        {{{-1, 4, 1, -1}, {-1, 2, 2, -1}}, 2, false, false, CF_ECORRUPT, 0}, /* two active */
        {{{4, -1, -1, -1}, {3, -1, -1, -1}, {2, -1, -1, -1}}, 3, false, false, CF_ECORRUPT, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cf_kudu_op_result r = {cases[i].failed, cases[i].skip, cases[i].n, cases[i].stores};
        cf_kudu_op_action a = CF_KUDU_ACT_REPLAY;
        cf_error err;
        cf_status st = cf_kudu_op_action_of(l.t, &r, &a, &err);
        if (st != cases[i].st)
            fail_msg("case %zu: status %s", i, cf_status_str(st));
        if (st == CF_OK && a != cases[i].act)
            fail_msg("case %zu: %s", i, cf_kudu_op_action_name(a));
    }
    close_layout(&l);
}

/* ---- the three modes ------------------------------------------------------------------------ */

static void row_counts(layout *l, const char *name)
{
    static const char *files[3] = {"tablet_latest.json", "tablet_flushed.json",
                                   "tablet_as_of.json"};
    for (size_t m = 0; m < 3; m++) {
        char *want = read_expected(l, files[m]);
        if (want == NULL)
            continue;
        cf_kudu_scan_options o;
        cf_kudu_scan_options_init(&o);
        o.no_wal = m == 1;
        if (m == 2)
            o.as_of = json_u64(want, "as_of");
        bytes b = {0};
        uint64_t rows = scan_all(l, &o, &b);
        if (rows != json_u64(want, "num_rows"))
            fail_msg("%s %s: %llu rows, expected %llu", name, files[m], (unsigned long long)rows,
                     (unsigned long long)json_u64(want, "num_rows"));
        free(b.p);
        free(want);
    }
}

static void test_scan__row_counts(void **state)
{
    (void)state;
    each_layout(row_counts);
}

/* The same rows whatever the batch size, in every mode. */
static void batch_sizes(layout *l, const char *name)
{
    char *asof = read_expected(l, "tablet_as_of.json");
    for (size_t m = 0; m < 3; m++) {
        bytes ref = {0};
        static const size_t sizes[3] = {1024, 1, 7};
        for (size_t k = 0; k < 3; k++) {
            cf_kudu_scan_options o;
            cf_kudu_scan_options_init(&o);
            o.batch_rows = sizes[k];
            o.no_wal = m == 1;
            if (m == 2 && asof != NULL)
                o.as_of = json_u64(asof, "as_of");
            bytes b = {0};
            scan_all(l, &o, k == 0 ? &ref : &b);
            if (k > 0) {
                assert_int_equal(b.len, ref.len);
                assert_memory_equal(b.p, ref.p, ref.len);
            }
            free(b.p);
        }
        free(ref.p);
    }
    free(asof);
}

static void test_scan__batch_sizes(void **state)
{
    (void)state;
    each_layout(batch_sizes);
}

/* Projection and predicates: the full scan's rows, filtered, then projected. */
static void projection_and_where(layout *l, const char *name)
{
    const cf_schema *s = cf_kudu_tablet_schema(l->t);
    size_t nc = cf_schema_column_count(s);
    size_t nullable = SIZE_MAX;
    for (size_t c = cf_schema_key_count(s); c < nc && nullable == SIZE_MAX; c++)
        if (cf_schema_column_at(s, c)->nullable)
            nullable = c;
    assert_true(nullable != SIZE_MAX);
    /* The reference: every column, rows where `nullable` is present, then the
     * last column and the first key column picked out. */
    cf_kudu_scanner *sc;
    cf_error err;
    CF_ASSERT_OK(cf_kudu_scanner_create(&sc, l->t, NULL, &err), &err);
    bytes ref = {0};
    size_t pick[2] = {nc - 1, 0};
    uint64_t nref = 0;
    cf_row_batch b;
    while (kfs_scan_next_ok(sc, &b)) {
        for (size_t r = 0; r < b.count; r++) {
            const cf_batch *nb = &b.cols[nullable];
            if (!((nb->nonnull[r / 8] >> (r % 8)) & 1))
                continue;
            cf_row_batch one = b;
            cf_batch two[2] = {b.cols[pick[0]], b.cols[pick[1]]};
            one.cols = two;
            one.ncols = 2;
            put_row(&ref, s, pick, &one, r);
            nref++;
        }
    }
    cf_kudu_scanner_free(sc);
    cf_pred p = {nullable, CF_PRED_IS_NOT_NULL, NULL};
    cf_kudu_scan_options o;
    cf_kudu_scan_options_init(&o);
    o.cols = pick;
    o.ncols = 2;
    o.preds = &p;
    o.npreds = 1;
    o.batch_rows = 100;
    bytes got = {0};
    assert_int_equal(scan_all(l, &o, &got), nref);
    assert_int_equal(got.len, ref.len);
    assert_memory_equal(got.p, ref.p, ref.len);
    free(got.p);
    free(ref.p);
}

static void test_scan__projection_and_where(void **state)
{
    (void)state;
    each_layout(projection_and_where);
}

/* Out of memory anywhere in a scan (rowsets, deltas, the WAL's replay, the merge)
 * is CF_ENOMEM with a message, and leaks nothing. */
typedef struct sweep {
    layout *l;
    bool no_wal;
} sweep;

static cf_status sweep_run(void *ctx, cf_error *err)
{
    sweep *sw = ctx;
    cf_kudu_scan_options o;
    cf_kudu_scan_options_init(&o);
    o.no_wal = sw->no_wal;
    o.batch_rows = 512;
    cf_kudu_scanner *sc;
    cf_status st = cf_kudu_scanner_create(&sc, sw->l->t, &o, err);
    if (st != CF_OK)
        return st;
    cf_row_batch b;
    do
        st = cf_kudu_scanner_next(sc, &b, err);
    while (st == CF_OK && b.count > 0);
    cf_kudu_scanner_free(sc);
    return st;
}

static void test_scan__alloc_failures(void **state)
{
    (void)state;
    layout l;
    if (!open_layout(&l, kfs_layouts[0]))
        skip();
    sweep sw = {&l, true};
    cf_test_alloc_sweep("scan --no-wal", NULL, sweep_run, &sw, 100000);
    sw.no_wal = false;
    cf_test_alloc_sweep("scan", NULL, sweep_run, &sw, 100000);
    close_layout(&l);
}

/* ---- tablets written here (the library's Kudu writers) ----------------------------------- */

#define GEN_TABLET "0123456789abcdef0123456789abcdef"

/* One rowset to write: keys (ascending), v = key * 10 for every row, and `nredo`
 * REDO deltas (row, ts, change: v := value, or a DELETE when del). */
typedef struct gen_redo {
    uint32_t row;
    uint64_t ts;
    bool del;
    int32_t v;
} gen_redo;

typedef struct gen_rowset {
    const int64_t *keys;
    size_t n;
    const gen_redo *redo;
    size_t nredo;
} gen_rowset;

static void gen_block(cf_kudu_lbm_writer *lw, cf_io *io, uint64_t id)
{
    cf_error e;
    cf_slice b = cf_io_mem_contents(io);
    CF_ASSERT_OK(cf_kudu_lbm_writer_append(lw, id, b.data, b.len, 1, NULL, &e), &e);
    cf_io_free(io);
}

/* gen_tablet_ex's flags: the superblock without the rowsets' min/max keys (the
 * scan can never stream a rowset: every row goes through the merge); the schema
 * "k INT64 KEY, v INT32 NULL, s STRING NULL" (v NULL when k % 7 == 3, s of a
 * length that varies with k: gen_s). */
#define GEN_NO_KEYS 1u
#define GEN_WIDE 2u
#define GEN_BAD_MIN 4u /* the last rowset's min key is its second key, above its first */
#define GEN_MAX_RS 16

static size_t gen_s(int64_t k, char *buf)
{
    return (size_t)sprintf(buf, "s%lld-%.*s", (long long)k, (int)(k % 37),
                           "abcdefghijklmnopqrstuvwxyz0123456789ABCDEF");
}

static void gen_tablet_ex(const char *root, const gen_rowset *rs, size_t nrs, unsigned flags);

/* A single root at `root` with one tablet "k INT64 KEY, v INT32" of the rowsets
 * given (last_durable_mrs_id = nrs, every DMS durable) and an empty WAL. */
static void gen_tablet(const char *root, const gen_rowset *rs, size_t nrs)
{
    gen_tablet_ex(root, rs, nrs, 0);
}

static void gen_tablet_ex(const char *root, const gen_rowset *rs, size_t nrs, unsigned flags)
{
    bool wide = (flags & GEN_WIDE) != 0;
    kfs_single_root(root, "log", NULL);
    char p[1200], data[1100];
    snprintf(p, sizeof(p), "%s/wals/" GEN_TABLET, root);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(data, sizeof(data), "%s/data", root);
    cf_error e;
    cf_kudu_lbm_writer *lw;
    CF_ASSERT_OK(cf_kudu_lbm_writer_create(&lw, data, "00000000000000000000000000000001", 4096, &e),
                 &e);
    cf_schema *sch;
    CF_ASSERT_OK(
        cf_schema_parse(
            &sch, wide ? "k INT64 KEY, v INT32 NULL, s STRING NULL" : "k INT64 KEY, v INT32", &e),
        &e);
    size_t nc = wide ? 3 : 2;
    cf_kudu_rowset meta[GEN_MAX_RS];
    uint64_t blocks[GEN_MAX_RS][4];
    uint8_t keys[GEN_MAX_RS][2][8];
    static const uint32_t cids[3] = {0, 1, 2};
    assert_true(nrs <= GEN_MAX_RS);
    uint64_t next = 1;
    for (size_t r = 0; r < nrs; r++) {
        cf_io *kio, *vio, *sio = NULL;
        cf_writer *kw, *vw, *sw = NULL;
        cf_writer_options ko, vo, so;
        cf_writer_options_init(&ko, CF_TYPE_INT64);
        ko.write_validx = true;
        cf_writer_options_init(&vo, CF_TYPE_INT32);
        vo.nullable = wide;
        cf_writer_options_init(&so, CF_TYPE_STRING);
        so.nullable = true;
        CF_ASSERT_OK(cf_io_create_mem(&kio, &e), &e);
        CF_ASSERT_OK(cf_io_create_mem(&vio, &e), &e);
        CF_ASSERT_OK(cf_writer_create(&kw, kio, &ko, &e), &e);
        CF_ASSERT_OK(cf_writer_create(&vw, vio, &vo, &e), &e);
        if (wide) {
            CF_ASSERT_OK(cf_io_create_mem(&sio, &e), &e);
            CF_ASSERT_OK(cf_writer_create(&sw, sio, &so, &e), &e);
        }
        for (size_t i = 0; i < rs[r].n; i++) {
            int64_t k = rs[r].keys[i];
            int32_t v = (int32_t)(k * 10);
            uint8_t vnn = wide && k % 7 == 3 ? 0 : 1;
            CF_ASSERT_OK(cf_writer_append(kw, &k, NULL, 1, &e), &e);
            CF_ASSERT_OK(cf_writer_append(vw, &v, wide ? &vnn : NULL, 1, &e), &e);
            if (wide) {
                char buf[64];
                cf_slice sl = {(const uint8_t *)buf, gen_s(k, buf)};
                CF_ASSERT_OK(cf_writer_append(sw, &sl, NULL, 1, &e), &e);
            }
        }
        CF_ASSERT_OK(cf_writer_finish(kw, &e), &e);
        CF_ASSERT_OK(cf_writer_finish(vw, &e), &e);
        cf_writer_free(kw);
        cf_writer_free(vw);
        blocks[r][0] = next++;
        blocks[r][1] = next++;
        gen_block(lw, kio, blocks[r][0]);
        gen_block(lw, vio, blocks[r][1]);
        if (wide) {
            CF_ASSERT_OK(cf_writer_finish(sw, &e), &e);
            cf_writer_free(sw);
            blocks[r][2] = next++;
            gen_block(lw, sio, blocks[r][2]);
        }
        meta[r] = (cf_kudu_rowset){.id = r,
                                   .last_durable_dms_id = 0,
                                   .ncolumns = nc,
                                   .column_blocks = blocks[r],
                                   .column_ids = cids};
        if (rs[r].nredo > 0) {
            cf_io *dio;
            cf_delta_writer *dw;
            cf_rcl_builder *b;
            CF_ASSERT_OK(cf_io_create_mem(&dio, &e), &e);
            CF_ASSERT_OK(cf_delta_writer_create(&dw, dio, NULL, &e), &e);
            CF_ASSERT_OK(cf_rcl_builder_create(&b, &e), &e);
            for (size_t k = 0; k < rs[r].nredo; k++) {
                const gen_redo *d = &rs[r].redo[k];
                cf_rcl_builder_reset(b, d->del ? CF_RCL_DELETE : CF_RCL_UPDATE);
                if (!d->del)
                    CF_ASSERT_OK(cf_rcl_builder_add(b, 1, &d->v, 4, &e), &e);
                CF_ASSERT_OK(cf_delta_writer_append(dw, d->row, d->ts, cf_rcl_builder_bytes(b), &e),
                             &e);
            }
            CF_ASSERT_OK(cf_delta_writer_finish(dw, &e), &e);
            cf_delta_writer_free(dw);
            cf_rcl_builder_free(b);
            blocks[r][nc] = next++;
            gen_block(lw, dio, blocks[r][nc]);
            meta[r].nredo = 1;
            meta[r].redo_blocks = &blocks[r][nc];
        }
        if (flags & GEN_NO_KEYS)
            continue;
        /* min/max keys as the superblock keeps them */
        bool bad = (flags & GEN_BAD_MIN) && r == nrs - 1 && rs[r].n > 1;
        const void *lo[1] = {&rs[r].keys[bad ? 1 : 0]}, *hi[1] = {&rs[r].keys[rs[r].n - 1]};
        size_t kl;
        CF_ASSERT_OK(cf_schema_key_encode(sch, lo, keys[r][0], 8, &kl, &e), &e);
        CF_ASSERT_OK(cf_schema_key_encode(sch, hi, keys[r][1], 8, &kl, &e), &e);
        meta[r].min_key = keys[r][0];
        meta[r].max_key = keys[r][1];
        meta[r].min_key_len = meta[r].max_key_len = 8;
    }
    cf_kudu_lbm_writer_free(lw);
    cf_kudu_superblock_spec sp;
    kfs_superblock_spec(&sp, GEN_TABLET, "gen", sch, cids);
    sp.last_durable_mrs_id = (int64_t)nrs;
    sp.rowsets = meta;
    sp.nrowsets = nrs;
    kfs_superblock_write(root, &sp);
    cf_schema_free(sch);
}

/* Scan the root's tablet (latest; batch_rows given) into keys and values; the status. */
static cf_status gen_scan(const char *root, size_t batch, int64_t *k, int32_t *v, size_t cap,
                          size_t *n, cf_error *err)
{
    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
    kfs_open_tablet(root, GEN_TABLET, &fs, &t);
    cf_kudu_scan_options so;
    cf_kudu_scan_options_init(&so);
    so.batch_rows = batch;
    cf_kudu_scanner *sc;
    cf_status st = cf_kudu_scanner_create(&sc, t, &so, err);
    *n = 0;
    cf_row_batch b;
    while (kfs_scan_next(sc, &b, &st, err)) {
        for (size_t i = 0; i < b.count; i++) {
            assert_true(*n < cap);
            memcpy(&k[*n], (const int64_t *)b.cols[0].values + i, 8);
            memcpy(&v[*n], (const int32_t *)b.cols[1].values + i, 4);
            (*n)++;
        }
    }
    cf_kudu_scanner_free(sc);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    return st;
}

/* A fresh tablet of the rowsets (gen_tablet_ex's flags) scanned whole: with
 * damage NULL it must succeed, its row count returned; else it must fail as
 * CF_ECORRUPT with a message containing `damage`. */
static size_t gen_check(const gen_rowset *rs, size_t nrs, unsigned flags, const char *damage)
{
    char root[512];
    kfs_tmpdir(root, sizeof(root));
    gen_tablet_ex(root, rs, nrs, flags);
    int64_t k[16];
    int32_t v[16];
    size_t n = 0;
    cf_error err;
    cf_status st = gen_scan(root, 1024, k, v, 16, &n, &err);
    if (damage == NULL) {
        CF_ASSERT_OK(st, &err);
    } else {
        assert_int_equal(st, CF_ECORRUPT);
        assert_non_null(strstr(err.msg, damage));
    }
    CF_ASSERT_RM_RF(root);
    return n;
}

/* Rowsets whose keys interleave (the heap merge), rowsets past all others (the
 * streaming path), REDO updates and deletes: every batch size gives the keys in
 * order with the REDO state. */
static void test_scan__written_tablets(void **state)
{
    (void)state;
    enum { N = 3000 };
    static int64_t a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = 3 * i; /* interleaved with b */
        b[i] = 3 * i + 1;
        c[i] = 3 * N + 10 + i; /* past a and b: streamed */
    }
    static const gen_redo ra[] = {{5, 10, false, -5}, {7, 11, true, 0}, {2999, 12, false, -7}};
    static const gen_redo rc[] = {{0, 10, true, 0}, {1, 10, false, 42}};
    gen_rowset rs[3] = {{a, N, ra, 3}, {b, N, NULL, 0}, {c, N, rc, 2}};
    char root[512];
    kfs_tmpdir(root, sizeof(root));
    gen_tablet(root, rs, 3);
    static int64_t k[3 * N];
    static int32_t v[3 * N];
    static const size_t batches[] = {1, 7, 1024};
    for (size_t bi = 0; bi < 3; bi++) {
        size_t n;
        cf_error err;
        CF_ASSERT_OK(gen_scan(root, batches[bi], k, v, 3 * N, &n, &err), &err);
        assert_int_equal(n, 3 * N - 2); /* a[7] and c[0] deleted */
        for (size_t i = 1; i < n; i++)
            assert_true(k[i - 1] < k[i]);
        for (size_t i = 0; i < n; i++) {
            int32_t want = (int32_t)(k[i] * 10);
            if (k[i] == a[5])
                want = -5;
            else if (k[i] == a[2999])
                want = -7;
            else if (k[i] == c[1])
                want = 42;
            if (v[i] != want)
                fail_msg("batch %zu: key %lld: v %d, want %d", batches[bi], (long long)k[i], v[i],
                         want);
            assert_true(k[i] != a[7] && k[i] != c[0]);
        }
    }
    CF_ASSERT_RM_RF(root);
}

/* A key live in two rowsets at once is damage, whichever path meets it. */
static void test_scan__key_in_two_rowsets(void **state)
{
    (void)state;
    static const int64_t a[] = {1, 2, 3, 4}, b[] = {3, 10, 11};
    gen_rowset rs[2] = {{a, 4, NULL, 0}, {b, 3, NULL, 0}};
    gen_check(rs, 2, 0, "both hold one key");
    /* Deleted in one of them (a REDO DELETE of b's 3): no longer a conflict. */
    static const gen_redo del[] = {{0, 5, true, 0}};
    gen_rowset rs2[2] = {{a, 4, NULL, 0}, {b, 3, del, 1}};
    assert_int_equal(gen_check(rs2, 2, 0, NULL), 6);
}

/* Descriptors open in this process now. */
static size_t open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own */
}

/* Disjoint rowsets (key bounds in the superblock) open one after another as the
 * merge reaches them and close at their end: a tablet of 16 rowsets (32 blocks,
 * a descriptor each under pread) scans within a handful of descriptors. (Every
 * rowset's blocks were opened at create: EMFILE.) */
static void test_scan__disjoint_rowsets_few_fds(void **state)
{
    (void)state;
    enum { NRS = GEN_MAX_RS, N = 300 };
    static int64_t keys[NRS][N];
    gen_rowset rs[NRS];
    for (int r = 0; r < NRS; r++) {
        for (int i = 0; i < N; i++)
            keys[r][i] = (int64_t)r * N + i;
        rs[r] = (gen_rowset){keys[r], N, NULL, 0};
    }
    char root[512];
    kfs_tmpdir(root, sizeof(root));
    gen_tablet(root, rs, NRS);
    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
    kfs_open_tablet(root, GEN_TABLET, &fs, &t);
    cf_error err;
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    lim = old;
    lim.rlim_cur = (rlim_t)open_fds() + 8;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
    cf_kudu_scanner *sc;
    cf_status st = cf_kudu_scanner_create(&sc, t, NULL, &err);
    int64_t want = 0;
    cf_row_batch b;
    while (kfs_scan_next(sc, &b, &st, &err)) {
        for (size_t i = 0; i < b.count; i++, want++)
            assert_int_equal(((const int64_t *)b.cols[0].values)[i], want);
    }
    cf_kudu_scanner_free(sc);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    CF_ASSERT_OK(st, &err);
    assert_int_equal(want, NRS * N);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(root);
}

/* The descriptors open now, as a sorted list of their numbers in buf. */
static void fd_list(char *buf, size_t cap)
{
    int fds[4096];
    size_t n = 0;
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int self = dirfd(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.' && atoi(e->d_name) != self && n < 4096)
            fds[n++] = atoi(e->d_name);
    closedir(d);
    for (size_t i = 1; i < n; i++) /* insertion sort: a few dozen */
        for (size_t j = i; j > 0 && fds[j - 1] > fds[j]; j--) {
            int x = fds[j];
            fds[j] = fds[j - 1];
            fds[j - 1] = x;
        }
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && at + 16 < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%d ", fds[i]);
}

/* Scan tablet t (latest) into k/v; *max_fds: the most descriptors open during it. */
static size_t rescan(cf_kudu_tablet *t, int64_t *k, int32_t *v, size_t cap, size_t *max_fds)
{
    cf_kudu_scan_options so;
    cf_kudu_scan_options_init(&so);
    so.batch_rows = 100;
    cf_kudu_scanner *sc;
    cf_error err;
    CF_ASSERT_OK(cf_kudu_scanner_create(&sc, t, &so, &err), &err);
    size_t n = 0;
    *max_fds = open_fds();
    for (;;) {
        cf_row_batch b;
        CF_ASSERT_OK(cf_kudu_scanner_next(sc, &b, &err), &err);
        size_t f = open_fds();
        *max_fds = f > *max_fds ? f : *max_fds;
        if (b.count == 0)
            break;
        for (size_t i = 0; i < b.count; i++, n++) {
            assert_true(n < cap);
            memcpy(&k[n], (const int64_t *)b.cols[0].values + i, 8);
            memcpy(&v[n], (const int32_t *)b.cols[1].values + i, 4);
        }
    }
    cf_kudu_scanner_free(sc);
    return n;
}

enum { RC_NRS = GEN_MAX_RS, RC_N = 300 };

/* The disjoint tablet of test_scan__disjoint_rowsets_few_fds, written under root. */
static void gen_disjoint(char *root, size_t cap)
{
    static int64_t keys[RC_NRS][RC_N];
    gen_rowset rs[RC_NRS];
    for (int r = 0; r < RC_NRS; r++) {
        for (int i = 0; i < RC_N; i++)
            keys[r][i] = (int64_t)r * RC_N + i;
        rs[r] = (gen_rowset){keys[r], RC_N, NULL, 0};
    }
    kfs_tmpdir(root, cap);
    gen_tablet(root, rs, RC_NRS);
}

/* A second scan of an opened tablet reuses the block readers the first one gave
 * back to the fs (the same descriptors stay open: none opened again) and gives the
 * same rows; closing the fs closes them. */
static void test_scan__rescan_reuses_readers(void **state)
{
    (void)state;
    char root[512];
    gen_disjoint(root, sizeof(root));
    static int64_t k1[RC_NRS * RC_N], k2[RC_NRS * RC_N];
    static int32_t v1[RC_NRS * RC_N], v2[RC_NRS * RC_N];
    char before[8192], after1[8192], after2[8192];
    fd_list(before, sizeof(before));
    size_t base = open_fds();
    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
    kfs_open_tablet(root, GEN_TABLET, &fs, &t);
    size_t mx;
    size_t n1 = rescan(t, k1, v1, RC_NRS * RC_N, &mx);
    fd_list(after1, sizeof(after1));
    /* every rowset's key and value blocks kept (2 x 16; the default bound is more),
     * beside the fs's own descriptors of its WAL and metadata roots and each
     * data dir, held from its open */
    size_t held = base + 2 + cf_kudu_fs_data_dir_count(fs) + 2 * RC_NRS;
    assert_int_equal(open_fds(), held);
    size_t n2 = rescan(t, k2, v2, RC_NRS * RC_N, &mx);
    fd_list(after2, sizeof(after2));
    assert_string_equal(after1, after2); /* opened again, they would be new numbers */
    assert_int_equal(mx, held);          /* nothing opened during the second scan */
    assert_int_equal(n1, RC_NRS * RC_N);
    assert_int_equal(n2, n1);
    assert_memory_equal(k1, k2, n1 * sizeof(*k1));
    assert_memory_equal(v1, v2, n1 * sizeof(*v1));
    for (size_t i = 0; i < n1; i++)
        assert_int_equal(k1[i], (int64_t)i);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    fd_list(after2, sizeof(after2));
    assert_string_equal(before, after2);
    CF_ASSERT_RM_RF(root);
}

/* The roots are held open (issue 31 item 4): the root of an opened fs renamed,
 * and a symlink to an empty directory put at its old path, the tablet opened
 * then (its superblock), its log and its blocks are still read from the
 * directory the fs opened, every row of them; nothing through the symlink. */
static void test_scan__data_dir_renamed_under_fs(void **state)
{
    (void)state;
    char root[512], moved[600], empty[600];
    gen_disjoint(root, sizeof(root));
    snprintf(moved, sizeof(moved), "%s.moved", root);
    snprintf(empty, sizeof(empty), "%s.empty", root);
    cf_kudu_fs_options o;
    cf_kudu_fs_options_init(&o);
    o.wal_dir = root;
    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
    cf_error err;
    CF_ASSERT_OK(cf_kudu_fs_open(&fs, &o, &err), &err);
    assert_int_equal(rename(root, moved), 0);
    assert_int_equal(mkdir(empty, 0700), 0);
    assert_int_equal(symlink(empty, root), 0);
    CF_ASSERT_OK(cf_kudu_tablet_open(&t, fs, GEN_TABLET, &err), &err);
    static int64_t k[RC_NRS * RC_N];
    static int32_t v[RC_NRS * RC_N];
    size_t mx;
    size_t n = rescan(t, k, v, RC_NRS * RC_N, &mx);
    assert_int_equal(n, RC_NRS * RC_N);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(k[i], (int64_t)i);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    assert_int_equal(unlink(root), 0);
    assert_int_equal(rmdir(empty), 0);
    CF_ASSERT_RM_RF(moved);
}

/* A cache smaller than the tablet's blocks (5 readers for 32 blocks): scans evict,
 * give the same rows every time, and the descriptors open never pass what the scan
 * holds (one rowset's 2 blocks, 2 at a rowset change) plus the bound; with the cache
 * off, nothing stays open between scans. */
static void test_scan__reader_cache_bound(void **state)
{
    (void)state;
    char root[512];
    gen_disjoint(root, sizeof(root));
    static int64_t k1[RC_NRS * RC_N], k2[RC_NRS * RC_N];
    static int32_t v1[RC_NRS * RC_N], v2[RC_NRS * RC_N];
    const size_t bounds[] = {5, 1, CF_KUDU_READER_CACHE_OFF};
    for (size_t bi = 0; bi < sizeof(bounds) / sizeof(bounds[0]); bi++) {
        size_t bound = bounds[bi] == CF_KUDU_READER_CACHE_OFF ? 0 : bounds[bi];
        cf_kudu_fs_options o;
        cf_kudu_fs_options_init(&o);
        o.wal_dir = root;
        o.reader_cache = bounds[bi];
        cf_kudu_fs *fs;
        cf_kudu_tablet *t;
        cf_error err;
        CF_ASSERT_OK(cf_kudu_fs_open(&fs, &o, &err), &err);
        CF_ASSERT_OK(cf_kudu_tablet_open(&t, fs, GEN_TABLET, &err), &err);
        size_t base = open_fds();
        for (int pass = 0; pass < 3; pass++) {
            size_t mx;
            size_t n = rescan(t, pass == 0 ? k1 : k2, pass == 0 ? v1 : v2, RC_NRS * RC_N, &mx);
            assert_int_equal(n, RC_NRS * RC_N);
            if (mx > base + bound + 4)
                fail_msg("bound %zu pass %d: %zu descriptors open, %zu before", bound, pass, mx,
                         base);
            assert_int_equal(open_fds(), base + bound); /* kept: the bound, evictions past it */
            if (pass > 0) {
                assert_memory_equal(k1, k2, n * sizeof(*k1));
                assert_memory_equal(v1, v2, n * sizeof(*v1));
            }
        }
        for (size_t i = 0; i < RC_NRS * RC_N; i++)
            assert_int_equal(k1[i], (int64_t)i);
        cf_kudu_tablet_free(t);
        cf_kudu_fs_free(fs);
    }
    CF_ASSERT_RM_RF(root);
}

/* Two tablet handles of one fs scanned from two threads at once over a cache of 3
 * (readers taken, given back and evicted concurrently): both see every row, each
 * time. */
typedef struct rc_thread {
    cf_kudu_tablet *t;
    int bad;
} rc_thread;

static void *rc_run(void *arg)
{
    rc_thread *a = arg;
    cf_kudu_scan_options so;
    cf_kudu_scan_options_init(&so);
    so.batch_rows = 64;
    for (int pass = 0; pass < 20; pass++) {
        cf_kudu_scanner *sc;
        cf_error err;
        if (cf_kudu_scanner_create(&sc, a->t, &so, &err) != CF_OK) {
            a->bad++;
            continue;
        }
        int64_t want = 0;
        for (;;) {
            cf_row_batch b;
            if (cf_kudu_scanner_next(sc, &b, &err) != CF_OK) {
                a->bad++;
                break;
            }
            if (b.count == 0)
                break;
            for (size_t i = 0; i < b.count; i++, want++)
                a->bad += ((const int64_t *)b.cols[0].values)[i] != want ||
                          ((const int32_t *)b.cols[1].values)[i] != (int32_t)(want * 10);
        }
        a->bad += want != RC_NRS * RC_N;
        cf_kudu_scanner_free(sc);
    }
    return NULL;
}

static void test_scan__reader_cache_threads(void **state)
{
    (void)state;
    char root[512];
    gen_disjoint(root, sizeof(root));
    cf_kudu_fs_options o;
    cf_kudu_fs_options_init(&o);
    o.wal_dir = root;
    o.reader_cache = 3;
    cf_kudu_fs *fs;
    cf_error err;
    CF_ASSERT_OK(cf_kudu_fs_open(&fs, &o, &err), &err);
    rc_thread a[2] = {{NULL, 0}, {NULL, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        CF_ASSERT_OK(cf_kudu_tablet_open(&a[i].t, fs, GEN_TABLET, &err), &err);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, rc_run, &a[i]), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(a[i].bad, 0);
        cf_kudu_tablet_free(a[i].t);
    }
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(root);
}

/* A rowset that holds a key below the min key the superblock gives it (damage:
 * the merge opened it only when it reached that min key) is an error naming it. */
static void test_scan__row_below_min_key(void **state)
{
    (void)state;
    static const int64_t a[] = {1, 2, 3}, b[] = {10, 11, 12};
    gen_rowset rs[2] = {{a, 3, NULL, 0}, {b, 3, NULL, 0}};
    gen_check(rs, 2, GEN_BAD_MIN, "rowset 1 holds a key below its min_encoded_key");
}

/* An --as-of scan checks the ancient history mark against the latest timestamp
 * the tablet holds, here a REDO of the second of two disjoint rowsets (no WAL
 * entry; the superblock written 30 days ago): 8 days back is refused with Kudu's 7
 * days. Every rowset's DeltaFiles are read for it at create, the rowsets the merge
 * would open later included (with them unread, the superblock's mtime dated the
 * tablet and the scan went through). */
static void test_scan__as_of_sees_every_rowsets_deltas(void **state)
{
    (void)state;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    uint64_t now_us = (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
    static const int64_t a[] = {1, 2, 3}, b[] = {10, 11, 12};
    gen_redo redo[] = {{1, now_us << 12, false, -11}};
    gen_rowset rs[2] = {{a, 3, NULL, 0}, {b, 3, redo, 1}};
    char root[512], sb[700];
    kfs_tmpdir(root, sizeof(root));
    gen_tablet(root, rs, 2);
    snprintf(sb, sizeof(sb), "%s/tablet-meta/" GEN_TABLET, root);
    struct timeval old[2] = {{tv.tv_sec - 30 * 86400, 0}, {tv.tv_sec - 30 * 86400, 0}};
    assert_int_equal(utimes(sb, old), 0);
    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
    kfs_open_tablet(root, GEN_TABLET, &fs, &t);
    cf_error err;
    cf_kudu_scan_options so;
    cf_kudu_scan_options_init(&so);
    so.as_of = (now_us - 8ull * 86400 * 1000000) << 12;
    cf_kudu_scanner *sc = NULL;
    assert_int_equal(cf_kudu_scanner_create(&sc, t, &so, &err), CF_EINVAL);
    assert_non_null(strstr(err.msg, "ancient history mark"));
    so.as_of = (now_us - 6ull * 86400 * 1000000) << 12; /* within the history */
    CF_ASSERT_OK(cf_kudu_scanner_create(&sc, t, &so, &err), &err);
    cf_kudu_scanner_free(sc);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(root);
}

/* ---- a WAL written here: what bootstrap replays ----------------------------------------- */

/* One write op of the log: REPLICATE (term 1, index idx, timestamp ts) of one row
 * op on "k INT64 KEY, v INT32", and unless no_commit its COMMIT with the result:
 * the store it went to (mrs >= 0: that MRS; else rowset rs, DMS dms) or failed. */
typedef struct wal_op {
    int64_t idx;
    uint64_t ts;
    cf_kudu_row_op_type type;
    int64_t k;
    bool has_v;
    int32_t v;
    int64_t mrs, rs, dms;
    bool failed, no_commit;
} wal_op;

/* <root>/wals/<tablet>/wal-000000001: the ops, in one segment without a footer
 * (the one being written when the server stopped). */
static void gen_wal(const char *root, const wal_op *ops, size_t n)
{
    cf_error e = {0};
    cf_schema *sch;
    CF_ASSERT_OK(cf_schema_parse(&sch, "k INT64 KEY, v INT32", &e), &e);
    walgen g;
    walgen_begin(&g, GEN_TABLET, 1, sch, NULL, 0);
    for (size_t i = 0; i < n; i++) {
        const wal_op *o = &ops[i];
        const void *vals[2] = {&o->k, &o->v};
        bool set[2] = {true, o->has_v};
        walgen_write(&g, 1, o->idx, o->ts, o->type, set, vals, -1);
        if (o->no_commit)
            continue;
        walgen_commit_write(&g, 1, o->idx,
                            o->failed     ? WALGEN_FAILED
                            : o->mrs >= 0 ? WALGEN_MRS(o->mrs)
                                          : WALGEN_DMS(o->rs, o->dms));
    }
    walgen_finish(&g, root, "", 1);
    cf_schema_free(sch);
}

/* The root's tablet scanned at as_of (no_wal too) as "k|v;" text (walgen_scan). */
static cf_status wal_scan(const char *root, uint64_t as_of, bool no_wal, char *out, size_t cap,
                          cf_error *err)
{
    cf_kudu_scan_options so;
    cf_kudu_scan_options_init(&so);
    so.as_of = as_of;
    so.no_wal = no_wal;
    return walgen_scan_opts(root, GEN_TABLET, &so, out, cap, NULL, err);
}

/* Bootstrap over a log written here, against one rowset (keys 1..5, v = 10k;
 * last_durable_mrs_id 1, its last durable DMS 0): ops to a durable MRS or DMS, to
 * a rowset compacted away and failed ops are skipped; ops to MRS 2 and DMS 1 are
 * replayed (an INSERT after a DELETE, an UPSERT of a rowset row and of a new key,
 * an UPDATE of a replayed row); a REPLICATE without COMMIT is not applied; as_of
 * sees the ops before it. */
static void test_scan__wal_replay(void **state)
{
    (void)state;
    static const int64_t keys[] = {1, 2, 3, 4, 5};
    gen_rowset rs[1] = {{keys, 5, NULL, 0}};
    static const wal_op ops[] = {
        {10, 100, CF_KUDU_OP_INSERT, 6, true, 60, 1, -1, -1, false, false}, /* durable MRS */
        {11, 101, CF_KUDU_OP_INSERT, 7, true, 70, 2, -1, -1, false, false}, /* replayed */
        {12, 102, CF_KUDU_OP_UPDATE, 2, true, -2, -1, 0, 1, false, false},  /* DMS 1 */
        {13, 103, CF_KUDU_OP_UPDATE, 3, true, -3, -1, 0, 0, false, false},  /* DMS 0: durable */
        {14, 104, CF_KUDU_OP_DELETE, 4, false, 0, -1, 0, 1, false, false},
        {15, 105, CF_KUDU_OP_INSERT, 4, true, 44, 2, -1, -1, false, false}, /* re-insert */
        {16, 106, CF_KUDU_OP_UPSERT, 5, true, 55, -1, 0, 1, false, false},  /* update */
        {17, 107, CF_KUDU_OP_UPSERT, 8, true, 80, 2, -1, -1, false, false}, /* insert */
        {18, 108, CF_KUDU_OP_INSERT, 1, true, 1, -1, -1, -1, true, false},  /* failed */
        {19, 109, CF_KUDU_OP_UPDATE, 7, true, 77, 2, -1, -1, false, false}, /* MRS row */
        {20, 110, CF_KUDU_OP_UPDATE, 1, true, -1, -1, 5, 0, false, false},  /* rowset gone */
        {21, 111, CF_KUDU_OP_INSERT, 9, true, 90, 2, -1, -1, false, true},  /* no COMMIT */
    };
    char root[512], got[512];
    kfs_tmpdir(root, sizeof(root));
    gen_tablet(root, rs, 1);
    gen_wal(root, ops, sizeof(ops) / sizeof(ops[0]));
    cf_error err;
    CF_ASSERT_OK(wal_scan(root, CF_SNAPSHOT_LATEST, false, got, sizeof(got), &err), &err);
    assert_string_equal(got, "1|10;2|-2;3|30;4|44;5|55;7|77;8|80;");
    CF_ASSERT_OK(wal_scan(root, CF_SNAPSHOT_LATEST, true, got, sizeof(got), &err), &err);
    assert_string_equal(got, "1|10;2|20;3|30;4|40;5|50;");
    /* Before ts 105: the insert of 7, the update of 2 and the delete of 4. */
    CF_ASSERT_OK(wal_scan(root, 105, false, got, sizeof(got), &err), &err);
    assert_string_equal(got, "1|10;2|-2;3|30;5|50;7|70;");
    CF_ASSERT_OK(wal_scan(root, 100, false, got, sizeof(got), &err), &err);
    assert_string_equal(got, "1|10;2|20;3|30;4|40;5|50;");
    CF_ASSERT_RM_RF(root);

    /* A replayed op that cannot apply (an INSERT of a key a rowset holds live):
     * the rowsets and the log disagree, as bootstrap's "previously succeeded". */
    static const wal_op bad[] = {{10, 100, CF_KUDU_OP_INSERT, 3, true, 1, 2, -1, -1, false, false}};
    kfs_tmpdir(root, sizeof(root));
    gen_tablet(root, rs, 1);
    gen_wal(root, bad, 1);
    assert_int_equal(wal_scan(root, CF_SNAPSHOT_LATEST, false, got, sizeof(got), &err),
                     CF_ECORRUPT);
    assert_non_null(strstr(err.msg, "inserts a key that is live"));
    assert_non_null(strstr(err.msg, "wal-000000001"));
    CF_ASSERT_RM_RF(root);
}

/* ---- the streaming path against the merge ------------------------------------------------- */

/* The wide tablet at root scanned (latest, WAL replayed; batch_rows, projection
 * cols/ncols, a predicate v >= 0 when pred) as text, one "k|v|s" line a row
 * ("-" for NULL), into a malloc'd string. */
static char *paths_scan(const char *root, size_t batch, const size_t *cols, size_t ncols, bool pred)
{
    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
    kfs_open_tablet(root, GEN_TABLET, &fs, &t);
    cf_error err;
    const cf_schema *s = cf_kudu_tablet_schema(t);
    cf_kudu_scan_options so;
    cf_kudu_scan_options_init(&so);
    so.batch_rows = batch;
    so.cols = cols;
    so.ncols = ncols;
    int32_t zero = 0;
    cf_pred p = {.col = 1, .op = CF_PRED_GE, .value = &zero};
    if (pred) {
        so.preds = &p;
        so.npreds = 1;
    }
    cf_kudu_scanner *sc;
    CF_ASSERT_OK(cf_kudu_scanner_create(&sc, t, &so, &err), &err);
    cf_buf out;
    cf_buf_init(&out);
    cf_row_batch b;
    while (kfs_scan_next_ok(sc, &b)) {
        assert_true(b.count <= batch);
        for (size_t i = 0; i < b.count; i++) {
            for (size_t j = 0; j < b.ncols; j++) {
                const cf_batch *c = &b.cols[j];
                size_t col = cols != NULL ? cols[j] : j;
                char cell[128] = "-";
                if (c->nonnull == NULL || (c->nonnull[i / 8] >> (i % 8)) & 1) {
                    if (col == 0) {
                        snprintf(cell, sizeof(cell), "%lld",
                                 (long long)((const int64_t *)c->values)[i]);
                    } else if (col == 1) {
                        snprintf(cell, sizeof(cell), "%d", ((const int32_t *)c->values)[i]);
                    } else {
                        const cf_slice *sl = (const cf_slice *)c->values + i;
                        snprintf(cell, sizeof(cell), "'%.*s'", (int)sl->len,
                                 (const char *)sl->data);
                    }
                }
                assert_true(cf_schema_column_at(s, col)->nullable || strcmp(cell, "-") != 0);
                cf_buf_append(&out, cell, strlen(cell));
                cf_buf_append(&out, j + 1 < b.ncols ? "|" : "\n", 1);
            }
        }
    }
    cf_buf_append(&out, "", 1);
    assert_false(out.oom);
    cf_kudu_scanner_free(sc);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    return (char *)out.data;
}

/* The same tablet written twice, with the rowsets' min/max keys in the superblock
 * (rowsets past every other source stream, their batches handed out in place)
 * and without (every row through the merge): the same rows for every batch size,
 * projection and a predicate, on disjoint and on interleaved rowsets, with REDO
 * updates and deletes, NULLs, strings over several CFile blocks, and WAL ops
 * (new keys between and after the rowsets', updates and deletes of rowset rows). */
static void test_scan__stream_and_merge_agree(void **state)
{
    (void)state;
    enum { N = 12000 };
    static int64_t ka[3][N], kb[3][N];
    for (int64_t i = 0; i < N; i++) {
        for (int r = 0; r < 3; r++) {
            ka[r][i] = r * 4 * N + 4 * i; /* disjoint: one range each, gaps of 4 */
            kb[r][i] = 12 * i + 4 * r;    /* interleaved */
        }
    }
    static const gen_redo redo0[] = {{0, 10, true, 0},    {5, 10, false, -5},  {6, 11, true, 0},
                                     {1023, 12, true, 0}, {1024, 12, true, 0}, {2000, 13, false, 7},
                                     {N - 1, 14, true, 0}};
    static const gen_redo redo2[] = {{1, 10, false, -1}, {4000, 10, true, 0}};
    /* keys 4*i+1 are free in both layouts; 4*i (i < N) is a rowset 0 row in both */
    static const wal_op ops[] = {
        {10, 100, CF_KUDU_OP_INSERT, 1, true, 11, 4, -1, -1, false, false},      /* replayed */
        {11, 101, CF_KUDU_OP_INSERT, 4001, true, 41, 4, -1, -1, false, false},   /* replayed */
        {12, 102, CF_KUDU_OP_UPDATE, 8, true, -8, -1, 0, 1, false, false},       /* DMS 1 */
        {13, 103, CF_KUDU_OP_DELETE, 16, false, 0, -1, 0, 1, false, false},      /* DMS 1 */
        {14, 104, CF_KUDU_OP_INSERT, 999999, true, 9, 4, -1, -1, false, false},  /* past all */
        {15, 105, CF_KUDU_OP_UPDATE, 4001, true, 42, 4, -1, -1, false, false},   /* MRS row */
        {16, 106, CF_KUDU_OP_INSERT, 1000001, true, 1, 4, -1, -1, false, false}, /* past all */
    };
    static const size_t batches[] = {1, 7, 1024, 5000};
    static const size_t proj[] = {2, 0}, proj_v[] = {1};
    for (int lay = 0; lay < 2; lay++) {
        gen_rowset rs[3];
        for (int r = 0; r < 3; r++)
            rs[r] = (gen_rowset){lay == 0 ? ka[r] : kb[r], N, NULL, 0};
        rs[0].redo = redo0;
        rs[0].nredo = sizeof(redo0) / sizeof(redo0[0]);
        rs[2].redo = redo2;
        rs[2].nredo = sizeof(redo2) / sizeof(redo2[0]);
        char fast[512], slow[512];
        kfs_tmpdir(fast, sizeof(fast));
        kfs_tmpdir(slow, sizeof(slow));
        gen_tablet_ex(fast, rs, 3, GEN_WIDE);
        gen_tablet_ex(slow, rs, 3, GEN_WIDE | GEN_NO_KEYS);
        gen_wal(fast, ops, sizeof(ops) / sizeof(ops[0]));
        gen_wal(slow, ops, sizeof(ops) / sizeof(ops[0]));
        for (size_t bi = 0; bi < sizeof(batches) / sizeof(batches[0]); bi++) {
            for (int q = 0; q < 4; q++) {
                const size_t *cols = q == 1 ? proj : q == 2 ? proj_v : NULL;
                size_t ncols = q == 1 ? 2 : q == 2 ? 1 : 0;
                bool pred = q == 3;
                char *a = paths_scan(fast, batches[bi], cols, ncols, pred);
                char *b = paths_scan(slow, batches[bi], cols, ncols, pred);
                if (strcmp(a, b) != 0) {
                    size_t at = 0;
                    while (a[at] == b[at])
                        at++;
                    fail_msg("layout %d batch %zu query %d: rows differ at byte %zu: "
                             "'%.60s' vs '%.60s'",
                             lay, batches[bi], q, at, a + at, b + at);
                }
                if (q == 0) {
                    /* 3N rows, 5 + 1 deleted by the REDOs, 1 by the WAL, 4 inserted */
                    size_t lines = 0;
                    for (const char *c = a; *c; c++)
                        lines += *c == '\n';
                    assert_int_equal(lines, 3 * N - 6 - 1 + 4);
                    assert_non_null(strstr(a, "\n8|-8|'s8-abcdefgh'\n"));
                    assert_non_null(strstr(a, "\n4001|42|-\n"));
                    assert_null(strstr(a, "\n16|"));
                }
                free(a);
                free(b);
            }
        }
        CF_ASSERT_RM_RF(fast);
        CF_ASSERT_RM_RF(slow);
    }
}

/* ---- pread by default, mmap on request --------------------------------------------------------
 */

/* The blocks are read with pread unless the options ask for mmap; both give the
 * same rows. A container cut after the scanner opened its blocks (a disk failing
 * under an operator's recovery) is an error of the default scan: under mmap the
 * process would die of SIGBUS instead, which is why mmap is not the default. */
static void pread_mmap_same(layout *l, const char *name)
{
    (void)name;
    for (int no_wal = 0; no_wal < 2; no_wal++) {
        bytes a = {0}, b = {0};
        cf_kudu_scan_options o;
        cf_kudu_scan_options_init(&o);
        o.no_wal = no_wal;
        uint64_t ra = scan_all(l, &o, &a);
        o.mmap = true;
        uint64_t rb = scan_all(l, &o, &b);
        assert_int_equal(ra, rb);
        assert_true(ra > 0);
        assert_int_equal(a.len, b.len);
        assert_memory_equal(a.p, b.p, a.len);
        free(a.p);
        free(b.p);
    }
}

static void test_scan__pread_default_mmap_opt_in(void **state)
{
    (void)state;
    cf_kudu_scan_options o;
    cf_kudu_scan_options_init(&o);
    assert_false(o.mmap);
    each_layout(pread_mmap_same);

    layout l;
    char tmp[21];
    copy_layout(&l, "lbm-basic-s1", tmp);
    close_layout(&l);
    layout d;
    assert_true(open_root(&d, tmp));
    cf_kudu_scan_options_init(&o);
    o.no_wal = true;
    cf_kudu_scanner *sc = NULL;
    cf_error err;
    CF_ASSERT_OK(cf_kudu_scanner_create(&sc, d.t, &o, &err), &err);
    /* Every container the rowsets' columns live in, cut to nothing. */
    for (size_t i = 0; i < cf_kudu_tablet_rowset_count(d.t); i++) {
        const cf_kudu_rowset *rs = cf_kudu_tablet_rowset_at(d.t, i);
        for (size_t c = 0; c < rs->ncolumns; c++) {
            const cf_kudu_block *blk = cf_kudu_fs_find_block(d.fs, rs->column_blocks[c]);
            assert_non_null(blk);
            assert_int_equal(truncate(blk->path, 0), 0);
        }
    }
    cf_status st = scan_to_end(sc, CF_OK, &err);
    cf_kudu_scanner_free(sc);
    if (st == CF_OK)
        fail_msg("a scan over cut containers read every row");
    assert_non_null(strstr(err.msg, "rowset"));
    close_layout(&d);
    CF_ASSERT_RM_RF(tmp);
}

/* ---- damage ------------------------------------------------------------------------------- */

/* The scan of a copy of the file-block-manager layout after `damage` changed the
 * file of one block: CF_ECORRUPT naming the rowset, never a smaller tablet. */
typedef enum { DMG_REMOVE, DMG_TRUNCATE, DMG_FLIP } dmg_kind;

static void scan_damaged(dmg_kind kind, bool redo)
{
    layout l;
    char tmp[21];
    copy_layout(&l, "fbm-small-s4", tmp);
    /* The block: a column of the first rowset, or a REDO file of one that has them. */
    uint64_t id = 0;
    for (size_t i = 0; i < cf_kudu_tablet_rowset_count(l.t) && id == 0; i++) {
        const cf_kudu_rowset *rs = cf_kudu_tablet_rowset_at(l.t, i);
        if (!redo)
            id = rs->column_blocks[rs->ncolumns - 1];
        else if (rs->nredo > 0)
            id = rs->redo_blocks[0];
    }
    assert_true(id != 0);
    const cf_kudu_block *blk = cf_kudu_fs_find_block(l.fs, id);
    assert_non_null(blk);
    char path[1400];
    snprintf(path, sizeof(path), "%s/%s", tmp, strstr(blk->path, "/fs/") + 1);
    close_layout(&l);
    if (kind == DMG_REMOVE) {
        assert_int_equal(unlink(path), 0);
    } else {
        size_t len;
        uint8_t *b = cf_test_read_file(path, &len);
        assert_non_null(b);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        if (kind == DMG_FLIP)
            b[len / 3] ^= 0x40; /* inside a data block: its checksum fails */
        size_t keep = kind == DMG_TRUNCATE ? len / 2 : len;
        assert_int_equal(fwrite(b, 1, keep, f), keep);
        fclose(f);
        free(b);
    }
    layout d;
    assert_true(open_root(&d, tmp));
    cf_kudu_scan_options o;
    cf_kudu_scan_options_init(&o);
    o.no_wal = true;
    /* Twice on one fs: the second scan reuses the readers the first gave back to the
     * fs's cache, and must see the damage as the first did. */
    char first[sizeof(((cf_error *)0)->msg)] = "";
    for (int pass = 0; pass < 2; pass++) {
        cf_kudu_scanner *sc = NULL;
        cf_error err;
        cf_status st = cf_kudu_scanner_create(&sc, d.t, &o, &err);
        st = scan_to_end(sc, st, &err);
        cf_kudu_scanner_free(sc);
        if (st != CF_ECORRUPT)
            fail_msg("damage %d (redo %d) pass %d: status %s: %s", (int)kind, (int)redo, pass,
                     cf_status_str(st), st == CF_OK ? "" : err.msg);
        assert_non_null(strstr(err.msg, "rowset"));
        if (pass == 0)
            snprintf(first, sizeof(first), "%s", err.msg);
        else
            assert_string_equal(err.msg, first);
    }
    close_layout(&d);
    CF_ASSERT_RM_RF(tmp);
}

static void test_scan__damaged_blocks(void **state)
{
    (void)state;
    for (int redo = 0; redo < 2; redo++) {
        scan_damaged(DMG_REMOVE, redo);
        scan_damaged(DMG_TRUNCATE, redo);
        scan_damaged(DMG_FLIP, redo);
    }
}

static void test_scan__bad_options(void **state)
{
    (void)state;
    layout l;
    if (!open_layout(&l, kfs_layouts[0]))
        skip();
    cf_kudu_scanner *sc = NULL;
    cf_error err;
    cf_kudu_scan_options o;
    cf_kudu_scan_options_init(&o);
    o.version = 99;
    assert_int_equal(cf_kudu_scanner_create(&sc, l.t, &o, &err), CF_EINVAL);
    assert_null(sc);
    cf_kudu_scan_options_init(&o);
    size_t bad = 1000;
    o.cols = &bad;
    o.ncols = 1;
    assert_int_equal(cf_kudu_scanner_create(&sc, l.t, &o, &err), CF_EINVAL);
    cf_kudu_scan_options_init(&o);
    cf_pred p = {0, CF_PRED_EQ, NULL};
    o.preds = &p;
    o.npreds = 1;
    assert_int_equal(cf_kudu_scanner_create(&sc, l.t, &o, &err), CF_EINVAL);
    cf_kudu_scanner_free(NULL);
    close_layout(&l);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan__bootstrap_decisions),
        cmocka_unit_test(test_scan__bootstrap_rules),
        cmocka_unit_test(test_scan__row_counts),
        cmocka_unit_test(test_scan__batch_sizes),
        cmocka_unit_test(test_scan__projection_and_where),
        cmocka_unit_test(test_scan__written_tablets),
        cmocka_unit_test(test_scan__key_in_two_rowsets),
        cmocka_unit_test(test_scan__disjoint_rowsets_few_fds),
        cmocka_unit_test(test_scan__rescan_reuses_readers),
        cmocka_unit_test(test_scan__data_dir_renamed_under_fs),
        cmocka_unit_test(test_scan__reader_cache_bound),
        cmocka_unit_test(test_scan__reader_cache_threads),
        cmocka_unit_test(test_scan__row_below_min_key),
        cmocka_unit_test(test_scan__as_of_sees_every_rowsets_deltas),
        cmocka_unit_test(test_scan__wal_replay),
        cmocka_unit_test(test_scan__stream_and_merge_agree),
        cmocka_unit_test(test_scan__alloc_failures),
        cmocka_unit_test(test_scan__pread_default_mmap_opt_in),
        cmocka_unit_test(test_scan__damaged_blocks),
        cmocka_unit_test(test_scan__bad_options),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
