/* bench/compression: whole CFiles written and scanned through the public API
 * with every encoding x codec (NONE, SNAPPY, LZ4, ZLIB) on the data sets of
 * bench/encodings.c (tools/cfile/datasets.c's suite), beside a memcpy of the
 * same decoded bytes measured in the same run. Not a test: it prints numbers.
 *
 *   bench_compression [N]    N values per data set (default 2,000,000;
 *                            the string sets use N / 4)
 *
 * write: cf_writer into a memory io (cf_io_create_mem), appends of 100 rows (the
 *        batches of Kudu's flush), 256 KiB blocks, positional index, checksums;
 *        create to finish. Best of 3.
 * scan:  cf_io_open_mem + cf_reader_open + an iterator reading 1024-row
 *        batches to the end (CRC checks, decompression, decoding). Best of 5.
 * MB/s are of decoded bytes (binary: string bytes + 4-byte lengths, as Kudu
 * counts them). memcpy copies that many bytes in 1024-value pieces into a
 * reused buffer; "scan/memcpy" is the scan speed as a fraction of memcpy's.
 * Every codec must decode to the same values as NONE (a hash is compared).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cfile/cfile.h>

#include "datasets.h"

#define BENCH_NAME "bench_compression"
#include "bench_util.h"
#include "bench_datasets.h"

#define WRITE_RUNS 3
#define SCAN_RUNS 5
#define BATCH 1024
#define CALL_ROWS 100

static volatile uint64_t sink;

/* Write the whole data set; returns the io holding the file (caller frees). */
static cf_io *write_file(const cf_dataset *d, cf_encoding e, cf_compression c, double *secs)
{
    size_t es = cf_type_size(d->type);
    double best = 1e30;
    cf_io *keep = NULL;
    for (int run = 0; run < WRITE_RUNS; run++) {
        cf_error err;
        cf_io *io;
        cf_writer *w;
        cf_writer_options o;
        cf_writer_options_init(&o, d->type);
        o.encoding = e;
        o.compression = c;
        double t0 = bench_wall();
        if (cf_io_create_mem(&io, &err) != CF_OK)
            bench_die_err("io", &err);
        if (cf_writer_create(&w, io, &o, &err) != CF_OK)
            bench_die_err("writer", &err);
        for (size_t i = 0; i < d->n; i += CALL_ROWS) {
            size_t k = d->n - i < CALL_ROWS ? d->n - i : CALL_ROWS;
            if (cf_writer_append(w, (const uint8_t *)d->vals + i * es, NULL, k, &err) != CF_OK)
                bench_die_err("append", &err);
        }
        if (cf_writer_finish(w, &err) != CF_OK)
            bench_die_err("finish", &err);
        double t = bench_wall() - t0;
        cf_writer_free(w);
        if (t < best)
            best = t;
        cf_io_free(keep);
        keep = io;
    }
    *secs = best;
    return keep;
}

/* FNV-1a over the decoded values (slices by content). */
static uint64_t hash_batch(uint64_t h, cf_type t, const cf_batch *b)
{
    const uint8_t *p;
    size_t len;
    if (cf_type_is_binary(t)) {
        const cf_slice *s = b->values;
        for (size_t i = 0; i < b->count; i++) {
            for (size_t j = 0; j < s[i].len; j++)
                h = (h ^ s[i].data[j]) * 0x100000001b3ull;
            h = (h ^ 0xff) * 0x100000001b3ull;
        }
        return h;
    }
    p = b->values;
    len = b->count * cf_type_size(t);
    for (size_t j = 0; j < len; j++)
        h = (h ^ p[j]) * 0x100000001b3ull;
    return h;
}

/* Scan the file; with want_hash, also hash everything (untimed pass). */
static double scan_file(const cf_dataset *d, cf_slice file, uint64_t *hash)
{
    double best = 1e30;
    for (int run = 0; run < SCAN_RUNS + (hash != NULL); run++) {
        bool hashing = hash != NULL && run == 0;
        cf_error err;
        cf_io *io;
        cf_reader *r;
        cf_iter *it;
        uint64_t h = 0xcbf29ce484222325ull;
        double t0 = bench_wall();
        if (cf_io_open_mem(&io, file.data, file.len, &err) != CF_OK)
            bench_die_err("open io", &err);
        if (cf_reader_open(&r, io, NULL, &err) != CF_OK)
            bench_die_err("open reader", &err);
        if (cf_iter_create(&it, r, &err) != CF_OK)
            bench_die_err("iterator", &err);
        size_t total = 0;
        for (;;) {
            cf_batch b;
            if (cf_iter_next_batch(it, BATCH, &b, &err) != CF_OK)
                bench_die_err("scan", &err);
            if (b.count == 0)
                break;
            total += b.count;
            sink += ((const uint8_t *)b.values)[0];
            if (hashing)
                h = hash_batch(h, d->type, &b);
        }
        double t = bench_wall() - t0;
        cf_iter_free(it);
        cf_reader_free(r);
        cf_io_free(io);
        if (total != d->n) {
            fprintf(stderr, "%s: scanned %zu of %zu rows\n", d->name, total, d->n);
            exit(1);
        }
        if (hashing)
            *hash = h;
        else if (t < best)
            best = t;
    }
    return best;
}

/* memcpy of raw_bytes in pieces of 1024 values into a reused buffer. */
static double memcpy_time(const cf_dataset *d)
{
    size_t total = d->raw_bytes;
    size_t piece = (total / (d->n ? d->n : 1) + 1) * BATCH;
    uint8_t *src = malloc(total + 1);
    memset(src, 0x5a, total + 1);
    double best = bench_memcpy_best(src, total, piece, SCAN_RUNS, CLOCK_MONOTONIC, &sink);
    free(src);
    return best;
}

static const cf_compression codecs[] = {CF_COMP_NONE, CF_COMP_SNAPPY, CF_COMP_LZ4, CF_COMP_ZLIB};
static const char *codec_names[] = {"", "", "none", "snappy", "lz4", "zlib"};
static const char *enc_names[] = {"AUTO", "PLAIN", "PREFIX", "GVINT", "RLE", "DICT", "BITSHUFFLE"};

static void run_set(const cf_dataset *d, const cf_encoding *encs, size_t nenc)
{
    double mc = memcpy_time(d);
    double mb = (double)d->raw_bytes / 1e6;
    for (size_t k = 0; k < nenc; k++) {
        uint64_t none_hash = 0;
        for (size_t ci = 0; ci < sizeof codecs / sizeof codecs[0]; ci++) {
            double wsec;
            cf_io *io = write_file(d, encs[k], codecs[ci], &wsec);
            cf_slice file = cf_io_mem_contents(io);
            uint64_t h;
            double ssec = scan_file(d, file, &h);
            if (ci == 0)
                none_hash = h;
            else if (h != none_hash) {
                fprintf(stderr, "%s %s %s: decoded values differ from NONE\n", d->name,
                        enc_names[encs[k]], codec_names[codecs[ci] + 1]);
                exit(1);
            }
            printf("| %-22s | %-10s | %-6s | %8.2f | %6.2f | %8.0f | %8.0f | %7.2f | %6.3f |\n",
                   d->name, enc_names[encs[k]], codec_names[codecs[ci] + 1], (double)file.len / 1e6,
                   (double)d->raw_bytes / (double)file.len, mb / wsec, mb / ssec, mb / mc / 1e3,
                   mc / ssec);
            fflush(stdout);
            cf_io_free(io);
        }
    }
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
    if (n == 0)
        n = 1;
    printf("values per set: %zu (strings %zu), 256 KiB blocks, appends of %d rows, checksums on; "
           "write best of %d, scan best of %d (1024-row batches)\n\n",
           n, n / 4 ? n / 4 : 1, CALL_ROWS, WRITE_RUNS, SCAN_RUNS);
    printf("| data set               | encoding   | codec  | file MB  | raw/file | write MB/s | "
           "scan MB/s | memcpy GB/s | scan/memcpy |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");

    /* The shared suite (tools/cfile/datasets.c); strings are slower to
     * generate and larger, so their sets get a quarter of the values. */
    if (bench_each_dataset(n, n / 4 ? n / 4 : 1, run_set) != 0)
        return 1;

    printf("\n(sink %llu)\n", (unsigned long long)sink);
    return 0;
}
