/* spillgraph — public API (the one header tools and users include).
 *
 * Conventions: opaque handles with create/free pairs (free accepts NULL);
 * every fallible call returns sg_status (0 = SG_OK, negative = error) and
 * fills the caller's sg_error, if given, with a message naming the file,
 * shard, block or line at fault; outputs are untouched on failure. The
 * library never prints: progress reaches the caller through callbacks. */
#ifndef SPILLGRAPH_H
#define SPILLGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "sg_status.h"
#include "sg_convert.h"
#include "sg_store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Library version, "MAJOR.MINOR.PATCH". */
SG_API const char *sg_version(void);

/* Progress of long work: `phase` names the step ("generate", "sort",
 * "write"); fraction in [0, 1]. Called from one thread at a time. */
typedef void (*sg_progress_fn)(void *ctx, const char *phase, double fraction);

/* ------------------------------------------------------------ generators */

typedef struct sg_rmat_options {
    unsigned scale;          /* n = 2^scale vertices, 1..32 */
    unsigned edge_factor;    /* m = edge_factor * n generated edges; default 16 */
    uint64_t seed;           /* default 1 */
    uint32_t max_weight;     /* weights uniform in [1, max_weight]; default 2^20 */
    double a, b, c;          /* quadrant probabilities; d = 1-a-b-c. Graph500: .57 .19 .19 */
    int threads;             /* 0 = OpenMP default */
    sg_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    sg_write_options store;  /* store layout, force, creator text */
} sg_rmat_options;

/* Fills the Graph500 defaults above (scale 0: the caller must set it). */
SG_API void sg_rmat_defaults(sg_rmat_options *o);

typedef struct sg_gen_report {
    uint64_t n_vertices;
    uint64_t generated;      /* edges drawn */
    uint64_t self_loops;     /* dropped */
    uint64_t duplicates;     /* dropped (the lightest copy kept) */
    uint64_t n_edges;        /* directed edges stored (both directions) */
    double seconds_generate, seconds_build, seconds_write;
} sg_gen_report;

/* Generates an undirected Graph500 R-MAT graph straight into a store at
 * `path`: vertex labels permuted, self-loops dropped, duplicate edges keep
 * the lightest weight. The result depends only on the options, never on the
 * thread count. The edge list is never held: edges are drawn twice from a
 * counter-based generator (once to count degrees, once to place them).
 * Memory: 16 bytes per vertex, 8 per directed edge slot before
 * de-duplication (2m slots), per-thread sort scratch, and the writer's
 * block buffers. Time: O(m * scale) to draw plus a sort of each list.
 * Errors: SG_E_INVALID (options), SG_E_EXISTS (path exists without
 * store.force, checked before any work), SG_E_NOMEM, and the writer's. */
SG_API sg_status sg_gen_rmat(const char *path, const sg_rmat_options *o, sg_gen_report *rep,
                             sg_error *err);

/* SSCA#2 (Bader and Madduri, v2.x spec), undirected: vertices are cut into
 * cliques of sizes uniform in [1, max_clique_size] (in order; the last one
 * cut short at n) and every pair inside a clique is an edge; then from
 * every vertex v and every level k = 0 .. scale-1, with probability
 * inter_prob^k, an edge to v + 2^k (mod n) when that vertex lies in another
 * clique (the spec's hierarchical distance distribution: its probability
 * halves per doubling of the distance, in each direction, from 1/2).
 * Mean stored degree (both directions counted, large n):
 *   2 * (M - 1) / 3  (intra; a vertex is in a clique of size s with weight
 *                     s, so E[s(s-1)] / E[s] for s uniform in [1, M])
 *   + 2 * sum_k p^k * P(v, v + 2^k in different cliques)  (inter)
 * With the defaults M = 48, p = 1/2: 31.33 + 0.53 = 31.9, as near 32 as
 * R-MAT's (edge factor 16). The spec's M = 2^(scale/3) grows with the
 * scale; here it is fixed so the degree does not. */
typedef struct sg_ssca2_options {
    unsigned scale;            /* n = 2^scale vertices, 1..32 */
    uint32_t max_clique_size;  /* M, 1..65536; default 48 */
    double inter_prob;         /* p in [0, 1]; default 0.5 */
    bool permute;              /* permute vertex labels (default true), so a clique
                                * is not a run of consecutive ids */
    uint64_t seed;             /* default 1 */
    uint32_t max_weight;       /* weights uniform in [1, max_weight]; default 2^20 */
    int threads;               /* 0 = OpenMP default */
    sg_progress_fn progress;   /* may be NULL */
    void *progress_ctx;
    sg_write_options store;
} sg_ssca2_options;

/* Fills the defaults above (scale 0: the caller must set it). */
SG_API void sg_ssca2_defaults(sg_ssca2_options *o);

/* Generates the SSCA#2 graph described above into a store at `path`. The
 * graph depends only on the options, never on the thread count.
 * rep->generated counts the edges drawn (intra-clique pairs plus the
 * inter-clique draws that succeeded); duplicates are rare (a pair at
 * distance n/2 drawn from both ends). Errors: SG_E_INVALID (options, named
 * with their range), SG_E_EXISTS (path exists without store.force, checked
 * before any work), SG_E_NOMEM, and the writer's.
 * Time, parallel: O(n / M) for the clique table; then O(m + n * scale) edge
 * draws, each O(1) after a search over a few cliques, twice (count and
 * place); then each list sorted. Memory: that of sg_gen_rmat for the same
 * number of stored edges (16 B per vertex, 8 per directed slot, about 40n/M
 * bytes for the clique table, the writer's buffers). */
SG_API sg_status sg_gen_ssca2(const char *path, const sg_ssca2_options *o, sg_gen_report *rep,
                              sg_error *err);

/* Uniform random (Erdős–Rényi G(n, m) style): n = 2^scale vertices and
 * m = edge_factor * n edges, each with both ends uniform and independent
 * (self-loops and repeats are drawn and dropped, so slightly fewer edges are
 * stored), undirected, weights uniform in [1, max_weight]. */
typedef struct sg_uniform_options {
    unsigned scale;          /* 1..32 */
    unsigned edge_factor;    /* default 16 */
    uint64_t seed;           /* default 1 */
    uint32_t max_weight;     /* default 2^20 */
    int threads;
    sg_progress_fn progress;
    void *progress_ctx;
    sg_write_options store;
} sg_uniform_options;

SG_API void sg_uniform_defaults(sg_uniform_options *o);

/* Errors, time and memory: those of sg_gen_rmat, with O(1) per edge draw. */
SG_API sg_status sg_gen_uniform(const char *path, const sg_uniform_options *o,
                                sg_gen_report *rep, sg_error *err);

/* A rows x cols 4-neighbour lattice (vertex r * cols + c; neighbours up,
 * left, right, down), undirected, weights uniform in [1, max_weight]: a
 * road-like graph of degree <= 4 and diameter rows + cols - 2. With hubs >
 * 0, H = round(hubs * n) vertices, picked by a seed-dependent bijection,
 * each get hub_degree extra edges to vertices uniform over the lattice (an
 * irregular lattice with hubs, as used to test the load balance of GPU BFS,
 * Liu et al. 2014); a repeat of a lattice edge keeps the lighter weight. */
typedef struct sg_grid_options {
    uint64_t rows, cols;     /* >= 1, rows * cols <= 2^32 */
    uint32_t max_weight;     /* default 2^20 */
    double hubs;             /* fraction of vertices that are hubs, [0, 1]; default 0 */
    uint32_t hub_degree;     /* extra edges per hub; >= 1 when there are hubs */
    uint64_t seed;           /* default 1 */
    int threads;
    sg_progress_fn progress;
    void *progress_ctx;
    sg_write_options store;
} sg_grid_options;

SG_API void sg_grid_defaults(sg_grid_options *o);

/* Generates the lattice into a store. Errors: SG_E_INVALID (options),
 * SG_E_EXISTS, SG_E_NOMEM, the writer's. Without hubs the lattice is
 * written as it is made, in slices of 2^20 vertices: time O(n), memory
 * 40 bytes per vertex of a slice (about 40 MiB) plus the writer's buffers,
 * whatever the size. With hubs it goes through the CSR builder of
 * sg_gen_rmat (2 * rows * cols + H * hub_degree edges drawn), with its
 * time and memory. */
SG_API sg_status sg_gen_grid(const char *path, const sg_grid_options *o, sg_gen_report *rep,
                             sg_error *err);

/* ------------------------------------------------------------ run context
 *
 * A run holds what one computation needs besides the graph: the backend,
 * the thread count, and what it measured (seconds per phase, named
 * counters). Every load, algorithm and result writer takes the run and adds
 * its time to the phase it belongs to. */

typedef enum sg_backend {
    SG_BACKEND_AUTO = 0, /* gpu when a GPU is present and the graph and the
                          * algorithm's arrays fit the device budget; hybrid when
                          * they do not (shortest paths, BFS); else cpu */
    SG_BACKEND_CPU,      /* OpenMP threads */
    SG_BACKEND_GPU,      /* the whole graph in device memory */
    SG_BACKEND_HYBRID    /* the planner's placement: prefixes of X, A, W in device
                          * memory, the rest read by the GPU from pinned or managed
                          * host memory (shortest paths and BFS; the forest is not
                          * built yet: SG_E_UNSUPPORTED) */
} sg_backend;

/* "auto", "cpu", "gpu", "hybrid". */
SG_API const char *sg_backend_name(sg_backend b);
/* Parses the names above; false when unknown. */
SG_API bool sg_backend_parse(const char *name, sg_backend *out);

typedef enum sg_phase {
    SG_PHASE_LOAD = 0,   /* store -> memory */
    SG_PHASE_PREPROCESS, /* per-algorithm preparation (e.g. sorting lists by weight) */
    SG_PHASE_COMPUTE,    /* the algorithm itself */
    SG_PHASE_WRITE,      /* result files */
    SG_NPHASES
} sg_phase;

/* "load", "preprocess", "compute", "write". */
SG_API const char *sg_phase_name(sg_phase p);

typedef struct sg_run_options {
    sg_backend backend;      /* default SG_BACKEND_AUTO */
    int threads;             /* OpenMP threads; 0 = OpenMP default */
    sg_progress_fn progress; /* may be NULL; phases "load", "preprocess", "compute" */
    void *progress_ctx;
    int device;              /* GPU index (default 0) */
    uint64_t device_mem;     /* device memory budget in bytes: every device
                              * allocation of the run counts against it; 0 = the
                              * device's free memory less a margin (max(256 MiB,
                              * 3%)); more than is free is SG_E_INVALID */
    bool force_split;        /* hybrid runs: use split[] instead of the plan */
    uint64_t split[3];       /* X, A, W: vertices whose offsets / lists stay in
                              * device memory (clamped to n) */
    uint64_t plan_steps[2];  /* the hybrid plans' latency terms: BFS's levels and
                              * SSSP's rounds of an earlier search on the graph
                              * (sg_memo.steps; 0: not known) */
} sg_run_options;

typedef struct sg_run sg_run;

/* Creates a run. The backend is resolved here: auto becomes gpu when this
 * build has CUDA and a GPU is present, else cpu (and an algorithm whose
 * arrays do not fit the device budget still runs on the cpu under auto);
 * gpu and hybrid fail with SG_E_UNSUPPORTED without CUDA or a GPU, saying
 * which. The device
 * context (and the budget check) is made at the first GPU use. opt may be
 * NULL (all defaults). */
SG_API sg_status sg_run_create(const sg_run_options *opt, sg_run **out, sg_error *err);
/* Accepts NULL. Frees the device context and the device copy of a graph. */
SG_API void sg_run_free(sg_run *r);
/* The backend: that of the last algorithm call (cpu when auto fell back),
 * before any call the one resolved at creation (never AUTO); and the thread
 * count actually used. */
SG_API sg_backend sg_run_backend(const sg_run *r);
SG_API int sg_run_threads(const sg_run *r);
/* Seconds spent in a phase so far (summed over the calls that used it). */
SG_API double sg_run_seconds(const sg_run *r, sg_phase p);
/* Adds time to a phase (for work timed outside the library). */
SG_API void sg_run_add_seconds(sg_run *r, sg_phase p, double seconds);

/* Named counters (iterations, edges scanned, ...), in order of first use.
 * sg_run_count adds `value` to the counter `name` (created at 0; at most
 * SG_RUN_MAX_COUNTERS names, further names are ignored: room for every
 * counter of all three algorithms on one run, ~100 names on the GPU);
 * `name` must stay valid as long as the run (a string literal). Not
 * thread-safe: call it from the thread that called the algorithm. */
#define SG_RUN_MAX_COUNTERS 160
SG_API void sg_run_count(sg_run *r, const char *name, uint64_t value);
/* Names vertices by their original ids in the text result files written
 * with this run (sg_*_write, ".txt" only: binary files keep internal ids):
 * edges as "ORIG_U ORIG_V W", per-vertex files as "ORIG VALUE" lines,
 * parents as original ids. `orig` (n values, borrowed: it must outlive the
 * writes) usually comes from sg_graph_original_ids(); NULL turns it off.
 * Writers of results over a different vertex count ignore it. */
SG_API void sg_run_name_vertices(sg_run *r, const uint64_t *orig, uint64_t n);

/* What the run did on a GPU. */
typedef struct sg_device_report {
    bool used;                /* a device context was made */
    int index;
    char name[128];
    uint64_t budget;          /* bytes the accountant allowed */
    uint64_t peak_bytes;      /* most device memory held at once */
    uint64_t in_use;          /* held now (the graph's device copy) */
    uint64_t upload_bytes;    /* graph bytes copied to the device */
    double upload_seconds;    /* copy engine busy time for them (cudaEvent timing) */
    char fallback[160];       /* why auto ran the last algorithm on the cpu, or "" */
    char module_loading[8];   /* as sg_gpu_info's, when used */
} sg_device_report;
SG_API void sg_run_device_report(const sg_run *r, sg_device_report *out);

/* Sets the counter to `value` instead of adding. */
SG_API void sg_run_set(sg_run *r, const char *name, uint64_t value);
SG_API unsigned sg_run_counter_count(const sg_run *r);
/* Name of counter i (< sg_run_counter_count) and its value in *value. */
SG_API const char *sg_run_counter(const sg_run *r, unsigned i, uint64_t *value);

/* ------------------------------------------------------------ graph handle
 *
 * A whole graph in host memory as CSR: offsets X (n + 1 uint64_t), neighbours
 * A (m uint32_t), weights W (m values, uint32_t or float per the weight
 * type). Undirected graphs hold both directions of every edge. */

typedef enum sg_mem_kind {
    SG_MEM_PLAIN = 0,  /* ordinary host memory (huge pages advised) */
    SG_MEM_PINNED,     /* page-locked through CUDA, ready for device copies;
                        * SG_E_UNSUPPORTED in a build without CUDA */
    SG_MEM_MANAGED,    /* CUDA managed memory advised to stay on the host and be
                        * read by the run's GPU in place (the hybrid backend's
                        * spilled arrays); SG_E_UNSUPPORTED without CUDA,
                        * SG_E_NOMEM for more than the device has free less
                        * the margin */
    SG_MEM_AUTO        /* the run decides: on a gpu or hybrid run whose graph
                        * does not fit the device budget, managed when the whole
                        * graph fits under the managed cap (the device's free
                        * memory beyond the budget, less the margin), else
                        * pinned; plain otherwise. sg_graph_get_info reports the
                        * kind chosen */
} sg_mem_kind;

/* sg_graph_options.narrow_weights: W held in 3 bytes an edge, not 4, as
 * two arrays, the low 16 bits of each weight and bits 16-23, so that the
 * hybrid backend's forest reads 7 bytes a spilled edge, not 8
 * (docs/design.md). Taken for a store with u32 weights and lists by id, in
 * plain or pinned memory (automatic: pinned on a run that may use a GPU),
 * not managed; a weight of 2^24 or more makes the load start again with
 * 32-bit weights (counter "narrow_weights_refused" 1). Such a graph serves
 * sg_mst on the hybrid backend, sg_bfs and sg_verify_forest; the other
 * algorithms and backends refuse it (SG_E_UNSUPPORTED, naming the option),
 * and sg_graph_weights gives NULL. sg_graph_info.narrow_weights and the
 * counter "narrow_weights" say whether it was taken; the switch
 * "narrow-weights" off (SPILLGRAPH_GPU_DISABLE) refuses it. */
typedef enum sg_narrow {
    SG_NARROW_NONE = 0,       /* 32-bit weights (the default) */
    SG_NARROW_HYBRID_FOREST,  /* where the run's forest will take the hybrid backend
                               * (--backend hybrid, or auto on a graph that does not
                               * fit the device budget), and only with the switch
                               * "narrow-weights" on (SPILLGRAPH_GPU_ENABLE): what
                               * the CLI's mst and cluster ask. Off by default: on
                               * the H200 host the CPU threads' top-K over 24-bit
                               * weights was slower than the bytes it saves
                               * (docs/benchmarks.md, forty-sixth session) */
    SG_NARROW_ALWAYS          /* wherever the store allows (tests, tools) */
} sg_narrow;

/* Whether a load asking for narrow weights `how` (not NONE) may hold a
 * store's W in 24 bits in host memory of kind mem, by what the store and
 * the switches say: u32 weights, lists by id, some edges, memory not
 * managed, the switch "narrow-weights" not off (SPILLGRAPH_GPU_DISABLE),
 * and for SG_NARROW_HYBRID_FOREST on (SPILLGRAPH_GPU_ENABLE). The rule
 * sg_graph_open applies before it reads (a weight past 24 bits, found
 * while reading, then makes it load 32-bit ones; HYBRID_FOREST also needs
 * the forest to run hybrid), and by which `spillgraph plan` prices the
 * forest's W. */
SG_API bool sg_narrow_store(const sg_store_info *info, sg_mem_kind mem, sg_narrow how);

/* sg_graph_options.prepare: the result memory of the first search on the
 * graph, made ready while the graph loads. */
typedef enum sg_prepare {
    SG_PREPARE_NONE = 0,
    SG_PREPARE_BFS,    /* levels (and parents): what sg_bfs returns */
    SG_PREPARE_SSSP,   /* distances (and parents): what sg_sssp returns */
    SG_PREPARE_FOREST  /* the edge arrays of what sg_mst returns (n - 1 edges):
                        * pinned, the GPU forest's download is one DMA each,
                        * and the hybrid forest may write its speculative
                        * contraction there (kernels/mst.cu, spec-contract) */
} sg_prepare;

typedef struct sg_graph_options {
    sg_mem_kind mem;
    bool no_weights;          /* do not load W (BFS needs none) */
    bool original_ids;        /* also load the store's original ids, if it has
                               * them (convert --ids compact): 8 bytes per vertex */
    sg_read_options read;     /* how the store is read; zero = automatic */
    bool host_only;           /* on a gpu run, do not copy the graph to the device
                               * while loading (an algorithm copies it later) */
    sg_prepare prepare;       /* the first search's result, allocated now and
                               * its pages faulted in by a helper thread while
                               * the graph loads: on a GPU a download into a
                               * fresh 268 MB array of levels costs the search
                               * 5 ms more of page faults (docs/benchmarks.md;
                               * the CLI asks for it on gpu and hybrid runs
                               * only: the 16-thread CPU BFS was slower with
                               * it, its own threads fault the array in where
                               * they use it). On a gpu or hybrid run the helper
                               * also pins its arrays (2 MiB or more) for DMA,
                               * so that the download is one copy with no host
                               * threads' copy out of the staging buffers;
                               * sg_bfs_free / sg_sssp_free / sg_forest_free
                               * unpin them. The next sg_bfs (sg_sssp, sg_mst)
                               * on the graph through the same run takes it
                               * when its parents setting matches; a search
                               * that does not match frees it. Counters
                               * "result_prefault_us" (the helper's time),
                               * "result_prefault_wait_us" (what the load waited
                               * for it at its end), "result_pinned" (arrays
                               * pinned) */
    bool prepare_parents;     /* the prepared result has the parents array */
    sg_narrow narrow_weights; /* W in 3 bytes an edge, not 4 (below) */
    bool forest;              /* the graph is loaded for sg_mst: with mem automatic,
                               * a spilled graph goes to pinned memory, not managed
                               * (the forest streams whole lists, by DMA from
                               * pinned memory and by a copy kernel at managed
                               * memory's ~34 GB/s: SSCA2 26 at 6 GiB 0.51 s
                               * against 0.55-0.57, the load no longer; SSSP's and
                               * BFS's scattered reads want managed memory;
                               * docs/benchmarks.md, fifty-first session). The
                               * CLI's mst and cluster set it */
} sg_graph_options;

typedef struct sg_graph sg_graph;

typedef struct sg_graph_info {
    uint64_t n_vertices;
    uint64_t n_edges;         /* directed edges stored */
    bool directed;
    bool negative_weights;    /* some weight < 0 (f32 only) */
    bool has_weights;         /* W loaded */
    sg_weight_type weight_type;
    sg_mem_kind mem;
    uint64_t bytes;           /* host memory the arrays take */
    uint64_t max_degree;
    uint64_t degree_descents; /* vertices of lower degree than the one before (0:
                               * ascending degree order) */
    bool has_original_ids;    /* loaded: sg_graph_original_ids */
    bool weight_order;        /* lists by (weight, neighbour id), from a store in
                               * weight order (renumber --lists weight) */
    bool narrow_weights;      /* W held in 24 bits (sg_graph_options.narrow_weights) */
    const char *source;       /* the store path, or "memory" */
} sg_graph_info;

/* Loads the store at `path` into host memory of kind opt->mem, with the
 * storage reader (parallel decode with run's threads); the time goes to the
 * run's "load" phase. On a run whose backend is gpu the graph is also
 * copied to the device as it loads, when its arrays fit the budget: the
 * store is decoded in vertex ranges into two pinned staging buffers in
 * turn, each copied to the device (cudaMemcpyAsync) while the next range
 * decodes, then into the host arrays (sg_run_device_report gives the
 * bytes and the copy time). opt may be NULL. Errors: those of
 * sg_store_open and sg_store_read (naming shard and block), SG_E_NOMEM
 * naming the array and size, SG_E_UNSUPPORTED (pinned memory without
 * CUDA), SG_E_DEVICE (CUDA's message). */
SG_API sg_status sg_graph_open(sg_run *run, const char *path, const sg_graph_options *opt,
                               sg_graph **out, sg_error *err);

/* Puts every list of g in weight order, in place: by (weight, neighbour
 * id), f32 weights as floats with -0 before +0, as a store in weight order
 * holds them (renumber --lists weight). The forest then skips its sort of
 * the lists (CPU and GPU), and the hybrid backend's forest reads each list
 * from its head instead of whole. Device copies of the graph are not reused
 * afterwards. threads: OpenMP threads (0 = default). Errors: SG_E_INVALID
 * for a graph without weights, SG_E_NOMEM (16 bytes per thread per entry
 * of the longest list). */
SG_API sg_status sg_graph_sort_by_weight(sg_graph *g, int threads, sg_error *err);

/* A graph from caller arrays (copied): x has n + 1 offsets with x[0] = 0,
 * non-decreasing; a[e] < n; w may be NULL (every weight 1). Lists need not
 * be sorted and may hold self-loops and repeated neighbours: every
 * algorithm copes with them. Undirected graphs must hold both directions of
 * every edge with equal weights (not checked). f32 weights must be finite
 * (checked: SG_E_INVALID naming the edge). */
SG_API sg_status sg_graph_from_arrays(uint64_t n, const uint64_t *x, const uint32_t *a,
                                      const void *w, sg_weight_type wt, bool directed,
                                      sg_graph **out, sg_error *err);
/* Accepts NULL. */
SG_API void sg_graph_free(sg_graph *g);
SG_API void sg_graph_get_info(const sg_graph *g, sg_graph_info *out);
/* The arrays (read-only; valid until sg_graph_free). Weights are NULL when
 * not loaded, or held in 24 bits (sg_graph_options.narrow_weights). */
SG_API const uint64_t *sg_graph_offsets(const sg_graph *g);
SG_API const uint32_t *sg_graph_neighbors(const sg_graph *g);
SG_API const void *sg_graph_weights(const sg_graph *g);

/* The original id of every vertex (n values, increasing) when the graph was
 * opened with original_ids from a store that keeps them; NULL otherwise. */
SG_API const uint64_t *sg_graph_original_ids(const sg_graph *g);
/* The vertex whose original id is `orig` (binary search: O(log n)).
 * SG_E_INVALID when the graph has no original ids; SG_E_NOTFOUND naming the
 * id when no vertex has it. */
SG_API sg_status sg_graph_find_original(const sg_graph *g, uint64_t orig, uint32_t *v,
                                        sg_error *err);

/* A source vertex drawn the Graph500 way: uniformly among the vertices with
 * at least one edge to another vertex, from `seed` alone (the same seed
 * gives the same vertex on every run and thread count). SG_E_INVALID when
 * no vertex has such an edge. Time: O(1) expected draws for typical graphs,
 * each O(degree); after 4096 misses, one scan of X. */
SG_API sg_status sg_graph_random_source(const sg_graph *g, uint64_t seed, uint32_t *out,
                                        sg_error *err);

/* "No vertex" (parents) and "not reached" (levels). */
#define SG_NO_VERTEX UINT32_MAX
#define SG_NO_LEVEL UINT32_MAX

/* ------------------------------------------------------------ minimum spanning forest
 *
 * Ties: edges compare by (weight, min(u,v), max(u,v)); the forest is then
 * unique, and every backend and the oracle return the same one. f32 weights
 * compare as floats (negative weights are fine here). */

typedef struct sg_forest {
    uint64_t n_vertices;
    uint64_t n_trees;         /* components; isolated vertices are trees */
    uint64_t n_edges;         /* = n_vertices - n_trees */
    sg_weight_type weight_type;
    uint32_t *u, *v;          /* edge i joins u[i] < v[i]; edges in the canonical
                               * order (weight, u, v) */
    uint32_t *w;              /* weight bits: uint32_t, or a float's bits for f32 */
    uint64_t total_u32;       /* u32 weights: the exact total */
    double total;             /* the total as a double (f32: summed in edge order) */
} sg_forest;

/* Borůvka on the run's backend: preprocessing (lists sorted by weight) goes
 * to the "preprocess" phase, the rest to "compute". Needs an undirected
 * graph with weights (SG_E_INVALID otherwise); self-loops, repeated edges
 * and unsorted lists are fine. The forest comes in canonical order and
 * equals sg_oracle_kruskal's on every thread count. Errors: SG_E_INVALID,
 * SG_E_NOMEM (naming the array). Counters: "iterations", "edges_skipped"
 * (edges found inside their tree, each at most once), "segments_scanned".
 * Time: O(m) preprocessing plus a sort of each list; compute O(m + n log n)
 * in the worst case, parallel. Memory: about 8 bytes per directed edge
 * plus 90 per vertex. */
SG_API sg_status sg_mst(sg_run *run, const sg_graph *g, sg_forest **out, sg_error *err);
/* Accepts NULL. */
SG_API void sg_forest_free(sg_forest *f);

/* The oracle: Kruskal with union-find, serial (but for the shared radix
 * sort), O(m) per sort pass plus O(m alpha(n)); 32 bytes per undirected
 * edge. SG_E_INVALID for a directed graph or one without weights. */
SG_API sg_status sg_oracle_kruskal(const sg_graph *g, sg_forest **out, sg_error *err);
/* Runs the oracle and compares: same tree count, same edge set (u, v, w),
 * same total. SG_E_MISMATCH naming the first difference. */
SG_API sg_status sg_verify_forest(const sg_graph *g, const sg_forest *f, sg_error *err);

/* ------------------------------------------------------------ clustering
 *
 * Single-linkage clustering on a forest: cutting forest edges splits trees
 * into clusters. */

typedef struct sg_cluster_options {
    uint64_t k;               /* > 0: exactly k clusters, cutting the k - T
                               * heaviest forest edges (canonical order); 0: use
                               * the threshold */
    double threshold;         /* k == 0: cut every forest edge with weight > threshold */
} sg_cluster_options;

typedef struct sg_clusters {
    uint64_t n_vertices;
    uint64_t n_clusters;
    uint64_t cut_edges;       /* forest edges cut */
    uint32_t *label;          /* per vertex, 0..n_clusters-1, numbered in order of
                               * each cluster's smallest vertex */
    uint64_t *size;           /* per cluster */
} sg_clusters;

/* SG_E_INVALID when k < the forest's trees or k > its vertices (the message
 * says which and the valid range), for a NaN threshold, or for a forest that
 * is not one (counts, endpoints >= n, a cycle). A forest out of canonical
 * order is sorted (a copy) first. run may be NULL; else the time goes to
 * "compute". Serial, O(n alpha(n)); 8 bytes per vertex of scratch. */
SG_API sg_status sg_cluster(sg_run *run, const sg_forest *f, const sg_cluster_options *opt,
                            sg_clusters **out, sg_error *err);
SG_API void sg_clusters_free(sg_clusters *c);

/* ------------------------------------------------------------ shortest paths */

typedef enum sg_sssp_method {
    SG_SSSP_AUTO = 0,         /* delta-stepping buckets on either backend */
    SG_SSSP_DELTA,            /* delta-stepping buckets */
    SG_SSSP_BELLMAN_FORD      /* edge-parallel Bellman-Ford (gpu backend only) */
} sg_sssp_method;

/* "auto", "delta", "bellman-ford"; parse returns false when unknown. */
SG_API const char *sg_sssp_method_name(sg_sssp_method m);
SG_API bool sg_sssp_method_parse(const char *name, sg_sssp_method *out);

typedef struct sg_sssp_options {
    uint32_t source;
    double delta;             /* bucket width; 0 = chosen from the weights and degrees
                               * (the gpu backend picks a wider one) */
    bool want_parents;        /* fill parent[] (a shortest-path tree) */
    sg_sssp_method method;
} sg_sssp_options;

typedef struct sg_sssp_result {
    uint64_t n_vertices;
    uint32_t source;
    sg_weight_type weight_type;
    uint64_t *dist;           /* u32 weights: exact distances, UINT64_MAX = unreached */
    double *dist_f;           /* f32 weights: distances, INFINITY = unreached
                               * (exactly one of dist, dist_f is non-NULL) */
    uint32_t *parent;         /* NULL unless asked; SG_NO_VERTEX unreached;
                               * parent[source] = source */
    uint64_t reached;         /* vertices with a finite distance, source included */
    double max_dist;          /* largest finite distance */
    double delta;             /* bucket width used (0: Bellman-Ford, no buckets) */
} sg_sssp_result;

/* Delta-stepping. SG_E_INVALID for a source >= n, a graph without weights,
 * or a store flagged with negative weights (the message says so). Counters:
 * "buckets", "relaxations". */
SG_API sg_status sg_sssp(sg_run *run, const sg_graph *g, const sg_sssp_options *opt,
                         sg_sssp_result **out, sg_error *err);
/* Another search into r, a result sg_sssp returned for this graph (the
 * same vertex count and weight type, parents iff opt->want_parents; else
 * SG_E_INVALID saying what differs): its arrays are overwritten, so a run
 * of many searches writes into memory already in place. On the gpu and
 * hybrid backends the device copy of the graph, and SSSP's light index for
 * the same opt->delta, stay on the device from one search to the next
 * (kernels/sssp.cu). Errors and counters as sg_sssp; on failure r's
 * contents are unspecified (free it with sg_sssp_free as ever). */
SG_API sg_status sg_sssp_into(sg_run *run, const sg_graph *g, const sg_sssp_options *opt,
                              sg_sssp_result *r, sg_error *err);
SG_API void sg_sssp_free(sg_sssp_result *r);

/* Dijkstra with a binary heap (serial), parents included. */
SG_API sg_status sg_oracle_dijkstra(const sg_graph *g, uint32_t source, sg_sssp_result **out,
                                    sg_error *err);
/* Runs Dijkstra and compares every distance; when r->parent is set, checks
 * that it is a shortest-path tree (parent[v] has an edge to v with
 * dist[parent] + w == dist[v], and following parents reaches the source).
 * SG_E_MISMATCH naming the first vertex at fault. */
SG_API sg_status sg_verify_sssp(const sg_graph *g, const sg_sssp_result *r, sg_error *err);

/* ------------------------------------------------------------ breadth-first search */

typedef struct sg_bfs_options {
    uint32_t source;
    bool want_parents;
    int alpha, beta;          /* direction switch heuristics (Beamer); 0 = 15, 18 */
} sg_bfs_options;

typedef struct sg_bfs_result {
    uint64_t n_vertices;
    uint32_t source;
    uint32_t *level;          /* SG_NO_LEVEL unreached; level[source] = 0 */
    uint32_t *parent;         /* NULL unless asked; SG_NO_VERTEX unreached;
                               * parent[source] = source */
    uint64_t reached;
    uint32_t max_level;
} sg_bfs_result;

/* Direction-optimizing BFS (Beamer et al.; gapbs' rules) on the run's
 * threads: top-down steps claim unvisited neighbours of a frontier queue;
 * when the frontier's edges exceed the unexplored edges / alpha it switches
 * to bottom-up steps (every unvisited vertex scans its list for a neighbour
 * in a frontier bitmap and stops at the first), and back once the frontier
 * shrinks below n / beta vertices. Directed graphs take top-down steps only
 * (a bottom-up step needs in-edges; no transpose is built). Self-loops,
 * repeated neighbours and unsorted lists are fine; the graph is not
 * modified. Levels are exact (those of the serial BFS); parents, when
 * asked, form a valid BFS tree (any parent one level up). The whole call's
 * time goes to the run's "compute" phase. Counters (set, not added):
 * "top_down_steps", "bottom_up_steps", "edges_examined" (list entries
 * read). Errors: SG_E_INVALID (NULL argument, no vertices, source >= n with
 * a message naming the valid range, alpha or beta < 0), SG_E_NOMEM (naming
 * the array); *out is untouched on failure. Time: O(n + m) work, O(n / 64)
 * more per bottom-up step. Memory: the result (4n bytes, 8n with parents),
 * a 4n-byte queue, 3 bitmaps of n bits (undirected), 4 KiB per thread; the
 * queue, bitmaps and buffers stay with the run after the call (freed with
 * it), so that its next search on a graph of this size allocates nothing
 * (counter "work_reused"; the gpu and hybrid backends keep their device
 * arrays the same way). */
SG_API sg_status sg_bfs(sg_run *run, const sg_graph *g, const sg_bfs_options *opt,
                        sg_bfs_result **out, sg_error *err);
/* Another search into r, a result sg_bfs returned for this graph (the same
 * vertex count, parents iff opt->want_parents; else SG_E_INVALID saying
 * what differs): its arrays are overwritten, so a run of many searches
 * (Graph500's 64 roots) writes into memory already in place. Errors and
 * counters as sg_bfs; on failure r's contents are unspecified. */
SG_API sg_status sg_bfs_into(sg_run *run, const sg_graph *g, const sg_bfs_options *opt,
                             sg_bfs_result *r, sg_error *err);
SG_API void sg_bfs_free(sg_bfs_result *r);

/* Serial FIFO-queue BFS along out-edges, parents included (the first
 * vertex to reach v). Errors: SG_E_INVALID (as sg_bfs), SG_E_NOMEM. Time
 * O(n + m), one thread; memory 12n bytes. */
SG_API sg_status sg_oracle_bfs(const sg_graph *g, uint32_t source, sg_bfs_result **out,
                               sg_error *err);
/* Runs the serial BFS and compares every level; when r->parent is set,
 * validates the tree as Graph500 does (parent[source] = source; every other
 * reached vertex has a parent with an edge to it and a level one less;
 * unreached vertices have none; undirected, no edge joins reached vertices
 * more than one level apart); reached and max_level must match too.
 * SG_E_MISMATCH naming the first vertex (or edge) at fault, also for a
 * result of another vertex count; SG_E_INVALID for NULL; SG_E_NOMEM. Time
 * O(n + m) serial plus, with parents, O(n + m) on the OpenMP default
 * threads; memory 12n bytes, n more with parents. */
SG_API sg_status sg_verify_bfs(const sg_graph *g, const sg_bfs_result *r, sg_error *err);

/* ------------------------------------------------------------ result files
 *
 * By extension: ".txt" text, one line per vertex or edge; ".bin" binary
 * (docs/format.md, "Result files"). Written to a temporary name and renamed;
 * an existing file is replaced only when `force`. The time goes to the
 * run's "write" phase (run may be NULL). Errors: SG_E_INVALID (unknown
 * extension), SG_E_EXISTS, SG_E_IO / SG_E_NOSPACE naming the file. */
SG_API sg_status sg_forest_write(sg_run *run, const sg_forest *f, const char *path, bool force,
                                 sg_error *err);
SG_API sg_status sg_sssp_write(sg_run *run, const sg_sssp_result *r, const char *path, bool force,
                               sg_error *err);
SG_API sg_status sg_bfs_write(sg_run *run, const sg_bfs_result *r, const char *path, bool force,
                              sg_error *err);
SG_API sg_status sg_clusters_write(sg_run *run, const sg_clusters *c, const char *path, bool force,
                                   sg_error *err);
/* Parents (n values, SG_NO_VERTEX for none). */
SG_API sg_status sg_parents_write(sg_run *run, const uint32_t *parent, uint64_t n, const char *path,
                                  bool force, sg_error *err);

/* ------------------------------------------------------------ GPUs */

typedef struct sg_gpu_info {
    int index;
    char name[128];
    int cc_major, cc_minor;
    int sm_count;
    uint64_t total_bytes, free_bytes, l2_bytes;
    int driver_version, runtime_version;
    /* CUDA's module loading in this process: "eager" (spillgraph's default,
     * set through CUDA_MODULE_LOADING before its first CUDA call unless the
     * environment names a mode; a kernel's first launch under lazy loading
     * waits for all the device's work), "lazy", or "unknown" */
    char module_loading[8];
} sg_gpu_info;

/* Bytes of host memory available to a new allocation: MemAvailable from
 * /proc/meminfo (page cache counts as available), else free pages;
 * UINT64_MAX when neither can be read. */
SG_API uint64_t sg_available_memory(void);
/* True when this build has the GPU path (built with CUDA). */
SG_API bool sg_gpu_built(void);
/* True when optimisation switch `name` is turned off for this process
 * (SPILLGRAPH_GPU_DISABLE=name,...: docs/design.md), as the library reads
 * it; `spillgraph plan` models the runs the switches make. */
SG_API bool sg_switch_disabled(const char *name);
/* The device memory a default budget leaves free: max(256 MiB, 3% of
 * total_bytes). */
SG_API uint64_t sg_device_margin(uint64_t total_bytes);
/* Whether a graph of `bytes` may go to managed memory (--host-mem managed)
 * on a device with free_bytes free of total_bytes: at most the free memory
 * less sg_device_margin(total_bytes), so that managed memory is never
 * requested beyond what the device has. SG_OK, or SG_E_NOMEM naming
 * `path`, GPU `device`, the sizes and the way out. One rule for a run's
 * load and `spillgraph plan`. */
SG_API sg_status sg_managed_fits(uint64_t bytes, uint64_t free_bytes, uint64_t total_bytes,
                                 int device, const char *path, sg_error *err);
/* Usable GPUs now (0 without CUDA, driver or device). */
SG_API int sg_gpu_count(void);
SG_API sg_status sg_gpu_info_get(int index, sg_gpu_info *out, sg_error *err);
/* Round-trips `bytes` through the device and checks them; *gbps gets the
 * host-to-device copy rate. SG_E_UNSUPPORTED without CUDA. */
SG_API sg_status sg_gpu_selftest(int index, uint64_t bytes, double *gbps, sg_error *err);

/* ------------------------------------------------------------ placement planner
 *
 * Which part of X, A and W a GPU run keeps in device memory and where the
 * rest lives (issue 6; the model is in src/plan.c and docs/plan.md). Pure
 * C: works without a GPU. */

typedef enum sg_plan_algo { SG_PLAN_MST = 0, SG_PLAN_SSSP, SG_PLAN_BFS } sg_plan_algo;
SG_API const char *sg_plan_algo_name(sg_plan_algo a);
SG_API bool sg_plan_algo_parse(const char *name, sg_plan_algo *out);

/* The store's vertex order as its degrees show it (sg_degree_stats'
 * descents), for the renumbering hint. */
typedef enum sg_plan_degree_order {
    SG_PLAN_DEGREES_UNKNOWN = 0, /* not read: no hint */
    SG_PLAN_DEGREES_ASCENDING,   /* no vertex of lower degree than the one before */
    SG_PLAN_DEGREES_OTHER
} sg_plan_degree_order;

/* Machine rates, GB/s. */
typedef struct sg_rates {
    double hbm_gbps;          /* device memory, sequential read */
    double pcie_gbps;         /* pinned copy host -> device (the upload) */
    double zc_rand_gbps;      /* GPU random 128-byte reads of pinned host memory */
    double managed_rand_gbps; /* GPU random 128-byte reads of managed memory
                               * with preferred-location-host + accessed-by hints */
    double cpu_scan_gbps;     /* host memory read by all CPU threads */
    double managed_seq_gbps;  /* GPU streamed reads of that managed memory in place */
    double host_shared_gbps;  /* the same beside all CPU threads' scan: both sides'
                               * rates summed (one host memory serves both) */
    /* Not rates-file keys: each side's part of host_shared_gbps where
     * sg_calibrate measured it (0 otherwise). */
    double shared_gpu_gbps, shared_cpu_gbps;
    char origin[256];         /* where they came from: "defaults (...)" or a file */
} sg_rates;

/* The GPU host's measured limits. */
SG_API void sg_rates_default(sg_rates *r);
/* Reads `key value` lines (# comments; keys as the field names); keys not
 * given keep their defaults. SG_E_FORMAT names the file and line of an
 * unknown key or a value that is not a positive number; SG_E_NOTFOUND /
 * SG_E_IO when it cannot be read. On failure *r is untouched. */
SG_API sg_status sg_rates_load(const char *path, sg_rates *r, sg_error *err);
/* The per-machine rates file: $SPILLGRAPH_RATES, else
 * $XDG_CACHE_HOME/spillgraph/rates-HOST, else ~/.cache/spillgraph/rates-HOST. */
SG_API sg_status sg_rates_cache_path(char *buf, size_t cap, sg_error *err);

/* Writes r as a rates file (its origin as a comment), creating the
 * directories above it; replaces an existing file whole (temporary file and
 * rename). */
SG_API sg_status sg_rates_save(const char *path, const sg_rates *r, sg_error *err);

typedef struct sg_calibrate_options {
    int device;        /* GPU index (a GPU that is absent: GPU rates stay defaults) */
    uint64_t bytes;    /* buffer size of each measurement, >= 16 MiB */
    int threads;       /* CPU threads (0: OpenMP's default) */
} sg_calibrate_options;
/* Measures the rates: cpu_scan_gbps here; with a GPU (CUDA build, device
 * present) hbm_gbps, pcie_gbps, zc_rand_gbps and managed_rand_gbps on it
 * (device, pinned and managed buffers of `bytes` each; SG_E_NOMEM when the
 * device lacks that much free memory beyond the margin). The others keep
 * their defaults; r->origin says which were measured, when and where. */
SG_API sg_status sg_calibrate(const sg_calibrate_options *o, sg_rates *out, sg_error *err);

typedef enum sg_spill_kind {
    SG_SPILL_NONE = 0,  /* nothing spilled */
    SG_SPILL_MANAGED,   /* managed memory with hints (under the managed cap) */
    SG_SPILL_PINNED     /* pinned host memory */
} sg_spill_kind;
SG_API const char *sg_spill_kind_name(sg_spill_kind k);

typedef struct sg_plan_input {
    sg_plan_algo algo;
    uint64_t n, m;             /* vertices, directed edges stored */
    unsigned weight_bytes;     /* 4 (mst and sssp need them), or 3 for mst on a graph
                                * with 24-bit weights (sg_graph_options.narrow_weights);
                                * bfs ignores W */
    /* n_pts breakpoints, the candidate split points: vertices [0, pt_v[i])
     * hold edges [0, pt_e[i]); from (0, 0) to (n, m), pt_v strictly and pt_e
     * weakly increasing. */
    const uint64_t *pt_v, *pt_e;
    unsigned n_pts;
    uint64_t device_budget;    /* bytes the plan may place on the device */
    uint64_t managed_cap;      /* managed bytes allowed (the device's free
                                * memory beyond the budget, less a margin) */
    uint64_t host_bytes;       /* host memory for the spilled part (0: unchecked) */
    sg_rates rates;
    uint64_t work_bytes;       /* the device working arrays (0: the model's
                                * per-vertex estimate) */
    bool executor_reserves;    /* add what the hybrid executors keep beside
                                * their arrays: SSSP its light index (16 (n+1)
                                * + m + (n+1)/4 + 4096 bytes, + m/4 on a graph
                                * without hubs; left out when the budget
                                * cannot hold it), the in-place forest room
                                * for its contracted list (20 bytes per 16
                                * edges, at most what the budget leaves),
                                * BFS over pinned host lists two buffers for
                                * its gathered steps (sgi_bfs_gather_bytes) */
    uint64_t max_degree;       /* the longest list (for the hub rule,
                                * sgi_hub_free: hubs are lists of 16 mean
                                * degrees or more; 0 counts as none) */
    bool directed;             /* bfs: a directed graph takes top-down steps
                                * only (every reached list read once) */
    bool gpu_reads_all;        /* the executor has no CPU share: the GPU reads the
                                * whole host range (gpu_host_end = n) */
    bool lists_unsorted;       /* mst: the lists are read unsorted, whole, each
                                * round (the hybrid's in-place executor): W is
                                * read with A and split with it */
    bool lists_weight_order;   /* mst: the lists are in weight order; on a graph
                                * with hubs (max_degree) the executor then reads
                                * their heads, by the GPU alone, whatever
                                * lists_unsorted says (kernels/mst.cu's rule) */
    bool forest_spec;          /* mst: the in-place executor contracts
                                * speculatively (kernels/mst.cu: where the
                                * forest's arrays are pinned, as the CLI's mst
                                * prepares them): on a graph without hubs whose A
                                * spills, its refills end after the third round
                                * and one streamed read of A's host part gathers
                                * the edges left (src/plan.c, FOREST_SPEC_*) */
    bool forest_defer;         /* mst, with forest_spec: the gather's weights
                                * are deferred to the CPU threads (kernels/mst.cu,
                                * "defer-weights"), which the executor does
                                * where the plan gives them a share and A's
                                * host part has at most 2^32 entries */
    bool forced;               /* evaluate forced_split (X, A, W; each one of
                                * the breakpoints) instead of choosing; the
                                * budget is not checked */
    uint64_t forced_split[3];
    uint64_t steps;            /* BFS: the levels, SSSP: the rounds of an earlier
                                * search on this graph (sg_memo), for the
                                * latency term; 0: not known (no term); the
                                * forest ignores it */
    sg_plan_degree_order degree_order; /* for hint_degree_asc only */
} sg_plan_input;

typedef struct sg_plan {
    sg_plan_algo algo;
    uint64_t split[3];         /* X, A, W: vertices below stay on the device */
    uint64_t device_bytes[3], host_bytes[3];
    sg_spill_kind spill_kind[3];
    uint64_t work_bytes;       /* device working arrays */
    uint64_t managed_bytes;    /* spilled bytes in managed memory */
    /* The host-resident range [host_begin, n): the GPU reads [host_begin,
     * gpu_host_end) over PCIe, the CPU threads take [gpu_host_end, n). */
    uint64_t host_begin, gpu_host_end;
    double cpu_share;          /* of the spilled bytes read per pass */
    uint64_t pcie_bytes_per_pass;
    double t_upload;           /* seconds to copy the device part (pcie_gbps) */
    double t_device, t_gpu_host, t_cpu; /* seconds per pass */
    double t_shared;           /* the host bytes both sides read per pass at
                                * host_shared_gbps (0 unless both read some) */
    double predicted_pass_s;   /* max(t_device + t_gpu_host, t_cpu, t_shared) */
    double passes;             /* passes over the edges at predicted_pass_s
                                * (model; the in-place forest: 1, its first
                                * round) */
    double refill_passes;      /* the in-place forest: the passes its later
                                * rounds' refills read again (model; 0 for
                                * the others) */
    double t_refill;           /* their time, the GPU alone: the device part
                                * and the spilled part each at a share of
                                * hbm_gbps and pcie_gbps (src/plan.c); with
                                * forest_spec also the speculative gather's
                                * streamed read of A's host part */
    bool forest_spec;          /* mst: the model's later rounds are the
                                * speculative contraction's (input forest_spec,
                                * a graph without hubs whose A spills) */
    bool forest_heads;         /* mst: the forest reads the heads of lists in
                                * weight order (lists_weight_order, hubs) */
    bool gathered;             /* sssp, bfs: the CPU threads gather the pinned
                                * host lists the GPU reads (SSSP's settle
                                * passes on a graph without hubs, room kept
                                * for their buffers; BFS's top-down steps of
                                * an undirected graph), the GPU a share in
                                * place beside them */
    double t_rounds;           /* the in-place forests' per-round vertex work,
                                * all rounds (0 for SSSP and BFS) */
    double t_index;            /* SSSP: building its light index, two passes
                                * over the spilled W and one over A, by the
                                * GPU and the CPU threads through one host
                                * memory (0 for the others, and
                                * for SSSP where the budget holds no index:
                                * then passes is 2, its rounds reading the
                                * spilled lists again) */
    double t_result;           /* BFS's levels and SSSP's distances copied into
                                * host memory (0 for the forest, whose rates
                                * include it) */
    uint64_t steps;            /* the input's steps (0 for the forest) */
    double t_steps;            /* their latency: BFS ~0.1 ms a level, SSSP ~16 us a
                                * round (src/plan.c; 0 without steps) */
    double predicted_s;        /* passes * predicted_pass_s + t_refill + t_rounds
                                * + t_index + t_result + t_steps */
    bool hint_degree_asc;      /* A spills on a graph with hubs (max_degree,
                                * sgi_hub_free) whose degrees are known not
                                * to ascend (degree_order), and the forest
                                * would not read the heads: a copy renumbered
                                * in ascending degree order (renumber --order
                                * degree-asc) keeps the short lists on the
                                * device and streams the long ones; at R-MAT
                                * 26 and 6 GiB all three algorithms ran faster
                                * on it (docs/plan.md). The model itself does
                                * not see the order. */
    char rates_origin[256];    /* where the rates the plan priced came from
                                * (sg_rates.origin: the defaults or a rates
                                * file), so that a run's report names them */
} sg_plan;

/* Errors: SG_E_INVALID (inputs, naming the bad breakpoint or rate),
 * SG_E_NOMEM (the budget is below the working arrays, or the spilled part
 * exceeds host_bytes). */
SG_API sg_status sg_plan_make(const sg_plan_input *in, sg_plan *out, sg_error *err);

/* What earlier searches on a store measured that the planner cannot read
 * from it (src/memo.c): BFS's levels and SSSP's rounds follow the graph's
 * diameter, and on a graph without hubs their latency is much of a
 * search's time. One small file per store in the cache directory:
 * $SPILLGRAPH_MEMO_DIR, else $XDG_CACHE_HOME/spillgraph/graphs, else
 * ~/.cache/spillgraph/graphs; its name hashes the store's real path and its
 * manifest's identity, so a store written again gets a fresh memo. The
 * command line records each BFS and hybrid SSSP search and gives the
 * counts to its plans; SPILLGRAPH_MEMO=off turns both off. */
typedef struct sg_memo {
    uint64_t steps[2];      /* BFS's levels, SSSP's rounds (0: none recorded) */
    char note[2][160];      /* where each came from ("source 5, gpu, DATE") */
    char path[4200];        /* the memo file */
} sg_memo;
/* Whether SPILLGRAPH_MEMO is not "off". */
SG_API bool sg_memo_enabled(void);
/* The memo file of the store at store_path. SG_E_NOTFOUND (no directory to
 * use), errno's status when the store or its manifest cannot be read. */
SG_API sg_status sg_memo_path(const char *store_path, char *buf, size_t cap, sg_error *err);
/* The store's memo: all counts 0 when none was recorded. SG_E_FORMAT names
 * the file and line of a line it cannot read; on failure *out is untouched. */
SG_API sg_status sg_memo_load(const char *store_path, sg_memo *out, sg_error *err);
/* The count for algo (0 for the forest, or none recorded). */
SG_API uint64_t sg_memo_steps(const sg_memo *m, sg_plan_algo algo);
/* Records steps (> 0) for BFS or SSSP with a note (may be NULL; the date is
 * added), keeping the other count; the file is replaced whole (temporary
 * file and rename), its directories made. A memo that cannot be read is
 * replaced. */
SG_API sg_status sg_memo_record(const char *store_path, sg_plan_algo algo, uint64_t steps,
                                const char *note, sg_error *err);

/* The plan the run's last algorithm call used when it ran on the hybrid
 * backend (false otherwise), with the measured seconds of that call's
 * device work in *measured_s (may be NULL). With sg_run_options.split the
 * plan's splits are the forced ones and its times are the model's for them. */
SG_API bool sg_run_plan(const sg_run *r, sg_plan *out, double *measured_s);

/* ---------------------------------------------------------------- renumbering (src/renumber.c) */

typedef enum sg_renumber_order {
    SG_ORDER_DEGREE_DESC = 0, /* "degree": the longest lists first */
    SG_ORDER_DEGREE_ASC,      /* "degree-asc": the shortest lists first */
    SG_ORDER_BFS,             /* "bfs": breadth-first (locality) order */
    SG_ORDER_BFS_REV,         /* "bfs-rev": the same, reversed */
    SG_ORDER_NONE             /* "none": ids kept (to reorder the lists alone) */
} sg_renumber_order;
SG_API const char *sg_renumber_order_name(sg_renumber_order o);
SG_API bool sg_renumber_order_parse(const char *name, sg_renumber_order *out);

typedef struct sg_renumber_options {
    sg_renumber_order order;
    bool weight_order;        /* lists by (weight, neighbour id), flagged in the
                               * store (the reference papers' preprocessing: the
                               * forest's lightest leaving edge is then the first
                               * such entry of a list); false: by neighbour id */
    int threads;              /* read, sort and write threads; 0 = OpenMP default */
    sg_write_options store;   /* layout, force, creator, the "write" progress
                               * (directed and the weight type are the input's) */
} sg_renumber_options;

typedef struct sg_renumber_report {
    uint64_t n_vertices, n_edges;
    uint64_t max_degree;      /* the longest list */
    uint64_t memory_bytes;    /* the arrays held: 40 (n + 1) + 16 m */
    double seconds_read, seconds_permute, seconds_write;
} sg_renumber_report;

/* Writes the store at in_path to out_path with its vertices renumbered:
 * by degree, new id = rank by (degree, descending for "degree", ascending
 * for "degree-asc"; ties by old id); by locality ("bfs"), new id = the
 * position in a breadth-first search that starts from each vertex not yet
 * reached in old-id order and visits each list in order (so each connected
 * component, on an undirected graph, is one range of ids); "bfs-rev" the
 * same reversed; "none" keeps the ids. Every list is relabelled and sorted
 * (by new neighbour id, or with opt->weight_order by (weight, id)), weights
 * with their entries. The hybrid backend keeps a vertex prefix on the device, so the
 * order decides which lists stay there. Holds the graph twice in memory. Errors: those of sg_store_open and sg_store_read (naming shard
 * and block) and of the writer (SG_E_EXISTS without opt->store.force),
 * SG_E_UNSUPPORTED for a store with original ids (their mapping must stay
 * increasing), SG_E_NOMEM naming the bytes. On failure nothing is written
 * and an existing out_path is untouched. */
SG_API sg_status sg_store_renumber(const char *in_path, const char *out_path,
                                   const sg_renumber_options *opt, sg_renumber_report *rep,
                                   sg_error *err);

#ifdef __cplusplus
}
#endif
#endif
