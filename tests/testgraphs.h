/* Graph families for the algorithm tests (tests/ only): every algorithm is
 * checked against its oracle on each of these. Graphs are built as raw CSR
 * through sg_graph_from_arrays, so they may hold what a store never does:
 * self-loops and repeated edges (with different weights). */
#ifndef SG_TESTGRAPHS_H
#define SG_TESTGRAPHS_H

#include <stdbool.h>
#include <stdint.h>

#include "spillgraph.h"

typedef enum tg_kind {
    TG_RANDOM = 0,     /* random edges, weights in [1, 1000], some repeats and self-loops */
    TG_TIES_EQUAL,     /* random edges, every weight 7 */
    TG_TIES_12,        /* random edges, weights in {1, 2} */
    TG_DUP_LOOPS,      /* many repeated edges with different weights, many self-loops */
    TG_ISOLATED,       /* random edges over the first third of the vertices only */
    TG_COMPONENTS,     /* many small disjoint random components */
    TG_PATH,           /* one long path 0-1-2-...; deep BFS/SSSP */
    TG_STAR,           /* vertex 0 joined to every other; one huge degree */
    TG_GRID,           /* a rows x cols lattice with random weights */
    TG_RMAT,           /* a small R-MAT graph (skewed degrees), via the store */
    TG_SSCA2,          /* a small SSCA#2 graph (cliques joined by a few long edges, some
                        * vertices alone), via the store */
    TG_HUB_LAST,       /* the last vertex joined to every other, random edges among the
                        * others, weights in {1, 2, 3}: the longest list last */
    TG_NKINDS          /* keep last */
} tg_kind;

/* "random", "ties-equal", ... for messages. */
const char *tg_name(tg_kind k);

/* A graph of family k with about n vertices (n >= 2), undirected unless
 * `directed`, weights f32 (as exact small values, or with fractions when
 * `f32`) or u32. Asserts on failure. Free with sg_graph_free.
 * The store families (TG_RMAT, TG_SSCA2) have 2^ceil(log2 n) vertices and
 * are generated undirected with u32 weights; `directed` keeps, of each
 * undirected edge, one direction or both (a hash of the pair decides), and
 * `f32` turns weight w into w + k/4 (k from the same hash), so both
 * directions keep equal weights. Without either flag the graph is the
 * store's, as loaded. */
sg_graph *tg_make(tg_kind k, uint64_t n, uint64_t seed, bool directed, bool f32);

/* A graph from an edge list (u, v, w bits): undirected graphs get both
 * directions of each edge (a self-loop once). Lists are left in input order. */
sg_graph *tg_from_edges(uint64_t n, uint64_t ne, const uint32_t *u, const uint32_t *v,
                        const uint32_t *wbits, bool directed, bool f32);

/* The bits of a float, as weight arrays hold them. */
uint32_t tg_f32_bits(float f);
/* Zero-weight cycles: 0 -5-> 1 -0-> 2 -0-> 1, 2 -0-> 3 -0-> 2, 0 -9-> 3,
 * 3 -2-> 4; vertex 5 alone (tight edges between equal distances: a
 * shortest-path tree must not loop). */
sg_graph *tg_zero_cycles(bool directed, bool f32);
/* f32 rounding: 0 -1e17-> 1 -1-> 2 -2-> 3, 2 -1-> 1 (1e17 + 1 == 1e17 in
 * double, so 1 -> 2 is tight with equal distances). */
sg_graph *tg_f32_rounding(bool directed);

#endif
