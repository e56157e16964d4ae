/* BFS's gathered steps and SSSP's gathered settle passes, host C
 * (kernels/cpu_gather.c): the CPU threads copy the lists of a piece of the
 * frontier (or of a settled list), one after another, into a staging
 * buffer that the copy engine takes to the device (kernels/bfs.cu,
 * gather_step; kernels/sssp.cu, settle_gathered). Plain C so that it is
 * tested without a GPU (tests/test_cpu_gather.c). */
#ifndef SGK_CPU_GATHER_H
#define SGK_CPU_GATHER_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The lists of vertices ids[0, cnt) (x: offsets, a: neighbours, both whole
 * host arrays), one after another into out, and their offsets into
 * off[0, k + 1) (off[0] = 0, off[i + 1] - off[i] the degree of ids[i]), for
 * the first k vertices whose lists fit `cap` entries together; at least one
 * (the caller keeps every list under cap). Returns k. cnt >= 1; the entries
 * of a chunk below 2^32. With w (weights, or any array of A's positions)
 * not NULL, the same positions of w go to outw. `threads` host threads (0: OpenMP's default), a
 * range of ids each: its degrees, the ranges' sums, the cut, then its
 * copies, with the list 16 ahead prefetched when `prefetch`. */
uint64_t sgk_gather_lists(const uint64_t *x, const uint32_t *a, const uint32_t *w,
                          const uint32_t *ids, uint64_t cnt, uint64_t cap, uint32_t *off,
                          uint32_t *out, uint32_t *outw, bool prefetch, int threads);

#ifdef __cplusplus
}
#endif
#endif
