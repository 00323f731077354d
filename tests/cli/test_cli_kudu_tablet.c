/* cf-needs: tables */
/* `cfile kudu pbc dump` and `cfile kudu tablet list|meta|schema|rowsets|data-size`
 * (tools/cfile/cmd_kudu_pbc.c, cmd_kudu_tablet.c) over every layout of
 * ../shared/kudu-fs: what they print equals what Kudu wrote and printed
 * (expected/superblock.json, consensus_meta.json, fs.json, containers.json);
 * usage errors exit 2, damage (a torn or flipped container, a damaged superblock, a
 * block the superblock names but the server lost) exits 1 naming the file. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "kudufs/lbm_writer.h"
#include "kudufs/pbc_writer.h"
#include "kudu/tablet.h"
#include "support_cli.h"
#include "support_fsroot.h"
#include "support_kudu.h"
#include "test_common.h"

static const char *const layouts[] = {"fbm-small-s4", "lbm-basic-s1", "lbm-compound-s2",
                                      "lbm-onedir-s3"};
#define NLAYOUTS (sizeof layouts / sizeof layouts[0])

/* One layout: its root, fs.json, and the FS options as strings. */
typedef struct layout {
    char root[512];
    cf_json_doc fsj;
    char wal[600], data[1300], tablet[40];
    char tablet_meta[700], cmeta[700];
} layout;

static const cf_json *get(const cf_json *o, const char *k)
{
    return o != NULL && o->kind == CF_JSON_OBJECT ? cf_json_get(o, k) : NULL;
}

static const char *str(const cf_json *o, const char *k)
{
    const cf_json *v = get(o, k);
    return v != NULL && v->kind == CF_JSON_STRING ? v->str : NULL;
}

static const char *need(const cf_json *o, const char *k)
{
    const char *s = str(o, k);
    if (s == NULL)
        fail_msg("no string member '%s'", k);
    return s != NULL ? s : "";
}

/* An integer member (number or decimal string); k NULL: o itself. */
static long long num(const cf_json *o, const char *k)
{
    const cf_json *v = k ? get(o, k) : o;
    assert_non_null(v);
    return strtoll(v->str, NULL, 10);
}

static void parse_text(cf_json_doc *d, const char *text)
{
    char msg[256];
    if (cf_json_parse(d, text, strlen(text), msg, sizeof msg) != 0)
        fail_msg("not JSON (%s): %.300s", msg, text);
}

/* root: the folder holding fs/ (a layout of ../shared, or a copy) */
static void layout_open(layout *l, const char *root, const char *name)
{
    memset(l, 0, sizeof(*l));
    snprintf(l->root, sizeof l->root, "%s", root);
    char p[1024], msg[256];
    snprintf(p, sizeof p, "%s/kudu-fs/%s/expected/fs.json", cf_test_shared_dir(), name);
    if (cf_json_parse_file(&l->fsj, p, msg, sizeof msg) != 0)
        fail_msg("%s: %s", p, msg);
    const cf_json *r = &l->fsj.root;
    snprintf(l->wal, sizeof l->wal, "%s/%s", root, need(r, "wal_root"));
    const cf_json *d = get(r, "data_roots");
    size_t at = 0;
    for (size_t i = 0; i < d->n; i++)
        at += (size_t)snprintf(l->data + at, sizeof l->data - at, "%s%s/%s", i ? "," : "", root,
                               d->items[i].str);
    snprintf(l->tablet, sizeof l->tablet, "%s", need(r, "tablet_id"));
    snprintf(l->tablet_meta, sizeof l->tablet_meta, "%s/%s", root, need(r, "tablet_meta"));
    snprintf(l->cmeta, sizeof l->cmeta, "%s/%s", root, need(r, "consensus_meta"));
}

static void shared_layout(layout *l, const char *name)
{
    char root[512];
    snprintf(root, sizeof root, "%s/kudu-fs/%s", cf_test_shared_dir(), name);
    layout_open(l, root, name);
}

static void expected(cf_json_doc *d, const char *name, const char *file)
{
    char p[1024], msg[256];
    snprintf(p, sizeof p, "%s/kudu-fs/%s/expected/%s", cf_test_shared_dir(), name, file);
    if (cf_json_parse_file(d, p, msg, sizeof msg) != 0)
        fail_msg("%s: %s", p, msg);
}

/* ---- pbc dump ---- */

static void test_kudu_tablet__pbc_dump_equals_kudu(void **state)
{
    (void)state;
    for (size_t i = 0; i < NLAYOUTS; i++) {
        layout l;
        shared_layout(&l, layouts[i]);
        for (int which = 0; which < 2; which++) {
            run r;
            CLI(&r, "kudu", "pbc", "dump", "--json", which ? l.cmeta : l.tablet_meta);
            EXPECT_RC(r, 0);
            cf_json_doc got, want;
            parse_text(&got, r.out);
            expected(&want, layouts[i], which ? "consensus_meta.json" : "superblock.json");
            assert_int_equal(got.root.kind, CF_JSON_OBJECT);
            if (!kudu_json_equal_as(&got.root, &want.root, false))
                fail_msg("%s: pbc dump differs from Kudu's", which ? l.cmeta : l.tablet_meta);
            cf_json_doc_dispose(&got);
            cf_json_doc_dispose(&want);
            done(&r);
            /* the text form names the type and each message */
            CLI(&r, "kudu", "pbc", "dump", which ? l.cmeta : l.tablet_meta);
            EXPECT_RC(r, 0);
            assert_non_null(strstr(r.out, which ? "kudu.consensus.ConsensusMetadataPB"
                                                : "kudu.tablet.TabletSuperBlockPB"));
            assert_non_null(strstr(r.out, "Message 0"));
            assert_null(strstr(r.out, "Message 1"));
            done(&r);
        }
        cf_json_doc_dispose(&l.fsj);
    }
}

/* A log block manager metadata file: several records, a JSON array, each equal to
 * the record containers.json lists. */
static void test_kudu_tablet__pbc_dump_records(void **state)
{
    (void)state;
    cf_json_doc cont;
    expected(&cont, "lbm-basic-s1", "containers.json");
    const cf_json *c0 = &cont.root.items[0];
    char p[1024];
    snprintf(p, sizeof p, "%s/kudu-fs/lbm-basic-s1/%s/%s.metadata", cf_test_shared_dir(),
             need(c0, "data_dir"), need(c0, "container"));
    run r;
    CLI(&r, "kudu", "pbc", "dump", "--json", p);
    EXPECT_RC(r, 0);
    cf_json_doc got;
    parse_text(&got, r.out);
    const cf_json *recs = get(c0, "records");
    assert_int_equal(got.root.kind, CF_JSON_ARRAY);
    assert_int_equal(got.root.n, recs->n);
    for (size_t i = 0; i < recs->n; i++) {
        const cf_json *g = &got.root.items[i], *w = &recs->items[i];
        assert_string_equal(str(g, "op_type"), str(w, "op"));
        assert_int_equal(num(get(g, "block_id"), "id"), num(w, "block_id"));
        assert_int_equal(num(g, "timestamp_us"), num(w, "timestamp_us"));
    }
    cf_json_doc_dispose(&got);
    done(&r);
    /* --type names the type: the same records */
    CLI(&r, "kudu", "pbc", "dump", "--json", "--type", "kudu.BlockRecordPB", p);
    cli_rc(&r, 0);
    cf_json_doc_dispose(&cont);
}

static void test_kudu_tablet__pbc_usage(void **state)
{
    (void)state;
    run r;
    CLI(&r, "kudu", "pbc");
    cli_rc(&r, 2);
    CLI(&r, "kudu", "pbc", "show", "x");
    cli_rc(&r, 2);
    CLI(&r, "kudu", "pbc", "dump");
    cli_err(&r, 2, "expected one FILE");
    CLI(&r, "kudu", "pbc", "dump", "a", "b");
    cli_rc(&r, 2);
    CLI(&r, "kudu", "pbc", "dump", "--type", "kudu.NoSuchPB", "a");
    cli_err(&r, 2, "kudu.NoSuchPB");
    CLI(&r, "kudu", "pbc", "dump", "--bogus", "a");
    cli_rc(&r, 2);
    CLI(&r, "kudu", "pbc", "dump", "--help");
    cli_out(&r, 0, "usage: cfile kudu pbc dump");
}

static void test_kudu_tablet__pbc_damage(void **state)
{
    (void)state;
    layout l;
    shared_layout(&l, "lbm-basic-s1");
    size_t len;
    uint8_t *sb = cf_test_read_file(l.tablet_meta, &len);
    assert_non_null(sb);
    /* cut inside the superblock record: a torn last record, named by offset */
    char *cut = cli_dir_path("cut");
    write_text(cut, (const char *)sb, len - 10);
    run r;
    CLI(&r, "kudu", "pbc", "dump", "--json", cut);
    EXPECT_RC(r, 1);
    assert_non_null(strstr(r.err, "offset"));
    assert_non_null(strstr(r.err, cut));
    cf_json_doc d;
    parse_text(&d, r.out); /* still one JSON value: the records before it (none) */
    assert_int_equal(d.root.kind, CF_JSON_ARRAY);
    assert_int_equal(d.root.n, 0);
    cf_json_doc_dispose(&d);
    done(&r);
    /* a flipped byte inside the record: a checksum mismatch, named by offset */
    char *flip = cli_dir_path("flip");
    sb[len - 40] ^= 4;
    write_text(flip, (const char *)sb, len);
    CLI(&r, "kudu", "pbc", "dump", "--json", flip);
    cli_err(&r, 1, "offset");
    /* not a container; a file that is not there */
    char *junk = cli_dir_path("junk");
    write_str(junk, "not a protobuf container at all");
    CLI(&r, "kudu", "pbc", "dump", junk);
    cli_rc(&r, 1);
    CLI(&r, "kudu", "pbc", "dump", cli_dir_path("nothing"));
    cli_rc(&r, 1);
    free(sb);
    cf_json_doc_dispose(&l.fsj);
}

/* ---- tablet ---- */

#define FS(l) "--fs-wal-dir", (l).wal, "--fs-data-dirs", (l).data

static void test_kudu_tablet__meta_and_schema(void **state)
{
    (void)state;
    for (size_t i = 0; i < NLAYOUTS; i++) {
        layout l;
        shared_layout(&l, layouts[i]);
        run r;
        CLI(&r, "kudu", "tablet", "meta", "--json", FS(l), l.tablet);
        EXPECT_RC(r, 0);
        cf_json_doc got, sb, cm;
        parse_text(&got, r.out);
        expected(&sb, layouts[i], "superblock.json");
        expected(&cm, layouts[i], "consensus_meta.json");
        const cf_json *g = &got.root;
        assert_true(kudu_json_equal_as(get(g, "superblock"), &sb.root, false));
        assert_true(kudu_json_equal_as(get(g, "consensus_meta"), &cm.root, false));
        assert_string_equal(str(g, "tablet_id"), l.tablet);
        assert_string_equal(str(g, "table_id"), str(&l.fsj.root, "table_id"));
        assert_string_equal(str(g, "table_name"), str(&sb.root, "table_name"));
        assert_string_equal(str(g, "tablet_data_state"), str(&sb.root, "tablet_data_state"));
        assert_int_equal(num(g, "last_durable_mrs_id"), num(&sb.root, "last_durable_mrs_id"));
        const cf_json *cons = get(g, "consensus");
        assert_int_equal(num(cons, "current_term"), num(&cm.root, "current_term"));
        assert_string_equal(str(cons, "voted_for"), str(&cm.root, "voted_for"));
        assert_int_equal(get(get(cons, "committed_config"), "peers")->n,
                         get(get(&cm.root, "committed_config"), "peers")->n);
        /* an unpartitioned range: unbounded both ways */
        const cf_json *part = get(g, "partition");
        assert_int_equal(get(part, "range_start")->kind, CF_JSON_NULL);
        assert_int_equal(get(part, "range_end")->kind, CF_JSON_NULL);
        /* the schema's columns against the superblock's */
        const cf_json *cols = get(get(g, "schema"), "columns");
        const cf_json *want = get(get(&sb.root, "schema"), "columns");
        assert_int_equal(cols->n, want->n);
        for (size_t c = 0; c < cols->n; c++) {
            const cf_json *a = &cols->items[c], *b = &want->items[c];
            assert_string_equal(str(a, "name"), str(b, "name"));
            assert_string_equal(str(a, "type"), str(b, "type"));
            assert_string_equal(str(a, "encoding"), str(b, "encoding"));
            assert_string_equal(str(a, "compression"), str(b, "compression"));
            assert_int_equal(num(a, "id"), num(b, "id"));
            assert_int_equal(get(a, "nullable")->kind, get(b, "is_nullable")->kind);
            assert_int_equal(get(a, "is_key")->kind, get(b, "is_key")->kind);
        }
        cf_json_doc_dispose(&got);
        cf_json_doc_dispose(&sb);
        cf_json_doc_dispose(&cm);
        done(&r);

        /* the text forms: the schema exactly as Kudu's Schema::ToString (fs.json) */
        const char *kschema = str(&l.fsj.root, "schema");
        CLI(&r, "kudu", "tablet", "schema", FS(l), l.tablet);
        EXPECT_RC(r, 0);
        assert_memory_equal(r.out, kschema, strlen(kschema));
        done(&r);
        CLI(&r, "kudu", "tablet", "meta", FS(l), l.tablet);
        EXPECT_RC(r, 0);
        assert_non_null(strstr(r.out, kschema));
        assert_non_null(strstr(r.out, "Partition: RANGE ("));
        assert_non_null(strstr(r.out, "Consensus metadata: term "));
        done(&r);
        CLI(&r, "kudu", "tablet", "schema", "--json", FS(l), l.tablet);
        EXPECT_RC(r, 0);
        parse_text(&got, r.out);
        assert_true(get(&got.root, "primary_key")->n >= 1);
        cf_json_doc_dispose(&got);
        done(&r);
        cf_json_doc_dispose(&l.fsj);
    }
}

/* Every live block fs.json lists appears in `tablet rowsets` with its role and,
 * for the log block manager, the container, offset and length containers.json
 * gives; data-size adds the same lengths up. */
static void test_kudu_tablet__rowsets_and_sizes(void **state)
{
    (void)state;
    for (size_t i = 0; i < NLAYOUTS; i++) {
        layout l;
        shared_layout(&l, layouts[i]);
        run r;
        CLI(&r, "kudu", "tablet", "rowsets", "--json", FS(l), l.tablet);
        EXPECT_RC(r, 0);
        cf_json_doc got, cont;
        parse_text(&got, r.out);
        bool lbm = strcmp(str(&l.fsj.root, "block_manager"), "log") == 0;
        if (lbm)
            expected(&cont, layouts[i], "containers.json");
        const cf_json *rowsets = get(&got.root, "rowsets");
        const cf_json *live = get(&l.fsj.root, "live_blocks");
        size_t nblocks = 0;
        uint64_t total = 0;
        for (size_t r2 = 0; r2 < rowsets->n; r2++) {
            nblocks += get(&rowsets->items[r2], "blocks")->n;
            total += (uint64_t)num(&rowsets->items[r2], "size");
        }
        assert_int_equal(nblocks, live->n);
        for (size_t b = 0; b < live->n; b++) {
            long long id = num(&live->items[b], "block_id");
            const char *role = str(&live->items[b], "role");
            const cf_json *found = NULL;
            long long rsid = -1;
            for (size_t r2 = 0; r2 < rowsets->n && !found; r2++) {
                const cf_json *bl = get(&rowsets->items[r2], "blocks");
                for (size_t k = 0; k < bl->n; k++)
                    if (num(&bl->items[k], "block_id") == id) {
                        found = &bl->items[k];
                        rsid = num(&rowsets->items[r2], "id");
                    }
            }
            assert_non_null(found);
            char want[200];
            const char *kind = str(found, "kind");
            if (strcmp(kind, "column") == 0)
                snprintf(want, sizeof want, "rowset %lld col:%s", rsid, str(found, "column"));
            else if (strcmp(kind, "bloom") == 0)
                snprintf(want, sizeof want, "rowset %lld bloom", rsid);
            else if (strcmp(kind, "adhoc_index") == 0)
                snprintf(want, sizeof want, "rowset %lld adhoc", rsid);
            else
                snprintf(want, sizeof want, "rowset %lld %s%lld", rsid, kind,
                         num(found, "delta_index"));
            assert_string_equal(role, want);
            assert_int_equal(get(found, "missing")->kind, CF_JSON_FALSE);
            if (!lbm)
                continue;
            bool matched = false;
            for (size_t c = 0; c < cont.root.n && !matched; c++) {
                const cf_json *lv = get(&cont.root.items[c], "live");
                for (size_t k = 0; k < lv->n; k++)
                    if (num(&lv->items[k], "block_id") == id) {
                        assert_string_equal(str(found, "container"),
                                            str(&cont.root.items[c], "container"));
                        assert_int_equal(num(found, "offset"), num(&lv->items[k], "offset"));
                        assert_int_equal(num(found, "length"), num(&lv->items[k], "length"));
                        matched = true;
                    }
            }
            assert_true(matched);
        }
        cf_json_doc_dispose(&got);
        if (lbm)
            cf_json_doc_dispose(&cont);
        done(&r);

        CLI(&r, "kudu", "tablet", "data-size", "--json", FS(l));
        EXPECT_RC(r, 0);
        parse_text(&got, r.out);
        const cf_json *tabs = get(&got.root, "tablets");
        assert_int_equal(tabs->n, 1);
        assert_int_equal(num(&tabs->items[0], "total"), total);
        assert_int_equal(num(&tabs->items[0], "missing_blocks"), 0);
        assert_int_equal(num(&get(&got.root, "tables")->items[0], "total"), total);
        cf_json_doc_dispose(&got);
        done(&r);

        CLI(&r, "kudu", "tablet", "list", "--json", FS(l));
        EXPECT_RC(r, 0);
        parse_text(&got, r.out);
        tabs = get(&got.root, "tablets");
        assert_int_equal(tabs->n, 1);
        assert_string_equal(str(&tabs->items[0], "tablet_id"), l.tablet);
        assert_int_equal(get(&tabs->items[0], "error")->kind, CF_JSON_NULL);
        cf_json_doc_dispose(&got);
        done(&r);

        /* the text forms run and name what they show */
        CLI(&r, "kudu", "tablet", "rowsets", FS(l), l.tablet);
        cli_out(&r, 0, "Column block for column ID");
        CLI(&r, "kudu", "tablet", "data-size", FS(l), l.tablet);
        cli_out(&r, 0, "block type");
        CLI(&r, "kudu", "tablet", "list", FS(l));
        cli_out(&r, 0, l.tablet);
        cf_json_doc_dispose(&l.fsj);
    }
}

/* A compound key decodes into its columns. */
static void test_kudu_tablet__compound_keys(void **state)
{
    (void)state;
    layout l;
    shared_layout(&l, "lbm-compound-s2");
    run r;
    CLI(&r, "kudu", "tablet", "rowsets", "--json", FS(l), l.tablet);
    EXPECT_RC(r, 0);
    cf_json_doc got;
    parse_text(&got, r.out);
    const cf_json *rs0 = &get(&got.root, "rowsets")->items[0];
    const cf_json *mk = get(rs0, "min_key");
    assert_int_equal(mk->kind, CF_JSON_OBJECT);
    assert_int_equal(mk->n, 2);
    assert_non_null(str(mk, "host"));
    assert_non_null(get(mk, "ts"));
    cf_json_doc_dispose(&got);
    done(&r);
    cf_json_doc_dispose(&l.fsj);
}

static void test_kudu_tablet__usage(void **state)
{
    (void)state;
    layout l;
    shared_layout(&l, "lbm-onedir-s3");
    run r;
    CLI(&r, "kudu", "tablet");
    cli_rc(&r, 2);
    CLI(&r, "kudu", "tablet", "frobnicate", FS(l));
    cli_rc(&r, 2);
    CLI(&r, "kudu", "tablet", "meta", l.tablet);
    EXPECT_RC(r, 2); /* no FS */
    done(&r);
    CLI(&r, "kudu", "tablet", "meta", FS(l));
    EXPECT_RC(r, 2); /* no tablet */
    done(&r);
    CLI(&r, "kudu", "tablet", "list", FS(l), l.tablet);
    EXPECT_RC(r, 2); /* list takes none */
    done(&r);
    CLI(&r, "kudu", "tablet", "meta", FS(l), "../../etc/passwd");
    cli_rc(&r, 2);
    CLI(&r, "kudu", "tablet", "schema", FS(l), "0123456789abcdef0123456789abcdeX");
    cli_rc(&r, 2);
    CLI(&r, "kudu", "tablet", "rowsets", "--bogus", FS(l), l.tablet);
    cli_rc(&r, 2);
    CLI(&r, "kudu", "tablet", "--help");
    cli_out(&r, 0, "data-size");
    CLI(&r, "kudu", "tablet", "meta", "--help");
    cli_rc(&r, 0);
    /* a tablet id this server does not have */
    CLI(&r, "kudu", "tablet", "meta", FS(l), "0123456789abcdef0123456789abcdef");
    cli_err(&r, 1, "not on this server");
    CLI(&r, "kudu", "tablet", "data-size", FS(l), "0123456789abcdef0123456789abcdef");
    cli_rc(&r, 1);
    cf_json_doc_dispose(&l.fsj);
}

/* A writable copy of a layout's fs/ in the scratch dir. */
static void copy_layout(layout *l, const char *name)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp -r '%s/kudu-fs/%s/fs' '%s/' && chmod -R u+w '%s/fs'",
             cf_test_shared_dir(), name, cli_dir, cli_dir);
    assert_int_equal(system(cmd), 0);
    layout_open(l, cli_dir, name);
}

static void test_kudu_tablet__damaged_superblock(void **state)
{
    (void)state;
    layout l;
    copy_layout(&l, "lbm-basic-s1");
    size_t len;
    uint8_t *sb = cf_test_read_file(l.tablet_meta, &len);
    assert_non_null(sb);
    sb[len / 2] ^= 0x10;
    write_text(l.tablet_meta, (const char *)sb, len);
    run r;
    CLI(&r, "kudu", "tablet", "meta", "--json", FS(l), l.tablet);
    EXPECT_RC(r, 1);
    assert_non_null(strstr(r.err, l.tablet_meta));
    assert_non_null(strstr(r.err, "offset"));
    done(&r);
    /* list still lists it, with the error, and fails */
    CLI(&r, "kudu", "tablet", "list", "--json", FS(l));
    EXPECT_RC(r, 1);
    cf_json_doc got;
    parse_text(&got, r.out);
    const cf_json *t0 = &get(&got.root, "tablets")->items[0];
    assert_string_equal(str(t0, "tablet_id"), l.tablet);
    assert_non_null(strstr(str(t0, "error"), "tablet-meta"));
    cf_json_doc_dispose(&got);
    done(&r);
    /* cut short */
    write_text(l.tablet_meta, (const char *)sb, 30);
    CLI(&r, "kudu", "tablet", "rowsets", FS(l), l.tablet);
    cli_err(&r, 1, l.tablet_meta);
    free(sb);
    cf_json_doc_dispose(&l.fsj);
}

/* Damaged consensus metadata: meta prints the superblock and fails naming it. */
static void test_kudu_tablet__damaged_cmeta(void **state)
{
    (void)state;
    layout l;
    copy_layout(&l, "lbm-onedir-s3");
    size_t len;
    uint8_t *cm = cf_test_read_file(l.cmeta, &len);
    assert_non_null(cm);
    cm[len - 2] ^= 1;
    write_text(l.cmeta, (const char *)cm, len);
    run r;
    CLI(&r, "kudu", "tablet", "meta", "--json", FS(l), l.tablet);
    EXPECT_RC(r, 1);
    assert_non_null(strstr(r.err, "consensus-meta"));
    cf_json_doc got;
    parse_text(&got, r.out);
    assert_int_equal(get(&got.root, "consensus_meta")->kind, CF_JSON_NULL);
    cf_json_doc_dispose(&got);
    done(&r);
    free(cm);
    cf_json_doc_dispose(&l.fsj);
}

/* A block the superblock names that the file block manager lost: rowsets and
 * data-size say it is missing and fail. */
static void test_kudu_tablet__missing_block(void **state)
{
    (void)state;
    layout l;
    copy_layout(&l, "fbm-small-s4");
    const cf_json *live = get(&l.fsj.root, "live_blocks");
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", cli_dir, need(&live->items[0], "path"));
    assert_int_equal(unlink(p), 0);
    run r;
    CLI(&r, "kudu", "tablet", "rowsets", "--json", FS(l), l.tablet);
    EXPECT_RC(r, 1);
    assert_non_null(strstr(r.err, "missing"));
    assert_non_null(strstr(r.out, "\"missing\":true"));
    done(&r);
    CLI(&r, "kudu", "tablet", "data-size", "--json", FS(l));
    EXPECT_RC(r, 1);
    cf_json_doc got;
    parse_text(&got, r.out);
    assert_int_equal(num(&get(&got.root, "tablets")->items[0], "missing_blocks"), 1);
    cf_json_doc_dispose(&got);
    done(&r);
    cf_json_doc_dispose(&l.fsj);
}

/* A root cfile writes (instance files by lbm_writer.h, a superblock by
 * superblock_writer.c) with what the layouts lack: a hash and range partitioned
 * tablet with a compound key, a column with read and write defaults, a
 * tombstoned second tablet without rowsets. */
static void test_kudu_tablet__built_root(void **state)
{
    (void)state;
    char *root = cli_dir_path("root");
    static const char *const all[] = {"00000000000000000000000000000001"};
    cli_kudu_root(root, all);
    cf_error err = {0};
    cf_schema *schema = NULL;
    CF_ASSERT_OK(
        cf_schema_parse(&schema, "host STRING KEY, ts INT64 KEY, v INT32 NULL, s STRING", &err),
        &err);
    uint32_t ids[] = {0, 1, 5, 7};
    /* hash bucket 3, then the range key ("a\0b", 5): the string escaped, not last */
    static const uint8_t start[] = {0, 0, 0, 3, 'a', 0, 1, 'b', 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 5};
    static const uint8_t end[] = {0, 0, 0, 4};
    cf_kudu_superblock_spec spec;
    cf_kudu_superblock_spec_init(&spec);
    spec.tablet_id = "aaaabbbbccccddddeeeeffff00001111";
    spec.table_id = "t0";
    spec.table_name = "built";
    spec.schema = schema;
    spec.column_ids = ids;
    spec.last_durable_mrs_id = -1;
    spec.partition_key_start = start;
    spec.partition_key_start_len = sizeof start;
    spec.partition_key_end = end;
    spec.partition_key_end_len = sizeof end;
    Kudu__Tablet__TabletSuperBlockPB *sb = cli_kudu_superblock_pb(&spec);
    /* HASH (host) 4 buckets; this tablet is bucket 3 */
    Kudu__PartitionSchemaPB__ColumnIdentifierPB ident =
        KUDU__PARTITION_SCHEMA_PB__COLUMN_IDENTIFIER_PB__INIT;
    ident.identifier_case = KUDU__PARTITION_SCHEMA_PB__COLUMN_IDENTIFIER_PB__IDENTIFIER_ID;
    ident.id = 0;
    Kudu__PartitionSchemaPB__ColumnIdentifierPB *identp = &ident;
    Kudu__PartitionSchemaPB__HashBucketSchemaPB hash =
        KUDU__PARTITION_SCHEMA_PB__HASH_BUCKET_SCHEMA_PB__INIT;
    hash.n_columns = 1;
    hash.columns = &identp;
    hash.has_num_buckets = true;
    hash.num_buckets = 4;
    Kudu__PartitionSchemaPB__HashBucketSchemaPB *hashp = &hash;
    sb->partition_schema->n_hash_schema = 1;
    sb->partition_schema->hash_schema = &hashp;
    int32_t bucket = 3;
    sb->partition->n_hash_buckets = 1;
    sb->partition->hash_buckets = &bucket;
    /* v INT32 defaults: read 7, write -2 (little-endian, Kudu's memory form) */
    Kudu__ColumnSchemaPB *v = sb->schema->columns[2];
    v->has_read_default_value = v->has_write_default_value = true;
    v->read_default_value = (ProtobufCBinaryData){4, (uint8_t *)"\x07\0\0\0"};
    v->write_default_value = (ProtobufCBinaryData){4, (uint8_t *)"\xfe\xff\xff\xff"};
    char p[1024];
    snprintf(p, sizeof p, "%s/tablet-meta/%s", root, spec.tablet_id);
    CF_ASSERT_OK(cf_kudu_pbc_write_file(p, &sb->base, &err), &err);
    /* give back what free_unpacked must not free */
    sb->partition_schema->n_hash_schema = 0;
    sb->partition_schema->hash_schema = NULL;
    sb->partition->n_hash_buckets = 0;
    sb->partition->hash_buckets = NULL;
    v->has_read_default_value = v->has_write_default_value = false;
    v->read_default_value = v->write_default_value = (ProtobufCBinaryData){0, NULL};
    kudu__tablet__tablet_super_block_pb__free_unpacked(sb, NULL);
    /* a tombstoned tablet of the same table */
    spec.tablet_id = "aaaabbbbccccddddeeeeffff00002222";
    spec.data_state = KUDU__TABLET__TABLET_DATA_STATE__TABLET_DATA_TOMBSTONED;
    spec.partition_key_start_len = spec.partition_key_end_len = 0;
    snprintf(p, sizeof p, "%s/tablet-meta/%s", root, spec.tablet_id);
    CF_ASSERT_OK(cf_kudu_superblock_write(p, &spec, &err), &err);
    cf_schema_free(schema);

    run r;
    CLI(&r, "kudu", "tablet", "meta", "--json", "--fs-wal-dir", root,
        "aaaabbbbccccddddeeeeffff00001111");
    EXPECT_RC(r, 0);
    cf_json_doc got;
    parse_text(&got, r.out);
    const cf_json *part = get(&got.root, "partition");
    assert_int_equal(get(part, "hash_buckets")->n, 1);
    assert_int_equal(num(&get(part, "hash_buckets")->items[0], NULL), 3);
    const cf_json *lo = get(part, "range_start");
    assert_int_equal(lo->kind, CF_JSON_OBJECT);
    const cf_json *host = get(lo, "host");
    assert_int_equal(host->len, 3);
    assert_memory_equal(host->str, "a\0b", 3);
    assert_int_equal(num(lo, "ts"), 5);
    assert_int_equal(get(part, "range_end")->kind, CF_JSON_NULL);
    assert_string_equal(need(part, "partition_key_start"), "000000036100016200008000000000000005");
    assert_int_equal(get(&got.root, "consensus")->kind, CF_JSON_NULL);
    cf_json_doc_dispose(&got);
    done(&r);

    CLI(&r, "kudu", "tablet", "meta", "--fs-wal-dir", root, "aaaabbbbccccddddeeeeffff00001111");
    EXPECT_RC(r, 0);
    assert_non_null(
        strstr(r.out, "Partition: HASH (host) PARTITION 3, RANGE (host, ts) PARTITION "));
    /* the key's NUL is printed as it is: search past it */
    assert_non_null(memmem(r.out, r.out_len, "(a\0b, 5) <= VALUES\n", 19));
    assert_non_null(memmem(r.out, r.out_len, "Consensus metadata: none", 24));
    done(&r);

    CLI(&r, "kudu", "tablet", "schema", "--json", "--fs-wal-dir", root,
        "aaaabbbbccccddddeeeeffff00001111");
    EXPECT_RC(r, 0);
    parse_text(&got, r.out);
    const cf_json *vc = &get(&got.root, "columns")->items[2];
    assert_int_equal(num(vc, "id"), 5);
    assert_int_equal(num(vc, "read_default"), 7);
    assert_int_equal(num(vc, "write_default"), -2);
    assert_int_equal(get(&get(&got.root, "columns")->items[3], "read_default")->kind, CF_JSON_NULL);
    assert_int_equal(get(&got.root, "primary_key")->n, 2);
    cf_json_doc_dispose(&got);
    done(&r);

    CLI(&r, "kudu", "tablet", "list", "--json", "--fs-wal-dir", root);
    EXPECT_RC(r, 0);
    parse_text(&got, r.out);
    const cf_json *tabs = get(&got.root, "tablets");
    assert_int_equal(tabs->n, 2);
    assert_string_equal(need(&tabs->items[1], "tablet_data_state"), "TABLET_DATA_TOMBSTONED");
    assert_int_equal(num(&tabs->items[1], "rowsets"), 0);
    cf_json_doc_dispose(&got);
    done(&r);

    CLI(&r, "kudu", "tablet", "rowsets", "--fs-wal-dir", root, "aaaabbbbccccddddeeeeffff00002222");
    cli_out(&r, 0, "No rowsets found on disk");
    CLI(&r, "kudu", "tablet", "data-size", "--json", "--fs-wal-dir", root);
    EXPECT_RC(r, 0);
    parse_text(&got, r.out);
    assert_int_equal(get(&got.root, "tables")->n, 1);
    assert_int_equal(get(&got.root, "tablets")->n, 2);
    cf_json_doc_dispose(&got);
    done(&r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kudu_tablet__pbc_dump_equals_kudu),
        cmocka_unit_test(test_kudu_tablet__pbc_dump_records),
        cmocka_unit_test(test_kudu_tablet__pbc_usage),
        cmocka_unit_test_setup_teardown(test_kudu_tablet__pbc_damage, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test(test_kudu_tablet__meta_and_schema),
        cmocka_unit_test(test_kudu_tablet__rowsets_and_sizes),
        cmocka_unit_test(test_kudu_tablet__compound_keys),
        cmocka_unit_test(test_kudu_tablet__usage),
        cmocka_unit_test_setup_teardown(test_kudu_tablet__damaged_superblock, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_kudu_tablet__damaged_cmeta, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_kudu_tablet__missing_block, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_kudu_tablet__built_root, cli_dir_setup,
                                        cli_dir_teardown),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
