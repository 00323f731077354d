/* Internal: a growable byte buffer. Appends report CF_ENOMEM through the sticky
 * `oom` flag so that encoders can append many pieces and check once. */
#ifndef CF_UTIL_BUF_H
#define CF_UTIL_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/status.h>

typedef struct cf_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    bool oom; /* an append failed; contents are then incomplete */
} cf_buf;

void cf_buf_init(cf_buf *b);
void cf_buf_dispose(cf_buf *b);
/* Forget the contents, keep the memory (and clear oom). */
static inline void cf_buf_clear(cf_buf *b)
{
    b->len = 0;
    b->oom = false;
}
/* Ensure room for `extra` more bytes. false (and oom set) on failure. */
bool cf_buf_reserve(cf_buf *b, size_t extra);
/* Grow len by n bytes (uninitialized); returns a pointer to them or NULL. */
uint8_t *cf_buf_extend(cf_buf *b, size_t n);
void cf_buf_append(cf_buf *b, const void *src, size_t n);
void cf_buf_put_u8(cf_buf *b, uint8_t v);
void cf_buf_put_le32(cf_buf *b, uint32_t v);
void cf_buf_put_le64(cf_buf *b, uint64_t v);
void cf_buf_put_be32(cf_buf *b, uint32_t v);
void cf_buf_put_varint32(cf_buf *b, uint32_t v);
void cf_buf_put_varint64(cf_buf *b, uint64_t v);
/* CF_ENOMEM if any append failed since the last clear, else CF_OK. */
static inline cf_status cf_buf_status(const cf_buf *b)
{
    return b->oom ? CF_ENOMEM : CF_OK;
}

#endif
