/* Input edge-list readers (parse.h): el, wel, DIMACS gr, Matrix Market,
 * bin32, gapbs sg/wsg and ECLgraph egr, optionally zstd-compressed.
 *
 * Byte source: one `in_src` per sequential stream over the file, plain
 * (pread through the sgi_io table) or zstd streaming decompression
 * (ZSTD_DStream; concatenated frames decode as one stream).
 *
 * Text: the file is read in chunks of sgi_in_chunk_bytes. Each chunk is cut
 * after its last newline (the rest is carried into the next chunk), the part
 * before is split at line starts into pieces, and OpenMP threads parse the
 * pieces into per-piece edge arrays while one thread reads the next chunk
 * into the other buffer. Pieces are handed out in order; each counts its
 * lines, so an error's line number is the lines of the pieces before it plus
 * its line within the piece, and the edges before the bad line still come
 * out first. A line is parsed by a hand-written fast path for the common
 * shape (decimal ids, integer or short decimal weights); anything else goes
 * to a general per-line parser that either accepts the line (strtod weights,
 * CR, odd blanks) or says what is wrong with it.
 *
 * Binary CSR (sg, wsg, egr): offsets, neighbours and (egr) weights are
 * separate arrays, so each is read through its own stream (for zstd input,
 * a stream skips to its array by decompressing and discarding), and memory
 * stays at a few buffers whatever the graph size. */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem, ZSTD_WINDOWLOG_MAX */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "internal.h"
#include "parse.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the binary input readers assume a little-endian host"
#endif

size_t sgi_in_chunk_bytes = (size_t)32 << 20;

#define IN_ZBUF_BYTES ((size_t)1 << 20)     /* compressed bytes per pread */
#define IN_BIN_BYTES ((size_t)4 << 20)      /* binary staging per stream */
#define IN_MIN_CHUNK ((size_t)64)
#define IN_TOKEN_SHOW 40                    /* characters of a bad token quoted */

static const uint8_t zstd_magic[4] = {0x28, 0xB5, 0x2F, 0xFD};

static void *zalloc(void *opaque, size_t n) { (void)opaque; return sgi_malloc(n); }
static void zfree(void *opaque, void *p) { (void)opaque; sgi_free(p); }
static const ZSTD_customMem zmem = {zalloc, zfree, NULL};

/* SG_ALLOC with the input file named in the message. */
#define IN_ALLOC(ptr, expr, err, file, what)                                            \
    do {                                                                               \
        if (((ptr) = (expr)) == NULL) {                                                \
            st = sgi_fail((err), SG_E_NOMEM, "%s: out of memory allocating %s", (file),  \
                          (what));                                                     \
            goto fail;                                                                 \
        }                                                                              \
    } while (0)

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* ------------------------------------------------------------ byte source */

typedef struct in_src {
    const sgi_io *io;
    const char *path;
    int fd;
    uint64_t file_off;       /* next byte of the file to read */
    uint64_t pos;            /* bytes delivered (decompressed for zstd) */
    bool z;
    ZSTD_DStream *zs;
    uint8_t *zbuf;
    ZSTD_inBuffer zin;
    bool file_eof;
    size_t zret;             /* last ZSTD_decompressStream result; 0 = between frames */
} in_src;

static sg_status src_init(in_src *s, const sgi_io *io, const char *path, int fd, bool z,
                          sg_error *err)
{
    memset(s, 0, sizeof *s);
    s->io = io;
    s->path = path;
    s->fd = fd;
    s->z = z;
    if (!z) return SG_OK;
    s->zret = 1; /* at least one frame is expected */
    s->zbuf = sgi_malloc(IN_ZBUF_BYTES);
    s->zs = ZSTD_createDStream_advanced(zmem);
    if (!s->zbuf || !s->zs)
        return sgi_fail(err, SG_E_NOMEM, "%s: out of memory allocating a zstd decoder", path);
    /* frames made with `zstd --long` declare windows beyond the default limit */
    if (ZSTD_isError(ZSTD_DCtx_setParameter(s->zs, ZSTD_d_windowLogMax, ZSTD_WINDOWLOG_MAX)))
        return sgi_fail(err, SG_E_INVALID, "%s: cannot configure the zstd decoder", path);
    return SG_OK;
}

static void src_free(in_src *s)
{
    ZSTD_freeDStream(s->zs);
    sgi_free(s->zbuf);
    s->zs = NULL;
    s->zbuf = NULL;
}

/* Reads up to n bytes; *got < n only at the end of the data. */
static sg_status src_read(in_src *s, void *dst, size_t n, size_t *got, sg_error *err)
{
    uint8_t *const d = dst;
    size_t have = 0;
    if (!s->z) {
        while (have < n) {
            const ssize_t r = s->io->pread(s->fd, d + have, n - have, s->file_off);
            if (r < 0)
                return sgi_fail_errno(err, (int)-r, "reading %s at byte %llu", s->path,
                                      (unsigned long long)s->file_off);
            if (r == 0) break;
            have += (size_t)r;
            s->file_off += (uint64_t)r;
        }
        s->pos += have;
        *got = have;
        return SG_OK;
    }
    ZSTD_outBuffer out = {d, n, 0};
    while (out.pos < n) {
        if (s->zin.pos == s->zin.size && !s->file_eof) {
            const ssize_t r = s->io->pread(s->fd, s->zbuf, IN_ZBUF_BYTES, s->file_off);
            if (r < 0)
                return sgi_fail_errno(err, (int)-r, "reading %s at byte %llu", s->path,
                                      (unsigned long long)s->file_off);
            if (r == 0) s->file_eof = true;
            s->zin = (ZSTD_inBuffer){s->zbuf, (size_t)r, 0};
            s->file_off += (uint64_t)r;
        }
        const bool no_input = s->zin.pos == s->zin.size && s->file_eof;
        if (no_input && s->zret == 0) break; /* the end, between frames */
        const size_t before = out.pos;
        const size_t ret = ZSTD_decompressStream(s->zs, &out, &s->zin);
        if (ZSTD_isError(ret)) {
            if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation)
                return sgi_fail(err, SG_E_NOMEM, "%s: out of memory in the zstd decoder",
                                s->path);
            return sgi_fail(err, SG_E_CORRUPT,
                            "%s: corrupt zstd data (near compressed byte %llu): %s", s->path,
                            (unsigned long long)(s->file_off - (s->zin.size - s->zin.pos)),
                            ZSTD_getErrorName(ret));
        }
        s->zret = ret;
        if (no_input && out.pos == before && ret != 0)
            return sgi_fail(err, SG_E_CORRUPT,
                            "%s: corrupt zstd data: truncated (the file ends inside a frame, "
                            "after %llu decompressed bytes)",
                            s->path, (unsigned long long)(s->pos + out.pos));
    }
    s->pos += out.pos;
    *got = out.pos;
    return SG_OK;
}

/* Skips n bytes of the stream (plain: moves the offset; zstd: decodes and
 * discards). *got < n only at the end of the data. */
static sg_status src_skip(in_src *s, uint64_t n, uint64_t *got, sg_error *err)
{
    if (!s->z) {
        s->file_off += n;
        s->pos += n;
        *got = n;
        return SG_OK;
    }
    uint8_t tmp[16384];
    uint64_t done = 0;
    while (done < n) {
        size_t g = 0;
        const size_t want = (size_t)min_u64(n - done, sizeof tmp);
        const sg_status st = src_read(s, tmp, want, &g, err);
        if (st != SG_OK) return st;
        done += g;
        if (g < want) break;
    }
    *got = done;
    return SG_OK;
}

/* ------------------------------------------------------------ text lines */

typedef struct line_fmt {
    int nfields;          /* fields of a data line ('a' included for gr) */
    bool weighted;        /* the last field is a weight */
    bool gr;              /* DIMACS: "a u v w" lines, 'c' comments */
    bool hash_comments;   /* '#' starts a comment line (el, wel) */
    bool ranged;          /* 1-based ids that must lie in 1..n */
    uint64_t n;
} line_fmt;

typedef struct in_piece {
    const char *b, *e;    /* whole lines, e just after a '\n' */
    sgi_in_edge *edges;
    size_t n, cap;
    uint64_t lines, comments;
    bool float_w;
    sg_status st;         /* the first bad line stops the piece */
    uint64_t err_line;    /* its line within the piece (1-based); 0: no line */
    char msg[400];
} in_piece;

enum { L_EDGE, L_BLANK, L_COMMENT, L_ERR };

static inline bool is_blank(char c) { return c == ' ' || c == '\t'; }
static inline bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
static inline unsigned digit(char c) { return (unsigned)(unsigned char)c - '0'; }

/* Exact powers of ten as doubles. */
static const double pow10_tab[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Up to 19 decimal digits (never overflows); NULL otherwise. */
static inline const char *fast_u64(const char *p, uint64_t *out)
{
    unsigned d = digit(*p);
    if (d >= 10) return NULL;
    const char *const lim = p + 19;
    uint64_t v = d;
    for (p++; (d = digit(*p)) < 10; p++) {
        if (p == lim) return NULL;
        v = v * 10 + d;
    }
    *out = v;
    return p;
}

/* [-]digits[.digits] with at most 19 digits whose value is exact: an
 * integer (converted with one rounding, as strtod does) or a decimal
 * m / 10^k with m <= 2^53 and k <= 22 (one correctly rounded division of
 * two exact doubles, which is what strtod returns). NULL: other forms. */
static inline const char *fast_weight(const char *p, double *w, bool *fw)
{
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    uint64_t m = 0;
    int nd = 0;
    unsigned d;
    while ((d = digit(*p)) < 10) {
        if (nd == 19) return NULL;
        m = m * 10 + d;
        nd++;
        p++;
    }
    if (*p == '.') {
        p++;
        int fd = 0;
        while ((d = digit(*p)) < 10) {
            if (nd == 19) return NULL;
            m = m * 10 + d;
            nd++;
            fd++;
            p++;
        }
        if (nd == 0 || *p == 'e' || *p == 'E' || m > ((uint64_t)1 << 53) || fd > 22)
            return NULL;
        const double x = (double)m / pow10_tab[fd];
        *w = neg ? -x : x;
        *fw = true;
        return p;
    }
    if (nd == 0 || *p == 'e' || *p == 'E') return NULL;
    *w = neg ? -(double)m : (double)m;
    return p;
}

/* The common line shape; NULL sends the line to slow_line. */
static inline __attribute__((always_inline)) const char *
fast_line(const line_fmt *f, const bool weighted, const bool gr, const bool ranged, const char *p,
          sgi_in_edge *ed, bool *fw)
{
    if (gr) {
        if (p[0] != 'a' || !is_blank(p[1])) return NULL;
        p += 2;
        while (is_blank(*p)) p++;
    }
    uint64_t u, v;
    double w = 1.0;
    if (!(p = fast_u64(p, &u)) || !is_blank(*p)) return NULL;
    do p++;
    while (is_blank(*p));
    if (!(p = fast_u64(p, &v))) return NULL;
    if (weighted) {
        if (!is_blank(*p)) return NULL;
        do p++;
        while (is_blank(*p));
        if (!(p = fast_weight(p, &w, fw))) return NULL;
    }
    while (is_blank(*p)) p++;
    if (*p == '\r') p++;
    if (*p != '\n') return NULL;
    if (ranged) {
        if (u - 1 >= f->n || v - 1 >= f->n) return NULL;
        u--;
        v--;
    }
    ed->u = u;
    ed->v = v;
    ed->w = w;
    return p + 1;
}

/* Splits [s, e) at blanks into up to `max` fields; returns the field count
 * (all of them, also beyond max). */
static int tokenize(const char *s, const char *e, const char **fs, size_t *fl, int max)
{
    int nf = 0;
    while (s < e) {
        while (s < e && is_ws(*s)) s++;
        if (s == e) break;
        const char *const t = s;
        while (s < e && !is_ws(*s)) s++;
        if (nf < max) {
            fs[nf] = t;
            fl[nf] = (size_t)(s - t);
        }
        nf++;
    }
    return nf;
}

static int shown(size_t len) { return (int)min_sz(len, IN_TOKEN_SHOW); }
static const char *ellipsis(size_t len) { return len > IN_TOKEN_SHOW ? "..." : ""; }

static int piece_fail(in_piece *pc, sg_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int piece_fail(in_piece *pc, sg_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pc->msg, sizeof pc->msg, fmt, ap);
    va_end(ap);
    pc->st = code;
    return L_ERR;
}

/* A decimal id token (digits only, up to 2^64-1). */
static int parse_id(in_piece *pc, const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        const unsigned d = digit(s[i]);
        if (d >= 10)
            return piece_fail(pc, SG_E_FORMAT, "expected an integer vertex id, found '%.*s%s'",
                              shown(len), s, ellipsis(len));
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v)) {
            /* all digits? then it is a range error, else a format error */
            for (size_t j = i + 1; j < len; j++)
                if (digit(s[j]) >= 10)
                    return piece_fail(pc, SG_E_FORMAT,
                                      "expected an integer vertex id, found '%.*s%s'",
                                      shown(len), s, ellipsis(len));
            return piece_fail(pc, SG_E_RANGE, "vertex id %.*s%s is beyond 2^64-1", shown(len),
                              s, ellipsis(len));
        }
    }
    *out = v;
    return L_EDGE;
}

/* A weight token with strtod semantics. The token is followed by a blank or
 * the line's '\n', where strtod stops. */
static int parse_weight(in_piece *pc, const char *s, size_t len, double *out, bool *fw)
{
    char *end = NULL;
    errno = 0;
    const double x = strtod(s, &end);
    if (end != s + len)
        return piece_fail(pc, SG_E_FORMAT, "expected a number as the weight, found '%.*s%s'",
                          shown(len), s, ellipsis(len));
    if (!isfinite(x)) {
        if (errno == ERANGE)
            return piece_fail(pc, SG_E_RANGE, "weight %.*s%s is out of range", shown(len), s,
                              ellipsis(len));
        return piece_fail(pc, SG_E_FORMAT, "weight is not finite ('%.*s%s')", shown(len), s,
                          ellipsis(len));
    }
    if (memchr(s, '.', len) || memchr(s, 'e', len) || memchr(s, 'E', len)) *fw = true;
    *out = x;
    return L_EDGE;
}

/* Any line [line, nl): an edge, a blank or comment line, or an error in pc. */
static int slow_line(const line_fmt *f, const char *line, const char *nl, sgi_in_edge *ed,
                     in_piece *pc)
{
    const char *fs[8];
    size_t fl[8];
    const int nf = tokenize(line, nl, fs, fl, 8);
    if (nf == 0) return L_BLANK;
    const char c0 = fs[0][0];
    if (c0 == '%' || (c0 == '#' && f->hash_comments) || (c0 == 'c' && f->gr)) return L_COMMENT;
    int k = 0;
    if (f->gr) {
        if (c0 == 'p')
            return piece_fail(pc, SG_E_FORMAT,
                              "a second 'p' line (one 'p sp N M' line must come before the arcs)");
        if (fl[0] != 1 || c0 != 'a')
            return piece_fail(pc, SG_E_FORMAT,
                              "expected an arc line 'a u v w' or a comment 'c ...', found '%.*s%s'",
                              shown(fl[0]), fs[0], ellipsis(fl[0]));
        k = 1;
    }
    if (nf != f->nfields)
        return piece_fail(pc, SG_E_FORMAT, "expected %d fields, found %d", f->nfields, nf);
    uint64_t id[2];
    for (int i = 0; i < 2; i++) {
        if (parse_id(pc, fs[k + i], fl[k + i], &id[i]) != L_EDGE) return L_ERR;
        if (f->ranged && (id[i] == 0 || id[i] > f->n))
            return piece_fail(pc, SG_E_RANGE, "vertex id %llu is out of range 1..%llu",
                              (unsigned long long)id[i], (unsigned long long)f->n);
    }
    double w = 1.0;
    if (f->weighted && parse_weight(pc, fs[k + 2], fl[k + 2], &w, &pc->float_w) != L_EDGE)
        return L_ERR;
    ed->u = f->ranged ? id[0] - 1 : id[0];
    ed->v = f->ranged ? id[1] - 1 : id[1];
    ed->w = w;
    return L_EDGE;
}

static bool piece_grow(in_piece *pc)
{
    size_t cap = pc->cap + pc->cap / 2 + 1024;
    sgi_in_edge *e = sgi_realloc(pc->edges, cap * sizeof *e);
    if (!e) {
        piece_fail(pc, SG_E_NOMEM, "out of memory allocating parsed edges");
        pc->err_line = 0;
        return false;
    }
    pc->edges = e;
    pc->cap = cap;
    return true;
}

static inline __attribute__((always_inline)) void
parse_piece_impl(const line_fmt *f, in_piece *pc, const bool weighted, const bool gr,
                 const bool ranged, const bool hash)
{
    const char *p = pc->b;
    const char *const end = pc->e;
    pc->n = 0;
    pc->lines = 0;
    pc->comments = 0;
    pc->float_w = false;
    pc->st = SG_OK;
    pc->err_line = 0;
    /* an estimate of the lines (short lines grow the array) */
    const size_t want = (size_t)(end - p) / 12 + 64;
    if (pc->cap < want) {
        sgi_in_edge *e = sgi_realloc(pc->edges, want * sizeof *e);
        if (!e) {
            piece_fail(pc, SG_E_NOMEM, "out of memory allocating parsed edges");
            return;
        }
        pc->edges = e;
        pc->cap = want;
    }
    while (p < end) {
        const char *const line = p;
        pc->lines++;
        while (is_blank(*p)) p++;
        const char c = *p;
        if (c == '\n') {
            p++;
            continue;
        }
        if (c == '%' || (hash && c == '#') || (gr && c == 'c')) {
            pc->comments++;
            p = (const char *)memchr(p, '\n', (size_t)(end - p)) + 1;
            continue;
        }
        if (pc->n == pc->cap && !piece_grow(pc)) return;
        sgi_in_edge *const ed = &pc->edges[pc->n];
        const char *q = fast_line(f, weighted, gr, ranged, p, ed, &pc->float_w);
        if (q) {
            pc->n++;
            p = q;
            continue;
        }
        const char *const nl = memchr(line, '\n', (size_t)(end - line));
        switch (slow_line(f, line, nl, ed, pc)) {
        case L_EDGE: pc->n++; break;
        case L_COMMENT: pc->comments++; break;
        case L_BLANK: break;
        default: pc->err_line = pc->lines; return;
        }
        p = nl + 1;
    }
}

static void parse_piece(const line_fmt *f, in_piece *pc)
{
    if (f->gr) parse_piece_impl(f, pc, true, true, true, false);
    else if (f->ranged) parse_piece_impl(f, pc, f->weighted, false, true, false);
    else if (f->weighted) parse_piece_impl(f, pc, true, false, false, true);
    else parse_piece_impl(f, pc, false, false, false, true);
}

/* ------------------------------------------------------------ the reader */

typedef struct csr_stream {
    in_src s;
    uint8_t *buf;
    size_t have, pos;        /* bytes in buf, bytes consumed */
    uint64_t left;           /* bytes of the array not yet read into buf */
    uint64_t base;           /* byte offset of the array in the (decompressed) file */
    unsigned esz;            /* element size */
    bool open;
} csr_stream;

typedef struct csr_state {
    csr_stream so, sn, sw;   /* offsets, neighbours (+ wsg weights), egr weights */
    uint64_t n, m;
    uint64_t expect_bytes;   /* decompressed size the header implies (the read part) */
    bool pairs;              /* wsg: (int32 v, int32 w) */
    bool egr_w;
    uint64_t u_next;         /* next vertex whose end offset is to be read */
    uint64_t u;              /* vertex whose list is being emitted */
    uint64_t end;            /* its end offset */
    uint64_t e;              /* next edge */
    bool check_trailing;     /* zstd input: verify nothing follows the last array */
} csr_state;

struct sgi_in_reader {
    char *path;
    const sgi_io *io;
    int fd;
    sgi_in_info info;
    int threads;
    sg_status (*next)(sgi_in_reader *r, sgi_in_edge *buf, size_t cap, size_t *got,
                      sg_error *err);
    bool done;
    sg_status failed;        /* sticky */
    sg_error ferr;
    uint64_t edges_out;

    in_src src;              /* text and bin32 */

    /* text */
    line_fmt lf;
    char *tb[2];
    size_t tcap[2];          /* usable bytes; each buffer has 2 more */
    int cur;
    size_t tstart, tlen;     /* unparsed data of tb[cur] */
    bool src_eof;            /* nothing follows tb[cur][tlen] */
    size_t olen;             /* read-ahead into tb[1 - cur] */
    bool oeof;
    sg_status fill_st;
    sg_error fill_err;
    bool text_end;           /* all data parsed (pieces may remain) */
    in_piece *pieces;
    int max_pieces, np, ip;
    size_t ik;
    size_t min_piece;
    uint64_t lines, comments;

    /* bin32 */
    uint8_t *bb;
    size_t bcap;

    csr_state csr;
};

const sgi_in_info *sgi_in_get_info(const sgi_in_reader *r) { return &r->info; }
uint64_t sgi_in_lines(const sgi_in_reader *r) { return r->lines; }
uint64_t sgi_in_comment_lines(const sgi_in_reader *r) { return r->comments; }

uint64_t sgi_in_bytes_done(const sgi_in_reader *r)
{
    switch (r->info.format) {
    case SG_INPUT_SG:
    case SG_INPUT_WSG:
    case SG_INPUT_EGR:
        if (r->done || r->csr.m == 0) return r->done ? r->info.file_bytes : 0;
        return (uint64_t)((double)r->info.file_bytes * (double)r->csr.e / (double)r->csr.m);
    default: return min_u64(r->src.file_off, r->info.file_bytes);
    }
}

/* ------------------------------------------------------------ text buffers */

static sg_status text_grow(sgi_in_reader *r, int i, size_t cap, sg_error *err)
{
    if (r->tcap[i] >= cap) return SG_OK;
    char *b = sgi_realloc(r->tb[i], cap + 2);
    if (!b) return sgi_fail(err, SG_E_NOMEM, "%s: out of memory for a text buffer", r->path);
    r->tb[i] = b;
    r->tcap[i] = cap;
    return SG_OK;
}

/* More data at the end of tb[cur] (moving the unparsed part to the front,
 * growing the buffer when it is full). */
static sg_status text_more(sgi_in_reader *r, sg_error *err)
{
    sg_status st = SG_OK;
    char *b = r->tb[r->cur];
    if (r->tstart > 0) {
        memmove(b, b + r->tstart, r->tlen - r->tstart);
        r->tlen -= r->tstart;
        r->tstart = 0;
    }
    if (r->tlen == r->tcap[r->cur]) SG_TRY(text_grow(r, r->cur, 2 * r->tcap[r->cur], err));
    b = r->tb[r->cur];
    size_t got = 0;
    const size_t want = r->tcap[r->cur] - r->tlen;
    SG_TRY(src_read(&r->src, b + r->tlen, want, &got, err));
    r->tlen += got;
    if (got < want) r->src_eof = true;
fail:
    return st;
}

/* The next line of tb[cur] for header parsing: [*s, *e), *e at its '\n'.
 * false at the end of the data. */
static sg_status text_getline(sgi_in_reader *r, const char **s, const char **e, bool *have,
                              sg_error *err)
{
    sg_status st = SG_OK;
    *have = false;
    for (;;) {
        char *const b = r->tb[r->cur];
        const char *nl = memchr(b + r->tstart, '\n', r->tlen - r->tstart);
        if (nl) {
            *s = b + r->tstart;
            *e = nl;
            r->tstart = (size_t)(nl - b) + 1;
            *have = true;
            break;
        }
        if (r->src_eof) {
            if (r->tlen > r->tstart) {
                b[r->tlen] = '\n';
                *s = b + r->tstart;
                *e = b + r->tlen;
                r->tstart = r->tlen;
                *have = true;
            }
            break;
        }
        SG_TRY(text_more(r, err));
    }
    if (*have) r->lines++;
fail:
    return st;
}

/* Read-ahead into tb[1 - cur] after `carry` bytes already there. */
static void text_fill_other(sgi_in_reader *r, size_t carry)
{
    const int o = 1 - r->cur;
    const size_t want = r->tcap[o] - carry;
    size_t got = 0;
    r->fill_st = src_read(&r->src, r->tb[o] + carry, want, &got, &r->fill_err);
    r->olen = carry + got;
    r->oeof = got < want;
}

/* Parses the next chunk into pieces (and reads the one after). */
static sg_status text_parse_chunk(sgi_in_reader *r, sg_error *err)
{
    sg_status st = SG_OK;
    if (r->fill_st != SG_OK) {
        if (err) *err = r->fill_err;
        return r->fill_st;
    }
    size_t rend;
    for (;;) {
        char *const b = r->tb[r->cur];
        if (r->src_eof) {
            rend = r->tlen;
            if (rend > r->tstart && b[rend - 1] != '\n') b[rend++] = '\n'; /* slack */
            break;
        }
        const char *nl = memrchr(b + r->tstart, '\n', r->tlen - r->tstart);
        if (nl) {
            rend = (size_t)(nl - b) + 1;
            break;
        }
        SG_TRY(text_more(r, err));
    }
    char *const b = r->tb[r->cur];
    r->np = 0;
    r->ip = 0;
    r->ik = 0;
    if (rend == r->tstart) { /* the end */
        r->text_end = true;
        return SG_OK;
    }
    const bool ahead = !r->src_eof;
    const int o = 1 - r->cur;
    size_t carry = 0;
    if (ahead) {
        carry = r->tlen - rend;
        SG_TRY(text_grow(r, o, r->tcap[r->cur], err));
        memcpy(r->tb[o], b + rend, carry);
    }

    /* pieces: about equal byte ranges, each moved to a line start */
    const size_t size = rend - r->tstart;
    size_t np = size / r->min_piece;
    if (np < 1) np = 1;
    if (np > (size_t)r->max_pieces) np = (size_t)r->max_pieces;
    const char *prev = b + r->tstart;
    for (size_t k = 0; k < np; k++) {
        const char *e = b + rend;
        if (k + 1 < np) {
            e = b + r->tstart + size / np * (k + 1);
            if (e < prev) e = prev;
            if (e > b + rend) e = b + rend;
            if (e > b + r->tstart && e[-1] != '\n') {
                const char *nl = memchr(e, '\n', (size_t)(b + rend - e));
                e = nl ? nl + 1 : b + rend;
            }
        }
        r->pieces[k].b = prev;
        r->pieces[k].e = e;
        prev = e;
    }
    r->np = (int)np;

    const int nt = (int)min_sz((size_t)r->threads, np + (ahead ? 1 : 0));
    if (nt <= 1 || np == 1) {
        for (int k = 0; k < r->np; k++) parse_piece(&r->lf, &r->pieces[k]);
        if (ahead) text_fill_other(r, carry);
    } else {
#pragma omp parallel num_threads(nt)
        {
            if (ahead) {
#pragma omp single nowait
                text_fill_other(r, carry);
            }
#pragma omp for schedule(dynamic, 1)
            for (int k = 0; k < r->np; k++) parse_piece(&r->lf, &r->pieces[k]);
        }
    }
    if (ahead) { /* the read-ahead becomes the current buffer */
        r->cur = o;
        r->tstart = 0;
        r->tlen = r->olen;
        r->src_eof = r->oeof;
    } else {
        r->text_end = true;
    }
fail:
    return st;
}

static sg_status text_next(sgi_in_reader *r, sgi_in_edge *buf, size_t cap, size_t *got,
                           sg_error *err)
{
    sg_status st = SG_OK;
    size_t n = 0;
    while (n < cap) {
        if (r->ip < r->np) {
            in_piece *const pc = &r->pieces[r->ip];
            const size_t k = min_sz(pc->n - r->ik, cap - n);
            if (k) memcpy(buf + n, pc->edges + r->ik, k * sizeof *buf);
            n += k;
            r->ik += k;
            if (r->ik < pc->n) break;
            if (pc->float_w) r->info.float_weights = true;
            if (pc->st != SG_OK) {
                if (pc->err_line == 0) {
                    st = sgi_fail(err, pc->st, "%s: %s", r->path, pc->msg);
                } else {
                    r->lines += pc->err_line;
                    st = sgi_fail(err, pc->st, "%s:%llu: %s", r->path,
                                  (unsigned long long)r->lines, pc->msg);
                }
                goto fail;
            }
            r->lines += pc->lines;
            r->comments += pc->comments;
            r->ip++;
            r->ik = 0;
            continue;
        }
        if (r->text_end) break;
        SG_TRY(text_parse_chunk(r, err));
    }
fail:
    *got = n;
    return st;
}

/* ------------------------------------------------------------ text headers */

static bool word_is(const char *s, size_t len, const char *w)
{
    return strlen(w) == len && strncasecmp(s, w, len) == 0;
}

static sg_status header_u64(sgi_in_reader *r, const char *s, size_t len, const char *what,
                            uint64_t *out, sg_error *err)
{
    in_piece tmp;
    tmp.st = SG_OK;
    if (parse_id(&tmp, s, len, out) != L_EDGE)
        return sgi_fail(err, tmp.st == SG_E_RANGE ? SG_E_RANGE : SG_E_FORMAT,
                        "%s:%llu: expected an integer %s, found '%.*s%s'", r->path,
                        (unsigned long long)r->lines, what, shown(len), s, ellipsis(len));
    return SG_OK;
}

/* DIMACS: comments up to exactly one "p sp N M" line. */
static sg_status gr_header(sgi_in_reader *r, sg_error *err)
{
    sg_status st = SG_OK;
    for (;;) {
        const char *s, *e;
        bool have;
        SG_TRY(text_getline(r, &s, &e, &have, err));
        SG_CHECK(have, SG_E_FORMAT, err, "%s: no problem line 'p sp N M' (%llu lines read)",
                 r->path, (unsigned long long)r->lines);
        const char *fs[8];
        size_t fl[8];
        const int nf = tokenize(s, e, fs, fl, 8);
        if (nf == 0) continue;
        if (fs[0][0] == 'c') {
            r->comments++;
            continue;
        }
        SG_CHECK(!(fs[0][0] == 'a' && fl[0] == 1), SG_E_FORMAT, err,
                 "%s:%llu: an arc before the problem line 'p sp N M'", r->path,
                 (unsigned long long)r->lines);
        SG_CHECK(fs[0][0] == 'p' && fl[0] == 1, SG_E_FORMAT, err,
                 "%s:%llu: expected a comment 'c ...' or the problem line 'p sp N M', found "
                 "'%.*s%s'", r->path, (unsigned long long)r->lines, shown(fl[0]), fs[0],
                 ellipsis(fl[0]));
        SG_CHECK(nf == 4, SG_E_FORMAT, err, "%s:%llu: expected 4 fields ('p sp N M'), found %d",
                 r->path, (unsigned long long)r->lines, nf);
        SG_CHECK(word_is(fs[1], fl[1], "sp"), SG_E_FORMAT, err,
                 "%s:%llu: the problem line is 'p %.*s%s ...'; only shortest-path graphs "
                 "('p sp N M') are supported", r->path, (unsigned long long)r->lines,
                 shown(fl[1]), fs[1], ellipsis(fl[1]));
        SG_TRY(header_u64(r, fs[2], fl[2], "vertex count", &r->info.header_n, err));
        SG_TRY(header_u64(r, fs[3], fl[3], "arc count", &r->info.header_m, err));
        r->comments++;
        break;
    }
    r->info.has_header_counts = true;
fail:
    return st;
}

/* Matrix Market: the banner, '%' comments, the size line. */
static sg_status mtx_header(sgi_in_reader *r, sg_error *err)
{
    sg_status st = SG_OK;
    const char *s, *e;
    bool have;
    const char *fs[8];
    size_t fl[8];
    SG_TRY(text_getline(r, &s, &e, &have, err));
    SG_CHECK(have, SG_E_FORMAT, err,
             "%s: empty file (expected a '%%%%MatrixMarket matrix coordinate ...' banner)",
             r->path);
    int nf = tokenize(s, e, fs, fl, 8);
    const size_t blen = (size_t)(e - s) - (e > s && e[-1] == '\r');
    SG_CHECK(nf >= 1 && word_is(fs[0], fl[0], "%%MatrixMarket"), SG_E_FORMAT, err,
             "%s:1: expected the banner '%%%%MatrixMarket matrix coordinate <field> "
             "<symmetry>', found '%.*s%s'", r->path, shown(blen), s, ellipsis(blen));
    SG_CHECK(nf == 5 && word_is(fs[1], fl[1], "matrix") && word_is(fs[2], fl[2], "coordinate"),
             SG_E_FORMAT, err,
             "%s:1: unsupported Matrix Market banner '%.*s%s' (a graph needs 'matrix "
             "coordinate' with pattern, integer or real entries, general or symmetric)",
             r->path, (int)min_sz(blen, 200), s, blen > 200 ? "..." : "");
    bool pattern = word_is(fs[3], fl[3], "pattern");
    const bool real = word_is(fs[3], fl[3], "real");
    const bool integer = word_is(fs[3], fl[3], "integer");
    const bool general = word_is(fs[4], fl[4], "general");
    const bool symmetric = word_is(fs[4], fl[4], "symmetric");
    SG_CHECK((pattern || real || integer) && (general || symmetric), SG_E_FORMAT, err,
             "%s:1: unsupported Matrix Market banner '%.*s%s' (a graph needs 'matrix "
             "coordinate' with pattern, integer or real entries, general or symmetric)",
             r->path, (int)min_sz(blen, 200), s, blen > 200 ? "..." : "");
    r->comments++;
    r->info.weighted = !pattern;
    r->info.float_weights = real;
    r->info.symmetric = symmetric;
    for (;;) {
        SG_TRY(text_getline(r, &s, &e, &have, err));
        SG_CHECK(have, SG_E_FORMAT, err, "%s: no size line 'rows cols entries' (%llu lines read)",
                 r->path, (unsigned long long)r->lines);
        nf = tokenize(s, e, fs, fl, 8);
        if (nf == 0) continue;
        if (fs[0][0] == '%') {
            r->comments++;
            continue;
        }
        break;
    }
    SG_CHECK(nf == 3, SG_E_FORMAT, err,
             "%s:%llu: expected 3 fields (the size line 'rows cols entries'), found %d", r->path,
             (unsigned long long)r->lines, nf);
    uint64_t rows, cols, nnz;
    SG_TRY(header_u64(r, fs[0], fl[0], "row count", &rows, err));
    SG_TRY(header_u64(r, fs[1], fl[1], "column count", &cols, err));
    SG_TRY(header_u64(r, fs[2], fl[2], "entry count", &nnz, err));
    SG_CHECK(rows == cols, SG_E_FORMAT, err,
             "%s:%llu: the matrix is %llu x %llu; a graph needs a square matrix", r->path,
             (unsigned long long)r->lines, (unsigned long long)rows, (unsigned long long)cols);
    r->comments++;
    r->info.header_n = rows;
    r->info.header_m = nnz;
    r->info.has_header_counts = true;
fail:
    return st;
}

static sg_status text_open(sgi_in_reader *r, sg_error *err)
{
    sg_status st = SG_OK;
    size_t chunk = sgi_in_chunk_bytes > IN_MIN_CHUNK ? sgi_in_chunk_bytes : IN_MIN_CHUNK;
    if (!r->info.compressed && r->info.file_bytes + 64 < chunk)
        chunk = (size_t)r->info.file_bytes + 64;
    SG_TRY(text_grow(r, 0, chunk, err));
    SG_TRY(text_grow(r, 1, chunk, err));
    r->min_piece = min_sz((size_t)1 << 19, chunk / 64);
    if (r->min_piece < 256) r->min_piece = 256;
    r->max_pieces = 4 * r->threads;
    IN_ALLOC(r->pieces, sgi_calloc((size_t)r->max_pieces, sizeof *r->pieces), err, r->path,
             "text pieces");
    SG_TRY(text_more(r, err));
    line_fmt *const f = &r->lf;
    switch (r->info.format) {
    case SG_INPUT_EL:
        *f = (line_fmt){.nfields = 2, .hash_comments = true};
        break;
    case SG_INPUT_WEL:
        *f = (line_fmt){.nfields = 3, .weighted = true, .hash_comments = true};
        r->info.weighted = true;
        break;
    case SG_INPUT_GR:
        SG_TRY(gr_header(r, err));
        *f = (line_fmt){.nfields = 4, .weighted = true, .gr = true, .ranged = true,
                        .n = r->info.header_n};
        r->info.weighted = true;
        break;
    case SG_INPUT_MTX:
        SG_TRY(mtx_header(r, err));
        *f = (line_fmt){.nfields = r->info.weighted ? 3 : 2, .weighted = r->info.weighted,
                        .ranged = true, .n = r->info.header_n};
        break;
    default: assert(0);
    }
    r->next = text_next;
fail:
    return st;
}

/* ------------------------------------------------------------ bin32 */

static sg_status bin32_next(sgi_in_reader *r, sgi_in_edge *buf, size_t cap, size_t *got,
                            sg_error *err)
{
    sg_status st = SG_OK;
    size_t n = 0;
    const size_t want = min_sz(cap, r->bcap / 12) * 12;
    const uint64_t pos0 = r->src.pos;
    size_t g = 0;
    SG_TRY(src_read(&r->src, r->bb, want, &g, err));
    n = g / 12;
    for (size_t i = 0; i < n; i++) {
        uint32_t rec[3];
        memcpy(rec, r->bb + 12 * i, sizeof rec);
        buf[i] = (sgi_in_edge){rec[0], rec[1], (double)rec[2]};
    }
    SG_CHECK(g % 12 == 0, SG_E_FORMAT, err,
             "%s: incomplete record at byte %llu%s (%zu bytes; a record is 12 bytes: u32 u, "
             "u32 v, u32 w)", r->path, (unsigned long long)(pos0 + 12 * n),
             r->info.compressed ? " of the decompressed data" : "", g % 12);
fail:
    *got = n;
    return st;
}

static sg_status bin32_open(sgi_in_reader *r, sg_error *err)
{
    sg_status st = SG_OK;
    SG_CHECK(r->info.compressed || r->info.file_bytes % 12 == 0, SG_E_FORMAT, err,
             "%s: incomplete record at byte %llu (the file has %llu bytes, not a multiple of "
             "the 12-byte record u32 u, u32 v, u32 w)", r->path,
             (unsigned long long)(r->info.file_bytes - r->info.file_bytes % 12),
             (unsigned long long)r->info.file_bytes);
    r->bcap = IN_BIN_BYTES / 12 * 12;
    IN_ALLOC(r->bb, sgi_malloc(r->bcap), err, r->path, "a bin32 buffer");
    r->info.weighted = true;
    r->next = bin32_next;
fail:
    return st;
}

/* ------------------------------------------------------------ binary CSR */

static sg_status csr_stream_open(sgi_in_reader *r, csr_stream *cs, uint64_t base, uint64_t count,
                                 unsigned esz, sg_error *err)
{
    sg_status st = SG_OK;
    cs->open = true; /* src_free undoes a partial src_init */
    SG_TRY(src_init(&cs->s, r->io, r->path, r->fd, r->info.compressed, err));
    IN_ALLOC(cs->buf, sgi_malloc(IN_BIN_BYTES), err, r->path, "a CSR buffer");
    cs->base = base;
    cs->esz = esz;
    cs->left = count * esz;
    uint64_t got = 0;
    SG_TRY(src_skip(&cs->s, base, &got, err));
    SG_CHECK(got == base, SG_E_CORRUPT, err,
             "%s: truncated: the header (n = %llu, m = %llu) needs at least %llu bytes, the "
             "decompressed data has %llu", r->path, (unsigned long long)r->csr.n,
             (unsigned long long)r->csr.m, (unsigned long long)r->csr.expect_bytes,
             (unsigned long long)got);
fail:
    return st;
}

static void csr_stream_close(csr_stream *cs)
{
    if (cs->open) src_free(&cs->s);
    sgi_free(cs->buf);
    memset(cs, 0, sizeof *cs);
}

/* Makes at least one element available in cs->buf. */
static sg_status csr_fill(sgi_in_reader *r, csr_stream *cs, sg_error *err)
{
    sg_status st = SG_OK;
    if (cs->have - cs->pos >= cs->esz) return SG_OK;
    const size_t rest = cs->have - cs->pos;
    memmove(cs->buf, cs->buf + cs->pos, rest);
    cs->have = rest;
    cs->pos = 0;
    const size_t want = (size_t)min_u64(IN_BIN_BYTES - rest, cs->left);
    size_t got = 0;
    if (want > 0) SG_TRY(src_read(&cs->s, cs->buf + rest, want, &got, err));
    cs->have += got;
    cs->left -= got;
    SG_CHECK(got == want && cs->have >= cs->esz, SG_E_CORRUPT, err,
             "%s: truncated: the header (n = %llu, m = %llu) needs %llu bytes, the %sdata ends "
             "at byte %llu", r->path, (unsigned long long)r->csr.n, (unsigned long long)r->csr.m,
             (unsigned long long)r->csr.expect_bytes,
             r->info.compressed ? "decompressed " : "", (unsigned long long)cs->s.pos);
fail:
    return st;
}

/* The next offset (the offset of vertex `i`, read in order). */
static sg_status csr_offset(sgi_in_reader *r, uint64_t i, uint64_t *out, sg_error *err)
{
    csr_stream *const cs = &r->csr.so;
    sg_status st = csr_fill(r, cs, err);
    if (st != SG_OK) return st;
    int64_t v;
    if (cs->esz == 8) {
        memcpy(&v, cs->buf + cs->pos, 8);
    } else {
        int32_t v32;
        memcpy(&v32, cs->buf + cs->pos, 4);
        v = v32;
    }
    cs->pos += cs->esz;
    const uint64_t at = cs->base + i * cs->esz;
    if (v < 0 || (uint64_t)v > r->csr.m)
        return sgi_fail(err, SG_E_CORRUPT,
                        "%s: the offset of vertex %llu (%lld, at byte %llu) is outside 0..%llu "
                        "(the edge count)", r->path, (unsigned long long)i, (long long)v,
                        (unsigned long long)at, (unsigned long long)r->csr.m);
    if (i > 0 && (uint64_t)v < r->csr.end)
        return sgi_fail(err, SG_E_CORRUPT,
                        "%s: offsets decrease at vertex %llu (%lld after %llu, at byte %llu)",
                        r->path, (unsigned long long)i, (long long)v,
                        (unsigned long long)r->csr.end, (unsigned long long)at);
    *out = (uint64_t)v;
    return SG_OK;
}

static sg_status csr_finish(sgi_in_reader *r, sg_error *err)
{
    sg_status st = SG_OK;
    csr_state *const c = &r->csr;
    SG_CHECK(c->end == c->m, SG_E_CORRUPT, err,
             "%s: the last offset (vertex %llu, at byte %llu) is %llu, but the header says %llu "
             "edges", r->path, (unsigned long long)c->n,
             (unsigned long long)(c->so.base + c->n * c->so.esz), (unsigned long long)c->end,
             (unsigned long long)c->m);
    if (c->check_trailing) {
        csr_stream *const last = c->egr_w ? &c->sw : &c->sn;
        uint8_t b;
        size_t got = 0;
        SG_TRY(src_read(&last->s, &b, 1, &got, err));
        SG_CHECK(got == 0, SG_E_CORRUPT, err,
                 "%s: trailing data: the header (n = %llu, m = %llu) implies %llu decompressed "
                 "bytes, but there are more", r->path, (unsigned long long)c->n,
                 (unsigned long long)c->m, (unsigned long long)c->expect_bytes);
    }
fail:
    return st;
}

static sg_status csr_next(sgi_in_reader *r, sgi_in_edge *buf, size_t cap, size_t *got,
                          sg_error *err)
{
    sg_status st = SG_OK;
    csr_state *const c = &r->csr;
    size_t n = 0;
    while (n < cap) {
        if (c->e == c->end) {
            if (c->u_next == c->n) {
                SG_TRY(csr_finish(r, err));
                break;
            }
            uint64_t off = 0;
            SG_TRY(csr_offset(r, c->u_next + 1, &off, err));
            c->u = c->u_next++;
            c->end = off;
            continue;
        }
        SG_TRY(csr_fill(r, &c->sn, err));
        size_t k = min_sz((size_t)min_u64(c->end - c->e, cap - n),
                          (c->sn.have - c->sn.pos) / c->sn.esz);
        if (c->egr_w) {
            SG_TRY(csr_fill(r, &c->sw, err));
            k = min_sz(k, (c->sw.have - c->sw.pos) / 4);
        }
        const uint8_t *np = c->sn.buf + c->sn.pos;
        const uint8_t *wp = c->egr_w ? c->sw.buf + c->sw.pos : NULL;
        for (size_t i = 0; i < k; i++) {
            uint32_t v;
            int32_t w = 1;
            memcpy(&v, np + i * c->sn.esz, 4);
            if (c->pairs) memcpy(&w, np + i * 8 + 4, 4);
            else if (wp) memcpy(&w, wp + i * 4, 4);
            if (v >= c->n) {
                c->sn.pos += i * c->sn.esz;
                n += i;
                SG_CHECK(0, SG_E_RANGE, err,
                         "%s: neighbour %d of vertex %llu (edge %llu, at byte %llu) is not a "
                         "vertex (n = %llu)", r->path, (int32_t)v, (unsigned long long)c->u,
                         (unsigned long long)(c->e + i),
                         (unsigned long long)(c->sn.base + (c->e + i) * c->sn.esz),
                         (unsigned long long)c->n);
            }
            buf[n + i] = (sgi_in_edge){c->u, v, (double)w};
        }
        c->sn.pos += k * c->sn.esz;
        if (wp) c->sw.pos += k * 4;
        c->e += k;
        n += k;
    }
fail:
    *got = n;
    return st;
}

static sg_status csr_open(sgi_in_reader *r, sg_error *err)
{
    sg_status st = SG_OK;
    csr_state *const c = &r->csr;
    const sg_input_format f = r->info.format;
    const bool egr = f == SG_INPUT_EGR;
    uint64_t hdr_bytes, off_esz, nbr_esz;
    SG_TRY(src_init(&r->src, r->io, r->path, r->fd, r->info.compressed, err));
    uint8_t hdr[17];
    size_t got = 0;
    hdr_bytes = egr ? 8 : 17;
    SG_TRY(src_read(&r->src, hdr, hdr_bytes, &got, err));
    SG_CHECK(got == hdr_bytes, SG_E_CORRUPT, err,
             "%s: truncated: the %s header needs %llu bytes, the %sdata has %zu", r->path,
             sg_input_format_name(f), (unsigned long long)hdr_bytes,
             r->info.compressed ? "decompressed " : "", got);
    if (egr) {
        int32_t n32, m32;
        memcpy(&n32, hdr, 4);
        memcpy(&m32, hdr + 4, 4);
        SG_CHECK(n32 >= 0 && m32 >= 0, SG_E_CORRUPT, err,
                 "%s: negative counts in the egr header (n = %d, m = %d)", r->path, n32, m32);
        c->n = (uint64_t)n32;
        c->m = (uint64_t)m32;
        off_esz = 4;
        nbr_esz = 4;
    } else {
        int64_t m64, n64;
        SG_CHECK(hdr[0] <= 1, SG_E_CORRUPT, err,
                 "%s: byte 0 (the directed flag) is %u, not 0 or 1: not a gapbs serialized "
                 "graph", r->path, hdr[0]);
        memcpy(&m64, hdr + 1, 8);
        memcpy(&n64, hdr + 9, 8);
        SG_CHECK(n64 >= 0 && m64 >= 0 && n64 <= (int64_t)INT32_MAX + 1, SG_E_CORRUPT, err,
                 "%s: impossible counts in the %s header (n = %lld, m = %lld; ids are int32)",
                 r->path, sg_input_format_name(f), (long long)n64, (long long)m64);
        c->n = (uint64_t)n64;
        c->m = (uint64_t)m64;
        r->info.directed_hint = hdr[0] == 1;
        off_esz = 8;
        nbr_esz = f == SG_INPUT_WSG ? 8 : 4;
        c->pairs = f == SG_INPUT_WSG;
    }
    r->info.header_n = c->n;
    r->info.header_m = c->m;
    r->info.has_header_counts = true;
    r->info.weighted = f == SG_INPUT_WSG;
    /* sizes (the counts are below 2^63, so overflow shows as a wrap) */
    uint64_t xb, ab, body;
    SG_CHECK(!__builtin_mul_overflow(c->n + 1, off_esz, &xb) &&
                 !__builtin_mul_overflow(c->m, nbr_esz, &ab) &&
                 !__builtin_add_overflow(xb, ab, &body) &&
                 !__builtin_add_overflow(body, hdr_bytes, &body),
             SG_E_CORRUPT, err, "%s: impossible counts in the header (n = %llu, m = %llu)",
             r->path, (unsigned long long)c->n, (unsigned long long)c->m);
    const uint64_t size = r->info.file_bytes;
    if (egr) {
        const uint64_t with_w = body + 4 * c->m;
        if (!r->info.compressed) {
            SG_CHECK(size == body || size == with_w, SG_E_CORRUPT, err,
                     "%s: %s: the header (n = %llu, m = %llu) needs %llu bytes (%llu with "
                     "weights), the file has %llu", r->path,
                     size < body ? "truncated" : "wrong size", (unsigned long long)c->n,
                     (unsigned long long)c->m, (unsigned long long)body,
                     (unsigned long long)with_w, (unsigned long long)size);
            c->egr_w = size == with_w;
        }
        c->expect_bytes = body;
    } else {
        uint64_t total = body;
        if (r->info.directed_hint)
            SG_CHECK(!__builtin_add_overflow(body, body - hdr_bytes, &total), SG_E_CORRUPT, err,
                     "%s: impossible counts in the header (n = %llu, m = %llu)", r->path,
                     (unsigned long long)c->n, (unsigned long long)c->m);
        SG_CHECK(r->info.compressed || size == total, SG_E_CORRUPT, err,
                 "%s: %s: the header (%s, n = %llu, m = %llu) needs %llu bytes, the file has "
                 "%llu", r->path, size < total ? "truncated" : "wrong size",
                 r->info.directed_hint ? "directed" : "undirected", (unsigned long long)c->n,
                 (unsigned long long)c->m, (unsigned long long)total, (unsigned long long)size);
        c->expect_bytes = total;
        c->check_trailing = r->info.compressed && !r->info.directed_hint;
    }
    /* the offsets continue in the header's stream */
    csr_stream *const so = &c->so;
    so->s = r->src;
    memset(&r->src, 0, sizeof r->src);
    so->open = true;
    IN_ALLOC(so->buf, sgi_malloc(IN_BIN_BYTES), err, r->path, "a CSR buffer");
    so->base = hdr_bytes;
    so->esz = (unsigned)off_esz;
    so->left = xb;
    SG_TRY(csr_stream_open(r, &c->sn, hdr_bytes + xb, c->m, (unsigned)nbr_esz, err));
    if (egr && r->info.compressed) {
        /* weights are there if the data goes on after the neighbours */
        SG_TRY(csr_stream_open(r, &c->sw, body, c->m, 4, err));
        size_t g = 0;
        SG_TRY(src_read(&c->sw.s, c->sw.buf, 1, &g, err));
        c->sw.have = g;
        if (g == 1) {
            c->sw.left -= 1;
            c->egr_w = true;
            c->expect_bytes = body + 4 * c->m;
        } else {
            csr_stream_close(&c->sw);
        }
        c->check_trailing = true;
    } else if (c->egr_w) {
        c->expect_bytes = body + 4 * c->m;
        SG_TRY(csr_stream_open(r, &c->sw, body, c->m, 4, err));
    }
    if (egr) r->info.weighted = c->egr_w;
    if (c->egr_w && c->m == 0) c->egr_w = false; /* nothing to read */
    /* the first offset must be 0 */
    uint64_t off0 = 0;
    SG_TRY(csr_offset(r, 0, &off0, err));
    SG_CHECK(off0 == 0, SG_E_CORRUPT, err,
             "%s: the first offset (at byte %llu) is %llu, not 0", r->path,
             (unsigned long long)hdr_bytes, (unsigned long long)off0);
    c->end = 0;
    r->next = csr_next;
fail:
    return st;
}

/* ------------------------------------------------------------ open, next, close */

static bool ends_with_zst(const char *path)
{
    const size_t len = strlen(path);
    return len >= 4 && strcasecmp(path + len - 4, ".zst") == 0;
}

sg_status sgi_in_open(const char *path, sg_input_format fmt, int threads, sgi_in_reader **out,
                      sg_error *err)
{
    sg_status st = SG_OK;
    sgi_in_reader *r = NULL;
    SG_CHECK(path && *path && out, SG_E_INVALID, err, "input: no path");
    if (fmt == SG_INPUT_AUTO) fmt = sg_input_format_of_path(path);
    SG_CHECK(fmt != SG_INPUT_AUTO, SG_E_INVALID, err,
             "%s: unknown input format; known extensions: .el .wel .gr .mtx .bin32 .sg .wsg "
             ".egr (each optionally followed by .zst)", path);
    SG_CHECK(fmt >= SG_INPUT_EL && fmt <= SG_INPUT_EGR, SG_E_INVALID, err,
             "%s: unknown input format %d", path, (int)fmt);
    IN_ALLOC(r, sgi_calloc(1, sizeof *r), err, path, "an input reader");
    r->fd = -1;
    r->io = sgi_io_get();
    r->info.format = fmt;
    r->threads = threads > 0 ? threads : omp_get_max_threads();
    if (r->threads < 1) r->threads = 1;
    if (r->threads > 256) r->threads = 256;
    IN_ALLOC(r->path, sgi_strdup(path), err, path, "a path");

    r->fd = r->io->open(path, O_RDONLY | O_CLOEXEC, 0);
    if (r->fd < 0) {
        st = sgi_fail_errno(err, -r->fd, "opening %s", path);
        r->fd = -1;
        goto fail;
    }
    struct stat sb;
    if (fstat(r->fd, &sb) != 0) {
        st = sgi_fail_errno(err, errno, "fstat of %s", path);
        goto fail;
    }
    SG_CHECK(!S_ISDIR(sb.st_mode), SG_E_INVALID, err, "%s is a directory, not an input file",
             path);
    r->info.file_bytes = (uint64_t)sb.st_size;

    uint8_t magic[4];
    size_t mg = 0;
    while (mg < sizeof magic) {
        const ssize_t n = r->io->pread(r->fd, magic + mg, sizeof magic - mg, mg);
        if (n < 0) {
            st = sgi_fail_errno(err, (int)-n, "reading %s at byte %zu", path, mg);
            goto fail;
        }
        if (n == 0) break;
        mg += (size_t)n;
    }
    r->info.compressed =
        ends_with_zst(path) || (mg == sizeof magic && memcmp(magic, zstd_magic, 4) == 0);

    switch (fmt) {
    case SG_INPUT_EL:
    case SG_INPUT_WEL:
    case SG_INPUT_GR:
    case SG_INPUT_MTX:
        SG_TRY(src_init(&r->src, r->io, r->path, r->fd, r->info.compressed, err));
        SG_TRY(text_open(r, err));
        break;
    case SG_INPUT_BIN32:
        SG_TRY(src_init(&r->src, r->io, r->path, r->fd, r->info.compressed, err));
        SG_TRY(bin32_open(r, err));
        break;
    case SG_INPUT_SG:
    case SG_INPUT_WSG:
    case SG_INPUT_EGR:
        SG_TRY(csr_open(r, err));
        break;
    default: assert(0);
    }
    *out = r;
    return SG_OK;
fail:
    sgi_in_close(r);
    return st;
}

/* The header's promise, checked at the end of the data. */
static sg_status in_finish(sgi_in_reader *r, sg_error *err)
{
    sg_status st = SG_OK;
    if (r->info.format == SG_INPUT_GR)
        SG_CHECK(r->edges_out == r->info.header_m, SG_E_INVALID, err,
                 "%s: header says %llu arcs, file has %llu", r->path,
                 (unsigned long long)r->info.header_m, (unsigned long long)r->edges_out);
    if (r->info.format == SG_INPUT_MTX)
        SG_CHECK(r->edges_out == r->info.header_m, SG_E_INVALID, err,
                 "%s: header says %llu entries, file has %llu", r->path,
                 (unsigned long long)r->info.header_m, (unsigned long long)r->edges_out);
fail:
    return st;
}

sg_status sgi_in_next(sgi_in_reader *r, sgi_in_edge *buf, size_t cap, size_t *got, sg_error *err)
{
    sg_status st = SG_OK;
    SG_CHECK(r && buf && got && cap > 0, SG_E_INVALID, err,
             "reading input: no reader, no buffer or no room");
    *got = 0;
    if (r->failed != SG_OK) {
        if (err) *err = r->ferr;
        return r->failed;
    }
    if (r->done) return SG_OK;
    size_t n = 0;
    sg_error lerr;
    st = r->next(r, buf, cap, &n, &lerr);
    r->edges_out += n;
    if (st == SG_OK && n == 0) {
        st = in_finish(r, &lerr);
        r->done = st == SG_OK;
    }
    if (st != SG_OK) {
        r->failed = st;
        r->ferr = lerr;
        if (n == 0) {
            if (err) *err = lerr;
            return st;
        }
        st = SG_OK; /* the edges before the error first; the error next time */
    }
    *got = n;
fail:
    return st;
}

void sgi_in_close(sgi_in_reader *r)
{
    if (!r) return;
    src_free(&r->src);
    csr_stream_close(&r->csr.so);
    csr_stream_close(&r->csr.sn);
    csr_stream_close(&r->csr.sw);
    if (r->fd >= 0) r->io->close(r->fd);
    for (int i = 0; i < 2; i++) sgi_free(r->tb[i]);
    if (r->pieces)
        for (int k = 0; k < r->max_pieces; k++) sgi_free(r->pieces[k].edges);
    sgi_free(r->pieces);
    sgi_free(r->bb);
    sgi_free(r->path);
    sgi_free(r);
}
