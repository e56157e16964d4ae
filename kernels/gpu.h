/* spillgraph — the plain-C gateway to the CUDA code in kernels/.
 *
 * No CUDA type crosses this header. src/ calls these only when the build
 * has CUDA (SG_HAVE_CUDA in sg_config.h); without it src/ never links them.
 * Every CUDA call is checked; failures return SG_E_DEVICE with the CUDA
 * error name and message in err. */
#ifndef SG_KERNELS_GPU_H
#define SG_KERNELS_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "sg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sgk_device_info {
    int index;
    char name[128];
    int cc_major, cc_minor;
    int sm_count;
    uint64_t total_bytes;
    uint64_t free_bytes;
    uint64_t l2_bytes;
    int driver_version, runtime_version;
} sgk_device_info;

/* Number of usable CUDA devices; 0 when there is none or no driver (that is
 * not an error: the CPU path runs). */
int sgk_device_count(void);

/* Facts about device `index`, including free memory now. */
sg_status sgk_device_query(int index, sgk_device_info *out, sg_error *err);

/* Copies n bytes host -> device -> host through a device buffer and checks
 * the round trip; returns the host->device rate in *gbps. A smoke test of
 * the whole toolchain (driver, runtime, allocation, copies, a kernel). */
sg_status sgk_selftest(int index, size_t n, double *gbps, sg_error *err);

/* Page-locked host memory (cudaHostAlloc, portable and mapped), for arrays
 * that are copied to the device or read by it in place. *out is set only on
 * success. SG_E_DEVICE with CUDA's message (no driver, no device, out of
 * pinnable memory). Free with sgk_host_free (accepts NULL). */
sg_status sgk_host_alloc(size_t bytes, void **out, sg_error *err);
void sgk_host_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
