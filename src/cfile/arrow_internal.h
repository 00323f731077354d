/* Internal: what arrow.c shares with the record-batch streams (src/arrow/). */
#ifndef CF_CFILE_ARROW_INTERNAL_H
#define CF_CFILE_ARROW_INTERNAL_H

#include <cfile/arrow.h>

/* o, or when it is NULL *dflt set to the defaults: what an entry point taking
 * optional options works from. */
const cf_arrow_options *cf_arrow_options_or_default(const cf_arrow_options *o,
                                                    cf_arrow_options *dflt);

/* Validate o for a column of type t (CF_EINVAL naming the bad field). */
cf_status cf_arrow_check_options(const cf_arrow_options *o, cf_type t, cf_error *err);

/* The Arrow format string of one (element) type under o, cf_malloc'd into *out;
 * `large` picks int64 offsets for binary types. */
cf_status cf_arrow_format(char **out, cf_type t, const cf_arrow_options *o, bool large,
                          cf_error *err);

/* Raise the error of a STRING value that is not UTF-8 (column may be NULL):
 * CF_ENOTSUP naming the row and the byte, and the way out. */
cf_status cf_arrow_utf8_error(cf_error *err, const char *column, uint64_t row, size_t at);

#endif
