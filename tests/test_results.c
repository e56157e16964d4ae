/* Result files (src/results.c): every writer in text and binary, byte-exact
 * text for small results, round trips of results made by hand and by real
 * algorithm runs, independence of the thread count across text chunks,
 * empty results, refusals (unknown extension, existing target, unwritable
 * directory), injected write failures and allocation failures. */
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"        /* storage's: sgi_io, sgi_crc32c */
#include "../src/internal.h" /* sgi_forest_alloc, sgi_sssp_alloc, sgi_bfs_alloc */
#include "spillgraph.h"
#include "testgraphs.h"

/* ------------------------------------------------------------ helpers */

typedef struct bytes {
    uint8_t *p;
    size_t n;
} bytes;

static bytes read_file(const char *path)
{
    bytes b = {0};
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    size_t cap = 0;
    for (;;) {
        if (b.n == cap) {
            cap = cap * 2 + 65536;
            b.p = realloc(b.p, cap);
            assert_non_null(b.p);
        }
        const size_t r = fread(b.p + b.n, 1, cap - b.n, f);
        if (r == 0) break;
        b.n += r;
    }
    assert_int_equal(ferror(f), 0);
    fclose(f);
    return b;
}

static void write_text_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void assert_file_is(const char *path, const char *want)
{
    bytes got = read_file(path);
    const size_t n = strlen(want);
    if (got.n != n || memcmp(got.p, want, n) != 0)
        fail_msg("%s holds %zu bytes '%.*s', want '%s'", path, got.n, (int)(got.n < 200 ? got.n : 200),
                 (const char *)got.p, want);
    free(got.p);
}

static bool files_equal(const char *p1, const char *p2)
{
    bytes a = read_file(p1), b = read_file(p2);
    const bool eq = a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
    free(a.p);
    free(b.p);
    return eq;
}

static sg_run *make_run(int threads)
{
    sg_run *run = NULL;
    sg_error err = {0};
    const sg_run_options o = {.backend = SG_BACKEND_CPU, .threads = threads};
    if (sg_run_create(&o, &run, &err) != SG_OK) fail_msg("run: %s", err.msg);
    return run;
}

#define OK(call)                                                                   \
    do {                                                                           \
        sg_error e_ = {0};                                                         \
        sg_error *err = &e_;                                                       \
        const sg_status s_ = (call);                                               \
        if (s_ != SG_OK) fail_msg("%s: %s (%s)", #call, e_.msg, sg_status_name(s_)); \
    } while (0)

static int restore(void **state)
{
    (void)state;
    sgi_io_set(NULL);
    sgi_alloc_fail_after(-1);
    return 0;
}

/* ------------------------------------------------------------ binary reader
 * An independent reading of docs/format.md, "Result files". */

typedef struct res_file {
    uint32_t kind, value_type, n_arrays;
    uint64_t count, n_vertices, extra;
    const uint8_t *data[3];
    bytes raw;
} res_file;

static uint32_t le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint64_t le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static res_file read_bin(const char *path)
{
    res_file r;
    memset(&r, 0, sizeof r);
    r.raw = read_file(path);
    const uint8_t *h = r.raw.p;
    assert_true(r.raw.n >= 64);
    assert_memory_equal(h, "SGRES1\0\0", 8);
    assert_int_equal(le32(h + 8), 1);
    assert_int_equal(le32(h + 60), sgi_crc32c(0, h, 60));
    r.kind = le32(h + 12);
    r.value_type = le32(h + 16);
    r.n_arrays = le32(h + 20);
    r.count = le64(h + 24);
    r.n_vertices = le64(h + 32);
    r.extra = le64(h + 40);
    const uint64_t data_bytes = le64(h + 48);
    assert_int_equal(r.raw.n, 64 + data_bytes);
    assert_int_equal(le32(h + 56), sgi_crc32c(0, h + 64, (size_t)data_bytes));
    assert_true(r.n_arrays == 1 || r.n_arrays == 3);
    const uint64_t vb = r.value_type == 2 || r.value_type == 4 ? 8 : 4;
    assert_int_equal(data_bytes, r.count * (4 * (r.n_arrays - 1) + vb));
    for (uint32_t a = 0; a < r.n_arrays; a++) r.data[a] = h + 64 + a * 4 * r.count;
    return r;
}

/* ------------------------------------------------------------ text reader */

/* The lines of a text file (the file must end with a newline, or be empty). */
typedef struct lines {
    char **line;
    uint64_t n;
    bytes raw;
} lines;

static lines read_lines(const char *path)
{
    lines L = {0};
    L.raw = read_file(path);
    if (L.raw.n) assert_int_equal(L.raw.p[L.raw.n - 1], '\n');
    for (size_t i = 0; i < L.raw.n; i++) L.n += L.raw.p[i] == '\n';
    L.line = calloc(L.n + 1, sizeof *L.line);
    assert_non_null(L.line);
    char *s = (char *)L.raw.p;
    for (uint64_t k = 0; k < L.n; k++) {
        char *nl = memchr(s, '\n', L.raw.n - (size_t)(s - (char *)L.raw.p));
        *nl = '\0';
        L.line[k] = s;
        s = nl + 1;
    }
    return L;
}
static void lines_free(lines *L)
{
    free(L->line);
    free(L->raw.p);
}

/* A whole decimal number, or -1 for "-1"; fails on anything else. */
static int64_t parse_id(const char *s)
{
    if (strcmp(s, "-1") == 0) return -1;
    char *end;
    errno = 0;
    const unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || s[0] == '-' || s[0] == '+') fail_msg("'%s' is not an id", s);
    return (int64_t)v;
}

static void check_ids_text(const char *path, const uint32_t *a, uint64_t n)
{
    lines L = read_lines(path);
    assert_int_equal(L.n, n);
    for (uint64_t i = 0; i < n; i++) {
        const int64_t v = parse_id(L.line[i]);
        if (a[i] == UINT32_MAX) assert_int_equal(v, -1);
        else assert_int_equal(v, a[i]);
    }
    lines_free(&L);
}

static void check_ids_bin(const char *path, unsigned kind, const uint32_t *a, uint64_t n,
                          uint64_t extra)
{
    res_file f = read_bin(path);
    assert_int_equal(f.kind, kind);
    assert_int_equal(f.value_type, 1);
    assert_int_equal(f.n_arrays, 1);
    assert_int_equal(f.count, n);
    assert_int_equal(f.n_vertices, n);
    assert_int_equal(f.extra, extra);
    if (n) assert_memory_equal(f.data[0], a, n * 4);
    free(f.raw.p);
}

static void check_forest_files(const char *txt, const char *bin, const sg_forest *f)
{
    lines L = read_lines(txt);
    assert_int_equal(L.n, f->n_edges);
    for (uint64_t i = 0; i < f->n_edges; i++) {
        char *s = L.line[i], *end;
        assert_int_equal(strtoull(s, &end, 10), f->u[i]);
        assert_int_equal(*end, ' ');
        assert_int_equal(strtoull(end + 1, &end, 10), f->v[i]);
        assert_int_equal(*end, ' ');
        s = end + 1;
        if (f->weight_type == SG_WEIGHT_F32) {
            const float x = strtof(s, &end);
            uint32_t bits;
            memcpy(&bits, &x, 4);
            assert_int_equal(bits, f->w[i]); /* reads back exactly */
        } else {
            assert_int_equal(strtoull(s, &end, 10), f->w[i]);
        }
        assert_int_equal(*end, '\0');
    }
    lines_free(&L);

    res_file r = read_bin(bin);
    assert_int_equal(r.kind, 1);
    assert_int_equal(r.value_type, f->weight_type == SG_WEIGHT_F32 ? 3 : 1);
    assert_int_equal(r.n_arrays, 3);
    assert_int_equal(r.count, f->n_edges);
    assert_int_equal(r.n_vertices, f->n_vertices);
    assert_int_equal(r.extra, f->n_trees);
    if (f->n_edges) {
        assert_memory_equal(r.data[0], f->u, f->n_edges * 4);
        assert_memory_equal(r.data[1], f->v, f->n_edges * 4);
        assert_memory_equal(r.data[2], f->w, f->n_edges * 4);
    }
    free(r.raw.p);
}

static void check_sssp_files(const char *txt, const char *bin, const sg_sssp_result *s)
{
    const uint64_t n = s->n_vertices;
    lines L = read_lines(txt);
    assert_int_equal(L.n, n);
    for (uint64_t i = 0; i < n; i++) {
        const char *t = L.line[i];
        if (s->dist) {
            if (s->dist[i] == UINT64_MAX) {
                assert_string_equal(t, "inf");
            } else {
                char *end;
                errno = 0;
                assert_true(strtoull(t, &end, 10) == s->dist[i]);
                assert_int_equal(*end, '\0');
                assert_int_equal(errno, 0);
            }
        } else {
            char *end;
            const double d = strtod(t, &end);
            assert_int_equal(*end, '\0');
            if (memcmp(&d, &s->dist_f[i], 8) != 0)
                fail_msg("line %llu: '%s' reads as %.17g, want %.17g", (unsigned long long)i, t, d,
                         s->dist_f[i]);
        }
    }
    lines_free(&L);

    res_file r = read_bin(bin);
    assert_int_equal(r.kind, 2);
    assert_int_equal(r.value_type, s->dist ? 2 : 4);
    assert_int_equal(r.n_arrays, 1);
    assert_int_equal(r.count, n);
    assert_int_equal(r.n_vertices, n);
    assert_int_equal(r.extra, s->source);
    if (n) assert_memory_equal(r.data[0], s->dist ? (const void *)s->dist : (const void *)s->dist_f, n * 8);
    free(r.raw.p);
}

/* Writes `what` with both extensions into dir as NAME.txt / NAME.bin. */
#define BOTH(dir, name, txt, bin, call_with_path)                       \
    do {                                                                \
        snprintf(txt, sizeof txt, "%s/%s.txt", dir, name);              \
        snprintf(bin, sizeof bin, "%s/%s.bin", dir, name);              \
        {                                                               \
            const char *path = txt;                                     \
            OK(call_with_path);                                         \
        }                                                               \
        {                                                               \
            const char *path = bin;                                     \
            OK(call_with_path);                                         \
        }                                                               \
    } while (0)

/* ------------------------------------------------------------ exact text */

static void exact_text(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("res-exact");
    char txt[512], bin[512];

    sg_forest *f = sgi_forest_alloc(6, 3, SG_WEIGHT_U32);
    assert_non_null(f);
    const uint32_t fu[] = {0, 2, 1}, fv[] = {1, 5, 4294967294u}, fw[] = {3, 7, 4294967295u};
    memcpy(f->u, fu, sizeof fu);
    memcpy(f->v, fv, sizeof fv);
    memcpy(f->w, fw, sizeof fw);
    f->n_edges = 3;
    f->n_trees = 3;
    BOTH(dir, "forest", txt, bin, sg_forest_write(NULL, f, path, false, err));
    assert_file_is(txt, "0 1 3\n2 5 7\n1 4294967294 4294967295\n");
    check_forest_files(txt, bin, f);
    sg_forest_free(f);

    /* f32 weights: %.9g, integral values as integers */
    f = sgi_forest_alloc(5, 4, SG_WEIGHT_F32);
    assert_non_null(f);
    const float ff[] = {-0.5f, 0.1f, 2.0f, 1e-30f};
    for (int i = 0; i < 4; i++) {
        f->u[i] = (uint32_t)i;
        f->v[i] = (uint32_t)i + 1;
        memcpy(&f->w[i], &ff[i], 4);
    }
    f->n_edges = 4;
    f->n_trees = 1;
    BOTH(dir, "forest-f32", txt, bin, sg_forest_write(NULL, f, path, false, err));
    assert_file_is(txt, "0 1 -0.5\n1 2 0.100000001\n2 3 2\n3 4 1e-30\n");
    check_forest_files(txt, bin, f);
    sg_forest_free(f);

    /* distances: u32 weights (u64, inf), f32 weights (doubles) */
    sg_sssp_result *s = sgi_sssp_alloc(4, 2, SG_WEIGHT_U32, false);
    assert_non_null(s);
    const uint64_t d[] = {5, UINT64_MAX, 0, 18446744073709551614ull};
    memcpy(s->dist, d, sizeof d);
    BOTH(dir, "dist", txt, bin, sg_sssp_write(NULL, s, path, false, err));
    assert_file_is(txt, "5\ninf\n0\n18446744073709551614\n");
    check_sssp_files(txt, bin, s);
    sg_sssp_free(s);

    s = sgi_sssp_alloc(5, 0, SG_WEIGHT_F32, false);
    assert_non_null(s);
    const double df[] = {0.0, 0.1 + 0.2, INFINITY, 1.5, 12345678901.0};
    memcpy(s->dist_f, df, sizeof df);
    BOTH(dir, "dist-f", txt, bin, sg_sssp_write(NULL, s, path, false, err));
    assert_file_is(txt, "0\n0.30000000000000004\ninf\n1.5\n12345678901\n");
    check_sssp_files(txt, bin, s);
    sg_sssp_free(s);

    /* levels, labels, parents */
    sg_bfs_result *b = sgi_bfs_alloc(4, 3, true);
    assert_non_null(b);
    const uint32_t lv[] = {1, SG_NO_LEVEL, 2, 0}, pa[] = {3, SG_NO_VERTEX, 0, 3};
    memcpy(b->level, lv, sizeof lv);
    memcpy(b->parent, pa, sizeof pa);
    BOTH(dir, "levels", txt, bin, sg_bfs_write(NULL, b, path, false, err));
    assert_file_is(txt, "1\n-1\n2\n0\n");
    check_ids_bin(bin, 3, lv, 4, 3);
    BOTH(dir, "parents", txt, bin, sg_parents_write(NULL, b->parent, 4, path, false, err));
    assert_file_is(txt, "3\n-1\n0\n3\n");
    check_ids_bin(bin, 5, pa, 4, 0);
    sg_bfs_free(b);

    uint32_t label[] = {0, 0, 1, 2, 1};
    uint64_t size[] = {2, 2, 1};
    const sg_clusters c = {.n_vertices = 5, .n_clusters = 3, .cut_edges = 2, .label = label,
                           .size = size};
    BOTH(dir, "labels", txt, bin, sg_clusters_write(NULL, &c, path, false, err));
    assert_file_is(txt, "0\n0\n1\n2\n1\n");
    check_ids_bin(bin, 4, label, 5, 3);

    tu_rm_rf(dir);
    free(dir);
}

/* ------------------------------------------------------------ floating point text */

/* The reference of a distance's text: integral values as integers, +inf as
 * "inf", else "%.15g" when it reads back, else "%.17g". */
static void ref_f64(char *o, size_t cap, double d)
{
    if (fabs(d) < 9007199254740992.0 && d == (double)(int64_t)d)
        snprintf(o, cap, "%s%.0f", signbit(d) ? "-" : "", fabs(d));
    else if (isinf(d) && d > 0)
        snprintf(o, cap, "inf");
    else if (snprintf(o, cap, "%.15g", d), strtod(o, NULL) != d)
        snprintf(o, cap, "%.17g", d);
}

/* The writers format floats by hand; the text must be printf's exactly, for
 * every exponent, near powers of ten, near rounding ties, and for the
 * sums of f32 weights that f32 graphs' distances are. */
static void float_text_matches_printf(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("res-float");
    const uint64_t n = 200000;
    sg_forest *f = sgi_forest_alloc(n + 1, n, SG_WEIGHT_F32);
    sg_sssp_result *s = sgi_sssp_alloc(n, 0, SG_WEIGHT_F32, false);
    assert_true(f && s);
    uint64_t rs = 2024;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t z = tu_rand(&rs);
        float x;
        double d;
        switch (i % 4) {
        case 0: { /* any finite bit pattern */
            uint32_t bits = (uint32_t)(z >> 32);
            if ((bits & 0x7f800000u) == 0x7f800000u) bits ^= 0x40000000u;
            memcpy(&x, &bits, 4);
            memcpy(&d, &z, 8);
            if (!isfinite(d)) d = (double)z;
            break;
        }
        case 1: /* fractions */
            x = (float)((z >> 40) % 1000000) / (float)(1 + (z & 1023));
            d = (double)(z >> 11) * 0x1p-30;
            break;
        case 2: { /* next to powers of ten */
            const int e = (int)(z % 60) - 30;
            x = nextafterf((float)pow(10, e / 2), (z >> 8) & 1 ? INFINITY : 0);
            d = nextafter(pow(10, e), (z >> 9) & 1 ? INFINITY : 0);
            break;
        }
        default: /* sums of f32 weights, as distances are */
            x = (float)(z % 100000) * 0.001f;
            d = (double)(float)((z >> 20) % 1000) / 7.0 + (double)0.1f;
            break;
        }
        f->u[i] = (uint32_t)i;
        f->v[i] = (uint32_t)i + 1;
        memcpy(&f->w[i], &x, 4);
        s->dist_f[i] = (z >> 60) == 0 ? -d : d;
    }
    f->n_edges = n;
    f->n_trees = 1;
    char path[512], want[64];
    snprintf(path, sizeof path, "%s/f.txt", dir);
    OK(sg_forest_write(NULL, f, path, false, err));
    lines L = read_lines(path);
    assert_int_equal(L.n, n);
    for (uint64_t i = 0; i < n; i++) {
        float x;
        memcpy(&x, &f->w[i], 4);
        const char *w = strrchr(L.line[i], ' ') + 1;
        snprintf(want, sizeof want, "%.9g", (double)x);
        if (strcmp(w, want) != 0) fail_msg("weight %a: '%s', printf says '%s'", (double)x, w, want);
    }
    lines_free(&L);
    snprintf(path, sizeof path, "%s/d.txt", dir);
    OK(sg_sssp_write(NULL, s, path, false, err));
    L = read_lines(path);
    assert_int_equal(L.n, n);
    for (uint64_t i = 0; i < n; i++) {
        ref_f64(want, sizeof want, s->dist_f[i]);
        if (strcmp(L.line[i], want) != 0)
            fail_msg("distance %a: '%s', want '%s'", s->dist_f[i], L.line[i], want);
    }
    lines_free(&L);
    sg_forest_free(f);
    sg_sssp_free(s);
    tu_rm_rf(dir);
    free(dir);
}

/* ------------------------------------------------------------ empty results */

/* sg_run_name_vertices: text names vertices by original ids (and gains a
 * leading id column per vertex); binary keeps internal ids; a name table of
 * another size is ignored. */
static void original_ids_text(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("res-orig");
    char path[600];
    sg_run *run = make_run(2);
    const uint64_t orig[4] = {7, 1000, 1ull << 40, 18446744073709551615ull};
    sg_run_name_vertices(run, orig, 4);

    sg_forest *f = sgi_forest_alloc(4, 2, SG_WEIGHT_U32);
    assert_non_null(f);
    f->u[0] = 0, f->v[0] = 3, f->w[0] = 9;
    f->u[1] = 1, f->v[1] = 2, f->w[1] = 10;
    f->n_edges = 2;
    f->n_trees = 2;
    snprintf(path, sizeof path, "%s/f.txt", dir);
    OK(sg_forest_write(run, f, path, false, err));
    assert_file_is(path, "7 18446744073709551615 9\n1000 1099511627776 10\n");

    const uint32_t parent[4] = {0, SG_NO_VERTEX, 0, 2};
    snprintf(path, sizeof path, "%s/p.txt", dir);
    OK(sg_parents_write(run, parent, 4, path, false, err));
    assert_file_is(path, "7 7\n1000 -1\n1099511627776 7\n18446744073709551615 1099511627776\n");

    sg_bfs_result *b = sgi_bfs_alloc(4, 0, false);
    assert_non_null(b);
    const uint32_t lv[4] = {0, SG_NO_LEVEL, 1, 2};
    memcpy(b->level, lv, sizeof lv);
    snprintf(path, sizeof path, "%s/l.txt", dir);
    OK(sg_bfs_write(run, b, path, false, err));
    assert_file_is(path, "7 0\n1000 -1\n1099511627776 1\n18446744073709551615 2\n");
    snprintf(path, sizeof path, "%s/l.bin", dir);
    OK(sg_bfs_write(run, b, path, false, err));
    res_file r = read_bin(path);
    assert_memory_equal(r.data[0], lv, sizeof lv); /* internal ids and levels */
    free(r.raw.p);

    /* A table for another vertex count is not used. */
    sg_run_name_vertices(run, orig, 3);
    snprintf(path, sizeof path, "%s/l2.txt", dir);
    OK(sg_bfs_write(run, b, path, false, err));
    assert_file_is(path, "0\n-1\n1\n2\n");
    sg_run_name_vertices(run, NULL, 0);
    sg_bfs_free(b);
    sg_forest_free(f);
    sg_run_free(run);
    tu_rm_rf(dir);
    free(dir);
}

static void empty_results(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("res-empty");
    char txt[512], bin[512];
    sg_forest *f = sgi_forest_alloc(0, 0, SG_WEIGHT_U32);
    assert_non_null(f);
    f->n_edges = 0;
    f->n_trees = 0;
    BOTH(dir, "f", txt, bin, sg_forest_write(NULL, f, path, false, err));
    assert_int_equal(tu_file_size(txt), 0);
    check_forest_files(txt, bin, f);
    sg_forest_free(f);

    /* one vertex, no edges: a forest of one tree and no lines */
    f = sgi_forest_alloc(1, 0, SG_WEIGHT_F32);
    assert_non_null(f);
    f->n_edges = 0;
    f->n_trees = 1;
    BOTH(dir, "f1", txt, bin, sg_forest_write(NULL, f, path, false, err));
    assert_int_equal(tu_file_size(txt), 0);
    check_forest_files(txt, bin, f);
    sg_forest_free(f);

    sg_sssp_result *s = sgi_sssp_alloc(0, 0, SG_WEIGHT_U32, false);
    assert_non_null(s);
    BOTH(dir, "d", txt, bin, sg_sssp_write(NULL, s, path, false, err));
    check_sssp_files(txt, bin, s);
    sg_sssp_free(s);

    BOTH(dir, "p", txt, bin, sg_parents_write(NULL, NULL, 0, path, false, err));
    assert_int_equal(tu_file_size(txt), 0);
    check_ids_bin(bin, 5, NULL, 0, 0);
    tu_rm_rf(dir);
    free(dir);
}

/* ------------------------------------------------------------ real runs */

static void algorithm_results(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("res-algo");
    char txt[512], bin[512];
    for (int f32 = 0; f32 <= 1; f32++) {
        sg_graph *g = tg_make(TG_COMPONENTS, 3000, 11 + (uint64_t)f32, false, f32);
        sg_run *run = make_run(2);

        sg_forest *f = NULL;
        OK(sg_mst(run, g, &f, err));
        assert_true(f->n_edges > 0 && f->n_trees > 1);
        const double before = sg_run_seconds(run, SG_PHASE_WRITE);
        BOTH(dir, "forest", txt, bin, sg_forest_write(run, f, path, f32, err));
        assert_true(sg_run_seconds(run, SG_PHASE_WRITE) > before);
        check_forest_files(txt, bin, f);

        sg_clusters *c = NULL;
        const sg_cluster_options co = {.k = f->n_trees + 5};
        OK(sg_cluster(run, f, &co, &c, err));
        BOTH(dir, "labels", txt, bin, sg_clusters_write(run, c, path, f32, err));
        check_ids_text(txt, c->label, c->n_vertices);
        check_ids_bin(bin, 4, c->label, c->n_vertices, c->n_clusters);
        sg_clusters_free(c);
        sg_forest_free(f);

        uint32_t src = 0;
        OK(sg_graph_random_source(g, 5, &src, err));
        sg_sssp_result *s = NULL;
        const sg_sssp_options so = {.source = src, .want_parents = true};
        OK(sg_sssp(run, g, &so, &s, err));
        if (!(s->reached > 1 && s->reached < s->n_vertices))
            fail_msg("reached %llu of %llu", (unsigned long long)s->reached, (unsigned long long)s->n_vertices);
        BOTH(dir, "dist", txt, bin, sg_sssp_write(run, s, path, f32, err));
        check_sssp_files(txt, bin, s);
        BOTH(dir, "sparents", txt, bin, sg_parents_write(run, s->parent, s->n_vertices, path, f32, err));
        check_ids_text(txt, s->parent, s->n_vertices);
        check_ids_bin(bin, 5, s->parent, s->n_vertices, 0);
        sg_sssp_free(s);

        sg_bfs_result *b = NULL;
        const sg_bfs_options bo = {.source = src, .want_parents = true};
        OK(sg_bfs(run, g, &bo, &b, err));
        BOTH(dir, "levels", txt, bin, sg_bfs_write(run, b, path, f32, err));
        check_ids_text(txt, b->level, b->n_vertices);
        check_ids_bin(bin, 3, b->level, b->n_vertices, src);
        sg_bfs_free(b);

        sg_run_free(run);
        sg_graph_free(g);
    }
    tu_rm_rf(dir);
    free(dir);
}

/* ------------------------------------------------------------ many chunks */

/* Text is formatted in chunks of 65536 lines by the run's threads: the
 * bytes must not depend on the thread count, and lines must not be lost or
 * doubled at chunk boundaries. */
static void chunked_text(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("res-chunks");
    const uint64_t n = 3 * 65536 + 123;
    sg_sssp_result *s = sgi_sssp_alloc(n, 0, SG_WEIGHT_U32, false);
    sg_sssp_result *sf = sgi_sssp_alloc(n, 0, SG_WEIGHT_F32, false);
    uint32_t *p = malloc(n * sizeof *p);
    assert_true(s && sf && p);
    uint64_t rs = 99;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t r = tu_rand(&rs);
        s->dist[i] = r % 7 == 0 ? UINT64_MAX : r >> (r & 63);
        sf->dist_f[i] = r % 5 == 0 ? INFINITY : (double)(r >> 11) * 0x1p-40;
        p[i] = r % 3 == 0 ? SG_NO_VERTEX : (uint32_t)(r >> 32);
    }
    char a[512], b[512];
    for (int k = 0; k < 3; k++) {
        sg_run *r1 = make_run(1), *r3 = make_run(3);
        snprintf(a, sizeof a, "%s/one.txt", dir);
        snprintf(b, sizeof b, "%s/three.txt", dir);
        if (k == 0) {
            OK(sg_sssp_write(r1, s, a, true, err));
            OK(sg_sssp_write(r3, s, b, true, err));
            char c[512];
            snprintf(c, sizeof c, "%s/three.bin", dir);
            OK(sg_sssp_write(r3, s, c, true, err));
            check_sssp_files(a, c, s);
        } else if (k == 1) {
            OK(sg_sssp_write(r1, sf, a, true, err));
            OK(sg_sssp_write(r3, sf, b, true, err));
            lines L = read_lines(a);
            assert_int_equal(L.n, n);
            for (uint64_t i = 0; i < n; i++) {
                const double d = strtod(L.line[i], NULL);
                assert_true(d == sf->dist_f[i]);
            }
            lines_free(&L);
        } else {
            OK(sg_parents_write(r1, p, n, a, true, err));
            OK(sg_parents_write(r3, p, n, b, true, err));
            check_ids_text(a, p, n);
        }
        assert_true(files_equal(a, b));
        sg_run_free(r1);
        sg_run_free(r3);
    }
    sg_sssp_free(s);
    sg_sssp_free(sf);
    free(p);
    tu_rm_rf(dir);
    free(dir);
}

/* ------------------------------------------------------------ refusals */

static void refusals(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("res-refuse");
    char path[512];
    uint32_t par[3] = {0, 0, 1};
    sg_error err = {0};

    /* unknown or missing extensions: nothing written */
    const char *bad[] = {"out.dat", "out", "out.txt.gz", "out.TXT", ".txt", "d.txt/x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, bad[i]);
        memset(&err, 0, sizeof err);
        assert_int_equal(sg_parents_write(NULL, par, 3, path, false, &err), SG_E_INVALID);
        assert_non_null(strstr(err.msg, path));
        assert_non_null(strstr(err.msg, "extension"));
    }
    assert_int_equal(tu_dir_entries(dir), 0);
    assert_int_equal(sg_parents_write(NULL, par, 3, NULL, false, &err), SG_E_INVALID);
    assert_int_equal(sg_parents_write(NULL, par, 3, "", false, &err), SG_E_INVALID);
    assert_int_equal(sg_parents_write(NULL, NULL, 3, "x.txt", false, &err), SG_E_INVALID);
    assert_int_equal(sg_forest_write(NULL, NULL, "x.txt", false, &err), SG_E_INVALID);
    assert_int_equal(sg_bfs_write(NULL, NULL, "x.txt", false, &err), SG_E_INVALID);
    assert_int_equal(sg_clusters_write(NULL, NULL, "x.txt", false, &err), SG_E_INVALID);
    sg_sssp_result bogus = {.n_vertices = 3}; /* neither dist nor dist_f */
    assert_int_equal(sg_sssp_write(NULL, &bogus, "x.txt", false, &err), SG_E_INVALID);
    assert_false(tu_exists("x.txt"));

    /* an existing file: untouched without force, replaced with it */
    snprintf(path, sizeof path, "%s/p.txt", dir);
    write_text_file(path, "old\n");
    memset(&err, 0, sizeof err);
    assert_int_equal(sg_parents_write(NULL, par, 3, path, false, &err), SG_E_EXISTS);
    assert_non_null(strstr(err.msg, path));
    assert_file_is(path, "old\n");
    assert_int_equal(tu_dir_entries(dir), 1);
    OK(sg_parents_write(NULL, par, 3, path, true, err));
    assert_file_is(path, "0\n0\n1\n");
    assert_int_equal(tu_dir_entries(dir), 1);
    /* a dangling symbolic link counts as existing */
    snprintf(path, sizeof path, "%s/link.bin", dir);
    assert_int_equal(symlink("nowhere", path), 0);
    assert_int_equal(sg_parents_write(NULL, par, 3, path, false, &err), SG_E_EXISTS);
    /* a directory is not replaced, even with force */
    snprintf(path, sizeof path, "%s/sub.bin", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    memset(&err, 0, sizeof err);
    assert_int_equal(sg_parents_write(NULL, par, 3, path, true, &err), SG_E_IO);
    assert_non_null(strstr(err.msg, path));
    assert_int_equal(tu_dir_entries(path), 0);
    assert_int_equal(tu_dir_entries(dir), 3);

    /* a directory that does not exist, a "directory" that is a file */
    snprintf(path, sizeof path, "%s/missing/p.txt", dir);
    memset(&err, 0, sizeof err);
    assert_int_equal(sg_parents_write(NULL, par, 3, path, false, &err), SG_E_NOTFOUND);
    assert_non_null(strstr(err.msg, path));
    snprintf(path, sizeof path, "%s/p.txt/q.txt", dir);
    memset(&err, 0, sizeof err);
    assert_int_equal(sg_parents_write(NULL, par, 3, path, false, &err), SG_E_IO);
    assert_non_null(strstr(err.msg, path));

    /* a directory without write permission (root ignores permissions) */
    if (geteuid() != 0) {
        char ro[400];
        snprintf(ro, sizeof ro, "%s/ro", dir);
        assert_int_equal(mkdir(ro, 0555), 0);
        snprintf(path, sizeof path, "%s/p.bin", ro);
        memset(&err, 0, sizeof err);
        assert_int_equal(sg_parents_write(NULL, par, 3, path, false, &err), SG_E_IO);
        assert_non_null(strstr(err.msg, path));
        assert_non_null(strstr(err.msg, "ermission"));
        assert_int_equal(chmod(ro, 0755), 0);
    }
    tu_rm_rf(dir);
    free(dir);
}

/* ------------------------------------------------------------ injected faults */

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
    if (F.op == OP_SHORT) {
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
    char *dir = tu_tmpdir("res-faults"), *out = tu_tmpdir("res-faults-out");
    /* 2.5 text chunks of parents */
    const uint64_t n = 2 * 65536 + 777;
    uint32_t *par = malloc(n * sizeof *par);
    assert_non_null(par);
    for (uint64_t i = 0; i < n; i++) par[i] = i % 11 == 0 ? SG_NO_VERTEX : (uint32_t)(i * 7919u);
    sg_run *run = make_run(2);
    const char *const exts[] = {"txt", "bin"};
    char ref[512], path[512];
    for (int e = 0; e < 2; e++) {
        snprintf(ref, sizeof ref, "%s/ref.%s", dir, exts[e]);
        snprintf(path, sizeof path, "%s/p.%s", out, exts[e]);
        OK(sg_parents_write(run, par, n, ref, false, err));

        /* short writes: the same bytes */
        install_faulty();
        arm(OP_SHORT, 0, 0);
        OK(sg_parents_write(run, par, n, path, false, err));
        sgi_io_set(NULL);
        assert_true(atomic_load(&F.hits) > 2);
        assert_true(files_equal(ref, path));

        /* ENOSPC on the n-th write, over an existing target */
        write_text_file(path, "old\n");
        long failures = 0;
        for (long k = 0;; k++) {
            const long live = sgi_alloc_live();
            install_faulty();
            arm(OP_PWRITE, k, ENOSPC);
            sg_error err = {0};
            const sg_status st = sg_parents_write(run, par, n, path, true, &err);
            sgi_io_set(NULL);
            assert_int_equal(sgi_alloc_live(), live);
            if (!atomic_load(&F.fired)) {
                assert_int_equal(st, SG_OK);
                assert_true(files_equal(ref, path));
                break;
            }
            failures++;
            assert_int_equal(st, SG_E_NOSPACE);
            assert_non_null(strstr(err.msg, path));
            assert_non_null(strstr(err.msg, "No space left"));
            assert_file_is(path, "old\n");
            assert_int_equal(tu_dir_entries(out), 1);
            assert_true(k < 100);
        }
        assert_true(failures >= 2); /* text: three chunks; binary: data and header */

        /* EIO from fsync (the file's, then the directory's) and rename */
        const enum op ops[] = {OP_FSYNC, OP_RENAME};
        for (size_t o = 0; o < 2; o++) {
            for (long k = 0;; k++) {
                write_text_file(path, "old\n");
                install_faulty();
                arm(ops[o], k, EIO);
                sg_error err = {0};
                const sg_status st = sg_parents_write(run, par, n, path, true, &err);
                sgi_io_set(NULL);
                if (!atomic_load(&F.fired)) {
                    assert_int_equal(st, SG_OK);
                    break;
                }
                assert_int_equal(st, SG_E_IO);
                assert_non_null(strstr(err.msg, path));
                assert_int_equal(tu_dir_entries(out), 1);
                if (ops[o] == OP_FSYNC && k == 1) {
                    /* syncing the directory after the rename: the new file
                     * is in place */
                    assert_non_null(strstr(err.msg, "directory"));
                    assert_true(files_equal(ref, path));
                } else {
                    assert_file_is(path, "old\n");
                }
            }
        }
        tu_rm_rf(path);
    }
    sg_run_free(run);
    free(par);
    tu_rm_rf(dir);
    tu_rm_rf(out);
    free(dir);
    free(out);
}

/* ------------------------------------------------------------ allocation failures */

static void allocation_failures(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("res-alloc"), *out = tu_tmpdir("res-alloc-out");
    sg_forest *f = sgi_forest_alloc(5, 3, SG_WEIGHT_U32);
    assert_non_null(f);
    for (uint32_t i = 0; i < 3; i++) {
        f->u[i] = i;
        f->v[i] = i + 2;
        f->w[i] = 10 * i + 1;
    }
    f->n_edges = 3;
    f->n_trees = 2;
    const uint64_t n = 65536 + 5; /* two text chunks: two threads' buffers */
    sg_bfs_result *b = sgi_bfs_alloc(n, 0, false);
    assert_non_null(b);
    for (uint64_t i = 0; i < n; i++) b->level[i] = (uint32_t)(i % 13);
    sg_run *run = make_run(2);
    const char *const exts[] = {"txt", "bin"};
    char ref[512], path[512];
    for (int which = 0; which < 2; which++) {
        for (int e = 0; e < 2; e++) {
            snprintf(ref, sizeof ref, "%s/ref%d.%s", dir, which, exts[e]);
            snprintf(path, sizeof path, "%s/r.%s", out, exts[e]);
            if (which == 0) OK(sg_forest_write(run, f, ref, false, err));
            else OK(sg_bfs_write(run, b, ref, false, err));
            long failures = 0;
            for (long k = 0;; k++) {
                const long live = sgi_alloc_live();
                sg_error err = {0};
                sgi_alloc_fail_after(k);
                const sg_status st = which == 0 ? sg_forest_write(run, f, path, false, &err)
                                                : sg_bfs_write(run, b, path, false, &err);
                sgi_alloc_fail_after(-1);
                assert_int_equal(sgi_alloc_live(), live);
                if (st == SG_OK) break;
                failures++;
                assert_int_equal(st, SG_E_NOMEM);
                assert_non_null(strstr(err.msg, path));
                assert_int_equal(tu_dir_entries(out), 0);
                assert_true(k < 100);
            }
            assert_true(failures >= (e == 0 ? 4 : 2)); /* paths; text: buffers too */
            assert_true(files_equal(ref, path));
            tu_rm_rf(path);
        }
    }
    sg_run_free(run);
    sg_forest_free(f);
    sg_bfs_free(b);
    tu_rm_rf(dir);
    tu_rm_rf(out);
    free(dir);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(exact_text, restore),
        cmocka_unit_test_teardown(float_text_matches_printf, restore),
        cmocka_unit_test_teardown(original_ids_text, restore),
        cmocka_unit_test_teardown(empty_results, restore),
        cmocka_unit_test_teardown(algorithm_results, restore),
        cmocka_unit_test_teardown(chunked_text, restore),
        cmocka_unit_test_teardown(refusals, restore),
        cmocka_unit_test_teardown(injected_faults, restore),
        cmocka_unit_test_teardown(allocation_failures, restore),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
