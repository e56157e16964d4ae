/* A two-pass CSR builder for generators (the contract is in internal.h).
 *
 *  1. count:   draw every edge, count both endpoints' degrees with relaxed
 *              atomic increments; a parallel prefix sum turns the counts into
 *              list starts.
 *  2. place:   draw every edge again and put (neighbour << 32 | weight) at a
 *              slot claimed with an atomic fetch-add on the list's cursor.
 *              One 8-byte slot per directed edge, so each placement touches
 *              one cache line. The cursors end at the list ends, so x[v] is
 *              then the END of v's list and its start is x[v-1] (0 for v = 0).
 *  3. sort:    each list is sorted in place and the lightest of each
 *              neighbour kept, from the list's start. Placement order in
 *              pass 2 depends on scheduling; the sorted, de-duplicated lists
 *              do not.
 *  4. compact: new offsets by prefix sum, then the lists are moved left in
 *              place, in rounds: in each round every thread copies one block
 *              of the destination range from its sources into its scratch,
 *              a barrier, then all copy their scratch to the destination.
 *              Sources lie at or right of their destinations and destination
 *              blocks advance left to right, so no round overwrites a source
 *              that a later round still needs.
 *
 * Passes 1 and 2 touch random counters and slots, and x86 atomics wait for
 * their cache line, so they work on small batches of edges in a software
 * pipeline: while one batch is drawn (compute-bound), the lines the next step
 * needs are prefetched; the atomics and stores then hit the cache. Batches
 * live on the stack; the edge list is never stored.
 */
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

#define GEN_CHUNK (1u << 16)    /* edges per schedule chunk in passes 1 and 2 */
#define BATCH 32                /* edges per pipeline batch */
#define SORT_CHUNK 64           /* vertices per dynamic schedule chunk */
#define MOVE_BLOCK (1u << 16)   /* slots per thread per compaction round */
#define MAX_SCAN_THREADS 1024

/* ---------------------------------------------------------------- progress */

typedef struct prog {
    sg_progress_fn fn;
    void *ctx;
    const char *phase;
    double base, span;  /* reports base + span * done / total */
    uint64_t total;
    uint64_t done;      /* shared: relaxed atomic adds */
    double next;        /* next fraction worth reporting; master thread only */
} prog;

static void prog_begin(prog *p, const char *phase, double base, double span, uint64_t total)
{
    p->phase = phase;
    p->base = base;
    p->span = span;
    p->total = total ? total : 1;
    p->done = 0;
    p->next = base + 0.01;
}

/* Counts `k` units done; the master thread reports about every 1%. */
static inline void prog_add(prog *p, uint64_t k)
{
    if (!p->fn) return;
    const uint64_t d = __atomic_add_fetch(&p->done, k, __ATOMIC_RELAXED);
    if (omp_get_thread_num() != 0) return;
    const double f = p->base + p->span * ((double)d / (double)p->total);
    if (f >= p->next && f < 1.0) {
        p->fn(p->ctx, p->phase, f);
        p->next = f + 0.01;
    }
}

/* Reports the phase complete (fraction 1). */
static void prog_end(const prog *p)
{
    if (p->fn) p->fn(p->ctx, p->phase, 1.0);
}

/* ---------------------------------------------------------------- helpers */

static sg_status alloc_array(void **p, uint64_t count, size_t elem, const char *what,
                             sg_error *err)
{
    if (count > (SIZE_MAX - 64) / elem)
        return sgi_fail(err, SG_E_NOMEM, "out of memory: %s would need %llu x %zu bytes", what,
                        (unsigned long long)count, elem);
    const size_t bytes = (size_t)count * elem;
    *p = sgi_malloc(bytes);
    if (!*p)
        return sgi_fail(err, SG_E_NOMEM, "out of memory allocating %s (%zu bytes, %.2f GiB)",
                        what, bytes, (double)bytes / (double)(1ull << 30));
    return SG_OK;
}

/* Turns counts c[0..n) into exclusive offsets, sets c[n] to the total and
 * returns it. Parallel: two sweeps over c. */
static uint64_t exclusive_scan(uint64_t *c, uint64_t n, int threads)
{
    if (threads > MAX_SCAN_THREADS) threads = MAX_SCAN_THREADS;
    if (n < (1u << 16) || threads <= 1) {
        uint64_t run = 0;
        for (uint64_t v = 0; v < n; v++) {
            const uint64_t d = c[v];
            c[v] = run;
            run += d;
        }
        c[n] = run;
        return run;
    }
    uint64_t part[MAX_SCAN_THREADS + 1];
    uint64_t total = 0;
#pragma omp parallel num_threads(threads)
    {
        const uint64_t nt = (uint64_t)omp_get_num_threads(), id = (uint64_t)omp_get_thread_num();
        const uint64_t b = n * id / nt, e = n * (id + 1) / nt;
        uint64_t s = 0;
        for (uint64_t v = b; v < e; v++) s += c[v];
        part[id + 1] = s;
#pragma omp barrier
#pragma omp single
        {
            part[0] = 0;
            for (uint64_t k = 1; k <= nt; k++) part[k] += part[k - 1];
            total = part[nt];
        }
        uint64_t run = part[id];
        for (uint64_t v = b; v < e; v++) {
            const uint64_t d = c[v];
            c[v] = run;
            run += d;
        }
    }
    c[n] = total;
    return total;
}

/* ---------------------------------------------------------------- passes */

typedef struct batch {
    uint64_t n;
    uint32_t u[BATCH], v[BATCH], w[BATCH];
    uint64_t su[BATCH], sv[BATCH]; /* pass 2: claimed slots (UINT64_MAX: none) */
} batch;

typedef struct pass_ctx {
    uint64_t n;
    sgi_edge_fn fn;
    void *ctx;
    bool directed;
    uint64_t *x;
    uint64_t *aw;
} pass_ctx;

/* Draws edges [i0, i0 + cnt) into b, prefetching their counters and, when
 * `old` is given, the slots `old` claimed (one of each per edge drawn, so
 * the misses overlap the drawing). */
static inline void draw_batch(const pass_ctx *p, uint64_t i0, uint64_t cnt, batch *b,
                              const batch *old)
{
    b->n = cnt;
    for (uint64_t k = 0; k < cnt; k++) {
        p->fn(p->ctx, i0 + k, &b->u[k], &b->v[k], &b->w[k]);
        __builtin_prefetch(&p->x[b->u[k]], 1, 3);
        if (!p->directed) __builtin_prefetch(&p->x[b->v[k]], 1, 3);
        if (old && k < old->n && old->su[k] != UINT64_MAX) {
            __builtin_prefetch(&p->aw[old->su[k]], 1, 3);
            if (!p->directed) __builtin_prefetch(&p->aw[old->sv[k]], 1, 3);
        }
    }
}

static inline uint64_t batch_len(uint64_t i, uint64_t i1) { return i1 - i < BATCH ? i1 - i : BATCH; }

/* Pass 1 over edges [i0, i1): degree counts. Returns the self-loops seen;
 * an out-of-range id sets *bad (the least such edge index) instead. */
static uint64_t count_range(const pass_ctx *p, uint64_t i0, uint64_t i1, uint64_t *bad,
                            uint32_t *bad_u, uint32_t *bad_v)
{
    batch bt[2];
    int cur = 0;
    uint64_t loops = 0;
    draw_batch(p, i0, batch_len(i0, i1), &bt[0], NULL);
    for (uint64_t i = i0; i < i1;) {
        const batch *const b = &bt[cur];
        const uint64_t next = i + b->n;
        if (next < i1) draw_batch(p, next, batch_len(next, i1), &bt[cur ^ 1], NULL);
        for (uint64_t k = 0; k < b->n; k++) {
            const uint32_t u = b->u[k], v = b->v[k];
            if (u >= p->n || v >= p->n) {
#pragma omp critical(sgi_csr_bad)
                if (i + k < *bad) {
                    *bad = i + k;
                    *bad_u = u;
                    *bad_v = v;
                }
                continue;
            }
            if (u == v) {
                loops++;
                continue;
            }
            __atomic_fetch_add(&p->x[u], 1, __ATOMIC_RELAXED);
            if (!p->directed) __atomic_fetch_add(&p->x[v], 1, __ATOMIC_RELAXED);
        }
        i = next;
        cur ^= 1;
    }
    return loops;
}

static inline void claim_batch(const pass_ctx *p, batch *b)
{
    for (uint64_t k = 0; k < b->n; k++) {
        const uint32_t u = b->u[k], v = b->v[k];
        if (u == v) {
            b->su[k] = b->sv[k] = UINT64_MAX;
            continue;
        }
        b->su[k] = __atomic_fetch_add(&p->x[u], 1, __ATOMIC_RELAXED);
        if (!p->directed) b->sv[k] = __atomic_fetch_add(&p->x[v], 1, __ATOMIC_RELAXED);
    }
}

static inline void store_batch(const pass_ctx *p, const batch *b)
{
    for (uint64_t k = 0; k < b->n; k++) {
        if (b->su[k] == UINT64_MAX) continue;
        p->aw[b->su[k]] = SGI_AW(b->v[k], b->w[k]);
        if (!p->directed) p->aw[b->sv[k]] = SGI_AW(b->u[k], b->w[k]);
    }
}

/* Pass 2 over edges [i0, i1): claim a slot per endpoint and fill it. */
static void place_range(const pass_ctx *p, uint64_t i0, uint64_t i1)
{
    batch bt[2];
    int cur = 0;
    draw_batch(p, i0, batch_len(i0, i1), &bt[0], NULL);
    claim_batch(p, &bt[0]);
    for (uint64_t i = i0; i < i1;) {
        batch *const b = &bt[cur], *const nb = &bt[cur ^ 1];
        const uint64_t next = i + b->n;
        const bool more = next < i1;
        if (more) draw_batch(p, next, batch_len(next, i1), nb, b);
        store_batch(p, b);
        if (more) claim_batch(p, nb);
        i = next;
        cur ^= 1;
    }
}

/* Largest v in [0, n) with nx[v] <= p (nx nondecreasing, nx[0] = 0 <= p). */
static uint64_t find_vertex(const uint64_t *nx, uint64_t n, uint64_t p)
{
    uint64_t lo = 0, hi = n; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (nx[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---------------------------------------------------------------- build */

void sgi_csr_free(sgi_csr *g)
{
    if (!g) return;
    sgi_free(g->x);
    sgi_free(g->aw);
    memset(g, 0, sizeof *g);
}

sg_status sgi_csr_build(uint64_t n, uint64_t m, sgi_edge_fn fn, void *ctx, bool directed,
                        int threads, sg_progress_fn progress, void *progress_ctx, sgi_csr *out,
                        sgi_build_report *rep, sg_error *err)
{
    sg_status st = SG_OK;
    uint64_t *x = NULL, *nx = NULL, *scratch = NULL, *aw = NULL;
    const int t = threads > 0 ? threads : omp_get_max_threads();
    SG_CHECK(fn && out, SG_E_INVALID, err, "csr build: no edge function or output");
    SG_CHECK(n >= 1 && n <= (1ull << 32), SG_E_INVALID, err,
             "csr build: %llu vertices: must be 1 .. 2^32 (ids are 32-bit)",
             (unsigned long long)n);
    prog pr = {.fn = progress, .ctx = progress_ctx};
    const double t0 = sgi_now();

    /* ---- pass 1: degrees */
    SG_TRY(alloc_array((void **)&x, n + 1, sizeof *x, "the vertex offsets", err));
#pragma omp parallel for schedule(static) num_threads(t)
    for (uint64_t v = 0; v <= n; v++) x[v] = 0;

    const uint64_t nchunks = m / GEN_CHUNK + (m % GEN_CHUNK != 0);
    uint64_t loops = 0, bad = UINT64_MAX;
    uint32_t bad_u = 0, bad_v = 0;
    pass_ctx pc = {.n = n, .fn = fn, .ctx = ctx, .directed = directed, .x = x};
    prog_begin(&pr, "generate", 0.0, 0.5, m);
#pragma omp parallel for schedule(static) num_threads(t) reduction(+ : loops)
    for (uint64_t c = 0; c < nchunks; c++) {
        const uint64_t i0 = c * GEN_CHUNK, i1 = m - i0 < GEN_CHUNK ? m : i0 + GEN_CHUNK;
        loops += count_range(&pc, i0, i1, &bad, &bad_u, &bad_v);
        prog_add(&pr, i1 - i0);
    }
    SG_CHECK(bad == UINT64_MAX, SG_E_INVALID, err,
             "csr build: edge %llu is (%u, %u): vertex id out of range (n = %llu)",
             (unsigned long long)bad, bad_u, bad_v, (unsigned long long)n);

    /* ---- pass 2: placement */
    const uint64_t slots = exclusive_scan(x, n, t);
    SG_TRY(alloc_array((void **)&aw, slots, sizeof *aw, "the edge slots", err));
    pc.aw = aw;
    prog_begin(&pr, "generate", 0.5, 0.5, m);
#pragma omp parallel for schedule(static) num_threads(t)
    for (uint64_t c = 0; c < nchunks; c++) {
        const uint64_t i0 = c * GEN_CHUNK, i1 = m - i0 < GEN_CHUNK ? m : i0 + GEN_CHUNK;
        place_range(&pc, i0, i1);
        prog_add(&pr, i1 - i0);
    }
    prog_end(&pr);
    /* Now x[v] is the end of v's list: start(v) = v ? x[v-1] : 0. */
#define START(v) ((v) ? x[(v) - 1] : 0)
    const double t1 = sgi_now();

    /* ---- sort and de-duplicate each list where it lies */
    uint64_t max_len = 0;
#pragma omp parallel for schedule(static) num_threads(t) reduction(max : max_len)
    for (uint64_t v = 0; v < n; v++) {
        const uint64_t len = x[v] - START(v);
        if (len > max_len) max_len = len;
    }
    SG_TRY(alloc_array((void **)&nx, n + 1, sizeof *nx, "the final vertex offsets", err));
    const uint64_t per = max_len > MOVE_BLOCK ? max_len : MOVE_BLOCK; /* slots per thread */
    SG_CHECK(per <= UINT64_MAX / (uint64_t)t, SG_E_NOMEM, err,
             "out of memory: sort scratch of %d x %llu slots", t, (unsigned long long)per);
    SG_TRY(alloc_array((void **)&scratch, per * (uint64_t)t, sizeof *scratch,
                       "the sort scratch", err));
    unsigned nbits = 1;
    while (nbits < 32 && (n - 1) >> nbits) nbits++;

    const uint64_t vchunks = n / SORT_CHUNK + (n % SORT_CHUNK != 0);
    uint64_t dropped = 0, max_deg = 0;
    prog_begin(&pr, "sort", 0.0, 0.8, slots);
#pragma omp parallel for schedule(dynamic, 1) num_threads(t) reduction(+ : dropped) \
    reduction(max : max_deg)
    for (uint64_t c = 0; c < vchunks; c++) {
        uint64_t *const tmp = scratch + per * (uint64_t)omp_get_thread_num();
        const uint64_t v0 = c * SORT_CHUNK, v1 = n - v0 < SORT_CHUNK ? n : v0 + SORT_CHUNK;
        for (uint64_t v = v0; v < v1; v++) {
            const uint64_t s0 = START(v), len = x[v] - s0;
            const uint64_t k = sgi_sort_dedupe(aw + s0, len, tmp, nbits);
            nx[v] = k;
            dropped += len - k;
            if (k > max_deg) max_deg = k;
        }
        prog_add(&pr, x[v1 - 1] - START(v0));
    }
    const uint64_t m_out = exclusive_scan(nx, n, t);

    /* ---- compact: move every list left to its final place */
    if (m_out < slots) {
        prog_begin(&pr, "sort", 0.8, 0.2, m_out);
#pragma omp parallel num_threads(t)
        {
            const uint64_t nt = (uint64_t)omp_get_num_threads(), id = (uint64_t)omp_get_thread_num();
            uint64_t *const buf = scratch + per * id;
            for (uint64_t r0 = 0; r0 < m_out; r0 += nt * MOVE_BLOCK) {
                uint64_t p0 = r0 + id * MOVE_BLOCK, p1 = p0 + MOVE_BLOCK;
                if (p0 > m_out) p0 = m_out;
                if (p1 > m_out) p1 = m_out;
                if (p0 < p1) {
                    uint64_t v = find_vertex(nx, n, p0), q = p0;
                    while (q < p1) {
                        const uint64_t e = nx[v + 1] < p1 ? nx[v + 1] : p1;
                        if (e > q)
                            memcpy(buf + (q - p0), aw + START(v) + (q - nx[v]),
                                   (e - q) * sizeof *aw);
                        q = e;
                        v++;
                    }
                }
#pragma omp barrier
                if (p0 < p1) {
                    memcpy(aw + p0, buf, (p1 - p0) * sizeof *aw);
                    prog_add(&pr, p1 - p0);
                }
#pragma omp barrier
            }
        }
    }
#undef START
    prog_end(&pr);
    const double t2 = sgi_now();

    if (rep) {
        rep->generated = m;
        rep->self_loops = loops;
        rep->duplicates = directed ? dropped : dropped / 2;
        rep->n_edges = m_out;
        rep->slots = slots;
        rep->max_slots = max_len;
        rep->peak_bytes = 16 * (n + 1) + 8 * slots + 8 * per * (uint64_t)t;
        rep->seconds_generate = t1 - t0;
        rep->seconds_sort = t2 - t1;
    }
    sgi_free(x);
    sgi_free(scratch);
    *out = (sgi_csr){.n = n, .m = m_out, .max_degree = max_deg, .directed = directed, .x = nx,
                     .aw = aw};
    return SG_OK;
fail:
    sgi_free(x);
    sgi_free(nx);
    sgi_free(scratch);
    sgi_free(aw);
    return st;
}

/* ---------------------------------------------------------------- append */

uint64_t sgi_csr_append_slice = 1u << 22;

sg_status sgi_csr_append(const sgi_csr *g, sg_store_writer *wr, int threads, sg_error *err)
{
    sg_status st = SG_OK;
    uint32_t *a = NULL, *w = NULL;
    const int t = threads > 0 ? threads : omp_get_max_threads();
    SG_CHECK(g && wr && g->x && g->aw, SG_E_INVALID, err, "csr append: no graph or writer");
    const uint64_t slice = sgi_csr_append_slice ? sgi_csr_append_slice : 1;
    const uint64_t cap = g->max_degree > slice ? g->max_degree : slice;
    const uint64_t len = g->m < cap ? g->m : cap;
    SG_TRY(alloc_array((void **)&a, len, sizeof *a, "the neighbour staging buffer", err));
    SG_TRY(alloc_array((void **)&w, len, sizeof *w, "the weight staging buffer", err));
    for (uint64_t v0 = 0; v0 < g->n;) {
        /* the most vertices from v0 whose edges fit in cap (at least one) */
        uint64_t lo = v0 + 1, hi = g->n;
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo + 1) / 2;
            if (g->x[mid] - g->x[v0] <= cap)
                lo = mid;
            else
                hi = mid - 1;
        }
        const uint64_t v1 = lo, e0 = g->x[v0], ne = g->x[v1] - e0;
        const uint64_t *const src = g->aw + e0;
#pragma omp parallel for schedule(static) num_threads(t) if (ne > (1u << 16))
        for (uint64_t k = 0; k < ne; k++) {
            a[k] = SGI_AW_NBR(src[k]);
            w[k] = SGI_AW_W(src[k]);
        }
        SG_TRY(sg_store_writer_append(wr, v1 - v0, g->x + v0, a, w, err));
        v0 = v1;
    }
fail:
    sgi_free(a);
    sgi_free(w);
    return st;
}
