#include "buf.h"

#include <string.h>

#include "alloc.h"
#include "endian.h"
#include "varint.h"

void cf_buf_init(cf_buf *b)
{
    memset(b, 0, sizeof *b);
}

void cf_buf_dispose(cf_buf *b)
{
    cf_free(b->data);
    memset(b, 0, sizeof *b);
}

bool cf_buf_reserve(cf_buf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (extra <= b->cap - b->len)
        return true;
    size_t need;
    if (!cf_add_ok(b->len, extra, &need)) {
        b->oom = true;
        return false;
    }
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *p = cf_realloc(b->data, cap);
    if (p == NULL) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

uint8_t *cf_buf_extend(cf_buf *b, size_t n)
{
    /* Reserve at least one byte so that extending by zero still returns a
     * usable (non-NULL) pointer: NULL means out of memory to callers. */
    if (!cf_buf_reserve(b, n ? n : 1))
        return NULL;
    uint8_t *p = b->data + b->len;
    b->len += n;
    return p;
}

void cf_buf_append(cf_buf *b, const void *src, size_t n)
{
    if (n == 0)
        return;
    uint8_t *p = cf_buf_extend(b, n);
    if (p)
        memcpy(p, src, n);
}

void cf_buf_put_u8(cf_buf *b, uint8_t v)
{
    cf_buf_append(b, &v, 1);
}

void cf_buf_put_le32(cf_buf *b, uint32_t v)
{
    uint8_t *p = cf_buf_extend(b, 4);
    if (p)
        cf_store_le32(p, v);
}

void cf_buf_put_le64(cf_buf *b, uint64_t v)
{
    uint8_t *p = cf_buf_extend(b, 8);
    if (p)
        cf_store_le64(p, v);
}

void cf_buf_put_be32(cf_buf *b, uint32_t v)
{
    uint8_t *p = cf_buf_extend(b, 4);
    if (p)
        cf_store_be32(p, v);
}

void cf_buf_put_varint32(cf_buf *b, uint32_t v)
{
    uint8_t tmp[5];
    cf_buf_append(b, tmp, cf_varint32_encode(tmp, v));
}

void cf_buf_put_varint64(cf_buf *b, uint64_t v)
{
    uint8_t tmp[10];
    cf_buf_append(b, tmp, cf_varint64_encode(tmp, v));
}
