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

/* The forest's speculative gather over A's entries at positions [p0, p1) on
 * the host threads (kernels/mst.cu, gather_walk: the CPU's pieces, beside
 * the GPU's). For every vertex v whose list meets [p0, p1) and whose tree
 * comp[v] is live (not 0xffffffff; comp: the trees of all n vertices), each
 * of its entries p there whose neighbour nb = a[p] lies above v in another
 * tree goes out as (key of its weight, v, nb) into key, mn and mx: the key
 * sgi_key_of_bits(f32, w[p]), or with w NULL the 24-bit weight w16[p] |
 * w8[p] << 16. The edges take slots from the top down, cap - 1, cap - 2,
 * ..., in blocks claimed from *taken (atomically: the edges the callers
 * have found so far); an edge whose slot would fall below 0 is counted and
 * not written. x: the offsets of the n vertices (x[n] = m), whole; a and
 * the weights addressable at [p0, p1). Returns the edges this call found.
 * `threads` host threads (0: OpenMP's default), a range of positions each. */
uint64_t sgk_contract_walk(const uint64_t *x, uint64_t n, const uint32_t *a, const uint32_t *w,
                           const uint16_t *w16, const uint8_t *w8, bool f32,
                           const uint32_t *comp, uint64_t p0, uint64_t p1, uint32_t *key,
                           uint32_t *mn, uint32_t *mx, uint64_t cap, uint64_t *taken,
                           int threads);

/* The forest's deferred weights (kernels/mst.cu, gather_walk,
 * "defer-weights"): key[0, cnt) hold positions less base; each becomes the
 * key of the weight at base + key[i]: sgi_key_of_bits(f32, w[p]), or with w
 * NULL the 24-bit weight w16[p] | w8[p] << 16. `threads` host threads (0:
 * OpenMP's default), the weights 16 edges ahead prefetched. */
void sgk_defer_keys(uint32_t *key, uint64_t cnt, uint64_t base, const uint32_t *w,
                    const uint16_t *w16, const uint8_t *w8, bool f32, int threads);

#ifdef __cplusplus
}
#endif
#endif
