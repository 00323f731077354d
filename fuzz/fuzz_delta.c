/* Fuzz the DeltaFile reader and writer (src/delta/, format §12):
 *
 *   input: [opt][rest]
 *   opt bit 0 = 0: `rest` is a whole file, opened as a DeltaFile (bit 1: UNDO,
 *                  bit 2: verify checksums, bit 3: through an io without views,
 *                  bits 4..7 seed batch sizes and seek targets). Statistics,
 *                  every delta in batches of varied sizes, every RowChangeList
 *                  decoded and validated against a small fixed schema, seeks
 *                  to rows, and the snapshot applier over the rows seen.
 *                  Every change's value is also read as an array cell.
 *   opt bit 0 = 1: `rest` is a list of deltas, [row step][ts][kind][len][bytes]
 *                  each, written in the order the type demands (bit 1: UNDO,
 *                  bits 2..3 codec, bit 4 checksums, bit 5 statistics, bits
 *                  6..7 block size), then read back: the same deltas in the same
 *                  order, the same statistics, seeks give the right suffix.
 *
 * A clean error is a pass for the reader; a written file must read back. */
#include "fuzz.h"

#include <string.h>

#include <cfile/delta.h>

#include "codec/compress.h"

enum { MAX_DELTAS = 2048, MAX_SEEN = 50000, MAX_APPLY_ROWS = 600 };

/* The schema RowChangeLists are validated against and applied to: ids 0..5 of
 * fixed and binary types, nullable and not, so both validation errors occur. */
static const cf_delta_column schema[] = {
    {0, "k", CF_TYPE_INT32, false, true, 0, 0, 0},
    {1, "i64", CF_TYPE_INT64, true, false, 0, 0, 0},
    {2, "s", CF_TYPE_STRING, true, false, 0, 0, 0},
    {3, "b", CF_TYPE_BOOL, false, false, 0, 0, 0},
    {4, "d", CF_TYPE_DOUBLE, true, false, 0, 0, 0},
    {5, "bin", CF_TYPE_BINARY, false, false, 0, 0, 0},
};
enum { NCOLS = sizeof schema / sizeof schema[0] };

/* Read a change's value as an array cell (format §12.3, SPEC-NOTES D.2) of an element type
 * picked by the column id: a clean error, or every element in bounds. */
static void check_array_cell(cf_slice value, uint32_t col_id)
{
    static const cf_type types[] = {CF_TYPE_INT32, CF_TYPE_STRING, CF_TYPE_BINARY, CF_TYPE_INT64,
                                    CF_TYPE_BOOL};
    cf_type type = types[col_id % (sizeof types / sizeof types[0])];
    cf_array_cell_view v;
    cf_error err = {0};
    cf_status st = cf_array_cell_decode(&v, value, type, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        return;
    }
    FUZZ_REQUIRE(v.count <= value.len);
    for (size_t i = 0; i < v.count; i++) {
        uint8_t out[16];
        (void)cf_array_cell_is_null(&v, i);
        cf_array_cell_get(&v, i, out);
        if (cf_type_is_binary(type)) {
            cf_slice s;
            memcpy(&s, out, sizeof(s));
            FUZZ_REQUIRE(s.len == 0 ||
                         (s.data >= value.data && s.data + s.len <= value.data + value.len));
        }
    }
}

/* Apply the deltas of rows [first, first + nrows) at `snapshot` in batches of
 * varied sizes, into base values that are all set, and check the output. */
static void check_apply(const cf_delta_reader *r, uint32_t first, size_t nrows, uint64_t snapshot,
                        fuzz_rng *rng)
{
    cf_error err = {0};
    cf_delta_apply *a = NULL;
    bool culled = false;
    cf_status st = cf_delta_apply_create(&a, r, schema, NCOLS, snapshot, &culled, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        FUZZ_REQUIRE(a == NULL);
        return;
    }
    if ((st = cf_delta_apply_seek(a, first, &err)) != CF_OK) {
        fuzz_require_clean_error(st, &err);
        cf_delta_apply_free(a);
        return;
    }
    enum { BATCH_MAX = 64 };
    uint8_t vals[BATCH_MAX * 16], nonnull[BATCH_MAX / 8], sel[BATCH_MAX / 8];
    for (size_t done = 0; done < nrows;) {
        size_t n = 1 + fuzz_rng_below(rng, BATCH_MAX);
        if (n > nrows - done)
            n = nrows - done;
        if ((st = cf_delta_apply_prepare(a, n, &err)) != CF_OK) {
            fuzz_require_clean_error(st, &err);
            break;
        }
        for (size_t c = 0; c < NCOLS && st == CF_OK; c++) {
            size_t w = cf_type_size(schema[c].type);
            bool bin = cf_type_is_binary(schema[c].type);
            /* base values: all set, binary ones empty; a guard after them */
            size_t used = n * w, guard = used + 16 <= sizeof vals ? 16 : sizeof vals - used;
            memset(vals, 0, used + guard);
            memset(nonnull, 0xff, sizeof nonnull);
            st = cf_delta_apply_updates(a, c, vals, schema[c].nullable ? nonnull : NULL, &err);
            if (st != CF_OK) {
                fuzz_require_clean_error(st, &err);
                break;
            }
            for (size_t i = 0; i < n; i++) {
                bool set = nonnull[i / 8] >> (i % 8) & 1;
                /* only a nullable column can become NULL */
                FUZZ_REQUIRE(set || schema[c].nullable);
                if (bin && set) {
                    cf_slice s;
                    memcpy(&s, vals + i * w, sizeof s);
                    FUZZ_REQUIRE(s.len == 0 || s.data != NULL);
                    /* the slice must be readable until the next prepare */
                    if (s.len > 0)
                        free(fuzz_dup(s.data, s.len));
                }
            }
            /* nothing beyond the n prepared rows is written */
            for (size_t i = used; i < used + guard; i++)
                FUZZ_REQUIRE(vals[i] == 0);
        }
        if (st != CF_OK)
            break;
        memset(sel, 0xff, sizeof sel);
        if ((st = cf_delta_apply_deletes(a, sel, &err)) != CF_OK) {
            fuzz_require_clean_error(st, &err);
            break;
        }
        done += n;
    }
    cf_delta_apply_free(a);
}

static void read_file(uint8_t opt, const uint8_t *p, size_t n)
{
    cf_delta_type type = (opt & 2) ? CF_DELTA_UNDO : CF_DELTA_REDO;
    cf_error err = {0};
    cf_io *io = NULL;
    if (opt & 8)
        io = fuzz_io_noview(p, n);
    else
        FUZZ_REQUIRE(cf_io_open_mem(&io, p, n, &err) == CF_OK);
    cf_reader_options ro;
    cf_reader_options_init(&ro);
    ro.verify_checksums = (opt & 4) != 0;
    cf_delta_reader *r = NULL;
    cf_status st = cf_delta_reader_open(&r, io, type, &ro, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        FUZZ_REQUIRE(r == NULL);
        cf_io_free(io);
        return;
    }
    FUZZ_REQUIRE(cf_delta_reader_type(r) == type);
    const cf_delta_stats *stats = NULL;
    st = cf_delta_reader_stats(r, &stats, &err);
    if (st != CF_OK)
        fuzz_require_clean_error(st, &err);
    else
        for (size_t i = 0; i < stats->ncols; i++)
            (void)stats->cols[i].update_count; /* readable */

    fuzz_rng rng = {(uint32_t)(opt >> 4) * 2654435761u + 3};
    cf_delta_iter *it = NULL;
    if ((st = cf_delta_iter_create(&it, r, &err)) != CF_OK) {
        fuzz_require_clean_error(st, &err);
        goto out;
    }
    /* 1. every delta, in batches of varied sizes */
    cf_delta batch[64];
    uint32_t min_row = UINT32_MAX, max_row = 0;
    uint32_t rows[8] = {0};
    size_t seen = 0;
    if ((st = cf_delta_iter_seek_to_first(it, &err)) != CF_OK) {
        fuzz_require_clean_error(st, &err);
        goto out;
    }
    for (;;) {
        size_t cap = 1 + fuzz_rng_below(&rng, 64), got = 0;
        if ((st = cf_delta_iter_next_batch(it, batch, cap, &got, &err)) != CF_OK) {
            fuzz_require_clean_error(st, &err);
            break;
        }
        FUZZ_REQUIRE(got <= cap);
        if (got == 0)
            break;
        for (size_t i = 0; i < got; i++) {
            const cf_delta *d = &batch[i];
            FUZZ_REQUIRE(d->key.len >= 2 && d->key.len <= CF_DELTA_KEY_MAX);
            FUZZ_REQUIRE(d->rcl.data == d->key.data + d->key.len);
            /* the key decodes again to the same (row, ts) */
            uint32_t row;
            uint64_t ts;
            size_t used;
            FUZZ_REQUIRE(cf_delta_key_decode(d->key.data, d->key.len, &row, &ts, &used, &err) ==
                         CF_OK);
            FUZZ_REQUIRE(row == d->row && ts == d->ts && used == d->key.len);
            (void)fuzz_check_rcl(d->rcl, schema, NCOLS, check_array_cell, &(cf_error){0});
            min_row = d->row < min_row ? d->row : min_row;
            max_row = d->row > max_row ? d->row : max_row;
            if (fuzz_rng_below(&rng, 4) == 0)
                rows[fuzz_rng_below(&rng, 8)] = d->row;
        }
        seen += got;
        if (seen > MAX_SEEN)
            break;
    }
    /* 2. seeks: whatever the index says, nothing of an earlier row comes back */
    for (int i = 0; i < 10; i++) {
        uint32_t target = i < 8 ? rows[i] : i == 8 ? max_row + 1 : fuzz_rng_next(&rng);
        if ((st = cf_delta_iter_seek_to_row(it, target, &err)) != CF_OK) {
            fuzz_require_clean_error(st, &err);
            continue;
        }
        size_t got = 0;
        st = cf_delta_iter_next_batch(it, batch, 1 + fuzz_rng_below(&rng, 64), &got, &err);
        if (st != CF_OK)
            fuzz_require_clean_error(st, &err);
        else if (got > 0)
            FUZZ_REQUIRE(batch[0].row >= target);
    }
    /* 3. the applier over (part of) the rows seen, at a few snapshots */
    if (seen > 0) {
        size_t span = (size_t)(max_row - min_row) + 1;
        if (span > MAX_APPLY_ROWS)
            span = MAX_APPLY_ROWS;
        uint64_t snaps[3] = {0, fuzz_rng_next(&rng) % 64, UINT64_MAX};
        for (int i = 0; i < 3; i++)
            check_apply(r, min_row, span, snaps[i], &rng);
    }
out:
    cf_delta_iter_free(it);
    cf_delta_reader_free(r);
    cf_io_free(io);
}

typedef struct delta_rec {
    uint32_t row;
    uint64_t ts;
    cf_rcl_type type;
    size_t off, len; /* of its RowChangeList in the arena */
} delta_rec;

/* Build up to MAX_DELTAS deltas from the input, in REDO or UNDO order. */
static size_t build_deltas(const uint8_t *p, size_t n, bool undo, delta_rec *out, uint8_t *arena,
                           size_t *arena_len, cf_rcl_builder *b)
{
    size_t k = 0, al = 0;
    uint32_t row = 0;
    uint64_t ts = 0;
    for (size_t i = 0; i + 4 <= n && k < MAX_DELTAS;) {
        uint8_t step = p[i], tsb = p[i + 1], kind = p[i + 2], len = p[i + 3] % 24;
        i += 4;
        if (len > n - i)
            len = (uint8_t)(n - i);
        const uint8_t *payload = p + i;
        i += len;
        /* mostly several deltas per row; now and then a big jump */
        uint32_t jump = step >= 0xf0 ? (uint32_t)step << 20 : step % 4;
        if (k > 0 && jump > UINT32_MAX - row)
            break;
        bool new_row = k == 0 || jump != 0;
        row += jump;
        if (undo)
            ts = new_row ? 1000u + tsb : ts - (tsb % 8 > ts ? ts : tsb % 8);
        else
            ts = new_row ? tsb : ts + tsb % 8;
        cf_rcl_type t = (cf_rcl_type)(CF_RCL_UPDATE + kind % 3);
        cf_rcl_builder_reset(b, t);
        cf_error err = {0};
        if (t != CF_RCL_DELETE) {
            /* 1..3 changes; an empty payload part is a NULL */
            size_t nch = 1 + (kind >> 2) % 3, off = 0;
            for (size_t c = 0; c < nch; c++) {
                size_t part = c + 1 == nch ? len - off : (len - off) / 2;
                uint32_t id = (uint32_t)((kind >> 4) + c * 3) % 9;
                FUZZ_REQUIRE(cf_rcl_builder_add(b, id, part ? payload + off : NULL, part, &err) ==
                             CF_OK);
                off += part;
            }
        }
        cf_slice s = cf_rcl_builder_bytes(b);
        memcpy(arena + al, s.data, s.len);
        out[k++] = (delta_rec){row, ts, t, al, s.len};
        al += s.len;
    }
    *arena_len = al;
    return k;
}

static void round_trip(uint8_t opt, const uint8_t *p, size_t n)
{
    static delta_rec recs[MAX_DELTAS];
    /* each list: type byte + up to 3 x (varint id, varint len, bytes) of 24 bytes in all */
    static uint8_t arena[MAX_DELTAS * 48];
    static const cf_compression codecs[4] = {CF_COMP_NONE, CF_COMP_SNAPPY, CF_COMP_LZ4,
                                             CF_COMP_ZLIB};
    static const uint32_t block_sizes[4] = {512, 700, 4096, CF_DELTA_DEFAULT_BLOCK_SIZE};
    bool undo = (opt & 2) != 0;
    cf_error err = {0};
    cf_rcl_builder *b = NULL;
    FUZZ_REQUIRE(cf_rcl_builder_create(&b, &err) == CF_OK);
    size_t alen = 0;
    size_t k = build_deltas(p, n, undo, recs, arena, &alen, b);
    cf_rcl_builder_free(b);
    if (k == 0)
        return;

    cf_delta_writer_options wo;
    cf_delta_writer_options_init(&wo);
    wo.type = undo ? CF_DELTA_UNDO : CF_DELTA_REDO;
    wo.compression = codecs[(opt >> 2) & 3];
    wo.checksums = (opt & 16) != 0;
    wo.write_stats = (opt & 32) != 0;
    wo.block_size = block_sizes[opt >> 6];
    if (!cf_codec_available(wo.compression))
        wo.compression = CF_COMP_NONE;
    cf_io *out = NULL;
    FUZZ_REQUIRE(cf_io_create_mem(&out, &err) == CF_OK);
    cf_delta_writer *w = NULL;
    FUZZ_REQUIRE_MSG(cf_delta_writer_create(&w, out, &wo, &err) == CF_OK, &err);
    for (size_t i = 0; i < k; i++)
        FUZZ_REQUIRE_MSG(cf_delta_writer_append(w, recs[i].row, recs[i].ts,
                                                (cf_slice){arena + recs[i].off, recs[i].len},
                                                &err) == CF_OK,
                         &err);
    FUZZ_REQUIRE_MSG(cf_delta_writer_finish(w, &err) == CF_OK, &err);
    cf_delta_writer_free(w);
    cf_slice f = cf_io_mem_contents(out);
    uint8_t *file = fuzz_dup(f.data, f.len);
    size_t flen = f.len;
    cf_io_free(out);

    cf_io *io = NULL;
    FUZZ_REQUIRE(cf_io_open_mem(&io, file, flen, &err) == CF_OK);
    cf_delta_reader *r = NULL;
    FUZZ_REQUIRE_MSG(cf_delta_reader_open(&r, io, wo.type, NULL, &err) == CF_OK, &err);
    const cf_delta_stats *stats = NULL;
    if (wo.write_stats) {
        FUZZ_REQUIRE_MSG(cf_delta_reader_stats(r, &stats, &err) == CF_OK, &err);
        int64_t dels = 0, reins = 0;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (size_t i = 0; i < k; i++) {
            dels += recs[i].type == CF_RCL_DELETE;
            reins += recs[i].type == CF_RCL_REINSERT;
            lo = recs[i].ts < lo ? recs[i].ts : lo;
            hi = recs[i].ts > hi ? recs[i].ts : hi;
        }
        FUZZ_REQUIRE(stats->delete_count == dels && stats->reinsert_count == reins);
        FUZZ_REQUIRE(stats->min_ts == lo && stats->max_ts == hi);
    } else {
        FUZZ_REQUIRE(cf_delta_reader_stats(r, &stats, &err) == CF_ENOTSUP);
    }

    /* every delta back, in order; then from a few seek targets, the suffix
     * starting at the first delta of a row >= the target */
    cf_delta_iter *it = NULL;
    FUZZ_REQUIRE_MSG(cf_delta_iter_create(&it, r, &err) == CF_OK, &err);
    fuzz_rng rng = {(uint32_t)k * 2654435761u + opt};
    for (int s = 0; s < 4; s++) {
        size_t from = 0;
        if (s == 0) {
            FUZZ_REQUIRE_MSG(cf_delta_iter_seek_to_first(it, &err) == CF_OK, &err);
        } else {
            uint32_t target = s == 3 ? recs[k - 1].row + (recs[k - 1].row < UINT32_MAX)
                                     : recs[fuzz_rng_below(&rng, k)].row + (uint32_t)(s == 2);
            if (s == 2 && target == 0) /* the +1 wrapped */
                target = UINT32_MAX;
            FUZZ_REQUIRE_MSG(cf_delta_iter_seek_to_row(it, target, &err) == CF_OK, &err);
            while (from < k && recs[from].row < target)
                from++;
        }
        size_t i = from;
        for (;;) {
            cf_delta batch[37];
            size_t got = 0;
            FUZZ_REQUIRE_MSG(cf_delta_iter_next_batch(it, batch, 1 + fuzz_rng_below(&rng, 37), &got,
                                                      &err) == CF_OK,
                             &err);
            if (got == 0)
                break;
            for (size_t j = 0; j < got; j++, i++) {
                FUZZ_REQUIRE(i < k);
                const delta_rec *e = &recs[i];
                FUZZ_REQUIRE(batch[j].row == e->row && batch[j].ts == e->ts);
                FUZZ_REQUIRE(batch[j].rcl.len == e->len &&
                             memcmp(batch[j].rcl.data, arena + e->off, e->len) == 0);
            }
        }
        FUZZ_REQUIRE(i == k);
    }
    cf_delta_iter_free(it);
    cf_delta_reader_free(r);
    cf_io_free(io);
    /* and the written file through the reader-side checks */
    read_file((uint8_t)((opt & 0xf0) | (undo ? 2 : 0) | 4), file, flen);
    free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_read_or_round_trip(data, size, read_file, round_trip);
}
