/* Values as people write them, end to end (issue 30 items 4 and 6):
 * - FLOAT/DOUBLE text that does not survive the conversion (not zero but read
 *   as zero, or as a subnormal other than by its shortest text) is refused
 *   naming the line and column, by `write`, `table import`, `table insert`,
 *   `table update` and `parquet write`, from CSV and JSON lines; the texts that
 *   do survive (the golden files' 5e-324, what cfile prints) are kept exactly;
 * - DATE 2024-01-02, UNIXTIME_MICROS 2024-01-02T03:04:05.000006Z and DECIMAL
 *   12.34 on input everywhere a value is parsed (CSV, JSON lines, --row, --set,
 *   KEY, --key, --where) beside the integer forms, printed so by text and csv
 *   (`table scan/get`, `dump`, `head`), as integers with --raw-values and by
 *   --json; what `scan --format csv` prints imports back to the same values. */
/* cf-needs: tables parquet */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "support_cli.h"
#include "test_common.h"

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* ---- item 4: underflow ------------------------------------------------------------------- */

/* One refused text of type t (FLOAT or DOUBLE) through every writer and both
 * input formats; `why` is the message after "T: text ". Nothing is written. */
static void refused_everywhere(const char *t, const char *text, const char *why)
{
    char schema[64], want[256], row[64], csv_text[128], jsonl_text[128];
    snprintf(schema, sizeof schema, "id INT64 KEY, f %s NULL", t);
    snprintf(csv_text, sizeof csv_text, "id,f\n1,1.5\n2,%s\n", text);
    snprintf(jsonl_text, sizeof jsonl_text, "{\"id\":1,\"f\":1.5}\n{\"id\":2,\"f\":%s}\n", text);
    char *csv = cli_dir_path("u.csv"), *jsonl = cli_dir_path("u.jsonl");
    write_str(csv, csv_text);
    write_str(jsonl, jsonl_text);
    run r;

    /* cfile write: one value per line */
    char *col_csv = cli_dir_path("c.csv"), *col_jsonl = cli_dir_path("c.jsonl");
    char one[64];
    snprintf(one, sizeof one, "1.5\n%s\n", text);
    write_str(col_csv, one);
    write_str(col_jsonl, one);
    char *out = cli_dir_path("out.cfile");
    cli(&r, "write", "--type", t, col_csv, out, NULL);
    snprintf(want, sizeof want, "c.csv: line 2, column 1: %s: %s %s", t, text, why);
    cli_err(&r, CF_EXIT_FAIL, want);
    cli(&r, "write", "--type", t, col_jsonl, out, NULL);
    snprintf(want, sizeof want, "c.jsonl: line 2: %s: %s %s", t, text, why);
    cli_err(&r, CF_EXIT_FAIL, want);
    assert_false(exists(out));

    /* table import into a new table and into one with a row */
    char *dir = cli_dir_path("t");
    cli(&r, "table", "import", dir, "--schema", schema, csv, NULL);
    snprintf(want, sizeof want, "u.csv: line 3, column 3 ('f'): %s: %s %s", t, text, why);
    cli_err(&r, CF_EXIT_FAIL, want);
    assert_false(exists(dir));
    cli(&r, "table", "import", dir, "--schema", schema, jsonl, NULL);
    snprintf(want, sizeof want, "u.jsonl: line 2, column 'f': %s: %s %s", t, text, why);
    cli_err(&r, CF_EXIT_FAIL, want);
    assert_false(exists(dir));
    cli_table_create(dir, schema);
    cli(&r, "table", "import", dir, csv, NULL);
    snprintf(want, sizeof want, "u.csv: line 3, column 3 ('f'): %s: %s %s", t, text, why);
    cli_err(&r, CF_EXIT_FAIL, want);

    /* table insert and update */
    snprintf(row, sizeof row, "id=3,f=%s", text);
    cli(&r, "table", "insert", dir, "--row", row, NULL);
    snprintf(want, sizeof want, "--row: column 'f': %s: %s %s", t, text, why);
    cli_err(&r, CF_EXIT_USAGE, want);
    cli(&r, "table", "insert", dir, "--row", "id=3,f=2.5", NULL);
    cli_rc(&r, 0);
    snprintf(row, sizeof row, "f=%s", text);
    cli(&r, "table", "update", dir, "--key", "3", "--set", row, NULL);
    snprintf(want, sizeof want, "--set: column 'f': %s: %s %s", t, text, why);
    cli_err(&r, CF_EXIT_USAGE, want);
    cli_prints("{\"id\":3,\"f\":2.5}\n", "table", "scan", dir, "--json", NULL);

    /* parquet write */
    char *pq = cli_dir_path("u.parquet");
    CLI(&r, "parquet", "write", "--schema", schema, "--input", csv, pq);
    snprintf(want, sizeof want, "u.csv: line 3, column 3 ('f'): %s: %s %s", t, text, why);
    cli_err(&r, CF_EXIT_FAIL, want);
    CLI(&r, "parquet", "write", "--schema", schema, "--input", jsonl, pq);
    snprintf(want, sizeof want, "u.jsonl: line 2, column 'f': %s: %s %s", t, text, why);
    cli_err(&r, CF_EXIT_FAIL, want);
    assert_false(exists(pq));

    CLI(&r, "table", "delete", dir, "--key", "3");
    cli_rc(&r, 0);
    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    assert_int_equal(system(rm), 0);
}

/* Before: 1e-50 imported into a FLOAT column was stored as 0.0 with exit 0. */
static void test_cli_values__underflow_refused(void **state)
{
    (void)state;
    refused_everywhere("FLOAT", "1e-50", "is too small: it would be stored as 0.0 (underflow)");
    refused_everywhere("FLOAT", "-1e-46", "is too small: it would be stored as -0.0 (underflow)");
    refused_everywhere("DOUBLE", "1e-400", "is too small: it would be stored as 0.0 (underflow)");
    refused_everywhere("DOUBLE", "2.4e-324", "is too small");
    /* A subnormal that would change the number: the smallest FLOAT is 1.4e-45. */
    refused_everywhere("FLOAT", "2e-45",
                       "is below the normal range and would be stored as 1e-45 (write that, "
                       "or the bits as 0x...)");
    refused_everywhere("DOUBLE", "3e-324",
                       "is below the normal range and would be stored as 5e-324");
    refused_everywhere("DOUBLE", "1.0000000000000001e-310",
                       "is below the normal range and would be stored as 1e-310");
}

/* Texts that survive are kept exactly: zeros, the normal range, and subnormals
 * written as their shortest text (the golden files' 5e-324 and
 * 1.401298464324817e-45) or as cfile prints them; and what is kept prints back. */
static void test_cli_values__survivors_kept(void **state)
{
    (void)state;
    char *csv = cli_dir_path("k.csv"), *dir = cli_dir_path("k");
    write_str(csv, "id,f,d\n"
                   "1,0e-999,-0.0\n"
                   "2,1e-45,5e-324\n"
                   "3,1.401298464324817e-45,4.94065645841247e-324\n"
                   "4,1.4013e-45,2.2250738585072014e-308\n"
                   "5,1e-40,1e-310\n"
                   "6,1.5,0x0000000000000001\n");
    run r;
    cli(&r, "table", "import", dir, "--schema", "id INT64 KEY, f FLOAT, d DOUBLE", csv, NULL);
    cli_rc(&r, 0);
    cli_prints("f,d\n"
               "0.0,-0.0\n"
               "1.4013e-45,4.94065645841247e-324\n"
               "1.4013e-45,4.94065645841247e-324\n"
               "1.4013e-45,2.2250738585072014e-308\n"
               "9.99995e-41,9.99999999999997e-311\n"
               "1.5,4.94065645841247e-324\n",
               "table", "scan", dir, "--format", "csv", "--columns", "f,d", NULL);
    /* What scan printed imports again to the same values. */
    char *back = cli_dir_path("back.csv"), *dir2 = cli_dir_path("k2");
    cli(&r, "table", "scan", dir, "--format", "csv", NULL);
    EXPECT_RC(r, 0);
    write_str(back, r.out);
    done(&r);
    cli(&r, "table", "import", dir2, "--schema", "id INT64 KEY, f FLOAT, d DOUBLE", back, NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "scan", dir, "--json", NULL);
    EXPECT_RC(r, 0);
    run r2;
    cli(&r2, "table", "scan", dir2, "--json", NULL);
    EXPECT_RC(r2, 0);
    assert_string_equal(r.out, r2.out);
    done(&r);
    done(&r2);
}

/* ---- item 6: human forms ------------------------------------------------------------------ */

#define HSCHEMA                                                                                    \
    "id INT64 KEY, d DATE NULL, ts UNIXTIME_MICROS NULL, p DECIMAL64(18,2) NULL, "                 \
    "q DECIMAL32(4,1) NULL, w DECIMAL128(38,10) NULL"

static void test_cli_values__table_human_forms(void **state)
{
    (void)state;
    char *csv = cli_dir_path("h.csv"), *dir = cli_dir_path("h");
    /* Human forms, the integer forms, zones, a space for 'T', short fractions. */
    write_str(csv, "id,d,ts,p,q,w\n"
                   "1,2024-01-02,2024-01-02T03:04:05.000006Z,12.34,-999.9,"
                   "-1234567890123456789012345678.0123456789\n"
                   "2,19724,1704164645000006,1234,5,12\n"
                   "3,0001-01-01,2024-01-02 04:04:05.5+01:00,-0.05,.5,0\n"
                   "4,9999-12-31,1969-12-31T23:59:59.999999,7,,\n"
                   "5,,,,,\n");
    run r;
    cli(&r, "table", "import", dir, "--schema", HSCHEMA, csv, NULL);
    cli_rc(&r, 0);
    /* --json keeps the golden value forms: days, microseconds, unscaled integers. */
    const char *json =
        "{\"id\":1,\"d\":19724,\"ts\":1704164645000006,\"p\":1234,\"q\":-9999,"
        "\"w\":\"-12345678901234567890123456780123456789\"}\n"
        "{\"id\":2,\"d\":19724,\"ts\":1704164645000006,\"p\":1234,\"q\":5,\"w\":\"12\"}\n"
        "{\"id\":3,\"d\":-719162,\"ts\":1704164645500000,\"p\":-5,\"q\":5,\"w\":\"0\"}\n"
        "{\"id\":4,\"d\":2932896,\"ts\":-1,\"p\":7,\"q\":null,\"w\":null}\n"
        "{\"id\":5,\"d\":null,\"ts\":null,\"p\":null,\"q\":null,\"w\":null}\n";
    cli_prints(json, "table", "scan", dir, "--json", NULL);
    /* csv and text: the human forms. */
    const char *csv_out = "id,d,ts,p,q,w\n"
                          "1,2024-01-02,2024-01-02T03:04:05.000006Z,12.34,-999.9,"
                          "-1234567890123456789012345678.0123456789\n"
                          "2,2024-01-02,2024-01-02T03:04:05.000006Z,12.34,0.5,0.0000000012\n"
                          "3,0001-01-01,2024-01-02T03:04:05.500000Z,-0.05,0.5,0.0000000000\n"
                          "4,9999-12-31,1969-12-31T23:59:59.999999Z,0.07,,\n"
                          "5,,,,,\n";
    cli_prints(csv_out, "table", "scan", dir, "--format", "csv", NULL);
    cli_prints("id | d          | ts                          | p    \n"
               "---+------------+-----------------------------+------\n"
               "1  | 2024-01-02 | 2024-01-02T03:04:05.000006Z | 12.34\n"
               "2  | 2024-01-02 | 2024-01-02T03:04:05.000006Z | 12.34\n",
               "table", "scan", dir, "--columns", "id,d,ts,p", "--limit", "2", NULL);
    cli(&r, "head", "-n", "1", "--format", "csv", dir, NULL);
    cli_out_is(&r, 0,
               "id,d,ts,p,q,w\n1,2024-01-02,2024-01-02T03:04:05.000006Z,12.34,-999.9,"
               "-1234567890123456789012345678.0123456789\n");
    /* --raw-values: the integers, in text and csv, scan, get and head alike. */
    cli_prints("d,ts,p,q\n19724,1704164645000006,1234,-9999\n19724,1704164645000006,1234,5\n"
               "-719162,1704164645500000,-5,5\n2932896,-1,7,\n,,,\n",
               "table", "scan", dir, "--format", "csv", "--raw-values", "--columns", "d,ts,p,q",
               NULL);
    cli(&r, "table", "get", dir, "--raw-values", "4", NULL);
    cli_out_is(&r, 0,
               "id | d       | ts | p | q    | w   \n"
               "---+---------+----+---+------+-----\n"
               "4  | 2932896 | -1 | 7 | NULL | NULL\n");
    cli(&r, "head", "--raw-values", "-n", "1", "--format", "csv", dir, NULL);
    cli_out_is(&r, 0,
               "id,d,ts,p,q,w\n1,19724,1704164645000006,1234,-9999,"
               "-12345678901234567890123456780123456789\n");
    cli(&r, "table", "get", dir, "--format", "csv", "3", NULL);
    cli_out_is(&r, 0,
               "id,d,ts,p,q,w\n3,0001-01-01,2024-01-02T03:04:05.500000Z,-0.05,0.5,"
               "0.0000000000\n");

    /* What csv printed imports back to the same values, in either style. */
    char *back = cli_dir_path("back.csv"), *dir2 = cli_dir_path("h2"), *dir3 = cli_dir_path("h3");
    write_str(back, csv_out);
    cli(&r, "table", "import", dir2, "--schema", HSCHEMA, back, NULL);
    cli_rc(&r, 0);
    cli_prints(json, "table", "scan", dir2, "--json", NULL);
    cli(&r, "table", "scan", dir, "--format", "csv", "--raw-values", NULL);
    EXPECT_RC(r, 0);
    write_str(back, r.out);
    done(&r);
    cli(&r, "table", "import", dir3, "--schema", HSCHEMA, back, NULL);
    cli_rc(&r, 0);
    cli_prints(json, "table", "scan", dir3, "--json", NULL);

    /* JSON lines take the human forms as strings, and a decimal as a number. */
    char *jl = cli_dir_path("h.jsonl"), *dir4 = cli_dir_path("h4");
    write_str(jl,
              "{\"id\":1,\"d\":\"2024-01-02\",\"ts\":\"2024-01-02T03:04:05.000006Z\","
              "\"p\":12.34,\"q\":\"-999.9\",\"w\":\"-1234567890123456789012345678.0123456789\"}\n"
              "{\"id\":2,\"d\":19724,\"ts\":1704164645000006,\"p\":1234,\"q\":5,\"w\":12}\n");
    cli(&r, "table", "import", dir4, "--schema", HSCHEMA, jl, NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "scan", dir4, "--json", NULL);
    EXPECT_RC(r, 0);
    assert_true(strncmp(r.out, json, strlen(r.out)) == 0); /* the first two rows */
    done(&r);
}

/* --row, --set, KEY, --key and --where take the human forms too, with a DATE
 * and a DECIMAL in the key. */
static void test_cli_values__options_human_forms(void **state)
{
    (void)state;
    char *dir = cli_dir_path("o");
    run r;
    CLI(&r, "table", "create", dir, "--schema",
        "day DATE KEY, price DECIMAL64(10,2) KEY, at UNIXTIME_MICROS NULL, n INT32 NULL");
    cli_rc(&r, 0);
    CLI(&r, "table", "insert", dir, "--row",
        "day=2024-02-29,price=12.5,at=2024-02-29T12:00:00Z,n=1");
    cli_rc(&r, 0);
    CLI(&r, "table", "insert", dir, "--row", "day=19782,price=99,at=1709208000000000,n=2");
    cli_rc(&r, 0);
    CLI(&r, "table", "update", dir, "--key", "2024-02-29,12.50", "--set",
        "at=2024-02-29 13:00:00-01:00,n=3");
    cli_rc(&r, 0);
    CLI(&r, "table", "get", dir, "--format", "csv", "2024-02-29,12.5", "19782,0.99");
    cli_out_is(&r, 0,
               "day,price,at,n\n2024-02-29,12.50,2024-02-29T14:00:00Z,3\n"
               "2024-02-29,0.99,2024-02-29T12:00:00Z,2\n");
    CLI(&r, "table", "get", dir, "--format", "csv", "--key", "2024-02-29,0.99");
    cli_out_is(&r, 0, "day,price,at,n\n2024-02-29,0.99,2024-02-29T12:00:00Z,2\n");
    cli_prints("day,price,at,n\n2024-02-29,12.50,2024-02-29T14:00:00Z,3\n", "table", "scan", dir,
               "--format", "csv", "--where",
               "price >= 1.00 AND at > 2024-02-29T13:59:59.999999Z AND day = 2024-02-29", NULL);
    CLI(&r, "table", "delete", dir, "--key", "2024-02-29,0.99");
    cli_rc(&r, 0);
    cli_prints("{\"price\":1250}\n", "table", "scan", dir, "--json", "--columns", "price", NULL);

    /* Bad human forms: usage errors naming the column and what is wrong. */
    CLI(&r, "table", "insert", dir, "--row", "day=2024-02-30,price=1");
    cli_err(&r, CF_EXIT_USAGE, "column 'day': DATE: 2024-02-30: 2024-02 has no day 30");
    CLI(&r, "table", "insert", dir, "--row", "day=2024-01-01,price=1.234");
    cli_err(&r, CF_EXIT_USAGE,
            "column 'price': DECIMAL64: 1.234 has more than 2 digits after the point (a "
            "decimal is never rounded)");
    CLI(&r, "table", "insert", dir, "--row", "day=2024-01-01,price=123456789.00");
    cli_err(&r, CF_EXIT_USAGE,
            "DECIMAL64: 123456789.00 has more than the 10 digits of DECIMAL(10,2)");
    /* The unscaled integer form too: 11 digits are no DECIMAL(10,2) (and 12.34's
     * printed form of such a value would not read back). */
    CLI(&r, "table", "insert", dir, "--row", "day=2024-01-01,price=12345678901");
    cli_err(&r, CF_EXIT_USAGE,
            "DECIMAL64: 12345678901 has more than the 10 digits of DECIMAL(10,2)");
    CLI(&r, "table", "insert", dir, "--row",
        "day=2024-01-01,price=1,at=2024-01-01T00:00:00.0000001Z");
    cli_err(&r, CF_EXIT_USAGE,
            "column 'at': UNIXTIME_MICROS: 2024-01-01T00:00:00.0000001Z: a fraction finer "
            "than microseconds");
    CLI(&r, "table", "scan", dir, "--where", "day > 0000-01-01");
    cli_err(&r, CF_EXIT_USAGE, "DATE: 0000-01-01 is out of range");
    CLI(&r, "table", "get", dir, "2024-13-01,1");
    cli_err(&r, CF_EXIT_USAGE, "key column 'day': DATE: 2024-13-01: no month 13");
}

/* Errors in a file name the line and the column. */
static void test_cli_values__import_errors_name_line_and_column(void **state)
{
    (void)state;
    char *csv = cli_dir_path("e.csv"), *dir = cli_dir_path("e");
    run r;
    write_str(csv, "id,d\n1,2024-01-02\n2,2024-02-30\n");
    cli(&r, "table", "import", dir, "--schema", "id INT64 KEY, d DATE", csv, NULL);
    cli_err(&r, CF_EXIT_FAIL,
            "e.csv: line 3, column 3 ('d'): DATE: 2024-02-30: 2024-02 has no day 30");
    write_str(csv, "id,p\n1,1.5\n2,1.25\n");
    cli(&r, "table", "import", dir, "--schema", "id INT64 KEY, p DECIMAL32(5,1)", csv, NULL);
    cli_err(&r, CF_EXIT_FAIL,
            "e.csv: line 3, column 3 ('p'): DECIMAL32: 1.25 has more than 1 digit after the "
            "point");
    write_str(csv, "id,t\n1,2024-01-02T03:04:05\n2,2024-01-02T03:04\n");
    cli(&r, "table", "import", dir, "--schema", "id INT64 KEY, t UNIXTIME_MICROS", csv, NULL);
    cli_err(&r, CF_EXIT_FAIL,
            "e.csv: line 3, column 3 ('t'): UNIXTIME_MICROS: not a timestamp "
            "(YYYY-MM-DDThh:mm:ss[.ffffff][Z|+hh:mm]): 2024-01-02T03:04");
    assert_false(exists(dir));
}

/* A CFile knows no DECIMAL scale; DATE and UNIXTIME_MICROS go both ways through
 * write and dump, and Parquet gets the human forms' values. */
static void test_cli_values__cfile_and_parquet(void **state)
{
    (void)state;
    char *in = cli_dir_path("d.csv"), *cf = cli_dir_path("d.cfile");
    run r;
    write_str(in, "2024-01-02T03:04:05.000006Z\n1704164645000006\n\n1900-03-01 00:00:00+00:00\n");
    cli(&r, "write", "--type", "UNIXTIME_MICROS", "--nullable", in, cf, NULL);
    cli_rc(&r, 0);
    cli(&r, "dump", "--format", "csv", cf, NULL);
    const char *dumped = "row,value\n0,2024-01-02T03:04:05.000006Z\n1,2024-01-02T03:04:05.000006Z\n"
                         "2,\n3,1900-03-01T00:00:00Z\n";
    cli_out_is(&r, 0, dumped);
    cli(&r, "dump", "--format", "csv", "--raw-values", cf, NULL);
    cli_out_is(&r, 0,
               "row,value\n0,1704164645000006\n1,1704164645000006\n2,\n3,-2203891200000000\n");
    cli(&r, "dump", "--limit", "1", cf, NULL);
    cli_out(&r, 0, "\n0: 2024-01-02T03:04:05.000006Z\n");
    /* dump --format csv reads back through write. */
    char *again = cli_dir_path("again.csv"), *cf2 = cli_dir_path("d2.cfile");
    write_str(again, dumped);
    cli(&r, "write", "--type", "UNIXTIME_MICROS", "--nullable", again, cf2, NULL);
    cli_rc(&r, 0);
    cli(&r, "dump", "--format", "csv", cf2, NULL);
    cli_out_is(&r, 0, dumped);
    /* DECIMAL in a CFile: the unscaled integer only. */
    write_str(in, "12.34\n");
    cli(&r, "write", "--type", "DECIMAL64", in, cf, NULL);
    cli_err(&r, CF_EXIT_FAIL,
            "line 1, column 1: DECIMAL64: 12.34: not an integer (this column's scale is "
            "not known here: give the unscaled integer)");

    char *pin = cli_dir_path("p.csv"), *pq = cli_dir_path("p.parquet");
    write_str(pin, "id,d,ts,p\n1,2024-01-02,2024-01-02T03:04:05.000006Z,12.34\n2,0,0,-1\n");
    CLI(&r, "parquet", "write", "--schema",
        "id INT64, d DATE, ts UNIXTIME_MICROS, p DECIMAL64(10,2)", "--input", pin, pq);
    cli_rc(&r, 0);
    CLI(&r, "parquet", "dump", pq);
    cli_out_is(&r, 0,
               "{\"id\":1,\"d\":\"2024-01-02\",\"ts\":1704164645000006,\"p\":\"12.34\"}\n"
               "{\"id\":2,\"d\":\"1970-01-01\",\"ts\":0,\"p\":\"-0.01\"}\n");
}

/* A Kudu server's own tablet (../shared/kudu-fs): `kudu tablet scan` prints its
 * UNIXTIME_MICROS, DECIMAL(18,2) and DATE columns in the human forms, the integers
 * with --raw-values, and takes the human forms in --where. */
static void test_cli_values__kudu_tablet_scan(void **state)
{
    (void)state;
    char wal[512], data[1024];
    snprintf(wal, sizeof wal, "%s/kudu-fs/lbm-basic-s1/fs/wal", CF_SHARED_DIR);
    snprintf(data, sizeof data, "%s/kudu-fs/lbm-basic-s1/fs/data0,%s/kudu-fs/lbm-basic-s1/fs/data1",
             CF_SHARED_DIR, CF_SHARED_DIR);
    char tablet[] = "203c009b3a23aa40f3c4636398a419ee";
    run r;
    CLI(&r, "kudu", "tablet", "scan", "--fs-wal-dir", wal, "--fs-data-dirs", data, "--columns",
        "id,c_ts,c_dec,c_date", "--limit", "2", "--format", "csv", tablet);
    cli_out_is(&r, 0,
               "id,c_ts,c_dec,c_date\n1000000,2026-01-01T00:00:00.000665Z,79619.30,2022-11-07\n"
               "1000001,2026-01-01T00:00:00.000959Z,-14734.02,2025-07-07\n");
    CLI(&r, "kudu", "tablet", "scan", "--fs-wal-dir", wal, "--fs-data-dirs", data, "--columns",
        "id,c_ts,c_dec,c_date", "--limit", "2", "--format", "csv", "--raw-values", tablet);
    cli_out_is(&r, 0,
               "id,c_ts,c_dec,c_date\n1000000,1767225600000665,7961930,19303\n"
               "1000001,1767225600000959,-1473402,20276\n");
    CLI(&r, "kudu", "tablet", "scan", "--fs-wal-dir", wal, "--fs-data-dirs", data, "--columns",
        "id", "--where", "c_date = 2022-11-07 AND c_dec = 79619.30", "--json", tablet);
    cli_out_is(&r, 0, "{\"id\":1000000}\n");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_cli_values__underflow_refused),
        CLI_DIR_TEST(test_cli_values__survivors_kept),
        CLI_DIR_TEST(test_cli_values__table_human_forms),
        CLI_DIR_TEST(test_cli_values__options_human_forms),
        CLI_DIR_TEST(test_cli_values__import_errors_name_line_and_column),
        CLI_DIR_TEST(test_cli_values__cfile_and_parquet),
        cmocka_unit_test(test_cli_values__kudu_tablet_scan),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
