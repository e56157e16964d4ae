/* src/sssp.c and src/dijkstra.c: delta-stepping against the Dijkstra
 * oracle on every test graph family, parent trees, the verifier catching
 * corrupted results, errors, and allocation failures. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/internal.h"
#include "testgraphs.h"

static sg_run *make_run(int threads)
{
    sg_run_options o = {.backend = SG_BACKEND_CPU, .threads = threads};
    sg_run *run = NULL;
    sg_error err = {0};
    assert_int_equal(sg_run_create(&o, &run, &err), SG_OK);
    return run;
}

static uint64_t counter(const sg_run *run, const char *name)
{
    for (unsigned i = 0; i < sg_run_counter_count(run); i++) {
        uint64_t v = 0;
        if (strcmp(sg_run_counter(run, i, &v), name) == 0) return v;
    }
    fail_msg("counter %s not set", name);
    return 0;
}

/* Runs sg_sssp and checks it against the oracle (distances and tree). */
static void run_and_verify(const sg_graph *g, uint32_t source, double delta, int threads,
                           bool parents, const char *what)
{
    sg_run *run = make_run(threads);
    sg_sssp_options o = {.source = source, .delta = delta, .want_parents = parents};
    sg_sssp_result *r = NULL;
    sg_error err = {0};
    sg_status st = sg_sssp(run, g, &o, &r, &err);
    if (st != SG_OK) fail_msg("%s: sg_sssp: %s", what, err.msg);
    st = sg_verify_sssp(g, r, &err);
    if (st != SG_OK)
        fail_msg("%s (source %u, delta %g, %d threads): %s", what, source, delta, threads, err.msg);
    assert_int_equal(r->source, source);
    assert_true(r->reached >= 1);
    assert_true(r->delta > 0.0);
    if (delta > 0 && g->wt == SG_WEIGHT_F32) assert_true(r->delta == delta);
    if (r->dist) assert_int_equal(r->dist[source], 0);
    else assert_true(r->dist_f[source] == 0.0);
    assert_int_equal(parents, r->parent != NULL);
    /* Every relaxation comes from a reached vertex's list. */
    uint64_t relax = counter(run, "relaxations");
    assert_true(relax >= g->x[source + 1] - g->x[source]);
    assert_true(counter(run, "buckets") >= 1);
    assert_true(sg_run_seconds(run, SG_PHASE_COMPUTE) > 0.0);
    sg_sssp_free(r);
    sg_run_free(run);
}

/* A vertex of degree 0 other than `not`, or `fallback`. */
static uint32_t isolated_vertex(const sg_graph *g, uint32_t fallback)
{
    for (uint64_t v = 0; v < g->n; v++)
        if (g->x[v + 1] == g->x[v]) return (uint32_t)v;
    return fallback;
}

static void test_families(void **state)
{
    (void)state;
    for (int k = 0; k < TG_NKINDS; k++)
        for (int variant = 0; variant < 4; variant++) {
            const bool directed = variant & 1, f32 = variant & 2;
            sg_graph *g = tg_make((tg_kind)k, 300, 11 + (uint64_t)k, directed, f32);
            char what[96];
            snprintf(what, sizeof what, "%s%s%s", tg_name((tg_kind)k), directed ? " directed" : "",
                     f32 ? " f32" : "");
            const uint32_t n = (uint32_t)g->n;
            const uint32_t sources[4] = {0, n - 1, (uint32_t)(7919 * (k + 1)) % n,
                                         isolated_vertex(g, n / 2)};
            /* auto; tiny (f32: bins far narrower than one edge, so the far
             * piles work); 1; medium; huge (one bucket: Bellman-Ford). */
            const double deltas[5] = {0.0, f32 ? 0.01 : 1.0, 1.0, 5.0, 1e15};
            for (int s = 0; s < 4; s++)
                for (int d = 0; d < 5; d++)
                    run_and_verify(g, sources[s], deltas[d], 1 + (s + d) % 3, (s + d) % 4 != 3,
                                   what);
            sg_graph_free(g);
        }
}

/* Hand-made graphs with known answers: zero-weight cycles and f32 sums
 * that round back (dist[u] + w == dist[u]) both give tight edges between
 * equal distances, which the tree must not turn into cycles. */
static void test_known(void **state)
{
    (void)state;
    for (int variant = 0; variant < 4; variant++) {
        const bool directed = variant & 1, f32 = variant & 2;
        /* 0 -5-> 1 -0-> 2 -0-> 1, 2 -0-> 3 -0-> 2, 0 -9-> 3, 3 -2-> 4; 5 alone. */
        sg_graph *g = tg_zero_cycles(directed, f32);
        const double want[6] = {0, 5, 5, 5, 7, INFINITY};
        for (int threads = 1; threads <= 3; threads++) {
            sg_run *run = make_run(threads);
            sg_sssp_options o = {.source = 0, .want_parents = true};
            sg_sssp_result *r = NULL;
            sg_error err = {0};
            assert_int_equal(sg_sssp(run, g, &o, &r, &err), SG_OK);
            for (int i = 0; i < 6; i++) {
                double d = f32 ? r->dist_f[i] : r->dist[i] == UINT64_MAX ? INFINITY : (double)r->dist[i];
                assert_true(d == want[i]);
            }
            assert_int_equal(r->reached, 5);
            assert_true(r->max_dist == 7.0);
            assert_int_equal(r->parent[0], 0);
            assert_int_equal(r->parent[1], 0);
            assert_int_equal(r->parent[5], SG_NO_VERTEX);
            assert_int_equal(r->parent[4], 3);
            if (sg_verify_sssp(g, r, &err) != SG_OK) fail_msg("%s", err.msg);
            sg_sssp_free(r);
            sg_run_free(run);
        }
        sg_graph_free(g);
    }
    /* f32 rounding: 1e17 + 1 == 1e17 in double, so 1 -> 2 is tight with
     * equal distances; 2's parent must still lead back to 0. */
    for (int directed = 0; directed < 2; directed++) {
        sg_graph *g = tg_f32_rounding(directed);
        run_and_verify(g, 0, 0.0, 2, true, "f32 rounding");
        run_and_verify(g, 0, 1.0, 3, true, "f32 rounding, delta 1");
        sg_graph_free(g);
    }
    /* u32 weights up to 10^6 with delta 1: almost every push goes to the far
     * piles, then comes back through refills. */
    {
        uint64_t rs = 5;
        uint32_t u[600], v[600], w[600];
        for (int i = 0; i < 600; i++) {
            u[i] = (uint32_t)(tu_rand(&rs) % 200);
            v[i] = (uint32_t)(tu_rand(&rs) % 200);
            w[i] = 1 + (uint32_t)(tu_rand(&rs) % 1000000);
        }
        sg_graph *g = tg_from_edges(200, 600, u, v, w, false, false);
        for (int t = 1; t <= 3; t++) run_and_verify(g, 3, 1.0, t, true, "far piles");
        run_and_verify(g, 3, 1e9, 2, true, "one bucket");
        sg_graph_free(g);
    }
}

/* Tiny graphs: a single vertex, vertices without edges, a self-loop only. */
static void test_small(void **state)
{
    (void)state;
    const uint32_t u[] = {0}, v[] = {0}, w[] = {3};
    for (int f32 = 0; f32 < 2; f32++) {
        sg_graph *g1 = tg_from_edges(1, 0, u, v, w, false, f32);
        run_and_verify(g1, 0, 0.0, 2, true, "single vertex");
        sg_graph_free(g1);
        sg_graph *g5 = tg_from_edges(5, 0, u, v, w, true, f32);
        run_and_verify(g5, 4, 0.0, 3, true, "no edges");
        sg_graph_free(g5);
        const uint32_t wl[] = {f32 ? tg_f32_bits(3.0f) : 3};
        sg_graph *gl = tg_from_edges(2, 1, u, v, wl, false, f32);
        run_and_verify(gl, 0, 0.0, 2, true, "self-loop");
        sg_run *run = make_run(2);
        sg_sssp_options o = {.source = 1, .want_parents = true};
        sg_sssp_result *r = NULL;
        sg_error err = {0};
        assert_int_equal(sg_sssp(run, gl, &o, &r, &err), SG_OK);
        assert_int_equal(r->reached, 1);
        assert_true(r->max_dist == 0.0);
        assert_int_equal(r->parent[0], SG_NO_VERTEX);
        assert_int_equal(r->parent[1], 1);
        sg_sssp_free(r);
        sg_run_free(run);
        sg_graph_free(gl);
    }
}

static void expect_mismatch(const sg_graph *g, const sg_sssp_result *r, const char *needle)
{
    sg_error err = {0};
    assert_int_equal(sg_verify_sssp(g, r, &err), SG_E_MISMATCH);
    if (!strstr(err.msg, needle)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, needle);
}

/* The verifier catches each kind of corruption. */
static void test_verify_catches(void **state)
{
    (void)state;
    sg_graph *g = tg_make(TG_RANDOM, 200, 3, false, false);
    sg_run *run = make_run(2);
    sg_sssp_options o = {.source = 1, .want_parents = true};
    sg_sssp_result *r = NULL;
    sg_error err = {0};
    assert_int_equal(sg_sssp(run, g, &o, &r, &err), SG_OK);
    assert_int_equal(sg_verify_sssp(g, r, &err), SG_OK);
    /* A reached vertex other than the source, and one it is not a child of. */
    uint32_t v = 0;
    while (v == 1 || r->dist[v] == UINT64_MAX || r->dist[v] == 0) v++;
    r->dist[v]++;
    expect_mismatch(g, r, "distance");
    r->dist[v]--;
    uint32_t p = r->parent[v], q = 0;
    while (q == p || q == v || r->dist[q] == UINT64_MAX) q++;
    r->parent[v] = q;
    expect_mismatch(g, r, "no edge from its parent");
    r->parent[v] = SG_NO_VERTEX;
    expect_mismatch(g, r, "has no parent");
    r->parent[v] = p;
    r->parent[1] = p;
    expect_mismatch(g, r, "source");
    r->parent[1] = 1;
    r->reached++;
    expect_mismatch(g, r, "reached");
    r->reached--;
    assert_int_equal(sg_verify_sssp(g, r, &err), SG_OK);
    sg_sssp_free(r);
    sg_graph_free(g);

    /* A cycle of tight zero-weight edges: 0 -1-> 1 -0-> 2 -0-> 1; 3 alone. */
    const uint32_t u[] = {0, 1, 2}, vv[] = {1, 2, 1}, w[] = {1, 0, 0};
    g = tg_from_edges(4, 3, u, vv, w, true, false);
    o.source = 0;
    assert_int_equal(sg_sssp(run, g, &o, &r, &err), SG_OK);
    assert_int_equal(r->parent[1], 0);
    assert_int_equal(r->parent[2], 1);
    r->parent[1] = 2;
    expect_mismatch(g, r, "cycle");
    r->parent[1] = 0;
    r->parent[3] = 0;
    expect_mismatch(g, r, "unreached");
    r->parent[3] = SG_NO_VERTEX;
    r->dist[3] = 7;
    expect_mismatch(g, r, "Dijkstra gives unreached");
    r->dist[3] = UINT64_MAX;
    assert_int_equal(sg_verify_sssp(g, r, &err), SG_OK);
    r->n_vertices = 3;
    expect_mismatch(g, r, "vertices");
    r->n_vertices = 4;
    sg_sssp_free(r);
    sg_graph_free(g);

    /* f32: a distance off by the last bit. */
    g = tg_make(TG_GRID, 100, 2, false, true);
    o.want_parents = false;
    assert_int_equal(sg_sssp(run, g, &o, &r, &err), SG_OK);
    assert_int_equal(sg_verify_sssp(g, r, &err), SG_OK);
    r->dist_f[50] = nextafter(r->dist_f[50], INFINITY);
    expect_mismatch(g, r, "vertex 50");
    sg_sssp_free(r);
    sg_graph_free(g);
    sg_run_free(run);
}

/* sg_sssp fails with `want` and a message holding `needle`; with
 * `oracle_too`, the oracle fails the same way. */
static void expect_error(sg_run *run, const sg_graph *g, const sg_sssp_options *o, sg_status want,
                         const char *needle, bool oracle_too)
{
    sg_sssp_result *r = (sg_sssp_result *)(uintptr_t)0x1;
    sg_error err = {0};
    assert_int_equal(sg_sssp(run, g, o, &r, &err), want);
    assert_true(r == (sg_sssp_result *)(uintptr_t)0x1); /* untouched */
    if (!strstr(err.msg, needle)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, needle);
    if (oracle_too) {
        sg_error e2 = {0};
        sg_sssp_result *d = NULL;
        assert_int_equal(sg_oracle_dijkstra(g, o->source, &d, &e2), want);
        assert_null(d);
        assert_string_equal(e2.msg, err.msg);
    }
}

static void test_errors(void **state)
{
    (void)state;
    sg_run *run = make_run(2);
    sg_graph *g = tg_make(TG_PATH, 50, 1, false, false);
    sg_sssp_options o = {.source = 99};
    expect_error(run, g, &o, SG_E_INVALID,
                 "source 99 is not a vertex: the graph has 50 vertices (0..49)", true);
    o.source = 50;
    expect_error(run, g, &o, SG_E_INVALID, "source 50 is not a vertex", true);
    o.source = 0;
    o.delta = -1.0;
    expect_error(run, g, &o, SG_E_INVALID, "delta", false);
    o.delta = NAN;
    expect_error(run, g, &o, SG_E_INVALID, "delta", false);
    o.delta = INFINITY;
    expect_error(run, g, &o, SG_E_INVALID, "delta", false);
    o.delta = 0.0;
    sg_error err = {0};
    sg_sssp_result *r = NULL;
    assert_int_equal(sg_sssp(NULL, g, &o, &r, &err), SG_E_INVALID);
    assert_int_equal(sg_sssp(run, g, NULL, &r, &err), SG_E_INVALID);
    assert_int_equal(sg_sssp(run, g, &o, NULL, &err), SG_E_INVALID);
    assert_int_equal(sg_verify_sssp(g, NULL, &err), SG_E_INVALID);
    sg_graph_free(g);

    /* n = 0. */
    const uint64_t x0[] = {0};
    assert_int_equal(sg_graph_from_arrays(0, x0, NULL, NULL, SG_WEIGHT_U32, false, &g, &err), SG_OK);
    expect_error(run, g, &o, SG_E_INVALID, "no vertices", true);
    sg_graph_free(g);

    /* Negative weights, flagged by sg_graph_from_arrays. */
    const uint64_t x[] = {0, 1, 2};
    const uint32_t a[] = {1, 0};
    const float w[] = {-1.5f, -1.5f};
    assert_int_equal(sg_graph_from_arrays(2, x, a, w, SG_WEIGHT_F32, false, &g, &err), SG_OK);
    expect_error(run, g, &o, SG_E_INVALID, "negative weights", true);
    sg_graph_free(g);

    /* A store loaded without weights. */
    char *dir = tu_tmpdir("sssp");
    char path[512];
    snprintf(path, sizeof path, "%s/g", dir);
    sg_rmat_options ro;
    sg_rmat_defaults(&ro);
    ro.scale = 6;
    assert_int_equal(sg_gen_rmat(path, &ro, NULL, &err), SG_OK);
    sg_graph_options go = {.no_weights = true};
    assert_int_equal(sg_graph_open(run, path, &go, &g, &err), SG_OK);
    expect_error(run, g, &o, SG_E_INVALID, "without weights", true);
    sg_graph_free(g);
    tu_rm_rf(dir);
    free(dir);
    sg_run_free(run);
}

/* Methods on the cpu backend: auto and delta are delta-stepping (the same
 * distances); Bellman-Ford runs on the gpu backend only and is refused
 * here, naming the method, with *out untouched. */
static void test_methods(void **state)
{
    (void)state;
    sg_run *run = make_run(2);
    for (int variant = 0; variant < 4; variant++) {
        const bool directed = variant & 1, f32 = variant & 2;
        sg_graph *g = tg_make(TG_RANDOM, 200, 21, directed, f32);
        for (int parents = 0; parents < 2; parents++) {
            sg_sssp_options o = {.source = 5, .want_parents = parents, .method = SG_SSSP_BELLMAN_FORD};
            expect_error(run, g, &o, SG_E_UNSUPPORTED, "bellman-ford", false);
            assert_int_equal(sg_run_backend(run), SG_BACKEND_CPU);
            o.delta = 3.0;
            expect_error(run, g, &o, SG_E_UNSUPPORTED, "bellman-ford", false);
            const sg_sssp_method ok[2] = {SG_SSSP_AUTO, SG_SSSP_DELTA};
            for (int i = 0; i < 2; i++) {
                o.method = ok[i];
                for (int d = 0; d < 2; d++) {
                    o.delta = d ? 3.0 : 0.0;
                    sg_sssp_result *r = NULL;
                    sg_error err = {0};
                    if (sg_sssp(run, g, &o, &r, &err) != SG_OK)
                        fail_msg("method %s, variant %d: %s", sg_sssp_method_name(ok[i]), variant,
                                 err.msg);
                    if (sg_verify_sssp(g, r, &err) != SG_OK)
                        fail_msg("method %s, variant %d: %s", sg_sssp_method_name(ok[i]), variant,
                                 err.msg);
                    assert_int_equal(parents, r->parent != NULL);
                    if (d) assert_true(r->delta == 3.0);
                    assert_int_equal(sg_run_backend(run), SG_BACKEND_CPU);
                    sg_sssp_free(r);
                }
            }
        }
        sg_graph_free(g);
    }
    sg_run_free(run);
}

/* Every allocation of sg_sssp, the oracle and the verifier fails in turn:
 * a clean error, nothing leaked, outputs untouched; then success. The
 * graph makes every allocation happen: a star of 5000 equal leaves (one
 * bin larger than the first frontier, local bins that grow) and a
 * zero-weight cycle (the parent BFS). */
static void test_alloc_failures(void **state)
{
    (void)state;
    enum { N = 5004 };
    static uint32_t u[N + 3], v[N + 3], w[N + 3];
    uint64_t ne = 0;
    for (uint32_t i = 1; i < 5000; i++) {
        u[ne] = 0;
        v[ne] = i;
        w[ne++] = 4;
    }
    const uint32_t cu[] = {1, 5000, 5001, 5001}, cv[] = {5000, 5001, 5000, 5003},
                   cw[] = {1, 0, 0, 2};
    for (int i = 0; i < 4; i++) {
        u[ne] = cu[i];
        v[ne] = cv[i];
        w[ne++] = cw[i];
    }
    sg_graph *g = tg_from_edges(N, ne, u, v, w, true, false);
    sg_run *run = make_run(2);
    sg_sssp_options o = {.source = 0, .want_parents = true};
    for (int which = 0; which < 3; which++) {
        bool ok = false;
        for (long k = 0; !ok; k++) {
            assert_true(k < 10000);
            const long live = sgi_alloc_live();
            sg_sssp_result *r = NULL, *ref = NULL;
            sg_error err = {0};
            sg_status st;
            if (which == 2) assert_int_equal(sg_sssp(run, g, &o, &ref, &err), SG_OK);
            sgi_alloc_fail_after(k);
            if (which == 0)
                st = sg_sssp(run, g, &o, &r, &err);
            else if (which == 1)
                st = sg_oracle_dijkstra(g, 0, &r, &err);
            else
                st = sg_verify_sssp(g, ref, &err);
            sgi_alloc_fail_after(-1);
            if (st == SG_OK) {
                ok = true;
                if (r) {
                    assert_int_equal(sg_verify_sssp(g, r, &err), SG_OK);
                    assert_int_equal(r->reached, 5003); /* all but 5002 */
                }
            } else {
                assert_int_equal(st, SG_E_NOMEM);
                assert_null(r);
                assert_non_null(strstr(err.msg, "out of memory"));
            }
            sg_sssp_free(r);
            sg_sssp_free(ref);
            assert_int_equal(sgi_alloc_live(), live);
        }
    }
    sg_run_free(run);
    sg_graph_free(g);
}

/* sg_sssp_into: searches from several sources into the first search's
 * result equal Dijkstra's each time (the verifier compares every distance
 * and the tree), on every family, u32 and f32, with and without parents;
 * a result of another shape is refused and named. */
static void test_into(void **state)
{
    (void)state;
    sg_run *run = make_run(3);
    for (int kind = 0; kind < TG_NKINDS; kind++)
        for (int v = 0; v < 4; v++) {
            const bool par = v & 1, f32 = v & 2;
            sg_graph *g = tg_make((tg_kind)kind, 300, 5, (kind + v) % 3 == 2, f32);
            sg_error err = {0};
            sg_sssp_options o = {.source = 0, .want_parents = par};
            sg_sssp_result *r = NULL;
            assert_int_equal(sg_sssp(run, g, &o, &r, &err), SG_OK);
            const void *mem = f32 ? (const void *)r->dist_f : (const void *)r->dist;
            for (uint32_t s = 1; s < g->n; s += (uint32_t)(g->n / 3) + 1) {
                o.source = s;
                assert_int_equal(sg_sssp_into(run, g, &o, r, &err), SG_OK);
                assert_ptr_equal(f32 ? (const void *)r->dist_f : (const void *)r->dist, mem);
                assert_int_equal(r->source, s);
                assert_true(r->delta > 0.0);
                if (sg_verify_sssp(g, r, &err) != SG_OK)
                    fail_msg("family %d, variant %d, into from %u: %s", kind, v, s, err.msg);
            }
            o.want_parents = !par;
            assert_int_equal(sg_sssp_into(run, g, &o, r, &err), SG_E_INVALID);
            assert_non_null(strstr(err.msg, par ? "with parents" : "without parents"));
            assert_non_null(strstr(err.msg, f32 ? "f32" : "u32"));
            sg_sssp_free(r);
            sg_graph_free(g);
        }
    sg_graph *gu = tg_make(TG_RANDOM, 40, 2, false, false), *gf = tg_make(TG_RANDOM, 40, 2, false, true);
    sg_error err = {0};
    sg_sssp_options o = {.source = 1};
    sg_sssp_result *r = NULL;
    assert_int_equal(sg_sssp(run, gu, &o, &r, &err), SG_OK);
    assert_int_equal(sg_sssp_into(run, gf, &o, r, &err), SG_E_INVALID); /* weight type */
    assert_non_null(strstr(err.msg, "(u32 weights)"));
    assert_int_equal(sg_sssp_into(run, gu, &o, NULL, &err), SG_E_INVALID);
    o.delta = -1;
    assert_int_equal(sg_sssp_into(run, gu, &o, r, &err), SG_E_INVALID);
    sg_sssp_free(r);
    sg_graph_free(gu);
    sg_graph_free(gf);
    sg_run_free(run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_families),      cmocka_unit_test(test_known),
        cmocka_unit_test(test_small),         cmocka_unit_test(test_verify_catches),
        cmocka_unit_test(test_errors),        cmocka_unit_test(test_methods),
        cmocka_unit_test(test_alloc_failures), cmocka_unit_test(test_into),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
