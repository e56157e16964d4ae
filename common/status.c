/* Status names, error message helpers and the clock. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sg_common.h"

const char *sg_status_name(sg_status s)
{
    switch (s) {
    case SG_OK: return "ok";
    case SG_E_INVALID: return "invalid argument";
    case SG_E_NOMEM: return "out of memory";
    case SG_E_IO: return "I/O error";
    case SG_E_NOSPACE: return "no space left";
    case SG_E_CORRUPT: return "corrupt data";
    case SG_E_FORMAT: return "unsupported format";
    case SG_E_EXISTS: return "already exists";
    case SG_E_NOTFOUND: return "not found";
    case SG_E_RANGE: return "out of range";
    case SG_E_INVARIANT: return "invariant violated";
    case SG_E_UNSUPPORTED: return "not supported by this build";
    case SG_E_DEVICE: return "device error";
    case SG_E_MISMATCH: return "verification failed";
    }
    return "unknown status";
}

static void fill(sg_error *err, sg_status code, const char *fmt, va_list ap)
{
    if (!err) return;
    err->code = code;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

sg_status sgi_fail(sg_error *err, sg_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fill(err, code, fmt, ap);
    va_end(ap);
    return code;
}

sg_status sgi_errno_status(int errnum)
{
    switch (errnum) {
    case ENOSPC:
    case EDQUOT: return SG_E_NOSPACE;
    case ENOENT: return SG_E_NOTFOUND;
    case ENOMEM: return SG_E_NOMEM;
    case EEXIST:
    case ENOTEMPTY: return SG_E_EXISTS;
    default: return SG_E_IO;
    }
}

sg_status sgi_fail_errno(sg_error *err, int errnum, const char *fmt, ...)
{
    sg_status code = sgi_errno_status(errnum);
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        fill(err, code, fmt, ap);
        va_end(ap);
        size_t len = strlen(err->msg);
        snprintf(err->msg + len, sizeof err->msg - len, ": %s", strerror(errnum));
    }
    return code;
}

double sgi_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

