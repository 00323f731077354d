/* Fuzz Kudu's protobuf containers (src/kudufs/pbc.c) and tablet superblocks
 * (src/kudu/tablet.c, src/kudu/schema_pb.c), docs/KUDU-ON-DISK.md:
 *
 *   input: [opt][rest]
 *   opt bit 0 = 0: `rest` is a container file. Every record is read (a clean error
 *                  or records that lie inside the input, in file order, and a torn
 *                  end only at the end); each record of a type cfile knows is
 *                  printed as JSON; then the file is opened as a tablet's
 *                  superblock (with itself as consensus metadata when bit 2 is set).
 *   opt bit 0 = 1: `rest` is one TabletSuperBlockPB message, written into a
 *                  container (bit 1: version 1, else 2) by pbc_writer.c, which must
 *                  read back as exactly that record; then opened as a tablet, so
 *                  the superblock checks see arbitrary messages past the checksums.
 *   A tablet that opens keeps its invariants: a schema of 1..1024 columns with
 *   the key leading, every getter answers, rowset arrays as long as they say, its
 *   JSON prints.
 */
/* cf-needs: tables */
#include "fuzz.h"

#include <string.h>

#include <cfile/kudu.h>

#include "kudufs/pbc_writer.h"
#include "kudu/tablet.h"

static const char fixed_id[] = "0123456789abcdef0123456789abcdef";
static volatile size_t sink;

static void check_tablet(const cf_kudu_tablet *t)
{
    const cf_schema *s = cf_kudu_tablet_schema(t);
    size_t n = cf_schema_column_count(s);
    FUZZ_REQUIRE(n >= 1 && n <= CF_SCHEMA_MAX_COLUMNS);
    FUZZ_REQUIRE(cf_schema_key_count(s) >= 1);
    for (size_t i = 0; i < n; i++) {
        const cf_column *c = cf_schema_column_at(s, i);
        FUZZ_REQUIRE(c->is_key == (i < cf_schema_key_count(s)));
        for (size_t j = 0; j < i; j++)
            FUZZ_REQUIRE(cf_kudu_tablet_column_id(t, j) != cf_kudu_tablet_column_id(t, i));
    }
    FUZZ_REQUIRE(strlen(cf_kudu_tablet_id(t)) == 32);
    FUZZ_REQUIRE(cf_kudu_tablet_table_id(t) != NULL && cf_kudu_tablet_table_name(t) != NULL);
    FUZZ_REQUIRE(cf_kudu_tablet_data_state(t) != NULL);
    (void)cf_kudu_tablet_last_durable_mrs_id(t);
    size_t sum = 0;
    for (size_t r = 0; r < cf_kudu_tablet_rowset_count(t); r++) {
        const cf_kudu_rowset *rs = cf_kudu_tablet_rowset_at(t, r);
        for (size_t i = 0; i < rs->ncolumns; i++)
            sum += rs->column_blocks[i] + rs->column_ids[i];
        for (size_t i = 0; i < rs->nredo; i++)
            sum += rs->redo_blocks[i];
        for (size_t i = 0; i < rs->nundo; i++)
            sum += rs->undo_blocks[i];
        FUZZ_REQUIRE((rs->min_key == NULL) == (rs->max_key == NULL));
        for (size_t i = 0; rs->min_key != NULL && i < rs->min_key_len; i++)
            sum += rs->min_key[i];
        for (size_t i = 0; rs->max_key != NULL && i < rs->max_key_len; i++)
            sum += rs->max_key[i];
    }
    sink = sum; /* every array element was readable */
    FUZZ_REQUIRE(cf_kudu_tablet_rowset_at(t, cf_kudu_tablet_rowset_count(t)) == NULL);
    cf_error err = {0};
    char *json = NULL;
    cf_status st = cf_kudu_tablet_superblock_json(t, false, &json, &err);
    FUZZ_REQUIRE_MSG(st == CF_OK, &err); /* it parsed once already */
    free(json);
    st = cf_kudu_tablet_consensus_json(t, true, &json, &err);
    if (st == CF_OK)
        free(json);
    else
        fuzz_require_clean_error(st, &err);
}

static void open_tablet(const char *id, const uint8_t *sb, size_t len, const uint8_t *cm,
                        size_t cm_len)
{
    cf_kudu_tablet *t = NULL;
    cf_error err = {0};
    cf_status st = cf_kudu_tablet_open_mem(&t, id, sb, len, "fuzz", cm, cm_len, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        FUZZ_REQUIRE(t == NULL);
        return;
    }
    check_tablet(t);
    cf_kudu_tablet_free(t);
}

static void read_container(const uint8_t *data, size_t size, bool as_cmeta)
{
    cf_io *io = NULL;
    cf_kudu_pbc *c = NULL;
    cf_error err = {0};
    FUZZ_REQUIRE(cf_io_open_mem(&io, data, size, &err) == CF_OK);
    cf_status st = cf_kudu_pbc_open(&c, io, "fuzz", &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        cf_io_free(io);
        return;
    }
    const char *type = cf_kudu_pbc_type(c);
    FUZZ_REQUIRE(cf_kudu_pbc_version(c) == 1 || cf_kudu_pbc_version(c) == 2);
    uint64_t last = 0;
    for (int n = 0;; n++) {
        const uint8_t *rec;
        size_t len;
        uint64_t off;
        bool has;
        st = cf_kudu_pbc_next(c, &rec, &len, &off, &has, &err);
        if (st != CF_OK) {
            fuzz_require_clean_error(st, &err);
            break;
        }
        if (!has) {
            uint64_t torn;
            if (cf_kudu_pbc_torn(c, &torn))
                FUZZ_REQUIRE(torn >= last && torn <= size);
            break;
        }
        FUZZ_REQUIRE(off >= last && off <= size && len <= size - off);
        last = off + len;
        if (type != NULL && cf_kudu_pb_type_known(type) && n < 64) {
            char *json = NULL;
            st = cf_kudu_pb_to_json(type, rec, len, n & 1, &json, &err);
            if (st == CF_OK)
                free(json);
            else
                fuzz_require_clean_error(st, &err);
        }
    }
    cf_kudu_pbc_free(c);
    cf_io_free(io);
    open_tablet(fixed_id, data, size, as_cmeta ? data : NULL, size);
}

/* The record as a superblock: the tablet id it names when it names one. */
static void wrap_superblock(const uint8_t *msg, size_t len, uint32_t version)
{
    cf_error err = {0};
    cf_io *out = NULL;
    cf_kudu_pbc_writer *w = NULL;
    FUZZ_REQUIRE(cf_io_create_mem(&out, &err) == CF_OK);
    FUZZ_REQUIRE_MSG(cf_kudu_pbc_writer_create(&w, out, version,
                                               &kudu__tablet__tablet_super_block_pb__descriptor,
                                               &err) == CF_OK,
                     &err);
    FUZZ_REQUIRE_MSG(cf_kudu_pbc_writer_append(w, msg, len, &err) == CF_OK, &err);
    FUZZ_REQUIRE_MSG(cf_kudu_pbc_writer_finish(w, &err) == CF_OK, &err);
    cf_slice file = cf_io_mem_contents(out);
    /* what was written reads back as exactly that one record */
    cf_io *in = NULL;
    cf_kudu_pbc *c = NULL;
    FUZZ_REQUIRE(cf_io_open_mem(&in, file.data, file.len, &err) == CF_OK);
    FUZZ_REQUIRE_MSG(cf_kudu_pbc_open(&c, in, "wrapped", &err) == CF_OK, &err);
    FUZZ_REQUIRE(cf_kudu_pbc_version(c) == version);
    FUZZ_REQUIRE(strcmp(cf_kudu_pbc_type(c), "kudu.tablet.TabletSuperBlockPB") == 0);
    const uint8_t *rec;
    size_t n;
    uint64_t off;
    bool has;
    FUZZ_REQUIRE_MSG(cf_kudu_pbc_next(c, &rec, &n, &off, &has, &err) == CF_OK, &err);
    FUZZ_REQUIRE(has && n == len && (len == 0 || memcmp(rec, msg, len) == 0));
    FUZZ_REQUIRE_MSG(cf_kudu_pbc_next(c, &rec, &n, &off, &has, &err) == CF_OK, &err);
    FUZZ_REQUIRE(!has && !cf_kudu_pbc_torn(c, NULL));
    cf_kudu_pbc_free(c);
    cf_io_free(in);

    char id[33];
    memcpy(id, fixed_id, 33);
    Kudu__Tablet__TabletSuperBlockPB *sb =
        kudu__tablet__tablet_super_block_pb__unpack(NULL, len, msg);
    if (sb != NULL && sb->has_tablet_id && sb->tablet_id.len == 32) {
        memcpy(id, sb->tablet_id.data, 32);
        if (!cf_kudu_tablet_id_valid(id))
            memcpy(id, fixed_id, 33);
    }
    if (sb != NULL)
        kudu__tablet__tablet_super_block_pb__free_unpacked(sb, NULL);
    open_tablet(id, file.data, file.len, NULL, 0);
    cf_kudu_pbc_writer_free(w);
    cf_io_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t opt = data[0];
    data++;
    size--;
    if (opt & 1)
        wrap_superblock(data, size, opt & 2 ? 1 : 2);
    else
        read_container(data, size, opt & 4);
    return 0;
}
