/* A team of worker threads that scans and readers hand independent jobs to (cfile/team.h).
 *
 * A scan posts a few jobs per window (one per column to read), each taking
 * tens of microseconds, so waking a sleeping thread (a futex round trip, more
 * on a busy machine) would cost as much as a job. The scan posts the next
 * window's jobs as soon as it starts on a window, so a sleeping worker wakes
 * while the caller works; and a worker that runs out of jobs spins for
 * WORKER_SPIN_NS before it sleeps, long enough to catch the next post when the
 * caller only had its own last job to finish. The caller, waiting for a job a
 * worker still runs, spins for CALLER_SPIN_NS before it sleeps. The spins do
 * not yield: timelines of a loaded 2-core run (CF_SCAN_TRACE in scan.c)
 * showed a worker that yields while it spins losing its turn for
 * milliseconds, so that the caller ran almost every job itself; one woken
 * from its futex gets the scheduler's wake-up credit and runs at once. On
 * such a machine a spinning worker may hold the CPU the caller waits for, so
 * the spin is kept short. Jobs are
 * claimed and counted under one mutex (a handful per run); the spins read two
 * atomics without it.
 */
#include <cfile/team.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"

/* How long an idle side spins before it sleeps. */
#ifndef WORKER_SPIN_NS
#define WORKER_SPIN_NS 30000
#endif
#ifndef CALLER_SPIN_NS
#define CALLER_SPIN_NS 10000
#endif

struct cf_team {
    pthread_mutex_t mu;
    pthread_cond_t wake; /* workers: a run started, or quit */
    pthread_cond_t done; /* the caller: the run's last job finished */
    pthread_t *th;
    size_t nth;
    /* the current run, under mu */
    cf_team_fn fn;
    void *ctx;
    size_t n, next;
    cf_status *st;
    cf_error *errs;
    size_t sleeping;   /* workers waiting on `wake` */
    bool caller_waits; /* the caller waits on `done` */
    /* written by the caller only: the last run's ticket, and whether it may
     * still have jobs unfinished */
    uint64_t ticket;
    bool open;
    /* read without mu by the spins */
    atomic_bool pending; /* next < n */
    atomic_size_t finished;
    atomic_bool quit;
};

static void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin until *flag holds `want` or SPIN_NS pass; true when it does. */
static bool spin_until(atomic_bool *flag, bool want, atomic_bool *quit)
{
    if (WORKER_SPIN_NS == 0)
        return atomic_load_explicit(flag, memory_order_acquire) == want;
    uint64_t start = 0;
    for (unsigned k = 0;; k++) {
        if (atomic_load_explicit(flag, memory_order_acquire) == want ||
            (quit != NULL && atomic_load_explicit(quit, memory_order_relaxed)))
            return true;
        relax();
        if ((k & 63) == 63) {
            uint64_t t = now_ns();
            if (start == 0)
                start = t;
            else if (t - start > WORKER_SPIN_NS)
                return false;
        }
    }
}

/* Claim and run jobs until none is left. Requires: mu held; returns with it held. */
static void run_jobs(cf_team *t)
{
    while (t->next < t->n) {
        size_t i = t->next++;
        if (t->next == t->n)
            atomic_store_explicit(&t->pending, false, memory_order_relaxed);
        cf_team_fn fn = t->fn;
        void *ctx = t->ctx;
        cf_status *st = t->st;
        cf_error *errs = t->errs;
        size_t n = t->n;
        pthread_mutex_unlock(&t->mu);
        st[i] = fn(ctx, i, &errs[i]);
        pthread_mutex_lock(&t->mu);
        if (atomic_fetch_add_explicit(&t->finished, 1, memory_order_release) + 1 == n &&
            t->caller_waits)
            pthread_cond_signal(&t->done);
    }
}

static void *worker(void *arg)
{
    cf_team *t = arg;
    for (;;) {
        spin_until(&t->pending, true, &t->quit);
        pthread_mutex_lock(&t->mu);
        while (t->next >= t->n && !atomic_load(&t->quit)) {
            t->sleeping++;
            pthread_cond_wait(&t->wake, &t->mu);
            t->sleeping--;
        }
        if (atomic_load(&t->quit)) {
            pthread_mutex_unlock(&t->mu);
            return NULL;
        }
        run_jobs(t);
        pthread_mutex_unlock(&t->mu);
    }
}

cf_status cf_team_create(cf_team **out, size_t workers, cf_error *err)
{
    *out = NULL;
    cf_team *t = cf_calloc(1, sizeof(*t));
    pthread_t *th = cf_calloc(workers ? workers : 1, sizeof(*th));
    if (t == NULL || th == NULL) {
        cf_free(t);
        cf_free(th);
        CF_FAIL(err, CF_ENOMEM, "scan: out of memory for %zu threads", workers);
    }
    t->th = th;
    atomic_init(&t->pending, false);
    atomic_init(&t->finished, 0);
    atomic_init(&t->quit, false);
    if (pthread_mutex_init(&t->mu, NULL) != 0) {
        cf_free(th);
        cf_free(t);
        CF_FAIL(err, CF_ENOMEM, "scan: cannot make a mutex");
    }
    pthread_cond_init(&t->wake, NULL);
    pthread_cond_init(&t->done, NULL);
    for (; t->nth < workers; t->nth++) {
        int rc = pthread_create(&t->th[t->nth], NULL, worker, t);
        if (rc != 0) {
            cf_team_free(t);
            CF_FAIL(err, CF_EIO, "scan: cannot start thread %zu of %zu: %s", t->nth + 1, workers,
                    strerror(rc));
        }
    }
    *out = t;
    return CF_OK;
}

void cf_team_free(cf_team *t)
{
    if (t == NULL)
        return;
    cf_team_finish(t, t->ticket);
    pthread_mutex_lock(&t->mu);
    atomic_store(&t->quit, true);
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->mu);
    for (size_t i = 0; i < t->nth; i++)
        pthread_join(t->th[i], NULL);
    pthread_cond_destroy(&t->wake);
    pthread_cond_destroy(&t->done);
    pthread_mutex_destroy(&t->mu);
    cf_free(t->th);
    cf_free(t);
}

size_t cf_team_threads(const cf_team *t)
{
    return t->nth + 1;
}

uint64_t cf_team_start(cf_team *t, cf_team_fn fn, void *ctx, size_t n, cf_status *st,
                       cf_error *errs)
{
    cf_team_finish(t, t->ticket);
    t->ticket++;
    if (n == 0)
        return t->ticket;
    pthread_mutex_lock(&t->mu);
    t->fn = fn;
    t->ctx = ctx;
    t->st = st;
    t->errs = errs;
    t->n = n;
    t->next = 0;
    t->open = true;
    atomic_store_explicit(&t->finished, 0, memory_order_relaxed);
    atomic_store_explicit(&t->pending, true, memory_order_release);
    if (t->sleeping > 0)
        pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->mu);
    return t->ticket;
}

void cf_team_finish(cf_team *t, uint64_t ticket)
{
    if (ticket != t->ticket || !t->open)
        return;
    size_t n = t->n; /* the caller wrote it */
    pthread_mutex_lock(&t->mu);
    run_jobs(t);
    pthread_mutex_unlock(&t->mu);
    /* A worker may still be on its job: spin a little, then sleep. */
    uint64_t start = 0;
    for (unsigned k = 0; atomic_load_explicit(&t->finished, memory_order_acquire) < n; k++) {
        relax();
        if ((k & 63) != 63)
            continue;
        uint64_t now = now_ns();
        if (start == 0) {
            start = now;
        } else if (now - start > CALLER_SPIN_NS) {
            pthread_mutex_lock(&t->mu);
            t->caller_waits = true;
            while (atomic_load_explicit(&t->finished, memory_order_acquire) < n)
                pthread_cond_wait(&t->done, &t->mu);
            t->caller_waits = false;
            pthread_mutex_unlock(&t->mu);
            break;
        }
    }
    t->open = false;
}

bool cf_team_done(cf_team *t, uint64_t ticket)
{
    if (ticket != t->ticket || !t->open)
        return true;
    if (atomic_load_explicit(&t->finished, memory_order_acquire) < t->n)
        return false;
    t->open = false;
    return true;
}

void cf_team_run(cf_team *t, cf_team_fn fn, void *ctx, size_t n, cf_status *st, cf_error *errs)
{
    cf_team_finish(t, cf_team_start(t, fn, ctx, n, st, errs));
}

size_t cf_team_online_cpus(size_t max)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return (size_t)n > max ? max : (size_t)n;
}
