/* src/gen_ssca2.c, src/gen_uniform.c, src/gen_grid.c: determinism across
 * thread counts, store invariants, the exact lattice, hubs, SSCA2's clique
 * structure and mean degree, uniform edge counts, option errors, existing
 * outputs and allocation failures. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/internal.h" /* storage/ has an internal.h too */
#include "spillgraph.h"

enum kind { SSCA2, UNIFORM, GRID, HUBS, NKINDS };
static const char *const kind_name[] = {"ssca2", "uniform", "grid", "hubs"};

/* Options of each kind, at a small size, in one struct. */
typedef struct gopts {
    enum kind kind;
    sg_ssca2_options s;
    sg_uniform_options u;
    sg_grid_options g;
} gopts;

static gopts make(enum kind k, uint64_t seed, int threads)
{
    gopts o = {.kind = k};
    sg_ssca2_defaults(&o.s);
    o.s.scale = 10;
    o.s.seed = seed;
    o.s.threads = threads;
    sg_uniform_defaults(&o.u);
    o.u.scale = 10;
    o.u.seed = seed;
    o.u.threads = threads;
    sg_grid_defaults(&o.g);
    o.g.rows = 37;
    o.g.cols = 53;
    o.g.seed = seed;
    o.g.threads = threads;
    if (k == HUBS) {
        o.g.hubs = 0.02;
        o.g.hub_degree = 50;
    }
    return o;
}

static sg_status run_gen(const char *path, const gopts *o, sg_gen_report *rep, sg_error *err)
{
    switch (o->kind) {
    case SSCA2: return sg_gen_ssca2(path, &o->s, rep, err);
    case UNIFORM: return sg_gen_uniform(path, &o->u, rep, err);
    default: return sg_gen_grid(path, &o->g, rep, err);
    }
}

/* Generates into dir/name (asserting success) and reads the store back. */
static tu_graph gen(const char *dir, const char *name, const gopts *o, sg_gen_report *rep)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    sg_error err = {0};
    sg_gen_report r;
    sg_status st = run_gen(p, o, rep ? rep : &r, &err);
    if (st) fail_msg("gen %s %s: %s (%s)", kind_name[o->kind], p, err.msg, sg_status_name(st));
    return tu_read_store(p);
}

static uint64_t deg(const tu_graph *g, uint64_t v) { return g->x[v + 1] - g->x[v]; }

/* Position of u in v's list, or -1. */
static int64_t find_nbr(const tu_graph *g, uint64_t v, uint32_t u)
{
    uint64_t lo = g->x[v], hi = g->x[v + 1];
    while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        if (g->a[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->x[v + 1] && g->a[lo] == u ? (int64_t)lo : -1;
}

/* Canonical, symmetric with equal weights, weights in [1, maxw]. */
static void check_invariants(const tu_graph *g, uint32_t maxw)
{
    assert_false(g->directed);
    for (uint64_t v = 0; v < g->n; v++)
        for (uint64_t k = g->x[v]; k < g->x[v + 1]; k++) {
            const uint32_t u = g->a[k];
            assert_true(u < g->n);
            assert_true(u != v);
            if (k > g->x[v]) assert_true(g->a[k - 1] < u);
            assert_true(g->w[k] >= 1 && g->w[k] <= maxw);
            const int64_t back = find_nbr(g, u, (uint32_t)v);
            assert_true(back >= 0);
            assert_int_equal(g->w[back], g->w[k]);
        }
}

static void store_checks(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    sg_store *s = NULL;
    sg_error err = {0};
    assert_int_equal(sg_store_open(p, &s, &err), SG_OK);
    sg_check_report rep;
    if (sg_store_check(s, NULL, &rep, &err) != SG_OK) fail_msg("check %s: %s", p, err.msg);
    assert_true(rep.symmetry_checked);
    sg_store_close(s);
}

/* ---------------------------------------------------------------- all kinds */

static void same_graph_on_any_thread_count(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("gen-det");
    for (int k = 0; k < NKINDS; k++) {
        tu_graph g[3];
        for (int t = 1; t <= 3; t++) {
            gopts o = make((enum kind)k, 7, t);
            o.s.store.block_bytes = o.u.store.block_bytes = o.g.store.block_bytes = 4096;
            char name[32];
            snprintf(name, sizeof name, "%s-t%d", kind_name[k], t);
            g[t - 1] = gen(dir, name, &o, NULL);
            store_checks(dir, name);
        }
        assert_true(g[0].m > 0);
        if (!tu_graph_equal(&g[0], &g[1]) || !tu_graph_equal(&g[0], &g[2]))
            fail_msg("%s: the graph depends on the thread count", kind_name[k]);
        gopts o = make((enum kind)k, 8, 2);
        char name[32];
        snprintf(name, sizeof name, "%s-seed8", kind_name[k]);
        tu_graph h = gen(dir, name, &o, NULL);
        if (tu_graph_equal(&g[0], &h)) fail_msg("%s: seeds 7 and 8 give one graph", kind_name[k]);
        for (int t = 0; t < 3; t++) tu_graph_free(&g[t]);
        tu_graph_free(&h);
    }
    tu_rm_rf(dir);
    free(dir);
}

static void stores_hold_canonical_graphs(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("gen-inv");
    for (int k = 0; k < NKINDS; k++) {
        gopts o = make((enum kind)k, 3, 2);
        o.s.max_weight = o.u.max_weight = o.g.max_weight = 5;
        sg_gen_report rep;
        tu_graph g = gen(dir, kind_name[k], &o, &rep);
        check_invariants(&g, 5);
        store_checks(dir, kind_name[k]);
        assert_int_equal(rep.n_vertices, g.n);
        assert_int_equal(rep.n_edges, g.m);
        assert_true(rep.generated >= g.m / 2);
        assert_int_equal(rep.generated, rep.self_loops + rep.duplicates + g.m / 2);
        uint64_t seen[6] = {0};
        for (uint64_t e = 0; e < g.m; e++) seen[g.w[e]]++;
        for (int w = 1; w <= 5; w++) assert_true(seen[w] > g.m / 10);

        /* the manifest says how it was made */
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, kind_name[k]);
        sg_store *s = NULL;
        sg_error err = {0};
        assert_int_equal(sg_store_open(p, &s, &err), SG_OK);
        sg_store_info info;
        sg_store_get_info(s, &info);
        const char *want = k == SSCA2     ? "spillgraph gen ssca2 --scale 10 --max-clique-size 48"
                           : k == UNIFORM ? "spillgraph gen uniform --scale 10 --edge-factor 16"
                           : k == GRID    ? "spillgraph gen grid --rows 37 --cols 53 --seed 3"
                                          : "--hubs 0.02 --hub-degree 50";
        if (!strstr(info.creator, want)) fail_msg("creator '%s' lacks '%s'", info.creator, want);
        sg_store_close(s);
        tu_graph_free(&g);
    }
    tu_rm_rf(dir);
    free(dir);
}

/* ---------------------------------------------------------------- grid */

static void lattice_is_exact(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("gen-grid");
    /* shapes: paths, one vertex, and one over 2^20 vertices (several slices) */
    const uint64_t shapes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {37, 53}, {1030, 1031}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        gopts o = make(GRID, 11 + s, 2);
        o.g.rows = shapes[s][0];
        o.g.cols = shapes[s][1];
        o.g.max_weight = 1000;
        char name[32];
        snprintf(name, sizeof name, "g%zu", s);
        sg_gen_report rep;
        tu_graph g = gen(dir, name, &o, &rep);
        const uint64_t R = o.g.rows, C = o.g.cols;
        assert_int_equal(g.n, R * C);
        const uint64_t und = R * (C - 1) + (R - 1) * C;
        assert_int_equal(g.m, 2 * und);
        assert_int_equal(rep.generated, und);
        assert_int_equal(rep.self_loops + rep.duplicates, 0);
        uint64_t wsum = 0;
        for (uint64_t r = 0; r < R; r++)
            for (uint64_t c = 0; c < C; c++) {
                const uint64_t v = r * C + c;
                uint64_t want[4], nw = 0;
                if (r > 0) want[nw++] = v - C;
                if (c > 0) want[nw++] = v - 1;
                if (c + 1 < C) want[nw++] = v + 1;
                if (r + 1 < R) want[nw++] = v + C;
                if (deg(&g, v) != nw)
                    fail_msg("%llux%llu: vertex (%llu, %llu) has degree %llu, want %llu",
                             (unsigned long long)R, (unsigned long long)C, (unsigned long long)r,
                             (unsigned long long)c, (unsigned long long)deg(&g, v),
                             (unsigned long long)nw);
                for (uint64_t k = 0; k < nw; k++) {
                    assert_int_equal(g.a[g.x[v] + k], want[k]);
                    assert_true(g.w[g.x[v] + k] >= 1 && g.w[g.x[v] + k] <= 1000);
                    wsum += g.w[g.x[v] + k];
                }
            }
        /* corners 2, borders 3, inside 4 (for shapes of at least 2 x 2) */
        if (R >= 2 && C >= 2) {
            assert_int_equal(deg(&g, 0), 2);
            assert_int_equal(deg(&g, R * C - 1), 2);
            if (C >= 3) assert_int_equal(deg(&g, 1), 3);
            if (R >= 3 && C >= 3) assert_int_equal(deg(&g, C + 1), 4);
        }
        if (g.m > 1000) { /* weights look uniform: mean near 500.5 */
            const double mean = (double)wsum / (double)g.m;
            assert_true(fabs(mean - 500.5) < 25);
        }
        if (s == sizeof shapes / sizeof *shapes - 1) {
            check_invariants(&g, 1000);
            store_checks(dir, name);
        }
        tu_graph_free(&g);
    }
    tu_rm_rf(dir);
    free(dir);
}

static void hubs_get_extra_neighbours(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("gen-hubs");
    gopts o = make(HUBS, 5, 3);
    o.g.rows = 64;
    o.g.cols = 64;
    o.g.hubs = 0.01;
    o.g.hub_degree = 100;
    sg_gen_report rep;
    tu_graph g = gen(dir, "h", &o, &rep);
    const uint64_t n = 4096, H = 41; /* round(0.01 * 4096) */
    check_invariants(&g, 1u << 20);
    assert_int_equal(rep.generated, 2 * 64 * 63 + H * 100);

    /* the hubs are distinct, and exactly they have a high degree */
    uint8_t *is_hub = calloc(n, 1);
    for (uint64_t j = 0; j < H; j++) {
        const uint32_t h = sgi_grid_hub(&o.g, j);
        assert_true(h < n);
        assert_int_equal(is_hub[h], 0);
        is_hub[h] = 1;
        assert_true(deg(&g, h) >= 95);
    }
    uint64_t high = 0, other_sum = 0;
    for (uint64_t v = 0; v < n; v++) {
        if (deg(&g, v) >= 50) high++;
        if (deg(&g, v) >= 50) assert_true(is_hub[v]);
        if (!is_hub[v]) other_sum += deg(&g, v);
    }
    assert_int_equal(high, H);
    /* others: about 4 lattice neighbours + H * 100 / n from the hubs' draws */
    const double other_mean = (double)other_sum / (double)(n - H);
    assert_true(other_mean > 4.2 && other_mean < 5.8);

    /* the lattice is still there, with the plain lattice's weights or, where
     * a hub draw repeated a lattice edge, a lighter one */
    gopts p = o;
    p.g.hubs = 0;
    tu_graph plain = gen(dir, "plain", &p, NULL);
    for (uint64_t v = 0; v < n; v++)
        for (uint64_t k = plain.x[v]; k < plain.x[v + 1]; k++) {
            const int64_t at = find_nbr(&g, v, plain.a[k]);
            assert_true(at >= 0);
            assert_true(g.w[at] <= plain.w[k]);
        }
    /* a fraction that rounds to no hub is the plain lattice */
    p.g.hubs = 0.0001;
    p.g.hub_degree = 100;
    tu_graph none = gen(dir, "none", &p, NULL);
    assert_true(tu_graph_equal(&none, &plain));

    /* the hub choice is a bijection onto the lattice for odd sizes too */
    sg_grid_options b = o.g;
    b.rows = 7;
    b.cols = 13;
    uint8_t seen[91] = {0};
    for (uint64_t j = 0; j < 91; j++) {
        const uint32_t h = sgi_grid_hub(&b, j);
        assert_true(h < 91);
        assert_int_equal(seen[h], 0);
        seen[h] = 1;
    }
    free(is_hub);
    tu_graph_free(&g);
    tu_graph_free(&plain);
    tu_graph_free(&none);
    tu_rm_rf(dir);
    free(dir);
}

/* ---------------------------------------------------------------- SSCA2 */

/* Triangles and wedges (paths of length 2) of an undirected graph. */
static void triangles(const tu_graph *g, uint64_t *tri, uint64_t *wedges)
{
    uint64_t t = 0, w = 0;
    for (uint64_t v = 0; v < g->n; v++) {
        const uint64_t d = deg(g, v);
        w += d * (d - (d > 0)) / 2;
        for (uint64_t k = g->x[v]; k < g->x[v + 1]; k++) {
            const uint32_t u = g->a[k];
            if (u <= v) continue;
            /* common neighbours above u */
            uint64_t i = g->x[v], j = g->x[u];
            while (i < g->x[v + 1] && j < g->x[u + 1]) {
                if (g->a[i] < g->a[j])
                    i++;
                else if (g->a[i] > g->a[j])
                    j++;
                else {
                    t += g->a[i] > u;
                    i++;
                    j++;
                }
            }
        }
    }
    *tri = t;
    *wedges = w;
}

static void ssca2_has_cliques_and_degree_32(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("gen-ssca2");
    for (unsigned scale = 12; scale <= 13; scale++) {
        gopts o = make(SSCA2, scale, 2);
        o.s.scale = scale;
        sg_gen_report rep;
        tu_graph g = gen(dir, scale == 12 ? "s12" : "s13", &o, &rep);
        const double mean = (double)g.m / (double)g.n;
        print_message("ssca2 scale %u: mean degree %.2f, %llu duplicates\n", scale, mean,
                      (unsigned long long)rep.duplicates);
        if (fabs(mean - 32.0) > 8.0) fail_msg("scale %u: mean degree %.2f", scale, mean);
        uint64_t tri, wedges;
        triangles(&g, &tri, &wedges);
        const double cc = 3.0 * (double)tri / (double)wedges;
        print_message("ssca2 scale %u: %llu triangles, clustering %.3f\n", scale,
                      (unsigned long long)tri, cc);
        assert_true(cc > 0.5);
        assert_true(tri > g.n * 50);
        tu_graph_free(&g);
    }
    /* a uniform graph of the same density has almost no triangles */
    gopts u = make(UNIFORM, 1, 2);
    u.u.scale = 12;
    tu_graph g = gen(dir, "u12", &u, NULL);
    uint64_t tri, wedges;
    triangles(&g, &tri, &wedges);
    assert_true(3.0 * (double)tri / (double)wedges < 0.05);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

/* The store is exactly the edges the pure edge function draws; without the
 * permutation, intra-clique edges join runs of consecutive ids of at most
 * max_clique_size and inter-clique edges join vertices 2^k apart. */
static void ssca2_store_is_its_edge_function(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("gen-ssca2-ref");
    for (int permute = 0; permute <= 1; permute++) {
        gopts o = make(SSCA2, 21, 3);
        o.s.scale = 8;
        o.s.max_clique_size = 12;
        o.s.inter_prob = 0.7;
        o.s.permute = permute;
        uint64_t m = 0;
        uint32_t u, v, w;
        assert_true(sgi_ssca2_edge(&o.s, 0, &u, &v, &w, &m));
        assert_true(m > 256 * 8);
        uint32_t (*e)[3] = malloc(m * sizeof *e);
        uint64_t made = 0, intra = 0;
        for (uint64_t i = 0; i < m; i++) {
            assert_true(sgi_ssca2_edge(&o.s, i, &e[i][0], &e[i][1], &e[i][2], NULL));
            if (e[i][0] == e[i][1]) {
                assert_true(i >= m - 256 * 8); /* only draws make no edge */
                continue;
            }
            made++;
            if (i < m - 256 * 8) intra++;
            if (!permute) {
                const uint32_t a = e[i][0], b = e[i][1];
                if (i < m - 256 * 8) {
                    assert_true(a < b && b - a < 12); /* one clique: a run */
                } else {
                    const uint32_t d = (b - a) & 255; /* mod n */
                    assert_true(d != 0 && (d & (d - 1)) == 0);
                }
            }
        }
        tu_graph ref = tu_graph_from_edges(256, m, (const uint32_t(*)[3])e, false);
        free(e);
        char name[16];
        snprintf(name, sizeof name, "p%d", permute);
        sg_gen_report rep;
        tu_graph got = gen(dir, name, &o, &rep);
        assert_true(tu_graph_equal(&got, &ref));
        assert_int_equal(rep.generated, made);
        assert_int_equal(rep.self_loops, 0);
        assert_int_equal(rep.generated, rep.duplicates + got.m / 2);
        assert_true(intra > made / 2);
        tu_graph_free(&ref);
        tu_graph_free(&got);
    }
    /* permuting the labels gives an isomorphic graph: same degree multiset */
    gopts a = make(SSCA2, 4, 2), b = make(SSCA2, 4, 2);
    b.s.permute = false;
    tu_graph ga = gen(dir, "perm", &a, NULL), gb = gen(dir, "noperm", &b, NULL);
    assert_int_equal(ga.m, gb.m);
    assert_false(tu_graph_equal(&ga, &gb));
    uint64_t ha[512] = {0}, hb[512] = {0};
    for (uint64_t v = 0; v < ga.n; v++) {
        ha[deg(&ga, v) < 511 ? deg(&ga, v) : 511]++;
        hb[deg(&gb, v) < 511 ? deg(&gb, v) : 511]++;
    }
    assert_memory_equal(ha, hb, sizeof ha);
    /* without the permutation every vertex is joined to the next (distance
     * 1 has probability p^0 = 1: inside a clique or across its end) */
    for (uint64_t v = 0; v + 1 < gb.n; v++) assert_true(find_nbr(&gb, v, (uint32_t)(v + 1)) >= 0);
    tu_graph_free(&ga);
    tu_graph_free(&gb);
    tu_rm_rf(dir);
    free(dir);
}

/* ---------------------------------------------------------------- uniform */

static void uniform_counts(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("gen-unif");
    gopts o = make(UNIFORM, 9, 2);
    o.u.scale = 12;
    o.u.edge_factor = 4;
    sg_gen_report rep;
    tu_graph g = gen(dir, "u", &o, &rep);
    const uint64_t n = 4096, m = 4 * n;
    assert_int_equal(rep.generated, m);
    assert_int_equal(rep.n_edges, g.m);
    assert_int_equal(rep.generated, rep.self_loops + rep.duplicates + g.m / 2);
    /* expected: m / n = 4 self-loops, about m^2 / n^2 = 16 repeats */
    assert_true(rep.self_loops <= 20);
    assert_true(rep.duplicates >= 2 && rep.duplicates <= 45);
    assert_true(g.m / 2 > m - 60);
    /* degrees are binomial around 8: no hubs, few isolated vertices */
    uint64_t maxd = 0, isolated = 0;
    for (uint64_t v = 0; v < n; v++) {
        if (deg(&g, v) > maxd) maxd = deg(&g, v);
        isolated += deg(&g, v) == 0;
    }
    assert_true(maxd < 30);
    assert_true(isolated < 10); /* n e^-8 = 1.4 expected */
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

/* ---------------------------------------------------------------- errors */

static void bad_options_are_rejected(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("gen-bad");
    char path[512];
    snprintf(path, sizeof path, "%s/out", dir);
    const struct {
        enum kind k;
        int c;
        const char *msg;
    } cases[] = {
        {SSCA2, 0, "scale 0"},           {SSCA2, 1, "scale 33"},
        {SSCA2, 2, "max clique size 0"}, {SSCA2, 3, "max clique size 65537"},
        {SSCA2, 4, "probability -0.5"},  {SSCA2, 5, "probability nan"},
        {SSCA2, 6, "max weight 0"},      {SSCA2, 7, "threads -1"},
        {UNIFORM, 0, "scale 0"},         {UNIFORM, 1, "edge factor 0"},
        {UNIFORM, 2, "edge factor 2147483648 at scale 32"},
        {UNIFORM, 3, "max weight 0"},    {UNIFORM, 4, "scale 40"},
        {GRID, 0, "0 rows"},             {GRID, 1, "x 0 columns"},
        {GRID, 2, "at most 2^32 vertices"}, {GRID, 3, "hub fraction 1.5"},
        {GRID, 4, "hub fraction -0.1"},  {GRID, 5, "hub degree must be at least 1"},
        {GRID, 6, "max weight 0"},       {GRID, 7, "at most 2^32 vertices"},
        {GRID, 8, "hub fraction inf"},   {GRID, 9, "block"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gopts o = make(cases[i].k, 1, 0);
        const int c = cases[i].c;
        switch (cases[i].k) {
        case SSCA2:
            if (c == 0) o.s.scale = 0;
            if (c == 1) o.s.scale = 33;
            if (c == 2) o.s.max_clique_size = 0;
            if (c == 3) o.s.max_clique_size = 65537;
            if (c == 4) o.s.inter_prob = -0.5;
            if (c == 5) o.s.inter_prob = NAN;
            if (c == 6) o.s.max_weight = 0;
            if (c == 7) o.s.threads = -1;
            break;
        case UNIFORM:
            if (c == 0) o.u.scale = 0;
            if (c == 1) o.u.edge_factor = 0;
            if (c == 2) { o.u.scale = 32; o.u.edge_factor = 1u << 31; }
            if (c == 3) o.u.max_weight = 0;
            if (c == 4) o.u.scale = 40;
            break;
        default:
            if (c == 0) o.g.rows = 0;
            if (c == 1) o.g.cols = 0;
            if (c == 2) { o.g.rows = 1u << 16; o.g.cols = (1u << 16) + 1; }
            if (c == 3) o.g.hubs = 1.5;
            if (c == 4) o.g.hubs = -0.1;
            if (c == 5) { o.g.hubs = 0.5; o.g.hub_degree = 0; }
            if (c == 6) o.g.max_weight = 0;
            if (c == 7) { o.g.rows = UINT64_MAX; o.g.cols = 2; } /* product overflows */
            if (c == 8) o.g.hubs = INFINITY;
            if (c == 9) o.g.store.block_bytes = 3; /* the writer's own check */
            break;
        }
        sg_error err = {0};
        sg_gen_report rep = {.n_vertices = 12345};
        const sg_status st = run_gen(path, &o, &rep, &err);
        if (st != SG_E_INVALID) fail_msg("case %zu: got %s", i, sg_status_name(st));
        if (!strstr(err.msg, cases[i].msg))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err.msg, cases[i].msg);
        assert_int_equal(rep.n_vertices, 12345); /* untouched */
        assert_false(tu_exists(path));
    }
    sg_ssca2_options s;
    sg_ssca2_defaults(&s);
    s.scale = 5;
    sg_uniform_options u;
    sg_uniform_defaults(&u);
    u.scale = 5;
    sg_grid_options g;
    sg_grid_defaults(&g);
    g.rows = g.cols = 3;
    sg_error err = {0};
    assert_int_equal(sg_gen_ssca2(NULL, &s, NULL, &err), SG_E_INVALID);
    assert_int_equal(sg_gen_ssca2(path, NULL, NULL, &err), SG_E_INVALID);
    assert_int_equal(sg_gen_uniform("", &u, NULL, &err), SG_E_INVALID);
    assert_int_equal(sg_gen_uniform(path, NULL, NULL, &err), SG_E_INVALID);
    assert_int_equal(sg_gen_grid(NULL, &g, NULL, &err), SG_E_INVALID);
    assert_int_equal(sg_gen_grid(path, NULL, NULL, &err), SG_E_INVALID);
    /* the defaults need only the size */
    assert_int_equal(sg_gen_grid(path, &g, NULL, &err), SG_OK);
    assert_true(tu_exists(path));
    /* an existing store needs force, checked before any work */
    const long allocs = sgi_alloc_count();
    assert_int_equal(sg_gen_ssca2(path, &s, NULL, &err), SG_E_EXISTS);
    assert_int_equal(sg_gen_uniform(path, &u, NULL, &err), SG_E_EXISTS);
    g.hubs = 0.5;
    g.hub_degree = 2;
    assert_int_equal(sg_gen_grid(path, &g, NULL, &err), SG_E_EXISTS);
    assert_non_null(strstr(err.msg, path));
    assert_true(sgi_alloc_count() - allocs < 24);
    s.store.force = true;
    assert_int_equal(sg_gen_ssca2(path, &s, NULL, &err), SG_OK);
    assert_int_equal(tu_dir_entries(dir), 1);
    tu_rm_rf(dir);
    free(dir);
}

static void allocation_failures_leave_nothing(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("gen-nomem");
    char path[512];
    snprintf(path, sizeof path, "%s/out", dir);
    for (int k = 0; k < NKINDS; k++) {
        gopts o = make((enum kind)k, 4, 2);
        o.s.scale = o.u.scale = 6;
        o.g.rows = 9;
        o.g.cols = 7;
        const long live = sgi_alloc_live();
        long n = 0;
        for (;; n++) {
            sg_error err = {0};
            sgi_alloc_fail_after(n);
            const sg_status st = run_gen(path, &o, NULL, &err);
            sgi_alloc_fail_after(-1);
            if (st == SG_OK) break;
            if (st != SG_E_NOMEM)
                fail_msg("%s, failing allocation %ld: %s (%s)", kind_name[k], n, err.msg,
                         sg_status_name(st));
            assert_true(strlen(err.msg) > 0);
            assert_int_equal(sgi_alloc_live(), live);
            assert_int_equal(tu_dir_entries(dir), 0);
            assert_true(n < 100000);
        }
        assert_true(n > 3);
        assert_int_equal(sgi_alloc_live(), live);
        tu_graph got = tu_read_store(path);
        tu_graph want = gen(dir, "again", &o, NULL);
        assert_true(tu_graph_equal(&got, &want));
        tu_graph_free(&got);
        tu_graph_free(&want);
        tu_rm_rf(dir);
        free(dir);
        dir = tu_tmpdir("gen-nomem");
        snprintf(path, sizeof path, "%s/out", dir);
    }
    tu_rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_graph_on_any_thread_count),
        cmocka_unit_test(stores_hold_canonical_graphs),
        cmocka_unit_test(lattice_is_exact),
        cmocka_unit_test(hubs_get_extra_neighbours),
        cmocka_unit_test(ssca2_has_cliques_and_degree_32),
        cmocka_unit_test(ssca2_store_is_its_edge_function),
        cmocka_unit_test(uniform_counts),
        cmocka_unit_test(bad_options_are_rejected),
        cmocka_unit_test(allocation_failures_leave_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
