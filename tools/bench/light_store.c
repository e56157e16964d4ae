// SSSP's light index on the CPU threads alone (no GPU beside them), over a
// store's lists from a fraction of n up to n, as the hybrid SSSP's index
// share takes them (kernels/sssp.cu, IndexShare::fused): chunks of at most
// 8 M entries (a stage buffer's), each cut into 8 T pieces of about equal
// entries. Two ways, interleaved:
//   two sweeps: per-list counts (sgk_light_count), the offsets, then the
//     chunk's light entries by sgk_light_tally and sgk_light_fill over
//     equal pieces of entries (the engine's code before this bench);
//   one sweep: per piece sgk_light_lists (counts and light entries at once)
//     into scratch at the piece's first entry, then the offsets and a copy
//     of each piece's light entries to its place.
// Each with and without the loops' software prefetch. Then plain reads of
// W, and of A and W, over the same entries through the same vector loop
// (the threads' streaming rate). Where the arrays are: the store's own (decoded into
// plain memory), or copies in anonymous memory with 4 KiB pages
// (MADV_NOHUGEPAGE) or 2 MiB ones (MADV_HUGEPAGE), as the pages of managed
// and pinned memory may differ from plain memory's. Prints G entries/s.
// Build (from the top, after meson compile -C build), one line:
//   cc -O2 -fopenmp -Isrc -Icommon -Ikernels -Istorage -o light_store
//      tools/bench/light_store.c kernels/cpu_light.c -Lbuild -lspillgraph -Wl,-rpath,$PWD/build
// Usage: light_store STORE THREADS [FROM (0..1, default 0.6)] [LIGHT (share, 0.064)]
//        [PAGES: store|small|huge]
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "cpu_light.h"
#include "spillgraph.h"

#define MOST ((uint64_t)8 << 20) /* a chunk's entries: SGK_STAGE_BYTES / 8 */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_u32(const void *p, const void *q)
{
    const uint32_t a = *(const uint32_t *)p, b = *(const uint32_t *)q;
    return a < b ? -1 : a > b;
}

/* bytes of anonymous memory with the given advice (0: none), touched */
static void *anon(size_t bytes, int advice)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("light_store: mmap");
        exit(1);
    }
    if (advice && madvise(p, bytes, advice) != 0) perror("light_store: madvise");
    return p;
}

/* the first list at or past entry `want` among [lo, hi] */
static uint64_t first_at(const uint64_t *x, uint64_t lo, uint64_t hi, uint64_t want)
{
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (x[mid] < want) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

typedef struct bench {
    const uint64_t *x;
    const uint32_t *a, *w;
    uint64_t v0, n, bound, np;
    int threads;
    bool pf;                   /* the loops' software prefetch */
    uint64_t *cut, *tot, *off; /* pieces, their light counts, a chunk's offsets */
    uint32_t *sa, *sw;         /* a stage buffer's halves (light A, W) */
    uint32_t *ta, *tw;         /* the one sweep's scratch */
} bench;

/* The next chunk down from *hi: lists [lo, hi) of at most MOST entries and
 * MOST lists (one list if it alone is longer). */
static uint64_t chunk_below(const bench *b, uint64_t hi)
{
    uint64_t lo = first_at(b->x, b->v0, hi, b->x[hi] > MOST ? b->x[hi] - MOST : 0);
    if (hi - lo > MOST) lo = hi - MOST;
    if (lo == hi) lo = hi - 1;
    return lo < b->v0 ? b->v0 : lo;
}

static void cuts(const bench *b, uint64_t v0, uint64_t v1)
{
    const uint64_t e0 = b->x[v0], ent = b->x[v1] - e0;
    for (uint64_t p = 0; p < b->np; p++) b->cut[p] = first_at(b->x, v0, v1, e0 + ent * p / b->np);
    b->cut[0] = v0;
    b->cut[b->np] = v1;
}

/* prefix of tot[1..np] (tot[0] = 0), the offsets from `base` */
static void offsets(const bench *b, uint64_t v0, uint64_t base)
{
    b->tot[0] = 0;
    for (uint64_t p = 0; p < b->np; p++) b->tot[p + 1] += b->tot[p];
#pragma omp parallel for schedule(static) num_threads(b->threads)
    for (uint64_t p = 0; p < b->np; p++) {
        uint64_t o = base + b->tot[p];
        for (uint64_t v = b->cut[p]; v < b->cut[p + 1]; v++) {
            const uint64_t q = b->off[v - v0];
            b->off[v - v0] = o;
            o += q;
        }
    }
}

/* the engine's two sweeps; returns the light entries, *sum a checksum */
static uint64_t two_sweeps(const bench *b, uint64_t *sum)
{
    uint64_t light = 0, s = 0;
    for (uint64_t v1 = b->n; v1 > b->v0;) {
        const uint64_t v0 = chunk_below(b, v1);
        cuts(b, v0, v1);
#pragma omp parallel for schedule(dynamic, 1) num_threads(b->threads)
        for (uint64_t p = 0; p < b->np; p++)
            b->tot[p + 1] = sgk_light_count(b->x, b->w, b->cut[p], b->cut[p + 1], b->bound,
                                            SGK_LIGHT_U32, b->pf, b->off + (b->cut[p] - v0));
        offsets(b, v0, light);
        const uint64_t e0 = b->x[v0], e1 = b->x[v1];
        for (uint64_t r0 = e0; r0 < e1;) {
            const uint64_t r1 = e1 - r0 < MOST ? e1 : r0 + MOST, span = r1 - r0;
            uint64_t *pre = b->cut; /* (the engine's piece[]; cut is spent by now) */
#pragma omp parallel num_threads(b->threads)
            {
#pragma omp for schedule(static)
                for (uint64_t p = 0; p < b->np; p++)
                    pre[p + 1] = sgk_light_tally(b->w, r0 + span * p / b->np,
                                                 r0 + span * (p + 1) / b->np, b->bound,
                                                 SGK_LIGHT_U32, b->pf);
#pragma omp single
                {
                    pre[0] = 0;
                    for (uint64_t p = 0; p < b->np; p++) pre[p + 1] += pre[p];
                }
#pragma omp for schedule(static)
                for (uint64_t p = 0; p < b->np; p++)
                    sgk_light_fill(b->a, b->w, r0 + span * p / b->np,
                                   r0 + span * (p + 1) / b->np, b->bound, SGK_LIGHT_U32, b->pf,
                                   b->sa + pre[p], b->sw + pre[p]);
            }
            const uint64_t k = pre[b->np];
            for (uint64_t i = 0; i < k; i += 4099) s += b->sa[i] ^ b->sw[i];
            light += k;
            r0 = r1;
        }
        s += b->off[0] + b->off[v1 - v0 - 1];
        v1 = v0;
    }
    *sum = s;
    return light;
}

/* one sweep: counts and light entries together into scratch, then moved */
static uint64_t one_sweep(const bench *b, uint64_t *sum)
{
    uint64_t light = 0, s = 0;
    for (uint64_t v1 = b->n; v1 > b->v0;) {
        const uint64_t v0 = chunk_below(b, v1), e0 = b->x[v0];
        cuts(b, v0, v1);
#pragma omp parallel for schedule(dynamic, 1) num_threads(b->threads)
        for (uint64_t p = 0; p < b->np; p++) {
            const uint64_t at = b->x[b->cut[p]] - e0;
            b->tot[p + 1] = sgk_light_lists(b->x, b->a, b->w, b->cut[p], b->cut[p + 1], b->bound,
                                            SGK_LIGHT_U32, b->pf, b->off + (b->cut[p] - v0),
                                            b->ta + at, b->tw + at);
        }
        offsets(b, v0, light);
        const uint64_t k = b->tot[b->np];
#pragma omp parallel for schedule(static) num_threads(b->threads)
        for (uint64_t p = 0; p < b->np; p++) {
            const uint64_t at = b->x[b->cut[p]] - e0, c = b->tot[p + 1] - b->tot[p];
            memcpy(b->sa + b->tot[p], b->ta + at, c * 4);
            memcpy(b->sw + b->tot[p], b->tw + at, c * 4);
        }
        for (uint64_t i = 0; i < k && k <= MOST; i += 4099) s += b->sa[i] ^ b->sw[i];
        s += b->off[0] + b->off[v1 - v0 - 1];
        light += k;
        v1 = v0;
    }
    *sum = s;
    return light;
}

/* A plain read of W (and of A) through the same vector loop: a tally
 * that finds every entry light, in 8 T pieces, prefetching */
static uint64_t plain_read(const bench *b, int with_a)
{
    const uint64_t e0 = b->x[b->v0], span = b->x[b->n] - e0, all = (uint64_t)UINT32_MAX + 1;
    uint64_t s = 0;
#pragma omp parallel for schedule(static) num_threads(b->threads) reduction(+ : s)
    for (uint64_t p = 0; p < b->np; p++) {
        const uint64_t q0 = e0 + span * p / b->np, q1 = e0 + span * (p + 1) / b->np;
        s += sgk_light_tally(b->w, q0, q1, all, SGK_LIGHT_U32, true);
        if (with_a) s += sgk_light_tally(b->a, q0, q1, all, SGK_LIGHT_U32, true);
    }
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: light_store STORE THREADS [FROM] [LIGHT] [store|small|huge]\n");
        return 2;
    }
    const int threads = atoi(argv[2]);
    const double from = argc > 3 ? atof(argv[3]) : 0.6, share = argc > 4 ? atof(argv[4]) : 0.064;
    const char *pages = argc > 5 ? argv[5] : "store";
    if (threads < 1 || from < 0 || from >= 1 || share <= 0 || share >= 1) {
        fprintf(stderr, "light_store: THREADS positive, FROM in [0, 1), LIGHT in (0, 1)\n");
        return 2;
    }
    sg_error err;
    sg_run *run = NULL;
    sg_graph *g = NULL;
    if (sg_run_create(NULL, &run, &err) != SG_OK ||
        sg_graph_open(run, argv[1], NULL, &g, &err) != SG_OK) {
        fprintf(stderr, "light_store: %s\n", err.msg);
        return 1;
    }
    sg_graph_info gi;
    sg_graph_get_info(g, &gi);
    bench b = {.x = sg_graph_offsets(g), .a = sg_graph_neighbors(g), .w = sg_graph_weights(g)};
    if (!b.w || gi.weight_type == SG_WEIGHT_F32) {
        fprintf(stderr, "light_store: %s: needs u32 weights\n", argv[1]);
        return 1;
    }
    b.n = gi.n_vertices;
    b.v0 = (uint64_t)(from * (double)b.n);
    b.threads = threads;
    b.np = 8 * (uint64_t)threads;
    const uint64_t e0 = b.x[b.v0], ent = b.x[b.n] - e0;
    if (strcmp(pages, "store") != 0) { /* copies of the host range's arrays */
        const int adv = strcmp(pages, "huge") == 0 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
        uint64_t *x = anon((b.n + 1) * 8, adv);
        uint32_t *a = anon(b.x[b.n] * 4, adv), *w = anon(b.x[b.n] * 4, adv);
        memcpy(x + b.v0, b.x + b.v0, (b.n + 1 - b.v0) * 8);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (uint64_t e = e0; e < b.x[b.n]; e++) {
            a[e] = b.a[e];
            w[e] = b.w[e];
        }
        b.x = x;
        b.a = a;
        b.w = w;
    }
    /* the bound: the LIGHT quantile of a strided sample of the range's weights */
    enum { SAMPLE = 65536 };
    uint32_t *smp = malloc(SAMPLE * sizeof *smp);
    b.cut = malloc((b.np + 1) * 8);
    b.tot = malloc((b.np + 1) * 8);
    b.off = malloc(MOST * 8);
    b.sa = malloc(MOST * 8);
    b.ta = malloc(MOST * 8);
    if (!smp || !b.cut || !b.tot || !b.off || !b.sa || !b.ta) {
        fprintf(stderr, "light_store: out of memory\n");
        return 1;
    }
    b.sw = b.sa + MOST;
    b.tw = b.ta + MOST;
    for (uint64_t i = 0; i < SAMPLE; i++) smp[i] = b.w[e0 + ent / SAMPLE * i];
    qsort(smp, SAMPLE, sizeof *smp, cmp_u32);
    b.bound = (uint64_t)smp[(uint64_t)(share * SAMPLE)];
    uint64_t longest = 0;
    for (uint64_t v1 = b.n; v1 > b.v0;) {
        const uint64_t v0 = chunk_below(&b, v1);
        if (b.x[v1] - b.x[v0] > longest) longest = b.x[v1] - b.x[v0];
        v1 = v0;
    }
    if (longest > MOST) { /* the one sweep's scratch holds a chunk's entries */
        free(b.ta);
        b.ta = malloc(longest * 8);
        if (!b.ta) {
            fprintf(stderr, "light_store: out of memory\n");
            return 1;
        }
        b.tw = b.ta + longest;
    }
    printf("%s: lists %llu to %llu, %.3f G entries, %d threads, pages %s, bound %llu, AVX-512F "
           "%s\n",
           argv[1], (unsigned long long)b.v0, (unsigned long long)b.n, (double)ent * 1e-9,
           threads, pages, (unsigned long long)b.bound,
           __builtin_cpu_supports("avx512f") ? "yes" : "no");
    for (int rep = 0; rep < 3; rep++) {
        double t[2][2]; /* [prefetch][one sweep] */
        uint64_t l[2][2], sum[2][2];
        for (int pf = 1; pf >= 0; pf--) {
            b.pf = pf;
            double t0 = now();
            l[pf][0] = two_sweeps(&b, &sum[pf][0]);
            t[pf][0] = now() - t0;
            t0 = now();
            l[pf][1] = one_sweep(&b, &sum[pf][1]);
            t[pf][1] = now() - t0;
        }
        double t0 = now();
        const uint64_t pw = plain_read(&b, 0);
        const double tw = now() - t0;
        t0 = now();
        const uint64_t pa = plain_read(&b, 1);
        const double ta = now() - t0;
        const bool same = l[0][0] == l[1][0] && l[0][1] == l[1][1] && l[1][0] == l[1][1] &&
                          sum[0][0] == sum[1][0] && sum[0][1] == sum[1][1] &&
                          sum[1][0] == sum[1][1] && pw == ent && pa == 2 * ent;
        printf("rep %d, G entries/s: two sweeps %.2f, one sweep %.2f; without prefetch %.2f, "
               "%.2f; light %llu (%.2f %%)%s; plain read W %.2f, A and W %.2f\n",
               rep, (double)ent / t[1][0] * 1e-9, (double)ent / t[1][1] * 1e-9,
               (double)ent / t[0][0] * 1e-9, (double)ent / t[0][1] * 1e-9,
               (unsigned long long)l[1][1], 100.0 * (double)l[1][1] / (double)ent,
               same ? "" : " MISMATCH", (double)ent / tw * 1e-9, (double)ent / ta * 1e-9);
        fflush(stdout);
        if (!same) return 1;
    }
    return 0;
}
