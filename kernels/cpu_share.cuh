// spillgraph kernels/ — the CPU threads' share of a pass over the host
// lists, beside the GPU's (CUDA C++ host code only; never included from C).
// The forest's first round (mst.cu) and SSSP's light index (sssp.cu) split
// the host-resident lists this way: the GPU claims pieces of entries from
// the lowest host entry up, on a thread of its own; the CPU threads claim
// chunks of vertices from n down; the two meet wherever their rates put
// them (or at a fixed split).
#ifndef SG_KERNELS_CPU_SHARE_CUH
#define SG_KERNELS_CPU_SHARE_CUH

#include <stdint.h>
#include <string.h>

#include <mutex>
#include <thread>

#include "kinternal.cuh"

// The host lists shared between the GPU and the CPU threads: the GPU
// claims pieces of entries upward from gnext, the CPU threads chunks of
// vertices downward from n, each claim under the lock. A fixed split (glim
// set) stops the GPU at entry glim and the CPU at vertex cfloor; otherwise
// (glim SGK_MEET_OPEN) the two meet wherever their rates put them: the GPU
// stops at the CPU's lowest list, the CPU at the first list the GPU has not
// begun. So when both are done every entry from the GPU's start up was
// taken once, and gnext == x[clow]. Without a CPU share the GPU takes
// every piece up to glim.
constexpr uint64_t SGK_MEET_OPEN = ~0ull;

struct sgk_meet {
    std::mutex mu;
    const uint64_t *x = nullptr; // host offsets (dynamic split and the CPU's claims)
    uint64_t gnext = 0;          // the GPU's next entry
    uint64_t glim = 0;           // the GPU's end (fixed), or SGK_MEET_OPEN
    uint64_t clow = 0;           // the CPU's lowest vertex claimed (n before its first)
    uint64_t cfloor = 0;         // the lowest vertex the CPU may claim
    bool stop = false;           // set on a failure: no more claims
    // The first vertex v in [lo, hi) with x[v] + per_vertex * v at or past e
    // (hi if none): with per_vertex 0, whose list starts at or past entry e.
    uint64_t first_at(uint64_t lo, uint64_t hi, uint64_t e, uint64_t per_vertex = 0) const
    {
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo) / 2;
            if (x[mid] + per_vertex * mid < e) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
    // The GPU's next piece [q0, q1) of at most `piece` entries.
    bool gpu(uint64_t piece, uint64_t &q0, uint64_t &q1)
    {
        std::lock_guard<std::mutex> hold(mu);
        const uint64_t lim = glim != SGK_MEET_OPEN ? glim : x[clow];
        if (stop || gnext >= lim) return false;
        q0 = gnext;
        q1 = lim - q0 < piece ? lim : q0 + piece;
        gnext = q1;
        return true;
    }
    // The CPU's next chunk [v0, v1): at most maxv vertices and, past its
    // first vertex, at most maxe entries.
    bool cpu(uint64_t maxv, uint64_t maxe, uint64_t &v0, uint64_t &v1)
    {
        std::lock_guard<std::mutex> hold(mu);
        uint64_t lo = cfloor;
        if (glim == SGK_MEET_OPEN && lo < clow) lo = first_at(lo, clow, gnext);
        if (stop || clow <= lo) return false;
        v1 = clow;
        v0 = v1 - lo > maxv ? v1 - maxv : lo;
        if (x[v1] - x[v0] > maxe) v0 = first_at(v0, v1 - 1, x[v1] - maxe);
        clow = v0;
        return true;
    }
    void halt()
    {
        std::lock_guard<std::mutex> hold(mu);
        stop = true;
    }
    // Splits the chunk [v0, v1) into np pieces of about equal work, a
    // vertex's work its entries plus one: cut[0] = v0, cut[np] = v1. (A
    // fixed count of vertices per thread left one thread all the hubs of a
    // degree-ordered store; equal entries alone left one thread every
    // vertex of a run of empty lists.)
    void cuts(uint64_t v0, uint64_t v1, uint64_t np, uint64_t *cut) const
    {
        const uint64_t e0 = x[v0] + v0, span = x[v1] + v1 - e0;
        cut[0] = v0;
        for (uint64_t pc = 1; pc < np; pc++)
            cut[pc] = first_at(cut[pc - 1], v1, e0 + span * pc / np, 1);
        cut[np] = v1;
    }
};

// Pieces 0..np-1 of a pass shared the same way but by whole pieces: the
// GPU claims them from 0 up, the CPU threads from np - 1 down to `floor`
// (the lowest they may take), each claim under the lock, until they meet.
struct sgk_pieces {
    std::mutex mu;
    uint64_t lo, hi, floor;
    bool stop = false;
    sgk_pieces(uint64_t np, uint64_t cfloor) : lo(0), hi(np), floor(cfloor) {}
    bool gpu(uint64_t &i)
    {
        std::lock_guard<std::mutex> hold(mu);
        if (stop || lo >= hi) return false;
        i = lo++;
        return true;
    }
    bool cpu(uint64_t &i)
    {
        std::lock_guard<std::mutex> hold(mu);
        if (stop || hi <= lo || hi <= floor) return false;
        i = --hi;
        return true;
    }
    void halt()
    {
        std::lock_guard<std::mutex> hold(mu);
        stop = true;
    }
    bool halted()
    {
        std::lock_guard<std::mutex> hold(mu);
        return stop;
    }
};

// Checks a CPU share against the graph before a pass uses it: host arrays
// and threads given, low <= from, and the lists from `low` on past the
// device prefixes of A and W; SG_E_INVALID naming `who` otherwise. A share
// that leaves the threads nothing (low >= n) passes.
inline sg_status sgk_share_check(const sgk_graph *g, const sgk_cpu_share *share, const char *who,
                                 sg_error *err)
{
    if (!share || share->low >= g->d.n) return SG_OK;
    const bool w = g->d.w24 ? share->w16 && share->w8 : share->w != nullptr;
    if (!share->x || !share->a || !w || share->threads < 1)
        return sgi_fail(err, SG_E_INVALID, "%s: a CPU share without host arrays", who);
    const uint64_t at = share->x[share->low];
    if (share->low > share->from || at < g->d.a_dev || at < g->d.w_dev)
        return sgi_fail(err, SG_E_INVALID,
                        "%s: the CPU share from vertex %llu (at the lowest %llu, entry %llu) would "
                        "read lists in device memory (A holds %llu entries there, W %llu)",
                        who, (unsigned long long)share->from, (unsigned long long)share->low,
                        (unsigned long long)at, (unsigned long long)g->d.a_dev,
                        (unsigned long long)g->d.w_dev);
    return SG_OK;
}

// Runs gpu(err) on a thread of its own (device c->device current there)
// and cpu(err) on this one, at the same time; either one failing halts mt
// (sgk_meet or sgk_pieces) so that the other stops claiming. Without a
// thread, the GPU's claims run first, then the CPU's. Returns the GPU's
// failure first, then the CPU's; *cpu_us gets the CPU side's wall time.
template <class M, class G, class C>
sg_status sgk_share_run(sgk_ctx *c, M &mt, G gpu, C cpu, uint64_t *cpu_us, sg_error *err)
{
    sg_error gerr;
    memset(&gerr, 0, sizeof gerr);
    sg_status gst = SG_OK;
    const int dev = c->device;
    auto drive = [&]() {
        const cudaError_t e = cudaSetDevice(dev);
        gst = e != cudaSuccess ? sgk_cuda_fail(&gerr, "cudaSetDevice", e, __FILE__, __LINE__)
                               : gpu(&gerr);
        if (gst != SG_OK) mt.halt();
    };
    std::thread t;
    bool threaded = true;
    try {
        t = std::thread(drive);
    } catch (...) {
        threaded = false;
        drive();
    }
    const double tc = sgi_now();
    const sg_status cst = cpu(err);
    *cpu_us = sgk_us_since(tc);
    if (cst != SG_OK) mt.halt();
    if (threaded) t.join();
    if (gst != SG_OK) {
        *err = gerr;
        return gst;
    }
    return cst;
}

#endif
