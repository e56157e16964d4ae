/* spillgraph src/ — internals shared by the files of src/ and by tests.
 * Not installed. Prefix sgi_. Includes only common/ and the public header.
 *
 * Note for tests: storage/ also has an "internal.h"; tests include this one
 * as "../src/internal.h". */
#ifndef SG_SRC_INTERNAL_H
#define SG_SRC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sg_common.h"
#include "spillgraph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ run and graph internals */

struct sg_run {
    sg_backend backend;           /* resolved, never AUTO; after an algorithm call, the
                                   * backend it used */
    sg_backend requested;         /* as asked (AUTO allows falling back to cpu) */
    int device;                   /* GPU index */
    uint64_t device_mem;          /* budget asked (0 = free less a margin) */
    void *gpu;                    /* sgk_ctx *, made at the first GPU use */
    void *dgraph;                 /* sgk_graph *: the device copy of one graph */
    uint64_t dgraph_uid;          /* sg_graph.uid it mirrors (0 = none) */
    bool dgraph_weights;          /* it holds W */
    uint64_t upload_bytes;        /* graph bytes copied to the device */
    double upload_seconds;
    char fallback[160];           /* why auto ran the last call on the cpu */
    bool force_split;             /* sg_run_options.split: the hybrid device prefixes */
    uint64_t split[3];
    uint64_t plan_steps[2];       /* sg_run_options.plan_steps: BFS, SSSP */
    bool has_plan;                /* the last call ran hybrid with `plan` */
    sg_plan plan;
    double hybrid_seconds;        /* its measured time (the device call) */
    bool dgraph_split;            /* the device copy is a hybrid split one */
    void *e48;                    /* the forest's packed tail for the split copy
                                   * (src/gpu_engine.c, packed_ensure), or NULL: */
    size_t e48_pin_off;           /* pinned from this byte on */
    int threads;                  /* > 0 */
    sg_progress_fn progress;      /* may be NULL */
    void *progress_ctx;
    double seconds[SG_NPHASES];
    unsigned n_counters;
    const char *counter_name[SG_RUN_MAX_COUNTERS];
    uint64_t counter_value[SG_RUN_MAX_COUNTERS];
    const uint64_t *orig;         /* sg_run_name_vertices: borrowed, orig_n values */
    uint64_t orig_n;
    void *cpu_kept;               /* host arrays an algorithm keeps for its next call on
                                   * the cpu (src/bfs.c), freed by cpu_kept_free with the
                                   * run or when another kind is kept */
    void (*cpu_kept_free)(void *);
    sg_bfs_result *prep_bfs;      /* sg_graph_options.prepare: the next search's result, */
    sg_sssp_result *prep_sssp;    /* faulted in while graph prep_uid loaded */
    sg_forest *prep_forest;
    uint32_t *prep_trees;         /* with prep_forest: n words pinned for the GPU forest's
                                   * copy of its trees (sgk_cpu_share.trees) */
    uint64_t prep_uid;
};

/* sg_graph_options.prepare (result_mem.c): a result for a graph of n
 * vertices whose pages a helper thread faults in, and pins for GPU
 * `pin_device`'s DMA when it is >= 0 (arrays of 2 MiB or more; unpinned
 * by sg_bfs_free / sg_sssp_free / sg_forest_free; the switch "prepare-pin" off: not
 * pinned). start allocates it and
 * starts the thread (no thread, and the pages left to the search, when one
 * cannot be made; SG_E_NOMEM when the result cannot be allocated); finish
 * joins it and hands the result to the run for graph `uid` (drop: frees
 * it instead, on a failed load). */
typedef struct sgi_prefault sgi_prefault;
/* Whether optimisation switch `name` is turned off for this process
 * (SPILLGRAPH_GPU_DISABLE=name,...: docs/design.md; the name "prepare" is
 * read here, for either backend). */
bool sgi_switch_off(const char *name);
/* Whether experimental path `name` is turned on for this process
 * (SPILLGRAPH_GPU_ENABLE=name,...: docs/design.md) and not off: the forest's
 * packed tail ("packed-tail", and "packed-cpu" for its CPU threads too;
 * src/gpu_engine.c). */
bool sgi_switch_on(const char *name);
sg_status sgi_prefault_start(const sg_graph_options *opt, uint64_t n, sg_weight_type wt,
                             int pin_device, sgi_prefault **out, sg_error *err);
void sgi_prefault_finish(sgi_prefault *p, sg_run *run, uint64_t uid);
void sgi_prefault_drop(sgi_prefault *p);
/* The run's prepared result for a search on g with(out) parents, taken
 * (the caller owns it), or NULL: none, or one that does not match (freed). */
sg_bfs_result *sgi_take_prepared_bfs(sg_run *run, const sg_graph *g, bool parents);
sg_sssp_result *sgi_take_prepared_sssp(sg_run *run, const sg_graph *g, bool parents);
/* The run's prepared forest for g (its arrays for n - 1 edges, none yet),
 * taken, or NULL, as above. */
sg_forest *sgi_take_prepared_forest(sg_run *run, const sg_graph *g);
/* With the prepared forest, for a run on a GPU with the experiment
 * "gather-cpu" enabled: n words of host memory, faulted in and pinned
 * (where n words are 2 MiB or more), for the GPU forest's copy of its
 * trees (sgk_cpu_share.trees), taken (call it before
 * sgi_take_prepared_forest, which drops it), or NULL; free it with
 * sgi_trees_free. */
uint32_t *sgi_take_prepared_trees(sg_run *run, const sg_graph *g);
void sgi_trees_free(uint32_t *trees);
/* Frees the run's prepared results (accepts none). */
void sgi_run_drop_prepared(sg_run *run);

/* Frees what the run keeps for a cpu algorithm's next call (accepts none). */
void sgi_run_drop_kept(sg_run *r);

/* Reports progress through the run's callback, if any. */
void sgi_run_progress(const sg_run *r, const char *phase, double fraction);

struct sg_graph {
    uint64_t n, m;                /* vertices, directed edges (= x[n]) */
    uint64_t max_degree;
    uint64_t degree_descents;     /* vertices of lower degree than the one before */
    bool directed;
    bool negative_weights;
    bool weight_order;            /* lists by (weight key, neighbour): the store's
                                   * weight order (renumber --lists weight) */
    sg_weight_type wt;            /* valid even when w == NULL (U32 then) */
    sg_mem_kind mem;              /* never AUTO */
    unsigned pinned;              /* which arrays are registered with the device (1 X,
                                   * 2 A, 4 W, 8 W16, 16 W8): a pinned graph's, or a
                                   * plain graph's pinned in place for a hybrid run */
    struct sgi_pinning *pinning;  /* SG_MEM_PINNED: A and W being registered beside
                                   * the load (graph.c), or NULL */
    uint64_t *x;                  /* n + 1 */
    uint32_t *a;                  /* m */
    void *w;                      /* m (uint32_t or float), or NULL */
    uint16_t *w16;                /* 24-bit weights (sg_graph_options.narrow_weights):
                                   * their low 16 bits (m), with w NULL; or NULL */
    uint8_t *w8;                  /* ...and their bits 16-23 (m) */
    char *source;                 /* store path or "memory" */
    uint64_t *orig;               /* original ids (n), or NULL */
    uint64_t uid;                 /* unique per handle in the process (device copies
                                   * are matched by it, never by address) */
};

/* Whether g has weights (32-bit ones in w, or 24-bit ones in w16 and w8). */
static inline bool sgi_graph_has_w(const sg_graph *g) { return g->w || g->w16; }

/* The bits of edge p's weight (u32, or f32 bits), whichever way g holds them. */
static inline uint32_t sgi_graph_w_at(const sg_graph *g, uint64_t p)
{
    return g->w ? ((const uint32_t *)g->w)[p] : (uint32_t)g->w16[p] | (uint32_t)g->w8[p] << 16;
}

/* SG_E_UNSUPPORTED for `what` ("shortest paths") on a graph whose weights
 * are held in 24 bits, which only the hybrid backend's forest (and BFS,
 * Kruskal's oracle) reads; SG_OK on any other graph. */
sg_status sgi_narrow_refused(const sg_graph *g, const char *what, sg_error *err);

/* Faults in every page of [p, p + bytes) by a write of 0 to one byte a 4
 * KiB page (in 2 MiB pages the first write takes the whole page): from
 * every OpenMP thread at once, or from the caller's alone. */
void sgi_touch_pages(void *p, size_t bytes, bool all_threads);

/* Makes g's arrays readable by the GPU in place: plain ones are pinned
 * where they are (cudaHostRegister, undone by sg_graph_free); pinned and
 * managed ones already are. */
sg_status sgi_graph_device_readable(sg_graph *g, sg_error *err);

/* The host memory kind SG_MEM_AUTO resolves to for a graph of `bytes` on
 * this run (gpu_engine.c): plain unless the run may use a GPU and the
 * graph does not fit the device budget; then managed when it fits under
 * the managed cap, else pinned. */
sg_mem_kind sgi_gpu_host_kind(sg_run *run, uint64_t bytes);

/* Managed memory forced for a graph of `bytes` (gpu_engine.c): SG_OK when
 * the run's device has that much free beyond the margin, else SG_E_NOMEM
 * naming `path`, the sizes and the way out (managed memory is never
 * requested beyond what the device has free). Without CUDA or a GPU to
 * ask: SG_OK (the allocation itself then fails, naming the array). */
sg_status sgi_gpu_managed_room(sg_run *run, uint64_t bytes, const char *path, sg_error *err);
/* Its rule: sg_managed_fits (public, spillgraph.h). */

/* The cache file NAME (may hold a directory): $XDG_CACHE_HOME/spillgraph/NAME,
 * else ~/.cache/spillgraph/NAME (src/rates.c). SG_E_NOTFOUND without either,
 * naming `what` and the variable that overrides it; SG_E_INVALID when it
 * does not fit cap. */
sg_status sgi_cache_path(char *buf, size_t cap, const char *name, const char *what,
                         const char *override, sg_error *err);

/* A fresh graph uid (atomic counter, never 0). */
uint64_t sgi_graph_uid(void);

/* ------------------------------------------------------------ the gpu backend (gpu_engine.c)
 *
 * The algorithms call sgi_gpu_pick first: true means "run on the device"
 * (the run's backend is gpu, or auto with a GPU and the graph and the
 * algorithm's arrays fit the budget); false means the cpu path, and under
 * auto the reason is kept in run->fallback. On a gpu run that cannot hold
 * the graph it returns true anyway: the device call then fails with the
 * accountant's SG_E_NOMEM naming the budget. Without CUDA it is always
 * false. */
typedef enum sgi_algo { SGI_ALGO_MST, SGI_ALGO_SSSP_DELTA, SGI_ALGO_SSSP_BF, SGI_ALGO_BFS } sgi_algo;
bool sgi_gpu_pick(sg_run *run, const sg_graph *g, sgi_algo algo, bool parents);
/* Whether sgi_gpu_pick would give the forest of a graph of n vertices and
 * m edges with u32 weights, its lists by id, loaded anew, the hybrid
 * backend (asked for, or auto on a graph that does not fit the budget
 * beside the forest's arrays while the hybrid executor's do, or on one
 * that fits, unless "auto-inplace" is disabled). False without CUDA. */
bool sgi_gpu_forest_hybrid(sg_run *run, uint64_t n, uint64_t m);
sg_status sgi_gpu_mst(sg_run *run, const sg_graph *g, sg_forest **out, sg_error *err);
/* SSSP and BFS into a result the caller allocated for g (sg_sssp and
 * sg_bfs, or the one sg_sssp_into and sg_bfs_into were given). */
sg_status sgi_gpu_sssp(sg_run *run, const sg_graph *g, const sg_sssp_options *opt,
                       sg_sssp_result *r, sg_error *err);
sg_status sgi_gpu_bfs(sg_run *run, const sg_graph *g, const sg_bfs_options *opt,
                      sg_bfs_result *r, sg_error *err);
/* Loads the store `s` into g's host arrays (already allocated: x, a, and w
 * unless NULL) through the device staging buffers, copying each vertex
 * range to the device while the next one decodes, when the run's backend
 * is gpu and the graph fits; otherwise (or without CUDA) *done = false and
 * nothing is read. Errors: the reader's, the device's. */
sg_status sgi_gpu_load(sg_run *run, sg_store *s, sg_graph *g, const sg_read_options *ro,
                       bool *done, sg_error *err);
/* Frees the run's device graph and context. */
void sgi_gpu_release(sg_run *run);

/* The shortest-path tree from converged distance words (sssp.c): dist as
 * in the result (uint64_t sums, or a double's bits for f32). */
sg_status sgi_sssp_parents(const sg_run *run, const sg_graph *g, const uint64_t *dist,
                           uint32_t source, uint32_t *parent, sg_error *err);
/* The CPU bucket width (sssp.c's heuristic). */
double sgi_sssp_auto_delta(const sg_graph *g);

/* An order-preserving key of a weight (sgi_key_of_bits, common/): every
 * forest code (Borůvka, Kruskal) compares weights through this, so the tie
 * rule (weight, min(u,v), max(u,v)) is one rule everywhere. */
static inline uint32_t sgi_weight_key(sg_weight_type wt, uint32_t bits)
{
    return sgi_key_of_bits(wt == SG_WEIGHT_F32, bits);
}
/* The inverse of sgi_weight_key. */
static inline uint32_t sgi_weight_unkey(sg_weight_type wt, uint32_t key)
{
    return sgi_bits_of_key(wt == SG_WEIGHT_F32, key);
}
/* The weight bits of edge e (1 when the graph has no weights). */
static inline uint32_t sgi_graph_wbits(const sg_graph *g, uint64_t e)
{
    if (!g->w) return g->wt == SG_WEIGHT_F32 ? 0x3f800000u : 1u;
    return ((const uint32_t *)g->w)[e];
}

/* One weighted edge for sorting: key = sgi_weight_key of the weight, w the
 * weight bits. 16 bytes. */
typedef struct sgi_wedge {
    uint32_t key, u, v, w;
} sgi_wedge;

/* Sorts e[0..n) by (key, u, v), stable, with a parallel LSD radix sort
 * (11-bit digits; digits equal in every record are skipped). tmp must hold
 * n records. threads <= 0: OpenMP default. Time: O(n * passes / threads),
 * at most 9 passes. */
void sgi_sort_wedges(sgi_wedge *e, sgi_wedge *tmp, uint64_t n, int threads);

/* A double's bits and back (f32 distances live in uint64_t words so that
 * they can be updated with integer compare-and-swap). */
static inline double sgi_bits_dbl(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}
static inline uint64_t sgi_dbl_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* The argument checks of sg_mst (undirected, weights loaded), shared with
 * the Kruskal oracle. In mst.c. */
sg_status sgi_mst_check(const sg_graph *g, sg_error *err);

/* The argument checks of sg_sssp (graph not empty, source in range,
 * weights loaded, no negative weights), shared with the Dijkstra oracle so
 * both give the same errors. In sssp.c. */
sg_status sgi_sssp_check(const sg_graph *g, uint32_t source, sg_error *err);

/* Allocates an empty result of each kind for n vertices (arrays allocated,
 * contents undefined, counts zero); NULL when out of memory. Shared by the
 * algorithms and their oracles so results are freed one way. */
sg_forest *sgi_forest_alloc(uint64_t n, uint64_t max_edges, sg_weight_type wt);
sg_sssp_result *sgi_sssp_alloc(uint64_t n, uint32_t source, sg_weight_type wt, bool parents);
sg_bfs_result *sgi_bfs_alloc(uint64_t n, uint32_t source, bool parents);
/* The reached count and the largest finite value of dist[0..n) (distance
 * bits; `inf` marks unreached), with `threads` OpenMP threads; branch-free
 * (on R-MAT half the vertices are unreached at random: the branchy loop
 * cost ~20 ms of mispredictions at scale 26). The GPU BFS sums its levels
 * on the device (sgk_bfs). */
void sgi_dist_summary(const uint64_t *dist, uint64_t n, uint64_t inf, int threads,
                      uint64_t *reached, uint64_t *max_bits);
/* Sorts a forest's edges into the canonical order (weight key, u, v) with
 * the run's threads (each edge as u < v), and fills
 * n_trees = n_vertices - n_edges, total_u32 and total (summed in that
 * order). f->n_edges must be set. SG_E_NOMEM naming the buffer (32 bytes per
 * forest edge of scratch); the forest is then unchanged but for n_trees. */
sg_status sgi_forest_finish(sg_forest *f, int threads, sg_error *err);
/* The part of sgi_forest_finish after the sort, for a forest already in
 * canonical order: n_trees, total_u32 and total (an f32 total summed in
 * that order on one thread, a u32 one on `threads`). */
void sgi_forest_totals(sg_forest *f, int threads);

/* ------------------------------------------------------------ CSR builder
 *
 * A reusable two-pass builder for generators (R-MAT now; SSCA2, uniform and
 * grid later): edges come from a pure function of their index, so the edge
 * list is never stored. Pass 1 draws every edge and counts degrees; pass 2
 * draws them again and places each at a claimed slot; then every neighbour
 * list is sorted and de-duplicated and the lists are compacted in place. */

/* Writes edge i (0 <= i < m) to *u, *v, *w. Must be a pure function of
 * (ctx, i): it is called twice per edge, from many threads at once, in any
 * order. Self-loops (u == v) are allowed (the builder drops them). */
typedef void (*sgi_edge_fn)(void *ctx, uint64_t i, uint32_t *u, uint32_t *v, uint32_t *w);

/* One directed edge slot: neighbour in the high half, weight in the low
 * half, so a list sorts by neighbour and then weight as plain integers. */
#define SGI_AW(nbr, wt) ((uint64_t)(nbr) << 32 | (uint32_t)(wt))
#define SGI_AW_NBR(e) ((uint32_t)((e) >> 32))
#define SGI_AW_W(e) ((uint32_t)(e))

/* A CSR graph in canonical form: for every vertex v its list
 * aw[x[v] .. x[v+1]) is strictly increasing by neighbour and holds no v.
 * Undirected graphs hold both directions with equal weights. Arrays come
 * from sgi_malloc; aw may be longer than m (its capacity before
 * de-duplication). Neighbour and weight share one 8-byte slot (SGI_AW) so
 * that building touches one cache line per edge and sorts without a
 * gather; sgi_csr_append() splits them for the store writer. */
typedef struct sgi_csr {
    uint64_t n;          /* vertices */
    uint64_t m;          /* directed edges stored = x[n] */
    uint64_t max_degree;
    bool directed;
    uint64_t *x;         /* n + 1 offsets, x[0] = 0 */
    uint64_t *aw;        /* m slots: SGI_AW(neighbour, weight) */
} sgi_csr;

/* Frees the arrays and zeroes *g. Accepts NULL and an all-zero sgi_csr. */
void sgi_csr_free(sgi_csr *g);

/* The lists' sorts (src/sort.c). sgi_sort_u64 sorts k[0..n) as integers
 * (for weight key << 32 | neighbour keys: weight order, the store's
 * SGI_FLAG_WEIGHT_ORDER): up to SGI_SORT_VECTOR_MAX keys by
 * sgi_sort_small_simd where the CPU has AVX-512, else as
 * sgi_sort_u64_scalar (insertion, quicksort, then an LSD radix sort from
 * 128 keys, in wider digits over the varying bits from 1024); returns
 * where the result is (k or tmp, which holds n keys). */
#define SGI_SORT_VECTOR_MAX 1024
uint64_t *sgi_sort_u64(uint64_t *k, uint64_t n, uint64_t *tmp);
uint64_t *sgi_sort_u64_scalar(uint64_t *k, uint64_t n, uint64_t *tmp);
/* k[0..n) sorted in place by a bitonic network of AVX-512 vectors; false
 * (k untouched) where n > SGI_SORT_VECTOR_MAX, the CPU lacks AVX-512F or
 * BW, or the build cannot emit them. */
bool sgi_sort_small_simd(uint64_t *k, uint64_t n);
/* Lists as packed keys neighbour << 32 | weight bits (src/csr_build.c):
 * sgi_sort_dedupe sorts k[0..n) by neighbour (nbits: the ids' bit length;
 * lists the vector network takes, or under 128 keys, as whole keys),
 * keeps the least weight of each neighbour, writes the result from k[0]
 * and returns its length; tmp holds n keys.
 * sgi_radix_sort_hi sorts k[0..n) by bits [32, 32 + nbits), stable, and
 * returns where the sorted keys are (k or tmp); tmp holds n keys. */
uint64_t sgi_sort_dedupe(uint64_t *k, uint64_t n, uint64_t *tmp, unsigned nbits);
uint64_t *sgi_radix_sort_hi(uint64_t *k, uint64_t *tmp, uint64_t n, unsigned nbits);

/* Breadth-first order of a graph's n vertices (src/renumber.c): order[i] =
 * the i-th vertex a serial queue reaches, searching from each vertex not yet
 * reached in id order and taking each list in its stored order. Levels of
 * at least par_min vertices are expanded on `threads` OpenMP threads (0:
 * the default) with the same result. Scratch: claim[n], cnt[n]. Returns the
 * levels expanded in parallel. */
uint64_t sgi_bfs_order(const uint64_t *x, const uint32_t *a, uint64_t n, int threads,
                       uint64_t par_min, uint32_t *order, uint64_t *claim, uint64_t *cnt);

/* What sgi_csr_build did. */
typedef struct sgi_build_report {
    uint64_t generated;       /* edges drawn (= m) */
    uint64_t self_loops;      /* drawn edges with u == v, dropped */
    uint64_t duplicates;      /* drawn edges dropped as repeats of a kept edge (an
                               * undirected repeat counts once, not per direction) */
    uint64_t n_edges;         /* directed edges in the result (undirected: 2 per edge) */
    uint64_t slots;           /* directed slots placed before de-duplication */
    uint64_t max_slots;       /* longest list before de-duplication */
    uint64_t peak_bytes;      /* largest amount of memory the builder held at once */
    double seconds_generate;  /* passes 1 and 2 */
    double seconds_sort;      /* sort, de-duplication and compaction */
} sgi_build_report;

/* Builds the CSR of the m edges fn(ctx, 0) .. fn(ctx, m-1) over n vertices
 * (1 <= n <= 2^32): self-loops are dropped, and of repeated (u, v) edges
 * (undirected: repeated {u, v}) the one of least weight is kept. The result
 * depends only on the edge function, never on `threads` or on scheduling.
 *
 * threads: OpenMP threads (<= 0: omp_get_max_threads()).
 * progress: may be NULL; called from the calling thread only (the master of
 *   each parallel region), about every 1%, with phases "generate" (both
 *   passes; fraction 0..1) and "sort" (sort, de-duplication, compaction).
 * out: filled on success only; release with sgi_csr_free().
 * rep: may be NULL; filled on success only.
 *
 * Errors: SG_E_INVALID (n out of range, NULL fn/out, or fn produced a vertex
 * id >= n: the message names the edge index), SG_E_NOMEM (names the array
 * and its size). On failure nothing stays allocated.
 *
 * Time, all of it parallel: 2 * m calls of fn (static schedule over edge
 * chunks), each with one or two relaxed atomic increments and slot stores
 * (pipelined with prefetches); then each list of length L is sorted, in
 * O(L^2) for L <= 24 (insertion), O(L log L) below 256 (quicksort), else
 * O(L * ceil(log2(n) / 8)) (LSD radix on the neighbour bits); then one
 * parallel in-place move of the slots. Measured at R-MAT scale 24 (268M
 * edges drawn, 537M slots) on 16 cores: about 4.3 s for the two passes
 * (bound by drawing the edges) and 0.8 s for sort and compaction.
 *
 * Memory at peak (S = directed slots before de-duplication = 2 * (m -
 * self-loops) undirected, m - self-loops directed; T = threads; L = longest
 * list before de-duplication):
 *     16 * (n + 1)                      old and new offsets (x, 8 B each)
 *   +  8 * S                            the slots (SGI_AW), compacted in
 *                                       place: the result lives in them
 *   +  T * 8 * max(L, 65536)            per-thread sort / move scratch
 * The edge list itself is never held. */
sg_status sgi_csr_build(uint64_t n, uint64_t m, sgi_edge_fn fn, void *ctx, bool directed,
                        int threads, sg_progress_fn progress, void *progress_ctx, sgi_csr *out,
                        sgi_build_report *rep, sg_error *err);

/* Appends all of g to a store writer just opened for g->n vertices (the
 * caller then finishes or aborts it), in slices of about 2^22 edges:
 * each slice's slots are split in parallel into neighbour and weight
 * staging buffers and passed to sg_store_writer_append(). g is unchanged.
 * Errors: those of sg_store_writer_append(), SG_E_NOMEM for the buffers.
 * Memory: 8 * max(2^22, g->max_degree) bytes. Time: one pass over aw. */
sg_status sgi_csr_append(const sgi_csr *g, sg_store_writer *wr, int threads, sg_error *err);
/* Test hook: edges per slice of sgi_csr_append (default 2^22). */
extern uint64_t sgi_csr_append_slice;

/* ------------------------------------------------------------ R-MAT */

/* Edge i of the R-MAT graph the options describe (o->scale, o->seed, o->a,
 * o->b, o->c, o->max_weight; the options must be valid, see sg_gen_rmat):
 * a pure function of (options, i), so the same on every thread count.
 * *u, *v in [0, 2^scale) after the label permutation; *w in [1, max_weight].
 * May be a self-loop or repeat another edge. Time: O(scale); this entry
 * point also derives the per-seed constants (O(1), a few dozen operations),
 * so it is meant for tests, not for inner loops. */
void sgi_rmat_edge(const sg_rmat_options *o, uint64_t i, uint32_t *u, uint32_t *v, uint32_t *w);

/* The seed-dependent label permutation of R-MAT: a bijection on
 * [0, 2^scale), 1 <= scale <= 32. Exposed so tests can check that it is one.
 * Time: O(1). */
uint32_t sgi_rmat_permute(const sg_rmat_options *o, uint32_t id);

/* ------------------------------------------------------------ SSCA2, uniform, grid
 * Shared helpers live in gen_common.c. */

/* splitmix64's finaliser: a bijection on 64-bit words, the counter-based
 * stream of every generator. */
static inline uint64_t sgi_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* floor(r * range / 2^64): uniform in [0, range) from 64 random bits (bias
 * below range / 2^64). */
static inline uint64_t sgi_below(uint64_t r, uint64_t range)
{
    return (uint64_t)(((unsigned __int128)r * range) >> 64);
}

/* A seed-dependent bijection on [0, 2^bits), 1 <= bits <= 32 (R-MAT's
 * construction: rounds of odd multiply, xor-shift, add, modulo 2^bits). */
typedef struct sgi_perm {
    uint64_t mask;
    unsigned shift;
    uint64_t mul[4], add[4];
} sgi_perm;
void sgi_perm_init(sgi_perm *p, unsigned bits, uint64_t seed);
static inline uint64_t sgi_perm_apply(const sgi_perm *p, uint64_t id)
{
    for (int r = 0; r < 4; r++) {
        id = (id * p->mul[r]) & p->mask;
        id ^= id >> p->shift;
        id += p->add[r];
    }
    return id & p->mask;
}

/* The common frame of a generator: fills the store options (undirected,
 * u32 weights, threads, progress and creator when the caller left them
 * unset) and opens the writer, so an existing path fails before any work.
 * Then sgi_gen_finish() appends g, finishes the store (freeing g and the
 * writer whatever happens) and returns the seconds it took. */
sg_status sgi_gen_open(const char *path, uint64_t n, const sg_write_options *store, int threads,
                       const char *creator, sg_progress_fn progress, void *progress_ctx,
                       sg_store_writer **wr, sg_error *err);
sg_status sgi_gen_finish(sg_store_writer *wr, sgi_csr *g, int threads, double *seconds,
                         sg_error *err);

/* Edge i of the SSCA2 graph (options valid, see sg_gen_ssca2) in the
 * builder's index space: [0, intra) intra-clique pairs, then scale draws
 * per vertex; a draw that makes no edge returns u == v. Builds the clique
 * table on each call (O(n / M)): for tests only. Returns false when the
 * table cannot be allocated. *n_index gets the size of the index space. */
bool sgi_ssca2_edge(const sg_ssca2_options *o, uint64_t i, uint32_t *u, uint32_t *v,
                    uint32_t *w, uint64_t *n_index);
/* The j-th hub of a grid (j < round(hubs * rows * cols)): a bijection of j
 * onto the lattice's vertices. */
uint32_t sgi_grid_hub(const sg_grid_options *o, uint64_t j);

#ifdef __cplusplus
}
#endif
#endif
