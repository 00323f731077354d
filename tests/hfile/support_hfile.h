/* Helpers the HFile tests share (tests/hfile, and tests/cli: CMakeLists.txt
 * adds this file to both). */
#ifndef CF_TEST_SUPPORT_HFILE_H
#define CF_TEST_SUPPORT_HFILE_H

#include <dirent.h>
#include <stdbool.h>

#include <cfile/hfile.h>

/* Writer options with this codec and block size, the rest as _init sets them. */
cf_hfile_writer_options hf_options(uint32_t compression, uint32_t block_size);

/* The iterator's next cell into *c: false at the end; an error fails the test. */
bool hfile_next(cf_hfile_iter *it, cf_hfile_cell *c);

/* The real HBase files of shared/hfile/, one by one, each with the
 * expected.json beside it. */
typedef struct hfile_corpus {
    DIR *d;
    char dir[1024];
    const char *name; /* the file's name */
    char path[2048];  /* its path */
    char json[2100];  /* its expected.json */
} hfile_corpus;

void hfile_corpus_open(hfile_corpus *c);
/* The next file; false (the directory closed) after the last. */
bool hfile_corpus_next(hfile_corpus *c);

#endif
