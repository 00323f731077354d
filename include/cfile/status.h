/* cfile: status codes and the caller-owned error record.
 *
 * Every fallible call returns a cf_status and takes an optional `cf_error *err`
 * as its last parameter. On failure the library fills err (when not NULL) with a
 * one-line message naming what was wrong and where (file offset, block, ordinal).
 * The library never allocates on the error path, never prints, never aborts.
 *
 * Ownership: a cf_error belongs to the caller (a stack variable is fine) and
 * holds its message inline; nothing in it needs freeing. On CF_OK its contents
 * are unspecified: read it only after a failure. Threads: give each thread its
 * own cf_error; cf_status_str returns static strings and is thread-safe.
 */
#ifndef CFILE_STATUS_H
#define CFILE_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CF_BUILDING_LIBRARY)
#define CF_API __attribute__((visibility("default")))
#else
#define CF_API
#endif

/* The stable API is what libcfile.so exports: every CF_API function, each with version
 * CFILE_0 (cmake/cfile.map lists them; ctest build/exports keeps the two in step).
 * A few low-level helpers (one field's codec, a hash, a key parser) are declared only
 * inside `#ifdef CF_STATIC_LINKING_ONLY` blocks with CF_STATIC_API: they may change
 * between releases, libcfile.so does not export them, and a program that uses them
 * defines CF_STATIC_LINKING_ONLY before including a cfile header and links libcfile.a
 * (the CLI, tests and fuzz targets do), as zstd does with ZSTD_STATIC_LINKING_ONLY. */
#if defined(CF_BUILDING_LIBRARY) && !defined(CF_STATIC_LINKING_ONLY)
#define CF_STATIC_LINKING_ONLY
#endif
#define CF_STATIC_API /* hidden (-fvisibility=hidden): in libcfile.a only */

/* Pinned forever: values never change, new codes are only appended. */
typedef enum cf_status {
    CF_OK = 0,
    CF_EINVAL = 1,    /* bad argument or option */
    CF_ESTATE = 2,    /* call out of order (e.g. append after finish) */
    CF_ECORRUPT = 3,  /* the bytes break the format (includes checksum mismatch) */
    CF_ENOTSUP = 4,   /* valid but not supported here (unknown feature bit, codec) */
    CF_EIO = 5,       /* the operating system failed a read or write */
    CF_ENOMEM = 6,    /* an allocation failed */
    CF_ENOTFOUND = 7, /* a seek found nothing (past the end, key after last) */
    CF_EBUFSIZE = 8,  /* a caller buffer is too small */
    CF_EBUSY = 9      /* another holder has it (a table's writer lock) */
} cf_status;

typedef struct cf_error {
    cf_status code;
    char msg[256];  /* one line, lower case: what and where */
    char where[64]; /* source file:line that raised it (for bug reports) */
} cf_error;

/* Static name of a status ("ok", "corruption", ...). Never NULL. */
CF_API const char *cf_status_str(cf_status st);

#ifdef __cplusplus
}
#endif
#endif
