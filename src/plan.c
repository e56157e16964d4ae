/* The placement planner (issue 6): which part of X, A and W stays in device
 * memory, where the rest lives, and how the host-resident part is shared
 * between the GPU (reading it over PCIe) and the CPU threads. Pure C, no
 * CUDA: it runs, and is tested, on machines without a GPU.
 *
 * Model (one pass over the edges; docs/plan.md says where each number comes
 * from):
 *   - Each array k is read `frac[k]` times per pass per byte (X: once per
 *     vertex; A: once per edge; W: once per edge for SSSP, rarely for the
 *     forest, whose lists are weight-sorted so that find-min reads the
 *     neighbour until it leaves the tree and the weight of the one edge it
 *     takes; not at all for BFS).
 *   - Device-resident bytes stream at `hbm_gbps` (the in-place forest's
 *     walks at FOREST_DEVICE_WALK of it).
 *   - Spilled bytes are read by the GPU in merged 128-byte requests (a warp
 *     per list) at `managed_rand_gbps` (managed memory with hints) or
 *     `zc_rand_gbps` (pinned host memory: ~8x slower for such reads, so the
 *     CPU threads end up with most of it), and by the CPU threads at
 *     `cpu_scan_gbps`.
 *   - The GPU owns vertices below an owner split c, the CPU threads the rest;
 *     the device part and the GPU's share of the host part run one after the
 *     other on the GPU, the CPU's share at the same time on the host: a pass
 *     takes max(t_device + t_gpu_host(c), t_cpu(c), t_shared), where
 *     t_shared is the host bytes both sides read at `host_shared_gbps`, what
 *     one host memory gives the two together (measured 124-130 GB/s on the
 *     H100 host: GPU 48 + CPU 76-82, against 51 and 88 apart).
 *   - The in-place forest's pass is its first round; its later rounds'
 *     refills (the GPU alone) and a per-round cost over its vertices (the
 *     rounds' candidates, tree minima, merges, the forest's output: 0.19
 *     ns per vertex per round, ceil(log2(n) / 4) rounds, twice that
 *     without hubs) are added (below, FOREST_*).
 * Choice (greedy): device bytes go to the arrays in order of reads per byte (X, then
 * A, then W for the forest; X, then A and W together at one split for SSSP,
 * which reads them together; X then A for BFS), each split the largest
 * breakpoint whose bytes fit; the spilled parts take managed memory in the
 * same order while they fit under the managed cap, pinned host memory after
 * that; c is the breakpoint that minimises the pass time. Greedy placement
 * keeps as much as fits on the device even where, in the model, an idle CPU
 * share could have taken some of it: the pass then costs at most the HBM
 * time of those bytes more (tested), the kernels stay simpler with full
 * residency, and HBM is the best-known rate of the model. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *const algo_names[] = {"mst", "sssp", "bfs"};

const char *sg_plan_algo_name(sg_plan_algo a)
{
    return (unsigned)a < 3 ? algo_names[a] : "unknown";
}

bool sg_plan_algo_parse(const char *name, sg_plan_algo *out)
{
    for (unsigned i = 0; name && i < 3; i++)
        if (strcmp(name, algo_names[i]) == 0) {
            *out = (sg_plan_algo)i;
            return true;
        }
    return false;
}

const char *sg_spill_kind_name(sg_spill_kind k)
{
    switch (k) {
    case SG_SPILL_NONE: return "none";
    case SG_SPILL_MANAGED: return "managed";
    case SG_SPILL_PINNED: return "pinned";
    }
    return "unknown";
}

/* Device working arrays per vertex, bytes (the kernels' per-vertex state:
 * kernels/mst.cu, sssp.cu and bfs.cu list theirs; rounded up). The forest:
 * the in-place executor over lists in weight order (its 57 and the heads'
 * 8, or the probe rounds' heads and queues 16: sgk_mst_inplace_bytes). */
static const uint64_t work_per_vertex[3] = {73, 40, 16};
/* Reads per byte per pass of X, A, W. */
static const double read_frac[3][3] = {
    {1.0, 1.0, 0.1}, /* mst: weight-sorted lists, W read at the chosen edge */
    {1.0, 1.0, 1.0}, /* sssp: A and W read together */
    {1.0, 1.0, 0.0}, /* bfs: no weights */
};

/* The forest over the heads of lists in weight order, on a graph with hubs
 * (the rule kernels/mst.cu applies). */
static bool forest_heads(const sg_plan_input *in)
{
    return in->algo == SG_PLAN_MST && in->lists_weight_order &&
           !sgi_hub_free(in->n, in->m, in->max_degree);
}
/* The in-place forest: unsorted lists read whole (kernels/mst.cu,
 * sgk_mst_inplace), the hybrid backend's forest. */
static bool inplace_forest(const sg_plan_input *in)
{
    return in->algo == SG_PLAN_MST && in->lists_unsorted && !forest_heads(in);
}

/* The in-place forest on a graph known to have no hubs (max_degree given,
 * sgi_hub_free): its own constants below (FOREST_HUBFREE_*). Without a
 * max_degree the constants fitted on a graph with hubs apply. */
static bool forest_hub_free(const sg_plan_input *in)
{
    return inplace_forest(in) && in->max_degree > 0 && sgi_hub_free(in->n, in->m, in->max_degree);
}

static void reads_per_byte(const sg_plan_input *in, double f[3])
{
    for (int k = 0; k < 3; k++) f[k] = read_frac[in->algo][k];
    if (inplace_forest(in)) f[2] = 1.0;
}

/* A and W at one split: they are read together. */
static bool joint_aw(const sg_plan_input *in)
{
    return in->algo == SG_PLAN_SSSP || inplace_forest(in);
}

/* The forest over the heads of lists in weight order (kernels/mst.cu,
 * k_sfill): passes of the model's A (and a tenth of W), fitted to R-MAT 26
 * at 6 GiB on the H100 (2026-11-25: 0.184-0.210 s, of it ~0.094 s the
 * rounds, FOREST_ROUND_S; 1.9 GB over PCIe for 17 GB spilled); then 12 GiB predicts
 * 0.14 against 0.150-0.164 s and 24 GiB 0.097 against 0.103-0.112. Its
 * reads are a few sectors per list, so pinned memory gives what managed
 * does (0.181-0.182 against 0.184-0.186 s): both at managed_rand_gbps. */
#define FOREST_HEADS_PASSES 0.5

/* The in-place forest (kernels/mst.cu, sgk_mst_inplace) in three terms,
 * refitted in the thirty-ninth session (2026-11-28, docs/benchmarks.md) to
 * the budget curve of R-MAT 26 and SSCA2 26 (24, 12, 6 GiB, managed and
 * pinned) on the H100 host, with the parts the run's counters give (the
 * first round's fill, the refills, the rest). Until then the model was
 * passes x one pass time, its pass rates fitted when the first round was
 * slower, and ran 10-20 % high at 6 GiB.
 *   1. The first round, one pass over every list: the device part at
 *      FOREST_DEVICE_WALK, the spilled part streamed by the GPU and taken by
 *      the CPU threads' top-K at once (pass_time, with the owner split
 *      that balances them; the executor's split is dynamic, so the model's
 *      balanced split stands for it), at these shares of `pcie_gbps` and
 *      `cpu_scan_gbps`. On a graph with hubs the GPU's weights-first walks
 *      skip most of A (R-MAT 26 at 6 GiB: 1.04-1.11 G entries, 8.3-8.9 GB
 *      of lists covered, in 160-169 ms, ~52 GB/s: 0.97), and its threads
 *      take long lists in filtered blocks (1.00-1.06 G entries in 160-168
 *      ms, ~48-53 GB/s: 0.57). Without hubs every entry is copied and
 *      walked (SSCA2 26: 0.77-0.87 G entries in 156-179 ms, ~39 GB/s: 0.73),
 *      and its lists of 17-64 entries go the pairs' top-K (1.27-1.37 G
 *      entries in 154-181 ms, 56-71 GB/s: 0.72). Pinned memory measured
 *      within 4-10 % of managed, either way: both kinds at these shares.
 *   2. The refills of the later rounds, the GPU alone: the model's passes
 *      less the first, over the device part at FOREST_DEVICE_REFILL
 *      (below) and the spilled part at FOREST_REFILL_* of `pcie_gbps`,
 *      either memory kind.
 *      R-MAT 26 reads 1.18 passes in all (the model's 1.2): 0.38 G entries
 *      again, 86-89 ms at 6 GiB, 10 ms at 24 GiB; 0.2 of 16.8 GB in 86 ms
 *      is 0.72 of `pcie_gbps`. SSCA2 26 reads 2.05 passes (131 M lists
 *      refilled, 2.24-2.27 G entries again at 6 and 24 GiB): 17.9 GB in
 *      339-344 ms at 6 GiB, ~53 GB/s, 0.98 (short lists whole, by rank:
 *      streamed nearly at the copy rate), 77 ms at 24 GiB.
 *   3. The rounds' vertex work (below, FOREST_ROUND_S).
 * Measured in the call that checked the refit (R-MAT 26 then SSCA2 26):
 * 24 GiB 0.181 / 0.324 s, 12 GiB 0.274 / 0.550, 6 GiB 0.314 / 0.690,
 * pinned 0.313 / 0.671; this model gives 0.204 / 0.344, 0.277 / 0.540,
 * 0.342 / 0.675, 0.342 / 0.675 (`spillgraph plan`, call 5; there 24 GiB
 * ran 0.182 / 0.315). R-MAT's rounds took less there (66-77 ms against
 * 89 in the model; 75-84 ms in the calls it was fitted to).
 * Other graphs without hubs are not measured: the plan may be off by more
 * there. */
#define FOREST_FILL_GPU_HUBS 0.97
#define FOREST_FILL_CPU_HUBS 0.57
#define FOREST_FILL_GPU_HUBFREE 0.73
#define FOREST_FILL_CPU_HUBFREE 0.72
#define FOREST_REFILL_HUBS 0.72
#define FOREST_REFILL_HUBFREE 0.98
#define FOREST_HUBFREE_PASSES 2.05

/* The speculative contraction (kernels/mst.cu; input forest_spec) on a
 * graph without hubs whose A spills: after the third round (the trees at
 * most n / 32) one walk of the live lists gathers the edges left, A's host
 * part copied to the device in pieces (by DMA from pinned memory, by a copy
 * kernel from managed memory), and edge rounds on the device finish.
 * Fitted to SSCA2 26 at 6 GiB on the H200 hosts (PCIe 55.4-55.5 GB/s;
 * docs/benchmarks.md, fifty-first session, calls 3-5): the refills of
 * rounds 2 and 3 56-63 ms (0.18 of the passes above at
 * FOREST_REFILL_HUBFREE), the gather's 8.55 GB of A in 199-227 ms from
 * pinned memory (~40 GB/s, the taken edges' weights sharing the link; the
 * fifty-second session's 195-200 ms, 0.78 of `pcie_gbps`, where the
 * weights are not deferred; with the weights deferred to the host threads
 * (input forest_defer, a CPU share, A's host part at most 2^32 entries)
 * 177-183 ms: ~47 GB/s, 0.84) and 233-259 ms from managed (~34 GB/s:
 * 0.62, before the deferred weights), and all the rest (the first
 * three rounds' vertex work, the edge rounds, the output) ~83 ms, 6.5
 * rounds of FOREST_ROUND_S. Measured 0.501-0.507 s in the aims of the
 * fifty-second session's call 3; this gives ~0.51 s at the default rates.
 * At 12 GiB the model was 11 % low (0.395 against 0.443 s, before the
 * deferred weights). */
#define FOREST_SPEC_REFILL_PASSES 0.18
#define FOREST_SPEC_GATHER_PINNED 0.84
#define FOREST_SPEC_GATHER_UNDEFERRED 0.78
#define FOREST_SPEC_GATHER_MANAGED 0.62
#define FOREST_SPEC_ROUNDS 6.5

/* Passes over the edges the algorithm makes (model): the in-place forest
 * (unsorted lists) 1.2: its first round reads every list, then the vertex
 * cache refills only spent lists (kernels/mst.cu; measured 1.18 passes of
 * entries at R-MAT 26 with four cache slots), FOREST_HUBFREE_PASSES on
 * a graph without hubs (the first round and its refills: above); over
 * lists in weight order FOREST_HEADS_PASSES (each list is read from its
 * head, few entries of each; W only at the entries cached); SSSP 1 (its
 * rounds read each list once, measured 16.6 GB of 16.6 spilled at R-MAT
 * 26; the light lists it rescans are a copy in device memory); BFS 1. */
static double model_passes(const sg_plan_input *in)
{
    if (forest_hub_free(in)) return FOREST_HUBFREE_PASSES;
    if (inplace_forest(in)) return 1.2;
    if (in->algo == SG_PLAN_MST) return FOREST_HEADS_PASSES;
    return 1.0;
}

/* The in-place forest's walks over device-resident lists, as a fraction of
 * `hbm_gbps`: a top-K per entry with atomics, not a stream (R-MAT 26 at
 * 24 GiB, every list on the device: the first round's 16.8 GB in 97 ms,
 * ~173 GB/s, 0.056 of the default 3100; 98 ms again in the thirty-ninth
 * session, SSCA2's 17.1 GB in 81 ms). */
#define FOREST_DEVICE_WALK 0.056
/* Its refills over device-resident lists (the cache's fills by rank of
 * the lists spent, short or cut at the resume points) run faster per
 * entry than the first round's walks: at 24 GiB R-MAT 26's 0.39 G entries
 * again in 10 ms (~310 GB/s) and SSCA2 26's 2.27 G in 77 ms (~236 GB/s),
 * twice each in the thirty-ninth session's calls; 0.078 of `hbm_gbps`
 * (~242 GB/s). */
#define FOREST_DEVICE_REFILL 0.078
/* The in-place forest's rounds over its vertices, seconds per vertex per
 * round, all that is not the first round's fill or the refills: the
 * rounds' candidates, minima and merges, the contraction, the forest's
 * output (`forest_sort_us`) and the set-up. Over the model's rounds,
 * ceil(log2(n) / 4) with hubs and ceil(log2(n) / 2) without (Borůvka took
 * 6 iterations on R-MAT 26, 14 on SSCA2 26). Measured in the thirty-ninth
 * session at 6, 12 and 24 GiB: R-MAT 26 75-84 ms, SSCA2 26 185-226 ms,
 * ~13.3 ms per Borůvka iteration on both; 0.19 ns over the model's 7 and
 * 13 rounds of 2^26 vertices gives 89 and 166 ms. (0.20 ns until the
 * thirty-third session, 0.16 until the thirty-ninth, when the model's
 * passes also held part of this time.) */
#define FOREST_ROUND_S 0.19e-9
/* SSSP (delta-stepping with its light index, kernels/sssp.cu), fitted to
 * the host_list_bytes counters of R-MAT 26 at 6 and 12 GiB on the H100
 * host (2026-11-24, docs/benchmarks.md, twelfth session):
 *   - the rounds read each spilled list once (the settle passes; the near
 *     rounds read the light index in device memory): 16.6 GB in 0.75-0.80
 *     s of kernel time from managed memory, ~21.7 GB/s, 0.40 of
 *     `pcie_gbps`; pinned memory the same on a graph with hubs, whose few
 *     large settle passes read in id order (fourteenth session: R-MAT 26
 *     compute 0.79 s pinned against 0.76 s managed at 6 GiB; scattered
 *     they took 1.9-2.4 s), but at `zc_rand_gbps` on a hub-free graph,
 *     whose ~1,300 small passes hold ids far apart (fifteenth session:
 *     SSCA2 26's 27 GB in 4.6-4.9 s of kernels, ~5.6 GB/s, sorted or not);
 *   - building the index reads the spilled W once and the light entries'
 *     A in one fused pass (kernels/sssp.cu, light_fused; the GPU and the
 *     CPU threads share the host lists, IndexShare: the lines of A the
 *     light entries touch are most of them), so the model counts W + A
 *     host bytes through one host memory: ~17 GB in 0.24-0.30 s of R-MAT
 *     26 and SSCA2 26 at 6 GiB (seventeenth session), ~57-71 GB/s, 0.54 of
 *     `host_shared_gbps` (the count and fill it replaced read 2 W + A, 25
 *     GB, in 0.29-0.40 s);
 *   - with every list on the device its rounds take 0.18 s for 16.8 GB,
 *     ~93 GB/s: 0.03 of `hbm_gbps`.
 * SSCA2 26's 10,000-14,000 latency-bound rounds take 0.37-0.41 s in core
 * even in the device loop (kernels/sssp.cu, nineteenth session): without a
 * per-round cost (the round count follows the weighted diameter, which the
 * store does not give) the model predicts it 17-35 % low at 6 and 12 GiB;
 * with an earlier search's rounds the steps term below adds it.
 * Refit on a graph with hubs (twenty-first session, R-MAT 26, device call
 * tmp-dev144.sh): the rounds took 0.62 s at 6 GiB managed (0.68 pinned)
 * and 0.41 s at 12 GiB beyond the index build and the download, where 0.40
 * of `pcie_gbps` gave 0.76 and 0.53 (the plan 13-27 % high): the settle
 * order and the device loop made them faster since the twelfth session's
 * fit. 16.0 GB in 0.61 s is 0.49 of `pcie_gbps`, SSSP_GPU_HOST_HUBS. A
 * graph without hubs keeps 0.40: its rounds are latency-bound, which the
 * model does not see, and a faster rate would leave it further low.
 * Refit on the H200 hosts (forty-eighth session, calls 1 and 3, six runs
 * of R-MAT 26 at 6 GiB, PCIe 55.5 GB/s on both hosts): since the streamed
 * and compacted settle passes (twenty-second and thirty-second sessions)
 * the rounds took 0.47-0.55 s beyond the download, median 0.48, where
 * 0.49 of `pcie_gbps` gave 0.60 (the plan 8-27 % high): 0.60 of it. */
#define SSSP_GPU_HOST 0.40
#define SSSP_GPU_HOST_HUBS 0.60
/* SSSP's rounds over pinned host lists of a graph without hubs: its ~1,300
 * small settle passes read lists far apart. Read in place, 1.18 of the
 * spilled bytes at 4.3 GB/s (SSCA2 26 at 6 GiB: 20.2 GB of host_list_bytes
 * for 17.1 spilled, ~4.65 s beside the steps term's 0.22; thirty-ninth
 * session): 0.66 of `zc_rand_gbps`. Since the forty-second session the
 * passes of 8 K vertices up are gathered by the CPU threads into chunks the
 * GPU relaxes from device memory, while the GPU relaxes a share of each
 * pass's host part in place (kernels/sssp.cu, gathered settle passes and
 * their side share), so the spilled lists go at SSSP_GATHER of
 * `cpu_scan_gbps` plus SSSP_SIDE of `zc_rand_gbps`. Fitted to SSCA2 26 at 6
 * GiB pinned (calls 4-5: cpu_scan 85.1-85.5, zc_rand 6.2-6.3 GB/s; the
 * plan's other terms ~0.41 s): the gather alone 2.03-2.39 s, median 2.25
 * (9.3 GB/s: 0.11 of cpu_scan), with the side share at 31-35 % 1.76-1.98
 * (~11.7 GB/s: 2.4 more, 0.39 of zc_rand; two runs, before the share's
 * 35 % cap). SSSP_ZC_HUBFREE stays for a run whose budget cannot hold the
 * gather's buffers (the plan keeps room for them: executor_reserve). */
#define SSSP_ZC_HUBFREE 0.66
#define SSSP_GATHER 0.11
#define SSSP_SIDE 0.39
/* The light index's build at SSSP_INDEX_SHARED of `host_shared_gbps`: 0.54
 * on the H100 host (seventeenth session, above); on the H200 hosts (forty-
 * eighth session: host_shared 130.1 and 149.8 GB/s) R-MAT 26's and SSCA2
 * 26's 16-17 GB took 0.16-0.22 s at 6 GiB, 83-95 GB/s, 0.61-0.73 of it,
 * median 0.64, where 0.54 had the build 7-40 % high. */
#define SSSP_INDEX_SHARED 0.64
#define SSSP_DEVICE 0.03
/* BFS (direction-optimizing, kernels/bfs.cu), fitted to R-MAT 26 and SSCA2
 * 26 at 6 GiB on the H100 host (docs/benchmarks.md, twenty-first session):
 *   - an undirected graph with hubs (sgi_hub_free false) takes bottom-up
 *     steps once its frontier is large, and each reads the head of an
 *     unvisited list up to its first hit: R-MAT 26 read 85.6 MB of its
 *     3.61 GB of spilled A (BFS_BOTTOM_UP_READ), in 10.6 ms more kernel
 *     time than in core from managed memory and 12.5 ms from pinned
 *     (7-8 GB/s, short scattered reads: `zc_rand_gbps` for either kind);
 *   - without hubs, or directed, the steps are top-down and every reached
 *     list is read once: SSCA2 26 read its 3.77 GB in 155 ms more than in
 *     core from managed memory (24 GB/s, BFS_GPU_HOST of `pcie_gbps`) and
 *     590 ms more from pinned (6.4 GB/s, `zc_rand_gbps`; its large
 *     frontiers go in id order there).
 * A long diameter's per-level latency (SSCA2 26's 690 levels took 65 ms in
 * core, R-MAT's 8 levels 3 ms), which the store does not give, is the steps
 * term below, from an earlier search's count. */
#define BFS_BOTTOM_UP_READ 0.025
#define BFS_GPU_HOST 0.45
/* BFS's top-down steps over pinned host lists of an undirected graph are
 * gathered by the CPU threads and copied to the device, while the GPU reads
 * a share of each step's host part in place beside them (kernels/bfs.cu,
 * gathered steps and their side share): the spilled lists go at the sum of
 * the two rates, BFS_GATHER of `cpu_scan_gbps` (the threads' gather of
 * scattered lists is latency-bound) and BFS_SIDE of `zc_rand_gbps` (the
 * side kernel's reads, in id order). Fitted to SSCA2 26 at 6 GiB pinned on
 * one host (forty-second session, call 3: cpu_scan 74.2, zc_rand 6.3 GB/s;
 * the plan's other terms 0.073 s): the gather alone 0.577 s at the median
 * (its 3.73 GB at 7.4 GB/s, 0.10 of cpu_scan), with the side share 0.453 s
 * (9.8 GB/s: 2.4 more, 0.38 of zc_rand). The rates absorb the gathered
 * steps' own latency (~0.13 s over 410 steps), which the steps term leaves
 * out. */
#define BFS_GATHER 0.10
#define BFS_SIDE 0.38
/* The result's copy into host memory, BFS's levels (4 bytes a vertex) and
 * SSSP's distances (8): one DMA at `pcie_gbps` into the result pinned
 * while the graph loaded (sg_graph_options.prepare, as the CLI asks for
 * it): R-MAT 26's 268 and 537 MB in 5.0-5.1 and 10.0 ms (docs/benchmarks.md,
 * twenty-first session; staged into unpinned pages 7-26 and 14-24 ms).
 * The forest's constants above were fitted to times that include its
 * download. */

/* The latency of a search's steps, which the store does not give (an
 * earlier search's count, sg_memo; sg_plan_input.steps): each BFS level and
 * each SSSP round is a sequence of launches and grid syncs whose cost the
 * byte terms above leave out. Fitted to SSCA2 26 on the H100 host
 * (docs/benchmarks.md, twenty-fourth and twenty-fifth sessions):
 *   - BFS: in core its 690 levels took 65.6 ms of kernels (0.075 s), R-MAT's
 *     8 levels 3 ms; at 6 GiB managed the plan without the term said 0.161
 *     s against 0.244 measured: ~0.1 ms a level;
 *   - SSSP: 13,865 rounds at 6 and 12 GiB, where the plan without the term
 *     was 0.214 and 0.226 s low (1.052 against 1.266 s, 0.726 against
 *     0.952), 15-16 us a round; in core 9,705 rounds in 0.365 s against
 *     R-MAT's 97 in 0.164 s, ~20 us a round beyond R-MAT's work. R-MAT's
 *     ~100 rounds and 8 levels add about a millisecond.
 * The pinned runs on SSCA2 are slower than this for other reasons (their
 * scattered reads of host lists in place; docs/plan.md). */
#define BFS_LEVEL_S 0.10e-3
#define SSSP_ROUND_S 16e-6

/* An undirected BFS on a graph with hubs: bottom-up steps (above). */
static bool bfs_bottom_up(const sg_plan_input *in)
{
    return in->algo == SG_PLAN_BFS && !in->directed && !sgi_hub_free(in->n, in->m, in->max_degree);
}

/* Without the light index (a budget that cannot hold it beside the working
 * arrays: executor_reserve below) the near rounds read the spilled light
 * lists again from the host: at R-MAT 22 with 87 % of the lists spilled its
 * rounds took twice as long as with the index built (docs/plan.md), so two
 * passes and no index build. */
#define SSSP_NO_INDEX_PASSES 2.0

/* The bytes of array k (0 X, 1 A, 2 W). */
static uint64_t array_bytes(const sg_plan_input *in, int k)
{
    return k == 0 ? 8 * (in->n + 1) : (uint64_t)(k == 1 ? 4 : in->weight_bytes) * in->m;
}

/* What the hybrid executors keep on the device beside their working arrays
 * (src/gpu_engine.c runs them, sg_plan_input.executor_reserves):
 *   - SSSP its light index, which lets the rounds read device memory only:
 *     offsets, the fused pass's scan state (64 KiB) and m/8 light entries
 *     of 8 bytes (the index one pass builds needs no cursors: the count
 *     and fill, which do, run where the fused pass's slots do not fit, and
 *     without room for them the run builds no index), and on a graph
 *     without hubs room for a quarter more (its doubled automatic width
 *     puts m/8 entries there on SSCA2, weights uniform in [1, 2^20]).
 *     Measured at R-MAT scale 22 with 87 % of the lists spilled, rounds
 *     without it took twice as long as with every list spilled and the
 *     index built. Left out when the budget cannot hold it beside the
 *     working arrays (the run then builds none).
 *     Over pinned host lists of a graph without hubs, also the two device
 *     buffers its gathered settle passes copy chunks into
 *     (sgi_sssp_gather_bytes: 16.8 MB from scale 21 up).
 *   - BFS over pinned host lists the two device buffers its gathered
 *     top-down steps copy chunks of host lists into (sgi_bfs_gather_bytes:
 *     8.6 MB from scale 21 up), when the graph spills.
 *   - The in-place forest room for its contracted edge list (20 bytes per
 *     edge, up to m/16 edges as in core), before any list and after X:
 *     every round before the contraction reads all live lists, so an
 *     earlier switch to the device list saves whole passes, while a list
 *     prefix on the device saves only its share of one. */
/* SSSP's light index room (above), or 0 where the budget cannot hold it. */
static uint64_t sssp_index_reserve(const sg_plan_input *in, uint64_t work)
{
    const uint64_t n = in->n, m = in->m;
    const uint64_t r = 8 * (n + 1) + m + (n + 1) / 4 + 4096 + 65536 +
                       (sgi_hub_free(n, m, in->max_degree) ? m / 4 : 0);
    return in->forced || in->device_budget >= work + r ? r : 0;
}

/* SSSP's gathered settle passes' two chunk buffers beside the index's room
 * idx, where host lists are pinned on a graph without hubs and the budget
 * holds them; else 0. */
static uint64_t sssp_gather_reserve(const sg_plan_input *in, uint64_t work, uint64_t idx)
{
    const uint64_t gb = sgi_sssp_gather_bytes(in->n, in->m, in->max_degree);
    const bool room = in->forced || in->device_budget >= work + idx + gb;
    return in->managed_cap == 0 && sgi_hub_free(in->n, in->m, in->max_degree) && room ? gb : 0;
}

/* The reserve in all, and SSSP's two parts of it. */
typedef struct {
    uint64_t total, sssp_index, sssp_gather;
} reserve_parts;

static reserve_parts executor_reserve(const sg_plan_input *in, uint64_t work)
{
    const uint64_t n = in->n, m = in->m;
    reserve_parts r = {0, 0, 0};
    if (in->algo == SG_PLAN_SSSP) {
        r.sssp_index = sssp_index_reserve(in, work);
        r.sssp_gather = sssp_gather_reserve(in, work, r.sssp_index);
        r.total = r.sssp_index + r.sssp_gather;
    } else if (in->algo == SG_PLAN_BFS) {
        /* the gathered steps' two chunk buffers, where host lists are
         * pinned and the search takes bottom-up steps (the frontiers it
         * gathers are the ones it orders: kernels/bfs.cu) */
        const uint64_t b = sgi_bfs_gather_bytes(n, m);
        const uint64_t graph = array_bytes(in, 0) + array_bytes(in, 1); /* X and A */
        const bool spills = in->forced || in->device_budget < work + graph;
        const bool room = in->forced || in->device_budget >= work + b;
        r.total = in->managed_cap == 0 && !in->directed && spills && room ? b : 0;
    } else if (in->algo == SG_PLAN_MST) { /* either in-place forest */
        const uint64_t fixed = work + 8 * (n + 1);
        const uint64_t room = in->device_budget > fixed ? in->device_budget - fixed : 0;
        const uint64_t want = 20 * (m / 16);
        r.total = want < room ? want : room;
    }
    return r;
}

/* Edges of vertices [0, v) for breakpoint index i. */
static uint64_t bytes_below(const sg_plan_input *in, int k, unsigned i)
{
    if (k == 0) /* X entries of the vertices below and the end offset of the last */
        return in->pt_v[i] ? 8 * (in->pt_v[i] + 1) : 0;
    return (uint64_t)(k == 1 ? 4 : in->weight_bytes) * in->pt_e[i];
}

/* The largest breakpoint index whose bytes below (summed over the arrays in
 * `mask`) fit in `room`. */
static unsigned fit_index(const sg_plan_input *in, unsigned mask, uint64_t room)
{
    unsigned best = 0;
    for (unsigned i = 0; i < in->n_pts; i++) {
        uint64_t b = 0;
        for (int k = 0; k < 3; k++)
            if (mask & (1u << k)) b += bytes_below(in, k, i);
        if (b <= room) best = i;
    }
    return best;
}

static sg_status check_input(const sg_plan_input *in, sg_error *err)
{
    if ((unsigned)in->algo > SG_PLAN_BFS)
        return sgi_fail(err, SG_E_INVALID, "plan: unknown algorithm %d", (int)in->algo);
    if (in->n == 0) return sgi_fail(err, SG_E_INVALID, "plan: the graph has no vertices");
    if ((unsigned)in->degree_order > SG_PLAN_DEGREES_OTHER)
        return sgi_fail(err, SG_E_INVALID, "plan: unknown degree order %d", (int)in->degree_order);
    if (in->algo != SG_PLAN_BFS && in->weight_bytes != 4 &&
        !(in->algo == SG_PLAN_MST && in->weight_bytes == 3))
        return sgi_fail(err, SG_E_INVALID,
                        "plan: %s needs weights (4 bytes each%s), got %u bytes",
                        sg_plan_algo_name(in->algo), in->algo == SG_PLAN_MST ? ", or 3" : "",
                        in->weight_bytes);
    if (!in->pt_v || !in->pt_e || in->n_pts < 2)
        return sgi_fail(err, SG_E_INVALID, "plan: at least 2 breakpoints are needed (0 and n)");
    if (in->pt_v[0] != 0 || in->pt_e[0] != 0 || in->pt_v[in->n_pts - 1] != in->n ||
        in->pt_e[in->n_pts - 1] != in->m)
        return sgi_fail(err, SG_E_INVALID,
                        "plan: breakpoints must run from (0, 0) to (n, m) = (%llu, %llu)",
                        (unsigned long long)in->n, (unsigned long long)in->m);
    for (unsigned i = 1; i < in->n_pts; i++)
        if (in->pt_v[i] <= in->pt_v[i - 1] || in->pt_e[i] < in->pt_e[i - 1])
            return sgi_fail(err, SG_E_INVALID,
                            "plan: breakpoint %u (vertex %llu, edge %llu) does not follow "
                            "(vertex %llu, edge %llu)",
                            i, (unsigned long long)in->pt_v[i], (unsigned long long)in->pt_e[i],
                            (unsigned long long)in->pt_v[i - 1],
                            (unsigned long long)in->pt_e[i - 1]);
    const sg_rates *r = &in->rates;
    const double rate[] = {r->hbm_gbps,    r->pcie_gbps,        r->managed_rand_gbps,
                           r->zc_rand_gbps, r->cpu_scan_gbps,    r->managed_seq_gbps,
                           r->host_shared_gbps};
    for (unsigned i = 0; i < sizeof rate / sizeof rate[0]; i++)
        if (!(rate[i] > 0.0) || isinf(rate[i]))
            return sgi_fail(err, SG_E_INVALID, "plan: rates must be finite and positive (%s)",
                            r->origin[0] ? r->origin : "rates given");
    return SG_OK;
}

/* Pass time for owner split index ci (vertices below pt_v[ci] are the GPU's). */
static void pass_time(const sg_plan_input *in, const sg_plan *p, const unsigned split_i[3],
                      unsigned ci, double *t_gpu_host, double *t_cpu, uint64_t *gpu_bytes,
                      uint64_t *cpu_bytes)
{
    double f[3];
    reads_per_byte(in, f);
    double tg = 0.0, tc = 0.0;
    uint64_t gb = 0, cb = 0;
    for (int k = 0; k < 3; k++) {
        if (f[k] == 0.0 || p->host_bytes[k] == 0) continue;
        const unsigned s = split_i[k];
        const uint64_t lo = bytes_below(in, k, s), total = array_bytes(in, k);
        const uint64_t at_c = ci > s ? bytes_below(in, k, ci) : lo;
        const uint64_t g = at_c - lo; /* the GPU's spilled bytes */
        const uint64_t c = total - at_c;
        double gr = p->spill_kind[k] == SG_SPILL_MANAGED ? in->rates.managed_rand_gbps
                                                          : in->rates.zc_rand_gbps;
        double cr = in->rates.cpu_scan_gbps;
        const bool hubs = !sgi_hub_free(in->n, in->m, in->max_degree);
        if (in->algo == SG_PLAN_SSSP && (p->spill_kind[k] == SG_SPILL_MANAGED || hubs))
            gr = (hubs ? SSSP_GPU_HOST_HUBS : SSSP_GPU_HOST) * in->rates.pcie_gbps;
        else if (in->algo == SG_PLAN_SSSP && p->gathered) /* gathered, and the side share */
            gr = SSSP_GATHER * in->rates.cpu_scan_gbps + SSSP_SIDE * in->rates.zc_rand_gbps;
        else if (in->algo == SG_PLAN_SSSP) /* in place: no room for the gather */
            gr = SSSP_ZC_HUBFREE * in->rates.zc_rand_gbps;
        if (in->algo == SG_PLAN_MST && !inplace_forest(in))
            gr = in->rates.managed_rand_gbps; /* the heads: either kind alike */
        double fk = f[k];
        if (in->algo == SG_PLAN_BFS) { /* the bottom-up heads, or each list once */
            if (bfs_bottom_up(in)) fk *= BFS_BOTTOM_UP_READ;
            gr = bfs_bottom_up(in) || p->spill_kind[k] != SG_SPILL_MANAGED
                     ? in->rates.zc_rand_gbps
                     : BFS_GPU_HOST * in->rates.pcie_gbps;
            if (p->gathered)
                gr = BFS_GATHER * in->rates.cpu_scan_gbps + /* the threads' gather */
                     BFS_SIDE * in->rates.zc_rand_gbps;     /* and the GPU's side share */
        }
        if (inplace_forest(in)) {
            /* The in-place forest's first round (its refills: forest_refill):
             * the GPU streams its share of the lists, the CPU threads take a
             * top-K of theirs, at the shares fitted per kind of graph, either
             * memory kind (above, FOREST_FILL_*). */
            const bool hf = forest_hub_free(in);
            gr = (hf ? FOREST_FILL_GPU_HUBFREE : FOREST_FILL_GPU_HUBS) * in->rates.pcie_gbps;
            cr = (hf ? FOREST_FILL_CPU_HUBFREE : FOREST_FILL_CPU_HUBS) * in->rates.cpu_scan_gbps;
        }
        tg += fk * (double)g / (gr * 1e9);
        tc += fk * (double)c / (cr * 1e9);
        gb += (uint64_t)(fk * (double)g);
        cb += (uint64_t)(fk * (double)c);
    }
    *t_gpu_host = tg;
    *t_cpu = tc;
    *gpu_bytes = gb;
    *cpu_bytes = cb;
}

/* The in-place forest's refills after the first round (FOREST_REFILL_*):
 * the GPU alone reads `passes` more of the lists, the device part at
 * FOREST_DEVICE_REFILL of `hbm_gbps`, the spilled part at a share of
 * `pcie_gbps`. */
static double forest_refill(const sg_plan_input *in, const sg_plan *p, double passes)
{
    double f[3];
    reads_per_byte(in, f);
    const double dev_gbps = FOREST_DEVICE_REFILL * in->rates.hbm_gbps;
    const double rr = (forest_hub_free(in) ? FOREST_REFILL_HUBFREE : FOREST_REFILL_HUBS) *
                      in->rates.pcie_gbps;
    double t = 0.0;
    for (int k = 0; k < 3; k++)
        t += f[k] * ((double)p->device_bytes[k] / (dev_gbps * 1e9) +
                     (double)p->host_bytes[k] / (rr * 1e9));
    return passes * t;
}

/* The host bytes both sides read at the shared rate (one host memory serves
 * both); 0 when only one side reads host memory. */
static double shared_time(const sg_plan_input *in, uint64_t gpu_bytes, uint64_t cpu_bytes)
{
    return gpu_bytes > 0 && cpu_bytes > 0
               ? (double)(gpu_bytes + cpu_bytes) / (in->rates.host_shared_gbps * 1e9)
               : 0.0;
}

sg_status sg_plan_make(const sg_plan_input *in, sg_plan *out, sg_error *err)
{
    if (!in || !out) return sgi_fail(err, SG_E_INVALID, "sg_plan_make: NULL argument");
    const sg_status cs = check_input(in, err);
    if (cs != SG_OK) return cs;
    sg_plan p;
    memset(&p, 0, sizeof p);
    p.algo = in->algo;
    /* the in-place forest keeps 57 bytes per vertex (kernels/mst.cu) */
    const uint64_t per_vertex = inplace_forest(in) ? 57 : work_per_vertex[in->algo];
    p.work_bytes = in->work_bytes ? in->work_bytes : per_vertex * in->n;
    const reserve_parts rv =
        in->executor_reserves ? executor_reserve(in, p.work_bytes) : (reserve_parts){0, 0, 0};
    p.work_bytes += rv.total;
    /* SSSP builds its light index, and gathers its settle passes over pinned
     * lists of a graph without hubs, where the reserve holds them (assumed
     * where the executors' reserves are not modelled) */
    const bool sssp_index =
        in->algo == SG_PLAN_SSSP && (!in->executor_reserves || rv.sssp_index > 0);
    const bool sssp_gather = in->algo == SG_PLAN_SSSP &&
                             sgi_hub_free(in->n, in->m, in->max_degree) &&
                             (!in->executor_reserves || rv.sssp_gather > 0);
    if (!in->forced && in->device_budget < p.work_bytes)
        return sgi_fail(err, SG_E_NOMEM,
                        "device budget %llu bytes is below the %s working arrays' %llu bytes "
                        "(%llu vertices): raise --device-mem",
                        (unsigned long long)in->device_budget, sg_plan_algo_name(in->algo),
                        (unsigned long long)p.work_bytes, (unsigned long long)in->n);
    double f[3];
    reads_per_byte(in, f);
    const bool uses_w = f[2] > 0.0;
    /* Groups in priority order: bit masks of the arrays split together. */
    unsigned groups[3], ng = 0;
    groups[ng++] = 1u << 0;
    if (joint_aw(in)) {
        groups[ng++] = (1u << 1) | (1u << 2);
    } else {
        groups[ng++] = 1u << 1;
        if (uses_w) groups[ng++] = 1u << 2;
    }
    unsigned split_i[3] = {0, 0, 0};
    uint64_t room = in->device_budget > p.work_bytes ? in->device_budget - p.work_bytes : 0;
    for (unsigned gi = 0; gi < ng && in->forced; gi++)
        for (int k = 0; k < 3; k++) {
            if (!(groups[gi] & (1u << k))) continue;
            unsigned i = 0;
            while (i < in->n_pts && in->pt_v[i] != in->forced_split[k]) i++;
            if (i == in->n_pts)
                return sgi_fail(err, SG_E_INVALID,
                                "forced split %llu of %s is not one of the breakpoints",
                                (unsigned long long)in->forced_split[k], k == 0 ? "X" : k == 1 ? "A" : "W");
            split_i[k] = i;
        }
    for (unsigned gi = 0; gi < ng && !in->forced; gi++) {
        const unsigned idx = fit_index(in, groups[gi], room);
        for (int k = 0; k < 3; k++)
            if (groups[gi] & (1u << k)) {
                split_i[k] = idx;
                room -= bytes_below(in, k, idx);
            }
        /* the arrays after a partly placed one get what is left */
    }
    if (!uses_w) split_i[2] = in->n_pts - 1; /* not loaded: nothing spills */
    for (int k = 0; k < 3; k++) {
        p.split[k] = in->pt_v[split_i[k]];
        const uint64_t total = (k == 2 && !uses_w) ? 0 : array_bytes(in, k);
        const uint64_t dev = (k == 2 && !uses_w) ? 0 : bytes_below(in, k, split_i[k]);
        p.device_bytes[k] = dev;
        p.host_bytes[k] = total - dev;
    }
    /* Memory kinds of the spilled parts, in priority order. */
    uint64_t cap = in->managed_cap, spilled = 0;
    for (unsigned gi = 0; gi < ng; gi++)
        for (int k = 0; k < 3; k++) {
            if (!(groups[gi] & (1u << k)) || p.host_bytes[k] == 0) continue;
            spilled += p.host_bytes[k];
            if (p.host_bytes[k] <= cap) {
                p.spill_kind[k] = SG_SPILL_MANAGED;
                cap -= p.host_bytes[k];
            } else {
                p.spill_kind[k] = SG_SPILL_PINNED;
            }
        }
    /* the CPU threads gather pinned host lists for the GPU: SSSP's settle
     * passes (above), BFS's top-down steps of an undirected graph */
    p.gathered = p.spill_kind[1] == SG_SPILL_PINNED &&
                 (sssp_gather || (in->algo == SG_PLAN_BFS && !bfs_bottom_up(in) && !in->directed));
    if (in->host_bytes && spilled > in->host_bytes)
        return sgi_fail(err, SG_E_NOMEM,
                        "the spilled %llu bytes do not fit the %llu bytes of host memory given",
                        (unsigned long long)spilled, (unsigned long long)in->host_bytes);
    /* Device time per pass (the in-place forest's walks and SSSP's rounds
     * below HBM rate). */
    const double dev_gbps = in->rates.hbm_gbps * (inplace_forest(in)           ? FOREST_DEVICE_WALK
                                                  : in->algo == SG_PLAN_SSSP ? SSSP_DEVICE
                                                                             : 1.0);
    double td = 0.0;
    for (int k = 0; k < 3; k++) {
        td += f[k] * (double)p.device_bytes[k] / (dev_gbps * 1e9);
        p.t_upload += (double)p.device_bytes[k] / (in->rates.pcie_gbps * 1e9);
    }
    /* Owner split: the breakpoint from the lowest split up minimising the pass. */
    unsigned lo_i = split_i[0];
    for (int k = 1; k < 3; k++)
        if (f[k] > 0.0 && split_i[k] < lo_i) lo_i = split_i[k];
    /* By the pass time with the shared rate, then by the two sides' own
     * times (where the shared rate bounds several splits alike, the most
     * balanced of them). */
    double best = INFINITY, best_own = INFINITY;
    unsigned best_c = in->n_pts - 1;
    const bool gpu_all = in->gpu_reads_all || forest_heads(in); /* the heads: no CPU share */
    for (unsigned ci = gpu_all ? in->n_pts - 1 : lo_i; ci < in->n_pts; ci++) {
        double tg, tc;
        uint64_t gb, cb;
        pass_time(in, &p, split_i, ci, &tg, &tc, &gb, &cb);
        const double own = fmax(td + tg, tc), t = fmax(own, shared_time(in, gb, cb));
        if (t < best || (t == best && own < best_own)) {
            best = t;
            best_own = own;
            best_c = ci;
        }
    }
    double tg, tc;
    uint64_t gb, cb;
    pass_time(in, &p, split_i, best_c, &tg, &tc, &gb, &cb);
    p.host_begin = in->pt_v[lo_i];
    p.gpu_host_end = in->pt_v[best_c];
    p.cpu_share = gb + cb ? (double)cb / (double)(gb + cb) : 0.0;
    p.t_device = td;
    p.t_gpu_host = tg;
    p.t_cpu = tc;
    p.t_shared = shared_time(in, gb, cb);
    p.pcie_bytes_per_pass = gb;
    p.predicted_pass_s = fmax(fmax(td + tg, tc), p.t_shared);
    p.passes = model_passes(in);
    p.forest_heads = forest_heads(in);
    /* (the speculative contraction, above) */
    p.forest_spec = in->forest_spec && forest_hub_free(in) && p.host_bytes[1] > 0;
    if (inplace_forest(in)) { /* the first round at pass_s, then its refills */
        p.refill_passes = p.forest_spec ? FOREST_SPEC_REFILL_PASSES : p.passes - 1.0;
        p.passes = 1.0;
        p.t_refill = forest_refill(in, &p, p.refill_passes);
        if (p.forest_spec) { /* the gather's weights deferred as kernels/mst.cu defers them */
            const bool defer = in->forest_defer && p.gpu_host_end < in->n &&
                               in->m - in->pt_e[split_i[1]] <= UINT32_MAX;
            const double rate = p.spill_kind[1] == SG_SPILL_MANAGED ? FOREST_SPEC_GATHER_MANAGED
                                : defer                             ? FOREST_SPEC_GATHER_PINNED
                                                                    : FOREST_SPEC_GATHER_UNDEFERRED;
            p.t_refill += (double)p.host_bytes[1] / (rate * in->rates.pcie_gbps * 1e9);
        }
    }
    if (in->algo == SG_PLAN_MST) { /* either in-place forest's rounds over the vertices */
        const double rounds =
            p.forest_spec ? FOREST_SPEC_ROUNDS
                          : ceil(log2((double)(in->n > 2 ? in->n : 2)) /
                                 (forest_hub_free(in) ? 2.0 : 4.0));
        p.t_rounds = rounds * (double)in->n * FOREST_ROUND_S;
    }
    if (sssp_index) /* the light index's build, GPU and CPU threads: W and A once */
        p.t_index = ((double)p.host_bytes[2] + (double)p.host_bytes[1]) /
                    (SSSP_INDEX_SHARED * in->rates.host_shared_gbps * 1e9);
    else if (in->algo == SG_PLAN_SSSP && p.host_bytes[1] + p.host_bytes[2] > 0)
        p.passes = SSSP_NO_INDEX_PASSES;
    const double result_bytes = in->algo == SG_PLAN_BFS    ? 4.0 * (double)in->n
                                : in->algo == SG_PLAN_SSSP ? 8.0 * (double)in->n
                                                           : 0.0;
    p.t_result = result_bytes / (in->rates.pcie_gbps * 1e9);
    if (in->algo != SG_PLAN_MST) {
        p.steps = in->steps;
        p.t_steps = (double)in->steps * (in->algo == SG_PLAN_BFS ? BFS_LEVEL_S : SSSP_ROUND_S);
    }
    p.predicted_s = p.passes * p.predicted_pass_s + p.t_refill + p.t_rounds + p.t_index +
                    p.t_result + p.t_steps;
    p.managed_bytes = in->managed_cap - cap;
    p.hint_degree_asc = in->degree_order == SG_PLAN_DEGREES_OTHER && p.host_bytes[1] > 0 &&
                        in->max_degree > 0 && !sgi_hub_free(in->n, in->m, in->max_degree) &&
                        !p.forest_heads;
    snprintf(p.rates_origin, sizeof p.rates_origin, "%s",
             in->rates.origin[0] ? in->rates.origin : "rates given");
    *out = p;
    return SG_OK;
}
