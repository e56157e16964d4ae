/* The gpu backend's glue: choosing the device for a call, the run's device
 * context and device copy of a graph, staged loading of a store onto the
 * device, and the algorithm wrappers that turn kernels/ results into the
 * public result types. The kernels themselves live in the kernels/ .cu files behind
 * gpu.h; nothing here touches CUDA directly. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <omp.h>
#include <unistd.h>

#include "internal.h"
#include "sg_config.h"
#if SG_HAVE_CUDA
#include "cpu_topk.h"
#include "gpu.h"
#endif

/* b in GiB, MiB or KiB, two decimals (for messages). */
static const char *size_str(char buf[32], uint64_t b)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB"};
    int u = 2;
    while (u > 0 && (double)b < (double)(1ull << (10 * (u + 1)))) u--;
    snprintf(buf, 32, "%.2f %s", (double)b / (double)(1ull << (10 * (u + 1))), unit[u]);
    return buf;
}

sg_status sg_managed_fits(uint64_t bytes, uint64_t free_b, uint64_t total_b, int device,
                          const char *path, sg_error *err)
{
    const uint64_t margin = sgi_device_margin(total_b);
    const uint64_t room = free_b > margin ? free_b - margin : 0;
    if (bytes <= room) return SG_OK;
    char b1[32], b2[32], b3[32];
    return sgi_fail(err, SG_E_NOMEM,
                    "%s: --host-mem managed: the graph's %s are more managed memory than GPU %d "
                    "can take (%s free less a margin of %s); use --host-mem pinned, or auto",
                    path ? path : "the graph", size_str(b1, bytes), device, size_str(b2, free_b),
                    size_str(b3, margin));
}

#if SG_HAVE_CUDA
#define CTX(run) ((sgk_ctx *)(run)->gpu)
#define DGRAPH(run) ((sgk_graph *)(run)->dgraph)
#endif

void sg_run_device_report(const sg_run *r, sg_device_report *out)
{
    memset(out, 0, sizeof *out);
    if (!r) return;
    snprintf(out->fallback, sizeof out->fallback, "%s", r->fallback);
    out->upload_bytes = r->upload_bytes;
    out->upload_seconds = r->upload_seconds;
#if SG_HAVE_CUDA
    if (!r->gpu) return;
    sgk_mem_stats m;
    sgk_ctx_mem(CTX(r), &m);
    out->used = true;
    out->index = sgk_ctx_device_index(CTX(r));
    snprintf(out->name, sizeof out->name, "%s", sgk_ctx_device_name(CTX(r)));
    snprintf(out->module_loading, sizeof out->module_loading, "%s", sgk_module_loading());
    out->budget = m.budget;
    out->peak_bytes = m.peak;
    out->in_use = m.in_use;
#endif
}

#if !SG_HAVE_CUDA

bool sgi_gpu_pick(sg_run *run, const sg_graph *g, sgi_algo algo, bool parents)
{
    (void)g;
    (void)algo;
    (void)parents;
    run->backend = SG_BACKEND_CPU;
    return false;
}

static sg_status no_cuda(sg_error *err)
{
    return sgi_fail(err, SG_E_UNSUPPORTED, "this build has no GPU path (built without CUDA)");
}
sg_status sgi_gpu_mst(sg_run *run, const sg_graph *g, sg_forest **out, sg_error *err)
{
    (void)run, (void)g, (void)out;
    return no_cuda(err);
}
sg_status sgi_gpu_sssp(sg_run *run, const sg_graph *g, const sg_sssp_options *opt,
                       sg_sssp_result *r, sg_error *err)
{
    (void)run, (void)g, (void)opt, (void)r;
    return no_cuda(err);
}
sg_status sgi_gpu_bfs(sg_run *run, const sg_graph *g, const sg_bfs_options *opt,
                      sg_bfs_result *r, sg_error *err)
{
    (void)run, (void)g, (void)opt, (void)r;
    return no_cuda(err);
}
sg_status sgi_gpu_load(sg_run *run, sg_store *s, sg_graph *g, const sg_read_options *ro,
                       bool *done, sg_error *err)
{
    (void)run, (void)s, (void)g, (void)ro, (void)err;
    *done = false;
    return SG_OK;
}
void sgi_gpu_release(sg_run *run) { (void)run; }
bool sgi_gpu_forest_hybrid(sg_run *run, uint64_t n, uint64_t m)
{
    (void)run, (void)n, (void)m;
    return false;
}
sg_mem_kind sgi_gpu_host_kind(sg_run *run, uint64_t bytes)
{
    (void)run;
    (void)bytes;
    return SG_MEM_PLAIN;
}
sg_status sgi_gpu_managed_room(sg_run *run, uint64_t bytes, const char *path, sg_error *err)
{
    (void)run, (void)bytes, (void)path, (void)err;
    return SG_OK;
}

#else /* SG_HAVE_CUDA */

static double gib(uint64_t b) { return (double)b / (double)(1ull << 30); }

/* Frees the run's packed tail (the device copy that read it is gone). */
static void packed_drop(sg_run *run)
{
    if (!run->e48) return;
    sgk_host_unregister((uint8_t *)run->e48 + run->e48_pin_off); /* (kept only pinned) */
    sgi_free(run->e48);
    run->e48 = NULL;
}

void sgi_gpu_release(sg_run *run)
{
    sgk_graph_free(DGRAPH(run));
    run->dgraph = NULL;
    run->dgraph_uid = 0;
    packed_drop(run);
    sgk_ctx_free(CTX(run));
    run->gpu = NULL;
}

/* The run's device context, made on first use with the run's budget. */
static sg_status ctx_get(sg_run *run, sgk_ctx **out, sg_error *err)
{
    if (!run->gpu) {
        sgk_ctx *c = NULL;
        const sg_status st = sgk_ctx_create(run->device, run->device_mem, &c, err);
        if (st != SG_OK) return st;
        sgk_ctx_set_threads(c, run->threads);
        run->gpu = c;
    }
    *out = CTX(run);
    return SG_OK;
}

/* Device bytes of g's arrays (W only when asked and loaded). */
static uint64_t graph_bytes(const sg_graph *g, bool weights)
{
    return (g->n + 1) * 8 + g->m * 4 + (weights && sgi_graph_has_w(g) ? g->m * 4 : 0);
}

static bool dgraph_matches(const sg_run *run, const sg_graph *g, bool weights)
{
    return run->dgraph && !run->dgraph_split && run->dgraph_uid == g->uid &&
           (!weights || run->dgraph_weights);
}

static void dgraph_drop(sg_run *run)
{
    sgk_graph_free(DGRAPH(run));
    packed_drop(run);
    run->dgraph = NULL;
    run->dgraph_uid = 0;
    run->dgraph_split = false;
}

static const char *algo_name(sgi_algo a)
{
    switch (a) {
    case SGI_ALGO_MST: return "forest";
    case SGI_ALGO_SSSP_DELTA: return "shortest-path";
    case SGI_ALGO_SSSP_BF: return "Bellman-Ford";
    case SGI_ALGO_BFS: return "BFS";
    }
    return "algorithm";
}

static bool algo_weights(sgi_algo a) { return a != SGI_ALGO_BFS; }

static uint64_t algo_bytes(sgi_algo a, const sg_graph *g, bool parents)
{
    switch (a) {
    case SGI_ALGO_MST: return sgk_mst_bytes(g->n, g->m);
    case SGI_ALGO_SSSP_DELTA: return sgk_sssp_bytes(g->n, g->m, SGK_SSSP_BUCKETS);
    case SGI_ALGO_SSSP_BF: return sgk_sssp_bytes(g->n, g->m, SGK_SSSP_BELLMAN_FORD);
    case SGI_ALGO_BFS: return sgk_bfs_bytes(g->n, g->m, parents);
    }
    return 0;
}

/* Device bytes of the run's device copy of a graph (whole or split), with
 * what an executor keeps beside it between calls (SSSP's light index, BFS's
 * working arrays: freed with it, or before another algorithm runs). */
static uint64_t held_graph(const sg_run *run)
{
    if (!run->dgraph) return 0;
    const sgk_graph_desc *d = sgk_graph_get_desc(DGRAPH(run));
    return d->x_dev * 8 + d->a_dev * 4 + d->w_dev * (d->w24 ? 3 : 4) +
           sgk_graph_kept_bytes(DGRAPH(run));
}

/* The algorithms with a hybrid executor. */
static bool hybrid_algo(sgi_algo a) { return a != SGI_ALGO_SSSP_BF; }

/* Whether the in-place forest reads the heads of g's lists: in weight
 * order, on a graph with hubs (kernels/mst.cu and the planner's rule). */
static bool forest_heads(const sg_graph *g)
{
    return g->weight_order && g->w && !sgi_hub_free(g->n, g->m, g->max_degree);
}

/* Device bytes of the hybrid executor's own arrays (the forest's in-place
 * executor keeps no sorted copy of the lists). */
static uint64_t hybrid_bytes(sgi_algo a, const sg_graph *g, bool parents)
{
    return a == SGI_ALGO_MST ? sgk_mst_inplace_bytes(g->n, forest_heads(g))
                             : algo_bytes(a, g, parents);
}

/* Whether auto runs the forest of a graph that fits on the in-place
 * executor with every list on the device (the hybrid backend) rather than
 * the in-core GPU forest: it needs no sort of the lists, which is most of
 * the GPU forest's time on R-MAT, and half its device memory. On an H200
 * host (docs/benchmarks.md, fiftieth session), compute and sort: R-MAT 26
 * 0.163-0.171 s against 0.60-0.61, SSCA2 26 0.267-0.274 against
 * 0.342-0.344, R-MAT 22 0.016 against 0.059-0.065, SSCA2 22 0.019-0.021
 * against 0.023-0.028. Not over lists in weight order: there the GPU forest
 * sorts nothing. SPILLGRAPH_GPU_DISABLE=auto-inplace: the GPU forest. */
static bool auto_inplace(bool weight_order)
{
    return !weight_order && !sgi_switch_off("auto-inplace");
}

bool sgi_gpu_pick(sg_run *run, const sg_graph *g, sgi_algo algo, bool parents)
{
    run->fallback[0] = '\0';
    run->has_plan = false;
    if (run->requested == SG_BACKEND_GPU || run->requested == SG_BACKEND_HYBRID) {
        run->backend = run->requested;
        return true;
    }
    if (run->requested != SG_BACKEND_AUTO || sg_gpu_count() <= run->device) {
        run->backend = SG_BACKEND_CPU;
        return false;
    }
    sg_error e = {0};
    sgk_ctx *c = NULL;
    if (ctx_get(run, &c, &e) != SG_OK) {
        snprintf(run->fallback, sizeof run->fallback, "no device context: %.120s", e.msg);
        run->backend = SG_BACKEND_CPU;
        return false;
    }
    sgk_mem_stats m;
    sgk_ctx_mem(c, &m);
    /* What an earlier call kept with the graph (SSSP's light index, BFS's
     * arrays) is counted as free: the call that reuses it allocated the rest
     * beside it before (they fit), any other call frees it first. */
    const uint64_t kept = run->dgraph ? sgk_graph_kept_bytes(DGRAPH(run)) : 0;
    const uint64_t graph_held = held_graph(run) - kept; /* the copy itself */
    m.in_use -= kept;
    const bool w = algo_weights(algo);
    uint64_t held = m.in_use, need = algo_bytes(algo, g, parents);
    if (!dgraph_matches(run, g, w)) need += graph_bytes(g, w);
    /* The copy of another graph (or one without W) would be freed first. */
    if (run->dgraph && !dgraph_matches(run, g, w)) held = held > graph_held ? held - graph_held : 0;
    /* Too big: the hybrid backend when its working arrays fit (it drops
     * any device copy of a graph first). */
    const uint64_t own = m.in_use - graph_held;
    if (held + need > m.budget && hybrid_algo(algo) &&
        own + hybrid_bytes(algo, g, parents) <= m.budget) {
        run->backend = SG_BACKEND_HYBRID;
        return true;
    }
    if (held + need > m.budget) {
        snprintf(run->fallback, sizeof run->fallback,
                 "the graph and the %s arrays need %.2f GiB of device memory, the budget has "
                 "%.2f GiB free%s",
                 algo_name(algo), gib(need), gib(m.budget > held ? m.budget - held : 0),
                 hybrid_algo(algo) ? " (not even the hybrid working arrays fit)" : "");
        run->backend = SG_BACKEND_CPU;
        return false;
    }
    /* It fits: the forest in place where its arrays fit beside the graph */
    const uint64_t copy = dgraph_matches(run, g, true) ? 0 : graph_bytes(g, true);
    if (algo == SGI_ALGO_MST && g->n > 0 && auto_inplace(g->weight_order) &&
        held + copy + hybrid_bytes(algo, g, false) <= m.budget) {
        run->backend = SG_BACKEND_HYBRID;
        return true;
    }
    run->backend = SG_BACKEND_GPU;
    return true;
}

bool sgi_gpu_forest_hybrid(sg_run *run, uint64_t n, uint64_t m)
{
    if (run->requested == SG_BACKEND_HYBRID) return true;
    if (run->requested != SG_BACKEND_AUTO || run->backend != SG_BACKEND_GPU) return false;
    sgk_ctx *c = NULL;
    sg_error e = {0};
    if (ctx_get(run, &c, &e) != SG_OK) return false;
    sgk_mem_stats ms;
    sgk_ctx_mem(c, &ms);
    /* (as sgi_gpu_pick: a device copy of another graph is freed first) */
    const uint64_t held = held_graph(run), own = ms.in_use > held ? ms.in_use - held : 0;
    const uint64_t graph = (n + 1) * 8 + m * 8, inplace = sgk_mst_inplace_bytes(n, false);
    const uint64_t whole = sgk_mst_bytes(n, m) + graph;
    if (own + whole <= ms.budget)
        return n > 0 && auto_inplace(false) && own + graph + inplace <= ms.budget;
    return own + inplace <= ms.budget;
}

/* Makes the run's device copy of g (with W when asked), uploading the host
 * arrays through the staging buffers; the copy time goes to "load". */
static sg_status dgraph_ensure(sg_run *run, sgk_ctx *c, const sg_graph *g, bool weights,
                               sg_error *err)
{
    if (dgraph_matches(run, g, weights)) return SG_OK;
    dgraph_drop(run);
    const double t0 = sgi_now();
    sgk_graph_desc d = {.n = g->n, .m = g->m, .max_degree = g->max_degree,
                        .directed = g->directed, .f32 = g->wt == SG_WEIGHT_F32,
                        .weight_order = g->weight_order,
                        .has_weights = weights && g->w};
    sgk_graph *dg = NULL;
    sg_status st = sgk_graph_create(c, &d, &dg, err);
    if (st != SG_OK) return st;
    void *dx, *da, *dw;
    sgk_graph_device_arrays(dg, &dx, &da, &dw);
    uint64_t bytes = 0;
    double secs = 0;
    st = sgk_upload(c, dx, g->x, (g->n + 1) * 8, err);
    if (st == SG_OK) st = sgk_upload(c, da, g->a, g->m * 4, err);
    if (st == SG_OK && d.has_weights) st = sgk_upload(c, dw, g->w, g->m * 4, err);
    if (st == SG_OK) st = sgk_stage_finish(c, &bytes, &secs, NULL, err);
    if (st != SG_OK) {
        sgk_graph_free(dg);
        return st;
    }
    run->dgraph = dg;
    run->dgraph_uid = g->uid;
    run->dgraph_weights = d.has_weights;
    run->upload_bytes += bytes;
    run->upload_seconds += secs;
    run->seconds[SG_PHASE_LOAD] += sgi_now() - t0;
    return SG_OK;
}

/* ------------------------------------------------------------ the hybrid placement */

sg_mem_kind sgi_gpu_host_kind(sg_run *run, uint64_t bytes)
{
    if (run->backend != SG_BACKEND_GPU && run->backend != SG_BACKEND_HYBRID) return SG_MEM_PLAIN;
    sgk_ctx *c = NULL;
    sg_error e = {0};
    if (ctx_get(run, &c, &e) != SG_OK) return SG_MEM_PLAIN; /* reported by the algorithm */
    sgk_mem_stats m;
    sgk_ctx_mem(c, &m);
    if (run->requested != SG_BACKEND_HYBRID && bytes <= m.budget - m.in_use) return SG_MEM_PLAIN;
    sgk_device_info di;
    if (sgk_device_query(run->device, &di, &e) != SG_OK) return SG_MEM_PINNED;
    const uint64_t reserved = (m.budget - m.in_use) + sgk_default_margin(di.total_bytes);
    const uint64_t cap = di.free_bytes > reserved ? di.free_bytes - reserved : 0;
    return bytes <= cap ? SG_MEM_MANAGED : SG_MEM_PINNED;
}

sg_status sgi_gpu_managed_room(sg_run *run, uint64_t bytes, const char *path, sg_error *err)
{
    sgk_device_info di;
    sg_error qe = {0};
    /* no device to ask: the allocation fails itself, naming the array */
    if (sgk_device_query(run->device, &di, &qe) != SG_OK) return SG_OK;
    return sg_managed_fits(bytes, di.free_bytes, di.total_bytes, run->device, path, err);
}

/* Plan breakpoints: about 1024 vertex boundaries spread evenly, plus the
 * forced splits. pt_v/pt_e have room for 1024 + 3 + 1 entries. */
enum { HYB_POINTS = 1024 };
static unsigned hybrid_points(const sg_run *run, const sg_graph *g, uint64_t *pt_v, uint64_t *pt_e)
{
    const uint64_t n = g->n;
    unsigned k = 0;
    for (unsigned i = 0; i < HYB_POINTS; i++) pt_v[k++] = (uint64_t)((double)n * i / (HYB_POINTS - 1));
    if (run->force_split)
        for (int j = 0; j < 3; j++) pt_v[k++] = run->split[j] < n ? run->split[j] : n;
    /* sort (insertion: a few points out of place) and drop repeats */
    for (unsigned i = 1; i < k; i++)
        for (unsigned j = i; j > 0 && pt_v[j - 1] > pt_v[j]; j--) {
            const uint64_t t = pt_v[j];
            pt_v[j] = pt_v[j - 1];
            pt_v[j - 1] = t;
        }
    unsigned u = 0;
    for (unsigned i = 0; i < k; i++)
        if (u == 0 || pt_v[i] != pt_v[u - 1]) pt_v[u++] = pt_v[i];
    for (unsigned i = 0; i < u; i++) pt_e[i] = g->x[pt_v[i]];
    return u;
}

/* The machine's rates: the calibration cache when there is one, else the
 * defaults (a bad cache file is ignored here; spillgraph plan reports it). */
static void hybrid_rates(sg_rates *r)
{
    sg_rates_default(r);
    char path[4096];
    sg_error e = {0};
    if (sg_rates_cache_path(path, sizeof path, &e) == SG_OK && access(path, R_OK) == 0) {
        sg_rates t;
        sg_rates_default(&t);
        if (sg_rates_load(path, &t, &e) == SG_OK) *r = t;
    }
}

/* The plan the run's device copy follows, its splits as counters; the time
 * since t0 goes to "load". */
static void keep_plan(sg_run *run, const sg_plan *p, double t0)
{
    run->plan = *p;
    run->has_plan = true;
    static const char *const names[3] = {"split_x", "split_a", "split_w"};
    for (int k = 0; k < 3; k++) sg_run_set(run, names[k], p->split[k]);
    run->seconds[SG_PHASE_LOAD] += sgi_now() - t0;
}

/* Builds the run's split device copy of g for `algo` from the planner's
 * placement (or the forced splits): g's arrays become readable by the GPU
 * in place, the prefixes the plan keeps are copied to the device, the plan
 * is kept in the run. A whole copy of g already there is kept instead when
 * the plan puts everything on the device. The copy time goes to "load". */
static sg_status hybrid_ensure(sg_run *run, sgk_ctx *c, sg_graph *g, sgi_algo algo, bool parents,
                               sg_error *err)
{
    const bool weights = algo_weights(algo) && sgi_graph_has_w(g);
    const bool w24 = weights && g->w16; /* (only the forest takes such a graph) */
    const double t0 = sgi_now();
    sg_status st = SG_OK;
    sgk_graph *dg = NULL;
    /* A whole copy of g already on the device (loaded before the algorithm
     * was known not to fit in core) is planned as freed, and kept when the
     * plan puts every array on the device anyway: no second upload and no
     * pinning of the host arrays. */
    const bool whole = dgraph_matches(run, g, weights) && run->dgraph_weights == weights;
    /* A split copy of g from an earlier call (another search, or another
     * algorithm with the same arrays) is planned as freed too, and kept
     * when the plan puts the same prefixes on the device: no second upload. */
    const bool split = run->dgraph && run->dgraph_split && run->dgraph_uid == g->uid &&
                       run->dgraph_weights == weights;
    const uint64_t held = whole || split ? held_graph(run) : 0;
    if (!whole && !split) dgraph_drop(run);
    sgk_mem_stats m;
    sgk_ctx_mem(c, &m);
    uint64_t pt_v[HYB_POINTS + 4], pt_e[HYB_POINTS + 4];
    sg_plan_input in;
    memset(&in, 0, sizeof in);
    in.algo = algo == SGI_ALGO_BFS ? SG_PLAN_BFS : algo == SGI_ALGO_MST ? SG_PLAN_MST : SG_PLAN_SSSP;
    /* the in-place forest reads lists whole, or their heads when they are in
     * weight order on a graph with hubs (the planner applies that rule) */
    in.lists_unsorted = algo == SGI_ALGO_MST;
    in.lists_weight_order = algo == SGI_ALGO_MST && g->weight_order && g->w;
    in.n = g->n;
    in.m = g->m;
    in.weight_bytes = w24 ? 3 : 4;
    in.n_pts = hybrid_points(run, g, pt_v, pt_e);
    in.pt_v = pt_v;
    in.pt_e = pt_e;
    in.device_budget = m.budget - (m.in_use > held ? m.in_use - held : 0);
    /* The kernels' own arrays, and what the executors keep beside them
     * (SSSP's light index, the forest's contracted list: src/plan.c) */
    in.work_bytes = hybrid_bytes(algo, g, parents);
    in.executor_reserves = true;
    in.max_degree = g->max_degree;
    in.degree_order = g->degree_descents ? SG_PLAN_DEGREES_OTHER : SG_PLAN_DEGREES_ASCENDING;
    in.directed = g->directed;
    in.managed_cap = g->mem == SG_MEM_MANAGED ? UINT64_MAX / 4 : 0;
    /* the forest contracts speculatively into arrays pinned in the load
     * (kernels/mst.cu; the prepared forest, 2 MiB or more an array) */
    in.forest_spec = algo == SGI_ALGO_MST && run->prep_forest && g->n > ((size_t)1 << 19) &&
                     !sgi_switch_off("spec-contract") && !sgi_switch_off("prepare-pin");
    /* and its weights deferred to the host threads, unless switched off or
     * the gather-cpu experiment takes their place */
    in.forest_defer = in.forest_spec && !sgi_switch_off("defer-weights") &&
                      !sgi_switch_on("gather-cpu");
    /* The forest's first round has a CPU share (the owner split); SSSP's
     * rounds and BFS have none: the GPU reads the whole host range (a CPU
     * share of SSSP's settle passes was built and lost, docs/plan.md). */
    in.gpu_reads_all = algo != SGI_ALGO_MST;
    in.forced = run->force_split;
    for (int k = 0; k < 3; k++) in.forced_split[k] = run->split[k] < g->n ? run->split[k] : g->n;
    /* an earlier search's levels or rounds (the caller's memo) */
    in.steps = algo == SGI_ALGO_BFS   ? run->plan_steps[0]
               : algo == SGI_ALGO_MST ? 0
                                      : run->plan_steps[1];
    hybrid_rates(&in.rates);
    sg_plan p;
    SG_TRY(sg_plan_make(&in, &p, err));
    if (whole && p.split[0] == g->n && p.split[1] == g->n && (!weights || p.split[2] == g->n)) {
        keep_plan(run, &p, t0);
        return SG_OK;
    }
    sgk_graph_desc d = {.n = g->n, .m = g->m, .max_degree = g->max_degree,
                        .directed = g->directed, .f32 = g->wt == SG_WEIGHT_F32,
                        .weight_order = g->weight_order,
                        .has_weights = weights, .split = true, .w24 = w24};
    d.x_dev = p.split[0] ? p.split[0] + 1 : 0;
    d.a_dev = g->x[p.split[1]];
    d.w_dev = weights ? g->x[p.split[2]] : 0;
    if (split) {
        const sgk_graph_desc *o = sgk_graph_get_desc(DGRAPH(run));
        if (o->x_dev == d.x_dev && o->a_dev == d.a_dev && o->w_dev == d.w_dev) {
            keep_plan(run, &p, t0);
            return SG_OK;
        }
    }
    dgraph_drop(run);
    SG_TRY(sgi_graph_device_readable(g, err));

    SG_TRY(sgk_graph_create(c, &d, &dg, err));
    void *dx, *da, *dw;
    sgk_graph_device_arrays(dg, &dx, &da, &dw);
    uint64_t bytes = 0;
    double secs = 0;
    SG_TRY(sgk_graph_set_host(dg, g->x, g->a, weights && !w24 ? g->w : NULL, err));
    SG_TRY(sgk_upload(c, dx, g->x, d.x_dev * 8, err));
    SG_TRY(sgk_upload(c, da, g->a, d.a_dev * 4, err));
    if (weights && !w24) SG_TRY(sgk_upload(c, dw, g->w, d.w_dev * 4, err));
    if (w24) {
        uint16_t *dw16 = NULL;
        uint8_t *dw8 = NULL;
        sgk_graph_device_w24(dg, &dw16, &dw8);
        SG_TRY(sgk_graph_set_host_w24(dg, g->w16, g->w8, err));
        SG_TRY(sgk_upload(c, dw16, g->w16, d.w_dev * 2, err));
        SG_TRY(sgk_upload(c, dw8, g->w8, d.w_dev, err));
    }
    SG_TRY(sgk_stage_finish(c, &bytes, &secs, NULL, err));
    run->dgraph = dg;
    run->dgraph_uid = g->uid;
    run->dgraph_weights = weights;
    run->dgraph_split = true;
    run->upload_bytes += bytes;
    run->upload_seconds += secs;
    keep_plan(run, &p, t0);
    return SG_OK;
fail:
    sgk_graph_free(dg);
    return st;
}

/* The device copy an algorithm call runs on: the whole graph (gpu) or the
 * planned split (hybrid). */
static sg_status dgraph_for(sg_run *run, sgk_ctx *c, const sg_graph *g, sgi_algo algo,
                            bool parents, sg_error *err)
{
    /* What an executor kept with the graph (SSSP's light index, BFS's
     * working arrays) serves only its own next call: the kernels free what
     * another kept before they allocate, and the others here. */
    if (run->dgraph && algo != SGI_ALGO_SSSP_DELTA && algo != SGI_ALGO_BFS)
        sgk_graph_drop_kept(DGRAPH(run));
    /* (a graph of no vertices has nothing to place: the planner refuses it,
     * and its whole copy is empty) */
    if (run->backend == SG_BACKEND_HYBRID && g->n > 0)
        return hybrid_ensure(run, c, (sg_graph *)g, algo, parents, err);
    return dgraph_ensure(run, c, g, algo_weights(algo), err);
}

/* Copies the kernels' counters into the run and splits the time: the
 * kernels' preprocessing goes to "preprocess", the rest of the call to
 * "compute". Counters break "compute" down: "kernel_us" is the kernels'
 * own solve (synchronised device work), "device_call_us" the whole sgk_*
 * call (with device allocations and the copy of the result to the host),
 * "host_us" the host's part (result allocation and finishing). */
static void account(sg_run *run, const sgk_stats *s, double wall, double call)
{
    run->hybrid_seconds = call;
    for (unsigned i = 0; i < s->n; i++) sg_run_set(run, s->name[i], s->value[i]);
    sg_run_set(run, "kernel_us", (uint64_t)llround(s->seconds_compute * 1e6));
    sg_run_set(run, "device_call_us", (uint64_t)llround(call * 1e6));
    sg_run_set(run, "host_us", (uint64_t)llround((wall - call) * 1e6));
    run->seconds[SG_PHASE_PREPROCESS] += s->seconds_preprocess;
    const double rest = wall - s->seconds_preprocess;
    run->seconds[SG_PHASE_COMPUTE] += rest > 0 ? rest : 0;
}

/* The CPU threads' share of a hybrid pass over the host lists: the lowest
 * vertex whose lists lie wholly past the device prefixes (where the moving
 * split may go) and the fixed split: for the forest's first round the
 * plan's owner split (gpu_host_end) moved up to it, for SSSP's light index
 * (which the plan does not split) that vertex itself; false when that
 * leaves the CPU nothing. */
static bool cpu_share(const sg_run *run, const sg_graph *g, bool planned, sgk_cpu_share *out)
{
    if (!run->has_plan || !run->dgraph || !sgi_graph_has_w(g) || g->n == 0) return false;
    const sgk_graph_desc *d = sgk_graph_get_desc(run->dgraph);
    const uint64_t dev = d->a_dev > d->w_dev ? d->a_dev : d->w_dev;
    const uint64_t lo = sgi_first_list_from(g->x, g->n, dev); /* its list starts at or past dev */
    const uint64_t from = planned && run->plan.gpu_host_end > lo ? run->plan.gpu_host_end : lo;
    if (from >= g->n) return false;
    *out = (sgk_cpu_share){
        .from = from, .low = lo, .x = g->x, .a = g->a, .w = g->w, .w16 = g->w16, .w8 = g->w8,
        .threads = run->threads, .records48 = sgi_switch_on("slots48-records"),
        .stream = sgi_switch_on("slots-stream")};
    return true;
}

/* The forest's packed tail (sgk_graph_set_packed; docs/plan.md, "The
 * packed tail"), an experiment turned on by SPILLGRAPH_GPU_ENABLE=
 * packed-tail: the host entries of g past both the split copy's device
 * prefixes of A and W again as 48-bit entries (w << idbits | nb), 6 bytes
 * each where A and W take 8, packed by the run's threads into plain memory
 * (2 MiB pages; the part below the split is never touched) and pinned, so
 * that the first round's GPU pieces move a quarter fewer bytes over the
 * link; its CPU threads read it too with "packed-cpu" enabled as well. A
 * and W stay as they are (the CPU threads by default, the later rounds'
 * refills, the other algorithms and --verify read them). Kept with the
 * split copy, freed with it. Its time is the load's. Off by default: on
 * the H100 host (docs/benchmarks.md, forty-fourth session) the GPU's
 * pieces ran ~30 % more entries a second and SSCA2 24's first round ~10 %
 * shorter, but the build took 0.2-0.3 s of the load there, many times
 * what it saves, until the loader writes the tail as it decodes.
 * Counters packed_tail_bytes, packed_tail_build_us (0 when an earlier
 * call's was kept) and packed_tail_refused: 0 built or kept, 1 not enabled
 * (or disabled), 2 f32 weights or none, 3 an id and a weight do not fit 48
 * bits, 4 the host lacks the memory (twice its bytes), 5 it could not be
 * allocated or pinned. Refused, the forest reads A and W. */
static sg_status packed_ensure(sg_run *run, const sg_graph *g, sg_error *err)
{
    sgk_graph *dg = DGRAPH(run);
    const sgk_graph_desc *d = sgk_graph_get_desc(dg);
    /* (where both A and W are on the host: where only W is, the GPU's
     * pieces read 4 bytes an entry) */
    const uint64_t from = d->a_dev > d->w_dev ? d->a_dev : d->w_dev, m = g->m;
    sg_run_set(run, "packed_tail_build_us", 0);
    if (run->e48) return SG_OK;
    sg_run_set(run, "packed_tail_bytes", 0);
    int refused = 0;
    const int bits = sgk_e48_bits(g->n, 0);
    if (!sgi_switch_on("packed-tail"))
        refused = 1;
    else if (!g->w || g->wt == SG_WEIGHT_F32)
        refused = 2;
    else if (bits < 0)
        refused = 3;
    sg_run_set(run, "packed_tail_refused", (uint64_t)refused);
    if (refused || !d->split || from >= m) return SG_OK;
    const double t0 = sgi_now();
    const uint64_t bytes = 6 * (m - from);
    if (sgi_available_memory() < 2 * bytes) {
        sg_run_set(run, "packed_tail_refused", 4);
        return SG_OK;
    }
    /* whole pages (2 MiB from 2 MiB up), so that pinning shares none */
    const size_t len = ((size_t)(6 * m + 16) + 4095) & ~(size_t)4095;
    uint8_t *e = len >= ((size_t)2 << 20) ? sgi_huge_alloc(len) : sgi_aligned_alloc(4096, len);
    if (!e) {
        sg_run_set(run, "packed_tail_refused", 5);
        return SG_OK;
    }
    const uint32_t mx = sgk_e48_pack_range(g->a, g->w, from, m, bits, run->threads, e);
    memset(e + 6 * m, 0, 16); /* the vector loads' 2 bytes past the last entry */
    if ((uint64_t)mx >> (48 - bits)) {
        sgi_free(e);
        sg_run_set(run, "packed_tail_refused", 3);
        return SG_OK;
    }
    const size_t lo = (size_t)(6 * from) & ~(size_t)4095;
    sg_error pe = {0};
    if (sgk_host_pin(run->device, e + lo, len - lo, &pe) != SG_OK) {
        sgi_free(e);
        sg_run_set(run, "packed_tail_refused", 5);
        return SG_OK;
    }
    run->e48 = e;
    run->e48_pin_off = lo;
    const bool cpu = sgi_switch_on("packed-cpu");
    const sg_status st = sgk_graph_set_packed(dg, e, from, bits, cpu, err);
    if (st != SG_OK) {
        packed_drop(run);
        return st;
    }
    const double secs = sgi_now() - t0;
    run->seconds[SG_PHASE_LOAD] += secs;
    sg_run_set(run, "packed_tail_bytes", bytes);
    sg_run_set(run, "packed_tail_build_us", (uint64_t)llround(secs * 1e6));
    return SG_OK;
}

sg_status sgi_gpu_mst(sg_run *run, const sg_graph *g, sg_forest **out, sg_error *err)
{
    sgk_ctx *c = NULL;
    sg_forest *f = NULL;
    uint32_t *trees = NULL;
    sg_status st = SG_OK;
    SG_TRY(ctx_get(run, &c, err));
    const bool hybrid = run->backend == SG_BACKEND_HYBRID;
    SG_TRY(dgraph_for(run, c, g, SGI_ALGO_MST, false, err));
    if (hybrid && g->n > 0 && run->dgraph) SG_TRY(packed_ensure(run, g, err));
    const double t0 = sgi_now();
    sgi_run_progress(run, "compute", 0.0);
    trees = sgi_take_prepared_trees(run, g);
    f = sgi_take_prepared_forest(run, g);
    if (!f) SG_ALLOC(f, sgi_forest_alloc(g->n, g->n ? g->n - 1 : 0, g->wt), err, "the forest");
    sgk_stats stats;
    memset(&stats, 0, sizeof stats);
    uint64_t ne = 0;
    sgk_cpu_share share;
    const bool shared = hybrid && cpu_share(run, g, true, &share);
    if (shared) share.trees = trees; /* (the speculative gather's host pieces) */
    const double t1 = sgi_now();
    if (g->n > 0 && hybrid)
        SG_TRY(sgk_mst_inplace(c, DGRAPH(run), shared ? &share : NULL, f->u, f->v, f->w, &ne,
                               &stats, err));
    else if (g->n > 0)
        SG_TRY(sgk_mst(c, DGRAPH(run), f->u, f->v, f->w, &ne, &stats, err));
    const double t2 = sgi_now();
    f->n_edges = ne;
    bool sorted = false;
    for (unsigned i = 0; i < stats.n; i++)
        if (strcmp(stats.name[i], "forest_sorted") == 0) sorted = stats.value[i] == 1;
    if (sorted)
        sgi_forest_totals(f, run->threads);
    else
        SG_TRY(sgi_forest_finish(f, run->threads, err));
    account(run, &stats, sgi_now() - t0, t2 - t1);
    sgi_run_progress(run, "compute", 1.0);
    sgi_trees_free(trees);
    *out = f;
    return SG_OK;
fail:
    sgi_trees_free(trees);
    sg_forest_free(f);
    return st;
}

sg_status sgi_gpu_sssp(sg_run *run, const sg_graph *g, const sg_sssp_options *opt,
                       sg_sssp_result *r, sg_error *err)
{
    sgk_ctx *c = NULL;
    sg_status st = SG_OK;
    SG_TRY(ctx_get(run, &c, err));
    SG_TRY(dgraph_for(run, c, g,
                      opt->method == SG_SSSP_BELLMAN_FORD ? SGI_ALGO_SSSP_BF : SGI_ALGO_SSSP_DELTA,
                      opt->want_parents, err));
    const double t0 = sgi_now();
    sgi_run_progress(run, "compute", 0.0);
    const bool f32 = g->wt == SG_WEIGHT_F32;
    uint64_t *dist = f32 ? (uint64_t *)(void *)r->dist_f : r->dist;
    const sgk_sssp_method m =
        opt->method == SG_SSSP_BELLMAN_FORD ? SGK_SSSP_BELLMAN_FORD : SGK_SSSP_BUCKETS;
    sgk_stats stats;
    memset(&stats, 0, sizeof stats);
    const double t1 = sgi_now();
    uint64_t reached = 0, maxd = 0; /* the summary, computed on the device */
    sgk_cpu_share share;
    const bool shared = run->backend == SG_BACKEND_HYBRID && cpu_share(run, g, false, &share);
    SG_TRY(sgk_sssp(c, DGRAPH(run), opt->source, m, opt->delta, shared ? &share : NULL, dist,
                    &reached, &maxd, &stats, err));
    const double t2 = sgi_now();
    if (r->parent) SG_TRY(sgi_sssp_parents(run, g, dist, opt->source, r->parent, err));
    r->reached = reached;
    r->max_dist = f32 ? sgi_bits_dbl(maxd) : (double)maxd;
    r->delta = stats.delta; /* 0 for Bellman-Ford (no buckets) */
    /* A light index kept from the last search was not built: the plan of
     * this call has no index term, so that predicted and measured compare
     * the same work. */
    for (unsigned i = 0; i < stats.n && run->has_plan; i++)
        if (strcmp(stats.name[i], "index_reused") == 0 && stats.value[i]) {
            run->plan.predicted_s -= run->plan.t_index;
            run->plan.t_index = 0;
        }
    account(run, &stats, sgi_now() - t0, t2 - t1);
    sgi_run_progress(run, "compute", 1.0);
fail:
    return st;
}

sg_status sgi_gpu_bfs(sg_run *run, const sg_graph *g, const sg_bfs_options *opt,
                      sg_bfs_result *r, sg_error *err)
{
    sgk_ctx *c = NULL;
    sg_status st = SG_OK;
    SG_TRY(ctx_get(run, &c, err));
    SG_TRY(dgraph_for(run, c, g, SGI_ALGO_BFS, opt->want_parents, err));
    const double t0 = sgi_now();
    sgi_run_progress(run, "compute", 0.0);
    sgk_stats stats;
    memset(&stats, 0, sizeof stats);
    const double t1 = sgi_now();
    SG_TRY(sgk_bfs(c, DGRAPH(run), opt->source, opt->alpha, opt->beta, r->level, r->parent,
                   &r->reached, &r->max_level, &stats, err));
    const double t2 = sgi_now();
    account(run, &stats, sgi_now() - t0, t2 - t1);
    sgi_run_progress(run, "compute", 1.0);
fail:
    return st;
}

/* ------------------------------------------------------------ loading onto the device */

/* The last vertex v1 in (v0, n] with x[v1] - x[v0] <= cap edges; v0 + 1 when
 * even one list is longer. */
static uint64_t range_end(const uint64_t *x, uint64_t n, uint64_t v0, uint64_t cap)
{
    uint64_t lo = v0 + 1, hi = n;
    if (x[lo] - x[v0] > cap) return lo;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo + 1) / 2;
        if (x[mid] - x[v0] <= cap)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Parallel memcpy (the staging buffer into the host arrays). */
static void pcopy(void *dst, const void *src, size_t bytes, int threads)
{
    const size_t piece = (size_t)1 << 20;
    const size_t k = (bytes + piece - 1) / piece;
#pragma omp parallel for schedule(static) num_threads(threads) if (k > 1)
    for (size_t i = 0; i < k; i++) {
        const size_t off = i * piece, len = bytes - off < piece ? bytes - off : piece;
        memcpy((char *)dst + off, (const char *)src + off, len);
    }
}

sg_status sgi_gpu_load(sg_run *run, sg_store *s, sg_graph *g, const sg_read_options *ro,
                       bool *done, sg_error *err)
{
    *done = false;
    /* (nor a graph with 24-bit weights: it is for the hybrid forest) */
    if (run->backend != SG_BACKEND_GPU || g->n == 0 || g->w16) return SG_OK;
    sgk_ctx *c = NULL;
    sg_error e = {0};
    if (ctx_get(run, &c, &e) != SG_OK) {
        if (run->requested == SG_BACKEND_GPU) {
            if (err) *err = e;
            return e.code ? e.code : SG_E_DEVICE;
        }
        return SG_OK; /* auto: load on the host; the algorithm falls back */
    }
    dgraph_drop(run);
    sgk_mem_stats m;
    sgk_ctx_mem(c, &m);
    const bool weights = g->w != NULL;
    if (m.in_use + graph_bytes(g, weights) > m.budget) return SG_OK; /* decided per algorithm */

    const double t0 = sgi_now();
    const uint64_t n = g->n;
    sg_status st = SG_OK;
    sgk_graph *dg = NULL;
    /* X first (the ranges are cut from it), then A and W range by range. */
    sg_read_request rx = {.v_begin = 0, .v_end = n, .x = g->x};
    SG_TRY(sg_store_read(s, &rx, ro, NULL, err));
    uint64_t maxdeg = 0;
#pragma omp parallel for reduction(max : maxdeg) schedule(static) num_threads(run->threads)
    for (uint64_t v = 0; v < n; v++)
        if (g->x[v + 1] - g->x[v] > maxdeg) maxdeg = g->x[v + 1] - g->x[v];
    sgk_graph_desc d = {.n = n, .m = g->m, .max_degree = maxdeg, .directed = g->directed,
                        .f32 = g->wt == SG_WEIGHT_F32, .has_weights = weights,
                        .weight_order = g->weight_order};
    SG_TRY(sgk_graph_create(c, &d, &dg, err));
    void *dx, *da, *dw;
    sgk_graph_device_arrays(dg, &dx, &da, &dw);
    SG_TRY(sgk_upload(c, dx, g->x, (n + 1) * 8, err));
    const uint64_t cap = (uint64_t)SGK_STAGE_BYTES / 8; /* edges per range: A and W halves */
    uint64_t v0 = 0;
    while (v0 < n) {
        const uint64_t v1 = range_end(g->x, n, v0, cap);
        const uint64_t e0 = g->x[v0], ne = g->x[v1] - e0;
        if (ne > cap) {
            /* One list longer than a staging half: decode it in place, copy through staging. */
            sg_read_request r1 = {.v_begin = v0, .v_end = v1, .a = g->a + e0,
                                  .w = weights ? (uint32_t *)g->w + e0 : NULL};
            SG_TRY(sg_store_read(s, &r1, ro, NULL, err));
            SG_TRY(sgk_upload(c, (uint32_t *)da + e0, g->a + e0, ne * 4, err));
            if (weights)
                SG_TRY(sgk_upload(c, (uint32_t *)dw + e0, (uint32_t *)g->w + e0, ne * 4, err));
        } else if (ne > 0) {
            sgk_stage sb = {0};
            SG_TRY(sgk_stage_begin(c, &sb, err));
            uint32_t *sa = sb.buf, *sw = (uint32_t *)sb.buf + cap;
            sg_read_request r1 = {.v_begin = v0, .v_end = v1, .a = sa, .w = weights ? sw : NULL};
            SG_TRY(sg_store_read(s, &r1, ro, NULL, err));
            SG_TRY(sgk_stage_copy(c, &sb, 0, (uint32_t *)da + e0, ne * 4, err));
            if (weights)
                SG_TRY(sgk_stage_copy(c, &sb, cap * 4, (uint32_t *)dw + e0, ne * 4, err));
            SG_TRY(sgk_stage_end(c, &sb, err));
            /* While the copy engine reads the buffer, the host arrays get it too. */
            pcopy(g->a + e0, sa, ne * 4, run->threads);
            if (weights) pcopy((uint32_t *)g->w + e0, sw, ne * 4, run->threads);
        }
        v0 = v1;
        sgi_run_progress(run, "load", (double)g->x[v0] / (double)(g->m ? g->m : 1));
    }
    uint64_t bytes = 0;
    double secs = 0;
    SG_TRY(sgk_stage_finish(c, &bytes, &secs, NULL, err));
    run->dgraph = dg;
    dg = NULL;
    run->dgraph_uid = g->uid;
    run->dgraph_weights = weights;
    run->upload_bytes += bytes;
    run->upload_seconds += secs;
    sg_run_set(run, "load_staged_us", (uint64_t)llround((sgi_now() - t0) * 1e6));
    *done = true;
    return SG_OK;
fail:
    sgk_graph_free(dg);
    return st;
}

#endif /* SG_HAVE_CUDA */
