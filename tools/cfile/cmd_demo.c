/* cfile demo: write a small table (one CFile per column, as a Kudu DiskRowSet
 * stores them), read it back, and show what landed on disk. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "values.h"

const char cf_cmd_demo_usage[] =
    "usage: cfile demo [--dir DIR] [--rows N] [--json]\n"
    "\n"
    "Write a sample table of typed columns to DIR/<column>.cfile (default ./demo):\n"
    "  id      INT64, sorted, with a value index\n"
    "  name    STRING, dictionary encoded\n"
    "  score   DOUBLE, bitshuffled\n"
    "  active  BOOL, run-length encoded\n"
    "  ts      UNIXTIME_MICROS, LZ4 compressed\n"
    "  qty     INT32, nullable\n"
    "then read every column back and print rows, encoding, bytes on disk and the\n"
    "first values, and look a key up through the value index. An encoding this build\n"
    "cannot write yet falls back to PLAIN (and says so).\n"
    "\n"
    "  --dir DIR   output directory (created if missing)\n"
    "  --rows N    rows per column (default 10000)\n"
    "  --json      one JSON document instead of text: {\"dir\", \"rows\", \"columns\":\n"
    "              [{\"name\", \"file\", \"type\", \"encoding\", \"compression\",\n"
    "              \"rows\", \"bytes\", \"first_values\", \"fallback\" (why PLAIN was used,\n"
    "              or null), and for id \"value_index_lookup\": {\"key\", \"value\",\n"
    "              \"row\", \"exact\"}}]}\n"
    "  --help      this text\n";

typedef struct demo_col {
    const char *name;
    cf_type type;
    cf_encoding enc;
    cf_compression comp;
    bool nullable;
    bool validx;
} demo_col;

static const demo_col cols[] = {
    {"id", CF_TYPE_INT64, CF_ENC_AUTO, CF_COMP_NONE, false, true},
    {"name", CF_TYPE_STRING, CF_ENC_DICT, CF_COMP_NONE, false, false},
    {"score", CF_TYPE_DOUBLE, CF_ENC_BIT_SHUFFLE, CF_COMP_NONE, false, false},
    {"active", CF_TYPE_BOOL, CF_ENC_RLE, CF_COMP_NONE, false, false},
    {"ts", CF_TYPE_UNIXTIME_MICROS, CF_ENC_AUTO, CF_COMP_LZ4, false, false},
    {"qty", CF_TYPE_INT32, CF_ENC_AUTO, CF_COMP_NONE, true, false},
};

static const char *const names[] = {"alice", "bob", "carol", "dave", "erin", "frank", "grace"};

/* Deterministic data: the demo prints the same thing every run. */
static void fill(const demo_col *dc, size_t rows, void *values, uint8_t *nonnull)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    memset(nonnull, 0xff, (rows + 7) / 8);
    for (size_t i = 0; i < rows; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        switch (dc->type) {
        case CF_TYPE_INT64: ((int64_t *)values)[i] = (int64_t)(i * 7); break;
        case CF_TYPE_STRING: {
            const char *n = names[x % (sizeof(names) / sizeof(names[0]))];
            ((cf_slice *)values)[i] = (cf_slice){(const uint8_t *)n, strlen(n)};
            break;
        }
        case CF_TYPE_DOUBLE: ((double *)values)[i] = (double)(x % 100000) / 100.0; break;
        case CF_TYPE_BOOL: ((uint8_t *)values)[i] = (i / 50) % 2 == 0; break;
        case CF_TYPE_UNIXTIME_MICROS:
            ((int64_t *)values)[i] = 1700000000000000ll + (int64_t)i * 1000000;
            break;
        default:
            ((int32_t *)values)[i] = (int32_t)(x % 1000);
            if (x % 5 == 0)
                nonnull[i >> 3] &= (uint8_t) ~(1u << (i & 7));
            break;
        }
    }
}

static cf_status write_col(const char *path, const demo_col *dc, cf_encoding enc, size_t rows,
                           const void *values, const uint8_t *nonnull, cf_error *err)
{
    cf_writer_options o;
    cf_writer_options_init(&o, dc->type);
    o.encoding = enc;
    o.compression = dc->comp;
    o.nullable = dc->nullable;
    o.write_validx = dc->validx;
    o.write_posidx = true;
    cf_writer *w = NULL;
    cf_status st = cf_writer_create_file(&w, path, &o, err);
    if (st == CF_OK)
        st = cf_writer_add_metadata(w, "column", dc->name, strlen(dc->name), err);
    size_t width = cf_type_size(dc->type);
    /* 100 rows per call, as Kudu's flush path appends. */
    for (size_t i = 0; st == CF_OK && i < rows; i += 100) {
        size_t n = rows - i < 100 ? rows - i : 100;
        uint8_t bm[13] = {0}; /* the call's rows from bit 0: 100 is not a multiple of 8 */
        for (size_t k = 0; k < n; k++)
            if ((nonnull[(i + k) >> 3] >> ((i + k) & 7)) & 1)
                bm[k >> 3] |= (uint8_t)(1u << (k & 7));
        st = cf_writer_append(w, (const uint8_t *)values + i * width, dc->nullable ? bm : NULL, n,
                              err);
    }
    if (st == CF_OK)
        st = cf_writer_finish(w, err);
    cf_writer_free(w);
    return st;
}

static cf_status show_col(cf_cli *c, cf_jw *jw, const char *path, const demo_col *dc,
                          const char *note, cf_error *err)
{
    cf_reader *r = NULL;
    cf_iter *it = NULL;
    cf_status st = cf_cli_open(&r, path, err);
    if (st != CF_OK)
        return st;
    const cf_file_info *in = cf_reader_info(r);
    if (jw != NULL) {
        cf_jw_obj_begin(jw);
        cf_jw_kv_cstr(jw, "name", dc->name);
        cf_jw_kv_cstr(jw, "file", path);
        cf_jw_kv_cstr(jw, "type", cf_cli_type_name(in->type));
        cf_jw_kv_cstr(jw, "encoding", cf_cli_encoding_name(in->encoding));
        cf_jw_kv_cstr(jw, "compression", cf_cli_compression_name(in->compression));
        cf_jw_kv_uint(jw, "rows", in->num_values);
        cf_jw_kv_uint(jw, "bytes", in->file_size);
        cf_jw_kv_opt_cstr(jw, "fallback", note[0] != '\0' ? note : NULL);
        cf_jw_key(jw, "first_values");
    } else {
        fprintf(c->out, "%-7s %-16s %-15s %-15s %7" PRIu64 " %9" PRIu64 "  ", dc->name,
                cf_cli_type_name(in->type), cf_cli_encoding_name(in->encoding),
                cf_cli_compression_name(in->compression), in->num_values, in->file_size);
    }
    st = cf_iter_create(&it, r, err);
    cf_batch b = {0};
    if (st == CF_OK)
        st = cf_iter_next_batch(it, 4, &b, err);
    if (st == CF_OK) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw *vw = jw != NULL ? jw : &w;
        cf_jw_arr_begin(vw);
        for (size_t i = 0; i < b.count; i++)
            cf_cli_row_write(vw, in->type, in->is_array, &b, i);
        cf_jw_arr_end(vw);
    } else if (jw != NULL) {
        cf_jw_null(jw);
    }
    if (jw == NULL)
        fprintf(c->out, "%s%s\n", note[0] != '\0' ? "  " : "", note);
    if (st == CF_OK && in->has_validx && dc->type == CF_TYPE_INT64 && in->num_values > 0) {
        int64_t key = (int64_t)(in->num_values / 2) * 7 + 3; /* between two ids */
        bool exact = false;
        st = cf_iter_seek_at_or_after(it, &key, &exact, err);
        if (st == CF_OK) {
            uint64_t ord = cf_iter_current_ordinal(it);
            st = cf_iter_next_batch(it, 1, &b, err);
            if (st == CF_OK && b.count == 1 && jw != NULL) {
                cf_jw_kv_obj_begin(jw, "value_index_lookup");
                cf_jw_kv_int(jw, "key", key);
                cf_jw_kv_int(jw, "value", ((const int64_t *)b.values)[0]);
                cf_jw_kv_uint(jw, "row", ord);
                cf_jw_kv_bool(jw, "exact", exact);
                cf_jw_obj_end(jw);
            } else if (st == CF_OK && b.count == 1) {
                fprintf(c->out,
                        "        value index: first id >= %" PRId64 " is %" PRId64
                        " at row %" PRIu64 " (%s)\n",
                        key, ((const int64_t *)b.values)[0], ord, exact ? "exact" : "not exact");
            }
        }
    }
    if (jw != NULL)
        cf_jw_obj_end(jw);
    cf_iter_free(it);
    cf_reader_free(r);
    return st;
}

int cf_cmd_demo(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"dir", required_argument, NULL, 'd'},
        {"rows", required_argument, NULL, 'n'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *dir = "demo";
    uint64_t rows = 10000;
    bool json = false;
    int ch;
    while ((ch = getopt_long(argc, argv, "d:n:jh", opts, NULL)) != -1) {
        switch (ch) {
        case 'd': dir = optarg; break;
        case 'j': json = true; break;
        case 'n':
            if (cf_cli_parse_u64(optarg, &rows) != 0 || rows > 100000000)
                return cf_cli_usage(c, "--rows: expected 0..100000000, got %s", optarg);
            break;
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (optind != argc)
        return cf_cli_usage(c, "unexpected argument '%s'", argv[optind]);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return cf_cli_fail(c, "%s: %s", dir, strerror(errno));

    void *values = malloc((size_t)(rows ? rows : 1) * 16);
    uint8_t *nonnull = malloc((size_t)(rows + 7) / 8 + 1);
    char *path = malloc(strlen(dir) + 64);
    if (values == NULL || nonnull == NULL || path == NULL) {
        free(values);
        free(nonnull);
        free(path);
        return cf_cli_fail(c, "out of memory");
    }
    int rc = CF_EXIT_OK;
    /* JSON: built in memory and printed only when complete, so a failure leaves no
     * half a document on stdout. */
    char *mem = NULL;
    size_t mem_len = 0;
    FILE *jf = NULL;
    cf_jw jwv, *jw = NULL;
    cf_cli sub = *c;
    if (json) {
        jf = open_memstream(&mem, &mem_len);
        if (jf == NULL) {
            free(values);
            free(nonnull);
            free(path);
            return cf_cli_fail(c, "out of memory");
        }
        sub.out = jf;
        cf_jw_init(&jwv, jf);
        jw = &jwv;
        cf_jw_obj_begin(jw);
        cf_jw_kv_cstr(jw, "dir", dir);
        cf_jw_kv_uint(jw, "rows", rows);
        cf_jw_kv_arr_begin(jw, "columns");
    } else {
        fprintf(c->out, "writing %" PRIu64 " rows to %s/\n\n", rows, dir);
        fprintf(c->out, "%-7s %-16s %-15s %-15s %7s %9s  %s\n", "column", "type", "encoding",
                "compression", "rows", "bytes", "first values");
    }
    for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
        const demo_col *dc = &cols[k];
        cf_error err = {0};
        char note[320] = "";
        sprintf(path, "%s/%s.cfile", dir, dc->name);
        fill(dc, (size_t)rows, values, nonnull);
        cf_status st = write_col(path, dc, dc->enc, (size_t)rows, values, nonnull, &err);
        if (st == CF_ENOTSUP && dc->enc != CF_ENC_PLAIN) {
            snprintf(note, sizeof(note), json ? "%s" : "(fell back to PLAIN: %s)", err.msg);
            memset(&err, 0, sizeof(err));
            st = write_col(path, dc, CF_ENC_PLAIN, (size_t)rows, values, nonnull, &err);
        }
        if (st == CF_OK)
            st = show_col(&sub, jw, path, dc, note, &err);
        if (st != CF_OK) {
            int frc = cf_cli_lib_fail(c, path, st, &err);
            if (rc == CF_EXIT_OK || frc == CF_EXIT_FAIL)
                rc = frc;
        }
    }
    if (json) {
        cf_jw_arr_end(jw);
        cf_jw_obj_end(jw);
        cf_jw_newline(jw);
        fclose(jf);
        if (rc == CF_EXIT_OK && mem != NULL)
            fwrite(mem, 1, mem_len, c->out);
        free(mem);
    } else if (rc == CF_EXIT_OK)
        fprintf(c->out,
                "\ntry: cfile info %s/id.cfile; cfile dump %s/name.cfile --count 5; "
                "cfile seek %s/id.cfile --value 700; cfile verify %s/*.cfile\n",
                dir, dir, dir, dir);
    free(values);
    free(nonnull);
    free(path);
    return rc;
}
