// The forest CPU share's top-K (kernels/cpu_topk.c, sgk_topk_lists) over a
// store's lists on T OpenMP threads, alone (no GPU beside it): the lists
// from a fraction of n up to n in 8 T pieces of about equal entries, as the
// hybrid forest's first round cuts them, with and without the software
// prefetch, and with it but every list alone (sgk_topk_simd_single: no
// pairs), interleaved; and a plain sum of A and W over the same entries
// (the threads' streaming rate); and each thread's top-K over a window of
// its first piece's lists that stays in its cache (CACHED_ENTRIES
// entries, CACHED_PASSES times: the compute alone, every thread at once,
// at the clock the cores keep under that load); and the top-K taken as the
// engine's first round takes it, in chunks of at most CHUNK_ENTRIES from n
// down, each chunk its own parallel loop over 8 T pieces (a fork and a
// join per chunk, no staging); and, where the store's ids and weights fit
// 48 bits, the same pieces over 48-bit entries (sgk_topk48_lists, packed
// from A and W once, 6 bytes an entry; its slots checked against the
// prefetching run's); and where the weights fit 24 bits, the same pieces
// over W16 and W8 (sgk_topk24_lists: the hybrid forest's narrow weights,
// split from W once; its slots checked too); and the same pieces through
// the engine's fill, in 8-byte slots streamed (sgk_topk_fill, non-temporal
// stores) and in 6 bytes (sgk_topk_fill48, as the engine's unpacked chunks
// send them; checked unpacked), plain and streamed. Prints G entries per
// second.
// Build (from the top, after meson compile -C build), one line:
//   cc -O2 -fopenmp -Isrc -Icommon -Ikernels -Istorage -o topk_store
//      tools/bench/topk_store.c kernels/cpu_topk.c -Lbuild -lspillgraph -Wl,-rpath,$PWD/build
// (-DSGK_TOPK_AHEAD=ENTRIES -DSGK_TOPK_LOCALITY=0..3 change the prefetch).
// Usage: topk_store STORE THREADS [FROM (0..1, default 0.5)]
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_topk.h"
#include "spillgraph.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A window of this many entries (256 KiB of A and W) stays in a core's L2. */
#define CACHED_ENTRIES 32768
#define CACHED_PASSES 256

/* Each thread's top-K over the lists of its first piece that fit
 * CACHED_ENTRIES, CACHED_PASSES times; returns the entries taken. */
static uint64_t cached_run(const uint64_t *x, const uint32_t *a, const uint32_t *w,
                           const uint64_t *cut, int threads, uint64_t *out)
{
    uint64_t total = 0;
#pragma omp parallel for schedule(static, 1) num_threads(threads) reduction(+ : total)
    for (int t = 0; t < threads; t++) {
        const uint64_t v0 = cut[8 * t], lim = cut[8 * t + 8];
        uint64_t v1 = v0;
        while (v1 < lim && x[v1 + 1] - x[v0] <= CACHED_ENTRIES) v1++;
        sgk_topk_tally tl = {0, 0, 0, 0};
        for (int r = 0; r < CACHED_PASSES; r++)
            sgk_topk_lists(x, a, w, v0, v1, sgk_topk_simd, false, 4, true, false,
                           out + (v0 - cut[0]) * 4, &tl);
        total += tl.entries;
    }
    return total;
}

/* The engine's chunk (kernels/mst.cu: a streamed piece's entries, at
 * most STREAM_MAX) */
#define CHUNK_ENTRIES ((uint64_t)16 << 20)

/* The first list v in [lo, hi) with x[v] + per_vertex * v at or past e (hi
 * if none), as sgk_meet::first_at (kernels/cpu_share.cuh) finds it. */
static uint64_t first_at(const uint64_t *x, uint64_t lo, uint64_t hi, uint64_t e,
                         uint64_t per_vertex)
{
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (x[mid] + per_vertex * mid < e) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The top-K over lists [v0, n) in chunks from n down, as the engine's CPU
 * side claims them: at most CHUNK_ENTRIES entries a chunk, each cut into
 * 8 T pieces of about equal entries plus vertices and run as its own
 * parallel loop. Returns the chunks. */
static uint64_t chunked_run(const uint64_t *x, const uint32_t *a, const uint32_t *w, uint64_t v0,
                            uint64_t n, int threads, uint64_t *out)
{
    const uint64_t np = 8 * (uint64_t)threads;
    uint64_t cut[8 * 256 + 1], chunks = 0;
    for (uint64_t hi = n; hi > v0; chunks++) {
        /* the chunk: from the first list past its entries (sgk_meet::cpu) */
        const uint64_t lo =
            x[hi] - x[v0] > CHUNK_ENTRIES ? first_at(x, v0, hi - 1, x[hi] - CHUNK_ENTRIES, 0) : v0;
        const uint64_t e0 = x[lo] + lo, span = x[hi] + hi - e0;
        cut[0] = lo;
        for (uint64_t pc = 1; pc < np; pc++)
            cut[pc] = first_at(x, cut[pc - 1], hi, e0 + span * pc / np, 1);
        cut[np] = hi;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (uint64_t pc = 0; pc < np; pc++) {
            sgk_topk_tally t = {0, 0, 0, 0};
            sgk_topk_lists(x, a, w, cut[pc], cut[pc + 1], sgk_topk_simd, false, 4, true, true,
                           out + (cut[pc] - v0) * 4, &t);
        }
        hi = lo;
    }
    return chunks;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: topk_store STORE THREADS [FROM]\n");
        return 2;
    }
    const int threads = atoi(argv[2]);
    const double from = argc > 3 ? atof(argv[3]) : 0.5;
    if (threads < 1 || threads > 256 || from < 0 || from >= 1) {
        fprintf(stderr, "topk_store: THREADS must be 1 to 256 and FROM in [0, 1)\n");
        return 2;
    }
    sg_error err;
    sg_run *run = NULL;
    sg_graph *g = NULL;
    if (sg_run_create(NULL, &run, &err) != SG_OK || sg_graph_open(run, argv[1], NULL, &g, &err) != SG_OK) {
        fprintf(stderr, "topk_store: %s\n", err.msg);
        return 1;
    }
    sg_graph_info gi;
    sg_graph_get_info(g, &gi);
    const uint64_t *x = sg_graph_offsets(g);
    const uint32_t *a = sg_graph_neighbors(g), *w = sg_graph_weights(g);
    if (!w || gi.weight_type == SG_WEIGHT_F32) {
        fprintf(stderr, "topk_store: %s: needs u32 weights\n", argv[1]);
        return 1;
    }
    const uint64_t n = gi.n_vertices, v0 = (uint64_t)(from * (double)n), np = 8 * (uint64_t)threads;
    uint64_t *cut = malloc((np + 1) * sizeof *cut), *out = malloc((n - v0) * 4 * sizeof *out);
    uint64_t *ref = malloc((n - v0) * 4 * sizeof *ref);
    if (!cut || !out || !ref) {
        fprintf(stderr, "topk_store: out of memory\n");
        return 1;
    }
    /* pieces of about equal entries: the first list at or past each share */
    const uint64_t e0 = x[v0], ent = x[n] - e0;
    for (uint64_t p = 0; p <= np; p++)
        cut[p] = p == np ? n : first_at(x, v0, n, e0 + ent * p / np, 0);
    printf("%s: lists %llu to %llu, %.3f G entries, %d threads, AVX-512F %s\n", argv[1],
           (unsigned long long)v0, (unsigned long long)n, (double)ent * 1e-9, threads,
           sgk_topk_simd_available() ? "yes" : "no");
    /* the entries from e0 as 48-bit entries, where they fit (the array
     * indexed as A is, only [e0, x[n]) written) */
    uint32_t maxw = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(max : maxw)
    for (uint64_t e = e0; e < x[n]; e++) maxw = w[e] > maxw ? w[e] : maxw;
    const int idbits = sgk_e48_bits(n, maxw);
    uint8_t *e48 = idbits > 0 ? malloc(6 * x[n]) : NULL;
    if (idbits > 0 && !e48) {
        fprintf(stderr, "topk_store: out of memory for the 48-bit entries\n");
        return 1;
    }
    /* the weights from e0 as W16 and W8, where they fit 24 bits */
    uint16_t *w16 = maxw < (1u << 24) ? malloc(2 * x[n]) : NULL;
    uint8_t *w8 = w16 ? malloc(x[n]) : NULL;
    if (w16 && !w8) {
        fprintf(stderr, "topk_store: out of memory for the 24-bit weights\n");
        return 1;
    }
    if (w16) {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (uint64_t e = e0; e < x[n]; e++) {
            w16[e] = (uint16_t)w[e];
            w8[e] = (uint8_t)(w[e] >> 16);
        }
    }
    if (e48) {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (uint64_t p = 0; p < np; p++)
            sgk_e48_pack(a + x[cut[p]], w + x[cut[p]], x[cut[p + 1]] - x[cut[p]], idbits,
                         e48 + 6 * x[cut[p]]);
        printf("48-bit entries: %d id bits, weights up to %u\n", idbits, maxw);
    } else {
        printf("48-bit entries: the ids and weights (up to %u) do not fit\n", maxw);
    }
    /* the slots in 6 bytes, where the weights fit beside the ids */
    const int slot_bits = sgk_e48_bits(n, maxw < UINT32_MAX ? maxw + 1 : maxw);
    uint8_t *o48 = slot_bits > 0 ? malloc(6 * (n - v0) * 4) : NULL;
    if (slot_bits > 0 && !o48) {
        fprintf(stderr, "topk_store: out of memory for the 6-byte slots\n");
        return 1;
    }
    if (o48) memset(o48, 0xff, 6 * (n - v0) * 4); /* its pages faulted in before the first row */
    for (int rep = 0; rep < 3; rep++) {
        for (int pf = 0; pf < 3; pf++) { /* 2: prefetch, lists one at a time */
            const double t0 = now();
            uint64_t leaving = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(+ : leaving)
            for (uint64_t p = 0; p < np; p++) {
                sgk_topk_tally t = {0, 0, 0, 0};
                sgk_topk_lists(x, a, w, cut[p], cut[p + 1],
                               pf == 2 ? sgk_topk_simd_single : sgk_topk_simd, false, 4, true,
                               pf > 0, out + (cut[p] - v0) * 4, &t);
                leaving += t.leaving;
            }
            const double t1 = now();
            printf("top-K, prefetch %d%s: %.3f s, %.2f G entries/s (leaving %llu)\n", pf > 0,
                   pf == 2 ? ", no pairs" : "", t1 - t0, (double)ent / (t1 - t0) * 1e-9,
                   (unsigned long long)leaving);
            if (pf == 1) memcpy(ref, out, (n - v0) * 4 * sizeof *out);
        }
        /* the same pieces over the narrower forms: 48-bit entries (kind
         * 0), 24-bit weights (1); their slots checked against A and W's */
        for (int kind = 0; kind < 2; kind++) {
            if (kind == 0 ? !e48 : !w16) continue;
            const double t0 = now();
            uint64_t leaving = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(+ : leaving)
            for (uint64_t p = 0; p < np; p++) {
                sgk_topk_tally t = {0, 0, 0, 0};
                uint64_t *o = out + (cut[p] - v0) * 4;
                if (kind == 0)
                    sgk_topk48_lists(x, e48, idbits, cut[p], cut[p + 1], sgk_topk48_simd, 4, true,
                                     true, o, &t);
                else
                    sgk_topk24_lists(x, a, w16, w8, cut[p], cut[p + 1], sgk_topk_simd, 4, true,
                                     true, o, &t);
                leaving += t.leaving;
            }
            const double t1 = now();
            const bool same = memcmp(ref, out, (n - v0) * 4 * sizeof *out) == 0;
            printf("top-K over %s, prefetch 1: %.3f s, %.2f G entries/s (leaving %llu)%s\n",
                   kind == 0 ? "48-bit entries" : "24-bit weights", t1 - t0,
                   (double)ent / (t1 - t0) * 1e-9, (unsigned long long)leaving,
                   same ? "" : " SLOTS DIFFER");
            if (!same) return 1;
        }
        /* the same pieces through the engine's fill: in 8-byte slots
         * streamed (sgk_topk_fill in runs, whole lines by non-temporal
         * stores), then in 6 bytes (sgk_topk_fill48, as the engine's
         * unpacked chunks take them; checked unpacked) plain and streamed */
        for (int way = 0; way < 3; way++) {
            const bool w6 = way > 0, stream = way != 1;
            if (w6 && slot_bits <= 0) break;
            const sgk_topk_src src = {.x = x, .a = a, .w = w, .topk = sgk_topk_simd, .K = 4,
                                      .filter = true, .prefetch = true, .stream = stream};
            if (!w6) memset(out, 0xcd, (n - v0) * 4 * sizeof *out);
            const double t0 = now();
            uint64_t leaving = 0, bad = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(+ : leaving, bad)
            for (uint64_t p = 0; p < np; p++) {
                sgk_topk_tally t = {0, 0, 0, 0};
                bool fits = false;
                if (w6)
                    sgk_topk_fill48(&src, slot_bits, cut[p], cut[p + 1],
                                    o48 + 6 * (cut[p] - v0) * 4, NULL, &t, &fits);
                else
                    sgk_topk_fill(&src, cut[p], cut[p + 1], out + (cut[p] - v0) * 4, NULL, &t);
                leaving += t.leaving;
                bad += w6 && !fits;
            }
            const double t1 = now();
            bool same = bad == 0;
            for (uint64_t i = 0; same && i < (n - v0) * 4; i++)
                same = (w6 ? sgk_slot48_key(sgk_e48_get(o48, i), slot_bits) : out[i]) == ref[i];
            printf("top-K into %d-byte slots%s, prefetch 1: %.3f s, %.2f G entries/s (leaving "
                   "%llu)%s\n",
                   w6 ? 6 : 8, stream ? " (streamed)" : "", t1 - t0,
                   (double)ent / (t1 - t0) * 1e-9, (unsigned long long)leaving,
                   same ? "" : " SLOTS DIFFER");
            if (!same) return 1;
        }
        {
            const double t0 = now();
            const uint64_t got = cached_run(x, a, w, cut, threads, out);
            const double t1 = now();
            printf("top-K in cache (%d windows of <= %d entries, %d passes): %.3f s, %.2f G "
                   "entries/s\n", threads, CACHED_ENTRIES, CACHED_PASSES, t1 - t0,
                   (double)got / (t1 - t0) * 1e-9);
        }
        {
            const double t0 = now();
            const uint64_t chunks = chunked_run(x, a, w, v0, n, threads, out);
            const double t1 = now();
            printf("top-K in %llu chunks of <= %llu entries: %.3f s, %.2f G entries/s\n",
                   (unsigned long long)chunks, (unsigned long long)CHUNK_ENTRIES, t1 - t0,
                   (double)ent / (t1 - t0) * 1e-9);
        }
        const double t0 = now();
        uint64_t sum = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : sum)
        for (uint64_t e = e0; e < x[n]; e++) sum += a[e] ^ w[e];
        const double t1 = now();
        printf("sum of A and W: %.3f s, %.2f G entries/s (%llu)\n", t1 - t0,
               (double)ent / (t1 - t0) * 1e-9, (unsigned long long)(sum & 0xff));
    }
    free(cut);
    free(out);
    free(ref);
    free(e48);
    free(o48);
    free(w16);
    free(w8);
    sg_graph_free(g);
    sg_run_free(run);
    return 0;
}
