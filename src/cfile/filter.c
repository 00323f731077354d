/* Block filters (iter.h): a value test prepared once per file so that
 * cf_iter_block_at can rule data blocks out from their encoding alone. For a
 * DICT file the test is answered here for every dictionary entry, so a block
 * check only looks up codewords. */
#include "internal.h"

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"

cf_status cf_block_filter_create(cf_block_filter **out, const cf_reader *r, cf_value_test_fn fn,
                                 void *ctx, cf_error *err)
{
    *out = NULL;
    CF_CHECK(fn != NULL, err, CF_EINVAL, "block filter: no test function");
    CF_CHECK(!r->info.is_array, err, CF_EINVAL, "block filter: not for array columns");
    cf_block_filter *f = cf_calloc(1, sizeof *f);
    CF_CHECK(f != NULL, err, CF_ENOMEM, "block filter: out of memory");
    f->r = r;
    f->test.fn = fn;
    f->test.ctx = ctx;
    if (r->info.encoding == CF_ENC_DICT && r->dict.entries != NULL) {
        size_t n = r->dict.count;
        uint8_t *pass = cf_calloc(cf_bitmap_bytes(n) + 1, 1);
        if (pass == NULL) {
            cf_free(f);
            CF_FAIL(err, CF_ENOMEM, "block filter: out of memory for %zu dictionary entries", n);
        }
        for (size_t i = 0; i < n; i++)
            if (fn(ctx, &r->dict.entries[i]))
                pass[i >> 3] |= (uint8_t)(1u << (i & 7));
        f->test.dict_pass = pass;
    }
    *out = f;
    return CF_OK;
}

void cf_block_filter_free(cf_block_filter *f)
{
    if (f == NULL)
        return;
    cf_free((void *)f->test.dict_pass);
    cf_free(f);
}
