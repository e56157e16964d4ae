/* Shared helpers for the cmocka tests (tests/ only). */
#ifndef SG_TESTUTIL_H
#define SG_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sg_store.h"
#include "spillgraph.h"

/* A fresh directory "tmp-<tag>-XXXXXX" in the current directory (the test
 * build dir). Returns a malloc'd path. */
char *tu_tmpdir(const char *tag);
/* Removes a file or a directory tree. */
void tu_rm_rf(const char *path);
bool tu_exists(const char *path);
uint64_t tu_file_size(const char *path);
/* XORs one byte of a file with `mask` (default 0xFF if 0). */
void tu_flip_byte(const char *path, uint64_t offset, uint8_t mask);
/* Truncates a file to `size` bytes. */
void tu_truncate(const char *path, uint64_t size);
/* Count of directory entries (not . or ..). */
int tu_dir_entries(const char *dir);

/* An in-memory CSR graph in canonical form: lists strictly increasing,
 * no self-loops, duplicates reduced to the lightest, and for undirected
 * graphs both directions present with equal weights. */
typedef struct tu_graph {
    uint64_t n, m;       /* vertices, directed edges stored */
    bool directed;
    uint64_t *x;         /* n+1 */
    uint32_t *a, *w;     /* m */
} tu_graph;

/* From an edge list of (u, v, w) triples (any order, duplicates and
 * self-loops allowed; they are canonicalised). */
tu_graph tu_graph_from_edges(uint64_t n, size_t ne, const uint32_t (*edges)[3], bool directed);
/* ne random edges over n vertices, weights in [1, maxw]. */
tu_graph tu_random_graph(uint64_t n, uint64_t ne, uint32_t maxw, uint64_t seed, bool directed);
void tu_graph_free(tu_graph *g);
bool tu_graph_equal(const tu_graph *a, const tu_graph *b);

/* Writes g to a store at path (asserting success). o may be NULL. */
void tu_write_store(const char *path, const tu_graph *g, const sg_write_options *o);
/* Reads a whole store back into a tu_graph (asserting success). */
tu_graph tu_read_store(const char *path);

/* splitmix64, for test data. */
uint64_t tu_rand(uint64_t *state);

/* The run's counter `name` into *value; false when the run has not set it. */
bool tu_counter(const sg_run *run, const char *name, uint64_t *value);
/* A forest run's rounds (counter "iterations") within
 * sgi_boruvka_rounds_max(n), bits(n) + 2 (common/sg_common.h). */
void tu_expect_rounds(const sg_run *run, uint64_t n, const char *what);

#endif
