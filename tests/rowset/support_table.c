/* Shared by the table tests: see support_table.h. */
#include "support_table.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/endian.h"

void table_create(const char *dir, const char *schema)
{
    cf_error err;
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, schema, &err), &err);
    CF_ASSERT_OK(cf_rowset_create_empty(dir, s, &err), &err);
    cf_schema_free(s);
}

cf_table *table_open(const char *dir)
{
    cf_error err;
    cf_table *t;
    CF_ASSERT_OK(cf_table_open(&t, dir, NULL, &err), &err);
    return t;
}

cf_table *table_create_open(const char *dir, const char *schema)
{
    table_create(dir, schema);
    return table_open(dir);
}

cf_table_scanner *table_scan_open(cf_table *t, const cf_scan_options *o)
{
    cf_error err;
    cf_table_scanner *sc;
    CF_ASSERT_OK(cf_table_scanner_create(&sc, t, o, &err), &err);
    return sc;
}

bool table_scan_next(cf_table_scanner *sc, cf_row_batch *b)
{
    cf_error err;
    CF_ASSERT_OK(cf_table_scanner_next(sc, b, &err), &err);
    return b->count > 0;
}

cf_rowset_scanner *rowset_scan_open(cf_rowset *rs, const cf_scan_options *o)
{
    cf_error err;
    cf_rowset_scanner *sc;
    CF_ASSERT_OK(cf_rowset_scanner_create(&sc, rs, o, &err), &err);
    return sc;
}

void rowset_write(const char *dir, const cf_schema *s, const cf_rowset_writer_options *wo,
                  const cf_colvec *cols, size_t n)
{
    cf_error err;
    cf_rowset_writer *w;
    CF_ASSERT_OK(cf_rowset_writer_create(&w, dir, s, wo, &err), &err);
    CF_ASSERT_OK(cf_rowset_writer_append(w, cols, n, &err), &err);
    CF_ASSERT_OK(cf_rowset_writer_finish(w, &err), &err);
    cf_rowset_writer_free(w);
}

bool rowset_scan_next(cf_rowset_scanner *sc, cf_row_batch *b)
{
    cf_error err;
    CF_ASSERT_OK(cf_rowset_scanner_next(sc, b, &err), &err);
    return b->count > 0;
}

size_t table_count_rows(cf_table *t)
{
    cf_table_scanner *sc = table_scan_open(t, NULL);
    size_t n = 0;
    cf_row_batch b;
    while (table_scan_next(sc, &b))
        n += b.count;
    cf_table_scanner_free(sc);
    return n;
}

/* The first rs-* directory in dir from `d` on that t does not name, or NULL. */
static const char *next_stray(cf_table *t, DIR *d)
{
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "rs-", 3) != 0)
            continue;
        bool named = false;
        for (size_t i = 0; i < cf_table_rowset_count(t) && !named; i++) {
            const char *nm;
            cf_table_rowset_at(t, i, &nm);
            named = strcmp(nm, e->d_name) == 0;
        }
        if (!named)
            return e->d_name;
    }
    return NULL;
}

char *table_scan_text(cf_table *t, const cf_scan_options *o, table_row_text_fn fn, void *ctx)
{
    cf_table_scanner *sc = table_scan_open(t, o);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    cf_row_batch b;
    while (table_scan_next(sc, &b))
        for (size_t r = 0; r < b.count; r++)
            fn(f, &b, r, ctx);
    assert_int_equal(fclose(f), 0);
    cf_table_scanner_free(sc);
    return buf;
}

size_t stray_rowsets(cf_table *t, const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    while (next_stray(t, d) != NULL)
        n++;
    closedir(d);
    return n;
}

void check_no_stray_rowsets(cf_table *t, const char *dir, const char *what)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    const char *stray = next_stray(t, d);
    if (stray != NULL)
        fail_msg("%s: %s/%s: a rowset directory the table does not name (left behind)", what, dir,
                 stray);
    closedir(d);
}

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void copy_tree(const char *from, const char *to)
{
    char cmd[1024];
    assert_true(snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -a '%s' '%s'", to, from, to) <
                (int)sizeof(cmd));
    assert_int_equal(system(cmd), 0);
}

int run_child(child_fn fn, void *ctx, double kill_after, bool must_die, const char *what)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        _exit(fn(ctx, p[1]));
    }
    close(p[1]);
    if (kill_after >= 0) {
        usleep((useconds_t)(kill_after * 1e6));
        kill(pid, SIGKILL);
    }
    int status;
    waitpid(pid, &status, 0);
    bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    bool exit0 = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (kill_after < 0 ? !exit0 : must_die ? !killed : !(killed || exit0))
        fail_msg("%s: the child %s (status %d)", what,
                 kill_after >= 0 && must_die && exit0 ? "ended by itself" : "failed", status);
    return p[0];
}

/* run_table_child's child: the table opened, fn run on it. */
typedef struct table_child {
    const char *dir;
    table_child_fn fn;
    void *ctx;
} table_child;

static int table_child_run(void *ctx, int fd)
{
    (void)fd;
    const table_child *c = ctx;
    cf_error err;
    cf_table *t;
    if (cf_table_open(&t, c->dir, NULL, &err) != CF_OK)
        return 2;
    cf_status st = c->fn(t, c->ctx, &err);
    cf_table_free(t);
    return st == CF_OK ? 0 : 1;
}

double run_table_child(const char *dir, table_child_fn fn, void *ctx, double kill_after, double *t0)
{
    double start = now_s();
    if (t0 != NULL)
        *t0 = start;
    table_child c = {dir, fn, ctx};
    close(run_child(table_child_run, &c, kill_after, false, dir));
    return now_s() - start;
}

size_t wal_records(const uint8_t *bytes, size_t len, wal_record_fn fn, void *ctx)
{
    cf_wal_reader r;
    cf_wal_reader_init(&r, bytes, len, "seg");
    cf_error err;
    size_t nrec = 0;
    for (bool has = true;;) {
        size_t start = r.off;
        cf_slice payload;
        CF_ASSERT_OK(cf_wal_reader_next(&r, &payload, &has, &err), &err);
        if (!has || !fn(payload, start, nrec, ctx))
            return nrec;
        nrec++;
    }
}

/* wal_rewrite's state: the segment being written and its options. */
typedef struct rewrite_ctx {
    cf_buf out, payload;
    uint32_t version, want_from;
    wal_op_edit edit;
    void *ctx;
} rewrite_ctx;

/* One record of the segment, its ops edited and encoded again. */
static bool rewrite_record(cf_slice p, size_t start, size_t rec, void *ctx)
{
    (void)start;
    rewrite_ctx *rw = ctx;
    cf_error err;
    cf_wal_batch b;
    CF_ASSERT_OK(cf_wal_batch_begin(&b, p, &err), &err);
    if (rw->version != 0)
        assert_int_equal(b.format, rw->want_from);
    cf_buf_clear(&rw->payload);
    for (;;) {
        cf_wal_op op;
        bool has;
        CF_ASSERT_OK(cf_wal_batch_next(&b, &op, &has, &err), &err);
        if (!has)
            break;
        if (rw->edit != NULL)
            rw->edit(&op, rec, rw->ctx);
        cf_wal_batch_encode_v(&rw->payload, &op, 1, rw->version ? rw->version : CF_WAL_VERSION);
    }
    /* one op per record, as the table writes them */
    cf_wal_record_encode(&rw->out, rw->payload.data, rw->payload.len);
    return true;
}

size_t wal_rewrite(const char *path, uint32_t version, uint32_t want_from, wal_op_edit edit,
                   void *ctx)
{
    size_t len;
    uint8_t *bytes = cf_test_read_file(path, &len);
    assert_non_null(bytes);
    assert_true(len >= CF_WAL_HEADER_LEN);
    rewrite_ctx rw = {.version = version, .want_from = want_from, .edit = edit, .ctx = ctx};
    cf_buf_init(&rw.out);
    cf_buf_init(&rw.payload);
    if (version == 0) {
        cf_buf_append(&rw.out, bytes, CF_WAL_HEADER_LEN);
    } else {
        cf_error err;
        cf_wal_header h;
        CF_ASSERT_OK(cf_wal_header_parse(bytes, len, "seg", &h, &err), &err);
        uint8_t hdr[CF_WAL_HEADER_LEN];
        h.version = version;
        cf_wal_header_encode(hdr, &h);
        assert_int_equal(cf_load_le32(hdr + 8), version);
        cf_buf_append(&rw.out, hdr, sizeof(hdr));
    }
    size_t nrec = wal_records(bytes, len, rewrite_record, &rw);
    cf_test_write_file(path, rw.out.data, rw.out.len);
    cf_buf_dispose(&rw.out);
    cf_buf_dispose(&rw.payload);
    free(bytes);
    return nrec;
}

void moved_dir_setup(const char *base, char *a, char *b, char *c, size_t cap)
{
    assert_true(snprintf(a, cap, "%s/a", base) < (int)cap);
    assert_true(snprintf(b, cap, "%s/b", base) < (int)cap);
    assert_true(snprintf(c, cap, "%s/c", base) < (int)cap);
    assert_int_equal(mkdir(a, 0777), 0);
    assert_int_equal(mkdir(c, 0777), 0);
}

void move_under_writer(const char *a, const char *b, const char *c)
{
    assert_int_equal(rename(a, b), 0);
    assert_int_equal(symlink(c, a), 0);
}

size_t dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}
