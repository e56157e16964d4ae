/* BFS's and SSSP's gather on the host threads (kernels/cpu_gather.c),
 * without a GPU:
 * the lists of a piece of the frontier copied one after another, cut at a
 * cap of entries, against an oracle written here: vertices in id order and
 * in any order, lists from empty to long, pieces of 1 to 5,000 vertices,
 * caps that hold everything, that fall exactly on a list's end, one entry
 * either side of it, and the smallest a caller may give (the longest list);
 * 1 to 16 threads (more than the pieces' ranges need: the gather takes
 * fewer), with and without the prefetches, with and without a second
 * array (SSSP's weights) copied from the same positions. The copy must
 * write exactly its entries (a guard word after them stays, in both
 * outputs).
 * And the forest's speculative gather on the host threads
 * (sgk_contract_walk) against an oracle: trees with dropped ones (no tree),
 * self-loops, repeated edges and empty lists; A cut into ranges at random
 * positions (inside lists too), 1 to 16 threads, u32, f32 and 24-bit
 * weights; the edges found, as a multiset, equal the oracle's, written
 * from the top down; with too little room every edge is still counted,
 * none written below slot 0 and none over the slots below its own. And
 * the deferred weights (sgk_defer_keys) against the same keys. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_gather.h"
#include "testutil.h"

#define GUARD 0xdeadbeefu

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The oracle: how many of ids[0, cnt) fit cap (at least one). */
static uint64_t fits(const uint64_t *x, const uint32_t *ids, uint64_t cnt, uint64_t cap)
{
    uint64_t sum = 0, k = 0;
    while (k < cnt) {
        const uint64_t d = x[ids[k] + 1] - x[ids[k]];
        if (k > 0 && sum + d > cap) break;
        sum += d;
        k++;
    }
    return k;
}

static void check(const uint64_t *x, const uint32_t *a, const uint32_t *w, const uint32_t *ids,
                  uint64_t cnt, uint64_t cap, bool prefetch, int threads, const char *what)
{
    uint64_t total = 0;
    for (uint64_t i = 0; i < cnt; i++) total += x[ids[i] + 1] - x[ids[i]];
    uint32_t *off = malloc((cnt + 1) * sizeof *off), *out = malloc((total + 1) * sizeof *out);
    uint32_t *outw = w ? malloc((total + 1) * sizeof *outw) : NULL;
    assert_non_null(off);
    assert_non_null(out);
    assert_true(!w || outw);
    const uint64_t want = fits(x, ids, cnt, cap);
    uint64_t ents = 0;
    for (uint64_t i = 0; i < want; i++) ents += x[ids[i] + 1] - x[ids[i]];
    out[ents] = GUARD;
    if (w) outw[ents] = GUARD;
    const uint64_t k =
        sgk_gather_lists(x, a, w, ids, cnt, cap, off, out, outw, prefetch, threads);
    if (k != want)
        fail_msg("%s: cap %llu, %d threads: took %llu vertices of %llu, want %llu", what,
                 (unsigned long long)cap, threads, (unsigned long long)k,
                 (unsigned long long)cnt, (unsigned long long)want);
    uint64_t pos = 0;
    for (uint64_t i = 0; i < k; i++) {
        if (off[i] != pos)
            fail_msg("%s: cap %llu, %d threads: offset %llu is %u, want %llu", what,
                     (unsigned long long)cap, threads, (unsigned long long)i, off[i],
                     (unsigned long long)pos);
        const uint32_t u = ids[i];
        for (uint64_t j = x[u]; j < x[u + 1]; j++, pos++)
            if (out[pos] != a[j] || (w && outw[pos] != w[j]))
                fail_msg("%s: cap %llu, %d threads: entry %llu of vertex %u wrong (%s)", what,
                         (unsigned long long)cap, threads, (unsigned long long)(j - x[u]), u,
                         out[pos] != a[j] ? "neighbour" : "weight");
    }
    if (off[k] != pos || out[pos] != GUARD || (w && outw[pos] != GUARD))
        fail_msg("%s: cap %llu, %d threads: %u entries written, want %llu (guards %s, %s)", what,
                 (unsigned long long)cap, threads, off[k], (unsigned long long)pos,
                 out[pos] == GUARD ? "kept" : "overwritten",
                 !w ? "none" : outw[pos] == GUARD ? "kept" : "overwritten");
    free(off);
    free(out);
    free(outw);
}

static void gather_against_oracle(void **state)
{
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    const uint64_t n = 20000;
    uint64_t *x = malloc((n + 1) * sizeof *x);
    assert_non_null(x);
    x[0] = 0;
    uint64_t longest = 0;
    for (uint64_t v = 0; v < n; v++) {
        const uint64_t r = next(&rng) % 100;
        const uint64_t d = r < 10 ? 0 : r < 95 ? next(&rng) % 40 : 40 + next(&rng) % 215;
        x[v + 1] = x[v] + d;
        longest = d > longest ? d : longest;
    }
    uint32_t *a = malloc(x[n] * sizeof *a), *w = malloc(x[n] * sizeof *w);
    assert_non_null(a);
    assert_non_null(w);
    for (uint64_t e = 0; e < x[n]; e++) {
        a[e] = (uint32_t)(next(&rng) % n);
        w[e] = (uint32_t)next(&rng);
    }
    uint32_t *ids = malloc(n * sizeof *ids);
    assert_non_null(ids);
    static const uint64_t counts[] = {1, 2, 5, 1023, 1025, 5000};
    static const int threads[] = {1, 2, 3, 7, 16};
    for (int order = 0; order < 2; order++)
        for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
            const uint64_t cnt = counts[ci];
            /* in id order: every fourth vertex or so; else any vertices */
            for (uint64_t i = 0, v = 0; i < cnt; i++) {
                v += order == 0 ? 1 + next(&rng) % 7 : 0;
                ids[i] = (uint32_t)(order == 0 ? v % n : next(&rng) % n);
            }
            uint64_t total = 0, mid = 0;
            for (uint64_t i = 0; i < cnt; i++) {
                total += x[ids[i] + 1] - x[ids[i]];
                if (i == cnt / 2) mid = total; /* the end of a list half way */
            }
            const uint64_t caps[] = {UINT32_MAX, total,        total > 0 ? total - 1 : 0,
                                     mid,        mid + 1,      mid > 0 ? mid - 1 : 0,
                                     longest,    longest * 3};
            char what[100];
            snprintf(what, sizeof what, "%llu vertices %s", (unsigned long long)cnt,
                     order == 0 ? "in id order" : "in any order");
            for (size_t k = 0; k < sizeof caps / sizeof *caps; k++)
                for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
                    const uint64_t cap = caps[k] < longest ? longest : caps[k];
                    check(x, a, (k + t) % 2 ? w : NULL, ids, cnt, cap, t % 2 == 0, threads[t],
                          what);
                }
        }
    free(ids);
    free(w);
    free(a);
    free(x);
}

typedef struct {
    uint32_t k, u, v;
} cw_edge;

static int cw_cmp(const void *pa, const void *pb)
{
    const cw_edge *a = pa, *b = pb;
    if (a->k != b->k) return a->k < b->k ? -1 : 1;
    if (a->u != b->u) return a->u < b->u ? -1 : 1;
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    return 0;
}

static uint32_t cw_key(int wk, const uint32_t *w, const uint16_t *w16, const uint8_t *w8,
                       uint64_t p)
{
    if (wk == 2) return (uint32_t)w16[p] | (uint32_t)w8[p] << 16;
    if (wk == 1) /* f32: the order-preserving map */
        return (w[p] & 0x80000000u) ? ~w[p] : (w[p] | 0x80000000u);
    return w[p];
}

static void contract_walk_against_oracle(void **state)
{
    (void)state;
    uint64_t rng = 0x243f6a8885a308d3ull;
    const uint64_t n = 30000;
    uint64_t *x = malloc((n + 1) * sizeof *x);
    uint32_t *comp = malloc(n * sizeof *comp);
    assert_non_null(x);
    assert_non_null(comp);
    x[0] = 0;
    for (uint64_t v = 0; v < n; v++) {
        const uint64_t r = next(&rng) % 100;
        const uint64_t d = r < 8 ? 0 : r < 96 ? 1 + next(&rng) % 40 : 40 + next(&rng) % 3000;
        x[v + 1] = x[v] + d;
        /* trees of runs of vertices (a clique's), some dropped */
        comp[v] = v > 0 && next(&rng) % 4 ? comp[v - 1] : (uint32_t)(next(&rng) % (n / 3));
        if (next(&rng) % 50 == 0) comp[v] = 0xffffffffu;
    }
    const uint64_t m = x[n];
    uint32_t *a = malloc(m * sizeof *a), *w = malloc(m * sizeof *w);
    uint16_t *w16 = malloc(m * sizeof *w16);
    uint8_t *w8 = malloc(m);
    assert_true(a && w && w16 && w8);
    for (uint64_t v = 0; v < n; v++)
        for (uint64_t p = x[v]; p < x[v + 1]; p++) {
            const uint64_t r = next(&rng) % 10;
            a[p] = r == 0   ? (uint32_t)v /* a self-loop */
                   : r < 3  ? (uint32_t)(next(&rng) % n)
                   : r == 3 && p > x[v] ? a[p - 1] /* a repeated edge */
                            : (uint32_t)((v + n - 20 + next(&rng) % 40) % n);
            w[p] = (uint32_t)(next(&rng) % 64); /* ties */
            if (next(&rng) % 3 == 0) w[p] |= 0x80000000u; /* (f32: negative) */
            w16[p] = (uint16_t)next(&rng);
            w8[p] = (uint8_t)(next(&rng) % 4);
        }
    cw_edge *want = malloc((m + 1) * sizeof *want), *got = malloc((m + 1) * sizeof *got);
    uint32_t *ok = malloc((m + 1) * sizeof *ok), *om = malloc((m + 1) * sizeof *om);
    uint32_t *ox = malloc((m + 1) * sizeof *ox);
    assert_true(want && got && ok && om && ox);
    static const int threads[] = {1, 2, 5, 16};
    for (int wk = 0; wk < 3; wk++) {
        uint64_t nw = 0;
        for (uint64_t v = 0; v < n; v++)
            for (uint64_t p = x[v]; p < x[v + 1]; p++)
                if (comp[v] != 0xffffffffu && a[p] > v && comp[a[p]] != comp[v])
                    want[nw++] = (cw_edge){cw_key(wk, w, w16, w8, p), (uint32_t)v, a[p]};
        qsort(want, nw, sizeof *want, cw_cmp);
        for (size_t ti = 0; ti < sizeof threads / sizeof *threads; ti++)
            for (int room = 0; room < 3; room++) {
                /* room 0: every edge and 5 slots more; 1: exactly; 2: half */
                const uint64_t cap = room == 0 ? nw + 5 : room == 1 ? nw : nw / 2;
                for (uint64_t i = 0; i <= cap; i++) ok[i] = om[i] = ox[i] = GUARD;
                uint64_t taken = 0, found = 0, p0 = 0;
                while (p0 < m) { /* ranges of 1 to ~m / 7 entries, cut anywhere */
                    uint64_t p1 = p0 + 1 + next(&rng) % (m / 7);
                    if (p1 > m) p1 = m;
                    found += sgk_contract_walk(x, n, a, wk == 2 ? NULL : w, w16, w8, wk == 1,
                                               comp, p0, p1, ok, om, ox, cap, &taken,
                                               threads[ti]);
                    p0 = p1;
                }
                if (found != nw || taken != nw)
                    fail_msg("weights %d, %d threads, room %d: found %llu, taken %llu, want "
                             "%llu edges",
                             wk, threads[ti], room, (unsigned long long)found,
                             (unsigned long long)taken, (unsigned long long)nw);
                const uint64_t wr = nw < cap ? nw : cap; /* the slots written */
                for (uint64_t i = 0; i <= cap; i++) {
                    const bool mine = i < cap && i >= cap - wr;
                    if (!mine && (ok[i] != GUARD || om[i] != GUARD || ox[i] != GUARD))
                        fail_msg("weights %d, %d threads, room %d: slot %llu of %llu written",
                                 wk, threads[ti], room, (unsigned long long)i,
                                 (unsigned long long)cap);
                }
                if (wr < nw) continue; /* (overflowed: counted, as checked) */
                for (uint64_t i = 0; i < nw; i++)
                    got[i] = (cw_edge){ok[cap - nw + i], om[cap - nw + i], ox[cap - nw + i]};
                qsort(got, nw, sizeof *got, cw_cmp);
                for (uint64_t i = 0; i < nw; i++)
                    if (cw_cmp(&got[i], &want[i]) != 0)
                        fail_msg("weights %d, %d threads: edge %llu is (%u, %u, %u), want (%u, "
                                 "%u, %u)",
                                 wk, threads[ti], (unsigned long long)i, got[i].k, got[i].u,
                                 got[i].v, want[i].k, want[i].u, want[i].v);
            }
    }
    free(ox), free(om), free(ok), free(got), free(want);
    free(w8), free(w16), free(w), free(a), free(comp), free(x);
}

/* The deferred weights (sgk_defer_keys): positions less a base become the
 * keys of their weights, u32, f32 and 24-bit, for 0 to 100,000 edges on 1
 * to 16 threads; the words past cnt stay. */
static void defer_keys_against_oracle(void **state)
{
    (void)state;
    uint64_t rng = 0x13198a2e03707344ull;
    const uint64_t m = 1 << 20, base = 12345;
    uint32_t *w = malloc(m * sizeof *w), *key = malloc(100001 * sizeof *key);
    uint32_t *pos = malloc(100000 * sizeof *pos);
    uint16_t *w16 = malloc(m * sizeof *w16);
    uint8_t *w8 = malloc(m);
    assert_true(w && key && pos && w16 && w8);
    for (uint64_t p = 0; p < m; p++) {
        w[p] = (uint32_t)next(&rng);
        w16[p] = (uint16_t)next(&rng);
        w8[p] = (uint8_t)next(&rng);
    }
    static const uint64_t counts[] = {0, 1, 17, 5000, 100000};
    static const int threads[] = {1, 3, 16};
    for (int wk = 0; wk < 3; wk++)
        for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++)
            for (size_t ti = 0; ti < sizeof threads / sizeof *threads; ti++) {
                const uint64_t cnt = counts[ci];
                for (uint64_t i = 0; i < cnt; i++)
                    key[i] = pos[i] = (uint32_t)(next(&rng) % (m - base));
                key[cnt] = GUARD;
                sgk_defer_keys(key, cnt, base, wk == 2 ? NULL : w, w16, w8, wk == 1,
                               threads[ti]);
                for (uint64_t i = 0; i < cnt; i++)
                    if (key[i] != cw_key(wk, w, w16, w8, base + pos[i]))
                        fail_msg("weights %d, %llu edges, %d threads: key %llu is %u, want %u",
                                 wk, (unsigned long long)cnt, threads[ti],
                                 (unsigned long long)i, key[i],
                                 cw_key(wk, w, w16, w8, base + pos[i]));
                if (key[cnt] != GUARD)
                    fail_msg("weights %d, %llu edges: the word past them written", wk,
                             (unsigned long long)cnt);
            }
    free(w8), free(w16), free(pos), free(key), free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gather_against_oracle),
        cmocka_unit_test(contract_walk_against_oracle),
        cmocka_unit_test(defer_keys_against_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
