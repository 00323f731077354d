/* The encoder parts PLAIN (plain.c) and PLAIN BOOL (plain_bool.c) share: a
 * block built behind an 8-byte header placeholder (block_header.h), reset,
 * fullness, count and finish. Each encoding keeps its own add (how values
 * become bytes) and its own decoder; this file must not know either layout. */
#include "block_header.h"

#include <string.h>

#include "util/alloc.h"

cf_status cf_counted_enc_create(cf_counted_enc **out, size_t size, const cf_encoder_ops *ops,
                                const cf_enc_params *p, size_t reserve, const char *name,
                                cf_error *err)
{
    *out = NULL;
    cf_counted_enc *c = cf_calloc(1, size);
    CF_CHECK(c != NULL, err, CF_ENOMEM, "%s: out of memory creating encoder", name);
    c->base.ops = ops;
    c->block_size = p->block_size;
    c->name = name;
    cf_buf_init(&c->buf);
    if (reserve > 0)
        cf_buf_reserve(&c->buf, reserve + CF_ENC_COUNTED_HEADER);
    cf_counted_enc_reset(&c->base);
    *out = c;
    return CF_OK;
}

void cf_counted_enc_free(cf_encoder *e)
{
    cf_counted_enc *c = (cf_counted_enc *)e;
    if (c == NULL)
        return;
    cf_buf_dispose(&c->buf);
    cf_free(c);
}

void cf_counted_enc_reset(cf_encoder *e)
{
    cf_counted_enc *c = (cf_counted_enc *)e;
    cf_buf_clear(&c->buf);
    uint8_t *h = cf_buf_extend(&c->buf, CF_ENC_COUNTED_HEADER);
    if (h)
        memset(h, 0, CF_ENC_COUNTED_HEADER);
    c->count = 0;
}

bool cf_counted_enc_is_full(const cf_encoder *e)
{
    const cf_counted_enc *c = (const cf_counted_enc *)e;
    /* A failed append ends the block at once; finish then reports CF_ENOMEM. */
    return c->buf.len > c->block_size || c->buf.oom;
}

size_t cf_counted_enc_count(const cf_encoder *e)
{
    return ((const cf_counted_enc *)e)->count;
}

cf_status cf_counted_enc_finish(cf_encoder *e, uint32_t first_ord, cf_slice *out, cf_error *err)
{
    cf_counted_enc *c = (cf_counted_enc *)e;
    return cf_enc_finish_counted(&c->buf, c->count, first_ord, c->name, out, err);
}
