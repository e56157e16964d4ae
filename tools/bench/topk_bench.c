// The forest CPU share's top-K (kernels/cpu_topk.c), scalar against
// AVX-512, on one thread: 2^26 entries in lists of one length, random
// neighbours and weights (24 bits), K = 4, the filter on (as the hybrid
// forest runs it); and sgk_topk_lists over the same lists with AVX-512
// (the engine's loop: lists of 17-64 entries two at a time), and
// sgk_topk48_lists over them as 48-bit entries (neighbours and weights of
// 24 bits each; the same slots, checked), and sgk_topk24_lists with the
// weights as W16 and W8 (the same slots, checked). Prints ns per entry and
// per list for each, twice. With
// -c the same 2^26 entries are 2^10 passes over 2^16 entries that stay in
// cache: the compute alone. Degree 0 takes 2^20 empty lists.
// Build: cc -O2 -Ikernels -Icommon -o topk_bench tools/bench/topk_bench.c kernels/cpu_topk.c
// Usage: topk_bench [-c] DEGREE...
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_topk.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const int cached = argc > 1 && strcmp(argv[1], "-c") == 0;
    if (argc < 2 + cached) {
        fprintf(stderr, "usage: topk_bench [-c] DEGREE...\n");
        return 2;
    }
    printf("AVX-512F: %s%s\n", sgk_topk_simd_available() ? "yes" : "no",
           cached ? "; in cache" : "");
    for (int i = 1 + cached; i < argc; i++) {
        char *end = NULL;
        const unsigned long deg = strtoul(argv[i], &end, 10);
        if (!end || *end || end == argv[i]) {
            fprintf(stderr, "topk_bench: degree '%s' is not a number\n", argv[i]);
            return 2;
        }
        const unsigned long total = deg ? 1ul << 26 : 1ul << 20;
        const unsigned long span = cached ? total >> 10 : total, passes = total / span;
        const unsigned long nl = deg ? (span / deg ? span / deg : 1) : span,
                            m = deg ? nl * deg : 1;
        uint32_t *a = malloc(m * 4), *w = malloc(m * 4);
        uint64_t *x = malloc((nl + 1) * sizeof *x), *lo = malloc(nl * 4 * sizeof *lo);
        uint64_t *lo48 = malloc(nl * 4 * sizeof *lo48);
        uint8_t *e48 = malloc(6 * m), *w8 = malloc(m);
        uint16_t *w16 = malloc(2 * m);
        if (!a || !w || !x || !lo || !lo48 || !e48 || !w8 || !w16) {
            fprintf(stderr, "topk_bench: out of memory for %lu entries\n", m);
            return 1;
        }
        /* each list's slots into a ring, read back 32 lists later: a read
         * right after topk's masked store waits for it to commit (store
         * forwarding fails), which serialised the lists and charged the
         * vector code's latency to every list */
        uint64_t s = 1, out[64][4], acc = 0;
        memset(out, 0, sizeof out);
        for (unsigned long p = 0; p < m; p++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            a[p] = (uint32_t)(s >> 33) & 0xffffff;
            w[p] = (uint32_t)(s >> 7) & 0xffffff;
        }
        sgk_e48_pack(a, w, m, 24, e48);
        for (unsigned long p = 0; p < m; p++) {
            w16[p] = (uint16_t)w[p];
            w8[p] = (uint8_t)(w[p] >> 16);
        }
        for (unsigned long l = 0; l <= nl; l++) x[l] = deg ? l * deg : 0;
        for (int r = 0; r < 2; r++) {
            const double t0 = now();
            for (unsigned long q = 0; q < passes; q++)
                for (unsigned long l = 0; l < nl; l++)
                    acc += sgk_topk_scalar(a + l * deg, w + l * deg, deg, 7, false, 4, true,
                                           out[l % 64]) +
                           out[(l + 32) % 64][3];
            const double t1 = now();
            for (unsigned long q = 0; q < passes; q++)
                for (unsigned long l = 0; l < nl; l++)
                    acc += sgk_topk_simd(a + l * deg, w + l * deg, deg, 7, false, 4, true,
                                         out[l % 64]) +
                           out[(l + 32) % 64][3];
            const double t2 = now();
            for (unsigned long q = 0; q < passes; q++) {
                sgk_topk_tally t = {0, 0, 0, 0};
                sgk_topk_lists(x, a, w, 0, nl, sgk_topk_simd, false, 4, true, !cached, lo, &t);
                acc += t.leaving + lo[(q * 7) % (nl * 4)];
            }
            const double t3 = now();
            for (unsigned long q = 0; q < passes; q++) {
                sgk_topk_tally t = {0, 0, 0, 0};
                sgk_topk48_lists(x, e48, 24, 0, nl, sgk_topk48_simd, 4, true, !cached, lo48, &t);
                acc += t.leaving + lo48[(q * 7) % (nl * 4)];
            }
            const double t4 = now();
            if (memcmp(lo, lo48, nl * 4 * sizeof *lo) != 0) {
                fprintf(stderr, "topk_bench: degree %lu: the 48-bit entries' slots differ\n", deg);
                return 1;
            }
            for (unsigned long q = 0; q < passes; q++) {
                sgk_topk_tally t = {0, 0, 0, 0};
                sgk_topk24_lists(x, a, w16, w8, 0, nl, sgk_topk_simd, 4, true, !cached, lo48, &t);
                acc += t.leaving + lo48[(q * 7) % (nl * 4)];
            }
            const double t5 = now();
            if (memcmp(lo, lo48, nl * 4 * sizeof *lo) != 0) {
                fprintf(stderr, "topk_bench: degree %lu: the 24-bit weights' slots differ\n", deg);
                return 1;
            }
            const double e = (double)(deg ? m : 1) * (double)passes, ls = (double)nl * (double)passes;
            printf("degree %lu: scalar %.2f ns an entry (%.1f a list), simd %.2f (%.1f), lists "
                   "%.2f (%.1f), lists48 %.2f (%.1f), lists24 %.2f (%.1f) (checksum %llu)\n",
                   deg, (t1 - t0) / e * 1e9, (t1 - t0) / ls * 1e9, (t2 - t1) / e * 1e9,
                   (t2 - t1) / ls * 1e9, (t3 - t2) / e * 1e9, (t3 - t2) / ls * 1e9,
                   (t4 - t3) / e * 1e9, (t4 - t3) / ls * 1e9, (t5 - t4) / e * 1e9,
                   (t5 - t4) / ls * 1e9, (unsigned long long)(acc % 1000));
        }
        free(a);
        free(w);
        free(x);
        free(lo);
        free(lo48);
        free(e48);
        free(w16);
        free(w8);
    }
    return 0;
}
