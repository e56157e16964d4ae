/* The forest's CPU share, host C (kernels/cpu_topk.c): the K lightest list
 * entries of one vertex, the inner loop of the hybrid forest's first round
 * on the CPU threads (kernels/mst.cu, cpu_first_fill). Plain C so that it
 * builds with the host compiler's vector instructions and is tested without
 * a GPU (tests/test_topk.c). */
#ifndef SGK_CPU_TOPK_H
#define SGK_CPU_TOPK_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Lists longer than this are taken past their first SGK_TOPK_HEAD entries
 * in blocks of 8 whose weights alone decide whether A is read (`filter`). */
#define SGK_TOPK_HEAD 64
#define SGK_TOPK_BLOCKS_PAST 128
/* sgk_topk_simd takes shorter lists with the scalar code. */
#define SGK_TOPK_SIMD_MIN 16

/* The K (1 to 4) smallest keys (weight key << 32 | neighbour; the weight key
 * is the u32 weight, or for f32 weights the order-preserving map of their
 * bits) among the entries a[0..len), w[0..len) of vertex v's list other than
 * self-loops (a[i] == v), as a multiset, ascending into out[0..K), UINT64_MAX
 * for slots left empty. With `filter` and len > SGK_TOPK_BLOCKS_PAST, past
 * the first SGK_TOPK_HEAD entries, a block of 8 none of whose weight keys is
 * at most the K-th kept key's weight key is skipped without reading its a[].
 * Returns the entries that are not self-loops, a skipped block counted as 8
 * (so with the filter an upper bound). Every implementation returns the same
 * out[] and count for the same arguments. Time O(len K). */
typedef uint64_t (*sgk_topk_fn)(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v,
                                bool f32, int K, bool filter, uint64_t *out);

/* Branch-free insertion of each entry through the K slots (~550 M entries
 * per second per thread for K = 2 on short random lists). */
uint64_t sgk_topk_scalar(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v,
                         bool f32, int K, bool filter, uint64_t *out);

/* AVX-512F where the CPU has it and the list has SGK_TOPK_SIMD_MIN entries
 * or more (each vector lane keeps its K smallest keys, the lanes merged at
 * the end), else sgk_topk_scalar. */
uint64_t sgk_topk_simd(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v, bool f32,
                       int K, bool filter, uint64_t *out);

/* Whether sgk_topk_simd runs vector code on this CPU. */
bool sgk_topk_simd_available(void);

#ifdef __cplusplus
}
#endif
#endif
