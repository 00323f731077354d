/* Data block layouts (src/cfile/block_layout.c, format §6): what the writer
 * side lays out the reader side parses back, byte for byte, and every claim a
 * damaged header can make is refused with the message the reader has always
 * given. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "cfile/block_layout.h"
#include "util/bitmap.h"
#include "util/varint.h"

static const uint8_t ENC[] = {0xe1, 0xe2, 0xe3, 0xe4, 0xe5};
static const cf_block_layout_limits LIM = {1u << 20, 16u << 20};

/* The expected bytes of a stream section: its length, then the stream. */
static void put_section(cf_buf *b, cf_rle_encoder *e)
{
    assert_int_equal(cf_rle_enc_finish(e), CF_OK);
    cf_buf_put_varint32(b, (uint32_t)e->out.len);
    cf_buf_append(b, e->out.data, e->out.len);
}

static void check_parse_fails(cf_block_layout_kind kind, const uint8_t *p, size_t len,
                              const cf_block_layout_limits *lim, cf_status want, const char *msg)
{
    cf_block_layout l;
    cf_error e;
    CF_ASSERT_STATUS(cf_block_layout_parse(&l, kind, (cf_slice){p, len}, lim, &e), want, &e);
    if (strcmp(e.msg, msg) != 0)
        fail_msg("got \"%s\", want \"%s\"", e.msg, msg);
}

static void test_block_layout__plain_is_the_encoded_block(void **state)
{
    (void)state;
    cf_block_layout_writer w;
    cf_block_layout_writer_init(&w, CF_LAYOUT_PLAIN);
    cf_buf buf;
    cf_buf_init(&buf);
    cf_slice out;
    cf_error e;
    CF_ASSERT_OK(cf_block_layout_writer_finish(&w, (cf_slice){ENC, sizeof ENC}, &buf, &out, &e),
                 &e);
    assert_ptr_equal(out.data, ENC); /* no copy */
    assert_int_equal(out.len, sizeof ENC);
    cf_block_layout l;
    CF_ASSERT_OK(cf_block_layout_parse(&l, CF_LAYOUT_PLAIN, out, &LIM, &e), &e);
    assert_ptr_equal(l.encoded.data, ENC);
    assert_int_equal(l.encoded.len, sizeof ENC);
    cf_buf_dispose(&buf);
    cf_block_layout_writer_dispose(&w);
}

static void test_block_layout__nullable_round_trip(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x6e11));
    cf_block_layout_writer w;
    cf_block_layout_writer_init(&w, CF_LAYOUT_NULLABLE);
    cf_rle_encoder ref;
    cf_rle_enc_init(&ref, 1);
    cf_buf buf, want;
    cf_buf_init(&buf);
    cf_buf_init(&want);
    for (int round = 0; round < 3; round++) { /* reset reuses the writer */
        cf_block_layout_writer_reset(&w);
        cf_rle_enc_reset(&ref);
        uint8_t flags[4096 / 8] = {0};
        size_t rows = 0;
        while (rows < 4000) {
            size_t n = 1 + cf_rng_below(&r, 40);
            bool present = cf_rng_below(&r, 3) != 0;
            cf_block_layout_writer_put_rows(&w, present, n);
            cf_rle_enc_put_run(&ref, present, n);
            if (present)
                cf_bitmap_fill(flags, rows, n, true);
            rows += n;
        }
        cf_slice out;
        cf_error e;
        CF_ASSERT_OK(cf_block_layout_writer_finish(&w, (cf_slice){ENC, sizeof ENC}, &buf, &out, &e),
                     &e);
        /* format §6.2: num_rows | bitmap length | RLE_1 flags | encoded */
        cf_buf_clear(&want);
        cf_buf_put_varint32(&want, (uint32_t)rows);
        put_section(&want, &ref);
        cf_buf_append(&want, ENC, sizeof ENC);
        CF_ASSERT_BYTES(out.data, out.len, want.data, want.len);

        cf_block_layout l;
        CF_ASSERT_OK(cf_block_layout_parse(&l, CF_LAYOUT_NULLABLE, out, &LIM, &e), &e);
        assert_int_equal(l.rows, rows);
        CF_ASSERT_BYTES(l.encoded.data, l.encoded.len, ENC, sizeof ENC);
        assert_true(cf_block_layout_rows_backed(&l));
        uint8_t *bits = calloc(cf_bitmap_bytes(rows) + 8, 1);
        CF_ASSERT_OK(cf_block_layout_decode_nonnull(&l, bits, &e), &e);
        CF_ASSERT_BYTES(bits, cf_bitmap_bytes(rows), flags, cf_bitmap_bytes(rows));
        free(bits);
    }
    cf_rle_enc_dispose(&ref);
    cf_buf_dispose(&buf);
    cf_buf_dispose(&want);
    cf_block_layout_writer_dispose(&w);
}

/* Cells: {1,2,NULL}, [], NULL, {4}, then 300 cells of 0..9 elements. */
static void test_block_layout__array_round_trip(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xa77a));
    cf_block_layout_writer w;
    cf_block_layout_writer_init(&w, CF_LAYOUT_ARRAY);
    cf_rle_encoder rcell, relem, rcount;
    cf_rle_enc_init(&rcell, 1);
    cf_rle_enc_init(&relem, 1);
    cf_rle_enc_init(&rcount, 16);
    uint32_t counts[304] = {3, 0, 0, 1};
    bool cell_present[304] = {true, true, false, true};
    for (int i = 4; i < 304; i++) {
        cell_present[i] = cf_rng_below(&r, 5) != 0;
        counts[i] = cell_present[i] ? (uint32_t)cf_rng_below(&r, 10) : 0;
    }
    uint8_t cflags[304 / 8 + 1] = {0}, eflags[304 * 10 / 8 + 1] = {0};
    uint32_t elems = 0;
    for (int i = 0; i < 304; i++) {
        cf_block_layout_writer_put_cell(&w, cell_present[i], counts[i]);
        cf_rle_enc_put(&rcell, cell_present[i]);
        cf_rle_enc_put(&rcount, counts[i]);
        if (cell_present[i])
            cf_bitmap_set(cflags, (size_t)i);
        for (uint32_t j = 0; j < counts[i]; j++) {
            bool ep = !(i == 0 && j == 2) && cf_rng_below(&r, 4) != 0;
            cf_block_layout_writer_put_elems(&w, ep, 1);
            cf_rle_enc_put(&relem, ep);
            if (ep)
                cf_bitmap_set(eflags, elems);
            elems++;
        }
    }
    cf_buf buf, want;
    cf_buf_init(&buf);
    cf_buf_init(&want);
    cf_slice out;
    cf_error e;
    CF_ASSERT_OK(cf_block_layout_writer_finish(&w, (cf_slice){ENC, sizeof ENC}, &buf, &out, &e),
                 &e);
    /* format §6.3: flat_count | array_count | element flags | counts | cell flags | encoded */
    cf_buf_put_varint32(&want, elems);
    cf_buf_put_varint32(&want, 304);
    put_section(&want, &relem);
    put_section(&want, &rcount);
    put_section(&want, &rcell);
    cf_buf_append(&want, ENC, sizeof ENC);
    CF_ASSERT_BYTES(out.data, out.len, want.data, want.len);

    cf_block_layout l;
    CF_ASSERT_OK(cf_block_layout_parse(&l, CF_LAYOUT_ARRAY, out, &LIM, &e), &e);
    assert_int_equal(l.rows, 304);
    assert_int_equal(l.elems, elems);
    CF_ASSERT_BYTES(l.encoded.data, l.encoded.len, ENC, sizeof ENC);
    uint8_t cbits[304 / 8 + 9] = {0}, ebits[304 * 10 / 8 + 9] = {0};
    CF_ASSERT_OK(cf_block_layout_decode_nonnull(&l, cbits, &e), &e);
    CF_ASSERT_BYTES(cbits, cf_bitmap_bytes(304), cflags, cf_bitmap_bytes(304));
    CF_ASSERT_OK(cf_block_layout_decode_elem_nonnull(&l, ebits, &e), &e);
    CF_ASSERT_BYTES(ebits, cf_bitmap_bytes(elems), eflags, cf_bitmap_bytes(elems));
    uint16_t got_counts[305];
    uint32_t offsets[305];
    CF_ASSERT_OK(cf_block_layout_decode_cells(&l, got_counts, offsets, &e), &e);
    uint32_t start = 0;
    for (int i = 0; i < 304; i++) {
        assert_int_equal(got_counts[i], counts[i]);
        assert_int_equal(offsets[i], start);
        start += counts[i];
    }
    assert_int_equal(offsets[304], elems);
    cf_rle_enc_dispose(&rcell);
    cf_rle_enc_dispose(&relem);
    cf_rle_enc_dispose(&rcount);
    cf_buf_dispose(&buf);
    cf_buf_dispose(&want);
    cf_block_layout_writer_dispose(&w);
}

/* Every cut inside a header (before the encoded block) is "truncated"; a cut
 * inside the encoded block is the encoding's business. */
static void test_block_layout__truncated_headers(void **state)
{
    (void)state;
    cf_block_layout_writer w;
    cf_buf buf;
    cf_buf_init(&buf);
    cf_error e;
    const cf_block_layout_kind kinds[] = {CF_LAYOUT_NULLABLE, CF_LAYOUT_ARRAY};
    const char *msgs[] = {"nullable block header is truncated", "array block header is truncated"};
    for (int k = 0; k < 2; k++) {
        cf_block_layout_writer_init(&w, kinds[k]);
        for (uint32_t i = 0; i < 50; i++) {
            if (kinds[k] == CF_LAYOUT_ARRAY) {
                cf_block_layout_writer_put_cell(&w, true, i % 3);
                cf_block_layout_writer_put_elems(&w, i % 2, i % 3);
            } else {
                cf_block_layout_writer_put_rows(&w, i % 3 != 0, 1);
            }
        }
        cf_slice out;
        CF_ASSERT_OK(cf_block_layout_writer_finish(&w, (cf_slice){ENC, sizeof ENC}, &buf, &out, &e),
                     &e);
        size_t header = out.len - sizeof ENC;
        for (size_t cut = 0; cut < header; cut++)
            check_parse_fails(kinds[k], out.data, cut, &LIM, CF_ECORRUPT, msgs[k]);
        cf_block_layout l;
        for (size_t cut = header; cut <= out.len; cut++) {
            CF_ASSERT_OK(cf_block_layout_parse(&l, kinds[k], (cf_slice){out.data, cut}, &LIM, &e),
                         &e);
            assert_int_equal(l.encoded.len, cut - header);
        }
        cf_block_layout_writer_dispose(&w);
    }
    cf_buf_dispose(&buf);
}

/* Hand-made headers with claims the streams or the file do not back. */
static void test_block_layout__claims(void **state)
{
    (void)state;
    uint8_t b[64];
    cf_block_layout_limits small = {100, 1024};
    /* nullable: 200 rows in a 100-row file */
    uint8_t *p = b;
    p += cf_varint32_encode(p, 200);
    *p++ = 0;
    check_parse_fails(CF_LAYOUT_NULLABLE, b, (size_t)(p - b), &small, CF_ECORRUPT,
                      "claims 200 rows but the file has 100");
    /* nullable: a claim past the decoded-size limit, with an empty stream */
    cf_block_layout_limits tiny = {1u << 30, 16};
    p = b;
    p += cf_varint32_encode(p, 1000);
    *p++ = 0;
    check_parse_fails(CF_LAYOUT_NULLABLE, b, (size_t)(p - b), &tiny, CF_ECORRUPT,
                      "non-null bitmap holds fewer than its 1000 rows");
    /* ... and backed by one repeated run (RLE_1: varint (1000 << 1), then the byte 1) */
    p = b;
    p += cf_varint32_encode(p, 1000);
    *p++ = 3;
    p += cf_varint32_encode(p, 1000u << 1);
    *p++ = 1;
    check_parse_fails(CF_LAYOUT_NULLABLE, b, (size_t)(p - b), &tiny, CF_ENOTSUP,
                      "its rows' null flags need 125 bytes decoded, over the reader's 16-byte "
                      "block limit (cf_reader_options.max_block_len)");
    cf_block_layout l;
    cf_error e;
    CF_ASSERT_OK(
        cf_block_layout_parse(&l, CF_LAYOUT_NULLABLE, (cf_slice){b, (size_t)(p - b)}, &LIM, &e),
        &e);
    assert_true(cf_block_layout_rows_backed(&l));
    l.rows = 1001;
    assert_false(cf_block_layout_rows_backed(&l));
    uint8_t bits[1001 / 8 + 9] = {0};
    CF_ASSERT_STATUS(cf_block_layout_decode_nonnull(&l, bits, &e), CF_ECORRUPT, &e);
    assert_string_equal(e.msg, "non-null bitmap holds fewer than its 1001 rows");

    /* arrays: more cells than the file has rows (varint 200 = c8 01) */
    uint8_t a[] = {0, 0xc8, 0x01, 0, 0, 0};
    check_parse_fails(CF_LAYOUT_ARRAY, a, sizeof a, &small, CF_ECORRUPT,
                      "claims 200 cells but the file has 100");
    /* arrays: more elements than u16 counts allow */
    uint8_t a2[] = {0x80, 0x80, 0x04, 1, 0, 0, 0};
    check_parse_fails(CF_LAYOUT_ARRAY, a2, sizeof a2, &LIM, CF_ECORRUPT,
                      "claims 65536 elements in 1 cells");
    /* arrays: 2 cells, 3 elements, streams that hold too little, one at a time */
    uint8_t a3[] = {3, 2, 0, 0, 0};
    check_parse_fails(CF_LAYOUT_ARRAY, a3, sizeof a3, &LIM, CF_ECORRUPT,
                      "element bitmap holds fewer than its 3 elements");
    /* element flags: repeated run of 3 x 1; cell flags empty */
    uint8_t a4[] = {3, 2, 2, 6, 1, 0, 0};
    check_parse_fails(CF_LAYOUT_ARRAY, a4, sizeof a4, &LIM, CF_ECORRUPT,
                      "cell bitmap holds fewer than its 2 cells");
    /* cell flags: repeated run of 2 x 1; counts empty */
    uint8_t a5[] = {3, 2, 2, 6, 1, 0, 2, 4, 1};
    check_parse_fails(CF_LAYOUT_ARRAY, a5, sizeof a5, &LIM, CF_ECORRUPT,
                      "element counts hold fewer than its 2 cells");
    /* counts: repeated run of 2 x 5 (u16): cell 1 starts at 5, past 3 elements */
    uint8_t a6[] = {3, 2, 2, 6, 1, 3, 4, 5, 0, 2, 4, 1};
    CF_ASSERT_OK(cf_block_layout_parse(&l, CF_LAYOUT_ARRAY, (cf_slice){a6, sizeof a6}, &LIM, &e),
                 &e);
    uint16_t counts[3];
    uint32_t offsets[3];
    CF_ASSERT_STATUS(cf_block_layout_decode_cells(&l, counts, offsets, &e), CF_ECORRUPT, &e);
    assert_string_equal(e.msg, "cell 1 starts at element 5, past the 3 elements");
    /* the decoded size limit: 3 elements, 2 cells need 0 + 12 + 0 bytes */
    cf_block_layout_limits eleven = {100, 11};
    check_parse_fails(CF_LAYOUT_ARRAY, a6, sizeof a6, &eleven, CF_ENOTSUP,
                      "its cells and elements need 12 bytes decoded, over the reader's 11-byte "
                      "block limit (cf_reader_options.max_block_len)");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_layout__plain_is_the_encoded_block),
        cmocka_unit_test(test_block_layout__nullable_round_trip),
        cmocka_unit_test(test_block_layout__array_round_trip),
        cmocka_unit_test(test_block_layout__truncated_headers),
        cmocka_unit_test(test_block_layout__claims),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
