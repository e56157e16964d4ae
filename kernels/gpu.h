/* spillgraph — the plain-C gateway to the CUDA code in kernels/.
 *
 * No CUDA type crosses this header. src/ calls these only when the build
 * has CUDA (SG_HAVE_CUDA in sg_config.h); without it src/ never links them.
 * Every CUDA call and every launch is checked; failures return SG_E_DEVICE
 * with the call, CUDA's error name and message in err. Device memory that
 * the budget cannot hold is SG_E_NOMEM naming what was being allocated,
 * the bytes asked, those in use and the budget.
 *
 * Layers: device.cu (discovery, self-test, pinned host memory), context.cu
 * (the device context: memory accountant, streams, staged uploads, device
 * graphs), mst.cu, sssp.cu, bfs.cu (the algorithms). Shared CUDA-side
 * helpers live in kinternal.cuh, never included from C. */
#ifndef SG_KERNELS_GPU_H
#define SG_KERNELS_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sg_common.h" /* sgi_hub_free */
#include "sg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sgk_device_info {
    int index;
    char name[128];
    int cc_major, cc_minor;
    int sm_count;
    uint64_t total_bytes;
    uint64_t free_bytes;
    uint64_t l2_bytes;
    int driver_version, runtime_version;
    char module_loading[8]; /* "eager", "lazy" or "unknown": sgk_module_loading() */
} sgk_device_info;

/* Called before the process's first CUDA call (each sgk_ entry point that
 * can be the first calls it): unless the environment already names a mode,
 * sets CUDA_MODULE_LOADING=EAGER, so that every kernel is loaded when the
 * context is made. Under CUDA's default lazy loading a kernel's first
 * launch loads it, and the load waits for all the device's work: a first
 * launch on one stream beside a pipeline on another drains the pipeline
 * (the forest's first round on SSCA2 26 took 11-21 ms longer lazily in
 * five of six pairs, docs/benchmarks.md, thirty-eighth session). Without
 * effect when the host program made its own CUDA calls first. */
void sgk_cuda_start(void);

/* The module loading mode in effect, as the driver reports it
 * (cuModuleGetLoadingMode): "eager", "lazy", or "unknown" when the driver
 * cannot say (no driver, or one without the call). */
const char *sgk_module_loading(void);

/* Number of usable CUDA devices; 0 when there is none or no driver (that is
 * not an error: the CPU path runs). */
int sgk_device_count(void);

/* Facts about device `index`, including free memory now. */
sg_status sgk_device_query(int index, sgk_device_info *out, sg_error *err);

/* Copies n bytes host -> device -> host through a device buffer and checks
 * the round trip; returns the host->device rate in *gbps. A smoke test of
 * the whole toolchain (driver, runtime, allocation, copies, a kernel). */
sg_status sgk_selftest(int index, size_t n, double *gbps, sg_error *err);

/* The planner's GPU rates measured on device `index` with buffers of
 * `bytes` (>= 16 MiB; device, pinned host and managed memory of that size
 * each; SG_E_NOMEM when the device lacks that much free beyond
 * sgk_default_margin): streamed device reads, pinned host->device copies,
 * random 128-byte warp reads of pinned host memory and of managed memory
 * with preferred-location-host / accessed-by hints, streamed reads of that
 * managed memory; GB/s, best of three (kernels/calibrate.cu). Then the
 * same streamed reads while `threads` OpenMP threads (0: OpenMP's default)
 * scan the pinned buffer: shared_gpu_gbps and shared_cpu_gbps, each side's
 * rate over the same ~0.5 s, whose sum is what the host memory gives both
 * together. */
typedef struct sgk_calibration {
    double hbm_gbps, pcie_gbps, zc_rand_gbps, managed_rand_gbps, managed_seq_gbps;
    double shared_gpu_gbps, shared_cpu_gbps;
    uint64_t bytes;
} sgk_calibration;
sg_status sgk_calibrate(int index, uint64_t bytes, int threads, sgk_calibration *out,
                        sg_error *err);

/* Page-locked host memory (cudaHostAlloc, portable and mapped), for small
 * buffers that are copied to the device or read by it in place (counters);
 * a graph's arrays are plain memory registered in place instead
 * (sgk_host_pin: cudaHostAlloc pins page by page on one thread, src/graph.c).
 * *out is set only on success. SG_E_DEVICE with CUDA's message (no driver,
 * no device, out of pinnable memory). Free with sgk_host_free (accepts
 * NULL). */
sg_status sgk_host_alloc(size_t bytes, void **out, sg_error *err);
void sgk_host_free(void *p);

/* ------------------------------------------------------------ device context
 *
 * One context per run: the device, two streams (compute and copy), the
 * memory accountant and two pinned staging buffers. Every device allocation
 * of spillgraph goes through the accountant (sgk_alloc in kinternal.cuh),
 * so a run can be held to a budget and report its peak. Not thread-safe:
 * one host thread drives a context. */
typedef struct sgk_ctx sgk_ctx;

/* The margin a default budget leaves free: max(256 MiB, 3% of the device). */
uint64_t sgk_default_margin(uint64_t total_bytes);

/* Opens device `index` with a budget of `budget` bytes (0: the device's free
 * memory now less sgk_default_margin). A budget above the free memory is
 * SG_E_INVALID naming both. SG_E_DEVICE when there is no such device. */
sg_status sgk_ctx_create(int index, uint64_t budget, sgk_ctx **out, sg_error *err);
/* Frees everything the context still holds (accepts NULL). */
void sgk_ctx_free(sgk_ctx *c);

typedef struct sgk_mem_stats {
    uint64_t budget;          /* bytes the accountant allows */
    uint64_t in_use;          /* bytes allocated now */
    uint64_t peak;            /* most bytes allocated at once since creation
                               * (or the last sgk_ctx_reset_peak) */
    uint64_t allocations;     /* calls that succeeded */
    uint64_t refused;         /* calls refused by the budget */
} sgk_mem_stats;
void sgk_ctx_mem(const sgk_ctx *c, sgk_mem_stats *out);
void sgk_ctx_reset_peak(sgk_ctx *c);
/* The device's name and index, for reports. */
const char *sgk_ctx_device_name(const sgk_ctx *c);
int sgk_ctx_device_index(const sgk_ctx *c);

/* Optimisations can be switched off one by one for measurement: the
 * environment variable SPILLGRAPH_GPU_DISABLE holds a comma-separated list
 * of names (each algorithm documents its own, docs/benchmarks.md lists
 * them); read once when the context is created. True when `name` is in it. */
bool sgk_ctx_disabled(const sgk_ctx *c, const char *name);
/* Opt-in experiments and diagnostics, the same way: true when `name` is in
 * SPILLGRAPH_GPU_ENABLE (read when the context is created) and not in
 * SPILLGRAPH_GPU_DISABLE. */
bool sgk_ctx_enabled(const sgk_ctx *c, const char *name);

/* The host threads the context's own host work may use (the staged copies'
 * host side, BFS's gather): the run's --threads; 0 (the default) is
 * OpenMP's default count. */
void sgk_ctx_set_threads(sgk_ctx *c, int threads);

/* ------------------------------------------------------------ staged uploads
 *
 * Two pinned staging buffers of SGK_STAGE_BYTES each. The loader decodes
 * (or copies) into one while the copy engine moves the other to the
 * device: begin -> fill buf -> copy (one or more ranges of it) -> end, in
 * turn; begin waits until that buffer's earlier copies are done. */
#define SGK_STAGE_BYTES ((size_t)64 << 20)

typedef struct sgk_stage {
    void *buf;                /* pinned, SGK_STAGE_BYTES */
    size_t cap;
    int slot;                 /* 0 or 1 */
} sgk_stage;

sg_status sgk_stage_begin(sgk_ctx *c, sgk_stage *out, sg_error *err);
/* Queues an asynchronous copy of buf[off, off + bytes) to device address
 * dst (from sgk_graph_device_arrays). */
sg_status sgk_stage_copy(sgk_ctx *c, const sgk_stage *s, size_t off, void *dst, size_t bytes,
                         sg_error *err);
sg_status sgk_stage_end(sgk_ctx *c, const sgk_stage *s, sg_error *err);
/* Waits for every queued copy. *bytes, *seconds and *span (each may be
 * NULL) get the bytes copied since the last finish, the copy engine's busy
 * time for them (the sum, over buffer fills, of the time from a fill's
 * first copy starting to its last ending) and the time from the first
 * copy's start to the last one's end, gaps included (cudaEvent timing). */
sg_status sgk_stage_finish(sgk_ctx *c, uint64_t *bytes, double *seconds, double *span,
                           sg_error *err);

/* Copies `bytes` of ordinary host memory to device address dst through the
 * staging buffers (memcpy into one while the other is on the wire). */
sg_status sgk_upload(sgk_ctx *c, void *dst, const void *src, size_t bytes, sg_error *err);

/* Copies `bytes` from device address src to ordinary (pageable) host
 * memory dst through the staging buffers: the copy engine fills one
 * (cudaMemcpyAsync on the compute stream, so it follows the kernels queued
 * there) while host threads (OpenMP) copy the other out. Much faster than
 * a cudaMemcpy into pageable memory. A page-locked dst (registered or
 * pinned) takes one DMA on the compute stream instead. Returns when dst
 * holds the data. Its
 * time is summed in the context (sgk_download_us): waiting for the pieces
 * and copying them out. */
sg_status sgk_download(sgk_ctx *c, void *dst, const void *src, size_t bytes, sg_error *err);
/* The downloads' time so far (microseconds): *wait for the copy engine's
 * pieces, *copy the host threads' copies out of the staging buffers. */
void sgk_download_us(const sgk_ctx *c, uint64_t *wait, uint64_t *copy);

/* ------------------------------------------------------------ device graphs
 *
 * A CSR graph in device memory, the layout of sg_graph: X (n + 1 uint64_t),
 * A (m uint32_t), W (m uint32_t words: u32 weights or f32 bits; absent when
 * has_weights is false). Allocated through the accountant as "the offsets
 * (X)", "the neighbours (A)", "the weights (W)". */
typedef struct sgk_graph_desc {
    uint64_t n, m;
    uint64_t max_degree;
    bool directed;
    bool f32;                 /* weights are floats (else u32) */
    bool has_weights;
    bool weight_order;        /* each list by (weight key, neighbour): the forest
                               * skips its sort (sgk_mst) and reads lists from
                               * their heads in place (sgk_mst_inplace) */
    /* Split placement (the hybrid backend): with split set, only the first
     * x_dev entries of X, a_dev of A and w_dev of W are allocated on the
     * device (each at a vertex boundary: x_dev = v + 1 keeps the offsets of
     * vertices below v, a_dev = X[v'] the lists of vertices below v'); the
     * kernels read the rest from the host arrays given to
     * sgk_graph_set_host. Without split everything is on the device. */
    bool split;
    uint64_t x_dev, a_dev, w_dev;
    bool w24;                 /* u32 weights below 2^24 held as two arrays, W16 (the
                               * low 16 bits) and W8 (bits 16-23), on the device
                               * (w_dev entries of each) and on the host
                               * (sgk_graph_set_host_w24): read only by the hybrid
                               * forest (sgk_mst_inplace); the other kernels refuse
                               * such a graph */
} sgk_graph_desc;

typedef struct sgk_graph sgk_graph;

/* Allocates the device arrays (all of them, or the prefixes of a split
 * desc; entries counts beyond the array are SG_E_INVALID). */
sg_status sgk_graph_create(sgk_ctx *c, const sgk_graph_desc *d, sgk_graph **out, sg_error *err);
/* The whole arrays in host memory the device can read (pinned and mapped,
 * registered, or managed), for a split graph: the kernels read entries past
 * the device prefixes there. W may be NULL without weights. Pointers the
 * device cannot reach are SG_E_INVALID naming the array. */
sg_status sgk_graph_set_host(sgk_graph *g, const uint64_t *x, const uint32_t *a,
                             const uint32_t *w, sg_error *err);
/* A desc.w24 graph's host weights (its w to sgk_graph_set_host is NULL): the
 * whole W16 and W8, pinned (not managed: the forest's streamed pieces copy
 * them by DMA), else SG_E_INVALID naming the array. */
sg_status sgk_graph_set_host_w24(sgk_graph *g, const uint16_t *w16, const uint8_t *w8,
                                 sg_error *err);
/* The forest's packed tail (docs/plan.md): the host entries [from, m) of a
 * split graph with u32 weights also as 48-bit entries, w << idbits | nb, 6
 * bytes each at e + 6 p (kernels/cpu_topk.h, sgk_e48_pack), in pinned
 * memory addressable for p in [from, m) and 2 bytes past. The in-place
 * forest's first round then copies the GPU's pieces from it, one DMA a
 * piece, 6 bytes an entry where A and W take 8; with `cpu` its CPU threads
 * read it too (else A and W: their top-K over 48-bit entries is slower on
 * the H100 host's 16 threads, docs/benchmarks.md). SG_E_INVALID where e is
 * not pinned, from is past m, idbits do not hold n's ids, or the graph has
 * f32 weights or none. NULL e drops it. */
sg_status sgk_graph_set_packed(sgk_graph *g, const uint8_t *e, uint64_t from, int idbits,
                               bool cpu, sg_error *err);

/* Host memory the device reads in place, for the spilled arrays:
 * sgk_managed_alloc is managed memory advised to live on the host
 * (preferred location host, accessed by `device`: the GPU maps it with
 * large pages and reads it over PCIe without migrating it);
 * sgk_host_register pins and maps ordinary memory in place
 * (cudaHostRegister), undone by sgk_host_unregister. */
sg_status sgk_managed_alloc(int device, size_t bytes, void **out, sg_error *err);
void sgk_managed_free(void *p);
sg_status sgk_host_register(void *p, size_t bytes, sg_error *err);
/* sgk_host_register from a thread of its own: makes `device` the thread's
 * current one first (a result pinned while the graph loads, so that its
 * download is one DMA: src/result_mem.c). */
sg_status sgk_host_pin(int device, void *p, size_t bytes, sg_error *err);
void sgk_host_unregister(void *p);
/* Accepts NULL; returns the memory to the accountant of the context it was
 * created with (which must still exist). */
void sgk_graph_free(sgk_graph *g);
const sgk_graph_desc *sgk_graph_get_desc(const sgk_graph *g);
/* Device bytes an executor keeps with g between its calls (0 when none):
 * SSSP's light index, which the next SSSP call on g with the same delta
 * asked reuses instead of building again, or BFS's working arrays, which
 * the next BFS with the same parents setting reuses instead of allocating
 * them again. sgk_graph_drop_kept frees them; each kernel does for what
 * another kept, the engine before the other algorithms, and the planner
 * counts those bytes as the graph's (they go when it goes). */
uint64_t sgk_graph_kept_bytes(const sgk_graph *g);
void sgk_graph_drop_kept(const sgk_graph *g);
/* Device addresses of X, A, W (W NULL without weights or with 24-bit ones),
 * for uploads; sgk_graph_device_w24 those of W16 and W8 (NULL without). */
void sgk_graph_device_arrays(sgk_graph *g, void **x, void **a, void **w);
void sgk_graph_device_w24(sgk_graph *g, uint16_t **w16, uint8_t **w8);

/* ------------------------------------------------------------ algorithms
 *
 * Each returns SG_OK with its results in host arrays the caller owns, and
 * counters and timings in *stats. Device memory is allocated through the
 * context's accountant and released before return, on success and failure
 * alike; SG_E_NOMEM when the budget is too small (naming the array). */

/* Counters a call may set: SSSP's near-far sets 58 (its gathered settle
 * passes took it past the 48 there were, and sgk_stats_set dropped the last
 * ones, preprocess_host_bytes among them, until test_settle_gather's check
 * of the counters failed; forty-second session). */
#define SGK_MAX_STATS 128
typedef struct sgk_stats {
    unsigned n;                          /* counters filled */
    const char *name[SGK_MAX_STATS];     /* string literals */
    uint64_t value[SGK_MAX_STATS];
    double seconds_preprocess;           /* host wall clock around synchronised work */
    double seconds_compute;
    double delta;                        /* sgk_sssp: the bucket width used (0 for
                                          * Bellman-Ford), exactly */
} sgk_stats;

/* Adds or sets counter `name` (a string literal) in s. */
void sgk_stats_set(sgk_stats *s, const char *name, uint64_t value);

/* Minimum spanning forest by Borůvka (kernels/mst.cu has the method). The
 * graph must be undirected with weights. Edges are written to u[i] < v[i],
 * w[i] (weight bits, as in the graph) for i < *n_edges, in the canonical
 * order (weight key, u, v) when the counter "forest_sorted" is 1 (sorted
 * on the device; 0 for more than 2^31 - 1 edges: any order); capacity
 * n - 1 (n >= 1). The forest equals Kruskal's under the tie rule
 * (weight, min(u,v), max(u,v)) with f32 weights compared as floats.
 * Counters: "iterations", "edges_skipped", "segments_scanned",
 * "contractions", "contracted_edges", "download_bytes" (the forest's 12
 * bytes per edge copied back). Disable names: "first-probe",
 * "contract", "unsorted-trees" (see mst.cu). */
sg_status sgk_mst(sgk_ctx *c, const sgk_graph *g, uint32_t *u, uint32_t *v, uint32_t *w,
                  uint64_t *n_edges, sgk_stats *stats, sg_error *err);
/* Device bytes sgk_mst needs at its peak, graph arrays not included. */
uint64_t sgk_mst_bytes(uint64_t n, uint64_t m);
/* The same forest over a split graph (the hybrid backend; any split,
 * "all on the device" included): the lists are read where they live, in
 * place and unsorted: all in the first round, later only those whose
 * vertex cache (the K lightest leaving entries, in the budget's free
 * memory) is spent and could beat its tree's minimum; once the edges
 * between trees fit the budget and their bound is at most m / 16 (as in
 * sgk_mst), the rest runs on a contracted list in device memory
 * (kernels/mst.cu, "the in-place executor"). Needs
 * sgk_mst_inplace_bytes(n, weight order) of device memory beside the graph's prefixes
 * (the cache takes only what is free beyond it). Counters as sgk_mst's,
 * plus "entries_read" (list entries read, summed over rounds),
 * "host_list_bytes" (bytes of A and W read from host memory: over PCIe),
 * "cache_slots" (K, 0 without a cache), "lists_refilled", and
 * "streamed_bytes" / "streamed_pieces" (the first round's host entries
 * copied to device buffers by DMA while the walk reads the piece before).
 * On a graph with hubs (!sgi_hub_free) the streamed walk reads the weights
 * first: W is copied whole, and a warp tile of 256 entries of one list
 * reads A in place only for the entries that can be among its K lightest;
 * counters "first_sparse_tiles" (such tiles) and "first_loop_tiles" (those
 * that read A whole: a self-loop among the candidates). The first round's
 * device prefix is walked the same way, in device memory (counters
 * "prefix_sparse_tiles", "prefix_loop_tiles"). On a graph without hubs
 * the walks that fill the cache (the first round's and every refill) keep
 * each list's K lightest leaving entries by rank: each entry counts those
 * of its list in its tile that come before it, and a list the tile holds
 * whole is stored with no atomic (counter "rank_fill_tiles").
 * Lists in weight order (desc.weight_order) on a graph with hubs are read
 * from their heads instead (the K lightest leaving entries are the first K
 * leaving ones), counter "weight_order" 1. Disable names: "vertex-cache",
 * "wide-cache" (one slot), "stream-first" (read them in place), "dma-pull"
 * (copy them with a kernel), "dma-queue" (beside a CPU share, DMA pieces
 * on a stream of their own, not on the context's copy stream in pieces of
 * at most 4 M entries), "weights-first" (A and W copied whole, every
 * entry walked), "first-occupancy" (that walk in 96 registers, not 80),
 * "prefix-first" (the device prefix's every entry walked), "fill-rank"
 * (the fills without hubs offer every leaving entry through warp-wide
 * exchanges and atomics, as on graphs with hubs), "refill-pick" (after a
 * later round's refill every vertex's candidate is picked again, not the
 * refilled vertices' alone; counter "picks_skipped"), "refill-minima"
 * (after a refill the minima are taken over every vertex again, not from
 * the refilled vertices' new candidates and the minima before; counter
 * "minima_refilled"),
 * "contract", "contract-gate" (a test mode: contracted as soon as the
 * edges fit), "weight-order" (whole lists always),
 * "heads-rule" (the heads on any graph in weight order). Enable names
 * (sgk_ctx_enabled): "gather-probe" (a diagnostic: after each later round
 * the contraction's walk with nothing written, counters
 * "gather_probe_r<N>_edges" and "gather_probe_r<N>_us"), "spec-contract"
 * (an experiment: on a graph without hubs with few trees left, the
 * contraction tried into the room beside the vertex cache; counters
 * "spec_gathers", "spec_gathers_failed", "spec_gather_us") and
 * "spec-tiny" (a test mode: that room one edge). */
typedef struct sgk_cpu_share {
    uint64_t from;            /* vertices [from, n): the CPU threads' (n: none) */
    uint64_t low;             /* the lowest vertex they may take when the split moves
                               * ("dynamic-split"): low <= from */
    const uint64_t *x;        /* the graph's host arrays, addressable by the host */
    const uint32_t *a, *w;
    const uint16_t *w16;      /* 24-bit weights (desc.w24; w NULL): the low 16 bits... */
    const uint8_t *w8;        /* ...and bits 16-23 */
    int threads;              /* OpenMP threads */
    bool records48;           /* the forest's packed chunks (records) in 6-byte slots too
                               * (SPILLGRAPH_GPU_ENABLE=slots48-records); by default
                               * only the chunks of every vertex's slots go so */
    bool stream;              /* the forest's slots stored by non-temporal stores
                               * (SPILLGRAPH_GPU_ENABLE=slots-stream; no shorter on the
                               * H200 hosts, docs/benchmarks.md, forty-ninth session) */
    uint32_t *trees;          /* n words of host memory (pinned, for speed) for a copy of
                               * the trees: with it the CPU threads take part in the
                               * forest's speculative gather ("gather-cpu"); NULL: the
                               * GPU gathers alone */
} sgk_cpu_share;
/* share (may be NULL): the CPU threads' part of the first round, caches
 * filled from the host arrays while the GPU walks the other lists. The GPU
 * takes pieces of the host lists from the lowest up, the CPU threads
 * chunks of vertices from n down, until they meet (the split follows their
 * rates; never below `low`); with "dynamic-split" disabled the CPU takes
 * [from, n) and the GPU the rest. Their lists must lie past the device
 * prefixes of A and W (SG_E_INVALID otherwise). Counters "cpu_lists",
 * "cpu_long_lists" (those taken in blocks), "cpu_entries_read" and
 * "gpu_first_entries" (the entries the GPU walked in the first round: with
 * the CPU's, every entry once) and "cpu_upload_bytes" (the bytes the CPU
 * threads sent up); disable names "cpu-share", "dynamic-split",
 * "share-packed" (every vertex's cache slots sent, empty lists' too, not
 * the lists with entries packed with their vertices), "share-sparse"
 * (every chunk packed, not only those after a chunk with at most 3 lists
 * in 4 vertices; counters "cpu_chunks" and "cpu_chunks_packed"),
 * "share-chunks" (its chunks of at most 16 entries past their first
 * vertex, not a streamed piece's: many chunks on small graphs, for tests),
 * "topk-filter" (every list entry by entry), "topk-simd" (the CPU's top-K
 * scalar instead of AVX-512, kernels/cpu_topk.h), "topk-pairs" (its
 * lists of 17-64 entries one at a time, not two neighbours together),
 * "topk-prefetch" (its lists read without software prefetch), "walk-batch"
 * (the walks' reads entry by entry rather than a tile's issued together). */
sg_status sgk_mst_inplace(sgk_ctx *c, const sgk_graph *g, const sgk_cpu_share *share, uint32_t *u,
                          uint32_t *v, uint32_t *w, uint64_t *n_edges, sgk_stats *stats,
                          sg_error *err);
uint64_t sgk_mst_inplace_bytes(uint64_t n, bool weight_order);

typedef enum sgk_sssp_method {
    SGK_SSSP_BUCKETS = 0,     /* work-efficient frontier method (default) */
    SGK_SSSP_BELLMAN_FORD     /* edge-parallel Bellman-Ford (the reference paper) */
} sgk_sssp_method;

/* Shortest distances from `source` (< n; the graph has weights, none
 * negative). dist gets n words: u32 weights exact sums as uint64_t
 * (UINT64_MAX unreached); f32 weights the bits of a double computed as
 * dist[u] + (double)w along each path (the bits of +INFINITY unreached),
 * exactly the CPU path's arithmetic. delta: bucket width for the frontier
 * method (u32 graphs use floor(delta), at least 1; 0 = chosen by sssp.cu,
 * reported as counter "delta"); ignored by Bellman-Ford. Counters:
 * "iterations" (kernel rounds), "buckets", "far_splits", "settle_passes",
 * "relaxations" (edges whose target distance was read: relaxations tried),
 * "edges_scanned" (edges whose weight was read), "light_edges" (the light
 * index's size, 0 when none was built), "delta", "host_list_bytes" (4
 * bytes per A or W entry read from host memory: the weight sample, the
 * light index's or the edge list's build, the rounds) and
 * "preprocess_host_bytes" (its part before the rounds). share (may be
 * NULL; the near-far method only): the CPU threads' part of the light
 * index's build, the lists from share->low up (past the device prefixes of
 * A and W: SG_E_INVALID otherwise) counted and copied by the threads from
 * the host arrays while the GPU takes the rest, the two meeting where their
 * rates put them (at share->from with "dynamic-split" disabled); counters
 * "cpu_index_split" (the threads' first vertex; n when they took none),
 * "cpu_index_lists", "cpu_index_entries" (entries they read, every pass),
 * "cpu_index_light", "cpu_index_us", "cpu_index_sweeps" (the fused
 * pass's chunks they took in one sweep), "cpu_index_wait_us" (their waits
 * for staging room and copies), "cpu_index_ring_turns" (the moves of
 * their uploads' ring from one staging buffer to the other),
 * "cpu_upload_bytes" (their counts and light entries sent to the device)
 * and "gpu_index_pieces"; "index_fused"
 * (1: one fused pass built the index), "index_fused_us", "index_slots"
 * (the slots it had) and "index_moves" (copies moving the threads' part
 * down to the GPU's). The index stays with g after the call and the next
 * call with the same `delta` reuses it ("index_reused" 1; sgk_graph_kept_bytes).
 * Disable names:
 * "bucket-balance", "prefilter", "far-window", "defer-heavy",
 * "light-index", "done-bits", "wide-delta", "wider-delta", "cpu-light" (the GPU builds the
 * whole index), "light-sweep" (the fused pass's CPU share counts, then
 * tallies and copies each chunk), "light-prefetch" (its CPU share without software
 * prefetch), "index-ring" (the CPU share's uploads through the staging
 * buffers in turn, on the copy stream, not a ring queued on the compute
 * stream), "dynamic-split", "fused-index" (a count and a fill instead
 * of one pass), "settle-sort" (settle passes in the
 * rounds' order, not sorted by id; counter "settle_sorted" counts the
 * sorted ones), "keep-index" (the index is freed at the end of the call),
 * "device-rounds" (every near round from the host; counters "device_rounds"
 * and "device_loops" count the rounds run in the device loop and its
 * launches), "device-buckets" (the loop runs near rounds only; counters
 * "device_settles" and "device_splits" count the settle passes and mid
 * splits it ran), "bf-ldg", "bf-segments" (see sssp.cu).
 * *reached and *max_bits get the summary (the vertices with
 * a finite distance, the largest finite distance's bits), computed on the
 * device; "download_us" and "download_bytes" say what the result's copy
 * took. Directed graphs relax out-edges only. */
sg_status sgk_sssp(sgk_ctx *c, const sgk_graph *g, uint32_t source, sgk_sssp_method method,
                   double delta, const sgk_cpu_share *share, uint64_t *dist, uint64_t *reached,
                   uint64_t *max_bits, sgk_stats *stats, sg_error *err);
uint64_t sgk_sssp_bytes(uint64_t n, uint64_t m, sgk_sssp_method method);

/* Whether the automatic SSSP width may be doubled for this graph: no hub,
 * the largest degree under 16 times the mean (m / n). Hub-free graphs
 * (SSCA2, grids, uniform random ones) run many small rounds, which wider
 * buckets cut; R-MAT's hubs give few large rounds, and there the doubled
 * width cost 4-9 % at a 6 GiB budget (sssp.cu, "automatic delta"). The
 * hybrid plan keeps room for the doubled width's light index only then. */
static inline bool sgk_sssp_wide_ok(uint64_t n, uint64_t m, uint64_t max_degree)
{
    return sgi_hub_free(n, m, max_degree);
}

/* Breadth-first search levels from `source` (< n) along out-edges;
 * level[v] = UINT32_MAX when unreached. With parent non-NULL, parent[v] is
 * a neighbour one level up (parent[source] = source, UINT32_MAX unreached).
 * Undirected graphs switch to bottom-up steps by Beamer's rule (alpha,
 * beta > 0: the CPU path's meaning); directed ones stay top-down.
 * reached / max_level: the vertices with a level and the largest level,
 * summed on the device. Counters: "top_down_steps", "bottom_up_steps",
 * "edges_examined", "host_list_bytes" (4 bytes per list entry read from
 * host memory: what the steps read over PCIe, before the bus's 32-byte
 * granularity), "download_us" (the summary and the results' download),
 * "ordered_steps" (top-down steps whose frontier was put in id order),
 * "work_reused" (1: the working arrays an earlier BFS on g kept). Disable
 * names: "bottom-up", "block-queue", "hub-queue", "frontier-order",
 * "keep-work" (the working arrays freed at the end of the call; see
 * bfs.cu). */
sg_status sgk_bfs(sgk_ctx *c, const sgk_graph *g, uint32_t source, int alpha, int beta,
                  uint32_t *level, uint32_t *parent, uint64_t *reached, uint32_t *max_level,
                  sgk_stats *stats, sg_error *err);
uint64_t sgk_bfs_bytes(uint64_t n, uint64_t m, bool parents);

#ifdef __cplusplus
}
#endif
#endif
