/* `cfile` entry point: global flags, the subcommand table, shared helpers. */
#include "cli.h"
#include "out.h"

#include <cfile/bloom.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct command {
    const char *name;
    cf_cli_fn fn;
    const char *summary;
    const char *usage;
} command;

static const command commands[] = {
    {"info", cf_cmd_info, "show a file's header and footer", cf_cmd_info_usage},
    {"dump", cf_cmd_dump, "print the values of a file", cf_cmd_dump_usage},
    {"head", cf_cmd_head, "print the first rows of a file or a table", cf_cmd_head_usage},
    {"seek", cf_cmd_seek, "seek by ordinal or by value and read from there", cf_cmd_seek_usage},
    {"verify", cf_cmd_verify, "check every checksum and decode every row", cf_cmd_verify_usage},
    {"write", cf_cmd_write, "write a CFile from JSON lines, CSV or a golden spec.json",
     cf_cmd_write_usage},
    {"demo", cf_cmd_demo, "write a small sample table, read it back, summarize", cf_cmd_demo_usage},
    {"bloom", cf_cmd_bloom, "write and probe BloomFiles", cf_cmd_bloom_usage},
    {"delta", cf_cmd_delta, "write, dump and apply DeltaFiles", cf_cmd_delta_usage},
#if CF_HAVE_HFILE
    {"hfile", cf_cmd_hfile,
     "inspect and write HBase HFiles (meta, blocks, stats, dump, bloom, ...)", cf_cmd_hfile_usage},
#endif
#if CF_HAVE_PARQUET
    {"parquet", cf_cmd_parquet, "inspect Apache Parquet files (meta, schema, pages)",
     cf_cmd_parquet_usage},
#endif
#if CF_HAVE_PARQUET && CF_HAVE_TABLES
    {"convert", cf_cmd_convert, "CFiles or a table to Parquet, and Parquet to CFiles or a table",
     cf_cmd_convert_usage},
#endif
#if CF_HAVE_TABLES
    {"table", cf_cmd_table, "multi-column tables (rowsets): import, scan, get, update",
     cf_cmd_table_usage},
    {"kudu", cf_cmd_kudu,
     "read a stopped Kudu server's directories: blocks, tablets, WAL, rows (read-only)",
     cf_cmd_kudu_usage},
#endif
    {"bench", cf_cmd_bench, "read, seek and write benchmarks (JSON)", cf_cmd_bench_usage},
    {"completion", cf_cmd_completion, "print a shell completion script (bash)",
     cf_cmd_completion_usage},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The commands of modules this build left out (-DCF_WITH_X=OFF): not in the table
 * above, so not in --help, the completion or the man page, but named when typed,
 * with the option that would build them, rather than "unknown command". */
static const struct {
    const char *name;
    const char *option;
} absent[] = {
#if !CF_HAVE_HFILE
    {"hfile", "CF_WITH_HFILE"},
#endif
#if !CF_HAVE_PARQUET
    {"parquet", "CF_WITH_PARQUET"},
    {"convert", "CF_WITH_PARQUET"},
#elif !CF_HAVE_TABLES
    {"convert", "CF_WITH_TABLES"},
#endif
#if !CF_HAVE_TABLES
    {"table", "CF_WITH_TABLES"},
    {"kudu", "CF_WITH_TABLES"},
#endif
    {NULL, NULL}, /* never empty (ISO C) */
};

static int absent_command(FILE *err, const char *name)
{
    for (size_t i = 0; absent[i].name != NULL; i++) {
        if (strcmp(name, absent[i].name) == 0) {
            fprintf(err, "cfile %s: not built in this configuration (%s=OFF)\n", name,
                    absent[i].option);
            return CF_EXIT_NOTSUP;
        }
    }
    return -1;
}

int cf_cli_not_built(cf_cli *c, const char *what, const char *option)
{
    fprintf(c->err, "cfile %s: %s: not built in this configuration (%s=OFF)\n", c->cmd, what,
            option);
    return CF_EXIT_NOTSUP;
}

const char *cf_cli_command_name(size_t i)
{
    return i < NCOMMANDS ? commands[i].name : NULL;
}
const char *cf_cli_command_summary(size_t i)
{
    return i < NCOMMANDS ? commands[i].summary : NULL;
}
const char *cf_cli_command_usage(size_t i)
{
    return i < NCOMMANDS ? commands[i].usage : NULL;
}

void cf_cli_global_usage(FILE *f)
{
    fprintf(f, "usage: cfile [--help] [--version] <command> [<args>]\n\n"
               "Read and write Apache Kudu CFiles.\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n`cfile <command> --help` describes a command.\n"
               "\nexit codes:\n"
               "  0  success\n"
               "  1  failure: bad input, damaged file, I/O error, seek found nothing\n"
               "  2  usage error\n"
               "  3  not supported by this build of the library\n"
               "\nfiles:\n"
               "  '-' as an input file (CSV or JSON lines, KEYS.txt, SPEC.json) reads\n"
               "  standard input; `cfile write` writes its OUT '-' to standard output.\n"
               "  Outputs are written under a temporary name in the same directory and\n"
               "  renamed into place after fsync: a failure (a full disk, a file-size limit\n"
               "  such as `ulimit -f`: \"File too large\") exits 1 and removes the\n"
               "  temporary. A rewritten file keeps its permission bits (and its owner,\n"
               "  when cfile may set it, e.g. as root); a symlink at the output path is\n"
               "  replaced by the new file, and the file it pointed to is left untouched.\n"
               "\njson:\n"
               "  --json writes compact JSON (no spaces, no indentation) to standard output,\n"
               "  in one of two shapes, stated in each command's --help:\n"
               "  - a report is one JSON document (info, seek, write, demo, bloom, delta,\n"
               "    hfile, parquet, convert, bench, table create/import/insert/update/delete/\n"
               "    flush/compact/info; verify: one document per FILE, a line each);\n"
               "    `dump --json` is one document holding every value (the golden files'\n"
               "    expected.json);\n"
               "  - a row stream is JSON Lines, one object per row (dump --format jsonl,\n"
               "    head --json, table scan/get --json).\n"
               "  --limit N stops a dump after N rows (dump, hfile dump, parquet dump, table\n"
               "  scan; `head` is the same with -n).\n"
               "  Usage errors print one line and a hint (`try 'cfile CMD --help'`), exit 2.\n"
               "\noutput:\n"
               "  A failed write to standard output (e.g. `> /dev/full`) exits 1 with a\n"
               "  message. When the reader of a pipe exits early (`cfile dump f | head`)\n"
               "  cfile ends by SIGPIPE, quietly, as cat does; with SIGPIPE ignored it\n"
               "  exits 1, also quietly.\n"
               "\nenvironment:\n"
               "  NO_COLOR  when set and not empty, never colour the output (colour is\n"
               "            otherwise used only when writing to a terminal)\n");
}

static void global_usage(FILE *f)
{
    cf_cli_global_usage(f);
}

cf_cli cf_cli_sub(const cf_cli *c, const char *cmd, const char *usage)
{
    cf_cli sub = *c;
    sub.cmd = cmd;
    sub.usage = usage;
    return sub;
}

void cf_cli_getopt_reset(void)
{
    /* glibc: optind = 0 reinitializes getopt completely (its static scan position
     * included), which `optind = 1` does not. */
    optind = 0;
    opterr = 0;
}

static int run_main(int argc, char **argv, FILE *out, FILE *err)
{
    cf_cli c = {out, err, "cfile", ""};
    int rc;
    if (argc < 2) {
        fprintf(err, "cfile: no command given\ntry 'cfile --help'\n");
        return CF_EXIT_USAGE;
    }
    const char *a = argv[1];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "help") == 0) {
        if (strcmp(a, "help") == 0 && argc >= 3) {
            for (size_t i = 0; i < NCOMMANDS; i++) {
                if (strcmp(argv[2], commands[i].name) == 0) {
                    fputs(commands[i].usage, out);
                    return CF_EXIT_OK;
                }
            }
            if ((rc = absent_command(err, argv[2])) >= 0)
                return rc;
            fprintf(err, "cfile: unknown command '%s'\ntry 'cfile --help'\n", argv[2]);
            return CF_EXIT_USAGE;
        }
        global_usage(out);
        return CF_EXIT_OK;
    }
    if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
        /* The first line alone is the version (scripts read `--version | head -1`);
         * then what this build reads and writes, and with what. */
        fprintf(out, "cfile %s\n", cf_version_string());
        fprintf(out, "formats: cfile bloomfile deltafile%s%s%s arrow\n",
                CF_HAVE_TABLES ? " table" : "", CF_HAVE_HFILE ? " hfile" : "",
                CF_HAVE_PARQUET ? " parquet" : "");
        fputs(cf_build_features(), out);
        return CF_EXIT_OK;
    }
    /* Not advertised: the build generates cfile(1) with it (see cmd_completion.c). */
    if (strcmp(a, "--man") == 0) {
        cf_cli_write_man(out);
        return CF_EXIT_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(a, commands[i].name) == 0) {
            c.cmd = commands[i].name;
            c.usage = commands[i].usage;
            cf_cli_getopt_reset();
            rc = commands[i].fn(&c, argc - 1, argv + 1);
            return rc;
        }
    }
    if ((rc = absent_command(err, a)) >= 0)
        return rc;
    if (a[0] == '-')
        fprintf(err, "cfile: unknown option '%s'\n", a);
    else
        fprintf(err, "cfile: unknown command '%s'\n", a);
    fputs("try 'cfile --help'\n", err);
    return CF_EXIT_USAGE;
}

int cf_cli_main(int argc, char **argv, FILE *out, FILE *err)
{
    int rc = run_main(argc, argv, out, err);
    /* Checked here, once, so no command can report success for output that
     * never arrived (`cfile dump f > /dev/full`). A failed write leaves the
     * stream's error flag set; the final flush fails too and tells why. */
    errno = 0;
    int e = fflush(out) != 0 ? errno : 0;
    if (e != 0 || ferror(out)) {
        /* The reader went away (`| head -1`) with SIGPIPE ignored (by default
         * SIGPIPE ends the process quietly first): the output is incomplete,
         * so not success, but nothing is wrong to report either. */
        if (e != EPIPE)
            fprintf(err, "cfile: error writing to standard output%s%s\n", e != 0 ? ": " : "",
                    e != 0 ? strerror(e) : "");
        if (rc == CF_EXIT_OK)
            rc = CF_EXIT_FAIL;
    }
    fflush(err);
    return rc;
}

int cf_cli_lib_fail(cf_cli *c, const char *what, cf_status st, const cf_error *e)
{
    const char *msg = e != NULL && e->msg[0] != '\0' ? e->msg : cf_status_str(st);
    fprintf(c->err, "cfile: %s: %s\n", what, msg);
    return st == CF_ENOTSUP ? CF_EXIT_NOTSUP : CF_EXIT_FAIL;
}

int cf_cli_usage(cf_cli *c, const char *fmt, ...)
{
    /* One line saying what is wrong and where to look, as git and curl do: the whole
     * help would bury the one line that matters (and scroll it off the screen). */
    va_list ap;
    fprintf(c->err, "cfile %s: ", c->cmd);
    va_start(ap, fmt);
    vfprintf(c->err, fmt, ap);
    va_end(ap);
    fprintf(c->err, "\ntry 'cfile %s --help'\n", c->cmd);
    return CF_EXIT_USAGE;
}

int cf_cli_not_found(cf_cli *c, const char *path, const char *msg)
{
    fprintf(c->err, "cfile %s: %s: not found: %s\n", c->cmd, path, msg);
    return CF_EXIT_FAIL;
}

int cf_cli_fail(cf_cli *c, const char *fmt, ...)
{
    va_list ap;
    fputs("cfile: ", c->err);
    va_start(ap, fmt);
    vfprintf(c->err, fmt, ap);
    va_end(ap);
    fputc('\n', c->err);
    return CF_EXIT_FAIL;
}

int cf_cli_bad_option(cf_cli *c, char **argv)
{
    /* getopt has advanced past the culprit, except inside a cluster of short
     * options ("-jq"), where argv[optind] is the cluster still being read. */
    const char *cur = argv[optind] != NULL ? argv[optind] : "";
    bool in_cluster = optopt > 0 && optopt < 128 && cur[0] == '-' && cur[1] != '-' &&
                      strchr(cur + 1, optopt) != NULL;
    const char *tok = optind > 0 && !in_cluster ? argv[optind - 1] : NULL;
    if (tok != NULL && strncmp(tok, "--", 2) == 0 && tok[2] != '\0') {
        /* A long option: name it as typed (an abbreviation stays one), never
         * by the short letter or internal code getopt reports in optopt. */
        size_t n = strcspn(tok, "=");
        if (optopt == 0)
            return cf_cli_usage(c, "unknown or ambiguous option: %.*s", (int)n, tok);
        if (tok[n] == '=')
            return cf_cli_usage(c, "option %.*s takes no argument", (int)n, tok);
        return cf_cli_usage(c, "option %s needs an argument", tok);
    }
    if (optopt > 0x20 && optopt < 0x7f)
        return cf_cli_usage(c, "bad option or missing argument: -%c", optopt);
    return cf_cli_usage(c, "bad option or missing argument: %s", tok != NULL ? tok : "?");
}

int cf_cli_help(cf_cli *c)
{
    fputs(c->usage, c->out);
    return CF_EXIT_OK;
}

double cf_cli_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

bool cf_cli_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int cf_cli_hex_digit(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

int cf_cli_hex_decode(uint8_t *out, const char *s, size_t len)
{
    if (len % 2 != 0)
        return -1;
    for (size_t i = 0; i < len; i += 2) {
        int hi = cf_cli_hex_digit((unsigned char)s[i]);
        int lo = cf_cli_hex_digit((unsigned char)s[i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

int cf_cli_read_input(cf_cli *c, const char *path, char **buf, size_t *len)
{
    FILE *f = cf_cli_fopen_input(path);
    if (f == NULL)
        return cf_cli_fail(c, "%s: %s", path, strerror(errno));
    char *b = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (cap - n < 65536) {
            size_t ncap = cap ? cap * 2 : 1u << 16;
            char *nb = realloc(b, ncap + 1);
            if (nb == NULL) {
                rc = cf_cli_fail(c, "%s: out of memory", path);
                break;
            }
            b = nb;
            cap = ncap;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = cf_cli_fail(c, "%s: read error", path);
            break;
        }
    }
    cf_cli_fclose_input(f);
    if (rc != 0) {
        free(b);
        return rc;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int cf_cli_parse_u64(const char *s, uint64_t *out)
{
    if (s == NULL || *s == '\0')
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

FILE *cf_cli_fopen_input(const char *path)
{
    return strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
}

void cf_cli_fclose_input(FILE *f)
{
    if (f != NULL && f != stdin)
        fclose(f);
}

cf_status cf_cli_open(cf_reader **out, const char *path, cf_error *err)
{
    cf_reader_options o;
    cf_reader_options_init(&o);
    o.verify_checksums = true;
    return cf_reader_open_file(out, path, false, &o, err);
}

cf_status cf_cli_open_io(cf_reader **out, cf_io *io, cf_error *err)
{
    cf_reader_options o;
    cf_reader_options_init(&o);
    o.verify_checksums = true;
    return cf_reader_open(out, io, &o, err);
}

cf_status cf_cli_verify(const cf_reader *r, cf_verify_fn fn, void *ctx, size_t *damaged,
                        cf_error *err)
{
    if (!cf_bloom_is_bloom_file(cf_reader_info(r)))
        return cf_reader_verify(r, fn, ctx, damaged, err);
    /* A BloomFile's blocks are bloom pages, not PLAIN binary values: decoding
     * them as a column would call every valid BloomFile damaged. */
    cf_bloom_reader *b = NULL;
    if (damaged != NULL)
        *damaged = 0;
    /* Over the reader's own io, not by opening its name again: a BloomFile may be a
     * block inside a Kudu container (`cfile kudu fs dump cfile`), whose name is no
     * path. */
    cf_status st = cf_bloom_reader_open(&b, cf_reader_io(r), NULL, err);
    if (st == CF_OK)
        st = cf_bloom_reader_verify(b, fn, ctx, damaged, err);
    cf_bloom_reader_free(b);
    return st;
}

void cf_cli_write_column_info(cf_jw *w, const cf_file_info *in)
{
    cf_jw_kv_cstr(w, "type", cf_cli_type_name(in->type));
    cf_jw_kv_cstr(w, "encoding", cf_cli_encoding_name(in->encoding));
    cf_jw_kv_cstr(w, "compression", cf_cli_compression_name(in->compression));
    cf_jw_kv_uint(w, "num_values", in->num_values);
    cf_jw_kv_bool(w, "nullable", in->nullable);
    cf_jw_kv_bool(w, "is_array", in->is_array);
}

void cf_cli_write_metadata(cf_jw *w, const cf_metadata_pair *p, size_t n)
{
    cf_jw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        cf_jw_obj_begin(w);
        cf_jw_key(w, "key");
        cf_jw_bytes(w, p[i].key.data, p[i].key.len);
        cf_jw_key(w, "value");
        cf_jw_bytes(w, p[i].value.data, p[i].value.len);
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
}

const char *cf_cli_type_name(cf_type t)
{
    const char *n = cf_type_name(t);
    return n ? n : "UNKNOWN_TYPE";
}

const char *cf_cli_encoding_name(cf_encoding e)
{
    const char *n = cf_encoding_name(e);
    return n ? n : "UNKNOWN_ENCODING";
}

const char *cf_cli_compression_name(cf_compression c)
{
    const char *n = cf_compression_name(c);
    return n ? n : "UNKNOWN_COMPRESSION";
}
