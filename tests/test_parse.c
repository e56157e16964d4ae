/* Input readers (storage/parse.c): every format from small hand-written
 * files, comments, CRLF, 1-based ids, header counts, weights; every
 * malformed case with its message; zstd input (single, concatenated,
 * corrupt, truncated, detected by magic); multi-chunk text parsed in
 * parallel, in order, with late errors on the right line; egr/wsg/sg read
 * back from exports of stores; allocation failures and injected I/O errors
 * with a leak check. */
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "internal.h"
#include "parse.h"

static const size_t default_chunk = (size_t)32 << 20;
static char *dir;

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
static void bb_str(bytes *b, const char *s) { bb_put(b, s, strlen(s)); }
static void bb_free(bytes *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static char *path_of(const char *name)
{
    static char buf[4][512];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 512, "%s/%s", dir, name);
    return p;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n) assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static bytes file_bytes(const char *path)
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

/* Writes `text` to dir/name; returns the path. */
static const char *put(const char *name, const char *text)
{
    const char *p = path_of(name);
    write_bytes(p, text, strlen(text));
    return p;
}

static bytes zcompress(const void *src, size_t n, int level)
{
    bytes b = {0};
    b.cap = ZSTD_compressBound(n);
    b.p = malloc(b.cap);
    assert_non_null(b.p);
    /* with a checksum, as the zstd command writes, so corruption is found */
    ZSTD_CCtx *c = ZSTD_createCCtx();
    assert_non_null(c);
    assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level)));
    assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)));
    const size_t r = ZSTD_compress2(c, b.p, b.cap, src, n);
    assert_false(ZSTD_isError(r));
    ZSTD_freeCCtx(c);
    b.n = r;
    return b;
}

/* The whole input, read in batches of `cap` edges. */
typedef struct result {
    sg_status st;
    sg_error err;
    sgi_in_edge *e;
    size_t n;
    sgi_in_info info;     /* after the last read */
    uint64_t lines, comments;
} result;

static result read_all(const char *path, sg_input_format fmt, int threads, size_t cap)
{
    result res = {0};
    sgi_in_reader *r = NULL;
    res.st = sgi_in_open(path, fmt, threads, &r, &res.err);
    if (res.st != SG_OK) return res;
    sgi_in_edge *buf = malloc(cap * sizeof *buf);
    assert_non_null(buf);
    size_t ecap = 0;
    for (;;) {
        size_t got = 99;
        res.st = sgi_in_next(r, buf, cap, &got, &res.err);
        if (res.st != SG_OK) {
            /* errors are sticky */
            sg_error e2;
            size_t got2 = 7;
            assert_int_equal(sgi_in_next(r, buf, cap, &got2, &e2), res.st);
            assert_string_equal(e2.msg, res.err.msg);
            break;
        }
        assert_true(got <= cap);
        if (got == 0) {
            size_t got2 = 7;
            assert_int_equal(sgi_in_next(r, buf, cap, &got2, &res.err), SG_OK);
            assert_int_equal(got2, 0);
            break;
        }
        if (res.n + got > ecap) {
            ecap = (res.n + got) * 2;
            res.e = realloc(res.e, ecap * sizeof *res.e);
            assert_non_null(res.e);
        }
        memcpy(res.e + res.n, buf, got * sizeof *buf);
        res.n += got;
    }
    res.info = *sgi_in_get_info(r);
    res.lines = sgi_in_lines(r);
    res.comments = sgi_in_comment_lines(r);
    if (res.st == SG_OK) assert_true(sgi_in_bytes_done(r) == res.info.file_bytes);
    free(buf);
    sgi_in_close(r);
    return res;
}

static result read_ok(const char *path, sg_input_format fmt)
{
    result res = read_all(path, fmt, 2, 3);
    if (res.st != SG_OK) fail_msg("%s: %s", path, res.err.msg);
    return res;
}

static void result_free(result *r)
{
    free(r->e);
    r->e = NULL;
}

/* Reading fails with `code` and a message holding every given piece. */
#define expect_fail(res, code, ...) expect_fail_((res), (code), (const char *[]){__VA_ARGS__, NULL})
static void expect_fail_(result res, sg_status code, const char **parts)
{
    if (res.st != code) fail_msg("expected status %d, got %d (%s)", code, res.st, res.err.msg);
    for (; *parts; parts++)
        if (!strstr(res.err.msg, *parts)) fail_msg("'%s' not in '%s'", *parts, res.err.msg);
    result_free(&res);
}

static void edge_is(const sgi_in_edge *e, uint64_t u, uint64_t v, double w)
{
    if (e->u != u || e->v != v || e->w != w)
        fail_msg("edge (%llu, %llu, %.17g), expected (%llu, %llu, %.17g)",
                 (unsigned long long)e->u, (unsigned long long)e->v, e->w,
                 (unsigned long long)u, (unsigned long long)v, w);
}

static int setup(void **state)
{
    (void)state;
    dir = tu_tmpdir("parse");
    return 0;
}

static int restore(void **state)
{
    (void)state;
    sgi_io_set(NULL);
    sgi_alloc_fail_after(-1);
    sgi_in_chunk_bytes = default_chunk;
    tu_rm_rf(dir);
    free(dir);
    dir = NULL;
    return 0;
}

/* ------------------------------------------------------------ text formats */

static void el_basic(void **state)
{
    (void)state;
    const char *p = put("a.el", "# SNAP dump\n% other comment\n0 1\n\n1\t2\r\n  3   4  \n"
                                "   # indented comment\n18446744073709551615 0\n5 6");
    result r = read_ok(p, SG_INPUT_AUTO);
    assert_int_equal(r.n, 5);
    edge_is(&r.e[0], 0, 1, 1);
    edge_is(&r.e[1], 1, 2, 1);
    edge_is(&r.e[2], 3, 4, 1);
    edge_is(&r.e[3], UINT64_MAX, 0, 1);
    edge_is(&r.e[4], 5, 6, 1);
    assert_int_equal(r.info.format, SG_INPUT_EL);
    assert_false(r.info.weighted);
    assert_false(r.info.compressed);
    assert_false(r.info.has_header_counts);
    assert_int_equal(r.lines, 9);
    assert_int_equal(r.comments, 3);
    result_free(&r);

    /* empty and comment-only files */
    r = read_ok(put("empty.el", ""), SG_INPUT_AUTO);
    assert_int_equal(r.n, 0);
    assert_int_equal(r.lines, 0);
    result_free(&r);
    r = read_ok(put("c.el", "# only\n#comments\n"), SG_INPUT_AUTO);
    assert_int_equal(r.n, 0);
    assert_int_equal(r.lines, 2);
    assert_int_equal(r.comments, 2);
    result_free(&r);

    /* the format given explicitly wins over the extension */
    r = read_ok(put("x.txt", "1 2 3\n"), SG_INPUT_WEL);
    assert_int_equal(r.n, 1);
    edge_is(&r.e[0], 1, 2, 3);
    result_free(&r);
}

static void wel_weights(void **state)
{
    (void)state;
    /* integers only: float_weights stays false */
    result r = read_ok(put("i.wel", "0 1 5\n1 2 -3\n2 3 +7\n3 4 9007199254740993\n"
                                    "4 5 0\n5 6 123456789012345678901234\n"),
                       SG_INPUT_AUTO);
    assert_int_equal(r.n, 6);
    assert_true(r.info.weighted);
    assert_false(r.info.float_weights);
    edge_is(&r.e[0], 0, 1, 5);
    edge_is(&r.e[1], 1, 2, -3);
    edge_is(&r.e[2], 2, 3, 7);
    edge_is(&r.e[3], 3, 4, 9007199254740992.0); /* 2^53 + 1 rounds to even */
    edge_is(&r.e[4], 4, 5, 0);
    edge_is(&r.e[5], 5, 6, strtod("123456789012345678901234", NULL));
    result_free(&r);

    /* reals: every form as strtod reads it */
    static const char *const ws[] = {"2.5", "0.1", "1e3", "-1.5E-2", "0.30000000000000004441",
                                     "123.456", "1.", ".5", "9007199254740993.0", "0x10",
                                     "1e-320", "3.14159265358979323846264338327950288"};
    const size_t nw = sizeof ws / sizeof ws[0];
    bytes t = {0};
    for (size_t i = 0; i < nw; i++) {
        char line[128];
        snprintf(line, sizeof line, "%zu %zu\t%s%s", i, i + 1, ws[i], i % 2 ? "\r\n" : " \n");
        bb_str(&t, line);
    }
    write_bytes(path_of("f.wel"), t.p, t.n);
    bb_free(&t);
    r = read_ok(path_of("f.wel"), SG_INPUT_AUTO);
    assert_int_equal(r.n, nw);
    assert_true(r.info.float_weights);
    for (size_t i = 0; i < nw; i++) edge_is(&r.e[i], i, i + 1, strtod(ws[i], NULL));
    result_free(&r);
}

static void el_errors(void **state)
{
    (void)state;
    expect_fail(read_all(put("graph.wel", "0 1 2\n0 1\n"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT,
                "graph.wel:2: expected 3 fields, found 2");
    expect_fail(read_all(put("b.wel", "# c\n0 1 2 3\n"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT,
                "b.wel:2: expected 3 fields, found 4");
    expect_fail(read_all(put("c.el", "0 1\n1 2 3\n"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT,
                "c.el:2: expected 2 fields, found 3");
    expect_fail(read_all(put("d.el", "0 1\n\n0 abc\n"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT,
                "d.el:3: expected an integer vertex id, found 'abc'");
    expect_fail(read_all(put("e.el", "-1 2\n"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT,
                "e.el:1: expected an integer vertex id, found '-1'");
    expect_fail(read_all(put("f.el", "1 2x\n"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT,
                "f.el:1: expected an integer vertex id, found '2x'");
    expect_fail(read_all(put("g.el", "0 1\n18446744073709551616 1\n"), SG_INPUT_AUTO, 2, 16),
                SG_E_RANGE, "g.el:2:", "18446744073709551616", "2^64-1");
    expect_fail(read_all(put("h.wel", "0 1 nan\n"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT,
                "h.wel:1: weight is not finite");
    expect_fail(read_all(put("i.wel", "0 1 1\r\n0 1 -inf\r\n"), SG_INPUT_AUTO, 2, 16),
                SG_E_FORMAT, "i.wel:2: weight is not finite");
    expect_fail(read_all(put("j.wel", "0 1 1.5x\n"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT,
                "j.wel:1: expected a number as the weight, found '1.5x'");
    expect_fail(read_all(put("k.wel", "0 1 1e999\n"), SG_INPUT_AUTO, 2, 16), SG_E_RANGE,
                "k.wel:1: weight 1e999 is out of range");
    /* the edges before a bad line come out first */
    result r = read_all(put("l.el", "0 1\n2 3\n4 x\n"), SG_INPUT_AUTO, 1, 16);
    assert_int_equal(r.n, 2);
    edge_is(&r.e[1], 2, 3, 1);
    expect_fail(r, SG_E_FORMAT, "l.el:3: expected an integer vertex id, found 'x'");
}

static void gr_format(void **state)
{
    (void)state;
    result r = read_ok(put("g.gr", "c DIMACS\nc more\n\np sp 4 3\na 1 2 7\nc mid\n"
                                   "a 2 3 8\r\na  4\t1 2.5\n"),
                       SG_INPUT_AUTO);
    assert_int_equal(r.n, 3);
    edge_is(&r.e[0], 0, 1, 7);
    edge_is(&r.e[1], 1, 2, 8);
    edge_is(&r.e[2], 3, 0, 2.5);
    assert_int_equal(r.info.format, SG_INPUT_GR);
    assert_true(r.info.weighted);
    assert_true(r.info.float_weights);
    assert_true(r.info.has_header_counts);
    assert_int_equal(r.info.header_n, 4);
    assert_int_equal(r.info.header_m, 3);
    assert_int_equal(r.lines, 8);
    assert_int_equal(r.comments, 4); /* three 'c' lines and the p line */
    result_free(&r);

    expect_fail(read_all(put("g1.gr", "p sp 100 100\na 1 2 3\n"), SG_INPUT_AUTO, 2, 16),
                SG_E_INVALID, "g1.gr: header says 100 arcs, file has 1");
    expect_fail(read_all(put("g2.gr", "p sp 3 2\na 1 2 3\na 1 4 3\n"), SG_INPUT_AUTO, 2, 16),
                SG_E_RANGE, "g2.gr:3:", "vertex id 4 is out of range 1..3");
    expect_fail(read_all(put("g3.gr", "p sp 3 1\na 0 2 3\n"), SG_INPUT_AUTO, 2, 16),
                SG_E_RANGE, "g3.gr:2:", "vertex id 0");
    expect_fail(read_all(put("g4.gr", "c no header\na 1 2 3\n"), SG_INPUT_AUTO, 2, 16),
                SG_E_FORMAT, "g4.gr:2:", "before the problem line");
    expect_fail(read_all(put("g5.gr", "c nothing\n"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT,
                "g5.gr", "no problem line");
    expect_fail(read_all(put("g6.gr", "p sp 3 1\na 1 2 3\np sp 3 1\n"), SG_INPUT_AUTO, 2, 16),
                SG_E_FORMAT, "g6.gr:3:", "second 'p' line");
    expect_fail(read_all(put("g7.gr", "p sp 3 1\na 1 2\n"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT,
                "g7.gr:2: expected 4 fields, found 3");
    expect_fail(read_all(put("g8.gr", "p max 3 1\n"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT,
                "g8.gr:1:", "'p max");
    expect_fail(read_all(put("g9.gr", "p sp 3 1\nx 1 2 3\n"), SG_INPUT_AUTO, 2, 16),
                SG_E_FORMAT, "g9.gr:2:", "found 'x'");
    expect_fail(read_all(put("ga.gr", "p sp 3 1\na 1 2 nan\n"), SG_INPUT_AUTO, 2, 16),
                SG_E_FORMAT, "ga.gr:2: weight is not finite");
}

static void mtx_format(void **state)
{
    (void)state;
    result r = read_ok(put("m.mtx", "%%MatrixMarket matrix coordinate integer general\n"
                                    "% comment\n%\n3 3 3\n1 2 5\n% inner\n3 1 -2\n2 2 7\n"),
                       SG_INPUT_AUTO);
    assert_int_equal(r.n, 3);
    edge_is(&r.e[0], 0, 1, 5);
    edge_is(&r.e[1], 2, 0, -2);
    edge_is(&r.e[2], 1, 1, 7);
    assert_true(r.info.weighted);
    assert_false(r.info.float_weights);
    assert_false(r.info.symmetric);
    assert_int_equal(r.info.header_n, 3);
    assert_int_equal(r.info.header_m, 3);
    assert_int_equal(r.lines, 8);
    assert_int_equal(r.comments, 5);
    result_free(&r);

    r = read_ok(put("s.mtx", "%%matrixmarket MATRIX Coordinate REAL Symmetric\r\n2 2 1\r\n"
                             "2 1 1\r\n"),
                SG_INPUT_AUTO);
    assert_int_equal(r.n, 1);
    edge_is(&r.e[0], 1, 0, 1);
    assert_true(r.info.symmetric);
    assert_true(r.info.float_weights); /* declared real */
    result_free(&r);

    r = read_ok(put("p.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 2\n"
                             "2 1\n4 3\n"),
                SG_INPUT_AUTO);
    assert_int_equal(r.n, 2);
    edge_is(&r.e[0], 1, 0, 1);
    edge_is(&r.e[1], 3, 2, 1);
    assert_false(r.info.weighted);
    result_free(&r);

    expect_fail(read_all(put("a.mtx", "%%MatrixMarket matrix array real general\n2 2\n"),
                         SG_INPUT_AUTO, 2, 16),
                SG_E_FORMAT, "a.mtx", "matrix array real general");
    expect_fail(read_all(put("c.mtx", "%%MatrixMarket matrix coordinate complex general\n"),
                         SG_INPUT_AUTO, 2, 16),
                SG_E_FORMAT, "c.mtx", "coordinate complex general");
    expect_fail(read_all(put("h.mtx", "%%MatrixMarket matrix coordinate real hermitian\n"),
                         SG_INPUT_AUTO, 2, 16),
                SG_E_FORMAT, "h.mtx", "real hermitian");
    expect_fail(read_all(put("r.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 1\n"),
                         SG_INPUT_AUTO, 2, 16),
                SG_E_FORMAT, "r.mtx:2:", "2 x 3", "square");
    expect_fail(read_all(put("n.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                      "3 3 3\n1 2 1\n2 3 1\n"),
                         SG_INPUT_AUTO, 2, 16),
                SG_E_INVALID, "n.mtx: header says 3 entries, file has 2");
    expect_fail(read_all(put("o.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                      "3 3 2\n1 2 1\n2 4 1\n"),
                         SG_INPUT_AUTO, 2, 16),
                SG_E_RANGE, "o.mtx:4:", "vertex id 4 is out of range 1..3");
    expect_fail(read_all(put("b.mtx", "1 2 3\n"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT,
                "b.mtx:1:", "banner");
    expect_fail(read_all(put("f.mtx", "%%MatrixMarket matrix coordinate integer general\n"
                                      "3 3 1\n1 2\n"),
                         SG_INPUT_AUTO, 2, 16),
                SG_E_FORMAT, "f.mtx:3: expected 3 fields, found 2");
    expect_fail(read_all(put("z.mtx", "%%MatrixMarket matrix coordinate integer general\n% c\n"),
                         SG_INPUT_AUTO, 2, 16),
                SG_E_FORMAT, "z.mtx", "no size line");
}

static void unknown_and_missing(void **state)
{
    (void)state;
    expect_fail(read_all(put("g.txt", "0 1\n"), SG_INPUT_AUTO, 2, 16), SG_E_INVALID, "g.txt",
                ".wel", ".egr", ".zst");
    expect_fail(read_all(put("g.zst", "0 1\n"), SG_INPUT_AUTO, 2, 16), SG_E_INVALID, "g.zst",
                ".mtx");
    expect_fail(read_all(path_of("none.el"), SG_INPUT_AUTO, 2, 16), SG_E_NOTFOUND, "none.el");
    expect_fail(read_all(dir, SG_INPUT_EL, 2, 16), SG_E_INVALID, "directory");
}

/* ------------------------------------------------------------ bin32 */

static void bin32_format(void **state)
{
    (void)state;
    const uint32_t recs[] = {0, 1, 5, 4294967295u, 2, 4294967295u, 7, 7, 0};
    write_bytes(path_of("g.bin32"), recs, sizeof recs);
    result r = read_ok(path_of("g.bin32"), SG_INPUT_AUTO);
    assert_int_equal(r.n, 3);
    edge_is(&r.e[0], 0, 1, 5);
    edge_is(&r.e[1], 4294967295u, 2, 4294967295.0);
    edge_is(&r.e[2], 7, 7, 0);
    assert_true(r.info.weighted);
    result_free(&r);

    write_bytes(path_of("bad.bin32"), recs, sizeof recs - 5);
    expect_fail(read_all(path_of("bad.bin32"), SG_INPUT_AUTO, 2, 16), SG_E_FORMAT, "bad.bin32",
                "incomplete record at byte 24");

    /* compressed: the whole records come out, then the error */
    bytes z = zcompress(recs, sizeof recs - 5, 3);
    write_bytes(path_of("bad.bin32.zst"), z.p, z.n);
    bb_free(&z);
    r = read_all(path_of("bad.bin32.zst"), SG_INPUT_AUTO, 2, 16);
    assert_int_equal(r.n, 2);
    expect_fail(r, SG_E_FORMAT, "bad.bin32.zst", "incomplete record at byte 24");
}

/* ------------------------------------------------------------ zstd */

static void zstd_inputs(void **state)
{
    (void)state;
    const char *t1 = "# part one\n0 1 2\n1 2 3\n";
    const char *t2 = "2 3 4.5\r\n3 4 5\n";
    bytes a = zcompress(t1, strlen(t1), 3), b = zcompress(t2, strlen(t2), 19);

    write_bytes(path_of("one.wel.zst"), a.p, a.n);
    result r = read_ok(path_of("one.wel.zst"), SG_INPUT_AUTO);
    assert_int_equal(r.n, 2);
    edge_is(&r.e[1], 1, 2, 3);
    assert_true(r.info.compressed);
    assert_int_equal(r.info.format, SG_INPUT_WEL);
    assert_int_equal(r.info.file_bytes, a.n);
    assert_int_equal(r.lines, 3);
    result_free(&r);

    /* two frames, one stream; detected by magic without ".zst" */
    bytes both = {0};
    bb_put(&both, a.p, a.n);
    bb_put(&both, b.p, b.n);
    write_bytes(path_of("two.wel"), both.p, both.n);
    r = read_ok(path_of("two.wel"), SG_INPUT_AUTO);
    assert_true(r.info.compressed);
    assert_int_equal(r.n, 4);
    edge_is(&r.e[2], 2, 3, 4.5);
    edge_is(&r.e[3], 3, 4, 5);
    assert_true(r.info.float_weights);
    result_free(&r);

    /* a corrupt block, a truncated frame, garbage after a frame, and a
     * ".zst" file that is not zstd at all */
    bytes big = {0};
    for (int i = 0; i < 20000; i++) {
        char line[64];
        snprintf(line, sizeof line, "%d %d %d\n", i, (i * 7919) % 20000, i % 13);
        bb_str(&big, line);
    }
    bytes zb = zcompress(big.p, big.n, 3);
    zb.p[zb.n / 2] ^= 0x5A;
    write_bytes(path_of("bad.wel.zst"), zb.p, zb.n);
    expect_fail(read_all(path_of("bad.wel.zst"), SG_INPUT_AUTO, 2, 1000), SG_E_CORRUPT,
                "bad.wel.zst", "zstd");
    zb.p[zb.n / 2] ^= 0x5A;
    write_bytes(path_of("trunc.wel.zst"), zb.p, zb.n - 7);
    expect_fail(read_all(path_of("trunc.wel.zst"), SG_INPUT_AUTO, 2, 1000), SG_E_CORRUPT,
                "trunc.wel.zst", "truncated");
    bytes junk = {0};
    bb_put(&junk, a.p, a.n);
    bb_str(&junk, "not zstd");
    write_bytes(path_of("junk.wel.zst"), junk.p, junk.n);
    expect_fail(read_all(path_of("junk.wel.zst"), SG_INPUT_AUTO, 2, 1000), SG_E_CORRUPT,
                "junk.wel.zst", "corrupt zstd");
    expect_fail(read_all(put("plain.el.zst", "0 1\n"), SG_INPUT_AUTO, 2, 16), SG_E_CORRUPT,
                "plain.el.zst");
    write_bytes(path_of("empty.el.zst"), "", 0);
    expect_fail(read_all(path_of("empty.el.zst"), SG_INPUT_AUTO, 2, 16), SG_E_CORRUPT,
                "empty.el.zst");

    /* a multi-chunk compressed file matches the plain one */
    sgi_in_chunk_bytes = 4096;
    write_bytes(path_of("big.wel"), big.p, big.n);
    write_bytes(path_of("big.wel.zst"), zb.p, zb.n);
    result p = read_all(path_of("big.wel"), SG_INPUT_AUTO, 3, 777);
    r = read_all(path_of("big.wel.zst"), SG_INPUT_AUTO, 3, 777);
    assert_int_equal(p.st, SG_OK);
    assert_int_equal(r.st, SG_OK);
    assert_int_equal(p.n, 20000);
    assert_int_equal(r.n, 20000);
    assert_memory_equal(p.e, r.e, p.n * sizeof *p.e);
    result_free(&p);
    result_free(&r);

    bb_free(&a);
    bb_free(&b);
    bb_free(&both);
    bb_free(&big);
    bb_free(&zb);
    bb_free(&junk);
}

/* ------------------------------------------------------------ parallel chunks */

/* A text of `lines` lines in various shapes; expected edges in order. */
static bytes make_text(int lines, uint64_t seed, sgi_in_edge *exp, size_t *nexp)
{
    bytes t = {0};
    uint64_t s = seed;
    size_t k = 0;
    for (int i = 0; i < lines; i++) {
        char line[12000];
        const uint64_t r = tu_rand(&s);
        const uint64_t u = tu_rand(&s) % 1000000, v = tu_rand(&s) >> (r % 64);
        const int w = (int)(tu_rand(&s) % 2000) - 1000;
        switch (r % 9) {
        case 0: snprintf(line, sizeof line, "# comment %d\n", i); break;
        case 1: snprintf(line, sizeof line, "\n"); break;
        case 2:
            snprintf(line, sizeof line, "%llu\t%llu\t%d\r\n", (unsigned long long)u,
                     (unsigned long long)v, w);
            break;
        case 3:
            if (i % 500 == 3) { /* longer than a chunk */
                memset(line, 'x', 9000);
                line[0] = '%';
                line[9000] = '\n';
                line[9001] = '\0';
            } else {
                snprintf(line, sizeof line, "%% short\n");
            }
            break;
        default:
            snprintf(line, sizeof line, "%llu %llu %d.25\n", (unsigned long long)u,
                     (unsigned long long)v, w);
            break;
        }
        bb_str(&t, line);
        if (r % 9 == 2 || r % 9 >= 4) {
            exp[k++] = (sgi_in_edge){u, v, r % 9 == 2 ? (double)w : w + (w < 0 ? -0.25 : 0.25)};
            if (r % 9 >= 4 && w == 0) exp[k - 1].w = 0.25;
        }
    }
    *nexp = k;
    return t;
}

static void parallel_chunks(void **state)
{
    (void)state;
    const int lines = 30000;
    sgi_in_edge *exp = malloc((size_t)lines * sizeof *exp);
    assert_non_null(exp);
    size_t nexp = 0;
    bytes t = make_text(lines, 42, exp, &nexp);
    write_bytes(path_of("p.wel"), t.p, t.n);
    static const size_t chunks[] = {4096, 65536, (size_t)32 << 20};
    for (size_t c = 0; c < 3; c++) {
        sgi_in_chunk_bytes = chunks[c];
        for (int threads = 1; threads <= 4; threads += 3) {
            result r = read_all(path_of("p.wel"), SG_INPUT_AUTO, threads, 1000);
            if (r.st != SG_OK) fail_msg("%s", r.err.msg);
            assert_int_equal(r.n, nexp);
            for (size_t i = 0; i < nexp; i++) edge_is(&r.e[i], exp[i].u, exp[i].v, exp[i].w);
            assert_int_equal(r.lines, lines);
            result_free(&r);
        }
    }

    /* an error on a late line: its number, and every edge before it */
    sgi_in_chunk_bytes = 4096;
    const int bad = 27001; /* 1-based */
    size_t pos = 0, edges_before = 0;
    for (int l = 1; l < bad; l++) pos = (size_t)((uint8_t *)memchr(t.p + pos, '\n', t.n - pos) - t.p) + 1;
    {
        /* count the expected edges on lines before `bad` */
        uint64_t s = 42;
        for (int i = 0; i < bad - 1; i++) {
            const uint64_t r = tu_rand(&s);
            tu_rand(&s);
            tu_rand(&s);
            tu_rand(&s);
            if (r % 9 == 2 || r % 9 >= 4) edges_before++;
        }
    }
    bytes t2 = {0};
    bb_put(&t2, t.p, pos);
    bb_str(&t2, "5 6\n"); /* two fields in a wel file */
    bb_put(&t2, t.p + pos, t.n - pos);
    write_bytes(path_of("late.wel"), t2.p, t2.n);
    result r = read_all(path_of("late.wel"), SG_INPUT_AUTO, 4, 999);
    assert_int_equal(r.n, edges_before);
    for (size_t i = 0; i < r.n; i++) edge_is(&r.e[i], exp[i].u, exp[i].v, exp[i].w);
    char want[64];
    snprintf(want, sizeof want, "late.wel:%d: expected 3 fields, found 2", bad);
    expect_fail(r, SG_E_FORMAT, want);

    bb_free(&t);
    bb_free(&t2);
    free(exp);
}

/* ------------------------------------------------------------ binary CSR */

static void put_i32(bytes *b, int32_t v) { bb_put(b, &v, 4); }
static void put_i64(bytes *b, int64_t v) { bb_put(b, &v, 8); }

/* gapbs .sg (unweighted) of g, as gapbs writes it. */
static bytes make_sg(const tu_graph *g)
{
    bytes b = {0};
    const uint8_t d = g->directed;
    bb_put(&b, &d, 1);
    put_i64(&b, (int64_t)g->m);
    put_i64(&b, (int64_t)g->n);
    for (uint64_t i = 0; i <= g->n; i++) put_i64(&b, (int64_t)g->x[i]);
    for (uint64_t e = 0; e < g->m; e++) put_i32(&b, (int32_t)g->a[e]);
    if (g->directed) { /* in-edges: the reader skips them */
        for (uint64_t i = 0; i <= g->n; i++) put_i64(&b, 0);
        for (uint64_t e = 0; e < g->m; e++) put_i32(&b, 0);
    }
    return b;
}

static void expect_csr(const result *r, const tu_graph *g, bool weights)
{
    assert_int_equal(r->n, g->m);
    size_t e = 0;
    for (uint64_t u = 0; u < g->n; u++)
        for (uint64_t k = g->x[u]; k < g->x[u + 1]; k++, e++)
            edge_is(&r->e[e], u, g->a[k], weights ? (double)g->w[k] : 1.0);
    assert_true(r->info.has_header_counts);
    assert_int_equal(r->info.header_n, g->n);
    assert_int_equal(r->info.header_m, g->m);
}

static void zst_copy(const char *from, const char *to)
{
    bytes b = file_bytes(from);
    bytes z = zcompress(b.p, b.n, 1);
    write_bytes(to, z.p, z.n);
    bb_free(&b);
    bb_free(&z);
}

static void csr_round_trips(void **state)
{
    (void)state;
    for (int directed = 0; directed < 2; directed++) {
        tu_graph g = tu_random_graph(300, 2000, 1000, 7 + (uint64_t)directed, directed);
        char sp[600], path[600], zpath[700];
        snprintf(sp, sizeof sp, "%s/store%d", dir, directed);
        tu_write_store(sp, &g, NULL);
        sg_store *s = NULL;
        sg_error err;
        if (sg_store_open(sp, &s, &err)) fail_msg("%s", err.msg);
        const sg_export_format fmts[] = {SG_EXPORT_EGR, SG_EXPORT_WSG};
        const char *exts[] = {"egr", "wsg"};
        for (int f = 0; f < 2; f++) {
            snprintf(path, sizeof path, "%s/g%d.%s", dir, directed, exts[f]);
            snprintf(zpath, sizeof zpath, "%s.zst", path);
            if (sg_store_export(s, fmts[f], path, true, 2, &err)) fail_msg("%s", err.msg);
            zst_copy(path, zpath);
            for (int z = 0; z < 2; z++) {
                result r = read_ok(z ? zpath : path, SG_INPUT_AUTO);
                expect_csr(&r, &g, true);
                assert_true(r.info.weighted);
                assert_int_equal(r.info.compressed, z);
                assert_int_equal(r.info.directed_hint, f == 1 && directed);
                result_free(&r);
            }
        }
        /* egr without weights */
        snprintf(path, sizeof path, "%s/g%d.egr", dir, directed);
        tu_truncate(path, tu_file_size(path) - 4 * g.m);
        snprintf(zpath, sizeof zpath, "%s/u%d.egr.zst", dir, directed);
        zst_copy(path, zpath);
        for (int z = 0; z < 2; z++) {
            result r = read_ok(z ? zpath : path, SG_INPUT_AUTO);
            expect_csr(&r, &g, false);
            assert_false(r.info.weighted);
            result_free(&r);
        }
        /* gapbs .sg */
        bytes b = make_sg(&g);
        snprintf(path, sizeof path, "%s/g%d.sg", dir, directed);
        write_bytes(path, b.p, b.n);
        snprintf(zpath, sizeof zpath, "%s.zst", path);
        zst_copy(path, zpath);
        for (int z = 0; z < 2; z++) {
            result r = read_ok(z ? zpath : path, SG_INPUT_AUTO);
            expect_csr(&r, &g, false);
            assert_false(r.info.weighted);
            assert_int_equal(r.info.directed_hint, directed);
            result_free(&r);
        }
        bb_free(&b);
        sg_store_close(s);
        tu_graph_free(&g);
    }
}

static void csr_errors(void **state)
{
    (void)state;
    const uint32_t edges[][3] = {{0, 1, 5}, {1, 2, 6}, {2, 3, 7}};
    tu_graph g = tu_graph_from_edges(4, 3, edges, false); /* m = 6 */
    bytes b = make_sg(&g);
    const char *p = path_of("t.sg");

    write_bytes(p, b.p, b.n - 1);
    expect_fail(read_all(p, SG_INPUT_AUTO, 2, 16), SG_E_CORRUPT, "t.sg", "truncated",
                "needs 81 bytes, the file has 80");
    write_bytes(p, b.p, b.n + 0); /* fine */
    result r = read_ok(p, SG_INPUT_AUTO);
    result_free(&r);

    /* offsets decrease: vertex 2's offset below vertex 1's */
    bytes c = {0};
    bb_put(&c, b.p, b.n);
    int64_t off = 0;
    memcpy(c.p + 17 + 8 * 2, &off, 8);
    write_bytes(p, c.p, c.n);
    expect_fail(read_all(p, SG_INPUT_AUTO, 2, 16), SG_E_CORRUPT, "t.sg", "vertex 2",
                "byte 33");
    /* last offset disagrees with m */
    memcpy(c.p, b.p, b.n);
    off = 5;
    memcpy(c.p + 17 + 8 * 4, &off, 8);
    write_bytes(p, c.p, c.n);
    expect_fail(read_all(p, SG_INPUT_AUTO, 2, 16), SG_E_CORRUPT, "t.sg", "last offset",
                "says 6 edges");
    /* first offset not 0 */
    memcpy(c.p, b.p, b.n);
    off = 1;
    memcpy(c.p + 17, &off, 8);
    write_bytes(p, c.p, c.n);
    expect_fail(read_all(p, SG_INPUT_AUTO, 2, 16), SG_E_CORRUPT, "t.sg", "first offset");
    /* a neighbour beyond n: edge 3 (vertex 2) */
    memcpy(c.p, b.p, b.n);
    const int32_t bad = 4;
    const size_t nb = 17 + 8 * 5;
    memcpy(c.p + nb + 4 * 3, &bad, 4);
    write_bytes(p, c.p, c.n);
    r = read_all(p, SG_INPUT_AUTO, 2, 16);
    assert_int_equal(r.n, 3);
    char want[64];
    snprintf(want, sizeof want, "at byte %zu", nb + 12);
    expect_fail(r, SG_E_RANGE, "t.sg", "neighbour 4 of vertex 2", want);
    /* bad directed flag */
    memcpy(c.p, b.p, b.n);
    c.p[0] = 7;
    write_bytes(p, c.p, c.n);
    expect_fail(read_all(p, SG_INPUT_AUTO, 2, 16), SG_E_CORRUPT, "t.sg", "directed flag");

    /* compressed and truncated: found while reading */
    const char *zp = path_of("t.sg.zst");
    bytes z = zcompress(b.p, b.n - 6, 3);
    write_bytes(zp, z.p, z.n);
    bb_free(&z);
    expect_fail(read_all(zp, SG_INPUT_AUTO, 2, 16), SG_E_CORRUPT, "t.sg.zst", "truncated",
                "needs 81 bytes");
    /* compressed with trailing data */
    bytes t = {0};
    bb_put(&t, b.p, b.n);
    bb_str(&t, "xyz");
    z = zcompress(t.p, t.n, 3);
    write_bytes(zp, z.p, z.n);
    bb_free(&z);
    bb_free(&t);
    expect_fail(read_all(zp, SG_INPUT_AUTO, 2, 16), SG_E_CORRUPT, "t.sg.zst", "trailing data");

    /* egr of the wrong size */
    bytes e = {0};
    put_i32(&e, 4);
    put_i32(&e, 6);
    for (int i = 0; i <= 4; i++) put_i32(&e, (int32_t)g.x[i]);
    for (int i = 0; i < 6; i++) put_i32(&e, (int32_t)g.a[i]);
    put_i32(&e, 1);
    const char *ep = path_of("t.egr");
    write_bytes(ep, e.p, e.n);
    expect_fail(read_all(ep, SG_INPUT_AUTO, 2, 16), SG_E_CORRUPT, "t.egr", "needs 52 bytes",
                "76 with weights", "file has 56");
    write_bytes(ep, e.p, 20);
    expect_fail(read_all(ep, SG_INPUT_AUTO, 2, 16), SG_E_CORRUPT, "t.egr", "truncated");

    bb_free(&b);
    bb_free(&c);
    bb_free(&e);
    tu_graph_free(&g);
}

/* ------------------------------------------------------------ failures */

/* Files of every format for the failure loops. */
static int failure_inputs(const char **paths)
{
    int k = 0;
    bytes big = {0};
    for (int i = 0; i < 3000; i++) {
        char line[64];
        snprintf(line, sizeof line, i % 100 ? "%d %d %d\n" : "# %d %d %d\n", i, i + 1, i % 7);
        bb_str(&big, line);
    }
    write_bytes(path_of("f.wel"), big.p, big.n);
    paths[k++] = "f.wel";
    bytes z = zcompress(big.p, big.n, 3);
    write_bytes(path_of("f2.wel.zst"), z.p, z.n);
    paths[k++] = "f2.wel.zst";
    bb_free(&z);
    bb_free(&big);
    put("f3.gr", "c x\np sp 3 2\na 1 2 3\na 2 3 4\n");
    paths[k++] = "f3.gr";
    put("f4.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 0.5\n3 2 1\n");
    paths[k++] = "f4.mtx";
    const uint32_t recs[] = {0, 1, 2, 3, 4, 5};
    write_bytes(path_of("f5.bin32"), recs, sizeof recs);
    paths[k++] = "f5.bin32";
    const uint32_t edges[][3] = {{0, 1, 5}, {1, 2, 6}, {2, 3, 7}};
    tu_graph g = tu_graph_from_edges(4, 3, edges, true);
    bytes b = make_sg(&g);
    write_bytes(path_of("f6.sg"), b.p, b.n);
    paths[k++] = "f6.sg";
    z = zcompress(b.p, b.n, 3);
    write_bytes(path_of("f7.sg.zst"), z.p, z.n);
    paths[k++] = "f7.sg.zst";
    bb_free(&z);
    bb_free(&b);
    tu_graph_free(&g);
    return k;
}

static void allocation_failures(void **state)
{
    (void)state;
    const char *names[16];
    const int nf = failure_inputs(names);
    sgi_in_chunk_bytes = 8192;
    for (int f = 0; f < nf; f++) {
        const char *p = path_of(names[f]);
        const result ref = read_all(p, SG_INPUT_AUTO, 2, 100);
        assert_int_equal(ref.st, SG_OK);
        int failures = 0;
        for (long n = 0;; n++) {
            const long live = sgi_alloc_live();
            sgi_alloc_fail_after(n);
            result r = read_all(p, SG_INPUT_AUTO, 2, 100);
            sgi_alloc_fail_after(-1);
            assert_int_equal(sgi_alloc_live(), live);
            if (r.st == SG_OK) {
                assert_int_equal(r.n, ref.n);
                assert_memory_equal(r.e, ref.e, r.n * sizeof *r.e);
                result_free(&r);
                break;
            }
            failures++;
            expect_fail(r, SG_E_NOMEM, names[f]);
            assert_true(n < 1000);
        }
        assert_true(failures >= 2);
        free(ref.e);
    }
}

/* The n-th pread fails (errnum) or is short (errnum 0); opens can fail. */
static struct {
    long countdown;
    int errnum;
    bool on_open;
    bool fired;
} F;

static ssize_t f_pread(int fd, void *b, size_t n, uint64_t off)
{
    if (!F.on_open && F.countdown-- == 0) {
        F.fired = true;
        if (F.errnum) return -F.errnum;
        F.countdown = 0; /* keep being short */
        n = n > 1 ? n / 2 : n;
    }
    return sgi_io_posix.pread(fd, b, n, off);
}
static int f_open(const char *p, int fl, mode_t m)
{
    if (F.on_open && F.countdown-- == 0) {
        F.fired = true;
        return -F.errnum;
    }
    return sgi_io_posix.open(p, fl, m);
}

static void io_failures(void **state)
{
    (void)state;
    const char *names[16];
    const int nf = failure_inputs(names);
    sgi_in_chunk_bytes = 8192;
    static sgi_io io;
    io = sgi_io_posix;
    io.pread = f_pread;
    io.open = f_open;
    for (int f = 0; f < nf; f++) {
        const char *p = path_of(names[f]);
        const result ref = read_all(p, SG_INPUT_AUTO, 2, 100);
        assert_int_equal(ref.st, SG_OK);
        sgi_io_set(&io);
        /* EIO on each pread in turn */
        for (long n = 0;; n++) {
            const long live = sgi_alloc_live();
            F = (typeof(F)){.countdown = n, .errnum = EIO};
            result r = read_all(p, SG_INPUT_AUTO, 2, 100);
            assert_int_equal(sgi_alloc_live(), live);
            if (!F.fired) {
                assert_int_equal(r.st, SG_OK);
                assert_int_equal(r.n, ref.n);
                result_free(&r);
                break;
            }
            expect_fail(r, SG_E_IO, names[f], "Input/output error");
            assert_true(n < 1000);
        }
        /* short reads from the first pread on: the same edges */
        F = (typeof(F)){.countdown = 0, .errnum = 0};
        result r = read_all(p, SG_INPUT_AUTO, 2, 100);
        assert_true(F.fired);
        if (r.st != SG_OK) fail_msg("%s", r.err.msg);
        assert_int_equal(r.n, ref.n);
        assert_memory_equal(r.e, ref.e, r.n * sizeof *r.e);
        result_free(&r);
        /* open refused */
        F = (typeof(F)){.countdown = 0, .errnum = EACCES, .on_open = true};
        expect_fail(read_all(p, SG_INPUT_AUTO, 2, 100), SG_E_IO, names[f], "opening");
        sgi_io_set(NULL);
        free(ref.e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(el_basic, setup, restore),
        cmocka_unit_test_setup_teardown(wel_weights, setup, restore),
        cmocka_unit_test_setup_teardown(el_errors, setup, restore),
        cmocka_unit_test_setup_teardown(gr_format, setup, restore),
        cmocka_unit_test_setup_teardown(mtx_format, setup, restore),
        cmocka_unit_test_setup_teardown(unknown_and_missing, setup, restore),
        cmocka_unit_test_setup_teardown(bin32_format, setup, restore),
        cmocka_unit_test_setup_teardown(zstd_inputs, setup, restore),
        cmocka_unit_test_setup_teardown(parallel_chunks, setup, restore),
        cmocka_unit_test_setup_teardown(csr_round_trips, setup, restore),
        cmocka_unit_test_setup_teardown(csr_errors, setup, restore),
        cmocka_unit_test_setup_teardown(allocation_failures, setup, restore),
        cmocka_unit_test_setup_teardown(io_failures, setup, restore),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
