/* SSSP's light index on the CPU threads (kernels/cpu_light.c), without a
 * GPU: the vector and the plain versions of the count and the fill against
 * an oracle written here, on lists of every length from 0 past a few
 * vector blocks (so every tail mask), at bounds from 0 (nothing light)
 * through the weights' range to past UINT32_MAX (everything light), on
 * vertex ranges that start and end anywhere, with u32 weights and as f32
 * weights' bits (the sign bit masked: -0.0 is light at any positive
 * bound), the vector loops with and without their prefetch; the fill
 * must write exactly its count (guard words after it stay). Where the CPU lacks AVX-512 the
 * vector version is the plain one and the test says so. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_light.h"
#include "testutil.h"

#define GUARD 0xdeadbeefu

typedef struct lists {
    uint64_t n, m;
    uint64_t *x;
    uint32_t *a, *w;
} lists;

/* n lists of lengths 0..maxlen (some long ones), neighbours anything,
 * weights in [0, wrange) with some at the u32 extremes and some 0x80000000
 * (2^31 as u32, -0.0 as f32). */
static lists make_lists(uint64_t *rng, uint64_t n, uint64_t maxlen, uint32_t wrange)
{
    lists l = {n, 0, malloc((n + 1) * sizeof(uint64_t)), NULL, NULL};
    assert_non_null(l.x);
    l.x[0] = 0;
    for (uint64_t v = 0; v < n; v++) {
        uint64_t len = tu_rand(rng) % (maxlen + 1);
        if (tu_rand(rng) % 16 == 0) len = 3 * maxlen + tu_rand(rng) % 40; /* a long one */
        l.x[v + 1] = l.x[v] + len;
    }
    l.m = l.x[n];
    l.a = malloc((l.m + 1) * sizeof(uint32_t));
    l.w = malloc((l.m + 1) * sizeof(uint32_t));
    assert_non_null(l.a);
    assert_non_null(l.w);
    for (uint64_t e = 0; e < l.m; e++) {
        l.a[e] = (uint32_t)tu_rand(rng);
        const uint64_t r = tu_rand(rng) % 64;
        l.w[e] = r == 0   ? 0u
                 : r == 1 ? UINT32_MAX
                 : r == 2 ? 0x80000000u
                          : (uint32_t)(tu_rand(rng) % wrange);
    }
    return l;
}

static void free_lists(lists *l)
{
    free(l->x);
    free(l->a);
    free(l->w);
}

/* The light entries of [v0, v1): counts per list, and the entries in
 * order; returns the total. */
static uint64_t oracle(const lists *l, uint64_t v0, uint64_t v1, uint64_t bound, bool f32,
                       uint64_t *cnt, uint32_t *la, uint32_t *lw)
{
    uint64_t k = 0;
    for (uint64_t v = v0; v < v1; v++) {
        uint64_t c = 0;
        for (uint64_t e = l->x[v]; e < l->x[v + 1]; e++)
            if ((uint64_t)(f32 ? l->w[e] & 0x7fffffffu : l->w[e]) < bound) { /* -0.0 is 0 */
                la[k] = l->a[e];
                lw[k] = l->w[e];
                k++;
                c++;
            }
        cnt[v - v0] = c;
    }
    return k;
}

typedef uint64_t (*count_fn)(const uint64_t *, const uint32_t *, uint64_t, uint64_t, uint64_t,
                             uint32_t, uint64_t *);
typedef uint64_t (*tally_fn)(const uint32_t *, uint64_t, uint64_t, uint64_t, uint32_t);
typedef uint64_t (*fill_fn)(const uint32_t *, const uint32_t *, uint64_t, uint64_t, uint64_t,
                            uint32_t, uint32_t *, uint32_t *);
typedef uint64_t (*lists_fn)(const uint64_t *, const uint32_t *, const uint32_t *, uint64_t,
                             uint64_t, uint64_t, uint32_t, uint64_t *, uint32_t *, uint32_t *);

/* The vector versions with their prefetch on and off. */
static uint64_t count_pf(const uint64_t *x, const uint32_t *w, uint64_t v0, uint64_t v1,
                         uint64_t bound, uint32_t wmask, uint64_t *cnt)
{
    return sgk_light_count(x, w, v0, v1, bound, wmask, true, cnt);
}
static uint64_t count_np(const uint64_t *x, const uint32_t *w, uint64_t v0, uint64_t v1,
                         uint64_t bound, uint32_t wmask, uint64_t *cnt)
{
    return sgk_light_count(x, w, v0, v1, bound, wmask, false, cnt);
}
static uint64_t tally_pf(const uint32_t *w, uint64_t e0, uint64_t e1, uint64_t bound,
                         uint32_t wmask)
{
    return sgk_light_tally(w, e0, e1, bound, wmask, true);
}
static uint64_t tally_np(const uint32_t *w, uint64_t e0, uint64_t e1, uint64_t bound,
                         uint32_t wmask)
{
    return sgk_light_tally(w, e0, e1, bound, wmask, false);
}
static uint64_t fill_pf(const uint32_t *a, const uint32_t *w, uint64_t e0, uint64_t e1,
                        uint64_t bound, uint32_t wmask, uint32_t *la, uint32_t *lw)
{
    return sgk_light_fill(a, w, e0, e1, bound, wmask, true, la, lw);
}
static uint64_t fill_np(const uint32_t *a, const uint32_t *w, uint64_t e0, uint64_t e1,
                        uint64_t bound, uint32_t wmask, uint32_t *la, uint32_t *lw)
{
    return sgk_light_fill(a, w, e0, e1, bound, wmask, false, la, lw);
}
static uint64_t lists_pf(const uint64_t *x, const uint32_t *a, const uint32_t *w, uint64_t v0,
                         uint64_t v1, uint64_t bound, uint32_t wmask, uint64_t *cnt,
                         uint32_t *la, uint32_t *lw)
{
    return sgk_light_lists(x, a, w, v0, v1, bound, wmask, true, cnt, la, lw);
}
static uint64_t lists_np(const uint64_t *x, const uint32_t *a, const uint32_t *w, uint64_t v0,
                         uint64_t v1, uint64_t bound, uint32_t wmask, uint64_t *cnt,
                         uint32_t *la, uint32_t *lw)
{
    return sgk_light_lists(x, a, w, v0, v1, bound, wmask, false, cnt, la, lw);
}

/* One version on [v0, v1) at `bound` against the oracle's answers. */
static void check_range(const lists *l, uint64_t v0, uint64_t v1, uint64_t bound, bool f32,
                        count_fn cf, tally_fn tf, fill_fn ff, lists_fn lf, const char *name)
{
    const uint32_t wm = f32 ? SGK_LIGHT_F32 : SGK_LIGHT_U32;
    const uint64_t nv = v1 - v0, ne = l->x[v1] - l->x[v0];
    uint64_t *want_c = malloc((nv + 1) * sizeof(uint64_t)), *got_c = malloc((nv + 1) * sizeof(uint64_t));
    uint32_t *wa = malloc((ne + 1) * 4), *ww = malloc((ne + 1) * 4);
    assert_true(want_c && got_c && wa && ww);
    const uint64_t total = oracle(l, v0, v1, bound, f32, want_c, wa, ww);
    if (cf(l->x, l->w, v0, v1, bound, wm, got_c) != total || memcmp(got_c, want_c, nv * 8) != 0)
        fail_msg("%s count: lists [%llu, %llu) at bound %llu%s", name, (unsigned long long)v0,
                 (unsigned long long)v1, (unsigned long long)bound, f32 ? ", f32" : "");
    /* exactly `total` words, then guards that must survive */
    uint32_t *ga = malloc((total + 16) * 4), *gw = malloc((total + 16) * 4);
    assert_true(ga && gw);
    for (uint64_t i = 0; i < total + 16; i++) ga[i] = gw[i] = GUARD;
    if (tf(l->w, l->x[v0], l->x[v1], bound, wm) != total)
        fail_msg("%s tally: lists [%llu, %llu) at bound %llu", name, (unsigned long long)v0,
                 (unsigned long long)v1, (unsigned long long)bound);
    const uint64_t k = ff(l->a, l->w, l->x[v0], l->x[v1], bound, wm, ga, gw);
    if (k != total || memcmp(ga, wa, total * 4) != 0 || memcmp(gw, ww, total * 4) != 0)
        fail_msg("%s fill: lists [%llu, %llu) at bound %llu: %llu entries, want %llu", name,
                 (unsigned long long)v0, (unsigned long long)v1, (unsigned long long)bound,
                 (unsigned long long)k, (unsigned long long)total);
    for (uint64_t i = total; i < total + 16; i++)
        if (ga[i] != GUARD || gw[i] != GUARD)
            fail_msg("%s fill wrote past its %llu entries (lists [%llu, %llu))", name,
                     (unsigned long long)total, (unsigned long long)v0, (unsigned long long)v1);
    /* the count and the fill in one sweep: the same counts and entries,
     * nothing past them */
    for (uint64_t i = 0; i < total + 16; i++) ga[i] = gw[i] = GUARD;
    for (uint64_t i = 0; i <= nv; i++) got_c[i] = GUARD;
    const uint64_t kl = lf(l->x, l->a, l->w, v0, v1, bound, wm, got_c, ga, gw);
    if (kl != total || memcmp(got_c, want_c, nv * 8) != 0 || memcmp(ga, wa, total * 4) != 0 ||
        memcmp(gw, ww, total * 4) != 0 || got_c[nv] != GUARD)
        fail_msg("%s lists: lists [%llu, %llu) at bound %llu%s: %llu entries, want %llu", name,
                 (unsigned long long)v0, (unsigned long long)v1, (unsigned long long)bound,
                 f32 ? ", f32" : "", (unsigned long long)kl, (unsigned long long)total);
    for (uint64_t i = total; i < total + 16; i++)
        if (ga[i] != GUARD || gw[i] != GUARD)
            fail_msg("%s lists wrote past its %llu entries (lists [%llu, %llu))", name,
                     (unsigned long long)total, (unsigned long long)v0, (unsigned long long)v1);
    free(want_c);
    free(got_c);
    free(wa);
    free(ww);
    free(ga);
    free(gw);
}

static void test_light_versions(void **state)
{
    (void)state;
    uint64_t rng = 0x5eed11u;
    const uint32_t wrange = 1u << 20;
    lists l = make_lists(&rng, 3000, 70, wrange);
    const uint64_t bounds[] = {0,          1,           2,          wrange / 64,        wrange / 8,
                               wrange / 2, wrange,      UINT32_MAX, (uint64_t)UINT32_MAX + 1,
                               ~0ull};
    unsigned ranges = 0;
    for (unsigned b = 0; b < sizeof bounds / sizeof bounds[0]; b++)
        for (unsigned t = 0; t < 40; t++) {
            uint64_t v0 = tu_rand(&rng) % l.n, v1 = tu_rand(&rng) % (l.n + 1);
            if (t == 0) v0 = 0, v1 = l.n; /* every list */
            if (v1 < v0) {
                const uint64_t s = v0;
                v0 = v1;
                v1 = s;
            }
            for (int f32 = 0; f32 < 2; f32++) {
                check_range(&l, v0, v1, bounds[b], f32, sgk_light_count_scalar,
                            sgk_light_tally_scalar, sgk_light_fill_scalar,
                            sgk_light_lists_scalar, "plain");
                check_range(&l, v0, v1, bounds[b], f32, count_pf, tally_pf, fill_pf, lists_pf,
                            "vector, prefetch");
                check_range(&l, v0, v1, bounds[b], f32, count_np, tally_np, fill_np, lists_np,
                            "vector");
                /* an entry range that cuts lists anywhere (the fill's pieces) */
                const uint32_t wm = f32 ? SGK_LIGHT_F32 : SGK_LIGHT_U32;
                const uint64_t e0 = tu_rand(&rng) % (l.m + 1),
                               e1 = e0 + tu_rand(&rng) % (l.m + 1 - e0);
                if (sgk_light_tally(l.w, e0, e1, bounds[b], wm, true) !=
                    sgk_light_tally_scalar(l.w, e0, e1, bounds[b], wm))
                    fail_msg("tally of entries [%llu, %llu) at bound %llu", (unsigned long long)e0,
                             (unsigned long long)e1, (unsigned long long)bounds[b]);
            }
            ranges++;
        }
    /* the light share itself is what the index holds: about bound / wrange
     * of the entries at a mid bound (so the ranges above were not empty) */
    uint64_t *cnt = malloc((l.n + 1) * sizeof(uint64_t));
    assert_non_null(cnt);
    const uint64_t light = sgk_light_count(l.x, l.w, 0, l.n, wrange / 8, SGK_LIGHT_U32, true, cnt);
    assert_true(light > l.m / 16 && light < l.m / 5);
    free(cnt);
#if defined(__x86_64__) && defined(__GNUC__)
    const bool vec = __builtin_cpu_supports("avx512f");
#else
    const bool vec = false;
#endif
    print_message("cpu light index: %u ranges x 2 versions x 2 weight types on %llu lists (%llu entries)%s\n",
                  ranges, (unsigned long long)l.n, (unsigned long long)l.m,
                  vec ? "" : "; no AVX-512F here: both plain");
    free_lists(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_light_versions)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
