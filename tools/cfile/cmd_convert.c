/* `cfile convert IN... OUT`: CFiles or a table at a snapshot -> Parquet, and a
 * Parquet file -> CFiles or a table (cmd_convert_pq.c). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfile/kudu.h>
#include <cfile/parquet.h>
#include <cfile/rowset.h>

#include "cli.h"
#include "convert.h"
#include "csv.h"
#include "convert_kudu.h"
#include "json.h"
#include "kudu_args.h"
#include "pq_kudu.h"
#include "pq_write_args.h"
#include "table_args.h"

const char cf_cmd_convert_usage[] =
    "usage: cfile convert [options] IN... OUT.parquet\n"
    "       cfile convert [options] --kudu-tablet ID --fs-wal-dir DIR [--fs-data-dirs A,B]\n"
    "                     [--fs-wal-dir DIR2 ...] OUT.parquet | --to table DIR\n"
    "       cfile convert [options] --kudu-table NAME | --kudu-table-id ID\n"
    "                     --fs-wal-dir DIR [...] [--fs-wal-dir DIR2 ...] OUT.parquet | --to table "
    "DIR\n"
    "       cfile convert [--column C] IN.parquet OUT.cfile\n"
    "       cfile convert --to cfiles [--column C,...] IN.parquet DIR\n"
    "       cfile convert --to table --key K[,K...] [--column C,...] IN.parquet DIR\n"
    "\n"
    "The output's name says which way: OUT ending in .parquet is written as an\n"
    "Apache Parquet file, OUT ending in .cfile as one CFile, and --to cfiles or\n"
    "--to table reads one Parquet file into a directory (any other OUT without\n"
    "--to is a usage error).\n"
    "\n"
    "To Parquet: OUT is created atomically (a temporary file renamed into place once\n"
    "complete) from IN: one or more CFiles (one column each, named by its file name\n"
    "without directory and extension, all with the same number of rows), or a table\n"
    "directory (`cfile table`), read at --as-of TS (default: the latest). Types map\n"
    "to Parquet as `cfile parquet write --help` lists.\n"
    "\n"
    "  --as-of TS              the table as of timestamp TS (inclusive); a Kudu tablet\n"
    "                          as of hybrid time TS (ops before it, as Kudu's snapshot\n"
    "                          scans)\n"
    "\n"
    "A Kudu tablet IN (--kudu-tablet ID) is read from a stopped tablet server's own\n"
    "directories, never written, as `cfile kudu tablet scan` reads it: its DiskRowSets\n"
    "plus the WAL's row operations not yet flushed (replayed in memory as Kudu's\n"
    "bootstrap would), or the DiskRowSets alone with --no-wal.\n"
    "  --kudu-tablet ID        the tablet to export\n"
    "  --kudu-table NAME       every tablet of the table NAME (or, when no table has that\n"
    "                          name, the table with that id; --kudu-table-id ID: by id)\n"
    "  --no-wal                the DiskRowSets alone\n"
    "  --history-max-age-sec N the server's --tablet_history_max_age_sec (default\n"
    "                          604800): --as-of before the ancient history mark (the\n"
    "                          tablet's latest timestamp minus it) is refused, exit 2\n"
    "  --mmap                  read the blocks through mmap (default pread): faster when\n"
    "                          cached, but a media error or a file cut underneath kills\n"
    "                          the process (SIGBUS) instead of exiting 1\n"
    "  --fs-wal-dir DIR, --fs-metadata-dir DIR, --fs-data-dirs A[,B...]\n"
    "                          a server's directories, as Kudu's flags name them\n"
    "  --kudu-server WAL[:DATA,...]  one whole server: its WAL root (also its metadata\n"
    "                          root) and data roots, the short form of its --fs-* flags\n"
    "  --skip-damaged-replicas pass over (with a warning) a replica whose superblock,\n"
    "                          consensus metadata or WAL does not read, instead of failing\n"
    "\n"
    "Several servers: give each server's flags as its own Kudu flags name them (copy\n"
    "them from its gflagfile); every --fs-wal-dir after the first starts the next\n"
    "server, and --fs-metadata-dir and --fs-data-dirs belong to the server whose\n"
    "--fs-wal-dir came last before them. Kudu's own flag names need no separator a\n"
    "path could contain. Every replica of the tablet (or of each tablet of the table)\n"
    "on those servers is found, and per tablet the most recent is read, as Kudu ranks\n"
    "replicas: only a TABLET_DATA_READY one (TOMBSTONED and DELETED replicas hold no\n"
    "data; a COPYING one is an unfinished copy Kudu tombstones at startup), then the\n"
    "largest last op id (term, index) in its WAL (Raft's rule for the most up-to-date\n"
    "log), then the larger current_term of its consensus metadata, then the server\n"
    "given first. Tablets are written one after another in partition key order\n"
    "(partition_key_start). Tablets whose schemas differ, a name several tables\n"
    "have, and a tablet without a replica to take are refused (exit 1, naming them),\n"
    "and so is a replica that cannot be judged (its consensus metadata or WAL does\n"
    "not read) unless --skip-damaged-replicas; a tablet's only READY replica needs\n"
    "no judging and is read as it is (with a warning naming its problem).\n"
    "Unless --quiet or --json, each tablet's chosen server (1 = the first given) is\n"
    "said on stderr. --to table DIR loads the rows into a new table (its schema\n"
    "and key the tablets'; --ts and --lock-timeout as below; a table already at DIR\n"
    "is refused) in one commit: all rows or none.\n"
    "  --name NAME             column name for a single CFile IN\n" PQ_OPTIONS_HELP "\n"
    "From Parquet: the top-level columns of IN (or those --column names), a row group\n"
    "at a time. OUT.cfile takes one column (replaced atomically). --to cfiles writes\n"
    "DIR/<column>.cfile for each (DIR is made when missing; an existing file is never\n"
    "replaced; all files or none). --to table loads the rows into the table at DIR\n"
    "in one commit (all rows or none, under the table's lock): a new table needs\n"
    "--key (its key columns, placed first); an existing one takes columns by name.\n"
    "Types: INT(bits, signed) as INT8..INT64/UINT8..UINT64, DECIMAL(p,s) as\n"
    "DECIMAL32/64/128 by p, DATE, TIMESTAMP as UNIXTIME_MICROS (MILLIS and NANOS\n"
    "converted exactly, local ones keeping their count), INT96 as UNIXTIME_MICROS,\n"
    "STRING/ENUM/JSON as STRING, other BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY (UUID\n"
    "too) as BINARY, FLOAT16 as FLOAT, BOOLEAN, FLOAT, DOUBLE; a LIST of those as an\n"
    "array column; OPTIONAL as nullable. Structs, maps, nested lists, TIME and\n"
    "INTERVAL have no Kudu column: exit 3 naming the column (leave it out with\n"
    "--column). A value that would change (sub-microsecond digits, a MILLIS time\n"
    "past the microsecond range, a decimal wider than its precision) fails with\n"
    "exit 1 naming its row and column. VARCHAR(n) and INT128, which Parquet writes\n"
    "as STRING and FIXED_LEN_BYTE_ARRAY(16), come back as they were from a file\n"
    "cfile wrote: their Kudu types are kept in the footer's key/value metadata\n"
    "(key cfile.kudu_types, a JSON object of column name to type).\n"
    "\n"
    "  --to cfiles|table|cfile the output kind (default: by OUT's name)\n"
    "  --column C[,C...]       only these top-level columns (repeatable)\n"
    "  --key K[,K...]          --to table: the new table's key columns (taken NOT NULL)\n"
    "                          (a name holding a comma or starting with a backquote\n"
    "                          goes in backquotes, `` for one inside: `a,b`)\n"
    "  --ts TS                 --to table: insert timestamp of every row\n"
    "  --lock-timeout MS       --to table: wait up to MS for the lock (default 10000)\n"
    "  --progress, --quiet     as above\n"
    "  --json                  as above\n"
    "  --help                  this text\n"
    "\n"
    "--json prints one compact JSON document instead of the summary line, every\n"
    "direction starting {\"op\": \"convert\", \"from\": \"cfiles\"|\"table\"|\"parquet\",\n"
    "\"inputs\": [IN...], ... \"to\", \"rows\"}: to Parquet it adds \"as_of\" (a table\n"
    "at --as-of), \"file\", \"row_groups\" (read back from its footer), \"columns\"\n"
    "([{\"name\", \"type\", \"is_array\", \"nullable\", \"bloom_filter\"}]), \"codec\" and\n"
    "\"bytes\" (the file's size); from Parquet \"row_groups\" is IN's, and --to cfile\n"
    "or cfiles adds \"dir\" (cfiles), \"files\" ([{\"file\", \"column\", \"type\",\n"
    "\"is_array\", \"nullable\", \"encoding\", \"compression\", \"bytes\"}]) and \"bytes\"\n"
    "(their total); --to table adds \"table\", \"columns\" ([{\"column\", \"type\",\n"
    "\"is_array\", \"nullable\"}]), \"key\" (the table's key columns) and \"rowsets\"\n"
    "(the table's rowsets after the load). From Kudu (\"from\": \"kudu\", \"inputs\":\n"
    "[the tablet id or table]) the summary ends with \"servers\" ([{\"uuid\",\n"
    "\"wal_dir\"}]), \"tablets\" and \"replicas\" ([{\"tablet_id\", \"server\" (its index),\n"
    "\"table_id\", \"data_state\", \"partition_key_start\", \"partition_key_end\" (hex),\n"
    "\"current_term\", \"last_op_id\" (\"term.index\"), \"chosen\", \"problem\"}]).\n";

/* ---- cfile convert ---------------------------------------------------------------------- */

/* The Kudu tablet IN's own options (beyond enum's in pq_write_args.h). */
enum {
    O_KUDU_TABLET = 1100,
    O_KUDU_TABLE,
    O_KUDU_TABLE_ID,
    O_KUDU_SERVER,
    O_NO_WAL,
    O_SKIP_DAMAGED,
    O_MMAP,
    O_HISTORY_AGE
};

/* Shift a bitmap by `from` bits into dst (n bits). */
static void bits_from(uint8_t *dst, const uint8_t *src, size_t from, size_t n)
{
    memset(dst, 0, n / 8 + 1);
    for (size_t i = 0; i < n; i++)
        if ((src[(from + i) >> 3] >> ((from + i) & 7)) & 1)
            dst[i >> 3] |= (uint8_t)(1u << (i & 7));
}

typedef struct cfin {
    const char *path;
    cf_reader *r;
    cf_iter *it;
    cf_batch b; /* current batch */
    size_t pos; /* rows of it already written */
    char *name;
    uint8_t *nn; /* shifted bitmap */
} cfin;

/* Several CFiles side by side: their batches end at different rows (block
 * boundaries), so each step writes the rows every file still has in its
 * current batch. */
static int convert_cfiles(cf_cli *c, char **paths, size_t n, const char *name, const char *out,
                          cf_pq_args *a)
{
    cf_error e;
    cf_status st;
    int rc = 0;
    cfin *f = calloc(n, sizeof(*f));
    cf_parquet_write_column *cols = calloc(n, sizeof(*cols));
    cf_batch *b = calloc(n, sizeof(*b));
    cf_parquet_writer *w = NULL;
    if (f == NULL || cols == NULL || b == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    uint64_t rows = 0;
    for (size_t i = 0; i < n; i++) {
        f[i].path = paths[i];
        if ((st = cf_cli_open(&f[i].r, paths[i], &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, paths[i], st, &e);
            goto out;
        }
        if (cf_bloom_is_bloom_file(cf_reader_info(f[i].r))) {
            rc = cf_cli_fail(c, "%s: a BloomFile holds no values to convert", paths[i]);
            goto out;
        }
        const cf_file_info *fi = cf_reader_info(f[i].r);
        if (i == 0)
            rows = fi->num_values;
        else if (fi->num_values != rows) {
            rc = cf_cli_fail(c, "%s: %" PRIu64 " rows, %s has %" PRIu64, paths[i], fi->num_values,
                             paths[0], rows);
            goto out;
        }
        const char *base = strrchr(paths[i], '/');
        base = base ? base + 1 : paths[i];
        if (name != NULL)
            base = name;
        f[i].name = strdup(base);
        f[i].nn = malloc(CF_CLI_BATCH / 8 + 1);
        if (f[i].name == NULL || f[i].nn == NULL) {
            rc = cf_cli_fail(c, "out of memory");
            goto out;
        }
        char *dot = strrchr(f[i].name, '.');
        if (dot != NULL && dot != f[i].name && name == NULL)
            *dot = '\0';
        cols[i].name = f[i].name;
        cols[i].type = fi->type;
        cols[i].nullable = fi->nullable;
        cols[i].is_array = fi->is_array;
        if ((st = cf_iter_create(&f[i].it, f[i].r, &e)) != CF_OK ||
            (st = cf_iter_seek_to_first(f[i].it, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, paths[i], st, &e);
            goto out;
        }
    }
    if ((rc = cf_pq_apply_bloom(c, a, cols, n)) != 0 ||
        (rc = cf_pq_kudu_types(c, a, cols, NULL, n)) != 0)
        goto out;
    double t0 = cf_cli_now_s();
    if ((rc = cf_pq_writer_create(c, a, out, cols, n, &w)) != 0)
        goto out;
    cf_cli_progress p;
    cf_cli_progress_init(&p, c, a->progress, rows);
    uint64_t done = 0;
    while (done < rows) {
        size_t step = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            if (f[i].pos == f[i].b.count) {
                if ((st = cf_iter_next_batch(f[i].it, CF_CLI_BATCH, &f[i].b, &e)) != CF_OK) {
                    rc = cf_cli_lib_fail(c, f[i].path, st, &e);
                    goto out;
                }
                f[i].pos = 0;
                if (f[i].b.count == 0) {
                    rc = cf_cli_fail(c, "%s: ended at row %" PRIu64 " of %" PRIu64, f[i].path, done,
                                     rows);
                    goto out;
                }
            }
            size_t left = f[i].b.count - f[i].pos;
            step = left < step ? left : step;
        }
        for (size_t i = 0; i < n; i++) {
            const cf_batch *s = &f[i].b;
            b[i] = *s;
            b[i].count = step;
            if (s->nonnull != NULL) {
                bits_from(f[i].nn, s->nonnull, f[i].pos, step);
                b[i].nonnull = f[i].nn;
            }
            if (cols[i].is_array)
                b[i].elem_offsets = s->elem_offsets + f[i].pos; /* absolute into values */
            else
                b[i].values = (const uint8_t *)s->values + f[i].pos * cf_type_size(cols[i].type);
            f[i].pos += step;
        }
        if ((st = cf_parquet_writer_append(w, b, step, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, out, st, &e);
            goto out;
        }
        done += step;
        cf_cli_progress_cb(&p, done);
    }
    cf_cli_progress_end(&p);
    cf_pq_source src = {"convert", "cfiles", paths, n, false, 0, cols, n, NULL, NULL};
    rc = cf_pq_finish_writer(c, out, w, a, &src, t0);
out:
    cf_parquet_writer_free(w);
    for (size_t i = 0; f != NULL && i < n; i++) {
        cf_iter_free(f[i].it);
        cf_reader_free(f[i].r);
        free(f[i].name);
        free(f[i].nn);
    }
    free(f);
    free(cols);
    free(b);
    return rc;
}

/* Rows from a scanner (a table's or Kudu tablets': `next`, batches of every
 * column of s in schema order) into OUT.parquet. `from` and `in` name the source in
 * the summary; has_ts/ts: the snapshot it was read at, for the summary. */
int cf_cli_convert_rows(cf_cli *c, const cf_schema *s, cf_cli_rows_next_fn next, void *ctx,
                        const char *from, const char *in, bool has_ts, uint64_t ts, const char *out,
                        cf_pq_args *a, void (*extra)(void *ctx, cf_jw *j), void *extra_ctx)
{
    cf_error e;
    cf_parquet_writer *w = NULL;
    cf_parquet_write_column *cols = NULL;
    int rc = 0;
    cf_status st;
    size_t n = cf_schema_column_count(s);
    if ((rc = cf_pq_columns_of(c, s, &cols)) != 0 || (rc = cf_pq_apply_bloom(c, a, cols, n)) != 0 ||
        (rc = cf_pq_kudu_types(c, a, cols, s, n)) != 0)
        goto out;
    double t0 = cf_cli_now_s();
    if ((rc = cf_pq_writer_create(c, a, out, cols, n, &w)) != 0)
        goto out;
    cf_cli_progress p;
    cf_cli_progress_init(&p, c, a->progress, 0);
    uint64_t done = 0;
    for (;;) {
        cf_row_batch rb;
        if ((st = next(ctx, &rb, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, in, st, &e);
            if (st == CF_EINVAL)
                rc = CF_EXIT_USAGE; /* a snapshot the input refuses (Kudu's ancient history) */
            goto out;
        }
        if (rb.count == 0)
            break;
        if ((st = cf_parquet_writer_append(w, rb.cols, rb.count, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, out, st, &e);
            goto out;
        }
        done += rb.count;
        cf_cli_progress_cb(&p, done);
    }
    cf_cli_progress_end(&p);
    char *inputs[] = {(char *)in};
    cf_pq_source src = {"convert", from, inputs, 1, has_ts, ts, cols, n, extra, extra_ctx};
    rc = cf_pq_finish_writer(c, out, w, a, &src, t0);
out:
    cf_parquet_writer_free(w);
    free(cols);
    return rc;
}

static cf_status table_next(void *ctx, cf_row_batch *b, cf_error *err)
{
    return cf_table_scanner_next(ctx, b, err);
}

static int convert_table(cf_cli *c, const char *dir, bool has_ts, uint64_t ts, const char *out,
                         cf_pq_args *a)
{
    cf_error e;
    cf_table_options to;
    cf_table_options_init(&to);
    to.read_only = true;
    cf_table *t = NULL;
    cf_table_scanner *sc = NULL;
    int rc = 0;
    cf_status st = cf_table_open(&t, dir, &to, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, dir, st, &e);
    cf_scan_options so;
    cf_scan_options_init(&so);
    if (has_ts)
        so.snapshot = ts + 1; /* inclusive, as `table scan --as-of` */
    if ((st = cf_table_scanner_create(&sc, t, &so, &e)) != CF_OK)
        rc = cf_cli_lib_fail(c, dir, st, &e);
    else
        rc = cf_cli_convert_rows(c, cf_table_schema(t), table_next, sc, "table", dir, has_ts, ts,
                                 out, a, NULL, NULL);
    cf_table_scanner_free(sc);
    cf_table_free(t);
    return rc;
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

/* Comma-separated names appended to *list. */
static int add_names(cf_cli *c, const char *opt, const char *arg, char ***list, size_t *n)
{
    char *copy = strdup(arg), *rest = copy, msg[300] = "";
    if (copy == NULL)
        return cf_cli_fail(c, "out of memory");
    for (char *p; (p = cf_cli_next_name(&rest, false, msg, sizeof(msg))) != NULL;) {
        char **nl = realloc(*list, (*n + 1) * sizeof(*nl));
        char *d = strdup(p);
        if (nl != NULL)
            *list = nl;
        if (nl == NULL || d == NULL) {
            free(d);
            free(copy);
            return cf_cli_fail(c, "out of memory");
        }
        (*list)[(*n)++] = d;
    }
    free(copy);
    if (msg[0] != '\0')
        return cf_cli_usage(c, "--%s: %s", opt, msg);
    if (*n == 0)
        return cf_cli_usage(c, "--%s: expected names, got '%s'", opt, arg);
    return 0;
}

/* The options of a Parquet IN. */
static int pq_in_option(cf_cli *c, cf_pq_convert_args *pa, const char **to, int ch, const char *arg)
{
    uint64_t v;
    switch (ch) {
    case O_TO:
        if (strcmp(arg, "cfiles") != 0 && strcmp(arg, "table") != 0 && strcmp(arg, "cfile") != 0)
            return cf_cli_usage(c, "--to: expected cfiles, table or cfile, got '%s'", arg);
        *to = arg;
        return 0;
    case O_COLUMN: return add_names(c, "column", arg, &pa->columns, &pa->ncolumns);
    case O_KEY: return add_names(c, "key", arg, &pa->keys, &pa->nkeys);
    case O_TS:
        if (cf_cli_parse_u64(arg, &pa->ts) != 0 || pa->ts == 0 || pa->ts == UINT64_MAX)
            return cf_cli_usage(c, "--ts: expected a timestamp >= 1, got '%s'", arg);
        pa->has_ts = true;
        return 0;
    default:
        if (cf_cli_parse_u64(arg, &v) != 0 || v > UINT32_MAX)
            return cf_cli_usage(c, "--lock-timeout: expected milliseconds, got '%s'", arg);
        pa->lock_ms = (uint32_t)v;
        return 0;
    }
}

/* A Kudu IN: its checks, then the export (cmd_convert_kudu.c). */
static int convert_kudu_in(cf_cli *c, cf_kudu_convert_args *k, const char *kudu_opt, const char *to,
                           const cf_pq_convert_args *pa, const char *writer_opt, const char *name,
                           int nout, char **outv)
{
    int nsel = (k->tablet != NULL) + (k->table != NULL || k->table_id != NULL);
    if (nsel == 0)
        return cf_cli_usage(c,
                            "%s is for a Kudu IN (--kudu-tablet ID, --kudu-table NAME or "
                            "--kudu-table-id ID)",
                            kudu_opt);
    if (nsel > 1)
        return cf_cli_usage(c, "--kudu-tablet and --kudu-table(-id): name one tablet or one "
                               "table");
    if (nout != 1)
        return cf_cli_usage(c, "a Kudu IN takes OUT alone (no IN), got %d arguments", nout);
    k->out = outv[0];
    k->to_table = to != NULL && strcmp(to, "table") == 0;
    if (to != NULL && !k->to_table)
        return cf_cli_usage(c, "--to %s: a Kudu IN goes to OUT.parquet or --to table DIR", to);
    if (!k->to_table && !cf_cli_ends_with(k->out, ".parquet"))
        return cf_cli_usage(c, "OUT: a Kudu IN is converted to a .parquet file or, with --to "
                               "table, into a table directory");
    if (pa->ncolumns || pa->nkeys || name != NULL)
        return cf_cli_usage(c, "%s is not for a Kudu IN (its key and columns are the tablet's)",
                            pa->ncolumns ? "--column"
                            : pa->nkeys  ? "--key"
                                         : "--name");
    if (!k->to_table && (pa->has_ts || pa->lock_ms != 10000))
        return cf_cli_usage(c, "--ts and --lock-timeout are for --to table");
    if (k->to_table && writer_opt != NULL)
        return cf_cli_usage(c, "%s is for Parquet output", writer_opt);
    if (k->servers.n == 0)
        return cf_cli_usage(c, "a Kudu IN needs its server's directories (--fs-wal-dir DIR ...)");
    for (size_t i = 0; i < k->servers.n; i++)
        if (k->servers.a[i].wal_dir == NULL)
            return cf_cli_usage(c, "server %zu has no --fs-wal-dir", i + 1);
    k->in = k->tablet != NULL ? k->tablet : k->table != NULL ? k->table : k->table_id;
    k->has_load_ts = pa->has_ts;
    k->load_ts = pa->ts;
    k->lock_ms = pa->lock_ms;
    return cf_cli_convert_kudu(c, k);
}

int cf_cmd_convert(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        PQ_LONG_OPTIONS,
        {"as-of", required_argument, NULL, O_AS_OF},
        {"name", required_argument, NULL, O_NAME},
        {"to", required_argument, NULL, O_TO},
        {"column", required_argument, NULL, O_COLUMN},
        {"key", required_argument, NULL, O_KEY},
        {"ts", required_argument, NULL, O_TS},
        {"lock-timeout", required_argument, NULL, O_LOCK_TIMEOUT},
        {"kudu-tablet", required_argument, NULL, O_KUDU_TABLET},
        {"kudu-table", required_argument, NULL, O_KUDU_TABLE},
        {"kudu-table-id", required_argument, NULL, O_KUDU_TABLE_ID},
        {"no-wal", no_argument, NULL, O_NO_WAL},
        {"skip-damaged-replicas", no_argument, NULL, O_SKIP_DAMAGED},
        {"mmap", no_argument, NULL, O_MMAP},
        {"history-max-age-sec", required_argument, NULL, O_HISTORY_AGE},
        {"kudu-server", required_argument, NULL, O_KUDU_SERVER},
        CF_KUDU_ARGS_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    cf_pq_args a;
    cf_pq_args_init(&a);
    cf_pq_convert_args pa;
    memset(&pa, 0, sizeof(pa));
    pa.lock_ms = 10000;
    const char *to = NULL, *writer_opt = NULL, *reader_opt = NULL;
    const char *name = NULL;
    bool has_ts = false;
    uint64_t ts = 0;
    int ch, rc = 0;
    /* A Kudu IN: a tablet or a table, and the directories of one or more servers. */
    const char *kudu_opt = NULL;
    cf_kudu_convert_args k;
    memset(&k, 0, sizeof k);
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (ch == O_KUDU_TABLET || ch == O_KUDU_TABLE || ch == O_KUDU_TABLE_ID || ch == O_NO_WAL ||
            ch == O_SKIP_DAMAGED || ch == O_MMAP || ch == O_HISTORY_AGE) {
            if (kudu_opt == NULL)
                kudu_opt = argv[optind - 1];
            if (ch == O_KUDU_TABLET)
                k.tablet = optarg;
            else if (ch == O_KUDU_TABLE)
                k.table = optarg;
            else if (ch == O_KUDU_TABLE_ID)
                k.table_id = optarg;
            else if (ch == O_NO_WAL)
                k.no_wal = true;
            else if (ch == O_MMAP)
                k.mmap = true;
            else if (ch == O_HISTORY_AGE) {
                char *end;
                errno = 0;
                long long v = strtoll(optarg, &end, 10);
                if (errno != 0 || end == optarg || *end != '\0') {
                    rc = cf_cli_usage(c, "--history-max-age-sec: not a number of seconds: %s",
                                      optarg);
                    goto done;
                }
                k.has_history_age = true;
                k.history_age = v;
            } else
                k.skip_damaged = true;
            continue;
        }
        int krc = ch == O_KUDU_SERVER ? cf_kudu_servers_add(c, &k.servers, optarg)
                                      : cf_kudu_servers_option(c, &k.servers, ch, optarg);
        if (krc == 0) {
            if (kudu_opt == NULL)
                kudu_opt = argv[optind - 1];
            continue;
        }
        if (krc > 0) {
            rc = krc;
            goto done;
        }
        if (ch == O_HELP) {
            rc = cf_cli_help(c);
            goto done;
        }
        if (ch == O_AS_OF) {
            if (cf_cli_parse_u64(optarg, &ts) != 0 || ts == UINT64_MAX) {
                rc = cf_cli_usage(c, "--as-of: expected a timestamp, got '%s'", optarg);
                goto done;
            }
            has_ts = true;
        } else if (ch == O_NAME) {
            name = optarg;
        } else if (ch == O_TO || ch == O_COLUMN || ch == O_KEY || ch == O_TS ||
                   ch == O_LOCK_TIMEOUT) {
            if (reader_opt == NULL)
                reader_opt = argv[optind - 1];
            if ((rc = pq_in_option(c, &pa, &to, ch, optarg)) != 0)
                goto done;
        } else if ((rc = cf_pq_option(c, &a, ch, optarg)) != 0) {
            rc = rc == 1 ? cf_cli_bad_option(c, argv) : rc;
            goto done;
        } else if (ch != O_PROGRESS && ch != O_QUIET && ch != O_JSON && writer_opt == NULL) {
            writer_opt = argv[optind - 1];
        }
    }
    int nin = argc - optind - 1;
    if (kudu_opt != NULL) {
        k.has_ts = has_ts;
        k.ts = ts;
        k.pq = &a;
        rc = convert_kudu_in(c, &k, kudu_opt, to, &pa, writer_opt, name, argc - optind,
                             argv + optind);
        goto done;
    }
    if (nin < 1) {
        rc = cf_cli_usage(c, argc == optind ? "missing IN and OUT" : "missing OUT");
        goto done;
    }
    const char *out = argv[argc - 1];
    if (to != NULL || !cf_cli_ends_with(out, ".parquet")) {
        /* Parquet in: the output kind by --to or OUT's name. */
        if (to == NULL && !cf_cli_ends_with(out, ".cfile"))
            rc = cf_cli_usage(c, "OUT: name a .parquet or .cfile file, or say --to cfiles or "
                                 "--to table for a directory");
        else if (nin != 1)
            rc = cf_cli_usage(c, "a Parquet IN is converted alone");
        else if (writer_opt != NULL || has_ts || name != NULL)
            rc = cf_cli_usage(c, "%s is for Parquet output",
                              writer_opt != NULL ? writer_opt
                              : has_ts           ? "--as-of"
                                                 : "--name");
        else if (pa.nkeys && strcmp(to == NULL ? "" : to, "table") != 0)
            rc = cf_cli_usage(c, "--key is for --to table");
        else if ((pa.has_ts || pa.lock_ms != 10000) && strcmp(to == NULL ? "" : to, "table") != 0)
            rc = cf_cli_usage(c, "--ts and --lock-timeout are for --to table");
        if (rc == 0) {
            pa.to = to == NULL || strcmp(to, "cfile") == 0 ? CF_PQ_TO_CFILE
                    : strcmp(to, "cfiles") == 0            ? CF_PQ_TO_CFILES
                                                           : CF_PQ_TO_TABLE;
            pa.in = argv[optind];
            pa.out = out;
            pa.progress = a.progress;
            pa.quiet = a.quiet;
            pa.json = a.json;
            rc = cf_cli_convert_parquet(c, &pa);
        }
        goto done;
    }
    if (reader_opt != NULL) {
        rc = cf_cli_usage(c, "%s is for a Parquet IN", reader_opt);
        goto done;
    }
    struct stat sb;
    bool is_dir = stat(argv[optind], &sb) == 0 && S_ISDIR(sb.st_mode);
    if (is_dir) {
        if (nin != 1)
            rc = cf_cli_usage(c, "a table directory is converted alone");
        else if (name != NULL)
            rc = cf_cli_usage(c, "--name is for a single CFile");
        else
            rc = convert_table(c, argv[optind], has_ts, ts, out, &a);
    } else if (has_ts) {
        rc = cf_cli_usage(c, "--as-of is for a table directory");
    } else if (name != NULL && nin != 1) {
        rc = cf_cli_usage(c, "--name is for a single CFile");
    } else {
        rc = convert_cfiles(c, argv + optind, (size_t)nin, name, out, &a);
    }
done:
    cf_kudu_servers_free(&k.servers);
    cf_pq_args_dispose(&a);
    free_list(pa.columns, pa.ncolumns);
    free_list(pa.keys, pa.nkeys);
    return rc;
}
