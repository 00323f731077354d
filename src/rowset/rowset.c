/* Opening a rowset, its in-memory delta store (DMS), point lookups and
 * mutations. Scans live in scan.c, compaction in compact.c.
 *
 * The DMS holds (row, ts, RowChangeList) triples in memory. Reads see it through
 * a DeltaFile built in memory from it (rebuilt after each change, before the next
 * read), so every read path applies deltas through the delta layer's applier;
 * cf_rowset_flush writes the same DeltaFile to disk as a REDO file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#include "bloom/bloom.h"
#include "cfile/extend.h"
#include "delta/delta_internal.h"

#include "util/alloc.h"
#include "util/error.h"

typedef struct dms_ent {
    uint32_t row;
    uint64_t ts;
    size_t off, len;
} dms_ent;

struct cf_rowset {
    char *dir; /* for messages: files are reached through the directory's fd */
    /* The directory: a standalone rowset holds it open (dfd; AT_FDCWD: by path
     * only); a table's rowset is `rel` below the table's descriptor pdfd
     * (borrowed), opened from it for each operation (cf_rs_dir_use), so a
     * table of many rowsets holds one descriptor, not one per rowset. */
    int dfd, pdfd;
    char *rel; /* NULL: dfd */
    cf_rs_mode mode;
    int lock_fd; /* CF_RS_MODE_OWN, once a mutation took the writer lock; else -1 */
    bool replay; /* a table's log replay: mutations of memory only, no lock needed */
    /* Files open? A rowset of a table opened for writing (CF_RS_MODE_TABLE)
     * or by a pinned reader (CF_RS_MODE_READ_PINNED) reads only its MANIFEST
     * at open and opens its files at first use (cf_rs_load): under the writer
     * lock, or the reader pin, nothing removes them meanwhile. Every other mode
     * opens them at once. */
    bool loaded;
    uint32_t lock_timeout_ms;
    bool mmap;                   /* cf_rowset_options.mmap: map the files instead of pread */
    cf_cache *cache, *own_cache; /* every reader reads through cache; own_cache is freed with rs */
    cf_rs_manifest m;
    cf_reader **col;
    cf_bloom_reader *bloom;
    cf_reader *adhoc;
    cf_delta_reader **dfiles; /* UNDO files first, then REDO files, each in MANIFEST order */
    cf_delta_type *dtypes;
    size_t ndfiles;
    uint64_t redo_deltas, undo_deltas;
    cf_iter *key_it;
    dms_ent *dms;
    size_t ndms, dms_cap;
    cf_buf dms_bytes;
    bool dms_dirty;
    cf_io *dms_wio, *dms_rio;
    cf_delta_reader *dms_reader;
    cf_rowset_scanner *get_all, *get_files;
    uint64_t get_all_snap;
    cf_rcl_builder *rcl;
    cf_buf keybuf;
};

/* ---- open / close ------------------------------------------------------------------------ */

/* Everything opened from the MANIFEST's files (not the MANIFEST itself). */
static void close_data(cf_rowset *rs)
{
    cf_rowset_scanner_free(rs->get_all);
    cf_rowset_scanner_free(rs->get_files);
    rs->get_all = rs->get_files = NULL;
    cf_iter_free(rs->key_it);
    rs->key_it = NULL;
    if (rs->col != NULL && rs->m.schema != NULL)
        for (size_t i = 0; i < rs->m.schema->ncols; i++)
            cf_reader_free(rs->col[i]);
    cf_free(rs->col);
    rs->col = NULL;
    cf_bloom_reader_free(rs->bloom);
    rs->bloom = NULL;
    cf_reader_free(rs->adhoc);
    rs->adhoc = NULL;
    for (size_t i = 0; i < rs->ndfiles; i++)
        cf_delta_reader_free(rs->dfiles[i]);
    cf_free(rs->dfiles);
    cf_free(rs->dtypes);
    rs->dfiles = NULL;
    rs->dtypes = NULL;
    rs->ndfiles = 0;
    rs->redo_deltas = rs->undo_deltas = 0;
    rs->loaded = false;
}

static void close_files(cf_rowset *rs)
{
    close_data(rs);
    cf_rs_manifest_dispose(&rs->m);
}

int cf_rs_dir_use(const cf_rowset *rs)
{
    if (rs->rel == NULL)
        return rs->dfd;
    int fd;
    do
        fd = openat(rs->pdfd, rs->rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    return fd;
}

void cf_rs_dir_done(const cf_rowset *rs, int fd)
{
    if (rs->rel != NULL && fd >= 0)
        close(fd);
}

/* cf_rs_dir_use, failing with CF_EIO naming the directory. */
static cf_status dir_use(const cf_rowset *rs, int *fd, cf_error *err)
{
    *fd = cf_rs_dir_use(rs);
    CF_CHECK(*fd != -1, err, CF_EIO, "%s: %s", rs->dir, strerror(errno));
    return CF_OK;
}

/* Read the MANIFEST on disk into *m. */
static cf_status read_manifest(const cf_rowset *rs, cf_rs_manifest *m, cf_error *err)
{
    /* A table's rowset: its MANIFEST through the table's descriptor, without
     * opening the rowset's directory just for that (a table's open reads every
     * rowset's MANIFEST; its other files wait for first use). */
    if (rs->rel != NULL)
        return cf_rs_manifest_read_in(m, rs->pdfd, rs->rel, rs->dir, err);
    return cf_rs_manifest_read_at(m, rs->dfd, rs->dir, err);
}

/* Open every file the MANIFEST (read already) names. */
static cf_status open_data(cf_rowset *rs, cf_error *err)
{
    const cf_schema *s = rs->m.schema;
    cf_status st = CF_OK;
    int dfd;
    CF_TRY(dir_use(rs, &dfd, err));
    rs->col = cf_calloc(s->ncols, sizeof(*rs->col));
    rs->dfiles = cf_calloc(rs->m.nfiles + 1, sizeof(*rs->dfiles));
    rs->dtypes = cf_calloc(rs->m.nfiles + 1, sizeof(*rs->dtypes));
    if (rs->col == NULL || rs->dfiles == NULL || rs->dtypes == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "rowset: out of memory");
    cf_reader_options ro;
    cf_reader_options_init(&ro);
    ro.cache = rs->cache;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < rs->m.nfiles; i++) {
            const cf_rs_file *f = &rs->m.files[i];
            bool delta = f->role == CF_RS_FILE_REDO || f->role == CF_RS_FILE_UNDO;
            /* pass 0: everything but REDO files (so UNDO files come first); pass 1: REDO. */
            if ((pass == 0) == (f->role == CF_RS_FILE_REDO))
                continue;
            if (f->role == CF_RS_FILE_COLUMN && rs->col[f->col] != NULL)
                CF_FAIL_OUT(err, CF_ECORRUPT, "manifest: column %u named twice", f->col);
            if ((f->role == CF_RS_FILE_BLOOM && rs->bloom != NULL) ||
                (f->role == CF_RS_FILE_ADHOC && rs->adhoc != NULL))
                CF_FAIL_OUT(err, CF_ECORRUPT, "manifest: a second %s file (%s)",
                            cf_rs_role_name(f->role), f->name);
            cf_io *io = NULL; /* taken over by the reader opened on it */
            /* delta files are read with pread, as cf_delta_reader_open_file does */
            st = cf_rs_open_file_at(&io, dfd, rs->dir, f->name, rs->mmap && !delta, err);
            if (st != CF_OK)
                ;
            else if (f->role == CF_RS_FILE_COLUMN)
                st = cf_reader_open_owned(&rs->col[f->col], io, &ro, err);
            else if (f->role == CF_RS_FILE_BLOOM)
                st = cf_bloom_reader_open_owned(&rs->bloom, io, &ro, err);
            else if (f->role == CF_RS_FILE_ADHOC)
                st = cf_reader_open_owned(&rs->adhoc, io, &ro, err);
            else if (!delta)
                cf_io_free(io); /* no reader for it (the MANIFEST parser takes none such) */
            else {
                cf_delta_type t = f->role == CF_RS_FILE_REDO ? CF_DELTA_REDO : CF_DELTA_UNDO;
                st = cf_delta_reader_open_owned(&rs->dfiles[rs->ndfiles], io, t, &ro, err);
                if (st == CF_OK) {
                    rs->dtypes[rs->ndfiles] = t;
                    uint64_t n =
                        cf_reader_info(cf_delta_reader_cfile(rs->dfiles[rs->ndfiles]))->num_values;
                    if (t == CF_DELTA_REDO)
                        rs->redo_deltas += n;
                    else
                        rs->undo_deltas += n;
                    rs->ndfiles++;
                }
            }
            if (st != CF_OK) {
                cf_error_prefix(err, st, "%s: ", f->name);
                goto out;
            }
        }
    }
    if (rs->m.rows > 0) {
        for (size_t i = 0; i < s->ncols; i++) {
            if (rs->col[i] == NULL)
                CF_FAIL_OUT(err, CF_ECORRUPT, "manifest: no file for column '%s'", s->cols[i].name);
            const cf_file_info *fi = cf_reader_info(rs->col[i]);
            if (fi->num_values != rs->m.rows)
                CF_FAIL_OUT(err, CF_ECORRUPT,
                            "column '%s': %" PRIu64 " rows, the manifest says %" PRIu64,
                            s->cols[i].name, fi->num_values, rs->m.rows);
            if (fi->type != s->cols[i].type || fi->is_array != s->cols[i].is_array ||
                fi->nullable != s->cols[i].nullable)
                CF_FAIL_OUT(err, CF_ECORRUPT, "column '%s': file type differs from the schema",
                            s->cols[i].name);
        }
        if (rs->bloom == NULL)
            CF_FAIL_OUT(err, CF_ECORRUPT, "manifest: no bloom file");
        if (s->nkeys > 1 && rs->adhoc == NULL)
            CF_FAIL_OUT(err, CF_ECORRUPT, "manifest: compound key without an ad-hoc index");
        CF_TRY_OUT(cf_iter_create(&rs->key_it, rs->adhoc ? rs->adhoc : rs->col[0], err));
    }
out:
    cf_rs_dir_done(rs, dfd);
    if (st == CF_OK)
        rs->loaded = true;
    return st;
}

static cf_status open_files(cf_rowset *rs, cf_error *err)
{
    CF_TRY(read_manifest(rs, &rs->m, err));
    if (rs->mode == CF_RS_MODE_TABLE || rs->mode == CF_RS_MODE_READ_PINNED)
        return CF_OK; /* files at first use: cf_rs_load */
    return open_data(rs, err);
}

cf_status cf_rs_load(cf_rowset *rs, cf_error *err)
{
    if (rs->loaded)
        return CF_OK;
    cf_status st = open_data(rs, err);
    if (st == CF_OK)
        return CF_OK;
    close_data(rs);
    /* Not "key not found" nor "not here" to the caller: the rowset is damaged
     * (or unreadable now), whatever the open said. */
    cf_error_prefix(err, st, "rowset %s: ", rs->dir);
    return st == CF_ENOMEM || st == CF_EIO ? st : CF_ECORRUPT;
}

cf_status cf_rowset_load(cf_rowset *rs, cf_error *err)
{
    return cf_rs_load(rs, err);
}

cf_status cf_rs_reload(cf_rowset *rs, cf_error *err)
{
    /* The MANIFEST is read before anything is closed: when that fails (out of
     * memory after a commit), the handle keeps the MANIFEST it has in memory
     * (a flush's is the one it wrote) rather than none, which read as an
     * empty rowset; its files are reopened at the next use. */
    cf_rs_manifest m;
    cf_status st = read_manifest(rs, &m, err);
    close_data(rs);
    if (st != CF_OK)
        return st;
    cf_rs_manifest_dispose(&rs->m);
    rs->m = m;
    if (rs->mode == CF_RS_MODE_TABLE || rs->mode == CF_RS_MODE_READ_PINNED)
        return CF_OK; /* files at first use: cf_rs_load */
    return cf_rs_load(rs, err);
}

static void dms_clear(cf_rowset *rs)
{
    cf_delta_reader_free(rs->dms_reader);
    cf_io_free(rs->dms_rio);
    cf_io_free(rs->dms_wio);
    rs->dms_reader = NULL;
    rs->dms_rio = rs->dms_wio = NULL;
}

void cf_rowset_free(cf_rowset *rs)
{
    if (rs == NULL)
        return;
    close_files(rs);
    dms_clear(rs);
    cf_free(rs->dms);
    cf_buf_dispose(&rs->dms_bytes);
    cf_buf_dispose(&rs->keybuf);
    cf_rcl_builder_free(rs->rcl);
    cf_cache_free(rs->own_cache); /* after every reader using it */
    cf_rs_lock_release(rs->lock_fd);
    if (rs->rel == NULL)
        cf_rs_dir_close(rs->dfd);
    cf_free(rs->rel);
    cf_free(rs->dir);
    cf_free(rs);
}

void cf_rowset_options_init(cf_rowset_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_ROWSET_OPTIONS_VERSION;
    opts->cache_bytes = CF_ROWSET_DEFAULT_CACHE_BYTES;
    opts->read_only = false;
    opts->lock_timeout_ms = CF_RS_LOCK_TIMEOUT_MS;
}

void cf_rs_set_replay(cf_rowset *rs, bool on)
{
    rs->replay = on;
}

cf_status cf_rs_writable(cf_rowset *rs, cf_error *err)
{
    if (rs->mode == CF_RS_MODE_TABLE || rs->lock_fd >= 0)
        return CF_OK;
    CF_CHECK(rs->mode != CF_RS_MODE_READ_ONLY && rs->mode != CF_RS_MODE_READ_PINNED, err, CF_EINVAL,
             "%s: rowset opened read-only", rs->dir);
    int dfd = cf_rs_dir_use(rs);
    CF_CHECK(dfd != -1, err, CF_EIO, "%s: %s", rs->dir, strerror(errno));
    char *ld;
    int ldfd = cf_rs_lock_dir_open(dfd, rs->dir, &ld); /* dfd, or its table's */
    int fd;
    cf_status st = ldfd == -1
                       ? cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "rowset: out of memory")
                       : cf_rs_lock_acquire_at(&fd, NULL, ldfd, ld, rs->lock_timeout_ms, err);
    if (ldfd != dfd)
        cf_rs_dir_close(ldfd);
    cf_free(ld);
    cf_rs_dir_done(rs, dfd);
    CF_TRY(st);
    /* Another writer may have committed between our open and the lock: writing
     * on that stale view would undo its work. */
    cf_rs_manifest now;
    cf_error e2;
    bool same = false;
    uint64_t gen = 0;
    if (read_manifest(rs, &now, &e2) == CF_OK) {
        same = now.checksum == rs->m.checksum;
        gen = now.generation;
        cf_rs_manifest_dispose(&now);
    }
    if (!same) {
        cf_rs_lock_release(fd);
        CF_FAIL(err, CF_ESTATE,
                "%s: rowset changed since it was opened (generation %" PRIu64 ", now %s%" PRIu64
                "); reopen",
                rs->dir, rs->m.generation, gen ? "" : "gone/", gen);
    }
    rs->lock_fd = fd;
    return CF_OK;
}

cf_cache *cf_rowset_cache(const cf_rowset *rs)
{
    return rs->cache;
}

cf_status cf_rowset_open(cf_rowset **out, const char *dir, const cf_rowset_options *opts,
                         cf_error *err)
{
    return cf_rs_open_mode(out, dir, opts,
                           opts != NULL && opts->read_only ? CF_RS_MODE_READ_ONLY : CF_RS_MODE_OWN,
                           err);
}

static cf_status open_mode(cf_rowset **out, int dfd, int pdfd, const char *rel, const char *dir,
                           const cf_rowset_options *o, cf_rs_mode mode, cf_error *err);

cf_status cf_rs_open_mode(cf_rowset **out, const char *dir, const cf_rowset_options *o,
                          cf_rs_mode mode, cf_error *err)
{
    /* Held open from here on, never reached by its path again: one that cannot
     * be opened is no rowset, said now (as cf_table_open does). */
    *out = NULL;
    int dfd = cf_rs_dir_open(dir);
    if (dfd < 0) {
        int e = errno;
        CF_CHECK(e != ENOENT && e != ENOTDIR, err, CF_ENOTFOUND, "%s: no rowset here (%s)", dir,
                 strerror(e));
        CF_FAIL(err, e == ENOMEM ? CF_ENOMEM : CF_EIO, "%s: cannot open the directory: %s", dir,
                strerror(e));
    }
    return cf_rs_open_mode_at(out, dfd, dir, o, mode, err);
}

cf_status cf_rs_open_mode_at(cf_rowset **out, int dfd, const char *dir, const cf_rowset_options *o,
                             cf_rs_mode mode, cf_error *err)
{
    return open_mode(out, dfd, -1, NULL, dir, o, mode, err);
}

cf_status cf_rs_open_mode_in(cf_rowset **out, int pdfd, const char *rel, const char *dir,
                             const cf_rowset_options *o, cf_rs_mode mode, cf_error *err)
{
    return open_mode(out, -1, pdfd, rel, dir, o, mode, err);
}

static cf_status open_mode(cf_rowset **out, int dfd, int pdfd, const char *rel, const char *dir,
                           const cf_rowset_options *o, cf_rs_mode mode, cf_error *err)
{
    *out = NULL;
    cf_rowset_options dflt;
    if (o == NULL) {
        cf_rowset_options_init(&dflt);
        o = &dflt;
    }
    cf_rowset *rs = o->version == CF_ROWSET_OPTIONS_VERSION ? cf_calloc(1, sizeof(*rs)) : NULL;
    if (rs == NULL) {
        cf_rs_dir_close(dfd);
        CF_CHECK(o->version == CF_ROWSET_OPTIONS_VERSION, err, CF_EINVAL,
                 "rowset: options.version %u unknown", o->version);
        CF_FAIL(err, CF_ENOMEM, "rowset: out of memory");
    }
    rs->dfd = dfd;
    rs->pdfd = pdfd;
    rs->mode = mode;
    rs->lock_fd = -1;
    rs->lock_timeout_ms = o->lock_timeout_ms;
    rs->mmap = o->mmap;
    cf_buf_init(&rs->dms_bytes);
    cf_buf_init(&rs->keybuf);
    cf_rs_manifest_init(&rs->m);
    size_t l = strlen(dir);
    rs->dir = cf_malloc(l + 1);
    cf_status st = CF_OK;
    if (rs->dir == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "rowset: out of memory");
    memcpy(rs->dir, dir, l + 1);
    if (rel != NULL && (rs->rel = cf_strdup(rel)) == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "rowset: out of memory");
    /* Lookups and selective scans land in the same blocks again and again: the
     * cache keeps them checked and decompressed (and marks mapped blocks as
     * verified) so each visit costs only the rows it reads. */
    rs->cache = o->cache;
    if (rs->cache == NULL && o->cache_bytes > 0) {
        CF_TRY_OUT(cf_cache_create(&rs->own_cache, o->cache_bytes, err));
        rs->cache = rs->own_cache;
    }
    CF_TRY_OUT(cf_rcl_builder_create(&rs->rcl, err));
    /* A reader takes no lock: a writer may commit a new MANIFEST and remove the
     * files of the old one between our reading it and opening them. Then the
     * MANIFEST on disk is a new one and we start over from it. */
    for (int attempt = 0;; attempt++) {
        st = open_files(rs, err);
        if (st == CF_OK || st == CF_ENOMEM || attempt == 8)
            break;
        uint64_t tried = rs->m.checksum;
        cf_rs_manifest now;
        cf_error e2;
        bool changed = false;
        if (read_manifest(rs, &now, &e2) == CF_OK) {
            changed = now.checksum != tried;
            cf_rs_manifest_dispose(&now);
        }
        if (!changed)
            break;
        close_files(rs);
    }
    CF_TRY_OUT(st);
out:
    if (st != CF_OK) {
        cf_rowset_free(rs);
        return st;
    }
    *out = rs;
    return CF_OK;
}

const cf_schema *cf_rowset_schema(const cf_rowset *rs)
{
    return rs->m.schema;
}

void cf_rowset_get_info(const cf_rowset *rs, cf_rowset_info *out)
{
    memset(out, 0, sizeof(*out));
    out->rows = rs->m.rows;
    out->generation = rs->m.generation;
    out->insert_ts = rs->m.insert_ts;
    out->last_ts = rs->m.last_ts;
    for (size_t i = 0; i < rs->m.nfiles; i++) {
        if (rs->m.files[i].role == CF_RS_FILE_REDO)
            out->redo_files++;
        else if (rs->m.files[i].role == CF_RS_FILE_UNDO)
            out->undo_files++;
    }
    out->redo_deltas = rs->redo_deltas;
    out->undo_deltas = rs->undo_deltas;
    out->dms_deltas = rs->ndms;
    out->min_key = (cf_slice){rs->m.min_key.data, rs->m.min_key.len};
    out->max_key = (cf_slice){rs->m.max_key.data, rs->m.max_key.len};
    out->ahm = rs->m.ahm;
}

bool cf_rowset_file_at(const cf_rowset *rs, size_t i, const char **name, const char **role)
{
    if (i >= rs->m.nfiles)
        return false;
    *name = rs->m.files[i].name;
    *role = cf_rs_role_name(rs->m.files[i].role);
    return true;
}

size_t cf_rs_delta_file_count(const cf_rowset *rs)
{
    return rs->ndfiles;
}
cf_delta_reader *cf_rs_delta_file(const cf_rowset *rs, size_t i, cf_delta_type *type)
{
    *type = rs->dtypes[i];
    return rs->dfiles[i];
}
cf_reader *cf_rs_column_reader(const cf_rowset *rs, size_t col)
{
    return rs->col[col];
}
uint64_t cf_rs_rows(const cf_rowset *rs)
{
    return rs->m.rows;
}
uint64_t cf_rs_insert_ts(const cf_rowset *rs)
{
    return rs->m.insert_ts;
}
const char *cf_rs_dir(const cf_rowset *rs)
{
    return rs->dir;
}

cf_rs_manifest *cf_rs_manifest_of(cf_rowset *rs)
{
    return &rs->m;
}

/* ---- keys ----------------------------------------------------------------------------------- */

static cf_status lower_bound(cf_rowset *rs, const uint8_t *enc, size_t len, uint64_t *ord,
                             bool *exact, cf_error *err)
{
    *exact = false;
    if (rs->m.rows == 0) {
        *ord = 0;
        return CF_OK;
    }
    uint8_t slot[16];
    cf_slice key = {enc, len};
    const void *k = &key;
    if (rs->adhoc == NULL) {
        cf_rs_key_decode_single(rs->m.schema, enc, len, slot);
        k = slot;
    }
    cf_status st = cf_iter_seek_at_or_after(rs->key_it, k, exact, err);
    if (st == CF_ENOTFOUND) {
        *ord = rs->m.rows;
        *exact = false;
        return CF_OK;
    }
    CF_TRY(st);
    *ord = cf_iter_current_ordinal(rs->key_it);
    return CF_OK;
}

cf_status cf_rs_lower_bound(cf_rowset *rs, const uint8_t *enc, size_t len, uint64_t *ord,
                            cf_error *err)
{
    CF_TRY(cf_rs_load(rs, err));
    bool exact;
    return lower_bound(rs, enc, len, ord, &exact, err);
}

cf_status cf_rs_probe_key(cf_rowset *rs, const uint8_t *key, size_t len, uint64_t *ord,
                          bool *pruned, cf_error *err)
{
    *pruned = false;
    CF_CHECK(rs->m.rows > 0, err, CF_ENOTFOUND, "key not found");
    CF_TRY(cf_rs_load(rs, err));
    bool maybe;
    CF_TRY(cf_bloom_reader_may_contain(rs->bloom, (cf_slice){key, len}, &maybe, err));
    *pruned = !maybe;
    CF_CHECK(maybe, err, CF_ENOTFOUND, "key not found");
    bool exact;
    CF_TRY(lower_bound(rs, key, len, ord, &exact, err));
    CF_CHECK(exact, err, CF_ENOTFOUND, "key not found");
    return CF_OK;
}

bool cf_rs_covers_key(cf_rowset *rs, const uint8_t *key, size_t len)
{
    cf_rowset_info info;
    cf_rowset_get_info(rs, &info);
    return info.rows > 0 && cf_rs_bytes_cmp(info.min_key.data, info.min_key.len, key, len) <= 0 &&
           cf_rs_bytes_cmp(key, len, info.max_key.data, info.max_key.len) <= 0;
}

cf_status cf_rs_find_key(cf_rowset *rs, const uint8_t *key, size_t len, uint64_t *ord,
                         cf_error *err)
{
    bool pruned;
    return cf_rs_probe_key(rs, key, len, ord, &pruned, err);
}

static cf_status encode_key(cf_rowset *rs, const void *const *key, cf_error *err)
{
    cf_buf_clear(&rs->keybuf);
    for (size_t k = 0; k < rs->m.schema->nkeys; k++)
        cf_rs_key_append(&rs->keybuf, rs->m.schema, k, key[k]);
    CF_CHECK(!rs->keybuf.oom, err, CF_ENOMEM, "rowset: out of memory");
    return CF_OK;
}

/* ---- the in-memory delta store ------------------------------------------------------------ */

static int ent_cmp(const void *a, const void *b)
{
    const dms_ent *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static cf_status write_dms(cf_rowset *rs, cf_delta_writer *w, cf_error *err)
{
    qsort(rs->dms, rs->ndms, sizeof(*rs->dms), ent_cmp);
    for (size_t i = 0; i < rs->ndms; i++) {
        const dms_ent *e = &rs->dms[i];
        CF_TRY(cf_delta_writer_append(w, e->row, e->ts,
                                      (cf_slice){rs->dms_bytes.data + e->off, e->len}, err));
    }
    return cf_delta_writer_finish(w, err);
}

cf_delta_reader *cf_rs_dms_reader(cf_rowset *rs, cf_error *err, cf_status *st)
{
    *st = CF_OK;
    if (!rs->dms_dirty)
        return rs->dms_reader;
    cf_rowset_scanner_free(rs->get_all);
    rs->get_all = NULL;
    dms_clear(rs);
    rs->dms_dirty = false;
    if (rs->ndms == 0)
        return NULL;
    cf_delta_writer_options o;
    cf_delta_writer_options_init(&o);
    o.compression = CF_COMP_NONE; /* lives in memory only */
    cf_delta_writer *w = NULL;
    *st = cf_io_create_mem(&rs->dms_wio, err);
    if (*st == CF_OK)
        *st = cf_delta_writer_create(&w, rs->dms_wio, &o, err);
    if (*st == CF_OK)
        *st = write_dms(rs, w, err);
    cf_delta_writer_free(w);
    if (*st == CF_OK) {
        cf_slice c = cf_io_mem_contents(rs->dms_wio);
        *st = cf_io_open_mem(&rs->dms_rio, c.data, c.len, err);
    }
    if (*st == CF_OK)
        *st = cf_delta_reader_open(&rs->dms_reader, rs->dms_rio, CF_DELTA_REDO, NULL, err);
    if (*st != CF_OK) {
        dms_clear(rs);
        rs->dms_dirty = true;
        return NULL;
    }
    return rs->dms_reader;
}

static cf_status dms_add_bytes(cf_rowset *rs, uint64_t row, uint64_t ts, cf_slice rcl,
                               cf_error *err)
{
    if (rs->ndms == rs->dms_cap)
        CF_CHECK(cf_array_grow(&rs->dms, &rs->dms_cap, sizeof *rs->dms, 64), err, CF_ENOMEM,
                 "rowset: out of memory");
    size_t off = rs->dms_bytes.len;
    cf_buf_append(&rs->dms_bytes, rcl.data, rcl.len);
    CF_CHECK(!rs->dms_bytes.oom, err, CF_ENOMEM, "rowset: out of memory");
    rs->dms[rs->ndms++] = (dms_ent){(uint32_t)row, ts, off, rcl.len};
    rs->dms_dirty = true;
    rs->m.last_ts = ts;
    return CF_OK;
}

static cf_status dms_add(cf_rowset *rs, uint64_t row, uint64_t ts, cf_error *err)
{
    return dms_add_bytes(rs, row, ts, cf_rcl_builder_bytes(rs->rcl), err);
}

/* ---- lookups ------------------------------------------------------------------------------ */

cf_status cf_rowset_get(cf_rowset *rs, const void *const *key, uint64_t snapshot, cf_row_batch *out,
                        cf_error *err)
{
    memset(out, 0, sizeof(*out));
    CF_TRY(cf_rs_check_snapshot(snapshot, rs->m.ahm, err));
    CF_TRY(encode_key(rs, key, err));
    uint64_t ord;
    CF_TRY(cf_rs_find_key(rs, rs->keybuf.data, rs->keybuf.len, &ord, err));
    cf_status st;
    cf_rs_dms_reader(rs, err, &st); /* may drop get_all */
    CF_TRY(st);
    if (rs->get_all != NULL && rs->get_all_snap != snapshot) {
        cf_rowset_scanner_free(rs->get_all);
        rs->get_all = NULL;
    }
    if (rs->get_all == NULL) {
        cf_scan_options o;
        cf_scan_options_init(&o);
        o.snapshot = snapshot;
        CF_TRY(cf_rowset_scanner_create_ex(&rs->get_all, rs, &o, false, true, err));
        rs->get_all_snap = snapshot;
    }
    /* The key columns are the key looked up: the row fetch reads only the others. */
    cf_rowset_scanner_set_row(rs->get_all, ord, key);
    CF_TRY(cf_rowset_scanner_next(rs->get_all, out, err));
    CF_CHECK(out->count == 1, err, CF_ENOTFOUND, "key not found (deleted)");
    return CF_OK;
}

/* Is base row `ord` live after every delta (files and DMS)? */
static cf_status row_alive(cf_rowset *rs, uint64_t ord, bool *alive, cf_error *err)
{
    if (rs->get_files == NULL) {
        cf_scan_options o;
        cf_scan_options_init(&o);
        size_t c0 = 0;
        o.cols = &c0;
        o.ncols = 1;
        CF_TRY(cf_rowset_scanner_create_ex(&rs->get_files, rs, &o, false, false, err));
    }
    cf_rowset_scanner_set_range(rs->get_files, ord, ord + 1);
    cf_row_batch b;
    CF_TRY(cf_rowset_scanner_next(rs->get_files, &b, err));
    *alive = b.count == 1;
    /* DMS entries are appended in timestamp order: the last DELETE/REINSERT wins. */
    for (size_t i = 0; i < rs->ndms; i++) {
        const dms_ent *e = &rs->dms[i];
        if (e->row != ord)
            continue;
        uint8_t t = rs->dms_bytes.data[e->off];
        if (t == CF_RCL_DELETE)
            *alive = false;
        else if (t == CF_RCL_REINSERT)
            *alive = true;
    }
    return CF_OK;
}

/* ---- mutations ---------------------------------------------------------------------------- */

cf_status cf_rs_check_snapshot(uint64_t snapshot, uint64_t ahm, cf_error *err)
{
    CF_CHECK(snapshot >= ahm || snapshot == CF_SNAPSHOT_LATEST, err, CF_EINVAL,
             "snapshot %" PRIu64 ": history before %" PRIu64
             " was discarded by compaction (ancient history mark); read at %" PRIu64 " or later",
             snapshot, ahm, ahm);
    return CF_OK;
}

cf_status cf_rs_check_ts_range(uint64_t ts, cf_error *err)
{
    CF_CHECK(ts >= 1 && ts <= CF_TS_MAX, err, CF_EINVAL,
             "timestamp %" PRIu64 " is out of range: mutations take 1..%" PRIu64
             " (larger values are reserved)",
             ts, CF_TS_MAX);
    return CF_OK;
}

static cf_status check_ts(const cf_rowset *rs, uint64_t ts, cf_error *err)
{
    CF_TRY(cf_rs_check_ts_range(ts, err));
    CF_CHECK(ts > rs->m.last_ts && ts != CF_SNAPSHOT_LATEST, err, CF_EINVAL,
             "timestamp %" PRIu64 " is not after the last one (%" PRIu64 ")", ts, rs->m.last_ts);
    CF_CHECK(rs->m.rows <= UINT32_MAX, err, CF_ENOTSUP, "rowset too large for deltas");
    return CF_OK;
}

static cf_status add_value(cf_rowset *rs, size_t col, const void *value, cf_error *err)
{
    const cf_column *c = &rs->m.schema->cols[col];
    if (value == NULL) {
        CF_CHECK(c->nullable, err, CF_EINVAL, "column '%s' cannot be NULL", c->name);
        return cf_rcl_builder_add(rs->rcl, (uint32_t)col, NULL, 0, err);
    }
    if (c->is_array)
        return cf_rs_rcl_add_cell(rs->rcl, (uint32_t)col, c, value, err);
    if (cf_type_is_binary(c->type)) {
        cf_slice s;
        memcpy(&s, value, sizeof(s));
        return cf_rcl_builder_add(rs->rcl, (uint32_t)col, s.data ? s.data : (const uint8_t *)"",
                                  s.len, err);
    }
    return cf_rcl_builder_add(rs->rcl, (uint32_t)col, value, cf_type_size(c->type), err);
}

static cf_status find_live(cf_rowset *rs, const void *const *key, uint64_t *ord, bool *alive,
                           cf_error *err)
{
    CF_TRY(encode_key(rs, key, err));
    CF_TRY(cf_rs_find_key(rs, rs->keybuf.data, rs->keybuf.len, ord, err));
    return row_alive(rs, *ord, alive, err);
}

cf_status cf_rowset_update(cf_rowset *rs, const void *const *key, const cf_column_change *changes,
                           size_t n, uint64_t ts, cf_error *err)
{
    if (!rs->replay)
        CF_TRY(cf_rs_writable(rs, err));
    CF_TRY(check_ts(rs, ts, err));
    const cf_schema *s = rs->m.schema;
    CF_CHECK(n > 0, err, CF_EINVAL, "update: no column to set");
    for (size_t i = 0; i < n; i++) {
        CF_CHECK(changes[i].col < s->ncols, err, CF_EINVAL, "update: no column %zu",
                 changes[i].col);
        const cf_column *c = &s->cols[changes[i].col];
        CF_CHECK(!c->is_key, err, CF_EINVAL, "update: '%s' is a key column", c->name);
    }
    uint64_t ord;
    bool alive;
    CF_TRY(find_live(rs, key, &ord, &alive, err));
    CF_CHECK(alive, err, CF_ENOTFOUND, "update: key not found (deleted)");
    cf_rcl_builder_reset(rs->rcl, CF_RCL_UPDATE);
    for (size_t i = 0; i < n; i++)
        CF_TRY(add_value(rs, changes[i].col, changes[i].value, err));
    return dms_add(rs, ord, ts, err);
}

cf_status cf_rowset_delete(cf_rowset *rs, const void *const *key, uint64_t ts, cf_error *err)
{
    if (!rs->replay)
        CF_TRY(cf_rs_writable(rs, err));
    CF_TRY(check_ts(rs, ts, err));
    uint64_t ord;
    bool alive;
    CF_TRY(find_live(rs, key, &ord, &alive, err));
    CF_CHECK(alive, err, CF_ENOTFOUND, "delete: key not found (deleted)");
    cf_rcl_builder_reset(rs->rcl, CF_RCL_DELETE);
    return dms_add(rs, ord, ts, err);
}

cf_status cf_rowset_reinsert(cf_rowset *rs, const void *const *key, const void *const *values,
                             uint64_t ts, cf_error *err)
{
    if (!rs->replay)
        CF_TRY(cf_rs_writable(rs, err));
    CF_TRY(check_ts(rs, ts, err));
    uint64_t ord;
    bool alive;
    cf_status st = find_live(rs, key, &ord, &alive, err);
    CF_CHECK(st != CF_ENOTFOUND, err, CF_ENOTSUP,
             "reinsert: the rowset never held this key (new keys need a new rowset)");
    CF_TRY(st);
    CF_CHECK(!alive, err, CF_EINVAL, "reinsert: the row is live (duplicate key)");
    const cf_schema *s = rs->m.schema;
    cf_rcl_builder_reset(rs->rcl, CF_RCL_REINSERT);
    for (size_t c = s->nkeys; c < s->ncols; c++)
        CF_TRY(add_value(rs, c, values[c], err));
    return dms_add(rs, ord, ts, err);
}

cf_status cf_rs_reinsert_rcl(cf_rowset *rs, const uint8_t *key, size_t len, cf_slice rcl,
                             uint64_t ts, cf_error *err)
{
    CF_TRY(cf_rs_writable(rs, err));
    CF_TRY(cf_rs_check_ts_range(ts, err));
    /* Several rows of one load share its timestamp: a row's deltas are keyed
     * by (row, ts), and each row is reinserted at most once. */
    CF_CHECK(ts >= rs->m.last_ts && ts != CF_SNAPSHOT_LATEST, err, CF_EINVAL,
             "timestamp %" PRIu64 " is before the last one (%" PRIu64 ")", ts, rs->m.last_ts);
    CF_CHECK(rs->m.rows <= UINT32_MAX, err, CF_ENOTSUP, "rowset too large for deltas");
    CF_CHECK(rcl.len > 0 && rcl.data[0] == CF_RCL_REINSERT, err, CF_EINVAL,
             "reinsert: not a REINSERT change list");
    uint64_t ord;
    bool alive;
    cf_status st = cf_rs_find_key(rs, key, len, &ord, err);
    CF_CHECK(st != CF_ENOTFOUND, err, CF_ENOTSUP, "reinsert: the rowset never held this key");
    CF_TRY(st);
    CF_TRY(row_alive(rs, ord, &alive, err));
    CF_CHECK(!alive, err, CF_EINVAL, "reinsert: the row is live (duplicate key)");
    for (size_t i = 0; i < rs->ndms; i++)
        CF_CHECK(rs->dms[i].row != ord || rs->dms[i].ts < ts, err, CF_EINVAL,
                 "reinsert: the row changed at timestamp %" PRIu64 " already", ts);
    return dms_add_bytes(rs, ord, ts, rcl, err);
}

/* The permission bits of the rowset's MANIFEST, 0 (the default) when it is
 * not a regular file. */
static unsigned manifest_mode(const cf_rowset *rs)
{
    struct stat sb;
    unsigned m = 0;
    int fd = cf_rs_dir_use(rs);
    if (fd != -1 && cf_rs_lstat_at(fd, rs->dir, CF_RS_MANIFEST, &sb) == 0 && S_ISREG(sb.st_mode))
        m = (unsigned)(sb.st_mode & 07777);
    cf_rs_dir_done(rs, fd);
    return m;
}

cf_status cf_rowset_flush(cf_rowset *rs, cf_error *err)
{
    CF_TRY(cf_rs_writable(rs, err));
    if (rs->ndms == 0)
        return CF_OK;
    char name[64];
    snprintf(name, sizeof(name), "%" PRIu64 ".redo.delta", rs->m.next_file);
    /* The new DeltaFile takes the mode of the MANIFEST that will name it (a
     * table made private stays private, from the file's creation on). */
    cf_delta_writer *w = NULL;
    cf_io *io = NULL;
    int dfd;
    CF_TRY(dir_use(rs, &dfd, err));
    cf_status st = cf_rs_create_file_at(&io, dfd, rs->dir, name, manifest_mode(rs), err);
    if (st == CF_OK)
        st = cf_delta_writer_create(&w, io, NULL, err);
    if (st == CF_OK)
        st = write_dms(rs, w, err);
    cf_delta_writer_free(w);
    cf_io_free(io); /* after the writer that borrowed it; removes the temporary unless committed */
    if (st != CF_OK) {
        cf_rs_dir_done(rs, dfd);
        return st;
    }
    /* The MANIFEST in memory changes only once the new one is written: after
     * a failure the deltas stay in memory, and a retry must not name this
     * file as well as its own (it would apply every delta twice). The retry
     * writes the same name again; clean-up removes the file otherwise
     * (numbered at the committed next_file, named by no MANIFEST). */
    rs->m.next_file++;
    rs->m.generation++;
    st = cf_rs_manifest_add(&rs->m, CF_RS_FILE_REDO, 0, name, err);
    if (st == CF_OK && (st = cf_rs_manifest_write_at(&rs->m, dfd, rs->dir, err)) != CF_OK) {
        cf_free(rs->m.files[rs->m.nfiles - 1].name);
        rs->m.nfiles--;
    }
    cf_rs_dir_done(rs, dfd);
    if (st != CF_OK) {
        rs->m.generation--;
        rs->m.next_file--;
        return st;
    }
    rs->ndms = 0;
    cf_buf_clear(&rs->dms_bytes);
    rs->dms_dirty = true;
    cf_rs_dms_reader(rs, err, &st);
    CF_TRY(st);
    return cf_rs_reload(rs, err);
}
