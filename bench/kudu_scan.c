/* Kudu tablet scan benchmark: a tablet read from a Kudu server's own directories
 * (cf_kudu_scanner: DiskRowSets with deltas + WAL replay) against our own table
 * scan (cf_table_scanner) of the same rows loaded into a cfile table, warm, in
 * one process. Prints rows/s and MB/s (bytes of values: fixed widths plus binary
 * lengths) of each, the ratio, and each one's MB/s as a fraction of memcpy's over
 * the same number of bytes (the floor no scan can beat). Also: the tablet on an fs
 * without a reader cache (cf_kudu_fs_options.reader_cache off: every scan opens its
 * blocks again, as before the cache), and both end to end (fs + tablet open, scan,
 * free vs table open, scan, free: what one `cfile kudu tablet scan` and one
 * `cfile table scan` run does). The kinds run alternately; CPU-time medians.
 * usage: bench_kudu_scan LAYOUT [ITERS] [DIR]
 *        LAYOUT: a folder with fs/wal and fs/data0, fs/data1, ... (../shared/kudu-fs/*)
 *        ITERS default 200; DIR (the cfile table) default /tmp/cf_bench_kudu_scan
 *        bench_kudu_scan gen ROWS ROWSETS disjoint|interleaved [ITERS]
 *        first writes a tablet with the library's Kudu writers (one root: an LBM
 *        container of the rowsets' CFiles, a REDO DeltaFile updating 1% of each
 *        rowset's rows, the superblock, an empty WAL) under
 *        /tmp/cf_bench_kudu_gen, its rowsets' keys in disjoint ranges or
 *        interleaved (every rowset's keys spread over the whole range: the merge),
 *        then compares as above (the table: the tablet's rowsets when they
 *        interleave, else one; BENCH_KUDU_TABLE_SAME=1: the tablet's rowsets,
 *        as contiguous key ranges, when disjoint too). BENCH_KUDU_GEN_DIR=D writes the tablet under
 * D and the table under D/table instead (runs side by side). */
/* cf-needs: tables */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cfile/delta.h>
#include <cfile/io.h>
#include <cfile/kudu.h>
#include <cfile/rowset.h>
#include <cfile/writer.h>

#include "kudufs/lbm_writer.h"
#include "kudu/tablet.h"

#define BENCH_NAME "bench_kudu_scan"
#include "bench_util.h"
#include "bench_kudu.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint64_t batch_bytes(const cf_schema *s, const cf_row_batch *b)
{
    uint64_t n = 0;
    for (size_t j = 0; j < b->ncols; j++) {
        cf_type t = cf_schema_column_at(s, j)->type;
        if (!cf_type_is_binary(t)) {
            n += b->count * cf_type_size(t);
            continue;
        }
        const cf_slice *sl = b->cols[j].values;
        for (size_t i = 0; i < b->count; i++)
            n += sl[i].len;
    }
    return n;
}

/* ---- gen: a tablet written with the library's Kudu writers ---------------------------------- */

#define GEN_SCHEMA "id INT64 KEY, v INT32 NULL, s STRING, d DOUBLE, ts INT64"
#define GEN_TABLET "0123456789abcdef0123456789abcdef"

/* A finished in-memory file appended to the container as block `id`. */
/* The floor: memcpy of as many bytes as one scan gives out (the first kind run),
 * warm, as often as the scans ran; each kind's MB/s as a fraction of it. */
static void memcpy_ratio(const uint64_t *bytes, const double *secs, int iters)
{
    int k0 = 0;
    while (k0 < 4 && secs[k0] <= 0)
        k0++;
    if (k0 == 4 || iters < 1)
        return;
    size_t n = (size_t)(bytes[k0] / (uint64_t)iters);
    if (n == 0)
        return;
    uint8_t *src = malloc(n), *dst = malloc(n);
    if (src == NULL || dst == NULL) {
        free(src);
        free(dst);
        return;
    }
    for (size_t i = 0; i < n; i++)
        src[i] = (uint8_t)(i * 131u);
    memcpy(dst, src, n); /* warm-up: fault the pages in */
    volatile uint8_t sink = 0;
    double a = bench_wall();
    for (int it = 0; it < iters; it++) {
        src[(size_t)it % n] ^= 1; /* a changed source: no copy is elided */
        memcpy(dst, src, n);
        sink ^= dst[(size_t)it % n];
    }
    double t = bench_wall() - a;
    (void)sink;
    double mbs = (double)n * iters / t / 1e6;
    printf("  memcpy of the same bytes (%zu per scan): %.1f MB/s; ratio to it:", n, mbs);
    static const char *const short_names[4] = {"kudu latest", "--no-wal", "cfile table", "--mmap"};
    for (int k = 0; k < 4; k++)
        if (secs[k] > 0)
            printf(" %s %.4f", short_names[k], bytes[k] / secs[k] / 1e6 / mbs);
    printf("\n");
    free(src);
    free(dst);
}

static void put_block(cf_kudu_lbm_writer *lw, cf_io *io, uint64_t id)
{
    cf_error e;
    cf_status st;
    cf_slice b = cf_io_mem_contents(io);
    if ((st = cf_kudu_lbm_writer_append(lw, id, b.data, b.len, 1, NULL, &e)) != CF_OK)
        bench_die("lbm append", st, &e);
    cf_io_free(io);
}

static void gen(const char *dir, uint64_t rows, size_t nrs, bool interleaved)
{
    char cmd[1200], root[1024], data[1100], p[1200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s/fs'", dir, dir);
    if (system(cmd) != 0)
        exit(1);
    snprintf(root, sizeof(root), "%s/fs/wal", dir);
    bench_kudu_root(root, 4096);
    cf_error e;
    cf_status st;
    snprintf(p, sizeof(p), "%s/wals/" GEN_TABLET, root);
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
    if (system(cmd) != 0)
        exit(1);
    snprintf(data, sizeof(data), "%s/data", root);
    cf_kudu_lbm_writer *lw;
    if ((st = cf_kudu_lbm_writer_create(&lw, data, "00000000000000000000000000000001", 4096, &e)) !=
        CF_OK)
        bench_die("container", st, &e);
    cf_schema *sch;
    if ((st = cf_schema_parse(&sch, GEN_SCHEMA, &e)) != CF_OK)
        bench_die("schema", st, &e);
    size_t nc = cf_schema_column_count(sch);
    cf_kudu_rowset *rsm = calloc(nrs, sizeof(*rsm));
    uint64_t *blocks = calloc(nrs * (nc + 1), sizeof(*blocks));
    uint32_t *cids = calloc(nc, sizeof(*cids));
    uint8_t(*keys)[2][8] = calloc(nrs, sizeof(*keys));
    for (size_t c = 0; c < nc; c++)
        cids[c] = (uint32_t)c;
    uint64_t next_block = 1;
    uint64_t per = rows / nrs;
    const size_t B = 65536;
    int64_t *ids = malloc(B * 8), *tss = malloc(B * 8);
    int32_t *vs = malloc(B * 4);
    double *ds = malloc(B * 8);
    cf_slice *ss = malloc(B * sizeof(cf_slice));
    uint8_t *nn = malloc(B / 8 + 1);
    char(*sbuf)[24] = malloc(B * 24);
    for (size_t r = 0; r < nrs; r++) {
        cf_io *io[8];
        cf_writer *w[8];
        for (size_t c = 0; c < nc; c++) {
            const cf_column *col = cf_schema_column_at(sch, c);
            cf_writer_options o;
            cf_writer_options_init(&o, col->type);
            o.nullable = col->nullable;
            if (c == 0)
                o.write_validx = true;
            if ((st = cf_io_create_mem(&io[c], &e)) != CF_OK ||
                (st = cf_writer_create(&w[c], io[c], &o, &e)) != CF_OK)
                bench_die("cfile writer", st, &e);
        }
        for (uint64_t i = 0; i < per; i += B) {
            size_t n = per - i < B ? (size_t)(per - i) : B;
            memset(nn, 0, B / 8 + 1);
            for (size_t k = 0; k < n; k++) {
                uint64_t row = i + k;
                int64_t id = interleaved ? (int64_t)(row * nrs + r) : (int64_t)(r * per + row);
                ids[k] = id;
                tss[k] = 1767225600000000 + id;
                vs[k] = (int32_t)(id % 1000);
                if (id % 7 != 0)
                    nn[k / 8] |= (uint8_t)(1u << (k % 8));
                ds[k] = (double)id * 0.25;
                int len = snprintf(sbuf[k], 24, "name-%lld", (long long)(id % 5000));
                ss[k] = (cf_slice){(const uint8_t *)sbuf[k], (size_t)len};
            }
            if ((st = cf_writer_append(w[0], ids, NULL, n, &e)) != CF_OK ||
                (st = cf_writer_append(w[1], vs, nn, n, &e)) != CF_OK ||
                (st = cf_writer_append(w[2], ss, NULL, n, &e)) != CF_OK ||
                (st = cf_writer_append(w[3], ds, NULL, n, &e)) != CF_OK ||
                (st = cf_writer_append(w[4], tss, NULL, n, &e)) != CF_OK)
                bench_die("append", st, &e);
        }
        uint64_t *cb = &blocks[r * (nc + 1)];
        for (size_t c = 0; c < nc; c++) {
            if ((st = cf_writer_finish(w[c], &e)) != CF_OK)
                bench_die("finish", st, &e);
            cf_writer_free(w[c]);
            cb[c] = next_block++;
            put_block(lw, io[c], cb[c]);
        }
        /* A REDO file: v := -1 for every 100th row, at ts 10. */
        cf_io *dio;
        cf_delta_writer *dw;
        cf_rcl_builder *rb;
        if ((st = cf_io_create_mem(&dio, &e)) != CF_OK ||
            (st = cf_delta_writer_create(&dw, dio, NULL, &e)) != CF_OK ||
            (st = cf_rcl_builder_create(&rb, &e)) != CF_OK)
            bench_die("delta writer", st, &e);
        int32_t m1 = -1;
        for (uint64_t row = 0; row < per; row += 100) {
            cf_rcl_builder_reset(rb, CF_RCL_UPDATE);
            if ((st = cf_rcl_builder_add(rb, 1, &m1, 4, &e)) != CF_OK ||
                (st = cf_delta_writer_append(dw, (uint32_t)row, 10, cf_rcl_builder_bytes(rb),
                                             &e)) != CF_OK)
                bench_die("delta", st, &e);
        }
        if ((st = cf_delta_writer_finish(dw, &e)) != CF_OK)
            bench_die("delta finish", st, &e);
        cf_delta_writer_free(dw);
        cf_rcl_builder_free(rb);
        cb[nc] = next_block++;
        put_block(lw, dio, cb[nc]);
        int64_t lo = interleaved ? (int64_t)r : (int64_t)(r * per);
        int64_t hi = interleaved ? (int64_t)((per - 1) * nrs + r) : (int64_t)(r * per + per - 1);
        const void *klo[1] = {&lo}, *khi[1] = {&hi};
        size_t kl;
        if ((st = cf_schema_key_encode(sch, klo, keys[r][0], 8, &kl, &e)) != CF_OK ||
            (st = cf_schema_key_encode(sch, khi, keys[r][1], 8, &kl, &e)) != CF_OK)
            bench_die("key", st, &e);
        rsm[r] = (cf_kudu_rowset){.id = r,
                                  .last_durable_dms_id = 0,
                                  .ncolumns = nc,
                                  .column_blocks = cb,
                                  .column_ids = cids,
                                  .nredo = 1,
                                  .redo_blocks = &cb[nc],
                                  .min_key = keys[r][0],
                                  .max_key = keys[r][1],
                                  .min_key_len = 8,
                                  .max_key_len = 8};
    }
    cf_kudu_lbm_writer_free(lw);
    cf_kudu_superblock_spec sp;
    cf_kudu_superblock_spec_init(&sp);
    sp.tablet_id = GEN_TABLET;
    sp.table_id = "fedcba9876543210fedcba9876543210";
    sp.table_name = "bench";
    sp.schema = sch;
    sp.column_ids = cids;
    sp.last_durable_mrs_id = (int64_t)nrs;
    sp.rowsets = rsm;
    sp.nrowsets = nrs;
    snprintf(p, sizeof(p), "%s/tablet-meta/" GEN_TABLET, root);
    if ((st = cf_kudu_superblock_write(p, &sp, &e)) != CF_OK)
        bench_die("superblock", st, &e);
    cf_schema_free(sch);
    free(rsm);
    free(blocks);
    free(cids);
    free(keys);
    free(ids);
    free(tss);
    free(vs);
    free(ds);
    free(ss);
    free(nn);
    free(sbuf);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_kudu_scan LAYOUT [ITERS] [DIR]\n");
        return 2;
    }
    char genroot[512] = "";
    size_t split = 1;
    uint64_t per = 0; /* disjoint: rows per table rowset (0: interleaved, row % split) */
    if (strcmp(argv[1], "gen") == 0) {
        if (argc < 5) {
            fprintf(stderr, "usage: bench_kudu_scan gen ROWS ROWSETS disjoint|interleaved "
                            "[ITERS]\n");
            return 2;
        }
        /* BENCH_KUDU_GEN_DIR: where to write it (several runs side by side). */
        const char *gd = getenv("BENCH_KUDU_GEN_DIR");
        snprintf(genroot, sizeof(genroot), "%s", gd != NULL ? gd : "/tmp/cf_bench_kudu_gen");
        double g0 = bench_wall();
        gen(genroot, strtoull(argv[2], NULL, 10), (size_t)atoi(argv[3]),
            strcmp(argv[4], "interleaved") == 0);
        printf("generated %s rows in %s rowsets (%s) in %.2f s\n", argv[2], argv[3], argv[4],
               bench_wall() - g0);
        argv[1] = genroot;
        /* The table's rowsets: interleaved, the tablet's (row i to load i % ROWSETS:
         * the same merge to do); disjoint, one (as a compacted table has), or with
         * BENCH_KUDU_TABLE_SAME=1 the tablet's in contiguous key ranges (rows
         * [p*per, (p+1)*per) to load p: as many rowsets' readers to open and chain). */
        const char *same = getenv("BENCH_KUDU_TABLE_SAME");
        bool interleaved = strcmp(argv[4], "interleaved") == 0;
        if (interleaved || (same != NULL && strcmp(same, "1") == 0))
            split = (size_t)atoi(argv[3]) > 0 ? (size_t)atoi(argv[3]) : 1;
        if (!interleaved && split > 1)
            per = (strtoull(argv[2], NULL, 10) + split - 1) / split;
        argv[2] = argc > 5 ? argv[5] : (char *)"5";
        argc = 3;
    }
    int iters = argc > 2 ? atoi(argv[2]) : 200;
    char gtable[600];
    snprintf(gtable, sizeof(gtable), "%s/table", genroot);
    const char *dir = argc > 3                       ? argv[3]
                      : getenv("BENCH_KUDU_GEN_DIR") ? gtable
                                                     : "/tmp/cf_bench_kudu_scan";
    char wal[1024], data[8][1024];
    const char *datap[8];
    size_t nd = 0;
    snprintf(wal, sizeof(wal), "%s/fs/wal", argv[1]);
    for (; nd < 8; nd++) {
        struct stat st;
        snprintf(data[nd], sizeof(data[nd]), "%s/fs/data%zu", argv[1], nd);
        if (stat(data[nd], &st) != 0)
            break;
        datap[nd] = data[nd];
    }
    cf_error e;
    cf_status st;
    cf_kudu_fs_options fo;
    cf_kudu_fs_options_init(&fo);
    fo.wal_dir = wal;
    fo.data_dirs = datap;
    fo.ndata_dirs = nd;
    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
    double t0 = bench_wall();
    if ((st = cf_kudu_fs_open(&fs, &fo, &e)) != CF_OK)
        bench_die("fs open", st, &e);
    if ((st = cf_kudu_tablet_open(&t, fs, cf_kudu_fs_tablet_at(fs, 0), &e)) != CF_OK)
        bench_die("tablet open", st, &e);
    double t_open = bench_wall() - t0;
    const cf_schema *s = cf_kudu_tablet_schema(t);
    size_t nc = cf_schema_column_count(s);

    /* The same rows as a cfile table (one load, then flushed). */
    if (bench_rm_rf(dir) != 0)
        return 1;
    if ((st = cf_rowset_create_empty(dir, s, &e)) != CF_OK)
        bench_die("table create", st, &e);
    cf_table *tb;
    cf_table_options wo;
    cf_table_options_init(&wo);
    wo.auto_compact = false; /* keep the rowsets as loaded */
    if ((st = cf_table_open(&tb, dir, &wo, &e)) != CF_OK)
        bench_die("table open", st, &e);
    /* split > 1: each load its own commit and rowset, row i in load i % split (the
     * tablet's rowsets interleave: the same merge to do) or i / per (disjoint). */
    cf_colvec *cv = calloc(nc, sizeof(*cv));
    uint8_t **vbuf = calloc(nc, sizeof(*vbuf)), **nbuf = calloc(nc, sizeof(*nbuf));
    for (size_t j = 0; j < nc; j++) {
        vbuf[j] = malloc(1024 * cf_type_size(cf_schema_column_at(s, j)->type));
        nbuf[j] = malloc(1024 / 8 + 1);
    }
    for (size_t part = 0; part < split; part++) {
        cf_table_loader *ld;
        if ((st = cf_table_loader_create(&ld, tb, NULL, &e)) != CF_OK)
            bench_die("loader", st, &e);
        cf_kudu_scanner *sc;
        if ((st = cf_kudu_scanner_create(&sc, t, NULL, &e)) != CF_OK)
            bench_die("scan", st, &e);
        uint64_t row = 0;
        for (;;) {
            cf_row_batch b;
            if ((st = cf_kudu_scanner_next(sc, &b, &e)) != CF_OK)
                bench_die("scan", st, &e);
            if (b.count == 0)
                break;
            size_t n = 0;
            for (size_t i = 0; i < b.count; i++, row++) {
                if ((per > 0 ? row / per : row % split) != part)
                    continue;
                for (size_t j = 0; j < nc; j++) {
                    size_t w = cf_type_size(cf_schema_column_at(s, j)->type);
                    memcpy(vbuf[j] + n * w, (const uint8_t *)b.cols[j].values + i * w, w);
                    bool present =
                        b.cols[j].nonnull == NULL || (b.cols[j].nonnull[i / 8] >> (i % 8)) & 1;
                    if (present)
                        nbuf[j][n / 8] |= (uint8_t)(1u << (n % 8));
                    else
                        nbuf[j][n / 8] &= (uint8_t) ~(1u << (n % 8));
                }
                n++;
            }
            for (size_t j = 0; j < nc; j++) {
                cv[j].values = vbuf[j];
                cv[j].nonnull = nbuf[j];
            }
            if (n > 0 && (st = cf_table_loader_append(ld, cv, n, &e)) != CF_OK)
                bench_die("load", st, &e);
        }
        cf_kudu_scanner_free(sc);
        if ((st = cf_table_loader_commit(ld, &e)) != CF_OK)
            bench_die("commit", st, &e);
        cf_table_loader_free(ld);
    }
    for (size_t j = 0; j < nc; j++) {
        free(vbuf[j]);
        free(nbuf[j]);
    }
    free(vbuf);
    free(nbuf);
    cf_table_free(tb);
    /* Without a block cache: every scan decompresses and decodes again, as the
     * tablet scan (which has none) does. */
    cf_table_options to;
    cf_table_options_init(&to);
    to.read_only = true;
    to.cache_bytes = 0;
    if ((st = cf_table_open(&tb, dir, &to, &e)) != CF_OK)
        bench_die("table reopen", st, &e);

    /* The tablet again on an fs that keeps no block readers between scans (how every
     * scan ran before the fs had its reader cache: each opens every block it reads). */
    cf_kudu_fs_options fo_off = fo;
    fo_off.reader_cache = CF_KUDU_READER_CACHE_OFF;
    cf_kudu_fs *fs_off;
    cf_kudu_tablet *t_off;
    if ((st = cf_kudu_fs_open(&fs_off, &fo_off, &e)) != CF_OK)
        bench_die("fs open", st, &e);
    if ((st = cf_kudu_tablet_open(&t_off, fs_off, cf_kudu_tablet_id(t), &e)) != CF_OK)
        bench_die("tablet open", st, &e);

    /* The kinds, run alternately (iteration i of every kind, then i + 1) so a load
     * that comes and goes on a shared machine falls on each kind alike:
     *   0-3  scans of the opened tablet and table (warm: repeated scans reuse what
     *        the handles keep), kind 3 the first with its blocks mmap'd;
     *   4    the first on the fs without a reader cache (the scan before it);
     *   5, 6 end to end, what a `cfile kudu tablet scan` and a `cfile table scan`
     *        run does: open the fs and the tablet, or the table, scan, free. */
    enum { NK = 7 };
    static const char *names[NK] = {
        "kudu tablet (latest, WAL replayed)", "kudu tablet (--no-wal)",
        "cfile table (same rows, no cache)",  "kudu tablet (latest, --mmap)",
        "kudu tablet (no reader cache)",      "end to end: fs+tablet open, scan",
        "end to end: table open, scan"};
    double secs[NK] = {0}, csecs[NK] = {0}, cpu_med[NK] = {0};
    /* CPU time of each scan (the process's: the scans run one thread), for a
     * median that a machine shared with other work disturbs less than wall time. */
    double *cpu[NK];
    for (int k = 0; k < NK; k++)
        if ((cpu[k] = calloc((size_t)iters + 1, sizeof(double))) == NULL)
            return 1;
    uint64_t rows[NK] = {0}, bytes[NK] = {0};
    /* BENCH_KUDU_ONLY=K: run that one scan kind alone (for profiles). */
    const char *only = getenv("BENCH_KUDU_ONLY");
    for (int it = 0; it < iters + 1; it++) {
        for (int k = 0; k < NK; k++) {
            if (only != NULL && atoi(only) != k)
                continue;
            double a = bench_wall(), ca = bench_cpu();
            cf_kudu_fs *efs = NULL;
            cf_kudu_tablet *et = NULL;
            cf_table *etb = NULL;
            cf_kudu_scanner *ks = NULL;
            cf_table_scanner *ts = NULL;
            if (k == 5) {
                if ((st = cf_kudu_fs_open(&efs, &fo, &e)) != CF_OK)
                    bench_die("fs open", st, &e);
                if ((st = cf_kudu_tablet_open(&et, efs, cf_kudu_tablet_id(t), &e)) != CF_OK)
                    bench_die("tablet open", st, &e);
            } else if (k == 6) {
                if ((st = cf_table_open(&etb, dir, &to, &e)) != CF_OK)
                    bench_die("table open", st, &e);
            }
            if (k != 2 && k != 6) {
                cf_kudu_scan_options o;
                cf_kudu_scan_options_init(&o);
                o.no_wal = k == 1;
                o.mmap = k == 3;
                const cf_kudu_tablet *kt = k == 4 ? t_off : k == 5 ? et : t;
                if ((st = cf_kudu_scanner_create(&ks, kt, &o, &e)) != CF_OK)
                    bench_die("scan", st, &e);
            } else {
                cf_scan_options o;
                cf_scan_options_init(&o);
                o.threads = 1;
                if ((st = cf_table_scanner_create(&ts, k == 6 ? etb : tb, &o, &e)) != CF_OK)
                    bench_die("table scan", st, &e);
            }
            double created = bench_wall() - a;
            uint64_t r = 0, by = 0;
            for (;;) {
                cf_row_batch b;
                st = ks != NULL ? cf_kudu_scanner_next(ks, &b, &e)
                                : cf_table_scanner_next(ts, &b, &e);
                if (st != CF_OK)
                    bench_die("next", st, &e);
                if (b.count == 0)
                    break;
                r += b.count;
                by += batch_bytes(s, &b);
            }
            cf_kudu_scanner_free(ks);
            cf_table_scanner_free(ts);
            cf_kudu_tablet_free(et);
            cf_kudu_fs_free(efs);
            cf_table_free(etb);
            if (it == 0)
                continue; /* warm-up */
            cpu[k][it - 1] = bench_cpu() - ca;
            secs[k] += bench_wall() - a;
            csecs[k] += created;
            rows[k] += r;
            bytes[k] += by;
        }
    }
    for (int k = 0; k < NK; k++) {
        qsort(cpu[k], (size_t)iters, sizeof(double), cmp_double);
        cpu_med[k] = cpu[k][iters / 2];
        free(cpu[k]);
    }
    printf("layout %s: %zu rowsets (the cfile table: %zu), open %.2f ms, %d scans each "
           "(kinds alternated)\n",
           argv[1], cf_kudu_tablet_rowset_count(t), cf_table_rowset_count(tb), t_open * 1e3, iters);
    for (int k = 0; k < NK; k++)
        if (secs[k] > 0)
            printf("  %-36s %10.0f rows/s %8.1f MB/s  (%.3f ms per scan of %" PRIu64
                   " rows, %.3f ms of it opening and creating the scanner; %.0f rows/s past "
                   "that)\n",
                   names[k], rows[k] / secs[k], bytes[k] / secs[k] / 1e6, secs[k] / iters * 1e3,
                   rows[k] / (uint64_t)iters, csecs[k] / iters * 1e3,
                   rows[k] / (secs[k] - csecs[k]));
    for (int k = 0; k < NK; k++)
        if (secs[k] > 0)
            printf("  %-36s CPU median %.3f ms per scan: %.0f rows/s, %.1f MB/s\n", names[k],
                   cpu_med[k] * 1e3, (double)(rows[k] / (uint64_t)iters) / cpu_med[k],
                   (double)(bytes[k] / (uint64_t)iters) / cpu_med[k] / 1e6);
    if (only == NULL && cpu_med[2] > 0) {
        printf("  CPU-median ratio (table time / kudu time: > 1 is kudu faster): latest %.2f, "
               "--no-wal %.2f, no reader cache %.2f; end to end %.2f\n",
               cpu_med[2] / cpu_med[0], cpu_med[2] / cpu_med[1], cpu_med[2] / cpu_med[4],
               cpu_med[6] / cpu_med[5]);
        printf("  reader cache: latest scan %.2fx the scan without it (CPU medians)\n",
               cpu_med[4] / cpu_med[0]);
        printf("  ratio kudu latest / cfile table (wall): %.2f; --no-wal / cfile table: %.2f\n",
               (rows[0] / secs[0]) / (rows[2] / secs[2]),
               (rows[1] / secs[1]) / (rows[2] / secs[2]));
    }
    memcpy_ratio(bytes, secs, iters);
    cf_table_free(tb);
    cf_kudu_tablet_free(t_off);
    cf_kudu_fs_free(fs_off);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    free(cv);
    return 0;
}
