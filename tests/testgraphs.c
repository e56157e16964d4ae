/* Graph families for the algorithm tests. */
#include "testgraphs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

const char *tg_name(tg_kind k)
{
    static const char *const names[TG_NKINDS] = {"random",    "ties-equal", "ties-12", "dup-loops",
                                                 "isolated",  "components", "path",    "star",
                                                 "grid",      "rmat",       "ssca2",
                                                 "hub-last"};
    return (unsigned)k < TG_NKINDS ? names[k] : "?";
}

sg_graph *tg_from_edges(uint64_t n, uint64_t ne, const uint32_t *u, const uint32_t *v,
                        const uint32_t *wbits, bool directed, bool f32)
{
    uint64_t *x = calloc(n + 1, sizeof *x);
    assert_non_null(x);
    for (uint64_t i = 0; i < ne; i++) {
        x[u[i] + 1]++;
        if (!directed && u[i] != v[i]) x[v[i] + 1]++;
    }
    for (uint64_t i = 0; i < n; i++) x[i + 1] += x[i];
    uint64_t m = x[n];
    uint32_t *a = malloc((m ? m : 1) * sizeof *a), *w = malloc((m ? m : 1) * sizeof *w);
    uint64_t *cur = malloc((n + 1) * sizeof *cur);
    assert_true(a && w && cur);
    memcpy(cur, x, (n + 1) * sizeof *cur);
    for (uint64_t i = 0; i < ne; i++) {
        a[cur[u[i]]] = v[i];
        w[cur[u[i]]++] = wbits[i];
        if (!directed && u[i] != v[i]) {
            a[cur[v[i]]] = u[i];
            w[cur[v[i]]++] = wbits[i];
        }
    }
    sg_graph *g = NULL;
    sg_error err = {0};
    sg_status st = sg_graph_from_arrays(n, x, a, w, f32 ? SG_WEIGHT_F32 : SG_WEIGHT_U32, directed,
                                        &g, &err);
    if (st != SG_OK) fail_msg("tg_from_edges: %s", err.msg);
    free(x);
    free(a);
    free(w);
    free(cur);
    return g;
}

/* Weight bits of a value drawn in [lo, hi]: f32 graphs get value + k/4 for a
 * random k in 0..3 unless the family needs exact ties. */
static uint32_t wbits_of(uint64_t *rs, uint32_t lo, uint32_t hi, bool f32, bool fraction)
{
    uint32_t val = lo + (uint32_t)(tu_rand(rs) % (uint64_t)(hi - lo + 1));
    if (!f32) return val;
    float f = (float)val + (fraction ? (float)(tu_rand(rs) % 4) * 0.25f : 0.0f);
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* A hash of an unordered vertex pair and a seed (both directions of an
 * edge get the same value). */
static uint64_t pair_hash(uint32_t a, uint32_t b, uint64_t seed)
{
    uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
    uint64_t s = seed ^ (lo << 32 | hi);
    return tu_rand(&s);
}

/* TG_RMAT and TG_SSCA2: through the generator and a store, like real input
 * (loaded on a cpu run: loading is not what the algorithm tests test). Then
 * the directed and f32 variants as described in testgraphs.h. */
static sg_graph *store_family(tg_kind k, uint64_t n, uint64_t seed, bool directed, bool f32)
{
    unsigned scale = 1;
    while (((uint64_t)1 << scale) < n) scale++;
    char *dir = tu_tmpdir(k == TG_RMAT ? "tg-rmat" : "tg-ssca2");
    char path[512];
    snprintf(path, sizeof path, "%s/g", dir);
    sg_error err = {0};
    if (k == TG_RMAT) {
        sg_rmat_options o;
        sg_rmat_defaults(&o);
        o.scale = scale;
        o.seed = seed;
        o.max_weight = 64; /* plenty of ties */
        if (sg_gen_rmat(path, &o, NULL, &err) != SG_OK) fail_msg("tg_make rmat: %s", err.msg);
    } else {
        sg_ssca2_options o;
        sg_ssca2_defaults(&o);
        o.scale = scale;
        o.seed = seed;
        o.max_clique_size = 12; /* many cliques even at small n; size-1 ones may stay alone */
        o.max_weight = 64;
        if (sg_gen_ssca2(path, &o, NULL, &err) != SG_OK) fail_msg("tg_make ssca2: %s", err.msg);
    }
    const sg_run_options ro = {.backend = SG_BACKEND_CPU};
    sg_run *run = NULL;
    if (sg_run_create(&ro, &run, &err) != SG_OK) fail_msg("tg_make run: %s", err.msg);
    sg_graph *g = NULL;
    if (sg_graph_open(run, path, NULL, &g, &err) != SG_OK) fail_msg("tg_make open: %s", err.msg);
    sg_run_free(run);
    tu_rm_rf(dir);
    free(dir);
    if (!directed && !f32) return g;

    /* Each undirected edge once (the store holds both directions, no
     * self-loops, no repeats), then rebuilt. */
    sg_graph_info info;
    sg_graph_get_info(g, &info);
    const uint64_t *x = sg_graph_offsets(g);
    const uint32_t *a = sg_graph_neighbors(g);
    const uint32_t *w = sg_graph_weights(g);
    assert_non_null(w);
    const uint64_t cap = info.n_edges + 1;
    uint32_t *u = malloc(cap * sizeof *u), *v = malloc(cap * sizeof *v), *wb = malloc(cap * sizeof *wb);
    assert_true(u && v && wb);
    uint64_t ne = 0;
    for (uint64_t s = 0; s < info.n_vertices; s++)
        for (uint64_t e = x[s]; e < x[s + 1]; e++) {
            const uint32_t t = a[e];
            const uint64_t h = pair_hash((uint32_t)s, t, seed);
            uint32_t bits = w[e];
            if (f32) {
                float fw = (float)w[e] + (float)(h % 4) * 0.25f;
                memcpy(&bits, &fw, sizeof bits);
            }
            bool keep;
            if (!directed)
                keep = s < t;
            else /* both directions (h % 3 == 0), only low -> high (1), only high -> low (2) */
                keep = h % 3 == 0 || (h % 3 == 1) == (s < t);
            if (!keep) continue;
            assert_true(ne < cap);
            u[ne] = (uint32_t)s;
            v[ne] = t;
            wb[ne++] = bits;
        }
    sg_graph *out = tg_from_edges(info.n_vertices, ne, u, v, wb, directed, f32);
    free(u);
    free(v);
    free(wb);
    sg_graph_free(g);
    return out;
}

sg_graph *tg_make(tg_kind k, uint64_t n, uint64_t seed, bool directed, bool f32)
{
    assert_true(n >= 2);
    uint64_t rs = seed * 0x9E3779B97F4A7C15ull + (uint64_t)k;
    if (k == TG_RMAT || k == TG_SSCA2) return store_family(k, n, seed, directed, f32);
    uint64_t cap = 8 * n + 64;
    uint32_t *u = malloc(cap * sizeof *u), *v = malloc(cap * sizeof *v), *w = malloc(cap * sizeof *w);
    assert_true(u && v && w);
    uint64_t ne = 0;
#define ADD(a_, b_, w_)                                                                            \
    do {                                                                                           \
        assert_true(ne < cap);                                                                     \
        u[ne] = (uint32_t)(a_);                                                                    \
        v[ne] = (uint32_t)(b_);                                                                    \
        w[ne] = (w_);                                                                              \
        ne++;                                                                                      \
    } while (0)
    switch (k) {
    case TG_RANDOM:
    case TG_TIES_EQUAL:
    case TG_TIES_12:
    case TG_ISOLATED: {
        uint64_t span = k == TG_ISOLATED ? n / 3 + 1 : n;
        for (uint64_t i = 0; i < 3 * n; i++) {
            uint32_t a_ = (uint32_t)(tu_rand(&rs) % span), b_ = (uint32_t)(tu_rand(&rs) % span);
            uint32_t wb = k == TG_TIES_EQUAL ? wbits_of(&rs, 7, 7, f32, false)
                          : k == TG_TIES_12  ? wbits_of(&rs, 1, 2, f32, false)
                                             : wbits_of(&rs, 1, 1000, f32, true);
            ADD(a_, b_, wb);
        }
        break;
    }
    case TG_DUP_LOOPS:
        for (uint64_t i = 0; i < 2 * n; i++) {
            uint32_t a_ = (uint32_t)(tu_rand(&rs) % n), b_ = (uint32_t)(tu_rand(&rs) % n);
            ADD(a_, b_, wbits_of(&rs, 1, 20, f32, false));
            ADD(a_, b_, wbits_of(&rs, 1, 20, f32, false)); /* a repeat, maybe lighter */
            ADD(a_, a_, wbits_of(&rs, 1, 20, f32, false)); /* a self-loop */
        }
        break;
    case TG_COMPONENTS:
        /* Blocks of 5 vertices, each a random little graph; some blocks empty. */
        for (uint64_t base = 0; base + 5 <= n; base += 5) {
            if (tu_rand(&rs) % 4 == 0) continue;
            for (int i = 0; i < 6; i++)
                ADD(base + tu_rand(&rs) % 5, base + tu_rand(&rs) % 5, wbits_of(&rs, 1, 9, f32, true));
        }
        break;
    case TG_PATH:
        for (uint64_t i = 0; i + 1 < n; i++) ADD(i, i + 1, wbits_of(&rs, 1, 5, f32, false));
        break;
    case TG_STAR:
        for (uint64_t i = 1; i < n; i++) ADD(0, i, wbits_of(&rs, 1, 3, f32, false));
        break;
    case TG_HUB_LAST:
        for (uint64_t i = 0; i + 1 < n; i++) ADD(n - 1, i, wbits_of(&rs, 1, 3, f32, false));
        for (uint64_t i = 0; i < n / 2; i++)
            ADD(tu_rand(&rs) % (n - 1), tu_rand(&rs) % (n - 1), wbits_of(&rs, 1, 3, f32, false));
        break;
    case TG_GRID: {
        uint64_t cols = 1;
        while (cols * cols < n) cols++;
        uint64_t rows = n / cols;
        for (uint64_t r = 0; r < rows; r++)
            for (uint64_t c = 0; c < cols; c++) {
                uint64_t id = r * cols + c;
                if (c + 1 < cols) ADD(id, id + 1, wbits_of(&rs, 1, 100, f32, false));
                if (r + 1 < rows) ADD(id, id + cols, wbits_of(&rs, 1, 100, f32, false));
            }
        break;
    }
    default: fail_msg("tg_make: unknown kind %d", (int)k);
    }
#undef ADD
    sg_graph *g = tg_from_edges(n, ne, u, v, w, directed, f32);
    free(u);
    free(v);
    free(w);
    return g;
}

uint32_t tg_f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

sg_graph *tg_zero_cycles(bool directed, bool f32)
{
    const uint32_t u[] = {0, 1, 2, 2, 3, 0, 3};
    const uint32_t v[] = {1, 2, 1, 3, 2, 3, 4};
    const uint32_t wv[] = {5, 0, 0, 0, 0, 9, 2};
    uint32_t wb[7];
    for (int i = 0; i < 7; i++) wb[i] = f32 ? tg_f32_bits((float)wv[i]) : wv[i];
    return tg_from_edges(6, 7, u, v, wb, directed, f32);
}

sg_graph *tg_f32_rounding(bool directed)
{
    const uint32_t u[] = {0, 1, 2, 2};
    const uint32_t v[] = {1, 2, 3, 1};
    const uint32_t w[] = {tg_f32_bits(1e17f), tg_f32_bits(1.0f), tg_f32_bits(2.0f),
                          tg_f32_bits(1.0f)};
    return tg_from_edges(4, 4, u, v, w, directed, true);
}
