/* Export to el, wel, mtx, egr and wsg: byte-exact output for small graphs,
 * round trips of random multi-shard graphs, independence of the thread
 * count, atomic replacement, injected write failures, range and format
 * errors, allocation failures. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "../src/internal.h" /* sgi_rmat_edge: the generator's edges */
#include "spillgraph.h"

static const sg_export_format all_formats[] = {SG_EXPORT_EL, SG_EXPORT_WEL, SG_EXPORT_MTX,
                                               SG_EXPORT_EGR, SG_EXPORT_WSG};
#define N_FORMATS (sizeof all_formats / sizeof all_formats[0])

/* ------------------------------------------------------------ helpers */

typedef struct bytes {
    uint8_t *p;
    size_t n, cap;
} bytes;

static void bb_put(bytes *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
static void bb_u8(bytes *b, uint8_t v) { bb_put(b, &v, 1); }
static void bb_i32(bytes *b, int32_t v) { bb_put(b, &v, 4); }
static void bb_i64(bytes *b, int64_t v) { bb_put(b, &v, 8); }
static void bb_str(bytes *b, const char *s) { bb_put(b, s, strlen(s)); }
static void bb_free(bytes *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static bytes read_file(const char *path)
{
    bytes b = {0};
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char tmp[65536];
    size_t r;
    while ((r = fread(tmp, 1, sizeof tmp, f)) > 0) bb_put(&b, tmp, r);
    fclose(f);
    return b;
}

static void write_text_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void assert_file_is(const char *path, const void *want, size_t n)
{
    bytes got = read_file(path);
    if (got.n != n || memcmp(got.p, want, n) != 0) {
        size_t i = 0;
        while (i < n && i < got.n && got.p[i] == ((const uint8_t *)want)[i]) i++;
        fail_msg("%s: %zu bytes, want %zu; first difference at byte %zu", path, got.n, n, i);
    }
    bb_free(&got);
}

static bool files_equal(const char *p1, const char *p2)
{
    bytes a = read_file(p1), b = read_file(p2);
    const bool eq = a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
    bb_free(&a);
    bb_free(&b);
    return eq;
}

static sg_store *open_store(const char *path)
{
    sg_store *s = NULL;
    sg_error err = {0};
    if (sg_store_open(path, &s, &err)) fail_msg("open %s: %s", path, err.msg);
    return s;
}

static void export_ok(sg_store *s, sg_export_format fmt, const char *path, bool force, int threads)
{
    sg_error err = {0};
    const sg_status st = sg_store_export(s, fmt, path, force, threads, &err);
    if (st != SG_OK) fail_msg("export to %s (format %d): %s", path, (int)fmt, err.msg);
}

static const char *ext(sg_export_format f)
{
    static const char *const names[] = {"", "el", "wel", "mtx", "egr", "wsg"};
    return names[f];
}

static int restore(void **state)
{
    (void)state;
    sgi_io_set(NULL);
    sgi_alloc_fail_after(-1);
    return 0;
}

/* ------------------------------------------------------------ (1) undirected */

/* 0-1 (5), 0-3 (12), 1-2 (7), 2-4 (100), 3-4 (1); vertex 5 isolated. */
static const uint32_t und_edges[][3] = {{1, 0, 5}, {0, 3, 12}, {1, 2, 7}, {4, 2, 100}, {3, 4, 1}};

static void undirected_exact(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("export"), *out = tu_tmpdir("export-out");
    char sp[512], path[512];
    snprintf(sp, sizeof sp, "%s/g.sg", dir);
    tu_graph g = tu_graph_from_edges(6, 5, und_edges, false);
    tu_write_store(sp, &g, NULL);
    sg_store *s = open_store(sp);

    snprintf(path, sizeof path, "%s/g.el", out);
    export_ok(s, SG_EXPORT_EL, path, false, 0);
    const char *el = "0 1\n0 3\n1 2\n2 4\n3 4\n";
    assert_file_is(path, el, strlen(el));

    snprintf(path, sizeof path, "%s/g.bin32", out);
    export_ok(s, SG_EXPORT_BIN32, path, false, 0);
    const uint32_t bin[] = {0, 1, 5, 0, 3, 12, 1, 2, 7, 2, 4, 100, 3, 4, 1};
    assert_file_is(path, bin, sizeof bin);

    snprintf(path, sizeof path, "%s/g.wel", out);
    export_ok(s, SG_EXPORT_WEL, path, false, 0);
    const char *wel = "0 1 5\n0 3 12\n1 2 7\n2 4 100\n3 4 1\n";
    assert_file_is(path, wel, strlen(wel));

    snprintf(path, sizeof path, "%s/g.mtx", out);
    export_ok(s, SG_EXPORT_MTX, path, false, 0);
    char mtx[1024];
    snprintf(mtx, sizeof mtx,
             "%%%%MatrixMarket matrix coordinate integer symmetric\n"
             "%% spillgraph export of %s\n"
             "6 6 5\n"
             "2 1 5\n"
             "3 2 7\n"
             "4 1 12\n"
             "5 3 100\n"
             "5 4 1\n",
             sg_store_path(s));
    assert_file_is(path, mtx, strlen(mtx));

    /* both directions, the CSR as stored */
    const int32_t nindex[] = {0, 2, 4, 6, 8, 10, 10};
    const int32_t nlist[] = {1, 3, 0, 2, 1, 4, 0, 4, 2, 3};
    const int32_t wts[] = {5, 12, 5, 7, 7, 100, 12, 1, 100, 1};
    bytes egr = {0};
    bb_i32(&egr, 6);
    bb_i32(&egr, 10);
    for (int i = 0; i < 7; i++) bb_i32(&egr, nindex[i]);
    for (int i = 0; i < 10; i++) bb_i32(&egr, nlist[i]);
    for (int i = 0; i < 10; i++) bb_i32(&egr, wts[i]);
    snprintf(path, sizeof path, "%s/g.egr", out);
    export_ok(s, SG_EXPORT_EGR, path, false, 0);
    assert_file_is(path, egr.p, egr.n);

    bytes wsg = {0};
    bb_u8(&wsg, 0);
    bb_i64(&wsg, 10);
    bb_i64(&wsg, 6);
    for (int i = 0; i < 7; i++) bb_i64(&wsg, nindex[i]);
    for (int i = 0; i < 10; i++) {
        bb_i32(&wsg, nlist[i]);
        bb_i32(&wsg, wts[i]);
    }
    snprintf(path, sizeof path, "%s/g.wsg", out);
    export_ok(s, SG_EXPORT_WSG, path, false, 0);
    assert_file_is(path, wsg.p, wsg.n);

    assert_int_equal(tu_dir_entries(out), 6); /* no temporary files left */
    bb_free(&egr);
    bb_free(&wsg);
    sg_store_close(s);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    tu_rm_rf(out);
    free(dir);
    free(out);
}

/* ------------------------------------------------------------ (2) directed */

/* 0->1 (4), 0->2 (2), 1->2 (6), 2->0 (9), 3->1 (1), 3->4 (8): vertex 3 has
 * no in-edges, vertex 4 no out-edges. */
static const uint32_t dir_edges[][3] = {{3, 4, 8}, {0, 2, 2}, {1, 2, 6}, {2, 0, 9}, {3, 1, 1}, {0, 1, 4}};

static void directed_exact(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("export"), *out = tu_tmpdir("export-out");
    char sp[512], path[512];
    snprintf(sp, sizeof sp, "%s/g.sg", dir);
    tu_graph g = tu_graph_from_edges(5, 6, dir_edges, true);
    tu_write_store(sp, &g, NULL);
    sg_store *s = open_store(sp);

    snprintf(path, sizeof path, "%s/g.el", out);
    export_ok(s, SG_EXPORT_EL, path, false, 1);
    const char *el = "0 1\n0 2\n1 2\n2 0\n3 1\n3 4\n";
    assert_file_is(path, el, strlen(el));

    snprintf(path, sizeof path, "%s/g.wel", out);
    export_ok(s, SG_EXPORT_WEL, path, false, 2);
    const char *wel = "0 1 4\n0 2 2\n1 2 6\n2 0 9\n3 1 1\n3 4 8\n";
    assert_file_is(path, wel, strlen(wel));

    snprintf(path, sizeof path, "%s/g.mtx", out);
    export_ok(s, SG_EXPORT_MTX, path, false, 3);
    char mtx[1024];
    snprintf(mtx, sizeof mtx,
             "%%%%MatrixMarket matrix coordinate integer general\n"
             "%% spillgraph export of %s\n"
             "5 5 6\n"
             "1 2 4\n1 3 2\n2 3 6\n3 1 9\n4 2 1\n4 5 8\n",
             sg_store_path(s));
    assert_file_is(path, mtx, strlen(mtx));

    const int32_t xo[] = {0, 2, 3, 4, 6, 6};
    const int32_t ao[] = {1, 2, 2, 0, 1, 4};
    const int32_t wo[] = {4, 2, 6, 9, 1, 8};
    bytes egr = {0};
    bb_i32(&egr, 5);
    bb_i32(&egr, 6);
    for (int i = 0; i < 6; i++) bb_i32(&egr, xo[i]);
    for (int i = 0; i < 6; i++) bb_i32(&egr, ao[i]);
    for (int i = 0; i < 6; i++) bb_i32(&egr, wo[i]);
    snprintf(path, sizeof path, "%s/g.egr", out);
    export_ok(s, SG_EXPORT_EGR, path, false, 0);
    assert_file_is(path, egr.p, egr.n);

    /* in-lists: 0 <- 2 (9); 1 <- 0 (4), 3 (1); 2 <- 0 (2), 1 (6); 3 <- none;
     * 4 <- 3 (8) */
    const int32_t xi[] = {0, 1, 3, 5, 5, 6};
    const int32_t ai[] = {2, 0, 3, 0, 1, 3};
    const int32_t wi[] = {9, 4, 1, 2, 6, 8};
    bytes wsg = {0};
    bb_u8(&wsg, 1);
    bb_i64(&wsg, 6);
    bb_i64(&wsg, 5);
    for (int i = 0; i < 6; i++) bb_i64(&wsg, xo[i]);
    for (int i = 0; i < 6; i++) {
        bb_i32(&wsg, ao[i]);
        bb_i32(&wsg, wo[i]);
    }
    for (int i = 0; i < 6; i++) bb_i64(&wsg, xi[i]);
    for (int i = 0; i < 6; i++) {
        bb_i32(&wsg, ai[i]);
        bb_i32(&wsg, wi[i]);
    }
    for (int threads = 1; threads <= 4; threads++) {
        snprintf(path, sizeof path, "%s/g.wsg", out);
        export_ok(s, SG_EXPORT_WSG, path, true, threads);
        assert_file_is(path, wsg.p, wsg.n);
    }

    assert_int_equal(tu_dir_entries(out), 5);
    bb_free(&egr);
    bb_free(&wsg);
    sg_store_close(s);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    tu_rm_rf(out);
    free(dir);
    free(out);
}

/* f32 weights in text: "%.9g", "real" in the mtx header. */
static void f32_text(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("export"), *out = tu_tmpdir("export-out");
    char sp[512], path[512];
    snprintf(sp, sizeof sp, "%s/g.sg", dir);
    const float fw[] = {0.1f, 2.0f, -0.5f, 1e10f, 123456789.0f, 3.4028235e38f, -7.0f, 1e-7f};
    const size_t ne = sizeof fw / sizeof fw[0];
    uint32_t (*e)[3] = calloc(ne, sizeof *e);
    assert_non_null(e);
    for (size_t i = 0; i < ne; i++) {
        e[i][0] = (uint32_t)i;
        e[i][1] = (uint32_t)i + 1;
        memcpy(&e[i][2], &fw[i], 4);
    }
    tu_graph g = tu_graph_from_edges(ne + 1, ne, (const uint32_t(*)[3])e, false);
    const sg_write_options o = {.weight_type = SG_WEIGHT_F32};
    tu_write_store(sp, &g, &o);
    sg_store *s = open_store(sp);

    bytes want = {0}, want_mtx = {0};
    char line[128];
    snprintf(line, sizeof line,
             "%%%%MatrixMarket matrix coordinate real symmetric\n%% spillgraph export of %s\n"
             "%zu %zu %zu\n", sg_store_path(s), ne + 1, ne + 1, ne);
    bb_str(&want_mtx, line);
    for (size_t i = 0; i < ne; i++) {
        snprintf(line, sizeof line, "%zu %zu %.9g\n", i, i + 1, (double)fw[i]);
        bb_str(&want, line);
        snprintf(line, sizeof line, "%zu %zu %.9g\n", i + 2, i + 1, (double)fw[i]);
        bb_str(&want_mtx, line);
    }
    snprintf(path, sizeof path, "%s/g.wel", out);
    export_ok(s, SG_EXPORT_WEL, path, false, 0);
    assert_file_is(path, want.p, want.n);
    snprintf(path, sizeof path, "%s/g.mtx", out);
    export_ok(s, SG_EXPORT_MTX, path, false, 0);
    assert_file_is(path, want_mtx.p, want_mtx.n);

    bb_free(&want);
    bb_free(&want_mtx);
    free(e);
    sg_store_close(s);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    tu_rm_rf(out);
    free(dir);
    free(out);
}

/* ------------------------------------------------------------ (3) round trips */

/* Random edges avoiding every 7th vertex (isolated ones at both ends too). */
static tu_graph sparse_random(uint64_t n, uint64_t ne, uint32_t maxw, uint64_t seed, bool directed)
{
    uint32_t (*e)[3] = malloc((ne + 1) * sizeof *e);
    assert_non_null(e);
    uint64_t st = seed;
    size_t k = 0;
    while (k < ne) {
        const uint32_t u = (uint32_t)(tu_rand(&st) % (n - 1)), v = (uint32_t)(tu_rand(&st) % (n - 1));
        if (u % 7 == 3 || v % 7 == 3 || u == 0 || v == 0) continue;
        e[k][0] = u;
        e[k][1] = v;
        e[k][2] = 1 + (uint32_t)(tu_rand(&st) % maxw);
        k++;
    }
    tu_graph g = tu_graph_from_edges(n, ne, (const uint32_t(*)[3])e, directed);
    free(e);
    return g;
}

/* Parses a wel file back; lines must come in order of (u, v), and for an
 * undirected graph with u < v. */
static tu_graph parse_wel(const char *path, uint64_t n, bool directed)
{
    bytes b = read_file(path);
    bb_u8(&b, 0);
    size_t cap = 1024, ne = 0;
    uint32_t (*e)[3] = malloc(cap * sizeof *e);
    assert_non_null(e);
    char *p = (char *)b.p;
    long long pu = -1, pv = -1;
    while (*p) {
        char *end;
        const unsigned long long u = strtoull(p, &end, 10);
        assert_true(*end == ' ');
        const unsigned long long v = strtoull(end + 1, &end, 10);
        assert_true(*end == ' ');
        const unsigned long long w = strtoull(end + 1, &end, 10);
        assert_true(*end == '\n');
        p = end + 1;
        assert_true(u < n && v < n && w <= UINT32_MAX);
        if (!directed) assert_true(u < v);
        assert_true((long long)u > pu || ((long long)u == pu && (long long)v > pv));
        pu = (long long)u;
        pv = (long long)v;
        if (ne == cap) {
            cap *= 2;
            e = realloc(e, cap * sizeof *e);
            assert_non_null(e);
        }
        e[ne][0] = (uint32_t)u;
        e[ne][1] = (uint32_t)v;
        e[ne][2] = (uint32_t)w;
        ne++;
    }
    tu_graph g = tu_graph_from_edges(n, ne, (const uint32_t(*)[3])e, directed);
    free(e);
    bb_free(&b);
    return g;
}

/* Checks an egr file against the CSR. */
static void check_egr(const char *path, const tu_graph *g)
{
    bytes b = read_file(path);
    assert_int_equal(b.n, 4 * (2 + (g->n + 1) + 2 * g->m));
    const int32_t *p = (const int32_t *)b.p;
    assert_int_equal(p[0], (int32_t)g->n);
    assert_int_equal(p[1], (int32_t)g->m);
    for (uint64_t v = 0; v <= g->n; v++) assert_int_equal(p[2 + v], (int32_t)g->x[v]);
    const int32_t *nl = p + 2 + g->n + 1, *ew = nl + g->m;
    for (uint64_t i = 0; i < g->m; i++) {
        assert_int_equal(nl[i], (int32_t)g->a[i]);
        assert_int_equal(ew[i], (int32_t)g->w[i]);
    }
    bb_free(&b);
}

/* Checks a wsg file against the CSR, the in-edges against a transpose. */
static void check_wsg(const char *path, const tu_graph *g)
{
    bytes b = read_file(path);
    const uint64_t n = g->n, m = g->m;
    const uint64_t want = 17 + (8 * (n + 1) + 8 * m) * (g->directed ? 2 : 1);
    assert_int_equal(b.n, want);
    assert_int_equal(b.p[0], g->directed ? 1 : 0);
    int64_t v64;
    memcpy(&v64, b.p + 1, 8);
    assert_int_equal(v64, (int64_t)m);
    memcpy(&v64, b.p + 9, 8);
    assert_int_equal(v64, (int64_t)n);
    const uint8_t *q = b.p + 17;
    for (uint64_t v = 0; v <= n; v++, q += 8) {
        memcpy(&v64, q, 8);
        assert_int_equal(v64, (int64_t)g->x[v]);
    }
    for (uint64_t i = 0; i < m; i++, q += 8) {
        int32_t pr[2];
        memcpy(pr, q, 8);
        assert_int_equal(pr[0], (int32_t)g->a[i]);
        assert_int_equal(pr[1], (int32_t)g->w[i]);
    }
    if (g->directed) {
        uint32_t (*e)[3] = malloc((m + 1) * sizeof *e);
        assert_non_null(e);
        for (uint64_t u = 0; u < n; u++)
            for (uint64_t i = g->x[u]; i < g->x[u + 1]; i++) {
                e[i][0] = g->a[i];
                e[i][1] = (uint32_t)u;
                e[i][2] = g->w[i];
            }
        tu_graph t = tu_graph_from_edges(n, m, (const uint32_t(*)[3])e, true);
        free(e);
        for (uint64_t v = 0; v <= n; v++, q += 8) {
            memcpy(&v64, q, 8);
            assert_int_equal(v64, (int64_t)t.x[v]);
        }
        for (uint64_t i = 0; i < m; i++, q += 8) {
            int32_t pr[2];
            memcpy(pr, q, 8);
            assert_int_equal(pr[0], (int32_t)t.a[i]);
            assert_int_equal(pr[1], (int32_t)t.w[i]);
        }
        tu_graph_free(&t);
    }
    bb_free(&b);
}

static void round_trip_one(const tu_graph *g, const sg_write_options *o)
{
    char *dir = tu_tmpdir("export"), *out = tu_tmpdir("export-out");
    char sp[512], p1[512], p3[512];
    snprintf(sp, sizeof sp, "%s/g.sg", dir);
    tu_write_store(sp, g, o);
    sg_store *s = open_store(sp);
    for (size_t f = 0; f < N_FORMATS; f++) {
        snprintf(p1, sizeof p1, "%s/t1.%s", out, ext(all_formats[f]));
        snprintf(p3, sizeof p3, "%s/t3.%s", out, ext(all_formats[f]));
        export_ok(s, all_formats[f], p1, false, 1);
        export_ok(s, all_formats[f], p3, false, 3);
        assert_true(files_equal(p1, p3));
    }
    snprintf(p1, sizeof p1, "%s/t1.wel", out);
    tu_graph back = parse_wel(p1, g->n, g->directed);
    assert_true(tu_graph_equal(g, &back));
    tu_graph_free(&back);
    snprintf(p1, sizeof p1, "%s/t1.egr", out);
    check_egr(p1, g);
    snprintf(p1, sizeof p1, "%s/t1.wsg", out);
    check_wsg(p1, g);
    assert_int_equal(tu_dir_entries(out), 2 * (int)N_FORMATS);
    sg_store_close(s);
    tu_rm_rf(dir);
    tu_rm_rf(out);
    free(dir);
    free(out);
}

static void random_round_trips(void **state)
{
    (void)state;
    const sg_write_options small = {.shard_bytes = 4096, .block_bytes = 1024};
    for (int directed = 0; directed <= 1; directed++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            tu_graph g = sparse_random(300 + 50 * seed, 1200 * seed, 1u << 30, seed, directed);
            round_trip_one(&g, &small);
            tu_graph_free(&g);
        }
    }
}

/* Lists longer than one formatting chunk (a hub joined to every vertex),
 * chunks that start inside a list, and the default (one shard) layout. */
/* The round trip: gen -> store -> export equals the canonical edge
 * set of the generator's raw draws (self-loops dropped, the lightest of each
 * duplicate kept: max weight 40 makes duplicates with different weights). */
static void generated_graph_round_trip(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("export"), *out = tu_tmpdir("export-out");
    char sp[512], path[512];
    snprintf(sp, sizeof sp, "%s/r.sg", dir);
    sg_rmat_options o;
    sg_rmat_defaults(&o);
    o.scale = 9;
    o.edge_factor = 12;
    o.max_weight = 40;
    o.seed = 77;
    o.store.block_bytes = 1024;
    o.store.shard_bytes = 8192;
    sg_gen_report rep;
    sg_error err = {0};
    if (sg_gen_rmat(sp, &o, &rep, &err)) fail_msg("gen: %s", err.msg);

    const uint64_t n = 1ull << o.scale, m = (uint64_t)o.edge_factor << o.scale;
    uint32_t (*e)[3] = malloc(m * sizeof *e);
    for (uint64_t i = 0; i < m; i++) sgi_rmat_edge(&o, i, &e[i][0], &e[i][1], &e[i][2]);
    tu_graph ref = tu_graph_from_edges(n, m, (const uint32_t(*)[3])e, false);
    free(e);
    assert_int_equal(rep.n_edges, ref.m);
    assert_true(rep.duplicates > 0 && rep.self_loops > 0);

    sg_store *s = open_store(sp);
    snprintf(path, sizeof path, "%s/r.wel", out);
    export_ok(s, SG_EXPORT_WEL, path, false, 3);
    tu_graph back = parse_wel(path, n, false);
    assert_true(tu_graph_equal(&ref, &back));
    snprintf(path, sizeof path, "%s/r.egr", out);
    export_ok(s, SG_EXPORT_EGR, path, false, 2);
    check_egr(path, &ref);
    snprintf(path, sizeof path, "%s/r.wsg", out);
    export_ok(s, SG_EXPORT_WSG, path, false, 2);
    check_wsg(path, &ref);
    sg_store_close(s);
    tu_graph_free(&back);
    tu_graph_free(&ref);
    tu_rm_rf(dir);
    tu_rm_rf(out);
    free(dir);
    free(out);
}

static void long_lists(void **state)
{
    (void)state;
    for (int directed = 0; directed <= 1; directed++) {
        const uint64_t n = 120000, extra = 60000;
        uint32_t (*e)[3] = malloc((n + extra) * sizeof *e);
        assert_non_null(e);
        uint64_t st = 42 + (uint64_t)directed;
        size_t k = 0;
        for (uint32_t v = 2; v < n; v++) e[k][0] = 1, e[k][1] = v, e[k][2] = 1 + v % 1000, k++;
        for (uint64_t i = 0; i < extra; i++) {
            e[k][0] = (uint32_t)(tu_rand(&st) % n);
            e[k][1] = (uint32_t)(tu_rand(&st) % n);
            e[k][2] = 1 + (uint32_t)(tu_rand(&st) % 100000);
            k++;
        }
        tu_graph g = tu_graph_from_edges(n, k, (const uint32_t(*)[3])e, directed);
        free(e);
        round_trip_one(&g, NULL);
        const sg_write_options mid = {.shard_bytes = 1 << 20, .block_bytes = 1 << 16};
        round_trip_one(&g, &mid);
        tu_graph_free(&g);
    }
}

/* An empty graph and a graph without edges. */
static void empty_graphs(void **state)
{
    (void)state;
    for (uint64_t n = 0; n <= 3; n += 3) {
        tu_graph g = tu_graph_from_edges(n, 0, NULL, false);
        round_trip_one(&g, NULL);
        tu_graph_free(&g);
    }
}

/* ------------------------------------------------------------ (4) existing target */

static void existing_target(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("export"), *out = tu_tmpdir("export-out");
    char sp[512], path[512];
    snprintf(sp, sizeof sp, "%s/g.sg", dir);
    tu_graph g = tu_graph_from_edges(6, 5, und_edges, false);
    tu_write_store(sp, &g, NULL);
    sg_store *s = open_store(sp);
    snprintf(path, sizeof path, "%s/g.el", out);
    for (size_t f = 0; f < N_FORMATS; f++) {
        write_text_file(path, "old content\n");
        sg_error err = {0};
        assert_int_equal(sg_store_export(s, all_formats[f], path, false, 0, &err), SG_E_EXISTS);
        assert_non_null(strstr(err.msg, path));
        assert_file_is(path, "old content\n", 12);
        assert_int_equal(tu_dir_entries(out), 1);
    }
    export_ok(s, SG_EXPORT_EL, path, true, 0);
    const char *el = "0 1\n0 3\n1 2\n2 4\n3 4\n";
    assert_file_is(path, el, strlen(el));
    assert_int_equal(tu_dir_entries(out), 1);

    /* a directory in the way is "existing" too */
    char sub[600];
    snprintf(sub, sizeof sub, "%s/sub", out);
    assert_int_equal(mkdir(sub, 0755), 0);
    sg_error err = {0};
    assert_int_equal(sg_store_export(s, SG_EXPORT_EL, sub, false, 0, &err), SG_E_EXISTS);
    /* bad arguments */
    assert_int_equal(sg_store_export(s, (sg_export_format)0, path, true, 0, &err), SG_E_INVALID);
    assert_int_equal(sg_store_export(s, (sg_export_format)99, path, true, 0, &err), SG_E_INVALID);
    assert_int_equal(sg_store_export(s, SG_EXPORT_EL, "", true, 0, &err), SG_E_INVALID);
    snprintf(sub, sizeof sub, "%s/", out);
    assert_int_equal(sg_store_export(s, SG_EXPORT_EL, sub, true, 0, &err), SG_E_INVALID);
    assert_int_equal(sg_store_export(s, SG_EXPORT_EL, NULL, true, 0, &err), SG_E_INVALID);
    assert_int_equal(sg_store_export(s, SG_EXPORT_EL, path, true, -1, &err), SG_E_INVALID);
    /* a missing directory */
    snprintf(sub, sizeof sub, "%s/missing/g.el", out);
    assert_int_equal(sg_store_export(s, SG_EXPORT_EL, sub, false, 0, &err), SG_E_NOTFOUND);
    assert_non_null(strstr(err.msg, sub));
    assert_int_equal(tu_dir_entries(out), 2);

    sg_store_close(s);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    tu_rm_rf(out);
    free(dir);
    free(out);
}

/* ------------------------------------------------------------ (5) injected faults */

enum op { OP_NONE, OP_PWRITE, OP_FSYNC, OP_RENAME, OP_SHORT };
static struct {
    enum op op;
    atomic_long countdown;
    int errnum;
    atomic_long hits;
    atomic_bool fired;
} F;

static void arm(enum op op, long n, int errnum)
{
    F.op = op;
    atomic_store(&F.countdown, n);
    F.errnum = errnum;
    atomic_store(&F.hits, 0);
    atomic_store(&F.fired, false);
}

static bool trip(enum op op)
{
    if (F.op != op) return false;
    atomic_fetch_add(&F.hits, 1);
    if (atomic_fetch_sub(&F.countdown, 1) == 0) {
        atomic_store(&F.fired, true);
        return true;
    }
    return false;
}

static ssize_t f_pwrite(int fd, const void *b, size_t n, uint64_t off)
{
    if (F.op == OP_SHORT) { /* every write is short: the caller must loop */
        atomic_fetch_add(&F.hits, 1);
        n = n > 7 ? n / 3 : n;
    } else if (trip(OP_PWRITE)) {
        return -F.errnum;
    }
    return sgi_io_posix.pwrite(fd, b, n, off);
}
static int f_fsync(int fd) { return trip(OP_FSYNC) ? -F.errnum : sgi_io_posix.fsync(fd); }
static int f_rename(const char *a, const char *b, bool x)
{
    return trip(OP_RENAME) ? -F.errnum : sgi_io_posix.rename(a, b, x);
}

static sgi_io io_tab; /* static: must outlive a failed test (teardown restores) */

static void install_faulty(void)
{
    io_tab = sgi_io_posix;
    io_tab.pwrite = f_pwrite;
    io_tab.fsync = f_fsync;
    io_tab.rename = f_rename;
    sgi_io_set(&io_tab);
}

static void injected_faults(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("export"), *out = tu_tmpdir("export-out");
    char sp[512], path[512], ref[512];
    snprintf(sp, sizeof sp, "%s/g.sg", dir);
    const sg_write_options small = {.shard_bytes = 4096, .block_bytes = 1024};
    for (int directed = 0; directed <= 1; directed++) {
        tu_rm_rf(sp);
        tu_graph g = sparse_random(400, 2500, 1000, 7 + (uint64_t)directed, directed);
        tu_write_store(sp, &g, &small);
        sg_store *s = open_store(sp);
        for (size_t f = 0; f < N_FORMATS; f++) {
            const sg_export_format fmt = all_formats[f];
            snprintf(ref, sizeof ref, "%s/ref.%s", dir, ext(fmt));
            export_ok(s, fmt, ref, true, 2);
            snprintf(path, sizeof path, "%s/g.%s", out, ext(fmt));

            /* short writes: same bytes */
            install_faulty();
            arm(OP_SHORT, 0, 0);
            export_ok(s, fmt, path, false, 2);
            sgi_io_set(NULL);
            assert_true(atomic_load(&F.hits) > 1);
            assert_true(files_equal(ref, path));

            /* ENOSPC on the n-th write, over an existing target */
            write_text_file(path, "old\n");
            long failures = 0;
            for (long n = 0;; n++) {
                const long live = sgi_alloc_live();
                install_faulty();
                arm(OP_PWRITE, n, ENOSPC);
                sg_error err = {0};
                const sg_status st = sg_store_export(s, fmt, path, true, 2, &err);
                sgi_io_set(NULL);
                if (!atomic_load(&F.fired)) {
                    assert_int_equal(st, SG_OK);
                    assert_true(files_equal(ref, path));
                    break;
                }
                failures++;
                assert_int_equal(st, SG_E_NOSPACE);
                assert_non_null(strstr(err.msg, path));
                assert_non_null(strstr(err.msg, "No space left"));
                assert_file_is(path, "old\n", 4);
                assert_int_equal(tu_dir_entries(out), 1);
                assert_int_equal(sgi_alloc_live(), live);
            }
            assert_true(failures >= 3); /* header and several shards */

            /* EIO from fsync (the file's, then the directory's) and rename */
            const enum op ops[] = {OP_FSYNC, OP_RENAME};
            for (size_t o = 0; o < 2; o++) {
                for (long n = 0;; n++) {
                    write_text_file(path, "old\n");
                    install_faulty();
                    arm(ops[o], n, EIO);
                    sg_error err = {0};
                    const sg_status st = sg_store_export(s, fmt, path, true, 2, &err);
                    sgi_io_set(NULL);
                    if (!atomic_load(&F.fired)) {
                        assert_int_equal(st, SG_OK);
                        break;
                    }
                    assert_int_equal(st, SG_E_IO);
                    assert_int_equal(tu_dir_entries(out), 1);
                    if (ops[o] == OP_FSYNC && n == 1) {
                        /* syncing the directory after the rename: the new
                         * file is in place */
                        assert_non_null(strstr(err.msg, "directory"));
                        assert_true(files_equal(ref, path));
                    } else {
                        assert_non_null(strstr(err.msg, path));
                        assert_file_is(path, "old\n", 4);
                    }
                }
            }
            tu_rm_rf(path);
        }
        sg_store_close(s);
        tu_graph_free(&g);
    }
    tu_rm_rf(dir);
    tu_rm_rf(out);
    free(dir);
    free(out);
}

/* ------------------------------------------------------------ (6) format limits */

static void format_limits(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("export"), *out = tu_tmpdir("export-out");
    char sp[512], path[512];

    /* f32 weights: egr and wsg need integers */
    snprintf(sp, sizeof sp, "%s/f.sg", dir);
    tu_graph g = tu_graph_from_edges(6, 5, und_edges, false);
    for (uint64_t i = 0; i < g.m; i++) {
        const float f = (float)g.w[i] + 0.25f;
        memcpy(&g.w[i], &f, 4);
    }
    const sg_write_options f32 = {.weight_type = SG_WEIGHT_F32};
    tu_write_store(sp, &g, &f32);
    tu_graph_free(&g);
    sg_store *s = open_store(sp);
    const sg_export_format bin[] = {SG_EXPORT_EGR, SG_EXPORT_WSG};
    for (int b = 0; b < 2; b++) {
        snprintf(path, sizeof path, "%s/g.%s", out, ext(bin[b]));
        sg_error err = {0};
        assert_int_equal(sg_store_export(s, bin[b], path, false, 0, &err), SG_E_FORMAT);
        assert_non_null(strstr(err.msg, path));
        assert_non_null(strstr(err.msg, "f32"));
        assert_int_equal(tu_dir_entries(out), 0);
    }
    sg_store_close(s);

    /* weights beyond INT32_MAX (anywhere: the last edge of a later shard) */
    for (int directed = 0; directed <= 1; directed++) {
        snprintf(sp, sizeof sp, "%s/big%d.sg", dir, directed);
        uint32_t e[1501][3];
        uint64_t rs = 11;
        for (int i = 0; i < 1500; i++) {
            e[i][0] = (uint32_t)(tu_rand(&rs) % 299);
            e[i][1] = (uint32_t)(tu_rand(&rs) % 299);
            e[i][2] = 1 + (uint32_t)(tu_rand(&rs) % 1000);
        }
        e[1500][0] = 299; /* the last vertex's edge, in the last shard */
        e[1500][1] = 5;
        e[1500][2] = (uint32_t)INT32_MAX + 1u;
        g = tu_graph_from_edges(300, 1501, (const uint32_t(*)[3])e, directed);
        const sg_write_options small = {.shard_bytes = 4096, .block_bytes = 1024};
        tu_write_store(sp, &g, &small);
        s = open_store(sp);
        for (int b = 0; b < 2; b++) {
            snprintf(path, sizeof path, "%s/g.%s", out, ext(bin[b]));
            write_text_file(path, "old\n");
            sg_error err = {0};
            assert_int_equal(sg_store_export(s, bin[b], path, true, 3, &err), SG_E_RANGE);
            assert_non_null(strstr(err.msg, path));
            assert_non_null(strstr(err.msg, "too large"));
            assert_file_is(path, "old\n", 4);
            assert_int_equal(tu_dir_entries(out), 1);
            tu_rm_rf(path);
        }
        /* the text formats take any u32 */
        snprintf(path, sizeof path, "%s/g.wel", out);
        export_ok(s, SG_EXPORT_WEL, path, false, 0);
        tu_graph back = parse_wel(path, g.n, g.directed);
        assert_true(tu_graph_equal(&g, &back));
        tu_graph_free(&back);
        tu_rm_rf(path);
        sg_store_close(s);
        tu_graph_free(&g);
    }
    tu_rm_rf(dir);
    tu_rm_rf(out);
    free(dir);
    free(out);
}

/* A corrupt block: the reader's error, naming the shard and the output. */
static void corrupt_store(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("export"), *out = tu_tmpdir("export-out");
    char sp[512], shard[600], path[512];
    snprintf(sp, sizeof sp, "%s/g.sg", dir);
    tu_graph g = sparse_random(300, 1500, 1000, 13, false);
    const sg_write_options small = {.shard_bytes = 4096, .block_bytes = 1024};
    tu_write_store(sp, &g, &small);
    snprintf(shard, sizeof shard, "%s/shard-000001.sgs", sp);
    tu_flip_byte(shard, 70, 0x5A); /* the first data block after the header */
    sg_store *s = open_store(sp);
    for (size_t f = 0; f < N_FORMATS; f++) {
        snprintf(path, sizeof path, "%s/g.%s", out, ext(all_formats[f]));
        write_text_file(path, "old\n");
        sg_error err = {0};
        assert_int_equal(sg_store_export(s, all_formats[f], path, true, 2, &err), SG_E_CORRUPT);
        assert_non_null(strstr(err.msg, path));
        assert_non_null(strstr(err.msg, "shard-000001"));
        assert_file_is(path, "old\n", 4);
        assert_int_equal(tu_dir_entries(out), 1);
        tu_rm_rf(path);
    }
    sg_store_close(s);
    tu_graph_free(&g);
    tu_rm_rf(dir);
    tu_rm_rf(out);
    free(dir);
    free(out);
}

/* ------------------------------------------------------------ (7) names */

static void format_names(void **state)
{
    (void)state;
    assert_int_equal(sg_export_format_parse("el"), SG_EXPORT_EL);
    assert_int_equal(sg_export_format_parse("wel"), SG_EXPORT_WEL);
    assert_int_equal(sg_export_format_parse("mtx"), SG_EXPORT_MTX);
    assert_int_equal(sg_export_format_parse("egr"), SG_EXPORT_EGR);
    assert_int_equal(sg_export_format_parse("wsg"), SG_EXPORT_WSG);
    assert_int_equal(sg_export_format_parse("bin32"), SG_EXPORT_BIN32);
    assert_int_equal(sg_export_format_parse(""), 0);
    assert_int_equal(sg_export_format_parse("EL"), 0);
    assert_int_equal(sg_export_format_parse("el "), 0);
    assert_int_equal(sg_export_format_parse("csv"), 0);
    assert_int_equal(sg_export_format_parse("sg"), 0);
    assert_int_equal(sg_export_format_parse(NULL), 0);
}

/* ------------------------------------------------------------ (8) allocation failures */

static void allocation_failures(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("export"), *out = tu_tmpdir("export-out");
    char sp[512], path[512], ref[512];
    const sg_write_options small = {.shard_bytes = 4096, .block_bytes = 1024};
    for (int directed = 0; directed <= 1; directed++) {
        snprintf(sp, sizeof sp, "%s/g%d.sg", dir, directed);
        tu_graph g = sparse_random(300, 1500, 1000, 5, directed);
        tu_write_store(sp, &g, &small);
        sg_store *s = open_store(sp);
        for (size_t f = 0; f < N_FORMATS; f++) {
            const sg_export_format fmt = all_formats[f];
            snprintf(ref, sizeof ref, "%s/ref%d.%s", dir, directed, ext(fmt));
            export_ok(s, fmt, ref, false, 2);
            snprintf(path, sizeof path, "%s/g.%s", out, ext(fmt));
            long failures = 0;
            for (long n = 0;; n++) {
                const long live = sgi_alloc_live();
                sg_error err = {0};
                sgi_alloc_fail_after(n);
                const sg_status st = sg_store_export(s, fmt, path, false, 2, &err);
                sgi_alloc_fail_after(-1);
                assert_int_equal(sgi_alloc_live(), live);
                if (st == SG_OK) break;
                failures++;
                assert_int_equal(st, SG_E_NOMEM);
                assert_non_null(strstr(err.msg, path));
                assert_int_equal(tu_dir_entries(out), 0);
                assert_true(n < 1000);
            }
            assert_true(failures >= 2);
            assert_true(files_equal(ref, path));
            tu_rm_rf(path);
        }
        sg_store_close(s);
        tu_graph_free(&g);
    }
    tu_rm_rf(dir);
    tu_rm_rf(out);
    free(dir);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(undirected_exact, restore),
        cmocka_unit_test_teardown(directed_exact, restore),
        cmocka_unit_test_teardown(f32_text, restore),
        cmocka_unit_test_teardown(random_round_trips, restore),
        cmocka_unit_test_teardown(generated_graph_round_trip, restore),
        cmocka_unit_test_teardown(long_lists, restore),
        cmocka_unit_test_teardown(empty_graphs, restore),
        cmocka_unit_test_teardown(existing_target, restore),
        cmocka_unit_test_teardown(injected_faults, restore),
        cmocka_unit_test_teardown(format_limits, restore),
        cmocka_unit_test_teardown(corrupt_store, restore),
        cmocka_unit_test_teardown(format_names, restore),
        cmocka_unit_test_teardown(allocation_failures, restore),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
