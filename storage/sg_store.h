/* spillgraph — the shard store: a graph in CSR form on disk as zstd blocks.
 *
 * A store is a directory holding a manifest and shard files (docs/format.md).
 * Vertex ids are uint32_t, edge offsets uint64_t. Undirected graphs store both
 * directions of every edge. Neighbour lists are strictly increasing.
 *
 * Reading: sg_store_open() maps the manifest and every shard's block index
 * (O(shards + blocks) time, no bulk I/O). sg_store_neighbors() decodes one
 * vertex's list from the mapped files. sg_store_read() streams any vertex
 * range of X, A and/or W into caller buffers: io_uring with many reads in
 * flight, zstd decode in parallel (OpenMP).
 *
 * Writing: sg_store_writer_open() / _append() / _finish(). Everything goes to
 * a hidden temporary directory beside the target, is fsynced, and is renamed
 * into place by _finish(): a store is whole or absent.
 */
#ifndef SG_STORE_H
#define SG_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "sg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sg_weight_type { SG_WEIGHT_U32 = 1, SG_WEIGHT_F32 = 2 } sg_weight_type;
typedef enum sg_array { SG_ARRAY_X = 0, SG_ARRAY_A = 1, SG_ARRAY_W = 2 } sg_array;
#define SG_NARRAYS 3

/* ---------------------------------------------------------------- reading */

typedef struct sg_store sg_store;

/* Manifest facts and per-array sizes (whole store). */
typedef struct sg_store_info {
    uint64_t n_vertices;
    uint64_t n_edges;        /* directed edges stored (sum of out-degrees) */
    bool directed;
    bool negative_weights;   /* some weight < 0 (f32 stores only) */
    sg_weight_type weight_type;
    uint32_t n_shards;
    uint64_t raw_bytes[SG_NARRAYS];    /* X: 8*(n+1), A: 4*m, W: 4*m */
    uint64_t stored_bytes[SG_NARRAYS]; /* compressed block bytes */
    uint64_t n_blocks[SG_NARRAYS];
    uint64_t file_bytes;     /* all files, headers and indexes included */
    uint64_t created_unix;
    char creator[256];       /* how it was made (command line), NUL-terminated */
    bool has_original_ids;   /* the store keeps the vertices' original ids
                              * (convert --ids compact): sg_store_original_ids */
    bool weight_order;       /* lists ordered by (weight, neighbour id), not by
                              * id (renumber --lists weight) */
} sg_store_info;

/* One shard's vertex and edge range. */
typedef struct sg_shard_info {
    uint64_t v_begin, v_end; /* vertices [v_begin, v_end) */
    uint64_t e_begin, e_end; /* their edges [e_begin, e_end) */
    uint64_t stored_bytes[SG_NARRAYS];
    uint32_t n_blocks[SG_NARRAYS];
    char file[64];           /* file name inside the store directory */
} sg_shard_info;

/* Opens the store at `path`, checking the manifest checksum and every shard's
 * header, footer and index checksum (not the data blocks: see sg_store_check).
 * Errors: SG_E_NOTFOUND, SG_E_IO, SG_E_CORRUPT (names the file), SG_E_FORMAT,
 * SG_E_NOMEM. On failure *out is untouched. */
SG_API sg_status sg_store_open(const char *path, sg_store **out, sg_error *err);
/* Accepts NULL. */
SG_API void sg_store_close(sg_store *s);

SG_API void sg_store_get_info(const sg_store *s, sg_store_info *info);

/* Original ids of vertices [v_begin, v_begin + count) into out[0..count), for
 * stores made with renumbered ids (info.has_original_ids). The mapping is
 * strictly increasing (renumbering keeps the order of the original ids). The
 * first call verifies the whole ids file (checksum and order: O(n) time, 8n
 * bytes read once); later calls read only the range. Thread-safe.
 * Errors: SG_E_INVALID (no mapping, or the range passes n), SG_E_CORRUPT
 * (names the file), SG_E_IO. On failure `out` may be partly written. */
SG_API sg_status sg_store_original_ids(sg_store *s, uint64_t v_begin, uint64_t count,
                                       uint64_t *out, sg_error *err);
/* Verifies the id-mapping file: its CRC-32C against the manifest and that the
 * ids are strictly increasing. SG_OK when the store has no mapping. O(n) time,
 * 1 MiB of memory. */
SG_API sg_status sg_store_check_ids(sg_store *s, sg_error *err);
SG_API sg_status sg_store_shard_info(const sg_store *s, uint32_t shard, sg_shard_info *out, sg_error *err);
SG_API const char *sg_store_path(const sg_store *s);

/* Edge range [*e_begin, *e_end) of vertices [v_begin, v_end), v_begin <= v_end
 * <= n. Decodes at most two X blocks. */
SG_API sg_status sg_store_edge_range(sg_store *s, uint64_t v_begin, uint64_t v_end,
                              uint64_t *e_begin, uint64_t *e_end, sg_error *err);

/* Neighbours (and weights, when `wts` is not NULL) of vertex v. *degree is
 * always set on success; at most `cap` entries are written. Decodes the
 * blocks holding v from the mapped files: O(block size) time, no bulk I/O.
 * Thread-safe. */
SG_API sg_status sg_store_neighbors(sg_store *s, uint32_t v, uint64_t *degree,
                             uint32_t *nbrs, void *wts, uint64_t cap, sg_error *err);

/* A bulk read of vertex range [v_begin, v_end). Each non-NULL pointer receives
 * its array: x gets v_end-v_begin+1 absolute offsets, a and w get the edges
 * [X[v_begin], X[v_end]) (w as uint32_t or float per the weight type). */
typedef struct sg_read_request {
    uint64_t v_begin, v_end;
    uint64_t *x;
    uint32_t *a;
    void *w;
    /* Instead of w, a store's u32 weights as 24-bit weights: the low 16 bits
     * of each into w16, bits 16-23 into w8 (3 bytes an edge, not 4). A
     * weight of 2^24 or more is SG_E_RANGE naming its shard and block (what
     * was written of w16 and w8 then is not the weights); f32 weights, or w
     * set too, SG_E_INVALID. Both or neither. */
    uint16_t *w16;
    uint8_t *w8;
} sg_read_request;

typedef struct sg_read_options {
    int threads;            /* decode threads; 0 = OpenMP default */
    /* How blocks reach memory. None set (the default) is automatic: mapped
     * when at least 90% of the blocks' pages are in the page cache (mincore),
     * otherwise buffered io_uring reads. At most one may be set. */
    bool direct;            /* O_DIRECT io_uring reads (bypass the page cache) */
    bool mapped;            /* no reads: decode straight from the file mappings
                             * (zero copies; a cold store faults page by page) */
    bool uring;             /* buffered io_uring reads, even when cached */
    unsigned queue_depth;   /* reads in flight; 0 = default (64) */
    uint32_t window_bytes;  /* staging window; 0 = default (32 MiB) */
} sg_read_options;

typedef struct sg_read_stats {
    uint64_t stored_bytes;  /* block bytes decoded */
    uint64_t read_bytes;    /* bytes requested from the files (alignment included) */
    uint64_t decoded_bytes; /* bytes written into the caller's buffers */
    uint64_t blocks;
    uint64_t requests;      /* read requests issued */
    double seconds;
    bool used_uring;        /* reads went through io_uring */
    bool used_direct;       /* ...with O_DIRECT */
    bool used_mapped;       /* no reads: decoded from the mappings */
    /* none of the three: reads used pread (io_uring unavailable) */
} sg_read_stats;

/* Streams the request. `opt` and `stats` may be NULL. Errors name the shard
 * file and block: SG_E_CORRUPT (checksum, decode), SG_E_IO, SG_E_NOMEM. */
SG_API sg_status sg_store_read(sg_store *s, const sg_read_request *req, const sg_read_options *opt,
                        sg_read_stats *stats, sg_error *err);

/* Calls `fn` once per shard, in order, with that shard's whole CSR slice
 * decoded (x has v_end-v_begin+1 absolute offsets; a and w start at edge
 * x[0]). `w` is NULL when want_weights is false. Buffers are reused between
 * calls. Memory: about the largest shard's raw size. A non-zero return from
 * fn stops the walk and is returned (it should be an sg_status). */
typedef sg_status (*sg_shard_fn)(void *ctx, uint64_t v_begin, uint64_t v_end, const uint64_t *x,
                                 const uint32_t *a, const void *w, sg_error *err);
SG_API sg_status sg_store_foreach_shard(sg_store *s, bool want_weights, const sg_read_options *opt,
                                 sg_shard_fn fn, void *ctx, sg_error *err);

/* ---------------------------------------------------------------- writing */

typedef struct sg_store_writer sg_store_writer;

typedef struct sg_write_options {
    uint64_t shard_bytes;   /* target raw bytes per shard; 0 = 256 MiB */
    uint32_t block_bytes;   /* target raw bytes per block; 0 = 1 MiB */
    int zstd_level;         /* 1..22 for every array; 0 = per-array defaults
                             * (A 9, X and W 3: storage/internal.h) */
    int threads;            /* compression threads; 0 = OpenMP default */
    bool directed;
    sg_weight_type weight_type; /* 0 = SG_WEIGHT_U32 */
    bool force;             /* replace an existing store atomically */
    bool weight_order;      /* lists in weight order: each strictly increasing in
                             * (weight key, neighbour id) with no id twice (the
                             * weight key orders f32 weights as floats, -0
                             * before +0); false: strictly increasing ids */
    const char *creator;    /* how it was made; may be NULL */
    /* Called with phase "write" and the fraction of vertices written, from
     * the appending thread, at most about once per flushed batch. */
    void (*progress)(void *ctx, const char *phase, double fraction);
    void *progress_ctx;
} sg_write_options;

/* Starts a store of n_vertices vertices at `path`. Fails with SG_E_EXISTS if
 * path exists and !opt->force. */
SG_API sg_status sg_store_writer_open(const char *path, uint64_t n_vertices, const sg_write_options *opt,
                               sg_store_writer **out, sg_error *err);

/* Appends the next `count` vertices (in id order). x holds count+1 offsets
 * into a and w (only differences matter: x[0] need not be 0). Lists must be
 * strictly increasing with ids < n_vertices (in weight order with
 * opt->weight_order: see sg_write_options) (SG_E_INVALID otherwise, naming
 * the vertex). Weights are required (a store always has W). */
SG_API sg_status sg_store_writer_append(sg_store_writer *w, uint64_t count, const uint64_t *x,
                                 const uint32_t *a, const void *wts, sg_error *err);

/* Appends the original ids of the next `count` vertices to the store's id
 * mapping (the file ids.u64, docs/format.md). Optional: a store either has
 * an original id for every vertex or none, so by finish either all
 * n_vertices ids or none must have been appended. Ids must be strictly
 * increasing across all calls (SG_E_INVALID otherwise). May be called
 * before, between or after the vertex appends. Errors: SG_E_INVALID,
 * SG_E_IO, SG_E_NOSPACE (naming the file). Time: O(count), one write. */
SG_API sg_status sg_store_writer_append_ids(sg_store_writer *w, const uint64_t *ids,
                                            uint64_t count, sg_error *err);

/* Writes the manifest and renames the store into place. All n_vertices must
 * have been appended. Frees the writer, whatever the result. */
SG_API sg_status sg_store_writer_finish(sg_store_writer *w, sg_error *err);

/* Removes everything written so far and frees the writer. Accepts NULL. */
SG_API void sg_store_writer_abort(sg_store_writer *w);

/* ------------------------------------------------------ checking, export */

typedef struct sg_check_report {
    uint64_t blocks;        /* data blocks whose checksum was verified */
    uint64_t vertices, edges;
    bool symmetry_checked;  /* undirected stores: every (u,v,w) has (v,u,w) */
} sg_check_report;

/* Verifies every block checksum and the invariants: offsets monotone and
 * matching the shard table, ids < n, lists strictly increasing, weights not
 * NaN/inf, and for undirected stores symmetry with equal weights (a
 * multiset hash over all edges; O(1) extra memory), and the original-id
 * file when there is one (checksum, length, increasing order). The first violation is
 * reported in err naming shard, block or vertex. Time: one pass over the
 * store. `rep` may be NULL. */
SG_API sg_status sg_store_check(sg_store *s, const sg_read_options *opt, sg_check_report *rep,
                         sg_error *err);

typedef struct sg_degree_stats {
    uint64_t min, max;
    double mean;
    uint64_t isolated;      /* vertices of degree 0 */
    uint64_t hist[34];      /* hist[0]: degree 0; hist[k], k>=1: degree in [2^(k-1), 2^k) */
    uint64_t descents;      /* vertices v > 0 of lower degree than v - 1: 0 when
                             * the store is in ascending degree order
                             * (renumber --order degree-asc) */
} sg_degree_stats;

/* Degree statistics from X alone: streams X in chunks of 4M vertices
 * (O(n) time, 32 MiB of memory). */
SG_API sg_status sg_store_degree_stats(sg_store *s, const sg_read_options *opt, sg_degree_stats *out,
                                sg_error *err);

typedef enum sg_export_format {
    SG_EXPORT_EL = 1,  /* "u v" per line, 0-based */
    SG_EXPORT_WEL,     /* "u v w" per line */
    SG_EXPORT_MTX,     /* Matrix Market coordinate, 1-based */
    SG_EXPORT_EGR,     /* ECLgraph binary CSR (int32) */
    SG_EXPORT_WSG,     /* gapbs serialized weighted graph */
    SG_EXPORT_BIN32    /* raw little-endian (u32 u, u32 v, u32 w) triples; undirected
                        * stores write each edge once with u < v; u32 weights only */
} sg_export_format;

/* Parses "el", "wel", "mtx", "egr", "wsg", "bin32"; returns 0 if unknown. */
SG_API sg_export_format sg_export_format_parse(const char *name);

/* Writes the store to `path` in the given format, through a temporary file
 * renamed into place (an existing file is replaced only when `force`).
 * Undirected stores: el/wel write each edge once as "u v" with u < v; mtx is
 * "symmetric" with the lower triangle (row > col), in row order; egr and wsg
 * hold both directions, as those tools expect. Directed stores: every stored
 * edge; wsg also needs the in-edges, built in memory (8 bytes per edge plus
 * 8 per vertex, and a second pass over the store). Output bytes do not depend
 * on `threads` (0 = OpenMP default). Errors: SG_E_RANGE when the graph exceeds
 * the format (egr: int32 counts and ids; egr/wsg: weights above INT32_MAX,
 * found while writing), SG_E_FORMAT for f32 weights in egr/wsg, SG_E_IO /
 * SG_E_NOSPACE naming the file, SG_E_EXISTS. Nothing is left behind on error. */
SG_API sg_status sg_store_export(sg_store *s, sg_export_format fmt, const char *path, bool force,
                          int threads, sg_error *err);

#ifdef __cplusplus
}
#endif
#endif
