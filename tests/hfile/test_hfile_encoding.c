/* HFile data block encodings: every encoder against its decoder over random
 * cells (empty qualifiers and families, long rows, equal and negative
 * timestamps, every delete type, repeated values, tags plain and
 * dictionary-compressed, mvcc), every encoding with every codec; the
 * FAST_DIFF encoder against the real Phoenix and Kylin blocks byte for byte;
 * encodings we cannot decode named in the error; truncated encoded blocks. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/hfile.h>
#include <cfile/io.h>

#include "hfile/internal.h"
#include "support_hfile.h"

typedef struct mcell {
    uint8_t *row, *qual, *val, *tags;
    size_t rlen, qlen, vlen, tlen;
    int64_t ts;
    uint8_t type;
    uint64_t mvcc;
} mcell;

static const uint8_t *fam_bytes;
static size_t fam_len;

static cf_hfile_cell as_cell(const mcell *m)
{
    cf_hfile_cell c;
    memset(&c, 0, sizeof(c));
    c.row = (cf_slice){m->row, m->rlen};
    c.family = (cf_slice){fam_bytes, fam_len};
    c.qualifier = (cf_slice){m->qual, m->qlen};
    c.timestamp = m->ts;
    c.type = m->type;
    c.value = (cf_slice){m->val, m->vlen};
    c.tags = (cf_slice){m->tags, m->tlen};
    c.mvcc = m->mvcc;
    return c;
}

static int mcmp(const void *a, const void *b)
{
    cf_hfile_cell x = as_cell(a), y = as_cell(b);
    return cf_hfile_cell_compare(&x, &y);
}

static uint8_t *rand_bytes(cf_rng *r, size_t n, const uint8_t *prefix, size_t plen)
{
    uint8_t *p = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        p[i] = i < plen
                   ? prefix[i]
                   : (uint8_t)(cf_rng_below(r, 4) == 0 ? cf_rng_next(r) : 'a' + cf_rng_below(r, 3));
    return p;
}

static const int64_t stamps[] = {0,
                                 1,
                                 255,
                                 256,
                                 65536,
                                 1700000000000LL,
                                 1700000000001LL,
                                 INT64_MAX,
                                 -5,
                                 (int64_t)1 << 40,
                                 INT64_MIN + 1};
static const uint8_t types[] = {CF_HFILE_PUT, CF_HFILE_DELETE, CF_HFILE_DELETE_COLUMN,
                                CF_HFILE_DELETE_FAMILY, CF_HFILE_DELETE_FAMILY_VERSION};

/* n random cells, sorted; tags from a pool larger than the tag dictionary. */
static mcell *gen(cf_rng *r, size_t n, bool tags, bool mvcc)
{
    mcell *m = calloc(n, sizeof(*m));
    static const uint8_t longp[1200] = {0};
    const uint8_t *prefixes[] = {(const uint8_t *)"", (const uint8_t *)"row-",
                                 (const uint8_t *)"row-0000", longp};
    size_t plens[] = {0, 4, 8, 1100};
    for (size_t i = 0; i < n; i++) {
        /* Reuse the previous row often: many cells per row. */
        if (i > 0 && cf_rng_below(r, 3) != 0) {
            m[i].rlen = m[i - 1].rlen;
            m[i].row = malloc(m[i].rlen + 1);
            memcpy(m[i].row, m[i - 1].row, m[i].rlen);
        } else {
            int k = (int)cf_rng_below(r, 4);
            size_t len = plens[k] + cf_rng_below(r, k == 3 ? 200 : 12);
            if (cf_rng_below(r, 50) == 0)
                len = 0;
            m[i].rlen = len;
            m[i].row = rand_bytes(r, len, prefixes[k], plens[k]);
        }
        size_t q = cf_rng_below(r, 10);
        m[i].qlen = q < 3 ? 0 : q < 9 ? cf_rng_below(r, 8) : 100 + cf_rng_below(r, 200);
        m[i].qual = rand_bytes(r, m[i].qlen, (const uint8_t *)"qq", 2);
        m[i].ts = cf_rng_below(r, 3) == 0 && i > 0 ? m[i - 1].ts
                                                   : stamps[cf_rng_below(r, sizeof(stamps) / 8)];
        m[i].type = types[cf_rng_below(r, 5)];
        size_t v = cf_rng_below(r, 10);
        if (v < 3 && i > 0) {
            m[i].vlen = m[i - 1].vlen;
            m[i].val = malloc(m[i].vlen + 1);
            memcpy(m[i].val, m[i - 1].val, m[i].vlen);
        } else {
            m[i].vlen = v < 5 ? 0 : v < 9 ? cf_rng_below(r, 60) : cf_rng_below(r, 3000);
            m[i].val = rand_bytes(r, m[i].vlen, NULL, 0);
        }
        if (tags && cf_rng_below(r, 2)) {
            size_t nt = 1 + cf_rng_below(r, 3);
            m[i].tags = malloc(nt * 12);
            for (size_t t = 0; t < nt; t++) {
                uint32_t id = (uint32_t)cf_rng_below(r, 200);
                uint8_t *p = m[i].tags + m[i].tlen;
                size_t vl = id % 7;
                p[0] = 0;
                p[1] = (uint8_t)(1 + vl);
                p[2] = (uint8_t)(id % 5 + 1);
                for (size_t j = 0; j < vl; j++)
                    p[3 + j] = (uint8_t)(id * 31 + j);
                m[i].tlen += 3 + vl;
            }
        }
        m[i].mvcc = mvcc ? (cf_rng_below(r, 2) ? cf_rng_below(r, 100) : (uint64_t)1 << 40) : 0;
    }
    qsort(m, n, sizeof(*m), mcmp);
    return m;
}

static void free_cells(mcell *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(m[i].row);
        free(m[i].qual);
        free(m[i].val);
        free(m[i].tags);
    }
    free(m);
}

static bool sl_eq(cf_slice s, const uint8_t *p, size_t n)
{
    return s.len == n && (n == 0 || memcmp(s.data, p, n) == 0);
}

static void check_cell(const cf_hfile_cell *c, const mcell *m, bool mvcc, size_t i)
{
    if (!sl_eq(c->row, m->row, m->rlen) || !sl_eq(c->family, fam_bytes, fam_len) ||
        !sl_eq(c->qualifier, m->qual, m->qlen) || !sl_eq(c->value, m->val, m->vlen) ||
        !sl_eq(c->tags, m->tags, m->tlen) || c->timestamp != m->ts || c->type != m->type ||
        c->mvcc != (mvcc ? m->mvcc : 0))
        fail_msg("cell %zu differs", i);
}

static int row_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int r = n ? memcmp(a, b, n) : 0;
    return r ? r : al < bl ? -1 : al > bl;
}

static void round_trip(cf_rng *r, int encoding, uint32_t codec, bool tags, bool ctags, bool mvcc)
{
    size_t n = 300 + cf_rng_below(r, 400);
    static const uint8_t fams[][3] = {"f", "", "cf"};
    int fi = (int)cf_rng_below(r, 3);
    fam_bytes = fams[fi];
    fam_len = strlen((const char *)fams[fi]);
    mcell *m = gen(r, n, tags, mvcc);
    cf_error err = {0};
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_hfile_writer_options o = hf_options(codec, 512 + (uint32_t)cf_rng_below(r, 4096));
    o.encoding = encoding;
    o.include_tags = tags;
    o.compress_tags = ctags;
    o.include_mvcc = mvcc;
    cf_hfile_writer *w;
    CF_ASSERT_OK(cf_hfile_writer_create(&w, io, &o, &err), &err);
    for (size_t i = 0; i < n; i++) {
        cf_hfile_cell c = as_cell(&m[i]);
        CF_ASSERT_OK(cf_hfile_writer_append(w, &c, &err), &err);
    }
    CF_ASSERT_OK(cf_hfile_writer_finish(w, &err), &err);
    cf_hfile_writer_free(w);
    cf_slice s = cf_io_mem_contents(io);
    cf_io *rio;
    CF_ASSERT_OK(cf_io_open_mem(&rio, s.data, s.len, &err), &err);
    cf_hfile *h;
    CF_ASSERT_OK(cf_hfile_open(&h, rio, NULL, &err), &err);
    const cf_hfile_info *in = cf_hfile_get_info(h);
    assert_int_equal(in->data_block_encoding, encoding);
    assert_true(in->num_data_blocks > 1);
    cf_slice v;
    assert_int_equal(cf_hfile_file_info_get(h, "DATA_BLOCK_ENCODING", &v),
                     encoding != CF_HFILE_DBE_NONE);
    cf_hfile_iter *it;
    CF_ASSERT_OK(cf_hfile_iter_create(&it, h, &err), &err);
    size_t i = 0;
    for (;; i++) {
        cf_hfile_cell c;
        if (!hfile_next(it, &c))
            break;
        assert_true(i < n);
        check_cell(&c, &m[i], mvcc, i);
    }
    assert_int_equal(i, n);
    /* Seeks: present rows and rows between them, against the model. */
    for (int k = 0; k < 60; k++) {
        const mcell *pick = &m[cf_rng_below(r, n)];
        uint8_t key[2000];
        size_t kl = pick->rlen;
        memcpy(key, pick->row, kl);
        if (k % 2)
            key[kl++] = (uint8_t)cf_rng_below(r, 256);
        size_t want = 0;
        while (want < n && row_cmp(m[want].row, m[want].rlen, key, kl) < 0)
            want++;
        CF_ASSERT_OK(cf_hfile_iter_seek_row(it, key, kl, &err), &err);
        cf_hfile_cell c;
        bool has;
        CF_ASSERT_OK(cf_hfile_iter_next(it, &c, &has, &err), &err);
        assert_int_equal(has, want < n);
        if (has)
            check_cell(&c, &m[want], mvcc, want);
    }
    /* Every block's cell count adds up. */
    uint64_t total = 0;
    for (uint64_t b = 0; b < in->num_data_blocks; b++) {
        uint64_t cnt;
        CF_ASSERT_OK(cf_hfile_block_cell_count(h, b, &cnt, &err), &err);
        total += cnt;
    }
    assert_int_equal(total, n);
    cf_hfile_iter_free(it);
    cf_hfile_free(h);
    cf_io_free(rio);
    cf_io_free(io);
    free_cells(m, n);
}

static void test_hfile__encodings_round_trip(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(16));
    const int encs[] = {CF_HFILE_DBE_NONE, CF_HFILE_DBE_PREFIX, CF_HFILE_DBE_DIFF,
                        CF_HFILE_DBE_FAST_DIFF, CF_HFILE_DBE_ROW_INDEX_V1};
    const uint32_t codecs[] = {CF_HFILE_NONE, CF_HFILE_GZ,   CF_HFILE_SNAPPY, CF_HFILE_LZ4,
                               CF_HFILE_LZO,  CF_HFILE_ZSTD, CF_HFILE_BZIP2};
    int k = 0;
    for (size_t e = 0; e < 5; e++)
        for (int tags = 0; tags < 3; tags++)
            for (int mvcc = 0; mvcc < 2; mvcc++)
                round_trip(&r, encs[e], codecs[k++ % 7], tags > 0, tags == 2, mvcc);
}

/* Rebuild a block's plain cells from the iterator, in block.c's layout. */
static void plain_block(cf_hfile *h, uint64_t b, cf_buf *out)
{
    cf_error err = {0};
    const cf_hfile_info *in = cf_hfile_get_info(h);
    cf_hfile_iter *it;
    CF_ASSERT_OK(cf_hfile_iter_create(&it, h, &err), &err);
    uint64_t cnt;
    CF_ASSERT_OK(cf_hfile_block_cell_count(h, b, &cnt, &err), &err);
    /* Skip to block b. */
    for (;;) {
        uint64_t blk, cell;
        cf_hfile_iter_position(it, &blk, &cell);
        if (blk == b)
            break;
        cf_hfile_cell c;
        bool has;
        CF_ASSERT_OK(cf_hfile_iter_next(it, &c, &has, &err), &err);
        assert_true(has);
    }
    for (uint64_t i = 0; i < cnt; i++) {
        cf_hfile_cell c;
        bool has;
        CF_ASSERT_OK(cf_hfile_iter_next(it, &c, &has, &err), &err);
        assert_true(has);
        cf_buf_put_be32(out, (uint32_t)c.key.len);
        cf_buf_put_be32(out, (uint32_t)c.value.len);
        cf_buf_append(out, c.key.data, c.key.len);
        cf_buf_append(out, c.value.data, c.value.len);
        if (in->includes_tags) {
            cf_buf_put_u8(out, (uint8_t)(c.tags.len >> 8));
            cf_buf_put_u8(out, (uint8_t)c.tags.len);
            cf_buf_append(out, c.tags.data, c.tags.len);
        }
        if (in->includes_mvcc)
            cf_hfile_put_vlong(out, (int64_t)c.mvcc);
    }
    cf_hfile_iter_free(it);
}

static void test_hfile__fast_diff_encoder_matches_hbase(void **state)
{
    (void)state;
    const char *files[] = {"phoenix_syscat_fastdiff_22f861a3.hfile",
                           "kylin_ii_lzo_fastdiff_0231cd23.hfile"};
    for (size_t f = 0; f < 2; f++) {
        char path[2048];
        snprintf(path, sizeof(path), "%s/hfile/%s", cf_test_shared_dir(), files[f]);
        cf_error err = {0};
        cf_hfile *h;
        CF_ASSERT_OK(cf_hfile_open_file(&h, path, NULL, &err), &err);
        const cf_hfile_info *in = cf_hfile_get_info(h);
        assert_int_equal(in->data_block_encoding, CF_HFILE_DBE_FAST_DIFF);
        for (uint64_t b = 0; b < in->num_data_blocks; b++) {
            hf_block blk;
            cf_hfile_block_init(&blk);
            cf_hfile_block_ref ref;
            assert_true(cf_hfile_data_block_at(h, b, &ref));
            CF_ASSERT_OK(
                cf_hfile_read_block(h, ref.offset, ref.on_disk_size, HF_ENCDATA, true, &blk, &err),
                &err);
            cf_buf plain, enc;
            cf_buf_init(&plain);
            cf_buf_init(&enc);
            plain_block(h, b, &plain);
            hf_cellfmt fmt = {in->includes_mvcc, in->includes_tags, false, 0};
            CF_ASSERT_OK(cf_hfile_dbe_encode(CF_HFILE_DBE_FAST_DIFF, plain.data, plain.len, &fmt,
                                             &enc, &err),
                         &err);
            CF_ASSERT_BYTES(enc.data, enc.len, blk.payload, blk.payload_len);
            cf_buf_dispose(&plain);
            cf_buf_dispose(&enc);
            cf_hfile_block_dispose(&blk);
        }
        cf_hfile_free(h);
    }
}

static void test_hfile__encoding_errors(void **state)
{
    (void)state;
    cf_error err = {0};
    cf_buf out;
    cf_buf_init(&out);
    hf_cellfmt f = {true, false, false, 1 << 20};
    const uint8_t blk[] = {0, 0, 0, 10, 0x00};
    CF_ASSERT_STATUS(cf_hfile_dbe_decode(6, blk, sizeof(blk), &f, &out, &err), CF_ENOTSUP, &err);
    assert_non_null(strstr(err.msg, "PREFIX_TREE"));
    CF_ASSERT_STATUS(cf_hfile_dbe_decode(99, blk, sizeof(blk), &f, &out, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "unknown"));
    assert_string_equal(cf_hfile_encoding_name(CF_HFILE_DBE_FAST_DIFF), "FAST_DIFF");
    assert_null(cf_hfile_encoding_name(1));

    /* Every truncation of an encoded block, and a SAME_VALUE bomb against
     * the decoded-size cap: errors, never a crash. */
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(17));
    fam_bytes = (const uint8_t *)"f";
    fam_len = 1;
    mcell *m = gen(&r, 50, true, true);
    cf_buf plain;
    cf_buf_init(&plain);
    for (size_t i = 0; i < 50; i++) {
        size_t kl = 2 + m[i].rlen + 1 + fam_len + m[i].qlen + 9;
        cf_buf_put_be32(&plain, (uint32_t)kl);
        cf_buf_put_be32(&plain, (uint32_t)m[i].vlen);
        cf_buf_put_u8(&plain, (uint8_t)(m[i].rlen >> 8));
        cf_buf_put_u8(&plain, (uint8_t)m[i].rlen);
        cf_buf_append(&plain, m[i].row, m[i].rlen);
        cf_buf_put_u8(&plain, (uint8_t)fam_len);
        cf_buf_append(&plain, fam_bytes, fam_len);
        cf_buf_append(&plain, m[i].qual, m[i].qlen);
        uint8_t ts[9];
        for (int j = 0; j < 8; j++)
            ts[j] = (uint8_t)((uint64_t)m[i].ts >> (56 - 8 * j));
        ts[8] = m[i].type;
        cf_buf_append(&plain, ts, 9);
        cf_buf_append(&plain, m[i].val, m[i].vlen);
        cf_buf_put_u8(&plain, (uint8_t)(m[i].tlen >> 8));
        cf_buf_put_u8(&plain, (uint8_t)m[i].tlen);
        cf_buf_append(&plain, m[i].tags, m[i].tlen);
        cf_hfile_put_vlong(&plain, (int64_t)m[i].mvcc);
    }
    const int encs[] = {CF_HFILE_DBE_PREFIX, CF_HFILE_DBE_DIFF, CF_HFILE_DBE_FAST_DIFF};
    for (size_t e = 0; e < 3; e++) {
        for (int ct = 0; ct < 2; ct++) {
            hf_cellfmt fmt = {true, true, ct == 1, 1 << 24};
            cf_buf enc;
            cf_buf_init(&enc);
            CF_ASSERT_OK(cf_hfile_dbe_encode(encs[e], plain.data, plain.len, &fmt, &enc, &err),
                         &err);
            cf_buf_clear(&out);
            CF_ASSERT_OK(cf_hfile_dbe_decode(encs[e], enc.data + 2, enc.len - 2, &fmt, &out, &err),
                         &err);
            CF_ASSERT_BYTES(out.data, out.len, plain.data, plain.len);
            for (size_t cut = 2; cut < enc.len - 1; cut++) {
                cf_buf_clear(&out);
                cf_status st =
                    cf_hfile_dbe_decode(encs[e], enc.data + 2, cut - 2, &fmt, &out, &err);
                /* A cut between cells decodes a prefix of them. */
                if (st == CF_OK)
                    assert_true(out.len < plain.len && memcmp(out.data, plain.data, out.len) == 0);
                else
                    assert_int_equal(st, CF_ECORRUPT);
            }
            cf_buf_dispose(&enc);
        }
    }
    /* FAST_DIFF: one 60 000-byte value, then 1000 cells of "same everything". */
    cf_buf bomb;
    cf_buf_init(&bomb);
    cf_buf_put_be32(&bomb, 0);
    const uint8_t first[] = {0,   14, 0xe0, 0xd4, 0x03, 0, 0, 1, 'r', 1,
                             'f', 0,  0,    0,    0,    0, 0, 0, 1,   4};
    cf_buf_append(&bomb, first, sizeof(first));
    for (int i = 0; i < 60000; i++)
        cf_buf_put_u8(&bomb, 'v');
    for (int i = 0; i < 1000; i++) {
        const uint8_t same[] = {0x08 | 0x10 | 0x20 | 0x40 | 7, 5, 0x01};
        cf_buf_append(&bomb, same, sizeof(same));
    }
    hf_cellfmt small = {false, false, false, 1 << 20};
    cf_buf_clear(&out);
    CF_ASSERT_STATUS(
        cf_hfile_dbe_decode(CF_HFILE_DBE_FAST_DIFF, bomb.data, bomb.len, &small, &out, &err),
        CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "exceeds"));
    cf_buf_dispose(&bomb);
    cf_buf_dispose(&plain);
    cf_buf_dispose(&out);
    free_cells(m, 50);
}

static void test_hfile__writer_encoding_rules(void **state)
{
    (void)state;
    cf_error err = {0};
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_hfile_writer_options o;
    cf_hfile_writer_options_init(&o);
    o.encoding = 6; /* PREFIX_TREE: read by HBase 1.x only, never written here */
    cf_hfile_writer *w;
    CF_ASSERT_STATUS(cf_hfile_writer_create(&w, io, &o, &err), CF_EINVAL, &err);
    o.encoding = CF_HFILE_DBE_DIFF;
    CF_ASSERT_OK(cf_hfile_writer_create(&w, io, &o, &err), &err);
    cf_hfile_cell c;
    memset(&c, 0, sizeof(c));
    c.row = (cf_slice){(const uint8_t *)"a", 1};
    c.family = (cf_slice){(const uint8_t *)"f1", 2};
    c.type = CF_HFILE_PUT;
    CF_ASSERT_OK(cf_hfile_writer_append(w, &c, &err), &err);
    c.family = (cf_slice){(const uint8_t *)"f2", 2};
    CF_ASSERT_STATUS(cf_hfile_writer_append(w, &c, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "one column family"));
    cf_hfile_writer_free(w);
    cf_io_free(io);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hfile__encodings_round_trip),
        cmocka_unit_test(test_hfile__fast_diff_encoder_matches_hbase),
        cmocka_unit_test(test_hfile__encoding_errors),
        cmocka_unit_test(test_hfile__writer_encoding_rules),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
