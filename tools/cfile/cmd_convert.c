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
#include "json.h"
#include "table_args.h"
#include "kudu_args.h"
#include "pq_kudu.h"
#include "pq_write_args.h"
#include "table_args.h"

const char cf_cmd_convert_usage[] =
    "usage: cfile convert [options] IN... OUT.parquet\n"
    "       cfile convert [options] --kudu-tablet ID --fs-wal-dir DIR [--fs-data-dirs A,B]\n"
    "                     OUT.parquet | --to table DIR\n"
    "       cfile convert [options] --kudu-table NAME --kudu-server WAL[:DATA,...]...\n"
    "                     OUT.parquet\n"
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
    "  --kudu-tablet ID        the tablet to export (--to table DIR: into a new cfile\n"
    "                          table with its schema and key, in one commit)\n"
    "  --no-wal                the DiskRowSets alone\n"
    "  --kudu-table NAME       every tablet of the table (its name or id) found on the\n"
    "                          servers, each once: of several replicas the one whose WAL\n"
    "                          reaches the highest op index; tombstoned ones left out;\n"
    "                          tablets in id order into one OUT.parquet\n"
    "  --kudu-server WAL[:DATA,...]  one server's WAL root and data roots (repeat per\n"
    "                          server; or the --fs-* options for a single server)\n"
    "  --fs-wal-dir DIR, --fs-metadata-dir DIR, --fs-data-dirs A[,B...]\n"
    "                          the server's directories, as Kudu's flags name them\n"
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
    "(the table's rowsets after the load).\n";

/* ---- cfile convert ---------------------------------------------------------------------- */

/* The Kudu tablet IN's own options (beyond enum's in pq_write_args.h). */
enum { O_KUDU_TABLET = 1100, O_NO_WAL, O_KUDU_TABLE, O_KUDU_SERVER };

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
    st = cf_parquet_writer_create_file(&w, out, cols, n, &a->o, &e);
    if (st != CF_OK) {
        rc = st == CF_EINVAL ? cf_cli_usage(c, "%s", e.msg) : cf_cli_lib_fail(c, out, st, &e);
        goto out;
    }
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
    cf_pq_source src = {"convert", "cfiles", paths, n, false, 0, cols, n};
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

/* Rows from a scanner (a table's or a Kudu tablet's: `next`, batches of every
 * column of s in schema order) into OUT.parquet. `from` and `in` name the source in
 * the summary; has_ts/ts: the snapshot it was read at, for the summary. */
typedef cf_status (*rows_next_fn)(void *ctx, cf_row_batch *b, cf_error *err);

static int convert_rows(cf_cli *c, const cf_schema *s, rows_next_fn next, void *ctx,
                        const char *from, const char *in, bool has_ts, uint64_t ts, const char *out,
                        cf_pq_args *a)
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
    st = cf_parquet_writer_create_file(&w, out, cols, n, &a->o, &e);
    if (st != CF_OK) {
        rc = st == CF_EINVAL ? cf_cli_usage(c, "%s", e.msg) : cf_cli_lib_fail(c, out, st, &e);
        goto out;
    }
    cf_cli_progress p;
    cf_cli_progress_init(&p, c, a->progress, 0);
    uint64_t done = 0;
    for (;;) {
        cf_row_batch rb;
        if ((st = next(ctx, &rb, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, in, st, &e);
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
    cf_pq_source src = {"convert", from, inputs, 1, has_ts, ts, cols, n};
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
        rc = convert_rows(c, cf_table_schema(t), table_next, sc, "table", dir, has_ts, ts, out, a);
    cf_table_scanner_free(sc);
    cf_table_free(t);
    return rc;
}

static cf_status kudu_next(void *ctx, cf_row_batch *b, cf_error *err)
{
    return cf_kudu_scanner_next(ctx, b, err);
}

/* A Kudu tablet on a stopped server's disks (kudu.h), as `cfile kudu tablet scan`
 * reads it: DiskRowSets plus the WAL's ops not yet flushed (unless no_wal), at
 * hybrid time ts (ops with timestamps < ts) or the latest. */
static int convert_kudu(cf_cli *c, const cf_kudu_args *ka, const char *tablet, bool no_wal,
                        bool has_ts, uint64_t ts, const char *out, cf_pq_args *a)
{
    cf_kudu_fs *fs = NULL;
    cf_kudu_tablet *t = NULL;
    cf_kudu_scanner *sc = NULL;
    cf_error e;
    cf_status st;
    int rc = cf_kudu_args_open(c, ka, &fs);
    if (rc != 0)
        return rc;
    if ((st = cf_kudu_tablet_open(&t, fs, tablet, &e)) != CF_OK) {
        rc = cf_cli_lib_fail(c, tablet, st, &e);
        goto out;
    }
    cf_kudu_scan_options o;
    cf_kudu_scan_options_init(&o);
    o.no_wal = no_wal;
    if (has_ts)
        o.as_of = ts;
    if ((st = cf_kudu_scanner_create(&sc, t, &o, &e)) != CF_OK) {
        rc = cf_cli_lib_fail(c, tablet, st, &e);
        goto out;
    }
    rc = convert_rows(c, cf_kudu_tablet_schema(t), kudu_next, sc, "kudu", tablet, has_ts, ts, out,
                      a);
out:
    cf_kudu_scanner_free(sc);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    return rc;
}

/* A Kudu tablet into a new cfile table at `dir` (made, or an empty directory):
 * its schema, every row of the scan in one load commit (all or nothing), under
 * the table's lock (lock_ms). */
static int convert_kudu_table(cf_cli *c, const cf_kudu_args *ka, const char *tablet, bool no_wal,
                              bool has_ts, uint64_t ts, const char *dir, uint32_t lock_ms,
                              bool quiet, bool json)
{
    cf_kudu_fs *fs = NULL;
    cf_kudu_tablet *t = NULL;
    cf_kudu_scanner *sc = NULL;
    cf_table *tb = NULL;
    cf_table_loader *ld = NULL;
    cf_colvec *cv = NULL;
    cf_error e;
    cf_status st;
    uint64_t rows = 0;
    double t0 = cf_cli_now_s();
    int rc = cf_kudu_args_open(c, ka, &fs);
    if (rc != 0)
        return rc;
    if ((st = cf_kudu_tablet_open(&t, fs, tablet, &e)) != CF_OK) {
        rc = cf_cli_lib_fail(c, tablet, st, &e);
        goto out;
    }
    const cf_schema *s = cf_kudu_tablet_schema(t);
    size_t nc = cf_schema_column_count(s);
    cf_kudu_scan_options o;
    cf_kudu_scan_options_init(&o);
    o.no_wal = no_wal;
    if (has_ts)
        o.as_of = ts;
    if ((st = cf_kudu_scanner_create(&sc, t, &o, &e)) != CF_OK) {
        rc = cf_cli_lib_fail(c, tablet, st, &e);
        goto out;
    }
    cf_table_options to;
    cf_table_options_init(&to);
    to.lock_timeout_ms = lock_ms;
    if ((st = cf_rowset_create_empty(dir, s, &e)) != CF_OK ||
        (st = cf_table_open(&tb, dir, &to, &e)) != CF_OK ||
        (st = cf_table_loader_create(&ld, tb, NULL, &e)) != CF_OK) {
        rc = cf_cli_lib_fail(c, dir, st, &e);
        goto out;
    }
    cv = calloc(nc + 1, sizeof(*cv));
    if (cv == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    for (;;) {
        cf_row_batch b;
        if ((st = cf_kudu_scanner_next(sc, &b, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, tablet, st, &e);
            goto out;
        }
        if (b.count == 0)
            break;
        for (size_t j = 0; j < nc; j++) {
            cv[j].values = b.cols[j].values;
            cv[j].nonnull = b.cols[j].nonnull;
        }
        if ((st = cf_table_loader_append(ld, cv, b.count, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, dir, st, &e);
            goto out;
        }
        rows += b.count;
    }
    if ((st = cf_table_loader_commit(ld, &e)) != CF_OK) {
        rc = cf_cli_lib_fail(c, dir, st, &e);
        goto out;
    }
    if (json) {
        cf_jw j;
        cf_jw_init(&j, c->out);
        cf_jw_obj_begin(&j);
        cf_jw_key(&j, "op");
        cf_jw_cstr(&j, "convert");
        cf_jw_key(&j, "from");
        cf_jw_cstr(&j, "kudu");
        cf_jw_key(&j, "inputs");
        cf_jw_arr_begin(&j);
        cf_jw_cstr(&j, tablet);
        cf_jw_arr_end(&j);
        if (has_ts) {
            cf_jw_key(&j, "as_of");
            cf_jw_uint(&j, ts);
        }
        cf_jw_key(&j, "to");
        cf_jw_cstr(&j, "table");
        cf_jw_key(&j, "rows");
        cf_jw_uint(&j, rows);
        cf_jw_key(&j, "table");
        cf_jw_cstr(&j, dir);
        cf_jw_key(&j, "key");
        cf_jw_arr_begin(&j);
        for (size_t i = 0; i < cf_schema_key_count(s); i++)
            cf_jw_cstr(&j, cf_schema_column_at(s, i)->name);
        cf_jw_arr_end(&j);
        cf_jw_key(&j, "rowsets");
        cf_jw_uint(&j, cf_table_rowset_count(tb));
        cf_jw_obj_end(&j);
        cf_jw_newline(&j);
    } else if (!quiet) {
        fprintf(c->out, "wrote %" PRIu64 " rows of %zu column%s to %s in %.2f s\n", rows, nc,
                nc == 1 ? "" : "s", dir, cf_cli_now_s() - t0);
    }
out:
    cf_table_loader_free(ld); /* a load not committed leaves the table as it was */
    cf_table_free(tb);
    cf_kudu_scanner_free(sc);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    free(cv);
    return rc;
}

/* Name the tablet in a message already set (the CLI has no util/error.h). */
static cf_status cf_error_prefix_cli(cf_error *err, cf_status st, const char *tablet)
{
    if (err != NULL) {
        char m[sizeof(err->msg)];
        snprintf(m, sizeof(m), "tablet %.40s: %.200s", tablet, err->msg);
        memcpy(err->msg, m, sizeof(m));
    }
    return st;
}

/* ---- a Kudu table across servers: every tablet once, its most recent replica ---------------- */

typedef struct kt_replica {
    cf_kudu_tablet *t;
    size_t server;
    int64_t last_index; /* the highest op index in its WAL (-1: none) */
} kt_replica;

typedef struct kt_chain {
    kt_replica *r;
    size_t n, at;
    cf_kudu_scan_options o;
    cf_kudu_scanner *sc;
} kt_chain;

/* Tablet after tablet, each scanned whole, in tablet id order. */
static cf_status kt_next(void *ctx, cf_row_batch *b, cf_error *err)
{
    kt_chain *ch = ctx;
    for (;;) {
        if (ch->sc == NULL) {
            if (ch->at == ch->n) {
                memset(b, 0, sizeof(*b));
                return CF_OK;
            }
            cf_status st = cf_kudu_scanner_create(&ch->sc, ch->r[ch->at].t, &ch->o, err);
            if (st != CF_OK)
                return cf_error_prefix_cli(err, st, cf_kudu_tablet_id(ch->r[ch->at].t));
        }
        cf_status st = cf_kudu_scanner_next(ch->sc, b, err);
        if (st != CF_OK || b->count > 0)
            return st;
        cf_kudu_scanner_free(ch->sc);
        ch->sc = NULL;
        ch->at++;
    }
}

/* The highest op index of a tablet's WAL: how far the replica got. A replica with
 * no WAL (or one that does not read) counts as the least recent. */
static int64_t kt_last_index(const cf_kudu_fs *fs, const char *tablet)
{
    cf_kudu_wal *w = NULL;
    cf_error e;
    int64_t last = -1;
    if (cf_kudu_wal_open(&w, fs, tablet, &e) != CF_OK)
        return -1;
    for (size_t s = 0; s < cf_kudu_wal_segment_count(w); s++) {
        const cf_kudu_wal_segment *seg = cf_kudu_wal_segment_at(w, s);
        for (size_t i = 0; i < seg->nentries; i++) {
            const cf_kudu_wal_entry *en = cf_kudu_wal_entry_at(w, s, i);
            if (en->index > last)
                last = en->index;
        }
    }
    cf_kudu_wal_free(w);
    return last;
}

static int kt_cmp(const void *a, const void *b)
{
    const kt_replica *x = a, *y = b;
    return strcmp(cf_kudu_tablet_id(x->t), cf_kudu_tablet_id(y->t));
}

/* Every tablet of table `table` (its name, or its id) found on the servers, each
 * once: of several replicas the one whose WAL reaches the highest op index (the
 * first server given on a tie); tombstoned replicas (data state other than
 * TABLET_DATA_READY) are left out. The tablets must share one table id and schema. */
static int convert_kudu_tablets(cf_cli *c, cf_kudu_args *servers, size_t nservers,
                                const char *table, bool no_wal, bool has_ts, uint64_t ts,
                                const char *out, cf_pq_args *a)
{
    cf_kudu_fs **fs = calloc(nservers + 1, sizeof(*fs));
    kt_replica *r = NULL;
    size_t nr = 0, cap = 0;
    int rc = 0;
    cf_error e;
    cf_status st;
    const char *table_id = NULL;
    kt_chain ch;
    memset(&ch, 0, sizeof(ch));
    if (fs == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nservers && rc == 0; i++) {
        if ((rc = cf_kudu_args_open(c, &servers[i], &fs[i])) != 0)
            goto out;
        for (size_t k = 0; k < cf_kudu_fs_tablet_count(fs[i]); k++) {
            const char *id = cf_kudu_fs_tablet_at(fs[i], k);
            cf_kudu_tablet *t;
            if ((st = cf_kudu_tablet_open(&t, fs[i], id, &e)) != CF_OK) {
                rc = cf_cli_lib_fail(c, id, st, &e);
                goto out;
            }
            bool mine = strcmp(cf_kudu_tablet_table_name(t), table) == 0 ||
                        strcmp(cf_kudu_tablet_table_id(t), table) == 0;
            if (!mine || strcmp(cf_kudu_tablet_data_state(t), "TABLET_DATA_READY") != 0) {
                cf_kudu_tablet_free(t);
                continue;
            }
            if (table_id != NULL && strcmp(table_id, cf_kudu_tablet_table_id(t)) != 0) {
                rc =
                    cf_cli_fail(c, "table %s: tablets of two tables (ids %s and %s): name it by id",
                                table, table_id, cf_kudu_tablet_table_id(t));
                cf_kudu_tablet_free(t);
                goto out;
            }
            int64_t last = kt_last_index(fs[i], id);
            size_t j = 0;
            while (j < nr && strcmp(cf_kudu_tablet_id(r[j].t), id) != 0)
                j++;
            if (j < nr) { /* another replica: keep the more recent */
                if (last > r[j].last_index) {
                    cf_kudu_tablet_free(r[j].t);
                    r[j] = (kt_replica){t, i, last};
                } else {
                    cf_kudu_tablet_free(t);
                }
                continue;
            }
            if (nr == cap) {
                cap = cap ? cap * 2 : 16;
                kt_replica *nrp = realloc(r, cap * sizeof(*nrp));
                if (nrp == NULL) {
                    cf_kudu_tablet_free(t);
                    rc = cf_cli_fail(c, "out of memory");
                    goto out;
                }
                r = nrp;
            }
            r[nr++] = (kt_replica){t, i, last};
            table_id = cf_kudu_tablet_table_id(t);
        }
    }
    if (nr == 0) {
        rc = cf_cli_fail(c, "table %s: no tablet of it on the servers given", table);
        goto out;
    }
    qsort(r, nr, sizeof(*r), kt_cmp);
    const cf_schema *s = cf_kudu_tablet_schema(r[0].t);
    char *s0 = cf_cli_schema_text(s);
    for (size_t j = 1; j < nr && rc == 0 && s0 != NULL; j++) {
        char *sj = cf_cli_schema_text(cf_kudu_tablet_schema(r[j].t));
        if (sj == NULL || strcmp(s0, sj) != 0)
            rc = cf_cli_fail(c,
                             "table %s: tablets %s and %s have different schemas (an "
                             "alter in between): export them one by one",
                             table, cf_kudu_tablet_id(r[0].t), cf_kudu_tablet_id(r[j].t));
        free(sj);
    }
    free(s0);
    if (rc != 0)
        goto out;
    for (size_t j = 0; j < nr && !a->quiet && !a->json; j++)
        fprintf(c->err, "tablet %s: server %zu (%s)%s\n", cf_kudu_tablet_id(r[j].t),
                r[j].server + 1, servers[r[j].server].wal_dir,
                r[j].last_index >= 0 ? "" : ", no WAL");
    ch.r = r;
    ch.n = nr;
    cf_kudu_scan_options_init(&ch.o);
    ch.o.no_wal = no_wal;
    if (has_ts)
        ch.o.as_of = ts;
    rc = convert_rows(c, s, kt_next, &ch, "kudu", table, has_ts, ts, out, a);
out:
    cf_kudu_scanner_free(ch.sc);
    for (size_t j = 0; j < nr; j++)
        cf_kudu_tablet_free(r[j].t);
    free(r);
    for (size_t i = 0; fs != NULL && i < nservers; i++)
        cf_kudu_fs_free(fs[i]);
    free(fs);
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
        {"no-wal", no_argument, NULL, O_NO_WAL},
        {"kudu-table", required_argument, NULL, O_KUDU_TABLE},
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
    /* A Kudu tablet IN: --kudu-tablet ID and the server's directories. */
    const char *kudu_tablet = NULL, *kudu_opt = NULL, *kudu_table = NULL;
    bool no_wal = false;
    cf_kudu_args ka;
    cf_kudu_args_init(&ka);
    /* --kudu-server WAL_DIR[:DATA_DIR,...], one per server (its own copy of the text) */
    cf_kudu_args *servers = NULL;
    char **server_text = NULL;
    size_t nservers = 0;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (ch == O_KUDU_TABLET || ch == O_NO_WAL || ch == O_KUDU_TABLE) {
            if (ch == O_KUDU_TABLET)
                kudu_tablet = optarg;
            else if (ch == O_KUDU_TABLE)
                kudu_table = optarg;
            else
                no_wal = true;
            continue;
        }
        if (ch == O_KUDU_SERVER) {
            cf_kudu_args *ns = realloc(servers, (nservers + 1) * sizeof(*ns));
            char **nt = ns != NULL ? realloc(server_text, (nservers + 1) * sizeof(*nt)) : NULL;
            if (ns != NULL)
                servers = ns;
            if (nt != NULL)
                server_text = nt;
            char *txt = nt != NULL ? strdup(optarg) : NULL;
            if (txt == NULL) {
                rc = cf_cli_fail(c, "out of memory");
                break;
            }
            cf_kudu_args_init(&servers[nservers]);
            server_text[nservers] = txt;
            nservers++;
            char *colon = strchr(txt, ':');
            if (colon != NULL)
                *colon = '\0';
            if ((rc = cf_kudu_args_option(c, &servers[nservers - 1], CF_KUDU_OPT_WAL, txt)) != 0 ||
                (colon != NULL && (rc = cf_kudu_args_option(c, &servers[nservers - 1],
                                                            CF_KUDU_OPT_DATA, colon + 1)) != 0))
                break;
            continue;
        }
        int krc = cf_kudu_args_option(c, &ka, ch, optarg);
        if (krc == 0) {
            if (kudu_opt == NULL)
                kudu_opt = argv[optind - 1];
            continue;
        }
        if (krc > 0) {
            cf_kudu_args_free(&ka);
            cf_pq_args_dispose(&a);
            free_list(pa.columns, pa.ncolumns);
            free_list(pa.keys, pa.nkeys);
            return krc;
        }
        if (ch == O_HELP) {
            cf_pq_args_dispose(&a);
            free_list(pa.columns, pa.ncolumns);
            free_list(pa.keys, pa.nkeys);
            return cf_cli_help(c);
        }
        if (ch == O_AS_OF) {
            if (cf_cli_parse_u64(optarg, &ts) != 0 || ts == UINT64_MAX) {
                cf_pq_args_dispose(&a);
                free_list(pa.columns, pa.ncolumns);
                free_list(pa.keys, pa.nkeys);
                return cf_cli_usage(c, "--as-of: expected a timestamp, got '%s'", optarg);
            }
            has_ts = true;
        } else if (ch == O_NAME) {
            name = optarg;
        } else if (ch == O_TO || ch == O_COLUMN || ch == O_KEY || ch == O_TS ||
                   ch == O_LOCK_TIMEOUT) {
            if (reader_opt == NULL)
                reader_opt = argv[optind - 1];
            if ((rc = pq_in_option(c, &pa, &to, ch, optarg)) != 0) {
                cf_pq_args_dispose(&a);
                free_list(pa.columns, pa.ncolumns);
                free_list(pa.keys, pa.nkeys);
                return rc;
            }
        } else if ((rc = cf_pq_option(c, &a, ch, optarg)) != 0) {
            cf_pq_args_dispose(&a);
            free_list(pa.columns, pa.ncolumns);
            free_list(pa.keys, pa.nkeys);
            return rc == 1 ? cf_cli_bad_option(c, argv) : rc;
        } else if (ch != O_PROGRESS && ch != O_QUIET && ch != O_JSON && writer_opt == NULL) {
            writer_opt = argv[optind - 1];
        }
    }
    int nin = argc - optind - 1;
    if (rc == 0 && (kudu_table != NULL || nservers > 0)) {
        const char *out = argc - optind == 1 ? argv[optind] : NULL;
        if (kudu_table == NULL)
            rc = cf_cli_usage(c, "--kudu-server is for a Kudu table IN (--kudu-table NAME)");
        else if (kudu_tablet != NULL)
            rc = cf_cli_usage(c, "--kudu-table or --kudu-tablet, not both");
        else if (nservers > 0 && kudu_opt != NULL)
            rc = cf_cli_usage(c, "%s with --kudu-server: give every server as --kudu-server",
                              kudu_opt);
        else if (nservers == 0 && kudu_opt == NULL)
            rc = cf_cli_usage(c, "--kudu-table needs the servers: --kudu-server, or --fs-wal-dir");
        else if (out == NULL || !cf_cli_ends_with(out, ".parquet"))
            rc = cf_cli_usage(c, "--kudu-table takes OUT.parquet alone (no IN)");
        else if (reader_opt != NULL || name != NULL)
            rc = cf_cli_usage(c, "%s is not for a Kudu table",
                              reader_opt != NULL ? reader_opt : "--name");
        else if (nservers > 0)
            rc =
                convert_kudu_tablets(c, servers, nservers, kudu_table, no_wal, has_ts, ts, out, &a);
        else
            rc = convert_kudu_tablets(c, &ka, 1, kudu_table, no_wal, has_ts, ts, out, &a);
    }
    if (rc != 0 || kudu_table != NULL || nservers > 0) {
        for (size_t i = 0; i < nservers; i++) {
            cf_kudu_args_free(&servers[i]);
            free(server_text[i]);
        }
        free(servers);
        free(server_text);
        cf_kudu_args_free(&ka);
        cf_pq_args_dispose(&a);
        free_list(pa.columns, pa.ncolumns);
        free_list(pa.keys, pa.nkeys);
        return rc;
    }
    free(servers);
    free(server_text);
    if (kudu_tablet != NULL || kudu_opt != NULL || no_wal) {
        const char *out = argc - optind == 1 ? argv[optind] : NULL;
        if (kudu_tablet == NULL)
            rc = cf_cli_usage(c, "%s is for a Kudu tablet IN (--kudu-tablet ID)",
                              kudu_opt != NULL ? kudu_opt : "--no-wal");
        else if (out == NULL)
            rc = cf_cli_usage(c,
                              "--kudu-tablet takes OUT alone (no IN), got %d "
                              "arguments",
                              argc - optind);
        else if (to != NULL && strcmp(to, "table") == 0) {
            /* A Kudu tablet into a cfile table: --to table and its own options. */
            if (writer_opt != NULL || name != NULL || pa.ncolumns || pa.nkeys || pa.has_ts)
                rc = cf_cli_usage(c, "%s is not for a Kudu tablet --to table",
                                  writer_opt != NULL ? writer_opt
                                  : name != NULL     ? "--name"
                                  : pa.ncolumns      ? "--column"
                                  : pa.nkeys         ? "--key"
                                                     : "--ts");
            else
                rc = convert_kudu_table(c, &ka, kudu_tablet, no_wal, has_ts, ts, out, pa.lock_ms,
                                        a.quiet, a.json);
        } else if (!cf_cli_ends_with(out, ".parquet"))
            rc = cf_cli_usage(c, "OUT: a Kudu tablet is converted to a .parquet file, or to a "
                                 "table with --to table");
        else if (reader_opt != NULL || name != NULL)
            rc = cf_cli_usage(c, "%s is not for a Kudu tablet",
                              reader_opt != NULL ? reader_opt : "--name");
        else
            rc = convert_kudu(c, &ka, kudu_tablet, no_wal, has_ts, ts, out, &a);
        cf_kudu_args_free(&ka);
        cf_pq_args_dispose(&a);
        free_list(pa.columns, pa.ncolumns);
        free_list(pa.keys, pa.nkeys);
        return rc;
    }
    if (nin < 1) {
        cf_pq_args_dispose(&a);
        free_list(pa.columns, pa.ncolumns);
        free_list(pa.keys, pa.nkeys);
        return cf_cli_usage(c, argc == optind ? "missing IN and OUT" : "missing OUT");
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
        cf_pq_args_dispose(&a);
        free_list(pa.columns, pa.ncolumns);
        free_list(pa.keys, pa.nkeys);
        return rc;
    }
    if (reader_opt != NULL) {
        cf_pq_args_dispose(&a);
        free_list(pa.columns, pa.ncolumns);
        free_list(pa.keys, pa.nkeys);
        return cf_cli_usage(c, "%s is for a Parquet IN", reader_opt);
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
    cf_pq_args_dispose(&a);
    return rc;
}
