/* The CLI's JSON: a small parser into a read-only DOM that keeps each number's
 * exact text (so 64-bit and 128-bit integers and float bit patterns survive),
 * and a streaming writer with proper escaping.
 *
 * The DOM and every string it holds live in one arena owned by the document;
 * freeing the document frees them all. Nothing here prints or exits.
 */
#ifndef CF_CLI_JSON_H
#define CF_CLI_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- arena ------------------------------------------------------------------------- */

/* A bump allocator: many small allocations, one free. The library's is
 * src/util/arena.h, which the CLI (public headers only) cannot see; this one
 * is named apart so that both link into one binary. */
typedef struct cf_cli_arena_chunk cf_cli_arena_chunk;
typedef struct cf_cli_arena {
    cf_cli_arena_chunk *head;
    size_t used, cap; /* of head */
} cf_cli_arena;

void cf_cli_arena_init(cf_cli_arena *a);
/* 16-byte aligned, NULL when out of memory; n == 0 gives a valid pointer. */
void *cf_cli_arena_alloc(cf_cli_arena *a, size_t n);
void cf_cli_arena_dispose(cf_cli_arena *a);

/* ---- DOM --------------------------------------------------------------------------- */

typedef enum cf_json_kind {
    CF_JSON_NULL,
    CF_JSON_FALSE,
    CF_JSON_TRUE,
    CF_JSON_NUMBER, /* str = the literal as written (also NaN, Infinity, -Infinity) */
    CF_JSON_STRING, /* str/len = decoded UTF-8 bytes (may hold NULs; NUL-terminated too) */
    CF_JSON_ARRAY,  /* items[0..n) */
    CF_JSON_OBJECT  /* members[0..n), in document order, duplicates kept */
} cf_json_kind;

typedef struct cf_json cf_json;
typedef struct cf_json_member cf_json_member;

struct cf_json {
    cf_json_kind kind;
    const char *str;
    size_t len;
    size_t n;
    cf_json *items;
    cf_json_member *members;
};

struct cf_json_member {
    const char *key; /* decoded, NUL-terminated */
    size_t key_len;
    cf_json value;
};

typedef struct cf_json_doc {
    cf_cli_arena arena;
    cf_json root;
} cf_json_doc;

/* Deepest nesting of values the parser accepts (deeper input is an error). */
#define CF_JSON_MAX_DEPTH 512

/* Parse `len` bytes of JSON text (one value, surrounding whitespace allowed) into doc.
 * Returns 0, or -1 with a one-line message naming the byte offset in msg.
 * doc must be disposed in both cases. */
int cf_json_parse(cf_json_doc *doc, const char *text, size_t len, char *msg, size_t msg_cap);
/* Same, allocating the DOM from a caller's arena (it must outlive *out). */
int cf_json_parse_arena(cf_cli_arena *a, cf_json *out, const char *text, size_t len, char *msg,
                        size_t msg_cap);
/* Parse a whole file. */
int cf_json_parse_file(cf_json_doc *doc, const char *path, char *msg, size_t msg_cap);
void cf_json_doc_dispose(cf_json_doc *doc);

/* The member `key` of an object (the first one), or NULL. */
const cf_json *cf_json_get(const cf_json *obj, const char *key);
/* Is the node a NUMBER written as an integer (no fraction, no exponent)? */
bool cf_json_is_integer(const cf_json *v);
/* Name of a kind for messages ("string", "array", ...). */
const char *cf_json_kind_name(cf_json_kind k);

/* Strict UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF). */
bool cf_utf8_valid(const uint8_t *p, size_t len);
/* The length of the one strictly well-formed UTF-8 sequence at p (n >= 1 bytes
 * left) and its code point in *cp, or 0 when there is none. */
size_t cf_utf8_char_len(const uint8_t *p, size_t n, uint32_t *cp);

/* ---- writer ------------------------------------------------------------------------ */

/* putc/fwrite without the stream lock (one thread writes each stream). */
#if defined(__GLIBC__)
#define CF_IO_PUTC(c, f) putc_unlocked((c), (f))
#define CF_IO_WRITE(p, n, f) fwrite_unlocked((p), 1, (n), (f))
#else
#define CF_IO_PUTC(c, f) putc((c), (f))
#define CF_IO_WRITE(p, n, f) fwrite((p), 1, (n), (f))
#endif

/* Decimal text of an integer into out (21 bytes suffice); returns the length
 * (NUL-terminated). */
size_t cf_json_fmt_u64(char *out, uint64_t v);
size_t cf_json_fmt_i64(char *out, int64_t v);

#define CF_JW_MAX_DEPTH 64

/* Writes compact JSON to a FILE; commas are placed automatically. */
typedef struct cf_jw {
    FILE *f;
    int depth;
    bool first[CF_JW_MAX_DEPTH]; /* no element written yet at this depth */
    bool after_key;              /* the next value completes a member */
} cf_jw;

void cf_jw_init(cf_jw *w, FILE *f);
void cf_jw_obj_begin(cf_jw *w);
void cf_jw_obj_end(cf_jw *w);
void cf_jw_arr_begin(cf_jw *w);
void cf_jw_arr_end(cf_jw *w);
void cf_jw_key(cf_jw *w, const char *key);
/* A string from bytes that are UTF-8 (invalid bytes are written as \u00XX escapes of
 * their Latin-1 reading, so the output stays valid JSON: use cf_jw_bytes when the
 * bytes may not be UTF-8). */
void cf_jw_str(cf_jw *w, const void *s, size_t len);
void cf_jw_cstr(cf_jw *w, const char *s);
/* The value forms of STRING: a string when valid UTF-8, else {"hex": "..."}. */
void cf_jw_bytes(cf_jw *w, const void *s, size_t len);
/* Lower-case hex string of the bytes (BINARY). */
void cf_jw_hex(cf_jw *w, const void *s, size_t len);
/* Writes the separator a value needs here and returns the stream, for a caller
 * that writes one JSON value itself (vprint.h). */
FILE *cf_jw_value_begin(cf_jw *w);
/* A literal written as is (a number). */
void cf_jw_raw(cf_jw *w, const char *lit);
void cf_jw_int(cf_jw *w, int64_t v);
void cf_jw_uint(cf_jw *w, uint64_t v);
void cf_jw_bool(cf_jw *w, bool v);
void cf_jw_null(cf_jw *w);
/* One object member in one call: cf_jw_key(w, key) and then the value, the form
 * most of the CLI's JSON reports are written in. */
void cf_jw_kv_int(cf_jw *w, const char *key, int64_t v);
void cf_jw_kv_uint(cf_jw *w, const char *key, uint64_t v);
void cf_jw_kv_bool(cf_jw *w, const char *key, bool v);
void cf_jw_kv_cstr(cf_jw *w, const char *key, const char *s);
void cf_jw_kv_null(cf_jw *w, const char *key);
/* A member that may be absent, written as null then: s NULL, or has false (v is
 * not written, but is evaluated: pass 0 where reading it needs has). */
void cf_jw_kv_opt_cstr(cf_jw *w, const char *key, const char *s);
void cf_jw_kv_opt_int(cf_jw *w, const char *key, bool has, int64_t v);
void cf_jw_kv_opt_uint(cf_jw *w, const char *key, bool has, uint64_t v);
void cf_jw_kv_opt_bool(cf_jw *w, const char *key, bool has, bool v);
/* A member whose value is an object or an array: the key, and the value begun. */
void cf_jw_kv_obj_begin(cf_jw *w, const char *key);
void cf_jw_kv_arr_begin(cf_jw *w, const char *key);
/* A command's one-line JSON report (table create|insert|flush|compact|import,
 * convert, parquet write): cf_jw_init on f, the document's object begun and its
 * "op" member written. The caller ends it with cf_jw_obj_end and cf_jw_newline. */
void cf_jw_report_begin(cf_jw *w, FILE *f, const char *op);
/* Copy a DOM value. */
void cf_jw_value(cf_jw *w, const cf_json *v);
/* Ends the document with a newline. */
void cf_jw_newline(cf_jw *w);

#endif
