/* A tablet's write-ahead log: the segments of <wal dir>/wals/<tablet_id>/ read
 * as Kudu's LogReader::Init reads them (consensus/log_reader.cc): every file
 * named wal-<digits>, each a ReadableLogSegment (wal_segment.c); a segment whose
 * first 12 bytes are zeros was never written and is skipped; the rest sorted by
 * their headers' sequence numbers, which must be consecutive. Each REPLICATE
 * WRITE_OP's row operations are decoded with its segment header's schema
 * (row_ops.c), each COMMIT's per-op results (tablet.proto TxResultPB) kept.
 *
 * Files are opened O_RDONLY | O_NOFOLLOW and must be regular files. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kudu_tablet.pb-c.h"
#include "kudufs/fs_internal.h"
#include "tablet.h"
#include "util/alloc.h"
#include "util/error.h"
#include "wal.h"

/* A schema a segment's writes are decoded with: its header's, or an ALTER's. */
typedef struct seg_schema {
    const Kudu__SchemaPB *pb;
    cf_schema *schema;
    uint32_t *ids;
    int64_t index; /* of the ALTER_SCHEMA_OP that brought it in (0: the header's) */
} seg_schema;

typedef struct wal_seg {
    cf_kudu_wal_segment pub;
    kudu_wal_seg *raw;
    cf_schema *schema;  /* the header's, NULL when it has none */
    uint32_t *ids;      /* its column ids */
    seg_schema *alters; /* the schemas of the segment's ALTER_SCHEMA_OPs, owned */
    size_t nalters;
    cf_kudu_wal_entry *entries;
    const Kudu__Log__LogEntryPB **pbs; /* entry i's message */
} wal_seg;

struct cf_kudu_wal {
    wal_seg *segs;
    size_t nsegs;
    bool recovery;          /* read from wals/<tablet>.recovery */
    int64_t *failed_alters; /* term, index pairs of ALTER_SCHEMA_OPs whose COMMIT failed */
    size_t nfailed_alters;
    cf_arena arena; /* decoded row ops and results */
};

/* ---- a read-only io over a file descriptor ---------------------------------------------- */

typedef struct fd_io {
    cf_io io;
    int fd;
    uint64_t size;
} fd_io;

static cf_status fd_read_at(cf_io *io, uint64_t off, void *dst, size_t len, cf_error *err)
{
    fd_io *f = (fd_io *)io;
    CF_CHECK(off <= f->size && len <= f->size - off, err, CF_ECORRUPT,
             "read of %zu bytes past the end (%" PRIu64 " bytes)", len, f->size);
    uint8_t *p = dst;
    while (len > 0) {
        ssize_t n = pread(f->fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        CF_CHECK(n >= 0, err, CF_EIO, "read failed: %s", strerror(errno));
        CF_CHECK(n > 0, err, CF_EIO, "file shrank while being read");
        p += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return CF_OK;
}

static uint64_t fd_size(cf_io *io)
{
    return ((fd_io *)io)->size;
}

static void fd_free(cf_io *io)
{
    (void)io; /* fd_io lives on the stack of its user */
}

static const cf_io_ops fd_ops = {.read_at = fd_read_at, .size = fd_size, .free = fd_free};

/* ---- names ---------------------------------------------------------------------------------- */

/* Kudu's tablet ids are 32 hex digits; anything else is accepted only if it is
 * one harmless path component. */
static bool tablet_id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 128 || strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '-' || c == '_' || c == '.'))
            return false;
    }
    return true;
}

/* wal-<digits> (log_util.cc IsLogFileName: "wal" and one '-'-separated part). */
static bool segment_name(const char *name)
{
    if (strncmp(name, "wal-", 4) != 0 || name[4] == '\0')
        return false;
    for (const char *p = name + 4; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_seq(const void *a, const void *b)
{
    uint64_t x = ((const wal_seg *)a)->pub.sequence_number;
    uint64_t y = ((const wal_seg *)b)->pub.sequence_number;
    return x < y ? -1 : x > y;
}

/* ---- entries ------------------------------------------------------------------------------ */

static cf_status entry_results(cf_kudu_wal *w, cf_kudu_wal_entry *e, const Kudu__Log__CommitMsg *c,
                               cf_error *err)
{
    if (c->result == NULL || c->result->n_ops == 0)
        return CF_OK;
    size_t n = c->result->n_ops;
    cf_kudu_op_result *r = cf_arena_alloc_aligned(&w->arena, n * sizeof *r, sizeof(void *));
    CF_CHECK(r != NULL, err, CF_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const Kudu__Tablet__OperationResultPB *o = c->result->ops[i];
        r[i].failed = o->failed_status != NULL;
        r[i].skip_on_replay = o->has_skip_on_replay && o->skip_on_replay;
        r[i].nstores = o->n_mutated_stores;
        cf_kudu_mem_store *ms = NULL;
        if (o->n_mutated_stores) {
            ms = cf_arena_alloc_aligned(&w->arena, o->n_mutated_stores * sizeof *ms, 8);
            CF_CHECK(ms != NULL, err, CF_ENOMEM, "out of memory");
            for (size_t j = 0; j < o->n_mutated_stores; j++) {
                const Kudu__Tablet__MemStoreTargetPB *t = o->mutated_stores[j];
                ms[j].mrs_id = t->has_mrs_id ? t->mrs_id : -1;
                ms[j].rs_id = t->has_rs_id ? t->rs_id : -1;
                ms[j].dms_id = t->has_dms_id ? t->dms_id : -1;
                ms[j].rs_txn_id = t->has_rs_txn_id ? t->rs_txn_id : -1;
            }
        }
        r[i].stores = ms;
    }
    e->nresults = n;
    e->results = r;
    return CF_OK;
}

/* Note the ALTER_SCHEMA_OPs of every segment whose COMMIT says they failed: they
 * changed nothing (TabletBootstrap::PlayAlterSchemaRequest), so the writes after
 * them keep the schema before. */
static cf_status note_failed_alters(cf_kudu_wal *w, cf_error *err)
{
    for (size_t i = 0; i < w->nsegs; i++) {
        const kudu_wal_seg *raw = w->segs[i].raw;
        for (size_t b = 0; b < raw->nbatches; b++) {
            const Kudu__Log__LogEntryBatchPB *bp = raw->batches[b].pb;
            for (size_t k = 0; k < bp->n_entry; k++) {
                const Kudu__Log__CommitMsg *c = bp->entry[k]->commit;
                if (c == NULL || !c->has_op_type ||
                    c->op_type != KUDU__LOG__OPERATION_TYPE__ALTER_SCHEMA_OP ||
                    c->commited_op_id == NULL || c->result == NULL || c->result->n_ops == 0 ||
                    c->result->ops[0]->failed_status == NULL)
                    continue;
                int64_t *n = cf_realloc(w->failed_alters,
                                        (w->nfailed_alters + 1) * 2 * sizeof *w->failed_alters);
                CF_CHECK(n != NULL, err, CF_ENOMEM, "out of memory");
                w->failed_alters = n;
                n[w->nfailed_alters * 2] = c->commited_op_id->term;
                n[w->nfailed_alters * 2 + 1] = c->commited_op_id->index;
                w->nfailed_alters++;
            }
        }
    }
    return CF_OK;
}

static bool alter_failed(const cf_kudu_wal *w, int64_t term, int64_t index)
{
    for (size_t i = 0; i < w->nfailed_alters; i++)
        if (w->failed_alters[i * 2] == term && w->failed_alters[i * 2 + 1] == index)
            return true;
    return false;
}

/* The schemas in force as the segment is read: [0] the header's, then each
 * ALTER_SCHEMA_OP's that did not fail, as positions in the segment's alters (+1);
 * a REPLICATE at an index at or below an ALTER's undoes it (a new leader
 * overwrote the ops from there on). */
typedef struct schema_stack {
    size_t at[64];
    size_t n;
} schema_stack;

static const seg_schema *stack_top(const wal_seg *s, const seg_schema *header,
                                   const schema_stack *st)
{
    size_t i = st->at[st->n - 1];
    return i == 0 ? header : &s->alters[i - 1];
}

static cf_status push_alter(cf_kudu_wal *w, wal_seg *s, schema_stack *st,
                            const cf_kudu_wal_entry *e, const Kudu__Log__ReplicateMsg *r,
                            uint64_t offset, cf_error *err)
{
    const Kudu__Log__AlterSchemaRequestPB *a = r->alter_schema_request;
    if (a == NULL || a->schema == NULL || alter_failed(w, e->term, e->index))
        return CF_OK;
    CF_CHECK(st->n < sizeof st->at / sizeof st->at[0], err, CF_ENOTSUP,
             "%s at offset %" PRIu64 ": more than %zu schema changes in a row in one segment",
             s->pub.path, offset, sizeof st->at / sizeof st->at[0] - 1);
    seg_schema *n = cf_realloc(s->alters, (s->nalters + 1) * sizeof *n);
    CF_CHECK(n != NULL, err, CF_ENOMEM, "out of memory");
    s->alters = n;
    seg_schema *ns = &s->alters[s->nalters];
    memset(ns, 0, sizeof *ns);
    char where[1200];
    snprintf(where, sizeof where,
             "%s at offset %" PRIu64 " (ALTER_SCHEMA_OP %" PRId64 ".%" PRId64 ")", s->pub.path,
             offset, e->term, e->index);
    CF_TRY(cf_kudu_schema_from_pb(&ns->schema, &ns->ids, a->schema, where, err));
    ns->pb = a->schema;
    ns->index = e->index;
    s->nalters++;
    st->at[st->n++] = s->nalters;
    return CF_OK;
}

static cf_status build_entries(cf_kudu_wal *w, wal_seg *s, size_t seg_index, cf_error *err)
{
    kudu_wal_seg *raw = s->raw;
    if (raw->header->schema != NULL && raw->header->schema->n_columns > 0)
        CF_TRY(cf_kudu_schema_from_pb(&s->schema, &s->ids, raw->header->schema, s->pub.path, err));
    if (raw->nentries == 0)
        return CF_OK;
    s->entries = cf_calloc(raw->nentries, sizeof *s->entries);
    s->pbs = cf_calloc(raw->nentries, sizeof *s->pbs);
    CF_CHECK(s->entries != NULL && s->pbs != NULL, err, CF_ENOMEM, "out of memory");
    seg_schema header = {raw->header->schema, s->schema, s->ids, 0};
    schema_stack stack = {{0}, 1};
    size_t k = 0;
    for (size_t b = 0; b < raw->nbatches; b++) {
        const kudu_wal_batch *bt = &raw->batches[b];
        for (size_t i = 0; i < bt->pb->n_entry; i++, k++) {
            const Kudu__Log__LogEntryPB *pb = bt->pb->entry[i];
            cf_kudu_wal_entry *e = &s->entries[k];
            s->pbs[k] = pb;
            e->type = pb->has_type ? (cf_kudu_entry_type)pb->type : (cf_kudu_entry_type)0;
            e->segment = seg_index;
            e->offset = bt->offset;
            e->alter_schema_version = -1;
            if (pb->replicate != NULL) {
                const Kudu__Log__ReplicateMsg *r = pb->replicate;
                if (r->id != NULL) {
                    e->term = r->id->term;
                    e->index = r->id->index;
                }
                while (stack.n > 1 && stack_top(s, &header, &stack)->index >= e->index)
                    stack.n--;
                e->timestamp = r->timestamp;
                e->op_type = r->has_op_type ? (int)r->op_type : 0;
                if (e->op_type == KUDU__LOG__OPERATION_TYPE__ALTER_SCHEMA_OP) {
                    const Kudu__Log__AlterSchemaRequestPB *a = r->alter_schema_request;
                    if (a != NULL && a->has_schema_version)
                        e->alter_schema_version = a->schema_version;
                    CF_TRY(push_alter(w, s, &stack, e, r, bt->offset, err));
                }
                const seg_schema *cur = stack_top(s, &header, &stack);
                if (e->op_type == KUDU__LOG__OPERATION_TYPE__PARTICIPANT_OP &&
                    r->participant_request != NULL && r->participant_request->op != NULL) {
                    const Kudu__Log__ParticipantOpPB *po = r->participant_request->op;
                    e->has_txn_id = po->has_txn_id;
                    e->txn_id = po->txn_id;
                    e->participant_op = po->has_type ? (int)po->type : 0;
                }
                const Kudu__Log__WriteRequestPB *wr = r->write_request;
                /* a WRITE_OP without row operations decodes to none */
                if (e->op_type == KUDU__LOG__OPERATION_TYPE__WRITE_OP) {
                    e->schema = cur->schema;
                    e->schema_ids = cur->ids;
                    if (wr != NULL && wr->has_txn_id) {
                        e->has_txn_id = true;
                        e->txn_id = wr->txn_id;
                    }
                }
                if (e->op_type == KUDU__LOG__OPERATION_TYPE__WRITE_OP && wr != NULL &&
                    wr->row_operations != NULL) {
                    CF_CHECK(cur->schema != NULL, err, CF_ECORRUPT,
                             "%s at offset %" PRIu64 ": a write op, but the segment header has "
                             "no schema",
                             s->pub.path, bt->offset);
                    cf_kudu_row_op *ops;
                    size_t nops;
                    const Kudu__Log__AutoIncrementingColumnPB *ac = wr->auto_incrementing_column;
                    const int64_t *counter = ac != NULL && ac->has_auto_incrementing_counter
                                                 ? &ac->auto_incrementing_counter
                                                 : NULL;
                    cf_status st =
                        kudu_rowops_decode(&w->arena, wr->row_operations, wr->schema, cur->pb,
                                           cur->schema, counter, &ops, &nops, err);
                    if (st != CF_OK)
                        return cf_error_prefix(
                            err, st, "%s at offset %" PRIu64 ": op %" PRId64 ".%" PRId64 ": ",
                            s->pub.path, bt->offset, e->term, e->index);
                    e->ops = ops;
                    e->nops = nops;
                }
            } else if (pb->commit != NULL) {
                const Kudu__Log__CommitMsg *c = pb->commit;
                if (c->commited_op_id != NULL) {
                    e->term = c->commited_op_id->term;
                    e->index = c->commited_op_id->index;
                }
                e->op_type = c->has_op_type ? (int)c->op_type : 0;
                CF_TRY(entry_results(w, e, c, err));
            }
        }
    }
    return CF_OK;
}

/* ---- open ------------------------------------------------------------------------------------ */

/* Why an openat with O_NOFOLLOW failed, errno e. */
static const char *open_failure(int e)
{
    return e == ELOOP ? "a symlink (not followed)" : strerror(e);
}

static cf_status read_segment(cf_kudu_wal *w, int dfd, const char *dir, const char *name,
                              cf_error *err)
{
    char *path = cf_kudu_path("%s/%s", dir, name);
    CF_CHECK(path != NULL, err, CF_ENOMEM, "out of memory");
    cf_status st = CF_OK;
    kudu_wal_seg *raw = NULL;
    /* O_NONBLOCK: a FIFO named like a segment is refused below, not waited on. */
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        CF_FAIL_OUT(err, CF_EIO, "%s: %s", path, open_failure(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        CF_FAIL_OUT(err, CF_EIO, "%s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: not a regular file", path);
    fd_io io = {.io = {.ops = &fd_ops}, .fd = fd, .size = (uint64_t)sb.st_size};
    CF_TRY_OUT(kudu_wal_seg_read(&raw, &io.io, path, err));
    if (raw->uninitialized)
        goto out; /* LogReader::Init skips it */
    wal_seg *ns = cf_realloc(w->segs, (w->nsegs + 1) * sizeof *ns);
    if (ns == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory");
    w->segs = ns;
    wal_seg *s = &w->segs[w->nsegs++];
    memset(s, 0, sizeof *s);
    s->raw = raw;
    s->pub.path = path;
    s->pub.file = strrchr(path, '/') + 1;
    s->pub.size = raw->size;
    s->pub.sequence_number = raw->header->sequence_number;
    s->pub.first_entry_offset = raw->first_entry_offset;
    s->pub.has_footer = raw->has_footer;
    s->pub.torn_tail = raw->torn_tail;
    s->pub.end_offset = raw->end_offset;
    s->pub.nentries = raw->nentries;
    raw = NULL;
    path = NULL;
out:
    if (fd >= 0)
        close(fd);
    kudu_wal_seg_free(raw);
    cf_free(path);
    return st;
}

/* Open <wal_dir>/wals/<tablet_id>: the directory itself not through a symlink;
 * below rootfd, the WAL root as the fs holds it open (AT_FDCWD: by path). */
static cf_status open_dir(cf_kudu_wal *w, int rootfd, const char *wal_dir, const char *tablet_id,
                          cf_error *err)
{
    /* A recovery dir means a bootstrap was cut short: Kudu replays from it again
     * and throws the new wals/<tablet>/ away (TabletBootstrap::PrepareRecoveryDir,
     * FsManager::GetTabletWalRecoveryDir), so it is the log to read. */
    static const char recovery[] = ".recovery";
    char *dir = cf_kudu_path("%s/wals/%s%s", wal_dir, tablet_id, recovery);
    CF_CHECK(dir != NULL, err, CF_ENOMEM, "out of memory");
    /* what the *at calls take: the path's tail below the root, or the path */
    const char *at = rootfd == AT_FDCWD ? dir : dir + strlen(wal_dir) + 1;
    struct stat rsb;
    if (fstatat(rootfd, at, &rsb, AT_SYMLINK_NOFOLLOW) == 0) {
        if (!S_ISDIR(rsb.st_mode)) {
            cf_status bad =
                cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__, "%s: not a directory", dir);
            cf_free(dir);
            return bad;
        }
        w->recovery = true;
    } else {
        dir[strlen(dir) - strlen(recovery)] = '\0'; /* <wal_dir>/wals/<tablet_id> */
    }
    cf_status st = CF_OK;
    char **names = NULL;
    size_t n = 0, cap = 0;
    DIR *d = NULL;
    int dfd = openat(rootfd, at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        int e = errno;
        if (e == ENOENT)
            CF_FAIL_OUT(err, CF_ENOTFOUND, "%s: no WAL for tablet %s", dir, tablet_id);
        CF_FAIL_OUT(err, CF_EIO, "%s: %s", dir, open_failure(e));
    }
    int lfd = dup(dfd);
    if (lfd < 0 || (d = fdopendir(lfd)) == NULL) {
        if (lfd >= 0)
            close(lfd);
        CF_FAIL_OUT(err, CF_EIO, "%s: %s", dir, strerror(errno));
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!segment_name(de->d_name))
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char **nn = cf_realloc(names, ncap * sizeof *nn);
            if (nn == NULL)
                CF_FAIL_OUT(err, CF_ENOMEM, "out of memory");
            names = nn;
            cap = ncap;
        }
        names[n] = strdup(de->d_name);
        if (names[n] == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "out of memory");
        n++;
    }
    if (n > 1)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++)
        CF_TRY_OUT(read_segment(w, dfd, dir, names[i], err));
    if (w->nsegs > 1)
        qsort(w->segs, w->nsegs, sizeof *w->segs, by_seq);
    for (size_t i = 1; i < w->nsegs; i++)
        if (w->segs[i].pub.sequence_number != w->segs[i - 1].pub.sequence_number + 1)
            CF_FAIL_OUT(err, CF_ECORRUPT,
                        "%s: sequence number %" PRIu64 " does not follow %s's %" PRIu64,
                        w->segs[i].pub.path, w->segs[i].pub.sequence_number,
                        w->segs[i - 1].pub.file, w->segs[i - 1].pub.sequence_number);
    CF_TRY_OUT(note_failed_alters(w, err));
    for (size_t i = 0; i < w->nsegs; i++)
        CF_TRY_OUT(build_entries(w, &w->segs[i], i, err));
out:
    if (d != NULL)
        closedir(d);
    if (dfd >= 0)
        close(dfd);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    cf_free(names);
    cf_free(dir);
    return st;
}

cf_status kudu_wal_open_dir(cf_kudu_wal **out, const char *wal_dir, const char *tablet_id,
                            cf_error *err)
{
    return kudu_wal_open_at(out, AT_FDCWD, wal_dir, tablet_id, err);
}

cf_status kudu_wal_open_at(cf_kudu_wal **out, int rootfd, const char *wal_dir,
                           const char *tablet_id, cf_error *err)
{
    *out = NULL;
    CF_CHECK(wal_dir != NULL && tablet_id != NULL, err, CF_EINVAL, "wal open: NULL argument");
    CF_CHECK(tablet_id_ok(tablet_id), err, CF_EINVAL,
             "tablet id \"%.64s\" is not a tablet id (letters, digits, '-', '_', '.')", tablet_id);
    cf_kudu_wal *w = cf_calloc(1, sizeof *w);
    CF_CHECK(w != NULL, err, CF_ENOMEM, "out of memory");
    cf_status st = open_dir(w, rootfd, wal_dir, tablet_id, err);
    if (st != CF_OK) {
        cf_kudu_wal_free(w);
        return st;
    }
    *out = w;
    return CF_OK;
}

cf_status cf_kudu_wal_open(cf_kudu_wal **out, const cf_kudu_fs *fs, const char *tablet_id,
                           cf_error *err)
{
    if (out != NULL)
        *out = NULL;
    CF_CHECK(out != NULL && fs != NULL, err, CF_EINVAL, "cf_kudu_wal_open: NULL argument");
    return kudu_wal_open_at(out, cf_kudu_fs_wal_fd(fs), cf_kudu_fs_wal_dir(fs), tablet_id, err);
}

void cf_kudu_wal_free(cf_kudu_wal *w)
{
    if (w == NULL)
        return;
    for (size_t i = 0; i < w->nsegs; i++) {
        wal_seg *s = &w->segs[i];
        kudu_wal_seg_free(s->raw);
        cf_schema_free(s->schema);
        cf_free(s->ids);
        for (size_t j = 0; j < s->nalters; j++) {
            cf_schema_free(s->alters[j].schema);
            cf_free(s->alters[j].ids);
        }
        cf_free(s->alters);
        cf_free(s->entries);
        cf_free(s->pbs);
        cf_free((char *)s->pub.path);
    }
    cf_free(w->segs);
    cf_free(w->failed_alters);
    cf_arena_dispose(&w->arena);
    cf_free(w);
}

bool cf_kudu_wal_from_recovery(const cf_kudu_wal *w)
{
    return w != NULL && w->recovery;
}

size_t cf_kudu_wal_segment_count(const cf_kudu_wal *w)
{
    return w->nsegs;
}

const cf_kudu_wal_segment *cf_kudu_wal_segment_at(const cf_kudu_wal *w, size_t i)
{
    return i < w->nsegs ? &w->segs[i].pub : NULL;
}

const cf_kudu_wal_entry *cf_kudu_wal_entry_at(const cf_kudu_wal *w, size_t seg, size_t i)
{
    if (seg >= w->nsegs || i >= w->segs[seg].pub.nentries)
        return NULL;
    return &w->segs[seg].entries[i];
}

cf_status cf_kudu_wal_segment_json(const cf_kudu_wal *w, size_t seg, bool footer, bool pretty,
                                   char **json, cf_error *err)
{
    *json = NULL;
    CF_CHECK(seg < w->nsegs, err, CF_EINVAL, "segment %zu of %zu", seg, w->nsegs);
    const kudu_wal_seg *raw = w->segs[seg].raw;
    if (footer) {
        if (!raw->has_footer)
            return CF_OK;
        return cf_kudu_pb_to_json("kudu.log.LogSegmentFooterPB", raw->footer_bytes, raw->footer_len,
                                  pretty, json, err);
    }
    return cf_kudu_pb_to_json("kudu.log.LogSegmentHeaderPB", raw->header_bytes, raw->header_len,
                              pretty, json, err);
}

cf_status cf_kudu_wal_entry_json(const cf_kudu_wal *w, size_t seg, size_t i, bool pretty,
                                 char **json, cf_error *err)
{
    *json = NULL;
    CF_CHECK(seg < w->nsegs && i < w->segs[seg].pub.nentries, err, CF_EINVAL,
             "no entry %zu in segment %zu", i, seg);
    const ProtobufCMessage *m = &w->segs[seg].pbs[i]->base;
    size_t len = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = cf_malloc(len ? len : 1);
    CF_CHECK(buf != NULL, err, CF_ENOMEM, "out of memory");
    protobuf_c_message_pack(m, buf);
    cf_status st = cf_kudu_pb_to_json("kudu.log.LogEntryPB", buf, len, pretty, json, err);
    cf_free(buf);
    return st;
}

const char *cf_kudu_row_op_name(cf_kudu_row_op_type t)
{
    switch (t) {
    case CF_KUDU_OP_INSERT: return "INSERT";
    case CF_KUDU_OP_UPDATE: return "UPDATE";
    case CF_KUDU_OP_DELETE: return "DELETE";
    case CF_KUDU_OP_SPLIT_ROW: return "SPLIT_ROW";
    case CF_KUDU_OP_UPSERT: return "UPSERT";
    case CF_KUDU_OP_RANGE_LOWER_BOUND: return "RANGE_LOWER_BOUND";
    case CF_KUDU_OP_RANGE_UPPER_BOUND: return "RANGE_UPPER_BOUND";
    case CF_KUDU_OP_EXCLUSIVE_RANGE_LOWER_BOUND: return "EXCLUSIVE_RANGE_LOWER_BOUND";
    case CF_KUDU_OP_INCLUSIVE_RANGE_UPPER_BOUND: return "INCLUSIVE_RANGE_UPPER_BOUND";
    case CF_KUDU_OP_INSERT_IGNORE: return "INSERT_IGNORE";
    case CF_KUDU_OP_UPDATE_IGNORE: return "UPDATE_IGNORE";
    case CF_KUDU_OP_DELETE_IGNORE: return "DELETE_IGNORE";
    case CF_KUDU_OP_UPSERT_IGNORE: return "UPSERT_IGNORE";
    }
    return "UNKNOWN";
}
