/* `cfile table import`: CSV (csv.h) or JSON lines into a table through one bulk
 * loader (rowset.h "bulk loads"): all rows or none. */
#include "cli.h"
#include "csv.h"
#include "import_rows.h"
#include "table_args.h"
#include "values.h"

#if CF_HAVE_PARQUET
#include <cfile/parquet.h>
#endif
#include <cfile/rowset.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void line_map_note(cf_line_map *m, uint64_t row, uint64_t line)
{
    if (m->n > 0 && line - row == m->at[m->n - 1][1] - m->at[m->n - 1][0])
        return;
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        uint64_t(*p)[2] = realloc(m->at, cap * sizeof(*p));
        if (p == NULL) {
            m->oom = true;
            return;
        }
        m->at = p;
        m->cap = cap;
    }
    m->at[m->n][0] = row;
    m->at[m->n][1] = line;
    m->n++;
}

/* The line of row `row` (0: unknown). */
static uint64_t line_map_get(const cf_line_map *m, uint64_t row)
{
    if (m->oom || m->n == 0 || row < m->at[0][0])
        return 0;
    size_t lo = 0, hi = m->n; /* the last entry at or before row */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->at[mid][0] <= row)
            lo = mid;
        else
            hi = mid;
    }
    return row - m->at[lo][0] + m->at[lo][1];
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_bit(uint8_t *bm, size_t i, bool on)
{
    if (on)
        bm[i >> 3] |= (uint8_t)(1u << (i & 7));
    else
        bm[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

/* Value v (a value form, null included) into row im->r of column x; -1 with msg. */
static int put_value(cf_importer *im, cf_import_col *x, const cf_json *v, char *msg, size_t cap)
{
    size_t r = im->r;
    if (v->kind == CF_JSON_NULL) {
        if (!x->c->nullable)
            return snprintf(msg, cap, "column '%s' cannot be NULL%s", x->c->name,
                            cf_type_is_binary(x->c->type) || x->c->is_array
                                ? ""
                                : " (an empty CSV field is NULL)"),
                   -1;
        set_bit(x->nn, r, false);
        memset(x->vals + r * x->w, 0, x->w);
        x->counts[r] = 0;
        return 0;
    }
    set_bit(x->nn, r, true);
    if (!x->c->is_array) {
        bool is_null;
        if (cf_cli_value_parse_col(v, x->c->type, x->c->precision, x->c->scale, x->vals + r * x->w,
                                   &is_null, &im->arena, msg, cap) != 0)
            return -1;
        return 0;
    }
    if (v->kind != CF_JSON_ARRAY)
        return snprintf(msg, cap, "an array column takes [element, ...]"), -1;
    if (v->n > 65535)
        return snprintf(msg, cap, "an array cell of %zu elements (at most 65535)", v->n), -1;
    if (x->ne + v->n > x->ecap) {
        size_t ncap = (x->ne + v->n) * 2 + 64;
        uint8_t *e = realloc(x->elems, ncap * x->w);
        if (e != NULL)
            x->elems = e;
        uint8_t *b = e != NULL ? realloc(x->enn, ncap / 8 + 1) : NULL;
        if (b == NULL)
            return snprintf(msg, cap, "out of memory"), -1;
        x->enn = b;
        x->ecap = ncap;
    }
    for (size_t i = 0; i < v->n; i++) {
        bool is_null = false;
        size_t k = x->ne + i;
        if (cf_cli_value_parse_col(&v->items[i], x->c->type, x->c->precision, x->c->scale,
                                   x->elems + k * x->w, &is_null, &im->arena, msg, cap) != 0)
            return -1;
        set_bit(x->enn, k, !is_null);
    }
    x->ne += v->n;
    x->counts[r] = (uint32_t)v->n;
    return 0;
}

/* The loader's message without its "row N: " (the caller names the line). */
static const char *strip_row(const char *m)
{
    if (strncmp(m, "row ", 4) == 0) {
        const char *p = strstr(m, ": ");
        if (p != NULL)
            return p + 2;
    }
    return m;
}

#if CF_HAVE_PARQUET
/* The batch into the Parquet writer (cf_cli_rows_to_parquet) instead of a table. */
static int append_parquet(cf_importer *im)
{
    cf_error e;
    cf_batch b[CF_SCHEMA_MAX_COLUMNS];
    for (size_t i = 0; i < im->nc; i++) {
        cf_import_col *x = &im->ic[i];
        memset(&b[i], 0, sizeof(b[i]));
        b[i].count = im->r;
        b[i].nonnull = x->nn;
        if (x->c->is_array) {
            x->offs[0] = 0;
            for (size_t r = 0; r < im->r; r++)
                x->offs[r + 1] = x->offs[r] + x->counts[r];
            b[i].values = x->elems;
            b[i].elem_offsets = x->offs;
            b[i].elem_count = x->ne;
            b[i].elem_nonnull = x->enn;
        } else {
            b[i].values = x->vals;
        }
    }
    cf_status st = cf_parquet_writer_append(im->pw, b, im->r, &e);
    if (st != CF_OK) {
        uint64_t row = cf_parquet_writer_error_row(im->pw);
        if (row != UINT64_MAX && row >= im->total && row - im->total < im->r)
            return cf_cli_fail(im->c, "%s: line %" PRIu64 ": %s", im->file,
                               im->lines[row - im->total], e.msg);
        return cf_cli_lib_fail(im->c, im->file, st, &e);
    }
    if (im->progress)
        im->progress(im->progress_ctx, im->total + im->r);
    return 0;
}
#endif

/* A failure of the loader, naming the input line of the row it is about. */
static int loader_fail(cf_importer *im, cf_status st, const cf_error *e)
{
    uint64_t row = cf_table_loader_error_row(im->ld);
    uint64_t line = row != UINT64_MAX ? line_map_get(im->map, row) : 0;
    if (line == 0)
        return cf_cli_lib_fail(im->c, im->file, st, e);
    int rc = cf_cli_fail(im->c, "%s: line %" PRIu64 ": %s", im->file, line, strip_row(e->msg));
    return st == CF_ENOTSUP ? CF_EXIT_NOTSUP : rc;
}

/* The batch into the table loader. */
static int append_table(cf_importer *im)
{
    cf_error e;
    uint64_t before = cf_table_loader_rows(im->ld);
    for (size_t i = 0; i < im->r; i++)
        line_map_note(im->map, before + i, im->lines[i]);
    cf_status st = cf_table_loader_append(im->ld, im->cv, im->r, &e);
    return st != CF_OK ? loader_fail(im, st, &e) : 0;
}

int cf_import_flush(cf_importer *im)
{
    if (im->r == 0)
        return 0;
    for (size_t i = 0; i < im->nc; i++)
        im->cv[i] =
            (cf_colvec){im->ic[i].c->is_array ? (const void *)im->ic[i].elems : im->ic[i].vals,
                        im->ic[i].nn, im->ic[i].counts, im->ic[i].enn};
#if CF_HAVE_PARQUET
    int rc = im->pw != NULL ? append_parquet(im) : append_table(im);
#else
    int rc = append_table(im);
#endif
    if (rc != 0)
        return rc;
    im->total += im->r;
    im->r = 0;
    for (size_t i = 0; i < im->nc; i++)
        im->ic[i].ne = 0;
    cf_cli_arena_dispose(&im->arena);
    cf_cli_arena_init(&im->arena);
    return 0;
}

/* ---- CSV ---------------------------------------------------------------------------------- */

void cf_csv_cols_free(cf_csv_cols *cc)
{
    free(cc->map);
    free(cc->seen);
    cc->map = NULL;
    cc->seen = NULL;
}

int cf_csv_header(cf_importer *im, cf_csv *r, cf_csv_cols *cc)
{
    cf_cli *c = im->c;
    const cf_csv_field *f;
    size_t n;
    cc->map = calloc(im->nc + 1, sizeof(*cc->map)); /* field -> column */
    cc->seen = calloc(im->nc + 1, sizeof(*cc->seen));
    cc->nf = 0;
    if (cc->map == NULL || cc->seen == NULL)
        return cf_cli_fail(c, "out of memory");
    int got = cf_csv_next(r, &f, &n);
    if (got == 0)
        return cf_cli_fail(c, "%s: no header row", im->file);
    if (got < 0)
        return cf_cli_fail(c, "%s", r->msg);
    size_t *map = realloc(cc->map, (n + 1) * sizeof(*map));
    if (map == NULL)
        return cf_cli_fail(c, "out of memory");
    cc->map = map;
    for (size_t i = 0; i < n; i++) {
        int k = cf_schema_find(im->s, f[i].data);
        if (k < 0 || strlen(f[i].data) != f[i].len)
            return cf_cli_fail(c,
                               "%s: line %" PRIu64 ", column %" PRIu64
                               ": the header names '%.100s', which the schema lacks",
                               im->file, f[i].line, f[i].col, f[i].data);
        if (cc->seen[k])
            return cf_cli_fail(
                c, "%s: line %" PRIu64 ", column %" PRIu64 ": the header names '%s' twice",
                im->file, f[i].line, f[i].col, f[i].data);
        cc->seen[k] = true;
        map[i] = (size_t)k;
    }
    cc->nf = n;
    for (size_t k = 0; k < im->nc; k++)
        if (!cc->seen[k] && !im->ic[k].c->nullable)
            return cf_cli_fail(c, "%s: the header lacks column '%s', which cannot be NULL",
                               im->file, im->ic[k].c->name);
    return 0;
}

int cf_csv_row(cf_importer *im, const cf_csv_cols *cc, const cf_csv_field *f, size_t n, char *msg,
               size_t cap)
{
    char m[300];
    if (n != cc->nf)
        return snprintf(msg, cap, "%s: line %" PRIu64 ": %zu fields, the header has %zu", im->file,
                        f[0].line, n, cc->nf),
               -1;
    for (size_t k = 0; k < im->nc; k++)
        if (!cc->seen[k]) {
            cf_json null = {CF_JSON_NULL, NULL, 0, 0, NULL, NULL};
            put_value(im, &im->ic[k], &null, m, sizeof(m));
        }
    for (size_t i = 0; i < n; i++) {
        cf_import_col *x = &im->ic[cc->map[i]];
        cf_json v;
        if (cf_csv_json(&f[i], x->c->type, x->c->is_array, x->c->nullable, &v, &im->arena, m,
                        sizeof(m)) != 0 ||
            put_value(im, x, &v, m, sizeof(m)) != 0)
            return snprintf(msg, cap, "%s: line %" PRIu64 ", column %" PRIu64 " ('%s'): %s",
                            im->file, f[i].line, f[i].col, x->c->name, m),
                   -1;
    }
    im->lines[im->r++] = f[0].line;
    return 0;
}

int cf_csv_rows(cf_importer *im, cf_csv *r, const cf_csv_cols *cc)
{
    const cf_csv_field *f;
    size_t n;
    int got, rc;
    char *msg = malloc(CF_CSV_MSG_CAP);
    if (msg == NULL)
        return cf_cli_fail(im->c, "out of memory");
    while ((got = cf_csv_next(r, &f, &n)) > 0) {
        if (n == 1 && f[0].len == 0 && !f[0].quoted)
            continue; /* a blank line */
        if (cf_csv_row(im, cc, f, n, msg, CF_CSV_MSG_CAP) != 0) {
            rc = cf_cli_fail(im->c, "%s", msg);
            free(msg);
            return rc;
        }
        if (im->r == CF_IMPORT_BATCH && (rc = cf_import_flush(im)) != 0) {
            free(msg);
            return rc;
        }
    }
    free(msg);
    return got == 0 ? 0 : cf_cli_fail(im->c, "%s", r->msg);
}

/* ---- JSON lines: {"col": value, ...} as `table scan --json` prints -------------------------- */

size_t cf_jsonl_span(const char *line, size_t got, uint64_t lineno, size_t *s0)
{
    size_t len = got;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' ||
                       line[len - 1] == '\t'))
        len--;
    size_t i = 0;
    if (lineno == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    *s0 = i;
    return len;
}

int cf_jsonl_line(cf_importer *im, bool *seen, const char *line, size_t got, uint64_t lineno,
                  char *msg, size_t cap)
{
    size_t s0, len = cf_jsonl_span(line, got, lineno, &s0);
    if (s0 == len)
        return 0;
    char m[300];
    /* The batch's arena: string values point into the document until the
     * batch is appended. */
    cf_json v;
    if (cf_json_parse_arena(&im->arena, &v, line + s0, len - s0, m, sizeof(m)) != 0)
        return snprintf(msg, cap, "%s: line %" PRIu64 ": %s", im->file, lineno, m), -1;
    if (v.kind != CF_JSON_OBJECT)
        return snprintf(msg, cap,
                        "%s: line %" PRIu64 ": expected an object {\"column\": value, ...}",
                        im->file, lineno),
               -1;
    memset(seen, 0, im->nc * sizeof(*seen));
    for (size_t i = 0; i < v.n; i++) {
        const cf_json_member *jm = &v.members[i];
        int k = cf_schema_find(im->s, jm->key);
        if (k < 0 || strlen(jm->key) != jm->key_len)
            return snprintf(msg, cap, "%s: line %" PRIu64 ": no column '%.100s'", im->file, lineno,
                            jm->key),
                   -1;
        if (seen[k])
            return snprintf(msg, cap, "%s: line %" PRIu64 ": column '%s' given twice", im->file,
                            lineno, jm->key),
                   -1;
        if (put_value(im, &im->ic[k], &jm->value, m, sizeof(m)) != 0)
            return snprintf(msg, cap, "%s: line %" PRIu64 ", column '%s': %s", im->file, lineno,
                            jm->key, m),
                   -1;
        seen[k] = true;
    }
    for (size_t k = 0; k < im->nc; k++) {
        if (seen[k])
            continue;
        cf_json null = {CF_JSON_NULL, NULL, 0, 0, NULL, NULL};
        if (put_value(im, &im->ic[k], &null, m, sizeof(m)) != 0)
            return snprintf(msg, cap, "%s: line %" PRIu64 ": %s", im->file, lineno, m), -1;
    }
    im->lines[im->r++] = lineno;
    return 0;
}

int cf_jsonl_rows(cf_importer *im, FILE *in, uint64_t line)
{
    cf_cli *c = im->c;
    char *buf = NULL;
    size_t cap = 0;
    int rc = 0;
    bool *seen = calloc(im->nc + 1, sizeof(*seen));
    char *msg = malloc(CF_CSV_MSG_CAP);
    if (seen == NULL || msg == NULL) {
        free(seen);
        free(msg);
        return cf_cli_fail(c, "out of memory");
    }
    ssize_t got;
    errno = 0;
    for (; (got = getline(&buf, &cap, in)) > 0; line++) {
        if (cf_jsonl_line(im, seen, buf, (size_t)got, line, msg, CF_CSV_MSG_CAP) != 0) {
            rc = cf_cli_fail(c, "%s", msg);
            break;
        }
        if (im->r == CF_IMPORT_BATCH && (rc = cf_import_flush(im)) != 0)
            break;
    }
    if (rc == 0 && ferror(in))
        rc = cf_cli_fail(c, "%s: read error: %s", im->file, strerror(errno));
    free(buf);
    free(seen);
    free(msg);
    return rc;
}

/* ---- the command ------------------------------------------------------------------------- */

/* -1 when out of memory (dispose anyway). */
int cf_import_setup(cf_importer *im, cf_cli *c, const char *file, const cf_schema *s)
{
    memset(im, 0, sizeof(*im));
    im->c = c;
    im->file = strcmp(file, "-") == 0 ? "stdin" : file;
    im->s = s;
    im->map = &im->own_map;
    im->nc = cf_schema_column_count(s);
    im->ic = calloc(im->nc, sizeof(*im->ic));
    im->cv = calloc(im->nc, sizeof(*im->cv));
    im->lines = calloc(CF_IMPORT_BATCH, sizeof(*im->lines));
    cf_cli_arena_init(&im->arena);
    bool oom = im->ic == NULL || im->cv == NULL || im->lines == NULL;
    for (size_t i = 0; !oom && i < im->nc; i++) {
        cf_import_col *x = &im->ic[i];
        x->c = cf_schema_column_at(s, i);
        x->w = cf_type_size(x->c->type);
        x->vals = calloc(CF_IMPORT_BATCH, x->w);
        x->nn = calloc(CF_IMPORT_BATCH / 8, 1);
        x->counts = calloc(CF_IMPORT_BATCH, sizeof(uint32_t));
        x->offs = x->c->is_array ? calloc(CF_IMPORT_BATCH + 1, sizeof(uint32_t)) : NULL;
        oom = x->vals == NULL || x->nn == NULL || x->counts == NULL ||
              (x->c->is_array && x->offs == NULL);
    }
    return oom ? -1 : 0;
}

void cf_import_dispose(cf_importer *im)
{
    for (size_t i = 0; im->ic != NULL && i < im->nc; i++) {
        free(im->ic[i].vals);
        free(im->ic[i].nn);
        free(im->ic[i].counts);
        free(im->ic[i].elems);
        free(im->ic[i].enn);
        free(im->ic[i].offs);
    }
    free(im->ic);
    free(im->cv);
    free(im->lines);
    free(im->own_map.at);
    cf_cli_arena_dispose(&im->arena);
}

#if CF_HAVE_PARQUET
int cf_cli_rows_to_parquet(cf_cli *c, const char *file, FILE *in, bool jsonl, size_t threads,
                           const cf_schema *s, cf_parquet_writer *pw,
                           void (*progress)(void *ctx, uint64_t rows), void *ctx, uint64_t *rows)
{
    cf_importer im;
    int rc = 0;
    if (cf_import_setup(&im, c, file, s) != 0)
        rc = cf_cli_fail(c, "out of memory");
    im.pw = pw;
    im.progress = progress;
    im.progress_ctx = ctx;
    if (rc == 0)
        rc = cf_import_parallel(&im, in, jsonl, threads);
    if (rc == 0)
        rc = cf_import_flush(&im);
    *rows = im.total;
    cf_import_dispose(&im);
    return rc;
}
#endif

/* The table, opened for writing (its lock held until it is freed). */
static cf_status open_writer(cf_table **tb, const char *dir, uint32_t lock_ms, cf_error *e)
{
    cf_table_options o;
    cf_table_options_init(&o);
    o.lock_timeout_ms = lock_ms;
    return cf_table_open(tb, dir, &o, e);
}

/* Delete dir/LOCK, a lock this run made, only while holding it: a writer that
 * waited on it then sees the path gone and locks a new one (the library's lock
 * checks that), so no two writers ever lock different files. Someone holding it
 * now keeps it. */
static void remove_our_lock(const char *dir, char *p, size_t n)
{
    snprintf(p, n, "%s/LOCK", dir);
    int fd = open(p, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    struct stat a, b;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &a) == 0 && lstat(p, &b) == 0 &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        unlink(p);
    close(fd);
}

/* Nothing of a failed load into a new table remains but what was there before:
 * the table's files when this run made the table (TABLET first: without it dir
 * is no table), the LOCK when this run made it, the directory when this run
 * made it (and it is empty again). A pre-existing directory is left as it was. */
static void undo_new_table(const char *dir, bool made_dir, bool made_table, bool made_lock)
{
    size_t n = strlen(dir) + 300;
    char *p = malloc(n);
    if (p == NULL)
        return;
    static const char *const files[] = {"TABLET", "MANIFEST"};
    for (size_t i = 0; made_table && i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(p, n, "%s/%s", dir, files[i]);
        unlink(p);
    }
    snprintf(p, n, "%s/wal", dir);
    DIR *d = made_table ? opendir(p) : NULL;
    if (d != NULL) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (strncmp(de->d_name, "wal-", 4) != 0 || strlen(de->d_name) > 200)
                continue;
            snprintf(p, n, "%s/wal/%s", dir, de->d_name);
            unlink(p);
        }
        closedir(d);
        snprintf(p, n, "%s/wal", dir);
        rmdir(p);
    }
    if (made_lock)
        remove_our_lock(dir, p, n);
    free(p);
    if (made_dir)
        rmdir(dir);
}

/* Whether dir/name exists (as anything). */
static bool exists_in(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p == NULL)
        return true; /* unknown: treat as there, so it is never deleted */
    snprintf(p, n, "%s/%s", dir, name);
    struct stat sb;
    bool r = lstat(p, &sb) == 0;
    free(p);
    return r;
}

/* cf_cli_table_load with the loader's memory budget (0: its default); commits:
 * fn commits the loader itself (to name the line of a row a failed commit is
 * about). */
static int table_load(cf_cli *c, const char *dir, const cf_schema *ns, bool same_schema,
                      const char *no_table, bool has_ts, uint64_t ts, uint32_t lock_ms,
                      size_t memory_bytes, bool commits, cf_cli_load_fn fn, void *ctx,
                      uint64_t *rows)
{
    cf_error e;
    cf_status st;
    cf_table *tb = NULL;
    *rows = 0;
    bool made_dir = false, made_table = false;
    /* What was there before, so that a failure removes only what this run made. */
    bool had_lock = exists_in(dir, "LOCK");
    st = open_writer(&tb, dir, lock_ms, &e);
    if (st == CF_ENOTFOUND && ns != NULL) {
        /* A new table: made here, and removed again if the import fails. */
        struct stat sb;
        if (stat(dir, &sb) != 0) {
            if (mkdir(dir, 0777) != 0)
                return cf_cli_fail(c, "%s: %s", dir, strerror(errno));
            made_dir = true;
        }
        /* The rowset writer takes the lock and checks, under it, that dir holds
         * no table; the table then takes it for the load. */
        cf_rowset_writer_options wo;
        cf_rowset_writer_options_init(&wo);
        wo.lock_timeout_ms = lock_ms;
        cf_rowset_writer *w = NULL;
        st = cf_rowset_writer_create(&w, dir, ns, &wo, &e);
        if (st == CF_OK)
            st = cf_rowset_writer_finish(w, &e);
        cf_rowset_writer_free(w);
        made_table = st == CF_OK;
        if (st == CF_OK)
            st = open_writer(&tb, dir, lock_ms, &e);
    } else if (st == CF_ENOTFOUND) {
        return cf_cli_usage(c, "%s", no_table);
    }
    int rc = 0;
    if (st != CF_OK) {
        rc = cf_cli_lib_fail(c, dir, st, &e);
        goto undo;
    }
    const cf_schema *s = cf_table_schema(tb);
    if (ns != NULL && !made_table && same_schema) {
        char *a = cf_cli_schema_text(s), *b = cf_cli_schema_text(ns);
        if (a == NULL || b == NULL)
            rc = cf_cli_fail(c, "out of memory");
        else if (strcmp(a, b) != 0)
            rc = cf_cli_usage(c, "--schema differs from the table's: %s", a);
        free(a);
        free(b);
        if (rc != 0)
            goto undo;
    }
    cf_table_loader *ld = NULL;
    cf_table_loader_options lo;
    cf_table_loader_options_init(&lo);
    if (has_ts)
        lo.ts = ts;
    if (memory_bytes != 0)
        lo.memory_bytes = memory_bytes;
    if ((st = cf_table_loader_create(&ld, tb, &lo, &e)) != CF_OK)
        rc = st == CF_EINVAL ? cf_cli_usage(c, "%s", e.msg) : cf_cli_lib_fail(c, dir, st, &e);
    if (rc == 0)
        rc = fn(ctx, c, ld, s, made_table, rows);
    if (rc == 0 && !commits && (st = cf_table_loader_commit(ld, &e)) != CF_OK)
        rc = cf_cli_lib_fail(c, dir, st, &e);
    cf_table_loader_free(ld); /* after a failure: removes what the load wrote */
undo:
    cf_table_free(tb);
    if (rc != 0 && (made_table || made_dir))
        undo_new_table(dir, made_dir, made_table, !had_lock);
    return rc;
}

int cf_cli_table_load(cf_cli *c, const char *dir, const cf_schema *ns, bool same_schema,
                      const char *no_table, bool has_ts, uint64_t ts, uint32_t lock_ms,
                      cf_cli_load_fn fn, void *ctx, uint64_t *rows)
{
    return table_load(c, dir, ns, same_schema, no_table, has_ts, ts, lock_ms, 0, false, fn, ctx,
                      rows);
}

int cf_cli_parse_memory(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    if (s[0] < '0' || s[0] > '9')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift != 0)
        end++;
    if (errno != 0 || *end != '\0' || v > (SIZE_MAX >> shift) || (v << shift) < ((size_t)64 << 10))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

typedef struct text_load {
    const char *file;
    bool jsonl;
    size_t threads; /* parsing */
} text_load;

/* CSV or JSON lines into the loader. */
static int load_text(void *ctx, cf_cli *c, cf_table_loader *ld, const cf_schema *s, bool new_table,
                     uint64_t *rows)
{
    text_load *t = ctx;
    FILE *in = cf_cli_fopen_input(t->file);
    if (in == NULL)
        return cf_cli_fail(c, "%s: %s", t->file, strerror(errno));
    cf_importer im;
    int rc = 0;
    if (cf_import_setup(&im, c, t->file, s) != 0)
        rc = cf_cli_fail(c, "out of memory");
    im.ld = ld;
    if (rc == 0)
        rc = cf_import_parallel(&im, in, t->jsonl, t->threads);
    if (rc == 0)
        rc = cf_import_flush(&im);
    cf_error e;
    cf_status st;
    if (rc == 0 && (st = cf_table_loader_commit(ld, &e)) != CF_OK)
        rc = loader_fail(&im, st, &e);
    *rows = im.total;
    cf_cli_fclose_input(in);
    cf_import_dispose(&im);
    return rc;
}

int cf_cmd_table_import(cf_cli *c, const char *dir, const char *file, const char *schema,
                        const char *format, bool has_ts, uint64_t ts, uint32_t lock_ms,
                        size_t memory_bytes, size_t threads, bool json)
{
    cf_error e;
    cf_schema *ns = NULL;
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n < 1 ? 1 : n > 16 ? 16 : (size_t)n;
    }
    text_load t = {file, false, threads};
    if (format == NULL)
        t.jsonl = cf_cli_ends_with(file, ".jsonl") || cf_cli_ends_with(file, ".json");
    else if (strcmp(format, "csv") == 0 || strcmp(format, "jsonl") == 0)
        t.jsonl = format[0] == 'j';
    else
        return cf_cli_usage(c, "--format: expected csv or jsonl, got '%s'", format);
    if (schema != NULL && cf_schema_parse(&ns, schema, &e) != CF_OK)
        return cf_cli_usage(c, "%s", e.msg);
    double t0 = now_s();
    uint64_t rows;
    int rc =
        table_load(c, dir, ns, true, "import needs --schema (or a table made by `table create`)",
                   has_ts, ts, lock_ms, memory_bytes, true, load_text, &t, &rows);
    if (rc == 0 && json) {
        cf_jw w;
        cf_jw_report_begin(&w, c->out, "import");
        cf_jw_kv_cstr(&w, "table", dir);
        cf_jw_kv_uint(&w, "rows", rows);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else if (rc == 0) {
        fprintf(c->out, "imported %" PRIu64 " rows into %s in %.2f s\n", rows, dir, now_s() - t0);
    }
    cf_schema_free(ns);
    return rc;
}
