/* Direction-optimizing breadth-first search on the CPU (Beamer, Asanović and
 * Patterson, SC'12; the structure of gapbs bfs.cc), OpenMP-parallel.
 *
 * State, all per vertex unless said otherwise:
 *   level[]   the result's levels; doubles as the visited marker: a top-down
 *             step claims v with one CAS of level[v] from SG_NO_LEVEL to the
 *             new depth, so no parent array is needed when none is asked.
 *   parent[]  the result's parents, only when asked; written by the claimer.
 *   queue[]   n vertex ids: the top-down frontier as a sliding window
 *             [qb, qe); the next frontier is appended behind it through
 *             thread-local buffers of QBUF ids, each flushed with one
 *             fetch_add on the shared tail (every vertex enters the queue at
 *             most once per phase, so n ids always suffice).
 *   front[], next[]  (undirected only) frontier bitmaps, one bit per vertex,
 *             for the bottom-up steps.
 *   done[]    (undirected only) one bit per vertex that no bottom-up step
 *             needs to look at again: visited, or without edges. Isolated
 *             vertices are marked at the start (R-MAT graphs have about 40%);
 *             visited ones lazily, by the bottom-up steps as they learn them,
 *             so top-down steps pay nothing for it, and bottom-up steps skip
 *             whole 64-vertex words of finished vertices.
 *
 * Switching (gapbs): start top-down; go bottom-up when the edges out of the
 * frontier (scout) exceed the edges left to check / alpha; stay bottom-up
 * while the frontier grows or holds more than n / beta vertices; then convert
 * the bitmap back to a queue and go on top-down.
 *
 * Measured (a throwaway harness, not a test): R-MAT scale 18 (262k
 * vertices, 7.7M directed edges), source drawn as Graph500 does, best of 7,
 * on a shared 2-core VM: 5.3-7.5 ms on 1 thread, 3.0-4.8 ms on 2, levels
 * only; parents add about 10%. */
#include <omp.h>
#include <string.h>

#include "internal.h"

enum {
    QBUF = 1024,          /* ids per thread-local queue buffer (4 KiB) */
    SERIAL_WORK = 2048,   /* frontier vertices + edges below which a top-down
                           * step runs on the calling thread: a fork costs more */
    BU_CHUNK = 16,        /* bitmap words (1024 vertices) per bottom-up chunk */
    DEFAULT_ALPHA = 15,
    DEFAULT_BETA = 18
};

typedef struct bfs_ctx {
    const uint64_t *x;
    const uint32_t *a;
    uint64_t n, nw;       /* vertices, 64-bit words of a bitmap */
    uint32_t *level;
    uint32_t *parent;     /* NULL when not asked */
    uint32_t *queue;      /* n */
    uint32_t *bufs;       /* threads * QBUF */
    uint64_t *front, *next, *done; /* nw each; NULL for directed graphs */
    int threads;
} bfs_ctx;

/* The search's own arrays (queue, thread buffers, bitmaps), kept in the run
 * for its next search on a graph of the same size and thread count, as the
 * device's are (kernels/bfs.cu): a run of searches (--searches) writes into
 * memory already in place instead of faulting in ~4.4n fresh bytes each
 * time. Every word a search reads it writes first (bfs_init, the steps).
 * The run keeps a copy of the search's bfs_ctx (n, threads and the arrays
 * are what count). */

/* Frees c's own arrays (not the result's) and clears them. */
static void free_arrays(bfs_ctx *c)
{
    sgi_free(c->queue);
    sgi_free(c->bufs);
    sgi_free(c->front);
    sgi_free(c->next);
    sgi_free(c->done);
    c->queue = c->bufs = NULL;
    c->front = c->next = c->done = NULL;
}

static void bfs_work_free(void *p)
{
    free_arrays(p);
    sgi_free(p);
}

/* The arrays the run kept for a search like c's, moved into c (true); any
 * others it kept are freed (false). */
static bool take_work(sg_run *run, bfs_ctx *c, bool bitmaps)
{
    if (!run->cpu_kept) return false;
    bfs_ctx *w = run->cpu_kept;
    if (run->cpu_kept_free != bfs_work_free || w->n != c->n || w->threads != c->threads ||
        (w->front != NULL) != bitmaps) {
        sgi_run_drop_kept(run);
        return false;
    }
    c->queue = w->queue;
    c->bufs = w->bufs;
    c->front = w->front;
    c->next = w->next;
    c->done = w->done;
    run->cpu_kept = NULL;
    run->cpu_kept_free = NULL;
    sgi_free(w);
    return true;
}

/* Keeps c's arrays in the run for its next search; frees them when even the
 * small record cannot be had. */
static void keep_work(sg_run *run, bfs_ctx *c)
{
    bfs_ctx *w = sgi_malloc(sizeof *w);
    if (!w) {
        free_arrays(c);
        return;
    }
    *w = *c;
    sgi_run_drop_kept(run);
    run->cpu_kept = w;
    run->cpu_kept_free = bfs_work_free;
    c->queue = c->bufs = NULL;
    c->front = c->next = c->done = NULL;
}

/* Appends buf[0..nb) to the shared queue at a range claimed with one atomic. */
static inline void flush(uint32_t *queue, uint64_t *tail, const uint32_t *buf, unsigned nb)
{
    if (!nb) return;
    uint64_t pos = __atomic_fetch_add(tail, (uint64_t)nb, __ATOMIC_RELAXED);
    memcpy(queue + pos, buf, (size_t)nb * sizeof *buf);
}

/* One top-down step: every vertex of queue[qb, qe) claims its unvisited
 * neighbours for level `depth`, appending them at *tail. Returns the sum of
 * the degrees of the vertices claimed (gapbs' scout count); adds the edges
 * looked at to *edges. Parallel (dynamic chunks of 64 frontier vertices)
 * unless `parallel` is false. Time O(frontier + its edges). */
static uint64_t td_step(const bfs_ctx *c, uint64_t qb, uint64_t qe, uint64_t *tail, uint32_t depth,
                        bool parallel, uint64_t *edges)
{
    const uint64_t *const x = c->x;
    const uint32_t *const a = c->a;
    uint32_t *const level = c->level, *const parent = c->parent, *const queue = c->queue;
    uint64_t scout = 0, examined = 0;
#pragma omp parallel num_threads(c->threads) if (parallel) reduction(+ : scout, examined)
    {
        uint32_t *const buf = c->bufs + (size_t)omp_get_thread_num() * QBUF;
        unsigned nb = 0;
#pragma omp for schedule(dynamic, 64) nowait
        for (uint64_t i = qb; i < qe; i++) {
            const uint32_t u = queue[i];
            const uint64_t end = x[u + 1];
            examined += end - x[u];
            for (uint64_t e = x[u]; e < end; e++) {
                const uint32_t v = a[e];
                uint32_t lv = __atomic_load_n(&level[v], __ATOMIC_RELAXED);
                if (lv != SG_NO_LEVEL) continue;
                if (!__atomic_compare_exchange_n(&level[v], &lv, depth, false, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED))
                    continue;
                if (parent) parent[v] = u;
                scout += x[v + 1] - x[v];
                buf[nb++] = v;
                if (nb == QBUF) {
                    flush(queue, tail, buf, nb);
                    nb = 0;
                }
            }
        }
        flush(queue, tail, buf, nb);
    }
    *edges += examined;
    return scout;
}

/* The frontier queue[qb, qe) as a bitmap in c->front (cleared first).
 * Time O(n / 64 + frontier), parallel. */
static void queue_to_bitmap(const bfs_ctx *c, uint64_t qb, uint64_t qe)
{
    uint64_t *const front = c->front;
    const uint32_t *const queue = c->queue;
#pragma omp parallel num_threads(c->threads)
    {
#pragma omp for schedule(static)
        for (uint64_t w = 0; w < c->nw; w++) front[w] = 0;
#pragma omp for schedule(static)
        for (uint64_t i = qb; i < qe; i++) {
            const uint32_t v = queue[i];
            __atomic_fetch_or(&front[v >> 6], (uint64_t)1 << (v & 63), __ATOMIC_RELAXED);
        }
    }
}

/* One bottom-up step: every vertex not marked in c->done looks through its
 * list for a neighbour in c->front (stopping at the first); those that find
 * one get level `depth` (and that neighbour as parent) and form c->next,
 * which is written whole. Each thread owns whole 64-vertex words, so level,
 * parent, next and done are written without atomics. Returns the number of
 * vertices found; adds the edges looked at to *edges. Time O(n / 64 + the
 * unfinished vertices and the list prefixes they scan), parallel. */
static uint64_t bu_step(const bfs_ctx *c, uint32_t depth, uint64_t *edges)
{
    const uint64_t *const x = c->x, *const front = c->front;
    const uint32_t *const a = c->a;
    uint32_t *const level = c->level, *const parent = c->parent;
    uint64_t *const next = c->next, *const done = c->done;
    uint64_t awake = 0, examined = 0;
#pragma omp parallel for num_threads(c->threads) schedule(dynamic, BU_CHUNK) \
    reduction(+ : awake, examined)
    for (uint64_t w = 0; w < c->nw; w++) {
        const uint64_t d0 = done[w];
        uint64_t d = d0, nx = 0;
        for (uint64_t todo = ~d0; todo; todo &= todo - 1) {
            const unsigned b = (unsigned)__builtin_ctzll(todo);
            const uint64_t bit = (uint64_t)1 << b;
            const uint64_t u = w * 64 + b;
            if (level[u] != SG_NO_LEVEL) { /* claimed by a top-down step */
                d |= bit;
                continue;
            }
            const uint64_t beg = x[u], end = x[u + 1];
            uint64_t e = beg;
            for (; e < end; e++) {
                const uint32_t v = a[e];
                if (front[v >> 6] >> (v & 63) & 1) break;
            }
            if (e < end) {
                level[u] = depth;
                if (parent) parent[u] = a[e];
                nx |= bit;
                d |= bit;
                awake++;
                examined += e - beg + 1;
            } else {
                examined += end - beg;
            }
        }
        if (d != d0) done[w] = d;
        next[w] = nx;
    }
    *edges += examined;
    return awake;
}

/* The frontier bitmap `bm` as the queue queue[0, k); returns k and puts the
 * sum of the frontier's degrees in *degrees. Time O(n / 64 + frontier),
 * parallel. */
static uint64_t bitmap_to_queue(const bfs_ctx *c, const uint64_t *bm, uint64_t *degrees)
{
    const uint64_t *const x = c->x;
    uint32_t *const queue = c->queue;
    uint64_t tail = 0, deg = 0;
#pragma omp parallel num_threads(c->threads) reduction(+ : deg)
    {
        uint32_t *const buf = c->bufs + (size_t)omp_get_thread_num() * QBUF;
        unsigned nb = 0;
#pragma omp for schedule(static) nowait
        for (uint64_t w = 0; w < c->nw; w++) {
            for (uint64_t word = bm[w]; word; word &= word - 1) {
                const uint32_t v = (uint32_t)(w * 64 + (uint64_t)__builtin_ctzll(word));
                deg += x[v + 1] - x[v];
                buf[nb++] = v;
                if (nb == QBUF) {
                    flush(queue, &tail, buf, nb);
                    nb = 0;
                }
            }
        }
        flush(queue, &tail, buf, nb);
    }
    *degrees = deg;
    return tail;
}

/* level[] and parent[] to "unreached"; done[] (undirected) marks the
 * vertices without edges and the padding bits past n. Branch-free: isolated
 * vertices are scattered at random among the others in R-MAT graphs, so
 * testing each degree in the first bottom-up step would mispredict about
 * every other time. Parallel, by ranges per thread; time O(n), reading X
 * once (undirected). */
static void bfs_init(const bfs_ctx *c)
{
#pragma omp parallel num_threads(c->threads)
    {
        const uint64_t nt = (uint64_t)omp_get_num_threads(), t = (uint64_t)omp_get_thread_num();
        const uint64_t lo = c->n * t / nt, hi = c->n * (t + 1) / nt;
        /* SG_NO_LEVEL and SG_NO_VERTEX are all ones. */
        memset(c->level + lo, 0xff, (size_t)(hi - lo) * sizeof *c->level);
        if (c->parent) memset(c->parent + lo, 0xff, (size_t)(hi - lo) * sizeof *c->parent);
        if (c->done) {
            const uint64_t wlo = c->nw * t / nt, whi = c->nw * (t + 1) / nt;
            const uint64_t *const x = c->x;
            for (uint64_t w = wlo; w < whi; w++) {
                uint64_t bits = 0;
                if (w * 64 + 64 <= c->n) {
                    const uint64_t *const xw = x + w * 64;
                    for (unsigned b = 0; b < 64; b++) bits |= (uint64_t)(xw[b + 1] == xw[b]) << b;
                } else {
                    for (uint64_t u = w * 64; u < c->n; u++)
                        bits |= (uint64_t)(x[u + 1] == x[u]) << (u & 63);
                }
                c->done[w] = bits;
            }
        }
    }
    if (c->done && (c->n & 63)) c->done[c->nw - 1] |= ~(uint64_t)0 << (c->n & 63);
}

/* The checks sg_bfs and sg_bfs_into share (the contract is at the
 * declarations, spillgraph.h). */
static sg_status bfs_check(const sg_run *run, const sg_graph *g, const sg_bfs_options *opt,
                           const void *out, sg_error *err)
{
    if (!run || !g || !opt || !out) return sgi_fail(err, SG_E_INVALID, "sg_bfs: NULL argument");
    const uint64_t n = g->n;
    if (n == 0)
        return sgi_fail(err, SG_E_INVALID,
                        "source %u is not a vertex: the graph has no vertices", opt->source);
    if (opt->source >= n)
        return sgi_fail(err, SG_E_INVALID, "source %u is not a vertex: the graph has %llu vertices (0..%llu)",
                        opt->source, (unsigned long long)n, (unsigned long long)(n - 1));
    if (opt->alpha < 0 || opt->beta < 0)
        return sgi_fail(err, SG_E_INVALID,
                        "BFS direction switch: alpha %d and beta %d must be >= 0 (0 = default %d, %d)",
                        opt->alpha, opt->beta, DEFAULT_ALPHA, DEFAULT_BETA);
    return SG_OK;
}

/* The search into r (allocated for g, with parents when asked). Top-down
 * steps whose frontier plus its edges stay below SERIAL_WORK run on the
 * calling thread (an OpenMP `if` clause), so deep narrow searches (paths,
 * grids, road networks) do not pay a fork per level; every other step uses
 * all of run->threads. Allocations: the queue, the thread buffers, 3
 * bitmaps (undirected), none inside a parallel region. */
static sg_status bfs_fill(sg_run *run, const sg_graph *g, const sg_bfs_options *opt,
                          sg_bfs_result *r, sg_error *err)
{
    const uint64_t n = g->n;
    const uint64_t alpha = (uint64_t)(opt->alpha ? opt->alpha : DEFAULT_ALPHA);
    const uint64_t beta = (uint64_t)(opt->beta ? opt->beta : DEFAULT_BETA);
    const bool bottom_up = !g->directed; /* a bottom-up step needs in-edges */
    if (sgi_gpu_pick(run, g, SGI_ALGO_BFS, opt->want_parents)) {
        sg_bfs_options o = *opt;
        o.alpha = (int)alpha;
        o.beta = (int)beta;
        return sgi_gpu_bfs(run, g, &o, r, err);
    }

    sg_status st = SG_OK;
    const double t0 = sgi_now();
    sgi_run_progress(run, "compute", 0.0);
    bfs_ctx c = {.x = g->x, .a = g->a, .n = n, .nw = (n + 63) / 64, .threads = run->threads};
    const size_t wbytes = (size_t)c.nw * sizeof(uint64_t);
    const bool reused = take_work(run, &c, bottom_up);
    if (!reused)
        SG_CHECK((c.queue = sgi_huge_alloc((size_t)n * sizeof *c.queue)) != NULL, SG_E_NOMEM, err,
                 "out of memory allocating the BFS queue (%llu bytes)",
                 (unsigned long long)(n * sizeof *c.queue));
    if (!reused)
        SG_CHECK((c.bufs = sgi_malloc((size_t)c.threads * QBUF * sizeof *c.bufs)) != NULL,
                 SG_E_NOMEM, err, "out of memory allocating the BFS queue buffers (%d threads)",
                 c.threads);
    if (bottom_up && !reused) {
        c.front = sgi_huge_alloc(wbytes);
        c.next = c.front ? sgi_huge_alloc(wbytes) : NULL;
        c.done = c.next ? sgi_huge_alloc(wbytes) : NULL;
        SG_CHECK(c.done != NULL, SG_E_NOMEM, err,
                 "out of memory allocating the BFS frontier bitmaps (3 x %llu bytes)",
                 (unsigned long long)wbytes);
    }
    c.level = r->level;
    c.parent = r->parent;
    bfs_init(&c);

    const uint32_t s = opt->source;
    c.level[s] = 0;
    if (c.parent) c.parent[s] = s;
    c.queue[0] = s;
    uint64_t qb = 0, qe = 1, tail = 1;
    uint64_t to_check = g->m;                 /* edges of vertices not yet in a frontier */
    uint64_t scout = g->x[s + 1] - g->x[s];   /* edges out of the frontier (switch rule) */
    uint64_t work = scout;                    /* the same, exact (serial/parallel rule) */
    uint64_t reached = 1, edges = 0, td_steps = 0, bu_steps = 0;
    uint32_t depth = 0;                       /* level of the current frontier */
    uint32_t max_level = 0;

    while (qb < qe) {
        if (bottom_up && scout > to_check / alpha) {
            queue_to_bitmap(&c, qb, qe);
            uint64_t awake = qe - qb, old;
            do {
                old = awake;
                depth++;
                awake = bu_step(&c, depth, &edges);
                uint64_t *t = c.front;
                c.front = c.next;
                c.next = t;
                bu_steps++;
                reached += awake;
                if (awake) max_level = depth;
            } while (awake >= old || awake > n / beta);
            qb = 0;
            qe = bitmap_to_queue(&c, c.front, &work);
            tail = qe;
            scout = 1; /* as gapbs: take at least one top-down step after a bottom-up phase */
        } else {
            to_check = to_check > scout ? to_check - scout : 0;
            depth++;
            const bool par = (qe - qb) + work >= SERIAL_WORK && c.threads > 1;
            scout = td_step(&c, qb, qe, &tail, depth, par, &edges);
            work = scout;
            td_steps++;
            qb = qe;
            qe = tail;
            reached += qe - qb;
            if (qe > qb) max_level = depth;
        }
    }

    r->reached = reached;
    r->max_level = max_level;
    sg_run_set(run, "top_down_steps", td_steps);
    sg_run_set(run, "bottom_up_steps", bu_steps);
    sg_run_set(run, "edges_examined", edges);
    sg_run_set(run, "work_reused", reused);
    keep_work(run, &c);
    sgi_run_progress(run, "compute", 1.0);
    run->seconds[SG_PHASE_COMPUTE] += sgi_now() - t0;
    return SG_OK;
fail:
    free_arrays(&c);
    return st;
}

sg_status sg_bfs(sg_run *run, const sg_graph *g, const sg_bfs_options *opt, sg_bfs_result **out,
                 sg_error *err)
{
    sg_status st = bfs_check(run, g, opt, out, err);
    if (st != SG_OK) return st;
    /* the result prepared while g loaded (sg_graph_options.prepare), if any */
    sg_bfs_result *r = sgi_take_prepared_bfs(run, g, opt->want_parents);
    if (r) r->source = opt->source;
    else r = sgi_bfs_alloc(g->n, opt->source, opt->want_parents);
    if (!r)
        return sgi_fail(err, SG_E_NOMEM, "out of memory allocating the BFS result (%llu vertices%s)",
                        (unsigned long long)g->n, opt->want_parents ? ", with parents" : "");
    if ((st = bfs_fill(run, g, opt, r, err)) != SG_OK) {
        sg_bfs_free(r);
        return st;
    }
    *out = r;
    return SG_OK;
}

sg_status sg_bfs_into(sg_run *run, const sg_graph *g, const sg_bfs_options *opt, sg_bfs_result *r,
                      sg_error *err)
{
    sg_status st = bfs_check(run, g, opt, r, err);
    if (st != SG_OK) return st;
    if (r->n_vertices != g->n || !r->level || (r->parent != NULL) != opt->want_parents)
        return sgi_fail(err, SG_E_INVALID,
                        "sg_bfs_into: the result is for %llu vertices %s parents, the search "
                        "is on %llu %s them",
                        (unsigned long long)r->n_vertices, r->parent ? "with" : "without",
                        (unsigned long long)g->n, opt->want_parents ? "with" : "without");
    r->source = opt->source;
    r->reached = 0;
    r->max_level = 0;
    return bfs_fill(run, g, opt, r, err);
}
