/* storage/ — input edge-list readers used by the converter (internal).
 *
 * One reader per input file. It detects zstd compression (".zst" extension
 * or the zstd magic number) and decompresses on the fly, parses the format
 * and hands out edges in batches. Ids come out as they are in the file,
 * converted to 0-based (DIMACS .gr and .mtx are 1-based in the file), as
 * uint64_t so that the converter can renumber sparse ids or report ids
 * beyond 2^32-1 as errors. Errors name the file and line (text formats) or
 * the file and byte offset (binary formats) and what was expected:
 *   "graph.wel:1841: expected 3 fields, found 2"
 * A reader may use several threads internally to parse text faster; the
 * edges still come out in file order. */
#ifndef SG_STORAGE_PARSE_H
#define SG_STORAGE_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "sg_convert.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One edge record as read. Unweighted formats give w = 1. */
typedef struct sgi_in_edge {
    uint64_t u, v;   /* 0-based ids */
    double w;        /* the weight exactly as written (integers up to 2^53 exact) */
} sgi_in_edge;

typedef struct sgi_in_info {
    sg_input_format format;   /* resolved (never AUTO) */
    bool compressed;          /* read through zstd */
    bool weighted;            /* the format carries weights */
    bool float_weights;       /* the weights are declared or written as reals:
                               * .mtx "real", or a text weight with '.', 'e', 'E'
                               * (set once any such weight has been read) */
    bool symmetric;           /* .mtx "symmetric" (each edge listed once) */
    bool directed_hint;       /* the file says it is directed (gapbs flag) */
    bool has_header_counts;   /* header_n / header_m are valid */
    uint64_t header_n;        /* vertices the header declares */
    uint64_t header_m;        /* edge records the header declares */
    uint64_t file_bytes;      /* size of the file on disk */
} sgi_in_info;

typedef struct sgi_in_reader sgi_in_reader;

/* Opens `path` as `fmt` (SG_INPUT_AUTO: by extension; an unknown extension
 * is SG_E_INVALID naming the file and the known extensions). Reads and
 * checks the header, if the format has one. threads: parse threads
 * (<= 0: OpenMP default).
 *
 * Errors: SG_E_INVALID (unknown format, a directory), SG_E_NOTFOUND /
 * SG_E_IO (open, pread; through the sgi_io table), SG_E_FORMAT (text
 * headers: no "p sp N M" line, a Matrix Market banner other than
 * "matrix coordinate pattern|integer|real general|symmetric", a non-square
 * size line; bin32 of a size that is not a multiple of 12), SG_E_CORRUPT
 * (binary headers that disagree with the file size, a first offset that is
 * not 0, corrupt or truncated zstd data), SG_E_NOMEM.
 *
 * Cost: text formats read the first chunk (sgi_in_chunk_bytes) here; memory
 * is two chunk buffers plus the parsed edges of one chunk (24 bytes per
 * edge). Binary formats keep a few 4 MiB buffers. For zstd-compressed CSR
 * files (sg, wsg, egr) every array is read through its own decoder, which
 * skips to the array by decompressing what precedes it, so the offsets are
 * decompressed two or three times; compressed egr decodes everything up to
 * the weights here, to learn whether they are present. */
sg_status sgi_in_open(const char *path, sg_input_format fmt, int threads, sgi_in_reader **out,
                      sg_error *err);

/* Facts about the input, valid after open (float_weights may become true
 * while reading text). */
const sgi_in_info *sgi_in_get_info(const sgi_in_reader *r);

/* Reads up to `cap` edges into buf; *got = 0 means the end of the file. At
 * the end, checks what the header promised (SG_E_INVALID: "g.gr: header
 * says 100 arcs, file has 99"). Ids are range-checked against the header's
 * vertex count where there is one (SG_E_RANGE naming line/offset).
 *
 * Edges come out in file order. When a line or record is bad, the edges
 * before it are returned first (with SG_OK) and the error on the next call;
 * an error is sticky: every later call returns it again. Errors: SG_E_FORMAT
 * ("file:line: expected 3 fields, found 2", "expected an integer vertex
 * id, found 'abc'", "weight is not finite"), SG_E_RANGE (an id beyond
 * 2^64-1 or outside 1..N, a neighbour id >= n naming its byte offset),
 * SG_E_INVALID (counts at the end), SG_E_CORRUPT (offsets that decrease or
 * disagree with m, truncated or corrupt data), SG_E_IO, SG_E_NOMEM.
 * cap must be > 0 (SG_E_INVALID). Cost: O(bytes) per call; text chunks are
 * parsed by `threads` threads while the next chunk is being read. */
sg_status sgi_in_next(sgi_in_reader *r, sgi_in_edge *buf, size_t cap, size_t *got, sg_error *err);

/* Bytes of the file consumed so far (compressed bytes for .zst), for progress. */
uint64_t sgi_in_bytes_done(const sgi_in_reader *r);
/* Text formats: lines read so far, and how many were comments or headers. */
uint64_t sgi_in_lines(const sgi_in_reader *r);
uint64_t sgi_in_comment_lines(const sgi_in_reader *r);

/* Accepts NULL. */
void sgi_in_close(sgi_in_reader *r);

/* Text formats read the file in chunks of this many bytes (default 32 MiB;
 * a line longer than a chunk grows it). Tests shrink it to exercise chunk
 * boundaries and the parallel split; set it before sgi_in_open. */
extern size_t sgi_in_chunk_bytes;

#ifdef __cplusplus
}
#endif
#endif
