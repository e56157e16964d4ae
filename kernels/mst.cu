// Minimum spanning forest on the device: Borůvka as Kolganov (2016) and
// Vineet et al. (2009) describe it (papers/), plus a contraction to an edge
// list once few live list entries remain. The forest equals src/mst.c's
// (Kruskal's under the tie rule): edges compare by
// (sgk_weight_key(w), min(u,v), max(u,v)).
//
// METHOD
// Preprocess. E[p] = key(w[p]) << 32 | a[p] for every list entry p, in the
//   graph's own positions (E uses g->x as its offsets, so no degree count or
//   scan is needed). Each segment is sorted ascending as uint64:
//   cub::DeviceSegmentedSort in batches of consecutive segments holding at
//   most SORT_CAP (2^28) items (CUB's int limits, and the alternate buffer
//   stays 2 GiB), with segments longer than BIG_SEG (2^18) left empty there
//   and sorted one by one with cub::DeviceRadixSort (device-wide: a star's
//   centre is not left to one thread block). Self-loops stay in E: their
//   neighbour is in their own tree, so the scan skips them like any
//   internal entry (counted in edges_skipped). For a fixed vertex v,
//   (key, nbr) order equals the tie order (key, min(v,nbr), max(v,nbr)),
//   so the first entry of v's segment that leaves v's tree is v's best edge.
// Iterate (vertex mode), over the scan list (vertices of live trees whose
//   segment [lo[v], x[v+1]) may still hold a leaving entry):
//   A. first probe: one thread per scanned vertex reads E[lo[v]]; if it
//      leaves the tree it is the candidate; else the vertex is queued.
//   B. warp per queued segment: 32 (then 4 x 32) entries a round, ballot of
//      comp[nbr] != comp[v], __ffs picks the first; lo[v] advances past the
//      internal entries and is stored (it never passes a leaving entry, as
//      trees only grow). After WARP_ROUNDS rounds without an answer the
//      segment goes to C.
//   C. block per long segment: 256 threads x 4 entries a round, shared
//      atomicMin of the first leaving position.
//   D. per-tree minimum of (key << 32 | min) by 64-bit atomicMin, then of
//      max among the candidates equal to the tree's best: lanes of a warp
//      that share a tree combine first (__match_any_sync + __reduce_min_sync)
//      and the leader only issues the atomic when it beats the value it
//      reads (the minimum only falls), so the giant tree of an R-MAT graph
//      sees at most one atomic per warp and usually far fewer.
//   E. merge: nxt[t] = the other endpoint's tree; 2-cycles broken towards
//      the smaller id (it becomes the root and does not record the edge);
//      every other tree with an edge records it (warp-aggregated append);
//      pointer jumping (several jumps per thread per launch, a device flag);
//      live roots renumbered 0..k'-1 by an exclusive scan (old -> new table
//      nxt; trees without a leaving edge are whole components: dropped,
//      comp = NONE); comp[v] updated for every vertex (one pass over n).
//   F. next scan list: cub::DeviceSelect::Flagged keeps the vertices that
//      had a candidate (id order). Sorting it by tree id (only the bits of
//      k'-1; stable) so that the lanes of a warp share trees and D issues
//      fewer atomics was the first design; measured on the H100 it cost
//      more than it saved (R-MAT scale 24: 25 ms with the sort, 18 ms
//      without; docs/benchmarks.md), so the list stays in id order and the
//      sort is kept as the variant that "unsorted-trees" selects.
//   Stop when no vertex is left to scan or at most one live tree remains.
// Contract (the step beyond the papers). When the entries left in the live
//   segments, R = sum over the scan list of x[v+1] - lo[v], fall to m/16
//   or below, the edges between different trees are gathered once (entry
//   parallel over the R entries, a vertex found by binary search in the
//   scanned lengths; only the copy with v < nbr), E is freed and Borůvka
//   goes on edge-parallel over that list (key, min, max, tree of min, tree
//   of max): per-tree minima as in D, the same merge E, then the list is
//   relabelled through the old -> new table and the edges now inside a tree
//   are dropped. Every inter-tree edge is in the list (a live segment holds
//   all of its vertex's leaving entries), so the minima and the forest are
//   unchanged. Keeping only the lightest edge per tree pair is not done
//   (see NEXT).
//
// DEVICE MEMORY (bytes; graph arrays excluded; n vertices, m list entries)
//   E                    8 m (kept until the contraction)
//   preprocessing only   8 A (sort alternate, A = min(m, max(2^28, the
//                        longest list))) + 16 (n+1) (batch offsets)
//                        + 8 (m / 2^18 + 2) (long-list ids) + CUB temp
//   per vertex / tree    89 n + 24 + 12 max(n-1, 1) (output) + 64 counters:
//                        lo 8, comp 4, 2 scan lists 8, candidates 16,
//                        flags 1, tree keys 8, queues 8, best 12, nxt, par,
//                        rn 12
//   contraction          20 R for the list while E lives, then E is freed
//                        and a second 20 R list is allocated (R <= m/16)
//   CUB temp             bounded by 16 (n+1) + 128 MiB
//   sgk_mst_bytes = 8m + max(8A + 16(n+1) + 8(m/2^18 + 2),
//                            89n + 12n + 20 (m/16)) + 16(n+1) + 128 MiB + 4 KiB,
//   with A = min(m, max(2^28, n + 1)). Only a multigraph with a list longer
//   than max(2^28, n+1) needs more (the accountant then refuses cleanly).
//
// DISABLE NAMES (SPILLGRAPH_GPU_DISABLE)
//   first-probe   no thread probe: every segment is scanned by a warp (B).
//   contract      no contraction: vertex mode to the end.
//   unsorted-trees  sort the scan list by tree id every round (the first
//                 design; slower, see F above).
//
// COUNTERS
//   iterations        Borůvka rounds (vertex and edge mode)
//   edges_skipped     list entries found inside their tree (lo advances,
//                     self-loops included, and the internal entries met
//                     while building the contracted list)
//   segments_scanned  scan-list vertices examined, summed over vertex rounds
//   contractions      0 or 1
//   contracted_edges  edges in the list the contraction built
//
// EXPECTED COST, R-MAT scale 24 on an H100 (n = 16.8M, m = 520M, ~10M
// vertices with edges), estimates not measurements:
//   preprocess: fill E (read 4 GB, write 4 GB) ~3 ms; segmented sort of
//   520M uint64 (~8 passes over 4 GB r+w in the long-segment path, fewer
//   bytes in the warp-sort path for short lists) ~40-60 ms; init ~1 ms.
//   compute: iteration 1: 10M probes (x, lo, E[lo] and comp reads, ~4
//   random sectors each, ~40M x 32 B = 1.3 GB) ~1 ms, reductions with
//   10M scattered atomics ~1 ms, merge over n trees (~10 passes of 4-8 B x
//   16.8M = ~1.3 GB) ~0.6 ms, select ~0.2 ms. Later rounds shrink by ~3x
//   in trees and live vertices; the bulk of the compute is skipping
//   internal entries: each entry at most once, ~32 B random sector for
//   comp[nbr] + 8 B for E, so at worst 520M x 40 B = 21 GB ~ 7-15 ms (in
//   practice a fraction, as R-MAT contracts after ~4 rounds with R <= 32M).
//   Edge mode: 20 B x R per pass, ~3 passes per round, rounds shrink. Host
//   syncs: ~5-8 per round (pointer jumping, one read-back), ~20 us each.
//   Total expected compute 15-35 ms, under the 60 ms aim.
//
// NEXT: keep only the lightest edge per tree pair when contracting (sort by
// (tree pair, key, min, max)), block-level pre-reduction for the giant tree,
// CUDA graph capture of a round to cut launch and sync latency, and an
// adaptive contraction trigger (measured bytes per round).
#include <cub/cub.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <string.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu_share.cuh"
#include "cpu_gather.h"
#include "cpu_topk.h"
#include "kinternal.cuh"

namespace {

constexpr uint32_t NONE32 = 0xffffffffu;
constexpr uint64_t NONE64 = ~0ull;
constexpr unsigned FULL = 0xffffffffu;
constexpr uint64_t SORT_CAP = 1ull << 28;   // items per segmented-sort batch
constexpr uint64_t BIG_SEG = 1ull << 18;    // longer lists: device-wide radix sort
constexpr int BLK = 256;
constexpr int WARP_ROUNDS = 8;              // warp rounds before a segment goes to C
constexpr uint64_t CONTRACT_DIV = 16;       // contract when R <= m / 16
constexpr uint64_t SPEC_TREE_DIV = 32;      // "spec-contract": tried at k <= n / 32 trees
constexpr uint64_t CUB_SLACK = (uint64_t)128 << 20;

// Device counters (unsigned long long slots).
enum {
    C_SKIPPED = 0,  // edges_skipped
    C_OUT,          // forest edges recorded
    C_UNRES,        // queue for the warp pass
    C_HEAVY,        // queue for the block pass
    C_FLAG,         // pointer jumping stopped short of a root somewhere
    C_KNEW,         // live trees after renumbering
    C_NSEL,         // scan list length after selection
    C_REMAIN,       // entries left in the live segments
    C_NE,           // edges in the contracted list
    C_MAXDEG,       // preprocessing: longest list
    C_NBIG,         // preprocessing: long lists found
    C_B0, C_B1,     // preprocessing: batch end and its offset
    C_X0,           // preprocessing: x[0]
    C_INTER,        // in-place executor: entries found leaving their tree
    C_HOSTB,        // in-place executor: bytes of A and W read from host memory
    C_NRESCAN,      // in-place executor: lists to read again (the vertex cache)
    C_LIVE,         // in-place executor: entries of the lists kept (with the cache)
    C_WALKED,       // in-place executor: list entries read by the walks
    C_SPARSE,       // streamed first round: one-list tiles whose A was read at candidates
    C_LOOPT,        // streamed first round: such tiles read whole (a self-loop candidate)
    C_PULLA,        // streamed first round: bytes of A copied for tiles spanning lists
    C_PSPARSE,      // first round, the device prefix: one-list tiles (as C_SPARSE)
    C_PLOOPT,       // first round, the device prefix: such tiles read whole (C_LOOPT)
    C_RANKT,        // in-place executor: tiles the cache's fills by rank walked (k_hfill)
    C_NCTR
};
static_assert(C_LOOPT == C_SPARSE + 1 && C_PLOOPT == C_PSPARSE + 1, "k_hfirst's tile counters");
constexpr size_t CTR_BYTES = 256;   // >= C_NCTR * 8
static_assert(C_NCTR * 8 <= CTR_BYTES, "counter slots");

typedef unsigned long long ull;

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }

__device__ __forceinline__ uint64_t gtid() { return (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ uint64_t gthreads() { return (uint64_t)gridDim.x * blockDim.x; }

// Warp-aggregated append: every lane of the warp must call it (convergent);
// returns the slot of a lane with want (undefined for the others).
__device__ __forceinline__ uint64_t warp_append(bool want, ull *ctr)
{
    const unsigned mask = __ballot_sync(FULL, want);
    if (!mask) return 0;
    const unsigned lane = lane_id();
    const int leader = __ffs(mask) - 1;
    ull base = 0;
    if ((int)lane == leader) base = atomicAdd(ctr, (ull)__popc(mask));
    base = __shfl_sync(FULL, base, leader);
    return base + (uint64_t)__popc(mask & ((1u << lane) - 1u));
}

// Per-tree minimum of a 64-bit candidate: lanes sharing tree t combine; the
// group's leader issues atomicMin when it beats the value it reads. t ==
// NONE32 for lanes without a candidate. All lanes must call.
__device__ __forceinline__ void tree_min64(uint32_t t, uint64_t c, uint64_t *best)
{
    const unsigned grp = __match_any_sync(FULL, t);
    const uint32_t hi = (uint32_t)(c >> 32), lo = (uint32_t)c;
    const uint32_t hmin = __reduce_min_sync(grp, hi);
    const uint32_t lmin = __reduce_min_sync(grp, hi == hmin ? lo : NONE32);
    if (t != NONE32 && (int)lane_id() == __ffs(grp) - 1) {
        const uint64_t b = (uint64_t)hmin << 32 | lmin;
        if (b < *(volatile uint64_t *)&best[t]) sgk_atomic_min_u64(&best[t], b);
    }
}

__device__ __forceinline__ void tree_min32(uint32_t t, uint32_t c, uint32_t *best)
{
    const unsigned grp = __match_any_sync(FULL, t);
    const uint32_t m = __reduce_min_sync(grp, c);
    if (t != NONE32 && (int)lane_id() == __ffs(grp) - 1) {
        if (m < *(volatile uint32_t *)&best[t]) atomicMin(&best[t], m);
    }
}

// An entry e (key << 32 | nbr) of vertex v as its tree's candidate: the
// minimum's word key << 32 | min(v, nbr) (candA, bestA) and the tie-break
// word max(v, nbr) (candB, bestB).
__device__ __forceinline__ uint64_t tree_key(uint64_t e, uint32_t v)
{
    const uint32_t nb = (uint32_t)e;
    return (e >> 32) << 32 | (v < nb ? v : nb);
}

__device__ __forceinline__ uint32_t tree_tie(uint64_t e, uint32_t v)
{
    const uint32_t nb = (uint32_t)e;
    return v < nb ? nb : v;
}

__device__ __forceinline__ void put_cand(uint64_t e, uint32_t v, uint64_t *candA, uint32_t *candB,
                                         uint64_t i)
{
    candA[i] = tree_key(e, v);
    candB[i] = tree_tie(e, v);
}

// ------------------------------------------------------------ preprocessing kernels

__global__ void k_fill(const uint32_t *__restrict__ a, const uint32_t *__restrict__ w, bool f32,
                       uint64_t m, uint64_t *__restrict__ E)
{
    for (uint64_t p = gtid(); p < m; p += gthreads())
        E[p] = (uint64_t)sgk_weight_key(f32, w[p]) << 32 | a[p];
}

// Longest list, the lists longer than BIG_SEG (ids into big, at most cap),
// and x[0].
__global__ void k_scan_degrees(const uint64_t *__restrict__ x, uint64_t n, uint32_t *big,
                               uint64_t cap, ull *ctr)
{
    uint64_t mx = 0;
    const uint64_t span = gthreads();
    const uint64_t base0 = gtid() - lane_id();
    for (uint64_t b = base0; b < n; b += span) {
        const uint64_t v = b + lane_id();
        uint64_t d = 0;
        if (v < n) d = x[v + 1] - x[v];
        if (d > mx) mx = d;
        const bool isbig = v < n && d > BIG_SEG;
        const uint64_t slot = warp_append(isbig, &ctr[C_NBIG]);
        if (isbig && slot < cap) big[slot] = (uint32_t)v;
    }
    for (int o = 16; o > 0; o >>= 1) {
        const uint64_t y = __shfl_down_sync(FULL, mx, o);
        if (y > mx) mx = y;
    }
    if (lane_id() == 0) atomicMax(&ctr[C_MAXDEG], (ull)mx);
    if (gtid() == 0) ctr[C_X0] = x[0];
}

// The batch after s0: largest s1 in (s0, n] with x[s1] - x[s0] <= cap (at
// least s0 + 1). One thread.
__global__ void k_batch_end(const uint64_t *__restrict__ x, uint64_t n, uint64_t s0, uint64_t cap,
                            ull *ctr)
{
    if (gtid() != 0) return;
    const uint64_t base = x[s0];
    uint64_t lo = s0 + 1, hi = n; // answer in [lo, hi]
    if (x[lo] - base > cap) {
        hi = lo;
    } else {
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo + 1) / 2;
            if (x[mid] - base <= cap) lo = mid;
            else hi = mid - 1;
        }
    }
    ctr[C_B0] = hi;
    ctr[C_B1] = x[hi];
}

// Batch offsets relative to base; long lists become empty segments.
__global__ void k_batch_offsets(const uint64_t *__restrict__ x, uint64_t s0, uint64_t ns,
                                uint64_t base, int64_t *beg, int64_t *end)
{
    for (uint64_t i = gtid(); i < ns; i += gthreads()) {
        const uint64_t b = x[s0 + i] - base, e = x[s0 + i + 1] - base;
        beg[i] = (int64_t)b;
        end[i] = (int64_t)(e - b > BIG_SEG ? b : e);
    }
}

__global__ void k_init(const uint64_t *__restrict__ x, uint64_t n, uint32_t *comp, uint64_t *lo,
                       uint64_t *bestA, uint32_t *bestB, uint32_t *ids, uint8_t *flags)
{
    for (uint64_t v = gtid(); v < n; v += gthreads()) {
        const uint64_t b = x[v];
        comp[v] = (uint32_t)v;
        lo[v] = b;
        bestA[v] = NONE64;
        bestB[v] = NONE32;
        ids[v] = (uint32_t)v;
        flags[v] = x[v + 1] > b;
    }
}

// ------------------------------------------------------------ vertex-mode kernels
// A, B and C read the lists through an entry source and write candidates
// through a sink, so that one code serves the in-core executor (E in
// device memory; candidates as (key << 32 | min, max, tree)) and the
// in-place executor over lists in weight order (A and W where they live;
// a candidate per scan position as key << 32 | nbr).

// E in device memory (in core).
struct EntDev {
    const uint64_t *E;
    __device__ __forceinline__ uint32_t nbr(uint64_t q) const { return (uint32_t)E[q]; }
    __device__ __forceinline__ uint64_t ent(uint64_t q) const { return E[q]; }
    __device__ __forceinline__ uint64_t host_nbr(uint64_t, uint64_t) const { return 0; }
    __device__ __forceinline__ uint64_t host_ent(uint64_t) const { return 0; }
};
// A and W where they live (device prefix or host memory), lists in weight
// order; W is read only for the entry chosen. host_*: bytes read from host
// memory (the executor's host_list_bytes).
struct EntInPlace {
    sgk_arr<uint32_t> a, w;
    bool f32;
    __device__ __forceinline__ uint32_t nbr(uint64_t q) const { return a[q]; }
    __device__ __forceinline__ uint64_t ent(uint64_t q) const
    {
        return (uint64_t)sgk_weight_key(f32, w[q]) << 32 | a[q];
    }
    __device__ __forceinline__ uint64_t host_nbr(uint64_t lo, uint64_t hi) const
    {
        return 4 * a.host_count(lo, hi);
    }
    __device__ __forceinline__ uint64_t host_ent(uint64_t q) const
    {
        return 4 * (a.host_count(q, q + 1) + w.host_count(q, q + 1));
    }
};

// The in-core candidates: candA (key << 32 | min), candB (max), candT (the
// tree), per scan-list item.
struct SinkCore {
    uint64_t *candA;
    uint32_t *candB, *candT;
    __device__ __forceinline__ void tree(uint64_t i, uint32_t t) const { candT[i] = t; }
    __device__ __forceinline__ uint32_t tree_of(uint64_t i, uint32_t, const uint32_t *) const
    {
        return candT[i];
    }
    __device__ __forceinline__ void put(uint64_t e, uint32_t v, uint64_t i) const
    {
        put_cand(e, v, candA, candB, i);
    }
    __device__ __forceinline__ void none(uint64_t i) const { candA[i] = NONE64; }
};
// The in-place executor's: cand[i] = key << 32 | nbr (NONE64: none); the
// tree is comp[v].
struct SinkVertex {
    uint64_t *cand;
    __device__ __forceinline__ void tree(uint64_t, uint32_t) const {}
    __device__ __forceinline__ uint32_t tree_of(uint64_t, uint32_t v, const uint32_t *comp) const
    {
        return comp[v];
    }
    __device__ __forceinline__ void put(uint64_t e, uint32_t, uint64_t i) const { cand[i] = e; }
    __device__ __forceinline__ void none(uint64_t i) const { cand[i] = NONE64; }
};

// A: thread per scanned vertex. probe == false queues every segment.
template <class XA, class ES, class SK>
__global__ void k_probe(const uint32_t *__restrict__ scan, uint64_t ns, XA x, ES E,
                        const uint64_t *__restrict__ lo, const uint32_t *__restrict__ comp, SK sk,
                        uint32_t *unres, bool probe, ull *ctr)
{
    const uint64_t span = gthreads();
    uint64_t hostb = 0;
    for (uint64_t b = gtid() - lane_id(); b < ns; b += span) {
        const uint64_t i = b + lane_id();
        bool queue = false;
        if (i < ns) {
            const uint32_t v = scan[i];
            const uint32_t t = comp[v];
            const uint64_t p = lo[v], end = x[v + 1];
            sk.tree(i, t);
            if (p >= end) {
                sk.none(i);
            } else if (!probe) {
                queue = true;
            } else {
                const uint32_t nb = E.nbr(p);
                hostb += E.host_nbr(p, p + 1);
                if (comp[nb] != t) {
                    sk.put(E.ent(p), v, i);
                    hostb += E.host_ent(p);
                } else {
                    queue = true;
                }
            }
        }
        const uint64_t slot = warp_append(queue, &ctr[C_UNRES]);
        if (queue) unres[slot] = (uint32_t)i;
    }
    sgk_warp_add(hostb, &ctr[C_HOSTB]);
}

// B: warp per queued segment.
template <class XA, class ES, class SK>
__global__ void k_warp_scan(const uint32_t *__restrict__ scan, const uint32_t *__restrict__ unres,
                            XA x, ES E, uint64_t *lo, const uint32_t *__restrict__ comp, SK sk,
                            uint32_t *heavy, ull *ctr)
{
    const uint64_t count = ctr[C_UNRES];
    const uint64_t nwarps = gthreads() / 32;
    const unsigned lane = lane_id();
    uint64_t skipped = 0, hostb = 0;
    for (uint64_t wi = gtid() / 32; wi < count; wi += nwarps) {
        const uint32_t i = unres[wi];
        const uint32_t v = scan[i];
        const uint32_t t = sk.tree_of(i, v, comp);
        const uint64_t p0 = lo[v], end = x[v + 1];
        uint64_t p = p0;
        uint64_t pos = NONE64;
        for (int r = 0; r < WARP_ROUNDS && p < end && pos == NONE64; r++) {
            const int u = r == 0 ? 1 : 4;
            uint32_t nb[4];
            bool leave[4];
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const uint64_t q = p + (uint64_t)j * 32 + lane;
                nb[j] = (j < u && q < end) ? E.nbr(q) : 0;
            }
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const uint64_t q = p + (uint64_t)j * 32 + lane;
                leave[j] = j < u && q < end && comp[nb[j]] != t;
            }
            if (lane == 0) {
                const uint64_t adv = (uint64_t)u * 32;
                hostb += E.host_nbr(p, end - p > adv ? p + adv : end);
            }
#pragma unroll
            for (int j = 0; j < 4; j++) {
                if (j < u && pos == NONE64) { // warp-uniform
                    const unsigned bal = __ballot_sync(FULL, leave[j]);
                    if (bal) pos = p + (uint64_t)j * 32 + (uint64_t)(__ffs(bal) - 1);
                }
            }
            if (pos == NONE64) {
                const uint64_t adv = (uint64_t)u * 32;
                p = end - p > adv ? p + adv : end;
            }
        }
        if (lane == 0) {
            if (pos != NONE64) {
                skipped += pos - p0;
                lo[v] = pos;
                sk.put(E.ent(pos), v, i);
                hostb += E.host_ent(pos);
            } else if (p >= end) {
                skipped += end - p0;
                lo[v] = end;
                sk.none(i);
            } else {
                skipped += p - p0;
                lo[v] = p;
                heavy[atomicAdd(&ctr[C_HEAVY], 1ull)] = i;
            }
        }
    }
    sgk_warp_add(skipped, &ctr[C_SKIPPED]);
    sgk_warp_add(hostb, &ctr[C_HOSTB]);
}

// C: block per long segment.
template <class XA, class ES, class SK>
__global__ void __launch_bounds__(BLK)
    k_block_scan(const uint32_t *__restrict__ scan, const uint32_t *__restrict__ heavy, XA x,
                 ES E, uint64_t *lo, const uint32_t *__restrict__ comp, SK sk, ull *ctr)
{
    __shared__ ull smin;
    const uint64_t count = ctr[C_HEAVY];
    uint64_t hostb = 0;
    for (uint64_t bi = blockIdx.x; bi < count; bi += gridDim.x) {
        const uint32_t i = heavy[bi];
        const uint32_t v = scan[i];
        const uint32_t t = sk.tree_of(i, v, comp);
        const uint64_t p0 = lo[v], end = x[v + 1];
        uint64_t p = p0, pos = NONE64;
        for (;;) {
            if (threadIdx.x == 0) smin = NONE64;
            __syncthreads();
            if (p >= end) break; // block-uniform
            uint64_t mine = NONE64;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const uint64_t q = p + (uint64_t)j * BLK + threadIdx.x;
                if (q < end && mine == NONE64 && comp[E.nbr(q)] != t) mine = q;
            }
            if (mine != NONE64) atomicMin(&smin, (ull)mine);
            __syncthreads();
            pos = smin;
            const uint64_t adv = (uint64_t)4 * BLK;
            if (threadIdx.x == 0) hostb += E.host_nbr(p, end - p > adv ? p + adv : end);
            if (pos != NONE64) break; // block-uniform
            p = end - p > adv ? p + adv : end;
            __syncthreads(); // all have read smin before it is reset
        }
        if (threadIdx.x == 0) {
            if (pos != NONE64) {
                atomicAdd(&ctr[C_SKIPPED], (ull)(pos - p0));
                lo[v] = pos;
                sk.put(E.ent(pos), v, i);
                hostb += E.host_ent(pos);
            } else {
                atomicAdd(&ctr[C_SKIPPED], (ull)(end - p0));
                lo[v] = end;
                sk.none(i);
            }
        }
        __syncthreads(); // smin reuse across items
    }
    if (threadIdx.x == 0 && hostb) atomicAdd(&ctr[C_HOSTB], (ull)hostb);
}

// D1 / D2: per-tree minima over a list of candidates. S::get(i, ns, a, b)
// gives item i's tree (NONE32 when it has no candidate, or i >= ns) and
// its candidate as a = key << 32 | min(u, v), b = max(u, v). D1 takes the
// least a per tree, D2 the least b among the items that hold their tree's
// a (ties of weight and lower end).
template <class S> __global__ void k_reduce1(uint64_t ns, S src, uint64_t *bestA)
{
    const uint64_t span = gthreads();
    for (uint64_t b = gtid() - lane_id(); b < ns; b += span) {
        uint64_t ca = NONE64;
        uint32_t cb = NONE32;
        const uint32_t t = src.get(b + lane_id(), ns, ca, cb);
        tree_min64(t, ca, bestA);
    }
}

template <class S>
__global__ void k_reduce2(uint64_t ns, S src, const uint64_t *__restrict__ bestA, uint32_t *bestB)
{
    const uint64_t span = gthreads();
    for (uint64_t b = gtid() - lane_id(); b < ns; b += span) {
        uint64_t ca = NONE64;
        uint32_t cb = NONE32;
        uint32_t t = src.get(b + lane_id(), ns, ca, cb);
        if (t != NONE32 && bestA[t] != ca) t = NONE32;
        tree_min32(t, t != NONE32 ? cb : NONE32, bestB);
    }
}

// The in-core executor's candidates: candA (key << 32 | min), candB (max),
// candT (the tree), per scan-list item.
struct EdgeCands {
    const uint64_t *candA;
    const uint32_t *candB, *candT;
    __device__ __forceinline__ uint32_t get(uint64_t i, uint64_t ns, uint64_t &a, uint32_t &b) const
    {
        if (i >= ns) return NONE32;
        const uint64_t c = candA[i];
        if (c == NONE64) return NONE32;
        a = c;
        b = candB[i];
        return candT[i];
    }
};

// ------------------------------------------------------------ merge kernels (both modes)

// E1: the tree each tree chose (itself when it has no leaving edge).
__global__ void k_choose(uint64_t k, const uint64_t *__restrict__ bestA,
                         const uint32_t *__restrict__ bestB, const uint32_t *__restrict__ comp,
                         uint32_t *nxt)
{
    for (uint64_t t = gtid(); t < k; t += gthreads()) {
        const uint64_t c = bestA[t];
        if (c == NONE64) {
            nxt[t] = (uint32_t)t;
            continue;
        }
        const uint32_t cu = comp[(uint32_t)c];
        nxt[t] = cu == (uint32_t)t ? comp[bestB[t]] : cu;
    }
}

// E2: 2-cycles towards the smaller id; the others record their edge. A
// block takes a tile of BLK * ILP trees, each thread ILP of them, their
// choices read first and the choices' choices next (ILP reads in flight,
// not one), and the tile's records take their slots by one block scan and
// one atomic on C_OUT. A warp at a time, one atomic per 32 trees on that
// one counter (2.1 M in SSCA2 26's first round), took 4.3 ms there against
// 3.1 (docs/benchmarks.md, thirty-sixth session). The records' order is
// the tiles'; the forest is sorted at the end.
constexpr int ILP = 4;
__global__ void __launch_bounds__(BLK) k_record(uint64_t k, const uint32_t *__restrict__ nxt,
                                               const uint64_t *__restrict__ bestA,
                                               const uint32_t *__restrict__ bestB, uint32_t *par,
                                               uint32_t *ou, uint32_t *ov, uint32_t *ow,
                                               uint64_t cap, bool f32, ull *ctr)
{
    using Scan = cub::BlockScan<int, BLK>;
    __shared__ typename Scan::TempStorage ts;
    __shared__ ull base;
    const uint64_t tile = (uint64_t)BLK * ILP;
    for (uint64_t b = blockIdx.x * tile; b < k; b += (uint64_t)gridDim.x * tile) {
        uint32_t q[ILP], back[ILP];
#pragma unroll
        for (int j = 0; j < ILP; j++) {
            const uint64_t t = b + (uint64_t)j * BLK + threadIdx.x;
            q[j] = t < k ? nxt[t] : (uint32_t)t;
        }
#pragma unroll
        for (int j = 0; j < ILP; j++) {
            const uint64_t t = b + (uint64_t)j * BLK + threadIdx.x;
            back[j] = t < k && q[j] != (uint32_t)t ? nxt[q[j]] : NONE32;
        }
        int cnt = 0;
#pragma unroll
        for (int j = 0; j < ILP; j++) {
            const uint64_t t = b + (uint64_t)j * BLK + threadIdx.x;
            if (t >= k) continue;
            if (q[j] != (uint32_t)t && back[j] == (uint32_t)t && (uint32_t)t < q[j])
                q[j] = (uint32_t)t;
            par[t] = q[j];
            cnt += q[j] != (uint32_t)t;
        }
        int off = 0, total = 0;
        Scan(ts).ExclusiveSum(cnt, off, total);
        if (threadIdx.x == 0) base = total ? atomicAdd(&ctr[C_OUT], (ull)total) : 0;
        __syncthreads();
        uint64_t slot = base + (uint64_t)off;
#pragma unroll
        for (int j = 0; j < ILP; j++) {
            const uint64_t t = b + (uint64_t)j * BLK + threadIdx.x;
            if (t >= k || q[j] == (uint32_t)t) continue;
            if (slot < cap) {
                const uint64_t c = bestA[t];
                ou[slot] = (uint32_t)c;
                ov[slot] = bestB[t];
                ow[slot] = sgk_weight_unkey(f32, (uint32_t)(c >> 32));
            }
            slot++;
        }
        __syncthreads(); // ts and base again
    }
}

// E3: pointer jumping, up to JUMPS jumps per thread per launch. A racing
// read sees an old or a new parent: an ancestor either way, and a root's
// parent never changes. C_FLAG is set when some thread stopped short of
// its root (a chain longer than its jumps): only then is another launch
// needed. Where every thread reached its root, every parent is a root
// after one launch; the earlier rule (set on any change: roots false,
// "jump-roots" disabled) always took a second launch to see none. With 8
// jumps SSCA2 26's first round took a second launch (2.58 + 1.46 ms);
// with 32 one (2.89 ms): a thread with a short chain stops early.
constexpr int JUMPS = 32;
__global__ void k_jump(uint64_t k, uint32_t *par, ull *ctr, bool roots)
{
    volatile uint32_t *vp = par;
    bool short_of_root = false;
    for (uint64_t t = gtid(); t < k; t += gthreads()) {
        const uint32_t p0 = vp[t];
        uint32_t p = p0;
        bool root = false;
        for (int j = 0; j < JUMPS; j++) {
            const uint32_t pp = vp[p];
            if (pp == p) {
                root = true;
                break;
            }
            p = pp;
        }
        if (p != p0) vp[t] = p;
        short_of_root |= roots ? !root : p != p0;
    }
    if (__any_sync(FULL, short_of_root) && lane_id() == 0) ctr[C_FLAG] = 1;
}

// E4: live-root flags (into nxt), scanned into rn by CUB.
__global__ void k_rflag(uint64_t k, const uint32_t *__restrict__ par,
                        const uint64_t *__restrict__ bestA, uint32_t *flag)
{
    for (uint64_t t = gtid(); t < k; t += gthreads())
        flag[t] = par[t] == (uint32_t)t && bestA[t] != NONE64 ? 1u : 0u;
}

// E5: roots without an edge get NONE; the new tree count.
__global__ void k_rfix(uint64_t k, const uint32_t *__restrict__ par,
                       const uint32_t *__restrict__ flag, uint32_t *rn, ull *ctr)
{
    for (uint64_t t = gtid(); t < k; t += gthreads()) {
        const uint32_t f = flag[t];
        if (t == k - 1) ctr[C_KNEW] = (ull)rn[t] + f;
        if (par[t] == (uint32_t)t && !f) rn[t] = NONE32;
    }
}

// E6: old -> new table (into nxt).
__global__ void k_newid(uint64_t k, const uint32_t *__restrict__ par,
                        const uint32_t *__restrict__ rn, uint32_t *nid)
{
    for (uint64_t t = gtid(); t < k; t += gthreads()) nid[t] = rn[par[t]];
}

// E7: every vertex of a live tree takes its new tree id.
__global__ void k_comp(uint64_t n, uint32_t *comp, const uint32_t *__restrict__ nid)
{
    for (uint64_t v = gtid(); v < n; v += gthreads()) {
        const uint32_t c = comp[v];
        if (c != NONE32) comp[v] = nid[c];
    }
}

// F: keep flags for the next scan list.
__global__ void k_keep(uint64_t ns, const uint32_t *__restrict__ scan,
                       const uint64_t *__restrict__ candA, const uint32_t *__restrict__ comp,
                       uint8_t *flags)
{
    for (uint64_t i = gtid(); i < ns; i += gthreads())
        flags[i] = candA[i] != NONE64 && comp[scan[i]] != NONE32;
}

// Entries left in the live segments (C_REMAIN) of the list of C_NSEL.
template <class XA>
__global__ void k_remain(const uint32_t *__restrict__ scan, XA x, const uint64_t *__restrict__ lo,
                         ull *ctr)
{
    const uint64_t ns = ctr[C_NSEL];
    const uint64_t span = gthreads();
    uint64_t sum = 0;
    for (uint64_t i = gtid(); i < ns; i += span) {
        const uint32_t v = scan[i];
        sum += x[v + 1] - lo[v];
    }
    sgk_warp_add(sum, &ctr[C_REMAIN]);
}

__global__ void k_tree_keys(uint64_t ns, const uint32_t *__restrict__ scan,
                            const uint32_t *__restrict__ comp, uint32_t *keys)
{
    for (uint64_t i = gtid(); i < ns; i += gthreads()) keys[i] = comp[scan[i]];
}

__global__ void k_reset_best(uint64_t k, uint64_t *bestA, uint32_t *bestB)
{
    for (uint64_t t = gtid(); t < k; t += gthreads()) {
        bestA[t] = NONE64;
        bestB[t] = NONE32;
    }
}

// ------------------------------------------------------------ contraction kernels

// Remaining length of each scanned segment; len[ns] = 0 (for the scan).
template <class XA, class LO>
__global__ void k_lens(uint64_t ns, const uint32_t *__restrict__ scan, XA x, LO lo, uint64_t *len)
{
    for (uint64_t i = gtid(); i <= ns; i += gthreads()) {
        if (i == ns) {
            len[i] = 0;
        } else {
            const uint32_t v = scan[i];
            len[i] = x[v + 1] - lo[v];
        }
    }
}

// The inter-tree edges (copy with v < nbr) of the R remaining entries.
// off: exclusive sums of the lengths (ns + 1, off[ns] = R). Each thread
// takes 8 consecutive entries (a binary search for the first).
// A lane's walk over the numbered entries of the scan list's segments (off:
// exclusive sums of their lengths, off[ns] = the total), in increasing j:
// the segment s holding j, its vertex v, v's tree t, and j's place in the
// list arrays (the segment starts at start[v]: lo in core, X in place).
struct SegWalk {
    uint64_t s = 0, base = 0, soff = 0;
    uint32_t v = 0, t = 0;
    bool have = false;
    // s = the largest in [0, ns) with off[s] <= j (j < off[ns])
    __device__ __forceinline__ void seek(const uint64_t *__restrict__ off, uint64_t ns, uint64_t j)
    {
        uint64_t l = 0, h = ns - 1;
        while (l < h) {
            const uint64_t mid = l + (h - l + 1) / 2;
            if (off[mid] <= j) l = mid;
            else h = mid - 1;
        }
        s = l;
        have = false;
    }
    template <class Start>
    __device__ __forceinline__ uint64_t at(uint64_t j, const uint64_t *__restrict__ off,
                                           const uint32_t *__restrict__ scan,
                                           const uint32_t *__restrict__ comp, const Start &start)
    {
        while (off[s + 1] <= j) {
            s++;
            have = false;
        }
        if (!have) {
            v = scan[s];
            t = comp[v];
            base = start[v];
            soff = off[s];
            have = true;
        }
        return base + (j - soff);
    }
};

// The largest s in [0, ns) with off[s] <= j (j < off[ns]), found by the
// whole warp (all lanes call, with the same j): 32 probes a step, ~6
// dependent reads for 2^26 lists where one lane's binary search makes 26
// (the copy kernels run on one block per multiprocessor, and there the
// search's latency bound them).
__device__ __forceinline__ uint64_t warp_seek(const uint64_t *__restrict__ off, uint64_t ns,
                                              uint64_t j)
{
    uint64_t lo = 0, hi = ns - 1; // off[lo] <= j; the answer is in [lo, hi]
    while (hi > lo) {
        const uint64_t w = hi - lo;
        const uint64_t m = lo + ((uint64_t)(lane_id() + 1) * w + 31) / 32; // m(31) = hi
        const unsigned le = __ballot_sync(FULL, off[m] <= j);              // a prefix of lanes
        const int c = __popc(le);
        if (c == 0) {
            hi = lo + (w + 31) / 32 - 1; // below m(0)
        } else {
            const uint64_t mc = lo + ((uint64_t)c * w + 31) / 32; // m(c - 1)
            const uint64_t mn = lo + ((uint64_t)(c + 1) * w + 31) / 32; // m(c)
            if (c < 32) hi = mn - 1;
            lo = mc;
        }
    }
    return lo;
}

constexpr int CB_PER = 8;
__global__ void k_cbuild(uint64_t ns, uint64_t R, const uint64_t *__restrict__ off,
                         const uint32_t *__restrict__ scan, const uint64_t *__restrict__ lo,
                         const uint64_t *__restrict__ E, const uint32_t *__restrict__ comp,
                         uint32_t *ck, uint32_t *cmn, uint32_t *cmx, uint32_t *cta, uint32_t *ctb,
                         uint64_t cap, ull *ctr)
{
    const uint64_t span = gthreads() * CB_PER;
    uint64_t skipped = 0;
    for (uint64_t b = (gtid() - lane_id()) * CB_PER; b < R; b += span) {
        const uint64_t j0 = b + (uint64_t)lane_id() * CB_PER;
        SegWalk sw;
        if (j0 < R) sw.seek(off, ns, j0);
        for (int r = 0; r < CB_PER; r++) { // warp-uniform trip count
            const uint64_t j = j0 + (uint64_t)r;
            bool emit = false;
            uint64_t e = 0;
            uint32_t tn = 0;
            if (j < R) {
                e = E[sw.at(j, off, scan, comp, lo)];
                const uint32_t nb = (uint32_t)e;
                tn = comp[nb];
                if (tn == sw.t) skipped++;
                else emit = sw.v < nb;
            }
            const uint64_t slot = warp_append(emit, &ctr[C_NE]);
            if (emit && slot < cap) {
                ck[slot] = (uint32_t)(e >> 32);
                cmn[slot] = sw.v;
                cmx[slot] = (uint32_t)e;
                cta[slot] = sw.t;
                ctb[slot] = tn;
            }
        }
    }
    sgk_warp_add(skipped, &ctr[C_SKIPPED]);
}

// Edge mode D1 / D2.
__global__ void k_ereduce1(uint64_t ne, const uint32_t *__restrict__ ck,
                           const uint32_t *__restrict__ cmn, const uint32_t *__restrict__ cta,
                           const uint32_t *__restrict__ ctb, uint64_t *bestA)
{
    const uint64_t span = gthreads();
    for (uint64_t b = gtid() - lane_id(); b < ne; b += span) {
        const uint64_t i = b + lane_id();
        uint64_t c = NONE64;
        uint32_t ta = NONE32, tb = NONE32;
        if (i < ne) {
            c = (uint64_t)ck[i] << 32 | cmn[i];
            ta = cta[i];
            tb = ctb[i];
        }
        tree_min64(ta, c, bestA);
        tree_min64(tb, c, bestA);
    }
}

__global__ void k_ereduce2(uint64_t ne, const uint32_t *__restrict__ ck,
                           const uint32_t *__restrict__ cmn, const uint32_t *__restrict__ cmx,
                           const uint32_t *__restrict__ cta, const uint32_t *__restrict__ ctb,
                           const uint64_t *__restrict__ bestA, uint32_t *bestB)
{
    const uint64_t span = gthreads();
    for (uint64_t b = gtid() - lane_id(); b < ne; b += span) {
        const uint64_t i = b + lane_id();
        uint32_t ta = NONE32, tb = NONE32, mx = NONE32;
        if (i < ne) {
            const uint64_t c = (uint64_t)ck[i] << 32 | cmn[i];
            const uint32_t a = cta[i], bb = ctb[i];
            mx = cmx[i];
            if (bestA[a] == c) ta = a;
            if (bestA[bb] == c) tb = bb;
        }
        tree_min32(ta, ta != NONE32 ? mx : NONE32, bestB);
        tree_min32(tb, tb != NONE32 ? mx : NONE32, bestB);
    }
}

// Edge mode: relabel through the old -> new table and drop internal edges.
__global__ void k_ecompact(uint64_t ne, const uint32_t *__restrict__ nid,
                           const uint32_t *__restrict__ ck, const uint32_t *__restrict__ cmn,
                           const uint32_t *__restrict__ cmx, const uint32_t *__restrict__ cta,
                           const uint32_t *__restrict__ ctb, uint32_t *dk, uint32_t *dmn,
                           uint32_t *dmx, uint32_t *dta, uint32_t *dtb, ull *ctr)
{
    const uint64_t span = gthreads();
    for (uint64_t b = gtid() - lane_id(); b < ne; b += span) {
        const uint64_t i = b + lane_id();
        bool keep = false;
        uint32_t na = 0, nb = 0;
        if (i < ne) {
            na = nid[cta[i]];
            nb = nid[ctb[i]];
            keep = na != nb && na != NONE32 && nb != NONE32;
        }
        const uint64_t slot = warp_append(keep, &ctr[C_NE]);
        if (keep) {
            dk[slot] = ck[i];
            dmn[slot] = cmn[i];
            dmx[slot] = cmx[i];
            dta[slot] = na;
            dtb[slot] = nb;
        }
    }
}

// ------------------------------------------------------------ in-place executor kernels
// (sgk_mst_inplace: unsorted lists read where they live, device or host)

constexpr int HT_STEPS = 8; // a warp's tile: HT_STEPS x 32 consecutive list entries

__global__ void k_hinit(sgk_arr<uint64_t> x, uint64_t n, uint32_t *comp, uint32_t *ids,
                        uint8_t *flags)
{
    for (uint64_t v = gtid(); v < n; v += gthreads()) {
        comp[v] = (uint32_t)v;
        ids[v] = (uint32_t)v;
        flags[v] = x[v + 1] > x[v];
    }
}

// Tree ids of the vertices with a list, dense: the i-th of the scan list
// (ascending) takes tree i; comp was set to NONE32 before, so a vertex
// without a list is a finished tree from the start.
__global__ void k_hrank(uint64_t ns, const uint32_t *__restrict__ scan, uint32_t *comp)
{
    for (uint64_t i = gtid(); i < ns; i += gthreads()) comp[scan[i]] = (uint32_t)i;
}

// lo[v] = x[v]: every list read from its head (lists in weight order).
__global__ void k_lo_init(sgk_arr<uint64_t> x, uint64_t n, uint64_t *lo)
{
    for (uint64_t v = gtid(); v < n; v += gthreads()) lo[v] = x[v];
}

// The offsets of every vertex's list, the scan list being all n vertices:
// off[v] = x[v] - x[0], v <= n (k_hlens and a scan give the same: on
// SSCA2 26, 0.9 ms for the two against one pass).
__global__ void k_xoff(uint64_t n, sgk_arr<uint64_t> x, uint64_t *off)
{
    const uint64_t x0 = x[0];
    for (uint64_t v = gtid(); v <= n; v += gthreads()) off[v] = x[v] - x0;
}

// List length of each scan-list vertex; len[ns] = 0 (for the scan).
__global__ void k_hlens(uint64_t ns, const uint32_t *__restrict__ scan, sgk_arr<uint64_t> x,
                        uint64_t *len)
{
    for (uint64_t i = gtid(); i <= ns; i += gthreads()) {
        if (i == ns) {
            len[i] = 0;
        } else {
            const uint32_t v = scan[i];
            len[i] = x[v + 1] - x[v];
        }
    }
}

// The vertex cache (in-place executor): K slots per vertex, vc[v K + s],
// holding the K lightest entries (key << 32 | nbr, ascending, NONE64 for
// none) that left v's tree when v's list was last read. Trees only grow, so
// an entry inside its tree stays inside, and the first cached entry still
// leaving is v's candidate while one is; when all K are inside ("spent")
// every other leaving entry is >= the last slot, a lower bound on v's
// candidate; with fewer than K filled the list had no other leaving entry.

// Inserts x into the K ascending slots (the K smallest of all values
// offered, as a multiset, whatever the interleaving): slot s keeps the
// minimum of what reaches it and passes the larger value on.
__device__ __forceinline__ void cache_insert(uint64_t *slot, int K, uint64_t x)
{
    for (int s = 0; s < K && x != NONE64; s++) {
        if (x >= *(volatile uint64_t *)&slot[s]) continue; // atomicMin would pass x on
        const uint64_t old = sgk_atomic_min_u64(&slot[s], x);
        x = old > x ? old : x;
    }
}

// Lanes offering to vertex v (NONE32 for none) combine: the group's K
// smallest offers below v's last slot go in, one insert each by the
// group's leader. All lanes must call.
__device__ __forceinline__ void cache_offer(uint32_t v, uint64_t x, uint64_t *vc, int K)
{
    const unsigned grp = __match_any_sync(FULL, v);
    uint64_t *slot = vc + (uint64_t)v * (uint64_t)K;
    if (v == NONE32 || x >= *(volatile uint64_t *)&slot[K - 1]) x = NONE64;
    const bool leader = (int)lane_id() == __ffs(grp) - 1;
    for (int s = 0; s < K; s++) {
        const uint32_t hi = (uint32_t)(x >> 32);
        const uint32_t hmin = __reduce_min_sync(grp, hi);
        const uint32_t lmin = __reduce_min_sync(grp, hi == hmin ? (uint32_t)x : NONE32);
        const uint64_t mn = (uint64_t)hmin << 32 | lmin;
        if (mn == NONE64) break; // uniform within the group
        const unsigned holders = __ballot_sync(grp, x == mn);
        if ((int)lane_id() == __ffs(holders) - 1) x = NONE64;
        if (leader) cache_insert(slot, K, mn);
    }
}

// The entries of the scan list's lists, numbered 0..T-1 (off: exclusive sums
// of the lengths, off[ns] = T), in warp tiles of HT_STEPS x 32: at step r
// lane l takes entry tile + 32 r + l, so a warp reads 32 consecutive list
// entries per load (one 128-byte request from the host), and finds its
// vertex by one binary search per tile and then by walking forward.
// HW_FIND: each entry leaving its tree offers key << 32 | nbr to its
// vertex's candidate (lanes sharing a vertex combine, as for trees); for a
// fixed vertex this order is the tie order. W is read only for such entries.
// HW_FILL: the same offers go to the vertex cache (slots reset before).
// HW_GATHER: each leaving entry with v < nbr is appended to the contracted
// list. FIND and FILL count the leaving entries (C_INTER).
// Only the entries numbered [jlo, jhi) are walked (0, NONE64: all).
enum { HW_FIND = 0, HW_GATHER = 1, HW_FILL = 2 };

// Whether entry p of a graph array is read from host memory.
__device__ __forceinline__ bool on_host(const sgk_arr<uint32_t> &a, uint64_t p) { return p >= a.s; }

// A graph array with the piece [p0, p1) staged in a device buffer (buf[p -
// p0], copied there from the host by the streamed first round); other
// entries are read where they live.
struct StagedArr {
    sgk_arr<uint32_t> g;
    const uint32_t *buf;
    uint64_t p0, p1;
    __device__ __forceinline__ bool staged(uint64_t p) const { return p >= p0 && p < p1; }
    __device__ __forceinline__ uint32_t operator[](uint64_t p) const
    {
        return staged(p) ? buf[p - p0] : g[p];
    }
};
__device__ __forceinline__ bool on_host(const StagedArr &a, uint64_t p)
{
    return !a.staged(p) && p >= a.g.s;
}

// A or W of a graph with the piece [p0, p1) of its packed tail staged in a
// device buffer (sgk_graph_set_packed: entry p's 6 bytes at buf + 3 (p -
// p0) halfwords, w << bits | nb; one DMA a piece for both arrays): A's view
// takes the low `bits` (shift 0, mask 2^bits - 1), W's the rest (shift
// bits, mask all ones). Other entries are read where they live.
struct PackedArr {
    sgk_arr<uint32_t> g;
    const uint16_t *buf;
    uint64_t p0, p1;
    uint32_t shift, mask;
    __device__ __forceinline__ bool staged(uint64_t p) const { return p >= p0 && p < p1; }
    __device__ __forceinline__ uint32_t operator[](uint64_t p) const
    {
        if (!staged(p)) return g[p];
        const uint16_t *q = buf + 3 * (p - p0);
        const uint64_t e = (uint64_t)q[0] | (uint64_t)q[1] << 16 | (uint64_t)q[2] << 32;
        return (uint32_t)(e >> shift) & mask;
    }
};
__device__ __forceinline__ bool on_host(const PackedArr &a, uint64_t p)
{
    return !a.staged(p) && p >= a.g.s;
}

// The weights of a desc.w24 graph as the kernels read them: W16 and W8,
// each split where W would be, weight p = lo[p] | hi[p] << 16 (3 bytes).
struct W24Arr {
    sgk_arr<uint16_t> lo;
    sgk_arr<uint8_t> hi;
    __device__ __forceinline__ uint32_t operator[](uint64_t p) const
    {
        return (uint32_t)lo[p] | (uint32_t)hi[p] << 16;
    }
};
__device__ __forceinline__ bool on_host(const W24Arr &a, uint64_t p) { return p >= a.lo.s; }

// W24Arr with the piece [p0, p1) staged in device buffers (b16[p - p0],
// b8[p - p0]: copied there from the host by the streamed first round).
struct StagedW24 {
    W24Arr g;
    const uint16_t *b16;
    const uint8_t *b8;
    uint64_t p0, p1;
    __device__ __forceinline__ bool staged(uint64_t p) const { return p >= p0 && p < p1; }
    __device__ __forceinline__ uint32_t operator[](uint64_t p) const
    {
        return staged(p) ? (uint32_t)b16[p - p0] | (uint32_t)b8[p - p0] << 16 : g[p];
    }
};
__device__ __forceinline__ bool on_host(const StagedW24 &a, uint64_t p)
{
    return !a.staged(p) && p >= a.g.lo.s;
}

// The bytes an entry of a weight array takes (the host_list_bytes counters).
template <class WR> __device__ __forceinline__ uint32_t w_bytes(const WR &) { return 4; }
__device__ __forceinline__ uint32_t w_bytes(const W24Arr &) { return 3; }
__device__ __forceinline__ uint32_t w_bytes(const StagedW24 &) { return 3; }

// In place of W for the speculative gather's deferred weights
// ("defer-weights", gather_walk): entry p's "weight" is its position less
// base, which the walk (with f32 false: the key is the word itself) writes
// where the key would go; the host threads read W there after.
struct PosArr {
    uint64_t base;
    __device__ __forceinline__ uint32_t operator[](uint64_t p) const
    {
        return (uint32_t)(p - base);
    }
};
__device__ __forceinline__ bool on_host(const PosArr &, uint64_t) { return false; }

// The trees of a contracted list gathered without them (the speculative
// contraction's, which writes 12 bytes an edge while the cache stays): ta
// the tree of each edge's min, tb of its max.
__global__ void k_ctrees(uint64_t ne, const uint32_t *__restrict__ cmn,
                         const uint32_t *__restrict__ cmx, const uint32_t *__restrict__ comp,
                         uint32_t *__restrict__ ta, uint32_t *__restrict__ tb)
{
    for (uint64_t i = gtid(); i < ne; i += gthreads()) {
        ta[i] = comp[cmn[i]];
        tb[i] = comp[cmx[i]];
    }
}

// The streamed gather's pieces (the lists of an ascending scan list, list s
// at positions x[scan[s]] + [0, off[s + 1] - off[s])): jb[i] = the entries
// at positions below q = min(q0 + i P, qe), for i in [0, np].
template <class XS>
__global__ void k_gbounds(uint64_t np, uint64_t q0, uint64_t P, uint64_t qe, uint64_t ns,
                          const uint32_t *__restrict__ scan, const uint64_t *__restrict__ off,
                          XS x, uint64_t *__restrict__ jb)
{
    for (uint64_t i = gtid(); i <= np; i += gthreads()) {
        const uint64_t q = q0 + i * P < qe ? q0 + i * P : qe;
        uint64_t l = 0, h = ns; // the lists starting below q: [0, l)
        while (l < h) {
            const uint64_t mid = l + (h - l) / 2;
            if (x[scan[mid]] < q) l = mid + 1;
            else h = mid;
        }
        uint64_t j = 0;
        if (l > 0) {
            const uint64_t st = x[scan[l - 1]], len = off[l] - off[l - 1];
            j = off[l - 1] + (q - st < len ? q - st : len);
        }
        jb[i] = j;
    }
}

// The offer, tag or append of one walked entry (nb, its tree tn, key its
// weight key where read) of vertex v in tree t at scan position sp.
template <int MODE>
__device__ __forceinline__ void walk_emit(bool leave, uint32_t nb, uint32_t tn, uint32_t key,
                                          uint32_t v, uint32_t t, uint32_t sp, uint64_t *cand,
                                          uint64_t *vc, int K, uint32_t *ck, uint32_t *cmn,
                                          uint32_t *cmx, uint32_t *cta, uint32_t *ctb,
                                          uint64_t cap, ull *ctr)
{
    if (MODE == HW_FIND) {
        tree_min64(leave ? sp : NONE32, (uint64_t)key << 32 | nb, cand);
    } else if (MODE == HW_FILL) {
        cache_offer(leave ? v : NONE32, (uint64_t)key << 32 | nb, vc, K);
    } else {
        const bool emit = leave && v < nb;
        const uint64_t slot = warp_append(emit, &ctr[C_NE]);
        if (emit && slot < cap) {
            ck[slot] = key;
            cmn[slot] = v;
            cmx[slot] = nb;
            if (cta) { // (none: k_ctrees fills them after, from comp)
                cta[slot] = t;
                ctb[slot] = tn;
            }
        }
    }
}

// BATCH: a lane first issues the loads of its HT_STEPS entries of A
// together, then their trees, then the weights of those leaving, and only
// then makes its offers: HT_STEPS reads over PCIe in flight per lane where
// lists are read in place, instead of one read, then the dependent work,
// then the next. Used for walks of lists where they live ("walk-batch"
// disabled: entry by entry); the streamed first round's walks of staged
// pieces go entry by entry.
// x: where each walked list starts (X, or lo for lists in weight order).
template <int MODE, bool BATCH, class AR, class XS, class WR = AR>
__global__ void __launch_bounds__(BLK)
    k_hwalk(uint64_t ns, const uint64_t *__restrict__ off, const uint32_t *__restrict__ scan,
            XS x, AR a, WR w, bool f32, const uint32_t *__restrict__ comp,
            uint64_t *cand, uint64_t *vc, int K, uint32_t *ck, uint32_t *cmn, uint32_t *cmx,
            uint32_t *cta, uint32_t *ctb, uint64_t cap, uint64_t jlo, uint64_t jhi, ull *ctr)
{
    const uint64_t T = off[ns] < jhi ? off[ns] : jhi;
    if (jlo >= T) return;
    if (gtid() == 0) atomicAdd(&ctr[C_WALKED], (ull)(T - jlo));
    const uint64_t tile = 32ull * HT_STEPS;
    const uint64_t span = (gthreads() / 32) * tile;
    uint64_t skipped = 0, leaving = 0, hostb = 0;
    for (uint64_t b = jlo + (gtid() / 32) * tile; b < T; b += span) {
        uint64_t j = b + lane_id();
        SegWalk sw;
        if (j < T) sw.seek(off, ns, j);
        if (BATCH) {
            uint64_t pos[HT_STEPS];
            uint32_t nb[HT_STEPS], v[HT_STEPS], t[HT_STEPS], sp[HT_STEPS];
#pragma unroll
            for (int r = 0; r < HT_STEPS; r++) { // where each entry is; A's reads issued
                const uint64_t jr = j + 32ull * (uint64_t)r;
                nb[r] = 0;
                if (jr < T) {
                    pos[r] = sw.at(jr, off, scan, comp, x);
                    v[r] = sw.v;
                    t[r] = sw.t;
                    sp[r] = (uint32_t)sw.s;
                    nb[r] = a[pos[r]];
                    hostb += on_host(a, pos[r]) ? 4 : 0;
                }
            }
            uint32_t tn[HT_STEPS], key[HT_STEPS];
#pragma unroll
            for (int r = 0; r < HT_STEPS; r++) // their trees
                tn[r] = j + 32ull * (uint64_t)r < T ? comp[nb[r]] : 0;
            unsigned out = 0;
#pragma unroll
            for (int r = 0; r < HT_STEPS; r++) { // the weights of those leaving
                key[r] = 0;
                if (j + 32ull * (uint64_t)r >= T) continue;
                if (tn[r] != t[r]) {
                    out |= 1u << r;
                    leaving++;
                    if (MODE != HW_GATHER || v[r] < nb[r]) {
                        key[r] = sgk_weight_key(f32, w[pos[r]]);
                        hostb += on_host(w, pos[r]) ? w_bytes(w) : 0;
                    }
                } else {
                    skipped++;
                }
            }
#pragma unroll
            for (int r = 0; r < HT_STEPS; r++) { // warp-uniform: every lane takes part
                const bool in = j + 32ull * (uint64_t)r < T;
                walk_emit<MODE>((out >> r) & 1u, nb[r], tn[r], key[r], in ? v[r] : 0,
                                in ? t[r] : 0, in ? sp[r] : NONE32, cand, vc, K, ck, cmn, cmx,
                                cta, ctb, cap, ctr);
            }
        } else {
            for (int r = 0; r < HT_STEPS; r++, j += 32) { // warp-uniform trip count
                uint32_t nb = 0, tn = 0, key = 0;
                bool leave = false;
                if (j < T) {
                    const uint64_t p = sw.at(j, off, scan, comp, x);
                    nb = a[p];
                    hostb += on_host(a, p) ? 4 : 0;
                    tn = comp[nb];
                    leave = tn != sw.t;
                    if (leave) {
                        leaving++;
                        if (MODE != HW_GATHER || sw.v < nb) {
                            key = sgk_weight_key(f32, w[p]);
                            hostb += on_host(w, p) ? w_bytes(w) : 0;
                        }
                    } else {
                        skipped++;
                    }
                }
                walk_emit<MODE>(leave, nb, tn, key, sw.v, sw.t, (uint32_t)sw.s, cand, vc, K, ck,
                                cmn, cmx, cta, ctb, cap, ctr);
            }
        }
    }
    sgk_warp_add(skipped, &ctr[C_SKIPPED]);
    sgk_warp_add(hostb, &ctr[C_HOSTB]);
    if (MODE != HW_GATHER) sgk_warp_add(leaving, &ctr[C_INTER]);
}

// The vertex cache's fill by rank (k_hwalk's entries and counters, HW_FILL;
// tiles of HT_STEPS x 32 entries, each warp taking a run of consecutive
// tiles). Where a tile's entries lie in at most 32 lists, lane i reads list
// s + i's offsets, vertex, start and tree at once and each entry finds its
// list by counting list starts in a bitmap of the tile (a warp
// exchange), instead of a lane walking from list to list, a chain of
// dependent reads per list (SegWalk: the rest). A lane then reads A (and W
// in the first round) for its HT_STEPS entries together, puts each in the
// warp's shared memory as key << 32 | nbr (NONE64 for an entry inside its
// tree), and each leaving entry counts the entries of its list in the tile
// that come before it (by value, then tile position: the tie order). An
// entry of rank r < K is the list's (r + 1)-th lightest leaving entry in
// the tile: where the tile holds the whole list it goes straight into slot
// r, no atomic and no warp-wide exchange (k_hwalk's cache_offer runs K
// rounds of them each step and inserts by atomics); a list cut by the
// tile's ends offers its part's K lightest through cache_insert. A tile of
// one list takes its K lightest in K warp rounds instead (a comparison per
// entry pair would be 256 an entry). Slots are reset before. FIRST: every
// tree is one vertex (the first round): an entry leaves unless it is a
// self-loop, no tree id is read, and W is read with A.
template <bool FIRST, class AR, class XS, class WR = AR>
__global__ void __launch_bounds__(BLK)
    k_hfill(uint64_t ns, const uint64_t *__restrict__ off, const uint32_t *__restrict__ scan,
            XS x, AR a, WR w, bool f32, const uint32_t *__restrict__ comp, uint64_t *vc, int K,
            uint64_t jlo, uint64_t jhi, ull *ctr)
{
    constexpr int TILE = 32 * HT_STEPS;
    __shared__ uint64_t sx[BLK / 32][TILE];
    uint64_t *const tx = sx[threadIdx.x / 32];
    const uint64_t T = off[ns] < jhi ? off[ns] : jhi;
    if (jlo >= T) return;
    if (gtid() == 0) atomicAdd(&ctr[C_WALKED], (ull)(T - jlo));
    const unsigned ln = lane_id();
    const uint64_t nw = gthreads() / 32, wid = gtid() / 32;
    const uint64_t nt = (T - jlo + TILE - 1) / TILE, per = (nt + nw - 1) / nw;
    const uint64_t ta = wid * per < nt ? wid * per : nt, tb = ta + per < nt ? ta + per : nt;
    uint64_t skipped = 0, leaving = 0, hostb = 0, tiles = 0;
    uint64_t s = ta < tb ? warp_seek(off, ns, jlo + ta * TILE) : 0; // the tile's first list
    for (uint64_t ti = ta; ti < tb; ti++) {
        tiles++;
        const uint64_t b = jlo + ti * TILE, te = b + TILE < T ? b + TILE : T; // [b, te)
        const uint64_t j = b + ln;
        uint64_t pos[HT_STEPS];
        uint32_t v[HT_STEPS], nb[HT_STEPS], t[HT_STEPS], key[HT_STEPS];
        uint32_t rng[HT_STEPS]; // the list's tile positions lo | hi << 9 | whole << 18
        unsigned in = 0, out = 0;
        // lane i: list s + i, its entries [qs, qe)
        const uint64_t q = s + ln;
        const uint64_t qs = q < ns ? off[q] : NONE64, qe = q < ns ? off[q + 1] : NONE64;
        const bool cut = qs < te && qs == qe; // an empty list in the tile
        const bool fast = __shfl_sync(FULL, qe, 31) >= te && !__any_sync(FULL, cut);
        if (fast) { // lists s .. s + 31 hold the tile
            uint32_t qv = 0, qt = 0, qr = 0;
            uint64_t qb = 0;
            if (qs < te) {
                qv = scan[q];
                qb = x[qv] - qs; // entry j of the list is at qb + j
                qt = FIRST ? qv : comp[qv];
                const uint64_t lo = qs > b ? qs : b, hi = qe < te ? qe : te;
                qr = (uint32_t)(lo - b) | (uint32_t)(hi - b) << 9 |
                     (qs >= b && qe <= te ? 1u << 18 : 0u);
            }
            // the tile positions where a list after s starts, a word per row
            const bool starts = qs > b && qs < te;
            const unsigned srow = starts ? (unsigned)(qs - b) / 32 : HT_STEPS;
            const unsigned sbit = starts ? 1u << ((unsigned)(qs - b) % 32) : 0u;
            const unsigned upto = ln == 31 ? FULL : (2u << ln) - 1u; // lanes 0 .. ln
            unsigned before = 0; // list starts in the rows above
#pragma unroll
            for (int r = 0; r < HT_STEPS; r++) {
                const unsigned word = __reduce_or_sync(FULL, srow == (unsigned)r ? sbit : 0u);
                const unsigned i = before + __popc(word & upto); // the entry's list: s + i
                before += __popc(word);
                const uint64_t jr = j + 32ull * (uint64_t)r;
                const uint64_t eb = __shfl_sync(FULL, qb, (int)i);
                v[r] = __shfl_sync(FULL, qv, (int)i);
                t[r] = __shfl_sync(FULL, qt, (int)i);
                rng[r] = __shfl_sync(FULL, qr, (int)i);
                pos[r] = eb + jr;
                if (jr < T) in |= 1u << r;
            }
            s += __popc(__ballot_sync(FULL, qe <= te)); // the list holding te
        } else { // more than 32 lists, or empty ones: each lane walks them
            SegWalk sw;
            sw.s = s;
#pragma unroll
            for (int r = 0; r < HT_STEPS; r++) {
                const uint64_t jr = j + 32ull * (uint64_t)r;
                pos[r] = 0, v[r] = 0, t[r] = 0, rng[r] = 0;
                if (jr < T) {
                    pos[r] = sw.at(jr, off, scan, comp, x);
                    v[r] = sw.v;
                    t[r] = sw.t;
                    const uint64_t s0 = sw.soff, s1 = off[sw.s + 1];
                    const uint64_t lo = s0 > b ? s0 : b, hi = s1 < te ? s1 : te;
                    rng[r] = (uint32_t)(lo - b) | (uint32_t)(hi - b) << 9 |
                             (s0 >= b && s1 <= te ? 1u << 18 : 0u);
                    in |= 1u << r;
                }
            }
            if (te < T) s = warp_seek(off, ns, te);
        }
#pragma unroll
        for (int r = 0; r < HT_STEPS; r++) { // A's reads issued together (and W's)
            nb[r] = 0, key[r] = 0;
            if ((in >> r) & 1u) {
                nb[r] = a[pos[r]];
                hostb += on_host(a, pos[r]) ? 4 : 0;
                if (FIRST) {
                    key[r] = sgk_weight_key(f32, w[pos[r]]);
                    hostb += on_host(w, pos[r]) ? w_bytes(w) : 0;
                }
            }
        }
#pragma unroll
        for (int r = 0; r < HT_STEPS; r++) { // which leave; their weights
            if (!((in >> r) & 1u)) continue;
            if (FIRST ? nb[r] != v[r] : comp[nb[r]] != t[r]) {
                out |= 1u << r;
                if (!FIRST) {
                    key[r] = sgk_weight_key(f32, w[pos[r]]);
                    hostb += on_host(w, pos[r]) ? w_bytes(w) : 0;
                }
            }
        }
        leaving += __popc(out);
        skipped += __popc(in & ~out);
        bool mine = true; // one list: every entry of the tile is lane 0's first one's vertex's
        const uint32_t v0 = __shfl_sync(FULL, v[0], 0);
#pragma unroll
        for (int r = 0; r < HT_STEPS; r++)
            if (((in >> r) & 1u) && v[r] != v0) mine = false;
        if (__all_sync(FULL, mine)) { // K rounds of the warp's smallest, as k_hfirst
            const bool wh = (__shfl_sync(FULL, rng[0], 0) >> 18) & 1u;
            uint64_t *slot = vc + (uint64_t)v0 * (uint64_t)K;
            unsigned left = out;
            for (int k = 0; k < K; k++) {
                uint64_t lm = NONE64;
                int at = -1;
#pragma unroll
                for (int r = 0; r < HT_STEPS; r++) {
                    const uint64_t xv = (uint64_t)key[r] << 32 | nb[r];
                    if (((left >> r) & 1u) && (at < 0 || xv < lm)) lm = xv, at = r;
                }
                const uint32_t hmin = __reduce_min_sync(FULL, (uint32_t)(lm >> 32));
                const uint32_t lmin =
                    __reduce_min_sync(FULL, (uint32_t)(lm >> 32) == hmin ? (uint32_t)lm : NONE32);
                const uint64_t mn = (uint64_t)hmin << 32 | lmin;
                if (mn == NONE64) break; // uniform
                const unsigned hold = __ballot_sync(FULL, at >= 0 && lm == mn);
                if ((int)ln == __ffs(hold) - 1) left &= ~(1u << at);
                if (ln == 0) {
                    if (wh) slot[k] = mn;
                    else cache_insert(slot, K, mn);
                }
            }
            continue;
        }
#pragma unroll
        for (int r = 0; r < HT_STEPS; r++)
            tx[32 * r + ln] = (out >> r) & 1u ? (uint64_t)key[r] << 32 | nb[r] : NONE64;
        __syncwarp();
#pragma unroll
        for (int r = 0; r < HT_STEPS; r++) {
            if (!((out >> r) & 1u)) continue;
            const uint64_t xv = (uint64_t)key[r] << 32 | nb[r];
            const uint32_t e = 32u * (uint32_t)r + ln, hi = (rng[r] >> 9) & 511u;
            int rank = 0;
            for (uint32_t f = rng[r] & 511u; f < hi; f++) {
                const uint64_t y = tx[f];
                rank += y < xv || (y == xv && f < e);
            }
            if (rank >= K) continue;
            uint64_t *slot = vc + (uint64_t)v[r] * (uint64_t)K;
            if ((rng[r] >> 18) & 1u) slot[rank] = xv;
            else cache_insert(slot, K, xv);
        }
        __syncwarp(); // before the next tile's entries overwrite tx
    }
    sgk_warp_add(skipped, &ctr[C_SKIPPED]);
    sgk_warp_add(hostb, &ctr[C_HOSTB]);
    sgk_warp_add(leaving, &ctr[C_INTER]);
    if (ln == 0 && tiles > 0) atomicAdd(&ctr[C_RANKT], (ull)tiles);
}

// The streamed first round's fill, weights first (k_hwalk's tiles,
// HW_FILL; W staged whole; A staged by k_pull_mixed for the tiles that span
// lists, or read in place): a lane first reads the weights of its HT_STEPS
// entries. Where the warp's whole tile lies in one list, an entry can be
// among the list's K lightest leaving entries only if its weight key is at
// most the tile's K-th smallest (ties kept) and at most the key in the
// vertex's last cache slot; A is read where it lives for those entries
// alone: a 32-byte sector each instead of the tile's 1 KB over the link.
// In the first round every tree is one vertex, so the other entries leave
// unless they are self-loops: a tile with a self-loop among its candidates
// reads the rest of A in place too. The entries not read are counted as
// leaving (C_INTER stays an upper bound) and not as skipped. Counts the
// one-list tiles (tiles[0]: C_SPARSE, or C_PSPARSE for the device prefix)
// and those read whole (tiles[1]). Host bytes: 4 an entry read whole, 32 a
// candidate's sector. With nothing staged (buf null, p0 = p1) it walks
// lists where they live: the first round's device prefix.
template <class XS, int MINB, class WR = StagedArr>
__global__ void __launch_bounds__(BLK, MINB)
    k_hfirst(uint64_t ns, const uint64_t *__restrict__ off, const uint32_t *__restrict__ scan,
             XS x, StagedArr a, WR w, bool f32, const uint32_t *__restrict__ comp,
             uint64_t *vc, int K, uint64_t jlo, uint64_t jhi, ull *ctr, ull *tiles)
{
    const uint64_t T = off[ns] < jhi ? off[ns] : jhi;
    if (jlo >= T) return;
    if (gtid() == 0) atomicAdd(&ctr[C_WALKED], (ull)(T - jlo));
    const uint64_t tile = 32ull * HT_STEPS;
    const uint64_t span = (gthreads() / 32) * tile;
    uint64_t skipped = 0, leaving = 0, hostb = 0, sparse = 0, loops = 0;
    for (uint64_t b = jlo + (gtid() / 32) * tile; b < T; b += span) {
        const uint64_t j = b + lane_id();
        SegWalk sw; // each lane walks on from the list of the tile's first entry
        sw.s = warp_seek(off, ns, b);
        uint64_t pos[HT_STEPS];
        uint32_t v[HT_STEPS], t[HT_STEPS], key[HT_STEPS], nb[HT_STEPS], tn[HT_STEPS];
        unsigned in = 0; // the lane's entries below T
#pragma unroll
        for (int r = 0; r < HT_STEPS; r++) { // where each entry is; the weights
            const uint64_t jr = j + 32ull * (uint64_t)r;
            pos[r] = 0, v[r] = NONE32, t[r] = 0, key[r] = 0, nb[r] = 0, tn[r] = 0;
            if (jr < T) {
                pos[r] = sw.at(jr, off, scan, comp, x);
                v[r] = sw.v;
                t[r] = sw.t;
                key[r] = sgk_weight_key(f32, w[pos[r]]);
                hostb += on_host(w, pos[r]) ? w_bytes(w) : 0;
                in |= 1u << r;
            }
        }
        // one list: every entry of the tile is lane 0's first one's vertex's
        const uint32_t v0 = __shfl_sync(FULL, v[0], 0);
        bool mine = true;
#pragma unroll
        for (int r = 0; r < HT_STEPS; r++)
            if (((in >> r) & 1u) && v[r] != v0) mine = false;
        const bool one = __all_sync(FULL, mine);
        unsigned cand = in;
        if (one) {
            // the tile's K-th smallest key (as a multiset): K rounds, each
            // taking one instance of the warp's smallest left
            uint32_t thr = NONE32;
            unsigned left = in;
            for (int s = 0; s < K; s++) {
                uint32_t lm = NONE32;
                int at = -1;
#pragma unroll
                for (int r = 0; r < HT_STEPS; r++)
                    if (((left >> r) & 1u) && (at < 0 || key[r] < lm)) lm = key[r], at = r;
                if (__ballot_sync(FULL, at >= 0) == 0) { // fewer than K: all of them
                    thr = NONE32;
                    break;
                }
                thr = __reduce_min_sync(FULL, at >= 0 ? lm : NONE32);
                const unsigned hold = __ballot_sync(FULL, at >= 0 && lm == thr);
                if ((int)lane_id() == __ffs(hold) - 1) left &= ~(1u << at);
            }
            // what the vertex's cache already holds: a key above its last
            // slot's cannot enter
            const uint64_t last = *(volatile uint64_t *)&vc[(uint64_t)v0 * (uint64_t)K + K - 1];
            const uint32_t lhi = (uint32_t)(last >> 32);
            if (lhi < thr) thr = lhi;
            cand = 0;
#pragma unroll
            for (int r = 0; r < HT_STEPS; r++)
                if (((in >> r) & 1u) && key[r] <= thr) cand |= 1u << r;
        }
#pragma unroll
        for (int r = 0; r < HT_STEPS; r++) // A's reads issued together
            if ((cand >> r) & 1u) {
                if (one) { // in place: k_pull_mixed left this tile out
                    nb[r] = a.g[pos[r]];
                    hostb += on_host(a.g, pos[r]) ? 32 : 0;
                } else {
                    nb[r] = a[pos[r]];
                    hostb += on_host(a, pos[r]) ? 4 : 0;
                }
            }
#pragma unroll
        for (int r = 0; r < HT_STEPS; r++)
            if ((cand >> r) & 1u) tn[r] = comp[nb[r]];
        if (one) {
            bool stay = false;
#pragma unroll
            for (int r = 0; r < HT_STEPS; r++)
                if (((cand >> r) & 1u) && tn[r] == t[r]) stay = true;
            if (__any_sync(FULL, stay)) { // the lighter entries leaving may be too few
                const unsigned rest = in & ~cand;
#pragma unroll
                for (int r = 0; r < HT_STEPS; r++)
                    if ((rest >> r) & 1u) {
                        nb[r] = a.g[pos[r]];
                        hostb += on_host(a.g, pos[r]) ? 4 : 0;
                    }
#pragma unroll
                for (int r = 0; r < HT_STEPS; r++)
                    if ((rest >> r) & 1u) tn[r] = comp[nb[r]];
                cand = in;
                loops++;
            }
            sparse++;
        }
        unsigned out = 0;
#pragma unroll
        for (int r = 0; r < HT_STEPS; r++) {
            if (!((cand >> r) & 1u)) continue;
            if (tn[r] != t[r]) out |= 1u << r;
            else skipped++;
        }
        leaving += __popc(out) + __popc(in & ~cand);
#pragma unroll
        for (int r = 0; r < HT_STEPS; r++) // warp-uniform: every lane takes part
            cache_offer((out >> r) & 1u ? v[r] : NONE32, (uint64_t)key[r] << 32 | nb[r], vc, K);
    }
    sgk_warp_add(skipped, &ctr[C_SKIPPED]);
    sgk_warp_add(hostb, &ctr[C_HOSTB]);
    sgk_warp_add(leaving, &ctr[C_INTER]);
    if (lane_id() == 0 && sparse > 0) atomicAdd(&tiles[0], (ull)sparse);
    if (lane_id() == 0 && loops > 0) atomicAdd(&tiles[1], (ull)loops);
}

// k_hfirst's two builds: at most 80 registers (3 blocks a multiprocessor)
// or as many as it takes (96: 2 blocks); WR: W's accessor (StagedArr, or
// StagedW24 for 24-bit weights).
template <class WR>
using HfirstFn = void (*)(uint64_t, const uint64_t *, const uint32_t *, sgk_arr<uint64_t>,
                          StagedArr, WR, bool, const uint32_t *, uint64_t *, int, uint64_t,
                          uint64_t, ull *, ull *);
template <class WR = StagedArr> static HfirstFn<WR> hfirst_fn(bool occ3)
{
    return occ3 ? k_hfirst<sgk_arr<uint64_t>, 3, WR> : k_hfirst<sgk_arr<uint64_t>, 1, WR>;
}

// A vertex's candidate in the cache is a slot number (NO_SLOT for none),
// one byte per vertex instead of eight; its state SPENT when the cache is
// spent (K slots, all inside its tree: the list may hold more leaving
// entries), REFILL when k_cneed marked it to be refilled, else 0.
constexpr uint8_t NO_SLOT = 0xff;
constexpr uint8_t SPENT = 2, REFILL = 3; // states (k_cpick, k_cneed)

// The first of a vertex's K cache slots whose entry leaves its tree t
// (NO_SLOT for none); spent: all K slots filled and inside t.
__device__ __forceinline__ uint8_t cache_pick(const uint64_t *slot, int K,
                                              const uint32_t *__restrict__ comp, uint32_t t,
                                              bool &spent)
{
    int s = 0;
    for (; s < K; s++) {
        const uint64_t e = slot[s];
        if (e == NONE64) break;
        if (comp[(uint32_t)e] != t) return (uint8_t)s;
    }
    spent = s == K;
    return NO_SLOT;
}

// The cache's candidates: cslot[i] = the first slot of scan[i] still
// leaving its tree (cache_pick), state[i] = SPENT when the cache is spent,
// else 0. refilled_only: only the vertices whose state k_cneed made
// REFILL (their caches refilled since), the others' slots and states
// standing: their caches and trees have not changed since the round's
// first pick.
__global__ void k_cpick(uint64_t ns, const uint32_t *__restrict__ scan,
                        const uint32_t *__restrict__ comp, const uint64_t *__restrict__ vc, int K,
                        uint8_t *cslot, uint8_t *state, bool refilled_only)
{
    for (uint64_t i = gtid(); i < ns; i += gthreads()) {
        if (refilled_only && state[i] != REFILL) continue;
        const uint32_t v = scan[i];
        bool spent = false;
        cslot[i] = cache_pick(vc + (uint64_t)v * (uint64_t)K, K, comp, comp[v], spent);
        state[i] = spent ? SPENT : 0;
    }
}

// The first round's minima and choices in one pass, where every tree is one
// vertex and the scan list's vertices are the k trees (k == ns): a tree's
// minimum is its vertex's first cache slot, which leaves the tree unless it
// is empty (the cache holds no self-loop, and any other entry leaves a
// one-vertex tree), and the tree it chose is its neighbour's. Writes what
// k_cpick (cslot, state), k_reset_best with k_reduce1 / k_reduce2 (bestA,
// bestB) and merge_round's k_choose (nxt) would write there, in one pass
// and at most one gather of comp instead of five launches with warp
// matches and atomics. R-MAT 26 at 6G (34 M trees): 1.7 ms where those
// took 5.0; SSCA2 26 (67 M): minima and merge 21.8 to 14.6 ms
// (docs/benchmarks.md, thirty-second session). The tree of scan[i] is i:
// with dense ids its rank, else (k == n) every vertex has a list and its
// id is its tree's. ident (k == n): so is the neighbour's, and the gather
// of comp goes (SSCA2 26: 3.35 to 1.46 ms, 67 M random reads fewer).
__global__ void k_first_minima(uint64_t ns, const uint32_t *__restrict__ scan,
                               const uint32_t *__restrict__ comp, const uint64_t *__restrict__ vc,
                               int K, bool ident, uint64_t *bestA, uint32_t *bestB,
                               uint32_t *nxt, uint8_t *cslot, uint8_t *state)
{
    for (uint64_t i = gtid(); i < ns; i += gthreads()) {
        const uint32_t v = scan[i], t = (uint32_t)i;
        const uint64_t e = vc[(uint64_t)v * (uint64_t)K];
        state[i] = 0;
        if (e == NONE64) {
            cslot[i] = NO_SLOT;
            bestA[t] = NONE64;
            bestB[t] = NONE32;
            nxt[t] = t;
            continue;
        }
        cslot[i] = 0;
        bestA[t] = tree_key(e, v);
        bestB[t] = tree_tie(e, v);
        nxt[t] = ident ? (uint32_t)e : comp[(uint32_t)e];
    }
}

// A vertex's candidate (key << 32 | nbr, NONE64 for none): cand[i] without
// the cache, else its cache slot cslot[i].
struct Cands {
    const uint64_t *cand;  // without the cache
    const uint8_t *cslot;  // with it
    const uint64_t *vc;
    int K;
    __device__ __forceinline__ uint64_t at(uint64_t i, uint32_t v) const
    {
        if (cand) return cand[i];
        const uint8_t s = cslot[i];
        return s == NO_SLOT ? NONE64 : vc[(uint64_t)v * (uint64_t)K + s];
    }
};

// Which spent caches to refill: those whose lower bound (the last slot's
// key) does not exceed the key of their tree's minimum from the cached
// candidates (or whose tree has none). state[i] = REFILL for those; the
// other states stand (k_cpick's, for k_ckeep and a pick of the refilled
// alone).
__global__ void k_cneed(uint64_t ns, const uint32_t *__restrict__ scan,
                        const uint32_t *__restrict__ comp, const uint64_t *__restrict__ vc, int K,
                        const uint64_t *__restrict__ bestA, uint8_t *state)
{
    for (uint64_t i = gtid(); i < ns; i += gthreads()) {
        if (state[i] != SPENT) continue;
        const uint32_t v = scan[i];
        const uint64_t lb = vc[(uint64_t)v * (uint64_t)K + (uint64_t)(K - 1)] >> 32;
        const uint64_t b = bestA[comp[v]];
        if (b == NONE64 || (b >> 32) >= lb) state[i] = REFILL;
    }
}

// The selection's flags over k_cneed's states: those to refill.
struct IsRefill {
    __host__ __device__ bool operator()(uint8_t f) const { return f == REFILL; }
};

// The minima after a later round's refill, for the refilled vertices alone
// (state REFILL), where pick and reduce went over every vertex. The
// others' candidates have not changed since the round's reduce, and the
// refilled ones had none then (spent caches), so a tree's minimum is the
// smaller of the one that reduce left and its refilled vertices' new
// candidates. Pass 1: each refilled vertex's slot and state (k_cpick's),
// its candidate into bestA; where one lowers a tree's minimum, the tree's
// tie-break (bestB) is reset, since the vertices that hold the new minimum
// are then refilled ones alone (one that was not refilled with that key
// would have made the old minimum as low). Marks them (state | RMARK).
// Pass 2 (k_rmin2): the marked vertices holding their tree's minimum into
// bestB (k_reduce2's rule), marks cleared.
constexpr uint8_t RMARK = 0x10;
__global__ void k_rmin1(uint64_t ns, const uint32_t *__restrict__ scan,
                        const uint32_t *__restrict__ comp, const uint64_t *__restrict__ vc, int K,
                        uint8_t *cslot, uint8_t *state, uint64_t *bestA, uint32_t *bestB)
{
    for (uint64_t i = gtid(); i < ns; i += gthreads()) {
        if (state[i] != REFILL) continue;
        const uint32_t v = scan[i], t = comp[v];
        const uint64_t *slot = vc + (uint64_t)v * (uint64_t)K;
        bool spent = false;
        const uint8_t c = cache_pick(slot, K, comp, t, spent);
        cslot[i] = c;
        state[i] = RMARK | (spent ? SPENT : 0);
        if (c == NO_SLOT || t == NONE32) continue;
        const uint64_t a = tree_key(slot[c], v);
        if (a < *(volatile uint64_t *)&bestA[t] && a < sgk_atomic_min_u64(&bestA[t], a))
            bestB[t] = NONE32;
    }
}

__global__ void k_rmin2(uint64_t ns, const uint32_t *__restrict__ scan,
                        const uint32_t *__restrict__ comp, const uint64_t *__restrict__ vc, int K,
                        const uint8_t *__restrict__ cslot, uint8_t *state,
                        const uint64_t *__restrict__ bestA, uint32_t *bestB)
{
    for (uint64_t i = gtid(); i < ns; i += gthreads()) {
        const uint8_t f = state[i];
        if (!(f & RMARK)) continue;
        state[i] = (uint8_t)(f & ~RMARK);
        const uint8_t c = cslot[i];
        if (c == NO_SLOT) continue;
        const uint32_t v = scan[i], t = comp[v];
        if (t == NONE32) continue;
        const uint64_t e = vc[(uint64_t)v * (uint64_t)K + c];
        const uint64_t a = tree_key(e, v);
        const uint32_t b = tree_tie(e, v);
        if (bestA[t] == a && b < *(volatile uint32_t *)&bestB[t]) atomicMin(&bestB[t], b);
    }
}

// Empties the cache slots of the nr vertices in list.
__global__ void k_creset(uint64_t nr, const uint32_t *__restrict__ list, uint64_t *vc, int K)
{
    const uint64_t total = nr * (uint64_t)K;
    for (uint64_t i = gtid(); i < total; i += gthreads())
        vc[(uint64_t)list[i / (uint64_t)K] * (uint64_t)K + i % (uint64_t)K] = NONE64;
}

// Where the unread part of a list starts: lo[v] (absolute: the probe
// rounds over lists in weight order), x[v] + hd[v] (the cache's fills from
// the heads of such lists), or x[v] (unsorted lists, read whole).
struct Heads {
    sgk_arr<uint64_t> x;
    const uint64_t *lo;
    const uint32_t *hd;
    __device__ __forceinline__ uint64_t operator[](uint64_t v) const
    {
        return lo ? lo[v] : x[v] + (hd ? hd[v] : 0u);
    }
};

// The vertex cache from lists in weight order: a group of SF_G lanes per
// vertex of R reads its list from x[v] + rs[v] (where the last fill
// stopped), SF_G entries of A a step (one 32-byte sector); the first K
// entries leaving v's tree go to its slots in order, their W read (they are
// the K lightest: every entry before them is inside the tree for good, and
// so is every entry the fills before took, once the cache is spent). hd[v]
// becomes the first of them (the end without one: where the contraction's
// gather starts), rs[v] the entry after the K-th (the end when fewer than K
// were found: the list holds no other leaving entry). Offsets relative to
// x[v]. Slots reset before (k_creset, or the first fill's memset).
constexpr unsigned SF_G = 8;
__global__ void __launch_bounds__(BLK)
    k_sfill(uint64_t nr, const uint32_t *__restrict__ R, sgk_arr<uint64_t> x, EntInPlace E,
            uint32_t *hd, uint32_t *rs, const uint32_t *__restrict__ comp, uint64_t *vc, int K,
            ull *ctr)
{
    const unsigned lane = lane_id(), gl = lane % SF_G, gbase = lane - gl;
    const unsigned gmask = ((1u << SF_G) - 1u) << gbase;
    const uint64_t ngroups = gthreads() / SF_G;
    uint64_t skipped = 0, hostb = 0, walked = 0;
    for (uint64_t gi = gtid() / SF_G; gi < nr; gi += ngroups) { // group-uniform from here
        const uint32_t v = R[gi];
        const uint32_t t = comp[v];
        const uint64_t b = x[v], end = x[v + 1], p0 = b + rs[v];
        uint64_t *slot = vc + (uint64_t)v * (uint64_t)K;
        uint64_t p = p0, first = NONE64;
        int got = 0;
        while (p < end && got < K) {
            const uint64_t q = p + gl, stop = end - p > SF_G ? p + SF_G : end;
            const bool in = q < end;
            const uint32_t nb = in ? E.nbr(q) : 0;
            const bool leave = in && comp[nb] != t;
            unsigned bal = (__ballot_sync(gmask, leave) >> gbase) & ((1u << SF_G) - 1u);
            const int rank = __popc(bal & ((1u << gl) - 1u));
            if (leave && got + rank < K) {
                slot[got + rank] = E.ent(q);
                hostb += 4 * E.w.host_count(q, q + 1);
            }
            if (gl == 0) hostb += E.host_nbr(p, stop);
            if (bal && first == NONE64) first = p + (uint64_t)(__ffs(bal) - 1);
            const int cnt = __popc(bal);
            if (got + cnt >= K) { // stop after the K-th leaving entry
                for (int r = 0; r < K - got - 1; r++) bal &= bal - 1;
                p += (uint64_t)__ffs(bal);
                got = K;
            } else {
                got += cnt;
                p = stop;
            }
        }
        if (gl == 0) {
            const uint64_t h = first != NONE64 ? first : end;
            skipped += h - p0;
            walked += p - p0;
            hd[v] = (uint32_t)(h - b);
            rs[v] = (uint32_t)(got < K ? end - b : p - b);
        }
    }
    sgk_warp_add(skipped, &ctr[C_SKIPPED]);
    sgk_warp_add(hostb, &ctr[C_HOSTB]);
    sgk_warp_add(walked, &ctr[C_WALKED]);
}

// F with the cache: a vertex stays on the scan list while it has a
// candidate or a spent cache (state 2 from k_cpick) and its tree is live.
// C_LIVE sums the kept lists' lengths from their heads.
__global__ void k_ckeep(uint64_t ns, const uint32_t *__restrict__ scan,
                        const uint8_t *__restrict__ cslot, const uint32_t *__restrict__ comp,
                        sgk_arr<uint64_t> x, Heads hs, uint8_t *flags, ull *ctr)
{
    const uint64_t span = gthreads();
    uint64_t live = 0;
    for (uint64_t b = gtid() - lane_id(); b < ns; b += span) { // warp-uniform trips
        const uint64_t i = b + lane_id();
        if (i < ns) {
            const uint32_t v = scan[i];
            const bool keep = (cslot[i] != NO_SLOT || flags[i] == SPENT) && comp[v] != NONE32;
            flags[i] = keep;
            if (keep) live += x[v + 1] - hs[v];
        }
    }
    sgk_warp_add(live, &ctr[C_LIVE]);
}

// The in-place executor's candidates for k_reduce1 / k_reduce2: the vertex
// candidates (key << 32 | nbr) of the scan list's vertices, as (key << 32 |
// min(v, nbr), max(v, nbr)) in v's tree.
struct VertexCands {
    const uint32_t *scan;
    Cands cd;
    const uint32_t *comp;
    __device__ __forceinline__ uint32_t get(uint64_t i, uint64_t ns, uint64_t &a, uint32_t &b) const
    {
        if (i >= ns) return NONE32;
        const uint32_t v = scan[i];
        const uint64_t c = cd.at(i, v);
        if (c == NONE64) return NONE32;
        a = tree_key(c, v);
        b = tree_tie(c, v);
        return comp[v];
    }
};

// dst[0..cnt) = src[0..cnt) from mapped host memory, eight loads in flight
// per thread (the streamed first round's copy when DMA is disabled).
__global__ void k_pull(const uint32_t *__restrict__ src, uint32_t *__restrict__ dst, uint64_t cnt)
{
    const uint64_t stride = gthreads();
    uint64_t i = gtid();
    for (; i + 7 * stride < cnt; i += 8 * stride) {
        uint32_t r[8];
#pragma unroll
        for (int k = 0; k < 8; k++) r[k] = src[i + (uint64_t)k * stride];
#pragma unroll
        for (int k = 0; k < 8; k++) dst[i + (uint64_t)k * stride] = r[k];
    }
    for (; i < cnt; i += stride) dst[i] = src[i];
}

// The streamed first round's copy of A for k_hfirst: the piece [jlo, jhi)
// of the entries (list positions) in k_hfirst's tiles (256 entries from
// jlo), each tile copied from src (host) to buf[p - p0] for p >= p0 unless
// all its entries lie in one list (k_hfirst reads those in place). Adds the
// bytes copied to ctr[C_PULLA].
__global__ void k_pull_mixed(uint64_t ns, const uint64_t *__restrict__ off,
                             const uint32_t *__restrict__ src, uint32_t *__restrict__ buf,
                             uint64_t p0, uint64_t jlo, uint64_t jhi, ull *ctr)
{
    const uint64_t T = off[ns] < jhi ? off[ns] : jhi;
    const uint64_t tile = 32ull * HT_STEPS;
    const uint64_t span = (gthreads() / 32) * tile;
    uint64_t copied = 0;
    for (uint64_t b = jlo + (gtid() / 32) * tile; b < T; b += span) {
        const uint64_t e = b + tile < T ? b + tile : T; // the tile's end
        // the list holding entry b holds e - 1 too
        if (off[warp_seek(off, ns, b) + 1] >= e) continue;
        uint32_t r[HT_STEPS];
#pragma unroll
        for (int k = 0; k < HT_STEPS; k++) {
            const uint64_t p = b + lane_id() + 32ull * (uint64_t)k;
            if (p < e && p >= p0) r[k] = src[p];
        }
#pragma unroll
        for (int k = 0; k < HT_STEPS; k++) {
            const uint64_t p = b + lane_id() + 32ull * (uint64_t)k;
            if (p < e && p >= p0) {
                buf[p - p0] = r[k];
                copied += 4;
            }
        }
    }
    sgk_warp_add(copied, &ctr[C_PULLA]);
}

// The CPU threads' packed first-round results into the vertex cache, read
// in place from a pinned staging buffer (one block a piece of the chunk):
// piece b's records lie at rec[base K ..] and their vertices at idx[base
// ..], base = tbl[2 b], count tbl[2 b + 1] (cpu_first_fill). Only the lists
// with entries cross the bus: at R-MAT 26 about half the threads' slots
// were empty lists' (the cache starts empty).
__global__ void k_share_scatter(const uint32_t *tbl, const uint32_t *idx, const uint64_t *rec,
                                int K, uint64_t *__restrict__ vc)
{
    const uint64_t base = tbl[2 * (uint64_t)blockIdx.x];
    const uint64_t words = (uint64_t)tbl[2 * (uint64_t)blockIdx.x + 1] * (uint64_t)K;
    const uint64_t *r = rec + base * (uint64_t)K;
    const uint32_t *ix = idx + base;
    for (uint64_t t = threadIdx.x; t < words; t += blockDim.x) {
        const uint64_t q = t / (uint64_t)K, s = t - q * (uint64_t)K;
        vc[(uint64_t)ix[q] * (uint64_t)K + s] = r[t];
    }
}

// The CPU threads' results with 6-byte slots (kernels/cpu_topk.h,
// sgk_slots48_pack), read in place from the pinned staging buffer a tile
// of S48_TILE slots at a time: the tile's bytes in 16-byte words (from the
// word holding its first byte) into shared memory, then each slot's three
// 16-bit words from there, unpacked (sgk_slot48_key). A tile ends at most
// 15 bytes past the chunk's slots, inside the staging buffer.
constexpr unsigned S48_TILE = 2048;
constexpr unsigned S48_WORDS = S48_TILE * 6 / 16 + 2;

// Slots t0 .. t1 of src (t1 - t0 <= S48_TILE) into sm; returns the byte of
// sm where slot t0 begins. The block's threads all call it.
__device__ __forceinline__ unsigned s48_load(const uint8_t *src, uint64_t t0, uint64_t t1,
                                             uint4 *sm)
{
    const uintptr_t b0 = reinterpret_cast<uintptr_t>(src) + 6 * t0;
    const uintptr_t a0 = b0 & ~(uintptr_t)15;
    const uintptr_t a1 = (reinterpret_cast<uintptr_t>(src) + 6 * t1 + 15) & ~(uintptr_t)15;
    const unsigned words = (unsigned)((a1 - a0) / 16);
    const uint4 *g = reinterpret_cast<const uint4 *>(a0);
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x) sm[i] = g[i];
    __syncthreads();
    return (unsigned)(b0 - a0);
}

// Slot i of a tile loaded at byte off of sm.
__device__ __forceinline__ uint64_t s48_slot(const uint4 *sm, unsigned off, unsigned i, int idbits)
{
    const uint16_t *h =
        reinterpret_cast<const uint16_t *>(reinterpret_cast<const uint8_t *>(sm) + off + 6 * i);
    return sgk_slot48_key((uint64_t)h[0] | (uint64_t)h[1] << 16 | (uint64_t)h[2] << 32, idbits);
}

// A chunk's ns slots (every vertex's, in order) into dst.
__global__ void __launch_bounds__(BLK) k_slots48_expand(const uint8_t *src, uint64_t ns,
                                                        int idbits, uint64_t *__restrict__ dst)
{
    __shared__ uint4 sm[S48_WORDS];
    for (uint64_t t0 = blockIdx.x * (uint64_t)S48_TILE; t0 < ns;
         t0 += (uint64_t)gridDim.x * S48_TILE) {
        const uint64_t t1 = ns - t0 < S48_TILE ? ns : t0 + S48_TILE;
        const unsigned off = s48_load(src, t0, t1, sm);
        for (unsigned i = threadIdx.x; i < t1 - t0; i += blockDim.x)
            dst[t0 + i] = s48_slot(sm, off, i, idbits);
        __syncthreads(); // sm again
    }
}

// k_share_scatter over records of 6-byte slots: piece b's records at
// rec + 6 K base, their vertices at idx[base ..].
__global__ void __launch_bounds__(BLK) k_share_scatter48(const uint32_t *tbl, const uint32_t *idx,
                                                         const uint8_t *rec, int K, int idbits,
                                                         uint64_t *__restrict__ vc)
{
    __shared__ uint4 sm[S48_WORDS];
    const uint64_t base = tbl[2 * (uint64_t)blockIdx.x];
    const uint64_t words = (uint64_t)tbl[2 * (uint64_t)blockIdx.x + 1] * (uint64_t)K;
    const uint8_t *r = rec + 6 * base * (uint64_t)K;
    const uint32_t *ix = idx + base;
    for (uint64_t t0 = 0; t0 < words; t0 += S48_TILE) {
        const uint64_t t1 = words - t0 < S48_TILE ? words : t0 + S48_TILE;
        const unsigned off = s48_load(r, t0, t1, sm);
        for (unsigned i = threadIdx.x; i < t1 - t0; i += blockDim.x) {
            const uint64_t t = t0 + i, q = t / (uint64_t)K, j = t - q * (uint64_t)K;
            vc[(uint64_t)ix[q] * (uint64_t)K + j] = s48_slot(sm, off, i, idbits);
        }
        __syncthreads(); // sm again
    }
}

// ------------------------------------------------------------ host helpers

struct Ctx {
    sgk_ctx *c;
    sg_error *err;
    sgk_dbuf<uint8_t> tmp; // CUB temp, grown on demand
    sg_status grow(size_t bytes)
    {
        if (tmp.p && tmp.n >= bytes) return SG_OK;
        tmp.release();
        return tmp.alloc(c, bytes ? bytes : 1, "the MST CUB scratch", err);
    }
};

static unsigned grid(const sgk_ctx *c, uint64_t items) { return sgk_grid(c, items, BLK); }

// A, B and C over the scan list: for each scanned vertex the first entry
// from lo[v] on that leaves its tree (lo advancing past the internal ones)
// goes to sk, or none when the segment holds no such entry.
template <class XA, class ES, class SK>
static sg_status find_round(sgk_ctx *c, const uint32_t *scan, uint64_t ns, XA x, ES E,
                            uint64_t *lo, const uint32_t *comp, SK sk, uint32_t *unres,
                            uint32_t *heavy, bool probe, ull *dctr, sg_error *err)
{
    cudaStream_t st = c->stream;
    SGK_CU(cudaMemsetAsync(dctr + C_UNRES, 0, 2 * sizeof(ull), st)); // C_UNRES, C_HEAVY
    k_probe<<<grid(c, ns), BLK, 0, st>>>(scan, ns, x, E, lo, comp, sk, unres, probe, dctr);
    SGK_LAUNCHED("k_probe");
    k_warp_scan<<<grid(c, ns * 32), BLK, 0, st>>>(scan, unres, x, E, lo, comp, sk, heavy, dctr);
    SGK_LAUNCHED("k_warp_scan");
    k_block_scan<<<grid(c, ns * BLK), BLK, 0, st>>>(scan, heavy, x, E, lo, comp, sk, dctr);
    SGK_LAUNCHED("k_block_scan");
    return SG_OK;
}

__global__ void k_iota(uint64_t k, uint32_t *idx);

// A round past sgi_boruvka_round_limit(n) (twice the rounds a right run
// can take, plus 4): an error naming it, where minima that do not shrink
// the trees (a corrupted copy of the graph, a wrong kernel) would otherwise
// run the rounds without end. "merge" disabled (a test mode) makes every
// tree choose itself, so that rounds merge nothing and keep every list
// (the minima stand), to show it.
static sg_status round_guard(uint64_t iters, uint64_t n, uint64_t k, sg_error *err)
{
    const uint64_t limit = sgi_boruvka_round_limit(n);
    if (iters <= limit) return SG_OK;
    return sgi_fail(err, SG_E_DEVICE,
                    "GPU forest: round %llu on %llu vertices, %llu trees left: past the %llu "
                    "rounds any right run stays within (the rounds do not merge the trees; "
                    "is the graph's copy in memory corrupted?)",
                    (unsigned long long)iters, (unsigned long long)n, (unsigned long long)k,
                    (unsigned long long)limit);
}

// The merge of one round, the same in vertex and edge mode: each tree's
// chosen tree (nxt), 2-cycles broken towards the smaller id and the forest
// edges recorded, pointer jumping to the roots (a device flag read back per
// launch), live roots renumbered by an exclusive scan, and comp updated for
// every vertex. tmp: CUB scratch of tmp_bytes (sized for a scan of n).
// chosen: nxt holds every tree's choice already (k_first_minima), so
// k_choose is not launched. ident: every vertex is a tree whose id is the
// vertex's (k == n, comp[v] == v: the first round without dense ids), so
// the new ids go straight into comp, not through nxt and k_comp (SSCA2
// 26's first round: a pass over 67 M vertices less, ~0.3 ms).
static sg_status merge_round(sgk_ctx *c, uint64_t n, uint64_t k, uint64_t cap, bool f32,
                             void *tmp, size_t tmp_bytes, ull *dctr, uint64_t *bestA,
                             uint32_t *bestB, uint32_t *comp, uint32_t *nxt, uint32_t *par,
                             uint32_t *rn, uint32_t *ou, uint32_t *ov, uint32_t *ow, bool chosen,
                             bool ident, sg_error *err)
{
    cudaStream_t st = c->stream;
    size_t tb = tmp_bytes;
    if (!chosen) {
        k_choose<<<grid(c, k), BLK, 0, st>>>(k, bestA, bestB, comp, nxt);
        SGK_LAUNCHED("k_choose");
    }
    if (sgk_ctx_disabled(c, "merge")) { // a test mode: every tree chooses itself
        k_iota<<<grid(c, k), BLK, 0, st>>>(k, nxt);
        SGK_LAUNCHED("k_iota");
    }
    k_record<<<grid(c, k), BLK, 0, st>>>(k, nxt, bestA, bestB, par, ou, ov, ow, cap, f32, dctr);
    SGK_LAUNCHED("k_record");
    const bool roots = !sgk_ctx_disabled(c, "jump-roots");
    for (;;) {
        SGK_CU(cudaMemsetAsync(dctr + C_FLAG, 0, sizeof(ull), st));
        k_jump<<<grid(c, k), BLK, 0, st>>>(k, par, dctr, roots);
        SGK_LAUNCHED("k_jump");
        ull fl = 0;
        SGK_CU(cudaMemcpyAsync(&fl, dctr + C_FLAG, sizeof fl, cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        if (!fl) break;
    }
    k_rflag<<<grid(c, k), BLK, 0, st>>>(k, par, bestA, nxt);
    SGK_LAUNCHED("k_rflag");
    SGK_CU(cub::DeviceScan::ExclusiveSum(tmp, tb, nxt, rn, k, st));
    k_rfix<<<grid(c, k), BLK, 0, st>>>(k, par, nxt, rn, dctr);
    SGK_LAUNCHED("k_rfix");
    if (ident) { // every tree's id its vertex's: the new ids are comp itself
        k_newid<<<grid(c, k), BLK, 0, st>>>(k, par, rn, comp);
        SGK_LAUNCHED("k_newid");
        return SG_OK;
    }
    k_newid<<<grid(c, k), BLK, 0, st>>>(k, par, rn, nxt);
    SGK_LAUNCHED("k_newid");
    k_comp<<<grid(c, n), BLK, 0, st>>>(n, comp, nxt);
    SGK_LAUNCHED("k_comp");
    return SG_OK;
}

// ------------------------------------------------------------ canonical order of the forest

__global__ void k_iota(uint64_t k, uint32_t *idx)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < k;
         i += (uint64_t)gridDim.x * blockDim.x)
        idx[i] = (uint32_t)i;
}

// key[i] = weight key << 32 | u of edge idx[i]
__global__ void k_wukey(uint64_t k, const uint32_t *idx, const uint32_t *u, const uint32_t *w,
                        bool f32, uint64_t *key)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < k;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t e = idx[i];
        key[i] = (uint64_t)sgk_weight_key(f32, w[e]) << 32 | u[e];
    }
}

__global__ void k_gather3(uint64_t k, const uint32_t *idx, const uint32_t *u, const uint32_t *v,
                          const uint32_t *w, uint32_t *tu, uint32_t *tv, uint32_t *tw)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < k;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t e = idx[i];
        tu[i] = u[e];
        tv[i] = v[e];
        tw[i] = w[e];
    }
}

// Sorts the k forest edges (u < v) into the canonical order (weight key, u,
// v) with two stable radix sorts (by v, then by key << 32 | u) and copies
// them to the host arrays. Device memory: 40 bytes per edge plus CUB's
// scratch. k < 2^31.
static sg_status forest_download(sgk_ctx *c, uint64_t k, const uint32_t *ou, const uint32_t *ov,
                                 const uint32_t *ow, bool f32, uint32_t *u, uint32_t *v,
                                 uint32_t *w, sg_error *err)
{
    cudaStream_t st = c->stream;
    const int kk = (int)k;
    sgk_dbuf<uint32_t> i0, i1, vk, tu, tv, tw;
    sgk_dbuf<uint64_t> k0, k1;
    sgk_dbuf<char> tmp;
    SGK_TRY(i0.alloc(c, k, "the forest sort indices", err));
    SGK_TRY(i1.alloc(c, k, "the forest sort indices", err));
    SGK_TRY(vk.alloc(c, k, "the forest sort keys", err));
    SGK_TRY(k0.alloc(c, k, "the forest sort keys", err));
    SGK_TRY(k1.alloc(c, k, "the forest sort keys", err));
    size_t t1 = 0, t2 = 0;
    SGK_CU(cub::DeviceRadixSort::SortPairs(nullptr, t1, ov, vk.p, i0.p, i1.p, kk, 0, 32, st));
    SGK_CU(cub::DeviceRadixSort::SortPairs(nullptr, t2, k0.p, k1.p, i1.p, i0.p, kk, 0, 64, st));
    SGK_TRY(tmp.alloc(c, t1 > t2 ? t1 : t2, "the forest sort scratch", err));
    k_iota<<<grid(c, k), BLK, 0, st>>>(k, i0.p);
    SGK_LAUNCHED("k_iota");
    SGK_CU(cub::DeviceRadixSort::SortPairs(tmp.p, t1, ov, vk.p, i0.p, i1.p, kk, 0, 32, st));
    k_wukey<<<grid(c, k), BLK, 0, st>>>(k, i1.p, ou, ow, f32, k0.p);
    SGK_LAUNCHED("k_wukey");
    SGK_CU(cub::DeviceRadixSort::SortPairs(tmp.p, t2, k0.p, k1.p, i1.p, i0.p, kk, 0, 64, st));
    vk.release();
    k0.release();
    k1.release();
    tmp.release();
    SGK_TRY(tu.alloc(c, k, "the sorted forest", err));
    SGK_TRY(tv.alloc(c, k, "the sorted forest", err));
    SGK_TRY(tw.alloc(c, k, "the sorted forest", err));
    k_gather3<<<grid(c, k), BLK, 0, st>>>(k, i0.p, ou, ov, ow, tu.p, tv.p, tw.p);
    SGK_LAUNCHED("k_gather3");
    SGK_TRY(sgk_download(c, u, tu.p, k * sizeof(uint32_t), err));
    SGK_TRY(sgk_download(c, v, tv.p, k * sizeof(uint32_t), err));
    SGK_TRY(sgk_download(c, w, tw.p, k * sizeof(uint32_t), err));
    return SG_OK;
}

static uint32_t bit_len(uint64_t x)
{
    uint32_t b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b ? b : 1;
}

static uint64_t a_items(uint64_t m, uint64_t longest)
{
    uint64_t a = longest > SORT_CAP ? longest : SORT_CAP;
    return a < m ? a : m;
}

// Sorts each list of E by (key, neighbour). Scratch lives only here.
static sg_status sort_lists(Ctx &X, const sgk_graph *g, uint64_t *E, ull *dctr)
{
    sgk_ctx *c = X.c;
    sg_error *err = X.err;
    cudaStream_t st = c->stream;
    const uint64_t n = g->d.n, m = g->d.m;
    const uint64_t *x = g->x;
    const uint64_t bigcap = m / BIG_SEG + 2;
    sgk_dbuf<uint32_t> big;
    SGK_TRY(big.alloc(c, bigcap, "the MST long-list ids", err));
    SGK_CU(cudaMemsetAsync(dctr, 0, CTR_BYTES, st));
    k_scan_degrees<<<grid(c, n), BLK, 0, st>>>(x, n, big, bigcap, dctr);
    SGK_LAUNCHED("k_scan_degrees");
    ull h[C_NCTR];
    SGK_CU(cudaMemcpyAsync(h, dctr, sizeof h, cudaMemcpyDeviceToHost, st));
    SGK_CU(cudaStreamSynchronize(st));
    const uint64_t longest = h[C_MAXDEG], nbig = h[C_NBIG] < bigcap ? h[C_NBIG] : bigcap;
    uint64_t x0 = h[C_X0];
    sgk_dbuf<uint64_t> alt;
    SGK_TRY(alt.alloc(c, a_items(m, longest), "the MST sort buffer", err));
    sgk_dbuf<int64_t> beg, end;
    SGK_TRY(beg.alloc(c, n + 1, "the MST sort offsets", err));
    SGK_TRY(end.alloc(c, n + 1, "the MST sort offsets", err));
    // Long lists first, one device-wide radix sort each, in place in E.
    // Their [start, end) ranges are kept (sorted by start) so that the batch
    // copy-back below skips them.
    struct range { uint64_t b, e; };
    range *br = nullptr;
    if (nbig > 0) {
        uint32_t *hb = new (std::nothrow) uint32_t[nbig];
        br = new (std::nothrow) range[nbig];
        if (!hb || !br) {
            delete[] hb;
            delete[] br;
            return sgi_fail(err, SG_E_NOMEM, "out of host memory listing long lists");
        }
        cudaError_t ce = cudaMemcpyAsync(hb, big.p, nbig * sizeof(uint32_t),
                                         cudaMemcpyDeviceToHost, st);
        if (ce == cudaSuccess) ce = cudaStreamSynchronize(st);
        sg_status rs = SG_OK;
        for (uint64_t j = 0; j < nbig && rs == SG_OK && ce == cudaSuccess; j++) {
            uint64_t xb[2];
            ce = cudaMemcpyAsync(xb, x + hb[j], sizeof xb, cudaMemcpyDeviceToHost, st);
            if (ce == cudaSuccess) ce = cudaStreamSynchronize(st);
            if (ce != cudaSuccess) break;
            br[j].b = xb[0];
            br[j].e = xb[1];
            const uint64_t len = xb[1] - xb[0];
            if (len > alt.n) {
                rs = sgi_fail(err, SG_E_INVALID, "list of vertex %u longer than expected",
                              hb[j]);
                break;
            }
            cub::DoubleBuffer<uint64_t> keys(E + xb[0], alt.p);
            size_t tb = 0;
            ce = cub::DeviceRadixSort::SortKeys(nullptr, tb, keys, len, 0, 64, st);
            if (ce != cudaSuccess) break;
            rs = X.grow(tb);
            if (rs != SG_OK) break;
            ce = cub::DeviceRadixSort::SortKeys(X.tmp.p, tb, keys, len, 0, 64, st);
            if (ce != cudaSuccess) break;
            if (keys.Current() != E + xb[0])
                ce = cudaMemcpyAsync(E + xb[0], keys.Current(), len * sizeof(uint64_t),
                                     cudaMemcpyDeviceToDevice, st);
        }
        delete[] hb;
        if (rs == SG_OK && ce == cudaSuccess) ce = cudaStreamSynchronize(st);
        if (rs != SG_OK || ce != cudaSuccess) delete[] br;
        if (rs != SG_OK) return rs;
        SGK_CU(ce);
        // insertion sort by start (few ranges)
        for (uint64_t i = 1; i < nbig; i++) {
            const range r = br[i];
            uint64_t j = i;
            for (; j > 0 && br[j - 1].b > r.b; j--) br[j] = br[j - 1];
            br[j] = r;
        }
    }
    // Batches of short lists (long ones are empty segments there).
    uint64_t s0 = 0, jb = 0;
    cudaError_t ce = cudaSuccess;
    sg_status rs = SG_OK;
    while (s0 < n && ce == cudaSuccess && rs == SG_OK) {
        k_batch_end<<<1, 32, 0, st>>>(x, n, s0, SORT_CAP, dctr);
        ce = cudaGetLastError();
        if (ce == cudaSuccess) ce = cudaMemcpyAsync(h, dctr, sizeof h, cudaMemcpyDeviceToHost, st);
        if (ce == cudaSuccess) ce = cudaStreamSynchronize(st);
        if (ce != cudaSuccess) break;
        const uint64_t s1 = h[C_B0], x1 = h[C_B1];
        const uint64_t items = x1 - x0, ns = s1 - s0;
        if (items > 0 && items <= SORT_CAP) {
            k_batch_offsets<<<grid(c, ns), BLK, 0, st>>>(x, s0, ns, x0, beg, end);
            ce = cudaGetLastError();
            if (ce != cudaSuccess) break;
            cub::DoubleBuffer<uint64_t> keys(E + x0, alt.p);
            size_t tb = 0;
            ce = cub::DeviceSegmentedSort::SortKeys(nullptr, tb, keys, (int64_t)items,
                                                    (int64_t)ns, beg.p, end.p, st);
            if (ce != cudaSuccess) break;
            rs = X.grow(tb);
            if (rs != SG_OK) break;
            ce = cub::DeviceSegmentedSort::SortKeys(X.tmp.p, tb, keys, (int64_t)items,
                                                    (int64_t)ns, beg.p, end.p, st);
            if (ce != cudaSuccess) break;
            if (keys.Current() != E + x0) {
                // copy back [x0, x1) less the long lists' ranges
                const uint64_t *src = keys.Current();
                uint64_t p = x0;
                while (jb < nbig && br[jb].e <= x0) jb++;
                for (; ce == cudaSuccess && p < x1;) {
                    uint64_t q = x1;
                    if (jb < nbig && br[jb].b < x1) q = br[jb].b;
                    if (q > p)
                        ce = cudaMemcpyAsync(E + p, src + (p - x0), (q - p) * sizeof(uint64_t),
                                             cudaMemcpyDeviceToDevice, st);
                    if (q == x1) break;
                    p = br[jb].e;
                    jb++;
                }
            }
        }
        // items > SORT_CAP: one list alone, longer than BIG_SEG, sorted above.
        s0 = s1;
        x0 = x1;
    }
    delete[] br;
    if (rs != SG_OK) return rs;
    SGK_CU(ce);
    SGK_CU(cudaStreamSynchronize(st));
    X.tmp.release(); // preprocessing scratch ends here
    return SG_OK;
}

// Edge mode (both executors): Borůvka over the contracted list C[cur] of
// ne edges (key, min, max, tree of min, tree of max) until no edge or one
// tree is left; C[1 - cur] receives each round's survivors.
static sg_status edge_rounds(Ctx &X, uint64_t n, uint64_t &k, uint64_t ne, uint64_t cap, bool f32,
                             sgk_dbuf<uint32_t> (*C)[5], ull *dctr, ull *h, uint64_t *bestA,
                             uint32_t *bestB, uint32_t *comp, uint32_t *nxt, uint32_t *par,
                             uint32_t *rn, uint32_t *ou, uint32_t *ov, uint32_t *ow,
                             uint64_t &iters)
{
    sgk_ctx *c = X.c;
    sg_error *err = X.err;
    cudaStream_t st = c->stream;
    int cur = 0;
    while (ne > 0 && k > 1) {
        iters++;
        SGK_TRY(round_guard(iters, n, k, err));
        sgk_dbuf<uint32_t> *A = C[cur], *B = C[1 - cur];
        k_ereduce1<<<grid(c, ne), BLK, 0, st>>>(ne, A[0], A[1], A[3], A[4], bestA);
        SGK_LAUNCHED("k_ereduce1");
        k_ereduce2<<<grid(c, ne), BLK, 0, st>>>(ne, A[0], A[1], A[2], A[3], A[4], bestA, bestB);
        SGK_LAUNCHED("k_ereduce2");
        SGK_TRY(merge_round(c, n, k, cap, f32, X.tmp.p, X.tmp.n, dctr, bestA, bestB, comp, nxt,
                            par, rn, ou, ov, ow, false, false, err));
        SGK_CU(cudaMemsetAsync(dctr + C_NE, 0, sizeof(ull), st));
        k_ecompact<<<grid(c, ne), BLK, 0, st>>>(ne, nxt, A[0], A[1], A[2], A[3], A[4], B[0], B[1],
                                                B[2], B[3], B[4], dctr);
        SGK_LAUNCHED("k_ecompact");
        SGK_CU(cudaMemcpyAsync(h, dctr, C_NCTR * sizeof(ull), cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        if (h[C_OUT] > cap)
            return sgi_fail(err, SG_E_DEVICE, "GPU forest: %llu edges recorded for %llu vertices",
                            (unsigned long long)h[C_OUT], (unsigned long long)n);
        const uint64_t knew = h[C_KNEW];
        if (knew > 0) {
            k_reset_best<<<grid(c, knew), BLK, 0, st>>>(knew, bestA, bestB);
            SGK_LAUNCHED("k_reset_best");
        }
        k = knew;
        ne = h[C_NE];
        cur = 1 - cur;
    }
    return SG_OK;
}

// The forest's `out` edges to the host: sorted into the canonical order on
// the device when CUB can (fewer than 2^31 edges), else as recorded.
// Counters "forest_sorted", "forest_sort_us" and "download_bytes". The working arrays should
// be freed first (the sort needs 40 bytes per edge).
static sg_status forest_out(sgk_ctx *c, uint64_t out, const uint32_t *ou, const uint32_t *ov,
                            const uint32_t *ow, bool f32, uint32_t *u, uint32_t *v, uint32_t *w,
                            sgk_stats *stats, sg_error *err)
{
    const double t0 = sgi_now();
    const bool dsort = out <= (uint64_t)INT32_MAX; // CUB's int item count
    if (out > 0 && dsort) {
        SGK_TRY(forest_download(c, out, ou, ov, ow, f32, u, v, w, err));
    } else if (out > 0) {
        SGK_TRY(sgk_download(c, u, ou, out * sizeof(uint32_t), err));
        SGK_TRY(sgk_download(c, v, ov, out * sizeof(uint32_t), err));
        SGK_TRY(sgk_download(c, w, ow, out * sizeof(uint32_t), err));
    }
    sgk_stats_set(stats, "forest_sorted", dsort ? 1 : 0);
    sgk_stats_set(stats, "forest_sort_us", sgk_us_since(t0));
    sgk_stats_set(stats, "download_bytes", 12 * out);
    return SG_OK;
}

// The per-tree arrays both executors keep for n trees (minima, chosen
// trees, parents, new ids) and the forest's output (room for out_cap edges).
// joint: nxt holds 2 n + 2 words, the tree parents its last n (par left
// unallocated; the caller takes nxt.p + n + 2), so that between merges the
// pair is one block of n + 1 eight-byte words (the in-place forest's
// refill offsets).
static sg_status alloc_trees(sgk_ctx *c, uint64_t n, uint64_t out_cap, sgk_dbuf<uint64_t> &bestA,
                             sgk_dbuf<uint32_t> &bestB, sgk_dbuf<uint32_t> &nxt,
                             sgk_dbuf<uint32_t> &par, sgk_dbuf<uint32_t> &rn,
                             sgk_dbuf<uint32_t> &ou, sgk_dbuf<uint32_t> &ov,
                             sgk_dbuf<uint32_t> &ow, bool joint, sg_error *err)
{
    SGK_TRY(bestA.alloc(c, n + 1, "the forest per-tree minima", err));
    SGK_TRY(bestB.alloc(c, n, "the forest per-tree minima", err));
    if (joint) {
        SGK_TRY(nxt.alloc(c, 2 * n + 2, "the forest chosen trees and tree parents", err));
    } else {
        SGK_TRY(nxt.alloc(c, n, "the forest chosen trees", err));
        SGK_TRY(par.alloc(c, n, "the forest tree parents", err));
    }
    SGK_TRY(rn.alloc(c, n, "the forest new tree ids", err));
    const uint64_t oc = out_cap > 0 ? out_cap : 1;
    SGK_TRY(ou.alloc(c, oc, "the forest", err));
    SGK_TRY(ov.alloc(c, oc, "the forest", err));
    SGK_TRY(ow.alloc(c, oc, "the forest", err));
    return SG_OK;
}

// The checks both executors make (a NULL argument, a directed or
// unweighted graph, more than 2^32 - 1 vertices); sets *n_edges = 0.
static sg_status forest_check(const char *fn, const sgk_ctx *c, const sgk_graph *g,
                              const uint32_t *u, const uint32_t *v, const uint32_t *w,
                              uint64_t *n_edges, const sgk_stats *stats, sg_error *err)
{
    if (!c || !g || !u || !v || !w || !n_edges || !stats)
        return sgi_fail(err, SG_E_INVALID, "%s: NULL argument", fn);
    if (g->d.directed)
        return sgi_fail(err, SG_E_INVALID,
                        "minimum spanning forest needs an undirected graph (this one is directed)");
    if (!g->d.has_weights)
        return sgi_fail(err, SG_E_INVALID,
                        "minimum spanning forest needs edge weights (the graph has none)");
    if (g->d.n > (uint64_t)NONE32)
        return sgi_fail(err, SG_E_INVALID, "%llu vertices: the GPU forest takes at most 2^32 - 1",
                        (unsigned long long)g->d.n);
    *n_edges = 0;
    return SG_OK;
}

// The counters of a forest with nothing to find (n <= 1 or no edges).
static void forest_nothing(sgk_stats *stats, bool inplace)
{
    stats->seconds_preprocess = 0;
    stats->seconds_compute = 0;
    sgk_stats_set(stats, "iterations", 0);
    sgk_stats_set(stats, "edges_skipped", 0);
    sgk_stats_set(stats, "segments_scanned", 0);
    sgk_stats_set(stats, "contractions", 0);
    sgk_stats_set(stats, "contracted_edges", 0);
    sgk_stats_set(stats, "host_list_bytes", 0);
    sgk_stats_set(stats, "download_bytes", 0);
    if (inplace) {
        sgk_stats_set(stats, "entries_read", 0);
        sgk_stats_set(stats, "cache_slots", 0);
        sgk_stats_set(stats, "lists_refilled", 0);
        sgk_stats_set(stats, "cpu_lists", 0);
        sgk_stats_set(stats, "cpu_long_lists", 0);
        sgk_stats_set(stats, "cpu_entries_read", 0);
        sgk_stats_set(stats, "gpu_first_entries", 0);
        sgk_stats_set(stats, "first_sparse_tiles", 0);
        sgk_stats_set(stats, "first_loop_tiles", 0);
        sgk_stats_set(stats, "prefix_sparse_tiles", 0);
        sgk_stats_set(stats, "prefix_loop_tiles", 0);
        sgk_stats_set(stats, "rank_fill_tiles", 0);
        sgk_stats_set(stats, "cpu_upload_bytes", 0);
        sgk_stats_set(stats, "packed_tail", 0);
        sgk_stats_set(stats, "packed_gpu_entries", 0);
        sgk_stats_set(stats, "packed_cpu_entries", 0);
        sgk_stats_set(stats, "cpu_chunks", 0);
        sgk_stats_set(stats, "cpu_chunks_packed", 0);
        sgk_stats_set(stats, "cpu_chunks_s48", 0);
    }
}

// The CPU threads' part of the first round: chunks claimed from mt filled
// from the host arrays (the K lightest entries other than self-loops: in
// the first round every tree is one vertex) into a staging buffer and sent
// to vc on the copy stream while the next chunk is filled; each list by
// topk (kernels/cpu_topk.h). Unless "share-packed" is disabled a chunk's
// runs of empty lists at either end are passed over, and a chunk goes
// packed where lists are sparse (below): the lists with entries as records
// with their vertices, which k_share_scatter reads from the staging buffer
// into vc; else every vertex's slots are copied (32 bytes each for K = 4,
// empty or not). Adds the lists with entries, those taken in blocks (the
// top-K's filter), their entries and the leaving ones, the bytes sent, the
// chunks sent and of them the packed ones, and the microseconds spent
// waiting for a staging buffer (its last copy). (Every chunk's pieces in
// one parallel region instead, a thread that found a chunk's pieces
// handed out opening the next in the other staging buffer, made the
// threads 3-5 % faster on SSCA2 26 and the GPU side beside them as much
// slower: the first round no shorter at 16 threads, on R-MAT 26 ~10 ms
// longer at the median, shorter only with 8 threads; docs/benchmarks.md,
// thirty-fifth session.)
static sg_status cpu_first_fill(sgk_ctx *c, const sgk_cpu_share &sh, sgk_meet &mt,
                                uint64_t maxe, sgk_topk_fn topk, const uint8_t *e48, int idbits,
                                sgk_topk48_fn topk48, bool f32, bool filter, bool prefetch,
                                bool packed, bool sparse_only, int s48, int K, uint64_t *vc,
                                uint64_t &lists, uint64_t &longs, uint64_t &entries,
                                uint64_t &leaving, uint64_t &sent, uint64_t &chunks,
                                uint64_t &packs, uint64_t &chunks48, uint64_t &wait_us,
                                sg_error *err)
{
    const uint64_t per = 8 * (uint64_t)K;
    const uint64_t per48 = 6 * (uint64_t)K;
    // sh.stream: the slots' whole lines (6 bytes a slot or 8) go to host
    // memory by non-temporal stores, their lines not read first, the lists
    // taken in runs through a buffer. Off by default: in the forty-ninth
    // session's runs on an H200 host no first round was shorter for it
    // (SSCA2 26 2 of 4, R-MAT 26 2 of 4; the hosts' CPU may already write
    // whole lines without reading them).
    const sgk_topk_src src = {sh.x, sh.a, sh.w, f32, sh.w16, sh.w8, e48, idbits,
                              topk, topk48, K, filter, prefetch, sh.stream};
    bool use48 = s48 > 0; // until a chunk's slot does not fit in 6 bytes
    const uint64_t np = 8 * (uint64_t)sh.threads;
    // packed: records, then their vertices, then the pieces' table
    const uint64_t tblb = 8 * np;
    if (packed && tblb + 64 >= SGK_STAGE_BYTES)
        return sgi_fail(err, SG_E_INVALID, "the forest's CPU share: %d threads' pieces overrun "
                        "a staging buffer", sh.threads);
    const uint64_t maxv = packed ? (SGK_STAGE_BYTES - tblb) / (per + 4) : SGK_STAGE_BYTES / per;
    uint64_t v0 = 0, v1 = 0;
    std::vector<uint64_t> cut;
    try {
        cut.resize(np + 1);
    } catch (...) {
        return sgi_fail(err, SG_E_NOMEM, "the forest's CPU share: %d threads' piece bounds",
                        sh.threads);
    }
    const uint64_t *x = sh.x;
    // Whether this chunk goes packed: the first one does, a later one only
    // where the chunk before had at most 3 lists with entries in 4 vertices
    // ("share-sparse" disabled: every one). A dense chunk's records and
    // vertices are more bytes than its slots, and they go by the scatter's
    // reads of pinned memory rather than the copy engine. R-MAT 26 at 6G in
    // descending degree order (trimmed chunks dense): the first round
    // 184-187 to 172-178 ms, the threads' waits for a staging buffer 9-12
    // ms to 0; even on SSCA2 26 and in the generator's order, where every
    // chunk is sparse (docs/benchmarks.md, twenty-eighth session).
    bool pack = packed;
    while (mt.cpu(maxv, maxe, v0, v1)) {
        if (packed) { // from the chunk's first list with entries to past its last
            if (x[v1] == x[v0]) continue;
            v0 = mt.first_at(v0, v1, x[v0] + 1) - 1;
            v1 = mt.first_at(v0, v1, x[v1]);
        }
        sgk_stage stg = {nullptr, 0, 0};
        const double tw = sgi_now();
        SGK_TRY(sgk_stage_begin(c, &stg, err));
        wait_us += sgk_us_since(tw);
        const uint64_t cnt = v1 - v0;
        uint64_t *out = static_cast<uint64_t *>(stg.buf);
        uint32_t *idx = pack ? reinterpret_cast<uint32_t *>(out + maxv * (uint64_t)K) : nullptr;
        uint32_t *tbl = pack ? idx + maxv : nullptr;
        // Pieces of about equal work (entries plus vertices, sgk_meet::cuts),
        // not of equal vertices: on a store renumbered by degree the hubs
        // sit together, and a fixed count of vertices per thread left one
        // thread all of them (R-MAT 26 in ascending degree order: the CPU
        // side read ~1 G entries per second against ~4 G in the generator's
        // order).
        mt.cuts(v0, v1, np, cut.data());
        uint64_t nl = 0, nlong = 0, ne = 0, nlv = 0, nrec = 0;
        uint8_t *out48 = reinterpret_cast<uint8_t *>(out);
        // The chunk's pieces by the threads, the slots in 6 bytes (w48) or 8;
        // false where some slot did not fit in 6.
        auto fill = [&](bool w48) -> bool {
            nl = nlong = ne = nlv = nrec = 0;
            bool fits = true;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : nl, nlong, ne, nlv, nrec) \
    reduction(&& : fits) num_threads(sh.threads)
            for (uint64_t pc = 0; pc < np; pc++) {
                sgk_topk_tally t = {0, 0, 0, 0};
                const uint64_t at = cut[pc] - v0;
                uint32_t *const ix = pack ? idx + at : nullptr;
                bool ok = true;
                const uint64_t r =
                    w48 ? sgk_topk_fill48(&src, s48, cut[pc], cut[pc + 1], out48 + at * per48, ix,
                                          &t, &ok)
                        : sgk_topk_fill(&src, cut[pc], cut[pc + 1], out + at * K, ix, &t);
                fits = fits && ok;
                if (pack) {
                    tbl[2 * pc] = (uint32_t)at;
                    tbl[2 * pc + 1] = (uint32_t)r;
                    nrec += r;
                }
                nl += t.lists;
                nlong += t.longs;
                ne += t.entries;
                nlv += t.leaving;
            }
            return fits;
        };
        // A slot that does not fit in 6 bytes (a weight of 2^(48 - id bits)
        // - 1 or more) takes the chunk again in 8, and the rest of the round
        // goes so: one chunk's top-K done twice at most. Records (a packed
        // chunk) go in 8 bytes unless sh.records48: where chunks are packed
        // (R-MAT's lists, many empty) the slots are ~3 % of the round's
        // host-memory bytes, and in 6 bytes the first round was no shorter
        // (3 of 8 pairs, +3 ms on the means) while the threads took a few
        // per cent fewer entries a second; where every vertex's slots go
        // (SSCA2's) they are ~14 %, and the round was 2 % shorter (5 of 7
        // pairs; docs/benchmarks.md, forty-eighth session).
        const bool try48 = use48 && (!pack || sh.records48);
        const bool w48 = try48 && fill(true);
        if (!w48) {
            if (try48) use48 = false;
            (void)fill(false);
        }
        lists += nl;
        longs += nlong;
        entries += ne;
        leaving += nlv;
        if (pack && w48) {
            k_share_scatter48<<<(unsigned)np, BLK, 0, c->copy>>>(tbl, idx, out48, K, s48, vc);
            SGK_LAUNCHED("k_share_scatter48");
            sent += nrec * (per48 + 4) + tblb;
            packs++;
        } else if (pack) {
            k_share_scatter<<<(unsigned)np, BLK, 0, c->copy>>>(tbl, idx, out, K, vc);
            SGK_LAUNCHED("k_share_scatter");
            sent += nrec * (per + 4) + tblb;
            packs++;
        } else if (w48) {
            const uint64_t ns = cnt * (uint64_t)K;
            k_slots48_expand<<<grid(c, (ns + S48_TILE - 1) / S48_TILE * BLK), BLK, 0, c->copy>>>(
                out48, ns, s48, vc + v0 * (uint64_t)K);
            SGK_LAUNCHED("k_slots48_expand");
            sent += cnt * per48;
        } else {
            SGK_TRY(sgk_stage_copy(c, &stg, 0, vc + v0 * (uint64_t)K, cnt * per, err));
            sent += cnt * per;
        }
        chunks48 += w48;
        SGK_TRY(sgk_stage_end(c, &stg, err));
        chunks++;
        pack = packed && (!sparse_only || 4 * nl <= 3 * cnt);
    }
    return sgk_stage_finish(c, nullptr, nullptr, nullptr, err);
}

} // namespace

uint64_t sgk_mst_bytes(uint64_t n, uint64_t m)
{
    const uint64_t A = a_items(m, n + 1);
    const uint64_t pre = 8 * A + 16 * (n + 1) + 8 * (m / BIG_SEG + 2);
    const uint64_t out = 12 * (n > 1 ? n - 1 : 1);
    const uint64_t loop = 89 * n + 24 + out + 20 * (m / CONTRACT_DIV);
    return 8 * m + (pre > loop ? pre : loop) + 16 * (n + 1) + CUB_SLACK + 4096;
}

sg_status sgk_mst(sgk_ctx *c, const sgk_graph *g, uint32_t *u, uint32_t *v, uint32_t *w,
                  uint64_t *n_edges, sgk_stats *stats, sg_error *err)
{
    SGK_TRY(forest_check("sgk_mst", c, g, u, v, w, n_edges, stats, err));
    if (g->spilled || !g->w)
        return sgi_fail(err, SG_E_UNSUPPORTED,
                        "the in-core GPU forest needs the whole graph in device memory (a "
                        "split graph runs on sgk_mst_inplace, the hybrid backend's forest)");
    const uint64_t n = g->d.n, m = g->d.m;
    const bool f32 = g->d.f32;
    const bool probe = !sgk_ctx_disabled(c, "first-probe");
    const bool contract_on = !sgk_ctx_disabled(c, "contract");
    const bool sorted = sgk_ctx_disabled(c, "unsorted-trees");
    cudaStream_t st = c->stream;
    uint64_t iters = 0, scanned = 0, contractions = 0, cedges = 0;
    ull h[C_NCTR];
    memset(h, 0, sizeof h);
    if (n <= 1 || m == 0) {
        forest_nothing(stats, false);
        return SG_OK;
    }
    const double t0 = sgi_now();
    Ctx X;
    X.c = c;
    X.err = err;
    sgk_dbuf<ull> dctr;
    SGK_TRY(dctr.alloc(c, CTR_BYTES / 8, "the MST counters", err));
    sgk_dbuf<uint64_t> E;
    SGK_TRY(E.alloc(c, m, "the MST sorted lists", err));
    k_fill<<<grid(c, m), BLK, 0, st>>>(g->a, g->w, f32, m, E);
    SGK_LAUNCHED("k_fill");
    // A store in weight order fills E sorted already (the lists are by
    // (key, nbr), the order the sort makes).
    if (!g->d.weight_order) SGK_TRY(sort_lists(X, g, E.p, dctr.p));

    // Per-vertex and per-tree arrays.
    sgk_dbuf<uint64_t> lo, candA, bestA;
    sgk_dbuf<uint32_t> comp, S0, S1, candB, candT, tkA, tkB, unres, heavy, bestB, nxt, par, rn;
    sgk_dbuf<uint8_t> flags;
    sgk_dbuf<uint32_t> ou, ov, ow;
    const uint64_t cap = n - 1;
    SGK_TRY(lo.alloc(c, n, "the MST segment starts", err));
    SGK_TRY(comp.alloc(c, n, "the MST tree ids", err));
    SGK_TRY(S0.alloc(c, n, "the MST scan list", err));
    SGK_TRY(S1.alloc(c, n, "the MST scan list", err));
    SGK_TRY(candA.alloc(c, n + 1, "the MST candidates", err));
    SGK_TRY(candB.alloc(c, n, "the MST candidates", err));
    SGK_TRY(candT.alloc(c, n, "the MST candidates", err));
    SGK_TRY(flags.alloc(c, n, "the MST keep flags", err));
    SGK_TRY(tkA.alloc(c, n, "the MST tree keys", err));
    SGK_TRY(tkB.alloc(c, n, "the MST tree keys", err));
    SGK_TRY(unres.alloc(c, n, "the MST warp queue", err));
    SGK_TRY(heavy.alloc(c, n, "the MST block queue", err));
    SGK_TRY(alloc_trees(c, n, n - 1, bestA, bestB, nxt, par, rn, ou, ov, ow, false, err));

    // One CUB scratch for the rounds: the largest of their queries.
    {
        size_t t1 = 0, t2 = 0, t3 = 0, t4 = 0;
        SGK_CU(cub::DeviceSelect::Flagged(nullptr, t1, S0.p, flags.p, S1.p, dctr.p + C_NSEL,
                                          (int64_t)n, st));
        SGK_CU(cub::DeviceScan::ExclusiveSum(nullptr, t2, nxt.p, rn.p, n, st));
        SGK_CU(cub::DeviceScan::ExclusiveSum(nullptr, t3, candA.p, bestA.p, n + 1, st));
        cub::DoubleBuffer<uint32_t> kk(tkA.p, tkB.p), vv(S0.p, S1.p);
        SGK_CU(cub::DeviceRadixSort::SortPairs(nullptr, t4, kk, vv, n, 0, 32, st));
        size_t mx = t1;
        if (t2 > mx) mx = t2;
        if (t3 > mx) mx = t3;
        if (t4 > mx) mx = t4;
        SGK_TRY(X.grow(mx));
    }

    SGK_CU(cudaMemsetAsync(dctr.p, 0, CTR_BYTES, st));
    k_init<<<grid(c, n), BLK, 0, st>>>(g->x, n, comp, lo, bestA, bestB, S1, flags);
    SGK_LAUNCHED("k_init");
    size_t tb = X.tmp.n;
    SGK_CU(cub::DeviceSelect::Flagged(X.tmp.p, tb, S1.p, flags.p, S0.p, dctr.p + C_NSEL,
                                      (int64_t)n, st));
    SGK_CU(cudaMemcpyAsync(h, dctr.p, sizeof h, cudaMemcpyDeviceToHost, st));
    SGK_CU(cudaStreamSynchronize(st));
    uint32_t *scan = S0.p, *spare = S1.p;
    uint64_t ns = h[C_NSEL], k = n;
    const double t1 = sgi_now();
    stats->seconds_preprocess = t1 - t0;

    // ---------------------------------------------------------- vertex mode
    bool edge_mode = false;
    sgk_dbuf<uint32_t> C[2][5]; // key, min, max, tree of min, tree of max
    uint64_t ne = 0;
    while (ns > 0 && k > 1) {
        iters++;
        scanned += ns;
        SGK_TRY(round_guard(iters, n, k, err));
        SGK_TRY(find_round(c, scan, ns, (const uint64_t *)g->x, EntDev{E.p}, lo.p, comp.p,
                           SinkCore{candA.p, candB.p, candT.p}, unres.p, heavy.p, probe, dctr.p,
                           err));
        const EdgeCands ec = {candA, candB, candT};
        k_reduce1<<<grid(c, ns), BLK, 0, st>>>(ns, ec, bestA);
        SGK_LAUNCHED("k_reduce1");
        k_reduce2<<<grid(c, ns), BLK, 0, st>>>(ns, ec, bestA, bestB);
        SGK_LAUNCHED("k_reduce2");
        // merge (shared with edge mode below)
        SGK_TRY(merge_round(c, n, k, cap, f32, X.tmp.p, X.tmp.n, dctr.p, bestA.p, bestB.p, comp.p,
                            nxt.p, par.p, rn.p, ou.p, ov.p, ow.p, false, false, err));
        k_keep<<<grid(c, ns), BLK, 0, st>>>(ns, scan, candA, comp, flags);
        SGK_LAUNCHED("k_keep");
        tb = X.tmp.n;
        SGK_CU(cub::DeviceSelect::Flagged(X.tmp.p, tb, scan, flags.p, spare, dctr.p + C_NSEL,
                                          (int64_t)ns, st));
        SGK_CU(cudaMemsetAsync(dctr.p + C_REMAIN, 0, sizeof(ull), st));
        k_remain<<<grid(c, ns), BLK, 0, st>>>(spare, g->x, lo, dctr);
        SGK_LAUNCHED("k_remain");
        SGK_CU(cudaMemcpyAsync(h, dctr.p, sizeof h, cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        {
            uint32_t *tp = scan;
            scan = spare;
            spare = tp;
        }
        const uint64_t knew = h[C_KNEW];
        ns = h[C_NSEL];
        if (h[C_OUT] > cap)
            return sgi_fail(err, SG_E_DEVICE, "GPU forest: %llu edges recorded for %llu vertices",
                            (unsigned long long)h[C_OUT], (unsigned long long)n);
        if (knew > 0) {
            k_reset_best<<<grid(c, knew), BLK, 0, st>>>(knew, bestA, bestB);
            SGK_LAUNCHED("k_reset_best");
        }
        k = knew;
        if (ns == 0 || k <= 1) break;
        const uint64_t R = h[C_REMAIN];
        if (contract_on && R <= m / CONTRACT_DIV) {
            // ------------------------------------------------ contraction
            k_lens<<<grid(c, ns + 1), BLK, 0, st>>>(ns, scan, g->x, (const uint64_t *)lo.p, candA.p);
            SGK_LAUNCHED("k_lens");
            tb = X.tmp.n;
            SGK_CU(cub::DeviceScan::ExclusiveSum(X.tmp.p, tb, candA.p, bestA.p, ns + 1, st));
            const uint64_t ccap = R ? R : 1;
            for (int j = 0; j < 5; j++)
                SGK_TRY(C[0][j].alloc(c, ccap, "the MST contracted edges", err));
            SGK_CU(cudaMemsetAsync(dctr.p + C_NE, 0, sizeof(ull), st));
            if (R > 0) {
                k_cbuild<<<grid(c, (R + CB_PER - 1) / CB_PER), BLK, 0, st>>>(
                    ns, R, bestA, scan, lo, E, comp, C[0][0], C[0][1], C[0][2], C[0][3],
                    C[0][4], ccap, dctr);
                SGK_LAUNCHED("k_cbuild");
            }
            k_reset_best<<<grid(c, k), BLK, 0, st>>>(k, bestA, bestB);
            SGK_LAUNCHED("k_reset_best");
            SGK_CU(cudaMemcpyAsync(h, dctr.p, sizeof h, cudaMemcpyDeviceToHost, st));
            SGK_CU(cudaStreamSynchronize(st));
            ne = h[C_NE];
            if (ne > ccap)
                return sgi_fail(err, SG_E_DEVICE, "GPU forest: contracted list overflow");
            E.release();
            for (int j = 0; j < 5; j++)
                SGK_TRY(C[1][j].alloc(c, ccap, "the MST contracted edges", err));
            contractions = 1;
            cedges = ne;
            edge_mode = true;
            break;
        }
        if (sorted) {
            k_tree_keys<<<grid(c, ns), BLK, 0, st>>>(ns, scan, comp, tkA);
            SGK_LAUNCHED("k_tree_keys");
            cub::DoubleBuffer<uint32_t> kk(tkA.p, tkB.p), vv(scan, spare);
            tb = X.tmp.n;
            SGK_CU(cub::DeviceRadixSort::SortPairs(X.tmp.p, tb, kk, vv, ns, 0,
                                                   (int)bit_len(k - 1), st));
            if (vv.Current() != scan) {
                spare = scan;
                scan = vv.Current();
            }
        }
    }

    // ---------------------------------------------------------- edge mode
    if (edge_mode)
        SGK_TRY(edge_rounds(X, n, k, ne, cap, f32, C, dctr.p, h, bestA.p, bestB.p, comp.p, nxt.p,
                            par.p, rn.p, ou.p, ov.p, ow.p, iters));
    SGK_CU(cudaMemcpyAsync(h, dctr.p, sizeof h, cudaMemcpyDeviceToHost, st));
    SGK_CU(cudaStreamSynchronize(st));
    const double t2 = sgi_now();
    stats->seconds_compute = t2 - t1;
    const uint64_t out = h[C_OUT];
    if (out > cap)
        return sgi_fail(err, SG_E_DEVICE, "GPU forest: %llu edges recorded for %llu vertices",
                        (unsigned long long)out, (unsigned long long)n);
    // The working arrays go before the forest is sorted (its scratch may need them).
    lo.release(), candA.release(), bestA.release(), comp.release(), S0.release();
    S1.release(), candB.release(), candT.release(), tkA.release(), tkB.release();
    unres.release(), heavy.release(), bestB.release(), nxt.release(), par.release();
    rn.release(), flags.release(), E.release(), X.tmp.release();
    SGK_TRY(forest_out(c, out, ou.p, ov.p, ow.p, f32, u, v, w, stats, err));
    *n_edges = out;
    sgk_stats_set(stats, "iterations", iters);
    sgk_stats_set(stats, "edges_skipped", h[C_SKIPPED]);
    sgk_stats_set(stats, "segments_scanned", scanned);
    sgk_stats_set(stats, "contractions", contractions);
    sgk_stats_set(stats, "contracted_edges", cedges);
    sgk_stats_set(stats, "host_list_bytes", 0); // the whole graph in device memory
    return SG_OK;
}

// ------------------------------------------------------------ the in-place executor
//
// METHOD (sgk_mst_inplace, the hybrid backend's forest). The lists are not
// copied or sorted: there is no room for E (8 m bytes) when the graph does
// not fit, and sorting host-resident lists would cost more than the rounds.
// A walk reads the whole list of every vertex on its list where it lives
// (device prefix or host, through the split arrays), entry parallel in
// warp tiles so that spilled lists stream in 128-byte requests; W is read
// only for entries that leave their tree.
// THE VERTEX CACHE (K = 1..4 slots per vertex, as many as the budget's free
// memory holds): the first round's walk keeps, per vertex, the K lightest
// leaving entries (key << 32 | nbr). A later round takes each vertex's
// candidate from its cache (the first entry still leaving: trees only
// grow, so every lighter entry is inside for good) and the per-tree minima
// from those; a vertex whose K entries are all inside ("spent") has a lower
// bound, its last slot's key, and its list is read again (refilling the
// cache with the K lightest entries leaving now) only when that bound does
// not exceed its tree's minimum key; then the minima are taken again. On
// R-MAT (CPU model, scale 21) this reads about 2.2 m entries in all against
// 6 m when every round reads every live list; the last rounds, where the
// giant tree's caches are spent and it has no cached candidate, read most.
// THE CPU SHARE (sgk_cpu_share): in the first round OpenMP threads fill
// caches from the host arrays (the K lightest entries other than
// self-loops), chunk by chunk through the staging buffers, while the GPU
// walks the other lists. The GPU claims pieces of entries from the lowest
// host entry up (on a thread of its own, one claim per piece done), the
// CPU chunks of vertices from n down, until they meet (sgk_meet, cpu_share.cuh); with
// "dynamic-split" disabled at the plan's split `from`. R-MAT 26 at 6G: the
// fixed split left the CPU 0.06-0.12 s behind; meeting, both end together.
// THE STREAMED FIRST ROUND: the host-resident entries the GPU walks in the
// first round (every list is read then, in order) are copied to device
// buffers in pieces on a second stream (DMA from pinned memory, a copy
// kernel from managed memory), the walk of one piece overlapping the copy
// of the next.
// Without room for one slot (or "vertex-cache" disabled) every round reads
// every live list (per vertex the lightest leaving entry is the candidate).
// Per tree the minimum as in the in-core D, then the same merge (E) and
// scan-list selection (F): a vertex with no leaving entry and no spent
// cache is dropped for good.
// LISTS IN WEIGHT ORDER (sgk_graph_desc.weight_order, on a graph with hubs:
// the rule at `word` below): a list's K lightest leaving entries are its
// first K leaving ones, so the cache is filled from the heads (k_sfill: 8
// lanes per list, a 32-byte sector of A a step, W only for the entries
// taken), resuming at the next refill where the last one stopped (hd, rs:
// 4-byte offsets per vertex, so no entry is read twice); no CPU share and
// no streamed first round. R-MAT 26 at 6G: 0.18-0.21 s against 0.41-0.45 s
// over whole lists, 1.9 against 12 GB over PCIe. Without room for a slot,
// the in-core kernels A, B and C probe the heads every round (lo, queues:
// 16 bytes per vertex; 0.53-0.59 s there). The contraction's gather starts
// at the heads.
// Contraction: L bounds the leaving entries, the count of a walk over every
// live list or, with the cache, the kept lists' lengths; the copies with
// v < nbr are at most L / 2. When a list of L / 2 edges (20 bytes each)
// fits in the budget's free memory (the cache freed first), and a second
// one once the vertex-mode arrays (25 bytes per vertex) are freed, the next
// round gathers the edges between trees into a device list and the rest
// runs in edge mode on the device (the in-core edge rounds), reading the
// graph no more. The hybrid backend leaves room for it (src/gpu_engine.c),
// which the cache uses until then.
// DEVICE MEMORY: comp 4, per-tree minima 12 (the walks' list offsets share
// their words), nxt/par/rn 12 bytes per vertex; two scan lists 8, keep
// flags 1, vertex candidates 8 (with the cache a slot number, 1) and the
// forest 12 bytes per vertex with a list (57 n at most) + CUB scratch;
// graph prefixes are the caller's; the cache (8 K n) and the streamed
// pieces only from what the budget leaves free. (Sharing the offsets and
// the slot numbers took SSCA2 26 at 6G from two slots to four.) Lists in
// weight order add 8 bytes per vertex (hd, rs; or lo and the queues: 16).
// DISABLE NAMES: vertex-cache (no cache), wide-cache (one slot), cpu-share,
// dynamic-split (the CPU share fixed at the plan's split), stream-first
// (the first round reads host lists in place), dma-pull (its pieces copied
// by a kernel, not DMA), dma-queue (DMA pieces beside a CPU share on a
// stream of their own, up to STREAM_MAX entries), topk-filter (the CPU
// share's long lists entry by entry, not in filtered blocks), topk-simd
// (the CPU share's top-K scalar, not AVX-512), topk-pairs (its lists of
// 17-64 entries one at a time, not two neighbours together), topk-prefetch
// (its lists read on demand misses and the hardware's prefetch alone),
// share-chunks (the CPU share's chunks of at most 16 entries past their
// first vertex, not a streamed piece's: a test mode), walk-batch (each
// lane's reads of a walk tile one after the other, not issued together),
// contract, contract-gate (a test mode: the contraction as soon as its
// lists fit, not only once its bound is at most m / CONTRACT_DIV), weight-
// order (lists in weight order read whole, as any),
// heads-rule (their heads read on a graph without hubs too), fill-rank
// (the cache's fills without hubs by k_hwalk's offers, not by rank),
// dense-trees (tree ids are the vertex ids, not ranks among the vertices
// with a list), jump-roots (the merge's pointer
// jumping launched again until nothing changes, not until every thread
// reached its root; in core too), first-minima (the first round's minima
// by pick and reduce and its choices by the merge's k_choose, not in one
// pass over the first cache slots), refill-pick (after a refill every
// vertex's slot picked again, and again when nothing was refilled, not the
// refilled vertices' alone; refill-minima off too), refill-minima (after a
// refill the minima taken over every vertex again, not merged from the
// refilled vertices' candidates); merge (a test mode: no round merges a
// tree, and the rounds stop at round_guard's limit with an error).
// COUNTERS: weight_order (1: the heads were read), dense_trees (1: the
// trees to merge are the vertices with a list, ids dense),
// first_minima_fused (1: the first round took k_first_minima),
// picks_skipped (later rounds whose second pick took the refilled vertices
// alone or was not needed), minima_refilled (of those, the rounds whose
// minima took the refilled vertices' candidates alone), first_offsets_us,
// first_join_us, first_minima_us, first_merge_us, first_keep_us (the
// first round's vertex work around its fill, from events), entries_read (list entries the walks read), host_list_bytes (A
// and W bytes they read from host memory), cache_slots (K), lists_refilled
// (lists read to fill a cache, the first round's included), cpu_lists,
// cpu_long_lists (those taken in blocks) and cpu_entries_read (the CPU
// share's), gpu_first_entries (the first round's
// entries the GPU walked: with the CPU's, every entry once),
// streamed_bytes and streamed_pieces (the streamed first round's, counted
// in host_list_bytes too), packed_tail (1: the first round read the packed
// tail), packed_gpu_entries and packed_cpu_entries (the entries each side
// read from it), rank_fill_tiles (the tiles filled by rank), iterations,
// segments_scanned, edges_skipped, contractions, contracted_edges.

namespace {
constexpr uint64_t HYB_CUB = (uint64_t)2 << 20; // CUB scratch bound beyond n / 16
constexpr uint64_t STREAM_MAX = (uint64_t)16 << 20;  // entries per streamed piece, at most
constexpr uint64_t STREAM_MIN = (uint64_t)4 << 20;   // and at least, on large graphs
constexpr uint64_t GATHER_PIECE = (uint64_t)16 << 20; // "gather-stream": entries per piece

// The caller's forest arrays (u, v, w: host memory of `cap` edges at least)
// as the speculative gather's list, written by the device through their
// mapping, where the caller pinned them; with `pin` (the experiment
// "spec-host") pinned here otherwise (and unpinned when done) where each
// is whole 2 MiB pages (sgi_huge_alloc's arrays of 2 MiB or more; smaller
// ones may share a page, and a buffer of their own is allocated pinned
// instead). h: the three lists' host addresses, d: their device addresses
// (none: null).
struct HostList {
    void *h[3] = {nullptr, nullptr, nullptr};
    uint32_t *d[3] = {nullptr, nullptr, nullptr};
    bool mine[3] = {false, false, false};
    void *own = nullptr;
    sg_status open(uint32_t *u, uint32_t *v, uint32_t *w, uint64_t cap, bool pin,
                   sg_error *err)
    {
        uint32_t *a[3] = {u, v, w};
        const size_t huge = (size_t)2 << 20, bytes = (size_t)(4 * cap);
        bool pinned[3], all = true, whole = bytes >= huge;
        for (int i = 0; i < 3; i++) {
            cudaPointerAttributes at;
            SGK_CU(cudaPointerGetAttributes(&at, a[i]));
            pinned[i] = at.type == cudaMemoryTypeHost;
            all = all && pinned[i];
            whole = whole && (uintptr_t)a[i] % huge == 0;
        }
        if (!all && !pin) return SG_OK; // (none: d stays null)
        if (!all && !whole) {
            SGK_TRY(sgk_host_alloc(3 * bytes, &own, err));
            for (int i = 0; i < 3; i++) h[i] = static_cast<char *>(own) + i * bytes;
        } else {
            for (int i = 0; i < 3; i++) {
                h[i] = a[i];
                if (pinned[i]) continue;
                SGK_TRY(sgk_host_register(a[i], (bytes + huge - 1) & ~(huge - 1), err));
                mine[i] = true;
            }
        }
        for (int i = 0; i < 3; i++) {
            void *dp = nullptr;
            SGK_CU(cudaHostGetDevicePointer(&dp, h[i], 0));
            d[i] = static_cast<uint32_t *>(dp);
        }
        return SG_OK;
    }
    ~HostList()
    {
        for (int i = 0; i < 3; i++)
            if (mine[i]) sgk_host_unregister(h[i]);
        sgk_host_free(own);
    }
};
constexpr uint64_t SHARE_TEST_CHUNK = 16; // a CPU chunk's entries with "share-chunks" off

// The first round's timing events, the events that pace its pieces
// (freed[b]: the walk of the last piece in slot b is done; blocking, so
// that the thread waiting on one sleeps while the CPU threads work) and,
// when it streams (stream set before open), its copy stream and ready[b]
// (the piece in slot b is in its buffers).
struct Pipe {
    bool stream = false;
    cudaStream_t s = nullptr;
    cudaEvent_t ready[2] = {nullptr, nullptr}, freed[2] = {nullptr, nullptr};
    cudaEvent_t t0 = nullptr, t1 = nullptr; // the first round's GPU walks (timed)
    cudaEvent_t trees = nullptr; // the trees copied to the host ("gather-cpu", made there)
    cudaEvent_t r0 = nullptr, r1 = nullptr; // a later round's refills (timed)
    // the first round's vertex work around its fill (timed): the round's
    // start, the fill joined, the minima, the merge, the keep and select
    cudaEvent_t v[5] = {nullptr, nullptr, nullptr, nullptr, nullptr};
    sg_status open(sg_error *err)
    {
        SGK_CU(cudaEventCreate(&t0));
        SGK_CU(cudaEventCreate(&t1));
        SGK_CU(cudaEventCreate(&r0));
        SGK_CU(cudaEventCreate(&r1));
        for (cudaEvent_t &e : v) SGK_CU(cudaEventCreate(&e));
        for (int b = 0; b < 2; b++)
            SGK_CU(cudaEventCreateWithFlags(&freed[b],
                                            cudaEventDisableTiming | cudaEventBlockingSync));
        return stream ? open_stream(err) : SG_OK;
    }
    // The copy stream and the ready events, if not made yet (the streamed
    // first round's; the streamed gathers' after it, gather_walk).
    sg_status open_stream(sg_error *err)
    {
        if (s) return SG_OK;
        SGK_CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        for (int b = 0; b < 2; b++)
            SGK_CU(cudaEventCreateWithFlags(&ready[b], cudaEventDisableTiming));
        return SG_OK;
    }
    ~Pipe()
    {
        if (s) (void)cudaStreamSynchronize(s);
        for (int b = 0; b < 2; b++) {
            if (ready[b]) (void)cudaEventDestroy(ready[b]);
            if (freed[b]) (void)cudaEventDestroy(freed[b]);
        }
        if (s) (void)cudaStreamDestroy(s);
        if (t0) (void)cudaEventDestroy(t0);
        if (t1) (void)cudaEventDestroy(t1);
        if (trees) (void)cudaEventDestroy(trees);
        if (r0) (void)cudaEventDestroy(r0);
        if (r1) (void)cudaEventDestroy(r1);
        for (cudaEvent_t e : v)
            if (e) (void)cudaEventDestroy(e);
    }
};
}

uint64_t sgk_mst_inplace_bytes(uint64_t n, bool weight_order)
{
    return (weight_order ? 73 : 57) * (n + 1) + 16 + (n + 1) / 16 + HYB_CUB + CTR_BYTES + 4096;
}

sg_status sgk_mst_inplace(sgk_ctx *c, const sgk_graph *g, const sgk_cpu_share *share, uint32_t *u,
                          uint32_t *v, uint32_t *w, uint64_t *n_edges, sgk_stats *stats,
                          sg_error *err)
{
    SGK_TRY(forest_check("sgk_mst_inplace", c, g, u, v, w, n_edges, stats, err));
    SGK_TRY(sgk_graph_ready(g, err));
    const bool batch = !sgk_ctx_disabled(c, "walk-batch");
// k_hwalk<MODE, batch> on the compute stream: HWALK(MODE, grid, arguments...)
#define HWALK(MODE, G, ...)                                                                        \
    do {                                                                                           \
        if (batch)                                                                                 \
            k_hwalk<MODE, true><<<G, BLK, 0, st>>>(__VA_ARGS__);                                   \
        else                                                                                       \
            k_hwalk<MODE, false><<<G, BLK, 0, st>>>(__VA_ARGS__);                                  \
    } while (0)
    SGK_TRY(sgk_share_check(g, share, "sgk_mst_inplace", err));
    const uint64_t n = g->d.n, m = g->d.m;
    const bool f32 = g->d.f32;
    const bool contract_on = !sgk_ctx_disabled(c, "contract");
    const bool contract_gate = !sgk_ctx_disabled(c, "contract-gate");
    // "gather-probe" (a diagnostic, SPILLGRAPH_GPU_ENABLE): after each later
    // round, the contraction's gather walked with no room to write, counting
    // the edges it would gather (their exact number, where the executor's
    // bound on them may be far above) and its time: counters
    // gather_probe_r<N>_edges and gather_probe_r<N>_us for rounds 2-13. The
    // run's other counters are left as they were; its compute time is not.
    const bool probe = sgk_ctx_enabled(c, "gather-probe");
    // The speculative contraction: on a graph without hubs whose lists have
    // a host part, once the live trees are at most n / SPEC_TREE_DIV (SSCA2
    // after its third round), the contraction is tried where the bound on
    // the leaving entries forbids it (it can be 10-20x the truth there).
    // The gather writes 12 bytes an edge (key, min, max; the trees after,
    // k_ctrees) into the caller's forest arrays in host memory (HostList:
    // unused until the download, room for n - 1 edges, written over the
    // link's idle direction), so the vertex cache stays on the device and
    // the gather counts past its room; if every edge fitted, the cache goes,
    // the list is copied in and the edge rounds finish, else nothing is lost
    // but the walk, and it is tried again once the trees are four times
    // fewer. By default only where the caller pinned the arrays
    // (SG_PREPARE_FOREST, which the CLI asks for, pinned while the store
    // loads): SSCA2 26 at 6 GiB, the forest 0.60-0.62 s to 0.51-0.54 s
    // (docs/benchmarks.md, fifty-first session). "spec-contract" disabled: never. Enabled (an
    // experiment): also where the arrays are not pinned, into the device
    // memory free beside the cache (which lost: the first try overflowed),
    // or with "spec-host" enabled too into the arrays, pinned here before
    // the clock starts (counter spec_pin_us). "spec-tiny" (a test mode)
    // gives the gather room for one edge. Counters spec_gathers,
    // spec_gathers_failed, spec_gather_us, spec_room_edges,
    // spec_first_edges (the first try's room and edges).
    const bool spec_forced = sgk_ctx_enabled(c, "spec-contract");
    const bool spec_allowed =
        !sgk_ctx_disabled(c, "spec-contract") && sgi_hub_free(n, m, g->d.max_degree);
    const bool spec_tiny = sgk_ctx_enabled(c, "spec-tiny");
    uint64_t spec_k = n / SPEC_TREE_DIV, spec_tries = 0, spec_failed = 0, spec_us = 0;
    uint64_t spec_room = 0, spec_first = 0;
    // "gather-stream": the gathers read the host part of A in pieces copied
    // to the device (gather_walk) where the lists they walk hold at least
    // half of it; enabled (a test mode): wherever A has a host part;
    // disabled: never.
    const bool gstream_on = !sgk_ctx_disabled(c, "gather-stream");
    const bool gstream_all = gstream_on && sgk_ctx_enabled(c, "gather-stream");
    // "defer-weights": the speculative gather's streamed pieces (past W's
    // device prefix) write each edge's position where its key goes, and
    // the host threads replace it with the key from W in host memory, a
    // piece behind the GPU (gather_walk), so that the walks read no W over
    // the link (35.5 M scattered reads on SSCA2 26, ~2 GB of the link's
    // time); where the caller's CPU share has host threads and A's host
    // part has fewer than 2^32 entries. Disabled: the walks read W.
    // Counters gather_deferred_edges, gather_defer_us.
    const bool gdefer_on = !sgk_ctx_disabled(c, "defer-weights");
    // "gather-cpu" (an experiment, SPILLGRAPH_GPU_ENABLE): the host threads
    // take pieces of the speculative gather's streamed walk from the top
    // (gather_walk) where the caller's CPU share brings a host array for
    // the trees (sgk_cpu_share.trees). It lost: on SSCA2 26 (labels
    // permuted) each entry's neighbour's tree is a random read of host
    // memory, ~0.6 G entries a second on 16 threads against the GPU's ~10 G,
    // and its reads slowed the DMA (docs/benchmarks.md, fifty-second
    // session). Counters gather_cpu_edges, gather_cpu_entries,
    // gather_cpu_pieces, gather_cpu_us.
    const bool gcpu_on = sgk_ctx_enabled(c, "gather-cpu");
    // 24-bit weights (desc.w24): W16 and W8 where W would be, read through
    // W24Arr (StagedW24 in the streamed pieces); every walk below takes its
    // weights from with_w, which calls fn with the graph's accessor.
    const bool w24 = g->d.w24;
    if (w24 && (f32 || g->d.weight_order || !g->d.has_weights))
        return sgi_fail(err, SG_E_INVALID,
                        "sgk_mst_inplace: 24-bit weights on a graph with f32 weights, lists in "
                        "weight order or no weights");
    const W24Arr w24a{g->W16, g->W8};
    const uint64_t wsplit = w24 ? g->W16.s : g->W.s; // first entry of W on the host
    auto with_w = [&](auto &&fn) -> sg_status { return w24 ? fn(w24a) : fn(g->W); };
    // Lists in weight order, on a graph with hubs: the cache is filled from
    // the heads of the lists (k_sfill), or without room for it each round
    // reads each scanned list from its head to its first leaving entry (A,
    // B, C over the lists in place). On a graph without hubs (SSCA2: lists
    // of ~32 entries, most inside a clique after the first round) the heads
    // are a large part of each list and are read as scattered sectors, while
    // whole lists stream: measured at SSCA2 26 and 6G, 1.10 s from the heads
    // against 0.82 s whole (docs/benchmarks.md); there the lists are read
    // whole, their order unused. "heads-rule" disabled: the heads whenever
    // the lists are in weight order; "weight-order" disabled: never.
    const bool word = g->d.weight_order && g->d.has_weights &&
                      !sgk_ctx_disabled(c, "weight-order") &&
                      (!sgi_hub_free(n, m, g->d.max_degree) || sgk_ctx_disabled(c, "heads-rule"));
    cudaStream_t st = c->stream;
    uint64_t iters = 0, scanned = 0, contractions = 0, cedges = 0;
    ull h[C_NCTR];
    memset(h, 0, sizeof h);
    stats->seconds_preprocess = 0;
    if (n <= 1 || m == 0) {
        forest_nothing(stats, true);
        return SG_OK;
    }
    HostList hlist;
    const bool pin_here = spec_forced && sgk_ctx_enabled(c, "spec-host");
    if (spec_allowed && (pin_here || (!spec_forced && g->A.s < m))) {
        const double tp = sgi_now();
        SGK_TRY(hlist.open(u, v, w, n - 1, pin_here, err));
        if (pin_here) sgk_stats_set(stats, "spec_pin_us", sgk_us_since(tp));
    }
    const bool spec = spec_allowed && (spec_forced || hlist.d[0] != nullptr);
    const double t1 = sgi_now();
    Ctx X;
    X.c = c;
    X.err = err;
    const sgk_arr<uint64_t> gx = g->X;
    sgk_dbuf<ull> dctr;
    sgk_dbuf<uint64_t> cand, bestA;
    sgk_dbuf<uint32_t> comp, S0, S1, bestB, nxt, par, rn, ou, ov, ow;
    sgk_dbuf<uint8_t> flags, cslot;
    SGK_TRY(dctr.alloc(c, CTR_BYTES / 8, "the forest counters", err));
    SGK_TRY(comp.alloc(c, n, "the forest tree ids", err));
    SGK_TRY(S0.alloc(c, n, "the forest scan list", err));
    SGK_TRY(S1.alloc(c, n, "the forest scan list", err));
    SGK_TRY(flags.alloc(c, n, "the forest keep flags", err));
    {
        size_t t1b = 0, t2b = 0, t3b = 0;
        SGK_CU(cub::DeviceSelect::Flagged(nullptr, t1b, S0.p, flags.p, S1.p, dctr.p + C_NSEL,
                                          (int64_t)n, st));
        SGK_CU(cub::DeviceScan::ExclusiveSum(nullptr, t2b, S0.p, S1.p, n, st));
        SGK_CU(cub::DeviceScan::ExclusiveSum(nullptr, t3b, cand.p, cand.p, n + 1, st));
        size_t mx = t1b > t2b ? t1b : t2b;
        if (t3b > mx) mx = t3b;
        SGK_TRY(X.grow(mx));
    }
    SGK_CU(cudaMemsetAsync(dctr.p, 0, CTR_BYTES, st));
    k_hinit<<<grid(c, n), BLK, 0, st>>>(gx, n, comp, S1, flags);
    SGK_LAUNCHED("k_hinit");
    size_t tb = X.tmp.n;
    SGK_CU(cub::DeviceSelect::Flagged(X.tmp.p, tb, S1.p, flags.p, S0.p, dctr.p + C_NSEL,
                                      (int64_t)n, st));
    SGK_CU(cudaMemcpyAsync(h, dctr.p, sizeof h, cudaMemcpyDeviceToHost, st));
    SGK_CU(cudaStreamSynchronize(st));
    uint64_t ns = h[C_NSEL], k = n;
    // The scan list never grows: the arrays indexed by its positions take
    // ns0 entries (the vertices with a list; about half of R-MAT's), and a
    // forest over them has at most ns0 - 1 edges. The per-tree arrays stay
    // n (tree ids start as vertex ids). At R-MAT 26 this frees ~1.2 GB,
    // which the vertex cache takes.
    const uint64_t ns0 = ns > 0 ? ns : 1;
    if (ns0 < n) {
        sgk_dbuf<uint32_t> t;
        SGK_TRY(t.alloc(c, ns0, "the forest scan list", err));
        SGK_CU(cudaMemcpyAsync(t.p, S0.p, ns * sizeof(uint32_t), cudaMemcpyDeviceToDevice, st));
        SGK_CU(cudaStreamSynchronize(st));
        S0.swap(t);
        t.release();
        SGK_TRY(S1.alloc(c, ns0, "the forest scan list", err));
        SGK_TRY(flags.alloc(c, ns0, "the forest keep flags", err));
    }
    SGK_TRY(cand.alloc(c, ns0, "the forest vertex candidates", err));
    // Lists in weight order: with the cache the heads and resume points
    // (hd, rs: offsets in the list, 8 bytes per vertex, so lists shorter
    // than 2^32); without, the probe rounds' absolute heads lo and queues.
    sgk_dbuf<uint64_t> lo;
    sgk_dbuf<uint32_t> unres, heavy, hd, rs;
    if (word) {
        SGK_TRY(hd.alloc(c, n, "the forest list heads", err));
        SGK_TRY(rs.alloc(c, n, "the forest list resume points", err));
        SGK_CU(cudaMemsetAsync(hd.p, 0, n * sizeof(uint32_t), st));
        SGK_CU(cudaMemsetAsync(rs.p, 0, n * sizeof(uint32_t), st));
    }
    const EntInPlace ent{g->A, g->W, f32};
    const uint64_t cap = ns > 0 ? ns - 1 : 0; // forest edges, at most
    SGK_TRY(alloc_trees(c, n, cap, bestA, bestB, nxt, par, rn, ou, ov, ow, true, err));
    uint32_t *const parp = nxt.p + n + 2; // (alloc_trees, joint)
    // The walks' list offsets (ns0 + 1 at most) share the per-tree minima's
    // n + 1 words: a round takes its offsets, walks, and only then its
    // minima (reduce resets them first); the contraction's gather too. A
    // later round's refill, whose minima are taken for its refilled vertices
    // alone (refill_minima below), keeps the minima and takes its offsets in
    // the merge's scratch instead (roff: nxt and the tree parents, free
    // between merges).
    uint64_t *const off = bestA.p;
    uint64_t *const roff = reinterpret_cast<uint64_t *>(nxt.p);
    uint32_t *scan = S0.p, *spare = S1.p;
    const unsigned wgrid = grid(c, m); // walks: grid-stride over the tiles
    // Dense tree ids: only the ns vertices with a list are trees to merge
    // (their ids in vertex order, so every tie breaks as by vertex id); the
    // others are finished trees from the start. The first round's minima
    // and merge then run over ns trees, not n (R-MAT 26: about 34 M of 67
    // M vertices have a list). "dense-trees" disabled: tree ids are the
    // vertex ids, and the vertices without a list drop out in the first
    // merge.
    const bool dense = !sgk_ctx_disabled(c, "dense-trees") && ns < n;
    if (dense) {
        SGK_CU(cudaMemsetAsync(comp.p, 0xff, n * sizeof(uint32_t), st));
        k_hrank<<<grid(c, ns), BLK, 0, st>>>(ns, scan, comp.p);
        SGK_LAUNCHED("k_hrank");
        k = ns;
    }

    // The vertex cache: as many slots per vertex (up to 4) as the budget's
    // free memory holds beyond a slack; none without room (every round
    // then reads every live list) or when disabled.
    const uint64_t slack = (uint64_t)16 << 20;
    auto free_room = [&]() -> uint64_t { // the budget's free bytes beyond the slack
        sgk_mem_stats ms;
        sgk_ctx_mem(c, &ms);
        return ms.budget > ms.in_use + slack ? ms.budget - ms.in_use - slack : 0;
    };
    // The streamed first round's smallest piece: STREAM_MIN entries, or an
    // eighth of the host entries on small graphs (at least 4096).
    const uint64_t hostp = g->A.s < wsplit ? g->A.s : wsplit; // first entry with a host part
    uint64_t smin = hostp < m ? (m - hostp + 7) / 8 : 0;
    smin = smin < 4096 ? 4096 : smin > STREAM_MIN ? STREAM_MIN : smin;
    int K = 0;
    sgk_dbuf<uint64_t> vc;
    // (lists in weight order fill it from their heads, at offsets below 2^32)
    if (!sgk_ctx_disabled(c, "vertex-cache") && !(word && g->d.max_degree >= UINT32_MAX)) {
        // with the cache a vertex's candidate is a slot (1 byte, not 8)
        uint64_t room = free_room() + 7 * cand.n;
        if (!word) room = room > 16 * smin ? room - 16 * smin : 0; // kept for the streaming
        const uint64_t fit = room / (8 * n);
        K = fit >= 4 ? 4 : (int)fit;
        if (K > 1 && sgk_ctx_disabled(c, "wide-cache")) K = 1;
        if (K > 0) {
            cand.release();
            SGK_TRY(cslot.alloc(c, ns0, "the forest candidates' cache slots", err));
            SGK_TRY(vc.alloc(c, (uint64_t)K * n, "the forest vertex cache", err));
            SGK_CU(cudaMemsetAsync(vc.p, 0xff, (uint64_t)K * n * sizeof(uint64_t), st));
        }
    }

    if (word && K == 0) {
        hd.release(), rs.release();
        SGK_TRY(lo.alloc(c, n, "the forest list heads", err));
        k_lo_init<<<grid(c, n), BLK, 0, st>>>(gx, n, lo);
        SGK_LAUNCHED("k_lo_init");
        SGK_TRY(unres.alloc(c, ns0, "the forest warp queue", err));
        SGK_TRY(heavy.alloc(c, ns0, "the forest block queue", err));
    }

    // The streamed first round (with the cache): the host-resident entries
    // the GPU walks are copied to device buffers piece by piece (two pieces
    // of A and W, SC entries each, as many as the budget's free memory holds
    // up to STREAM_MAX) on a copy stream while the walk reads the piece
    // before. From pinned memory DMA copies them (R-MAT 26 at 6G: the
    // forest 0.78 to 0.66 s); from managed memory DMA is 4x slower than
    // the walk's own reads (the driver does not copy host-resident managed
    // pages directly), so a kernel (k_pull) copies them, which gains
    // little (0.79 to 0.73 s). Without room or host entries (or with
    // "stream-first" disabled) the walk reads them in place; "dma-pull"
    // disabled: the kernel copies from pinned memory too.
    // DMA beside a CPU share: the CPU threads' results go to the device by
    // DMA too (sgk_stage_copy on the context's copy stream); with the
    // GPU's pieces on a stream of their own the copy engine served them
    // and left the threads' copies waiting: R-MAT 26 at 6G pinned, the
    // threads took 50-134 M of the first round's 2.1 G entries in 300 ms
    // (docs/benchmarks.md, twenty-first session). So the pieces go on the
    // same copy stream, in the order issued, and are at most STREAM_MIN
    // entries (32 MB of A and W), so that a threads' copy waits for two
    // of them at most (~1.2 ms). "dma-queue" disabled: their own stream,
    // pieces up to STREAM_MAX.
    const bool cpu_on =
        !word && K > 0 && share && share->from < n && !sgk_ctx_disabled(c, "cpu-share");
    uint64_t most = hostp < m ? (m - hostp) / 4 : 0; // four pieces or more on small graphs
    most = most < smin ? smin : most > STREAM_MAX ? STREAM_MAX : most;
    uint64_t SC = 0;
    sgk_dbuf<uint32_t> sbuf;
    Pipe pipe;
    // The packed tail (sgk_graph_set_packed; u32 weights, lists read whole
    // into the cache): the GPU's pieces past its start are one DMA of 6
    // bytes an entry from its pinned memory (whatever holds A and W, whose
    // pieces before it are copied as below; not with "dma-pull" disabled),
    // walked through PackedArr; where the caller
    // asked (he_cpu), the CPU threads' top-K reads it too (sgk_topk48_*).
    const bool e48 = g->he && !f32 && !word && K > 0;
    const bool cpu48 = e48 && g->he_cpu;
    const bool dma = !g->h_managed && !sgk_ctx_disabled(c, "dma-pull");
    const bool gpu48 = e48 && !sgk_ctx_disabled(c, "dma-pull"); // (the tail is pinned)
    uint64_t packed_gpu = 0; // counter packed_gpu_entries
    const bool one_queue = dma && cpu_on && !sgk_ctx_disabled(c, "dma-queue");
    // On a graph with hubs the streamed pieces' walks read the weights first
    // (k_hfirst): W is copied whole; in a tile of one list A is read in
    // place for the entries that can be among the list's K lightest; the
    // tiles that span lists read A whole, copied by k_pull_mixed from
    // managed memory, in place from pinned memory (where the copy kernel
    // beside the DMA lost, and the walk's own reads won). R-MAT 26 at 6G
    // managed: the GPU's first-round bytes 16.8 to 12.0 GB, the first round
    // ~5-15 % shorter (docs/benchmarks.md, twenty-sixth session). A graph
    // without hubs has no such tiles and lost 2-9 % (SSCA2 26: the copy
    // kernel's and the walk's extra work): A and W are copied whole, every
    // entry walked (k_hwalk), as with "weights-first" disabled.
    const bool wfirst = !sgk_ctx_disabled(c, "weights-first") &&
                        !sgi_hub_free(n, m, g->d.max_degree);
    // k_hfirst in 80 registers (3 blocks a multiprocessor, 12 bytes
    // spilled) rather than 96 (2): beside the copy kernel's block the walk
    // keeps 2 blocks, not 1. R-MAT 26 at 6G managed: the GPU alone's first
    // round 332-369 to 276 ms, with the CPU threads 183-197 to 170-173 ms
    // (64 registers, 4 blocks, spilled 324 bytes and gained no more;
    // docs/benchmarks.md, twenty-seventh session). "first-occupancy"
    // disabled: 96.
    const bool occ3 = !sgk_ctx_disabled(c, "first-occupancy");
    // The first round's device prefix (the lists below the host split) is
    // walked weights-first too, in device memory: where a tile lies in one
    // list (R-MAT's hubs, which a budget keeps on the device first) only
    // its candidates' A and tree ids are read, instead of every entry's
    // tree id, a random read of an n-word array. "prefix-first" disabled:
    // every entry (k_hwalk), as on a graph without hubs. R-MAT 26 with
    // every list on the device (24 GiB): the first round 123 to 112 ms
    // (descending degree order 108 to 96); at 12 GiB even in the
    // generator's order, 0.258-0.273 to 0.246 s in descending degree order
    // (docs/benchmarks.md, twenty-eighth session). Leaving the streamed
    // pieces' copy kernel a block per multiprocessor here (the streamed
    // walks' grid) did not win.
    const bool pfirst = wfirst && !sgk_ctx_disabled(c, "prefix-first");
    // On a graph without hubs the cache is filled by rank (k_hfill: the
    // first round's walks not weights-first, and the refills), where
    // k_hwalk offered every leaving entry through cache_offer's K rounds of
    // warp exchanges and atomics. SSCA2 26 with every list on the device:
    // the first round's walk 280 to 82 ms (2.1 G entries), the forest
    // 0.58-0.62 to 0.39-0.41 s; at 6G 3-11 % less in each of 8 pairs
    // (0.795-0.930 to 0.714-0.900 s: the first round and the refills). On R-MAT 26,
    // whose refills are mostly its hubs' lists, it lost 4-10 ms of 10-91
    // (docs/benchmarks.md, twenty-ninth session), so a graph with hubs
    // keeps k_hwalk. "fill-rank" disabled: k_hwalk everywhere.
    const bool rank = !sgk_ctx_disabled(c, "fill-rank") && sgi_hub_free(n, m, g->d.max_degree);
    if (!word && K > 0 && hostp < m && !sgk_ctx_disabled(c, "stream-first")) {
        const uint64_t room = free_room();
        const uint64_t want = one_queue && most > smin ? smin : most;
        SC = room / 16 < want ? room / 16 : want;
        const bool hw = w24 ? g->hw16 && g->hw8 : g->hw != nullptr;
        if (SC >= smin && (!dma || gpu48 || (g->ha && hw))) {
            SGK_TRY(sbuf.alloc(c, 4 * SC, "the forest's streamed pieces", err));
            pipe.stream = true;
        } else {
            SC = 0;
        }
    }
    SGK_TRY(pipe.open(err));
    // With the copy kernel, the walks of streamed pieces leave one block
    // per multiprocessor to it (as many as fit less one), so that the next
    // piece's copy runs beside them rather than after (H100, R-MAT 26 at
    // 6G: the GPU's streamed rate 37 to 40-42 GB/s).
    unsigned sgrid = wgrid, pgrid = 0;
    if (pipe.stream && !dma) {
        int fit = 0;
        if (wfirst)
            SGK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &fit, hfirst_fn(occ3), BLK, 0));
        else if (rank)
            SGK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &fit, k_hfill<true, StagedArr, sgk_arr<uint64_t>>, BLK, 0));
        else
            SGK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &fit, k_hwalk<HW_FILL, false, StagedArr, sgk_arr<uint64_t>>, BLK, 0));
        const unsigned per = fit > 1 ? (unsigned)fit - 1 : 1u;
        sgrid = per * (unsigned)c->sm_count < wgrid ? per * (unsigned)c->sm_count : wgrid;
        pgrid = (unsigned)c->sm_count;
    }
    uint64_t streamed = 0, pieces = 0, gpu_first_us = 0, cpu_first_us = 0, gpu_first_entries = 0;
    uint64_t cpu_wait_us = 0; // the CPU threads' waits for a staging buffer
    // The cache's fill from R's entries [jlo, jhi), reading lists where
    // they live; first: in the first round (every tree one vertex).
    auto fill_in_place = [&](const uint32_t *R, uint64_t nr, uint64_t jlo, uint64_t jhi,
                             bool first, const uint64_t *off, sg_error *err) -> sg_status {
        return with_w([&](auto W) -> sg_status {
            if (rank && first) {
                k_hfill<true><<<wgrid, BLK, 0, st>>>(nr, off, R, gx, g->A, W, f32, comp, vc, K,
                                                     jlo, jhi, dctr);
                SGK_LAUNCHED("k_hfill");
            } else if (rank) {
                k_hfill<false><<<wgrid, BLK, 0, st>>>(nr, off, R, gx, g->A, W, f32, comp, vc, K,
                                                      jlo, jhi, dctr);
                SGK_LAUNCHED("k_hfill");
            } else {
                HWALK(HW_FILL, wgrid, nr, off, R, gx, g->A, W, f32, comp, nullptr, vc, K, nullptr,
                      nullptr, nullptr, nullptr, nullptr, 0, jlo, jhi, dctr);
                SGK_LAUNCHED("k_hwalk");
            }
            return SG_OK;
        });
    };
    // The GPU's part of the first round (the scan list then holds every
    // vertex with a list, ascending, so entry j is list position j): the
    // pieces claimed from mt, of P entries at most, each streamed (SC > 0)
    // or read in place. A piece is claimed only once the walk of the piece
    // two before is done, so that a claim follows the GPU's progress.
    auto gpu_first = [&](const uint32_t *R, uint64_t nr, sgk_meet &mt, uint64_t P,
                         sg_error *err) -> sg_status {
        uint64_t q0 = 0, q1 = 0;
        for (int i = 0;; i++) {
            const int b = i & 1;
            if (i >= 2) SGK_CU(cudaEventSynchronize(pipe.freed[b]));
            if (!mt.gpu(P, q0, q1)) break;
            if (SC == 0) {
                SGK_TRY(fill_in_place(R, nr, q0, q1, true, off, err));
                SGK_CU(cudaEventRecord(pipe.freed[b], st));
                continue;
            }
            const cudaStream_t cs = one_queue ? c->copy : pipe.s; // (above)
            if (i >= 2) SGK_CU(cudaStreamWaitEvent(cs, pipe.freed[b], 0));
            // one copy of the piece's packed entries (slot b: 8 SC bytes); a
            // piece across the tail's start reads the entries before it in
            // place, and one before it A and W as below
            if (gpu48 && q1 > g->he_from) { // (slot b: 6 SC of its 8 SC bytes)
                const uint64_t p0 = q0 > g->he_from ? q0 : g->he_from, p1 = q1 > p0 ? q1 : p0;
                const uint16_t *pb = reinterpret_cast<const uint16_t *>(sbuf.p + 2 * b * SC);
                if (p1 > p0)
                    SGK_CU(cudaMemcpyAsync(const_cast<uint16_t *>(pb), g->he + 6 * p0,
                                           6 * (p1 - p0), cudaMemcpyHostToDevice, cs));
                streamed += 6 * (p1 - p0);
                packed_gpu += p1 - p0;
                SGK_CU(cudaEventRecord(pipe.ready[b], cs));
                SGK_CU(cudaStreamWaitEvent(st, pipe.ready[b], 0));
                const uint32_t bits = (uint32_t)g->he_bits;
                const uint32_t idm = bits >= 32 ? 0xffffffffu : (1u << bits) - 1u;
                const PackedArr pa{g->A, pb, p0, p1, 0, idm}, pw{g->W, pb, p0, p1, bits, ~0u};
                if (rank) {
                    k_hfill<true><<<sgrid, BLK, 0, st>>>(nr, off, R, gx, pa, pw, f32, comp, vc,
                                                         K, q0, q1, dctr);
                    SGK_LAUNCHED("k_hfill (packed)");
                } else { // with hubs too: the piece holds W and A both
                    k_hwalk<HW_FILL, false><<<sgrid, BLK, 0, st>>>(
                        nr, off, R, gx, pa, pw, f32, comp, nullptr, vc, K, nullptr, nullptr,
                        nullptr, nullptr, nullptr, 0, q0, q1, dctr);
                    SGK_LAUNCHED("k_hwalk (packed)");
                }
                SGK_CU(cudaEventRecord(pipe.freed[b], st));
                pieces++;
                continue;
            }
            // slot b: A's piece, then W's (the packed piece above takes the
            // same 8 SC bytes, so that freed[b] guards both kinds)
            StagedArr sa{g->A, sbuf.p + (uint64_t)(2 * b) * SC, q0 > g->A.s ? q0 : g->A.s, q1};
            StagedArr sw{g->W, sbuf.p + (uint64_t)(2 * b + 1) * SC, q0 > wsplit ? q0 : wsplit,
                         q1};
            // 24-bit weights: W's half of the slot holds the piece's W16 (2 SC
            // bytes) and then its W8, each copied by DMA (W16 and W8 are pinned)
            StagedW24 sw24{w24a, reinterpret_cast<const uint16_t *>(sw.buf),
                           reinterpret_cast<const uint8_t *>(sw.buf) + 2 * SC, sw.p0, sw.p1};
            if (w24 && sw24.p1 > sw24.p0) {
                const uint64_t cnt = sw24.p1 - sw24.p0;
                SGK_CU(cudaMemcpyAsync(const_cast<uint16_t *>(sw24.b16), g->hw16 + sw24.p0,
                                       2 * cnt, cudaMemcpyHostToDevice, cs));
                SGK_CU(cudaMemcpyAsync(const_cast<uint8_t *>(sw24.b8), g->hw8 + sw24.p0, cnt,
                                       cudaMemcpyHostToDevice, cs));
                streamed += 3 * cnt;
            }
            if (w24) sw.p0 = sw.p1 = 0; // (not copied as 32-bit weights below)
            // weights first: A is copied by k_pull_mixed, which reads the
            // offsets the compute stream made
            if (i == 0 && wfirst) SGK_CU(cudaStreamWaitEvent(cs, pipe.t0, 0));
            for (StagedArr *z : {&sa, &sw}) {
                if (z->p0 >= z->p1) {
                    z->p0 = z->p1 = 0;
                    continue;
                }
                if (wfirst && z == &sa && dma) { // read in place (above)
                    z->p0 = z->p1 = 0;
                    continue;
                }
                if (wfirst && z == &sa) { // the tiles k_hfirst reads whole
                    k_pull_mixed<<<pgrid, BLK, 0, cs>>>(nr, off, z->g.h,
                                                        const_cast<uint32_t *>(z->buf), z->p0,
                                                        q0, q1, dctr);
                    SGK_LAUNCHED("k_pull_mixed");
                    continue;
                }
                const uint64_t cnt = z->p1 - z->p0;
                const uint32_t *src = z == &sa ? g->ha : g->hw;
                if (dma) {
                    SGK_CU(cudaMemcpyAsync(const_cast<uint32_t *>(z->buf), src + z->p0, cnt * 4,
                                           cudaMemcpyDefault, cs));
                } else {
                    k_pull<<<pgrid, BLK, 0, cs>>>(z->g.h + z->p0, const_cast<uint32_t *>(z->buf),
                                                  cnt);
                    SGK_LAUNCHED("k_pull");
                }
                streamed += 4 * cnt;
            }
            SGK_CU(cudaEventRecord(pipe.ready[b], cs));
            SGK_CU(cudaStreamWaitEvent(st, pipe.ready[b], 0));
            // the staged pieces are in device memory: entry by entry (issuing a
            // tile's reads together gained nothing there, and its registers
            // slowed some first rounds; docs/benchmarks.md)
            auto walk = [&](auto SW) -> sg_status { // SW: W's staged accessor
                using WR = decltype(SW);
                if (wfirst) {
                    hfirst_fn<WR>(occ3)<<<sgrid, BLK, 0, st>>>(nr, off, R, gx, sa, SW, f32, comp,
                                                               vc, K, q0, q1, dctr,
                                                               dctr + C_SPARSE);
                    SGK_LAUNCHED("k_hfirst");
                } else if (rank) {
                    k_hfill<true><<<sgrid, BLK, 0, st>>>(nr, off, R, gx, sa, SW, f32, comp, vc, K,
                                                         q0, q1, dctr);
                    SGK_LAUNCHED("k_hfill");
                } else {
                    k_hwalk<HW_FILL, false><<<sgrid, BLK, 0, st>>>(
                        nr, off, R, gx, sa, SW, f32, comp, nullptr, vc, K, nullptr, nullptr,
                        nullptr, nullptr, nullptr, 0, q0, q1, dctr);
                    SGK_LAUNCHED("k_hwalk");
                }
                return SG_OK;
            };
            SGK_TRY(w24 ? walk(sw24) : walk(sw));
            SGK_CU(cudaEventRecord(pipe.freed[b], st));
            pieces++;
        }
        SGK_CU(cudaEventRecord(pipe.t1, st)); // the GPU's part ends here
        return SG_OK;
    };

    // The offsets of list[0..cnt) into o (o[cnt] = its entries): the
    // lengths, then their exclusive sums in place (off: the per-tree
    // minima's words, which reduce resets; or roff).
    auto offsets = [&](const uint32_t *list, uint64_t cnt, uint64_t *o) -> sg_status {
        // n vertices from an ascending list of distinct ones: all of them,
        // in order (SSCA2's first round): X itself, less x[0]
        if (cnt == n) {
            k_xoff<<<grid(c, n + 1), BLK, 0, st>>>(n, gx, o);
            SGK_LAUNCHED("k_xoff");
            return SG_OK;
        }
        k_hlens<<<grid(c, cnt + 1), BLK, 0, st>>>(cnt, list, gx, o);
        SGK_LAUNCHED("k_hlens");
        size_t b = X.tmp.n;
        SGK_CU(cub::DeviceScan::ExclusiveSum(X.tmp.p, b, o, o, cnt + 1, st));
        return SG_OK;
    };
    auto reset_best = [&]() -> sg_status {
        k_reset_best<<<grid(c, k), BLK, 0, st>>>(k, bestA, bestB);
        SGK_LAUNCHED("k_reset_best");
        return SG_OK;
    };
    // The contraction's gather over the scan list's whole lists (offsets o),
    // appending at most cs edges to ck, cmn, cmx (cta, ctb: their trees,
    // where given). Where its lists hold half of A's host part or more
    // ("gather-stream", above) that part goes to the device in pieces of up
    // to GATHER_PIECE entries (by DMA; from managed memory by k_pull), two
    // buffers from the free room, each walked (StagedArr) while the next is
    // copied, W read in place for the edges taken; the device's lists first, in
    // place. Else (or with no room for two pieces of 4,096 entries) every
    // list is read where it lives.
    //
    // Where the edges go to host memory (hout: ck, cmn and cmx as the host
    // addresses them) and the caller's CPU share brings a host array for the
    // trees ("gather-cpu", above), the host threads take pieces too: from the
    // top, while the GPU takes them from the bottom (sgk_pieces), each
    // walked by sgk_contract_walk (kernels/cpu_gather.c) over A and W where
    // they live and a copy of comp, its edges written into the slots from
    // cs down (gcpu_ne of them: the GPU's fill from 0 up; the two overlap
    // only when their sum passes cs, an overflow). A piece is claimed only
    // once the walk of the piece two before is done, so that the claims
    // follow the GPU's progress. Otherwise, by default ("defer-weights",
    // above), the GPU takes every piece and the walk of each past W's
    // device prefix writes positions for keys (PosArr); the count after
    // each piece's walk is copied to a pinned word (cnt), and the host
    // threads turn that piece's positions into keys (sgk_defer_keys) while
    // the GPU goes on.
    uint64_t gstreamed = 0; // bytes of A the gathers copied (counter gather_streamed_bytes)
    uint64_t gcpu_ne = 0;   // the last gather's edges from the host threads
    uint64_t gcpu_edges = 0, gcpu_entries = 0, gcpu_pieces = 0, gcpu_us = 0; // (counters)
    uint64_t gdefer_edges = 0, gdefer_us = 0;                                // (counters)
    uint64_t ggpu_us = 0, gwait_us = 0, gtail_us = 0; // the GPU side's, the fill's waits and tail
    auto gather_walk = [&](const uint64_t *o, uint64_t cs, uint32_t *ck, uint32_t *cmn,
                           uint32_t *cmx, uint32_t *cta, uint32_t *ctb,
                           uint32_t *const *hout) -> sg_status {
        gcpu_ne = 0;
        auto in_place = [&](uint64_t jhi) -> sg_status { // entries [0, jhi) where they live
            return with_w([&](auto W) -> sg_status {
                HWALK(HW_GATHER, wgrid, ns, o, scan, gx, g->A, W, f32, comp, nullptr, nullptr, 0,
                      ck, cmn, cmx, cta, ctb, cs, 0, jhi, dctr);
                SGK_LAUNCHED("k_hwalk");
                return SG_OK;
            });
        };
        const uint64_t q0 = g->A.s;
        const bool managed = g->h_managed; // (copied by k_pull, not by DMA)
        uint64_t P = 0;
        if (gstream_on && (managed || g->ha) && q0 < m) {
            const uint64_t r = free_room() / 8; // two buffers, 4 bytes an entry
            const uint64_t want = (m - q0 + 3) / 4 > 4096 ? (m - q0 + 3) / 4 : 4096;
            P = r < GATHER_PIECE ? r : GATHER_PIECE;
            if (P > want) P = want; // four pieces or more on small graphs
        }
        if (P == 0 || (P < 4096 && P < m - q0))
            return in_place(NONE64);
        const uint64_t np = (m - q0 + P - 1) / P;
        sgk_dbuf<uint32_t> buf;
        sgk_dbuf<uint64_t> jb;
        SGK_TRY(jb.alloc(c, np + 1, "the forest's gather pieces", err));
        k_gbounds<<<grid(c, np + 1), BLK, 0, st>>>(np, q0, P, m, ns, scan, o, gx, jb.p);
        SGK_LAUNCHED("k_gbounds");
        std::vector<uint64_t> hb(np + 1);
        SGK_CU(cudaMemcpyAsync(hb.data(), jb.p, (np + 1) * sizeof(uint64_t),
                               cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        if (!gstream_all && 2 * (hb[np] - hb[0]) < m - q0) // (few live lists: in place)
            return in_place(NONE64);
        SGK_TRY(buf.alloc(c, 2 * P, "the forest's gather pieces", err));
        SGK_TRY(pipe.open_stream(err)); // (the first round's are done with)
        // From managed memory the copy kernel runs beside the walks, which
        // leave it a block per multiprocessor (as the streamed first
        // round's do).
        unsigned ggrid = wgrid;
        const unsigned pgrid = (unsigned)c->sm_count;
        if (managed) {
            int fit = 0;
            SGK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &fit, k_hwalk<HW_GATHER, true, StagedArr, sgk_arr<uint64_t>, sgk_arr<uint32_t>>,
                BLK, 0));
            const unsigned per = fit > 1 ? (unsigned)fit - 1 : 1u;
            ggrid = per * pgrid < wgrid ? per * pgrid : wgrid;
        }
        if (hb[0] > 0) SGK_TRY(in_place(hb[0])); // the device's lists
        // the host threads' pieces (above): from the first past W's device
        // prefix, with the trees copied out over the copy stream first
        const bool host_w = hout && share && share->threads > 0 &&
                            (w24 ? share->w16 && share->w8 : share->w != nullptr);
        const bool cpu_on = gcpu_on && host_w && share->trees && share->x && share->a;
        const uint64_t wlo = wsplit > q0 ? wsplit : q0;
        sgk_pieces pm(np, cpu_on ? (wlo - q0 + P - 1) / P : np);
        // the weights deferred (above) where the host threads can read W
        // past its device prefix and a position fits a key's word
        const bool defer = gdefer_on && !cpu_on && host_w && m - q0 <= (uint64_t)NONE32;
        auto deferred = [&](uint64_t i) { return defer && q0 + i * P >= wlo; }; // piece i
        sgk_hbuf<uint64_t> cnt; // (cnt[i] the edges after piece i, cnt[np] before the first)
        if (defer) {
            SGK_TRY(cnt.alloc(np + 1, err));
            for (uint64_t i = 0; i <= np; i++) cnt.p[i] = NONE64;
            SGK_CU(cudaMemcpyAsync(cnt.p + np, dctr.p + C_NE, sizeof(uint64_t),
                                   cudaMemcpyDeviceToHost, st));
        }
        if (cpu_on) {
            if (!pipe.trees)
                SGK_CU(cudaEventCreateWithFlags(&pipe.trees,
                                                cudaEventDisableTiming | cudaEventBlockingSync));
            SGK_CU(cudaEventRecord(pipe.trees, st));
            SGK_CU(cudaStreamWaitEvent(c->copy, pipe.trees, 0));
            SGK_CU(cudaMemcpyAsync(share->trees, comp.p, n * sizeof(uint32_t),
                                   cudaMemcpyDeviceToHost, c->copy));
            SGK_CU(cudaEventRecord(pipe.trees, c->copy));
        }
        double gpu_end = 0.0; // (when the GPU side's last walk was done)
        auto gpu = [&](sg_error *err) -> sg_status { return with_w([&](auto W) -> sg_status {
            const double t0 = sgi_now();
            uint64_t i = 0;
            for (uint64_t k = 0;; k++) {
                const int b = (int)(k & 1);
                if (k >= 2 && cpu_on) SGK_CU(cudaEventSynchronize(pipe.freed[b]));
                if (!pm.gpu(i)) break;
                const uint64_t p0 = q0 + i * P, p1 = p0 + P < m ? p0 + P : m;
                uint32_t *const bp = buf.p + (uint64_t)b * P;
                if (k >= 2) SGK_CU(cudaStreamWaitEvent(pipe.s, pipe.freed[b], 0));
                if (managed) {
                    k_pull<<<pgrid, BLK, 0, pipe.s>>>(g->A.h + p0, bp, p1 - p0);
                    SGK_LAUNCHED("k_pull (gather)");
                } else {
                    SGK_CU(cudaMemcpyAsync(bp, g->ha + p0, (p1 - p0) * sizeof(uint32_t),
                                           cudaMemcpyHostToDevice, pipe.s));
                }
                SGK_CU(cudaEventRecord(pipe.ready[b], pipe.s));
                SGK_CU(cudaStreamWaitEvent(st, pipe.ready[b], 0));
                streamed += 4 * (p1 - p0);
                gstreamed += 4 * (p1 - p0);
                if (hb[i + 1] > hb[i]) {
                    const StagedArr sa{g->A, bp, p0, p1};
                    if (deferred(i)) // (positions for keys: PosArr, above)
                        HWALK(HW_GATHER, ggrid, ns, o, scan, gx, sa, PosArr{q0}, false, comp,
                              nullptr, nullptr, 0, ck, cmn, cmx, cta, ctb, cs, hb[i], hb[i + 1],
                              dctr);
                    else
                        HWALK(HW_GATHER, ggrid, ns, o, scan, gx, sa, W, f32, comp, nullptr,
                              nullptr, 0, ck, cmn, cmx, cta, ctb, cs, hb[i], hb[i + 1], dctr);
                    SGK_LAUNCHED("k_hwalk (streamed)");
                }
                SGK_CU(cudaEventRecord(pipe.freed[b], st));
                if (defer) // the edges after piece i, for the host threads
                    SGK_CU(cudaMemcpyAsync(cnt.p + i, dctr.p + C_NE, sizeof(uint64_t),
                                           cudaMemcpyDeviceToHost, st));
            }
            if (defer || cpu_on) { // a sleeping wait: the host threads keep every core
                SGK_CU(cudaEventRecord(pipe.freed[0], st));
                SGK_CU(cudaEventSynchronize(pipe.freed[0]));
            } else {
                SGK_CU(cudaStreamSynchronize(st));
            }
            gpu_end = sgi_now();
            ggpu_us += (uint64_t)((gpu_end - t0) * 1e6);
            return SG_OK;
        }); };
        if (!cpu_on && !defer) return gpu(err);
        // deferred weights: piece by piece in order, the edges its walk
        // appended (slots [before, after), within cs) get their keys from
        // the positions there, while the GPU walks the next pieces
        double fill_start = 0.0, fill_end = 0.0;
        auto fill = [&](sg_error *) -> sg_status {
            fill_start = sgi_now();
            const volatile uint64_t *const cv = cnt.p;
            auto wait = [&](uint64_t i) { // (false: the GPU's side failed)
                if (cv[i] == NONE64) {
                    const double tw = sgi_now();
                    while (cv[i] == NONE64) {
                        if (pm.halted()) return false;
                        std::this_thread::sleep_for(std::chrono::microseconds(20));
                    }
                    gwait_us += sgk_us_since(tw);
                }
                std::atomic_thread_fence(std::memory_order_acquire);
                return true;
            };
            if (!wait(np)) return SG_OK;
            uint64_t before = cv[np] < cs ? cv[np] : cs;
            for (uint64_t i = 0; i < np; i++) {
                if (!wait(i)) return SG_OK;
                const uint64_t after = cv[i] < cs ? cv[i] : cs;
                if (deferred(i) && after > before) {
                    sgk_defer_keys(hout[0] + before, after - before, q0,
                                   w24 ? nullptr : share->w, share->w16, share->w8, f32,
                                   share->threads);
                    gdefer_edges += after - before;
                }
                before = after;
            }
            fill_end = sgi_now();
            return SG_OK;
        };
        if (defer) {
            const sg_status r = sgk_share_run(c, pm, gpu, fill, &gdefer_us, err);
            const double from = gpu_end > fill_start ? gpu_end : fill_start;
            if (r == SG_OK && fill_end > from) gtail_us += (uint64_t)((fill_end - from) * 1e6);
            return r;
        }
        // (the host's first piece claimed before the GPU's thread starts:
        // at least one, where the pieces allow)
        uint64_t i0 = 0;
        bool first = np > 1 && pm.cpu(i0);
        auto cpu = [&](sg_error *err) -> sg_status {
            SGK_CU(cudaEventSynchronize(pipe.trees));
            uint64_t i = i0;
            while (first || pm.cpu(i)) {
                first = false;
                const uint64_t p0 = q0 + i * P, p1 = p0 + P < m ? p0 + P : m;
                gcpu_edges += sgk_contract_walk(
                    share->x, n, share->a, w24 ? nullptr : share->w, share->w16, share->w8, f32,
                    share->trees, p0, p1, hout[0], hout[1], hout[2], cs, &gcpu_ne,
                    share->threads);
                gcpu_entries += p1 - p0;
                gcpu_pieces++;
            }
            return SG_OK;
        };
        uint64_t us = 0;
        const sg_status r = sgk_share_run(c, pm, gpu, cpu, &us, err);
        gcpu_us += us;
        return r;
    };
    // "gather-probe" after round r (2-13): the gather over the scan list's
    // whole lists (offsets in roff, free between merges, so the minima's
    // words stay as the next round needs them) with no room to write: C_NE
    // counts the edges. The counters it moves (entries walked, host bytes,
    // the bytes streamed and the gathers' streamed bytes and GPU time) are
    // put back.
    static const char *const probe_edges[12] = {
        "gather_probe_r2_edges",  "gather_probe_r3_edges",  "gather_probe_r4_edges",
        "gather_probe_r5_edges",  "gather_probe_r6_edges",  "gather_probe_r7_edges",
        "gather_probe_r8_edges",  "gather_probe_r9_edges",  "gather_probe_r10_edges",
        "gather_probe_r11_edges", "gather_probe_r12_edges", "gather_probe_r13_edges"};
    static const char *const probe_us[12] = {
        "gather_probe_r2_us",  "gather_probe_r3_us",  "gather_probe_r4_us",
        "gather_probe_r5_us",  "gather_probe_r6_us",  "gather_probe_r7_us",
        "gather_probe_r8_us",  "gather_probe_r9_us",  "gather_probe_r10_us",
        "gather_probe_r11_us", "gather_probe_r12_us", "gather_probe_r13_us"};
    auto gather_probe = [&](uint64_t r) -> sg_status {
        ull saved[C_NCTR];
        SGK_CU(cudaMemcpyAsync(saved, dctr.p, sizeof saved, cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        const double tp = sgi_now();
        SGK_TRY(offsets(scan, ns, roff));
        SGK_CU(cudaMemsetAsync(dctr.p + C_NE, 0, sizeof(ull), st));
        const uint64_t streamed0 = streamed, gstreamed0 = gstreamed, ggpu0 = ggpu_us;
        SGK_TRY(gather_walk(roff, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr));
        streamed = streamed0, gstreamed = gstreamed0, ggpu_us = ggpu0;
        ull edges = 0;
        SGK_CU(cudaMemcpyAsync(&edges, dctr.p + C_NE, sizeof edges, cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        sgk_stats_set(stats, probe_edges[r - 2], edges);
        sgk_stats_set(stats, probe_us[r - 2], sgk_us_since(tp));
        SGK_CU(cudaMemcpyAsync(dctr.p, saved, sizeof saved, cudaMemcpyHostToDevice, st));
        SGK_CU(cudaStreamSynchronize(st));
        return SG_OK;
    };
    // D1 / D2 over the scan list's candidates, the minima reset first.
    auto reduce = [&]() -> sg_status {
        SGK_TRY(reset_best());
        const Cands cd{K > 0 ? nullptr : cand.p, cslot.p, vc.p, K};
        const VertexCands vcs = {scan, cd, comp};
        k_reduce1<<<grid(c, ns), BLK, 0, st>>>(ns, vcs, bestA);
        SGK_LAUNCHED("k_reduce1 (vertex candidates)");
        k_reduce2<<<grid(c, ns), BLK, 0, st>>>(ns, vcs, bestA, bestB);
        SGK_LAUNCHED("k_reduce2 (vertex candidates)");
        return SG_OK;
    };
    // refilled_only: after a refill, the refilled vertices alone
    // (k_cpick); with "refill-pick" disabled, every vertex again
    const bool pick_refilled = !sgk_ctx_disabled(c, "refill-pick");
    // ... and their candidates merged into the minima the round's first
    // reduce left (k_rmin1 / k_rmin2), where reduce went over every vertex
    // again ("refill-minima" disabled; "refill-pick" too). The refill's
    // walk then takes its list offsets in roff, not in the minima's words;
    // a refill from the heads of lists in weight order (word) takes none.
    const bool refill_minima = pick_refilled && !sgk_ctx_disabled(c, "refill-minima");
    uint64_t picks_skipped = 0;   // counter: whole picks not made again
    uint64_t minima_refilled = 0; // counter: minima taken for the refilled alone
    auto pick = [&](bool refilled_only) -> sg_status {
        k_cpick<<<grid(c, ns), BLK, 0, st>>>(ns, scan, comp, vc, K, cslot, flags, refilled_only);
        SGK_LAUNCHED("k_cpick");
        return SG_OK;
    };
    // The states and minima after a fill: in the first round, where each
    // vertex of the scan list is a tree of its own (k == ns), one pass
    // (k_first_minima) that makes the merge's choices too (chosen); else
    // pick and reduce, which took 4.1 ms of R-MAT 26's first round at 6G
    // (~170 ms) and 8.1 ms of SSCA2 26's. "first-minima" disabled: pick and
    // reduce always.
    bool chosen = false;
    bool refilled = false;    // the minima follow a later round's refill
    uint64_t first_fused = 0; // counter first_minima_fused
    const bool first_min = !sgk_ctx_disabled(c, "first-minima");
    auto minima = [&]() -> sg_status {
        if (iters == 1 && k == ns && first_min) {
            const bool ident = k == n; // every vertex a tree, its id the tree's
            k_first_minima<<<grid(c, ns), BLK, 0, st>>>(ns, scan, comp, vc, K, ident, bestA,
                                                          bestB, nxt, cslot, flags);
            SGK_LAUNCHED("k_first_minima");
            chosen = true;
            first_fused = 1;
            return SG_OK;
        }
        if (refilled && refill_minima) { // the minima left by the round's first reduce
            refilled = false;
            picks_skipped++, minima_refilled++;
            k_rmin1<<<grid(c, ns), BLK, 0, st>>>(ns, scan, comp, vc, K, cslot, flags, bestA,
                                                  bestB);
            SGK_LAUNCHED("k_rmin1");
            k_rmin2<<<grid(c, ns), BLK, 0, st>>>(ns, scan, comp, vc, K, cslot, flags, bestA,
                                                  bestB);
            SGK_LAUNCHED("k_rmin2");
            return SG_OK;
        }
        SGK_TRY(pick(refilled && pick_refilled));
        if (refilled && pick_refilled) picks_skipped++;
        refilled = false;
        return reduce();
    };
    // The first round's fills: the device prefix's entries in place, then
    // the host entries in pieces claimed by the GPU (gpu_first) and, with a
    // CPU share, by the CPU threads (cpu_first_fill) at the same time, the
    // GPU's claims made on a thread of their own. The split moves to where
    // the two meet unless "dynamic-split" is disabled: then it is the
    // plan's (share->from).
    uint64_t rescans = 0, cpu_lists = 0, cpu_long = 0, cpu_entries = 0, cpu_inter = 0;
    const bool dynamic = cpu_on && !sgk_ctx_disabled(c, "dynamic-split");
    const bool filter = !sgk_ctx_disabled(c, "topk-filter");
    const sgk_topk_fn topk = sgk_ctx_disabled(c, "topk-simd")    ? sgk_topk_scalar
                             : sgk_ctx_disabled(c, "topk-pairs") ? sgk_topk_simd_single
                                                                 : sgk_topk_simd;
    const sgk_topk48_fn topk48 = topk == sgk_topk_scalar        ? sgk_topk48_scalar
                                 : topk == sgk_topk_simd_single ? sgk_topk48_simd_single
                                                                : sgk_topk48_simd;
    const bool prefetch = !sgk_ctx_disabled(c, "topk-prefetch");
    const bool packed = !sgk_ctx_disabled(c, "share-packed");
    const bool sparse_only = !sgk_ctx_disabled(c, "share-sparse");
    uint64_t cpu_sent = 0; // the bytes of the CPU threads' results sent to the device
    uint64_t cpu_chunks = 0, cpu_packed = 0; // their chunks sent, and of them packed
    uint64_t cpu_chunks48 = 0;               // and those whose slots went in 6 bytes
    // The threads' slots go in 6 bytes where the ids leave room for the
    // weights (u32 weights; "slots48" disabled: 8 bytes, as before).
    const int s48 = f32 || sgk_ctx_disabled(c, "slots48") ? -1 : sgk_e48_bits(n, 0);
    auto first_round = [&](const uint32_t *R, uint64_t nr) -> sg_status {
        sgk_meet mt;
        mt.x = cpu_on ? share->x : nullptr;
        mt.glim = !cpu_on ? m : dynamic ? SGK_MEET_OPEN : share->x[share->from];
        mt.clow = n;
        mt.cfloor = !cpu_on ? n : dynamic ? share->low : share->from;
        const uint64_t dev_end = hostp < m ? hostp : m; // below it no CPU claim reaches
        mt.gnext = dev_end;
        // pieces: the streamed ones, or in place as many as streaming would
        // take (one, with the GPU alone)
        const uint64_t P = SC > 0 ? SC : cpu_on ? most : m;
        // CPU chunks: a stage buffer's vertices, at most a piece's entries
        // ("share-chunks" disabled: at most SHARE_TEST_CHUNK, so that the
        // tests' small graphs give many chunks a share)
        const uint64_t maxe = sgk_ctx_disabled(c, "share-chunks") ? SHARE_TEST_CHUNK : most;
        SGK_CU(cudaEventRecord(pipe.t0, st));
        // The CPU threads' cache entries land on the copy stream: after the
        // cache's clearing and everything else queued on st so far.
        if (cpu_on) SGK_CU(cudaStreamWaitEvent(c->copy, pipe.t0, 0));
        if (dev_end > 0 && pfirst) {
            const StagedArr da{g->A, nullptr, 0, 0}, dw{g->W, nullptr, 0, 0};
            const StagedW24 dw24{w24a, nullptr, nullptr, 0, 0};
            if (w24)
                hfirst_fn<StagedW24>(occ3)<<<wgrid, BLK, 0, st>>>(
                    nr, off, R, gx, da, dw24, f32, comp, vc, K, 0, dev_end, dctr, dctr + C_PSPARSE);
            else
                hfirst_fn(occ3)<<<wgrid, BLK, 0, st>>>(nr, off, R, gx, da, dw, f32, comp, vc, K,
                                                       0, dev_end, dctr, dctr + C_PSPARSE);
            SGK_LAUNCHED("k_hfirst (the device prefix)");
        } else if (dev_end > 0) {
            SGK_TRY(fill_in_place(R, nr, 0, dev_end, true, off, err));
        }
        if (!cpu_on) {
            SGK_TRY(gpu_first(R, nr, mt, P, err));
        } else {
            SGK_TRY(sgk_share_run(
                c, mt, [&](sg_error *e) { return gpu_first(R, nr, mt, P, e); },
                [&](sg_error *e) {
                    return cpu_first_fill(c, *share, mt, maxe, topk, cpu48 ? g->he : nullptr,
                                          g->he_bits, topk48, f32, filter, prefetch,
                                          packed, sparse_only, s48, K, vc, cpu_lists,
                                          cpu_long, cpu_entries, cpu_inter, cpu_sent,
                                          cpu_chunks, cpu_packed, cpu_chunks48, cpu_wait_us, e);
                },
                &cpu_first_us, err));
        }
        SGK_CU(cudaEventSynchronize(pipe.t1));
        float ms = 0.0f;
        SGK_CU(cudaEventElapsedTime(&ms, pipe.t0, pipe.t1));
        gpu_first_us = (uint64_t)(ms * 1e3f);
        sbuf.release(); // its room goes back to the contraction's bound
        return SG_OK;
    };
    // A round with the cache: the tree minima from the cached candidates;
    // then the spent caches that could beat them (all lists in the first
    // round) are refilled from their lists, and the minima taken again.
    // Leaves the states (k_cpick) in flags for k_ckeep.
    bool full_walk = false, refill_timed = false;
    auto cached_round = [&]() -> sg_status {
        const uint32_t *R = scan;
        uint64_t nr = ns;
        full_walk = iters == 1;
        if (!full_walk) {
            SGK_TRY(pick(false));
            SGK_TRY(reduce());
            k_cneed<<<grid(c, ns), BLK, 0, st>>>(ns, scan, comp, vc, K, bestA, flags);
            SGK_LAUNCHED("k_cneed");
            size_t b = X.tmp.n;
            SGK_CU(cub::DeviceSelect::Flagged(X.tmp.p, b, scan,
                                              thrust::make_transform_iterator(flags.p, IsRefill()),
                                              spare, dctr.p + C_NRESCAN, (int64_t)ns, st));
            ull nrd = 0;
            SGK_CU(cudaMemcpyAsync(&nrd, dctr.p + C_NRESCAN, sizeof nrd, cudaMemcpyDeviceToHost,
                                   st));
            SGK_CU(cudaStreamSynchronize(st));
            R = spare;
            nr = nrd;
            full_walk = nr == ns;
            if (nr > 0) {
                k_creset<<<grid(c, nr * (uint64_t)K), BLK, 0, st>>>(nr, R, vc, K);
                SGK_LAUNCHED("k_creset");
            }
        }
        rescans += nr;
        if (nr == 0) { // the minima stand, and the states (k_cneed left them)
            if (pick_refilled) {
                picks_skipped++;
                return SG_OK;
            }
            return pick(false);
        }
        refilled = iters > 1; // the minima then pick the refilled alone
        if (word) { // from the heads of the lists
            if (iters > 1) SGK_CU(cudaEventRecord(pipe.r0, st));
            k_sfill<<<grid(c, nr * SF_G), BLK, 0, st>>>(nr, R, gx, ent, hd.p, rs.p, comp.p, vc.p,
                                                         K, dctr.p);
            SGK_LAUNCHED("k_sfill");
            if (iters > 1) {
                SGK_CU(cudaEventRecord(pipe.r1, st));
                refill_timed = true;
            }
            return minima();
        }
        if (iters == 1) {
            SGK_TRY(offsets(R, nr, off));
            SGK_TRY(first_round(R, nr));
            SGK_CU(cudaEventRecord(pipe.v[1], st)); // the fill joined
        } else {
            // the minima stand for the refilled alone: the offsets elsewhere
            uint64_t *const o = refill_minima ? roff : off;
            SGK_TRY(offsets(R, nr, o));
            SGK_CU(cudaEventRecord(pipe.r0, st));
            SGK_TRY(fill_in_place(R, nr, 0, NONE64, false, o, err));
            SGK_CU(cudaEventRecord(pipe.r1, st));
            refill_timed = true;
        }
        return minima();
    };

    bool edge_mode = false;
    sgk_dbuf<uint32_t> C[2][5]; // key, min, max, tree of min, tree of max
    uint64_t ne = 0;
    uint64_t lbound = UINT64_MAX; // leaving entries on the scan list, at most
    // Where the time goes (host wall clock between the rounds' synchronisations;
    // the refills' device time from events): counters first_round_us,
    // later_rounds_us, refill_us, gather_us, edge_rounds_us.
    uint64_t first_round_us = 0, later_us = 0, refill_us = 0, gather_us = 0, edge_us = 0;
    // The first round's parts on the device (events, the cached rounds over
    // whole lists only): counters first_offsets_us (the round's start to
    // the fill's), first_join_us (the GPU's part done to the CPU threads'
    // results joined), first_minima_us (k_first_minima, or pick and
    // reduce), first_merge_us
    // (merge_round), first_keep_us (keep and select); the fill itself is
    // gpu_first_us.
    uint64_t first_part_us[5] = {0, 0, 0, 0, 0};
    // After a gather of ne edges into C[0] (room for cap; started at tg):
    // the vertex-mode arrays go (the cache too, where the gather kept it),
    // the minima's words are reset for the edge rounds, and C[1] comes.
    auto to_edge_rounds = [&](uint64_t cap_c, double tg) -> sg_status {
        vc.release();
        unres.release(), heavy.release(), rs.release();
        SGK_TRY(reset_best());
        cand.release(), cslot.release(), S0.release(), S1.release(), flags.release();
        lo.release(), hd.release();
        for (int j = 0; j < 5; j++)
            SGK_TRY(C[1][j].alloc(c, cap_c, "the forest contracted edges", err));
        contractions = 1;
        cedges = ne;
        edge_mode = true;
        gather_us = sgk_us_since(tg);
        return SG_OK;
    };
    while (ns > 0 && k > 1) {
        const double tr = sgi_now();
        iters++;
        SGK_TRY(round_guard(iters, n, k, err));
        scanned += ns;
        const bool parts = iters == 1 && K > 0 && !word; // through first_round
        if (parts) SGK_CU(cudaEventRecord(pipe.v[0], st));
        SGK_CU(cudaMemsetAsync(dctr.p + C_INTER, 0, sizeof(ull), st));
        SGK_CU(cudaMemsetAsync(dctr.p + C_LIVE, 0, sizeof(ull), st));
        if (word && K == 0) { // no room for a cache: each round reads the heads
            SGK_TRY(find_round(c, scan, ns, gx, ent, lo.p, comp.p, SinkVertex{cand.p}, unres.p,
                               heavy.p, true, dctr.p, err));
            full_walk = false;
            SGK_TRY(reduce());
        } else if (K == 0) {
            SGK_TRY(offsets(scan, ns, off));
            SGK_CU(cudaMemsetAsync(cand.p, 0xff, ns * sizeof(uint64_t), st));
            SGK_TRY(with_w([&](auto W) -> sg_status {
                HWALK(HW_FIND, wgrid, ns, off, scan, gx, g->A, W, f32, comp, cand, nullptr, 0,
                      nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, NONE64, dctr);
                SGK_LAUNCHED("k_hwalk");
                return SG_OK;
            }));
            full_walk = true;
            SGK_TRY(reduce());
        } else {
            SGK_TRY(cached_round());
            if (parts) SGK_CU(cudaEventRecord(pipe.v[2], st));
        }
        SGK_TRY(merge_round(c, n, k, cap, f32, X.tmp.p, X.tmp.n, dctr.p, bestA.p, bestB.p, comp.p,
                            nxt.p, parp, rn.p, ou.p, ov.p, ow.p, chosen, iters == 1 && k == n,
                            err));
        chosen = false;
        if (parts) SGK_CU(cudaEventRecord(pipe.v[3], st));
        if (K == 0)
            k_keep<<<grid(c, ns), BLK, 0, st>>>(ns, scan, cand, comp, flags);
        else
            k_ckeep<<<grid(c, ns), BLK, 0, st>>>(ns, scan, cslot, comp, gx, Heads{gx, nullptr, hd.p},
                                                 flags, dctr);
        SGK_LAUNCHED("k_keep");
        tb = X.tmp.n;
        SGK_CU(cub::DeviceSelect::Flagged(X.tmp.p, tb, scan, flags.p, spare, dctr.p + C_NSEL,
                                          (int64_t)ns, st));
        if (word && K == 0) { // the entries left from the heads of the lists kept
            SGK_CU(cudaMemsetAsync(dctr.p + C_REMAIN, 0, sizeof(ull), st));
            k_remain<<<grid(c, ns), BLK, 0, st>>>(spare, gx, lo.p, dctr.p);
            SGK_LAUNCHED("k_remain");
        }
        if (parts) SGK_CU(cudaEventRecord(pipe.v[4], st));
        SGK_CU(cudaMemcpyAsync(h, dctr.p, sizeof h, cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        const uint64_t round_us = sgk_us_since(tr);
        if (parts) {
            const cudaEvent_t from[5] = {pipe.v[0], pipe.t1, pipe.v[1], pipe.v[2], pipe.v[3]};
            const cudaEvent_t to[5] = {pipe.t0, pipe.v[1], pipe.v[2], pipe.v[3], pipe.v[4]};
            for (int i = 0; i < 5; i++) {
                float ms = 0.0f;
                SGK_CU(cudaEventElapsedTime(&ms, from[i], to[i]));
                first_part_us[i] = (uint64_t)(ms * 1e3f);
            }
        }
        if (iters == 1) {
            gpu_first_entries = h[C_WALKED];
            first_round_us = round_us;
        } else {
            later_us += round_us;
        }
        if (refill_timed) {
            float ms = 0.0f;
            SGK_CU(cudaEventElapsedTime(&ms, pipe.r0, pipe.r1));
            refill_us += (uint64_t)(ms * 1e3f);
            refill_timed = false;
        }
        {
            uint32_t *tp = scan;
            scan = spare;
            spare = tp;
        }
        if (h[C_OUT] > cap)
            return sgi_fail(err, SG_E_DEVICE, "GPU forest: %llu edges recorded for %llu vertices",
                            (unsigned long long)h[C_OUT], (unsigned long long)n);
        k = h[C_KNEW];
        ns = h[C_NSEL];
        if (ns == 0 || k <= 1) break;
        if (probe && !word && iters >= 2 && iters <= 13) SGK_TRY(gather_probe(iters));
        // Contract when the lists of the leaving edges (at most L / 2, 20
        // bytes each) fit: the first beside everything (the cache freed
        // first), the second once the vertex-mode arrays are freed. L: the
        // leaving entries a walk of every live list counted; with the cache,
        // at most the entries of the lists kept (C_LIVE) too. And only once
        // L is at most m / CONTRACT_DIV, as in the in-core forest: with room
        // for it after the first round (no budget, every list on the
        // device) the gather and the edge rounds over ~m / 2 edges took
        // R-MAT 26's forest from ~0.17 s to 0.65-0.69 s (docs/benchmarks.md,
        // fiftieth session).
        const uint64_t inter = h[C_INTER] + (iters == 1 ? cpu_inter : 0);
        if (full_walk && !word) lbound = lbound < inter ? lbound : inter;
        if (K > 0) lbound = lbound < h[C_LIVE] ? lbound : h[C_LIVE];
        if (word && K == 0) lbound = lbound < h[C_REMAIN] ? lbound : h[C_REMAIN];
        if (lbound == UINT64_MAX) continue;
        const uint64_t ccap = lbound / 2 + 1;
        sgk_mem_stats ms;
        sgk_ctx_mem(c, &ms);
        const uint64_t room = (ms.budget > ms.in_use ? ms.budget - ms.in_use : 0) + 8 * vc.n +
                              4 * (unres.n + heavy.n + rs.n);
        const uint64_t freed =
            8 * cand.n + cslot.n + 4 * S0.n + 4 * S1.n + flags.n + 8 * lo.n + 4 * hd.n;
        if (contract_on && (!contract_gate || lbound <= m / CONTRACT_DIV) &&
            20 * ccap + slack <= room && 40 * ccap + slack <= room + freed) {
            const double tg = sgi_now();
            vc.release();
            unres.release(), heavy.release(), rs.release();
            const Heads heads{gx, lo.p, hd.p};
            if (word) { // the lists from their heads
                k_lens<<<grid(c, ns + 1), BLK, 0, st>>>(ns, scan, gx, heads, off);
                SGK_LAUNCHED("k_lens");
                size_t b = X.tmp.n;
                SGK_CU(cub::DeviceScan::ExclusiveSum(X.tmp.p, b, off, off, ns + 1, st));
            } else {
                SGK_TRY(offsets(scan, ns, off));
            }
            for (int j = 0; j < 5; j++)
                SGK_TRY(C[0][j].alloc(c, ccap, "the forest contracted edges", err));
            SGK_CU(cudaMemsetAsync(dctr.p + C_NE, 0, sizeof(ull), st));
            if (word) { // (never with 24-bit weights: the list heads are 32-bit ones)
                SGK_TRY(with_w([&](auto W) -> sg_status {
                    HWALK(HW_GATHER, wgrid, ns, off, scan, heads, g->A, W, f32, comp, nullptr,
                          nullptr, 0, C[0][0], C[0][1], C[0][2], C[0][3], C[0][4], ccap, 0,
                          NONE64, dctr);
                    SGK_LAUNCHED("k_hwalk");
                    return SG_OK;
                }));
            } else {
                SGK_TRY(gather_walk(off, ccap, C[0][0], C[0][1], C[0][2], C[0][3], C[0][4],
                                    nullptr));
            }
            SGK_CU(cudaMemcpyAsync(h, dctr.p, sizeof h, cudaMemcpyDeviceToHost, st));
            SGK_CU(cudaStreamSynchronize(st));
            ne = h[C_NE];
            if (ne > ccap) return sgi_fail(err, SG_E_DEVICE, "GPU forest: contracted list overflow");
            SGK_TRY(to_edge_rounds(ccap, tg));
            break;
        }
        if (spec && contract_on && !word && iters >= 2 && k <= spec_k) {
            // The speculative contraction (above): the room free now at 12
            // bytes an edge (key, min, max; their trees come from comp once
            // every edge is in, k_ctrees), or the caller's forest arrays
            // ("spec-host"), within the gate's m / CONTRACT_DIV entries and
            // what the edge rounds' lists need once the vertex-mode arrays
            // are freed (40 bytes an edge). Its offsets go in roff, so that
            // the minima's words stay as the next round's refill needs them
            // if the edges do not fit.
            const uint64_t freeb = ms.budget > ms.in_use ? ms.budget - ms.in_use : 0;
            const bool to_host = hlist.d[0] != nullptr;
            uint64_t cs = to_host ? cap : freeb > slack ? (freeb - slack) / 12 : 0;
            const uint64_t second = room + freed > slack ? (room + freed - slack) / 40 : 0;
            if (cs > second) cs = second;
            if (cs > m / CONTRACT_DIV / 2 + 1) cs = m / CONTRACT_DIV / 2 + 1;
            if (spec_tiny && cs > 1) cs = 1;
            if (cs > 0) {
                const double tg = sgi_now();
                SGK_TRY(offsets(scan, ns, roff));
                uint32_t *ca[3] = {hlist.d[2], hlist.d[0], hlist.d[1]}; // key, min, max
                if (!to_host)
                    for (int j = 0; j < 3; j++) {
                        SGK_TRY(C[0][j].alloc(c, cs, "the forest contracted edges", err));
                        ca[j] = C[0][j].p;
                    }
                SGK_CU(cudaMemsetAsync(dctr.p + C_NE, 0, sizeof(ull), st));
                uint32_t *const hout[3] = {static_cast<uint32_t *>(hlist.h[2]),
                                           static_cast<uint32_t *>(hlist.h[0]),
                                           static_cast<uint32_t *>(hlist.h[1])};
                SGK_TRY(gather_walk(roff, cs, ca[0], ca[1], ca[2], nullptr, nullptr,
                                    to_host ? hout : nullptr));
                SGK_CU(cudaMemcpyAsync(h, dctr.p, sizeof h, cudaMemcpyDeviceToHost, st));
                SGK_CU(cudaStreamSynchronize(st));
                const uint64_t ng = h[C_NE]; // the GPU's, from slot 0 up (the CPU's: from cs down)
                ne = ng + gcpu_ne;
                if (spec_tries++ == 0) spec_room = cs, spec_first = ne;
                spec_us += sgk_us_since(tg);
                if (ne <= cs) { // every edge: the contraction, as above, and the trees
                    const uint64_t ce = ne > 0 ? ne : 1;
                    SGK_TRY(to_edge_rounds(to_host ? ce : cs, tg));
                    for (int j = to_host ? 0 : 3; j < 5; j++)
                        SGK_TRY(C[0][j].alloc(c, to_host ? ce : cs, "the forest contracted edges",
                                              err));
                    for (int j = 0; j < 3 && to_host; j++) {
                        SGK_CU(cudaMemcpyAsync(C[0][j].p, hout[j], ng * sizeof(uint32_t),
                                               cudaMemcpyHostToDevice, st));
                        if (gcpu_ne > 0)
                            SGK_CU(cudaMemcpyAsync(C[0][j].p + ng, hout[j] + (cs - gcpu_ne),
                                                   gcpu_ne * sizeof(uint32_t),
                                                   cudaMemcpyHostToDevice, st));
                    }
                    if (ne > 0) {
                        k_ctrees<<<grid(c, ne), BLK, 0, st>>>(ne, C[0][1], C[0][2], comp,
                                                              C[0][3], C[0][4]);
                        SGK_LAUNCHED("k_ctrees");
                    }
                    SGK_CU(cudaStreamSynchronize(st));
                    gather_us = sgk_us_since(tg);
                    break;
                }
                for (int j = 0; j < 3; j++) C[0][j].release();
                ne = 0;
                spec_failed++;
                spec_k = k / 4;
            }
        }
    }
    if (edge_mode) {
        const double te = sgi_now();
        SGK_TRY(edge_rounds(X, n, k, ne, cap, f32, C, dctr.p, h, bestA.p, bestB.p, comp.p, nxt.p,
                            parp, rn.p, ou.p, ov.p, ow.p, iters));
        edge_us = sgk_us_since(te);
    }
    SGK_CU(cudaMemcpyAsync(h, dctr.p, sizeof h, cudaMemcpyDeviceToHost, st));
    SGK_CU(cudaStreamSynchronize(st));
    stats->seconds_compute = sgi_now() - t1;
    const uint64_t out = h[C_OUT];
    if (out > cap)
        return sgi_fail(err, SG_E_DEVICE, "GPU forest: %llu edges recorded for %llu vertices",
                        (unsigned long long)out, (unsigned long long)n);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 5; j++) C[i][j].release();
    cand.release(), cslot.release(), bestA.release(), comp.release(), S0.release();
    S1.release(), bestB.release(), nxt.release(), par.release(), rn.release();
    flags.release(), vc.release(), X.tmp.release(), lo.release(), unres.release();
    heavy.release(), hd.release(), rs.release();
    SGK_TRY(forest_out(c, out, ou.p, ov.p, ow.p, f32, u, v, w, stats, err));
    *n_edges = out;
    sgk_stats_set(stats, "iterations", iters);
    sgk_stats_set(stats, "edges_skipped", h[C_SKIPPED]);
    sgk_stats_set(stats, "segments_scanned", scanned);
    sgk_stats_set(stats, "entries_read", h[C_WALKED]);
    sgk_stats_set(stats, "cache_slots", (uint64_t)K);
    sgk_stats_set(stats, "weight_order", word ? 1 : 0);
    sgk_stats_set(stats, "lists_refilled", rescans);
    sgk_stats_set(stats, "cpu_lists", cpu_lists);
    sgk_stats_set(stats, "cpu_long_lists", cpu_long);
    sgk_stats_set(stats, "cpu_entries_read", cpu_entries);
    sgk_stats_set(stats, "host_list_bytes", h[C_HOSTB] + streamed + h[C_PULLA]);
    sgk_stats_set(stats, "streamed_bytes", streamed + h[C_PULLA]);
    sgk_stats_set(stats, "streamed_pieces", pieces);
    sgk_stats_set(stats, "packed_tail", e48 ? 1 : 0);
    sgk_stats_set(stats, "packed_gpu_entries", packed_gpu);
    sgk_stats_set(stats, "packed_cpu_entries", cpu48 ? cpu_entries : 0);
    sgk_stats_set(stats, "first_sparse_tiles", h[C_SPARSE]);
    sgk_stats_set(stats, "first_loop_tiles", h[C_LOOPT]);
    sgk_stats_set(stats, "prefix_sparse_tiles", h[C_PSPARSE]);
    sgk_stats_set(stats, "prefix_loop_tiles", h[C_PLOOPT]);
    sgk_stats_set(stats, "rank_fill_tiles", h[C_RANKT]);
    sgk_stats_set(stats, "gpu_first_us", gpu_first_us);
    sgk_stats_set(stats, "cpu_first_us", cpu_first_us);
    sgk_stats_set(stats, "cpu_first_wait_us", cpu_wait_us);
    sgk_stats_set(stats, "cpu_upload_bytes", cpu_sent);
    sgk_stats_set(stats, "cpu_chunks", cpu_chunks);
    sgk_stats_set(stats, "cpu_chunks_packed", cpu_packed);
    sgk_stats_set(stats, "cpu_chunks_s48", cpu_chunks48);
    sgk_stats_set(stats, "gpu_first_entries", gpu_first_entries);
    sgk_stats_set(stats, "first_round_us", first_round_us);
    sgk_stats_set(stats, "dense_trees", dense ? 1 : 0);
    sgk_stats_set(stats, "first_minima_fused", first_fused);
    sgk_stats_set(stats, "picks_skipped", picks_skipped);
    sgk_stats_set(stats, "minima_refilled", minima_refilled);
    {
        static const char *const part_names[5] = {"first_offsets_us", "first_join_us",
                                                  "first_minima_us", "first_merge_us",
                                                  "first_keep_us"};
        for (int i = 0; i < 5; i++) sgk_stats_set(stats, part_names[i], first_part_us[i]);
    }
    sgk_stats_set(stats, "later_rounds_us", later_us);
    sgk_stats_set(stats, "refill_us", refill_us);
    sgk_stats_set(stats, "gather_us", gather_us);
    sgk_stats_set(stats, "spec_gathers", spec_tries);
    sgk_stats_set(stats, "spec_gathers_failed", spec_failed);
    sgk_stats_set(stats, "spec_gather_us", spec_us);
    sgk_stats_set(stats, "gather_streamed_bytes", gstreamed);
    sgk_stats_set(stats, "gather_deferred_edges", gdefer_edges);
    sgk_stats_set(stats, "gather_defer_us", gdefer_us);
    sgk_stats_set(stats, "gather_gpu_us", ggpu_us);
    sgk_stats_set(stats, "gather_defer_wait_us", gwait_us);
    sgk_stats_set(stats, "gather_defer_tail_us", gtail_us);
    sgk_stats_set(stats, "gather_cpu_edges", gcpu_edges);
    sgk_stats_set(stats, "gather_cpu_entries", gcpu_entries);
    sgk_stats_set(stats, "gather_cpu_pieces", gcpu_pieces);
    sgk_stats_set(stats, "gather_cpu_us", gcpu_us);
    sgk_stats_set(stats, "spec_room_edges", spec_room);
    sgk_stats_set(stats, "spec_first_edges", spec_first);
    sgk_stats_set(stats, "edge_rounds_us", edge_us);
    sgk_stats_set(stats, "contractions", contractions);
    sgk_stats_set(stats, "contracted_edges", cedges);
    return SG_OK;
}
#undef HWALK
