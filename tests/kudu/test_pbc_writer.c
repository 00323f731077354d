/* cf-needs: tables */
/* The protobuf container writer (src/kudufs/pbc_writer.c) and the FileDescriptorSet it
 * puts in the supplemental header (src/kudufs/pb_descriptor.c):
 * - every container file Kudu wrote in ../shared/kudu-fs (superblocks, consensus
 *   metadata, instance files, log block manager metadata) is rewritten byte for
 *   byte from its version, its supplemental header's fields and its records, both
 *   from the records' bytes and from the messages re-serialized by protobuf-c;
 * - what it writes, versions 1 and 2, reads back through pbc.c;
 * - the descriptor set builds a pool protoc accepts, which decodes a superblock
 *   to the same text as Kudu's own descriptors do (when protoc-c is installed). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_common.h"

#include <cfile/kudu.h>

#include "kudu/pb_json.h"
#include "kudufs/pbc_writer.h"
#include "kudu_common.pb-c.h"
#include "kudu_tablet.pb-c.h"
#include "util/endian.h"
#include "util/error.h"

/* The supplemental header of a container Kudu wrote: its record at the start. */
static Kudu__ContainerSupHeaderPB *sup_header(const uint8_t *f, size_t len, uint32_t *version)
{
    assert_true(len >= 16);
    *version = cf_load_le32(f + 8);
    size_t p = *version == 1 ? 12 : 16;
    uint32_t n = cf_load_le32(f + p);
    p += *version == 1 ? 4 : 8;
    assert_true(n <= len - p);
    Kudu__ContainerSupHeaderPB *h = kudu__container_sup_header_pb__unpack(NULL, n, f + p);
    assert_non_null(h);
    return h;
}

typedef struct rewrite_stats {
    size_t files, records, reserialized;
} rewrite_stats;

/* Rewrite one container and compare: raw records, then re-serialized messages. */
static void rewrite(const char *path, rewrite_stats *stats)
{
    size_t len;
    uint8_t *f = cf_test_read_file(path, &len);
    assert_non_null(f);
    uint32_t version;
    Kudu__ContainerSupHeaderPB *h = sup_header(f, len, &version);
    const ProtobufCMessageDescriptor *type = kudu_pb_find_type(h->pb_type);
    assert_non_null(type);
    cf_error err = {0};
    for (int reserialize = 0; reserialize < 2; reserialize++) {
        cf_io *in = NULL, *out = NULL;
        cf_kudu_pbc *c = NULL;
        cf_kudu_pbc_writer *w = NULL;
        CF_ASSERT_OK(cf_io_open_mem(&in, f, len, &err), &err);
        CF_ASSERT_OK(cf_kudu_pbc_open(&c, in, path, &err), &err);
        CF_ASSERT_OK(cf_io_create_mem(&out, &err), &err);
        CF_ASSERT_OK(cf_kudu_pbc_writer_create_raw(&w, out, version, h->pb_type, h->protos.data,
                                                   h->protos.len, &err),
                     &err);
        uint64_t end = 0;
        for (;;) {
            const uint8_t *rec;
            size_t n;
            uint64_t off;
            bool has;
            CF_ASSERT_OK(cf_kudu_pbc_next(c, &rec, &n, &off, &has, &err), &err);
            if (!has)
                break;
            end = off + n + (version == 1 ? 8 : 12);
            if (reserialize) {
                ProtobufCMessage *m = NULL;
                CF_ASSERT_OK(kudu_pb_unpack(type, rec, n, path, &m, &err), &err);
                CF_ASSERT_OK(cf_kudu_pbc_writer_append_msg(w, m, &err), &err);
                kudu_pb_free(m);
                stats->reserialized++;
            } else {
                CF_ASSERT_OK(cf_kudu_pbc_writer_append(w, rec, n, &err), &err);
                stats->records++;
            }
        }
        CF_ASSERT_OK(cf_kudu_pbc_writer_finish(w, &err), &err);
        cf_slice got = cf_io_mem_contents(out);
        /* a file may go on past its records (a torn or zero tail): compare the records */
        assert_true(end <= len);
        if (got.len != end || memcmp(got.data, f, end) != 0)
            fail_msg("%s: rewritten (%s) differs from Kudu's bytes (%zu vs %llu bytes)", path,
                     reserialize ? "messages" : "records", got.len, (unsigned long long)end);
        cf_kudu_pbc_writer_free(w);
        cf_kudu_pbc_free(c);
        cf_io_free(in);
        cf_io_free(out);
    }
    stats->files++;
    kudu__container_sup_header_pb__free_unpacked(h, NULL);
    free(f);
}

static bool is_container(const char *path)
{
    FILE *fp = fopen(path, "rb");
    char m[8] = {0};
    bool yes = fp != NULL && fread(m, 1, 8, fp) == 8 && memcmp(m, "kuducntr", 8) == 0;
    if (fp != NULL)
        fclose(fp);
    return yes;
}

static void walk(const char *dir, rewrite_stats *stats)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "expected") == 0)
            continue;
        char p[2048];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        assert_int_equal(lstat(p, &st), 0);
        if (S_ISDIR(st.st_mode))
            walk(p, stats);
        else if (S_ISREG(st.st_mode) && strstr(p, "/wals/") == NULL && is_container(p))
            rewrite(p, stats);
    }
    closedir(d);
}

static void test_pbc_writer__rewrites_kudus_files(void **state)
{
    (void)state;
    char root[1024];
    snprintf(root, sizeof root, "%s/kudu-fs", cf_test_shared_dir());
    rewrite_stats stats = {0};
    walk(root, &stats);
    /* 4 superblocks, 4 consensus metadata, 4 + 6 instance files, 6 block manager
     * instances, 42 log block manager metadata files */
    printf("rewrote %zu containers, %zu records\n", stats.files, stats.records);
    assert_true(stats.files >= 20);
    assert_int_equal(stats.records, stats.reserialized);
}

/* Write, then read back with pbc.c: versions 1 and 2, an empty record, several. */
static void test_pbc_writer__read_back(void **state)
{
    (void)state;
    static const char *const recs[] = {"", "a", "hello, kudu", "\x08\x01"};
    for (uint32_t v = 1; v <= 2; v++) {
        cf_error err = {0};
        cf_io *out = NULL, *in = NULL;
        cf_kudu_pbc_writer *w = NULL;
        CF_ASSERT_OK(cf_io_create_mem(&out, &err), &err);
        CF_ASSERT_OK(
            cf_kudu_pbc_writer_create(&w, out, v, &kudu__block_record_pb__descriptor, &err), &err);
        for (size_t i = 0; i < 4; i++)
            CF_ASSERT_OK(cf_kudu_pbc_writer_append(w, recs[i], strlen(recs[i]), &err), &err);
        Kudu__BlockRecordPB r = KUDU__BLOCK_RECORD_PB__INIT;
        r.has_op_type = r.has_timestamp_us = true;
        r.op_type = KUDU__BLOCK_RECORD_TYPE__DELETE;
        r.timestamp_us = 123456789;
        CF_ASSERT_OK(cf_kudu_pbc_writer_append_msg(w, &r.base, &err), &err);
        CF_ASSERT_OK(cf_kudu_pbc_writer_finish(w, &err), &err);
        cf_slice s = cf_io_mem_contents(out);
        assert_memory_equal(s.data, "kuducntr", 8);
        assert_int_equal(cf_load_le32(s.data + 8), v);
        cf_kudu_pbc *c = NULL;
        CF_ASSERT_OK(cf_io_open_mem(&in, s.data, s.len, &err), &err);
        CF_ASSERT_OK(cf_kudu_pbc_open(&c, in, "mem", &err), &err);
        assert_int_equal(cf_kudu_pbc_version(c), v);
        assert_string_equal(cf_kudu_pbc_type(c), "kudu.BlockRecordPB");
        for (size_t i = 0; i < 5; i++) {
            const uint8_t *d;
            size_t n;
            uint64_t off;
            bool has;
            CF_ASSERT_OK(cf_kudu_pbc_next(c, &d, &n, &off, &has, &err), &err);
            assert_true(has);
            if (i < 4) {
                CF_ASSERT_BYTES(d, n, recs[i], strlen(recs[i]));
            } else {
                char *json = NULL;
                CF_ASSERT_OK(cf_kudu_pb_to_json("kudu.BlockRecordPB", d, n, false, &json, &err),
                             &err);
                assert_string_equal(json,
                                    "{\"op_type\":\"DELETE\",\"timestamp_us\":\"123456789\"}");
                free(json);
            }
        }
        const uint8_t *d;
        size_t n;
        uint64_t off;
        bool has;
        CF_ASSERT_OK(cf_kudu_pbc_next(c, &d, &n, &off, &has, &err), &err);
        assert_false(has);
        assert_false(cf_kudu_pbc_torn(c, NULL));
        cf_kudu_pbc_free(c);
        cf_io_free(in);
        cf_kudu_pbc_writer_free(w);
        cf_io_free(out);
    }
}

/* Bad arguments, and a failed write is sticky. */
typedef struct fail_io {
    cf_io io;
    int appends_left;
} fail_io;

static cf_status fail_append(cf_io *io, const void *src, size_t len, cf_error *err)
{
    (void)src;
    (void)len;
    fail_io *f = (fail_io *)io;
    CF_CHECK(f->appends_left-- > 0, err, CF_EIO, "disk full (test)");
    return CF_OK;
}

static const cf_io_ops fail_ops = {.append = fail_append};

static void test_pbc_writer__errors(void **state)
{
    (void)state;
    cf_error err = {0};
    cf_io *out = NULL;
    cf_kudu_pbc_writer *w = NULL;
    CF_ASSERT_OK(cf_io_create_mem(&out, &err), &err);
    CF_ASSERT_STATUS(cf_kudu_pbc_writer_create_raw(&w, out, 3, "x.Y", NULL, 0, &err), CF_EINVAL,
                     &err);
    CF_ASSERT_STATUS(cf_kudu_pbc_writer_create_raw(&w, out, 0, "x.Y", NULL, 0, &err), CF_EINVAL,
                     &err);
    CF_ASSERT_STATUS(cf_kudu_pbc_writer_create_raw(&w, out, 2, "", NULL, 0, &err), CF_EINVAL, &err);
    assert_null(w);
    cf_io *ro = NULL;
    CF_ASSERT_OK(cf_io_open_mem(&ro, "x", 1, &err), &err);
    CF_ASSERT_STATUS(cf_kudu_pbc_writer_create_raw(&w, ro, 2, "x.Y", NULL, 0, &err), CF_EINVAL,
                     &err);
    cf_io_free(ro);
    cf_io_free(out);
    cf_kudu_pbc_writer_free(NULL);
    /* the third append fails: it and every later call say so */
    fail_io f = {.io = {&fail_ops}, .appends_left = 2};
    CF_ASSERT_OK(cf_kudu_pbc_writer_create_raw(&w, &f.io, 2, "x.Y", NULL, 0, &err), &err);
    CF_ASSERT_STATUS(cf_kudu_pbc_writer_append(w, "ab", 2, &err), CF_EIO, &err);
    CF_ASSERT_STATUS(cf_kudu_pbc_writer_append(w, "ab", 2, &err), CF_EIO, &err);
    assert_non_null(strstr(err.msg, "disk full"));
    CF_ASSERT_STATUS(cf_kudu_pbc_writer_finish(w, &err), CF_EIO, &err);
    cf_kudu_pbc_writer_free(w);
}

/* Allocation failures: CF_ENOMEM, nothing leaked. */
static cf_status sweep_write(void *ctx, cf_error *err)
{
    (void)ctx;
    cf_io *out = NULL;
    cf_kudu_pbc_writer *w = NULL;
    cf_status st;
    Kudu__Tablet__TabletSuperBlockPB sb = KUDU__TABLET__TABLET_SUPER_BLOCK_PB__INIT;
    sb.table_name = "t";
    CF_TRY_OUT(cf_io_create_mem(&out, err));
    CF_TRY_OUT(cf_kudu_pbc_writer_create(&w, out, 2, sb.base.descriptor, err));
    CF_TRY_OUT(cf_kudu_pbc_writer_append_msg(w, &sb.base, err));
    CF_TRY_OUT(cf_kudu_pbc_writer_finish(w, err));
out:
    cf_kudu_pbc_writer_free(w);
    cf_io_free(out);
    return st;
}

static void test_pbc_writer__alloc_failures(void **state)
{
    (void)state;
    cf_test_alloc_sweep("pbc writer", NULL, sweep_write, NULL, 100000);
}

/* ---- the FileDescriptorSet against protoc ---- */

static uint64_t varint(const uint8_t *p, size_t len, size_t *i)
{
    uint64_t v = 0;
    for (int sh = 0; *i < len; sh += 7) {
        uint8_t b = p[(*i)++];
        v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
            return v;
    }
    fail_msg("varint past the end");
    return 0;
}

/* The name of the last file in a FileDescriptorSet (the record type's own file:
 * both Kudu and cfile put a file after the files it imports). */
static void last_file_name(const uint8_t *p, size_t len, char *name, size_t cap)
{
    size_t i = 0;
    name[0] = '\0';
    while (i < len) {
        assert_int_equal(p[i++], 0x0a); /* FileDescriptorSet.file */
        size_t n = (size_t)varint(p, len, &i), end = i + n;
        assert_true(end <= len);
        assert_int_equal(p[i++], 0x0a); /* FileDescriptorProto.name comes first */
        size_t k = (size_t)varint(p, len, &i);
        assert_true(k < cap && i + k <= end);
        memcpy(name, p + i, k);
        name[k] = '\0';
        i = end;
    }
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    cf_test_write_file(path, p, n);
}

/* protoc's text form of the record `rec` decoded with the set in `set_path`. */
static char *decode(const char *dir, const char *tag, const uint8_t *set, size_t set_len,
                    const char *type, const uint8_t *rec, size_t rec_len)
{
    char sp[256], rp[256], op[256], file[512], cmd[2048];
    snprintf(sp, sizeof sp, "%s/%s.set", dir, tag);
    snprintf(rp, sizeof rp, "%s/%s.rec", dir, tag);
    snprintf(op, sizeof op, "%s/%s.txt", dir, tag);
    write_bytes(sp, set, set_len);
    write_bytes(rp, rec, rec_len);
    last_file_name(set, set_len, file, sizeof file);
    snprintf(cmd, sizeof cmd, "protoc-c --descriptor_set_in=%s --decode=%s %s < %s > %s", sp, type,
             file, rp, op);
    if (system(cmd) != 0)
        fail_msg("protoc refused (%s): %s", tag, cmd);
    size_t n;
    char *txt = (char *)cf_test_read_file(op, &n);
    assert_non_null(txt);
    char *z = realloc(txt, n + 1);
    assert_non_null(z);
    z[n] = '\0';
    return z;
}

static void test_pbc_writer__descriptor_set_decodes(void **state)
{
    (void)state;
    if (system("protoc-c --version > /dev/null 2>&1") != 0) {
        printf("protoc-c not installed: skipped\n");
        return;
    }
    char dir[] = "/tmp/cf_pbcw_XXXXXX";
    assert_non_null(mkdtemp(dir));
    static const char *const files[] = {
        "lbm-basic-s1/fs/wal/tablet-meta/203c009b3a23aa40f3c4636398a419ee",
        "lbm-compound-s2/fs/wal/tablet-meta/874d5577a6e1690d74a4679dbb1beb26",
        "fbm-small-s4/fs/wal/consensus-meta/a6645365ed9b55e334a6ed50e7b09cf4",
        "lbm-onedir-s3/fs/wal/instance",
        "lbm-onedir-s3/fs/data0/instance",
    };
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/kudu-fs/%s", cf_test_shared_dir(), files[k]);
        size_t len;
        uint8_t *f = cf_test_read_file(p, &len);
        assert_non_null(f);
        uint32_t version;
        Kudu__ContainerSupHeaderPB *h = sup_header(f, len, &version);
        /* the first record after the supplemental header */
        size_t at = 16 + 8 + cf_load_le32(f + 16) + 4;
        size_t rn = cf_load_le32(f + at);
        const uint8_t *rec = f + at + 8;
        assert_true(rn <= len - at - 8);
        cf_buf ours;
        cf_buf_init(&ours);
        cf_error err = {0};
        CF_ASSERT_OK(cf_kudu_pb_descriptor_set(&ours, kudu_pb_find_type(h->pb_type), &err), &err);
        char *want = decode(dir, "kudu", h->protos.data, h->protos.len, h->pb_type, rec, rn);
        char *got = decode(dir, "cfile", ours.data, ours.len, h->pb_type, rec, rn);
        assert_true(strlen(want) > 10);
        assert_string_equal(got, want);
        free(want);
        free(got);
        cf_buf_dispose(&ours);
        kudu__container_sup_header_pb__free_unpacked(h, NULL);
        free(f);
    }
    CF_ASSERT_RM_RF(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pbc_writer__rewrites_kudus_files),
        cmocka_unit_test(test_pbc_writer__read_back),
        cmocka_unit_test(test_pbc_writer__errors),
        cmocka_unit_test(test_pbc_writer__alloc_failures),
        cmocka_unit_test(test_pbc_writer__descriptor_set_decodes),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
