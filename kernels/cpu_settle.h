/* SSSP's settle passes on the CPU threads, host C (kernels/cpu_settle.c):
 * the inner loop of the settle pass's CPU share (kernels/sssp.cu,
 * "SettleShare"). A settle pass relaxes, once, the deferred edges of every
 * vertex of a settled bucket from its final distance; where those lists lie
 * in host memory the threads read them there and hand the device only the
 * relaxations worth trying, as pushes (target, new distance word), which a
 * device kernel applies exactly as the GPU's own settle pass would.
 * Plain C so that it is tested without a GPU (tests/test_cpu_settle.c).
 *
 * An edge (u, v, w) of a settled u is pushed when the rounds could not have
 * taken it: its new distance word nd = dist(u) + w is at or above T, or its
 * weight is not light ((uint64_t)w >= light_bound), the device's SETTLE
 * test; and v is not final (its bit clear in `done`, a snapshot of the
 * device's final-vertex bits: a subset, so skipping on it never loses a
 * relaxation). u32 weights: nd = dist + w; f32: the bits of the double
 * dist + (double)w, the device's arithmetic. */
#ifndef SGK_CPU_SETTLE_H
#define SGK_CPU_SETTLE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sgk_settle_in {
    const uint64_t *x;     /* the offsets: list u is [x[u], x[u + 1]) of a and w */
    const uint32_t *a, *w; /* neighbours and weights (u32, or f32 bits) */
    const uint32_t *ids;   /* the pass's vertices, by position */
    const uint64_t *dist;  /* their final distance words, by position (finite) */
    const uint32_t *done;  /* final-vertex bits, a bit a vertex; or NULL (none skipped) */
    uint64_t T;            /* the bucket's threshold */
    uint64_t light_bound;  /* an edge is light iff its weight bits are below this */
    int f32;               /* f32 weights, double distance bits */
} sgk_settle_in;

/* Where a call stopped: position i, entry e of ids[i]'s list. Start a
 * position at its first entry with e = SGK_SETTLE_FRESH. */
#define SGK_SETTLE_FRESH UINT64_MAX
typedef struct sgk_settle_at {
    uint64_t i, e;
} sgk_settle_at;

/* Pushes the relaxations of positions [at->i, i1) (resuming at entry at->e
 * of the first) into pv / pd, at most cap of them; stops when cap are
 * written and the next would not fit, leaving *at where it stopped (at->i
 * == i1 when done). Returns the pushes written; *read += the entries read. */
uint64_t sgk_settle_push(const sgk_settle_in *in, sgk_settle_at *at, uint64_t i1, uint32_t *pv,
                         uint64_t *pd, uint64_t cap, uint64_t *read);

#ifdef __cplusplus
}
#endif
#endif
