/* A small team of worker threads that a reader or writer hands independent
 * jobs to (a table scan: one column's next window each; a Parquet reader: one
 * leaf column's next batch each; an import: one chunk of input to parse each),
 * the calling thread taking jobs too. The one team of the library and the CLI:
 * every parallel path uses it (src/util/team.c).
 *
 * Static linking only (status.h): libcfile.so does not export it, and it may
 * change between releases.
 *
 * Call order: create (start finish?)* free. A team is driven by one thread at
 * a time (the caller). start posts a run's jobs and returns at once, so the
 * workers read ahead while the caller goes on with other work; finish makes
 * the caller take the run's jobs nobody has claimed and then wait for the
 * rest. Only one run is open at a time: start (and free) first finish the
 * open one, whoever posted it. Once finish has returned (or a later start, or
 * free, has), no worker touches anything of that run's.
 */
#ifndef CFILE_TEAM_H
#define CFILE_TEAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/status.h>

#ifdef CF_STATIC_LINKING_ONLY /* not exported by libcfile.so: status.h */

typedef struct cf_team cf_team;

/* The online CPUs, at least 1 and at most `max`: what a threads option of 0
 * ("one per CPU") means everywhere. */
CF_STATIC_API size_t cf_team_online_cpus(size_t max);

/* One job: job i of the run, its error (if any) into err. */
typedef cf_status (*cf_team_fn)(void *ctx, size_t i, cf_error *err);

/* Start `workers` threads (>= 1). CF_ENOMEM, or CF_EIO when the system refuses
 * a thread (the threads already started are joined). */
CF_STATIC_API cf_status cf_team_create(cf_team **out, size_t workers, cf_error *err);
/* Finishes the open run, joins the workers. NULL is a no-op. */
CF_STATIC_API void cf_team_free(cf_team *t);
/* Threads that run jobs: the workers plus the caller. */
CF_STATIC_API size_t cf_team_threads(const cf_team *t);
/* Post fn(ctx, i, &errs[i]) for every i < n (claimed in order of i, each on
 * one thread; st[i] gets job i's status) after finishing the open run; returns
 * the run's ticket for cf_team_finish without waiting. ctx, st and errs
 * must stay valid until the run is finished. n == 0 posts nothing. */
CF_STATIC_API uint64_t cf_team_start(cf_team *t, cf_team_fn fn, void *ctx, size_t n, cf_status *st,
                                     cf_error *errs);
/* Make sure the run `ticket` has finished: the caller runs its unclaimed jobs
 * and waits for the claimed ones. A no-op for a run already finished. */
CF_STATIC_API void cf_team_finish(cf_team *t, uint64_t ticket);
/* Has the run `ticket` finished (every job done), without waiting or
 * taking a job? True for a run already finished. Once it answers true the
 * run counts as finished, as after cf_team_finish. */
CF_STATIC_API bool cf_team_done(cf_team *t, uint64_t ticket);
/* start + finish. */
CF_STATIC_API void cf_team_run(cf_team *t, cf_team_fn fn, void *ctx, size_t n, cf_status *st,
                               cf_error *errs);
#endif /* CF_STATIC_LINKING_ONLY */

#endif
