/* Writing a rowset in one pass (format §13): per row, the encoded key goes to the
 * BloomFile and (compound keys) the ad-hoc index; per column, the values go to
 * that column's CFile. Every file is created atomically by the io layer and only
 * the MANIFEST, written last, makes the rowset visible. Memory stays bounded:
 * each CFile writer holds one block, the key check keeps the previous key only.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "wal.h"

#include "util/alloc.h"
#include "util/error.h"

struct cf_rowset_writer {
    char *dir; /* for messages: files are created in dfd */
    int dfd;   /* the directory, held open by the caller (AT_FDCWD: by path) */
    cf_schema *s;
    cf_rowset_writer_options o;
    cf_rs_manifest own;
    cf_rs_manifest *m; /* &own, or the caller's during compaction */
    uint64_t file_id;
    cf_writer **cols;
    cf_bloom_writer *bloom;
    cf_writer *adhoc;
    /* The files the writers above write through (borrowed by them): created by
     * us with the MANIFEST's file_mode, freed after them. */
    cf_io **cols_io, *bloom_io, *adhoc_io;
    cf_writer *keyfile; /* adhoc, or the first column's writer */
    cf_buf prev, keys, first;
    cf_slice *slices;
    size_t slices_cap;
    uint64_t rows;
    cf_sticky failed; /* the first failure, replayed by every later call */
    bool finished;
    int lock_fd; /* cf_rowset_writer_create: the directory's writer lock; else -1 */
    int own_dfd; /* cf_rowset_writer_create: dfd, ours to close; else -1 */
};

void cf_rowset_writer_options_init(cf_rowset_writer_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_ROWSET_WRITER_OPTIONS_VERSION;
    opts->insert_ts = 1;
    opts->checksums = true;
    opts->lock_timeout_ms = CF_RS_LOCK_TIMEOUT_MS;
}

static void file_name(char *dst, size_t cap, uint64_t id, const char *what)
{
    snprintf(dst, cap, "%" PRIu64 ".%s", id, what);
}

/* Create dir when missing (*made says so) and hold it open as *dfd: every
 * later step reaches it through that descriptor, never by its path again. */
static cf_status make_dir(const char *dir, bool *made, int *dfd, cf_error *err)
{
    *dfd = -1;
    *made = mkdir(dir, 0777) == 0;
    if (!*made && errno != EEXIST)
        CF_FAIL(err, CF_EIO, "%s: cannot create directory: %s", dir, strerror(errno));
    if ((*dfd = cf_rs_dir_open(dir)) >= 0)
        return CF_OK;
    int e = errno;
    if (*made)
        rmdir(dir);
    CF_CHECK(e != ENOTDIR, err, CF_EINVAL, "%s: not a directory", dir);
    CF_FAIL(err, CF_EIO, "%s: cannot open directory: %s", dir, strerror(e));
}

/* Create file `name` in the rowset's directory with the rowset's mode from
 * the start (open(2)'s mode, not a chmod after: a table made private never has
 * a file others may read, even for a moment). */
static cf_status create_file(cf_io **io, const cf_rowset_writer *w, const char *name, cf_error *err)
{
    return cf_rs_create_file_at(io, w->dfd, w->dir, name, w->m->file_mode, err);
}

cf_status cf_rs_delta_open(cf_delta_writer **w, cf_io **io, char *name, int dfd, const char *dir,
                           cf_rs_manifest *m, cf_delta_type t, cf_error *err)
{
    if (*w != NULL)
        return CF_OK;
    snprintf(name, CF_RS_DELTA_NAME_MAX, "%" PRIu64 ".%s.delta", m->next_file++,
             t == CF_DELTA_UNDO ? "undo" : "redo");
    cf_delta_writer_options o;
    cf_delta_writer_options_init(&o);
    o.type = t;
    CF_TRY(cf_rs_create_file_at(io, dfd, dir, name, m->file_mode, err));
    return cf_delta_writer_create(w, *io, &o, err);
}

/* Free the writers, then the files they wrote through (removing what was not
 * committed). */
static void free_writers(cf_rowset_writer *w)
{
    for (size_t i = 0; w->cols != NULL && i < w->s->ncols; i++) {
        cf_writer_free(w->cols[i]);
        w->cols[i] = NULL;
        if (w->cols_io != NULL) {
            cf_io_free(w->cols_io[i]);
            w->cols_io[i] = NULL;
        }
    }
    cf_bloom_writer_free(w->bloom);
    w->bloom = NULL;
    cf_io_free(w->bloom_io);
    w->bloom_io = NULL;
    cf_writer_free(w->adhoc);
    w->adhoc = NULL;
    cf_io_free(w->adhoc_io);
    w->adhoc_io = NULL;
}

static cf_status open_writers(cf_rowset_writer *w, cf_error *err)
{
    const cf_schema *s = w->s;
    char name[96];
    w->cols = cf_calloc(s->ncols, sizeof(*w->cols));
    w->cols_io = cf_calloc(s->ncols, sizeof(*w->cols_io));
    CF_CHECK(w->cols != NULL && w->cols_io != NULL, err, CF_ENOMEM, "rowset writer: out of memory");
    for (size_t i = 0; i < s->ncols; i++) {
        const cf_column *c = &s->cols[i];
        cf_writer_options o;
        cf_writer_options_init(&o, c->type);
        o.encoding = c->encoding;
        o.compression = c->compression;
        o.nullable = c->nullable;
        o.is_array = c->is_array;
        o.block_size = c->block_size;
        o.checksums = w->o.checksums;
        o.write_posidx = true;
        /* format §13: the first column carries a value index when it is the whole key. */
        o.write_validx = i == 0 && s->nkeys == 1;
        char what[32];
        snprintf(what, sizeof(what), "col%zu.cfile", i);
        file_name(name, sizeof(name), w->file_id, what);
        cf_status st = create_file(&w->cols_io[i], w, name, err);
        if (st == CF_OK)
            st = cf_writer_create(&w->cols[i], w->cols_io[i], &o, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "column '%s': ", c->name);
    }
    cf_bloom_writer_options bo;
    cf_bloom_writer_options_init(&bo);
    bo.checksums = w->o.checksums;
    file_name(name, sizeof(name), w->file_id, "bloom.cfile");
    CF_TRY(create_file(&w->bloom_io, w, name, err));
    CF_TRY(cf_bloom_writer_create(&w->bloom, w->bloom_io, &bo, err));
    w->keyfile = w->cols[0];
    if (s->nkeys > 1) {
        /* format §13: the ad-hoc index of a compound key. */
        cf_writer_options o;
        cf_writer_options_init(&o, CF_TYPE_BINARY);
        o.encoding = CF_ENC_PREFIX;
        o.compression = CF_COMP_LZ4;
        o.block_size = 4096;
        o.write_validx = true;
        o.write_posidx = false;
        o.checksums = w->o.checksums;
        file_name(name, sizeof(name), w->file_id, "adhoc.cfile");
        CF_TRY(create_file(&w->adhoc_io, w, name, err));
        CF_TRY(cf_writer_create(&w->adhoc, w->adhoc_io, &o, err));
        w->keyfile = w->adhoc;
    }
    return CF_OK;
}

cf_status cf_rowset_writer_create_in(cf_rowset_writer **out, int dfd, const char *dir,
                                     const cf_schema *s, const cf_rowset_writer_options *o,
                                     cf_rs_manifest *m, cf_error *err)
{
    *out = NULL;
    CF_CHECK(cf_schema_key_count(s) > 0, err, CF_EINVAL, "rowset writer: schema: no KEY column");
    cf_rowset_writer *w = cf_calloc(1, sizeof(*w));
    CF_CHECK(w != NULL, err, CF_ENOMEM, "rowset writer: out of memory");
    w->lock_fd = -1;
    w->own_dfd = -1;
    w->dfd = dfd;
    cf_rs_manifest_init(&w->own);
    cf_buf_init(&w->prev);
    cf_buf_init(&w->keys);
    cf_buf_init(&w->first);
    cf_status st = CF_OK;
    if (o != NULL)
        w->o = *o;
    else
        cf_rowset_writer_options_init(&w->o);
    if (w->o.version != CF_ROWSET_WRITER_OPTIONS_VERSION)
        CF_FAIL_OUT(err, CF_EINVAL, "rowset writer: options.version %u unknown", w->o.version);
    size_t dl = strlen(dir);
    w->dir = cf_malloc(dl + 1);
    if (w->dir == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "rowset writer: out of memory");
    memcpy(w->dir, dir, dl + 1);
    CF_TRY_OUT(cf_schema_clone(&w->s, s, err));
    w->m = m;
    w->file_id = m->next_file++;
    CF_TRY_OUT(open_writers(w, err));
out:
    if (st != CF_OK) {
        cf_rowset_writer_free(w);
        return st;
    }
    *out = w;
    return CF_OK;
}

/* A new rowset goes only into a directory that is empty or holds only what our
 * writers leave: the LOCK, an empty rowset's MANIFEST, an unfinished
 * generation's data files (numbered next_file; with no MANIFEST, 1) and
 * temporaries. Anything else is the user's: CF_EINVAL naming it. */
static cf_status check_dir_ours(int dfd, const char *dir, bool has_manifest, uint64_t next,
                                cf_error *err)
{
    DIR *d = cf_rs_opendir_at(dfd, dir);
    CF_CHECK(d != NULL, err, CF_EIO, "%s: cannot list: %s", dir, strerror(errno));
    struct dirent *e;
    cf_status st = CF_OK;
    while (st == CF_OK && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        uint64_t num;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || strcmp(n, CF_RS_LOCK) == 0 ||
            (has_manifest && strcmp(n, CF_RS_MANIFEST) == 0) || cf_rs_tmp_name(n, NULL) ||
            /* a write-ahead log without records (checked before this) */
            (has_manifest && strcmp(n, CF_WAL_DIR) == 0) ||
            (cf_rs_data_name(n, &num) && num == next))
            continue;
        if (strcmp(n, CF_RS_TABLET) == 0 ||
            (strncmp(n, "rs-", 3) == 0 && n[3] >= '0' && n[3] <= '9'))
            st = cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                              "%s: already holds a table ('%s')", dir, n);
        else
            st = cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                              "%s: not empty and not a table of ours (holds '%s'); use an "
                              "empty or new directory",
                              dir, n);
    }
    closedir(d);
    return st;
}

cf_status cf_rowset_writer_create(cf_rowset_writer **out, const char *dir, const cf_schema *s,
                                  const cf_rowset_writer_options *opts, cf_error *err)
{
    *out = NULL;
    cf_rowset_writer_options dflt;
    if (opts == NULL) {
        cf_rowset_writer_options_init(&dflt);
        opts = &dflt;
    }
    CF_TRY(cf_rs_check_ts_range(opts->insert_ts, err));
    bool made_dir, made_lock = false;
    int dfd;
    CF_TRY(make_dir(dir, &made_dir, &dfd, err));
    /* Everything below reads and writes under the lock, so the checks hold until
     * the MANIFEST is written. */
    char *ld;
    int ldfd = cf_rs_lock_dir_open(dfd, dir, &ld); /* dfd, or its table's */
    bool own_ldfd = ldfd != dfd;
    int lock_fd = -1;
    cf_status st =
        ldfd == -1
            ? cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "rowset writer: out of memory")
            : cf_rs_lock_acquire_at(&lock_fd, &made_lock, ldfd, ld, opts->lock_timeout_ms, err);
    if (st != CF_OK) {
        if (own_ldfd)
            cf_rs_dir_close(ldfd);
        cf_free(ld);
        cf_rs_dir_close(dfd);
        if (made_dir)
            rmdir(dir);
        return st;
    }
    cf_rs_manifest old;
    cf_error e2;
    uint64_t gen = 0, next = 1, last = 0;
    unsigned mode = 0;
    struct stat sb;
    if (cf_rs_lstat_at(dfd, dir, CF_RS_TABLET, &sb) == 0)
        CF_FAIL_OUT(err, CF_EINVAL, "%s: already holds a table", dir);
    /* Logged ops (a table's write-ahead log) are rows too: replacing the rowset
     * under them would replay them onto rows they never saw. */
    if (cf_wal_has_records_at(dfd, dir))
        CF_FAIL_OUT(err, CF_EINVAL, "%s: already holds a table (with logged changes)", dir);
    st = cf_rs_manifest_read_at(&old, dfd, dir, &e2);
    bool has_manifest = st == CF_OK;
    if (st == CF_OK) {
        bool empty = old.rows == 0;
        gen = old.generation;
        next = old.next_file;
        last = old.last_ts;
        mode = old.file_mode;
        cf_rs_manifest_dispose(&old);
        if (!empty)
            CF_FAIL_OUT(err, CF_EINVAL, "%s: already holds a rowset with rows", dir);
    } else if (st != CF_ENOTFOUND) {
        *err = e2;
        goto out;
    }
    st = CF_OK;
    CF_TRY_OUT(check_dir_ours(dfd, dir, has_manifest, next, err));
    /* Leftovers of a crashed writer: numbered from the committed next_file. */
    cf_rs_gc_at(dfd, dir, NULL, NULL, next);
    cf_rs_manifest tmp;
    cf_rs_manifest_init(&tmp);
    tmp.next_file = next;
    tmp.file_mode = mode; /* an empty rowset's files take its MANIFEST's bits */
    cf_rowset_writer *w;
    st = cf_rowset_writer_create_in(&w, dfd, dir, s, opts, &tmp, err);
    if (st != CF_OK) {
        cf_rs_manifest_dispose(&tmp);
        goto out;
    }
    w->own_dfd = dfd;
    dfd = -1;
    w->lock_fd = lock_fd;
    lock_fd = -1;
    w->own = tmp;
    w->m = &w->own;
    w->own.generation = gen + 1;
    w->own.insert_ts = w->o.insert_ts;
    w->own.last_ts = last > w->o.insert_ts ? last : w->o.insert_ts;
    *out = w;
out:
    /* Refused or failed: what this call made goes again (a LOCK only while still
     * held; the directory only when it is empty). */
    if (st != CF_OK && made_lock)
        cf_rs_lock_remove_at(lock_fd, ldfd, ld);
    else
        cf_rs_lock_release(lock_fd);
    if (own_ldfd)
        cf_rs_dir_close(ldfd);
    cf_rs_dir_close(dfd);
    if (st != CF_OK && made_dir)
        rmdir(dir);
    cf_free(ld);
    return st;
}

static cf_status append(cf_rowset_writer *w, const cf_colvec *cols, size_t nrows, cf_error *err)
{
    const cf_schema *s = w->s;
    if (nrows > w->slices_cap) {
        cf_slice *p = cf_realloc(w->slices, nrows * sizeof(*p));
        CF_CHECK(p != NULL, err, CF_ENOMEM, "rowset writer: out of memory");
        w->slices = p;
        w->slices_cap = nrows;
    }
    /* Encode every key first (offsets, since the buffer may move), then check order. */
    cf_buf_clear(&w->keys);
    for (size_t i = 0; i < nrows; i++) {
        size_t start = w->keys.len;
        cf_rs_key_append_row(&w->keys, s, cols, i);
        w->slices[i].data = (const uint8_t *)(uintptr_t)start;
        w->slices[i].len = w->keys.len - start;
    }
    CF_CHECK(!w->keys.oom, err, CF_ENOMEM, "rowset writer: out of memory");
    for (size_t i = 0; i < nrows; i++) {
        w->slices[i].data = w->keys.data + (uintptr_t)w->slices[i].data;
        const cf_slice *k = &w->slices[i];
        const uint8_t *pd = i ? w->slices[i - 1].data : w->prev.data;
        size_t pl = i ? w->slices[i - 1].len : w->prev.len;
        if (w->rows + i > 0) {
            int c = cf_rs_bytes_cmp(pd, pl, k->data, k->len);
            CF_CHECK(c != 0, err, CF_EINVAL, "row %" PRIu64 ": duplicate key", w->rows + i);
            CF_CHECK(c < 0, err, CF_EINVAL,
                     "row %" PRIu64 ": key out of order (rows must come in key order)",
                     w->rows + i);
        }
    }
    cf_status st;
    for (size_t i = 0; i < nrows; i++) {
        st = cf_bloom_writer_add(w->bloom, w->slices[i], err);
        CF_TRY(st);
    }
    if (w->adhoc != NULL) {
        st = cf_writer_append(w->adhoc, w->slices, NULL, nrows, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "key index: ");
    }
    for (size_t c = 0; c < s->ncols; c++) {
        const cf_colvec *v = &cols[c];
        if (s->cols[c].is_array)
            st = cf_writer_append_arrays(w->cols[c], v->values, v->elem_nonnull, v->elem_counts,
                                         v->nonnull, nrows, err);
        else
            st = cf_writer_append(w->cols[c], v->values, s->cols[c].nullable ? v->nonnull : NULL,
                                  nrows, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "column '%s': ", s->cols[c].name);
    }
    if (w->rows == 0) {
        cf_buf_clear(&w->first);
        cf_buf_append(&w->first, w->slices[0].data, w->slices[0].len);
    }
    cf_buf_clear(&w->prev);
    cf_buf_append(&w->prev, w->slices[nrows - 1].data, w->slices[nrows - 1].len);
    CF_CHECK(!w->prev.oom && !w->first.oom, err, CF_ENOMEM, "rowset writer: out of memory");
    w->rows += nrows;
    return CF_OK;
}

cf_status cf_rowset_writer_append(cf_rowset_writer *w, const cf_colvec *cols, size_t nrows,
                                  cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->failed, "rowset writer", err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "rowset writer: append after finish");
    if (nrows == 0)
        return CF_OK;
    return cf_sticky_set(&w->failed, append(w, cols, nrows, err), err);
}

static cf_status finish_files(cf_rowset_writer *w, cf_rs_manifest *m, cf_error *err)
{
    cf_status st = CF_OK;
    m->rows = w->rows;
    cf_buf_clear(&m->min_key);
    cf_buf_clear(&m->max_key);
    if (w->rows == 0) {
        /* An empty rowset has no files: abandon them all. */
        free_writers(w);
        return CF_OK;
    }
    /* format §13: the key file's footer holds the first and last keys. */
    CF_TRY_OUT(cf_writer_add_metadata(w->keyfile, "min_key", w->first.data, w->first.len, err));
    CF_TRY_OUT(cf_writer_add_metadata(w->keyfile, "max_key", w->prev.data, w->prev.len, err));
    char name[96];
    for (size_t i = 0; i < w->s->ncols; i++) {
        CF_TRY_OUT(cf_writer_finish(w->cols[i], err));
        snprintf(name, sizeof(name), "%" PRIu64 ".col%zu.cfile", w->file_id, i);
        CF_TRY_OUT(cf_rs_manifest_add(m, CF_RS_FILE_COLUMN, (uint32_t)i, name, err));
    }
    CF_TRY_OUT(cf_bloom_writer_finish(w->bloom, err));
    snprintf(name, sizeof(name), "%" PRIu64 ".bloom.cfile", w->file_id);
    CF_TRY_OUT(cf_rs_manifest_add(m, CF_RS_FILE_BLOOM, 0, name, err));
    if (w->adhoc != NULL) {
        CF_TRY_OUT(cf_writer_finish(w->adhoc, err));
        snprintf(name, sizeof(name), "%" PRIu64 ".adhoc.cfile", w->file_id);
        CF_TRY_OUT(cf_rs_manifest_add(m, CF_RS_FILE_ADHOC, 0, name, err));
    }
    cf_buf_append(&m->min_key, w->first.data, w->first.len);
    cf_buf_append(&m->max_key, w->prev.data, w->prev.len);
    if (m->min_key.oom || m->max_key.oom)
        CF_FAIL_OUT(err, CF_ENOMEM, "rowset writer: out of memory");
out:
    return st;
}

cf_status cf_rowset_writer_finish_files(cf_rowset_writer *w, cf_rs_manifest *m, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->failed, "rowset writer", err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "rowset writer: finished twice");
    w->finished = true;
    return cf_sticky_set(&w->failed, finish_files(w, m, err), err);
}

cf_status cf_rowset_writer_finish(cf_rowset_writer *w, cf_error *err)
{
    CF_CHECK(w->m == &w->own, err, CF_ESTATE, "rowset writer: internal writer");
    CF_TRY(cf_rowset_writer_finish_files(w, &w->own, err));
    cf_status st = cf_schema_clone(&w->own.schema, w->s, err);
    if (st == CF_OK)
        st = cf_rs_manifest_write_at(&w->own, w->dfd, w->dir, err);
    return cf_sticky_set(&w->failed, st, err);
}

uint64_t cf_rowset_writer_rows(const cf_rowset_writer *w)
{
    return w->rows;
}

void cf_rowset_writer_free(cf_rowset_writer *w)
{
    if (w == NULL)
        return;
    free_writers(w);
    cf_rs_dir_close(w->own_dfd); /* after the writers that wrote in it */
    cf_free(w->cols);
    cf_free(w->cols_io);
    cf_schema_free(w->s);
    cf_rs_manifest_dispose(&w->own);
    cf_buf_dispose(&w->prev);
    cf_buf_dispose(&w->keys);
    cf_buf_dispose(&w->first);
    cf_free(w->slices);
    cf_free(w->dir);
    cf_rs_lock_release(w->lock_fd); /* after every file is closed */
    cf_free(w);
}

cf_status cf_rowset_create_empty(const char *dir, const cf_schema *s, cf_error *err)
{
    cf_rowset_writer *w;
    CF_TRY(cf_rowset_writer_create(&w, dir, s, NULL, err));
    cf_status st = cf_rowset_writer_finish(w, err);
    cf_rowset_writer_free(w);
    return st;
}
