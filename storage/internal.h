/* spillgraph storage — internals shared by storage/ files, src/ and tests.
 * Not installed. */
#ifndef SG_STORAGE_INTERNAL_H
#define SG_STORAGE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sg_common.h"
#include "sg_store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ I/O
 * All file system calls of storage/ go through the current table, so tests
 * inject EIO, ENOSPC and short transfers. Each returns >= 0 or -errno. */
typedef struct sgi_io {
    int (*open)(const char *path, int flags, mode_t mode);
    int (*close)(int fd);
    ssize_t (*pread)(int fd, void *buf, size_t n, uint64_t off);
    ssize_t (*pwrite)(int fd, const void *buf, size_t n, uint64_t off);
    int (*fsync)(int fd);
    int (*mkdir)(const char *path, mode_t mode);
    int (*rename)(const char *from, const char *to, bool exchange);
    int (*unlink)(const char *path);
    int (*rmdir)(const char *path);
    /* Applied to every io_uring completion (res as the kernel gave it; the
     * return replaces it). NULL: unchanged. */
    int (*uring_result)(int res, size_t requested);
    bool allow_uring;        /* false: bulk reads use pread */
} sgi_io;

extern const sgi_io sgi_io_posix;
const sgi_io *sgi_io_get(void);
void sgi_io_set(const sgi_io *io); /* NULL restores sgi_io_posix */

/* Full-length helpers: loop over short transfers; a read that hits end of
 * file early fails with SG_E_CORRUPT ("truncated"). `what` names the file. */
sg_status sgi_write_all(int fd, const void *buf, size_t n, uint64_t off, const char *what,
                        sg_error *err);
sg_status sgi_read_all(int fd, void *buf, size_t n, uint64_t off, const char *what,
                       sg_error *err);
/* "dir/name", allocated with sgi_malloc; NULL when out of memory. */
char *sgi_path_join(const char *dir, const char *name);
/* Removes a directory tree of plain files (one level deep). Best effort. */
void sgi_remove_tree(const char *dir);
/* fsync a directory by path. */
sg_status sgi_fsync_dir(const char *dir, sg_error *err);

/* A new file written under a hidden temporary name beside `path`
 * (".<name>.tmp-<pid>-<serial>", same file system) and renamed into place by
 * sgi_outfile_commit: the target is either the old one or the whole new
 * one. Used by export and the result writers. */
typedef struct sgi_outfile {
    const sgi_io *io;
    const char *path;
    bool force;        /* replace an existing target */
    int fd;            /* the temporary file, open for writing */
    char *tmp, *dir;
    bool created, renamed;
} sgi_outfile;

/* Checks the target (SG_E_EXISTS without force) and creates the temporary
 * file. On failure call sgi_outfile_abort (which accepts any state). */
sg_status sgi_outfile_open(sgi_outfile *f, const char *path, bool force, sg_error *err);
/* fsync, close, re-check the target (without force: it may have appeared
 * meanwhile), rename, fsync the directory. Then call sgi_outfile_abort to
 * release (it removes nothing once renamed). */
sg_status sgi_outfile_commit(sgi_outfile *f, sg_error *err);
/* Closes and removes the temporary file unless it was renamed; frees. */
void sgi_outfile_abort(sgi_outfile *f);
/* Writes text[0..len) as the file at path, its missing directories made
 * (mkdir -p), replacing an old one whole through an sgi_outfile (the rates
 * cache, the stores' memos). */
sg_status sgi_replace_file(const char *path, const char *text, size_t len, sg_error *err);

/* ------------------------------------------------------------ checksums */
uint32_t sgi_crc32c(uint32_t crc, const void *buf, size_t n);

/* ------------------------------------------------------------ on-disk format
 * docs/format.md is the specification; all fields little-endian. */
#define SGI_MANIFEST_NAME "manifest.sgm"
#define SGI_MANIFEST_MAGIC "SGSTORE1"
#define SGI_SHARD_MAGIC "SGSHARD1"
#define SGI_FOOTER_MAGIC "SGINDEX1"
#define SGI_FORMAT_VERSION 1u
#define SGI_FLAG_DIRECTED 1u
#define SGI_FLAG_NEGATIVE_WEIGHTS 2u
#define SGI_FLAG_IDS 4u            /* ids.u64 holds the original vertex ids */
#define SGI_FLAG_WEIGHT_ORDER 8u   /* lists ordered by (weight key, neighbour): storage/order.c */
#define SGI_FLAGS_KNOWN 15u
#define SGI_IDS_NAME "ids.u64"

#define SGI_CODEC_RAW 0u      /* transformed u32 values, little-endian */
#define SGI_CODEC_ZSTD_SHUF 1u /* zstd frame of the byte-transposed values */

/* ------------------------------------------------------------ list order
 * (storage/order.c) Checks one list a[0..d) (weights w) in the store's
 * order: by id (strictly increasing) or, with weight_order, by (weight key,
 * id) strictly increasing and no id twice. Returns SGI_LIST_OK, or the
 * problem with *at the offending index (the second of a repeated id);
 * SGI_LIST_NOMEM when a long list's id set cannot be had. s is a reusable
 * set (zero-initialise; sgi_idset_free), one per thread. */
enum { SGI_LIST_OK = 0, SGI_LIST_ORDER, SGI_LIST_DUP, SGI_LIST_NOMEM };
typedef struct sgi_idset {
    uint32_t *tab;
    size_t cap;
} sgi_idset;
int sgi_list_order_check(const uint32_t *a, const uint32_t *w, uint64_t d, bool weight_order,
                         bool f32, sgi_idset *s, uint64_t *at);
void sgi_idset_free(sgi_idset *s);

typedef struct sgi_manifest_header { /* 128 bytes */
    char magic[8];
    uint32_t version;
    uint32_t header_bytes;   /* 128 */
    uint64_t n_vertices;
    uint64_t n_edges;
    uint32_t flags;
    uint32_t weight_type;
    uint32_t n_shards;
    uint32_t shard_entry_bytes; /* sizeof(sgi_shard_entry) */
    uint32_t x_block_elems;
    uint32_t e_block_elems;
    uint64_t shard_target_bytes;
    uint64_t created_unix;
    uint32_t creator_bytes;  /* creator text follows the shard table */
    uint32_t zstd_level;
    uint64_t ids_bytes;      /* SGI_FLAG_IDS: size of ids.u64 (8 n); else 0 */
    uint32_t ids_crc;        /* SGI_FLAG_IDS: CRC-32C of ids.u64; else 0 */
    uint8_t reserved[36];
} sgi_manifest_header;

typedef struct sgi_shard_entry { /* 96 bytes */
    uint64_t v_begin, v_end;
    uint64_t e_begin, e_end;
    uint64_t file_bytes;
    uint64_t stored_bytes[3];
    uint32_t n_blocks[3];
    uint32_t index_crc;      /* must equal the shard footer's */
    uint8_t reserved[16];
} sgi_shard_entry;
/* The manifest file: header, n_shards entries, creator text, then a uint32
 * crc32c of all preceding bytes. */

typedef struct sgi_shard_header { /* 64 bytes */
    char magic[8];
    uint32_t version;
    uint32_t shard_id;
    uint64_t v_begin, v_end;
    uint64_t e_begin, e_end;
    uint32_t weight_type;
    uint32_t reserved;
    uint32_t pad;
    uint32_t header_crc;     /* crc32c of the first 60 bytes */
} sgi_shard_header;

typedef struct sgi_block_entry { /* 40 bytes */
    uint8_t array;           /* sg_array */
    uint8_t codec;
    uint16_t reserved;
    uint32_t n_elems;
    uint64_t first;          /* X: first vertex (shard-relative); A/W: first edge (shard-relative) */
    uint64_t base;           /* X: absolute offset of the first vertex's list; else 0 */
    uint64_t offset;         /* file offset of the stored bytes */
    uint32_t stored_bytes;
    uint32_t crc;            /* crc32c of the stored bytes */
} sgi_block_entry;

typedef struct sgi_shard_footer { /* 32 bytes, the last bytes of the file */
    uint64_t index_offset;
    uint32_t n_entries;
    uint32_t index_crc;
    uint32_t shard_id;
    uint32_t footer_crc;     /* crc32c of the first 20 bytes */
    char magic[8];
} sgi_shard_footer;

_Static_assert(sizeof(sgi_manifest_header) == 128, "manifest header layout");
_Static_assert(sizeof(sgi_shard_entry) == 96, "shard entry layout");
_Static_assert(sizeof(sgi_shard_header) == 64, "shard header layout");
_Static_assert(sizeof(sgi_block_entry) == 40, "block entry layout");
_Static_assert(sizeof(sgi_shard_footer) == 32, "footer layout");

void sgi_shard_file_name(char out[64], uint32_t shard);

/* Tests only: when true, the writer skips input validation so that tests
 * can make stores that break the invariants (for check to find). */
extern bool sgi_writer_unchecked;

/* ------------------------------------------------------------ block codec
 * Values are first transformed (X: degrees; A: wrapping differences from the
 * previous id in the block, the first from 0; W: the 32-bit pattern), then
 * byte-transposed and zstd-compressed. See docs/format.md. */
typedef struct sgi_codec sgi_codec; /* per-thread contexts and scratch */
sgi_codec *sgi_codec_new(int zstd_level, size_t max_elems);
void sgi_codec_free(sgi_codec *c);

/* Encodes n transformed values into out (capacity sgi_codec_bound(n)) at
 * zstd `level` (0: the codec's current level), choosing raw when zstd does
 * not shrink them. */
size_t sgi_codec_bound(size_t n);
sg_status sgi_codec_encode(sgi_codec *c, int level, const uint32_t *vals, size_t n,
                           uint8_t *out, size_t *out_len, uint8_t *codec, sg_error *err);

/* Default zstd levels when the writer is given none. A (gaps of sorted ids)
 * decodes 35% faster at level 9 than at 3, with a slightly better ratio;
 * X and W gain nothing from higher levels (docs/benchmarks.md). */
#define SGI_ZSTD_LEVEL_A 9
#define SGI_ZSTD_LEVEL_XW 3

/* Decodes a block into c's scratch as n transformed values; returns them. */
sg_status sgi_codec_decode(sgi_codec *c, const sgi_block_entry *e, const uint8_t *src,
                           const uint32_t **vals, sg_error *err);

/* Decodes elements [skip, skip+count) of a block straight into dst with the
 * transform undone (X: uint64 offsets, plus dst[count] = the next offset
 * when x_last; A: ids; W: weights). Fused: one pass from the byte planes. */
sg_status sgi_codec_decode_into(sgi_codec *c, const sgi_block_entry *e, const uint8_t *src,
                                size_t skip, size_t count, void *dst, bool x_last, sg_error *err);

/* Decodes weights [skip, skip+count) of a W block as 24-bit weights: the
 * low 16 bits of each into d16, bits 16-23 into d8. *wide gets the first
 * weight of 2^24 or more among them (its bits), 0 when none: the caller
 * refuses the block then (what it wrote is not the weights). */
sg_status sgi_codec_decode_w24(sgi_codec *c, const sgi_block_entry *e, const uint8_t *src,
                              size_t skip, size_t count, uint16_t *d16, uint8_t *d8,
                              uint32_t *wide, sg_error *err);

/* Undo the transform for elements [skip, skip+count) of a decoded block. */
void sgi_untransform_x(const uint32_t *deg, uint64_t base, size_t skip, size_t count,
                       uint64_t *dst);
void sgi_untransform_a(const uint32_t *delta, size_t skip, size_t count, uint32_t *dst);

/* ------------------------------------------------------------ store internals */
typedef struct sgi_shard {
    sgi_shard_entry meta;
    char file[64];
    char *path;
    int fd;
    const uint8_t *map;      /* whole file, read-only */
    size_t map_bytes;
    const sgi_block_entry *blocks[3]; /* into map (or copies when unaligned) */
    sgi_block_entry *index;  /* copy of the index */
} sgi_shard;

struct sg_store {
    char *path;
    sgi_manifest_header hdr;
    char creator[256];
    sgi_shard *shards;
    uint32_t n_shards;
    char *ids_path;          /* SGI_FLAG_IDS: the id-mapping file, else NULL */
    int ids_fd;              /* open read-only, or -1 */
    int ids_verified;        /* atomic: 0 unchecked, 1 checksum and order verified */
};

/* Shard holding vertex v (v < n), or holding edge e (e < m). */
uint32_t sgi_shard_of_vertex(const sg_store *s, uint64_t v);
uint32_t sgi_shard_of_edge(const sg_store *s, uint64_t e);
/* Verifies and decodes one block from the mapped file. Message names the
 * shard file and block number. */
sg_status sgi_block_decode_mapped(const sg_store *s, uint32_t shard, sg_array arr,
                                  uint32_t block, sgi_codec *c, const uint32_t **vals,
                                  sg_error *err);

#ifdef __cplusplus
}
#endif
#endif
