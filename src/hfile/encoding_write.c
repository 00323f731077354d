/* Writing HBase's data block encodings: a block of plain cells (block.c's
 * layout) re-encoded as PREFIX, DIFF, FAST_DIFF or ROW_INDEX_V1, byte for byte
 * as HBase's encoders write it (layouts in encoding.c; facts from hbase-common
 * io/encoding and PrivateCellUtil.findCommonPrefixInFlatKey).
 *
 * The shared key prefix follows HBase: the row length bytes, then the row;
 * only a whole row extends into the family (taken as equal: one family per
 * file) and the qualifier; PREFIX alone continues into timestamp and type
 * when the qualifiers are equal.
 */
#include "internal.h"

#include <string.h>

#include "util/endian.h"
#include "util/error.h"

/* One plain cell, parsed. */
typedef struct pcell {
    const uint8_t *key, *val, *tags, *mvcc;
    uint32_t klen, vlen, tlen, mlen;
    uint32_t rlen, flen, qlen;
} pcell;

static cf_status next_cell(const uint8_t *p, size_t n, size_t *pos, const hf_cellfmt *f, pcell *c,
                           cf_error *err)
{
    size_t at = *pos;
    CF_CHECK(n - at >= 8, err, CF_EINVAL, "encoder: cell lengths truncated");
    c->klen = cf_load_be32(p + at);
    c->vlen = cf_load_be32(p + at + 4);
    at += 8;
    CF_CHECK(c->klen >= HF_KEY_INFRA && c->klen <= n - at && c->vlen <= n - at - c->klen, err,
             CF_EINVAL, "encoder: cell does not fit its block");
    c->key = p + at;
    c->val = c->key + c->klen;
    at += (size_t)c->klen + c->vlen;
    c->rlen = hf_be16(c->key);
    CF_CHECK(c->rlen <= c->klen - HF_KEY_INFRA, err, CF_EINVAL, "encoder: bad key");
    c->flen = c->key[2 + c->rlen];
    CF_CHECK(c->flen <= c->klen - HF_KEY_INFRA - c->rlen, err, CF_EINVAL, "encoder: bad key");
    c->qlen = c->klen - HF_KEY_INFRA - c->rlen - c->flen;
    c->tlen = 0;
    c->tags = NULL;
    if (f->tags) {
        CF_CHECK(n - at >= 2, err, CF_EINVAL, "encoder: tags truncated");
        c->tlen = hf_be16(p + at);
        at += 2;
        CF_CHECK(c->tlen <= n - at, err, CF_EINVAL, "encoder: tags truncated");
        c->tags = p + at;
        at += c->tlen;
    }
    c->mlen = 0;
    c->mvcc = p + at;
    if (f->mvcc) {
        int64_t v;
        size_t m = cf_hfile_get_vlong(p + at, n - at, &v);
        CF_CHECK(m > 0, err, CF_EINVAL, "encoder: mvcc truncated");
        c->mlen = (uint32_t)m;
        at += m;
    }
    *pos = at;
    return CF_OK;
}

static void put_cint(cf_buf *b, uint32_t v)
{
    do {
        uint8_t x = v & 0x7f;
        v >>= 7;
        if (v)
            x |= 0x80;
        cf_buf_put_u8(b, x);
    } while (v);
}

static size_t common_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* findCommonPrefixInFlatKey(cur, prev, bypassFamilyCheck = true, withTsType). */
static uint32_t flat_common(const pcell *c, const pcell *p, bool with_ts_type)
{
    if (c->rlen != p->rlen)
        return (uint32_t)common_bytes(c->key, p->key, 2);
    uint32_t rc = (uint32_t)common_bytes(c->key + 2, p->key + 2, c->rlen);
    uint32_t common = 2 + rc;
    if (rc != c->rlen)
        return common;
    common += 1 + c->flen;
    const uint8_t *q1 = c->key + 3 + c->rlen + c->flen, *q2 = p->key + 3 + p->rlen + p->flen;
    uint32_t qmin = c->qlen < p->qlen ? c->qlen : p->qlen;
    uint32_t qc = (uint32_t)common_bytes(q1, q2, qmin);
    common += qc;
    if (!with_ts_type || (c->qlen > p->qlen ? c->qlen : p->qlen) != qc)
        return common;
    uint32_t tc = (uint32_t)common_bytes(c->key + c->klen - 9, p->key + p->klen - 9, 8);
    common += tc;
    if (tc == 8 && c->key[c->klen - 1] == p->key[p->klen - 1])
        common += 1;
    return common;
}

/* TagCompressionContext's writer side over the same LRU dictionary. */
typedef struct tdict {
    const uint8_t *p[CF_HFILE_TAG_DICT_CAP];
    uint32_t len[CF_HFILE_TAG_DICT_CAP];
    uint64_t used[CF_HFILE_TAG_DICT_CAP];
    uint32_t n;
    uint64_t clock;
} tdict;

static void put_tags(cf_buf *b, const pcell *c, tdict *d)
{
    put_cint(b, c->tlen);
    if (c->tlen == 0)
        return;
    if (d == NULL) {
        cf_buf_append(b, c->tags, c->tlen);
        return;
    }
    size_t pos = 0;
    while (pos + 2 <= c->tlen) {
        uint32_t len = hf_be16(c->tags + pos);
        const uint8_t *t = c->tags + pos + 2;
        if (len > c->tlen - pos - 2)
            len = (uint32_t)(c->tlen - pos - 2); /* writer checked the tags; never here */
        uint32_t i = 0;
        while (i < d->n && !(d->len[i] == len && memcmp(d->p[i], t, len) == 0))
            i++;
        if (i < d->n) {
            d->used[i] = ++d->clock;
            cf_buf_put_u8(b, (uint8_t)(i >> 8));
            cf_buf_put_u8(b, (uint8_t)i);
        } else {
            cf_buf_put_u8(b, 0xff);
            cf_buf_put_varint32(b, len);
            cf_buf_append(b, t, len);
            if (len > 0) {
                uint32_t slot = cf_hfile_tag_dict_slot(&d->n, d->used);
                d->p[slot] = t;
                d->len[slot] = len;
                d->used[slot] = ++d->clock;
            }
        }
        pos += 2 + (size_t)len;
    }
}

static int fits_in(uint64_t v)
{
    if ((int64_t)v < 0)
        return 8;
    int n = 1;
    while (n < 8 && (v >> (8 * n)) != 0)
        n++;
    return n;
}

static void put_le(cf_buf *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        cf_buf_put_u8(b, (uint8_t)(v >> (8 * i)));
}

/* The row part when the row differs (from `common`), then the qualifier;
 * or just the rest of the qualifier. */
static void put_key_rest(cf_buf *b, const pcell *c, uint32_t common)
{
    const uint8_t *q = c->key + 3 + c->rlen + c->flen;
    if (common < c->rlen + 2u) {
        cf_buf_append(b, c->key + common, 2 + (size_t)c->rlen - common);
        cf_buf_append(b, q, c->qlen);
    } else {
        uint32_t qc = common - (c->rlen + 2) - (c->flen + 1);
        cf_buf_append(b, q + qc, c->qlen - qc);
    }
}

static int64_t ts_of(const pcell *c)
{
    return (int64_t)cf_load_be64(c->key + c->klen - 9);
}

static void diff_cell(cf_buf *b, const pcell *c, const pcell *p)
{
    uint8_t flag = 0;
    uint32_t common = 0;
    uint64_t ts = (uint64_t)ts_of(c), diff = 0;
    int ts_n, diff_n = 0;
    if (p == NULL) {
        if ((int64_t)ts < 0) {
            flag |= 0x80;
            ts = 0 - ts;
        }
        ts_n = fits_in(ts);
        flag |= (uint8_t)((ts_n - 1) << 4);
        cf_buf_put_u8(b, (uint8_t)c->flen);
        cf_buf_append(b, c->key + 3 + c->rlen, c->flen);
    } else {
        common = flat_common(c, p, false);
        if (c->klen == p->klen)
            flag |= 0x01;
        if (c->vlen == p->vlen)
            flag |= 0x02;
        if (c->key[c->klen - 1] == p->key[p->klen - 1])
            flag |= 0x04;
        diff = (uint64_t)ts_of(p) - ts;
        bool neg = (int64_t)ts < 0;
        if (neg)
            ts = 0 - ts;
        ts_n = fits_in(ts);
        bool minus = (int64_t)diff < 0;
        if (minus)
            diff = 0 - diff;
        diff_n = fits_in(diff);
        if (diff_n < ts_n) {
            flag |= (uint8_t)((diff_n - 1) << 4) | 0x08;
            if (minus)
                flag |= 0x80;
        } else {
            flag |= (uint8_t)((ts_n - 1) << 4);
            if (neg)
                flag |= 0x80;
        }
    }
    cf_buf_put_u8(b, flag);
    if (!(flag & 0x01))
        put_cint(b, c->klen);
    if (!(flag & 0x02))
        put_cint(b, c->vlen);
    put_cint(b, common);
    put_key_rest(b, c, common);
    if (flag & 0x08)
        put_le(b, diff, diff_n);
    else
        put_le(b, ts, ts_n);
    if (!(flag & 0x04))
        cf_buf_put_u8(b, c->key[c->klen - 1]);
    cf_buf_append(b, c->val, c->vlen);
}

static void fast_diff_cell(cf_buf *b, const pcell *c, const pcell *p)
{
    if (p == NULL) {
        cf_buf_put_u8(b, 0);
        put_cint(b, c->klen);
        put_cint(b, c->vlen);
        put_cint(b, 0);
        cf_buf_append(b, c->key, c->klen);
        cf_buf_append(b, c->val, c->vlen);
        return;
    }
    uint8_t flag = 0;
    uint32_t common = flat_common(c, p, false);
    if (c->klen == p->klen)
        flag |= 0x08;
    if (c->vlen == p->vlen)
        flag |= 0x10;
    if (c->key[c->klen - 1] == p->key[p->klen - 1])
        flag |= 0x20;
    const uint8_t *ts = c->key + c->klen - 9;
    int tsc = (int)common_bytes(ts, p->key + p->klen - 9, 7);
    flag |= (uint8_t)tsc;
    if (c->vlen == p->vlen && (c->vlen == 0 || memcmp(c->val, p->val, c->vlen) == 0))
        flag |= 0x40;
    cf_buf_put_u8(b, flag);
    if (!(flag & 0x08))
        put_cint(b, c->klen);
    if (!(flag & 0x10))
        put_cint(b, c->vlen);
    put_cint(b, common);
    put_key_rest(b, c, common);
    cf_buf_append(b, ts + tsc, 8 - (size_t)tsc);
    if (!(flag & 0x20))
        cf_buf_put_u8(b, c->key[c->klen - 1]);
    if (!(flag & 0x40))
        cf_buf_append(b, c->val, c->vlen);
}

cf_status cf_hfile_dbe_encode(int id, const uint8_t *cells, size_t n, const hf_cellfmt *f,
                              cf_buf *out, cf_error *err)
{
    cf_buf_put_u8(out, (uint8_t)(id >> 8));
    cf_buf_put_u8(out, (uint8_t)id);
    size_t pos = 0;
    pcell cur, prev;
    bool have_prev = false;
    if (id == CF_HFILE_DBE_ROW_INDEX_V1) {
        /* Plain cells, then the offsets of each row's first cell. */
        size_t base = out->len;
        cf_buf_append(out, cells, n);
        cf_buf offs;
        cf_buf_init(&offs);
        uint32_t rows = 0;
        cf_status st = CF_OK;
        while (pos < n) {
            size_t at = pos;
            st = next_cell(cells, n, &pos, f, &cur, err);
            if (st != CF_OK)
                break;
            if (!have_prev || cur.rlen != prev.rlen ||
                memcmp(cur.key + 2, prev.key + 2, cur.rlen) != 0) {
                cf_buf_put_be32(&offs, (uint32_t)at);
                rows++;
            }
            prev = cur;
            have_prev = true;
        }
        if (st == CF_OK) {
            cf_buf_put_be32(out, rows);
            cf_buf_append(out, offs.data, offs.len);
            cf_buf_put_be32(out, (uint32_t)(out->len - base - 4 - offs.len));
            st = cf_buf_status(&offs);
        }
        cf_buf_dispose(&offs);
        CF_TRY(st);
        return cf_buf_status(out);
    }
    CF_CHECK(id == CF_HFILE_DBE_PREFIX || id == CF_HFILE_DBE_DIFF || id == CF_HFILE_DBE_FAST_DIFF,
             err, CF_EINVAL, "encoder: data block encoding %d cannot be written", id);
    /* The unencoded size: the plain cells' bytes (BufferedDataBlockEncoder). */
    cf_buf_put_be32(out, (uint32_t)n);
    tdict dict;
    tdict *d = NULL;
    if (f->tags && f->tags_compressed) {
        memset(&dict, 0, sizeof(dict));
        d = &dict;
    }
    while (pos < n) {
        CF_TRY(next_cell(cells, n, &pos, f, &cur, err));
        const pcell *p = have_prev ? &prev : NULL;
        if (id == CF_HFILE_DBE_PREFIX) {
            uint32_t common = p ? flat_common(&cur, p, true) : 0;
            put_cint(out, cur.klen - common);
            put_cint(out, cur.vlen);
            put_cint(out, common);
            cf_buf_append(out, cur.key + common, cur.klen - common);
            cf_buf_append(out, cur.val, cur.vlen);
        } else if (id == CF_HFILE_DBE_DIFF) {
            diff_cell(out, &cur, p);
        } else {
            fast_diff_cell(out, &cur, p);
        }
        if (f->tags)
            put_tags(out, &cur, d);
        cf_buf_append(out, cur.mvcc, cur.mlen);
        prev = cur;
        have_prev = true;
    }
    return cf_buf_status(out);
}
