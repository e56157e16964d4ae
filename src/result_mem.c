/* Allocation, canonical ordering and freeing of results (forests, distances,
 * levels, clusters), shared by the algorithms and their oracles. */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sg_config.h"
#if SG_HAVE_CUDA
#include "gpu.h"
#endif

static void result_unpin(void *p);

sg_forest *sgi_forest_alloc(uint64_t n, uint64_t max_edges, sg_weight_type wt)
{
    sg_forest *f = sgi_calloc(1, sizeof *f);
    if (!f) return NULL;
    f->n_vertices = n;
    f->n_trees = n;
    f->weight_type = wt ? wt : SG_WEIGHT_U32;
    size_t bytes = (size_t)(max_edges ? max_edges : 1) * sizeof(uint32_t);
    f->u = sgi_huge_alloc(bytes);
    f->v = sgi_huge_alloc(bytes);
    f->w = sgi_huge_alloc(bytes);
    if (!f->u || !f->v || !f->w) {
        sg_forest_free(f);
        return NULL;
    }
    return f;
}

void sg_forest_free(sg_forest *f)
{
    if (!f) return;
    result_unpin(f->u);
    result_unpin(f->v);
    result_unpin(f->w);
    sgi_free(f->u);
    sgi_free(f->v);
    sgi_free(f->w);
    sgi_free(f);
}

sg_status sgi_forest_finish(sg_forest *f, int threads, sg_error *err)
{
    sg_status st = SG_OK;
    const uint64_t k = f->n_edges;
    sgi_wedge *e = NULL, *tmp = NULL;
    f->n_trees = f->n_vertices - k;
    if (k) {
        SG_ALLOC(e, sgi_huge_alloc(k * sizeof *e), err, "the forest's sort buffer");
        SG_ALLOC(tmp, sgi_huge_alloc(k * sizeof *tmp), err, "the forest's sort scratch");
        const sg_weight_type wt = f->weight_type;
#pragma omp parallel for num_threads(threads) schedule(static)
        for (uint64_t i = 0; i < k; i++)
        {
            const uint32_t a = f->u[i], b = f->v[i];
            e[i] = (sgi_wedge){sgi_weight_key(wt, f->w[i]), a < b ? a : b, a < b ? b : a, f->w[i]};
        }
        sgi_sort_wedges(e, tmp, k, threads);
#pragma omp parallel for num_threads(threads) schedule(static)
        for (uint64_t i = 0; i < k; i++) {
            f->u[i] = e[i].u;
            f->v[i] = e[i].v;
            f->w[i] = e[i].w;
        }
    }
    sgi_forest_totals(f, threads);
fail:
    sgi_free(e);
    sgi_free(tmp);
    return st;
}

void sgi_forest_totals(sg_forest *f, int threads)
{
    const uint64_t k = f->n_edges;
    f->n_trees = f->n_vertices - k;
    if (f->weight_type == SG_WEIGHT_F32) { /* in the canonical order, as documented */
        double td = 0.0;
        for (uint64_t i = 0; i < k; i++) {
            float x;
            memcpy(&x, &f->w[i], sizeof x);
            td += (double)x;
        }
        f->total_u32 = 0;
        f->total = td;
        return;
    }
    /* An integer sum is the same in any order: split over the threads (R-MAT
     * 26's 33 M edges took ~15 ms on one). */
    uint64_t t64 = 0;
    const uint32_t *w = f->w;
#pragma omp parallel for schedule(static) reduction(+ : t64) num_threads(threads > 0 ? threads : 1)
    for (uint64_t i = 0; i < k; i++) t64 += w[i];
    f->total_u32 = t64;
    f->total = (double)t64;
}

sg_sssp_result *sgi_sssp_alloc(uint64_t n, uint32_t source, sg_weight_type wt, bool parents)
{
    sg_sssp_result *r = sgi_calloc(1, sizeof *r);
    if (!r) return NULL;
    r->n_vertices = n;
    r->source = source;
    r->weight_type = wt ? wt : SG_WEIGHT_U32;
    size_t nn = (size_t)(n ? n : 1);
    if (r->weight_type == SG_WEIGHT_F32)
        r->dist_f = sgi_huge_alloc(nn * sizeof *r->dist_f);
    else
        r->dist = sgi_huge_alloc(nn * sizeof *r->dist);
    if (parents) r->parent = sgi_huge_alloc(nn * sizeof *r->parent);
    if ((!r->dist && !r->dist_f) || (parents && !r->parent)) {
        sg_sssp_free(r);
        return NULL;
    }
    return r;
}

void sg_sssp_free(sg_sssp_result *r)
{
    if (!r) return;
    result_unpin(r->dist);
    result_unpin(r->dist_f);
    result_unpin(r->parent);
    sgi_free(r->dist);
    sgi_free(r->dist_f);
    sgi_free(r->parent);
    sgi_free(r);
}

sg_bfs_result *sgi_bfs_alloc(uint64_t n, uint32_t source, bool parents)
{
    sg_bfs_result *r = sgi_calloc(1, sizeof *r);
    if (!r) return NULL;
    r->n_vertices = n;
    r->source = source;
    size_t nn = (size_t)(n ? n : 1);
    r->level = sgi_huge_alloc(nn * sizeof *r->level);
    if (parents) r->parent = sgi_huge_alloc(nn * sizeof *r->parent);
    if (!r->level || (parents && !r->parent)) {
        sg_bfs_free(r);
        return NULL;
    }
    return r;
}

void sgi_dist_summary(const uint64_t *dist, uint64_t n, uint64_t inf, int threads,
                      uint64_t *reached, uint64_t *max_bits)
{
    uint64_t hits = 0, mx = 0;
#pragma omp parallel for schedule(static) reduction(+ : hits) reduction(max : mx) num_threads(threads)
    for (uint64_t v = 0; v < n; v++) {
        const uint64_t d = dist[v], hit = d != inf, dd = hit ? d : 0;
        hits += hit;
        mx = dd > mx ? dd : mx;
    }
    *reached = hits;
    *max_bits = mx;
}

void sg_bfs_free(sg_bfs_result *r)
{
    if (!r) return;
    result_unpin(r->level);
    result_unpin(r->parent);
    sgi_free(r->level);
    sgi_free(r->parent);
    sgi_free(r);
}

void sg_clusters_free(sg_clusters *c)
{
    if (!c) return;
    sgi_free(c->label);
    sgi_free(c->size);
    sgi_free(c);
}

/* Whether the comma-separated list in environment variable `var` names
 * `name`. */
static bool env_lists(const char *var, const char *name)
{
    const char *list = getenv(var);
    const size_t k = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == k && memcmp(p, name, k) == 0) return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

bool sgi_switch_on(const char *name)
{
    return env_lists("SPILLGRAPH_GPU_ENABLE", name) && !sgi_switch_off(name);
}

bool sgi_switch_off(const char *name)
{
    return env_lists("SPILLGRAPH_GPU_DISABLE", name);
}

bool sg_switch_disabled(const char *name) { return name && sgi_switch_off(name); }

/* ------------------------------------------------ sg_graph_options.prepare
 *
 * A search's result is written once by the search itself (the CPU's
 * initialisation, the GPU's download), so its pages are faulted in inside
 * the search's time: for R-MAT 26's 268 MB of levels a download into fresh
 * pages took 12-25 ms on the H100 host against ~7 ms into present ones
 * (docs/benchmarks.md). A helper thread writes a byte of every page while
 * the graph loads (a second or more at that size, 16 threads decoding),
 * and the load joins it at its end. The byte is 0; the search overwrites
 * every entry. */
struct sgi_prefault {
    pthread_t th;
    bool started;
    int pin_device;               /* >= 0: pin the arrays for this GPU's DMA */
    sg_bfs_result *bfs;
    sg_sssp_result *sssp;
    sg_forest *forest;
    uint32_t *trees;              /* with the forest on a GPU: its trees' host copy */
    void *arr[3];
    size_t bytes[3];
    unsigned pinned;              /* arrays the helper pinned (the trees' not counted) */
    bool trees_pinned;
    double seconds;               /* the helper's own time */
};

/* Result arrays pinned for the GPU's DMA (cudaHostRegister), unpinned when
 * the result is freed: the download of a pinned result is one DMA
 * (kernels/context.cu, sgk_download), without the host threads' copy out
 * of the staging buffers, which took 6-23 ms of R-MAT 26's 268 MB of
 * levels and varied with whatever else the host was doing
 * (docs/benchmarks.md, twenty-first session). Only arrays of 2 MiB or more
 * (sgi_huge_alloc's, aligned and sized in whole 2 MiB pages, so that no
 * other allocation shares a pinned page); a few at a time. */
#define PIN_SLOTS 8
static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static void *pin_slot[PIN_SLOTS];

#if SG_HAVE_CUDA
static size_t pin_bytes(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    return bytes < huge ? 0 : (bytes + huge - 1) & ~(huge - 1);
}
#endif

/* Pins p (bytes long) for device `dev`; whether it is pinned. */
static bool result_pin(int dev, void *p, size_t bytes)
{
#if SG_HAVE_CUDA
    const size_t len = pin_bytes(bytes);
    if (!p || len == 0) return false;
    (void)pthread_mutex_lock(&pin_lock);
    int slot = -1;
    for (int i = 0; i < PIN_SLOTS && slot < 0; i++)
        if (!pin_slot[i]) slot = i;
    if (slot >= 0) pin_slot[slot] = p; /* reserved before the call */
    (void)pthread_mutex_unlock(&pin_lock);
    if (slot < 0) return false;
    sg_error e = {0};
    if (sgk_host_pin(dev, p, len, &e) == SG_OK) return true;
    /* not pinned (no room to lock it, say): the search copies it out as
     * unprepared */
    (void)pthread_mutex_lock(&pin_lock);
    pin_slot[slot] = NULL;
    (void)pthread_mutex_unlock(&pin_lock);
    return false;
#else
    (void)dev, (void)p, (void)bytes;
    return false;
#endif
}

static void result_unpin(void *p)
{
    if (!p) return;
    bool found = false;
    (void)pthread_mutex_lock(&pin_lock);
    for (int i = 0; i < PIN_SLOTS; i++)
        if (pin_slot[i] == p) {
            pin_slot[i] = NULL;
            found = true;
        }
    (void)pthread_mutex_unlock(&pin_lock);
#if SG_HAVE_CUDA
    if (found) sgk_host_unregister(p); /* fails only when the pinning is gone already */
#else
    (void)found;
#endif
}

static void *prefault_main(void *arg)
{
    sgi_prefault *p = arg;
    const double t0 = sgi_now();
    for (int i = 0; i < 3; i++)
        if (p->arr[i]) sgi_touch_pages(p->arr[i], p->bytes[i], false);
    for (int i = 0; i < 3 && p->pin_device >= 0; i++)
        if (p->arr[i] && result_pin(p->pin_device, p->arr[i], p->bytes[i])) p->pinned++;
    if (p->trees) {
        const size_t tb = (size_t)p->forest->n_vertices * sizeof *p->trees;
        sgi_touch_pages(p->trees, tb, false);
        p->trees_pinned = result_pin(p->pin_device, p->trees, tb);
    }
    p->seconds = sgi_now() - t0;
    return NULL;
}

sg_status sgi_prefault_start(const sg_graph_options *opt, uint64_t n, sg_weight_type wt,
                             int pin_device, sgi_prefault **out, sg_error *err)
{
    *out = NULL;
    if (!opt || opt->prepare == SG_PREPARE_NONE || n == 0) return SG_OK;
    if (opt->prepare != SG_PREPARE_BFS && opt->prepare != SG_PREPARE_SSSP &&
        opt->prepare != SG_PREPARE_FOREST)
        return sgi_fail(err, SG_E_INVALID, "sg_graph_options.prepare: unknown kind %d",
                        (int)opt->prepare);
    /* the optimisation switch (docs/design.md), for either backend */
    if (sgi_switch_off("prepare")) return SG_OK;
    sgi_prefault *p = sgi_calloc(1, sizeof *p);
    if (!p) return sgi_fail(err, SG_E_NOMEM, "out of memory preparing the search's result");
    const bool par = opt->prepare_parents;
    p->pin_device = sgi_switch_off("prepare-pin") ? -1 : pin_device;
    if (opt->prepare == SG_PREPARE_BFS) {
        p->bfs = sgi_bfs_alloc(n, 0, par);
        if (p->bfs) {
            p->arr[0] = p->bfs->level;
            p->bytes[0] = n * sizeof *p->bfs->level;
            p->arr[1] = p->bfs->parent;
            p->bytes[1] = par ? n * sizeof *p->bfs->parent : 0;
        }
    } else if (opt->prepare == SG_PREPARE_FOREST) {
        p->forest = sgi_forest_alloc(n, n - 1, wt);
        for (int i = 0; i < 3 && p->forest; i++) {
            uint32_t *const a[3] = {p->forest->u, p->forest->v, p->forest->w};
            p->arr[i] = a[i];
            p->bytes[i] = (n - 1) * sizeof *a[i];
        }
        /* the trees' copy for the experiment "gather-cpu" (kernels/mst.cu;
         * pinned only as whole 2 MiB pages; without it, or where it cannot
         * be had, the GPU gathers alone) */
        if (p->forest && p->pin_device >= 0 && n * sizeof(uint32_t) >= ((size_t)2 << 20) &&
            sgi_switch_on("gather-cpu"))
            p->trees = sgi_huge_alloc(n * sizeof(uint32_t));
    } else {
        p->sssp = sgi_sssp_alloc(n, 0, wt, par);
        if (p->sssp) {
            p->arr[0] = p->sssp->dist ? (void *)p->sssp->dist : (void *)p->sssp->dist_f;
            p->bytes[0] = n * 8;
            p->arr[1] = p->sssp->parent;
            p->bytes[1] = par ? n * sizeof *p->sssp->parent : 0;
        }
    }
    if (!p->bfs && !p->sssp && !p->forest) {
        sgi_free(p);
        return sgi_fail(err, SG_E_NOMEM,
                        "out of memory allocating the %s result to prepare (%llu vertices%s)",
                        opt->prepare == SG_PREPARE_BFS    ? "BFS"
                        : opt->prepare == SG_PREPARE_SSSP ? "SSSP"
                                                          : "forest",
                        (unsigned long long)n, par ? ", with parents" : "");
    }
    /* Without a thread the search faults the pages in itself, as unprepared. */
    p->started = pthread_create(&p->th, NULL, prefault_main, p) == 0;
    *out = p;
    return SG_OK;
}

static double prefault_join(sgi_prefault *p)
{
    const double t0 = sgi_now();
    if (p->started) (void)pthread_join(p->th, NULL); /* fails only for a bad handle */
    p->started = false;
    return sgi_now() - t0;
}

void sgi_prefault_finish(sgi_prefault *p, sg_run *run, uint64_t uid)
{
    if (!p) return;
    const double wait = prefault_join(p);
    sg_run_set(run, "result_prefault_us", (uint64_t)(p->seconds * 1e6));
    sg_run_set(run, "result_prefault_wait_us", (uint64_t)(wait * 1e6));
    sg_run_set(run, "result_pinned", p->pinned);
    if (p->forest) sg_run_set(run, "forest_trees_pinned", p->trees_pinned ? 1 : 0);
    sgi_run_drop_prepared(run);
    run->prep_bfs = p->bfs;
    run->prep_sssp = p->sssp;
    run->prep_forest = p->forest;
    run->prep_trees = p->trees;
    run->prep_uid = uid;
    sgi_free(p);
}

void sgi_prefault_drop(sgi_prefault *p)
{
    if (!p) return;
    (void)prefault_join(p);
    sg_bfs_free(p->bfs);
    sg_sssp_free(p->sssp);
    sg_forest_free(p->forest);
    sgi_trees_free(p->trees);
    sgi_free(p);
}

void sgi_run_drop_prepared(sg_run *run)
{
    if (!run) return;
    sg_bfs_free(run->prep_bfs);
    sg_sssp_free(run->prep_sssp);
    sg_forest_free(run->prep_forest);
    sgi_trees_free(run->prep_trees);
    run->prep_bfs = NULL;
    run->prep_sssp = NULL;
    run->prep_forest = NULL;
    run->prep_trees = NULL;
    run->prep_uid = 0;
}

sg_bfs_result *sgi_take_prepared_bfs(sg_run *run, const sg_graph *g, bool parents)
{
    sg_bfs_result *r = run->prep_bfs;
    if (r && (run->prep_uid != g->uid || r->n_vertices != g->n || (r->parent != NULL) != parents))
        r = NULL;
    if (r) run->prep_bfs = NULL;
    sgi_run_drop_prepared(run);
    return r;
}

sg_sssp_result *sgi_take_prepared_sssp(sg_run *run, const sg_graph *g, bool parents)
{
    sg_sssp_result *r = run->prep_sssp;
    const sg_weight_type wt = g->wt ? g->wt : SG_WEIGHT_U32;
    if (r && (run->prep_uid != g->uid || r->n_vertices != g->n || r->weight_type != wt ||
              (r->parent != NULL) != parents))
        r = NULL;
    if (r) run->prep_sssp = NULL;
    sgi_run_drop_prepared(run);
    return r;
}

void sgi_trees_free(uint32_t *trees)
{
    result_unpin(trees);
    sgi_free(trees);
}

uint32_t *sgi_take_prepared_trees(sg_run *run, const sg_graph *g)
{
    uint32_t *t = run->prep_trees;
    if (!t || !run->prep_forest || run->prep_uid != g->uid ||
        run->prep_forest->n_vertices != g->n)
        return NULL;
    run->prep_trees = NULL;
    return t;
}

sg_forest *sgi_take_prepared_forest(sg_run *run, const sg_graph *g)
{
    sg_forest *f = run->prep_forest;
    const sg_weight_type wt = g->wt ? g->wt : SG_WEIGHT_U32;
    if (f && (run->prep_uid != g->uid || f->n_vertices != g->n || f->weight_type != wt))
        f = NULL;
    if (f) run->prep_forest = NULL;
    sgi_run_drop_prepared(run);
    return f;
}
