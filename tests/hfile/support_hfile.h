/* Helpers the HFile tests share. */
#ifndef CF_TEST_SUPPORT_HFILE_H
#define CF_TEST_SUPPORT_HFILE_H

#include <stdbool.h>

#include <cfile/hfile.h>

/* The iterator's next cell into *c: false at the end; an error fails the test. */
bool hfile_next(cf_hfile_iter *it, cf_hfile_cell *c);

#endif
