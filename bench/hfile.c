/* bench/hfile: HBase HFile scan and seek throughput on real-sized files
 * (issue 16 item 5). Not a test: it prints numbers.
 *
 *   bench_hfile [MB] [SEEKS]   MB of cells per file (default 100), random row
 *                              seeks per file (default 20000)
 *
 * One file per codec this build reads and writes (NONE, GZ, SNAPPY, LZ4, ZSTD,
 * and LZO/BZIP2 when built) and per data block encoding the writer can produce,
 * written through the library's v3 writer into memory: HBase's defaults --
 * 64 KiB blocks, CRC32C per 16 KiB, ROW Bloom, mvcc vlongs -- and cells shaped
 * like a wide HBase table: rows "user%012d" of 10 columns (family "cf",
 * qualifiers "field0".."field9"), 8-byte timestamps, 100-byte values that
 * compress about 2:1.
 *
 * scan: cf_io_open_mem + cf_hfile_open + an iterator over every cell (checksums
 *       verified, blocks decompressed, cells parsed). Best of 5.
 * seek: SEEKS seek_row to random existing rows, each followed by one next, on
 *       one iterator (block reads through the index; no block cache). Best of 3.
 * Times are thread CPU time (CLOCK_THREAD_CPUTIME_ID), not wall time.
 * MB/s count the cells' KeyValue bytes (4 + 4 + key + value + mvcc vlong), the
 * bytes a scan hands out; "scan/memcpy" divides the scan rate by memcpy's over
 * the same number of bytes in 64 KiB pieces, measured in the same run.
 */
/* cf-needs: hfile */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cfile/hfile.h>
#include <cfile/io.h>

#define BENCH_NAME "bench_hfile"
#include "bench_util.h"

#define SCAN_RUNS 5
#define SEEK_RUNS 3
#define SCAN_BUDGET 8.0
#define SEEK_BUDGET 3.0
#define COLS 10
#define VALUE_LEN 100

static volatile uint64_t sink;

static uint64_t rng_state = BENCH_SEED;

/* Half random letters, half a repeated pattern: about 2:1 under GZ. */
static void make_value(uint8_t *v, uint64_t i)
{
    for (int k = 0; k < VALUE_LEN / 2; k++)
        v[k] = (uint8_t)('a' + bench_xorshift(&rng_state) % 26);
    for (int k = VALUE_LEN / 2; k < VALUE_LEN; k++)
        v[k] = (uint8_t)('0' + (i + (uint64_t)k) % 10);
}

typedef struct file {
    cf_io *io; /* the memory writer holding the bytes */
    cf_slice bytes;
    uint64_t rows, cells, kv_bytes;
    double write_s;
} file;

static file write_file(uint32_t codec, int encoding, uint64_t target_bytes)
{
    file f = {0};
    cf_error err = {0};
    if (cf_io_create_mem(&f.io, &err) != CF_OK)
        bench_die_err("create io", &err);
    cf_hfile_writer_options o;
    cf_hfile_writer_options_init(&o);
    o.compression = codec;
    o.encoding = encoding;
    cf_hfile_writer *w;
    if (cf_hfile_writer_create(&w, f.io, &o, &err) != CF_OK)
        bench_die_err("writer", &err);
    rng_state = BENCH_SEED;
    char row[32], qual[16];
    uint8_t val[VALUE_LEN];
    double t0 = bench_thread_cpu();
    while (f.kv_bytes < target_bytes) {
        int rl = snprintf(row, sizeof(row), "user%012llu", (unsigned long long)f.rows);
        for (int q = 0; q < COLS; q++) {
            int ql = snprintf(qual, sizeof(qual), "field%d", q);
            make_value(val, f.cells);
            cf_hfile_cell c;
            memset(&c, 0, sizeof(c));
            c.row = (cf_slice){(const uint8_t *)row, (size_t)rl};
            c.family = (cf_slice){(const uint8_t *)"cf", 2};
            c.qualifier = (cf_slice){(const uint8_t *)qual, (size_t)ql};
            c.timestamp = 1700000000000LL + (int64_t)(f.cells % 1000);
            c.type = CF_HFILE_PUT;
            c.value = (cf_slice){val, VALUE_LEN};
            c.mvcc = 0;
            if (cf_hfile_writer_append(w, &c, &err) != CF_OK)
                bench_die_err("append", &err);
            f.kv_bytes += 8 + (2 + (size_t)rl + 1 + 2 + (size_t)ql + 9) + VALUE_LEN + 1;
            f.cells++;
        }
        f.rows++;
    }
    if (cf_hfile_writer_finish(w, &err) != CF_OK)
        bench_die_err("finish", &err);
    f.write_s = bench_thread_cpu() - t0;
    cf_hfile_writer_free(w);
    f.bytes = cf_io_mem_contents(f.io);
    return f;
}

static double memcpy_time(uint64_t bytes)
{
    const size_t piece = 65536;
    uint8_t *src = malloc(piece * 16), *dst = malloc(piece);
    if (!src || !dst)
        bench_die_err("memcpy buffers", NULL);
    memset(src, 7, piece * 16);
    double best = 1e30;
    for (int run = 0; run < SCAN_RUNS; run++) {
        double t0 = bench_thread_cpu();
        uint64_t done = 0;
        size_t at = 0;
        while (done < bytes) {
            size_t k = bytes - done < piece ? (size_t)(bytes - done) : piece;
            memcpy(dst, src + at, k);
            sink += dst[k - 1];
            done += k;
            at = (at + piece) % (piece * 16);
        }
        double t = bench_thread_cpu() - t0;
        if (t < best)
            best = t;
    }
    free(src);
    free(dst);
    return best;
}

static cf_hfile *open_mem(const file *f, cf_io **io)
{
    cf_error err = {0};
    if (cf_io_open_mem(io, f->bytes.data, f->bytes.len, &err) != CF_OK)
        bench_die_err("open io", &err);
    cf_hfile *h;
    if (cf_hfile_open(&h, *io, NULL, &err) != CF_OK)
        bench_die_err("open", &err);
    return h;
}

static double scan_time(const file *f)
{
    double best = 1e30, start = bench_thread_cpu();
    /* Best of SCAN_RUNS, but stop early past SCAN_BUDGET seconds (BZIP2, GZ). */
    for (int run = 0; run < SCAN_RUNS && (run == 0 || bench_thread_cpu() - start < SCAN_BUDGET);
         run++) {
        cf_error err = {0};
        double t0 = bench_thread_cpu();
        cf_io *io;
        cf_hfile *h = open_mem(f, &io);
        cf_hfile_iter *it;
        if (cf_hfile_iter_create(&it, h, &err) != CF_OK)
            bench_die_err("iter", &err);
        uint64_t n = 0, x = 0;
        for (;;) {
            cf_hfile_cell c;
            bool has;
            if (cf_hfile_iter_next(it, &c, &has, &err) != CF_OK)
                bench_die_err("next", &err);
            if (!has)
                break;
            x += c.value.len + c.row.len;
            n++;
        }
        cf_hfile_iter_free(it);
        cf_hfile_free(h);
        cf_io_free(io);
        double t = bench_thread_cpu() - t0;
        if (n != f->cells) {
            fprintf(stderr, "bench_hfile: scanned %llu cells, wrote %llu\n", (unsigned long long)n,
                    (unsigned long long)f->cells);
            exit(1);
        }
        sink += x;
        if (t < best)
            best = t;
    }
    return best;
}

static double seek_time(const file *f, uint64_t *seeks_io)
{
    uint64_t seeks = *seeks_io;
    double best = 1e30;
    char row[32];
    for (int run = 0; run < SEEK_RUNS; run++) {
        cf_error err = {0};
        cf_io *io;
        cf_hfile *h = open_mem(f, &io);
        cf_hfile_iter *it;
        if (cf_hfile_iter_create(&it, h, &err) != CF_OK)
            bench_die_err("iter", &err);
        uint64_t s = 12345;
        double t0 = bench_thread_cpu();
        for (uint64_t i = 0; i < seeks; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t r = (s >> 17) % f->rows;
            int rl = snprintf(row, sizeof(row), "user%012llu", (unsigned long long)r);
            if (cf_hfile_iter_seek_row(it, row, (size_t)rl, &err) != CF_OK)
                bench_die_err("seek", &err);
            cf_hfile_cell c;
            bool has;
            if (cf_hfile_iter_next(it, &c, &has, &err) != CF_OK || !has)
                bench_die_err("next after seek", &err);
            if (c.row.len != (size_t)rl || memcmp(c.row.data, row, (size_t)rl) != 0) {
                fprintf(stderr, "bench_hfile: seek to %s found another row\n", row);
                exit(1);
            }
            /* Slow codecs: as many seeks as fit in SEEK_BUDGET seconds. */
            if ((i & 255) == 255 && bench_thread_cpu() - t0 > SEEK_BUDGET) {
                seeks = i + 1;
                break;
            }
        }
        double t = bench_thread_cpu() - t0;
        cf_hfile_iter_free(it);
        cf_hfile_free(h);
        cf_io_free(io);
        if (t / (double)seeks < best)
            best = t / (double)seeks;
    }
    *seeks_io = seeks;
    return best * (double)seeks;
}

int main(int argc, char **argv)
{
    uint64_t mb = argc > 1 ? strtoull(argv[1], NULL, 10) : 100;
    uint64_t seeks_arg = argc > 2 ? strtoull(argv[2], NULL, 10) : 20000;
    if (mb == 0 || seeks_arg == 0) {
        fprintf(stderr, "usage: bench_hfile [MB] [SEEKS]\n");
        return 2;
    }
    /* Every codec unencoded, every encoding uncompressed, and FAST_DIFF (the
     * common production choice) under the fast codecs. */
    static const struct {
        uint32_t codec;
        int encoding;
    } runs[] = {
        {CF_HFILE_NONE, CF_HFILE_DBE_NONE},         {CF_HFILE_GZ, CF_HFILE_DBE_NONE},
        {CF_HFILE_SNAPPY, CF_HFILE_DBE_NONE},       {CF_HFILE_LZ4, CF_HFILE_DBE_NONE},
        {CF_HFILE_ZSTD, CF_HFILE_DBE_NONE},         {CF_HFILE_LZO, CF_HFILE_DBE_NONE},
        {CF_HFILE_BZIP2, CF_HFILE_DBE_NONE},        {CF_HFILE_NONE, CF_HFILE_DBE_PREFIX},
        {CF_HFILE_NONE, CF_HFILE_DBE_DIFF},         {CF_HFILE_NONE, CF_HFILE_DBE_FAST_DIFF},
        {CF_HFILE_NONE, CF_HFILE_DBE_ROW_INDEX_V1}, {CF_HFILE_SNAPPY, CF_HFILE_DBE_FAST_DIFF},
        {CF_HFILE_ZSTD, CF_HFILE_DBE_FAST_DIFF},
    };
    printf("%-7s %-12s %8s %7s %7s %8s %9s %8s %9s %9s\n", "codec", "encoding", "cells", "file_MB",
           "write_s", "Mcells/s", "scan_MB/s", "/memcpy", "seeks/s", "write_MB/s");
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        const char *cn = cf_hfile_codec_name(runs[i].codec);
        const char *en = cf_hfile_encoding_name(runs[i].encoding);
        /* A codec or encoding the writer cannot produce in this build is skipped, named. */
        cf_io *probe;
        cf_error err = {0};
        cf_hfile_writer *w = NULL;
        cf_hfile_writer_options o;
        cf_hfile_writer_options_init(&o);
        o.compression = runs[i].codec;
        o.encoding = runs[i].encoding;
        if (cf_io_create_mem(&probe, &err) != CF_OK)
            bench_die_err("io", &err);
        cf_status st = cf_hfile_writer_create(&w, probe, &o, &err);
        cf_hfile_writer_free(w);
        cf_io_free(probe);
        if (st != CF_OK) {
            printf("%-7s %-12s (not written by this build: %s)\n", cn, en, err.msg);
            continue;
        }
        file f = write_file(runs[i].codec, runs[i].encoding, mb << 20);
        /* A file this build writes but cannot read back is a bug to report, not to time. */
        cf_io *rio;
        cf_hfile *rh = NULL;
        if (cf_io_open_mem(&rio, f.bytes.data, f.bytes.len, &err) != CF_OK)
            bench_die_err("open io", &err);
        st = cf_hfile_open(&rh, rio, NULL, &err);
        cf_hfile_free(rh);
        cf_io_free(rio);
        if (st != CF_OK) {
            printf("%-7s %-12s (written, but does not read back: %s)\n", cn, en, err.msg);
            cf_io_free(f.io);
            continue;
        }
        uint64_t seeks = seeks_arg;
        double sc = scan_time(&f), mc = memcpy_time(f.kv_bytes), sk = seek_time(&f, &seeks);
        double mbs = (double)f.kv_bytes / (1 << 20) / sc;
        printf("%-7s %-12s %8llu %7.1f %7.2f %8.2f %9.0f %8.3f %9.0f %9.1f\n", cn, en,
               (unsigned long long)f.cells, (double)f.bytes.len / (1 << 20), f.write_s,
               (double)f.cells / sc / 1e6, mbs, mbs / ((double)f.kv_bytes / (1 << 20) / mc),
               (double)seeks / sk, (double)f.kv_bytes / (1 << 20) / f.write_s);
        fflush(stdout);
        cf_io_free(f.io);
    }
    printf("(MB = 2^20 bytes of the cells' KeyValue bytes; best of %d scans / %d seek runs)\n",
           SCAN_RUNS, SEEK_RUNS);
    return (int)(sink & 0);
}
