/* `cfile table import` (and `parquet write`) of CSV or JSON lines on several
 * threads (import_rows.h).
 *
 * This thread reads the input and cuts it into chunks of exactly one batch
 * (CF_IMPORT_BATCH rows) each, where a record splitter of the format says a
 * row ends: for CSV a newline ends a record unless an odd number of quotes
 * came before it since the start of the input (RFC 4180 quotes only open and
 * close fields and double inside them), and a record with no bytes but a CR is
 * a blank line, which is no row; for JSON lines every newline ends a record
 * (JSON forbids raw control characters inside strings, and one thread reads a
 * line at a time too, so a string holding a raw newline fails the same way),
 * and a line of blanks only is no row. Workers parse chunks into batches, each
 * with its own importer (columns, arena, lines; the first line counted from the
 * newlines before the chunk); this thread appends them to the loader in input
 * order. The batches are those one thread makes, so the load, its row numbers,
 * and which error comes first (a bad field or a key the loader refuses) are the
 * same; a worker's message is printed only when its batch's turn comes.
 *
 * The workers are the library's one team (cfile/team.h), run in rounds: while
 * a round of `threads` chunks is parsed, this thread appends the round before
 * it (cf_team_start finishes that round first, taking its unclaimed chunks).
 *
 * Memory: 2 * threads chunks at most. A chunk that grows past
 * cf_import_chunk_max bytes without its batch of rows ends (a quoted field that never
 * closes, huge records) goes back to one thread, which reads on from where the
 * chunk starts: the bytes read ahead and then the rest of the input, as one
 * stream (so a pipe takes that path too).
 */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cfile/team.h>

#include "import_rows.h"

#define READ_BYTES ((size_t)1 << 20)
size_t cf_import_chunk_max = (size_t)64 << 20;

typedef struct chunk {
    cf_importer im;
    char *bytes;
    size_t len, cap;
    uint64_t line; /* of its first byte */
    int failed;    /* -1: a message in msg */
    char msg[CF_CSV_MSG_CAP];
} chunk;

/* Two rounds of chunks: one parsed by the team while the other is appended. */
typedef struct pool {
    chunk *ch;       /* 2 x threads: two rounds */
    const void *ctx; /* the format's: CSV header columns */
    void (*parse)(chunk *k, const void *ctx);
    cf_status *st;  /* a round's statuses and errors for the team (jobs never fail: */
    cf_error *errs; /* a chunk's failure is kept in the chunk, for its turn) */
} pool;

/* One run's jobs: the round's chunks. One per half of pool.ch, so that posting
 * a round never changes what the jobs of the round before still read. */
typedef struct round_jobs {
    pool *p;
    chunk *round;
} round_jobs;

/* Every row of a CSV chunk into its importer. */
static void parse_csv(chunk *k, const void *ctx)
{
    const cf_csv_cols *cc = ctx;
    cf_csv r;
    cf_csv_init_mem(&r, k->bytes, k->len, k->im.file);
    r.line = k->line;
    r.started = true; /* a byte order mark only at the start of the input */
    const cf_csv_field *f;
    size_t n;
    int got;
    k->failed = 0;
    while ((got = cf_csv_next(&r, &f, &n)) > 0) {
        if (n == 1 && f[0].len == 0 && !f[0].quoted)
            continue;
        if (cf_csv_row(&k->im, cc, f, n, k->msg, sizeof(k->msg)) != 0) {
            k->failed = -1;
            break;
        }
    }
    if (got < 0) {
        snprintf(k->msg, sizeof(k->msg), "%s", r.msg);
        k->failed = -1;
    }
    cf_csv_dispose(&r);
}

/* Every line of a JSON lines chunk into its importer. */
static void parse_jsonl(chunk *k, const void *ctx)
{
    (void)ctx;
    k->failed = 0;
    bool *seen = calloc(k->im.nc + 1, sizeof(*seen));
    if (seen == NULL) {
        snprintf(k->msg, sizeof(k->msg), "out of memory");
        k->failed = -1;
        return;
    }
    const char *p = k->bytes, *e = k->bytes + k->len;
    for (uint64_t line = k->line; p < e; line++) {
        const char *n = memchr(p, '\n', (size_t)(e - p));
        size_t got = n != NULL ? (size_t)(n - p) + 1 : (size_t)(e - p);
        if (cf_jsonl_line(&k->im, seen, p, got, line, k->msg, sizeof(k->msg)) != 0) {
            k->failed = -1;
            break;
        }
        p += got;
    }
    free(seen);
}

static cf_status parse_job(void *ctx, size_t i, cf_error *err)
{
    (void)err;
    round_jobs *j = ctx;
    j->p->parse(&j->round[i], j->p->ctx);
    return CF_OK;
}

/* The input not yet cut into chunks, and where its scan stands. */
typedef struct splitter {
    FILE *in;
    char *buf;
    size_t base, len, cap, scanned; /* buf[base..len): not yet cut off; indices into buf */
    uint64_t line;                  /* line of buf[base] */
    bool quoted;                    /* CSV: inside a quoted field at buf[scanned] */
    int rlen;      /* CSV: the record at buf[scanned] so far: 0 no byte, -1 a CR, 1 more */
    size_t lstart; /* JSON lines: where the line at buf[scanned] starts */
    size_t rows;   /* rows ended in buf[base..scanned) */
    uint64_t nl;   /* newlines in buf[base..scanned) */
    bool eof;
    int err;
    /* The record splitter: scan buf[scanned..len) on until `want` rows end
     * (true, scanned past the newline of the last) or the bytes do. */
    bool (*scan)(struct splitter *sp, size_t want);
} splitter;

/* CSV's record splitter. */
static bool scan_csv(splitter *sp, size_t want)
{
    const char *b = sp->buf;
    size_t i = sp->scanned, len = sp->len;
    bool q = sp->quoted;
    int rl = sp->rlen;
    bool hit = false;
    while (i < len) {
        if (q) { /* to the closing quote; newlines inside are lines, not records */
            const char *e = memchr(b + i, '"', len - i);
            size_t stop = e != NULL ? (size_t)(e - b) : len;
            for (const char *n = b + i; (n = memchr(n, '\n', stop - (size_t)(n - b))) != NULL; n++)
                sp->nl++;
            rl = 1;
            i = e != NULL ? stop + 1 : len;
            q = e == NULL;
            continue;
        }
        const char *n = memchr(b + i, '\n', len - i);
        size_t stop = n != NULL ? (size_t)(n - b) : len;
        const char *o = memchr(b + i, '"', stop - i);
        if (o != NULL) { /* a quote opens before the newline */
            rl = 1;
            i = (size_t)(o - b) + 1;
            q = true;
            continue;
        }
        /* a record of one CR (CRLF) is blank, one of more bytes is not */
        if (stop > i)
            rl = rl == 0 && stop - i == 1 && b[i] == '\r' ? -1 : 1;
        i = stop;
        if (n == NULL)
            break;
        i++;
        sp->nl++;
        sp->rows += rl > 0; /* as cf_csv reads a blank line: no field bytes */
        rl = 0;
        if (sp->rows == want) {
            hit = true;
            break;
        }
    }
    sp->scanned = i;
    sp->quoted = q;
    sp->rlen = rl;
    return hit;
}

/* JSON lines' record splitter: a line is a row unless cf_jsonl_span finds it
 * blank (the rule of one thread's reader). */
static bool scan_jsonl(splitter *sp, size_t want)
{
    const char *b = sp->buf;
    size_t i = sp->scanned, len = sp->len;
    while (i < len) {
        const char *n = memchr(b + i, '\n', len - i);
        if (n == NULL) {
            i = len;
            break;
        }
        size_t stop = (size_t)(n - b), s0;
        size_t vlen = cf_jsonl_span(b + sp->lstart, stop - sp->lstart, sp->line + sp->nl, &s0);
        i = stop + 1;
        sp->nl++;
        sp->rows += s0 < vlen;
        sp->lstart = i;
        if (sp->rows == want) {
            sp->scanned = i;
            return true;
        }
    }
    sp->scanned = i;
    return false;
}

/* Scan on until `want` records end (true, *end past the newline of the last)
 * or the input does (*end = len: what is left is the last chunk); false when
 * the bytes pass cf_import_chunk_max first, or on a read error (sp->err). */
static bool split(splitter *sp, size_t want, size_t *end)
{
    for (;;) {
        if (sp->scan(sp, want)) {
            *end = sp->scanned;
            return true;
        }
        if (sp->eof || sp->len - sp->base > cf_import_chunk_max) {
            *end = sp->len;
            return sp->eof ? true : false;
        }
        if (sp->base > 0) { /* what chunks took leaves: once per read, not per chunk */
            memmove(sp->buf, sp->buf + sp->base, sp->len - sp->base);
            sp->len -= sp->base;
            sp->scanned -= sp->base;
            sp->lstart -= sp->base;
            sp->base = 0;
        }
        if (sp->cap - sp->len < READ_BYTES) {
            char *nb2 = realloc(sp->buf, sp->cap + READ_BYTES);
            if (nb2 == NULL) {
                sp->err = ENOMEM;
                *end = 0;
                return false;
            }
            sp->buf = nb2;
            sp->cap += READ_BYTES;
        }
        size_t got = fread(sp->buf + sp->len, 1, READ_BYTES, sp->in);
        sp->len += got;
        if (got < READ_BYTES) {
            if (ferror(sp->in)) {
                sp->err = errno ? errno : EIO;
                *end = 0;
                return false;
            }
            sp->eof = true;
        }
    }
}

/* buf[base..end) leaves the splitter (lines counted); the rest stays where it
 * is until the next read moves it down. */
static void take(splitter *sp, size_t end)
{
    sp->line += sp->nl; /* end is where the scan stands */
    sp->nl = 0;
    sp->base = end;
    sp->rows = 0;
}

/* The rest of the input as one stream: the bytes read ahead, then the rest of
 * `in` (fopencookie). */
typedef struct rest {
    const char *buf;
    size_t len, at;
    FILE *in;
} rest;

static ssize_t rest_read(void *cookie, char *out, size_t n)
{
    rest *r = cookie;
    if (r->at < r->len) {
        size_t k = r->len - r->at < n ? r->len - r->at : n;
        memcpy(out, r->buf + r->at, k);
        r->at += k;
        return (ssize_t)k;
    }
    size_t got = fread(out, 1, n, r->in);
    return got == 0 && ferror(r->in) ? -1 : (ssize_t)got;
}

static FILE *rest_open(rest *r, const splitter *sp)
{
    *r = (rest){sp->buf + sp->base, sp->len - sp->base, 0, sp->in};
    cookie_io_functions_t io = {rest_read, NULL, NULL, NULL};
    return fopencookie(r, "r", io);
}

/* One thread from where the splitter stands (its line; `started`: past the
 * start of the input) to the end; an exit code. */
static int serial_rest(cf_importer *im, const splitter *sp, bool jsonl, const cf_csv_cols *cc,
                       bool started)
{
    rest r;
    FILE *in = rest_open(&r, sp);
    if (in == NULL)
        return cf_cli_fail(im->c, "%s: %s", im->file, strerror(errno));
    int rc;
    if (jsonl) {
        rc = cf_jsonl_rows(im, in, sp->line);
    } else {
        cf_csv r2;
        cf_csv_init_file(&r2, in, im->file);
        r2.line = sp->line;
        r2.started = started;
        cf_csv_cols own = {NULL, NULL, 0};
        rc = cc != NULL ? 0 : cf_csv_header(im, &r2, &own);
        if (rc == 0)
            rc = cf_csv_rows(im, &r2, cc != NULL ? cc : &own);
        cf_csv_cols_free(&own);
        cf_csv_dispose(&r2);
    }
    if (rc == 0 && ferror(in)) /* rest_read failed: errno is fread's */
        rc = cf_cli_fail(im->c, "%s: read error: %s", im->file, strerror(errno ? errno : EIO));
    fclose(in);
    return rc;
}

/* Chunk k's batch into the loader (its round parsed): an exit code. */
static int consume(chunk *k, cf_importer *im)
{
    if (k->failed)
        return cf_cli_fail(im->c, "%s", k->msg);
    size_t rows = k->im.r;
    k->im.total = im->total; /* rows before it: a Parquet writer's error row, progress */
    int rc = cf_import_flush(&k->im);
    if (rc == 0)
        im->total += rows;
    return rc;
}

/* Cut the next chunk of sp's input into k. False when there is none: the
 * input ended, a chunk passed the limit (*fallback: one thread from there), or
 * *fail is set (an errno of the read, or -1 for no memory), reported once the
 * chunks before have had their turn. */
static bool cut_chunk(splitter *sp, chunk *k, bool *fallback, int *fail)
{
    for (;;) {
        size_t end;
        bool full = split(sp, CF_IMPORT_BATCH, &end);
        if (sp->err != 0) {
            *fail = sp->err;
            return false;
        }
        if (!full) {
            *fallback = true;
            return false;
        }
        if (end == sp->base) {
            if (sp->eof && end == sp->len)
                return false;
            continue;
        }
        if (k->cap < end - sp->base) {
            char *b = realloc(k->bytes, end - sp->base);
            if (b == NULL) {
                *fail = -1;
                return false;
            }
            k->bytes = b;
            k->cap = end - sp->base;
        }
        memcpy(k->bytes, sp->buf + sp->base, end - sp->base);
        k->len = end - sp->base;
        k->line = sp->line;
        take(sp, end);
        return true;
    }
}

/* Chunks of sp's input parsed on a team of `threads` (format `parse`, ctx)
 * and appended in order; the rest on this thread when a chunk passes the
 * limit. */
static int run_chunks(cf_importer *im, splitter *sp, size_t threads,
                      void (*parse)(chunk *k, const void *ctx), const cf_csv_cols *cc, bool jsonl)
{
    int rc = 0;
    pool p = {.ctx = cc, .parse = parse};
    p.ch = calloc(2 * threads, sizeof(*p.ch));
    p.st = calloc(threads, sizeof(*p.st));
    p.errs = calloc(threads, sizeof(*p.errs));
    if (p.ch == NULL || p.st == NULL || p.errs == NULL)
        rc = cf_cli_fail(im->c, "out of memory");
    for (size_t i = 0; rc == 0 && i < 2 * threads; i++) {
        if (cf_import_setup(&p.ch[i].im, im->c, im->file, im->s) != 0)
            rc = cf_cli_fail(im->c, "out of memory");
        p.ch[i].im.file = im->file;
        p.ch[i].im.map = im->map;
#if CF_HAVE_TABLES
        p.ch[i].im.ld = im->ld;
#endif
#if CF_HAVE_PARQUET
        p.ch[i].im.pw = im->pw;
#endif
        p.ch[i].im.progress = im->progress;
        p.ch[i].im.progress_ctx = im->progress_ctx;
    }
    /* The workers besides this thread, which appends and helps at each
     * round's end. */
    cf_team *team = NULL;
    cf_error terr;
    if (rc == 0 && cf_team_create(&team, threads, &terr) != CF_OK)
        rc = cf_cli_fail(im->c, "%s", terr.msg);
    round_jobs jobs[2] = {{&p, p.ch}, {&p, p.ch != NULL ? p.ch + threads : NULL}};
    bool more = true, fallback = false;
    int fail = 0;
    size_t ready = 0; /* chunks of the round parsed last, to append */
    for (size_t r = 0; rc == 0; r++) {
        chunk *round = jobs[r % 2].round;
        size_t n = 0;
        while (more && n < threads && (more = cut_chunk(sp, &round[n], &fallback, &fail)))
            n++;
        /* Finishes the round before (its chunks all parsed), then posts this one. */
        cf_team_start(team, parse_job, &jobs[r % 2], n, p.st, p.errs);
        for (size_t i = 0; rc == 0 && i < ready; i++)
            rc = consume(&jobs[(r + 1) % 2].round[i], im);
        ready = n;
        if (n == 0)
            break;
    }
    cf_team_free(team); /* finishes the open round: nothing of p is touched after */
    if (rc == 0 && fail != 0)
        rc = fail < 0 ? cf_cli_fail(im->c, "out of memory")
                      : cf_cli_fail(im->c, "%s: read error: %s", im->file, strerror(fail));
    if (rc == 0 && fallback)
        rc = serial_rest(im, sp, jsonl, cc, true);
    for (size_t i = 0; p.ch != NULL && i < 2 * threads; i++) {
        cf_import_dispose(&p.ch[i].im);
        free(p.ch[i].bytes);
    }
    free(p.ch);
    free(p.st);
    free(p.errs);
    return rc;
}

int cf_import_parallel(cf_importer *im, FILE *in, bool jsonl, size_t threads)
{
    if (threads == 0)
        threads = cf_team_online_cpus(16);
    if (threads < 2) {
        if (jsonl)
            return cf_jsonl_rows(im, in, 1);
        cf_csv r;
        cf_csv_init_file(&r, in, im->file);
        cf_csv_cols cc = {NULL, NULL, 0};
        int rc = cf_csv_header(im, &r, &cc);
        if (rc == 0)
            rc = cf_csv_rows(im, &r, &cc);
        cf_csv_cols_free(&cc);
        cf_csv_dispose(&r);
        return rc;
    }
    splitter sp;
    memset(&sp, 0, sizeof(sp));
    sp.in = in;
    sp.line = 1;
    sp.scan = jsonl ? scan_jsonl : scan_csv;
    int rc = 0;
    if (jsonl) {
        rc = run_chunks(im, &sp, threads, parse_jsonl, NULL, true);
        free(sp.buf);
        return rc;
    }
    cf_csv_cols cc = {NULL, NULL, 0};
    size_t end;
    /* the header: the first record */
    bool whole = split(&sp, 1, &end);
    if (sp.err != 0) {
        free(sp.buf);
        return cf_cli_fail(im->c, "%s: read error: %s", im->file, strerror(sp.err));
    }
    if (!whole) { /* blank lines and a header past the chunk limit: one thread */
        rc = serial_rest(im, &sp, false, NULL, false);
        free(sp.buf);
        return rc;
    }
    {
        cf_csv r;
        cf_csv_init_mem(&r, sp.buf, end, im->file);
        rc = cf_csv_header(im, &r, &cc);
        cf_csv_dispose(&r);
    }
    if (rc == 0) {
        take(&sp, end);
        rc = run_chunks(im, &sp, threads, parse_csv, &cc, false);
    }
    free(sp.buf);
    cf_csv_cols_free(&cc);
    return rc;
}
