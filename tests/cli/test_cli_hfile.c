#define _GNU_SOURCE /* memmem */
/* `cfile hfile` as HBase's `hbase hfile` users know it: meta, blocks, stats,
 * dump --keys/--row, check, bloom, write, several files per call, `cfile info`
 * on an HFile, and every usage error. Checked against the real files of
 * shared/hfile/ and their expected.json, and by write -> dump round trips.
 * The kill test runs the real binary (CF_CLI_BIN). */
/* cf-needs: hfile */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "support_cli.h"
#include "support_hfile.h"
#include "test_common.h"

static char *shared(const char *name)
{
    static char buf[4][1024];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 1024, "%s/hfile/%s", cf_test_shared_dir(), name);
    return p;
}

static int64_t num(const cf_json *j)
{
    assert_non_null(j);
    return strtoll(j->str, NULL, 10);
}

/* ---- meta, blocks, stats over the real files ------------------------------------------- */

static void parse(cf_json_doc *doc, const char *text, size_t len)
{
    char msg[256];
    if (cf_json_parse(doc, text, len, msg, sizeof(msg)) != 0)
        fail_msg("bad JSON: %s: %.200s", msg, text);
}

/* meta --json carries every expected FileInfo value (and its decoding); blocks
 * --json lists every data block the expected index does, with the sizes the
 * headers give; stats --json counts cells, rows and types as expected. */
static void test_hfile_cli__real_files_agree(void **state)
{
    (void)state;
    hfile_corpus hc;
    hfile_corpus_open(&hc);
    int files = 0, gaps = 0;
    while (hfile_corpus_next(&hc)) {
        files++;
        char msg[256];
        cf_json_doc want;
        assert_int_equal(cf_json_parse_file(&want, hc.json, msg, sizeof(msg)), 0);
        run r;
        CLI(&r, "hfile", "meta", "--json", hc.path);
        if (r.rc != 0) {
            assert_true(r.rc == 1 || r.rc == 3);
            printf("known gap: %s: %s", hc.name, r.err);
            gaps++;
            done(&r);
            cf_json_doc_dispose(&want);
            continue;
        }
        cf_json_doc got;
        parse(&got, r.out, r.out_len);
        const cf_json *wfi = cf_json_get(&want.root, "file_info");
        const cf_json *gfi = cf_json_get(&got.root, "file_info");
        assert_int_equal(wfi->n, gfi->n);
        for (size_t i = 0; i < wfi->n; i++) {
            const cf_json *we = &wfi->items[i], *ge = NULL;
            for (size_t j = 0; j < gfi->n && !ge; j++)
                if (strcmp(cf_json_get(&gfi->items[j], "key")->str, cf_json_get(we, "key")->str) ==
                    0)
                    ge = &gfi->items[j];
            assert_non_null(ge);
            const cf_json *wd = cf_json_get(we, "decoded"), *gd = cf_json_get(ge, "decoded");
            if (!wd)
                continue;
            if (!gd)
                fail_msg("%s: %s not decoded", hc.name, cf_json_get(we, "key")->str);
            if (wd->kind == CF_JSON_NUMBER || wd->kind == CF_JSON_TRUE ||
                wd->kind == CF_JSON_FALSE) {
                assert_int_equal(wd->kind, gd->kind);
                if (wd->kind == CF_JSON_NUMBER)
                    assert_string_equal(wd->str, gd->str);
            } else if (cf_json_get(wd, "from")) {
                assert_string_equal(cf_json_get(wd, "from")->str, cf_json_get(gd, "from")->str);
                assert_string_equal(cf_json_get(wd, "to")->str, cf_json_get(gd, "to")->str);
            } else {
                assert_string_equal(cf_json_get(wd, "timestamp")->str,
                                    cf_json_get(gd, "timestamp")->str);
                assert_string_equal(cf_json_get(wd, "type")->str, cf_json_get(gd, "type")->str);
            }
        }
        assert_string_equal(cf_json_get(&got.root, "data_block_encoding")->str,
                            cf_json_get(&want.root, "data_block_encoding")->str);
        cf_json_doc_dispose(&got);
        done(&r);

        /* blocks: the last index level lists the data blocks; the headers agree. */
        CLI(&r, "hfile", "blocks", "--json", hc.path);
        EXPECT_RC(r, 0);
        parse(&got, r.out, r.out_len);
        const cf_json *ib = cf_json_get(cf_json_get(&got.root, "index"), "blocks");
        int64_t levels = num(cf_json_get(cf_json_get(&want.root, "index"), "levels"));
        const cf_json *wdb = cf_json_get(&want.root, "data_blocks");
        if (!wdb)
            wdb = cf_json_get(&want.root, "data_blocks_sample");
        size_t seen = 0;
        uint64_t first_off = 0;
        bool first = true;
        for (size_t b = 0; b < ib->n; b++) {
            if (num(cf_json_get(&ib->items[b], "level")) != levels - 1)
                continue;
            const cf_json *es = cf_json_get(&ib->items[b], "entries");
            for (size_t k = 0; k < es->n; k++, seen++) {
                if (first) {
                    first_off = (uint64_t)num(cf_json_get(&es->items[k], "offset"));
                    first = false;
                }
                /* data_blocks has every block; a sample has "index" members. */
                for (size_t q = 0; q < wdb->n; q++) {
                    const cf_json *wb = &wdb->items[q];
                    const cf_json *wi = cf_json_get(wb, "index");
                    if (wi ? (size_t)num(wi) != seen : q != seen)
                        continue;
                    assert_int_equal(num(cf_json_get(&es->items[k], "offset")),
                                     num(cf_json_get(wb, "offset")));
                    /* v1 indexes store uncompressed sizes; the corpus gives on-disk ones. */
                    const cf_json *ws = cf_json_get(wb, "on_disk_size_with_header");
                    if (ws)
                        assert_int_equal(num(cf_json_get(&es->items[k], "on_disk_size")), num(ws));
                }
            }
        }
        assert_int_equal(seen, num(cf_json_get(cf_json_get(&want.root, "index"), "data_blocks")));
        const cf_json *hdrs = cf_json_get(&got.root, "blocks");
        if (hdrs->kind == CF_JSON_ARRAY) {
            /* Headers cover the file up to the trailer; counts by magic agree. */
            const cf_json *bc = cf_json_get(&want.root, "block_counts");
            for (size_t m = 0; bc && m < bc->n; m++) {
                size_t cnt = 0;
                for (size_t k = 0; k < hdrs->n; k++)
                    cnt +=
                        strcmp(cf_json_get(&hdrs->items[k], "magic")->str, bc->members[m].key) == 0;
                assert_int_equal(cnt, num(&bc->members[m].value));
            }
            if (seen) {
                const cf_json *h0 = &hdrs->items[0];
                assert_int_equal(num(cf_json_get(h0, "offset")), first_off);
                const cf_json *w0 = &wdb->items[0];
                if (num(cf_json_get(h0, "uncompressed_size_without_header")) !=
                    num(cf_json_get(w0, "uncompressed_size")))
                    fail_msg("%s: first block header says %lld bytes uncompressed", hc.name,
                             (long long)num(cf_json_get(h0, "uncompressed_size_without_header")));
            }
        } else {
            assert_int_equal(num(cf_json_get(cf_json_get(&want.root, "hfile_version"), "major")),
                             1);
        }
        cf_json_doc_dispose(&got);
        done(&r);

        /* stats: cells, rows, cell types. */
        CLI(&r, "hfile", "stats", "--json", hc.path);
        if (r.rc != 0) {
            /* Cells this build cannot read yet (issue 16): a clear failure, counted. */
            assert_true(r.rc == 1 || r.rc == 3);
            assert_true(r.err_len > 0);
            printf("known gap: %s: %s", hc.name, r.err);
            gaps++;
            done(&r);
            cf_json_doc_dispose(&want);
            continue;
        }
        parse(&got, r.out, r.out_len);
        int64_t want_cells = num(cf_json_get(&want.root, "num_cells"));
        const cf_json *gc = cf_json_get(&got.root, "cells");
        const cf_json *fmt = cf_json_get(&want.root, "data_block_encoding");
        /* A file whose encoding is not decoded yet must not pass as complete. */
        if (num(gc) != want_cells && strcmp(fmt->str, "NONE") != 0) {
            printf("known gap: %s: stats saw %lld of %lld cells (%s)\n", hc.name,
                   (long long)num(gc), (long long)want_cells, fmt->str);
            gaps++;
        } else {
            assert_int_equal(num(gc), want_cells);
            const cf_json *dr = cf_json_get(&want.root, "distinct_rows");
            if (dr)
                assert_int_equal(num(cf_json_get(&got.root, "rows")), num(dr));
            const cf_json *wt = cf_json_get(&want.root, "cell_types");
            const cf_json *gt = cf_json_get(&got.root, "cell_types");
            for (size_t m = 0; wt && m < wt->n; m++)
                assert_int_equal(num(cf_json_get(gt, wt->members[m].key)),
                                 num(&wt->members[m].value));
            assert_int_equal(num(cf_json_get(cf_json_get(&got.root, "value_length"), "count")),
                             want_cells);
        }
        cf_json_doc_dispose(&got);
        done(&r);

        /* check: every real file is in order. */
        CLI(&r, "hfile", "check", hc.path);
        cli_rc(&r, 0);
        cf_json_doc_dispose(&want);
    }
    printf("%d real HFiles, %d known gaps\n", files, gaps);
    assert_true(files >= 19);
    assert_int_equal(gaps, 0); /* issue 16: every real file reads */
}

/* ---- text forms ------------------------------------------------------------------------ */

static void test_hfile_cli__text_forms(void **state)
{
    (void)state;
    const char *f = shared("riverbed_simple.hfile");
    run r;
    CLI(&r, "hfile", "dump", "--row", "row-05", (char *)f);
    cli_out_is(&r, 0,
               "K: row-05/cf:q/1700000000000/Put/vlen=6/seqid=0 V: val-05\n"
               "Scanned kv count -> 1\n");
    CLI(&r, "hfile", "dump", "--keys", "--row-hex", "726f772d3039", (char *)f);
    cli_out_is(&r, 0,
               "K: row-09/cf:q/1700000000000/Put/vlen=6/seqid=0\n"
               "Scanned kv count -> 1\n");
    CLI(&r, "hfile", "dump", "--row", "row-055", (char *)f);
    cli_err(&r, 1, "no cell has row 'row-055'");
    CLI(&r, "hfile", "meta", (char *)f);
    EXPECT_RC(r, 0);
    cli_has(r.out, "    hfile.LASTKEY = row-09/cf:q/1700000000000/Put\n",
            "    hfile.AVG_KEY_LEN = 21\n", "    HISTORICAL = false\n",
            "    FILE_INFO at 558, 426 bytes on disk, 389 uncompressed\n",
            "hashType=MURMUR, keys=10, maxKeys=13\n", NULL);
    done(&r);
    CLI(&r, "hfile", "blocks", "--headers", (char *)f);
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "  offset=0, blockType=DATA, onDiskSizeWithoutHeader=364, "
                                  "uncompressedSizeWithoutHeader=360, prevBlockOffset=-1, "
                                  "checksumType=CRC32C, bytesPerChecksum=16384, "
                                  "onDiskDataSizeWithHeader=393\n"));
    done(&r);
    CLI(&r, "hfile", "stats", (char *)f);
    cli_out_has(&r, 0, "   Val length:\n               min = 6\n",
                "Cells: 10, rows: 10\nCell types: Put=10\n", NULL);
    /* TIMERANGE and booleans, the way HBase's printer shows them. */
    CLI(&r, "hfile", "meta", shared("phoenix_indextool_result_mvcc.hfile"));
    EXPECT_RC(r, 0);
    cli_has(r.out, "    TIMERANGE = 1732713057463....1732713057463\n",
            "    MAJOR_COMPACTION_KEY = false\n",
            "    COMPACTION_EVENT_KEY = 0 compacted store file(s)\n", NULL);
    done(&r);
    /* cfile info names version, compression and encoding. */
    CLI(&r, "info", shared("phoenix_syscat_fastdiff_22f861a3.hfile"));
    EXPECT_RC(r, 0);
    cli_has(r.out, "an HBase HFile (v3.0), not a CFile\n", "compression:          NONE\n",
            "data block encoding:  FAST_DIFF\n", NULL);
    done(&r);
    CLI(&r, "info", "--json", shared("hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile"));
    EXPECT_RC(r, 0);
    assert_string_equal(r.out,
                        "{\"format\":\"hfile\",\"hfile_version\":{\"major\":3,\"minor\":3},"
                        "\"compression\":\"GZ\",\"data_block_encoding\":\"NONE\","
                        "\"num_cells\":20000,\"data_blocks\":72,\"index_levels\":1,"
                        "\"comparator\":\"org.apache.hadoop.hbase.KeyValue$KVComparator\"}\n");
    done(&r);
}

/* Several files per call: one JSON line each with "file"; the worst exit code. */
static void test_hfile_cli__several_files(void **state)
{
    (void)state;
    char *a = shared("riverbed_simple.hfile"), *b = shared("riverbed_seek.hfile");
    run r;
    CLI(&r, "hfile", "stats", "--json", a, b);
    EXPECT_RC(r, 0);
    char *nl = strchr(r.out, '\n');
    assert_non_null(nl);
    cf_json_doc d1, d2;
    parse(&d1, r.out, (size_t)(nl - r.out));
    parse(&d2, nl + 1, strlen(nl + 1));
    assert_string_equal(cf_json_get(&d1.root, "file")->str, a);
    assert_int_equal(num(cf_json_get(&d1.root, "cells")), 10);
    assert_string_equal(cf_json_get(&d2.root, "file")->str, b);
    assert_int_equal(num(cf_json_get(&d2.root, "cells")), 100);
    cf_json_doc_dispose(&d1);
    cf_json_doc_dispose(&d2);
    done(&r);
    CLI(&r, "hfile", "dump", "--keys", a, cli_dir_path("missing.hfile"), b);
    EXPECT_RC(r, 1);
    assert_non_null(strstr(r.out, "Scanning -> "));
    assert_non_null(strstr(r.out, "Scanned kv count -> 100\n")); /* went on after the failure */
    assert_non_null(strstr(r.err, "missing.hfile"));
    done(&r);
}

/* ---- check ----------------------------------------------------------------------------- */

static uint32_t crc32c(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
    }
    return ~c;
}

static void write_cells(const char *path, const char *jsonl)
{
    write_str(cli_dir_path("cells.jsonl"), jsonl);
    run r;
    CLI(&r, "hfile", "write", (char *)path, cli_dir_path("cells.jsonl"));
    cli_rc(&r, 0);
}

/* Swap two rows inside a data block (fixing its checksum): check names the cell. */
static void test_hfile_cli__check_names_first_out_of_order(void **state)
{
    (void)state;
    const char *f = cli_dir_path("order.hfile");
    write_cells(
        f,
        "{\"row\":\"r1\",\"family\":\"f\",\"qualifier\":\"q\",\"timestamp\":1,\"value\":\"a\"}\n"
        "{\"row\":\"r2\",\"family\":\"f\",\"qualifier\":\"q\",\"timestamp\":1,\"value\":\"b\"}\n"
        "{\"row\":\"r3\",\"family\":\"f\",\"qualifier\":\"q\",\"timestamp\":1,\"value\":\"c\"}\n");
    FILE *fp = fopen(f, "r+b");
    assert_non_null(fp);
    uint8_t buf[8192];
    size_t n = fread(buf, 1, sizeof(buf), fp);
    assert_true(n > 100);
    /* The data block is at 0; its rows "r2" and "r3" become "r3" and "r2". */
    uint8_t *p2 = memmem(buf, 200, "r2", 2), *p3 = memmem(buf, 200, "r3", 2);
    assert_non_null(p2);
    assert_non_null(p3);
    p2[1] = '3';
    p3[1] = '2';
    uint32_t dsz =
        ((uint32_t)buf[29] << 24) | ((uint32_t)buf[30] << 16) | ((uint32_t)buf[31] << 8) | buf[32];
    uint32_t ck = crc32c(buf, dsz);
    buf[dsz] = (uint8_t)(ck >> 24);
    buf[dsz + 1] = (uint8_t)(ck >> 16);
    buf[dsz + 2] = (uint8_t)(ck >> 8);
    buf[dsz + 3] = (uint8_t)ck;
    rewind(fp);
    assert_int_equal(fwrite(buf, 1, n, fp), n);
    fclose(fp);
    run r;
    CLI(&r, "hfile", "check", (char *)f);
    EXPECT_RC(r, 1);
    if (!strstr(r.err, "cell 2 (block 0, cell 2 in it) r2/f:q/1/Put sorts before its "
                       "predecessor r3/f:q/1/Put"))
        fail_msg("%s", r.err);
    done(&r);
    CLI(&r, "hfile", "check", "--json", (char *)f);
    EXPECT_RC(r, 1);
    assert_non_null(strstr(r.out, "\"ok\":false,\"cells_checked\":3,\"first_out_of_order\":"
                                  "{\"cell_index\":2,\"block\":0,\"cell_in_block\":2,"));
    done(&r);
}

/* ---- bloom ----------------------------------------------------------------------------- */

static void test_hfile_cli__bloom(void **state)
{
    (void)state;
    const char *f = shared("riverbed_seek.hfile");
    run r;
    CLI(&r, "hfile", "bloom", (char *)f, "row-042");
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "General Bloom filter: ROW, row-042 may be present (chunk 0)\n"
                                  "Delete family Bloom filter: not present\n"));
    done(&r);
    /* Some absent row is ruled out (10 bits per key: most of 50 are). */
    int ruled_out = 0;
    for (int i = 0; i < 50; i++) {
        char row[32];
        snprintf(row, sizeof(row), "nope-%d", i);
        CLI(&r, "hfile", "bloom", "--json", (char *)f, row);
        assert_true(r.rc == 0 || r.rc == 1);
        if (r.rc == 1) {
            assert_non_null(strstr(r.out, "\"may_contain\":false"));
            ruled_out++;
        }
        done(&r);
    }
    assert_true(ruled_out > 25);
    /* No Bloom filter: exit 0, nothing present. */
    CLI(&r, "hfile", "bloom", "--json", shared("hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile"), "x");
    cli_out_is(&r, 0, "{\"row\":\"x\",\"general\":null,\"delete_family\":null}\n");
    CLI(&r, "hfile", "bloom", "--json", (char *)f, "row-042/cf:q");
    cli_out(&r, 0, "{\"row\":\"row-042\",\"family\":\"cf\",\"qualifier\":\"q\",");
}

/* ---- write ----------------------------------------------------------------------------- */

/* Random cells in HBase order, each line in exactly the form dump --json prints. */
static char *random_cells(unsigned seed, int n, bool tags, bool mvcc, size_t *count)
{
    srand(seed);
    size_t cap = (size_t)n * 6 * 400 + 1, len = 0; /* <= 6 cells per row */
    char *s = malloc(cap);
    static const char *const types[] = {"DeleteFamily", "DeleteColumn", "Delete", "Put"};
    int emitted = 0;
    for (int i = 0; i < n; i++) {
        char row[64];
        int rl =
            snprintf(row, sizeof(row), "row-%06d%s", i, i % 7 == 0 ? "-long-long-long-row" : "");
        (void)rl;
        int ncols = 1 + rand() % 3;
        for (int q = 0; q < ncols; q++) {
            int nver = 1 + rand() % 2;
            long long ts = 1000 + rand() % 50;
            for (int v = 0; v < nver; v++, ts -= 1 + rand() % 3) {
                const char *type = types[(i + q + v) % 4];
                char qual[16];
                if (q == 0)
                    qual[0] = '\0'; /* empty qualifiers too */
                else
                    snprintf(qual, sizeof(qual), "q%d", q);
                if (q == 0 && strcmp(type, "DeleteFamily") != 0 && rand() % 2)
                    type = "Put";
                len += (size_t)snprintf(s + len, cap - len,
                                        "{\"row\":\"%s\",\"family\":\"%s\",\"qualifier\":\"%s\","
                                        "\"timestamp\":%lld,\"type\":\"%s\",\"value\":",
                                        row, "cf", qual, ts, type);
                if (rand() % 5 == 0)
                    len +=
                        (size_t)snprintf(s + len, cap - len, "{\"hex\":\"00%02x\"}", rand() % 256);
                else
                    len += (size_t)snprintf(s + len, cap - len, "\"v%d\"", rand());
                if (mvcc)
                    len += (size_t)snprintf(s + len, cap - len, ",\"mvcc\":%d", rand() % 4);
                if (tags)
                    len += (size_t)snprintf(s + len, cap - len, "%s",
                                            rand() % 2 ? ",\"tags\":\"\""
                                                       : ",\"tags\":\"0003016162\",\"tag_list\":"
                                                         "[{\"type\":1,\"value\":\"ab\"}]");
                len += (size_t)snprintf(s + len, cap - len, "}\n");
                emitted++;
            }
        }
    }
    assert_true(len < cap);
    *count = (size_t)emitted;
    return s;
}

static void round_trip(const char *opts[], bool tags, bool mvcc, unsigned seed)
{
    size_t ncells;
    char *in = random_cells(seed, 300, tags, mvcc, &ncells);
    write_str(cli_dir_path("in.jsonl"), in);
    char *argv[16] = {"hfile", "write"};
    int k = 2;
    for (int i = 0; opts[i]; i++)
        argv[k++] = (char *)opts[i];
    argv[k++] = cli_dir_path("rt.hfile");
    argv[k++] = cli_dir_path("in.jsonl");
    argv[k] = NULL;
    run r;
    run_argv(&r, NULL, argv);
    cli_rc(&r, 0);
    CLI(&r, "hfile", "dump", "--json", cli_dir_path("rt.hfile"));
    EXPECT_RC(r, 0);
    cf_json_doc d;
    parse(&d, r.out, r.out_len);
    const cf_json *cells = cf_json_get(&d.root, "cells");
    assert_int_equal(cells->n, ncells);
    /* Re-serialize each cell and compare it with its input line. */
    char *line = in;
    for (size_t i = 0; i < cells->n; i++) {
        char *end = strchr(line, '\n');
        char *buf = NULL;
        size_t blen = 0;
        FILE *m = open_memstream(&buf, &blen);
        cf_jw w;
        cf_jw_init(&w, m);
        cf_jw_value(&w, &cells->items[i]);
        fclose(m);
        if (blen != (size_t)(end - line) || memcmp(buf, line, blen) != 0)
            fail_msg("cell %zu: wrote %.*s, read %s", i, (int)(end - line), line, buf);
        free(buf);
        line = end + 1;
    }
    cf_json_doc_dispose(&d);
    done(&r);
    CLI(&r, "hfile", "check", cli_dir_path("rt.hfile"));
    cli_rc(&r, 0);
    CLI(&r, "hfile", "verify", cli_dir_path("rt.hfile"));
    cli_rc(&r, 0);
    free(in);
}

static void test_hfile_cli__write_round_trips(void **state)
{
    (void)state;
    const char *plain[] = {NULL};
    round_trip(plain, false, true, 1);
    const char *small_gz[] = {"--block-size", "200", "--compression", "gz", NULL};
    round_trip(small_gz, false, true, 2);
    const char *no_mvcc[] = {"--no-mvcc", "--no-bloom", "--block-size", "64", NULL};
    round_trip(no_mvcc, false, false, 3);
    const char *tags[] = {"--tags", "--compression", "NONE", NULL};
    round_trip(tags, true, true, 4);
    /* Every data block encoding, each under another codec, tags and mvcc inside. */
    const char *fast_diff[] = {"--encoding", "FAST_DIFF",    "--compression", "snappy",
                               "--tags",     "--block-size", "512",           NULL};
    round_trip(fast_diff, true, true, 5);
    const char *prefix[] = {"--encoding", "prefix", "--compression", "zstd", NULL};
    round_trip(prefix, false, true, 6);
    const char *diff[] = {"--encoding", "DIFF", "--compression", "lz4", "--tags", NULL};
    round_trip(diff, true, true, 7);
    const char *row_index[] = {"--encoding", "ROW_INDEX_V1", "--compression",
                               "bzip2",      "--no-mvcc",    NULL};
    round_trip(row_index, false, false, 8);
    const char *lzo[] = {"--encoding", "FAST_DIFF", "--compression", "lzo", "--block-size",
                         "300",        NULL};
    round_trip(lzo, false, true, 9);
    /* meta and info name what was written. */
    run m;
    CLI(&m, "info", "--json", cli_dir_path("rt.hfile"));
    cli_out(&m, 0, "\"compression\":\"LZO\",\"data_block_encoding\":\"FAST_DIFF\"");
    /* Checksum type NULL (as Hudi 1.1+ writes its blocks) and CRC32. */
    const char *crc32[] = {"--checksum", "crc32", "--block-size", "200", NULL};
    round_trip(crc32, false, true, 10);
    run b;
    CLI(&b, "hfile", "blocks", "--headers", "--json", cli_dir_path("rt.hfile"));
    EXPECT_RC(b, 0);
    assert_non_null(strstr(b.out, "\"checksum_type\":\"CRC32\""));
    assert_null(strstr(b.out, "\"checksum_type\":\"CRC32C\""));
    done(&b);
    const char *null_ck[] = {"--checksum",   "NULL", "--compression", "gz",
                             "--block-size", "200",  "--no-bloom",    NULL};
    round_trip(null_ck, false, true, 11);
    CLI(&b, "hfile", "blocks", "--headers", "--json", cli_dir_path("rt.hfile"));
    EXPECT_RC(b, 0);
    assert_non_null(strstr(b.out, "\"checksum_type\":\"NULL\""));
    assert_null(strstr(b.out, "\"checksum_type\":\"CRC"));
    done(&b);
    /* verify does not claim to have verified what type NULL leaves unchecked. */
    CLI(&b, "hfile", "verify", cli_dir_path("rt.hfile"));
    cli_out(&b, 0, ", no checksums to verify (type NULL)\n");
    /* Real tags (type 1, "ab") print as T[0] and come back as hex. */
    write_str(cli_dir_path("t.jsonl"),
              "{\"row\":\"r\",\"family\":\"f\",\"qualifier\":\"q\",\"timestamp\":1,"
              "\"type\":\"Put\",\"value\":\"v\",\"tags\":\"0003016162\"}\n");
    run r;
    CLI(&r, "hfile", "write", "--tags", cli_dir_path("t.hfile"), cli_dir_path("t.jsonl"));
    cli_rc(&r, 0);
    CLI(&r, "hfile", "dump", cli_dir_path("t.hfile"));
    cli_out_is(&r, 0,
               "K: r/f:q/1/Put/vlen=1/seqid=0 V: v T[0]: type=1 value=ab\n"
               "Scanned kv count -> 1\n");
    /* The written file's bloom knows its rows. */
    CLI(&r, "hfile", "bloom", cli_dir_path("t.hfile"), "r");
    cli_rc(&r, 0);
}

/* Bad input leaves no OUT (and no temporary file); an existing OUT is untouched. */
static void test_hfile_cli__write_errors_leave_nothing(void **state)
{
    (void)state;
    static const struct {
        const char *input, *msg;
    } bad[] = {
        {"{\"row\":\"b\",\"timestamp\":1}\n{\"row\":\"a\",\"timestamp\":1}\n",
         "line 2: hfile writer: cell 1 sorts before the previous cell"},
        {"{\"row\":\"a\",\"timestamp\":1}\nnot json\n", "line 2: "},
        {"{\"row\":\"a\"}\n", "line 1: no \"timestamp\""},
        {"{\"row\":\"a\",\"timestamp\":1,\"type\":\"Bogus\"}\n", "line 1: \"type\" is not"},
        {"{\"row\":\"a\",\"timestamp\":1.5}\n", "line 1: \"timestamp\" is not a 64-bit integer"},
        {"{\"row\":{\"hex\":\"zz\"},\"timestamp\":1}\n", "line 1: \"row\" is not a byte string"},
        {"{\"row\":\"a\",\"timestamp\":1,\"colour\":1}\n", "line 1: unknown member"},
        {"{\"row\":\"a\",\"timestamp\":1,\"tags\":\"0003016162\"}\n", "given without --tags"},
        {"[1]\n", "line 1: not a JSON object"},
    };
    write_str(cli_dir_path("out.hfile"), "precious");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        write_str(cli_dir_path("bad.jsonl"), bad[i].input);
        run r;
        CLI(&r, "hfile", "write", cli_dir_path("new.hfile"), cli_dir_path("bad.jsonl"));
        EXPECT_RC(r, 1);
        if (!strstr(r.err, bad[i].msg))
            fail_msg("case %zu: %s", i, r.err);
        done(&r);
        CLI(&r, "hfile", "write", cli_dir_path("out.hfile"), cli_dir_path("bad.jsonl"));
        cli_rc(&r, 1);
        cli_dir_holds(cli_dir, "bad.jsonl out.hfile"); /* no new.hfile, no temp */
    }
    FILE *fp = fopen(cli_dir_path("out.hfile"), "rb");
    char got[16] = {0};
    assert_int_equal(fread(got, 1, sizeof(got), fp), 8);
    fclose(fp);
    assert_string_equal(got, "precious");
}

/* SIGKILL in the middle of a write: OUT keeps its old bytes. */
static void test_hfile_cli__write_killed_midway(void **state)
{
    (void)state;
    write_str(cli_dir_path("out.hfile"), "old bytes");
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(pfd[0], 0);
        close(pfd[0]);
        close(pfd[1]);
        int dn = open("/dev/null", O_WRONLY);
        dup2(dn, 2);
        execl(CF_CLI_BIN, CF_CLI_BIN, "hfile", "write", "--block-size", "64",
              cli_dir_path("out.hfile"), (char *)NULL);
        _exit(127);
    }
    close(pfd[0]);
    char line[160];
    for (int i = 0; i < 20000; i++) {
        int n = snprintf(line, sizeof(line),
                         "{\"row\":\"row-%08d\",\"family\":\"f\",\"qualifier\":\"q\","
                         "\"timestamp\":1,\"value\":\"vvvvvvvvvvvvvvvvvvvvvvvvvvvv\"}\n",
                         i);
        assert_int_equal(write(pfd[1], line, (size_t)n), n);
    }
    /* The child has read some of it; it cannot have finished (stdin is still open). */
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    close(pfd[1]);
    assert_true(WIFSIGNALED(status));
    FILE *fp = fopen(cli_dir_path("out.hfile"), "rb");
    char got[32] = {0};
    assert_int_equal(fread(got, 1, sizeof(got), fp), 9);
    fclose(fp);
    assert_string_equal(got, "old bytes");
    /* The killed writer's temporary file may remain beside it; nothing else changed. */
}

/* ---- usage ------------------------------------------------------------------------------- */

static void test_hfile_cli__usage_and_errors(void **state)
{
    (void)state;
    char *f = shared("riverbed_simple.hfile");
    static const char *const usage[][8] = {
        {"hfile", NULL},
        {"hfile", "bogus", NULL},
        {"hfile", "stats", NULL},
        {"hfile", "stats", "--row", "x", NULL},
        {"hfile", "meta", "--keys", NULL},
        {"hfile", "dump", "--block-size", "9", NULL},
        {"hfile", "blocks", "--index", "--headers", NULL},
        {"hfile", "dump", "--row", "a", "--row-hex", "61", NULL},
        {"hfile", "dump", "--row-hex", "6", NULL},
        {"hfile", "write", NULL},
        {"hfile", "write", "--block-size", "0", "x", NULL},
        {"hfile", "write", "--compression", "brotli", "x", NULL},
        {"hfile", "write", "--encoding", "PREFIX_TREE2", "x", NULL},
        {"hfile", "bloom", NULL},
        {"hfile", "seek", NULL},
        {"hfile", "write", "--checksum", "md5", "x", NULL},
        {"hfile", "dump", "--checksum", "NULL", "x", NULL},
    };
    for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
        char *argv[10] = {0};
        int k = 0;
        for (; usage[i][k]; k++)
            argv[k] = (char *)usage[i][k];
        if (i >= 3 && i <= 8)
            argv[k++] = f;
        run r;
        run_argv(&r, NULL, argv);
        if (r.rc != 2)
            fail_msg("case %zu: exit %d, want 2: %s", i, r.rc, r.err);
        done(&r);
    }
    run r;
    CLI(&r, "hfile", "bloom", f);
    cli_rc(&r, 2);
    /* Unsupported: an encoding HBase 2 dropped. */
    write_str(cli_dir_path("one.jsonl"), "{\"row\":\"a\",\"timestamp\":1}\n");
    CLI(&r, "hfile", "write", "--encoding", "PREFIX_TREE", cli_dir_path("x.hfile"),
        cli_dir_path("one.jsonl"));
    cli_rc(&r, 3);
    /* Two families in a FAST_DIFF file: the writer refuses, naming the line. */
    write_str(cli_dir_path("two.jsonl"), "{\"row\":\"a\",\"family\":\"f1\",\"timestamp\":1}\n"
                                         "{\"row\":\"a\",\"family\":\"f2\",\"timestamp\":1}\n");
    CLI(&r, "hfile", "write", "--encoding", "FAST_DIFF", cli_dir_path("x.hfile"),
        cli_dir_path("two.jsonl"));
    cli_err(&r, 1, "line 2: ");
    assert_int_equal(access(cli_dir_path("x.hfile"), F_OK), -1);
    /* Damage: a truncated copy is exit 1 with a message, for every subcommand. */
    FILE *src = fopen(f, "rb");
    char buf[8192];
    size_t n = fread(buf, 1, sizeof(buf), src);
    fclose(src);
    write_text(cli_dir_path("trunc.hfile"), buf, n - 100);
    static const char *const subs[] = {"meta", "blocks", "stats", "dump", "check", "verify"};
    for (size_t i = 0; i < 6; i++) {
        CLI(&r, "hfile", (char *)subs[i], cli_dir_path("trunc.hfile"));
        EXPECT_RC(r, 1);
        assert_true(r.err_len > 0);
        done(&r);
    }
    /* A flipped byte in the data block: checksums catch it everywhere cells are read. */
    buf[40] ^= 0x20;
    write_text(cli_dir_path("flip.hfile"), buf, n);
    static const char *const readers[] = {"stats", "dump", "check", "verify"};
    for (size_t i = 0; i < 4; i++) {
        CLI(&r, "hfile", (char *)readers[i], cli_dir_path("flip.hfile"));
        cli_err(&r, 1, "checksum");
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_hfile_cli__real_files_agree),
        CLI_DIR_TEST(test_hfile_cli__text_forms),
        CLI_DIR_TEST(test_hfile_cli__several_files),
        CLI_DIR_TEST(test_hfile_cli__check_names_first_out_of_order),
        CLI_DIR_TEST(test_hfile_cli__bloom),
        CLI_DIR_TEST(test_hfile_cli__write_round_trips),
        CLI_DIR_TEST(test_hfile_cli__write_errors_leave_nothing),
        CLI_DIR_TEST(test_hfile_cli__write_killed_midway),
        CLI_DIR_TEST(test_hfile_cli__usage_and_errors),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
