/* src/bfs.c and src/bfs_serial.c: direction-optimizing BFS against the
 * serial oracle on every test graph family, known shapes with hand-checked
 * levels, forced top-down / bottom-up runs, the verifier catching corrupted
 * results, errors, tiny graphs and allocation failures. */
#include "testutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/internal.h"
#include "testgraphs.h"

/* A run with `threads` threads (asserting success). */
static sg_run *mkrun(int threads)
{
    sg_run *run = NULL;
    sg_error err = {0};
    sg_run_options o = {.backend = SG_BACKEND_CPU, .threads = threads};
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

typedef struct bfs_out {
    sg_bfs_result *r;
    uint64_t td, bu, edges;
} bfs_out;

/* sg_bfs with the given settings, asserting success. */
static bfs_out run_bfs(const sg_graph *g, uint32_t s, bool parents, int threads, int alpha, int beta)
{
    sg_run *run = mkrun(threads);
    sg_error err = {0};
    sg_bfs_options o = {.source = s, .want_parents = parents, .alpha = alpha, .beta = beta};
    bfs_out out = {0};
    sg_status st = sg_bfs(run, g, &o, &out.r, &err);
    if (st != SG_OK) fail_msg("sg_bfs from %u: %s", s, err.msg);
    assert_non_null(out.r);
    assert_true(sg_run_seconds(run, SG_PHASE_COMPUTE) > 0.0);
    out.td = counter(run, "top_down_steps");
    out.bu = counter(run, "bottom_up_steps");
    out.edges = counter(run, "edges_examined");
    sg_run_free(run);
    sg_graph_info info;
    sg_graph_get_info(g, &info);
    assert_int_equal(out.r->n_vertices, info.n_vertices);
    assert_int_equal(out.r->source, s);
    assert_true(parents ? out.r->parent != NULL : out.r->parent == NULL);
    return out;
}

static sg_bfs_result *oracle(const sg_graph *g, uint32_t s)
{
    sg_bfs_result *o = NULL;
    sg_error err = {0};
    if (sg_oracle_bfs(g, s, &o, &err) != SG_OK) fail_msg("oracle: %s", err.msg);
    return o;
}

/* r equals the oracle o: every level, reached, max_level; and r verifies. */
static void expect_same(const sg_graph *g, const sg_bfs_result *r, const sg_bfs_result *o,
                        const char *what)
{
    assert_int_equal(r->n_vertices, o->n_vertices);
    for (uint64_t v = 0; v < o->n_vertices; v++)
        if (r->level[v] != o->level[v])
            fail_msg("%s: vertex %llu level %u, oracle %u", what, (unsigned long long)v, r->level[v],
                     o->level[v]);
    assert_int_equal(r->reached, o->reached);
    assert_int_equal(r->max_level, o->max_level);
    sg_error err = {0};
    if (sg_verify_bfs(g, r, &err) != SG_OK) fail_msg("%s: verify: %s", what, err.msg);
}

static uint64_t degree(const sg_graph *g, uint32_t v)
{
    return sg_graph_offsets(g)[v + 1] - sg_graph_offsets(g)[v];
}

/* Sum of the degrees of the vertices r reached: the edges an all-top-down
 * BFS looks at. */
static uint64_t reached_degrees(const sg_graph *g, const sg_bfs_result *r)
{
    uint64_t sum = 0;
    for (uint64_t v = 0; v < r->n_vertices; v++)
        if (r->level[v] != SG_NO_LEVEL) sum += degree(g, (uint32_t)v);
    return sum;
}

/* Every setting on one graph and source: thread counts 1/2/3, parents on
 * and off, default switching, all top-down (alpha 1) and all bottom-up
 * (alpha = beta = INT_MAX): identical levels, the oracle's, verified trees. */
static void check_all_settings(const sg_graph *g, uint32_t s, const char *name)
{
    char what[160];
    sg_graph_info info;
    sg_graph_get_info(g, &info);
    sg_bfs_result *o = oracle(g, s);
    for (int threads = 1; threads <= 3; threads++) {
        bfs_out b = run_bfs(g, s, threads != 1, threads, 0, 0);
        snprintf(what, sizeof what, "%s%s from %u, %d threads", name,
                 info.directed ? " (directed)" : "", s, threads);
        expect_same(g, b.r, o, what);
        if (info.directed) assert_int_equal(b.bu, 0);
        sg_bfs_free(b.r);
    }
    /* All top-down: one step per level plus the last, empty one; every
     * reached vertex's list is looked at exactly once. */
    bfs_out td = run_bfs(g, s, true, 2, 1, 0);
    snprintf(what, sizeof what, "%s%s from %u, top-down only", name, info.directed ? " (directed)" : "", s);
    expect_same(g, td.r, o, what);
    assert_int_equal(td.bu, 0);
    assert_int_equal(td.td, (uint64_t)o->max_level + 1);
    assert_int_equal(td.edges, reached_degrees(g, o));
    sg_bfs_free(td.r);
    /* All bottom-up (undirected with edges at the source; directed graphs
     * stay top-down whatever alpha says). */
    bfs_out bu = run_bfs(g, s, true, 3, INT_MAX, INT_MAX);
    snprintf(what, sizeof what, "%s%s from %u, bottom-up only", name, info.directed ? " (directed)" : "", s);
    expect_same(g, bu.r, o, what);
    if (info.directed) {
        assert_int_equal(bu.bu, 0);
    } else if (degree(g, s) > 0) {
        assert_int_equal(bu.td, 0);
        assert_int_equal(bu.bu, (uint64_t)o->max_level + 1);
        assert_true(bu.edges <= info.n_edges * ((uint64_t)o->max_level + 1));
    }
    sg_bfs_free(bu.r);
    sg_bfs_free(o);
}

/* ------------------------------------------------------------ families */

static void test_families(void **state)
{
    (void)state;
    for (int k = 0; k < TG_NKINDS; k++) {
        for (int d = 0; d < 2; d++) {
            const uint64_t n0 = k == TG_RMAT || k == TG_SSCA2 ? 512 : 301;
            sg_graph *g = tg_make((tg_kind)k, n0, 11 + (uint64_t)k, d, false);
            sg_graph_info info;
            sg_graph_get_info(g, &info);
            const uint64_t n = info.n_vertices;
            uint32_t sources[4] = {0, (uint32_t)(n / 2), (uint32_t)(n - 1), 0};
            sg_error err = {0};
            if (sg_graph_random_source(g, 5, &sources[3], &err) != SG_OK) sources[3] = 1;
            for (int i = 0; i < 4; i++) check_all_settings(g, sources[i], tg_name((tg_kind)k));
            sg_graph_free(g);
        }
    }
}

/* Larger graphs, 3 threads: parallel top-down steps whose thread-local
 * buffers flush many times (a star's centre claims every leaf in one step),
 * and R-MAT with the default switch taking both kinds of step. */
static void test_larger(void **state)
{
    (void)state;
    sg_graph *star = tg_make(TG_STAR, 30000, 3, false, false);
    check_all_settings(star, 0, "star");
    check_all_settings(star, 29999, "star");
    sg_graph_free(star);

    sg_graph *rnd = tg_make(TG_RANDOM, 30000, 4, false, false);
    check_all_settings(rnd, 7, "random");
    sg_graph_free(rnd);
    rnd = tg_make(TG_RANDOM, 30000, 4, true, false);
    check_all_settings(rnd, 7, "random");
    sg_graph_free(rnd);

    sg_graph *rm = tg_make(TG_RMAT, 1 << 14, 9, false, false);
    sg_error err = {0};
    uint32_t s = 0;
    assert_int_equal(sg_graph_random_source(rm, 1, &s, &err), SG_OK);
    check_all_settings(rm, s, "rmat");
    bfs_out b = run_bfs(rm, s, false, 3, 0, 0);
    assert_true(b.td > 0); /* the first step */
    assert_true(b.bu > 0); /* the wide middle of a skewed graph */
    assert_true(b.edges < sg_graph_offsets(rm)[1 << 14]); /* bottom-up stops early */
    sg_bfs_free(b.r);
    sg_graph_free(rm);
}

/* ------------------------------------------------------------ known shapes */

/* Hand-written levels, for both the BFS (every direction mode) and the
 * oracle, so the oracle is not only checked against itself. */
static void expect_levels(const sg_graph *g, uint32_t s, const uint32_t *level, const char *what)
{
    sg_graph_info info;
    sg_graph_get_info(g, &info);
    uint64_t reached = 0;
    uint32_t maxl = 0;
    for (uint64_t v = 0; v < info.n_vertices; v++)
        if (level[v] != SG_NO_LEVEL) {
            reached++;
            if (level[v] > maxl) maxl = level[v];
        }
    sg_bfs_result *o = oracle(g, s);
    bfs_out runs[3] = {run_bfs(g, s, true, 2, 0, 0), run_bfs(g, s, true, 2, 1, 0),
                       run_bfs(g, s, false, 3, INT_MAX, INT_MAX)};
    const sg_bfs_result *all[4] = {o, runs[0].r, runs[1].r, runs[2].r};
    for (int i = 0; i < 4; i++) {
        const sg_bfs_result *r = all[i];
        for (uint64_t v = 0; v < info.n_vertices; v++)
            if (r->level[v] != level[v])
                fail_msg("%s (result %d): vertex %llu level %u, expected %u", what, i,
                         (unsigned long long)v, r->level[v], level[v]);
        assert_int_equal(r->reached, reached);
        assert_int_equal(r->max_level, maxl);
        if (r->parent) {
            assert_int_equal(r->parent[s], s);
            for (uint64_t v = 0; v < info.n_vertices; v++)
                if (level[v] == SG_NO_LEVEL) assert_int_equal(r->parent[v], SG_NO_VERTEX);
        }
        sg_error err = {0};
        if (sg_verify_bfs(g, r, &err) != SG_OK) fail_msg("%s (result %d): %s", what, i, err.msg);
    }
    for (int i = 0; i < 3; i++) sg_bfs_free(runs[i].r);
    sg_bfs_free(o);
}

static void test_known_shapes(void **state)
{
    (void)state;
    uint32_t lv[200];

    /* A path: deep BFS; from an end, from the middle; directed, only forward.
     * 64, 65 and 130 vertices put the end at and past bitmap word edges. */
    const uint64_t sizes[] = {64, 65, 130};
    for (int i = 0; i < 3; i++) {
        const uint64_t n = sizes[i];
        sg_graph *p = tg_make(TG_PATH, n, 1, false, false);
        for (uint64_t v = 0; v < n; v++) lv[v] = (uint32_t)v;
        expect_levels(p, 0, lv, "path from 0");
        for (uint64_t v = 0; v < n; v++) lv[v] = (uint32_t)(v > 40 ? v - 40 : 40 - v);
        expect_levels(p, 40, lv, "path from 40");
        for (uint64_t v = 0; v < n; v++) lv[v] = (uint32_t)(n - 1 - v);
        expect_levels(p, (uint32_t)(n - 1), lv, "path from its end");
        bfs_out b = run_bfs(p, 0, true, 2, 0, 0);
        for (uint64_t v = 1; v < n; v++) assert_int_equal(b.r->parent[v], v - 1);
        sg_bfs_free(b.r);
        sg_graph_free(p);

        sg_graph *dp = tg_make(TG_PATH, n, 1, true, false);
        for (uint64_t v = 0; v < n; v++) lv[v] = v < 40 ? SG_NO_LEVEL : (uint32_t)(v - 40);
        expect_levels(dp, 40, lv, "directed path from 40");
        sg_graph_free(dp);
    }

    /* A star: the centre reaches every leaf at 1; a leaf reaches the centre
     * at 1 and the other leaves at 2, through the centre. */
    sg_graph *st = tg_make(TG_STAR, 150, 1, false, false);
    for (int v = 0; v < 150; v++) lv[v] = v == 0 ? 0 : 1;
    expect_levels(st, 0, lv, "star from the centre");
    for (int v = 0; v < 150; v++) lv[v] = v == 17 ? 0 : v == 0 ? 1 : 2;
    expect_levels(st, 17, lv, "star from a leaf");
    bfs_out b = run_bfs(st, 17, true, 3, 0, 0);
    for (uint32_t v = 0; v < 150; v++) assert_int_equal(b.r->parent[v], v == 17 ? 17u : v == 0 ? 17u : 0u);
    sg_bfs_free(b.r);
    sg_graph_free(st);

    /* Isolated vertices: a source without edges reaches only itself. */
    sg_graph *iso = tg_make(TG_ISOLATED, 150, 2, false, false);
    uint32_t s = 149;
    assert_int_equal(degree(iso, s), 0);
    for (int v = 0; v < 150; v++) lv[v] = v == (int)s ? 0 : SG_NO_LEVEL;
    expect_levels(iso, s, lv, "isolated source");
    sg_graph_free(iso);

    /* Repeated neighbours, self-loops, unsorted lists, and a second
     * component: 0-1 (three times), 1-1, 2-0, 1-2, 2-3 (twice), 3-3, 4-5. */
    const uint32_t eu[] = {0, 1, 1, 1, 2, 1, 3, 2, 3, 4, 0};
    const uint32_t ev[] = {1, 0, 1, 0, 0, 2, 2, 3, 3, 5, 1};
    const uint32_t ew[11] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    for (int d = 0; d < 2; d++) {
        sg_graph *h = tg_from_edges(7, 11, eu, ev, ew, d, false);
        const uint32_t und[7] = {0, 1, 1, 2, SG_NO_LEVEL, SG_NO_LEVEL, SG_NO_LEVEL};
        /* directed: 0->1, 1->0, 1->1, 1->0, 2->0, 1->2, 3->2, 2->3, 3->3, 4->5, 0->1 */
        const uint32_t dir[7] = {0, 1, 2, 3, SG_NO_LEVEL, SG_NO_LEVEL, SG_NO_LEVEL};
        expect_levels(h, 0, d ? dir : und, "repeats and self-loops");
        const uint32_t from4[7] = {SG_NO_LEVEL, SG_NO_LEVEL, SG_NO_LEVEL, SG_NO_LEVEL, 0, 1,
                                   SG_NO_LEVEL};
        expect_levels(h, 4, from4, "second component");
        const uint32_t from6[7] = {SG_NO_LEVEL, SG_NO_LEVEL, SG_NO_LEVEL, SG_NO_LEVEL,
                                   SG_NO_LEVEL, SG_NO_LEVEL, 0};
        expect_levels(h, 6, from6, "isolated vertex");
        sg_graph_free(h);
    }
}

/* ------------------------------------------------------------ tiny graphs */

static void test_tiny(void **state)
{
    (void)state;
    const uint64_t x1[2] = {0, 0}, xl[2] = {0, 1};
    const uint32_t loop[1] = {0};
    uint32_t zero = 0;
    for (int d = 0; d < 2; d++) {
        /* One vertex, with and without a self-loop. */
        for (int withloop = 0; withloop < 2; withloop++) {
            sg_graph *g = NULL;
            sg_error err = {0};
            assert_int_equal(sg_graph_from_arrays(1, withloop ? xl : x1, loop, NULL, SG_WEIGHT_U32,
                                                  d, &g, &err),
                             SG_OK);
            expect_levels(g, 0, &zero, "one vertex");
            sg_graph_free(g);
        }
        /* Ten vertices, no edges. */
        uint64_t x10[11] = {0};
        sg_graph *g = NULL;
        sg_error err = {0};
        assert_int_equal(sg_graph_from_arrays(10, x10, NULL, NULL, SG_WEIGHT_U32, d, &g, &err), SG_OK);
        uint32_t lv[10];
        for (int v = 0; v < 10; v++) lv[v] = v == 9 ? 0 : SG_NO_LEVEL;
        expect_levels(g, 9, lv, "no edges");
        sg_graph_free(g);
    }
}

/* ------------------------------------------------------------ errors */

static void test_errors(void **state)
{
    (void)state;
    sg_run *run = mkrun(2);
    sg_graph *g = tg_make(TG_RANDOM, 50, 1, false, false);
    sg_bfs_result *sentinel = (sg_bfs_result *)&state, *out = sentinel;
    sg_error err = {0};
    sg_bfs_options o = {.source = 50};
    assert_int_equal(sg_bfs(run, g, &o, &out, &err), SG_E_INVALID);
    assert_string_equal(err.msg, "source 50 is not a vertex: the graph has 50 vertices (0..49)");
    assert_ptr_equal(out, sentinel);
    o.source = UINT32_MAX;
    assert_int_equal(sg_bfs(run, g, &o, &out, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "source 4294967295 is not a vertex"));
    memset(&err, 0, sizeof err);
    assert_int_equal(sg_oracle_bfs(g, 50, &out, &err), SG_E_INVALID);
    assert_string_equal(err.msg, "source 50 is not a vertex: the graph has 50 vertices (0..49)");
    assert_ptr_equal(out, sentinel);

    o = (sg_bfs_options){.source = 0, .alpha = -1};
    assert_int_equal(sg_bfs(run, g, &o, &out, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "alpha -1"));
    o = (sg_bfs_options){.source = 0, .beta = -2};
    assert_int_equal(sg_bfs(run, g, &o, &out, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "beta -2"));
    assert_ptr_equal(out, sentinel);

    o = (sg_bfs_options){0};
    assert_int_equal(sg_bfs(NULL, g, &o, &out, &err), SG_E_INVALID);
    assert_int_equal(sg_bfs(run, NULL, &o, &out, &err), SG_E_INVALID);
    assert_int_equal(sg_bfs(run, g, NULL, &out, &err), SG_E_INVALID);
    assert_int_equal(sg_bfs(run, g, &o, NULL, &err), SG_E_INVALID);
    assert_int_equal(sg_oracle_bfs(NULL, 0, &out, &err), SG_E_INVALID);
    assert_int_equal(sg_verify_bfs(g, NULL, &err), SG_E_INVALID);
    assert_int_equal(sg_verify_bfs(NULL, NULL, NULL), SG_E_INVALID); /* err may be NULL */
    assert_ptr_equal(out, sentinel);
    sg_graph_free(g);

    /* No vertices: no source to start from. */
    const uint64_t x0[1] = {0};
    assert_int_equal(sg_graph_from_arrays(0, x0, NULL, NULL, SG_WEIGHT_U32, false, &g, &err), SG_OK);
    assert_int_equal(sg_bfs(run, g, &o, &out, &err), SG_E_INVALID);
    assert_string_equal(err.msg, "source 0 is not a vertex: the graph has no vertices");
    assert_int_equal(sg_oracle_bfs(g, 0, &out, &err), SG_E_INVALID);
    assert_string_equal(err.msg, "source 0 is not a vertex: the graph has no vertices");
    assert_ptr_equal(out, sentinel);
    sg_graph_free(g);
    sg_run_free(run);
    sg_bfs_free(NULL);
}

/* ------------------------------------------------------------ the verifier */

/* sg_verify_bfs must fail with SG_E_MISMATCH and a message holding `needle`. */
static void expect_mismatch(const sg_graph *g, const sg_bfs_result *r, const char *needle)
{
    sg_error err = {0};
    assert_int_equal(sg_verify_bfs(g, r, &err), SG_E_MISMATCH);
    if (!strstr(err.msg, needle)) fail_msg("expected \"%s\" in \"%s\"", needle, err.msg);
}

static void expect_verifies(const sg_graph *g, const sg_bfs_result *r)
{
    sg_error err = {0};
    if (sg_verify_bfs(g, r, &err) != SG_OK) fail_msg("verify: %s", err.msg);
}

/* True when v's list holds p. */
static bool adjacent(const sg_graph *g, uint32_t v, uint32_t p)
{
    const uint64_t *x = sg_graph_offsets(g);
    const uint32_t *a = sg_graph_neighbors(g);
    for (uint64_t e = x[v]; e < x[v + 1]; e++)
        if (a[e] == p) return true;
    return false;
}

static void test_verify_catches(void **state)
{
    (void)state;
    sg_graph *g = tg_make(TG_ISOLATED, 300, 6, false, false);
    const uint64_t n = 300;
    bfs_out b = run_bfs(g, 0, true, 2, 0, 0);
    sg_bfs_result *r = b.r;
    expect_verifies(g, r);
    assert_true(r->max_level >= 3);

    /* A vertex at level >= 2, an unreached one, and one at level - 1 that is
     * not its neighbour. */
    uint32_t v = SG_NO_VERTEX, un = SG_NO_VERTEX, far = SG_NO_VERTEX;
    for (uint32_t i = 0; i < n && v == SG_NO_VERTEX; i++)
        if (r->level[i] != SG_NO_LEVEL && r->level[i] >= 2) {
            for (uint32_t p = 0; p < n; p++)
                if (r->level[p] == r->level[i] - 1 && !adjacent(g, i, p)) {
                    v = i;
                    far = p;
                    break;
                }
        }
    for (uint32_t i = 0; i < n; i++)
        if (r->level[i] == SG_NO_LEVEL) {
            un = i;
            break;
        }
    assert_true(v != SG_NO_VERTEX && un != SG_NO_VERTEX && far != SG_NO_VERTEX);
    char needle[64];

    /* Levels. */
    r->level[v]++;
    snprintf(needle, sizeof needle, "vertex %u has level %u", v, r->level[v]);
    expect_mismatch(g, r, needle);
    r->level[v]--;
    r->level[un] = 2;
    snprintf(needle, sizeof needle, "vertex %u has level 2, the serial BFS says unreached", un);
    expect_mismatch(g, r, needle);
    r->level[un] = SG_NO_LEVEL;
    r->level[v] = SG_NO_LEVEL;
    snprintf(needle, sizeof needle, "vertex %u has level unreached", v);
    expect_mismatch(g, r, needle);
    r->level[v] = r->level[far] + 1;
    r->reached++;
    expect_mismatch(g, r, "reached");
    r->reached--;
    r->max_level++;
    expect_mismatch(g, r, "max_level");
    r->max_level--;
    expect_verifies(g, r);

    /* Parents. */
    const uint32_t pv = r->parent[v];
    r->parent[v] = far; /* right level, no edge */
    snprintf(needle, sizeof needle, "vertex %u has parent %u, but there is no edge", v, far);
    expect_mismatch(g, r, needle);
    r->parent[v] = v; /* wrong level */
    snprintf(needle, sizeof needle, "vertex %u at level %u has parent %u at level %u", v, r->level[v], v,
             r->level[v]);
    expect_mismatch(g, r, needle);
    r->parent[v] = un; /* unreached parent */
    snprintf(needle, sizeof needle, "has parent %u at level unreached", un);
    expect_mismatch(g, r, needle);
    r->parent[v] = SG_NO_VERTEX;
    snprintf(needle, sizeof needle, "vertex %u (level %u) has no parent", v, r->level[v]);
    expect_mismatch(g, r, needle);
    r->parent[v] = (uint32_t)n;
    expect_mismatch(g, r, "which is not a vertex");
    r->parent[v] = pv;
    r->parent[un] = 0;
    snprintf(needle, sizeof needle, "vertex %u is unreached but has parent 0", un);
    expect_mismatch(g, r, needle);
    r->parent[un] = SG_NO_VERTEX;
    r->parent[0] = r->parent[v];
    expect_mismatch(g, r, "the source 0 has parent");
    r->parent[0] = 0;
    expect_verifies(g, r);

    /* A result of another graph or source. */
    r->n_vertices = n - 1;
    expect_mismatch(g, r, "299 vertices");
    r->n_vertices = n;
    r->source = (uint32_t)n;
    expect_mismatch(g, r, "source 300 is not a vertex");
    r->source = 0;
    expect_verifies(g, r);
    sg_bfs_free(r);
    sg_graph_free(g);

    /* Directed: an edge in the wrong direction does not make a parent.
     * 0->1, 0->2, 1->3, 3->2: 3 is at level 2; 2 (level 1) has no edge to it. */
    const uint32_t du[] = {0, 0, 1, 3}, dv[] = {1, 2, 3, 2}, dw[] = {1, 1, 1, 1};
    sg_graph *dg = tg_from_edges(4, 4, du, dv, dw, true, false);
    b = run_bfs(dg, 0, true, 2, 0, 0);
    expect_verifies(dg, b.r);
    assert_int_equal(b.r->parent[3], 1);
    b.r->parent[3] = 2;
    expect_mismatch(dg, b.r, "vertex 3 has parent 2, but there is no edge 2 -> 3");
    sg_bfs_free(b.r);
    sg_graph_free(dg);

    /* A graph flagged undirected that breaks the contract (one-way edge 3->0):
     * the oracle's levels and tree hold, the level gap of that edge is caught. */
    const uint64_t x[5] = {0, 1, 3, 5, 7};
    const uint32_t a[7] = {1, 0, 2, 1, 3, 2, 0};
    sg_graph *bad = NULL;
    sg_error err = {0};
    assert_int_equal(sg_graph_from_arrays(4, x, a, NULL, SG_WEIGHT_U32, false, &bad, &err), SG_OK);
    sg_bfs_result *o = oracle(bad, 0);
    expect_mismatch(bad, o, "edge 3 - 0 joins levels 3 and 0");
    sg_bfs_free(o);
    sg_graph_free(bad);
}

/* ------------------------------------------------------------ searches into one result */

/* sg_bfs_into: searches from several sources into the first search's result
 * equal the oracle's each time, on every family (ties, repeats, self-loops,
 * isolated vertices, components), with and without parents; a result of
 * another shape is refused, naming what differs, and left as it was. */
static void test_into(void **state)
{
    (void)state;
    const long live0 = sgi_alloc_live();
    sg_run *run = mkrun(3);
    for (int kind = 0; kind < TG_NKINDS; kind++)
        for (int par = 0; par < 2; par++) {
            sg_graph *g = tg_make((tg_kind)kind, 300, 4, (kind + par) % 3 == 2, false);
            sg_graph_info info;
            sg_graph_get_info(g, &info);
            const uint64_t n = info.n_vertices;
            sg_error err = {0};
            sg_bfs_options o = {.source = 0, .want_parents = par != 0};
            sg_bfs_result *r = NULL;
            assert_int_equal(sg_bfs(run, g, &o, &r, &err), SG_OK);
            const uint32_t *level = r->level;
            for (uint32_t s = 1; s < n; s += (uint32_t)(n / 3) + 1) {
                o.source = s;
                char what[96];
                snprintf(what, sizeof what, "family %d, parents %d, into from %u", kind, par, s);
                assert_int_equal(sg_bfs_into(run, g, &o, r, &err), SG_OK);
                assert_ptr_equal(r->level, level); /* the same memory */
                assert_int_equal(r->source, s);
                sg_bfs_result *ref = oracle(g, s);
                expect_same(g, r, ref, what);
                sg_bfs_free(ref);
                assert_int_equal(counter(run, "work_reused"), 1); /* the run kept its arrays */
            }
            /* a search into a result, with the arrays kept, allocates nothing:
             * every allocation failing, it still succeeds (the record that
             * keeps the arrays again is the only one, and its failure frees them) */
            o.source = 1;
            sgi_alloc_fail_after(0);
            const sg_status st0 = sg_bfs_into(run, g, &o, r, &err);
            sgi_alloc_fail_after(-1);
            assert_int_equal(st0, SG_OK);
            expect_verifies(g, r);
            o.want_parents = par == 0; /* the other shape */
            o.source = 0;
            const uint32_t keep = r->source;
            assert_int_equal(sg_bfs_into(run, g, &o, r, &err), SG_E_INVALID);
            assert_non_null(strstr(err.msg, par ? "with parents" : "without parents"));
            assert_int_equal(r->source, keep);
            sg_bfs_free(r);
            sg_graph_free(g);
        }
    /* another vertex count; NULL */
    sg_graph *g1 = tg_make(TG_RANDOM, 40, 2, false, false), *g2 = tg_make(TG_RANDOM, 41, 2, false, false);
    sg_error err = {0};
    sg_bfs_options o = {.source = 1};
    sg_bfs_result *r = NULL;
    assert_int_equal(sg_bfs(run, g1, &o, &r, &err), SG_OK);
    assert_int_equal(sg_bfs_into(run, g2, &o, r, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "40 vertices"));
    assert_non_null(strstr(err.msg, "41"));
    assert_int_equal(sg_bfs_into(run, g1, &o, NULL, &err), SG_E_INVALID);
    o.source = 40;
    assert_int_equal(sg_bfs_into(run, g1, &o, r, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "not a vertex"));
    sg_bfs_free(r);
    sg_graph_free(g1);
    sg_graph_free(g2);
    sg_run_free(run); /* and the arrays it kept */
    assert_int_equal(sgi_alloc_live(), live0);
}

/* ------------------------------------------------------------ allocation failures */

/* Lets allocation k fail for k = 0, 1, 2, ... until the call succeeds:
 * every failure is SG_E_NOMEM with a message, leaves *out alone and frees
 * everything; the success verifies. mode 0: sg_bfs, 1: sg_oracle_bfs,
 * 2: sg_verify_bfs of `ref`. Returns the number of failures. */
static long alloc_loop(int mode, sg_run *run, const sg_graph *g, const sg_bfs_options *o,
                       const sg_bfs_result *ref)
{
    const long live = sgi_alloc_live();
    for (long k = 0;; k++) {
        sg_bfs_result *out = NULL;
        sg_error err = {0};
        sgi_alloc_fail_after(k);
        sg_status st = mode == 0   ? sg_bfs(run, g, o, &out, &err)
                       : mode == 1 ? sg_oracle_bfs(g, o->source, &out, &err)
                                   : sg_verify_bfs(g, ref, &err);
        sgi_alloc_fail_after(-1);
        if (st == SG_OK) {
            if (mode != 2) {
                assert_non_null(out);
                assert_true(o->want_parents || mode == 1 ? out->parent != NULL : out->parent == NULL);
                expect_verifies(g, out);
                sg_bfs_free(out);
            }
            assert_int_equal(sgi_alloc_live(), live);
            return k;
        }
        assert_int_equal(st, SG_E_NOMEM);
        assert_non_null(strstr(err.msg, "out of memory"));
        assert_null(out);
        assert_int_equal(sgi_alloc_live(), live);
        assert_true(k < 100);
    }
}

static void test_alloc_failures(void **state)
{
    (void)state;
    sg_graph *gu = tg_make(TG_RANDOM, 200, 8, false, false);
    sg_graph *gd = tg_make(TG_RANDOM, 200, 8, true, false);
    sg_run *run = mkrun(2);
    sg_bfs_options o = {.source = 3, .want_parents = true};
    /* result, its level and parent arrays, queue, buffers, 3 bitmaps */
    assert_int_equal(alloc_loop(0, run, gu, &o, NULL), 8);
    o.want_parents = false;
    assert_int_equal(alloc_loop(0, run, gu, &o, NULL), 7);
    assert_int_equal(alloc_loop(0, run, gd, &o, NULL), 4); /* no bitmaps */
    assert_int_equal(alloc_loop(1, run, gu, &o, NULL), 4); /* result, level, parent, queue */
    sg_bfs_result *ref = oracle(gu, 3);
    assert_int_equal(alloc_loop(2, run, gu, &o, ref), 5); /* the oracle's 4, the marks */
    sg_bfs_free(ref);
    ref = run_bfs(gd, 3, false, 2, 0, 0).r;
    assert_int_equal(alloc_loop(2, run, gd, &o, ref), 4); /* no parents: no marks */
    sg_bfs_free(ref);
    sg_run_free(run);
    sg_graph_free(gu);
    sg_graph_free(gd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_families),     cmocka_unit_test(test_larger),
        cmocka_unit_test(test_known_shapes), cmocka_unit_test(test_tiny),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_verify_catches),
        cmocka_unit_test(test_alloc_failures), cmocka_unit_test(test_into),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
