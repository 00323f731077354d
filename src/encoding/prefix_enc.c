/* PREFIX encoder: front coding with restart points (prefix.h has the block
 * layout; format §8.7, writer fullness §10.2). Owns building a block: the
 * entries, the restart array and the header written in place at finish. It
 * must not know the decoder's state (prefix.h's prefix_dec): the block bytes
 * are the only contract between the two. */
#include <string.h>

#include "encodings.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/group_varint.h"
#include "util/varint.h"

/* The encoder keeps this much room in front of the entries so that finish can
 * write the header in place (a gvint group is at most 17 bytes). */
#define HDR_ROOM CF_GVINT_MAX_GROUP

typedef struct prefix_enc {
    cf_encoder base;
    uint32_t block_size;
    uint32_t interval;
    cf_buf buf;         /* HDR_ROOM spare bytes, then the entries; restarts at finish */
    uint32_t *restarts; /* offsets relative to the start of the entries area */
    size_t nrestarts, restarts_cap;
    cf_buf last; /* copy of the last value added, for the next call's prefix */
    size_t count;
    uint32_t since_restart;
    bool failed; /* allocation failed or a value was too long: finish reports it */
    cf_status fail_code;
    bool finished; /* out is the finished block, until reset */
    cf_slice out;
} prefix_enc;

static size_t entries_len(const prefix_enc *e)
{
    return e->buf.len - HDR_ROOM;
}

static void prefix_enc_reset(cf_encoder *e_)
{
    prefix_enc *e = (prefix_enc *)e_;
    e->buf.len = HDR_ROOM;
    e->nrestarts = 0;
    cf_buf_clear(&e->last);
    e->count = 0;
    e->since_restart = 0;
    e->finished = false;
}

static void prefix_enc_free(cf_encoder *e_)
{
    prefix_enc *e = (prefix_enc *)e_;
    if (e == NULL)
        return;
    cf_buf_dispose(&e->buf);
    cf_buf_dispose(&e->last);
    cf_free(e->restarts);
    cf_free(e);
}

static cf_status prefix_enc_create(cf_encoder **out, const cf_enc_params *p, cf_error *err)
{
    *out = NULL;
    CF_CHECK(p->elem_size == sizeof(cf_slice), err, CF_EINVAL,
             "prefix encoding: type %d is not a binary type", (int)p->type);
    CF_CHECK(p->restart_interval >= 1, err, CF_EINVAL,
             "prefix encoding: restart interval must be at least 1");
    prefix_enc *e = cf_calloc(1, sizeof *e);
    CF_CHECK(e != NULL, err, CF_ENOMEM, "prefix encoding: out of memory");
    e->base.ops = &cf_enc_prefix_ops;
    e->block_size = p->block_size;
    e->interval = p->restart_interval;
    cf_buf_init(&e->buf);
    cf_buf_init(&e->last);
    if (!cf_buf_reserve(&e->buf, HDR_ROOM + (size_t)p->block_size + 64)) {
        prefix_enc_free(&e->base);
        CF_FAIL(err, CF_ENOMEM, "prefix encoding: out of memory");
    }
    e->buf.len = HDR_ROOM;
    *out = &e->base;
    return CF_OK;
}

static size_t common_prefix(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen, i = 0;
    while (n - i >= 8) {
        uint64_t x = cf_load_le64(a + i) ^ cf_load_le64(b + i);
        if (x != 0)
            return i + ((size_t)__builtin_ctzll(x) >> 3);
        i += 8;
    }
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

static void enc_fail(prefix_enc *e, cf_status code)
{
    if (!e->failed) {
        e->failed = true;
        e->fail_code = code;
    }
}

static bool push_restart(prefix_enc *e, uint32_t off)
{
    if (e->nrestarts == e->restarts_cap &&
        !cf_array_grow(&e->restarts, &e->restarts_cap, sizeof *e->restarts, 64))
        return false;
    e->restarts[e->nrestarts++] = off;
    return true;
}

static size_t prefix_add(cf_encoder *e_, const void *vals, size_t n, bool force)
{
    prefix_enc *e = (prefix_enc *)e_;
    const cf_slice *v = vals;
    const uint8_t *prev = e->last.data;
    size_t prev_len = e->last.len;
    size_t i = 0;
    if (e->failed)
        return n; /* swallow values: finish reports the first failure */
    if (e->finished)
        return 0; /* Requires: reset after finish */
    for (; i < n; i++) {
        /* format §8.7: the entries area alone is compared, before each value */
        if (!force && entries_len(e) > e->block_size)
            break;
        const uint8_t *s = v[i].data;
        size_t len = v[i].len;
        if (len > UINT32_MAX || entries_len(e) + len > UINT32_MAX - 16) {
            enc_fail(e, CF_EINVAL);
            return n;
        }
        if (!cf_buf_reserve(&e->buf, 10 + len)) {
            enc_fail(e, CF_ENOMEM);
            return n;
        }
        size_t shared = 0;
        if (e->since_restart < e->interval) {
            shared = common_prefix(prev, prev_len, s, len);
        } else {
            if (!push_restart(e, (uint32_t)entries_len(e))) {
                enc_fail(e, CF_ENOMEM);
                return n;
            }
            e->since_restart = 0;
        }
        uint8_t *dst = e->buf.data + e->buf.len;
        dst += cf_varint32_encode(dst, (uint32_t)shared);
        dst += cf_varint32_encode(dst, (uint32_t)(len - shared));
        if (len - shared)
            memcpy(dst, s + shared, len - shared);
        dst += len - shared;
        e->buf.len = (size_t)(dst - e->buf.data);
        prev = s;
        prev_len = len;
        e->since_restart++;
        e->count++;
    }
    if (i > 0) {
        /* the last value may live in the caller's memory: keep our own copy */
        cf_buf_clear(&e->last);
        cf_buf_append(&e->last, prev, prev_len);
        if (e->last.oom)
            enc_fail(e, CF_ENOMEM);
    }
    return i;
}

static bool prefix_is_full(const cf_encoder *e_)
{
    const prefix_enc *e = (const prefix_enc *)e_;
    return e->failed || entries_len(e) > e->block_size;
}

static size_t prefix_count(const cf_encoder *e_)
{
    return ((const prefix_enc *)e_)->count;
}

static cf_status prefix_finish(cf_encoder *e_, uint32_t first_ord, cf_slice *out, cf_error *err)
{
    prefix_enc *e = (prefix_enc *)e_;
    if (e->failed)
        CF_FAIL(err, e->fail_code,
                e->fail_code == CF_ENOMEM ? "prefix encoding: out of memory"
                                          : "prefix encoding: value or block longer than 4 GiB");
    CF_CHECK(e->count <= UINT32_MAX, err, CF_EINVAL, "prefix encoding: too many values");
    if (e->finished) { /* the trailer is already appended: only the ordinal can change */
        uint8_t *old = (uint8_t *)e->out.data;
        uint8_t hdr[CF_GVINT_MAX_GROUP];
        size_t hl = cf_gvint_encode_group(hdr, (uint32_t)e->count, first_ord, e->interval, 0);
        size_t oldhl = (size_t)(e->buf.data + HDR_ROOM - old);
        CF_CHECK(hl == oldhl, err, CF_ESTATE, "prefix encoding: finish twice with another ordinal");
        memcpy(old, hdr, hl);
        *out = e->out;
        return CF_OK;
    }
    uint8_t hdr[CF_GVINT_MAX_GROUP];
    size_t hl = cf_gvint_encode_group(hdr, (uint32_t)e->count, first_ord, e->interval, 0);
    uint8_t *tail = cf_buf_extend(&e->buf, 4 * e->nrestarts + 4);
    CF_CHECK(tail != NULL, err, CF_ENOMEM, "prefix encoding: out of memory");
    for (size_t k = 0; k < e->nrestarts; k++)
        cf_store_le32(tail + 4 * k, e->restarts[k] + (uint32_t)hl);
    cf_store_le32(tail + 4 * e->nrestarts, (uint32_t)e->nrestarts);
    uint8_t *start = e->buf.data + HDR_ROOM - hl;
    memcpy(start, hdr, hl);
    out->data = start;
    out->len = e->buf.len - (HDR_ROOM - hl);
    e->out = *out;
    e->finished = true;
    return CF_OK;
}

const cf_encoder_ops cf_enc_prefix_ops = {
    .encoding = CF_ENC_PREFIX,
    .create = prefix_enc_create,
    .free = prefix_enc_free,
    .add = prefix_add,
    .is_full = prefix_is_full,
    .count = prefix_count,
    .finish = prefix_finish,
    .reset = prefix_enc_reset,
    .finish_dict = NULL,
};
