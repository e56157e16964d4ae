/* spillgraph src/ — internals shared by the files of src/ and by tests.
 * Not installed. Prefix sgi_. Includes only common/ and the public header.
 *
 * Note for tests: storage/ also has an "internal.h"; tests include this one
 * as "../src/internal.h". */
#ifndef SG_SRC_INTERNAL_H
#define SG_SRC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sg_common.h"
#include "spillgraph.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
