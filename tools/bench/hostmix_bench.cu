// What the host's memory gives the GPU and the CPU threads together: does a
// DMA stream (or a zero-copy kernel) out of pinned host memory slow the
// threads' reads of other host memory, and they it? Issue 6 aims at 70 %
// of PCIe + host memory (~54 + ~88 GB/s) for the spilled part; if the two
// draw on one limit, that sum is not what the machine can give.
//   1. DMA alone: pinned buffer P -> device, 256 MiB pieces, events.
//   2. zero-copy kernel alone: a kernel sums P in place (mapped).
//   3. CPU threads alone: T threads sum a plain buffer H (touched first).
//   4. DMA and the threads at once, 5. the kernel and the threads at once:
//      the threads read H until the GPU's work ends; each side's rate over
//      that window, and their sum.
// Not part of the build (docs/benchmarks.md, twenty-second session):
//   nvcc -O3 -arch=sm_90 -Xcompiler -fopenmp,-march=native tools/bench/hostmix_bench.cu -o hmb
//   ./hmb [GIB_EACH] [THREADS...]
//   ./hmb --reader SECONDS [GIB]   (the zero-copy kernel alone, for SECONDS)
#include <cuda_runtime.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <thread>

#define CK(x)                                                                          \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                  \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static double now()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static const size_t PIECE = (size_t)256 << 20;

__global__ void zsum(const uint4 *__restrict__ p, size_t n, unsigned long long *out)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long s = 0;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 r[4];
#pragma unroll
        for (int k = 0; k < 4; k++) r[k] = p[i + k * stride];
#pragma unroll
        for (int k = 0; k < 4; k++) s += r[k].x ^ r[k].w;
    }
    for (; i < n; i += stride) s += p[i].x;
    if (s == 42) atomicAdd(out, s); // keeps the loads
}

// The threads' share: sums of 1 MiB blocks of h, block b to thread b % T,
// round after round, until *stop (checked per block) or `rounds` passes.
static double cpu_read(const uint64_t *h, size_t words, int threads, volatile int *stop,
                       int rounds, double *secs)
{
    const size_t blk = (1 << 20) / 8, nb = words / blk;
    size_t done_blocks = 0;
    uint64_t sink = 0;
    const double t0 = now();
#pragma omp parallel num_threads(threads) reduction(+ : done_blocks, sink)
    {
        const int t = omp_get_thread_num();
        for (int r = 0; r < rounds && !*stop; r++)
            for (size_t b = t; b < nb && !*stop; b += threads) {
                const uint64_t *q = h + b * blk;
                uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                for (size_t i = 0; i < blk; i += 4) {
                    s0 += q[i];
                    s1 ^= q[i + 1];
                    s2 += q[i + 2];
                    s3 ^= q[i + 3];
                }
                sink += s0 + s1 + s2 + s3;
                done_blocks++;
            }
    }
    *secs = now() - t0;
    if (sink == 42) printf("#");
    return (double)done_blocks * (1 << 20);
}

// --reader SECONDS [GIB]: the zero-copy kernel alone over a pinned buffer,
// pass after pass, for SECONDS; prints its rate. A GPU reading host memory
// over PCIe beside another program (tools/bench/light_store.c).
static int reader(double seconds, size_t gib)
{
    const size_t bytes = gib << 30;
    void *P = NULL;
    unsigned long long *dout = NULL;
    // its waits sleep: a spinning core would crowd the other program's threads
    CK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    CK(cudaHostAlloc(&P, bytes, cudaHostAllocMapped));
    memset(P, 1, bytes);
    CK(cudaMalloc(&dout, 8));
    const uint4 *Pd = NULL;
    CK(cudaHostGetDevicePointer((void **)&Pd, P, 0));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    printf("reader: %zu GiB pinned, zero-copy passes for %.0f s\n", gib, seconds);
    fflush(stdout);
    const double t0 = now();
    size_t passes = 0;
    while (now() - t0 < seconds) {
        for (size_t off = 0; off < bytes; off += PIECE) {
            const size_t len = bytes - off < PIECE ? bytes - off : PIECE;
            zsum<<<sms * 8, 256>>>(Pd + off / 16, len / 16, dout);
        }
        CK(cudaDeviceSynchronize());
        passes++;
    }
    const double t = now() - t0;
    printf("reader: %zu passes, %.1f GB/s\n", passes, (double)passes * bytes / t / 1e9);
    CK(cudaFreeHost(P));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--reader") == 0)
        return reader(atof(argv[2]), argc > 3 ? strtoull(argv[3], NULL, 10) : 8);
    const size_t gib = argc > 1 ? strtoull(argv[1], NULL, 10) : 8;
    const size_t bytes = gib << 30;
    int tlist[8] = {16, 8}, nt = 2;
    if (argc > 2) {
        nt = 0;
        for (int i = 2; i < argc && nt < 8; i++) tlist[nt++] = atoi(argv[i]);
    }
    void *P = NULL, *D = NULL;
    unsigned long long *dout = NULL;
    CK(cudaHostAlloc(&P, bytes, cudaHostAllocMapped));
    memset(P, 1, bytes);
    uint64_t *H = (uint64_t *)aligned_alloc((size_t)2 << 20, bytes);
    if (!H) return 1;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < bytes / 8; i++) H[i] = i;
    CK(cudaMalloc(&D, PIECE * 2));
    CK(cudaMalloc(&dout, 8));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreateWithFlags(&e1, cudaEventBlockingSync));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const uint4 *Pd = NULL;
    CK(cudaHostGetDevicePointer((void **)&Pd, P, 0));

    // the GPU's work, `reps` passes over P: 0 DMA, 1 the zero-copy kernel
    auto gpu_issue = [&](int kind, int reps) {
        CK(cudaEventRecord(e0, s));
        for (int r = 0; r < reps; r++)
            for (size_t off = 0; off < bytes; off += PIECE) {
                const size_t len = bytes - off < PIECE ? bytes - off : PIECE;
                if (kind == 0)
                    CK(cudaMemcpyAsync((char *)D + (off / PIECE % 2) * PIECE, (char *)P + off, len,
                                       cudaMemcpyHostToDevice, s));
                else
                    zsum<<<sms * 8, 256, 0, s>>>(Pd + off / 16, len / 16, dout);
            }
        CK(cudaEventRecord(e1, s));
    };
    auto gpu_secs = [&]() {
        float ms = 0;
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        return ms / 1e3;
    };
    const char *gname[2] = {"DMA", "zero-copy kernel"};
    printf("host buffers: %zu GiB pinned (the GPU's), %zu GiB plain (the threads')\n", gib, gib);
    for (int rep = 0; rep < 2; rep++) {
        printf("-- repetition %d\n", rep + 1);
        double galone[2];
        for (int k = 0; k < 2; k++) {
            gpu_issue(k, 2);
            galone[k] = 2.0 * bytes / gpu_secs() / 1e9;
            printf("%-18s alone: %6.1f GB/s\n", gname[k], galone[k]);
        }
        for (int ti = 0; ti < nt; ti++) {
            volatile int stop = 0;
            double secs = 0;
            const double got = cpu_read(H, bytes / 8, tlist[ti], &stop, 3, &secs);
            printf("%2d threads alone:      %6.1f GB/s\n", tlist[ti], got / secs / 1e9);
        }
        for (int k = 0; k < 2; k++)
            for (int ti = 0; ti < nt; ti++) {
                volatile int stop = 0;
                double csecs = 0, cgot = 0;
                gpu_issue(k, 2);
                std::thread waiter([&]() {
                    CK(cudaEventSynchronize(e1)); // (blocking sync: no spinning core)
                    stop = 1;
                });
                cgot = cpu_read(H, bytes / 8, tlist[ti], &stop, 1000, &csecs);
                waiter.join();
                const double g = 2.0 * bytes / gpu_secs() / 1e9, cr = cgot / csecs / 1e9;
                printf("%-18s + %2d threads: GPU %6.1f GB/s (%3.0f %% of alone), threads %6.1f "
                       "GB/s, sum %6.1f GB/s\n",
                       gname[k], tlist[ti], g, 100 * g / galone[k], cr, g + cr);
            }
    }
    CK(cudaFreeHost(P));
    free(H);
    return 0;
}
