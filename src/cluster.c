/* Single-linkage clustering on a minimum spanning forest: cut forest edges,
 * label what stays joined. */
#include <math.h>
#include <string.h>

#include "internal.h"

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* Whether the forest's edges are in canonical order (key, u, v), u < v. */
static bool is_canonical(const sg_forest *f)
{
    for (uint64_t i = 0; i < f->n_edges; i++) {
        if (f->u[i] >= f->v[i]) return false;
        if (i == 0) continue;
        uint32_t ka = sgi_weight_key(f->weight_type, f->w[i - 1]);
        uint32_t kb = sgi_weight_key(f->weight_type, f->w[i]);
        if (ka != kb) {
            if (ka > kb) return false;
            continue;
        }
        if (f->u[i - 1] != f->u[i] ? f->u[i - 1] > f->u[i] : f->v[i - 1] >= f->v[i]) return false;
    }
    return true;
}

/* The weight of edge bits as a number. */
static double weight_value(sg_weight_type wt, uint32_t bits)
{
    if (wt != SG_WEIGHT_F32) return (double)bits;
    float x;
    memcpy(&x, &bits, sizeof x);
    return (double)x;
}

/* Single-linkage clusters (spillgraph.h). With opt->k > 0, the k - T
 * heaviest forest edges in canonical order (weight, u, v) are cut (T = the
 * forest's trees), giving exactly k clusters; with k == 0 every edge whose
 * weight, as a number, exceeds opt->threshold is cut. A forest not in
 * canonical order is sorted (a copy) first. Labels: union-find over the
 * kept edges (path halving, union by size), then one pass over the
 * vertices numbers the clusters in order of their smallest vertex.
 * Errors: SG_E_INVALID (NULL forest, options or out; k outside [T, n]; a
 * NaN threshold; a forest whose counts disagree, with an endpoint >= n, or
 * whose edges close a cycle), SG_E_NOMEM. run may be NULL; else the time
 * goes to its "compute" phase. Time: O(n alpha(n)) plus, for a
 * non-canonical forest, a radix sort of its edges. Memory: 8 n bytes of
 * scratch (+ 32 per edge to sort) besides the result's 4 n + 8 clusters. */
sg_status sg_cluster(sg_run *run, const sg_forest *f, const sg_cluster_options *opt,
                     sg_clusters **out, sg_error *err)
{
    sg_status st = SG_OK;
    uint32_t *parent = NULL, *size32 = NULL;
    sgi_wedge *e = NULL, *tmp = NULL;
    sg_clusters *c = NULL;
    if (!f || !opt || !out) return sgi_fail(err, SG_E_INVALID, "sg_cluster: NULL argument");
    double t0 = sgi_now();
    const uint64_t n = f->n_vertices, ne = f->n_edges, nn = n ? n : 1;
    SG_CHECK(ne < nn && f->n_trees == n - ne, SG_E_INVALID, err,
             "not a forest: %llu edges and %llu trees over %llu vertices",
             (unsigned long long)ne, (unsigned long long)f->n_trees, (unsigned long long)n);
    const uint64_t T = f->n_trees;
    if (opt->k > 0) {
        SG_CHECK(opt->k >= T, SG_E_INVALID, err,
                 "k = %llu is below the forest's %llu trees; k must be in [%llu, %llu]",
                 (unsigned long long)opt->k, (unsigned long long)T, (unsigned long long)T,
                 (unsigned long long)n);
        SG_CHECK(opt->k <= n, SG_E_INVALID, err,
                 "k = %llu is above the forest's %llu vertices; k must be in [%llu, %llu]",
                 (unsigned long long)opt->k, (unsigned long long)n, (unsigned long long)T,
                 (unsigned long long)n);
    } else {
        SG_CHECK(!isnan(opt->threshold), SG_E_INVALID, err, "the threshold is not a number");
    }
    for (uint64_t i = 0; i < ne; i++)
        SG_CHECK(f->u[i] < n && f->v[i] < n, SG_E_INVALID, err,
                 "forest edge %llu (%u,%u) has an endpoint not below n = %llu",
                 (unsigned long long)i, f->u[i], f->v[i], (unsigned long long)n);

    /* The edges in canonical order: the forest's own arrays, or a sorted copy. */
    const uint32_t *eu = f->u, *ev = f->v, *ew = f->w;
    if (!is_canonical(f)) {
        SG_ALLOC(e, sgi_huge_alloc(ne * sizeof *e), err, "the forest's sorted edges");
        SG_ALLOC(tmp, sgi_huge_alloc(ne * sizeof *tmp), err, "the forest's sort scratch");
        for (uint64_t i = 0; i < ne; i++) {
            uint32_t a = f->u[i], b = f->v[i];
            e[i] = (sgi_wedge){sgi_weight_key(f->weight_type, f->w[i]), a < b ? a : b,
                               a < b ? b : a, f->w[i]};
        }
        sgi_sort_wedges(e, tmp, ne, run ? run->threads : 0);
        /* tmp is free again: unpack into it as three arrays. */
        uint32_t *p = (uint32_t *)tmp;
        for (uint64_t i = 0; i < ne; i++) {
            p[i] = e[i].u;
            p[ne + i] = e[i].v;
            p[2 * ne + i] = e[i].w;
        }
        eu = p;
        ev = p + ne;
        ew = p + 2 * ne;
    }
    /* k mode keeps the lightest ne - (k - T) edges; threshold mode looks at
     * each edge's weight. */
    const uint64_t keep = opt->k > 0 ? ne - (opt->k - T) : ne;

    SG_ALLOC(parent, sgi_huge_alloc(nn * sizeof *parent), err, "the cluster union-find");
    SG_ALLOC(size32, sgi_huge_alloc(nn * sizeof *size32), err, "the cluster union-find");
    SG_ALLOC(c, sgi_calloc(1, sizeof *c), err, "the clusters");
    SG_ALLOC(c->label, sgi_huge_alloc(nn * sizeof *c->label), err, "the cluster labels");
    for (uint64_t v = 0; v < n; v++) {
        parent[v] = (uint32_t)v;
        size32[v] = 1;
    }
    uint64_t cut = 0;
    for (uint64_t i = 0; i < ne; i++) {
        bool cut_it = opt->k > 0 ? i >= keep : weight_value(f->weight_type, ew[i]) > opt->threshold;
        if (cut_it) {
            cut++;
            continue;
        }
        uint32_t a = uf_find(parent, eu[i]), b = uf_find(parent, ev[i]);
        SG_CHECK(a != b, SG_E_INVALID, err, "not a forest: edge %llu (%u,%u) closes a cycle",
                 (unsigned long long)i, eu[i], ev[i]);
        if (size32[a] < size32[b]) {
            uint32_t t = a;
            a = b;
            b = t;
        }
        parent[b] = a;
        size32[a] += size32[b];
    }
    c->n_vertices = n;
    c->n_clusters = T + cut;
    c->cut_edges = cut;
    SG_ALLOC(c->size, sgi_calloc(c->n_clusters ? c->n_clusters : 1, sizeof *c->size), err,
             "the cluster sizes");
    /* Number the clusters in order of their smallest vertex: a root's size32
     * slot becomes its cluster's label, UINT32_MAX until the first vertex of
     * the cluster is met. (A label of UINT32_MAX itself only occurs with 2^32
     * singleton clusters, where no root is met twice.) */
    uint64_t next = 0;
    for (uint64_t v = 0; v < n; v++)
        if (parent[v] == v) size32[v] = UINT32_MAX;
    for (uint64_t v = 0; v < n; v++) {
        uint32_t r = uf_find(parent, (uint32_t)v);
        if (size32[r] == UINT32_MAX) size32[r] = (uint32_t)next++;
        c->label[v] = size32[r];
        c->size[size32[r]]++;
    }
    sgi_free(parent);
    sgi_free(size32);
    sgi_free(e);
    sgi_free(tmp);
    if (run) run->seconds[SG_PHASE_COMPUTE] += sgi_now() - t0;
    *out = c;
    return SG_OK;
fail:
    sgi_free(parent);
    sgi_free(size32);
    sgi_free(e);
    sgi_free(tmp);
    sg_clusters_free(c);
    return st;
}
