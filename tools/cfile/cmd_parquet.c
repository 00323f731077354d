/* cfile parquet: inspect Apache Parquet files, in the spirit of parquet-cli's
 * `meta` and `schema` and DuckDB's parquet_metadata()/parquet_schema().
 * JSON schema elements follow shared/parquet/README.md (the `schema` array of
 * `parquet dump --json`): raw footer values, enums by their parquet.thrift
 * names, null for absent optional fields. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/parquet.h>

#include "cli.h"
#include "pq_meta_out.h"
#include "pq_values.h"
#include "svg.h"
#include "table_args.h"

const char cf_cmd_parquet_usage[] =
    "usage: cfile parquet meta [--json] [--svg OUT.svg] FILE\n"
    "       cfile parquet schema [--json] FILE\n"
    "       cfile parquet pages [--json] FILE\n"
    "       cfile parquet dump [--json] [--rows A..B] [--columns F,...] [--limit N]\n"
    "                          [--threads N] FILE\n"
    "       cfile parquet head [-n N] [--columns F,...] [--threads N] FILE\n"
    "       cfile parquet verify [--json] FILE\n"
    "       cfile parquet bloom [--json] [--hex] --column C FILE [--] VALUE...\n"
    "       cfile parquet write --schema SCHEMA [options] OUT < ROWS\n"
    "\n"
    "Read an Apache Parquet file (or write one: `write`).\n"
    "  meta    file and row-group metadata: writer, rows, key/value metadata, and per\n"
    "          column chunk its type, codec, encodings, sizes, page offsets,\n"
    "          statistics, page index and bloom filter locations\n"
    "  schema  the schema tree in Parquet's message syntax, with each column's path\n"
    "          and maximum definition and repetition levels; JSON: {\"num_rows\",\n"
    "          \"schema\": [every SchemaElement, root first], \"columns\": [...]}\n"
    "  pages   every page header of every column chunk (type, sizes, values, encodings,\n"
    "          CRC), checking each page against its chunk and each stored CRC-32;\n"
    "          exit 1 naming the first damaged page\n"
    "  dump    every row, nested values assembled from the repetition and definition\n"
    "          levels: one JSON object per line keyed by field name; with --json one\n"
    "          document {\"num_rows\", \"schema\", \"rows\": [[field values], ...]} in the\n"
    "          value forms of shared/parquet/README.md; a STRING/ENUM/JSON value that\n"
    "          is not UTF-8 is {\"hex\":\"...\"}. Rows are read a batch at a\n"
    "          time; damage found part-way exits 1 naming the row group and column\n"
    "  head    the first N rows (default 10) as dump prints them\n"
    "  verify  check everything checkable without an expected answer: every page\n"
    "          header, CRC and value decoded, row counts, statistics in the column's\n"
    "          sort order, page index and bloom filters against the pages; exit 1\n"
    "          naming every problem (`cfile parquet verify --help`)\n"
    "  bloom   probe a column's bloom filters for values: 'maybe present' or\n"
    "          'absent' per row group (`cfile parquet bloom --help`)\n"
    "  write   a Parquet file from JSON lines or CSV (`cfile parquet write --help`)\n"
    "\n"
    "A damaged footer is refused naming what and where (exit 1); an encrypted\n"
    "file is not supported (exit 3).\n"
    "\n"
    "  --json      one compact JSON document (a line) per command\n"
    "  --rows A..B rows A (inclusive) to B (exclusive), counted from 0; either side\n"
    "              may be left out. Only the pages holding them are read when the\n"
    "              file has an offset index\n"
    "  --columns F,... only these top-level fields, in this order (`a,b` in backquotes\n"
    "                  for a name holding a comma, `` for a backquote inside)\n"
    "  --svg OUT   meta: also draw the file's layout as an SVG picture into OUT\n"
    "              (created atomically): row groups, column chunks (coloured by\n"
    "              column) and every page by offset, dictionary pages, the page\n"
    "              index, bloom filters and the footer, the bytes each codec saved,\n"
    "              and a row group x column grid of chunk sizes; hover a shape for\n"
    "              its offsets, sizes and encodings. Pages that cannot be read are\n"
    "              left out of the picture and exit 1. OUT '-' writes the picture\n"
    "              to standard output and the report to standard error\n"
    "  -n N, --limit N  dump and head: at most N rows (from --rows' start), as\n"
    "              `cfile dump --limit`; head's default is 10\n"
    "  --threads N dump and head: threads that decode the columns (the caller and\n"
    "              N-1 workers); default 0, one per CPU; the output is the same for\n"
    "              every N\n"
    "  --help      this text\n";

static int pages_cmd(cf_cli *c, const char *path, const cf_parquet *pq, bool json)
{
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    char *mem = NULL;
    size_t mem_len = 0;
    FILE *f = json ? open_memstream(&mem, &mem_len) : c->out;
    if (!f)
        return cf_cli_fail(c, "out of memory");
    cf_jw w;
    cf_jw_init(&w, f);
    cf_error err = {0};
    cf_status st = CF_OK;
    uint64_t pages = 0;
    if (json) {
        cf_jw_obj_begin(&w);
        cf_jw_kv_arr_begin(&w, "row_groups");
    }
    for (uint32_t g = 0; g < m->row_group_count && st == CF_OK; g++) {
        if (json) {
            cf_jw_obj_begin(&w);
            cf_jw_kv_arr_begin(&w, "columns");
        } else {
            fprintf(f, "row group %" PRIu32 "\n", g);
        }
        for (uint32_t col = 0; col < cf_parquet_column_count(pq) && st == CF_OK; col++) {
            const cf_parquet_column *cd = cf_parquet_column_at(pq, col);
            if (json) {
                cf_jw_obj_begin(&w);
                cf_jw_key(&w, "path");
                cf_pq_path_json(&w, cd->path, cd->path_len);
                cf_jw_kv_arr_begin(&w, "pages");
            } else {
                fprintf(f, "  ");
                for (uint32_t k = 0; k < cd->path_len; k++)
                    fprintf(f, "%s%.*s", k ? "." : "", (int)cd->path[k].len,
                            (const char *)cd->path[k].data);
                fprintf(f, "\n");
            }
            cf_parquet_pages *it = NULL;
            st = cf_parquet_pages_open(&it, pq, g, col, NULL, &err);
            bool has = false;
            while (st == CF_OK) {
                cf_parquet_page p;
                st = cf_parquet_pages_next(it, &p, &has, &err);
                if (st != CF_OK || !has)
                    break;
                pages++;
                if (json)
                    cf_pq_page_json(&w, &p);
                else
                    cf_pq_page_text(f, &p);
            }
            cf_parquet_pages_free(it);
            if (json) {
                cf_jw_arr_end(&w);
                cf_jw_obj_end(&w);
            }
        }
        if (json) {
            cf_jw_arr_end(&w);
            cf_jw_obj_end(&w);
        }
    }
    if (json) {
        cf_jw_arr_end(&w);
        cf_jw_kv_uint(&w, "num_pages", pages);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
        fclose(f);
        if (st == CF_OK)
            fwrite(mem, 1, mem_len, c->out);
        free(mem);
    }
    if (st != CF_OK)
        return cf_cli_lib_fail(c, path, st, &err);
    return CF_EXIT_OK;
}

/* ---- dump --------------------------------------------------------------------------------- */

/* Rows stream out a batch at a time (memory follows the batch); damage found
 * part-way ends the output early and exits 1 naming where. */
static int dump_cmd(cf_cli *c, const char *path, const cf_parquet *pq, bool json,
                    const cf_parquet_records_options *ro)
{
    cf_error err = {0};
    cf_parquet_records *rec = NULL;
    cf_status st = cf_parquet_records_open(&rec, pq, ro, &err);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, path, st, &err);
    FILE *f = c->out;
    if (json) {
        fprintf(f, "{\"num_rows\":%" PRId64 ",\"schema\":", cf_parquet_num_rows(pq));
        const cf_parquet_file_meta *m = cf_parquet_meta(pq);
        cf_jw w;
        cf_jw_init(&w, f);
        cf_jw_arr_begin(&w);
        for (uint32_t i = 0; i < m->schema_count; i++)
            cf_pq_schema_element_json(&w, &m->schema[i]);
        cf_jw_arr_end(&w);
        fputs(",\"rows\":[", f);
    }
    bool first = true;
    for (;;) {
        const cf_parquet_array *b;
        st = cf_parquet_records_next(rec, &b, &err);
        if (st != CF_OK || !b)
            break;
        for (size_t i = 0; i < b->length; i++) {
            if (json) {
                fputs(first ? "[" : ",[", f);
                for (uint32_t k = 0; k < b->child_count; k++) {
                    if (k)
                        fputs(",", f);
                    cf_pq_put_value(f, b->children[k], i);
                }
                putc(']', f);
            } else {
                cf_pq_put_value(f, b, i);
                putc('\n', f);
            }
            first = false;
        }
    }
    cf_parquet_records_free(rec);
    if (json)
        fputs("]}\n", f);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, path, st, &err);
    return CF_EXIT_OK;
}

/* "A..B", "A..", "..B" into [begin, end). */
static bool parse_rows(const char *s, int64_t *begin, int64_t *end)
{
    const char *dots = strstr(s, "..");
    if (!dots)
        return false;
    char a[32], b[32];
    size_t la = (size_t)(dots - s), lb = strlen(dots + 2);
    if (la >= sizeof a || lb >= sizeof b)
        return false;
    memcpy(a, s, la);
    a[la] = 0;
    memcpy(b, dots + 2, lb + 1);
    uint64_t v;
    *begin = 0;
    *end = INT64_MAX;
    if (la) {
        if (cf_cli_parse_u64(a, &v) != 0 || v > INT64_MAX)
            return false;
        *begin = (int64_t)v;
    }
    if (lb) {
        if (cf_cli_parse_u64(b, &v) != 0 || v > INT64_MAX)
            return false;
        *end = (int64_t)v;
    }
    return *begin <= *end;
}

/* Top-level field names (comma-separated; one holding a comma or starting with a
 * backquote in backquotes, as the schema syntax quotes names: table_args.h
 * cf_cli_next_name) to their indexes; -1 naming the unknown one. */
static int parse_columns(cf_cli *c, const cf_parquet *pq, const char *list, uint32_t *idx,
                         uint32_t cap, uint32_t *n)
{
    const cf_parquet_node *root = cf_parquet_schema_root(pq);
    *n = 0;
    char *copy = strdup(list), *rest = copy, msg[300] = "";
    if (copy == NULL)
        return cf_cli_fail(c, "out of memory");
    int rc = CF_EXIT_OK;
    for (char *p; rc == CF_EXIT_OK && (p = cf_cli_next_name(&rest, false, msg, sizeof msg));) {
        size_t len = strlen(p);
        uint32_t k = 0;
        for (; k < root->child_count; k++) {
            cf_slice nm = root->children[k]->element->name;
            if (nm.len == len && memcmp(nm.data, p, len) == 0)
                break;
        }
        if (k == root->child_count)
            rc = cf_cli_usage(c, "no top-level field '%s'", p);
        else if (*n == cap)
            rc = cf_cli_usage(c, "too many --columns");
        else
            idx[(*n)++] = k;
    }
    free(copy);
    if (rc != CF_EXIT_OK)
        return rc;
    if (msg[0] != '\0')
        return cf_cli_usage(c, "--columns: %s", msg);
    if (*n == 0)
        return cf_cli_usage(c, "--columns needs at least one field");
    return CF_EXIT_OK;
}

int cf_cmd_parquet(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"rows", required_argument, NULL, 'r'},  {"columns", required_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'j'},        {"svg", required_argument, NULL, 's'},
        {"limit", required_argument, NULL, 'n'}, {"threads", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
    };
    /* `parquet write` has options of its own: dispatched before getopt sees them. */
    if (argc >= 2 && strcmp(argv[1], "write") == 0) {
#if CF_HAVE_TABLES
        return cf_cmd_parquet_write(c, argc - 1, argv + 1);
#else
        /* Its schema syntax and row loader are the tables' (cmd_table_import.c). */
        return cf_cli_not_built(c, "write", "CF_WITH_TABLES");
#endif
    }
    if (argc >= 2 && strcmp(argv[1], "bloom") == 0)
        return cf_cmd_parquet_bloom(c, argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "verify") == 0)
        return cf_cmd_parquet_verify(c, argc - 1, argv + 1);
    bool json = false;
    const char *rows_arg = NULL, *cols_arg = NULL, *svg = NULL;
    uint64_t head_n = 10, threads = CF_PARQUET_THREADS_AUTO;
    bool has_n = false, has_threads = false;
    int ch;
    while ((ch = getopt_long(argc, argv, "jhn:", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = true; break;
        case 'r': rows_arg = optarg; break;
        case 'c': cols_arg = optarg; break;
        case 's': svg = optarg; break;
        case 'n':
            if (cf_cli_parse_u64(optarg, &head_n) != 0 || head_n > INT64_MAX)
                return cf_cli_usage(c, "-n: '%s' is not a row count", optarg);
            has_n = true;
            break;
        case 't':
            if (cf_cli_parse_u64(optarg, &threads) != 0 || threads > CF_PARQUET_MAX_THREADS)
                return cf_cli_usage(c, "--threads: '%s' is not 0..%u", optarg,
                                    CF_PARQUET_MAX_THREADS);
            has_threads = true;
            break;
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (optind >= argc)
        return cf_cli_usage(
            c, "missing subcommand (meta, schema, pages, dump, head, verify, bloom, write)");
    const char *sub = argv[optind++];
    bool is_meta = strcmp(sub, "meta") == 0, is_pages = strcmp(sub, "pages") == 0;
    bool is_head = strcmp(sub, "head") == 0;
    bool is_dump = strcmp(sub, "dump") == 0 || is_head;
    if (!is_meta && !is_pages && !is_dump && strcmp(sub, "schema"))
        return cf_cli_usage(c, "unknown subcommand '%s'", sub);
    if (optind >= argc)
        return cf_cli_usage(c, "missing FILE");
    if (argc - optind != 1)
        return cf_cli_usage(c, "expected one FILE");
    const char *path = argv[optind];
    if (svg != NULL && !is_meta)
        return cf_cli_usage(c, "--svg is for meta");
    cf_error err = {0};
    cf_parquet *pq = NULL;
    cf_status st = cf_parquet_open_file(&pq, path, NULL, &err);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, path, st, &err);
    if (is_dump) {
        cf_parquet_records_options ro;
        cf_parquet_records_options_init(&ro);
        ro.threads = (size_t)threads;
        uint32_t idx[256];
        int rc = CF_EXIT_OK;
        if (rows_arg && !parse_rows(rows_arg, &ro.row_begin, &ro.row_end))
            rc = cf_cli_usage(c, "--rows: '%s' is not A..B", rows_arg);
        if (rc == CF_EXIT_OK && cols_arg) {
            rc = parse_columns(c, pq, cols_arg, idx, 256, &ro.field_count);
            ro.fields = idx;
        }
        if (rc == CF_EXIT_OK && (is_head || has_n)) {
            if (ro.row_end - ro.row_begin > (int64_t)head_n)
                ro.row_end = ro.row_begin + (int64_t)head_n;
            if (is_head)
                json = false;
        }
        if (rc == CF_EXIT_OK)
            rc = dump_cmd(c, path, pq, json, &ro);
        cf_parquet_free(pq);
        return rc;
    }
    if (rows_arg || cols_arg || has_n || has_threads) {
        cf_parquet_free(pq);
        return cf_cli_usage(c, "--rows, --columns, --limit and --threads are for dump and head");
    }
    if (is_pages) {
        int rc = pages_cmd(c, path, pq, json);
        cf_parquet_free(pq);
        return rc;
    }
    /* With the picture on stdout (--svg -), the report goes to stderr. */
    FILE *rep = svg != NULL && strcmp(svg, "-") == 0 ? c->err : c->out;
    if (is_meta && json)
        cf_pq_meta_json(rep, pq);
    else if (is_meta)
        cf_pq_meta_text(rep, path, pq);
    else if (json)
        cf_pq_schema_json(c->out, pq);
    else
        cf_pq_schema_text(c->out, pq);
    int rc = svg != NULL ? cf_cli_svg_parquet_cmd(c, path, pq, svg) : CF_EXIT_OK;
    cf_parquet_free(pq);
    return rc;
}
