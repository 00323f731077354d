/* The shared block cache (include/cfile/cache.h).
 *
 * Keys are (file id, block offset): each reader takes a fresh file id from
 * the cache when it opens, so a reader freed and another opened at the same
 * address never sees the first one's blocks.
 *
 * Each shard is a chained hash table plus a doubly linked LRU list under one
 * mutex. Entries are reference counted: the table holds one reference, every
 * pinned lookup one more, and an entry is freed when the last goes. Eviction
 * only unlinks (and uncharges) an entry, so an iterator still decoding a block
 * keeps valid bytes without copying them out of the cache on every hit.
 */
#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

#define NSHARDS_BIG 16u
#define SHARD_THRESHOLD (16u * 1024u * 1024u)
/* Charged per entry on top of its bytes, so that many tiny blocks stay bounded too. */
#define ENTRY_OVERHEAD 64u

struct cf_cache_entry {
    struct cf_cache_entry *hnext;       /* hash chain */
    struct cf_cache_entry *prev, *next; /* LRU list, most recent at head.next */
    uint64_t file_id, off;
    uint32_t size; /* stored bytes of the block: part of the key */
    bool is_view;  /* a "verified in place" mark, no bytes */
    size_t len;
    size_t charge;
    unsigned refs; /* table reference + pins; guarded by the shard mutex */
    bool in_table;
    _Atomic(void *) aux; /* derived state (cf_cache_entry_set_aux), owned */
    uint8_t *data;       /* the block's logical bytes, inside this allocation */
    uint8_t space[];
};

/* Where the logical bytes start inside an entry's allocation. Iterators serve
 * PLAIN values in place from cached bytes (zero copy) only when they are
 * aligned for their type, and the copy into the caller's buffer runs fastest
 * from a cache-line boundary: so the bytes start 8 bytes before a 64-byte
 * boundary, which puts a PLAIN block's values (after its 8-byte header, format
 * §8.1) on the boundary. A flexible array member of bytes would start at an
 * arbitrary odd offset and force a second copy on every batch. */
#define DATA_ALIGN 64u
#define DATA_SLACK (DATA_ALIGN + 8u)
static uint8_t *entry_data(cf_cache_entry *e)
{
    uintptr_t p = (uintptr_t)e->space + 8u;
    p = (p + DATA_ALIGN - 1) & ~(uintptr_t)(DATA_ALIGN - 1);
    return (uint8_t *)(p - 8u);
}

typedef struct shard {
    pthread_mutex_t mu;
    cf_cache_entry **table;
    size_t nbuckets; /* power of two */
    size_t entries;
    size_t bytes, capacity;
    cf_cache_entry *lru; /* sentinel (allocated: an entry ends in a flexible array) */
    uint64_t hits, misses, inserts, evictions;
} shard;

struct cf_cache {
    size_t capacity;
    unsigned nshards;
    atomic_uint_fast64_t next_id;
    shard shards[];
};

static uint64_t mix(uint64_t file_id, uint64_t off)
{
    uint64_t h = file_id * 0x9E3779B97F4A7C15ull ^ off;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

cf_status cf_cache_create(cf_cache **out, size_t capacity_bytes, cf_error *err)
{
    *out = NULL;
    CF_CHECK(capacity_bytes > 0, err, CF_EINVAL, "cache capacity must be more than 0 bytes");
    unsigned n = capacity_bytes >= SHARD_THRESHOLD ? NSHARDS_BIG : 1;
    cf_cache *c = cf_calloc(1, sizeof *c + n * sizeof(shard));
    CF_CHECK(c != NULL, err, CF_ENOMEM, "out of memory creating a cache");
    c->capacity = capacity_bytes;
    c->nshards = n;
    atomic_init(&c->next_id, 1);
    for (unsigned i = 0; i < n; i++) {
        shard *s = &c->shards[i];
        s->capacity = capacity_bytes / n;
        s->lru = cf_calloc(1, sizeof *s->lru);
        s->nbuckets = 64;
        s->table = cf_calloc(s->nbuckets, sizeof *s->table);
        if (s->lru == NULL || s->table == NULL || pthread_mutex_init(&s->mu, NULL) != 0) {
            cf_free(s->lru);
            cf_free(s->table);
            for (unsigned j = 0; j < i; j++) {
                pthread_mutex_destroy(&c->shards[j].mu);
                cf_free(c->shards[j].table);
                cf_free(c->shards[j].lru);
            }
            cf_free(c);
            CF_FAIL(err, CF_ENOMEM, "out of memory creating a cache");
        }
        s->lru->prev = s->lru->next = s->lru;
    }
    *out = c;
    return CF_OK;
}

void cf_cache_free(cf_cache *c)
{
    if (c == NULL)
        return;
    for (unsigned i = 0; i < c->nshards; i++) {
        shard *s = &c->shards[i];
        /* No pins can remain: every reader (and so every iterator) is gone. */
        for (cf_cache_entry *e = s->lru->next, *nx; e != s->lru; e = nx) {
            nx = e->next;
            cf_free(atomic_load_explicit(&e->aux, memory_order_relaxed));
            cf_free(e);
        }
        cf_free(s->table);
        cf_free(s->lru);
        pthread_mutex_destroy(&s->mu);
    }
    cf_free(c);
}

void cf_cache_get_stats(const cf_cache *c, cf_cache_stats *out)
{
    memset(out, 0, sizeof *out);
    out->capacity = c->capacity;
    for (unsigned i = 0; i < c->nshards; i++) {
        shard *s = (shard *)&c->shards[i]; /* locking needs a mutable mutex */
        pthread_mutex_lock(&s->mu);
        out->hits += s->hits;
        out->misses += s->misses;
        out->inserts += s->inserts;
        out->evictions += s->evictions;
        out->entries += s->entries;
        out->bytes += s->bytes;
        pthread_mutex_unlock(&s->mu);
    }
}

uint64_t cf_cache_new_file_id(cf_cache *c)
{
    return atomic_fetch_add(&c->next_id, 1);
}

static shard *shard_of(cf_cache *c, uint64_t h)
{
    return &c->shards[(h >> 40) % c->nshards];
}

static cf_cache_entry **bucket(shard *s, uint64_t h)
{
    return &s->table[h & (s->nbuckets - 1)];
}

static void lru_unlink(cf_cache_entry *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->prev = e->next = NULL;
}

static void lru_push_front(shard *s, cf_cache_entry *e)
{
    e->next = s->lru->next;
    e->prev = s->lru;
    s->lru->next->prev = e;
    s->lru->next = e;
}

static void unref_locked(cf_cache_entry *e)
{
    if (--e->refs == 0) {
        cf_free(atomic_load_explicit(&e->aux, memory_order_relaxed));
        cf_free(e);
    }
}

/* Take e out of the table and the LRU list, dropping the table's reference. */
static void remove_locked(shard *s, cf_cache_entry *e, uint64_t h)
{
    cf_cache_entry **pp = bucket(s, h);
    while (*pp != e)
        pp = &(*pp)->hnext;
    *pp = e->hnext;
    lru_unlink(e);
    e->in_table = false;
    s->entries--;
    s->bytes -= e->charge;
    unref_locked(e);
}

/* Double the bucket array when chains grow past one entry on average; a failed
 * allocation just keeps the longer chains. */
static void maybe_grow(shard *s)
{
    if (s->entries < s->nbuckets)
        return;
    size_t nb = s->nbuckets * 2;
    cf_cache_entry **t = cf_calloc(nb, sizeof *t);
    if (t == NULL)
        return;
    for (size_t i = 0; i < s->nbuckets; i++) {
        for (cf_cache_entry *e = s->table[i], *nx; e != NULL; e = nx) {
            nx = e->hnext;
            cf_cache_entry **b = &t[mix(e->file_id, e->off) & (nb - 1)];
            e->hnext = *b;
            *b = e;
        }
    }
    cf_free(s->table);
    s->table = t;
    s->nbuckets = nb;
}

cf_cache_entry *cf_cache_lookup(cf_cache *c, uint64_t file_id, uint64_t off, uint32_t size,
                                cf_slice *out, bool *is_view)
{
    uint64_t h = mix(file_id, off);
    shard *s = shard_of(c, h);
    pthread_mutex_lock(&s->mu);
    cf_cache_entry *e = *bucket(s, h);
    while (e != NULL && (e->file_id != file_id || e->off != off || e->size != size))
        e = e->hnext;
    if (e != NULL) {
        e->refs++;
        lru_unlink(e);
        lru_push_front(s, e);
        s->hits++;
        *out = (cf_slice){e->data, e->len};
        *is_view = e->is_view;
    } else {
        s->misses++;
    }
    pthread_mutex_unlock(&s->mu);
    return e;
}

/* A new entry for (file_id, off) of len bytes (none with is_view), not in the
 * table yet; NULL when too large for its shard or memory is short. */
static cf_cache_entry *new_entry(cf_cache *c, uint64_t file_id, uint64_t off, uint32_t size,
                                 size_t len, bool is_view)
{
    if (is_view)
        len = 0;
    shard *s = shard_of(c, mix(file_id, off));
    size_t charge, slack = is_view ? 0 : DATA_SLACK;
    if (!cf_add_ok(len, sizeof(cf_cache_entry) + ENTRY_OVERHEAD + slack, &charge) ||
        charge > s->capacity)
        return NULL;
    cf_cache_entry *e = cf_malloc(sizeof *e + len + slack);
    if (e == NULL)
        return NULL;
    memset(e, 0, sizeof *e);
    atomic_init(&e->aux, NULL);
    e->data = is_view ? e->space : entry_data(e);
    e->file_id = file_id;
    e->off = off;
    e->size = size;
    e->is_view = is_view;
    e->len = len;
    e->charge = charge;
    return e;
}

cf_cache_entry *cf_cache_reserve(cf_cache *c, uint64_t file_id, uint64_t off, uint32_t size,
                                 size_t len, uint8_t **data)
{
    cf_cache_entry *e = new_entry(c, file_id, off, size, len, false);
    *data = e != NULL ? e->data : NULL;
    return e;
}

void cf_cache_discard(cf_cache_entry *e)
{
    cf_free(e);
}

cf_cache_entry *cf_cache_insert(cf_cache *c, uint64_t file_id, uint64_t off, uint32_t size,
                                const uint8_t *data, size_t len, bool is_view, cf_slice *out)
{
    /* Allocate and copy outside the lock: only the list surgery is serialized. */
    cf_cache_entry *e = new_entry(c, file_id, off, size, len, is_view);
    if (e == NULL)
        return NULL;
    if (e->len)
        memcpy(e->data, data, e->len);
    return cf_cache_publish(c, e, e->len, out);
}

cf_cache_entry *cf_cache_publish(cf_cache *c, cf_cache_entry *e, size_t len, cf_slice *out)
{
    uint64_t file_id = e->file_id, off = e->off, h = mix(file_id, off);
    shard *s = shard_of(c, h);
    if (len < e->len) { /* charged for what it holds (the allocation's slack stays) */
        e->charge -= e->len - len;
        e->len = len;
    }
    size_t charge = e->charge;
    pthread_mutex_lock(&s->mu);
    /* Another thread may have inserted the same block meanwhile: replace it. */
    for (cf_cache_entry *o = *bucket(s, h); o != NULL; o = o->hnext) {
        if (o->file_id == file_id && o->off == off) {
            remove_locked(s, o, h);
            break;
        }
    }
    while (s->bytes > s->capacity - charge && s->lru->prev != s->lru) {
        cf_cache_entry *victim = s->lru->prev;
        remove_locked(s, victim, mix(victim->file_id, victim->off));
        s->evictions++;
    }
    e->refs = 2; /* the table's and the caller's */
    e->in_table = true;
    cf_cache_entry **b = bucket(s, h);
    e->hnext = *b;
    *b = e;
    lru_push_front(s, e);
    s->entries++;
    s->bytes += charge;
    s->inserts++;
    maybe_grow(s);
    pthread_mutex_unlock(&s->mu);
    *out = (cf_slice){e->data, e->len};
    return e;
}

void cf_cache_release(cf_cache *c, cf_cache_entry *e)
{
    if (e == NULL)
        return;
    shard *s = shard_of(c, mix(e->file_id, e->off));
    pthread_mutex_lock(&s->mu);
    unref_locked(e);
    pthread_mutex_unlock(&s->mu);
}

const void *cf_cache_entry_aux(const cf_cache_entry *e)
{
    return atomic_load_explicit(&((cf_cache_entry *)e)->aux, memory_order_acquire);
}

const void *cf_cache_entry_set_aux(cf_cache *c, cf_cache_entry *e, void *aux, size_t charge)
{
    void *expect = NULL;
    if (!atomic_compare_exchange_strong_explicit(&e->aux, &expect, aux, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        cf_free(aux);
        return expect;
    }
    /* Charge the derived bytes to the shard, making room as an insert would
     * (never by dropping e itself: the caller holds it). */
    shard *s = shard_of(c, mix(e->file_id, e->off));
    pthread_mutex_lock(&s->mu);
    if (e->in_table) {
        e->charge += charge;
        s->bytes += charge;
        while (s->bytes > s->capacity && s->lru->prev != s->lru && s->lru->prev != e) {
            cf_cache_entry *victim = s->lru->prev;
            remove_locked(s, victim, mix(victim->file_id, victim->off));
            s->evictions++;
        }
        if (s->bytes > s->capacity) {
            remove_locked(s, e, mix(e->file_id, e->off)); /* still pinned: stays alive */
            s->evictions++;
        }
    }
    pthread_mutex_unlock(&s->mu);
    return aux;
}
