/* Several processes writing one table through `cfile table` at once: N forked
 * processes each run M mixed insert/update/delete/compact commands (in-process
 * cf_cli_main) on keys of their own, recording each command that exited 0.
 * Afterwards the table must hold exactly what those acknowledged commands say:
 * with keys partitioned per process, each key's final state is its own
 * process's acknowledged commands applied in order, whatever the interleaving.
 * Without the writer lock two writers take the same rowset number or delta file
 * name and the later TABLET/MANIFEST wins, losing acknowledged work. */
/* cf-needs: tables */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfile/rowset.h>

#include "cli.h"
#include "support_cli.h"
#include "test_common.h"

#define NPROC 4
#define NOPS 40  /* commands per process */
#define NKEYS 10 /* keys per process */

typedef struct mkey {
    bool live;
    int64_t v;
} mkey;

/* One writer process: NOPS commands on keys p*1000 + [0, NKEYS), each chosen from
 * the state its acknowledged commands left. Appends "I k v", "U k v", "D k" or
 * "C" to ack_path for each command that exited 0, "F ..." for the others. */
static int writer(int p, const char *table, const char *ack_path)
{
    FILE *ack = fopen(ack_path, "w");
    if (ack == NULL)
        return 2;
    cf_rng rng;
    cf_rng_init(&rng, 1000 + (uint64_t)p);
    mkey m[NKEYS] = {{0}};
    for (int op = 0; op < NOPS; op++) {
        int i = (int)cf_rng_below(&rng, NKEYS);
        int64_t k = p * 1000 + i;
        int64_t v = (int64_t)cf_rng_below(&rng, 1000000);
        uint64_t dice = cf_rng_below(&rng, 10);
        char a1[64], a2[64];
        run r;
        char kind;
        if (dice == 0) {
            kind = 'C';
            CLI(&r, "table", "compact", (char *)table);
        } else if (!m[i].live) {
            kind = 'I';
            snprintf(a1, sizeof(a1), "k=%" PRId64 ",v=%" PRId64, k, v);
            CLI(&r, "table", "insert", (char *)table, "--row", a1);
        } else if (dice < 7) {
            kind = 'U';
            snprintf(a1, sizeof(a1), "%" PRId64, k);
            snprintf(a2, sizeof(a2), "v=%" PRId64, v);
            CLI(&r, "table", "update", (char *)table, "--key", a1, "--set", a2);
        } else {
            kind = 'D';
            snprintf(a1, sizeof(a1), "%" PRId64, k);
            CLI(&r, "table", "delete", (char *)table, "--key", a1);
        }
        if (r.rc == 0) {
            if (kind == 'C')
                fprintf(ack, "C\n");
            else if (kind == 'D')
                fprintf(ack, "D %" PRId64 "\n", k);
            else
                fprintf(ack, "%c %" PRId64 " %" PRId64 "\n", kind, k, v);
            if (kind == 'I' || kind == 'U')
                m[i] = (mkey){true, v};
            else if (kind == 'D')
                m[i].live = false;
        } else {
            char *nl = strchr(r.err, '\n');
            if (nl != NULL)
                *nl = '\0';
            fprintf(ack, "F %c %d %s\n", kind, r.rc, r.err);
        }
        done(&r);
    }
    return fclose(ack) == 0 ? 0 : 2;
}

static void test_concurrency__acknowledged_writes_survive(void **state)
{
    (void)state;
    char table[128];
    snprintf(table, sizeof(table), "%s/t", cli_dir);
    cli_table_create(table, "k INT64 KEY, v INT64 NULL");

    pid_t pids[NPROC];
    for (int p = 0; p < NPROC; p++) {
        char ack[160];
        snprintf(ack, sizeof(ack), "%s/ack.%d", cli_dir, p);
        pids[p] = fork();
        assert_true(pids[p] >= 0);
        if (pids[p] == 0) {
            fflush(NULL);
            _exit(writer(p, table, ack));
        }
    }
    for (int p = 0; p < NPROC; p++) {
        int status;
        assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }

    /* The model: every acknowledged command, per key in its process's order. */
    mkey model[NPROC][NKEYS];
    memset(model, 0, sizeof(model));
    size_t acked = 0, failed = 0;
    for (int p = 0; p < NPROC; p++) {
        char path[160], line[512];
        snprintf(path, sizeof(path), "%s/ack.%d", cli_dir, p);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        while (fgets(line, sizeof(line), f) != NULL) {
            char kind;
            int64_t k = 0, v = 0;
            if (line[0] == 'F') {
                /* A writer that gave up must have said why. */
                print_message("process %d: %s", p, line);
                failed++;
                continue;
            }
            int n = sscanf(line, "%c %" SCNd64 " %" SCNd64, &kind, &k, &v);
            assert_true(n >= 1);
            acked++;
            if (kind == 'C')
                continue;
            assert_int_equal(k / 1000, p);
            mkey *m = &model[p][k % 1000];
            if (kind == 'D')
                m->live = false;
            else
                *m = (mkey){true, v};
        }
        fclose(f);
    }
    cf_table_options o;
    cf_table_options_init(&o);
    o.read_only = true;
    cf_table *t;
    cf_error err;
    CF_ASSERT_OK(cf_table_open(&t, table, &o, &err), &err);
    cf_table_scanner *sc;
    CF_ASSERT_OK(cf_table_scanner_create(&sc, t, NULL, &err), &err);
    bool seen[NPROC][NKEYS];
    memset(seen, 0, sizeof(seen));
    for (;;) {
        cf_row_batch b;
        CF_ASSERT_OK(cf_table_scanner_next(sc, &b, &err), &err);
        if (b.count == 0)
            break;
        for (size_t i = 0; i < b.count; i++) {
            int64_t k = ((const int64_t *)b.cols[0].values)[i];
            int64_t v = ((const int64_t *)b.cols[1].values)[i];
            assert_true(k >= 0 && k / 1000 < NPROC && k % 1000 < NKEYS);
            int p = (int)(k / 1000), j = (int)(k % 1000);
            if (!model[p][j].live)
                fail_msg("key %" PRId64 " is in the table; its acknowledged commands deleted it "
                         "or never inserted it",
                         k);
            if (model[p][j].v != v)
                fail_msg("key %" PRId64 ": v = %" PRId64 ", acknowledged %" PRId64, k, v,
                         model[p][j].v);
            assert_false(seen[p][j]);
            seen[p][j] = true;
        }
    }
    cf_table_scanner_free(sc);
    cf_table_free(t);
    for (int p = 0; p < NPROC; p++)
        for (int j = 0; j < NKEYS; j++)
            if (model[p][j].live && !seen[p][j])
                fail_msg("key %d: acknowledged (v = %" PRId64 ") but missing from the table",
                         p * 1000 + j, model[p][j].v);
    /* Every command succeeded: the lock's default wait (10 s) is far longer
     * than any command here, and nothing else may fail. */
    assert_int_equal(failed, 0);
    assert_int_equal(acked, NPROC * NOPS);
}

/* A writer that waits longer than --lock-timeout gives up with exit 1 naming
 * the holder; readers are not held up. */
static void test_concurrency__lock_timeout_option(void **state)
{
    (void)state;
    char table[128];
    snprintf(table, sizeof(table), "%s/u", cli_dir);
    run r;
    cli_table_create(table, "k INT64 KEY, v INT64 NULL");
    CLI(&r, "table", "insert", table, "--row", "k=1,v=10");
    cli_rc(&r, 0);
    cf_table *t;
    cf_error err;
    CF_ASSERT_OK(cf_table_open(&t, table, NULL, &err), &err); /* holds the lock */
    char pid[32];
    snprintf(pid, sizeof(pid), "pid %ld ", (long)getpid());
    const char *writes[][8] = {
        {"table", "insert", table, "--row", "k=2,v=20", "--lock-timeout", "20", NULL},
        {"table", "update", table, "--key", "1", "--set", "v=11", NULL},
        {"table", "delete", table, "--key", "1", "--lock-timeout", "0", NULL},
        {"table", "compact", table, "--lock-timeout", "5", NULL},
        {"table", "create", table, "--schema", "k INT64 KEY", "--lock-timeout", "0", NULL},
    };
    for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
        char *args[10];
        size_t n = 0;
        for (; writes[i][n] != NULL; n++)
            args[n] = (char *)writes[i][n];
        if (i == 1) { /* the option may come anywhere */
            args[n++] = "--lock-timeout";
            args[n++] = "1";
        }
        args[n] = NULL;
        run_argv(&r, NULL, args);
        EXPECT_RC(r, 1);
        if (strstr(r.err, pid) == NULL || strstr(r.err, "another writer") == NULL)
            fail_msg("%s: %s", writes[i][1], r.err);
        done(&r);
    }
    /* Readers go on. */
    CLI(&r, "table", "scan", table);
    cli_out(&r, 0, "10");
    CLI(&r, "table", "get", table, "1");
    cli_rc(&r, 0);
    CLI(&r, "table", "info", table);
    cli_rc(&r, 0);
    CLI(&r, "table", "insert", table, "--row", "k=2,v=20", "--lock-timeout", "x");
    cli_rc(&r, 2);
    cf_table_free(t);
    CLI(&r, "table", "insert", table, "--row", "k=2,v=20", "--lock-timeout", "0");
    cli_rc(&r, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_concurrency__acknowledged_writes_survive),
        CLI_DIR_TEST(test_concurrency__lock_timeout_option),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}
