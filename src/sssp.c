/* Single-source shortest paths on the CPU: parallel delta-stepping after
 * Beamer's GAP benchmark suite (gapbs sssp.cc), with a bounded bucket ring
 * so that any delta works in bounded memory, and an exact shortest-path tree
 * computed after convergence.
 *
 * Distances live in one array of 64-bit words updated with relaxed
 * compare-and-swap min loops: u32 weights as exact uint64_t sums; f32
 * weights as the bits of a double (dist[u] + (double)w), which order like
 * the values because every distance is >= +0. The result arrays are used
 * in place (r->dist, or r->dist_f seen through a may_alias word type). */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "internal.h"

/* Bins each thread keeps in its ring: bins curr .. curr + SSSP_RING - 1
 * (a power of two); pushes further out go to the thread's "far" pile. */
#define SSSP_RING 1024u
/* gapbs kBinSizeThreshold: a thread keeps working on its own part of the
 * current bin, without a global step, while that part stays below this. */
#define SSSP_LOCAL_MAX 1000u
#define NO_BIN UINT64_MAX
/* f32 bins are capped here, so a tiny delta cannot overflow the bin index
 * (every distance beyond the cap shares the last bin: correct, just slower). */
#define BIN_CAP ((uint64_t)1 << 62)

typedef uint64_t __attribute__((may_alias)) sssp_word;

/* A growable vector of vertices, owned by one thread. */
typedef struct vbuf {
    uint32_t *v;
    uint64_t len, cap;
} vbuf;

/* One thread's bins. Allocated 64-byte aligned and far larger than a cache
 * line, so threads share no lines. */
typedef struct tstate {
    vbuf ring[SSSP_RING]; /* bin b lives in ring[b % SSSP_RING] */
    vbuf far;             /* bins >= curr + SSSP_RING */
    vbuf scratch;         /* the part of the current bin being relaxed locally */
    uint64_t far_min;     /* <= the least bin pushed to far (NO_BIN when empty) */
    uint64_t relax;       /* edge relaxations attempted */
    bool fail;            /* a push ran out of memory */
} tstate;

typedef struct sssp_ctx {
    const uint64_t *x;
    const uint32_t *a;
    const uint32_t *wu; /* u32 weights, or NULL */
    const float *wf;    /* f32 weights, or NULL */
    sssp_word *dist;
    bool f32;
    bool pow2;          /* u32: delta is 2^shift */
    unsigned shift;
    uint64_t delta_u;   /* u32 bucket width (>= 1) */
    double delta_f;     /* f32 bucket width (> 0) */
} sssp_ctx;


/* The bin of a distance word: floor(d / delta), monotone in d. */
static inline uint64_t bin_of(const sssp_ctx *c, uint64_t d)
{
    if (c->f32) {
        double q = sgi_bits_dbl(d) / c->delta_f;
        return q < (double)BIN_CAP ? (uint64_t)q : BIN_CAP;
    }
    return c->pow2 ? d >> c->shift : d / c->delta_u;
}

static __attribute__((noinline)) bool vb_grow(vbuf *b)
{
    uint64_t cap = b->cap ? 2 * b->cap : 256;
    uint32_t *p = sgi_realloc(b->v, cap * sizeof *p);
    if (!p) return false;
    b->v = p;
    b->cap = cap;
    return true;
}

static inline void vb_push(tstate *t, vbuf *b, uint32_t v)
{
    if (b->len == b->cap && !vb_grow(b)) {
        t->fail = true;
        return;
    }
    b->v[b->len++] = v;
}

/* Files v, whose distance just dropped into bin b (>= curr), into the ring
 * or the far pile. */
static inline void place(tstate *t, uint32_t v, uint64_t b, uint64_t curr)
{
    if (b - curr < SSSP_RING) {
        vb_push(t, &t->ring[b & (SSSP_RING - 1)], v);
    } else {
        if (b < t->far_min) t->far_min = b;
        vb_push(t, &t->far, v);
    }
}

/* Relaxes every out-edge of u from distance du (u32 sums). */
static inline void relax_u32(tstate *t, const sssp_ctx *c, uint32_t u, uint64_t du, uint64_t curr)
{
    const uint64_t e0 = c->x[u], e1 = c->x[u + 1];
    for (uint64_t e = e0; e < e1; e++) {
        const uint32_t v = c->a[e];
        const uint64_t nd = du + c->wu[e];
        uint64_t old = __atomic_load_n(&c->dist[v], __ATOMIC_RELAXED);
        while (nd < old) {
            if (__atomic_compare_exchange_n(&c->dist[v], &old, nd, true, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
                place(t, v, c->pow2 ? nd >> c->shift : nd / c->delta_u, curr);
                break;
            }
        }
    }
    t->relax += e1 - e0;
}

/* Relaxes every out-edge of u from distance du (f32: double sums on bits). */
static inline void relax_f32(tstate *t, const sssp_ctx *c, uint32_t u, uint64_t du, uint64_t curr)
{
    const uint64_t e0 = c->x[u], e1 = c->x[u + 1];
    const double dd = sgi_bits_dbl(du);
    for (uint64_t e = e0; e < e1; e++) {
        const uint32_t v = c->a[e];
        const double ndd = dd + (double)c->wf[e];
        const uint64_t nd = sgi_dbl_bits(ndd);
        uint64_t old = __atomic_load_n(&c->dist[v], __ATOMIC_RELAXED);
        while (nd < old) {
            if (__atomic_compare_exchange_n(&c->dist[v], &old, nd, true, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
                const double q = ndd / c->delta_f;
                place(t, v, q < (double)BIN_CAP ? (uint64_t)q : BIN_CAP, curr);
                break;
            }
        }
    }
    t->relax += e1 - e0;
}

/* Relaxes u's edges unless u's distance has since dropped into an earlier
 * bin (then a later entry of u has already done it: gapbs's check). */
static inline void process(tstate *t, const sssp_ctx *c, uint32_t u, uint64_t curr)
{
    const uint64_t du = __atomic_load_n(&c->dist[u], __ATOMIC_RELAXED);
    if (bin_of(c, du) < curr) return;
    if (c->f32)
        relax_f32(t, c, u, du, curr);
    else
        relax_u32(t, c, u, du, curr);
}

/* Moves this thread's far entries whose bin (from their distance now) lies
 * in [nb, nb + SSSP_RING) into the ring; drops those below nb (stale: the
 * vertex was pushed again at its lower distance, and that entry has been
 * processed, since nb is the least pending bin); keeps the rest. */
static void refill(tstate *t, const sssp_ctx *c, uint64_t nb)
{
    vbuf *f = &t->far;
    uint64_t keep = 0, fmin = NO_BIN;
    for (uint64_t i = 0; i < f->len; i++) {
        const uint32_t v = f->v[i];
        const uint64_t b = bin_of(c, __atomic_load_n(&c->dist[v], __ATOMIC_RELAXED));
        if (b < nb) continue;
        if (b - nb < SSSP_RING) {
            vb_push(t, &t->ring[b & (SSSP_RING - 1)], v);
        } else {
            f->v[keep++] = v;
            if (b < fmin) fmin = b;
        }
    }
    f->len = keep;
    t->far_min = fmin;
}

static inline void atomic_min_u64(uint64_t *p, uint64_t v)
{
    uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < old &&
           !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* The delta-stepping loop itself, from c->dist already initialised
 * (source 0, others infinite). Each step: threads relax the shared frontier
 * (dynamic chunks of 64) and then their own small part of the current bin
 * locally; the next bin is the least non-empty one over all threads' rings
 * and far piles (two relaxed atomic min reductions); each thread claims a
 * range of the frontier with one fetch_add and copies its part of that bin
 * there. Three barriers per step (a fourth when the frontier grows).
 * *fail is set when memory ran out (nothing else can fail). */
static void delta_step(const sg_run *run, const sssp_ctx *c, tstate **ts, uint32_t source,
                       uint32_t **frontier_io, uint64_t *fcap_io, uint64_t *steps_out,
                       bool *fail_out)
{
    uint32_t *frontier = *frontier_io;
    uint64_t fcap = *fcap_io;
    uint64_t next_bin[2] = {NO_BIN, NO_BIN}, far_min[2] = {NO_BIN, NO_BIN}, claim[2] = {0, 0};
    uint64_t steps = 0;
    int fail = 0;
    frontier[0] = source;

#pragma omp parallel num_threads(run->threads)
    {
        tstate *t = ts[omp_get_thread_num()];
        uint64_t curr = 0, fsize = 1;
        unsigned p = 0;
        for (;;) {
#pragma omp for schedule(dynamic, 64) nowait
            for (uint64_t i = 0; i < fsize; i++) process(t, c, frontier[i], curr);

            /* Keep relaxing this thread's share of the current bin while it
             * is small: saves global steps on long thin stretches. */
            vbuf *cb = &t->ring[curr & (SSSP_RING - 1)];
            while (cb->len > 0 && cb->len < SSSP_LOCAL_MAX && !t->fail) {
                vbuf tmp = *cb;
                *cb = t->scratch;
                t->scratch = tmp;
                for (uint64_t i = 0; i < t->scratch.len; i++)
                    process(t, c, t->scratch.v[i], curr);
                t->scratch.len = 0;
            }
            uint64_t mine = NO_BIN;
            for (uint64_t k = 0; k < SSSP_RING; k++)
                if (t->ring[(curr + k) & (SSSP_RING - 1)].len) {
                    mine = curr + k;
                    break;
                }
            atomic_min_u64(&next_bin[p], mine);
            atomic_min_u64(&far_min[p], t->far_min);
            if (t->fail) __atomic_store_n(&fail, 1, __ATOMIC_RELAXED);
#pragma omp barrier
            uint64_t nb = __atomic_load_n(&next_bin[p], __ATOMIC_RELAXED);
            const uint64_t fm = __atomic_load_n(&far_min[p], __ATOMIC_RELAXED);
            const bool stop = __atomic_load_n(&fail, __ATOMIC_RELAXED) || (nb == NO_BIN && fm == NO_BIN);
#pragma omp master
            {
                /* Every thread has read the other parity's values (last
                 * step); reset them for the next step. */
                next_bin[p ^ 1] = NO_BIN;
                far_min[p ^ 1] = NO_BIN;
                claim[p ^ 1] = 0;
                steps++;
            }
            if (stop) break;
            if (fm <= nb) {
                /* Far entries are due: bring those in the new window in. */
                nb = fm;
                refill(t, c, nb);
            }
            vbuf *q = &t->ring[nb & (SSSP_RING - 1)];
            const uint64_t off = __atomic_fetch_add(&claim[p], q->len, __ATOMIC_RELAXED);
            /* Read before the barrier: the single below changes it, and
             * every thread must take the same branch. */
            const uint64_t cap_now = fcap;
#pragma omp barrier
            const uint64_t total = __atomic_load_n(&claim[p], __ATOMIC_RELAXED);
            if (total > cap_now) {
#pragma omp single
                {
                    uint64_t cap = 2 * fcap > total ? 2 * fcap : total;
                    sgi_free(frontier);
                    frontier = sgi_huge_alloc(cap * sizeof *frontier);
                    fcap = frontier ? cap : 0;
                    if (!frontier) __atomic_store_n(&fail, 1, __ATOMIC_RELAXED);
                }
                if (__atomic_load_n(&fail, __ATOMIC_RELAXED)) break;
            }
            if (q->len) memcpy(frontier + off, q->v, q->len * sizeof *frontier);
            q->len = 0;
            curr = nb;
            fsize = total;
            p ^= 1;
#pragma omp barrier
        }
    }
    *frontier_io = frontier;
    *fcap_io = fcap;
    *steps_out = steps;
    *fail_out = fail != 0;
}

/* Whether edge (du --w--> dv) is tight: du + w == dv in the run's arithmetic. */
static inline bool tight(const sssp_ctx *c, uint64_t du, uint64_t e, uint64_t dv)
{
    if (c->f32) return sgi_dbl_bits(sgi_bits_dbl(du) + (double)c->wf[e]) == dv;
    return du + c->wu[e] == dv;
}

/* The shortest-path tree from converged distances (INF = unreached).
 * Pass 1, parallel: parent[v] = some u with a tight edge u -> v and
 * dist[u] < dist[v] (undirected graphs scan v's own list, which holds the
 * reverse edges; directed ones scan every list and store racily, any tight
 * u being right). Strictly smaller distances make these parents acyclic.
 * Pass 2, serial and only when pass 1 left reached vertices without a
 * parent (zero weights, or f32 sums that round back to dist[u]): a BFS over
 * tight edges from every vertex that has a parent, so equal-distance
 * vertices hang off one another as a tree (each is given a parent once,
 * by a vertex that already had one). Every reached vertex is reachable
 * from the source over tight edges, so pass 2 finishes the tree.
 * Time O(m) parallel (+ O(n + m) serial for pass 2). Memory: pass 2 only,
 * a queue of 4n bytes. */
static sg_status sssp_parents(const sg_run *run, const sg_graph *g, const sssp_ctx *c,
                              uint64_t inf, uint32_t source, uint32_t *parent, sg_error *err)
{
    const uint64_t n = g->n;
    const sssp_word *dist = c->dist;
    uint64_t missing = 0;
    if (!g->directed) {
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : missing) num_threads(run->threads)
        for (uint64_t v = 0; v < n; v++) {
            const uint64_t dv = dist[v];
            uint32_t p = SG_NO_VERTEX;
            if (v == source) {
                p = source;
            } else if (dv != inf) {
                for (uint64_t e = c->x[v]; e < c->x[v + 1]; e++) {
                    const uint32_t u = c->a[e];
                    const uint64_t du = dist[u];
                    if (du < dv && tight(c, du, e, dv)) {
                        p = u;
                        break;
                    }
                }
                missing += p == SG_NO_VERTEX;
            }
            parent[v] = p;
        }
    } else {
#pragma omp parallel num_threads(run->threads)
        {
#pragma omp for schedule(static)
            for (uint64_t v = 0; v < n; v++) parent[v] = v == source ? source : SG_NO_VERTEX;
#pragma omp for schedule(dynamic, 1024)
            for (uint64_t u = 0; u < n; u++) {
                const uint64_t du = dist[u];
                if (du == inf) continue;
                for (uint64_t e = c->x[u]; e < c->x[u + 1]; e++) {
                    const uint32_t v = c->a[e];
                    const uint64_t dv = dist[v];
                    if (du < dv && tight(c, du, e, dv))
                        __atomic_store_n(&parent[v], (uint32_t)u, __ATOMIC_RELAXED);
                }
            }
#pragma omp for schedule(static) reduction(+ : missing)
            for (uint64_t v = 0; v < n; v++)
                missing += dist[v] != inf && parent[v] == SG_NO_VERTEX;
        }
    }
    if (missing == 0) return SG_OK;

    uint32_t *queue = sgi_huge_alloc(n * sizeof *queue);
    if (!queue)
        return sgi_fail(err, SG_E_NOMEM, "out of memory allocating the parent queue (%llu bytes)",
                        (unsigned long long)(n * sizeof *queue));
    uint64_t head = 0, tail = 0;
    for (uint64_t v = 0; v < n; v++)
        if (parent[v] != SG_NO_VERTEX) queue[tail++] = (uint32_t)v;
    while (head < tail) {
        const uint32_t u = queue[head++];
        const uint64_t du = dist[u];
        for (uint64_t e = c->x[u]; e < c->x[u + 1]; e++) {
            const uint32_t v = c->a[e];
            if (parent[v] == SG_NO_VERTEX && dist[v] != inf && tight(c, du, e, dist[v])) {
                parent[v] = u;
                queue[tail++] = v;
            }
        }
    }
    sgi_free(queue);
    return SG_OK;
}

/* The automatic bucket width. Delta-stepping wants buckets wide enough to
 * hold many vertices (parallel work per step) yet narrow enough that few
 * relaxations are wasted on vertices whose distance drops again later.
 * Heuristic: delta = mean weight / average degree / 16 (m / n, isolated
 * vertices included), u32 widths rounded to a power of two so bins are
 * shifts. Measured with 2 threads on R-MAT (weights uniform in [1, 2^20],
 * m / n = 28..29, mean/deg ~ 18000): relaxations per stored edge 1.03 at
 * delta 256, 1.09 at 1024, 1.18 at 2048, 1.39 at 4096, 1.83 at 8192, 2.3
 * at 32768, 4.8 at 65536; time was flat within 5 % over 1024..4096 at
 * scale 18 (60 ms) and over 2048..8192 at scale 16, and 3x worse at
 * 262144; below 512 the steps (one per bucket, three barriers each)
 * dominate. With 16 threads on the GPU host at scale 24 (m / n = 31,
 * mean/deg ~ 17000; docs/benchmarks.md) one source took 0.91 s at 1024,
 * 1.12 s at 2048, 1.17 s at 4096, 1.38 s at 8192 and 2.9 s at 65536, so
 * the factor is 1/16 (1024 there; the flat range at scale 18 includes it).
 * It scales like gapbs's settings (weights [1, 255], degree 32: delta ~ 1..2).
 * The mean weight comes from a strided sample of at most 65536 edges, so
 * the choice costs O(1). */
#define SSSP_DELTA_FACTOR 0.0625
static double auto_delta(const sg_graph *g)
{
    if (g->m == 0 || g->n == 0) return 1.0;
    const uint64_t samples = g->m < 65536 ? g->m : 65536;
    const uint64_t stride = g->m / samples;
    double sum = 0.0;
    for (uint64_t i = 0; i < samples; i++) {
        const uint64_t e = i * stride;
        if (g->wt == SG_WEIGHT_F32)
            sum += (double)((const float *)g->w)[e];
        else
            sum += (double)((const uint32_t *)g->w)[e];
    }
    const double mean = sum / (double)samples;
    const double deg = (double)g->m / (double)g->n;
    double delta = SSSP_DELTA_FACTOR * mean / (deg > 1.0 ? deg : 1.0);
    if (!(delta > 0.0)) delta = 1.0; /* all sampled weights zero */
    if (g->wt != SG_WEIGHT_F32) {
        if (delta < 1.0) delta = 1.0;
        delta = exp2(round(log2(delta)));
    }
    return delta;
}

double sgi_sssp_auto_delta(const sg_graph *g) { return auto_delta(g); }

sg_status sgi_sssp_parents(const sg_run *run, const sg_graph *g, const uint64_t *dist,
                           uint32_t source, uint32_t *parent, sg_error *err)
{
    const bool f32 = g->wt == SG_WEIGHT_F32;
    sssp_ctx c = {.x = g->x, .a = g->a, .f32 = f32, .dist = (sssp_word *)dist};
    if (f32)
        c.wf = g->w;
    else
        c.wu = g->w;
    return sssp_parents(run, g, &c, f32 ? sgi_dbl_bits(INFINITY) : UINT64_MAX, source, parent, err);
}

const char *sg_sssp_method_name(sg_sssp_method m)
{
    switch (m) {
    case SG_SSSP_AUTO: return "auto";
    case SG_SSSP_DELTA: return "delta";
    case SG_SSSP_BELLMAN_FORD: return "bellman-ford";
    }
    return "unknown";
}

bool sg_sssp_method_parse(const char *name, sg_sssp_method *out)
{
    for (int m = SG_SSSP_AUTO; m <= SG_SSSP_BELLMAN_FORD; m++)
        if (name && strcmp(name, sg_sssp_method_name((sg_sssp_method)m)) == 0) {
            *out = (sg_sssp_method)m;
            return true;
        }
    return false;
}

/* Argument checks shared with the oracle (sg_oracle_dijkstra calls it). */
sg_status sgi_sssp_check(const sg_graph *g, uint32_t source, sg_error *err)
{
    const sg_status ns = sgi_narrow_refused(g, "shortest paths", err);
    if (ns != SG_OK) return ns;
    if (g->n == 0)
        return sgi_fail(err, SG_E_INVALID, "the graph has no vertices: there is no source %u",
                        source);
    if (source >= g->n)
        return sgi_fail(err, SG_E_INVALID,
                        "source %u is not a vertex: the graph has %llu vertices (0..%llu)", source,
                        (unsigned long long)g->n, (unsigned long long)(g->n - 1));
    if (!g->w)
        return sgi_fail(err, SG_E_INVALID,
                        "the graph was loaded without weights; shortest paths need them");
    if (g->negative_weights)
        return sgi_fail(err, SG_E_INVALID,
                        "the graph has negative weights (flagged in the store); shortest paths "
                        "need non-negative weights");
    return SG_OK;
}

/* The checks sg_sssp and sg_sssp_into share. */
static sg_status sssp_check(const sg_run *run, const sg_graph *g, const sg_sssp_options *opt,
                            const void *out, sg_error *err)
{
    if (!run || !g || !opt || !out) return sgi_fail(err, SG_E_INVALID, "sg_sssp: NULL argument");
    sg_status st = sgi_sssp_check(g, opt->source, err);
    if (st != SG_OK) return st;
    if (!(opt->delta >= 0.0) || isinf(opt->delta))
        return sgi_fail(err, SG_E_INVALID, "delta %g: the bucket width must be finite and >= 0 "
                        "(0 = automatic)", opt->delta);
    if ((unsigned)opt->method > SG_SSSP_BELLMAN_FORD)
        return sgi_fail(err, SG_E_INVALID, "unknown SSSP method %d", (int)opt->method);
    return SG_OK;
}

/* Delta-stepping from opt->source with bucket width opt->delta (0: the
 * heuristic above; u32 graphs use floor(delta), at least 1), then the
 * parent tree when asked. The graph is not modified.
 * Errors: SG_E_INVALID (NULL argument, no vertices, source >= n, no
 * weights loaded, negative weights flagged, delta < 0, NaN or infinite),
 * SG_E_NOMEM (*out untouched, nothing leaked). Counters: "buckets" (global
 * steps: bins taken in turn, a bin counted again when it refills),
 * "relaxations" (edges scanned from processed vertices). Time: parallel
 * O(m * r / T) with r the re-relaxation factor (1.2 at the automatic delta
 * on R-MAT), plus three barriers per step; parents O(m / T). Memory: the
 * result (8n bytes, +4n with parents), a frontier of 4 bytes per vertex of
 * the largest bucket (at least n/16 entries), and per thread 24 KiB of
 * bins plus 4 bytes per pending push. sssp_fill searches into r (allocated
 * for g's vertices and weight type, with parents when asked): the
 * backend's, or the CPU's below. */
static sg_status sssp_fill(sg_run *run, const sg_graph *g, const sg_sssp_options *opt,
                           sg_sssp_result *r, sg_error *err)
{
    sg_status st = SG_OK;
    const bool bf = opt->method == SG_SSSP_BELLMAN_FORD;
    if (sgi_gpu_pick(run, g, bf ? SGI_ALGO_SSSP_BF : SGI_ALGO_SSSP_DELTA, opt->want_parents))
        return sgi_gpu_sssp(run, g, opt, r, err);
    if (bf)
        return sgi_fail(err, SG_E_UNSUPPORTED,
                        "the bellman-ford method runs on the gpu backend only (this call runs on "
                        "the cpu%s%s); use --method delta",
                        run->fallback[0] ? ": " : "", run->fallback);

    const double t0 = sgi_now();
    const bool f32 = g->wt == SG_WEIGHT_F32;
    const int nt = run->threads;
    tstate **ts = NULL;
    uint32_t *frontier = NULL;
    uint64_t fcap = 0;

    sgi_run_progress(run, "compute", 0.0);
    SG_ALLOC(ts, sgi_calloc((size_t)nt, sizeof *ts), err, "the thread bins");
    for (int i = 0; i < nt; i++) {
        SG_ALLOC(ts[i], sgi_aligned_alloc(64, sizeof **ts), err, "the thread bins");
        memset(ts[i], 0, sizeof **ts);
        ts[i]->far_min = NO_BIN;
    }
    fcap = g->n < 4096 ? 4096 : g->n / 16;
    SG_ALLOC(frontier, sgi_huge_alloc(fcap * sizeof *frontier), err, "the frontier");

    sssp_ctx c = {.x = g->x, .a = g->a, .f32 = f32};
    double delta = opt->delta > 0.0 ? opt->delta : auto_delta(g);
    if (f32) {
        c.wf = g->w;
        c.dist = (sssp_word *)r->dist_f;
        c.delta_f = delta;
    } else {
        c.wu = g->w;
        c.dist = r->dist;
        c.delta_u = delta >= 0x1p63 ? (uint64_t)1 << 63 : delta < 1.0 ? 1 : (uint64_t)delta;
        c.pow2 = (c.delta_u & (c.delta_u - 1)) == 0;
        c.shift = (unsigned)__builtin_ctzll(c.delta_u);
        delta = (double)c.delta_u;
    }
    const uint64_t inf = f32 ? sgi_dbl_bits(INFINITY) : UINT64_MAX;
    const uint64_t n = g->n;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (uint64_t v = 0; v < n; v++) c.dist[v] = inf;
    c.dist[opt->source] = 0; /* +0.0 for f32 */

    uint64_t steps = 0;
    bool fail = false;
    delta_step(run, &c, ts, opt->source, &frontier, &fcap, &steps, &fail);
    SG_CHECK(!fail, SG_E_NOMEM, err, "out of memory growing the delta-stepping buckets");
    if (r->parent) SG_TRY(sssp_parents(run, g, &c, inf, opt->source, r->parent, err));

    uint64_t reached = 0, maxd = 0, relax = 0;
    sgi_dist_summary(c.dist, n, inf, nt, &reached, &maxd);
    for (int i = 0; i < nt; i++) relax += ts[i]->relax;
    r->reached = reached;
    r->max_dist = f32 ? sgi_bits_dbl(maxd) : (double)maxd;
    r->delta = delta;
    sg_run_set(run, "buckets", steps);
    sg_run_set(run, "relaxations", relax);
    sgi_run_progress(run, "compute", 1.0);
fail:
    if (ts)
        for (int i = 0; i < nt; i++) {
            if (!ts[i]) continue;
            for (unsigned k = 0; k < SSSP_RING; k++) sgi_free(ts[i]->ring[k].v);
            sgi_free(ts[i]->far.v);
            sgi_free(ts[i]->scratch.v);
            sgi_free(ts[i]);
        }
    sgi_free(ts);
    sgi_free(frontier);
    run->seconds[SG_PHASE_COMPUTE] += sgi_now() - t0;
    return st;
}

sg_status sg_sssp(sg_run *run, const sg_graph *g, const sg_sssp_options *opt,
                  sg_sssp_result **out, sg_error *err)
{
    sg_status st = sssp_check(run, g, opt, out, err);
    if (st != SG_OK) return st;
    /* the result prepared while g loaded (sg_graph_options.prepare), if any */
    sg_sssp_result *r = sgi_take_prepared_sssp(run, g, opt->want_parents);
    if (r) r->source = opt->source;
    else r = sgi_sssp_alloc(g->n, opt->source, g->wt, opt->want_parents);
    if (!r)
        return sgi_fail(err, SG_E_NOMEM, "out of memory allocating the distances (%llu vertices%s)",
                        (unsigned long long)g->n, opt->want_parents ? ", with parents" : "");
    if ((st = sssp_fill(run, g, opt, r, err)) != SG_OK) {
        sg_sssp_free(r);
        return st;
    }
    *out = r;
    return SG_OK;
}

sg_status sg_sssp_into(sg_run *run, const sg_graph *g, const sg_sssp_options *opt,
                       sg_sssp_result *r, sg_error *err)
{
    sg_status st = sssp_check(run, g, opt, r, err);
    if (st != SG_OK) return st;
    const sg_weight_type wt = g->wt ? g->wt : SG_WEIGHT_U32;
    if (r->n_vertices != g->n || r->weight_type != wt ||
        !(wt == SG_WEIGHT_F32 ? (void *)r->dist_f : (void *)r->dist) ||
        (r->parent != NULL) != opt->want_parents)
        return sgi_fail(err, SG_E_INVALID,
                        "sg_sssp_into: the result is for %llu vertices (%s weights) %s parents, "
                        "the search is on %llu (%s) %s them",
                        (unsigned long long)r->n_vertices,
                        r->weight_type == SG_WEIGHT_F32 ? "f32" : "u32",
                        r->parent ? "with" : "without", (unsigned long long)g->n,
                        wt == SG_WEIGHT_F32 ? "f32" : "u32", opt->want_parents ? "with" : "without");
    r->source = opt->source;
    r->reached = 0;
    r->max_dist = 0;
    r->delta = 0;
    return sssp_fill(run, g, opt, r, err);
}
