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
 * outputs). */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gather_against_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
