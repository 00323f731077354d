/* cf-needs: tables parquet */
/* A failed load into a new table (`convert --to table`, `table import`, `table
 * create`) leaves exactly what was there before: a directory it made is gone, a
 * directory that was there keeps its entries, no LOCK added, none removed. The
 * failures are bad input (duplicate keys) and refused directories; nothing is
 * killed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "support_cli.h"
#include "test_common.h"

static void touch(const char *path)
{
    write_str(path, "");
}

/* The inputs of a load: the same rows as Parquet (for convert) and CSV (for
 * table import), and the table's schema. */
typedef struct load_src {
    const char *pq, *csv, *schema;
} load_src;

/* `convert --to table` and then `table import` of src into dir both fail (exit 1,
 * convert's message holding convert_err when it is not NULL), each leaving dir
 * holding exactly want. */
static void loads_fail(const load_src *src, const char *dir, const char *want,
                       const char *convert_err)
{
    run r;
    cli(&r, "convert", "--to", "table", "--key", "id", src->pq, dir, NULL);
    if (convert_err != NULL)
        cli_err(&r, CF_EXIT_FAIL, convert_err);
    else
        cli_rc(&r, CF_EXIT_FAIL);
    cli_dir_holds(dir, want);
    cli(&r, "table", "import", dir, "--schema", src->schema, src->csv, NULL);
    cli_rc(&r, CF_EXIT_FAIL);
    cli_dir_holds(dir, want);
}

static void test_cli_table_undo__failed_loads_leave_what_was_there(void **state)
{
    (void)state;
    char *csv = cli_dir_path("dup.csv");
    write_str(csv, "id,name\n1,a\n1,b\n");
    char *pq = cli_dir_path("dup.parquet");
    run r;
    cli(&r, "parquet", "write", "--schema", "id INT64, name STRING", "--input", csv, pq, NULL);
    cli_rc(&r, 0);
    const char *schema = "id INT64 KEY, name STRING";
    load_src src = {pq, csv, schema};

    /* A new directory: made, then removed again. */
    char *nt = cli_dir_path("new");
    loads_fail(&src, nt, "-", "duplicate key");

    /* An empty directory that was there stays, empty. */
    char *e1 = cli_dir_path("empty");
    assert_int_equal(mkdir(e1, 0777), 0);
    loads_fail(&src, e1, "", NULL);

    /* A LOCK that was there (what a failed load of an older cfile left) is not
     * this run's to delete. */
    char *l1 = cli_dir_path("lock-only"), p[600];
    assert_int_equal(mkdir(l1, 0777), 0);
    snprintf(p, sizeof(p), "%s/LOCK", l1);
    touch(p);
    loads_fail(&src, l1, "LOCK", NULL);

    /* A directory refused as not a table of ours gets no LOCK added. */
    char *w1 = cli_dir_path("holds-wal");
    assert_int_equal(mkdir(w1, 0777), 0);
    snprintf(p, sizeof(p), "%s/wal", w1);
    assert_int_equal(mkdir(p, 0777), 0);
    loads_fail(&src, w1, "wal", "not a table of ours");
    cli(&r, "table", "create", w1, "--schema", schema, NULL);
    cli_err(&r, CF_EXIT_FAIL, "not a table of ours");
    cli_dir_holds(w1, "wal");

    /* And the same load with good rows makes the table (its LOCK included). */
    write_str(csv, "id,name\n1,a\n2,b\n");
    cli(&r, "parquet", "write", "--schema", "id INT64, name STRING", "--input", csv, pq, NULL);
    cli_rc(&r, 0);
    cli(&r, "convert", "--to", "table", "--key", "id", pq, nt, NULL);
    cli_rc(&r, 0);
    cli_prints("{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n", "table", "scan", nt,
               "--json", NULL);
    snprintf(p, sizeof(p), "%s/LOCK", nt);
    assert_int_equal(access(p, F_OK), 0);
    /* A failed load into that existing table keeps it whole. */
    cli(&r, "table", "import", nt, csv, NULL);
    cli_rc(&r, CF_EXIT_FAIL);
    assert_int_equal(access(p, F_OK), 0);
    cli(&r, "table", "get", nt, "--key", "2", "--json", NULL);
    cli_rc(&r, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_cli_table_undo__failed_loads_leave_what_was_there),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
