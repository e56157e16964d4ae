// The CPU forest's list sort (src/sort.c) on a store's own lists, one
// thread: each list's keys built as src/mst.c builds them (weight << 32 |
// neighbour), sorted by sgi_sort_u64_scalar (insertion, quicksort, radix)
// and then by sgi_sort_u64 (the AVX-512 network for lists of up to
// SGI_SORT_VECTOR_MAX keys where the CPU has it), each list timed alone
// (the clock's ~20-40 ns a call is in the short lists' figures). Prints,
// per bucket of list lengths, the lists, their keys and ns per key.
// Build: cc -O2 -Isrc -Icommon -Istorage -Ibuild -o sort_bench tools/bench/sort_bench.c src/sort.c
//        -Lbuild -lspillgraph -Wl,-rpath,$PWD/build
// Usage: sort_bench STORE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../src/internal.h"
#include "spillgraph.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sort_bench STORE\n");
        return 2;
    }
    sg_run *run = NULL;
    sg_graph *g = NULL;
    sg_error err = {0};
    if (sg_run_create(NULL, &run, &err) != SG_OK ||
        sg_graph_open(run, argv[1], NULL, &g, &err) != SG_OK) {
        fprintf(stderr, "sort_bench: %s\n", err.msg);
        return 1;
    }
    sg_graph_info gi;
    sg_graph_get_info(g, &gi);
    const uint64_t *x = sg_graph_offsets(g);
    const uint32_t *a = sg_graph_neighbors(g), *w = sg_graph_weights(g);
    if (!w) {
        fprintf(stderr, "sort_bench: %s has no weights\n", argv[1]);
        return 1;
    }
    const uint64_t n = gi.n_vertices;
    uint64_t maxd = 1;
    for (uint64_t v = 0; v < n; v++)
        if (x[v + 1] - x[v] > maxd) maxd = x[v + 1] - x[v];
    uint64_t *k = malloc(maxd * sizeof *k), *tmp = malloc(maxd * sizeof *tmp);
    if (!k || !tmp) {
        fprintf(stderr, "sort_bench: out of memory for lists of %llu\n", (unsigned long long)maxd);
        return 1;
    }
    enum { NB = 10 };
    static const uint64_t lim[NB] = {8, 16, 32, 64, 128, 256, 512, 1024, 4096, UINT64_MAX};
    double t[NB][2] = {{0}};
    uint64_t keys[NB] = {0}, lists[NB] = {0};
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t v = 0; v < n; v++) {
            const uint64_t d = x[v + 1] - x[v];
            if (d < 2) continue;
            int b = 0;
            while (d > lim[b]) b++;
            for (uint64_t j = 0; j < d; j++) k[j] = (uint64_t)w[x[v] + j] << 32 | a[x[v] + j];
            const double t0 = now();
            const uint64_t *r = pass ? sgi_sort_u64(k, d, tmp) : sgi_sort_u64_scalar(k, d, tmp);
            t[b][pass] += now() - t0;
            for (uint64_t j = 1; j < d; j++)
                if (r[j - 1] > r[j]) {
                    fprintf(stderr, "sort_bench: list %llu not sorted\n", (unsigned long long)v);
                    return 1;
                }
            if (!pass) {
                keys[b] += d;
                lists[b]++;
            }
        }
    printf("%s: the AVX-512 network %s\n", argv[1],
           sgi_sort_small_simd(k, 0) ? "runs" : "does not run here");
    for (int b = 0; b < NB; b++) {
        if (!lists[b]) continue;
        char range[64];
        if (lim[b] == UINT64_MAX)
            snprintf(range, sizeof range, "%llu and more", (unsigned long long)lim[b - 1] + 1);
        else
            snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)(b ? lim[b - 1] + 1 : 2),
                     (unsigned long long)lim[b]);
        printf("lists of %s keys: %llu lists, %llu keys: scalar %.3f s (%.2f ns a key), "
               "sgi_sort_u64 %.3f s (%.2f)\n",
               range, (unsigned long long)lists[b], (unsigned long long)keys[b], t[b][0],
               1e9 * t[b][0] / (double)keys[b], t[b][1], 1e9 * t[b][1] / (double)keys[b]);
    }
    free(k);
    free(tmp);
    sg_graph_free(g);
    sg_run_free(run);
    return 0;
}
