/* The K lightest entries of a list on the CPU (kernels/cpu_topk.h): the
 * hybrid forest's first round hands the CPU threads the host lists from n
 * down while the GPU streams them from the bottom up (kernels/mst.cu).
 *
 * Scalar: each key passes through K min / max steps (branch-free: the
 * slots stay sorted, a key not below the last passes through unchanged).
 * On SSCA2 26 at 6 GiB (lists of ~32 random weights, K = 4) the CPU side
 * took 0.76 G entries in 0.31 s on 16 threads, ~20 cycles an entry, while
 * the same threads can scan host memory at 69-82 GB/s beside the GPU: the
 * compares, not the memory, bound it.
 *
 * AVX-512F, lists of more than SGK_TOPK_SHORT entries (or their heads,
 * below): 16 entries at a time become two rows of eight 64-bit keys
 * (self-loops and lanes past the end UINT64_MAX); four rows are sorted
 * column by column by whole-vector min / max, and sorted fours merged
 * into four running rows, so that each lane keeps its four smallest keys
 * (rows64, rows_add); at the end the lanes are merged pairwise (a bitonic
 * merge of sorted fours) down to one. sgk_topk_lists takes two
 * neighbouring lists of 17 to 64 entries together, their last two lane
 * merges in one set of vectors (topk_pair, lanes_take2). No branch per
 * key. With the filter a list is taken as the scalar code takes it: the
 * first 64 entries so, then blocks of 16 weights tested in one compare,
 * the entries at or under the limit read whole and inserted one by one.
 * So both versions read the same entries, keep the same multiset and count
 * the same leaving entries. Lists of 1 to SGK_TOPK_SHORT entries: one or
 * two vectors of keys sorted by a sorting network (and merged), a fixed
 * cost.
 *
 * On the H100 host's Xeon, one thread, keys in cache, ns a list (docs/
 * benchmarks.md, twentieth session): the slot chain of the scalar code took
 * 17 for 1 entry, 70 for 8 and 121 for 15; the lanes 95 for 16, 113 for 32,
 * 235 for 128; a list of 1024 622 with the 16-wide filter against 1173
 * with the earlier blocks of 8; lists of 17 to 64 took 48-135 as sorting
 * networks (thirty-fourth session: 28 for 32 and 41 for 64 as rows, call
 * 2).
 *
 * 48-bit entries (cpu_topk.h; the packed tail's, src/gpu_engine.c, which
 * the forest's CPU threads read with SPILLGRAPH_GPU_ENABLE=packed-cpu:
 * docs/benchmarks.md, forty-third and forty-fourth sessions): the same
 * code over entries whose values are their keys, each half of 16 read by
 * one load and one word permute, the slots turned into the caller's keys
 * once, in the vectors, before they are taken out. The
 * functions take the list's source as a struct (lsrc) and are inlined per
 * kind with the source's pointers constant, so the A-and-W code is what it
 * was (topk_bench at -O3 on the development machine: the same ns an entry
 * within 3 %). On that machine (AMD EPYC, two threads) the 48-bit top-K
 * takes 7-24 % longer an entry than over A and W (topk_store: SSCA2 22
 * 2.8-3.0 against 3.7-4.0 G entries/s, R-MAT 22 2.5 against 2.65): its
 * reads are a quarter smaller, its compute a little larger. On the H100
 * host's 16 threads, bound by their compute, it was 12-22 % slower too
 * (SSCA2 26 7.3 against 9.1-9.4, R-MAT 26 6.0 against 6.8-7.3), so the
 * forest's threads read A and W by default. */
#include "cpu_topk.h"

#include <string.h>

#include "sg_common.h"

#include "sg_sort8.h"
#define SGK_HAVE_AVX512 SG_HAVE_AVX512

#define NONE UINT64_MAX

/* Where a list's entries are: a[] and w[] (w holding f32 bits if f32);
 * a[] and 24-bit weights, w16[] their low 16 bits and w8[] bits 16-23 (u32
 * weights; w NULL); or, with e set, 48-bit entries (cpu_topk.h,
 * sgk_e48_pack) whose values order as their keys, idm = 2^idbits - 1
 * masking the neighbour. The functions below are inlined for each kind
 * with e and w16 constants (NULL for the first), so that each kind's code
 * is its own. */
typedef struct lsrc {
    const uint32_t *a, *w;
    bool f32;
    const uint8_t *e;
    int idbits;
    uint64_t idm;
    const uint16_t *w16;
    const uint8_t *w8;
} lsrc;

static inline __attribute__((always_inline)) lsrc src_aw(const uint32_t *a, const uint32_t *w,
                                                         bool f32)
{
    const lsrc s = {.a = a, .w = w, .f32 = f32};
    return s;
}

static inline __attribute__((always_inline)) lsrc src_w24(const uint32_t *a, const uint16_t *w16,
                                                          const uint8_t *w8)
{
    const lsrc s = {.a = a, .w16 = w16, .w8 = w8};
    return s;
}

static inline __attribute__((always_inline)) lsrc src_e48(const uint8_t *e, int idbits)
{
    const lsrc s = {.e = e, .idbits = idbits, .idm = (1ull << idbits) - 1};
    return s;
}

/* The list from entry b on. */
static inline __attribute__((always_inline)) lsrc src_at(lsrc s, uint64_t b)
{
    if (s.e) {
        s.e += 6 * b;
    } else if (s.w16) {
        s.a += b;
        s.w16 += b;
        s.w8 += b;
    } else {
        s.a += b;
        s.w += b;
    }
    return s;
}

/* Entry p's weight bits (not for 48-bit entries). */
static inline __attribute__((always_inline)) uint32_t src_w(lsrc s, uint64_t p)
{
    return s.w16 ? (uint32_t)s.w16[p] | (uint32_t)s.w8[p] << 16 : s.w[p];
}

/* A slot's key as the caller takes it (weight key << 32 | neighbour). */
static inline __attribute__((always_inline)) uint64_t slot_out(lsrc s, uint64_t k)
{
    if (!s.e || k == NONE) return k;
    return (k >> s.idbits) << 32 | (k & s.idm);
}

/* Inserts val into the K ascending slots, branch-free. */
static inline __attribute__((always_inline)) void slot_insert(uint64_t *best, const int K,
                                                              uint64_t val)
{
    for (int s = 0; s < K; s++) {
        const uint64_t lo = val < best[s] ? val : best[s];
        val = val < best[s] ? best[s] : val;
        best[s] = lo;
    }
}

/* Entry p's neighbour, and its key (given the neighbour) in the source's
 * own order: for 48-bit entries the entry itself. */
static inline __attribute__((always_inline)) uint32_t src_nb(lsrc s, uint64_t p)
{
    return s.e ? (uint32_t)(sgk_e48_get(s.e, p) & s.idm) : s.a[p];
}

static inline __attribute__((always_inline)) uint64_t src_key(lsrc s, uint64_t p, uint32_t nb)
{
    return s.e ? sgk_e48_get(s.e, p) : (uint64_t)sgi_key_of_bits(s.f32, src_w(s, p)) << 32 | nb;
}

/* Whether entry p's weight key is at most that of the last slot `last`
 * (read without its neighbour where the source keeps them apart). */
static inline __attribute__((always_inline)) bool src_under(lsrc s, uint64_t p, uint64_t last)
{
    if (s.e) return sgk_e48_get(s.e, p) <= (last | s.idm);
    return sgi_key_of_bits(s.f32, src_w(s, p)) <= (uint32_t)(last >> 32);
}

/* The key of entry p (NONE for a self-loop), counting the others. */
static inline __attribute__((always_inline)) uint64_t entry_key(lsrc s, uint64_t p, uint32_t v,
                                                                uint64_t *leaving)
{
    const uint32_t nb = src_nb(s, p);
    const bool self = nb == v;
    *leaving += !self;
    return self ? NONE : src_key(s, p, nb);
}

/* Past the head of a filtered list: an entry whose weight key is at most the
 * block's limit is read whole (a[p]); a self-loop among those is taken off
 * the count (every entry past the head was counted), the others go through
 * the slots. */
static inline __attribute__((always_inline)) void tested_insert(lsrc s, uint64_t p, uint32_t v,
                                                                const int K, uint64_t *best,
                                                                uint64_t *leaving)
{
    const uint32_t nb = src_nb(s, p);
    if (nb == v)
        --*leaving;
    else
        slot_insert(best, K, src_key(s, p, nb));
}

static inline __attribute__((always_inline)) uint64_t
topk_scalar_k(lsrc s, uint64_t len, uint32_t v, const int K, bool filter, uint64_t *out)
{
    uint64_t best[4] = {NONE, NONE, NONE, NONE};
    uint64_t leaving = 0, p = 0;
    const uint64_t head = filter && len > SGK_TOPK_BLOCKS_PAST ? SGK_TOPK_HEAD : len;
    for (; p < head; p++) slot_insert(best, K, entry_key(s, p, v, &leaving));
    leaving += len - p;
    for (; p < len; p += SGK_TOPK_BLOCK) {
        /* a key enters only if its weight key is at most the last slot's
         * at the block's start */
        const uint64_t last = best[K - 1];
        const uint64_t e = len - p < SGK_TOPK_BLOCK ? len : p + SGK_TOPK_BLOCK;
        for (uint64_t q = p; q < e; q++)
            if (src_under(s, q, last)) tested_insert(s, q, v, K, best, &leaving);
    }
    for (int i = 0; i < K; i++) out[i] = slot_out(s, best[i]);
    return leaving;
}

/* topk_scalar_k for a K of 1 to 4, each inlined with its own constant. */
#define TOPK_BY_K(call_k)                                                                   \
    switch (K) {                                                                            \
    case 1: return call_k(1);                                                               \
    case 2: return call_k(2);                                                               \
    case 3: return call_k(3);                                                               \
    default: return call_k(4);                                                              \
    }

uint64_t sgk_topk_scalar(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v,
                         bool f32, int K, bool filter, uint64_t *out)
{
#define CALL(k) topk_scalar_k(src_aw(a, w, f32), len, v, k, filter, out)
    TOPK_BY_K(CALL)
#undef CALL
}

uint64_t sgk_topk48_scalar(const uint8_t *e, uint64_t len, uint32_t v, int idbits, int K,
                           bool filter, uint64_t *out)
{
#define CALL(k) topk_scalar_k(src_e48(e, idbits), len, v, k, filter, out)
    TOPK_BY_K(CALL)
#undef CALL
}

static uint64_t topk24_scalar(const uint32_t *a, const uint16_t *w16, const uint8_t *w8,
                              uint64_t len, uint32_t v, int K, bool filter, uint64_t *out)
{
#define CALL(k) topk_scalar_k(src_w24(a, w16, w8), len, v, k, filter, out)
    TOPK_BY_K(CALL)
#undef CALL
}

/* Prefetches the 64-byte lines holding bytes [b0, b1) from p. */
static inline void prefetch_lines(const void *p, uint64_t b0, uint64_t b1)
{
    if (b0 >= b1) return;
    const uintptr_t end = (uintptr_t)p + b1;
    for (uintptr_t q = ((uintptr_t)p + b0) & ~(uintptr_t)63; q < end; q += 64)
        __builtin_prefetch((const void *)q, 0, SGK_TOPK_LOCALITY);
}

/* Prefetches the weights of a block of SGK_TOPK_BLOCK entries from entry p
 * (the filter blocks read no more than that; 48-bit entries span two lines). */
static inline void prefetch_w(lsrc s, uint64_t p)
{
    if (s.e) {
        __builtin_prefetch(s.e + 6 * p, 0, SGK_TOPK_LOCALITY);
        __builtin_prefetch(s.e + 6 * p + 64, 0, SGK_TOPK_LOCALITY);
    } else if (s.w16) {
        /* none: on the development machine W16 and W8 prefetched so (every
         * block, or a line of each only when the block starts one) took lists
         * of 100000 from 0.19-0.20 to 0.22-0.23 ns an entry */
    } else {
        __builtin_prefetch(s.w + p, 0, SGK_TOPK_LOCALITY);
    }
}

/* Two lists of SGK_TOPK_SHORT + 1 to SGK_TOPK_HEAD entries at once (in
 * the vector code, below), of A and W or of 48-bit entries, and whether
 * topk_run may take them so. */
static uint64_t topk_pair(const uint32_t *a, const uint32_t *w, uint64_t b0, uint64_t len0,
                          uint64_t b1, uint64_t len1, uint32_t v, bool f32, int K, uint64_t *o0,
                          uint64_t *o1);
static uint64_t topk48_pair(const uint8_t *e, int idbits, uint64_t b0, uint64_t len0, uint64_t b1,
                            uint64_t len1, uint32_t v, int K, uint64_t *o0, uint64_t *o1);
static uint64_t topk24_pair(const uint32_t *a, const uint16_t *w16, const uint8_t *w8,
                            uint64_t b0, uint64_t len0, uint64_t b1, uint64_t len1, uint32_t v,
                            int K, uint64_t *o0, uint64_t *o1);
static bool topk_pairs(sgk_topk_fn topk, sgk_topk48_fn topk48);
/* One list of A and 24-bit weights, by the scalar or the vector code
 * (below; each builds its source itself, so that its kind is a constant
 * in the inlined code). */
static uint64_t topk24_scalar(const uint32_t *a, const uint16_t *w16, const uint8_t *w8,
                              uint64_t len, uint32_t v, int K, bool filter, uint64_t *out);
static uint64_t topk24_simd(const uint32_t *a, const uint16_t *w16, const uint8_t *w8,
                            uint64_t len, uint32_t v, int K, bool filter, uint64_t *out);

/* Whether a list of len entries can go in a pair. */
static inline bool pair_len(uint64_t len) { return len > SGK_TOPK_SHORT && len <= SGK_TOPK_HEAD; }

/* sgk_topk_lists (idx NULL) and sgk_topk_packed (idx set), prefetching up
 * to entry pf_end (x[v1], or past it where the caller goes on with the
 * lists after v1: sgk_topk_fill48's runs): the slots of
 * list v go to out[(v - v0) K ..], or with idx to the next record, but only
 * for a list with entries (an empty one's slots go to a scratch record, a
 * pointer select rather than a branch: about half of R-MAT's lists are
 * empty, in no pattern). Returns the records written. */
static inline __attribute__((always_inline)) uint64_t
topk_loop(const uint64_t *x, lsrc s, uint64_t v0, uint64_t v1, sgk_topk_fn topk,
          sgk_topk48_fn topk48, int K, bool filter, bool prefetch, uint64_t *out, uint32_t *idx,
          sgk_topk_tally *t, uint64_t pf_end, const bool pairs)
{
    const uint64_t end = pf_end; /* the prefetch's end: x[v1], or a caller's further on */
    uint64_t pf = x[v0]; /* the entries prefetched up to entry pf */
    uint64_t nl = 0, nlong = 0, ne = 0, nlv = 0, r = 0;
    uint64_t scratch[4];
    uint32_t spare = 0;
    for (uint64_t v = v0; v < v1; v++) {
        const uint64_t b = x[v], len = x[v + 1] - b;
        if (prefetch) {
            const uint64_t ahead = end - b < SGK_TOPK_AHEAD ? end : b + SGK_TOPK_AHEAD;
            if (s.e) {
                prefetch_lines(s.e, 6 * pf, 6 * ahead);
            } else if (s.w16) {
                prefetch_lines(s.w16, 2 * pf, 2 * ahead);
                prefetch_lines(s.w8, pf, ahead);
                prefetch_lines(s.a, 4 * pf, 4 * ahead);
            } else {
                prefetch_lines(s.w, 4 * pf, 4 * ahead);
                prefetch_lines(s.a, 4 * pf, 4 * ahead);
            }
            pf = ahead > pf ? ahead : pf;
        }
        uint64_t *o = out + (v - v0) * (uint64_t)K;
        if (pairs && pair_len(len) && v + 1 < v1 && pair_len(x[v + 2] - x[v + 1])) {
            /* this list and the next, both with entries */
            const uint64_t len1 = x[v + 2] - x[v + 1];
            if (idx) {
                o = out + r * (uint64_t)K;
                idx[r] = (uint32_t)v;
                idx[r + 1] = (uint32_t)(v + 1);
                r += 2;
            }
            nlv += s.e     ? topk48_pair(s.e, s.idbits, b, len, x[v + 1], len1, (uint32_t)v, K,
                                         o, o + K)
                   : s.w16 ? topk24_pair(s.a, s.w16, s.w8, b, len, x[v + 1], len1, (uint32_t)v, K,
                                         o, o + K)
                           : topk_pair(s.a, s.w, b, len, x[v + 1], len1, (uint32_t)v, s.f32, K,
                                       o, o + K);
            nl += 2;
            ne += len + len1;
            v++;
            continue;
        }
        if (idx) {
            const bool keep = len > 0;
            o = keep ? out + r * (uint64_t)K : scratch;
            *(keep ? idx + r : &spare) = (uint32_t)v;
            r += keep;
        }
        if (s.e)
            nlv += (pairs ? sgk_topk48_simd : topk48)(s.e + 6 * b, len, (uint32_t)v, s.idbits, K,
                                                     filter, o);
        else if (s.w16) /* (topk names the code: the scalar one, or the vector one) */
            nlv += (topk == sgk_topk_scalar ? topk24_scalar : topk24_simd)(
                s.a + b, s.w16 + b, s.w8 + b, len, (uint32_t)v, K, filter, o);
        else
            nlv += pairs ? sgk_topk_simd(s.a + b, s.w + b, len, (uint32_t)v, s.f32, K, filter, o)
                         : topk(s.a + b, s.w + b, len, (uint32_t)v, s.f32, K, filter, o);
        nl += len > 0;
        nlong += filter && len > SGK_TOPK_BLOCKS_PAST;
        ne += len;
    }
    t->lists += nl;
    t->longs += nlong;
    t->entries += ne;
    t->leaving += nlv;
    return idx ? r : v1 - v0;
}

/* topk_loop with pairs where topk is the vector code, its calls direct. */
static uint64_t topk_run(const uint64_t *x, const uint32_t *a, const uint32_t *w, uint64_t v0,
                         uint64_t v1, sgk_topk_fn topk, bool f32, int K, bool filter,
                         bool prefetch, uint64_t *out, uint32_t *idx, sgk_topk_tally *t,
                         uint64_t pf_end)
{
    const lsrc s = src_aw(a, w, f32);
    if (topk_pairs(topk, NULL))
        return topk_loop(x, s, v0, v1, topk, NULL, K, filter, prefetch, out, idx, t, pf_end, true);
    return topk_loop(x, s, v0, v1, topk, NULL, K, filter, prefetch, out, idx, t, pf_end, false);
}

void sgk_topk_lists(const uint64_t *x, const uint32_t *a, const uint32_t *w, uint64_t v0,
                    uint64_t v1, sgk_topk_fn topk, bool f32, int K, bool filter, bool prefetch,
                    uint64_t *out, sgk_topk_tally *t)
{
    (void)topk_run(x, a, w, v0, v1, topk, f32, K, filter, prefetch, out, NULL, t, x[v1]);
}

uint64_t sgk_topk_packed(const uint64_t *x, const uint32_t *a, const uint32_t *w, uint64_t v0,
                         uint64_t v1, sgk_topk_fn topk, bool f32, int K, bool filter,
                         bool prefetch, uint64_t *rec, uint32_t *idx, sgk_topk_tally *t)
{
    return topk_run(x, a, w, v0, v1, topk, f32, K, filter, prefetch, rec, idx, t, x[v1]);
}

/* topk_loop over 24-bit weights, with pairs where topk is the vector code. */
static uint64_t topk24_run(const uint64_t *x, const uint32_t *a, const uint16_t *w16,
                           const uint8_t *w8, uint64_t v0, uint64_t v1, sgk_topk_fn topk, int K,
                           bool filter, bool prefetch, uint64_t *out, uint32_t *idx,
                           sgk_topk_tally *t, uint64_t pf_end)
{
    const lsrc s = src_w24(a, w16, w8);
    if (topk_pairs(topk, NULL))
        return topk_loop(x, s, v0, v1, topk, NULL, K, filter, prefetch, out, idx, t, pf_end, true);
    return topk_loop(x, s, v0, v1, topk, NULL, K, filter, prefetch, out, idx, t, pf_end, false);
}

void sgk_topk24_lists(const uint64_t *x, const uint32_t *a, const uint16_t *w16, const uint8_t *w8,
                      uint64_t v0, uint64_t v1, sgk_topk_fn topk, int K, bool filter,
                      bool prefetch, uint64_t *out, sgk_topk_tally *t)
{
    (void)topk24_run(x, a, w16, w8, v0, v1, topk, K, filter, prefetch, out, NULL, t, x[v1]);
}

uint64_t sgk_topk24_packed(const uint64_t *x, const uint32_t *a, const uint16_t *w16,
                           const uint8_t *w8, uint64_t v0, uint64_t v1, sgk_topk_fn topk, int K,
                           bool filter, bool prefetch, uint64_t *rec, uint32_t *idx,
                           sgk_topk_tally *t)
{
    return topk24_run(x, a, w16, w8, v0, v1, topk, K, filter, prefetch, rec, idx, t, x[v1]);
}

/* topk_loop over 48-bit entries, with pairs where topk is the vector code. */
static uint64_t topk48_run(const uint64_t *x, const uint8_t *e, int idbits, uint64_t v0,
                           uint64_t v1, sgk_topk48_fn topk, int K, bool filter, bool prefetch,
                           uint64_t *out, uint32_t *idx, sgk_topk_tally *t, uint64_t pf_end)
{
    const lsrc s = src_e48(e, idbits);
    if (topk_pairs(NULL, topk))
        return topk_loop(x, s, v0, v1, NULL, topk, K, filter, prefetch, out, idx, t, pf_end, true);
    return topk_loop(x, s, v0, v1, NULL, topk, K, filter, prefetch, out, idx, t, pf_end, false);
}

void sgk_topk48_lists(const uint64_t *x, const uint8_t *e, int idbits, uint64_t v0, uint64_t v1,
                      sgk_topk48_fn topk, int K, bool filter, bool prefetch, uint64_t *out,
                      sgk_topk_tally *t)
{
    (void)topk48_run(x, e, idbits, v0, v1, topk, K, filter, prefetch, out, NULL, t, x[v1]);
}

uint64_t sgk_topk48_packed(const uint64_t *x, const uint8_t *e, int idbits, uint64_t v0,
                           uint64_t v1, sgk_topk48_fn topk, int K, bool filter, bool prefetch,
                           uint64_t *rec, uint32_t *idx, sgk_topk_tally *t)
{
    return topk48_run(x, e, idbits, v0, v1, topk, K, filter, prefetch, rec, idx, t, x[v1]);
}

int sgk_e48_bits(uint64_t n, uint32_t max_weight)
{
    int idbits = 1;
    while (idbits < 32 && n > 1 && (n - 1) >> idbits) idbits++;
    if (n > (1ull << 32)) return -1;
    return (uint64_t)max_weight >> (48 - idbits) ? -1 : idbits;
}

uint32_t sgk_e48_pack(const uint32_t *a, const uint32_t *w, uint64_t cnt, int idbits,
                      uint8_t *out)
{
    uint32_t mx = 0;
    for (uint64_t p = 0; p < cnt; p++) {
        const uint64_t k = (uint64_t)w[p] << idbits | a[p];
        const uint32_t lo = (uint32_t)k;
        const uint16_t hi = (uint16_t)(k >> 32);
        memcpy(out + 6 * p, &lo, 4); /* (little-endian, as the readers assume) */
        memcpy(out + 6 * p + 4, &hi, 2);
        mx = w[p] > mx ? w[p] : mx;
    }
    return mx;
}

uint32_t sgk_e48_pack_range(const uint32_t *a, const uint32_t *w, uint64_t from, uint64_t to,
                            int idbits, int threads, uint8_t *e)
{
    /* pieces of 1 Mi entries, each packed (and its pages first touched) by
     * one thread */
    const uint64_t piece = (uint64_t)1 << 20;
    const int64_t np = to > from ? (int64_t)((to - from + piece - 1) / piece) : 0;
    uint32_t mx = 0;
#pragma omp parallel for schedule(static) reduction(max : mx) num_threads(threads > 0 ? threads : 1)
    for (int64_t i = 0; i < np; i++) {
        const uint64_t p0 = from + (uint64_t)i * piece, p1 = p0 + piece < to ? p0 + piece : to;
        const uint32_t x = sgk_e48_pack(a + p0, w + p0, p1 - p0, idbits, e + 6 * p0);
        mx = x > mx ? x : mx;
    }
    return mx;
}

/* One slot's 48 bits, and whether it fits (cpu_topk.h: a weight key up to
 * 2^(48 - idbits) - 2, a neighbour below 2^idbits). */
static inline uint64_t slot48_of(uint64_t k, int idbits, bool *fits)
{
    if (k == NONE) return SGK_SLOT48_NONE;
    const uint64_t wk = k >> 32, nb = k & 0xFFFFFFFFull;
    *fits &= wk <= (1ull << (48 - idbits)) - 2 && nb >> idbits == 0;
    return wk << idbits | nb;
}

bool sgk_slots48_pack_scalar(const uint64_t *s, uint64_t cnt, int idbits, uint8_t *out)
{
    bool fits = true;
    for (uint64_t i = 0; i < cnt; i++) {
        const uint64_t k = slot48_of(s[i], idbits, &fits);
        const uint32_t lo = (uint32_t)k;
        const uint16_t hi = (uint16_t)(k >> 32);
        memcpy(out + 6 * i, &lo, 4); /* (little-endian, as the device reads them) */
        memcpy(out + 6 * i + 4, &hi, 2);
    }
    return fits;
}

static bool slots48_pack_avx512(const uint64_t *s, uint64_t cnt, int idbits, uint8_t *out);
static bool slots48_stream_avx512(const uint64_t *s, uint64_t cnt, int idbits, uint8_t *out);
static void slots_stream_avx512(const uint64_t *s, uint64_t cnt, uint64_t *out);

/* Slots s[0..cnt) copied to out, the whole lines by non-temporal stores
 * (then a store fence) where the CPU has AVX-512. */
static void slots_stream(const uint64_t *s, uint64_t cnt, uint64_t *out)
{
    if (cnt >= 8 && sgk_topk_simd_available())
        slots_stream_avx512(s, cnt, out);
    else
        memcpy(out, s, cnt * sizeof *s);
}

bool sgk_slots48_pack(const uint64_t *s, uint64_t cnt, int idbits, uint8_t *out)
{
    if (cnt >= 8 && sgk_topk_simd_available()) return slots48_pack_avx512(s, cnt, idbits, out);
    return sgk_slots48_pack_scalar(s, cnt, idbits, out);
}

bool sgk_slots48_stream(const uint64_t *s, uint64_t cnt, int idbits, uint8_t *out)
{
    if (cnt >= 32 && sgk_topk_simd_available())
        return slots48_stream_avx512(s, cnt, idbits, out);
    return sgk_slots48_pack(s, cnt, idbits, out);
}

/* src's lists [v0, v1) by the run of their kind, prefetching to pf_end. */
static uint64_t src_run(const sgk_topk_src *src, uint64_t v0, uint64_t v1, uint64_t *out,
                        uint32_t *idx, sgk_topk_tally *t, uint64_t pf_end)
{
    const uint64_t *x = src->x;
    const int K = src->K;
    if (src->e48)
        return topk48_run(x, src->e48, src->e48_bits, v0, v1, src->topk48, K, src->filter,
                          src->prefetch, out, idx, t, pf_end);
    if (src->w16)
        return topk24_run(x, src->a, src->w16, src->w8, v0, v1, src->topk, K, src->filter,
                          src->prefetch, out, idx, t, pf_end);
    return topk_run(x, src->a, src->w, v0, v1, src->topk, src->f32, K, src->filter,
                    src->prefetch, out, idx, t, pf_end);
}

/* src's lists [v0, v1) a run of SGK_TOPK48_RUN at a time into a buffer in
 * cache, each run's slots then stored at out + width r K slots: packed in
 * 6 bytes (idbits > 0; *fits false where one does not fit), by
 * non-temporal stores where src->stream, or copied in 8 by them (the
 * 8-byte slots come here only streamed). */
static uint64_t fill_runs(const sgk_topk_src *src, int idbits, uint64_t v0, uint64_t v1,
                          uint8_t *out, uint32_t *idx, sgk_topk_tally *t, bool *fits)
{
    const int K = src->K;
    const uint64_t width = idbits > 0 ? 6 : 8;
    const uint64_t pf_end = src->x[v1];
    uint64_t buf[SGK_TOPK48_RUN * 4]; /* K <= 4 slots a list */
    uint64_t r = 0;                   /* records (or vertices) written */
    bool ok = true;
    for (uint64_t u = v0; u < v1; u += SGK_TOPK48_RUN) {
        const uint64_t ue = v1 - u < SGK_TOPK48_RUN ? v1 : u + SGK_TOPK48_RUN;
        uint32_t *ix = idx ? idx + r : NULL;
        uint8_t *const o = out + width * r * (uint64_t)K;
        /* the run's slots' lines fetched for writing while its lists are
         * taken, not when the pack stores them in a burst (topk_store on
         * the development machine, two threads: the 6-byte fill at 0.94 of
         * the 8-byte top-K's rate with it, 0.89-0.90 without); streamed
         * lines are not read */
        if (!src->stream)
            for (uint64_t b = 0; b < width * (ue - u) * (uint64_t)K; b += 64)
                __builtin_prefetch(o + b, 1, 3);
        const uint64_t got = src_run(src, u, ue, buf, ix, t, pf_end);
        const uint64_t cnt = got * (uint64_t)K;
        if (width == 8) /* (only streamed: sgk_topk_fill) */
            slots_stream(buf, cnt, (uint64_t *)(void *)o);
        else
            ok &= src->stream ? sgk_slots48_stream(buf, cnt, idbits, o)
                              : sgk_slots48_pack(buf, cnt, idbits, o);
        r += got;
    }
    *fits = ok && !src->f32;
    return r;
}

uint64_t sgk_topk_fill(const sgk_topk_src *src, uint64_t v0, uint64_t v1, uint64_t *out,
                       uint32_t *idx, sgk_topk_tally *t)
{
    if (!src->stream) return src_run(src, v0, v1, out, idx, t, src->x[v1]);
    bool fits;
    return fill_runs(src, 0, v0, v1, (uint8_t *)out, idx, t, &fits);
}

uint64_t sgk_topk_fill48(const sgk_topk_src *src, int idbits, uint64_t v0, uint64_t v1,
                         uint8_t *out48, uint32_t *idx, sgk_topk_tally *t, bool *fits)
{
    return fill_runs(src, idbits, v0, v1, out48, idx, t, fits);
}

#if SGK_HAVE_AVX512

#define AVX512 SG_AVX512

/* sgi_key_of_bits on 16 lanes of u32 weight bits. */
static inline AVX512 __m512i wkeys16(__m512i wv, bool f32)
{
    if (!f32) return wv;
    /* negative: all bits flipped; else the sign bit set */
    const __m512i neg = _mm512_srai_epi32(wv, 31);
    return _mm512_xor_si512(wv, _mm512_or_si512(neg, _mm512_set1_epi32((int)0x80000000u)));
}

/* Compare-exchange: x the smaller, y the larger. */
static inline AVX512 __attribute__((always_inline)) void cx(__m512i *x, __m512i *y)
{
    const __m512i lo = _mm512_min_epu64(*x, *y);
    *y = _mm512_max_epu64(*x, *y);
    *x = lo;
}

/* One halving of lanes_take: lane i's four slots s0 <= s1 <= s2 <= s3
 * merged with lane i + h's, the four smallest kept, ascending (the lanes
 * from h on are left holding nothing useful). */
static inline AVX512 __attribute__((always_inline)) void halve(__m512i *s0, __m512i *s1,
                                                               __m512i *s2, __m512i *s3, int h)
{
    const __m512i idx =
        _mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(h));
    __m512i t0 = _mm512_min_epu64(*s0, _mm512_permutexvar_epi64(idx, *s3));
    __m512i t1 = _mm512_min_epu64(*s1, _mm512_permutexvar_epi64(idx, *s2));
    __m512i t2 = _mm512_min_epu64(*s2, _mm512_permutexvar_epi64(idx, *s1));
    __m512i t3 = _mm512_min_epu64(*s3, _mm512_permutexvar_epi64(idx, *s0));
    cx(&t0, &t2);
    cx(&t1, &t3);
    cx(&t0, &t1);
    cx(&t2, &t3);
    *s0 = t0;
    *s1 = t1;
    *s2 = t2;
    *s3 = t3;
}

/* The lanes' keys as the caller takes them (slot_out, lane by lane). */
static inline AVX512 __attribute__((always_inline)) __m512i keys_out(lsrc s, __m512i z)
{
    if (!s.e) return z;
    const __m512i none = _mm512_set1_epi64((long long)NONE);
    const __m512i k = _mm512_or_si512(
        _mm512_slli_epi64(_mm512_srli_epi64(z, (unsigned)s.idbits), 32),
        _mm512_and_si512(z, _mm512_set1_epi64((long long)s.idm)));
    return _mm512_mask_mov_epi64(k, _mm512_cmpeq_epu64_mask(z, none), none);
}

/* Lanes 0 and 4 of z0 .. z3 as one vector: z0[0], z1[0], z2[0], z3[0],
 * z0[4], z1[4], z2[4], z3[4] (two unpacks and a permute), so that 48-bit
 * slots are turned into the caller's keys in one vector, not four
 * (development machine, topk_bench -c, 48-bit lists of 16-24 entries 5-10
 * % faster; over A and W, which need no turning, the slots are still
 * taken out one by one). */
static inline AVX512 __attribute__((always_inline)) __m512i lane_slots(__m512i z0, __m512i z1,
                                                                      __m512i z2, __m512i z3)
{
    const __m512i u01 = _mm512_unpacklo_epi64(z0, z1); /* z0[0] z1[0] z0[2] z1[2] z0[4] .. */
    const __m512i u23 = _mm512_unpacklo_epi64(z2, z3);
    return _mm512_permutex2var_epi64(u01, _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), u23);
}

/* The K smallest of the lanes' slots s0 <= s1 <= s2 <= s3 (lane by lane),
 * ascending, into best: lanes halved three times, each lane's four slots
 * merged with its partner's (the smaller of a slot and the partner's
 * mirror slot, a bitonic sequence holding the four smallest, then sorted
 * by a bitonic half-cleaner); slots past K are NONE. No branch and no
 * horizontal chain per key (K rounds of a horizontal minimum cost ~40 ns a
 * list). The slots are values, not an array, so that they stay in
 * registers at -O2 too. They are turned into the caller's keys as src's
 * (slot_out; a source of A and W leaves them as they are). */
static inline AVX512 __attribute__((always_inline)) void
lanes_take(lsrc src, __m512i s0, __m512i s1, __m512i s2, __m512i s3, const int K, uint64_t *best)
{
    if (K == 1) {
        best[0] = slot_out(src, (uint64_t)_mm512_reduce_min_epu64(s0));
        return;
    }
    const __m512i none = _mm512_set1_epi64((long long)NONE);
    if (K < 4) s3 = none;
    if (K < 3) s2 = none;
    for (int h = 4; h >= 1; h /= 2) halve(&s0, &s1, &s2, &s3, h);
    if (src.e) { /* lane 0 of each: gathered into one vector, turned once */
        _mm512_mask_storeu_epi64(best, (__mmask8)((1u << K) - 1),
                                 keys_out(src, lane_slots(s0, s1, s2, s3)));
        return;
    }
    /* taken out one by one: best may be read at once (the filter's limit),
     * which a masked vector store would make wait */
    best[0] = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(s0));
    best[1] = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(s1));
    if (K > 2) best[2] = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(s2));
    if (K > 3) best[3] = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(s3));
}

/* The weight bits of entries [p, p + 16) in lanes m (the others 0), from W
 * or from W16 and W8 (a 16-bit and an 8-bit load widened in the vector). */
static inline AVX512 __attribute__((always_inline)) __m512i wload16(lsrc s, uint64_t p,
                                                                     __mmask16 m)
{
    if (!s.w16) return _mm512_maskz_loadu_epi32(m, s.w + p);
    __m256i l;
    __m128i h;
    if (m == 0xffff) { /* a whole block: plain 32- and 16-byte loads */
        l = _mm256_loadu_si256((const __m256i *)(s.w16 + p));
        h = _mm_loadu_si128((const __m128i *)(s.w8 + p));
    } else { /* (512-bit masked loads: the narrower ones would need AVX-512VL) */
        l = _mm512_castsi512_si256(_mm512_maskz_loadu_epi16((__mmask32)m, s.w16 + p));
        h = _mm512_castsi512_si128(_mm512_maskz_loadu_epi8((__mmask64)m, s.w8 + p));
    }
    return _mm512_or_si512(_mm512_cvtepu16_epi32(l),
                           _mm512_slli_epi32(_mm512_cvtepu8_epi32(h), 16));
}

/* Entries [p, p + 16) of a list of len (at most 16 lanes from p) of a
 * source of A and W or of A and 24-bit weights: A into *av and the weight
 * keys into *wv (lanes past the end 0); returns the lanes that hold an
 * entry other than a self-loop (vv: the vertex in every lane). */
static inline AVX512 __attribute__((always_inline)) __mmask16
load16(lsrc s, uint64_t p, uint64_t len, __m512i vv, __m512i *av, __m512i *wv)
{
    const uint64_t r = len - p;
    const __mmask16 m = r >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << r) - 1);
    *av = _mm512_maskz_loadu_epi32(m, s.a + p);
    *wv = wkeys16(wload16(s, p, m), s.f32);
    return (__mmask16)(m & ~_mm512_mask_cmpeq_epi32_mask(m, *av, vv));
}

/* The keys of entries [p, p + 16) of a list of len (at most 16 lanes from
 * p): lanes 0-7 into *lo and 8-15 into *hi, in order (sort8 needs the
 * first 8 entries in one vector), self-loops and lanes past the end NONE;
 * returns how many are not. (Two narrower loads a half took a list of 32
 * from 21 to 32-47 ns on the development machine.) */
static inline AVX512 __attribute__((always_inline)) unsigned
keys16(lsrc s, uint64_t p, uint64_t len, uint32_t v, __m512i *lo, __m512i *hi)
{
    __m512i av, wv;
    const __mmask16 valid = load16(s, p, len, _mm512_set1_epi32((int)v), &av, &wv);
    const __m512i none = _mm512_set1_epi64((long long)NONE);
    *lo = _mm512_mask_mov_epi64(
        none, (__mmask8)valid,
        _mm512_or_si512(_mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(wv)), 32),
                        _mm512_cvtepu32_epi64(_mm512_castsi512_si256(av))));
    *hi = _mm512_mask_mov_epi64(
        none, (__mmask8)(valid >> 8),
        _mm512_or_si512(
            _mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(wv, 1)), 32),
            _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(av, 1))));
    return (unsigned)__builtin_popcount((unsigned)valid);
}

/* A list of 1 to 16 entries (A and W, or A and 24-bit weights): one or two
 * vectors of keys sorted by sort8 (and merged by merge8); the first K
 * lanes are the answer. */
static inline AVX512 __attribute__((always_inline)) uint64_t
topk_tiny_k(lsrc s, uint64_t len, uint32_t v, int K, uint64_t *out)
{
    __m512i k0, k1;
    const uint64_t leaving = keys16(s, 0, len, v, &k0, &k1);
    __m512i r = sort8(k0);
    if (len > 8) r = merge8(r, sort8(k1));
    _mm512_mask_storeu_epi64(out, (__mmask8)((1u << K) - 1), r);
    return leaving;
}

static AVX512 uint64_t topk_tiny_avx512(const uint32_t *a, const uint32_t *w, uint64_t len,
                                        uint32_t v, bool f32, int K, uint64_t *out)
{
    return topk_tiny_k(src_aw(a, w, f32), len, v, K, out);
}

static AVX512 uint64_t topk24_tiny_avx512(const uint32_t *a, const uint16_t *w16,
                                          const uint8_t *w8, uint64_t len, uint32_t v, int K,
                                          uint64_t *out)
{
    return topk_tiny_k(src_w24(a, w16, w8), len, v, K, out);
}

/* The keys of entries [p, p + 16) of a list of len as two rows of 8 lanes,
 * in no particular order (a multiset is all the top-K needs): each 128-bit
 * lane's neighbours and weight keys interleaved, so that a 64-bit lane is
 * weight key << 32 | neighbour with no widening or shift. Self-loops and
 * lanes past the end are UINT64_MAX (both halves all ones; a neighbour is
 * never all ones). Returns how many are not. */
static inline AVX512 __attribute__((always_inline)) unsigned
rows16_aw(lsrc s, uint64_t p, uint64_t len, __m512i vv, __m512i *r0, __m512i *r1)
{
    __m512i av, wv;
    const __mmask16 off = (__mmask16)~load16(s, p, len, vv, &av, &wv);
    const __m512i ones = _mm512_set1_epi32(-1);
    const __m512i ak = _mm512_mask_mov_epi32(av, off, ones);
    const __m512i wk = _mm512_mask_mov_epi32(wv, off, ones);
    *r0 = _mm512_unpacklo_epi32(ak, wk);
    *r1 = _mm512_unpackhi_epi32(ak, wk);
    return 16u - (unsigned)__builtin_popcount((unsigned)off);
}

/* 48-bit entries [p, p + 16) of a list of len (at most 16 from p) as two
 * vectors of 8 keys in order, entries 0-7 in *k0 and 8-15 in *k1 (lanes
 * past the end 0), and the lanes that hold one (*m0, *m1). Each half is a
 * masked load of 48 bytes whose 16-bit words go three to a 64-bit lane,
 * the fourth zeroed (one word permute). */
static inline AVX512 __attribute__((always_inline)) void
spread16_e48(const uint8_t *e, uint64_t p, uint64_t len, __m512i *k0, __m512i *k1,
             __mmask8 *m0, __mmask8 *m1)
{
    const uint64_t r = len - p;
    const unsigned c = r >= 16 ? 16u : (unsigned)r, c0 = c < 8 ? c : 8u, c1 = c - c0;
    /* word 4 i + j of the result: word 3 i + j of the entries (j < 3) */
    const __m512i widx = _mm512_set_epi16(0, 23, 22, 21, 0, 20, 19, 18, 0, 17, 16, 15, 0, 14, 13,
                                          12, 0, 11, 10, 9, 0, 8, 7, 6, 0, 5, 4, 3, 0, 2, 1, 0);
    const __mmask32 keep = 0x77777777u;
    const uint8_t *q = e + 6 * p;
    *m0 = (__mmask8)((1u << c0) - 1);
    *m1 = (__mmask8)((1u << c1) - 1);
    if (c == 16) { /* two whole loads within the 96 bytes, the second from byte 32 */
        *k0 = _mm512_maskz_permutexvar_epi16(keep, widx, _mm512_loadu_si512(q));
        *k1 = _mm512_maskz_permutexvar_epi16(keep, _mm512_add_epi16(widx, _mm512_set1_epi16(8)),
                                             _mm512_loadu_si512(q + 32));
        return;
    }
    const __m512i b0 = _mm512_maskz_loadu_epi8(((__mmask64)1 << (6 * c0)) - 1, q);
    *k0 = _mm512_maskz_permutexvar_epi16(keep, widx, b0);
    if (c1 == 0) {
        *k1 = _mm512_setzero_si512();
        return;
    }
    const __m512i b1 = _mm512_maskz_loadu_epi8(((__mmask64)1 << (6 * c1)) - 1, q + 48);
    *k1 = _mm512_maskz_permutexvar_epi16(keep, widx, b1);
}

/* rows16 over 48-bit entries: the keys are the entries; self-loops (the
 * neighbour bits equal to v) and lanes past the end UINT64_MAX. vv: v in
 * every 32-bit lane. */
static inline AVX512 __attribute__((always_inline)) unsigned
rows16_e48(const uint8_t *e, uint64_t idm, uint64_t p, uint64_t len, __m512i vv, __m512i *r0,
           __m512i *r1)
{
    __m512i k0, k1;
    __mmask8 m0, m1;
    spread16_e48(e, p, len, &k0, &k1, &m0, &m1);
    const __m512i idv = _mm512_set1_epi64((long long)idm), vq = _mm512_and_si512(vv, idv);
    const __m512i none = _mm512_set1_epi64((long long)NONE);
    m0 &= (__mmask8)~_mm512_mask_cmpeq_epu64_mask(m0, _mm512_and_si512(k0, idv), vq);
    m1 &= (__mmask8)~_mm512_mask_cmpeq_epu64_mask(m1, _mm512_and_si512(k1, idv), vq);
    *r0 = _mm512_mask_mov_epi64(none, m0, k0);
    *r1 = _mm512_mask_mov_epi64(none, m1, k1);
    return (unsigned)__builtin_popcount((unsigned)m0 | (unsigned)m1 << 8);
}

/* topk_tiny_avx512 over 48-bit entries (rows16_e48's rows are in order). */
static AVX512 uint64_t topk48_tiny_avx512(const uint8_t *e, uint64_t len, uint32_t v, int idbits,
                                          int K, uint64_t *out)
{
    const lsrc s = src_e48(e, idbits);
    __m512i k0, k1;
    const uint64_t leaving = rows16_e48(e, s.idm, 0, len, _mm512_set1_epi32((int)v), &k0, &k1);
    __m512i r = sort8(k0);
    if (len > 8) r = merge8(r, sort8(k1));
    _mm512_mask_storeu_epi64(out, (__mmask8)((1u << K) - 1), keys_out(s, r));
    return leaving;
}

/* Entries [p, p + 16) of the source as two rows of 8 keys in no particular
 * order (rows16_aw or rows16_e48). */
static inline AVX512 __attribute__((always_inline)) unsigned
rows16(lsrc s, uint64_t p, uint64_t len, __m512i vv, __m512i *r0, __m512i *r1)
{
    if (s.e) return rows16_e48(s.e, s.idm, p, len, vv, r0, r1);
    return rows16_aw(s, p, len, vv, r0, r1);
}

/* Of entries [p, min(p + 16, len)), those whose weight key is at most the
 * last slot's (`last`), as a lane mask. */
static inline AVX512 __attribute__((always_inline)) __mmask16 block_under(lsrc s, uint64_t p,
                                                                           uint64_t len,
                                                                           uint64_t last)
{
    const uint64_t rem = len - p;
    if (s.e) {
        __m512i k0, k1;
        __mmask8 m0, m1;
        spread16_e48(s.e, p, len, &k0, &k1, &m0, &m1);
        const __m512i lim = _mm512_set1_epi64((long long)(last | s.idm));
        return (__mmask16)((unsigned)_mm512_mask_cmple_epu64_mask(m0, k0, lim) |
                           (unsigned)_mm512_mask_cmple_epu64_mask(m1, k1, lim) << 8);
    }
    const __mmask16 m = rem >= 16 ? 0xffff : (__mmask16)((1u << rem) - 1);
    const __m512i lim = _mm512_set1_epi32((int)(uint32_t)(last >> 32));
    return _mm512_mask_cmple_epu32_mask(m, wkeys16(wload16(s, p, m), s.f32), lim);
}

/* Rows a <= b <= c <= d afterwards, lane by lane (a 4-input network, 5
 * compare-exchanges of whole vectors: no shuffle). */
static inline AVX512 __attribute__((always_inline)) void sort4_rows(__m512i *a, __m512i *b,
                                                                    __m512i *c, __m512i *d)
{
    cx(a, b);
    cx(c, d);
    cx(a, c);
    cx(b, d);
    cx(b, c);
}

/* Sorted rows x0 <= .. <= x3 and y0 <= .. <= y3 (lane by lane): the four
 * smallest of each lane's eight into x, sorted (each slot against the
 * other's mirror slot gives a bitonic sequence holding them; then a
 * bitonic half-cleaner). */
static inline AVX512 __attribute__((always_inline)) void
merge4_rows(__m512i *x0, __m512i *x1, __m512i *x2, __m512i *x3, __m512i y0, __m512i y1,
            __m512i y2, __m512i y3)
{
    *x0 = _mm512_min_epu64(*x0, y3);
    *x1 = _mm512_min_epu64(*x1, y2);
    *x2 = _mm512_min_epu64(*x2, y1);
    *x3 = _mm512_min_epu64(*x3, y0);
    cx(x0, x2);
    cx(x1, x3);
    cx(x0, x1);
    cx(x2, x3);
}

/* The keys of entries [p, min(p + 64, e)) (p < e) as four rows x0 <= x1 <=
 * x2 <= x3, lane by lane, that hold each lane's four smallest keys
 * (UINT64_MAX where a lane has fewer); adds the entries that are not
 * self-loops to *leaving. Two rows per 16 entries (missing rows
 * UINT64_MAX); each four sorted column by column by five whole-vector
 * compare-exchanges (no shuffle); two sorted fours merged, each slot
 * against the other's mirror slot (the smallest four, a bitonic
 * sequence), then sorted. */
static inline AVX512 __attribute__((always_inline)) void
rows64(lsrc s, uint64_t p, uint64_t e, __m512i vv, __m512i *x0, __m512i *x1, __m512i *x2,
       __m512i *x3, uint64_t *leaving)
{
    const __m512i none = _mm512_set1_epi64((long long)NONE);
    *x2 = none;
    *x3 = none;
    *leaving += rows16(s, p, e, vv, x0, x1);
    if (p + 16 < e) *leaving += rows16(s, p + 16, e, vv, x2, x3);
    sort4_rows(x0, x1, x2, x3);
    if (p + 32 >= e) return;
    __m512i y0, y1, y2 = none, y3 = none;
    *leaving += rows16(s, p + 32, e, vv, &y0, &y1);
    if (p + 48 < e) *leaving += rows16(s, p + 48, e, vv, &y2, &y3);
    sort4_rows(&y0, &y1, &y2, &y3);
    merge4_rows(x0, x1, x2, x3, y0, y1, y2, y3);
}

/* Entries [p, e) of a list (p < e; e its length, or the end of its head)
 * into four rows as rows64 makes them, 64 entries at a time, each block's
 * rows merged into those so far. lanes_take then merges the lanes. About
 * half the shuffles and min / max of sorting vectors of 8 keys and merging
 * them (topk_tiny_avx512's way), and no chain of K dependent steps per 8
 * keys (a lane keeping its K smallest one key at a time, the way before). */
static inline AVX512 __attribute__((always_inline)) void
rows_add(lsrc s, uint64_t p, uint64_t e, uint32_t v, __m512i *x0, __m512i *x1, __m512i *x2,
         __m512i *x3, uint64_t *leaving)
{
    const __m512i vv = _mm512_set1_epi32((int)v);
    rows64(s, p, e, vv, x0, x1, x2, x3, leaving);
    for (p += 64; p < e; p += 64) {
        __m512i y0, y1, y2, y3;
        rows64(s, p, e, vv, &y0, &y1, &y2, &y3, leaving);
        merge4_rows(x0, x1, x2, x3, y0, y1, y2, y3);
    }
}

static inline AVX512 __attribute__((always_inline)) uint64_t
topk_avx512_k(lsrc s, uint64_t len, uint32_t v, const int K, bool filter, uint64_t *out)
{
    uint64_t best[4] = {NONE, NONE, NONE, NONE};
    uint64_t leaving = 0;
    __m512i x0, x1, x2, x3;
    /* rows_add would take a list of 64 or fewer the same way; called as
     * rows64 here, with no loop after it, gcc -O3 made 32 entries take 14
     * ns, not 17-19 (development machine) */
    if (len <= 64) {
        rows64(s, 0, len, _mm512_set1_epi32((int)v), &x0, &x1, &x2, &x3, &leaving);
        lanes_take(s, x0, x1, x2, x3, K, out);
        return leaving;
    }
    if (!filter || len <= SGK_TOPK_BLOCKS_PAST) { /* the whole list as rows */
        rows_add(s, 0, len, v, &x0, &x1, &x2, &x3, &leaving);
        lanes_take(s, x0, x1, x2, x3, K, out);
        return leaving;
    }
    const uint64_t head = SGK_TOPK_HEAD;
    rows_add(s, 0, head, v, &x0, &x1, &x2, &x3, &leaving);
    /* best kept as the source's keys (as A and W's are): the blocks below
     * compare and insert such keys, and slot_out turns them at the end */
    lanes_take(src_aw(NULL, NULL, false), x0, x1, x2, x3, K, best);
    /* as the scalar code: blocks of 16 weights tested in one compare */
    leaving += len - head;
#define FILTER_BLOCK(p)                                                                     \
    for (unsigned t = block_under(s, p, len, best[K - 1]); t; t &= t - 1)                 \
    tested_insert(s, p + (uint64_t)__builtin_ctz(t), v, K, best, &leaving)
    /* the prefetch only in lists past twice sgk_topk_lists' prefetch from
     * their start, in a loop of its own: in cache, lists of 1000 took 0.17
     * ns an entry with it, not 0.15 */
    if (SGK_TOPK_INLIST && len > 2 * SGK_TOPK_AHEAD) {
        for (uint64_t p = head; p < len; p += SGK_TOPK_BLOCK) {
            if (p + SGK_TOPK_INLIST < len) prefetch_w(s, p + SGK_TOPK_INLIST);
            FILTER_BLOCK(p);
        }
    } else {
        for (uint64_t p = head; p < len; p += SGK_TOPK_BLOCK) FILTER_BLOCK(p);
    }
#undef FILTER_BLOCK
    for (int i = 0; i < K; i++) out[i] = slot_out(s, best[i]);
    return leaving;
}

static AVX512 uint64_t topk_avx512(const uint32_t *a, const uint32_t *w, uint64_t len,
                                   uint32_t v, bool f32, int K, bool filter, uint64_t *out)
{
#define CALL(k) topk_avx512_k(src_aw(a, w, f32), len, v, k, filter, out)
    TOPK_BY_K(CALL)
#undef CALL
}

static AVX512 uint64_t topk48_avx512(const uint8_t *e, uint64_t len, uint32_t v, int idbits,
                                     int K, bool filter, uint64_t *out)
{
#define CALL(k) topk_avx512_k(src_e48(e, idbits), len, v, k, filter, out)
    TOPK_BY_K(CALL)
#undef CALL
}

/* lanes_take for two lists at once: each one's lanes halved once, the
 * four lanes left of each put side by side (the first list's in lanes
 * 0-3, the second's in 4-7), and the last two halvings made on both at
 * once (halve's partner of lane i is lane i + h, within each half for h
 * of 2 and 1). A list of 17 to 64 entries spent about half its vector
 * operations in lanes_take; two lists share two of its three halvings. */
static inline AVX512 __attribute__((always_inline)) void
lanes_take2(lsrc src, __m512i x0, __m512i x1, __m512i x2, __m512i x3, __m512i y0, __m512i y1,
            __m512i y2, __m512i y3, const int K, uint64_t *b0, uint64_t *b1)
{
    if (K == 1) {
        b0[0] = slot_out(src, (uint64_t)_mm512_reduce_min_epu64(x0));
        b1[0] = slot_out(src, (uint64_t)_mm512_reduce_min_epu64(y0));
        return;
    }
    const __m512i none = _mm512_set1_epi64((long long)NONE);
    if (K < 4) x3 = y3 = none;
    if (K < 3) x2 = y2 = none;
    halve(&x0, &x1, &x2, &x3, 4);
    halve(&y0, &y1, &y2, &y3, 4);
    __m512i z0 = _mm512_shuffle_i64x2(x0, y0, 0x44), z1 = _mm512_shuffle_i64x2(x1, y1, 0x44);
    __m512i z2 = _mm512_shuffle_i64x2(x2, y2, 0x44), z3 = _mm512_shuffle_i64x2(x3, y3, 0x44);
    halve(&z0, &z1, &z2, &z3, 2);
    halve(&z0, &z1, &z2, &z3, 1);
    /* lane 0 to the first list, lane 4 to the second */
    if (src.e) { /* both lists' slots in one vector, turned once (lanes_take) */
        const __m512i r = keys_out(src, lane_slots(z0, z1, z2, z3));
        const __mmask8 km = (__mmask8)((1u << K) - 1);
        _mm512_mask_storeu_epi64(b0, km, r);
        _mm512_mask_storeu_epi64(b1, km, _mm512_shuffle_i64x2(r, r, 0xee));
        return;
    }
    /* named slots, not an array (lanes_take's reason) */
#define TAKE2(s, z)                                                                         \
    do {                                                                                    \
        b0[s] = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(z));                     \
        b1[s] = (uint64_t)_mm_cvtsi128_si64(_mm512_extracti32x4_epi32((z), 2));              \
    } while (0)
    TAKE2(0, z0);
    TAKE2(1, z1);
    if (K > 2) TAKE2(2, z2);
    if (K > 3) TAKE2(3, z3);
#undef TAKE2
}

static inline AVX512 __attribute__((always_inline)) uint64_t
topk_pair_k(lsrc s, uint64_t b0, uint64_t len0, uint64_t b1, uint64_t len1, uint32_t v,
            const int K, uint64_t *o0, uint64_t *o1)
{
    uint64_t leaving = 0;
    __m512i x0, x1, x2, x3, y0, y1, y2, y3;
    rows64(src_at(s, b0), 0, len0, _mm512_set1_epi32((int)v), &x0, &x1, &x2, &x3, &leaving);
    rows64(src_at(s, b1), 0, len1, _mm512_set1_epi32((int)(v + 1)), &y0, &y1, &y2, &y3,
           &leaving);
    lanes_take2(s, x0, x1, x2, x3, y0, y1, y2, y3, K, o0, o1);
    return leaving;
}

/* The constants of packing slots for ids of some bits. */
typedef struct pack48 {
    __m512i none, none48, lo32, wlim, idm, perm;
    __m128i sh;
} pack48;

static inline AVX512 pack48 pack48_for(int idbits)
{
    pack48 c;
    c.none = _mm512_set1_epi64((long long)NONE);
    c.none48 = _mm512_set1_epi64((long long)SGK_SLOT48_NONE);
    c.lo32 = _mm512_set1_epi64(0xFFFFFFFFll);
    c.wlim = _mm512_set1_epi64((long long)((1ull << (48 - idbits)) - 2));
    c.idm = _mm512_set1_epi64((long long)((1ull << idbits) - 1));
    c.sh = _mm_cvtsi32_si128(idbits);
    /* output word j is word j % 3 of slot j / 3 (words 24-31 zero) */
    c.perm = _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 30, 29, 28, 26, 25, 24, 22, 21, 20, 18, 17,
                              16, 14, 13, 12, 10, 9, 8, 6, 5, 4, 2, 1, 0);
    return c;
}

/* Slots s[0..8) packed into the vector's low 48 bytes; *bad gets the ones
 * that do not fit. */
static inline AVX512 __attribute__((always_inline)) __m512i pack8(const pack48 *c,
                                                                  const uint64_t *s, __mmask8 *bad)
{
    const __m512i k = _mm512_loadu_si512((const void *)s);
    const __mmask8 empty = _mm512_cmpeq_epu64_mask(k, c->none);
    const __m512i wk = _mm512_srli_epi64(k, 32), nb = _mm512_and_si512(k, c->lo32);
    *bad |= _mm512_mask_cmpgt_epu64_mask((__mmask8)~empty, wk, c->wlim) |
            _mm512_mask_cmpgt_epu64_mask((__mmask8)~empty, nb, c->idm);
    const __m512i p =
        _mm512_mask_mov_epi64(_mm512_or_si512(_mm512_sll_epi64(wk, c->sh), nb), empty, c->none48);
    return _mm512_permutexvar_epi16(c->perm, p);
}

/* sgk_slots48_pack by eight slots a vector: the 48 bits made in the lanes,
 * their low three words gathered to the front by one word permute, and 48
 * bytes stored under a byte mask; the last cnt % 8 slots by the scalar
 * code. */
static AVX512 bool slots48_pack_avx512(const uint64_t *s, uint64_t cnt, int idbits, uint8_t *out)
{
    const pack48 c = pack48_for(idbits);
    const __mmask64 bytes48 = (1ull << 48) - 1;
    __mmask8 bad = 0;
    uint64_t i = 0;
    for (; i + 8 <= cnt; i += 8)
        _mm512_mask_storeu_epi8(out + 6 * i, bytes48, pack8(&c, s + i, &bad));
    const bool tail = sgk_slots48_pack_scalar(s + i, cnt - i, idbits, out + 6 * i);
    return !bad && tail;
}

static AVX512 bool slots48_stream_avx512(const uint64_t *s, uint64_t cnt, int idbits, uint8_t *out)
{
    const uintptr_t at = (uintptr_t)out;
    if (at & 1) return slots48_pack_avx512(s, cnt, idbits, out);
    /* slots before the first line boundary that one starts on: 6 h = -at
     * (mod 64), so 3 h = -at / 2 (mod 32), and 11 is 3's inverse mod 32 */
    const uint64_t head = (11u * ((32u - (unsigned)(at >> 1) % 32u) % 32u)) % 32u;
    if (head + 32 > cnt) return slots48_pack_avx512(s, cnt, idbits, out);
    bool ok = slots48_pack_avx512(s, head, idbits, out);
    const pack48 c = pack48_for(idbits);
    /* four vectors of eight slots (six words each) as three lines */
    const __m512i l0 = _mm512_set_epi64(9, 8, 5, 4, 3, 2, 1, 0);
    const __m512i l1 = _mm512_set_epi64(11, 10, 9, 8, 5, 4, 3, 2);
    const __m512i l2 = _mm512_set_epi64(13, 12, 11, 10, 9, 8, 5, 4);
    __mmask8 bad = 0;
    uint64_t i = head;
    for (; i + 32 <= cnt; i += 32) {
        const __m512i p0 = pack8(&c, s + i, &bad), p1 = pack8(&c, s + i + 8, &bad);
        const __m512i p2 = pack8(&c, s + i + 16, &bad), p3 = pack8(&c, s + i + 24, &bad);
        __m512i *const o = (__m512i *)(void *)(out + 6 * i);
        _mm512_stream_si512(o, _mm512_permutex2var_epi64(p0, l0, p1));
        _mm512_stream_si512(o + 1, _mm512_permutex2var_epi64(p1, l1, p2));
        _mm512_stream_si512(o + 2, _mm512_permutex2var_epi64(p2, l2, p3));
    }
    ok &= slots48_pack_avx512(s + i, cnt - i, idbits, out + 6 * i);
    _mm_sfence();
    return ok && !bad;
}

static AVX512 void slots_stream_avx512(const uint64_t *s, uint64_t cnt, uint64_t *out)
{
    const uintptr_t at = (uintptr_t)out;
    const uint64_t head = at % 8 ? cnt : (64 - at % 64) % 64 / 8;
    if (head + 8 > cnt) {
        memcpy(out, s, cnt * sizeof *s);
        return;
    }
    memcpy(out, s, head * sizeof *s);
    uint64_t i = head;
    for (; i + 8 <= cnt; i += 8)
        _mm512_stream_si512((__m512i *)(void *)(out + i),
                            _mm512_loadu_si512((const void *)(s + i)));
    memcpy(out + i, s + i, (cnt - i) * sizeof *s);
    _mm_sfence();
}

/* The vector code needs AVX-512F and BW (BW for the 48-bit entries' byte
 * loads and shuffles, and in the target the whole file is built for). */
bool sgk_topk_simd_available(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

/* Lists v and v + 1 (both of SGK_TOPK_SHORT + 1 to SGK_TOPK_HEAD entries,
 * at b0 and b1) as topk_avx512 takes each, the same slots and counts. */
static AVX512 uint64_t topk_pair(const uint32_t *a, const uint32_t *w, uint64_t b0,
                                 uint64_t len0, uint64_t b1, uint64_t len1, uint32_t v, bool f32,
                                 int K, uint64_t *o0, uint64_t *o1)
{
#define CALL(k) topk_pair_k(src_aw(a, w, f32), b0, len0, b1, len1, v, k, o0, o1)
    TOPK_BY_K(CALL)
#undef CALL
}

static AVX512 uint64_t topk48_pair(const uint8_t *e, int idbits, uint64_t b0, uint64_t len0,
                                   uint64_t b1, uint64_t len1, uint32_t v, int K, uint64_t *o0,
                                   uint64_t *o1)
{
#define CALL(k) topk_pair_k(src_e48(e, idbits), b0, len0, b1, len1, v, k, o0, o1)
    TOPK_BY_K(CALL)
#undef CALL
}

static AVX512 uint64_t topk24_pair(const uint32_t *a, const uint16_t *w16, const uint8_t *w8,
                                   uint64_t b0, uint64_t len0, uint64_t b1, uint64_t len1,
                                   uint32_t v, int K, uint64_t *o0, uint64_t *o1)
{
#define CALL(k) topk_pair_k(src_w24(a, w16, w8), b0, len0, b1, len1, v, k, o0, o1)
    TOPK_BY_K(CALL)
#undef CALL
}

static AVX512 uint64_t topk24_avx512(const uint32_t *a, const uint16_t *w16, const uint8_t *w8,
                                     uint64_t len, uint32_t v, int K, bool filter, uint64_t *out)
{
#define CALL(k) topk_avx512_k(src_w24(a, w16, w8), len, v, k, filter, out)
    TOPK_BY_K(CALL)
#undef CALL
}

static uint64_t topk24_simd(const uint32_t *a, const uint16_t *w16, const uint8_t *w8,
                            uint64_t len, uint32_t v, int K, bool filter, uint64_t *out)
{
    if (len == 0 || !sgk_topk_simd_available())
        return topk24_scalar(a, w16, w8, len, v, K, filter, out);
    if (len <= SGK_TOPK_SHORT) return topk24_tiny_avx512(a, w16, w8, len, v, K, out);
    return topk24_avx512(a, w16, w8, len, v, K, filter, out);
}

static bool topk_pairs(sgk_topk_fn topk, sgk_topk48_fn topk48)
{
    return (topk == sgk_topk_simd || topk48 == sgk_topk48_simd) && sgk_topk_simd_available();
}

uint64_t sgk_topk_simd(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v, bool f32,
                       int K, bool filter, uint64_t *out)
{
    if (len == 0 || !sgk_topk_simd_available())
        return sgk_topk_scalar(a, w, len, v, f32, K, filter, out);
    if (len <= SGK_TOPK_SHORT) return topk_tiny_avx512(a, w, len, v, f32, K, out);
    return topk_avx512(a, w, len, v, f32, K, filter, out);
}

uint64_t sgk_topk_simd_single(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v,
                              bool f32, int K, bool filter, uint64_t *out)
{
    return sgk_topk_simd(a, w, len, v, f32, K, filter, out);
}

uint64_t sgk_topk48_simd_single(const uint8_t *e, uint64_t len, uint32_t v, int idbits, int K,
                                bool filter, uint64_t *out)
{
    return sgk_topk48_simd(e, len, v, idbits, K, filter, out);
}

uint64_t sgk_topk48_simd(const uint8_t *e, uint64_t len, uint32_t v, int idbits, int K,
                         bool filter, uint64_t *out)
{
    if (len == 0 || !sgk_topk_simd_available())
        return sgk_topk48_scalar(e, len, v, idbits, K, filter, out);
    if (len <= SGK_TOPK_SHORT) return topk48_tiny_avx512(e, len, v, idbits, K, out);
    return topk48_avx512(e, len, v, idbits, K, filter, out);
}

#else /* no x86-64 vector code */

bool sgk_topk_simd_available(void) { return false; }

static bool slots48_pack_avx512(const uint64_t *s, uint64_t cnt, int idbits, uint8_t *out)
{
    return sgk_slots48_pack_scalar(s, cnt, idbits, out);
}

static bool slots48_stream_avx512(const uint64_t *s, uint64_t cnt, int idbits, uint8_t *out)
{
    return sgk_slots48_pack_scalar(s, cnt, idbits, out);
}

static void slots_stream_avx512(const uint64_t *s, uint64_t cnt, uint64_t *out)
{
    memcpy(out, s, cnt * sizeof *s);
}

static bool topk_pairs(sgk_topk_fn topk, sgk_topk48_fn topk48)
{
    (void)topk;
    (void)topk48;
    return false;
}

static uint64_t topk_pair(const uint32_t *a, const uint32_t *w, uint64_t b0, uint64_t len0,
                          uint64_t b1, uint64_t len1, uint32_t v, bool f32, int K, uint64_t *o0,
                          uint64_t *o1)
{
    return sgk_topk_scalar(a + b0, w + b0, len0, v, f32, K, true, o0) +
           sgk_topk_scalar(a + b1, w + b1, len1, v + 1, f32, K, true, o1);
}

static uint64_t topk48_pair(const uint8_t *e, int idbits, uint64_t b0, uint64_t len0, uint64_t b1,
                            uint64_t len1, uint32_t v, int K, uint64_t *o0, uint64_t *o1)
{
    return sgk_topk48_scalar(e + 6 * b0, len0, v, idbits, K, true, o0) +
           sgk_topk48_scalar(e + 6 * b1, len1, v + 1, idbits, K, true, o1);
}

static uint64_t topk24_pair(const uint32_t *a, const uint16_t *w16, const uint8_t *w8,
                            uint64_t b0, uint64_t len0, uint64_t b1, uint64_t len1, uint32_t v,
                            int K, uint64_t *o0, uint64_t *o1)
{
    return topk24_scalar(a + b0, w16 + b0, w8 + b0, len0, v, K, true, o0) +
           topk24_scalar(a + b1, w16 + b1, w8 + b1, len1, v + 1, K, true, o1);
}

static uint64_t topk24_simd(const uint32_t *a, const uint16_t *w16, const uint8_t *w8,
                            uint64_t len, uint32_t v, int K, bool filter, uint64_t *out)
{
    return topk24_scalar(a, w16, w8, len, v, K, filter, out);
}

uint64_t sgk_topk_simd(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v, bool f32,
                       int K, bool filter, uint64_t *out)
{
    return sgk_topk_scalar(a, w, len, v, f32, K, filter, out);
}

uint64_t sgk_topk_simd_single(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v,
                              bool f32, int K, bool filter, uint64_t *out)
{
    return sgk_topk_scalar(a, w, len, v, f32, K, filter, out);
}

uint64_t sgk_topk48_simd(const uint8_t *e, uint64_t len, uint32_t v, int idbits, int K,
                         bool filter, uint64_t *out)
{
    return sgk_topk48_scalar(e, len, v, idbits, K, filter, out);
}

uint64_t sgk_topk48_simd_single(const uint8_t *e, uint64_t len, uint32_t v, int idbits, int K,
                                bool filter, uint64_t *out)
{
    return sgk_topk48_scalar(e, len, v, idbits, K, filter, out);
}

#endif
