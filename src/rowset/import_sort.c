/* The bulk loader's external sort (import_sort.h).
 *
 * A row is held as one record: a 16-byte header (record length, key length,
 * the load's row number), its encoded key, then each column's value (a present
 * byte for nullable columns; fixed values as their memory form, binary ones as
 * a length and the bytes, array cells as an element count, their element
 * bitmap and the elements). Records come from an arena, so they never move; the
 * sort index is an array of (first 8 key bytes big-endian, record) pairs.
 *
 * The index is sorted by an LSD radix sort on the 8-byte prefix (one counting
 * pass for all eight bytes; a byte that is the same in every row costs no
 * pass), which is stable, so rows of equal prefix stay in arrival order; only
 * groups of equal prefix are then compared whole (memcmp, then row number). For
 * the common integer keys of up to 8 bytes no group needs it. A key repeated
 * among the rows sorts next to its first occurrence, so duplicates are found by
 * one pass over neighbours; the one reported is the earliest row (in arrival
 * order) that repeats a key, as a loader inserting row by row would report.
 *
 * Spilled runs are files in the loader's scratch directory (a rowset directory
 * the table never named, so its clean-up removes it after a crash), named as a
 * temporary of a rowset data file (cf_rs_tmp_name) so the clean-up recognises
 * them; they are never synced: nothing commits them. The merge reads every run
 * through a buffer of its share of the budget; more runs than the budget has
 * room for are merged in passes first.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import_sort.h"

#include "util/alloc.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

#define HDR 16                        /* u32 record length, u32 key length, u64 row */
#define IO_BUF ((size_t)64 << 10)     /* a run writer's buffer */
#define READ_MIN ((size_t)4 << 10)    /* the smallest read buffer of a merge */
#define READ_MAX ((size_t)1 << 20)    /* the largest */
#define MAX_FANIN 64                  /* runs merged at once */
#define BATCH_ROWS 1024               /* rows per writer append */
#define BATCH_BYTES ((size_t)1 << 20) /* record bytes copied per batch at most */
#define SET_ERR(err, code, ...) cf_error_set((err), (code), __FILE__, __LINE__, __VA_ARGS__)

/* What the record coding needs of a column. */
typedef struct colinfo {
    size_t w; /* cf_type_size */
    bool bin, nullable, is_array;
} colinfo;

typedef struct entry {
    uint64_t pfx;
    const uint8_t *rec;
} entry;

struct cf_rs_sorter {
    const cf_schema *s;
    colinfo *ci;
    size_t budget;
    cf_arena arena; /* records */
    entry *e;
    size_t n, cap;
    bool in_order;
    const uint8_t *last;
    char **runs; /* run file paths (for messages), oldest first */
    int dfd;     /* the scratch directory, our own descriptor of it (-1: none yet) */
    size_t nruns, runs_cap;
    uint64_t next_file;
    /* a batch for the writer: its records, copies of merged ones in bcopy */
    const uint8_t **brec;
    size_t bn;
    cf_arena bcopy;
    cf_buf *vals, *nn, *counts, *elems, *enn; /* per column */
    cf_colvec *cv;
    /* the last key merged, for duplicates */
    cf_buf prev;
    uint64_t prev_row;
    bool have_prev;
};

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void wr32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static uint32_t rec_klen(const uint8_t *r)
{
    return rd32(r + 4);
}

static uint64_t rec_row(const uint8_t *r)
{
    return rd64(r + 8);
}

static bool bit(const uint8_t *bm, size_t i)
{
    return (bm[i >> 3] >> (i & 7)) & 1;
}

/* memcpy of a value's w bytes, inlined for the common widths. */
static inline void copy_fixed(uint8_t *d, const uint8_t *s, size_t w)
{
    switch (w) {
    case 1: *d = *s; break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    case 16: memcpy(d, s, 16); break;
    default: memcpy(d, s, w); break;
    }
}

static uint64_t prefix(const uint8_t *k, size_t kl)
{
    uint64_t v = 0;
    for (size_t i = 0; i < 8; i++)
        v = (v << 8) | (i < kl ? k[i] : 0);
    return v;
}

cf_status cf_rs_sorter_create(cf_rs_sorter **out, const cf_schema *s, size_t budget, cf_error *err)
{
    *out = NULL;
    cf_rs_sorter *so = cf_calloc(1, sizeof(*so));
    CF_CHECK(so != NULL, err, CF_ENOMEM, "loader: out of memory");
    so->s = s;
    so->dfd = -1;
    so->budget = budget;
    so->in_order = true;
    cf_buf_init(&so->prev);
    size_t nc = s->ncols;
    so->brec = cf_calloc(BATCH_ROWS, sizeof(*so->brec));
    so->vals = cf_calloc(nc, sizeof(cf_buf));
    so->nn = cf_calloc(nc, sizeof(cf_buf));
    so->counts = cf_calloc(nc, sizeof(cf_buf));
    so->elems = cf_calloc(nc, sizeof(cf_buf));
    so->enn = cf_calloc(nc, sizeof(cf_buf));
    so->cv = cf_calloc(nc, sizeof(*so->cv));
    so->ci = cf_calloc(nc, sizeof(*so->ci));
    for (size_t c = 0; so->ci != NULL && c < nc; c++) {
        const cf_column *cd = &s->cols[c];
        so->ci[c] = (colinfo){cf_type_size(cd->type), cf_type_is_binary(cd->type), cd->nullable,
                              cd->is_array};
    }
    if (so->ci == NULL || so->brec == NULL || so->vals == NULL || so->nn == NULL ||
        so->counts == NULL || so->elems == NULL || so->enn == NULL || so->cv == NULL) {
        cf_rs_sorter_free(so);
        CF_FAIL(err, CF_ENOMEM, "loader: out of memory");
    }
    *out = so;
    return CF_OK;
}

static void drop_runs(cf_rs_sorter *so, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++) {
        unlinkat(so->dfd, strrchr(so->runs[i], '/') + 1, 0);
        cf_free(so->runs[i]);
    }
    if (so->nruns > b) /* (runs may be NULL when there are none) */
        memmove(so->runs + a, so->runs + b, (so->nruns - b) * sizeof(*so->runs));
    so->nruns -= b - a;
}

void cf_rs_sorter_free(cf_rs_sorter *so)
{
    if (so == NULL)
        return;
    drop_runs(so, 0, so->nruns);
    cf_free(so->runs);
    if (so->dfd >= 0)
        close(so->dfd);
    cf_arena_dispose(&so->arena);
    cf_arena_dispose(&so->bcopy);
    cf_free(so->e);
    cf_free(so->brec);
    for (size_t c = 0; c < so->s->ncols; c++) {
        if (so->vals != NULL)
            cf_buf_dispose(&so->vals[c]);
        if (so->nn != NULL)
            cf_buf_dispose(&so->nn[c]);
        if (so->counts != NULL)
            cf_buf_dispose(&so->counts[c]);
        if (so->elems != NULL)
            cf_buf_dispose(&so->elems[c]);
        if (so->enn != NULL)
            cf_buf_dispose(&so->enn[c]);
    }
    cf_free(so->vals);
    cf_free(so->nn);
    cf_free(so->counts);
    cf_free(so->elems);
    cf_free(so->enn);
    cf_free(so->cv);
    cf_free(so->ci);
    cf_buf_dispose(&so->prev);
    cf_free(so);
}

size_t cf_rs_sorter_rows(const cf_rs_sorter *so)
{
    return so->n;
}

size_t cf_rs_sorter_runs(const cf_rs_sorter *so)
{
    return so->nruns;
}

/* Memory held for the rows: records, the index, and the sort's scratch copy
 * of it. */
static size_t held(const cf_rs_sorter *so)
{
    return cf_arena_used(&so->arena) + (so->cap + so->n) * sizeof(entry);
}

bool cf_rs_sorter_full(const cf_rs_sorter *so)
{
    return held(so) >= so->budget;
}

size_t cf_rs_sorter_bytes(const cf_rs_sorter *so)
{
    return held(so);
}

bool cf_rs_sorter_in_order(const cf_rs_sorter *so, cf_slice *last)
{
    if (!so->in_order || so->nruns > 0)
        return false;
    *last = so->last != NULL ? (cf_slice){so->last + HDR, rec_klen(so->last)} : (cf_slice){NULL, 0};
    return true;
}

/* ---- records ------------------------------------------------------------------------------ */

/* Bytes of row i's values (eoff[c]: its first array elements, not moved). */
static size_t values_size(const colinfo *ci, size_t nc, const cf_colvec *cols, size_t i,
                          const size_t *eoff)
{
    size_t n = 0;
    for (size_t c = 0; c < nc; c++) {
        const colinfo *cd = &ci[c];
        bool bin = cd->bin;
        size_t w = cd->w;
        n += cd->nullable;
        if (cols[c].nonnull != NULL && !bit(cols[c].nonnull, i))
            continue;
        if (!cd->is_array) {
            n += bin ? 4 + ((const cf_slice *)cols[c].values)[i].len : w;
            continue;
        }
        size_t ne = cols[c].elem_counts[i];
        n += 5 + (cols[c].elem_nonnull != NULL ? (ne + 7) / 8 : 0);
        if (!bin) {
            n += ne * w;
            continue;
        }
        const cf_slice *el = (const cf_slice *)cols[c].values + eoff[c];
        for (size_t e = 0; e < ne; e++)
            n += 4 + el[e].len;
    }
    return n;
}

static uint8_t *put_bytes(uint8_t *p, const uint8_t *v, size_t len)
{
    wr32(p, (uint32_t)len);
    if (len > 0)
        memcpy(p + 4, v, len);
    return p + 4 + len;
}

/* Row i's values at p (eoff moved past its elements). */
static void values_put(const colinfo *ci, size_t nc, const cf_colvec *cols, size_t i, size_t *eoff,
                       uint8_t *p)
{
    for (size_t c = 0; c < nc; c++) {
        const colinfo *cd = &ci[c];
        bool bin = cd->bin;
        size_t w = cd->w;
        bool present = cols[c].nonnull == NULL || bit(cols[c].nonnull, i);
        size_t first = eoff[c], ne = cd->is_array ? cols[c].elem_counts[i] : 0;
        eoff[c] += ne;
        if (cd->nullable)
            *p++ = present;
        if (!present)
            continue;
        if (!cd->is_array) {
            if (bin) {
                const cf_slice *v = (const cf_slice *)cols[c].values + i;
                p = put_bytes(p, v->data, v->len);
            } else {
                copy_fixed(p, (const uint8_t *)cols[c].values + i * w, w);
                p += w;
            }
            continue;
        }
        wr32(p, (uint32_t)ne);
        p += 4;
        const uint8_t *enn = cols[c].elem_nonnull;
        *p++ = enn != NULL;
        if (enn != NULL) {
            memset(p, 0, (ne + 7) / 8);
            for (size_t e = 0; e < ne; e++)
                if (bit(enn, first + e))
                    p[e >> 3] |= (uint8_t)(1u << (e & 7));
            p += (ne + 7) / 8;
        }
        if (!bin) {
            memcpy(p, (const uint8_t *)cols[c].values + first * w, ne * w);
            p += ne * w;
            continue;
        }
        const cf_slice *el = (const cf_slice *)cols[c].values + first;
        for (size_t e = 0; e < ne; e++)
            p = put_bytes(p, el[e].data, el[e].len);
    }
}

cf_status cf_rs_sorter_add(cf_rs_sorter *so, const uint8_t *k, size_t kl, const cf_colvec *cols,
                           size_t i, size_t *eoff, uint64_t row, cf_error *err)
{
    if (so->n == so->cap)
        CF_CHECK(cf_array_grow(&so->e, &so->cap, sizeof *so->e, 256), err, CF_ENOMEM,
                 "loader: out of memory");
    size_t len = HDR + kl + values_size(so->ci, so->s->ncols, cols, i, eoff);
    CF_CHECK(len <= UINT32_MAX, err, CF_EINVAL, "row %" PRIu64 ": a row of %zu bytes is too large",
             row, len);
    uint8_t *r = cf_arena_alloc(&so->arena, len);
    CF_CHECK(r != NULL, err, CF_ENOMEM, "loader: out of memory");
    wr32(r, (uint32_t)len);
    wr32(r + 4, (uint32_t)kl);
    memcpy(r + 8, &row, 8);
    memcpy(r + HDR, k, kl);
    values_put(so->ci, so->s->ncols, cols, i, eoff, r + HDR + kl);
    uint64_t pfx = prefix(k, kl);
    if (so->in_order && so->last != NULL &&
        (pfx < so->e[so->n - 1].pfx ||
         (pfx == so->e[so->n - 1].pfx &&
          cf_rs_bytes_cmp(so->last + HDR, rec_klen(so->last), k, kl) >= 0)))
        so->in_order = false;
    so->last = r;
    so->e[so->n++] = (entry){pfx, r};
    return CF_OK;
}

/* ---- sorting ------------------------------------------------------------------------------- */

static int cmp_whole(const void *a, const void *b)
{
    const uint8_t *x = ((const entry *)a)->rec, *y = ((const entry *)b)->rec;
    int c = cf_rs_bytes_cmp(x + HDR, rec_klen(x), y + HDR, rec_klen(y));
    if (c != 0)
        return c;
    uint64_t rx = rec_row(x), ry = rec_row(y);
    return rx < ry ? -1 : rx > ry;
}

/* Sort the index by (key, row); CF_EINVAL on a repeated key. */
static cf_status sort_held(cf_rs_sorter *so, uint64_t *err_row, cf_error *err)
{
    size_t n = so->n;
    entry *a = so->e;
    if (!so->in_order && n > 1) {
        entry *tmp = cf_malloc(n * sizeof(*tmp));
        CF_CHECK(tmp != NULL, err, CF_ENOMEM, "loader: out of memory");
        size_t(*cnt)[256] = cf_calloc(8, sizeof(*cnt));
        if (cnt == NULL) {
            cf_free(tmp);
            CF_FAIL(err, CF_ENOMEM, "loader: out of memory");
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t p = a[i].pfx;
            for (size_t b = 0; b < 8; b++)
                cnt[b][(p >> (8 * b)) & 255]++;
        }
        entry *src = a, *dst = tmp;
        for (size_t b = 0; b < 8; b++) {
            size_t *cb = cnt[b];
            if (cb[(src[0].pfx >> (8 * b)) & 255] == n)
                continue; /* every row has this byte */
            size_t sum = 0;
            for (size_t v = 0; v < 256; v++) {
                size_t t = cb[v];
                cb[v] = sum;
                sum += t;
            }
            for (size_t i = 0; i < n; i++)
                dst[cb[(src[i].pfx >> (8 * b)) & 255]++] = src[i];
            entry *t = src;
            src = dst;
            dst = t;
        }
        if (src != a)
            memcpy(a, src, n * sizeof(*a));
        cf_free(cnt);
        cf_free(tmp);
        /* rows of equal prefix: ordered by their whole key */
        for (size_t i = 0, j; i < n; i = j) {
            for (j = i + 1; j < n && a[j].pfx == a[i].pfx; j++)
                ;
            if (j - i > 1)
                qsort(a + i, j - i, sizeof(*a), cmp_whole);
        }
    }
    /* the earliest row that repeats a key of an earlier one */
    uint64_t dup = UINT64_MAX;
    for (size_t i = 1; i < n && !so->in_order; i++) {
        const uint8_t *x = a[i - 1].rec, *y = a[i].rec;
        if (a[i - 1].pfx == a[i].pfx && rec_klen(x) == rec_klen(y) &&
            memcmp(x + HDR, y + HDR, rec_klen(x)) == 0 && rec_row(y) < dup)
            dup = rec_row(y);
    }
    if (dup != UINT64_MAX) {
        *err_row = dup;
        CF_FAIL(err, CF_EINVAL, "row %" PRIu64 ": duplicate key (repeated in the load)", dup);
    }
    return CF_OK;
}

static void reset_held(cf_rs_sorter *so)
{
    cf_arena_reset(&so->arena);
    so->n = 0;
    so->in_order = true;
    so->last = NULL;
}

/* ---- run files ----------------------------------------------------------------------------- */

typedef struct wfile {
    int fd;
    const char *path;
    cf_buf b;
} wfile;

static cf_status write_all(int fd, const char *path, const uint8_t *p, size_t n, cf_error *err)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        CF_CHECK(w > 0, err, CF_EIO, "%s: write: %s", path, strerror(w < 0 ? errno : ENOSPC));
        p += w;
        n -= (size_t)w;
    }
    return CF_OK;
}

/* A new run file in dir (its path taken by the sorter, removed by free). */
static cf_status wfile_open(cf_rs_sorter *so, int dfd, const char *dir, wfile *f, cf_error *err)
{
    f->fd = -1;
    cf_buf_init(&f->b);
    if (so->dfd < 0) {
        /* the runs live in this one directory, reached through it until free */
        so->dfd = dfd == AT_FDCWD ? cf_rs_dir_open(dir) : fcntl(dfd, F_DUPFD_CLOEXEC, 0);
        CF_CHECK(so->dfd >= 0, err, CF_EIO, "%s: cannot open for sort runs: %s", dir,
                 strerror(errno));
    }
    if (so->nruns == so->runs_cap)
        CF_CHECK(cf_array_grow(&so->runs, &so->runs_cap, sizeof *so->runs, 16), err, CF_ENOMEM,
                 "loader: out of memory");
    /* a temporary of a data file (cf_rs_tmp_name): the clean-up's to remove */
    size_t n = strlen(dir) + 80;
    char *path = cf_malloc(n);
    CF_CHECK(path != NULL, err, CF_ENOMEM, "loader: out of memory");
    uint64_t id = so->next_file++;
    snprintf(path, n, "%s/%" PRIu64 ".adhoc.cfile.tmp.%ld.%016" PRIx64, dir, id, (long)getpid(),
             id);
    f->fd = openat(so->dfd, strrchr(path, '/') + 1, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (f->fd < 0) {
        int e = errno;
        cf_free(path);
        CF_FAIL(err, CF_EIO, "%s: cannot create a sort run: %s", dir, strerror(e));
    }
    so->runs[so->nruns++] = path;
    f->path = path;
    return CF_OK;
}

static cf_status wfile_put(wfile *f, const uint8_t *rec, cf_error *err)
{
    size_t len = rd32(rec);
    if (f->b.len + len > IO_BUF && f->b.len > 0) {
        CF_TRY(write_all(f->fd, f->path, f->b.data, f->b.len, err));
        cf_buf_clear(&f->b);
    }
    if (len >= IO_BUF)
        return write_all(f->fd, f->path, rec, len, err);
    cf_buf_append(&f->b, rec, len);
    CF_CHECK(!f->b.oom, err, CF_ENOMEM, "loader: out of memory");
    return CF_OK;
}

static cf_status wfile_close(wfile *f, cf_status st, cf_error *err)
{
    if (st == CF_OK && f->b.len > 0)
        st = write_all(f->fd, f->path, f->b.data, f->b.len, err);
    if (f->fd >= 0 && close(f->fd) != 0 && st == CF_OK)
        st = SET_ERR(err, CF_EIO, "%s: close: %s", f->path, strerror(errno));
    f->fd = -1;
    cf_buf_dispose(&f->b);
    return st;
}

cf_status cf_rs_sorter_spill(cf_rs_sorter *so, int dfd, const char *dir, uint64_t *err_row,
                             cf_error *err)
{
    if (so->n == 0)
        return CF_OK;
    CF_TRY(sort_held(so, err_row, err));
    wfile f;
    cf_status st = wfile_open(so, dfd, dir, &f, err);
    for (size_t i = 0; st == CF_OK && i < so->n; i++)
        st = wfile_put(&f, so->e[i].rec, err);
    CF_TRY(wfile_close(&f, st, err));
    reset_held(so);
    return CF_OK;
}

typedef struct rfile {
    int fd;
    const char *path;
    uint8_t *buf;
    size_t cap, pos, len;
    const uint8_t *rec; /* the current record; NULL at the end */
} rfile;

/* At least `need` bytes from pos on, unless the file ends first. */
static cf_status rfile_fill(rfile *r, size_t need, cf_error *err)
{
    if (r->len - r->pos >= need)
        return CF_OK;
    if (r->len > r->pos) /* (buf is NULL before the first read) */
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->len -= r->pos;
    r->pos = 0;
    if (need > r->cap) {
        uint8_t *p = cf_realloc(r->buf, need);
        CF_CHECK(p != NULL, err, CF_ENOMEM, "loader: out of memory");
        r->buf = p;
        r->cap = need;
    }
    while (r->len < need) {
        ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len);
        if (got < 0 && errno == EINTR)
            continue;
        CF_CHECK(got >= 0, err, CF_EIO, "%s: read: %s", r->path, strerror(errno));
        if (got == 0)
            break;
        r->len += (size_t)got;
    }
    return CF_OK;
}

static cf_status rfile_next(rfile *r, cf_error *err)
{
    r->rec = NULL;
    CF_TRY(rfile_fill(r, 4, err));
    if (r->len == r->pos)
        return CF_OK;
    size_t n = r->len - r->pos >= 4 ? rd32(r->buf + r->pos) : 0;
    CF_CHECK(n >= HDR, err, CF_ECORRUPT, "%s: a sort run is damaged", r->path);
    CF_TRY(rfile_fill(r, n, err));
    CF_CHECK(r->len - r->pos >= n, err, CF_ECORRUPT, "%s: a sort run is truncated", r->path);
    r->rec = r->buf + r->pos;
    r->pos += n;
    return CF_OK;
}

/* ---- writer batches ------------------------------------------------------------------------ */

static uint8_t *zeroed(cf_buf *b, size_t n)
{
    cf_buf_clear(b);
    uint8_t *p = cf_buf_extend(b, n);
    if (p != NULL)
        memset(p, 0, n);
    return p;
}

/* The batch's records decoded into cv and appended to w. */
static cf_status flush_batch(cf_rs_sorter *so, cf_rowset_writer *wr, cf_error *err)
{
    const cf_schema *s = so->s;
    size_t bn = so->bn;
    if (bn == 0)
        return CF_OK;
    for (size_t c = 0; c < s->ncols; c++) {
        const colinfo *cd = &so->ci[c];
        size_t w8 = cd->is_array ? sizeof(uint32_t) : cd->w;
        if (zeroed(&so->vals[c], bn * w8) == NULL || zeroed(&so->nn[c], bn / 8 + 1) == NULL)
            CF_FAIL(err, CF_ENOMEM, "loader: out of memory");
        cf_buf_clear(&so->elems[c]);
        cf_buf_clear(&so->enn[c]);
    }
    const uint8_t **rp = so->brec;
    for (size_t r = 0; r < bn; r++) {
        const uint8_t *p = rp[r] + HDR + rec_klen(rp[r]);
        for (size_t c = 0; c < s->ncols; c++) {
            const colinfo *cd = &so->ci[c];
            bool bin = cd->bin;
            size_t w = cd->w;
            bool present = cd->nullable ? *p++ != 0 : true;
            if (!present)
                continue; /* slot, count and bit stay zero */
            so->nn[c].data[r >> 3] |= (uint8_t)(1u << (r & 7));
            if (!cd->is_array) {
                uint8_t *slot = so->vals[c].data + r * w;
                if (bin) {
                    cf_slice v = {p + 4, rd32(p)};
                    memcpy(slot, &v, sizeof(v));
                    p += 4 + v.len;
                } else {
                    copy_fixed(slot, p, w);
                    p += w;
                }
                continue;
            }
            uint32_t n = rd32(p);
            bool has_enn = p[4] != 0;
            p += 5;
            memcpy(so->vals[c].data + r * sizeof(uint32_t), &n, sizeof(n));
            /* element bits: one byte per element here, packed below */
            uint8_t *eb = cf_buf_extend(&so->enn[c], n);
            uint8_t *ev = cf_buf_extend(&so->elems[c], n * w);
            if ((n > 0 && (eb == NULL || ev == NULL)) || so->enn[c].oom || so->elems[c].oom)
                CF_FAIL(err, CF_ENOMEM, "loader: out of memory");
            for (size_t e = 0; e < n; e++)
                eb[e] = has_enn ? bit(p, e) : 1;
            if (has_enn)
                p += (n + 7) / 8;
            if (!bin) {
                memcpy(ev, p, n * w);
                p += n * w;
                continue;
            }
            for (size_t e = 0; e < n; e++) {
                cf_slice v = {p + 4, rd32(p)};
                memcpy(ev + e * w, &v, sizeof(v));
                p += 4 + v.len;
            }
        }
    }
    for (size_t c = 0; c < s->ncols; c++) {
        const colinfo *cd = &so->ci[c];
        cf_colvec *v = &so->cv[c];
        v->nonnull = cd->nullable ? so->nn[c].data : NULL;
        if (!cd->is_array) {
            *v = (cf_colvec){so->vals[c].data, v->nonnull, NULL, NULL};
            continue;
        }
        /* pack the element bits in place (bit e never lands past byte e) */
        uint8_t *eb = so->enn[c].data;
        size_t n = so->enn[c].len;
        for (size_t e = 0; e < n; e++) {
            uint8_t on = eb[e];
            if (e % 8 == 0)
                eb[e / 8] = 0;
            eb[e / 8] |= (uint8_t)(on << (e % 8));
        }
        *v = (cf_colvec){so->elems[c].data, v->nonnull, (const uint32_t *)so->vals[c].data,
                         n > 0 ? eb : NULL};
    }
    so->bn = 0;
    cf_arena_reset(&so->bcopy);
    return cf_rowset_writer_append(wr, so->cv, bn, err);
}

/* Record rec into the batch: copied when it lives in a read buffer. */
static cf_status emit(cf_rs_sorter *so, cf_rowset_writer *w, const uint8_t *rec, bool copy,
                      cf_error *err)
{
    if (copy) {
        size_t len = rd32(rec);
        uint8_t *p = cf_arena_alloc(&so->bcopy, len);
        CF_CHECK(p != NULL, err, CF_ENOMEM, "loader: out of memory");
        memcpy(p, rec, len);
        rec = p;
    }
    so->brec[so->bn++] = rec;
    if (so->bn == BATCH_ROWS || cf_arena_used(&so->bcopy) >= BATCH_BYTES)
        return flush_batch(so, w, err);
    return CF_OK;
}

/* ---- merging ------------------------------------------------------------------------------- */

typedef struct merge {
    rfile *r;
    size_t *heap; /* reader indexes, the smallest current key first */
    size_t nh;
} merge;

static int rd_cmp(const merge *m, size_t a, size_t b)
{
    const uint8_t *x = m->r[a].rec, *y = m->r[b].rec;
    int c = cf_rs_bytes_cmp(x + HDR, rec_klen(x), y + HDR, rec_klen(y));
    return c != 0 ? c : (a < b ? -1 : a > b);
}

static void sift_down(merge *m, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < m->nh && rd_cmp(m, m->heap[l], m->heap[best]) < 0)
            best = l;
        if (r < m->nh && rd_cmp(m, m->heap[r], m->heap[best]) < 0)
            best = r;
        if (best == i)
            return;
        size_t t = m->heap[i];
        m->heap[i] = m->heap[best];
        m->heap[best] = t;
        i = best;
    }
}

/* How many runs a merge reads at once, and each one's buffer, within the budget. */
static size_t fan_in(const cf_rs_sorter *so)
{
    size_t f = so->budget / (2 * READ_MIN + IO_BUF);
    return f < 2 ? 2 : f > MAX_FANIN ? MAX_FANIN : f;
}

/* Runs [a, b) merged in key order: into w, or (w NULL) into a new run file. */
static cf_status merge_runs(cf_rs_sorter *so, int dfd, const char *dir, size_t a, size_t b,
                            cf_rowset_writer *w, uint64_t *err_row, cf_error *err)
{
    size_t k = b - a;
    size_t rb = so->budget / (k + 1);
    rb = rb < READ_MIN ? READ_MIN : rb > READ_MAX ? READ_MAX : rb;
    merge m = {cf_calloc(k, sizeof(rfile)), cf_calloc(k, sizeof(size_t)), 0};
    cf_status st = m.r != NULL && m.heap != NULL ? CF_OK : CF_ENOMEM;
    if (st != CF_OK)
        SET_ERR(err, st, "loader: out of memory");
    for (size_t i = 0; m.r != NULL && i < k; i++)
        m.r[i].fd = -1;
    for (size_t i = 0; st == CF_OK && i < k; i++) {
        rfile *r = &m.r[i];
        r->path = so->runs[a + i];
        r->fd = openat(so->dfd, strrchr(r->path, '/') + 1, O_RDONLY | O_CLOEXEC);
        if (r->fd < 0) {
            st = SET_ERR(err, CF_EIO, "%s: %s", r->path, strerror(errno));
            break;
        }
        r->buf = cf_malloc(rb);
        if (r->buf == NULL) {
            st = SET_ERR(err, CF_ENOMEM, "loader: out of memory");
            break;
        }
        r->cap = rb;
        if ((st = rfile_next(r, err)) == CF_OK && r->rec != NULL)
            m.heap[m.nh++] = i;
    }
    for (size_t i = m.nh; st == CF_OK && i-- > 0;)
        sift_down(&m, i);
    wfile out = {-1, NULL, {0}};
    bool have_out = false;
    if (st == CF_OK && w == NULL) {
        st = wfile_open(so, dfd, dir, &out, err);
        have_out = true;
    }
    so->have_prev = false;
    while (st == CF_OK && m.nh > 0) {
        rfile *r = &m.r[m.heap[0]];
        const uint8_t *rec = r->rec;
        uint32_t kl = rec_klen(rec);
        if (so->have_prev && so->prev.len == kl && memcmp(so->prev.data, rec + HDR, kl) == 0) {
            uint64_t row = rec_row(rec) > so->prev_row ? rec_row(rec) : so->prev_row;
            *err_row = row;
            st = SET_ERR(err, CF_EINVAL, "row %" PRIu64 ": duplicate key (repeated in the load)",
                         row);
            break;
        }
        cf_buf_clear(&so->prev);
        cf_buf_append(&so->prev, rec + HDR, kl);
        if (so->prev.oom) {
            st = SET_ERR(err, CF_ENOMEM, "loader: out of memory");
            break;
        }
        so->prev_row = rec_row(rec);
        so->have_prev = true;
        st = w != NULL ? emit(so, w, rec, true, err) : wfile_put(&out, rec, err);
        if (st == CF_OK)
            st = rfile_next(r, err);
        if (st != CF_OK)
            break;
        if (r->rec == NULL)
            m.heap[0] = m.heap[--m.nh];
        sift_down(&m, 0);
    }
    if (have_out)
        st = wfile_close(&out, st, err);
    for (size_t i = 0; m.r != NULL && i < k; i++) {
        if (m.r[i].fd >= 0)
            close(m.r[i].fd);
        cf_free(m.r[i].buf);
    }
    cf_free(m.r);
    cf_free(m.heap);
    if (st == CF_OK && w != NULL)
        st = flush_batch(so, w, err);
    if (st == CF_OK)
        drop_runs(so, a, b); /* consumed (a new run, if any, is after them) */
    return st;
}

cf_status cf_rs_sorter_drain(cf_rs_sorter *so, int dfd, const char *dir, cf_rowset_writer *w,
                             uint64_t *err_row, cf_error *err)
{
    if (so->nruns == 0) {
        CF_TRY(sort_held(so, err_row, err));
        for (size_t i = 0; i < so->n; i++) {
            if (i + 16 < so->n) /* records are read in key order, not where they lie */
                __builtin_prefetch(so->e[i + 16].rec);
            CF_TRY(emit(so, w, so->e[i].rec, false, err));
        }
        CF_TRY(flush_batch(so, w, err));
        reset_held(so);
        return CF_OK;
    }
    CF_TRY(cf_rs_sorter_spill(so, dfd, dir, err_row, err));
    /* the merge's buffers take the budget the rows held */
    cf_arena_dispose(&so->arena);
    cf_free(so->e);
    so->e = NULL;
    so->cap = 0;
    size_t f = fan_in(so);
    while (so->nruns > f)
        CF_TRY(merge_runs(so, dfd, dir, 0, f, NULL, err_row, err));
    return merge_runs(so, dfd, dir, 0, so->nruns, w, err_row, err);
}

cf_status cf_rs_sorter_add_rowset(cf_rs_sorter *so, cf_rowset *rs, uint64_t row,
                                  cf_status (*spill)(void *ctx, cf_error *err), void *ctx,
                                  cf_error *err)
{
    const cf_schema *s = so->s;
    size_t nc = s->ncols;
    cf_scan_options o;
    cf_scan_options_init(&o);
    cf_rowset_scanner *sc;
    CF_TRY(cf_rowset_scanner_create(&sc, rs, &o, err));
    cf_colvec *cv = cf_calloc(nc, sizeof(*cv));
    size_t *eoff = cf_calloc(nc, sizeof(*eoff));
    cf_buf counts, key;
    cf_buf_init(&counts);
    cf_buf_init(&key);
    cf_status st = cv != NULL && eoff != NULL ? CF_OK : CF_ENOMEM;
    if (st != CF_OK)
        SET_ERR(err, st, "loader: out of memory");
    while (st == CF_OK) {
        cf_row_batch b;
        if ((st = cf_rowset_scanner_next(sc, &b, err)) != CF_OK || b.count == 0)
            break;
        /* the batch as an append takes it: element counts, not offsets */
        cf_buf_clear(&counts);
        for (size_t c = 0; c < nc; c++) {
            const cf_batch *x = &b.cols[c];
            cv[c] = (cf_colvec){x->values, x->nonnull, NULL, x->elem_nonnull};
            if (!so->ci[c].is_array)
                continue;
            eoff[c] = x->elem_offsets[0];
            for (size_t r = 0; r < b.count; r++) {
                uint32_t n = x->elem_offsets[r + 1] - x->elem_offsets[r];
                cf_buf_append(&counts, &n, sizeof(n));
            }
        }
        if (counts.oom) {
            st = SET_ERR(err, CF_ENOMEM, "loader: out of memory");
            break;
        }
        for (size_t c = 0, at = 0; c < nc; c++)
            if (so->ci[c].is_array) {
                cv[c].elem_counts = (const uint32_t *)(counts.data + at * sizeof(uint32_t));
                at += b.count;
            }
        for (size_t r = 0; st == CF_OK && r < b.count; r++) {
            cf_buf_clear(&key);
            cf_rs_key_append_row(&key, s, cv, r);
            if (key.oom)
                st = SET_ERR(err, CF_ENOMEM, "loader: out of memory");
            else if ((st = cf_rs_sorter_add(so, key.data, key.len, cv, r, eoff, row, err)) ==
                         CF_OK &&
                     cf_rs_sorter_full(so))
                st = spill(ctx, err);
        }
    }
    cf_rowset_scanner_free(sc);
    cf_buf_dispose(&counts);
    cf_buf_dispose(&key);
    cf_free(cv);
    cf_free(eoff);
    return st;
}
