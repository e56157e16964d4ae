// Single-source shortest paths on the device: a near-far frontier method
// (the default) and the reference paper's edge-parallel Bellman-Ford.
//
// Distance words (both methods): one uint64_t per vertex, updated with 64-bit
// atomicMin. u32 weights: exact sums, UINT64_MAX unreached (never added to).
// f32 weights: the bits of a double computed as dist[u] + (double)w, +INF
// bits unreached; non-negative doubles order like their bits, so atomicMin on
// the bits is a min on the values. Any label-correcting order reaches the
// same fixpoint, the minimum over paths of the left-to-right sums: Dijkstra's.
//
// ---------------------------------------------------------------- near-far
// (SGK_SSSP_BUCKETS, after Davidson et al. 2014, "Work-efficient parallel
// GPU methods for SSSP"), with a two-level far pile. A threshold T (bucket
// [T - delta, T)) and a window end U >= T split improved vertices into a
// near queue (new distance < T), a mid pile M ([T, U)) and a far pile F
// (>= U).
//   round: relax every out-edge of the near queue Q_in (each vertex relaxes
//     from its distance now); a successful atomicMin pushes the target to
//     Q_out when below T (de-duplicated per round by a per-vertex round stamp,
//     plain load then atomicExch), else to M when below U, else to F. M and
//     F each hold a vertex at most once (a bitset each, plain load then
//     atomicOr) and keep a lower bound of their pushed distances (midmin,
//     farmin; warp-reduced, checked before the atomic; kept complemented so
//     that a zero memset clears them). A vertex may sit in M and F at once
//     (its F entry is then stale). Before the atomicMin a plain load of
//     dist[v] filters failing relaxations.
//   Deferred heavy edges (light/heavy split of delta-stepping, decided per
//     edge): a round relaxes only the edges whose new distance du + w would
//     be near (< T); it reads the weight first, so a deferred edge costs a
//     coalesced 4-byte read and no neighbour or distance read. Each vertex a
//     round takes joins the bucket's settled list once (a per-vertex bucket
//     stamp). When the near queue runs dry the bucket is final, and a settle
//     pass relaxes the deferred edges (du + w >= T: mid or far) of every
//     settled vertex once, from its final distance. A vertex improved k
//     times inside its bucket thus rescans only weights k times; its far
//     edges are relaxed once, as in Dijkstra. "defer-heavy" disabled: every
//     round relaxes every edge of its queue (the settle pass never runs).
//   Light index: every vertex a round takes has du >= T - delta (a bucket
//     starts at most delta below its threshold), so a near edge has w <
//     delta. When the budget has room, preprocessing copies the light edges
//     (weight < delta) of every list into a CSR of their own, in one pass
//     over W (light_fused: each tile of entries places its light ones by a
//     single-pass scan, decoupled look-back, into slots sized from a
//     sample of the weights), or where those slots do not fit or run out
//     in two (edge-parallel count, CUB exclusive scan in place, fill;
//     "fused-index" disabled: always these); rounds walk it, and
//     rescans read only light weights (on R-MAT 24 at delta 65536 the
//     rounds read 2.5G weights without it). The settle pass walks the full
//     lists and takes every heavy edge plus the light ones with du + w >=
//     T, so correctness does not rest on the bound (were rounding to put a
//     heavy edge's target below T, it is pushed near and the bucket goes on
//     with a fresh bucket stamp). Not built when more than half the edges
//     are light or the budget lacks room (8(n + 1) + 8 m_light bytes; not in
//     sgk_sssp_bytes, which counts what the method needs); "light-index"
//     disables it. With host lists (the hybrid backend) the CPU threads
//     count and copy a share of them ("the light index's CPU share" below).
//     The index depends on the graph and the width only, so it stays with
//     the device graph after the call (sgk_graph's `kept`, IndexKeep): the
//     next call on that graph with the same delta asked takes it back and
//     skips the weight sample and the build (counter "index_reused"; the
//     engine frees it before any other algorithm, src/gpu_engine.c; its
//     bytes count as the graph's). "keep-index" disables the keeping.
//   Settle order: on a graph with host lists, a settle pass over max(256,
//     n / 1024) vertices or more first sorts them by id (CUB radix sort
//     into the empty near queue, where the budget has room for its
//     scratch), so that the short lists of neighbouring ids, side by side
//     in A and W, coalesce in a warp's gather, and the GPU's requests to
//     host memory run in address order. R-MAT 26 at 6 GiB: 14 % less kernel
//     time (17 of 45 passes sorted; only the largest, n / 16 up, gave 3 %);
//     in core no gain on R-MAT and 4 % lost on SSCA2 (393 sorts of ~80 us),
//     hence host lists only (docs/benchmarks.md).
//   Streamed settle passes: on R-MAT the first bucket settles most of the
//     graph's edges (scale 24: 94 % of the list entries in bucket 0 at
//     delta 65536; scale 26: its settle pass examines 1.65 G of 2.1 G), so
//     its sorted settle pass reads nearly every host list in address order,
//     as warp gathers: 13 GB in 390-400 ms at 6 GiB (33 GB/s), pinned or
//     managed. With host lists the copy engine reads (pinned or registered)
//     and room in the budget for two staging buffers (S entries of A and of
//     W each, up to SSTREAM_MAX, four chunks or more on small graphs), the
//     host range (the lists wholly past both device prefixes) is cut into
//     chunks of at most S entries at vertex boundaries (stream_bounds), and
//     the buffers allocated, at the first sorted settle pass (SSCA2, whose
//     passes all run in the device loop, allocates nothing). A
//     sorted settle pass first counts the entries its vertices hold in each
//     chunk (settle_cover, read back); a chunk it reads half of or more is
//     copied whole by DMA to a staging buffer on the copy stream while the
//     chunk before it is relaxed from the other, and its vertices are
//     relaxed from there; the rest of the list is relaxed where its lists
//     live. R-MAT 26 at 6 GiB pinned: that pass 390 to 296 ms (16 GB at the
//     wire's 54 GB/s), the search's kernels 679 to 589 ms. From managed
//     memory DMA is slow (kernels/mst.cu), and a copy kernel (the forest's
//     k_pull) beside the relaxations made the pass slower, 400 to 482 ms,
//     and 397-433 to 498-533 ms with the relaxations leaving it a block per
//     multiprocessor (docs/benchmarks.md, twenty-second session); so there
//     (with a CPU share's threads) a streamed chunk bounces: the threads
//     copy it, slot by slot, into the context's staging buffers (lent,
//     eight slots of 4 MiB) and DMA moves each slot on ("settle-bounce"
//     disabled: managed memory keeps the gathers). Counters
//     "settle_bounce_us" (the threads' copies) and "settle_bounce_wait_us"
//     (waits for a slot's DMA). A bounced chunk carries only the lists of
//     the pass's vertices in it, gathered by the threads in vertex order,
//     and its vertices are relaxed through offsets of its own (chunk_lens
//     and a scan): R-MAT 26's first bucket reads 79 % of the host entries,
//     and copied whole its chunks moved all 16 GB at the wire ("settle-
//     compact" disabled: whole; counters "settle_compacted_chunks",
//     "settle_compact_saved_bytes").
//     Counters "settle_streamed_chunks", "settle_streamed_bytes" (in
//     host_list_bytes too), and the host-launched settle passes' time
//     "settle_us", the longest one's "settle_max_us" and the entries it
//     examined, "settle_max_entries"; "settle-stream" disables the
//     streaming, "settle-rule" streams every chunk a pass reads at all.
//   Gathered settle passes: over pinned host lists of a graph without a
//     hub queue (SSCA2: 1,332 settle passes of ~50 K vertices at scale 26,
//     each list a scattered zero-copy read at ~4 GB/s), a settle pass of
//     max(SORT_MIN, n / GATHER_DIV) vertices or more (8 K at scale 26)
//     leaves the device loop, is sorted, and comes back to the host once;
//     its vertices before the first whose list lies wholly past both device
//     prefixes are relaxed where their lists are, and the rest go in chunks
//     (BFS's sizes, common/sg_common.h: 32 K vertices and 1 M entries, or
//     the longest list) whose neighbours and weights the CPU threads gather
//     (sgk_gather_lists, cpu_gather.c) into a lent staging buffer; the copy
//     stream takes each chunk into one of two device buffers, and the
//     relaxation reads each list position's entries there (Relax::pofs),
//     while the threads gather the next. The buffers are made at the first
//     such pass when the budget holds them (else the thresholds and the
//     streaming are as without). Dense passes stream: the streaming (above)
//     opens in this mode too, in the room the gather's buffers leave; a
//     pass whose entries could fill half a chunk at the mean degree is
//     counted per chunk (settle_cover), and where the chunks it would
//     stream by the dense rule hold half of its host entries or more, it
//     streams instead of being gathered. Uniform 26 at 6 GiB pinned (10
//     settle passes, the largest most of the graph): 1.02-1.12 s with its
//     dense passes gathered, 0.77 s with the dense one streamed so, 0.60-
//     0.62 s with the gather off (its passes of middling density, gathered
//     here, then go through the streaming's rule) (docs/benchmarks.md,
//     forty-third session). Counter "settle_dense_passes"; "settle-dense"
//     disables it. Counters "settle_gathered_passes", "settle_gathered_chunks",
//     "settle_gathered_bytes" (in host_list_bytes too), "settle_gather_us"
//     (the passes' host time), "settle_gather_wait_us" (waits for a
//     buffer's upload); "settle-gather" disables them. Beside the gather
//     the GPU relaxes a share of the host part from its end in place (the
//     side share, sgk_side_share in kinternal.cuh, as BFS's gathered
//     steps: at most half the resident blocks, the share following both
//     sides' summed rates), on a stream of its own once the pass's
//     counters are cleared, at most 35 % of the part; counters
//     "settle_side_vertices", "settle_side_us", "settle_side_pct";
//     "settle-side" disables it. SSCA2 26 at 6 GiB pinned: 4.80-4.86 s in
//     place to 2.03-2.39 s gathered (911 of 1,209 passes, 16.7 GB at 10-12
//     GB/s by 16 threads), 1.76-1.98 s with the side share at 31-35 %
//     (docs/benchmarks.md, forty-second session).
//   Final-vertex bits: before a settle pass its list's vertices are marked
//     final in a bitmap (n / 8 bytes: 2 MB at 16M vertices, held in L2);
//     every relaxation (rounds and settle passes) tests its target's bit
//     before reading its distance: a final target cannot improve, and on
//     R-MAT most heavy edges of a bucket lead into the same or an earlier
//     bucket. "done-bits" disables the test.
//   Load balancing by degree inside the round and settle kernels: each warp takes 32
//     queue entries; lists < 32 are gathered by a warp prefix scan and spread
//     over the lanes (one edge per lane, coalesced); lists of 32..2047 are
//     walked by the whole warp one after another; lists >= 2048 (hubs; only
//     when the graph's max degree reaches 2048) go to a hub queue whose
//     edges a single-block scan concatenates and the whole grid then splits
//     evenly (a star's 16M-entry list takes every SM).
//   mid split (Q_in empty, M not): T_new = min(U, max(T + delta, the end of
//     midmin's bucket)); M's entries with dist < T are stale (their last
//     drop went below T and was pushed near and relaxed) and dropped;
//     [T, T_new) go to Q_in; the rest stay in M (compacted). F is not read.
//   far split (Q_in and M empty): T_new = max(T + delta, the end of
//     farmin's bucket) > farmin >= U (empty buckets are skipped, never
//     walked), U_new = T_new + (w - 1) delta; F's entries with dist < U are
//     stale (every drop below U went to M or Q_in, both now empty), [U,
//     T_new) go to Q_in, [T_new, U_new) move to M, the rest stay in F.
//     Done when Q_in, the settled list, M and F are empty.
//   So a far entry is read once per window of w buckets, not once per
//   bucket; a bucket costs a pass over M only. The window w (buckets) starts
//   at 32 and adapts at each far split: halved (>= 2) when the mid splits of
//   the last window read more than twice the far pile, doubled (quadrupled
//   after an empty window; <= 2^20) when they read less than half of it:
//   it balances the per-bucket M rescans against the per-window F pass.
//   "far-window" disabled: w = 1 (U = T, M always empty): the single far
//   pile, split at every bucket.
//   Host per round or split: one memset of the counters it clears, one
//   counter read back (cudaMemcpyAsync + sync), which sizes the next launch.
//   Small near rounds on the device (near_loop; graphs without a hub queue):
//   a near queue of at most LOOP_CAP (65536) vertices starts a cooperative
//   kernel on 2 blocks per multiprocessor that runs the bucket's rounds back
//   to back, one grid sync a round (the near queue's count goes to one of
//   three words in turn, the next one cleared by one thread), and when the
//   queue runs dry the bucket's settle pass (unless its list is to be
//   sorted: max(256, n / 256) vertices or more with host lists) and the
//   next mid split, until a round pushes more than LOOP_CAP, a far split
//   is due or 4096 passes ran; it reads back once. SSCA2 26 (14,312 rounds
//   in 1,332 buckets): rounds only, three syncs a round, in core 0.67-0.72
//   to 0.53-0.54 s a search, at 6 GiB 1.36-1.39 to 1.21-1.23 s; with the
//   buckets and one sync a round 0.45-0.55 and 1.11-1.18 s (381 loops in
//   core, 714 at 6 GiB: 887 of 1,331 settle passes and 1,016 mid splits on
//   the device; docs/benchmarks.md); 1 block per multiprocessor the same,
//   4 slower. R-MAT (hubs) keeps the host rounds. Counters "device_rounds",
//   "device_loops", "device_settles", "device_splits"; "device-rounds"
//   disables the loop, "device-buckets" its settle passes and splits.
//   Queues are bounded by n: Q_out by the stamp, M and F by their bitsets,
//   Q_in by the stamp or (from a split) by a bitset; the hub queue by
//   min(n, m / 2048) + 1. Counter "far_splits" counts far splits
//   ("buckets" counts both kinds of split, plus one).
//
// ---------------------------------------------------------------- Bellman-Ford
// (SGK_SSSP_BELLMAN_FORD, the reference paper: "GPU SSSPの実装"). Prep builds
// an edge list (src, dst, w as three u32 arrays): undirected graphs keep each
// undirected edge once (the CSR entry with u < v) and one thread relaxes both
// directions (the paper's if / else-if); directed graphs keep every edge,
// one direction; self-loops are dropped. Edges are grouped by vertex
// segments for locality, as the paper does: by (segment of src, segment of
// dst), segments of P = max(2^18, n / 32 rounded up to a power of two)
// vertices (at most 32 segments, 1024 groups; a block-local counting sort:
// a histogram pass, a host prefix, a scatter pass). Each iteration is one
// kernel over the list: distance reads through the read-only (non-coherent,
// __ldg) path, the paper's const __restrict trick, writes by atomicMin; a
// block that improved anything writes the iteration number into the
// modified word, which the host reads after each launch; the first
// iteration without a change ends the run. A stale read-only value is only
// ever too high, and the last iteration changes nothing, so its reads are
// exact and it proves the fixpoint.
//
// ---------------------------------------------------------------- memory
// (bytes through the accountant; sgk_sssp_bytes counts each allocation as
// at least 256 bytes, so it is an exact figure or a slight upper bound)
//   near-far: 8n (dist) + 4n (stamps) + 8n (bucket stamps, settled list) +
//             4 ceil(n / 32) (final bits) + 2 * 4 ceil(n / 32) (far and mid
//             bits) + 4 * 4n (Q_in, Q_out, M, F) + 12 (min(n, m / 2048) + 1)
//             (hub queue and its offsets) + 128 (counters)  ~ 36n + 3n/8
//             ("far-window" disabled: M and its bits are 4 bytes each)
//   Bellman-Ford: 8n (dist) + 8 * 1024 (segment groups) + 3 * 4m' (edge
//             list, m' <= m kept entries; ~m/2 undirected, bound m) + 4
// sgk_sssp_bytes returns these with m' = m. No CUB device-wide call is
// used (no temporary storage); CUB's block primitives only.
//
// ---------------------------------------------------------------- disable names
// (SPILLGRAPH_GPU_DISABLE, comma-separated)
//   "bucket-balance"  near-far: a thread per queue vertex walks its whole
//                     list (no warp gather, warp lists or hub queue)
//   "prefilter"       near-far: no plain load of dist[v] before the atomicMin
//   "far-window"      near-far: no mid pile (window of 1 bucket): the whole
//                     far pile is split at every bucket, as before
//   "defer-heavy"     near-far: rounds relax every edge (no settle pass)
//   "light-index"     near-far: rounds walk the full lists (no light CSR)
//   "done-bits"       near-far: no final-vertex test before distance reads
//   "wide-delta"      near-far: the automatic delta stays 4 mean / degree
//                     (not doubled when its light index fits)
//   "wider-delta"     near-far: the automatic delta is doubled at most once
//   "cpu-light"       near-far: the GPU builds the whole light index (no
//                     CPU share of the host lists)
//   "light-prefetch"  near-far: the light index's CPU share reads its lists
//                     without software prefetch (cpu_light.h)
//   "light-sweep"     near-far: the fused pass's CPU share counts a chunk,
//                     then tallies and copies its light entries (three
//                     reads of W), not one sweep (sgk_light_lists)
//   "dynamic-split"   near-far: the light index's CPU share takes the
//                     lists from share->from up (no meeting)
//   "fused-index"     near-far: the light index by a count and a fill (two
//                     passes over W), not one fused pass
//   "settle-sort"     near-far: settle passes take their vertices in the
//                     rounds' order (not sorted by id first)
//   "settle-stream"   near-far: settle passes read every host list in place
//                     (no streamed chunks)
//   "settle-rule"     near-far: a sorted settle pass streams every chunk it
//                     reads from, however little
//   "settle-bounce"   near-far: managed host lists are not streamed (no
//                     copies by the CPU threads through the staging buffers)
//   "settle-gather"   near-far: settle passes over pinned host lists are not
//                     gathered by the CPU threads (in place, or streamed).
//   "settle-side"     near-far: a gathered settle pass's host part all
//                     gathered (no side share read in place).
//   "settle-dense"    near-far: with gathered settle passes, no streaming
//                     opened: dense passes are gathered too.
//   "settle-compact"  near-far: a bounced chunk is copied whole, not only
//                     the lists of the pass's vertices in it
//   "index-ring"      near-far: the light index's CPU threads upload through
//                     the staging buffers in turn on the copy stream
//   "keep-index"      near-far: the light index is freed at the end of the
//                     call (not kept for the next call with the same delta)
//   "device-rounds"   near-far: every round launched and read back by the
//                     host (no near_loop)
//   "device-buckets"  near-far: the device loop runs near rounds only (the
//                     settle passes and mid splits from the host)
//   "bf-ldg"          Bellman-Ford: plain distance loads, not __ldg
//   "bf-segments"     Bellman-Ford: one segment (CSR order, no grouping)
//
// ---------------------------------------------------------------- automatic delta
// delta == 0: delta = 4 * mean weight / mean degree (m / n, isolated
// vertices counted; mean weight / mean degree with "defer-heavy" off), the
// mean from a strided sample of at most 65536 weights (finite ones) read on
// the device; u32 rounded to a power of two, at least 1; 1.0 when the
// sampled ratio is 0. Measured on the H100 (docs/benchmarks.md), R-MAT
// scale 24 (mean weight ~2^19, m / n = 31: 4 mean / degree = 2^16) kernel
// ms by delta with deferral and the light index: 8192 83, 16384 72, 32768
// 61, 65536 57, 131072 56, 262144 67; scale 22 the same shape (65536 22
// ms). Wide buckets pay once rounds are cheap: a bucket costs launches, a
// read-back, a mid-pile pass and a settle pass, while the extra in-bucket
// rounds of a wide bucket rescan only light lists; past ~2^17 the settle
// pass's relaxations grow (more targets improved twice). Without deferral
// the sweep had its optimum at 16384 (mean / degree).
// With deferral and the light index, on a graph without hubs (the largest
// degree under 16 times the mean: sgk_sssp_wide_ok), the width is then
// doubled (8 mean / degree) when the index at that width fits: it is
// counted at the doubled width first, and when it does not fit the budget
// or holds more than 45 % of the edges, counted again at the narrow one (a
// second pass over W; the hybrid plan leaves room for m/8 light entries
// and a quarter more, src/gpu_engine.c). Where the fused pass's weight
// sample puts at most 30 % of the entries below twice the doubled width
// and that index's slots fit, the width is doubled again (16 mean /
// degree; "wider-delta" disables it): SSCA2 26 in core 0.47 to 0.37 s a
// search (docs/benchmarks.md, nineteenth session); no budgeted run of it
// has room (the plan leaves none for it). Without an index the width stays
// narrow. Measured at scale 26 (docs/benchmarks.md): SSCA2 (20,320
// latency-bound rounds at 2^16) took 1.129 s in core at 2^16, 0.750 at
// 2^17 and 0.582 at 2^18, and at a 6 GiB budget 1.87 s at 2^16 against
// 1.52-1.55 at 2^17 (2.88 at 2^18, where the index no longer fits and the
// rounds read the host lists); a uniform random graph (scale 25) 78 ms of
// kernels at 2^16, 70 at 2^17. R-MAT, whose hubs give few large rounds,
// lost: 0.176 against 0.190 s in core, 0.818 against 0.85-0.89 at 6 GiB
// (the scale 24 sweep above is flat there), so it keeps the narrow width.
//
// ---------------------------------------------------------------- measured cost
// R-MAT scale 24 on the H100 (n = 16.8M, m = 520.8M CSR entries; the
// figures and commands are in docs/benchmarks.md): kernel 39-41 ms (one
// run of three 52) at the automatic delta 65536: 124M distance reads
// (0.24 per edge), 0.66G weights read, 38 buckets, 86 rounds. Per-kernel
// timing (ncu): ~12 ms in the first bucket's rounds (queues of millions of
// vertices), ~17 ms in its settle pass (list and hub kernels), 5 ms in
// mid-pile splits, the rest in ~120 small rounds and splits (launches and
// a read-back each, 20-50 us). The first version (one far pile, every edge
// relaxed in every round) took 78 ms at its best width. Bellman-Ford:
// 16-19 iterations of ~3.7 ms; the grouped edge list keeps dist reads in
// L2 (60-70 ms).
//
// ---------------------------------------------------------------- next
// The settle pass and the mid split inside the device loop too (SSCA2's
// buckets still cost ~0.4 ms each: a loop, a settle pass, a split and
// their read-backs), and the loop on graphs with hubs (the hub kernels
// launch every round even when no hub was pushed); a pull-style first
// bucket (on R-MAT it holds most vertices); a window sized from a
// histogram of F's distances instead of the multiplicative rule.
#include <cuda_runtime.h>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <string.h>

#include <algorithm>
#include <memory>
#include <new>

#include "cpu_gather.h"
#include "cpu_light.h"
#include "cpu_share.cuh"
#include "kinternal.cuh"

namespace cg = cooperative_groups;

namespace {

typedef unsigned long long u64;
typedef sgk_arr<u64> XArr;      // offsets: split device / host (kinternal.cuh)
typedef sgk_arr<uint32_t> EArr; // neighbours or weights

// The graph's offsets with this file's 64-bit word type.
XArr graph_x(const sgk_graph *g)
{
    XArr r;
    r.d = reinterpret_cast<const u64 *>(g->X.d);
    r.h = reinterpret_cast<const u64 *>(g->X.h);
    r.s = g->X.s;
    return r;
}

constexpr u64 INF_U32 = ~0ull;                  // u32 weights: unreached
constexpr u64 INF_F32 = 0x7ff0000000000000ull;  // f32 weights: +INFINITY bits
constexpr unsigned FULL = 0xffffffffu;

constexpr unsigned SMALL = 32;      // lists below: warp gather
constexpr unsigned BIG = 2048;      // lists from here: hub queue (grid-wide)
constexpr unsigned RBLOCK = 256;    // round kernel block
constexpr unsigned SCAN_BLOCK = 1024;

constexpr unsigned BF_BLOCK = 256;
constexpr unsigned BF_ITEMS = 8;
constexpr unsigned BF_TILE = BF_BLOCK * BF_ITEMS;
constexpr unsigned BF_MAXSEG = 32;
constexpr unsigned BF_MAXBINS = BF_MAXSEG * BF_MAXSEG;

constexpr u64 SORT_MIN = 256;     // spilled settle passes from max(this, n / 1024) vertices: id order
constexpr u64 LOOP_CAP = 65536;   // near rounds of at most this many vertices: on the device
constexpr u64 LOOP_MAX = 4096;    // passes a device loop runs at most before the host reads back
// Settled lists the device loop leaves to the host to sort (with host
// lists): from n / LOOP_SORT_DIV vertices, or SORT_MIN if more. SSCA2 26
// at 6 GiB took 1.11-1.17 s a search with every settle pass in the loop,
// unsorted, against 1.15-1.22 s with the host sorting those from n / 1024
// (444 of 1,331); its short lists gain nothing from the order (fifteenth
// session).
constexpr u64 LOOP_SORT_DIV = 256;
// Gathered settle passes (pinned host lists): settled lists from n /
// GATHER_DIV vertices, or SORT_MIN if more, leave the device loop to be
// gathered; below that, by an estimate not measured, a pass's fixed cost
// (its list read back, the chunks' syncs: ~0.15 ms) exceeds what the
// gather saves over the in-place reads (~0.13 ns a byte).
constexpr u64 GATHER_DIV = 8192;
// The GPU's side share of a gathered pass's host part at most (kinternal.cuh,
// sgk_side_share): above it the in-place reads slowed the threads' gather.
constexpr double SIDE_MOST = 0.35;
constexpr int LOOP_BLOCKS_PER_SM = 2;
constexpr u64 WINDOW0 = 32;       // initial far window, in buckets
constexpr u64 WINDOW_MAX = 1u << 20; // adaptive window bounds
constexpr u64 WINDOW_MIN = 2;

// Device counters. A round clears [qout, settled); a settle pass [qout,
// mid); a mid split [qout, far); a far split [qout, relax). All clear to 0: the minima are kept complemented
// (farneg = ~farmin, raised by atomicMax; 0 means none), so one memset does.
struct Counters {
    u64 qout;      // entries pushed to the next near queue (round or split)
    u64 big;       // hub queue entries this round
    u64 bigtotal;  // their edges (hub_scan)
    u64 settled;   // the bucket's settled list (kept over its rounds)
    u64 mid;       // mid pile entries
    u64 midneg;    // ~(a lower bound of the mid entries' distances)
    u64 far;       // far pile entries
    u64 farneg;    // ~(a lower bound of the far entries' distances)
    u64 relax;     // edges examined (their weight read), all rounds
    u64 tries;     // relaxations tried (the target's distance read)
    u64 wcnt;      // weight sample: count
    double wsum;   //                and sum
    u64 host;      // A and W entries the rounds read from host memory, all rounds
    u64 ihost;     // A entries the light index's fill read from host memory
    // What a device loop (near_loop) did, read back with the rest:
    u64 loop_rounds;  // near rounds it ran
    u64 loop_settles; // settle passes it ran
    u64 loop_splits;  // mid splits it ran
    u64 loop_midwork; // mid pile entries its splits read
    u64 loop_T;       // the threshold it left
    u64 loop_bufs;    // which of its three queues (0 qin, 1 qout, 2 mid at entry) is now
                      // qin (bits 0-1), qout (2-3) and mid (4-5)
};
static_assert(sizeof(Counters) == 160, "Counters layout");
// A device loop pushes its near queues' counts to qout, big and bigtotal in
// turn (it has no hub queue): three words in a row.
static_assert(offsetof(Counters, big) == offsetof(Counters, qout) + 8 &&
                  offsetof(Counters, bigtotal) == offsetof(Counters, qout) + 16,
              "near_loop's push counters");

// ---------------------------------------------------------------- helpers

// The light test's weight: the u32 weight, or an f32 weight's bits without
// the sign bit. Negative weights never reach SSSP, so that maps only -0.0
// to +0.0, a weight of 0 and light whatever the bound: were it heavy, a
// settle pass would relax it into its own bucket, whose vertices it has
// just marked final (the final-vertex bits), and lose that distance. The
// CPU threads' share tests the same (cpu_light.h, SGK_LIGHT_F32).
__host__ __device__ __forceinline__ u64 light_bits(bool f32, uint32_t wb)
{
    return (u64)(f32 ? wb & 0x7fffffffu : wb);
}

__device__ __forceinline__ u64 add_weight_f32(u64 d, uint32_t wbits)
{
    return (u64)__double_as_longlong(__longlong_as_double((long long)d) +
                                     (double)__uint_as_float(wbits));
}

// Appends v to q at a position from counter *cnt; one atomic per group of
// lanes that push together.
__device__ __forceinline__ void push_q(uint32_t *q, u64 *cnt, uint32_t v)
{
    cg::coalesced_group g = cg::coalesced_threads();
    u64 base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(cnt, (u64)g.size());
    base = g.shfl(base, 0);
    q[base + g.thread_rank()] = v;
}

// Lowers the minimum kept complemented in *pneg (*pneg = ~min) to the least
// of the group's values; reads first (the word is hot), so most calls make
// no atomic.
__device__ __forceinline__ void group_min(u64 *pneg, u64 val)
{
    cg::coalesced_group g = cg::coalesced_threads();
    const u64 m = ~cg::reduce(g, val, cg::less<u64>());
    if (g.thread_rank() == 0 && m > __ldcg(pneg)) atomicMax(pneg, m);
}

// Sets v's bit in bits; true when this call set it (v was not in the pile).
__device__ __forceinline__ bool bit_claim(uint32_t *bits, uint32_t v)
{
    uint32_t *wp = bits + (v >> 5);
    const uint32_t mask = 1u << (v & 31);
    return !(__ldcg(wp) & mask) && !(atomicOr(wp, mask) & mask);
}

// What a relaxation pass does with an edge of weight w from u (distance du):
// ALL relaxes it; NEAR only when du + w < T (the target would be near), the
// rest deferred; SETTLE, once from u's final distance, every edge a NEAR
// pass could not have taken: heavy ones (not light_bound-light, absent from
// the light index NEAR rounds walk) and light ones with du + w >= T.
enum RelaxMode : uint32_t { MODE_ALL, MODE_NEAR, MODE_SETTLE };

struct Relax {
    XArr x;
    EArr a;
    EArr w;
    u64 *dist;
    uint32_t *stamp;
    uint32_t *bits;    // far pile membership
    uint32_t *mbits;   // mid pile membership
    uint32_t *qout;
    uint32_t *far;
    uint32_t *mid;
    uint32_t *bigq;
    uint32_t *settled; // NEAR: the bucket's vertices, each once (sstamp)
    const uint32_t *done; // final vertices (settled buckets), a bit each; or null
    uint32_t *sstamp;  // bucket stamp of the settled list
    Counters *ctr;
    u64 *qcnt;         // qout's count: &ctr->qout (a device loop: one of three in turn)
    u64 T;             // near iff the new distance word < T
    u64 U;             // else mid iff < U (U >= T), else far
    u64 light_bound;   // an edge is light iff light_bits of its weight < this
    uint32_t round;    // stamp of this round (>= 1)
    uint32_t bucket;   // stamp of this bucket (>= 1)
    RelaxMode mode;
    bool prefilter;
    // A gathered settle pass's chunk (settle_gathered): list position i's
    // entries are [pofs[i], pofs[i + 1]) of a and w (the chunk's buffers);
    // null: a vertex's entries are x's.
    const uint32_t *pofs;
};

// After a successful atomicMin to nd: v joins the near queue, the mid pile
// or the far pile.
__device__ __forceinline__ void place(const Relax &r, uint32_t v, u64 nd)
{
    if (nd < r.T) {
        if (__ldcg(r.stamp + v) != r.round && atomicExch(r.stamp + v, r.round) != r.round)
            push_q(r.qout, r.qcnt, v);
    } else if (nd < r.U) {
        group_min(&r.ctr->midneg, nd);
        if (bit_claim(r.mbits, v)) push_q(r.mid, &r.ctr->mid, v);
    } else {
        group_min(&r.ctr->farneg, nd);
        if (bit_claim(r.bits, v)) push_q(r.far, &r.ctr->far, v);
    }
}

// Relaxes up to K CSR entries e[k] (ok[k]) from distances du[k] (finite) of
// their sources, those the pass's mode takes. Each stage's loads are issued
// for all K entries before any is used (neighbour and weight, then the
// final bits, then the distances), so a thread keeps K independent memory
// chains in flight instead of one: the loops over lists are latency-bound.
// A final target (its bit set) cannot improve: a 2 MB-per-16M bitmap read
// from L2 instead of a random distance read from HBM. tries counts the
// distance reads.
template <bool F32, int K>
__device__ __forceinline__ void relax_k(const Relax &r, const u64 (&e)[K], const bool (&ok)[K],
                                        const u64 (&du)[K], u64 &tries)
{
    uint32_t v[K], wb[K];
    bool go[K];
    u64 nd[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
        v[k] = 0;
        wb[k] = 0;
        if (ok[k]) {
            wb[k] = r.w.ldg(e[k]);
            v[k] = r.a.ldg(e[k]);
        }
    }
#pragma unroll
    for (int k = 0; k < K; k++) {
        nd[k] = F32 ? add_weight_f32(du[k], wb[k]) : du[k] + (u64)wb[k];
        go[k] = ok[k] && !(r.mode == MODE_NEAR ? nd[k] >= r.T
                                                : r.mode == MODE_SETTLE && nd[k] < r.T &&
                                                      light_bits(F32, wb[k]) < r.light_bound);
    }
    if (r.done) {
        uint32_t bw[K];
#pragma unroll
        for (int k = 0; k < K; k++) bw[k] = go[k] ? __ldg(r.done + (v[k] >> 5)) : 0u;
#pragma unroll
        for (int k = 0; k < K; k++)
            if ((bw[k] >> (v[k] & 31)) & 1u) go[k] = false;
    }
    u64 dv[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
        dv[k] = ~0ull;
        if (go[k]) {
            tries++;
            if (r.prefilter) dv[k] = r.dist[v[k]];
        }
    }
#pragma unroll
    for (int k = 0; k < K; k++)
        if (go[k] && nd[k] < dv[k] && nd[k] < atomicMin(r.dist + v[k], nd[k])) place(r, v[k], nd[k]);
}

// One entry (the thread-per-vertex path).
template <bool F32>
__device__ __forceinline__ void relax_edge(const Relax &r, u64 e, u64 du, u64 &tries)
{
    const u64 ee[1] = {e}, dd[1] = {du};
    const bool ok[1] = {true};
    relax_k<F32, 1>(r, ee, ok, dd, tries);
}

constexpr int RK = 4; // entries per thread per step in the list loops

__host__ __device__ __forceinline__ u64 sat_add(u64 a, u64 b) { return a + b < a ? ~0ull : a + b; }

__host__ __device__ __forceinline__ u64 dbl_bits(double d)
{
    u64 b;
    memcpy(&b, &d, sizeof b);
    return b;
}
__host__ __device__ __forceinline__ double bits_dbl(u64 b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

// The next threshold after T with a pile's lower bound farmin (the far
// or the mid pile's; < UINT64_MAX, >= T): the end of farmin's bucket, at
// least T + delta; always > farmin, so at least one entry becomes near.
__host__ __device__ u64 next_threshold(bool f32, u64 T, u64 farmin, u64 delta_u, double delta_f)
{
    if (!f32) {
        const u64 a = sat_add(T, delta_u);
        const u64 b = farmin / delta_u;
        const u64 end = b + 1 > ~0ull / delta_u ? ~0ull : (b + 1) * delta_u;
        return a > end ? a : end;
    }
    const double fm = bits_dbl(farmin);
    double end = (floor(fm / delta_f) + 1.0) * delta_f;
    if (!(end > fm)) end = nextafter(fm, INFINITY);
    const double a = bits_dbl(T) + delta_f;
    u64 t = dbl_bits(a > end ? a : end);
    if (t <= farmin) t = farmin + 1; // the next double up
    return t;
}

// ---------------------------------------------------------------- near-far kernels

__global__ void init_dist(u64 *dist, u64 n, u64 inf, uint32_t source, uint32_t *q)
{
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dist[i] = i == source ? 0ull : inf;
    if (q && blockIdx.x == 0 && threadIdx.x == 0) q[0] = source;
}

// One round over the near queue qin[0, k). Grid-stride by warps: every lane
// of a warp runs the same iterations (the shuffles need the whole warp).
// Every thread of the grid calls it (a block reduction ends it).
template <bool F32>
__device__ __forceinline__ void relax_body(const Relax &r, const uint32_t *__restrict__ qin, u64 k,
                                           bool balance, bool use_big)
{
    const unsigned lane = threadIdx.x & 31u;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    u64 examined = 0, tries = 0, host = 0;
    for (u64 base = (u64)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < k; base += stride) {
        const u64 idx = base + lane;
        uint32_t u = 0;
        u64 beg = 0, deg = 0, du = 0;
        if (idx < k) {
            u = qin[idx];
            if (r.pofs) {
                beg = r.pofs[idx];
                deg = r.pofs[idx + 1] - beg;
            } else {
                beg = r.x[u];
                deg = r.x[u + 1] - beg;
            }
            du = r.dist[u];
            examined += deg;
            host += r.a.host_count(beg, beg + deg) + r.w.host_count(beg, beg + deg);
            if (r.mode == MODE_NEAR && __ldcg(r.sstamp + u) != r.bucket &&
                atomicExch(r.sstamp + u, r.bucket) != r.bucket)
                push_q(r.settled, &r.ctr->settled, u);
        }
        if (!balance) { // "bucket-balance" off: a thread per vertex
            for (u64 e = beg; e < beg + deg; e++) relax_edge<F32>(r, e, du, tries);
            continue;
        }
        const bool big = use_big && deg >= BIG;
        const bool mid = !big && deg >= SMALL;
        if (big) push_q(r.bigq, &r.ctr->big, u);

        // Medium lists: the whole warp walks each in turn.
        unsigned mids = __ballot_sync(FULL, mid);
        while (mids) {
            const int l = __ffs(mids) - 1;
            mids &= mids - 1;
            const u64 b = __shfl_sync(FULL, beg, l);
            const u64 d = __shfl_sync(FULL, deg, l);
            const u64 dl = __shfl_sync(FULL, du, l);
            for (u64 e0 = b + lane; e0 < b + d; e0 += 32 * RK) {
                u64 ee[RK], dd[RK];
                bool ok[RK];
#pragma unroll
                for (int q = 0; q < RK; q++) {
                    ee[q] = e0 + 32u * q;
                    ok[q] = ee[q] < b + d;
                    dd[q] = dl;
                }
                relax_k<F32, RK>(r, ee, ok, dd, tries);
            }
        }

        // Short lists: concatenated by a warp prefix scan, one edge per lane.
        const unsigned sd = (!big && !mid) ? (unsigned)deg : 0u;
        unsigned incl = sd;
#pragma unroll
        for (unsigned o = 1; o < 32; o <<= 1) {
            const unsigned t = __shfl_up_sync(FULL, incl, o);
            if (lane >= o) incl += t;
        }
        const unsigned total = __shfl_sync(FULL, incl, 31);
        const unsigned excl = incl - sd;
        for (unsigned off = 0; off < total; off += 32 * RK) {
            u64 ee[RK], dd[RK];
            bool ok[RK];
#pragma unroll
            for (int q = 0; q < RK; q++) {
                const unsigned i = off + 32u * q + lane;
                // owner: the first lane whose inclusive sum exceeds i
                unsigned j = 0;
#pragma unroll
                for (unsigned step = 16; step; step >>= 1) {
                    const unsigned t = __shfl_sync(FULL, incl, j + step - 1);
                    if (t <= i) j += step;
                }
                const u64 b = __shfl_sync(FULL, beg, j);
                const unsigned ex = __shfl_sync(FULL, excl, j);
                dd[q] = __shfl_sync(FULL, du, j);
                ok[q] = i < total;
                ee[q] = b + (i - ex);
            }
            relax_k<F32, RK>(r, ee, ok, dd, tries);
        }
    }
    typedef cub::BlockReduce<u64, RBLOCK> BR;
    __shared__ typename BR::TempStorage tmp;
    const u64 sum = BR(tmp).Sum(examined);
    __syncthreads();
    const u64 tsum = BR(tmp).Sum(tries);
    __syncthreads();
    const u64 hsum = BR(tmp).Sum(host);
    if (threadIdx.x == 0 && sum) atomicAdd(&r.ctr->relax, sum);
    if (threadIdx.x == 0 && tsum) atomicAdd(&r.ctr->tries, tsum);
    if (threadIdx.x == 0 && hsum) atomicAdd(&r.ctr->host, hsum);
}

template <bool F32>
__global__ void __launch_bounds__(RBLOCK)
    relax_round(Relax r, const uint32_t *__restrict__ qin, u64 k, bool balance, bool use_big)
{
    relax_body<F32>(r, qin, k, balance, use_big);
}

// Marks the vertices of list[0, cnt) final (their bucket has settled).
__device__ __forceinline__ void mark_done_body(const uint32_t *__restrict__ list, u64 cnt,
                                               uint32_t *done)
{
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += stride) {
        const uint32_t u = list[i];
        atomicOr(done + (u >> 5), 1u << (u & 31));
    }
}

__global__ void mark_done(const uint32_t *__restrict__ list, u64 cnt, uint32_t *done)
{
    mark_done_body(list, cnt, done);
}

// Inclusive prefix of the hub queue's degrees into bigoff; total to the
// counters. One block.
__global__ void __launch_bounds__(SCAN_BLOCK)
    hub_scan(XArr x, const uint32_t *__restrict__ bigq, u64 *bigoff, Counters *ctr)
{
    typedef cub::BlockScan<u64, SCAN_BLOCK> BS;
    __shared__ typename BS::TempStorage tmp;
    const u64 cnt = ctr->big;
    u64 carry = 0;
    for (u64 s = 0; s < cnt; s += SCAN_BLOCK) {
        const u64 i = s + threadIdx.x;
        u64 d = 0;
        if (i < cnt) {
            const uint32_t u = bigq[i];
            d = x[u + 1] - x[u];
        }
        u64 incl, agg;
        BS(tmp).InclusiveSum(d, incl, agg);
        if (i < cnt) bigoff[i] = carry + incl;
        carry += agg;
        __syncthreads();
    }
    if (threadIdx.x == 0) ctr->bigtotal = carry;
}

// The hub queue's edges, concatenated, split evenly over the grid: each
// block a contiguous range, each thread every blockDim-th edge of it. A hub
// has >= BIG >= blockDim edges, so a thread's owner advances by at most one
// per step.
template <bool F32>
__global__ void __launch_bounds__(RBLOCK) hub_relax(Relax r, const u64 *__restrict__ bigoff)
{
    const u64 total = r.ctr->bigtotal;
    const u64 cnt = r.ctr->big;
    if (total == 0) return;
    const u64 per = ((total + gridDim.x - 1) / gridDim.x + blockDim.x - 1) / blockDim.x * blockDim.x;
    const u64 g0 = (u64)blockIdx.x * per;
    const u64 g1 = g0 + per < total ? g0 + per : total;
    u64 g = g0 + threadIdx.x;
    if (g >= g1) return;
    u64 tries = 0;
    u64 lo = 0, hi = cnt - 1;
    while (lo < hi) {
        const u64 mid = (lo + hi) / 2;
        if (bigoff[mid] > g)
            hi = mid;
        else
            lo = mid + 1;
    }
    u64 i = lo;
    uint32_t u = r.bigq[i];
    u64 start = i ? bigoff[i - 1] : 0;
    u64 xb = r.x[u];
    u64 du = r.dist[u];
    for (; g < g1; g += RK * blockDim.x) {
        u64 ee[RK], dd[RK];
        bool ok[RK];
#pragma unroll
        for (int q = 0; q < RK; q++) {
            const u64 gq = g + (u64)q * blockDim.x;
            ok[q] = gq < g1;
            ee[q] = 0;
            dd[q] = 0;
            if (ok[q]) {
                while (bigoff[i] <= gq) {
                    start = bigoff[i];
                    i++;
                    u = r.bigq[i];
                    xb = r.x[u];
                    du = r.dist[u];
                }
                ee[q] = xb + (gq - start);
                dd[q] = du;
            }
        }
        relax_k<F32, RK>(r, ee, ok, dd, tries);
    }
    const cg::coalesced_group grp = cg::coalesced_threads();
    const u64 t = cg::reduce(grp, tries, cg::plus<u64>());
    if (grp.thread_rank() == 0 && t) atomicAdd(&r.ctr->tries, t);
}

// Splits a pile pin[0, cnt) (membership bits pbits) at a threshold move:
// entries below lo are stale (dropped), [lo, T1) go to the near queue qin,
// the rest are kept in pout. MID: pin is the mid pile (lo = the old T), kept
// entries stay mid (counter mid). Far: pin is the far pile (lo = the old U),
// [T1, U1) move to the (empty) mid pile mout (bits mbits), >= U1 are kept far.
// (qcnt: qin's count, &ctr->qout but in a device loop.)
template <bool MID>
__device__ __forceinline__ void pile_split_body(const uint32_t *__restrict__ pin, u64 cnt,
                                                const u64 *__restrict__ dist, uint32_t *pbits,
                                                uint32_t *mbits, u64 lo, u64 T1, u64 U1,
                                                uint32_t *qin, uint32_t *mout, uint32_t *pout,
                                                u64 *qcnt, Counters *ctr)
{
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += stride) {
        const uint32_t v = pin[i];
        const u64 dv = dist[v];
        if (dv < T1) {
            atomicAnd(pbits + (v >> 5), ~(1u << (v & 31)));
            if (dv >= lo) push_q(qin, qcnt, v);
        } else if (MID) {
            push_q(pout, &ctr->mid, v);
            group_min(&ctr->midneg, dv);
        } else if (dv < U1) {
            atomicAnd(pbits + (v >> 5), ~(1u << (v & 31)));
            atomicOr(mbits + (v >> 5), 1u << (v & 31));
            push_q(mout, &ctr->mid, v);
            group_min(&ctr->midneg, dv);
        } else {
            push_q(pout, &ctr->far, v);
            group_min(&ctr->farneg, dv);
        }
    }
}

template <bool MID>
__global__ void pile_split(const uint32_t *__restrict__ pin, u64 cnt, const u64 *__restrict__ dist,
                           uint32_t *pbits, uint32_t *mbits, u64 lo, u64 T1, u64 U1,
                           uint32_t *qin, uint32_t *mout, uint32_t *pout, Counters *ctr)
{
    pile_split_body<MID>(pin, cnt, dist, pbits, mbits, lo, T1, U1, qin, mout, pout, &ctr->qout,
                         ctr);
}

// ---------------------------------------------------------------- device loop
// (near_loop: a cooperative launch, every block resident.) The host hands it
// the state between two passes: the near queue qin[0, k) (k <= cap; 0 when a
// bucket's settle pass or a mid split is next), its three queues and the
// threshold in r. It then runs, as the host would and in the same order:
//   - near rounds (r's mode and near arrays), while 0 < k <= cap;
//   - with `buckets`: when the near queue runs dry, the bucket's settle pass
//     (its vertices marked final, then their deferred edges from the full
//     lists) unless the settled list is sort_min or more (the host sorts it
//     first), and then the next bucket from the mid pile (a mid split).
// It stops where the host's turn comes: a near queue over cap, a settled list
// to sort, the mid pile empty (a far split, or the end), or max_passes
// passes run. One grid sync a pass: the near queue's count goes to one of
// three words in turn (qout, big, bigtotal; no hub queue here), and the lead
// thread clears the next one at the start of a pass, when every block has
// read it (two syncs back). The settle pass and the split add one and two
// syncs, once a bucket, to clear the words the blocks read first. It leaves
// its last count in ctr->qout and what it did in ctr->loop_*, so the host
// reads back once a loop instead of once a pass (SSCA2's thousands of small
// rounds and buckets were each a memset, a launch, a copy and a sync).
struct LoopArgs {
    uint32_t *buf[3];  // qin, qout and the mid pile at entry
    uint32_t *done;    // the final-vertex bits (r.done, writable), or null
    u64 k;             // qin's entries
    u64 cap;           // near queues over this go back to the host
    u64 max_passes;
    u64 sort_min;      // settled lists of this many or more go back (~0: none)
    u64 delta_u;
    double delta_f;
    XArr full_x;       // the settle pass's lists
    EArr full_a, full_w;
    bool buckets;      // settle passes and mid splits too ("device-buckets")
    bool balance;
};

template <bool F32>
__global__ void __launch_bounds__(RBLOCK) near_loop(Relax r, LoopArgs la)
{
    cg::grid_group grid = cg::this_grid();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    u64 *cnt = &r.ctr->qout;
    const RelaxMode nmode = r.mode;
    const XArr nx = r.x;
    const EArr na = r.a, nw = r.w;
    const uint32_t round0 = r.round, bucket0 = r.bucket;
    int iq = 0, oq = 1, mq = 2;
    u64 k = la.k, p = 0, rounds = 0, settles = 0, splits = 0, midwork = 0;
    // A pass pushes qin's next count to cnt[p % 3]; the word after it is
    // cleared for the next pass.
    auto begin = [&]() {
        r.qcnt = cnt + p % 3;
        if (lead) cnt[(p + 1) % 3] = 0;
    };
    auto end = [&]() -> u64 {
        grid.sync();
        const u64 v = __ldcg(cnt + p % 3);
        p++;
        return v;
    };
    while (p < la.max_passes) {
        r.bucket = bucket0 + (uint32_t)(settles + splits);
        r.mid = la.buf[mq];
        if (k > 0) {
            if (k > la.cap) break;
            r.round = round0 + (uint32_t)rounds;
            r.qout = la.buf[oq];
            begin();
            relax_body<F32>(r, la.buf[iq], k, la.balance, false);
            k = end();
            rounds++;
            const int t = iq;
            iq = oq;
            oq = t;
            continue;
        }
        if (!la.buckets) break;
        const u64 scnt = __ldcg(&r.ctr->settled);
        if (scnt > 0) {
            if (scnt >= la.sort_min) break;
            if (la.done) mark_done_body(r.settled, scnt, la.done);
            grid.sync(); // the bits set, and every block has read scnt
            if (lead) r.ctr->settled = 0;
            r.mode = MODE_SETTLE;
            r.x = la.full_x;
            r.a = la.full_a;
            r.w = la.full_w;
            r.qout = la.buf[oq];
            begin();
            relax_body<F32>(r, r.settled, scnt, la.balance, false);
            k = end();
            r.mode = nmode;
            r.x = nx;
            r.a = na;
            r.w = nw;
            settles++;
            const int t = iq;
            iq = oq;
            oq = t;
            continue;
        }
        const u64 mcnt = __ldcg(&r.ctr->mid);
        if (mcnt == 0) break;
        u64 T1 = next_threshold(F32, r.T, ~__ldcg(&r.ctr->midneg), la.delta_u, la.delta_f);
        if (T1 > r.U) T1 = r.U;
        grid.sync(); // every block has read mid and midneg
        if (lead) {
            r.ctr->mid = 0;
            r.ctr->midneg = 0;
        }
        grid.sync();
        begin();
        pile_split_body<true>(la.buf[mq], mcnt, r.dist, r.mbits, r.mbits, r.T, T1, r.U,
                              la.buf[iq], nullptr, la.buf[oq], r.qcnt, r.ctr);
        k = end();
        const int t = mq; // the kept entries are in qout's buffer
        mq = oq;
        oq = t;
        midwork += mcnt;
        r.T = T1;
        splits++;
    }
    if (lead) {
        r.ctr->qout = k;
        r.ctr->loop_rounds = rounds;
        r.ctr->loop_settles = settles;
        r.ctr->loop_splits = splits;
        r.ctr->loop_midwork = midwork;
        r.ctr->loop_T = r.T;
        r.ctr->loop_bufs = (u64)iq | (u64)oq << 2 | (u64)mq << 4;
    }
}

// Sum and count of a strided sample of the weights (finite ones).
__global__ void __launch_bounds__(SCAN_BLOCK)
    weight_sample(EArr w, u64 samples, u64 stride, bool f32, Counters *ctr)
{
    double s = 0.0;
    u64 c = 0;
    for (u64 i = threadIdx.x; i < samples; i += blockDim.x) {
        const uint32_t b = w[i * stride];
        const double v = f32 ? (double)__uint_as_float(b) : (double)b;
        if (isfinite(v)) {
            s += v;
            c++;
        }
    }
    typedef cub::BlockReduce<double, SCAN_BLOCK> BRD;
    typedef cub::BlockReduce<u64, SCAN_BLOCK> BRU;
    __shared__ typename BRD::TempStorage td;
    __shared__ typename BRU::TempStorage tu;
    const double ss = BRD(td).Sum(s);
    const u64 cc = BRU(tu).Sum(c);
    if (threadIdx.x == 0) {
        ctr->wsum = ss;
        ctr->wcnt = cc;
    }
}

// ---------------------------------------------------------------- Bellman-Ford kernels

struct BfSrc {
    XArr x;
    EArr a;
    EArr w;
    u64 n, m;
    unsigned shift;  // segment of v: v >> shift
    unsigned nseg;   // (n - 1) >> shift + 1 <= BF_MAXSEG
    bool directed;
};

// The largest u in [lo, hi] with x[u] <= e (the source of CSR entry e when
// the answer lies in the range).
template <class XT>
__device__ __forceinline__ u64 find_src(const XT &x, u64 lo, u64 hi, u64 e)
{
    while (lo < hi) {
        const u64 mid = lo + (hi - lo + 1) / 2;
        if (x[mid] <= e)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

// Group of CSR entry (u, v), or BF_MAXBINS when the entry is not kept.
__device__ __forceinline__ unsigned bf_bin(const BfSrc &s, u64 u, uint32_t v)
{
    const bool keep = s.directed ? u != v : u < v;
    if (!keep) return BF_MAXBINS;
    return (unsigned)(u >> s.shift) * s.nseg + (unsigned)((u64)v >> s.shift);
}

// Tiles of BF_TILE entries; thread 0 finds the tile's first and last
// sources, each entry's source is then a search within that range.
__global__ void __launch_bounds__(BF_BLOCK) bf_count(BfSrc s, u64 *bins)
{
    __shared__ unsigned hist[BF_MAXBINS];
    __shared__ u64 su[2];
    const unsigned nb = s.nseg * s.nseg;
    for (unsigned i = threadIdx.x; i < nb; i += blockDim.x) hist[i] = 0;
    __syncthreads();
    for (u64 t0 = (u64)blockIdx.x * BF_TILE; t0 < s.m; t0 += (u64)gridDim.x * BF_TILE) {
        const u64 t1 = t0 + BF_TILE < s.m ? t0 + BF_TILE : s.m;
        if (threadIdx.x == 0) {
            su[0] = find_src(s.x, 0, s.n - 1, t0);
            su[1] = find_src(s.x, su[0], s.n - 1, t1 - 1);
        }
        __syncthreads();
        const u64 u0 = su[0], u1 = su[1];
#pragma unroll
        for (unsigned j = 0; j < BF_ITEMS; j++) {
            const u64 e = t0 + j * BF_BLOCK + threadIdx.x;
            if (e < t1) {
                const u64 u = find_src(s.x, u0, u1, e);
                const unsigned b = bf_bin(s, u, s.a[e]);
                if (b < BF_MAXBINS) atomicAdd(&hist[b], 1u);
            }
        }
        __syncthreads();
    }
    for (unsigned i = threadIdx.x; i < nb; i += blockDim.x)
        if (hist[i]) atomicAdd(&bins[i], (u64)hist[i]);
}

// Writes the kept entries into their groups: cursor[b] is the next free
// slot of group b (the exclusive prefix of bf_count's histogram at first).
__global__ void __launch_bounds__(BF_BLOCK)
    bf_scatter(BfSrc s, u64 *cursor, uint32_t *es, uint32_t *ed, uint32_t *ew, u64 *whost)
{
    u64 hostc = 0; // weights read from host memory
    __shared__ unsigned cnt[BF_MAXBINS];
    __shared__ u64 base[BF_MAXBINS];
    __shared__ u64 su[2];
    const unsigned nb = s.nseg * s.nseg;
    for (u64 t0 = (u64)blockIdx.x * BF_TILE; t0 < s.m; t0 += (u64)gridDim.x * BF_TILE) {
        const u64 t1 = t0 + BF_TILE < s.m ? t0 + BF_TILE : s.m;
        for (unsigned i = threadIdx.x; i < nb; i += blockDim.x) cnt[i] = 0;
        if (threadIdx.x == 0) {
            su[0] = find_src(s.x, 0, s.n - 1, t0);
            su[1] = find_src(s.x, su[0], s.n - 1, t1 - 1);
        }
        __syncthreads();
        const u64 u0 = su[0], u1 = su[1];
        uint32_t iu[BF_ITEMS], iv[BF_ITEMS];
        unsigned ib[BF_ITEMS], ir[BF_ITEMS];
#pragma unroll
        for (unsigned j = 0; j < BF_ITEMS; j++) {
            const u64 e = t0 + j * BF_BLOCK + threadIdx.x;
            ib[j] = BF_MAXBINS;
            iu[j] = iv[j] = ir[j] = 0;
            if (e < t1) {
                const u64 u = find_src(s.x, u0, u1, e);
                iu[j] = (uint32_t)u;
                iv[j] = s.a[e];
                ib[j] = bf_bin(s, u, iv[j]);
                if (ib[j] < BF_MAXBINS) ir[j] = atomicAdd(&cnt[ib[j]], 1u);
            }
        }
        __syncthreads();
        for (unsigned i = threadIdx.x; i < nb; i += blockDim.x)
            if (cnt[i]) base[i] = atomicAdd(&cursor[i], (u64)cnt[i]);
        __syncthreads();
#pragma unroll
        for (unsigned j = 0; j < BF_ITEMS; j++) {
            if (ib[j] < BF_MAXBINS) {
                const u64 e = t0 + j * BF_BLOCK + threadIdx.x;
                const u64 p = base[ib[j]] + ir[j];
                es[p] = iu[j];
                ed[p] = iv[j];
                ew[p] = s.w[e];
                hostc += s.w.host_count(e, e + 1);
            }
        }
        __syncthreads();
    }
    sgk_warp_add(hostc, whost);
}

// ---------------------------------------------------------------- light index
// The light edges (weight bits < bound) of every list as a CSR of their own,
// edge-parallel so that a hub's list is spread over the grid: tiles of
// BF_TILE entries of [e0, e1), each entry's source found as in bf_count;
// lanes of a warp with the same source share one atomic (match_any). FILL
// false: cnt[u] += u's light count; true: cnt is a cursor per list (the
// exclusive prefix at first) and each light entry takes a slot (order
// within a list is free: a round relaxes all of a list's light edges).
template <bool FILL>
__global__ void __launch_bounds__(BF_BLOCK)
    light_pass(XArr x, EArr a, EArr w, u64 n, u64 e0, u64 e1, u64 bound, bool f32, u64 *cnt,
               uint32_t *la, uint32_t *lw, u64 *ahost)
{
    __shared__ u64 su[2];
    u64 hostc = 0; // FILL: light entries of A read from host memory
    const unsigned lane = threadIdx.x & 31u;
    for (u64 t0 = e0 + (u64)blockIdx.x * BF_TILE; t0 < e1; t0 += (u64)gridDim.x * BF_TILE) {
        const u64 t1 = t0 + BF_TILE < e1 ? t0 + BF_TILE : e1;
        if (threadIdx.x == 0) {
            su[0] = find_src(x, 0, n - 1, t0);
            su[1] = find_src(x, su[0], n - 1, t1 - 1);
        }
        __syncthreads();
        const u64 u0 = su[0], u1 = su[1];
#pragma unroll 2
        for (unsigned j = 0; j < BF_ITEMS; j++) {
            const u64 e = t0 + j * BF_BLOCK + threadIdx.x;
            const uint32_t wb = e < t1 ? w[e] : 0u;
            const bool light = e < t1 && light_bits(f32, wb) < bound;
            const u64 u = light ? find_src(x, u0, u1, e) : ~0ull;
            const unsigned peers = __match_any_sync(FULL, u);
            const int leader = __ffs(peers) - 1;
            u64 base = 0;
            if (light && lane == (unsigned)leader) base = atomicAdd(cnt + u, (u64)__popc(peers));
            base = __shfl_sync(FULL, base, leader);
            if (FILL && light) {
                const u64 p = base + __popc(peers & ((1u << lane) - 1u));
                la[p] = a[e];
                lw[p] = wb;
                hostc += a.host_count(e, e + 1);
            }
        }
        __syncthreads();
    }
    if (FILL) sgk_warp_add(hostc, ahost);
}

// The first v in [lo, hi) with x[v] >= e (hi when none).
template <class XT>
__device__ __forceinline__ u64 first_at(const XT &x, u64 lo, u64 hi, u64 e)
{
    while (lo < hi) {
        const u64 mid = lo + (hi - lo) / 2;
        if (x[mid] < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// The fused light index pass's state: word 0 the light entries of the
// launches before (each launch's last tile adds its own), word 1 a launch's
// tile ticket, then one status word per tile of the launch (cleared with the
// ticket before each launch).
constexpr u64 FUSED_PIECE = (u64)16 << 20;                  // entries per launch
// Words of state for m entries: 2 and a status word per tile of the
// largest launch (at most FUSED_PIECE entries: 8,194 words, 64 KiB).
inline u64 fused_state_words(u64 m)
{
    const u64 most = m < FUSED_PIECE ? m : FUSED_PIECE;
    return 2 + (most + BF_TILE - 1) / BF_TILE;
}
constexpr u64 LB_AGG = 1ull << 62, LB_PRE = 2ull << 62;     // a status word's flag
constexpr u64 LB_VAL = LB_AGG - 1;                          // and its value

// The light entries before this tile (warp 0, every lane): decoupled
// look-back (Merrill and Garland 2016). The tile publishes its aggregate,
// then reads the 32 status words below it at a time, spinning on those not
// yet published, and sums back to the nearest inclusive prefix; then
// publishes its own. Tile 0's prefix is *base. Tiles are dealt in the order
// blocks start (the ticket), so a tile only waits on running ones.
__device__ u64 lookback(u64 *status, u64 tile, u64 agg, const u64 *base)
{
    const unsigned lane = threadIdx.x & 31u;
    if (tile == 0) {
        const u64 pre = *reinterpret_cast<const volatile u64 *>(base);
        if (lane == 0) atomicExch(status, LB_PRE | (pre + agg));
        return pre;
    }
    if (lane == 0) atomicExch(status + tile, LB_AGG | agg);
    u64 sum = 0;
    long long end = (long long)tile; // the window [end - 32, end)
    for (;;) {
        const long long i = end - 32 + (long long)lane;
        u64 wd = LB_PRE; // (below tile 0: nothing)
        if (i >= 0)
            do
                wd = *reinterpret_cast<volatile u64 *>(status + i);
            while ((wd >> 62) == 0);
        const unsigned pre = __ballot_sync(FULL, (wd >> 62) == 2);
        const int hp = pre ? 31 - __clz((int)pre) : -1;
        u64 v = (int)lane >= hp ? (wd & LB_VAL) : 0;
#pragma unroll
        for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
        sum += v;
        if (pre) break;
        end -= 32;
    }
    if (lane == 0) atomicExch(status + tile, LB_PRE | (sum + agg));
    return sum;
}

// The light index in one pass over W (and the light entries' A): tiles of
// BF_TILE entries of [e0, e1), each slot given by the light entries before
// it (a single-pass scan: lookback), so each list's light entries are
// contiguous and in list order; entries from slot cap up are not written
// (the caller sees the total past cap and builds the index anew). The
// offsets lx[v] of the lists that start in [e0, e1) (v in [v0, v1)) are
// written too. state: fused_state_words(m) (above), the ticket and status
// words cleared. Each light lane reads its own A (a 32-byte sector over
// the bus): reading a warp's row of A whole wherever it holds a light
// entry (one 128-byte request) read 1.8x the bytes and lost, 253 to 300 ms
// for the GPU alone at R-MAT 26 and 6 GiB (docs/benchmarks.md,
// twenty-fourth session).
__global__ void __launch_bounds__(BF_BLOCK)
    light_fused(XArr x, EArr a, EArr w, u64 v0, u64 v1, u64 e0, u64 e1, u64 bound, bool f32,
                u64 *lx, uint32_t *la, uint32_t *lw, u64 cap, u64 *state, u64 *ahost)
{
    constexpr unsigned G = BF_TILE / 32; // groups of 32 entries (a warp's row)
    __shared__ uint32_t gmask[G];
    __shared__ uint32_t gpre[G];
    __shared__ u64 s_tile, s_pre, s_v[2];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) s_tile = atomicAdd(state + 1, 1ull);
    __syncthreads();
    const u64 tile = s_tile;
    const u64 t0 = e0 + tile * BF_TILE, t1 = t0 + BF_TILE < e1 ? t0 + BF_TILE : e1;
    uint32_t wv[BF_ITEMS], av[BF_ITEMS];
    unsigned lm = 0; // bit j: row j's entry is light
#pragma unroll
    for (unsigned j = 0; j < BF_ITEMS; j++) {
        const u64 e = t0 + j * BF_BLOCK + threadIdx.x;
        wv[j] = e < t1 ? w[e] : 0u;
        const bool light = e < t1 && light_bits(f32, wv[j]) < bound;
        const unsigned mk = __ballot_sync(FULL, light);
        if (lane == 0) gmask[j * (BF_BLOCK / 32) + warp] = mk;
        lm |= (unsigned)light << j;
    }
    u64 hostc = 0;
#pragma unroll
    for (unsigned j = 0; j < BF_ITEMS; j++) {
        const u64 e = t0 + j * BF_BLOCK + threadIdx.x;
        av[j] = 0;
        if ((lm >> j) & 1u) {
            av[j] = a[e];
            hostc += a.host_count(e, e + 1);
        }
    }
    __syncthreads();
    if (warp == 0) {
        static_assert(G == 64, "two groups a lane");
        const unsigned c0 = __popc(gmask[2 * lane]), c1 = __popc(gmask[2 * lane + 1]);
        unsigned incl = c0 + c1;
#pragma unroll
        for (unsigned o = 1; o < 32; o <<= 1) {
            const unsigned t = __shfl_up_sync(FULL, incl, o);
            if (lane >= o) incl += t;
        }
        const unsigned ex = incl - c0 - c1;
        gpre[2 * lane] = ex;
        gpre[2 * lane + 1] = ex + c0;
        const u64 agg = __shfl_sync(FULL, incl, 31);
        const u64 pre = lookback(state + 2, tile, agg, state);
        if (lane == 0) {
            s_pre = pre;
            if (t1 == e1) state[0] = pre + agg; // the next launch's base
        }
    } else if (threadIdx.x == 32) {
        s_v[0] = first_at(x, v0, v1, t0);
        s_v[1] = first_at(x, s_v[0], v1, t1);
    }
    __syncthreads();
    const u64 pre = s_pre;
#pragma unroll
    for (unsigned j = 0; j < BF_ITEMS; j++) {
        if (!((lm >> j) & 1u)) continue;
        const unsigned g = j * (BF_BLOCK / 32) + warp;
        const u64 p = pre + gpre[g] + __popc(gmask[g] & ((1u << lane) - 1u));
        if (p < cap) {
            la[p] = av[j];
            lw[p] = wv[j];
        }
    }
    for (u64 v = s_v[0] + threadIdx.x; v < s_v[1]; v += BF_BLOCK) {
        const u64 r = x[v] - t0;
        const unsigned g = (unsigned)(r >> 5);
        lx[v] = pre + gpre[g] + __popc(gmask[g] & ((1u << (r & 31u)) - 1u));
    }
    sgk_warp_add(hostc, ahost);
}

// After a fused pass shared with the CPU threads (the GPU's lists below
// clow, their light entries in slots [0, gtotal); the threads' from clow up,
// moved down by shift so that they follow): the lists below clow that start
// at or past gend (empty ones: no tile wrote them) begin at gtotal, the
// threads' offsets drop by shift, and lx[n] = total.
__global__ void light_fixup(XArr x, u64 n, u64 clow, u64 gend, u64 gtotal, u64 shift, u64 total,
                            u64 *lx)
{
    __shared__ u64 s_v;
    if (threadIdx.x == 0) s_v = first_at(x, 0, clow, gend);
    __syncthreads();
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 v = s_v + (u64)blockIdx.x * blockDim.x + threadIdx.x; v <= n; v += stride)
        lx[v] = v == n ? total : v < clow ? gtotal : lx[v] - shift;
}

// The weights W[i stride], i < samples, as bits (the fused pass's estimate
// of the light share).
__global__ void sample_bits(EArr w, u64 samples, u64 stride, uint32_t *out)
{
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < samples;
         i += (u64)gridDim.x * blockDim.x)
        out[i] = w[i * stride];
}

template <bool LDG>
__device__ __forceinline__ u64 bf_load(const u64 *p)
{
    return LDG ? __ldg(p) : *p;
}

template <bool F32>
__device__ __forceinline__ u64 bf_add(u64 d, uint32_t w)
{
    if (F32) return add_weight_f32(d, w);
    return d == INF_U32 ? INF_U32 : d + (u64)w;
}

// One Bellman-Ford iteration over the edge list (the paper's kernel).
template <bool F32, bool LDG, bool UNDIR>
__global__ void __launch_bounds__(256)
    bf_iter(const uint32_t *__restrict__ es, const uint32_t *__restrict__ ed,
            const uint32_t *__restrict__ ew, u64 me, u64 *dist, unsigned *modif, unsigned iter)
{
    const u64 stride = (u64)gridDim.x * blockDim.x;
    int changed = 0;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < me; i += stride) {
        const uint32_t s = es[i], d = ed[i], w = ew[i];
        const u64 ds = bf_load<LDG>(dist + s);
        const u64 dd = bf_load<LDG>(dist + d);
        const u64 nd = bf_add<F32>(ds, w);
        if (nd < dd) {
            if (nd < atomicMin(dist + d, nd)) changed = 1;
        } else if (UNDIR) {
            const u64 ns = bf_add<F32>(dd, w);
            if (ns < ds && ns < atomicMin(dist + s, ns)) changed = 1;
        }
    }
    if (__syncthreads_or(changed) && threadIdx.x == 0) *modif = iter;
}

// ---------------------------------------------------------------- streamed settle passes

// The chunk candidates of the streamed range: v[0] = the first vertex whose
// lists lie wholly past both device prefixes (X[v] >= eh), v[k] (0 < k < cnt)
// the last vertex v with X[v] <= eh + k step, v[cnt] = n; e[k] = X[v[k]].
__global__ void stream_bounds(XArr x, u64 n, u64 eh, u64 step, u64 cnt, u64 *vb, u64 *eb)
{
    const u64 k = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (k > cnt) return;
    u64 v = n;
    if (k == 0) {
        u64 lo = 0, hi = n; // the first v with x[v] >= eh (x[n] = m >= eh)
        while (lo < hi) {
            const u64 mid = lo + (hi - lo) / 2;
            if (x[mid] < eh) lo = mid + 1;
            else hi = mid;
        }
        v = lo;
    } else if (k < cnt) {
        const u64 t = eh + k * step;
        u64 lo = 0, hi = n; // the last v with x[v] <= t (x[0] = 0 <= t)
        while (lo < hi) {
            const u64 mid = lo + (hi - lo + 1) / 2;
            if (x[mid] <= t) lo = mid;
            else hi = mid - 1;
        }
        v = lo;
    }
    vb[k] = v;
    eb[k] = x[v];
}

// For a settle pass over the sorted list[0, cnt): pos[k] (k = 0..nc) = the
// first position whose vertex is cb[k] or more, and cov[k] += the list
// entries of its vertices in chunk k, [cb[k], cb[k + 1]) (cov zeroed
// before). A warp whose vertices share one chunk (the list is sorted:
// nearly every warp) adds once.
__global__ void __launch_bounds__(256)
    settle_cover(const uint32_t *__restrict__ list, u64 cnt, XArr x, const u64 *__restrict__ cb,
                 u64 nc, u64 *cov, u64 *pos)
{
    const u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (tid <= nc) {
        const u64 b = cb[tid];
        u64 lo = 0, hi = cnt;
        while (lo < hi) {
            const u64 mid = lo + (hi - lo) / 2;
            if (list[mid] < b) lo = mid + 1;
            else hi = mid;
        }
        pos[tid] = lo;
    }
    const unsigned lane = threadIdx.x & 31u;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 base = tid - lane; base < cnt; base += stride) {
        const u64 i = base + lane;
        const uint32_t v = i < cnt ? list[i] : 0u;
        const bool ok = i < cnt && v >= cb[0] && v < cb[nc];
        u64 k = 0, deg = 0;
        if (ok) {
            u64 lo = 0, hi = nc - 1; // the chunk: the last k with cb[k] <= v
            while (lo < hi) {
                const u64 mid = lo + (hi - lo + 1) / 2;
                if (cb[mid] <= v) lo = mid;
                else hi = mid - 1;
            }
            k = lo;
            deg = x[v + 1] - x[v];
        }
        const u64 k0 = __shfl_sync(FULL, k, __ffs(__ballot_sync(FULL, ok) | 0x80000000u) - 1);
        if (__all_sync(FULL, !ok || k == k0)) {
            u64 sum = deg;
            for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(FULL, sum, o);
            if (lane == 0 && sum) atomicAdd(cov + k0, sum);
        } else if (deg) {
            atomicAdd(cov + k, deg);
        }
    }
}

// ---------------------------------------------------------------- host side

// An allocation's bytes as the accountant counts them, rounded up to at
// least 256 so that the bound also holds where an array is sized below m.
u64 abytes(u64 b) { return b < 256 ? 256 : b; }

u64 hub_cap(u64 n, u64 m)
{
    const u64 k = m / BIG;
    return (k < n ? k : n) + 1;
}

// A compacted chunk's offsets before their scan: cx[u - v0] = the length of
// the list of each vertex u of list[0, cnt) (a settle pass's vertices in a
// chunk from vertex v0 on); the other words were cleared.
__global__ void chunk_lens(const uint32_t *__restrict__ list, u64 cnt, XArr x, u64 v0, u64 *cx)
{
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += stride) {
        const uint32_t u = list[i];
        cx[u - v0] = x[(u64)u + 1] - x[u];
    }
}

// A settle pass's sorted list read back to the host once (compacted
// bounces, gathered passes), into a buffer grown as needed and not
// value-initialised: a std::vector's resize zeroed up to 44 MB at R-MAT 26
// before the copy overwrote it.
struct ListBack {
    std::unique_ptr<uint32_t[]> p;
    u64 cap = 0;
    sg_status fetch(const uint32_t *list, u64 cnt, cudaStream_t st, sg_error *err)
    {
        if (cap < cnt) {
            p.reset(new (std::nothrow) uint32_t[cnt]);
            cap = p ? cnt : 0;
            if (!p)
                return sgi_fail(err, SG_E_NOMEM, "SSSP's settle pass: %llu vertices read back",
                                (unsigned long long)cnt);
        }
        SGK_CU(cudaMemcpyAsync(p.get(), list, cnt * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        return SG_OK;
    }
};

// Gathered settle passes (see "Gathered settle passes" at the top): two
// device buffers of chunk offsets (so), neighbours (sa) and weights (sw)
// and their uploads' order (ring), made at the first such pass when the
// budget holds them.
struct SettleGather {
    sgk_ctx *c = nullptr;
    bool tried = false, on = false;
    u64 gv = 0, ge = 0;  // a chunk's most vertices and entries
    u64 vsplit = 0;      // the first vertex whose list lies wholly in host memory
    sgk_dbuf<uint32_t> so[2], sa[2], sw[2];
    sgk_chunk_pair ring;
    u64 passes = 0, chunks = 0, entries = 0, us = 0, wait_us = 0;
    // the GPU's side share of a pass's host part ("settle-side"): with
    // side_cap blocks at most; go: the pass's counters cleared
    bool use_side = false;
    sgk_side_share side;
    unsigned side_cap = 1;
    cudaEvent_t go = nullptr;
    SettleGather() = default;
    SettleGather(const SettleGather &) = delete;
    SettleGather &operator=(const SettleGather &) = delete;
    ~SettleGather()
    {
        if (go) (void)cudaEventDestroy(go);
    }
    void release()
    {
        for (int b = 0; b < 2; b++) {
            so[b].release();
            sa[b].release();
            sw[b].release();
        }
        on = false;
    }
    // Chunks as BFS's gathered steps size them (common/sg_common.h), with
    // room for the longest list; the staging buffers hold a chunk's offsets,
    // neighbours and weights.
    sg_status open(sgk_ctx *ctx, const sgk_graph *g, const void *relax_kernel, sg_error *err)
    {
        c = ctx;
        tried = true;
        const u64 n = g->d.n, m = g->d.m, eh = g->A.s > g->W.s ? g->A.s : g->W.s;
        gv = sgi_bfs_gather_vertices(n);
        ge = sgi_sssp_gather_entries(m, g->d.max_degree);
        const u64 words = gv + 1 + 2 * ge, margin = 1ull << 20;
        if (4 * words > SGK_STAGE_BYTES || eh >= m) return SG_OK;
        const u64 bytes = sgi_sssp_gather_bytes(n, m, g->d.max_degree); // 2 * 4 * words
        if (c->in_use + bytes + margin > c->budget) return SG_OK;
        for (int b = 0; b < 2; b++) {
            SGK_TRY(so[b].alloc(c, gv + 1, "the SSSP gathered chunk offsets", err));
            SGK_TRY(sa[b].alloc(c, ge, "the SSSP gathered chunk neighbours", err));
            SGK_TRY(sw[b].alloc(c, ge, "the SSSP gathered chunk weights", err));
        }
        SGK_TRY(ring.make(err));
        vsplit = sgi_first_list_from(g->hx, n, eh); // its list starts past both prefixes
        use_side = !sgk_ctx_disabled(c, "settle-side");
        if (use_side) {
            int occ = 0;
            SGK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, relax_kernel, RBLOCK, 0));
            const u64 half = (u64)c->sm_count * (u64)(occ > 0 ? occ : 1) / 2;
            side_cap = half > 0 ? (unsigned)half : 1;
            SGK_TRY(side.make(SIDE_MOST, err));
            side.reset(gv);
            if (!go) SGK_CU(cudaEventCreateWithFlags(&go, cudaEventDisableTiming));
        }
        on = true;
        return SG_OK;
    }
};

// Streamed settle passes (see "Streamed settle passes" at the top): the
// chunks of the host range, their staging buffers and events.
constexpr u64 SSTREAM_MAX = 32ull << 20; // entries a staging buffer holds at most (A and W: 256 MB)
constexpr u64 SSTREAM_MIN = 4096;        // at least (else no streaming)
struct SettleStream {
    sgk_ctx *c = nullptr;
    bool on = false;
    bool tried = false;        // open() ran (at the first sorted settle pass)
    u64 S = 0;                 // entries per staging buffer
    u64 nc = 0;                // chunks
    std::vector<u64> cb, ce;   // chunk k: vertices [cb[k], cb[k + 1]), entries [ce[k], ce[k + 1])
    sgk_dbuf<u64> dcb, dwork;  // cb on the device; cov[nc] and pos[nc + 1]
    sgk_dbuf<uint32_t> buf;    // A0, A1, W0, W1: S entries each
    u64 *hwork = nullptr;      // pinned: cov and pos read back
    cudaEvent_t ready[2] = {nullptr, nullptr}, freed[2] = {nullptr, nullptr};
    cudaEvent_t t0 = nullptr, t1 = nullptr; // a host settle pass, timed
    u64 chunks = 0, bytes = 0;
    // Managed host lists (bounce): the CPU threads copy a chunk into the
    // context's staging buffers, lent (sgk_stage_lend) and cut into slots,
    // and the copy engine moves each slot to the device buffer.
    // Eight slots of 4 MiB, a ring small beside the host's L3 (300 MiB on
    // the H100 host), where the DMA may find what the threads just wrote
    // (not verified): R-MAT 26 at 6 GiB, the threads copied the bucket's 16
    // GB in 246-395 ms so, in 337-465 with 16 MiB slots (twenty-fourth
    // session). Each thread copies its part of a slot (sgk_host_pcopy).
    static constexpr int NSLOT = 8;
    static constexpr u64 SLOT = (u64)4 << 20; // bytes
    bool bounce = false;
    int threads = 0;
    bool lent = false;
    char *slot[NSLOT] = {};
    cudaEvent_t slot_ev[NSLOT] = {};
    bool slot_busy[NSLOT] = {};
    int next = 0;
    u64 bounce_us = 0, bounce_wait_us = 0; // the threads' copies; waits for a slot
    // Compacted bounces (bounce, the host offsets hx given, "settle-compact"
    // not disabled): a streamed chunk's slots carry only the lists of the
    // pass's vertices in it, gathered by the threads in vertex order, and
    // the relaxation reads them through the chunk's own offsets cx (cx[j]:
    // the entries of the pass's vertices below cb[k] + j, made on the
    // device). The pass's list is read back once (ListBack); co holds a
    // chunk's compacted starts on the host.
    bool compact = false;
    const u64 *hx = nullptr;
    sgk_dbuf<u64> cx;
    sgk_dbuf<uint8_t> ctmp; // the scan's scratch
    std::vector<u64> co, part;
    u64 compacted = 0, compact_saved = 0; // chunks so; the bytes they did not move

    SettleStream() = default;
    SettleStream(const SettleStream &) = delete;
    SettleStream &operator=(const SettleStream &) = delete;
    ~SettleStream()
    {
        release();
        for (cudaEvent_t e : {ready[0], ready[1], freed[0], freed[1], t0, t1})
            if (e) (void)cudaEventDestroy(e);
        for (cudaEvent_t e : slot_ev)
            if (e) (void)cudaEventDestroy(e);
    }
    void release()
    {
        if (lent) {
            sg_error e;
            (void)give_back(&e);
        }
        buf.release();
        dwork.release();
        dcb.release();
        cx.release();
        ctmp.release();
        sgk_host_free(hwork);
        hwork = nullptr;
        on = false;
    }
    // The pass timing events.
    sg_status events(sgk_ctx *ctx, sg_error *err)
    {
        c = ctx;
        SGK_CU(cudaEventCreate(&t0));
        SGK_CU(cudaEventCreate(&t1));
        return SG_OK;
    }
    // The staging buffers lent for a settle pass's bounced chunks.
    sg_status lend(sg_error *err)
    {
        void *b[2] = {nullptr, nullptr};
        SGK_TRY(sgk_stage_lend(c, b, err));
        static_assert(NSLOT * SLOT <= 2 * SGK_STAGE_BYTES, "the slots within the buffers");
        for (int i = 0; i < NSLOT; i++) {
            slot[i] = static_cast<char *>(b[i / (NSLOT / 2)]) + (u64)(i % (NSLOT / 2)) * SLOT;
            slot_busy[i] = false; // (lend waited for every copy out of them)
        }
        lent = true;
        return SG_OK;
    }
    // Back to the context after the pass, their copies' end recorded.
    sg_status give_back(sg_error *err)
    {
        lent = false;
        return sgk_stage_return(c, c->copy, err);
    }
    // total words to device address dst through the slots: for each slot
    // in turn (once its last DMA is done) fill(out, off, len) writes words
    // [off, off + len) into it on the CPU threads, then DMA moves it on, on
    // the copy stream (queued behind whatever it waits on).
    template <class Fill>
    sg_status through_slots(u64 total, uint32_t *dst, Fill fill, sg_error *err)
    {
        const u64 per = SLOT / 4;
        for (u64 off = 0; off < total; off += per) {
            const u64 len = total - off < per ? total - off : per;
            const int i = next;
            next = (next + 1) % NSLOT;
            if (slot_busy[i]) {
                const double tw = sgi_now();
                SGK_CU(cudaEventSynchronize(slot_ev[i]));
                bounce_wait_us += sgk_us_since(tw);
            }
            const double tc = sgi_now();
            fill(reinterpret_cast<uint32_t *>(slot[i]), off, len);
            bounce_us += sgk_us_since(tc);
            SGK_CU(cudaMemcpyAsync(dst + off, slot[i], len * 4, cudaMemcpyHostToDevice, c->copy));
            SGK_CU(cudaEventRecord(slot_ev[i], c->copy));
            slot_busy[i] = true;
        }
        return SG_OK;
    }
    // count entries at host address src (managed memory) to device address
    // dst, each slot copied in by the CPU threads.
    sg_status bounce_copy(const uint32_t *src, uint32_t *dst, u64 count, sg_error *err)
    {
        return through_slots(
            count, dst,
            [&](uint32_t *out, u64 off, u64 len) {
                sgk_host_pcopy(out, src + off, len * 4, threads);
            },
            err);
    }
    // The lists of verts[0..nv) (ascending, their compacted starts co[0..nv],
    // co[nv] the total) from host array src, gathered into dst[0..co[nv]):
    // each slot's range cut among the threads, each thread finding its
    // first list by a binary search in co.
    sg_status bounce_gather(const uint32_t *src, const uint32_t *verts, u64 nv, const u64 *cof,
                            uint32_t *dst, sg_error *err)
    {
        const int t = threads > 0 ? threads : 1;
        auto fill = [&](uint32_t *out, u64 off, u64 len) {
#pragma omp parallel for schedule(static) num_threads(t)
            for (int p = 0; p < t; p++) {
                u64 o = off + len * (u64)p / (u64)t;
                const u64 o1 = off + len * (u64)(p + 1) / (u64)t;
                if (o >= o1) continue;
                // the list holding output word o: the last q with cof[q] <= o
                u64 lo = 0, hi = nv;
                while (hi - lo > 1) {
                    const u64 mid = lo + (hi - lo) / 2;
                    if (cof[mid] <= o) lo = mid;
                    else hi = mid;
                }
                for (u64 q = lo; o < o1; q++) {
                    const u64 b = cof[q], e = cof[q + 1] < o1 ? cof[q + 1] : o1;
                    if (e <= o) continue; // (an empty list)
                    memcpy(out + (o - off), src + hx[verts[q]] + (o - b), (e - o) * 4);
                    o = e;
                }
            }
        };
        return through_slots(cof[nv], dst, fill, err);
    }
    // co[0..nv] = the compacted starts of the lists of verts[0..nv) (host
    // offsets hx), co[nv] their entries: a prefix sum on the threads.
    sg_status prefix(const uint32_t *verts, u64 nv, sg_error *err)
    {
        const int t = threads > 0 ? threads : 1;
        try {
            co.resize(nv + 1);
            part.resize((size_t)t + 1);
        } catch (...) {
            return sgi_fail(err, SG_E_NOMEM, "SSSP's settle pass: %llu compacted offsets",
                            (unsigned long long)nv);
        }
        u64 *pt = part.data(), *o = co.data();
#pragma omp parallel num_threads(t)
        {
            const int p = omp_get_thread_num(), np = omp_get_num_threads();
            const u64 q0 = nv * (u64)p / (u64)np, q1 = nv * (u64)(p + 1) / (u64)np;
            u64 sum = 0;
            for (u64 q = q0; q < q1; q++) sum += hx[(u64)verts[q] + 1] - hx[verts[q]];
            pt[p + 1] = sum;
#pragma omp barrier
#pragma omp single
            {
                pt[0] = 0;
                for (int i = 0; i < np; i++) pt[i + 1] += pt[i];
            }
            u64 at = pt[p];
            for (u64 q = q0; q < q1; q++) {
                o[q] = at;
                at += hx[(u64)verts[q] + 1] - hx[verts[q]];
            }
            if (p == np - 1) o[nv] = at;
        }
        return SG_OK;
    }
    // At the first sorted settle pass, for host lists the copy engine reads
    // (pinned or registered), or, from managed memory, which DMA reads
    // slowly, through the CPU threads' copies (`threads` > 0, "settle-bounce"
    // not disabled): the chunks and buffers, where the budget has room for
    // two staging buffers of SSTREAM_MIN entries or more beside what is
    // allocated (nothing is allocated for a search without such a pass:
    // SSCA2's are all in the device loop).
    sg_status open(const sgk_graph *g, int cpu_threads, const u64 *host_x, sg_error *err)
    {
        tried = true;
        const u64 n = g->d.n, m = g->d.m;
        const u64 eh = g->A.s > g->W.s ? g->A.s : g->W.s;
        if (!g->spilled || eh >= m || !g->ha || !g->hw) return SG_OK;
        if (g->h_managed && (cpu_threads < 1 || sgk_ctx_disabled(c, "settle-bounce")))
            return SG_OK;
        bounce = g->h_managed;
        threads = cpu_threads;
        const u64 host = m - eh, margin = 1ull << 20;
        u64 want_s = host / 4; // four chunks or more on small graphs
        want_s = want_s < SSTREAM_MIN ? SSTREAM_MIN : want_s > SSTREAM_MAX ? SSTREAM_MAX : want_s;
        const u64 room = c->budget > c->in_use + margin ? c->budget - c->in_use - margin : 0;
        // with compacted bounces, a 16th of the room is left for the chunk
        // offsets (8 bytes per vertex of the widest chunk: below)
        const bool want_compact = bounce && host_x && !sgk_ctx_disabled(c, "settle-compact");
        const u64 sroom = want_compact ? room - room / 16 : room;
        S = sroom / 16 < want_s ? sroom / 16 : want_s;
        if (S < SSTREAM_MIN) return SG_OK;
        // candidates every S / 2 entries, joined into chunks of at most S
        const u64 step = S / 2, cnt = (host + step - 1) / step;
        {
            sgk_dbuf<u64> vb;
            SGK_TRY(vb.alloc(c, 2 * (cnt + 1), "the SSSP settle chunk candidates", err));
            stream_bounds<<<(unsigned)((cnt + 256) / 256), 256, 0, c->stream>>>(
                graph_x(g), n, eh, step, cnt, vb.get(), vb.get() + cnt + 1);
            SGK_LAUNCHED("stream_bounds");
            std::vector<u64> h;
            try { // (at most cnt + 1 chunk bounds: the pushes below never reallocate)
                h.resize(2 * (cnt + 1));
                cb.reserve(cnt + 1);
                ce.reserve(cnt + 1);
            } catch (...) {
                return sgi_fail(err, SG_E_NOMEM, "SSSP's streamed settle passes: host memory for "
                                "%llu chunk candidates", (unsigned long long)cnt);
            }
            SGK_CU(cudaMemcpyAsync(h.data(), vb.get(), h.size() * sizeof(u64),
                                   cudaMemcpyDeviceToHost, c->stream));
            SGK_CU(cudaStreamSynchronize(c->stream));
            const u64 *v = h.data(), *e = v + cnt + 1;
            cb.push_back(v[0]);
            ce.push_back(e[0]);
            for (u64 i = 0; i < cnt;) {
                u64 j = i + 1;
                while (j < cnt && e[j + 1] - e[i] <= S) j++;
                if (v[j] > cb.back()) { // (a list past S / 2 maps candidates to its start)
                    cb.push_back(v[j]);
                    ce.push_back(e[j]);
                }
                i = j;
            }
        }
        nc = cb.size() - 1;
        if (nc == 0) return SG_OK;
        SGK_TRY(dcb.alloc(c, nc + 1, "the SSSP settle chunks", err));
        SGK_CU(cudaMemcpyAsync(dcb.get(), cb.data(), (nc + 1) * sizeof(u64), cudaMemcpyHostToDevice,
                               c->stream));
        SGK_TRY(dwork.alloc(c, 2 * nc + 1, "the SSSP settle chunk counts", err));
        SGK_TRY(buf.alloc(c, 4 * S, "the SSSP streamed settle lists", err));
        void *hp = nullptr;
        SGK_TRY(sgk_host_alloc((2 * nc + 1) * sizeof(u64), &hp, err));
        hwork = static_cast<u64 *>(hp);
        for (int b = 0; b < 2; b++) {
            SGK_CU(cudaEventCreateWithFlags(&ready[b], cudaEventDisableTiming));
            SGK_CU(cudaEventCreateWithFlags(&freed[b], cudaEventDisableTiming));
        }
        for (int i = 0; bounce && i < NSLOT; i++)
            SGK_CU(cudaEventCreateWithFlags(&slot_ev[i], cudaEventDisableTiming));
        if (want_compact) {
            u64 mv = 0; // the most vertices a chunk spans
            for (u64 k = 0; k < nc; k++) mv = cb[k + 1] - cb[k] > mv ? cb[k + 1] - cb[k] : mv;
            size_t tb = 0;
            SGK_CU(cub::DeviceScan::ExclusiveSum(nullptr, tb, (u64 *)nullptr, (u64 *)nullptr,
                                                 (int64_t)(mv + 1), c->stream));
            const u64 need = 8 * (mv + 1) + tb + margin;
            if (c->budget > c->in_use + need) {
                SGK_TRY(cx.alloc(c, mv + 1, "the SSSP settle chunk offsets", err));
                SGK_TRY(ctmp.alloc(c, tb ? tb : 1, "the SSSP settle chunk scan scratch", err));
                hx = host_x;
                compact = true;
            }
        }
        SGK_CU(cudaStreamSynchronize(c->stream)); // (cb's copy)
        on = true;
        return SG_OK;
    }
};

u64 round_counter(double d)
{
    if (!(d > 0.0)) return 0;
    if (d >= 1.8e19) return ~0ull;
    return (u64)llround(d);
}

// The end of a far window of w buckets whose first bucket ends at T1:
// T1 + (w - 1) delta, saturating (u32) or as a double (f32; +INF bits at
// worst, which puts every finite distance in the window).
u64 window_end(bool f32, u64 T1, u64 w, u64 delta_u, double delta_f)
{
    if (!f32) {
        const u64 add = w - 1 > ~0ull / delta_u ? ~0ull : (w - 1) * delta_u;
        return sat_add(T1, add);
    }
    const u64 u = dbl_bits(bits_dbl(T1) + (double)(w - 1) * delta_f);
    return u > T1 ? u : T1;
}

// The end of a run: the summary (sum: two free device words), then the
// download (counters download_us, download_bytes). Narrowing the distances
// to four bytes for the bus was measured slower (R-MAT 26 at 6G: 37 ms
// against 23 ms for eight: the host's widening writes no faster than its
// copy, and the copy is the bound), so they cross in eight.
// ---------------------------------------------------------------- the light index's CPU share
//
// With a CPU share (the hybrid backend's host arrays, sgk_cpu_share) the
// lists wholly in host memory, from share->low up, are counted and filled
// by the GPU and the CPU threads together. Each pass splits them as the
// forest's first round does (cpu_share.cuh): the GPU claims pieces of
// entries from the lowest host entry up, on a thread of its own, the
// threads chunks of vertices from n down (kernels/cpu_light.c), until they
// meet ("dynamic-split" disabled: at share->from). In the count the
// threads' counts go into the offsets through the staging buffers. In the
// fill the GPU's pieces take their slots through the cursors; the threads
// fill the index from its end down, each chunk's light entries (tallied,
// then copied out by the same threads) staged to the slots just below the
// previous chunk's: the lists from v on hold the index's tail, so no
// offset is read back (one cursor is, at the end, to check that the two
// sides' slots meet). The lists below share->low (in device memory, or
// partly) are the GPU's alone. Disable name "cpu-light": the GPU builds
// the whole index. The fused pass (fused(), below) splits its one pass the
// same way. Measured at 6 GiB (docs/benchmarks.md, seventeenth session):
// R-MAT 26 0.25-0.30 s fused against 0.31-0.40 s for the count and fill,
// SSCA2 26 0.24 against 0.29-0.34 s. In the fused pass the threads sweep
// each chunk once (sweep_chunk: counts and light entries together), where
// they counted it, then tallied and copied it ("light-sweep" disabled):
// R-MAT 26 at 6 GiB 0.197-0.240 s against 0.231-0.285 (twenty-third
// session).
// Where the light index's CPU threads stage what they send to the device
// (their counts or offsets, and light entries). As built, a ring over both
// staging buffers (sgk_stage_lend): regions taken one after another in a
// half, each copy queued at once on the compute stream, between the GPU's
// pieces, where it has the link to itself; a full half is left for the
// other once that one's copies are done. With "index-ring" disabled, each
// region is a whole staging buffer in turn (sgk_stage_begin), copied on the
// copy stream beside the GPU's pieces: there the GPU's reads of host lists
// starved the DMA to ~3 GB/s, and the threads waited 86-97 of their
// 191-259 ms for free buffers (R-MAT 26 at 6 GiB, docs/benchmarks.md,
// twenty-third session). Regions are at most `half` bytes. Used by the
// thread that runs the CPU side only.
struct Uploads {
    sgk_ctx *c = nullptr;
    bool ring = true;
    u64 half = SGK_STAGE_BYTES; // the ring's halves (at most SGK_STAGE_BYTES)
    cudaEvent_t done[2] = {nullptr, nullptr}; // a half's copies (blocking sync), the caller's
    u64 *wait_us = nullptr;     // the waits for a half or a buffer, added here
    u64 turns = 0;              // the ring's moves to the other half
    bool lent = false;
    char *buf[2] = {nullptr, nullptr};
    u64 used[2] = {0, 0};
    bool pending[2] = {false, false};
    int cur = 0;
    sgk_stage stg = {nullptr, 0, 0}; // the buffer taken, without the ring

    Uploads() = default;
    Uploads(const Uploads &) = delete;
    Uploads &operator=(const Uploads &) = delete;
    ~Uploads()
    {
        if (lent) {
            sg_error e;
            (void)sgk_stage_return(c, c->stream, &e);
        }
    }
    sg_status timed_wait(cudaEvent_t ev, sg_error *err)
    {
        const double t0 = sgi_now();
        SGK_CU(cudaEventSynchronize(ev));
        *wait_us += sgk_us_since(t0);
        return SG_OK;
    }
    // A region of `bytes` for the threads to fill.
    sg_status take(u64 bytes, void **p, sg_error *err)
    {
        if (bytes > (ring ? half : (u64)SGK_STAGE_BYTES))
            return sgi_fail(err, SG_E_INVARIANT,
                            "SSSP's light index: a %llu-byte upload from the CPU threads passes "
                            "the %llu-byte staging region",
                            (unsigned long long)bytes,
                            (unsigned long long)(ring ? half : (u64)SGK_STAGE_BYTES));
        if (!ring) {
            const double t0 = sgi_now();
            const sg_status r = sgk_stage_begin(c, &stg, err);
            *wait_us += sgk_us_since(t0);
            *p = stg.buf;
            return r;
        }
        if (!lent) {
            void *b[2] = {nullptr, nullptr};
            SGK_TRY(sgk_stage_lend(c, b, err));
            buf[0] = static_cast<char *>(b[0]);
            buf[1] = static_cast<char *>(b[1]);
            lent = true;
        }
        if (used[cur] + bytes > half) {
            SGK_CU(cudaEventRecord(done[cur], c->stream));
            pending[cur] = true;
            cur ^= 1;
            turns++;
            if (pending[cur]) SGK_TRY(timed_wait(done[cur], err));
            pending[cur] = false;
            used[cur] = 0;
        }
        *p = buf[cur] + used[cur];
        used[cur] += (bytes + 255) & ~(u64)255;
        return SG_OK;
    }
    // Sends bytes at src (in the region last taken) to device address dst.
    sg_status put(void *dst, const void *src, u64 bytes, sg_error *err)
    {
        if (!ring)
            return sgk_stage_copy(c, &stg,
                                  (size_t)(static_cast<const char *>(src) -
                                           static_cast<const char *>(stg.buf)),
                                  dst, bytes, err);
        if (bytes > 0)
            SGK_CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, c->stream));
        return SG_OK;
    }
    // The region's copies all queued.
    sg_status close(sg_error *err) { return ring ? SG_OK : sgk_stage_end(c, &stg, err); }
    // The threads done: the buffers back to the context (the ring's copies
    // end on the compute stream, which the caller synchronises); without
    // the ring, a wait for every copy queued.
    sg_status finish(sg_error *err)
    {
        if (ring) {
            if (!lent) return SG_OK;
            lent = false;
            return sgk_stage_return(c, c->stream, err);
        }
        const double t0 = sgi_now();
        const sg_status r = sgk_stage_finish(c, nullptr, nullptr, nullptr, err);
        *wait_us += sgk_us_since(t0);
        return r;
    }
};

struct IndexShare {
    sgk_ctx *c = nullptr;
    const sgk_graph *g = nullptr;
    const sgk_cpu_share *sh = nullptr; // null: the GPU alone
    bool dynamic = true;
    bool prefetch = true;   // the threads' loops prefetch ahead (cpu_light.h)
    bool sweep = true;      // the fused pass's chunks in one sweep (sweep_chunk)
    bool ring = true;       // the threads' uploads through a ring on the compute stream (Uploads)
    u64 sweeps = 0;         // chunks it took so
    u64 wait_us = 0;        // the threads' waits for staging room, and the last copies
    u64 ring_turns = 0;     // the ring's moves to its other half (Uploads::turns)
    u64 split = 0;          // the threads' lists are [split, n) (the last pass's meeting)
    u64 cpu_entries = 0;    // entries they read (W in the count; W and A in the fill)
    u64 cpu_us = 0;         // their wall time, both passes
    u64 upload = 0;         // bytes their part sent to the device (counts, entries)
    u64 gpu_pieces = 0;     // the GPU's claims in the count and fill passes
    u64 cpu_fill_light = 0; // the light entries the threads filled
    u64 count_us = 0, fill_us = 0; // the passes' wall times (the last count)
    u64 fused_us = 0;       // the fused pass's wall time
    u64 moves = 0;          // its device copies moving the threads' part down (each array)
    // pieces' pacing, lx cleared, the ring's halves (Uploads::done)
    cudaEvent_t ev[5] = {nullptr, nullptr, nullptr, nullptr, nullptr};
    // The threads' chunks go in np pieces of about equal entries (8 a
    // thread): their bounds in the count, their light counts in the fill.
    uint64_t np = 0;
    std::vector<uint64_t> piece, ptot; // ptot: a chunk's light counts by piece (count_chunk)
    // sweep_chunk's light entries (A, then W: a stage buffer's size), not
    // cleared: the threads' sweeps touch its pages first. (A cleared one,
    // zeroed on one thread before the threads began, added 35-58 ms to a
    // ~220 ms build at R-MAT 26: docs/benchmarks.md, twenty-third session.)
    std::unique_ptr<uint32_t[]> scratch;

    IndexShare() = default;
    IndexShare(const IndexShare &) = delete;
    IndexShare &operator=(const IndexShare &) = delete;
    ~IndexShare()
    {
        for (cudaEvent_t e : ev)
            if (e) cudaEventDestroy(e);
    }
    sg_status open(sg_error *err)
    {
        // blocking: the GPU's thread sleeps on a piece while the threads work
        for (cudaEvent_t &e : ev)
            SGK_CU(cudaEventCreateWithFlags(&e, cudaEventBlockingSync | cudaEventDisableTiming));
        np = 8 * (uint64_t)sh->threads;
        try {
            piece.resize(np + 1);
            ptot.resize(np + 1);
        } catch (...) {
            return sgi_fail(err, SG_E_NOMEM, "SSSP's light index: %d threads' pieces",
                            sh->threads);
        }
        return SG_OK;
    }
    // The threads' chunks: at most this many vertices, and entries past the
    // first list: a stage buffer's light entries (SGK_STAGE_BYTES / 8), or
    // a 64th of the shared lists' entries if less (at least 16), so that
    // smaller graphs go in several chunks (64 at most, long lists apart)
    // and the ring turns on them too.
    u64 chunk() const
    {
        const u64 most = SGK_STAGE_BYTES / 8, low = sh->low < g->d.n ? sh->low : g->d.n;
        const u64 part = (g->d.m - sh->x[low]) / 64;
        return part < 16 ? 16 : part < most ? part : most;
    }
    // The threads' Uploads for one pass: the ring's halves hold four
    // regions of the largest size a chunk asks for (8 bytes an entry or a
    // vertex: the offsets or counts, or the light entries' A and W).
    void uploads(Uploads &u)
    {
        u.c = c;
        u.ring = ring;
        u.half = 32 * chunk() < SGK_STAGE_BYTES ? 32 * chunk() : SGK_STAGE_BYTES;
        u.done[0] = ev[3];
        u.done[1] = ev[4];
        u.wait_us = &wait_us;
    }
    // The GPU's entries: those below the split (the whole list without a share).
    u64 gpu_end() const { return sh ? sh->x[split] : g->d.m; }
    // The threads' light test's weight mask (cpu_light.h): -0.0 light.
    uint32_t wmask() const { return g->d.f32 ? SGK_LIGHT_F32 : SGK_LIGHT_U32; }

    // light_pass<FILL> over entries [e0, e1) on the compute stream (FILL:
    // cnt holds the cursors; else the counts).
    template <bool FILL>
    sg_status pass(u64 e0, u64 e1, u64 bound, u64 *cnt, uint32_t *la, uint32_t *lw, u64 *ahost,
                   unsigned lgrid, sg_error *err)
    {
        light_pass<FILL><<<lgrid, BF_BLOCK, 0, c->stream>>>(graph_x(g), g->A, g->W, g->d.n, e0,
                                                             e1, bound, g->d.f32, cnt, la, lw,
                                                             ahost);
        SGK_LAUNCHED("light_pass");
        return SG_OK;
    }
    // Without a share the whole pass, else the lists below share->low (in
    // device memory, or partly): the GPU's alone. Then *mt set for the
    // rest: the GPU from there up, the threads from n down.
    template <bool FILL>
    sg_status begin(sgk_meet *mt, u64 bound, u64 *cnt, uint32_t *la, uint32_t *lw, u64 *ahost,
                    unsigned lgrid, sg_error *err)
    {
        const u64 lo_e = sh ? sh->x[sh->low] : g->d.m;
        if (lo_e > 0) SGK_TRY(pass<FILL>(0, lo_e, bound, cnt, la, lw, ahost, lgrid, err));
        if (!sh) return SG_OK;
        mt->x = sh->x;
        mt->gnext = lo_e;
        mt->glim = dynamic ? SGK_MEET_OPEN : sh->x[sh->from];
        mt->clow = g->d.n;
        mt->cfloor = dynamic ? sh->low : sh->from;
        return SG_OK;
    }
    // The GPU's side of a pass: pieces of 16 M entries claimed from mt,
    // each once the piece two before is done (so that a claim follows the
    // GPU's progress).
    template <bool FILL>
    sg_status gpu_side(sgk_meet &mt, u64 bound, u64 *cnt, uint32_t *la, uint32_t *lw,
                       u64 *ahost, unsigned lgrid, sg_error *err)
    {
        const u64 piece = (u64)16 << 20;
        uint64_t q0 = 0, q1 = 0;
        for (int i = 0;; i++) {
            const int b = i & 1;
            if (i >= 2) SGK_CU(cudaEventSynchronize(ev[b]));
            if (!mt.gpu(piece, q0, q1)) break;
            SGK_TRY(pass<FILL>(q0, q1, bound, cnt, la, lw, ahost, lgrid, err));
            SGK_CU(cudaEventRecord(ev[b], c->stream));
            gpu_pieces++;
        }
        return SG_OK;
    }

    // The light entries of host entries [r0, r1) (at most SGK_STAGE_BYTES / 8)
    // into sa and sw (a stage buffer's halves): each thread tallies its
    // pieces, then (the same pieces, the same threads: static schedules, W
    // still in cache) copies them out. Returns how many.
    u64 stage_light(u64 r0, u64 r1, u64 bound, uint32_t *sa, uint32_t *sw)
    {
        uint64_t *pre = piece.data();
        const u64 span = r1 - r0;
#pragma omp parallel num_threads(sh->threads)
        {
#pragma omp for schedule(static)
            for (uint64_t pc = 0; pc < np; pc++)
                pre[pc + 1] = sgk_light_tally(sh->w, r0 + span * pc / np,
                                              r0 + span * (pc + 1) / np, bound, wmask(),
                                              prefetch);
#pragma omp single
            {
                pre[0] = 0;
                for (uint64_t pc = 0; pc < np; pc++) pre[pc + 1] += pre[pc];
            }
#pragma omp for schedule(static)
            for (uint64_t pc = 0; pc < np; pc++)
                sgk_light_fill(sh->a, sh->w, r0 + span * pc / np, r0 + span * (pc + 1) / np,
                               bound, wmask(), prefetch, sa + pre[pc], sw + pre[pc]);
        }
        return pre[np];
    }

    // The light counts of the threads' chunk of lists [v0, v1) into
    // out[v - v0], in np pieces of about equal entries (their first lists in
    // piece[]); ptot[pc] gets the light entries before piece pc, ptot[np]
    // the chunk's.
    void count_chunk(const sgk_meet &mt, u64 v0, u64 v1, u64 bound, uint64_t *out)
    {
        uint64_t *cut = piece.data(), *tot = ptot.data();
        mt.cuts(v0, v1, np, cut);
#pragma omp parallel for schedule(dynamic, 1) num_threads(sh->threads)
        for (uint64_t pc = 0; pc < np; pc++)
            tot[pc + 1] = sgk_light_count(sh->x, sh->w, cut[pc], cut[pc + 1], bound, wmask(),
                                          prefetch, out + (cut[pc] - v0));
        tot[0] = 0;
        for (uint64_t pc = 0; pc < np; pc++) tot[pc + 1] += tot[pc];
    }

    // count_chunk's counts and the chunk's light entries in one sweep
    // (sgk_light_lists: W read once, where the count and stage_light read
    // it three times): each piece's light entries go to scratch at the
    // piece's first entry (room for every entry of a chunk of at most
    // SGK_STAGE_BYTES / 8); swept_out then moves them to a stage buffer.
    void sweep_chunk(const sgk_meet &mt, u64 v0, u64 v1, u64 bound, uint64_t *out)
    {
        uint64_t *cut = piece.data(), *tot = ptot.data();
        const u64 e0 = sh->x[v0], most = SGK_STAGE_BYTES / 8;
        uint32_t *ta = scratch.get(), *tw = ta + most;
        mt.cuts(v0, v1, np, cut);
#pragma omp parallel for schedule(dynamic, 1) num_threads(sh->threads)
        for (uint64_t pc = 0; pc < np; pc++) {
            const u64 at = sh->x[cut[pc]] - e0;
            tot[pc + 1] = sgk_light_lists(sh->x, sh->a, sh->w, cut[pc], cut[pc + 1], bound,
                                          wmask(), prefetch, out + (cut[pc] - v0), ta + at,
                                          tw + at);
        }
        tot[0] = 0;
        for (uint64_t pc = 0; pc < np; pc++) tot[pc + 1] += tot[pc];
    }
    // sweep_chunk's light entries of lists [v0, v1) into sa and sw (a stage
    // buffer's halves), each piece's at its place among the chunk's (ptot).
    // Apart from the sweep so that the stage buffer is taken after it: the
    // copy of the last chunk's entries out of that buffer has the sweep's
    // time to end.
    void swept_out(u64 v0, uint32_t *sa, uint32_t *sw)
    {
        const uint64_t *cut = piece.data(), *tot = ptot.data();
        const u64 e0 = sh->x[v0], most = SGK_STAGE_BYTES / 8;
        const uint32_t *ta = scratch.get(), *tw = ta + most;
#pragma omp parallel for schedule(static) num_threads(sh->threads)
        for (uint64_t pc = 0; pc < np; pc++) {
            const u64 at = sh->x[cut[pc]] - e0, k = tot[pc + 1] - tot[pc];
            memcpy(sa + tot[pc], ta + at, k * 4);
            memcpy(sw + tot[pc], tw + at, k * 4);
        }
    }

    // Sends a staged run's k light entries (A at sa, W at sw, in the region
    // last taken from up) to slots base + off up; SG_E_INVARIANT, naming
    // lists [v0, v1), when they would pass their count `limit`.
    sg_status send_run(Uploads &up, const uint32_t *sa, const uint32_t *sw, u64 k, u64 base,
                       u64 off, u64 limit, uint32_t *la, uint32_t *lw, u64 v0, u64 v1,
                       sg_error *e)
    {
        if (off + k > limit)
            return sgi_fail(e, SG_E_INVARIANT,
                            "SSSP's light index: lists %llu to %llu: %llu light entries past "
                            "their count of %llu",
                            (unsigned long long)v0, (unsigned long long)v1,
                            (unsigned long long)(off + k), (unsigned long long)limit);
        SGK_TRY(up.put(la + base + off, sa, k * 4, e));
        SGK_TRY(up.put(lw + base + off, sw, k * 4, e));
        return up.close(e);
    }

    // The count pass: cnt[u] = u's light entries (cnt zeroed before, on the
    // compute stream). Grid lgrid for the GPU's launches.
    sg_status count(u64 bound, u64 *cnt, unsigned lgrid, sg_error *err)
    {
        const cudaStream_t st = c->stream;
        if (sh && !ring) { // the threads' counts land after the clearing: the copy
                           // stream waits on it (the ring's copies follow it on st)
            SGK_CU(cudaEventRecord(ev[2], st));
            SGK_CU(cudaStreamWaitEvent(c->copy, ev[2], 0));
        }
        sgk_meet mt;
        SGK_TRY(begin<false>(&mt, bound, cnt, nullptr, nullptr, nullptr, lgrid, err));
        if (!sh) return SG_OK;
        auto gpu = [&](sg_error *e) {
            return gpu_side<false>(mt, bound, cnt, nullptr, nullptr, nullptr, lgrid, e);
        };
        u64 entries = 0, up = 0;
        Uploads ups;
        uploads(ups);
        const u64 most = chunk();
        auto cpu = [&](sg_error *e) -> sg_status {
            uint64_t v0 = 0, v1 = 0;
            while (mt.cpu(most, most, v0, v1)) {
                void *p = nullptr;
                SGK_TRY(ups.take((v1 - v0) * 8, &p, e));
                count_chunk(mt, v0, v1, bound, static_cast<uint64_t *>(p));
                SGK_TRY(ups.put(cnt + v0, p, (v1 - v0) * 8, e));
                SGK_TRY(ups.close(e));
                entries += sh->x[v1] - sh->x[v0];
                up += (v1 - v0) * 8;
            }
            return ups.finish(e);
        };
        uint64_t us = 0;
        const double t0 = sgi_now();
        SGK_TRY(sgk_share_run(c, mt, gpu, cpu, &us, err));
        SGK_CU(cudaStreamSynchronize(st)); // (timed: the GPU's pieces done too)
        count_us = sgk_us_since(t0);
        split = mt.clow;
        ring_turns += ups.turns;
        cpu_entries += entries;
        cpu_us += us;
        upload += up;
        return SG_OK;
    }

    // The fill pass: cur holds the exclusive prefix of the counts (a cursor
    // per list), total light_m. Split anew as the count was: the GPU's
    // pieces by light_pass through the cursors, the threads' chunks from n
    // down, each chunk's light entries to the slots just below the last
    // chunk's (the index's last slots first: a CSR's lists from v on fill
    // its tail, so no offset is read back), staged.
    sg_status fill(u64 bound, u64 *cur, uint32_t *la, uint32_t *lw, u64 light_m, unsigned lgrid,
                   u64 *ahost, sg_error *err)
    {
        const cudaStream_t st = c->stream;
        const double t0 = sgi_now();
        sgk_meet mt;
        SGK_TRY(begin<true>(&mt, bound, cur, la, lw, ahost, lgrid, err));
        if (!sh) return SG_OK;
        // runs of `most` entries: a region of 8 bytes an entry each (A, W)
        const u64 most = chunk();
        auto gpu = [&](sg_error *e) {
            return gpu_side<true>(mt, bound, cur, la, lw, ahost, lgrid, e);
        };
        u64 top = light_m, entries = 0, up = 0, light = 0;
        Uploads ups;
        uploads(ups);
        auto cpu = [&](sg_error *e) -> sg_status {
            uint64_t v0 = 0, v1 = 0;
            while (mt.cpu(most, most, v0, v1)) {
                const u64 e0 = sh->x[v0], e1 = sh->x[v1];
                // a chunk past `most` entries (one long list) goes in runs, its
                // total tallied first; else one run gives it
                u64 total = 0;
                if (e1 - e0 > most) {
#pragma omp parallel for schedule(static) reduction(+ : total) num_threads(sh->threads)
                    for (uint64_t pc = 0; pc < np; pc++)
                        total += sgk_light_tally(sh->w, e0 + (e1 - e0) * pc / np,
                                                 e0 + (e1 - e0) * (pc + 1) / np, bound, wmask(),
                                                 prefetch);
                }
                u64 base = 0, off = 0;
                for (u64 r0 = e0; r0 < e1 || r0 == e0;) {
                    const u64 r1 = e1 - r0 < most ? e1 : r0 + most;
                    void *p = nullptr;
                    SGK_TRY(ups.take(8 * (r1 - r0), &p, e));
                    uint32_t *sa = static_cast<uint32_t *>(p), *sw = sa + (r1 - r0);
                    const u64 k = stage_light(r0, r1, bound, sa, sw);
                    if (r0 == e0) {
                        if (e1 - e0 <= most) total = k;
                        if (total > top)
                            return sgi_fail(e, SG_E_INVARIANT,
                                            "SSSP's light index: lists %llu to %llu hold %llu "
                                            "light entries, %llu slots left",
                                            (unsigned long long)v0, (unsigned long long)v1,
                                            (unsigned long long)total, (unsigned long long)top);
                        base = top - total;
                    }
                    SGK_TRY(send_run(ups, sa, sw, k, base, off, total, la, lw, v0, v1, e));
                    off += k;
                    if (r1 == e1) break;
                    r0 = r1;
                }
                top = base;
                light += total;
                entries += e1 - e0;
                up += 8 * total;
            }
            return ups.finish(e);
        };
        uint64_t us = 0;
        SGK_TRY(sgk_share_run(c, mt, gpu, cpu, &us, err));
        // the GPU's cursors end where the threads' slots begin
        u64 want = 0; // the cursor of the GPU's last list
        if (mt.clow > 0)
            SGK_CU(cudaMemcpyAsync(&want, cur + mt.clow - 1, sizeof(u64), cudaMemcpyDeviceToHost,
                                   st));
        SGK_CU(cudaStreamSynchronize(st));
        if (top != want)
            return sgi_fail(err, SG_E_INVARIANT,
                            "SSSP's light index: the GPU's lists end at slot %llu, the CPU "
                            "threads' begin at %llu (from vertex %llu)",
                            (unsigned long long)want, (unsigned long long)top,
                            (unsigned long long)mt.clow);
        split = mt.clow;
        ring_turns += ups.turns;
        cpu_fill_light = light;
        cpu_entries += entries;
        cpu_us += us;
        upload += up;
        fill_us = sgk_us_since(t0);
        return SG_OK;
    }

    // light_fused over entries [e0, e1) in launches of FUSED_PIECE entries,
    // the lists starting there being [v0, v1) (or within it).
    sg_status fused_launch(u64 e0, u64 e1, u64 v0, u64 v1, u64 bound, u64 *lx, uint32_t *la,
                           uint32_t *lw, u64 cap, u64 *state, u64 *ahost, sg_error *err)
    {
        for (u64 q0 = e0; q0 < e1;) {
            const u64 q1 = e1 - q0 < FUSED_PIECE ? e1 : q0 + FUSED_PIECE;
            const u64 tiles = (q1 - q0 + BF_TILE - 1) / BF_TILE;
            SGK_CU(cudaMemsetAsync(state + 1, 0, (1 + tiles) * sizeof(u64), c->stream));
            light_fused<<<(unsigned)tiles, BF_BLOCK, 0, c->stream>>>(
                graph_x(g), g->A, g->W, v0, v1, q0, q1, bound, g->d.f32, lx, la, lw, cap, state,
                ahost);
            SGK_LAUNCHED("light_fused");
            q0 = q1;
        }
        return SG_OK;
    }

    // The index in one pass (light_fused: one read of W and of the light
    // entries' A, where the count and the fill read W twice): into la and
    // lw of cap slots each, with the offsets lx. The GPU fills from slot 0
    // up in list order, the running total in state[0] (fused_state_words);
    // with a share the lists split as in the count, the threads' chunks from
    // n down, each chunk's offsets and light entries (counted, then copied
    // out with W in cache) staged to the slots just below the previous
    // chunk's, from cap down. Then the threads' slots move down to follow
    // the GPU's, in device copies of at most the gap each, and their
    // offsets with them (light_fixup). *total gets the entries. *ok false
    // (nothing usable) when the two sides pass cap or the gap is under a
    // 32nd of the threads' part (too many copies): the caller counts anew.
    sg_status fused(u64 bound, u64 *lx, uint32_t *la, uint32_t *lw, u64 cap, u64 *state,
                    u64 *ahost, u64 *total, bool *ok, sg_error *err)
    {
        const cudaStream_t st = c->stream;
        const u64 n = g->d.n;
        const double t0 = sgi_now();
        *ok = false;
        SGK_CU(cudaMemsetAsync(state, 0, sizeof(u64), st));
        const u64 lo_e = sh ? sh->x[sh->low] : g->d.m;
        const u64 lo_v = sh ? sh->low : n;
        SGK_TRY(fused_launch(0, lo_e, 0, lo_v, bound, lx, la, lw, cap, state, ahost, err));
        u64 top = cap, clow = n, gend = lo_e;
        bool over = false;
        if (sh) {
            sgk_meet mt;
            mt.x = sh->x;
            mt.gnext = lo_e;
            mt.glim = dynamic ? SGK_MEET_OPEN : sh->x[sh->from];
            mt.clow = n;
            mt.cfloor = dynamic ? sh->low : sh->from;
            auto gpu = [&](sg_error *e) -> sg_status {
                uint64_t q0 = 0, q1 = 0;
                for (int i = 0;; i++) { // a claim once the launch two before is done
                    const int b = i & 1;
                    if (i >= 2) SGK_CU(cudaEventSynchronize(ev[b]));
                    if (!mt.gpu(FUSED_PIECE, q0, q1)) break;
                    const u64 v0 = mt.first_at(0, n, q0), v1 = mt.first_at(v0, n, q1);
                    SGK_TRY(fused_launch(q0, q1, v0, v1, bound, lx, la, lw, cap, state, ahost, e));
                    SGK_CU(cudaEventRecord(ev[b], st));
                    gpu_pieces++;
                }
                return SG_OK;
            };
            const u64 full = SGK_STAGE_BYTES / 8, most = chunk();
            if (sweep && !scratch) {
                scratch.reset(new (std::nothrow) uint32_t[2 * full]);
                if (!scratch)
                    return sgi_fail(err, SG_E_NOMEM,
                                    "SSSP's light index: the CPU threads' %llu MiB of scratch",
                                    (unsigned long long)(8 * full >> 20));
            }
            u64 entries = 0, up = 0, light = 0;
            Uploads ups;
            uploads(ups);
            auto cpu = [&](sg_error *e) -> sg_status {
                uint64_t *cut = piece.data(), *tot = ptot.data();
                uint64_t v0 = 0, v1 = 0;
                while (mt.cpu(most, most, v0, v1)) {
                    // the chunk's light counts, then its offsets, staged; in
                    // one sweep (a chunk within a stage buffer) its light
                    // entries too, into scratch
                    const u64 e0 = sh->x[v0], e1 = sh->x[v1];
                    const bool one = sweep && e1 - e0 <= most;
                    void *p = nullptr;
                    SGK_TRY(ups.take((v1 - v0) * 8, &p, e));
                    uint64_t *off = static_cast<uint64_t *>(p);
                    if (one) sweep_chunk(mt, v0, v1, bound, off);
                    else count_chunk(mt, v0, v1, bound, off);
                    const u64 k = tot[np];
                    if (k > top) { // no slots left: the caller counts anew
                        over = true;
                        mt.halt();
                        SGK_TRY(ups.close(e));
                        break;
                    }
                    const u64 base = top - k;
#pragma omp parallel for schedule(static) num_threads(sh->threads)
                    for (uint64_t pc = 0; pc < np; pc++) {
                        u64 o = base + tot[pc];
                        for (uint64_t v = cut[pc]; v < cut[pc + 1]; v++) {
                            const u64 q = off[v - v0];
                            off[v - v0] = o;
                            o += q;
                        }
                    }
                    SGK_TRY(ups.put(lx + v0, off, (v1 - v0) * 8, e));
                    SGK_TRY(ups.close(e));
                    // its light entries: swept, or in runs of `most` entries
                    u64 got = 0;
                    if (one) {
                        SGK_TRY(ups.take(8 * k, &p, e));
                        uint32_t *sa = static_cast<uint32_t *>(p);
                        swept_out(v0, sa, sa + k);
                        SGK_TRY(send_run(ups, sa, sa + k, k, base, 0, k, la, lw, v0, v1, e));
                        got = k;
                        sweeps++;
                    }
                    for (u64 r0 = e0; !one && r0 < e1;) {
                        const u64 r1 = e1 - r0 < most ? e1 : r0 + most;
                        SGK_TRY(ups.take(8 * (r1 - r0), &p, e));
                        uint32_t *sa = static_cast<uint32_t *>(p), *sw = sa + (r1 - r0);
                        const u64 q = stage_light(r0, r1, bound, sa, sw);
                        SGK_TRY(send_run(ups, sa, sw, q, base, got, k, la, lw, v0, v1, e));
                        got += q;
                        r0 = r1;
                    }
                    if (got != k)
                        return sgi_fail(e, SG_E_INVARIANT,
                                        "SSSP's light index: lists %llu to %llu: %llu light "
                                        "entries copied, %llu counted",
                                        (unsigned long long)v0, (unsigned long long)v1,
                                        (unsigned long long)got, (unsigned long long)k);
                    top = base;
                    light += k;
                    entries += e1 - e0;
                    up += (v1 - v0) * 8 + 8 * k;
                }
                return ups.finish(e);
            };
            uint64_t us = 0;
            SGK_TRY(sgk_share_run(c, mt, gpu, cpu, &us, err));
            clow = mt.clow;
            gend = mt.gnext;
            split = clow;
            ring_turns += ups.turns;
            cpu_fill_light = light;
            cpu_entries += entries;
            cpu_us += us;
            upload += up;
        }
        u64 gtotal = 0;
        SGK_CU(cudaMemcpyAsync(&gtotal, state, sizeof gtotal, cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        fused_us = sgk_us_since(t0);
        const u64 ctotal = cap - top, shift = top - (gtotal < top ? gtotal : top);
        if (over || gtotal > top || (ctotal > 0 && shift > 0 && shift < ctotal / 32 + 1))
            return SG_OK; // (*ok false)
        for (u64 i = 0; shift > 0 && i < ctotal; i += shift) { // forward, no copy overlapping
            const u64 len = ctotal - i < shift ? ctotal - i : shift;
            SGK_CU(cudaMemcpyAsync(la + gtotal + i, la + top + i, len * 4,
                                   cudaMemcpyDeviceToDevice, st));
            SGK_CU(cudaMemcpyAsync(lw + gtotal + i, lw + top + i, len * 4,
                                   cudaMemcpyDeviceToDevice, st));
            moves++;
        }
        light_fixup<<<sgk_grid(c, n - (clow < n ? clow : n) + 1, 256), 256, 0, st>>>(
            graph_x(g), n, clow, gend, gtotal, shift, gtotal + ctotal, lx);
        SGK_LAUNCHED("light_fixup");
        *total = gtotal + ctotal;
        *ok = true;
        fused_us = sgk_us_since(t0);
        return SG_OK;
    }
};

sg_status finish_dist(sgk_ctx *c, const u64 *dist, u64 n, bool f32, unsigned long long *sum,
                      uint64_t *dist_out, uint64_t *reached, uint64_t *max_bits, sgk_stats *stats,
                      sg_error *err)
{
    const cudaStream_t st = c->stream;
    const double td = sgi_now();
    unsigned long long h[2] = {0, 0};
    SGK_CU(cudaMemsetAsync(sum, 0, 2 * sizeof *sum, st));
    sgk_sum_finite<<<sgk_grid(c, n, 256), 256, 0, st>>>(dist, n, f32 ? INF_F32 : INF_U32, sum,
                                                        sum + 1);
    SGK_LAUNCHED("sgk_sum_finite");
    SGK_CU(cudaMemcpyAsync(h, sum, sizeof h, cudaMemcpyDeviceToHost, st));
    SGK_CU(cudaStreamSynchronize(st));
    *reached = h[0];
    *max_bits = h[1];
    SGK_TRY(sgk_download(c, dist_out, dist, n * sizeof(u64), err));
    sgk_stats_set(stats, "download_us", sgk_us_since(td));
    sgk_stats_set(stats, "download_bytes", 8 * n);
    return SG_OK;
}

// The light index kept with the device graph between calls (sgk_graph's
// `kept`): what preprocessing decided for the delta asked (delta_in, 0 for
// the automatic width) and the index itself. The next call on the graph
// with the same delta_in takes it back instead of sampling the weights and
// building it again; any other call frees it before allocating. Its
// deleter identifies it. "keep-index" disabled: nothing is kept.
struct IndexKeep {
    double delta_in = 0.0;
    u64 delta_u = 1;
    double delta_f = 1.0;
    int wide = 0;
    u64 light_bound = ~0ull, light_m = 0;
    bool fused = false;
    u64 slots = 0;
    sgk_dbuf<u64> lx;
    sgk_dbuf<uint32_t> la, lw;
};

void index_keep_free(void *p) { delete static_cast<IndexKeep *>(p); }

// The kept index for delta_in, detached from g; null (and whatever g kept
// freed) when there is none for it.
IndexKeep *take_index(sgk_ctx *c, const sgk_graph *g, double delta_in)
{
    if (sgk_ctx_disabled(c, "keep-index")) sgk_graph_drop_kept(g);
    IndexKeep *k = static_cast<IndexKeep *>(sgk_graph_take_kept(g, index_keep_free));
    if (!k) return nullptr;
    if (k->delta_in == delta_in) return k;
    delete k;
    return nullptr;
}

sg_status run_buckets(sgk_ctx *c, const sgk_graph *g, uint32_t source, double delta_in,
                      const sgk_cpu_share *share, uint64_t *dist_out, uint64_t *reached,
                      uint64_t *max_bits, sgk_stats *stats, sg_error *err)
{
    const sgk_graph_desc &d = g->d;
    const u64 n = d.n, m = d.m;
    const bool f32 = d.f32;
    const bool balance = !sgk_ctx_disabled(c, "bucket-balance");
    const bool prefilter = !sgk_ctx_disabled(c, "prefilter");
    const bool use_big = balance && d.max_degree >= BIG;
    const bool windowed = !sgk_ctx_disabled(c, "far-window");
    const bool defer = !sgk_ctx_disabled(c, "defer-heavy");
    cudaStream_t st = c->stream;

    const double t0 = sgi_now();
    // An index an earlier call kept for this delta: taken back before the
    // working arrays are allocated (a stale one is freed first).
    std::unique_ptr<IndexKeep> kept(defer ? take_index(c, g, delta_in) : nullptr);
    if (!defer) sgk_graph_drop_kept(g);
    sgk_dbuf<u64> dist, bigoff;
    sgk_dbuf<uint32_t> stamp, bits, mbits, q0, q1, q2, q3, bigq, sstamp, settled, done;
    sgk_dbuf<Counters> ctr;
    SGK_TRY(dist.alloc(c, n, "the SSSP distances", err));
    SGK_TRY(stamp.alloc(c, n, "the SSSP round stamps", err));
    SGK_TRY(bits.alloc(c, (n + 31) / 32, "the SSSP far-pile bits", err));
    SGK_TRY(q0.alloc(c, n, "the SSSP near queue", err));
    SGK_TRY(q1.alloc(c, n, "the SSSP next near queue", err));
    SGK_TRY(q2.alloc(c, n, "the SSSP far pile", err));
    SGK_TRY(q3.alloc(c, windowed ? n : 1, "the SSSP mid pile", err));
    SGK_TRY(mbits.alloc(c, windowed ? (n + 31) / 32 : 1, "the SSSP mid-pile bits", err));
    SGK_TRY(sstamp.alloc(c, defer ? n : 1, "the SSSP bucket stamps", err));
    SGK_TRY(settled.alloc(c, defer ? n : 1, "the SSSP settled list", err));
    SGK_TRY(done.alloc(c, defer ? (n + 31) / 32 : 1, "the SSSP final-vertex bits", err));
    SGK_TRY(bigq.alloc(c, hub_cap(n, m), "the SSSP hub queue", err));
    SGK_TRY(bigoff.alloc(c, hub_cap(n, m), "the SSSP hub edge offsets", err));
    SGK_TRY(ctr.alloc(c, 1, "the SSSP counters", err));
    sgk_hbuf<Counters> hc; // pinned host counters, freed on every return
    SGK_TRY(hc.alloc(1, err));
    SGK_CU(cudaMemsetAsync(ctr.get(), 0, sizeof(Counters), st));

    // A and W entries read from host memory before the rounds (the weight
    // sample and the light index's passes; the fill's A reads in ctr->ihost).
    u64 index_host = 0;
    // The light index's CPU share: with host lists past the device prefixes.
    IndexShare ishare;
    ishare.c = c;
    ishare.g = g;
    ishare.split = n;
    if (share && share->low < n && !sgk_ctx_disabled(c, "cpu-light")) { // (checked by sgk_sssp)
        ishare.sh = share;
        ishare.dynamic = !sgk_ctx_disabled(c, "dynamic-split");
        ishare.prefetch = !sgk_ctx_disabled(c, "light-prefetch");
        ishare.sweep = !sgk_ctx_disabled(c, "light-sweep");
        ishare.ring = !sgk_ctx_disabled(c, "index-ring");
    }

    // The bucket width.
    u64 delta_u = 1;
    double delta_f = 1.0;
    int wide = 0; // doublings of the automatic width (undone while its index does not fit)
    if (kept) {
        delta_u = kept->delta_u;
        delta_f = kept->delta_f;
        wide = kept->wide;
    } else {
        double delta = delta_in;
        if (delta == 0.0) {
            double mean = 0.0;
            if (m > 0) {
                const u64 samples = m < 65536 ? m : 65536;
                const u64 stride = m / samples, first = (g->W.s + stride - 1) / stride;
                weight_sample<<<1, SCAN_BLOCK, 0, st>>>(g->W, samples, stride, f32, ctr);
                SGK_LAUNCHED("weight_sample");
                index_host += samples > first ? samples - first : 0; // W[i stride] on the host
                SGK_CU(cudaMemcpyAsync(hc.p, ctr.get(), sizeof(Counters), cudaMemcpyDeviceToHost, st));
                SGK_CU(cudaStreamSynchronize(st));
                if (hc.p->wcnt) mean = hc.p->wsum / (double)hc.p->wcnt;
            }
            const double deg = n ? (double)m / (double)n : 1.0;
            // (see "automatic delta" above: 4 mean / degree with the settle
            // passes, mean / degree without; doubled while the light index
            // at that width fits, checked when it is counted below)
            delta = mean * (defer ? 4.0 : 1.0) / (deg > 1.0 ? deg : 1.0);
            if (!(delta > 0.0) || isinf(delta)) delta = 1.0;
            if (!f32) delta = exp2(round(log2(delta < 1.0 ? 1.0 : delta)));
            if (defer && m > 0 && sgk_sssp_wide_ok(n, m, d.max_degree) &&
                !sgk_ctx_disabled(c, "light-index") && !sgk_ctx_disabled(c, "wide-delta") &&
                delta < 0x1p61) {
                delta *= 2.0;
                wide = 1;
            }
        }
        if (f32) {
            delta_f = delta > 0.0 ? delta : 1.0;
        } else {
            delta_u = delta >= 0x1p63 ? (u64)1 << 63 : delta < 1.0 ? 1 : (u64)delta;
            delta_f = (double)delta_u;
        }
    }
    // The light index: the edges a NEAR round may take (weight < delta) in
    // a CSR of their own, built when the budget has room for it (it is not
    // in sgk_sssp_bytes: without it rounds walk the whole lists).
    auto narrow = [&]() { // undoes a doubling of the automatic width
        wide--;
        delta_u = delta_u / 2 > 0 ? delta_u / 2 : 1;
        delta_f = f32 ? delta_f / 2.0 : (double)delta_u;
    };
    u64 light_bound = ~0ull, light_m = m;
    bool stats_fused = false; // the fused pass built the index, in stats_slots slots
    u64 stats_slots = 0;
    sgk_dbuf<u64> lx;
    sgk_dbuf<uint32_t> la, lw;
    const bool index_reused = kept != nullptr;
    if (kept) {
        lx.swap(kept->lx);
        la.swap(kept->la);
        lw.swap(kept->lw);
        light_bound = kept->light_bound;
        light_m = kept->light_m;
        stats_fused = kept->fused;
        stats_slots = kept->slots;
        kept.reset();
    } else if (defer && !sgk_ctx_disabled(c, "light-index") && m > 0) {
        auto bound_of = [&]() -> u64 {
            if (!f32) return delta_u;
            float fb = (float)delta_f;
            if ((double)fb < delta_f) fb = nextafterf(fb, INFINITY);
            uint32_t bb;
            memcpy(&bb, &fb, sizeof bb);
            return bb;
        };
        light_bound = bound_of();
        size_t tb = 0;
        SGK_CU(cub::DeviceScan::ExclusiveSum(nullptr, tb, (u64 *)nullptr, (u64 *)nullptr,
                                             (size_t)(n + 1), st));
        const u64 need = abytes(8 * (n + 1)) + abytes(tb);
        if (c->in_use + need <= c->budget) {
            SGK_TRY(lx.alloc(c, n + 1, "the SSSP light index offsets", err));
            const unsigned lgrid = sgk_grid(c, m, BF_TILE);
            if (ishare.sh) SGK_TRY(ishare.open(err));
            // Counts per vertex, scanned in place; light_m = the total.
            auto count = [&]() -> sg_status {
                sgk_dbuf<unsigned char> tmp;
                SGK_TRY(tmp.alloc(c, tb ? tb : 1, "the SSSP light index scan storage", err));
                SGK_CU(cudaMemsetAsync(lx.get(), 0, (n + 1) * sizeof(u64), st));
                SGK_TRY(ishare.count(light_bound, lx, lgrid, err));
                index_host += g->W.host_count(0, ishare.gpu_end());
                SGK_CU(cub::DeviceScan::ExclusiveSum(tmp.get(), tb, lx.get(), lx.get(),
                                                     (size_t)(n + 1), st));
                SGK_CU(cudaMemcpyAsync(&hc.p->wcnt, lx.get() + n, sizeof(u64),
                                       cudaMemcpyDeviceToHost, st));
                SGK_CU(cudaStreamSynchronize(st));
                light_m = hc.p->wcnt;
                return SG_OK;
            };
            auto fits = [&]() {
                const u64 need2 = 2 * abytes(4 * light_m) + abytes(8 * (n + 1));
                return light_m <= m / 2 && c->in_use + need2 <= c->budget;
            };
            // The fused pass first, its slots sized from a sample of the
            // weights; a doubled width whose slots do not fit or whose index
            // holds more than 45 % of the entries is narrowed, as below. The
            // count and the fill (at the width reached) when its slots do
            // not fit the budget or run out.
            bool built = false;
            u64 fused_slots = 0;
            if (!sgk_ctx_disabled(c, "fused-index")) {
                u64 ns = m < 65536 ? m : 65536;
                if (ns > 2 * (n + 1)) ns = 2 * (n + 1); // (the sample goes in lx)
                const u64 stride = m / ns, first = (g->W.s + stride - 1) / stride;
                uint32_t *sb = reinterpret_cast<uint32_t *>(lx.get());
                sample_bits<<<sgk_grid(c, ns, 256), 256, 0, st>>>(g->W, ns, stride, sb);
                SGK_LAUNCHED("sample_bits");
                index_host += ns > first ? ns - first : 0;
                std::vector<uint32_t> smp;
                try {
                    smp.resize(ns);
                } catch (...) {
                    return sgi_fail(err, SG_E_NOMEM, "SSSP's light index: a sample of %llu weights",
                                    (unsigned long long)ns);
                }
                SGK_CU(cudaMemcpyAsync(smp.data(), sb, ns * 4, cudaMemcpyDeviceToHost, st));
                SGK_CU(cudaStreamSynchronize(st));
                // slots for the light share p of the sample, with 5 % and
                // four standard errors more (exact when it is a census);
                // 0 when p passes half (an index would not be kept: the
                // count alone decides that)
                auto slots = [&](u64 b) -> u64 {
                    u64 k = 0;
                    for (uint32_t wb : smp) k += light_bits(f32, wb) < b;
                    if (2 * k > ns) return 0;
                    if (ns == m) return k ? k : 1; // every weight: exact
                    const double p = (double)k / (double)ns;
                    const double q = p > 1.0 / (double)ns ? p : 1.0 / (double)ns;
                    const double sd = sqrt(q / (double)ns);
                    const double want = ceil((1.05 * p + 4.0 * sd) * (double)m) + 16.0;
                    return want < (double)m ? (u64)want : m;
                };
                auto room = [&](u64 cap) {
                    return cap > 0 &&
                           c->in_use + 2 * abytes(4 * cap) + abytes(8 * fused_state_words(m)) <=
                               c->budget;
                };
                // Twice the doubled width where the sample puts at most 30 %
                // of the entries below it and its slots fit (SSCA2 26 in core:
                // a quarter of the entries light at 2^18, 0.37 against 0.47 s
                // a search at 2^17; at 6 GiB that index does not fit).
                if (wide == 1 && delta_u < ((u64)1 << 62) && !sgk_ctx_disabled(c, "wider-delta")) {
                    delta_u *= 2;
                    delta_f = f32 ? delta_f * 2.0 : (double)delta_u;
                    wide = 2;
                    const u64 b4 = bound_of();
                    u64 k4 = 0;
                    for (uint32_t wb : smp) k4 += light_bits(f32, wb) < b4;
                    if (10 * k4 <= 3 * ns && room(slots(b4)))
                        light_bound = b4;
                    else
                        narrow();
                }
                sgk_dbuf<u64> state;
                for (int tries = 0; tries < 3 && !built; tries++) {
                    const u64 cap = slots(light_bound);
                    if (!room(cap) && wide > 0) { // the widened width's slots do not fit
                        narrow();
                        light_bound = bound_of();
                        continue;
                    }
                    if (!room(cap)) break;
                    if (!state.get())
                        SGK_TRY(state.alloc(c, fused_state_words(m),
                                            "the SSSP light index scan state", err));
                    SGK_TRY(la.alloc(c, cap, "the SSSP light index neighbours", err));
                    SGK_TRY(lw.alloc(c, cap, "the SSSP light index weights", err));
                    bool ok = false;
                    u64 total = 0;
                    SGK_TRY(ishare.fused(light_bound, lx, la, lw, cap, state, &ctr.get()->ihost,
                                         &total, &ok, err));
                    index_host += g->W.host_count(0, ishare.gpu_end());
                    if (ok && wide > 0 && (double)total > 0.45 * (double)m) {
                        la.release();
                        lw.release();
                        narrow();
                        light_bound = bound_of();
                        continue;
                    }
                    if (!ok) {
                        la.release();
                        lw.release();
                        break;
                    }
                    light_m = total;
                    fused_slots = cap;
                    built = true;
                }
                SGK_CU(cudaStreamSynchronize(st)); // (state freed here)
            }
            stats_fused = built;
            stats_slots = fused_slots;
            if (!built) SGK_TRY(count());
            while (!built && wide > 0 && (!fits() || (double)light_m > 0.45 * (double)m)) {
                // the widened width's index does not fit or holds too many
                // edges: half the width, counted again (another pass over W)
                narrow();
                light_bound = bound_of();
                SGK_TRY(count());
            }
            if (built && light_m <= m / 2) {
                // (the fused pass's index)
            } else if (!built && fits()) {
                SGK_TRY(la.alloc(c, light_m ? light_m : 1, "the SSSP light index neighbours", err));
                SGK_TRY(lw.alloc(c, light_m ? light_m : 1, "the SSSP light index weights", err));
                sgk_dbuf<u64> cur;
                SGK_TRY(cur.alloc(c, n + 1, "the SSSP light index cursors", err));
                SGK_CU(cudaMemcpyAsync(cur.get(), lx.get(), (n + 1) * sizeof(u64),
                                       cudaMemcpyDeviceToDevice, st));
                SGK_TRY(ishare.fill(light_bound, cur, la, lw, light_m, lgrid, &ctr.get()->ihost,
                                    err));
                // + ihost, read back with the rounds
                index_host += g->W.host_count(0, ishare.gpu_end());
                SGK_CU(cudaStreamSynchronize(st)); // before cur is freed
            } else {
                la.release();
                lw.release();
                lx.release(); // most edges light, or no room: rounds walk the lists
                light_bound = ~0ull;
                light_m = m;
            }
        }
        if (!lx.get()) light_bound = ~0ull;
    }
    while (wide > 0 && !lx.get()) narrow(); // no index at all: the narrow width
    stats->seconds_preprocess = sgi_now() - t0;

    // Settle passes over many vertices of a graph with host lists take
    // them in id order: the short lists of neighbouring ids lie side by
    // side, so a warp's gathered entries coalesce (in the rounds' order,
    // one list per request). A radix sort of the settled list into the
    // empty near queue, with CUB's scratch for n ids where the budget has
    // room beside the rest.
    sgk_dbuf<unsigned char> sort_tmp;
    size_t sort_bytes = 0;
    int sort_bits = 1;
    while (sort_bits < 32 && (n - 1) >> sort_bits) sort_bits++;
    const u64 sort_min0 = n / 1024 > SORT_MIN ? n / 1024 : SORT_MIN;
    u64 sort_min = sort_min0;
    if (defer && g->spilled && n >= SORT_MIN && !sgk_ctx_disabled(c, "settle-sort")) {
        cub::DoubleBuffer<uint32_t> kb(settled.get(), q1.get());
        SGK_CU(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, kb, n, 0, sort_bits, st));
        if (c->in_use + abytes(sort_bytes) <= c->budget)
            SGK_TRY(sort_tmp.alloc(c, sort_bytes ? sort_bytes : 1, "the SSSP settle sort scratch",
                                   err));
    }
    u64 sorted_passes = 0;
    // Sorted settle passes stream the host chunks most of whose entries
    // they read (see "Streamed settle passes" at the top).
    SettleStream ss;
    SGK_TRY(ss.events(c, err));
    const bool want_stream = defer && sort_tmp.get() && !sgk_ctx_disabled(c, "settle-stream");
    const bool dense_rule = !sgk_ctx_disabled(c, "settle-rule");
    // Settle passes over pinned host lists without a hub queue are gathered
    // by the CPU threads from gather_min vertices (see "Gathered settle
    // passes" at the top); sorted from there too.
    SettleGather sgat;
    ListBack hlist; // a pass's sorted list on the host (compacted bounces, gathered passes)
    const bool want_gather = defer && sort_tmp.get() && g->spilled && !g->h_managed && !use_big &&
                             g->hx && g->ha && g->hw && !sgk_ctx_disabled(c, "settle-gather");
    const u64 gather_min = n / GATHER_DIV > SORT_MIN ? n / GATHER_DIV : SORT_MIN;
    if (want_gather && gather_min < sort_min) sort_min = gather_min;
    // with gathered passes, streaming for the dense ones ("settle-dense")
    const bool gather_dense = !sgk_ctx_disabled(c, "settle-dense");
    u64 dense_passes = 0; // gathered passes' candidates that streamed
    u64 settle_us = 0, settle_max_us = 0, settle_max_entries = 0, settle_relax0 = 0;
    bool settle_timed = false;

    const double t1 = sgi_now();
    const u64 inf = f32 ? INF_F32 : INF_U32;
    init_dist<<<sgk_grid(c, n, 256), 256, 0, st>>>(dist, n, inf, source, q0);
    SGK_LAUNCHED("init_dist");
    SGK_CU(cudaMemsetAsync(stamp.get(), 0, n * sizeof(uint32_t), st));
    SGK_CU(cudaMemsetAsync(bits.get(), 0, (n + 31) / 32 * sizeof(uint32_t), st));
    if (windowed) SGK_CU(cudaMemsetAsync(mbits.get(), 0, (n + 31) / 32 * sizeof(uint32_t), st));
    if (defer) SGK_CU(cudaMemsetAsync(sstamp.get(), 0, n * sizeof(uint32_t), st));
    if (defer) SGK_CU(cudaMemsetAsync(done.get(), 0, (n + 31) / 32 * sizeof(uint32_t), st));

    Relax r;
    r.x = graph_x(g);
    r.a = g->A;
    r.w = g->W;
    r.dist = dist;
    r.stamp = stamp;
    r.bits = bits;
    r.mbits = mbits;
    r.bigq = bigq;
    r.settled = settled;
    r.sstamp = sstamp;
    r.light_bound = light_bound;
    r.done = defer && !sgk_ctx_disabled(c, "done-bits") ? done.get() : nullptr;
    const XArr full_x = r.x, near_x = lx.get() ? XArr::device(lx.get(), n + 1) : full_x;
    const EArr near_a = lx.get() ? EArr::device(la.get(), light_m) : r.a;
    const EArr near_w = lx.get() ? EArr::device(lw.get(), light_m) : r.w;
    const EArr full_a = r.a, full_w = r.w;
    r.ctr = ctr;
    r.qcnt = &r.ctr->qout;
    r.prefilter = prefilter;
    r.T = f32 ? dbl_bits(delta_f) : delta_u;
    if (f32 && r.T == 0) r.T = 1; // (delta_f > 0, never 0 bits)
    r.pofs = nullptr;

    // Far window: w buckets (1 = no mid pile: the single far pile).
    u64 w = windowed ? WINDOW0 : 1;
    r.U = window_end(f32, r.T, w, delta_u, delta_f);

    uint32_t *qin = q0, *qout = q1, *far = q2, *mid = q3;
    u64 k = 1, far_cnt = 0, farmin = ~0ull, mid_cnt = 0, midmin = ~0ull;
    u64 settled_cnt = 0, rounds = 0, phases = 1, far_splits = 0, mid_work = 0, settle_passes = 0;
    const unsigned hub_grid = (unsigned)c->sm_count * 4;
    // One relaxation pass over list[0, cnt): the round kernel, then the hub
    // queue's edges; the counters' bytes [from, clear) zeroed first.
    auto relax_pass = [&](const uint32_t *list, u64 cnt, size_t clear,
                          size_t from = 0) -> sg_status {
        SGK_CU(cudaMemsetAsync(reinterpret_cast<char *>(ctr.get()) + from, 0, clear - from, st));
        const unsigned grid = sgk_grid(c, cnt, RBLOCK);
        if (f32)
            relax_round<true><<<grid, RBLOCK, 0, st>>>(r, list, cnt, balance, use_big);
        else
            relax_round<false><<<grid, RBLOCK, 0, st>>>(r, list, cnt, balance, use_big);
        SGK_LAUNCHED("relax_round");
        if (use_big) {
            hub_scan<<<1, SCAN_BLOCK, 0, st>>>(r.x, bigq, bigoff, ctr); // the pass's lists
            SGK_LAUNCHED("hub_scan");
            if (f32)
                hub_relax<true><<<hub_grid, RBLOCK, 0, st>>>(r, bigoff);
            else
                hub_relax<false><<<hub_grid, RBLOCK, 0, st>>>(r, bigoff);
            SGK_LAUNCHED("hub_relax");
        }
        return SG_OK;
    };
    // A part list[0, cnt) of a settle pass relaxed in one relax_pass: the
    // first part clears the settle pass's counters, the later ones the hub
    // queue's only (its pushes to the near queue add up).
    auto sub_pass = [&](bool &first, const uint32_t *list, u64 cnt) -> sg_status {
        if (cnt == 0) return SG_OK;
        SGK_TRY(first ? relax_pass(list, cnt, offsetof(Counters, mid))
                      : relax_pass(list, cnt, offsetof(Counters, settled),
                                   offsetof(Counters, big)));
        first = false;
        return SG_OK;
    };
    // The same over a chunk in a device buffer: the pass reads offsets x,
    // neighbours a and weights w (and pofs: each list position's entries)
    // instead of the graph's, which are put back after.
    auto sub_chunk = [&](bool &first, const uint32_t *list, u64 cnt, XArr x, EArr a, EArr w,
                         const uint32_t *pofs) -> sg_status {
        r.x = x;
        r.a = a;
        r.w = w;
        r.pofs = pofs;
        const sg_status sr = sub_pass(first, list, cnt);
        r.x = full_x;
        r.a = full_a;
        r.w = full_w;
        r.pofs = nullptr;
        return sr;
    };
    // The entries the sorted list[0, cnt) reads in each chunk and the
    // list positions where each chunk's vertices start (settle_cover), read
    // back into ss.hwork: cov[0, nc), then pos[0, nc].
    auto settle_cover_back = [&](const uint32_t *list, u64 cnt) -> sg_status {
        u64 *cov = ss.dwork.get(), *pos = cov + ss.nc;
        SGK_CU(cudaMemsetAsync(cov, 0, ss.nc * sizeof(u64), st));
        unsigned cgrid = sgk_grid(c, cnt, 256);
        const unsigned pgrid_need = (unsigned)((ss.nc + 256) / 256);
        if (cgrid < pgrid_need) cgrid = pgrid_need;
        settle_cover<<<cgrid, 256, 0, st>>>(list, cnt, r.x, ss.dcb, ss.nc, cov, pos);
        SGK_LAUNCHED("settle_cover");
        SGK_CU(cudaMemcpyAsync(ss.hwork, cov, (2 * ss.nc + 1) * sizeof(u64),
                               cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        return SG_OK;
    };
    // chunk k streams, by the cover read back: the pass reads some of it
    // (half or more by the dense rule) and it fits a staging buffer
    auto streams = [&](u64 k) {
        const u64 *hcov = ss.hwork, *hpos = hcov + ss.nc;
        const u64 size = ss.ce[k + 1] - ss.ce[k];
        return hpos[k + 1] > hpos[k] && size <= ss.S &&
               (dense_rule ? 2 * hcov[k] >= size : hcov[k] > 0);
    };
    // A settle pass over the sorted list[0, cnt) with streamed chunks: the
    // entries of each chunk's settled vertices are counted (settle_cover,
    // read back, unless `covered` says that ran); a chunk whose size is at
    // most S and of which the pass reads half or more ("settle-rule"
    // disabled: any) is copied whole into a staging buffer by DMA on the
    // copy stream and its vertices relaxed from there; the rest of the
    // list (the device part's vertices and the other chunks') is relaxed
    // from where the lists live, in order. The first sub-pass clears the
    // settle pass's counters, the later ones the hub queue's only (its
    // pushes to the near queue add up).
    auto settle_streamed = [&](const uint32_t *list, u64 cnt, bool covered) -> sg_status {
        if (!covered) SGK_TRY(settle_cover_back(list, cnt));
        const u64 *hpos = ss.hwork + ss.nc;
        // compacted bounces: the pass's list read back once, if a chunk
        // streams
        bool lists_back = false;
        if (ss.compact) {
            bool any = false;
            for (u64 k = 0; k < ss.nc && !any; k++) any = streams(k);
            if (any) {
                SGK_TRY(hlist.fetch(list, cnt, st, err));
                lists_back = true;
            }
        }
        bool first = true;
        auto sub = [&](u64 lo, u64 hi) -> sg_status {
            return hi > lo ? sub_pass(first, list + lo, hi - lo) : SG_OK;
        };
        u64 from = 0; // the first list position not yet relaxed
        for (u64 k = 0; k < ss.nc; k++) {
            if (!streams(k)) continue; // relaxed in place with the positions around it
            const u64 lo = hpos[k], hi = hpos[k + 1], e0 = ss.ce[k], size = ss.ce[k + 1] - e0;
            SGK_TRY(sub(from, lo));
            const u64 b = ss.chunks & 1;
            uint32_t *ba = ss.buf.get() + b * ss.S, *bw = ss.buf.get() + (2 + b) * ss.S;
            SGK_CU(cudaStreamWaitEvent(c->copy, ss.freed[b], 0)); // its last relax done
            XArr xs = full_x; // the compacted chunk's offsets, else the graph's
            u64 moved = size;
            const bool compacted = ss.bounce && lists_back;
            if (compacted) { // the pass's lists only, in vertex order
                if (!ss.lent) SGK_TRY(ss.lend(err));
                const uint32_t *hv = hlist.p.get() + lo;
                const u64 nv = hi - lo, vc = ss.cb[k + 1] - ss.cb[k];
                SGK_TRY(ss.prefix(hv, nv, err));
                moved = ss.co[nv];
                SGK_CU(cudaMemsetAsync(ss.cx.get(), 0, (vc + 1) * sizeof(u64), st));
                chunk_lens<<<sgk_grid(c, nv, 256), 256, 0, st>>>(list + lo, nv, full_x,
                                                                  ss.cb[k], ss.cx.get());
                SGK_LAUNCHED("chunk_lens");
                size_t tb = ss.ctmp.n;
                SGK_CU(cub::DeviceScan::ExclusiveSum(ss.ctmp.get(), tb, ss.cx.get(), ss.cx.get(),
                                                     (int64_t)(vc + 1), st));
                xs.d = xs.h = ss.cx.get() - ss.cb[k]; // vertex u reads cx[u - cb[k]]
                xs.s = ss.cb[k + 1] + 1;
                SGK_TRY(ss.bounce_gather(g->ha, hv, nv, ss.co.data(), ba, err));
                SGK_TRY(ss.bounce_gather(g->hw, hv, nv, ss.co.data(), bw, err));
                ss.compacted++;
                ss.compact_saved += 8 * (size - moved);
            } else if (ss.bounce) { // managed: through the CPU threads' copies
                if (!ss.lent) SGK_TRY(ss.lend(err));
                SGK_TRY(ss.bounce_copy(g->ha + e0, ba, size, err));
                SGK_TRY(ss.bounce_copy(g->hw + e0, bw, size, err));
            } else {
                SGK_CU(cudaMemcpyAsync(ba, g->ha + e0, 4 * size, cudaMemcpyDefault, c->copy));
                SGK_CU(cudaMemcpyAsync(bw, g->hw + e0, 4 * size, cudaMemcpyDefault, c->copy));
            }
            SGK_CU(cudaEventRecord(ss.ready[b], c->copy));
            SGK_CU(cudaStreamWaitEvent(st, ss.ready[b], 0));
            // The chunk's entries [e0, e0 + size) from the buffers: the
            // views' device base is set e0 entries before them, so that
            // entry e reads buf[e - e0] (only this chunk's lists are read).
            EArr sa = full_a, sw = full_w;
            if (compacted) { // entry p at buf[p]
                sa.d = sa.h = ba;
                sw.d = sw.h = bw;
                sa.s = sw.s = moved;
            } else {
                sa.d = ba - e0;
                sw.d = bw - e0;
                sa.s = sw.s = e0 + size;
            }
            SGK_TRY(sub_chunk(first, list + lo, hi - lo, xs, sa, sw, nullptr));
            SGK_CU(cudaEventRecord(ss.freed[b], st));
            ss.chunks++;
            ss.bytes += 8 * moved;
            from = hi;
        }
        if (ss.lent) SGK_TRY(ss.give_back(err));
        return sub(from, cnt);
    };
    // A gathered settle pass over the sorted list[0, cnt): the list comes
    // back once; the vertices before the first whose list lies wholly in
    // host memory are relaxed where their lists are; the rest go in chunks
    // of at most gv vertices and ge entries, whose lists (neighbours and
    // weights) the CPU threads gather into a lent staging buffer while the
    // GPU relaxes the chunk before from one of two device buffers (the
    // copy stream takes each chunk there; r.pofs gives each list position
    // its entries).
    auto settle_gathered = [&](const uint32_t *list, u64 cnt) -> sg_status {
        const double h0 = sgi_now();
        SGK_TRY(hlist.fetch(list, cnt, st, err));
        const uint32_t *const hl = hlist.p.get();
        const u64 p = (u64)(std::lower_bound(hl, hl + cnt, (uint32_t)sgat.vsplit) - hl);
        // the GPU's side share from the host part's end, relaxed in place
        // on the side stream once the pass's counters are cleared
        const u64 sn = sgat.use_side && p < cnt ? sgat.side.take(cnt - p) : 0, rend = cnt - sn;
        bool first = true;
        if (sn) {
            SGK_CU(cudaMemsetAsync(ctr.get(), 0, offsetof(Counters, mid), st));
            first = false;
            SGK_CU(cudaEventRecord(sgat.go, st));
            sgk_side_share &sd = sgat.side;
            SGK_CU(cudaStreamWaitEvent(sd.stream, sgat.go, 0));
            SGK_CU(cudaEventRecord(sd.t0, sd.stream));
            unsigned grid = sgk_grid(c, sn, RBLOCK);
            if (grid > sgat.side_cap) grid = sgat.side_cap;
            if (f32)
                relax_round<true><<<grid, RBLOCK, 0, sd.stream>>>(r, list + rend, sn, balance,
                                                                  use_big);
            else
                relax_round<false><<<grid, RBLOCK, 0, sd.stream>>>(r, list + rend, sn, balance,
                                                                   use_big);
            SGK_LAUNCHED("relax_round (side)");
            SGK_CU(cudaEventRecord(sd.t1, sd.stream));
        }
        SGK_TRY(sub_pass(first, list, p));
        const double hc0 = sgi_now();
        if (p < rend) {
            void *stage[2] = {nullptr, nullptr};
            sgk_stage_loan loan;
            SGK_TRY(sgk_stage_lend(c, stage, err));
            loan.c = c;
            sgat.ring.begin();
            int b = 0;
            for (u64 j = p; j < rend; b ^= 1) {
                uint32_t *hoff = static_cast<uint32_t *>(stage[b]), *ha = hoff + sgat.gv + 1;
                uint32_t *hw = ha + sgat.ge;
                const double tw = sgi_now();
                SGK_TRY(sgat.ring.host_wait(b, err));
                sgat.wait_us += sgk_us_since(tw);
                const u64 want = rend - j < sgat.gv ? rend - j : sgat.gv;
                const u64 took = sgk_gather_lists(g->hx, g->ha, g->hw, hl + j, want, sgat.ge, hoff,
                                                  ha, hw, true, c->threads);
                const u64 ents = hoff[took];
                const sgk_chunk_pair::piece pp[3] = {
                    {sgat.so[b].get(), hoff, (took + 1) * sizeof *hoff},
                    {sgat.sa[b].get(), ha, ents * sizeof *ha},
                    {sgat.sw[b].get(), hw, ents * sizeof *hw}};
                SGK_TRY(sgat.ring.upload(b, pp, 3, c->copy, st, err));
                SGK_TRY(sub_chunk(first, list + j, took, full_x,
                                  EArr::device(sgat.sa[b].get(), ents),
                                  EArr::device(sgat.sw[b].get(), ents), sgat.so[b].get()));
                SGK_TRY(sgat.ring.read(b, st, err));
                sgat.chunks++;
                sgat.entries += ents;
                j += took;
            }
            SGK_TRY(loan.end(err));
        }
        if (sn) { // the side kernel done before the pass's counters are read
            const double th = sgi_now() - hc0;
            SGK_CU(cudaStreamWaitEvent(st, sgat.side.t1, 0));
            SGK_CU(cudaEventSynchronize(sgat.side.t1));
            SGK_TRY(sgat.side.adapt(sn, rend - p, th, err));
        }
        sgat.passes++;
        sgat.us += sgk_us_since(h0);
        return SG_OK;
    };
    // The counters after a round, split or device loop: the next launch's
    // size and the piles.
    auto read_back = [&]() -> sg_status {
        SGK_CU(cudaMemcpyAsync(hc.p, ctr.get(), sizeof(Counters), cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        k = hc.p->qout;
        settled_cnt = hc.p->settled;
        far_cnt = hc.p->far;
        farmin = ~hc.p->farneg;
        mid_cnt = hc.p->mid;
        midmin = ~hc.p->midneg;
        return SG_OK;
    };
    // Small near rounds run on the device (near_loop) on a cooperative grid
    // of LOOP_BLOCKS_PER_SM blocks per multiprocessor, where they fit;
    // "device-rounds" disabled: every round from the host.
    // With "device-buckets" disabled the loop runs near rounds only.
    unsigned loop_blocks = 0;
    u64 loop_rounds = 0, loops = 0, loop_settles = 0, loop_splits = 0;
    const bool loop_buckets = !sgk_ctx_disabled(c, "device-buckets");
    const u64 loop_sort_min0 = !sort_tmp.get()                ? ~0ull
                               : n / LOOP_SORT_DIV > SORT_MIN ? n / LOOP_SORT_DIV
                                                              : SORT_MIN;
    u64 loop_sort_min = want_gather && gather_min < loop_sort_min0 ? gather_min : loop_sort_min0;
    if (!sgk_ctx_disabled(c, "device-rounds") && !use_big) {
        int coop = 0, per_sm = 0;
        SGK_CU(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, c->device));
        SGK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, f32 ? (const void *)near_loop<true> : (const void *)near_loop<false>, RBLOCK,
            0));
        if (coop && per_sm > 0)
            loop_blocks = (unsigned)c->sm_count *
                          (unsigned)(per_sm < LOOP_BLOCKS_PER_SM ? per_sm : LOOP_BLOCKS_PER_SM);
    }
    for (;;) {
        r.qout = qout;
        r.far = far;
        r.mid = mid;
        // Bucket stamp: a fresh one after every split and every settle pass
        // (a vertex a settle pass pulls below T again joins the list anew).
        r.bucket = (uint32_t)(phases + settle_passes);
        // A near round (or the device loop's first) reads the light index
        // where there is one.
        auto near_round = [&](u64 ahead) -> sg_status {
            if (rounds + ahead >= 0xfffffffeull || phases + settle_passes + ahead >= 0xfffffffeull)
                return sgi_fail(err, SG_E_DEVICE, "SSSP: more than 2^32 rounds");
            r.round = (uint32_t)(rounds + 1);
            r.mode = defer ? MODE_NEAR : MODE_ALL;
            r.x = defer ? near_x : full_x;
            r.a = defer ? near_a : full_a;
            r.w = defer ? near_w : full_w;
            return SG_OK;
        };
        // The device loop takes over from a near queue of at most LOOP_CAP, a
        // settled list it need not sort, or a mid split.
        const bool bucket_step = settled_cnt > 0 ? settled_cnt < loop_sort_min : mid_cnt > 0;
        const bool to_loop = loop_blocks && k <= LOOP_CAP && (k > 0 || (loop_buckets && bucket_step));
        if (to_loop) {
            SGK_TRY(near_round(LOOP_MAX));
            SGK_CU(cudaMemsetAsync(ctr.get(), 0, offsetof(Counters, settled), st));
            LoopArgs la;
            la.buf[0] = qin;
            la.buf[1] = qout;
            la.buf[2] = mid;
            la.done = r.done ? done.get() : nullptr;
            la.k = k;
            la.cap = LOOP_CAP;
            la.max_passes = LOOP_MAX;
            la.sort_min = loop_sort_min;
            la.delta_u = delta_u;
            la.delta_f = delta_f;
            la.full_x = full_x;
            la.full_a = full_a;
            la.full_w = full_w;
            la.buckets = loop_buckets;
            la.balance = balance;
            void *args[] = {&r, &la};
            const cudaError_t le = cudaLaunchCooperativeKernel(
                f32 ? (const void *)near_loop<true> : (const void *)near_loop<false>,
                dim3(loop_blocks), dim3(RBLOCK), args, 0, st);
            if (le == cudaErrorCooperativeLaunchTooLarge) {
                // fewer multiprocessors than the query said (shared device):
                // the host's passes from here on
                (void)cudaGetLastError();
                loop_blocks = 0;
                continue;
            }
            SGK_CU(le);
            SGK_TRY(read_back());
            const Counters &h = *hc.p;
            rounds += h.loop_rounds;
            loop_rounds += h.loop_rounds;
            loop_settles += h.loop_settles;
            settle_passes += h.loop_settles;
            loop_splits += h.loop_splits;
            phases += h.loop_splits;
            mid_work += h.loop_midwork;
            r.T = h.loop_T;
            loops++;
            uint32_t *const b3[3] = {la.buf[0], la.buf[1], la.buf[2]};
            qin = b3[h.loop_bufs & 3];
            qout = b3[h.loop_bufs >> 2 & 3];
            mid = b3[h.loop_bufs >> 4 & 3];
            continue;
        }
        if (k > 0) {
            SGK_TRY(near_round(0));
            rounds++;
            SGK_TRY(relax_pass(qin, k, offsetof(Counters, settled)));
            uint32_t *t = qin;
            qin = qout;
            qout = t;
        } else if (settled_cnt > 0) {
            // The bucket is settled (no near vertex left): its vertices'
            // deferred edges, once each, from their final distances. A heavy
            // edge lands at or above T (du >= T - delta, w >= delta), mid or
            // far; should rounding put one below T, its target goes to the
            // near queue (the last round pushed nothing, so no vertex holds
            // this round's stamp) and the bucket goes on.
            r.mode = MODE_SETTLE;
            SGK_CU(cudaEventRecord(ss.t0, st));
            settle_timed = true;
            settle_relax0 = hc.p->relax;
            const uint32_t *slist = settled;
            bool sorted_now = false;
            if (sort_tmp.get() && settled_cnt >= sort_min) {
                cub::DoubleBuffer<uint32_t> kb(settled.get(), qin); // qin: empty here
                size_t tb = 0;
                SGK_CU(cub::DeviceRadixSort::SortKeys(nullptr, tb, kb, settled_cnt, 0, sort_bits,
                                                      st));
                if (tb <= sort_bytes) {
                    SGK_CU(cub::DeviceRadixSort::SortKeys(sort_tmp.get(), tb, kb, settled_cnt, 0,
                                                          sort_bits, st));
                    slist = kb.Current();
                    sorted_passes++;
                    sorted_now = true;
                }
            }
            if (r.done) {
                mark_done<<<sgk_grid(c, settled_cnt, 256), 256, 0, st>>>(slist, settled_cnt, done);
                SGK_LAUNCHED("mark_done");
            }
            r.x = full_x;
            r.a = full_a;
            r.w = full_w;
            if (sorted_now && want_gather && !sgat.tried) {
                SGK_TRY(sgat.open(c, g,
                                  f32 ? (const void *)relax_round<true>
                                      : (const void *)relax_round<false>,
                                  err));
                if (!sgat.on) { // no room: the thresholds as without
                    sort_min = sort_min0;
                    loop_sort_min = loop_sort_min0;
                }
            }
            bool gathered = sorted_now && sgat.on && settled_cnt >= gather_min;
            if (sorted_now && want_stream && !ss.tried && (!sgat.on || gather_dense))
                SGK_TRY(ss.open(g, share ? share->threads : 0,
                                share ? reinterpret_cast<const u64 *>(share->x) : nullptr,
                                err));
            // A pass whose entries could fill half a chunk at the mean
            // degree (any, by "settle-rule" disabled) is counted per chunk;
            // where the chunks it would stream hold half its host entries
            // or more, it streams instead (see "Gathered settle passes").
            bool covered = false;
            const bool may_fill =
                2.0 * (double)settled_cnt * (double)m >= (double)ss.S * (double)n;
            if (gathered && ss.on && (!dense_rule || may_fill)) {
                SGK_TRY(settle_cover_back(slist, settled_cnt));
                covered = true;
                u64 all = 0, dense = 0;
                for (u64 ck = 0; ck < ss.nc; ck++) {
                    all += ss.hwork[ck];
                    if (streams(ck)) dense += ss.hwork[ck];
                }
                if (dense > 0 && 2 * dense >= all) {
                    gathered = false;
                    dense_passes++;
                }
            }
            if (gathered)
                SGK_TRY(settle_gathered(slist, settled_cnt));
            else if (sorted_now && ss.on)
                SGK_TRY(settle_streamed(slist, settled_cnt, covered));
            else
                SGK_TRY(relax_pass(slist, settled_cnt, offsetof(Counters, mid)));
            SGK_CU(cudaEventRecord(ss.t1, st));
            settle_passes++;
            uint32_t *t = qin;
            qin = qout;
            qout = t;
        } else if (mid_cnt > 0) {
            // Next bucket from the mid pile only: the far pile holds nothing
            // below U, so T never passes U here.
            u64 T1 = next_threshold(f32, r.T, midmin, delta_u, delta_f);
            if (T1 > r.U) T1 = r.U;
            SGK_CU(cudaMemsetAsync(ctr.get(), 0, offsetof(Counters, far), st));
            pile_split<true><<<sgk_grid(c, mid_cnt, 256), 256, 0, st>>>(
                mid, mid_cnt, dist, mbits, mbits, r.T, T1, r.U, qin, nullptr, qout, ctr);
            SGK_LAUNCHED("pile_split");
            uint32_t *t = mid; // the kept entries are in qout's buffer
            mid = qout;
            qout = t;
            mid_work += mid_cnt;
            r.T = T1;
            phases++;
        } else {
            if (far_cnt == 0) break;
            // Window size: balance the mid pile's rescans over the last
            // window (mid_work) against one pass over the far pile; an
            // empty window (sparse distances) widens faster.
            if (windowed && far_splits > 0) {
                if (mid_work > 2 * far_cnt && w > WINDOW_MIN)
                    w /= 2;
                else if (2 * mid_work < far_cnt && w < WINDOW_MAX)
                    w = w * (mid_work == 0 ? 4 : 2) < WINDOW_MAX ? w * (mid_work == 0 ? 4 : 2)
                                                               : WINDOW_MAX;
            }
            mid_work = 0;
            const u64 T1 = next_threshold(f32, r.T, farmin, delta_u, delta_f);
            const u64 U1 = window_end(f32, T1, w, delta_u, delta_f);
            SGK_CU(cudaMemsetAsync(ctr.get(), 0, offsetof(Counters, relax), st));
            pile_split<false><<<sgk_grid(c, far_cnt, 256), 256, 0, st>>>(
                far, far_cnt, dist, bits, mbits, r.U, T1, U1, qin, mid, qout, ctr);
            SGK_LAUNCHED("pile_split");
            uint32_t *t = far; // the kept entries are in qout's buffer
            far = qout;
            qout = t;
            r.T = T1;
            r.U = U1;
            phases++;
            far_splits++;
        }
        // One read-back per round or split: it sizes the next launch.
        SGK_TRY(read_back());
        if (settle_timed) {
            float ms = 0.0f;
            SGK_CU(cudaEventElapsedTime(&ms, ss.t0, ss.t1));
            const u64 us = (u64)(ms * 1000.0f), ent = hc.p->relax - settle_relax0;
            settle_us += us;
            if (us > settle_max_us) {
                settle_max_us = us;
                settle_max_entries = ent;
            }
            settle_timed = false;
        }
    }
    ss.release(); // before the download, and whatever the caller allocates next
    sgat.release();
    stats->seconds_compute = sgi_now() - t1;
    const u64 relaxations = hc.p->tries, scanned = hc.p->relax;

    SGK_TRY(finish_dist(c, dist.get(), n, f32, reinterpret_cast<unsigned long long *>(ctr.get()),
                        dist_out, reached, max_bits, stats, err));
    sgk_stats_set(stats, "iterations", rounds);
    sgk_stats_set(stats, "buckets", phases);
    sgk_stats_set(stats, "far_splits", far_splits);
    sgk_stats_set(stats, "relaxations", relaxations);
    sgk_stats_set(stats, "edges_scanned", scanned);
    sgk_stats_set(stats, "settle_passes", settle_passes);
    sgk_stats_set(stats, "device_rounds", loop_rounds);
    sgk_stats_set(stats, "device_loops", loops);
    sgk_stats_set(stats, "device_settles", loop_settles);
    sgk_stats_set(stats, "device_splits", loop_splits);
    sgk_stats_set(stats, "settle_sorted", sorted_passes);
    sgk_stats_set(stats, "settle_us", settle_us);
    sgk_stats_set(stats, "settle_max_us", settle_max_us);
    sgk_stats_set(stats, "settle_max_entries", settle_max_entries);
    sgk_stats_set(stats, "settle_streamed_chunks", ss.chunks);
    sgk_stats_set(stats, "settle_streamed_bytes", ss.bytes);
    sgk_stats_set(stats, "settle_bounce_us", ss.bounce_us);
    sgk_stats_set(stats, "settle_bounce_wait_us", ss.bounce_wait_us);
    sgk_stats_set(stats, "settle_compacted_chunks", ss.compacted);
    sgk_stats_set(stats, "settle_compact_saved_bytes", ss.compact_saved);
    sgk_stats_set(stats, "settle_gathered_passes", sgat.passes);
    sgk_stats_set(stats, "settle_dense_passes", dense_passes);
    sgk_stats_set(stats, "settle_gathered_chunks", sgat.chunks);
    sgk_stats_set(stats, "settle_gathered_bytes", 8 * sgat.entries);
    sgk_stats_set(stats, "settle_gather_us", sgat.us);
    sgk_stats_set(stats, "settle_gather_wait_us", sgat.wait_us);
    sgk_stats_set(stats, "settle_side_vertices", sgat.side.vertices);
    sgk_stats_set(stats, "settle_side_us", (uint64_t)(sgat.side.seconds * 1e6));
    sgk_stats_set(stats, "settle_side_pct",
                  sgat.use_side ? (uint64_t)(sgat.side.frac * 100 + 0.5) : 0);
    sgk_stats_set(stats, "light_edges", lx.get() ? light_m : 0);
    const bool shared = ishare.sh && lx.get();
    sgk_stats_set(stats, "cpu_index_split", shared ? ishare.split : n);
    sgk_stats_set(stats, "cpu_index_lists", shared ? n - ishare.split : 0);
    sgk_stats_set(stats, "cpu_index_entries", ishare.cpu_entries);
    sgk_stats_set(stats, "cpu_index_light", shared ? ishare.cpu_fill_light : 0);
    sgk_stats_set(stats, "cpu_index_us", ishare.cpu_us);
    sgk_stats_set(stats, "cpu_index_sweeps", ishare.sweeps);
    sgk_stats_set(stats, "cpu_index_ring_turns", ishare.ring_turns);
    sgk_stats_set(stats, "cpu_index_wait_us", ishare.wait_us);
    sgk_stats_set(stats, "index_count_us", ishare.count_us);
    sgk_stats_set(stats, "index_fill_us", ishare.fill_us);
    sgk_stats_set(stats, "index_fused", stats_fused && lx.get() ? 1 : 0);
    sgk_stats_set(stats, "index_fused_us", ishare.fused_us);
    sgk_stats_set(stats, "index_slots", stats_fused && lx.get() ? stats_slots : 0);
    sgk_stats_set(stats, "index_moves", ishare.moves);
    sgk_stats_set(stats, "cpu_upload_bytes", ishare.upload);
    sgk_stats_set(stats, "gpu_index_pieces", ishare.gpu_pieces);
    sgk_stats_set(stats, "host_list_bytes",
                  4 * (index_host + hc.p->ihost + hc.p->host) + ss.bytes + 8 * sgat.entries);
    sgk_stats_set(stats, "preprocess_host_bytes", 4 * (index_host + hc.p->ihost));
    sgk_stats_set(stats, "delta", f32 ? round_counter(delta_f) : delta_u);
    sgk_stats_set(stats, "index_reused", index_reused ? 1 : 0);
    stats->delta = f32 ? delta_f : (double)delta_u;
    // The index stays with the graph for the next call with this delta.
    if (lx.get() && !sgk_ctx_disabled(c, "keep-index")) {
        IndexKeep *k = new (std::nothrow) IndexKeep;
        if (k) {
            k->delta_in = delta_in;
            k->delta_u = delta_u;
            k->delta_f = delta_f;
            k->wide = wide;
            k->light_bound = light_bound;
            k->light_m = light_m;
            k->fused = stats_fused;
            k->slots = stats_slots;
            k->lx.swap(lx);
            k->la.swap(la);
            k->lw.swap(lw);
            sgk_graph_keep(g, k, index_keep_free, k->lx.bytes() + k->la.bytes() + k->lw.bytes());
        }
    }
    return SG_OK;
}

sg_status run_bellman_ford(sgk_ctx *c, const sgk_graph *g, uint32_t source, uint64_t *dist_out,
                           uint64_t *reached, uint64_t *max_bits, sgk_stats *stats, sg_error *err)
{
    const sgk_graph_desc &d = g->d;
    const u64 n = d.n, m = d.m;
    const bool f32 = d.f32;
    const bool ldg = !sgk_ctx_disabled(c, "bf-ldg");
    const bool segments = !sgk_ctx_disabled(c, "bf-segments");
    cudaStream_t st = c->stream;

    // ------------------------------------------------ the edge list
    const double t0 = sgi_now();
    sgk_dbuf<u64> dist, bins;
    sgk_dbuf<uint32_t> es, ed, ew, modif;
    sgk_dbuf<u64> whost;
    SGK_TRY(dist.alloc(c, n, "the Bellman-Ford distances", err));
    SGK_TRY(whost.alloc(c, 1, "the Bellman-Ford host-read counter", err));
    SGK_CU(cudaMemsetAsync(whost.get(), 0, sizeof(u64), st));
    SGK_TRY(bins.alloc(c, BF_MAXBINS, "the Bellman-Ford segment groups", err));
    SGK_TRY(modif.alloc(c, 1, "the Bellman-Ford modified flag", err));

    BfSrc s;
    s.x = graph_x(g);
    s.a = g->A;
    s.w = g->W;
    s.n = n;
    s.m = m;
    s.directed = d.directed;
    s.shift = 40; // one segment
    if (segments) {
        const u64 want = (n + BF_MAXSEG - 1) / BF_MAXSEG;
        unsigned sh = 18;
        while (sh < 40 && ((u64)1 << sh) < want) sh++;
        s.shift = sh;
    }
    s.nseg = (unsigned)(((n - 1) >> s.shift) + 1);
    const unsigned nb = s.nseg * s.nseg;

    u64 me = 0;
    u64 hb[BF_MAXBINS];
    if (m > 0) {
        const unsigned grid = sgk_grid(c, (m + BF_TILE - 1) / BF_TILE, 1);
        SGK_CU(cudaMemsetAsync(bins.get(), 0, BF_MAXBINS * sizeof(u64), st));
        bf_count<<<grid, BF_BLOCK, 0, st>>>(s, bins);
        SGK_LAUNCHED("bf_count");
        SGK_CU(cudaMemcpyAsync(hb, bins.get(), nb * sizeof(u64), cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        for (unsigned i = 0; i < nb; i++) {
            const u64 cnt = hb[i];
            hb[i] = me;
            me += cnt;
        }
        if (me > m)
            return sgi_fail(err, SG_E_DEVICE, "Bellman-Ford edge list: %llu kept of %llu entries",
                            (unsigned long long)me, (unsigned long long)m);
    }
    SGK_TRY(es.alloc(c, me, "the Bellman-Ford edge list (sources)", err));
    SGK_TRY(ed.alloc(c, me, "the Bellman-Ford edge list (targets)", err));
    SGK_TRY(ew.alloc(c, me, "the Bellman-Ford edge list (weights)", err));
    if (me > 0) {
        const unsigned grid = sgk_grid(c, (m + BF_TILE - 1) / BF_TILE, 1);
        SGK_CU(cudaMemcpyAsync(bins.get(), hb, nb * sizeof(u64), cudaMemcpyHostToDevice, st));
        bf_scatter<<<grid, BF_BLOCK, 0, st>>>(s, bins, es, ed, ew, whost);
        SGK_LAUNCHED("bf_scatter");
    }
    // Host reads: every entry of A by bf_count and again by bf_scatter (when
    // it ran), and the kept entries' weights (counted by bf_scatter).
    u64 host = 0;
    SGK_CU(cudaMemcpyAsync(&host, whost.get(), sizeof host, cudaMemcpyDeviceToHost, st));
    SGK_CU(cudaStreamSynchronize(st));
    if (m > 0) host += g->A.host_count(0, m);
    if (me > 0) host += g->A.host_count(0, m);
    stats->seconds_preprocess = sgi_now() - t0;

    // ------------------------------------------------ iterations
    const double t1 = sgi_now();
    const u64 inf = f32 ? INF_F32 : INF_U32;
    init_dist<<<sgk_grid(c, n, 256), 256, 0, st>>>(dist, n, inf, source, nullptr);
    SGK_LAUNCHED("init_dist");
    SGK_CU(cudaMemsetAsync(modif.get(), 0, sizeof(unsigned), st));
    unsigned iter = 0;
    const bool undir = !d.directed;
    const unsigned grid = sgk_grid(c, me, 256);
    while (me > 0) {
        iter++;
        // one macro-free dispatch over the 8 variants
        if (f32) {
            if (ldg) {
                if (undir) bf_iter<true, true, true><<<grid, 256, 0, st>>>(es, ed, ew, me, dist, modif, iter);
                else bf_iter<true, true, false><<<grid, 256, 0, st>>>(es, ed, ew, me, dist, modif, iter);
            } else {
                if (undir) bf_iter<true, false, true><<<grid, 256, 0, st>>>(es, ed, ew, me, dist, modif, iter);
                else bf_iter<true, false, false><<<grid, 256, 0, st>>>(es, ed, ew, me, dist, modif, iter);
            }
        } else {
            if (ldg) {
                if (undir) bf_iter<false, true, true><<<grid, 256, 0, st>>>(es, ed, ew, me, dist, modif, iter);
                else bf_iter<false, true, false><<<grid, 256, 0, st>>>(es, ed, ew, me, dist, modif, iter);
            } else {
                if (undir) bf_iter<false, false, true><<<grid, 256, 0, st>>>(es, ed, ew, me, dist, modif, iter);
                else bf_iter<false, false, false><<<grid, 256, 0, st>>>(es, ed, ew, me, dist, modif, iter);
            }
        }
        SGK_LAUNCHED("bf_iter");
        unsigned h = 0;
        SGK_CU(cudaMemcpyAsync(&h, modif.get(), sizeof h, cudaMemcpyDeviceToHost, st));
        SGK_CU(cudaStreamSynchronize(st));
        if (h != iter) break;
        if (iter == 0xfffffffeu) return sgi_fail(err, SG_E_DEVICE, "Bellman-Ford: too many iterations");
    }
    SGK_CU(cudaStreamSynchronize(st));
    stats->seconds_compute = sgi_now() - t1;

    SGK_TRY(finish_dist(c, dist.get(), n, f32, reinterpret_cast<unsigned long long *>(bins.get()),
                        dist_out, reached, max_bits, stats, err));
    sgk_stats_set(stats, "iterations", iter);
    sgk_stats_set(stats, "buckets", 0);
    sgk_stats_set(stats, "relaxations", (u64)iter * me * (undir ? 2 : 1));
    sgk_stats_set(stats, "delta", 0);
    stats->delta = 0.0;
    sgk_stats_set(stats, "edge_list", me);
    sgk_stats_set(stats, "host_list_bytes", 4 * host);
    sgk_stats_set(stats, "preprocess_host_bytes", 4 * host);
    return SG_OK;
}

} // namespace

uint64_t sgk_sssp_bytes(uint64_t n, uint64_t m, sgk_sssp_method method)
{
    if (method == SGK_SSSP_BELLMAN_FORD)
        return abytes(8 * n) + abytes(8 * (u64)BF_MAXBINS) + abytes(4) + abytes(8) +
               3 * abytes(4 * m);
    const u64 h = hub_cap(n, m);
    return abytes(8 * n) + 3 * abytes(4 * n) + 3 * abytes(4 * ((n + 31) / 32)) + 4 * abytes(4 * n) +
           abytes(4 * h) + abytes(8 * h) + abytes(sizeof(Counters));
}

sg_status sgk_sssp(sgk_ctx *c, const sgk_graph *g, uint32_t source, sgk_sssp_method method,
                   double delta, const sgk_cpu_share *share, uint64_t *dist, uint64_t *reached,
                   uint64_t *max_bits, sgk_stats *stats, sg_error *err)
{
    if (!c || !g || !dist || !reached || !max_bits || !stats)
        return sgi_fail(err, SG_E_INVALID, "sgk_sssp: NULL argument");
    const sgk_graph_desc &d = g->d;
    if (d.n == 0)
        return sgi_fail(err, SG_E_INVALID, "the graph has no vertices: there is no source %u", source);
    if ((u64)source >= d.n)
        return sgi_fail(err, SG_E_INVALID,
                        "source %u is not a vertex: the graph has %llu vertices (0..%llu)", source,
                        (unsigned long long)d.n, (unsigned long long)(d.n - 1));
    if (!d.has_weights)
        return sgi_fail(err, SG_E_INVALID,
                        "the device graph has no weights; shortest paths need them");
    if (d.w24)
        return sgi_fail(err, SG_E_UNSUPPORTED,
                        "the device graph holds 24-bit weights, which only the hybrid forest "
                        "reads; shortest paths need them in 32 bits");
    SGK_TRY(sgk_graph_ready(g, err));
    if (!(delta >= 0.0) || isinf(delta))
        return sgi_fail(err, SG_E_INVALID,
                        "delta %g: the bucket width must be finite and >= 0 (0 = automatic)", delta);
    if (method != SGK_SSSP_BUCKETS && method != SGK_SSSP_BELLMAN_FORD)
        return sgi_fail(err, SG_E_INVALID, "unknown SSSP method %d", (int)method);
    SGK_CU(cudaSetDevice(c->device));
    stats->seconds_preprocess = 0.0;
    stats->seconds_compute = 0.0;
    if (method == SGK_SSSP_BELLMAN_FORD)
        return run_bellman_ford(c, g, source, dist, reached, max_bits, stats, err);
    SGK_TRY(sgk_share_check(g, share, "sgk_sssp", err));
    return run_buckets(c, g, source, delta, share, dist, reached, max_bits, stats, err);
}
