/* Store verification (`spillgraph check`) and degree statistics.
 *
 * sg_store_check walks the store shard by shard through
 * sg_store_foreach_shard, which reads, checksums and decodes every X, A and W
 * block (a bad block comes back as SG_E_CORRUPT naming the shard file and
 * the block, and is passed through unchanged). On each decoded shard it
 * verifies, in parallel over the shard's vertices:
 *
 *   - the offsets start at the shard table's e_begin, end at its e_end and
 *     never decrease;
 *   - every neighbour id is < n;
 *   - every list is strictly increasing (so no duplicate edges), or, in a
 *     store flagged weight order, strictly increasing in (weight key,
 *     neighbour) with no neighbour twice (storage/order.c);
 *   - f32 stores: every weight is finite, and negative only when the
 *     manifest's negative-weights flag is set.
 *
 * Self-loops are allowed: the format permits them (only `gen` and `convert`
 * drop them), so a store holding one is valid.
 *
 * After the walk (so only once every list has passed) it checks the
 * negative-weights flag against the data (an f32 store flagged negative
 * must hold a negative weight; a uint32 store must not be flagged), and for
 * undirected stores symmetry: over all stored edges it sums two
 * order-independent 64-bit multiset hashes (wrapping addition), H1 of the
 * triples (u, v, w) and H2 of the reversed triples (v, u, w). The store is
 * symmetric with equal weights exactly when the two multisets agree, so H1
 * must equal H2 (a false pass needs a 64-bit collision). Weights compare by
 * their bits, except that f32 -0 equals +0. That costs O(1) memory beyond
 * the shard buffers. When the hashes differ and the graph is small enough
 * to hold (n and m at most 2^28), the whole graph is read once more and
 * searched for the lowest vertex with an edge lacking an equal reverse, so
 * the message can name a concrete edge; otherwise (or if that memory cannot
 * be had) the message says the multiset hashes differ.
 *
 * Cost: one pass over the store (every block read and decoded once) with
 * memory about the largest shard's raw size; plus, for an asymmetric
 * undirected store, one more read of the whole graph.
 *
 * Violations are SG_E_INVARIANT, reported for the lowest offending vertex:
 * each shard's vertices are checked in parallel with a min-reduction over
 * the offending vertex, then that vertex is checked again serially to word
 * the message; shards are visited in vertex order.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---------------------------------------------------------------- helpers */

static int thread_count(const sg_read_options *opt)
{
    return opt && opt->threads > 0 ? opt->threads : omp_get_max_threads();
}

static inline uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDull;
    k ^= k >> 33;
    k *= 0xC4CEB9FE1A85EC53ull;
    k ^= k >> 33;
    return k;
}

/* A 64-bit hash of a directed edge (u, v) with weight bits w. The first
 * stage is a bijection of (u, v); the second mixes in the weight. */
static inline uint64_t edge_hash(uint32_t u, uint32_t v, uint32_t w)
{
    const uint64_t h = fmix64(((uint64_t)u << 32 | v) ^ 0x9E3779B97F4A7C15ull);
    return fmix64(h ^ ((uint64_t)w * 0xD6E8FEB86659FD93ull + 0x632BE59BD9B4E019ull));
}

/* Weight bits compared for symmetry: f32 -0 and +0 are the same weight. */
static inline uint32_t weight_key(uint32_t bits, bool f32)
{
    return f32 && bits == 0x80000000u ? 0u : bits;
}

static float bits_to_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Formats a weight for a message. */
static const char *weight_str(char buf[32], uint32_t bits, bool f32)
{
    if (f32) snprintf(buf, 32, "%g", (double)bits_to_float(bits));
    else snprintf(buf, 32, "%u", bits);
    return buf;
}

/* ---------------------------------------------------------------- per shard */

enum problem_kind {
    P_NONE = 0,
    P_OFFSETS,  /* x[i+1] < x[i], or outside the shard's edge range */
    P_RANGE,    /* neighbour id >= n */
    P_ORDER,    /* list not in the store's order */
    P_DUP,      /* a neighbour twice */
    P_NOMEM,    /* a long weight-ordered list's id set could not be had */
    P_WEIGHT,   /* f32 weight NaN or infinite */
    P_NEGATIVE  /* negative weight without the manifest flag */
};

typedef struct problem {
    enum problem_kind kind;
    uint64_t edge;      /* global edge index at fault (not for P_OFFSETS) */
    uint32_t id, prev;  /* the neighbour; the one before it (P_ORDER) */
    uint32_t wbits;     /* the weight's bits (P_WEIGHT, P_NEGATIVE) */
    uint64_t xb, xe;    /* the vertex's offsets x[v], x[v+1] */
} problem;

typedef struct shard_view {
    uint64_t v_begin, e_begin, e_end;
    uint64_t n;         /* vertices of the store */
    const uint64_t *x;
    const uint32_t *a;
    const uint32_t *w;  /* weight bits */
    bool f32;
    bool negative_ok;
    bool hash;          /* accumulate the symmetry hashes */
    bool weight_order;  /* lists in weight order (SGI_FLAG_WEIGHT_ORDER) */
} shard_view;

/* Checks local vertex i of a shard. Returns false and fills *p (when not
 * NULL) at the first problem; adds its edges' hashes and notes a negative
 * weight otherwise. */
static bool check_vertex(const shard_view *sv, uint64_t i, problem *p, uint64_t *hf,
                         uint64_t *hr, bool *neg, sgi_idset *ids)
{
    const uint64_t b = sv->x[i], e = sv->x[i + 1];
    problem q = {.kind = P_NONE, .xb = b, .xe = e};
    const uint32_t u = (uint32_t)(sv->v_begin + i);
    uint64_t f = 0, r = 0;
    bool ng = false;
    if (e < b || b < sv->e_begin || e > sv->e_end) {
        q.kind = P_OFFSETS;
        goto out;
    }
    for (uint64_t k = b; k < e; k++) {
        const uint32_t v = sv->a[k - sv->e_begin];
        const uint32_t wb = sv->w[k - sv->e_begin];
        q.edge = k;
        q.id = v;
        q.wbits = wb;
        if (v >= sv->n) {
            q.kind = P_RANGE;
            goto out;
        }
        if (sv->f32) {
            const float fw = bits_to_float(wb);
            if (!isfinite(fw)) {
                q.kind = P_WEIGHT;
                goto out;
            }
            if (fw < 0) {
                if (!sv->negative_ok) {
                    q.kind = P_NEGATIVE;
                    goto out;
                }
                ng = true;
            }
        }
        if (sv->hash) {
            const uint32_t wk = weight_key(wb, sv->f32);
            f += edge_hash(u, v, wk);
            r += edge_hash(v, u, wk);
        }
    }
    if (e > b) {
        uint64_t at = 0;
        const uint64_t o = b - sv->e_begin;
        const int c = sgi_list_order_check(sv->a + o, sv->w + o, e - b, sv->weight_order, sv->f32,
                                           ids, &at);
        if (c != SGI_LIST_OK) {
            q.kind = c == SGI_LIST_ORDER ? P_ORDER : c == SGI_LIST_DUP ? P_DUP : P_NOMEM;
            q.edge = b + at;
            q.id = sv->a[o + at];
            q.prev = at > 0 ? sv->a[o + at - 1] : 0;
            q.wbits = sv->w[o + at];
        }
    }
out:
    if (p) *p = q;
    if (q.kind != P_NONE) return false;
    *hf += f;
    *hr += r;
    if (ng) *neg = true;
    return true;
}

typedef struct check_ctx {
    sg_store *s;
    sg_store_info info;
    int threads;
    uint32_t shard;       /* the shard the next callback gets */
    uint64_t h_fwd, h_rev;
    bool any_negative;
} check_ctx;

static sg_status report_problem(const check_ctx *c, const sg_shard_info *si, uint64_t v,
                                const problem *p, sg_error *err)
{
    const char *file = si->file;
    const char *path = sg_store_path(c->s);
    const bool f32 = c->info.weight_type == SG_WEIGHT_F32;
    char wb[32];
    switch (p->kind) {
    case P_RANGE:
        return sgi_fail(err, SG_E_INVARIANT,
                        "%s/%s: vertex %llu: neighbour %u out of range (n = %llu) at edge %llu",
                        path, file, (unsigned long long)v, p->id,
                        (unsigned long long)c->info.n_vertices, (unsigned long long)p->edge);
    case P_DUP:
        return sgi_fail(err, SG_E_INVARIANT,
                        "%s/%s: vertex %llu: duplicate edge (%llu,%u) at edge %llu", path, file,
                        (unsigned long long)v, (unsigned long long)v, p->id,
                        (unsigned long long)p->edge);
    case P_NOMEM:
        return sgi_fail(err, SG_E_NOMEM,
                        "%s/%s: vertex %llu: out of memory checking its list for repeated "
                        "neighbours",
                        path, file, (unsigned long long)v);
    case P_ORDER:
        if (c->info.weight_order)
            return sgi_fail(err, SG_E_INVARIANT,
                            "%s/%s: vertex %llu: neighbour list not in weight order (%u, weight "
                            "%s, after %u at edge %llu)",
                            path, file, (unsigned long long)v, p->id,
                            weight_str(wb, p->wbits, f32), p->prev,
                            (unsigned long long)p->edge);
        return sgi_fail(err, SG_E_INVARIANT,
                        "%s/%s: vertex %llu: neighbour list not strictly increasing (%u after %u "
                        "at edge %llu)",
                        path, file, (unsigned long long)v, p->id, p->prev,
                        (unsigned long long)p->edge);
    case P_WEIGHT:
        return sgi_fail(err, SG_E_INVARIANT,
                        "%s/%s: vertex %llu: edge (%llu,%u) has weight %s (not finite)", path,
                        file, (unsigned long long)v, (unsigned long long)v, p->id,
                        weight_str(wb, p->wbits, f32));
    case P_NEGATIVE:
        return sgi_fail(err, SG_E_INVARIANT,
                        "%s/%s: vertex %llu: edge (%llu,%u) has negative weight %s but the "
                        "manifest does not flag negative weights",
                        path, file, (unsigned long long)v, (unsigned long long)v, p->id,
                        weight_str(wb, p->wbits, f32));
    case P_OFFSETS:
    case P_NONE:
    default:
        break;
    }
    return sgi_fail(err, SG_E_INVARIANT,
                    "%s/%s: vertex %llu: offsets [%llu, %llu) decrease or leave the shard's "
                    "edges [%llu, %llu)",
                    path, file, (unsigned long long)v, (unsigned long long)p->xb,
                    (unsigned long long)p->xe, (unsigned long long)si->e_begin,
                    (unsigned long long)si->e_end);
}

static sg_status check_shard(void *vctx, uint64_t v_begin, uint64_t v_end, const uint64_t *x,
                             const uint32_t *a, const void *w, sg_error *err)
{
    sg_status st = SG_OK;
    check_ctx *c = vctx;
    sg_shard_info si;
    SG_TRY(sg_store_shard_info(c->s, c->shard, &si, err));
    c->shard++;
    const char *path = sg_store_path(c->s);
    SG_CHECK(si.v_begin == v_begin && si.v_end == v_end, SG_E_INVARIANT, err,
             "%s/%s: walked vertices [%llu, %llu), the shard table says [%llu, %llu)", path,
             si.file, (unsigned long long)v_begin, (unsigned long long)v_end,
             (unsigned long long)si.v_begin, (unsigned long long)si.v_end);
    const uint64_t nv = v_end - v_begin;
    SG_CHECK(x[0] == si.e_begin, SG_E_INVARIANT, err,
             "%s/%s: vertex %llu: list starts at edge %llu, the shard table says %llu", path,
             si.file, (unsigned long long)v_begin, (unsigned long long)x[0],
             (unsigned long long)si.e_begin);

    const shard_view sv = {.v_begin = v_begin, .e_begin = si.e_begin, .e_end = si.e_end,
                           .n = c->info.n_vertices, .x = x, .a = a, .w = w,
                           .f32 = c->info.weight_type == SG_WEIGHT_F32,
                           .negative_ok = c->info.negative_weights, .hash = !c->info.directed,
                           .weight_order = c->info.weight_order};
    uint64_t bad = UINT64_MAX, hf = 0, hr = 0;
    bool neg = false;
#pragma omp parallel num_threads(c->threads) reduction(min : bad) reduction(+ : hf, hr) \
    reduction(|| : neg)
    {
        sgi_idset ids = {0};
#pragma omp for schedule(dynamic, 1024)
        for (uint64_t i = 0; i < nv; i++)
            if (!check_vertex(&sv, i, NULL, &hf, &hr, &neg, &ids) && i < bad) bad = i;
        sgi_idset_free(&ids);
    }

    if (bad != UINT64_MAX) {
        problem p;
        uint64_t f = 0, r = 0;
        bool ng = false;
        sgi_idset ids = {0};
        check_vertex(&sv, bad, &p, &f, &r, &ng, &ids);
        sgi_idset_free(&ids);
        st = report_problem(c, &si, v_begin + bad, &p, err);
        goto fail;
    }
    /* Every list lies inside the shard's edges and they do not decrease;
     * they must also use all of them. */
    SG_CHECK(x[nv] == si.e_end, SG_E_INVARIANT, err,
             "%s/%s: vertex %llu: offsets end at edge %llu, the shard table says %llu", path,
             si.file, (unsigned long long)(v_end - 1), (unsigned long long)x[nv],
             (unsigned long long)si.e_end);
    c->h_fwd += hf;
    c->h_rev += hr;
    if (neg) c->any_negative = true;
fail:
    return st;
}

/* ---------------------------------------------------------------- symmetry */

/* Graphs up to this many vertices and edges are searched for a concrete
 * asymmetric edge when the symmetry hashes differ: the search holds X, A and
 * W, 8(n+1) + 8m bytes, so at most 4 GiB. */
#define SEARCH_MAX ((uint64_t)1 << 28)

/* Position of `key` in the sorted list a[b, e), or UINT64_MAX. */
static uint64_t find_sorted(const uint32_t *a, uint64_t b, uint64_t e, uint32_t key)
{
    while (b < e) {
        const uint64_t mid = b + (e - b) / 2;
        if (a[mid] < key) b = mid + 1;
        else if (a[mid] > key) e = mid;
        else return mid;
    }
    return UINT64_MAX;
}

/* Position of `key` in a[b, e) in any order, or UINT64_MAX. */
static uint64_t find_any(const uint32_t *a, uint64_t b, uint64_t e, uint32_t key)
{
    for (; b < e; b++)
        if (a[b] == key) return b;
    return UINT64_MAX;
}

/* First edge of u's list without an equal reverse: returns its index and
 * sets *rev to the reverse edge's index (UINT64_MAX: none), or UINT64_MAX. */

static uint64_t asymmetric_edge(const uint64_t *x, const uint32_t *a, const uint32_t *w,
                                bool f32, bool weight_order, uint32_t u, uint64_t *rev)
{
    for (uint64_t k = x[u]; k < x[u + 1]; k++) {
        const uint32_t v = a[k];
        const uint64_t j = weight_order ? find_any(a, x[v], x[v + 1], u)
                                        : find_sorted(a, x[v], x[v + 1], u);
        if (j == UINT64_MAX || weight_key(w[j], f32) != weight_key(w[k], f32)) {
            *rev = j;
            return k;
        }
    }
    return UINT64_MAX;
}

/* Called when the hashes differ: reads the whole graph (if small enough)
 * and names the lowest vertex's first edge lacking an equal reverse. A
 * failed allocation only loses the detail. */
static sg_status report_asymmetry(const check_ctx *c, const sg_read_options *opt, sg_error *err)
{
    sg_status st = SG_OK;
    const char *path = sg_store_path(c->s);
    const uint64_t n = c->info.n_vertices, m = c->info.n_edges;
    const bool f32 = c->info.weight_type == SG_WEIGHT_F32;
    uint64_t *x = NULL;
    uint32_t *a = NULL, *w = NULL;
    if (n > SEARCH_MAX || m > SEARCH_MAX) goto generic;
    x = sgi_malloc((n + 1) * sizeof *x);
    a = sgi_malloc((m + 1) * sizeof *a);
    w = sgi_malloc((m + 1) * sizeof *w);
    if (!x || !a || !w) goto generic;
    const sg_read_request rq = {.v_begin = 0, .v_end = n, .x = x, .a = a, .w = w};
    st = sg_store_read(c->s, &rq, opt, NULL, err);
    if (st == SG_E_NOMEM) goto generic;
    if (st != SG_OK) goto fail;

    uint64_t bad = UINT64_MAX;
#pragma omp parallel for schedule(dynamic, 1024) num_threads(c->threads) reduction(min : bad)
    for (uint64_t u = 0; u < n; u++) {
        uint64_t rev;
        if (asymmetric_edge(x, a, w, f32, c->info.weight_order, (uint32_t)u, &rev) != UINT64_MAX &&
            u < bad)
            bad = u;
    }
    if (bad == UINT64_MAX) goto generic; /* the store changed under us */

    uint64_t rev = UINT64_MAX;
    const uint64_t k = asymmetric_edge(x, a, w, f32, c->info.weight_order, (uint32_t)bad, &rev);
    sg_shard_info si;
    SG_TRY(sg_store_shard_info(c->s, sgi_shard_of_vertex(c->s, bad), &si, err));
    const unsigned long long U = bad, V = a[k];
    char wb[32], wr[32];
    if (rev == UINT64_MAX)
        st = sgi_fail(err, SG_E_INVARIANT,
                      "%s/%s: vertex %llu: edge (%llu,%llu,w=%s) has no reverse edge (%llu,%llu) "
                      "in an undirected store",
                      path, si.file, U, U, V, weight_str(wb, w[k], f32), V, U);
    else
        st = sgi_fail(err, SG_E_INVARIANT,
                      "%s/%s: vertex %llu: edge (%llu,%llu,w=%s): reverse weight differs: "
                      "(%llu,%llu) has w=%s",
                      path, si.file, U, U, V, weight_str(wb, w[k], f32), V, U,
                      weight_str(wr, w[rev], f32));
    goto fail;
generic:
    st = sgi_fail(err, SG_E_INVARIANT,
                  "%s: undirected store is not symmetric: the multiset hash of its edges "
                  "(u,v,w) differs from that of the reversed edges (v,u,w)%s",
                  path,
                  n > SEARCH_MAX || m > SEARCH_MAX
                      ? " (too large to search for the offending edge)"
                      : "");
fail:
    sgi_free(x);
    sgi_free(a);
    sgi_free(w);
    return st;
}

/* ---------------------------------------------------------------- check */

sg_status sg_store_check(sg_store *s, const sg_read_options *opt, sg_check_report *rep,
                         sg_error *err)
{
    sg_status st = SG_OK;
    SG_CHECK(s, SG_E_INVALID, err, "check: no store given");
    check_ctx c;
    memset(&c, 0, sizeof c);
    c.s = s;
    sg_store_get_info(s, &c.info);
    c.threads = thread_count(opt);

    SG_TRY(sg_store_foreach_shard(s, true, opt, check_shard, &c, err));
    SG_CHECK(c.shard == c.info.n_shards, SG_E_INVARIANT, err,
             "%s: walked %u of %u shards", sg_store_path(s), c.shard, c.info.n_shards);

    if (c.info.negative_weights) {
        SG_CHECK(c.info.weight_type == SG_WEIGHT_F32, SG_E_INVARIANT, err,
                 "%s: the manifest flags negative weights in a uint32 store", sg_store_path(s));
        SG_CHECK(c.any_negative, SG_E_INVARIANT, err,
                 "%s: the manifest flags negative weights but no weight is negative",
                 sg_store_path(s));
    }
    if (!c.info.directed && c.h_fwd != c.h_rev) SG_TRY(report_asymmetry(&c, opt, err));
    /* The original-id mapping (convert --ids compact), if any: checksum,
     * length and strictly increasing order. */
    SG_TRY(sg_store_check_ids(s, err));

    if (rep) {
        sg_check_report r;
        memset(&r, 0, sizeof r);
        for (int k = 0; k < SG_NARRAYS; k++) r.blocks += c.info.n_blocks[k];
        r.vertices = c.info.n_vertices;
        r.edges = c.info.n_edges;
        r.symmetry_checked = !c.info.directed;
        *rep = r;
    }
fail:
    return st;
}

/* ---------------------------------------------------------------- degrees */

/* Vertices of X read per call: 32 MiB of offsets. */
#define DEGREE_CHUNK ((uint64_t)4 << 20)

sg_status sg_store_degree_stats(sg_store *s, const sg_read_options *opt, sg_degree_stats *out,
                                sg_error *err)
{
    sg_status st = SG_OK;
    uint64_t *x = NULL;
    SG_CHECK(s && out, SG_E_INVALID, err, "degree stats: no store or output given");
    sg_store_info info;
    sg_store_get_info(s, &info);
    const int threads = thread_count(opt);
    const uint64_t n = info.n_vertices;
    const uint64_t chunk = n < DEGREE_CHUNK ? n : DEGREE_CHUNK;
    SG_ALLOC(x, sgi_malloc((chunk + 1) * sizeof *x), err, "a degree buffer");

    uint64_t dmin = UINT64_MAX, dmax = 0, sum = 0, isolated = 0, descents = 0;
    uint64_t hist[34];
    memset(hist, 0, sizeof hist);
    uint64_t last = 0; /* the degree of the vertex before the chunk (v0 > 0) */
    for (uint64_t v0 = 0; v0 < n; v0 += chunk) {
        const uint64_t v1 = n - v0 < chunk ? n : v0 + chunk;
        const sg_read_request rq = {.v_begin = v0, .v_end = v1, .x = x};
        SG_TRY(sg_store_read(s, &rq, opt, NULL, err));
        const uint64_t cnt = v1 - v0;
        uint64_t bad = UINT64_MAX;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(min : dmin, bad) \
    reduction(max : dmax) reduction(+ : sum, isolated, descents, hist[:34])
        for (uint64_t i = 0; i < cnt; i++) {
            if (x[i + 1] < x[i]) {
                if (i < bad) bad = i;
                continue;
            }
            const uint64_t d = x[i + 1] - x[i];
            /* the degree before: in the chunk, or the last chunk's last
             * (decreasing offsets fail the call below, whatever this counts) */
            if (i > 0 ? d < x[i] - x[i - 1] : v0 > 0 && d < last)
                descents++;
            if (d < dmin) dmin = d;
            if (d > dmax) dmax = d;
            sum += d;
            if (d == 0) {
                isolated++;
                hist[0]++;
            } else {
                const int k = 64 - __builtin_clzll(d); /* d in [2^(k-1), 2^k) */
                hist[k < 33 ? k : 33]++;
            }
        }
        if (bad != UINT64_MAX) {
            sg_shard_info si;
            SG_TRY(sg_store_shard_info(s, sgi_shard_of_vertex(s, v0 + bad), &si, err));
            st = sgi_fail(err, SG_E_INVARIANT,
                          "%s/%s: vertex %llu: offsets decrease (%llu after %llu); run check",
                          sg_store_path(s), si.file, (unsigned long long)(v0 + bad),
                          (unsigned long long)x[bad + 1], (unsigned long long)x[bad]);
            goto fail;
        }
        last = x[cnt] - x[cnt - 1];
    }
    sg_degree_stats r;
    memset(&r, 0, sizeof r);
    r.min = n ? dmin : 0;
    r.max = dmax;
    r.mean = n ? (double)sum / (double)n : 0.0;
    r.isolated = isolated;
    r.descents = descents;
    memcpy(r.hist, hist, sizeof r.hist);
    *out = r;
fail:
    sgi_free(x);
    return st;
}
