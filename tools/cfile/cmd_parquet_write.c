/* `cfile parquet write`: CSV or JSON lines with a schema -> Parquet. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfile/parquet.h>
#include <cfile/rowset.h>

#include "cli.h"
#include "convert.h"
#include "csv.h"
#include "pq_kudu.h"
#include "pq_write_args.h"

const char cf_cmd_parquet_write_usage[] =
    "usage: cfile parquet write --schema SCHEMA [options] [--input IN] OUT\n"
    "\n"
    "Write OUT as an Apache Parquet file from rows on stdin (or IN): JSON lines of\n"
    "{\"column\": value, ...} objects (value forms as `cfile dump`; a missing member\n"
    "is NULL) or CSV with a header row naming the columns (as `cfile table import`).\n"
    "SCHEMA as `cfile table create` takes it, e.g. \"id INT64, name STRING NULL,\n"
    "tags INT32[] NULL, price DECIMAL64(10,2)\" (KEY and the CFile attributes are\n"
    "accepted and ignored); a column name that is not [A-Za-z_][A-Za-z0-9_]* in\n"
    "backquotes (\"`my-col` INT64, `a b` STRING\"), written to the file as it is.\n"
    "OUT is created atomically; errors name the line. Values as `cfile table import`\n"
    "reads them: DATE also as 2024-01-02, UNIXTIME_MICROS as\n"
    "2024-01-02T03:04:05.000006Z, DECIMAL(p,s) as 12.34 (`cfile table --help`).\n"
    "\n"
    "Types: INT8..INT64 and UINT8..UINT64 as INT(bits, signed) on INT32/INT64,\n"
    "DECIMAL32/64/128 as DECIMAL on INT32/INT64/FIXED_LEN_BYTE_ARRAY(16), DATE,\n"
    "UNIXTIME_MICROS as TIMESTAMP(MICROS, UTC), STRING/VARCHAR as STRING, BINARY,\n"
    "BOOL, FLOAT, DOUBLE, INT128 as FIXED_LEN_BYTE_ARRAY(16); arrays as 3-level\n"
    "LISTs; NULL columns OPTIONAL, the others REQUIRED.\n"
    "\n"
    "  --schema SCHEMA         the columns (required)\n"
    "  --input IN              read IN instead of stdin\n"
    "  --format jsonl|csv      input format (default: csv when IN ends in .csv)\n" PQ_OPTIONS_HELP
    "  --help                  this text\n"
    "\n"
    "--json prints one compact JSON document instead of the summary line:\n"
    "{\"op\": \"write\", \"from\": \"jsonl\"|\"csv\", \"inputs\": [IN or \"-\"], \"to\":\n"
    "\"parquet\", \"file\", \"rows\", \"row_groups\", \"columns\": [{\"name\", \"type\",\n"
    "\"is_array\", \"nullable\", \"bloom_filter\"}], \"codec\", \"bytes\"}, as\n"
    "`cfile convert --json` prints it for a Parquet OUT.\n";

/* ---- cfile parquet write ------------------------------------------------------------------ */

int cf_cmd_parquet_write(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        PQ_LONG_OPTIONS,
        {"schema", required_argument, NULL, O_SCHEMA},
        {"input", required_argument, NULL, O_INPUT},
        {"format", required_argument, NULL, O_FORMAT},
        {NULL, 0, NULL, 0},
    };
    cf_cli sub = cf_cli_sub(c, "parquet write", cf_cmd_parquet_write_usage);
    c = &sub;
    cf_pq_args a;
    cf_pq_args_init(&a);
    const char *schema = NULL, *input = "-", *format = NULL;
    int ch, rc = 0;
    cf_cli_getopt_reset();
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (ch == O_HELP) {
            cf_pq_args_dispose(&a);
            return cf_cli_help(c);
        }
        if (ch == O_SCHEMA)
            schema = optarg;
        else if (ch == O_INPUT)
            input = optarg;
        else if (ch == O_FORMAT)
            format = optarg;
        else if ((rc = cf_pq_option(c, &a, ch, optarg)) != 0) {
            cf_pq_args_dispose(&a);
            return rc == 1 ? cf_cli_bad_option(c, argv) : rc;
        }
    }
    cf_schema *s = NULL;
    cf_parquet_write_column *cols = NULL;
    cf_parquet_writer *w = NULL;
    FILE *in = NULL;
    cf_error e;
    if (schema == NULL) {
        rc = cf_cli_usage(c, "missing --schema");
        goto out;
    }
    if (argc - optind != 1) {
        rc = cf_cli_usage(c, argc == optind ? "missing OUT" : "expected one OUT");
        goto out;
    }
    bool jsonl = !cf_cli_ends_with(input, ".csv");
    if (format != NULL) {
        if (strcmp(format, "csv") != 0 && strcmp(format, "jsonl") != 0) {
            rc = cf_cli_usage(c, "--format: expected csv or jsonl, got '%s'", format);
            goto out;
        }
        jsonl = format[0] == 'j';
    }
    const char *out = argv[optind];
    cf_status st = cf_schema_parse_columns(&s, schema, &e);
    if (st != CF_OK) {
        rc = cf_cli_usage(c, "--schema: %s", e.msg);
        goto out;
    }
    if ((rc = cf_pq_columns_of(c, s, &cols)) != 0)
        goto out;
    size_t n = cf_schema_column_count(s);
    if ((rc = cf_pq_apply_bloom(c, &a, cols, n)) != 0 ||
        (rc = cf_pq_kudu_types(c, &a, cols, s, n)) != 0)
        goto out;
    in = cf_cli_fopen_input(input);
    if (in == NULL) {
        rc = cf_cli_fail(c, "%s: %s", input, strerror(errno));
        goto out;
    }
    double t0 = cf_cli_now_s();
    if ((rc = cf_pq_writer_create(c, &a, out, cols, n, &w)) != 0)
        goto out;
    cf_cli_progress p;
    cf_cli_progress_init(&p, c, a.progress, 0);
    uint64_t rows;
    rc = cf_cli_rows_to_parquet(c, input, in, jsonl, a.o.threads, s, w, cf_cli_progress_cb, &p,
                                &rows);
    cf_cli_progress_end(&p);
    if (rc == 0) {
        char *inputs[] = {(char *)input};
        cf_pq_source src = {"write", jsonl ? "jsonl" : "csv", inputs, 1, false, 0, cols, n, NULL,
                            NULL};
        rc = cf_pq_finish_writer(c, out, w, &a, &src, t0);
    }
out:
    cf_parquet_writer_free(w); /* after a failure: nothing appears at OUT */
    if (in != NULL)
        cf_cli_fclose_input(in);
    free(cols);
    cf_schema_free(s);
    cf_pq_args_dispose(&a);
    return rc;
}
