/* The positional seek (encoding.h: seek) that PLAIN, PLAIN BOOL, PLAIN
 * BINARY, BIT_SHUFFLE, PREFIX and GROUP_VARINT decoders share: their next()
 * decodes from any index, so a seek only checks the index and moves there.
 * It must not touch any decoder's own state (RLE and DICT seek their own
 * way). */
#include "encodings.h"
#include "util/error.h"

cf_status cf_dec_seek_positional(cf_decoder *d, size_t idx, cf_error *err)
{
    CF_CHECK(idx <= d->count, err, CF_EINVAL, "%s block: seek to %zu past %zu values",
             cf_encoding_name(d->ops->encoding), idx, d->count);
    d->pos = idx;
    return CF_OK;
}
