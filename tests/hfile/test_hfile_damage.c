/* Damaged real HFiles: every file of shared/hfile/ truncated at many points
 * and with bits flipped at seeded random places, read in memory (open, scan
 * every cell, seeks, Bloom probes, meta blocks, block walk). Each must end in
 * a clear error or in exactly the original cells, never a crash; in files
 * with block checksums a flip before the trailer must never change a cell
 * silently. Also HBase files re-written by our writer with every encoding and
 * codec get the same treatment. */
#include "test_common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/hfile.h>
#include <cfile/io.h>

#include "support_hfile.h"

typedef struct outcome {
    cf_status st; /* of everything */
    bool scanned; /* the full scan ended without an error: hash and cells hold */
    uint64_t hash, cells;
    bool checksums;
    uint32_t trailer_size;
} outcome;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

static uint64_t cell_hash(uint64_t h, const cf_hfile_cell *c)
{
    h = fnv(h, c->key.data, c->key.len);
    h = fnv(h, c->value.data, c->value.len);
    h = fnv(h, c->tags.data, c->tags.len);
    h = fnv(h, &c->mvcc, sizeof(c->mvcc));
    return fnv(h, &c->timestamp, sizeof(c->timestamp));
}

static bool walk_cb(void *ctx, const cf_hfile_block_header *hdr)
{
    (void)hdr;
    return ++*(int *)ctx < 100000;
}

/* Everything a reader does with a file; the first error ends it. */
static outcome read_all(const uint8_t *p, size_t n)
{
    outcome o = {CF_OK, false, 14695981039346656037ULL, 0, false, 0};
    cf_error err = {0};
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_mem(&io, p, n, &err), &err);
    cf_hfile *h = NULL;
    cf_hfile_iter *it = NULL;
    o.st = cf_hfile_open(&h, io, NULL, &err);
    if (o.st != CF_OK)
        goto out;
    o.checksums = cf_hfile_get_info(h)->checksums;
    o.trailer_size = cf_hfile_get_trailer(h)->trailer_size;
    if ((o.st = cf_hfile_iter_create(&it, h, &err)) != CF_OK)
        goto out;
    cf_hfile_cell c, first;
    uint8_t row[256];
    size_t row_len = 0;
    for (;;) {
        bool has;
        if ((o.st = cf_hfile_iter_next(it, &c, &has, &err)) != CF_OK)
            goto out;
        if (!has)
            break;
        assert_true(o.cells < 10000000);
        o.hash = cell_hash(o.hash, &c);
        if (o.cells++ == 0) {
            first = c;
            cf_slice r = cf_hfile_get_info(h)->raw_keys ? first.key : first.row;
            row_len = r.len < sizeof(row) ? r.len : sizeof(row);
            memcpy(row, r.data, row_len);
        }
    }
    o.scanned = true;
    /* A seek to the first row finds it again. */
    if ((o.st = cf_hfile_iter_seek_row(it, row, row_len, &err)) != CF_OK)
        goto out;
    bool has;
    if ((o.st = cf_hfile_iter_next(it, &c, &has, &err)) != CF_OK)
        goto out;
    if (o.cells > 0 && row_len < sizeof(row))
        assert_true(has);
    if ((o.st = cf_hfile_iter_seek_row(it, "\xff\xff\xff", 3, &err)) != CF_OK)
        goto out;
    if ((o.st = cf_hfile_iter_next(it, &c, &has, &err)) != CF_OK)
        goto out;
    bool maybe;
    if ((o.st = cf_hfile_bloom_may_contain(h, CF_HFILE_BLOOM_GENERAL, row, row_len, &maybe,
                                           &err)) != CF_OK)
        goto out;
    for (size_t i = 0; i < cf_hfile_get_info(h)->meta_count; i++) {
        uint8_t *m;
        size_t len;
        if ((o.st = cf_hfile_meta_read(h, i, &m, &len, &err)) != CF_OK)
            goto out;
        cf_hfile_bytes_free(m);
    }
    cf_slice mid;
    if ((o.st = cf_hfile_midkey(h, &mid, &err)) != CF_OK)
        goto out;
    if (cf_hfile_get_trailer(h)->major >= 2) {
        int blocks = 0;
        o.st = cf_hfile_walk_blocks(h, true, walk_cb, &blocks, &err);
    }
out:
    if (o.st != CF_OK) {
        /* A clear error: a message, and one of the damage codes. */
        assert_true(err.msg[0] != '\0');
        assert_true(o.st == CF_ECORRUPT || o.st == CF_ENOTSUP);
    }
    cf_hfile_iter_free(it);
    cf_hfile_free(h);
    cf_io_free(io);
    return o;
}

static void damage(const char *name, const uint8_t *p, size_t n, cf_rng *r, int flips)
{
    outcome base = read_all(p, n);
    if (base.st != CF_OK)
        fail_msg("%s: does not read undamaged", name);
    uint8_t *q = malloc(n);
    /* Truncations: dense near the end (trailer), spread elsewhere. */
    for (int i = 0; i < 48; i++) {
        size_t cut = i < 24 ? n - 1 - cf_rng_below(r, n < 4200 ? n : 4200) : cf_rng_below(r, n);
        memcpy(q, p, cut);
        outcome o = read_all(q, cut);
        if (!o.scanned || (o.hash == base.hash && o.cells == base.cells))
            continue;
        if (o.st == CF_OK)
            fail_msg("%s: cut at %zu of %zu reads %llu different cells without an error", name, cut,
                     n, (unsigned long long)o.cells);
    }
    for (int i = 0; i < flips; i++) {
        memcpy(q, p, n);
        size_t at = cf_rng_below(r, n);
        q[at] ^= (uint8_t)(1u << cf_rng_below(r, 8));
        outcome o = read_all(q, n);
        if (!o.scanned || (o.hash == base.hash && o.cells == base.cells))
            continue;
        /* Checksums cover every block: only the trailer can change the
         * answer unnoticed (what HBase reads from it goes unverified too). */
        if (base.checksums && at < n - base.trailer_size)
            fail_msg("%s: bit flip at %zu changed the cells without an error", name, at);
    }
    free(q);
}

static void test_hfile__damaged_real_files(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/hfile", cf_test_shared_dir());
    DIR *d = opendir(dir);
    if (!d) {
        print_message("no %s: skipped\n", dir);
        skip();
    }
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1616));
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 7 || strcmp(e->d_name + l - 6, ".hfile") != 0)
            continue;
        char path[2048];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        size_t n;
        uint8_t *p = cf_test_read_file(path, &n);
        assert_non_null(p);
        /* Fewer flips for the big files keeps this to seconds. */
        damage(e->d_name, p, n, &r, n > 100000 ? 25 : n > 20000 ? 60 : 200);
        free(p);
        files++;
    }
    closedir(d);
    assert_true(files >= 19);
}

static void test_hfile__damaged_written_files(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1617));
    const int encs[] = {CF_HFILE_DBE_NONE, CF_HFILE_DBE_PREFIX, CF_HFILE_DBE_DIFF,
                        CF_HFILE_DBE_FAST_DIFF, CF_HFILE_DBE_ROW_INDEX_V1};
    const uint32_t codecs[] = {CF_HFILE_NONE, CF_HFILE_GZ,   CF_HFILE_SNAPPY, CF_HFILE_LZ4,
                               CF_HFILE_LZO,  CF_HFILE_ZSTD, CF_HFILE_BZIP2};
    for (size_t i = 0; i < 7; i++) {
        cf_error err = {0};
        cf_io *io;
        CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
        cf_hfile_writer_options o = hf_options(codecs[i], 700);
        o.encoding = encs[i % 5];
        o.include_tags = i % 2;
        cf_hfile_writer *w;
        CF_ASSERT_OK(cf_hfile_writer_create(&w, io, &o, &err), &err);
        for (int k = 0; k < 300; k++) {
            char row[32], val[32];
            snprintf(row, sizeof(row), "row-%05d", k / 3);
            snprintf(val, sizeof(val), "v%d", k % 7);
            cf_hfile_cell c;
            memset(&c, 0, sizeof(c));
            c.row = (cf_slice){(const uint8_t *)row, strlen(row)};
            c.family = (cf_slice){(const uint8_t *)"f", 1};
            c.qualifier = (cf_slice){(const uint8_t *)"q", (size_t)(k % 3)};
            c.timestamp = 1000 - k % 3;
            c.type = CF_HFILE_PUT;
            c.value = (cf_slice){(const uint8_t *)val, strlen(val)};
            c.mvcc = (uint64_t)k;
            if (o.include_tags && k % 2)
                c.tags = (cf_slice){(const uint8_t *)"\x00\x03\x01xy", 5};
            CF_ASSERT_OK(cf_hfile_writer_append(w, &c, &err), &err);
        }
        CF_ASSERT_OK(cf_hfile_writer_finish(w, &err), &err);
        cf_hfile_writer_free(w);
        cf_slice s = cf_io_mem_contents(io);
        char name[64];
        snprintf(name, sizeof(name), "written %s/%s", cf_hfile_encoding_name(o.encoding),
                 cf_hfile_codec_name(o.compression));
        damage(name, s.data, s.len, &r, 150);
        cf_io_free(io);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hfile__damaged_real_files),
        cmocka_unit_test(test_hfile__damaged_written_files),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
