/* spillgraph — converting edge lists to shard stores (storage/).
 *
 * sg_convert() reads one or more edge-list files of any supported format
 * (optionally zstd-compressed), and writes one store. It works within a
 * memory bound: when the edges do not fit, they are partitioned by
 * destination shard into temporary run files beside the output, and each
 * partition is sorted within the bound (external memory). Temporary files
 * are removed on success and on failure.
 */
#ifndef SG_CONVERT_H
#define SG_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "sg_status.h"
#include "sg_store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sg_input_format {
    SG_INPUT_AUTO = 0, /* by extension (after stripping ".zst") */
    SG_INPUT_EL,       /* "u v" per line; '#' and '%' comment lines (SNAP) */
    SG_INPUT_WEL,      /* "u v w" per line */
    SG_INPUT_GR,       /* DIMACS shortest path: "p sp n m", "a u v w", 1-based */
    SG_INPUT_MTX,      /* Matrix Market coordinate, general or symmetric; 1-based */
    SG_INPUT_BIN32,    /* raw little-endian triples u32 u, u32 v, u32 w */
    SG_INPUT_SG,       /* gapbs serialized graph (unweighted) */
    SG_INPUT_WSG,      /* gapbs serialized weighted graph */
    SG_INPUT_EGR       /* ECLgraph binary CSR */
} sg_input_format;

/* "el", "wel", "gr", "mtx", "bin32", "sg", "wsg", "egr"; SG_INPUT_AUTO if unknown. */
SG_API sg_input_format sg_input_format_parse(const char *name);
SG_API const char *sg_input_format_name(sg_input_format f);
/* The format a path's extension names ("g.wel.zst" -> SG_INPUT_WEL), or
 * SG_INPUT_AUTO when the extension is not one of the above. */
SG_API sg_input_format sg_input_format_of_path(const char *path);

typedef enum sg_weight_mode {
    SG_WEIGHTS_KEEP = 0,  /* the file's weights; unweighted inputs get 1 */
    SG_WEIGHTS_UNIT,      /* every weight 1 */
    SG_WEIGHTS_RANDOM     /* uniform integers in [1, random_max] from seed */
} sg_weight_mode;

typedef enum sg_id_mode {
    SG_IDS_KEEP = 0,      /* ids as in the file (must be < 2^32); n = max id + 1
                           * or the header's count */
    SG_IDS_COMPACT        /* renumber the ids that occur to 0..n-1 in increasing
                           * order of original id; the store keeps the mapping */
} sg_id_mode;

typedef struct sg_convert_options {
    sg_input_format format;   /* for every input; AUTO = by each file's extension */
    bool directed;            /* default false: undirected, both directions stored */
    sg_weight_mode weights;
    uint32_t random_max;      /* SG_WEIGHTS_RANDOM: weights in [1, random_max]; 0 = 2^20 */
    uint64_t seed;            /* SG_WEIGHTS_RANDOM; weights depend only on (seed, u, v) */
    sg_id_mode ids;
    uint64_t mem_bytes;       /* memory bound; 0 = a quarter of physical RAM. It
                               * covers the edge records (16 bytes each, two per
                               * undirected edge, plus as much sort scratch),
                               * the id set of SG_IDS_COMPACT (8 bytes per
                               * distinct id) and an estimate of the writer's
                               * and reader's fixed buffers; bounds below about
                               * 64 MiB leave those fixed buffers outside it */
    const char *tmp_dir;      /* run files go here; NULL = beside the output */
    int threads;              /* 0 = OpenMP default */
    sg_write_options store;   /* layout, force, creator; `directed` and
                               * `weight_type` are set by the converter */
    /* Progress: phases "ids" (SG_IDS_COMPACT's first pass, fraction of input
     * bytes), "read" (of input bytes), "sort" (in memory: 0 when it starts;
     * external: of partitions sorted and written), "write" (of vertices).
     * Called from one thread at a time. */
    void (*progress)(void *ctx, const char *phase, double fraction);
    void *progress_ctx;
} sg_convert_options;

/* What the conversion did; every dropped edge is counted under one reason. */
typedef struct sg_convert_report {
    uint64_t files;
    uint64_t input_bytes;        /* bytes of the files as given (compressed if .zst) */
    uint64_t lines;              /* text lines read, comments included (text formats) */
    uint64_t comments;           /* comment and header lines */
    uint64_t edges_read;         /* edge records in the inputs */
    uint64_t self_loops;         /* dropped */
    uint64_t duplicates;         /* dropped: repeats of a kept edge (undirected: {u,v}
                                  * counted once per repeat, not per direction) */
                                 /* weight_type is decided from the weights of all
                                  * edges but self-loops, duplicates included */
    uint64_t n_vertices;
    uint64_t n_edges;            /* directed edges stored */
    sg_weight_type weight_type;  /* u32 for integer weights, f32 otherwise */
    bool negative_weights;       /* flagged in the manifest */
    bool external;               /* the external-memory path was taken */
    uint64_t partitions;         /* run-file partitions (0 on the in-memory path) */
    uint64_t run_bytes;          /* bytes written to temporary run files */
    uint64_t peak_bytes;         /* the converter's largest working memory (its
                                  * buffers, plus the fixed-buffer estimate) */
    double seconds_read, seconds_sort, seconds_write;
} sg_convert_report;

/* Converts inputs[0..n_inputs) (concatenated) into a store at out_path.
 * Semantics: self-loops dropped and counted; of repeated edges (undirected:
 * repeated {u, v}) the lightest is kept; integer weights in [0, 2^32) are
 * stored as u32, any other (fractional, negative, or a "real" .mtx) as f32,
 * negative weights flagged in the manifest; NaN and infinite weights are
 * errors. Errors name file and line ("graph.wel:1841: expected 3 fields,
 * found 2") or file and byte offset for binary formats: SG_E_FORMAT (bad
 * syntax), SG_E_RANGE (an id beyond 2^32-1 with SG_IDS_KEEP, a weight out of
 * range, an id beyond the header's vertex count), SG_E_INVALID (a count that
 * disagrees with the header, bad options), SG_E_NOTFOUND, SG_E_IO,
 * SG_E_NOSPACE, SG_E_EXISTS, SG_E_NOMEM (also: --ids compact's id set, or
 * one histogram bucket of source vertices, larger than the memory bound). Ids
 * and weights checked by the converter are named by file and edge record
 * ("g.el: edge 12 (...)"). Time: O(E) plus the radix sort, parallel; I/O:
 * the inputs once (twice with SG_IDS_COMPACT) and, on the external path,
 * each record written to and read from a run file once.
 * On failure nothing is left behind
 * (no store, no run files) and an existing store at out_path is untouched.
 * `rep` may be NULL; filled on success. */
SG_API sg_status sg_convert(const char *const *inputs, int n_inputs, const char *out_path,
                            const sg_convert_options *opt, sg_convert_report *rep, sg_error *err);

#ifdef __cplusplus
}
#endif
#endif
