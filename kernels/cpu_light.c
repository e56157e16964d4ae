/* SSSP's light index on the CPU threads (kernels/cpu_light.h). Memory-bound
 * loops: the count reads W once, the fill W and the light entries' A. With
 * AVX-512F, 16 weights are compared at a time; the fill packs a block's
 * light entries with a compress and writes them with a masked store, so no
 * branch per entry (a light share of ~1/8 on random weights would
 * mispredict every few entries) and nothing past the count is written. The
 * vector loops prefetch the line SGK_LIGHT_AHEAD entries ahead each step
 * (a thread's demand misses and the hardware's prefetch alone keep too few
 * lines in flight to stream host memory at its rate). */
#include "cpu_light.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SGK_HAVE_AVX512 1
#else
#define SGK_HAVE_AVX512 0
#endif

uint64_t sgk_light_tally_scalar(const uint32_t *w, uint64_t e0, uint64_t e1, uint64_t bound,
                                uint32_t wmask)
{
    uint64_t c = 0;
    for (uint64_t e = e0; e < e1; e++) c += (uint64_t)(w[e] & wmask) < bound;
    return c;
}

uint64_t sgk_light_count_scalar(const uint64_t *x, const uint32_t *w, uint64_t v0, uint64_t v1,
                                uint64_t bound, uint32_t wmask, uint64_t *cnt)
{
    uint64_t total = 0;
    for (uint64_t v = v0; v < v1; v++) {
        cnt[v - v0] = sgk_light_tally_scalar(w, x[v], x[v + 1], bound, wmask);
        total += cnt[v - v0];
    }
    return total;
}

uint64_t sgk_light_fill_scalar(const uint32_t *a, const uint32_t *w, uint64_t e0, uint64_t e1,
                               uint64_t bound, uint32_t wmask, uint32_t *la, uint32_t *lw)
{
    uint64_t k = 0;
    for (uint64_t e = e0; e < e1; e++)
        if ((uint64_t)(w[e] & wmask) < bound) {
            la[k] = a[e];
            lw[k] = w[e];
            k++;
        }
    return k;
}

uint64_t sgk_light_lists_scalar(const uint64_t *x, const uint32_t *a, const uint32_t *w,
                                uint64_t v0, uint64_t v1, uint64_t bound, uint32_t wmask,
                                uint64_t *cnt, uint32_t *la, uint32_t *lw)
{
    uint64_t k = 0;
    for (uint64_t v = v0; v < v1; v++) {
        const uint64_t c = sgk_light_fill_scalar(a, w, x[v], x[v + 1], bound, wmask, la + k,
                                                 lw + k);
        cnt[v - v0] = c;
        k += c;
    }
    return k;
}

#if SGK_HAVE_AVX512

#define AVX512 __attribute__((target("avx512f")))

/* The vector code compares w <= bound - 1 as u32: for 0 < bound <=
 * UINT32_MAX + 1 (else every entry or none is light: the plain loops). */
static int vector_ok(uint64_t bound)
{
    return bound > 0 && bound <= (uint64_t)UINT32_MAX + 1 && __builtin_cpu_supports("avx512f");
}

/* Lanes of entries [p, e) (at most 16) under a mask. */
static inline AVX512 __mmask16 span_mask(uint64_t p, uint64_t e)
{
    const uint64_t r = e - p;
    return r >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << r) - 1u);
}

/* One 64-byte line a step, SGK_LIGHT_AHEAD entries ahead, while that is
 * below pend (0: no prefetch). */
static inline void ahead(const uint32_t *arr, uint64_t p, uint64_t pend)
{
    if (p + SGK_LIGHT_AHEAD < pend) __builtin_prefetch(arr + p + SGK_LIGHT_AHEAD, 0, 3);
}

static inline AVX512 uint64_t tally_avx512(const uint32_t *w, uint64_t e0, uint64_t e1,
                                           __m512i lim, __m512i wm, uint64_t pend)
{
    uint64_t c = 0;
    for (uint64_t p = e0; p < e1; p += 16) {
        ahead(w, p, pend);
        const __mmask16 m = span_mask(p, e1);
        const __m512i wv = _mm512_and_si512(_mm512_maskz_loadu_epi32(m, w + p), wm);
        c += (uint64_t)__builtin_popcount((unsigned)_mm512_mask_cmple_epu32_mask(m, wv, lim));
    }
    return c;
}

static inline AVX512 __m512i limit(uint64_t bound)
{
    return _mm512_set1_epi32((int)(uint32_t)(bound - 1));
}

static AVX512 uint64_t tally_bound_avx512(const uint32_t *w, uint64_t e0, uint64_t e1,
                                          uint64_t bound, uint32_t wmask, uint64_t pend)
{
    return tally_avx512(w, e0, e1, limit(bound), _mm512_set1_epi32((int)wmask), pend);
}

static AVX512 uint64_t count_avx512(const uint64_t *x, const uint32_t *w, uint64_t v0,
                                    uint64_t v1, uint64_t bound, uint32_t wmask, uint64_t *cnt,
                                    bool prefetch)
{
    const __m512i lim = limit(bound), wm = _mm512_set1_epi32((int)wmask);
    const uint64_t pend = prefetch ? x[v1] : 0;
    uint64_t total = 0;
    for (uint64_t v = v0; v < v1; v++) {
        /* the steps of consecutive lists are at most 16 entries apart, so
         * every line ahead gets one */
        cnt[v - v0] = tally_avx512(w, x[v], x[v + 1], lim, wm, pend);
        total += cnt[v - v0];
    }
    return total;
}

/* The light entries of [e0, e1) into la + k up, prefetching below pend;
 * returns k past them. */
static inline AVX512 uint64_t fill_span(const uint32_t *a, const uint32_t *w, uint64_t e0,
                                        uint64_t e1, __m512i lim, __m512i wm, uint64_t pend,
                                        uint32_t *la, uint32_t *lw, uint64_t k)
{
    for (uint64_t p = e0; p < e1; p += 16) {
        ahead(a, p, pend);
        ahead(w, p, pend);
        const __mmask16 m = span_mask(p, e1);
        const __m512i wv = _mm512_maskz_loadu_epi32(m, w + p);
        const __mmask16 lt = _mm512_mask_cmple_epu32_mask(m, _mm512_and_si512(wv, wm), lim);
        if (!lt) continue;
        const __m512i av = _mm512_maskz_loadu_epi32(lt, a + p);
        const unsigned c = (unsigned)__builtin_popcount((unsigned)lt);
        const __mmask16 out = (__mmask16)((1u << c) - 1u);
        _mm512_mask_storeu_epi32(la + k, out, _mm512_maskz_compress_epi32(lt, av));
        _mm512_mask_storeu_epi32(lw + k, out, _mm512_maskz_compress_epi32(lt, wv));
        k += c;
    }
    return k;
}

static AVX512 uint64_t fill_avx512(const uint32_t *a, const uint32_t *w, uint64_t e0,
                                   uint64_t e1, uint64_t bound, uint32_t wmask, uint32_t *la,
                                   uint32_t *lw, bool prefetch)
{
    return fill_span(a, w, e0, e1, limit(bound), _mm512_set1_epi32((int)wmask),
                     prefetch ? e1 : 0, la, lw, 0);
}

/* Lists after one another: the steps of consecutive lists are at most 16
 * entries apart, so every line ahead gets a prefetch (as in the count). */
static AVX512 uint64_t lists_avx512(const uint64_t *x, const uint32_t *a, const uint32_t *w,
                                    uint64_t v0, uint64_t v1, uint64_t bound, uint32_t wmask,
                                    uint64_t *cnt, uint32_t *la, uint32_t *lw, bool prefetch)
{
    const __m512i lim = limit(bound), wm = _mm512_set1_epi32((int)wmask);
    const uint64_t pend = prefetch ? x[v1] : 0;
    uint64_t k = 0;
    for (uint64_t v = v0; v < v1; v++) {
        const uint64_t k0 = k;
        k = fill_span(a, w, x[v], x[v + 1], lim, wm, pend, la, lw, k);
        cnt[v - v0] = k - k0;
    }
    return k;
}

uint64_t sgk_light_tally(const uint32_t *w, uint64_t e0, uint64_t e1, uint64_t bound,
                         uint32_t wmask, bool prefetch)
{
    if (vector_ok(bound)) return tally_bound_avx512(w, e0, e1, bound, wmask, prefetch ? e1 : 0);
    return sgk_light_tally_scalar(w, e0, e1, bound, wmask);
}

uint64_t sgk_light_count(const uint64_t *x, const uint32_t *w, uint64_t v0, uint64_t v1,
                         uint64_t bound, uint32_t wmask, bool prefetch, uint64_t *cnt)
{
    if (vector_ok(bound)) return count_avx512(x, w, v0, v1, bound, wmask, cnt, prefetch);
    return sgk_light_count_scalar(x, w, v0, v1, bound, wmask, cnt);
}

uint64_t sgk_light_fill(const uint32_t *a, const uint32_t *w, uint64_t e0, uint64_t e1,
                        uint64_t bound, uint32_t wmask, bool prefetch, uint32_t *la, uint32_t *lw)
{
    if (vector_ok(bound)) return fill_avx512(a, w, e0, e1, bound, wmask, la, lw, prefetch);
    return sgk_light_fill_scalar(a, w, e0, e1, bound, wmask, la, lw);
}

uint64_t sgk_light_lists(const uint64_t *x, const uint32_t *a, const uint32_t *w, uint64_t v0,
                         uint64_t v1, uint64_t bound, uint32_t wmask, bool prefetch,
                         uint64_t *cnt, uint32_t *la, uint32_t *lw)
{
    if (vector_ok(bound))
        return lists_avx512(x, a, w, v0, v1, bound, wmask, cnt, la, lw, prefetch);
    return sgk_light_lists_scalar(x, a, w, v0, v1, bound, wmask, cnt, la, lw);
}

#else /* no x86-64 vector code */

uint64_t sgk_light_tally(const uint32_t *w, uint64_t e0, uint64_t e1, uint64_t bound,
                         uint32_t wmask, bool prefetch)
{
    (void)prefetch;
    return sgk_light_tally_scalar(w, e0, e1, bound, wmask);
}

uint64_t sgk_light_count(const uint64_t *x, const uint32_t *w, uint64_t v0, uint64_t v1,
                         uint64_t bound, uint32_t wmask, bool prefetch, uint64_t *cnt)
{
    (void)prefetch;
    return sgk_light_count_scalar(x, w, v0, v1, bound, wmask, cnt);
}

uint64_t sgk_light_fill(const uint32_t *a, const uint32_t *w, uint64_t e0, uint64_t e1,
                        uint64_t bound, uint32_t wmask, bool prefetch, uint32_t *la, uint32_t *lw)
{
    (void)prefetch;
    return sgk_light_fill_scalar(a, w, e0, e1, bound, wmask, la, lw);
}

uint64_t sgk_light_lists(const uint64_t *x, const uint32_t *a, const uint32_t *w, uint64_t v0,
                         uint64_t v1, uint64_t bound, uint32_t wmask, bool prefetch,
                         uint64_t *cnt, uint32_t *la, uint32_t *lw)
{
    (void)prefetch;
    return sgk_light_lists_scalar(x, a, w, v0, v1, bound, wmask, cnt, la, lw);
}

#endif
