/* Fuzz the write-ahead log reader (src/rowset/wal.c, docs/ROWSET.md
 * "Write-ahead log"):
 *
 *   input: [opt][rest]
 *   opt bit 0 = 0: `rest` is a log segment. Its header is parsed, every record
 *                  read, every batch decoded and each op's change lists decoded
 *                  and validated against a small fixed schema. A clean error is
 *                  a pass; on success, payloads lie inside the input, and the
 *                  segment cut at the end of the valid records reads back to
 *                  the same ops with no torn tail.
 *   opt bit 0 = 1: `rest` is a list of ops, [type][ts step][key len][rcl len]
 *                  [bytes] each, written as records of batches of 1..4 ops
 *                  (bits 1..2 pick the batch size) into a segment in memory,
 *                  then read back: the same ops in the same order. Then the
 *                  segment is cut at a point picked by bits 3..7: the records
 *                  before the cut read back whole, never an error (a torn tail).
 */
/* cf-needs: tables */
#include "fuzz.h"

#include <string.h>

#include <cfile/delta.h>

#include "rowset/wal.h"
#include "util/buf.h"

enum { MAX_OPS = 512 };

static const cf_delta_column schema[] = {
    {0, "k", CF_TYPE_INT32, false, true, 0, 0, 0},
    {1, "i64", CF_TYPE_INT64, true, false, 0, 0, 0},
    {2, "s", CF_TYPE_STRING, true, false, 0, 0, 0},
    {3, "b", CF_TYPE_BOOL, false, false, 0, 0, 0},
};
enum { NCOLS = sizeof schema / sizeof schema[0] };

static void check_rcl(cf_slice rcl)
{
    cf_error err = {0};
    cf_status st = fuzz_check_rcl(rcl, schema, NCOLS, NULL, &err);
    FUZZ_REQUIRE_MSG(st == CF_OK, &err); /* cf_wal_batch_next checked it */
}

/* Read every op of a segment; returns the count, or SIZE_MAX on a clean error.
 * *valid_end = where the valid records end. */
static size_t read_segment(const uint8_t *data, size_t len, size_t *valid_end, bool *torn,
                           cf_wal_op *ops, size_t cap)
{
    cf_error err = {0};
    cf_wal_header h;
    cf_status st = cf_wal_header_parse(data, len, "seg", &h, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        return SIZE_MAX;
    }
    cf_wal_reader r;
    cf_wal_reader_init(&r, data, len, "seg");
    size_t n = 0;
    for (;;) {
        cf_slice p;
        bool has;
        st = cf_wal_reader_next(&r, &p, &has, &err);
        if (st != CF_OK) {
            fuzz_require_clean_error(st, &err);
            return SIZE_MAX;
        }
        if (!has)
            break;
        FUZZ_REQUIRE(p.data >= data && p.len <= len && p.data + p.len <= data + len);
        FUZZ_REQUIRE(p.len <= CF_WAL_MAX_RECORD);
        cf_wal_batch b;
        st = cf_wal_batch_begin(&b, p, &err);
        while (st == CF_OK) {
            cf_wal_op op;
            st = cf_wal_batch_next(&b, &op, &has, &err);
            if (st != CF_OK || !has)
                break;
            check_rcl(op.key);
            check_rcl(op.rcl);
            if (ops != NULL && n < cap)
                ops[n] = op;
            n++;
        }
        if (st != CF_OK) {
            fuzz_require_clean_error(st, &err);
            return SIZE_MAX;
        }
    }
    FUZZ_REQUIRE(r.off <= len);
    FUZZ_REQUIRE(r.torn || r.off == len);
    *valid_end = r.off;
    *torn = r.torn;
    return n;
}

static void read_mode(const uint8_t *data, size_t len)
{
    size_t end;
    bool torn;
    size_t n = read_segment(data, len, &end, &torn, NULL, 0);
    if (n == SIZE_MAX)
        return;
    /* what a writer keeps after cutting the tail reads the same, cleanly */
    size_t end2;
    bool torn2;
    size_t n2 = read_segment(data, end, &end2, &torn2, NULL, 0);
    FUZZ_REQUIRE(n2 == n && end2 == end && !torn2);
}

static void roundtrip_mode(uint8_t opt, const uint8_t *data, size_t len)
{
    cf_wal_op ops[MAX_OPS];
    uint8_t *bytes = fuzz_dup(data, len); /* ops point here */
    size_t n = 0, pos = 0;
    uint64_t ts = 0;
    cf_rcl_builder *rb = NULL;
    cf_error err = {0};
    FUZZ_REQUIRE(cf_rcl_builder_create(&rb, &err) == CF_OK);
    /* change lists must decode; build them from the fuzz bytes */
    cf_buf lists;
    cf_buf_init(&lists);
    size_t offs[MAX_OPS][2], lens[MAX_OPS][2];
    while (n < MAX_OPS && len - pos >= 4) {
        uint8_t type = (uint8_t)(1 + data[pos] % 3);
        ts += 1 + data[pos + 1];
        size_t kl = data[pos + 2] % 24, vl = data[pos + 3] % 64;
        pos += 4;
        if (kl + vl > len - pos)
            break;
        cf_rcl_builder_reset(rb, CF_RCL_UPDATE);
        FUZZ_REQUIRE(cf_rcl_builder_add(rb, 0, bytes + pos, kl, &err) == CF_OK);
        cf_slice k = cf_rcl_builder_bytes(rb);
        offs[n][0] = lists.len;
        lens[n][0] = k.len;
        cf_buf_append(&lists, k.data, k.len);
        static const cf_rcl_type rt[] = {0, CF_RCL_REINSERT, CF_RCL_UPDATE, CF_RCL_DELETE};
        cf_rcl_builder_reset(rb, rt[type]);
        if (type != CF_WAL_DELETE)
            FUZZ_REQUIRE(cf_rcl_builder_add(rb, 2, bytes + pos + kl, vl, &err) == CF_OK);
        cf_slice v = cf_rcl_builder_bytes(rb);
        offs[n][1] = lists.len;
        lens[n][1] = v.len;
        cf_buf_append(&lists, v.data, v.len);
        ops[n].type = type;
        ops[n].ts = ts;
        ops[n].flags = (uint8_t)(data[pos - 4 + 2] >> 7); /* CF_WAL_OP_MRS or 0 */
        pos += kl + vl;
        n++;
    }
    FUZZ_REQUIRE(!lists.oom);
    for (size_t i = 0; i < n; i++) {
        ops[i].key = (cf_slice){lists.data + offs[i][0], lens[i][0]};
        ops[i].rcl = (cf_slice){lists.data + offs[i][1], lens[i][1]};
    }
    size_t per = 1 + ((opt >> 1) & 3);
    cf_buf seg, payload;
    cf_buf_init(&seg);
    cf_buf_init(&payload);
    uint8_t h[CF_WAL_HEADER_LEN];
    cf_wal_header_encode(h, &(cf_wal_header){.seq = 7, .durable_ts = 3});
    cf_buf_append(&seg, h, sizeof(h));
    size_t *rec_end = malloc((n + 1) * sizeof(size_t)), nrec = 0;
    size_t *rec_ops = malloc((n + 1) * sizeof(size_t));
    FUZZ_REQUIRE(rec_end != NULL && rec_ops != NULL);
    for (size_t i = 0; i < n; i += per) {
        size_t k = n - i < per ? n - i : per;
        cf_buf_clear(&payload);
        cf_wal_batch_encode(&payload, ops + i, k);
        cf_wal_record_encode(&seg, payload.data, payload.len);
        rec_end[nrec] = seg.len;
        rec_ops[nrec++] = i + k;
    }
    FUZZ_REQUIRE(!seg.oom && !payload.oom);
    cf_wal_op back[MAX_OPS];
    size_t end;
    bool torn;
    size_t got = read_segment(seg.data, seg.len, &end, &torn, back, MAX_OPS);
    FUZZ_REQUIRE(got == n && !torn && end == seg.len);
    for (size_t i = 0; i < n; i++) {
        FUZZ_REQUIRE(back[i].type == ops[i].type && back[i].ts == ops[i].ts &&
                     back[i].flags == ops[i].flags);
        FUZZ_REQUIRE(back[i].key.len == ops[i].key.len &&
                     memcmp(back[i].key.data, ops[i].key.data, ops[i].key.len) == 0);
        FUZZ_REQUIRE(back[i].rcl.len == ops[i].rcl.len &&
                     memcmp(back[i].rcl.data, ops[i].rcl.data, ops[i].rcl.len) == 0);
    }
    /* a cut anywhere: the whole records before it, as a torn tail */
    size_t cut = CF_WAL_HEADER_LEN + (seg.len - CF_WAL_HEADER_LEN) * (opt >> 3) / 31;
    size_t whole = 0, whole_end = CF_WAL_HEADER_LEN;
    for (size_t r = 0; r < nrec && rec_end[r] <= cut; r++) {
        whole = rec_ops[r];
        whole_end = rec_end[r];
    }
    got = read_segment(seg.data, cut, &end, &torn, NULL, 0);
    FUZZ_REQUIRE(got == whole && end == whole_end && torn == (cut != whole_end));
    free(rec_end);
    free(rec_ops);
    cf_buf_dispose(&seg);
    cf_buf_dispose(&payload);
    cf_buf_dispose(&lists);
    cf_rcl_builder_free(rb);
    free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t opt = data[0];
    uint8_t *rest = fuzz_dup(data + 1, size - 1);
    if ((opt & 1) == 0)
        read_mode(rest, size - 1);
    else
        roundtrip_mode(opt, rest, size - 1);
    free(rest);
    return 0;
}
