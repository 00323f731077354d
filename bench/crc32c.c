/* bench/crc32c: GB/s of every CRC-32C implementation on 4 KiB, 64 KiB and
 * 256 KiB buffers, in one run so they compare like with like. Not a test: it
 * prints numbers (every result is also checked against the portable one).
 *
 *   bench_crc32c [MB [RUNS]]   MB per timed run (default 512), RUNS timed runs
 *                              per cell (default 7); median and best reported
 *
 * "hot": the same buffer again and again (it stays in L1/L2, as a block
 * just read or decompressed does). "cold 256K": consecutive 256 KiB blocks
 * of a 256 MiB area, so every byte comes from memory, as in a scan of a file
 * larger than the caches. Times are CPU time of this process: the machine is
 * shared, and time spent descheduled is not the CRC's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/crc32c.h"
#if defined(CF_HAVE_ISAL)
#include "codec/isal/crc32c_isal.h"
#endif

#define BENCH_NAME "bench_crc32c"
#include "bench_util.h"

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static const struct {
    const char *name;
    crc_fn fn;
    bool (*available)(void);
} impls[] = {
    {"portable (slicing-by-8)", cf_crc32c_portable, NULL},
    {"sse42 3-way + pclmul", cf_crc32c_hw, cf_crc32c_hw_available},
    {"avx512 vpclmul folding", cf_crc32c_avx512, cf_crc32c_avx512_available},
    {"avx2 vpclmul folding", cf_crc32c_avx2, cf_crc32c_avx2_available},
    {"avx2 folding + crc32 mix", cf_crc32c_mix, cf_crc32c_avx2_available},
#if defined(CF_HAVE_ISAL)
    {"isa-l crc32_iscsi", cf_crc32c_isal, NULL},
#endif
    {"dispatch (cf_crc32c)", cf_crc32c_extend, NULL},
};
#define NIMPLS (sizeof impls / sizeof impls[0])

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static volatile uint32_t sink;

/* One timed run: `total` bytes in `block`-byte calls walking `area` bytes. */
static double run_once(crc_fn fn, const uint8_t *buf, size_t area, size_t block, size_t total)
{
    uint32_t acc = 0;
    size_t off = 0;
    double t0 = bench_cpu();
    for (size_t done = 0; done < total; done += block) {
        acc ^= fn(0, buf + off, block);
        off += block;
        if (off + block > area)
            off = 0;
    }
    double t = bench_cpu() - t0;
    sink ^= acc;
    return t;
}

int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? strtoull(argv[1], NULL, 10) : 512;
    int runs = argc > 2 ? atoi(argv[2]) : 7;
    if (mb == 0)
        mb = 1;
    if (runs < 1 || runs > 101)
        runs = 7;
    const size_t cold_area = (size_t)256 << 20;
    uint8_t *buf = malloc(cold_area);
    if (buf == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < cold_area; i += 8) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        memcpy(buf + i, &s, 8);
    }
    static const struct {
        const char *name;
        size_t block, area;
    } cells[] = {
        {"4K hot", 4096, 4096},
        {"64K hot", 65536, 65536},
        {"256K hot", 262144, 262144},
        {"256K cold", 262144, (size_t)256 << 20},
    };
    printf("dispatch picks: %s; %zu MB per run, median (best) of %d runs, GB/s\n\n",
           cf_crc32c_impl(), mb, runs);
    printf("| implementation            |");
    for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++)
        printf(" %-17s |", cells[c].name);
    printf("\n|---|---|---|---|---|\n");
    double *t = malloc((size_t)runs * sizeof *t);
    for (size_t i = 0; i < NIMPLS; i++) {
        if (impls[i].available && !impls[i].available()) {
            printf("| %-25s | (not available in this build or on this CPU) |\n", impls[i].name);
            continue;
        }
        printf("| %-25s |", impls[i].name);
        for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++) {
            size_t block = cells[c].block, area = cells[c].area;
            /* The slow portable path gets a quarter of the bytes. */
            size_t total = (mb << 20) / (i == 0 ? 4 : 1);
            total = total / block * block;
            if (total == 0)
                total = block;
            for (size_t off = 0; off + block <= area; off += block * 97)
                if (impls[i].fn(0, buf + off, block) != cf_crc32c_portable(0, buf + off, block)) {
                    fprintf(stderr, "%s: wrong CRC at offset %zu\n", impls[i].name, off);
                    return 1;
                }
            run_once(impls[i].fn, buf, area, block, total); /* warm-up */
            for (int r = 0; r < runs; r++)
                t[r] = run_once(impls[i].fn, buf, area, block, total);
            qsort(t, (size_t)runs, sizeof *t, cmp_double);
            double med = t[runs / 2], best = t[0];
            printf(" %6.1f (%6.1f)   |", (double)total / med / 1e9, (double)total / best / 1e9);
            fflush(stdout);
        }
        printf("\n");
    }
    free(t);
    free(buf);
    return 0;
}
