/* Shared by the CLI tests that read the tool's JSON back: comparing two parsed values
 * and parsing JSON-lines output (one object a line) as one array document. */
#ifndef CF_TEST_SUPPORT_JSON_H
#define CF_TEST_SUPPORT_JSON_H

#include <stdbool.h>

#include "json.h"

/* a equals b: same kind; numbers equal as text or as doubles (or, with as_float, as
 * floats: a FLOAT cell printed in another round-trip form); strings byte for byte;
 * arrays item by item and objects member by member in order. Literals (null, true,
 * false) equal by kind. */
bool cli_json_same(const cf_json *a, const cf_json *b, bool as_float);

/* Parse `out`, JSON lines (empty lines skipped), into d as one array of the lines'
 * values; fails the test when a line is not JSON. Dispose d with cf_json_doc_dispose. */
void cli_json_lines(cf_json_doc *d, const char *out);

/* o has each member the arguments name in pairs (key, text; NULL-terminated), a
 * string or a number whose text is text; fails the test naming the first that
 * differs or is missing. */
void cli_json_fields(const cf_json *o, ...);

#endif
