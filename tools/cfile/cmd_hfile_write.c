/* cfile hfile bloom (probe the Bloom filters as HBase's StoreFileReader does)
 * and cfile hfile write (an HFile v3 from JSON lines, through the library's
 * writer; the output appears under its name only once complete: cf_io's
 * temporary file + fsync + rename). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "hfile_cli.h"

/* ---- bloom --------------------------------------------------------------------------- */

int hf_do_bloom(cf_cli *c, const hf_opts *o, int argc, char **argv)
{
    if (argc < 1)
        return cf_cli_usage(c, "missing FILE");
    if (argc < 2)
        return cf_cli_usage(c, "bloom needs ROW[/FAMILY:QUALIFIER]");
    if (argc > 2)
        return cf_cli_usage(c, "unexpected argument '%s'", argv[2]);
    const char *path = argv[0], *spec = argv[1];
    /* ROW[/FAMILY:QUALIFIER]: the column starts after the last '/' followed by a ':'. */
    size_t n = strlen(spec), row_len = n;
    cf_slice fam = {0}, qual = {0};
    bool has_col = false;
    for (size_t i = n; i-- > 0;) {
        if (spec[i] != '/')
            continue;
        const char *colon = strchr(spec + i + 1, ':');
        if (colon) {
            row_len = i;
            fam = (cf_slice){(const uint8_t *)spec + i + 1, (size_t)(colon - spec - i - 1)};
            qual = (cf_slice){(const uint8_t *)colon + 1, strlen(colon + 1)};
            has_col = true;
        }
        break;
    }
    cf_slice row = {(const uint8_t *)spec, row_len};
    cf_error e = {0};
    cf_hfile *h = NULL;
    cf_status st = cf_hfile_open_file(&h, path, NULL, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, path, st, &e);
    cf_hfile_bloom_result r[2];
    for (int b = 0; b < 2 && st == CF_OK; b++)
        st = cf_hfile_bloom_check(h, b, row, has_col, fam, qual, &r[b], &e);
    if (st != CF_OK) {
        cf_hfile_free(h);
        if (st == CF_EINVAL) {
            fprintf(c->err, "cfile hfile: %s\n", e.msg);
            return CF_EXIT_USAGE;
        }
        return cf_cli_lib_fail(c, "bloom", st, &e);
    }
    if (o->json) {
        cf_jw w;
        hf_jw_begin(&w, c->out, o);
        cf_jw_key(&w, "row");
        hf_jw_bytes(&w, row);
        if (has_col) {
            cf_jw_key(&w, "family");
            hf_jw_bytes(&w, fam);
            cf_jw_key(&w, "qualifier");
            hf_jw_bytes(&w, qual);
        }
        for (int b = 0; b < 2; b++) {
            cf_jw_key(&w, b == 0 ? "general" : "delete_family");
            if (!r[b].present) {
                cf_jw_null(&w);
                continue;
            }
            cf_jw_obj_begin(&w);
            cf_jw_kv_cstr(&w, "type", r[b].type);
            cf_jw_kv_bool(&w, "may_contain", r[b].may_contain);
            cf_jw_key(&w, "chunk");
            if (r[b].before_first)
                cf_jw_null(&w);
            else
                cf_jw_uint(&w, r[b].chunk);
            cf_jw_obj_end(&w);
        }
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        for (int b = 0; b < 2; b++) {
            fprintf(c->out, "%s Bloom filter: ", b == 0 ? "General" : "Delete family");
            if (!r[b].present) {
                fputs("not present\n", c->out);
                continue;
            }
            fprintf(c->out, "%s, ", r[b].type);
            hf_print_bytes(c->out, row);
            if (has_col && b == 0 && strcmp(r[b].type, "ROWCOL") == 0) {
                fputc('/', c->out);
                hf_print_bytes(c->out, fam);
                fputc(':', c->out);
                hf_print_bytes(c->out, qual);
            }
            if (r[b].before_first)
                fputs(" is absent (sorts before every chunk)\n", c->out);
            else
                fprintf(c->out, " %s (chunk %" PRIu32 ")\n",
                        r[b].may_contain ? (b == 0 ? "may be present" : "may have a DeleteFamily")
                                         : (b == 0 ? "is absent" : "has no DeleteFamily"),
                        r[b].chunk);
        }
    }
    cf_hfile_free(h);
    /* Only the general filter speaks for the row; the delete-family one answers
     * "does it have a DeleteFamily marker". */
    return r[0].present && !r[0].may_contain ? CF_EXIT_FAIL : CF_EXIT_OK;
}

/* ---- write --------------------------------------------------------------------------- */

/* A JSON byte string: a string, or {"hex": "..."}. Hex bytes go to *hold (malloc'd). */
static bool json_bytes(const cf_json *v, cf_slice *out, uint8_t **hold)
{
    if (v->kind == CF_JSON_STRING) {
        *out = (cf_slice){(const uint8_t *)v->str, v->len};
        return true;
    }
    const cf_json *hx = v->kind == CF_JSON_OBJECT && v->n == 1 ? cf_json_get(v, "hex") : NULL;
    size_t n;
    if (!hx || hx->kind != CF_JSON_STRING || hf_unhex(hx->str, hold, &n) != 0)
        return false;
    *out = (cf_slice){*hold, n};
    return true;
}

static bool json_i64(const cf_json *v, int64_t *out)
{
    if (v->kind != CF_JSON_NUMBER)
        return false;
    errno = 0;
    char *end;
    long long x = strtoll(v->str, &end, 10);
    if (errno || *end || end == v->str)
        return false;
    *out = x;
    return true;
}

static bool parse_type(const cf_json *v, uint8_t *out)
{
    if (v->kind == CF_JSON_NUMBER) {
        int64_t x;
        if (!json_i64(v, &x) || x < 0 || x > 255 || !cf_hfile_type_name((uint8_t)x))
            return false;
        *out = (uint8_t)x;
        return true;
    }
    if (v->kind != CF_JSON_STRING)
        return false;
    static const uint8_t codes[] = {CF_HFILE_PUT,
                                    CF_HFILE_DELETE,
                                    CF_HFILE_DELETE_COLUMN,
                                    CF_HFILE_DELETE_FAMILY,
                                    CF_HFILE_DELETE_FAMILY_VERSION,
                                    CF_HFILE_MINIMUM,
                                    CF_HFILE_MAXIMUM};
    for (size_t i = 0; i < sizeof(codes); i++)
        if (strcmp(v->str, cf_hfile_type_name(codes[i])) == 0) {
            *out = codes[i];
            return true;
        }
    return false;
}

/* One input line into a cell; NULL on success, else what is wrong. Bytes
 * decoded from hex are kept in hold[] until the cell is appended. */
static const char *parse_cell(const cf_json *j, cf_hfile_cell *cell, uint8_t *hold[5], bool tags_ok,
                              bool mvcc_ok)
{
    if (j->kind != CF_JSON_OBJECT)
        return "not a JSON object";
    memset(cell, 0, sizeof(*cell));
    cell->type = CF_HFILE_PUT;
    bool have_row = false, have_ts = false;
    for (size_t i = 0; i < j->n; i++) {
        const char *k = j->members[i].key;
        const cf_json *v = &j->members[i].value;
        if (strcmp(k, "row") == 0) {
            if (!json_bytes(v, &cell->row, &hold[0]))
                return "\"row\" is not a byte string";
            have_row = true;
        } else if (strcmp(k, "family") == 0) {
            if (!json_bytes(v, &cell->family, &hold[1]))
                return "\"family\" is not a byte string";
        } else if (strcmp(k, "qualifier") == 0) {
            if (!json_bytes(v, &cell->qualifier, &hold[2]))
                return "\"qualifier\" is not a byte string";
        } else if (strcmp(k, "value") == 0) {
            if (!json_bytes(v, &cell->value, &hold[3]))
                return "\"value\" is not a byte string";
        } else if (strcmp(k, "timestamp") == 0) {
            if (!json_i64(v, &cell->timestamp))
                return "\"timestamp\" is not a 64-bit integer";
            have_ts = true;
        } else if (strcmp(k, "type") == 0) {
            if (!parse_type(v, &cell->type))
                return "\"type\" is not Put, Delete, DeleteColumn, DeleteFamily, "
                       "DeleteFamilyVersion, Minimum, Maximum or their code";
        } else if (strcmp(k, "mvcc") == 0) {
            int64_t m;
            if (!json_i64(v, &m) || m < 0)
                return "\"mvcc\" is not a non-negative integer";
            if (!mvcc_ok && m != 0)
                return "\"mvcc\" is not 0 but --no-mvcc was given";
            cell->mvcc = (uint64_t)m;
        } else if (strcmp(k, "tags") == 0) {
            /* As dump prints them: hex text (or {"hex": ...}). */
            size_t n = 0;
            if (v->kind == CF_JSON_STRING) {
                if (hf_unhex(v->str, &hold[4], &n) != 0)
                    return "\"tags\" is not hex";
                cell->tags = (cf_slice){hold[4], n};
            } else if (!json_bytes(v, &cell->tags, &hold[4])) {
                return "\"tags\" is not hex";
            }
            if (cell->tags.len && !tags_ok)
                return "\"tags\" given without --tags";
        } else if (strcmp(k, "tag_list") == 0 || strcmp(k, "value_len") == 0) {
            continue; /* what dump adds for readers; the bytes above are authoritative */
        } else {
            return "unknown member (row, family, qualifier, timestamp, type, value, tags, mvcc)";
        }
    }
    if (!have_row)
        return "no \"row\"";
    if (!have_ts)
        return "no \"timestamp\"";
    return NULL;
}

int hf_do_write(cf_cli *c, const hf_opts *o, int argc, char **argv)
{
    if (argc < 1)
        return cf_cli_usage(c, "missing OUT");
    if (argc > 2)
        return cf_cli_usage(c, "unexpected argument '%s'", argv[2]);
    const char *path = argv[0];
    const char *input = argc > 1 ? argv[1] : "-";
    cf_hfile_writer_options wo;
    cf_hfile_writer_options_init(&wo);
    if (o->block_size)
        wo.block_size = o->block_size;
    if (o->compression) {
        uint32_t codec;
        if (cf_hfile_codec_parse(&codec, o->compression) != CF_OK)
            return cf_cli_usage(c,
                                "--compression: unknown codec '%s' (NONE, GZ, SNAPPY, LZ4, "
                                "ZSTD, LZO, BZIP2)",
                                o->compression);
        wo.compression = codec;
    }
    if (o->encoding) {
        static const struct {
            const char *name;
            int id;
        } encs[] = {{"NONE", CF_HFILE_DBE_NONE},
                    {"PREFIX", CF_HFILE_DBE_PREFIX},
                    {"DIFF", CF_HFILE_DBE_DIFF},
                    {"FAST_DIFF", CF_HFILE_DBE_FAST_DIFF},
                    {"ROW_INDEX_V1", CF_HFILE_DBE_ROW_INDEX_V1}};
        int id = -1;
        for (size_t i = 0; i < sizeof(encs) / sizeof(encs[0]); i++)
            if (strcasecmp(o->encoding, encs[i].name) == 0)
                id = encs[i].id;
        if (id < 0 && strcasecmp(o->encoding, "PREFIX_TREE") == 0) {
            /* HBase 1.x's PREFIX_TREE: read nowhere here, written by nothing since HBase 2. */
            fprintf(c->err, "cfile: --encoding PREFIX_TREE: not supported (HBase 2 dropped it)\n");
            return CF_EXIT_NOTSUP;
        }
        if (id < 0)
            return cf_cli_usage(c,
                                "--encoding: unknown data block encoding '%s' (NONE, PREFIX, "
                                "DIFF, FAST_DIFF, ROW_INDEX_V1)",
                                o->encoding);
        wo.encoding = id;
    }
    if (o->checksum) {
        static const char *const names[] = {"NULL", "CRC32", "CRC32C"};
        int t = -1;
        for (int i = 0; i < 3; i++)
            if (strcasecmp(o->checksum, names[i]) == 0)
                t = i;
        if (t < 0)
            return cf_cli_usage(c, "--checksum: unknown checksum type '%s' (NULL, CRC32, CRC32C)",
                                o->checksum);
        wo.checksum_type = (uint8_t)t;
    }
    wo.row_bloom = !o->no_bloom;
    wo.include_mvcc = !o->no_mvcc;
    wo.include_tags = o->tags;
    FILE *in = cf_cli_fopen_input(input);
    if (!in)
        return cf_cli_fail(c, "%s: %s", input, strerror(errno));
    cf_error e = {0};
    cf_io *io = NULL;
    cf_hfile_writer *w = NULL;
    cf_status st = cf_io_create_file(&io, path, &e);
    if (st == CF_OK)
        st = cf_hfile_writer_create(&w, io, &wo, &e);
    if (st != CF_OK) {
        cf_io_free(io);
        cf_cli_fclose_input(in);
        return cf_cli_lib_fail(c, path, st, &e);
    }
    char *line = NULL;
    size_t cap = 0;
    uint64_t lineno = 0, cells = 0;
    int rc = CF_EXIT_OK;
    ssize_t got;
    while (rc == CF_EXIT_OK && (got = getline(&line, &cap, in)) >= 0) {
        lineno++;
        size_t len = (size_t)got;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        bool blank = true;
        for (size_t i = 0; i < len && blank; i++)
            blank = line[i] == ' ' || line[i] == '\t';
        if (blank)
            continue;
        cf_json_doc doc;
        char msg[256];
        if (cf_json_parse(&doc, line, len, msg, sizeof(msg)) != 0) {
            rc = cf_cli_fail(c, "%s line %" PRIu64 ": %s", input, lineno, msg);
            cf_json_doc_dispose(&doc);
            break;
        }
        cf_hfile_cell cell;
        uint8_t *hold[5] = {NULL, NULL, NULL, NULL, NULL};
        const char *bad = parse_cell(&doc.root, &cell, hold, wo.include_tags, wo.include_mvcc);
        if (bad) {
            rc = cf_cli_fail(c, "%s line %" PRIu64 ": %s", input, lineno, bad);
        } else {
            st = cf_hfile_writer_append(w, &cell, &e);
            if (st == CF_EINVAL)
                rc = cf_cli_fail(c, "%s line %" PRIu64 ": %s", input, lineno, e.msg);
            else if (st != CF_OK)
                rc = cf_cli_lib_fail(c, path, st, &e);
            cells++;
        }
        for (int i = 0; i < 5; i++)
            free(hold[i]);
        cf_json_doc_dispose(&doc);
    }
    free(line);
    if (rc == CF_EXIT_OK && ferror(in))
        rc = cf_cli_fail(c, "reading %s: %s", input, strerror(errno));
    cf_cli_fclose_input(in);
    if (rc == CF_EXIT_OK) {
        st = cf_hfile_writer_finish(w, &e);
        if (st == CF_OK)
            st = io->ops->commit(io, &e);
        if (st != CF_OK)
            rc = cf_cli_lib_fail(c, path, st, &e);
    }
    /* Without a commit, freeing the io removes the temporary file: OUT is untouched. */
    cf_hfile_writer_free(w);
    cf_io_free(io);
    if (rc == CF_EXIT_OK && !o->json)
        fprintf(c->err, "cfile: wrote %" PRIu64 " cells to %s\n", cells, path);
    if (rc == CF_EXIT_OK && o->json) {
        cf_jw jw;
        hf_jw_begin(&jw, c->out, o);
        cf_jw_kv_cstr(&jw, "file", path);
        cf_jw_kv_uint(&jw, "cells", cells);
        struct stat sb;
        cf_jw_kv_uint(&jw, "bytes", stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0);
        cf_jw_obj_end(&jw);
        cf_jw_newline(&jw);
    }
    return rc;
}
