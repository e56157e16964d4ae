/* SSSP's settle pass on the CPU threads (kernels/cpu_settle.c), without a
 * GPU: sgk_settle_push against an oracle written here, u32 and f32
 * weights, at thresholds and light bounds from nothing deferred to
 * everything, with and without final-vertex bits, and with push buffers
 * from one slot up, so that every call stops mid-list and resumes: the
 * pushes, concatenated, must be the oracle's in order, no slot past the
 * buffer's capacity written, and every entry of the positions read once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_settle.h"
#include "testutil.h"

#define GUARD 0xdeadbeefu

static uint64_t dbl_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static uint32_t flt_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

typedef struct pass {
    uint64_t n, m, cnt;
    uint64_t *x, *dist;
    uint32_t *a, *w, *ids, *done;
} pass;

/* n lists of 0..maxlen entries (some long), weights u32 below 2^20 or f32
 * in [0, 1e6); cnt positions of distinct vertices in id order with finite
 * distances; about a third of the vertices final. */
static pass make_pass(uint64_t *rng, uint64_t n, uint64_t maxlen, int f32)
{
    pass p = {n, 0, 0, malloc((n + 1) * 8), malloc(n * 8), NULL, NULL, malloc(n * 4),
              calloc((n + 31) / 32, 4)};
    assert_true(p.x && p.dist && p.ids && p.done);
    p.x[0] = 0;
    for (uint64_t v = 0; v < n; v++) {
        uint64_t len = tu_rand(rng) % (maxlen + 1);
        if (tu_rand(rng) % 16 == 0) len = 3 * maxlen + tu_rand(rng) % 40;
        p.x[v + 1] = p.x[v] + len;
        if (tu_rand(rng) % 3 == 0) p.done[v >> 5] |= 1u << (v & 31);
        if (tu_rand(rng) % 2) { /* settled in this pass */
            p.ids[p.cnt] = (uint32_t)v;
            p.dist[p.cnt] = f32 ? dbl_bits((double)(tu_rand(rng) % 4000000) / 3.0)
                                : tu_rand(rng) % (1u << 22);
            p.cnt++;
        }
    }
    p.m = p.x[n];
    p.a = malloc((p.m + 1) * 4);
    p.w = malloc((p.m + 1) * 4);
    assert_true(p.a && p.w);
    for (uint64_t e = 0; e < p.m; e++) {
        p.a[e] = (uint32_t)(tu_rand(rng) % n);
        const uint64_t r = tu_rand(rng);
        p.w[e] = f32 ? flt_bits((float)(r % 1000000) / 7.0f) : (uint32_t)(r % (1u << 20));
    }
    return p;
}

static void free_pass(pass *p)
{
    free(p->x);
    free(p->dist);
    free(p->a);
    free(p->w);
    free(p->ids);
    free(p->done);
}

/* The pushes of positions [i0, i1), written here from the definition. */
static uint64_t oracle(const sgk_settle_in *in, uint64_t i0, uint64_t i1, uint32_t *pv,
                       uint64_t *pd)
{
    uint64_t k = 0;
    for (uint64_t i = i0; i < i1; i++) {
        const uint32_t u = in->ids[i];
        for (uint64_t e = in->x[u]; e < in->x[u + 1]; e++) {
            const uint32_t wb = in->w[e], v = in->a[e];
            uint64_t nd;
            if (in->f32) {
                double d;
                float wf;
                memcpy(&d, &in->dist[i], 8);
                memcpy(&wf, &wb, 4);
                nd = dbl_bits(d + (double)wf);
            } else {
                nd = in->dist[i] + wb;
            }
            const bool light_near = nd < in->T && (uint64_t)wb < in->light_bound;
            const bool final = in->done && ((in->done[v / 32] >> (v % 32)) & 1u);
            if (!light_near && !final) {
                pv[k] = v;
                pd[k] = nd;
                k++;
            }
        }
    }
    return k;
}

/* Positions [i0, i1) in calls of at most cap pushes against the oracle. */
static void check(const sgk_settle_in *in, uint64_t i0, uint64_t i1, uint64_t cap,
                  const char *what)
{
    uint64_t ne = 0;
    for (uint64_t i = i0; i < i1; i++) ne += in->x[in->ids[i] + 1] - in->x[in->ids[i]];
    uint32_t *wv = malloc((ne + 1) * 4), *gv = malloc((ne + cap + 1) * 4);
    uint64_t *wd = malloc((ne + 1) * 8), *gd = malloc((ne + cap + 1) * 8);
    assert_true(wv && gv && wd && gd);
    const uint64_t want = oracle(in, i0, i1, wv, wd);
    uint64_t got = 0, read = 0, calls = 0;
    sgk_settle_at at = {i0, SGK_SETTLE_FRESH};
    while (at.i < i1) {
        for (uint64_t j = 0; j <= cap; j++) gv[got + j] = GUARD;
        const uint64_t k = sgk_settle_push(in, &at, i1, gv + got, gd + got, cap, &read);
        if (k > cap || gv[got + cap] != GUARD)
            fail_msg("%s: a call with room for %llu pushes wrote %llu or past them", what,
                     (unsigned long long)cap, (unsigned long long)k);
        if (k < cap && at.i < i1)
            fail_msg("%s: stopped at position %llu of %llu with %llu of %llu slots used", what,
                     (unsigned long long)at.i, (unsigned long long)i1, (unsigned long long)k,
                     (unsigned long long)cap);
        got += k;
        if (++calls > ne + i1 - i0 + 2) fail_msg("%s: no progress", what);
    }
    if (got != want || memcmp(gv, wv, want * 4) != 0 || memcmp(gd, wd, want * 8) != 0)
        fail_msg("%s: %llu pushes, want %llu (positions [%llu, %llu), %llu a call)", what,
                 (unsigned long long)got, (unsigned long long)want, (unsigned long long)i0,
                 (unsigned long long)i1, (unsigned long long)cap);
    if (read != ne)
        fail_msg("%s: %llu entries read, the positions hold %llu", what,
                 (unsigned long long)read, (unsigned long long)ne);
    free(wv);
    free(gv);
    free(wd);
    free(gd);
}

static void test_settle_push(void **state)
{
    (void)state;
    uint64_t rng = 0x5e771eu, checks = 0, pushed = 0;
    for (int f32 = 0; f32 < 2; f32++) {
        pass p = make_pass(&rng, 2000, 40, f32);
        /* thresholds and bounds: nothing deferred (T past every sum, every
         * weight light) to everything (T 0, no weight light), between */
        const uint64_t Ts[] = {0, f32 ? dbl_bits(5e5) : 1u << 21, ~0ull};
        const uint64_t lbs[] = {0, f32 ? flt_bits(3e4f) : 1u << 17, ~0ull};
        const uint64_t caps[] = {1, 2, 7, 100, 1u << 20};
        for (unsigned t = 0; t < 3; t++)
            for (unsigned b = 0; b < 3; b++)
                for (int fin = 0; fin < 2; fin++)
                    for (unsigned c = 0; c < 5; c++) {
                        const sgk_settle_in in = {p.x, p.a, p.w, p.ids, p.dist,
                                                  fin ? p.done : NULL, Ts[t], lbs[b], f32};
                        uint64_t i0 = tu_rand(&rng) % (p.cnt + 1), i1 = tu_rand(&rng) % (p.cnt + 1);
                        if (c == 4) i0 = 0, i1 = p.cnt;
                        if (i1 < i0) {
                            const uint64_t s = i0;
                            i0 = i1;
                            i1 = s;
                        }
                        char what[160];
                        snprintf(what, sizeof what, "%s, T #%u, light bound #%u, %s", f32 ? "f32" : "u32",
                                 t, b, fin ? "final bits" : "no final bits");
                        check(&in, i0, i1, caps[c], what);
                        checks++;
                    }
        /* the middle setting defers some edges and pushes others */
        const sgk_settle_in in = {p.x, p.a, p.w, p.ids, p.dist, p.done, Ts[1], lbs[1], f32};
        uint32_t *pv = malloc((p.m + 1) * 4);
        uint64_t *pd = malloc((p.m + 1) * 8), read = 0;
        assert_true(pv && pd);
        sgk_settle_at at = {0, SGK_SETTLE_FRESH};
        const uint64_t k = sgk_settle_push(&in, &at, p.cnt, pv, pd, p.m + 1, &read);
        assert_true(k > 0 && k < read);
        pushed += k;
        free(pv);
        free(pd);
        free_pass(&p);
    }
    print_message("cpu settle: %llu checks, %llu pushes in the middle settings\n",
                  (unsigned long long)checks, (unsigned long long)pushed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_settle_push)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
