/* src/sort.c: the lists' integer sorts (sgi_sort_u64, its scalar path and
 * its AVX-512 network for short lists, sgi_sort_dedupe) against qsort, on
 * every length up to 300, the network's limits to 1024, and some longer,
 * with ties, zeros, UINT64_MAX,
 * sorted and reversed input. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/internal.h"

enum { MAXN = 5000, NKINDS = 6 };

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* n keys of one kind: 0 wide random, 1 few values (ties), 2 zeros and
 * UINT64_MAX mixed in, 3 ascending, 4 descending, 5 the lists' own shape
 * (a weight key below 2^20 over a neighbour below 2^22). */
static void fill(uint64_t *k, uint64_t n, int kind, uint64_t *rng)
{
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t r = tu_rand(rng);
        switch (kind) {
        case 0: k[i] = r; break;
        case 1: k[i] = r % 5; break;
        case 2: k[i] = r % 3 == 0 ? 0 : r % 3 == 1 ? UINT64_MAX : r; break;
        case 3: k[i] = i / 2; break;
        case 4: k[i] = UINT64_MAX - i; break;
        default: k[i] = (r >> 44) << 32 | (r & ((1u << 22) - 1)); break;
        }
    }
}

/* Lengths: every one to 300; to 1100 every seventh, and every one within 2
 * of a multiple of 256 (the network's vectors double at 256, 512 and 1024
 * keys: SGI_SORT_VECTOR_MAX); then a few up to MAXN. */
static uint64_t next_len(uint64_t n)
{
    if (n < 300) return n + 1;
    if (n < 1100) return (n + 1) % 256 <= 2 || (n + 1) % 256 >= 254 ? n + 1 : n + 7;
    return n * 2 + 7;
}

static void check_sorted(const char *what, const uint64_t *got, const uint64_t *want, uint64_t n,
                         int kind)
{
    for (uint64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s, n %llu, kind %d: key %llu is %llx, want %llx", what,
                     (unsigned long long)n, kind, (unsigned long long)i,
                     (unsigned long long)got[i], (unsigned long long)want[i]);
}

static void test_sort_u64(void **state)
{
    (void)state;
    uint64_t *k = malloc(MAXN * sizeof *k), *want = malloc(MAXN * sizeof *want),
             *tmp = malloc(MAXN * sizeof *tmp), *in = malloc(MAXN * sizeof *in), rng = 99;
    assert_true(k && want && tmp && in);
    const bool simd = sgi_sort_small_simd(k, 0);
    printf("# the AVX-512 network %s on this CPU\n", simd ? "runs" : "does not run");
    uint64_t cases = 0;
    for (uint64_t n = 0; n <= MAXN; n = next_len(n))
        for (int kind = 0; kind < NKINDS; kind++) {
            fill(in, n, kind, &rng);
            memcpy(want, in, n * sizeof *in);
            qsort(want, n, sizeof *want, cmp_u64);
            memcpy(k, in, n * sizeof *in);
            check_sorted("sgi_sort_u64", sgi_sort_u64(k, n, tmp), want, n, kind);
            memcpy(k, in, n * sizeof *in);
            check_sorted("sgi_sort_u64_scalar", sgi_sort_u64_scalar(k, n, tmp), want, n, kind);
            memcpy(k, in, n * sizeof *in);
            const bool took = sgi_sort_small_simd(k, n);
            /* taken exactly up to SGI_SORT_VECTOR_MAX where the CPU has it;
             * k untouched otherwise */
            assert_int_equal(took, simd && n <= SGI_SORT_VECTOR_MAX);
            check_sorted("sgi_sort_small_simd", k, took ? want : in, n, kind);
            cases++;
        }
    printf("# %llu cases\n", (unsigned long long)cases);
    free(k);
    free(want);
    free(tmp);
    free(in);
}

/* sgi_sort_dedupe: the keys (neighbour << 32 | weight) by neighbour, one
 * each, the least weight. */
static void test_sort_dedupe(void **state)
{
    (void)state;
    uint64_t *k = malloc(MAXN * sizeof *k), *want = malloc(MAXN * sizeof *want),
             *tmp = malloc(MAXN * sizeof *tmp), rng = 7;
    assert_true(k && want && tmp);
    for (uint64_t n = 0; n <= MAXN; n = next_len(n))
        for (unsigned spread = 1; spread <= 1024; spread *= 32) {
            /* neighbours below `spread` (1: every key the same neighbour),
             * weights with ties */
            for (uint64_t i = 0; i < n; i++)
                k[i] = (tu_rand(&rng) % spread) << 32 | tu_rand(&rng) % 7;
            memcpy(want, k, n * sizeof *k);
            qsort(want, n, sizeof *want, cmp_u64);
            uint64_t m = 0;
            for (uint64_t i = 0; i < n; i++)
                if (m == 0 || want[i] >> 32 != want[m - 1] >> 32) want[m++] = want[i];
            const uint64_t got = sgi_sort_dedupe(k, n, tmp, 10);
            assert_int_equal(got, m);
            check_sorted("sgi_sort_dedupe", k, want, m, (int)spread);
        }
    free(k);
    free(want);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_u64),
        cmocka_unit_test(test_sort_dedupe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
