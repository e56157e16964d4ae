/* The forest's CPU top-K (kernels/cpu_topk.c), without a GPU: the scalar
 * and the AVX-512 versions against an oracle (all keys sorted) and against
 * each other, on lists of every length from 0 to past the blocked filter's
 * bound, with self-loops, tied weights, repeated entries (a multigraph's
 * list), negative and positive f32 weights, K from 1 to 4, the filter on
 * and off; and with the filter the count is the one both versions derive
 * from the same blocks. Where the CPU lacks AVX-512 the vector version is
 * the scalar one and the test says so. The same over 48-bit entries
 * (sgk_e48_pack, u32 weights): the same slots and counts as the unpacked
 * lists give. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_topk.h"
#include "testutil.h"

static int cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static uint32_t key_of(bool f32, uint32_t bits)
{
    if (!f32) return bits;
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

/* The K smallest keys by sorting all of them; returns the non-self-loops. */
static uint64_t oracle(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v, bool f32,
                       int K, uint64_t *out)
{
    uint64_t *keys = malloc((len + 1) * sizeof *keys), cnt = 0;
    assert_non_null(keys);
    for (uint64_t i = 0; i < len; i++)
        if (a[i] != v) keys[cnt++] = (uint64_t)key_of(f32, w[i]) << 32 | a[i];
    qsort(keys, cnt, sizeof *keys, cmp_u64);
    for (int s = 0; s < K; s++) out[s] = (uint64_t)s < cnt ? keys[s] : UINT64_MAX;
    free(keys);
    return cnt;
}

/* A list of len entries of vertex v: neighbours from a range of `spread`
 * ids (repeats when the list is longer), some of them v itself, weights
 * from `wrange` values (ties), as f32 bits of both signs when f32. */
static void make_list(uint64_t *rng, uint32_t *a, uint32_t *w, uint64_t len, uint32_t v,
                      uint32_t spread, uint32_t wrange, bool f32, unsigned self_pct)
{
    for (uint64_t i = 0; i < len; i++) {
        a[i] = (uint32_t)(tu_rand(rng) % 100) < self_pct ? v : (uint32_t)(tu_rand(rng) % spread);
        const uint32_t r = (uint32_t)(tu_rand(rng) % wrange);
        if (f32) {
            const float f = ((float)r - (float)wrange / 2.0f) * 0.25f;
            memcpy(&w[i], &f, 4);
        } else {
            w[i] = r;
        }
    }
}

/* Two versions' slots (xo, yo) and counts (xc, yc) against a reference's
 * (ref, rc): what names the versions and the reference. */
static void expect_same(const char *what, uint64_t len, int variant, int K, int filter,
                        const uint64_t *xo, const uint64_t *yo, const uint64_t *ref, uint64_t xc,
                        uint64_t yc, uint64_t rc)
{
    for (int s = 0; s < K; s++)
        if (xo[s] != ref[s] || yo[s] != ref[s])
            fail_msg("%s, len %llu, variant %d, K %d, filter %d: slot %d %llx, %llx, want %llx",
                     what, (unsigned long long)len, variant, K, filter, s,
                     (unsigned long long)xo[s], (unsigned long long)yo[s],
                     (unsigned long long)ref[s]);
    if (xc != rc || yc != rc)
        fail_msg("%s, len %llu, variant %d, K %d, filter %d: counts %llu, %llu, want %llu", what,
                 (unsigned long long)len, variant, K, filter, (unsigned long long)xc,
                 (unsigned long long)yc, (unsigned long long)rc);
}

/* The list's weights cut to wbits bits into wc, and the list packed with
 * idbits id bits into e (6 len bytes). */
static void pack_list(const uint32_t *a, const uint32_t *w, uint64_t len, int idbits, int wbits,
                      uint32_t *wc, uint8_t *e)
{
    for (uint64_t i = 0; i < len; i++) wc[i] = w[i] & ((1u << wbits) - 1);
    sgk_e48_pack(a, wc, len, idbits, e);
}

/* The id bits, the weights that fit beside them, and the packing: every
 * entry reads back as w << idbits | nb. */
static void test_e48_format(void **state)
{
    (void)state;
    assert_int_equal(sgk_e48_bits(1, 0), 1);
    assert_int_equal(sgk_e48_bits(2, 1), 1);
    assert_int_equal(sgk_e48_bits(3, 1), 2);
    assert_int_equal(sgk_e48_bits(1ull << 26, (1u << 20) - 1), 26);
    assert_int_equal(sgk_e48_bits((1ull << 26) + 1, (1u << 21) - 1), 27);
    assert_int_equal(sgk_e48_bits(1ull << 27, (1u << 21) - 1), 27); /* 27 + 21 bits: fits */
    assert_int_equal(sgk_e48_bits(1ull << 27, 1u << 21), -1);       /* 27 + 22 */
    assert_int_equal(sgk_e48_bits(1ull << 32, 65535), 32);
    assert_int_equal(sgk_e48_bits(1ull << 32, 65536), -1);
    assert_int_equal(sgk_e48_bits(1000, UINT32_MAX), 10);          /* 10 + 32 */
    enum { N = 1000 };
    uint32_t a[N], w[N];
    uint8_t e[6 * N + 2];
    uint64_t rng = 99;
    for (int idbits = 1; idbits <= 32; idbits += 31 - (idbits < 16) * 16) {
        for (int i = 0; i < N; i++) {
            a[i] = (uint32_t)(tu_rand(&rng) & ((1ull << idbits) - 1));
            const int wbits = 48 - idbits > 32 ? 32 : 48 - idbits;
            w[i] = (uint32_t)(tu_rand(&rng) & ((1ull << wbits) - 1));
        }
        memset(e, 0xee, sizeof e);
        uint32_t wmax = 0;
        for (int i = 0; i < N; i++) wmax = w[i] > wmax ? w[i] : wmax;
        assert_int_equal(sgk_e48_pack(a, w, N, idbits, e), wmax);
        for (int i = 0; i < N; i++)
            assert_true(sgk_e48_get(e, (uint64_t)i) == ((uint64_t)w[i] << idbits | a[i]));
        assert_int_equal(e[6 * N], 0xee); /* nothing past the entries */
    }
}

/* sgk_e48_pack_range: the entries of a range of whole arrays at their own
 * positions, over several threads' pieces (1 Mi entries each: three and a
 * part here), nothing written outside, the largest weight of the range
 * alone returned (a heavier one lies outside it); an empty range writes
 * nothing. */
static void test_e48_pack_range(void **state)
{
    (void)state;
    const uint64_t M = (3u << 20) + 12345, from = 1234567, to = M - 7;
    const int idbits = 22;
    uint32_t *a = malloc(M * sizeof *a), *w = malloc(M * sizeof *w);
    uint8_t *e = malloc(6 * M + 2);
    assert_true(a && w && e);
    uint64_t rng = 4242;
    uint32_t wmax = 0;
    for (uint64_t p = 0; p < M; p++) {
        a[p] = (uint32_t)(tu_rand(&rng) & ((1u << idbits) - 1));
        w[p] = (uint32_t)(tu_rand(&rng) & ((1u << 20) - 1));
        if (p >= from && p < to) wmax = w[p] > wmax ? w[p] : wmax;
    }
    w[from - 1] = w[to] = 1u << 25; /* outside the range */
    memset(e, 0xee, 6 * M + 2);
    assert_int_equal(sgk_e48_pack_range(a, w, from, to, idbits, 3, e), wmax);
    for (uint64_t p = from; p < to; p++)
        if (sgk_e48_get(e, p) != ((uint64_t)w[p] << idbits | a[p]))
            fail_msg("entry %llu: %llx, want %llx", (unsigned long long)p,
                     (unsigned long long)sgk_e48_get(e, p),
                     (unsigned long long)((uint64_t)w[p] << idbits | a[p]));
    for (uint64_t b = 0; b < 6 * from; b++) assert_int_equal(e[b], 0xee);
    for (uint64_t b = 6 * to; b < 6 * M + 2; b++) assert_int_equal(e[b], 0xee);
    assert_int_equal(sgk_e48_pack_range(a, w, to, to, idbits, 3, e), 0);
    for (uint64_t b = 6 * to; b < 6 * M + 2; b++) assert_int_equal(e[b], 0xee);
    free(a);
    free(w);
    free(e);
}

/* sgk_topk_packed's (or sgk_topk48_packed's) r records of lists [c0, c1)
 * in part and pidx: the lists with entries in order, their slots those of
 * want, nothing written past them (part and pidx filled with 0xcd before). */
static void expect_records(const uint64_t *x, uint64_t c0, uint64_t c1, uint64_t r,
                           const uint64_t *part, const uint32_t *pidx, const uint64_t *want, int K,
                           uint64_t nv)
{
    uint64_t q = 0;
    for (uint64_t v = c0; v < c1; v++) {
        if (x[v + 1] == x[v]) continue;
        assert_true(q < r);
        assert_int_equal(pidx[q], v);
        assert_memory_equal(part + q * K, want + v * (uint64_t)K, 8 * K);
        q++;
    }
    assert_int_equal(q, r);
    for (uint64_t z = r * (uint64_t)K; z < nv * (uint64_t)K; z++)
        assert_true(part[z] == 0xcdcdcdcdcdcdcdcdull);
    for (uint64_t z = r; z < nv; z++) assert_int_equal(pidx[z], 0xcdcdcdcdu);
}

/* sgk_topk_fill (8-byte slots) and sgk_topk_fill48 (6-byte slots, idbits)
 * over src's lists in the pieces cuts[0..ncuts), each with the slots
 * stored plainly and streamed (src->stream; each piece then at an offset
 * of 0 to 62 bytes into o, even for 6-byte slots and a multiple of 8 for
 * 8, so that the first whole line comes after 0 to 31 slots): every
 * vertex's slots, then records (idx), each slot (unpacked by
 * sgk_slot48_key) equal to want's, the records the lists with entries,
 * nothing written before or past them (o, of 8 nv K + 64 bytes, and pidx
 * filled with 0xcd before), the tally want_t's, and for 6 bytes fits true
 * but for f32 weights (whose keys are not packed). */
static void expect_fill(const sgk_topk_src *src0, int idbits, const uint64_t *cuts,
                        size_t ncuts, const uint64_t *want, const sgk_topk_tally *want_t,
                        uint64_t nv, uint8_t *o, uint32_t *pidx, const char *what)
{
    const int K = src0->K;
    const uint64_t *x = src0->x;
    for (int way = 0; way < 8; way++) {
        const bool packed = way & 1, w6 = way & 4;
        const uint64_t width = w6 ? 6 : 8;
        sgk_topk_src s = *src0;
        s.stream = way & 2;
        const sgk_topk_src *src = &s;
        sgk_topk_tally t = {0, 0, 0, 0};
        for (size_t i = 0; i + 1 < ncuts; i++) {
            const uint64_t off = !s.stream ? 0 : w6 ? 2 * (7 * i % 32) : 8 * (3 * i % 8);
            memset(o, 0xcd, 8 * nv * (uint64_t)K + 64);
            memset(pidx, 0xcd, nv * sizeof *pidx);
            bool fits = src->f32;
            uint32_t *const ix = packed ? pidx : NULL;
            const uint64_t r =
                w6 ? sgk_topk_fill48(src, idbits, cuts[i], cuts[i + 1], o + off, ix, &t, &fits)
                   : sgk_topk_fill(src, cuts[i], cuts[i + 1], (uint64_t *)(void *)(o + off), ix,
                                   &t);
            if (w6 && fits == src->f32)
                fail_msg("%s, K %d, %s%s: fits %d", what, K, packed ? "records" : "vertices",
                         s.stream ? ", streamed" : "", fits);
            uint64_t q = 0;
            for (uint64_t v = cuts[i]; v < cuts[i + 1]; v++) {
                if (packed && x[v + 1] == x[v]) continue;
                if (packed) assert_int_equal(pidx[q], v);
                for (int j = 0; j < K && !(w6 && src->f32); j++) {
                    uint64_t k;
                    if (w6)
                        k = sgk_slot48_key(sgk_e48_get(o + off, q * K + j), idbits);
                    else
                        memcpy(&k, o + off + 8 * (q * K + j), 8);
                    if (k != want[v * K + j])
                        fail_msg("%s, K %d, %llu-byte slots, %s%s: vertex %llu slot %d %llx, "
                                 "want %llx",
                                 what, K, (unsigned long long)width,
                                 packed ? "records" : "vertices", s.stream ? ", streamed" : "",
                                 (unsigned long long)v, j, (unsigned long long)k,
                                 (unsigned long long)want[v * K + j]);
                }
                q++;
            }
            assert_int_equal(q, r);
            for (uint64_t z = 0; z < 8 * nv * (uint64_t)K + 64; z++)
                if (z < off || z >= off + width * r * K) assert_int_equal(o[z], 0xcd);
            for (uint64_t z = packed ? r : 0; z < nv; z++) assert_int_equal(pidx[z], 0xcdcdcdcdu);
        }
        assert_memory_equal(&t, want_t, sizeof t);
    }
}

/* The slots in 6 bytes (sgk_slots48_pack, its scalar code and
 * sgk_slot48_key): for 1, 12, 26 and 32 id bits and every count up to 40
 * (the vector code's eight a step and its scalar tail) and 1000, random
 * keys at the limits (weight keys up to 2^(48 - idbits) - 2, neighbours up
 * to 2^idbits - 1, empty slots) pack to the same bytes both ways and back
 * to themselves; one weight key past the limit (with more than 16 id
 * bits), or a neighbour past the ids' bits, anywhere, makes both say it
 * does not fit. */
static void test_slots48(void **state)
{
    (void)state;
    enum { MAX = 1000 };
    uint64_t *s = malloc(MAX * sizeof *s), rng = 4242;
    uint8_t *o = malloc(6 * MAX + 64), *o2 = malloc(6 * MAX + 64);
    assert_true(s && o && o2);
    static const int bits[] = {1, 12, 26, 32};
    for (size_t bi = 0; bi < sizeof bits / sizeof bits[0]; bi++) {
        const int idb = bits[bi];
        /* the largest weight key that fits (keys are 32 bits: with up to 16
         * id bits every one does) */
        const uint64_t wlim0 = (1ull << (48 - idb)) - 2, nlim = (1ull << idb) - 1;
        const uint64_t wlim = wlim0 < 0xFFFFFFFFull ? wlim0 : 0xFFFFFFFFull;
        for (uint64_t cnt = 0; cnt <= MAX; cnt = cnt < 40 ? cnt + 1 : cnt < MAX ? MAX : MAX + 1) {
            for (uint64_t i = 0; i < cnt; i++) {
                const uint64_t r = tu_rand(&rng);
                const uint64_t wk = r % 5 == 0 ? wlim : r % 5 == 1 ? 0 : tu_rand(&rng) % (wlim + 1);
                const uint64_t nb = r % 7 == 0 ? nlim : tu_rand(&rng) & nlim;
                s[i] = r % 11 == 0 ? UINT64_MAX : wk << 32 | nb;
            }
            memset(o, 0xee, 6 * MAX + 64);
            memset(o2, 0xee, 6 * MAX + 64);
            assert_true(sgk_slots48_pack(s, cnt, idb, o));
            assert_true(sgk_slots48_pack_scalar(s, cnt, idb, o2));
            assert_memory_equal(o, o2, 6 * MAX + 64); /* and nothing past 6 cnt */
            for (uint64_t i = 0; i < cnt; i++)
                if (sgk_slot48_key(sgk_e48_get(o, i), idb) != s[i])
                    fail_msg("%d id bits, %llu slots: slot %llu %llx back as %llx", idb,
                             (unsigned long long)cnt, (unsigned long long)i,
                             (unsigned long long)s[i],
                             (unsigned long long)sgk_slot48_key(sgk_e48_get(o, i), idb));
            for (uint64_t at = 0; at < cnt; at += cnt / 3 + 1) {
                const uint64_t keep = s[at];
                for (int nbk = 0; nbk < 2; nbk++) {
                    if (nbk ? idb == 32 : wlim == 0xFFFFFFFFull) continue; /* all fit */
                    s[at] = nbk ? (1ull << idb) : (wlim + 1) << 32;
                    if (sgk_slots48_pack(s, cnt, idb, o) ||
                        sgk_slots48_pack_scalar(s, cnt, idb, o2))
                        fail_msg("%d id bits, %llu slots: slot %llu %llx said to fit", idb,
                                 (unsigned long long)cnt, (unsigned long long)at,
                                 (unsigned long long)s[at]);
                }
                s[at] = keep;
            }
        }
    }
    free(s);
    free(o);
    free(o2);
}

/* sgk_slots48_stream: at every offset into the output from 0 to 65 bytes
 * (odd ones never streamed, even ones with 0 to 31 slots before the first
 * whole line) and every count to 130 and 1000 (none, some and many whole
 * lines of 32 slots, with partial lines at both ends), the same bytes as
 * the scalar pack and nothing outside them; a slot that does not fit, in
 * the first, a middle or the last place, makes it say so. */
static void test_slots48_stream(void **state)
{
    (void)state;
    enum { MAX = 1000, PAD = 128 };
    uint64_t *s = malloc(MAX * sizeof *s), rng = 777;
    uint8_t *o = aligned_alloc(64, 6 * MAX + 2 * PAD), *o2 = aligned_alloc(64, 6 * MAX + 2 * PAD);
    assert_true(s && o && o2);
    static const int bits[] = {12, 26};
    for (size_t bi = 0; bi < sizeof bits / sizeof bits[0]; bi++) {
        const int idb = bits[bi];
        const uint64_t wlim = (1ull << (48 - idb)) - 2, nlim = (1ull << idb) - 1;
        for (uint64_t cnt = 0; cnt <= MAX; cnt = cnt < 130 ? cnt + 1 : cnt < MAX ? MAX : MAX + 1)
            for (uint64_t off = 0; off < 66; off++) {
                for (uint64_t i = 0; i < cnt; i++) {
                    const uint64_t r = tu_rand(&rng);
                    const uint64_t wk = r % 5 == 0 ? wlim : tu_rand(&rng) % (wlim + 1);
                    s[i] = r % 11 == 0 ? UINT64_MAX : wk << 32 | (tu_rand(&rng) & nlim);
                }
                memset(o, 0xee, 6 * MAX + 2 * PAD);
                memset(o2, 0xee, 6 * MAX + 2 * PAD);
                assert_true(sgk_slots48_stream(s, cnt, idb, o + off));
                assert_true(sgk_slots48_pack_scalar(s, cnt, idb, o2 + off));
                if (memcmp(o, o2, 6 * MAX + 2 * PAD) != 0)
                    fail_msg("%d id bits, %llu slots at offset %llu: not the scalar's bytes", idb,
                             (unsigned long long)cnt, (unsigned long long)off);
                if (cnt == 0 || off % 16 != 0) continue;
                const uint64_t at[] = {0, cnt / 2, cnt - 1};
                for (int j = 0; j < 3; j++) {
                    const uint64_t keep = s[at[j]];
                    s[at[j]] = j == 1 && wlim < 0xFFFFFFFFull ? (wlim + 1) << 32 : 1ull << idb;
                    if (sgk_slots48_stream(s, cnt, idb, o + off))
                        fail_msg("%d id bits, %llu slots at offset %llu: slot %llu said to fit",
                                 idb, (unsigned long long)cnt, (unsigned long long)off,
                                 (unsigned long long)at[j]);
                    s[at[j]] = keep;
                }
            }
    }
    free(s);
    free(o);
    free(o2);
}

static void test_topk_versions(void **state)
{
    (void)state;
    if (!sgk_topk_simd_available())
        printf("# this CPU has no AVX-512F: the vector version is the scalar one here\n");
    /* past 700 a few lists longer than 2 SGK_TOPK_AHEAD, whose filter
     * blocks prefetch inside the list (SGK_TOPK_INLIST) */
    enum { MAXLEN = 2 * SGK_TOPK_AHEAD + 1500 };
    static uint32_t a[MAXLEN], w[MAXLEN], wc[MAXLEN];
    static uint8_t e48[6 * MAXLEN];
    uint64_t rng = 12345, cases = 0, filtered = 0, packed = 0;
    for (uint64_t len = 0; len < MAXLEN; len += len < 140 ? 1 : len < 700 ? 37 : 733)
        for (int variant = 0; variant < 6; variant++) {
            const bool f32 = variant & 1;
            const uint32_t v = 1000 + (uint32_t)variant;
            /* spread: distinct-ish neighbours, or few (repeated entries);
             * weights: wide, or few values (ties); self-loops 0-30 % */
            const uint32_t spread = variant < 4 ? 1u << 20 : 8;
            const uint32_t wrange = variant < 2 ? 1u << 30 : variant < 4 ? 5 : 3;
            make_list(&rng, a, w, len, v, spread, wrange, f32, (unsigned)(variant * 6));
            if (variant == 2 && len > 20) /* weights falling: every block enters */
                for (uint64_t i = 0; i < len; i++) w[i] = f32 ? 0x3f800000u : (uint32_t)(len - i);
            for (int K = 1; K <= 4; K++)
                for (int filter = 0; filter < 2; filter++) {
                    uint64_t want[4], s_out[4], v_out[4];
                    const uint64_t exact = oracle(a, w, len, v, f32, K, want);
                    const uint64_t sc = sgk_topk_scalar(a, w, len, v, f32, K, filter, s_out);
                    const uint64_t vc = sgk_topk_simd(a, w, len, v, f32, K, filter, v_out);
                    /* scalar and vector against the oracle; their counts equal */
                    expect_same("scalar, vector", len, variant, K, filter, s_out, v_out, want,
                                sc, vc, sc);
                    if (filter && len > SGK_TOPK_BLOCKS_PAST) {
                        assert_true(sc >= exact && sc <= len); /* entries passed over count */
                        filtered += sc > exact;
                    } else {
                        assert_int_equal(sc, exact);
                    }
                    cases++;
                    if (f32) continue;
                    /* 48-bit entries (21 id bits: neighbours under 2^20 and
                     * v), the weights cut to the 27 bits left */
                    pack_list(a, w, len, 21, 27, wc, e48);
                    uint64_t c_out[4], ps_out[4], pv_out[4];
                    const uint64_t cc = sgk_topk_scalar(a, wc, len, v, false, K, filter, c_out);
                    const uint64_t ps = sgk_topk48_scalar(e48, len, v, 21, K, filter, ps_out);
                    const uint64_t pv = sgk_topk48_simd(e48, len, v, 21, K, filter, pv_out);
                    expect_same("48-bit entries, scalar, vector (want: unpacked)", len,
                                variant, K, filter, ps_out, pv_out, c_out, ps, pv, cc);
                    packed++;
                }
        }
    assert_true(packed > 0);
    /* the filter skipped blocks holding self-loops somewhere */
    assert_true(filtered > 0);
    printf("# %llu cases, %llu with skipped self-loops counted\n", (unsigned long long)cases,
           (unsigned long long)filtered);
}

/* sgk_topk_lists over a CSR of lists of every kind (empty, short, long
 * enough for the filter's blocks, with self-loops and ties, and many
 * neighbours of 17 to 64 entries, which the vector code takes in pairs),
 * whole and in pieces, with and without its prefetch, both top-K versions
 * (the vector one also never paired, sgk_topk_simd_single): the same
 * slots and counts as topk list by list; sgk_topk_packed in the same
 * pieces: the lists with entries only, in order, with their vertices. The
 * same for the 48-bit entries and the 24-bit weights (sgk_topk24_*). */
static void test_topk_lists(void **state)
{
    (void)state;
    enum { NV = 3000 };
    uint64_t *x = malloc((NV + 1) * sizeof *x), rng = 777;
    assert_non_null(x);
    x[0] = 0;
    for (uint64_t v = 0; v < NV; v++) {
        const uint64_t r = tu_rand(&rng) % 100;
        const uint64_t len = r < 20   ? 0
                             : r < 50 ? tu_rand(&rng) % 16
                             : r < 75 ? 15 + tu_rand(&rng) % 52
                             : r < 90 ? 16 + tu_rand(&rng) % 120
                                      : 129 + tu_rand(&rng) % 3000;
        x[v + 1] = x[v] + len;
    }
    /* neighbouring lists of 17 to 64 entries, which the vector code takes
     * in pairs */
    uint64_t pairs = 0;
    for (uint64_t v = 0; v + 1 < NV; v++)
        pairs += x[v + 1] - x[v] > SGK_TOPK_SHORT && x[v + 1] - x[v] <= SGK_TOPK_HEAD &&
                 x[v + 2] - x[v + 1] > SGK_TOPK_SHORT && x[v + 2] - x[v + 1] <= SGK_TOPK_HEAD;
    assert_true(pairs > 200);
    const uint64_t m = x[NV];
    uint32_t *a = malloc(m * 4 + 4), *w = malloc(m * 4 + 4);
    uint64_t *want = malloc(NV * 4 * sizeof *want), *got = malloc(NV * 4 * sizeof *got);
    uint64_t *part = malloc(NV * 4 * sizeof *part);
    uint32_t *pidx = malloc(NV * sizeof *pidx);
    uint8_t *e48 = malloc(6 * m + 2);
    uint16_t *w16 = malloc(m * 2 + 2);
    uint8_t *w8 = malloc(m + 1), *o48 = malloc(8 * NV * 4 + 64);
    assert_true(a && w && want && got && part && pidx && e48 && w16 && w8 && o48);
    for (int f32 = 0; f32 < 2; f32++) {
        for (uint64_t v = 0; v < NV; v++)
            make_list(&rng, a + x[v], w + x[v], x[v + 1] - x[v], (uint32_t)v, 1u << 12,
                      v % 3 ? 1u << 20 : 7, f32, (unsigned)(v % 4) * 5);
        for (int K = 1; K <= 4; K++)
            for (int vec = 0; vec < 3; vec++) {
                /* the vector code, with its pairs and without */
                const sgk_topk_fn fn = vec == 2 ? sgk_topk_simd_single
                                       : vec    ? sgk_topk_simd
                                                : sgk_topk_scalar;
                sgk_topk_tally want_t = {0, 0, 0, 0};
                for (uint64_t v = 0; v < NV; v++) {
                    const uint64_t len = x[v + 1] - x[v];
                    want_t.leaving += fn(a + x[v], w + x[v], len, (uint32_t)v, f32, K, true,
                                         want + v * (uint64_t)K);
                    want_t.lists += len > 0;
                    want_t.longs += len > SGK_TOPK_BLOCKS_PAST;
                    want_t.entries += len;
                }
                assert_true(want_t.longs > 0);
                for (int pf = 0; pf < 2; pf++) {
                    /* whole, then in pieces split at uneven points */
                    static const uint64_t cuts[] = {0, 1, 2, 700, 1801, 2999, NV};
                    sgk_topk_tally t = {0, 0, 0, 0};
                    memset(got, 0xab, NV * 4 * sizeof *got);
                    memset(part, 0xcd, NV * 4 * sizeof *part);
                    sgk_topk_lists(x, a, w, 0, NV, fn, f32, K, true, pf, got, &t);
                    sgk_topk_tally tp = {0, 0, 0, 0};
                    for (size_t i = 0; i + 1 < sizeof cuts / sizeof cuts[0]; i++)
                        sgk_topk_lists(x, a, w, cuts[i], cuts[i + 1], fn, f32, K, true, pf,
                                       part + cuts[i] * (uint64_t)K, &tp);
                    for (uint64_t i = 0; i < NV * (uint64_t)K; i++)
                        if (got[i] != want[i] || part[i] != want[i])
                            fail_msg("f32 %d, K %d, %s, prefetch %d: slot %llu %llx, in pieces "
                                     "%llx, want %llx",
                                     f32, K,
                                     vec == 2 ? "vector, no pairs" : vec ? "vector" : "scalar", pf,
                                     (unsigned long long)i, (unsigned long long)got[i],
                                     (unsigned long long)part[i], (unsigned long long)want[i]);
                    assert_memory_equal(&t, &want_t, sizeof t);
                    assert_memory_equal(&tp, &want_t, sizeof tp);
                    /* packed, in the same pieces: the lists with entries in
                     * order, nothing written past the records */
                    sgk_topk_tally tk = {0, 0, 0, 0};
                    for (size_t i = 0; i + 1 < sizeof cuts / sizeof cuts[0]; i++) {
                        memset(part, 0xcd, NV * 4 * sizeof *part);
                        memset(pidx, 0xcd, NV * sizeof *pidx);
                        const uint64_t r = sgk_topk_packed(x, a, w, cuts[i], cuts[i + 1], fn, f32,
                                                           K, true, pf, part, pidx, &tk);
                        expect_records(x, cuts[i], cuts[i + 1], r, part, pidx, want, K, NV);
                    }
                    assert_memory_equal(&tk, &want_t, sizeof tk);
                    const int sb = sgk_e48_bits(NV, 0); /* the slots' id bits */
                    const sgk_topk_src aw = {.x = x, .a = a, .w = w, .f32 = f32 != 0,
                                             .topk = fn, .K = K, .filter = true,
                                             .prefetch = pf != 0};
                    expect_fill(&aw, sb, cuts, sizeof cuts / sizeof cuts[0], want, &want_t,
                                NV, o48, pidx, "the fill over A and W");
                    if (f32) continue;
                    /* 48-bit entries (12 id bits), whole, in the same pieces
                     * and packed, the scalar and the vector code (its pairs
                     * and without) */
                    const int idbits = sgk_e48_bits(NV, 1u << 20);
                    assert_int_equal(idbits, 12);
                    uint32_t wmax = 0;
                    for (uint64_t i = 0; i < m; i++) wmax = w[i] > wmax ? w[i] : wmax;
                    assert_int_equal(sgk_e48_pack(a, w, m, idbits, e48), wmax);
                    const sgk_topk48_fn f48 = vec == 2 ? sgk_topk48_simd_single
                                              : vec    ? sgk_topk48_simd
                                                       : sgk_topk48_scalar;
                    sgk_topk_tally k48 = {0, 0, 0, 0};
                    for (size_t i = 0; i + 1 < sizeof cuts / sizeof cuts[0]; i++) {
                        memset(part, 0xcd, NV * 4 * sizeof *part);
                        memset(pidx, 0xcd, NV * sizeof *pidx);
                        const uint64_t r = sgk_topk48_packed(x, e48, idbits, cuts[i], cuts[i + 1],
                                                             f48, K, true, pf, part, pidx, &k48);
                        expect_records(x, cuts[i], cuts[i + 1], r, part, pidx, want, K, NV);
                    }
                    assert_memory_equal(&k48, &want_t, sizeof k48);
                    sgk_topk_tally t48 = {0, 0, 0, 0}, p48 = {0, 0, 0, 0};
                    memset(got, 0xab, NV * 4 * sizeof *got);
                    memset(part, 0xcd, NV * 4 * sizeof *part);
                    sgk_topk48_lists(x, e48, idbits, 0, NV, f48, K, true, pf, got, &t48);
                    for (size_t i = 0; i + 1 < sizeof cuts / sizeof cuts[0]; i++)
                        sgk_topk48_lists(x, e48, idbits, cuts[i], cuts[i + 1], f48, K, true, pf,
                                         part + cuts[i] * (uint64_t)K, &p48);
                    for (uint64_t i = 0; i < NV * (uint64_t)K; i++)
                        if (got[i] != want[i] || part[i] != want[i])
                            fail_msg("48-bit entries, K %d, %s, prefetch %d: slot %llu %llx, in "
                                     "pieces %llx, want %llx",
                                     K, vec ? "vector" : "scalar", pf, (unsigned long long)i,
                                     (unsigned long long)got[i], (unsigned long long)part[i],
                                     (unsigned long long)want[i]);
                    assert_memory_equal(&t48, &want_t, sizeof t48);
                    assert_memory_equal(&p48, &want_t, sizeof p48);
                    const sgk_topk_src es = {.x = x, .e48 = e48, .e48_bits = idbits,
                                             .topk48 = f48, .K = K, .filter = true,
                                             .prefetch = pf != 0};
                    expect_fill(&es, sb, cuts, sizeof cuts / sizeof cuts[0], want, &want_t,
                                NV, o48, pidx, "the fill over 48-bit entries");
                    /* 24-bit weights (the vector code's 16-bit and 8-bit
                     * loads), whole, in the same pieces and packed, the
                     * scalar and the vector code (its pairs and without) */
                    for (uint64_t i = 0; i < m; i++) {
                        w16[i] = (uint16_t)w[i];
                        w8[i] = (uint8_t)(w[i] >> 16);
                    }
                    sgk_topk_tally t24 = {0, 0, 0, 0}, p24 = {0, 0, 0, 0}, k24 = p24;
                    memset(got, 0xab, NV * 4 * sizeof *got);
                    memset(part, 0xcd, NV * 4 * sizeof *part);
                    sgk_topk24_lists(x, a, w16, w8, 0, NV, fn, K, true, pf, got, &t24);
                    for (size_t i = 0; i + 1 < sizeof cuts / sizeof cuts[0]; i++)
                        sgk_topk24_lists(x, a, w16, w8, cuts[i], cuts[i + 1], fn, K, true, pf,
                                         part + cuts[i] * (uint64_t)K, &p24);
                    for (uint64_t i = 0; i < NV * (uint64_t)K; i++)
                        if (got[i] != want[i] || part[i] != want[i])
                            fail_msg("24-bit weights, K %d, %s, prefetch %d: slot %llu %llx, in "
                                     "pieces %llx, want %llx",
                                     K, vec == 2 ? "vector, no pairs" : vec ? "vector" : "scalar",
                                     pf, (unsigned long long)i, (unsigned long long)got[i],
                                     (unsigned long long)part[i], (unsigned long long)want[i]);
                    assert_memory_equal(&t24, &want_t, sizeof t24);
                    assert_memory_equal(&p24, &want_t, sizeof p24);
                    for (size_t i = 0; i + 1 < sizeof cuts / sizeof cuts[0]; i++) {
                        memset(part, 0xcd, NV * 4 * sizeof *part);
                        memset(pidx, 0xcd, NV * sizeof *pidx);
                        const uint64_t r = sgk_topk24_packed(x, a, w16, w8, cuts[i], cuts[i + 1],
                                                             fn, K, true, pf, part, pidx, &k24);
                        expect_records(x, cuts[i], cuts[i + 1], r, part, pidx, want, K, NV);
                    }
                    assert_memory_equal(&k24, &want_t, sizeof k24);
                    const sgk_topk_src ws = {.x = x, .a = a, .w16 = w16, .w8 = w8,
                                             .topk = fn, .K = K, .filter = true,
                                             .prefetch = pf != 0};
                    expect_fill(&ws, sb, cuts, sizeof cuts / sizeof cuts[0], want, &want_t,
                                NV, o48, pidx, "the fill over 24-bit weights");
                }
            }
    }
    free(w16);
    free(w8);
    free(o48);
    free(e48);
    free(x);
    free(a);
    free(w);
    free(want);
    free(got);
    free(part);
    free(pidx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_e48_format),
        cmocka_unit_test(test_e48_pack_range),
        cmocka_unit_test(test_topk_versions),
        cmocka_unit_test(test_topk_lists),
        cmocka_unit_test(test_slots48),
        cmocka_unit_test(test_slots48_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
