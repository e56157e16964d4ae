/* Result files: forests, distances, levels, cluster labels and parents, as
 * text (".txt") or binary (".bin"), chosen by the file name's extension.
 * docs/format.md, "Result files", is the specification.
 *
 * Every writer goes through one frame (res_write): the target is checked
 * (refused when it exists without force), the result goes to a hidden
 * temporary file beside it (".NAME.tmp-PID-K"), which is fsynced, closed
 * and renamed into place, and the directory is fsynced; on any failure the
 * temporary file is removed and the target is what it was. All file system
 * calls go through storage's sgi_io table, so tests inject failures.
 *
 * Text is formatted by hand (no printf per line) in chunks of lines, by the
 * run's threads into per-thread buffers, and written in chunk order (an
 * OpenMP `ordered` section), so formatting overlaps with writing and the
 * bytes do not depend on the thread count. Binary arrays are written
 * straight from the result's memory (the host is little-endian), with a
 * CRC-32C computed piece by piece as they go. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "sg_format.h"
#include "../storage/internal.h" /* the sgi_io table, sgi_write_all, sgi_crc32c */

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "binary result files are written straight from memory: little-endian hosts only");

/* Lines per text chunk, and a bound on one line's bytes: a forest line is
 * two ids of at most 10 digits, a weight of at most 20 characters (u32: 10;
 * f32 "%.9g": 15, e.g. "-1.17549435e-38"), two spaces and a newline; a
 * distance at most 24 characters ("%.17g" of a double, e.g.
 * "-2.2250738585072014e-308"; a u64 has 20 digits) and a newline. */
#define RES_CHUNK_LINES ((uint64_t)1 << 16)
#define RES_LINE_MAX 96 /* with original ids: two more 20-digit ids */
/* Pieces of binary arrays per write (and per CRC update). */
#define RES_BIN_PIECE ((size_t)16 << 20)

/* ------------------------------------------------------------ binary layout */

#define RES_MAGIC "SGRES1\0\0"
#define RES_VERSION 1u
#define RES_HEADER_BYTES 64u

/* What a file holds (header field `kind`). */
enum { RES_FOREST = 1, RES_DISTANCES = 2, RES_LEVELS = 3, RES_LABELS = 4, RES_PARENTS = 5 };
/* Element type of the value array (header field `value_type`). */
enum { RES_U32 = 1, RES_U64 = 2, RES_F32 = 3, RES_F64 = 4 };

static size_t elem_bytes(unsigned type) { return type == RES_U64 || type == RES_F64 ? 8 : 4; }

/* One result to write: `count` lines (text) or elements per array
 * (binary); arrays[0 .. n_arrays) of which the last has `value_type` and the
 * others (forest endpoints) are u32. */
typedef struct res_out {
    unsigned kind;
    const char *what;        /* "forest", "distances", ... for messages */
    uint64_t count;
    uint64_t n_vertices;
    uint64_t extra;          /* header field: trees, source, clusters, or 0 */
    unsigned n_arrays;       /* 1 or 3 */
    const void *arrays[3];
    unsigned value_type;
} res_out;

/* ------------------------------------------------------------ formatting */


/* An id, or "-1" for SG_NO_VERTEX / SG_NO_LEVEL. */
static inline char *put_id(char *p, uint32_t v)
{
    if (v == UINT32_MAX) {
        memcpy(p, "-1", 2);
        return p + 2;
    }
    return sgi_put_u64(p, v);
}

/* Vertex v as the file names it: its original id when `orig` is set. */
static inline char *put_vertex(char *p, const uint64_t *orig, uint32_t v)
{
    if (v == UINT32_MAX || !orig) return put_id(p, v);
    return sgi_put_u64(p, orig[v]);
}

/* "ORIG " before a per-vertex line when vertices go by original ids. */
static inline char *put_line_vertex(char *p, const uint64_t *orig, uint64_t i)
{
    if (!orig) return p;
    p = sgi_put_u64(p, orig[i]);
    *p++ = ' ';
    return p;
}

/* ------------------------------------------------------------ floating point
 * printf's "%.Pg" of a double goes through glibc's multi-precision
 * conversion, about 0.6 us a value: 10 s for 16M lines. Here the digits
 * come from one multiplication in long double (x87, 64-bit mantissa) by an
 * exact power of ten, which is correctly rounded except within the
 * multiplication's error of a tie; those values, and those whose power of
 * ten is not exact, go to snprintf. So the text is exactly printf's. */

static const long double pow10_exact[28] = { /* 10^27 = 2^27 * 5^27 and 5^27 < 2^64 */
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* s rounded to the nearest integer, given a bound m on its error; false
 * when that bound reaches a tie. */
static inline bool round_scaled(long double s, long double m, uint64_t *out)
{
    const uint64_t fl = (uint64_t)s; /* s >= 1: truncation is the floor */
    const long double frac = s - (long double)fl;
    if (fabsl(frac - 0.5L) <= m) return false;
    *out = fl + (frac > 0.5L);
    return true;
}

/* The P significant digits (2 <= P <= 17) of ax > 0, correctly rounded:
 * *scaled = ax * 10^(P-1-exp10) lies in [10^(P-1), 10^P), *margin bounds
 * its error, and *digits is it rounded, in [10^(P-1), 10^P] (10^P when
 * rounding carries: 99.96 -> 100.0), so ax ~ digits * 10^(exp10 - P + 1).
 * False when undecided. */
static bool sig_digits(double ax, int P, uint64_t *digits, int *exp10, long double *scaled,
                       long double *margin)
{
    int e2;
    (void)frexp(ax, &e2);
    int d = (int)floor((e2 - 1) * 0.30102999566398120); /* floor(log10 ax), or one less */
    long double s = 0;
    for (int tries = 0;; tries++) {
        const int k = P - 1 - d;
        if (k > 27 || k < -27 || tries == 3) return false;
        s = k >= 0 ? (long double)ax * pow10_exact[k] : (long double)ax / pow10_exact[-k];
        if (s >= pow10_exact[P]) d++;
        else if (s < pow10_exact[P - 1]) d--;
        else break;
    }
    /* one rounding of a 64-bit mantissa: relative error <= 2^-64; eight
     * times that for safety */
    const long double m = s * 0x1p-61L;
    uint64_t D;
    if (!round_scaled(s, m, &D)) return false;
    *digits = D;
    *exp10 = d;
    *scaled = s;
    *margin = m;
    return true;
}

/* Renders the digits of sig_digits the way "%.Pg" does: fixed notation
 * when -4 <= X < P, else d.ddde+XX; trailing zeros dropped. */
static char *put_g(char *p, bool negative, uint64_t D, int X, int P)
{
    if (D == (uint64_t)pow10_exact[P]) { /* a carry: 10^(X+1) */
        D /= 10;
        X++;
    }
    char dig[24];
    sgi_put_u64(dig, D); /* exactly P digits */
    int nd = P;
    while (nd > 1 && dig[nd - 1] == '0') nd--;
    if (negative) *p++ = '-';
    if (X < -4 || X >= P) {
        *p++ = dig[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, dig + 1, (size_t)nd - 1);
            p += nd - 1;
        }
        *p++ = 'e';
        *p++ = X < 0 ? '-' : '+';
        const unsigned ax = (unsigned)(X < 0 ? -X : X);
        if (ax < 10) *p++ = '0';
        return sgi_put_u64(p, ax);
    }
    if (X < 0) {
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < -X - 1; i++) *p++ = '0';
        memcpy(p, dig, (size_t)nd);
        return p + nd;
    }
    memcpy(p, dig, (size_t)X + 1);
    p += X + 1;
    if (nd > X + 1) {
        *p++ = '.';
        memcpy(p, dig + X + 1, (size_t)(nd - X - 1));
        p += nd - X - 1;
    }
    return p;
}

static char *put_printf(char *p, const char *fmt, double d)
{
    char tmp[40];
    const int n = snprintf(tmp, sizeof tmp, fmt, d);
    assert(n > 0 && n < (int)sizeof tmp);
    memcpy(p, tmp, (size_t)n);
    return p + n;
}

/* Exactly what printf("%.9g") writes: nine significant digits, enough to
 * read back the same float. Integral values below 1e9 (integer weights
 * stored as f32) are written as integers directly. The library never sets a
 * locale, so the decimal point is '.'. */
static inline char *put_f32(char *p, float f)
{
    if (fabsf(f) < 1e9f && f == (float)(int32_t)f) {
        if (signbit(f)) *p++ = '-';
        return sgi_put_u64(p, (uint64_t)fabsf(f));
    }
    uint64_t D;
    int X;
    long double s, m;
    if (isfinite(f) && sig_digits(fabs((double)f), 9, &D, &X, &s, &m))
        return put_g(p, signbit(f), D, X, 9);
    return put_printf(p, "%.9g", (double)f);
}

/* A double that reads back exactly: integral values below 2^53 as integers;
 * else printf's "%.15g" when it reads back to the same double, else
 * "%.17g" (which always does). +infinity (unreached) is "inf". */
static inline char *put_f64(char *p, double d)
{
    if (fabs(d) < 9007199254740992.0 && d == (double)(int64_t)d) {
        if (signbit(d)) *p++ = '-';
        return sgi_put_u64(p, (uint64_t)fabs(d));
    }
    if (isinf(d) && d > 0) {
        memcpy(p, "inf", 3);
        return p + 3;
    }
    const double ad = fabs(d);
    uint64_t D17, D15;
    int X;
    long double s17, m17;
    if (isfinite(d) && ad >= DBL_MIN && sig_digits(ad, 17, &D17, &X, &s17, &m17)) {
        /* the 15 digits from the 17 (s17 / 100 adds one more rounding) */
        const long double s15 = s17 / 100, m15 = m17 / 100 + s15 * 0x1p-61L;
        if (round_scaled(s15, m15, &D15)) {
            /* D15 * 10^-k reads back as ad when it is within half an ulp of
             * ad (a quarter below a power of two), scaled here by
             * 10^k = s15 / ad */
            int e2;
            const double f = frexp(ad, &e2);
            const long double half_ulp = ldexpl(s15 / ad, e2 - 54);
            const long double below = f == 0.5 ? half_ulp / 2 : half_ulp;
            const long double diff = fabsl((long double)D15 - s15);
            if (diff + m15 < below) return put_g(p, signbit(d), D15, X, 15);
            if (diff - m15 > half_ulp) return put_g(p, signbit(d), D17, X, 17);
        }
    }
    /* undecided, subnormal, out of range, NaN or -inf */
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%.15g", d);
    if (isfinite(d) && strtod(tmp, NULL) != d) return put_printf(p, "%.17g", d);
    return put_printf(p, "%.15g", d);
}

/* Lines [i0, i1) of the result into buf; returns the end. */
static char *format_lines(const res_out *o, const uint64_t *orig, uint64_t i0, uint64_t i1,
                          char *p)
{
    switch (o->kind) {
    case RES_FOREST: {
        const uint32_t *const u = o->arrays[0], *const v = o->arrays[1], *const w = o->arrays[2];
        for (uint64_t i = i0; i < i1; i++) {
            p = put_vertex(p, orig, u[i]);
            *p++ = ' ';
            p = put_vertex(p, orig, v[i]);
            *p++ = ' ';
            if (o->value_type == RES_F32) {
                float f;
                memcpy(&f, &w[i], sizeof f);
                p = put_f32(p, f);
            } else {
                p = sgi_put_u64(p, w[i]);
            }
            *p++ = '\n';
        }
        break;
    }
    case RES_DISTANCES:
        if (o->value_type == RES_U64) {
            const uint64_t *const d = o->arrays[0];
            for (uint64_t i = i0; i < i1; i++) {
                p = put_line_vertex(p, orig, i);
                if (d[i] == UINT64_MAX) {
                    memcpy(p, "inf", 3);
                    p += 3;
                } else {
                    p = sgi_put_u64(p, d[i]);
                }
                *p++ = '\n';
            }
        } else {
            const double *const d = o->arrays[0];
            for (uint64_t i = i0; i < i1; i++) {
                p = put_line_vertex(p, orig, i);
                p = put_f64(p, d[i]);
                *p++ = '\n';
            }
        }
        break;
    case RES_LEVELS:
    case RES_LABELS:
    case RES_PARENTS: {
        const uint32_t *const a = o->arrays[0];
        for (uint64_t i = i0; i < i1; i++) {
            p = put_line_vertex(p, orig, i);
            p = o->kind == RES_PARENTS ? put_vertex(p, orig, a[i]) : put_id(p, a[i]);
            *p++ = '\n';
        }
        break;
    }
    default: assert(!"unknown result kind");
    }
    return p;
}

/* ------------------------------------------------------------ writing */

typedef struct res_ctx {
    const sgi_io *io;
    const res_out *o;
    const char *path;        /* the target, named in messages */
    int fd;                  /* the temporary file */
    int threads;
    const uint64_t *orig;    /* text names vertices by these ids (or NULL) */
    sg_error *err;
} res_ctx;

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static sg_status write_text(res_ctx *c)
{
    sg_status st = SG_OK;
    const res_out *const o = c->o;
    const uint64_t nchunks = (o->count + RES_CHUNK_LINES - 1) / RES_CHUNK_LINES;
    if (nchunks == 0) return SG_OK;
    const int nt = (int)min_u64((uint64_t)c->threads, nchunks);
    const size_t buf_bytes = (size_t)min_u64(o->count, RES_CHUNK_LINES) * RES_LINE_MAX;
    char **bufs = NULL;
    uint64_t off = 0;
    atomic_int failed = 0;

    SG_ALLOC(bufs, sgi_calloc((size_t)nt, sizeof *bufs), c->err, "the text buffer table");
    for (int t = 0; t < nt; t++)
        SG_ALLOC(bufs[t], sgi_malloc(buf_bytes), c->err, "a text formatting buffer");

#pragma omp parallel num_threads(nt) shared(st, off)
    {
        char *const buf = bufs[omp_get_thread_num()];
#pragma omp for ordered schedule(static, 1)
        for (uint64_t k = 0; k < nchunks; k++) {
            const uint64_t i0 = k * RES_CHUNK_LINES, i1 = min_u64(i0 + RES_CHUNK_LINES, o->count);
            size_t len = 0;
            /* failed is set only in the ordered section of an earlier chunk:
             * what is skipped does not depend on timing */
            if (!atomic_load(&failed)) len = (size_t)(format_lines(o, c->orig, i0, i1, buf) - buf);
            assert(len <= buf_bytes);
#pragma omp ordered
            {
                if (st == SG_OK) {
                    st = sgi_write_all(c->fd, buf, len, off, c->path, c->err);
                    off += len;
                    if (st != SG_OK) atomic_store(&failed, 1);
                }
            }
        }
    }
fail:
    if (bufs)
        for (int t = 0; t < nt; t++) sgi_free(bufs[t]);
    sgi_free(bufs);
    return st;
}

static void put_le32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put_le64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static sg_status write_binary(res_ctx *c)
{
    const res_out *const o = c->o;
    uint64_t off = RES_HEADER_BYTES;
    uint32_t crc = 0;
    for (unsigned a = 0; a < o->n_arrays; a++) {
        const size_t eb = a + 1 == o->n_arrays ? elem_bytes(o->value_type) : 4;
        const uint8_t *p = o->arrays[a];
        uint64_t left = o->count * eb;
        while (left > 0) {
            const size_t n = (size_t)min_u64(left, RES_BIN_PIECE);
            crc = sgi_crc32c(crc, p, n);
            sg_status st = sgi_write_all(c->fd, p, n, off, c->path, c->err);
            if (st != SG_OK) return st;
            p += n;
            off += n;
            left -= n;
        }
    }
    uint8_t h[RES_HEADER_BYTES];
    memset(h, 0, sizeof h);
    memcpy(h, RES_MAGIC, 8);
    put_le32(h + 8, RES_VERSION);
    put_le32(h + 12, o->kind);
    put_le32(h + 16, o->value_type);
    put_le32(h + 20, o->n_arrays);
    put_le64(h + 24, o->count);
    put_le64(h + 32, o->n_vertices);
    put_le64(h + 40, o->extra);
    put_le64(h + 48, off - RES_HEADER_BYTES);
    put_le32(h + 56, crc);
    put_le32(h + 60, sgi_crc32c(0, h, 60));
    return sgi_write_all(c->fd, h, sizeof h, 0, c->path, c->err);
}

/* Makes a failure message name the output file. */
static void name_output(sg_error *err, const char *what, const char *path)
{
    if (!err || !path || !*path || strstr(err->msg, path)) return;
    char msg[sizeof err->msg];
    memcpy(msg, err->msg, sizeof msg);
    int n = snprintf(err->msg, sizeof err->msg, "writing the %s to %s: ", what, path);
    if (n < 0 || (size_t)n >= sizeof err->msg) n = (int)sizeof err->msg - 1;
    const size_t len = strnlen(msg, sizeof err->msg - 1 - (size_t)n);
    memcpy(err->msg + n, msg, len);
    err->msg[(size_t)n + len] = '\0';
}

/* 1 text, 2 binary, 0 neither. */
static int format_of(const char *base)
{
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base) return 0;
    if (strcmp(dot, ".txt") == 0) return 1;
    if (strcmp(dot, ".bin") == 0) return 2;
    return 0;
}

/* The frame shared by every writer (see the top of the file). */
static sg_status res_write(sg_run *run, const res_out *o, const char *path, bool force,
                           sg_error *err)
{
    sg_status st = SG_OK;
    const double t0 = sgi_now();
    res_ctx c = {.io = sgi_io_get(), .o = o, .path = path, .fd = -1, .err = err};
    sgi_outfile out = {.fd = -1};

    SG_CHECK(path != NULL && *path != '\0', SG_E_INVALID, err, "writing the %s: no output path",
             o->what);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const int fmt = format_of(base);
    SG_CHECK(fmt != 0, SG_E_INVALID, err,
             "%s: unknown result file extension (use .txt for text or .bin for binary)", path);

    c.threads = run ? run->threads : omp_get_max_threads();
    if (run && run->orig && run->orig_n == o->n_vertices) c.orig = run->orig;
    if (c.threads < 1) c.threads = 1;

    SG_TRY(sgi_outfile_open(&out, path, force, err));
    c.fd = out.fd;

    SG_TRY(fmt == 1 ? write_text(&c) : write_binary(&c));
    SG_TRY(sgi_outfile_commit(&out, err));

fail:
    sgi_outfile_abort(&out);
    if (st != SG_OK) name_output(err, o->what, path);
    sg_run_add_seconds(run, SG_PHASE_WRITE, sgi_now() - t0);
    return st;
}

/* ------------------------------------------------------------ public */

sg_status sg_forest_write(sg_run *run, const sg_forest *f, const char *path, bool force,
                          sg_error *err)
{
    if (!f) return sgi_fail(err, SG_E_INVALID, "sg_forest_write: no forest");
    if (f->weight_type != SG_WEIGHT_U32 && f->weight_type != SG_WEIGHT_F32)
        return sgi_fail(err, SG_E_INVALID, "sg_forest_write: unknown weight type %d",
                        (int)f->weight_type);
    if (f->n_edges > 0 && (!f->u || !f->v || !f->w))
        return sgi_fail(err, SG_E_INVALID, "sg_forest_write: the forest has no edge arrays");
    const res_out o = {.kind = RES_FOREST,
                       .what = "forest",
                       .count = f->n_edges,
                       .n_vertices = f->n_vertices,
                       .extra = f->n_trees,
                       .n_arrays = 3,
                       .arrays = {f->u, f->v, f->w},
                       .value_type = f->weight_type == SG_WEIGHT_F32 ? RES_F32 : RES_U32};
    return res_write(run, &o, path, force, err);
}

sg_status sg_sssp_write(sg_run *run, const sg_sssp_result *r, const char *path, bool force,
                        sg_error *err)
{
    if (!r) return sgi_fail(err, SG_E_INVALID, "sg_sssp_write: no result");
    const bool f64 = r->dist_f != NULL;
    if (r->n_vertices > 0 && (r->dist != NULL) == f64)
        return sgi_fail(err, SG_E_INVALID,
                        "sg_sssp_write: the result must hold exactly one of dist and dist_f");
    const res_out o = {.kind = RES_DISTANCES,
                       .what = "distances",
                       .count = r->n_vertices,
                       .n_vertices = r->n_vertices,
                       .extra = r->source,
                       .n_arrays = 1,
                       .arrays = {f64 ? (const void *)r->dist_f : (const void *)r->dist},
                       .value_type = f64 ? RES_F64 : RES_U64};
    return res_write(run, &o, path, force, err);
}

sg_status sg_bfs_write(sg_run *run, const sg_bfs_result *r, const char *path, bool force,
                       sg_error *err)
{
    if (!r) return sgi_fail(err, SG_E_INVALID, "sg_bfs_write: no result");
    if (r->n_vertices > 0 && !r->level)
        return sgi_fail(err, SG_E_INVALID, "sg_bfs_write: the result has no levels");
    const res_out o = {.kind = RES_LEVELS,
                       .what = "levels",
                       .count = r->n_vertices,
                       .n_vertices = r->n_vertices,
                       .extra = r->source,
                       .n_arrays = 1,
                       .arrays = {r->level},
                       .value_type = RES_U32};
    return res_write(run, &o, path, force, err);
}

sg_status sg_clusters_write(sg_run *run, const sg_clusters *c, const char *path, bool force,
                            sg_error *err)
{
    if (!c) return sgi_fail(err, SG_E_INVALID, "sg_clusters_write: no clusters");
    if (c->n_vertices > 0 && !c->label)
        return sgi_fail(err, SG_E_INVALID, "sg_clusters_write: the clusters have no labels");
    const res_out o = {.kind = RES_LABELS,
                       .what = "cluster labels",
                       .count = c->n_vertices,
                       .n_vertices = c->n_vertices,
                       .extra = c->n_clusters,
                       .n_arrays = 1,
                       .arrays = {c->label},
                       .value_type = RES_U32};
    return res_write(run, &o, path, force, err);
}

sg_status sg_parents_write(sg_run *run, const uint32_t *parent, uint64_t n, const char *path,
                           bool force, sg_error *err)
{
    if (n > 0 && !parent) return sgi_fail(err, SG_E_INVALID, "sg_parents_write: no parents");
    const res_out o = {.kind = RES_PARENTS,
                       .what = "parents",
                       .count = n,
                       .n_vertices = n,
                       .extra = 0,
                       .n_arrays = 1,
                       .arrays = {parent},
                       .value_type = RES_U32};
    return res_write(run, &o, path, force, err);
}
