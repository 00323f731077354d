/* Fuzz the Parquet page value decoder (src/parquet/values.c, delta.c).
 * Input: [pair selector][type length][count x2][seed x4] then the page's
 * value section. The selector picks an (encoding, physical type) pair the
 * decoder accepts, or (above their number) any raw pair, which must be
 * refused cleanly. Values are fetched in batches of seeded sizes; a page
 * that decodes is then encoded with our encoder and decoded again, and must
 * give the same values (every encoder here is canonical for that: it takes
 * any value the decoder can produce). */
/* cf-needs: parquet */
#include "fuzz.h"

#include <string.h>

#include "parquet/encoding.h"
#include "util/buf.h"

#define NPAIRS CF_PQ_VALUE_PAIR_COUNT

/* Decode all n values in seeded batches into out (n * w bytes); binary
 * values are copied to *heap so they outlive the decoder's arena. */
static cf_status decode(unsigned enc, unsigned type, int32_t tl, const uint8_t *p, size_t len,
                        size_t n, uint32_t seed, uint8_t *out, cf_buf *heap, cf_error *err)
{
    cf_pq_decoder d;
    size_t w = cf_pq_value_size(type, tl);
    cf_status st = cf_pq_decoder_init(&d, enc, type, tl, p, len, n, err);
    fuzz_rng r = {seed};
    size_t done = 0;
    while (st == CF_OK && done < n) {
        size_t k = 1 + fuzz_rng_below(&r, 512);
        if (k > n - done)
            k = n - done;
        st = cf_pq_decoder_get(&d, out + done * w, k, err);
        if (st == CF_OK && type == CF_PQT_BYTE_ARRAY) {
            cf_slice *s = (cf_slice *)(void *)(out + done * w);
            for (size_t i = 0; i < k; i++) {
                /* offsets for now: the heap may move while it grows */
                size_t at = heap->len;
                cf_buf_append(heap, s[i].data, s[i].len);
                FUZZ_REQUIRE(!heap->oom);
                s[i].data = (const uint8_t *)(uintptr_t)at;
            }
        }
        if (st == CF_OK)
            done += k;
    }
    if (st == CF_OK) {
        FUZZ_REQUIRE(cf_pq_decoder_left(&d) == 0);
        if (type == CF_PQT_BYTE_ARRAY) {
            cf_slice *s = (cf_slice *)(void *)out;
            for (size_t i = 0; i < n; i++) /* all empty: no heap at all */
                s[i].data = heap->data ? heap->data + (uintptr_t)s[i].data : s[i].data;
        }
    }
    cf_pq_decoder_dispose(&d);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    uint8_t sel = fuzz_u8(&in);
    int32_t tl = fuzz_u8(&in) % 40;
    size_t n = fuzz_u16(&in) % 8192;
    uint32_t seed = fuzz_u32(&in);
    unsigned enc, type;
    if (sel < 2 * NPAIRS) {
        enc = cf_pq_value_pairs[sel % NPAIRS].encoding;
        type = cf_pq_value_pairs[sel % NPAIRS].type;
    } else {
        enc = sel & 15;
        type = (sel >> 4) & 7;
    }
    size_t w = cf_pq_value_size(type, tl);
    if (w == 0)
        w = 1;
    uint8_t *p = fuzz_dup(in.data, in.size);
    uint8_t *vals = malloc(n * w + 1), *back = malloc(n * w + 1);
    cf_buf heap, heap2, enc_out;
    cf_buf_init(&heap);
    cf_buf_init(&heap2);
    cf_buf_init(&enc_out);
    cf_error err;
    cf_status st = decode(enc, type, tl, p, in.size, n, seed, vals, &heap, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        goto out;
    }
    /* Valid booleans are 0 or 1; every value fits its form. */
    if (type == CF_PQT_BOOLEAN)
        for (size_t i = 0; i < n; i++)
            FUZZ_REQUIRE(vals[i] <= 1);
    st = cf_pq_encode(&enc_out, enc, type, tl, vals, n, &err);
    FUZZ_REQUIRE_MSG(st == CF_OK, &err);
    st = decode(enc, type, tl, enc_out.data, enc_out.len, n, seed ^ 0x5a5a, back, &heap2, &err);
    FUZZ_REQUIRE_MSG(st == CF_OK, &err);
    if (type == CF_PQT_BYTE_ARRAY) {
        const cf_slice *a = (const cf_slice *)(void *)vals, *b = (const cf_slice *)(void *)back;
        for (size_t i = 0; i < n; i++)
            FUZZ_REQUIRE(a[i].len == b[i].len &&
                         (a[i].len == 0 || memcmp(a[i].data, b[i].data, a[i].len) == 0));
    } else {
        FUZZ_REQUIRE(n == 0 || memcmp(vals, back, n * w) == 0);
    }
out:
    cf_buf_dispose(&heap);
    cf_buf_dispose(&heap2);
    cf_buf_dispose(&enc_out);
    free(vals);
    free(back);
    free(p);
    return 0;
}
