/* Allocation, canonical ordering and freeing of results (forests, distances,
 * levels, clusters), shared by the algorithms and their oracles. */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "internal.h"

sg_forest *sgi_forest_alloc(uint64_t n, uint64_t max_edges, sg_weight_type wt)
{
    sg_forest *f = sgi_calloc(1, sizeof *f);
    if (!f) return NULL;
    f->n_vertices = n;
    f->n_trees = n;
    f->weight_type = wt ? wt : SG_WEIGHT_U32;
    size_t bytes = (size_t)(max_edges ? max_edges : 1) * sizeof(uint32_t);
    f->u = sgi_huge_alloc(bytes);
    f->v = sgi_huge_alloc(bytes);
    f->w = sgi_huge_alloc(bytes);
    if (!f->u || !f->v || !f->w) {
        sg_forest_free(f);
        return NULL;
    }
    return f;
}

void sg_forest_free(sg_forest *f)
{
    if (!f) return;
    sgi_free(f->u);
    sgi_free(f->v);
    sgi_free(f->w);
    sgi_free(f);
}

sg_status sgi_forest_finish(sg_forest *f, int threads, sg_error *err)
{
    sg_status st = SG_OK;
    const uint64_t k = f->n_edges;
    sgi_wedge *e = NULL, *tmp = NULL;
    f->n_trees = f->n_vertices - k;
    if (k) {
        SG_ALLOC(e, sgi_huge_alloc(k * sizeof *e), err, "the forest's sort buffer");
        SG_ALLOC(tmp, sgi_huge_alloc(k * sizeof *tmp), err, "the forest's sort scratch");
        const sg_weight_type wt = f->weight_type;
#pragma omp parallel for num_threads(threads) schedule(static)
        for (uint64_t i = 0; i < k; i++)
        {
            const uint32_t a = f->u[i], b = f->v[i];
            e[i] = (sgi_wedge){sgi_weight_key(wt, f->w[i]), a < b ? a : b, a < b ? b : a, f->w[i]};
        }
        sgi_sort_wedges(e, tmp, k, threads);
#pragma omp parallel for num_threads(threads) schedule(static)
        for (uint64_t i = 0; i < k; i++) {
            f->u[i] = e[i].u;
            f->v[i] = e[i].v;
            f->w[i] = e[i].w;
        }
    }
    sgi_forest_totals(f, threads);
fail:
    sgi_free(e);
    sgi_free(tmp);
    return st;
}

void sgi_forest_totals(sg_forest *f, int threads)
{
    const uint64_t k = f->n_edges;
    f->n_trees = f->n_vertices - k;
    if (f->weight_type == SG_WEIGHT_F32) { /* in the canonical order, as documented */
        double td = 0.0;
        for (uint64_t i = 0; i < k; i++) {
            float x;
            memcpy(&x, &f->w[i], sizeof x);
            td += (double)x;
        }
        f->total_u32 = 0;
        f->total = td;
        return;
    }
    /* An integer sum is the same in any order: split over the threads (R-MAT
     * 26's 33 M edges took ~15 ms on one). */
    uint64_t t64 = 0;
    const uint32_t *w = f->w;
#pragma omp parallel for schedule(static) reduction(+ : t64) num_threads(threads > 0 ? threads : 1)
    for (uint64_t i = 0; i < k; i++) t64 += w[i];
    f->total_u32 = t64;
    f->total = (double)t64;
}

sg_sssp_result *sgi_sssp_alloc(uint64_t n, uint32_t source, sg_weight_type wt, bool parents)
{
    sg_sssp_result *r = sgi_calloc(1, sizeof *r);
    if (!r) return NULL;
    r->n_vertices = n;
    r->source = source;
    r->weight_type = wt ? wt : SG_WEIGHT_U32;
    size_t nn = (size_t)(n ? n : 1);
    if (r->weight_type == SG_WEIGHT_F32)
        r->dist_f = sgi_huge_alloc(nn * sizeof *r->dist_f);
    else
        r->dist = sgi_huge_alloc(nn * sizeof *r->dist);
    if (parents) r->parent = sgi_huge_alloc(nn * sizeof *r->parent);
    if ((!r->dist && !r->dist_f) || (parents && !r->parent)) {
        sg_sssp_free(r);
        return NULL;
    }
    return r;
}

void sg_sssp_free(sg_sssp_result *r)
{
    if (!r) return;
    sgi_free(r->dist);
    sgi_free(r->dist_f);
    sgi_free(r->parent);
    sgi_free(r);
}

sg_bfs_result *sgi_bfs_alloc(uint64_t n, uint32_t source, bool parents)
{
    sg_bfs_result *r = sgi_calloc(1, sizeof *r);
    if (!r) return NULL;
    r->n_vertices = n;
    r->source = source;
    size_t nn = (size_t)(n ? n : 1);
    r->level = sgi_huge_alloc(nn * sizeof *r->level);
    if (parents) r->parent = sgi_huge_alloc(nn * sizeof *r->parent);
    if (!r->level || (parents && !r->parent)) {
        sg_bfs_free(r);
        return NULL;
    }
    return r;
}

void sgi_dist_summary(const uint64_t *dist, uint64_t n, uint64_t inf, int threads,
                      uint64_t *reached, uint64_t *max_bits)
{
    uint64_t hits = 0, mx = 0;
#pragma omp parallel for schedule(static) reduction(+ : hits) reduction(max : mx) num_threads(threads)
    for (uint64_t v = 0; v < n; v++) {
        const uint64_t d = dist[v], hit = d != inf, dd = hit ? d : 0;
        hits += hit;
        mx = dd > mx ? dd : mx;
    }
    *reached = hits;
    *max_bits = mx;
}

void sg_bfs_free(sg_bfs_result *r)
{
    if (!r) return;
    sgi_free(r->level);
    sgi_free(r->parent);
    sgi_free(r);
}

void sg_clusters_free(sg_clusters *c)
{
    if (!c) return;
    sgi_free(c->label);
    sgi_free(c->size);
    sgi_free(c);
}
