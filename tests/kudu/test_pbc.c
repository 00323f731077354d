/* cf-needs: tables */
/* Kudu's protobuf containers (src/kudufs/pbc.c) and their JSON (src/kudu/pb_json.c):
 * every container of every layout in ../shared/kudu-fs opens with the type its
 * role says, superblocks and consensus metadata print as protobuf JSON equal to
 * what Kudu printed (each layout's expected/ JSON), and damaged or cut copies are refused or
 * read up to the tear exactly as Kudu's ReadablePBContainerFile decides. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_common.h"

#include <cfile/kudu.h>

#include "codec/crc32c.h"
#include "json.h"
#include "util/endian.h"
#include "support_fsroot.h"

/* The single file in a folder of one layout (tablet-meta/, consensus-meta/). */
static void only_file(char *out, size_t cap, const char *layout, const char *dir)
{
    char d[1024];
    kfs_layout_path(d, sizeof d, layout, dir);
    DIR *dp = opendir(d);
    assert_non_null(dp);
    struct dirent *e;
    out[0] = '\0';
    while ((e = readdir(dp)) != NULL)
        if (e->d_name[0] != '.') {
            int n = snprintf(out, cap, "%s/%s", d, e->d_name);
            assert_true(n > 0 && (size_t)n < cap);
        }
    closedir(dp);
    assert_true(out[0] != '\0');
}

/* Container c is of version `version` and holds messages of `type`; its next
 * record (which must be there) as JSON (malloc'd), `pretty` or compact. */
static char *next_json(cf_kudu_pbc *c, uint32_t version, const char *type, bool pretty)
{
    cf_error err = {0};
    assert_int_equal(cf_kudu_pbc_version(c), version);
    assert_string_equal(cf_kudu_pbc_type(c), type);
    const uint8_t *data;
    size_t len;
    uint64_t off;
    bool has;
    CF_ASSERT_OK(cf_kudu_pbc_next(c, &data, &len, &off, &has, &err), &err);
    assert_true(has);
    char *json = NULL;
    CF_ASSERT_OK(cf_kudu_pb_to_json(type, data, len, pretty, &json, &err), &err);
    return json;
}

/* The file's one record as JSON equals the expected file. */
static void check_json(const char *path, const char *type, const char *expected_path)
{
    cf_error err = {0};
    cf_kudu_pbc *c = NULL;
    CF_ASSERT_OK(cf_kudu_pbc_open_file(&c, path, &err), &err);
    char *json = next_json(c, 2, type, true);
    const uint8_t *data;
    size_t len;
    uint64_t off;
    bool has;
    CF_ASSERT_OK(cf_kudu_pbc_next(c, &data, &len, &off, &has, &err), &err);
    assert_false(has);
    assert_false(cf_kudu_pbc_torn(c, NULL));
    cf_kudu_pbc_free(c);

    cf_json_doc got, want;
    char msg[256];
    assert_int_equal(cf_json_parse(&got, json, strlen(json), msg, sizeof msg), 0);
    assert_int_equal(cf_json_parse_file(&want, expected_path, msg, sizeof msg), 0);
    if (!kudu_json_equal(&got.root, &want.root))
        fail_msg("%s: JSON differs from %s:\n%s", path, expected_path, json);
    cf_json_doc_dispose(&got);
    cf_json_doc_dispose(&want);
    free(json);
}

static void test_superblock_and_cmeta_json(void **state)
{
    (void)state;
    for (size_t i = 0; i < KFS_NLAYOUTS; i++) {
        char path[1024], exp[1024];
        only_file(path, sizeof path, kfs_layouts[i], "fs/wal/tablet-meta");
        kfs_layout_path(exp, sizeof exp, kfs_layouts[i], "expected/superblock.json");
        check_json(path, "kudu.tablet.TabletSuperBlockPB", exp);
        only_file(path, sizeof path, kfs_layouts[i], "fs/wal/consensus-meta");
        kfs_layout_path(exp, sizeof exp, kfs_layouts[i], "expected/consensus_meta.json");
        check_json(path, "kudu.consensus.ConsensusMetadataPB", exp);
    }
}

/* Every container file of every layout: the type its place says, every record
 * parses as that type, nothing torn. */
static void check_container(const char *path, const char *type, size_t *records)
{
    cf_error err = {0};
    cf_kudu_pbc *c = NULL;
    CF_ASSERT_OK(cf_kudu_pbc_open_file(&c, path, &err), &err);
    assert_string_equal(cf_kudu_pbc_type(c), type);
    assert_true(cf_kudu_pb_type_known(type));
    for (;;) {
        const uint8_t *data;
        size_t len;
        uint64_t off;
        bool has;
        CF_ASSERT_OK(cf_kudu_pbc_next(c, &data, &len, &off, &has, &err), &err);
        if (!has)
            break;
        char *json = NULL;
        CF_ASSERT_OK(cf_kudu_pb_to_json(type, data, len, false, &json, &err), &err);
        free(json);
        (*records)++;
    }
    cf_kudu_pbc_free(c);
}

static void test_every_container(void **state)
{
    (void)state;
    for (size_t i = 0; i < KFS_NLAYOUTS; i++) {
        char root[1024], path[2048];
        size_t records = 0, metadata_files = 0;
        kfs_layout_path(root, sizeof root, kfs_layouts[i], "fs/wal/instance");
        check_container(root, "kudu.InstanceMetadataPB", &records);
        for (int d = 0; d < 2; d++) {
            char dir[1024];
            snprintf(path, sizeof path, "fs/data%d", d);
            kfs_layout_path(dir, sizeof dir, kfs_layouts[i], path);
            DIR *probe = opendir(dir);
            if (probe == NULL)
                continue;
            closedir(probe);
            int w = snprintf(path, sizeof path, "%s/instance", dir);
            assert_true(w > 0 && (size_t)w < sizeof path);
            check_container(path, "kudu.InstanceMetadataPB", &records);
            snprintf(path, sizeof path, "%s/data/block_manager_instance", dir);
            check_container(path, "kudu.DirInstanceMetadataPB", &records);
            snprintf(path, sizeof path, "%s/data", dir);
            DIR *dp = opendir(path);
            assert_non_null(dp);
            struct dirent *e;
            while ((e = readdir(dp)) != NULL) {
                size_t n = strlen(e->d_name);
                if (n > 9 && strcmp(e->d_name + n - 9, ".metadata") == 0) {
                    char f[3072];
                    int w2 = snprintf(f, sizeof f, "%s/%s", path, e->d_name);
                    assert_true(w2 > 0 && (size_t)w2 < sizeof f);
                    check_container(f, "kudu.BlockRecordPB", &records);
                    metadata_files++;
                }
            }
            closedir(dp);
        }
        /* The log block manager layouts have containers, with records in them. */
        if (strncmp(kfs_layouts[i], "lbm", 3) == 0)
            assert_true(metadata_files > 0 && records > metadata_files);
    }
}

/* ---- damage: built in memory from a real superblock ---- */

static uint8_t *superblock_bytes(size_t *len)
{
    char path[1024];
    only_file(path, sizeof path, "lbm-basic-s1", "fs/wal/tablet-meta");
    uint8_t *b = cf_test_read_file(path, len);
    assert_non_null(b);
    return b;
}

/* Open and read every record; the status of the first failure, or CF_OK. */
static cf_status read_all(const uint8_t *b, size_t len, size_t *records, bool *torn, cf_error *err)
{
    cf_io *io = NULL;
    cf_kudu_pbc *c = NULL;
    *records = 0;
    *torn = false;
    CF_ASSERT_OK(cf_io_open_mem(&io, b, len, err), err);
    cf_status st = cf_kudu_pbc_open(&c, io, "mem", err);
    while (st == CF_OK) {
        const uint8_t *data;
        size_t n;
        uint64_t off;
        bool has;
        st = cf_kudu_pbc_next(c, &data, &n, &off, &has, err);
        if (st != CF_OK || !has)
            break;
        (*records)++;
    }
    if (c != NULL)
        *torn = cf_kudu_pbc_torn(c, NULL);
    cf_kudu_pbc_free(c);
    cf_io_free(io);
    return st;
}

static void test_every_flipped_byte_is_refused(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = superblock_bytes(&len);
    for (size_t i = 0; i < len; i++) {
        b[i] ^= 0x20;
        cf_error err = {0};
        size_t records;
        bool torn;
        cf_status st = read_all(b, len, &records, &torn, &err);
        if (st == CF_OK)
            fail_msg("a flip at byte %zu was read as %zu records", i, records);
        assert_true(st == CF_ECORRUPT || st == CF_ENOTSUP);
        assert_non_null(strstr(err.msg, "mem"));
        b[i] ^= 0x20;
    }
    free(b);
}

static void test_every_cut_is_refused_or_torn(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = superblock_bytes(&len);
    for (size_t cut = 0; cut < len; cut++) {
        cf_error err = {0};
        size_t records;
        bool torn;
        cf_status st = read_all(b, cut, &records, &torn, &err);
        /* A cut inside the headers fails the open; inside the one record it is a
         * torn tail (version 2), never a record; right after the supplemental
         * header it is a container with no records. */
        if (st == CF_OK) {
            assert_int_equal(records, 0);
            (void)torn;
        } else {
            assert_int_equal(st, CF_ECORRUPT);
        }
    }
    free(b);
}

/* The KUDU-2260 tail: a zero length and length checksum followed by zeros only is
 * an incomplete record; followed by anything else it is a checksum mismatch. */
static void test_zero_tail(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = superblock_bytes(&len);
    uint8_t *z = calloc(1, len + 64);
    memcpy(z, b, len);
    cf_error err = {0};
    size_t records;
    bool torn;
    CF_ASSERT_OK(read_all(z, len + 64, &records, &torn, &err), &err);
    assert_int_equal(records, 1);
    assert_true(torn);
    z[len + 40] = 1;
    assert_int_equal(read_all(z, len + 64, &records, &torn, &err), CF_ECORRUPT);
    assert_non_null(strstr(err.msg, "length checksum"));
    free(z);
    free(b);
}

/* Version 1, built by hand: one checksum over length and message; an incomplete
 * record is unrecoverable there. */
static size_t put_v1_record(uint8_t *p, const void *msg, uint32_t n)
{
    cf_store_le32(p, n);
    memcpy(p + 4, msg, n);
    cf_store_le32(p + 4 + n, cf_crc32c(p, 4 + n));
    return 8 + n;
}

static void test_version1(void **state)
{
    (void)state;
    /* ContainerSupHeaderPB { pb_type (2): "kudu.BlockRecordPB" } */
    static const char type[] = "kudu.BlockRecordPB";
    uint8_t sup[64], rec[16], file[256];
    sup[0] = 0x12;
    sup[1] = (uint8_t)strlen(type);
    memcpy(sup + 2, type, strlen(type));
    /* BlockRecordPB { block_id { id: 7 }, op_type: CREATE, timestamp_us: 5 } */
    static const uint8_t r[] = {0x0a, 0x09, 0x09, 7, 0, 0, 0, 0, 0, 0, 0, 0x10, 1, 0x18, 5};
    memcpy(rec, r, sizeof r);
    memcpy(file, "kuducntr", 8);
    cf_store_le32(file + 8, 1);
    size_t n = 12;
    n += put_v1_record(file + n, sup, (uint32_t)(2 + strlen(type)));
    n += put_v1_record(file + n, rec, sizeof r);

    cf_io *io = NULL;
    cf_kudu_pbc *c = NULL;
    cf_error err = {0};
    CF_ASSERT_OK(cf_io_open_mem(&io, file, n, &err), &err);
    CF_ASSERT_OK(cf_kudu_pbc_open(&c, io, "v1", &err), &err);
    char *json = next_json(c, 1, type, false);
    assert_string_equal(json, "{\"block_id\":{\"id\":\"7\"},\"op_type\":\"CREATE\","
                              "\"timestamp_us\":\"5\"}");
    free(json);
    cf_kudu_pbc_free(c);
    cf_io_free(io);

    size_t records;
    bool torn;
    assert_int_equal(read_all(file, n - 3, &records, &torn, &err), CF_ECORRUPT);
    assert_non_null(strstr(err.msg, "version 1"));
    file[8] = 3;
    assert_int_equal(read_all(file, n, &records, &torn, &err), CF_ENOTSUP);
}

/* The JSON mapping's corners: unknown enum numbers stay numbers, bytes are
 * base64, maps are objects keyed by the key's text, unknown types are refused. */
static void test_json_mapping(void **state)
{
    (void)state;
    cf_error err = {0};
    char *json = NULL;
    /* BlockRecordPB { op_type: 7 (no such name), offset: -1 } */
    static const uint8_t rec[] = {0x10, 7,    0x20, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    CF_ASSERT_OK(cf_kudu_pb_to_json("kudu.BlockRecordPB", rec, sizeof rec, false, &json, &err),
                 &err);
    assert_string_equal(json, "{\"op_type\":7,\"offset\":\"-1\"}");
    free(json);
    /* DirSetPB { uuid: "\x00\xff\x10" } */
    static const uint8_t ds[] = {0x0a, 3, 0x00, 0xff, 0x10};
    CF_ASSERT_OK(cf_kudu_pb_to_json("kudu.DirSetPB", ds, sizeof ds, false, &json, &err), &err);
    assert_string_equal(json, "{\"uuid\":\"AP8Q\"}");
    free(json);
    /* TabletSuperBlockPB { txn_metadata { key: 9, value { aborted: true } } } */
    static const uint8_t sb[] = {0xa2, 0x01, 6, 0x08, 9, 0x12, 2, 0x08, 1};
    CF_ASSERT_OK(
        cf_kudu_pb_to_json("kudu.tablet.TabletSuperBlockPB", sb, sizeof sb, false, &json, &err),
        &err);
    assert_string_equal(json, "{\"txn_metadata\":{\"9\":{\"aborted\":true}}}");
    free(json);
    /* Kudu's package for a message kept elsewhere here. */
    assert_true(cf_kudu_pb_type_known("kudu.consensus.ReplicateMsg"));
    assert_false(cf_kudu_pb_type_known("kudu.NoSuchPB"));
    assert_int_equal(cf_kudu_pb_to_json("kudu.NoSuchPB", rec, sizeof rec, false, &json, &err),
                     CF_ENOTSUP);
    static const uint8_t bad[] = {0x0a, 0x7f};
    assert_int_equal(cf_kudu_pb_to_json("kudu.DirSetPB", bad, sizeof bad, false, &json, &err),
                     CF_ECORRUPT);
    assert_null(json);
}

/* A FIFO where a container belongs is refused at once, not waited on (opening one
 * for reading blocks until a writer comes). */
static void test_fifo_is_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/cf_pbc_fifo_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/instance", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    cf_kudu_pbc *c = NULL;
    cf_error err = {0};
    assert_int_equal(cf_kudu_pbc_open_file(&c, path, &err), CF_EIO);
    assert_non_null(strstr(err.msg, "not a regular file"));
    assert_null(c);
    CF_ASSERT_RM_RF(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_superblock_and_cmeta_json),
        cmocka_unit_test(test_every_container),
        cmocka_unit_test(test_every_flipped_byte_is_refused),
        cmocka_unit_test(test_every_cut_is_refused_or_torn),
        cmocka_unit_test(test_zero_tail),
        cmocka_unit_test(test_version1),
        cmocka_unit_test(test_json_mapping),
        cmocka_unit_test(test_fifo_is_refused),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
