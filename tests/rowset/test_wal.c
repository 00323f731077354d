/* The write-ahead log module (src/rowset/wal.c): round trips of many records
 * through the appender and the directory scan, a torn tail at every byte of the
 * last record (always cut, never damage), a flipped bit inside (damage, named),
 * oversized lengths, checkpoints, and batch decoding of hostile payloads. */
#include "test_common.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/delta.h>

#include "codec/crc32c.h"
#include "rowset/wal.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/endian.h"

#include "support_table.h"

static void tmpdir(char *out, size_t cap)
{
    snprintf(out, cap, "/tmp/cf_test_wal_XXXXXX");
    assert_non_null(mkdtemp(out));
}

/* An op of record i: update, key = i, one int64 column. */
typedef struct opbuf {
    uint8_t key[32], rcl[64];
    cf_wal_op op;
} opbuf;

static void make_op(opbuf *o, uint64_t i)
{
    cf_error err;
    cf_rcl_builder *b;
    CF_ASSERT_OK(cf_rcl_builder_create(&b, &err), &err);
    int64_t k = (int64_t)i;
    cf_rcl_builder_reset(b, CF_RCL_UPDATE);
    CF_ASSERT_OK(cf_rcl_builder_add(b, 0, &k, 8, &err), &err);
    cf_slice s = cf_rcl_builder_bytes(b);
    memcpy(o->key, s.data, s.len);
    o->op.key = (cf_slice){o->key, s.len};
    uint8_t type = (uint8_t)(1 + i % 3);
    static const cf_rcl_type rt[] = {0, CF_RCL_REINSERT, CF_RCL_UPDATE, CF_RCL_DELETE};
    cf_rcl_builder_reset(b, rt[type]);
    int64_t v = (int64_t)(i * 7);
    if (type != CF_WAL_DELETE)
        CF_ASSERT_OK(cf_rcl_builder_add(b, 1, &v, 8, &err), &err);
    s = cf_rcl_builder_bytes(b);
    memcpy(o->rcl, s.data, s.len);
    o->op.rcl = (cf_slice){o->rcl, s.len};
    o->op.type = type;
    o->op.ts = 100 + i;
    o->op.flags = (uint8_t)(i % 2 ? CF_WAL_OP_MRS : 0);
    cf_rcl_builder_free(b);
}

typedef struct seen {
    uint64_t n;
    uint64_t last_off;
} seen;

static cf_status count_op(void *ctx, const cf_wal_op *op, const char *seg, uint64_t off,
                          cf_error *err)
{
    (void)seg;
    (void)err;
    seen *s = ctx;
    opbuf want;
    make_op(&want, s->n);
    assert_int_equal(op->type, want.op.type);
    assert_int_equal(op->ts, want.op.ts);
    assert_int_equal(op->flags, want.op.flags);
    CF_ASSERT_BYTES(op->key.data, op->key.len, want.op.key.data, want.op.key.len);
    CF_ASSERT_BYTES(op->rcl.data, op->rcl.len, want.op.rcl.data, want.op.rcl.len);
    s->n++;
    s->last_off = off;
    return CF_OK;
}

/* Write n single-op records (ops 0..n-1) into a fresh log of dir. */
static void write_log(const char *dir, uint64_t n, cf_wal_sync_mode mode)
{
    cf_error err;
    cf_wal *w;
    CF_ASSERT_OK(cf_wal_open(&w, dir, NULL, 5, mode, 1 << 20, &err), &err);
    for (uint64_t i = 0; i < n; i++) {
        opbuf o;
        make_op(&o, i);
        CF_ASSERT_OK(cf_wal_append(w, &o.op, 1, &err), &err);
    }
    CF_ASSERT_OK(cf_wal_sync(w, &err), &err);
    assert_int_equal(cf_wal_seq(w), 1);
    cf_wal_free(w);
}

static void seg_path(const char *dir, uint64_t seq, char *out, size_t cap)
{
    snprintf(out, cap, "%s/wal/wal-%016" PRIu64 ".log", dir, seq);
}

static void test_wal__round_trip(void **state)
{
    (void)state;
    char dir[64];
    tmpdir(dir, sizeof(dir));
    cf_error err;
    for (int mode = 0; mode < 3; mode++) {
        /* fewer records when each one is an fdatasync */
        uint64_t n = mode == CF_WAL_SYNC_COMMIT ? 100 : 2000;
        write_log(dir, n, (cf_wal_sync_mode)mode);
        seen s = {0, 0};
        cf_wal_scan sc;
        CF_ASSERT_OK(cf_wal_scan_dir(dir, count_op, &s, &sc, &err), &err);
        assert_int_equal(s.n, n);
        assert_true(sc.found);
        assert_int_equal(sc.hdr.seq, 1);
        assert_int_equal(sc.hdr.durable_ts, 5);
        assert_int_equal(sc.valid_end, sc.file_len);
        /* a writer reopening appends after the last record */
        cf_wal *w;
        CF_ASSERT_OK(cf_wal_open(&w, dir, &sc, 0, CF_WAL_SYNC_COMMIT, 0, &err), &err);
        assert_int_equal(cf_wal_bytes(w), sc.file_len);
        opbuf o;
        make_op(&o, n);
        CF_ASSERT_OK(cf_wal_append(w, &o.op, 1, &err), &err);
        cf_wal_free(w);
        s.n = 0;
        CF_ASSERT_OK(cf_wal_scan_dir(dir, count_op, &s, &sc, &err), &err);
        assert_int_equal(s.n, n + 1);
        CF_ASSERT_RM_RF(dir);
        assert_int_equal(mkdir(dir, 0777), 0);
    }
    /* a batch of several ops in one record */
    cf_wal *w;
    CF_ASSERT_OK(cf_wal_open(&w, dir, NULL, 0, CF_WAL_SYNC_COMMIT, 0, &err), &err);
    opbuf o[10];
    cf_wal_op ops[10];
    for (int i = 0; i < 10; i++) {
        make_op(&o[i], (uint64_t)i);
        ops[i] = o[i].op;
    }
    CF_ASSERT_OK(cf_wal_append(w, ops, 10, &err), &err);
    cf_wal_free(w);
    seen s = {0, 0};
    cf_wal_scan sc;
    CF_ASSERT_OK(cf_wal_scan_dir(dir, count_op, &s, &sc, &err), &err);
    assert_int_equal(s.n, 10);
    assert_int_equal(s.last_off, CF_WAL_HEADER_LEN);
    CF_ASSERT_RM_RF(dir);
}

static void truncate_to(const char *path, off_t len)
{
    assert_int_equal(truncate(path, len), 0);
}

/* Cut the last record at every byte: the scan always ends cleanly with the
 * records before it, and a writer's open cuts the tail and appends after it. */
static void test_wal__torn_tail_every_offset(void **state)
{
    (void)state;
    char dir[64], path[128];
    tmpdir(dir, sizeof(dir));
    cf_error err;
    write_log(dir, 5, CF_WAL_SYNC_NONE);
    seg_path(dir, 1, path, sizeof(path));
    size_t full;
    uint8_t *orig = cf_test_read_file(path, &full);
    assert_non_null(orig);
    cf_wal_scan sc;
    seen s = {0, 0};
    CF_ASSERT_OK(cf_wal_scan_dir(dir, count_op, &s, &sc, &err), &err);
    uint64_t last_start = s.last_off;
    for (size_t cut = last_start; cut < full; cut++) {
        cf_test_write_file(path, orig, full);
        truncate_to(path, (off_t)cut);
        s = (seen){0, 0};
        CF_ASSERT_OK(cf_wal_scan_dir(dir, count_op, &s, &sc, &err), &err);
        assert_int_equal(s.n, 4);
        assert_int_equal(sc.valid_end, last_start);
        assert_int_equal(sc.file_len, cut);
        /* also garbage instead of the missing bytes (a power loss): still a tail */
        if (cut + 3 < full) {
            FILE *f = fopen(path, "ab");
            assert_non_null(f);
            for (size_t i = cut; i < full; i++)
                fputc(i % 2 ? 0 : 0xA5, f);
            fclose(f);
            s = (seen){0, 0};
            CF_ASSERT_OK(cf_wal_scan_dir(dir, count_op, &s, &sc, &err), &err);
            assert_int_equal(s.n, 4);
            assert_int_equal(sc.valid_end, last_start);
        }
        cf_wal *w;
        CF_ASSERT_OK(cf_wal_open(&w, dir, &sc, 0, CF_WAL_SYNC_NONE, 0, &err), &err);
        assert_int_equal(cf_wal_bytes(w), last_start);
        opbuf o;
        make_op(&o, 4);
        CF_ASSERT_OK(cf_wal_append(w, &o.op, 1, &err), &err);
        cf_wal_free(w);
        s = (seen){0, 0};
        CF_ASSERT_OK(cf_wal_scan_dir(dir, count_op, &s, &sc, &err), &err);
        assert_int_equal(s.n, 5);
        assert_int_equal(sc.file_len, full);
    }
    free(orig);
    CF_ASSERT_RM_RF(dir);
}

/* wal_records: ((size_t *)ctx)[rec] = where record rec starts (7 at most). */
static bool record_start(cf_slice payload, size_t start, size_t rec, void *ctx)
{
    (void)payload;
    if (rec < 7)
        ((size_t *)ctx)[rec] = start;
    return true;
}

/* A flipped bit in any record but the last is damage naming segment and offset;
 * in the last record it is a torn tail. */
static void test_wal__bit_flip(void **state)
{
    (void)state;
    char dir[64], path[128];
    tmpdir(dir, sizeof(dir));
    cf_error err;
    write_log(dir, 6, CF_WAL_SYNC_NONE);
    seg_path(dir, 1, path, sizeof(path));
    size_t full;
    uint8_t *orig = cf_test_read_file(path, &full);
    assert_non_null(orig);
    size_t starts[7];
    assert_int_equal(wal_records(orig, full, record_start, starts), 6);
    starts[6] = full;
    for (size_t pos = CF_WAL_HEADER_LEN; pos < full; pos++) {
        for (int bit = 0; bit < 8; bit += 5) {
            uint8_t *cp = malloc(full);
            memcpy(cp, orig, full);
            cp[pos] ^= (uint8_t)(1u << bit);
            cf_test_write_file(path, cp, full);
            free(cp);
            seen s = {0, 0};
            cf_wal_scan sc;
            size_t rec = 0;
            while (pos >= starts[rec + 1])
                rec++;
            cf_status st = cf_wal_scan_dir(dir, NULL, &s, &sc, &err);
            if (rec == 5) {
                CF_ASSERT_OK(st, &err);
                assert_int_equal(sc.valid_end, starts[5]);
            } else {
                CF_ASSERT_STATUS(st, CF_ECORRUPT, &err);
                char want[96];
                snprintf(want, sizeof(want), "wal-0000000000000001.log: record at offset %zu",
                         starts[rec]);
                if (strstr(err.msg, want) == NULL)
                    fail_msg("pos %zu: '%s' lacks '%s'", pos, err.msg, want);
            }
        }
    }
    /* a damaged segment header */
    uint8_t *cp = malloc(full);
    memcpy(cp, orig, full);
    cp[20] ^= 1;
    cf_test_write_file(path, cp, full);
    free(cp);
    cf_wal_scan sc;
    CF_ASSERT_STATUS(cf_wal_scan_dir(dir, NULL, NULL, &sc, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "segment header checksum"));
    free(orig);
    CF_ASSERT_RM_RF(dir);
}

/* A record whose (checksummed) length exceeds the limit is refused as damage,
 * and an append that large is refused up front. */
static void test_wal__oversized(void **state)
{
    (void)state;
    char dir[64], path[128];
    tmpdir(dir, sizeof(dir));
    cf_error err;
    write_log(dir, 1, CF_WAL_SYNC_NONE);
    seg_path(dir, 1, path, sizeof(path));
    uint8_t h[CF_WAL_RECORD_HEADER];
    cf_store_le32(h, CF_WAL_MAX_RECORD + 1);
    cf_store_le32(h + 4, 0);
    cf_store_le32(h + 8, cf_crc32c(h, 8));
    FILE *f = fopen(path, "ab");
    assert_int_equal(fwrite(h, 1, sizeof(h), f), sizeof(h));
    fclose(f);
    cf_wal_scan sc;
    CF_ASSERT_STATUS(cf_wal_scan_dir(dir, NULL, NULL, &sc, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "exceeds"));
    CF_ASSERT_RM_RF(dir);

    tmpdir(dir, sizeof(dir));
    cf_wal *w;
    CF_ASSERT_OK(cf_wal_open(&w, dir, NULL, 0, CF_WAL_SYNC_NONE, 0, &err), &err);
    uint8_t *big = calloc(1, CF_WAL_MAX_RECORD);
    big[0] = CF_RCL_UPDATE;
    opbuf o;
    make_op(&o, 1); /* an update */
    o.op.rcl = (cf_slice){big, CF_WAL_MAX_RECORD};
    CF_ASSERT_STATUS(cf_wal_append(w, &o.op, 1, &err), CF_EINVAL, &err);
    free(big);
    make_op(&o, 1);
    CF_ASSERT_OK(cf_wal_append(w, &o.op, 1, &err), &err); /* not sticky */
    cf_wal_free(w);
    CF_ASSERT_RM_RF(dir);
}

/* A checkpoint starts segment 2 with the new durable_ts and removes segment 1;
 * a scan reads only the newest segment; our temporaries are removed, other
 * files are not. */
static void test_wal__checkpoint(void **state)
{
    (void)state;
    char dir[64], path[160];
    tmpdir(dir, sizeof(dir));
    cf_error err;
    cf_wal *w;
    CF_ASSERT_OK(cf_wal_open(&w, dir, NULL, 0, CF_WAL_SYNC_GROUP, 100, &err), &err);
    for (uint64_t i = 0; i < 3; i++) {
        opbuf o;
        make_op(&o, i);
        CF_ASSERT_OK(cf_wal_append(w, &o.op, 1, &err), &err);
    }
    /* a leftover temporary and a foreign file */
    snprintf(path, sizeof(path), "%s/wal/wal-0000000000000002.log.tmp.1.00ff", dir);
    FILE *f = fopen(path, "w");
    fclose(f);
    snprintf(path, sizeof(path), "%s/wal/notes.txt", dir);
    f = fopen(path, "w");
    fclose(f);
    CF_ASSERT_OK(cf_wal_checkpoint(w, 102, &err), &err);
    assert_int_equal(cf_wal_seq(w), 2);
    assert_int_equal(cf_wal_bytes(w), CF_WAL_HEADER_LEN);
    opbuf o;
    make_op(&o, 0);
    CF_ASSERT_OK(cf_wal_append(w, &o.op, 1, &err), &err);
    cf_wal_free(w);
    uint64_t *seqs;
    size_t n;
    CF_ASSERT_OK(cf_wal_list(dir, &seqs, &n, &err), &err);
    assert_int_equal(n, 1);
    assert_int_equal(seqs[0], 2);
    free(seqs);
    assert_int_equal(access(path, F_OK), 0); /* notes.txt kept */
    snprintf(path, sizeof(path), "%s/wal/wal-0000000000000002.log.tmp.1.00ff", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    seen s = {0, 0};
    cf_wal_scan sc;
    CF_ASSERT_OK(cf_wal_scan_dir(dir, count_op, &s, &sc, &err), &err);
    assert_int_equal(s.n, 1);
    assert_int_equal(sc.hdr.seq, 2);
    assert_int_equal(sc.hdr.durable_ts, 102);
    /* an older segment left by an interrupted checkpoint is not read, and the
     * next writer removes it */
    seg_path(dir, 1, path, sizeof(path));
    f = fopen(path, "wb");
    fputs("garbage", f);
    fclose(f);
    s = (seen){0, 0};
    CF_ASSERT_OK(cf_wal_scan_dir(dir, count_op, &s, &sc, &err), &err);
    assert_int_equal(s.n, 1);
    assert_int_equal(sc.segments, 2);
    CF_ASSERT_OK(cf_wal_open(&w, dir, &sc, 0, CF_WAL_SYNC_COMMIT, 0, &err), &err);
    cf_wal_free(w);
    assert_int_not_equal(access(path, F_OK), 0);
    CF_ASSERT_RM_RF(dir);
}

static cf_status decode_all(const uint8_t *p, size_t n, size_t *ops, cf_error *err)
{
    cf_wal_batch b;
    *ops = 0;
    cf_status st = cf_wal_batch_begin(&b, (cf_slice){p, n}, err);
    while (st == CF_OK) {
        cf_wal_op op;
        bool has;
        st = cf_wal_batch_next(&b, &op, &has, err);
        if (st != CF_OK || !has)
            break;
        (*ops)++;
    }
    return st;
}

/* Payloads that pass the record checksum but break the batch framing. */
/* A checkpoint that runs out of memory at any allocation leaves a log that
 * takes the retry and later appends: memory is not I/O, nothing sticks (the
 * path the new segment is opened by was made before it existed; opening it
 * after the rename used to allocate, and failing there made the log refuse
 * every later write). */
static void test_wal__checkpoint_out_of_memory(void **state)
{
    (void)state;
    cf_error err;
    uint64_t calls = 0;
    for (uint64_t k = 0; k == 0 || k <= calls; k++) {
        char dir[64];
        tmpdir(dir, sizeof(dir));
        cf_wal *w;
        CF_ASSERT_OK(cf_wal_open(&w, dir, NULL, 0, CF_WAL_SYNC_COMMIT, 0, &err), &err);
        opbuf o;
        make_op(&o, 1);
        CF_ASSERT_OK(cf_wal_append(w, &o.op, 1, &err), &err);
        cf_status st;
        if (k == 0) {
            cf_alloc_stats_start();
            st = cf_wal_checkpoint(w, 10, &err);
            cf_alloc_stats stats;
            cf_alloc_stats_stop(&stats);
            calls = stats.calls;
            CF_ASSERT_OK(st, &err);
        } else {
            cf_alloc_fail_after(k);
            st = cf_wal_checkpoint(w, 10, &err);
            cf_alloc_fail_after(0);
            if (st != CF_OK) {
                assert_int_equal(st, CF_ENOMEM);
                CF_ASSERT_OK(cf_wal_checkpoint(w, 10, &err), &err);
            }
        }
        make_op(&o, 0); /* the new segment's first op, as count_op expects */
        CF_ASSERT_OK(cf_wal_append(w, &o.op, 1, &err), &err);
        assert_int_equal(cf_wal_seq(w), 2);
        cf_wal_free(w);
        seen s = {0, 0};
        cf_wal_scan sc;
        CF_ASSERT_OK(cf_wal_scan_dir(dir, count_op, &s, &sc, &err), &err);
        assert_int_equal(sc.hdr.seq, 2);
        assert_int_equal(s.n, 1);
        CF_ASSERT_RM_RF(dir);
    }
    assert_true(calls > 1);
}

static void test_wal__bad_batches(void **state)
{
    (void)state;
    cf_error err;
    opbuf o;
    make_op(&o, 1);
    cf_buf b;
    cf_buf_init(&b);
    cf_wal_batch_encode(&b, &o.op, 1);
    size_t n;
    CF_ASSERT_OK(decode_all(b.data, b.len, &n, &err), &err);
    assert_int_equal(n, 1);
    /* format 2: the flags byte follows the type; unknown bits are damage */
    assert_int_equal(b.data[0], 2);
    assert_int_equal(b.data[3], CF_WAL_OP_MRS); /* format, count, type, flags */
    b.data[3] = 0x02;
    CF_ASSERT_STATUS(decode_all(b.data, b.len, &n, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "unknown flags"));
    b.data[3] = CF_WAL_OP_MRS;
    /* format 1 (logs written before flags) decodes with flags 0 */
    {
        cf_buf b1;
        cf_buf_init(&b1);
        cf_wal_batch_encode_v(&b1, &o.op, 1, 1);
        assert_int_equal(b1.len + 1, b.len);
        cf_wal_batch bb;
        CF_ASSERT_OK(cf_wal_batch_begin(&bb, (cf_slice){b1.data, b1.len}, &err), &err);
        assert_int_equal(bb.format, 1);
        cf_wal_op op;
        bool has;
        CF_ASSERT_OK(cf_wal_batch_next(&bb, &op, &has, &err), &err);
        assert_true(has);
        assert_int_equal(op.flags, 0);
        assert_int_equal(op.ts, o.op.ts);
        b1.data[0] = 3; /* an unknown format */
        CF_ASSERT_STATUS(decode_all(b1.data, b1.len, &n, &err), CF_ECORRUPT, &err);
        cf_buf_dispose(&b1);
    }
    /* every truncation fails cleanly */
    for (size_t cut = 0; cut < b.len; cut++)
        CF_ASSERT_STATUS(decode_all(b.data, cut, &n, &err), CF_ECORRUPT, &err);
    /* trailing bytes */
    cf_buf_put_u8(&b, 0);
    CF_ASSERT_STATUS(decode_all(b.data, b.len, &n, &err), CF_ECORRUPT, &err);
    b.len--;
    /* a type that does not match the change list, an unknown type, a huge count */
    b.data[2] = CF_WAL_DELETE;
    CF_ASSERT_STATUS(decode_all(b.data, b.len, &n, &err), CF_ECORRUPT, &err);
    b.data[2] = 9;
    CF_ASSERT_STATUS(decode_all(b.data, b.len, &n, &err), CF_ECORRUPT, &err);
    b.data[2] = CF_WAL_UPDATE;
    b.data[1] = 0x7f;
    CF_ASSERT_STATUS(decode_all(b.data, b.len, &n, &err), CF_ECORRUPT, &err);
    cf_buf_dispose(&b);
}

/* What a table records of its log (wal.h "the segment a table needs"): the
 * bytes known durable (synced by us; a reopened segment's appends are not
 * vouched for until our own fdatasync), a roll that keeps the older segment
 * until retired, and the check of a scan against a record. */
static void test_wal__durable_bytes_roll_and_need(void **state)
{
    (void)state;
    char dir[64];
    tmpdir(dir, sizeof(dir));
    cf_error err;
    cf_wal *w;
    CF_ASSERT_OK(cf_wal_open(&w, dir, NULL, 5, CF_WAL_SYNC_GROUP, 1 << 20, &err), &err);
    assert_int_equal(cf_wal_durable_bytes(w), CF_WAL_HEADER_LEN);
    opbuf o;
    make_op(&o, 0);
    CF_ASSERT_OK(cf_wal_append(w, &o.op, 1, &err), &err);
    assert_true(cf_wal_bytes(w) > CF_WAL_HEADER_LEN);
    assert_int_equal(cf_wal_durable_bytes(w), CF_WAL_HEADER_LEN); /* not synced yet */
    CF_ASSERT_OK(cf_wal_sync(w, &err), &err);
    uint64_t one = cf_wal_bytes(w);
    assert_int_equal(cf_wal_durable_bytes(w), one);
    make_op(&o, 1);
    CF_ASSERT_OK(cf_wal_append(w, &o.op, 1, &err), &err); /* written, never synced */
    uint64_t two = cf_wal_bytes(w);
    cf_wal_free(w);
    /* reopened whole: nothing past the header is vouched for until synced */
    cf_wal_scan sc;
    CF_ASSERT_OK(cf_wal_scan_dir(dir, NULL, NULL, &sc, &err), &err);
    CF_ASSERT_OK(cf_wal_open(&w, dir, &sc, 0, CF_WAL_SYNC_GROUP, 1 << 20, &err), &err);
    assert_int_equal(cf_wal_bytes(w), two);
    assert_int_equal(cf_wal_durable_bytes(w), CF_WAL_HEADER_LEN);
    CF_ASSERT_OK(cf_wal_sync(w, &err), &err);
    assert_int_equal(cf_wal_durable_bytes(w), two);
    /* the check of a scan against a record */
    cf_wal_need need = {1, one};
    CF_ASSERT_OK(cf_wal_check_need(dir, &need, &sc, &err), &err);
    need.bytes = two + 1;
    CF_ASSERT_STATUS(cf_wal_check_need(dir, &need, &sc, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "wal-0000000000000001.log: write-ahead log segment truncated"));
    need = (cf_wal_need){2, CF_WAL_HEADER_LEN};
    CF_ASSERT_STATUS(cf_wal_check_need(dir, &need, &sc, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "wal-0000000000000002.log: write-ahead log segment missing "
                                    "(the newest is wal-0000000000000001.log)"));
    need = (cf_wal_need){0, 0}; /* no record: anything goes */
    CF_ASSERT_OK(cf_wal_check_need(dir, &need, &sc, &err), &err);
    /* roll: segment 2 durable and current, segment 1 kept until retired */
    CF_ASSERT_OK(cf_wal_roll(w, 9, &err), &err);
    assert_int_equal(cf_wal_seq(w), 2);
    assert_int_equal(cf_wal_durable_bytes(w), CF_WAL_HEADER_LEN);
    char p1[128], p2[128];
    seg_path(dir, 1, p1, sizeof(p1));
    seg_path(dir, 2, p2, sizeof(p2));
    struct stat sb;
    assert_int_equal(stat(p1, &sb), 0);
    assert_int_equal(stat(p2, &sb), 0);
    CF_ASSERT_OK(cf_wal_scan_dir(dir, NULL, NULL, &sc, &err), &err);
    need = (cf_wal_need){1, two}; /* a newer segment in place of the recorded one */
    CF_ASSERT_OK(cf_wal_check_need(dir, &need, &sc, &err), &err);
    cf_wal_retire(w);
    assert_int_equal(stat(p1, &sb), -1);
    assert_int_equal(stat(p2, &sb), 0);
    cf_wal_free(w);
    CF_ASSERT_RM_RF(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wal__round_trip),
        cmocka_unit_test(test_wal__torn_tail_every_offset),
        cmocka_unit_test(test_wal__bit_flip),
        cmocka_unit_test(test_wal__oversized),
        cmocka_unit_test(test_wal__checkpoint),
        cmocka_unit_test(test_wal__checkpoint_out_of_memory),
        cmocka_unit_test(test_wal__bad_batches),
        cmocka_unit_test(test_wal__durable_bytes_roll_and_need),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
