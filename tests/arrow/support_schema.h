/* Checking the top of an Arrow stream's schema: one struct, its columns by name
 * and format. */
#ifndef CF_TEST_SUPPORT_SCHEMA_H
#define CF_TEST_SUPPORT_SCHEMA_H

#include <cfile/arrow.h>

/* The schema of stream s, got into *sc (the caller checks more of it, then
 * releases it), is a struct ("+s") whose children have, in order, the names
 * and formats that follow in pairs (name, format; NULL-terminated), and no
 * others. */
void stream_schema_is(struct ArrowArrayStream *s, struct ArrowSchema *sc, ...);

#endif
