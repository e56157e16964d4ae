/* sg_convert: semantics from small hand-written inputs, the id mapping, the
 * external-memory path against the in-memory one, temporary files, I/O and
 * allocation failures. */
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "internal.h"
#include "sg_convert.h"

/* ------------------------------------------------------------ helpers */

static char *dir; /* this test's scratch directory */
static char *paths[256]; /* from P() */
static int n_paths;

static int setup(void **state)
{
    (void)state;
    dir = tu_tmpdir("convert");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sgi_io_set(NULL);
    sgi_alloc_fail_after(-1);
    tu_rm_rf(dir);
    free(dir);
    while (n_paths > 0) free(paths[--n_paths]);
    dir = NULL;
    return 0;
}

/* "dir/name", valid until the test's teardown. */
static const char *P(const char *name)
{
    assert_true(n_paths < 256);
    char *b = malloc(strlen(dir) + strlen(name) + 2);
    assert_non_null(b);
    sprintf(b, "%s/%s", dir, name);
    paths[n_paths++] = b;
    return b;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static void write_zst(const char *path, const char *text)
{
    size_t n = strlen(text), cap = ZSTD_compressBound(n);
    void *z = malloc(cap);
    assert_non_null(z);
    size_t zn = ZSTD_compress(z, cap, text, n, 3);
    assert_false(ZSTD_isError(zn));
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(z, 1, zn, f), zn);
    assert_int_equal(fclose(f), 0);
    free(z);
}

static sg_convert_options opts(void)
{
    sg_convert_options o;
    memset(&o, 0, sizeof o);
    o.store.block_bytes = 256;
    o.store.shard_bytes = 2048;
    o.threads = 2;
    o.mem_bytes = 64u << 20;
    return o;
}

static sg_status conv1(const char *in, const char *out, const sg_convert_options *o,
                       sg_convert_report *r, sg_error *e)
{
    const char *ins[1] = {in};
    return sg_convert(ins, 1, out, o, r, e);
}

/* Entries of the scratch directory whose names start with '.' (temporary
 * run directories and store temporaries). */
static int hidden_entries(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c '^\\.'", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

/* Weight bits of edge (u, v) in a tu_graph, or -1 when absent. */
static int64_t weight_of(const tu_graph *g, uint32_t u, uint32_t v)
{
    for (uint64_t e = g->x[u]; e < g->x[u + 1]; e++)
        if (g->a[e] == v) return g->w[e];
    return -1;
}

static float as_float(int64_t bits)
{
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static sg_store_info info_of(const char *path)
{
    sg_store *s = NULL;
    sg_error e = {0};
    assert_int_equal(sg_store_open(path, &s, &e), SG_OK);
    sg_store_info in;
    sg_store_get_info(s, &in);
    sg_check_report cr;
    assert_int_equal(sg_store_check(s, NULL, &cr, &e), SG_OK);
    assert_int_equal(sg_store_check_ids(s, &e), SG_OK);
    sg_store_close(s);
    return in;
}

/* ------------------------------------------------------------ names */

static void test_format_names(void **state)
{
    (void)state;
    assert_int_equal(sg_input_format_parse("wel"), SG_INPUT_WEL);
    assert_int_equal(sg_input_format_parse("bin32"), SG_INPUT_BIN32);
    assert_int_equal(sg_input_format_parse("csv"), SG_INPUT_AUTO);
    assert_int_equal(sg_input_format_parse(NULL), SG_INPUT_AUTO);
    assert_string_equal(sg_input_format_name(SG_INPUT_EGR), "egr");
    assert_string_equal(sg_input_format_name(SG_INPUT_AUTO), "auto");
    for (int f = SG_INPUT_EL; f <= SG_INPUT_EGR; f++)
        assert_int_equal(sg_input_format_parse(sg_input_format_name((sg_input_format)f)), f);
    assert_int_equal(sg_input_format_of_path("g.wel.zst"), SG_INPUT_WEL);
    assert_int_equal(sg_input_format_of_path("dir.x/g.EL"), SG_INPUT_EL);
    assert_int_equal(sg_input_format_of_path("road.gr"), SG_INPUT_GR);
    assert_int_equal(sg_input_format_of_path("m.mtx.zst"), SG_INPUT_MTX);
    assert_int_equal(sg_input_format_of_path("g.wsg"), SG_INPUT_WSG);
    assert_int_equal(sg_input_format_of_path("g.txt"), SG_INPUT_AUTO);
    assert_int_equal(sg_input_format_of_path("dir.el/graph"), SG_INPUT_AUTO);
    assert_int_equal(sg_input_format_of_path(".zst"), SG_INPUT_AUTO);
}

/* ------------------------------------------------------------ semantics */

static void test_self_loops_and_duplicates(void **state)
{
    (void)state;
    /* {1,2} three times (lightest 3), a self-loop, {0,3} once. */
    write_file(P("g.wel"), "# a comment\n1 2 5\n2 1 3\n1 2 7\n4 4 1\n0 3 9\n");
    sg_convert_options o = opts();
    sg_convert_report r;
    sg_error e = {0};
    assert_int_equal(conv1(P("g.wel"), P("g.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.files, 1);
    assert_int_equal(r.edges_read, 5);
    assert_int_equal(r.self_loops, 1);
    assert_int_equal(r.duplicates, 2);
    assert_int_equal(r.n_vertices, 5); /* the self-loop's vertex 4 counts */
    assert_int_equal(r.n_edges, 4);
    assert_int_equal(r.weight_type, SG_WEIGHT_U32);
    assert_false(r.external);
    assert_false(r.negative_weights);
    assert_true(r.peak_bytes > 0);
    tu_graph g = tu_read_store(P("g.sg"));
    assert_int_equal(g.n, 5);
    assert_int_equal(weight_of(&g, 1, 2), 3);
    assert_int_equal(weight_of(&g, 2, 1), 3);
    assert_int_equal(weight_of(&g, 0, 3), 9);
    assert_int_equal(weight_of(&g, 3, 0), 9);
    assert_int_equal(weight_of(&g, 4, 4), -1);
    tu_graph_free(&g);
    sg_store_info in = info_of(P("g.sg"));
    assert_false(in.directed);
    assert_false(in.has_original_ids);
    assert_int_equal(hidden_entries(), 0);
}

static void test_directed(void **state)
{
    (void)state;
    write_file(P("g.wel"), "0 1 4\n1 0 6\n0 1 2\n2 2 1\n1 2 1\n");
    sg_convert_options o = opts();
    o.directed = true;
    sg_convert_report r;
    sg_error e = {0};
    assert_int_equal(conv1(P("g.wel"), P("g.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.n_edges, 3);
    assert_int_equal(r.duplicates, 1);
    assert_int_equal(r.self_loops, 1);
    tu_graph g = tu_read_store(P("g.sg"));
    assert_true(g.directed);
    assert_int_equal(weight_of(&g, 0, 1), 2);
    assert_int_equal(weight_of(&g, 1, 0), 6);
    assert_int_equal(weight_of(&g, 1, 2), 1);
    assert_int_equal(weight_of(&g, 2, 1), -1);
    tu_graph_free(&g);
    assert_true(info_of(P("g.sg")).directed);
}

static void test_weight_types(void **state)
{
    (void)state;
    sg_convert_options o = opts();
    sg_convert_report r;
    sg_error e = {0};
    /* Integers in [0, 2^32): uint32, even the largest. */
    write_file(P("i.wel"), "0 1 4294967295\n1 2 0\n");
    assert_int_equal(conv1(P("i.wel"), P("i.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.weight_type, SG_WEIGHT_U32);
    tu_graph g = tu_read_store(P("i.sg"));
    assert_int_equal(weight_of(&g, 1, 0), 4294967295u);
    tu_graph_free(&g);
    /* A fraction: float32. */
    write_file(P("f.wel"), "0 1 2.5\n1 2 3\n");
    assert_int_equal(conv1(P("f.wel"), P("f.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.weight_type, SG_WEIGHT_F32);
    assert_false(r.negative_weights);
    g = tu_read_store(P("f.sg"));
    assert_true(as_float(weight_of(&g, 0, 1)) == 2.5f);
    assert_true(as_float(weight_of(&g, 2, 1)) == 3.0f);
    tu_graph_free(&g);
    assert_int_equal(info_of(P("f.sg")).weight_type, SG_WEIGHT_F32);
    /* Beyond 2^32: float32. */
    write_file(P("b.wel"), "0 1 4294967296\n");
    assert_int_equal(conv1(P("b.wel"), P("b.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.weight_type, SG_WEIGHT_F32);
    /* Negative: float32, flagged in the report and the manifest. */
    write_file(P("n.wel"), "0 1 -2\n1 2 3\n");
    assert_int_equal(conv1(P("n.wel"), P("n.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.weight_type, SG_WEIGHT_F32);
    assert_true(r.negative_weights);
    sg_store_info in = info_of(P("n.sg"));
    assert_true(in.negative_weights);
    g = tu_read_store(P("n.sg"));
    assert_true(as_float(weight_of(&g, 1, 0)) == -2.0f);
    tu_graph_free(&g);
    /* A negative weight only on a dropped self-loop flags nothing. */
    write_file(P("s.wel"), "0 1 2\n3 3 -1\n");
    assert_int_equal(conv1(P("s.wel"), P("s.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.weight_type, SG_WEIGHT_U32);
    assert_false(r.negative_weights);
}

static void test_nan_rejected(void **state)
{
    (void)state;
    write_file(P("g.wel"), "0 1 2\n1 2 nan\n");
    sg_convert_options o = opts();
    sg_error e = {0};
    sg_status st = conv1(P("g.wel"), P("g.sg"), &o, NULL, &e);
    assert_int_not_equal(st, SG_OK);
    assert_non_null(strstr(e.msg, "g.wel"));
    assert_false(tu_exists(P("g.sg")));
    write_file(P("h.wel"), "0 1 inf\n");
    memset(&e, 0, sizeof e);
    assert_int_not_equal(conv1(P("h.wel"), P("h.sg"), &o, NULL, &e), SG_OK);
    assert_non_null(strstr(e.msg, "h.wel"));
    assert_false(tu_exists(P("h.sg")));
    assert_int_equal(hidden_entries(), 0);
}

static void test_weights_unit_random(void **state)
{
    (void)state;
    write_file(P("g.wel"), "0 1 7\n1 2 8\n2 3 9.5\n3 0 -1\n0 2 4\n");
    sg_convert_options o = opts();
    sg_convert_report r;
    sg_error e = {0};
    o.weights = SG_WEIGHTS_UNIT;
    assert_int_equal(conv1(P("g.wel"), P("u.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.weight_type, SG_WEIGHT_U32);
    tu_graph g = tu_read_store(P("u.sg"));
    for (uint64_t k = 0; k < g.m; k++) assert_int_equal(g.w[k], 1);
    tu_graph_free(&g);

    o.weights = SG_WEIGHTS_RANDOM;
    o.random_max = 1000;
    o.seed = 42;
    assert_int_equal(conv1(P("g.wel"), P("r1.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.weight_type, SG_WEIGHT_U32);
    assert_false(r.negative_weights);
    o.directed = true; /* same weights whatever the direction and mode */
    assert_int_equal(conv1(P("g.wel"), P("r2.sg"), &o, &r, &e), SG_OK);
    o.directed = false;
    o.seed = 43;
    assert_int_equal(conv1(P("g.wel"), P("r3.sg"), &o, &r, &e), SG_OK);
    tu_graph a = tu_read_store(P("r1.sg")), b = tu_read_store(P("r2.sg")),
             c = tu_read_store(P("r3.sg"));
    bool differs = false;
    for (uint32_t u = 0; u < a.n; u++)
        for (uint64_t k = a.x[u]; k < a.x[u + 1]; k++) {
            const uint32_t v = a.a[k];
            assert_true(a.w[k] >= 1 && a.w[k] <= 1000);
            assert_int_equal(weight_of(&a, v, u), a.w[k]); /* both directions agree */
            int64_t wd = weight_of(&b, u, v) >= 0 ? weight_of(&b, u, v) : weight_of(&b, v, u);
            assert_int_equal(wd, a.w[k]);
            if (weight_of(&c, u, v) != a.w[k]) differs = true;
        }
    assert_true(differs); /* another seed, other weights */
    tu_graph_free(&a);
    tu_graph_free(&b);
    tu_graph_free(&c);
}

static void test_concatenated(void **state)
{
    (void)state;
    write_file(P("a.el"), "0 1\n1 2\n");
    write_file(P("b.el"), "# second part\n2 3\n0 1\n");
    write_file(P("all.el"), "0 1\n1 2\n2 3\n0 1\n");
    sg_convert_options o = opts();
    sg_convert_report r, r1;
    sg_error e = {0};
    const char *ins[2] = {P("a.el"), P("b.el")};
    assert_int_equal(sg_convert(ins, 2, P("ab.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.files, 2);
    assert_int_equal(r.edges_read, 4);
    assert_int_equal(r.duplicates, 1);
    assert_int_equal(conv1(P("all.el"), P("all.sg"), &o, &r1, &e), SG_OK);
    tu_graph g1 = tu_read_store(P("ab.sg")), g2 = tu_read_store(P("all.sg"));
    assert_true(tu_graph_equal(&g1, &g2));
    assert_int_equal(g1.n, 4);
    assert_int_equal(g1.m, 6);
    tu_graph_free(&g1);
    tu_graph_free(&g2);
}

static void test_zst_input(void **state)
{
    (void)state;
    const char *text = "0 1 3\n1 2 4\n2 0 5\n5 1 1\n";
    write_file(P("g.wel"), text);
    write_zst(P("z.wel.zst"), text);
    sg_convert_options o = opts();
    sg_convert_report r;
    sg_error e = {0};
    assert_int_equal(conv1(P("g.wel"), P("plain.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(conv1(P("z.wel.zst"), P("z.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.edges_read, 4);
    assert_int_equal(r.input_bytes, tu_file_size(P("z.wel.zst")));
    tu_graph a = tu_read_store(P("plain.sg")), b = tu_read_store(P("z.sg"));
    assert_true(tu_graph_equal(&a, &b));
    tu_graph_free(&a);
    tu_graph_free(&b);
}

/* ------------------------------------------------------------ ids */

static void test_ids_keep_range(void **state)
{
    (void)state;
    write_file(P("g.el"), "0 1\n99999 2\n");
    sg_convert_options o = opts();
    o.store.shard_bytes = 1 << 20;
    sg_convert_report r;
    sg_error e = {0};
    assert_int_equal(conv1(P("g.el"), P("ok.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.n_vertices, 100000);
    write_file(P("h.el"), "0 1\n1 2\n4294967296 2\n");
    memset(&e, 0, sizeof e);
    assert_int_equal(conv1(P("h.el"), P("bad.sg"), &o, &r, &e), SG_E_RANGE);
    assert_non_null(strstr(e.msg, "h.el"));
    assert_non_null(strstr(e.msg, "4294967296"));
    assert_false(tu_exists(P("bad.sg")));
}

static void test_ids_compact_round_trip(void **state)
{
    (void)state;
    /* Sparse 64-bit ids. */
    write_file(P("g.wel"), "1000000000000 5 2\n"
                           "18446744073709551615 5 3\n"
                           "5 1000000000000 9\n"
                           "77 77 1\n"
                           "1099511627776 18446744073709551615 4\n");
    sg_convert_options o = opts();
    o.ids = SG_IDS_COMPACT;
    sg_convert_report r;
    sg_error e = {0};
    assert_int_equal(conv1(P("g.wel"), P("g.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(r.n_vertices, 5); /* 5, 77, 10^12, 2^40, 2^64-1 */
    assert_int_equal(r.self_loops, 1);
    assert_int_equal(r.duplicates, 1);
    assert_int_equal(r.n_edges, 6);
    sg_store_info in = info_of(P("g.sg"));
    assert_true(in.has_original_ids);

    sg_store *s = NULL;
    assert_int_equal(sg_store_open(P("g.sg"), &s, &e), SG_OK);
    uint64_t ids[5];
    assert_int_equal(sg_store_original_ids(s, 0, 5, ids, &e), SG_OK);
    const uint64_t want[5] = {5, 77, 1000000000000ull, 1099511627776ull, UINT64_MAX};
    for (int i = 0; i < 5; i++) assert_int_equal(ids[i], want[i]);
    uint64_t one;
    assert_int_equal(sg_store_original_ids(s, 3, 1, &one, &e), SG_OK);
    assert_int_equal(one, 1099511627776ull);
    assert_int_equal(sg_store_original_ids(s, 4, 2, ids, &e), SG_E_INVALID);
    sg_store_close(s);

    /* Edges in original ids: {10^12, 5} weight 2, {2^64-1, 5} 3, {2^40, 2^64-1} 4. */
    tu_graph g = tu_read_store(P("g.sg"));
    assert_int_equal(weight_of(&g, 2, 0), 2);
    assert_int_equal(weight_of(&g, 0, 4), 3);
    assert_int_equal(weight_of(&g, 3, 4), 4);
    assert_int_equal(weight_of(&g, 1, 1), -1);
    tu_graph_free(&g);

    /* A store without renumbering has no mapping. */
    o.ids = SG_IDS_KEEP;
    write_file(P("k.el"), "0 1\n");
    assert_int_equal(conv1(P("k.el"), P("k.sg"), &o, &r, &e), SG_OK);
    assert_int_equal(sg_store_open(P("k.sg"), &s, &e), SG_OK);
    assert_int_equal(sg_store_original_ids(s, 0, 1, &one, &e), SG_E_INVALID);
    sg_store_close(s);
}

static void test_ids_file_checks(void **state)
{
    (void)state;
    sg_error e = {0};
    tu_graph g = tu_random_graph(10, 20, 9, 1, false);
    sg_store_writer *w = NULL;
    const uint64_t ids[10] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89};
    const uint64_t bad[2] = {100, 100};

    /* Not increasing: refused. */
    assert_int_equal(sg_store_writer_open(P("a.sg"), g.n, NULL, &w, &e), SG_OK);
    assert_int_equal(sg_store_writer_append_ids(w, bad, 2, &e), SG_E_INVALID);
    sg_store_writer_abort(w);
    assert_false(tu_exists(P("a.sg")));
    /* Some but not all: finish refuses. */
    assert_int_equal(sg_store_writer_open(P("a.sg"), g.n, NULL, &w, &e), SG_OK);
    assert_int_equal(sg_store_writer_append(w, g.n, g.x, g.a, g.w, &e), SG_OK);
    assert_int_equal(sg_store_writer_append_ids(w, ids, 4, &e), SG_OK);
    assert_int_equal(sg_store_writer_finish(w, &e), SG_E_INVALID);
    assert_false(tu_exists(P("a.sg")));
    /* In two appends, around the vertices: fine. */
    assert_int_equal(sg_store_writer_open(P("a.sg"), g.n, NULL, &w, &e), SG_OK);
    assert_int_equal(sg_store_writer_append_ids(w, ids, 4, &e), SG_OK);
    assert_int_equal(sg_store_writer_append(w, g.n, g.x, g.a, g.w, &e), SG_OK);
    assert_int_equal(sg_store_writer_append_ids(w, bad, 1, &e), SG_OK); /* 100 > 5 */
    assert_int_equal(sg_store_writer_append_ids(w, ids + 4, 5, &e), SG_E_INVALID); /* 8 < 100 */
    sg_store_writer_abort(w);
    assert_int_equal(sg_store_writer_open(P("a.sg"), g.n, NULL, &w, &e), SG_OK);
    assert_int_equal(sg_store_writer_append_ids(w, ids, 4, &e), SG_OK);
    assert_int_equal(sg_store_writer_append(w, g.n, g.x, g.a, g.w, &e), SG_OK);
    assert_int_equal(sg_store_writer_append_ids(w, ids + 4, 6, &e), SG_OK);
    assert_int_equal(sg_store_writer_finish(w, &e), SG_OK);
    sg_store_info in = info_of(P("a.sg"));
    assert_true(in.has_original_ids);
    tu_graph back = tu_read_store(P("a.sg"));
    assert_true(tu_graph_equal(&g, &back));
    tu_graph_free(&back);

    /* A flipped byte: the checksum finds it; a truncated file fails open. */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", P("a.sg"), P("b.sg"));
    assert_int_equal(system(cmd), 0);
    tu_flip_byte(P("b.sg/ids.u64"), 17, 0x01);
    sg_store *s = NULL;
    assert_int_equal(sg_store_open(P("b.sg"), &s, &e), SG_OK);
    assert_int_equal(sg_store_check_ids(s, &e), SG_E_CORRUPT);
    assert_non_null(strstr(e.msg, "ids.u64"));
    uint64_t one;
    assert_int_equal(sg_store_original_ids(s, 0, 1, &one, &e), SG_E_CORRUPT);
    sg_store_close(s);
    tu_truncate(P("b.sg/ids.u64"), 72);
    assert_int_equal(sg_store_open(P("b.sg"), &s, &e), SG_E_CORRUPT);
    assert_non_null(strstr(e.msg, "ids.u64"));
    unlink(P("b.sg/ids.u64"));
    assert_int_equal(sg_store_open(P("b.sg"), &s, &e), SG_E_CORRUPT);
    assert_non_null(strstr(e.msg, "missing"));
    tu_graph_free(&g);
}

/* ------------------------------------------------------------ external path */

/* A random edge list of ne edges over n vertices (duplicates and self-loops
 * included) as .wel text. */
static void write_random_wel(const char *path, uint64_t n, uint64_t ne, uint64_t seed)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    uint64_t s = seed;
    for (uint64_t i = 0; i < ne; i++) {
        uint64_t u = tu_rand(&s) % n, v = tu_rand(&s) % n;
        fprintf(f, "%llu %llu %llu\n", (unsigned long long)u, (unsigned long long)v,
                (unsigned long long)(tu_rand(&s) % 50 + 1));
    }
    assert_int_equal(fclose(f), 0);
}

static void external_vs_memory(bool directed, sg_id_mode ids)
{
    write_random_wel(P("g.wel"), 700, 6000, 11);
    write_random_wel(P("h.wel"), 900, 3000, 12);
    const char *ins[2] = {P("g.wel"), P("h.wel")};
    sg_convert_options o = opts();
    o.directed = directed;
    o.ids = ids;
    sg_convert_report rm, rx;
    sg_error e = {0};
    assert_int_equal(sg_convert(ins, 2, P("mem.sg"), &o, &rm, &e), SG_OK);
    assert_false(rm.external);
    assert_int_equal(rm.partitions, 0);
    o.mem_bytes = 16384; /* a few hundred records: many runs and partitions */
    o.store.force = true;
    assert_int_equal(sg_convert(ins, 2, P("ext.sg"), &o, &rx, &e), SG_OK);
    assert_true(rx.external);
    assert_true(rx.partitions > 1);
    assert_true(rx.run_bytes > 0);
    assert_int_equal(rx.n_vertices, rm.n_vertices);
    assert_int_equal(rx.n_edges, rm.n_edges);
    assert_int_equal(rx.duplicates, rm.duplicates);
    assert_int_equal(rx.self_loops, rm.self_loops);
    assert_int_equal(rx.edges_read, 9000);
    tu_graph a = tu_read_store(P("mem.sg")), b = tu_read_store(P("ext.sg"));
    assert_true(tu_graph_equal(&a, &b));
    tu_graph_free(&a);
    tu_graph_free(&b);
    if (ids == SG_IDS_COMPACT) {
        sg_store *s1 = NULL, *s2 = NULL;
        assert_int_equal(sg_store_open(P("mem.sg"), &s1, &e), SG_OK);
        assert_int_equal(sg_store_open(P("ext.sg"), &s2, &e), SG_OK);
        uint64_t *i1 = malloc(rm.n_vertices * 8), *i2 = malloc(rm.n_vertices * 8);
        assert_int_equal(sg_store_original_ids(s1, 0, rm.n_vertices, i1, &e), SG_OK);
        assert_int_equal(sg_store_original_ids(s2, 0, rm.n_vertices, i2, &e), SG_OK);
        assert_memory_equal(i1, i2, rm.n_vertices * 8);
        free(i1);
        free(i2);
        sg_store_close(s1);
        sg_store_close(s2);
    }
    info_of(P("ext.sg"));
    assert_int_equal(hidden_entries(), 0); /* run files gone */
}

/* Batches of 4096+ edges go through the parallel intake when threads > 1;
 * it must give exactly what the one-edge-at-a-time path gives, and a bad
 * edge deep in such a batch is still named by its number. */
static void test_parallel_intake(void **state)
{
    (void)state;
    FILE *f = fopen(P("big.wel"), "w");
    assert_non_null(f);
    uint64_t s = 99;
    for (int i = 0; i < 20000; i++) {
        uint64_t u = tu_rand(&s) % 3000, v = i % 7 == 0 ? u : tu_rand(&s) % 3000;
        fprintf(f, "%llu %llu %llu\n", (unsigned long long)u, (unsigned long long)v,
                (unsigned long long)(tu_rand(&s) % 9 + 1));
    }
    assert_int_equal(fclose(f), 0);
    sg_convert_options o = opts();
    sg_convert_report r1, r3;
    sg_error e = {0};
    o.threads = 1;
    assert_int_equal(conv1(P("big.wel"), P("t1.sg"), &o, &r1, &e), SG_OK);
    o.threads = 3;
    assert_int_equal(conv1(P("big.wel"), P("t3.sg"), &o, &r3, &e), SG_OK);
    assert_int_equal(r1.self_loops, r3.self_loops);
    assert_true(r3.self_loops >= 20000 / 7);
    assert_int_equal(r1.duplicates, r3.duplicates);
    assert_int_equal(r1.n_vertices, r3.n_vertices);
    tu_graph a = tu_read_store(P("t1.sg")), b = tu_read_store(P("t3.sg"));
    assert_true(tu_graph_equal(&a, &b));
    tu_graph_free(&a);
    tu_graph_free(&b);

    f = fopen(P("bad.wel"), "w");
    assert_non_null(f);
    for (int i = 1; i <= 20000; i++) fprintf(f, i == 15000 ? "%d 4294967296%d 1\n" : "%d %d 1\n", i, i + 1);
    assert_int_equal(fclose(f), 0);
    sg_status st = conv1(P("bad.wel"), P("bad.sg"), &o, &r3, &e);
    assert_int_equal(st, SG_E_RANGE);
    assert_non_null(strstr(e.msg, "edge 15000"));
    assert_non_null(strstr(e.msg, "beyond 2^32-1"));
    assert_false(tu_exists(P("bad.sg")));
}

static void test_external_undirected(void **state)
{
    (void)state;
    external_vs_memory(false, SG_IDS_KEEP);
}

static void test_external_directed_compact(void **state)
{
    (void)state;
    external_vs_memory(true, SG_IDS_COMPACT);
}

/* ------------------------------------------------------------ failures */

static void test_failure_cleans_up(void **state)
{
    (void)state;
    /* A bad line after many edges: runs were written before the error. */
    write_random_wel(P("g.wel"), 500, 4000, 3);
    FILE *f = fopen(P("g.wel"), "a");
    assert_non_null(f);
    fputs("1 2 3\nthis is not an edge\n", f);
    assert_int_equal(fclose(f), 0);
    sg_convert_options o = opts();
    o.mem_bytes = 16384;
    sg_error e = {0};
    assert_int_not_equal(conv1(P("g.wel"), P("g.sg"), &o, NULL, &e), SG_OK);
    assert_non_null(strstr(e.msg, "g.wel"));
    assert_false(tu_exists(P("g.sg")));
    assert_int_equal(hidden_entries(), 0);

    /* A missing input. */
    assert_int_equal(conv1(P("nope.el"), P("g.sg"), &o, NULL, &e), SG_E_NOTFOUND);
    assert_non_null(strstr(e.msg, "nope.el"));
    /* An unknown extension. */
    write_file(P("g.txt"), "0 1\n");
    assert_int_equal(conv1(P("g.txt"), P("g.sg"), &o, NULL, &e), SG_E_INVALID);
    assert_non_null(strstr(e.msg, "g.txt"));
    /* ...unless the format is given. */
    o.format = SG_INPUT_EL;
    assert_int_equal(conv1(P("g.txt"), P("t.sg"), &o, NULL, &e), SG_OK);

    /* An existing store: refused without force, untouched by a failure with. */
    o.format = SG_INPUT_AUTO;
    write_file(P("ok.el"), "0 1\n1 2\n");
    assert_int_equal(conv1(P("ok.el"), P("old.sg"), &o, NULL, &e), SG_OK);
    tu_graph before = tu_read_store(P("old.sg"));
    assert_int_equal(conv1(P("ok.el"), P("old.sg"), &o, NULL, &e), SG_E_EXISTS);
    o.store.force = true;
    assert_int_not_equal(conv1(P("g.wel"), P("old.sg"), &o, NULL, &e), SG_OK);
    tu_graph after = tu_read_store(P("old.sg"));
    assert_true(tu_graph_equal(&before, &after));
    tu_graph_free(&before);
    tu_graph_free(&after);
    /* A directory that is not a store is never replaced. */
    assert_int_equal(mkdir(P("plain"), 0755), 0);
    assert_int_equal(conv1(P("ok.el"), P("plain"), &o, NULL, &e), SG_E_EXISTS);
    assert_int_equal(hidden_entries(), 0);
}

enum op { OP_NONE, OP_PWRITE, OP_PREAD, OP_OPEN, OP_MKDIR, OP_CLOSE, OP_FSYNC };
static struct {
    enum op op;
    long countdown;   /* fail when it reaches 0; < 0: never */
    int errnum;
    long hits;        /* matching calls */
    bool fired;
} F;
static bool trip(enum op op)
{
    if (F.op != op) return false;
    F.hits++;
    if (F.fired || F.countdown < 0) return false;
    if (F.countdown-- == 0) {
        F.fired = true;
        return true;
    }
    return false;
}
static ssize_t f_pwrite(int fd, const void *b, size_t n, uint64_t off)
{
    return trip(OP_PWRITE) ? -F.errnum : sgi_io_posix.pwrite(fd, b, n, off);
}
static ssize_t f_pread(int fd, void *b, size_t n, uint64_t off)
{
    return trip(OP_PREAD) ? -F.errnum : sgi_io_posix.pread(fd, b, n, off);
}
static int f_open(const char *p, int fl, mode_t m)
{
    return trip(OP_OPEN) ? -F.errnum : sgi_io_posix.open(p, fl, m);
}
static int f_mkdir(const char *p, mode_t m)
{
    return trip(OP_MKDIR) ? -F.errnum : sgi_io_posix.mkdir(p, m);
}
static int f_close(int fd)
{
    if (trip(OP_CLOSE)) {
        sgi_io_posix.close(fd);
        return -F.errnum;
    }
    return sgi_io_posix.close(fd);
}
static int f_fsync(int fd) { return trip(OP_FSYNC) ? -F.errnum : sgi_io_posix.fsync(fd); }
static sgi_io io_tab;

/* One conversion with the n-th call of `op` failing (n < 0: none).
 * Returns the calls of `op` made. */
static long faulty_run(enum op op, long n, int errnum, sg_status *st, sg_error *e)
{
    const sg_convert_options o0 = opts();
    sg_convert_options o = o0;
    o.mem_bytes = 16384;
    o.store.force = true;
    F.op = op;
    F.countdown = n;
    F.errnum = errnum;
    F.hits = 0;
    F.fired = false;
    sgi_io_set(&io_tab);
    memset(e, 0, sizeof *e);
    *st = conv1(P("g.wel"), P("out.sg"), &o, NULL, e);
    sgi_io_set(NULL);
    return F.hits;
}

static void test_io_faults(void **state)
{
    (void)state;
    write_random_wel(P("g.wel"), 300, 2500, 5);
    sg_convert_options o = opts();
    o.mem_bytes = 16384;
    sg_error e = {0};
    sg_convert_report r;
    assert_int_equal(conv1(P("g.wel"), P("out.sg"), &o, &r, &e), SG_OK); /* to be kept */
    assert_true(r.external);
    tu_graph ref = tu_read_store(P("out.sg"));

    io_tab = sgi_io_posix;
    io_tab.pwrite = f_pwrite;
    io_tab.pread = f_pread;
    io_tab.open = f_open;
    io_tab.mkdir = f_mkdir;
    io_tab.close = f_close;
    io_tab.fsync = f_fsync;
    const enum op ops[] = {OP_PWRITE, OP_PREAD, OP_OPEN, OP_MKDIR, OP_CLOSE, OP_FSYNC};
    const int errs[] = {ENOSPC, EIO, EACCES, EIO, EIO, EIO};
    int failures = 0;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        sg_status st;
        const long calls = faulty_run(ops[k], -1, 0, &st, &e);
        assert_int_equal(st, SG_OK);
        assert_true(calls > 0);
        /* The first calls, then spread over the run (run files, the
         * store's shards, the manifest), and the last. */
        long at[12] = {0, 1, 2, 3};
        for (int q = 4; q < 11; q++) at[q] = calls * (q - 3) / 8;
        at[11] = calls - 1;
        for (int q = 0; q < 12; q++) {
            if (at[q] >= calls) continue;
            faulty_run(ops[k], at[q], errs[k], &st, &e);
            assert_true(F.fired);
            assert_int_equal(hidden_entries(), 0);
            tu_graph g = tu_read_store(P("out.sg")); /* old or new: the same graph */
            assert_true(tu_graph_equal(&g, &ref));
            tu_graph_free(&g);
            if (st != SG_OK) {
                failures++;
                assert_true(e.msg[0] != '\0');
                if (ops[k] == OP_PWRITE) assert_int_equal(st, SG_E_NOSPACE);
                else assert_int_equal(st, SG_E_IO);
            }
        }
    }
    /* Every pwrite, pread, open, mkdir and fsync failure is reported. */
    assert_true(failures >= 40);
    tu_graph_free(&ref);
}

static void test_alloc_failures(void **state)
{
    (void)state;
    write_random_wel(P("g.wel"), 200, 1500, 8);
    write_file(P("s.wel"), "10 20 1\n30 10 2.5\n");
    const char *ins[2] = {P("g.wel"), P("s.wel")};
    for (int mode = 0; mode < 2; mode++) {
        sg_convert_options o = opts();
        o.store.force = true;
        if (mode == 1) {
            o.mem_bytes = 16384;
            o.ids = SG_IDS_COMPACT;
        }
        sg_error e = {0};
        const long live0 = sgi_alloc_live();
        for (long n = 0;; n++) {
            sgi_alloc_fail_after(n);
            sg_status st = sg_convert(ins, 2, P("a.sg"), &o, NULL, &e);
            sgi_alloc_fail_after(-1);
            assert_int_equal(sgi_alloc_live(), live0);
            assert_int_equal(hidden_entries(), 0);
            if (st == SG_OK) break;
            if (st != SG_E_NOMEM) print_error("n=%ld: %s\n", n, e.msg);
            assert_int_equal(st, SG_E_NOMEM);
            assert_true(n < 5000);
        }
        tu_graph g = tu_read_store(P("a.sg"));
        assert_true(g.n > 0);
        tu_graph_free(&g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_format_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_self_loops_and_duplicates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_weight_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nan_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_weights_unit_random, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concatenated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_zst_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ids_keep_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ids_compact_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ids_file_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_external_undirected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_external_directed_compact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parallel_intake, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failure_cleans_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_io_faults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
    };
    if (getenv("SG_TEST_FILTER")) cmocka_set_test_filter(getenv("SG_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
