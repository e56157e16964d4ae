/* Sorts of u64 keys for the lists (src/internal.h): the stores' writers
 * (csr_build.c: by neighbour, keeping the lightest of each), the weight
 * order of renumber and of a graph loaded so (graph.c), and the CPU
 * forest's lists (mst.c). Lists of up to SGI_SORT_VECTOR_MAX keys go
 * through a bitonic network of AVX-512 vectors where the CPU has it (most
 * lists: R-MAT's and SSCA2's average 16-32 entries, and R-MAT's many of a
 * few hundred); else insertion sort, quicksort, and an LSD radix sort from
 * RADIX_MIN keys (from RADIX_WIDE_MIN in wider digits over the bits that
 * vary). */
#include <string.h>

#include "internal.h"
#include "sg_sort8.h"

#define INSERTION_MAX 24 /* lists up to this length: insertion sort */
#define RADIX_MIN 128    /* lists from this length: LSD radix sort (the */
                         /* quicksort took 22 ns a key on 129-256 keys of */
                         /* R-MAT 24, the radix 8.6; tools/bench/sort_bench.c) */
#ifndef RADIX_WIDE_MIN   /* (overridable for tools/bench/sort_bench.c) */
#define RADIX_WIDE_MIN 1024 /* from this length: digits of RADIX_WIDE_BITS, */
#endif
#define RADIX_WIDE_BITS 11  /* over the varying bits only */
#define RADIX_DIGITS_MAX 8  /* digits of a radix sort: 64 bits in bytes */

static void insertion_sort(uint64_t *k, uint64_t n)
{
    for (uint64_t i = 1; i < n; i++) {
        const uint64_t x = k[i];
        uint64_t j = i;
        while (j > 0 && k[j - 1] > x) {
            k[j] = k[j - 1];
            j--;
        }
        k[j] = x;
    }
}

static inline void swap64(uint64_t *a, uint64_t *b)
{
    const uint64_t t = *a;
    *a = *b;
    *b = t;
}

/* Quicksort with median-of-three pivots; recursion on the smaller side
 * only, so the depth is O(log n). */
static void quick_sort(uint64_t *k, uint64_t n)
{
    while (n > INSERTION_MAX) {
        const uint64_t mid = n / 2;
        if (k[mid] < k[0]) swap64(&k[mid], &k[0]);
        if (k[n - 1] < k[0]) swap64(&k[n - 1], &k[0]);
        if (k[n - 1] < k[mid]) swap64(&k[n - 1], &k[mid]);
        const uint64_t pivot = k[mid];
        uint64_t i = 0, j = n - 1;
        for (;;) {
            while (k[i] < pivot) i++;
            while (k[j] > pivot) j--;
            if (i >= j) break;
            swap64(&k[i], &k[j]);
            i++;
            j--;
        }
        /* [0, j] <= pivot <= [j+1, n), both sides non-empty */
        const uint64_t left = j + 1;
        if (left < n - left) {
            quick_sort(k, left);
            k += left;
            n -= left;
        } else {
            quick_sort(k + left, n - left);
            n = left;
        }
    }
    insertion_sort(k, n);
}

/* LSD radix sort of k[0..n) by nw digits of `bits` bits (at most
 * RADIX_WIDE_BITS), digit w at bit shift[w], least significant first;
 * stable: one counting read for all digits, a digit equal in every key
 * skipped. tmp holds n keys. Returns where the sorted keys are (k or tmp).
 * (Past 2^32 keys, which its counts cannot hold, a quicksort of the whole
 * keys instead: sorted by those digits too, and in the same order where
 * the bits below them were ascending.) */
static uint64_t *radix_digits(uint64_t *k, uint64_t *tmp, uint64_t n, const unsigned *shift,
                              unsigned nw, unsigned bits)
{
    if (n >> 32) {
        quick_sort(k, n);
        return k;
    }
    const uint64_t mask = ((uint64_t)1 << bits) - 1;
    uint32_t count[RADIX_DIGITS_MAX][1 << RADIX_WIDE_BITS];
    for (unsigned w = 0; w < nw; w++) memset(count[w], 0, (mask + 1) * sizeof count[w][0]);
    for (uint64_t i = 0; i < n; i++)
        for (unsigned w = 0; w < nw; w++) count[w][(k[i] >> shift[w]) & mask]++;
    uint64_t *src = k, *dst = tmp;
    for (unsigned w = 0; w < nw; w++) {
        uint32_t *const c = count[w];
        const unsigned sh = shift[w];
        if (c[(src[0] >> sh) & mask] == n) continue; /* one bucket: nothing to do */
        uint32_t run = 0;
        for (uint64_t d = 0; d <= mask; d++) {
            const uint32_t t = c[d];
            c[d] = run;
            run += t;
        }
        for (uint64_t i = 0; i < n; i++) dst[c[(src[i] >> sh) & mask]++] = src[i];
        uint64_t *const t = src;
        src = dst;
        dst = t;
    }
    return src;
}

/* radix_digits over the `passes` bytes from bit `shift0` up. */
static uint64_t *radix_lsd(uint64_t *k, uint64_t *tmp, uint64_t n, unsigned shift0,
                           unsigned passes)
{
    unsigned shift[8];
    for (unsigned p = 0; p < passes; p++) shift[p] = shift0 + 8 * p;
    return radix_digits(k, tmp, n, shift, passes, 8);
}

/* LSD radix sort of k[0..n) by bits [32, 32 + nbits) only (the neighbour),
 * 8 bits a pass, stable. tmp holds n keys. Returns where the sorted keys
 * are (k or tmp). */
uint64_t *sgi_radix_sort_hi(uint64_t *k, uint64_t *tmp, uint64_t n, unsigned nbits)
{
    return radix_lsd(k, tmp, n, 32, (nbits + 7) / 8);
}

/* LSD radix sort of k[0..n) over the bits that vary among its keys only,
 * in digits of RADIX_WIDE_BITS from the lowest varying bit up, a digit's
 * window skipping runs of bits equal in every key (the forest's keys,
 * weight << 32 | neighbour, vary in two runs of ~20 bits: 4 passes, where
 * bytes took 6). As radix_digits. */
static uint64_t *radix_varying(uint64_t *k, uint64_t *tmp, uint64_t n)
{
    enum { D = RADIX_WIDE_BITS };
    uint64_t diff = 0;
    for (uint64_t i = 1; i < n; i++) diff |= k[i] ^ k[0];
    if (!diff) return k;
    unsigned shift[RADIX_DIGITS_MAX], nw = 0;
    for (unsigned p = (unsigned)__builtin_ctzll(diff);;) {
        shift[nw++] = p;
        const uint64_t rest = p + D >= 64 ? 0 : diff >> (p + D);
        if (!rest) break;
        p += D + (unsigned)__builtin_ctzll(rest);
    }
    return radix_digits(k, tmp, n, shift, nw, D);
}

uint64_t *sgi_sort_u64_scalar(uint64_t *k, uint64_t n, uint64_t *tmp)
{
    if (n <= INSERTION_MAX) {
        insertion_sort(k, n);
        return k;
    }
    if (n < RADIX_MIN) {
        quick_sort(k, n);
        return k;
    }
    if (n >= RADIX_WIDE_MIN) return radix_varying(k, tmp, n);
    return radix_lsd(k, tmp, n, 0, 8);
}

uint64_t *sgi_sort_u64(uint64_t *k, uint64_t n, uint64_t *tmp)
{
    if (n <= SGI_SORT_VECTOR_MAX && sgi_sort_small_simd(k, n)) return k;
    return sgi_sort_u64_scalar(k, n, tmp);
}

/* Sorts the list k[0..n) by neighbour, keeps the least weight of each
 * neighbour, writes the result from k[0] and returns its length. tmp holds
 * n keys (used for n >= RADIX_MIN). */
uint64_t sgi_sort_dedupe(uint64_t *k, uint64_t n, uint64_t *tmp, unsigned nbits)
{
    if (n <= 1) return n;
    /* short lists sorted as whole integers (by neighbour, then weight),
     * long ones by the neighbour's bits alone */
    const uint64_t *s = n <= SGI_SORT_VECTOR_MAX && sgi_sort_small_simd(k, n) ? k
                        : n < RADIX_MIN ? sgi_sort_u64_scalar(k, n, tmp)
                                        : sgi_radix_sort_hi(k, tmp, n, nbits);
    uint64_t out = 0, cur = s[0];
    for (uint64_t i = 1; i < n; i++) {
        const uint64_t e = s[i];
        if (e >> 32 == cur >> 32) {
            if (e < cur) cur = e; /* same neighbour: the lighter */
        } else {
            k[out++] = cur;
            cur = e;
        }
    }
    k[out++] = cur;
    return out;
}

/* ---------------------------------------------------------------- vectors */

#if SG_HAVE_AVX512

/* Runs x[0 .. r) and x[r .. 2r) of vectors, each ascending in lane order
 * then vector order, merged into x[0 .. 2r): each vector of the first run
 * against the mirror of the second's (a half-cleaner over the bitonic
 * sequence of the first run and the second reversed), then each half
 * cleaned at distances of r / 2 .. 1 vectors and within each vector. */
static inline SG_AVX512 __attribute__((always_inline)) void merge_runs(__m512i *x,
                                                                       const unsigned r)
{
    __m512i lo[64], hi[64];
    for (unsigned i = 0; i < r; i++) {
        const __m512i y = reverse8(x[2 * r - 1 - i]);
        lo[i] = _mm512_min_epu64(x[i], y);
        hi[i] = _mm512_max_epu64(x[i], y);
    }
    for (unsigned i = 0; i < r; i++) {
        x[i] = lo[i];
        x[r + i] = hi[i];
    }
    for (unsigned d = r / 2; d >= 1; d /= 2)
        for (unsigned b = 0; b < 2 * r; b += 2 * d)
            for (unsigned j = b; j < b + d; j++) {
                const __m512i a = x[j];
                x[j] = _mm512_min_epu64(a, x[j + d]);
                x[j + d] = _mm512_max_epu64(a, x[j + d]);
            }
    for (unsigned i = 0; i < 2 * r; i++) x[i] = clean8(x[i]);
}

/* The lanes of vector i that hold keys of a list of n. */
static inline __mmask8 lanes_of(uint64_t n, unsigned i)
{
    const uint64_t at = 8 * (uint64_t)i;
    return at >= n ? 0 : n - at >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - at)) - 1);
}

/* k[0 .. n) ascending, n <= 8 nv: nv vectors (a power of two, up to 128),
 * the lanes past n holding UINT64_MAX (which sort last, so the first n are
 * k's keys sorted even where some equal UINT64_MAX), each sorted, then
 * merged in runs of 1, 2, 4, .. nv / 2 vectors. Past 32 vectors they live
 * in the stack frame, not in registers, and still beat the radix sort: on
 * R-MAT 24's lists (sort_bench, one thread of the development machine)
 * 129-256 keys 3.4 ns a key (quicksort 22), 513-1024 keys 5.3 (radix
 * 7.2); 257-512 keys 7.0 (radix 8.6), a list just past 256 padded to 512. */
static inline SG_AVX512 __attribute__((always_inline)) void sort_vectors(uint64_t *k, uint64_t n,
                                                                         const unsigned nv)
{
    __m512i x[128];
    const __m512i pad = _mm512_set1_epi64(-1);
    for (unsigned i = 0; i < nv; i++)
        x[i] = sort8(_mm512_mask_loadu_epi64(pad, lanes_of(n, i), k + 8 * i));
    for (unsigned r = 1; r < nv; r *= 2)
        for (unsigned b = 0; b < nv; b += 2 * r) merge_runs(x + b, r);
    for (unsigned i = 0; i < nv; i++) _mm512_mask_storeu_epi64(k + 8 * i, lanes_of(n, i), x[i]);
}

static SG_AVX512 void sort_small_avx512(uint64_t *k, uint64_t n)
{
    if (n <= 8)
        sort_vectors(k, n, 1);
    else if (n <= 16)
        sort_vectors(k, n, 2);
    else if (n <= 32)
        sort_vectors(k, n, 4);
    else if (n <= 64)
        sort_vectors(k, n, 8);
    else if (n <= 128)
        sort_vectors(k, n, 16);
    else if (n <= 256)
        sort_vectors(k, n, 32);
    else if (n <= 512)
        sort_vectors(k, n, 64);
    else
        sort_vectors(k, n, 128);
}

bool sgi_sort_small_simd(uint64_t *k, uint64_t n)
{
    if (n > SGI_SORT_VECTOR_MAX || !__builtin_cpu_supports("avx512f") ||
        !__builtin_cpu_supports("avx512bw"))
        return false;
    if (n > 1) sort_small_avx512(k, n);
    return true;
}

#else

bool sgi_sort_small_simd(uint64_t *k, uint64_t n)
{
    (void)k;
    (void)n;
    return false;
}

#endif
