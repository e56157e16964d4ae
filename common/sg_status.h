/* spillgraph — status codes and error messages.
 *
 * The lowest layer of the project: storage/, src/, kernels/ and tools/ all
 * report failures with these codes. Every fallible call returns an sg_status
 * (0 = success, negative = failure) and, when the caller passes a non-NULL
 * sg_error, writes a one-line human message into it naming the file, shard,
 * block or line at fault. Outputs are untouched on failure.
 */
#ifndef SG_STATUS_H
#define SG_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the symbols libspillgraph exports; everything else is hidden. */
#ifndef SG_API
#define SG_API __attribute__((visibility("default")))
#endif

typedef enum sg_status {
    SG_OK = 0,
    SG_E_INVALID = -1,    /* bad argument or option value */
    SG_E_NOMEM = -2,      /* an allocation failed */
    SG_E_IO = -3,         /* a system call failed (EIO, EACCES, ...) */
    SG_E_NOSPACE = -4,    /* ENOSPC / EDQUOT while writing */
    SG_E_CORRUPT = -5,    /* checksum mismatch, bad magic, truncated file */
    SG_E_FORMAT = -6,     /* well-formed but unsupported (version, weight type) */
    SG_E_EXISTS = -7,     /* output exists and overwriting was not asked for */
    SG_E_NOTFOUND = -8,   /* input path does not exist */
    SG_E_RANGE = -9,      /* id, count or size out of the representable range */
    SG_E_INVARIANT = -10, /* store decodes but breaks a graph invariant */
    SG_E_UNSUPPORTED = -11, /* feature absent in this build (e.g. no CUDA) */
    SG_E_DEVICE = -12,    /* a CUDA call failed */
    SG_E_MISMATCH = -13   /* a result differs from its oracle (--verify) */
} sg_status;

/* A caller-owned message buffer. Functions fill `msg` on failure only. */
typedef struct sg_error {
    sg_status code;
    char msg[512];
} sg_error;

/* A short constant name for a status ("corrupt data", ...). Never NULL. */
SG_API const char *sg_status_name(sg_status s);

#ifdef __cplusplus
}
#endif
#endif
