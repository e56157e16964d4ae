/* storage/check.c: sg_store_check on valid stores, corrupt blocks, truncated
 * files and invariant violations with valid checksums; degree statistics;
 * allocation failures. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"


static const sg_write_options small_layout = {.shard_bytes = 4096, .block_bytes = 1024};

/* ------------------------------------------------------------ helpers */

typedef struct scratch {
    char *dir;
    char path[512];
} scratch;

static scratch scratch_new(void)
{
    scratch t;
    t.dir = tu_tmpdir("check");
    snprintf(t.path, sizeof t.path, "%s/g.sg", t.dir);
    return t;
}

static void scratch_free(scratch *t)
{
    tu_rm_rf(t->dir);
    free(t->dir);
}

static void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc(*len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, *len, f), *len);
    fclose(f);
    return buf;
}

static void write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    fclose(f);
}

/* Runs check on the store at path; returns its status, message in *err. */
static sg_status run_check(const char *path, const sg_read_options *ro, sg_check_report *rep,
                           sg_error *err)
{
    sg_store *s = NULL;
    sg_status st = sg_store_open(path, &s, err);
    if (st != SG_OK) return st;
    st = sg_store_check(s, ro, rep, err);
    sg_store_close(s);
    return st;
}

static void expect_ok(const char *path, const sg_read_options *ro, sg_check_report *rep)
{
    sg_error err = {0};
    if (run_check(path, ro, rep, &err) != SG_OK) fail_msg("check: %s", err.msg);
}

/* Check must fail with `code` and a message holding every given string. */
static void expect_fail(const char *path, sg_status code, const char *const *want, size_t nwant)
{
    sg_error err = {0};
    sg_check_report rep;
    memset(&rep, 0xAB, sizeof rep);
    const sg_status st = run_check(path, NULL, &rep, &err);
    if (st != code) fail_msg("check gave %d (%s), expected %d", st, err.msg, code);
    for (size_t i = 0; i < nwant; i++)
        if (!strstr(err.msg, want[i])) fail_msg("message \"%s\" lacks \"%s\"", err.msg, want[i]);
    /* the report is untouched on failure */
    const uint8_t *b = (const uint8_t *)&rep;
    for (size_t i = 0; i < sizeof rep; i++) assert_int_equal(b[i], 0xAB);
}

/* Writes a store straight from CSR arrays. With `unchecked` the writer skips
 * its validation, so invalid lists reach the disk with valid checksums. */
static void write_raw(const char *path, uint64_t n, const uint64_t *x, const uint32_t *a,
                      const uint32_t *w, const sg_write_options *o, bool unchecked)
{
    sg_store_writer *wr = NULL;
    sg_error err = {0};
    sgi_writer_unchecked = unchecked;
    if (sg_store_writer_open(path, n, o, &wr, &err)) fail_msg("writer_open: %s", err.msg);
    if (sg_store_writer_append(wr, n, x, a, w, &err)) fail_msg("append: %s", err.msg);
    if (sg_store_writer_finish(wr, &err)) fail_msg("finish: %s", err.msg);
    sgi_writer_unchecked = false;
}

/* Rewrites the manifest's flags and its trailing crc32c. */
static void relabel(const char *store, uint32_t set, uint32_t clear)
{
    char mp[600];
    snprintf(mp, sizeof mp, "%s/%s", store, SGI_MANIFEST_NAME);
    size_t len;
    uint8_t *buf = read_file(mp, &len);
    sgi_manifest_header h;
    memcpy(&h, buf, sizeof h);
    assert_int_equal(len, sizeof h + (size_t)h.n_shards * sizeof(sgi_shard_entry) +
                              h.creator_bytes + 4);
    h.flags = (h.flags | set) & ~clear;
    memcpy(buf, &h, sizeof h);
    const uint32_t crc = sgi_crc32c(0, buf, len - 4);
    memcpy(buf + len - 4, &crc, 4);
    write_file(mp, buf, len);
    free(buf);
}

/* Re-encodes block `block` of array `arr` in shard `shard` after `edit`
 * changed its transformed values (X: degrees; A: deltas; W: bits). The new
 * block goes where the index was; the index and footer move behind it, and
 * every checksum (block, index, footer, manifest) is recomputed, so the
 * store opens and reads as if written that way. */
static void patch_block(const char *store, uint32_t shard, sg_array arr, uint32_t block,
                        void (*edit)(uint32_t *vals, uint32_t n))
{
    sg_store *s = NULL;
    sg_error err = {0};
    assert_int_equal(sg_store_open(store, &s, &err), SG_OK);
    const size_t max_elems = s->hdr.x_block_elems > s->hdr.e_block_elems ? s->hdr.x_block_elems
                                                                           : s->hdr.e_block_elems;
    char sp[600];
    snprintf(sp, sizeof sp, "%s/%s", store, s->shards[shard].file);
    uint32_t k = block; /* index entry: all X, then all A, then all W */
    for (int i = 0; i < (int)arr; i++) k += s->shards[shard].meta.n_blocks[i];
    assert_true(block < s->shards[shard].meta.n_blocks[arr]);
    sg_store_close(s);

    size_t len;
    uint8_t *f = read_file(sp, &len);
    sgi_shard_footer ft;
    memcpy(&ft, f + len - sizeof ft, sizeof ft);
    sgi_block_entry *idx = malloc(ft.n_entries * sizeof *idx);
    memcpy(idx, f + ft.index_offset, ft.n_entries * sizeof *idx);
    sgi_block_entry *e = &idx[k];
    assert_int_equal(e->array, arr);

    sgi_codec *c = sgi_codec_new(3, max_elems);
    assert_non_null(c);
    const uint32_t *dec;
    assert_int_equal(sgi_codec_decode(c, e, f + e->offset, &dec, &err), SG_OK);
    uint32_t *vals = malloc(e->n_elems * sizeof *vals);
    memcpy(vals, dec, e->n_elems * sizeof *vals);
    edit(vals, e->n_elems);
    uint8_t *out = malloc(sgi_codec_bound(e->n_elems));
    size_t out_len;
    uint8_t codec;
    assert_int_equal(sgi_codec_encode(c, 0, vals, e->n_elems, out, &out_len, &codec, &err), SG_OK);
    sgi_codec_free(c);

    const uint64_t at = ft.index_offset;
    const uint32_t old_stored = e->stored_bytes;
    e->offset = at;
    e->stored_bytes = (uint32_t)out_len;
    e->codec = codec;
    e->crc = sgi_crc32c(0, out, out_len);
    const size_t ib = ft.n_entries * sizeof *idx;
    ft.index_offset = at + out_len;
    ft.index_crc = sgi_crc32c(0, idx, ib);
    ft.footer_crc = sgi_crc32c(0, &ft, 20);
    const size_t nlen = at + out_len + ib + sizeof ft;
    uint8_t *nf = malloc(nlen);
    memcpy(nf, f, at);
    memcpy(nf + at, out, out_len);
    memcpy(nf + at + out_len, idx, ib);
    memcpy(nf + at + out_len + ib, &ft, sizeof ft);
    write_file(sp, nf, nlen);

    char mp[600];
    snprintf(mp, sizeof mp, "%s/%s", store, SGI_MANIFEST_NAME);
    size_t mlen;
    uint8_t *m = read_file(mp, &mlen);
    sgi_shard_entry se;
    uint8_t *sep = m + sizeof(sgi_manifest_header) + shard * sizeof se;
    memcpy(&se, sep, sizeof se);
    se.file_bytes = nlen;
    se.stored_bytes[arr] = se.stored_bytes[arr] - old_stored + out_len;
    se.index_crc = ft.index_crc;
    memcpy(sep, &se, sizeof se);
    const uint32_t crc = sgi_crc32c(0, m, mlen - 4);
    memcpy(m + mlen - 4, &crc, 4);
    write_file(mp, m, mlen);

    free(m);
    free(nf);
    free(out);
    free(vals);
    free(idx);
    free(f);
}

static void degree_plus_one(uint32_t *vals, uint32_t n) { vals[n - 1]++; }
static void degree_minus_one(uint32_t *vals, uint32_t n)
{
    uint32_t i = n;
    while (i > 0 && vals[i - 1] == 0) i--;
    assert_true(i > 0);
    vals[i - 1]--;
}

static void fmt(char *buf, size_t cap, const char *f, unsigned long long a, unsigned long long b)
{
    snprintf(buf, cap, f, a, b);
}

/* ------------------------------------------------------------ valid stores */

static void valid_stores_pass(void **state)
{
    (void)state;
    const struct { uint64_t n, e; bool directed; const sg_write_options *o; } cases[] = {
        {3000, 5000, true, &small_layout},   /* many shards, isolated vertices */
        {3000, 5000, false, &small_layout},
        {2000, 40000, false, &small_layout},
        {2000, 40000, true, NULL},           /* one shard, one block per array */
        {20000, 3000, false, &small_layout}, /* mostly isolated */
        {10, 0, false, &small_layout},       /* no edges */
        {10, 0, true, NULL},
        {1, 0, false, NULL},                 /* a single vertex */
        {1, 0, true, &small_layout},
        {0, 0, false, NULL},                 /* no vertices */
    };
    const sg_read_options ros[] = {{0}, {.threads = 1}, {.threads = 4, .mapped = true},
                                   {.threads = 3, .window_bytes = 8192, .queue_depth = 2}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        scratch t = scratch_new();
        tu_graph g = tu_random_graph(cases[c].n ? cases[c].n : 1, cases[c].e, 1000, 17 + c,
                                     cases[c].directed);
        g.n = cases[c].n;
        tu_write_store(t.path, &g, cases[c].o);

        sg_store *s = NULL;
        sg_error err = {0};
        assert_int_equal(sg_store_open(t.path, &s, &err), SG_OK);
        sg_store_info info;
        sg_store_get_info(s, &info);
        if (cases[c].o && cases[c].e >= 5000) assert_true(info.n_shards > 3);
        const uint64_t blocks = info.n_blocks[0] + info.n_blocks[1] + info.n_blocks[2];
        sg_store_close(s);

        for (size_t r = 0; r < sizeof ros / sizeof *ros; r++) {
            sg_check_report rep;
            memset(&rep, 0xAB, sizeof rep);
            expect_ok(t.path, &ros[r], &rep);
            assert_int_equal(rep.vertices, g.n);
            assert_int_equal(rep.edges, g.m);
            assert_int_equal(rep.blocks, blocks);
            assert_int_equal(rep.symmetry_checked, !cases[c].directed);
        }
        expect_ok(t.path, NULL, NULL); /* the report is optional */
        tu_graph_free(&g);
        scratch_free(&t);
    }
}

static void self_loops_and_f32_pass(void **state)
{
    (void)state;
    /* Self-loops are allowed by the format: an undirected store with one. */
    {
        scratch t = scratch_new();
        const uint64_t x[4] = {0, 2, 4, 5};
        const uint32_t a[5] = {0, 1, 0, 2, 1}, w[5] = {4, 7, 7, 3, 3};
        const sg_write_options o = {.directed = false};
        write_raw(t.path, 3, x, a, w, &o, false);
        sg_check_report rep;
        expect_ok(t.path, NULL, &rep);
        assert_int_equal(rep.edges, 5);
        assert_true(rep.symmetry_checked);
        scratch_free(&t);
    }
    /* f32 with negative weights (the writer sets the flag) and -0 against +0. */
    {
        scratch t = scratch_new();
        tu_graph g = tu_random_graph(500, 4000, 100, 5, false);
        for (uint64_t u = 0; u < g.n; u++)
            for (uint64_t k = g.x[u]; k < g.x[u + 1]; k++) {
                const uint32_t v = g.a[k];
                const uint32_t lo = u < v ? (uint32_t)u : v, hi = u < v ? v : (uint32_t)u;
                float f = (float)((lo * 7 + hi * 13) % 50) * 0.5f - 5.0f;
                if (f == 0.0f && u > v) f = -0.0f; /* one direction -0, the other +0 */
                memcpy(&g.w[k], &f, 4);
            }
        sg_write_options o = small_layout;
        o.weight_type = SG_WEIGHT_F32;
        tu_write_store(t.path, &g, &o);
        sg_check_report rep;
        expect_ok(t.path, &(sg_read_options){.threads = 3}, &rep);
        assert_int_equal(rep.edges, g.m);
        tu_graph_free(&g);
        scratch_free(&t);
    }
}

/* ------------------------------------------------------------ corruption */

static void corrupt_block_is_named(void **state)
{
    (void)state;
    tu_graph g = tu_random_graph(2000, 20000, 1000, 3, false);
    for (int arr = SG_ARRAY_X; arr <= SG_ARRAY_W; arr++) {
        scratch t = scratch_new();
        tu_write_store(t.path, &g, &small_layout);
        sg_store *s = NULL;
        sg_error err = {0};
        assert_int_equal(sg_store_open(t.path, &s, &err), SG_OK);
        assert_true(s->n_shards >= 3);
        const uint32_t shard = 2;
        const sgi_shard *sh = &s->shards[shard];
        assert_true(sh->meta.n_blocks[arr] >= 1);
        const uint32_t block = sh->meta.n_blocks[arr] / 2;
        const sgi_block_entry *e = &sh->blocks[arr][block];
        const uint64_t off = e->offset + e->stored_bytes / 2;
        char file[600], name[64], bname[32];
        snprintf(file, sizeof file, "%s/%s", t.path, sh->file);
        snprintf(name, sizeof name, "%s", sh->file);
        snprintf(bname, sizeof bname, "%c#%u", "XAW"[arr], block);
        sg_store_close(s);
        tu_flip_byte(file, off, 0x10);

        const char *want[] = {name, bname, "checksum"};
        expect_fail(t.path, SG_E_CORRUPT, want, 3);
        assert_string_equal(name, "shard-000002.sgs");
        scratch_free(&t);
    }
    tu_graph_free(&g);
}

static void truncated_shard_is_named(void **state)
{
    (void)state;
    tu_graph g = tu_random_graph(1000, 8000, 50, 4, true);
    const uint64_t cut[] = {1, 40, 0}; /* bytes cut off; 0: half the file */
    for (size_t i = 0; i < sizeof cut / sizeof *cut; i++) {
        scratch t = scratch_new();
        tu_write_store(t.path, &g, &small_layout);
        char file[600];
        snprintf(file, sizeof file, "%s/shard-000001.sgs", t.path);
        const uint64_t size = tu_file_size(file);
        assert_true(size > 2 * cut[i]);
        tu_truncate(file, cut[i] ? size - cut[i] : size / 2);
        const char *want[] = {"shard-000001.sgs"};
        expect_fail(t.path, SG_E_CORRUPT, want, 1);
        scratch_free(&t);
    }
    tu_graph_free(&g);
}

/* ------------------------------------------------------------ invariants */

static void missing_reverse_edge_is_named(void **state)
{
    (void)state;
    /* A directed graph, symmetric but for (7,3), relabelled undirected. */
    uint32_t edges[200][3];
    size_t ne = 0;
    uint64_t st = 1;
    for (int i = 0; i < 90; i++) {
        uint32_t u = (uint32_t)(tu_rand(&st) % 60), v = (uint32_t)(tu_rand(&st) % 60);
        if (u == v || u == 7 || v == 7 || u == 3 || v == 3) continue;
        const uint32_t w = 1 + (uint32_t)(tu_rand(&st) % 9);
        edges[ne][0] = u, edges[ne][1] = v, edges[ne++][2] = w;
        edges[ne][0] = v, edges[ne][1] = u, edges[ne++][2] = w;
    }
    edges[ne][0] = 7, edges[ne][1] = 3, edges[ne++][2] = 5;
    edges[ne][0] = 7, edges[ne][1] = 9, edges[ne++][2] = 2; /* 9 -> 7 comes too */
    edges[ne][0] = 9, edges[ne][1] = 7, edges[ne++][2] = 2;
    tu_graph g = tu_graph_from_edges(60, ne, (const uint32_t(*)[3])edges, true);
    const sg_write_options *layouts[] = {NULL, &(sg_write_options){.shard_bytes = 256,
                                                                   .block_bytes = 64}};
    for (size_t l = 0; l < 2; l++) {
        scratch t = scratch_new();
        tu_write_store(t.path, &g, layouts[l]);
        expect_ok(t.path, NULL, NULL); /* fine while directed */
        relabel(t.path, 0, SGI_FLAG_DIRECTED);
        const char *want[] = {"vertex 7", "edge (7,3,w=5) has no reverse edge (3,7)", ".sgs"};
        expect_fail(t.path, SG_E_INVARIANT, want, 3);
        scratch_free(&t);
    }
    tu_graph_free(&g);

    /* The missing direction the other way round: 3 -> 7 only; the lowest
     * vertex is named. */
    const uint32_t e2[][3] = {{1, 2, 4}, {2, 1, 4}, {5, 3, 6}, {3, 7, 1}};
    g = tu_graph_from_edges(8, 4, e2, true);
    scratch t = scratch_new();
    tu_write_store(t.path, &g, NULL);
    relabel(t.path, 0, SGI_FLAG_DIRECTED);
    const char *want[] = {"shard-000000.sgs", "vertex 3: edge (3,7,w=1) has no reverse edge (7,3)"};
    expect_fail(t.path, SG_E_INVARIANT, want, 2); /* vertex 3 comes before vertex 5 */
    scratch_free(&t);
    tu_graph_free(&g);
}

static void reverse_weight_differs_is_named(void **state)
{
    (void)state;
    const uint32_t e[][3] = {{0, 1, 3}, {1, 0, 3}, {2, 4, 1}, {4, 2, 2}, {3, 4, 8}, {4, 3, 8}};
    tu_graph g = tu_graph_from_edges(6, 6, e, true);
    scratch t = scratch_new();
    tu_write_store(t.path, &g, NULL);
    relabel(t.path, 0, SGI_FLAG_DIRECTED);
    const char *want[] = {"shard-000000.sgs", "vertex 2", "edge (2,4,w=1)",
                          "reverse weight differs", "(4,2) has w=2"};
    expect_fail(t.path, SG_E_INVARIANT, want, 5);
    scratch_free(&t);
    tu_graph_free(&g);
}

static void bad_lists_are_named(void **state)
{
    (void)state;
    /* Vertex 4's list is broken in each case; vertices 0..3 are fine. */
    const struct { uint32_t a5[2]; const char *want; } cases[] = {
        {{2, 2}, "vertex 4: duplicate edge (4,2)"},
        {{3, 1}, "vertex 4: neighbour list not strictly increasing (1 after 3"},
        {{1, 6}, "vertex 4: neighbour 6 out of range (n = 6)"},
        {{1, 0xFFFFFFFFu}, "neighbour 4294967295 out of range"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const uint64_t x[7] = {0, 1, 2, 3, 4, 6, 6};
        const uint32_t a[6] = {1, 2, 3, 4, cases[c].a5[0], cases[c].a5[1]};
        const uint32_t w[6] = {1, 1, 1, 1, 1, 1};
        const sg_write_options o = {.directed = true};
        scratch t = scratch_new();
        write_raw(t.path, 6, x, a, w, &o, true);
        const char *want[] = {"shard-000000.sgs", cases[c].want};
        expect_fail(t.path, SG_E_INVARIANT, want, 2);
        scratch_free(&t);
    }
    /* In a later shard the file and the lowest bad vertex are named. */
    tu_graph g = tu_random_graph(3000, 20000, 100, 8, true);
    uint64_t v1 = 2000, v2 = 2500;
    while (g.x[v1 + 1] - g.x[v1] < 2) v1++;
    while (g.x[v2 + 1] - g.x[v2] < 2) v2++;
    g.a[g.x[v2]] = g.a[g.x[v2] + 1];             /* duplicate */
    g.a[g.x[v1] + 1] = (uint32_t)g.n + 5;        /* out of range, lower vertex */
    scratch t = scratch_new();
    write_raw(t.path, g.n, g.x, g.a, g.w, &small_layout, true);
    sg_store *s = NULL;
    sg_error err;
    assert_int_equal(sg_store_open(t.path, &s, &err), SG_OK);
    sg_shard_info si;
    assert_int_equal(sg_store_shard_info(s, sgi_shard_of_vertex(s, v1), &si, &err), SG_OK);
    assert_true(si.v_begin > 0);
    sg_store_close(s);
    char vbuf[64];
    fmt(vbuf, sizeof vbuf, "vertex %llu: neighbour %llu out of range", v1, g.n + 5);
    const char *want[] = {si.file, vbuf};
    expect_fail(t.path, SG_E_INVARIANT, want, 2);
    scratch_free(&t);
    tu_graph_free(&g);
}

/* A store flagged weight order: lists out of that order, a neighbour twice
 * (next to each other, or far apart in a list longer than the pairwise
 * check) are named; a valid one passes with symmetry checked; an id-ordered
 * store relabelled as weight-ordered fails; an unknown flag is refused. */
static void weight_order_lists_are_named(void **state)
{
    (void)state;
    /* vertex 4's list (8 entries, then 40 for the long case) */
    const struct {
        uint32_t a[3], w[3];
        bool long_dup;
        const char *want;
    } cases[] = {
        {{1, 2, 3}, {5, 4, 6}, false, "vertex 4: neighbour list not in weight order (2, weight 4"},
        {{2, 1, 3}, {5, 5, 6}, false, "vertex 4: neighbour list not in weight order (1, weight 5"},
        {{1, 2, 1}, {5, 6, 7}, false, "vertex 4: duplicate edge (4,1)"},
        {{1, 2, 3}, {5, 6, 7}, true, "vertex 4: duplicate edge (4,"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const uint64_t nlong = cases[c].long_dup ? 40 : 0, n = 60;
        uint64_t x[61];
        uint32_t a[4 + 3 + 40], w[4 + 3 + 40];
        for (int v = 0; v < 4; v++) x[v] = (uint64_t)v, a[v] = (uint32_t)(v + 1), w[v] = 1;
        x[4] = 4;
        for (int j = 0; j < 3; j++) a[4 + j] = cases[c].a[j], w[4 + j] = cases[c].w[j];
        for (uint64_t j = 0; j < nlong; j++) {
            a[7 + j] = (uint32_t)(10 + j);
            w[7 + j] = (uint32_t)(100 + j);
        }
        if (cases[c].long_dup) a[7 + 37] = a[7 + 2]; /* 40 entries on: past the pairwise check */
        for (uint64_t v = 5; v <= n; v++) x[v] = 7 + nlong;
        const sg_write_options o = {.directed = true, .weight_order = true};
        scratch t = scratch_new();
        write_raw(t.path, n, x, a, w, &o, true);
        const char *want[] = {"shard-000000.sgs", cases[c].want};
        expect_fail(t.path, SG_E_INVARIANT, want, 2);
        scratch_free(&t);
    }
    /* valid: an undirected graph written in weight order */
    tu_graph g = tu_random_graph(500, 3000, 40, 3, false);
    for (uint64_t v = 0; v < g.n; v++) /* insertion sort of each list by (w, a) */
        for (uint64_t i = g.x[v] + 1; i < g.x[v + 1]; i++)
            for (uint64_t j = i; j > g.x[v] && (g.w[j - 1] > g.w[j] ||
                                                (g.w[j - 1] == g.w[j] && g.a[j - 1] > g.a[j]));
                 j--) {
                const uint32_t ta = g.a[j], tw = g.w[j];
                g.a[j] = g.a[j - 1], g.w[j] = g.w[j - 1];
                g.a[j - 1] = ta, g.w[j - 1] = tw;
            }
    scratch t = scratch_new();
    const sg_write_options ow = {.weight_order = true};
    write_raw(t.path, g.n, g.x, g.a, g.w, &ow, false);
    sg_check_report rep;
    expect_ok(t.path, NULL, &rep);
    assert_true(rep.symmetry_checked);
    scratch_free(&t);
    tu_graph_free(&g);
    /* id order flagged as weight order: the weights are not in order */
    g = tu_random_graph(500, 3000, 40, 4, false);
    t = scratch_new();
    write_raw(t.path, g.n, g.x, g.a, g.w, NULL, false);
    relabel(t.path, SGI_FLAG_WEIGHT_ORDER, 0);
    const char *want[] = {"not in weight order"};
    expect_fail(t.path, SG_E_INVARIANT, want, 1);
    /* a flag this build does not know */
    relabel(t.path, 1u << 7, SGI_FLAG_WEIGHT_ORDER);
    sg_store *s = NULL;
    sg_error err = {0};
    assert_int_equal(sg_store_open(t.path, &s, &err), SG_E_FORMAT);
    assert_non_null(strstr(err.msg, "flags 0x80 unknown to this build"));
    scratch_free(&t);
    tu_graph_free(&g);
}

static void bad_weights_are_named(void **state)
{
    (void)state;
    const uint64_t x[4] = {0, 2, 3, 3};
    const uint32_t a[3] = {1, 2, 0};
    const sg_write_options o = {.directed = true, .weight_type = SG_WEIGHT_F32};
    const float bad[] = {NAN, INFINITY, -INFINITY, -2.5f};
    const char *why[] = {"has weight nan (not finite)", "has weight inf (not finite)",
                         "has weight -inf (not finite)", "has negative weight -2.5 but"};
    for (size_t c = 0; c < sizeof bad / sizeof *bad; c++) {
        float wf[3] = {1.0f, 2.0f, 0.5f};
        wf[2] = bad[c];
        uint32_t w[3];
        memcpy(w, wf, sizeof w);
        scratch t = scratch_new();
        /* unchecked: no validation, so the negative flag stays clear too */
        write_raw(t.path, 3, x, a, w, &o, true);
        const char *want[] = {"shard-000000.sgs", "vertex 1: edge (1,0)", why[c]};
        expect_fail(t.path, SG_E_INVARIANT, want, 3);
        if (c == 3) {
            relabel(t.path, SGI_FLAG_NEGATIVE_WEIGHTS, 0); /* flagged: fine */
            expect_ok(t.path, NULL, NULL);
        }
        scratch_free(&t);
    }
    /* The flag must tell the truth: none negative, or a uint32 store. */
    for (int wt = SG_WEIGHT_U32; wt <= SG_WEIGHT_F32; wt++) {
        const float wf[3] = {1.0f, 2.0f, 0.5f};
        uint32_t w[3];
        memcpy(w, wf, sizeof w);
        scratch t = scratch_new();
        const sg_write_options o2 = {.directed = true, .weight_type = (sg_weight_type)wt};
        write_raw(t.path, 3, x, a, w, &o2, false);
        expect_ok(t.path, NULL, NULL);
        relabel(t.path, SGI_FLAG_NEGATIVE_WEIGHTS, 0);
        const char *want[] = {wt == SG_WEIGHT_U32 ? "flags negative weights in a uint32 store"
                                                  : "no weight is negative"};
        expect_fail(t.path, SG_E_INVARIANT, want, 1);
        scratch_free(&t);
    }
}

static void bad_offsets_are_named(void **state)
{
    (void)state;
    tu_graph g = tu_random_graph(3000, 30000, 100, 12, true);
    for (int k = 0; k < 2; k++) {
        scratch t = scratch_new();
        tu_write_store(t.path, &g, &small_layout);
        sg_store *s = NULL;
        sg_error err;
        assert_int_equal(sg_store_open(t.path, &s, &err), SG_OK);
        const uint32_t shard = 1;
        const uint32_t last = s->shards[shard].meta.n_blocks[SG_ARRAY_X] - 1;
        const uint64_t v_end = s->shards[shard].meta.v_end;
        sg_store_close(s);
        /* the last X block's degrees then sum to one more or one less */
        patch_block(t.path, shard, SG_ARRAY_X, last, k == 0 ? degree_plus_one : degree_minus_one);
        char buf[128];
        if (k == 0) {
            /* the shard's last vertex now has a list passing the shard's end */
            fmt(buf, sizeof buf, "vertex %llu: offsets [%llu,", v_end - 1, g.x[v_end - 1]);
            const char *want[] = {"shard-000001.sgs", buf, "leave the shard's edges"};
            expect_fail(t.path, SG_E_INVARIANT, want, 3);
        } else {
            fmt(buf, sizeof buf, "vertex %llu: offsets end at edge %llu", v_end - 1,
                g.x[v_end] - 1);
            const char *want[] = {"shard-000001.sgs", buf};
            expect_fail(t.path, SG_E_INVARIANT, want, 2);
        }
        scratch_free(&t);
    }
    tu_graph_free(&g);
}

static void large_symmetry_hash(void **state)
{
    (void)state;
    /* Many blocks and threads: hashes agree on a valid store and differ
     * when one weight in the middle of an A/W block differs. */
    tu_graph g = tu_random_graph(50000, 400000, 1u << 20, 21, false);
    scratch t = scratch_new();
    const sg_write_options o = {.shard_bytes = 256 << 10, .block_bytes = 8192};
    tu_write_store(t.path, &g, &o);
    sg_check_report rep;
    expect_ok(t.path, &(sg_read_options){.threads = 4}, &rep);
    assert_true(rep.symmetry_checked);
    assert_int_equal(rep.edges, g.m);
    scratch_free(&t);

    uint64_t u = 31337;
    while (g.x[u + 1] == g.x[u]) u++;
    const uint64_t k = g.x[u];
    const uint32_t v = g.a[k];
    g.w[k] += 1;
    g.directed = true;
    t = scratch_new();
    tu_write_store(t.path, &g, &o);
    relabel(t.path, 0, SGI_FLAG_DIRECTED);
    char buf[128];
    /* (u,v) or (v,u), whichever vertex is lower, is named */
    const uint64_t lo = u < v ? u : v, hi = u < v ? v : u;
    fmt(buf, sizeof buf, "vertex %llu: edge (%llu,", lo, lo);
    char buf2[64];
    fmt(buf2, sizeof buf2, "(%llu,%llu) has w=", hi, lo);
    const char *want[] = {buf, "reverse weight differs", buf2};
    expect_fail(t.path, SG_E_INVARIANT, want, 3);
    scratch_free(&t);
    tu_graph_free(&g);
}

/* ------------------------------------------------------------ degree stats */

static void degree_stats_exact(void **state)
{
    (void)state;
    /* 0 -> 1..8 (8), 1 -> 0 (1), 2 -> 0,1,3 (3), 3 -> 0,1 (2), 4..9 isolated */
    const uint32_t e[][3] = {{0, 1, 1}, {0, 2, 1}, {0, 3, 1}, {0, 4, 1}, {0, 5, 1}, {0, 6, 1},
                             {0, 7, 1}, {0, 8, 1}, {1, 0, 1}, {2, 0, 1}, {2, 1, 1}, {2, 3, 1},
                             {3, 0, 1}, {3, 1, 1}};
    tu_graph g = tu_graph_from_edges(10, 14, e, true);
    const sg_write_options *layouts[] = {NULL, &(sg_write_options){.shard_bytes = 64,
                                                                   .block_bytes = 64}};
    for (size_t l = 0; l < 2; l++) {
        scratch t = scratch_new();
        tu_write_store(t.path, &g, layouts[l]);
        sg_store *s = NULL;
        sg_error err;
        assert_int_equal(sg_store_open(t.path, &s, &err), SG_OK);
        if (l == 1) {
            sg_store_info info;
            sg_store_get_info(s, &info);
            assert_true(info.n_shards > 2);
        }
        sg_degree_stats d;
        memset(&d, 0xAB, sizeof d);
        assert_int_equal(sg_store_degree_stats(s, NULL, &d, &err), SG_OK);
        assert_int_equal(d.min, 0);
        assert_int_equal(d.max, 8);
        assert_true(fabs(d.mean - 1.4) < 1e-12);
        assert_int_equal(d.isolated, 6);
        const uint64_t want[34] = {[0] = 6, [1] = 1, [2] = 2, [3] = 0, [4] = 1};
        assert_memory_equal(d.hist, want, sizeof want);
        assert_int_equal(d.descents, 3); /* vertices 1, 3 and 4 */
        sg_store_close(s);
        scratch_free(&t);
    }
    tu_graph_free(&g);

    /* No isolated vertex: min is the smallest degree. */
    const uint32_t e2[][3] = {{0, 1, 1}, {1, 2, 1}, {2, 0, 1}, {2, 1, 1}};
    g = tu_graph_from_edges(3, 4, e2, true);
    scratch t = scratch_new();
    tu_write_store(t.path, &g, NULL);
    sg_store *s = NULL;
    sg_error err;
    assert_int_equal(sg_store_open(t.path, &s, &err), SG_OK);
    sg_degree_stats d;
    assert_int_equal(sg_store_degree_stats(s, &(sg_read_options){.threads = 3}, &d, &err), SG_OK);
    assert_int_equal(d.min, 1);
    assert_int_equal(d.max, 2);
    assert_int_equal(d.isolated, 0);
    assert_int_equal(d.hist[0], 0);
    assert_int_equal(d.hist[1], 2);
    assert_int_equal(d.hist[2], 1);
    assert_int_equal(d.descents, 0); /* degrees 1, 1, 2: ascending */
    sg_store_close(s);
    scratch_free(&t);
    tu_graph_free(&g);
}

static void degree_stats_many_chunks(void **state)
{
    (void)state;
    /* More vertices than one 4M-vertex chunk, against a direct count. */
    const uint64_t n = (4u << 20) + 12345;
    tu_graph g = tu_random_graph(n, 300000, 10, 77, false);
    scratch t = scratch_new();
    tu_write_store(t.path, &g, &(sg_write_options){.shard_bytes = 16 << 20});
    uint64_t want[34] = {0}, mn = UINT64_MAX, mx = 0, iso = 0, desc = 0;
    for (uint64_t v = 0; v < n; v++) {
        const uint64_t dg = g.x[v + 1] - g.x[v];
        desc += v > 0 && dg < g.x[v] - g.x[v - 1]; /* across the chunks' seams too */
        mn = dg < mn ? dg : mn;
        mx = dg > mx ? dg : mx;
        iso += dg == 0;
        want[dg ? 64 - __builtin_clzll(dg) : 0]++;
    }
    sg_store *s = NULL;
    sg_error err;
    assert_int_equal(sg_store_open(t.path, &s, &err), SG_OK);
    sg_degree_stats d;
    assert_int_equal(sg_store_degree_stats(s, &(sg_read_options){.threads = 4}, &d, &err), SG_OK);
    assert_int_equal(d.min, mn);
    assert_int_equal(d.max, mx);
    assert_int_equal(d.isolated, iso);
    assert_true(fabs(d.mean - (double)g.m / (double)n) < 1e-9);
    assert_memory_equal(d.hist, want, sizeof want);
    assert_int_equal(d.descents, desc);
    assert_true(desc > 0);
    sg_store_close(s);
    scratch_free(&t);
    tu_graph_free(&g);
}

static void degree_stats_empty(void **state)
{
    (void)state;
    tu_graph g = tu_random_graph(1, 0, 1, 1, false);
    g.n = 0;
    scratch t = scratch_new();
    tu_write_store(t.path, &g, NULL);
    sg_store *s = NULL;
    sg_error err;
    assert_int_equal(sg_store_open(t.path, &s, &err), SG_OK);
    sg_degree_stats d;
    memset(&d, 0xAB, sizeof d);
    assert_int_equal(sg_store_degree_stats(s, NULL, &d, &err), SG_OK);
    assert_int_equal(d.min, 0);
    assert_int_equal(d.max, 0);
    assert_int_equal(d.isolated, 0);
    assert_true(d.mean == 0.0);
    assert_int_equal(d.descents, 0);
    sg_store_close(s);
    scratch_free(&t);
    tu_graph_free(&g);
}

/* ------------------------------------------------------------ allocation failures */

/* Lets the n-th allocation fail for n = 0, 1, ... until a call runs without
 * reaching it; each failure must be SG_E_NOMEM (or `also`) and leak nothing. */
static void alloc_loop(const char *path, bool stats, sg_status final, sg_status also,
                       const char *final_msg)
{
    sg_store *s = NULL;
    sg_error err = {0};
    assert_int_equal(sg_store_open(path, &s, &err), SG_OK);
    const sg_read_options ro = {.threads = 2};
    long n = 0;
    for (;; n++) {
        const long live = sgi_alloc_live();
        const long calls = sgi_alloc_count();
        sgi_alloc_fail_after(n);
        sg_check_report rep;
        sg_degree_stats d;
        const sg_status st = stats ? sg_store_degree_stats(s, &ro, &d, &err)
                                   : sg_store_check(s, &ro, &rep, &err);
        sgi_alloc_fail_after(-1);
        assert_int_equal(sgi_alloc_live(), live);
        if (sgi_alloc_count() - calls <= n) { /* the failure was not reached */
            if (st != final) fail_msg("n=%ld: %d %s", n, st, err.msg);
            if (final_msg && !strstr(err.msg, final_msg))
                fail_msg("n=%ld: \"%s\" lacks \"%s\"", n, err.msg, final_msg);
            break;
        }
        if (st != SG_E_NOMEM && st != also) fail_msg("n=%ld: %d %s", n, st, err.msg);
        assert_true(st != SG_OK || also == SG_OK);
    }
    assert_true(n > 3);
    sg_store_close(s);
}

static void allocation_failures(void **state)
{
    (void)state;
    tu_graph g = tu_random_graph(200, 600, 100, 31, false); /* 3 shards */
    scratch t = scratch_new();
    tu_write_store(t.path, &g, &small_layout);
    sg_store *s = NULL;
    sg_error err;
    assert_int_equal(sg_store_open(t.path, &s, &err), SG_OK);
    assert_true(s->n_shards >= 3);
    sg_store_close(s);
    alloc_loop(t.path, false, SG_OK, SG_E_NOMEM, NULL);
    alloc_loop(t.path, true, SG_OK, SG_E_NOMEM, NULL);
    scratch_free(&t);
    tu_graph_free(&g);

    /* An asymmetric store: the search for the named edge may lose its
     * memory (a generic message then), never the verdict. */
    const uint32_t e[][3] = {{0, 1, 3}, {1, 0, 3}, {2, 4, 1}, {3, 4, 8}, {4, 3, 8}};
    g = tu_graph_from_edges(6, 5, e, true);
    t = scratch_new();
    tu_write_store(t.path, &g, NULL);
    relabel(t.path, 0, SGI_FLAG_DIRECTED);
    alloc_loop(t.path, false, SG_E_INVARIANT, SG_E_INVARIANT, "edge (2,4,w=1) has no reverse");
    scratch_free(&t);
    tu_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_stores_pass),
        cmocka_unit_test(self_loops_and_f32_pass),
        cmocka_unit_test(corrupt_block_is_named),
        cmocka_unit_test(truncated_shard_is_named),
        cmocka_unit_test(missing_reverse_edge_is_named),
        cmocka_unit_test(reverse_weight_differs_is_named),
        cmocka_unit_test(bad_lists_are_named),
        cmocka_unit_test(weight_order_lists_are_named),
        cmocka_unit_test(bad_weights_are_named),
        cmocka_unit_test(bad_offsets_are_named),
        cmocka_unit_test(large_symmetry_hash),
        cmocka_unit_test(degree_stats_exact),
        cmocka_unit_test(degree_stats_many_chunks),
        cmocka_unit_test(degree_stats_empty),
        cmocka_unit_test(allocation_failures),
    };
    const char *filter = getenv("SG_TEST_FILTER"); /* e.g. "degree_*" */
    if (filter) cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
