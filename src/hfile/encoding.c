/* Decoding HBase's data block encodings (DATABLKE blocks; facts from hbase-common
 * io/encoding: PrefixKeyDeltaEncoder, DiffKeyDeltaEncoder, FastDiffDeltaEncoder,
 * BufferedDataBlockEncoder, TagCompressionContext, LRUDictionary).
 *
 * An encoded block is expanded into the plain cell layout of block.c (key
 * length, value length, key, value, [2-byte tags length + tags], [mvcc vlong]),
 * so that iteration, seeks and counts work on every encoding alike.
 *
 * Payload after the 2-byte encoding id (PREFIX, DIFF, FAST_DIFF):
 *   int32 unencoded size (a hint only: HBase's seekers never read it)
 *   cells, each followed by [tags] [mvcc vlong]
 * "cint" below is ByteBufferUtils' compressed int: 7-bit groups, least
 * significant first, high bit = more follows, at most 5 bytes. The key
 * prefix a cell shares with the previous cell counts bytes of the flat key
 * (row length, row, family length, family, qualifier), never timestamp/type.
 *
 * PREFIX   cint key-tail length, cint value length, cint shared prefix,
 *          key tail, value.
 * DIFF     (first cell only: family length byte + family) flag byte:
 *            1 same key length, 2 same value length, 4 same type,
 *            8 timestamp is a difference from the previous one,
 *            0x70 timestamp byte count - 1, 0x80 negative;
 *          [cint key length] [cint value length] cint shared prefix;
 *          when the row differs: the rest of row length + row, then the
 *          qualifier (the family is the block's); else the rest of the
 *          qualifier; timestamp (little-endian, that many bytes),
 *          [type], value.
 * FAST_DIFF flag byte: 0-2 leading timestamp bytes shared, 8 same key
 *            length, 0x10 same value length, 0x20 same type, 0x40 same value;
 *          [cint key length] [cint value length] cint shared prefix;
 *          row rest + qualifier (family copied from the previous key) or the
 *          rest of the qualifier; the unshared timestamp bytes (big-endian
 *          tail); [type]; [value]. The first cell has flag 0 and a full key.
 * Tags (files with tags): cint length, then the tags, or with
 * hfile.TAGS_COMPRESSED each tag as 0xff + varint length + bytes (added to a
 * 127-entry LRU dictionary, cleared per block) or a 2-byte dictionary index.
 */
#include "internal.h"

#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

#define DIFF_SAME_KEY 0x01
#define DIFF_SAME_VAL 0x02
#define DIFF_SAME_TYPE 0x04
#define DIFF_TS_DIFF 0x08
#define DIFF_TS_SIGN 0x80
#define FD_SAME_KEY 0x08
#define FD_SAME_VAL_LEN 0x10
#define FD_SAME_TYPE 0x20
#define FD_SAME_VAL 0x40

typedef struct rd {
    const uint8_t *p;
    size_t n, pos;
} rd;

static bool rd_u8(rd *r, uint8_t *v)
{
    if (r->pos >= r->n)
        return false;
    *v = r->p[r->pos++];
    return true;
}

/* Up to five 7-bit groups, low group first, the high bit set on all but the
 * last: the encoding of both ByteBufferUtils' compressed ints and
 * protobuf's varint32, which differ only in what they accept. */
static bool rd_base128(rd *r, uint64_t *v)
{
    uint64_t x = 0;
    for (int i = 0; i < 5; i++) {
        uint8_t b;
        if (!rd_u8(r, &b))
            return false;
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if ((b & 0x80) == 0) {
            *v = x;
            return true;
        }
    }
    return false;
}

static bool rd_cint(rd *r, uint32_t *v)
{
    uint64_t x;
    if (!rd_base128(r, &x) || x > INT32_MAX)
        return false;
    *v = (uint32_t)x;
    return true;
}

/* Copy n stream bytes to dst. */
static bool rd_copy(rd *r, uint8_t *dst, size_t n)
{
    if (n > r->n - r->pos)
        return false;
    if (n)
        memcpy(dst, r->p + r->pos, n);
    r->pos += n;
    return true;
}

/* Protobuf-style varint32 (StreamUtils.readRawVarint32). */
static bool rd_varint32(rd *r, uint32_t *v)
{
    uint64_t x;
    if (!rd_base128(r, &x))
        return false;
    *v = (uint32_t)x; /* bits beyond 32 dropped, as readRawVarint32 does */
    return true;
}

/* TagCompressionContext's LRU dictionary: entries keep their index; a full
 * dictionary replaces its least recently used entry. */
typedef struct tag_dict {
    size_t off[CF_HFILE_TAG_DICT_CAP]; /* entry bytes live in the output buffer */
    uint32_t len[CF_HFILE_TAG_DICT_CAP];
    uint64_t used[CF_HFILE_TAG_DICT_CAP];
    uint32_t n;
    uint64_t clock;
} tag_dict;

static void dict_add(tag_dict *d, size_t off, uint32_t len)
{
    if (len == 0)
        return;
    uint32_t i = cf_hfile_tag_dict_slot(&d->n, d->used);
    d->off[i] = off;
    d->len[i] = len;
    d->used[i] = ++d->clock;
}

typedef struct dec {
    const hf_cellfmt *f;
    rd r;
    cf_buf *out;
    size_t start; /* where this block's cells begin in out */
    tag_dict dict;
    uint64_t cell;
    /* The previous cell, as offsets into out. */
    bool first;
    size_t prev_key;
    uint32_t prev_klen, prev_vlen;
    int64_t prev_ts;
} dec;

/* Room for one cell of klen + vlen; returns its offset in out. */
static cf_status cell_alloc(dec *d, uint32_t klen, uint32_t vlen, size_t *off, cf_error *err)
{
    size_t need = (size_t)8 + klen + vlen;
    CF_CHECK(need <= d->f->max - (d->out->len - d->start) && d->out->len - d->start <= d->f->max,
             err, CF_ECORRUPT, "cell %" PRIu64 ": decoded block exceeds %zu bytes", d->cell,
             d->f->max);
    *off = d->out->len;
    uint8_t *c = cf_buf_extend(d->out, need);
    CF_CHECK(c != NULL, err, CF_ENOMEM, "encoded block: out of memory");
    cf_store_be32(c, klen);
    cf_store_be32(c + 4, vlen);
    return CF_OK;
}

/* Tags and mvcc after a cell. */
static cf_status cell_tail(dec *d, cf_error *err)
{
    if (d->f->tags) {
        uint32_t tlen;
        CF_CHECK(rd_cint(&d->r, &tlen), err, CF_ECORRUPT, "cell %" PRIu64 ": tags length truncated",
                 d->cell);
        CF_CHECK(tlen <= 0xffff, err, CF_ECORRUPT, "cell %" PRIu64 ": tags length %" PRIu32,
                 d->cell, tlen);
        CF_CHECK(tlen + (size_t)2 <= d->f->max - (d->out->len - d->start), err, CF_ECORRUPT,
                 "cell %" PRIu64 ": decoded block too large", d->cell);
        size_t toff = d->out->len;
        uint8_t *t = cf_buf_extend(d->out, 2 + (size_t)tlen);
        CF_CHECK(t != NULL, err, CF_ENOMEM, "encoded block: out of memory");
        t[0] = (uint8_t)(tlen >> 8);
        t[1] = (uint8_t)tlen;
        if (!d->f->tags_compressed) {
            CF_CHECK(rd_copy(&d->r, t + 2, tlen), err, CF_ECORRUPT,
                     "cell %" PRIu64 ": tags truncated", d->cell);
        } else {
            size_t pos = 0;
            while (pos < tlen) {
                uint8_t st;
                CF_CHECK(rd_u8(&d->r, &st), err, CF_ECORRUPT, "cell %" PRIu64 ": tags truncated",
                         d->cell);
                uint8_t *o = d->out->data + toff + 2 + pos;
                if (st == 0xff) {
                    uint32_t len;
                    CF_CHECK(rd_varint32(&d->r, &len), err, CF_ECORRUPT,
                             "cell %" PRIu64 ": compressed tag length truncated", d->cell);
                    CF_CHECK(len <= 0xffff && 2 + (size_t)len <= tlen - pos, err, CF_ECORRUPT,
                             "cell %" PRIu64 ": compressed tag of %" PRIu32 " bytes overruns "
                             "the tags",
                             d->cell, len);
                    o[0] = (uint8_t)(len >> 8);
                    o[1] = (uint8_t)len;
                    CF_CHECK(rd_copy(&d->r, o + 2, len), err, CF_ECORRUPT,
                             "cell %" PRIu64 ": tag truncated", d->cell);
                    dict_add(&d->dict, toff + 2 + pos + 2, len);
                    pos += 2 + (size_t)len;
                } else {
                    uint8_t lo;
                    CF_CHECK(st < 0x80 && rd_u8(&d->r, &lo), err, CF_ECORRUPT,
                             "cell %" PRIu64 ": bad tag dictionary reference", d->cell);
                    uint32_t idx = ((uint32_t)st << 8) | lo;
                    CF_CHECK(idx < d->dict.n, err, CF_ECORRUPT,
                             "cell %" PRIu64 ": tag dictionary index %" PRIu32 " of %" PRIu32,
                             d->cell, idx, d->dict.n);
                    uint32_t len = d->dict.len[idx];
                    CF_CHECK(2 + (size_t)len <= tlen - pos, err, CF_ECORRUPT,
                             "cell %" PRIu64 ": dictionary tag overruns the tags", d->cell);
                    d->dict.used[idx] = ++d->dict.clock;
                    o[0] = (uint8_t)(len >> 8);
                    o[1] = (uint8_t)len;
                    memcpy(o + 2, d->out->data + d->dict.off[idx], len);
                    pos += 2 + (size_t)len;
                }
            }
        }
    }
    if (d->f->mvcc) {
        int64_t v;
        size_t m = cf_hfile_get_vlong(d->r.p + d->r.pos, d->r.n - d->r.pos, &v);
        CF_CHECK(m > 0, err, CF_ECORRUPT, "cell %" PRIu64 ": memstore timestamp truncated",
                 d->cell);
        cf_buf_append(d->out, d->r.p + d->r.pos, m);
        CF_TRY(cf_buf_status(d->out));
        d->r.pos += m;
    }
    return CF_OK;
}

/* The key at off must hold row length, row, family length, family and the
 * 9-byte timestamp/type; *rowlen and *famlen are its lengths. */
static cf_status key_shape(dec *d, size_t off, uint32_t klen, uint32_t *rowlen, uint32_t *famlen,
                           cf_error *err)
{
    const uint8_t *k = d->out->data + off;
    CF_CHECK(klen >= HF_KEY_INFRA, err, CF_ECORRUPT, "cell %" PRIu64 ": key of %" PRIu32 " bytes",
             d->cell, klen);
    uint32_t rl = hf_be16(k);
    CF_CHECK(rl <= klen - HF_KEY_INFRA, err, CF_ECORRUPT,
             "cell %" PRIu64 ": row length %" PRIu32 " exceeds the %" PRIu32 "-byte key", d->cell,
             rl, klen);
    uint32_t fl = k[2 + rl];
    CF_CHECK(fl <= klen - HF_KEY_INFRA - rl, err, CF_ECORRUPT,
             "cell %" PRIu64 ": family length %" PRIu32 " exceeds the key", d->cell, fl);
    *rowlen = rl;
    *famlen = fl;
    return CF_OK;
}

static cf_status prefix_cell(dec *d, cf_error *err)
{
    uint32_t tail, vlen, common;
    CF_CHECK(rd_cint(&d->r, &tail) && rd_cint(&d->r, &vlen) && rd_cint(&d->r, &common), err,
             CF_ECORRUPT, "cell %" PRIu64 ": lengths truncated", d->cell);
    CF_CHECK(d->first ? common == 0 : common <= d->prev_klen, err, CF_ECORRUPT,
             "cell %" PRIu64 ": shares %" PRIu32 " key bytes with a %" PRIu32 "-byte key", d->cell,
             common, d->first ? 0 : d->prev_klen);
    CF_CHECK(tail <= INT32_MAX - common, err, CF_ECORRUPT, "cell %" PRIu64 ": key too long",
             d->cell);
    uint32_t klen = tail + common;
    size_t off;
    CF_TRY(cell_alloc(d, klen, vlen, &off, err));
    uint8_t *k = d->out->data + off + 8;
    if (common)
        memcpy(k, d->out->data + d->prev_key, common);
    CF_CHECK(rd_copy(&d->r, k + common, (size_t)tail + vlen), err, CF_ECORRUPT,
             "cell %" PRIu64 ": key/value truncated", d->cell);
    d->prev_key = off + 8;
    d->prev_klen = klen;
    return CF_OK;
}

/* The row part of a DIFF/FAST_DIFF key when the row differs from the previous
 * one: the rest of the row (and its length), then family (fam, famlen).
 * k already holds `common` bytes. Returns the key position after the family. */
static cf_status new_row(dec *d, uint8_t *k, uint32_t klen, uint32_t common, const uint8_t *fam,
                         uint32_t famlen, size_t *kpos, cf_error *err)
{
    size_t pos = common;
    if (common < 2) {
        CF_CHECK(rd_copy(&d->r, k + common, 2 - common), err, CF_ECORRUPT,
                 "cell %" PRIu64 ": row length truncated", d->cell);
        pos = 2;
    }
    uint32_t rowlen = hf_be16(k);
    CF_CHECK((size_t)2 + rowlen + 1 + famlen + 9 <= klen && pos <= (size_t)2 + rowlen, err,
             CF_ECORRUPT,
             "cell %" PRIu64 ": row of %" PRIu32 " bytes does not fit the %" PRIu32 "-byte key",
             d->cell, rowlen, klen);
    CF_CHECK(rd_copy(&d->r, k + pos, 2 + (size_t)rowlen - pos), err, CF_ECORRUPT,
             "cell %" PRIu64 ": row truncated", d->cell);
    pos = 2 + (size_t)rowlen;
    k[pos++] = (uint8_t)famlen;
    memcpy(k + pos, fam, famlen);
    *kpos = pos + famlen;
    return CF_OK;
}

static cf_status diff_cell(dec *d, const uint8_t **fam, uint32_t *famlen, cf_error *err)
{
    if (d->first) {
        uint8_t fl;
        CF_CHECK(rd_u8(&d->r, &fl) && fl <= d->r.n - d->r.pos, err, CF_ECORRUPT,
                 "DIFF block: family truncated");
        *famlen = fl;
        *fam = d->r.p + d->r.pos;
        d->r.pos += fl;
    }
    uint8_t flag;
    CF_CHECK(rd_u8(&d->r, &flag), err, CF_ECORRUPT, "cell %" PRIu64 ": flag truncated", d->cell);
    CF_CHECK(!d->first ||
                 (flag & (DIFF_SAME_KEY | DIFF_SAME_VAL | DIFF_SAME_TYPE | DIFF_TS_DIFF)) == 0,
             err, CF_ECORRUPT, "cell %" PRIu64 ": first cell refers to a previous one", d->cell);
    uint32_t klen = d->prev_klen, vlen = d->prev_vlen, common;
    CF_CHECK(((flag & DIFF_SAME_KEY) || rd_cint(&d->r, &klen)) &&
                 ((flag & DIFF_SAME_VAL) || rd_cint(&d->r, &vlen)) && rd_cint(&d->r, &common),
             err, CF_ECORRUPT, "cell %" PRIu64 ": lengths truncated", d->cell);
    CF_CHECK(
        klen >= 9 && common <= klen - 9 && (d->first ? common == 0 : common <= d->prev_klen - 9),
        err, CF_ECORRUPT, "cell %" PRIu64 ": shared prefix %" PRIu32 " of a %" PRIu32 "-byte key",
        d->cell, common, klen);
    size_t off;
    CF_TRY(cell_alloc(d, klen, vlen, &off, err));
    uint8_t *k = d->out->data + off + 8;
    const uint8_t *prev = d->first ? NULL : d->out->data + d->prev_key;
    if (common)
        memcpy(k, prev, common);
    size_t kpos = common;
    if (d->first || common < (size_t)hf_be16(prev) + 2)
        CF_TRY(new_row(d, k, klen, common, *fam, *famlen, &kpos, err));
    CF_CHECK(kpos <= (size_t)klen - 9 && rd_copy(&d->r, k + kpos, klen - 9 - kpos), err,
             CF_ECORRUPT, "cell %" PRIu64 ": qualifier truncated", d->cell);
    int nb = ((flag >> 4) & 7) + 1;
    uint64_t v = 0;
    for (int i = 0; i < nb; i++) {
        uint8_t b;
        CF_CHECK(rd_u8(&d->r, &b), err, CF_ECORRUPT, "cell %" PRIu64 ": timestamp truncated",
                 d->cell);
        v |= (uint64_t)b << (8 * i);
    }
    if (flag & DIFF_TS_SIGN)
        v = 0 - v;
    uint64_t ts = (flag & DIFF_TS_DIFF) ? (uint64_t)d->prev_ts - v : v;
    cf_store_be64(k + klen - 9, ts);
    if (flag & DIFF_SAME_TYPE)
        k[klen - 1] = prev[d->prev_klen - 1];
    else
        CF_CHECK(rd_u8(&d->r, &k[klen - 1]), err, CF_ECORRUPT, "cell %" PRIu64 ": type truncated",
                 d->cell);
    CF_CHECK(rd_copy(&d->r, k + klen, vlen), err, CF_ECORRUPT, "cell %" PRIu64 ": value truncated",
             d->cell);
    uint32_t rl, fl;
    CF_TRY(key_shape(d, off + 8, klen, &rl, &fl, err));
    d->prev_key = off + 8;
    d->prev_klen = klen;
    d->prev_vlen = vlen;
    d->prev_ts = (int64_t)ts;
    return CF_OK;
}

static cf_status fast_diff_cell(dec *d, cf_error *err)
{
    uint8_t flag;
    CF_CHECK(rd_u8(&d->r, &flag), err, CF_ECORRUPT, "cell %" PRIu64 ": flag truncated", d->cell);
    CF_CHECK(!d->first || flag == 0, err, CF_ECORRUPT,
             "cell %" PRIu64 ": first cell has flags 0x%02x", d->cell, flag);
    uint32_t klen = d->prev_klen, vlen = d->prev_vlen, common;
    CF_CHECK(((flag & FD_SAME_KEY) || rd_cint(&d->r, &klen)) &&
                 ((flag & FD_SAME_VAL_LEN) || rd_cint(&d->r, &vlen)) && rd_cint(&d->r, &common),
             err, CF_ECORRUPT, "cell %" PRIu64 ": lengths truncated", d->cell);
    CF_CHECK(klen >= 9 && common <= klen - 9 && (d->first ? common == 0 : common <= d->prev_klen),
             err, CF_ECORRUPT,
             "cell %" PRIu64 ": shared prefix %" PRIu32 " of a %" PRIu32 "-byte key", d->cell,
             common, klen);
    CF_CHECK(!(flag & FD_SAME_VAL) || vlen == d->prev_vlen, err, CF_ECORRUPT,
             "cell %" PRIu64 ": same value flag with a new value length", d->cell);
    uint32_t prev_vlen = d->prev_vlen;
    size_t off;
    CF_TRY(cell_alloc(d, klen, vlen, &off, err));
    uint8_t *k = d->out->data + off + 8;
    const uint8_t *prev = d->first ? NULL : d->out->data + d->prev_key;
    size_t kpos = 0;
    if (!d->first) {
        if (common)
            memcpy(k, prev, common);
        kpos = common;
        uint32_t prl = hf_be16(prev);
        if (common < (size_t)prl + 2) {
            /* The family of the previous key (its shape was checked). */
            const uint8_t *fam = prev + 2 + prl + 1;
            CF_TRY(new_row(d, k, klen, common, fam, fam[-1], &kpos, err));
        }
    }
    int shared = d->first ? 0 : flag & 7;
    CF_CHECK(kpos <= (size_t)klen - 9 && rd_copy(&d->r, k + kpos, klen - 9 - kpos), err,
             CF_ECORRUPT, "cell %" PRIu64 ": qualifier truncated", d->cell);
    if (shared)
        memcpy(k + klen - 9, prev + d->prev_klen - 9, (size_t)shared);
    CF_CHECK(rd_copy(&d->r, k + klen - 9 + shared, 8 - (size_t)shared), err, CF_ECORRUPT,
             "cell %" PRIu64 ": timestamp truncated", d->cell);
    if (flag & FD_SAME_TYPE)
        k[klen - 1] = prev[d->prev_klen - 1];
    else
        CF_CHECK(rd_u8(&d->r, &k[klen - 1]), err, CF_ECORRUPT, "cell %" PRIu64 ": type truncated",
                 d->cell);
    if (flag & FD_SAME_VAL)
        memcpy(k + klen, prev + d->prev_klen, prev_vlen);
    else
        CF_CHECK(rd_copy(&d->r, k + klen, vlen), err, CF_ECORRUPT,
                 "cell %" PRIu64 ": value truncated", d->cell);
    uint32_t rl, fl;
    CF_TRY(key_shape(d, off + 8, klen, &rl, &fl, err));
    d->prev_key = off + 8;
    d->prev_klen = klen;
    d->prev_vlen = vlen;
    return CF_OK;
}

cf_status cf_hfile_dbe_decode(int id, const uint8_t *p, size_t n, const hf_cellfmt *f, cf_buf *out,
                              cf_error *err)
{
    const char *name = cf_hfile_encoding_name(id);
    CF_CHECK(id == CF_HFILE_DBE_PREFIX || id == CF_HFILE_DBE_DIFF || id == CF_HFILE_DBE_FAST_DIFF,
             err, name ? CF_ENOTSUP : CF_ECORRUPT,
             "data block encoding %s (id %d) is not supported", name ? name : "unknown", id);
    CF_CHECK(n >= 4, err, CF_ECORRUPT, "%s block: %zu bytes hold no unencoded size", name, n);
    dec d;
    memset(&d, 0, sizeof(d));
    d.f = f;
    d.r = (rd){p, n, 4};
    d.out = out;
    d.start = out->len;
    d.first = true;
    /* The stored unencoded size only sizes the buffer (HBase's seekers ignore it). */
    size_t hint = cf_load_be32(p);
    (void)cf_buf_reserve(out, hint < f->max && hint < 64 * n + 64 ? hint : 0);
    out->oom = false;
    const uint8_t *fam = NULL;
    uint32_t famlen = 0;
    while (d.r.pos < d.r.n) {
        cf_status st;
        if (id == CF_HFILE_DBE_PREFIX)
            st = prefix_cell(&d, err);
        else if (id == CF_HFILE_DBE_DIFF)
            st = diff_cell(&d, &fam, &famlen, err);
        else
            st = fast_diff_cell(&d, err);
        if (st == CF_OK)
            st = cell_tail(&d, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "%s block: ", name);
        d.first = false;
        d.cell++;
    }
    return CF_OK;
}
