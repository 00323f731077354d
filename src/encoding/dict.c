/* DICT block encoding for binary types (format §8.8; fullness §10.2).
 *
 * Data block:
 *   offset  size   field
 *   0       4      fixed32 mode: 1 = codewords, 2 = plain strings; anything else is corrupt
 *   4       ...    mode 1: a BIT_SHUFFLE block (§8.5) of UINT32 codewords, narrowed (§8.5.3)
 *                  mode 2: a PLAIN BINARY block (§8.6) of the strings themselves
 *                  (the sub-block's header holds count and first ordinal)
 *
 * Dictionary block (one per file, written at the end, §8.8.2): a PLAIN BINARY block
 * with ordinal 0 whose string c is codeword c, in first-appearance order.
 *
 * The encoder follows §8.8.3 to the letter, since block boundaries must match
 * Kudu's: a new string enters the dictionary (if the dictionary's PLAIN BINARY
 * estimate still allows it) *before* the codeword capacity (block_size / 4) is
 * checked; a full dictionary ends the block, and the next reset switches the file
 * to mode 2 for good. Codewords are collected here and handed to the BIT_SHUFFLE
 * encoder in one call at finish, so the per-value path has no indirect calls.
 *
 * The decoder maps mode-1 codewords to slices of the caller's decoded
 * dictionary (no string bytes are copied) and delegates mode 2.
 */
#include <inttypes.h>
#include <string.h>

#include "dict_lookup.h"
#include "encodings.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/bytes.h"
#include "util/endian.h"
#include "util/error.h"

enum { MODE_CODEWORDS = 1, MODE_PLAIN = 2 };

/* ---- string -> codeword table ----------------------------------------------------- */

static inline uint64_t rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

/* The last n % 8 bytes (n >= 8), or all n < 8 bytes, as one word, without a byte
 * loop: overlapping loads never leave [p, p + n). */
static inline uint64_t tail_word(const uint8_t *p, size_t n, size_t total)
{
    if (total >= 8)
        return n ? cf_load_le64(p + n - 8) >> (64 - 8 * n) : 0;
    if (n >= 4)
        return cf_load_le32(p) | (uint64_t)cf_load_le32(p + n - 4) << 32;
    if (n > 0)
        return p[0] | (uint64_t)p[n / 2] << 8 | (uint64_t)p[n - 1] << 16;
    return 0;
}

/* Multiply-rotate over 8-byte words, then a full-avalanche finalizer. The length
 * is mixed in first, so the overlapping tail loads cannot make two strings of
 * different lengths collide systematically. */
static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
    const size_t total = n;
    uint64_t h = 0x243f6a8885a308d3ull ^ ((uint64_t)n * 0x9e3779b97f4a7c15ull);
    while (n >= 8) {
        h ^= cf_load_le64(p) * 0x87c37b91114253d5ull;
        h = rotl64(h, 31) * 0x4cf5ad432745937full;
        p += 8;
        n -= 8;
    }
    h ^= tail_word(p, n, total) * 0x87c37b91114253d5ull;
    h = rotl64(h, 31) * 0x4cf5ad432745937full;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

/* Equality of two n-byte strings; short ones without a call into libc. */
static inline bool bytes_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n > 32)
        return memcmp(a, b, n) == 0;
    size_t i = 0;
    for (; n - i >= 8; i += 8)
        if (cf_load_le64(a + i) != cf_load_le64(b + i))
            return false;
    return tail_word(a + i, n - i, n) == tail_word(b + i, n - i, n);
}

typedef struct dict_entry {
    uint64_t hash;
    size_t off; /* into the string arena */
    size_t len;
} dict_entry;

/* Open addressing, linear probing, load <= 1/2. A slot holds codeword + 1 (0 =
 * empty) and the hash's high half, so most mismatches never touch the strings. */
typedef struct slot {
    uint32_t cw1;
    uint32_t tag;
} slot;

/* ---- encoder ---------------------------------------------------------------------- */

typedef struct dict_enc {
    cf_encoder base;
    int mode;
    cf_encoder *dict;  /* PLAIN BINARY builder of the dictionary block */
    cf_encoder *bshuf; /* BIT_SHUFFLE UINT32 builder for codewords */
    cf_encoder *plain; /* PLAIN BINARY builder for mode-2 blocks */
    cf_enc_params plain_params;
    uint32_t *cw; /* codewords of the current block */
    size_t ncw, cw_cap, cw_limit;
    dict_entry *entries;
    size_t nentries, entries_cap;
    cf_buf strings;
    slot *slots;
    size_t slot_mask;
    cf_buf out; /* mode word + sub-block */
    bool failed;
    cf_status fail_code;
} dict_enc;

static void dict_enc_free(cf_encoder *e_)
{
    dict_enc *e = (dict_enc *)e_;
    if (e == NULL)
        return;
    cf_encoder_free(e->dict);
    cf_encoder_free(e->bshuf);
    cf_encoder_free(e->plain);
    cf_free(e->cw);
    cf_free(e->entries);
    cf_free(e->slots);
    cf_buf_dispose(&e->strings);
    cf_buf_dispose(&e->out);
    cf_free(e);
}

static cf_status dict_enc_create(cf_encoder **out, const cf_enc_params *p, cf_error *err)
{
    *out = NULL;
    CF_CHECK(p->elem_size == sizeof(cf_slice), err, CF_EINVAL,
             "dict encoding: type %d is not a binary type", (int)p->type);
    dict_enc *e = cf_calloc(1, sizeof *e);
    CF_CHECK(e != NULL, err, CF_ENOMEM, "dict encoding: out of memory");
    cf_status st = CF_OK;
    e->base.ops = &cf_enc_dict_ops;
    e->mode = MODE_CODEWORDS;
    e->plain_params = *p;
    e->cw_limit = p->block_size / 4; /* §8.5.1: floor(block_size / sizeof(uint32)) */
    cf_buf_init(&e->strings);
    cf_buf_init(&e->out);
    cf_enc_params cw_params = *p;
    cw_params.type = CF_TYPE_UINT32;
    cw_params.elem_size = 4;
    CF_TRY_OUT(cf_enc_plain_binary_ops.create(&e->dict, p, err));
    CF_TRY_OUT(cf_enc_bshuf_ops.create(&e->bshuf, &cw_params, err));
    e->slot_mask = 1023;
    e->slots = cf_calloc(e->slot_mask + 1, sizeof *e->slots);
    if (e->slots == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "dict encoding: out of memory");
    *out = &e->base;
out:
    if (st != CF_OK)
        dict_enc_free(&e->base);
    return st;
}

static void enc_fail(dict_enc *e, cf_status code)
{
    if (!e->failed) {
        e->failed = true;
        e->fail_code = code;
    }
}

static bool grow_slots(dict_enc *e)
{
    size_t n = (e->slot_mask + 1) * 2;
    slot *s = cf_calloc(n, sizeof *s);
    if (s == NULL)
        return false;
    size_t mask = n - 1;
    for (size_t i = 0; i < e->nentries; i++) {
        size_t j = (size_t)e->entries[i].hash & mask;
        while (s[j].cw1 != 0)
            j = (j + 1) & mask;
        s[j].cw1 = (uint32_t)i + 1;
        s[j].tag = (uint32_t)(e->entries[i].hash >> 32);
    }
    cf_free(e->slots);
    e->slots = s;
    e->slot_mask = mask;
    return true;
}

/* The slot of this string, or of the empty slot where it would go. */
static slot *find_slot(dict_enc *e, const uint8_t *s, size_t len, uint64_t h)
{
    uint32_t tag = (uint32_t)(h >> 32);
    size_t j = (size_t)h & e->slot_mask;
    for (;;) {
        slot *sl = &e->slots[j];
        if (sl->cw1 == 0)
            return sl;
        if (sl->tag == tag) {
            const dict_entry *en = &e->entries[sl->cw1 - 1];
            if (en->len == len && (len == 0 || bytes_equal(e->strings.data + en->off, s, len)))
                return sl;
        }
        j = (j + 1) & e->slot_mask;
    }
}

/* Record a string that the dictionary block just took as codeword nentries. */
static bool remember(dict_enc *e, slot *sl, const cf_slice *v, uint64_t h)
{
    if (e->nentries == e->entries_cap &&
        !cf_array_grow(&e->entries, &e->entries_cap, sizeof *e->entries, 256))
        return false;
    size_t off = e->strings.len;
    cf_buf_append(&e->strings, v->data, v->len);
    if (e->strings.oom || e->nentries >= UINT32_MAX - 1)
        return false;
    e->entries[e->nentries] = (dict_entry){.hash = h, .off = off, .len = v->len};
    sl->cw1 = (uint32_t)++e->nentries;
    sl->tag = (uint32_t)(h >> 32);
    if (e->nentries > (e->slot_mask + 1) / 2 && !grow_slots(e))
        return false;
    return true;
}

static size_t add_codewords(dict_enc *e, const cf_slice *v, size_t n, bool force)
{
    /* room for every codeword this call could add */
    size_t need = e->ncw + n;
    if (need > e->cw_cap) {
        size_t cap = e->cw_cap ? e->cw_cap : 1024;
        while (cap < need)
            cap *= 2;
        uint32_t *c = cf_realloc(e->cw, cap * sizeof *c);
        if (c == NULL) {
            enc_fail(e, CF_ENOMEM);
            return n;
        }
        e->cw = c;
        e->cw_cap = cap;
    }
    size_t i = 0;
    for (; i < n; i++) {
        uint64_t h = hash_bytes(v[i].data, v[i].len);
        slot *sl = find_slot(e, v[i].data, v[i].len, h);
        uint32_t cw1 = sl->cw1;
        if (cw1 == 0) {
            /* §8.8.3: the dictionary takes a new string only while its estimate is
             * <= block_size (unless fullness is masked); a refusal ends the block. */
            if (e->dict->ops->add(e->dict, &v[i], 1, force) == 0)
                break;
            if (!remember(e, sl, &v[i], h)) {
                enc_fail(e, CF_ENOMEM);
                return n;
            }
            /* remember may have grown the table: sl is stale from here on */
            cw1 = (uint32_t)e->nentries;
        }
        /* only now the codeword capacity: the string may stay in the dictionary
         * and be coded in the next block */
        if (!force && e->ncw >= e->cw_limit)
            break;
        e->cw[e->ncw++] = cw1 - 1;
    }
    return i;
}

static size_t dict_add(cf_encoder *e_, const void *vals, size_t n, bool force)
{
    dict_enc *e = (dict_enc *)e_;
    if (e->failed)
        return n; /* swallow values: finish reports the first failure */
    if (e->mode == MODE_PLAIN)
        return e->plain->ops->add(e->plain, vals, n, force);
    return add_codewords(e, vals, n, force);
}

static bool dict_is_full(const cf_encoder *e_)
{
    const dict_enc *e = (const dict_enc *)e_;
    if (e->failed)
        return true;
    if (e->mode == MODE_PLAIN)
        return e->plain->ops->is_full(e->plain);
    return e->ncw >= e->cw_limit || e->dict->ops->is_full(e->dict);
}

static size_t dict_count(const cf_encoder *e_)
{
    const dict_enc *e = (const dict_enc *)e_;
    if (e->mode == MODE_PLAIN)
        return e->plain ? e->plain->ops->count(e->plain) : 0;
    return e->ncw;
}

static cf_status dict_finish(cf_encoder *e_, uint32_t first_ord, cf_slice *out, cf_error *err)
{
    dict_enc *e = (dict_enc *)e_;
    CF_CHECK(!e->failed, err, e->fail_code, "dict encoding: out of memory");
    cf_slice sub;
    if (e->mode == MODE_PLAIN) {
        CF_TRY(e->plain->ops->finish(e->plain, first_ord, &sub, err));
    } else {
        e->bshuf->ops->reset(e->bshuf);
        size_t took = e->ncw ? e->bshuf->ops->add(e->bshuf, e->cw, e->ncw, true) : 0;
        CF_CHECK(took == e->ncw, err, CF_ENOMEM, "dict encoding: codeword block took %zu of %zu",
                 took, e->ncw);
        CF_TRY(e->bshuf->ops->finish(e->bshuf, first_ord, &sub, err));
    }
    cf_buf_clear(&e->out);
    cf_buf_put_le32(&e->out, (uint32_t)e->mode);
    cf_buf_append(&e->out, sub.data, sub.len);
    CF_CHECK(!e->out.oom, err, CF_ENOMEM, "dict encoding: out of memory");
    out->data = e->out.data;
    out->len = e->out.len;
    return CF_OK;
}

static void dict_reset(cf_encoder *e_)
{
    dict_enc *e = (dict_enc *)e_;
    if (e->mode == MODE_CODEWORDS && e->dict->ops->is_full(e->dict)) {
        /* §8.8.3: a full dictionary switches the rest of the file to plain blocks */
        e->mode = MODE_PLAIN;
        e->ncw = 0;
        /* reset cannot fail: a failure here is reported by the next finish */
        if (cf_enc_plain_binary_ops.create(&e->plain, &e->plain_params, NULL) != CF_OK)
            enc_fail(e, CF_ENOMEM);
        return;
    }
    if (e->mode == MODE_PLAIN) {
        if (e->plain)
            e->plain->ops->reset(e->plain);
    } else
        e->ncw = 0;
}

static cf_status dict_finish_dict(cf_encoder *e_, cf_slice *out, cf_error *err)
{
    dict_enc *e = (dict_enc *)e_;
    CF_CHECK(!e->failed, err, e->fail_code, "dict encoding: out of memory");
    return e->dict->ops->finish(e->dict, 0, out, err);
}

const cf_encoder_ops cf_enc_dict_ops = {
    .encoding = CF_ENC_DICT,
    .create = dict_enc_create,
    .free = dict_enc_free,
    .add = dict_add,
    .is_full = dict_is_full,
    .count = dict_count,
    .finish = dict_finish,
    .reset = dict_reset,
    .finish_dict = dict_finish_dict,
};

/* ---- decoder ---------------------------------------------------------------------- */

typedef struct dict_dec {
    cf_decoder base;
    cf_dec_params params;
    int mode;
    cf_decoder *cw_dec;    /* BIT_SHUFFLE UINT32, created on the first mode-1 block */
    cf_decoder *plain_dec; /* PLAIN BINARY, created on the first mode-2 block */
    const uint32_t *cw;    /* decoded codewords: the last next()'s, or all (cw_all);
                            * in cw_buf or a saved state (load_saved) */
    uint32_t *cw_buf;
    size_t cw_cap;
    bool cw_all; /* cw holds every codeword of the loaded block */
} dict_dec;

/* Saved state (load_saved), u32 words in memory order: the mode, then
 *   mode 1: count, first ordinal, dictionary size, the count codewords;
 *   mode 2: the PLAIN BINARY decoder's saved state. */
#define CW_SAVED_HEAD 4

static void dict_dec_free(cf_decoder *d_)
{
    dict_dec *d = (dict_dec *)d_;
    if (d == NULL)
        return;
    cf_decoder_free(d->cw_dec);
    cf_decoder_free(d->plain_dec);
    cf_free(d->cw_buf);
    cf_free(d);
}

static cf_status dict_dec_create(cf_decoder **out, const cf_dec_params *p, cf_error *err)
{
    *out = NULL;
    CF_CHECK(p->elem_size == sizeof(cf_slice), err, CF_EINVAL,
             "dict decoding: type %d is not a binary type", (int)p->type);
    CF_TRY(cf_dec_new(out, sizeof(dict_dec), &cf_dec_dict_ops, "dict decoding", err));
    ((dict_dec *)*out)->params = *p;
    return CF_OK;
}

/* A codeword block binds its BIT_SHUFFLE sub-block only: codewords are
 * decoded (and checked against the dictionary) as rows are asked for, so a seek
 * that reads one row decodes one bitshuffle chunk, not the whole block. */
static cf_status load_codewords(dict_dec *d, const uint8_t *data, size_t len, cf_error *err)
{
    const cf_dict *dict = d->params.dict;
    CF_CHECK(dict != NULL, err, CF_EINVAL, "dict block: no dictionary given for a codeword block");
    if (d->cw_dec == NULL) {
        cf_dec_params cp = {.type = CF_TYPE_UINT32, .elem_size = 4, .dict = NULL};
        CF_TRY(cf_dec_bshuf_ops.create(&d->cw_dec, &cp, err));
    }
    cf_decoder *c = d->cw_dec;
    d->cw_all = false;
    CF_TRY(c->ops->load(c, data, len, err));
    d->base.count = c->count;
    d->base.first_ord = c->first_ord;
    return CF_OK;
}

/* The error for a codeword past the dictionary (format §8.8.2). */
static cf_status bad_codeword(uint32_t c, size_t at, size_t count, cf_error *err)
{
    CF_FAIL(err, CF_ECORRUPT,
            "dict block: codeword %" PRIu32 " at index %zu, dictionary has %zu entries", c, at,
            count);
}

/* Decode n codewords from index `from` into d->cw (grown as needed); with
 * check, each checked to name a dictionary entry (format §8.8.2; dict_next
 * checks them as it looks them up instead). */
static cf_status decode_codewords(dict_dec *d, size_t from, size_t n, bool check, cf_error *err)
{
    if (n > d->cw_cap) {
        uint32_t *w = cf_realloc(d->cw_buf, n * sizeof *w);
        CF_CHECK(w != NULL, err, CF_ENOMEM, "dict block: out of memory for %zu codewords", n);
        d->cw_buf = w;
        d->cw_cap = n;
    }
    uint32_t *cw = d->cw_buf;
    d->cw = cw;
    cf_decoder *c = d->cw_dec;
    if (c->pos != from)
        CF_TRY(c->ops->seek(c, from, err));
    size_t got = 0;
    if (n)
        CF_TRY(c->ops->next(c, cw, n, &got, err));
    CF_CHECK(got == n, err, CF_ECORRUPT, "dict block: %zu of %zu codewords decoded", got, n);
    if (!check)
        return CF_OK;
    size_t count = d->params.dict->count;
    uint32_t max = 0;
    for (size_t i = 0; i < n; i++)
        max = cw[i] > max ? cw[i] : max;
    if (n && max >= count) {
        size_t i = 0;
        while (cw[i] < count)
            i++;
        return bad_codeword(cw[i], from + i, count, err);
    }
    return CF_OK;
}

static cf_status dict_load(cf_decoder *d_, const uint8_t *data, size_t len, cf_error *err)
{
    dict_dec *d = (dict_dec *)d_;
    cf_dec_unbind(&d->base);
    d->mode = 0;
    d->cw = NULL;
    d->cw_all = false;
    CF_CHECK(len >= 4, err, CF_ECORRUPT, "dict block: %zu bytes cannot hold the mode word", len);
    uint32_t mode = cf_load_le32(data);
    if (mode == MODE_CODEWORDS) {
        CF_TRY(load_codewords(d, data + 4, len - 4, err));
    } else if (mode == MODE_PLAIN) {
        if (d->plain_dec == NULL) {
            cf_dec_params pp = d->params;
            pp.dict = NULL;
            CF_TRY(cf_dec_plain_binary_ops.create(&d->plain_dec, &pp, err));
        }
        cf_decoder *p = d->plain_dec;
        CF_TRY(p->ops->load(p, data + 4, len - 4, err));
        d->base.count = p->count;
        d->base.first_ord = p->first_ord;
    } else {
        CF_FAIL(err, CF_ECORRUPT, "dict block: unknown mode %" PRIu32, mode);
    }
    d->mode = (int)mode;
    return CF_OK;
}

static cf_status dict_seek(cf_decoder *d_, size_t idx, cf_error *err)
{
    dict_dec *d = (dict_dec *)d_;
    CF_CHECK(idx <= d->base.count, err, CF_EINVAL, "dict block: seek to %zu past %zu values", idx,
             d->base.count);
    if (d->mode == MODE_PLAIN) {
        CF_TRY(d->plain_dec->ops->seek(d->plain_dec, idx, err));
        d->base.pos = d->plain_dec->pos;
        return CF_OK;
    }
    d->base.pos = idx;
    return CF_OK;
}

static cf_status dict_next(cf_decoder *d_, void *dst, size_t n, size_t *got, cf_error *err)
{
    dict_dec *d = (dict_dec *)d_;
    if (d->mode == MODE_PLAIN) {
        cf_status st = d->plain_dec->ops->next(d->plain_dec, dst, n, got, err);
        d->base.pos = d->plain_dec->pos;
        return st;
    }
    size_t avail = d->base.count - d->base.pos;
    if (n > avail)
        n = avail;
    *got = 0;
    if (n == 0)
        return CF_OK;
    const cf_dict *dict = d->params.dict; /* n > 0: a mode-1 block is loaded */
    const uint32_t *cw;
    if (d->cw_all) {
        cw = d->cw + d->base.pos;
    } else {
        CF_TRY(decode_codewords(d, d->base.pos, n, false, err));
        cw = d->cw;
    }
    size_t ok = cf_dict_lookup(dst, cw, n, dict->entries, dict->count);
    if (ok != n)
        return bad_codeword(cw[ok], d->base.pos + ok, dict->count, err);
    *got = n;
    d->base.pos += n;
    return CF_OK;
}

static cf_status dict_codewords(cf_decoder *d_, size_t n, const uint32_t **out, cf_error *err)
{
    dict_dec *d = (dict_dec *)d_;
    *out = NULL;
    if (d->mode != MODE_CODEWORDS)
        return CF_OK;
    CF_CHECK(n <= d->base.count - d->base.pos, err, CF_EINVAL,
             "dict block: %zu codewords asked at %zu of %zu", n, d->base.pos, d->base.count);
    if (d->cw_all) {
        *out = d->cw + d->base.pos;
    } else {
        CF_TRY(decode_codewords(d, d->base.pos, n, true, err));
        *out = d->cw;
    }
    d->base.pos += n;
    return CF_OK;
}

static cf_status dict_seek_at_or_after(cf_decoder *d_, const void *key, bool *exact, cf_error *err)
{
    dict_dec *d = (dict_dec *)d_;
    *exact = false;
    if (d->mode == MODE_PLAIN) {
        cf_status st = d->plain_dec->ops->seek_at_or_after(d->plain_dec, key, exact, err);
        d->base.pos = d->plain_dec->pos;
        return st;
    }
    if (d->mode != MODE_CODEWORDS) {
        d->base.pos = 0;
        CF_FAIL(err, CF_ENOTFOUND, "dict block: nothing loaded");
    }
    /* §8.8.4: first dictionary entry >= key (meaningful for a sorted dictionary,
     * as a sorted unique key column produces) ... */
    const cf_slice *t = key;
    const cf_dict *dict = d->params.dict;
    size_t lo = 0, hi = dict->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cf_bytes_cmp(dict->entries[mid].data, dict->entries[mid].len, t->data, t->len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == dict->count) {
        d->base.pos = d->base.count;
        CF_FAIL(err, CF_ENOTFOUND, "dict block: every dictionary string is smaller than the key");
    }
    bool dict_exact =
        cf_bytes_cmp(dict->entries[lo].data, dict->entries[lo].len, t->data, t->len) == 0;
    /* ... then the first codeword of the block >= that entry's index (a binary
     * search: every codeword is decoded once, and kept while the block is) */
    if (!d->cw_all) {
        CF_TRY(decode_codewords(d, 0, d->base.count, true, err));
        d->cw_all = true;
    }
    uint32_t target = (uint32_t)lo;
    size_t a = 0, b = d->base.count;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (d->cw[mid] < target)
            a = mid + 1;
        else
            b = mid;
    }
    d->base.pos = a;
    if (a == d->base.count)
        CF_FAIL(err, CF_ENOTFOUND, "dict block: every codeword is smaller than %" PRIu32, target);
    /* Kudu reports the dictionary's exact flag alone; the value at the position
     * equals the key only if its codeword is that entry, so require both. */
    *exact = dict_exact && d->cw[a] == target;
    return CF_OK;
}

/* Codeword blocks: does any codeword name an entry that passes? Plain-mode
 * blocks (strings stored in full) cannot tell without testing every value. */
static cf_status dict_block_any(cf_decoder *d_, const cf_value_test *t, bool *any, cf_error *err)
{
    dict_dec *d = (dict_dec *)d_;
    *any = true;
    if (d->mode != MODE_CODEWORDS || t->dict_pass == NULL)
        return CF_OK;
    if (!d->cw_all) {
        CF_TRY(decode_codewords(d, 0, d->base.count, true, err));
        d->cw_all = true;
    }
    const uint8_t *pass = t->dict_pass;
    bool hit = false;
    for (size_t i = 0; i < d->base.count && !hit; i++)
        hit = (pass[d->cw[i] >> 3] >> (d->cw[i] & 7)) & 1;
    *any = hit;
    return CF_OK;
}

/* A codeword block's state is all its codewords: decoded here if load left
 * them for later, so that no later load of the block decodes any. */
static size_t dict_saved_len(cf_decoder *d_)
{
    dict_dec *d = (dict_dec *)d_;
    if (d->mode == MODE_PLAIN) {
        size_t n = d->plain_dec->ops->saved_len(d->plain_dec);
        return n ? sizeof(uint32_t) + n : 0;
    }
    if (d->mode != MODE_CODEWORDS || d->base.count == 0)
        return 0;
    if (!d->cw_all) {
        if (decode_codewords(d, 0, d->base.count, true, NULL) != CF_OK)
            return 0;
        d->cw_all = true;
    }
    return (CW_SAVED_HEAD + d->base.count) * sizeof(uint32_t);
}

static void dict_save(const cf_decoder *d_, void *dst)
{
    const dict_dec *d = (const dict_dec *)d_;
    uint32_t *s = dst;
    s[0] = (uint32_t)d->mode;
    if (d->mode == MODE_PLAIN) {
        d->plain_dec->ops->save(d->plain_dec, s + 1);
        return;
    }
    s[1] = (uint32_t)d->base.count;
    s[2] = d->base.first_ord;
    s[3] = (uint32_t)d->params.dict->count;
    memcpy(s + CW_SAVED_HEAD, d->cw, d->base.count * sizeof *s);
}

/* The codewords were checked against the dictionary when they were decoded;
 * here the state need only be a mode-1 state for a block with the same mode,
 * count and first ordinal over a dictionary of the same size, which also keeps
 * every codeword a valid index whatever it holds. */
static cf_status dict_load_saved(cf_decoder *d_, const uint8_t *data, size_t len, const void *state,
                                 size_t state_len, cf_error *err)
{
    dict_dec *d = (dict_dec *)d_;
    const uint32_t *s = state;
    cf_dec_unbind(&d->base);
    d->mode = 0;
    d->cw = NULL;
    d->cw_all = false;
    CF_CHECK(len >= 4 && state_len >= 2 * sizeof *s && s[0] == cf_load_le32(data), err, CF_ECORRUPT,
             "dict block: saved state does not fit the block");
    if (s[0] == MODE_PLAIN) {
        if (d->plain_dec == NULL) {
            cf_dec_params pp = d->params;
            pp.dict = NULL;
            CF_TRY(cf_dec_plain_binary_ops.create(&d->plain_dec, &pp, err));
        }
        cf_decoder *p = d->plain_dec;
        CF_TRY(p->ops->load_saved(p, data + 4, len - 4, s + 1, state_len - sizeof *s, err));
        d->base.count = p->count;
        d->base.first_ord = p->first_ord;
        d->mode = MODE_PLAIN;
        return CF_OK;
    }
    const cf_dict *dict = d->params.dict;
    CF_CHECK(s[0] == MODE_CODEWORDS && dict != NULL && len >= 4 + 8 &&
                 state_len >= CW_SAVED_HEAD * sizeof *s &&
                 state_len / sizeof *s - CW_SAVED_HEAD == s[1] && s[1] == cf_load_le32(data + 8) &&
                 s[2] == cf_load_le32(data + 4) && s[3] == dict->count,
             err, CF_ECORRUPT, "dict block: saved state does not fit the block");
    /* The bitshuffle sub-block stays unbound: every codeword is at hand. */
    d->cw = s + CW_SAVED_HEAD;
    d->cw_all = true;
    d->base.count = s[1];
    d->base.first_ord = s[2];
    d->mode = MODE_CODEWORDS;
    return CF_OK;
}

const cf_decoder_ops cf_dec_dict_ops = {
    .encoding = CF_ENC_DICT,
    .create = dict_dec_create,
    .free = dict_dec_free,
    .load = dict_load,
    .seek = dict_seek,
    .next = dict_next,
    .seek_at_or_after = dict_seek_at_or_after,
    .codewords = dict_codewords,
    .block_any = dict_block_any,
    .saved_len = dict_saved_len,
    .save = dict_save,
    .load_saved = dict_load_saved,
};
