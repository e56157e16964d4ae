/* The store reader.
 *
 * Open: the manifest and every shard file are mapped read-only; headers,
 * footers and indexes are verified (checksums, ranges, coverage).
 * Single-vertex access decodes the blocks holding that vertex from the maps.
 * Bulk reads plan the blocks a request touches, merge them into aligned read
 * requests grouped in staging windows, and keep two windows in flight
 * through io_uring while OpenMP threads verify and decode the third straight
 * into the caller's buffers. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define ALIGN 4096u
#define MAX_REQUEST (4u << 20)
#define NSLOTS 3

static const char array_letter[3] = {'X', 'A', 'W'};

/* ---------------------------------------------------------------- open */

static sg_status map_file(const char *path, int *fd_out, const uint8_t **map, size_t *len,
                          sg_error *err)
{
    const sgi_io *io = sgi_io_get();
    int fd = io->open(path, O_RDONLY, 0);
    if (fd < 0) return sgi_fail_errno(err, -fd, "opening %s", path);
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        io->close(fd);
        return sgi_fail_errno(err, e, "stat of %s", path);
    }
    *len = (size_t)sb.st_size;
    *map = NULL;
    if (*len > 0) {
        void *p = mmap(NULL, *len, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            io->close(fd);
            return sgi_fail_errno(err, e, "mapping %s", path);
        }
        /* Lookups touch a header, an index and single blocks: without this
         * the kernel's read-around (8 MiB on some VMs) reads far more. */
        (void)madvise(p, *len, MADV_RANDOM);
        *map = p;
    }
    *fd_out = fd;
    return SG_OK;
}

static sg_status check_manifest(sg_store *s, const char *mpath, const uint8_t *m, size_t len,
                                sg_error *err)
{
    sgi_manifest_header h;
    if (len < sizeof h + 4)
        return sgi_fail(err, SG_E_CORRUPT, "%s: truncated (%zu bytes)", mpath, len);
    memcpy(&h, m, sizeof h);
    if (memcmp(h.magic, SGI_MANIFEST_MAGIC, 8) != 0)
        return sgi_fail(err, SG_E_CORRUPT, "%s: bad magic (not a spillgraph store manifest)",
                        mpath);
    if (h.version != SGI_FORMAT_VERSION)
        return sgi_fail(err, SG_E_FORMAT, "%s: format version %u (this build reads %u)", mpath,
                        h.version, SGI_FORMAT_VERSION);
    uint64_t need = (uint64_t)sizeof h + (uint64_t)h.n_shards * sizeof(sgi_shard_entry) +
                    h.creator_bytes + 4;
    if (h.header_bytes != sizeof h || h.shard_entry_bytes != sizeof(sgi_shard_entry) ||
        need != len)
        return sgi_fail(err, SG_E_CORRUPT, "%s: size %zu does not match its header (%llu)",
                        mpath, len, (unsigned long long)need);
    uint32_t crc;
    memcpy(&crc, m + len - 4, 4);
    if (sgi_crc32c(0, m, len - 4) != crc)
        return sgi_fail(err, SG_E_CORRUPT, "%s: checksum mismatch", mpath);
    if (h.weight_type != SG_WEIGHT_U32 && h.weight_type != SG_WEIGHT_F32)
        return sgi_fail(err, SG_E_FORMAT, "%s: unknown weight type %u", mpath, h.weight_type);
    if (h.flags & ~SGI_FLAGS_KNOWN)
        return sgi_fail(err, SG_E_FORMAT, "%s: flags 0x%x unknown to this build", mpath,
                        h.flags & ~SGI_FLAGS_KNOWN);
    if (h.n_vertices > (1ull << 32) || h.x_block_elems == 0 || h.e_block_elems == 0 ||
        h.e_block_elems > (16u << 20) || h.x_block_elems > (8u << 20))
        return sgi_fail(err, SG_E_CORRUPT, "%s: implausible header values", mpath);
    s->hdr = h;
    size_t cl = h.creator_bytes < sizeof s->creator ? h.creator_bytes : sizeof s->creator - 1;
    memcpy(s->creator, m + sizeof h + h.n_shards * sizeof(sgi_shard_entry), cl);
    s->creator[cl] = '\0';
    return SG_OK;
}

/* Verifies a shard's header, footer and index against its manifest entry. */
static sg_status check_shard(const sg_store *s, uint32_t id, sgi_shard *sh, sg_error *err)
{
    sg_status st = SG_OK;
    const char *f = sh->file;
    const sgi_shard_entry *me = &sh->meta;
    const size_t len = sh->map_bytes;
    SG_CHECK(len >= sizeof(sgi_shard_header) + sizeof(sgi_shard_footer) && len == me->file_bytes,
             SG_E_CORRUPT, err, "%s: truncated or wrong size (%zu bytes, expected %llu)", f, len,
             (unsigned long long)me->file_bytes);
    sgi_shard_header h;
    memcpy(&h, sh->map, sizeof h);
    SG_CHECK(memcmp(h.magic, SGI_SHARD_MAGIC, 8) == 0, SG_E_CORRUPT, err, "%s: bad magic", f);
    SG_CHECK(sgi_crc32c(0, &h, 60) == h.header_crc, SG_E_CORRUPT, err,
             "%s: header checksum mismatch", f);
    SG_CHECK(h.version == SGI_FORMAT_VERSION && h.shard_id == id && h.v_begin == me->v_begin &&
                 h.v_end == me->v_end && h.e_begin == me->e_begin && h.e_end == me->e_end &&
                 h.weight_type == s->hdr.weight_type,
             SG_E_CORRUPT, err, "%s: header does not match the manifest (shard %u)", f, id);
    sgi_shard_footer ft;
    memcpy(&ft, sh->map + len - sizeof ft, sizeof ft);
    SG_CHECK(memcmp(ft.magic, SGI_FOOTER_MAGIC, 8) == 0 && sgi_crc32c(0, &ft, 20) == ft.footer_crc,
             SG_E_CORRUPT, err, "%s: bad footer (truncated or overwritten)", f);
    SG_CHECK(ft.shard_id == id && ft.index_crc == me->index_crc &&
                 ft.index_offset + (uint64_t)ft.n_entries * sizeof(sgi_block_entry) +
                         sizeof ft == len &&
                 ft.index_offset >= sizeof h,
             SG_E_CORRUPT, err, "%s: footer does not match the manifest", f);
    const size_t ib = (size_t)ft.n_entries * sizeof(sgi_block_entry);
    SG_CHECK(sgi_crc32c(0, sh->map + ft.index_offset, ib) == ft.index_crc, SG_E_CORRUPT, err,
             "%s: block index checksum mismatch", f);
    SG_ALLOC(sh->index, sgi_malloc(ib + sizeof(sgi_block_entry)), err, "a block index");
    memcpy(sh->index, sh->map + ft.index_offset, ib);

    /* Coverage: each array's blocks tile its element range in order. */
    size_t k = 0;
    for (int a = 0; a < SG_NARRAYS; a++) {
        const uint64_t total = a == SG_ARRAY_X ? me->v_end - me->v_begin : me->e_end - me->e_begin;
        const uint32_t cap = a == SG_ARRAY_X ? s->hdr.x_block_elems : s->hdr.e_block_elems;
        sh->blocks[a] = sh->index + k;
        uint64_t next = 0, stored = 0;
        for (uint32_t b = 0; b < me->n_blocks[a]; b++, k++) {
            SG_CHECK(k < ft.n_entries, SG_E_CORRUPT, err, "%s: index has too few blocks", f);
            const sgi_block_entry *e = &sh->index[k];
            SG_CHECK(e->array == a && e->first == next && e->n_elems > 0 && e->n_elems <= cap &&
                         e->offset >= sizeof h && e->offset + e->stored_bytes <= ft.index_offset,
                     SG_E_CORRUPT, err, "%s: block %c#%u: bad index entry", f, array_letter[a], b);
            next += e->n_elems;
            stored += e->stored_bytes;
        }
        SG_CHECK(next == total && stored == me->stored_bytes[a], SG_E_CORRUPT, err,
                 "%s: %c blocks cover %llu of %llu elements", f, array_letter[a],
                 (unsigned long long)next, (unsigned long long)total);
    }
    SG_CHECK(k == ft.n_entries, SG_E_CORRUPT, err, "%s: index has extra blocks", f);
    if (me->n_blocks[SG_ARRAY_X] > 0)
        SG_CHECK(sh->blocks[SG_ARRAY_X][0].base == me->e_begin, SG_E_CORRUPT, err,
                 "%s: block X#0 starts at edge %llu, shard at %llu", f,
                 (unsigned long long)sh->blocks[SG_ARRAY_X][0].base,
                 (unsigned long long)me->e_begin);
fail:
    return st;
}

/* The id-mapping file: present, and as long as the manifest says. Its
 * contents are verified by sg_store_check_ids (or the first lookup). */
static sg_status open_ids(sg_store *s, sg_error *err)
{
    sg_status st = SG_OK;
    const sgi_io *io = sgi_io_get();
    SG_ALLOC(s->ids_path, sgi_path_join(s->path, SGI_IDS_NAME), err, "a path");
    SG_CHECK(s->hdr.ids_bytes == s->hdr.n_vertices * sizeof(uint64_t), SG_E_CORRUPT, err,
             "%s/%s: the manifest gives %llu bytes of ids for %llu vertices", s->path,
             SGI_MANIFEST_NAME, (unsigned long long)s->hdr.ids_bytes,
             (unsigned long long)s->hdr.n_vertices);
    int fd = io->open(s->ids_path, O_RDONLY, 0);
    if (fd < 0) {
        if (fd == -ENOENT)
            st = sgi_fail(err, SG_E_CORRUPT, "%s: the id-mapping file %s is missing", s->path,
                          SGI_IDS_NAME);
        else
            st = sgi_fail_errno(err, -fd, "opening %s", s->ids_path);
        goto fail;
    }
    s->ids_fd = fd;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        st = sgi_fail_errno(err, errno, "stat of %s", s->ids_path);
        goto fail;
    }
    SG_CHECK((uint64_t)sb.st_size == s->hdr.ids_bytes, SG_E_CORRUPT, err,
             "%s: truncated or wrong size (%llu bytes, expected %llu)", s->ids_path,
             (unsigned long long)sb.st_size, (unsigned long long)s->hdr.ids_bytes);
fail:
    return st;
}

sg_status sg_store_open(const char *path, sg_store **out, sg_error *err)
{
    sg_status st = SG_OK;
    sg_store *s = NULL;
    char *mpath = NULL;
    const uint8_t *m = NULL;
    size_t mlen = 0;
    int mfd = -1;
    SG_CHECK(path && *path, SG_E_INVALID, err, "no store path given");
    struct stat sb;
    if (stat(path, &sb) != 0) {
        st = sgi_fail_errno(err, errno, "%s", path);
        goto fail;
    }
    SG_CHECK(S_ISDIR(sb.st_mode), SG_E_FORMAT, err,
             "%s is not a store (a store is a directory with a manifest)", path);
    SG_ALLOC(s, sgi_calloc(1, sizeof *s), err, "a store handle");
    s->ids_fd = -1;
    SG_ALLOC(s->path, sgi_strdup(path), err, "a path");
    SG_ALLOC(mpath, sgi_path_join(path, SGI_MANIFEST_NAME), err, "a path");
    st = map_file(mpath, &mfd, &m, &mlen, err);
    if (st == SG_E_NOTFOUND)
        st = sgi_fail(err, SG_E_NOTFOUND, "%s: no %s (not a spillgraph store, or incomplete)",
                      path, SGI_MANIFEST_NAME);
    SG_TRY(st);
    SG_TRY(check_manifest(s, mpath, m, mlen, err));

    const sgi_manifest_header *h = &s->hdr;
    SG_ALLOC(s->shards, sgi_calloc(h->n_shards + 1, sizeof *s->shards), err, "the shard table");
    for (uint32_t i = 0; i < h->n_shards; i++) s->shards[i].fd = -1;
    s->n_shards = h->n_shards;
    uint64_t v = 0, e = 0;
    for (uint32_t i = 0; i < h->n_shards; i++) {
        sgi_shard *sh = &s->shards[i];
        memcpy(&sh->meta, m + sizeof *h + i * sizeof(sgi_shard_entry), sizeof sh->meta);
        sgi_shard_file_name(sh->file, i);
        SG_CHECK(sh->meta.v_begin == v && sh->meta.v_end > v && sh->meta.e_begin == e &&
                     sh->meta.e_end >= e,
                 SG_E_CORRUPT, err, "%s: shard table entry %u is inconsistent", mpath, i);
        v = sh->meta.v_end;
        e = sh->meta.e_end;
        SG_ALLOC(sh->path, sgi_path_join(path, sh->file), err, "a path");
        st = map_file(sh->path, &sh->fd, &sh->map, &sh->map_bytes, err);
        if (st == SG_E_NOTFOUND)
            st = sgi_fail(err, SG_E_CORRUPT, "%s: shard file %s is missing", path, sh->file);
        SG_TRY(st);
        SG_TRY(check_shard(s, i, sh, err));
    }
    SG_CHECK(v == h->n_vertices && e == h->n_edges, SG_E_CORRUPT, err,
             "%s: shards cover %llu vertices and %llu edges, the header says %llu and %llu",
             mpath, (unsigned long long)v, (unsigned long long)e,
             (unsigned long long)h->n_vertices, (unsigned long long)h->n_edges);
    if (h->flags & SGI_FLAG_IDS) SG_TRY(open_ids(s, err));
    *out = s;
    s = NULL;
fail:
    if (m) munmap((void *)m, mlen);
    if (mfd >= 0) sgi_io_get()->close(mfd);
    sgi_free(mpath);
    sg_store_close(s);
    return st;
}

void sg_store_close(sg_store *s)
{
    if (!s) return;
    if (s->shards)
        for (uint32_t i = 0; i < s->n_shards; i++) {
            sgi_shard *sh = &s->shards[i];
            if (sh->map) munmap((void *)sh->map, sh->map_bytes);
            if (sh->fd >= 0) sgi_io_get()->close(sh->fd);
            sgi_free(sh->index);
            sgi_free(sh->path);
        }
    sgi_free(s->shards);
    if (s->ids_fd >= 0) sgi_io_get()->close(s->ids_fd);
    sgi_free(s->ids_path);
    sgi_free(s->path);
    sgi_free(s);
}

const char *sg_store_path(const sg_store *s) { return s->path; }

void sg_store_get_info(const sg_store *s, sg_store_info *info)
{
    memset(info, 0, sizeof *info);
    const sgi_manifest_header *h = &s->hdr;
    info->n_vertices = h->n_vertices;
    info->n_edges = h->n_edges;
    info->directed = (h->flags & SGI_FLAG_DIRECTED) != 0;
    info->negative_weights = (h->flags & SGI_FLAG_NEGATIVE_WEIGHTS) != 0;
    info->weight_type = (sg_weight_type)h->weight_type;
    info->n_shards = s->n_shards;
    info->raw_bytes[SG_ARRAY_X] = 8 * (h->n_vertices + 1);
    info->raw_bytes[SG_ARRAY_A] = 4 * h->n_edges;
    info->raw_bytes[SG_ARRAY_W] = 4 * h->n_edges;
    info->file_bytes = sizeof(sgi_manifest_header) + h->n_shards * sizeof(sgi_shard_entry) +
                       h->creator_bytes + 4;
    for (uint32_t i = 0; i < s->n_shards; i++) {
        for (int a = 0; a < SG_NARRAYS; a++) {
            info->stored_bytes[a] += s->shards[i].meta.stored_bytes[a];
            info->n_blocks[a] += s->shards[i].meta.n_blocks[a];
        }
        info->file_bytes += s->shards[i].meta.file_bytes;
    }
    info->created_unix = h->created_unix;
    memcpy(info->creator, s->creator, sizeof info->creator);
    info->has_original_ids = (h->flags & SGI_FLAG_IDS) != 0;
    info->weight_order = (h->flags & SGI_FLAG_WEIGHT_ORDER) != 0;
    if (info->has_original_ids) info->file_bytes += h->ids_bytes;
}

sg_status sg_store_shard_info(const sg_store *s, uint32_t shard, sg_shard_info *out, sg_error *err)
{
    if (shard >= s->n_shards)
        return sgi_fail(err, SG_E_INVALID, "shard %u: the store has %u", shard, s->n_shards);
    const sgi_shard *sh = &s->shards[shard];
    sg_shard_info r;
    memset(&r, 0, sizeof r);
    r.v_begin = sh->meta.v_begin;
    r.v_end = sh->meta.v_end;
    r.e_begin = sh->meta.e_begin;
    r.e_end = sh->meta.e_end;
    for (int a = 0; a < SG_NARRAYS; a++) {
        r.stored_bytes[a] = sh->meta.stored_bytes[a];
        r.n_blocks[a] = sh->meta.n_blocks[a];
    }
    memcpy(r.file, sh->file, sizeof r.file);
    *out = r;
    return SG_OK;
}

/* ---------------------------------------------------------------- ids */

#define IDS_CHUNK ((size_t)1 << 17) /* ids per read: 1 MiB */

sg_status sg_store_check_ids(sg_store *s, sg_error *err)
{
    sg_status st = SG_OK;
    uint64_t *buf = NULL;
    SG_CHECK(s, SG_E_INVALID, err, "check_ids: no store given");
    if (s->ids_fd < 0) return SG_OK;
    const uint64_t n = s->hdr.n_vertices;
    SG_ALLOC(buf, sgi_malloc(IDS_CHUNK * sizeof *buf), err, "an id buffer");
    uint32_t crc = 0;
    uint64_t prev = 0;
    for (uint64_t i = 0; i < n; i += IDS_CHUNK) {
        const size_t k = n - i < IDS_CHUNK ? (size_t)(n - i) : IDS_CHUNK;
        SG_TRY(sgi_read_all(s->ids_fd, buf, k * sizeof *buf, i * sizeof *buf, s->ids_path, err));
        crc = sgi_crc32c(crc, buf, k * sizeof *buf);
        for (size_t j = 0; j < k; j++) {
            SG_CHECK(i + j == 0 || buf[j] > prev, SG_E_CORRUPT, err,
                     "%s: vertex %llu: original id %llu is not above the previous one (%llu)",
                     s->ids_path, (unsigned long long)(i + j), (unsigned long long)buf[j],
                     (unsigned long long)prev);
            prev = buf[j];
        }
    }
    SG_CHECK(crc == s->hdr.ids_crc, SG_E_CORRUPT, err, "%s: checksum mismatch", s->ids_path);
    __atomic_store_n(&s->ids_verified, 1, __ATOMIC_RELEASE);
fail:
    sgi_free(buf);
    return st;
}

sg_status sg_store_original_ids(sg_store *s, uint64_t v_begin, uint64_t count, uint64_t *out,
                                sg_error *err)
{
    sg_status st = SG_OK;
    SG_CHECK(s && (out || count == 0), SG_E_INVALID, err, "original_ids: no store or output");
    SG_CHECK(s->ids_fd >= 0, SG_E_INVALID, err,
             "%s: the store keeps no original ids (it was not made with renumbered ids)",
             s->path);
    SG_CHECK(v_begin <= s->hdr.n_vertices && count <= s->hdr.n_vertices - v_begin, SG_E_INVALID,
             err, "vertices [%llu, %llu + %llu) outside [0, %llu)", (unsigned long long)v_begin,
             (unsigned long long)v_begin, (unsigned long long)count,
             (unsigned long long)s->hdr.n_vertices);
    if (!__atomic_load_n(&s->ids_verified, __ATOMIC_ACQUIRE)) SG_TRY(sg_store_check_ids(s, err));
    if (count)
        SG_TRY(sgi_read_all(s->ids_fd, out, count * sizeof *out, v_begin * sizeof *out,
                            s->ids_path, err));
fail:
    return st;
}

/* ---------------------------------------------------------------- lookup */

/* First shard whose range end (vertex or edge) lies past `key`. */
static uint32_t shard_search(const sg_store *s, uint64_t key, bool by_edge)
{
    uint32_t lo = 0, hi = s->n_shards;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        const sgi_shard_entry *m = &s->shards[mid].meta;
        if ((by_edge ? m->e_end : m->v_end) > key) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

uint32_t sgi_shard_of_vertex(const sg_store *s, uint64_t v) { return shard_search(s, v, false); }
uint32_t sgi_shard_of_edge(const sg_store *s, uint64_t e) { return shard_search(s, e, true); }

/* Block of array `a` in shard `sh` holding shard-relative element r. */
static uint32_t block_of(const sgi_shard *sh, sg_array a, uint64_t r)
{
    const sgi_block_entry *b = sh->blocks[a];
    uint32_t lo = 0, hi = sh->meta.n_blocks[a];
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (b[mid].first <= r) lo = mid;
        else hi = mid;
    }
    return lo;
}

static sg_status block_error(const sgi_shard *sh, sg_array a, uint32_t block, sg_status code,
                             const char *why, sg_error *err)
{
    const sgi_block_entry *e = &sh->blocks[a][block];
    return sgi_fail(err, code, "%s block %c#%u (bytes %llu..%llu): %s", sh->path,
                    array_letter[a], block, (unsigned long long)e->offset,
                    (unsigned long long)(e->offset + e->stored_bytes), why);
}

/* Verifies and decodes a block whose stored bytes are at `src`. */
static sg_status decode_at(const sgi_shard *sh, sg_array a, uint32_t block, const uint8_t *src,
                           sgi_codec *c, const uint32_t **vals, sg_error *err)
{
    const sgi_block_entry *e = &sh->blocks[a][block];
    if (sgi_crc32c(0, src, e->stored_bytes) != e->crc)
        return block_error(sh, a, block, SG_E_CORRUPT, "checksum mismatch", err);
    sg_error inner = {0};
    sg_status st = sgi_codec_decode(c, e, src, vals, &inner);
    if (st != SG_OK) return block_error(sh, a, block, st, inner.msg, err);
    return SG_OK;
}

sg_status sgi_block_decode_mapped(const sg_store *s, uint32_t shard, sg_array arr, uint32_t block,
                                  sgi_codec *c, const uint32_t **vals, sg_error *err)
{
    const sgi_shard *sh = &s->shards[shard];
    return decode_at(sh, arr, block, sh->map + sh->blocks[arr][block].offset, c, vals, err);
}

static sgi_codec *new_codec(const sg_store *s)
{
    uint32_t n = s->hdr.e_block_elems > s->hdr.x_block_elems ? s->hdr.e_block_elems
                                                              : s->hdr.x_block_elems;
    return sgi_codec_new(1, n);
}

/* Offset of vertex v's list and its degree, from the mapped X block. */
static sg_status vertex_offset(const sg_store *s, sgi_codec *c, uint64_t v, uint64_t *off,
                               uint64_t *deg, sg_error *err)
{
    if (v >= s->hdr.n_vertices) {
        *off = s->hdr.n_edges;
        *deg = 0;
        return SG_OK;
    }
    uint32_t si = sgi_shard_of_vertex(s, v);
    const sgi_shard *sh = &s->shards[si];
    uint64_t r = v - sh->meta.v_begin;
    uint32_t b = block_of(sh, SG_ARRAY_X, r);
    const uint32_t *vals;
    sg_status st = sgi_block_decode_mapped(s, si, SG_ARRAY_X, b, c, &vals, err);
    if (st != SG_OK) return st;
    const sgi_block_entry *e = &sh->blocks[SG_ARRAY_X][b];
    sgi_untransform_x(vals, e->base, r - e->first, 1, off);
    *deg = vals[r - e->first];
    return SG_OK;
}

sg_status sg_store_edge_range(sg_store *s, uint64_t v_begin, uint64_t v_end, uint64_t *e_begin,
                              uint64_t *e_end, sg_error *err)
{
    sg_status st = SG_OK;
    sgi_codec *c = NULL;
    uint64_t b = 0, e = 0, deg;
    SG_CHECK(v_begin <= v_end && v_end <= s->hdr.n_vertices, SG_E_INVALID, err,
             "vertex range [%llu, %llu) outside [0, %llu)", (unsigned long long)v_begin,
             (unsigned long long)v_end, (unsigned long long)s->hdr.n_vertices);
    SG_ALLOC(c, new_codec(s), err, "a decoder");
    SG_TRY(vertex_offset(s, c, v_begin, &b, &deg, err));
    if (v_end == v_begin) e = b;
    else SG_TRY(vertex_offset(s, c, v_end, &e, &deg, err));
    *e_begin = b;
    *e_end = e;
fail:
    sgi_codec_free(c);
    return st;
}

sg_status sg_store_neighbors(sg_store *s, uint32_t v, uint64_t *degree, uint32_t *nbrs, void *wts,
                             uint64_t cap, sg_error *err)
{
    sg_status st = SG_OK;
    sgi_codec *c = NULL;
    SG_CHECK(v < s->hdr.n_vertices, SG_E_INVALID, err, "vertex %u out of range (n = %llu)", v,
             (unsigned long long)s->hdr.n_vertices);
    SG_ALLOC(c, new_codec(s), err, "a decoder");
    uint64_t off, deg;
    SG_TRY(vertex_offset(s, c, v, &off, &deg, err));
    const uint32_t si = sgi_shard_of_vertex(s, v);
    const sgi_shard *sh = &s->shards[si];
    const uint64_t want = deg < cap ? deg : cap;
    for (int a = SG_ARRAY_A; a <= SG_ARRAY_W; a++) {
        uint32_t *dst = a == SG_ARRAY_A ? nbrs : (uint32_t *)wts;
        if (!dst) continue;
        uint64_t r = off - sh->meta.e_begin, done = 0;
        while (done < want) {
            uint32_t b = block_of(sh, (sg_array)a, r + done);
            const uint32_t *vals;
            SG_TRY(sgi_block_decode_mapped(s, si, (sg_array)a, b, c, &vals, err));
            const sgi_block_entry *e = &sh->blocks[a][b];
            uint64_t skip = r + done - e->first;
            uint64_t take = e->n_elems - skip;
            if (take > want - done) take = want - done;
            if (a == SG_ARRAY_A) sgi_untransform_a(vals, skip, take, dst + done);
            else memcpy(dst + done, vals + skip, take * 4);
            done += take;
        }
    }
    *degree = deg;
fail:
    sgi_codec_free(c);
    return st;
}

/* ---------------------------------------------------------------- bulk read */

typedef struct piece {
    uint32_t shard;
    uint8_t array;
    uint32_t block;
    uint64_t skip, count; /* elements of the block wanted */
    void *dst;
    uint8_t *dst8;        /* 24-bit weights: dst gets their low 16 bits, dst8 the rest */
    bool x_last;          /* also write the offset after the last vertex */
    uint32_t req;         /* read request holding it */
    uint64_t off;         /* the block's file offset: reads go in file order */
} piece;

static int cmp_piece(const void *x, const void *y)
{
    const piece *a = x, *b = y;
    if (a->shard != b->shard) return a->shard < b->shard ? -1 : 1;
    return a->off < b->off ? -1 : a->off > b->off;
}

typedef struct request {
    uint32_t shard;
    uint32_t window;
    uint64_t file_off;    /* aligned start */
    uint64_t len;         /* aligned length */
    uint64_t need;        /* bytes that must arrive (the rest may be past EOF) */
    uint64_t done;
    uint64_t buf_off;     /* position in its window's slot */
} request;

typedef struct window {
    uint32_t first_req, n_req;
    uint32_t first_piece, n_piece;
    uint64_t bytes;
    uint32_t pending;
} window;

typedef struct plan {
    piece *pieces;
    size_t n_pieces, cap_pieces;
    request *reqs;
    size_t n_reqs, cap_reqs;
    window *wins;
    size_t n_wins, cap_wins;
} plan;

#define GROW(arr, n, cap, err, what)                                                       \
    do {                                                                                   \
        if ((n) == (cap)) {                                                                \
            size_t nc_ = (cap) ? 2 * (cap) : 64;                                           \
            void *p_ = sgi_realloc((arr), nc_ * sizeof *(arr));                             \
            if (!p_) return sgi_fail((err), SG_E_NOMEM, "out of memory planning %s", what); \
            (arr) = p_;                                                                    \
            (cap) = nc_;                                                                   \
        }                                                                                  \
    } while (0)

#define SG_GROW_ONE(arr, n, cap, err)                                                      \
    do {                                                                                   \
        if ((n) == (cap)) {                                                                \
            void *p_ = sgi_realloc((arr), ((cap) + 1) * sizeof *(arr));                    \
            SG_CHECK(p_, SG_E_NOMEM, (err), "out of memory planning a read");              \
            (arr) = p_;                                                                    \
            (cap)++;                                                                       \
        }                                                                                  \
    } while (0)

/* Pieces of array a covering global elements [g0, g1) (vertices for X);
 * with dst8, 24-bit weights (dst their low 16 bits). */
static sg_status plan_array(const sg_store *s, plan *p, sg_array a, uint64_t g0, uint64_t g1,
                            void *dst, uint8_t *dst8, sg_error *err)
{
    const size_t esz = a == SG_ARRAY_X ? 8 : dst8 ? 2 : 4;
    uint64_t g = g0;
    while (g < g1) {
        uint32_t si = a == SG_ARRAY_X ? sgi_shard_of_vertex(s, g) : sgi_shard_of_edge(s, g);
        const sgi_shard *sh = &s->shards[si];
        const uint64_t base = a == SG_ARRAY_X ? sh->meta.v_begin : sh->meta.e_begin;
        const uint64_t end = a == SG_ARRAY_X ? sh->meta.v_end : sh->meta.e_end;
        uint64_t r = g - base;
        uint32_t b = block_of(sh, a, r);
        while (g < g1 && g < end) {
            const sgi_block_entry *e = &sh->blocks[a][b];
            uint64_t skip = r - e->first;
            uint64_t take = e->n_elems - skip;
            if (take > g1 - g) take = g1 - g;
            GROW(p->pieces, p->n_pieces, p->cap_pieces, err, "a read");
            p->pieces[p->n_pieces++] = (piece){.shard = si, .array = (uint8_t)a, .block = b,
                                               .skip = skip, .count = take,
                                               .dst = (uint8_t *)dst + (g - g0) * esz,
                                               .dst8 = dst8 ? dst8 + (g - g0) : NULL,
                                               .off = e->offset};
            g += take;
            r += take;
            b++;
        }
    }
    return SG_OK;
}

/* Groups pieces into aligned requests and windows of at most win_bytes. */
static sg_status plan_io(const sg_store *s, plan *p, uint64_t win_bytes, sg_error *err)
{
    window *w = NULL;
    for (size_t i = 0; i < p->n_pieces; i++) {
        piece *pc = &p->pieces[i];
        const sgi_shard *sh = &s->shards[pc->shard];
        const sgi_block_entry *e = &sh->blocks[pc->array][pc->block];
        uint64_t start = e->offset / ALIGN * ALIGN;
        uint64_t end = (e->offset + e->stored_bytes + ALIGN - 1) / ALIGN * ALIGN;
        request *last = p->n_reqs ? &p->reqs[p->n_reqs - 1] : NULL;
        if (last && last->shard == pc->shard && start >= last->file_off &&
            start <= last->file_off + last->len && end - last->file_off <= MAX_REQUEST &&
            end - last->file_off <= win_bytes &&
            w->bytes + (end > last->file_off + last->len ? end - last->file_off - last->len : 0) <=
                win_bytes) {
            if (end > last->file_off + last->len) {
                w->bytes += end - last->file_off - last->len;
                last->len = end - last->file_off;
            }
            uint64_t need = e->offset + e->stored_bytes - last->file_off;
            if (need > last->need) last->need = need;
        } else {
            if (!w || w->bytes + (end - start) > win_bytes) {
                GROW(p->wins, p->n_wins, p->cap_wins, err, "a read");
                w = &p->wins[p->n_wins++];
                *w = (window){.first_req = (uint32_t)p->n_reqs, .first_piece = (uint32_t)i};
            }
            GROW(p->reqs, p->n_reqs, p->cap_reqs, err, "a read");
            p->reqs[p->n_reqs++] = (request){.shard = pc->shard,
                                             .window = (uint32_t)(p->n_wins - 1),
                                             .file_off = start, .len = end - start,
                                             .need = e->offset + e->stored_bytes - start,
                                             .buf_off = w->bytes};
            w->n_req++;
            w->bytes += end - start;
        }
        pc->req = (uint32_t)(p->n_reqs - 1);
        w->n_piece = (uint32_t)(i + 1 - w->first_piece);
    }
    return SG_OK;
}

typedef struct reader {
    const sg_store *s;
    plan pl;
    uint8_t *slot[NSLOTS];
    int *fds;             /* per shard: the fd bulk reads use */
    bool own_fd_direct;
    struct io_uring ring;
    bool ring_ok;
    unsigned in_flight;
    unsigned depth;
    uint32_t next_submit; /* next request not yet submitted */
    sg_status st;
    sg_error *err;
    uint64_t requests;
    bool mapped;          /* decode from the file mappings, no reads */
} reader;

static uint8_t *req_buf(reader *r, const request *q)
{
    return r->slot[q->window % NSLOTS] + q->buf_off + q->done;
}

static sg_status io_fail(reader *r, const request *q, int errnum)
{
    return sgi_fail_errno(r->err, errnum, "reading %s at byte %llu",
                          r->s->shards[q->shard].path, (unsigned long long)(q->file_off + q->done));
}

/* Accounts `res` bytes (or -errno) transferred for request q; returns true if
 * it still needs more. */
static sg_status account(reader *r, request *q, long res, bool *more)
{
    *more = false;
    if (res < 0) return io_fail(r, q, (int)-res);
    if (res == 0) {
        if (q->done >= q->need) return SG_OK; /* the aligned tail lay past end of file */
        return sgi_fail(r->err, SG_E_CORRUPT, "%s: truncated (end of file at byte %llu)",
                        r->s->shards[q->shard].path, (unsigned long long)(q->file_off + q->done));
    }
    q->done += (uint64_t)res;
    *more = q->done < q->need; /* a short read past `need` is the end of file */
    return SG_OK;
}

static sg_status submit_one(reader *r, uint32_t qi)
{
    request *q = &r->pl.reqs[qi];
    struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
    if (!sqe) return sgi_fail(r->err, SG_E_IO, "io_uring: submission queue full");
    io_uring_prep_read(sqe, r->fds[q->shard], req_buf(r, q), (unsigned)(q->len - q->done),
                       q->file_off + q->done);
    sqe->flags |= IOSQE_ASYNC;
    io_uring_sqe_set_data64(sqe, qi);
    r->in_flight++;
    r->requests++;
    return SG_OK;
}

/* Reaps one completion (blocking), resubmitting short reads. */
static sg_status reap_one(reader *r)
{
    struct io_uring_cqe *cqe;
    int rc = io_uring_submit_and_wait(&r->ring, 1);
    if (rc < 0 && rc != -EINTR) return sgi_fail_errno(r->err, -rc, "io_uring submit");
    rc = io_uring_wait_cqe(&r->ring, &cqe);
    if (rc < 0) return sgi_fail_errno(r->err, -rc, "io_uring wait");
    uint32_t qi = (uint32_t)io_uring_cqe_get_data64(cqe);
    int res = cqe->res;
    io_uring_cqe_seen(&r->ring, cqe);
    r->in_flight--;
    request *q = &r->pl.reqs[qi];
    const sgi_io *io = sgi_io_get();
    if (io->uring_result) res = io->uring_result(res, (size_t)(q->len - q->done));
    bool more;
    sg_status st = account(r, q, res, &more);
    if (st != SG_OK) return st;
    if (more) return submit_one(r, qi);
    r->pl.wins[q->window].pending--;
    return SG_OK;
}

/* Starts every request of window wi (uring), or performs them (pread). */
static sg_status start_window(reader *r, uint32_t wi)
{
    window *w = &r->pl.wins[wi];
    w->pending = w->n_req;
    for (uint32_t k = 0; k < w->n_req; k++) {
        uint32_t qi = w->first_req + k;
        request *q = &r->pl.reqs[qi];
        if (r->ring_ok) {
            while (r->in_flight >= r->depth) {
                sg_status st = reap_one(r);
                if (st != SG_OK) return st;
            }
            sg_status st = submit_one(r, qi);
            if (st != SG_OK) return st;
        } else {
            const sgi_io *io = sgi_io_get();
            bool more = true;
            while (more) {
                ssize_t got = io->pread(r->fds[q->shard], req_buf(r, q), q->len - q->done,
                                        q->file_off + q->done);
                r->requests++;
                sg_status st = account(r, q, got, &more);
                if (st != SG_OK) return st;
                if (got == 0) more = false;
            }
            w->pending--;
        }
    }
    if (r->ring_ok) {
        int rc = io_uring_submit(&r->ring);
        if (rc < 0) return sgi_fail_errno(r->err, -rc, "io_uring submit");
    }
    return SG_OK;
}

static sg_status finish_window(reader *r, uint32_t wi)
{
    while (r->pl.wins[wi].pending > 0) {
        sg_status st = reap_one(r);
        if (st != SG_OK) return st;
    }
    return SG_OK;
}

static sg_status decode_piece(reader *r, const piece *pc, sgi_codec *c, sg_error *err)
{
    const sgi_shard *sh = &r->s->shards[pc->shard];
    const sgi_block_entry *e = &sh->blocks[pc->array][pc->block];
    const uint8_t *src;
    if (r->mapped) {
        src = sh->map + e->offset;
    } else {
        const request *q = &r->pl.reqs[pc->req];
        src = r->slot[q->window % NSLOTS] + q->buf_off + (e->offset - q->file_off);
    }
    if (sgi_crc32c(0, src, e->stored_bytes) != e->crc)
        return block_error(sh, (sg_array)pc->array, pc->block, SG_E_CORRUPT, "checksum mismatch",
                           err);
    sg_error inner = {0};
    if (pc->dst8) {
        uint32_t wide = 0;
        sg_status st = sgi_codec_decode_w24(c, e, src, pc->skip, pc->count, pc->dst, pc->dst8,
                                            &wide, &inner);
        if (st != SG_OK)
            return block_error(sh, (sg_array)pc->array, pc->block, st, inner.msg, err);
        if (wide) {
            char why[96];
            snprintf(why, sizeof why, "weight %" PRIu32 " does not fit the 24 bits asked for",
                     wide);
            return block_error(sh, (sg_array)pc->array, pc->block, SG_E_RANGE, why, err);
        }
        return SG_OK;
    }
    sg_status st = sgi_codec_decode_into(c, e, src, pc->skip, pc->count, pc->dst, pc->x_last,
                                         &inner);
    if (st != SG_OK) return block_error(sh, (sg_array)pc->array, pc->block, st, inner.msg, err);
    return SG_OK;
}

static sg_status decode_window(reader *r, uint32_t wi, sgi_codec **codecs, int threads,
                               uint64_t *stored, uint64_t *decoded)
{
    const window *w = &r->pl.wins[wi];
    sg_status first_st = SG_OK;
    uint64_t first_at = UINT64_MAX;
    sg_error first_err = {0};
    uint64_t st_bytes = 0, dec_bytes = 0;
    /* Runs of up to 8 neighbouring pieces a thread where the window has
     * pieces enough to keep every thread busy: each thread then writes
     * megabytes of its arrays in a row, not one block beside another
     * thread's: managed memory's first writes fault faster so (SSCA2 26's
     * read 1.9 to 1.5 s; docs/benchmarks.md, forty-first session). */
    uint32_t run = w->n_piece / (8u * (uint32_t)(threads > 0 ? threads : 1));
    run = run < 1 ? 1 : run > 8 ? 8 : run;
#pragma omp parallel for schedule(dynamic, run) num_threads(threads) \
    reduction(+ : st_bytes, dec_bytes)
    for (uint32_t k = 0; k < w->n_piece; k++) {
        const piece *pc = &r->pl.pieces[w->first_piece + k];
        sg_error e = {0};
        sg_status s = decode_piece(r, pc, codecs[omp_get_thread_num()], &e);
        if (s != SG_OK) {
#pragma omp critical(sg_reader_err)
            if (k < first_at) {
                first_at = k;
                first_st = s;
                first_err = e;
            }
        }
        st_bytes += r->s->shards[pc->shard].blocks[pc->array][pc->block].stored_bytes;
        dec_bytes += pc->count * (pc->array == SG_ARRAY_X ? 8 : pc->dst8 ? 3 : 4) +
                     (pc->x_last ? 8 : 0);
    }
    *stored += st_bytes;
    *decoded += dec_bytes;
    if (first_st != SG_OK && r->err) *r->err = first_err;
    return first_st;
}

/* Whether at least 90% of the pages of the planned blocks are resident in
 * the page cache (one mincore call per shard touched). */
static sg_status mostly_cached(const sg_store *s, const plan *pl, bool *cached, sg_error *err)
{
    sg_status st = SG_OK;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *vec = NULL;
    uint64_t pages = 0, resident = 0;
    size_t i = 0;
    while (i < pl->n_pieces) {
        const uint32_t si = pl->pieces[i].shard;
        const sgi_shard *sh = &s->shards[si];
        size_t n_pages = (sh->map_bytes + page - 1) / page;
        sgi_free(vec);
        SG_ALLOC(vec, sgi_malloc(n_pages + 1), err, "a residency map");
        if (mincore((void *)sh->map, sh->map_bytes, vec) != 0) {
            *cached = false; /* cannot tell: read */
            goto fail;
        }
        for (; i < pl->n_pieces && pl->pieces[i].shard == si; i++) {
            const piece *pc = &pl->pieces[i];
            const sgi_block_entry *e = &sh->blocks[pc->array][pc->block];
            for (uint64_t p = e->offset / page; p <= (e->offset + e->stored_bytes - 1) / page; p++) {
                pages++;
                resident += vec[p] & 1;
            }
        }
    }
    *cached = pages > 0 && resident * 10 >= pages * 9;
fail:
    sgi_free(vec);
    return st;
}

static int open_direct(const char *path)
{
    return sgi_io_get()->open(path, O_RDONLY | O_DIRECT, 0);
}

sg_status sg_store_read(sg_store *s, const sg_read_request *req, const sg_read_options *opt,
                        sg_read_stats *stats, sg_error *err)
{
    sg_status st = SG_OK;
    sg_read_options o = {0};
    if (opt) o = *opt;
    reader r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.err = err;
    sgi_codec **codecs = NULL;
    int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    sg_read_stats sts;
    memset(&sts, 0, sizeof sts);
    double t0 = sgi_now();

    SG_CHECK(req && req->v_begin <= req->v_end && req->v_end <= s->hdr.n_vertices, SG_E_INVALID,
             err, "read: vertex range [%llu, %llu) outside [0, %llu)",
             req ? (unsigned long long)req->v_begin : 0ull,
             req ? (unsigned long long)req->v_end : 0ull, (unsigned long long)s->hdr.n_vertices);
    const bool w24 = req->w16 || req->w8;
    SG_CHECK(!w24 || (req->w16 && req->w8 && !req->w), SG_E_INVALID, err,
             "read: 24-bit weights need w16 and w8, and no w");
    SG_CHECK(!w24 || s->hdr.weight_type == SG_WEIGHT_U32, SG_E_INVALID, err,
             "read: %s holds f32 weights: 24-bit weights are for u32 ones", s->path);
    uint64_t e0 = 0, e1 = 0;
    if (req->a || req->w || w24 || (req->x && req->v_begin == req->v_end))
        SG_TRY(sg_store_edge_range(s, req->v_begin, req->v_end, &e0, &e1, err));
    if (req->x) {
        if (req->v_begin == req->v_end) {
            req->x[0] = e0;
        } else {
            SG_TRY(
                plan_array(s, &r.pl, SG_ARRAY_X, req->v_begin, req->v_end, req->x, NULL, err));
            r.pl.pieces[r.pl.n_pieces - 1].x_last = true;
        }
    }
    if (req->a && e1 > e0) SG_TRY(plan_array(s, &r.pl, SG_ARRAY_A, e0, e1, req->a, NULL, err));
    if (req->w && e1 > e0) SG_TRY(plan_array(s, &r.pl, SG_ARRAY_W, e0, e1, req->w, NULL, err));
    if (w24 && e1 > e0)
        SG_TRY(plan_array(s, &r.pl, SG_ARRAY_W, e0, e1, req->w16, req->w8, err));

    /* Read in file order: by shard, then by the blocks' file offsets. */
    if (r.pl.n_pieces > 1) qsort(r.pl.pieces, r.pl.n_pieces, sizeof *r.pl.pieces, cmp_piece);

    SG_CHECK((int)o.direct + (int)o.mapped + (int)o.uring <= 1, SG_E_INVALID, err,
             "read: direct, mapped and uring exclude each other");
    if (!o.direct && !o.mapped && !o.uring && r.pl.n_pieces > 0) {
        bool cached = false;
        SG_TRY(mostly_cached(s, &r.pl, &cached, err));
        o.mapped = cached;
    }
    if (o.mapped && r.pl.n_pieces > 0) {
        /* One parallel pass over every piece, reading the page cache in place.
         * If mapped was forced on a cold store, ask for the pages ahead. */
        r.mapped = true;
        if (opt && opt->mapped)
            for (size_t i = 0; i < r.pl.n_pieces; i++)
                if (i == 0 || r.pl.pieces[i].shard != r.pl.pieces[i - 1].shard) {
                    const sgi_shard *sh = &s->shards[r.pl.pieces[i].shard];
                    (void)madvise((void *)sh->map, sh->map_bytes, MADV_WILLNEED);
                }
        SG_ALLOC(codecs, sgi_calloc((size_t)threads, sizeof *codecs), err, "decoders");
        for (int t = 0; t < threads; t++) SG_ALLOC(codecs[t], new_codec(s), err, "a decoder");
        window all = {.n_piece = (uint32_t)r.pl.n_pieces};
        SG_GROW_ONE(r.pl.wins, r.pl.n_wins, r.pl.cap_wins, err);
        r.pl.wins[0] = all;
        r.pl.n_wins = 1;
        SG_TRY(decode_window(&r, 0, codecs, threads, &sts.stored_bytes, &sts.decoded_bytes));
        sts.blocks = r.pl.n_pieces;
        sts.used_mapped = true;
        goto done;
    }
    /* A window holds at least the largest block it must stage. */
    uint64_t win = o.window_bytes ? o.window_bytes : (32u << 20);
    for (size_t i = 0; i < r.pl.n_pieces; i++) {
        const piece *pc = &r.pl.pieces[i];
        uint64_t b = s->shards[pc->shard].blocks[pc->array][pc->block].stored_bytes + 2 * ALIGN;
        if (b > win) win = b;
    }
    SG_TRY(plan_io(s, &r.pl, win, err));
    if (r.pl.n_pieces == 0) goto done;

    uint64_t slot_bytes = 0;
    for (size_t i = 0; i < r.pl.n_wins; i++)
        if (r.pl.wins[i].bytes > slot_bytes) slot_bytes = r.pl.wins[i].bytes;
    for (int k = 0; k < NSLOTS && (size_t)k < r.pl.n_wins; k++)
        SG_ALLOC(r.slot[k], sgi_aligned_alloc(ALIGN, slot_bytes), err, "read staging buffers");
    SG_ALLOC(codecs, sgi_calloc((size_t)threads, sizeof *codecs), err, "decoders");
    for (int t = 0; t < threads; t++) SG_ALLOC(codecs[t], new_codec(s), err, "a decoder");

    /* File descriptors: the mapped ones, or O_DIRECT ones when asked. */
    SG_ALLOC(r.fds, sgi_malloc((s->n_shards + 1) * sizeof *r.fds), err, "a read plan");
    for (uint32_t i = 0; i < s->n_shards; i++) r.fds[i] = s->shards[i].fd;
    if (o.direct) {
        sts.used_direct = true;
        r.own_fd_direct = true;
        for (uint32_t i = 0; i < s->n_shards; i++) r.fds[i] = -1;
        for (uint32_t i = 0; i < s->n_shards; i++) {
            int fd = open_direct(s->shards[i].path);
            if (fd == -EINVAL) { /* file system without O_DIRECT: buffered */
                sts.used_direct = false;
                for (uint32_t k = 0; k < i; k++) sgi_io_get()->close(r.fds[k]);
                for (uint32_t k = 0; k < s->n_shards; k++) r.fds[k] = s->shards[k].fd;
                r.own_fd_direct = false;
                break;
            }
            if (fd < 0) {
                st = sgi_fail_errno(err, -fd, "opening %s", s->shards[i].path);
                goto fail;
            }
            r.fds[i] = fd;
        }
    }

    r.depth = o.queue_depth ? o.queue_depth : 64;
    if (sgi_io_get()->allow_uring && io_uring_queue_init(r.depth * 2, &r.ring, 0) == 0)
        r.ring_ok = true;
    sts.used_uring = r.ring_ok;

    /* Two windows in flight while the third is decoded. */
    const uint32_t nw = (uint32_t)r.pl.n_wins;
    for (uint32_t k = 0; k < NSLOTS - 1 && k < nw; k++) SG_TRY(start_window(&r, k));
    for (uint32_t k = 0; k < nw; k++) {
        SG_TRY(finish_window(&r, k));
        if (k + NSLOTS - 1 < nw) SG_TRY(start_window(&r, k + NSLOTS - 1));
        SG_TRY(decode_window(&r, k, codecs, threads, &sts.stored_bytes, &sts.decoded_bytes));
        sts.blocks += r.pl.wins[k].n_piece;
    }
    for (size_t i = 0; i < r.pl.n_reqs; i++) sts.read_bytes += r.pl.reqs[i].done;
done:
    sts.requests = r.requests;
    sts.seconds = sgi_now() - t0;
    if (stats) *stats = sts;
fail:
    if (r.ring_ok) {
        while (r.in_flight > 0) { /* drain before the buffers go */
            struct io_uring_cqe *cqe;
            if (io_uring_wait_cqe(&r.ring, &cqe) < 0) break;
            io_uring_cqe_seen(&r.ring, cqe);
            r.in_flight--;
        }
        io_uring_queue_exit(&r.ring);
    }
    if (r.fds && r.own_fd_direct)
        for (uint32_t i = 0; i < s->n_shards; i++)
            if (r.fds[i] >= 0) sgi_io_get()->close(r.fds[i]);
    sgi_free(r.fds);
    if (codecs)
        for (int t = 0; t < threads; t++) sgi_codec_free(codecs[t]);
    sgi_free(codecs);
    for (int k = 0; k < NSLOTS; k++) sgi_free(r.slot[k]);
    sgi_free(r.pl.pieces);
    sgi_free(r.pl.reqs);
    sgi_free(r.pl.wins);
    return st;
}

sg_status sg_store_foreach_shard(sg_store *s, bool want_weights, const sg_read_options *opt,
                                 sg_shard_fn fn, void *ctx, sg_error *err)
{
    sg_status st = SG_OK;
    uint64_t *x = NULL;
    uint32_t *a = NULL, *w = NULL;
    uint64_t max_v = 0, max_e = 0;
    for (uint32_t i = 0; i < s->n_shards; i++) {
        const sgi_shard_entry *m = &s->shards[i].meta;
        if (m->v_end - m->v_begin > max_v) max_v = m->v_end - m->v_begin;
        if (m->e_end - m->e_begin > max_e) max_e = m->e_end - m->e_begin;
    }
    SG_ALLOC(x, sgi_malloc((max_v + 1) * sizeof *x), err, "a shard buffer (X)");
    SG_ALLOC(a, sgi_malloc((max_e + 1) * sizeof *a), err, "a shard buffer (A)");
    if (want_weights) SG_ALLOC(w, sgi_malloc((max_e + 1) * sizeof *w), err, "a shard buffer (W)");
    for (uint32_t i = 0; i < s->n_shards; i++) {
        const sgi_shard_entry *m = &s->shards[i].meta;
        sg_read_request rq = {.v_begin = m->v_begin, .v_end = m->v_end, .x = x, .a = a, .w = w};
        SG_TRY(sg_store_read(s, &rq, opt, NULL, err));
        SG_TRY(fn(ctx, m->v_begin, m->v_end, x, a, w, err));
    }
fail:
    sgi_free(x);
    sgi_free(a);
    sgi_free(w);
    return st;
}
