/* Delta statistics: Kudu's DeltaStats and its DeltaStatsPB (format §12.4).
 *
 *   field | wire      | name
 *   1     | varint    | delete_count (int64, required)
 *   3     | fixed64   | min_timestamp (required)
 *   4     | fixed64   | max_timestamp (required)
 *   5     | len-delim | column_stats { 1: col_id int32, 2: update_count int64 } (repeated)
 *   6     | varint    | reinsert_count (int64; Kudu always sets it)
 *
 * Kudu emits column_stats in the iteration order of a libstdc++
 * std::unordered_map<ColumnId, int64_t> whose hash is the id itself. For
 * byte-identical files we replay that container's behaviour (docs/SPEC-NOTES.md
 * D.3): one singly linked list of nodes; each bucket remembers the node *before*
 * its first node; a key whose bucket is empty goes to the front of the list, any
 * other key right before the first node of its bucket; the table grows
 * (1 -> 13 -> 29 -> 59 -> ...) before the insert that would exceed one key per
 * bucket, relinking the old list in order by the same rule.
 */
#include <string.h>

#include "delta_internal.h"

#include "util/alloc.h"
#include "util/error.h"
#include "util/varint.h"

/* libstdc++'s bucket counts for a default-constructed map growing one insert at
 * a time (measured with g++ 12: the count after inserting key number n). */
static const size_t bucket_steps[] = {13,   29,    59,    127,   257,   541,    1109,  2357,
                                      5087, 10273, 20753, 42043, 85229, 172933, 351061};
#define NSTEPS (sizeof(bucket_steps) / sizeof(bucket_steps[0]))

void cf_dstats_init(cf_dstats *s)
{
    memset(s, 0, sizeof(*s));
    s->min_ts = UINT64_MAX;
    s->max_ts = 0;
    s->head = CF_DSTATS_NONE;
}

void cf_dstats_dispose(cf_dstats *s)
{
    cf_free(s->nodes);
    cf_free(s->next);
    cf_free(s->buckets);
    memset(s, 0, sizeof(*s));
}

/* std::hash<ColumnId> is the int32 id converted to size_t (sign-extended). */
static size_t bucket_of(uint32_t id, size_t nbuckets)
{
    return (size_t)(int64_t)(int32_t)id % nbuckets;
}

static uint32_t *next_slot(cf_dstats *s, uint32_t before)
{
    return before == CF_DSTATS_HEAD ? &s->head : &s->next[before];
}

/* Link node i in as the map's insert does (buckets already sized). */
static void link_node(cf_dstats *s, uint32_t *buckets, uint32_t i, size_t *head_bkt)
{
    size_t b = bucket_of(s->nodes[i].col_id, s->nbuckets);
    if (buckets[b] != CF_DSTATS_NONE) {
        uint32_t *slot = next_slot(s, buckets[b]);
        s->next[i] = *slot;
        *slot = i;
        return;
    }
    s->next[i] = s->head;
    s->head = i;
    if (s->next[i] != CF_DSTATS_NONE)
        buckets[*head_bkt] = i;
    buckets[b] = CF_DSTATS_HEAD;
    *head_bkt = b;
}

static cf_status rehash(cf_dstats *s, size_t nb, cf_error *err)
{
    uint32_t *nbk = cf_malloc(nb * sizeof(*nbk));
    CF_CHECK(nbk != NULL, err, CF_ENOMEM, "delta stats: out of memory");
    for (size_t i = 0; i < nb; i++)
        nbk[i] = CF_DSTATS_NONE;
    uint32_t p = s->head;
    s->head = CF_DSTATS_NONE;
    s->nbuckets = nb;
    size_t head_bkt = 0;
    while (p != CF_DSTATS_NONE) {
        uint32_t nxt = s->next[p];
        link_node(s, nbk, p, &head_bkt);
        p = nxt;
    }
    cf_free(s->buckets);
    s->buckets = nbk;
    return CF_OK;
}

cf_status cf_dstats_incr(cf_dstats *s, uint32_t col_id, int64_t count, cf_error *err)
{
    if (s->nbuckets != 0) {
        size_t b = bucket_of(col_id, s->nbuckets);
        if (s->buckets[b] != CF_DSTATS_NONE) {
            /* The bucket's run starts after buckets[b] and ends at the first
             * node of another bucket. */
            for (uint32_t p = *next_slot(s, s->buckets[b]);
                 p != CF_DSTATS_NONE && bucket_of(s->nodes[p].col_id, s->nbuckets) == b;
                 p = s->next[p]) {
                if (s->nodes[p].col_id == col_id) {
                    s->nodes[p].update_count += count;
                    return CF_OK;
                }
            }
        }
    }
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        cf_delta_col_stat *nn = cf_realloc(s->nodes, nc * sizeof(*nn));
        CF_CHECK(nn != NULL, err, CF_ENOMEM, "delta stats: out of memory");
        s->nodes = nn;
        uint32_t *nx = cf_realloc(s->next, nc * sizeof(*nx));
        CF_CHECK(nx != NULL, err, CF_ENOMEM, "delta stats: out of memory");
        s->next = nx;
        s->cap = nc;
    }
    if (s->n + 1 > s->next_resize) {
        size_t step = 0;
        while (step < NSTEPS && bucket_steps[step] < s->n + 1)
            step++;
        CF_CHECK(step < NSTEPS, err, CF_ENOTSUP, "delta stats: more than %zu column ids",
                 bucket_steps[NSTEPS - 1]);
        CF_TRY(rehash(s, bucket_steps[step], err));
        s->next_resize = bucket_steps[step];
    }
    uint32_t i = (uint32_t)s->n++;
    s->nodes[i].col_id = col_id;
    s->nodes[i].update_count = count;
    size_t head_bkt =
        s->head == CF_DSTATS_NONE ? 0 : bucket_of(s->nodes[s->head].col_id, s->nbuckets);
    link_node(s, s->buckets, i, &head_bkt);
    return CF_OK;
}

cf_status cf_dstats_update(cf_dstats *s, uint64_t ts, cf_slice rcl, cf_error *err)
{
    cf_rcl_decoder d;
    CF_TRY(cf_rcl_decoder_init(&d, rcl, err));
    if (d.type == CF_RCL_DELETE) {
        s->delete_count++;
    } else {
        if (d.type == CF_RCL_REINSERT)
            s->reinsert_count++;
        /* Kudu collects all ids first, so a bad change counts nothing. */
        cf_rcl_decoder probe = d;
        cf_rcl_change c;
        while (cf_rcl_decoder_has_next(&probe))
            CF_TRY(cf_rcl_decoder_next(&probe, &c, err));
        while (cf_rcl_decoder_has_next(&d)) {
            CF_TRY(cf_rcl_decoder_next(&d, &c, err));
            CF_TRY(cf_dstats_incr(s, c.col_id, 1, err));
        }
    }
    if (ts < s->min_ts)
        s->min_ts = ts;
    if (ts > s->max_ts)
        s->max_ts = ts;
    return CF_OK;
}

static void put_tag(cf_buf *b, uint32_t field, uint32_t wire)
{
    cf_buf_put_varint32(b, field << 3 | wire);
}

cf_status cf_dstats_serialize(cf_dstats *s, cf_buf *out, cf_error *err)
{
    cf_buf_clear(out);
    put_tag(out, 1, 0);
    cf_buf_put_varint64(out, (uint64_t)s->delete_count);
    put_tag(out, 3, 1);
    cf_buf_put_le64(out, s->min_ts);
    put_tag(out, 4, 1);
    cf_buf_put_le64(out, s->max_ts);
    for (uint32_t p = s->head; p != CF_DSTATS_NONE; p = s->next[p]) {
        /* int32 fields are sign-extended to 64 bits on the wire. */
        uint64_t id = (uint64_t)(int64_t)(int32_t)s->nodes[p].col_id;
        uint64_t cnt = (uint64_t)s->nodes[p].update_count;
        put_tag(out, 5, 2);
        cf_buf_put_varint32(out, (uint32_t)(2 + cf_varint64_len(id) + cf_varint64_len(cnt)));
        put_tag(out, 1, 0);
        cf_buf_put_varint64(out, id);
        put_tag(out, 2, 0);
        cf_buf_put_varint64(out, cnt);
    }
    put_tag(out, 6, 0);
    cf_buf_put_varint64(out, (uint64_t)s->reinsert_count);
    CF_CHECK(!out->oom, err, CF_ENOMEM, "delta stats: out of memory");
    return CF_OK;
}

/* Skip a field of wire type `wire`; NULL when it overruns or the type is bad. */
static const uint8_t *skip_field(const uint8_t *p, const uint8_t *end, uint32_t wire)
{
    uint64_t v;
    switch (wire) {
    case 0: return cf_varint64_decode(p, end, &v);
    case 1: return (size_t)(end - p) < 8 ? NULL : p + 8;
    case 2:
        p = cf_varint64_decode(p, end, &v);
        return p == NULL || v > (uint64_t)(end - p) ? NULL : p + v;
    case 5: return (size_t)(end - p) < 4 ? NULL : p + 4;
    default: return NULL;
    }
}

#define PB_BAD(err) CF_FAIL(err, CF_ECORRUPT, "unable to parse the delta stats protobuf")

cf_status cf_dstats_parse(const uint8_t *p, size_t len, cf_delta_stats *out,
                          cf_delta_col_stat **cols, cf_error *err)
{
    const uint8_t *end = p + len;
    bool has_del = false, has_min = false, has_max = false;
    size_t n = 0, cap = 0;
    cf_delta_col_stat *cs = NULL;
    memset(out, 0, sizeof(*out));
    while (p != end) {
        uint64_t tag, v;
        p = cf_varint64_decode(p, end, &tag);
        if (p == NULL || tag >> 3 == 0 || tag >> 3 > UINT32_MAX)
            goto bad;
        uint32_t field = (uint32_t)(tag >> 3), wire = (uint32_t)(tag & 7);
        if ((field == 1 || field == 6) && wire == 0) {
            if ((p = cf_varint64_decode(p, end, &v)) == NULL)
                goto bad;
            if (field == 1) {
                out->delete_count = (int64_t)v;
                has_del = true;
            } else {
                out->reinsert_count = (int64_t)v;
            }
        } else if ((field == 3 || field == 4) && wire == 1) {
            if ((size_t)(end - p) < 8)
                goto bad;
            v = 0;
            for (int i = 7; i >= 0; i--)
                v = v << 8 | p[i];
            p += 8;
            if (field == 3) {
                out->min_ts = v;
                has_min = true;
            } else {
                out->max_ts = v;
                has_max = true;
            }
        } else if (field == 5 && wire == 2) {
            uint64_t mlen;
            if ((p = cf_varint64_decode(p, end, &mlen)) == NULL || mlen > (uint64_t)(end - p))
                goto bad;
            const uint8_t *q = p, *mend = p + mlen;
            p = mend;
            bool has_id = false, has_cnt = false;
            cf_delta_col_stat e = {0, 0};
            while (q != mend) {
                uint64_t t2;
                if ((q = cf_varint64_decode(q, mend, &t2)) == NULL || t2 >> 3 == 0)
                    goto bad;
                if ((t2 >> 3 == 1 || t2 >> 3 == 2) && (t2 & 7) == 0) {
                    if ((q = cf_varint64_decode(q, mend, &v)) == NULL)
                        goto bad;
                    if (t2 >> 3 == 1) {
                        e.col_id = (uint32_t)v;
                        has_id = true;
                    } else {
                        e.update_count = (int64_t)v;
                        has_cnt = true;
                    }
                } else if ((q = skip_field(q, mend, (uint32_t)(t2 & 7))) == NULL) {
                    goto bad;
                }
            }
            if (!has_id || !has_cnt)
                goto bad;
            if (n == cap && !cf_array_grow(&cs, &cap, sizeof *cs, 8)) {
                cf_free(cs);
                CF_FAIL(err, CF_ENOMEM, "delta stats: out of memory");
            }
            cs[n++] = e;
        } else if ((p = skip_field(p, end, wire)) == NULL) {
            goto bad;
        }
    }
    if (!has_del || !has_min || !has_max)
        goto bad;
    out->ncols = n;
    out->cols = cs;
    *cols = cs;
    return CF_OK;
bad:
    cf_free(cs);
    PB_BAD(err);
}
