/* The uniform random generator (G(n, m) style).
 *
 * Edge i is a pure function of (seed, i):
 *   e = mix64(i * GOLDEN + key)      its high bits give u, and the weight
 *   f = mix64(e + STEP)              its high bits give v
 * u = floor(e * n / 2^64), v = floor(f * n / 2^64) (n = 2^scale: the top
 * `scale` bits), w = 1 + floor(mix64(e + 2 STEP) * W / 2^64). Self-loops and
 * repeats are dropped by the builder (repeats keep the lightest weight). */
#include <assert.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define GOLDEN 0x9E3779B97F4A7C15ull
#define STEP 0xD1B54A32D192ED03ull

/* ---------------------------------------------------------------- uniform */

typedef struct uniform_ctx {
    uint64_t key;
    uint64_t n;
    uint32_t max_weight;
} uniform_ctx;

static void uniform_edge(void *ctx, uint64_t i, uint32_t *u, uint32_t *v, uint32_t *w)
{
    const uniform_ctx *c = ctx;
    const uint64_t e = sgi_mix64(i * GOLDEN + c->key);
    *u = (uint32_t)sgi_below(e, c->n);
    *v = (uint32_t)sgi_below(sgi_mix64(e + STEP), c->n);
    *w = 1 + (uint32_t)sgi_below(sgi_mix64(e + 2 * STEP), c->max_weight);
}

void sg_uniform_defaults(sg_uniform_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->edge_factor = 16;
    o->seed = 1;
    o->max_weight = 1u << 20;
}

static sg_status validate(const sg_uniform_options *o, sg_error *err)
{
    sg_status st = SG_OK;
    SG_CHECK(o->scale >= 1 && o->scale <= 32, SG_E_INVALID, err,
             "uniform: scale %u: must be 1..32 (2^scale vertices)", o->scale);
    SG_CHECK(o->edge_factor >= 1, SG_E_INVALID, err,
             "uniform: edge factor %u: must be at least 1", o->edge_factor);
    SG_CHECK(o->scale < 32 || o->edge_factor < (1u << 31), SG_E_INVALID, err,
             "uniform: edge factor %u at scale %u: edge_factor * 2^scale must be below 2^63",
             o->edge_factor, o->scale);
    SG_CHECK(o->max_weight >= 1, SG_E_INVALID, err, "uniform: max weight %u: must be at least 1",
             o->max_weight);
    SG_CHECK(o->threads >= 0, SG_E_INVALID, err,
             "uniform: threads %d: must be >= 0 (0 = default)", o->threads);
fail:
    return st;
}

sg_status sg_gen_uniform(const char *path, const sg_uniform_options *o, sg_gen_report *rep,
                         sg_error *err)
{
    sg_status st = SG_OK;
    sg_store_writer *wr = NULL;
    sgi_csr g = {0};
    SG_CHECK(o, SG_E_INVALID, err, "uniform: no options given");
    SG_CHECK(path && *path, SG_E_INVALID, err, "uniform: no output path given");
    SG_TRY(validate(o, err));
    const int t = o->threads > 0 ? o->threads : omp_get_max_threads();
    const uint64_t n = 1ull << o->scale;
    const uint64_t m = (uint64_t)o->edge_factor << o->scale;

    char creator[160];
    snprintf(creator, sizeof creator,
             "spillgraph gen uniform --scale %u --edge-factor %u --seed %llu --max-weight %u",
             o->scale, o->edge_factor, (unsigned long long)o->seed, o->max_weight);
    SG_TRY(sgi_gen_open(path, n, &o->store, t, creator, o->progress, o->progress_ctx, &wr, err));

    uint64_t s = o->seed;
    uniform_ctx ctx = {.key = sgi_mix64(s + GOLDEN), .n = n, .max_weight = o->max_weight};
    sgi_build_report br = {0};
    SG_TRY(sgi_csr_build(n, m, uniform_edge, &ctx, false, t, o->progress,
                         o->progress_ctx, &g, &br, err));
    double seconds_write = 0;
    st = sgi_gen_finish(wr, &g, t, &seconds_write, err);
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
