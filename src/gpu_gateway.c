/* The GPU branch point (SuiteSparse GB_cuda_gateway style): src/ asks here
 * whether a GPU exists; only this file calls into kernels/ for devices. */
#include <string.h>

#include "sg_common.h"
#include "sg_config.h"
#include "spillgraph.h"
#if SG_HAVE_CUDA
#include "gpu.h"
#endif

bool sg_gpu_built(void) { return SG_HAVE_CUDA != 0; }

int sg_gpu_count(void)
{
#if SG_HAVE_CUDA
    return sgk_device_count();
#else
    return 0;
#endif
}

uint64_t sg_device_margin(uint64_t total_bytes) { return sgi_device_margin(total_bytes); }
uint64_t sg_available_memory(void) { return sgi_available_memory(); }

sg_status sg_gpu_info_get(int index, sg_gpu_info *out, sg_error *err)
{
#if SG_HAVE_CUDA
    if (index < 0 || index >= sgk_device_count())
        return sgi_fail(err, SG_E_INVALID, "no GPU with index %d (%d present)", index,
                        sgk_device_count());
    sgk_device_info d;
    sg_status st = sgk_device_query(index, &d, err);
    if (st != SG_OK) return st;
    sg_gpu_info g;
    memset(&g, 0, sizeof g);
    g.index = d.index;
    memcpy(g.name, d.name, sizeof g.name);
    g.cc_major = d.cc_major;
    g.cc_minor = d.cc_minor;
    g.sm_count = d.sm_count;
    g.total_bytes = d.total_bytes;
    g.free_bytes = d.free_bytes;
    g.l2_bytes = d.l2_bytes;
    g.driver_version = d.driver_version;
    g.runtime_version = d.runtime_version;
    memcpy(g.module_loading, d.module_loading, sizeof g.module_loading);
    *out = g;
    return SG_OK;
#else
    (void)index;
    (void)out;
    return sgi_fail(err, SG_E_UNSUPPORTED, "this build has no GPU path (built without CUDA)");
#endif
}

sg_status sg_gpu_selftest(int index, uint64_t bytes, double *gbps, sg_error *err)
{
#if SG_HAVE_CUDA
    if (index < 0 || index >= sgk_device_count())
        return sgi_fail(err, SG_E_INVALID, "no GPU with index %d", index);
    if (bytes < 4) return sgi_fail(err, SG_E_INVALID, "self-test needs at least 4 bytes");
    return sgk_selftest(index, (size_t)(bytes / 4), gbps, err);
#else
    (void)index;
    (void)bytes;
    (void)gbps;
    return sgi_fail(err, SG_E_UNSUPPORTED, "this build has no GPU path (built without CUDA)");
#endif
}
