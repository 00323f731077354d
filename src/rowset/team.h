/* Internal: a small team of worker threads that a scan hands independent jobs
 * to (one column of a batch each), the calling thread taking jobs too.
 *
 * Call order: create (run)* free. A team is driven by one thread at a time:
 * run returns only when every job of the call has finished, so between two runs
 * (and at free) no worker touches anything of the caller's.
 */
#ifndef CF_ROWSET_TEAM_H
#define CF_ROWSET_TEAM_H

#include <stddef.h>

#include <cfile/status.h>

typedef struct cf_rs_team cf_rs_team;

/* One job: job i of the run, its error (if any) into err. */
typedef cf_status (*cf_rs_team_fn)(void *ctx, size_t i, cf_error *err);

/* Start `workers` threads (>= 1). CF_ENOMEM, or CF_EIO when the system refuses
 * a thread (the threads already started are joined). */
cf_status cf_rs_team_create(cf_rs_team **out, size_t workers, cf_error *err);
/* Joins the workers (idle: see above). NULL is a no-op. */
void cf_rs_team_free(cf_rs_team *t);
/* Threads that run jobs: the workers plus the caller. */
size_t cf_rs_team_threads(const cf_rs_team *t);
/* Run fn(ctx, i, &errs[i]) for every i < n, spread over the caller and the
 * workers, each job on one thread; st[i] gets job i's status. Returns when all
 * have finished. Jobs are claimed in order of i. */
void cf_rs_team_run(cf_rs_team *t, cf_rs_team_fn fn, void *ctx, size_t n, cf_status *st,
                    cf_error *errs);

#endif
