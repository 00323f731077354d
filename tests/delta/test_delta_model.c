/* DeltaFile round trips against an in-memory model: random state-valid histories
 * written as REDO files (forward ops) and UNDO files (their inverses over the
 * final state), read back whole and by row seeks, and applied at random
 * snapshots in random batches; the result must equal replaying the forward
 * history up to the snapshot. Plus bad input: out-of-order appends, bad change
 * lists, empty files, non-delta files, truncated files. */
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

#include <cfile/delta.h>
#include <cfile/writer.h>

#define NROWS 300
#define MAXOPS 12

static const cf_delta_column cols[] = {
    {.id = 0, .name = "k", .type = CF_TYPE_INT64, .is_key = true},
    {.id = 10, .name = "a", .type = CF_TYPE_INT32},
    {.id = 11, .name = "s", .type = CF_TYPE_STRING, .nullable = true},
};

typedef struct rowstate {
    int32_t a;
    bool s_null;
    char s[8];
    bool live;
} rowstate;

typedef struct op {
    uint64_t ts;
    cf_rcl_type type;
    bool set_a, set_s; /* UPDATE: which columns */
    rowstate v;        /* new values (UPDATE/REINSERT) */
} op;

typedef struct history {
    rowstate base[NROWS];  /* before any op (REDO base) */
    rowstate final[NROWS]; /* after all ops (UNDO base) */
    op ops[NROWS][MAXOPS];
    int nops[NROWS];
} history;

static void apply_op(rowstate *r, const op *o)
{
    if (o->type == CF_RCL_DELETE) {
        r->live = false;
        return;
    }
    if (o->type == CF_RCL_REINSERT)
        r->live = true;
    if (o->type == CF_RCL_REINSERT || o->set_a)
        r->a = o->v.a;
    if (o->type == CF_RCL_REINSERT || o->set_s) {
        r->s_null = o->v.s_null;
        memcpy(r->s, o->v.s, sizeof(r->s));
    }
}

static void rand_values(cf_rng *g, rowstate *v)
{
    v->a = (int32_t)cf_rng_next(g);
    v->s_null = cf_rng_below(g, 4) == 0;
    memset(v->s, 0, sizeof(v->s));
    size_t n = (size_t)cf_rng_below(g, sizeof(v->s));
    for (size_t i = 0; i < n; i++)
        v->s[i] = (char)('a' + cf_rng_below(g, 26));
}

static void gen(cf_rng *g, history *h)
{
    for (int r = 0; r < NROWS; r++) {
        rand_values(g, &h->base[r]);
        h->base[r].live = true;
        rowstate cur = h->base[r];
        int n = cf_rng_below(g, 3) == 0 ? 0 : (int)cf_rng_below(g, MAXOPS - 1) + 1;
        uint64_t ts = 1 + cf_rng_below(g, 20);
        for (int i = 0; i < n; i++) {
            op *o = &h->ops[r][i];
            o->ts = ts;
            ts += 1 + cf_rng_below(g, 30);
            if (!cur.live)
                o->type = CF_RCL_REINSERT;
            else
                o->type = cf_rng_below(g, 4) == 0 ? CF_RCL_DELETE : CF_RCL_UPDATE;
            rand_values(g, &o->v);
            o->set_a = cf_rng_below(g, 2) == 0;
            o->set_s = !o->set_a || cf_rng_below(g, 2) == 0;
            apply_op(&cur, o);
        }
        /* UNDO files start from a live row (the base data). */
        if (!cur.live) {
            op *o = &h->ops[r][n++];
            o->ts = ts;
            o->type = CF_RCL_REINSERT;
            rand_values(g, &o->v);
            apply_op(&cur, o);
        }
        h->nops[r] = n;
        h->final[r] = cur;
    }
}

static void add_a(cf_rcl_builder *b, int32_t a)
{
    cf_error err;
    CF_ASSERT_OK(cf_rcl_builder_add(b, 10, &a, 4, &err), &err);
}

static void add_s(cf_rcl_builder *b, const rowstate *v)
{
    cf_error err;
    CF_ASSERT_OK(cf_rcl_builder_add(b, 11, v->s_null ? NULL : v->s, strlen(v->s), &err), &err);
}

/* The change list of op o (REDO), or of its inverse given the state before it (UNDO). */
static void encode(cf_rcl_builder *b, const op *o, const rowstate *before, bool undo)
{
    if (!undo) {
        cf_rcl_builder_reset(b, o->type);
        if (o->type == CF_RCL_REINSERT || (o->type == CF_RCL_UPDATE && o->set_a))
            add_a(b, o->v.a);
        if (o->type == CF_RCL_REINSERT || (o->type == CF_RCL_UPDATE && o->set_s))
            add_s(b, &o->v);
        return;
    }
    if (o->type == CF_RCL_REINSERT) {
        cf_rcl_builder_reset(b, CF_RCL_DELETE);
    } else if (o->type == CF_RCL_DELETE) {
        cf_rcl_builder_reset(b, CF_RCL_REINSERT);
        add_a(b, before->a);
        add_s(b, before);
    } else {
        cf_rcl_builder_reset(b, CF_RCL_UPDATE);
        if (o->set_a)
            add_a(b, before->a);
        if (o->set_s)
            add_s(b, before);
    }
}

typedef struct written {
    uint32_t row;
    uint64_t ts;
} written;

/* A DeltaFile writer of type t into a new in-memory io, *io: with statistics
 * when stats, blocks of block_size, compressed as by default or not at all. */
static cf_delta_writer *new_writer(cf_io **io, cf_delta_type t, bool stats, uint32_t block_size,
                                   bool compress)
{
    cf_error err;
    CF_ASSERT_OK(cf_io_create_mem(io, &err), &err);
    cf_delta_writer_options o;
    cf_delta_writer_options_init(&o);
    o.type = t;
    o.write_stats = stats;
    o.block_size = block_size;
    if (!compress)
        o.compression = CF_COMP_NONE;
    cf_delta_writer *w;
    CF_ASSERT_OK(cf_delta_writer_create(&w, *io, &o, &err), &err);
    return w;
}

/* Write the history as a REDO or UNDO file into memory. */
static cf_io *write_file(const history *h, bool undo, uint32_t block_size, written *log,
                         size_t *nlog)
{
    cf_error err;
    cf_io *io;
    cf_delta_writer *w =
        new_writer(&io, undo ? CF_DELTA_UNDO : CF_DELTA_REDO, true, block_size, true);
    cf_rcl_builder *b;
    CF_ASSERT_OK(cf_rcl_builder_create(&b, &err), &err);
    *nlog = 0;
    for (int r = 0; r < NROWS; r++) {
        rowstate before[MAXOPS];
        rowstate cur = h->base[r];
        for (int i = 0; i < h->nops[r]; i++) {
            before[i] = cur;
            apply_op(&cur, &h->ops[r][i]);
        }
        for (int k = 0; k < h->nops[r]; k++) {
            int i = undo ? h->nops[r] - 1 - k : k; /* UNDO: newest first */
            encode(b, &h->ops[r][i], &before[i], undo);
            CF_ASSERT_OK(cf_delta_writer_append(w, (uint32_t)r, h->ops[r][i].ts,
                                                cf_rcl_builder_bytes(b), &err),
                         &err);
            log[*nlog].row = (uint32_t)r;
            log[*nlog].ts = h->ops[r][i].ts;
            (*nlog)++;
        }
    }
    CF_ASSERT_OK(cf_delta_writer_finish(w, &err), &err);
    cf_delta_writer_free(w);
    cf_rcl_builder_free(b);
    return io;
}

static void check_iteration(const cf_delta_reader *r, const written *log, size_t nlog, cf_rng *g)
{
    cf_error err;
    cf_delta_iter *it;
    cf_delta buf[37];
    size_t n, k = 0;
    CF_ASSERT_OK(cf_delta_iter_create(&it, r, &err), &err);
    CF_ASSERT_OK(cf_delta_iter_seek_to_first(it, &err), &err);
    for (;;) {
        CF_ASSERT_OK(cf_delta_iter_next_batch(it, buf, 37, &n, &err), &err);
        if (n == 0)
            break;
        for (size_t i = 0; i < n; i++, k++) {
            assert_true(k < nlog);
            assert_int_equal(buf[i].row, log[k].row);
            assert_true(buf[i].ts == log[k].ts);
        }
    }
    assert_int_equal(k, nlog);
    for (int t = 0; t < 40; t++) {
        uint32_t row = (uint32_t)cf_rng_below(g, NROWS + 5);
        size_t first = 0;
        while (first < nlog && log[first].row < row)
            first++;
        CF_ASSERT_OK(cf_delta_iter_seek_to_row(it, row, &err), &err);
        CF_ASSERT_OK(cf_delta_iter_next_batch(it, buf, 1, &n, &err), &err);
        if (first == nlog) {
            assert_int_equal(n, 0);
        } else {
            assert_int_equal(n, 1);
            assert_int_equal(buf[0].row, log[first].row);
            assert_true(buf[0].ts == log[first].ts);
        }
    }
    cf_delta_iter_free(it);
}

static void check_apply(const cf_delta_reader *r, const history *h, bool undo, uint64_t snap,
                        cf_rng *g)
{
    cf_error err;
    uint32_t start = (uint32_t)cf_rng_below(g, 50);
    size_t rows = NROWS - start, batch = 1 + (size_t)cf_rng_below(g, 80);
    cf_delta_apply *ap;
    bool culled;
    CF_ASSERT_OK(cf_delta_apply_create(&ap, r, cols, 3, snap, &culled, &err), &err);
    CF_ASSERT_OK(cf_delta_apply_seek(ap, start, &err), &err);
    for (size_t done = 0; done < rows; done += batch) {
        size_t n = rows - done < batch ? rows - done : batch;
        int32_t a[100];
        cf_slice s[100];
        uint8_t nn[16], sel[16];
        memset(nn, 0, sizeof(nn));
        memset(sel, 0xff, sizeof(sel));
        for (size_t i = 0; i < n; i++) {
            const rowstate *b = undo ? &h->final[start + done + i] : &h->base[start + done + i];
            a[i] = b->a;
            s[i] = (cf_slice){(const uint8_t *)b->s, strlen(b->s)};
            if (!b->s_null)
                nn[i / 8] |= (uint8_t)(1u << (i % 8));
        }
        CF_ASSERT_OK(cf_delta_apply_prepare(ap, n, &err), &err);
        CF_ASSERT_OK(cf_delta_apply_updates(ap, 1, a, NULL, &err), &err);
        /* A nullable column without its bitmap: refused (an update to NULL could
         * only zero the value and leave the row present), the values untouched. */
        assert_int_equal(cf_delta_apply_updates(ap, 2, s, NULL, &err), CF_EINVAL);
        assert_non_null(strstr(err.msg, "column 2 (s) is nullable"));
        CF_ASSERT_OK(cf_delta_apply_updates(ap, 2, s, nn, &err), &err);
        CF_ASSERT_OK(cf_delta_apply_deletes(ap, sel, &err), &err);
        for (size_t i = 0; i < n; i++) {
            int row = (int)(start + done + i);
            /* The model: replay the forward history up to the snapshot. */
            rowstate m = h->base[row];
            for (int k = 0; k < h->nops[row] && h->ops[row][k].ts < snap; k++)
                apply_op(&m, &h->ops[row][k]);
            bool live = sel[i / 8] >> (i % 8) & 1;
            if (live != m.live)
                fail_msg("%s row %d snapshot %lu: live %d, model %d", undo ? "undo" : "redo", row,
                         (unsigned long)snap, live, m.live);
            if (!m.live)
                continue; /* a deleted row's cells carry no meaning */
            assert_int_equal(a[i], m.a);
            bool present = nn[i / 8] >> (i % 8) & 1;
            assert_int_equal(present, !m.s_null);
            if (present) {
                assert_int_equal(s[i].len, strlen(m.s));
                assert_memory_equal(s[i].data, m.s, s[i].len);
            }
        }
    }
    cf_delta_apply_free(ap);
}

static void run_model(bool undo)
{
    cf_rng g;
    cf_rng_init(&g, cf_test_seed(undo ? 2024 : 1204));
    history *h = calloc(1, sizeof(*h));
    written *log = calloc(NROWS * MAXOPS, sizeof(*log));
    assert_non_null(h);
    assert_non_null(log);
    for (int round = 0; round < 4; round++) {
        gen(&g, h);
        size_t nlog;
        uint32_t bs = round % 2 ? 512 : 32768;
        cf_io *io = write_file(h, undo, bs, log, &nlog);
        cf_slice bytes = cf_io_mem_contents(io);
        cf_error err;
        cf_io *rio;
        CF_ASSERT_OK(cf_io_open_mem(&rio, bytes.data, bytes.len, &err), &err);
        cf_delta_reader *r;
        CF_ASSERT_OK(
            cf_delta_reader_open(&r, rio, undo ? CF_DELTA_UNDO : CF_DELTA_REDO, NULL, &err), &err);
        const cf_delta_stats *st;
        CF_ASSERT_OK(cf_delta_reader_stats(r, &st, &err), &err);
        check_iteration(r, log, nlog, &g);
        uint64_t snaps[] = {0, 1, 2, 15, 40, 77, 150, 400, 1000};
        for (size_t i = 0; i < sizeof(snaps) / sizeof(snaps[0]); i++)
            check_apply(r, h, undo, snaps[i] + cf_rng_below(&g, 3), &g);
        cf_delta_reader_free(r);
        cf_io_free(rio);
        cf_io_free(io);
    }
    free(log);
    free(h);
}

static void test_delta_model__redo(void **state)
{
    (void)state;
    run_model(false);
}

static void test_delta_model__undo(void **state)
{
    (void)state;
    run_model(true);
}

static void test_delta_model__bad_writes(void **state)
{
    (void)state;
    cf_error err;
    cf_io *io;
    const uint8_t del = 2, bad = 9, upd_trunc[] = {1, 10, 9, 1};
    cf_slice d = {&del, 1};
    /* REDO: ts must not go back within a row, nor the row. */
    cf_delta_writer *w = new_writer(&io, CF_DELTA_REDO, true, CF_DELTA_DEFAULT_BLOCK_SIZE, true);
    CF_ASSERT_OK(cf_delta_writer_append(w, 5, 10, d, &err), &err);
    CF_ASSERT_OK(cf_delta_writer_append(w, 5, 10, d, &err), &err); /* equal keys are fine */
    CF_ASSERT_STATUS(cf_delta_writer_append(w, 5, 9, d, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "breaks the order"));
    const cf_error first = err; /* sticky, with its message */
    CF_ASSERT_REPLAYED(cf_delta_writer_append(w, 6, 1, d, &err), CF_EINVAL, &err, "delta writer",
                       &first);
    CF_ASSERT_REPLAYED(cf_delta_writer_finish(w, &err), CF_EINVAL, &err, "delta writer", &first);
    cf_delta_writer_free(w);
    cf_io_free(io);
    /* UNDO: ts descending within a row; rows ascending. */
    w = new_writer(&io, CF_DELTA_UNDO, true, CF_DELTA_DEFAULT_BLOCK_SIZE, true);
    CF_ASSERT_OK(cf_delta_writer_append(w, 5, 10, d, &err), &err);
    CF_ASSERT_OK(cf_delta_writer_append(w, 5, 9, d, &err), &err);
    CF_ASSERT_OK(cf_delta_writer_append(w, 6, 20, d, &err), &err);
    CF_ASSERT_STATUS(cf_delta_writer_append(w, 6, 21, d, &err), CF_EINVAL, &err);
    cf_delta_writer_free(w);
    cf_io_free(io);
    w = new_writer(&io, CF_DELTA_UNDO, true, CF_DELTA_DEFAULT_BLOCK_SIZE, true);
    CF_ASSERT_OK(cf_delta_writer_append(w, 5, 10, d, &err), &err);
    CF_ASSERT_STATUS(cf_delta_writer_append(w, 4, 10, d, &err), CF_EINVAL, &err);
    cf_delta_writer_free(w);
    cf_io_free(io);
    /* Unknown change type and an overrunning list: the statistics refuse them. */
    w = new_writer(&io, CF_DELTA_REDO, true, CF_DELTA_DEFAULT_BLOCK_SIZE, true);
    CF_ASSERT_STATUS(cf_delta_writer_append(w, 1, 1, (cf_slice){&bad, 1}, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "bad type enum value: 9"));
    cf_delta_writer_free(w);
    cf_io_free(io);
    w = new_writer(&io, CF_DELTA_REDO, true, CF_DELTA_DEFAULT_BLOCK_SIZE, true);
    CF_ASSERT_STATUS(cf_delta_writer_append(w, 1, 1, (cf_slice){upd_trunc, 4}, &err), CF_ECORRUPT,
                     &err);
    assert_non_null(strstr(err.msg, "truncated value for column id 10"));
    cf_delta_writer_free(w);
    cf_io_free(io);
    /* No deltas: Kudu refuses to finish. */
    w = new_writer(&io, CF_DELTA_REDO, true, CF_DELTA_DEFAULT_BLOCK_SIZE, true);
    CF_ASSERT_STATUS(cf_delta_writer_finish(w, &err), CF_ESTATE, &err);
    cf_delta_writer_free(w);
    cf_io_free(io);
    cf_delta_writer_options o;
    cf_delta_writer_options_init(&o);
    o.version = 99;
    CF_ASSERT_STATUS(cf_delta_writer_create(&w, io, &o, &err), CF_EINVAL, &err);
}

/* A row whose deltas all carry timestamp 0 (equal DeltaKeys), spread over
 * several blocks: a seek to that row must still return all of them, not only
 * those of the last block whose index key equals the seek key. Found by
 * fuzz_delta (fuzz/regress/fuzz_delta/). */
static void test_delta_model__seek_equal_keys_across_blocks(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        cf_error err;
        cf_io *io;
        cf_delta_writer *w = new_writer(&io, t ? CF_DELTA_UNDO : CF_DELTA_REDO, true, 512,
                                        false); /* ~30 deltas per block */
        /* UPDATE of column 10 to i (INT32): type, id, len+1, 4 bytes */
        uint8_t rcl[7] = {1, 10, 5, 0, 0, 0, 0};
        for (uint32_t i = 0; i < 100; i++) {
            memcpy(rcl + 3, &i, 4);
            uint32_t row = i < 10 ? i : i < 90 ? 10 : 11;
            CF_ASSERT_OK(
                cf_delta_writer_append(w, row, row == 10 ? 0 : 1, (cf_slice){rcl, 7}, &err), &err);
        }
        CF_ASSERT_OK(cf_delta_writer_finish(w, &err), &err);
        cf_delta_writer_free(w);
        cf_slice f = cf_io_mem_contents(io);
        cf_io *in;
        CF_ASSERT_OK(cf_io_open_mem(&in, f.data, f.len, &err), &err);
        cf_delta_reader *r;
        CF_ASSERT_OK(cf_delta_reader_open(&r, in, t ? CF_DELTA_UNDO : CF_DELTA_REDO, NULL, &err),
                     &err);
        cf_delta_iter *it;
        CF_ASSERT_OK(cf_delta_iter_create(&it, r, &err), &err);
        for (uint32_t target = 9; target <= 12; target++) {
            CF_ASSERT_OK(cf_delta_iter_seek_to_row(it, target, &err), &err);
            /* the first delta of a row >= target is number want, in file order */
            uint32_t want = target <= 10 ? target : target == 11 ? 90 : 100;
            cf_delta d[16];
            size_t n;
            do {
                CF_ASSERT_OK(cf_delta_iter_next_batch(it, d, 16, &n, &err), &err);
                for (size_t j = 0; j < n; j++, want++) {
                    uint32_t v;
                    assert_int_equal(d[j].rcl.len, 7);
                    memcpy(&v, d[j].rcl.data + 3, 4);
                    if (v != want)
                        fail_msg("%s seek to row %u: delta %u where %u was due",
                                 t ? "UNDO" : "REDO", target, v, want);
                }
            } while (n > 0);
            assert_int_equal(want, 100);
        }
        cf_delta_iter_free(it);
        cf_delta_reader_free(r);
        cf_io_free(in);
        cf_io_free(io);
    }
}

/* A CFile written with options o (INT32 values) holding one value, opened as
 * a REDO DeltaFile: refused with CF_ENOTSUP, and message msg when not NULL. */
static void int_cfile_not_delta(const cf_writer_options *o, const char *msg)
{
    cf_error err;
    cf_io *io, *rio;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_writer *cw;
    CF_ASSERT_OK(cf_writer_create(&cw, io, o, &err), &err);
    int32_t x = 1;
    CF_ASSERT_OK(cf_writer_append(cw, &x, NULL, 1, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(cw, &err), &err);
    cf_writer_free(cw);
    cf_slice bytes = cf_io_mem_contents(io);
    CF_ASSERT_OK(cf_io_open_mem(&rio, bytes.data, bytes.len, &err), &err);
    cf_delta_reader *r;
    CF_ASSERT_STATUS(cf_delta_reader_open(&r, rio, CF_DELTA_REDO, NULL, &err), CF_ENOTSUP, &err);
    if (msg != NULL)
        assert_string_equal(err.msg, msg);
    cf_io_free(rio);
    cf_io_free(io);
}

static void test_delta_model__bad_files(void **state)
{
    (void)state;
    cf_error err;
    cf_io *io, *rio;
    cf_delta_reader *r;
    /* A file without stats reads, but cannot be applied. */
    cf_delta_writer *w = new_writer(&io, CF_DELTA_REDO, false, CF_DELTA_DEFAULT_BLOCK_SIZE, true);
    const uint8_t rcl[] = {1, 10, 5, 1, 0, 0, 0};
    for (uint32_t row = 0; row < 2000; row++)
        CF_ASSERT_OK(cf_delta_writer_append(w, row, 7, (cf_slice){rcl, sizeof(rcl)}, &err), &err);
    CF_ASSERT_OK(cf_delta_writer_finish(w, &err), &err);
    cf_delta_writer_free(w);
    cf_slice bytes = cf_io_mem_contents(io);
    CF_ASSERT_OK(cf_io_open_mem(&rio, bytes.data, bytes.len, &err), &err);
    CF_ASSERT_OK(cf_delta_reader_open(&r, rio, CF_DELTA_REDO, NULL, &err), &err);
    const cf_delta_stats *st;
    CF_ASSERT_STATUS(cf_delta_reader_stats(r, &st, &err), CF_ENOTSUP, &err);
    assert_string_equal(err.msg, "missing delta stats from the delta file metadata");
    cf_delta_apply *ap;
    CF_ASSERT_STATUS(cf_delta_apply_create(&ap, r, cols, 3, 10, NULL, &err), CF_ENOTSUP, &err);
    cf_delta_reader_free(r);
    cf_io_free(rio);
    /* Every truncation is refused cleanly. */
    for (size_t len = 0; len < bytes.len; len += 1 + len / 8) {
        CF_ASSERT_OK(cf_io_open_mem(&rio, bytes.data, len, &err), &err);
        assert_int_not_equal(cf_delta_reader_open(&r, rio, CF_DELTA_REDO, NULL, &err), CF_OK);
        cf_io_free(rio);
    }
    cf_io_free(io);

    /* An ordinary CFile (no value index) is not a DeltaFile; nor is one whose
     * values do not start with a DeltaKey. */
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_BINARY);
    o.write_validx = true;
    cf_writer *cw;
    CF_ASSERT_OK(cf_writer_create(&cw, io, &o, &err), &err);
    cf_slice v[2] = {{(const uint8_t *)"\xf9", 1}, {(const uint8_t *)"\xf9\x01", 2}};
    CF_ASSERT_OK(cf_writer_append(cw, v, NULL, 2, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(cw, &err), &err);
    cf_writer_free(cw);
    bytes = cf_io_mem_contents(io);
    CF_ASSERT_OK(cf_io_open_mem(&rio, bytes.data, bytes.len, &err), &err);
    CF_ASSERT_OK(cf_delta_reader_open(&r, rio, CF_DELTA_REDO, NULL, &err), &err);
    cf_delta_iter *it;
    cf_delta out[4];
    size_t n;
    CF_ASSERT_OK(cf_delta_iter_create(&it, r, &err), &err);
    CF_ASSERT_OK(cf_delta_iter_seek_to_first(it, &err), &err);
    CF_ASSERT_STATUS(cf_delta_iter_next_batch(it, out, 4, &n, &err), CF_ECORRUPT, &err);
    cf_delta_iter_free(it);
    cf_delta_reader_free(r);
    cf_io_free(rio);
    cf_io_free(io);

    cf_writer_options_init(&o, CF_TYPE_INT32);
    int_cfile_not_delta(&o, NULL);
    /* A value index but not BINARY values: the message names what the values
     * are (it once read them from the freed reader: an ASan finding of
     * fuzz_delta, fuzz/regress/fuzz_delta/). */
    cf_writer_options_init(&o, CF_TYPE_INT32);
    o.nullable = true;
    o.write_validx = true;
    int_cfile_not_delta(&o, "not a delta file: values are INT32 (nullable), not BINARY");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delta_model__redo),
        cmocka_unit_test(test_delta_model__undo),
        cmocka_unit_test(test_delta_model__bad_writes),
        cmocka_unit_test(test_delta_model__bad_files),
        cmocka_unit_test(test_delta_model__seek_equal_keys_across_blocks),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
