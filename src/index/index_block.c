/* One B-tree index block: builder and reader (cfile-format.md §9.1, §9.4, §3).
 *
 * Layout of a block's logical bytes (before compression and CRC, §2.7):
 *
 *   offset            size        field
 *   ----------------  ----------  ------------------------------------------------
 *   off[i]            1..5        varint32 key_len            } entry i, i < n,
 *   off[i] + ..       key_len     key bytes                   } in key order;
 *   ..                1..10       varint64 child offset       } off[0] = 0 when
 *   ..                1..5        varint32 child size         } written by Kudu
 *   P = L-4-T-4n      4 * n       fixed32 off[0..n-1]: where entry i starts
 *   L-4-T             T           IndexBlockTrailerPB {num_entries = n,
 *                                 type = LEAF (0) | INTERNAL (1)}: `08 <n> 10 <t>`
 *   L-4               4           fixed32 T (the trailer length)
 *
 * The reader does Kudu's checks at parse time (all O(1)) and checks every entry
 * it touches against its neighbours when it is read, so no access of a parsed
 * block can leave [0, L) whatever the bytes are.
 */
#include "index_block.h"

#include <string.h>

#include "cfile.pb-c.h"

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/varint.h"

/* Smallest possible entry: 1-byte key_len, empty key, 1-byte offset, 1-byte size
 * (format §9.1: Kudu refuses offset arrays starting before byte 3n). */
#define MIN_ENTRY_LEN 3u

/* ---- builder ------------------------------------------------------------------------ */

void cf_ib_init(cf_index_builder *b, bool leaf)
{
    memset(b, 0, sizeof *b);
    b->leaf = leaf;
    cf_buf_init(&b->entries);
    cf_buf_init(&b->offsets);
    cf_buf_init(&b->first_key);
    cf_buf_init(&b->out);
}

void cf_ib_dispose(cf_index_builder *b)
{
    cf_buf_dispose(&b->entries);
    cf_buf_dispose(&b->offsets);
    cf_buf_dispose(&b->first_key);
    cf_buf_dispose(&b->out);
    b->count = 0;
}

void cf_ib_reset(cf_index_builder *b)
{
    cf_buf_clear(&b->entries);
    cf_buf_clear(&b->offsets);
    cf_buf_clear(&b->first_key);
    cf_buf_clear(&b->out);
    b->count = 0;
}

void cf_ib_add(cf_index_builder *b, cf_slice key, cf_block_ptr child)
{
    /* Entry offsets and key lengths are 32-bit on disk; a key or block that does
     * not fit is reported by finish through the sticky oom flag (and by the
     * length check there), never written truncated. */
    if (key.len > UINT32_MAX || b->entries.len > UINT32_MAX) {
        b->entries.oom = true;
        return;
    }
    if (b->count == 0)
        cf_buf_append(&b->first_key, key.data, key.len);
    cf_buf_put_le32(&b->offsets, (uint32_t)b->entries.len);
    cf_buf_put_varint32(&b->entries, (uint32_t)key.len);
    cf_buf_append(&b->entries, key.data, key.len);
    cf_buf_put_varint64(&b->entries, child.off);
    cf_buf_put_varint32(&b->entries, child.size);
    b->count++;
}

size_t cf_ib_estimated_size(const cf_index_builder *b)
{
    /* format §9.3: Kudu guesses the trailer at 16 bytes instead of packing it. */
    return b->entries.len + 4 * b->count + 16;
}

cf_slice cf_ib_first_key(const cf_index_builder *b)
{
    cf_slice s = {b->first_key.data, b->first_key.len};
    return s;
}

cf_status cf_ib_finish(cf_index_builder *b, cf_slice *out, cf_error *err)
{
    if (b->entries.oom || b->offsets.oom || b->first_key.oom)
        CF_FAIL(err, CF_ENOMEM, "index block: out of memory (or a key too long) while adding");
    CF_CHECK(b->count <= INT32_MAX && b->entries.len <= UINT32_MAX, err, CF_EINVAL,
             "index block: %zu entries in %zu bytes do not fit the format", b->count,
             b->entries.len);

    Kudu__IndexBlockTrailerPB tr = KUDU__INDEX_BLOCK_TRAILER_PB__INIT;
    tr.num_entries = (int32_t)b->count;
    /* format §3: `type` is proto2 required, so protobuf-c packs it even when it is
     * LEAF (0), giving Kudu's `10 00`. */
    tr.type = b->leaf ? KUDU__INDEX_BLOCK_TRAILER_PB__BLOCK_TYPE__LEAF
                      : KUDU__INDEX_BLOCK_TRAILER_PB__BLOCK_TYPE__INTERNAL;
    size_t tr_len = kudu__index_block_trailer_pb__get_packed_size(&tr);

    cf_buf_clear(&b->out);
    cf_buf_reserve(&b->out, b->entries.len + b->offsets.len + tr_len + 4);
    cf_buf_append(&b->out, b->entries.data, b->entries.len);
    cf_buf_append(&b->out, b->offsets.data, b->offsets.len);
    uint8_t *t = cf_buf_extend(&b->out, tr_len);
    if (t == NULL)
        CF_FAIL(err, CF_ENOMEM, "index block: out of memory serializing %zu entries", b->count);
    size_t packed = kudu__index_block_trailer_pb__pack(&tr, t);
    CF_CHECK(packed == tr_len, err, CF_EINVAL, "index block: trailer packed to %zu bytes, not %zu",
             packed, tr_len);
    cf_buf_put_le32(&b->out, (uint32_t)tr_len);
    if (b->out.oom)
        CF_FAIL(err, CF_ENOMEM, "index block: out of memory serializing %zu entries", b->count);
    out->data = b->out.data;
    out->len = b->out.len;
    return CF_OK;
}

/* ---- reader ------------------------------------------------------------------------- */

/* protobuf-c allocates the unpacked message. The trailer is tiny, so a stack
 * arena serves it and parsing an index block costs no heap allocation; only a
 * trailer padded with many unknown fields spills to the heap. */
typedef struct pb_arena {
    _Alignas(16) uint8_t mem[256];
    size_t used;
} pb_arena;

static void *arena_alloc(void *data, size_t size)
{
    pb_arena *a = data;
    size_t need = (size + 15) & ~(size_t)15;
    if (need >= size && need <= sizeof a->mem - a->used) {
        void *p = a->mem + a->used;
        a->used += need;
        return p;
    }
    return cf_malloc(size);
}

static void arena_free(void *data, void *p)
{
    pb_arena *a = data;
    uintptr_t u = (uintptr_t)p, lo = (uintptr_t)a->mem;
    if (p != NULL && (u < lo || u - lo >= sizeof a->mem))
        cf_free(p);
}

cf_status cf_ib_parse(cf_index_block *ib, const uint8_t *data, size_t len, cf_error *err)
{
    memset(ib, 0, sizeof *ib);
    /* format §9.1: the trailer length and a trailer of at least 4 bytes must fit. */
    CF_CHECK(len >= 4, err, CF_ECORRUPT, "index block: %zu bytes cannot hold a trailer length",
             len);
    uint32_t tr_len = cf_load_le32(data + len - 4);
    CF_CHECK(tr_len >= 4 && tr_len <= len - 4, err, CF_ECORRUPT,
             "index block: trailer length %u does not fit in %zu bytes", (unsigned)tr_len, len);
    size_t avail = len - 4 - tr_len; /* bytes before the trailer: entries + offsets */

    pb_arena arena;
    arena.used = 0;
    ProtobufCAllocator alloc = {arena_alloc, arena_free, &arena};
    Kudu__IndexBlockTrailerPB *tr =
        kudu__index_block_trailer_pb__unpack(&alloc, tr_len, data + avail);
    CF_CHECK(tr != NULL, err, CF_ECORRUPT, "index block: trailer (%u bytes) does not parse",
             (unsigned)tr_len);
    int32_t n = tr->num_entries;
    int type = (int)tr->type;
    kudu__index_block_trailer_pb__free_unpacked(tr, &alloc);

    CF_CHECK(n >= 0, err, CF_ECORRUPT, "index block: negative entry count %d", (int)n);
    CF_CHECK(type == KUDU__INDEX_BLOCK_TRAILER_PB__BLOCK_TYPE__LEAF ||
                 type == KUDU__INDEX_BLOCK_TRAILER_PB__BLOCK_TYPE__INTERNAL,
             err, CF_ECORRUPT, "index block: unknown block type %d", type);
    /* format §9.1: the offset array (4n) must fit before the trailer and must not
     * start before byte 3n, as each entry takes at least 3 bytes. */
    CF_CHECK((uint64_t)n * (4 + MIN_ENTRY_LEN) <= avail, err, CF_ECORRUPT,
             "index block: %d entries cannot fit in %zu bytes", (int)n, avail);

    ib->data = data;
    ib->len = len;
    ib->count = (uint32_t)n;
    ib->leaf = type == KUDU__INDEX_BLOCK_TRAILER_PB__BLOCK_TYPE__LEAF;
    ib->offsets_pos = avail - 4 * (size_t)n;
    return CF_OK;
}

/* Locate entry i: `key` gets its key, `rest` and `limit` bound the bytes after it up to the
 * end of the entry's room. Checks that the entry starts before the offset array,
 * ends no later than the next entry starts, and that offsets increase. */
static cf_status entry_key(const cf_index_block *ib, size_t i, cf_slice *key, const uint8_t **rest,
                           const uint8_t **limit, cf_error *err)
{
    const uint8_t *offs = ib->data + ib->offsets_pos;
    size_t off = cf_load_le32(offs + 4 * i);
    size_t end = ib->offsets_pos;
    if (i + 1 < ib->count) {
        end = cf_load_le32(offs + 4 * (i + 1));
        CF_CHECK(end < ib->offsets_pos, err, CF_ECORRUPT,
                 "index block: entry %zu offset %zu is past the entries (%zu)", i + 1, end,
                 ib->offsets_pos);
    }
    CF_CHECK(off < end, err, CF_ECORRUPT,
             "index block: entry %zu offset %zu is not before its end %zu", i, off, end);
    const uint8_t *p = ib->data + off, *lim = ib->data + end;
    uint32_t klen;
    p = cf_varint32_decode(p, lim, &klen);
    CF_CHECK(p != NULL, err, CF_ECORRUPT, "index block: entry %zu has a bad key length", i);
    CF_CHECK(klen <= (size_t)(lim - p), err, CF_ECORRUPT,
             "index block: entry %zu key of %u bytes overruns the entry", i, (unsigned)klen);
    key->data = p;
    key->len = klen;
    *rest = p + klen;
    *limit = lim;
    return CF_OK;
}

cf_status cf_ib_entry(const cf_index_block *ib, size_t i, cf_slice *key, cf_block_ptr *child,
                      cf_error *err)
{
    CF_CHECK(i < ib->count, err, CF_EINVAL, "index block: entry %zu of %u", i, (unsigned)ib->count);
    const uint8_t *p = NULL, *lim = NULL; /* set by entry_key; gcc -O3 cannot tell */
    CF_TRY(entry_key(ib, i, key, &p, &lim, err));
    uint64_t off;
    uint32_t size;
    p = cf_varint64_decode(p, lim, &off);
    if (p != NULL)
        p = cf_varint32_decode(p, lim, &size);
    CF_CHECK(p != NULL, err, CF_ECORRUPT, "index block: entry %zu has a bad block pointer", i);
    child->off = off;
    child->size = size;
    return CF_OK;
}

/* Key order, as cf_bytes_cmp_short (util/bytes.h) but on slices held by
 * value: GCC lays this seek loop out better from this form (callgrind, scan_ab
 * seeks: 5 instructions fewer per seek than a call of the shared inline). */
static int key_cmp(cf_slice a, cf_slice b)
{
    size_t n = a.len < b.len ? a.len : b.len, i = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t x = cf_load_be64(a.data + i), y = cf_load_be64(b.data + i);
        if (x != y)
            return x < y ? -1 : 1;
    }
    for (; i < n; i++)
        if (a.data[i] != b.data[i])
            return a.data[i] < b.data[i] ? -1 : 1;
    return a.len < b.len ? -1 : a.len > b.len;
}

static cf_status cmp_at(const cf_index_block *ib, size_t i, cf_slice target, int *c, cf_error *err)
{
    cf_slice k = {NULL, 0};
    const uint8_t *rest = NULL, *lim = NULL;
    CF_TRY(entry_key(ib, i, &k, &rest, &lim, err));
    *c = key_cmp(k, target);
    return CF_OK;
}

/* Last entry whose key is <= target (strict: < target). */
static cf_status seek_last(const cf_index_block *ib, cf_slice target, bool strict, size_t *idx,
                           cf_error *err)
{
    if (ib->count == 0)
        return cf_error_set(err, CF_ENOTFOUND, __FILE__, __LINE__, "index block: no entries");
    /* format §9.4: binary search for the last entry <= target, leaning right.
     * The strict form treats an equal key as greater. */
    size_t lo = 0, hi = ib->count - 1;
    int c = 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        CF_TRY(cmp_at(ib, mid, target, &c, err));
        if (strict && c == 0)
            c = 1;
        if (c < 0) {
            lo = mid;
        } else if (c > 0) {
            hi = mid - 1;
        } else {
            lo = mid;
            break;
        }
    }
    /* Unless the loop stopped on an equal key, entry lo was never compared or
     * compared as smaller; compare it (again) to tell "before everything". */
    if (c != 0) {
        CF_TRY(cmp_at(ib, lo, target, &c, err));
        if (strict && c == 0)
            c = 1;
    }
    if (c > 0)
        return cf_error_set(err, CF_ENOTFOUND, __FILE__, __LINE__,
                            "index block: key before the first entry");
    *idx = lo;
    return CF_OK;
}

cf_status cf_ib_seek_at_or_before(const cf_index_block *ib, cf_slice target, size_t *idx,
                                  cf_error *err)
{
    return seek_last(ib, target, false, idx, err);
}

cf_status cf_ib_seek_before(const cf_index_block *ib, cf_slice target, size_t *idx, cf_error *err)
{
    return seek_last(ib, target, true, idx, err);
}

/* ---- key windows ---------------------------------------------------------------------- */

/* Bytes [from, from + 8) of s, zero padded, as a big-endian integer. For two
 * keys sharing their first `from` bytes, a smaller window means a smaller key
 * (a padding byte is past the key's end: that key is a prefix, so smaller);
 * equal windows decide nothing. */
static uint64_t key_window(cf_slice s, size_t from)
{
    if (s.len >= from + 8)
        return cf_load_be64(s.data + from);
    uint64_t x = 0;
    for (size_t i = from; i < s.len; i++)
        x |= (uint64_t)s.data[i] << (8 * (7 - (i - from)));
    return x;
}

size_t cf_ib_windows_size(const cf_index_block *ib)
{
    return (size_t)ib->count * (8 + sizeof(cf_slice) + sizeof(cf_block_ptr));
}

bool cf_ib_windows_build(const cf_index_block *ib, void *dst, cf_ib_windows *out)
{
    if (ib->count == 0)
        return false;
    cf_slice first, second, last, k, prev = {NULL, 0};
    const uint8_t *rest, *lim;
    cf_error e;
    uint32_t n = ib->count;
    if (entry_key(ib, 0, &first, &rest, &lim, &e) != CF_OK ||
        entry_key(ib, n > 1, &second, &rest, &lim, &e) != CF_OK ||
        entry_key(ib, n - 1, &last, &rest, &lim, &e) != CF_OK)
        return false;
    /* In order, every key from the second on shares what the second and the
     * last share. The first is left out: writers shorten it (Kudu's value
     * index starts with a one-byte key), which would leave no shared prefix
     * and make the windows tie. A first key without that prefix is below
     * every key with it; its window is 0, so it ties only with a target
     * whose window is 0, and ties are compared whole. */
    size_t common = 0, m = second.len < last.len ? second.len : last.len;
    while (common < m && second.data[common] == last.data[common])
        common++;
    bool increasing = true;
    uint64_t *w = dst;
    cf_slice *keys = (cf_slice *)(void *)(w + n);
    cf_block_ptr *children = (cf_block_ptr *)(void *)(keys + n);
    for (uint32_t i = 0; i < n; i++) {
        if (cf_ib_entry(ib, i, &k, &children[i], &e) != CF_OK)
            return false;
        keys[i] = k;
        if (i > 0) {
            int c = key_cmp(prev, k);
            if (c > 0)
                return false;
            increasing = increasing && c < 0;
        }
        bool shares = i > 0 || (k.len >= common && memcmp(k.data, second.data, common) == 0);
        w[i] = shares ? key_window(k, common) : 0;
        prev = k;
    }
    *out = (cf_ib_windows){w, keys, children, second.data, common, increasing};
    return true;
}

/* How many of the n sorted windows are below x (or_equal: at most x); n >= 1.
 * Branch-free: the loads do not wait for the comparisons before them. */
static size_t windows_below(const uint64_t *w, size_t n, uint64_t x, bool or_equal)
{
    const uint64_t *base = w;
    while (n > 1) {
        size_t half = n / 2;
        base = (or_equal ? base[half] <= x : base[half] < x) ? base + half : base;
        n -= half;
    }
    return (size_t)(base - w) + (or_equal ? *base <= x : *base < x);
}

cf_status cf_ib_seek_windowed(const cf_index_block *ib, const cf_ib_windows *wv, cf_slice target,
                              bool strict, size_t *idx, cf_error *err)
{
    /* With equal keys the plain search stops at whichever equal key it
     * probes: keep its answers by leaving such blocks to it. */
    if (!strict && !wv->increasing)
        return seek_last(ib, target, strict, idx, err);
    const size_t common = wv->common_len, n = ib->count;
    /* Entries [0, lo) are below the target (strict) or at most it, entries
     * [hi, n) are not; keys in between are compared whole. */
    size_t lo, hi;
    size_t m = target.len < common ? target.len : common;
    int c = key_cmp((cf_slice){target.data, m}, (cf_slice){wv->common, m});
    if (c < 0 || (c == 0 && target.len < common)) {
        /* below every key from the second on (a proper prefix of the shared
         * prefix, or smaller): the first is compared whole */
        lo = 0;
        hi = 1;
    } else if (c > 0) {
        lo = hi = n; /* above every key */
    } else {
        uint64_t x = key_window(target, common);
        lo = windows_below(wv->w, n, x, false);
        hi = lo;
        if (lo < n && wv->w[lo] == x)
            hi = windows_below(wv->w, n, x, true);
    }
    /* Ties: binary search for the first key not below (strict) / above the target. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        c = key_cmp(wv->keys[mid], target);
        if (strict ? c < 0 : c <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return cf_error_set(err, CF_ENOTFOUND, __FILE__, __LINE__,
                            "index block: key before the first entry");
    *idx = lo - 1;
    return CF_OK;
}
