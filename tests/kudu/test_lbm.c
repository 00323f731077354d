/* cf-needs: tables */
/* The log block manager's containers (src/kudufs/lbm.c, lbm_record.c) against the
 * layouts Kudu wrote (every container's records, live and deleted blocks equal
 * expected/containers.json, as Kudu's container loader concluded them), and
 * containers written by src/kudufs/lbm_writer.c in every shape the loader must
 * recognise: punched holes, torn last records, checksum flips, blocks past the
 * data file's end, overlapping and misaligned blocks, unknown record types,
 * full, dead and incomplete containers. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_common.h"

#include <cfile/kudu.h>

#include "kudufs/fs_internal.h"
#include "kudufs/lbm_writer.h"
#include "support_fsroot.h"

static const char *const lbm_layouts[] = {"lbm-basic-s1", "lbm-compound-s2", "lbm-onedir-s3"};

static const cf_kudu_container *find_container(const cf_kudu_fs *fs, const char *id)
{
    for (size_t i = 0; i < cf_kudu_fs_container_count(fs); i++)
        if (strcmp(cf_kudu_fs_container_at(fs, i)->id, id) == 0)
            return cf_kudu_fs_container_at(fs, i);
    return NULL;
}

static void check_layout(const char *name)
{
    kfs_layout l;
    kfs_layout_load(&l, name);
    cf_json_doc cj;
    kfs_expected(&l, "containers.json", &cj);
    cf_kudu_fs *fs = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(kfs_layout_open(&l, &fs, &e), &e);
    assert_int_equal(cf_kudu_fs_block_manager(fs), CF_KUDU_BM_LOG);
    assert_int_equal(cf_kudu_fs_problem_count(fs), 0);
    assert_int_equal(cf_kudu_fs_container_count(fs), cj.root.n);
    size_t live_total = 0;
    for (size_t i = 0; i < cj.root.n; i++) {
        const cf_json *x = &cj.root.items[i];
        const cf_kudu_container *c = find_container(fs, cf_json_get(x, "container")->str);
        assert_non_null(c);
        assert_int_equal(c->data_size, (uint64_t)kfs_int(x, "data_file_size"));
        const cf_json *recs = cf_json_get(x, "records"), *live = cf_json_get(x, "live"),
                      *del = cf_json_get(x, "deleted");
        assert_int_equal(c->nrecords, recs->n);
        for (size_t k = 0; k < recs->n; k++) {
            const cf_json *r = &recs->items[k];
            const cf_kudu_record *o = &c->records[k];
            bool create = strcmp(cf_json_get(r, "op")->str, "CREATE") == 0;
            assert_int_equal(o->op, create ? CF_KUDU_RECORD_CREATE : CF_KUDU_RECORD_DELETE);
            assert_int_equal(o->block_id, (uint64_t)kfs_int(r, "block_id"));
            assert_int_equal(o->timestamp_us, (uint64_t)kfs_int(r, "timestamp_us"));
            if (create) {
                assert_int_equal(o->offset, kfs_int(r, "offset"));
                assert_int_equal(o->length, kfs_int(r, "length"));
            } else {
                assert_int_equal(o->offset, -1);
                assert_int_equal(o->length, -1);
            }
            if (k > 0)
                assert_true(o->file_offset > c->records[k - 1].file_offset);
        }
        assert_int_equal(c->live_blocks, live->n);
        assert_int_equal(c->deleted_blocks, del->n);
        assert_false(c->torn_metadata);
        assert_false(c->incomplete);
        /* 10 GiB (Kudu's default limit) is far: nothing is full. */
        assert_false(c->full);
        assert_false(c->dead);
        uint64_t live_bytes = 0;
        for (size_t k = 0; k < live->n; k++) {
            const cf_json *b = &live->items[k];
            const cf_kudu_block *ours = cf_kudu_fs_find_block(fs, (uint64_t)kfs_int(b, "block_id"));
            assert_non_null(ours);
            assert_string_equal(ours->container, c->id);
            assert_int_equal(ours->offset, (uint64_t)kfs_int(b, "offset"));
            assert_int_equal(ours->length, (uint64_t)kfs_int(b, "length"));
            assert_string_equal(ours->path, c->data_path);
            live_bytes += ours->length;
        }
        assert_int_equal(c->live_bytes, live_bytes);
        for (size_t k = 0; k < del->n; k++)
            assert_null(cf_kudu_fs_find_block(fs, (uint64_t)strtoll(del->items[k].str, NULL, 10)));
        live_total += live->n;
    }
    assert_int_equal(cf_kudu_fs_block_count(fs), live_total);
    /* The layout's facts: every live block of fs.json, in the file it names. */
    const cf_json *lb = cf_json_get(&l.fsj.root, "live_blocks");
    assert_int_equal(lb->n, live_total);
    for (size_t k = 0; k < lb->n; k++) {
        const cf_kudu_block *b =
            cf_kudu_fs_find_block(fs, (uint64_t)kfs_int(&lb->items[k], "block_id"));
        assert_non_null(b);
        const char *want = cf_json_get(&lb->items[k], "path")->str;
        size_t wl = strlen(want), bl = strlen(b->path);
        assert_true(bl >= wl && strcmp(b->path + bl - wl, want) == 0);
    }
    cf_kudu_fs_free(fs);
    cf_json_doc_dispose(&cj);
    kfs_layout_dispose(&l);
}

static void test_lbm__layouts(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof lbm_layouts / sizeof lbm_layouts[0]; i++)
        check_layout(lbm_layouts[i]);
}

/* ---- containers written by lbm_writer.c ------------------------------------------------------ */

static cf_kudu_fs *scratch_open(const kfs_scratch *s, uint64_t max_size)
{
    cf_kudu_fs_options o;
    cf_kudu_fs_options_init(&o);
    o.wal_dir = s->root;
    o.log_container_max_size = max_size;
    cf_kudu_fs *fs = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_fs_open(&fs, &o, &e), &e);
    return fs;
}

static cf_kudu_lbm_writer *writer(const kfs_scratch *s, const char *id)
{
    cf_kudu_lbm_writer *w = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_lbm_writer_create(&w, s->data, id, 4096, &e), &e);
    return w;
}

static void put(cf_kudu_lbm_writer *w, uint64_t id, size_t len, uint8_t fill)
{
    uint8_t *buf = malloc(len ? len : 1);
    assert_non_null(buf);
    memset(buf, fill, len);
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_lbm_writer_append(w, id, buf, len, 1000 + id, NULL, &e), &e);
    free(buf);
}

static void read_block(const cf_kudu_fs *fs, uint64_t id, bool mmap, uint8_t *out, size_t len)
{
    cf_io *io = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_fs_open_block(fs, id, mmap, &io, &e), &e);
    assert_int_equal(io->ops->size(io), len);
    CF_ASSERT_OK(io->ops->read_at(io, 0, out, len, &e), &e);
    cf_io_free(io);
}

static void test_lbm__written_container(void **state)
{
    (void)state;
    kfs_scratch s;
    kfs_scratch_new(&s, "log", NULL);
    cf_kudu_lbm_writer *w = writer(&s, "c0");
    put(w, 7, 5000, 0xa7);
    put(w, 8, 10, 0xa8);
    put(w, 9, 4096, 0xa9);
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_lbm_writer_delete(w, 8, 2000, &e), &e);
    CF_ASSERT_STATUS(cf_kudu_lbm_writer_delete(w, 8, 2001, &e), CF_ENOTFOUND, &e);
    cf_kudu_lbm_writer_free(w);

    cf_kudu_fs *fs = scratch_open(&s, 0);
    assert_int_equal(cf_kudu_fs_problem_count(fs), 0);
    assert_int_equal(cf_kudu_fs_container_count(fs), 1);
    const cf_kudu_container *c = cf_kudu_fs_container_at(fs, 0);
    assert_string_equal(c->id, "c0");
    assert_int_equal(c->nrecords, 4);
    assert_int_equal(c->records[3].op, CF_KUDU_RECORD_DELETE);
    assert_int_equal(c->records[3].block_id, 8);
    assert_int_equal(c->live_blocks, 2);
    assert_int_equal(c->deleted_blocks, 1);
    assert_int_equal(c->live_bytes, 5000 + 4096);
    assert_int_equal(cf_kudu_fs_block_count(fs), 2);
    const cf_kudu_block *b7 = cf_kudu_fs_find_block(fs, 7), *b9 = cf_kudu_fs_find_block(fs, 9);
    assert_non_null(b7);
    assert_non_null(b9);
    assert_null(cf_kudu_fs_find_block(fs, 8));
    assert_int_equal(b7->offset, 0);
    assert_int_equal(b9->offset, 12288); /* 5000 -> 8192, block 8's 10 bytes -> 12288 */
    static uint8_t buf[5000], want[5000];
    for (int mm = 0; mm < 2; mm++) {
        read_block(fs, 7, mm, buf, 5000);
        memset(want, 0xa7, 5000);
        CF_ASSERT_BYTES(buf, 5000, want, 5000);
        read_block(fs, 9, mm, buf, 4096);
        memset(want, 0xa9, 4096);
        CF_ASSERT_BYTES(buf, 4096, want, 4096);
    }
    /* The deleted block's range is a hole: zeros. */
    int fd = open(c->data_path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, buf, 10, 8192), 10);
    close(fd);
    memset(want, 0, 10);
    CF_ASSERT_BYTES(buf, 10, want, 10);
    cf_io *io = NULL;
    CF_ASSERT_STATUS(cf_kudu_fs_open_block(fs, 8, false, &io, &e), CF_ENOTFOUND, &e);
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(s.tmp);
}

static void test_lbm__torn_last_record(void **state)
{
    (void)state;
    kfs_scratch s;
    kfs_scratch_new(&s, "log", NULL);
    cf_kudu_lbm_writer *w = writer(&s, "torn");
    put(w, 1, 100, 1);
    put(w, 2, 100, 2);
    /* A record whose write stopped inside its length field. */
    static const uint8_t partial[3] = {0x20, 0, 0};
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_lbm_writer_raw(w, partial, sizeof partial, &e), &e);
    cf_kudu_lbm_writer_free(w);
    cf_kudu_fs *fs = scratch_open(&s, 0);
    const cf_kudu_container *c = cf_kudu_fs_container_at(fs, 0);
    assert_true(c->torn_metadata);
    assert_int_equal(c->nrecords, 2);
    assert_int_equal(c->live_blocks, 2);
    assert_int_equal(cf_kudu_fs_problem_count(fs), 0); /* tolerated, as Kudu does */
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(s.tmp);
}

static void test_lbm__checksum_flip(void **state)
{
    (void)state;
    kfs_scratch s;
    kfs_scratch_new(&s, "log", NULL);
    cf_kudu_lbm_writer *w = writer(&s, "flip");
    put(w, 1, 100, 1);
    uint64_t at = cf_kudu_lbm_writer_metadata_size(w);
    put(w, 2, 100, 2);
    put(w, 3, 100, 3);
    cf_kudu_lbm_writer_free(w);
    /* Flip a byte of block 2's record message (past its 8-byte length header). */
    char meta[800];
    snprintf(meta, sizeof meta, "%s/flip.metadata", s.data);
    int fd = open(meta, O_RDWR);
    assert_true(fd >= 0);
    uint8_t b;
    assert_int_equal(pread(fd, &b, 1, (off_t)at + 10), 1);
    b ^= 0x40;
    assert_int_equal(pwrite(fd, &b, 1, (off_t)at + 10), 1);
    close(fd);
    cf_kudu_fs *fs = scratch_open(&s, 0);
    assert_int_equal(cf_kudu_fs_problem_count(fs), 1);
    const cf_kudu_problem *p = cf_kudu_fs_problem_at(fs, 0);
    assert_string_equal(p->path, meta);
    assert_true(p->has_offset);
    assert_int_equal(p->offset, at);
    /* The records before the damage still count; the container stops there. */
    assert_non_null(cf_kudu_fs_find_block(fs, 1));
    assert_null(cf_kudu_fs_find_block(fs, 3));
    cf_kudu_fs_free(fs);
    /* A flip in the first record: nothing read before it, the offset still named. */
    fd = open(meta, O_RDWR);
    assert_true(fd >= 0);
    /* Restore the flipped byte, then break the first record's data checksum (its
     * offset taken from an intact load). */
    b ^= 0x40;
    assert_int_equal(pwrite(fd, &b, 1, (off_t)at + 10), 1);
    close(fd);
    cf_kudu_fs *ok = scratch_open(&s, 0);
    assert_int_equal(cf_kudu_fs_problem_count(ok), 0);
    uint64_t rec1 = cf_kudu_fs_container_at(ok, 0)->records[0].file_offset;
    cf_kudu_fs_free(ok);
    fd = open(meta, O_RDWR);
    assert_int_equal(pread(fd, &b, 1, (off_t)rec1 + 10), 1);
    b ^= 0x01;
    assert_int_equal(pwrite(fd, &b, 1, (off_t)rec1 + 10), 1);
    close(fd);
    fs = scratch_open(&s, 0);
    assert_int_equal(cf_kudu_fs_problem_count(fs), 1);
    p = cf_kudu_fs_problem_at(fs, 0);
    assert_true(p->has_offset);
    assert_int_equal(p->offset, rec1);
    assert_int_equal(cf_kudu_fs_block_count(fs), 0);
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(s.tmp);
}

static cf_kudu_block_record create_rec(uint64_t id, int64_t off, int64_t len)
{
    cf_kudu_block_record r = {
        .has_block_id = true,
        .has_op = true,
        .has_timestamp = true,
        .has_offset = true,
        .has_length = true,
        .block_id = id,
        .op = CF_KUDU_RECORD_CREATE,
        .timestamp_us = 5,
        .offset = off,
        .length = len,
    };
    return r;
}

static void test_lbm__malformed_records(void **state)
{
    (void)state;
    kfs_scratch s;
    kfs_scratch_new(&s, "log", NULL);
    cf_kudu_lbm_writer *w = writer(&s, "bad");
    put(w, 1, 5000, 1); /* [0, 5000) */
    put(w, 2, 100, 2);  /* [8192, 8292) */
    cf_error e = {0};
    uint64_t at_past, at_overlap, at_unknown, at_del, at_dup, at_neg;
    cf_kudu_block_record r = create_rec(10, 1 << 20, 100);
    CF_ASSERT_OK(cf_kudu_lbm_writer_record(w, &r, &at_past, &e), &e);
    r = create_rec(11, 4096, 100); /* inside block 1 */
    CF_ASSERT_OK(cf_kudu_lbm_writer_record(w, &r, &at_overlap, &e), &e);
    r = create_rec(12, 8200, 10); /* misaligned, and inside block 2 */
    CF_ASSERT_OK(cf_kudu_lbm_writer_record(w, &r, NULL, &e), &e);
    r = create_rec(13, 0, 1);
    r.op = 7;
    CF_ASSERT_OK(cf_kudu_lbm_writer_record(w, &r, &at_unknown, &e), &e);
    r = create_rec(14, 0, 0);
    r.op = CF_KUDU_RECORD_DELETE;
    CF_ASSERT_OK(cf_kudu_lbm_writer_record(w, &r, &at_del, &e), &e);
    r = create_rec(2, 8192, 100);
    CF_ASSERT_OK(cf_kudu_lbm_writer_record(w, &r, &at_dup, &e), &e);
    r = create_rec(15, -1, 100);
    CF_ASSERT_OK(cf_kudu_lbm_writer_record(w, &r, &at_neg, &e), &e);
    cf_kudu_lbm_writer_free(w);

    cf_kudu_fs *fs = scratch_open(&s, 0);
    char meta[800], data[800];
    snprintf(meta, sizeof meta, "%s/bad.metadata", s.data);
    snprintf(data, sizeof data, "%s/bad.data", s.data);
    const cf_kudu_problem *p = kfs_problem(fs, "runs past the end");
    assert_non_null(p);
    assert_string_equal(p->path, meta);
    assert_int_equal(p->offset, at_past);
    assert_null(cf_kudu_fs_find_block(fs, 10));
    p = kfs_problem(fs, "block 11 [4096, 4196) overlaps block 1");
    assert_non_null(p);
    assert_string_equal(p->path, data);
    assert_int_equal(p->offset, 4096);
    (void)at_overlap;
    p = kfs_problem(fs, "not a multiple of the filesystem block size");
    assert_non_null(p);
    assert_int_equal(p->offset, 8200);
    p = kfs_problem(fs, "unknown type 7");
    assert_non_null(p);
    assert_int_equal(p->offset, at_unknown);
    p = kfs_problem(fs, "DELETE of block 14");
    assert_non_null(p);
    assert_int_equal(p->offset, at_del);
    p = kfs_problem(fs, "second CREATE of live block 2");
    assert_non_null(p);
    assert_int_equal(p->offset, at_dup);
    p = kfs_problem(fs, "CREATE of block 15 without a valid offset");
    assert_non_null(p);
    assert_int_equal(p->offset, at_neg);
    /* The records stay in file order, whatever they say. */
    const cf_kudu_container *c = cf_kudu_fs_container_at(fs, 0);
    assert_int_equal(c->nrecords, 9);
    assert_int_equal(c->records[5].op, 7);
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(s.tmp);
}

static void test_lbm__full_and_dead(void **state)
{
    (void)state;
    kfs_scratch s;
    kfs_scratch_new(&s, "log", NULL);
    cf_kudu_lbm_writer *w = writer(&s, "dead");
    put(w, 1, 4096, 1);
    put(w, 2, 4000, 2);
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_lbm_writer_delete(w, 1, 9, &e), &e);
    CF_ASSERT_OK(cf_kudu_lbm_writer_delete(w, 2, 9, &e), &e);
    cf_kudu_lbm_writer_free(w);
    w = writer(&s, "full");
    put(w, 3, 4096, 3);
    put(w, 4, 4096, 4);
    cf_kudu_lbm_writer_free(w);
    w = writer(&s, "open");
    put(w, 5, 100, 5);
    cf_kudu_lbm_writer_free(w);

    cf_kudu_fs *fs = scratch_open(&s, 8192);
    assert_int_equal(cf_kudu_fs_problem_count(fs), 0);
    assert_int_equal(cf_kudu_fs_container_count(fs), 3);
    const cf_kudu_container *dead = cf_kudu_fs_container_at(fs, 0),
                            *full = cf_kudu_fs_container_at(fs, 1),
                            *open_ = cf_kudu_fs_container_at(fs, 2);
    assert_string_equal(dead->id, "dead");
    assert_true(dead->full);
    assert_true(dead->dead);
    assert_true(dead->reclaimable > 0); /* its metadata at least */
    assert_true(full->full);
    assert_false(full->dead);
    assert_false(open_->full);
    assert_false(open_->dead);
    cf_kudu_fs_free(fs);
    /* With Kudu's default limit nothing here is full. */
    fs = scratch_open(&s, 0);
    for (size_t i = 0; i < 3; i++)
        assert_false(cf_kudu_fs_container_at(fs, i)->full);
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(s.tmp);
}

static void touch(const char *dir, const char *name, const void *bytes, size_t len)
{
    char p[800];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    if (len)
        assert_int_equal(write(fd, bytes, len), (ssize_t)len);
    close(fd);
}

static void test_lbm__incomplete(void **state)
{
    (void)state;
    kfs_scratch s;
    kfs_scratch_new(&s, "log", NULL);
    /* Both files empty: what a crash while creating a container leaves. */
    touch(s.data, "e.data", NULL, 0);
    touch(s.data, "e.metadata", NULL, 0);
    /* A metadata file whose blocks are all deleted and whose data file is gone. */
    cf_kudu_lbm_writer *w = writer(&s, "m");
    put(w, 1, 10, 1);
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_lbm_writer_delete(w, 1, 2, &e), &e);
    cf_kudu_lbm_writer_free(w);
    char p[800];
    snprintf(p, sizeof p, "%s/m.data", s.data);
    assert_int_equal(unlink(p), 0);
    /* A data file gone although blocks are live: damage. */
    w = writer(&s, "x");
    put(w, 2, 10, 2);
    cf_kudu_lbm_writer_free(w);
    snprintf(p, sizeof p, "%s/x.data", s.data);
    assert_int_equal(unlink(p), 0);

    cf_kudu_fs *fs = scratch_open(&s, 0);
    assert_int_equal(cf_kudu_fs_container_count(fs), 3);
    for (size_t i = 0; i < 3; i++)
        assert_true(cf_kudu_fs_container_at(fs, i)->incomplete);
    assert_int_equal(cf_kudu_fs_problem_count(fs), 1);
    const cf_kudu_problem *pr = kfs_problem(fs, "missing, but");
    assert_non_null(pr);
    assert_string_equal(pr->path, p);
    assert_int_equal(cf_kudu_fs_block_count(fs), 0);
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(s.tmp);
}

/* Damage in one container does not hide the others. */
static void test_lbm__damage_is_local(void **state)
{
    (void)state;
    kfs_scratch s;
    kfs_scratch_new(&s, "log", NULL);
    cf_kudu_lbm_writer *w = writer(&s, "a");
    put(w, 1, 10, 1);
    cf_kudu_lbm_writer_free(w);
    touch(s.data, "b.metadata", "kuducntr\x02\0\0\0garbage", 19);
    touch(s.data, "b.data", "x", 1);
    w = writer(&s, "c");
    put(w, 3, 10, 3);
    cf_kudu_lbm_writer_free(w);
    cf_kudu_fs *fs = scratch_open(&s, 0);
    assert_int_equal(cf_kudu_fs_problem_count(fs), 1);
    assert_non_null(strstr(cf_kudu_fs_problem_at(fs, 0)->path, "b.metadata"));
    assert_non_null(cf_kudu_fs_find_block(fs, 1));
    assert_non_null(cf_kudu_fs_find_block(fs, 3));
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(s.tmp);
}

/* A hostile container naming a problem per record gets the first
 * CF_KUDU_MAX_PROBLEMS kept and the rest counted in one last problem. */
static void test_lbm__problems_bounded(void **state)
{
    (void)state;
    kfs_scratch s;
    kfs_scratch_new(&s, "log", NULL);
    cf_kudu_lbm_writer *w = writer(&s, "many");
    cf_error e = {0};
    for (uint64_t i = 0; i < CF_KUDU_MAX_PROBLEMS + 5; i++) {
        cf_kudu_block_record r = create_rec(100 + i, 0, 0);
        r.op = CF_KUDU_RECORD_DELETE;
        CF_ASSERT_OK(cf_kudu_lbm_writer_record(w, &r, NULL, &e), &e);
    }
    cf_kudu_lbm_writer_free(w);
    cf_kudu_fs *fs = scratch_open(&s, 0);
    assert_int_equal(cf_kudu_fs_problem_count(fs), CF_KUDU_MAX_PROBLEMS + 1);
    const cf_kudu_problem *last = cf_kudu_fs_problem_at(fs, CF_KUDU_MAX_PROBLEMS);
    assert_non_null(strstr(last->what, "5 more problems"));
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(s.tmp);
}

/* The hand decoder reads what protobuf-c writes, fields in any order, unknown
 * fields skipped; truncations and bad wire types are refused. */
static void test_lbm__record_decode(void **state)
{
    (void)state;
    /* block_id{id=0x0102030405060708} op=DELETE ts=300 unknown(9)=1 offset=5 */
    static const uint8_t rec[] = {0x0a, 0x09, 0x09, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02,
                                  0x01, 0x10, 0x02, 0x18, 0xac, 0x02, 0x48, 0x01, 0x20, 0x05};
    cf_kudu_block_record r;
    assert_true(cf_kudu_block_record_decode(rec, sizeof rec, &r));
    assert_true(r.has_block_id && r.has_op && r.has_timestamp && r.has_offset);
    assert_false(r.has_length);
    assert_int_equal(r.block_id, 0x0102030405060708ull);
    assert_int_equal(r.op, 2);
    assert_int_equal(r.timestamp_us, 300);
    assert_int_equal(r.offset, 5);
    for (size_t n = 0; n < sizeof rec; n++) {
        bool ok = cf_kudu_block_record_decode(rec, n, &r);
        /* Only cuts at field boundaries parse. */
        assert_int_equal(ok, n == 0 || n == 11 || n == 13 || n == 16 || n == 18);
    }
    static const uint8_t group[] = {0x0b};
    assert_false(cf_kudu_block_record_decode(group, 1, &r));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lbm__layouts),
        cmocka_unit_test(test_lbm__written_container),
        cmocka_unit_test(test_lbm__torn_last_record),
        cmocka_unit_test(test_lbm__checksum_flip),
        cmocka_unit_test(test_lbm__malformed_records),
        cmocka_unit_test(test_lbm__full_and_dead),
        cmocka_unit_test(test_lbm__incomplete),
        cmocka_unit_test(test_lbm__damage_is_local),
        cmocka_unit_test(test_lbm__record_decode),
        cmocka_unit_test(test_lbm__problems_bounded),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
