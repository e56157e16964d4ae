/* The 2-D lattice generator, with optional hubs.
 *
 * Vertex (r, c) is r * cols + c; its neighbours, in increasing id order, are
 * up (v - cols), left (v - 1), right (v + 1) and down (v + cols) where they
 * exist. The edge to the right of v has weight id 2v, the one below 2v + 1;
 * its weight is 1 + floor(mix64(id * GOLDEN + wkey) * W / 2^64), so both
 * directions and both build paths agree.
 *
 * Without hubs the lattice is written as it is made: offsets come in closed
 * form (rowstart(r) + within(r, c), below), so each slice of vertices is
 * filled in parallel and appended; the whole CSR is never held.
 *
 * With hubs, the edges are a pure function of an index and go through
 * sgi_csr_build: [0, eh) horizontal, [eh, eh + ev) vertical, then hub_degree
 * draws per hub: hub j is the j-th vertex of a seed-dependent bijection on
 * [0, n) (a bijection on [0, 2^bits) with cycle walking: re-applied until it
 * lands below n, on average less than twice); its other end is uniform over
 * [0, n) and its weight drawn like the lattice's from another stream. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define GOLDEN 0x9E3779B97F4A7C15ull
#define STEP 0xD1B54A32D192ED03ull
#define SLICE (1u << 20) /* vertices per appended slice (streaming path) */

typedef struct grid_ctx {
    uint64_t rows, cols, n;
    uint64_t eh, ev;          /* horizontal, vertical lattice edges */
    uint64_t wkey, hkey;      /* lattice weights; hub edges */
    uint32_t max_weight;
    uint64_t n_hubs;
    uint32_t hub_degree;
    sgi_perm perm;            /* on [0, 2^bits), 2^bits >= n */
} grid_ctx;

static void grid_init(grid_ctx *c, const sg_grid_options *o)
{
    memset(c, 0, sizeof *c);
    c->rows = o->rows;
    c->cols = o->cols;
    c->n = o->rows * o->cols;
    c->eh = o->rows * (o->cols - 1);
    c->ev = (o->rows - 1) * o->cols;
    c->wkey = sgi_mix64(o->seed + GOLDEN);
    c->hkey = sgi_mix64(o->seed + 2 * GOLDEN);
    c->max_weight = o->max_weight;
    c->n_hubs = (uint64_t)llround(o->hubs * (double)c->n);
    if (c->n_hubs > c->n) c->n_hubs = c->n;
    c->hub_degree = o->hub_degree;
    unsigned bits = 1;
    while (bits < 32 && (1ull << bits) < c->n) bits++;
    sgi_perm_init(&c->perm, bits, sgi_mix64(o->seed + 3 * GOLDEN));
}

static inline uint32_t lattice_w(const grid_ctx *c, uint64_t id)
{
    return 1 + (uint32_t)sgi_below(sgi_mix64(id * GOLDEN + c->wkey), c->max_weight);
}

static inline uint64_t hub_vertex(const grid_ctx *c, uint64_t j)
{
    uint64_t x = j;
    do x = sgi_perm_apply(&c->perm, x);
    while (x >= c->n);
    return x;
}

static void grid_edge_fn(void *ctx, uint64_t i, uint32_t *u, uint32_t *v, uint32_t *w)
{
    const grid_ctx *c = ctx;
    if (i < c->eh) {
        const uint64_t r = i / (c->cols - 1), a = r * c->cols + (i - r * (c->cols - 1));
        *u = (uint32_t)a;
        *v = (uint32_t)(a + 1);
        *w = lattice_w(c, 2 * a);
    } else if (i < c->eh + c->ev) {
        const uint64_t a = i - c->eh;
        *u = (uint32_t)a;
        *v = (uint32_t)(a + c->cols);
        *w = lattice_w(c, 2 * a + 1);
    } else {
        const uint64_t j = i - c->eh - c->ev, e = sgi_mix64(j * GOLDEN + c->hkey);
        *u = (uint32_t)hub_vertex(c, j / c->hub_degree);
        *v = (uint32_t)sgi_below(e, c->n);
        *w = 1 + (uint32_t)sgi_below(sgi_mix64(e + STEP), c->max_weight);
    }
}

uint32_t sgi_grid_hub(const sg_grid_options *o, uint64_t j)
{
    grid_ctx c;
    grid_init(&c, o);
    return (uint32_t)hub_vertex(&c, j);
}

/* Directed edges stored before vertex (r, c), in closed form: rows above
 * hold 2 (cols - 1) horizontal slots each plus cols per vertical neighbour;
 * in row r, each vertex before c has vert(r) vertical slots and its
 * horizontal ones. */
static inline uint64_t grid_offset(const grid_ctx *g, uint64_t r, uint64_t c)
{
    const uint64_t R = g->rows, C = g->cols;
    const uint64_t vert = (r > 0) + (r < R - 1);
    const uint64_t above = r * 2 * (C - 1) + C * ((r > 0 ? r - 1 : 0) + (r < R - 1 ? r : R - 1));
    return above + c * vert + (c > 0 ? c - 1 : 0) + (c < C - 1 ? c : C - 1);
}

/* Writes the lattice slice by slice. */
static sg_status stream_lattice(const grid_ctx *g, sg_store_writer *wr, int threads,
                                double *seconds_fill, double *seconds_append, sg_error *err)
{
    sg_status st = SG_OK;
    uint64_t *x = NULL;
    uint32_t *a = NULL, *w = NULL;
    const uint64_t len = g->n < SLICE ? g->n : SLICE;
    SG_ALLOC(x, sgi_malloc((len + 1) * sizeof *x), err, "the lattice slice offsets");
    SG_ALLOC(a, sgi_malloc(4 * len * sizeof *a), err, "the lattice slice neighbours");
    SG_ALLOC(w, sgi_malloc(4 * len * sizeof *w), err, "the lattice slice weights");
    double fill = 0, append = 0;
    for (uint64_t v0 = 0; v0 < g->n; v0 += len) {
        const double t0 = sgi_now();
        const uint64_t cnt = g->n - v0 < len ? g->n - v0 : len;
        const uint64_t base = grid_offset(g, v0 / g->cols, v0 % g->cols);
        const uint64_t C = g->cols;
#pragma omp parallel for schedule(static) num_threads(threads) if (cnt > 4096)
        for (uint64_t k = 0; k <= cnt; k++) {
            const uint64_t v = v0 + k;
            x[k] = (v == g->n ? 2 * (g->eh + g->ev) : grid_offset(g, v / C, v % C)) - base;
        }
#pragma omp parallel for schedule(static) num_threads(threads) if (cnt > 4096)
        for (uint64_t k = 0; k < cnt; k++) {
            const uint64_t v = v0 + k, r = v / C, c = v % C;
            uint64_t p = x[k];
            if (r > 0) {
                a[p] = (uint32_t)(v - C);
                w[p++] = lattice_w(g, 2 * (v - C) + 1);
            }
            if (c > 0) {
                a[p] = (uint32_t)(v - 1);
                w[p++] = lattice_w(g, 2 * (v - 1));
            }
            if (c + 1 < C) {
                a[p] = (uint32_t)(v + 1);
                w[p++] = lattice_w(g, 2 * v);
            }
            if (r + 1 < g->rows) {
                a[p] = (uint32_t)(v + C);
                w[p++] = lattice_w(g, 2 * v + 1);
            }
        }
        const double t1 = sgi_now();
        SG_TRY(sg_store_writer_append(wr, cnt, x, a, w, err));
        fill += t1 - t0;
        append += sgi_now() - t1;
    }
    *seconds_fill = fill;
    *seconds_append = append;
fail:
    sgi_free(x);
    sgi_free(a);
    sgi_free(w);
    return st;
}

/* ---------------------------------------------------------------- options */

void sg_grid_defaults(sg_grid_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->max_weight = 1u << 20;
    o->seed = 1;
}

static sg_status validate(const sg_grid_options *o, sg_error *err)
{
    sg_status st = SG_OK;
    SG_CHECK(o->rows >= 1 && o->cols >= 1, SG_E_INVALID, err,
             "grid: %llu rows x %llu columns: both must be at least 1",
             (unsigned long long)o->rows, (unsigned long long)o->cols);
    SG_CHECK(o->rows <= (1ull << 32) / o->cols, SG_E_INVALID, err,
             "grid: %llu rows x %llu columns: at most 2^32 vertices (ids are 32-bit)",
             (unsigned long long)o->rows, (unsigned long long)o->cols);
    SG_CHECK(o->max_weight >= 1, SG_E_INVALID, err, "grid: max weight %u: must be at least 1",
             o->max_weight);
    SG_CHECK(isfinite(o->hubs) && o->hubs >= 0.0 && o->hubs <= 1.0, SG_E_INVALID, err,
             "grid: hub fraction %g: must be in [0, 1]", o->hubs);
    const uint64_t n = o->rows * o->cols, h = (uint64_t)llround(o->hubs * (double)n);
    SG_CHECK(h == 0 || o->hub_degree >= 1, SG_E_INVALID, err,
             "grid: hub fraction %g makes %llu hubs: the hub degree must be at least 1", o->hubs,
             (unsigned long long)h);
    SG_CHECK(h == 0 || o->hub_degree <= (1ull << 62) / h, SG_E_INVALID, err,
             "grid: %llu hubs x hub degree %u: too many edges", (unsigned long long)h,
             o->hub_degree);
    SG_CHECK(o->threads >= 0, SG_E_INVALID, err, "grid: threads %d: must be >= 0 (0 = default)",
             o->threads);
fail:
    return st;
}

/* ---------------------------------------------------------------- gen */

sg_status sg_gen_grid(const char *path, const sg_grid_options *o, sg_gen_report *rep,
                      sg_error *err)
{
    sg_status st = SG_OK;
    sg_store_writer *wr = NULL;
    sgi_csr g = {0};
    SG_CHECK(o, SG_E_INVALID, err, "grid: no options given");
    SG_CHECK(path && *path, SG_E_INVALID, err, "grid: no output path given");
    SG_TRY(validate(o, err));
    const int t = o->threads > 0 ? o->threads : omp_get_max_threads();
    grid_ctx ctx;
    grid_init(&ctx, o);

    char creator[200];
    int len = snprintf(creator, sizeof creator,
                       "spillgraph gen grid --rows %llu --cols %llu --seed %llu --max-weight %u",
                       (unsigned long long)o->rows, (unsigned long long)o->cols,
                       (unsigned long long)o->seed, o->max_weight);
    if (ctx.n_hubs > 0 && len > 0 && (size_t)len < sizeof creator)
        snprintf(creator + len, sizeof creator - (size_t)len, " --hubs %g --hub-degree %u",
                 o->hubs, o->hub_degree);
    SG_TRY(sgi_gen_open(path, ctx.n, &o->store, t, creator, o->progress, o->progress_ctx, &wr,
                        err));

    sg_gen_report r = {.n_vertices = ctx.n};
    if (ctx.n_hubs == 0) {
        double fill = 0, append = 0;
        SG_TRY(stream_lattice(&ctx, wr, t, &fill, &append, err));
        const double t0 = sgi_now();
        st = sg_store_writer_finish(wr, err); /* frees the writer in any case */
        wr = NULL;
        SG_TRY(st);
        r.generated = ctx.eh + ctx.ev;
        r.n_edges = 2 * (ctx.eh + ctx.ev);
        r.seconds_generate = fill;
        r.seconds_write = append + (sgi_now() - t0);
    } else {
        const uint64_t m = ctx.eh + ctx.ev + ctx.n_hubs * ctx.hub_degree;
        sgi_build_report br = {0};
        SG_TRY(sgi_csr_build(ctx.n, m, grid_edge_fn, &ctx, false, t, o->progress,
                             o->progress_ctx, &g, &br, err));
        st = sgi_gen_finish(wr, &g, t, &r.seconds_write, err);
        wr = NULL;
        SG_TRY(st);
        r.generated = br.generated;
        r.self_loops = br.self_loops;
        r.duplicates = br.duplicates;
        r.n_edges = br.n_edges;
        r.seconds_generate = br.seconds_generate;
        r.seconds_build = br.seconds_sort;
    }
    if (rep) *rep = r;
    return SG_OK;
fail:
    sg_store_writer_abort(wr);
    sgi_csr_free(&g);
    return st;
}
