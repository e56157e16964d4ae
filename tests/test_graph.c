/* src/run.c, src/graph.c, src/result_mem.c, src/edge_sort.c: the run
 * context, the graph handle (loading a store, caller arrays), the edge sort
 * and canonical forests. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/internal.h"

static void test_run_context(void **state)
{
    (void)state;
    sg_error err = {0};
    sg_run *r = NULL;
    assert_int_equal(sg_run_create(NULL, &r, &err), SG_OK);
    /* auto resolves at creation: gpu where there is one, else cpu; never AUTO */
    assert_int_equal(sg_run_backend(r), sg_gpu_count() > 0 ? SG_BACKEND_GPU : SG_BACKEND_CPU);
    assert_true(sg_run_threads(r) >= 1);
    for (int p = 0; p < SG_NPHASES; p++) assert_true(sg_run_seconds(r, (sg_phase)p) == 0.0);
    sg_run_add_seconds(r, SG_PHASE_WRITE, 1.5);
    sg_run_add_seconds(r, SG_PHASE_WRITE, 0.25);
    assert_true(sg_run_seconds(r, SG_PHASE_WRITE) == 1.75);
    assert_string_equal(sg_phase_name(SG_PHASE_PREPROCESS), "preprocess");

    sg_run_count(r, "iterations", 3);
    sg_run_count(r, "edges", 10);
    sg_run_count(r, "iterations", 4);
    sg_run_set(r, "edges", 2);
    assert_int_equal(sg_run_counter_count(r), 2);
    uint64_t v = 0;
    assert_string_equal(sg_run_counter(r, 0, &v), "iterations");
    assert_int_equal(v, 7);
    assert_string_equal(sg_run_counter(r, 1, &v), "edges");
    assert_int_equal(v, 2);
    assert_null(sg_run_counter(r, 2, &v));
    /* Names beyond the limit are dropped, not written past the table. */
    static char names[SG_RUN_MAX_COUNTERS + 4][16];
    for (int i = 0; i < SG_RUN_MAX_COUNTERS + 4; i++) {
        snprintf(names[i], sizeof names[i], "c%d", i);
        sg_run_count(r, names[i], 1);
    }
    assert_int_equal(sg_run_counter_count(r), SG_RUN_MAX_COUNTERS);
    sg_run_free(r);
    sg_run_free(NULL);

    sg_run_options o = {.threads = 3};
    assert_int_equal(sg_run_create(&o, &r, &err), SG_OK);
    assert_int_equal(sg_run_threads(r), 3);
    sg_run_free(r);

    o = (sg_run_options){.backend = SG_BACKEND_CPU};
    assert_int_equal(sg_run_create(&o, &r, &err), SG_OK);
    assert_int_equal(sg_run_backend(r), SG_BACKEND_CPU);
    sg_run_free(r);

    /* gpu: refused where this build has no CUDA or there is no GPU. */
    r = NULL;
    memset(&err, 0, sizeof err);
    o = (sg_run_options){.backend = SG_BACKEND_GPU};
    sg_status st = sg_run_create(&o, &r, &err);
    if (!sg_gpu_built() || sg_gpu_count() == 0) {
        assert_int_equal(st, SG_E_UNSUPPORTED);
        if (!strstr(err.msg, "gpu backend needs"))
            fail_msg("message \"%s\" lacks \"gpu backend needs\"", err.msg);
        assert_null(r);
    } else {
        if (st != SG_OK) fail_msg("gpu run: %s", err.msg);
        assert_int_equal(sg_run_backend(r), SG_BACKEND_GPU);
        sg_run_free(r);
        /* a GPU index that does not exist */
        r = NULL;
        memset(&err, 0, sizeof err);
        o.device = sg_gpu_count();
        assert_int_equal(sg_run_create(&o, &r, &err), SG_E_UNSUPPORTED);
        assert_non_null(strstr(err.msg, "gpu backend needs"));
        assert_null(r);
    }
    memset(&err, 0, sizeof err);
    o = (sg_run_options){.backend = SG_BACKEND_HYBRID};
    st = sg_run_create(&o, &r, &err);
    if (!sg_gpu_built() || sg_gpu_count() == 0) {
        assert_int_equal(st, SG_E_UNSUPPORTED);
        if (!strstr(err.msg, "hybrid backend needs"))
            fail_msg("message \"%s\" lacks \"hybrid backend needs\"", err.msg);
        assert_null(r);
    } else {
        if (st != SG_OK) fail_msg("hybrid run: %s", err.msg);
        assert_int_equal(sg_run_backend(r), SG_BACKEND_HYBRID);
        sg_run_free(r);
        r = NULL;
    }
    o = (sg_run_options){.threads = -2};
    assert_int_equal(sg_run_create(&o, &r, &err), SG_E_INVALID);

    /* A cpu run never touches a device. */
    o = (sg_run_options){.backend = SG_BACKEND_CPU, .device_mem = 1 << 20};
    assert_int_equal(sg_run_create(&o, &r, &err), SG_OK);
    sg_device_report rep;
    memset(&rep, 0x5a, sizeof rep);
    sg_run_device_report(r, &rep);
    assert_false(rep.used);
    assert_int_equal(rep.peak_bytes, 0);
    assert_int_equal(rep.in_use, 0);
    assert_int_equal(rep.upload_bytes, 0);
    assert_string_equal(rep.fallback, "");
    sg_run_free(r);

    /* SSSP method names. */
    static const char *const mnames[] = {"auto", "delta", "bellman-ford"};
    static const sg_sssp_method methods[] = {SG_SSSP_AUTO, SG_SSSP_DELTA, SG_SSSP_BELLMAN_FORD};
    for (int i = 0; i < 3; i++) {
        assert_string_equal(sg_sssp_method_name(methods[i]), mnames[i]);
        sg_sssp_method m = (sg_sssp_method)99;
        assert_true(sg_sssp_method_parse(mnames[i], &m));
        assert_int_equal(m, methods[i]);
        assert_true(sg_sssp_method_parse(sg_sssp_method_name(m), &m));
        assert_int_equal(m, methods[i]);
    }
    sg_sssp_method m = SG_SSSP_DELTA;
    assert_false(sg_sssp_method_parse("dijkstra", &m));
    assert_false(sg_sssp_method_parse("", &m));
    assert_false(sg_sssp_method_parse("Delta", &m));
    assert_false(sg_sssp_method_parse(NULL, &m));
    assert_int_equal(m, SG_SSSP_DELTA); /* untouched */

    sg_backend b;
    assert_true(sg_backend_parse("hybrid", &b));
    assert_int_equal(b, SG_BACKEND_HYBRID);
    assert_false(sg_backend_parse("tpu", &b));
    assert_string_equal(sg_backend_name(SG_BACKEND_AUTO), "auto");
}

static void expect_same_arrays(const sg_graph *g, const tu_graph *t, bool weights)
{
    sg_graph_info gi;
    sg_graph_get_info(g, &gi);
    assert_int_equal(gi.n_vertices, t->n);
    assert_int_equal(gi.n_edges, t->m);
    assert_int_equal(gi.directed, t->directed);
    assert_int_equal(gi.has_weights, weights);
    assert_memory_equal(sg_graph_offsets(g), t->x, (t->n + 1) * 8);
    if (t->m) assert_memory_equal(sg_graph_neighbors(g), t->a, t->m * 4);
    if (weights && t->m) assert_memory_equal(sg_graph_weights(g), t->w, t->m * 4);
    if (!weights) assert_null(sg_graph_weights(g));
    uint64_t maxd = 0, desc = 0;
    for (uint64_t v = 0; v < t->n; v++) {
        if (t->x[v + 1] - t->x[v] > maxd) maxd = t->x[v + 1] - t->x[v];
        desc += v > 0 && t->x[v + 1] - t->x[v] < t->x[v] - t->x[v - 1];
    }
    assert_int_equal(gi.max_degree, maxd);
    assert_int_equal(gi.degree_descents, desc);
}

static void test_open_store(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("graph");
    char path[512];
    snprintf(path, sizeof path, "%s/g", dir);
    tu_graph t = tu_random_graph(3000, 20000, 1000, 5, false);
    sg_write_options wo = {.block_bytes = 4096, .shard_bytes = 32768};
    tu_write_store(path, &t, &wo);

    sg_error err = {0};
    sg_run *run = NULL;
    sg_run_options ro = {.backend = SG_BACKEND_CPU, .threads = 2};
    assert_int_equal(sg_run_create(&ro, &run, &err), SG_OK);
    sg_graph *g = NULL;
    if (sg_graph_open(run, path, NULL, &g, &err)) fail_msg("open: %s", err.msg);
    expect_same_arrays(g, &t, true);
    sg_graph_info gi;
    sg_graph_get_info(g, &gi);
    assert_string_equal(gi.source, path);
    assert_int_equal(gi.mem, SG_MEM_PLAIN);
    assert_int_equal(gi.weight_type, SG_WEIGHT_U32);
    assert_int_equal(gi.bytes, (t.n + 1) * 8 + t.m * 8);
    assert_true(sg_run_seconds(run, SG_PHASE_LOAD) > 0.0);
    sg_graph_free(g);

    /* host_only changes nothing on a cpu run */
    sg_graph_options go = {.host_only = true};
    g = NULL;
    if (sg_graph_open(run, path, &go, &g, &err)) fail_msg("open host_only: %s", err.msg);
    expect_same_arrays(g, &t, true);
    sg_graph_free(g);

    go = (sg_graph_options){.no_weights = true, .read = {.uring = true}};
    g = NULL;
    if (sg_graph_open(run, path, &go, &g, &err)) fail_msg("open: %s", err.msg);
    expect_same_arrays(g, &t, false);
    sg_graph_free(g);
    sg_graph_free(NULL);

    /* Pinned memory exists only with CUDA (and a GPU to pin through). */
    go = (sg_graph_options){.mem = SG_MEM_PINNED};
    g = NULL;
    sg_status st = sg_graph_open(run, path, &go, &g, &err);
    if (!sg_gpu_built()) {
        assert_int_equal(st, SG_E_UNSUPPORTED);
        assert_non_null(strstr(err.msg, "CUDA"));
        assert_null(g);
    } else if (sg_gpu_count() > 0) {
        assert_int_equal(st, SG_OK);
        expect_same_arrays(g, &t, true);
        sg_graph_free(g);
    } else {
        /* no GPU: the offsets, pinned first, fail at once, named */
        assert_int_not_equal(st, SG_OK);
        if (!strstr(err.msg, "pinning") || !strstr(err.msg, "the offsets (X)"))
            fail_msg("pinned open without a GPU: \"%s\"", err.msg);
        assert_null(g);
    }

    /* Errors: a missing store, a corrupt block (named), and no leak. */
    long live = sgi_alloc_live();
    char missing[600];
    snprintf(missing, sizeof missing, "%s/nothing", dir);
    g = NULL;
    assert_int_equal(sg_graph_open(run, missing, NULL, &g, &err), SG_E_NOTFOUND);
    assert_null(g);
    char shard[600];
    snprintf(shard, sizeof shard, "%s/shard-000000.sgs", path);
    tu_flip_byte(shard, 100, 0x5a);
    go = (sg_graph_options){.read = {.uring = true}};
    assert_int_equal(sg_graph_open(run, path, &go, &g, &err), SG_E_CORRUPT);
    assert_non_null(strstr(err.msg, "shard-000000"));
    assert_null(g);
    assert_int_equal(sgi_alloc_live(), live);

    sg_run_free(run);
    tu_graph_free(&t);
    tu_rm_rf(dir);
    free(dir);
}

/* Opens the store at path on a cpu run with narrow_weights `nw`. */
static sg_graph *open_narrow(sg_run **run, const char *path, sg_narrow nw, bool weights)
{
    sg_error err = {0};
    const sg_run_options ro = {.backend = SG_BACKEND_CPU, .threads = 2};
    assert_int_equal(sg_run_create(&ro, run, &err), SG_OK);
    const sg_graph_options go = {.narrow_weights = nw, .no_weights = !weights};
    sg_graph *g = NULL;
    if (sg_graph_open(*run, path, &go, &g, &err) != SG_OK) fail_msg("open: %s", err.msg);
    return g;
}

/* sg_graph_options.narrow_weights: W in 24 bits where the store allows and
 * the caller asks (ALWAYS; HYBRID_FOREST only where the forest runs
 * hybrid, never on a cpu run); Kruskal's oracle and BFS read such a graph
 * as the 32-bit one, the other algorithms refuse it naming the option; a
 * weight past 24 bits loads again with 32-bit weights. */
static void test_narrow_weights(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("narrow");
    char path[512], wide[512], fpath[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    snprintf(wide, sizeof wide, "%s/wide.sg", dir);
    snprintf(fpath, sizeof fpath, "%s/f.sg", dir);
    /* ties: 40 weights over 3000 edges, the largest 2^24 - 1 */
    tu_graph t = tu_random_graph(800, 3000, 40, 5, false);
    for (uint64_t p = 0; p < t.m; p++) t.w[p] = t.w[p] == 40 ? (1u << 24) - 1 : t.w[p] << 17;
    tu_write_store(path, &t, &(sg_write_options){.block_bytes = 256});
    sg_run *r0 = NULL, *r1 = NULL, *r2 = NULL;
    sg_graph *plain = open_narrow(&r0, path, SG_NARROW_NONE, true);
    sg_graph *g = open_narrow(&r1, path, SG_NARROW_ALWAYS, true);
    sg_graph_info info;
    sg_graph_get_info(g, &info);
    assert_true(info.narrow_weights && info.has_weights);
    assert_int_equal(info.bytes, (t.n + 1) * 8 + t.m * 7);
    assert_null(sg_graph_weights(g));
    uint64_t c = 9;
    assert_true(tu_counter(r1, "narrow_weights", &c));
    assert_int_equal(c, 1);
    for (uint64_t p = 0; p < t.m; p++) assert_int_equal(sgi_graph_w_at(g, p), t.w[p]);
    sg_graph_get_info(plain, &info);
    assert_false(info.narrow_weights);
    /* Kruskal's forest the same */
    sg_error err = {0};
    sg_forest *fa = NULL, *fb = NULL;
    assert_int_equal(sg_oracle_kruskal(plain, &fa, &err), SG_OK);
    assert_int_equal(sg_oracle_kruskal(g, &fb, &err), SG_OK);
    assert_int_equal(fa->n_edges, fb->n_edges);
    assert_int_equal(fa->total_u32, fb->total_u32);
    assert_memory_equal(fa->w, fb->w, fa->n_edges * 4);
    assert_int_equal(sg_verify_forest(g, fa, &err), SG_OK);
    /* BFS as on the 32-bit graph */
    sg_bfs_options bo = {.source = 3};
    sg_bfs_result *ba = NULL, *bb = NULL;
    assert_int_equal(sg_bfs(r0, plain, &bo, &ba, &err), SG_OK);
    assert_int_equal(sg_bfs(r1, g, &bo, &bb, &err), SG_OK);
    assert_memory_equal(ba->level, bb->level, t.n * sizeof *ba->level);
    sg_bfs_free(ba);
    sg_bfs_free(bb);
    /* refused: the cpu forest, shortest paths, weight order */
    sg_forest *f = NULL;
    assert_int_equal(sg_mst(r1, g, &f, &err), SG_E_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "narrow_weights"));
    assert_non_null(strstr(err.msg, "cpu backend's forest"));
    assert_null(f);
    sg_sssp_options so = {.source = 3};
    sg_sssp_result *sr = NULL;
    assert_int_equal(sg_sssp(r1, g, &so, &sr, &err), SG_E_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "shortest paths"));
    assert_int_equal(sg_graph_sort_by_weight(g, 2, &err), SG_E_UNSUPPORTED);
    sg_forest_free(fa);
    sg_forest_free(fb);
    sg_graph_free(g);
    sg_run_free(r1);
    /* HYBRID_FOREST on a cpu run, no weights, the switch off: 32 bits */
    g = open_narrow(&r1, path, SG_NARROW_HYBRID_FOREST, true);
    sg_graph_get_info(g, &info);
    assert_false(info.narrow_weights);
    sg_graph_free(g);
    sg_run_free(r1);
    g = open_narrow(&r1, path, SG_NARROW_ALWAYS, false);
    sg_graph_get_info(g, &info);
    assert_false(info.narrow_weights || info.has_weights);
    sg_graph_free(g);
    sg_run_free(r1);
    setenv("SPILLGRAPH_GPU_DISABLE", "prepare,narrow-weights", 1);
    g = open_narrow(&r1, path, SG_NARROW_ALWAYS, true);
    unsetenv("SPILLGRAPH_GPU_DISABLE");
    sg_graph_get_info(g, &info);
    assert_false(info.narrow_weights);
    sg_graph_free(g);
    sg_run_free(r1);
    /* a weight of 2^24 in the last block: loaded again with 32 bits */
    uint64_t last = t.n - 1; /* the last edge's vertex, and its reverse edge */
    while (t.x[last] == t.m) last--;
    t.w[t.m - 1] = 1u << 24;
    for (uint64_t p = t.x[t.a[t.m - 1]]; p < t.x[t.a[t.m - 1] + 1]; p++)
        if (t.a[p] == last) t.w[p] = 1u << 24;
    tu_write_store(wide, &t, &(sg_write_options){.block_bytes = 256});
    g = open_narrow(&r2, wide, SG_NARROW_ALWAYS, true);
    sg_graph_get_info(g, &info);
    assert_false(info.narrow_weights);
    assert_true(tu_counter(r2, "narrow_weights_refused", &c));
    assert_int_equal(c, 1);
    assert_memory_equal(sg_graph_weights(g), t.w, t.m * 4);
    sg_graph_free(g);
    sg_run_free(r2);
    /* f32 weights: 32 bits */
    tu_write_store(fpath, &t, &(sg_write_options){.weight_type = SG_WEIGHT_F32});
    g = open_narrow(&r2, fpath, SG_NARROW_ALWAYS, true);
    sg_graph_get_info(g, &info);
    assert_false(info.narrow_weights);
    sg_graph_free(g);
    sg_run_free(r2);
    sg_graph_free(plain);
    sg_run_free(r0);
    tu_graph_free(&t);
    tu_rm_rf(dir);
    free(dir);
}

static void test_open_alloc_failures(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("graph-nomem");
    char path[512];
    snprintf(path, sizeof path, "%s/g", dir);
    tu_graph t = tu_random_graph(500, 3000, 50, 9, true);
    tu_write_store(path, &t, NULL);
    sg_run *run = NULL;
    sg_error err = {0};
    const sg_run_options ro = {.backend = SG_BACKEND_CPU};
    assert_int_equal(sg_run_create(&ro, &run, &err), SG_OK);
    long live = sgi_alloc_live();
    long n = 0;
    for (;; n++) {
        sg_graph *g = NULL;
        sgi_alloc_fail_after(n);
        sg_status st = sg_graph_open(run, path, NULL, &g, &err);
        sgi_alloc_fail_after(-1);
        if (st == SG_OK) {
            expect_same_arrays(g, &t, true);
            sg_graph_free(g);
            break;
        }
        assert_int_equal(st, SG_E_NOMEM);
        assert_null(g);
        assert_true(strlen(err.msg) > 0);
        assert_int_equal(sgi_alloc_live(), live);
        assert_true(n < 10000);
    }
    assert_true(n >= 4);
    assert_int_equal(sgi_alloc_live(), live);
    sg_run_free(run);
    tu_graph_free(&t);
    tu_rm_rf(dir);
    free(dir);
}

/* sg_graph_options.prepare: the first search's result, faulted in while the
 * graph loads, is the memory the search returns when it matches; any other
 * search frees it; nothing leaks, also when the load fails. */
static void test_prepare(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("graph-prep");
    char path[512];
    snprintf(path, sizeof path, "%s/g", dir);
    /* 9000 random edges on 5000 vertices: weight ties (1..40), isolated
     * vertices, several components */
    tu_graph t = tu_random_graph(5000, 9000, 40, 17, false);
    tu_write_store(path, &t, NULL);
    sg_error err = {0};
    sg_run *run = NULL;
    const sg_run_options ro = {.backend = SG_BACKEND_CPU, .threads = 2};
    assert_int_equal(sg_run_create(&ro, &run, &err), SG_OK);
    const long live = sgi_alloc_live();

    /* BFS without parents: taken by the first search, levels exact */
    sg_graph_options go = {.prepare = SG_PREPARE_BFS, .no_weights = true};
    sg_graph *g = NULL;
    if (sg_graph_open(run, path, &go, &g, &err)) fail_msg("open: %s", err.msg);
    assert_non_null(run->prep_bfs);
    assert_null(run->prep_bfs->parent);
    assert_int_equal(run->prep_uid, g->uid);
    uint64_t cv = 0;
    assert_true(tu_counter(run, "result_prefault_us", &cv));
    assert_true(tu_counter(run, "result_prefault_wait_us", &cv));
    assert_true(tu_counter(run, "result_pinned", &cv));
    assert_int_equal(cv, 0); /* a cpu run */
    const uint32_t *prepared = run->prep_bfs->level;
    sg_bfs_result *b = NULL;
    const sg_bfs_options bo = {.source = 7};
    if (sg_bfs(run, g, &bo, &b, &err)) fail_msg("bfs: %s", err.msg);
    assert_ptr_equal(b->level, prepared);
    assert_int_equal(b->source, 7);
    assert_null(run->prep_bfs);
    if (sg_verify_bfs(g, b, &err)) fail_msg("verify: %s", err.msg);
    /* a second search allocates its own */
    sg_bfs_result *b2 = NULL;
    if (sg_bfs(run, g, &bo, &b2, &err)) fail_msg("bfs 2: %s", err.msg);
    assert_ptr_not_equal(b2->level, prepared);
    assert_memory_equal(b2->level, b->level, t.n * sizeof *b->level);
    sg_bfs_free(b2);
    sg_bfs_free(b);
    sg_graph_free(g);

    /* prepared with parents, searched without: freed, the search allocates */
    go.prepare_parents = true;
    if (sg_graph_open(run, path, &go, &g, &err)) fail_msg("open: %s", err.msg);
    assert_non_null(run->prep_bfs);
    assert_non_null(run->prep_bfs->parent);
    const long with_graph = sgi_alloc_live();
    if (sg_bfs(run, g, &bo, &b, &err)) fail_msg("bfs: %s", err.msg);
    assert_null(run->prep_bfs);
    assert_null(b->parent);
    if (sg_verify_bfs(g, b, &err)) fail_msg("verify: %s", err.msg);
    sg_bfs_free(b);
    assert_true(sgi_alloc_live() < with_graph); /* the prepared one is gone */
    sg_graph_free(g);

    /* SSSP with parents: taken, distances exact */
    go = (sg_graph_options){.prepare = SG_PREPARE_SSSP, .prepare_parents = true};
    if (sg_graph_open(run, path, &go, &g, &err)) fail_msg("open: %s", err.msg);
    assert_non_null(run->prep_sssp);
    const uint64_t *pd = run->prep_sssp->dist;
    const uint32_t *pp = run->prep_sssp->parent;
    assert_non_null(pd);
    assert_non_null(pp);
    sg_sssp_result *r = NULL;
    const sg_sssp_options so = {.source = 11, .want_parents = true};
    if (sg_sssp(run, g, &so, &r, &err)) fail_msg("sssp: %s", err.msg);
    assert_ptr_equal(r->dist, pd);
    assert_ptr_equal(r->parent, pp);
    assert_int_equal(r->source, 11);
    if (sg_verify_sssp(g, r, &err)) fail_msg("verify: %s", err.msg);
    sg_sssp_free(r);

    /* a prepared SSSP result is freed by a BFS; one for another graph
     * handle is not taken */
    sg_graph *g2 = NULL;
    if (sg_graph_open(run, path, &go, &g2, &err)) fail_msg("open: %s", err.msg);
    assert_non_null(run->prep_sssp);
    if (sg_sssp(run, g, &so, &r, &err)) fail_msg("sssp other handle: %s", err.msg);
    assert_null(run->prep_sssp);
    if (sg_verify_sssp(g, r, &err)) fail_msg("verify: %s", err.msg);
    sg_sssp_free(r);
    sg_graph_free(g2);
    g2 = NULL;
    if (sg_graph_open(run, path, &go, &g2, &err)) fail_msg("open: %s", err.msg);
    if (sg_bfs(run, g2, &bo, &b, &err)) fail_msg("bfs: %s", err.msg);
    assert_null(run->prep_sssp);
    sg_bfs_free(b);
    sg_graph_free(g2);
    sg_graph_free(g);
    sgi_run_drop_kept(run); /* the CPU BFS's working arrays */
    assert_int_equal(sgi_alloc_live(), live);

    /* the switch off: nothing prepared, the search as before */
    setenv("SPILLGRAPH_GPU_DISABLE", "x,prepare", 1);
    go = (sg_graph_options){.prepare = SG_PREPARE_BFS};
    if (sg_graph_open(run, path, &go, &g, &err)) fail_msg("open: %s", err.msg);
    assert_null(run->prep_bfs);
    unsetenv("SPILLGRAPH_GPU_DISABLE");
    if (sg_bfs(run, g, &bo, &b, &err)) fail_msg("bfs: %s", err.msg);
    if (sg_verify_bfs(g, b, &err)) fail_msg("verify: %s", err.msg);
    sg_bfs_free(b);
    sg_graph_free(g);
    sgi_run_drop_kept(run);
    assert_true(!sgi_switch_off("prepare"));
    setenv("SPILLGRAPH_GPU_DISABLE", "prepared,reprepare", 1);
    assert_true(!sgi_switch_off("prepare"));
    unsetenv("SPILLGRAPH_GPU_DISABLE");

    /* pinning for a GPU's DMA (what a gpu or hybrid run asks for, here by
     * the internal call): arrays of 2 MiB or more are pinned where a GPU
     * is present; without one the pinning fails quietly, nothing is pinned
     * and the result is as usable; freeing unpins (a second round pins the
     * allocator's reused addresses again) */
    for (int round = 0; round < 2; round++) {
        const uint64_t big = 600000; /* levels 2.4 MB, parents 2.4 MB */
        const sg_graph_options po = {.prepare = SG_PREPARE_BFS, .prepare_parents = true};
        sgi_prefault *pf = NULL;
        assert_int_equal(sgi_prefault_start(&po, big, SG_WEIGHT_U32, 0, &pf, &err), SG_OK);
        assert_non_null(pf);
        sgi_prefault_finish(pf, run, 12345);
        uint64_t pinned = 0;
        assert_true(tu_counter(run, "result_pinned", &pinned));
        assert_int_equal(pinned, sg_gpu_count() > 0 ? 2 : 0);
        assert_non_null(run->prep_bfs);
        assert_int_equal(run->prep_uid, 12345);
        run->prep_bfs->level[big - 1] = 7; /* writable */
        sgi_run_drop_prepared(run);
        assert_null(run->prep_bfs);
    }
    assert_int_equal(sgi_alloc_live(), live);

    /* an unknown kind is refused; a run freed untaken leaks nothing (the
     * whole test's count is checked by the run below) */
    go = (sg_graph_options){.prepare = (sg_prepare)9};
    g = NULL;
    assert_int_equal(sg_graph_open(run, path, &go, &g, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "prepare"));
    assert_null(g);
    assert_int_equal(sgi_alloc_live(), live);
    sg_run_free(run);

    /* every allocation failure while loading with a prepared result */
    const long base = sgi_alloc_live();
    go = (sg_graph_options){.prepare = SG_PREPARE_SSSP, .prepare_parents = true};
    long n = 0;
    for (;; n++) {
        run = NULL;
        assert_int_equal(sg_run_create(&ro, &run, &err), SG_OK);
        g = NULL;
        sgi_alloc_fail_after(n);
        sg_status st = sg_graph_open(run, path, &go, &g, &err);
        sgi_alloc_fail_after(-1);
        if (st == SG_OK) {
            assert_non_null(run->prep_sssp);
            sg_graph_free(g);
            sg_run_free(run); /* untaken */
            break;
        }
        assert_int_equal(st, SG_E_NOMEM);
        assert_null(g);
        assert_null(run->prep_sssp);
        sg_run_free(run);
        assert_int_equal(sgi_alloc_live(), base);
        assert_true(n < 10000);
    }
    assert_true(n >= 4);
    assert_int_equal(sgi_alloc_live(), base);
    tu_graph_free(&t);
    tu_rm_rf(dir);
    free(dir);
}

static void test_from_arrays(void **state)
{
    (void)state;
    sg_error err = {0};
    sg_graph *g = NULL;
    /* 0-1 twice (a repeat), a self-loop at 2, unsorted lists. */
    const uint64_t x[] = {0, 2, 4, 5};
    const uint32_t a[] = {1, 1, 0, 0, 2};
    const uint32_t w[] = {5, 3, 5, 3, 9};
    assert_int_equal(sg_graph_from_arrays(3, x, a, w, SG_WEIGHT_U32, false, &g, &err), SG_OK);
    sg_graph_info gi;
    sg_graph_get_info(g, &gi);
    assert_int_equal(gi.n_vertices, 3);
    assert_int_equal(gi.n_edges, 5);
    assert_int_equal(gi.max_degree, 2);
    assert_int_equal(gi.degree_descents, 1); /* degrees 2, 2, 1 */
    assert_string_equal(gi.source, "memory");
    assert_false(gi.negative_weights);
    assert_memory_equal(sg_graph_weights(g), w, sizeof w);
    sg_graph_free(g);

    /* No weights: every weight 1 (f32: 1.0f). */
    g = NULL;
    assert_int_equal(sg_graph_from_arrays(3, x, a, NULL, SG_WEIGHT_F32, true, &g, &err), SG_OK);
    const float *fw = sg_graph_weights(g);
    for (int e = 0; e < 5; e++) assert_true(fw[e] == 1.0f);
    sg_graph_free(g);

    /* Negative f32 weights are flagged; non-finite ones refused. */
    float f[5] = {1, -2, 1, -2, 0.5f};
    g = NULL;
    assert_int_equal(sg_graph_from_arrays(3, x, a, f, SG_WEIGHT_F32, false, &g, &err), SG_OK);
    sg_graph_get_info(g, &gi);
    assert_true(gi.negative_weights);
    sg_graph_free(g);
    f[4] = NAN;
    g = NULL;
    assert_int_equal(sg_graph_from_arrays(3, x, a, f, SG_WEIGHT_F32, false, &g, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "edge 4"));
    assert_null(g);

    const uint64_t bad_x0[] = {1, 2, 4, 5};
    assert_int_equal(sg_graph_from_arrays(3, bad_x0, a, w, SG_WEIGHT_U32, false, &g, &err), SG_E_INVALID);
    const uint64_t bad_dec[] = {0, 3, 2, 5};
    assert_int_equal(sg_graph_from_arrays(3, bad_dec, a, w, SG_WEIGHT_U32, false, &g, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "vertex 1"));
    const uint32_t bad_a[] = {1, 1, 0, 7, 2};
    assert_int_equal(sg_graph_from_arrays(3, x, bad_a, w, SG_WEIGHT_U32, false, &g, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "edge 3"));
    assert_null(g);

    /* The empty graph and a graph without edges. */
    /* Random sources: only vertices with a real edge (0 and 1 here; 2 has
     * only a self-loop), the same for the same seed. */
    assert_int_equal(sg_graph_from_arrays(3, x, a, w, SG_WEIGHT_U32, false, &g, &err), SG_OK);
    bool seen[2] = {false, false};
    for (uint64_t seed = 0; seed < 64; seed++) {
        uint32_t s1 = 99, s2 = 98;
        assert_int_equal(sg_graph_random_source(g, seed, &s1, &err), SG_OK);
        assert_int_equal(sg_graph_random_source(g, seed, &s2, &err), SG_OK);
        assert_int_equal(s1, s2);
        assert_true(s1 < 2);
        seen[s1] = true;
    }
    assert_true(seen[0] && seen[1]);
    sg_graph_free(g);
    /* Only self-loops: no source. */
    const uint64_t xl[] = {0, 1, 1};
    const uint32_t al[] = {0};
    g = NULL;
    assert_int_equal(sg_graph_from_arrays(2, xl, al, NULL, SG_WEIGHT_U32, false, &g, &err), SG_OK);
    uint32_t src = 7;
    assert_int_equal(sg_graph_random_source(g, 1, &src, &err), SG_E_INVALID);
    assert_int_equal(src, 7);
    sg_graph_free(g);
    /* A big sparse graph takes the scan: one edge among 100000 vertices. */
    uint64_t *xs = calloc(100001, sizeof *xs);
    for (uint64_t v = 77778; v <= 100000; v++) xs[v] = 1;
    const uint32_t as[] = {5};
    g = NULL;
    assert_int_equal(sg_graph_from_arrays(100000, xs, as, NULL, SG_WEIGHT_U32, true, &g, &err), SG_OK);
    assert_int_equal(sg_graph_random_source(g, 3, &src, &err), SG_OK);
    assert_int_equal(src, 77777);
    sg_graph_free(g);
    free(xs);

    const uint64_t x0[] = {0};
    assert_int_equal(sg_graph_from_arrays(0, x0, NULL, NULL, SG_WEIGHT_U32, false, &g, &err), SG_OK);
    sg_graph_get_info(g, &gi);
    assert_int_equal(gi.n_vertices, 0);
    assert_int_equal(gi.n_edges, 0);
    sg_graph_free(g);
    const uint64_t x4[] = {0, 0, 0, 0, 0};
    g = NULL;
    assert_int_equal(sg_graph_from_arrays(4, x4, NULL, NULL, SG_WEIGHT_U32, false, &g, &err), SG_OK);
    sg_graph_get_info(g, &gi);
    assert_int_equal(gi.max_degree, 0);
    sg_graph_free(g);
}

static int cmp_wedge(const void *pa, const void *pb)
{
    const sgi_wedge *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->u != b->u) return a->u < b->u ? -1 : 1;
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    return 0;
}

static void test_sort_wedges(void **state)
{
    (void)state;
    const uint64_t sizes[] = {0, 1, 2, 17, 1000, 70000, 200003};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int variant = 0; variant < 3; variant++) {
            uint64_t n = sizes[s], rs = 77 + s * 3 + (uint64_t)variant;
            sgi_wedge *e = malloc((n + 1) * sizeof *e), *tmp = malloc((n + 1) * sizeof *tmp),
                      *ref = malloc((n + 1) * sizeof *ref);
            for (uint64_t i = 0; i < n; i++) {
                uint64_t r = tu_rand(&rs);
                /* variant 0: full range; 1: heavy ties in key; 2: all keys equal */
                uint32_t key = variant == 0 ? (uint32_t)r : variant == 1 ? (uint32_t)(r % 3) : 42u;
                e[i] = (sgi_wedge){key, (uint32_t)(r >> 32) % 1000, (uint32_t)(r >> 40) % 5000,
                                   (uint32_t)i};
            }
            memcpy(ref, e, n * sizeof *e);
            qsort(ref, n, sizeof *ref, cmp_wedge);
            sgi_sort_wedges(e, tmp, n, 1 + variant);
            for (uint64_t i = 0; i < n; i++) {
                assert_int_equal(cmp_wedge(&e[i], &ref[i]), 0);
                /* stable: equal (key, u, v) keep input order (w holds it) */
                if (i && cmp_wedge(&e[i - 1], &e[i]) == 0) assert_true(e[i - 1].w < e[i].w);
            }
            free(e);
            free(tmp);
            free(ref);
        }
    }
}

static uint32_t fbits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static void test_weight_keys_and_forest_finish(void **state)
{
    (void)state;
    const float vals[] = {-INFINITY, -3.5f, -1.0f, -0.0f, 0.0f, 1e-30f, 1.0f, 2.5f, 1e30f};
    for (size_t i = 0; i + 1 < sizeof vals / sizeof vals[0]; i++) {
        uint32_t k0 = sgi_weight_key(SG_WEIGHT_F32, fbits(vals[i]));
        uint32_t k1 = sgi_weight_key(SG_WEIGHT_F32, fbits(vals[i + 1]));
        assert_true(k0 < k1);
        assert_int_equal(sgi_weight_unkey(SG_WEIGHT_F32, k0), fbits(vals[i]));
    }
    assert_int_equal(sgi_weight_key(SG_WEIGHT_U32, 12345), 12345);

    sg_forest *f = sgi_forest_alloc(6, 4, SG_WEIGHT_F32);
    assert_non_null(f);
    const uint32_t u[] = {5, 0, 3, 2}, v[] = {4, 1, 1, 0};
    const float w[] = {2.0f, -1.0f, 2.0f, 0.5f};
    for (int i = 0; i < 4; i++) {
        f->u[i] = u[i];
        f->v[i] = v[i];
        f->w[i] = fbits(w[i]);
    }
    f->n_edges = 4;
    assert_int_equal(sgi_forest_finish(f, 2, NULL), SG_OK);
    assert_int_equal(f->n_trees, 2);
    /* (w, min, max): (-1,0,1) (0.5,0,2) (2,1,3) (2,4,5) */
    const uint32_t eu[] = {0, 0, 1, 4}, ev[] = {1, 2, 3, 5};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(f->u[i], eu[i]);
        assert_int_equal(f->v[i], ev[i]);
    }
    assert_true(f->total == 3.5);
    sg_forest_free(f);

    f = sgi_forest_alloc(3, 2, SG_WEIGHT_U32);
    f->u[0] = 2, f->v[0] = 1, f->w[0] = 4000000000u;
    f->u[1] = 0, f->v[1] = 1, f->w[1] = 4000000000u;
    f->n_edges = 2;
    assert_int_equal(sgi_forest_finish(f, 2, NULL), SG_OK);
    assert_int_equal(f->total_u32, 8000000000ull); /* beyond 32 bits: exact */
    assert_int_equal(f->u[0], 0);
    assert_int_equal(f->u[1], 1);
    assert_int_equal(f->v[1], 2);
    sg_forest_free(f);
    sg_forest_free(NULL);
    sg_sssp_free(NULL);
    sg_bfs_free(NULL);
    sg_clusters_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_context),
        cmocka_unit_test(test_open_store),
        cmocka_unit_test(test_open_alloc_failures),
        cmocka_unit_test(test_narrow_weights),
        cmocka_unit_test(test_prepare),
        cmocka_unit_test(test_from_arrays),
        cmocka_unit_test(test_sort_wedges),
        cmocka_unit_test(test_weight_keys_and_forest_finish),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
