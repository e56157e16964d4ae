/* Minimum spanning forest by Borůvka on the CPU (OpenMP), shaped like the
 * GPU algorithm it will mirror (Kolganov 2016, papers/): neighbour lists
 * sorted by (weight, neighbour) in a private copy, one segment [lo, end) per
 * vertex whose `lo` only advances, per-tree minimum by the tie rule
 * (weight, min(u,v), max(u,v)), 2-cycles broken towards the smaller tree id,
 * pointer jumping, renumbering of the live trees to 0..k-1.
 *
 * Data (n vertices, m' directed edges without self-loops, T threads):
 *   E      m' x 8 B   key << 32 | neighbour, each list sorted as integers
 *   xo     (n+1) x 8  offsets of E
 *   lo     n x 8      first edge of each list not yet known to be internal
 *   comp   n x 4      tree of each vertex (current only for vertices of live trees)
 *   best   n x 12     per tree: min (key << 32 | min(u,v)) and then min max(u,v)
 *   nxt, par, rn      n x 4 each: chosen tree, parent after 2-cycle removal, new ids
 *   scan, member      2 x n x 4 each (double-buffered vertex lists)
 *   cand, cmax        n x 12     per scanned vertex: its candidate edge
 * about 8 m' + 90 n bytes in all, plus T x 8 x max_degree sort scratch while
 * preprocessing. A store in weight order (renumber --lists weight) fills E
 * in sorted order already: the sort and its scratch are skipped. */
#include <omp.h>
#include <string.h>

#include "internal.h"

#define NONE32 UINT32_MAX
#define NONE64 UINT64_MAX

/* Replaces a[0..k) by its exclusive prefix sums; returns the total. */
static uint64_t exclusive_sum(uint64_t *a, int k)
{
    uint64_t acc = 0;
    for (int j = 0; j < k; j++) {
        const uint64_t c = a[j];
        a[j] = acc;
        acc += c;
    }
    return acc;
}

/* ------------------------------------------------------------ helpers */

/* Block [*b, *e) of thread t of nt over [0, n). */
static inline void block_of(uint64_t n, int t, int nt, uint64_t *b, uint64_t *e)
{
    *b = n * (uint64_t)t / (uint64_t)nt;
    *e = n * (uint64_t)(t + 1) / (uint64_t)nt;
}

static inline void atomic_min_u64(uint64_t *p, uint64_t v)
{
    uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < cur &&
           !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

static inline void atomic_min_u32(uint32_t *p, uint32_t v)
{
    uint32_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < cur &&
           !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* Sorts a[0..len) ascending as unsigned integers (sgi_sort_u64: AVX-512
 * vectors up to SGI_SORT_VECTOR_MAX elements; tmp holds len elements). The
 * lists' sort is most of the preprocessing: on R-MAT 22 and SSCA2 22 (two
 * threads, development machine) 0.61-0.84 s of it, against 0.14-0.23 s for
 * a store already in weight order. */
static void sort_list(uint64_t *a, uint64_t *tmp, uint64_t len)
{
    const uint64_t *r = sgi_sort_u64(a, len, tmp);
    if (r != a) memcpy(a, r, len * sizeof *a);
}

/* The working state of one sg_mst call. */
typedef struct mst_state {
    uint64_t n, m2;            /* vertices, edges kept (no self-loops) */
    int threads;
    sg_weight_type wt;
    uint64_t *E, *xo, *lo, *cand, *bestA, *tsum;
    uint32_t *comp, *bestB, *nxt, *par, *rn, *cmax;
    uint32_t *scan, *scan2, *mem, *mem2;
    uint64_t n_scan, n_mem;
    uint64_t *sort_tmp;        /* threads x sort_stride, preprocessing only */
    uint64_t sort_stride;      /* keys of scratch a thread: max_degree, 1 when presorted */
    bool presorted;            /* the store's weight order: E is filled sorted */
} mst_state;

static void state_free(mst_state *s)
{
    sgi_free(s->E);
    sgi_free(s->xo);
    sgi_free(s->lo);
    sgi_free(s->cand);
    sgi_free(s->bestA);
    sgi_free(s->tsum);
    sgi_free(s->comp);
    sgi_free(s->bestB);
    sgi_free(s->nxt);
    sgi_free(s->par);
    sgi_free(s->rn);
    sgi_free(s->cmax);
    sgi_free(s->scan);
    sgi_free(s->scan2);
    sgi_free(s->mem);
    sgi_free(s->mem2);
    sgi_free(s->sort_tmp);
}

/* ------------------------------------------------------------ preprocessing */

/* Builds xo and E (lists without self-loops, each sorted by (weight key,
 * neighbour)), lo = xo, comp[v] = v, and the first vertex lists (vertices
 * with at least one edge). Parallel: a degree count, a prefix sum over
 * thread blocks, and a copy-and-sort of each list under dynamic scheduling.
 * Time O(m + n + sum of list sort costs) / T. */
static void preprocess(mst_state *s, const sg_graph *g)
{
    const uint64_t n = s->n;
    const uint64_t *x = g->x;
    const uint32_t *a = g->a;
    const uint32_t *w = g->w;
    uint64_t *xo = s->xo, *tsum = s->tsum;
    const sg_weight_type wt = s->wt;
    xo[0] = 0;
#pragma omp parallel num_threads(s->threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        uint64_t b, e;
        block_of(n, t, nt, &b, &e);
        uint64_t sum = 0;
        for (uint64_t v = b; v < e; v++) {
            uint64_t d = 0;
            for (uint64_t p = x[v]; p < x[v + 1]; p++) d += a[p] != v;
            sum += d;
            xo[v + 1] = d;
        }
        tsum[t] = sum;
#pragma omp barrier
#pragma omp single
        {
            const uint64_t acc = exclusive_sum(tsum, nt);
            s->m2 = acc;
        }
        uint64_t acc = tsum[t];
        for (uint64_t v = b; v < e; v++) {
            acc += xo[v + 1];
            xo[v + 1] = acc;
        }
#pragma omp barrier
        uint64_t *tmp = s->sort_tmp + (size_t)t * s->sort_stride;
#pragma omp for schedule(dynamic, 64)
        for (uint64_t v = 0; v < n; v++) {
            uint64_t q = xo[v];
            for (uint64_t p = x[v]; p < x[v + 1]; p++) {
                if (a[p] == v) continue;
                s->E[q++] = (uint64_t)sgi_weight_key(wt, w[p]) << 32 | a[p];
            }
            if (!s->presorted) sort_list(s->E + xo[v], tmp, xo[v + 1] - xo[v]);
            s->lo[v] = xo[v];
            s->comp[v] = (uint32_t)v;
        }
    }
    /* Vertices with an edge: the first scan and member lists (in id order). */
    uint64_t *ts = s->tsum;
#pragma omp parallel num_threads(s->threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        uint64_t b, e, c = 0;
        block_of(n, t, nt, &b, &e);
        for (uint64_t v = b; v < e; v++) c += xo[v + 1] > xo[v];
        ts[t] = c;
#pragma omp barrier
#pragma omp single
        {
            const uint64_t acc = exclusive_sum(ts, nt);
            s->n_scan = s->n_mem = acc;
        }
        uint64_t q = ts[t];
        for (uint64_t v = b; v < e; v++)
            if (xo[v + 1] > xo[v]) {
                s->scan[q] = (uint32_t)v;
                s->mem[q++] = (uint32_t)v;
            }
    }
}

/* ------------------------------------------------------------ one Borůvka iteration */

/* Phase A: each scanned vertex v advances lo[v] past edges into its own
 * tree and offers the first edge that leaves it; a tree's best is the
 * minimum of (key << 32 | min(u,v)) over its vertices, then (phase B) the
 * minimum max(u,v) among the offers that reach that first minimum. Within
 * one list, (key, neighbour) order equals the tie order (key, min, max) for
 * the list's vertex, so the first leaving edge is the vertex's best.
 * Returns the edges skipped. Time O(scanned vertices + skipped edges) / T;
 * the random reads are comp[neighbour] (prefetched a few vertices ahead). */
static uint64_t find_candidates(mst_state *s)
{
    const uint64_t ns = s->n_scan;
    const uint32_t *scan = s->scan;
    const uint64_t *E = s->E, *xo = s->xo;
    uint64_t *lo = s->lo, *cand = s->cand, *bestA = s->bestA;
    uint32_t *comp = s->comp, *cmax = s->cmax, *bestB = s->bestB;
    uint64_t skipped = 0;
#pragma omp parallel num_threads(s->threads) reduction(+ : skipped)
    {
        bool have = false; /* thread-local pre-reduction for runs of one tree */
        uint32_t lt = 0;
        uint64_t lbest = NONE64;
#pragma omp for schedule(dynamic, 1024) nowait
        for (uint64_t i = 0; i < ns; i++) {
            if (i + 8 < ns) {
                uint32_t pv = scan[i + 8];
                uint64_t pe = __atomic_load_n(&lo[pv], __ATOMIC_RELAXED);
                if (pe < xo[pv + 1]) __builtin_prefetch(&comp[(uint32_t)E[pe]]);
                if (i + 16 < ns)
                    __builtin_prefetch(&E[__atomic_load_n(&lo[scan[i + 16]], __ATOMIC_RELAXED)]);
            }
            uint32_t v = scan[i], t = comp[v];
            uint64_t p = lo[v], end = xo[v + 1];
            uint64_t p0 = p;
            while (p < end && comp[(uint32_t)E[p]] == t) p++;
            skipped += p - p0;
            __atomic_store_n(&lo[v], p, __ATOMIC_RELAXED); /* read by prefetches */
            if (p == end) {
                cand[i] = NONE64;
                continue;
            }
            uint32_t nb = (uint32_t)E[p];
            uint64_t key = E[p] >> 32;
            uint32_t mn = v < nb ? v : nb, mx = v < nb ? nb : v;
            uint64_t c = key << 32 | mn;
            cand[i] = c;
            cmax[i] = mx;
            if (!have || t != lt) {
                if (have) atomic_min_u64(&bestA[lt], lbest);
                have = true;
                lt = t;
                lbest = c;
            } else if (c < lbest) {
                lbest = c;
            }
        }
        if (have) atomic_min_u64(&bestA[lt], lbest);
#pragma omp barrier
        have = false;
        uint32_t lmax = NONE32;
#pragma omp for schedule(static) nowait
        for (uint64_t i = 0; i < ns; i++) {
            uint64_t c = cand[i];
            if (c == NONE64) continue;
            uint32_t t = comp[scan[i]];
            if (c != bestA[t]) continue;
            if (!have || t != lt) {
                if (have) atomic_min_u32(&bestB[lt], lmax);
                have = true;
                lt = t;
                lmax = cmax[i];
            } else if (cmax[i] < lmax) {
                lmax = cmax[i];
            }
        }
        if (have) atomic_min_u32(&bestB[lt], lmax);
    }
    return skipped;
}

/* Phases C to G over the k current trees: chosen tree per tree, 2-cycles
 * broken towards the smaller id (that tree becomes the root and does not
 * record the shared edge), forest edges appended at *n_out, pointer jumping
 * to the roots, roots with an edge renumbered 0..k'-1 by a prefix sum (trees
 * without one are whole components: dropped), comp updated for the member
 * vertices, and the scan and member lists compacted (order kept). Returns
 * k'. Time O(k log depth + members + scanned) / T. */
static uint64_t merge_trees(mst_state *s, uint64_t k, sg_forest *f, uint64_t *n_out)
{
    uint64_t *bestA = s->bestA, *tsum = s->tsum;
    uint32_t *bestB = s->bestB, *comp = s->comp, *nxt = s->nxt, *par = s->par, *rn = s->rn;
    uint64_t k_new = 0;
    const sg_weight_type wt = s->wt;
    bool changed = true;
#pragma omp parallel num_threads(s->threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        uint64_t b, e;
        block_of(k, t, nt, &b, &e);
        /* C: the tree each tree chose. */
        for (uint64_t r = b; r < e; r++) {
            uint64_t c = bestA[r];
            if (c == NONE64) {
                nxt[r] = (uint32_t)r;
                continue;
            }
            uint32_t u = (uint32_t)c, v = bestB[r];
            uint32_t cu = comp[u];
            nxt[r] = cu == (uint32_t)r ? comp[v] : cu;
        }
#pragma omp barrier
        /* D: 2-cycles; count the edges recorded. */
        uint64_t cnt = 0;
        for (uint64_t r = b; r < e; r++) {
            uint32_t q = nxt[r];
            if (q != (uint32_t)r && nxt[q] == (uint32_t)r && (uint32_t)r < q) q = (uint32_t)r;
            par[r] = q;
            cnt += q != (uint32_t)r;
        }
        tsum[t] = cnt;
#pragma omp barrier
#pragma omp single
        {
            uint64_t acc = *n_out;
            for (int j = 0; j < nt; j++) {
                uint64_t c = tsum[j];
                tsum[j] = acc;
                acc += c;
            }
            *n_out = acc;
        }
        uint64_t q = tsum[t];
        for (uint64_t r = b; r < e; r++)
            if (par[r] != (uint32_t)r) {
                uint64_t c = bestA[r];
                f->u[q] = (uint32_t)c;
                f->v[q] = bestB[r];
                f->w[q++] = sgi_weight_unkey(wt, (uint32_t)(c >> 32));
            }
        /* E: pointer jumping (relaxed atomics: a racing reader sees an
         * ancestor either way). */
        while (true) {
#pragma omp barrier
#pragma omp single
            changed = false;
            bool mine = false;
            for (uint64_t r = b; r < e; r++) {
                uint32_t p = __atomic_load_n(&par[r], __ATOMIC_RELAXED);
                uint32_t pp = __atomic_load_n(&par[p], __ATOMIC_RELAXED);
                if (p != pp) {
                    __atomic_store_n(&par[r], pp, __ATOMIC_RELAXED);
                    mine = true;
                }
            }
            if (mine) __atomic_store_n(&changed, true, __ATOMIC_RELAXED);
#pragma omp barrier
            if (!__atomic_load_n(&changed, __ATOMIC_RELAXED)) break;
        }
        /* F: renumber the roots that found an edge. */
        cnt = 0;
        for (uint64_t r = b; r < e; r++) cnt += par[r] == (uint32_t)r && bestA[r] != NONE64;
#pragma omp barrier
        tsum[t] = cnt;
#pragma omp barrier
#pragma omp single
        {
            const uint64_t acc = exclusive_sum(tsum, nt);
            k_new = acc;
        }
        q = tsum[t];
        for (uint64_t r = b; r < e; r++)
            if (par[r] == (uint32_t)r) rn[r] = bestA[r] != NONE64 ? (uint32_t)q++ : NONE32;
#pragma omp barrier
        for (uint64_t r = b; r < e; r++) nxt[r] = rn[par[r]]; /* nxt: the new id */
    }
    /* G: members take their new tree ids; lists are compacted. */
    const uint64_t nm = s->n_mem, ns = s->n_scan;
    uint64_t *cand = s->cand;
#pragma omp parallel num_threads(s->threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        uint64_t b, e, cm = 0, cs = 0;
        block_of(nm, t, nt, &b, &e);
        for (uint64_t i = b; i < e; i++) {
            uint32_t v = s->mem[i], c = nxt[comp[v]];
            comp[v] = c;
            cm += c != NONE32;
        }
        uint64_t sb, se;
        block_of(ns, t, nt, &sb, &se);
        for (uint64_t i = sb; i < se; i++) cs += cand[i] != NONE64;
        tsum[2 * t] = cm;
        tsum[2 * t + 1] = cs;
#pragma omp barrier
#pragma omp single
        {
            uint64_t am = 0, as = 0;
            for (int j = 0; j < nt; j++) {
                uint64_t c = tsum[2 * j];
                tsum[2 * j] = am;
                am += c;
                c = tsum[2 * j + 1];
                tsum[2 * j + 1] = as;
                as += c;
            }
            s->n_mem = am;
            s->n_scan = as;
        }
        uint64_t q = tsum[2 * t];
        for (uint64_t i = b; i < e; i++) {
            uint32_t v = s->mem[i];
            if (comp[v] != NONE32) s->mem2[q++] = v;
        }
        q = tsum[2 * t + 1];
        for (uint64_t i = sb; i < se; i++)
            if (cand[i] != NONE64) s->scan2[q++] = s->scan[i];
        /* Fresh bests for the new trees. */
        block_of(k_new, t, nt, &b, &e);
        for (uint64_t r = b; r < e; r++) {
            bestA[r] = NONE64;
            bestB[r] = NONE32;
        }
    }
    uint32_t *tp = s->mem;
    s->mem = s->mem2;
    s->mem2 = tp;
    tp = s->scan;
    s->scan = s->scan2;
    s->scan2 = tp;
    return k_new;
}

/* ------------------------------------------------------------ entry point */

sg_status sgi_mst_check(const sg_graph *g, sg_error *err)
{
    if (g->directed)
        return sgi_fail(err, SG_E_INVALID,
                        "minimum spanning forest needs an undirected graph (%s is directed)",
                        g->source ? g->source : "the graph");
    if (!sgi_graph_has_w(g))
        return sgi_fail(err, SG_E_INVALID,
                        "minimum spanning forest needs edge weights (the graph was loaded "
                        "without them)");
    return SG_OK;
}

/* Borůvka (see the file comment and spillgraph.h). Errors: SG_E_INVALID
 * (NULL argument, directed graph, no weights, more than 2^32 vertices),
 * SG_E_NOMEM naming the array. Counters: "iterations", "edges_skipped"
 * (edges found to lie inside their tree; each at most once),
 * "segments_scanned" (vertex lists examined, summed over iterations).
 * Time: preprocessing O(m + sort of each list) / T; compute O(m' + sum over
 * iterations of (live vertices + live trees * log depth)) / T, with
 * O(log n) iterations. Memory: about 8 m' + 90 n bytes (file comment). */
sg_status sg_mst(sg_run *run, const sg_graph *g, sg_forest **out, sg_error *err)
{
    sg_status st = SG_OK;
    mst_state s;
    memset(&s, 0, sizeof s);
    sg_forest *f = NULL;
    if (!run || !g || !out) return sgi_fail(err, SG_E_INVALID, "sg_mst: NULL argument");
    {
        const sg_status cst = sgi_mst_check(g, err);
        if (cst != SG_OK) return cst;
    }
    if (g->n > ((uint64_t)1 << 32))
        return sgi_fail(err, SG_E_INVALID, "%llu vertices: ids are 32-bit",
                        (unsigned long long)g->n);
    if (sgi_gpu_pick(run, g, SGI_ALGO_MST, false)) {
        if (g->w16 && run->backend != SG_BACKEND_HYBRID)
            return sgi_narrow_refused(g, "the gpu backend's forest", err);
        return sgi_gpu_mst(run, g, out, err);
    }
    {
        const sg_status ns = sgi_narrow_refused(g, "the cpu backend's forest", err);
        if (ns != SG_OK) return ns;
    }
    double t0 = sgi_now();
    const uint64_t n = g->n, nn = n ? n : 1;
    s.n = n;
    s.threads = run->threads;
    s.wt = g->wt;
    /* A store in weight order gives E already sorted (its weights read): no
     * sort and no scratch (the preprocessing is then one copy). */
    s.presorted = g->weight_order && g->w != NULL;
    s.sort_stride = g->max_degree && !s.presorted ? g->max_degree : 1;
    SG_ALLOC(s.tsum, sgi_malloc((size_t)(2 * s.threads + 2) * sizeof *s.tsum), err,
             "per-thread counts");
    SG_ALLOC(s.xo, sgi_huge_alloc((nn + 1) * sizeof *s.xo), err, "the sorted lists' offsets");
    SG_ALLOC(s.E, sgi_huge_alloc((g->m ? g->m : 1) * sizeof *s.E), err,
             "the lists sorted by weight");
    SG_ALLOC(s.lo, sgi_huge_alloc(nn * sizeof *s.lo), err, "the segment starts");
    SG_ALLOC(s.comp, sgi_huge_alloc(nn * sizeof *s.comp), err, "the tree ids");
    SG_ALLOC(s.scan, sgi_huge_alloc(nn * sizeof *s.scan), err, "the scan list");
    SG_ALLOC(s.scan2, sgi_huge_alloc(nn * sizeof *s.scan2), err, "the scan list");
    SG_ALLOC(s.mem, sgi_huge_alloc(nn * sizeof *s.mem), err, "the member list");
    SG_ALLOC(s.mem2, sgi_huge_alloc(nn * sizeof *s.mem2), err, "the member list");
    SG_ALLOC(s.cand, sgi_huge_alloc(nn * sizeof *s.cand), err, "the candidate edges");
    SG_ALLOC(s.cmax, sgi_huge_alloc(nn * sizeof *s.cmax), err, "the candidate edges");
    SG_ALLOC(s.bestA, sgi_huge_alloc(nn * sizeof *s.bestA), err, "the per-tree minima");
    SG_ALLOC(s.bestB, sgi_huge_alloc(nn * sizeof *s.bestB), err, "the per-tree minima");
    SG_ALLOC(s.nxt, sgi_huge_alloc(nn * sizeof *s.nxt), err, "the chosen trees");
    SG_ALLOC(s.par, sgi_huge_alloc(nn * sizeof *s.par), err, "the tree parents");
    SG_ALLOC(s.rn, sgi_huge_alloc(nn * sizeof *s.rn), err, "the new tree ids");
    SG_ALLOC(s.sort_tmp,
             sgi_huge_alloc((size_t)s.threads * s.sort_stride * sizeof *s.sort_tmp), err,
             "the list sort scratch");
    f = sgi_take_prepared_forest(run, g);
    if (!f) SG_ALLOC(f, sgi_forest_alloc(n, n ? n - 1 : 0, g->wt), err, "the forest");

    sgi_run_progress(run, "preprocess", 0.0);
    preprocess(&s, g);
    sgi_free(s.sort_tmp);
    s.sort_tmp = NULL;
    sgi_run_progress(run, "preprocess", 1.0);
    double t1 = sgi_now();
    run->seconds[SG_PHASE_PREPROCESS] += t1 - t0;

    sgi_run_progress(run, "compute", 0.0);
#pragma omp parallel for num_threads(s.threads) schedule(static)
    for (uint64_t r = 0; r < n; r++) {
        s.bestA[r] = NONE64;
        s.bestB[r] = NONE32;
    }
    uint64_t k = n, n_edges = 0, iters = 0, skipped = 0, scanned = 0;
    while (s.n_scan > 0) {
        iters++;
        scanned += s.n_scan;
        skipped += find_candidates(&s);
        k = merge_trees(&s, k, f, &n_edges);
        sgi_run_progress(run, "compute", n > 1 ? (double)n_edges / (double)(n - 1) : 1.0);
        if (k <= 1) break; /* a lone live tree has nowhere left to go: it is whole */
    }
    f->n_edges = n_edges;
    SG_TRY(sgi_forest_finish(f, s.threads, err));
    sgi_run_progress(run, "compute", 1.0);
    run->seconds[SG_PHASE_COMPUTE] += sgi_now() - t1;
    sg_run_set(run, "iterations", iters);
    sg_run_set(run, "edges_skipped", skipped);
    sg_run_set(run, "segments_scanned", scanned);
    state_free(&s);
    *out = f;
    return SG_OK;
fail:
    state_free(&s);
    sg_forest_free(f);
    return st;
}
