#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *cf_status_str(cf_status st)
{
    switch (st) {
    case CF_OK: return "ok";
    case CF_EINVAL: return "invalid argument";
    case CF_ESTATE: return "call out of order";
    case CF_ECORRUPT: return "corruption";
    case CF_ENOTSUP: return "not supported";
    case CF_EIO: return "i/o error";
    case CF_ENOMEM: return "out of memory";
    case CF_ENOTFOUND: return "not found";
    case CF_EBUFSIZE: return "buffer too small";
    case CF_EBUSY: return "busy";
    }
    return "unknown status";
}

cf_status cf_error_set(cf_error *err, cf_status code, const char *file, int line, const char *fmt,
                       ...)
{
    if (err == NULL)
        return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    const char *base = strrchr(file, '/');
    snprintf(err->where, sizeof err->where, "%s:%d", base ? base + 1 : file, line);
    return code;
}

cf_status cf_error_prefix(cf_error *err, cf_status st, const char *fmt, ...)
{
    if (err == NULL || st == CF_OK)
        return st;
    char pre[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return st;
    size_t plen = strlen(pre), mlen = strlen(err->msg);
    if (plen >= sizeof err->msg)
        plen = sizeof err->msg - 1;
    if (plen + mlen >= sizeof err->msg)
        mlen = sizeof err->msg - 1 - plen;
    memmove(err->msg + plen, err->msg, mlen);
    memcpy(err->msg, pre, plen);
    err->msg[plen + mlen] = '\0';
    return st;
}

cf_status cf_sticky_set(cf_sticky *s, cf_status st, const cf_error *err)
{
    if (st == CF_OK || s->code != CF_OK)
        return st;
    s->code = st;
    if (err != NULL) {
        s->err = *err;
        /* the callee may have failed without touching a caller's stale record */
        s->err.msg[sizeof s->err.msg - 1] = '\0';
        s->err.where[sizeof s->err.where - 1] = '\0';
    } else {
        s->err = (cf_error){.code = st};
    }
    s->err.code = st;
    return st;
}

cf_status cf_sticky_replay(const cf_sticky *s, const char *who, cf_error *err)
{
    if (s->code == CF_OK)
        return CF_OK;
    if (err == NULL)
        return s->code;
    *err = s->err; /* the origin (err->where) stays the first failure's */
    if (err->msg[0] == '\0')
        snprintf(err->msg, sizeof err->msg, "%s: an earlier call failed (%s)", who,
                 cf_status_str(s->code));
    else
        cf_error_prefix(err, s->code, "%s: an earlier call failed: ", who);
    return s->code;
}

cf_status cf_sticky_first(const cf_sticky *s, cf_error *err)
{
    if (s->code != CF_OK && err != NULL)
        *err = s->err;
    return s->code;
}
