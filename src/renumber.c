/* Renumbering: a store rewritten with its vertices in order of degree or
 * in breadth-first (locality) order (issue 6: with the hybrid backend's
 * split point a vertex prefix, the order decides which lists stay in device
 * memory and which stream from the host; a locality order puts the
 * vertices of a cluster together, as the reference papers' renumbering
 * does for SSCA2). In memory: the input's X, A and W, the permutation and
 * the output's arrays, about twice the graph.
 *
 * "none" keeps the ids, to change the lists' order alone. Weight order
 * (opt->weight_order): each list by (weight key, new id), the reference
 * papers' local sort of the lists by weight, flagged in the new store.
 *
 * Degree orders: new id = rank of the vertex by (degree, descending or
 * ascending; then old id ascending). Breadth-first: new id = the position
 * in a breadth-first search over the lists (sgi_bfs_order), reversed for
 * "bfs-rev". Either way the order is a function of the store alone. Every
 * list is relabelled and sorted by new neighbour id (the store keeps lists
 * strictly increasing); weights travel with their entries. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SHORT_LIST 64

const char *sg_renumber_order_name(sg_renumber_order o)
{
    switch (o) {
    case SG_ORDER_DEGREE_DESC: return "degree";
    case SG_ORDER_DEGREE_ASC: return "degree-asc";
    case SG_ORDER_BFS: return "bfs";
    case SG_ORDER_BFS_REV: return "bfs-rev";
    case SG_ORDER_NONE: return "none";
    }
    return "unknown";
}

bool sg_renumber_order_parse(const char *name, sg_renumber_order *out)
{
    for (int o = SG_ORDER_DEGREE_DESC; o <= SG_ORDER_NONE; o++)
        if (name && strcmp(name, sg_renumber_order_name((sg_renumber_order)o)) == 0) {
            *out = (sg_renumber_order)o;
            return true;
        }
    return false;
}

/* claim[] states besides a frontier position (< n <= 2^32 - 1) */
#define UNSEEN UINT64_MAX
#define PLACED (UINT64_MAX - 1)

/* Offers position i of the frontier for u: claim[u] becomes the smallest
 * position offered (placed vertices are left alone). */
static void claim_min(uint64_t *claim, uint32_t u, uint64_t i)
{
    uint64_t old = __atomic_load_n(&claim[u], __ATOMIC_RELAXED);
    while ((old == UNSEEN || (old != PLACED && old > i)) &&
           !__atomic_compare_exchange_n(&claim[u], &old, i, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
    }
}

uint64_t sgi_bfs_order(const uint64_t *x, const uint32_t *a, uint64_t n, int threads,
                       uint64_t par_min, uint32_t *order, uint64_t *claim, uint64_t *cnt)
{
    const int nt = threads > 0 ? threads : omp_get_max_threads();
    uint64_t placed = 0, parallel_levels = 0;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (uint64_t v = 0; v < n; v++) claim[v] = UNSEEN;
    for (uint64_t r = 0; r < n; r++) {
        if (claim[r] != UNSEEN) continue;
        claim[r] = PLACED;
        order[placed++] = (uint32_t)r;
        uint64_t f0 = placed - 1, f1 = placed;
        while (f0 < f1) {
            const uint64_t nf = f1 - f0;
            if (nf < par_min) {
                /* the queue itself: each unseen neighbour in list order */
                for (uint64_t i = f0; i < f1; i++) {
                    const uint32_t v = order[i];
                    for (uint64_t p = x[v]; p < x[v + 1]; p++)
                        if (claim[a[p]] == UNSEEN) {
                            claim[a[p]] = PLACED;
                            order[placed++] = a[p];
                        }
                }
            } else {
                /* The same order in parallel: a neighbour goes to the first
                 * frontier vertex that reaches it, and each frontier vertex
                 * places its own in list order after the earlier ones'. */
                parallel_levels++;
#pragma omp parallel for schedule(dynamic, 256) num_threads(nt)
                for (uint64_t i = 0; i < nf; i++) {
                    const uint32_t v = order[f0 + i];
                    for (uint64_t p = x[v]; p < x[v + 1]; p++) claim_min(claim, a[p], i);
                }
#pragma omp parallel for schedule(dynamic, 256) num_threads(nt)
                for (uint64_t i = 0; i < nf; i++) {
                    const uint32_t v = order[f0 + i];
                    uint64_t c = 0;
                    for (uint64_t p = x[v]; p < x[v + 1]; p++)
                        c += __atomic_load_n(&claim[a[p]], __ATOMIC_RELAXED) == i;
                    cnt[i] = c;
                }
                uint64_t at = placed;
                for (uint64_t i = 0; i < nf; i++) {
                    const uint64_t c = cnt[i];
                    cnt[i] = at;
                    at += c;
                }
#pragma omp parallel for schedule(dynamic, 256) num_threads(nt)
                for (uint64_t i = 0; i < nf; i++) {
                    const uint32_t v = order[f0 + i];
                    uint64_t o = cnt[i];
                    for (uint64_t p = x[v]; p < x[v + 1]; p++)
                        if (__atomic_load_n(&claim[a[p]], __ATOMIC_RELAXED) == i) {
                            /* only this vertex's thread sees its own claims */
                            __atomic_store_n(&claim[a[p]], PLACED, __ATOMIC_RELAXED);
                            order[o++] = a[p];
                        }
                }
                placed = at;
            }
            f0 = f1;
            f1 = placed;
        }
    }
    return parallel_levels;
}

sg_status sg_store_renumber(const char *in_path, const char *out_path,
                            const sg_renumber_options *opt, sg_renumber_report *rep,
                            sg_error *err)
{
    if (!in_path || !out_path || !opt)
        return sgi_fail(err, SG_E_INVALID, "sg_store_renumber: NULL argument");
    if ((unsigned)opt->order > SG_ORDER_NONE)
        return sgi_fail(err, SG_E_INVALID, "renumber: unknown order %d", (int)opt->order);
    sg_store *s = NULL;
    sg_store_writer *wr = NULL;
    uint64_t *x = NULL, *nx = NULL, *keys = NULL, *tmp = NULL;
    uint32_t *a = NULL, *na = NULL, *w = NULL, *nw = NULL, *newid = NULL;
    sg_status st = SG_OK;
    const double t0 = sgi_now();
    SG_TRY(sg_store_open(in_path, &s, err));
    sg_store_info info;
    sg_store_get_info(s, &info);
    const uint64_t n = info.n_vertices, m = info.n_edges;
    SG_CHECK(!info.has_original_ids, SG_E_UNSUPPORTED, err,
             "%s keeps original ids (convert --ids compact): the store format holds only an "
             "increasing id mapping, which a degree order would break; renumber the edge list "
             "before converting instead",
             in_path);
    SG_CHECK(n <= UINT32_MAX, SG_E_RANGE, err, "%s: %llu vertices do not fit 32-bit ids", in_path,
             (unsigned long long)n);
    const size_t nn = (size_t)n + 1, mm = m ? (size_t)m : 1;
    SG_CHECK((x = sgi_huge_alloc(nn * 8)) && (nx = sgi_huge_alloc(nn * 8)) &&
                 (keys = sgi_huge_alloc(nn * 8)) && (tmp = sgi_huge_alloc(nn * 8)) &&
                 (newid = sgi_huge_alloc(nn * 4)) && (a = sgi_huge_alloc(mm * 4)) &&
                 (w = sgi_huge_alloc(mm * 4)) && (na = sgi_huge_alloc(mm * 4)) &&
                 (nw = sgi_huge_alloc(mm * 4)),
             SG_E_NOMEM, err,
             "renumber: out of memory for %llu vertices and %llu edges (%llu bytes: the graph "
             "twice and the permutation)",
             (unsigned long long)n, (unsigned long long)m,
             (unsigned long long)(40 * (n + 1) + 16 * m));
    sg_read_options ro;
    memset(&ro, 0, sizeof ro);
    ro.threads = opt->threads;
    const sg_read_request req = {.v_begin = 0, .v_end = n, .x = x, .a = a, .w = w};
    SG_TRY(sg_store_read(s, &req, &ro, NULL, err));
    sg_store_close(s);
    s = NULL;
    const double t1 = sgi_now();

    /* The order: keys[i] = the old id of new vertex i (in its low half). */
    const bool bfs = opt->order == SG_ORDER_BFS || opt->order == SG_ORDER_BFS_REV;
    if (opt->order == SG_ORDER_NONE) {
        for (uint64_t i = 0; i < n; i++) keys[i] = i;
    } else if (bfs) {
        /* newid and nx serve as the search's order and counts */
        (void)sgi_bfs_order(x, a, n, opt->threads, 4096, newid, tmp, nx);
        const bool rev = opt->order == SG_ORDER_BFS_REV;
        for (uint64_t i = 0; i < n; i++) keys[i] = newid[rev ? n - 1 - i : i];
    } else {
        /* degree in the high half (complemented for descending) */
        const bool desc = opt->order == SG_ORDER_DEGREE_DESC;
        for (uint64_t v = 0; v < n; v++) {
            const uint64_t d = x[v + 1] - x[v]; /* <= n - 1: lists are strictly increasing */
            keys[v] = (desc ? UINT32_MAX - d : d) << 32 | v;
        }
        const uint64_t *order = sgi_radix_sort_hi(keys, tmp, n, 32); /* stable: ties by id */
        if (order != keys) memcpy(keys, order, n * sizeof *keys);
    }
    for (uint64_t i = 0; i < n; i++) newid[(uint32_t)keys[i]] = (uint32_t)i;
    nx[0] = 0;
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t v = (uint32_t)keys[i];
        nx[i + 1] = nx[i] + (x[v + 1] - x[v]);
    }
    /* The lists, relabelled and sorted as packed keys (new neighbour << 32 |
     * weight bits) by csr_build's list sort (the ids are distinct within a
     * list: nothing is dropped), or in weight order as (weight key << 32 |
     * new neighbour) by sgi_sort_u64. Lists up to SHORT_LIST sort on
     * the stack. */
    unsigned nbits = 1;
    while (nbits < 32 && (n - 1) >> nbits) nbits++;
    int failed = 0;
    const int nt = opt->threads > 0 ? opt->threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 4096) reduction(| : failed) num_threads(nt)
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t v = (uint32_t)keys[i];
        const uint64_t b = x[v], d = x[v + 1] - b, o = nx[i];
        uint64_t small[2 * SHORT_LIST], *k = small;
        if (d > SHORT_LIST && !(k = malloc(2 * d * sizeof *k))) {
            failed = 1;
            continue;
        }
        if (opt->weight_order) { /* (weight key, new id): distinct, sorted once */
            for (uint64_t j = 0; j < d; j++)
                k[j] = (uint64_t)sgi_weight_key(info.weight_type, w[b + j]) << 32 |
                       newid[a[b + j]];
            const uint64_t *r = sgi_sort_u64(k, d, k + d);
            for (uint64_t j = 0; j < d; j++) {
                na[o + j] = (uint32_t)r[j];
                nw[o + j] = sgi_weight_unkey(info.weight_type, (uint32_t)(r[j] >> 32));
            }
        } else {
            for (uint64_t j = 0; j < d; j++) k[j] = (uint64_t)newid[a[b + j]] << 32 | w[b + j];
            (void)sgi_sort_dedupe(k, d, k + d, nbits);
            for (uint64_t j = 0; j < d; j++) {
                na[o + j] = (uint32_t)(k[j] >> 32);
                nw[o + j] = (uint32_t)k[j];
            }
        }
        if (k != small) free(k);
    }
    uint64_t longest = 0;
    for (uint64_t i = 0; i < n; i++)
        if (nx[i + 1] - nx[i] > longest) longest = nx[i + 1] - nx[i];
    SG_CHECK(!failed, SG_E_NOMEM, err,
             "renumber: out of memory sorting a list (the longest has %llu entries)",
             (unsigned long long)longest);
    const double t2 = sgi_now();

    sg_write_options wo = opt->store;
    wo.directed = info.directed;
    wo.weight_type = info.weight_type;
    wo.weight_order = opt->weight_order;
    SG_TRY(sg_store_writer_open(out_path, n, &wo, &wr, err));
    const uint64_t chunk = (uint64_t)1 << 20;
    for (uint64_t v0 = 0; v0 < n; v0 += chunk) {
        const uint64_t cnt = n - v0 < chunk ? n - v0 : chunk;
        SG_TRY(sg_store_writer_append(wr, cnt, nx + v0, na + nx[v0], nw + nx[v0], err));
    }
    st = sg_store_writer_finish(wr, err);
    wr = NULL;
    SG_TRY(st);
    if (rep) {
        memset(rep, 0, sizeof *rep);
        rep->n_vertices = n;
        rep->n_edges = m;
        rep->max_degree = longest;
        rep->seconds_read = t1 - t0;
        rep->seconds_permute = t2 - t1;
        rep->seconds_write = sgi_now() - t2;
        rep->memory_bytes = 40 * (n + 1) + 16 * m;
    }
fail:
    sg_store_writer_abort(wr);
    sg_store_close(s);
    sgi_free(x), sgi_free(nx), sgi_free(keys), sgi_free(tmp), sgi_free(newid);
    sgi_free(a), sgi_free(w), sgi_free(na), sgi_free(nw);
    return st;
}
