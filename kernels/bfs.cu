// Breadth-first search on the device: direction-optimizing (Beamer et al.,
// SC'12, gapbs's switching rules, as src/bfs.c) with the queue techniques of
// Liu, An, Li, Wu 2014 (launch size from the previous level's frontier,
// hierarchical queues in shared memory, a separate queue for high-degree
// vertices).
//
// ---------------------------------------------------------------- method
//
// State on the device:
//   level[n]      the result (UINT32_MAX unreached); written once per vertex
//                 by whoever claims it, never read by the kernels.
//   parent[n]     only when parents are asked.
//   vis[W]        visited bitmap, W = ceil(n / 32) words (2 MiB at scale 24:
//                 it stays in L2). A top-down step claims v with one atomicOr
//                 on its bit (after a plain L2 read __ldcg that filters most
//                 visited ones); a bottom-up step's warp owns whole words and
//                 writes them without atomics. Bottom-up steps also mark
//                 vertices without edges here (lazily, as gapbs's `done`), so
//                 later bottom-up steps skip whole words; only undirected
//                 graphs take bottom-up steps, where such a vertex is
//                 unreachable unless it is the source (already marked).
//   q[2][n]       the frontier queue of vertices with degree < HUB (256), in
//                 and out, swapped every top-down level.
//   hq[2][H], hdeg[2][H], hoff[H+1]
//                 the hub queue: frontier vertices with degree >= HUB, their
//                 degrees, and the inclusive prefix of those degrees
//                 (cub::DeviceScan into hoff[1..], hoff[0] = 0). H = min(n,
//                 m / HUB) bounds how many vertices can have such a degree.
//   front[W], next[W]  frontier bitmaps of the bottom-up steps (undirected).
//   cnt           monotonic 64-bit counters (queue tails, hub edges, scout,
//                 entries read, vertices found); the host keeps the last
//                 snapshot, so nothing is reset between levels: a kernel
//                 writes queue slot atomicAdd(tail) - base, base = the tail
//                 the host read last. One cudaMemcpyAsync of the counters
//                 into pinned memory + one stream sync per level; the next
//                 level's grid is sized from the counts read (FlexBFS),
//                 capped at the blocks resident at once (occupancy query;
//                 twice that for td_gather/td_thread, whose blocks' work
//                 varies), kernels looping grid-stride beyond it.
//
// Top-down step (three kernels at most):
//   * td_gather: the normal queue. A block takes 256 frontier vertices,
//     scans their degrees (cub::BlockScan) and walks the concatenation of
//     their lists 256 entries per round, each thread finding its entry's
//     owner by an 8-step binary search over the shared prefix (Merrill's
//     fine-grained gather): short and medium lists are balanced across the
//     block and reads of A are coalesced. A claimed vertex goes to the
//     block's shared-memory queue (one shared atomic); every RQ = 4 rounds
//     (at most 1024 entries, each thread claims at most one per round) the
//     block flushes it with one global atomicAdd and a coalesced copy.
//     Claimed vertices with degree >= HUB go to the hub queue instead
//     (rare: warp-aggregated atomics, cooperative groups).
//   * td_hubs: the hub queue, edge-balanced over the whole grid: the hub
//     degrees are prefix-summed (cub), each block takes a contiguous range
//     of the hubs' concatenated lists, finds its first owner by one binary
//     search over hoff, and advances the owner as it walks (a 1024-entry
//     round crosses at most 5 hub boundaries since every hub has >= 256
//     entries). A star with n leaves costs the same as n / 256 blocks of
//     ordinary work, and no block waits on one long list.
//   Both count the degrees of the vertices they claim (scout, gapbs's
//   switching input) and the hub edges of the next level, reduced per block
//   to one atomicAdd each.
// Frontier order: on a graph with host lists (A past its device prefix) in
//   pinned memory, a top-down frontier of max(64, n / 1024) vertices or
//   more is put in id order first, through the frontier bitmap (q2b, then
//   b2q appending word by word), so that td_gather's 256 lists a block lie
//   near each other and its zero-copy reads run in address order. SSCA2 26
//   at 6 GiB, pinned: 877 to 653 ms of kernels; in managed memory 205-224
//   against 228-235 ms (360 orderings of its 690 levels, no faster reads):
//   pinned only (docs/benchmarks.md). Counter "ordered_steps".
// Gathered steps (bfs-gather; such a frontier, a hub queue, an undirected
//   graph, and room in the budget for two chunk buffers): the bitmap's
//   words below the first vertex whose list is in host memory are appended
//   first, then the queue's tail is marked (k_queue_mark), then the rest;
//   td_gather walks the first part where its lists are (device memory),
//   and the host part goes in chunks (gather_step) of at most
//   sgi_bfs_gather_vertices(n) vertices and sgi_bfs_gather_entries(m)
//   entries (32 K and 1 M from scale 21 up): a piece of the queue comes
//   down into one of the context's staging buffers (lent for the search),
//   the host threads gather those vertices' lists after it
//   (sgk_gather_lists, cpu_gather.c: a range of ids a thread, its degrees, the ranges' sums,
//   the cut at the chunk's entries, its copies with the lists 16 ahead
//   prefetched), the copy stream takes offsets and entries into one of
//   two device buffers, and td_gather<.., true> reads them there, while
//   the host gathers the next chunk into the other buffer. SSCA2 26 at 6
//   GiB, pinned: compute 0.67-0.69 s to 0.49-0.50 (410 steps, 1,050
//   chunks, 3.5 GB gathered at ~11 GB/s by 16 threads: the host's gather
//   is most of it); R-MAT 26 (one such step) unchanged
//   (docs/benchmarks.md, forty-first session). Counters "gathered_steps",
//   "gathered_chunks", "gathered_bytes", "gather_host_us".
//   The GPU's side share (sgk_side_share, kinternal.cuh): the host
//   gathers while the GPU sits nearly idle, so a host part of 512 vertices
//   or more gives a share from its end to td_gather on a stream of its own,
//   reading those lists in place with at most half the resident blocks,
//   while the host gathers the part's front; the share follows both sides'
//   summed rates (43-45 % on SSCA2 26: 0.577 to 0.453 s at the medians,
//   docs/benchmarks.md, forty-second session). Counters
//   "gather_side_vertices", "gather_side_us", "gather_side_pct" (the share
//   reached); "gather-side" disables it.
// Bottom-up step (bu_step): one warp per 32-vertex bitmap word (grid-
//   stride). Fully visited words are skipped (next word 0). Each lane with an
//   unvisited vertex reads up to BU_SERIAL (8) entries of its list serially,
//   stopping at the first neighbour set in `front` (2 MiB, L2, read through
//   the read-only path); lanes whose lists go on are then finished by the
//   whole warp, 32 entries per coalesced read, stopping at the first hit
//   (ballot). Found vertices get level and parent (coalesced: a warp's
//   vertices are consecutive); the warp's lane 0 writes next[w] and vis[w]
//   (found + edgeless) without atomics.
// Switching (exactly src/bfs.c): start top-down; before each step, if the
//   graph is undirected and scout > to_check / alpha, convert the queues to
//   `front` on the device (q2b), then take bottom-up steps while the number
//   found grows or exceeds n / beta, then convert the last bitmap back to the
//   two queues (b2q, split by degree) and set scout = 1 (at least one
//   top-down step). to_check starts at m and loses each top-down frontier's
//   scout. Directed graphs and "bottom-up" disabled stay top-down.
//
// ---------------------------------------------------------------- memory
//
// sgk_bfs_bytes(n, m, parents), graph excluded, W = ceil(n / 32),
// H = max(1, min(n, floor(m / 256))):
//     4n (level) + [4n (parent)] + 8n (two queues) + 12 W (vis, front, next)
//   + 8 H (two hub queues) + 16 H (two hub degree arrays) + 8 (H + 1) (hoff)
//   + 32 (H / 64 + 64) + 4096 (bound on cub's scan temp storage for H items)
//   + 64 (counters)
// = about 12n (16n with parents) + n / 2.7 + 32 m / 256 bytes. Scale 24
// (n = 16.8M, m = 537M): 201 MB + 6 MB + 70 MB = 277 MB (344 MB with
// parents). front/next are allocated only for undirected graphs with
// bottom-up steps on, the hub arrays only with the hub queue on; the
// formula counts them always (an upper bound). cub's temp storage is what
// cub asks for H items (the bound above assumes >= 64 items per tile and
// <= 32 bytes of tile state per tile; cub's SM90 scan tiles are far larger).
// Pinned host memory: 80 bytes for the counters. Gathered steps add two
// device buffers of sgi_bfs_gather_bytes(n, m) together (8.6 MB from scale
// 21 up), allocated at the first search that can gather (when the budget
// holds them beside what is in use; the planner keeps room for them) and
// kept with the other arrays, and borrow the context's staging buffers.
//
// ---------------------------------------------------------------- switches
//
// SPILLGRAPH_GPU_DISABLE names (each still gives exact levels):
//   "bottom-up"    top-down steps only, also on undirected graphs.
//   "block-queue"  no shared-memory queue: each thread appends each vertex
//                  it claims with its own global atomicAdd (hubs too).
//   "hub-queue"    no hub queue and no gather: one thread per frontier
//                  vertex walks its whole list (Harish's kernel), in lock
//                  step rounds so that the block queue still works.
//   "frontier-order"  top-down frontiers over host lists in claim order
//                  (not put in id order first).
//   "keep-work"    the working arrays are freed at the end of the call (not
//                  kept with the graph for the next search, BfsKeep).
//   "bfs-gather"   no gathered steps: the GPU reads every host list in
//                  place (zero-copy).
//   "gather-prefetch"  the gather's threads prefetch nothing ahead.
//   "gather-side"  no side share: the host gathers all of a gathered step's
//                  host part.
//
// ---------------------------------------------------------------- expected cost
//
// R-MAT scale 24 (n = 16.8M, m = 537M directed entries, ~40% isolated),
// H100: 3.1 TB/s, ~30 G random 4-byte reads/s, L2 50 MB.
//   init: memset level (67 MB) [+ parent 67 MB], vis: ~25-50 us.
//   Level 1 (top-down, frontier = source): a few us; level 2 (top-down,
//     frontier = tens to thousands of vertices, ~1-5% of m in their lists
//     when hubs are among them): entries are coalesced reads of A, each
//     costing an L2 bitmap probe; claims cost an atomicOr (L2) + random
//     writes of level (~1-3M claims at 30 G/s: ~0.1 ms). ~0.1-0.3 ms.
//   Switch (scout exceeds to_check / 15 by level 2 or 3): q2b, ~10 us.
//   Bottom-up steps (3-4): each reads vis (2 MB, L2), X of the unvisited
//     vertices (coalesced, <= 134 MB, ~45 us), and for each unvisited one
//     the first list entries: the big step (~8-10M vertices found) costs
//     ~10M random sector reads of A (~0.3 ms) plus L2 probes of front;
//     vertices that find nothing read their whole list (tens of M entries,
//     coalesced through the warp path: ~0.1-0.2 ms). ~0.3-0.6 ms per big
//     step, ~0.1 ms for the tail steps.
//   b2q + one or two last top-down steps over a small frontier: ~50 us.
//   Per level: 1-3 launches + a 64-byte copy + a sync: ~10-15 us.
//   Total: about 1.5-3 ms with levels only (parents add the random parent
//   writes of the top-down claims, ~0.1 ms): inside the 5 ms aim.
//   Long paths (tens of thousands of levels) pay the per-level ~10-15 us:
//   a 50k-level path is ~0.5-0.7 s.
//
// ---------------------------------------------------------------- next
//
//   * A single-block kernel that runs many consecutive small levels
//     (frontier + edges below a few thousand) with __syncthreads between
//     levels and returns to the host only when the frontier grows, the
//     switch rule fires or the search ends: removes the per-level launch
//     and copy for paths and road networks (~2-3 us a level instead of
//     ~10-15 us).
//   * CUDA graphs or persistent kernels for the remaining per-level work.
//   * Bottom-up: a per-word "all neighbours in earlier levels" skip, and
//     32 x 32 bit transposes to test 32 candidates per L2 read.
//   * Top-down claims with atomicCAS on level directly (no vis) when the
//     frontier is tiny, to skip the L2 probe; and a degree-sorted source
//     of hubs to balance td_gather's per-block totals further.
#include <cooperative_groups.h>
#include <cub/cub.cuh>

#include <string.h>

#include <memory>
#include <new>

#include "cpu_gather.h"
#include "kinternal.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr unsigned TB = 256;          // threads per block
constexpr unsigned RQ = 4;            // rounds of TB entries between block-queue flushes
constexpr uint64_t HUB = 256;         // degree from which a vertex goes to the hub queue
constexpr unsigned BU_SERIAL = 8;     // list entries a bottom-up lane reads on its own
constexpr unsigned FULL = 0xffffffffu;
constexpr uint64_t ORDER_MIN = 64;    // frontiers of max(this, n / 1024) over host lists: id order

struct bfs_cnt {
    unsigned long long qn;        // normal queue tail (monotonic)
    unsigned long long qh;        // hub queue tail (monotonic)
    unsigned long long hub_edges; // sum of the degrees of the vertices put in the hub queue
    unsigned long long scout;     // sum of the degrees of the vertices claimed top-down
    unsigned long long examined;  // list entries read
    unsigned long long awake;     // vertices found bottom-up
    unsigned long long reached;   // sgk_sum_finite: vertices with a level
    unsigned long long maxl;      // sgk_sum_finite: the largest level
    unsigned long long host;      // list entries read from host memory
    unsigned long long pos;       // k_queue_mark: the queue's tail before its host part
};

// Where a top-down kernel puts what it claims.
typedef sgk_arr<uint64_t> XArr; // offsets: split device / host (kinternal.cuh)
typedef sgk_arr<uint32_t> AArr; // neighbours

struct td_args {
    XArr x;
    AArr a;
    uint32_t *level;
    uint32_t *parent;             // NULL when parents are not asked
    uint32_t *vis;
    uint32_t *outq;               // next normal queue
    uint32_t *outh;               // next hub queue (NULL without hub queue)
    uint64_t *outhdeg;            // its degrees
    bfs_cnt *cnt;
    unsigned long long base_qn, base_qh; // tails when the step started
    uint64_t hub_min;             // HUB, or UINT64_MAX without hub queue
    uint32_t depth;               // level given to the vertices claimed
    // a gathered chunk (td_gather<.., true>): queue entry i's list is
    // sa[so[i], so[i + 1]), copied from the host by the CPU threads
    const uint32_t *so;
    const uint32_t *sa;
};

struct block_queue {
    uint32_t q[TB * RQ];
    uint32_t cnt;                 // entries in q
    uint32_t n;                   // entries being flushed
    unsigned long long base;      // where they go in the global queue
};

struct max_op {
    __device__ __forceinline__ unsigned long long operator()(unsigned long long p,
                                                             unsigned long long q) const
    {
        return p > q ? p : q;
    }
};

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
    return v;
}

// Adds each thread's v[i] into *d[i] (i < 4) with one atomicAdd per block
// each (skipped when zero or d[i] is NULL). Every thread of the block must
// call it.
__device__ void block_add4(const unsigned long long (&v)[4], unsigned long long *const (&d)[4])
{
    __shared__ unsigned long long red[4][TB / 32];
    const unsigned lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const unsigned long long t = warp_sum(v[i]);
        if (lane == 0) red[i][wid] = t;
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int i = 0; i < 4; i++) {
            unsigned long long t = 0;
            for (unsigned k = 0; k < blockDim.x / 32; k++) t += red[i][k];
            if (t && d[i]) atomicAdd(d[i], t);
        }
}

// Exclusive prefix of c over the warp; *total gets the warp's sum.
__device__ __forceinline__ uint32_t warp_excl(uint32_t c, uint32_t *total)
{
    const unsigned lane = threadIdx.x & 31;
    uint32_t s = c;
    for (unsigned o = 1; o < 32; o <<= 1) {
        const uint32_t t = __shfl_up_sync(FULL, s, o);
        if (lane >= o) s += t;
    }
    *total = __shfl_sync(FULL, s, 31);
    return s - c;
}

__device__ __forceinline__ bool bit_set(const uint32_t *__restrict__ bm, uint32_t v)
{
    return (__ldg(bm + (v >> 5)) >> (v & 31)) & 1u;
}

// Appends v to the block's shared queue (BQ) or straight to the global
// normal queue (each thread its own atomicAdd).
template <bool BQ>
__device__ __forceinline__ void push_normal(const td_args &o, block_queue &bq, uint32_t v)
{
    if (BQ) {
        const uint32_t p = atomicAdd(&bq.cnt, 1u);
        bq.q[p] = v;
    } else {
        const unsigned long long p = atomicAdd(&o.cnt->qn, 1ull) - o.base_qn;
        o.outq[p] = v;
    }
}

// Appends hub v (degree d) to the hub queue: warp-aggregated with BQ, one
// atomicAdd per thread without.
template <bool BQ>
__device__ __forceinline__ void push_hub(const td_args &o, uint32_t v, uint64_t d)
{
    unsigned long long p;
    if (BQ) {
        cg::coalesced_group g = cg::coalesced_threads();
        unsigned long long b = 0;
        if (g.thread_rank() == 0) b = atomicAdd(&o.cnt->qh, (unsigned long long)g.size());
        b = g.shfl(b, 0);
        p = b + g.thread_rank() - o.base_qh;
    } else {
        p = atomicAdd(&o.cnt->qh, 1ull) - o.base_qh;
    }
    o.outh[p] = v;
    o.outhdeg[p] = d;
}

// Looks at list entry v of frontier vertex u: claims v when unvisited.
template <bool P, bool BQ>
__device__ __forceinline__ void td_visit(const td_args &o, block_queue &bq, uint32_t v, uint32_t u,
                                         unsigned long long &scout, unsigned long long &hedges)
{
    const uint32_t w = v >> 5, bit = 1u << (v & 31);
    if (__ldcg(o.vis + w) & bit) return;
    if (atomicOr(o.vis + w, bit) & bit) return;
    o.level[v] = o.depth;
    if (P) o.parent[v] = u;
    const uint64_t d = o.x.ldg((uint64_t)v + 1) - o.x.ldg(v);
    scout += d;
    if (d >= o.hub_min) {
        hedges += d;
        push_hub<BQ>(o, v, d);
    } else {
        push_normal<BQ>(o, bq, v);
    }
}

// Flushes the shared queue into the global normal queue: one atomicAdd, a
// coalesced copy. Every thread of the block must call it.
template <bool BQ>
__device__ __forceinline__ void bq_flush(const td_args &o, block_queue &bq)
{
    if (!BQ) return;
    __syncthreads();
    if (threadIdx.x == 0) {
        const uint32_t c = bq.cnt;
        bq.n = c;
        bq.base = c ? atomicAdd(&o.cnt->qn, (unsigned long long)c) - o.base_qn : 0;
        bq.cnt = 0;
    }
    __syncthreads();
    const uint32_t c = bq.n;
    const unsigned long long base = bq.base;
    for (uint32_t k = threadIdx.x; k < c; k += TB) o.outq[base + k] = bq.q[k];
    __syncthreads();
}

// Queue entry i of in[0, nin): its vertex (0 past the end) and list
// [beg, beg + deg) (empty past the end): in A, or in a gathered chunk's
// entries (ST).
template <bool ST = false>
__device__ __forceinline__ uint32_t queue_entry(const td_args &o, const uint32_t *__restrict__ in,
                                                uint64_t i, uint64_t nin, unsigned long long &beg,
                                                unsigned long long &deg)
{
    if (i >= nin) return 0;
    const uint32_t u = in[i];
    if (ST) {
        beg = o.so[i];
        deg = o.so[i + 1] - beg;
    } else {
        beg = o.x[u];
        deg = o.x[(uint64_t)u + 1] - beg;
    }
    return u;
}

// Top-down over the normal queue in[0, nin): block-wide gather. ST: the
// lists are a gathered chunk's (o.so, o.sa in device memory), all of them
// host lists copied by DMA.
template <bool P, bool BQ, bool ST = false>
__global__ void __launch_bounds__(TB) td_gather(td_args o, const uint32_t *__restrict__ in,
                                                uint64_t nin)
{
    using scan_t = cub::BlockScan<unsigned long long, TB>;
    __shared__ typename scan_t::TempStorage scan_tmp;
    __shared__ unsigned long long s_start[TB];
    __shared__ unsigned long long s_beg[TB];
    __shared__ uint32_t s_vtx[TB];
    __shared__ block_queue bq;
    const unsigned tid = threadIdx.x;
    if (tid == 0) bq.cnt = 0;
    unsigned long long scout = 0, hedges = 0, exam = 0, host = 0;
    for (uint64_t c0 = (uint64_t)blockIdx.x * TB; c0 < nin; c0 += (uint64_t)gridDim.x * TB) {
        unsigned long long beg = 0, deg = 0;
        const uint32_t u = queue_entry<ST>(o, in, c0 + tid, nin, beg, deg);
        host += ST ? deg : o.a.host_count(beg, beg + deg);
        unsigned long long start, total;
        scan_t(scan_tmp).ExclusiveSum(deg, start, total);
        s_start[tid] = start;
        s_beg[tid] = beg;
        s_vtx[tid] = u;
        __syncthreads();
        if (tid == 0) exam += total;
        for (unsigned long long r0 = 0; r0 < total; r0 += (unsigned long long)TB * RQ) {
#pragma unroll
            for (unsigned k = 0; k < RQ; k++) {
                const unsigned long long idx = r0 + (unsigned long long)k * TB + tid;
                if (idx < total) {
                    // the last j with s_start[j] <= idx (s_start[0] = 0)
                    unsigned lo = 0;
#pragma unroll
                    for (unsigned step = TB / 2; step > 0; step >>= 1)
                        if (s_start[lo + step] <= idx) lo += step;
                    const unsigned long long e = s_beg[lo] + (idx - s_start[lo]);
                    const uint32_t v = ST ? __ldg(o.sa + e) : o.a.ldg(e);
                    td_visit<P, BQ>(o, bq, v, s_vtx[lo], scout, hedges);
                }
            }
            bq_flush<BQ>(o, bq);
        }
        __syncthreads(); // s_start, s_beg, s_vtx, scan_tmp are rewritten next
    }
    block_add4({scout, hedges, exam, host},
               {&o.cnt->scout, &o.cnt->hub_edges, &o.cnt->examined, &o.cnt->host});
}

// Top-down over in[0, nin) with one thread per vertex walking its own list
// ("hub-queue" disabled), in rounds so that the block queue bound holds.
template <bool P, bool BQ>
__global__ void __launch_bounds__(TB) td_thread(td_args o, const uint32_t *__restrict__ in,
                                                uint64_t nin)
{
    using red_t = cub::BlockReduce<unsigned long long, TB>;
    __shared__ typename red_t::TempStorage red_tmp;
    __shared__ unsigned long long s_max;
    __shared__ block_queue bq;
    const unsigned tid = threadIdx.x;
    if (tid == 0) bq.cnt = 0;
    unsigned long long scout = 0, hedges = 0, exam = 0, host = 0;
    for (uint64_t c0 = (uint64_t)blockIdx.x * TB; c0 < nin; c0 += (uint64_t)gridDim.x * TB) {
        unsigned long long beg = 0, deg = 0;
        const uint32_t u = queue_entry(o, in, c0 + tid, nin, beg, deg);
        exam += deg;
        host += o.a.host_count(beg, beg + deg);
        const unsigned long long mx = red_t(red_tmp).Reduce(deg, max_op());
        if (tid == 0) s_max = mx;
        __syncthreads();
        const unsigned long long rounds = s_max;
        for (unsigned long long r0 = 0; r0 < rounds; r0 += RQ) {
#pragma unroll
            for (unsigned k = 0; k < RQ; k++) {
                const unsigned long long e = r0 + k;
                if (e < deg) td_visit<P, BQ>(o, bq, o.a.ldg(beg + e), u, scout, hedges);
            }
            bq_flush<BQ>(o, bq);
        }
        __syncthreads(); // red_tmp and s_max are rewritten next
    }
    block_add4({scout, hedges, exam, host},
               {&o.cnt->scout, &o.cnt->hub_edges, &o.cnt->examined, &o.cnt->host});
}

// Top-down over the hub queue hin[0, h): the hubs' lists concatenated
// (hoff[j] = start of hub j's entries, hoff[h] = eh), `per` entries a block.
template <bool P, bool BQ>
__global__ void __launch_bounds__(TB) td_hubs(td_args o, const uint32_t *__restrict__ hin,
                                              const uint64_t *__restrict__ hoff, uint32_t h,
                                              uint64_t eh, uint64_t per)
{
    __shared__ block_queue bq;
    const unsigned tid = threadIdx.x;
    const uint64_t start = (uint64_t)blockIdx.x * per;
    if (start >= eh) return; // whole block
    const uint64_t end = eh - start < per ? eh : start + per;
    if (tid == 0) bq.cnt = 0;
    // the last hub j with hoff[j] <= start (every thread, uniform loads)
    uint32_t lo = 0, hi = h - 1;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo + 1) / 2;
        if (hoff[mid] <= start)
            lo = mid;
        else
            hi = mid - 1;
    }
    uint32_t j = lo;
    __syncthreads();
    unsigned long long scout = 0, hedges = 0, host = 0;
    for (uint64_t r0 = start; r0 < end; r0 += (uint64_t)TB * RQ) {
#pragma unroll
        for (unsigned k = 0; k < RQ; k++) {
            const uint64_t idx = r0 + (uint64_t)k * TB + tid;
            if (idx < end) {
                uint32_t jj = j;
                while (hoff[jj + 1] <= idx) jj++; // hoff[h] = eh > idx ends it
                const uint32_t u = hin[jj];
                const uint64_t e = o.x.ldg(u) + (idx - hoff[jj]);
                host += o.a.host_count(e, e + 1);
                const uint32_t v = o.a.ldg(e);
                td_visit<P, BQ>(o, bq, v, u, scout, hedges);
            }
        }
        bq_flush<BQ>(o, bq);
        const uint64_t nb = r0 + (uint64_t)TB * RQ;
        if (nb < end)
            while (hoff[j + 1] <= nb) j++;
    }
    block_add4({scout, hedges, 0, host}, {&o.cnt->scout, &o.cnt->hub_edges, nullptr, &o.cnt->host});
}

// One bottom-up step: every unvisited vertex looks for a neighbour in
// `front`; those found get `depth` and form `next`.
template <bool P>
__global__ void __launch_bounds__(TB) bu_step(XArr x, AArr a, uint64_t n,
                                              uint64_t nw, const uint32_t *__restrict__ front,
                                              uint32_t *next, uint32_t *vis, uint32_t *level,
                                              uint32_t *parent, uint32_t depth, bfs_cnt *cnt)
{
    const unsigned lane = threadIdx.x & 31;
    const uint64_t warps = (uint64_t)gridDim.x * (TB / 32);
    unsigned long long exam = 0, awake = 0, host = 0;
    const uint32_t pad = (n & 31) ? ~0u << (n & 31) : 0u; // bits past n in the last word
    for (uint64_t w = (uint64_t)blockIdx.x * (TB / 32) + (threadIdx.x >> 5); w < nw; w += warps) {
        const uint32_t vw = vis[w];
        const uint32_t done = vw | (w == nw - 1 ? pad : 0u);
        if (done == FULL) {
            if (lane == 0) next[w] = 0;
            continue;
        }
        const uint64_t u = w * 32 + lane;
        const bool todo = !((done >> lane) & 1u);
        unsigned long long beg = 0, end = 0;
        if (todo) {
            beg = x[u];
            end = x[u + 1];
        }
        bool found = false;
        uint32_t par = 0;
        unsigned long long e = beg;
        const unsigned long long stop = end - beg > BU_SERIAL ? beg + BU_SERIAL : end;
        for (; e < stop; e++) {
            const uint32_t v = a[e];
            if (bit_set(front, v)) {
                found = true;
                par = v;
                break;
            }
        }
        exam += found ? e - beg + 1 : e - beg;
        host += a.host_count(beg, found ? e + 1 : e);
        const bool isolated = todo && end == beg;
        const bool more = !found && e < end; // the warp finishes this list
        uint32_t lm = __ballot_sync(FULL, more);
        while (lm) {
            const int l = __ffs(lm) - 1;
            lm &= lm - 1;
            const unsigned long long b = __shfl_sync(FULL, e, l);
            const unsigned long long en = __shfl_sync(FULL, end, l);
            for (unsigned long long off = b; off < en; off += 32) {
                const unsigned long long k = off + lane;
                uint32_t v = 0;
                bool hit = false;
                if (k < en) {
                    v = a[k];
                    hit = bit_set(front, v);
                }
                const uint32_t hm = __ballot_sync(FULL, hit);
                if (lane == 0) {
                    const unsigned long long r = en - off < 32 ? en - off : 32;
                    exam += r;
                    host += a.host_count(off, off + r);
                }
                if (hm) {
                    const uint32_t pv = __shfl_sync(FULL, v, __ffs(hm) - 1);
                    if (lane == (unsigned)l) {
                        found = true;
                        par = pv;
                    }
                    break;
                }
            }
        }
        const uint32_t fm = __ballot_sync(FULL, found);
        const uint32_t im = __ballot_sync(FULL, isolated);
        if (found) {
            level[u] = depth;
            if (P) parent[u] = par;
        }
        if (lane == 0) {
            next[w] = fm;
            const uint32_t nv = vw | fm | im;
            if (nv != vw) vis[w] = nv;
            awake += __popc(fm);
        }
    }
    block_add4({exam, awake, 0, host}, {&cnt->examined, &cnt->awake, nullptr, &cnt->host});
}

// The frontier queues as a bitmap (front cleared before).
__global__ void q2b(const uint32_t *__restrict__ q, uint64_t nq, const uint32_t *__restrict__ h,
                    uint64_t nh, uint32_t *front)
{
    const uint64_t all = nq + nh;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < all;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t v = i < nq ? q[i] : h[i - nq];
        atomicOr(front + (v >> 5), 1u << (v & 31));
    }
}

// Words [w_lo, nw) of the bitmap bm as the two queues (split by degree),
// warp-aggregated appends; adds the hubs' degrees to hub_edges.
__global__ void __launch_bounds__(TB) b2q(XArr x, const uint32_t *__restrict__ bm, uint64_t w_lo,
                                          uint64_t nw,
                                          uint64_t hub_min, uint32_t *outq, uint32_t *outh,
                                          uint64_t *outhdeg, bfs_cnt *cnt,
                                          unsigned long long base_qn, unsigned long long base_qh)
{
    const unsigned lane = threadIdx.x & 31;
    unsigned long long hedges = 0;
    for (uint64_t w0 = w_lo + (uint64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); w0 < nw;
         w0 += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t w = w0 + lane;
        const uint32_t word = w < nw ? bm[w] : 0u;
        uint32_t cn = 0, ch = 0;
        for (uint32_t t = word; t; t &= t - 1) {
            const uint64_t v = w * 32 + (uint64_t)(__ffs(t) - 1);
            if (x[v + 1] - x[v] >= hub_min)
                ch++;
            else
                cn++;
        }
        uint32_t tn, th;
        const uint32_t en = warp_excl(cn, &tn), eh = warp_excl(ch, &th);
        unsigned long long bn = 0, bh = 0;
        if (lane == 0) {
            if (tn) bn = atomicAdd(&cnt->qn, (unsigned long long)tn) - base_qn;
            if (th) bh = atomicAdd(&cnt->qh, (unsigned long long)th) - base_qh;
        }
        unsigned long long pn = __shfl_sync(FULL, bn, 0) + en;
        unsigned long long ph = __shfl_sync(FULL, bh, 0) + eh;
        for (uint32_t t = word; t; t &= t - 1) {
            const uint64_t v = w * 32 + (uint64_t)(__ffs(t) - 1);
            const uint64_t d = x[v + 1] - x[v];
            if (d >= hub_min) {
                outh[ph] = (uint32_t)v;
                outhdeg[ph] = d;
                ph++;
                hedges += d;
            } else {
                outq[pn++] = (uint32_t)v;
            }
        }
    }
    hedges = warp_sum(hedges);
    if (lane == 0 && hedges) atomicAdd(&cnt->hub_edges, hedges);
}

// The source: level 0, its own parent, visited, in the queue its degree
// picks; the counters (zeroed before) get its queue slot and degree.
__global__ void bfs_seed(XArr x, uint32_t s, uint32_t *level,
                         uint32_t *parent, uint32_t *vis, uint32_t *q, uint32_t *hq,
                         uint64_t *hdeg, uint64_t hub_min, bfs_cnt *cnt)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    level[s] = 0;
    if (parent) parent[s] = s;
    vis[s >> 5] |= 1u << (s & 31);
    const uint64_t d = x[(uint64_t)s + 1] - x[s];
    cnt->scout = d;
    if (d >= hub_min) {
        hq[0] = s;
        hdeg[0] = d;
        cnt->qh = 1;
        cnt->hub_edges = d;
    } else {
        q[0] = s;
        cnt->qn = 1;
    }
}

// The normal queue's tail so far into cnt->pos (between the two b2q of a
// gathered step: where its host part starts).
__global__ void k_queue_mark(bfs_cnt *cnt)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) cnt->pos = cnt->qn;
}

// ---------------------------------------------------------------- host side

uint64_t hub_cap(uint64_t n, uint64_t m)
{
    const uint64_t h = m / HUB < n ? m / HUB : n;
    return h ? h : 1;
}

uint64_t cub_bound(uint64_t h) { return 32 * (h / 64 + 64) + 4096; }

// The search's working arrays, kept with the device graph between calls
// (sgk_graph's `kept`): the next BFS on the graph with the same parents
// setting takes them back instead of allocating and freeing ~12 n bytes of
// device memory and the pinned counters again (4-8 ms a search at R-MAT
// 26); every array a search reads is initialised by the search itself, as
// fresh cudaMalloc memory would need. "keep-work" disabled: freed at the
// end of the call. Its deleter identifies it.
struct BfsKeep {
    bool parents = false;
    sgk_dbuf<uint32_t> level, parent, vis, front, next, q0, q1, hq0, hq1;
    sgk_dbuf<uint64_t> hdeg0, hdeg1, hoff;
    sgk_dbuf<unsigned char> cub;
    size_t cub_bytes = 0;
    sgk_dbuf<bfs_cnt> cnt;
    sgk_hbuf<bfs_cnt> hc; // the counters read back
    // gathered top-down steps ("bfs-gather"): two device buffers of chunk
    // offsets (so) and entries (sa) and their uploads' order (ring), the
    // stream the queue's pieces come down on
    bool gather_tried = false, gather_ok = false;
    sgk_dbuf<uint32_t> so[2], sa[2];
    sgk_chunk_pair ring;
    cudaStream_t down = nullptr;
    // the GPU's share of a gathered step's host part, read in place beside
    // the gather ("gather-side")
    sgk_side_share side;
    BfsKeep() = default;
    BfsKeep(const BfsKeep &) = delete;
    BfsKeep &operator=(const BfsKeep &) = delete;
    ~BfsKeep()
    {
        if (down) (void)cudaStreamDestroy(down);
    }
    uint64_t bytes() const
    {
        return level.bytes() + parent.bytes() + vis.bytes() + front.bytes() + next.bytes() +
               q0.bytes() + q1.bytes() + hq0.bytes() + hq1.bytes() + hdeg0.bytes() +
               hdeg1.bytes() + hoff.bytes() + cub.bytes() + cnt.bytes() + so[0].bytes() +
               so[1].bytes() + sa[0].bytes() + sa[1].bytes();
    }
};

void bfs_keep_free(void *p) { delete static_cast<BfsKeep *>(p); }

// The kept arrays for a search with (or without) parents, detached from g;
// null, with whatever else g kept freed, when there are none for it.
BfsKeep *take_work(sgk_ctx *c, const sgk_graph *g, bool parents)
{
    if (sgk_ctx_disabled(c, "keep-work")) sgk_graph_drop_kept(g);
    BfsKeep *k = static_cast<BfsKeep *>(sgk_graph_take_kept(g, bfs_keep_free));
    if (!k) return nullptr;
    if (k->parents == parents) return k;
    delete k;
    return nullptr;
}

struct search {
    sgk_ctx *c;
    const sgk_graph *g;
    uint32_t source;
    uint64_t alpha, beta;
    uint64_t n, m, nw;
    bool bu_ok, hubs;
    uint32_t *level, *parent;       // device
    uint32_t *vis, *front, *next;   // device bitmaps (front/next NULL unless bu_ok)
    uint32_t *q[2], *hq[2];         // queues (hq NULL without hubs)
    uint64_t *hdeg[2], *hoff;
    void *cub_tmp;
    size_t cub_bytes;
    bfs_cnt *cnt;                   // device
    bfs_cnt *hcnt;                  // pinned host copy
    bfs_cnt prev;                   // the counters read last
    uint64_t td_steps, bu_steps, examined;
    uint64_t order_min;             // top-down frontiers from this size in id order
    uint64_t ordered;               // top-down steps that took them so
    // gathered steps: ordered frontiers whose host lists the CPU threads
    // copy into chunks (gather_step)
    bool gather;
    BfsKeep *keep;
    void *stage[2];                 // the context's pinned staging buffers, lent
    uint64_t vsplit;                // the first vertex whose list is in host memory
    uint64_t gv, ge;                // a chunk's most vertices and entries
    bool prefetch;                  // the gather prefetches lists ahead
    uint64_t gathered, chunks, gathered_entries;
    double gather_host_s;           // the host threads' part (queue pieces, gathers)
    double gather_wait_s;           // of it, the waits for a buffer and a queue piece
    // the GPU's share of the host part, read in place on keep->side from
    // the part's end while the host gathers its front ("gather-side")
    bool side;
};

// Copies the counters back, waits, returns what changed since the last read.
sg_status read_counts(search &s, bfs_cnt *d, sg_error *err)
{
    SGK_CU(cudaMemcpyAsync(s.hcnt, s.cnt, sizeof(bfs_cnt), cudaMemcpyDeviceToHost, s.c->stream));
    SGK_CU(cudaStreamSynchronize(s.c->stream));
    const bfs_cnt now = *s.hcnt;
    d->qn = now.qn - s.prev.qn;
    d->qh = now.qh - s.prev.qh;
    d->hub_edges = now.hub_edges - s.prev.hub_edges;
    d->scout = now.scout - s.prev.scout;
    d->examined = now.examined - s.prev.examined;
    d->awake = now.awake - s.prev.awake;
    s.prev = now;
    return SG_OK;
}

// The gathered steps' device buffers, stream and events, made when the
// first search that can gather starts (kept with the other arrays): none
// when the budget cannot hold the buffers beside what is in use (the steps
// then read the host lists in place, as without "bfs-gather").
sg_status gather_setup(search &s, sg_error *err)
{
    BfsKeep &k = *s.keep;
    if (k.gather_tried) return SG_OK;
    k.gather_tried = true;
    sgk_mem_stats ms;
    sgk_ctx_mem(s.c, &ms);
    if (ms.in_use + sgi_bfs_gather_bytes(s.n, s.m) > ms.budget) return SG_OK;
    for (int i = 0; i < 2; i++) {
        SGK_TRY(k.so[i].alloc(s.c, s.gv + 1, "the BFS gathered chunk offsets", err));
        SGK_TRY(k.sa[i].alloc(s.c, s.ge, "the BFS gathered chunk entries", err));
    }
    SGK_TRY(k.ring.make(err));
    SGK_CU(cudaStreamCreateWithFlags(&k.down, cudaStreamNonBlocking));
    SGK_TRY(k.side.make(0.8, err));
    k.gather_ok = true;
    return SG_OK;
}

// The host part q[p, nq) of an ordered frontier (o: the step's arguments;
// grid_cap: the most blocks a launch takes), chunk by chunk: a piece of
// the queue comes down into a lent staging buffer, the host threads gather
// its vertices' lists behind it, the copy engine takes offsets and entries
// into a device buffer, and td_gather reads them there. Two buffers: the
// host gathers the next chunk while the GPU takes this one.
template <bool P, bool BQ>
sg_status gather_step(search &s, const td_args &o, const uint32_t *q, uint64_t p, uint64_t nq,
                      unsigned grid_cap, sg_error *err)
{
    BfsKeep &k = *s.keep;
    const cudaStream_t st = s.c->stream, cs = s.c->copy;
    const uint64_t *hx = s.g->hx;
    const uint32_t *ha = s.g->ha;
    k.ring.begin();
    int b = 0;
    for (uint64_t j = p; j < nq; b ^= 1) {
        uint32_t *hid = static_cast<uint32_t *>(s.stage[b]), *hoff = hid + s.gv;
        uint32_t *hent = hoff + s.gv + 1;
        const double h0 = sgi_now();
        SGK_TRY(k.ring.host_wait(b, err));
        const uint64_t want = nq - j < s.gv ? nq - j : s.gv;
        SGK_CU(cudaMemcpyAsync(hid, q + j, want * sizeof *hid, cudaMemcpyDeviceToHost, k.down));
        SGK_CU(cudaStreamSynchronize(k.down));
        const double h1 = sgi_now();
        const uint64_t took = sgk_gather_lists(hx, ha, nullptr, hid, want, s.ge, hoff, hent,
                                               nullptr, s.prefetch, s.c->threads);
        const uint64_t ents = hoff[took];
        const double h2 = sgi_now();
        s.gather_host_s += h2 - h0;
        s.gather_wait_s += h1 - h0;
        const sgk_chunk_pair::piece pp[2] = {{k.so[b].get(), hoff, (took + 1) * sizeof *hoff},
                                             {k.sa[b].get(), hent, ents * sizeof *hent}};
        SGK_TRY(k.ring.upload(b, pp, 2, cs, st, err));
        td_args oc = o;
        oc.so = k.so[b].get();
        oc.sa = k.sa[b].get();
        uint64_t grid = (took + TB - 1) / TB;
        if (grid > grid_cap) grid = grid_cap;
        td_gather<P, BQ, true><<<(unsigned)grid, TB, 0, st>>>(oc, q + j, took);
        SGK_LAUNCHED("td_gather (gathered)");
        SGK_TRY(k.ring.read(b, st, err));
        s.chunks++;
        s.gathered_entries += ents;
        j += took;
    }
    s.gathered++;
    return SG_OK;
}

template <bool P, bool BQ> sg_status bfs_run(search &s, sg_error *err)
{
    sgk_ctx *const c = s.c;
    const cudaStream_t st = c->stream;
    const uint64_t hub_min = s.hubs ? HUB : UINT64_MAX;
    const XArr x = s.g->X;
    const AArr a = s.g->A;

    // Grids: the work's size (the previous level's counts), capped at the
    // blocks that fit on the device at once (twice that for the normal
    // queue, whose blocks' work varies), so grid-stride loops run in one wave.
    int occ_td = 0, occ_hub = 0, occ_bu = 0, occ_b2q = 0;
    if (s.hubs)
        SGK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_td, td_gather<P, BQ>, TB, 0));
    else
        SGK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_td, td_thread<P, BQ>, TB, 0));
    SGK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_hub, td_hubs<P, BQ>, TB, 0));
    SGK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_bu, bu_step<P>, TB, 0));
    SGK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_b2q, b2q, TB, 0));
    const auto grid_for = [c](uint64_t items, uint64_t per_block, int occ, uint64_t waves) {
        uint64_t b = (items + per_block - 1) / per_block;
        const uint64_t cap = (uint64_t)c->sm_count * (uint64_t)(occ > 0 ? occ : 1) * waves;
        if (b > cap) b = cap;
        return (unsigned)(b ? b : 1);
    };

    bfs_seed<<<1, 32, 0, st>>>(x, s.source, s.level, s.parent, s.vis, s.q[0], s.hq[0], s.hdeg[0],
                               hub_min, s.cnt);
    SGK_LAUNCHED("bfs_seed");
    bfs_cnt d;
    SGK_TRY(read_counts(s, &d, err));
    int cur = 0;                                  // q[cur], hq[cur], hdeg[cur]: the frontier
    uint64_t nq = d.qn, nh = d.qh, eh = d.hub_edges;
    uint64_t scout = d.scout, to_check = s.m;
    uint32_t depth = 0;
    while (nq + nh > 0) {
        if (s.bu_ok && scout > to_check / s.alpha) {
            SGK_CU(cudaMemsetAsync(s.front, 0, s.nw * sizeof(uint32_t), st));
            q2b<<<grid_for(nq + nh, TB, occ_b2q, 1), TB, 0, st>>>(s.q[cur], nq, s.hq[cur], nh,
                                                                   s.front);
            SGK_LAUNCHED("q2b");
            uint64_t awake = nq + nh, old;
            do {
                old = awake;
                depth++;
                bu_step<P><<<grid_for(s.nw, TB / 32, occ_bu, 1), TB, 0, st>>>(
                    x, a, s.n, s.nw, s.front, s.next, s.vis, s.level, s.parent, depth, s.cnt);
                SGK_LAUNCHED("bu_step");
                SGK_TRY(read_counts(s, &d, err));
                awake = d.awake;
                s.examined += d.examined;
                uint32_t *t = s.front;
                s.front = s.next;
                s.next = t;
                s.bu_steps++;
            } while (awake >= old || awake > s.n / s.beta);
            b2q<<<grid_for(s.nw, TB, occ_b2q, 1), TB, 0, st>>>(x, s.front, 0, s.nw, hub_min,
                                                                s.q[cur], s.hq[cur], s.hdeg[cur],
                                                                s.cnt, s.prev.qn, s.prev.qh);
            SGK_LAUNCHED("b2q");
            SGK_TRY(read_counts(s, &d, err));
            nq = d.qn;
            nh = d.qh;
            eh = d.hub_edges;
            scout = 1; // as gapbs: at least one top-down step after a bottom-up phase
        } else {
            to_check = to_check > scout ? to_check - scout : 0;
            depth++;
            const int out = cur ^ 1;
            td_args o;
            o.x = x;
            o.a = a;
            o.level = s.level;
            o.parent = s.parent;
            o.vis = s.vis;
            o.outq = s.q[out];
            o.outh = s.hq[out];
            o.outhdeg = s.hdeg[out];
            o.cnt = s.cnt;
            o.base_qn = s.prev.qn;
            o.base_qh = s.prev.qh;
            o.hub_min = hub_min;
            o.depth = depth;
            // the queue's entries before p read their lists where they are;
            // a gathered step's host lists (from p) go through gather_step
            uint64_t p = nq;
            const bool gathered = s.gather && nq >= s.order_min;
            if (nq >= s.order_min) {
                // a large frontier over host lists in id order: through the
                // bitmap (q2b, then b2q with no hub split appends the nq
                // vertices word by word), so a block's 256 lists are near
                // each other in A and its gathered reads coalesce. A
                // gathered step appends the words below the host lists'
                // first vertex, then the rest, and reads where that starts
                // (the word it lies in goes with the host part: any list
                // can be gathered, the host arrays hold all of A).
                SGK_CU(cudaMemsetAsync(s.front, 0, s.nw * sizeof(uint32_t), st));
                q2b<<<grid_for(nq, TB, occ_b2q, 1), TB, 0, st>>>(s.q[cur], nq, nullptr, 0, s.front);
                SGK_LAUNCHED("q2b");
                const uint64_t ws = gathered ? s.vsplit / 32 : 0;
                if (ws) {
                    b2q<<<grid_for(ws, TB, occ_b2q, 1), TB, 0, st>>>(
                        x, s.front, 0, ws, UINT64_MAX, s.q[cur], nullptr, nullptr, s.cnt,
                        s.prev.qn, s.prev.qh);
                    SGK_LAUNCHED("b2q");
                }
                if (gathered) {
                    k_queue_mark<<<1, 32, 0, st>>>(s.cnt);
                    SGK_LAUNCHED("k_queue_mark");
                }
                b2q<<<grid_for(s.nw - ws, TB, occ_b2q, 1), TB, 0, st>>>(
                    x, s.front, ws, s.nw, UINT64_MAX, s.q[cur], nullptr, nullptr, s.cnt, s.prev.qn,
                    s.prev.qh);
                SGK_LAUNCHED("b2q");
                if (gathered) {
                    SGK_CU(cudaMemcpyAsync(&s.hcnt->pos, &s.cnt->pos, sizeof s.hcnt->pos,
                                           cudaMemcpyDeviceToHost, st));
                    SGK_CU(cudaStreamSynchronize(st));
                    p = s.hcnt->pos - s.prev.qn;
                }
                s.prev.qn += nq; // b2q appended exactly the nq vertices
                o.base_qn = s.prev.qn;
                s.ordered++;
            }
            if (p) {
                const unsigned grid = grid_for(p, TB, occ_td, 2);
                if (s.hubs)
                    td_gather<P, BQ><<<grid, TB, 0, st>>>(o, s.q[cur], p);
                else
                    td_thread<P, BQ><<<grid, TB, 0, st>>>(o, s.q[cur], p);
                SGK_LAUNCHED("td_gather");
            }
            // a gathered step's host part: the GPU's share from its end in
            // place on the side stream (at most half the resident blocks,
            // so that the chunks' kernels find room), the host's gather of
            // the rest from its start
            uint64_t sn = 0, r = nq;
            double th = 0;
            if (p < nq) {
                if (s.side) sn = s.keep->side.take(nq - p);
                r = nq - sn;
                if (sn) {
                    const unsigned half = grid_for(UINT64_MAX / 2, TB, occ_td, 1) / 2;
                    unsigned sg = grid_for(sn, TB, occ_td, 1);
                    if (sg > half) sg = half ? half : 1;
                    sgk_side_share &sd = s.keep->side;
                    SGK_CU(cudaEventRecord(sd.t0, sd.stream));
                    td_gather<P, BQ><<<sg, TB, 0, sd.stream>>>(o, s.q[cur] + r, sn);
                    SGK_LAUNCHED("td_gather (side)");
                    SGK_CU(cudaEventRecord(sd.t1, sd.stream));
                }
                const double h0 = sgi_now();
                const unsigned cap = grid_for(UINT64_MAX / 2, TB, occ_td, 2); // the cap alone
                SGK_TRY((gather_step<P, BQ>(s, o, s.q[cur], p, r, cap, err)));
                th = sgi_now() - h0;
                if (sn) SGK_CU(cudaStreamWaitEvent(st, s.keep->side.t1, 0));
            }
            if (nh) {
                size_t tb = s.cub_bytes;
                SGK_CU(cub::DeviceScan::InclusiveSum(s.cub_tmp, tb, s.hdeg[cur], s.hoff + 1,
                                                     (uint32_t)nh, st));
                uint64_t grid = grid_for(eh, TB * RQ, occ_hub, 1);
                const uint64_t per = (eh + grid - 1) / grid;
                grid = (eh + per - 1) / per;
                td_hubs<P, BQ><<<(unsigned)grid, TB, 0, st>>>(o, s.hq[cur], s.hoff, (uint32_t)nh,
                                                              eh, per);
                SGK_LAUNCHED("td_hubs");
            }
            SGK_TRY(read_counts(s, &d, err));
            if (sn) SGK_TRY(s.keep->side.adapt(sn, r - p, th, err));
            s.examined += d.examined + eh;
            nq = d.qn;
            nh = d.qh;
            eh = d.hub_edges;
            scout = d.scout;
            cur = out;
            s.td_steps++;
        }
    }
    return SG_OK;
}

} // namespace

uint64_t sgk_bfs_bytes(uint64_t n, uint64_t m, bool parents)
{
    const uint64_t nw = (n + 31) / 32, h = hub_cap(n, m);
    return 4 * n + (parents ? 4 * n : 0) + 8 * n + 12 * nw + 8 * h + 16 * h + 8 * (h + 1) +
           cub_bound(h) + sizeof(bfs_cnt);
}

sg_status sgk_bfs(sgk_ctx *c, const sgk_graph *g, uint32_t source, int alpha, int beta,
                  uint32_t *level, uint32_t *parent, uint64_t *reached, uint32_t *max_level,
                  sgk_stats *stats, sg_error *err)
{
    if (!c || !g || !level || !reached || !max_level)
        return sgi_fail(err, SG_E_INVALID, "sgk_bfs: NULL argument");
    const uint64_t n = g->d.n, m = g->d.m;
    if (n == 0 || source >= n)
        return sgi_fail(err, SG_E_INVALID, "source %u is not a vertex: the graph has %llu vertices",
                        source, (unsigned long long)n);
    if (alpha <= 0 || beta <= 0)
        return sgi_fail(err, SG_E_INVALID, "BFS direction switch: alpha %d and beta %d must be > 0",
                        alpha, beta);
    if (n > UINT32_MAX)
        return sgi_fail(err, SG_E_RANGE, "GPU BFS: %llu vertices do not fit 32-bit ids",
                        (unsigned long long)n);
    SGK_TRY(sgk_graph_ready(g, err));

    search s;
    memset(&s, 0, sizeof s);
    s.c = c;
    s.g = g;
    s.source = source;
    s.alpha = (uint64_t)alpha;
    s.beta = (uint64_t)beta;
    s.n = n;
    s.m = m;
    s.nw = (n + 31) / 32;
    s.bu_ok = !g->d.directed && !sgk_ctx_disabled(c, "bottom-up");
    // id order for frontiers of max(64, n / 1024) vertices or more over a
    // graph with host lists in pinned memory (it needs the frontier bitmap
    // of bottom-up steps; managed memory gained nothing, docs/benchmarks.md)
    s.order_min = UINT64_MAX;
    if (s.bu_ok && g->A.s < m && !g->h_managed && !sgk_ctx_disabled(c, "frontier-order"))
        s.order_min = n / 1024 > ORDER_MIN ? n / 1024 : ORDER_MIN;
    s.hubs = !sgk_ctx_disabled(c, "hub-queue");
    const bool bq = !sgk_ctx_disabled(c, "block-queue");
    const uint64_t h = hub_cap(n, m);
    if (h > UINT32_MAX) s.hubs = false; // cub's item count and hub indices are 32-bit
    // gathered steps: the ordered frontiers' host lists copied by the host
    // threads, in chunks of normal-queue lists (shorter than HUB), which
    // fit a staging buffer: ids, offsets and entries
    s.prefetch = !sgk_ctx_disabled(c, "gather-prefetch");
    s.gv = sgi_bfs_gather_vertices(n);
    s.ge = sgi_bfs_gather_entries(m);
    s.gather = s.order_min != UINT64_MAX && s.hubs && g->hx && g->ha &&
               !sgk_ctx_disabled(c, "bfs-gather") && s.ge >= HUB &&
               4 * (2 * s.gv + 1 + s.ge) <= SGK_STAGE_BYTES;
    s.side = !sgk_ctx_disabled(c, "gather-side");

    // The working arrays: those an earlier search kept, or new ones.
    std::unique_ptr<BfsKeep> keep(take_work(c, g, parent != nullptr));
    const bool reused = keep != nullptr;
    if (!keep) {
        keep.reset(new (std::nothrow) BfsKeep);
        if (!keep) return sgi_fail(err, SG_E_NOMEM, "out of host memory for the BFS state");
        keep->parents = parent != nullptr;
    }
    auto &d_level = keep->level, &d_parent = keep->parent, &d_vis = keep->vis;
    auto &d_front = keep->front, &d_next = keep->next, &d_q0 = keep->q0, &d_q1 = keep->q1;
    auto &d_hq0 = keep->hq0, &d_hq1 = keep->hq1;
    auto &d_hdeg0 = keep->hdeg0, &d_hdeg1 = keep->hdeg1, &d_hoff = keep->hoff;
    auto &d_cub = keep->cub;
    auto &d_cnt = keep->cnt;
    sgk_hbuf<bfs_cnt> &hc = keep->hc;
    if (!reused) {
        SGK_TRY(d_level.alloc(c, n, "the BFS levels", err));
        if (parent) SGK_TRY(d_parent.alloc(c, n, "the BFS parents", err));
        SGK_TRY(d_q0.alloc(c, n, "the BFS frontier queue", err));
        SGK_TRY(d_q1.alloc(c, n, "the BFS next queue", err));
        SGK_TRY(d_vis.alloc(c, s.nw, "the BFS visited bitmap", err));
        if (s.bu_ok) {
            SGK_TRY(d_front.alloc(c, s.nw, "the BFS frontier bitmap", err));
            SGK_TRY(d_next.alloc(c, s.nw, "the BFS next bitmap", err));
        }
        if (s.hubs) {
            SGK_TRY(d_hq0.alloc(c, h, "the BFS hub queue", err));
            SGK_TRY(d_hq1.alloc(c, h, "the BFS next hub queue", err));
            SGK_TRY(d_hdeg0.alloc(c, h, "the BFS hub degrees", err));
            SGK_TRY(d_hdeg1.alloc(c, h, "the BFS next hub degrees", err));
            SGK_TRY(d_hoff.alloc(c, h + 1, "the BFS hub offsets", err));
            size_t tb = 0;
            SGK_CU(cub::DeviceScan::InclusiveSum(nullptr, tb, d_hdeg0.get(), d_hoff.get() + 1,
                                                 (uint32_t)h, c->stream));
            SGK_TRY(d_cub.alloc(c, tb, "the BFS scan temporary storage", err));
            keep->cub_bytes = tb;
        }
        SGK_TRY(d_cnt.alloc(c, 1, "the BFS counters", err));
        SGK_TRY(hc.alloc(1, err));
    }
    s.cub_bytes = keep->cub_bytes;
    s.level = d_level;
    s.parent = d_parent;
    s.vis = d_vis;
    s.front = d_front;
    s.next = d_next;
    s.q[0] = d_q0;
    s.q[1] = d_q1;
    s.hq[0] = d_hq0;
    s.hq[1] = d_hq1;
    s.hdeg[0] = d_hdeg0;
    s.hdeg[1] = d_hdeg1;
    s.hoff = d_hoff;
    s.cub_tmp = d_cub.get();
    s.cnt = d_cnt;
    s.hcnt = hc.p;
    s.keep = keep.get();
    sgk_stage_loan loan;
    if (s.gather) {
        SGK_TRY(gather_setup(s, err));
        s.gather = keep->gather_ok;
        if (s.gather) keep->side.reset(s.gv);
    }
    if (s.gather) {
        SGK_TRY(sgk_stage_lend(c, s.stage, err));
        loan.c = c;
        s.vsplit = sgi_first_list_from(g->hx, n, g->A.s); // its list starts in host memory
    }

    const cudaStream_t st = c->stream;
    const double t0 = sgi_now();
    SGK_CU(cudaMemsetAsync(s.level, 0xff, n * sizeof(uint32_t), st));
    if (parent) SGK_CU(cudaMemsetAsync(s.parent, 0xff, n * sizeof(uint32_t), st));
    SGK_CU(cudaMemsetAsync(s.vis, 0, s.nw * sizeof(uint32_t), st));
    if (s.hubs) SGK_CU(cudaMemsetAsync(s.hoff, 0, sizeof(uint64_t), st));
    SGK_CU(cudaMemsetAsync(s.cnt, 0, sizeof(bfs_cnt), st));
    if (parent) {
        if (bq)
            SGK_TRY((bfs_run<true, true>(s, err)));
        else
            SGK_TRY((bfs_run<true, false>(s, err)));
    } else {
        if (bq)
            SGK_TRY((bfs_run<false, true>(s, err)));
        else
            SGK_TRY((bfs_run<false, false>(s, err)));
    }
    SGK_TRY(loan.end(err));
    const double t1 = sgi_now();

    sgk_sum_finite<<<sgk_grid(c, n, TB), TB, 0, st>>>(s.level, n, UINT32_MAX, &s.cnt->reached,
                                                      &s.cnt->maxl);
    SGK_LAUNCHED("sgk_sum_finite");
    bfs_cnt dsum;
    SGK_TRY(read_counts(s, &dsum, err));
    *reached = s.prev.reached;
    *max_level = (uint32_t)s.prev.maxl;
    uint64_t w0 = 0, c0 = 0, w1 = 0, c1 = 0;
    sgk_download_us(s.c, &w0, &c0);
    const double td = sgi_now();
    SGK_TRY(sgk_download(s.c, level, s.level, n * sizeof(uint32_t), err));
    if (parent) SGK_TRY(sgk_download(s.c, parent, s.parent, n * sizeof(uint32_t), err));
    const double t2 = sgi_now();

    if (stats) {
        stats->seconds_compute += t1 - t0;
        sgk_download_us(s.c, &w1, &c1);
        sgk_stats_set(stats, "download_us", (uint64_t)((t2 - t1) * 1e6));
        // of it: the copies alone (after the reached count), their waits for
        // the copy engine, the host threads' copies out
        sgk_stats_set(stats, "download_copies_us", (uint64_t)((t2 - td) * 1e6));
        sgk_stats_set(stats, "download_wait_us", w1 - w0);
        sgk_stats_set(stats, "download_host_us", c1 - c0);
        sgk_stats_set(stats, "download_bytes", (parent ? 8 : 4) * n);
        sgk_stats_set(stats, "top_down_steps", s.td_steps);
        sgk_stats_set(stats, "bottom_up_steps", s.bu_steps);
        sgk_stats_set(stats, "ordered_steps", s.ordered);
        sgk_stats_set(stats, "gathered_steps", s.gathered);
        sgk_stats_set(stats, "gathered_chunks", s.chunks);
        sgk_stats_set(stats, "gathered_bytes", 4 * s.gathered_entries);
        sgk_stats_set(stats, "gather_host_us", (uint64_t)(s.gather_host_s * 1e6));
        sgk_stats_set(stats, "gather_wait_us", (uint64_t)(s.gather_wait_s * 1e6));
        const sgk_side_share &sd = keep->side;
        sgk_stats_set(stats, "gather_side_vertices", s.gather ? sd.vertices : 0);
        sgk_stats_set(stats, "gather_side_us", s.gather ? (uint64_t)(sd.seconds * 1e6) : 0);
        sgk_stats_set(stats, "gather_side_pct", s.gather ? (uint64_t)(sd.frac * 100 + 0.5) : 0);
        sgk_stats_set(stats, "edges_examined", s.examined);
        sgk_stats_set(stats, "host_list_bytes", 4 * s.prev.host);
        sgk_stats_set(stats, "work_reused", reused ? 1 : 0);
    }
    // The arrays stay with the graph for the next search.
    if (!sgk_ctx_disabled(c, "keep-work")) {
        const uint64_t bytes = keep->bytes();
        sgk_graph_keep(g, keep.release(), bfs_keep_free, bytes);
    }
    return SG_OK;
}
