/* Opening, listing and checking a big Kudu server root (issue 28 item 8): builds
 * a log block manager root of C containers of B blocks each with src/kudu's
 * writers (1 block in 10 deleted again: DELETE records and punched holes), then
 * times cf_kudu_fs_open, a listing (every block visited and found again by id)
 * and the check's container walk, best of 3, and prints the peak RSS of the
 * process that opened it (the root is built in a child, so its memory is not
 * counted).
 * usage: bench_kudu_fs [C] [B] [DIR] [reuse]   (C default 10000, B 100, DIR
 *        /tmp/cf_bench_kudu_fs, removed first unless "reuse") */
/* cf-needs: tables */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cfile/kudu.h>

#include "kudufs/lbm_writer.h"

#define BENCH_NAME "bench_kudu_fs"
#include "bench_util.h"
#include "bench_kudu.h"

/* CPU seconds (user + system) of this process: on a shared machine a steadier
 * measure than the wall clock. */
static double cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static void build(const char *root, unsigned nc, unsigned nb)
{
    bench_kudu_root(root, 512);
    cf_error e = {0};
    cf_status st;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data", root);
    uint8_t block[64];
    memset(block, 0x5a, sizeof block);
    for (unsigned c = 0; c < nc; c++) {
        char id[40];
        snprintf(id, sizeof id, "%032x", c);
        cf_kudu_lbm_writer *w = NULL;
        if ((st = cf_kudu_lbm_writer_create(&w, dir, id, 512, &e)) != CF_OK)
            bench_die("create", st, &e);
        for (unsigned b = 0; b < nb; b++) {
            uint64_t bid = (uint64_t)c * nb + b + 1;
            st = cf_kudu_lbm_writer_append(w, bid, block, 1 + b % sizeof block, 1000 + bid, NULL,
                                           &e);
            if (st != CF_OK)
                bench_die("append", st, &e);
        }
        for (unsigned b = 0; b < nb; b += 10)
            if ((st = cf_kudu_lbm_writer_delete(w, (uint64_t)c * nb + b + 1, 9, &e)) != CF_OK)
                bench_die("delete", st, &e);
        cf_kudu_lbm_writer_free(w);
    }
}

int main(int argc, char **argv)
{
    unsigned nc = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 10000u;
    unsigned nb = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 100u;
    const char *root = argc > 3 ? argv[3] : "/tmp/cf_bench_kudu_fs";
    bool reuse = argc > 4 && strcmp(argv[4], "reuse") == 0;
    if (!reuse) {
        if (bench_rm_rf(root) != 0)
            return 1;
        double t0 = bench_wall();
        pid_t pid = fork();
        if (pid == 0) {
            build(root, nc, nb);
            _exit(0);
        }
        int status;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            return 1;
        printf("built %u containers x %u blocks in %.2f s\n", nc, nb, bench_wall() - t0);
    }
    cf_kudu_fs_options o;
    cf_kudu_fs_options_init(&o);
    o.wal_dir = root;
    double best_open = 1e9, best_list = 1e9, best_check = 1e9, best_open_cpu = 1e9;
    uint64_t sum = 0;
    size_t nblocks = 0, ncont = 0;
    for (int rep = 0; rep < 3; rep++) {
        cf_error e = {0};
        cf_kudu_fs *fs = NULL;
        double t0 = bench_wall(), c0 = cpu();
        cf_status st = cf_kudu_fs_open(&fs, &o, &e);
        if (st != CF_OK)
            bench_die("open", st, &e);
        double t1 = bench_wall();
        if (cpu() - c0 < best_open_cpu)
            best_open_cpu = cpu() - c0;
        nblocks = cf_kudu_fs_block_count(fs);
        for (size_t i = 0; i < nblocks; i++) {
            const cf_kudu_block *b = cf_kudu_fs_block_at(fs, i);
            const cf_kudu_block *f = cf_kudu_fs_find_block(fs, b->id);
            sum += b->offset + b->length + (f == b);
        }
        double t2 = bench_wall();
        ncont = cf_kudu_fs_container_count(fs);
        size_t full = 0;
        for (size_t i = 0; i < ncont; i++) {
            const cf_kudu_container *c = cf_kudu_fs_container_at(fs, i);
            full += c->full + c->dead + c->incomplete;
            sum += c->reclaimable + c->live_bytes + c->nrecords;
        }
        sum += full + cf_kudu_fs_problem_count(fs);
        double t3 = bench_wall();
        cf_kudu_fs_free(fs);
        if (t1 - t0 < best_open)
            best_open = t1 - t0;
        if (t2 - t1 < best_list)
            best_list = t2 - t1;
        if (t3 - t2 < best_check)
            best_check = t3 - t2;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%zu containers, %zu live blocks (checksum %" PRIu64 ")\n", ncont, nblocks, sum);
    printf("open %.3f s (%.3f s CPU), list %.3f s, check walk %.3f s (best of 3); peak RSS %.1f "
           "MiB\n",
           best_open, best_open_cpu, best_list, best_check, ru.ru_maxrss / 1024.0);
    return 0;
}
