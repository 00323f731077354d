/* The block readers an fs keeps open between scans (reader_cache.h): a hash of
 * entries by block id over an LRU list, under one mutex, since the tablets and
 * scanners of one fs may be used from different threads (include/cfile/kudu.h). */
#include "reader_cache.h"

#include <pthread.h>
#include <sys/resource.h>

#include <cfile/kudu.h>

#include "util/alloc.h"

/* Buckets of the hash: the bound is at most CACHE_CAP, chains stay short. */
#define NBUCKETS 4096
/* The default bound never passes this, whatever RLIMIT_NOFILE allows. */
#define CACHE_CAP 8192

typedef struct entry {
    uint64_t id;
    bool mmap;
    cf_io *io;
    cf_reader *r;
    struct entry *hnext;         /* bucket chain */
    struct entry *newer, *older; /* LRU list */
} entry;

struct cf_kudu_reader_cache {
    pthread_mutex_t mu;
    size_t max; /* as configured; 0 = from RLIMIT_NOFILE */
    size_t n;
    entry *newest, *oldest;
    entry *buckets[NBUCKETS];
};

static size_t bucket(uint64_t id)
{
    return (size_t)((id * 0x9E3779B97F4A7C15u) >> 52) & (NBUCKETS - 1);
}

cf_kudu_reader_cache *cf_kudu_reader_cache_new(size_t max)
{
    cf_kudu_reader_cache *c = cf_calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        cf_free(c);
        return NULL;
    }
    c->max = max;
    return c;
}

/* Unlink e from its chain and the list (held: mu). */
static void unlink_entry(cf_kudu_reader_cache *c, entry *e)
{
    entry **pp = &c->buckets[bucket(e->id)];
    while (*pp != e)
        pp = &(*pp)->hnext;
    *pp = e->hnext;
    if (e->newer != NULL)
        e->newer->older = e->older;
    else
        c->newest = e->older;
    if (e->older != NULL)
        e->older->newer = e->newer;
    else
        c->oldest = e->newer;
    c->n--;
}

/* Free a chain of entries taken out of the cache, linked by `newer` (outside
 * the lock: closing a reader need not hold up the others). */
static void free_chain(entry *e)
{
    while (e != NULL) {
        entry *nx = e->newer;
        cf_reader_free(e->r);
        cf_io_free(e->io);
        cf_free(e);
        e = nx;
    }
}

size_t cf_kudu_reader_cache_bound(const cf_kudu_reader_cache *c)
{
    if (c->max == CF_KUDU_READER_CACHE_OFF)
        return 0;
    /* Read at each call: a process that lowers its limit after the fs is open (as the
     * descriptor-limit test does) gets a smaller cache. 40% of the soft limit, as
     * Kudu sizes its own file cache (block_manager_max_open_files). */
    size_t lim = CACHE_CAP;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur / 5 * 2 < lim)
        lim = (size_t)(rl.rlim_cur / 5 * 2);
    return c->max != 0 && c->max < lim ? c->max : lim;
}

bool cf_kudu_reader_cache_take(cf_kudu_reader_cache *c, uint64_t id, bool mmap, cf_io **io,
                               cf_reader **r)
{
    if (c == NULL)
        return false;
    pthread_mutex_lock(&c->mu);
    entry *e = c->buckets[bucket(id)];
    while (e != NULL && (e->id != id || e->mmap != mmap))
        e = e->hnext;
    if (e != NULL)
        unlink_entry(c, e);
    pthread_mutex_unlock(&c->mu);
    if (e == NULL)
        return false;
    *io = e->io;
    *r = e->r;
    cf_free(e);
    return true;
}

void cf_kudu_reader_cache_give(cf_kudu_reader_cache *c, uint64_t id, bool mmap, cf_io *io,
                               cf_reader *r)
{
    if (io == NULL && r == NULL)
        return;
    size_t bound = c != NULL ? cf_kudu_reader_cache_bound(c) : 0;
    entry *e = bound > 0 ? cf_malloc(sizeof(*e)) : NULL;
    if (e == NULL) { /* not kept: as without a cache */
        cf_reader_free(r);
        cf_io_free(io);
        return;
    }
    *e = (entry){.id = id, .mmap = mmap, .io = io, .r = r};
    entry *drop = NULL; /* freed outside the lock */
    pthread_mutex_lock(&c->mu);
    size_t b = bucket(id);
    e->hnext = c->buckets[b];
    c->buckets[b] = e;
    e->older = c->newest;
    if (c->newest != NULL)
        c->newest->newer = e;
    else
        c->oldest = e;
    c->newest = e;
    c->n++;
    while (c->n > bound) {
        entry *o = c->oldest;
        unlink_entry(c, o);
        o->newer = drop; /* unlinked: its links are free to chain the dropped */
        drop = o;
    }
    pthread_mutex_unlock(&c->mu);
    free_chain(drop);
}

void cf_kudu_reader_cache_drop_all(cf_kudu_reader_cache *c)
{
    if (c == NULL)
        return;
    pthread_mutex_lock(&c->mu);
    entry *all = c->oldest;
    c->newest = c->oldest = NULL;
    c->n = 0;
    for (size_t i = 0; i < NBUCKETS; i++)
        c->buckets[i] = NULL;
    pthread_mutex_unlock(&c->mu);
    free_chain(all);
}

size_t cf_kudu_reader_cache_count(cf_kudu_reader_cache *c)
{
    pthread_mutex_lock(&c->mu);
    size_t n = c->n;
    pthread_mutex_unlock(&c->mu);
    return n;
}

void cf_kudu_reader_cache_free(cf_kudu_reader_cache *c)
{
    if (c == NULL)
        return;
    cf_kudu_reader_cache_drop_all(c);
    pthread_mutex_destroy(&c->mu);
    cf_free(c);
}
