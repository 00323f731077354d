/* What the encoding and compression benchmarks (encodings.c, compression.c) share:
 * running one measurement over every data set of the CLI's suite
 * (tools/cfile/datasets.h). Include after bench_util.h. */
#ifndef CF_BENCH_DATASETS_H
#define CF_BENCH_DATASETS_H

#include "datasets.h"

typedef void (*bench_set_fn)(const cf_dataset *d, const cf_encoding *encs, size_t nenc);

/* run(d, the encodings to time for d's type) for every data set of the suite, n
 * values each (n_strings for the string sets, slower to generate and larger).
 * Returns 0, or 1 after saying so when a set could not be generated. */
static inline int bench_each_dataset(size_t n, size_t n_strings, bench_set_fn run)
{
    cf_dataset_suite suite;
    cf_dataset_suite_init(&suite);
    cf_dataset d;
    int rc;
    while ((rc = cf_dataset_suite_next(&suite, &d, n, n_strings)) == 1) {
        size_t nenc;
        const cf_encoding *encs = cf_dataset_bench_encodings(d.type, &nenc);
        run(&d, encs, nenc);
        cf_dataset_free(&d);
    }
    if (rc < 0) {
        fprintf(stderr, "out of memory generating %s\n", d.name);
        cf_dataset_free(&d);
        return 1;
    }
    return 0;
}

#endif
