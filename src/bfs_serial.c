/* The BFS oracle (a plain serial FIFO queue BFS) and the verifier that
 * compares a result with it and validates its parent tree, Graph500 style.
 * Kept deliberately simple and independent of bfs.c. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Serial BFS from `source` along out-edges: a FIFO queue of n ids; the first
 * vertex to reach v is its parent. Self-loops and repeated neighbours are
 * seen and ignored (the neighbour is already visited). Errors: SG_E_INVALID
 * (NULL argument, no vertices, source >= n), SG_E_NOMEM. Time O(n + m),
 * one thread; memory: the result (8n bytes) plus a 4n-byte queue. */
sg_status sg_oracle_bfs(const sg_graph *g, uint32_t source, sg_bfs_result **out, sg_error *err)
{
    if (!g || !out) return sgi_fail(err, SG_E_INVALID, "sg_oracle_bfs: NULL argument");
    const uint64_t n = g->n;
    if (n == 0)
        return sgi_fail(err, SG_E_INVALID, "source %u is not a vertex: the graph has no vertices",
                        source);
    if (source >= n)
        return sgi_fail(err, SG_E_INVALID, "source %u is not a vertex: the graph has %llu vertices (0..%llu)",
                        source, (unsigned long long)n, (unsigned long long)(n - 1));
    sg_status st = SG_OK;
    uint32_t *queue = NULL;
    sg_bfs_result *r = NULL;
    SG_ALLOC(r, sgi_bfs_alloc(n, source, true), err, "the serial BFS result");
    SG_ALLOC(queue, sgi_huge_alloc((size_t)n * sizeof *queue), err, "the serial BFS queue");
    uint32_t *const level = r->level, *const parent = r->parent;
    for (uint64_t v = 0; v < n; v++) {
        level[v] = SG_NO_LEVEL;
        parent[v] = SG_NO_VERTEX;
    }
    level[source] = 0;
    parent[source] = source;
    queue[0] = source;
    uint64_t head = 0, tail = 1;
    while (head < tail) {
        const uint32_t u = queue[head++];
        for (uint64_t e = g->x[u]; e < g->x[u + 1]; e++) {
            const uint32_t v = g->a[e];
            if (level[v] != SG_NO_LEVEL) continue;
            level[v] = level[u] + 1;
            parent[v] = u;
            queue[tail++] = v;
        }
    }
    r->reached = tail;
    r->max_level = level[queue[tail - 1]];
    sgi_free(queue);
    *out = r;
    return SG_OK;
fail:
    sgi_free(queue);
    sg_bfs_free(r);
    return st;
}

/* "3" or "unreached", for messages. */
static const char *level_str(uint32_t l, char *buf, size_t size)
{
    if (l == SG_NO_LEVEL) return "unreached";
    snprintf(buf, size, "%u", l);
    return buf;
}

/* The first vertex (in id order) whose parent entry breaks the Graph500
 * rules, with a message; levels are already known to equal the oracle's.
 * has_edge[v] = 1 when the list of parent[v] holds v. Returns SG_OK when
 * none does. */
static sg_status check_parents(const sg_graph *g, const sg_bfs_result *r, const uint8_t *has_edge,
                               sg_error *err)
{
    const uint32_t *const level = r->level, *const parent = r->parent;
    const uint32_t s = r->source;
    if (parent[s] != s)
        return sgi_fail(err, SG_E_MISMATCH, "BFS parents: the source %u has parent %u, not itself",
                        s, parent[s]);
    for (uint64_t v = 0; v < g->n; v++) {
        const uint32_t p = parent[v];
        if (v == s) continue;
        if (level[v] == SG_NO_LEVEL) {
            if (p != SG_NO_VERTEX)
                return sgi_fail(err, SG_E_MISMATCH,
                                "BFS parents: vertex %llu is unreached but has parent %u",
                                (unsigned long long)v, p);
            continue;
        }
        if (p == SG_NO_VERTEX)
            return sgi_fail(err, SG_E_MISMATCH, "BFS parents: vertex %llu (level %u) has no parent",
                            (unsigned long long)v, level[v]);
        if (p >= g->n)
            return sgi_fail(err, SG_E_MISMATCH,
                            "BFS parents: vertex %llu has parent %u, which is not a vertex (n = %llu)",
                            (unsigned long long)v, p, (unsigned long long)g->n);
        if (level[p] == SG_NO_LEVEL || level[p] + 1 != level[v]) {
            char b[16];
            return sgi_fail(err, SG_E_MISMATCH,
                            "BFS parents: vertex %llu at level %u has parent %u at level %s, not %u",
                            (unsigned long long)v, level[v], p, level_str(level[p], b, sizeof b),
                            level[v] - 1);
        }
        if (!has_edge[v])
            return sgi_fail(err, SG_E_MISMATCH,
                            "BFS parents: vertex %llu has parent %u, but there is no edge %u -> %llu",
                            (unsigned long long)v, p, p, (unsigned long long)v);
    }
    return SG_OK;
}

/* Compares r with the serial BFS: vertex count, source, every level (the
 * first differing vertex is named with both values), reached and max_level.
 * With r->parent, validates the tree as Graph500 does: parent[source] =
 * source; every other reached v has a parent p with level[p] + 1 = level[v]
 * and an edge p -> v (lists may be unsorted: one pass over the edges of the
 * reached vertices marks the children they confirm); every unreached v has
 * SG_NO_VERTEX; and, undirected, no edge joins two reached vertices whose
 * levels differ by more than one. Errors: SG_E_INVALID (NULL argument),
 * SG_E_MISMATCH (naming the first vertex or edge at fault), SG_E_NOMEM and
 * the oracle's. Time: the oracle's O(n + m) plus, with parents, O(n + m)
 * with the OpenMP default thread count. Memory: the oracle's 12n bytes plus
 * n bytes with parents. */
sg_status sg_verify_bfs(const sg_graph *g, const sg_bfs_result *r, sg_error *err)
{
    if (!g || !r || !r->level) return sgi_fail(err, SG_E_INVALID, "sg_verify_bfs: NULL argument");
    if (r->n_vertices != g->n)
        return sgi_fail(err, SG_E_MISMATCH, "BFS result has %llu vertices, the graph %llu",
                        (unsigned long long)r->n_vertices, (unsigned long long)g->n);
    if (r->source >= g->n)
        return sgi_fail(err, SG_E_MISMATCH,
                        "BFS result: source %u is not a vertex: the graph has %llu vertices",
                        r->source, (unsigned long long)g->n);
    sg_status st = SG_OK;
    sg_bfs_result *o = NULL;
    uint8_t *has_edge = NULL;
    SG_TRY(sg_oracle_bfs(g, r->source, &o, err));
    const uint64_t n = g->n;
    for (uint64_t v = 0; v < n; v++)
        if (r->level[v] != o->level[v]) {
            char b1[16], b2[16];
            SG_CHECK(false, SG_E_MISMATCH, err,
                     "BFS from %u: vertex %llu has level %s, the serial BFS says %s", r->source,
                     (unsigned long long)v, level_str(r->level[v], b1, sizeof b1),
                     level_str(o->level[v], b2, sizeof b2));
        }
    SG_CHECK(r->reached == o->reached, SG_E_MISMATCH, err,
             "BFS from %u: reached %llu vertices, the serial BFS %llu (levels agree)", r->source,
             (unsigned long long)r->reached, (unsigned long long)o->reached);
    SG_CHECK(r->max_level == o->max_level, SG_E_MISMATCH, err,
             "BFS from %u: max_level %u, the serial BFS %u (levels agree)", r->source, r->max_level,
             o->max_level);
    if (r->parent) {
        SG_ALLOC(has_edge, sgi_calloc((size_t)n, 1), err, "the BFS parent check marks");
        const uint32_t *const level = r->level, *const parent = r->parent;
        const uint64_t *const x = g->x;
        const uint32_t *const a = g->a;
        const bool undirected = !g->directed;
        uint64_t bad = UINT64_MAX; /* smallest u with an edge of too large a level gap */
#pragma omp parallel for schedule(dynamic, 1024) reduction(min : bad)
        for (uint64_t u = 0; u < n; u++) {
            if (level[u] == SG_NO_LEVEL) continue;
            for (uint64_t e = x[u]; e < x[u + 1]; e++) {
                const uint32_t v = a[e];
                if (parent[v] == u) __atomic_store_n(&has_edge[v], 1, __ATOMIC_RELAXED);
                if (undirected && level[v] != SG_NO_LEVEL &&
                    (level[v] > level[u] ? level[v] - level[u] : level[u] - level[v]) > 1 && u < bad)
                    bad = u;
            }
        }
        SG_TRY(check_parents(g, r, has_edge, err));
        if (bad != UINT64_MAX)
            for (uint64_t e = x[bad]; e < x[bad + 1]; e++) {
                const uint32_t v = a[e];
                if (level[v] != SG_NO_LEVEL &&
                    (level[v] > level[bad] ? level[v] - level[bad] : level[bad] - level[v]) > 1)
                    SG_CHECK(false, SG_E_MISMATCH, err,
                             "BFS from %u: edge %llu - %u joins levels %u and %u", r->source,
                             (unsigned long long)bad, v, level[bad], level[v]);
            }
    }
    sgi_free(has_edge);
    sg_bfs_free(o);
    return SG_OK;
fail:
    sgi_free(has_edge);
    sg_bfs_free(o);
    return st;
}
