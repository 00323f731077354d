/* --threads of `cfile parquet write` and `cfile convert` (to Parquet): any
 * count writes the same file, byte for byte, as one thread; a count above
 * CF_PARQUET_MAX_THREADS is a usage error (exit 2). */
/* cf-needs: parquet tables */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/parquet.h>

#include "cli.h"
#include "support_cli.h"
#include "test_common.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void test_cli_pq_threads__same_bytes(void **state)
{
    (void)state;
    char *csv = cli_dir_path("in.csv");
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "id,name,v,d\n");
    for (unsigned i = 0; i < 20000; i++)
        fprintf(f, "%u,n%u,%u,%u.5\n", i, (i * 7919u) % 97u, i * 2654435761u, i % 1000u);
    fclose(f);
    size_t len1 = 0;
    char *one = NULL;
    static const char *const counts[] = {"1", "2", "3", "0"};
    for (size_t k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "t%s.parquet", counts[k]);
        char *out = cli_dir_path(name);
        run r;
        CLI(&r, "parquet", "write", "--quiet", "--schema",
            "id INT64, name STRING, v UINT32, d DOUBLE", "--row-group-rows", "6000", "--bloom",
            "name", "--threads", (char *)counts[k], "--input", csv, out);
        cli_rc(&r, 0);
        size_t len;
        char *p = slurp(out, &len);
        if (k == 0) {
            one = p;
            len1 = len;
            continue;
        }
        assert_int_equal(len, len1);
        assert_memory_equal(p, one, len);
        free(p);
    }
    free(one);
}

static void test_cli_pq_threads__too_many(void **state)
{
    (void)state;
    run r;
    CLI(&r, "parquet", "write", "--schema", "id INT64", "--threads", "65", "--input",
        cli_dir_path("none.csv"), cli_dir_path("x.parquet"));
    cli_err(&r, 2, "--threads");
    CLI(&r, "convert", "--threads", "x", cli_dir_path("a.cfile"), cli_dir_path("x.parquet"));
    cli_err(&r, 2, "--threads");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_cli_pq_threads__same_bytes),
        CLI_DIR_TEST(test_cli_pq_threads__too_many),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
