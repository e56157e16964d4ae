/* SSSP's light index on the CPU threads, host C (kernels/cpu_light.c): the
 * inner loops of the index's CPU share (kernels/sssp.cu), where the threads
 * count and copy the light entries of host-resident lists while the GPU
 * does the rest. Plain C so that it builds with the host compiler's vector
 * instructions and is tested without a GPU (tests/test_cpu_light.c).
 *
 * An entry e is light when (uint64_t)(w[e] & wmask) < bound: the u32 weight
 * (wmask all ones), or an f32 weight's bits (non-negative floats order like
 * their bits) without the sign bit (wmask SGK_LIGHT_F32: -0.0 is 0, light
 * whatever the bound; negative weights never reach SSSP), below the bucket
 * width's bound, exactly the device's test (sssp.cu, sgi_light_bits). */
#ifndef SGK_CPU_LIGHT_H
#define SGK_CPU_LIGHT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SGK_LIGHT_U32 0xffffffffu /* wmask: u32 weights */
#define SGK_LIGHT_F32 0x7fffffffu /* wmask: f32 weights (-0.0 compares as +0.0) */

/* How far ahead the vector loops prefetch with `prefetch`, in entries (4
 * KiB of each array read), never past the range they are given. */
#define SGK_LIGHT_AHEAD 1024

/* cnt[v - v0] = the light entries of list v, for v in [v0, v1) (x: the
 * offsets, lists [x[v], x[v + 1]) of w). Returns their sum. */
uint64_t sgk_light_count(const uint64_t *x, const uint32_t *w, uint64_t v0, uint64_t v1,
                         uint64_t bound, uint32_t wmask, bool prefetch, uint64_t *cnt);

/* The light entries among entries [e0, e1) (lists after one another). */
uint64_t sgk_light_tally(const uint32_t *w, uint64_t e0, uint64_t e1, uint64_t bound,
                         uint32_t wmask, bool prefetch);

/* The light entries among entries [e0, e1), in order, into la (neighbours)
 * and lw (weights), which have room for them (sgk_light_tally's count:
 * nothing is written past it). Returns the count. */
uint64_t sgk_light_fill(const uint32_t *a, const uint32_t *w, uint64_t e0, uint64_t e1,
                        uint64_t bound, uint32_t wmask, bool prefetch, uint32_t *la,
                        uint32_t *lw);

/* The count and the fill in one sweep: cnt[v - v0] = the light entries of
 * list v, for v in [v0, v1), and those entries, in order, into la and lw,
 * which have room for them (at most x[v1] - x[v0]: nothing is written past
 * the count). Returns the count. One read of W where sgk_light_count and
 * sgk_light_fill read it twice. */
uint64_t sgk_light_lists(const uint64_t *x, const uint32_t *a, const uint32_t *w, uint64_t v0,
                         uint64_t v1, uint64_t bound, uint32_t wmask, bool prefetch,
                         uint64_t *cnt, uint32_t *la, uint32_t *lw);

/* The same four with plain C loops (the reference the tests hold the
 * vector code to; what runs where the CPU lacks AVX-512F). */
uint64_t sgk_light_count_scalar(const uint64_t *x, const uint32_t *w, uint64_t v0, uint64_t v1,
                                uint64_t bound, uint32_t wmask, uint64_t *cnt);
uint64_t sgk_light_tally_scalar(const uint32_t *w, uint64_t e0, uint64_t e1, uint64_t bound,
                                uint32_t wmask);
uint64_t sgk_light_fill_scalar(const uint32_t *a, const uint32_t *w, uint64_t e0, uint64_t e1,
                               uint64_t bound, uint32_t wmask, uint32_t *la, uint32_t *lw);
uint64_t sgk_light_lists_scalar(const uint64_t *x, const uint32_t *a, const uint32_t *w,
                                uint64_t v0, uint64_t v1, uint64_t bound, uint32_t wmask,
                                uint64_t *cnt, uint32_t *la, uint32_t *lw);

#ifdef __cplusplus
}
#endif
#endif
