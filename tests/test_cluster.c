/* src/cluster.c: single-linkage clusters cut from a forest, checked by hand
 * on small graphs and against a plain recomputation on the test families. */
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

static sg_forest *forest_of(const sg_graph *g)
{
    sg_run_options o = {.backend = SG_BACKEND_CPU, .threads = 2};
    sg_run *r = NULL;
    sg_error err = {0};
    assert_int_equal(sg_run_create(&o, &r, &err), SG_OK);
    sg_forest *f = NULL;
    if (sg_mst(r, g, &f, &err) != SG_OK) fail_msg("sg_mst: %s", err.msg);
    sg_run_free(r);
    return f;
}

static sg_forest *forest_of_triples(uint64_t n, size_t ne, const uint32_t (*t)[3], bool f32)
{
    uint32_t u[64], v[64], w[64];
    assert_true(ne <= 64);
    for (size_t i = 0; i < ne; i++) u[i] = t[i][0], v[i] = t[i][1], w[i] = t[i][2];
    sg_graph *g = tg_from_edges(n, ne, u, v, w, false, f32);
    sg_forest *f = forest_of(g);
    sg_graph_free(g);
    return f;
}

static sg_clusters *cluster_ok(const sg_forest *f, uint64_t k, double threshold)
{
    sg_cluster_options o = {.k = k, .threshold = threshold};
    sg_clusters *c = NULL;
    sg_error err = {0};
    if (sg_cluster(NULL, f, &o, &c, &err) != SG_OK) fail_msg("sg_cluster: %s", err.msg);
    return c;
}

static void expect_labels(const sg_clusters *c, uint64_t n, const uint32_t *label, uint64_t nc,
                          const uint64_t *size)
{
    assert_int_equal(c->n_vertices, n);
    assert_int_equal(c->n_clusters, nc);
    for (uint64_t v = 0; v < n; v++) assert_int_equal(c->label[v], label[v]);
    for (uint64_t i = 0; i < nc; i++) assert_int_equal(c->size[i], size[i]);
}

/* The path 0-1-2-3-4 with weights 1, 5, 2, 9. */
static void test_path_by_hand(void **state)
{
    (void)state;
    static const uint32_t path[][3] = {{0, 1, 1}, {1, 2, 5}, {2, 3, 2}, {3, 4, 9}};
    sg_forest *f = forest_of_triples(5, 4, path, false);
    assert_int_equal(f->n_trees, 1);
    sg_clusters *c;

    c = cluster_ok(f, 1, 0);
    expect_labels(c, 5, (const uint32_t[]){0, 0, 0, 0, 0}, 1, (const uint64_t[]){5});
    assert_int_equal(c->cut_edges, 0);
    sg_clusters_free(c);

    c = cluster_ok(f, 2, 0); /* cut 9 */
    expect_labels(c, 5, (const uint32_t[]){0, 0, 0, 0, 1}, 2, (const uint64_t[]){4, 1});
    assert_int_equal(c->cut_edges, 1);
    sg_clusters_free(c);

    c = cluster_ok(f, 3, 0); /* cut 9 and 5 */
    expect_labels(c, 5, (const uint32_t[]){0, 0, 1, 1, 2}, 3, (const uint64_t[]){2, 2, 1});
    sg_clusters_free(c);

    c = cluster_ok(f, 5, 0); /* everything cut */
    expect_labels(c, 5, (const uint32_t[]){0, 1, 2, 3, 4}, 5, (const uint64_t[]){1, 1, 1, 1, 1});
    assert_int_equal(c->cut_edges, 4);
    sg_clusters_free(c);

    /* Threshold: strictly heavier edges are cut. */
    c = cluster_ok(f, 0, 4.0);
    expect_labels(c, 5, (const uint32_t[]){0, 0, 1, 1, 2}, 3, (const uint64_t[]){2, 2, 1});
    assert_int_equal(c->cut_edges, 2);
    sg_clusters_free(c);
    c = cluster_ok(f, 0, 5.0); /* 5 is not above 5 */
    expect_labels(c, 5, (const uint32_t[]){0, 0, 0, 0, 1}, 2, (const uint64_t[]){4, 1});
    sg_clusters_free(c);
    c = cluster_ok(f, 0, 9.0);
    assert_int_equal(c->n_clusters, 1);
    sg_clusters_free(c);
    c = cluster_ok(f, 0, 0.5);
    assert_int_equal(c->n_clusters, 5);
    sg_clusters_free(c);
    c = cluster_ok(f, 0, -INFINITY);
    assert_int_equal(c->n_clusters, 5);
    sg_clusters_free(c);

    /* k out of range. */
    sg_cluster_options o = {.k = 6};
    sg_error err = {0};
    c = NULL;
    assert_int_equal(sg_cluster(NULL, f, &o, &c, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "k = 6 is above"));
    assert_non_null(strstr(err.msg, "[1, 5]"));
    assert_null(c);
    o = (sg_cluster_options){.k = 0, .threshold = NAN};
    assert_int_equal(sg_cluster(NULL, f, &o, &c, &err), SG_E_INVALID);
    assert_null(c);
    assert_int_equal(sg_cluster(NULL, NULL, &o, &c, &err), SG_E_INVALID);
    assert_int_equal(sg_cluster(NULL, f, NULL, &c, &err), SG_E_INVALID);
    sg_forest_free(f);
}

/* Several trees; labels follow each cluster's smallest vertex, not tree or
 * edge order. */
static void test_trees_and_label_order(void **state)
{
    (void)state;
    /* Trees {0,3,5} (edges 3-5 w=8, 0-5 w=1), {1,4} (w=4), {2} alone, {6,7} (w=2). */
    static const uint32_t e[][3] = {{3, 5, 8}, {5, 0, 1}, {4, 1, 4}, {7, 6, 2}};
    sg_forest *f = forest_of_triples(8, 4, e, false);
    assert_int_equal(f->n_trees, 4);
    sg_clusters *c = cluster_ok(f, 4, 0);
    expect_labels(c, 8, (const uint32_t[]){0, 1, 2, 0, 1, 0, 3, 3}, 4,
                  (const uint64_t[]){3, 2, 1, 2});
    sg_clusters_free(c);
    c = cluster_ok(f, 5, 0); /* cut 3-5 (w=8): 3 is alone */
    expect_labels(c, 8, (const uint32_t[]){0, 1, 2, 3, 1, 0, 4, 4}, 5,
                  (const uint64_t[]){2, 2, 1, 1, 2});
    sg_clusters_free(c);
    c = cluster_ok(f, 6, 0); /* and 1-4 (w=4) */
    expect_labels(c, 8, (const uint32_t[]){0, 1, 2, 3, 4, 0, 5, 5}, 6,
                  (const uint64_t[]){2, 1, 1, 1, 1, 2});
    sg_clusters_free(c);

    sg_cluster_options o = {.k = 3};
    sg_error err = {0};
    c = NULL;
    assert_int_equal(sg_cluster(NULL, f, &o, &c, &err), SG_E_INVALID);
    assert_string_equal(err.msg, "k = 3 is below the forest's 4 trees; k must be in [4, 8]");
    assert_null(c);
    sg_forest_free(f);
}

/* Equal weights: the k - T heaviest by the tie rule (largest (u, v)) go. */
static void test_ties(void **state)
{
    (void)state;
    static const uint32_t star[][3] = {{0, 1, 3}, {0, 2, 3}, {0, 3, 3}, {0, 4, 3}};
    sg_forest *f = forest_of_triples(5, 4, star, false);
    sg_clusters *c = cluster_ok(f, 2, 0);
    expect_labels(c, 5, (const uint32_t[]){0, 0, 0, 0, 1}, 2, (const uint64_t[]){4, 1});
    sg_clusters_free(c);
    c = cluster_ok(f, 3, 0);
    expect_labels(c, 5, (const uint32_t[]){0, 0, 0, 1, 2}, 3, (const uint64_t[]){3, 1, 1});
    sg_clusters_free(c);
    sg_forest_free(f);

    /* f32 weights compare as numbers: -2.5 < 0.5 < 1.75. */
    const uint32_t fl[][3] = {{0, 1, fbits(1.75f)}, {1, 2, fbits(-2.5f)}, {2, 3, fbits(0.5f)}};
    f = forest_of_triples(4, 3, fl, true);
    c = cluster_ok(f, 2, 0);
    expect_labels(c, 4, (const uint32_t[]){0, 1, 1, 1}, 2, (const uint64_t[]){1, 3});
    sg_clusters_free(c);
    c = cluster_ok(f, 0, 0.0);
    expect_labels(c, 4, (const uint32_t[]){0, 1, 1, 2}, 3, (const uint64_t[]){1, 2, 1});
    sg_clusters_free(c);
    c = cluster_ok(f, 0, -3.0);
    assert_int_equal(c->n_clusters, 4);
    sg_clusters_free(c);
    sg_forest_free(f);
}

/* A forest handed in out of canonical order (and with u > v) clusters the
 * same; a forest that is not one is refused. */
static void test_foreign_forests(void **state)
{
    (void)state;
    sg_forest *f = sgi_forest_alloc(5, 4, SG_WEIGHT_U32);
    assert_non_null(f);
    static const uint32_t e[][3] = {{4, 3, 9}, {1, 0, 1}, {2, 1, 5}, {2, 3, 2}};
    for (int i = 0; i < 4; i++) f->u[i] = e[i][0], f->v[i] = e[i][1], f->w[i] = e[i][2];
    f->n_edges = 4;
    f->n_trees = 1;
    sg_clusters *c = cluster_ok(f, 3, 0);
    expect_labels(c, 5, (const uint32_t[]){0, 0, 1, 1, 2}, 3, (const uint64_t[]){2, 2, 1});
    sg_clusters_free(c);

    sg_cluster_options o = {.k = 1};
    sg_error err = {0};
    c = NULL;
    f->u[3] = 0; /* edges 1-0, 2-1 and 2-0 make a cycle */
    f->v[3] = 2;
    assert_int_equal(sg_cluster(NULL, f, &o, &c, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "cycle"));
    f->v[3] = 7;
    assert_int_equal(sg_cluster(NULL, f, &o, &c, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "not below n"));
    f->n_trees = 3;
    assert_int_equal(sg_cluster(NULL, f, &o, &c, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "not a forest"));
    assert_null(c);
    sg_forest_free(f);

    /* No vertices: threshold mode gives no clusters; k >= 1 is out of range. */
    f = sgi_forest_alloc(0, 0, SG_WEIGHT_U32);
    f->n_edges = 0;
    f->n_trees = 0;
    c = cluster_ok(f, 0, 1.0);
    assert_int_equal(c->n_clusters, 0);
    sg_clusters_free(c);
    c = NULL;
    assert_int_equal(sg_cluster(NULL, f, &o, &c, &err), SG_E_INVALID);
    sg_forest_free(f);
}

static uint32_t ufind(uint32_t *p, uint32_t x)
{
    while (p[x] != x) x = p[x];
    return x;
}

/* On the test families: for several k, exactly k clusters, sizes summing to
 * n, labels in first-vertex order, and the partition equal to a plain
 * union of the kept (lightest) forest edges. */
static void test_families(void **state)
{
    (void)state;
    sg_run_options ro = {.backend = SG_BACKEND_CPU, .threads = 3};
    sg_run *run = NULL;
    sg_error err = {0};
    assert_int_equal(sg_run_create(&ro, &run, &err), SG_OK);
    for (int k = 0; k < TG_NKINDS; k++)
        for (int f32 = 0; f32 < 2; f32++) {
            sg_graph *g = tg_make((tg_kind)k, 200, 7, false, f32);
            sg_forest *f = forest_of(g);
            const uint64_t n = f->n_vertices, T = f->n_trees;
            uint32_t *p = malloc(n * sizeof *p);
            uint32_t *first = malloc(n * sizeof *first);
            uint64_t ks[] = {T, T + 1, (T + n) / 2, n};
            for (int ki = 0; ki < 4; ki++) {
                sg_cluster_options o = {.k = ks[ki]};
                sg_clusters *c = NULL;
                double before = sg_run_seconds(run, SG_PHASE_COMPUTE);
                if (sg_cluster(run, f, &o, &c, &err) != SG_OK) fail_msg("%s", err.msg);
                assert_true(sg_run_seconds(run, SG_PHASE_COMPUTE) >= before);
                assert_int_equal(c->n_clusters, ks[ki]);
                assert_int_equal(c->cut_edges, ks[ki] - T);
                uint64_t sum = 0;
                for (uint64_t i = 0; i < c->n_clusters; i++) {
                    assert_true(c->size[i] > 0);
                    sum += c->size[i];
                }
                assert_int_equal(sum, n);
                for (uint64_t v = 0; v < n; v++) p[v] = (uint32_t)v;
                for (uint64_t i = 0; i + (ks[ki] - T) < f->n_edges; i++)
                    p[ufind(p, f->u[i])] = ufind(p, f->v[i]);
                /* Same partition: equal labels iff equal roots; label order. */
                uint32_t next = 0;
                for (uint64_t v = 0; v < n; v++) first[v] = UINT32_MAX;
                for (uint64_t v = 0; v < n; v++) {
                    uint32_t r = ufind(p, (uint32_t)v);
                    if (first[r] == UINT32_MAX) first[r] = next++;
                    assert_int_equal(c->label[v], first[r]);
                }
                assert_int_equal(next, c->n_clusters);
                sg_clusters_free(c);
            }
            free(p);
            free(first);
            sg_forest_free(f);
            sg_graph_free(g);
        }
    sg_run_free(run);
}

static void test_alloc_failures(void **state)
{
    (void)state;
    sg_graph *g = tg_make(TG_COMPONENTS, 300, 3, false, false);
    sg_forest *f = forest_of(g);
    /* A shuffled copy too, so the sorting path is exercised. */
    sg_forest *s = sgi_forest_alloc(f->n_vertices, f->n_edges, f->weight_type);
    assert_non_null(s);
    for (uint64_t i = 0; i < f->n_edges; i++) {
        uint64_t j = f->n_edges - 1 - i;
        s->u[i] = f->v[j], s->v[i] = f->u[j], s->w[i] = f->w[j];
    }
    s->n_edges = f->n_edges;
    s->n_trees = f->n_trees;
    sg_cluster_options o = {.k = f->n_trees + 7};
    for (int which = 0; which < 2; which++) {
        bool done = false;
        for (long k = 0; !done; k++) {
            assert_true(k < 100);
            long live = sgi_alloc_live();
            sg_clusters *c = NULL;
            sg_error err = {0};
            sgi_alloc_fail_after(k);
            sg_status st = sg_cluster(NULL, which ? s : f, &o, &c, &err);
            sgi_alloc_fail_after(-1);
            if (st == SG_OK) {
                done = true;
                assert_int_equal(c->n_clusters, o.k);
                sg_clusters_free(c);
            } else {
                assert_int_equal(st, SG_E_NOMEM);
                assert_null(c);
            }
            assert_int_equal(sgi_alloc_live(), live);
        }
    }
    sg_forest_free(s);
    sg_forest_free(f);
    sg_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_by_hand), cmocka_unit_test(test_trees_and_label_order),
        cmocka_unit_test(test_ties),         cmocka_unit_test(test_foreign_forests),
        cmocka_unit_test(test_families),     cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
