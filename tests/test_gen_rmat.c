/* src/gen_rmat.c + src/csr_build.c: determinism across thread counts, the
 * canonical edge set against a reference built from every drawn edge, the
 * label permutation, weights, skew, option errors, existing outputs,
 * progress, and allocation failures. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../src/internal.h" /* storage/ has an internal.h too */
#include "spillgraph.h"

static sg_rmat_options opts(unsigned scale, uint64_t seed, int threads)
{
    sg_rmat_options o;
    sg_rmat_defaults(&o);
    o.scale = scale;
    o.seed = seed;
    o.threads = threads;
    return o;
}

/* Generates into dir/name (asserting success) and returns the path. */
static char *gen(const char *dir, const char *name, const sg_rmat_options *o, sg_gen_report *rep)
{
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    sg_error err = {0};
    sg_gen_report r;
    sg_status st = sg_gen_rmat(p, o, rep ? rep : &r, &err);
    if (st) fail_msg("sg_gen_rmat %s: %s (%s)", p, err.msg, sg_status_name(st));
    return p;
}

/* The reference: every drawn edge through tu_graph_from_edges. */
static tu_graph reference(const sg_rmat_options *o, uint64_t *self_loops)
{
    const uint64_t n = 1ull << o->scale, m = (uint64_t)o->edge_factor << o->scale;
    uint32_t (*e)[3] = malloc(m * sizeof *e);
    assert_non_null(e);
    uint64_t loops = 0;
    for (uint64_t i = 0; i < m; i++) {
        sgi_rmat_edge(o, i, &e[i][0], &e[i][1], &e[i][2]);
        loops += e[i][0] == e[i][1];
    }
    tu_graph g = tu_graph_from_edges(n, m, (const uint32_t(*)[3])e, false);
    free(e);
    if (self_loops) *self_loops = loops;
    return g;
}

static void check_canonical(const tu_graph *g)
{
    for (uint64_t v = 0; v < g->n; v++)
        for (uint64_t k = g->x[v]; k < g->x[v + 1]; k++) {
            assert_true(g->a[k] < g->n);
            assert_true(g->a[k] != v);
            if (k > g->x[v]) assert_true(g->a[k - 1] < g->a[k]);
        }
}

/* ---------------------------------------------------------------- (a) */

static void same_graph_on_any_thread_count(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("rmat-det");
    tu_graph g[3];
    for (int t = 1; t <= 3; t++) {
        sg_rmat_options o = opts(11, 7, t);
        char name[16];
        snprintf(name, sizeof name, "t%d", t);
        char *p = gen(dir, name, &o, NULL);
        g[t - 1] = tu_read_store(p);
        free(p);
    }
    assert_false(g[0].directed);
    assert_true(g[0].m > 0);
    assert_true(tu_graph_equal(&g[0], &g[1]));
    assert_true(tu_graph_equal(&g[0], &g[2]));

    sg_rmat_options o = opts(11, 8, 2);
    char *p = gen(dir, "seed8", &o, NULL);
    tu_graph h = tu_read_store(p);
    free(p);
    assert_false(tu_graph_equal(&g[0], &h));

    /* the stream itself: same seed, same edges; another seed, others */
    sg_rmat_options a = opts(20, 7, 0), b = opts(20, 8, 0);
    int same = 0;
    for (uint64_t i = 0; i < 1000; i++) {
        uint32_t u1, v1, w1, u2, v2, w2, u3, v3, w3;
        sgi_rmat_edge(&a, i, &u1, &v1, &w1);
        sgi_rmat_edge(&a, i, &u2, &v2, &w2);
        sgi_rmat_edge(&b, i, &u3, &v3, &w3);
        assert_true(u1 == u2 && v1 == v2 && w1 == w2);
        same += u1 == u3 && v1 == v3;
    }
    assert_true(same < 10);

    for (int t = 0; t < 3; t++) tu_graph_free(&g[t]);
    tu_graph_free(&h);
    tu_rm_rf(dir);
    free(dir);
}

/* ---------------------------------------------------------------- (b) */

static void store_is_the_canonical_edge_set(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("rmat-ref");
    const struct {
        unsigned scale, ef;
        uint32_t maxw;
        int threads;
    } cases[] = {{8, 16, 1u << 20, 2}, {9, 8, 5, 3}, {10, 16, 100, 1}, {10, 4, 1, 2}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        sg_rmat_options o = opts(cases[c].scale, 100 + c, cases[c].threads);
        o.edge_factor = cases[c].ef;
        o.max_weight = cases[c].maxw;
        o.store.block_bytes = 4096; /* several blocks and shards */
        o.store.shard_bytes = 32768;
        char name[16];
        snprintf(name, sizeof name, "c%zu", c);
        sg_gen_report rep;
        sgi_csr_append_slice = c % 2 ? 1000 : 1u << 22; /* many appends, or one */
        char *p = gen(dir, name, &o, &rep);
        sgi_csr_append_slice = 1u << 22;
        tu_graph got = tu_read_store(p);
        uint64_t loops = 0;
        tu_graph ref = reference(&o, &loops);
        check_canonical(&got);
        assert_true(tu_graph_equal(&got, &ref));

        const uint64_t m = (uint64_t)o.edge_factor << o.scale;
        assert_int_equal(rep.n_vertices, 1ull << o.scale);
        assert_int_equal(rep.generated, m);
        assert_int_equal(rep.self_loops, loops);
        assert_int_equal(rep.n_edges, ref.m);
        assert_int_equal(ref.m % 2, 0);
        assert_int_equal(rep.duplicates, m - loops - ref.m / 2);
        assert_true(rep.self_loops > 0 && rep.duplicates > 0);
        assert_true(rep.seconds_generate >= 0 && rep.seconds_build >= 0 &&
                    rep.seconds_write >= 0);

        /* the manifest says how it was made */
        sg_store *s = NULL;
        sg_error err = {0};
        assert_int_equal(sg_store_open(p, &s, &err), SG_OK);
        sg_store_info info;
        sg_store_get_info(s, &info);
        assert_false(info.directed);
        assert_int_equal(info.weight_type, SG_WEIGHT_U32);
        char want[128];
        snprintf(want, sizeof want, "spillgraph gen rmat --scale %u --edge-factor %u --seed %zu",
                 o.scale, o.edge_factor, 100 + c);
        assert_non_null(strstr(info.creator, want));
        sg_store_close(s);

        tu_graph_free(&got);
        tu_graph_free(&ref);
        free(p);
    }
    tu_rm_rf(dir);
    free(dir);
}

/* ---------------------------------------------------------------- (c) */

static void weights_in_range_and_labels_permuted(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("rmat-w");
    sg_rmat_options o = opts(10, 3, 2);
    o.max_weight = 3;
    char *p = gen(dir, "w3", &o, NULL);
    tu_graph g = tu_read_store(p);
    uint64_t seen[4] = {0};
    for (uint64_t k = 0; k < g.m; k++) {
        assert_true(g.w[k] >= 1 && g.w[k] <= 3);
        seen[g.w[k]]++;
    }
    assert_true(seen[1] > 0 && seen[2] > 0 && seen[3] > 0);
    /* symmetric weights: (u, v, w) has (v, u, w) */
    for (uint64_t u = 0; u < g.n; u++)
        for (uint64_t k = g.x[u]; k < g.x[u + 1]; k++) {
            const uint32_t v = g.a[k];
            uint64_t lo = g.x[v], hi = g.x[v + 1];
            while (lo < hi) {
                const uint64_t mid = (lo + hi) / 2;
                if (g.a[mid] < u) lo = mid + 1; else hi = mid;
            }
            assert_true(lo < g.x[v + 1] && g.a[lo] == u);
            assert_int_equal(g.w[lo], g.w[k]);
        }
    tu_graph_free(&g);
    free(p);

    /* max_weight 1: all weights 1; 2^32-1: the full range is used */
    sg_rmat_options w1 = opts(16, 3, 0), wmax = opts(16, 3, 0);
    w1.max_weight = 1;
    wmax.max_weight = UINT32_MAX;
    uint32_t hi = 0;
    for (uint64_t i = 0; i < 10000; i++) {
        uint32_t u, v, w;
        sgi_rmat_edge(&w1, i, &u, &v, &w);
        assert_int_equal(w, 1);
        sgi_rmat_edge(&wmax, i, &u, &v, &w);
        assert_true(w >= 1);
        if (w > hi) hi = w;
    }
    assert_true(hi > UINT32_MAX / 2);

    /* the permutation is a bijection on [0, 2^scale) for every scale
     * checked, and not the identity */
    for (unsigned scale = 1; scale <= 20; scale++) {
        sg_rmat_options po = opts(scale, scale * 31 + 5, 0);
        const uint64_t n = 1ull << scale;
        uint8_t *hit = calloc(n, 1);
        uint64_t fixed = 0;
        for (uint64_t id = 0; id < n; id++) {
            const uint32_t q = sgi_rmat_permute(&po, (uint32_t)id);
            assert_true(q < n);
            assert_int_equal(hit[q], 0);
            hit[q] = 1;
            fixed += q == id;
        }
        if (scale >= 8) assert_true(fixed < n / 16);
        free(hit);
    }
    /* scale 32: ids stay 32-bit and differ */
    sg_rmat_options p32 = opts(32, 9, 0);
    assert_true(sgi_rmat_permute(&p32, 0) != sgi_rmat_permute(&p32, 1));

    /* the hub (all quadrant draws in a: pre-permutation id 0) is not vertex 0
     * for most seeds */
    int hub_is_zero = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        sg_rmat_options so = opts(12, seed, 0);
        hub_is_zero += sgi_rmat_permute(&so, 0) == 0;
    }
    assert_true(hub_is_zero <= 1);
    tu_rm_rf(dir);
    free(dir);
}

/* Every level picks quadrant a, b, c, d with the given probabilities:
 * undo the label permutation and count each level's (u bit, v bit). */
static void quadrants_follow_the_probabilities(void **state)
{
    (void)state;
    const unsigned scales[] = {1, 5, 9, 32};
    for (size_t k = 0; k < sizeof scales / sizeof *scales; k++) {
        const unsigned scale = scales[k];
        sg_rmat_options o = opts(scale, 40 + k, 0);
        o.a = 0.5;
        o.b = 0.3;
        o.c = 0.1;
        const unsigned levels = scale < 12 ? scale : 12;
        uint32_t *inv = NULL;
        if (scale <= 12) {
            inv = malloc(sizeof *inv << scale);
            for (uint64_t id = 0; id < 1ull << scale; id++)
                inv[sgi_rmat_permute(&o, (uint32_t)id)] = (uint32_t)id;
        }
        uint64_t cnt[32][4] = {{0}};
        const uint64_t draws = 200000;
        uint64_t loops = 0;
        for (uint64_t i = 0; i < draws; i++) {
            uint32_t u, v, w;
            sgi_rmat_edge(&o, i, &u, &v, &w);
            loops += u == v;
            if (!inv) continue;
            const uint32_t uu = inv[u], vv = inv[v];
            for (unsigned l = 0; l < levels; l++) cnt[l][((uu >> l) & 1) * 2 + ((vv >> l) & 1)]++;
        }
        /* u == v exactly when every level falls in a or d */
        const double p_loop = pow(o.a + (1 - o.a - o.b - o.c), scale);
        assert_true(fabs((double)loops / draws - p_loop) < 0.01);
        if (!inv) continue;
        const double want[4] = {o.a, o.b, o.c, 1 - o.a - o.b - o.c};
        for (unsigned l = 0; l < levels; l++)
            for (int q = 0; q < 4; q++) {
                const double f = (double)cnt[l][q] / draws;
                if (fabs(f - want[q]) > 0.01)
                    fail_msg("scale %u level %u quadrant %d: %.4f, want %.2f", scale, l, q, f,
                             want[q]);
            }
        free(inv);
    }
}

/* ---------------------------------------------------------------- (d) */

static void degrees_are_skewed(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("rmat-skew");
    sg_rmat_options o = opts(12, 5, 0);
    char *p = gen(dir, "s12", &o, NULL);
    tu_graph g = tu_read_store(p);
    uint64_t maxd = 0, maxv = 0, isolated = 0;
    for (uint64_t v = 0; v < g.n; v++) {
        const uint64_t d = g.x[v + 1] - g.x[v];
        if (d > maxd) {
            maxd = d;
            maxv = v;
        }
        isolated += d == 0;
    }
    const double mean = (double)g.m / (double)g.n;
    assert_true((double)maxd > 20.0 * mean);
    assert_true(isolated > g.n / 20); /* R-MAT leaves many vertices isolated */
    /* the hub is where the permutation sends pre-permutation id 0 */
    assert_int_equal(maxv, sgi_rmat_permute(&o, 0));
    tu_graph_free(&g);
    free(p);
    tu_rm_rf(dir);
    free(dir);
}

/* ---------------------------------------------------------------- (e) */

static void bad_options_are_rejected(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("rmat-bad");
    char path[512];
    snprintf(path, sizeof path, "%s/out", dir);
    sg_rmat_options o;
    for (int k = 0; k < 13; k++) {
        o = opts(6, 1, 0);
        switch (k) {
        case 0: o.scale = 0; break;
        case 1: o.scale = 33; break;
        case 2: o.edge_factor = 0; break;
        case 3: o.max_weight = 0; break;
        case 4: o.a = -0.1; break;
        case 5: o.b = 1.5; break;
        case 6: o.c = NAN; break;
        case 7: o.a = 0.6; o.b = 0.3; o.c = 0.2; break;
        case 8: o.scale = 32; o.edge_factor = 1u << 31; break;
        case 9: o.threads = -1; break;
        case 10: o.a = INFINITY; break;
        case 11: o.store.zstd_level = 99; break; /* the writer's own check */
        case 12: o.store.block_bytes = 3; break;
        }
        sg_error err = {0};
        sg_gen_report rep = {.n_vertices = 12345};
        sg_status st = sg_gen_rmat(path, &o, &rep, &err);
        if (st != SG_E_INVALID) fail_msg("case %d: got %s", k, sg_status_name(st));
        assert_true(strlen(err.msg) > 10);
        assert_int_equal(rep.n_vertices, 12345); /* untouched */
        assert_false(tu_exists(path));
    }
    o = opts(6, 1, 0);
    sg_error err = {0};
    assert_int_equal(sg_gen_rmat(NULL, &o, NULL, &err), SG_E_INVALID);
    assert_int_equal(sg_gen_rmat(path, NULL, NULL, &err), SG_E_INVALID);
    assert_int_equal(sg_gen_rmat("", &o, NULL, &err), SG_E_INVALID);
    assert_int_equal(tu_dir_entries(dir), 0); /* no temporary left behind */

    /* scale 32 with edge factor 2^31 - 1 passes validation (m < 2^63); it
     * is not generated here */
    tu_rm_rf(dir);
    free(dir);
}

static void existing_output_needs_force(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("rmat-exist");
    sg_rmat_options o1 = opts(7, 1, 0), o2 = opts(7, 2, 0);
    char *p = gen(dir, "g", &o1, NULL);
    tu_graph g1 = tu_read_store(p);

    sg_error err = {0};
    long allocs = sgi_alloc_count();
    assert_int_equal(sg_gen_rmat(p, &o2, NULL, &err), SG_E_EXISTS);
    assert_non_null(strstr(err.msg, p));
    assert_true(sgi_alloc_count() - allocs < 8); /* refused before any generation */
    tu_graph same = tu_read_store(p);
    assert_true(tu_graph_equal(&g1, &same));
    assert_int_equal(tu_dir_entries(dir), 1);

    o2.store.force = true;
    sg_gen_report rep;
    assert_int_equal(sg_gen_rmat(p, &o2, &rep, &err), SG_OK);
    tu_graph g2 = tu_read_store(p);
    assert_false(tu_graph_equal(&g1, &g2));
    tu_graph ref = reference(&o2, NULL);
    assert_true(tu_graph_equal(&g2, &ref));
    assert_int_equal(tu_dir_entries(dir), 1);

    /* a directory that is not a store is never replaced, even with force */
    char other[512];
    snprintf(other, sizeof other, "%s/notastore", dir);
    assert_int_equal(mkdir(other, 0755), 0);
    char keep[600];
    snprintf(keep, sizeof keep, "%s/keep.txt", other);
    FILE *f = fopen(keep, "w");
    fputs("keep", f);
    fclose(f);
    assert_int_equal(sg_gen_rmat(other, &o2, NULL, &err), SG_E_EXISTS);
    assert_true(tu_exists(keep));

    tu_graph_free(&g1);
    tu_graph_free(&same);
    tu_graph_free(&g2);
    tu_graph_free(&ref);
    free(p);
    tu_rm_rf(dir);
    free(dir);
}

/* ---------------------------------------------------------------- progress */

typedef struct {
    int calls;
    int phase;       /* 0 generate, 1 sort, 2 write */
    int order_errors;
    double last;
} prog_log;

static void on_progress(void *ctx, const char *phase, double f)
{
    prog_log *l = ctx;
    static const char *const names[] = {"generate", "sort", "write"};
    int ph = -1;
    for (int k = 0; k < 3; k++)
        if (!strcmp(phase, names[k])) ph = k;
    if (ph < 0 || ph < l->phase || !(f >= 0.0 && f <= 1.0)) l->order_errors++;
    if (ph == l->phase && f < l->last) l->order_errors++;
    if (ph != l->phase) l->last = 0;
    if (ph >= 0) l->phase = ph;
    l->last = f;
    l->calls++;
}

static void progress_is_reported_in_order(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("rmat-prog");
    prog_log l = {0};
    sg_rmat_options o = opts(15, 3, 3);
    o.progress = on_progress;
    o.progress_ctx = &l;
    o.store.shard_bytes = 1 << 20;
    char *p = gen(dir, "p", &o, NULL);
    assert_int_equal(l.order_errors, 0);
    assert_int_equal(l.phase, 2);          /* ended in "write" */
    assert_true(l.calls >= 6 && l.calls < 1000);
    free(p);
    tu_rm_rf(dir);
    free(dir);
}

/* ---------------------------------------------------------------- builder */

typedef struct {
    uint64_t n, seed;
    uint32_t maxw;
    uint64_t bad_at; /* edge index given an out-of-range id, or UINT64_MAX */
} rnd_ctx;

static void rnd_edge(void *c, uint64_t i, uint32_t *u, uint32_t *v, uint32_t *w)
{
    const rnd_ctx *r = c;
    uint64_t s = r->seed ^ (i * 0x9E3779B97F4A7C15ull);
    *u = (uint32_t)(tu_rand(&s) % r->n);
    *v = (uint32_t)(tu_rand(&s) % r->n);
    *w = 1 + (uint32_t)(tu_rand(&s) % r->maxw);
    if (i == r->bad_at) *v = (uint32_t)r->n;
}

/* Directed and undirected builds against tu_graph_from_edges, with lists
 * long enough for every sort path and enough duplicates for the compaction
 * to move data across many rounds. */
static void builder_matches_reference(void **state)
{
    (void)state;
    const struct {
        uint64_t n, m;
        uint32_t maxw;
        bool directed;
        int threads;
    } cases[] = {
        {1, 100, 5, false, 2},          /* only self-loops */
        {2, 0, 5, true, 2},             /* no edges */
        {40, 200000, 1000, true, 3},    /* long lists, heavy duplication: radix */
        {300, 30000, 7, false, 2},      /* quicksort-sized lists */
        {4096, 1u << 20, 50, true, 3},  /* many compaction rounds */
        {1u << 16, 300000, 1u << 30, false, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        rnd_ctx r = {.n = cases[c].n, .seed = 77 + c, .maxw = cases[c].maxw, .bad_at = UINT64_MAX};
        const uint64_t m = cases[c].m;
        uint32_t (*e)[3] = malloc((m + 1) * sizeof *e);
        uint64_t loops = 0;
        for (uint64_t i = 0; i < m; i++) {
            rnd_edge(&r, i, &e[i][0], &e[i][1], &e[i][2]);
            loops += e[i][0] == e[i][1];
        }
        tu_graph ref = tu_graph_from_edges(r.n, m, (const uint32_t(*)[3])e, cases[c].directed);
        free(e);

        const long live = sgi_alloc_live();
        sgi_csr g;
        sgi_build_report rep;
        sg_error err = {0};
        sg_status st = sgi_csr_build(r.n, m, rnd_edge, &r, cases[c].directed, cases[c].threads,
                                     NULL, NULL, &g, &rep, &err);
        if (st) fail_msg("case %zu: %s", c, err.msg);
        tu_graph got = {.n = g.n, .m = g.m, .directed = g.directed, .x = g.x,
                        .a = malloc((g.m + 1) * 4), .w = malloc((g.m + 1) * 4)};
        uint64_t maxd = 0;
        for (uint64_t k = 0; k < g.m; k++) {
            got.a[k] = SGI_AW_NBR(g.aw[k]);
            got.w[k] = SGI_AW_W(g.aw[k]);
        }
        for (uint64_t v = 0; v < g.n; v++)
            if (g.x[v + 1] - g.x[v] > maxd) maxd = g.x[v + 1] - g.x[v];
        assert_int_equal(g.max_degree, maxd);
        if (!tu_graph_equal(&got, &ref)) fail_msg("case %zu differs from the reference", c);
        free(got.a);
        free(got.w);
        assert_int_equal(rep.generated, m);
        assert_int_equal(rep.self_loops, loops);
        assert_int_equal(rep.n_edges, ref.m);
        const uint64_t kept = cases[c].directed ? ref.m : ref.m / 2;
        assert_int_equal(rep.duplicates, m - loops - kept);
        assert_int_equal(rep.slots, (m - loops) * (cases[c].directed ? 1 : 2));
        sgi_csr_free(&g);
        sgi_csr_free(&g); /* zeroed: a second free is harmless */
        assert_int_equal(sgi_alloc_live(), live);
        tu_graph_free(&ref);
    }

    /* an edge function that leaves [0, n) is reported, naming the edge */
    rnd_ctx r = {.n = 1000, .seed = 1, .maxw = 9, .bad_at = 4321};
    sgi_csr g = {0};
    sg_error err = {0};
    const long live = sgi_alloc_live();
    assert_int_equal(sgi_csr_build(r.n, 10000, rnd_edge, &r, false, 2, NULL, NULL, &g, NULL, &err),
                     SG_E_INVALID);
    assert_non_null(strstr(err.msg, "4321"));
    assert_null(g.x);
    assert_int_equal(sgi_alloc_live(), live);
    assert_int_equal(sgi_csr_build(0, 10, rnd_edge, &r, false, 2, NULL, NULL, &g, NULL, &err),
                     SG_E_INVALID);
    assert_int_equal(sgi_csr_build((1ull << 32) + 1, 10, rnd_edge, &r, false, 2, NULL, NULL, &g,
                                   NULL, &err),
                     SG_E_INVALID);
}

/* ---------------------------------------------------------------- (f) */

static void allocation_failures_leave_nothing(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("rmat-nomem");
    char path[512];
    snprintf(path, sizeof path, "%s/out", dir);
    sg_rmat_options o = opts(6, 4, 2);
    const long live = sgi_alloc_live();
    long n = 0;
    for (;; n++) {
        sg_error err = {0};
        sgi_alloc_fail_after(n);
        sg_status st = sg_gen_rmat(path, &o, NULL, &err);
        sgi_alloc_fail_after(-1);
        if (st == SG_OK) break;
        if (st != SG_E_NOMEM) fail_msg("failing allocation %ld: %s (%s)", n, err.msg,
                                       sg_status_name(st));
        assert_true(strlen(err.msg) > 0);
        assert_int_equal(sgi_alloc_live(), live);
        assert_false(tu_exists(path));
        assert_int_equal(tu_dir_entries(dir), 0);
        assert_true(n < 100000);
    }
    assert_true(n > 5);
    assert_int_equal(sgi_alloc_live(), live);
    tu_graph g = tu_read_store(path);
    tu_graph ref = reference(&o, NULL);
    assert_true(tu_graph_equal(&g, &ref));
    tu_graph_free(&g);
    tu_graph_free(&ref);
    tu_rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_graph_on_any_thread_count),
        cmocka_unit_test(store_is_the_canonical_edge_set),
        cmocka_unit_test(weights_in_range_and_labels_permuted),
        cmocka_unit_test(quadrants_follow_the_probabilities),
        cmocka_unit_test(degrees_are_skewed),
        cmocka_unit_test(bad_options_are_rejected),
        cmocka_unit_test(existing_output_needs_force),
        cmocka_unit_test(progress_is_reported_in_order),
        cmocka_unit_test(builder_matches_reference),
        cmocka_unit_test(allocation_failures_leave_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
