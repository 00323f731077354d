#define _XOPEN_SOURCE 700 /* nftw */
/* cf-needs: tables parquet */
/* A table across several servers (src/kudu/replica.c) and its export
 * (`cfile convert --kudu-table|--kudu-tablet` with several servers): servers built
 * in temporary directories from copies of ../shared/kudu-fs, one replica made
 * older (its WAL's last segment cut, a lower consensus term, a tombstone) or
 * damaged, tablets of different layouts made one table by rewriting their
 * superblocks (the parsed superblock, changed, written back with the library's
 * protobuf container writer). The replica Kudu would take is taken; rows equal
 * expected/tablet_latest.json read back from the Parquet file (`cfile parquet
 * dump --json`) and from the table (`cfile table scan --json`), in partition key
 * order; refusals exit 1, usage errors 2; no file under the servers changes. */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_common.h"

#include <cfile/kudu.h>

#include "cli.h"
#include "json.h"
#include "kudufs/pbc_writer.h"
#include "kudu/tablet.h"
#include "support_fsroot.h"

/* ---- servers from copies of the layouts ----------------------------------------------- */

typedef struct srv {
    char root[1100];
    char wal[1200];
    char data[2600]; /* comma-separated */
    char *dirs[8];
    size_t ndirs;
    char tablet[40];
} srv;

static char tmp[512];

/* The data dir paths every server made in a test holds (freed by teardown: a test
 * ends without disposing its servers). */
static char *owned[128];
static size_t nowned;

static void layout_dir(char *out, size_t cap, const char *layout)
{
    snprintf(out, cap, "%s/kudu-fs/%s", cf_test_shared_dir(), layout);
}

static bool have_layouts(void)
{
    char p[700];
    layout_dir(p, sizeof p, "lbm-basic-s1");
    struct stat st;
    return stat(p, &st) == 0;
}

/* Server `name` in tmp: a copy of layout's fs/ (wal/, data0/, ...). */
static void make_server(srv *s, const char *name, const char *layout)
{
    memset(s, 0, sizeof *s);
    char src[700], cmd[2400];
    layout_dir(src, sizeof src, layout);
    snprintf(s->root, sizeof s->root, "%s/%s", tmp, name);
    snprintf(cmd, sizeof cmd, "cp -a '%s/fs' '%s'", src, s->root);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/expected/fs.json", src);
    cf_json_doc d;
    char msg[200];
    if (cf_json_parse_file(&d, cmd, msg, sizeof msg) != 0)
        fail_msg("%s: %s", cmd, msg);
    /* "fs/wal" -> <root>/wal */
    snprintf(s->wal, sizeof s->wal, "%s/%s", s->root, cf_json_get(&d.root, "wal_root")->str + 3);
    snprintf(s->tablet, sizeof s->tablet, "%s", cf_json_get(&d.root, "tablet_id")->str);
    const cf_json *dr = cf_json_get(&d.root, "data_roots");
    for (size_t i = 0; i < dr->n && i < 8; i++) {
        size_t n = strlen(s->data);
        snprintf(s->data + n, sizeof s->data - n, "%s%s/%s", i ? "," : "", s->root,
                 dr->items[i].str + 3);
        s->dirs[i] = strdup(s->data + n + (i ? 1 : 0));
        assert_true(s->dirs[i] != NULL && nowned < sizeof owned / sizeof owned[0]);
        owned[nowned++] = s->dirs[i];
        s->ndirs = i + 1;
    }
    cf_json_doc_dispose(&d);
}

/* Servers s0 and s1, copies of one layout; the test is skipped without the
 * layouts. */
static void two_servers(srv *a, srv *b, const char *layout)
{
    if (!have_layouts())
        skip();
    make_server(a, "s0", layout);
    make_server(b, "s1", layout);
}

static cf_kudu_fs *srv_open(const srv *s)
{
    cf_kudu_fs_options o;
    cf_kudu_fs_options_init(&o);
    o.wal_dir = s->wal;
    o.data_dirs = (const char *const *)s->dirs;
    o.ndata_dirs = s->ndirs;
    cf_kudu_fs *fs = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_fs_open(&fs, &o, &e), &e);
    return fs;
}

/* The server's replica made older: its WAL's last segment removed. */
static void cut_last_segment(const srv *s)
{
    char p[1400];
    snprintf(p, sizeof p, "%s/wals/%s/wal-000000006", s->wal, s->tablet);
    assert_int_equal(unlink(p), 0);
}

/* The server's tablet, its fs into *fs (free the tablet, then the fs). */
static cf_kudu_tablet *srv_tablet(const srv *s, cf_kudu_fs **fs)
{
    *fs = srv_open(s);
    cf_kudu_tablet *t = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_tablet_open(&t, *fs, s->tablet, &e), &e);
    return t;
}

/* <wal>/<dir>/<tablet> (tablet-meta or consensus-meta) replaced by m, then t and
 * fs (what m was read from) freed. */
static void put_meta(const srv *s, const char *dir, const ProtobufCMessage *m, cf_kudu_tablet *t,
                     cf_kudu_fs *fs)
{
    char p[1400];
    snprintf(p, sizeof p, "%s/%s/%s", s->wal, dir, s->tablet);
    assert_int_equal(unlink(p), 0);
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_pbc_write_file(p, m, &e), &e);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
}

/* Rewrite the superblock: table id, partition keys (NULL: kept), data state (-1:
 * kept). */
static void rewrite_superblock(const srv *s, const char *table_id, const char *pstart,
                               const char *pend, int state)
{
    cf_kudu_fs *fs;
    cf_kudu_tablet *t = srv_tablet(s, &fs);
    Kudu__Tablet__TabletSuperBlockPB m = *cf_kudu_tablet_superblock(t);
    Kudu__PartitionPB part = *m.partition;
    if (table_id != NULL) {
        m.table_id.data = (uint8_t *)table_id;
        m.table_id.len = strlen(table_id);
    }
    if (pstart != NULL) {
        part.has_partition_key_start = true;
        part.partition_key_start.data = (uint8_t *)pstart;
        part.partition_key_start.len = strlen(pstart);
    }
    if (pend != NULL) {
        part.has_partition_key_end = true;
        part.partition_key_end.data = (uint8_t *)pend;
        part.partition_key_end.len = strlen(pend);
    }
    m.partition = &part;
    if (state >= 0) {
        m.has_tablet_data_state = true;
        m.tablet_data_state = (Kudu__Tablet__TabletDataState)state;
    }
    put_meta(s, "tablet-meta", &m.base, t, fs);
}

/* Rewrite the consensus metadata's current_term. */
static void set_term(const srv *s, int64_t term)
{
    cf_kudu_fs *fs;
    cf_kudu_tablet *t = srv_tablet(s, &fs);
    Kudu__Consensus__ConsensusMetadataPB m = *cf_kudu_tablet_consensus(t);
    m.has_current_term = true;
    m.current_term = term;
    put_meta(s, "consensus-meta", &m.base, t, fs);
}

static const char *table_id_of(const srv *s, char *out, size_t cap)
{
    cf_kudu_fs *fs;
    cf_kudu_tablet *t = srv_tablet(s, &fs);
    snprintf(out, cap, "%s", cf_kudu_tablet_table_id(t));
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    return out;
}

/* ---- the replicas through the library --------------------------------------------------- */

static cf_status find(cf_kudu_replicas **r, srv *const *s, size_t n, const char *name,
                      const char *table_id, bool skip, cf_kudu_fs **fs, cf_error *e)
{
    for (size_t i = 0; i < n; i++)
        fs[i] = srv_open(s[i]);
    cf_kudu_replicas_options o;
    cf_kudu_replicas_options_init(&o);
    o.table_name = name;
    o.table_id = table_id;
    o.skip_damaged = skip;
    return cf_kudu_replicas_find(r, (const cf_kudu_fs *const *)fs, n, &o, e);
}

static void fs_free_all(cf_kudu_fs **fs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cf_kudu_fs_free(fs[i]);
}

/* ---- the CLI, in process ------------------------------------------------------------------ */

typedef struct run {
    int rc;
    char *out, *err;
    size_t out_len, err_len;
} run;

/* `cfile convert --json SEL... <each server's flags> MORE... OUT` */
static void convert(run *r, srv *const *s, size_t n, const char *const *sel, const char *out)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = "cfile";
    argv[argc++] = "convert";
    argv[argc++] = "--json";
    for (size_t i = 0; sel[i] != NULL; i++)
        argv[argc++] = (char *)sel[i];
    for (size_t i = 0; i < n; i++) {
        argv[argc++] = "--fs-wal-dir";
        argv[argc++] = s[i]->wal;
        argv[argc++] = "--fs-data-dirs";
        argv[argc++] = s[i]->data;
    }
    argv[argc++] = (char *)out;
    argv[argc] = NULL;
    FILE *o = open_memstream(&r->out, &r->out_len);
    FILE *e = open_memstream(&r->err, &r->err_len);
    r->rc = cf_cli_main(argc, argv, o, e);
    fclose(o);
    fclose(e);
}

static void cli2(run *r, const char *a, const char *b, const char *c, const char *d)
{
    char *argv[] = {"cfile", (char *)a, (char *)b, (char *)c, (char *)d, NULL};
    FILE *o = open_memstream(&r->out, &r->out_len);
    FILE *e = open_memstream(&r->err, &r->err_len);
    r->rc = cf_cli_main(d != NULL ? 5 : c != NULL ? 4 : 3, argv, o, e);
    fclose(o);
    fclose(e);
}

static void run_done(run *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

#define EXPECT_RC(r, want)                                                                         \
    do {                                                                                           \
        if ((r).rc != (want))                                                                      \
            fail_msg("exit %d, want %d; stdout: %.300s; stderr: %.400s", (r).rc, (want), (r).out,  \
                     (r).err);                                                                     \
    } while (0)

static void parse(cf_json_doc *d, const char *text, size_t len)
{
    char msg[200];
    if (cf_json_parse(d, text, len, msg, sizeof msg) != 0)
        fail_msg("not JSON: %s: %.300s", msg, text);
}

/* The chosen server of each replica in the --json summary, as "s0,s1" of the
 * chosen ones' server indexes in order. */
static void chosen_of(const cf_json *sum, char *out, size_t cap)
{
    const cf_json *reps = cf_json_get(sum, "replicas");
    assert_non_null(reps);
    out[0] = '\0';
    for (size_t i = 0; i < reps->n; i++) {
        if (cf_json_get(&reps->items[i], "chosen")->kind != CF_JSON_TRUE)
            continue;
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%s", n ? "," : "",
                 cf_json_get(&reps->items[i], "server")->str);
    }
}

/* ---- rows compared with the layouts' expected files ------------------------------------------ */

static void expected(const char *layout, cf_json_doc *d)
{
    char p[800], msg[200];
    layout_dir(p, sizeof p, layout);
    strcat(p, "/expected/tablet_latest.json");
    if (cf_json_parse_file(d, p, msg, sizeof msg) != 0)
        fail_msg("%s: %s", p, msg);
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t days_of(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* One value of `cfile parquet dump --json` (decimals as "79619.30", dates as
 * "2022-11-07") or `table scan --json` against the expected form (unscaled
 * decimals, days, FLOAT to nine digits). */
static bool value_eq(const cf_json *got, const cf_json *want, const char *type)
{
    if (got->kind == CF_JSON_NULL || want->kind == CF_JSON_NULL)
        return got->kind == want->kind;
    if (strncmp(type, "DECIMAL", 7) == 0 && got->kind == CF_JSON_STRING) {
        char digits[64];
        size_t k = 0;
        for (size_t i = 0; i < got->len && k + 1 < sizeof digits; i++)
            if (got->str[i] != '.')
                digits[k++] = got->str[i];
        digits[k] = '\0';
        return strtoll(digits, NULL, 10) == strtoll(want->str, NULL, 10);
    }
    if (strcmp(type, "DATE") == 0 && got->kind == CF_JSON_STRING) {
        int y, m, d;
        if (sscanf(got->str, "%d-%d-%d", &y, &m, &d) != 3)
            return false;
        return days_of(y, m, d) == strtoll(want->str, NULL, 10);
    }
    if (got->kind != want->kind)
        return false;
    if (strcmp(type, "FLOAT") == 0)
        return strtof(got->str, NULL) == strtof(want->str, NULL);
    if (got->kind == CF_JSON_NUMBER)
        return strcmp(got->str, want->str) == 0 ||
               strtod(got->str, NULL) == strtod(want->str, NULL);
    if (got->kind == CF_JSON_STRING)
        return got->len == want->len && memcmp(got->str, want->str, got->len) == 0;
    return true;
}

/* Rows [from, from + n) of `got` (arrays in schema order, or objects) equal the
 * layout's expected rows. */
static void expect_rows(const cf_json *got, size_t from, const char *layout)
{
    cf_json_doc want;
    expected(layout, &want);
    const cf_json *rows = cf_json_get(&want.root, "rows");
    const cf_json *schema = cf_json_get(&want.root, "schema");
    assert_true(from + rows->n <= got->n);
    for (size_t i = 0; i < rows->n; i++) {
        const cf_json *g = &got->items[from + i], *w = &rows->items[i];
        for (size_t c = 0; c < schema->n; c++) {
            const char *name = cf_json_get(&schema->items[c], "name")->str;
            const char *type = cf_json_get(&schema->items[c], "type")->str;
            const cf_json *gv = g->kind == CF_JSON_ARRAY ? &g->items[c] : cf_json_get(g, name);
            const cf_json *wv = cf_json_get(w, name);
            assert_true(gv != NULL && wv != NULL);
            if (!value_eq(gv, wv, type))
                fail_msg("%s row %zu (output row %zu) column %s: got %.*s, want %.*s", layout, i,
                         from + i, name, (int)gv->len, gv->str ? gv->str : "", (int)wv->len,
                         wv->str ? wv->str : "");
        }
    }
    cf_json_doc_dispose(&want);
}

/* The Parquet file's rows, read back by `cfile parquet dump --json`. */
static void parquet_rows(const char *file, cf_json_doc *d)
{
    run r = {0};
    cli2(&r, "parquet", "dump", "--json", file);
    EXPECT_RC(r, 0);
    parse(d, r.out, r.out_len);
    run_done(&r);
}

/* The table's rows as JSON lines of `cfile table scan --json`, as one array. */
static void table_rows(const char *dir, cf_json_doc *d)
{
    run r = {0};
    cli2(&r, "table", "scan", dir, "--json");
    EXPECT_RC(r, 0);
    char *arr = malloc(r.out_len + 3);
    assert_non_null(arr);
    size_t k = 0;
    arr[k++] = '[';
    for (size_t i = 0; i < r.out_len; i++)
        arr[k++] = r.out[i] == '\n' && i + 1 < r.out_len ? ',' : r.out[i];
    arr[k++] = ']';
    parse(d, arr, k);
    free(arr);
    run_done(&r);
}

/* ---- nothing under the servers changes ---------------------------------------------------- */

static FILE *snap_out;

static int snap_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)flag;
    (void)f;
    uint64_t h = 1469598103934665603ull;
    if (S_ISREG(st->st_mode)) {
        size_t len = 0;
        uint8_t *b = cf_test_read_file(p, &len);
        for (size_t i = 0; b != NULL && i < len; i++)
            h = (h ^ b[i]) * 1099511628211ull;
        free(b);
    }
    fprintf(snap_out, "%s %lld %o %lld.%09ld %016" PRIx64 "\n", p, (long long)st->st_size,
            (unsigned)st->st_mode, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec, h);
    return 0;
}

/* Every path under tmp's servers s0..s<n-1> (not the outputs) with size, mode, mtime and a
 * hash of its bytes. */
static char *snapshot(int nservers)
{
    char *buf = NULL;
    size_t len = 0;
    snap_out = open_memstream(&buf, &len);
    for (int i = 0; i < nservers; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/s%d", tmp, i);
        struct stat st;
        if (stat(p, &st) == 0)
            nftw(p, snap_one, 16, FTW_PHYS);
    }
    fclose(snap_out);
    return buf;
}

/* The two snapshots equal, or a failure naming the first line that differs. */
static void same_snapshot(const char *before, const char *after)
{
    size_t i = 0;
    while (before[i] != '\0' && before[i] == after[i])
        i++;
    if (before[i] == '\0' && after[i] == '\0')
        return;
    while (i > 0 && before[i - 1] != '\n')
        i--;
    fail_msg("a file under the servers changed: before %.200s; after %.200s", before + i,
             after + i);
}

static int setup(void **state)
{
    (void)state;
    kfs_tmpdir(tmp, sizeof tmp);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cf_test_rm_rf(tmp);
    while (nowned > 0)
        free(owned[--nowned]);
    return 0;
}

static char *out_path(const char *name)
{
    static char p[8][700];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", tmp, name);
    return p[k];
}

/* ---- tests ---------------------------------------------------------------------------------- */

/* Two replicas of one tablet, one missing its WAL's last segment: the longer log
 * is taken whichever server comes first; its rows are the layout's. */
static void test_replica__newer_wal_taken(void **state)
{
    (void)state;
    srv a, b;
    two_servers(&a, &b, "lbm-basic-s1");
    cut_last_segment(&a);
    char *before = snapshot(3);

    srv *both[] = {&a, &b}, *rev[] = {&b, &a};
    cf_kudu_fs *fs[2];
    cf_kudu_replicas *r = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(find(&r, both, 2, "kudu_fsgen_table", NULL, false, fs, &e), &e);
    assert_int_equal(cf_kudu_replicas_tablet_count(r), 1);
    assert_int_equal(cf_kudu_replicas_count(r), 2);
    const cf_kudu_replica *c = cf_kudu_replicas_chosen_at(r, 0);
    assert_int_equal(c->server, 1);
    const cf_kudu_replica *o = cf_kudu_replicas_at(r, 0);
    assert_int_equal(o->server, 0);
    assert_false(o->chosen);
    assert_true(o->last_term == c->last_term && o->last_index < c->last_index);
    assert_int_equal(c->current_term, 1);
    assert_string_equal(cf_kudu_tablet_id(cf_kudu_replicas_tablet_at(r, 0)), b.tablet);
    cf_kudu_replicas_free(r);
    fs_free_all(fs, 2);

    /* Parquet, both server orders. */
    for (int k = 0; k < 2; k++) {
        run x = {0};
        const char *sel[] = {"--kudu-table", "kudu_fsgen_table", NULL};
        char *out = out_path(k ? "rev.parquet" : "t.parquet");
        convert(&x, k ? rev : both, 2, sel, out);
        EXPECT_RC(x, 0);
        cf_json_doc sum;
        parse(&sum, x.out, x.out_len);
        char ch[32];
        chosen_of(&sum.root, ch, sizeof ch);
        assert_string_equal(ch, k ? "1" : "2"); /* 1 = the first server given */
        assert_string_equal(cf_json_get(&sum.root, "rows")->str, "7487");
        assert_string_equal(cf_json_get(&sum.root, "tablets")->str, "1");
        cf_json_doc_dispose(&sum);
        run_done(&x);
        cf_json_doc rows;
        parquet_rows(out, &rows);
        const cf_json *rr = cf_json_get(&rows.root, "rows");
        assert_int_equal(rr->n, 7487);
        expect_rows(rr, 0, "lbm-basic-s1");
        cf_json_doc_dispose(&rows);
    }
    /* A table, from the tablet by id. */
    run x = {0};
    const char *sel[] = {"--kudu-tablet", b.tablet, "--to", "table", NULL};
    convert(&x, both, 2, sel, out_path("tbl"));
    EXPECT_RC(x, 0);
    cf_json_doc sum;
    parse(&sum, x.out, x.out_len);
    assert_string_equal(cf_json_get(&sum.root, "to")->str, "table");
    assert_string_equal(cf_json_get(&sum.root, "rows")->str, "7487");
    assert_string_equal(cf_json_get(&sum.root, "key")->items[0].str, "id");
    cf_json_doc_dispose(&sum);
    run_done(&x);
    cf_json_doc rows;
    table_rows(out_path("tbl"), &rows);
    assert_int_equal(rows.root.n, 7487);
    expect_rows(&rows.root, 0, "lbm-basic-s1");
    cf_json_doc_dispose(&rows);

    char *after = snapshot(3);
    same_snapshot(before, after);
    free(before);
    free(after);
}

/* Equal logs: the larger current_term; a larger term with a shorter log: the
 * longer log still (Raft's order). */
static void test_replica__term_breaks_ties(void **state)
{
    (void)state;
    srv a, b;
    two_servers(&a, &b, "lbm-compound-s2");
    set_term(&b, 7);
    srv *both[] = {&a, &b};
    cf_kudu_fs *fs[2];
    cf_kudu_replicas *r = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(find(&r, both, 2, "metrics", NULL, false, fs, &e), &e);
    assert_int_equal(cf_kudu_replicas_chosen_at(r, 0)->server, 1);
    assert_int_equal(cf_kudu_replicas_chosen_at(r, 0)->current_term, 7);
    cf_kudu_replicas_free(r);
    fs_free_all(fs, 2);

    cut_last_segment(&b);
    set_term(&a, 2);
    set_term(&b, 9);
    CF_ASSERT_OK(find(&r, both, 2, "metrics", NULL, false, fs, &e), &e);
    assert_int_equal(cf_kudu_replicas_chosen_at(r, 0)->server, 0);
    assert_int_equal(cf_kudu_replicas_at(r, 1)->current_term, 9);
    cf_kudu_replicas_free(r);
    fs_free_all(fs, 2);

    run x = {0};
    const char *sel[] = {"--kudu-table", "metrics", NULL};
    convert(&x, both, 2, sel, out_path("m.parquet"));
    EXPECT_RC(x, 0);
    cf_json_doc rows;
    parquet_rows(out_path("m.parquet"), &rows);
    expect_rows(cf_json_get(&rows.root, "rows"), 0, "lbm-compound-s2");
    assert_int_equal(cf_json_get(&rows.root, "rows")->n, 7421);
    cf_json_doc_dispose(&rows);
    run_done(&x);
}

/* TOMBSTONED, DELETED and COPYING replicas are never taken, however long their
 * logs; a tablet with no other replica is refused (exit 1, no OUT). */
static void test_replica__not_ready_never_taken(void **state)
{
    (void)state;
    static const int states[] = {KUDU__TABLET__TABLET_DATA_STATE__TABLET_DATA_TOMBSTONED,
                                 KUDU__TABLET__TABLET_DATA_STATE__TABLET_DATA_DELETED,
                                 KUDU__TABLET__TABLET_DATA_STATE__TABLET_DATA_COPYING};
    for (size_t k = 0; k < 3; k++) {
        srv a, b;
        two_servers(&a, &b, "lbm-onedir-s3");
        cut_last_segment(&a);
        rewrite_superblock(&b, NULL, NULL, NULL, states[k]);
        set_term(&b, 5);
        srv *both[] = {&a, &b};
        cf_kudu_fs *fs[2];
        cf_kudu_replicas *r = NULL;
        cf_error e = {0};
        CF_ASSERT_OK(find(&r, both, 2, "kudu_fsgen_table", NULL, false, fs, &e), &e);
        assert_int_equal(cf_kudu_replicas_chosen_at(r, 0)->server, 0);
        assert_non_null(cf_kudu_replicas_at(r, 1)->data_state);
        assert_string_not_equal(cf_kudu_replicas_at(r, 1)->data_state, "TABLET_DATA_READY");
        cf_kudu_replicas_free(r);
        fs_free_all(fs, 2);

        srv *only[] = {&b};
        CF_ASSERT_STATUS(find(&r, only, 1, "kudu_fsgen_table", NULL, false, fs, &e), CF_ENOTFOUND,
                         &e);
        assert_non_null(strstr(e.msg, b.tablet));
        fs_free_all(fs, 1);
        run x = {0};
        const char *sel[] = {"--kudu-tablet", b.tablet, NULL};
        convert(&x, only, 1, sel, out_path("n.parquet"));
        EXPECT_RC(x, 1);
        struct stat st;
        assert_int_not_equal(stat(out_path("n.parquet"), &st), 0);
        run_done(&x);
        cf_test_rm_rf(a.root);
        cf_test_rm_rf(b.root);
    }
}

/* A replica whose WAL is damaged fails the search (naming the segment) unless
 * skip_damaged, which takes the other replica and reports the problem. */
static void test_replica__damaged_replica(void **state)
{
    (void)state;
    srv a, b;
    two_servers(&a, &b, "fbm-small-s4");
    char p[1400];
    snprintf(p, sizeof p, "%s/wals/%s/wal-000000005", b.wal, b.tablet);
    FILE *f = fopen(p, "r+b");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size / 2, SEEK_SET);
    int ch = fgetc(f);
    fseek(f, size / 2, SEEK_SET);
    fputc(ch ^ 0x55, f);
    fclose(f);
    srv *both[] = {&a, &b};
    cf_kudu_fs *fs[2];
    cf_kudu_replicas *r = NULL;
    cf_error e = {0};
    CF_ASSERT_STATUS(find(&r, both, 2, "kudu_fsgen_table", NULL, false, fs, &e), CF_ECORRUPT, &e);
    assert_non_null(strstr(e.msg, "wal-000000005"));
    fs_free_all(fs, 2);
    CF_ASSERT_OK(find(&r, both, 2, "kudu_fsgen_table", NULL, true, fs, &e), &e);
    assert_int_equal(cf_kudu_replicas_chosen_at(r, 0)->server, 0);
    assert_non_null(cf_kudu_replicas_at(r, 1)->problem);
    cf_kudu_replicas_free(r);
    fs_free_all(fs, 2);

    run x = {0};
    const char *sel[] = {"--kudu-table", "kudu_fsgen_table", NULL};
    convert(&x, both, 2, sel, out_path("d.parquet"));
    EXPECT_RC(x, 1);
    run_done(&x);
    const char *sel2[] = {"--kudu-table", "kudu_fsgen_table", "--skip-damaged-replicas", NULL};
    convert(&x, both, 2, sel2, out_path("d.parquet"));
    EXPECT_RC(x, 0);
    assert_non_null(strstr(x.err, "passed over"));
    assert_non_null(strstr(x.err, "server 2"));
    cf_json_doc sum;
    parse(&sum, x.out, x.out_len);
    assert_string_equal(cf_json_get(&sum.root, "rows")->str, "1738");
    cf_json_doc_dispose(&sum);
    run_done(&x);
    /* The only replica needs no judging: taken with its problem kept, and a scan
     * without the WAL reads it (its consensus metadata gone, too). */
    srv *only[] = {&b};
    snprintf(p, sizeof p, "%s/consensus-meta/%s", b.wal, b.tablet);
    assert_int_equal(unlink(p), 0);
    CF_ASSERT_OK(find(&r, only, 1, "kudu_fsgen_table", NULL, false, fs, &e), &e);
    assert_true(cf_kudu_replicas_chosen_at(r, 0)->chosen);
    assert_non_null(cf_kudu_replicas_chosen_at(r, 0)->problem);
    cf_kudu_replicas_free(r);
    fs_free_all(fs, 1);
    const char *nowal[] = {"--kudu-tablet", b.tablet, "--no-wal", NULL};
    convert(&x, only, 1, nowal, out_path("w.parquet"));
    EXPECT_RC(x, 0);
    parse(&sum, x.out, x.out_len);
    assert_string_equal(cf_json_get(&sum.root, "rows")->str, "1702"); /* flushed rows */
    cf_json_doc_dispose(&sum);
    run_done(&x);
}

/* Three layouts made the tablets of one table (same table id, partitions ["",
 * "b"), ["b", "m"), ["m", "")): all rows, tablet after tablet in partition key
 * order, whatever order the servers come in; into a table the tablets' equal keys
 * are duplicates (exit 1, no table left); a fourth tablet with another schema is
 * refused; a name two tables have is refused, their ids work. */
static void test_replica__table_across_servers(void **state)
{
    (void)state;
    if (!have_layouts())
        skip();
    srv a, b, c, d;
    make_server(&a, "s0", "lbm-onedir-s3");   /* ["m", "") */
    make_server(&b, "s1", "lbm-basic-s1");    /* ["b", "m") */
    make_server(&c, "s2", "fbm-small-s4");    /* ["", "b") */
    make_server(&d, "s3", "lbm-compound-s2"); /* another schema */
    char id[64], onedir_id[64];
    table_id_of(&b, id, sizeof id);
    table_id_of(&a, onedir_id, sizeof onedir_id);

    /* Two tables named kudu_fsgen_table: refused, each id works alone. */
    srv *ab[] = {&a, &b};
    run x = {0};
    const char *byname[] = {"--kudu-table", "kudu_fsgen_table", NULL};
    convert(&x, ab, 2, byname, out_path("amb.parquet"));
    EXPECT_RC(x, 1);
    assert_non_null(strstr(x.err, id));
    assert_non_null(strstr(x.err, onedir_id));
    run_done(&x);
    const char *byid[] = {"--kudu-table-id", onedir_id, NULL};
    convert(&x, ab, 2, byid, out_path("one.parquet"));
    EXPECT_RC(x, 0);
    cf_json_doc sum;
    parse(&sum, x.out, x.out_len);
    assert_string_equal(cf_json_get(&sum.root, "rows")->str, "5572");
    cf_json_doc_dispose(&sum);
    run_done(&x);

    rewrite_superblock(&a, id, "m", "", -1);
    rewrite_superblock(&b, NULL, "b", "m", -1);
    rewrite_superblock(&c, id, "", "b", -1);
    char *before = snapshot(3);
    srv *all[] = {&a, &b, &c};
    cf_kudu_fs *fs[4];
    cf_kudu_replicas *r = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(find(&r, all, 3, NULL, id, false, fs, &e), &e);
    assert_int_equal(cf_kudu_replicas_tablet_count(r), 3);
    assert_string_equal(cf_kudu_replicas_chosen_at(r, 0)->tablet_id, c.tablet);
    assert_string_equal(cf_kudu_replicas_chosen_at(r, 1)->tablet_id, b.tablet);
    assert_string_equal(cf_kudu_replicas_chosen_at(r, 2)->tablet_id, a.tablet);
    assert_int_equal(cf_kudu_replicas_chosen_at(r, 1)->partition_key_start_len, 1);
    cf_kudu_replicas_free(r);
    fs_free_all(fs, 3);

    const char *sel[] = {"--kudu-table", "kudu_fsgen_table", NULL};
    convert(&x, all, 3, sel, out_path("all.parquet"));
    EXPECT_RC(x, 0);
    parse(&sum, x.out, x.out_len);
    assert_string_equal(cf_json_get(&sum.root, "rows")->str, "14797"); /* 1738 + 7487 + 5572 */
    assert_string_equal(cf_json_get(&sum.root, "tablets")->str, "3");
    const cf_json *reps = cf_json_get(&sum.root, "replicas");
    assert_int_equal(reps->n, 3);
    assert_string_equal(cf_json_get(&reps->items[1], "partition_key_start")->str, "62");
    cf_json_doc_dispose(&sum);
    run_done(&x);
    cf_json_doc rows;
    parquet_rows(out_path("all.parquet"), &rows);
    const cf_json *rr = cf_json_get(&rows.root, "rows");
    assert_int_equal(rr->n, 14797);
    expect_rows(rr, 0, "fbm-small-s4");
    expect_rows(rr, 1738, "lbm-basic-s1");
    expect_rows(rr, 1738 + 7487, "lbm-onedir-s3");
    cf_json_doc_dispose(&rows);

    /* Into a table: the same keys in three tablets are duplicates, all or nothing. */
    const char *tsel[] = {"--kudu-table-id", id, "--to", "table", NULL};
    convert(&x, all, 3, tsel, out_path("dup"));
    EXPECT_RC(x, 1);
    assert_non_null(strstr(x.err, "duplicate"));
    struct stat st;
    assert_int_not_equal(stat(out_path("dup"), &st), 0); /* its LOCK was left before */
    run_done(&x);

    /* Another schema in the same table. */
    rewrite_superblock(&d, id, "z", "", -1);
    srv *four[] = {&a, &b, &c, &d};
    CF_ASSERT_STATUS(find(&r, four, 4, NULL, id, false, fs, &e), CF_EINVAL, &e);
    assert_non_null(strstr(e.msg, "schemas"));
    assert_non_null(strstr(e.msg, d.tablet));
    fs_free_all(fs, 4);
    const char *isel[] = {"--kudu-table-id", id, NULL};
    convert(&x, four, 4, isel, out_path("schema.parquet"));
    EXPECT_RC(x, 1);
    assert_non_null(strstr(x.err, "schemas"));
    assert_int_not_equal(stat(out_path("schema.parquet"), &st), 0);
    run_done(&x);

    char *after = snapshot(3); /* s3 was rewritten after the first */
    same_snapshot(before, after);
    free(before);
    free(after);
}

typedef struct sweep_ctx {
    cf_kudu_fs *fs[2];
} sweep_ctx;

static cf_status sweep_find(void *ctx, cf_error *err)
{
    sweep_ctx *x = ctx;
    cf_kudu_replicas_options o;
    cf_kudu_replicas_options_init(&o);
    o.table_name = "kudu_fsgen_table";
    cf_kudu_replicas *r = NULL;
    cf_status st = cf_kudu_replicas_find(&r, (const cf_kudu_fs *const *)x->fs, 2, &o, err);
    if (st == CF_OK && cf_kudu_replicas_chosen_at(r, 0)->server != 1)
        st = CF_EINVAL; /* a wrong choice is no success */
    cf_kudu_replicas_free(r);
    return st;
}

/* Every allocation of the search failing in turn: CF_ENOMEM, nothing leaked, and
 * never a choice made from a replica judged under a failed allocation. */
static void test_replica__alloc_failures(void **state)
{
    (void)state;
    srv a, b;
    two_servers(&a, &b, "fbm-small-s4");
    cut_last_segment(&a);
    sweep_ctx x = {{srv_open(&a), srv_open(&b)}};
    cf_test_alloc_sweep("replicas find", NULL, sweep_find, &x, 200000);
    fs_free_all(x.fs, 2);
}

/* Usage errors exit 2. */
static void test_replica__usage(void **state)
{
    (void)state;
    if (!have_layouts())
        skip();
    srv a;
    make_server(&a, "s0", "lbm-basic-s1");
    srv *one[] = {&a};
    static const char *const cases[][8] = {
        {"--kudu-table", "t", "--kudu-tablet", "x", NULL}, /* a table and a tablet */
        {"--kudu-table", "t", "--to", "cfiles", NULL},     /* not a Kudu output */
        {"--kudu-table", "t", "--key", "id", NULL},        /* the key is the tablet's */
        {"--kudu-table", "t", "--ts", "5", NULL},          /* --ts is for --to table */
        {"--kudu-table", "t", "--fs-metadata-dir", "m", "--fs-metadata-dir", "n", NULL},
        {"--no-wal", NULL}, /* no tablet or table */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run x = {0};
        convert(&x, one, 1, cases[i], out_path("u.parquet"));
        if (x.rc != 2)
            fail_msg("case %zu: exit %d, want 2: %s", i, x.rc, x.err);
        run_done(&x);
    }
    run x = {0};
    const char *sel[] = {"--kudu-table", "kudu_fsgen_table", NULL};
    convert(&x, one, 1, sel, out_path("u.csv"));
    EXPECT_RC(x, 2); /* OUT neither .parquet nor --to table */
    run_done(&x);
    const char *none[] = {"--kudu-table", "no_such_table", NULL};
    convert(&x, one, 1, none, out_path("u.parquet"));
    EXPECT_RC(x, 1);
    run_done(&x);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_replica__newer_wal_taken, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replica__term_breaks_ties, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replica__not_ready_never_taken, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replica__damaged_replica, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replica__table_across_servers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replica__alloc_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replica__usage, setup, teardown),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
