/* `cfile kudu pbc dump`: any of Kudu's protobuf container files printed record by
 * record, as `kudu pbc dump` prints them (tools/tool_action_pbc.cc and
 * ReadablePBContainerFile::Dump in util/pb_util.cc). The message type is the one
 * the file's supplemental header names, or --type, or what the file's place says
 * (tablet-meta/, consensus-meta/, instance, *.metadata).
 *
 * --json: one record is one JSON object, several a JSON array (of the records
 * read, when the file ends in a torn record: that is then an error naming its
 * offset, exit 1, after the output). Without --json each record is a header line
 * and its protobuf JSON, indented. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/kudu.h>

#include "cli.h"
#include "kudu_cmd.h"

static const char pbc_usage[] =
    "usage: cfile kudu pbc dump [--json] [--type TYPE] FILE\n"
    "\n"
    "Print the records of one of Kudu's protobuf container files (a superblock in\n"
    "tablet-meta/, consensus metadata in consensus-meta/, an instance file, a log block\n"
    "manager's <id>.metadata) in protobuf's JSON mapping: original field names, 64-bit\n"
    "integers as strings, bytes as base64, enums by name. Checksums are verified; a\n"
    "file that ends in an incomplete record prints the records before it and fails\n"
    "(exit 1) naming the offset.\n"
    "\n"
    "  --json        one record: one JSON object; several: a JSON array\n"
    "  --type TYPE   the message type (\"kudu.tablet.TabletSuperBlockPB\"), instead of\n"
    "                the one the file's header names or its place suggests\n"
    "  --help        this text\n";

/* What the file's place says it holds (fs/fs_manager.cc, tablet/tablet_metadata.cc,
 * consensus/consensus_meta.cc, fs/log_block_manager.cc names), or NULL. */
static const char *type_by_place(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t dlen = (size_t)(base - path);
    if (dlen > 0)
        dlen--; /* the '/' */
    const char *dir = path;
    for (size_t i = 0; i < dlen; i++)
        if (path[i] == '/')
            dir = path + i + 1;
    size_t dn = (size_t)(path + dlen - dir);
    if (dn == 11 && strncmp(dir, "tablet-meta", 11) == 0)
        return "kudu.tablet.TabletSuperBlockPB";
    if (dn == 14 && strncmp(dir, "consensus-meta", 14) == 0)
        return "kudu.consensus.ConsensusMetadataPB";
    if (cf_cli_ends_with(base, ".metadata"))
        return "kudu.BlockRecordPB";
    if (strcmp(base, "block_manager_instance") == 0)
        return "kudu.DirInstanceMetadataPB";
    if (strcmp(base, "instance") == 0)
        return "kudu.InstanceMetadataPB";
    return NULL;
}

static int lib_fail(cf_cli *c, cf_status st, const cf_error *e)
{
    fprintf(c->err, "cfile %s: %s\n", c->cmd, e->msg[0] ? e->msg : cf_status_str(st));
    return st == CF_ENOTSUP ? CF_EXIT_NOTSUP : CF_EXIT_FAIL;
}

/* Every record's JSON, then the end: collected first so the output is one valid
 * JSON value even when the file ends in a torn record. */
typedef struct records {
    char **json;
    uint64_t *offset;
    size_t *len;
    size_t n, cap;
} records;

static void records_free(records *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->json[i]);
    free(r->json);
    free(r->offset);
    free(r->len);
}

static bool records_add(records *r, char *json, uint64_t off, size_t len)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        char **j = realloc(r->json, cap * sizeof *j);
        if (j != NULL)
            r->json = j;
        uint64_t *o = realloc(r->offset, cap * sizeof *o);
        if (o != NULL)
            r->offset = o;
        size_t *l = realloc(r->len, cap * sizeof *l);
        if (l != NULL)
            r->len = l;
        if (j == NULL || o == NULL || l == NULL)
            return false;
        r->cap = cap;
    }
    r->json[r->n] = json;
    r->offset[r->n] = off;
    r->len[r->n] = len;
    r->n++;
    return true;
}

static int dump(cf_cli *c, const char *path, const char *type_opt, bool json)
{
    cf_error e = {0};
    cf_kudu_pbc *pbc = NULL;
    records r = {0};
    int rc = CF_EXIT_OK;
    cf_status st = cf_kudu_pbc_open_file(&pbc, path, &e);
    if (st != CF_OK)
        return lib_fail(c, st, &e);
    const char *type = type_opt;
    if (type == NULL)
        type = cf_kudu_pbc_type(pbc);
    if (type == NULL || type[0] == '\0')
        type = type_by_place(path);
    if (type == NULL) {
        rc = cf_cli_fail(c, "%s: the file does not say what it holds: name it with --type", path);
        goto out;
    }
    if (!cf_kudu_pb_type_known(type)) {
        fprintf(c->err, "cfile %s: %s: message type %s is not one cfile knows\n", c->cmd, path,
                type);
        rc = CF_EXIT_NOTSUP;
        goto out;
    }
    for (;;) {
        const uint8_t *data;
        size_t len;
        uint64_t off;
        bool has;
        st = cf_kudu_pbc_next(pbc, &data, &len, &off, &has, &e);
        if (st != CF_OK) {
            rc = lib_fail(c, st, &e);
            break;
        }
        if (!has)
            break;
        char *js = NULL;
        st = cf_kudu_pb_to_json(type, data, len, !json, &js, &e);
        if (st != CF_OK) {
            fprintf(c->err, "cfile %s: %s: record at offset %llu: %s\n", c->cmd, path,
                    (unsigned long long)off, e.msg);
            rc = st == CF_ENOTSUP ? CF_EXIT_NOTSUP : CF_EXIT_FAIL;
            break;
        }
        if (!records_add(&r, js, off, len)) {
            free(js);
            rc = cf_cli_fail(c, "%s: out of memory", path);
            break;
        }
    }
    if (json) {
        if (r.n == 1) {
            fprintf(c->out, "%s\n", r.json[0]);
        } else {
            fputc('[', c->out);
            for (size_t i = 0; i < r.n; i++)
                fprintf(c->out, "%s%s", i ? "," : "", r.json[i]);
            fputs("]\n", c->out);
        }
    } else {
        fprintf(c->out, "File: %s\nProtobuf container version: %u\nEntry PB type: %s\n\n", path,
                cf_kudu_pbc_version(pbc), type);
        for (size_t i = 0; i < r.n; i++)
            fprintf(c->out, "Message %zu (offset %llu, %zu bytes)\n-------\n%s\n\n", i,
                    (unsigned long long)r.offset[i], r.len[i], r.json[i]);
    }
    uint64_t torn;
    if (rc == CF_EXIT_OK && cf_kudu_pbc_torn(pbc, &torn)) {
        fprintf(c->err, "cfile %s: %s: offset %llu: the last record is incomplete (a torn write)\n",
                c->cmd, path, (unsigned long long)torn);
        rc = CF_EXIT_FAIL;
    }
out:
    records_free(&r);
    cf_kudu_pbc_free(pbc);
    return rc;
}

int cf_cmd_kudu_pbc(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"type", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cf_cli sub = cf_cli_sub(c, "kudu pbc", pbc_usage);
    if (argc < 2)
        return cf_cli_usage(&sub, "expected: dump");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return cf_cli_help(&sub);
    if (strcmp(argv[1], "dump") != 0)
        return cf_cli_usage(&sub, "unknown pbc command '%s' (expected dump)", argv[1]);
    argc--;
    argv++;
    sub.cmd = "kudu pbc dump";
    bool json = false;
    const char *type = NULL;
    int ch;
    cf_cli_getopt_reset();
    while ((ch = getopt_long(argc, argv, "jt:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = true; break;
        case 't':
            if (!cf_kudu_pb_type_known(optarg))
                return cf_cli_usage(&sub, "--type: unknown message type '%s'", optarg);
            type = optarg;
            break;
        case 'h': return cf_cli_help(&sub);
        default: return cf_cli_bad_option(&sub, argv);
        }
    }
    if (argc - optind != 1)
        return cf_cli_usage(&sub, "expected one FILE");
    return dump(&sub, argv[optind], type, json);
}
