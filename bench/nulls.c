/* bench/nulls: what NULLs cost a scan (issue 17 item 3). Not a test: it
 * prints numbers.
 *
 *   bench_nulls write DIR [ROWS]    write the data sets into DIR (default
 *                                   4 M rows; the DICT words get ROWS / 2)
 *   bench_nulls scan DIR [REPS [FILTER [IO]]]
 *                                   scan each file REPS times (default 9)
 *                                   without a cache (pread) and with a
 *                                   256 MiB block cache; FILTER: only files
 *                                   whose name contains it; IO: pread or
 *                                   cache, only that one
 *
 * Data sets: random int32 (PLAIN, BIT_SHUFFLE), int32 runs of 1-32 (RLE),
 * zipf-ish words (DICT), each written not nullable ("n0") and nullable with
 * no NULLs ("z0"), 10% ("n10") and 50% ("n50") NULLs at random, the same
 * values in the non-null rows. A scan is a new iterator and 1024-row
 * cf_iter_copy_batch calls into one reused buffer, timed in thread CPU time
 * (the machine is shared: time spent descheduled is not the scan's); the
 * median of REPS scans after an untimed one, the files of a data set taking
 * turns scan by scan (so load changes fall on all of them alike). Output: one
 * line per file and I/O mode, and its ratio to the not-nullable file's
 * median. Link it against two builds and alternate the runs to compare them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cfile/cfile.h>

#define BENCH_NAME "bench_nulls"
#include "bench_util.h"

#define BATCH 1024

/* What each file of a data set holds: its name's suffix, the share of NULL
 * rows, and whether the column is nullable (the first is the baseline). */
static const struct {
    const char *tag;
    int pct;
    bool nullable;
} cases[] = {{"n0", 0, false}, {"z0", 0, true}, {"n10", 10, true}, {"n50", 50, true}};
#define NCASES (sizeof cases / sizeof cases[0])
static const struct {
    const char *name;
    cf_type type;
    cf_encoding enc;
} sets[] = {
    {"int32.PLAIN", CF_TYPE_INT32, CF_ENC_PLAIN},
    {"int32.BIT_SHUFFLE", CF_TYPE_INT32, CF_ENC_BIT_SHUFFLE},
    {"int32runs.RLE", CF_TYPE_INT32, CF_ENC_RLE},
    {"words.DICT", CF_TYPE_STRING, CF_ENC_DICT},
};
#define NSETS (sizeof sets / sizeof sets[0])

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static void write_set(const char *dir, size_t s, size_t rows)
{
    int32_t *iv = NULL;
    cf_slice *sv = NULL;
    char *words = NULL;
    if (sets[s].type == CF_TYPE_STRING) {
        rows /= 2;
        enum { VOCAB = 20000 };
        words = malloc((size_t)VOCAB * 24);
        for (size_t w = 0; w < VOCAB; w++) {
            size_t len = 3 + bench_xorshift(&rng) % 12;
            for (size_t c = 0; c < len; c++)
                words[w * 24 + c] = (char)('a' + bench_xorshift(&rng) % 26);
            words[w * 24 + len] = 0;
        }
        sv = malloc(rows * sizeof *sv);
        for (size_t i = 0; i < rows; i++) {
            /* zipf-ish: rank = VOCAB * u^3 */
            double u = (double)(bench_xorshift(&rng) >> 11) / 9007199254740992.0;
            size_t w = (size_t)(VOCAB * u * u * u);
            sv[i] = (cf_slice){(const uint8_t *)words + w * 24, strlen(words + w * 24)};
        }
    } else {
        iv = malloc(rows * sizeof *iv);
        for (size_t i = 0; i < rows;) {
            if (sets[s].enc == CF_ENC_RLE) {
                size_t run = 1 + bench_xorshift(&rng) % 32;
                int32_t v = (int32_t)(bench_xorshift(&rng) % 1000);
                for (size_t k = 0; k < run && i < rows; k++)
                    iv[i++] = v;
            } else {
                iv[i++] = (int32_t)bench_xorshift(&rng);
            }
        }
    }
    size_t es = iv ? 4 : sizeof(cf_slice);
    uint8_t *vals = malloc(rows * es), *nn = malloc(rows / 8 + 1);
    for (size_t p = 0; p < NCASES; p++) {
        int pct = cases[p].pct;
        /* the same values, in the non-null rows, in the same order */
        size_t j = 0;
        memset(nn, 0, rows / 8 + 1);
        for (size_t i = 0; i < rows; i++) {
            bool null = pct > 0 && bench_xorshift(&rng) % 100 < (uint64_t)pct;
            if (null) {
                memset(vals + i * es, 0, es);
                continue;
            }
            nn[i / 8] |= (uint8_t)(1u << (i % 8));
            memcpy(vals + i * es, iv ? (const void *)(iv + j) : (const void *)(sv + j), es);
            j++;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.%s.cfile", dir, sets[s].name, cases[p].tag);
        cf_writer_options o;
        cf_writer_options_init(&o, sets[s].type);
        o.encoding = sets[s].enc;
        o.nullable = cases[p].nullable;
        cf_error err = {0};
        cf_writer *w;
        if (cf_writer_create_file(&w, path, &o, &err) != CF_OK)
            bench_die_err(path, &err);
        for (size_t i = 0; i < rows; i += 4096) {
            size_t k = rows - i < 4096 ? rows - i : 4096;
            uint8_t bm[512];
            memset(bm, 0, sizeof bm);
            for (size_t r = 0; r < k; r++)
                if (nn[(i + r) / 8] >> ((i + r) % 8) & 1)
                    bm[r / 8] |= (uint8_t)(1u << (r % 8));
            if (cf_writer_append(w, vals + i * es, cases[p].nullable ? bm : NULL, k, &err) != CF_OK)
                bench_die_err(path, &err);
        }
        if (cf_writer_finish(w, &err) != CF_OK)
            bench_die_err(path, &err);
        cf_writer_free(w);
        printf("wrote %s (%zu rows)\n", path, rows);
    }
    free(iv);
    free(sv);
    free(words);
    free(vals);
    free(nn);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* CPU seconds of one full scan (not inlined: callgrind --toggle-collect=scan_once
 * counts the scans alone). */
__attribute__((noinline)) static double scan_once(cf_reader *r, const char *path,
                                                  uint64_t *rows_out)
{
    static uint8_t vals[BATCH * 16], nn[BATCH / 8];
    static uint64_t check;
    cf_error err = {0};
    double t0 = bench_thread_cpu();
    cf_iter *it;
    if (cf_iter_create(&it, r, &err) != CF_OK)
        bench_die_err(path, &err);
    uint64_t rows = 0;
    for (;;) {
        size_t got;
        if (cf_iter_copy_batch(it, vals, nn, BATCH, &got, &err) != CF_OK)
            bench_die_err(path, &err);
        if (got == 0)
            break;
        rows += got;
        check += vals[0] + nn[0];
    }
    cf_iter_free(it);
    double dt = bench_thread_cpu() - t0;
    if (check == 1)
        printf(" ");
    *rows_out = rows;
    return dt;
}

/* Scan the files of data set s (those FILTER keeps) reps times each, one
 * scan of each file in turn, so that the machine's load changes fall on
 * every file alike; print each file's median and its ratio to the first. */
static void scan_set(const char *dir, size_t s, int io, int reps, const char *filter)
{
    cf_reader *r[NCASES] = {0};
    cf_cache *cache[NCASES] = {0};
    char path[NCASES][4096];
    double *t = malloc(sizeof(double) * NCASES * (size_t)reps);
    uint64_t rows[NCASES] = {0};
    cf_error err = {0};
    for (size_t p = 0; p < NCASES; p++) {
        snprintf(path[p], sizeof path[p], "%s/%s.%s.cfile", dir, sets[s].name, cases[p].tag);
        if (filter && strstr(path[p], filter) == NULL)
            continue;
        if (io == 1 && cf_cache_create(&cache[p], 256u << 20, &err) != CF_OK)
            bench_die_err("cache", &err);
        cf_reader_options ro;
        cf_reader_options_init(&ro);
        ro.cache = cache[p];
        if (cf_reader_open_file(&r[p], path[p], false, &ro, &err) != CF_OK)
            bench_die_err(path[p], &err);
        scan_once(r[p], path[p], &rows[p]); /* untimed: fills the cache */
    }
    for (int rep = 0; rep < reps; rep++)
        for (size_t p = 0; p < NCASES; p++)
            if (r[p])
                t[p * (size_t)reps + (size_t)rep] = scan_once(r[p], path[p], &rows[p]);
    double base = 0;
    for (size_t p = 0; p < NCASES; p++) {
        if (!r[p])
            continue;
        qsort(t + p * (size_t)reps, (size_t)reps, sizeof *t, cmp_double);
        double med = t[p * (size_t)reps + (size_t)reps / 2];
        if (p == 0)
            base = med;
        printf("%-18s %-3s %-5s %8.3f ms  ratio %.2f  (%llu rows)\n", sets[s].name, cases[p].tag,
               io ? "cache" : "pread", med * 1e3, base > 0 ? med / base : 0.0,
               (unsigned long long)rows[p]);
        cf_reader_free(r[p]);
        cf_cache_free(cache[p]);
    }
    fflush(stdout);
    free(t);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr,
                "usage: bench_nulls write DIR [ROWS] | scan DIR [REPS [FILTER [pread|cache]]]\n");
        return 2;
    }
    if (strcmp(argv[1], "write") == 0) {
        size_t rows = argc > 3 ? strtoull(argv[3], NULL, 10) : 4u << 20;
        for (size_t s = 0; s < NSETS; s++)
            write_set(argv[2], s, rows);
        return 0;
    }
    int reps = argc > 3 ? atoi(argv[3]) : 9;
    const char *filter = argc > 4 ? argv[4] : NULL;
    const char *only = argc > 5 ? argv[5] : NULL;
    if (reps < 1)
        reps = 1;
    for (int io = 0; io < 2; io++) {
        if (only && strcmp(only, io ? "cache" : "pread") != 0)
            continue;
        for (size_t s = 0; s < NSETS; s++)
            scan_set(argv[2], s, io, reps, filter);
    }
    return 0;
}
