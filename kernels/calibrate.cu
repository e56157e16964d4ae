// Calibration of the planner's GPU rates (spillgraph calibrate): device
// memory streamed, pinned host->device copies, and random 128-byte reads
// (one warp, 32 x 4 bytes, per request) of pinned host memory and of
// managed memory with preferred-location-host and accessed-by-device hints,
// streamed reads of that managed memory alone and beside the CPU threads'
// scan of host memory (the two draw on one host memory: the in-place
// forest's first round does both). Each figure but the last is the best of
// three timed runs (CUDA events). Every buffer is
// `bytes` long; the managed one is asked only when the device has that much
// free beyond a margin (never oversubscribe managed memory on these hosts).
#include <cuda_runtime.h>
#include <omp.h>

#include <atomic>
#include <string.h>

#include "kinternal.cuh"

namespace {

constexpr unsigned CBLOCK = 256;
constexpr int REPEATS = 3;

// Sum of the buffer as uint4 (so nothing is optimised away).
__global__ void __launch_bounds__(CBLOCK) stream_read(const uint4 *__restrict__ p, size_t n,
                                                      unsigned long long *sink)
{
    unsigned long long s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = __ldcs(p + i);
        s += v.x ^ v.y ^ v.z ^ v.w;
    }
    if (s == 0x9e3779b97f4a7c15ull) *sink = s; // practically never
}

// `per_warp` requests per warp, each one random aligned 128-byte chunk of
// the buffer (nchunks chunks) read by the 32 lanes, 4 bytes each.
__global__ void __launch_bounds__(CBLOCK) random_128(const uint32_t *p, size_t nchunks,
                                                     unsigned per_warp, unsigned seed,
                                                     unsigned long long *sink)
{
    const unsigned lane = threadIdx.x & 31u;
    const unsigned long long warp = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) / 32;
    unsigned s = 0;
    unsigned long long h = (warp + 1) * 0x9e3779b97f4a7c15ull ^ seed;
    for (unsigned r = 0; r < per_warp; r++) {
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
        const size_t c = (size_t)(h % nchunks);
        s += __ldcv(p + c * 32 + lane); // volatile: no caching between runs
    }
    if (s == 0x9e3779b9u) *sink = s;
}

} // namespace

// Best of REPEATS runs of `launch`, in seconds.
template <class F> static sg_status best_of(F launch, double *secs, sg_error *err)
{
    cudaEvent_t t0 = nullptr, t1 = nullptr;
    double best = 1e30;
    cudaError_t e = cudaEventCreate(&t0);
    if (e == cudaSuccess) e = cudaEventCreate(&t1);
    for (int i = 0; e == cudaSuccess && i < REPEATS; i++) {
        e = cudaEventRecord(t0);
        if (e == cudaSuccess) e = launch();
        if (e == cudaSuccess) e = cudaEventRecord(t1);
        if (e == cudaSuccess) e = cudaEventSynchronize(t1);
        float ms = 0;
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, t0, t1);
        if (e == cudaSuccess && ms > 0 && ms * 1e-3 < best) best = ms * 1e-3;
    }
    if (t0) cudaEventDestroy(t0);
    if (t1) cudaEventDestroy(t1);
    if (e != cudaSuccess) return sgk_cuda_fail(err, "calibration run", e, __FILE__, __LINE__);
    *secs = best;
    return SG_OK;
}

// The GPU's streamed reads of managed buffer m (`reps` passes, timed by
// events) while `threads` CPU threads scan host buffer h over and over in 1
// MiB pieces until the GPU is done; each side's GB/s over its own window
// (they start and end within a piece of each other).
static sg_status shared_read(const void *m, const void *h, uint64_t bytes, int reps, int threads,
                             unsigned grid, unsigned long long *sink, double *gpu_gbps,
                             double *cpu_gbps, sg_error *err)
{
    cudaEvent_t t0 = nullptr, t1 = nullptr;
    cudaError_t e = cudaEventCreate(&t0);
    if (e == cudaSuccess) e = cudaEventCreate(&t1);
    if (e == cudaSuccess) e = cudaEventRecord(t0);
    for (int r = 0; e == cudaSuccess && r < reps; r++) {
        stream_read<<<grid, CBLOCK>>>((const uint4 *)m, bytes / 16, sink);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaEventRecord(t1);
    const size_t piece = (size_t)1 << 20, pieces = bytes / piece;
    std::atomic<bool> stop{false};
    std::atomic<cudaError_t> qerr{cudaSuccess};
    uint64_t scanned = 0, x = 0;
    const double c0 = sgi_now();
    if (e == cudaSuccess) {
#pragma omp parallel num_threads(threads) reduction(+ : scanned) reduction(^ : x)
        {
            const size_t nt = (size_t)omp_get_num_threads(), me = (size_t)omp_get_thread_num();
            const uint64_t *p = static_cast<const uint64_t *>(h);
            for (size_t i = me; !stop.load(std::memory_order_relaxed); i += nt) {
                const uint64_t *q = p + (i % pieces) * (piece / 8);
                for (size_t j = 0; j < piece / 8; j++) x ^= q[j];
                scanned += piece;
                if (me == 0) {
                    const cudaError_t qe = cudaEventQuery(t1);
                    if (qe != cudaErrorNotReady) {
                        if (qe != cudaSuccess) qerr.store(qe);
                        stop.store(true, std::memory_order_relaxed);
                    }
                }
            }
        }
    }
    const double ct = sgi_now() - c0;
    if (e == cudaSuccess) e = qerr.load();
    if (e == cudaSuccess) e = cudaEventSynchronize(t1);
    float ms = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, t0, t1);
    if (t0) cudaEventDestroy(t0);
    if (t1) cudaEventDestroy(t1);
    if (e != cudaSuccess) return sgk_cuda_fail(err, "calibration run", e, __FILE__, __LINE__);
    if (x == 0x9e3779b97f4a7c15ull) *sink = 0; // practically never; keeps the scan
    *gpu_gbps = ms > 0 ? (double)bytes * reps / (ms * 1e-3) / 1e9 : 0.0;
    *cpu_gbps = ct > 0 ? (double)scanned / ct / 1e9 : 0.0;
    return SG_OK;
}

extern "C" sg_status sgk_calibrate(int index, uint64_t bytes, int threads, sgk_calibration *out,
                                   sg_error *err)
{
    if (!out) return sgi_fail(err, SG_E_INVALID, "sgk_calibrate: NULL argument");
    bytes &= ~(uint64_t)4095;
    if (bytes < (16u << 20))
        return sgi_fail(err, SG_E_INVALID, "calibration buffer %llu bytes: at least 16 MiB",
                        (unsigned long long)bytes);
    memset(out, 0, sizeof *out);
    sgk_cuda_start();
    SGK_CU(cudaSetDevice(index));
    size_t free_b = 0, total_b = 0;
    SGK_CU(cudaMemGetInfo(&free_b, &total_b));
    const uint64_t margin = sgi_device_margin(total_b);
    if (bytes + margin > free_b)
        return sgi_fail(err, SG_E_NOMEM,
                        "calibration buffer %llu bytes: GPU %d has %llu bytes free (margin %llu)",
                        (unsigned long long)bytes, index, (unsigned long long)free_b,
                        (unsigned long long)margin);
    int sms = 0;
    SGK_CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, index));
    const unsigned grid = (unsigned)sms * 8;
    struct Bufs {
        void *d = nullptr, *h = nullptr, *m = nullptr;
        unsigned long long *sink = nullptr;
        ~Bufs()
        {
            if (d) cudaFree(d);
            if (m) cudaFree(m);
            if (sink) cudaFree(sink);
            if (h) cudaFreeHost(h);
        }
    } b;
    SGK_CU(cudaMalloc(&b.d, bytes));
    SGK_CU(cudaMalloc((void **)&b.sink, sizeof *b.sink));
    SGK_CU(cudaMemset(b.d, 1, bytes));
    SGK_CU(cudaHostAlloc(&b.h, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    memset(b.h, 1, bytes);
    double s = 0;
    // GB/s of streamed reads of buffer p (best of three).
    auto streamed = [&](const void *p, double *gbps) -> sg_status {
        SGK_TRY(best_of(
            [&]() {
                stream_read<<<grid, CBLOCK>>>((const uint4 *)p, bytes / 16, b.sink);
                return cudaGetLastError();
            },
            &s, err));
        *gbps = (double)bytes / s / 1e9;
        return SG_OK;
    };

    // Device memory, streamed.
    SGK_TRY(streamed(b.d, &out->hbm_gbps));

    // Pinned host -> device copies.
    SGK_TRY(best_of([&]() { return cudaMemcpyAsync(b.d, b.h, bytes, cudaMemcpyHostToDevice); },
                    &s, err));
    out->pcie_gbps = (double)bytes / s / 1e9;

    // Random 128-byte reads: 4M requests over the whole buffer.
    const size_t nchunks = bytes / 128;
    const unsigned per_warp = 64;
    const unsigned long long warps = (unsigned long long)grid * (CBLOCK / 32);
    const double req_bytes = (double)warps * per_warp * 128.0;
    void *hd = nullptr;
    SGK_CU(cudaHostGetDevicePointer(&hd, b.h, 0));
    unsigned seed = 1;
    SGK_TRY(best_of(
        [&]() {
            random_128<<<grid, CBLOCK>>>((const uint32_t *)hd, nchunks, per_warp, seed++, b.sink);
            return cudaGetLastError();
        },
        &s, err));
    out->zc_rand_gbps = req_bytes / s / 1e9;

    // The same from managed memory with the two hints (nothing migrates).
    // (the hybrid backend's spilled arrays are allocated the same way)
    SGK_TRY(sgk_managed_alloc(index, bytes, &b.m, err));
    memset(b.m, 1, bytes); // first touch on the host, where the hint keeps it
    SGK_TRY(best_of(
        [&]() {
            random_128<<<grid, CBLOCK>>>((const uint32_t *)b.m, nchunks, per_warp, seed++, b.sink);
            return cudaGetLastError();
        },
        &s, err));
    out->managed_rand_gbps = req_bytes / s / 1e9;

    // Streamed reads of it in place (the forest's first round, copy kernel).
    SGK_TRY(streamed(b.m, &out->managed_seq_gbps));

    // The same beside the CPU threads' scan of the pinned buffer, for ~0.5 s.
    const double want = 0.5 * out->managed_seq_gbps * 1e9 / (double)bytes;
    const int reps = want < 1.0 ? 1 : want > 64.0 ? 64 : (int)want;
    SGK_TRY(shared_read(b.m, b.h, bytes, reps, threads > 0 ? threads : omp_get_max_threads(),
                        grid, b.sink, &out->shared_gpu_gbps, &out->shared_cpu_gbps, err));
    out->bytes = bytes;
    return SG_OK;
}
