/* Data block layouts (format §6), both directions: block_layout.h. */
#include "block_layout.h"

#include "util/bitmap.h"
#include "util/varint.h"

/* ---- writing ----------------------------------------------------------------------- */

void cf_block_layout_writer_init(cf_block_layout_writer *w, cf_block_layout_kind kind)
{
    w->kind = kind;
    w->rows = 0;
    w->elems = 0;
    cf_rle_enc_init(&w->nonnull, 1);
    cf_rle_enc_init(&w->elem_nonnull, 1);
    cf_rle_enc_init(&w->elem_counts, 16);
}

void cf_block_layout_writer_dispose(cf_block_layout_writer *w)
{
    cf_rle_enc_dispose(&w->nonnull);
    cf_rle_enc_dispose(&w->elem_nonnull);
    cf_rle_enc_dispose(&w->elem_counts);
}

void cf_block_layout_writer_reset(cf_block_layout_writer *w)
{
    cf_rle_enc_reset(&w->nonnull);
    cf_rle_enc_reset(&w->elem_nonnull);
    cf_rle_enc_reset(&w->elem_counts);
    w->rows = 0;
    w->elems = 0;
}

/* A varint32 length, then the finished stream. */
static void put_stream(cf_buf *b, const cf_rle_encoder *e)
{
    cf_buf_put_varint32(b, (uint32_t)e->out.len);
    cf_buf_append(b, e->out.data, e->out.len);
}

cf_status cf_block_layout_writer_finish(cf_block_layout_writer *w, cf_slice encoded, cf_buf *buf,
                                        cf_slice *out, cf_error *err)
{
    if (w->kind == CF_LAYOUT_PLAIN) {
        *out = encoded;
        return CF_OK;
    }
    cf_buf_clear(buf);
    CF_TRY(cf_rle_enc_finish(&w->nonnull));
    if (w->kind == CF_LAYOUT_ARRAY) {
        CF_TRY(cf_rle_enc_finish(&w->elem_nonnull));
        CF_TRY(cf_rle_enc_finish(&w->elem_counts));
        cf_buf_put_varint32(buf, w->elems);
        cf_buf_put_varint32(buf, w->rows);
        put_stream(buf, &w->elem_nonnull);
        put_stream(buf, &w->elem_counts);
        put_stream(buf, &w->nonnull);
    } else {
        cf_buf_put_varint32(buf, w->rows);
        put_stream(buf, &w->nonnull);
    }
    cf_buf_append(buf, encoded.data, encoded.len);
    CF_CHECK(!buf->oom, err, CF_ENOMEM, "out of memory assembling a data block");
    *out = (cf_slice){buf->data, buf->len};
    return CF_OK;
}

/* ---- reading ----------------------------------------------------------------------- */

/* Read a varint32-length-prefixed section. */
static bool take_section(const uint8_t **p, const uint8_t *end, cf_slice *out)
{
    uint32_t len;
    const uint8_t *q = cf_varint32_decode(*p, end, &len);
    if (q == NULL || len > (size_t)(end - q))
        return false;
    *out = (cf_slice){q, len};
    *p = q + len;
    return true;
}

/* Does an RLE stream of this width hold at least n values? Checked before
 * anything is sized by n: a repeated run can claim billions of values in a few
 * bytes, so a claim is believed only once the stream backs it (the counts are
 * also bounded by the footer's row count). */
static bool stream_holds(cf_slice s, unsigned width, size_t n)
{
    cf_rle_decoder d;
    cf_rle_dec_init(&d, s.data, s.len, width);
    return cf_rle_dec_skip(&d, n, NULL) == n;
}

/* A block's decoded flags and counts are sized by the counts it claims, and a
 * repeated RLE run can claim billions of rows in a few bytes. Keep that state
 * within the reader's block limit (max_block_len, 16 MiB by default: over 130
 * million rows per block), so no file can make us allocate more than that. */
static cf_status check_decoded_size(const cf_block_layout_limits *lim, uint64_t bytes,
                                    const char *what, cf_error *err)
{
    if (bytes <= lim->max_decoded_len)
        return CF_OK;
    CF_FAIL(err, CF_ENOTSUP,
            "%s need %llu bytes decoded, over the reader's %zu-byte block limit "
            "(cf_reader_options.max_block_len)",
            what, (unsigned long long)bytes, lim->max_decoded_len);
}

static cf_status parse_nullable(cf_block_layout *l, const uint8_t *p, const uint8_t *end,
                                const cf_block_layout_limits *lim, cf_error *err)
{
    p = cf_varint32_decode(p, end, &l->rows);
    if (p == NULL || !take_section(&p, end, &l->nonnull))
        CF_FAIL(err, CF_ECORRUPT, "nullable block header is truncated");
    if (l->rows > lim->max_rows)
        CF_FAIL(err, CF_ECORRUPT, "claims %u rows but the file has %llu", l->rows,
                (unsigned long long)lim->max_rows);
    if ((uint64_t)l->rows / 8 > lim->max_decoded_len) {
        /* A claim this large is first checked against the stream (a lie is
         * corruption), then refused only if true. */
        if (!stream_holds(l->nonnull, 1, l->rows))
            CF_FAIL(err, CF_ECORRUPT, "non-null bitmap holds fewer than its %u rows", l->rows);
        CF_TRY(check_decoded_size(lim, (uint64_t)l->rows / 8, "its rows' null flags", err));
    }
    l->encoded = (cf_slice){p, (size_t)(end - p)};
    return CF_OK;
}

static cf_status parse_array(cf_block_layout *l, const uint8_t *p, const uint8_t *end,
                             const cf_block_layout_limits *lim, cf_error *err)
{
    uint32_t flat, cells;
    p = cf_varint32_decode(p, end, &flat);
    if (p)
        p = cf_varint32_decode(p, end, &cells);
    if (p == NULL || !take_section(&p, end, &l->elem_nonnull) ||
        !take_section(&p, end, &l->elem_counts) || !take_section(&p, end, &l->nonnull))
        CF_FAIL(err, CF_ECORRUPT, "array block header is truncated");
    if (cells > lim->max_rows)
        CF_FAIL(err, CF_ECORRUPT, "claims %u cells but the file has %llu", cells,
                (unsigned long long)lim->max_rows);
    /* Every element costs at least one bit of the element bitmap stream unless
     * it is in a repeated run; bound the claim by what u16 counts allow. */
    if ((uint64_t)flat > (uint64_t)cells * 65535u)
        CF_FAIL(err, CF_ECORRUPT, "claims %u elements in %u cells", flat, cells);
    if (!stream_holds(l->elem_nonnull, 1, flat))
        CF_FAIL(err, CF_ECORRUPT, "element bitmap holds fewer than its %u elements", flat);
    if (!stream_holds(l->nonnull, 1, cells))
        CF_FAIL(err, CF_ECORRUPT, "cell bitmap holds fewer than its %u cells", cells);
    if (!stream_holds(l->elem_counts, 16, cells))
        CF_FAIL(err, CF_ECORRUPT, "element counts hold fewer than its %u cells", cells);
    /* bitmaps, u16 counts and u32 offsets per cell */
    CF_TRY(check_decoded_size(lim, (uint64_t)flat / 8 + (uint64_t)cells * 6 + (uint64_t)cells / 8,
                              "its cells and elements", err));
    l->rows = cells;
    l->elems = flat;
    l->encoded = (cf_slice){p, (size_t)(end - p)};
    return CF_OK;
}

cf_status cf_block_layout_parse_headed(cf_block_layout *out, cf_block_layout_kind kind,
                                       cf_slice data, const cf_block_layout_limits *lim,
                                       cf_error *err)
{
    *out = (cf_block_layout){.kind = kind};
    const uint8_t *p = data.data, *end = p + data.len;
    if (kind == CF_LAYOUT_ARRAY)
        return parse_array(out, p, end, lim, err);
    return parse_nullable(out, p, end, lim, err);
}

bool cf_block_layout_rows_backed(const cf_block_layout *l)
{
    return stream_holds(l->nonnull, 1, l->rows);
}

/* Decode n flags of an RLE_1 stream into bits; false when it holds fewer. */
static bool decode_flags(cf_slice s, size_t n, uint8_t *bits)
{
    cf_rle_decoder d;
    cf_rle_dec_init(&d, s.data, s.len, 1);
    return cf_rle_dec_bitmap(&d, bits, n) == n;
}

cf_status cf_block_layout_decode_nonnull(const cf_block_layout *l, uint8_t *bits, cf_error *err)
{
    if (decode_flags(l->nonnull, l->rows, bits))
        return CF_OK;
    if (l->kind == CF_LAYOUT_NULLABLE)
        CF_FAIL(err, CF_ECORRUPT, "non-null bitmap holds fewer than its %u rows", l->rows);
    CF_FAIL(err, CF_ECORRUPT, "bitmap stream ends before its %zu flags", (size_t)l->rows);
}

cf_status cf_block_layout_decode_elem_nonnull(const cf_block_layout *l, uint8_t *bits,
                                              cf_error *err)
{
    if (decode_flags(l->elem_nonnull, l->elems, bits))
        return CF_OK;
    CF_FAIL(err, CF_ECORRUPT, "bitmap stream ends before its %zu flags", (size_t)l->elems);
}

cf_status cf_block_layout_decode_cells(const cf_block_layout *l, uint16_t *counts,
                                       uint32_t *offsets, cf_error *err)
{
    uint32_t cells = l->rows, flat = l->elems;
    cf_rle_decoder d;
    cf_rle_dec_init(&d, l->elem_counts.data, l->elem_counts.len, 16);
    if (cf_rle_dec_get(&d, counts, 2, cells) != cells)
        CF_FAIL(err, CF_ECORRUPT, "element counts hold fewer than its %u cells", cells);
    /* format §6.3: cells are consecutive; the last one ends at flat_count. */
    uint64_t start = 0;
    for (uint32_t i = 0; i < cells; i++) {
        if (start > flat)
            CF_FAIL(err, CF_ECORRUPT, "cell %u starts at element %llu, past the %u elements", i,
                    (unsigned long long)start, flat);
        offsets[i] = (uint32_t)start;
        start += counts[i];
    }
    offsets[cells] = flat;
    return CF_OK;
}
