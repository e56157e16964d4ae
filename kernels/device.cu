// Device discovery and a self-test: the first CUDA code of spillgraph,
// reached from src/ through kernels/gpu.h.
#include <cuda.h> // CUmoduleLoadingMode (the driver's call is reached through the runtime)
#include <cuda_runtime.h>

#include <mutex>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "sg_common.h"

#define CU_TRY(call)                                                                      \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            st = sgi_fail(err, SG_E_DEVICE, "%s: %s (%s)", #call, cudaGetErrorName(e_),  \
                          cudaGetErrorString(e_));                                        \
            goto fail;                                                                    \
        }                                                                                 \
    } while (0)

static void module_loading_default(void)
{
    // setenv's last argument 0: a mode the user named stays
    (void)setenv("CUDA_MODULE_LOADING", "EAGER", 0);
}

extern "C" void sgk_cuda_start(void)
{
    static std::once_flag once;
    std::call_once(once, module_loading_default);
}

extern "C" const char *sgk_module_loading(void)
{
    sgk_cuda_start();
    typedef CUresult (*get_mode_fn)(CUmoduleLoadingMode *);
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    // cuModuleGetLoadingMode came with CUDA 11.7
    if (cudaGetDriverEntryPointByVersion("cuModuleGetLoadingMode", &fn, 11070, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !fn) {
        (void)cudaGetLastError();
        return "unknown";
    }
    CUmoduleLoadingMode m;
    if (reinterpret_cast<get_mode_fn>(fn)(&m) != CUDA_SUCCESS) return "unknown";
    return m == CU_MODULE_EAGER_LOADING  ? "eager"
           : m == CU_MODULE_LAZY_LOADING ? "lazy"
                                         : "unknown";
}

extern "C" int sgk_device_count(void)
{
    sgk_cuda_start();
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); // clear the sticky "no device" error
        return 0;
    }
    return n;
}

extern "C" sg_status sgk_device_query(int index, sgk_device_info *out, sg_error *err)
{
    sg_status st = SG_OK;
    cudaDeviceProp p;
    sgk_device_info info;
    size_t free_b = 0, total_b = 0;
    memset(&info, 0, sizeof info);
    sgk_cuda_start();
    CU_TRY(cudaGetDeviceProperties(&p, index));
    CU_TRY(cudaSetDevice(index));
    CU_TRY(cudaMemGetInfo(&free_b, &total_b));
    CU_TRY(cudaDriverGetVersion(&info.driver_version));
    CU_TRY(cudaRuntimeGetVersion(&info.runtime_version));
    info.index = index;
    snprintf(info.name, sizeof info.name, "%.127s", p.name);
    info.cc_major = p.major;
    info.cc_minor = p.minor;
    info.sm_count = p.multiProcessorCount;
    info.total_bytes = total_b;
    info.free_bytes = free_b;
    info.l2_bytes = (uint64_t)p.l2CacheSize;
    snprintf(info.module_loading, sizeof info.module_loading, "%s", sgk_module_loading());
    *out = info;
fail:
    return st;
}

__global__ void sgk_increment(uint32_t *v, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        v[i] += 1u;
}

extern "C" sg_status sgk_selftest(int index, size_t n, double *gbps, sg_error *err)
{
    sg_status st = SG_OK;
    uint32_t *h = NULL, *d = NULL;
    cudaEvent_t t0 = NULL, t1 = NULL;
    float ms = 0;
    size_t bytes = n * sizeof(uint32_t);
    sgk_cuda_start();
    CU_TRY(cudaSetDevice(index));
    CU_TRY(cudaMallocHost((void **)&h, bytes));
    CU_TRY(cudaMalloc((void **)&d, bytes));
    CU_TRY(cudaEventCreate(&t0));
    CU_TRY(cudaEventCreate(&t1));
    for (size_t i = 0; i < n; i++) h[i] = (uint32_t)(i * 2654435761u);
    CU_TRY(cudaEventRecord(t0));
    CU_TRY(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    CU_TRY(cudaEventRecord(t1));
    CU_TRY(cudaEventSynchronize(t1));
    CU_TRY(cudaEventElapsedTime(&ms, t0, t1));
    sgk_increment<<<264, 256>>>(d, n);
    CU_TRY(cudaGetLastError());
    CU_TRY(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (h[i] != (uint32_t)(i * 2654435761u) + 1u) {
            st = sgi_fail(err, SG_E_DEVICE, "self-test: element %zu came back wrong", i);
            goto fail;
        }
    *gbps = ms > 0 ? (double)bytes / (ms * 1e-3) / 1e9 : 0.0;
fail:
    if (t0) cudaEventDestroy(t0);
    if (t1) cudaEventDestroy(t1);
    if (d) cudaFree(d);
    if (h) cudaFreeHost(h);
    return st;
}

extern "C" sg_status sgk_host_alloc(size_t bytes, void **out, sg_error *err)
{
    sgk_cuda_start();
    sg_status st = SG_OK;
    void *p = NULL;
    CU_TRY(cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable | cudaHostAllocMapped));
    *out = p;
fail:
    return st;
}

extern "C" void sgk_host_free(void *p)
{
    if (p) (void)cudaFreeHost(p);
}

extern "C" sg_status sgk_managed_alloc(int device, size_t bytes, void **out, sg_error *err)
{
    sgk_cuda_start();
    sg_status st = SG_OK;
    void *p = NULL;
    cudaMemLocation host_loc, dev_loc;
    memset(&host_loc, 0, sizeof host_loc);
    memset(&dev_loc, 0, sizeof dev_loc);
    host_loc.type = cudaMemLocationTypeHost;
    dev_loc.type = cudaMemLocationTypeDevice;
    dev_loc.id = device;
    if (bytes == 0) bytes = 1;
    CU_TRY(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal));
    CU_TRY(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, host_loc));
    CU_TRY(cudaMemAdvise(p, bytes, cudaMemAdviseSetAccessedBy, dev_loc));
    *out = p;
    p = NULL;
fail:
    if (p) (void)cudaFree(p);
    return st;
}

extern "C" void sgk_managed_free(void *p)
{
    if (p) (void)cudaFree(p);
}

extern "C" sg_status sgk_host_register(void *p, size_t bytes, sg_error *err)
{
    sgk_cuda_start();
    sg_status st = SG_OK;
    CU_TRY(cudaHostRegister(p, bytes ? bytes : 1, cudaHostRegisterPortable | cudaHostRegisterMapped));
fail:
    return st;
}

extern "C" sg_status sgk_host_pin(int device, void *p, size_t bytes, sg_error *err)
{
    sgk_cuda_start();
    sg_status st = SG_OK;
    CU_TRY(cudaSetDevice(device));
    st = sgk_host_register(p, bytes, err);
fail:
    return st;
}

extern "C" void sgk_host_unregister(void *p)
{
    if (p) (void)cudaHostUnregister(p);
}
