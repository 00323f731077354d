/* cf-needs: tables */
/* Tablets (src/kudu/tablet.c, src/kudu/schema_pb.c): every layout of
 * ../shared/kudu-fs opens with the superblock's fields, schema and rowsets equal to
 * what Kudu printed (expected/superblock.json) and to the block roles of
 * expected/fs.json; damaged copies (cut, flipped, a required field missing, a
 * symbolic link, a wrong id) are refused naming the file; the superblock writer's
 * files read back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_common.h"

#include <cfile/kudu.h>

#include "json.h"
#include "kudufs/pbc_writer.h"
#include "kudu/tablet.h"
#include "support_fsroot.h"

/* Until the fs (src/kudufs/fs.c) is in the library: the one call tablet.c makes of
 * it, never reached here (these tests open tablets by directory). */
__attribute__((weak)) const char *cf_kudu_fs_metadata_dir(const cf_kudu_fs *fs)
{
    (void)fs;
    return NULL;
}

static void parse_file(cf_json_doc *doc, const char *path)
{
    char msg[256];
    if (cf_json_parse_file(doc, path, msg, sizeof msg) != 0)
        fail_msg("%s: %s", path, msg);
}

static const cf_json *get(const cf_json *o, const char *key)
{
    return o != NULL && o->kind == CF_JSON_OBJECT ? cf_json_get(o, key) : NULL;
}

/* A protobuf JSON integer (number or decimal string), or dflt when absent. */
static long long jint(const cf_json *o, const char *key, long long dflt)
{
    const cf_json *v = get(o, key);
    if (v == NULL)
        return dflt;
    assert_true(v->kind == CF_JSON_NUMBER || v->kind == CF_JSON_STRING);
    return strtoll(v->str, NULL, 10);
}

static const char *jstr(const cf_json *o, const char *key)
{
    const cf_json *v = get(o, key);
    return v != NULL && v->kind == CF_JSON_STRING ? v->str : NULL;
}

static bool jbool(const cf_json *o, const char *key)
{
    const cf_json *v = get(o, key);
    return v != NULL && v->kind == CF_JSON_TRUE;
}

static size_t b64(uint8_t *out, const char *s)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint32_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (; *s && *s != '='; s++) {
        const char *p = strchr(tab, *s);
        assert_non_null(p);
        acc = acc << 6 | (uint32_t)(p - tab);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (uint8_t)(acc >> bits);
        }
    }
    return n;
}

static void open_layout(cf_kudu_tablet **t, const char *layout, cf_json_doc *fsj)
{
    char p[1024], wal[1024];
    kfs_layout_path(p, sizeof p, layout, "expected/fs.json");
    parse_file(fsj, p);
    kfs_layout_path(wal, sizeof wal, layout, jstr(&fsj->root, "wal_root"));
    cf_error err = {0};
    CF_ASSERT_OK(cf_kudu_tablet_open_dir(t, NULL, wal, jstr(&fsj->root, "tablet_id"), &err), &err);
}

/* Kudu's EncodingType and CompressionType names (common.proto), by number. */
static int name_num(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return (int)i;
    fail_msg("unknown name %s", name);
    return -1;
}
static const char *const encodings[] = {
    "AUTO_ENCODING", "PLAIN_ENCODING", "PREFIX_ENCODING", "GROUP_VARINT",
    "RLE",           "DICT_ENCODING",  "BIT_SHUFFLE"};
static const char *const compressions[] = {"DEFAULT_COMPRESSION", "NO_COMPRESSION", "SNAPPY", "LZ4",
                                           "ZLIB"};

/* The schema as cfile reads it against the superblock's JSON. */
static void check_schema(const cf_kudu_tablet *t, const cf_json *schema)
{
    const cf_json *cols = get(schema, "columns");
    const cf_schema *s = cf_kudu_tablet_schema(t);
    assert_int_equal(cf_schema_column_count(s), cols->n);
    size_t nkeys = 0;
    for (size_t i = 0; i < cols->n; i++) {
        const cf_json *j = &cols->items[i];
        const cf_column *c = cf_schema_column_at(s, i);
        assert_string_equal(c->name, jstr(j, "name"));
        assert_int_equal(cf_kudu_tablet_column_id(t, i), jint(j, "id", -1));
        const char *type = jstr(j, "type");
        if (strcmp(type, "NESTED") == 0) {
            assert_true(c->is_array);
            type = jstr(get(get(j, "nested_type"), "array"), "type");
        } else {
            assert_false(c->is_array);
        }
        assert_string_equal(cf_kudu_data_type_name((int)c->type), type);
        assert_int_equal(c->nullable, jbool(j, "is_nullable"));
        assert_int_equal(c->is_key, jbool(j, "is_key"));
        nkeys += c->is_key;
        assert_int_equal(c->encoding, name_num(encodings, 7, jstr(j, "encoding")));
        assert_int_equal(c->compression, name_num(compressions, 5, jstr(j, "compression")));
        assert_int_equal(c->block_size, jint(j, "cfile_block_size", 0));
        const cf_json *a = get(j, "type_attributes");
        assert_int_equal(c->precision, jint(a, "precision", 0));
        assert_int_equal(c->scale, jint(a, "scale", 0));
        assert_int_equal(c->length, jint(a, "length", 0));
    }
    assert_int_equal(cf_schema_key_count(s), nkeys);
}

static void check_rowsets(const cf_kudu_tablet *t, const cf_json *rowsets)
{
    size_t n = rowsets ? rowsets->n : 0;
    assert_int_equal(cf_kudu_tablet_rowset_count(t), n);
    for (size_t r = 0; r < n; r++) {
        const cf_json *j = &rowsets->items[r];
        const cf_kudu_rowset *rs = cf_kudu_tablet_rowset_at(t, r);
        assert_int_equal(rs->id, jint(j, "id", -1));
        assert_int_equal(rs->last_durable_dms_id, jint(j, "last_durable_dms_id", -99));
        const cf_json *cols = get(j, "columns");
        assert_int_equal(rs->ncolumns, cols ? cols->n : 0);
        for (size_t i = 0; i < rs->ncolumns; i++) {
            assert_int_equal(rs->column_blocks[i], jint(get(&cols->items[i], "block"), "id", -1));
            assert_int_equal(rs->column_ids[i], jint(&cols->items[i], "column_id", -1));
        }
        const cf_json *redo = get(j, "redo_deltas"), *undo = get(j, "undo_deltas");
        assert_int_equal(rs->nredo, redo ? redo->n : 0);
        assert_int_equal(rs->nundo, undo ? undo->n : 0);
        for (size_t i = 0; i < rs->nredo; i++)
            assert_int_equal(rs->redo_blocks[i], jint(get(&redo->items[i], "block"), "id", -1));
        for (size_t i = 0; i < rs->nundo; i++)
            assert_int_equal(rs->undo_blocks[i], jint(get(&undo->items[i], "block"), "id", -1));
        assert_int_equal(rs->has_bloom, get(j, "bloom_block") != NULL);
        if (rs->has_bloom)
            assert_int_equal(rs->bloom_block, jint(get(j, "bloom_block"), "id", -1));
        assert_int_equal(rs->has_adhoc_index, get(j, "adhoc_index_block") != NULL);
        if (rs->has_adhoc_index)
            assert_int_equal(rs->adhoc_index_block, jint(get(j, "adhoc_index_block"), "id", -1));
        uint8_t key[512];
        assert_int_equal(rs->min_key != NULL, get(j, "min_encoded_key") != NULL);
        if (rs->min_key != NULL) {
            size_t kn = b64(key, jstr(j, "min_encoded_key"));
            CF_ASSERT_BYTES(rs->min_key, rs->min_key_len, key, kn);
            kn = b64(key, jstr(j, "max_encoded_key"));
            CF_ASSERT_BYTES(rs->max_key, rs->max_key_len, key, kn);
        }
        assert_true(rs->has_live_row_count);
        assert_int_equal(rs->live_row_count, jint(j, "live_row_count", 0));
    }
}

/* Every role of expected/fs.json's live blocks ("rowset R col:NAME", "rowset R
 * bloom", "rowset R adhoc", "rowset R undoK", "rowset R redoK") is what the
 * tablet's rowsets say of that block. */
static void check_roles(const cf_kudu_tablet *t, const cf_json *live)
{
    const cf_schema *s = cf_kudu_tablet_schema(t);
    for (size_t b = 0; b < live->n; b++) {
        uint64_t id = (uint64_t)jint(&live->items[b], "block_id", -1);
        const char *role = jstr(&live->items[b], "role");
        unsigned long rsid;
        char what[200];
        assert_int_equal(sscanf(role, "rowset %lu %199s", &rsid, what), 2);
        const cf_kudu_rowset *rs = NULL;
        for (size_t r = 0; r < cf_kudu_tablet_rowset_count(t); r++)
            if (cf_kudu_tablet_rowset_at(t, r)->id == rsid)
                rs = cf_kudu_tablet_rowset_at(t, r);
        assert_non_null(rs);
        bool found = false;
        if (strncmp(what, "col:", 4) == 0) {
            for (size_t i = 0; i < rs->ncolumns; i++) {
                if (rs->column_blocks[i] != id)
                    continue;
                for (size_t c = 0; c < cf_schema_column_count(s); c++)
                    if (cf_kudu_tablet_column_id(t, c) == rs->column_ids[i])
                        found = strcmp(cf_schema_column_at(s, c)->name, what + 4) == 0;
            }
        } else if (strcmp(what, "bloom") == 0) {
            found = rs->has_bloom && rs->bloom_block == id;
        } else if (strcmp(what, "adhoc") == 0) {
            found = rs->has_adhoc_index && rs->adhoc_index_block == id;
        } else if (strncmp(what, "undo", 4) == 0) {
            size_t k = strtoul(what + 4, NULL, 10);
            found = k < rs->nundo && rs->undo_blocks[k] == id;
        } else if (strncmp(what, "redo", 4) == 0) {
            size_t k = strtoul(what + 4, NULL, 10);
            found = k < rs->nredo && rs->redo_blocks[k] == id;
        }
        if (!found)
            fail_msg("block %llu: role '%s' not in the superblock", (unsigned long long)id, role);
    }
}

static void test_tablet__layouts(void **state)
{
    (void)state;
    for (size_t l = 0; l < KFS_NLAYOUTS; l++) {
        cf_json_doc fsj, sbj;
        cf_kudu_tablet *t = NULL;
        open_layout(&t, kfs_layouts[l], &fsj);
        char p[1024];
        kfs_layout_path(p, sizeof p, kfs_layouts[l], "expected/superblock.json");
        parse_file(&sbj, p);
        const cf_json *sb = &sbj.root;
        assert_string_equal(cf_kudu_tablet_id(t), jstr(&fsj.root, "tablet_id"));
        assert_string_equal(cf_kudu_tablet_table_id(t), jstr(&fsj.root, "table_id"));
        assert_string_equal(cf_kudu_tablet_table_name(t), jstr(sb, "table_name"));
        assert_string_equal(cf_kudu_tablet_data_state(t), jstr(sb, "tablet_data_state"));
        assert_int_equal(cf_kudu_tablet_last_durable_mrs_id(t),
                         jint(sb, "last_durable_mrs_id", -9));
        assert_null(cf_kudu_tablet_fs(t));
        check_schema(t, get(sb, "schema"));
        check_rowsets(t, get(sb, "rowsets"));
        check_roles(t, get(&fsj.root, "live_blocks"));
        assert_null(cf_kudu_tablet_rowset_at(t, cf_kudu_tablet_rowset_count(t)));
        assert_int_equal(cf_kudu_tablet_column_id(t, 100000), UINT32_MAX);
        /* the consensus metadata is there and parsed */
        const Kudu__Consensus__ConsensusMetadataPB *cm = cf_kudu_tablet_consensus(t);
        assert_non_null(cm);
        assert_non_null(cm->committed_config);
        cf_kudu_tablet_free(t);
        cf_json_doc_dispose(&fsj);
        cf_json_doc_dispose(&sbj);
    }
}

/* The JSON of both files equals what Kudu printed, through the tablet. */
static void test_tablet__json(void **state)
{
    (void)state;
    for (size_t l = 0; l < KFS_NLAYOUTS; l++) {
        cf_json_doc fsj;
        cf_kudu_tablet *t = NULL;
        open_layout(&t, kfs_layouts[l], &fsj);
        cf_error err = {0};
        char *json = NULL;
        for (int which = 0; which < 2; which++) {
            char p[1024];
            kfs_layout_path(p, sizeof p, kfs_layouts[l],
                            which ? "expected/consensus_meta.json" : "expected/superblock.json");
            cf_status st = which ? cf_kudu_tablet_consensus_json(t, which, &json, &err)
                                 : cf_kudu_tablet_superblock_json(t, which, &json, &err);
            CF_ASSERT_OK(st, &err);
            cf_json_doc got, want;
            char msg[256];
            assert_int_equal(cf_json_parse(&got, json, strlen(json), msg, sizeof msg), 0);
            parse_file(&want, p);
            if (!kudu_json_equal_as(&got.root, &want.root, false))
                fail_msg("%s: JSON differs:\n%s", p, json);
            cf_json_doc_dispose(&got);
            cf_json_doc_dispose(&want);
            free(json);
        }
        cf_kudu_tablet_free(t);
        cf_json_doc_dispose(&fsj);
    }
}

/* ---- damage, in a scratch copy of one layout's metadata ---- */

static char scratch[64];

static int scratch_setup(void **state)
{
    (void)state;
    strcpy(scratch, "/tmp/cf_tablet_XXXXXX");
    assert_non_null(mkdtemp(scratch));
    char p[128];
    snprintf(p, sizeof p, "%s/tablet-meta", scratch);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/consensus-meta", scratch);
    assert_int_equal(mkdir(p, 0700), 0);
    return 0;
}

static int scratch_teardown(void **state)
{
    (void)state;
    CF_ASSERT_RM_RF(scratch);
    return 0;
}

static void put_file(const char *sub, const char *id, const void *data, size_t len)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s/%s", scratch, sub, id);
    unlink(p);
    cf_test_write_file(p, data, len);
}

static uint8_t *layout_file(const char *layout, const char *sub, const char *id, size_t *len)
{
    char rel[256], p[1024];
    snprintf(rel, sizeof rel, "fs/wal/%s/%s", sub, id);
    kfs_layout_path(p, sizeof p, layout, rel);
    uint8_t *d = cf_test_read_file(p, len);
    assert_non_null(d);
    return d;
}

/* Open the scratch tablet, expecting `want`, and a message naming `needle`. */
static void expect_open(const char *id, cf_status want, const char *needle)
{
    cf_kudu_tablet *t = NULL;
    cf_error err = {0};
    cf_status st = cf_kudu_tablet_open_dir(&t, NULL, scratch, id, &err);
    if (st != want)
        fail_msg("status %s, want %s: %s", cf_status_str(st), cf_status_str(want), err.msg);
    if (want == CF_OK) {
        cf_kudu_tablet_free(t);
        return;
    }
    assert_null(t);
    if (needle != NULL && strstr(err.msg, needle) == NULL)
        fail_msg("message '%s' does not name '%s'", err.msg, needle);
}

static const char *layout_id(const char *layout, char *id)
{
    cf_json_doc fsj;
    char p[1024];
    kfs_layout_path(p, sizeof p, layout, "expected/fs.json");
    parse_file(&fsj, p);
    strcpy(id, jstr(&fsj.root, "tablet_id"));
    cf_json_doc_dispose(&fsj);
    return id;
}

static void test_tablet__cut_and_flipped(void **state)
{
    (void)state;
    char id[40];
    layout_id("lbm-basic-s1", id);
    size_t len;
    uint8_t *sb = layout_file("lbm-basic-s1", "tablet-meta", id, &len);
    char path[256];
    snprintf(path, sizeof path, "%s/tablet-meta/%s", scratch, id);
    put_file("tablet-meta", id, sb, len);
    expect_open(id, CF_OK, NULL);
    /* every cut: no complete superblock record */
    for (size_t cut = 0; cut < len; cut += (cut < 64 ? 1 : 37)) {
        put_file("tablet-meta", id, sb, cut);
        expect_open(id, CF_ECORRUPT, path);
    }
    /* every flipped byte is caught by one of the container's checksums */
    uint8_t *copy = malloc(len);
    for (size_t i = 0; i < len; i++) {
        memcpy(copy, sb, len);
        copy[i] ^= 0x20;
        put_file("tablet-meta", id, copy, len);
        /* a flipped version is one Kudu does not know (pb_util.cc: NotSupported) */
        expect_open(id, i >= 8 && i < 12 ? CF_ENOTSUP : CF_ECORRUPT, path);
    }
    free(copy);
    free(sb);
}

/* A superblock whose container is sound but whose message lacks what Kudu
 * requires: refused naming the field and the file. */
static void write_sb(const char *id, const Kudu__Tablet__TabletSuperBlockPB *sb)
{
    char p[256];
    snprintf(p, sizeof p, "%s/tablet-meta/%s", scratch, id);
    unlink(p);
    cf_error err = {0};
    CF_ASSERT_OK(cf_kudu_pbc_write_file(p, &sb->base, &err), &err);
}

static void test_tablet__required_fields(void **state)
{
    (void)state;
    char id[40];
    layout_id("lbm-compound-s2", id);
    size_t len;
    uint8_t *bytes = layout_file("lbm-compound-s2", "tablet-meta", id, &len);
    /* the record's message: parse it with the lead's reader */
    cf_io *io = NULL;
    cf_kudu_pbc *c = NULL;
    cf_error err = {0};
    CF_ASSERT_OK(cf_io_open_mem(&io, bytes, len, &err), &err);
    CF_ASSERT_OK(cf_kudu_pbc_open(&c, io, "sb", &err), &err);
    const uint8_t *rec;
    size_t rlen;
    uint64_t off;
    bool has;
    CF_ASSERT_OK(cf_kudu_pbc_next(c, &rec, &rlen, &off, &has, &err), &err);
    assert_true(has);
    Kudu__Tablet__TabletSuperBlockPB *sb =
        kudu__tablet__tablet_super_block_pb__unpack(NULL, rlen, rec);
    assert_non_null(sb);
    cf_kudu_pbc_free(c);
    cf_io_free(io);

    write_sb(id, sb);
    expect_open(id, CF_OK, NULL);

#define DROP(field, flag, what)                                                                    \
    do {                                                                                           \
        flag = 0;                                                                                  \
        write_sb(id, sb);                                                                          \
        expect_open(id, CF_ECORRUPT, what);                                                        \
        flag = 1;                                                                                  \
    } while (0)
    DROP(table_id, sb->has_table_id, "table_id");
    DROP(tablet_id, sb->has_tablet_id, "tablet_id");
    DROP(last_durable_mrs_id, sb->has_last_durable_mrs_id, "last_durable_mrs_id");
    DROP(schema_version, sb->has_schema_version, "schema_version");
    Kudu__Tablet__RowSetDataPB *rs = sb->rowsets[0];
    DROP(id, rs->has_id, "rowset 0: missing required field id");
    DROP(dms, rs->has_last_durable_dms_id, "last_durable_dms_id");
    DROP(colid, rs->columns[1]->has_column_id, "column 1: no column_id");
    DROP(blockid, rs->columns[2]->block->has_id, "block.id");
    DROP(minkey, rs->has_min_encoded_key, "max_encoded_key without min_encoded_key");
    Kudu__ColumnSchemaPB *col = sb->schema->columns[1];
    DROP(coltype, col->has_type, "no type");
    DROP(colid, col->has_id, "no id");
#undef DROP
    char *name = sb->table_name;
    sb->table_name = NULL;
    write_sb(id, sb);
    expect_open(id, CF_ECORRUPT, "table_name");
    sb->table_name = name;
    Kudu__SchemaPB *schema = sb->schema;
    sb->schema = NULL;
    write_sb(id, sb);
    expect_open(id, CF_ECORRUPT, "missing required field schema");
    sb->schema = schema;
    Kudu__PartitionPB *part = sb->partition;
    sb->partition = NULL;
    write_sb(id, sb);
    expect_open(id, CF_ECORRUPT, "partition");
    sb->partition = part;
    /* a key column after a non-key one; two columns with one id; unknown enums */
    sb->schema->columns[2]->is_key = 1;
    sb->schema->columns[2]->has_is_key = 1;
    bool was_key = sb->schema->columns[1]->is_key;
    if (!was_key) {
        write_sb(id, sb);
        expect_open(id, CF_ECORRUPT, "key column after a non-key one");
    }
    sb->schema->columns[2]->is_key = 0;
    uint32_t cid = col->id;
    col->id = sb->schema->columns[0]->id;
    write_sb(id, sb);
    expect_open(id, CF_ECORRUPT, "both have id");
    col->id = cid;
    Kudu__EncodingType enc = col->encoding;
    bool has_enc = col->has_encoding;
    col->has_encoding = 1;
    col->encoding = 77;
    write_sb(id, sb);
    expect_open(id, CF_ECORRUPT, "unknown encoding 77");
    col->encoding = enc;
    col->has_encoding = has_enc;
    Kudu__DataType ty = col->type;
    col->type = KUDU__DATA_TYPE__IS_DELETED;
    write_sb(id, sb);
    expect_open(id, CF_ENOTSUP, "IS_DELETED");
    col->type = 55;
    write_sb(id, sb);
    expect_open(id, CF_ECORRUPT, "unknown type 55");
    col->type = KUDU__DATA_TYPE__NESTED;
    write_sb(id, sb);
    expect_open(id, CF_ECORRUPT, "NESTED without nested_type");
    col->type = ty;
    /* a superblock of another tablet under this id */
    sb->tablet_id.data[0] = sb->tablet_id.data[0] == 'a' ? 'b' : 'a';
    write_sb(id, sb);
    expect_open(id, CF_ECORRUPT, "not");
    sb->tablet_id.data[0] = (uint8_t)id[0];
    write_sb(id, sb);
    expect_open(id, CF_OK, NULL);
    kudu__tablet__tablet_super_block_pb__free_unpacked(sb, NULL);
    free(bytes);
}

static void test_tablet__ids_and_links(void **state)
{
    (void)state;
    char id[40];
    layout_id("fbm-small-s4", id);
    /* not a tablet id: never made into a path */
    expect_open("../../etc/passwd", CF_EINVAL, "not 32 hex digits");
    expect_open("", CF_EINVAL, NULL);
    expect_open("0123456789abcdef0123456789abcdeg", CF_EINVAL, NULL);
    expect_open("0123456789abcdef0123456789abcdef0", CF_EINVAL, NULL);
    /* not on this server */
    expect_open(id, CF_ENOTFOUND, "not on this server");
    /* a symbolic link to the real file is not followed */
    char target[1024], link[256];
    snprintf(link, sizeof link, "fs/wal/tablet-meta/%s", id);
    kfs_layout_path(target, sizeof target, "fbm-small-s4", link);
    snprintf(link, sizeof link, "%s/tablet-meta/%s", scratch, id);
    assert_int_equal(symlink(target, link), 0);
    expect_open(id, CF_ECORRUPT, "symbolic link");
    unlink(link);
    /* nor one at tablet-meta/ */
    char dir[256];
    snprintf(dir, sizeof dir, "%s/tablet-meta", scratch);
    assert_int_equal(rmdir(dir), 0);
    kfs_layout_path(target, sizeof target, "fbm-small-s4", "fs/wal/tablet-meta");
    assert_int_equal(symlink(target, dir), 0);
    expect_open(id, CF_ECORRUPT, "symbolic link");
    unlink(dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    /* a directory in the file's place */
    snprintf(link, sizeof link, "%s/tablet-meta/%s", scratch, id);
    assert_int_equal(mkdir(link, 0700), 0);
    expect_open(id, CF_ECORRUPT, NULL);
    assert_int_equal(rmdir(link), 0);
}

/* The consensus metadata: absent is CF_ENOTFOUND from its JSON, damaged is the
 * damage, and neither stops the tablet from opening. */
static void test_tablet__consensus_meta(void **state)
{
    (void)state;
    char id[40];
    layout_id("lbm-onedir-s3", id);
    size_t len, clen;
    uint8_t *sb = layout_file("lbm-onedir-s3", "tablet-meta", id, &len);
    uint8_t *cm = layout_file("lbm-onedir-s3", "consensus-meta", id, &clen);
    put_file("tablet-meta", id, sb, len);
    cf_kudu_tablet *t = NULL;
    cf_error err = {0};
    char *json = NULL;
    CF_ASSERT_OK(cf_kudu_tablet_open_dir(&t, NULL, scratch, id, &err), &err);
    assert_null(cf_kudu_tablet_consensus(t));
    CF_ASSERT_STATUS(cf_kudu_tablet_consensus_json(t, false, &json, &err), CF_ENOTFOUND, &err);
    assert_null(json);
    cf_kudu_tablet_free(t);

    cm[clen - 1] ^= 1;
    put_file("consensus-meta", id, cm, clen);
    CF_ASSERT_OK(cf_kudu_tablet_open_dir(&t, NULL, scratch, id, &err), &err);
    CF_ASSERT_STATUS(cf_kudu_tablet_consensus_json(t, false, &json, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "consensus-meta"));
    cf_kudu_tablet_free(t);

    cm[clen - 1] ^= 1;
    put_file("consensus-meta", id, cm, clen);
    CF_ASSERT_OK(cf_kudu_tablet_open_dir(&t, NULL, scratch, id, &err), &err);
    CF_ASSERT_OK(cf_kudu_tablet_consensus_json(t, false, &json, &err), &err);
    assert_non_null(strstr(json, "current_term"));
    free(json);
    assert_int_equal(cf_kudu_tablet_consensus(t)->current_term, 1);
    cf_kudu_tablet_free(t);
    free(sb);
    free(cm);
}

/* A superblock written by cfile from a cf_schema (arrays, decimals, VARCHAR,
 * encodings) reads back as that schema. */
static void test_tablet__write_read_back(void **state)
{
    (void)state;
    cf_error err = {0};
    cf_schema *s = NULL;
    CF_ASSERT_OK(cf_schema_parse(&s,
                                 "k STRING KEY, k2 INT32 KEY ENCODING bit_shuffle, "
                                 "p DECIMAL64(12,3) NULL COMPRESSION lz4, "
                                 "v VARCHAR(20) ENCODING dict BLOCK_SIZE 8192, "
                                 "tags INT32[] NULL, d DATE",
                                 &err),
                 &err);
    uint32_t ids[] = {10, 11, 3, 40, 5, 6};
    cf_kudu_schema_pb spb;
    CF_ASSERT_OK(cf_kudu_schema_pb_build(&spb, s, ids, &err), &err);
    const char *id = "00112233445566778899aabbccddeeff";
    Kudu__Tablet__TabletSuperBlockPB sb = KUDU__TABLET__TABLET_SUPER_BLOCK_PB__INIT;
    sb.has_table_id = sb.has_tablet_id = sb.has_last_durable_mrs_id = true;
    sb.table_id = (ProtobufCBinaryData){4, (uint8_t *)"tbl1"};
    sb.tablet_id = (ProtobufCBinaryData){32, (uint8_t *)id};
    sb.last_durable_mrs_id = 7;
    sb.table_name = "written";
    sb.schema = &spb.pb;
    sb.has_schema_version = true;
    Kudu__PartitionPB part = KUDU__PARTITION_PB__INIT;
    sb.partition = &part;
    sb.has_tablet_data_state = true;
    sb.tablet_data_state = KUDU__TABLET__TABLET_DATA_STATE__TABLET_DATA_TOMBSTONED;
    write_sb(id, &sb);
    cf_kudu_tablet *t = NULL;
    CF_ASSERT_OK(cf_kudu_tablet_open_dir(&t, NULL, scratch, id, &err), &err);
    const cf_schema *got = cf_kudu_tablet_schema(t);
    char a[512], b[512];
    cf_schema_format(s, a, sizeof a);
    cf_schema_format(got, b, sizeof b);
    assert_string_equal(a, b);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(cf_kudu_tablet_column_id(t, i), ids[i]);
    assert_true(cf_schema_column_at(got, 4)->is_array);
    assert_int_equal(cf_schema_column_at(got, 2)->precision, 12);
    assert_int_equal(cf_schema_column_at(got, 3)->length, 20);
    assert_string_equal(cf_kudu_tablet_data_state(t), "TABLET_DATA_TOMBSTONED");
    assert_string_equal(cf_kudu_tablet_table_id(t), "tbl1");
    assert_int_equal(cf_kudu_tablet_last_durable_mrs_id(t), 7);
    assert_int_equal(cf_kudu_tablet_rowset_count(t), 0);
    cf_kudu_tablet_free(t);
    cf_kudu_schema_pb_dispose(&spb);
    cf_schema_free(s);
}

/* The SchemaPB cfile builds from a tablet's schema is the very bytes Kudu wrote
 * into each layout's superblock (common/wire_protocol.cc, ColumnSchemaToPB). */
static void test_tablet__schema_pb_bytes_equal_kudus(void **state)
{
    (void)state;
    for (size_t l = 0; l < KFS_NLAYOUTS; l++) {
        cf_json_doc fsj;
        cf_kudu_tablet *t = NULL;
        open_layout(&t, kfs_layouts[l], &fsj);
        const Kudu__SchemaPB *kudu = cf_kudu_tablet_superblock(t)->schema;
        size_t n = cf_schema_column_count(cf_kudu_tablet_schema(t));
        uint32_t ids[CF_SCHEMA_MAX_COLUMNS];
        for (size_t i = 0; i < n; i++)
            ids[i] = cf_kudu_tablet_column_id(t, i);
        cf_kudu_schema_pb ours;
        cf_error err = {0};
        CF_ASSERT_OK(cf_kudu_schema_pb_build(&ours, cf_kudu_tablet_schema(t), ids, &err), &err);
        size_t a = kudu__schema_pb__get_packed_size(kudu);
        size_t b = kudu__schema_pb__get_packed_size(&ours.pb);
        uint8_t *x = malloc(a), *y = malloc(b);
        kudu__schema_pb__pack(kudu, x);
        kudu__schema_pb__pack(&ours.pb, y);
        CF_ASSERT_BYTES(y, b, x, a);
        free(x);
        free(y);
        cf_kudu_schema_pb_dispose(&ours);
        cf_kudu_tablet_free(t);
        cf_json_doc_dispose(&fsj);
    }
}

/* A superblock written from a tablet's own fields (superblock_writer.c) is byte
 * for byte the record Kudu wrote, in every layout; written as a file it opens to
 * the same tablet. */
static void test_tablet__superblock_writer_equals_kudus(void **state)
{
    (void)state;
    for (size_t l = 0; l < KFS_NLAYOUTS; l++) {
        cf_json_doc fsj;
        cf_kudu_tablet *t = NULL;
        open_layout(&t, kfs_layouts[l], &fsj);
        const Kudu__Tablet__TabletSuperBlockPB *ksb = cf_kudu_tablet_superblock(t);
        size_t n = cf_schema_column_count(cf_kudu_tablet_schema(t));
        uint32_t ids[CF_SCHEMA_MAX_COLUMNS];
        for (size_t i = 0; i < n; i++)
            ids[i] = cf_kudu_tablet_column_id(t, i);
        const char *uuids[16];
        assert_non_null(ksb->data_dir_group);
        assert_true(ksb->data_dir_group->n_uuids <= 16);
        char ub[16][64];
        for (size_t i = 0; i < ksb->data_dir_group->n_uuids; i++) {
            const ProtobufCBinaryData *u = &ksb->data_dir_group->uuids[i];
            assert_true(u->len < 64);
            memcpy(ub[i], u->data, u->len);
            ub[i][u->len] = '\0';
            uuids[i] = ub[i];
        }
        cf_kudu_superblock_spec spec;
        cf_kudu_superblock_spec_init(&spec);
        spec.tablet_id = cf_kudu_tablet_id(t);
        spec.table_id = cf_kudu_tablet_table_id(t);
        spec.table_name = cf_kudu_tablet_table_name(t);
        spec.schema = cf_kudu_tablet_schema(t);
        spec.column_ids = ids;
        spec.schema_version = ksb->schema_version;
        spec.last_durable_mrs_id = cf_kudu_tablet_last_durable_mrs_id(t);
        cf_kudu_rowset rs[64];
        spec.nrowsets = cf_kudu_tablet_rowset_count(t);
        assert_true(spec.nrowsets <= 64);
        for (size_t r = 0; r < spec.nrowsets; r++)
            rs[r] = *cf_kudu_tablet_rowset_at(t, r);
        spec.rowsets = rs;
        spec.data_dir_uuids = uuids;
        spec.ndata_dir_uuids = ksb->data_dir_group->n_uuids;
        cf_buf ours;
        cf_buf_init(&ours);
        cf_error err = {0};
        CF_ASSERT_OK(cf_kudu_superblock_pack(&ours, &spec, &err), &err);
        size_t kn = kudu__tablet__tablet_super_block_pb__get_packed_size(ksb);
        uint8_t *kb = malloc(kn);
        kudu__tablet__tablet_super_block_pb__pack(ksb, kb);
        CF_ASSERT_BYTES(ours.data, ours.len, kb, kn);
        free(kb);
        cf_buf_dispose(&ours);

        /* as a file: the same tablet */
        char p[256];
        snprintf(p, sizeof p, "%s/tablet-meta/%s", scratch, spec.tablet_id);
        CF_ASSERT_OK(cf_kudu_superblock_write(p, &spec, &err), &err);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0600);
        cf_kudu_tablet *t2 = NULL;
        CF_ASSERT_OK(cf_kudu_tablet_open_dir(&t2, NULL, scratch, spec.tablet_id, &err), &err);
        assert_int_equal(cf_kudu_tablet_rowset_count(t2), spec.nrowsets);
        assert_string_equal(cf_kudu_tablet_table_name(t2), spec.table_name);
        char *a = NULL, *b = NULL;
        CF_ASSERT_OK(cf_kudu_tablet_superblock_json(t, false, &a, &err), &err);
        CF_ASSERT_OK(cf_kudu_tablet_superblock_json(t2, false, &b, &err), &err);
        assert_string_equal(a, b);
        free(a);
        free(b);
        cf_kudu_tablet_free(t2);
        cf_kudu_tablet_free(t);
        cf_json_doc_dispose(&fsj);
    }
    /* bad specs */
    cf_kudu_superblock_spec spec;
    cf_kudu_superblock_spec_init(&spec);
    cf_buf out;
    cf_buf_init(&out);
    cf_error err = {0};
    spec.tablet_id = "nope";
    CF_ASSERT_STATUS(cf_kudu_superblock_pack(&out, &spec, &err), CF_EINVAL, &err);
    spec.tablet_id = "00112233445566778899aabbccddeeff";
    CF_ASSERT_STATUS(cf_kudu_superblock_pack(&out, &spec, &err), CF_EINVAL, &err);
    spec.version = 99;
    CF_ASSERT_STATUS(cf_kudu_superblock_pack(&out, &spec, &err), CF_EINVAL, &err);
    cf_buf_dispose(&out);
}

static void test_tablet__block_kind_names(void **state)
{
    (void)state;
    static const struct {
        cf_kudu_block_kind kind;
        const char *name;
    } cases[] = {
        {CF_KUDU_BLOCK_ORPHAN, "orphan"},    {CF_KUDU_BLOCK_COLUMN, "column"},
        {CF_KUDU_BLOCK_BLOOM, "bloom"},      {CF_KUDU_BLOCK_ADHOC_INDEX, "adhoc_index"},
        {CF_KUDU_BLOCK_UNDO, "undo"},        {CF_KUDU_BLOCK_REDO, "redo"},
        {(cf_kudu_block_kind)42, "unknown"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(cf_kudu_block_kind_name(cases[i].kind), cases[i].name);
}

/* Every allocation failure while opening is CF_ENOMEM, never a crash or a leak. */
typedef struct sweep_ctx {
    uint8_t *sb, *cm;
    size_t sb_len, cm_len;
    const char *id;
} sweep_ctx;

static cf_status sweep_open(void *ctx, cf_error *err)
{
    sweep_ctx *x = ctx;
    cf_kudu_tablet *t = NULL;
    cf_status st =
        cf_kudu_tablet_open_mem(&t, x->id, x->sb, x->sb_len, "sb", x->cm, x->cm_len, err);
    cf_kudu_tablet_free(t);
    return st;
}

/* The superblock writer under allocation failures: CF_ENOMEM, nothing leaked. */
typedef struct pack_ctx {
    cf_kudu_tablet *t;
    uint32_t ids[64];
    cf_kudu_rowset rs[16];
} pack_ctx;

static cf_status sweep_pack(void *ctx, cf_error *err)
{
    pack_ctx *x = ctx;
    cf_kudu_superblock_spec spec;
    cf_kudu_superblock_spec_init(&spec);
    spec.tablet_id = cf_kudu_tablet_id(x->t);
    spec.table_id = cf_kudu_tablet_table_id(x->t);
    spec.table_name = cf_kudu_tablet_table_name(x->t);
    spec.schema = cf_kudu_tablet_schema(x->t);
    spec.column_ids = x->ids;
    spec.rowsets = x->rs;
    spec.nrowsets = cf_kudu_tablet_rowset_count(x->t);
    cf_buf b;
    cf_buf_init(&b);
    cf_status st = cf_kudu_superblock_pack(&b, &spec, err);
    cf_buf_dispose(&b);
    return st;
}

static void test_tablet__writer_alloc_failures(void **state)
{
    (void)state;
    cf_json_doc fsj;
    pack_ctx x;
    open_layout(&x.t, "lbm-onedir-s3", &fsj);
    for (size_t i = 0; i < cf_schema_column_count(cf_kudu_tablet_schema(x.t)); i++)
        x.ids[i] = cf_kudu_tablet_column_id(x.t, i);
    assert_true(cf_kudu_tablet_rowset_count(x.t) <= 16);
    for (size_t r = 0; r < cf_kudu_tablet_rowset_count(x.t); r++)
        x.rs[r] = *cf_kudu_tablet_rowset_at(x.t, r);
    cf_test_alloc_sweep("superblock pack", NULL, sweep_pack, &x, 100000);
    cf_kudu_tablet_free(x.t);
    cf_json_doc_dispose(&fsj);
}

static void test_tablet__alloc_failures(void **state)
{
    (void)state;
    char id[40];
    layout_id("lbm-basic-s1", id);
    sweep_ctx x = {.id = id};
    x.sb = layout_file("lbm-basic-s1", "tablet-meta", id, &x.sb_len);
    x.cm = layout_file("lbm-basic-s1", "consensus-meta", id, &x.cm_len);
    cf_test_alloc_sweep("tablet open", NULL, sweep_open, &x, 100000);
    free(x.sb);
    free(x.cm);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tablet__layouts),
        cmocka_unit_test(test_tablet__json),
        cmocka_unit_test_setup_teardown(test_tablet__cut_and_flipped, scratch_setup,
                                        scratch_teardown),
        cmocka_unit_test_setup_teardown(test_tablet__required_fields, scratch_setup,
                                        scratch_teardown),
        cmocka_unit_test_setup_teardown(test_tablet__ids_and_links, scratch_setup,
                                        scratch_teardown),
        cmocka_unit_test_setup_teardown(test_tablet__consensus_meta, scratch_setup,
                                        scratch_teardown),
        cmocka_unit_test_setup_teardown(test_tablet__write_read_back, scratch_setup,
                                        scratch_teardown),
        cmocka_unit_test(test_tablet__schema_pb_bytes_equal_kudus),
        cmocka_unit_test_setup_teardown(test_tablet__superblock_writer_equals_kudus, scratch_setup,
                                        scratch_teardown),
        cmocka_unit_test(test_tablet__block_kind_names),
        cmocka_unit_test(test_tablet__alloc_failures),
        cmocka_unit_test(test_tablet__writer_alloc_failures),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
