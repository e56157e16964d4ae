/* Where SSSP's settle passes read: a CPU delta-stepping search (the
 * library's) from the Graph500 root of seed 1, then, for each bucket of
 * width DELTA (the vertices with distance in [b DELTA, (b + 1) DELTA), which
 * one settle pass of the GPU's near-far method takes), how many list
 * entries its vertices hold and which share of them lies in chunks of A
 * (CHUNK entries) that the bucket covers by 1/8, 1/4, 1/2 and 3/4 or more.
 * A chunk covered densely streams better than it gathers (kernels/sssp.cu,
 * "Streamed settle passes"); docs/benchmarks.md, twenty-second session:
 * R-MAT 24 at 65536 puts 94 % of the entries in bucket 0, all in chunks it
 * covers by 3/4 or more. Not part of the build:
 *   cc -O2 -std=gnu11 -Isrc -Icommon -Istorage tools/bench/settle_density.c \
 *      -Lbuild -lspillgraph -Wl,-rpath,build -o settle_density
 *   ./settle_density STORE [DELTA] [CHUNK] */
#include <spillgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const sg_error *e)
{
    fprintf(stderr, "settle_density: %s: %s\n", what, e->msg);
    exit(1);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: settle_density STORE [DELTA] [CHUNK]\n");
        return 2;
    }
    const double delta = argc > 2 ? atof(argv[2]) : 65536;
    const uint64_t ch = argc > 3 ? strtoull(argv[3], NULL, 10) : 65536;
    if (!(delta > 0) || ch == 0) {
        fprintf(stderr, "settle_density: DELTA and CHUNK must be positive\n");
        return 2;
    }
    sg_error err = {0};
    const sg_run_options ro = {.backend = SG_BACKEND_CPU};
    sg_run *run = NULL;
    if (sg_run_create(&ro, &run, &err) != SG_OK) die("run", &err);
    sg_graph *g = NULL;
    if (sg_graph_open(run, argv[1], NULL, &g, &err) != SG_OK) die(argv[1], &err);
    sg_graph_info gi;
    sg_graph_get_info(g, &gi);
    if (gi.weight_type != SG_WEIGHT_U32) {
        fprintf(stderr, "settle_density: %s: u32 weights only\n", argv[1]);
        return 1;
    }
    const uint64_t n = gi.n_vertices, *x = sg_graph_offsets(g), m = x[n];
    uint32_t src = 0;
    if (sg_graph_random_source(g, 1, &src, &err) != SG_OK) die("source", &err);
    const sg_sssp_options so = {.source = src};
    sg_sssp_result *r = NULL;
    if (sg_sssp(run, g, &so, &r, &err) != SG_OK) die("sssp", &err);
    const uint64_t nch = (m + ch - 1) / ch, nb = (uint64_t)(r->max_dist / delta) + 1;
    uint64_t *bent = calloc(nb, 8), *bv = calloc(nb, 8), *bucket = malloc(n * 8);
    uint32_t *cov = calloc(nch ? nch : 1, 4);
    if (!bent || !bv || !bucket || !cov) {
        fprintf(stderr, "settle_density: out of memory\n");
        return 1;
    }
    for (uint64_t v = 0; v < n; v++) {
        bucket[v] = r->dist[v] == UINT64_MAX ? UINT64_MAX : (uint64_t)((double)r->dist[v] / delta);
        if (bucket[v] == UINT64_MAX) continue;
        bent[bucket[v]] += x[v + 1] - x[v];
        bv[bucket[v]]++;
    }
    printf("%s: n %llu, m %llu, reached %llu from %u, %llu buckets of %g, chunks of %llu "
           "entries\n",
           argv[1], (unsigned long long)n, (unsigned long long)m, (unsigned long long)r->reached,
           src, (unsigned long long)nb, delta, (unsigned long long)ch);
    static const double fr[4] = {0.125, 0.25, 0.5, 0.75};
    double tot = 0, dense[4] = {0};
    for (uint64_t b = 0; b < nb; b++) {
        if (!bent[b]) continue;
        memset(cov, 0, nch * 4);
        for (uint64_t v = 0; v < n; v++)
            if (bucket[v] == b)
                for (uint64_t e = x[v]; e < x[v + 1];) {
                    const uint64_t c = e / ch, end = (c + 1) * ch < x[v + 1] ? (c + 1) * ch : x[v + 1];
                    cov[c] += (uint32_t)(end - e);
                    e = end;
                }
        double d[4] = {0};
        for (uint64_t c = 0; c < nch; c++)
            for (int k = 0; k < 4; k++)
                if (cov[c] && (double)cov[c] >= fr[k] * (double)ch) d[k] += cov[c];
        tot += (double)bent[b];
        for (int k = 0; k < 4; k++) dense[k] += d[k];
        if (bent[b] >= m / 200)
            printf("bucket %4llu: %10llu vertices, %12llu entries (%5.1f %% of m); in chunks "
                   "covered >= 1/8 %3.0f %%, 1/4 %3.0f %%, 1/2 %3.0f %%, 3/4 %3.0f %%\n",
                   (unsigned long long)b, (unsigned long long)bv[b], (unsigned long long)bent[b],
                   100.0 * (double)bent[b] / (double)m, 100 * d[0] / (double)bent[b],
                   100 * d[1] / (double)bent[b], 100 * d[2] / (double)bent[b],
                   100 * d[3] / (double)bent[b]);
    }
    if (tot > 0)
        printf("all buckets: %.0f entries; in chunks covered >= 1/8 %.0f %%, 1/4 %.0f %%, 1/2 "
               "%.0f %%, 3/4 %.0f %%\n",
               tot, 100 * dense[0] / tot, 100 * dense[1] / tot, 100 * dense[2] / tot,
               100 * dense[3] / tot);
    free(bent);
    free(bv);
    free(bucket);
    free(cov);
    sg_sssp_free(r);
    sg_graph_free(g);
    sg_run_free(run);
    return 0;
}
