/* Progress of a long conversion on stderr (convert.h). */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "convert.h"

void cf_cli_progress_init(cf_cli_progress *p, cf_cli *c, bool on, uint64_t total)
{
    p->c = c;
    p->on = on;
    p->total = total;
    p->rows = 0;
    p->t0 = p->last = cf_cli_now_s();
}

static void progress_draw(cf_cli_progress *p, double t)
{
    if (p->total)
        fprintf(p->c->err, "\r%" PRIu64 " / %" PRIu64 " rows (%.0f%%), %.1f s", p->rows, p->total,
                100.0 * (double)p->rows / (double)p->total, t - p->t0);
    else
        fprintf(p->c->err, "\r%" PRIu64 " rows, %.1f s", p->rows, t - p->t0);
    fflush(p->c->err);
}

void cf_cli_progress_cb(void *ctx, uint64_t rows)
{
    cf_cli_progress *p = ctx;
    p->rows = rows;
    if (!p->on)
        return;
    double t = cf_cli_now_s();
    if (t - p->last < 0.5)
        return;
    p->last = t;
    progress_draw(p, t);
}

void cf_cli_progress_end(cf_cli_progress *p)
{
    if (!p->on)
        return;
    progress_draw(p, cf_cli_now_s());
    fputc('\n', p->c->err);
}
