/* src/mst.c and src/kruskal.c: Borůvka's forest against Kruskal's on every
 * test graph family, against hand-computed forests, and against an
 * independent check of the cycle property; failures and allocation faults. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/internal.h"
#include "testgraphs.h"

static uint32_t fbits(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static sg_run *make_run(int threads)
{
    sg_run_options o = {.backend = SG_BACKEND_CPU, .threads = threads};
    sg_run *r = NULL;
    sg_error err = {0};
    assert_int_equal(sg_run_create(&o, &r, &err), SG_OK);
    return r;
}

static sg_forest *mst_ok(const sg_graph *g, int threads)
{
    sg_run *r = make_run(threads);
    sg_forest *f = NULL;
    sg_error err = {0};
    sg_status st = sg_mst(r, g, &f, &err);
    if (st != SG_OK) fail_msg("sg_mst: %s", err.msg);
    tu_expect_rounds(r, f->n_vertices, "the CPU forest");
    sg_run_free(r);
    return f;
}

static void assert_forest_equal(const sg_forest *a, const sg_forest *b)
{
    assert_int_equal(a->n_vertices, b->n_vertices);
    assert_int_equal(a->n_trees, b->n_trees);
    assert_int_equal(a->n_edges, b->n_edges);
    assert_int_equal(a->weight_type, b->weight_type);
    for (uint64_t i = 0; i < a->n_edges; i++) {
        assert_int_equal(a->u[i], b->u[i]);
        assert_int_equal(a->v[i], b->v[i]);
        assert_int_equal(a->w[i], b->w[i]);
    }
    assert_true(a->total_u32 == b->total_u32);
    assert_true(a->total == b->total);
}

/* The tie order (key, min, max) as one comparable triple. */
typedef struct tkey {
    uint32_t key, lo, hi;
} tkey;
static int tcmp(tkey a, tkey b)
{
    if (a.key != b.key) return a.key < b.key ? -1 : 1;
    if (a.lo != b.lo) return a.lo < b.lo ? -1 : 1;
    if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
    return 0;
}
static tkey tk(sg_weight_type wt, uint32_t u, uint32_t v, uint32_t w)
{
    return (tkey){sgi_weight_key(wt, w), u < v ? u : v, u < v ? v : u};
}

static uint32_t tfind(uint32_t *p, uint32_t x)
{
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
}

/* Checks f against g without Kruskal: edges canonical and present in g,
 * acyclic, as many trees as g has components, totals right, and (for
 * small graphs) the cycle property: every edge of g is no lighter, in the
 * tie order, than the heaviest forest edge on the path joining its ends.
 * Under a strict total order these make f the unique minimum forest. */
static void check_forest_properties(const sg_graph *g, const sg_forest *f)
{
    const uint64_t n = g->n;
    const uint32_t *w = g->w;
    assert_int_equal(f->n_vertices, n);
    assert_int_equal(f->n_edges + f->n_trees, n);
    uint32_t *p = malloc((n + 1) * sizeof *p);
    assert_non_null(p);
    for (uint64_t v = 0; v < n; v++) p[v] = (uint32_t)v;
    uint64_t t64 = 0;
    double td = 0;
    for (uint64_t i = 0; i < f->n_edges; i++) {
        assert_true(f->u[i] < f->v[i] && f->v[i] < n);
        if (i) assert_true(tcmp(tk(f->weight_type, f->u[i - 1], f->v[i - 1], f->w[i - 1]),
                                tk(f->weight_type, f->u[i], f->v[i], f->w[i])) < 0);
        bool found = false;
        for (uint64_t e = g->x[f->u[i]]; e < g->x[f->u[i] + 1]; e++)
            if (g->a[e] == f->v[i] && w[e] == f->w[i]) found = true;
        assert_true(found);
        uint32_t a = tfind(p, f->u[i]), b = tfind(p, f->v[i]);
        assert_true(a != b); /* acyclic */
        p[a] = b;
        if (f->weight_type == SG_WEIGHT_F32) {
            float x;
            memcpy(&x, &f->w[i], sizeof x);
            td += x;
        } else {
            t64 += f->w[i];
        }
    }
    if (f->weight_type == SG_WEIGHT_F32) {
        assert_true(f->total == td);
    } else {
        assert_true(f->total_u32 == t64 && f->total == (double)t64);
    }
    /* Every edge of g joins vertices of one tree: as many trees as components. */
    for (uint64_t u = 0; u < n; u++)
        for (uint64_t e = g->x[u]; e < g->x[u + 1]; e++)
            assert_int_equal(tfind(p, (uint32_t)u), tfind(p, g->a[e]));
    if (n <= 400) {
        /* Forest adjacency, then from each vertex the heaviest edge on the
         * forest path to every vertex of its tree. */
        uint64_t *fx = calloc(n + 1, sizeof *fx);
        uint32_t *fa = malloc((2 * f->n_edges + 1) * sizeof *fa), *fe = malloc((2 * f->n_edges + 1) * sizeof *fe);
        assert_true(fx && fa && fe);
        for (uint64_t i = 0; i < f->n_edges; i++) {
            fx[f->u[i] + 1]++;
            fx[f->v[i] + 1]++;
        }
        for (uint64_t v = 0; v < n; v++) fx[v + 1] += fx[v];
        uint64_t *cur = malloc((n + 1) * sizeof *cur);
        memcpy(cur, fx, (n + 1) * sizeof *cur);
        for (uint64_t i = 0; i < f->n_edges; i++) {
            fa[cur[f->u[i]]] = f->v[i];
            fe[cur[f->u[i]]++] = (uint32_t)i;
            fa[cur[f->v[i]]] = f->u[i];
            fe[cur[f->v[i]]++] = (uint32_t)i;
        }
        int64_t *pathmax = malloc(n * sizeof *pathmax); /* forest edge index, -1 none, -2 unseen */
        uint32_t *stack = malloc(n * sizeof *stack);
        for (uint64_t s = 0; s < n; s++) {
            for (uint64_t v = 0; v < n; v++) pathmax[v] = -2;
            pathmax[s] = -1;
            uint64_t sp = 0;
            stack[sp++] = (uint32_t)s;
            while (sp) {
                uint32_t x = stack[--sp];
                for (uint64_t e = fx[x]; e < fx[x + 1]; e++) {
                    uint32_t y = fa[e];
                    if (pathmax[y] != -2) continue;
                    int64_t m = pathmax[x];
                    uint32_t ei = fe[e];
                    if (m < 0 || tcmp(tk(f->weight_type, f->u[m], f->v[m], f->w[m]),
                                      tk(f->weight_type, f->u[ei], f->v[ei], f->w[ei])) < 0)
                        m = ei;
                    pathmax[y] = m;
                    stack[sp++] = y;
                }
            }
            for (uint64_t e = g->x[s]; e < g->x[s + 1]; e++) {
                uint32_t y = g->a[e];
                if (y == s) continue;
                int64_t m = pathmax[y];
                assert_true(m >= 0);
                assert_true(tcmp(tk(f->weight_type, f->u[m], f->v[m], f->w[m]),
                                 tk(g->wt, (uint32_t)s, y, w[e])) <= 0);
            }
        }
        free(fx);
        free(fa);
        free(fe);
        free(cur);
        free(pathmax);
        free(stack);
    }
    free(p);
}

/* One graph: Borůvka on 1, 2 and 3 threads equals Kruskal, and both pass
 * the independent check. */
static void check_graph(const sg_graph *g, const char *what)
{
    sg_error err = {0};
    sg_forest *o = NULL;
    if (sg_oracle_kruskal(g, &o, &err) != SG_OK) fail_msg("%s: kruskal: %s", what, err.msg);
    check_forest_properties(g, o);
    for (int t = 1; t <= 3; t++) {
        sg_forest *f = mst_ok(g, t);
        if (sg_verify_forest(g, f, &err) != SG_OK) fail_msg("%s, %d threads: %s", what, t, err.msg);
        assert_forest_equal(f, o);
        sg_forest_free(f);
    }
    sg_forest_free(o);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Puts g's lists in weight order (sg_graph_sort_by_weight) and checks it:
 * each list by (key, id), the same entries as before, the info flag. The
 * forest then skips its sort (src/mst.c), which check_graph exercises. */
static void weight_order(sg_graph *g, const char *what)
{
    sg_graph_info in;
    sg_graph_get_info(g, &in);
    const uint64_t n = in.n_vertices, m = in.n_edges;
    const bool f32 = in.weight_type == SG_WEIGHT_F32;
    const uint64_t *x = sg_graph_offsets(g);
    uint64_t *before = malloc((m + 1) * sizeof *before), *after = malloc((m + 1) * sizeof *after);
    assert_true(before && after);
    const uint32_t *a = sg_graph_neighbors(g), *w = sg_graph_weights(g);
    for (uint64_t p = 0; p < m; p++) before[p] = (uint64_t)a[p] << 32 | w[p];
    sg_error err = {0};
    if (sg_graph_sort_by_weight(g, 2, &err) != SG_OK) fail_msg("%s: sort by weight: %s", what, err.msg);
    a = sg_graph_neighbors(g);
    w = sg_graph_weights(g);
    for (uint64_t v = 0; v < n; v++) {
        for (uint64_t p = x[v] + 1; p < x[v + 1]; p++) {
            const uint32_t k0 = sgi_key_of_bits(f32, w[p - 1]), k1 = sgi_key_of_bits(f32, w[p]);
            if (k1 < k0 || (k1 == k0 && a[p] < a[p - 1]))
                fail_msg("%s: vertex %llu out of weight order at %llu", what, (unsigned long long)v,
                         (unsigned long long)p);
        }
        for (uint64_t p = x[v]; p < x[v + 1]; p++) after[p] = (uint64_t)a[p] << 32 | w[p];
        qsort(before + x[v], x[v + 1] - x[v], 8, cmp_u64);
        qsort(after + x[v], x[v + 1] - x[v], 8, cmp_u64);
    }
    if (m && memcmp(before, after, m * 8) != 0) fail_msg("%s: sorting changed the entries", what);
    sg_graph_get_info(g, &in);
    assert_true(in.weight_order);
    free(before);
    free(after);
}

static void test_families(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {2, 60, 700};
    for (int k = 0; k < TG_NKINDS; k++)
        for (int f32 = 0; f32 < 2; f32++)
            for (uint64_t seed = 1; seed <= 2; seed++)
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                    if ((k == TG_RMAT || k == TG_SSCA2) && sizes[si] < 60) continue; /* 2^scale vertices */
                    sg_graph *g = tg_make((tg_kind)k, sizes[si], seed, false, f32);
                    char what[128];
                    snprintf(what, sizeof what, "%s n=%llu seed=%llu %s", tg_name((tg_kind)k),
                             (unsigned long long)sizes[si], (unsigned long long)seed,
                             f32 ? "f32" : "u32");
                    check_graph(g, what);
                    strncat(what, ", lists by weight", sizeof what - strlen(what) - 1);
                    weight_order(g, what);
                    check_graph(g, what);
                    sg_graph_free(g);
                }
}

/* Larger graphs where ties decide everything, and a skewed R-MAT. */
static void test_larger(void **state)
{
    (void)state;
    static const tg_kind kinds[] = {TG_TIES_EQUAL, TG_TIES_12, TG_STAR, TG_RMAT, TG_SSCA2, TG_PATH};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        sg_graph *g = tg_make(kinds[i], 6000, 3, false, false);
        check_graph(g, tg_name(kinds[i]));
        weight_order(g, tg_name(kinds[i]));
        check_graph(g, tg_name(kinds[i]));
        sg_graph_free(g);
    }
}

static sg_graph *from_triples(uint64_t n, size_t ne, const uint32_t (*t)[3], bool f32)
{
    uint32_t *u = malloc((ne + 1) * sizeof *u), *v = malloc((ne + 1) * sizeof *v),
             *w = malloc((ne + 1) * sizeof *w);
    for (size_t i = 0; i < ne; i++) {
        u[i] = t[i][0];
        v[i] = t[i][1];
        w[i] = t[i][2];
    }
    sg_graph *g = tg_from_edges(n, ne, u, v, w, false, f32);
    free(u);
    free(v);
    free(w);
    return g;
}

static void expect_forest(const sg_forest *f, size_t ne, const uint32_t (*t)[3])
{
    assert_int_equal(f->n_edges, ne);
    for (size_t i = 0; i < ne; i++) {
        assert_int_equal(f->u[i], t[i][0]);
        assert_int_equal(f->v[i], t[i][1]);
        assert_int_equal(f->w[i], t[i][2]);
    }
}

static void test_hand(void **state)
{
    (void)state;
    /* K5, every weight equal: the tie rule picks the star at vertex 0. */
    uint32_t k5[10][3];
    size_t q = 0;
    for (uint32_t a = 0; a < 5; a++)
        for (uint32_t b = a + 1; b < 5; b++) k5[q][0] = b, k5[q][1] = a, k5[q++][2] = 7;
    sg_graph *g = from_triples(5, q, (const uint32_t (*)[3])k5, false);
    sg_forest *f = mst_ok(g, 2);
    static const uint32_t k5_want[][3] = {{0, 1, 7}, {0, 2, 7}, {0, 3, 7}, {0, 4, 7}};
    expect_forest(f, 4, k5_want);
    assert_int_equal(f->n_trees, 1);
    assert_int_equal(f->total_u32, 28);
    assert_true(f->total == 28.0);
    sg_forest_free(f);
    sg_graph_free(g);

    /* A 4-cycle of equal weights: (2,3) is the heaviest by the tie rule. */
    static const uint32_t sq[][3] = {{2, 3, 1}, {1, 2, 1}, {3, 0, 1}, {0, 1, 1}};
    static const uint32_t sq_want[][3] = {{0, 1, 1}, {0, 3, 1}, {1, 2, 1}};
    g = from_triples(4, 4, sq, false);
    f = mst_ok(g, 3);
    expect_forest(f, 3, sq_want);
    sg_forest_free(f);
    sg_forest *o = NULL;
    sg_error err = {0};
    assert_int_equal(sg_oracle_kruskal(g, &o, &err), SG_OK);
    expect_forest(o, 3, sq_want);
    sg_forest_free(o);
    sg_graph_free(g);

    /* Repeated edges and a self-loop: the lighter copy wins. */
    static const uint32_t dup[][3] = {{0, 1, 5}, {1, 0, 2}, {1, 2, 3}, {2, 2, 1}, {2, 1, 9}};
    static const uint32_t dup_want[][3] = {{0, 1, 2}, {1, 2, 3}};
    g = from_triples(4, 5, dup, false);
    f = mst_ok(g, 2);
    expect_forest(f, 2, dup_want);
    assert_int_equal(f->n_trees, 2); /* vertex 3 alone */
    assert_int_equal(f->total_u32, 5);
    sg_forest_free(f);
    sg_graph_free(g);

    /* f32: negative weights, -0 before +0. */
    const uint32_t neg[][3] = {{0, 1, fbits(-0.0f)}, {1, 2, fbits(0.0f)}, {2, 0, fbits(-0.0f)},
                               {3, 2, fbits(-1.5f)}, {3, 4, fbits(2.25f)}, {4, 0, fbits(3.0f)}};
    const uint32_t neg_want[][3] = {{2, 3, fbits(-1.5f)}, {0, 1, fbits(-0.0f)},
                                    {0, 2, fbits(-0.0f)}, {3, 4, fbits(2.25f)}};
    g = from_triples(5, 6, neg, true);
    f = mst_ok(g, 2);
    expect_forest(f, 4, neg_want);
    assert_int_equal(f->weight_type, SG_WEIGHT_F32);
    assert_true(f->total == 0.75);
    assert_int_equal(sg_verify_forest(g, f, &err), SG_OK);
    sg_forest_free(f);
    sg_graph_free(g);

    /* A long path with weights falling along it: one Borůvka step makes a
     * chain as deep as the path (pointer jumping). */
    enum { N = 3000 };
    static uint32_t path[N - 1][3];
    for (uint32_t i = 0; i + 1 < N; i++) path[i][0] = i, path[i][1] = i + 1, path[i][2] = N - i;
    g = from_triples(N, N - 1, (const uint32_t (*)[3])path, false);
    sg_run *r = make_run(2);
    assert_int_equal(sg_mst(r, g, &f, &err), SG_OK);
    assert_int_equal(f->n_edges, N - 1);
    assert_int_equal(f->u[0], N - 2); /* the lightest edge comes first */
    assert_int_equal(sg_verify_forest(g, f, &err), SG_OK);
    uint64_t iters = 0;
    bool seen = false;
    for (unsigned i = 0; i < sg_run_counter_count(r); i++)
        if (strcmp(sg_run_counter(r, i, &iters), "iterations") == 0) {
            seen = true;
            break;
        }
    assert_true(seen);
    assert_int_equal(iters, 1); /* every vertex's lightest edge is a forest edge */
    sg_run_free(r);
    sg_forest_free(f);
    sg_graph_free(g);
}

static void test_edge_cases(void **state)
{
    (void)state;
    sg_error err = {0};
    sg_graph *g = NULL;
    sg_forest *f = NULL;
    /* No vertices. */
    uint64_t x0[1] = {0};
    assert_int_equal(sg_graph_from_arrays(0, x0, NULL, NULL, SG_WEIGHT_U32, false, &g, &err), SG_OK);
    f = mst_ok(g, 2);
    assert_int_equal(f->n_vertices, 0);
    assert_int_equal(f->n_trees, 0);
    assert_int_equal(f->n_edges, 0);
    assert_int_equal(sg_verify_forest(g, f, &err), SG_OK);
    sg_forest_free(f);
    sg_graph_free(g);
    /* One vertex, with and without a self-loop. */
    uint64_t x1[2] = {0, 0}, x1l[2] = {0, 1};
    uint32_t a1[1] = {0}, w1[1] = {4};
    for (int loop = 0; loop < 2; loop++) {
        assert_int_equal(sg_graph_from_arrays(1, loop ? x1l : x1, a1, w1, SG_WEIGHT_U32, false, &g,
                                              &err),
                         SG_OK);
        f = mst_ok(g, 2);
        assert_int_equal(f->n_trees, 1);
        assert_int_equal(f->n_edges, 0);
        assert_true(f->total == 0.0);
        assert_int_equal(sg_verify_forest(g, f, &err), SG_OK);
        sg_forest_free(f);
        sg_graph_free(g);
    }
    /* Ten vertices and no edges; then only self-loops. */
    uint64_t x10[11] = {0}, x10l[11];
    uint32_t a10[10], w10[10];
    for (uint32_t i = 0; i < 10; i++) a10[i] = i, w10[i] = 1, x10l[i + 1] = i + 1;
    x10l[0] = 0;
    for (int loop = 0; loop < 2; loop++) {
        assert_int_equal(sg_graph_from_arrays(10, loop ? x10l : x10, a10, w10, SG_WEIGHT_U32, false,
                                              &g, &err),
                         SG_OK);
        f = mst_ok(g, 3);
        assert_int_equal(f->n_trees, 10);
        assert_int_equal(f->n_edges, 0);
        sg_forest_free(f);
        sg_graph_free(g);
    }
}

static void test_refusals(void **state)
{
    (void)state;
    sg_error err = {0};
    sg_run *r = make_run(2);
    sg_forest *f = NULL;
    sg_graph *g = tg_make(TG_RANDOM, 50, 1, true, false);
    assert_int_equal(sg_mst(r, g, &f, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "undirected"));
    assert_null(f);
    err.msg[0] = 0;
    assert_int_equal(sg_oracle_kruskal(g, &f, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "undirected"));
    assert_int_equal(sg_mst(NULL, g, &f, &err), SG_E_INVALID);
    assert_int_equal(sg_mst(r, NULL, &f, &err), SG_E_INVALID);
    assert_int_equal(sg_verify_forest(g, NULL, &err), SG_E_INVALID);
    assert_null(f);
    sg_graph_free(g);

    /* A store loaded without weights. */
    char *dir = tu_tmpdir("mst-nw");
    char path[512];
    snprintf(path, sizeof path, "%s/g", dir);
    tu_graph tg = tu_random_graph(40, 100, 9, 5, false);
    tu_write_store(path, &tg, NULL);
    tu_graph_free(&tg);
    sg_graph_options go = {.no_weights = true};
    assert_int_equal(sg_graph_open(r, path, &go, &g, &err), SG_OK);
    assert_int_equal(sg_mst(r, g, &f, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "weights"));
    assert_int_equal(sg_oracle_kruskal(g, &f, &err), SG_E_INVALID);
    assert_null(f);
    sg_graph_free(g);
    /* The same store with weights: fine, and the phases got time. */
    double pre = sg_run_seconds(r, SG_PHASE_PREPROCESS), comp = sg_run_seconds(r, SG_PHASE_COMPUTE);
    assert_int_equal(sg_graph_open(r, path, NULL, &g, &err), SG_OK);
    assert_int_equal(sg_mst(r, g, &f, &err), SG_OK);
    assert_true(sg_run_seconds(r, SG_PHASE_PREPROCESS) > pre);
    assert_true(sg_run_seconds(r, SG_PHASE_COMPUTE) > comp);
    assert_int_equal(sg_verify_forest(g, f, &err), SG_OK);
    sg_forest_free(f);
    sg_graph_free(g);
    tu_rm_rf(dir);
    free(dir);
    sg_run_free(r);
}

/* sg_verify_forest names the first difference. */
static void test_verify_mismatch(void **state)
{
    (void)state;
    sg_error err = {0};
    sg_graph *g = tg_make(TG_RANDOM, 80, 4, false, false);
    sg_forest *f = mst_ok(g, 2);
    assert_true(f->n_edges > 10);
    uint32_t keep = f->w[5];
    f->w[5] += 1;
    assert_int_equal(sg_verify_forest(g, f, &err), SG_E_MISMATCH);
    assert_non_null(strstr(err.msg, "forest edge 5: got ("));
    assert_non_null(strstr(err.msg, "Kruskal has ("));
    f->w[5] = keep;
    f->n_edges--;
    f->n_trees++;
    assert_int_equal(sg_verify_forest(g, f, &err), SG_E_MISMATCH);
    assert_non_null(strstr(err.msg, "missing edge"));
    f->n_edges++;
    f->n_trees--;
    f->total_u32++;
    assert_int_equal(sg_verify_forest(g, f, &err), SG_E_MISMATCH);
    assert_non_null(strstr(err.msg, "total"));
    f->total_u32--;
    assert_int_equal(sg_verify_forest(g, f, &err), SG_OK);
    sg_forest_free(f);
    sg_graph_free(g);
}

/* Let the i-th allocation fail for i = 0, 1, 2, ... until the call
 * succeeds: every failure is SG_E_NOMEM, leaves *out alone and leaks nothing. */
static void test_alloc_failures(void **state)
{
    (void)state;
    sg_graph *g = tg_make(TG_DUP_LOOPS, 300, 2, false, false);
    sg_forest *want = NULL;
    sg_error err = {0};
    assert_int_equal(sg_oracle_kruskal(g, &want, &err), SG_OK);
    sg_run *r = make_run(2);
    for (int which = 0; which < 3; which++) {
        bool done = false;
        for (long k = 0; !done; k++) {
            assert_true(k < 1000);
            long live = sgi_alloc_live();
            sg_forest *f = NULL;
            sgi_alloc_fail_after(k);
            sg_status st = which == 0   ? sg_mst(r, g, &f, &err)
                           : which == 1 ? sg_oracle_kruskal(g, &f, &err)
                                        : sg_verify_forest(g, want, &err);
            sgi_alloc_fail_after(-1);
            if (st == SG_OK) {
                done = true;
                if (which < 2) {
                    assert_forest_equal(f, want);
                    sg_forest_free(f);
                }
            } else {
                assert_int_equal(st, SG_E_NOMEM);
                assert_null(f);
            }
            assert_int_equal(sgi_alloc_live(), live);
        }
    }
    sg_run_free(r);
    sg_forest_free(want);
    sg_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_families),       cmocka_unit_test(test_larger),
        cmocka_unit_test(test_hand),           cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_refusals),       cmocka_unit_test(test_verify_mismatch),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
