/* AVX-512 sorting steps on vectors of 8 u64 keys, shared by the CPU
 * engine's list sorts (src/sort.c) and the forest's CPU top-K
 * (kernels/cpu_topk.c). SG_HAVE_AVX512 says whether this compiler can emit
 * them (x86-64, GCC or Clang); the functions carry SG_AVX512, so the rest
 * of a file builds for the baseline ISA and a caller picks them at run time
 * (__builtin_cpu_supports). */
#ifndef SG_SORT8_H
#define SG_SORT8_H

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SG_HAVE_AVX512 1
#define SG_AVX512 __attribute__((target("avx512f,avx512bw")))

/* Lanes [l0 .. l7] as an index vector (_mm512_set_epi64 takes lane 7 first). */
#define LANES(l0, l1, l2, l3, l4, l5, l6, l7) _mm512_set_epi64(l7, l6, l5, l4, l3, l2, l1, l0)

/* A compare-exchange layer: lane i against lane idx[i] (lanes paired), the
 * lanes in hi keeping the larger key. */
static inline SG_AVX512 __attribute__((always_inline)) __m512i cx_layer(__m512i v, __m512i idx,
                                                                        __mmask8 hi)
{
    const __m512i p = _mm512_permutexvar_epi64(idx, v);
    return _mm512_mask_blend_epi64(hi, _mm512_min_epu64(v, p), _mm512_max_epu64(v, p));
}

/* 8 keys ascending: Batcher's odd-even merge sort, 19 comparators in 6
 * layers. */
static inline SG_AVX512 __attribute__((always_inline)) __m512i sort8(__m512i v)
{
    v = cx_layer(v, LANES(1, 0, 3, 2, 5, 4, 7, 6), 0xaa);
    v = cx_layer(v, LANES(2, 3, 0, 1, 6, 7, 4, 5), 0xcc);
    v = cx_layer(v, LANES(0, 2, 1, 3, 4, 6, 5, 7), 0x44);
    v = cx_layer(v, LANES(4, 5, 6, 7, 0, 1, 2, 3), 0xf0);
    v = cx_layer(v, LANES(0, 1, 4, 5, 2, 3, 6, 7), 0x30);
    return cx_layer(v, LANES(0, 2, 1, 4, 3, 6, 5, 7), 0x54);
}

/* A bitonic sequence of 8 keys in one vector, ascending: half-cleaners at
 * lane distances 4, 2 and 1. */
static inline SG_AVX512 __attribute__((always_inline)) __m512i clean8(__m512i r)
{
    r = cx_layer(r, LANES(4, 5, 6, 7, 0, 1, 2, 3), 0xf0);
    r = cx_layer(r, LANES(2, 3, 0, 1, 6, 7, 4, 5), 0xcc);
    return cx_layer(r, LANES(1, 0, 3, 2, 5, 4, 7, 6), 0xaa);
}

/* The lanes in reverse order. */
static inline SG_AVX512 __attribute__((always_inline)) __m512i reverse8(__m512i v)
{
    return _mm512_permutexvar_epi64(LANES(7, 6, 5, 4, 3, 2, 1, 0), v);
}

/* The 8 smallest of two ascending vectors, ascending: the smaller of each
 * lane and its mirror in the other (a bitonic sequence holding them), then
 * a bitonic merge. */
static inline SG_AVX512 __attribute__((always_inline)) __m512i merge8(__m512i x, __m512i y)
{
    return clean8(_mm512_min_epu64(x, reverse8(y)));
}

#else
#define SG_HAVE_AVX512 0
#endif

#endif
