/* Fuzz the CLI's CSV reader and the conversion of CSV fields to values
 * (tools/cfile/csv.c, values.c):
 *
 *   input: [opt][type][CSV text]
 *   opt bit 0: read through a stream (fmemopen) as well as from memory; both
 *              must give the same records, or the same error
 *   opt bits 1..2: a record limit (none, 16, 256, 4096 bytes)
 *   type: picks a column type (and bit 7: array) for every field's value
 *
 * Invariants: fields are NUL-terminated at their length, lines and columns are
 * >= 1 and never go back, an error names "line L, column C"; the records written
 * back with cf_vp_csv_field read again to the same fields; every field either
 * converts to a value or says why (never a crash); a value that converts prints
 * (in its human form, vtext.h, and its raw one; FLOAT/DOUBLE as cfile prints
 * them) to text that converts back to the same bytes.
 *   opt bits 3..7: the DECIMAL column's scale (mod 39) for the human forms */
#include "fuzz.h"

#include <string.h>

#include "csv.h"
#include "out.h"
#include "values.h"
#include "vprint.h"

enum { MAX_RECORDS = 4096 };

static const cf_type types[] = {CF_TYPE_INT8,     CF_TYPE_INT32,           CF_TYPE_UINT64,
                                CF_TYPE_INT64,    CF_TYPE_FLOAT,           CF_TYPE_DOUBLE,
                                CF_TYPE_BOOL,     CF_TYPE_STRING,          CF_TYPE_BINARY,
                                CF_TYPE_DATE,     CF_TYPE_UNIXTIME_MICROS, CF_TYPE_DECIMAL128,
                                CF_TYPE_INT128,   CF_TYPE_VARCHAR,         CF_TYPE_DECIMAL32,
                                CF_TYPE_DECIMAL64};

/* Every record of the reader as "[q]bytes\x1f...\x1e", or "!" + the error; without
 * `quoting`, no [q] ("q" a quoted field, "u" one not). */
static char *records(cf_csv *r, bool quoting, size_t *len)
{
    fuzz_text t;
    FILE *m = fuzz_text_open(&t);
    const cf_csv_field *f;
    size_t nf;
    int got;
    uint64_t last_line = 1;
    for (int k = 0; k < MAX_RECORDS && (got = cf_csv_next(r, &f, &nf)) != 0; k++) {
        if (got < 0) {
            FUZZ_REQUIRE(strstr(r->msg, ": line ") != NULL && strstr(r->msg, ", column ") != NULL);
            fprintf(m, "!%s", r->msg);
            break;
        }
        FUZZ_REQUIRE(nf >= 1);
        for (size_t i = 0; i < nf; i++) {
            FUZZ_REQUIRE(f[i].data[f[i].len] == '\0');
            FUZZ_REQUIRE(f[i].line >= last_line && f[i].col >= 1);
            last_line = f[i].line;
            if (quoting)
                fputc(f[i].quoted ? 'q' : 'u', m);
            fwrite(f[i].data, 1, f[i].len, m);
            fputc(0x1f, m);
        }
        fputc(0x1e, m);
    }
    char *buf = fuzz_text_close(&t);
    *len = t.len;
    return buf;
}

/* Write the records back as CSV (each field quoted when needed), read them again:
 * the same bytes in every field. */
static void check_rewrite(const uint8_t *text, size_t len)
{
    cf_csv r;
    cf_csv_init_mem(&r, text, len, "in");
    fuzz_text out, orig;
    FILE *m = fuzz_text_open(&out), *om = fuzz_text_open(&orig);
    const cf_csv_field *f;
    size_t nf;
    int k = 0;
    while (k++ < MAX_RECORDS && cf_csv_next(&r, &f, &nf) > 0) {
        for (size_t i = 0; i < nf; i++) {
            if (i)
                fputc(',', m);
            bool bom = out.len == 0 && i == 0 && f[i].len >= 3 &&
                       memcmp(f[i].data, "\xEF\xBB\xBF", 3) == 0;
            fflush(m);
            if (f[i].len == 0 && (f[i].quoted || nf == 1)) {
                fputs("\"\"", m); /* keep the field: a bare empty line would be too */
            } else if (bom) {
                /* unquoted, these bytes at the very start would read as a BOM */
                fputc('"', m);
                for (size_t b = 0; b < f[i].len; b++) {
                    if (f[i].data[b] == '"')
                        fputc('"', m);
                    fputc(f[i].data[b], m);
                }
                fputc('"', m);
            } else
                cf_vp_csv_field(m, f[i].data, f[i].len);
            fwrite(f[i].data, 1, f[i].len, om);
            fputc(0x1f, om);
        }
        fputc('\n', m);
        fputc(0x1e, om);
    }
    fuzz_text_close(&out);
    fuzz_text_close(&orig);
    cf_csv_dispose(&r);
    /* read again: the same fields, and no error (that would come as "!" + it) */
    cf_csv_init_mem(&r, out.buf, out.len, "again");
    size_t again_len;
    char *again = records(&r, false, &again_len);
    FUZZ_REQUIRE(again_len == orig.len && memcmp(again, orig.buf, again_len) == 0);
    cf_csv_dispose(&r);
    free(out.buf);
    free(orig.buf);
    free(again);
}

/* A field that parses as t at `scale` prints in both styles to text that parses
 * back to the same bytes. */
static void check_print_back(const cf_csv_field *f, cf_type t, int scale)
{
    if (cf_type_is_binary(t) || t == CF_TYPE_BOOL)
        return;
    cf_cli_arena arena;
    cf_cli_arena_init(&arena);
    uint8_t slot[16] __attribute__((aligned(16))), back[16] __attribute__((aligned(16)));
    char msg[256];
    if (cf_cli_value_parse_text_col(f->data, f->len, t, 0, scale, slot, &arena, msg, sizeof msg) ==
        0) {
        for (int raw = 0; raw < 2; raw++) {
            char text[CF_CLI_NUM_CAP];
            cf_vp_style st = {raw != 0, scale};
            size_t n = cf_vp_number_styled(text, t, st, slot);
            memset(back, 0, sizeof back);
            if (cf_cli_value_parse_text_col(text, n, t, 0, scale, back, &arena, msg, sizeof msg) !=
                0) {
                fprintf(stderr, "%s printed as %s does not read back: %s\n", cf_type_name(t), text,
                        msg);
                FUZZ_REQUIRE(!"a printed value reads back");
            }
            FUZZ_REQUIRE(memcmp(slot, back, cf_type_size(t)) == 0);
        }
    } else {
        FUZZ_REQUIRE(msg[0] != '\0');
    }
    cf_cli_arena_dispose(&arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size < 2 ? size : 2};
    uint8_t opt = fuzz_u8(&in), tsel = fuzz_u8(&in);
    const uint8_t *text = data + (size < 2 ? size : 2);
    size_t len = size < 2 ? 0 : size - 2;
    uint8_t *copy = fuzz_dup(text, len); /* reads past the end are ASan reports */
    static const size_t limits[] = {0, 16, 256, 4096};
    size_t limit = limits[(opt >> 1) & 3];

    cf_csv r;
    cf_csv_init_mem(&r, copy, len, "in");
    if (limit)
        r.max_record_len = limit;
    size_t mlen;
    char *mem = records(&r, true, &mlen);
    cf_csv_dispose(&r);
    if (opt & 1) {
        FILE *f = fmemopen(copy, len ? len : 1, "rb");
        FUZZ_REQUIRE(f != NULL);
        if (len == 0)
            fgetc(f);
        cf_csv_init_file(&r, f, "in");
        if (limit)
            r.max_record_len = limit;
        size_t slen;
        char *str = records(&r, true, &slen);
        FUZZ_REQUIRE(slen == mlen && memcmp(str, mem, slen) == 0);
        free(str);
        cf_csv_dispose(&r);
        fclose(f);
    }
    free(mem);
    if (!limit)
        check_rewrite(copy, len);

    /* Values: every field as the chosen type. */
    cf_type t = types[(tsel & 0x7f) % (sizeof(types) / sizeof(types[0]))];
    bool is_array = tsel & 0x80;
    cf_csv_init_mem(&r, copy, len, "in");
    const cf_csv_field *f;
    size_t nf;
    int k = 0;
    while (k++ < MAX_RECORDS && cf_csv_next(&r, &f, &nf) > 0) {
        for (size_t i = 0; i < nf; i++) {
            cf_cli_arena arena;
            cf_cli_arena_init(&arena);
            cf_cli_column col;
            cf_cli_column_init(&col, t, is_array, &arena);
            char msg[256];
            cf_json v;
            msg[0] = '\0';
            if (cf_csv_json(&f[i], t, is_array, true, &v, &arena, msg, sizeof(msg)) != 0)
                FUZZ_REQUIRE(msg[0] != '\0');
            else if (cf_cli_column_add(&col, &v, msg, sizeof(msg)) != 0)
                FUZZ_REQUIRE(msg[0] != '\0');
            else
                FUZZ_REQUIRE(col.rows == 1);
            cf_cli_column_dispose(&col);
            cf_cli_arena_dispose(&arena);
            if (!is_array)
                check_print_back(&f[i], t, (opt >> 3) % 39);
        }
    }
    cf_csv_dispose(&r);
    free(copy);
    return 0;
}
