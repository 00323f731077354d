/* Shared by the encoding tests: see support_codec.h. */
#include "support_codec.h"

#include <stdlib.h>

#include "test_common.h"

cf_encoder *enc_create(const cf_encoder_ops *ops, cf_type t, uint32_t block_size)
{
    cf_enc_params p = {
        .type = t, .elem_size = cf_type_size(t), .block_size = block_size, .restart_interval = 16};
    cf_encoder *e = NULL;
    cf_error err;
    CF_ASSERT_OK(ops->create(&e, &p, &err), &err);
    return e;
}

cf_decoder *dec_create(const cf_decoder_ops *ops, cf_type t)
{
    cf_dec_params p = {.type = t, .elem_size = cf_type_size(t), .dict = NULL};
    cf_decoder *d = NULL;
    cf_error err;
    CF_ASSERT_OK(ops->create(&d, &p, &err), &err);
    return d;
}

cf_status dec_next_all(cf_decoder *d, size_t batch, cf_error *err)
{
    assert_true(batch <= 16);
    cf_slice got[16]; /* room for 16 values of any width up to 16 bytes */
    size_t g;
    cf_status st;
    do
        st = d->ops->next(d, got, batch, &g, err);
    while (st == CF_OK && g > 0);
    return st;
}

cf_status dec_seek_value(cf_decoder *d, const cf_slice *key, cf_error *err)
{
    bool exact;
    cf_status st = d->ops->seek_at_or_after(d, key, &exact, err);
    return st == CF_ENOTFOUND ? CF_OK : st;
}

cf_decoder *dec_open(cf_encoding enc, cf_type t, const uint8_t *data, size_t len)
{
    cf_dec_params p = {.type = t, .elem_size = cf_type_size(t)};
    cf_decoder *d = NULL;
    cf_error err;
    CF_ASSERT_OK(cf_decoder_open(&d, enc, &p, data, len, &err), &err);
    return d;
}

void dec_expect_values(cf_decoder *d, const void *want, size_t n, size_t es)
{
    assert_int_equal(d->count, n);
    assert_true(n < 16 && es <= 16);
    uint8_t got[16 * 16]; /* up to 16 values of up to 16 bytes */
    size_t g;
    cf_error err;
    CF_ASSERT_OK(d->ops->next(d, got, n + 1, &g, &err), &err);
    assert_int_equal(g, n);
    assert_memory_equal(got, want, n * es);
    CF_ASSERT_OK(d->ops->next(d, got, 1, &g, &err), &err);
    assert_int_equal(g, 0);
}

cf_status dec_try(cf_encoding enc, const cf_dec_params *p, const uint8_t *data, size_t len,
                  size_t batch, dec_more_fn more, cf_error *err)
{
    uint8_t *copy = cf_test_dup(data, len);
    cf_decoder *d = NULL;
    cf_status st = cf_decoder_open(&d, enc, p, copy, len, err);
    if (st == CF_OK && batch > 0)
        st = dec_next_all(d, batch, err);
    if (st == CF_OK && more != NULL)
        st = more(d, copy, len, err);
    cf_decoder_free(d);
    free(copy);
    return st;
}

bool dec_expect_seek(cf_decoder *d, const void *key, size_t want, size_t n, bool want_exact)
{
    bool exact = !want_exact;
    cf_error err;
    cf_status st = d->ops->seek_at_or_after(d, key, &exact, &err);
    assert_int_equal(d->pos, want);
    if (want == n) {
        CF_ASSERT_STATUS(st, CF_ENOTFOUND, &err);
        return false;
    }
    CF_ASSERT_OK(st, &err);
    assert_int_equal(exact, want_exact);
    return true;
}

void dec_expect_hex(dec_check_fn check, const char *hex, cf_status want)
{
    uint8_t blk[256];
    size_t len = cf_test_unhex(hex, blk, sizeof blk);
    cf_error err;
    CF_ASSERT_STATUS(check(blk, len, &err), want, &err);
}
