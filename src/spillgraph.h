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

/* ------------------------------------------------------------ GPUs */

typedef struct sg_gpu_info {
    int index;
    char name[128];
    int cc_major, cc_minor;
    int sm_count;
    uint64_t total_bytes, free_bytes, l2_bytes;
    int driver_version, runtime_version;
} sg_gpu_info;

/* True when this build has the GPU path (built with CUDA). */
SG_API bool sg_gpu_built(void);
/* Usable GPUs now (0 without CUDA, driver or device). */
SG_API int sg_gpu_count(void);
SG_API sg_status sg_gpu_info_get(int index, sg_gpu_info *out, sg_error *err);
/* Round-trips `bytes` through the device and checks them; *gbps gets the
 * host-to-device copy rate. SG_E_UNSUPPORTED without CUDA. */
SG_API sg_status sg_gpu_selftest(int index, uint64_t bytes, double *gbps, sg_error *err);

#ifdef __cplusplus
}
#endif
#endif
