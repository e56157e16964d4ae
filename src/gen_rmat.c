/* The Graph500 R-MAT generator: edges from a counter-based random stream,
 * built into a CSR by sgi_csr_build and written to a store.
 *
 * Edge i is a pure function of (seed, i), so the graph is the same on any
 * thread count and each edge can be drawn twice (the builder's two passes)
 * instead of being stored:
 *   e      = mix64(i * GOLDEN + key)         per-edge state (key from the seed);
 *                                            its bits also give the weight
 *   word j = mix64(e + j * STEP)             j = 1..8: four 15-bit draws,
 *                                            one per level
 * At each of `scale` levels a 15-bit draw r picks the quadrant: r < a: (0,0),
 * < a+b: (0,1), < a+b+c: (1,0), else (1,1), the level's bit of u and v
 * (probabilities are rounded to multiples of 2^-15).
 * Labels are then permuted by a seed-dependent bijection on [0, 2^scale) and
 * the weight is 1 + floor(e * W / 2^64), uniform in [1, W] (bias below
 * W / 2^64). These are the Graph500 parameters; the Graph500 reference code
 * draws differently (noise per level, its own permutation and stream), so
 * the graphs are not the reference's edge for edge. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define GOLDEN 0x9E3779B97F4A7C15ull
#define STEP 0xD1B54A32D192ED03ull
#define PERM_ROUNDS 4

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t splitmix_next(uint64_t *s) { return mix64(*s += GOLDEN); }

/* Everything an edge draw needs, derived once from the options. */
typedef struct rmat_ctx {
    uint64_t key;                /* edge stream key */
    unsigned scale;
    uint64_t mask;               /* 2^scale - 1 */
    uint64_t ta, tab, tabc;      /* a, a+b, a+b+c in units of 2^-15 (<= 2^15) */
    uint32_t max_weight;
    unsigned pshift;             /* xor-shift of the permutation, >= 1 */
    uint64_t pmul[PERM_ROUNDS];  /* odd multipliers */
    uint64_t padd[PERM_ROUNDS];
} rmat_ctx;

static uint32_t threshold(double p)
{
    const double t = nearbyint(p * 32768.0);
    return t <= 0 ? 0 : t >= 32768.0 ? 32768u : (uint32_t)t;
}

static void rmat_init(rmat_ctx *c, const sg_rmat_options *o)
{
    memset(c, 0, sizeof *c);
    uint64_t s = o->seed;
    c->key = splitmix_next(&s);
    c->scale = o->scale;
    c->mask = o->scale >= 64 ? ~0ull : (1ull << o->scale) - 1;
    c->ta = threshold(o->a);
    c->tab = threshold(o->a + o->b);
    c->tabc = threshold(o->a + o->b + o->c);
    c->max_weight = o->max_weight;
    c->pshift = (o->scale + 1) / 2;
    if (c->pshift == 0) c->pshift = 1;
    for (int r = 0; r < PERM_ROUNDS; r++) {
        c->pmul[r] = splitmix_next(&s) | 1;
        c->padd[r] = splitmix_next(&s);
    }
}

/* A bijection on [0, 2^scale): each step (multiply by an odd number,
 * xor with a right shift, add) is invertible modulo 2^scale. */
static inline uint32_t rmat_perm(const rmat_ctx *c, uint64_t id)
{
    /* After an add, id may carry bits above `scale`: the low bits of a
     * product depend only on the low bits of its factors, and the mask
     * clears the rest before the shift could bring them down. */
    for (int r = 0; r < PERM_ROUNDS; r++) {
        id = (id * c->pmul[r]) & c->mask;
        id ^= id >> c->pshift;
        id += c->padd[r];
    }
    return (uint32_t)(id & c->mask);
}

/* Draws edge i. The quadrant choice runs on the four 16-bit lanes of a word
 * at once (SWAR): each lane holds a 15-bit draw d; with bit 15 set,
 * (d | 0x8000) - t keeps bit 15 exactly when d >= t (t <= 2^15, so no lane
 * borrows from the next). u's bit of a level is (d >= t_ab); v's is
 * (d >= t_a) ^ (d >= t_ab) ^ (d >= t_abc): 0 in quadrant a, 1 in b, 0 in
 * c, 1 in d. Each lane gathers one bit per word; the lanes are then joined
 * and cut to `scale` levels (whole levels: u and v keep the same
 * positions). */
static inline void rmat_draw(const rmat_ctx *c, uint64_t i, uint32_t *u, uint32_t *v,
                             uint32_t *w)
{
    const uint64_t hi = 0x8000800080008000ull, lo15 = 0x7FFF7FFF7FFF7FFFull;
    const uint64_t one = 0x0001000100010001ull;
    const uint64_t ka = c->ta * one, kb = c->tab * one, kc = c->tabc * one;
    const uint64_t e = mix64(i * GOLDEN + c->key);
    const unsigned words = (c->scale + 3) / 4;
    uint64_t uacc = 0, vacc = 0;
    for (unsigned j = 1; j <= words; j++) {
        const uint64_t y = (mix64(e + j * STEP) & lo15) | hi;
        const uint64_t ga = (y - ka) & hi, gb = (y - kb) & hi, gc = (y - kc) & hi;
        uacc = uacc << 1 | gb >> 15;
        vacc = vacc << 1 | (ga ^ gb ^ gc) >> 15;
    }
    /* lane k holds `words` bits (words <= 8 < 16) */
    const uint64_t lane = (1ull << words) - 1;
    uint64_t uu = 0, vv = 0;
    for (unsigned k = 0; k < 4; k++) {
        uu |= ((uacc >> (16 * k)) & lane) << (words * k);
        vv |= ((vacc >> (16 * k)) & lane) << (words * k);
    }
    *u = rmat_perm(c, uu & c->mask);
    *v = rmat_perm(c, vv & c->mask);
    *w = 1 + (uint32_t)(((unsigned __int128)e * c->max_weight) >> 64);
}

static void rmat_edge_fn(void *ctx, uint64_t i, uint32_t *u, uint32_t *v, uint32_t *w)
{
    rmat_draw(ctx, i, u, v, w);
}

void sgi_rmat_edge(const sg_rmat_options *o, uint64_t i, uint32_t *u, uint32_t *v, uint32_t *w)
{
    rmat_ctx c;
    rmat_init(&c, o);
    rmat_draw(&c, i, u, v, w);
}

uint32_t sgi_rmat_permute(const sg_rmat_options *o, uint32_t id)
{
    rmat_ctx c;
    rmat_init(&c, o);
    return rmat_perm(&c, id & c.mask);
}

/* ---------------------------------------------------------------- options */

void sg_rmat_defaults(sg_rmat_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->scale = 0;
    o->edge_factor = 16;
    o->seed = 1;
    o->max_weight = 1u << 20;
    o->a = 0.57;
    o->b = 0.19;
    o->c = 0.19;
    o->threads = 0;
}

static bool is_prob(double p) { return isfinite(p) && p >= 0.0 && p <= 1.0; }

static sg_status validate(const sg_rmat_options *o, sg_error *err)
{
    sg_status st = SG_OK;
    SG_CHECK(o->scale >= 1 && o->scale <= 32, SG_E_INVALID, err,
             "rmat: scale %u: must be 1..32 (2^scale vertices)", o->scale);
    SG_CHECK(o->edge_factor >= 1, SG_E_INVALID, err, "rmat: edge factor %u: must be at least 1",
             o->edge_factor);
    SG_CHECK(o->scale < 32 || o->edge_factor < (1u << 31), SG_E_INVALID, err,
             "rmat: edge factor %u at scale %u: edge_factor * 2^scale must be below 2^63",
             o->edge_factor, o->scale);
    SG_CHECK(o->max_weight >= 1, SG_E_INVALID, err, "rmat: max weight %u: must be at least 1",
             o->max_weight);
    SG_CHECK(is_prob(o->a) && is_prob(o->b) && is_prob(o->c), SG_E_INVALID, err,
             "rmat: probabilities a=%g b=%g c=%g: each must be in [0, 1]", o->a, o->b, o->c);
    SG_CHECK(o->a + o->b + o->c <= 1.0 + 1e-9, SG_E_INVALID, err,
             "rmat: probabilities a=%g b=%g c=%g sum to %g: must be at most 1 (d = 1-a-b-c)",
             o->a, o->b, o->c, o->a + o->b + o->c);
    SG_CHECK(o->threads >= 0, SG_E_INVALID, err, "rmat: threads %d: must be >= 0 (0 = default)",
             o->threads);
fail:
    return st;
}

/* ---------------------------------------------------------------- gen */

sg_status sg_gen_rmat(const char *path, const sg_rmat_options *o, sg_gen_report *rep,
                      sg_error *err)
{
    sg_status st = SG_OK;
    sg_store_writer *wr = NULL;
    sgi_csr g = {0};
    SG_CHECK(o, SG_E_INVALID, err, "rmat: no options given");
    SG_CHECK(path && *path, SG_E_INVALID, err, "rmat: no output path given");
    SG_TRY(validate(o, err));
    const int t = o->threads > 0 ? o->threads : omp_get_max_threads();
    const uint64_t n = 1ull << o->scale;
    const uint64_t m = (uint64_t)o->edge_factor << o->scale;

    char creator[256];
    int len = snprintf(creator, sizeof creator,
                       "spillgraph gen rmat --scale %u --edge-factor %u --seed %llu "
                       "--max-weight %u",
                       o->scale, o->edge_factor, (unsigned long long)o->seed, o->max_weight);
    if (len > 0 && (size_t)len < sizeof creator && (o->a != 0.57 || o->b != 0.19 || o->c != 0.19))
        snprintf(creator + len, sizeof creator - (size_t)len, " (a=%g b=%g c=%g)", o->a, o->b,
                 o->c);
    /* Opening the writer first checks the path (SG_E_EXISTS without force)
     * and the store options before any generation work. */
    SG_TRY(sgi_gen_open(path, n, &o->store, t, creator, o->progress, o->progress_ctx, &wr, err));

    rmat_ctx ctx;
    rmat_init(&ctx, o);
    sgi_build_report br = {0};
    SG_TRY(sgi_csr_build(n, m, rmat_edge_fn, &ctx, false, t, o->progress, o->progress_ctx, &g,
                         &br, err));

    double seconds_write = 0;
    st = sgi_gen_finish(wr, &g, t, &seconds_write, err); /* frees g and the writer */
    wr = NULL;
    SG_TRY(st);

    if (rep) {
        *rep = (sg_gen_report){
            .n_vertices = n,
            .generated = br.generated,
            .self_loops = br.self_loops,
            .duplicates = br.duplicates,
            .n_edges = br.n_edges,
            .seconds_generate = br.seconds_generate,
            .seconds_build = br.seconds_sort,
            .seconds_write = seconds_write,
        };
    }
    return SG_OK;
fail:
    sg_store_writer_abort(wr);
    sgi_csr_free(&g);
    return st;
}
