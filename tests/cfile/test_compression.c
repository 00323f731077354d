/* Compressed CFiles end to end through the public API (format §2.7, §5, §14.11):
 * every encoding reads back under every codec; where the 4-byte header and the
 * raw pass-through appear (data, index and dictionary blocks); DEFAULT = NONE;
 * the CRC over the compressed bytes; and hostile files (bit flips, lying
 * uncompressed sizes, decompression bombs) that must give CF_ECORRUPT without
 * crashing and without allocating what a corrupt header claims. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>

#include "codec/compress.h"
#include "codec/crc32c.h"
#include "util/alloc.h"

#include "support_mem.h"
#include "support_opts.h"

static const cf_compression codecs[] = {CF_COMP_SNAPPY, CF_COMP_LZ4, CF_COMP_ZLIB};
#define NCODECS (sizeof codecs / sizeof codecs[0])

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Scan everything; compare with vals/nonnull when vals != NULL. */
static cf_status scan(opened *f, cf_type t, const void *vals, const uint8_t *nonnull, size_t n,
                      cf_error *err)
{
    size_t es = cf_type_size(t), seen = 0;
    cf_status st0 = cf_iter_seek_to_first(f->it, err);
    if (st0 != CF_OK)
        return st0;
    for (;;) {
        cf_batch b;
        cf_status st = cf_iter_next_batch(f->it, 1024, &b, err);
        if (st != CF_OK)
            return st;
        if (b.count == 0)
            break;
        if (vals) {
            assert_int_equal(b.first_ord, seen);
            assert_true(seen + b.count <= n);
            for (size_t i = 0; i < b.count; i++) {
                size_t row = seen + i;
                bool present = nonnull == NULL || (nonnull[row / 8] >> (row % 8) & 1);
                if (b.nonnull)
                    assert_int_equal((b.nonnull[i / 8] >> (i % 8)) & 1, present);
                if (!present)
                    continue;
                const uint8_t *g = (const uint8_t *)b.values + i * es;
                const uint8_t *w = (const uint8_t *)vals + row * es;
                if (cf_type_is_binary(t)) {
                    const cf_slice *gs = (const void *)g, *ws = (const void *)w;
                    if (gs->len != ws->len || (ws->len && memcmp(gs->data, ws->data, ws->len)))
                        fail_msg("row %zu: binary value differs", row);
                } else if (memcmp(g, w, es) != 0) {
                    fail_msg("row %zu: value differs", row);
                }
            }
        }
        seen += b.count;
    }
    if (vals)
        assert_int_equal(seen, n);
    return CF_OK;
}

/* m reads back whole as vals (nonnull may be NULL). */
static void expect_scan(const mem_file *m, cf_type t, const void *vals, const uint8_t *nonnull,
                        size_t n)
{
    opened f;
    open_file(&f, m);
    cf_error err;
    CF_ASSERT_OK(scan(&f, t, vals, nonnull, n, &err), &err);
    close_file(&f);
}

/* The payload p[0..len) decompresses with codec c to exactly want[0..u): u is
 * both the size the block header claims and the logical block's. */
static void expect_decompresses(cf_compression c, const uint8_t *p, size_t len, const uint8_t *want,
                                size_t u)
{
    cf_error err;
    uint8_t *out = malloc(u);
    assert_non_null(out);
    CF_ASSERT_OK(cf_codec_decompress(c, p, len, out, u, &err), &err);
    CF_ASSERT_BYTES(out, u, want, u);
    free(out);
}

/* The single data block of a one-block file: it starts after the header and
 * runs to the positional index root, which follows it. */
static void data_block(const mem_file *m, bool checksums, size_t *off, size_t *stored)
{
    opened f;
    open_file(&f, m);
    const cf_file_info *fi = cf_reader_info(f.r);
    *off = checksums ? 16 : 12;
    assert_true(fi->has_posidx);
    *stored = (size_t)fi->posidx_root_off - *off - (checksums ? 4 : 0);
    close_file(&f);
}

/* Values of type t: `mode` 0 = compressible (small repeating numbers, words),
 * 1 = random bytes. Binary slices point into *pool (caller frees). */
static void *gen_values(cf_type t, size_t n, int mode, cf_rng *rng, uint8_t **pool)
{
    size_t es = cf_type_size(t);
    uint8_t *v = calloc(n + 1, es);
    *pool = NULL;
    if (cf_type_is_binary(t)) {
        *pool = malloc(n * 32 + 1);
        size_t used = 0;
        for (size_t i = 0; i < n; i++) {
            uint8_t *p = *pool + used;
            size_t len;
            if (mode == 0) {
                len = (size_t)snprintf((char *)p, 32, "customer-%04u-region",
                                       (unsigned)cf_rng_below(rng, 300));
            } else {
                len = (size_t)cf_rng_below(rng, 30);
                for (size_t j = 0; j < len; j++)
                    p[j] = (uint8_t)cf_rng_next(rng);
            }
            cf_slice s = {p, len};
            memcpy(v + i * es, &s, sizeof s);
            used += len;
        }
        return v;
    }
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = v + i * es;
        if (t == CF_TYPE_BOOL) {
            *p = mode == 0 ? (uint8_t)((i / 37) & 1) : (uint8_t)(cf_rng_next(rng) & 1);
        } else if (mode == 0) {
            int64_t x = (int64_t)(i / 5 % 23) - 11;
            for (size_t j = 0; j < es; j++)
                p[j] = j < 8 ? (uint8_t)((uint64_t)x >> (8 * j)) : (x < 0 ? 0xff : 0);
        } else {
            for (size_t j = 0; j < es; j++)
                p[j] = (uint8_t)cf_rng_next(rng);
        }
    }
    return v;
}

/* ---- round trips ------------------------------------------------------------------ */

static const cf_type types[] = {
    CF_TYPE_INT8,   CF_TYPE_INT16,  CF_TYPE_INT32,          CF_TYPE_INT64,  CF_TYPE_UINT32,
    CF_TYPE_FLOAT,  CF_TYPE_DOUBLE, CF_TYPE_BOOL,           CF_TYPE_INT128, CF_TYPE_DATE,
    CF_TYPE_STRING, CF_TYPE_BINARY, CF_TYPE_UNIXTIME_MICROS};
static const cf_encoding encodings[] = {CF_ENC_PLAIN, CF_ENC_PREFIX, CF_ENC_RLE, CF_ENC_DICT,
                                        CF_ENC_BIT_SHUFFLE};

static void test_compression__round_trip_every_encoding(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(21));
    enum { N = 6000 };
    uint8_t nonnull[N / 8 + 1];
    size_t files = 0, smaller = 0;
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        cf_type t = types[ti];
        for (size_t ei = 0; ei < sizeof encodings / sizeof encodings[0]; ei++) {
            if (!cf_type_allows_encoding(t, encodings[ei]))
                continue;
            for (int variant = 0; variant < 4; variant++) {
                int mode = variant & 1;
                bool nullable = variant & 2;
                uint8_t *pool;
                void *vals = gen_values(t, N, mode, &rng, &pool);
                for (size_t i = 0; i < sizeof nonnull; i++)
                    nonnull[i] = nullable ? (uint8_t)cf_rng_next(&rng) : 0xff;
                size_t none_len = 0;
                for (int ci = -1; ci < (int)NCODECS; ci++) {
                    cf_writer_options o =
                        col_options((col_opts){.type = t,
                                               .enc = encodings[ei],
                                               .comp = ci < 0 ? CF_COMP_NONE : codecs[ci],
                                               .nullable = nullable,
                                               .block_size = 2048,
                                               .index_block_size = 128,
                                               .no_checksums = variant == 1});
                    mem_file m;
                    cf_error err;
                    cf_status st = write_mem(&o, vals, nullable ? nonnull : NULL, N, 100, &m, &err);
                    if (st != CF_OK)
                        fail_msg("%s %s %s: %s", cf_type_name(t), cf_encoding_name(o.encoding),
                                 cf_compression_name(o.compression), err.msg);
                    opened f;
                    open_file(&f, &m);
                    assert_int_equal(cf_reader_info(f.r)->compression, o.compression);
                    CF_ASSERT_OK(scan(&f, t, vals, nullable ? nonnull : NULL, N, &err), &err);
                    /* Seeks go through the (compressed) positional index. */
                    for (int k = 0; k < 20; k++) {
                        uint64_t ord = cf_rng_below(&rng, N);
                        CF_ASSERT_OK(cf_iter_seek_to_ordinal(f.it, ord, &err), &err);
                        assert_int_equal(cf_iter_current_ordinal(f.it), ord);
                    }
                    size_t damaged = 1;
                    CF_ASSERT_OK(cf_reader_verify(f.r, NULL, NULL, &damaged, &err), &err);
                    assert_int_equal(damaged, 0);
                    close_file(&f);
                    if (ci < 0)
                        none_len = m.len;
                    else if (m.len < none_len)
                        smaller++;
                    free(m.data);
                    files++;
                }
                free(vals);
                free(pool);
            }
        }
    }
    assert_true(files > 100);
    assert_true(smaller > files / 8); /* the compressible sets did shrink */
}

static void test_compression__value_index_round_trip(void **state)
{
    (void)state;
    /* Sorted keys: the value index blocks are compressed too and seeks work. */
    enum { N = 20000 };
    cf_slice *keys = malloc(N * sizeof *keys);
    char *bytes = malloc(N * 16);
    for (size_t i = 0; i < N; i++) {
        snprintf(bytes + i * 16, 16, "user%010u", (unsigned)(i * 3));
        keys[i] = (cf_slice){(const uint8_t *)bytes + i * 16, 14};
    }
    for (size_t ci = 0; ci < NCODECS; ci++) {
        cf_writer_options o = col_options((col_opts){.type = CF_TYPE_STRING,
                                                     .enc = CF_ENC_PREFIX,
                                                     .comp = codecs[ci],
                                                     .validx = true,
                                                     .block_size = 1024});
        mem_file m;
        cf_error err;
        CF_ASSERT_OK(write_mem(&o, keys, NULL, N, 100, &m, &err), &err);
        opened f;
        open_file(&f, &m);
        const cf_file_info *fi = cf_reader_info(f.r);
        assert_true(fi->has_validx);
        /* The value index root: a compressed block whose payload is shorter than U. */
        const uint8_t *root = m.data + fi->validx_root_off;
        uint32_t u = le32(root);
        size_t p = fi->validx_root_size - 8;
        assert_true(p < u);
        uint8_t *out = malloc(u);
        CF_ASSERT_OK(cf_codec_decompress(codecs[ci], root + 4, p, out, u, &err), &err);
        free(out);
        for (size_t k = 0; k < 200; k++) {
            size_t i = (k * 7919) % N;
            char probe[16];
            snprintf(probe, sizeof probe, "user%010u", (unsigned)(i * 3 + 1)); /* between keys */
            cf_slice key = {(const uint8_t *)probe, 14};
            bool exact = true;
            cf_status st = cf_iter_seek_at_or_after(f.it, &key, &exact, &err);
            if (i == N - 1) {
                CF_ASSERT_STATUS(st, CF_ENOTFOUND, &err);
                continue;
            }
            CF_ASSERT_OK(st, &err);
            assert_false(exact);
            assert_int_equal(cf_iter_current_ordinal(f.it), i + 1);
        }
        CF_ASSERT_OK(scan(&f, CF_TYPE_STRING, keys, NULL, N, &err), &err);
        close_file(&f);
        free(m.data);
    }
    free(keys);
    free(bytes);
}

/* ---- where the wrapper goes ------------------------------------------------------- */

static void test_compression__exact_bytes_14_11(void **state)
{
    (void)state;
    /* format §14.11: the 20-byte PLAIN block of 1,2,3. LZ4 makes 18 bytes (ratio
     * exactly 0.9: kept); ZLIB (19) and SNAPPY fail the rule and store raw. */
    int32_t v[3] = {1, 2, 3};
    struct {
        cf_compression c;
        const char *stored;
    } cases[] = {
        {CF_COMP_LZ4, "14000000 2203000100c00100000002000000 03000000 056aba30"},
        {CF_COMP_ZLIB, "14000000 0300000000000000 01000000 02000000 03000000 cfb0587b"},
        {CF_COMP_SNAPPY, "14000000 0300000000000000 01000000 02000000 03000000 cfb0587b"},
    };
    for (size_t i = 0; i < 3; i++) {
        cf_writer_options o =
            col_options((col_opts){.type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN, .comp = cases[i].c});
        mem_file m;
        cf_error err;
        CF_ASSERT_OK(write_mem(&o, v, NULL, 3, 3, &m, &err), &err);
        uint8_t want[64];
        size_t wlen = cf_test_unhex(cases[i].stored, want, sizeof want);
        opened f;
        open_file(&f, &m);
        const cf_file_info *fi = cf_reader_info(f.r);
        assert_int_equal(fi->posidx_root_off, 16 + wlen);
        CF_ASSERT_BYTES(m.data + 16, wlen, want, wlen);
        /* The positional leaf (19 logical bytes) never compresses: raw with its header. */
        assert_int_equal(fi->posidx_root_size, 4 + 19 + 4);
        assert_int_equal(le32(m.data + fi->posidx_root_off), 19);
        CF_ASSERT_OK(scan(&f, CF_TYPE_INT32, v, NULL, 3, &err), &err);
        close_file(&f);
        free(m.data);
    }
}

static void test_compression__incompressible_block_stored_raw(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(23));
    enum { N = 2000 };
    uint8_t *pool;
    for (int ty = 0; ty < 2; ty++) {
        cf_type t = ty ? CF_TYPE_BINARY : CF_TYPE_INT64;
        void *vals = gen_values(t, N, 1, &rng, &pool);
        for (int sums = 0; sums < 2; sums++) {
            cf_writer_options o =
                col_options((col_opts){.type = t, .enc = CF_ENC_PLAIN, .no_checksums = !sums});
            mem_file plain;
            cf_error err;
            CF_ASSERT_OK(write_mem(&o, vals, NULL, N, N, &plain, &err), &err);
            size_t poff, plen;
            data_block(&plain, sums, &poff, &plen);
            for (size_t ci = 0; ci < NCODECS; ci++) {
                o.compression = codecs[ci];
                mem_file m;
                CF_ASSERT_OK(write_mem(&o, vals, NULL, N, N, &m, &err), &err);
                size_t off, stored;
                data_block(&m, sums, &off, &stored);
                /* format §5.1: fixed32 U, then the U logical bytes unchanged. */
                assert_int_equal(stored, 4 + plen);
                assert_int_equal(le32(m.data + off), plen);
                CF_ASSERT_BYTES(m.data + off + 4, plen, plain.data + poff, plen);
                if (sums)
                    assert_int_equal(le32(m.data + off + stored), cf_crc32c(m.data + off, stored));
                expect_scan(&m, t, vals, NULL, N);
                free(m.data);
            }
            free(plain.data);
        }
        free(vals);
        free(pool);
    }
}

static void test_compression__compressible_block_compressed(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, 5);
    enum { N = 10000 };
    uint8_t *pool;
    int32_t *vals = gen_values(CF_TYPE_INT32, N, 0, &rng, &pool);
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN});
    mem_file plain;
    cf_error err;
    CF_ASSERT_OK(write_mem(&o, vals, NULL, N, N, &plain, &err), &err);
    size_t poff, plen;
    data_block(&plain, true, &poff, &plen);
    assert_int_equal(plen, 8 + 4 * N);
    for (size_t ci = 0; ci < NCODECS; ci++) {
        o.compression = codecs[ci];
        mem_file m;
        CF_ASSERT_OK(write_mem(&o, vals, NULL, N, N, &m, &err), &err);
        size_t off, stored;
        data_block(&m, true, &off, &stored);
        uint32_t u = le32(m.data + off);
        size_t p = stored - 4;
        assert_int_equal(u, plen);
        assert_true((double)p / (double)u <= 0.9);
        /* The payload is exactly the codec's output for the logical block ... */
        cf_buf want;
        cf_buf_init(&want);
        CF_ASSERT_OK(cf_codec_compress(codecs[ci], plain.data + poff, plen, &want, &err), &err);
        CF_ASSERT_BYTES(m.data + off + 4, p, want.data, want.len);
        cf_buf_dispose(&want);
        /* ... and decodes back to it. */
        expect_decompresses(codecs[ci], m.data + off + 4, p, plain.data + poff, plen);
        /* The CRC covers the stored (compressed) bytes, header included. */
        assert_int_equal(le32(m.data + off + stored), cf_crc32c(m.data + off, stored));
        free(m.data);
    }
    free(plain.data);
    free(vals);
}

static void test_compression__index_blocks_compressed(void **state)
{
    (void)state;
    /* ~1250 data blocks of 200 rows: their positional entries fill one root leaf
     * of ~12 KB, which every codec shrinks. */
    enum { N = 250000 };
    int32_t *vals = malloc(N * sizeof *vals);
    for (size_t i = 0; i < N; i++)
        vals[i] = (int32_t)(i % 1000);
    for (size_t ci = 0; ci < NCODECS; ci++) {
        cf_writer_options o = col_options((col_opts){
            .type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN, .block_size = 512, .comp = codecs[ci]});
        mem_file m;
        cf_error err;
        CF_ASSERT_OK(write_mem(&o, vals, NULL, N, 100, &m, &err), &err);
        opened f;
        open_file(&f, &m);
        const cf_file_info *fi = cf_reader_info(f.r);
        const uint8_t *root = m.data + fi->posidx_root_off;
        uint32_t u = le32(root);
        size_t p = fi->posidx_root_size - 8;
        assert_true(u > 10000);
        assert_true((double)p / (double)u <= 0.9);
        assert_int_equal(le32(root + 4 + p), cf_crc32c(root, 4 + p));
        uint8_t *out = malloc(u);
        CF_ASSERT_OK(cf_codec_decompress(codecs[ci], root + 4, p, out, u, &err), &err);
        free(out);
        CF_ASSERT_OK(scan(&f, CF_TYPE_INT32, vals, NULL, N, &err), &err);
        CF_ASSERT_OK(cf_iter_seek_to_ordinal(f.it, N - 1, &err), &err);
        close_file(&f);
        free(m.data);
    }
    free(vals);
}

static void test_compression__dictionary_block_compressed(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, 7);
    enum { N = 20000 };
    uint8_t *pool;
    cf_slice *vals = gen_values(CF_TYPE_STRING, N, 0, &rng, &pool);
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_STRING);
    assert_int_equal(o.encoding, CF_ENC_AUTO);
    mem_file plain;
    cf_error err;
    CF_ASSERT_OK(write_mem(&o, vals, NULL, N, 100, &plain, &err), &err);
    opened f;
    open_file(&f, &plain);
    const cf_file_info *pfi = cf_reader_info(f.r);
    assert_int_equal(pfi->encoding, CF_ENC_DICT);
    assert_true(pfi->has_dict_block);
    const uint8_t *pdict = plain.data + pfi->dict_block_off;
    size_t pdict_len = pfi->dict_block_size - 4;
    close_file(&f);
    for (size_t ci = 0; ci < NCODECS; ci++) {
        o.compression = codecs[ci];
        mem_file m;
        CF_ASSERT_OK(write_mem(&o, vals, NULL, N, 100, &m, &err), &err);
        open_file(&f, &m);
        const cf_file_info *fi = cf_reader_info(f.r);
        assert_true(fi->has_dict_block);
        const uint8_t *d = m.data + fi->dict_block_off;
        uint32_t u = le32(d);
        size_t p = fi->dict_block_size - 8;
        assert_int_equal(u, pdict_len);
        assert_true(p < u);
        expect_decompresses(codecs[ci], d + 4, p, pdict, pdict_len);
        CF_ASSERT_OK(scan(&f, CF_TYPE_STRING, vals, NULL, N, &err), &err);
        close_file(&f);
        free(m.data);
    }
    free(plain.data);
    free(vals);
    free(pool);
}

static void test_compression__dictionary_many_distinct_strings(void **state)
{
    (void)state;
    /* 40,000 distinct 6-byte strings fit one 256 KiB dictionary (10 bytes each
     * in its estimate), so the dictionary grows well past 8192 entries. */
    enum { N = 40000 };
    cf_slice *vals = malloc(N * sizeof *vals);
    char *bytes = malloc(N * 8);
    for (size_t i = 0; i < N; i++) {
        snprintf(bytes + i * 8, 8, "%06zu", (i * 7919) % N);
        vals[i] = (cf_slice){(const uint8_t *)bytes + i * 8, 6};
    }
    for (int ci = -1; ci < (int)NCODECS; ci++) {
        cf_writer_options o = col_options(
            (col_opts){.type = CF_TYPE_STRING, .comp = ci < 0 ? CF_COMP_NONE : codecs[ci]});
        mem_file m;
        cf_error err;
        CF_ASSERT_OK(write_mem(&o, vals, NULL, N, 100, &m, &err), &err);
        opened f;
        open_file(&f, &m);
        assert_int_equal(cf_reader_info(f.r)->encoding, CF_ENC_DICT);
        CF_ASSERT_OK(scan(&f, CF_TYPE_STRING, vals, NULL, N, &err), &err);
        close_file(&f);
        free(m.data);
    }
    free(vals);
    free(bytes);
}

static void test_compression__default_is_none(void **state)
{
    (void)state;
    int32_t v[500];
    for (int i = 0; i < 500; i++)
        v[i] = i % 4;
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_INT32);
    assert_int_equal(o.compression, CF_COMP_DEFAULT);
    cf_io *io;
    cf_writer *w;
    cf_error err;
    CF_ASSERT_OK(mem_writer_create(&w, &io, &o, &err), &err);
    assert_int_equal(cf_writer_resolved_options(w)->compression, CF_COMP_NONE);
    CF_ASSERT_OK(cf_writer_append(w, v, NULL, 500, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    cf_slice def = cf_io_mem_contents(io);
    o.compression = CF_COMP_NONE;
    mem_file none;
    CF_ASSERT_OK(write_mem(&o, v, NULL, 500, 500, &none, &err), &err);
    CF_ASSERT_BYTES(def.data, def.len, none.data, none.len);
    opened f;
    open_file(&f, &none);
    assert_int_equal(cf_reader_info(f.r)->compression, CF_COMP_NONE);
    close_file(&f);
    /* Without a codec there is no 4-byte header: the block is the encoded bytes
     * (BIT_SHUFFLE's header starts with the ordinal 0, then the count 500). */
    assert_int_equal(le32(none.data + 16), 0);
    assert_int_equal(le32(none.data + 20), 500);
    free(none.data);
    cf_writer_free(w);
    cf_io_free(io);
    /* An out-of-range codec is refused by name. */
    o.compression = (cf_compression)9;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    w = NULL;
    CF_ASSERT_STATUS(cf_writer_create(&w, io, &o, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "compression"));
    cf_io_free(io);
}

/* ---- the checksum and damaged payloads ------------------------------------------- */

/* A compressible one-block INT32 PLAIN file (U = 40008). */
static void compressible_file(cf_compression c, bool checksums, mem_file *m, int32_t **vals_out)
{
    enum { N = 10000 };
    int32_t *vals = malloc(N * sizeof *vals);
    for (int i = 0; i < N; i++)
        vals[i] = i / 3 % 50;
    cf_writer_options o = col_options((col_opts){
        .type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN, .comp = c, .no_checksums = !checksums});
    cf_error err;
    CF_ASSERT_OK(write_mem(&o, vals, NULL, N, N, m, &err), &err);
    *vals_out = vals;
}

static void test_compression__checksum_covers_compressed_bytes(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < NCODECS; ci++) {
        mem_file m;
        int32_t *vals;
        compressible_file(codecs[ci], true, &m, &vals);
        size_t off, stored;
        data_block(&m, true, &off, &stored);
        assert_true(stored - 4 < le32(m.data + off)); /* really compressed */
        /* One flipped bit anywhere in header or payload: a checksum error. */
        size_t at[] = {off, off + 3, off + 4, off + stored / 2, off + stored - 1};
        for (size_t k = 0; k < 5; k++) {
            m.data[at[k]] ^= 0x10;
            opened f;
            open_file(&f, &m);
            cf_error err;
            CF_ASSERT_STATUS(scan(&f, CF_TYPE_INT32, NULL, NULL, 0, &err), CF_ECORRUPT, &err);
            assert_non_null(strstr(err.msg, "checksum"));
            size_t damaged = 0;
            CF_ASSERT_STATUS(cf_reader_verify(f.r, NULL, NULL, &damaged, &err), CF_ECORRUPT, &err);
            assert_non_null(strstr(err.msg, "checksum"));
            assert_int_equal(damaged, 1);
            close_file(&f);
            /* With verification off the codec or the decoder meets the damage. */
            cf_reader_options ro;
            cf_reader_options_init(&ro);
            ro.verify_checksums = false;
            CF_ASSERT_OK(try_open(&f, &m, &ro, &err), &err);
            cf_status st = scan(&f, CF_TYPE_INT32, NULL, NULL, 0, &err);
            assert_true(st == CF_OK || st == CF_ECORRUPT);
            close_file(&f);
            m.data[at[k]] ^= 0x10;
        }
        /* Restored, it reads. */
        expect_scan(&m, CF_TYPE_INT32, vals, NULL, 10000);
        free(m.data);
        free(vals);
    }
}

typedef struct flip_case {
    cf_type t;
    cf_encoding e;
    bool nullable;
} flip_case;

static void test_compression__flips_without_checksums(void **state)
{
    (void)state;
    /* Every byte of the blocks region, flipped three ways, with no CRC to stop
     * it: each read ends in CF_OK or CF_ECORRUPT, never a crash (run under ASan). */
    static const flip_case cases[] = {
        {CF_TYPE_INT32, CF_ENC_PLAIN, false},   {CF_TYPE_INT32, CF_ENC_BIT_SHUFFLE, true},
        {CF_TYPE_INT64, CF_ENC_RLE, false},     {CF_TYPE_STRING, CF_ENC_DICT, true},
        {CF_TYPE_STRING, CF_ENC_PREFIX, false}, {CF_TYPE_BOOL, CF_ENC_RLE, true},
    };
    static const uint8_t masks[] = {0x01, 0x80, 0xff};
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(29));
    enum { N = 400 };
    uint8_t nonnull[N / 8];
    for (size_t i = 0; i < sizeof nonnull; i++)
        nonnull[i] = (uint8_t)(0xf7 ^ i);
    size_t runs = 0, rejected = 0;
    for (size_t ci = 0; ci < NCODECS; ci++) {
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            uint8_t *pool;
            void *vals = gen_values(cases[k].t, N, 0, &rng, &pool);
            cf_writer_options o = col_options((col_opts){.type = cases[k].t,
                                                         .enc = cases[k].e,
                                                         .nullable = cases[k].nullable,
                                                         .comp = codecs[ci],
                                                         .no_checksums = true,
                                                         .block_size = 600});
            mem_file m;
            cf_error err;
            CF_ASSERT_OK(write_mem(&o, vals, cases[k].nullable ? nonnull : NULL, N, 50, &m, &err),
                         &err);
            size_t footer = m.len - 12 - le32(m.data + m.len - 4);
            for (size_t pos = 12; pos < footer; pos++) {
                for (size_t mi = 0; mi < sizeof masks; mi++) {
                    m.data[pos] ^= masks[mi];
                    opened f;
                    cf_status st = try_open(&f, &m, NULL, &err);
                    if (st == CF_OK)
                        st = scan(&f, cases[k].t, NULL, NULL, 0, &err);
                    if (st == CF_OK) {
                        size_t damaged;
                        st = cf_reader_verify(f.r, NULL, NULL, &damaged, &err);
                    }
                    if (st != CF_OK && st != CF_ECORRUPT)
                        fail_msg("%s %s: byte %zu ^ %02x gave %s: %s",
                                 cf_compression_name(codecs[ci]), cf_encoding_name(cases[k].e), pos,
                                 masks[mi], cf_status_str(st), err.msg);
                    rejected += st != CF_OK;
                    runs++;
                    close_file(&f);
                    m.data[pos] ^= masks[mi];
                }
            }
            free(m.data);
            free(vals);
            free(pool);
        }
    }
    print_message("%zu damaged files, %zu rejected\n", runs, rejected);
    assert_true(rejected > runs / 2);
}

/* Put a new uncompressed size into a block's header and fix its CRC. */
static void set_u(mem_file *m, size_t off, size_t stored, uint32_t u, bool checksums)
{
    put_le32(m->data + off, u);
    if (checksums)
        put_le32(m->data + off + stored, cf_crc32c(m->data + off, stored));
}

/* Scan and verify must both give CF_ECORRUPT, with `needle` in the message.
 * With no_alloc, the reader must refuse before it allocates anything. */
static void expect_corrupt(const mem_file *m, const char *needle, bool no_alloc, const char *what)
{
    opened f;
    open_file(&f, m);
    cf_error err;
    if (no_alloc)
        cf_alloc_fail_after(1);
    cf_status st = scan(&f, CF_TYPE_INT32, NULL, NULL, 0, &err);
    cf_alloc_fail_after(0);
    if (st != CF_ECORRUPT)
        fail_msg("%s: scan gave %s (%s), want corruption", what, cf_status_str(st),
                 st ? err.msg : "");
    if (strstr(err.msg, needle) == NULL)
        fail_msg("%s: message \"%s\" lacks \"%s\"", what, err.msg, needle);
    size_t damaged = 0;
    st = cf_reader_verify(f.r, NULL, NULL, &damaged, &err);
    if (st != CF_ECORRUPT || damaged != 1)
        fail_msg("%s: verify gave %s, %zu damaged", what, cf_status_str(st), damaged);
    close_file(&f);
}

static void test_compression__lying_uncompressed_size(void **state)
{
    (void)state;
    for (int sums = 0; sums < 2; sums++) {
        for (size_t ci = 0; ci < NCODECS; ci++) {
            mem_file m;
            int32_t *vals;
            compressible_file(codecs[ci], sums, &m, &vals);
            size_t off, stored;
            data_block(&m, sums, &off, &stored);
            uint32_t u = le32(m.data + off), p = (uint32_t)(stored - 4);
            assert_int_equal(u, 40008);
            assert_true(p < u);
            struct {
                uint32_t u;
                const char *needle;
                bool no_alloc;
            } cases[] = {
                {u + 1, "", false}, /* the payload decodes to one byte less */
                {u - 1, "", false}, /* ... to one byte more */
                {u / 2, "", false},
                {p, "", false},          /* "raw": the decoder sees codec output */
                {p - 1, "exceed", true}, /* payload longer than the block */
                {0, "exceed", true},
                {16u << 20, "", false}, /* at the limit: allowed, but a lie */
                {(16u << 20) + 1, "limit", true},
                {1u << 30, "limit", true}, /* a bomb's claim: refused unallocated */
                {UINT32_MAX, "limit", true},
            };
            for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
                set_u(&m, off, stored, cases[k].u, sums);
                char what[64];
                snprintf(what, sizeof what, "%s U=%u", cf_compression_name(codecs[ci]), cases[k].u);
                expect_corrupt(&m, cases[k].needle, cases[k].no_alloc, what);
            }
            set_u(&m, off, stored, u, sums);
            expect_scan(&m, CF_TYPE_INT32, vals, NULL, 10000);
            free(m.data);
            free(vals);
        }
    }
}

static void test_compression__lying_index_block(void **state)
{
    (void)state;
    /* The positional root of a one-block file is stored raw (U = payload length);
     * any other U makes the codec run on raw bytes, or is refused outright. */
    for (size_t ci = 0; ci < NCODECS; ci++) {
        mem_file m;
        int32_t *vals;
        compressible_file(codecs[ci], true, &m, &vals);
        opened f;
        open_file(&f, &m);
        size_t off = (size_t)cf_reader_info(f.r)->posidx_root_off;
        size_t stored = cf_reader_info(f.r)->posidx_root_size - 4;
        close_file(&f);
        uint32_t u = le32(m.data + off);
        assert_int_equal(u, stored - 4);
        uint32_t lies[] = {u + 1, u + 100, (16u << 20) + 1, UINT32_MAX, u - 1};
        for (size_t k = 0; k < 5; k++) {
            set_u(&m, off, stored, lies[k], true);
            cf_error err;
            cf_status st = try_open(&f, &m, NULL, &err);
            if (st == CF_OK)
                st = scan(&f, CF_TYPE_INT32, NULL, NULL, 0, &err);
            CF_ASSERT_STATUS(st, CF_ECORRUPT, &err);
            assert_non_null(strstr(err.msg, "index block"));
            close_file(&f);
        }
        free(m.data);
        free(vals);
    }
}

/* One INT8 PLAIN block of `n` values (all zero) in one call: logical n + 8 bytes. */
static cf_status zeros_file(cf_compression c, size_t n, mem_file *m, cf_error *err)
{
    uint8_t *z = calloc(n, 1);
    cf_writer_options o = col_options(
        (col_opts){.type = CF_TYPE_INT8, .enc = CF_ENC_PLAIN, .comp = c, .block_size = 16u << 20});
    cf_status st = write_mem(&o, z, NULL, n, n, m, err);
    free(z);
    return st;
}

static void test_compression__decompression_bomb(void **state)
{
    (void)state;
    const size_t limit = 16u << 20;
    for (size_t ci = 0; ci < NCODECS; ci++) {
        /* A tiny payload that really decodes to the 16 MiB limit is a valid block. */
        mem_file m;
        cf_error err;
        CF_ASSERT_OK(zeros_file(codecs[ci], limit - 8, &m, &err), &err);
        assert_true(m.len < limit / 16);
        size_t off, stored;
        data_block(&m, true, &off, &stored);
        assert_int_equal(le32(m.data + off), limit);
        opened f;
        open_file(&f, &m);
        size_t rows = 0;
        for (;;) {
            cf_batch b;
            CF_ASSERT_OK(cf_iter_next_batch(f.it, 1u << 20, &b, &err), &err);
            if (b.count == 0)
                break;
            const uint8_t *v = b.values;
            for (size_t i = 0; i < b.count; i++)
                assert_int_equal(v[i], 0);
            rows += b.count;
        }
        assert_int_equal(rows, limit - 8);
        close_file(&f);
        /* A reader with a lower limit refuses it. */
        cf_reader_options ro;
        cf_reader_options_init(&ro);
        ro.max_block_len = 1u << 20;
        CF_ASSERT_OK(try_open(&f, &m, &ro, &err), &err);
        CF_ASSERT_STATUS(scan(&f, CF_TYPE_INT8, NULL, NULL, 0, &err), CF_ECORRUPT, &err);
        assert_non_null(strstr(err.msg, "limit"));
        close_file(&f);
        /* The same payload claiming 1 GiB (or just over the limit) is refused
         * before anything is allocated. */
        set_u(&m, off, stored, 1u << 30, true);
        expect_corrupt(&m, "limit", true, "1 GiB claim");
        set_u(&m, off, stored, (uint32_t)limit + 1, true);
        expect_corrupt(&m, "limit", true, "16 MiB + 1 claim");
        /* Claiming less than it decodes to: the codec stops at U. */
        set_u(&m, off, stored, (uint32_t)limit - 1, true);
        expect_corrupt(&m, "", false, "16 MiB - 1 claim");
        free(m.data);
    }
}

static void test_compression__writer_block_limit(void **state)
{
    (void)state;
    /* format §5.1: with a codec, a logical block over 16 MiB is refused at write
     * time; exactly 16 MiB was written above. */
    const size_t limit = 16u << 20;
    for (size_t ci = 0; ci < NCODECS; ci++) {
        mem_file m = {NULL, 0};
        cf_error err;
        CF_ASSERT_STATUS(zeros_file(codecs[ci], limit - 7, &m, &err), CF_EINVAL, &err);
        assert_non_null(strstr(err.msg, "exceeds"));
        assert_null(m.data);
    }
}

static void test_compression__uncompressed_block_over_16mib(void **state)
{
    (void)state;
    /* Kudu applies --max_cfile_block_size only to compressed blocks (§5.1,
     * §10.1): without a codec one append call of 20 MiB INT8 values makes one
     * 20 MiB block, which Kudu writes and reads back. */
    const size_t n = 20u << 20;
    mem_file m;
    cf_error err;
    CF_ASSERT_OK(zeros_file(CF_COMP_NONE, n, &m, &err), &err);
    size_t off, stored;
    data_block(&m, true, &off, &stored);
    assert_int_equal(stored, n + 8);
    opened f;
    open_file(&f, &m);
    size_t rows = 0;
    cf_status st;
    for (;;) {
        cf_batch b;
        st = cf_iter_next_batch(f.it, 1u << 20, &b, &err);
        if (st != CF_OK || b.count == 0)
            break;
        rows += b.count;
    }
    close_file(&f);
    free(m.data);
    CF_ASSERT_OK(st, &err);
    assert_int_equal(rows, n);
}

/* End of the checksummed block starting at `start`: the first e with
 * crc32c(data[start, e)) stored at e (a false match has odds of 2^-32). */
static size_t block_end(const mem_file *m, size_t start)
{
    uint32_t crc = 0;
    for (size_t e = start; e + 4 <= m->len; e++) {
        if (e > start && le32(m->data + e) == crc)
            return e;
        crc = cf_crc32c_extend(crc, m->data + e, 1);
    }
    fail_msg("no block end after %zu", start);
    return 0;
}

static void test_compression__crafted_nullable_bitmap(void **state)
{
    (void)state;
    /* format §6.2: a nullable block whose row count outruns its bitmap, or whose
     * bitmap disagrees with the values present. 300 INT32 rows, every 10th NULL,
     * block size 512, one call: blocks of 150 rows at ordinals 0 and 150. */
    enum { N = 300 };
    int32_t vals[N];
    uint8_t nonnull[N / 8 + 1];
    memset(nonnull, 0, sizeof nonnull);
    for (int i = 0; i < N; i++) {
        vals[i] = i;
        if (i % 10 != 9)
            nonnull[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    cf_writer_options o = col_options((col_opts){
        .type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN, .nullable = true, .block_size = 512});
    struct {
        size_t at;
        uint8_t val;
        cf_status want;
        const char *needle;
    } cases[] = {
        {0, 0xc8, CF_ECORRUPT, "fewer than its 200 rows"}, /* num_rows 150 -> 200 */
        {0, 0x95, CF_ECORRUPT, "present rows"},            /* 149 rows: one present too few */
        {2, 0xff, CF_ECORRUPT, "truncated"},               /* bitmap length past the end */
        {3, 0x00, CF_ECORRUPT, ""},                        /* bitmap literal -> repeated 0s */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mem_file m;
        cf_error err;
        CF_ASSERT_OK(write_mem(&o, vals, nonnull, N, N, &m, &err), &err);
        size_t b0 = block_end(&m, 16);
        size_t start = b0 + 4, end = block_end(&m, start);
        /* varint32 150 = 96 01: the second block's row count. */
        assert_int_equal(m.data[start], 0x96);
        assert_int_equal(m.data[start + 1], 0x01);
        m.data[start + cases[i].at] = cases[i].val;
        put_le32(m.data + end, cf_crc32c(m.data + start, end - start));
        opened f;
        open_file(&f, &m);
        cf_status st = scan(&f, CF_TYPE_INT32, NULL, NULL, 0, &err);
        CF_ASSERT_STATUS(st, cases[i].want, &err);
        if (strstr(err.msg, cases[i].needle) == NULL)
            fail_msg("case %zu: message \"%s\" lacks \"%s\"", i, err.msg, cases[i].needle);
        CF_ASSERT_STATUS(cf_iter_seek_to_ordinal(f.it, 160, &err), cases[i].want, &err);
        close_file(&f);
        free(m.data);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        /* First, on a fresh heap: its slot tables are then big enough to be
         * mmapped, so a read after free of one faults even without ASan. */
        cmocka_unit_test(test_compression__dictionary_many_distinct_strings),
        cmocka_unit_test(test_compression__round_trip_every_encoding),
        cmocka_unit_test(test_compression__value_index_round_trip),
        cmocka_unit_test(test_compression__exact_bytes_14_11),
        cmocka_unit_test(test_compression__incompressible_block_stored_raw),
        cmocka_unit_test(test_compression__compressible_block_compressed),
        cmocka_unit_test(test_compression__index_blocks_compressed),
        cmocka_unit_test(test_compression__dictionary_block_compressed),
        cmocka_unit_test(test_compression__default_is_none),
        cmocka_unit_test(test_compression__checksum_covers_compressed_bytes),
        cmocka_unit_test(test_compression__flips_without_checksums),
        cmocka_unit_test(test_compression__lying_uncompressed_size),
        cmocka_unit_test(test_compression__lying_index_block),
        cmocka_unit_test(test_compression__decompression_bomb),
        cmocka_unit_test(test_compression__writer_block_limit),
        cmocka_unit_test(test_compression__uncompressed_block_over_16mib),
        cmocka_unit_test(test_compression__crafted_nullable_bitmap),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
