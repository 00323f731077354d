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

cf_status cf_error_set(cf_error *err, cf_status code, const char *file, int line,
                       const char *fmt, ...)
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
