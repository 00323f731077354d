/* The rowset MANIFEST: which files make up the rowset, its schema, row count,
 * min/max encoded keys and MVCC timestamps (docs/ROWSET.md "MANIFEST").
 *
 * A text file of lines, written whole through cf_io_create_file (temp file,
 * fsync, rename, directory fsync), so readers see the old or the new one:
 *   cfile-rowset 1
 *   generation G | next_file N | insert_ts T | last_ts T | rows R
 *   ahm T        (only when a compaction discarded history before T)
 *   min_key HEX|- | max_key HEX|-
 *   column NAME TYPE FLAGS ENCODING COMPRESSION BLOCK_SIZE PRECISION SCALE LENGTH
 *          (FLAGS: letters k=key n=nullable a=array, or "-")
 *   file ROLE COL|- NAME
 *   end CHECKSUM    (FNV-1a 64 of every byte before "end", 16 hex digits)
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#include "io/io_at.h"

#include "util/alloc.h"
#include "util/error.h"

#define MAX_MANIFEST_LEN (64u << 20)

static const char *const role_names[] = {"column", "bloom", "adhoc", "redo", "undo"};

const char *cf_rs_role_name(int role)
{
    return role >= 0 && role < 5 ? role_names[role] : "?";
}

char *cf_rs_path(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = cf_malloc(a + b + 2);
    if (p == NULL)
        return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

void cf_rs_manifest_init(cf_rs_manifest *m)
{
    memset(m, 0, sizeof(*m));
    cf_buf_init(&m->min_key);
    cf_buf_init(&m->max_key);
}

void cf_rs_manifest_dispose(cf_rs_manifest *m)
{
    cf_schema_free(m->schema);
    cf_buf_dispose(&m->min_key);
    cf_buf_dispose(&m->max_key);
    for (size_t i = 0; i < m->nfiles; i++)
        cf_free(m->files[i].name);
    cf_free(m->files);
    memset(m, 0, sizeof(*m));
}

cf_status cf_rs_manifest_add(cf_rs_manifest *m, int role, uint32_t col, const char *name,
                             cf_error *err)
{
    cf_rs_file *f = cf_realloc(m->files, (m->nfiles + 1) * sizeof(*f));
    CF_CHECK(f != NULL, err, CF_ENOMEM, "manifest: out of memory");
    m->files = f;
    size_t l = strlen(name);
    char *nm = cf_malloc(l + 1);
    CF_CHECK(nm != NULL, err, CF_ENOMEM, "manifest: out of memory");
    memcpy(nm, name, l + 1);
    f[m->nfiles++] = (cf_rs_file){role, col, nm};
    return CF_OK;
}

uint64_t cf_rs_fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void put_hex(cf_buf *b, const cf_buf *k)
{
    static const char hx[] = "0123456789abcdef";
    if (k->len == 0) {
        cf_buf_put_u8(b, '-');
        return;
    }
    for (size_t i = 0; i < k->len; i++) {
        cf_buf_put_u8(b, (uint8_t)hx[k->data[i] >> 4]);
        cf_buf_put_u8(b, (uint8_t)hx[k->data[i] & 15]);
    }
}

static void putf(cf_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(cf_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n > 0)
        cf_buf_append(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

cf_status cf_rs_manifest_write(const cf_rs_manifest *m, const char *dir, cf_error *err)
{
    return cf_rs_manifest_write_at(m, AT_FDCWD, dir, err);
}

cf_status cf_rs_manifest_write_at(const cf_rs_manifest *m, int dfd, const char *dir, cf_error *err)
{
    cf_buf b;
    cf_buf_init(&b);
    putf(&b,
         "cfile-rowset 1\ngeneration %" PRIu64 "\nnext_file %" PRIu64 "\ninsert_ts %" PRIu64
         "\nlast_ts %" PRIu64 "\nrows %" PRIu64 "\nmin_key ",
         m->generation, m->next_file, m->insert_ts, m->last_ts, m->rows);
    put_hex(&b, &m->min_key);
    putf(&b, "\nmax_key ");
    put_hex(&b, &m->max_key);
    putf(&b, "\n");
    if (m->ahm > 0) /* only then: older readers know no "ahm" line */
        putf(&b, "ahm %" PRIu64 "\n", m->ahm);
    const cf_schema *s = m->schema;
    for (size_t i = 0; i < s->ncols; i++) {
        const cf_column *c = &s->cols[i];
        char fl[4] = {0};
        size_t k = 0;
        if (c->is_key)
            fl[k++] = 'k';
        if (c->nullable)
            fl[k++] = 'n';
        if (c->is_array)
            fl[k++] = 'a';
        /* the name as the schema syntax writes it: bare, or `quoted` (names.c);
         * a quoted one is twice as long at most, more than putf's buffer holds */
        char qn[2 * CF_SCHEMA_MAX_NAME_LEN + 3];
        size_t ql = cf_schema_name_format(c->name, qn, sizeof(qn));
        putf(&b, "column ");
        cf_buf_append(&b, qn, ql < sizeof(qn) ? ql : sizeof(qn) - 1);
        putf(&b, " %s %s %s %s %u %d %d %d\n", cf_type_name(c->type), k ? fl : "-",
             c->encoding == CF_ENC_AUTO ? "AUTO" : cf_encoding_name(c->encoding),
             c->compression == CF_COMP_DEFAULT ? "DEFAULT" : cf_compression_name(c->compression),
             c->block_size, c->precision, c->scale, c->length);
    }
    for (size_t i = 0; i < m->nfiles; i++) {
        if (m->files[i].role == CF_RS_FILE_COLUMN)
            putf(&b, "file column %u %s\n", m->files[i].col, m->files[i].name);
        else
            putf(&b, "file %s - %s\n", cf_rs_role_name(m->files[i].role), m->files[i].name);
    }
    uint64_t h = cf_rs_fnv1a(b.data, b.len);
    putf(&b, "end %016" PRIx64 "\n", h);
    cf_status st = cf_buf_status(&b);
    cf_io *io = NULL;
    if (st != CF_OK)
        CF_FAIL_OUT(err, CF_ENOMEM, "manifest: out of memory");
    CF_TRY_OUT(cf_rs_create_file_at(&io, dfd, dir, CF_RS_MANIFEST, m->file_mode, err));
    CF_TRY_OUT(io->ops->append(io, b.data, b.len, err));
    CF_TRY_OUT(io->ops->commit(io, err));
out:
    cf_io_free(io);
    cf_buf_dispose(&b);
    return st;
}

/* ---- reading ------------------------------------------------------------------------------ */

static int unhex(cf_buf *out, const char *s)
{
    cf_buf_clear(out);
    if (strcmp(s, "-") == 0)
        return 0;
    size_t n = strlen(s);
    if (n % 2)
        return -1;
    for (size_t i = 0; i < n; i += 2) {
        int v = 0;
        for (int j = 0; j < 2; j++) {
            char c = s[i + (size_t)j];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0)
                return -1;
            v = v * 16 + d;
        }
        cf_buf_put_u8(out, (uint8_t)v);
    }
    return out->oom ? -1 : 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (*s == '\0')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || errno != 0 || *s == '-')
        return -1;
    *out = v;
    return 0;
}

/* Split the line at *p into fields (NUL-terminated in place; at most 12 kept,
 * *nf counts them all) and move *p past it. Fields are separated by spaces; a
 * field that opens with a backquote is a quoted column name (names.c), which
 * runs to its closing quote across spaces and newlines and is unquoted here. */
static cf_status next_line(char **pp, char **f, size_t *nf, size_t line, cf_error *err)
{
    char *p = *pp;
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == '\0' || *p == '\n')
            break;
        char *start = p;
        if (*p == '`') {
            char *d = p;
            for (p++;; p++) {
                CF_CHECK(*p != '\0', err, CF_ECORRUPT, "manifest line %zu: unclosed quote", line);
                if (*p == '`' && *++p != '`')
                    break;
                *d++ = *p;
            }
            CF_CHECK(*p == '\0' || *p == ' ' || *p == '\n', err, CF_ECORRUPT,
                     "manifest line %zu: text after a quoted name", line);
            *d = '\0'; /* d < p: the quotes took two bytes at least */
        } else {
            while (*p != '\0' && *p != ' ' && *p != '\n')
                p++;
        }
        if (*nf < 12)
            f[*nf] = start;
        (*nf)++;
        if (*p == ' ') {
            *p++ = '\0';
        } else if (*p == '\n') {
            *p++ = '\0';
            *pp = p;
            return CF_OK;
        }
    }
    if (*p == '\n')
        *p++ = '\0';
    *pp = p;
    return CF_OK;
}

static cf_status parse_lines(cf_rs_manifest *m, char *text, cf_column *cols, size_t *ncols,
                             cf_error *err)
{
    size_t line = 0;
    bool magic = false;
    for (char *p = text; *p;) {
        line++;
        char *f[12];
        size_t nf = 0;
        CF_TRY(next_line(&p, f, &nf, line, err));
        if (nf == 0)
            continue;
        uint64_t *num = NULL;
        if (strcmp(f[0], "cfile-rowset") == 0) {
            CF_CHECK(nf == 2, err, CF_ECORRUPT, "manifest line %zu: bad magic", line);
            CF_CHECK(strcmp(f[1], "1") == 0, err, CF_ENOTSUP, "manifest: version %s", f[1]);
            magic = true;
            continue;
        }
        CF_CHECK(magic, err, CF_ECORRUPT, "manifest: not a rowset manifest");
        if (strcmp(f[0], "generation") == 0)
            num = &m->generation;
        else if (strcmp(f[0], "next_file") == 0)
            num = &m->next_file;
        else if (strcmp(f[0], "insert_ts") == 0)
            num = &m->insert_ts;
        else if (strcmp(f[0], "last_ts") == 0)
            num = &m->last_ts;
        else if (strcmp(f[0], "rows") == 0)
            num = &m->rows;
        else if (strcmp(f[0], "ahm") == 0)
            num = &m->ahm;
        if (num != NULL) {
            CF_CHECK(nf == 2 && parse_u64(f[1], num) == 0, err, CF_ECORRUPT,
                     "manifest line %zu: bad %s", line, f[0]);
        } else if (strcmp(f[0], "min_key") == 0 || strcmp(f[0], "max_key") == 0) {
            CF_CHECK(nf == 2 && unhex(f[0][1] == 'i' ? &m->min_key : &m->max_key, f[1]) == 0, err,
                     CF_ECORRUPT, "manifest line %zu: bad %s", line, f[0]);
        } else if (strcmp(f[0], "column") == 0) {
            CF_CHECK(nf == 10 && *ncols < CF_SCHEMA_MAX_COLUMNS, err, CF_ECORRUPT,
                     "manifest line %zu: bad column", line);
            cf_column *c = &cols[(*ncols)++];
            memset(c, 0, sizeof(*c));
            c->name = f[1];
            uint64_t bs, pr, sc, le;
            CF_CHECK(
                cf_type_parse(&c->type, f[2]) == CF_OK &&
                    (strcmp(f[4], "AUTO") == 0 || cf_encoding_parse(&c->encoding, f[4]) == CF_OK) &&
                    (strcmp(f[5], "DEFAULT") == 0 ||
                     cf_compression_parse(&c->compression, f[5]) == CF_OK) &&
                    parse_u64(f[6], &bs) == 0 && bs <= UINT32_MAX && parse_u64(f[7], &pr) == 0 &&
                    pr < 1000 && parse_u64(f[8], &sc) == 0 && sc < 1000 &&
                    parse_u64(f[9], &le) == 0 && le < (1u << 30),
                err, CF_ECORRUPT, "manifest line %zu: bad column", line);
            c->is_key = strchr(f[3], 'k') != NULL;
            c->nullable = strchr(f[3], 'n') != NULL;
            c->is_array = strchr(f[3], 'a') != NULL;
            c->block_size = (uint32_t)bs;
            c->precision = (int)pr;
            c->scale = (int)sc;
            c->length = (int)le;
        } else if (strcmp(f[0], "file") == 0) {
            CF_CHECK(nf == 4 && strchr(f[3], '/') == NULL && f[3][0] != '.', err, CF_ECORRUPT,
                     "manifest line %zu: bad file", line);
            int role = -1;
            for (int r = 0; r < 5; r++)
                if (strcmp(f[1], role_names[r]) == 0)
                    role = r;
            uint64_t col = 0;
            CF_CHECK(role >= 0, err, CF_ECORRUPT, "manifest line %zu: bad file role", line);
            if (role == CF_RS_FILE_COLUMN)
                CF_CHECK(parse_u64(f[2], &col) == 0 && col < CF_SCHEMA_MAX_COLUMNS, err,
                         CF_ECORRUPT, "manifest line %zu: bad column id", line);
            CF_TRY(cf_rs_manifest_add(m, role, (uint32_t)col, f[3], err));
        } else {
            CF_FAIL(err, CF_ECORRUPT, "manifest line %zu: unknown field '%s'", line, f[0]);
        }
    }
    CF_CHECK(magic, err, CF_ECORRUPT, "manifest: empty");
    return CF_OK;
}

cf_status cf_rs_manifest_read(cf_rs_manifest *m, const char *dir, cf_error *err)
{
    return cf_rs_manifest_read_at(m, AT_FDCWD, dir, err);
}

cf_status cf_rs_manifest_read_at(cf_rs_manifest *m, int dfd, const char *dir, cf_error *err)
{
    return cf_rs_manifest_read_in(m, dfd, NULL, dir, err);
}

cf_status cf_rs_manifest_read_in(cf_rs_manifest *m, int dfd, const char *rel, const char *dir,
                                 cf_error *err)
{
    cf_rs_manifest_init(m);
    cf_status st = CF_OK;
    char *text = NULL;
    char *path = NULL, *relpath = NULL;
    cf_column *cols = NULL;
    cf_io *io = NULL;
    if ((path = cf_rs_path(dir, CF_RS_MANIFEST)) == NULL ||
        (rel != NULL && (relpath = cf_rs_path(rel, CF_RS_MANIFEST)) == NULL))
        CF_FAIL_OUT(err, CF_ENOMEM, "manifest: out of memory");
    const char *at = dfd == AT_FDCWD ? path : rel != NULL ? relpath : CF_RS_MANIFEST;
    if (faccessat(dfd, at, F_OK, 0) != 0)
        CF_FAIL_OUT(err, CF_ENOTFOUND, "%s: no rowset here (no %s)", dir, CF_RS_MANIFEST);
    CF_TRY_OUT(cf_io_open_file_at(&io, dfd, at, path, err));
    struct stat sb;
    if (fstatat(dfd, at, &sb, 0) == 0)
        m->file_mode = (unsigned)(sb.st_mode & 07777); /* what files added to it get */
    uint64_t size = io->ops->size(io);
    if (size > MAX_MANIFEST_LEN)
        CF_FAIL_OUT(err, CF_ECORRUPT, "manifest: %" PRIu64 " bytes is too large", size);
    text = cf_malloc((size_t)size + 1);
    cols = cf_calloc(CF_SCHEMA_MAX_COLUMNS, sizeof(*cols));
    if (text == NULL || cols == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "manifest: out of memory");
    CF_TRY_OUT(io->ops->read_at(io, 0, text, (size_t)size, err));
    text[size] = '\0';
    /* The checksum line: "end " + 16 hex + "\n" = 21 bytes at the very end. */
    if (size < 21 || memcmp(text + size - 21, "end ", 4) != 0 || text[size - 1] != '\n')
        CF_FAIL_OUT(err, CF_ECORRUPT, "manifest: truncated (no end line)");
    uint64_t want = strtoull(text + size - 17, NULL, 16);
    if (cf_rs_fnv1a((const uint8_t *)text, (size_t)size - 21) != want)
        CF_FAIL_OUT(err, CF_ECORRUPT, "manifest: checksum mismatch");
    text[size - 21] = '\0';
    size_t ncols = 0;
    CF_TRY_OUT(parse_lines(m, text, cols, &ncols, err));
    m->checksum = want;
    CF_TRY_OUT(cf_schema_create(&m->schema, cols, ncols, err));
    for (size_t i = 0; i < m->nfiles; i++)
        if (m->files[i].role == CF_RS_FILE_COLUMN && m->files[i].col >= ncols)
            CF_FAIL_OUT(err, CF_ECORRUPT, "manifest: file for column %u of %zu", m->files[i].col,
                        ncols);
out:
    if (st != CF_OK)
        cf_rs_manifest_dispose(m);
    cf_io_free(io);
    cf_free(path);
    cf_free(relpath);
    cf_free(text);
    cf_free(cols);
    return st;
}

/* ---- garbage ----------------------------------------------------------------------------
 *
 * Clean-up removes only what this library wrote (docs/ROWSET.md "Clean-up"):
 * names of the exact forms our writers produce, checked with lstat to be
 * regular files (a symlink is never followed nor removed), and of those only
 * the ones the committed metadata proves obsolete: named by the MANIFEST that a
 * commit just replaced, or numbered at or past the committed next_file (an
 * unfinished generation: every writer numbers its files from next_file and
 * only a commit moves it on). A user's "2023-sales.cfile" or
 * "1.col0.cfile.bak" never has such a name.
 */

/* Decimal digits without a leading zero (or "0"); advances *p. */
static bool digits(const char **p, uint64_t *v)
{
    const char *s = *p;
    if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
        return false;
    uint64_t x = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (x > (UINT64_MAX - 9) / 10)
            return false;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = x;
    *p = s;
    return true;
}

bool cf_rs_data_name(const char *n, uint64_t *num)
{
    uint64_t id, col;
    if (!digits(&n, &id) || *n++ != '.')
        return false;
    *num = id;
    if (strncmp(n, "col", 3) == 0) {
        n += 3;
        return digits(&n, &col) && col < CF_SCHEMA_MAX_COLUMNS && strcmp(n, ".cfile") == 0;
    }
    return strcmp(n, "bloom.cfile") == 0 || strcmp(n, "adhoc.cfile") == 0 ||
           strcmp(n, "redo.delta") == 0 || strcmp(n, "undo.delta") == 0;
}

bool cf_rs_tmp_name(const char *n, const char *base)
{
    /* cf_io_create_file: PATH ".tmp." PID "." 16 hex digits */
    const char *t = strstr(n, ".tmp.");
    while (t != NULL && strstr(t + 1, ".tmp.") != NULL)
        t = strstr(t + 1, ".tmp.");
    if (t == NULL)
        return false;
    const char *p = t + 5;
    uint64_t pid;
    if (!digits(&p, &pid) || *p++ != '.' || strlen(p) != 16)
        return false;
    for (size_t i = 0; i < 16; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return false;
    size_t bl = (size_t)(t - n);
    char b[128];
    if (bl >= sizeof(b))
        return false;
    memcpy(b, n, bl);
    b[bl] = '\0';
    if (base != NULL)
        return strcmp(b, base) == 0;
    uint64_t num;
    return strcmp(b, CF_RS_MANIFEST) == 0 || cf_rs_data_name(b, &num);
}

/* Is dir/name a regular file (lstat: not a symlink, not a directory)? */
static bool regular(int dfd, const char *dir, const char *name)
{
    struct stat sb;
    return cf_rs_lstat_at(dfd, dir, name, &sb) == 0 && S_ISREG(sb.st_mode);
}

static bool names_file(const cf_rs_manifest *m, const char *name)
{
    for (size_t i = 0; m != NULL && i < m->nfiles; i++)
        if (strcmp(m->files[i].name, name) == 0)
            return true;
    return false;
}

void cf_rs_gc(const char *dir, const cf_rs_manifest *now, const cf_rs_manifest *prev,
              uint64_t first_unfinished)
{
    cf_rs_gc_at(AT_FDCWD, dir, now, prev, first_unfinished);
}

void cf_rs_gc_at(int dfd, const char *dir, const cf_rs_manifest *now, const cf_rs_manifest *prev,
                 uint64_t first_unfinished)
{
    DIR *d = cf_rs_opendir_at(dfd, dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        uint64_t num;
        bool drop;
        if (cf_rs_data_name(n, &num))
            drop = !names_file(now, n) && (names_file(prev, n) || num >= first_unfinished);
        else
            drop = cf_rs_tmp_name(n, NULL); /* a write cut short: never committed */
        if (drop && regular(dfd, dir, n))
            cf_rs_unlink_at(dfd, dir, n, false);
    }
    closedir(d);
}

bool cf_rs_remove_dead_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return cf_rs_remove_dead_dir_at(AT_FDCWD, ".", path);
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *parent = cf_malloc(n + 1);
    if (parent == NULL)
        return false;
    memcpy(parent, path, n);
    parent[n] = '\0';
    bool gone = cf_rs_remove_dead_dir_at(AT_FDCWD, parent, slash + 1);
    cf_free(parent);
    return gone;
}

bool cf_rs_remove_dead_dir_at(int pdfd, const char *parent, const char *name)
{
    struct stat sb;
    if (cf_rs_lstat_at(pdfd, parent, name, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return false; /* a symlink (or anything else) named like a rowset: not ours */
    char *path = cf_rs_path(parent, name); /* for messages only */
    int dfd = cf_rs_subdir_open(pdfd, parent, name);
    if (path == NULL || dfd < 0) {
        cf_free(path);
        cf_rs_dir_close(dfd);
        return false;
    }
    /* Every data file of a rowset no TABLET names is obsolete; the MANIFEST goes
     * last, so a crash midway leaves a directory the next clean-up recognises. */
    cf_rs_gc_at(dfd, path, NULL, NULL, 0);
    /* Only once every data file is gone: a removal that failed (out of memory
     * for a path) must leave the MANIFEST that lets the next clean-up know the
     * directory is ours, or the rest would stay for good. */
    uint64_t num;
    bool data_left = false;
    DIR *d = cf_rs_opendir_at(dfd, path);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL && !data_left)
        data_left = cf_rs_data_name(e->d_name, &num) || cf_rs_tmp_name(e->d_name, NULL);
    if (d != NULL)
        closedir(d);
    if (d != NULL && !data_left && regular(dfd, path, CF_RS_MANIFEST))
        cf_rs_unlink_at(dfd, path, CF_RS_MANIFEST, false);
    cf_rs_dir_close(dfd);
    cf_free(path);
    /* fails, keeping them, when anything else is inside */
    return cf_rs_unlink_at(pdfd, parent, name, true) == 0;
}
