/* bench/encodings: encode and decode throughput of every block encoding on
 * realistic data, beside a memcpy of the same decoded bytes measured in the
 * same run. Not a test: it prints numbers.
 *
 *   bench_encodings [N [FILTER]]   N values per data set (default 10,000,000);
 *                                  FILTER: only rows whose "data set/ENCODING"
 *                                  contains it (for focused timing runs)
 *
 * Each data set is cut into 256 KiB blocks by the encoder itself (Kudu's
 * default block size); decode time covers load + decoding every value into a
 * reused 1024-value buffer, as a scan does. Best of 5 runs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "encoding/encoding.h"
#include "util/buf.h"

#define BLOCK_SIZE 262144u
#define RUNS 5
#define BATCH 1024

typedef struct dataset {
    const char *name;
    cf_type type;
    void *values; /* memory form */
    size_t n;
    size_t raw_bytes; /* decoded bytes (binary: string bytes + 4-byte lengths, as Kudu counts) */
} dataset;

static double now(void)
{
    struct timespec ts;
    /* CPU time of this process, not wall time: the benchmark shares its
     * machine, and time spent descheduled is not the decoder's. */
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Encoded blocks of one data set. */
typedef struct blocks {
    cf_buf bytes;
    size_t *off, *len, *count;
    size_t nblocks, cap;
    uint8_t *dict_bytes;
    cf_slice *dict_entries;
    cf_dict dict;
} blocks;

static void blocks_add(blocks *b, cf_slice s, size_t count)
{
    if (b->nblocks == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->off = realloc(b->off, b->cap * sizeof *b->off);
        b->len = realloc(b->len, b->cap * sizeof *b->len);
        b->count = realloc(b->count, b->cap * sizeof *b->count);
    }
    b->off[b->nblocks] = b->bytes.len;
    b->len[b->nblocks] = s.len;
    b->count[b->nblocks] = count;
    b->nblocks++;
    cf_buf_append(&b->bytes, s.data, s.len);
}

static int encode_all(const dataset *d, cf_encoding e, blocks *out, double *secs)
{
    const cf_encoder_ops *ops = cf_encoder_lookup(d->type, e);
    if (ops == NULL)
        return -1;
    size_t es = cf_type_size(d->type);
    double best = 1e30;
    for (int run = 0; run < RUNS; run++) {
        blocks b;
        memset(&b, 0, sizeof b);
        cf_buf_init(&b.bytes);
        cf_enc_params p = {d->type, es, BLOCK_SIZE, 16};
        cf_encoder *enc;
        cf_error err;
        if (ops->create(&enc, &p, &err) != CF_OK)
            return -1;
        double t0 = now();
        size_t i = 0;
        uint32_t ord = 0;
        while (i < d->n) {
            size_t take = d->n - i < 100 ? d->n - i : 100; /* Kudu's flush batches */
            size_t k = ops->add(enc, (const uint8_t *)d->values + i * es, take, false);
            i += k;
            if (ops->is_full(enc) || i == d->n) {
                cf_slice s;
                size_t c = ops->count(enc);
                if (ops->finish(enc, ord, &s, &err) != CF_OK) {
                    fprintf(stderr, "encode failed: %s\n", err.msg);
                    exit(1);
                }
                blocks_add(&b, s, c);
                ord += (uint32_t)c;
                ops->reset(enc);
            }
        }
        if (ops->finish_dict) {
            cf_slice s;
            ops->finish_dict(enc, &s, &err);
            b.dict_bytes = malloc(s.len);
            memcpy(b.dict_bytes, s.data, s.len);
            cf_dec_params dp = {CF_TYPE_BINARY, sizeof(cf_slice), NULL};
            cf_decoder *dd;
            cf_decoder_open(&dd, CF_ENC_PLAIN, &dp, b.dict_bytes, s.len, &err);
            b.dict_entries = malloc((dd->count + 1) * sizeof(cf_slice));
            size_t got;
            dd->ops->next(dd, b.dict_entries, dd->count, &got, &err);
            b.dict.entries = b.dict_entries;
            b.dict.count = dd->count;
            cf_decoder_free(dd);
        }
        double t = now() - t0;
        ops->free(enc);
        if (t < best)
            best = t;
        if (run == RUNS - 1) {
            *out = b;
        } else {
            cf_buf_dispose(&b.bytes);
            free(b.off);
            free(b.len);
            free(b.count);
            free(b.dict_bytes);
            free(b.dict_entries);
        }
    }
    *secs = best;
    return 0;
}

static uint64_t sink;

static double decode_all(const dataset *d, cf_encoding e, const blocks *b)
{
    const cf_decoder_ops *ops = cf_decoder_lookup(d->type, e);
    size_t es = cf_type_size(d->type);
    cf_dec_params p = {d->type, es, &b->dict};
    cf_decoder *dec;
    cf_error err;
    ops->create(&dec, &p, &err);
    uint8_t *buf = malloc(BATCH * es);
    double best = 1e30;
    for (int run = 0; run < RUNS; run++) {
        double t0 = now();
        size_t total = 0;
        for (size_t i = 0; i < b->nblocks; i++) {
            if (ops->load(dec, b->bytes.data + b->off[i], b->len[i], &err) != CF_OK) {
                fprintf(stderr, "decode failed: %s\n", err.msg);
                exit(1);
            }
            size_t got;
            do {
                ops->next(dec, buf, BATCH, &got, &err);
                total += got;
                sink += buf[0];
            } while (got == BATCH);
        }
        double t = now() - t0;
        if (total != d->n) {
            fprintf(stderr, "decoded %zu of %zu values\n", total, d->n);
            exit(1);
        }
        if (t < best)
            best = t;
    }
    free(buf);
    ops->free(dec);
    return best;
}

/* memcpy of the decoded bytes in 1024-value pieces into a reused buffer: the
 * same access pattern as the decoders, so the ratio compares like with like. */
static double memcpy_time(const dataset *d)
{
    size_t es = cf_type_size(d->type), piece = BATCH * es;
    const uint8_t *src = d->values;
    size_t total = d->n * es;
    uint8_t *dst = malloc(piece);
    double best = 1e30;
    for (int run = 0; run < RUNS; run++) {
        double t0 = now();
        for (size_t off = 0; off < total; off += piece) {
            size_t n = total - off < piece ? total - off : piece;
            memcpy(dst, src + off, n);
            sink += dst[0];
        }
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    free(dst);
    return best;
}

static const char *filter;

static void run_set(const dataset *d, const cf_encoding *encs, size_t nenc)
{
    static const char *names[] = {"AUTO", "PLAIN", "PREFIX", "GVINT", "RLE", "DICT", "BITSHUFFLE"};
    double mc = -1;
    for (size_t k = 0; k < nenc; k++) {
        char row[96];
        snprintf(row, sizeof row, "%s/%s", d->name, names[encs[k]]);
        if (filter && !strstr(row, filter))
            continue;
        if (mc < 0)
            mc = memcpy_time(d);
        blocks b;
        double enc_s;
        if (encode_all(d, encs[k], &b, &enc_s) != 0) {
            printf("| %-22s | %-10s | (not built) |\n", d->name, names[encs[k]]);
            continue;
        }
        double dec_s = decode_all(d, encs[k], &b);
        double mb = (double)d->raw_bytes / 1e6;
        printf("| %-22s | %-10s | %8.1f | %8.1f | %8.0f | %9.0f | %8.2f | %6.3f |\n", d->name,
               names[encs[k]], (double)b.bytes.len / 1e6, d->n / enc_s / 1e6, d->n / dec_s / 1e6,
               mb / dec_s, mb / mc / 1e3, mc / dec_s);
        fflush(stdout);
        cf_buf_dispose(&b.bytes);
        free(b.off);
        free(b.len);
        free(b.count);
        free(b.dict_bytes);
        free(b.dict_entries);
    }
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    filter = argc > 2 ? argv[2] : NULL;
    printf("values per set: %zu, block size %u, best of %d\n\n", n, BLOCK_SIZE, RUNS);
    printf("| data set               | encoding   | enc MB   | enc Mv/s | dec Mv/s | dec MB/s  | "
           "memcpy GB/s | dec/memcpy |\n");
    printf("|---|---|---|---|---|---|---|---|\n");

    int64_t *i64 = malloc(n * 8);
    int32_t *i32 = malloc(n * 4);
    double *dbl = malloc(n * 8);
    uint8_t *b8 = malloc(n);

    cf_encoding ints[] = {CF_ENC_PLAIN, CF_ENC_BIT_SHUFFLE, CF_ENC_RLE};
    cf_encoding flts[] = {CF_ENC_PLAIN, CF_ENC_BIT_SHUFFLE};
    cf_encoding strs[] = {CF_ENC_PLAIN, CF_ENC_PREFIX, CF_ENC_DICT};
    cf_encoding bools[] = {CF_ENC_PLAIN, CF_ENC_RLE};

    int64_t k = 1000000;
    for (size_t i = 0; i < n; i++)
        i64[i] = (k += 1 + (int64_t)(rnd() % 8));
    run_set(&(dataset){"int64 sorted keys", CF_TYPE_INT64, i64, n, n * 8}, ints, 3);

    for (size_t i = 0; i < n; i++)
        i32[i] = (int32_t)rnd();
    run_set(&(dataset){"int32 random", CF_TYPE_INT32, i32, n, n * 4}, ints, 3);

    for (size_t i = 0; i < n; i++)
        i32[i] = (int32_t)(rnd() % 65536);
    run_set(&(dataset){"int32 in [0,65536)", CF_TYPE_INT32, i32, n, n * 4}, ints, 3);

    for (size_t i = 0; i < n;) {
        int32_t v = (int32_t)(rnd() % 1000);
        size_t run = 1 + rnd() % 64;
        for (size_t j = 0; j < run && i < n; j++)
            i32[i++] = v;
    }
    run_set(&(dataset){"int32 run-heavy", CF_TYPE_INT32, i32, n, n * 4}, ints, 3);

    int64_t ts = 1700000000000000LL;
    for (size_t i = 0; i < n; i++)
        i64[i] = (ts += (int64_t)(rnd() % 2000000));
    run_set(&(dataset){"timestamps (us)", CF_TYPE_UNIXTIME_MICROS, i64, n, n * 8}, ints, 3);

    double x = 100.0;
    for (size_t i = 0; i < n; i++)
        dbl[i] = (x += ((double)(rnd() % 2001) - 1000.0) / 100.0);
    run_set(&(dataset){"double random walk", CF_TYPE_DOUBLE, dbl, n, n * 8}, flts, 2);

    for (size_t i = 0; i < n;) {
        uint8_t v = rnd() & 1;
        size_t run = 1 + rnd() % 100;
        for (size_t j = 0; j < run && i < n; j++)
            b8[i++] = v;
    }
    run_set(&(dataset){"bool with runs", CF_TYPE_BOOL, b8, n, n}, bools, 2);

    /* Strings: zipf-ish over 1000 words, and sorted "user%010d" keys. */
    size_t ns = n / 4; /* strings are slower to generate and larger */
    cf_slice *sl = malloc(ns * sizeof *sl);
    char *words = malloc(1000 * 16);
    for (int w = 0; w < 1000; w++)
        snprintf(words + w * 16, 16, "word-%d-%c", w * 7919 % 10007, 'a' + w % 26);
    size_t raw = 0;
    for (size_t i = 0; i < ns; i++) {
        double u = (double)(rnd() % 1000000 + 1) / 1000001.0;
        int w = (int)(pow(u, 3.0) * 1000) % 1000; /* skewed towards small ids */
        sl[i] = (cf_slice){(const uint8_t *)words + w * 16, strlen(words + w * 16)};
        raw += sl[i].len + 4;
    }
    run_set(&(dataset){"strings zipf (1000)", CF_TYPE_STRING, sl, ns, raw}, strs, 3);

    char *keys = malloc(ns * 16);
    raw = 0;
    for (size_t i = 0; i < ns; i++) {
        snprintf(keys + i * 16, 16, "user%010zu", i * 3);
        sl[i] = (cf_slice){(const uint8_t *)keys + i * 16, 14};
        raw += 14 + 4;
    }
    run_set(&(dataset){"sorted user%010d keys", CF_TYPE_STRING, sl, ns, raw}, strs, 3);

    printf("\n(sink %llu)\n", (unsigned long long)sink);
    free(i64);
    free(i32);
    free(dbl);
    free(b8);
    free(sl);
    free(words);
    free(keys);
    return 0;
}
