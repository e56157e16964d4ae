/* sg_store_renumber (src/renumber.c): the rewritten store is exactly the
 * input under the degree and breadth-first orders (computed here
 * independently: a sort, a serial queue), on directed and undirected graphs
 * with isolated vertices, several components, degree ties, a list longer
 * than the short-list sort and f32 weights; sgi_bfs_order's parallel levels
 * give the serial queue's order; and the refusals leave nothing behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/internal.h"
#include "spillgraph.h"
#include "testutil.h"

typedef struct {
    uint64_t deg, v;
} dv;

static int by_deg_desc(const void *a, const void *b)
{
    const dv *x = a, *y = b;
    if (x->deg != y->deg) return x->deg > y->deg ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

static int by_deg_asc(const void *a, const void *b)
{
    const dv *x = a, *y = b;
    if (x->deg != y->deg) return x->deg < y->deg ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* The breadth-first order by a plain queue: seq[i] = the i-th vertex
 * reached, searching from each unreached vertex in id order. */
static void queue_order(const tu_graph *g, uint32_t *seq)
{
    bool *seen = calloc(g->n ? g->n : 1, 1);
    assert_non_null(seen);
    uint64_t tail = 0;
    for (uint64_t r = 0; r < g->n; r++) {
        if (seen[r]) continue;
        seen[r] = true;
        uint64_t head = tail;
        seq[tail++] = (uint32_t)r;
        while (head < tail) {
            const uint32_t v = seq[head++];
            for (uint64_t p = g->x[v]; p < g->x[v + 1]; p++)
                if (!seen[g->a[p]]) {
                    seen[g->a[p]] = true;
                    seq[tail++] = g->a[p];
                }
        }
    }
    assert_int_equal(tail, g->n);
    free(seen);
}

/* g relabelled by the order, built through tu_graph_from_edges. */
static tu_graph expected(const tu_graph *g, sg_renumber_order order)
{
    dv *r = malloc(g->n * sizeof *r);
    uint32_t *nid = malloc(g->n * sizeof *nid);
    uint32_t(*e)[3] = malloc((g->m + 1) * sizeof *e);
    assert_non_null(r);
    assert_non_null(nid);
    assert_non_null(e);
    if (order == SG_ORDER_NONE) {
        for (uint64_t v = 0; v < g->n; v++) nid[v] = (uint32_t)v;
    } else if (order == SG_ORDER_BFS || order == SG_ORDER_BFS_REV) {
        uint32_t *seq = malloc(g->n * sizeof *seq);
        assert_non_null(seq);
        queue_order(g, seq);
        for (uint64_t i = 0; i < g->n; i++)
            nid[seq[i]] = (uint32_t)(order == SG_ORDER_BFS ? i : g->n - 1 - i);
        free(seq);
    } else {
        for (uint64_t v = 0; v < g->n; v++) r[v] = (dv){g->x[v + 1] - g->x[v], v};
        qsort(r, g->n, sizeof *r, order == SG_ORDER_DEGREE_DESC ? by_deg_desc : by_deg_asc);
        for (uint64_t i = 0; i < g->n; i++) nid[r[i].v] = (uint32_t)i;
    }
    size_t k = 0;
    for (uint64_t v = 0; v < g->n; v++)
        for (uint64_t p = g->x[v]; p < g->x[v + 1]; p++)
            if (g->directed || v < g->a[p]) {
                e[k][0] = nid[v];
                e[k][1] = nid[g->a[p]];
                e[k][2] = g->w[p];
                k++;
            }
    tu_graph out = tu_graph_from_edges(g->n, k, (const uint32_t(*)[3])e, g->directed);
    free(r);
    free(nid);
    free(e);
    return out;
}

/* A random graph on n vertices (the last ten isolated) plus a hub: vertex
 * 3 joined to vertices 4..153 (longer than the 64-entry list sort); n > 160. */
static tu_graph make(uint64_t n, uint64_t ne, bool directed, uint64_t seed)
{
    assert_true(n > 160);
    tu_graph r = tu_random_graph(n - 10, ne, 50, seed, directed);
    const size_t extra = 150;
    uint32_t(*e)[3] = malloc((r.m + extra) * sizeof *e);
    assert_non_null(e);
    size_t k = 0;
    for (uint64_t v = 0; v < r.n; v++)
        for (uint64_t p = r.x[v]; p < r.x[v + 1]; p++)
            if (directed || v < r.a[p]) {
                e[k][0] = (uint32_t)v;
                e[k][1] = r.a[p];
                e[k][2] = r.w[p];
                k++;
            }
    for (size_t i = 0; i < extra; i++) {
        e[k][0] = 3;
        e[k][1] = (uint32_t)(4 + i);
        e[k][2] = (uint32_t)(1 + i % 7); /* ties among the hub's weights */
        k++;
    }
    tu_graph g = tu_graph_from_edges(n, k, (const uint32_t(*)[3])e, directed);
    free(e);
    tu_graph_free(&r);
    return g;
}

/* The input store's options: the graph's directedness and weight type,
 * replacing what is there. */
static sg_write_options input_opts(bool directed, bool f32)
{
    sg_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.directed = directed;
    wo.weight_type = f32 ? SG_WEIGHT_F32 : SG_WEIGHT_U32;
    wo.force = true;
    return wo;
}

static void test_orders(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("renumber");
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/in.sg", dir);
    snprintf(out, sizeof out, "%s/out.sg", dir);
    for (int directed = 0; directed < 2; directed++)
        for (int f32 = 0; f32 < 2; f32++) {
            tu_graph g = make(600, 2500, directed, 11 + (uint64_t)directed);
            const sg_write_options wo = input_opts(directed, f32);
            if (f32) /* small positive floats: bit order is value order */
                for (uint64_t p = 0; p < g.m; p++) {
                    const float f = (float)g.w[p] / 8.0f;
                    memcpy(&g.w[p], &f, 4);
                }
            tu_write_store(in, &g, &wo);
            for (int o = SG_ORDER_DEGREE_DESC; o <= SG_ORDER_BFS_REV; o++) {
                sg_renumber_options ro;
                memset(&ro, 0, sizeof ro);
                ro.order = (sg_renumber_order)o;
                ro.store.force = true;
                sg_renumber_report rep;
                sg_error err = {0};
                if (sg_store_renumber(in, out, &ro, &rep, &err) != SG_OK)
                    fail_msg("renumber (%s, %s, %s): %s", directed ? "directed" : "undirected",
                             f32 ? "f32" : "u32", sg_renumber_order_name(ro.order), err.msg);
                assert_int_equal(rep.n_vertices, g.n);
                assert_int_equal(rep.n_edges, g.m);
                tu_graph got = tu_read_store(out), want = expected(&g, ro.order);
                if (!tu_graph_equal(&got, &want))
                    fail_msg("renumber (%s, %s, %s): not the input in that order",
                             directed ? "directed" : "undirected", f32 ? "f32" : "u32",
                             sg_renumber_order_name(ro.order));
                uint64_t longest = 0;
                for (uint64_t i = 0; i < got.n; i++) {
                    const uint64_t d = got.x[i + 1] - got.x[i];
                    longest = d > longest ? d : longest;
                    if (i == 0 || o >= SG_ORDER_BFS) continue;
                    const uint64_t d0 = got.x[i] - got.x[i - 1];
                    assert_true(o == SG_ORDER_DEGREE_DESC ? d0 >= d : d0 <= d);
                }
                assert_int_equal(rep.max_degree, longest);
                if (o == SG_ORDER_BFS && !directed) {
                    /* each component one range: a list reaches no earlier
                     * component, so every vertex but a component's first has
                     * a neighbour below it (its parent) */
                    for (uint64_t v = 1; v < got.n; v++)
                        if (got.x[v + 1] > got.x[v] && got.a[got.x[v]] > v) {
                            /* no smaller neighbour: v starts a component, and
                             * nothing below v reaches v's component */
                            for (uint64_t u = 0; u < v; u++)
                                for (uint64_t p = got.x[u]; p < got.x[u + 1]; p++)
                                    assert_true(got.a[p] < v);
                        }
                }
                sg_store *s = NULL;
                assert_int_equal(sg_store_open(out, &s, &err), SG_OK);
                sg_store_info info;
                sg_store_get_info(s, &info);
                assert_int_equal(info.directed, directed);
                assert_int_equal(info.weight_type, f32 ? SG_WEIGHT_F32 : SG_WEIGHT_U32);
                assert_false(info.has_original_ids);
                /* the planner's hint reads the order back from the degrees
                 * (tools/cmd_plan.c): none descend in ascending order */
                sg_degree_stats ds;
                assert_int_equal(sg_store_degree_stats(s, NULL, &ds, &err), SG_OK);
                if (o == SG_ORDER_DEGREE_ASC) assert_int_equal(ds.descents, 0);
                else assert_true(ds.descents > 0);
                sg_store_close(s);
                tu_graph_free(&got);
                tu_graph_free(&want);
            }
            tu_graph_free(&g);
        }
    tu_rm_rf(dir);
    free(dir);
}

/* g's lists by neighbour id (a copy), for comparing a weight-ordered store. */
static tu_graph by_id(const tu_graph *g)
{
    tu_graph r = *g;
    r.x = malloc((g->n + 1) * sizeof *r.x);
    r.a = malloc((g->m + 1) * sizeof *r.a);
    r.w = malloc((g->m + 1) * sizeof *r.w);
    assert_true(r.x && r.a && r.w);
    memcpy(r.x, g->x, (g->n + 1) * sizeof *r.x);
    for (uint64_t v = 0; v < g->n; v++) {
        const uint64_t b = g->x[v], d = g->x[v + 1] - b;
        uint64_t *k = malloc((d + 1) * sizeof *k);
        assert_non_null(k);
        for (uint64_t j = 0; j < d; j++) k[j] = (uint64_t)g->a[b + j] << 32 | g->w[b + j];
        for (uint64_t i = 1; i < d; i++) /* insertion sort: ids distinct */
            for (uint64_t j = i; j > 0 && k[j - 1] > k[j]; j--) {
                const uint64_t t = k[j];
                k[j] = k[j - 1];
                k[j - 1] = t;
            }
        for (uint64_t j = 0; j < d; j++) {
            r.a[b + j] = (uint32_t)(k[j] >> 32);
            r.w[b + j] = (uint32_t)k[j];
        }
        free(k);
    }
    return r;
}

/* --lists weight: every list by (weight key, id), the same graph, the
 * store flagged, check passing; back to id order gives the input again;
 * the writer refuses lists out of that order and repeated ids. */
static void test_weight_order(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("renumber-w");
    char in[512], out[512], back[512];
    snprintf(in, sizeof in, "%s/in.sg", dir);
    snprintf(out, sizeof out, "%s/out.sg", dir);
    snprintf(back, sizeof back, "%s/back.sg", dir);
    for (int directed = 0; directed < 2; directed++)
        for (int f32 = 0; f32 < 2; f32++) {
            tu_graph g = make(600, 2500, directed, 21 + (uint64_t)directed);
            const sg_write_options wo = input_opts(directed, f32);
            if (f32) /* negative, -0 and +0 (keyed -0 first) and positive floats */
                for (uint64_t p = 0; p < g.m; p++) {
                    const uint32_t u = g.w[p];
                    const float f = u == 24 ? -0.0f : u == 25 ? 0.0f : ((float)u - 25.0f) / 8.0f;
                    memcpy(&g.w[p], &f, 4);
                }
            tu_write_store(in, &g, &wo);
            const sg_renumber_order orders[2] = {SG_ORDER_NONE, SG_ORDER_BFS};
            for (int oi = 0; oi < 2; oi++) {
                char what[160];
                snprintf(what, sizeof what, "%s, %s, order %s, lists by weight",
                         directed ? "directed" : "undirected", f32 ? "f32" : "u32",
                         sg_renumber_order_name(orders[oi]));
                sg_renumber_options ro;
                memset(&ro, 0, sizeof ro);
                ro.order = orders[oi];
                ro.weight_order = true;
                ro.store.force = true;
                sg_error err = {0};
                if (sg_store_renumber(in, out, &ro, NULL, &err) != SG_OK)
                    fail_msg("renumber (%s): %s", what, err.msg);
                tu_graph got = tu_read_store(out), want = expected(&g, ro.order);
                for (uint64_t v = 0; v < got.n; v++)
                    for (uint64_t p = got.x[v] + 1; p < got.x[v + 1]; p++) {
                        const uint32_t k0 = sgi_key_of_bits(f32, got.w[p - 1]),
                                       k1 = sgi_key_of_bits(f32, got.w[p]);
                        if (k1 < k0 || (k1 == k0 && got.a[p] <= got.a[p - 1]))
                            fail_msg("%s: vertex %llu: entry %llu out of weight order", what,
                                     (unsigned long long)v, (unsigned long long)p);
                    }
                tu_graph sorted = by_id(&got);
                if (!tu_graph_equal(&sorted, &want)) fail_msg("%s: not the input's edges", what);
                sg_store *s = NULL;
                assert_int_equal(sg_store_open(out, &s, &err), SG_OK);
                sg_store_info info;
                sg_store_get_info(s, &info);
                assert_true(info.weight_order);
                if (sg_store_check(s, NULL, NULL, &err) != SG_OK)
                    fail_msg("%s: check: %s", what, err.msg);
                sg_store_close(s);
                if (oi == 0) { /* back to id order: the input, unflagged */
                    ro.weight_order = false;
                    if (sg_store_renumber(out, back, &ro, NULL, &err) != SG_OK)
                        fail_msg("%s: back to id order: %s", what, err.msg);
                    tu_graph b = tu_read_store(back);
                    if (!tu_graph_equal(&b, &g)) fail_msg("%s: id order again differs", what);
                    assert_int_equal(sg_store_open(back, &s, &err), SG_OK);
                    sg_store_get_info(s, &info);
                    assert_false(info.weight_order);
                    sg_store_close(s);
                    tu_graph_free(&b);
                }
                tu_graph_free(&sorted);
                tu_graph_free(&got);
                tu_graph_free(&want);
            }
            tu_graph_free(&g);
        }
    /* the writer's checks in weight order: vertex 0 holds (w, id) pairs,
     * vertex 1 a list of 40 distinct weights (past the pairwise check) */
    struct {
        const char *name;
        uint32_t a0[3], w0[3];
        uint32_t rep; /* vertex 1's entry 37 repeats this entry's id (40: none) */
        const char *msg;
    } cases[] = {
        {"ordered", {5, 2, 9}, {1, 2, 2}, 40, NULL},
        {"weight falls", {5, 2, 9}, {2, 1, 3}, 40, "vertex 0: neighbour list not in weight order"},
        {"tie not by id", {5, 9, 2}, {1, 2, 2}, 40, "vertex 0: neighbour list not in weight order"},
        {"id twice, short list", {5, 2, 5}, {1, 2, 3}, 40, "vertex 0: a neighbour appears twice"},
        {"id twice, long list", {5, 2, 9}, {1, 2, 2}, 3, "vertex 1: a neighbour appears twice"},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        uint64_t x[3] = {0, 3, 43};
        uint32_t a[43], w[43];
        for (int j = 0; j < 3; j++) a[j] = cases[ci].a0[j], w[j] = cases[ci].w0[j];
        for (int j = 0; j < 40; j++) {
            a[3 + j] = (uint32_t)(50 - j);
            w[3 + j] = (uint32_t)(10 + j);
        }
        if (cases[ci].rep < 40) a[3 + 37] = a[3 + cases[ci].rep];
        sg_write_options o;
        memset(&o, 0, sizeof o);
        o.directed = true;
        o.weight_order = true;
        o.force = true;
        sg_store_writer *wr = NULL;
        sg_error err = {0};
        assert_int_equal(sg_store_writer_open(out, 60, &o, &wr, &err), SG_OK);
        sg_status st = sg_store_writer_append(wr, 2, x, a, w, &err);
        if (!cases[ci].msg) {
            assert_int_equal(st, SG_OK);
            uint64_t z[59];
            memset(z, 0, sizeof z);
            assert_int_equal(sg_store_writer_append(wr, 58, z, a, w, &err), SG_OK);
            assert_int_equal(sg_store_writer_finish(wr, &err), SG_OK);
            tu_graph r = tu_read_store(out);
            assert_memory_equal(r.a, a, sizeof a);
            tu_graph_free(&r);
            continue;
        }
        if (st != SG_E_INVALID || !strstr(err.msg, cases[ci].msg))
            fail_msg("writer, %s: status %d, '%s' (wanted '%s')", cases[ci].name, (int)st,
                     err.msg, cases[ci].msg);
        sg_store_writer_abort(wr);
    }
    tu_rm_rf(dir);
    free(dir);
}

static void test_refusals(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("renumber-err");
    char in[512], ids[512], out[512];
    snprintf(in, sizeof in, "%s/in.sg", dir);
    snprintf(ids, sizeof ids, "%s/ids.sg", dir);
    snprintf(out, sizeof out, "%s/out.sg", dir);
    tu_graph g = make(200, 300, false, 5);
    tu_write_store(in, &g, NULL);
    sg_renumber_options ro;
    memset(&ro, 0, sizeof ro);
    sg_error err = {0};

    /* a missing input: named, nothing written */
    assert_int_equal(sg_store_renumber("nothere.sg", out, &ro, NULL, &err), SG_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "nothere.sg"));
    assert_false(tu_exists(out));

    /* an existing output without force: untouched; with force: replaced */
    tu_graph small = make(170, 60, false, 9);
    tu_write_store(out, &small, NULL);
    assert_int_equal(sg_store_renumber(in, out, &ro, NULL, &err), SG_E_EXISTS);
    tu_graph still = tu_read_store(out);
    assert_true(tu_graph_equal(&still, &small));
    tu_graph_free(&still);
    ro.store.force = true;
    assert_int_equal(sg_store_renumber(in, out, &ro, NULL, &err), SG_OK);
    tu_graph now = tu_read_store(out);
    assert_int_equal(now.n, g.n);
    tu_graph_free(&now);

    /* a bad order */
    ro.order = (sg_renumber_order)7;
    assert_int_equal(sg_store_renumber(in, out, &ro, NULL, &err), SG_E_INVALID);
    ro.order = SG_ORDER_DEGREE_DESC;

    /* a store with original ids: refused, saying why */
    sg_store_writer *w = NULL;
    sg_write_options wo;
    memset(&wo, 0, sizeof wo);
    assert_int_equal(sg_store_writer_open(ids, g.n, &wo, &w, &err), SG_OK);
    assert_int_equal(sg_store_writer_append(w, g.n, g.x, g.a, g.w, &err), SG_OK);
    uint64_t *orig = malloc(g.n * sizeof *orig);
    assert_non_null(orig);
    for (uint64_t v = 0; v < g.n; v++) orig[v] = 1000 + 3 * v;
    assert_int_equal(sg_store_writer_append_ids(w, orig, g.n, &err), SG_OK);
    assert_int_equal(sg_store_writer_finish(w, &err), SG_OK);
    free(orig);
    char out2[512];
    snprintf(out2, sizeof out2, "%s/out2.sg", dir);
    assert_int_equal(sg_store_renumber(ids, out2, &ro, NULL, &err), SG_E_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "original ids"));
    assert_false(tu_exists(out2));

    /* names */
    sg_renumber_order o;
    assert_true(sg_renumber_order_parse("degree", &o) && o == SG_ORDER_DEGREE_DESC);
    assert_true(sg_renumber_order_parse("degree-asc", &o) && o == SG_ORDER_DEGREE_ASC);
    assert_true(sg_renumber_order_parse("bfs", &o) && o == SG_ORDER_BFS);
    assert_true(sg_renumber_order_parse("bfs-rev", &o) && o == SG_ORDER_BFS_REV);
    assert_false(sg_renumber_order_parse("locality", &o));
    assert_false(sg_renumber_order_parse(NULL, &o));

    tu_graph_free(&small);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

/* sgi_bfs_order with every level in parallel (par_min 1), with levels of
 * 64 vertices or more in parallel, and serial: the queue's order each time,
 * on graphs with hubs, several components and isolated vertices. */
static void test_parallel_levels(void **state)
{
    (void)state;
    for (int directed = 0; directed < 2; directed++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            tu_graph g = make(3000 + 500 * seed, 9000 * seed, directed, 40 + seed);
            uint32_t *want = malloc(g.n * sizeof *want), *got = malloc(g.n * sizeof *got);
            uint64_t *claim = malloc(g.n * sizeof *claim), *cnt = malloc(g.n * sizeof *cnt);
            assert_true(want && got && claim && cnt);
            queue_order(&g, want);
            const uint64_t mins[] = {1, 64, UINT64_MAX};
            for (size_t k = 0; k < 3; k++) {
                memset(got, 0xff, g.n * sizeof *got);
                const uint64_t par = sgi_bfs_order(g.x, g.a, g.n, 4, mins[k], got, claim, cnt);
                if (mins[k] == UINT64_MAX) assert_int_equal(par, 0);
                else assert_true(par > 0);
                if (memcmp(got, want, g.n * sizeof *got) != 0)
                    fail_msg("bfs order (%s, seed %llu, parallel from %llu vertices): not the "
                             "queue's",
                             directed ? "directed" : "undirected", (unsigned long long)seed,
                             (unsigned long long)mins[k]);
            }
            free(want), free(got), free(claim), free(cnt);
            tu_graph_free(&g);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders),
        cmocka_unit_test(test_parallel_levels),
        cmocka_unit_test(test_weight_order),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
