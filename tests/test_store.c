/* storage/writer.c + storage/reader.c: round trips, partial reads,
 * single-vertex access, layout edge cases, replacement and corruption. */
#include "testutil.h"

#include <fcntl.h>
#include <math.h>
#include <unistd.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"


static const sg_write_options tiny = {.block_bytes = 64, .shard_bytes = 512};

/* The weights of vertices [v0, v1) read as 24-bit weights (u32 weights
 * below 2^24 in g), through the same read options as the caller's. */
static void check_w24(sg_store *s, const tu_graph *g, uint64_t v0, uint64_t v1)
{
    const uint64_t e0 = g->x[v0], e1 = g->x[v1];
    uint16_t *w16 = malloc((e1 - e0 + 1) * 2);
    uint8_t *w8 = malloc(e1 - e0 + 1);
    sg_read_request rq = {.v_begin = v0, .v_end = v1, .w16 = w16, .w8 = w8};
    sg_read_stats st;
    sg_error err = {0};
    if (sg_store_read(s, &rq, NULL, &st, &err)) fail_msg("24-bit read: %s", err.msg);
    for (uint64_t p = e0; p < e1; p++)
        assert_int_equal((uint32_t)w16[p - e0] | (uint32_t)w8[p - e0] << 16, g->w[p]);
    assert_int_equal(st.decoded_bytes, 3 * (e1 - e0));
    free(w16);
    free(w8);
}

static void check_ranges(const char *path, const tu_graph *g, const sg_read_options *ro,
                         uint64_t seed)
{
    sg_store *s = NULL;
    sg_error err = {0};
    assert_int_equal(sg_store_open(path, &s, &err), SG_OK);
    uint64_t *x = malloc((g->n + 1) * 8);
    uint32_t *a = malloc((g->m + 1) * 4), *w = malloc((g->m + 1) * 4);
    uint64_t st = seed;
    for (int it = 0; it < 60; it++) {
        uint64_t v0 = g->n ? tu_rand(&st) % (g->n + 1) : 0;
        uint64_t v1 = v0 + (g->n - v0 ? tu_rand(&st) % (g->n - v0 + 1) : 0);
        int which = (int)(tu_rand(&st) % 7) + 1; /* subset of x, a, w */
        sg_read_request rq = {.v_begin = v0, .v_end = v1, .x = which & 1 ? x : NULL,
                              .a = which & 2 ? a : NULL, .w = which & 4 ? w : NULL};
        sg_read_stats stats;
        if (sg_store_read(s, &rq, ro, &stats, &err)) fail_msg("read: %s", err.msg);
        const uint64_t e0 = g->x[v0], e1 = g->x[v1];
        if (rq.x) assert_memory_equal(x, g->x + v0, (v1 - v0 + 1) * 8);
        if (rq.a && e1 > e0) assert_memory_equal(a, g->a + e0, (e1 - e0) * 4);
        if (rq.w && e1 > e0) assert_memory_equal(w, g->w + e0, (e1 - e0) * 4);
        if (rq.w) check_w24(s, g, v0, v1);
        uint64_t b, e;
        assert_int_equal(sg_store_edge_range(s, v0, v1, &b, &e, &err), SG_OK);
        assert_int_equal(b, e0);
        assert_int_equal(e, e1);
    }
    free(x);
    free(a);
    free(w);
    sg_store_close(s);
}

static void check_neighbors(const char *path, const tu_graph *g)
{
    sg_store *s = NULL;
    sg_error err = {0};
    assert_int_equal(sg_store_open(path, &s, &err), SG_OK);
    uint32_t *nb = malloc((g->m + 1) * 4), *w = malloc((g->m + 1) * 4);
    for (uint64_t v = 0; v < g->n; v++) {
        uint64_t deg = 99;
        if (sg_store_neighbors(s, (uint32_t)v, &deg, nb, w, g->m, &err))
            fail_msg("neighbors %llu: %s", (unsigned long long)v, err.msg);
        assert_int_equal(deg, g->x[v + 1] - g->x[v]);
        if (deg) {
            assert_memory_equal(nb, g->a + g->x[v], deg * 4);
            assert_memory_equal(w, g->w + g->x[v], deg * 4);
        }
        /* a short buffer gets a prefix; the degree is still whole */
        if (deg > 2) {
            memset(nb, 0xEE, deg * 4);
            assert_int_equal(sg_store_neighbors(s, (uint32_t)v, &deg, nb, NULL, 2, &err), SG_OK);
            assert_int_equal(deg, g->x[v + 1] - g->x[v]);
            assert_memory_equal(nb, g->a + g->x[v], 8);
            assert_int_equal(nb[2], 0xEEEEEEEEu);
        }
    }
    uint64_t deg;
    assert_int_equal(sg_store_neighbors(s, (uint32_t)g->n, &deg, nb, NULL, 1, &err), SG_E_INVALID);
    free(nb);
    free(w);
    sg_store_close(s);
}

static void roundtrip_layouts(void **state)
{
    (void)state;
    const struct { uint64_t n, e; bool directed; sg_write_options o; } cases[] = {
        {300, 2000, false, {.block_bytes = 64, .shard_bytes = 512}},
        {300, 2000, true, {.block_bytes = 64, .shard_bytes = 512}},
        {1000, 20000, false, {.block_bytes = 256, .shard_bytes = 8192}},
        {1000, 20000, false, {0}}, /* defaults: one shard, one block per array */
        {5000, 100, false, {.block_bytes = 128, .shard_bytes = 1024}}, /* mostly isolated */
        {1, 0, false, {0}},
        {7, 0, true, {.block_bytes = 64, .shard_bytes = 64}},
        {0, 0, false, {0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *dir = tu_tmpdir("store");
        char path[512];
        snprintf(path, sizeof path, "%s/g.sg", dir);
        tu_graph g = tu_random_graph(cases[c].n ? cases[c].n : 1, cases[c].e, 1000, 7 + c,
                                     cases[c].directed);
        g.n = cases[c].n; /* n = 0 keeps x[0] = 0 */
        tu_write_store(path, &g, &cases[c].o);
        tu_graph back = tu_read_store(path);
        assert_true(tu_graph_equal(&g, &back));
        assert_int_equal(back.directed, cases[c].directed);
        tu_graph_free(&back);
        if (g.n) {
            check_ranges(path, &g, NULL, c);
            check_neighbors(path, &g);
        }
        sg_store *s;
        sg_error err;
        assert_int_equal(sg_store_open(path, &s, &err), SG_OK);
        sg_store_info info;
        sg_store_get_info(s, &info);
        assert_int_equal(info.n_vertices, g.n);
        assert_int_equal(info.n_edges, g.m);
        assert_int_equal(info.raw_bytes[SG_ARRAY_A], 4 * g.m);
        assert_true(info.file_bytes > 0);
        assert_string_equal(info.creator, "spillgraph library");
        for (uint32_t i = 0; i < info.n_shards; i++) {
            sg_shard_info si;
            assert_int_equal(sg_store_shard_info(s, i, &si, &err), SG_OK);
            assert_true(si.v_end > si.v_begin);
            assert_int_equal(si.e_begin, g.x[si.v_begin]);
            assert_int_equal(si.e_end, g.x[si.v_end]);
        }
        if (cases[c].o.shard_bytes == 512) assert_true(info.n_shards > 5);
        sg_store_close(s);
        tu_graph_free(&g);
        tu_rm_rf(dir);
        free(dir);
    }
}

static void many_windows_and_direct(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    tu_graph g = tu_random_graph(20000, 200000, 1u << 20, 99, false);
    sg_write_options o = {.block_bytes = 4096, .shard_bytes = 256 << 10};
    tu_write_store(path, &g, &o);
    const sg_read_options ros[] = {
        {.window_bytes = 16384, .queue_depth = 2, .threads = 3, .uring = true},
        {.window_bytes = 1 << 20, .direct = true, .threads = 2},
        {.threads = 1},
        {.mapped = true, .threads = 3},
    };
    for (size_t i = 0; i < sizeof ros / sizeof *ros; i++) check_ranges(path, &g, &ros[i], 5 + i);
    /* a whole read reports its work */
    sg_store *s;
    sg_error err;
    assert_int_equal(sg_store_open(path, &s, &err), SG_OK);
    uint64_t *x = malloc((g.n + 1) * 8);
    uint32_t *a = malloc(g.m * 4);
    sg_read_request rq = {.v_begin = 0, .v_end = g.n, .x = x, .a = a};
    sg_read_stats st;
    assert_int_equal(sg_store_read(s, &rq, &ros[0], &st, &err), SG_OK);
    sg_store_info info;
    sg_store_get_info(s, &info);
    assert_int_equal(st.stored_bytes, info.stored_bytes[SG_ARRAY_X] + info.stored_bytes[SG_ARRAY_A]);
    assert_int_equal(st.decoded_bytes, (g.n + 1) * 8 + g.m * 4);
    assert_true(st.read_bytes >= st.stored_bytes);
    assert_true(st.requests > 1);
    assert_int_equal(st.blocks, info.n_blocks[SG_ARRAY_X] + info.n_blocks[SG_ARRAY_A]);
    /* compression does real work on sorted neighbour ids */
    assert_true(info.stored_bytes[SG_ARRAY_A] < info.raw_bytes[SG_ARRAY_A] * 3 / 4);
    free(x);
    free(a);
    sg_store_close(s);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

/* 24-bit weights: every bit of the three low bytes round trips, from
 * compressed and raw blocks; a weight of 2^24 is refused naming its shard
 * and block; f32 stores and half a request are refused. */
static void weights_in_24_bits(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    tu_graph g = tu_random_graph(3000, 40000, (1u << 24) - 1, 31, false);
    const sg_write_options o = {.block_bytes = 1024, .shard_bytes = 64 << 10};
    tu_write_store(path, &g, &o);
    check_ranges(path, &g, &(sg_read_options){.threads = 3, .mapped = true}, 41);
    check_ranges(path, &g, &(sg_read_options){.threads = 2, .uring = true}, 42);
    snprintf(path, sizeof path, "%s/tiny.sg", dir); /* blocks of 16 weights: some raw */
    tu_write_store(path, &g, &tiny);
    check_ranges(path, &g, NULL, 43);
    snprintf(path, sizeof path, "%s/g.sg", dir);
    sg_store *s;
    sg_error err = {0};
    assert_int_equal(sg_store_open(path, &s, &err), SG_OK);
    uint16_t *w16 = malloc(g.m * 2);
    uint8_t *w8 = malloc(g.m);
    uint32_t *w = malloc(g.m * 4);
    sg_read_request half = {.v_begin = 0, .v_end = g.n, .w16 = w16};
    assert_int_equal(sg_store_read(s, &half, NULL, NULL, &err), SG_E_INVALID);
    sg_read_request both = {.v_begin = 0, .v_end = g.n, .w = w, .w16 = w16, .w8 = w8};
    assert_int_equal(sg_store_read(s, &both, NULL, NULL, &err), SG_E_INVALID);
    sg_store_close(s);
    /* one weight past 24 bits, in a shard of its own past the first */
    uint64_t u = g.n / 2;
    while (g.x[u] == g.x[u + 1]) u++;
    const uint64_t p = g.x[u];
    for (uint64_t e = g.x[g.a[p]]; e < g.x[g.a[p] + 1]; e++) /* and its reverse edge */
        if (g.a[e] == u) g.w[e] = 1u << 24;
    g.w[p] = 1u << 24;
    snprintf(path, sizeof path, "%s/wide.sg", dir);
    tu_write_store(path, &g, &o);
    assert_int_equal(sg_store_open(path, &s, &err), SG_OK);
    sg_read_request all = {.v_begin = 0, .v_end = g.n, .w16 = w16, .w8 = w8};
    assert_int_equal(sg_store_read(s, &all, NULL, NULL, &err), SG_E_RANGE);
    assert_non_null(strstr(err.msg, "block W#"));
    assert_non_null(strstr(err.msg, ".sgs"));
    assert_non_null(strstr(err.msg, "16777216"));
    sg_store_close(s);
    tu_graph_free(&g);
    /* f32 weights */
    tu_graph gf = tu_random_graph(50, 200, 100, 3, false);
    snprintf(path, sizeof path, "%s/f.sg", dir);
    tu_write_store(path, &gf, &(sg_write_options){.weight_type = SG_WEIGHT_F32});
    assert_int_equal(sg_store_open(path, &s, &err), SG_OK);
    sg_read_request f = {.v_begin = 0, .v_end = gf.n, .w16 = w16, .w8 = w8};
    assert_int_equal(sg_store_read(s, &f, NULL, NULL, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "f32"));
    sg_store_close(s);
    tu_graph_free(&gf);
    free(w16);
    free(w8);
    free(w);
    tu_rm_rf(dir);
    free(dir);
}

static void evict(const char *store)
{
    int i;
    for (i = 0;; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/shard-%06d.sgs", store, i);
        int fd = open(p, O_RDONLY);
        if (fd < 0) break;
        assert_int_equal(fdatasync(fd), 0);
        assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
        close(fd);
    }
    assert_true(i > 0);
}

/* Default mode: decode from the mappings when cached, read otherwise. */
static void automatic_mode_follows_the_page_cache(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    tu_graph g = tu_random_graph(20000, 100000, 1000, 17, false);
    sg_write_options o = {.block_bytes = 16384};
    tu_write_store(path, &g, &o);
    uint32_t *a = malloc(g.m * 4);
    sg_read_request rq = {.v_begin = 0, .v_end = g.n, .a = a};
    sg_read_stats st;
    sg_error err;
    sg_store *s;
    /* evicted before this process maps anything (the kernel keeps pages a
     * process has mapped): the read goes through io_uring... */
    evict(path);
    assert_int_equal(sg_store_open(path, &s, &err), SG_OK);
    assert_int_equal(sg_store_read(s, &rq, NULL, &st, &err), SG_OK);
    assert_false(st.used_mapped);
    assert_true(st.used_uring);
    assert_true(st.requests > 0);
    assert_memory_equal(a, g.a, g.m * 4);
    /* ...which caches it: now it decodes from the mappings, no requests */
    memset(a, 0, g.m * 4);
    assert_int_equal(sg_store_read(s, &rq, NULL, &st, &err), SG_OK);
    assert_true(st.used_mapped);
    assert_false(st.used_uring);
    assert_int_equal(st.requests, 0);
    assert_memory_equal(a, g.a, g.m * 4);
    /* forcing io_uring on a cached store; the modes exclude each other */
    const sg_read_options ur = {.uring = true}, both = {.uring = true, .mapped = true};
    assert_int_equal(sg_store_read(s, &rq, &ur, &st, &err), SG_OK);
    assert_true(st.used_uring && !st.used_mapped);
    assert_int_equal(sg_store_read(s, &rq, &both, &st, &err), SG_E_INVALID);
    sg_store_close(s);
    free(a);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

static sg_status count_shards(void *ctx, uint64_t v0, uint64_t v1, const uint64_t *x,
                              const uint32_t *a, const void *w, sg_error *err)
{
    const tu_graph *g = ((const tu_graph **)ctx)[0];
    uint64_t *seen = ((uint64_t **)ctx)[1];
    assert_memory_equal(x, g->x + v0, (v1 - v0 + 1) * 8);
    if (x[v1 - v0] > x[0]) {
        assert_memory_equal(a, g->a + x[0], (x[v1 - v0] - x[0]) * 4);
        assert_memory_equal(w, g->w + x[0], (x[v1 - v0] - x[0]) * 4);
    }
    *seen += v1 - v0;
    (void)err;
    return SG_OK;
}

static void foreach_shard_visits_all(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    tu_graph g = tu_random_graph(500, 3000, 9, 3, false);
    tu_write_store(path, &g, &tiny);
    sg_store *s;
    sg_error err;
    assert_int_equal(sg_store_open(path, &s, &err), SG_OK);
    uint64_t seen = 0;
    void *ctx[2] = {&g, &seen};
    assert_int_equal(sg_store_foreach_shard(s, true, NULL, count_shards, ctx, &err), SG_OK);
    assert_int_equal(seen, g.n);
    sg_store_close(s);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

static void f32_weights_and_negative_flag(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    tu_graph g = tu_random_graph(100, 500, 5, 11, true);
    for (uint64_t e = 0; e < g.m; e++) {
        float f = (float)g.w[e] * 0.25f - (e == 7 ? 100.0f : 0.0f);
        memcpy(&g.w[e], &f, 4);
    }
    sg_write_options o = {.weight_type = SG_WEIGHT_F32, .block_bytes = 128};
    tu_write_store(path, &g, &o);
    tu_graph back = tu_read_store(path);
    assert_true(tu_graph_equal(&g, &back));
    sg_store *s;
    sg_error err;
    assert_int_equal(sg_store_open(path, &s, &err), SG_OK);
    sg_store_info info;
    sg_store_get_info(s, &info);
    assert_int_equal(info.weight_type, SG_WEIGHT_F32);
    assert_true(info.negative_weights);
    sg_store_close(s);
    /* NaN is refused, naming the vertex */
    float nan = NAN;
    uint64_t v = 0;
    while (g.x[v + 1] == g.x[v]) v++;
    memcpy(&g.w[g.x[v]], &nan, 4);
    sg_store_writer *w;
    char p2[512];
    snprintf(p2, sizeof p2, "%s/nan.sg", dir);
    assert_int_equal(sg_store_writer_open(p2, g.n, &o, &w, &err), SG_OK);
    assert_int_equal(sg_store_writer_append(w, g.n, g.x, g.a, g.w, &err), SG_E_INVALID);
    char want[64];
    snprintf(want, sizeof want, "vertex %llu: weight is NaN", (unsigned long long)v);
    assert_non_null(strstr(err.msg, want));
    sg_store_writer_abort(w);
    assert_int_equal(tu_dir_entries(dir), 1); /* only g.sg: no temporary left */
    tu_graph_free(&back);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

static void writer_rejects_bad_input(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    sg_error err = {0};
    sg_store_writer *w;
    const uint64_t x[4] = {10, 12, 12, 14}; /* x[0] need not be 0 */
    const uint32_t unsorted[4] = {2, 1, 0, 1}, big[4] = {1, 2, 0, 9}, ok[4] = {1, 2, 0, 1};
    const uint32_t wt[4] = {1, 1, 1, 1};
    assert_int_equal(sg_store_writer_open(path, 3, NULL, &w, &err), SG_OK);
    assert_int_equal(sg_store_writer_append(w, 3, x, unsorted, wt, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "vertex 0: neighbour list not strictly increasing"));
    /* a failed writer refuses more work */
    assert_int_equal(sg_store_writer_append(w, 3, x, ok, wt, &err), SG_E_INVALID);
    sg_store_writer_abort(w);
    assert_int_equal(sg_store_writer_open(path, 3, NULL, &w, &err), SG_OK);
    assert_int_equal(sg_store_writer_append(w, 3, x, big, wt, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "vertex 2: neighbour id out of range"));
    sg_store_writer_abort(w);
    /* too many vertices; finishing early */
    assert_int_equal(sg_store_writer_open(path, 3, NULL, &w, &err), SG_OK);
    assert_int_equal(sg_store_writer_append(w, 2, x, ok, wt, &err), SG_OK);
    assert_int_equal(sg_store_writer_append(w, 2, x + 1, ok + 2, wt, &err), SG_E_INVALID);
    sg_store_writer_abort(w);
    assert_int_equal(sg_store_writer_open(path, 3, NULL, &w, &err), SG_OK);
    assert_int_equal(sg_store_writer_append(w, 2, x, ok, wt, &err), SG_OK);
    assert_int_equal(sg_store_writer_finish(w, &err), SG_E_INVALID);
    assert_non_null(strstr(err.msg, "2 of 3 vertices"));
    assert_false(tu_exists(path));
    assert_int_equal(tu_dir_entries(dir), 0);
    /* appending in pieces equals appending at once */
    assert_int_equal(sg_store_writer_open(path, 3, &tiny, &w, &err), SG_OK);
    assert_int_equal(sg_store_writer_append(w, 1, x, ok, wt, &err), SG_OK);
    assert_int_equal(sg_store_writer_append(w, 0, x + 1, ok + 2, wt, &err), SG_OK);
    assert_int_equal(sg_store_writer_append(w, 2, x + 1, ok + 2, wt, &err), SG_OK);
    assert_int_equal(sg_store_writer_finish(w, &err), SG_OK);
    tu_graph back = tu_read_store(path);
    assert_int_equal(back.m, 4);
    assert_int_equal(back.x[1], 2);
    assert_int_equal(back.a[3], 1);
    tu_graph_free(&back);
    /* options */
    sg_write_options bad = {.block_bytes = 8};
    assert_int_equal(sg_store_writer_open(path, 3, &bad, &w, &err), SG_E_INVALID);
    bad = (sg_write_options){.zstd_level = 40};
    assert_int_equal(sg_store_writer_open(path, 3, &bad, &w, &err), SG_E_INVALID);
    assert_int_equal(sg_store_writer_open(path, (1ull << 32) + 1, NULL, &w, &err), SG_E_RANGE);
    tu_rm_rf(dir);
    free(dir);
}

static void replace_only_with_force(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store");
    char path[512], other[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    snprintf(other, sizeof other, "%s/notastore", dir);
    tu_graph g1 = tu_random_graph(50, 100, 5, 1, false), g2 = tu_random_graph(80, 300, 5, 2, false);
    tu_write_store(path, &g1, NULL);
    sg_store_writer *w;
    sg_error err = {0};
    assert_int_equal(sg_store_writer_open(path, 80, NULL, &w, &err), SG_E_EXISTS);
    assert_non_null(strstr(err.msg, "--force"));
    sg_write_options f = {.force = true};
    tu_write_store(path, &g2, &f);
    tu_graph back = tu_read_store(path);
    assert_true(tu_graph_equal(&g2, &back));
    assert_int_equal(tu_dir_entries(dir), 1); /* old store removed, no temporaries */
    /* force never replaces a directory that is not a store */
    assert_int_equal(mkdir(other, 0755), 0);
    FILE *fp = fopen("tmp-keepme", "w");
    fclose(fp);
    assert_int_equal(sg_store_writer_open(other, 80, &f, &w, &err), SG_E_EXISTS);
    assert_non_null(strstr(err.msg, "not a spillgraph store"));
    remove("tmp-keepme");
    tu_graph_free(&back);
    tu_graph_free(&g1);
    tu_graph_free(&g2);
    tu_rm_rf(dir);
    free(dir);
}

static char *shard_path(const char *store, int i)
{
    static char p[600];
    snprintf(p, sizeof p, "%s/shard-%06d.sgs", store, i);
    return p;
}

static sg_status open_err(const char *path, sg_error *err)
{
    sg_store *s = NULL;
    sg_status st = sg_store_open(path, &s, err);
    sg_store_close(s);
    return st;
}

static void corruption_is_reported_by_file_and_block(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store");
    char path[512], mpath[600];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    snprintf(mpath, sizeof mpath, "%s/manifest.sgm", path);
    tu_graph g = tu_random_graph(400, 4000, 100, 5, false);
    sg_write_options o = {.block_bytes = 256, .shard_bytes = 4096};
    sg_error err = {0};

    /* a byte inside block A#3 of shard 2 */
    tu_write_store(path, &g, &o);
    sg_store *s;
    assert_int_equal(sg_store_open(path, &s, &err), SG_OK);
    uint64_t off = s->shards[2].blocks[SG_ARRAY_A][3].offset + 5;
    uint64_t v0 = s->shards[2].meta.v_begin;
    sg_store_close(s);
    tu_flip_byte(shard_path(path, 2), off, 0x10);
    assert_int_equal(sg_store_open(path, &s, &err), SG_OK); /* index intact: opens */
    uint32_t *a = malloc(g.m * 4);
    sg_read_request rq = {.v_begin = 0, .v_end = g.n, .a = a};
    assert_int_equal(sg_store_read(s, &rq, NULL, NULL, &err), SG_E_CORRUPT);
    assert_non_null(strstr(err.msg, "shard-000002.sgs block A#3"));
    const sg_read_options mapped = {.mapped = true};
    memset(&err, 0, sizeof err);
    assert_int_equal(sg_store_read(s, &rq, &mapped, NULL, &err), SG_E_CORRUPT);
    assert_non_null(strstr(err.msg, "shard-000002.sgs block A#3"));
    assert_non_null(strstr(err.msg, "checksum mismatch"));
    /* single-vertex access over that block fails the same way; others work */
    uint64_t deg;
    uint32_t nb[4096];
    sg_status st = SG_OK;
    for (uint64_t v = v0; v < s->shards[2].meta.v_end && st == SG_OK; v++)
        st = sg_store_neighbors(s, (uint32_t)v, &deg, nb, NULL, 4096, &err);
    assert_int_equal(st, SG_E_CORRUPT);
    assert_int_equal(sg_store_neighbors(s, 0, &deg, nb, NULL, 4096, &err), SG_OK);
    sg_store_close(s);
    free(a);

    /* manifest: flipped byte, bad magic, truncation */
    const struct { const char *what; int kind; } m_cases[] = {{"checksum", 0}, {"magic", 1},
                                                              {"truncated", 2}};
    for (int c = 0; c < 3; c++) {
        tu_rm_rf(path);
        tu_write_store(path, &g, &o);
        if (m_cases[c].kind == 0) tu_flip_byte(mpath, 140, 1);
        if (m_cases[c].kind == 1) tu_flip_byte(mpath, 0, 1);
        if (m_cases[c].kind == 2) tu_truncate(mpath, 100);
        assert_int_equal(open_err(path, &err), SG_E_CORRUPT);
        assert_non_null(strstr(err.msg, "manifest.sgm"));
    }
    /* shard: header byte, index byte, footer byte, truncated, missing */
    for (int c = 0; c < 5; c++) {
        tu_rm_rf(path);
        tu_write_store(path, &g, &o);
        const char *sp = shard_path(path, 1);
        uint64_t size = tu_file_size(sp);
        if (c == 0) tu_flip_byte(sp, 20, 1);
        if (c == 1) tu_flip_byte(sp, size - 40, 1);
        if (c == 2) tu_flip_byte(sp, size - 3, 1);
        if (c == 3) tu_truncate(sp, size / 2);
        if (c == 4) remove(sp);
        assert_int_equal(open_err(path, &err), SG_E_CORRUPT);
        assert_non_null(strstr(err.msg, "shard-000001.sgs"));
    }
    /* not a store at all */
    assert_int_equal(open_err(dir, &err), SG_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "manifest.sgm"));
    assert_int_equal(open_err(mpath, &err), SG_E_FORMAT);
    char missing[600];
    snprintf(missing, sizeof missing, "%s/nope", dir);
    assert_int_equal(open_err(missing, &err), SG_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "nope"));
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

static void unchecked_writer_makes_invalid_stores(void **state)
{
    (void)state;
    /* the test hook used by test_check: it must really skip validation */
    char *dir = tu_tmpdir("store");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    const uint64_t x[3] = {0, 2, 2};
    const uint32_t a[2] = {1, 1}, w[2] = {1, 1};
    sg_store_writer *wr;
    sg_error err;
    sgi_writer_unchecked = true;
    assert_int_equal(sg_store_writer_open(path, 2, NULL, &wr, &err), SG_OK);
    assert_int_equal(sg_store_writer_append(wr, 2, x, a, w, &err), SG_OK);
    assert_int_equal(sg_store_writer_finish(wr, &err), SG_OK);
    sgi_writer_unchecked = false;
    tu_graph back = tu_read_store(path);
    assert_int_equal(back.a[0], 1);
    assert_int_equal(back.a[1], 1);
    tu_graph_free(&back);
    tu_rm_rf(dir);
    free(dir);
}

/* Every single-byte corruption of every file is reported (open, read or
 * check fails) or, if it were ever undetected, harmless (the graph reads back
 * identical). Every byte of a store is under some checksum, so today all are
 * reported. Nothing crashes or reads out of bounds (the ASan tier runs it). */
static void every_flipped_byte_is_caught_or_harmless(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store");
    char path[512];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    tu_graph g = tu_random_graph(40, 90, 50, 23, false);
    sg_write_options o = {.block_bytes = 64, .shard_bytes = 400};
    tu_write_store(path, &g, &o);
    char files[16][600];
    int nf = 0;
    snprintf(files[nf++], 600, "%s/manifest.sgm", path);
    for (int i = 0; i < 15; i++) {
        snprintf(files[nf], 600, "%s/shard-%06d.sgs", path, i);
        if (!tu_exists(files[nf])) break;
        nf++;
    }
    assert_true(nf >= 3);
    uint64_t caught = 0, harmless = 0;
    for (int f = 0; f < nf; f++) {
        const uint64_t size = tu_file_size(files[f]);
        for (uint64_t off = 0; off < size; off++) {
            tu_flip_byte(files[f], off, 0x5A);
            sg_store *s = NULL;
            sg_error err = {0};
            sg_status st = sg_store_open(path, &s, &err);
            if (st == SG_OK) {
                uint64_t *x = malloc((g.n + 1) * 8);
                uint32_t *a = malloc(g.m * 4 + 4), *w = malloc(g.m * 4 + 4);
                sg_read_request rq = {.v_begin = 0, .v_end = g.n, .x = x, .a = a, .w = w};
                st = sg_store_read(s, &rq, NULL, NULL, &err);
                if (st == SG_OK) st = sg_store_check(s, NULL, NULL, &err);
                if (st == SG_OK) {
                    /* undetected: it must not have changed the graph */
                    assert_memory_equal(x, g.x, (g.n + 1) * 8);
                    assert_memory_equal(a, g.a, g.m * 4);
                    assert_memory_equal(w, g.w, g.m * 4);
                    harmless++;
                }
                free(x);
                free(a);
                free(w);
                sg_store_close(s);
            }
            if (st != SG_OK) {
                caught++;
                assert_true(strlen(err.msg) > 0);
            }
            tu_flip_byte(files[f], off, 0x5A);
        }
    }
    print_message("%llu flips caught, %llu harmless\n",
                  (unsigned long long)caught, (unsigned long long)harmless);
    assert_true(caught > 10 * harmless);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip_layouts),
        cmocka_unit_test(many_windows_and_direct),
        cmocka_unit_test(weights_in_24_bits),
        cmocka_unit_test(automatic_mode_follows_the_page_cache),
        cmocka_unit_test(foreach_shard_visits_all),
        cmocka_unit_test(f32_weights_and_negative_flag),
        cmocka_unit_test(writer_rejects_bad_input),
        cmocka_unit_test(replace_only_with_force),
        cmocka_unit_test(corruption_is_reported_by_file_and_block),
        cmocka_unit_test(unchecked_writer_makes_invalid_stores),
        cmocka_unit_test(every_flipped_byte_is_caught_or_harmless),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
