/* Export of a store to other tools' formats: plain edge lists (el, wel),
 * Matrix Market (mtx), ECLgraph binary CSR (egr) and gapbs serialized
 * weighted graphs (wsg).
 *
 * One walk over the shards (sg_store_foreach_shard). Each shard's output is
 * cut into chunks of a fixed size (independent of the thread count); OpenMP
 * threads format or convert the chunks into per-thread buffers and write
 * them in chunk order (an `ordered` section), so formatting overlaps with
 * writing, the writes are large and sequential, and the bytes do not depend
 * on the number of threads. Everything goes to a hidden temporary file beside
 * the target that is fsynced and renamed into place: the target is either
 * the complete new file or what it was before. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "sg_format.h"

/* Per-thread output buffer. A chunk never produces more than this. (A test
 * build may shrink it to exercise chunk boundaries; at least 2 lines.) */
#ifndef EXP_BUF_BYTES
#define EXP_BUF_BYTES ((size_t)4 << 20)
#endif
/* Bound on one text line: two ids of at most 10 digits (1-based ids reach
 * 4294967296), a weight of at most 15 characters ("%.9g" of an f32, e.g.
 * "-1.17549435e-38"), two spaces and a newline: 38 bytes. */
#define EXP_LINE_MAX 48
_Static_assert(EXP_BUF_BYTES >= EXP_LINE_MAX && EXP_BUF_BYTES % 8 == 0,
               "a buffer holds at least one line and whole 8-byte elements");
/* Pieces of whole arrays written after the walk (wsg in-edges). */
#define EXP_BIG_WRITE ((size_t)64 << 20)

#define EXP_APPEND UINT64_MAX

typedef struct exp_pair { /* gapbs NodeWeight<int32_t, int32_t> */
    int32_t v;
    int32_t w;
} exp_pair;
_Static_assert(sizeof(exp_pair) == 8, "NodeWeight<int32,int32> layout");

typedef struct exp_ctx {
    const sgi_io *io;
    sg_export_format fmt;
    const char *path;        /* the target, named in messages */
    const char *fmt_name;
    sg_store_info info;
    bool f32;
    bool weight_order; /* lists in weight order: no early end of a list */
    int fd;
    uint64_t append_off;     /* next byte of appended (text) output */
    int threads;
    uint8_t **bufs;          /* threads buffers of EXP_BUF_BYTES */
    atomic_int failed;       /* set once a chunk failed: skip the rest */
    sg_error *err;
    /* egr / wsg region bases (file offsets) */
    uint64_t off_x, off_a, off_w, off_in_x, off_in_a;
    /* wsg, directed: in-degree counts, then in-offsets and cursors (n+1),
     * the transposed pairs (m), destination split per thread (threads+1) */
    uint64_t *in_x;
    exp_pair *in_a;
    uint64_t *split;
    int pass;
} exp_ctx;

typedef struct exp_shard { /* one decoded shard as foreach_shard gives it */
    uint64_t vb, ve, nv, x0, m;   /* m: edges of the shard */
    const uint64_t *x;
    const uint32_t *a;
    const void *w;
} exp_shard;

typedef struct exp_piece { /* what a chunk writes */
    const void *data;
    size_t len;
    uint64_t off;            /* EXP_APPEND: after the previous text */
} exp_piece;

typedef sg_status (*exp_fill_fn)(exp_ctx *c, const exp_shard *sh, uint64_t k, uint8_t *buf,
                                 exp_piece *out, sg_error *err);

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* ------------------------------------------------------------ formatting */


/* Exactly what printf("%.9g") writes (nine significant digits: enough to
 * read back the same float). Integral values below 1e9 (the common case of
 * integer weights stored as f32) are formatted by hand. The library never
 * sets a locale; in the "C" locale the decimal point is '.'. */
static inline char *put_f32(char *p, float f)
{
    if (fabsf(f) < 1e9f && f == (float)(int32_t)f) {
        if (signbit(f)) *p++ = '-';
        return sgi_put_u64(p, (uint64_t)fabsf(f));
    }
    char tmp[32];
    const int n = snprintf(tmp, sizeof tmp, "%.9g", (double)f);
    memcpy(p, tmp, (size_t)n);
    return p + n;
}

/* ------------------------------------------------------------ writing */

static sg_status write_at(exp_ctx *c, const void *data, size_t len, uint64_t off, sg_error *err)
{
    return sgi_write_all(c->fd, data, len, off, c->path, err);
}

static sg_status write_append(exp_ctx *c, const void *data, size_t len, sg_error *err)
{
    sg_status st = write_at(c, data, len, c->append_off, err);
    if (st == SG_OK) c->append_off += len;
    return st;
}

/* A large array in EXP_BIG_WRITE pieces. */
static sg_status write_big(exp_ctx *c, const void *data, uint64_t len, uint64_t off, sg_error *err)
{
    const uint8_t *p = data;
    while (len > 0) {
        const size_t n = (size_t)min_u64(len, EXP_BIG_WRITE);
        sg_status st = write_at(c, p, n, off, err);
        if (st != SG_OK) return st;
        p += n;
        off += n;
        len -= n;
    }
    return SG_OK;
}

/* Runs fill for chunks 0..nchunks-1 of a shard in parallel and writes their
 * pieces in chunk order. The first failure in chunk order is reported. */
static sg_status run_chunks(exp_ctx *c, const exp_shard *sh, uint64_t nchunks, exp_fill_fn fill)
{
    sg_status st = SG_OK;
    if (nchunks == 0) return SG_OK;
    const int nt = (int)min_u64((uint64_t)c->threads, nchunks);
#pragma omp parallel num_threads(nt) shared(st)
    {
        uint8_t *const buf = c->bufs[omp_get_thread_num()];
        sg_error lerr;
#pragma omp for ordered schedule(static, 1)
        for (uint64_t k = 0; k < nchunks; k++) {
            exp_piece pc = {NULL, 0, EXP_APPEND};
            sg_status fs = SG_OK;
            /* failed is only set in ordered sections of earlier chunks, so
             * what is skipped does not depend on the timing */
            if (!atomic_load(&c->failed)) fs = fill(c, sh, k, buf, &pc, &lerr);
#pragma omp ordered
            {
                if (st == SG_OK) {
                    if (fs != SG_OK) {
                        st = fs;
                        if (c->err) *c->err = lerr;
                    } else if (pc.len > 0) {
                        st = pc.off == EXP_APPEND ? write_append(c, pc.data, pc.len, c->err)
                                                  : write_at(c, pc.data, pc.len, pc.off, c->err);
                    }
                    if (st != SG_OK) atomic_store(&c->failed, 1);
                }
            }
        }
    }
    return st;
}

/* Last index i < sh->nv with x[i] <= edge e (shard-relative): the vertex
 * (shard-relative) owning edge e. */
static uint64_t vertex_of_edge(const exp_shard *sh, uint64_t e)
{
    uint64_t lo = 0, hi = sh->nv;
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (sh->x[mid] - sh->x0 <= e) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* ------------------------------------------------------------ text formats */

#define TEXT_CHUNK_EDGES (EXP_BUF_BYTES / EXP_LINE_MAX)

static sg_status fill_text(exp_ctx *c, const exp_shard *sh, uint64_t k, uint8_t *buf,
                           exp_piece *out, sg_error *err)
{
    const bool weighted = c->fmt != SG_EXPORT_EL;
    const bool mtx = c->fmt == SG_EXPORT_MTX;
    const bool sym = !c->info.directed;
    const uint32_t *const wu = sh->w;
    const float *const wf = sh->w;
    const uint64_t base = mtx ? 1 : 0; /* mtx ids are 1-based */
    uint64_t e = k * TEXT_CHUNK_EDGES;
    const uint64_t e_end = min_u64(e + TEXT_CHUNK_EDGES, sh->m);
    uint64_t i = vertex_of_edge(sh, e);
    char *p = (char *)buf;
    while (e < e_end) {
        while (sh->x[i + 1] - sh->x0 <= e) i++;
        const uint64_t u = sh->vb + i;
        const uint64_t lim = min_u64(sh->x[i + 1] - sh->x0, e_end);
        /* "u " once per vertex, copied as a fixed 16 bytes (a line
         * has EXP_LINE_MAX - 38 spare bytes) */
        char ustr[16] = {0};
        char *q = sgi_put_u64(ustr, u + base);
        *q++ = ' ';
        const size_t ulen = (size_t)(q - ustr);
        for (; e < lim; e++) {
            const uint32_t v = sh->a[e];
            if (sym) {
                /* each undirected edge once: el/wel as u < v, mtx in the
                 * lower triangle (row > col); lists in id order end
                 * there */
                if (mtx ? v >= u : v <= u) {
                    if (mtx && !c->weight_order) e = lim - 1;
                    continue;
                }
            }
            memcpy(p, ustr, sizeof ustr);
            p += ulen;
            p = sgi_put_u64(p, (uint64_t)v + base);
            if (weighted) {
                *p++ = ' ';
                p = c->f32 ? put_f32(p, wf[e]) : sgi_put_u64(p, wu[e]);
            }
            *p++ = '\n';
        }
    }
    assert((size_t)(p - (char *)buf) <= EXP_BUF_BYTES);
    out->data = buf;
    out->len = (size_t)(p - (char *)buf);
    out->off = EXP_APPEND;
    (void)err;
    return SG_OK;
}

static sg_status text_header(exp_ctx *c, const char *store_path)
{
    if (c->fmt != SG_EXPORT_MTX) return SG_OK;
    /* the store path goes on one comment line; control characters would
     * break the header, so they become '?' */
    char where[1024];
    size_t n = 0;
    for (const char *s = store_path; *s && n + 1 < sizeof where; s++)
        where[n++] = (unsigned char)*s < 0x20 ? '?' : *s;
    where[n] = '\0';
    const uint64_t nnz = c->info.directed ? c->info.n_edges : c->info.n_edges / 2;
    char hdr[1200];
    const int len = snprintf(hdr, sizeof hdr,
                             "%%%%MatrixMarket matrix coordinate %s %s\n"
                             "%% spillgraph export of %s\n"
                             "%llu %llu %llu\n",
                             c->f32 ? "real" : "integer",
                             c->info.directed ? "general" : "symmetric", where,
                             (unsigned long long)c->info.n_vertices,
                             (unsigned long long)c->info.n_vertices, (unsigned long long)nnz);
    assert(len > 0 && (size_t)len < sizeof hdr);
    return write_append(c, hdr, (size_t)len, c->err);
}

/* ------------------------------------------------------------ bin32 */

#define BIN32_CHUNK_EDGES (EXP_BUF_BYTES / 12)

/* Raw little-endian (u32 u, u32 v, u32 w) records: undirected stores each
 * edge once with u < v, directed stores every edge. */
static sg_status fill_bin32(exp_ctx *c, const exp_shard *sh, uint64_t k, uint8_t *buf,
                            exp_piece *out, sg_error *err)
{
    const bool sym = !c->info.directed;
    const uint32_t *const wu = sh->w;
    uint64_t e = k * BIN32_CHUNK_EDGES;
    const uint64_t e_end = min_u64(e + BIN32_CHUNK_EDGES, sh->m);
    uint64_t i = vertex_of_edge(sh, e);
    uint8_t *p = buf;
    while (e < e_end) {
        while (sh->x[i + 1] - sh->x0 <= e) i++;
        const uint32_t u = (uint32_t)(sh->vb + i);
        const uint64_t lim = min_u64(sh->x[i + 1] - sh->x0, e_end);
        for (; e < lim; e++) {
            const uint32_t rec[3] = {u, sh->a[e], wu[e]};
            if (sym && rec[1] <= u) continue;
            memcpy(p, rec, sizeof rec);
            p += sizeof rec;
        }
    }
    out->data = buf;
    out->len = (size_t)(p - buf);
    out->off = EXP_APPEND;
    (void)err;
    return SG_OK;
}

/* ------------------------------------------------------------ egr */

#define EGR_CHUNK (EXP_BUF_BYTES / 4)

static sg_status weight_too_large(exp_ctx *c, const exp_shard *sh, uint64_t e, sg_error *err)
{
    const uint32_t *const w = sh->w;
    const uint64_t i = vertex_of_edge(sh, e);
    return sgi_fail(err, SG_E_RANGE,
                    "%s: weight %u of edge (%llu, %u) is too large for %s (int32 weights)",
                    c->path, w[e], (unsigned long long)(sh->vb + i), sh->a[e], c->fmt_name);
}

/* Chunks of a shard: X (converted to int32), then A and W as they are
 * (ids < n <= INT32_MAX and weights <= INT32_MAX have int32's bytes). */
static sg_status fill_egr(exp_ctx *c, const exp_shard *sh, uint64_t k, uint8_t *buf,
                          exp_piece *out, sg_error *err)
{
    const uint64_t nxc = div_up(sh->nv, EGR_CHUNK), nec = div_up(sh->m, EGR_CHUNK);
    if (k < nxc) {
        const uint64_t i0 = k * EGR_CHUNK, i1 = min_u64(i0 + EGR_CHUNK, sh->nv);
        int32_t *const d = (int32_t *)buf;
        for (uint64_t i = i0; i < i1; i++) d[i - i0] = (int32_t)sh->x[i];
        *out = (exp_piece){buf, (size_t)(i1 - i0) * 4, c->off_x + 4 * (sh->vb + i0)};
        return SG_OK;
    }
    k -= nxc;
    const bool is_w = k >= nec;
    if (is_w) k -= nec;
    const uint64_t e0 = k * EGR_CHUNK, e1 = min_u64(e0 + EGR_CHUNK, sh->m);
    const uint32_t *src = sh->a;
    if (is_w) {
        src = sh->w;
        for (uint64_t e = e0; e < e1; e++)
            if (src[e] > INT32_MAX) return weight_too_large(c, sh, e, err);
    }
    *out = (exp_piece){src + e0, (size_t)(e1 - e0) * 4,
                       (is_w ? c->off_w : c->off_a) + 4 * (sh->x0 + e0)};
    return SG_OK;
}

/* ------------------------------------------------------------ wsg */

#define WSG_CHUNK (EXP_BUF_BYTES / 8)

/* Chunks of a shard: the out-offsets as they are (absolute uint64 offsets
 * starting at 0 are gapbs' int64 offsets), then the (neighbour, weight)
 * pairs. Directed stores: also counts in-degrees into in_x[v + 1]. */
static sg_status fill_wsg(exp_ctx *c, const exp_shard *sh, uint64_t k, uint8_t *buf,
                          exp_piece *out, sg_error *err)
{
    const uint64_t nxc = div_up(sh->nv, WSG_CHUNK);
    if (k < nxc) {
        const uint64_t i0 = k * WSG_CHUNK, i1 = min_u64(i0 + WSG_CHUNK, sh->nv);
        *out = (exp_piece){sh->x + i0, (size_t)(i1 - i0) * 8, c->off_x + 8 * (sh->vb + i0)};
        return SG_OK;
    }
    k -= nxc;
    const uint64_t e0 = k * WSG_CHUNK, e1 = min_u64(e0 + WSG_CHUNK, sh->m);
    const uint32_t *const w = sh->w;
    exp_pair *const d = (exp_pair *)buf;
    for (uint64_t e = e0; e < e1; e++) {
        if (w[e] > INT32_MAX) return weight_too_large(c, sh, e, err);
        d[e - e0] = (exp_pair){(int32_t)sh->a[e], (int32_t)w[e]};
    }
    if (c->in_x) {
        uint64_t *const cnt = c->in_x;
        for (uint64_t e = e0; e < e1; e++) {
#pragma omp atomic
            cnt[(uint64_t)sh->a[e] + 1]++;
        }
    }
    *out = (exp_piece){buf, (size_t)(e1 - e0) * 8, c->off_a + 8 * (sh->x0 + e0)};
    return SG_OK;
}

/* Directed wsg, second walk: scatters every edge (u, v, w) to v's in-list
 * at cursor in_x[v]. Thread t owns the destinations [split[t], split[t+1])
 * and scans the whole shard, so each in-list is filled in source order
 * without atomics and the result does not depend on the thread count. */
static void scatter_in_edges(exp_ctx *c, const exp_shard *sh)
{
    uint64_t *const cur = c->in_x;
    exp_pair *const in = c->in_a;
    const uint32_t *const w = sh->w;
#pragma omp parallel num_threads(c->threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        /* the split was made for c->threads parts; a smaller team takes
         * several consecutive parts per thread */
        const uint64_t p0 = (uint64_t)c->threads * (uint64_t)t / (uint64_t)nt;
        const uint64_t p1 = (uint64_t)c->threads * (uint64_t)(t + 1) / (uint64_t)nt;
        const uint64_t lo = c->split[p0], hi = c->split[p1];
        if (lo < hi) {
            for (uint64_t i = 0; i < sh->nv; i++) {
                const int32_t u = (int32_t)(sh->vb + i);
                for (uint64_t e = sh->x[i] - sh->x0; e < sh->x[i + 1] - sh->x0; e++) {
                    const uint32_t v = sh->a[e];
                    if (v >= lo && v < hi) in[cur[v]++] = (exp_pair){u, (int32_t)w[e]};
                }
            }
        }
    }
}

/* ------------------------------------------------------------ the walk */

static sg_status on_shard(void *ctx, uint64_t v_begin, uint64_t v_end, const uint64_t *x,
                          const uint32_t *a, const void *w, sg_error *err)
{
    exp_ctx *const c = ctx;
    const exp_shard sh = {.vb = v_begin, .ve = v_end, .nv = v_end - v_begin, .x0 = x[0],
                          .m = x[v_end - v_begin] - x[0], .x = x, .a = a, .w = w};
    (void)err; /* c->err is the same buffer */
    switch (c->fmt) {
    case SG_EXPORT_EL:
    case SG_EXPORT_WEL:
    case SG_EXPORT_MTX:
        return run_chunks(c, &sh, div_up(sh.m, TEXT_CHUNK_EDGES), fill_text);
    case SG_EXPORT_BIN32:
        return run_chunks(c, &sh, div_up(sh.m, BIN32_CHUNK_EDGES), fill_bin32);
    case SG_EXPORT_EGR:
        return run_chunks(c, &sh, div_up(sh.nv, EGR_CHUNK) + 2 * div_up(sh.m, EGR_CHUNK),
                          fill_egr);
    case SG_EXPORT_WSG:
        if (c->pass == 2) {
            scatter_in_edges(c, &sh);
            return SG_OK;
        }
        return run_chunks(c, &sh, div_up(sh.nv, WSG_CHUNK) + div_up(sh.m, WSG_CHUNK), fill_wsg);
    }
    return SG_E_INVALID;
}

static sg_status walk(exp_ctx *c, sg_store *s, bool want_weights)
{
    const sg_read_options ro = {.threads = c->threads};
    return sg_store_foreach_shard(s, want_weights, &ro, on_shard, c, c->err);
}

/* Prefix sums of the in-degree counts into start offsets, and the split of
 * destinations into c->threads parts of about equal in-edge counts. */
static void plan_scatter(exp_ctx *c)
{
    const uint64_t n = c->info.n_vertices, m = c->info.n_edges;
    uint64_t *const off = c->in_x;
    for (uint64_t v = 0; v < n; v++) off[v + 1] += off[v];
    c->split[0] = 0;
    for (int t = 1; t < c->threads; t++) {
        const uint64_t target = m / (uint64_t)c->threads * (uint64_t)t
                              + m % (uint64_t)c->threads * (uint64_t)t / (uint64_t)c->threads;
        uint64_t lo = c->split[t - 1], hi = n; /* first v with off[v] >= target */
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo) / 2;
            if (off[mid] >= target) hi = mid;
            else lo = mid + 1;
        }
        c->split[t] = lo;
    }
    c->split[c->threads] = n;
}

static sg_status export_body(exp_ctx *c, sg_store *s)
{
    sg_status st = SG_OK;
    const uint64_t n = c->info.n_vertices, m = c->info.n_edges;
    switch (c->fmt) {
    case SG_EXPORT_EL:
    case SG_EXPORT_WEL:
    case SG_EXPORT_MTX:
        SG_TRY(text_header(c, sg_store_path(s)));
        SG_TRY(walk(c, s, c->fmt != SG_EXPORT_EL));
        break;
    case SG_EXPORT_BIN32:
        SG_TRY(walk(c, s, true));
        break;
    case SG_EXPORT_EGR: {
        const int32_t hdr[2] = {(int32_t)n, (int32_t)m};
        c->off_x = 8;
        c->off_a = c->off_x + 4 * (n + 1);
        c->off_w = c->off_a + 4 * m;
        SG_TRY(write_at(c, hdr, sizeof hdr, 0, c->err));
        SG_TRY(walk(c, s, true));
        const int32_t last = (int32_t)m;
        SG_TRY(write_at(c, &last, 4, c->off_x + 4 * n, c->err));
        break;
    }
    case SG_EXPORT_WSG: {
        uint8_t hdr[17];
        const bool directed = c->info.directed;
        const int64_t m64 = (int64_t)m, n64 = (int64_t)n;
        hdr[0] = directed ? 1 : 0;
        memcpy(hdr + 1, &m64, 8);
        memcpy(hdr + 9, &n64, 8);
        c->off_x = 17;
        c->off_a = c->off_x + 8 * (n + 1);
        c->off_in_x = c->off_a + 8 * m;
        c->off_in_a = c->off_in_x + 8 * (n + 1);
        if (directed) {
            SG_ALLOC(c->in_x, sgi_calloc(n + 1, sizeof *c->in_x), c->err, "in-degree counts");
            SG_ALLOC(c->in_a, sgi_malloc((m ? m : 1) * sizeof *c->in_a), c->err,
                     "the transposed graph (wsg in-edges)");
            SG_ALLOC(c->split, sgi_malloc(((size_t)c->threads + 1) * sizeof *c->split), c->err,
                     "the transpose split");
        }
        SG_TRY(write_at(c, hdr, sizeof hdr, 0, c->err));
        c->pass = 1;
        SG_TRY(walk(c, s, true));
        SG_TRY(write_at(c, &m64, 8, c->off_x + 8 * n, c->err));
        if (directed) {
            plan_scatter(c);
            c->pass = 2;
            SG_TRY(walk(c, s, true));
            /* the cursors now hold each list's end: shift them into the
             * start offsets */
            memmove(c->in_x + 1, c->in_x, n * sizeof *c->in_x);
            c->in_x[0] = 0;
            SG_TRY(write_big(c, c->in_x, 8 * (n + 1), c->off_in_x, c->err));
            SG_TRY(write_big(c, c->in_a, 8 * m, c->off_in_a, c->err));
        }
        break;
    }
    }
fail:
    return st;
}

/* ------------------------------------------------------------ public */

sg_export_format sg_export_format_parse(const char *name)
{
    static const struct {
        const char *name;
        sg_export_format fmt;
    } names[] = {{"el", SG_EXPORT_EL},
                 {"wel", SG_EXPORT_WEL},
                 {"mtx", SG_EXPORT_MTX},
                 {"egr", SG_EXPORT_EGR},
                 {"wsg", SG_EXPORT_WSG},
                 {"bin32", SG_EXPORT_BIN32}};
    if (!name) return (sg_export_format)0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i].name)) return names[i].fmt;
    return (sg_export_format)0;
}

static const char *format_name(sg_export_format fmt)
{
    switch (fmt) {
    case SG_EXPORT_EL: return "el";
    case SG_EXPORT_WEL: return "wel";
    case SG_EXPORT_MTX: return "mtx";
    case SG_EXPORT_EGR: return "egr";
    case SG_EXPORT_WSG: return "wsg";
    case SG_EXPORT_BIN32: return "bin32";
    }
    return NULL;
}

/* Whether the format can hold the store; before any I/O. */
static sg_status check_fits(const exp_ctx *c, sg_error *err)
{
    const uint64_t n = c->info.n_vertices, m = c->info.n_edges;
    if (c->fmt != SG_EXPORT_EGR && c->fmt != SG_EXPORT_WSG && c->fmt != SG_EXPORT_BIN32)
        return SG_OK;
    if (c->f32)
        return sgi_fail(err, SG_E_FORMAT,
                        "%s: %s needs integer weights, but the store has f32 weights "
                        "(export as wel or mtx instead)", c->path, c->fmt_name);
    if (c->fmt == SG_EXPORT_EGR && (n > INT32_MAX || m > INT32_MAX))
        return sgi_fail(err, SG_E_RANGE,
                        "%s: the graph is too large for egr (%llu vertices, %llu edges; "
                        "egr counts are int32, at most %d)", c->path, (unsigned long long)n,
                        (unsigned long long)m, INT32_MAX);
    if (c->fmt == SG_EXPORT_WSG && n > (uint64_t)INT32_MAX + 1)
        return sgi_fail(err, SG_E_RANGE,
                        "%s: the graph is too large for wsg (%llu vertices; wsg vertex ids "
                        "are int32)", c->path, (unsigned long long)n);
    return SG_OK;
}

/* Makes a failure message name the output file (a store read or an
 * allocation failure names only the shard or the buffer). */
static void name_output(sg_error *err, const char *path)
{
    if (!err || !path || !*path || strstr(err->msg, path)) return;
    char msg[sizeof err->msg];
    memcpy(msg, err->msg, sizeof msg);
    int n = snprintf(err->msg, sizeof err->msg, "exporting to %s: ", path);
    if (n < 0 || (size_t)n >= sizeof err->msg) n = (int)sizeof err->msg - 1;
    const size_t len = strnlen(msg, sizeof err->msg - 1 - (size_t)n);
    memcpy(err->msg + n, msg, len);
    err->msg[(size_t)n + len] = '\0';
}

/* sg_store_export, in more detail than at the declaration:
 *
 * el / wel / mtx: text, lines in order of the first id, then the second
 * (in a weight-ordered store: then the list's order, by weight).
 * Undirected stores give each edge once: el/wel as "u v" with u < v, mtx in
 * the lower triangle ("symmetric": row > col, in row order). mtx ids are
 * 1-based; the header says "integer" (u32 weights) or "real" (f32, written
 * as printf's "%.9g", which reads back to the same float).
 * egr: int32 nodes, edges, nindex[nodes+1], nlist[edges], eweight[edges];
 * the CSR as stored (both directions of an undirected edge).
 * wsg: gapbs' WriteSerializedGraph for NodeWeight<int32_t, int32_t>: bool
 * directed, int64 directed edge count, int64 nodes, int64 out-offsets[n+1],
 * (int32 neighbour, int32 weight) pairs; directed stores then add the
 * in-offsets and in-pairs (each in-list in increasing source order).
 *
 * Errors: SG_E_INVALID (arguments), SG_E_FORMAT (egr/wsg of an f32 store),
 * SG_E_RANGE (egr: n or m beyond INT32_MAX, checked before any I/O; egr/wsg:
 * a weight beyond INT32_MAX, found while writing: the temporary file is
 * removed), SG_E_EXISTS, SG_E_IO / SG_E_NOSPACE / SG_E_NOTFOUND naming the
 * file, SG_E_NOMEM, and the store's read errors (SG_E_CORRUPT naming the
 * shard). On failure an existing target is untouched and no temporary file
 * remains (except when syncing the directory after the rename fails: the new
 * file is then in place).
 *
 * Cost: one pass over the store (X, A and W; el skips W) and one sequential
 * write of the output; text is formatted by `threads` threads (0 = the OpenMP
 * default). Memory: the largest shard's CSR (sg_store_foreach_shard) plus
 * `threads` buffers of 4 MiB, except wsg of a directed store, which holds the
 * transposed graph in memory (8 bytes per edge and per vertex) and reads the
 * store twice (the in-degrees must be known before the in-edges are placed).
 * The output does not depend on the thread count. */
sg_status sg_store_export(sg_store *s, sg_export_format fmt, const char *path, bool force,
                          int threads, sg_error *err)
{
    sg_status st = SG_OK;
    exp_ctx c = {.io = sgi_io_get(), .fmt = fmt, .path = path, .fd = -1, .err = err};
    sgi_outfile out = {.fd = -1};

    SG_CHECK(s != NULL && path != NULL && *path != '\0', SG_E_INVALID, err,
             "export: no store or no output path");
    c.fmt_name = format_name(fmt);
    SG_CHECK(c.fmt_name != NULL, SG_E_INVALID, err, "export to %s: unknown format %d", path,
             (int)fmt);
    SG_CHECK(threads >= 0, SG_E_INVALID, err, "export to %s: threads must be >= 0, not %d",
             path, threads);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    SG_CHECK(*base != '\0' && strcmp(base, ".") && strcmp(base, ".."), SG_E_INVALID, err,
             "export: output path %s does not name a file", path);
    sg_store_get_info(s, &c.info);
    c.f32 = c.info.weight_type == SG_WEIGHT_F32;
    c.weight_order = c.info.weight_order;
    SG_TRY(check_fits(&c, err));

    c.threads = threads > 0 ? threads : omp_get_max_threads();
    if (c.threads < 1) c.threads = 1;
    if (c.threads > 1024) c.threads = 1024;
    SG_ALLOC(c.bufs, sgi_calloc((size_t)c.threads, sizeof *c.bufs), err, "export buffers");
    for (int t = 0; t < c.threads; t++)
        SG_ALLOC(c.bufs[t], sgi_malloc(EXP_BUF_BYTES), err, "an export buffer");

    SG_TRY(sgi_outfile_open(&out, path, force, err));
    c.fd = out.fd;

    SG_TRY(export_body(&c, s));
    SG_TRY(sgi_outfile_commit(&out, err));

fail:
    sgi_outfile_abort(&out);
    if (st != SG_OK) name_output(err, path);
    if (c.bufs)
        for (int t = 0; t < c.threads; t++) sgi_free(c.bufs[t]);
    sgi_free(c.bufs);
    sgi_free(c.in_x);
    sgi_free(c.in_a);
    sgi_free(c.split);
    return st;
}
