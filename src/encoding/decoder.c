/* What every block decoder's life cycle shares (encoding.h): allocating the
 * decoder, freeing one that owns nothing beyond itself, and the positional
 * seek of decoders whose next() decodes from any index (PLAIN, PLAIN BOOL,
 * PLAIN BINARY, BIT_SHUFFLE, PREFIX, GROUP_VARINT). It must not know any
 * encoding's state or layout (RLE and DICT seek their own way). */
#include "encodings.h"
#include "util/alloc.h"
#include "util/error.h"

cf_status cf_dec_new(cf_decoder **out, size_t size, const cf_decoder_ops *ops, const char *name,
                     cf_error *err)
{
    cf_decoder *d = cf_calloc(1, size);
    CF_CHECK(d != NULL, err, CF_ENOMEM, "%s: out of memory creating decoder", name);
    d->ops = ops;
    *out = d;
    return CF_OK;
}

void cf_dec_free_flat(cf_decoder *d)
{
    cf_free(d);
}

/* The refusal apart, so that the seek itself stays a leaf: a cached seek calls
 * it for every value it reads, and the message's call made every seek pay
 * for a stack frame (5 instructions a seek, callgrind). */
__attribute__((cold, noinline)) static cf_status seek_past(const cf_decoder *d, size_t idx,
                                                           cf_error *err)
{
    CF_FAIL(err, CF_EINVAL, "%s block: seek to %zu past %zu values",
            cf_encoding_name(d->ops->encoding), idx, d->count);
}

cf_status cf_dec_seek_positional(cf_decoder *d, size_t idx, cf_error *err)
{
    if (idx > d->count)
        return seek_past(d, idx, err);
    d->pos = idx;
    return CF_OK;
}
