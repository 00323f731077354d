/* `cfile kudu tablet list|meta|schema|rowsets|data-size`: a server's tablets as
 * Kudu's `kudu local_replica list`, `dump meta`, `dump block_ids` and `data_size`
 * show them (tools/tool_action_local_replica.cc): table name and id, partition and
 * its key range, schema, data state, every DiskRowSet with its blocks, their sizes
 * and key range, the last durable MemRowSet id, and the consensus metadata.
 *
 * What kudu.h's getters do not give (partition, defaults, consensus fields) is read
 * from the superblock's and consensus metadata's protobuf JSON, the public form. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/kudu.h>

#include "cli.h"
#include "json.h"
#include "kudu_args.h"
#include "kudu_cmd.h"
#include "kudu_tablet_out.h"
#include "vprint.h"

static const char tablet_usage[] =
    "usage: cfile kudu tablet list [--json] FS\n"
    "       cfile kudu tablet meta [--json] FS TABLET_ID\n"
    "       cfile kudu tablet schema [--json] FS TABLET_ID\n"
    "       cfile kudu tablet rowsets [--json] FS TABLET_ID\n"
    "       cfile kudu tablet data-size [--json] FS [TABLET_ID]\n"
    "       cfile kudu tablet scan ... (cfile kudu tablet scan --help)\n"
    "\n"
    "A server's tablets from their superblocks (tablet-meta/) and consensus metadata\n"
    "(consensus-meta/), as Kudu's local_replica tools show them:\n"
    "  list       every tablet: id, table, data state, partition, rowsets\n"
    "  meta       table name and id, partition and key range, schema, data state, last\n"
    "             durable MemRowSet id, consensus term, vote and committed config, and\n"
    "             the whole superblock\n"
    "  schema     columns with Kudu's types, nullability, encodings, compression,\n"
    "             block sizes, defaults, and the primary key\n"
    "  rowsets    every DiskRowSet: its blocks (column, bloom, ad-hoc index, UNDO,\n"
    "             REDO) with their lengths and places, min/max keys, live rows\n"
    "  data-size  bytes per rowset and block kind, per tablet and per table\n"
    "\n"
    "FS names the server's directories:\n" CF_KUDU_ARGS_USAGE
    "  --json                   JSON instead of text\n"
    "  --help                   this text\n"
    "A damaged tablet is reported with the file and offset and the others still\n"
    "listed (exit 1); a block a superblock names that the server does not hold is\n"
    "reported as missing (exit 1).\n";

typedef struct targs {
    bool json;
    cf_kudu_args fs_args;
    const char *tablet;
    cf_kudu_fs *fs;
    cf_kudu_tablet *t; /* the tablet operand opened, for the commands that require it */
    cf_kt_meta_json m; /* t's superblock and consensus metadata, for meta and schema */
} targs;

/* Options, FS, and the tablet operand (`want`: 0 none, 1 required, 2 optional). */
static int parse(cf_cli *c, int argc, char **argv, int want, targs *a)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        CF_KUDU_ARGS_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    int ch, rc;
    cf_cli_getopt_reset();
    while ((ch = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': a->json = true; break;
        case 'h': cf_cli_help(c); return -1;
        default:
            rc = cf_kudu_args_option(c, &a->fs_args, ch, optarg);
            if (rc < 0)
                return cf_cli_bad_option(c, argv);
            if (rc > 0)
                return rc;
        }
    }
    int left = argc - optind;
    if (want == 0 && left != 0)
        return cf_cli_usage(c, "unexpected argument '%s'", argv[optind]);
    if (want == 1 && left != 1)
        return cf_cli_usage(c, "expected one TABLET_ID");
    if (want == 2 && left > 1)
        return cf_cli_usage(c, "expected at most one TABLET_ID");
    a->tablet = left == 1 ? argv[optind] : NULL;
    if (a->tablet != NULL && strlen(a->tablet) != 32)
        return cf_cli_usage(c, "'%s' is not a tablet id (32 hex digits)", a->tablet);
    return cf_kudu_args_open(c, &a->fs_args, &a->fs);
}

static int open_tablet(cf_cli *c, const targs *a, const char *id, cf_kudu_tablet **t)
{
    cf_error e = {0};
    cf_status st = cf_kudu_tablet_open(t, a->fs, id, &e);
    return st == CF_OK ? 0 : cf_kt_lib_fail(c, st, &e);
}

/* ---- the subcommands ---- */

static int done(targs *a, int rc)
{
    cf_kt_meta_free(&a->m);
    cf_kudu_tablet_free(a->t);
    cf_kudu_fs_free(a->fs);
    cf_kudu_args_free(&a->fs_args);
    return rc;
}

/* list and data-size in JSON: {"tablets": [...], ...}. */
static void jw_tablets_begin(cf_jw *w, cf_cli *c, const targs *a)
{
    cf_jw_init(w, c->out);
    if (a->json) {
        cf_jw_obj_begin(w);
        cf_jw_kv_arr_begin(w, "tablets");
    }
}

static int cmd_list(cf_cli *c, targs *a)
{
    int rc = 0;
    cf_jw w;
    jw_tablets_begin(&w, c, a);
    for (size_t i = 0; i < cf_kudu_fs_tablet_count(a->fs); i++) {
        const char *id = cf_kudu_fs_tablet_at(a->fs, i);
        cf_kudu_tablet *t = NULL;
        cf_error e = {0};
        cf_status st = cf_kudu_tablet_open(&t, a->fs, id, &e);
        cf_kt_meta_json m = {0};
        if (st == CF_OK && cf_kt_meta_load(c, t, &m) != 0)
            st = CF_ECORRUPT;
        if (st != CF_OK) {
            fprintf(c->err, "cfile %s: %s\n", c->cmd, e.msg[0] ? e.msg : cf_status_str(st));
            rc = CF_EXIT_FAIL;
        }
        if (a->json) {
            cf_jw_obj_begin(&w);
            cf_jw_kv_cstr(&w, "tablet_id", id);
            if (st != CF_OK) {
                cf_jw_kv_cstr(&w, "error", e.msg);
            } else {
                cf_jw_kv_cstr(&w, "table_name", cf_kudu_tablet_table_name(t));
                cf_jw_kv_cstr(&w, "table_id", cf_kudu_tablet_table_id(t));
                cf_jw_kv_cstr(&w, "tablet_data_state", cf_kudu_tablet_data_state(t));
                cf_jw_key(&w, "partition");
                cf_kt_partition_json(&w, t, &m.sb.root);
                cf_jw_kv_uint(&w, "rowsets", cf_kudu_tablet_rowset_count(t));
                cf_jw_kv_null(&w, "error");
            }
            cf_jw_obj_end(&w);
        } else if (st == CF_OK) {
            fprintf(c->out, "%s  %s (%s)  %s  ", id, cf_kudu_tablet_table_name(t),
                    cf_kudu_tablet_table_id(t), cf_kudu_tablet_data_state(t));
            cf_kt_partition_text(c->out, t, &m.sb.root);
            fputc('\n', c->out);
        }
        cf_kt_meta_free(&m);
        cf_kudu_tablet_free(t);
    }
    if (a->json) {
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    }
    return rc;
}

static int cmd_meta(cf_cli *c, targs *a)
{
    cf_kudu_tablet *t = a->t;
    const cf_kt_meta_json *m = &a->m;
    const cf_json *sb = &m->sb.root;
    if (a->json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_jw_kv_cstr(&w, "tablet_id", cf_kudu_tablet_id(t));
        cf_jw_kv_cstr(&w, "table_id", cf_kudu_tablet_table_id(t));
        cf_jw_kv_cstr(&w, "table_name", cf_kudu_tablet_table_name(t));
        cf_jw_kv_cstr(&w, "tablet_data_state", cf_kudu_tablet_data_state(t));
        cf_jw_kv_int(&w, "last_durable_mrs_id", cf_kudu_tablet_last_durable_mrs_id(t));
        cf_jw_key(&w, "partition");
        cf_kt_partition_json(&w, t, sb);
        cf_jw_key(&w, "schema");
        cf_kt_schema_json(&w, t, sb);
        cf_jw_kv_uint(&w, "rowsets", cf_kudu_tablet_rowset_count(t));
        cf_jw_key(&w, "consensus");
        cf_kt_consensus_json(&w, m);
        cf_jw_key(&w, "superblock");
        cf_jw_value(&w, sb);
        cf_jw_key(&w, "consensus_meta");
        if (m->has_cm)
            cf_jw_value(&w, &m->cm.root);
        else
            cf_jw_null(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        FILE *f = c->out;
        fputs("Partition: ", f);
        cf_kt_partition_text(f, t, sb);
        fprintf(f, "\nTable name: %s Table id: %s\n", cf_kudu_tablet_table_name(t),
                cf_kudu_tablet_table_id(t));
        fprintf(f, "Schema (version=%lld): ", cf_kt_jint(sb, "schema_version", 0));
        cf_kt_schema_text(f, t, sb);
        fprintf(f, "\nTablet data state: %s\nLast durable MemRowSet id: %" PRId64 "\n",
                cf_kudu_tablet_data_state(t), cf_kudu_tablet_last_durable_mrs_id(t));
        cf_kt_consensus_text(f, m);
        char *js = NULL;
        cf_error e = {0};
        cf_status st = cf_kudu_tablet_superblock_json(t, true, &js, &e);
        if (st != CF_OK)
            return cf_kt_lib_fail(c, st, &e);
        fprintf(f, "Superblock:\n%s\n", js);
        free(js);
    }
    if (m->cm_err[0]) {
        fprintf(c->err, "cfile %s: %s\n", c->cmd, m->cm_err);
        return CF_EXIT_FAIL;
    }
    return CF_EXIT_OK;
}

static int cmd_schema(cf_cli *c, targs *a)
{
    cf_kudu_tablet *t = a->t;
    const cf_json *sb = &a->m.sb.root;
    if (a->json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_kt_schema_json(&w, t, sb);
        cf_jw_newline(&w);
    } else {
        cf_kt_schema_text(c->out, t, sb);
        fputs("\n\ncolumn               encoding         compression          block size  "
              "read default / write default\n",
              c->out);
        const cf_json *cols = cf_kt_jget(cf_kt_jget(sb, "schema"), "columns");
        const cf_schema *s = cf_kudu_tablet_schema(t);
        for (size_t i = 0; i < cf_schema_column_count(s); i++) {
            const cf_json *cj = cols != NULL && i < cols->n ? &cols->items[i] : NULL;
            const char *rd = cf_kt_jstr(cj, "read_default_value"),
                       *wd = cf_kt_jstr(cj, "write_default_value");
            fprintf(c->out, "%-20s %-16s %-20s %10lld  %s / %s\n", cf_schema_column_at(s, i)->name,
                    cf_kt_jstr_or(cj, "encoding", "AUTO_ENCODING"),
                    cf_kt_jstr_or(cj, "compression", "DEFAULT_COMPRESSION"),
                    cf_kt_jint(cj, "cfile_block_size", 0), rd ? rd : "-", wd ? wd : "-");
        }
    }
    return CF_EXIT_OK;
}

static int cmd_rowsets(cf_cli *c, targs *a)
{
    cf_kudu_tablet *t = a->t;
    int rc = 0;
    size_t missing;
    if (a->json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_jw_kv_cstr(&w, "tablet_id", cf_kudu_tablet_id(t));
        cf_jw_kv_int(&w, "last_durable_mrs_id", cf_kudu_tablet_last_durable_mrs_id(t));
        cf_jw_key(&w, "rowsets");
        missing = cf_kt_rowsets_json(&w, a->fs, t);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        fprintf(c->out, "Tablet %s: last durable MemRowSet id %" PRId64 "\n", cf_kudu_tablet_id(t),
                cf_kudu_tablet_last_durable_mrs_id(t));
        missing = cf_kt_rowsets_text(c->out, a->fs, t);
    }
    if (missing > 0) {
        fprintf(c->err, "cfile %s: tablet %s: %zu block(s) named by the superblock are missing\n",
                c->cmd, cf_kudu_tablet_id(t), missing);
        rc = CF_EXIT_FAIL;
    }
    return rc;
}

/* data-size: Kudu's kinds ("c<id> (<name>)", REDO, UNDO, BLOOM, PK) per rowset. */
typedef struct sizes {
    uint64_t redo, undo, bloom, pk, columns, total;
    size_t missing;
} sizes;

static void size_add(sizes *s, const cf_kt_rblock *b)
{
    if (b->b == NULL) {
        s->missing++;
        return;
    }
    uint64_t n = b->b->length;
    switch (b->kind) {
    case CF_KUDU_BLOCK_COLUMN: s->columns += n; break;
    case CF_KUDU_BLOCK_BLOOM: s->bloom += n; break;
    case CF_KUDU_BLOCK_ADHOC_INDEX: s->pk += n; break;
    case CF_KUDU_BLOCK_UNDO: s->undo += n; break;
    default: s->redo += n; break;
    }
    s->total += n;
}

static void sizes_json(cf_jw *w, const sizes *s)
{
    static const char *const names[] = {"columns", "REDO", "UNDO", "BLOOM", "PK", "total"};
    const uint64_t v[] = {s->columns, s->redo, s->undo, s->bloom, s->pk, s->total};
    for (size_t i = 0; i < 6; i++)
        cf_jw_kv_uint(w, names[i], v[i]);
}

static void sizes_row(FILE *f, const char *table, const char *tablet, const char *rowset,
                      const char *kind, uint64_t n)
{
    fprintf(f, "%-32s  %-32s  %-9s  %-24s  %" PRIu64 "\n", table, tablet, rowset, kind, n);
}

static int cmd_data_size(cf_cli *c, targs *a)
{
    int rc = 0;
    cf_jw w;
    jw_tablets_begin(&w, c, a);
    if (!a->json)
        fprintf(c->out, "%-32s  %-32s  %-9s  %-24s  %s\n", "table id", "tablet id", "rowset id",
                "block type", "size");
    /* per table: ids and totals */
    size_t ntab = 0;
    char **tab_ids = NULL;
    sizes *tab_sizes = NULL;
    for (size_t i = 0; i < cf_kudu_fs_tablet_count(a->fs); i++) {
        const char *id = cf_kudu_fs_tablet_at(a->fs, i);
        if (a->tablet != NULL && strcmp(id, a->tablet) != 0)
            continue;
        cf_kudu_tablet *t = NULL;
        cf_error e = {0};
        cf_status st = cf_kudu_tablet_open(&t, a->fs, id, &e);
        if (st != CF_OK) {
            fprintf(c->err, "cfile %s: %s\n", c->cmd, e.msg);
            rc = CF_EXIT_FAIL;
            continue;
        }
        const char *table = cf_kudu_tablet_table_id(t);
        sizes ts = {0};
        if (a->json) {
            cf_jw_obj_begin(&w);
            cf_jw_kv_cstr(&w, "tablet_id", id);
            cf_jw_kv_cstr(&w, "table_id", table);
            cf_jw_kv_cstr(&w, "table_name", cf_kudu_tablet_table_name(t));
            cf_jw_kv_arr_begin(&w, "rowsets");
        }
        for (size_t r = 0; r < cf_kudu_tablet_rowset_count(t); r++) {
            const cf_kudu_rowset *rs = cf_kudu_tablet_rowset_at(t, r);
            size_t nb;
            cf_kt_rblock *bl = cf_kt_rowset_blocks(a->fs, rs, &nb);
            sizes s = {0};
            char rsid[24];
            snprintf(rsid, sizeof rsid, "%" PRIu64, rs->id);
            if (a->json) {
                cf_jw_obj_begin(&w);
                cf_jw_kv_uint(&w, "rowset_id", rs->id);
                cf_jw_kv_obj_begin(&w, "column_sizes");
            }
            for (size_t k = 0; k < nb; k++) {
                size_add(&s, &bl[k]);
                if (bl[k].kind != CF_KUDU_BLOCK_COLUMN)
                    continue;
                const char *nm = cf_kt_column_name(t, (uint32_t)bl[k].column_id);
                char key[300];
                snprintf(key, sizeof key, "c%ld (%s)", bl[k].column_id, nm ? nm : "?");
                uint64_t n = bl[k].b ? bl[k].b->length : 0;
                if (a->json) {
                    cf_jw_kv_uint(&w, key, n);
                } else {
                    sizes_row(c->out, table, id, rsid, key, n);
                }
            }
            if (a->json) {
                cf_jw_obj_end(&w);
                sizes_json(&w, &s);
                cf_jw_obj_end(&w);
            } else {
                sizes_row(c->out, table, id, rsid, "REDO", s.redo);
                sizes_row(c->out, table, id, rsid, "UNDO", s.undo);
                sizes_row(c->out, table, id, rsid, "BLOOM", s.bloom);
                sizes_row(c->out, table, id, rsid, "PK", s.pk);
                sizes_row(c->out, table, id, rsid, "*", s.total);
            }
            ts.columns += s.columns;
            ts.redo += s.redo;
            ts.undo += s.undo;
            ts.bloom += s.bloom;
            ts.pk += s.pk;
            ts.total += s.total;
            ts.missing += s.missing;
            free(bl);
        }
        if (a->json) {
            cf_jw_arr_end(&w);
            sizes_json(&w, &ts);
            cf_jw_kv_uint(&w, "missing_blocks", ts.missing);
            cf_jw_obj_end(&w);
        } else {
            sizes_row(c->out, table, id, "*", "*", ts.total);
        }
        if (ts.missing > 0) {
            fprintf(c->err,
                    "cfile %s: tablet %s: %zu block(s) named by the superblock are missing\n",
                    c->cmd, id, ts.missing);
            rc = CF_EXIT_FAIL;
        }
        size_t j = 0;
        while (j < ntab && strcmp(tab_ids[j], table) != 0)
            j++;
        if (j == ntab) {
            char **ni = realloc(tab_ids, (ntab + 1) * sizeof *ni);
            if (ni != NULL)
                tab_ids = ni;
            sizes *ns = realloc(tab_sizes, (ntab + 1) * sizeof *ns);
            if (ns != NULL)
                tab_sizes = ns;
            char *dup = strdup(table);
            if (ni == NULL || ns == NULL || dup == NULL) {
                free(dup);
                cf_kudu_tablet_free(t);
                rc = cf_cli_fail(c, "out of memory");
                break;
            }
            tab_ids[ntab] = dup;
            tab_sizes[ntab] = (sizes){0};
            ntab++;
        }
        tab_sizes[j].total += ts.total;
        cf_kudu_tablet_free(t);
    }
    if (a->json) {
        cf_jw_arr_end(&w);
        cf_jw_kv_arr_begin(&w, "tables");
        for (size_t j = 0; j < ntab; j++) {
            cf_jw_obj_begin(&w);
            cf_jw_kv_cstr(&w, "table_id", tab_ids[j]);
            cf_jw_kv_uint(&w, "total", tab_sizes[j].total);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        for (size_t j = 0; j < ntab; j++)
            sizes_row(c->out, tab_ids[j], "*", "*", "*", tab_sizes[j].total);
    }
    for (size_t j = 0; j < ntab; j++)
        free(tab_ids[j]);
    free(tab_ids);
    free(tab_sizes);
    if (a->tablet != NULL && ntab == 0 && rc == 0) {
        fprintf(c->err, "cfile %s: tablet %s is not on this server\n", c->cmd, a->tablet);
        rc = CF_EXIT_FAIL;
    }
    return rc;
}

int cf_cmd_kudu_tablet(cf_cli *c, int argc, char **argv)
{
    static const struct {
        const char *name;
        int want;  /* the tablet operand: 0 none, 1 required, 2 optional */
        bool meta; /* reads the tablet's metadata JSON (targs.m) */
        int (*fn)(cf_cli *, targs *);
    } subs[] = {
        {"list", 0, false, cmd_list},           {"meta", 1, true, cmd_meta},
        {"schema", 1, true, cmd_schema},        {"rowsets", 1, false, cmd_rowsets},
        {"data-size", 2, false, cmd_data_size},
    };
    cf_cli sub = cf_cli_sub(c, "kudu tablet", tablet_usage);
    if (argc < 2)
        return cf_cli_usage(&sub, "expected: list, meta, schema, rowsets, data-size or scan");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return cf_cli_help(&sub);
    if (strcmp(argv[1], "scan") == 0) {
        sub.cmd = "kudu tablet scan";
        sub.usage = cf_cmd_kudu_tablet_scan_usage;
        cf_cli_getopt_reset();
        return cf_cmd_kudu_tablet_scan(&sub, argc - 1, argv + 1);
    }
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        if (strcmp(argv[1], subs[i].name) != 0)
            continue;
        char cmd[64];
        snprintf(cmd, sizeof cmd, "kudu tablet %s", subs[i].name);
        sub.cmd = cmd;
        targs a = {0};
        cf_kudu_args_init(&a.fs_args);
        int rc = parse(&sub, argc - 1, argv + 1, subs[i].want, &a);
        if (rc != 0)
            return done(&a, rc < 0 ? CF_EXIT_OK : rc);
        if (subs[i].want == 1 && (rc = open_tablet(&sub, &a, a.tablet, &a.t)) != 0)
            return done(&a, rc);
        if (subs[i].meta && (rc = cf_kt_meta_load(&sub, a.t, &a.m)) != 0)
            return done(&a, rc);
        return done(&a, subs[i].fn(&sub, &a));
    }
    return cf_cli_usage(&sub, "unknown tablet command '%s'", argv[1]);
}
