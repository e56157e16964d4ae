/* The store writer: CSR in, shard files and a manifest out.
 *
 * Values are copied into fixed-size blocks taken from a pool; a full block is
 * sealed, and when the pool runs dry the sealed blocks are compressed in
 * parallel (one codec per thread) and written in seal order. A shard ends at
 * the first vertex boundary past the target size; its index and footer follow
 * its blocks and the file is fsynced. Everything lives in a hidden temporary
 * directory until sg_store_writer_finish() renames it into place. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define DEFAULT_SHARD_BYTES (256ull << 20)
#define DEFAULT_BLOCK_BYTES (1u << 20)

typedef struct qblock {
    uint8_t array;
    uint32_t n;          /* values filled */
    uint64_t first;      /* shard-relative first element */
    uint64_t base;       /* X: absolute offset of the first vertex */
    uint32_t *vals;      /* capacity: cap_elems */
    uint8_t *out;        /* capacity: sgi_codec_bound(cap_elems) */
    size_t out_len;
    uint8_t codec;
    uint32_t crc;
} qblock;

struct sg_store_writer {
    char *final_path;
    char *tmp_path;
    char *parent;
    char *creator;
    sg_write_options o;
    uint64_t n_vertices;
    uint32_t x_elems, e_elems; /* values per X block, per A/W block */
    int level[SG_NARRAYS];     /* zstd level per array */
    int threads;

    uint64_t v_next;     /* next vertex to append */
    uint64_t e_next;     /* absolute edges appended */
    bool negative;
    bool failed;

    /* current shard */
    bool shard_open;
    int fd;
    char shard_file[64];
    char *shard_path;
    uint64_t file_off;
    sgi_shard_entry cur;
    uint64_t shard_raw;
    qblock *fill[3];     /* partial block per array, or NULL */
    sgi_block_entry *index;
    size_t n_index, cap_index;

    /* block pool: free blocks and sealed blocks waiting to be written */
    qblock *blocks;
    size_t n_blocks;
    qblock **free_list;
    size_t n_free;
    qblock **sealed;
    size_t n_sealed;
    sgi_codec **codecs;

    sgi_shard_entry *shards;
    int *shard_fds;      /* closed shards' files, fsynced by finish */
    size_t n_shards, cap_shards;
    size_t n_synced;     /* shards [0, n_synced) are fsynced and closed */

    /* optional id mapping (ids.u64) */
    int ids_fd;
    char *ids_path;
    uint64_t ids_next;   /* ids appended */
    uint64_t ids_last;   /* the last id appended */
    uint32_t ids_crc;
};

/* Tests only: skip the input validation so that broken stores can be made. */
bool sgi_writer_unchecked = false;

static sg_status fail_writer(sg_store_writer *w, sg_status st)
{
    if (st != SG_OK) w->failed = true;
    return st;
}

static bool path_exists(const char *p, bool *is_dir)
{
    struct stat sb;
    if (stat(p, &sb) != 0) return false;
    *is_dir = S_ISDIR(sb.st_mode);
    return true;
}

/* Splits path into its parent directory and a hidden temporary name. */
static sg_status make_tmp_names(sg_store_writer *w, sg_error *err)
{
    static atomic_uint counter;
    sg_status st = SG_OK;
    const char *p = w->final_path;
    size_t len = strlen(p);
    while (len > 1 && p[len - 1] == '/') len--;
    size_t slash = len;
    while (slash > 0 && p[slash - 1] != '/') slash--;
    SG_CHECK(slash < len, SG_E_INVALID, err, "bad store path '%s'", p);
    if (slash == 0) {
        SG_ALLOC(w->parent, sgi_strdup("."), err, "a path");
    } else {
        size_t plen = slash > 1 ? slash - 1 : 1; /* drop the '/', unless it is the root */
        SG_ALLOC(w->parent, sgi_malloc(plen + 1), err, "a path");
        memcpy(w->parent, p, plen);
        w->parent[plen] = '\0';
    }
    char name[512];
    int nl = snprintf(name, sizeof name, ".%.*s.tmp-%ld-%u", (int)(len - slash), p + slash,
                      (long)getpid(), atomic_fetch_add(&counter, 1));
    SG_CHECK(nl > 0 && (size_t)nl < sizeof name, SG_E_INVALID, err, "store name too long: %s", p);
    SG_ALLOC(w->tmp_path, sgi_path_join(w->parent, name), err, "a path");
fail:
    return st;
}

static sg_status validate_options(const sg_write_options *o, sg_error *err)
{
    if (o->block_bytes != 0 && (o->block_bytes < 64 || o->block_bytes > (64u << 20)))
        return sgi_fail(err, SG_E_INVALID, "block size %u bytes: must be 64 B to 64 MiB",
                        o->block_bytes);
    if (o->shard_bytes != 0 && o->shard_bytes < 64)
        return sgi_fail(err, SG_E_INVALID, "shard size %llu bytes: must be at least 64",
                        (unsigned long long)o->shard_bytes);
    if (o->zstd_level < 0 || o->zstd_level > 22)
        return sgi_fail(err, SG_E_INVALID, "zstd level %d: must be 1..22", o->zstd_level);
    if (o->weight_type != 0 && o->weight_type != SG_WEIGHT_U32 && o->weight_type != SG_WEIGHT_F32)
        return sgi_fail(err, SG_E_INVALID, "unknown weight type %d", (int)o->weight_type);
    return SG_OK;
}

/* A store may be replaced (with force) only if it looks like one: we never
 * delete a directory that spillgraph did not make. */
static bool is_store_dir(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", path, SGI_MANIFEST_NAME);
    bool d;
    return path_exists(buf, &d) && !d;
}

sg_status sg_store_writer_open(const char *path, uint64_t n_vertices, const sg_write_options *opt,
                               sg_store_writer **out, sg_error *err)
{
    sg_status st = SG_OK;
    sg_store_writer *w = NULL;
    sg_write_options o = {0};
    if (opt) o = *opt;
    SG_CHECK(path && *path, SG_E_INVALID, err, "no output path given");
    SG_TRY(validate_options(&o, err));
    SG_CHECK(n_vertices <= (1ull << 32), SG_E_RANGE, err,
             "%llu vertices: ids are 32-bit, at most 2^32 vertices",
             (unsigned long long)n_vertices);
    bool is_dir = false;
    if (path_exists(path, &is_dir)) {
        SG_CHECK(o.force, SG_E_EXISTS, err, "%s already exists (use --force to replace it)",
                 path);
        SG_CHECK(is_dir && is_store_dir(path), SG_E_EXISTS, err,
                 "%s exists and is not a spillgraph store; refusing to replace it", path);
    }
    if (!o.shard_bytes) o.shard_bytes = DEFAULT_SHARD_BYTES;
    if (!o.block_bytes) o.block_bytes = DEFAULT_BLOCK_BYTES;
    if (!o.weight_type) o.weight_type = SG_WEIGHT_U32;

    SG_ALLOC(w, sgi_calloc(1, sizeof *w), err, "the store writer");
    w->fd = -1;
    w->ids_fd = -1;
    w->o = o;
    w->n_vertices = n_vertices;
    w->x_elems = o.block_bytes / 8 ? o.block_bytes / 8 : 1;
    w->e_elems = o.block_bytes / 4;
    w->threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    w->level[SG_ARRAY_X] = w->level[SG_ARRAY_W] = o.zstd_level ? o.zstd_level : SGI_ZSTD_LEVEL_XW;
    w->level[SG_ARRAY_A] = o.zstd_level ? o.zstd_level : SGI_ZSTD_LEVEL_A;
    SG_ALLOC(w->final_path, sgi_strdup(path), err, "a path");
    SG_ALLOC(w->creator, sgi_strdup(o.creator ? o.creator : "spillgraph library"), err,
             "the creator text");
    w->o.creator = NULL;
    SG_TRY(make_tmp_names(w, err));

    /* Pool: three blocks being filled plus two batches for the threads. */
    w->n_blocks = 3 + 2 * (size_t)w->threads;
    SG_ALLOC(w->blocks, sgi_calloc(w->n_blocks, sizeof *w->blocks), err, "the block pool");
    SG_ALLOC(w->free_list, sgi_calloc(w->n_blocks, sizeof *w->free_list), err, "the block pool");
    SG_ALLOC(w->sealed, sgi_calloc(w->n_blocks, sizeof *w->sealed), err, "the block pool");
    for (size_t i = 0; i < w->n_blocks; i++) {
        SG_ALLOC(w->blocks[i].vals, sgi_malloc((size_t)w->e_elems * 4), err, "block buffers");
        SG_ALLOC(w->blocks[i].out, sgi_malloc(sgi_codec_bound(w->e_elems)), err,
                 "block buffers");
        w->free_list[w->n_free++] = &w->blocks[i];
    }
    SG_ALLOC(w->codecs, sgi_calloc((size_t)w->threads, sizeof *w->codecs), err, "codecs");
    for (int t = 0; t < w->threads; t++)
        SG_ALLOC(w->codecs[t], sgi_codec_new(w->level[SG_ARRAY_W], w->e_elems), err,
                 "a compression context");

    const sgi_io *io = sgi_io_get();
    int r = io->mkdir(w->tmp_path, 0755);
    if (r < 0) {
        st = sgi_fail_errno(err, -r, "creating %s", w->tmp_path);
        goto fail;
    }
    *out = w;
    return SG_OK;
fail:
    if (w && w->tmp_path) {
        sgi_free(w->tmp_path); /* not created: nothing to remove */
        w->tmp_path = NULL;
    }
    sg_store_writer_abort(w);
    return st;
}

static void close_shard_files(sg_store_writer *w)
{
    for (size_t i = 0; w->shard_fds && i < w->n_shards; i++)
        if (w->shard_fds[i] >= 0) {
            sgi_io_get()->close(w->shard_fds[i]);
            w->shard_fds[i] = -1;
        }
}

/* Makes closed shards [n_synced, upto) durable and closes them. */
static sg_status sync_shard_files(sg_store_writer *w, size_t upto, sg_error *err)
{
    const sgi_io *io = sgi_io_get();
    for (; w->n_synced < upto; w->n_synced++) {
        const size_t i = w->n_synced;
        char name[64];
        sgi_shard_file_name(name, (uint32_t)i);
        int r = io->fsync(w->shard_fds[i]);
        if (r < 0) return sgi_fail_errno(err, -r, "fsync of %s/%s", w->tmp_path, name);
        r = io->close(w->shard_fds[i]);
        w->shard_fds[i] = -1;
        if (r < 0) return sgi_fail_errno(err, -r, "closing %s/%s", w->tmp_path, name);
    }
    return SG_OK;
}

static void free_writer(sg_store_writer *w)
{
    if (w->fd >= 0) sgi_io_get()->close(w->fd);
    if (w->ids_fd >= 0) sgi_io_get()->close(w->ids_fd);
    sgi_free(w->ids_path);
    close_shard_files(w);
    if (w->blocks)
        for (size_t i = 0; i < w->n_blocks; i++) {
            sgi_free(w->blocks[i].vals);
            sgi_free(w->blocks[i].out);
        }
    if (w->codecs)
        for (int t = 0; t < w->threads; t++) sgi_codec_free(w->codecs[t]);
    sgi_free(w->codecs);
    sgi_free(w->blocks);
    sgi_free(w->free_list);
    sgi_free(w->sealed);
    sgi_free(w->index);
    sgi_free(w->shards);
    sgi_free(w->shard_fds);
    sgi_free(w->shard_path);
    sgi_free(w->final_path);
    sgi_free(w->tmp_path);
    sgi_free(w->parent);
    sgi_free(w->creator);
    sgi_free(w);
}

void sg_store_writer_abort(sg_store_writer *w)
{
    if (!w) return;
    if (w->fd >= 0) {
        sgi_io_get()->close(w->fd);
        w->fd = -1;
    }
    if (w->ids_fd >= 0) {
        sgi_io_get()->close(w->ids_fd);
        w->ids_fd = -1;
    }
    close_shard_files(w);
    if (w->tmp_path) sgi_remove_tree(w->tmp_path);
    free_writer(w);
}

/* ---------------------------------------------------------------- blocks */

static sg_status push_index(sg_store_writer *w, const sgi_block_entry *e, sg_error *err)
{
    if (w->n_index == w->cap_index) {
        size_t cap = w->cap_index ? 2 * w->cap_index : 256;
        sgi_block_entry *p = sgi_realloc(w->index, cap * sizeof *p);
        if (!p) return sgi_fail(err, SG_E_NOMEM, "out of memory growing a shard index");
        w->index = p;
        w->cap_index = cap;
    }
    w->index[w->n_index++] = *e;
    return SG_OK;
}

/* Compresses the sealed blocks in parallel and appends them to the shard file
 * in seal order. */
static sg_status flush_sealed(sg_store_writer *w, sg_error *err)
{
    sg_status st = SG_OK;
    const size_t n = w->n_sealed;
    if (n == 0) return SG_OK;
    sg_status first_st = SG_OK;
    sg_error first_err = {0};
    size_t first_bad = SIZE_MAX;

#pragma omp parallel for schedule(dynamic, 1) num_threads(w->threads)
    for (size_t i = 0; i < n; i++) {
        qblock *b = w->sealed[i];
        if (b->array == SG_ARRAY_A) /* ids -> wrapping differences */
            for (uint32_t k = b->n; k-- > 1;) b->vals[k] -= b->vals[k - 1];
        sg_error e = {0};
        sg_status s = sgi_codec_encode(w->codecs[omp_get_thread_num()], w->level[b->array],
                                       b->vals, b->n, b->out,
                                       &b->out_len, &b->codec, &e);
        if (s == SG_OK) {
            b->crc = sgi_crc32c(0, b->out, b->out_len);
        } else {
#pragma omp critical(sg_writer_err)
            if (i < first_bad) {
                first_bad = i;
                first_st = s;
                first_err = e;
            }
        }
    }
    if (first_st != SG_OK) {
        if (err) *err = first_err;
        st = first_st;
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        qblock *b = w->sealed[i];
        SG_TRY(sgi_write_all(w->fd, b->out, b->out_len, w->file_off, w->shard_path, err));
        sgi_block_entry e = {.array = b->array, .codec = b->codec, .n_elems = b->n,
                             .first = b->first, .base = b->base, .offset = w->file_off,
                             .stored_bytes = (uint32_t)b->out_len, .crc = b->crc};
        SG_TRY(push_index(w, &e, err));
        w->file_off += b->out_len;
        w->cur.stored_bytes[b->array] += b->out_len;
        w->cur.n_blocks[b->array]++;
    }
fail:
    for (size_t i = 0; i < n; i++) w->free_list[w->n_free++] = w->sealed[i];
    w->n_sealed = 0;
    if (w->o.progress && st == SG_OK && w->n_vertices)
        w->o.progress(w->o.progress_ctx, "write", (double)w->v_next / (double)w->n_vertices);
    return st;
}

static void seal(sg_store_writer *w, sg_array arr)
{
    qblock *b = w->fill[arr];
    if (!b) return;
    w->fill[arr] = NULL;
    if (b->n == 0) {
        w->free_list[w->n_free++] = b;
        return;
    }
    w->sealed[w->n_sealed++] = b;
}

/* The block being filled for `arr`, starting a new one at shard-relative
 * element `first` if needed (flushing when the pool is empty). */
static sg_status fill_block(sg_store_writer *w, sg_array arr, uint64_t first, uint64_t base,
                            qblock **out, sg_error *err)
{
    if (!w->fill[arr]) {
        if (w->n_free == 0) {
            sg_status st = flush_sealed(w, err);
            if (st != SG_OK) return st;
        }
        qblock *b = w->free_list[--w->n_free];
        b->array = (uint8_t)arr;
        b->n = 0;
        b->first = first;
        b->base = base;
        w->fill[arr] = b;
    }
    *out = w->fill[arr];
    return SG_OK;
}

/* ---------------------------------------------------------------- shards */

static sg_status open_shard(sg_store_writer *w, sg_error *err)
{
    sg_status st = SG_OK;
    const sgi_io *io = sgi_io_get();
    uint32_t id = (uint32_t)w->n_shards;
    sgi_shard_file_name(w->shard_file, id);
    sgi_free(w->shard_path);
    SG_ALLOC(w->shard_path, sgi_path_join(w->tmp_path, w->shard_file), err, "a path");
    int fd = io->open(w->shard_path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        st = sgi_fail_errno(err, -fd, "creating %s", w->shard_path);
        goto fail;
    }
    w->fd = fd;
    w->shard_open = true;
    memset(&w->cur, 0, sizeof w->cur);
    w->cur.v_begin = w->cur.v_end = w->v_next;
    w->cur.e_begin = w->cur.e_end = w->e_next;
    w->shard_raw = 0;
    w->n_index = 0;
    w->file_off = sizeof(sgi_shard_header); /* header written at close */
fail:
    return st;
}

static sg_status close_shard(sg_store_writer *w, sg_error *err)
{
    sg_status st = SG_OK;
    for (int a = 0; a < SG_NARRAYS; a++) seal(w, (sg_array)a);
    SG_TRY(flush_sealed(w, err));

    /* Index ordered by array, then element: readers binary-search it. */
    sgi_block_entry *sorted = NULL;
    SG_ALLOC(sorted, sgi_malloc((w->n_index + 1) * sizeof *sorted), err, "a shard index");
    size_t k = 0;
    for (int a = 0; a < SG_NARRAYS; a++)
        for (size_t i = 0; i < w->n_index; i++)
            if (w->index[i].array == a) sorted[k++] = w->index[i];
    size_t index_bytes = w->n_index * sizeof *sorted;
    uint64_t index_off = w->file_off;
    st = sgi_write_all(w->fd, sorted, index_bytes, index_off, w->shard_path, err);
    uint32_t index_crc = sgi_crc32c(0, sorted, index_bytes);
    sgi_free(sorted);
    SG_TRY(st);

    sgi_shard_footer f = {.index_offset = index_off, .n_entries = (uint32_t)w->n_index,
                          .index_crc = index_crc, .shard_id = (uint32_t)w->n_shards};
    memcpy(f.magic, SGI_FOOTER_MAGIC, 8);
    f.footer_crc = sgi_crc32c(0, &f, 20);
    SG_TRY(sgi_write_all(w->fd, &f, sizeof f, index_off + index_bytes, w->shard_path, err));

    sgi_shard_header h = {.version = SGI_FORMAT_VERSION, .shard_id = (uint32_t)w->n_shards,
                          .v_begin = w->cur.v_begin, .v_end = w->cur.v_end,
                          .e_begin = w->cur.e_begin, .e_end = w->cur.e_end,
                          .weight_type = (uint32_t)w->o.weight_type};
    memcpy(h.magic, SGI_SHARD_MAGIC, 8);
    h.header_crc = sgi_crc32c(0, &h, 60);
    SG_TRY(sgi_write_all(w->fd, &h, sizeof h, 0, w->shard_path, err));

    /* Start writeback now; finish() fsyncs every shard before the rename, so
     * the disk works while the next shards are compressed. */
    (void)sync_file_range(w->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    if (w->n_shards == w->cap_shards) {
        size_t cap = w->cap_shards ? 2 * w->cap_shards : 16;
        sgi_shard_entry *p = sgi_realloc(w->shards, cap * sizeof *p);
        SG_CHECK(p, SG_E_NOMEM, err, "out of memory growing the shard table");
        w->shards = p;
        int *q = sgi_realloc(w->shard_fds, cap * sizeof *q);
        SG_CHECK(q, SG_E_NOMEM, err, "out of memory growing the shard table");
        w->shard_fds = q;
        w->cap_shards = cap;
    }
    w->cur.file_bytes = index_off + index_bytes + sizeof f;
    w->cur.index_crc = index_crc;
    w->shard_fds[w->n_shards] = w->fd;
    w->fd = -1;
    w->shards[w->n_shards++] = w->cur;
    /* At most 32 shards wait for their fsync (bounded open files). */
    if (w->n_shards - w->n_synced > 32) SG_TRY(sync_shard_files(w, w->n_shards - 32, err));
    w->shard_open = false;
fail:
    return st;
}

/* ---------------------------------------------------------------- append */

/* Checks lists [0, count): ids < n, finite weights, and the store's order
 * (strictly increasing ids, or weight order: storage/order.c). Reports the
 * lowest offending vertex. */
static sg_status validate(sg_store_writer *w, uint64_t count, const uint64_t *x,
                          const uint32_t *a, const void *wts, sg_error *err)
{
    uint64_t bad = UINT64_MAX;
    int why = 0;
    bool neg = false;
    const uint64_t n = w->n_vertices;
    const bool f32 = w->o.weight_type == SG_WEIGHT_F32, word = w->o.weight_order;
    const uint32_t *wb = wts;
#pragma omp parallel num_threads(w->threads) reduction(|| : neg)
    {
        sgi_idset ids = {0};
#pragma omp for schedule(dynamic, 4096)
        for (uint64_t v = 0; v < count; v++) {
            int r = 0;
            if (x[v + 1] < x[v]) r = 1;
            for (uint64_t e = x[v]; r == 0 && e < x[v + 1]; e++) {
                if (a[e - x[0]] >= n) r = 2;
                else if (f32) {
                    float f;
                    memcpy(&f, wb + (e - x[0]), 4);
                    if (!isfinite(f)) r = 4;
                    else if (f < 0) neg = true;
                }
            }
            uint64_t at = 0;
            if (r == 0) {
                const int o = sgi_list_order_check(a + (x[v] - x[0]), wb + (x[v] - x[0]),
                                                   x[v + 1] - x[v], word, f32, &ids, &at);
                r = o == SGI_LIST_ORDER ? 3 : o == SGI_LIST_DUP ? 5 : o == SGI_LIST_NOMEM ? 6 : 0;
            }
            if (r) {
#pragma omp critical(sg_writer_validate)
                if (v < bad) {
                    bad = v;
                    why = r;
                }
            }
        }
        sgi_idset_free(&ids);
    }
    if (neg) w->negative = true;
    if (bad == UINT64_MAX) return SG_OK;
    static const char *const reasons[] = {"", "offsets decrease", "neighbour id out of range",
                                          "neighbour list not strictly increasing",
                                          "weight is NaN or infinite", "a neighbour appears twice",
                                          "out of memory checking its list"};
    const char *why_s = why == 3 && word ? "neighbour list not in weight order (strictly "
                                           "increasing weight, then id)"
                                         : reasons[why];
    return sgi_fail(err, why == 6 ? SG_E_NOMEM : SG_E_INVALID, "vertex %llu: %s",
                    (unsigned long long)(w->v_next + bad), why_s);
}

static sg_status push_x(sg_store_writer *w, uint64_t count, const uint64_t *x, sg_error *err)
{
    uint64_t done = 0;
    while (done < count) {
        qblock *b;
        uint64_t first = w->v_next + done - w->cur.v_begin;
        sg_status st = fill_block(w, SG_ARRAY_X, first, w->e_next + (x[done] - x[0]), &b, err);
        if (st != SG_OK) return st;
        uint64_t take = w->x_elems - b->n;
        if (take > count - done) take = count - done;
        for (uint64_t i = 0; i < take; i++) {
            uint64_t d = x[done + i + 1] - x[done + i];
            if (d > UINT32_MAX)
                return sgi_fail(err, SG_E_RANGE, "vertex %llu has %llu neighbours (at most 2^32-1)",
                                (unsigned long long)(w->v_next + done + i),
                                (unsigned long long)d);
            b->vals[b->n + i] = (uint32_t)d;
        }
        b->n += (uint32_t)take;
        done += take;
        if (b->n == w->x_elems) seal(w, SG_ARRAY_X);
    }
    return SG_OK;
}

static sg_status push_edges(sg_store_writer *w, sg_array arr, const uint32_t *src, uint64_t count,
                            uint64_t first, sg_error *err)
{
    uint64_t done = 0;
    while (done < count) {
        qblock *b;
        sg_status st = fill_block(w, arr, first + done, 0, &b, err);
        if (st != SG_OK) return st;
        uint64_t take = w->e_elems - b->n;
        if (take > count - done) take = count - done;
        memcpy(b->vals + b->n, src + done, take * 4);
        b->n += (uint32_t)take;
        done += take;
        if (b->n == w->e_elems) seal(w, arr);
    }
    return SG_OK;
}

sg_status sg_store_writer_append(sg_store_writer *w, uint64_t count, const uint64_t *x,
                                 const uint32_t *a, const void *wts, sg_error *err)
{
    sg_status st = SG_OK;
    SG_CHECK(w && !w->failed, SG_E_INVALID, err, "append to a writer that has failed");
    SG_CHECK(count <= w->n_vertices - w->v_next, SG_E_INVALID, err,
             "appending %llu vertices after %llu exceeds the %llu declared",
             (unsigned long long)count, (unsigned long long)w->v_next,
             (unsigned long long)w->n_vertices);
    if (count == 0) return SG_OK;
    SG_CHECK(x && (x[count] == x[0] || (a && wts)), SG_E_INVALID, err,
             "append: offsets, neighbours and weights are required");
    if (!sgi_writer_unchecked) SG_TRY(validate(w, count, x, a, wts, err));

    uint64_t v = 0;
    while (v < count) {
        if (!w->shard_open) SG_TRY(open_shard(w, err));
        /* Take vertices until the shard would pass its target size. */
        uint64_t end = v;
        while (end < count) {
            uint64_t add = 8 + 8 * (x[end + 1] - x[end]);
            if (w->shard_raw > 0 && w->shard_raw + add > w->o.shard_bytes) break;
            w->shard_raw += add;
            end++;
        }
        if (end > v) {
            const uint64_t e0 = x[v] - x[0], ne = x[end] - x[v];
            const uint64_t first_e = w->e_next - w->cur.e_begin;
            SG_TRY(push_x(w, end - v, x + v, err));
            SG_TRY(push_edges(w, SG_ARRAY_A, a + e0, ne, first_e, err));
            SG_TRY(push_edges(w, SG_ARRAY_W, (const uint32_t *)wts + e0, ne, first_e, err));
            w->v_next += end - v;
            w->e_next += ne;
            w->cur.v_end = w->v_next;
            w->cur.e_end = w->e_next;
            v = end;
        }
        if (v < count) SG_TRY(close_shard(w, err));
    }
fail:
    return fail_writer(w, st);
}

/* ---------------------------------------------------------------- ids */

sg_status sg_store_writer_append_ids(sg_store_writer *w, const uint64_t *ids, uint64_t count,
                                     sg_error *err)
{
    sg_status st = SG_OK;
    const sgi_io *io = sgi_io_get();
    SG_CHECK(w && !w->failed, SG_E_INVALID, err, "append_ids: the writer has failed");
    SG_CHECK(count <= w->n_vertices - w->ids_next, SG_E_INVALID, err,
             "appending %llu original ids after %llu exceeds the %llu vertices",
             (unsigned long long)count, (unsigned long long)w->ids_next,
             (unsigned long long)w->n_vertices);
    if (count == 0) return SG_OK;
    SG_CHECK(ids, SG_E_INVALID, err, "append_ids: no ids given");
    if (!sgi_writer_unchecked) {
        uint64_t prev = w->ids_last;
        for (uint64_t i = 0; i < count; i++) {
            SG_CHECK(i + w->ids_next == 0 || ids[i] > prev, SG_E_INVALID, err,
                     "vertex %llu: original id %llu is not above the previous one (%llu)",
                     (unsigned long long)(w->ids_next + i), (unsigned long long)ids[i],
                     (unsigned long long)prev);
            prev = ids[i];
        }
    }
    if (w->ids_fd < 0) {
        SG_CHECK(w->ids_next == 0, SG_E_INVALID, err, "append_ids: the ids file was closed");
        if (!w->ids_path)
            SG_ALLOC(w->ids_path, sgi_path_join(w->tmp_path, SGI_IDS_NAME), err, "a path");
        int fd = io->open(w->ids_path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0) {
            st = sgi_fail_errno(err, -fd, "creating %s", w->ids_path);
            goto fail;
        }
        w->ids_fd = fd;
    }
    SG_TRY(sgi_write_all(w->ids_fd, ids, count * sizeof *ids, w->ids_next * sizeof *ids,
                         w->ids_path, err));
    w->ids_crc = sgi_crc32c(w->ids_crc, ids, count * sizeof *ids);
    w->ids_next += count;
    w->ids_last = ids[count - 1];
fail:
    return w ? fail_writer(w, st) : st;
}

/* Makes the ids file durable and closes it. */
static sg_status finish_ids(sg_store_writer *w, sg_error *err)
{
    const sgi_io *io = sgi_io_get();
    if (w->ids_next == 0) return SG_OK;
    if (w->ids_next != w->n_vertices)
        return sgi_fail(err, SG_E_INVALID, "finish: %llu of %llu original ids appended",
                        (unsigned long long)w->ids_next, (unsigned long long)w->n_vertices);
    int r = io->fsync(w->ids_fd);
    if (r < 0) return sgi_fail_errno(err, -r, "fsync of %s", w->ids_path);
    r = io->close(w->ids_fd);
    w->ids_fd = -1;
    if (r < 0) return sgi_fail_errno(err, -r, "closing %s", w->ids_path);
    return SG_OK;
}

/* ---------------------------------------------------------------- finish */

static sg_status write_manifest(sg_store_writer *w, sg_error *err)
{
    sg_status st = SG_OK;
    const sgi_io *io = sgi_io_get();
    uint8_t *buf = NULL;
    char *path = NULL;
    int fd = -1;
    size_t clen = strlen(w->creator);
    if (clen > 255) clen = 255;
    size_t total = sizeof(sgi_manifest_header) + w->n_shards * sizeof(sgi_shard_entry) + clen + 4;
    SG_ALLOC(buf, sgi_calloc(1, total), err, "the manifest");
    sgi_manifest_header h = {
        .version = SGI_FORMAT_VERSION,
        .header_bytes = sizeof h,
        .n_vertices = w->n_vertices,
        .n_edges = w->e_next,
        .flags = (w->o.directed ? SGI_FLAG_DIRECTED : 0) |
                 (w->negative ? SGI_FLAG_NEGATIVE_WEIGHTS : 0) |
                 (w->ids_next ? SGI_FLAG_IDS : 0) |
                 (w->o.weight_order ? SGI_FLAG_WEIGHT_ORDER : 0),
        .weight_type = (uint32_t)w->o.weight_type,
        .n_shards = (uint32_t)w->n_shards,
        .shard_entry_bytes = sizeof(sgi_shard_entry),
        .x_block_elems = w->x_elems,
        .e_block_elems = w->e_elems,
        .shard_target_bytes = w->o.shard_bytes,
        .created_unix = (uint64_t)time(NULL),
        .creator_bytes = (uint32_t)clen,
        .zstd_level = (uint32_t)w->o.zstd_level,
        .ids_bytes = w->ids_next * sizeof(uint64_t),
        .ids_crc = w->ids_next ? w->ids_crc : 0,
    };
    memcpy(h.magic, SGI_MANIFEST_MAGIC, 8);
    size_t off = 0;
    memcpy(buf, &h, sizeof h);
    off += sizeof h;
    if (w->n_shards) memcpy(buf + off, w->shards, w->n_shards * sizeof(sgi_shard_entry));
    off += w->n_shards * sizeof(sgi_shard_entry);
    memcpy(buf + off, w->creator, clen);
    off += clen;
    uint32_t crc = sgi_crc32c(0, buf, off);
    memcpy(buf + off, &crc, 4);

    SG_ALLOC(path, sgi_path_join(w->tmp_path, SGI_MANIFEST_NAME), err, "a path");
    fd = io->open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        st = sgi_fail_errno(err, -fd, "creating %s", path);
        goto fail;
    }
    SG_TRY(sgi_write_all(fd, buf, total, 0, path, err));
    int r = io->fsync(fd);
    if (r < 0) {
        st = sgi_fail_errno(err, -r, "fsync of %s", path);
        goto fail;
    }
fail:
    if (fd >= 0) {
        int r = io->close(fd);
        if (r < 0 && st == SG_OK) st = sgi_fail_errno(err, -r, "closing %s", path);
    }
    sgi_free(path);
    sgi_free(buf);
    return st;
}

sg_status sg_store_writer_finish(sg_store_writer *w, sg_error *err)
{
    sg_status st = SG_OK;
    const sgi_io *io = sgi_io_get();
    SG_CHECK(w, SG_E_INVALID, err, "finish: no writer");
    SG_CHECK(!w->failed, SG_E_INVALID, err, "finish: the writer failed earlier");
    SG_CHECK(w->v_next == w->n_vertices, SG_E_INVALID, err,
             "finish: %llu of %llu vertices appended", (unsigned long long)w->v_next,
             (unsigned long long)w->n_vertices);
    if (w->shard_open) SG_TRY(close_shard(w, err));
    SG_TRY(sync_shard_files(w, w->n_shards, err));
    SG_TRY(finish_ids(w, err));
    SG_TRY(write_manifest(w, err));
    SG_TRY(sgi_fsync_dir(w->tmp_path, err));

    bool is_dir = false;
    if (path_exists(w->final_path, &is_dir)) {
        SG_CHECK(w->o.force && is_dir && is_store_dir(w->final_path), SG_E_EXISTS, err,
                 "%s appeared while writing; not replacing it", w->final_path);
        int r = io->rename(w->tmp_path, w->final_path, true);
        if (r < 0) {
            st = sgi_fail_errno(err, -r, "replacing %s", w->final_path);
            goto fail;
        }
        sgi_remove_tree(w->tmp_path); /* now the old store */
    } else {
        int r = io->rename(w->tmp_path, w->final_path, false);
        if (r < 0) {
            st = sgi_fail_errno(err, -r, "renaming %s to %s", w->tmp_path, w->final_path);
            goto fail;
        }
    }
    sgi_free(w->tmp_path);
    w->tmp_path = NULL; /* nothing left to remove */
    SG_TRY(sgi_fsync_dir(w->parent, err));
fail:
    sg_store_writer_abort(w);
    return st;
}
