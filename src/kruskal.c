/* The forest oracle: Kruskal with union-find, deliberately plain, and the
 * comparison that --verify runs. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Union-find root with path halving. */
static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* Kruskal: every undirected edge once (u < v; self-loops dropped, repeated
 * edges all kept: the heavier copies close cycles), sorted by (weight key,
 * u, v) with sgi_sort_wedges, then joined in that order by union-find (path
 * halving, union by rank). The edges come out in canonical order.
 * Errors: SG_E_INVALID (NULL argument, directed graph, no weights),
 * SG_E_NOMEM. Time: O(m) to collect, the radix sort (O(m) per pass, at most
 * 9 passes), O(m alpha(n)) to join; serial apart from the shared sort.
 * Memory: 32 bytes per undirected edge (records and sort scratch) + 5 n. */
sg_status sg_oracle_kruskal(const sg_graph *g, sg_forest **out, sg_error *err)
{
    sg_status st = SG_OK;
    sgi_wedge *e = NULL, *tmp = NULL;
    uint32_t *parent = NULL;
    uint8_t *rank = NULL;
    sg_forest *f = NULL;
    if (!g || !out) return sgi_fail(err, SG_E_INVALID, "sg_oracle_kruskal: NULL argument");
    {
        const sg_status cst = sgi_mst_check(g, err);
        if (cst != SG_OK) return cst;
    }
    const uint64_t n = g->n;
    uint64_t cnt = 0;
    for (uint64_t u = 0; u < n; u++)
        for (uint64_t p = g->x[u]; p < g->x[u + 1]; p++) cnt += g->a[p] > u;
    SG_ALLOC(e, sgi_huge_alloc((cnt ? cnt : 1) * sizeof *e), err, "Kruskal's edge list");
    SG_ALLOC(tmp, sgi_huge_alloc((cnt ? cnt : 1) * sizeof *tmp), err, "Kruskal's sort scratch");
    SG_ALLOC(parent, sgi_huge_alloc((n ? n : 1) * sizeof *parent), err, "Kruskal's union-find");
    SG_ALLOC(rank, sgi_calloc(n ? n : 1, 1), err, "Kruskal's union-find ranks");
    SG_ALLOC(f, sgi_forest_alloc(n, n ? n - 1 : 0, g->wt), err, "the forest");
    uint64_t q = 0;
    for (uint64_t u = 0; u < n; u++)
        for (uint64_t p = g->x[u]; p < g->x[u + 1]; p++)
            if (g->a[p] > u) {
                const uint32_t w = sgi_graph_w_at(g, p); /* (32 or 24 bits) */
                e[q++] = (sgi_wedge){sgi_weight_key(g->wt, w), (uint32_t)u, g->a[p], w};
            }
    sgi_sort_wedges(e, tmp, cnt, 0);
    for (uint64_t v = 0; v < n; v++) parent[v] = (uint32_t)v;
    uint64_t k = 0;
    for (uint64_t i = 0; i < cnt && k + 1 < n; i++) {
        uint32_t a = uf_find(parent, e[i].u), b = uf_find(parent, e[i].v);
        if (a == b) continue;
        if (rank[a] < rank[b]) {
            uint32_t t = a;
            a = b;
            b = t;
        }
        parent[b] = a;
        if (rank[a] == rank[b]) rank[a]++;
        f->u[k] = e[i].u;
        f->v[k] = e[i].v;
        f->w[k++] = e[i].w;
    }
    f->n_edges = k;
    SG_TRY(sgi_forest_finish(f, 0, err));
    *out = f;
    f = NULL;
fail:
    sgi_free(e);
    sgi_free(tmp);
    sgi_free(parent);
    sgi_free(rank);
    sg_forest_free(f);
    return st;
}

/* An edge for messages: "(3,9,w=5)". */
static void edge_str(char *buf, size_t size, sg_weight_type wt, uint32_t u, uint32_t v, uint32_t w)
{
    if (wt == SG_WEIGHT_F32) {
        float x;
        memcpy(&x, &w, sizeof x);
        snprintf(buf, size, "(%u,%u,w=%.9g)", u, v, (double)x);
    } else {
        snprintf(buf, size, "(%u,%u,w=%u)", u, v, w);
    }
}

/* Runs Kruskal and compares, in this order: vertex count, weight type, the
 * edges one by one (both forests in canonical order, so the first
 * difference is the lightest one), edge and tree counts, totals.
 * Errors: SG_E_INVALID (NULL argument), those of sg_oracle_kruskal, and
 * SG_E_MISMATCH naming the first difference. Time and memory: those of
 * sg_oracle_kruskal plus O(n). */
sg_status sg_verify_forest(const sg_graph *g, const sg_forest *f, sg_error *err)
{
    sg_status st = SG_OK;
    sg_forest *o = NULL;
    if (!g || !f) return sgi_fail(err, SG_E_INVALID, "sg_verify_forest: NULL argument");
    SG_TRY(sg_oracle_kruskal(g, &o, err));
    SG_CHECK(f->n_vertices == o->n_vertices, SG_E_MISMATCH, err,
             "forest has %llu vertices, the graph %llu", (unsigned long long)f->n_vertices,
             (unsigned long long)o->n_vertices);
    SG_CHECK(f->weight_type == o->weight_type, SG_E_MISMATCH, err,
             "forest weight type %s, the graph's %s",
             f->weight_type == SG_WEIGHT_F32 ? "f32" : "u32",
             o->weight_type == SG_WEIGHT_F32 ? "f32" : "u32");
    uint64_t common = f->n_edges < o->n_edges ? f->n_edges : o->n_edges;
    char a[96], b[96];
    for (uint64_t i = 0; i < common; i++) {
        if (f->u[i] == o->u[i] && f->v[i] == o->v[i] && f->w[i] == o->w[i]) continue;
        edge_str(a, sizeof a, f->weight_type, f->u[i], f->v[i], f->w[i]);
        edge_str(b, sizeof b, o->weight_type, o->u[i], o->v[i], o->w[i]);
        SG_CHECK(false, SG_E_MISMATCH, err, "forest edge %llu: got %s, Kruskal has %s",
                 (unsigned long long)i, a, b);
    }
    if (f->n_edges > o->n_edges) {
        edge_str(a, sizeof a, f->weight_type, f->u[common], f->v[common], f->w[common]);
        SG_CHECK(false, SG_E_MISMATCH, err,
                 "forest has %llu edges, Kruskal %llu: edge %llu %s is extra",
                 (unsigned long long)f->n_edges, (unsigned long long)o->n_edges,
                 (unsigned long long)common, a);
    }
    if (f->n_edges < o->n_edges) {
        edge_str(b, sizeof b, o->weight_type, o->u[common], o->v[common], o->w[common]);
        SG_CHECK(false, SG_E_MISMATCH, err,
                 "forest has %llu edges, Kruskal %llu: missing edge %llu %s",
                 (unsigned long long)f->n_edges, (unsigned long long)o->n_edges,
                 (unsigned long long)common, b);
    }
    SG_CHECK(f->n_trees == o->n_trees, SG_E_MISMATCH, err, "forest has %llu trees, Kruskal %llu",
             (unsigned long long)f->n_trees, (unsigned long long)o->n_trees);
    SG_CHECK(f->total_u32 == o->total_u32 && f->total == o->total, SG_E_MISMATCH, err,
             "forest total weight %.17g (exact %llu), Kruskal %.17g (exact %llu)", f->total,
             (unsigned long long)f->total_u32, o->total, (unsigned long long)o->total_u32);
fail:
    sg_forest_free(o);
    return st;
}
