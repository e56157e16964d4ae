// Where a result download's time goes on this host: the wire alone (one
// DMA into pinned memory), the library's staged download (64 MiB pinned
// pieces, 16 OpenMP threads copying out; kernels/context.cu sgk_download)
// into fresh pages (MADV_NOHUGEPAGE, MADV_HUGEPAGE, no advice) and into
// present ones, a first-touch fill of fresh pages, and a narrow download
// (levels as bytes, widened on the host). 268 MB, three repetitions.
// Not part of the build (docs/benchmarks.md, twenty-first session):
//   nvcc -O2 -arch=sm_90 -Xcompiler -fopenmp tools/bench/download_bench.cu -o dlb
//   ./dlb [THREADS]
#include <cuda_runtime.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static const size_t STAGE = (size_t)64 << 20;

static void *fresh(size_t n, int huge)
{
    size_t h = (size_t)2 << 20, r = (n + h - 1) & ~(h - 1);
    void *p = NULL;
    if (posix_memalign(&p, h, r)) exit(1);
    if (huge == 1) madvise(p, r, MADV_HUGEPAGE);
    if (huge == 0) madvise(p, r, MADV_NOHUGEPAGE);
    return p;
}
static void pcopy(void *d, const void *s, size_t n)
{
    const size_t piece = 1 << 20;
    long k = (long)((n + piece - 1) / piece);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < k; i++) {
        size_t off = i * piece, len = n - off < piece ? n - off : piece;
        memcpy((char *)d + off, (const char *)s + off, len);
    }
}
static void widen(uint32_t *d, const uint8_t *s, size_t n)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) d[i] = s[i] == 255 ? UINT32_MAX : s[i];
}
__global__ void narrow(const uint32_t *l, uint8_t *o, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        o[i] = l[i] > 254 ? 255 : (uint8_t)l[i];
}
static void staged(void *dst, const void *src, size_t bytes, void *stage[2], cudaEvent_t ev[2], cudaStream_t st)
{
    size_t pieces = (bytes + STAGE - 1) / STAGE;
    for (size_t i = 0; i < pieces; i++) {
        if (i == 0) {
            CK(cudaMemcpyAsync(stage[0], src, bytes < STAGE ? bytes : STAGE, cudaMemcpyDeviceToHost, st));
            CK(cudaEventRecord(ev[0], st));
        }
        if (i + 1 < pieces) {
            int b = (i + 1) & 1;
            size_t off = (i + 1) * STAGE, len = bytes - off < STAGE ? bytes - off : STAGE;
            CK(cudaMemcpyAsync(stage[b], (const char *)src + off, len, cudaMemcpyDeviceToHost, st));
            CK(cudaEventRecord(ev[b], st));
        }
        int b = i & 1;
        CK(cudaEventSynchronize(ev[b]));
        size_t off = i * STAGE, len = bytes - off < STAGE ? bytes - off : STAGE;
        pcopy((char *)dst + off, stage[b], len);
    }
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)1 << 26, bytes = n * 4;
    omp_set_num_threads(argc > 1 ? atoi(argv[1]) : 16);
    uint32_t *d; uint8_t *d8;
    CK(cudaMalloc(&d, bytes)); CK(cudaMalloc(&d8, n));
    CK(cudaMemset(d, 3, bytes));
    void *stage[2]; cudaEvent_t ev[2]; cudaStream_t st;
    for (int i = 0; i < 2; i++) { CK(cudaHostAlloc(&stage[i], STAGE, 0)); CK(cudaEventCreate(&ev[i])); }
    CK(cudaStreamCreate(&st));
    void *pin; CK(cudaHostAlloc(&pin, bytes, 0));
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        CK(cudaMemcpyAsync(pin, d, bytes, cudaMemcpyDeviceToHost, st)); CK(cudaStreamSynchronize(st));
        double t1 = now();
        printf("rep %d wire 268MB into pinned: %.2f ms (%.1f GB/s)\n", rep, (t1 - t0) * 1e3, bytes / (t1 - t0) / 1e9);
        const char *kn[3] = {"nohuge", "huge", "default"};
        for (int h = 0; h < 3; h++) {
            void *p = fresh(bytes, h);
            t0 = now(); staged(p, d, bytes, stage, ev, st); t1 = now();
            double t2 = now(); staged(p, d, bytes, stage, ev, st); double t3 = now();
            printf("  staged %s fresh %.2f ms, present %.2f ms\n", kn[h], (t1 - t0) * 1e3, (t3 - t2) * 1e3);
            free(p);
            p = fresh(bytes, h);
            t0 = now();
#pragma omp parallel for schedule(static)
            for (size_t i = 0; i < n; i++) ((uint32_t *)p)[i] = UINT32_MAX;
            t1 = now();
            printf("  first-touch fill %s %.2f ms\n", kn[h], (t1 - t0) * 1e3);
            free(p);
            p = fresh(bytes, h);
            t0 = now();
            narrow<<<1024, 256, 0, st>>>(d, d8, n);
            CK(cudaMemcpyAsync(stage[0], d8, n, cudaMemcpyDeviceToHost, st)); CK(cudaStreamSynchronize(st));
            t1 = now();
            widen((uint32_t *)p, (const uint8_t *)stage[0], n);
            t2 = now();
            printf("  narrow %s: pack+wire %.2f ms, widen fresh %.2f ms => %.2f ms\n", kn[h], (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t2 - t0) * 1e3);
            t1 = now(); widen((uint32_t *)p, (const uint8_t *)stage[0], n); t2 = now();
            printf("  widen present %.2f ms\n", (t2 - t1) * 1e3);
            free(p);
        }
    }
    return 0;
}
