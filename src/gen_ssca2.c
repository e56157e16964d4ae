/* The SSCA#2 generator (Bader and Madduri, SSCA#2 v2.x): cliques joined by
 * inter-clique edges whose probability falls with the distance. The model
 * and its mean degree are documented at sg_ssca2_options (spillgraph.h).
 *
 * Everything is counter-based, so the graph depends only on the options:
 *   clique c has size 1 + floor(mix64(c * GOLDEN + ckey) * M / 2^64); the
 *   cliques are laid out in order over [0, n) (a serial prefix sum, O(n/M)),
 *   the last one cut at n.
 * The builder (sgi_csr_build) then draws edge i of the index space
 *   [0, intra)              the pairs of every clique, clique by clique:
 *                           a table over the pair prefix sums finds the
 *                           clique (a search over a few entries), and the
 *                           local index p gives the pair (a, b), a < b, with
 *                           p = b (b - 1) / 2 + a;
 *   [intra, intra + n * S)  vertex v = j / S at level k = j % S: an edge to
 *                           v + 2^k (mod n) with probability p^k, unless that
 *                           vertex is in v's clique. Draws that make no edge
 *                           return a self-loop, which the builder drops (and
 *                           the report does not count).
 * Weights: 1 + floor(e * W / 2^64) from the edge's own word e. Labels then
 * go through a seed-dependent bijection on [0, 2^scale) unless
 * `permute` is off. The spec's random parallel edges, one-way intra edges
 * and string weights are left out: the graph is simple and undirected. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define GOLDEN 0x9E3779B97F4A7C15ull
#define STEP 0xD1B54A32D192ED03ull

typedef struct ssca2_ctx {
    uint64_t n;
    unsigned scale;
    uint64_t key;              /* edge stream */
    uint32_t max_weight;
    uint64_t thr[32];          /* level k makes an edge when (draw >> 11) < thr[k] */
    bool permute;
    sgi_perm perm;
    uint64_t n_cliques;        /* N */
    uint64_t *first;           /* N + 1: first vertex of each clique, first[N] = n */
    uint64_t *pairs;           /* N + 1: intra edges before each clique */
    uint32_t *vtab;            /* clique of vertex b << vshift, for b = 0 .. */
    uint32_t *ptab;            /* clique of pair b << pshift */
    unsigned vshift, pshift;
    uint64_t intra;            /* pairs[N] */
} ssca2_ctx;

/* The largest c < N with pre[c] <= x (pre non-decreasing, pre[0] = 0,
 * x < pre[N]); tab narrows the search to the cliques between two table
 * entries. */
static inline uint64_t find(const uint64_t *pre, const uint32_t *tab, unsigned shift, uint64_t x)
{
    uint64_t lo = tab[x >> shift], hi = tab[(x >> shift) + 1];
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo + 1) / 2;
        if (pre[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The pair (a, b), a < b, of local index p = b (b - 1) / 2 + a. */
static inline void pair_of(uint64_t p, uint64_t *a, uint64_t *b)
{
    uint64_t y = (uint64_t)((1.0 + sqrt(1.0 + 8.0 * (double)p)) / 2.0);
    while (y * (y - 1) / 2 > p) y--;
    while ((y + 1) * y / 2 <= p) y++;
    *b = y;
    *a = p - y * (y - 1) / 2;
}

static inline void ssca2_draw(const ssca2_ctx *c, uint64_t i, uint32_t *u, uint32_t *v,
                              uint32_t *w)
{
    const uint64_t e = sgi_mix64(i * GOLDEN + c->key);
    *w = 1 + (uint32_t)sgi_below(e, c->max_weight);
    uint64_t a, b;
    if (i < c->intra) {
        const uint64_t cl = find(c->pairs, c->ptab, c->pshift, i);
        pair_of(i - c->pairs[cl], &a, &b);
        a += c->first[cl];
        b += c->first[cl];
    } else {
        const uint64_t j = i - c->intra;
        a = j / c->scale;
        const unsigned k = (unsigned)(j - a * c->scale);
        b = (a + (1ull << k)) & (c->n - 1);
        bool edge = (sgi_mix64(e + STEP) >> 11) < c->thr[k];
        if (edge) {
            const uint64_t cl = find(c->first, c->vtab, c->vshift, a);
            edge = b < c->first[cl] || b >= c->first[cl + 1];
        }
        if (!edge) {
            *u = *v = 0; /* no edge: a self-loop the builder drops */
            return;
        }
    }
    *u = (uint32_t)(c->permute ? sgi_perm_apply(&c->perm, a) : a);
    *v = (uint32_t)(c->permute ? sgi_perm_apply(&c->perm, b) : b);
}

static void ssca2_edge_fn(void *ctx, uint64_t i, uint32_t *u, uint32_t *v, uint32_t *w)
{
    ssca2_draw(ctx, i, u, v, w);
}

static void ssca2_free(ssca2_ctx *c)
{
    sgi_free(c->first);
    sgi_free(c->pairs);
    sgi_free(c->vtab);
    sgi_free(c->ptab);
    c->first = c->pairs = NULL;
    c->vtab = c->ptab = NULL;
}

/* tab[b] = find(pre, b << shift) for b = 0 .. ((pre[N] - 1) >> shift) + 1,
 * with shift chosen so there are about N entries. */
static sg_status build_table(const uint64_t *pre, uint64_t nc, uint32_t **tab, unsigned *shift,
                             int threads, const char *what, sg_error *err)
{
    const uint64_t total = pre[nc];
    unsigned s = 0;
    while (s < 40 && (total >> (s + 1)) >= nc) s++;
    const uint64_t nb = (total ? (total - 1) >> s : 0) + 2;
    uint32_t *t = sgi_malloc(nb * sizeof *t);
    if (!t)
        return sgi_fail(err, SG_E_NOMEM, "ssca2: out of memory allocating %s (%llu bytes)", what,
                        (unsigned long long)(nb * sizeof *t));
#pragma omp parallel for schedule(static) num_threads(threads)
    for (uint64_t b = 0; b < nb; b++) {
        const uint64_t x = b << s;
        uint64_t lo = 0, hi = nc - 1; /* largest c with pre[c] <= x */
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo + 1) / 2;
            if (pre[mid] <= x)
                lo = mid;
            else
                hi = mid - 1;
        }
        t[b] = (uint32_t)lo;
    }
    *tab = t;
    *shift = s;
    return SG_OK;
}

static sg_status ssca2_init(ssca2_ctx *c, const sg_ssca2_options *o, int threads, sg_error *err)
{
    sg_status st = SG_OK;
    memset(c, 0, sizeof *c);
    const uint64_t n = 1ull << o->scale, mcs = o->max_clique_size;
    c->n = n;
    c->scale = o->scale;
    c->key = sgi_mix64(o->seed + GOLDEN);
    const uint64_t ckey = sgi_mix64(o->seed + 2 * GOLDEN);
    c->max_weight = o->max_weight;
    for (unsigned k = 0; k < o->scale; k++)
        c->thr[k] = (uint64_t)ldexp(pow(o->inter_prob, (double)k), 53); /* 2^53 when p^k = 1 */
    c->permute = o->permute;
    if (o->permute) sgi_perm_init(&c->perm, o->scale, sgi_mix64(o->seed + 3 * GOLDEN));

    /* cliques: a serial prefix sum, O(n / M) (about 0.7M cliques at scale 24) */
    const uint64_t expect = 2 * n / (mcs + 1); /* n / E[size] */
    uint64_t cap = expect + expect / 32 + 64, nc = 0;
    if (cap > n) cap = n;
    SG_ALLOC(c->first, sgi_malloc((cap + 1) * sizeof *c->first), err, "the clique table");
    SG_ALLOC(c->pairs, sgi_malloc((cap + 1) * sizeof *c->pairs), err, "the clique table");
    c->first[0] = 0;
    c->pairs[0] = 0;
    for (uint64_t at = 0; at < n; nc++) {
        if (nc == cap) {
            cap = cap + cap / 4 + 64;
            if (cap > n) cap = n;
            uint64_t *f = sgi_realloc(c->first, (cap + 1) * sizeof *f);
            SG_CHECK(f, SG_E_NOMEM, err, "ssca2: out of memory growing the clique table");
            c->first = f;
            uint64_t *p = sgi_realloc(c->pairs, (cap + 1) * sizeof *p);
            SG_CHECK(p, SG_E_NOMEM, err, "ssca2: out of memory growing the clique table");
            c->pairs = p;
        }
        uint64_t s = 1 + sgi_below(sgi_mix64(nc * GOLDEN + ckey), mcs);
        if (s > n - at) s = n - at; /* the last clique is cut at n */
        at += s;
        c->first[nc + 1] = at;
        c->pairs[nc + 1] = c->pairs[nc] + s * (s - 1) / 2;
    }
    c->n_cliques = nc;
    c->intra = c->pairs[nc];
    SG_TRY(build_table(c->first, nc, &c->vtab, &c->vshift, threads, "the vertex table", err));
    SG_TRY(build_table(c->pairs, nc, &c->ptab, &c->pshift, threads, "the pair table", err));
    return SG_OK;
fail:
    ssca2_free(c);
    return st;
}

/* ---------------------------------------------------------------- options */

void sg_ssca2_defaults(sg_ssca2_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->max_clique_size = 48;
    o->inter_prob = 0.5;
    o->permute = true;
    o->seed = 1;
    o->max_weight = 1u << 20;
}

static sg_status validate(const sg_ssca2_options *o, sg_error *err)
{
    sg_status st = SG_OK;
    SG_CHECK(o->scale >= 1 && o->scale <= 32, SG_E_INVALID, err,
             "ssca2: scale %u: must be 1..32 (2^scale vertices)", o->scale);
    SG_CHECK(o->max_clique_size >= 1 && o->max_clique_size <= 65536, SG_E_INVALID, err,
             "ssca2: max clique size %u: must be 1..65536", o->max_clique_size);
    SG_CHECK(isfinite(o->inter_prob) && o->inter_prob >= 0.0 && o->inter_prob <= 1.0,
             SG_E_INVALID, err, "ssca2: inter-clique probability %g: must be in [0, 1]",
             o->inter_prob);
    SG_CHECK(o->max_weight >= 1, SG_E_INVALID, err, "ssca2: max weight %u: must be at least 1",
             o->max_weight);
    SG_CHECK(o->threads >= 0, SG_E_INVALID, err, "ssca2: threads %d: must be >= 0 (0 = default)",
             o->threads);
fail:
    return st;
}

bool sgi_ssca2_edge(const sg_ssca2_options *o, uint64_t i, uint32_t *u, uint32_t *v,
                    uint32_t *w, uint64_t *n_index)
{
    ssca2_ctx c;
    if (ssca2_init(&c, o, 1, NULL) != SG_OK) return false;
    const uint64_t m = c.intra + c.n * c.scale;
    if (n_index) *n_index = m;
    if (i < m) ssca2_draw(&c, i, u, v, w);
    ssca2_free(&c);
    return true;
}

/* ---------------------------------------------------------------- gen */

sg_status sg_gen_ssca2(const char *path, const sg_ssca2_options *o, sg_gen_report *rep,
                       sg_error *err)
{
    sg_status st = SG_OK;
    sg_store_writer *wr = NULL;
    sgi_csr g = {0};
    ssca2_ctx ctx = {0};
    SG_CHECK(o, SG_E_INVALID, err, "ssca2: no options given");
    SG_CHECK(path && *path, SG_E_INVALID, err, "ssca2: no output path given");
    SG_TRY(validate(o, err));
    const int t = o->threads > 0 ? o->threads : omp_get_max_threads();
    const uint64_t n = 1ull << o->scale;

    char creator[200];
    snprintf(creator, sizeof creator,
             "spillgraph gen ssca2 --scale %u --max-clique-size %u --inter-prob %g --seed %llu "
             "--max-weight %u%s",
             o->scale, o->max_clique_size, o->inter_prob, (unsigned long long)o->seed,
             o->max_weight, o->permute ? "" : " --no-permute");
    SG_TRY(sgi_gen_open(path, n, &o->store, t, creator, o->progress, o->progress_ctx, &wr, err));

    const double t0 = sgi_now();
    SG_TRY(ssca2_init(&ctx, o, t, err));
    const double t_table = sgi_now() - t0;
    sgi_build_report br = {0};
    SG_TRY(sgi_csr_build(n, ctx.intra + n * o->scale, ssca2_edge_fn, &ctx, false, t, o->progress,
                         o->progress_ctx, &g, &br, err));
    ssca2_free(&ctx);
    double seconds_write = 0;
    st = sgi_gen_finish(wr, &g, t, &seconds_write, err);
    wr = NULL;
    SG_TRY(st);

    if (rep) {
        /* every self-loop the builder saw was a draw that made no edge */
        *rep = (sg_gen_report){
            .n_vertices = n,
            .generated = br.generated - br.self_loops,
            .self_loops = 0,
            .duplicates = br.duplicates,
            .n_edges = br.n_edges,
            .seconds_generate = t_table + br.seconds_generate,
            .seconds_build = br.seconds_sort,
            .seconds_write = seconds_write,
        };
    }
    return SG_OK;
fail:
    sg_store_writer_abort(wr);
    sgi_csr_free(&g);
    ssca2_free(&ctx);
    return st;
}
