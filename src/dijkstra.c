/* The shortest-path oracle: Dijkstra with a binary heap (serial, lazy
 * deletion), and sg_verify_sssp, which compares a result with it and
 * validates a parent tree. Deliberately plain: it is what the fast code is
 * checked against. Distances use the arithmetic of sg_sssp (u32: exact
 * uint64_t sums; f32: dist[u] + (double)w), so they compare exactly. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"


/* f32 distances are handled as the bits of their doubles. */
typedef uint64_t __attribute__((may_alias)) dword;

/* Heap entries: key = the distance's bits (uint64_t, or a non-negative
 * double's bits, which order like the values). */
typedef struct hent {
    uint64_t key;
    uint32_t v;
} hent;

static void heap_up(hent *h, uint64_t i)
{
    hent x = h[i];
    while (i > 0) {
        uint64_t p = (i - 1) / 2;
        if (h[p].key <= x.key) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
}

static void heap_down(hent *h, uint64_t len, uint64_t i)
{
    hent x = h[i];
    for (;;) {
        uint64_t c = 2 * i + 1;
        if (c >= len) break;
        if (c + 1 < len && h[c + 1].key < h[c].key) c++;
        if (x.key <= h[c].key) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}


/* Time O((n + m) log m) serial; memory: the result plus a heap of up to
 * m + 1 entries of 16 bytes (grown by doubling). Errors: those of sg_sssp
 * (SG_E_INVALID for source, no weights, negative weights), SG_E_NOMEM. */
sg_status sg_oracle_dijkstra(const sg_graph *g, uint32_t source, sg_sssp_result **out,
                             sg_error *err)
{
    if (!g || !out) return sgi_fail(err, SG_E_INVALID, "sg_oracle_dijkstra: NULL argument");
    sg_status st = sgi_sssp_check(g, source, err);
    if (st != SG_OK) return st;
    const bool f32 = g->wt == SG_WEIGHT_F32;
    const uint64_t n = g->n, inf = f32 ? sgi_dbl_bits(INFINITY) : UINT64_MAX;
    sg_sssp_result *r = NULL;
    hent *heap = NULL;
    uint64_t len = 0, cap = 1024;
    SG_ALLOC(r, sgi_sssp_alloc(n, source, g->wt, true), err, "the oracle's distances");
    SG_ALLOC(heap, sgi_malloc(cap * sizeof *heap), err, "the oracle's heap");
    dword *dist = f32 ? (dword *)(void *)r->dist_f : r->dist;
    for (uint64_t v = 0; v < n; v++) {
        dist[v] = inf;
        r->parent[v] = SG_NO_VERTEX;
    }
    dist[source] = 0;
    r->parent[source] = source;
    heap[len++] = (hent){0, source};
    const uint32_t *wu = g->w;
    const float *wf = g->w;
    while (len > 0) {
        const hent top = heap[0];
        heap[0] = heap[--len];
        if (len) heap_down(heap, len, 0);
        const uint32_t u = top.v;
        if (top.key != dist[u]) continue; /* stale entry */
        for (uint64_t e = g->x[u]; e < g->x[u + 1]; e++) {
            const uint32_t v = g->a[e];
            const uint64_t nd = f32 ? sgi_dbl_bits(sgi_bits_dbl(top.key) + (double)wf[e]) : top.key + wu[e];
            if (nd >= dist[v]) continue;
            dist[v] = nd;
            r->parent[v] = u;
            if (len == cap) {
                hent *p = sgi_realloc(heap, 2 * cap * sizeof *heap);
                SG_CHECK(p, SG_E_NOMEM, err, "out of memory growing the oracle's heap to %llu entries",
                         (unsigned long long)(2 * cap));
                heap = p;
                cap *= 2;
            }
            heap[len] = (hent){nd, v};
            heap_up(heap, len++);
        }
    }
    uint64_t reached = 0, maxd = 0;
    for (uint64_t v = 0; v < n; v++)
        if (dist[v] != inf) {
            reached++;
            if (dist[v] > maxd) maxd = dist[v];
        }
    r->reached = reached;
    r->max_dist = f32 ? sgi_bits_dbl(maxd) : (double)maxd;
    r->delta = 0.0;
    sgi_free(heap);
    *out = r;
    return SG_OK;
fail:
    sgi_free(heap);
    sg_sssp_free(r);
    return st;
}

/* A distance for messages. */
static void fmt_dist(char *buf, size_t size, const sg_sssp_result *r, uint64_t v)
{
    if (r->dist) {
        if (r->dist[v] == UINT64_MAX)
            snprintf(buf, size, "unreached");
        else
            snprintf(buf, size, "%llu", (unsigned long long)r->dist[v]);
    } else {
        if (isinf(r->dist_f[v]))
            snprintf(buf, size, "unreached");
        else
            snprintf(buf, size, "%.17g", r->dist_f[v]);
    }
}

/* Checks r against Dijkstra: the shape (vertex count, source, weight type),
 * every distance exactly, the reached count and the largest distance; then,
 * when r->parent is set, the tree: parent[source] == source; an unreached
 * vertex has SG_NO_VERTEX; a reached v != source has a reached parent p
 * and an edge p -> v with dist[p] + w == dist[v] (one pass over all edges
 * marks the vertices whose parent edge exists, so unsorted lists, repeats
 * and directed graphs cost O(m) together); and following parents from any
 * vertex reaches the source without a cycle (each vertex is walked once:
 * a walk stops at a vertex already known good, and meeting a vertex of the
 * walk in progress is a cycle). SG_E_MISMATCH names the first vertex at
 * fault with both values. Time: Dijkstra's plus O(n + m). Memory: the
 * oracle's result plus 5 bytes per vertex. */
sg_status sg_verify_sssp(const sg_graph *g, const sg_sssp_result *r, sg_error *err)
{
    if (!g || !r) return sgi_fail(err, SG_E_INVALID, "sg_verify_sssp: NULL argument");
    sg_status st = SG_OK;
    sg_sssp_result *o = NULL;
    uint8_t *state = NULL;
    uint32_t *stack = NULL;
    const bool f32 = g->wt == SG_WEIGHT_F32;
    const uint64_t n = g->n;
    SG_CHECK(r->n_vertices == n, SG_E_MISMATCH, err,
             "the result has %llu vertices, the graph %llu", (unsigned long long)r->n_vertices,
             (unsigned long long)n);
    SG_CHECK(r->weight_type == g->wt && (f32 ? r->dist_f != NULL : r->dist != NULL),
             SG_E_MISMATCH, err, "the result's distances are not of the graph's weight type (%s)",
             f32 ? "f32" : "u32");
    SG_TRY(sg_oracle_dijkstra(g, r->source, &o, err));
    char a[64], b[64];
    for (uint64_t v = 0; v < n; v++) {
        const bool same = f32 ? r->dist_f[v] == o->dist_f[v] : r->dist[v] == o->dist[v];
        if (!same) {
            fmt_dist(a, sizeof a, r, v);
            fmt_dist(b, sizeof b, o, v);
            SG_CHECK(false, SG_E_MISMATCH, err,
                     "vertex %llu: distance %s, but Dijkstra gives %s (source %u)",
                     (unsigned long long)v, a, b, r->source);
        }
    }
    SG_CHECK(r->reached == o->reached, SG_E_MISMATCH, err,
             "the result says %llu vertices are reached, Dijkstra reaches %llu",
             (unsigned long long)r->reached, (unsigned long long)o->reached);
    SG_CHECK(r->max_dist == o->max_dist, SG_E_MISMATCH, err,
             "the result's largest distance is %.17g, Dijkstra's %.17g", r->max_dist, o->max_dist);
    if (!r->parent) goto done;

    /* state: bit 0 = parent edge found, bit 1 = known to reach the source,
     * bit 2 = on the walk in progress. */
    SG_ALLOC(state, sgi_calloc(n, 1), err, "the verifier's vertex states");
    SG_ALLOC(stack, sgi_huge_alloc(n * sizeof *stack), err, "the verifier's walk stack");
    const uint32_t src = r->source;
    const uint32_t *par = r->parent;
#define REACHED(v) (f32 ? !isinf(r->dist_f[v]) : r->dist[v] != UINT64_MAX)
    SG_CHECK(par[src] == src, SG_E_MISMATCH, err, "the source %u has parent %u, not itself", src,
             par[src]);
    for (uint64_t u = 0; u < n; u++) {
        if (!REACHED(u)) continue;
        for (uint64_t e = g->x[u]; e < g->x[u + 1]; e++) {
            const uint32_t v = g->a[e];
            if (par[v] != u || v == src) continue;
            const bool tight = f32 ? r->dist_f[u] + (double)((const float *)g->w)[e] == r->dist_f[v]
                                   : r->dist[u] + ((const uint32_t *)g->w)[e] == r->dist[v];
            if (tight) state[v] |= 1;
        }
    }
    for (uint64_t v = 0; v < n; v++) {
        if (v == src) continue;
        const uint32_t p = par[v];
        if (!REACHED(v)) {
            SG_CHECK(p == SG_NO_VERTEX, SG_E_MISMATCH, err,
                     "vertex %llu is unreached but has parent %u", (unsigned long long)v, p);
            continue;
        }
        SG_CHECK(p != SG_NO_VERTEX, SG_E_MISMATCH, err, "vertex %llu is reached but has no parent",
                 (unsigned long long)v);
        SG_CHECK(p < n, SG_E_MISMATCH, err, "vertex %llu: parent %u is not a vertex",
                 (unsigned long long)v, p);
        SG_CHECK(REACHED(p), SG_E_MISMATCH, err, "vertex %llu: parent %u is unreached",
                 (unsigned long long)v, p);
        if (!(state[v] & 1)) {
            fmt_dist(a, sizeof a, r, p);
            fmt_dist(b, sizeof b, r, v);
            SG_CHECK(false, SG_E_MISMATCH, err,
                     "vertex %llu: no edge from its parent %u with dist[%u] + w == dist[%llu] "
                     "(%s, %s)",
                     (unsigned long long)v, p, p, (unsigned long long)v, a, b);
        }
    }
    state[src] |= 2;
    for (uint64_t v0 = 0; v0 < n; v0++) {
        if (!REACHED(v0) || (state[v0] & 2)) continue;
        uint64_t top = 0;
        uint32_t v = (uint32_t)v0;
        while (!(state[v] & 2)) {
            SG_CHECK(!(state[v] & 4), SG_E_MISMATCH, err,
                     "vertex %u: following parents from vertex %llu comes back to it (a cycle; "
                     "the source is never reached)",
                     v, (unsigned long long)v0);
            state[v] |= 4;
            stack[top++] = v;
            v = par[v];
        }
        while (top > 0) {
            const uint32_t w = stack[--top];
            state[w] = (uint8_t)((state[w] & 1) | 2);
        }
    }
#undef REACHED
done:
    st = SG_OK;
fail:
    sg_sssp_free(o);
    sgi_free(state);
    sgi_free(stack);
    return st;
}
