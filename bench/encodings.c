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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "datasets.h"
#include "encoding/encoding.h"
#include "util/buf.h"

#define BENCH_NAME "bench_encodings"
#include "bench_util.h"
#include "bench_datasets.h"

#define BLOCK_SIZE 262144u
#define RUNS 5
#define BATCH 1024

/* Encoded blocks of one data set. */
typedef struct blocks {
    cf_buf bytes;
    size_t *off, *len, *count;
    size_t nblocks, cap;
    uint8_t *dict_bytes;
    cf_slice *dict_entries;
    cf_dict dict;
} blocks;

static void blocks_dispose(blocks *b)
{
    cf_buf_dispose(&b->bytes);
    free(b->off);
    free(b->len);
    free(b->count);
    free(b->dict_bytes);
    free(b->dict_entries);
}

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

static int encode_all(const cf_dataset *d, cf_encoding e, blocks *out, double *secs)
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
        double t0 = bench_cpu();
        size_t i = 0;
        uint32_t ord = 0;
        while (i < d->n) {
            size_t take = d->n - i < 100 ? d->n - i : 100; /* Kudu's flush batches */
            size_t k = ops->add(enc, (const uint8_t *)d->vals + i * es, take, false);
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
        double t = bench_cpu() - t0;
        ops->free(enc);
        if (t < best)
            best = t;
        if (run == RUNS - 1) {
            *out = b;
        } else {
            blocks_dispose(&b);
        }
    }
    *secs = best;
    return 0;
}

static uint64_t sink;

static double decode_all(const cf_dataset *d, cf_encoding e, const blocks *b)
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
        double t0 = bench_cpu();
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
        double t = bench_cpu() - t0;
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
static double memcpy_time(const cf_dataset *d)
{
    size_t es = cf_type_size(d->type);
    return bench_memcpy_best(d->vals, d->n * es, BATCH * es, RUNS, CLOCK_PROCESS_CPUTIME_ID, &sink);
}

static const char *filter;

static void run_set(const cf_dataset *d, const cf_encoding *encs, size_t nenc)
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
        blocks_dispose(&b);
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

    /* The shared suite (tools/cfile/datasets.c); strings are slower to
     * generate and larger, so their sets get a quarter of the values. */
    if (bench_each_dataset(n, n / 4, run_set) != 0)
        return 1;

    printf("\n(sink %llu)\n", (unsigned long long)sink);
    return 0;
}
