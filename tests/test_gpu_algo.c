/* The gpu backend end to end, through the public API: Borůvka forests,
 * shortest paths (delta-stepping buckets and Bellman-Ford) and BFS on the
 * device, checked against the cpu backend and the oracles on every test
 * graph family; the optimisation switches (SPILLGRAPH_GPU_DISABLE); the
 * device memory budget, its refusals and auto's fallback to the cpu; and
 * loading a store straight to the device.
 *
 * Skips (exit 77) where the build has no CUDA or there is no GPU. With the
 * environment variable SG_TEST_SMALL set, only the small graphs and one
 * seed (for compute-sanitizer runs). Every failure names the graph (family,
 * size, seed, weights, direction), the call and the library's message. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sg_common.h"
#include "sg_config.h"
#include "spillgraph.h"
#include "testgraphs.h"
#if SG_HAVE_CUDA
#include "gpu.h" /* the in-core working bytes auto weighs (sgk_*_bytes) */
#endif

/* ------------------------------------------------------------ settings and helpers */

static bool small_only; /* SG_TEST_SMALL */

enum { SMALL_N = 50, MEDIUM_N = 3000 };

static int n_sizes(void) { return small_only ? 1 : 2; }
static uint64_t size_at(int i) { return i == 0 ? SMALL_N : MEDIUM_N; }
/* Seeds: 2 (1 under SG_TEST_SMALL); `medium_one` gives the medium size only
 * the first, where a test would otherwise take too long. */
static int n_seeds(uint64_t n, bool medium_one)
{
    return small_only || (medium_one && n >= MEDIUM_N) ? 1 : 2;
}

/* A run on backend b with 2 threads (device_mem 0: the default budget). */
static sg_run *mkrun(sg_backend b, uint64_t device_mem)
{
    const sg_run_options o = {.backend = b, .threads = 2, .device_mem = device_mem};
    sg_run *r = NULL;
    sg_error err = {0};
    if (sg_run_create(&o, &r, &err) != SG_OK)
        fail_msg("sg_run_create(backend %s, device_mem %llu): %s", sg_backend_name(b),
                 (unsigned long long)device_mem, err.msg);
    return r;
}

static uint64_t nverts(const sg_graph *g)
{
    sg_graph_info info;
    sg_graph_get_info(g, &info);
    return info.n_vertices;
}

/* "rmat n~3000 (4096 vertices) seed 2 f32 directed" */
static void describe(char *buf, size_t len, tg_kind k, uint64_t n, uint64_t seed, bool directed,
                     bool f32, const sg_graph *g)
{
    snprintf(buf, len, "%s n~%llu (%llu vertices) seed %llu %s %s", tg_name(k),
             (unsigned long long)n, (unsigned long long)nverts(g), (unsigned long long)seed,
             f32 ? "f32" : "u32", directed ? "directed" : "undirected");
}

/* A vertex without out-edges (isolated when undirected), or SG_NO_VERTEX. */
static uint32_t no_out_edges(const sg_graph *g)
{
    const uint64_t *x = sg_graph_offsets(g);
    const uint64_t n = nverts(g);
    for (uint64_t v = 0; v < n; v++)
        if (x[v + 1] == x[v]) return (uint32_t)v;
    return SG_NO_VERTEX;
}

/* The sources of a graph: 0, a random one (Graph500 draw), and one without
 * out-edges where there is one. Returns the count (2 or 3). */
static int sources_of(const sg_graph *g, uint64_t seed, uint32_t out[3])
{
    int ns = 0;
    out[ns++] = 0;
    uint32_t s = 0;
    sg_error err = {0};
    if (sg_graph_random_source(g, seed, &s, &err) != SG_OK) s = (uint32_t)(nverts(g) / 2);
    out[ns++] = s;
    const uint32_t z = no_out_edges(g);
    if (z != SG_NO_VERTEX) out[ns++] = z;
    return ns;
}

/* A hybrid (or auto) run; with `eighths` the splits are forced to
 * eighths[k] * n / 8 vertices for X, A, W. */
static sg_run *mkhybrid(sg_backend b, uint64_t device_mem, const int *eighths, uint64_t n)
{
    sg_run_options o = {.backend = b, .threads = 2, .device_mem = device_mem};
    if (eighths) {
        o.force_split = true;
        for (int k = 0; k < 3; k++) o.split[k] = (uint64_t)eighths[k] * n / 8;
    }
    sg_run *r = NULL;
    sg_error err = {0};
    if (sg_run_create(&o, &r, &err) != SG_OK) fail_msg("sg_run_create(hybrid): %s", err.msg);
    return r;
}

static void expect_backend(const sg_run *run, sg_backend want, const char *what, const char *call)
{
    if (sg_run_backend(run) != want)
        fail_msg("%s: after %s the run's backend is %s, want %s", what, call,
                 sg_backend_name(sg_run_backend(run)), sg_backend_name(want));
}

/* The device report is consistent: peak within the budget, what is held
 * within the peak; after a GPU algorithm (`used`) a context, a name and a
 * positive peak. */
static sg_device_report expect_report(const sg_run *run, bool used, const char *what)
{
    sg_device_report rep;
    memset(&rep, 0, sizeof rep);
    sg_run_device_report(run, &rep);
    if (rep.peak_bytes > rep.budget)
        fail_msg("%s: device peak %llu bytes exceeds the budget %llu", what,
                 (unsigned long long)rep.peak_bytes, (unsigned long long)rep.budget);
    if (rep.in_use > rep.peak_bytes)
        fail_msg("%s: %llu device bytes held, above the peak %llu", what,
                 (unsigned long long)rep.in_use, (unsigned long long)rep.peak_bytes);
    if (used) {
        if (!rep.used) fail_msg("%s: the report says no device context was made", what);
        if (rep.peak_bytes == 0) fail_msg("%s: device peak is 0 after a GPU algorithm", what);
        if (rep.name[0] == '\0') fail_msg("%s: the report has no device name", what);
    }
    return rep;
}

/* ------------------------------------------------------------ per-algorithm checks */

static void expect_same_forest(const sg_forest *gf, const sg_forest *cf, const char *what)
{
    if (gf->n_vertices != cf->n_vertices || gf->n_trees != cf->n_trees ||
        gf->n_edges != cf->n_edges || gf->weight_type != cf->weight_type)
        fail_msg("%s: gpu forest: %llu vertices, %llu trees, %llu edges, weight type %d; cpu: "
                 "%llu, %llu, %llu, %d",
                 what, (unsigned long long)gf->n_vertices, (unsigned long long)gf->n_trees,
                 (unsigned long long)gf->n_edges, (int)gf->weight_type,
                 (unsigned long long)cf->n_vertices, (unsigned long long)cf->n_trees,
                 (unsigned long long)cf->n_edges, (int)cf->weight_type);
    for (uint64_t i = 0; i < cf->n_edges; i++)
        if (gf->u[i] != cf->u[i] || gf->v[i] != cf->v[i] || gf->w[i] != cf->w[i])
            fail_msg("%s: forest edge %llu: gpu (%u, %u, w bits 0x%08x), cpu (%u, %u, w bits "
                     "0x%08x)",
                     what, (unsigned long long)i, gf->u[i], gf->v[i], gf->w[i], cf->u[i], cf->v[i],
                     cf->w[i]);
    if (gf->total_u32 != cf->total_u32 || gf->total != cf->total)
        fail_msg("%s: forest totals: gpu %llu / %.17g, cpu %llu / %.17g", what,
                 (unsigned long long)gf->total_u32, gf->total, (unsigned long long)cf->total_u32,
                 cf->total);
}

/* sg_mst on the gpu (or hybrid) run equals the cpu run's forest and
 * verifies. */
static void mst_check(sg_run *cpu, sg_run *gpu, sg_backend want, const sg_graph *g,
                      const char *what)
{
    sg_forest *fc = NULL, *fg = NULL;
    sg_error err = {0};
    if (sg_mst(cpu, g, &fc, &err) != SG_OK) fail_msg("%s: cpu sg_mst: %s", what, err.msg);
    if (sg_mst(gpu, g, &fg, &err) != SG_OK) fail_msg("%s: gpu sg_mst: %s", what, err.msg);
    expect_backend(gpu, want, what, "sg_mst");
    if (sg_verify_forest(g, fg, &err) != SG_OK)
        fail_msg("%s: gpu forest against Kruskal: %s", what, err.msg);
    expect_same_forest(fg, fc, what);
    tu_expect_rounds(cpu, fc->n_vertices, what);
    if (want != SG_BACKEND_CPU) tu_expect_rounds(gpu, fg->n_vertices, what);
    /* the forest crosses the bus in 12 bytes per edge (a graph without
     * vertices never reaches the device) */
    uint64_t bytes = 0;
    if (want != SG_BACKEND_CPU && fg->n_vertices > 0 &&
        (!tu_counter(gpu, "download_bytes", &bytes) || bytes != 12 * fg->n_edges))
        fail_msg("%s: %llu bytes downloaded for a forest of %llu edges", what,
                 (unsigned long long)bytes, (unsigned long long)fg->n_edges);
    sg_forest_free(fc);
    sg_forest_free(fg);
}

static void mst_compare(sg_run *cpu, sg_run *gpu, const sg_graph *g, const char *what)
{
    mst_check(cpu, gpu, SG_BACKEND_GPU, g, what);
}

/* One sg_sssp on `run` (expected to run on `want`), verified against
 * Dijkstra (distances, and the tree when asked). */
static void sssp_check(sg_run *run, sg_backend want, const sg_graph *g, uint32_t source,
                       sg_sssp_method method, double delta, bool parents, const char *what)
{
    char call[200];
    snprintf(call, sizeof call, "sg_sssp from %u, method %s, delta %g, %s", source,
             sg_sssp_method_name(method), delta, parents ? "parents" : "no parents");
    const sg_sssp_options o = {
        .source = source, .delta = delta, .want_parents = parents, .method = method};
    sg_sssp_result *r = NULL;
    sg_error err = {0};
    if (sg_sssp(run, g, &o, &r, &err) != SG_OK) fail_msg("%s: %s: %s", what, call, err.msg);
    expect_backend(run, want, what, call);
    if (sg_verify_sssp(g, r, &err) != SG_OK) fail_msg("%s: %s: verify: %s", what, call, err.msg);
    sg_graph_info info;
    sg_graph_get_info(g, &info);
    if (r->n_vertices != info.n_vertices || r->source != source)
        fail_msg("%s: %s: result for %llu vertices from %u", what, call,
                 (unsigned long long)r->n_vertices, r->source);
    if (r->weight_type != info.weight_type || (r->dist == NULL) == (r->dist_f == NULL))
        fail_msg("%s: %s: weight type %d, dist %p, dist_f %p", what, call, (int)r->weight_type,
                 (void *)r->dist, (void *)r->dist_f);
    if ((r->parent != NULL) != parents)
        fail_msg("%s: %s: parent array %s", what, call, r->parent ? "present" : "missing");
    if (r->dist ? r->dist[source] != 0 : r->dist_f[source] != 0.0)
        fail_msg("%s: %s: the source's distance is not 0", what, call);
    if (r->reached < 1) fail_msg("%s: %s: reached %llu", what, call, (unsigned long long)r->reached);
    if (method == SG_SSSP_DELTA && delta > 0 && r->delta != delta)
        fail_msg("%s: %s: bucket width used %g", what, call, r->delta);
    if (method != SG_SSSP_BELLMAN_FORD && !(r->delta > 0))
        fail_msg("%s: %s: bucket width used %g", what, call, r->delta);
    /* the distances cross the bus in eight bytes each */
    uint64_t bytes = 0;
    if (want != SG_BACKEND_CPU && info.n_vertices > 0 &&
        (!tu_counter(run, "download_bytes", &bytes) || bytes != 8 * info.n_vertices))
        fail_msg("%s: %s: %llu bytes downloaded for %llu vertices", what, call,
                 (unsigned long long)bytes, (unsigned long long)info.n_vertices);
    /* graph bytes read from host memory: none with the whole graph on the
     * device; the part before the rounds within the whole */
    uint64_t hb = 0, pre = 0;
    if (want != SG_BACKEND_CPU &&
        (!tu_counter(run, "host_list_bytes", &hb) || !tu_counter(run, "preprocess_host_bytes", &pre) ||
         (want == SG_BACKEND_GPU && hb != 0) || pre > hb))
        fail_msg("%s: %s: host_list_bytes %llu, preprocess_host_bytes %llu", what, call,
                 (unsigned long long)hb, (unsigned long long)pre);
    sg_sssp_free(r);
}

/* The sssp settings of one source: delta-stepping (automatic and explicit
 * width) and Bellman-Ford, each with and without parents. */
static void sssp_all(sg_run *gpu, const sg_graph *g, uint32_t source, const char *what)
{
    for (int parents = 0; parents < 2; parents++) {
        sssp_check(gpu, SG_BACKEND_GPU, g, source, SG_SSSP_DELTA, 0.0, parents, what);
        sssp_check(gpu, SG_BACKEND_GPU, g, source, SG_SSSP_DELTA, 3.0, parents, what);
        sssp_check(gpu, SG_BACKEND_GPU, g, source, SG_SSSP_BELLMAN_FORD, 0.0, parents, what);
    }
}

/* One sg_bfs on `run`, verified against the serial BFS. *bu gets the
 * bottom-up step count (asserting the counter exists). */
static void bfs_check(sg_run *run, sg_backend want, const sg_graph *g, uint32_t source,
                      int alpha, int beta, bool parents, const char *what, uint64_t *bu)
{
    char call[200];
    snprintf(call, sizeof call, "sg_bfs from %u, alpha %d, beta %d, %s", source, alpha, beta,
             parents ? "parents" : "no parents");
    const sg_bfs_options o = {.source = source, .want_parents = parents, .alpha = alpha, .beta = beta};
    sg_bfs_result *r = NULL;
    sg_error err = {0};
    if (sg_bfs(run, g, &o, &r, &err) != SG_OK) fail_msg("%s: %s: %s", what, call, err.msg);
    expect_backend(run, want, what, call);
    if (sg_verify_bfs(g, r, &err) != SG_OK) fail_msg("%s: %s: verify: %s", what, call, err.msg);
    if (r->n_vertices != nverts(g) || r->source != source || r->level[source] != 0)
        fail_msg("%s: %s: result for %llu vertices from %u", what, call,
                 (unsigned long long)r->n_vertices, r->source);
    if ((r->parent != NULL) != parents)
        fail_msg("%s: %s: parent array %s", what, call, r->parent ? "present" : "missing");
    uint64_t hit = 0; /* the summary (summed on the device) against the levels */
    uint32_t deepest = 0;
    for (uint64_t v = 0; v < r->n_vertices; v++)
        if (r->level[v] != SG_NO_LEVEL) {
            hit++;
            deepest = r->level[v] > deepest ? r->level[v] : deepest;
        }
    if (r->reached != hit || r->max_level != deepest)
        fail_msg("%s: %s: reached %llu, max level %u; the levels say %llu, %u", what, call,
                 (unsigned long long)r->reached, r->max_level, (unsigned long long)hit, deepest);
    uint64_t b = 0, t = 0;
    if (!tu_counter(run, "bottom_up_steps", &b) || !tu_counter(run, "top_down_steps", &t))
        fail_msg("%s: %s: the step counters are not set", what, call);
    if (bu) *bu = b;
    /* list entries read from host memory: none with the whole graph on the
     * device, never more than the entries examined */
    uint64_t hb = 0, ex = 0;
    if (want != SG_BACKEND_CPU &&
        (!tu_counter(run, "host_list_bytes", &hb) || !tu_counter(run, "edges_examined", &ex) ||
         (want == SG_BACKEND_GPU && hb != 0) || hb > 4 * ex))
        fail_msg("%s: %s: host_list_bytes %llu for %llu entries examined", what, call,
                 (unsigned long long)hb, (unsigned long long)ex);
    sg_bfs_free(r);
}

/* ------------------------------------------------------------ MST */

static void test_mst(void **state)
{
    (void)state;
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0), *gpu = mkrun(SG_BACKEND_GPU, 0);
    {
        sg_device_report rep;
        sg_run_device_report(gpu, &rep);
        assert_false(rep.used); /* the context comes at the first GPU use */
        assert_int_equal(sg_run_backend(gpu), SG_BACKEND_GPU);
    }
    char what[200];
    for (int k = 0; k < TG_NKINDS; k++)
        for (int si = 0; si < n_sizes(); si++)
            for (uint64_t seed = 1; seed <= (uint64_t)n_seeds(size_at(si), false); seed++)
                for (int f32 = 0; f32 < 2; f32++) {
                    sg_graph *g = tg_make((tg_kind)k, size_at(si), seed, false, f32);
                    describe(what, sizeof what, (tg_kind)k, size_at(si), seed, false, f32, g);
                    mst_compare(cpu, gpu, g, what);
                    sg_graph_free(g);
                }
    expect_report(gpu, true, "after the mst families");

    /* The same refusals as the cpu: a directed graph. */
    sg_graph *d = tg_make(TG_RANDOM, SMALL_N, 1, true, false);
    sg_forest *f = NULL;
    sg_error err = {0};
    assert_int_equal(sg_mst(gpu, d, &f, &err), SG_E_INVALID);
    if (!strstr(err.msg, "undirected")) fail_msg("directed graph on the gpu: \"%s\"", err.msg);
    assert_null(f);
    sg_graph_free(d);
    sg_run_free(cpu);
    sg_run_free(gpu);
}

/* ------------------------------------------------------------ SSSP */

static void test_sssp(void **state)
{
    (void)state;
    sg_run *gpu = mkrun(SG_BACKEND_GPU, 0);
    char what[200];
    for (int k = 0; k < TG_NKINDS; k++)
        for (int si = 0; si < n_sizes(); si++)
            for (uint64_t seed = 1; seed <= (uint64_t)n_seeds(size_at(si), true); seed++)
                for (int variant = 0; variant < 4; variant++) {
                    const bool directed = variant & 1, f32 = variant & 2;
                    sg_graph *g = tg_make((tg_kind)k, size_at(si), seed, directed, f32);
                    describe(what, sizeof what, (tg_kind)k, size_at(si), seed, directed, f32, g);
                    uint32_t src[3];
                    const int ns = sources_of(g, seed, src);
                    for (int s = 0; s < ns; s++) sssp_all(gpu, g, src[s], what);
                    /* method auto on a gpu run */
                    sssp_check(gpu, SG_BACKEND_GPU, g, src[1], SG_SSSP_AUTO, 0.0, true, what);
                    sg_graph_free(g);
                }
    /* distances past 32 bits: exact, and so is the device's summary of them */
    {
        const uint32_t u[4] = {0, 1, 2, 3}, v[4] = {1, 2, 3, 4};
        const uint32_t w[4] = {0xf0000000u, 0xf0000000u, 7, 0xffffffffu};
        sg_graph *g = tg_from_edges(6, 4, u, v, w, false, false);
        for (int parents = 0; parents < 2; parents++) {
            sssp_check(gpu, SG_BACKEND_GPU, g, 0, SG_SSSP_DELTA, 0.0, parents,
                       "a path of distances past 2^32");
            sssp_check(gpu, SG_BACKEND_GPU, g, 0, SG_SSSP_BELLMAN_FORD, 0.0, parents,
                       "a path of distances past 2^32");
            sssp_check(gpu, SG_BACKEND_GPU, g, 4, SG_SSSP_DELTA, 0.0, parents,
                       "a path of distances past 2^32, from its end");
        }
        sg_graph_free(g);
    }
    expect_report(gpu, true, "after the sssp families");
    sg_run_free(gpu);
}

static char *env_push(const char *names);
static void env_pop(char *saved);

/* The bucket method's light index and settle passes (sssp.cu): with width
 * 16 (weights 1..64) the index holds some but not all edges and the
 * buckets are settled by settle passes; with a width above every weight no
 * index is built (every edge light), the path a budget without room for it
 * takes. In core, and on the hybrid backend with every list in host
 * memory, where the larger settle passes take their vertices in id order
 * (a radix sort of the settled list; not in core, nor with "settle-sort"
 * off). Against the oracle, u32 and f32. */
static void test_sssp_light_index(void **state)
{
    (void)state;
    static const int all_host[3] = {0, 0, 0}, half[3] = {8, 4, 4};
    sg_run *gpu = NULL;
    char what[300];
    uint64_t sorted_total = 0, moved_total = 0;
    /* kinds: in core, all on the host, the same with settle-sort off, half
     * the lists on the host split at the plan's point (dynamic-split off: the
     * threads take every list wholly on the host); each with the fused pass
     * and without it */
    for (int v = 0; v < 16; v++) {
        const int f32 = v & 1, kind = (v >> 1) & 3, classic = v >> 3;
        static const char *const names[2][4] = {
            {NULL, NULL, "settle-sort", "dynamic-split"},
            {"fused-index", "fused-index", "settle-sort,fused-index", "dynamic-split,fused-index"}};
        char *saved = env_push(names[classic][kind]);
        sg_graph *g = tg_make(TG_RMAT, small_only ? 256 : 4096, 4, false, f32);
        char base[200];
        describe(base, sizeof base, TG_RMAT, small_only ? 256 : 4096, 4, false, f32, g);
        snprintf(what, sizeof what, "%s, %s, %s", base,
                 kind == 0 ? "in core" : kind == 1 ? "lists on the host" :
                 kind == 2 ? "lists on the host, settle-sort off" : "half the lists on the host",
                 classic ? "count and fill" : "fused pass");
        sg_run_free(gpu);
        const sg_backend b = kind == 0 ? SG_BACKEND_GPU : SG_BACKEND_HYBRID;
        gpu = kind == 0 ? mkrun(b, 0)
                        : mkhybrid(b, 0, kind == 3 ? half : all_host, nverts(g));
        sg_graph_info gi;
        sg_graph_get_info(g, &gi);
        const double widths[2] = {16.0, 1e12};
        for (int i = 0; i < 2; i++) {
            sssp_check(gpu, b, g, 1, SG_SSSP_DELTA, widths[i], true, what);
            uint64_t light = 0, settles = 0, sorted = 0, fused = 0, slots = 0, moves = 0;
            if (!tu_counter(gpu, "light_edges", &light) || !tu_counter(gpu, "settle_passes", &settles) ||
                !tu_counter(gpu, "settle_sorted", &sorted) || !tu_counter(gpu, "index_fused", &fused) ||
                !tu_counter(gpu, "index_slots", &slots) || !tu_counter(gpu, "index_moves", &moves))
                fail_msg("%s: the light index counters are not set", what);
            /* the index's size is the weights' own count, whichever pass built it */
            uint64_t want = 0;
            for (uint64_t e = 0; e < gi.n_edges && i == 0; e++) {
                const uint32_t wb = ((const uint32_t *)sg_graph_weights(g))[e];
                float fw;
                memcpy(&fw, &wb, sizeof fw);
                want += f32 ? fw < 16.0f : wb < 16u;
            }
            if (light != want)
                fail_msg("%s: width %g: %llu light edges, want %llu", what, widths[i],
                         (unsigned long long)light, (unsigned long long)want);
            if (i == 0 && fused != (uint64_t)!classic)
                fail_msg("%s: width 16: index_fused %llu", what, (unsigned long long)fused);
            if (fused && (slots < light || (moves > 0 && slots == light)))
                fail_msg("%s: %llu slots for %llu light edges, %llu moves", what,
                         (unsigned long long)slots, (unsigned long long)light,
                         (unsigned long long)moves);
            if (kind == 3) moved_total += moves;
            if (sorted > settles || ((kind == 0 || kind == 2) && sorted != 0))
                fail_msg("%s: %llu of %llu settle passes sorted", what,
                         (unsigned long long)sorted, (unsigned long long)settles);
            sorted_total += sorted;
            if (i == 0 && (light == 0 || light > gi.n_edges / 2 || settles == 0))
                fail_msg("%s: width 16: %llu light edges of %llu, %llu settle passes", what,
                         (unsigned long long)light, (unsigned long long)gi.n_edges,
                         (unsigned long long)settles);
            if (i == 1 && light != 0)
                fail_msg("%s: width 1e12: a light index of %llu edges", what,
                         (unsigned long long)light);
        }
        sg_graph_free(g);
        env_pop(saved);
    }
    /* spilled settle passes of 256 vertices or more take them in id order */
    if (!small_only && sorted_total == 0) fail_msg("no settle pass was sorted");
    /* a sampled fused pass (more than 65536 entries) leaves room above its
     * entries, so the threads' part moves down to meet the GPU's */
    if (!small_only && moved_total == 0) fail_msg("no fused pass moved the CPU threads' part");
    expect_report(gpu, true, "after the light index checks");
    sg_run_free(gpu);
}


/* The fused light index sizes its slots from a strided sample of the
 * weights, and falls back to the count and the fill where they do not
 * serve. Graphs of 65536 vertices, each with 4 out-edges to the next 4 ids,
 * so that the sample's stride of 4 lands on the first entry of every list:
 *   - weights 1000, 1, 1000, 1000 in list order: the sample sees no light
 *     weight, the slots run out (a quarter of the entries are light), in
 *     core, with every list on the host (the CPU threads' chunks run out
 *     first) and with half of them there;
 *   - the second entry light (1), the first light in 31 vertices of every
 *     100, the rest heavy: the sample sees 31 % light where 32.8 % are, so
 *     the slots hold them with a gap under a 32nd of the CPU threads' part
 *     (they take every list: all on the host, "dynamic-split" off), and
 *     moving that part down would take too many copies: the count and the
 *     fill instead; in core the same slots serve.
 * The same light edges either way, the oracle's distances. */
static void test_sssp_fused_fallback(void **state)
{
    (void)state;
    enum { N = 65536, PER = 4 };
    static uint32_t u[N * PER], v[N * PER], w[N * PER];
    static const int all_host[3] = {0, 0, 0}, half[3] = {8, 4, 4};
    char what[200];
    for (int pat = 0; pat < 2; pat++)
        for (int f32 = 0; f32 < 2; f32++) {
            uint64_t want = 0;
            for (uint32_t i = 0; i < N * PER; i++) {
                const uint32_t j = i % PER, x = i / PER;
                const bool light = j == 1 || (pat == 1 && j == 0 && x % 100 < 31);
                u[i] = x;
                v[i] = (x + 1 + j) % N;
                w[i] = f32 ? tg_f32_bits(light ? 1.0f : 1000.0f) : light ? 1u : 1000u;
                want += light;
            }
            sg_graph *g = tg_from_edges(N, N * PER, u, v, w, true, f32);
            for (int kind = 0; kind < 3; kind++) {
                if (pat == 1 && kind == 2) continue;
                snprintf(what, sizeof what, "%d vertices, %s, %s, %s", N,
                         pat ? "a sample short of 1.8 %" : "a sample without light weights",
                         f32 ? "f32" : "u32",
                         kind == 0 ? "in core" : kind == 1 ? "all lists on the host" :
                         "half on the host");
                char *saved = env_push(pat == 1 ? "dynamic-split" : NULL);
                const sg_backend b = kind == 0 ? SG_BACKEND_GPU : SG_BACKEND_HYBRID;
                sg_run *run =
                    kind == 0 ? mkrun(b, 0) : mkhybrid(b, 0, kind == 1 ? all_host : half, N);
                sssp_check(run, b, g, 3, SG_SSSP_DELTA, 16.0, true, what);
                uint64_t light = 0, fused = 0, fused_us = 0;
                if (!tu_counter(run, "light_edges", &light) ||
                    !tu_counter(run, "index_fused", &fused) ||
                    !tu_counter(run, "index_fused_us", &fused_us))
                    fail_msg("%s: the light index counters are not set", what);
                const uint64_t want_fused = pat == 1 && kind == 0;
                if (light != want || fused != want_fused || fused_us == 0)
                    fail_msg("%s: %llu light edges (want %llu), index_fused %llu (want %llu), "
                             "fused pass %llu us",
                             what, (unsigned long long)light, (unsigned long long)want,
                             (unsigned long long)fused, (unsigned long long)want_fused,
                             (unsigned long long)fused_us);
                sg_run_free(run);
                env_pop(saved);
            }
            sg_graph_free(g);
        }
}

/* The automatic bucket width (sssp.cu, "automatic delta"), as this test
 * computes it from the graph: the mean of the sampled weights (a stride
 * over at most 65536) times 4 over m / n, u32 rounded to a power of two;
 * doubled on a graph without hubs (largest degree under 16 m / n) when the
 * light index at twice that width (the weights below it) holds at most
 * 45 % of the edges and fits; doubled again when at most 30 % of the light
 * index's weight sample (W at a stride of m / s, s = min(m, 65536, 2 (n +
 * 1))) lies below four times it and that index fits. Returns the narrow
 * width; *wide gets the one expected with room, *wide2 the one with
 * "wider-delta" off. */
static double expected_delta(const sg_graph *g, double *wide, double *wide2)
{
    sg_graph_info gi;
    sg_graph_get_info(g, &gi);
    const uint64_t m = gi.n_edges, n = gi.n_vertices;
    const uint64_t samples = m < 65536 ? m : 65536, stride = m / samples;
    const void *wv = sg_graph_weights(g);
    const bool f32 = gi.weight_type == SG_WEIGHT_F32;
#define WEIGHT_AT(p) (f32 ? (double)((const float *)wv)[p] : (double)((const uint32_t *)wv)[p])
    double sum = 0.0;
    uint64_t cnt = 0;
    for (uint64_t i = 0; i < samples; i++) {
        const double x = WEIGHT_AT(i * stride);
        if (isfinite(x)) sum += x, cnt++;
    }
    double d = cnt ? sum / (double)cnt * 4.0 / ((double)m / (double)n) : 0.0;
    if (!(d > 0.0)) d = 1.0;
    if (!f32) d = exp2(round(log2(d < 1.0 ? 1.0 : d)));
    uint64_t light = 0;
    for (uint64_t p = 0; p < m; p++) {
        const double x = WEIGHT_AT(p);
        /* f32: the index bound is the float nearest above 2d (4d); these
         * weights sit far from it */
        light += x < 2.0 * d;
    }
    uint64_t ns = m < 65536 ? m : 65536, light4 = 0;
    if (ns > 2 * (n + 1)) ns = 2 * (n + 1);
    for (uint64_t i = 0; ns && i < ns; i++) light4 += WEIGHT_AT(i * (m / ns)) < 4.0 * d;
#undef WEIGHT_AT
    const bool no_hubs = (double)gi.max_degree < 16.0 * (double)m / (double)n;
    *wide2 = no_hubs && (double)light <= 0.45 * (double)m ? 2.0 * d : d;
    *wide = *wide2 != d && 10 * light4 <= 3 * ns ? 4.0 * d : *wide2;
    return d;
}

/* One automatic-width sg_sssp on a fresh GPU run with `budget` (0: the
 * default), verified against Dijkstra; returns the width used and the
 * device peak. */
static double auto_width_run(const sg_graph *g, uint64_t budget, uint64_t *peak, const char *what)
{
    sg_run *run = mkrun(SG_BACKEND_GPU, budget);
    const sg_sssp_options o = {.source = 0, .method = SG_SSSP_DELTA};
    sg_sssp_result *r = NULL;
    sg_error err = {0};
    if (sg_sssp(run, g, &o, &r, &err) != SG_OK)
        fail_msg("%s: automatic width, budget %llu: %s", what, (unsigned long long)budget, err.msg);
    expect_backend(run, SG_BACKEND_GPU, what, "sg_sssp, automatic width");
    if (sg_verify_sssp(g, r, &err) != SG_OK)
        fail_msg("%s: automatic width, budget %llu: verify: %s", what, (unsigned long long)budget,
                 err.msg);
    const double d = r->delta;
    sg_sssp_free(r);
    sg_device_report rep;
    sg_run_device_report(run, &rep);
    if (budget && rep.peak_bytes > budget)
        fail_msg("%s: peak %llu over the budget %llu", what, (unsigned long long)rep.peak_bytes,
                 (unsigned long long)budget);
    *peak = rep.peak_bytes;
    sg_run_free(run);
    return d;
}

static bool same_width(double a, double b) { return fabs(a - b) <= 1e-9 * (b > 1.0 ? b : 1.0); }

/* An automatic-width run (auto_width_run) with the disable names `disable`
 * (NULL: none) and `budget` (0: the default), whose width must be `want`
 * (`how` says which run failed); returns its device peak. */
static uint64_t expect_width(const sg_graph *g, const char *disable, uint64_t budget, double want,
                             const char *what, const char *how)
{
    char *saved = env_push(disable);
    uint64_t peak = 0;
    const double got = auto_width_run(g, budget, &peak, what);
    env_pop(saved);
    if (!same_width(got, want)) fail_msg("%s: %s: width %g, want %g", what, how, got, want);
    return peak;
}

/* A hub-free graph whose doubled width stays under 45 % light: 2048
 * vertices, each joined to 16 random others (mean degree ~32), weights
 * uniform in [1, 2^20] (as the generators draw them); the light share at
 * twice the automatic width is then ~4 / 32. */
static sg_graph *wide_graph(bool f32)
{
    enum { N = 2048, PER = 16 };
    static uint32_t u[N * PER], v[N * PER], w[N * PER];
    uint64_t x = 88172645463325252ull;
    for (uint32_t i = 0; i < N * PER; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        u[i] = i / PER;
        v[i] = (uint32_t)(x % N);
        const uint32_t wt = 1 + (uint32_t)((x >> 20) % (1u << 20));
        w[i] = f32 ? tg_f32_bits((float)wt) : wt;
    }
    return tg_from_edges(N, N * PER, u, v, w, false, f32);
}

static void test_sssp_auto_delta(void **state)
{
    (void)state;
    static const tg_kind kinds[3] = {TG_RANDOM, TG_SSCA2, TG_RMAT};
    char what[200];
    int widened = 0, widened4 = 0;
    for (int k = 0; k < 4; k++)
        for (int f32 = 0; f32 < 2; f32++) {
            const uint64_t size = small_only ? 256 : 4096;
            sg_graph *g = k < 3 ? tg_make(kinds[k], size, 3, false, f32) : wide_graph(f32);
            if (k < 3)
                describe(what, sizeof what, kinds[k], size, 3, false, f32, g);
            else
                snprintf(what, sizeof what, "random n 2048, 16 edges each, weights to 2^20, %s",
                         f32 ? "f32" : "u32");
            double wide = 0.0, wide2 = 0.0;
            const double narrow = expected_delta(g, &wide, &wide2);
            const uint64_t peak = expect_width(g, NULL, 0, wide, what, "automatic width");
            const uint64_t npeak =
                expect_width(g, "wide-delta", 0, narrow, what, "\"wide-delta\" off");
            const uint64_t wpeak =
                expect_width(g, "wider-delta", 0, wide2, what, "\"wider-delta\" off");
            char how[200];
            if (wide != wide2) {
                /* the doubled width's peak leaves no room for the index at
                 * four times: its sample decides, then the doubled one */
                widened4++;
                snprintf(how, sizeof how,
                         "budget %llu (the doubled width's peak; %llu at four times)",
                         (unsigned long long)wpeak, (unsigned long long)peak);
                expect_width(g, NULL, wpeak, wide2, what, how);
            }
            if (wide != narrow) {
                /* the narrow run's peak leaves no room for the wider index:
                 * counted at the doubled width, then at the narrow one */
                widened++;
                snprintf(how, sizeof how,
                         "budget %llu (the narrow run's peak; %llu with the wide index)",
                         (unsigned long long)npeak, (unsigned long long)peak);
                expect_width(g, NULL, npeak, narrow, what, how);
            }
            sg_graph_free(g);
        }
    if (widened < 2) fail_msg("%d graphs took the wider width, want the last two at least",
                              widened);
    if (widened4 < 2) fail_msg("%d graphs took four times the width, want the last two at least",
                               widened4);
}

/* ------------------------------------------------------------ BFS */

static void test_bfs(void **state)
{
    (void)state;
    sg_run *gpu = mkrun(SG_BACKEND_GPU, 0);
    /* default switching; top-down forced (alpha 1, beta 1); bottom-up forced
     * (alpha 1000, beta 1000) */
    static const int ab[3][2] = {{0, 0}, {1, 1}, {1000, 1000}};
    char what[200];
    for (int k = 0; k < TG_NKINDS; k++)
        for (int si = 0; si < n_sizes(); si++)
            for (uint64_t seed = 1; seed <= (uint64_t)n_seeds(size_at(si), true); seed++)
                for (int directed = 0; directed < 2; directed++) {
                    sg_graph *g = tg_make((tg_kind)k, size_at(si), seed, directed, false);
                    describe(what, sizeof what, (tg_kind)k, size_at(si), seed, directed, false, g);
                    uint32_t src[4];
                    int ns = sources_of(g, seed, src);
                    src[ns++] = (uint32_t)(nverts(g) - 1);
                    for (int s = 0; s < ns; s++)
                        for (int i = 0; i < 3; i++)
                            for (int parents = 0; parents < 2; parents++) {
                                uint64_t bu = 0;
                                bfs_check(gpu, SG_BACKEND_GPU, g, src[s], ab[i][0], ab[i][1],
                                          parents, what, &bu);
                                if (directed && bu != 0)
                                    fail_msg("%s: bfs from %u: %llu bottom-up steps on a directed "
                                             "graph",
                                             what, src[s], (unsigned long long)bu);
                            }
                    sg_graph_free(g);
                }

    /* Forcing bottom-up really takes bottom-up steps on the device (unless
     * switched off from outside), and the levels stay right. From the vertex
     * of most edges: a random one may sit in a component of two. */
    const char *dis = getenv("SPILLGRAPH_GPU_DISABLE");
    if (!dis || !strstr(dis, "bottom-up")) {
        sg_graph *g = tg_make(TG_RMAT, small_only ? 256 : 4096, 3, false, false);
        describe(what, sizeof what, TG_RMAT, small_only ? 256 : 4096, 3, false, false, g);
        const uint64_t *x = sg_graph_offsets(g);
        uint32_t s = 0;
        for (uint64_t v = 1; v < nverts(g); v++)
            if (x[v + 1] - x[v] > x[s + 1] - x[s]) s = (uint32_t)v;
        uint64_t bu = 0;
        bfs_check(gpu, SG_BACKEND_GPU, g, s, 1000, 1000, true, what, &bu);
        if (bu == 0) fail_msg("%s: alpha = beta = 1000 took no bottom-up step", what);
        sg_graph_free(g);
    }
    /* Deep searches (paths from vertex 0: the deepest level is n - 1, past
     * one and two bytes), and the bytes their results crossed the bus in. */
    {
        static const uint64_t pn[3] = {200, 3000, 70000};
        for (int i = 0; i < (small_only ? 2 : 3); i++) {
            sg_graph *g = tg_make(TG_PATH, pn[i], 1, false, false);
            describe(what, sizeof what, TG_PATH, pn[i], 1, false, false, g);
            for (int parents = 0; parents < 2; parents++) {
                bfs_check(gpu, SG_BACKEND_GPU, g, 0, 0, 0, parents, what, NULL);
                uint64_t bytes = 0;
                const uint64_t want = pn[i] * (parents ? 8 : 4);
                if (!tu_counter(gpu, "download_bytes", &bytes) || bytes != want)
                    fail_msg("%s: %llu bytes downloaded, want %llu", what,
                             (unsigned long long)bytes, (unsigned long long)want);
            }
            sg_graph_free(g);
        }
    }
    expect_report(gpu, true, "after the bfs families");
    sg_run_free(gpu);
}

/* ------------------------------------------------------------ edge cases */

/* Every algorithm on one small graph: forest equal to the cpu's, sssp and
 * bfs (when it has vertices) verified from every listed source. */
static void all_on(sg_run *cpu, sg_run *gpu, const sg_graph *g, const char *what)
{
    sg_graph_info info;
    sg_graph_get_info(g, &info);
    if (!info.directed) mst_compare(cpu, gpu, g, what);
    if (info.n_vertices == 0) return;
    const uint32_t last = (uint32_t)(info.n_vertices - 1);
    const uint32_t srcs[2] = {0, last};
    for (int s = 0; s < (last ? 2 : 1); s++) {
        if (!info.negative_weights) sssp_all(gpu, g, srcs[s], what);
        for (int parents = 0; parents < 2; parents++) {
            bfs_check(gpu, SG_BACKEND_GPU, g, srcs[s], 0, 0, parents, what, NULL);
            bfs_check(gpu, SG_BACKEND_GPU, g, srcs[s], 1000, 1000, parents, what, NULL);
        }
    }
}

static void test_edge_cases(void **state)
{
    (void)state;
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0), *gpu = mkrun(SG_BACKEND_GPU, 0);
    sg_error err = {0};
    sg_graph *g = NULL;

    /* No vertices: an empty forest; sssp and bfs refuse, as on the cpu. */
    const uint64_t x0[1] = {0};
    assert_int_equal(sg_graph_from_arrays(0, x0, NULL, NULL, SG_WEIGHT_U32, false, &g, &err), SG_OK);
    all_on(cpu, gpu, g, "no vertices");
    sg_sssp_result *sr = NULL;
    sg_bfs_result *br = NULL;
    const sg_sssp_options so = {.source = 0, .method = SG_SSSP_BELLMAN_FORD};
    assert_int_equal(sg_sssp(gpu, g, &so, &sr, &err), SG_E_INVALID);
    const sg_bfs_options bo = {.source = 0};
    assert_int_equal(sg_bfs(gpu, g, &bo, &br, &err), SG_E_INVALID);
    assert_null(sr);
    assert_null(br);
    sg_graph_free(g);

    /* One vertex with and without a self-loop; ten vertices without edges,
     * then with only self-loops. */
    for (int directed = 0; directed < 2; directed++)
        for (int f32 = 0; f32 < 2; f32++) {
            const uint32_t lu[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
            uint32_t lw[10];
            for (int i = 0; i < 10; i++) lw[i] = f32 ? tg_f32_bits(2.5f) : 3;
            char what[96];
            for (int loops = 0; loops < 2; loops++) {
                snprintf(what, sizeof what, "one vertex%s, %s %s", loops ? " with a self-loop" : "",
                         f32 ? "f32" : "u32", directed ? "directed" : "undirected");
                g = tg_from_edges(1, loops, lu, lu, lw, directed, f32);
                all_on(cpu, gpu, g, what);
                sg_graph_free(g);
                snprintf(what, sizeof what, "ten vertices, %s, %s %s",
                         loops ? "only self-loops" : "no edges", f32 ? "f32" : "u32",
                         directed ? "directed" : "undirected");
                g = tg_from_edges(10, loops ? 10 : 0, lu, lu, lw, directed, f32);
                all_on(cpu, gpu, g, what);
                sg_graph_free(g);
            }
        }

    /* f32 forests with negative weights, -0 before +0 (the tie rule compares
     * floats). */
    {
        const uint32_t u[] = {0, 1, 2, 3, 3, 4, 5, 5};
        const uint32_t v[] = {1, 2, 0, 2, 4, 0, 6, 6};
        const uint32_t w[] = {tg_f32_bits(-0.0f), tg_f32_bits(0.0f),   tg_f32_bits(-0.0f), tg_f32_bits(-1.5f),
                              tg_f32_bits(2.25f), tg_f32_bits(3.0f),   tg_f32_bits(-7.0f), tg_f32_bits(-8.0f)};
        g = tg_from_edges(8, 8, u, v, w, false, true);
        all_on(cpu, gpu, g, "f32 negative weights");
        sg_graph_free(g);
    }

    /* u32 weights near 2^32: totals and distances beyond 32 bits. */
    {
        enum { N = 60 };
        uint32_t u[N], v[N], w[N];
        for (uint32_t i = 0; i + 1 < N; i++) u[i] = i, v[i] = i + 1, w[i] = 4000000000u - i;
        u[N - 1] = 0, v[N - 1] = N - 1, w[N - 1] = 4294967295u;
        for (int directed = 0; directed < 2; directed++) {
            g = tg_from_edges(N, N, u, v, w, directed, false);
            all_on(cpu, gpu, g, directed ? "heavy u32 path, directed" : "heavy u32 cycle");
            sg_graph_free(g);
        }
    }

    /* Zero-weight cycles (tight edges between equal distances: the tree
     * must not loop) and an f32 sum that rounds back (1e17 + 1 == 1e17). */
    for (int variant = 0; variant < 4; variant++) {
        const bool directed = variant & 1, f32 = variant & 2;
        g = tg_zero_cycles(directed, f32);
        all_on(cpu, gpu, g, f32 ? "zero-weight cycles, f32" : "zero-weight cycles, u32");
        sg_graph_free(g);
    }
    for (int directed = 0; directed < 2; directed++) {
        g = tg_f32_rounding(directed);
        all_on(cpu, gpu, g, "f32 rounding");
        sg_graph_free(g);
    }

    /* Argument errors are the cpu's (checked before any device work). */
    g = tg_make(TG_PATH, SMALL_N, 1, false, false);
    sg_sssp_options o = {.source = SMALL_N, .method = SG_SSSP_BELLMAN_FORD};
    assert_int_equal(sg_sssp(gpu, g, &o, &sr, &err), SG_E_INVALID);
    if (!strstr(err.msg, "source 50 is not a vertex")) fail_msg("\"%s\"", err.msg);
    sg_bfs_options b = {.source = SMALL_N};
    assert_int_equal(sg_bfs(gpu, g, &b, &br, &err), SG_E_INVALID);
    if (!strstr(err.msg, "source 50 is not a vertex")) fail_msg("\"%s\"", err.msg);
    o = (sg_sssp_options){.source = 0, .delta = -1.0, .method = SG_SSSP_DELTA};
    assert_int_equal(sg_sssp(gpu, g, &o, &sr, &err), SG_E_INVALID);
    assert_null(sr);
    assert_null(br);
    sg_graph_free(g);
    {
        const uint64_t x[] = {0, 1, 2};
        const uint32_t a[] = {1, 0};
        const float w[] = {-1.5f, -1.5f};
        assert_int_equal(sg_graph_from_arrays(2, x, a, w, SG_WEIGHT_F32, false, &g, &err), SG_OK);
        o = (sg_sssp_options){.source = 0, .method = SG_SSSP_BELLMAN_FORD};
        assert_int_equal(sg_sssp(gpu, g, &o, &sr, &err), SG_E_INVALID);
        if (!strstr(err.msg, "negative weights")) fail_msg("\"%s\"", err.msg);
        assert_null(sr);
        all_on(cpu, gpu, g, "negative f32 edge"); /* mst and bfs are fine */
        sg_graph_free(g);
    }
    expect_report(gpu, true, "after the edge cases");
    sg_run_free(cpu);
    sg_run_free(gpu);
}

/* ------------------------------------------------------------ optimisation switches */

/* Sets environment variable var to names (unset for NULL): for
 * SPILLGRAPH_GPU_DISABLE, for the device contexts made next (a context
 * reads it at the run's first GPU use); SPILLGRAPH_GPU_ENABLE is read at
 * each use. Returns the value before, for env_var_pop (env_push and
 * env_pop: SPILLGRAPH_GPU_DISABLE's). */
static char *env_var_push(const char *var, const char *names)
{
    const char *before = getenv(var);
    char *saved = before ? strdup(before) : NULL;
    if (names)
        assert_int_equal(setenv(var, names, 1), 0);
    else
        assert_int_equal(unsetenv(var), 0);
    return saved;
}

static void env_var_pop(const char *var, char *saved)
{
    if (saved) {
        setenv(var, saved, 1);
        free(saved);
    } else {
        unsetenv(var);
    }
}

static char *env_push(const char *names)
{
    return env_var_push("SPILLGRAPH_GPU_DISABLE", names);
}
static void env_pop(char *saved) { env_var_pop("SPILLGRAPH_GPU_DISABLE", saved); }

static void test_disable_switches(void **state)
{
    (void)state;
    static const char all[] = "first-probe,contract,unsorted-trees,bottom-up,block-queue,hub-queue,"
                              "bucket-balance,prefilter,far-window,defer-heavy,light-index,done-bits,"
                              "bf-ldg,bf-segments,vertex-cache,wide-cache,stream-first,dma-pull,wide-delta,"
                              "device-rounds,device-buckets,wider-delta,keep-index,keep-work,"
                              "dense-trees,jump-roots,first-minima,refill-pick,refill-minima,"
                              "defer-weights";
    char *saved = env_push(all);
    /* the device context reads the variable when it is made (first GPU use) */
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0), *gpu = mkrun(SG_BACKEND_GPU, 0);
    const uint64_t n = small_only ? SMALL_N : MEDIUM_N;
    char what[768];
    for (int k = 0; k < TG_NKINDS; k++)
        for (int variant = 0; variant < 4; variant++) {
            const bool directed = variant & 1, f32 = variant & 2;
            sg_graph *g = tg_make((tg_kind)k, n, 7, directed, f32);
            char desc[200];
            describe(desc, sizeof desc, (tg_kind)k, n, 7, directed, f32, g);
            snprintf(what, sizeof what, "%s, SPILLGRAPH_GPU_DISABLE=%s", desc, all);
            if (!directed) {
                mst_compare(cpu, gpu, g, what);
                /* the in-place forest without contraction: vertex rounds to the end */
                static const int half[3] = {4, 4, 4};
                sg_run *hyb = mkhybrid(SG_BACKEND_HYBRID, 0, half, nverts(g));
                mst_check(cpu, hyb, SG_BACKEND_HYBRID, g, what);
                sg_run_free(hyb);
            }
            uint32_t src[3];
            const int ns = sources_of(g, 7, src);
            for (int s = 0; s < ns; s++) {
                sssp_check(gpu, SG_BACKEND_GPU, g, src[s], SG_SSSP_DELTA, 0.0, true, what);
                sssp_check(gpu, SG_BACKEND_GPU, g, src[s], SG_SSSP_DELTA, 3.0, false, what);
                sssp_check(gpu, SG_BACKEND_GPU, g, src[s], SG_SSSP_BELLMAN_FORD, 0.0, true, what);
                if (f32) continue; /* bfs ignores weights */
                static const int ab[3][2] = {{0, 0}, {1, 1}, {1000, 1000}};
                for (int i = 0; i < 3; i++) {
                    uint64_t bu = 0;
                    bfs_check(gpu, SG_BACKEND_GPU, g, src[s], ab[i][0], ab[i][1], i != 1, what, &bu);
                    if (bu != 0)
                        fail_msg("%s: bfs from %u (alpha %d, beta %d): %llu bottom-up steps with "
                                 "bottom-up disabled",
                                 what, src[s], ab[i][0], ab[i][1], (unsigned long long)bu);
                }
            }
            sg_graph_free(g);
        }
    expect_report(gpu, true, "with the optimisations off");
    sg_run_free(cpu);
    sg_run_free(gpu);
    env_pop(saved);
}

/* ------------------------------------------------------------ the device budget */

static void test_device_budget(void **state)
{
    (void)state;
    sg_error err = {0};
    sg_gpu_info info;
    if (sg_gpu_info_get(0, &info, &err) != SG_OK) fail_msg("sg_gpu_info_get: %s", err.msg);
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);

    /* The default budget: positive, within the device. */
    sg_run *gpu = mkrun(SG_BACKEND_GPU, 0);
    sg_graph *g = tg_make(TG_RMAT, small_only ? 256 : 4096, 2, false, false);
    mst_compare(cpu, gpu, g, "rmat, default budget");
    sg_device_report rep = expect_report(gpu, true, "rmat, default budget");
    assert_true(rep.budget > 0 && rep.budget <= info.total_bytes);
    assert_int_equal(rep.index, 0);
    assert_string_equal(rep.fallback, "");
    sg_run_free(gpu);

    /* An explicit budget is the accountant's. */
    gpu = mkrun(SG_BACKEND_GPU, 256ull << 20);
    mst_compare(cpu, gpu, g, "rmat, 256 MiB budget");
    rep = expect_report(gpu, true, "rmat, 256 MiB budget");
    assert_int_equal(rep.budget, 256ull << 20);
    sg_run_free(gpu);

    /* auto with room on the device runs there (the forest in place on the
     * hybrid backend, every list on the device: test_auto_inplace). */
    sg_run *aut = mkrun(SG_BACKEND_AUTO, 0);
    assert_int_equal(sg_run_backend(aut), SG_BACKEND_GPU);
    mst_check(cpu, aut, SG_BACKEND_HYBRID, g, "rmat, auto");
    sssp_check(aut, SG_BACKEND_GPU, g, 1, SG_SSSP_AUTO, 0.0, true, "rmat, auto");
    bfs_check(aut, SG_BACKEND_GPU, g, 1, 0, 0, true, "rmat, auto", NULL);
    rep = expect_report(aut, true, "rmat, auto");
    assert_string_equal(rep.fallback, "");
    sg_run_free(aut);
    sg_graph_free(g);

    /* More than the device has: SG_E_INVALID, at creation or at the first
     * GPU use (where the budget is checked). */
    {
        const sg_run_options o = {.backend = SG_BACKEND_GPU, .threads = 2,
                                  .device_mem = info.total_bytes + (1ull << 30)};
        sg_run *big = NULL;
        sg_graph *t = tg_make(TG_RANDOM, SMALL_N, 1, false, false);
        sg_status st = sg_run_create(&o, &big, &err);
        if (st == SG_OK) {
            sg_forest *f = NULL;
            st = sg_mst(big, t, &f, &err);
            assert_null(f);
        }
        if (st != SG_E_INVALID)
            fail_msg("device_mem above the device's memory: status %d, \"%s\"", (int)st, err.msg);
        sg_run_free(big);
        sg_graph_free(t);
    }

    /* 1 MiB cannot hold a graph of ~240k directed edges (X + A alone are
     * 1.3 MB): the gpu backend refuses with SG_E_NOMEM pointing at
     * --device-mem; auto runs it on the cpu instead and says why. */
    const uint64_t MIB = 1ull << 20;
    g = tg_make(TG_RANDOM, 40000, 5, false, false);
    sg_graph_info gi;
    sg_graph_get_info(g, &gi);
    assert_true((gi.n_vertices + 1) * 8 + gi.n_edges * 4 > MIB);
    gpu = mkrun(SG_BACKEND_GPU, MIB);
    {
        sg_forest *f = NULL;
        memset(&err, 0, sizeof err);
        sg_status st = sg_mst(gpu, g, &f, &err);
        if (st != SG_E_NOMEM) fail_msg("gpu mst in 1 MiB: status %d, \"%s\"", (int)st, err.msg);
        if (!strstr(err.msg, "--device-mem"))
            fail_msg("gpu mst in 1 MiB: \"%s\" lacks \"--device-mem\"", err.msg);
        assert_null(f);
        rep = expect_report(gpu, false, "gpu mst in 1 MiB");
        if (rep.used && rep.budget != MIB)
            fail_msg("gpu run with device_mem 1 MiB: budget %llu", (unsigned long long)rep.budget);
        sg_sssp_result *r = NULL;
        const sg_sssp_options so[2] = {{.source = 1, .method = SG_SSSP_DELTA},
                                       {.source = 1, .method = SG_SSSP_BELLMAN_FORD}};
        for (int i = 0; i < 2; i++) {
            st = sg_sssp(gpu, g, &so[i], &r, &err);
            if (st != SG_E_NOMEM)
                fail_msg("gpu sssp (%s) in 1 MiB: status %d, \"%s\"",
                         sg_sssp_method_name(so[i].method), (int)st, err.msg);
            assert_null(r);
        }
        sg_bfs_result *b = NULL;
        const sg_bfs_options bo = {.source = 1, .want_parents = true};
        st = sg_bfs(gpu, g, &bo, &b, &err);
        if (st != SG_E_NOMEM) fail_msg("gpu bfs in 1 MiB: status %d, \"%s\"", (int)st, err.msg);
        assert_null(b);
        expect_report(gpu, false, "gpu sssp and bfs in 1 MiB");
        expect_backend(gpu, SG_BACKEND_GPU, "1 MiB gpu run", "the refusals");
        /* nothing stays charged: a small graph still fits */
        sg_graph *t = tg_make(TG_RANDOM, SMALL_N, 1, false, false);
        mst_compare(cpu, gpu, t, "random n 50 in 1 MiB after refusals");
        expect_report(gpu, true, "random n 50 in 1 MiB after refusals");
        sg_graph_free(t);
    }
    sg_run_free(gpu);

    /* 64 KiB holds not even the hybrid backend's working arrays: auto runs
     * every algorithm on the cpu and says why. */
    const uint64_t TINY = 64ull << 10;
    aut = mkrun(SG_BACKEND_AUTO, TINY);
    {
        sg_forest *f = NULL;
        if (sg_mst(aut, g, &f, &err) != SG_OK) fail_msg("auto mst in 1 MiB: %s", err.msg);
        expect_backend(aut, SG_BACKEND_CPU, "auto, 1 MiB", "sg_mst");
        if (sg_verify_forest(g, f, &err) != SG_OK) fail_msg("auto mst in 1 MiB: %s", err.msg);
        sg_forest_free(f);
        rep = expect_report(aut, false, "auto mst in 1 MiB");
        if (rep.fallback[0] == '\0') fail_msg("auto mst in 1 MiB ran on the cpu without a reason");
        if (rep.used && rep.budget != TINY)
            fail_msg("auto run with device_mem 64 KiB: budget %llu", (unsigned long long)rep.budget);

        sssp_check(aut, SG_BACKEND_CPU, g, 1, SG_SSSP_DELTA, 0.0, true, "auto, 1 MiB");
        sssp_check(aut, SG_BACKEND_CPU, g, 1, SG_SSSP_AUTO, 0.0, false, "auto, 1 MiB");
        bfs_check(aut, SG_BACKEND_CPU, g, 1, 0, 0, true, "auto, 1 MiB", NULL);
        rep = expect_report(aut, false, "auto sssp and bfs in 1 MiB");
        if (rep.fallback[0] == '\0') fail_msg("auto bfs in 1 MiB ran on the cpu without a reason");
        /* Bellman-Ford exists on the gpu only: refused once auto falls back */
        sg_sssp_result *r = NULL;
        const sg_sssp_options so = {.source = 1, .method = SG_SSSP_BELLMAN_FORD};
        memset(&err, 0, sizeof err);
        sg_status st = sg_sssp(aut, g, &so, &r, &err);
        if (st != SG_E_UNSUPPORTED || !strstr(err.msg, "bellman-ford"))
            fail_msg("auto bellman-ford in 1 MiB: status %d, \"%s\"", (int)st, err.msg);
        assert_null(r);
    }
    sg_run_free(aut);
    sg_graph_free(g);
    sg_run_free(cpu);
}

/* ------------------------------------------------------------ loading to the device */

static uint64_t full_upload(const sg_graph *g, bool weights)
{
    sg_graph_info info;
    sg_graph_get_info(g, &info);
    return (info.n_vertices + 1) * 8 + info.n_edges * 4 * (weights ? 2 : 1);
}

static void expect_upload(const sg_run *run, uint64_t want, const char *what)
{
    sg_device_report rep = expect_report(run, false, what);
    if (rep.upload_bytes != want)
        fail_msg("%s: %llu bytes uploaded, want %llu", what, (unsigned long long)rep.upload_bytes,
                 (unsigned long long)want);
    if (want > 0 && !(rep.upload_seconds > 0))
        fail_msg("%s: upload time %g", what, rep.upload_seconds);
}

/* mst, sssp (both methods) and bfs on g through `run`, verified. */
static void algos_verified(sg_run *run, const sg_graph *g, const char *what)
{
    sg_forest *f = NULL;
    sg_error err = {0};
    if (sg_mst(run, g, &f, &err) != SG_OK) fail_msg("%s: sg_mst: %s", what, err.msg);
    expect_backend(run, SG_BACKEND_GPU, what, "sg_mst");
    if (sg_verify_forest(g, f, &err) != SG_OK) fail_msg("%s: forest: %s", what, err.msg);
    sg_forest_free(f);
    uint32_t s = 0;
    if (sg_graph_random_source(g, 3, &s, &err) != SG_OK) fail_msg("%s: %s", what, err.msg);
    sssp_check(run, SG_BACKEND_GPU, g, s, SG_SSSP_DELTA, 0.0, true, what);
    sssp_check(run, SG_BACKEND_GPU, g, s, SG_SSSP_BELLMAN_FORD, 0.0, false, what);
    bfs_check(run, SG_BACKEND_GPU, g, s, 0, 0, true, what, NULL);
}

static void test_load_to_device(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("gpu-load");
    char path[512], path2[512];
    snprintf(path, sizeof path, "%s/g", dir);
    snprintf(path2, sizeof path2, "%s/h", dir);
    sg_rmat_options ro;
    sg_rmat_defaults(&ro);
    ro.scale = 12;
    ro.seed = 4;
    sg_error err = {0};
    if (sg_gen_rmat(path, &ro, NULL, &err) != SG_OK) fail_msg("gen rmat: %s", err.msg);
    ro.scale = 11;
    ro.seed = 5;
    if (sg_gen_rmat(path2, &ro, NULL, &err) != SG_OK) fail_msg("gen rmat: %s", err.msg);

    /* Copied to the device while loading; the algorithms reuse the copy. */
    sg_run *gpu = mkrun(SG_BACKEND_GPU, 0);
    sg_graph *g = NULL;
    if (sg_graph_open(gpu, path, NULL, &g, &err) != SG_OK) fail_msg("open on gpu: %s", err.msg);
    const uint64_t full = full_upload(g, true);
    expect_upload(gpu, full, "rmat 12 opened on a gpu run");
    {
        sg_device_report rep = expect_report(gpu, true, "rmat 12 opened on a gpu run");
        if (rep.in_use < full)
            fail_msg("rmat 12 opened on a gpu run: %llu device bytes held, the graph is %llu",
                     (unsigned long long)rep.in_use, (unsigned long long)full);
    }
    algos_verified(gpu, g, "rmat 12 loaded to the device");
    expect_upload(gpu, full, "rmat 12 after mst, sssp, bfs (no second upload)");

    /* Another graph on the same run replaces the copy, and back again;
     * a graph made after a free (perhaps at the same address) is not
     * mistaken for the freed one. */
    sg_graph *h = tg_make(TG_RMAT, 2048, 6, false, false);
    algos_verified(gpu, h, "rmat 11 (arrays) after rmat 12 on one run");
    algos_verified(gpu, g, "rmat 12 again after rmat 11");
    sg_graph_free(h);
    h = tg_make(TG_RANDOM, 2048, 6, false, false);
    algos_verified(gpu, h, "random 2048 after a freed graph");
    sg_graph_free(h);
    sg_graph *g2 = NULL;
    if (sg_graph_open(gpu, path2, NULL, &g2, &err) != SG_OK) fail_msg("open h: %s", err.msg);
    algos_verified(gpu, g2, "rmat 11 opened second on the run");
    algos_verified(gpu, g, "rmat 12 after rmat 11 was opened");
    sg_graph_free(g2);
    sg_graph_free(g);
    sg_run_free(gpu);

    /* host_only: nothing copied while loading; the first algorithm copies
     * the whole graph (mst needs the weights), later ones reuse it. */
    gpu = mkrun(SG_BACKEND_GPU, 0);
    sg_graph_options go = {.host_only = true};
    if (sg_graph_open(gpu, path, &go, &g, &err) != SG_OK) fail_msg("open host_only: %s", err.msg);
    expect_upload(gpu, 0, "rmat 12 opened host_only");
    algos_verified(gpu, g, "rmat 12 opened host_only");
    expect_upload(gpu, full, "rmat 12 host_only after mst, sssp, bfs");
    sg_graph_free(g);
    sg_run_free(gpu);

    /* Without weights: X and A only; bfs runs, mst and sssp refuse. */
    gpu = mkrun(SG_BACKEND_GPU, 0);
    go = (sg_graph_options){.no_weights = true};
    if (sg_graph_open(gpu, path, &go, &g, &err) != SG_OK) fail_msg("open no_weights: %s", err.msg);
    expect_upload(gpu, full_upload(g, false), "rmat 12 opened without weights");
    for (int parents = 0; parents < 2; parents++) {
        bfs_check(gpu, SG_BACKEND_GPU, g, 0, 0, 0, parents, "rmat 12 without weights", NULL);
        bfs_check(gpu, SG_BACKEND_GPU, g, 0, 1000, 1000, parents, "rmat 12 without weights", NULL);
    }
    sg_forest *f = NULL;
    assert_int_equal(sg_mst(gpu, g, &f, &err), SG_E_INVALID);
    if (!strstr(err.msg, "weights")) fail_msg("mst without weights: \"%s\"", err.msg);
    sg_sssp_result *r = NULL;
    const sg_sssp_options so = {.source = 0, .method = SG_SSSP_BELLMAN_FORD};
    assert_int_equal(sg_sssp(gpu, g, &so, &r, &err), SG_E_INVALID);
    assert_null(f);
    assert_null(r);
    sg_graph_free(g);
    sg_run_free(gpu);

    /* Pinned host arrays. */
    gpu = mkrun(SG_BACKEND_GPU, 0);
    go = (sg_graph_options){.mem = SG_MEM_PINNED};
    if (sg_graph_open(gpu, path, &go, &g, &err) != SG_OK) fail_msg("open pinned: %s", err.msg);
    sg_graph_info gi;
    sg_graph_get_info(g, &gi);
    assert_int_equal(gi.mem, SG_MEM_PINNED);
    expect_upload(gpu, full, "rmat 12 opened pinned");
    algos_verified(gpu, g, "rmat 12 in pinned memory");
    sg_graph_free(g);
    sg_run_free(gpu);

    tu_rm_rf(dir);
    free(dir);
}


/* ------------------------------------------------------------ the hybrid backend */

/* After a hybrid call: a plan is reported with the forced splits (when
 * forced), within the budget, and the peak stayed within the budget. */
static sg_plan expect_plan(const sg_run *run, const int *eighths, uint64_t n, bool weights,
                           const char *what)
{
    sg_plan pl;
    double measured = -1;
    if (!sg_run_plan(run, &pl, &measured)) fail_msg("%s: no plan reported", what);
    if (!(measured >= 0)) fail_msg("%s: measured time %g", what, measured);
    for (int k = 0; k < (weights ? 3 : 2); k++) {
        if (eighths && pl.split[k] != (uint64_t)eighths[k] * n / 8)
            fail_msg("%s: split %d is %llu, forced %llu", what, k,
                     (unsigned long long)pl.split[k], (unsigned long long)eighths[k] * n / 8);
        if (pl.split[k] > n) fail_msg("%s: split %d past n", what, k);
    }
    expect_report(run, true, what);
    return pl;
}

/* Every split from all on the device to all on the host, X, A and W split
 * differently, on every family: distances and levels equal the oracles'. */
/* The BFS just run on `run`, with A's split at eighths[1] / 8 of the
 * vertices: every entry it examined was read from host memory when A is all
 * there, none when A is all on the device. */
static void expect_bfs_host_bytes(const sg_run *run, const int *eighths, const char *what)
{
    uint64_t hb = 0, ex = 0;
    assert_true(tu_counter(run, "host_list_bytes", &hb) && tu_counter(run, "edges_examined", &ex));
    const uint64_t want = eighths[1] == 0 ? 4 * ex : 0;
    if ((eighths[1] == 0 || eighths[1] == 8) && hb != want)
        fail_msg("%s: bfs host_list_bytes %llu, want %llu (%llu entries examined)", what,
                 (unsigned long long)hb, (unsigned long long)want, (unsigned long long)ex);
}

/* The SSSP just run on `run` (splits eighths[k] / 8): with A and W all on
 * the device nothing is read from host memory; with both all on the host
 * Bellman-Ford's edge list build reads A twice and the kept entries'
 * weights, and the rounds of delta-stepping read both arrays of every entry
 * they scan, exactly so without a light index (whose own lists are on the
 * device) and without streamed settle chunks: a chunk of pinned lists
 * crosses whole (counter settle_streamed_bytes), with the lists of
 * vertices its pass did not scan, so those add at most their bytes. */
static void expect_sssp_host_bytes(const sg_run *run, const int *eighths, const sg_graph *g,
                                   const char *what)
{
    uint64_t hb = 0, pre = 0, buckets = 0, scanned = 0, light = 0, edges = 0;
    assert_true(tu_counter(run, "host_list_bytes", &hb) &&
                tu_counter(run, "preprocess_host_bytes", &pre) && tu_counter(run, "buckets", &buckets));
    const uint64_t m = sg_graph_offsets(g)[nverts(g)];
    if (eighths[1] == 8 && eighths[2] == 8) {
        if (hb != 0) fail_msg("%s: sssp host_list_bytes %llu on the device", what,
                              (unsigned long long)hb);
        return;
    }
    if (eighths[1] != 0 || eighths[2] != 0) return;
    if (buckets == 0) { /* Bellman-Ford */
        assert_true(tu_counter(run, "edge_list", &edges));
        const uint64_t want = 4 * (m + (edges ? m : 0) + edges); /* the scatter when it ran */
        if (hb != want || pre != hb)
            fail_msg("%s: Bellman-Ford host_list_bytes %llu (preprocess %llu), want %llu", what,
                     (unsigned long long)hb, (unsigned long long)pre, (unsigned long long)want);
        return;
    }
    uint64_t streamed = 0;
    assert_true(tu_counter(run, "edges_scanned", &scanned) &&
                tu_counter(run, "light_edges", &light) &&
                tu_counter(run, "settle_streamed_bytes", &streamed));
    const uint64_t rounds = hb - pre;
    if ((light == 0 && rounds < 8 * scanned) || rounds > 8 * scanned + streamed)
        fail_msg("%s: sssp rounds read %llu host bytes for %llu entries scanned (light index "
                 "%llu, %llu bytes in streamed chunks)",
                 what, (unsigned long long)rounds, (unsigned long long)scanned,
                 (unsigned long long)light, (unsigned long long)streamed);
}

static void test_hybrid_splits(void **state)
{
    (void)state;
    static const int fr[][3] = {{8, 8, 8}, {0, 0, 0}, {8, 0, 0}, {0, 8, 8}, {8, 8, 0},
                                {8, 0, 8}, {3, 5, 1}, {5, 1, 7}, {4, 4, 4}, {1, 7, 2}};
    const int nfr = (int)(sizeof fr / sizeof fr[0]);
    char what[300];
    uint64_t ordered = 0;
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    for (int k = 0; k < TG_NKINDS; k++)
        for (int si = 0; si < n_sizes(); si++)
            for (int directed = 0; directed < 2; directed++)
                for (int f32 = 0; f32 < 2; f32++) {
                    sg_graph *g = tg_make((tg_kind)k, size_at(si), 1, directed, f32);
                    const uint64_t n = nverts(g);
                    uint32_t src[3];
                    const int ns = sources_of(g, 1, src);
                    for (int i = 0; i < nfr; i++) {
                        char base[200];
                        describe(base, sizeof base, (tg_kind)k, size_at(si), 1, directed, f32, g);
                        snprintf(what, sizeof what, "%s, hybrid split %d/8 %d/8 %d/8", base,
                                 fr[i][0], fr[i][1], fr[i][2]);
                        sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, fr[i], n);
                        const uint32_t s = src[i % ns];
                        const bool parents = i % 2;
                        sssp_check(run, SG_BACKEND_HYBRID, g, s, SG_SSSP_DELTA, 0.0, parents, what);
                        expect_plan(run, fr[i], n, true, what);
                        expect_sssp_host_bytes(run, fr[i], g, what);
                        sssp_check(run, SG_BACKEND_HYBRID, g, s, SG_SSSP_DELTA, 3.0, !parents, what);
                        expect_sssp_host_bytes(run, fr[i], g, what);
                        if (i < 3) {
                            sssp_check(run, SG_BACKEND_HYBRID, g, s, SG_SSSP_BELLMAN_FORD, 0.0,
                                       false, what);
                            expect_sssp_host_bytes(run, fr[i], g, what);
                        }
                        bfs_check(run, SG_BACKEND_HYBRID, g, s, 0, 0, parents, what, NULL);
                        expect_plan(run, fr[i], n, false, what);
                        expect_bfs_host_bytes(run, fr[i], what);
                        uint64_t ord = 0;
                        assert_true(tu_counter(run, "ordered_steps", &ord));
                        if (ord > 0 && (directed || fr[i][1] == 8))
                            fail_msg("%s: %llu top-down frontiers put in id order without host "
                                     "lists or bottom-up steps",
                                     what, (unsigned long long)ord);
                        ordered += ord;
                        if (!directed) {
                            mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
                            expect_plan(run, fr[i], n, true, what);
                        }
                        sg_run_free(run);
                    }
                    sg_graph_free(g);
                }
    /* large top-down frontiers over host lists (pinned or registered
     * memory, as these graphs' are) go in id order (bfs.cu); with
     * "frontier-order" off in claim order, the levels the same */
    if (!small_only && ordered == 0) fail_msg("no BFS frontier was put in id order");
    {
        static const int host[3] = {8, 0, 0};
        char *saved = env_push("frontier-order");
        sg_graph *g = tg_make(TG_RMAT, size_at(n_sizes() - 1), 1, false, false);
        sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, host, nverts(g));
        bfs_check(run, SG_BACKEND_HYBRID, g, 0, 0, 0, true, "frontier-order off", NULL);
        uint64_t ord = 0;
        assert_true(tu_counter(run, "ordered_steps", &ord));
        assert_int_equal(ord, 0);
        sg_run_free(run);
        sg_graph_free(g);
        env_pop(saved);
    }
    sg_run_free(cpu);
}

/* BFS over pinned host lists (kernels/bfs.cu, "bfs-gather"): a large
 * top-down frontier's host lists are gathered by the host threads into
 * chunks (of m / 64 entries at most on these graphs, so that a step takes
 * several and both buffers turn), copied to the device and read there,
 * after the frontier's device lists; the levels and parents pass the
 * oracle with A wholly or partly on the host, with the gather's prefetch
 * off, and with the gather off. */
static void test_hybrid_bfs_gather(void **state)
{
    (void)state;
    static const int fr[][3] = {{8, 0, 0}, {8, 4, 8}, {2, 2, 2}};
    const tg_kind kinds[] = {TG_SSCA2, TG_RMAT, TG_RANDOM, TG_GRID};
    uint64_t gathered = 0, chunks = 0, partial = 0, side = 0;
    char what[300];
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        sg_graph *g = tg_make(kinds[k], MEDIUM_N, 1, false, false);
        const uint64_t n = nverts(g);
        for (int i = 0; i < 3; i++)
            for (int mode = 0; mode < 4; mode++) {
                static const char *const disabled[4] = {NULL, "gather-prefetch", "gather-side",
                                                        "bfs-gather"};
                const bool off = mode == 3, side_off = mode >= 2;
                char base[200];
                describe(base, sizeof base, kinds[k], MEDIUM_N, 1, false, false, g);
                snprintf(what, sizeof what, "%s, hybrid split %d/8 %d/8 %d/8, %s off", base,
                         fr[i][0], fr[i][1], fr[i][2], disabled[mode] ? disabled[mode] : "nothing");
                char *saved = env_push(disabled[mode]);
                sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, fr[i], n);
                bfs_check(run, SG_BACKEND_HYBRID, g, 0, 0, 0, i != 1, what, NULL);
                uint64_t ord = 0, gat = 0, ch = 0, gb = 0, hb = 0, sv = 0;
                assert_true(tu_counter(run, "ordered_steps", &ord) &&
                            tu_counter(run, "gathered_steps", &gat) &&
                            tu_counter(run, "gathered_chunks", &ch) &&
                            tu_counter(run, "gathered_bytes", &gb) &&
                            tu_counter(run, "host_list_bytes", &hb) &&
                            tu_counter(run, "gather_side_vertices", &sv));
                if ((side_off || !gat) && sv)
                    fail_msg("%s: %llu vertices in side shares of %llu gathered steps", what,
                             (unsigned long long)sv, (unsigned long long)gat);
                if ((off && gat) || gat > ord || ch < gat || gb > hb)
                    fail_msg("%s: %llu gathered steps of %llu ordered, %llu chunks, %llu of %llu "
                             "host list bytes gathered", what, (unsigned long long)gat,
                             (unsigned long long)ord, (unsigned long long)ch,
                             (unsigned long long)gb, (unsigned long long)hb);
                if (!off) {
                    gathered += gat;
                    chunks += ch;
                    partial += fr[i][1] > 0 && gat > 0;
                    side += sv;
                }
                sg_run_free(run);
                env_pop(saved);
            }
        sg_graph_free(g);
    }
    if (gathered == 0 || chunks <= gathered || partial == 0 || side == 0)
        fail_msg("%llu BFS steps gathered their host lists in %llu chunks (%llu runs with part of "
                 "A on the device, %llu vertices in the GPU's side shares): the chunks were not "
                 "exercised", (unsigned long long)gathered, (unsigned long long)chunks,
                 (unsigned long long)partial, (unsigned long long)side);
}

/* The in-place forest's vertex cache (kernels/mst.cu): the K lightest
 * leaving entries of each list, refilled from the list only when all are
 * inside their tree and could still beat the tree's minimum. Four slots by
 * default, with the contraction and without it (vertex rounds to the end);
 * one slot ("wide-cache" off, no contraction), so that caches run dry and
 * are refilled often; none ("vertex-cache" off: every round reads every
 * live list). The contraction comes once its bound on the leaving entries
 * is at most m / 16 (kernels/mst.cu, CONTRACT_DIV), so it gathers at most
 * m / 32 + 1 edges: after some rounds, not as soon as it fits. These
 * graphs have room for it after the first round, where it comes with that
 * gate off ("contract-gate", a test mode for the edge rounds after a
 * gather of many edges): there some run contracts; with "contract" off
 * none does. (With the gate these graphs are done before the bound is that
 * low: test_inplace_contract_gate has graphs where it comes.) The first
 * round's CPU share with the cache, its split moving to
 * where the GPU's and the CPU's claims meet (by default; with the pieces
 * read in place, "stream-first" off) or fixed at the plan's owner split
 * ("dynamic-split" off), its long lists taken in blocks or, with
 * "topk-filter" off, entry by entry, its top-K in AVX-512 (where the CPU
 * has it, lists of 17-64 entries two neighbours together or, "topk-pairs"
 * off, one at a time) or scalar ("topk-simd" off), its lists prefetched or
 * not ("topk-prefetch" off), in chunks of at most 16 entries, many to a share
 * ("share-chunks" off), and without it ("cpu-share" off); beside it the
 * GPU's pieces are copied on the context's copy stream in small pieces, or
 * ("dma-queue" off) on a stream of their own. The GPU's streamed pieces
 * are W whole and A for the tiles that span lists, a tile of one list
 * reading A in place at its candidates alone (by default: the hubs of
 * "star" and "hub-last" give such tiles with every list streamed,
 * "cpu-share" off), or A and W whole ("weights-first" off: no such tile).
 * The first round's device prefix is walked weights-first too (its hubs'
 * tiles of one list read A at their candidates), or every entry
 * ("prefix-first" off, or "weights-first").
 * The walks issue each lane's reads of a tile together, or entry by entry
 * ("walk-batch" off, with refills: the contraction off). The fills that
 * are not weights-first (the first round's without hubs, and the refills)
 * keep each list's K lightest by rank, a list its tile holds whole stored
 * without atomics (by default: surely on the hub-free families and the
 * refills; never without the cache), or offer every entry through
 * warp-wide exchanges ("fill-rank" off, also with refills).
 * Exact forests on every family at three splits, the counters saying which
 * ran (the CPU threads fill caches only from host-resident lists: none with
 * every list on the device; the first round reads every entry once, on one
 * side or the other), and without the contraction some list refilled after
 * the first round. */
static void test_hybrid_forest_cache(void **state)
{
    (void)state;
    static const int fr[][3] = {{8, 8, 8}, {0, 0, 0}, {4, 4, 4}};
    static const char *const modes[] = {NULL,
                                        "contract",
                                        "wide-cache,contract",
                                        "vertex-cache",
                                        "cpu-share",
                                        "cpu-share,dma-pull",
                                        "cpu-share,stream-first",
                                        "dynamic-split",
                                        "stream-first",
                                        "topk-filter",
                                        "topk-simd",
                                        "topk-prefetch",
                                        "walk-batch,contract",
                                        "dma-queue",
                                        "weights-first",
                                        "cpu-share,weights-first",
                                        "share-packed",
                                        "share-sparse",
                                        "prefix-first",
                                        "fill-rank",
                                        "fill-rank,contract",
                                        "share-chunks",
                                        "topk-pairs",
                                        "share-chunks,dynamic-split",
                                        "slots48",
                                        "contract-gate"};
    enum { NMODES = sizeof modes / sizeof modes[0] };
    static const uint64_t slots_want[NMODES] = {4, 4, 1, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4,
                                                4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};
    static const bool refills_want[NMODES] = {false, true, true, false, false, false, false,
                                              false, false, false, false, false, true, false,
                                              false, false, false, false, false, false, true,
                                              false, false, false, false, false};
    static const bool cpu_want[NMODES] = {true, true, true, false, false, false, false,
                                          true, true, true, true, true, true, true,
                                          true, false, true, true, true, true, true,
                                          true, true, true, true, true};
    /* the GPU's host-resident first-round entries go through the streamed
     * pieces (DMA, or the copy kernel with dma-pull disabled) */
    static const bool stream_want[NMODES] = {false, false, false, false, true, true, false,
                                             false, false, false, false, false, false, false,
                                             false, true, false, false, false, false, false,
                                             false, false, false, false, false};
    static const bool stream_may[NMODES] = {true, true, true, false, true, true, false,
                                            true, false, true, true, true, true, true,
                                            true, true, true, true, true, true, true,
                                            true, true, true, true, true};
    /* tiles of one list with A read at their candidates: surely with every
     * list streamed by the GPU (on the medium graphs' hubs), never with
     * "weights-first" off */
    static const bool sparse_want[NMODES] = {false, false, false, false, true, true, false,
                                             false, false, false, false, false, false, false,
                                             false, false, false, false, false, false, false,
                                             false, false, false, false, false};
    static const bool sparse_may[NMODES] = {true, true, true, false, true, true, false,
                                            true, false, true, true, true, true, true,
                                            false, false, true, true, true, true, true,
                                            true, true, true, true, true};
    /* the same in the device prefix: surely by default (the medium hubs on
     * the device at splits 8/8 and 4/8), never without the cache, with
     * "weights-first" or "prefix-first" off */
    static const bool prefix_may[NMODES] = {true, true, true, false, true, true, true,
                                            true, true, true, true, true, true, true,
                                            false, false, true, true, false, true, true,
                                            true, true, true, true, true};
    /* the CPU threads take long lists in blocks (the top-K's filter) unless
     * "topk-filter" is disabled: surely with the plan's fixed split, which
     * gives them the last vertex, the hub of "hub-last" (on the medium
     * graphs: 50 entries are too few for blocks) */
    static const bool blocks_may[NMODES] = {true, true, true, false, false, false, false,
                                            true, true, false, true, true, true, true,
                                            true, false, true, true, true, true, true,
                                            true, true, true, true, true};
    static const bool blocks_want[NMODES] = {false, false, false, false, false, false, false,
                                             true, false, false, false, false, false, false,
                                             false, false, false, false, false, false, false,
                                             false, false, true, false, false};
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    char what[300];
    for (int mi = 0; mi < NMODES; mi++) {
        char *saved = env_push(modes[mi]);
        /* the CPU threads' chunks go packed (each list with entries as K
         * slots and its vertex, and a table of 8 bytes a piece, 16 pieces
         * of 2 threads): the first one, and a later one where the chunk
         * before had at most 3 lists in 4 vertices; every one with
         * "share-sparse" disabled; none with "share-packed" disabled (every
         * vertex's slots, empty lists' too) */
        const bool packed = !modes[mi] || !strstr(modes[mi], "share-packed");
        const bool all_packed = modes[mi] && strstr(modes[mi], "share-sparse");
        const bool rank_off = modes[mi] && strstr(modes[mi], "fill-rank");
        uint64_t rank_total = 0;
        uint64_t chunks_total = 0, packed_total = 0, chunks_most = 0;
        uint64_t later_refills = 0, cpu_total = 0, pieces_total = 0, long_total = 0;
        uint64_t sparse_total = 0, prefix_total = 0, contract_total = 0;
        const bool contract_on = !modes[mi] || !strstr(modes[mi], "contract") ||
                                 strstr(modes[mi], "contract-gate");
        const bool gate_on = !modes[mi] || !strstr(modes[mi], "contract-gate");
        for (int k = 0; k < TG_NKINDS; k++)
            for (int si = 0; si < n_sizes(); si++)
                for (int f32 = 0; f32 < 2; f32++) {
                    sg_graph *g = tg_make((tg_kind)k, size_at(si), 3, false, f32);
                    const uint64_t n = nverts(g), *x = sg_graph_offsets(g);
                    uint64_t with_edges = 0;
                    for (uint64_t v = 0; v < n; v++) with_edges += x[v + 1] > x[v];
                    for (int i = 0; i < 3; i++) {
                        char base[200];
                        describe(base, sizeof base, (tg_kind)k, size_at(si), 3, false, f32, g);
                        snprintf(what, sizeof what, "%s, hybrid split %d/8 %d/8 %d/8, disabled: %s",
                                 base, fr[i][0], fr[i][1], fr[i][2],
                                 modes[mi] ? modes[mi] : "none");
                        sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, fr[i], n);
                        mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
                        uint64_t slots = 0, refilled = 0, iters = 0, cpu_lists = 0, pieces = 0,
                                 streamed = 0, hostb = 0, cpu_ent = 0, gpu_ent = 0, longs = 0,
                                 sparse = 0, loops = 0, sent = 0, chunks = 0, packs = 0,
                                 psparse = 0, ploops = 0, rtiles = 0, c48 = 0,
                                 contracted = 0, cedges = 0;
                        if (!tu_counter(run, "cache_slots", &slots) ||
                            !tu_counter(run, "cpu_long_lists", &longs) ||
                            !tu_counter(run, "lists_refilled", &refilled) ||
                            !tu_counter(run, "iterations", &iters) ||
                            !tu_counter(run, "cpu_lists", &cpu_lists) ||
                            !tu_counter(run, "cpu_entries_read", &cpu_ent) ||
                            !tu_counter(run, "gpu_first_entries", &gpu_ent) ||
                            !tu_counter(run, "streamed_pieces", &pieces) ||
                            !tu_counter(run, "streamed_bytes", &streamed) ||
                            !tu_counter(run, "host_list_bytes", &hostb) ||
                            !tu_counter(run, "first_sparse_tiles", &sparse) ||
                            !tu_counter(run, "first_loop_tiles", &loops) ||
                            !tu_counter(run, "cpu_upload_bytes", &sent) ||
                            !tu_counter(run, "cpu_chunks", &chunks) ||
                            !tu_counter(run, "cpu_chunks_packed", &packs) ||
                            !tu_counter(run, "cpu_chunks_s48", &c48) ||
                            !tu_counter(run, "prefix_sparse_tiles", &psparse) ||
                            !tu_counter(run, "prefix_loop_tiles", &ploops) ||
                            !tu_counter(run, "rank_fill_tiles", &rtiles) ||
                            !tu_counter(run, "contractions", &contracted) ||
                            !tu_counter(run, "contracted_edges", &cedges))
                            fail_msg("%s: no cache_slots / lists_refilled / iterations / "
                                     "cpu_lists / first-round / streamed counters",
                                     what);
                        /* the first round reads every entry once, on the GPU or
                         * on the CPU (wherever the split settled) */
                        if (iters > 0 && gpu_ent + cpu_ent != x[n])
                            fail_msg("%s: the first round read %llu entries on the GPU and "
                                     "%llu on the CPU, of %llu",
                                     what, (unsigned long long)gpu_ent,
                                     (unsigned long long)cpu_ent, (unsigned long long)x[n]);
                        /* nothing to stream with every list on the device, without
                         * the cache or with streaming disabled; what the first round
                         * streams is host bytes read (streamed_bytes also holds the
                         * contraction's gathers' pieces of A, gather_streamed_bytes) */
                        uint64_t gstreamed = 0;
                        if (!tu_counter(run, "gather_streamed_bytes", &gstreamed)) gstreamed = 0;
                        if (gstreamed > streamed || gstreamed % 4 != 0)
                            fail_msg("%s: %llu bytes streamed, %llu of them by the gathers",
                                     what, (unsigned long long)streamed,
                                     (unsigned long long)gstreamed);
                        const uint64_t fstreamed = streamed - gstreamed;
                        if (pieces > 0 && (i == 0 || slots == 0 || !stream_may[mi]))
                            fail_msg("%s: %llu pieces streamed", what, (unsigned long long)pieces);
                        if ((pieces > 0) != (fstreamed > 0) || fstreamed > hostb)
                            fail_msg("%s: %llu pieces, %llu bytes streamed in the first round "
                                     "(%llu by the gathers), %llu host bytes",
                                     what, (unsigned long long)pieces,
                                     (unsigned long long)fstreamed, (unsigned long long)gstreamed,
                                     (unsigned long long)hostb);
                        pieces_total += pieces;
                        if ((sparse > 0 && (pieces == 0 || !sparse_may[mi])) || loops > sparse)
                            fail_msg("%s: %llu one-list tiles read at their candidates (%llu "
                                     "whole), %llu pieces streamed",
                                     what, (unsigned long long)sparse, (unsigned long long)loops,
                                     (unsigned long long)pieces);
                        sparse_total += sparse;
                        /* the device prefix's: none with every list on the host */
                        if ((psparse > 0 && (i == 1 || slots == 0 || !prefix_may[mi])) ||
                            ploops > psparse)
                            fail_msg("%s: %llu one-list tiles of the device prefix read at their "
                                     "candidates (%llu whole)",
                                     what, (unsigned long long)psparse,
                                     (unsigned long long)ploops);
                        prefix_total += psparse;
                        /* fills by rank: never with "fill-rank" off or without the
                         * cache */
                        if (rtiles > 0 && (rank_off || slots == 0))
                            fail_msg("%s: %llu tiles filled by rank", what,
                                     (unsigned long long)rtiles);
                        rank_total += rtiles;
                        /* the CPU threads take only host-resident lists */
                        if (cpu_lists > 0 && (!cpu_want[mi] || i == 0 || cpu_lists > with_edges))
                            fail_msg("%s: the CPU threads filled %llu lists (%llu have edges)",
                                     what, (unsigned long long)cpu_lists,
                                     (unsigned long long)with_edges);
                        cpu_total += cpu_lists;
                        /* the slots of every vertex go in 6 bytes with u32
                         * weights (these graphs' fit beside their ids)
                         * unless "slots48" is disabled, records in 8: every
                         * chunk that is not packed, or none */
                        const bool s48 = !f32 && !(modes[mi] && strstr(modes[mi], "slots48"));
                        if (c48 != (s48 ? chunks - packs : 0))
                            fail_msg("%s: %llu of %llu chunks (%llu packed) in 6-byte slots",
                                     what, (unsigned long long)c48, (unsigned long long)chunks,
                                     (unsigned long long)packs);
                        /* bytes a slot: the checks below hold the chunks
                         * all of a kind (all packed, or none) */
                        const uint64_t sb = s48 && !all_packed && !packed ? 6 : 8;
                        const uint64_t rec = sb * slots + (all_packed ? 4 : 0);
                        const uint64_t tbl = all_packed ? 128 : slots > 0 ? sb * slots : 1;
                        const bool chunks_ok = all_packed ? packs == chunks
                                               : packed   ? packs <= chunks && (chunks > 0) == (packs > 0)
                                                          : packs == 0;
                        if (sent < cpu_lists * (s48 ? 6 : 8) * slots || !chunks_ok ||
                            (packed && (cpu_lists > 0) != (chunks > 0)) ||
                            ((all_packed || !packed) &&
                             (sent < cpu_lists * rec || (sent - cpu_lists * rec) % tbl != 0 ||
                              (all_packed && (sent - cpu_lists * rec) / tbl != chunks))))
                            fail_msg("%s: the CPU threads sent %llu bytes for %llu lists in %llu "
                                     "chunks, %llu packed (%llu slots)",
                                     what, (unsigned long long)sent,
                                     (unsigned long long)cpu_lists, (unsigned long long)chunks,
                                     (unsigned long long)packs, (unsigned long long)slots);
                        chunks_total += chunks;
                        if (chunks > chunks_most) chunks_most = chunks;
                        packed_total += packs;
                        if (longs > cpu_lists || (longs > 0 && !blocks_may[mi]))
                            fail_msg("%s: %llu of the CPU's %llu lists taken in blocks", what,
                                     (unsigned long long)longs, (unsigned long long)cpu_lists);
                        long_total += longs;
                        if (iters > 0 && slots != slots_want[mi])
                            fail_msg("%s: %llu cache slots, want %llu", what,
                                     (unsigned long long)slots,
                                     (unsigned long long)slots_want[mi]);
                        if (slots == 0 && refilled != 0)
                            fail_msg("%s: %llu lists refilled without a cache", what,
                                     (unsigned long long)refilled);
                        if (slots > 0 && iters > 0 && refilled < with_edges)
                            fail_msg("%s: %llu lists filled, but %llu vertices have edges", what,
                                     (unsigned long long)refilled,
                                     (unsigned long long)with_edges);
                        if (slots > 0 && iters > 0) later_refills += refilled - with_edges;
                        /* the contraction: only with its bound at m / 16 or
                         * less, never with "contract" disabled */
                        if ((gate_on && cedges > x[n] / 32 + 1) || (cedges > 0 && !contracted) ||
                            (contracted > 0 && !contract_on))
                            fail_msg("%s: %llu contractions of %llu edges (%llu entries)", what,
                                     (unsigned long long)contracted,
                                     (unsigned long long)cedges, (unsigned long long)x[n]);
                        contract_total += contracted;
                        sg_run_free(run);
                    }
                    sg_graph_free(g);
                }
        if (refills_want[mi] && later_refills == 0)
            fail_msg("disabled: %s: no list was refilled after the first round", modes[mi]);
        if (!gate_on && contract_total == 0)
            fail_msg("disabled: %s: no run contracted", modes[mi] ? modes[mi] : "none");
        if (cpu_want[mi] && cpu_total == 0)
            fail_msg("disabled: %s: the CPU threads filled no cache", modes[mi] ? modes[mi] : "none");
        /* by default both kinds of chunk occur (graphs with lists everywhere
         * and graphs with many empty ones; the small graphs' shares are one
         * chunk each) */
        if (packed && !all_packed && !small_only && cpu_total > 0 &&
            (packed_total == 0 || packed_total == chunks_total))
            fail_msg("disabled: %s: %llu of the CPU threads' %llu chunks packed",
                     modes[mi] ? modes[mi] : "none", (unsigned long long)packed_total,
                     (unsigned long long)chunks_total);
        /* with "share-chunks" off the CPU threads' shares come in chunks of
         * at most 16 entries, so that both staging buffers are taken in turn
         * and each reused: with the plan's fixed split surely more than four
         * in some share. (With the dynamic split the count is a race the
         * GPU side often wins on these small graphs: two at most in some
         * runs, three or more in others.) */
        if (modes[mi] && strstr(modes[mi], "share-chunks") &&
            strstr(modes[mi], "dynamic-split") && chunks_most < 5)
            fail_msg("disabled: %s: at most %llu chunks in a CPU share", modes[mi],
                     (unsigned long long)chunks_most);
        if (stream_want[mi] && pieces_total == 0)
            fail_msg("disabled: %s: no first-round piece was streamed", modes[mi]);
        if (sparse_want[mi] && !small_only && sparse_total == 0) /* hubs of 2,999 entries */
            fail_msg("disabled: %s: no streamed tile of one list read A at its candidates",
                     modes[mi]);
        if (!modes[mi] && !small_only && prefix_total == 0) /* hubs of 2,999 entries */
            fail_msg("disabled: none: no tile of one list in the device prefix read A at its "
                     "candidates");
        if (!rank_off && slots_want[mi] > 0 && rank_total == 0)
            fail_msg("disabled: %s: no tile filled by rank", modes[mi] ? modes[mi] : "none");
        if (blocks_want[mi] && !small_only && long_total == 0) /* hubs of 2,999 entries */
            fail_msg("disabled: %s: the CPU threads took no list in blocks",
                     modes[mi] ? modes[mi] : "none");
        env_pop(saved);
    }
    sg_run_free(cpu);
}

/* The CPU threads' slots in 6 bytes (kernels/cpu_topk.h, slot48) on a graph
 * whose weights do not all fit: 2^17 + 5 vertices (18 id bits, weight keys
 * up to 2^30 - 2). The top 8 vertices form a ring of light weights (16
 * entries: the threads' first chunk, at most 16 entries with
 * "share-chunks" off); every edge of the 3,000 vertices below them weighs
 * 2^31 or more; the rest are random lists (ties, duplicates with another
 * weight, self-loops) with one edge in ~100 as heavy. The threads take
 * chunks from the top down: the first goes in 6 bytes, the next (heavy
 * slots) is taken again in 8, and so is the rest. The forest is the
 * oracle's in every split, with the dynamic split and the plan's fixed one,
 * in both kinds of chunk (records, in 6 bytes with SPILLGRAPH_GPU_ENABLE=
 * slots48-records, and every vertex's slots with "share-packed" off), the
 * slots stored plainly and, with the dynamic split, streamed ("slots-
 * stream"); for each kind some run sent chunks both ways. */
static void test_hybrid_slots48_fallback(void **state)
{
    (void)state;
    enum { N = (1 << 17) + 5, TOP = 8, LOW = N - TOP, ZONE = LOW - 3000 };
    const uint64_t cap = 4 * (uint64_t)N;
    uint32_t *u = malloc(cap * sizeof *u), *v = malloc(cap * sizeof *v), *w = malloc(cap * sizeof *w);
    assert_true(u && v && w);
    uint64_t ne = 0, heavy = 0;
    for (uint32_t a = 0; a < LOW; a++)
        for (uint32_t k = 0; k < 3; k++) {
            const uint32_t b = (uint32_t)(((uint64_t)a * 7919u + k * 104729u + 1) % LOW);
            const bool hv = a >= ZONE || b >= ZONE || (a + b) % 101 == 0;
            u[ne] = a, v[ne] = b, w[ne] = hv ? 0x80000000u + a % 1000 : 1 + (a ^ b) % 1000;
            heavy += hv && a != b;
            ne++;
            if ((a + k) % 50 == 0 && !hv) /* repeated, another weight */
                u[ne] = b, v[ne] = a, w[ne] = 1 + (a + 7) % 1000, ne++;
        }
    for (uint32_t a = LOW; a < N; a++) /* the top: a ring, 2 entries a vertex */
        u[ne] = a, v[ne] = LOW + (a - LOW + 1) % TOP, w[ne] = 1 + a % 5, ne++;
    for (uint32_t a = 0; a < LOW; a += 7) u[ne] = a, v[ne] = a, w[ne] = 3, ne++; /* self-loops */
    assert_true(ne <= cap && heavy > 9000);
    sg_graph *g = tg_from_edges(N, ne, u, v, w, false, false);
    free(u), free(v), free(w);
    static const int splits[][3] = {{0, 0, 0}, {4, 4, 4}, {2, 6, 2}};
    static const char *const modes[] = {"share-chunks", "share-chunks,dynamic-split",
                                        "share-chunks,share-packed",
                                        "share-chunks,dynamic-split,share-packed"};
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    bool both[2] = {false, false}; /* records, every vertex's slots */
    char seen[2][400] = {"", ""};
    for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
        char *saved = env_push(modes[mi]);
        const int dense = strstr(modes[mi], "share-packed") != NULL;
        /* records in 6 bytes too (the first chunk goes packed); with the
         * dynamic split the slots streamed (slots-stream), in 6 bytes and 8 */
        static const char *const enable[2][2] = {{NULL, "slots-stream"},
                                                 {"slots48-records",
                                                  "slots48-records,slots-stream"}};
        const int streamed = strstr(modes[mi], "dynamic-split") != NULL;
        const char *const en = enable[!dense][streamed];
        char *on = env_var_push("SPILLGRAPH_GPU_ENABLE", en);
        for (size_t si = 0; si < sizeof splits / sizeof splits[0]; si++) {
            sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, splits[si], N);
            char what[200];
            snprintf(what, sizeof what,
                     "heavy weights past 6-byte slots, split %d/8 %d/8 %d/8, disabled: %s, "
                     "enabled: %s",
                     splits[si][0], splits[si][1], splits[si][2], modes[mi], en ? en : "none");
            mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
            uint64_t chunks = 0, c48 = 0, packs = 0;
            if (!tu_counter(run, "cpu_chunks", &chunks) ||
                !tu_counter(run, "cpu_chunks_s48", &c48) ||
                !tu_counter(run, "cpu_chunks_packed", &packs))
                fail_msg("%s: no cpu_chunks / cpu_chunks_s48 counter", what);
            /* the first chunk in 6 bytes, none after a heavy one */
            if (c48 > 1 || (chunks > 0 && c48 != 1) || (dense && packs > 0))
                fail_msg("%s: %llu chunks, %llu in 6-byte slots, %llu packed", what,
                         (unsigned long long)chunks, (unsigned long long)c48,
                         (unsigned long long)packs);
            both[dense] |= c48 == 1 && chunks > 1;
            const size_t at = strlen(seen[dense]);
            snprintf(seen[dense] + at, sizeof seen[dense] - at, " %llu of %llu;",
                     (unsigned long long)c48, (unsigned long long)chunks);
            sg_run_free(run);
        }
        env_var_pop("SPILLGRAPH_GPU_ENABLE", on);
        env_pop(saved);
    }
    for (int d = 0; d < 2; d++)
        if (!both[d])
            fail_msg("%s: no run sent chunks in 6-byte slots and then in 8 (in 6 bytes:%s)",
                     d ? "every vertex's slots" : "records", seen[d]);
    sg_run_free(cpu);
    sg_graph_free(g);
}

/* The forest's cache filled by rank (kernels/mst.cu, k_hfill: graphs
 * without hubs) on lists of every kind a warp tile of 256 entries meets:
 * long lists (up to ~800 entries) that fill tiles of one list, lists cut by
 * a tile's ends (offered through atomics) or held whole by it (stored in
 * their slots), and short lists, more than 32 to a tile (each lane walks
 * them). Two dense components over [0, 700) and [700, 1400) (weights in
 * 1..4: ties; some edges repeated, with the same weight or another; light
 * self-loops), paths of three vertices over [1400, 2600), isolated vertices
 * [2600, 3000). Splits from every list on the device to every list on the
 * host, X, A and W split differently; with the CPU threads and without
 * ("cpu-share" off); refills with the contraction off, the later rounds'
 * second pick taking the refilled vertices alone, or every vertex
 * ("refill-pick" off), and their minima merging the refilled vertices'
 * candidates into the minima before, or taken again over every vertex
 * ("refill-minima" off). The forest is the oracle's, tiles are filled by
 * rank, and none with "fill-rank" off; whole picks are skipped, and
 * minima merged, in some later round, and never with those off. */
static void test_hybrid_fill_rank(void **state)
{
    (void)state;
    enum { N = 3000, HALF = 700, DENSE = 2 * HALF, TAIL = 2600 };
    const uint64_t cap = 400000;
    uint32_t *u = malloc(cap * sizeof *u), *v = malloc(cap * sizeof *v), *w = malloc(cap * sizeof *w);
    assert_non_null(u), assert_non_null(v), assert_non_null(w);
    static const int splits[][3] = {{8, 8, 8}, {0, 0, 0}, {4, 4, 4}, {6, 3, 1}};
    static const char *const modes[] = {NULL,
                                        "cpu-share",
                                        "contract",
                                        "cpu-share,contract",
                                        "fill-rank",
                                        "contract,refill-pick",
                                        "contract,refill-minima"};
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    for (int f32 = 0; f32 < 2; f32++) {
        uint64_t ne = 0;
        for (uint32_t a = 0; a < DENSE; a++) {
            const uint32_t base = a < HALF ? 0 : HALF, la = a - base;
            const uint32_t deg = 50 + la * 37 % 450;
            for (uint32_t d = 1; d <= deg && ne + 3 <= cap; d++) {
                const uint32_t b = base + (la + d) % HALF;
                const uint32_t wi = 1 + (a * 7919u + b * 104729u) % 4;
                u[ne] = a, v[ne] = b, w[ne] = f32 ? tg_f32_bits((float)wi * 0.5f) : wi, ne++;
                if (d % 53 == 0) { /* repeated, the same weight or one heavier */
                    const uint32_t wd = wi + (d % 2);
                    u[ne] = b, v[ne] = a, w[ne] = f32 ? tg_f32_bits((float)wd * 0.5f) : wd, ne++;
                }
            }
            if (a % 9 == 0 && ne < cap) /* a self-loop lighter than any edge */
                u[ne] = a, v[ne] = a, w[ne] = f32 ? tg_f32_bits(0.25f) : 0, ne++;
        }
        for (uint32_t a = DENSE; a + 2 < TAIL; a += 3) /* paths of three vertices */
            for (uint32_t k = 0; k < 2; k++)
                u[ne] = a + k, v[ne] = a + k + 1, w[ne] = f32 ? tg_f32_bits(1.5f) : 3, ne++;
        assert_true(ne <= cap);
        sg_graph *g = tg_from_edges(N, ne, u, v, w, false, f32);
        for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
            char *saved = env_push(modes[mi]);
            const char *md = modes[mi] ? modes[mi] : "";
            /* later rounds pick the refilled vertices alone (or skip the
             * pick when none was refilled) unless "refill-pick" is off */
            const bool repick_all = strstr(md, "refill-pick") != NULL;
            /* and merge their candidates into the minima before, unless
             * "refill-minima" (or "refill-pick") is off */
            const bool reduce_all = repick_all || strstr(md, "refill-minima");
            uint64_t tiles_total = 0, skipped_total = 0, merged_total = 0;
            for (size_t si = 0; si < sizeof splits / sizeof splits[0]; si++) {
                sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, splits[si], N);
                char what[200];
                snprintf(what, sizeof what,
                         "dense components, paths and isolated vertices, %s weights, split "
                         "%d/8 %d/8 %d/8, disabled: %s",
                         f32 ? "f32" : "u32", splits[si][0], splits[si][1], splits[si][2],
                         modes[mi] ? modes[mi] : "none");
                mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
                uint64_t tiles = 0, slots = 0;
                if (!tu_counter(run, "rank_fill_tiles", &tiles) ||
                    !tu_counter(run, "cache_slots", &slots))
                    fail_msg("%s: no rank_fill_tiles / cache_slots counter", what);
                if (slots == 0 || (modes[mi] && strstr(modes[mi], "fill-rank") && tiles > 0))
                    fail_msg("%s: %llu cache slots, %llu tiles filled by rank", what,
                             (unsigned long long)slots, (unsigned long long)tiles);
                tiles_total += tiles;
                uint64_t skipped = 0, merged = 0;
                if (!tu_counter(run, "picks_skipped", &skipped) ||
                    !tu_counter(run, "minima_refilled", &merged))
                    fail_msg("%s: no picks_skipped / minima_refilled counter", what);
                if ((repick_all && skipped > 0) || (reduce_all && merged > 0) || merged > skipped)
                    fail_msg("%s: %llu picks skipped, %llu minima merged", what,
                             (unsigned long long)skipped, (unsigned long long)merged);
                skipped_total += skipped;
                merged_total += merged;
                sg_run_free(run);
            }
            /* without the contraction there are later rounds */
            if (strstr(md, "contract") && !repick_all && skipped_total == 0)
                fail_msg("%s weights, disabled: %s: no later round skipped a whole pick",
                         f32 ? "f32" : "u32", md);
            if (strstr(md, "contract") && !reduce_all && merged_total == 0)
                fail_msg("%s weights, disabled: %s: no later round merged its refilled minima",
                         f32 ? "f32" : "u32", md);
            if (!(modes[mi] && strstr(modes[mi], "fill-rank")) && tiles_total == 0)
                fail_msg("%s weights, disabled: %s: no tile filled by rank", f32 ? "f32" : "u32",
                         modes[mi] ? modes[mi] : "none");
            env_pop(saved);
        }
        sg_graph_free(g);
    }
    sg_run_free(cpu);
    free(u), free(v), free(w);
}

/* The streamed first round's weights-first tiles (kernels/mst.cu,
 * k_hfirst) when self-loops are among the lightest entries: vertex 0 joined
 * to every other vertex (weights 2..8, ties), with self-loops of weight 1
 * in the first half of its list and none in the second. Every list on the
 * host, the GPU alone streaming them ("cpu-share" off), or every list on
 * the device (the first round's device prefix, walked in place): the tiles
 * with a self-loop candidate read A whole, the others at their candidates,
 * and the forest is the oracle's; with the walk's register cap and without
 * ("first-occupancy" off). */
static void test_hybrid_first_loops(void **state)
{
    (void)state;
    enum { N = 3000, LOOPS = 12 };
    uint32_t u[N + LOOPS], v[N + LOOPS], w[N + LOOPS];
    /* every list on the host (streamed), or on the device (its prefix) */
    const int none[3] = {0, 0, 0}, all[3] = {8, 8, 8};
    /* the walk in 80 registers (the default) and in 96 */
    static const char *const modes[] = {"cpu-share", "cpu-share,first-occupancy"};
    for (int mf = 0; mf < 8; mf++) {
        const int f32 = mf & 1;
        const bool on_device = (mf >> 1) & 1;
        const char *mode = modes[mf >> 2];
        uint64_t ne = 0;
        for (uint64_t i = 1; i < N; i++) {
            if (i % 128 == 0 && i < N / 2 && ne < N + LOOPS - 1) { /* a self-loop, lightest */
                u[ne] = 0, v[ne] = 0, w[ne] = f32 ? tg_f32_bits(1.0f) : 1, ne++;
            }
            const uint32_t wi = 2 + (uint32_t)(i * 7919 % 7);
            u[ne] = 0, v[ne] = (uint32_t)i, w[ne] = f32 ? tg_f32_bits((float)wi + 0.25f) : wi;
            ne++;
        }
        sg_graph *g = tg_from_edges(N, ne, u, v, w, false, f32);
        char *saved = env_push(mode);
        sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
        sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, on_device ? all : none, N);
        char what[160];
        snprintf(what, sizeof what,
                 "a star with light self-loops, %s weights, lists on the %s, disabled: %s",
                 f32 ? "f32" : "u32", on_device ? "device" : "host", mode);
        mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
        uint64_t sparse = 0, loops = 0, pieces = 0, psparse = 0, ploops = 0;
        if (!tu_counter(run, "first_sparse_tiles", &sparse) ||
            !tu_counter(run, "first_loop_tiles", &loops) ||
            !tu_counter(run, "streamed_pieces", &pieces) ||
            !tu_counter(run, "prefix_sparse_tiles", &psparse) ||
            !tu_counter(run, "prefix_loop_tiles", &ploops))
            fail_msg("%s: no first-round tile counters", what);
        /* the tiles of one list, and of them those read whole, where the
         * lists are: streamed pieces from the host, the prefix on the device */
        const uint64_t ts = on_device ? psparse : sparse, tl = on_device ? ploops : loops;
        const uint64_t os = on_device ? sparse : psparse;
        if ((pieces == 0) != on_device || tl == 0 || ts <= tl || os != 0)
            fail_msg("%s: %llu pieces streamed, %llu one-list tiles, %llu read whole (%llu "
                     "elsewhere)",
                     what, (unsigned long long)pieces, (unsigned long long)ts,
                     (unsigned long long)tl, (unsigned long long)os);
        env_pop(saved);
        sg_run_free(run);
        sg_run_free(cpu);
        sg_graph_free(g);
    }
}

/* The first round's minima and choices in one pass (kernels/mst.cu,
 * k_first_minima): where each vertex with a list is a tree of its own and
 * the trees are just those (dense tree ids, or every vertex has a list),
 * a tree's minimum is its vertex's first cache slot. Every test graph
 * (ties, self-loops, repeated edges, isolated vertices, several
 * components, hubs), u32 weights in id order and f32 weights in weight
 * order, lists on the device, on the host and split three ways: the forest
 * is Kruskal's with the pass, with "first-minima" disabled (pick and
 * reduce), and with "dense-trees" disabled (the pass then only where every
 * vertex has a list); counter first_minima_fused says which ran. */
static void test_hybrid_first_minima(void **state)
{
    (void)state;
    static const int fr[][3] = {{8, 8, 8}, {0, 0, 0}, {3, 5, 1}};
    static const char *const modes[] = {NULL, "first-minima", "dense-trees"};
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    char what[300];
    uint64_t fused_runs[3] = {0, 0, 0};
    for (int mi = 0; mi < 3; mi++) {
        char *saved = env_push(modes[mi]);
        for (int k = 0; k < TG_NKINDS; k++)
            for (int si = 0; si < n_sizes(); si++)
                for (int f32 = 0; f32 < 2; f32++) {
                    sg_graph *g = tg_make((tg_kind)k, size_at(si), 11, false, f32);
                    sg_error err = {0};
                    if (f32 && sg_graph_sort_by_weight(g, 2, &err) != SG_OK)
                        fail_msg("%s", err.msg);
                    const uint64_t n = nverts(g), *x = sg_graph_offsets(g);
                    uint64_t listed = 0;
                    for (uint64_t v = 0; v < n; v++) listed += x[v + 1] > x[v];
                    char base[200];
                    describe(base, sizeof base, (tg_kind)k, size_at(si), 11, false, f32, g);
                    for (int i = 0; i < 3; i++) {
                        snprintf(what, sizeof what,
                                 "%s%s, hybrid split %d/8 %d/8 %d/8, disabled: %s", base,
                                 f32 ? ", lists by weight" : "", fr[i][0], fr[i][1], fr[i][2],
                                 modes[mi] ? modes[mi] : "none");
                        sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, fr[i], n);
                        mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
                        uint64_t fused = 0, slots = 0, iters = 0, dense = 0;
                        if (!tu_counter(run, "first_minima_fused", &fused) ||
                            !tu_counter(run, "cache_slots", &slots) ||
                            !tu_counter(run, "iterations", &iters) ||
                            !tu_counter(run, "dense_trees", &dense))
                            fail_msg("%s: no first_minima_fused / cache_slots / iterations / "
                                     "dense_trees counters",
                                     what);
                        const bool want = mi != 1 && slots > 0 && iters > 0 &&
                                          (dense == 1 || listed == n);
                        if (fused != (want ? 1u : 0u) || (mi == 2 && dense != 0))
                            fail_msg("%s: first_minima_fused %llu, want %d (cache slots %llu, "
                                     "rounds %llu, dense ids %llu, %llu of %llu vertices "
                                     "with a list)",
                                     what, (unsigned long long)fused, want,
                                     (unsigned long long)slots, (unsigned long long)iters,
                                     (unsigned long long)dense, (unsigned long long)listed,
                                     (unsigned long long)n);
                        fused_runs[mi] += fused;
                        sg_run_free(run);
                    }
                    sg_graph_free(g);
                }
        env_pop(saved);
    }
    /* by default the pass runs, and with dense ids off on the graphs where
     * every vertex has a list (grids, paths, SSCA2) */
    if (fused_runs[0] == 0 || fused_runs[2] == 0 || fused_runs[2] >= fused_runs[0])
        fail_msg("runs with the first round's minima in one pass: %llu by default, %llu with "
                 "dense-trees disabled",
                 (unsigned long long)fused_runs[0], (unsigned long long)fused_runs[2]);
    sg_run_free(cpu);
}

/* The counters names[0..k) of run into out, failing where one is missing. */
static void need_counters(const sg_run *run, const char *what, const char *const *names,
                          uint64_t *out, int k)
{
    for (int i = 0; i < k; i++)
        if (!tu_counter(run, names[i], &out[i])) fail_msg("%s: no counter %s", what, names[i]);
}

/* The in-place forest's contraction (kernels/mst.cu) comes once its bound
 * on the leaving entries is at most m / 16 and they fit. On SSCA2 graphs
 * of 2^14 to 2^17 vertices and an R-MAT graph of 2^14, with every list on
 * the device, half of them, or none, it gathers at most m / 32 + 1 edges
 * (on the SSCA2 graphs it never comes: the bound falls that low only in
 * their last rounds, as on SSCA2 22 and 26, where it comes a round or two
 * before the end); with the gate off ("contract-gate", the contraction as
 * soon as it fits) it gathers more than that in some run, and the gather
 * and the edge rounds run (here and in test_hybrid_forest_cache). With
 * the diagnostic "gather-probe" enabled the run's rounds (and with every
 * list on the device its refills) are those without it, and it counts
 * the leaving edges after every round but the first and the last, never
 * more than the round before. With "spec-contract" enabled (the
 * contraction tried once the trees are few, into the room free beside the
 * vertex cache) some SSCA2 run contracts so, and a graph with hubs never
 * tries; with "spec-tiny" too (room for one edge) some gather overflows
 * and the run goes on in vertex rounds. The same with "spec-host" (the
 * list written into the caller's forest arrays in host memory), with and
 * without "gather-stream" (the host part of A copied in pieces): the
 * streamed probe counts what the probe in place counted, and with the gate
 * off the contraction gathers the same edges with "gather-stream"
 * disabled (counter gather_streamed_bytes 0) and by default, which copies
 * pieces where its lists hold half of A's host part (in some run where A
 * has a host part). Kruskal's forest every time. */
static void test_inplace_contract_gate(void **state)
{
    (void)state;
    static const int fr[][3] = {{8, 8, 8}, {4, 4, 4}, {0, 0, 0}};
    static const uint64_t sizes[] = {1u << 14, 1u << 16, 1u << 17};
    enum { NMODE = 10 };
    static const char *const mode_names[NMODE] = {
        "gated", "contract-gate and gather-stream disabled", "gated, gather-probe enabled",
        "gated, spec-contract enabled", "gated, spec-contract and spec-tiny enabled",
        "gated, gather-probe and gather-stream enabled",
        "gated, spec-contract and spec-host enabled",
        "gated, spec-contract, spec-host and gather-stream enabled",
        "contract-gate disabled (gather-stream default)",
        "gated, spec-contract, spec-host, spec-tiny and gather-stream enabled"};
    static const char *const enable[NMODE] = {NULL,
                                              NULL,
                                              "gather-probe",
                                              "spec-contract",
                                              "spec-contract,spec-tiny",
                                              "gather-probe,gather-stream",
                                              "spec-contract,spec-host",
                                              "spec-contract,spec-host,gather-stream",
                                              NULL,
                                              "spec-contract,spec-host,spec-tiny,gather-stream"};
    /* the modes with speculative gathers, and those that overflow */
    static const bool spec_mode[NMODE] = {0, 0, 0, 1, 1, 0, 1, 1, 0, 1};
    static const bool tiny_mode[NMODE] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    uint64_t over = 0, probed = 0, spec_done[NMODE] = {0}, spec_failed[NMODE] = {0};
    uint64_t streamed_more = 0;
    char what[300];
    for (size_t si = 0; si < (small_only ? 3u : 4u); si++) {
        /* SSCA2 graphs, and one R-MAT graph (hubs: never speculative) */
        const tg_kind kind = si == 0 ? TG_RMAT : TG_SSCA2;
        const uint64_t size = si == 0 ? sizes[0] : sizes[si - 1];
        sg_graph *g = tg_make(kind, size, 11, false, false);
        const uint64_t n = nverts(g), m = sg_graph_offsets(g)[n];
        sg_graph_info gi;
        sg_graph_get_info(g, &gi);
        const bool hubs = (double)gi.max_degree >= 16.0 * (double)m / (double)n;
        for (int i = 0; i < 3; i++) {
            uint64_t plain[2] = {0, 0}; /* the gated run's iterations and lists refilled */
            uint64_t probes[14] = {0};  /* the probe's counts (mode 2), by round */
            uint64_t ungated = 0;       /* mode 1's contracted edges */
            for (int mode = 0; mode < NMODE; mode++) {
                const bool gate = mode != 1 && mode != 8;
                char base[200];
                describe(base, sizeof base, kind, size, 11, false, false, g);
                snprintf(what, sizeof what, "%s, hybrid split %d/8, %s", base, fr[i][0],
                         mode_names[mode]);
                char *saved = env_push(mode == 1   ? "contract-gate,gather-stream"
                                       : mode == 8 ? "contract-gate"
                                                   : NULL);
                char *on = env_var_push("SPILLGRAPH_GPU_ENABLE", enable[mode]);
                sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, fr[i], n);
                mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
                static const char *const names[8] = {
                    "contractions", "contracted_edges", "iterations",     "lists_refilled",
                    "spec_gathers", "spec_gathers_failed", "spec_gather_us",
                    "gather_streamed_bytes"};
                uint64_t cv[8];
                need_counters(run, what, names, cv, 8);
                const uint64_t contracted = cv[0], cedges = cv[1], iters = cv[2], refilled = cv[3];
                const uint64_t tries = cv[4], fails = cv[5], streamed = cv[7];
                /* gated, speculative or not: at most m / 32 + 1 edges */
                if (gate && cedges > m / 32 + 1)
                    fail_msg("%s: %llu edges contracted, over m / 32 + 1 (m %llu)", what,
                             (unsigned long long)cedges, (unsigned long long)m);
                if (!gate) over += cedges > m / 32 + 1;
                /* speculative gathers only where enabled, never with hubs;
                 * one that every edge fitted is the contraction */
                if (fails > tries || ((!spec_mode[mode] || hubs) && tries > 0) ||
                    (tries > fails && !contracted))
                    fail_msg("%s: %llu speculative gathers, %llu failed, %llu contractions",
                             what, (unsigned long long)tries, (unsigned long long)fails,
                             (unsigned long long)contracted);
                spec_done[mode] += tries > fails;
                spec_failed[mode] += fails;
                if (mode == 0) plain[0] = iters, plain[1] = refilled;
                /* no gather's pieces with gather-stream disabled */
                if (streamed > 0 && mode == 1)
                    fail_msg("%s: %llu bytes of gather pieces copied", what,
                             (unsigned long long)streamed);
                if (mode == 1) ungated = cedges;
                if (mode == 8) {
                    /* the same contraction, its lists copied in pieces
                     * where A has a host part (splits 4/8 and 0/8) */
                    if (cedges != ungated)
                        fail_msg("%s: %llu edges contracted, %llu with the lists read in place",
                                 what, (unsigned long long)cedges, (unsigned long long)ungated);
                    streamed_more += contracted && i > 0 && streamed > 0;
                }
                if (mode == 2 || mode == 5) {
                    /* the probe changes nothing of the run (its rounds;
                     * its refills where no CPU share fills the caches), and
                     * finds the leaving edges of each round between the
                     * first and the last (up to a contraction, which adds
                     * rounds; fewer or as many after each) */
                    if (iters != plain[0] || (i == 0 && refilled != plain[1]))
                        fail_msg("%s: %llu rounds, %llu lists refilled; without the probe "
                                 "%llu, %llu", what, (unsigned long long)iters,
                                 (unsigned long long)refilled, (unsigned long long)plain[0],
                                 (unsigned long long)plain[1]);
                    uint64_t before = UINT64_MAX;
                    for (uint64_t r = 2; r <= 13; r++) {
                        char name[40];
                        snprintf(name, sizeof name, "gather_probe_r%llu_edges",
                                 (unsigned long long)r);
                        uint64_t e = 0;
                        const bool has = tu_counter(run, name, &e);
                        if ((!contracted && has != (r < iters)) || (has && e > before))
                            fail_msg("%s: %s %s (%llu rounds; %llu the round before)", what,
                                     name, has ? "present" : "absent", (unsigned long long)iters,
                                     (unsigned long long)before);
                        /* the streamed probe finds what the one in place found */
                        if (mode == 5 && e != probes[r])
                            fail_msg("%s: %s %llu, in place %llu", what, name,
                                     (unsigned long long)e, (unsigned long long)probes[r]);
                        if (mode == 2) probes[r] = has ? e : 0;
                        if (has) before = e, probed++;
                    }
                }
                env_var_pop("SPILLGRAPH_GPU_ENABLE", on);
                env_pop(saved);
                sg_run_free(run);
            }
        }
        sg_graph_free(g);
    }
    if (over == 0) fail_msg("ssca2: no run with the gate off gathered more than m / 32 + 1 edges");
    if (probed == 0) fail_msg("ssca2: no round probed");
    for (int mode = 0; mode < NMODE; mode++) {
        if (spec_mode[mode] && !tiny_mode[mode] && spec_done[mode] == 0)
            fail_msg("ssca2, %s: no speculative contraction", mode_names[mode]);
        if (tiny_mode[mode] && spec_failed[mode] == 0)
            fail_msg("ssca2, %s: no speculative gather overflowed its room of one edge",
                     mode_names[mode]);
    }
    if (streamed_more == 0) fail_msg("no contraction's lists copied in pieces (gate off)");
    sg_run_free(cpu);
}

/* A temporary directory (tag in its name) holding an R-MAT (or SSCA2)
 * store of the given scale and seed at `path` (dir/g); returns the
 * directory, for tu_rm_rf and free. */
static char *gen_store(const char *tag, bool ssca2, unsigned scale, uint64_t seed, char *path,
                       size_t len)
{
    char *dir = tu_tmpdir(tag);
    snprintf(path, len, "%s/g", dir);
    sg_error err = {0};
    sg_status st;
    if (ssca2) {
        sg_ssca2_options so;
        sg_ssca2_defaults(&so);
        so.scale = scale;
        so.seed = seed;
        st = sg_gen_ssca2(path, &so, NULL, &err);
    } else {
        sg_rmat_options ro;
        sg_rmat_defaults(&ro);
        ro.scale = scale;
        ro.seed = seed;
        st = sg_gen_rmat(path, &ro, NULL, &err);
    }
    if (st != SG_OK) fail_msg("gen %s: %s", ssca2 ? "ssca2" : "rmat", err.msg);
    return dir;
}

static char *rmat_store(const char *tag, unsigned scale, uint64_t seed, char *path, size_t len)
{
    return gen_store(tag, false, scale, seed, path, len);
}

/* The speculative contraction by default (kernels/mst.cu): an SSCA2 store
 * of 2^20 vertices (forest arrays of 4 MB, which the load's helper pins:
 * result_pinned 3) opened with SG_PREPARE_FOREST into a hybrid run whose
 * A and W are all on the host, pinned and managed memory: the forest
 * contracts speculatively (spec_gathers > spec_gathers_failed, edges
 * contracted), its gather's lists copied in pieces (gather_streamed_bytes)
 * unless "gather-stream" is disabled, the host threads filling in the
 * weights of its streamed pieces' edges (gather_deferred_edges) unless
 * "defer-weights" is disabled, or with the experiment "gather-cpu"
 * enabled taking pieces of it instead (gather_cpu_pieces, _edges,
 * _entries: the trees' copy prepared and pinned, forest_trees_pinned 1);
 * with "spec-contract" disabled, or
 * without the prepared arrays (not pinned), it never tries; the run's
 * plan models it where it may come (forest_spec). Kruskal's forest every
 * time. With a budget of 512 MiB, automatic host memory is
 * managed, and pinned for a load with sg_graph_options.forest. */
static void test_spec_prepared(void **state)
{
    (void)state;
    char path[512];
    char *dir = gen_store("gpu-spec", true, 20, 5, path, sizeof path);
    sg_error err = {0};
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    static const int all_host[3] = {8, 0, 0};
    for (int forest = 0; forest < 2; forest++) {
        sg_run *run = mkhybrid(SG_BACKEND_HYBRID, (uint64_t)512 << 20, NULL, 0);
        const sg_graph_options go = {.mem = SG_MEM_AUTO, .forest = forest != 0};
        sg_graph *g = NULL;
        if (sg_graph_open(run, path, &go, &g, &err) != SG_OK)
            fail_msg("automatic memory%s: open: %s", forest ? ", for the forest" : "", err.msg);
        sg_graph_info gi;
        sg_graph_get_info(g, &gi);
        if (gi.mem != (forest ? SG_MEM_PINNED : SG_MEM_MANAGED))
            fail_msg("automatic memory%s at a budget of 512 MiB: kind %d", forest ? ", for the "
                     "forest" : "", (int)gi.mem);
        sg_graph_free(g);
        sg_run_free(run);
    }
    static const char *const off[6] = {NULL,   "gather-stream", "spec-contract",
                                       NULL,   "defer-weights", NULL};
    static const sg_mem_kind kinds[2] = {SG_MEM_PINNED, SG_MEM_MANAGED};
    char what[200];
    for (int ki = 0; ki < 2; ki++)
        for (int mode = 0; mode < 6; mode++) {
            snprintf(what, sizeof what, "ssca2 2^20, %s memory, %s, disabled: %s%s",
                     ki ? "managed" : "pinned", mode == 3 ? "not prepared" : "prepared",
                     off[mode] ? off[mode] : "none", mode == 5 ? ", enabled: gather-cpu" : "");
            char *saved = env_push(off[mode]);
            char *on = env_var_push("SPILLGRAPH_GPU_ENABLE", mode == 5 ? "gather-cpu" : NULL);
            sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, all_host, 1u << 20);
            const sg_graph_options go = {.mem = kinds[ki],
                                         .prepare = mode == 3 ? SG_PREPARE_NONE
                                                              : SG_PREPARE_FOREST};
            sg_graph *g = NULL;
            if (sg_graph_open(run, path, &go, &g, &err) != SG_OK)
                fail_msg("%s: open: %s", what, err.msg);
            uint64_t pinned = 0, tpinned = 0;
            if (mode != 3 &&
                (!tu_counter(run, "result_pinned", &pinned) || pinned != 3 ||
                 !tu_counter(run, "forest_trees_pinned", &tpinned) || tpinned != (mode == 5)))
                fail_msg("%s: %llu forest arrays pinned, want 3; the trees' %llu, want %d", what,
                         (unsigned long long)pinned, (unsigned long long)tpinned, mode == 5);
            mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
            static const char *const names[13] = {
                "spec_gathers",       "spec_gathers_failed", "contracted_edges",
                "gather_streamed_bytes", "gather_cpu_pieces", "gather_cpu_edges",
                "gather_cpu_entries", "cpu_entries_read",    "gather_deferred_edges",
                "gather_gpu_us",      "gather_defer_us",     "gather_defer_wait_us",
                "gather_defer_tail_us"};
            uint64_t cv[13];
            need_counters(run, what, names, cv, 13);
            /* the streamed gather's timings: the GPU side's wall time, and
             * the host threads' waits for pieces and time past the GPU side
             * within theirs */
            if ((cv[3] > 0 && cv[9] == 0) || cv[11] > cv[10] || cv[12] > cv[10] ||
                (cv[8] == 0 && (cv[11] > 0 || cv[12] > 0)))
                fail_msg("%s: the gather's GPU side %llu us, the host threads' %llu us, of "
                         "which %llu waiting and %llu past the GPU side",
                         what, (unsigned long long)cv[9], (unsigned long long)cv[10],
                         (unsigned long long)cv[11], (unsigned long long)cv[12]);
            /* the host threads' part of the streamed gather (the test needs
             * a CPU share): the deferred weights by default, the pieces of
             * the experiment where the run prepared the trees' copy */
            if ((mode == 0 || mode == 5) && cv[7] == 0)
                fail_msg("%s: no CPU share in the first round (the test needs one)", what);
            const bool cpu_gather = mode == 5, deferred = mode == 0;
            if ((cv[4] > 0) != cpu_gather || (cpu_gather && (cv[5] == 0 || cv[6] == 0)) ||
                (cv[8] > 0) != deferred)
                fail_msg("%s: %llu CPU pieces of the gather, %llu edges, %llu entries; %llu "
                         "edges' weights deferred",
                         what, (unsigned long long)cv[4], (unsigned long long)cv[5],
                         (unsigned long long)cv[6], (unsigned long long)cv[8]);
            const bool want = mode < 2 || mode >= 4;
            /* the run's plan models what it ran (src/plan.c, FOREST_SPEC_*) */
            sg_plan pl;
            if (!sg_run_plan(run, &pl, NULL) || pl.forest_spec != (mode != 2 && mode != 3))
                fail_msg("%s: the plan's forest_spec %d", what, (int)pl.forest_spec);
            if ((cv[0] > cv[1]) != want || (want && cv[2] == 0) ||
                (cv[3] > 0) != (mode == 0 || mode >= 4))
                fail_msg("%s: %llu speculative gathers, %llu failed, %llu edges contracted, "
                         "%llu bytes of gather pieces",
                         what, (unsigned long long)cv[0], (unsigned long long)cv[1],
                         (unsigned long long)cv[2], (unsigned long long)cv[3]);
            sg_graph_free(g);
            sg_run_free(run);
            env_var_pop("SPILLGRAPH_GPU_ENABLE", on);
            env_pop(saved);
        }
    sg_run_free(cpu);
    tu_rm_rf(dir);
    free(dir);
}

/* auto's forest on a graph that fits (src/gpu_engine.c, auto_inplace): the
 * hybrid backend's in-place forest with every array on the device (its
 * plan's splits at n, nothing read from host memory, the peak within the
 * budget), except over lists in weight order (sorted here), where the GPU
 * forest has no sort to do, and with SPILLGRAPH_GPU_DISABLE=auto-inplace
 * (the in-core GPU forest); the same run's SSSP stays in core. Exact
 * forests (Kruskal's) every time, u32 and f32 weights. */
static void test_auto_inplace(void **state)
{
    (void)state;
    static const tg_kind kinds[] = {TG_RMAT, TG_SSCA2, TG_DUP_LOOPS, TG_COMPONENTS};
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    char what[240];
    for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++)
        for (int si = 0; si < n_sizes(); si++)
            for (int f32 = 0; f32 < 2; f32++)
                for (int cfg = 0; cfg < 3; cfg++) { /* disabled, default, lists by weight */
                    sg_graph *g = tg_make(kinds[ki], size_at(si), 7, false, f32);
                    sg_error err = {0};
                    if (cfg == 2 && sg_graph_sort_by_weight(g, 2, &err) != SG_OK)
                        fail_msg("%s", err.msg);
                    const uint64_t n = nverts(g);
                    char base[200];
                    describe(base, sizeof base, kinds[ki], size_at(si), 7, false, f32, g);
                    snprintf(what, sizeof what, "%s, auto, %s", base,
                             cfg == 0   ? "auto-inplace disabled"
                             : cfg == 1 ? "default"
                                        : "lists by weight");
                    char *off = env_var_push("SPILLGRAPH_GPU_DISABLE", cfg ? NULL : "auto-inplace");
                    sg_run *run = mkrun(SG_BACKEND_AUTO, 0); /* (the device's free memory) */
                    const bool inplace = cfg == 1 && n > 0;
                    mst_check(cpu, run, inplace ? SG_BACKEND_HYBRID : SG_BACKEND_GPU, g, what);
                    if (inplace) {
                        const sg_plan pl = expect_plan(run, NULL, n, true, what);
                        if (pl.split[0] != n || pl.split[1] != n || pl.split[2] != n)
                            fail_msg("%s: splits %llu %llu %llu, want all on the device", what,
                                     (unsigned long long)pl.split[0],
                                     (unsigned long long)pl.split[1],
                                     (unsigned long long)pl.split[2]);
                        uint64_t hostb = 0;
                        if (!tu_counter(run, "host_list_bytes", &hostb) || hostb != 0)
                            fail_msg("%s: %llu bytes of lists read from host memory", what,
                                     (unsigned long long)hostb);
                    } else if (sg_run_plan(run, NULL, NULL)) {
                        fail_msg("%s: a plan for an in-core forest", what);
                    }
                    sg_device_report rep;
                    sg_run_device_report(run, &rep);
                    if (rep.peak_bytes > rep.budget)
                        fail_msg("%s: peak %llu over the budget %llu", what,
                                 (unsigned long long)rep.peak_bytes,
                                 (unsigned long long)rep.budget);
                    if (n > 0)
                        sssp_check(run, SG_BACKEND_GPU, g, 0, SG_SSSP_DELTA, 0.0, false, what);
                    env_var_pop("SPILLGRAPH_GPU_DISABLE", off);
                    sg_run_free(run);
                    sg_graph_free(g);
                }
    sg_run_free(cpu);
}

/* The forest's rounds are bounded (kernels/mst.cu, round_guard): with
 * "merge" disabled (a test mode: no round merges a tree) the in-core GPU
 * forest, its edge rounds ("merge,vertex-cache": contracted at once) and
 * the hybrid one (lists on the device, on the host, split) stop with
 * SG_E_DEVICE at round sgi_boruvka_round_limit(n) + 1, instead of running
 * without end; a fresh run without it gives Kruskal's forest in at most
 * bits(n) + 2 rounds (mst_check). R-MAT (hubs), SSCA2 and a path, u32 and
 * f32 weights. */
static void test_forest_round_guard(void **state)
{
    (void)state;
    enum { N = 3000 };
    static const int splits[][3] = {{8, 8, 8}, {0, 0, 0}, {4, 4, 4}};
    static const tg_kind kinds[] = {TG_RMAT, TG_SSCA2, TG_PATH};
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++)
        for (int f32 = 0; f32 < 2; f32++) {
            sg_graph *g = tg_make(kinds[ki], N, 1, false, f32);
            const uint64_t n = nverts(g);
            for (int cfg = 0; cfg < 5; cfg++) {
                const bool hybrid = cfg >= 2;
                const char *mode = cfg == 1 ? "merge,vertex-cache" : "merge";
                char what[160];
                snprintf(what, sizeof what, "%s, %s weights, %s%s, disabled: %s",
                         tg_name(kinds[ki]), f32 ? "f32" : "u32", hybrid ? "hybrid split " : "gpu",
                         hybrid ? (cfg == 2 ? "all device" : cfg == 3 ? "all host" : "half")
                                : "",
                         mode);
                char *saved = env_push(mode);
                sg_run *run = hybrid ? mkhybrid(SG_BACKEND_HYBRID, 0, splits[cfg - 2], n)
                                     : mkrun(SG_BACKEND_GPU, 0);
                sg_forest *f = NULL;
                sg_error err = {0};
                const sg_status st = sg_mst(run, g, &f, &err);
                unsigned long long round = 0;
                if (st != SG_E_DEVICE || sscanf(err.msg, "GPU forest: round %llu", &round) != 1 ||
                    round != sgi_boruvka_round_limit(n) + 1)
                    fail_msg("%s: status %d, \"%s\" (want the round past %llu)", what, (int)st,
                             err.msg, (unsigned long long)sgi_boruvka_round_limit(n));
                if (f != NULL) fail_msg("%s: a forest returned with the error", what);
                env_pop(saved);
                sg_run_free(run);
                run = hybrid ? mkhybrid(SG_BACKEND_HYBRID, 0, splits[cfg - 2], n)
                             : mkrun(SG_BACKEND_GPU, 0);
                mst_check(cpu, run, hybrid ? SG_BACKEND_HYBRID : SG_BACKEND_GPU, g, what);
                sg_run_free(run);
            }
            sg_graph_free(g);
        }
    sg_run_free(cpu);
}

/* g (u32 weights) as a store at path, its lists made strictly increasing
 * (of repeated neighbours the lightest kept; self-loops kept) and each
 * weight w as w << 14 | (37 w & 0x3fff): below 2^24 with bits in all
 * three low bytes, ties kept as ties. */
static void narrow_store(const sg_graph *g, const char *path)
{
    const uint64_t n = nverts(g), *x = sg_graph_offsets(g), m = x[n];
    const uint32_t *a = sg_graph_neighbors(g), *w = sg_graph_weights(g);
    uint64_t *xo = malloc((n + 1) * 8), *k = malloc((m + 1) * 8);
    uint32_t *ao = malloc((m + 1) * 4), *wo = malloc((m + 1) * 4);
    assert_true(xo && k && ao && wo);
    xo[0] = 0;
    for (uint64_t v = 0; v < n; v++) {
        const uint64_t b = x[v], d = x[v + 1] - b;
        for (uint64_t j = 0; j < d; j++) k[j] = (uint64_t)a[b + j] << 32 | w[b + j];
        for (uint64_t i = 1; i < d; i++) /* (lists are short) */
            for (uint64_t j = i; j > 0 && k[j - 1] > k[j]; j--) {
                const uint64_t t = k[j];
                k[j] = k[j - 1];
                k[j - 1] = t;
            }
        uint64_t o = xo[v];
        for (uint64_t j = 0; j < d; j++) {
            if (j > 0 && k[j] >> 32 == k[j - 1] >> 32) continue;
            const uint32_t wt = (uint32_t)k[j];
            assert_true(wt < (1u << 10));
            ao[o] = (uint32_t)(k[j] >> 32);
            wo[o++] = wt << 14 | ((37 * wt) & 0x3fff);
        }
        xo[v + 1] = o;
    }
    sg_store_writer *sw = NULL;
    sg_error err = {0};
    const sg_write_options wo_opt = {.block_bytes = 512, .shard_bytes = 16 << 10, .force = true};
    if (sg_store_writer_open(path, n, &wo_opt, &sw, &err) != SG_OK ||
        sg_store_writer_append(sw, n, xo, ao, wo, &err) != SG_OK ||
        sg_store_writer_finish(sw, &err) != SG_OK)
        fail_msg("writing %s: %s", path, err.msg);
    free(xo);
    free(k);
    free(ao);
    free(wo);
}

/* The forest over 24-bit weights (sg_graph_options.narrow_weights: W16 and
 * W8 on the device and pinned host, src/graph.c, kernels/mst.cu W24Arr):
 * every undirected family as a store, at splits from all on the device to
 * all on the host (A and W split apart), in pinned memory and in plain
 * memory pinned in place, and with each path it meets switched another
 * way (no CPU share, the threads' many small chunks and scalar top-K, the
 * GPU's reads in place, walks by offers, weights-first off, no vertex
 * cache: the finds over W24Arr), gives the forest of the same store loaded
 * with 32-bit weights; the counters say it was narrow and the plan priced
 * W at 3 bytes. SG_NARROW_HYBRID_FOREST takes 24 bits only where the forest
 * runs hybrid and SPILLGRAPH_GPU_ENABLE names narrow-weights; the gpu
 * backend's forest refuses a narrow graph. */
static void test_hybrid_narrow_weights(void **state)
{
    (void)state;
    static const int fr[][3] = {{8, 8, 8}, {3, 5, 1}, {6, 2, 4}, {0, 0, 0}};
    static const char *const modes[] = {NULL,           "cpu-share",     "share-chunks,topk-simd",
                                        "stream-first", "fill-rank",     "weights-first",
                                        "vertex-cache", "share-packed,dma-pull"};
    enum { NM = sizeof modes / sizeof modes[0] };
    char *dir = tu_tmpdir("gpu-narrow");
    char path[512], what[400];
    snprintf(path, sizeof path, "%s/g.sg", dir);
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    sg_error err = {0};
    uint64_t runs = 0, host_bytes = 0, auto_narrow = 0;
    for (int si = 0; si < n_sizes(); si++)
        for (int k = 0; k < TG_NKINDS; k++) {
            sg_graph *t = tg_make((tg_kind)k, size_at(si), 17, false, false);
            narrow_store(t, path);
            sg_graph_free(t);
            sg_graph *gc = NULL;
            if (sg_graph_open(cpu, path, NULL, &gc, &err) != SG_OK) fail_msg("open: %s", err.msg);
            sg_forest *fc = NULL;
            if (sg_mst(cpu, gc, &fc, &err) != SG_OK) fail_msg("cpu sg_mst: %s", err.msg);
            const uint64_t n = nverts(gc);
            for (int mi = 0; mi < NM; mi++) {
                char *saved = env_push(modes[mi]);
                for (int i = 0; i < 4; i++) {
                    const sg_mem_kind mem = (i + mi) % 3 == 2 ? SG_MEM_PLAIN : SG_MEM_AUTO;
                    snprintf(what, sizeof what,
                             "%s n~%llu (%llu vertices), 24-bit weights, split %d/8 %d/8 %d/8, "
                             "%s memory, disabled: %s",
                             tg_name((tg_kind)k), (unsigned long long)size_at(si),
                             (unsigned long long)n, fr[i][0], fr[i][1], fr[i][2],
                             mem == SG_MEM_PLAIN ? "plain" : "pinned",
                             modes[mi] ? modes[mi] : "none");
                    sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, fr[i], n);
                    const sg_graph_options go = {.mem = mem, .narrow_weights = SG_NARROW_ALWAYS};
                    sg_graph *g = NULL;
                    if (sg_graph_open(run, path, &go, &g, &err) != SG_OK)
                        fail_msg("%s: open: %s", what, err.msg);
                    sg_graph_info info;
                    sg_graph_get_info(g, &info);
                    if (!info.narrow_weights) fail_msg("%s: loaded with 32-bit weights", what);
                    sg_forest *f = NULL;
                    if (sg_mst(run, g, &f, &err) != SG_OK)
                        fail_msg("%s: sg_mst: %s", what, err.msg);
                    expect_backend(run, SG_BACKEND_HYBRID, what, "sg_mst");
                    expect_same_forest(f, fc, what);
                    if (sg_verify_forest(g, f, &err) != SG_OK) fail_msg("%s: %s", what, err.msg);
                    tu_expect_rounds(run, n, what);
                    sg_plan pl;
                    double measured = 0;
                    if (!sg_run_plan(run, &pl, &measured)) fail_msg("%s: no plan", what);
                    const uint64_t wdev = sg_graph_offsets(gc)[pl.split[2]];
                    if (pl.device_bytes[2] != 3 * wdev)
                        fail_msg("%s: the plan puts %llu bytes of W on the device for %llu "
                                 "entries, not 3 each",
                                 what, (unsigned long long)pl.device_bytes[2],
                                 (unsigned long long)wdev);
                    static const char *const names[] = {"narrow_weights", "host_list_bytes"};
                    uint64_t c[2];
                    need_counters(run, what, names, c, 2);
                    if (c[0] != 1)
                        fail_msg("%s: narrow_weights %llu", what, (unsigned long long)c[0]);
                    host_bytes += c[1];
                    expect_report(run, true, what);
                    runs++;
                    sg_forest_free(f);
                    sg_graph_free(g);
                    sg_run_free(run);
                }
                env_pop(saved);
            }
            /* HYBRID_FOREST: an auto run whose budget holds the graph runs the
             * forest in place and loads it with 24 bits, or with
             * "auto-inplace" disabled with 32 (the gpu backend's forest); one
             * whose budget does not with 24; 32 where narrow-weights is not
             * enabled; a gpu run's forest refuses a narrow graph */
            for (int v = 0; v < 4; v++) { /* 1, 2: tight; 2: the switch not on; 3: in place */
                const bool tight = v == 1 || v == 2;
                uint64_t budget = 0;
#if SG_HAVE_CUDA
                if (tight)
                    budget = sgk_mst_inplace_bytes(n, false) + (n + 1) * 8 + (64u << 10);
#endif
                snprintf(what, sizeof what, "%s n~%llu, auto, %s budget%s", tg_name((tg_kind)k),
                         (unsigned long long)size_at(si), tight ? "a tight" : "the default",
                         v == 2   ? ", narrow-weights not enabled"
                         : v == 0 ? ", auto-inplace disabled"
                                  : "");
                char *off = env_var_push("SPILLGRAPH_GPU_DISABLE", v ? NULL : "auto-inplace");
                sg_run *run = mkrun(SG_BACKEND_AUTO, budget);
                const sg_graph_options go = {.narrow_weights = SG_NARROW_HYBRID_FOREST};
                sg_graph *g = NULL;
                char *on = env_var_push("SPILLGRAPH_GPU_ENABLE",
                                        v == 2 ? NULL : "narrow-weights");
                if (sg_graph_open(run, path, &go, &g, &err) != SG_OK)
                    fail_msg("%s: open: %s", what, err.msg);
                env_var_pop("SPILLGRAPH_GPU_ENABLE", on);
                sg_graph_info info;
                sg_graph_get_info(g, &info);
                sg_forest *f = NULL;
                if (sg_mst(run, g, &f, &err) != SG_OK) fail_msg("%s: sg_mst: %s", what, err.msg);
                env_var_pop("SPILLGRAPH_GPU_DISABLE", off);
                expect_same_forest(f, fc, what);
                const bool hyb = sg_run_backend(run) == SG_BACKEND_HYBRID;
                if (info.narrow_weights != (hyb && v != 2) || hyb != (v != 0))
                    fail_msg("%s: the forest ran on %s with %d-bit weights", what,
                             sg_backend_name(sg_run_backend(run)), info.narrow_weights ? 24 : 32);
                auto_narrow += info.narrow_weights;
                sg_forest_free(f);
                sg_graph_free(g);
                sg_run_free(run);
            }
            sg_run *gpu = mkrun(SG_BACKEND_GPU, 0);
            const sg_graph_options go = {.narrow_weights = SG_NARROW_ALWAYS};
            sg_graph *g = NULL;
            if (sg_graph_open(gpu, path, &go, &g, &err) != SG_OK) fail_msg("open: %s", err.msg);
            sg_forest *f = NULL;
            if (sg_mst(gpu, g, &f, &err) != SG_E_UNSUPPORTED || f ||
                !strstr(err.msg, "narrow_weights"))
                fail_msg("%s: the gpu backend's forest on a narrow graph: %s", tg_name((tg_kind)k),
                         err.msg);
            sg_graph_free(g);
            sg_run_free(gpu);
            sg_forest_free(fc);
            sg_graph_free(gc);
        }
    assert_true(runs > 0 && host_bytes > 0 && auto_narrow > 0);
    sg_run_free(cpu);
    tu_rm_rf(dir);
    free(dir);
}

/* The forest's packed tail (src/gpu_engine.c packed_ensure, kernels/mst.cu;
 * SPILLGRAPH_GPU_ENABLE=packed-tail, and packed-cpu): the host entries past
 * both device prefixes of A and W again as 48-bit entries, which the first
 * round's GPU pieces (one DMA each) and, with packed-cpu, its CPU threads
 * read. Every family with u32 weights, at splits that leave all, some or
 * none of the lists on the host (A and W split apart, so that pieces over
 * A and W come before and across the tail's start), gives Kruskal's forest
 * with the tail and with each path it meets switched another way: not
 * enabled, disabled, no CPU share, the CPU share's many small chunks, its
 * results unpacked, its top-K scalar or without pairs, the GPU's reads in
 * place (no pieces), its walks by k_hwalk's offers (with and without a CPU
 * share), the CPU threads on A and W beside the GPU's packed pieces. The
 * counters say the tail was built where the host holds entries (6 bytes
 * each), and that the two sides read each of its entries once when the
 * first round streams; f32 weights and ids with weights past 48 bits
 * refuse it and the forest is still exact. */
static void test_hybrid_packed_tail(void **state)
{
    (void)state;
    static const int fr[][3] = {{0, 0, 0}, {3, 5, 1}, {6, 2, 4}};
    /* SPILLGRAPH_GPU_DISABLE, SPILLGRAPH_GPU_ENABLE, and what they mean:
     * no tail (not enabled, or disabled), the GPU's reads in place (no
     * pieces), the CPU threads on A and W, no CPU share */
    static const char *const both = "packed-tail,packed-cpu";
    static const struct {
        const char *dis, *en;
        bool off, in_place, cpu_aw, no_share;
    } modes[] = {
        {NULL, both, false, false, false, false},
        {NULL, NULL, true, false, false, false},
        {"cpu-share", both, false, false, false, true},
        {"share-chunks", both, false, false, false, false},
        {"share-packed", both, false, false, false, false},
        {"topk-simd", both, false, false, false, false},
        {"topk-pairs", both, false, false, false, false},
        {"stream-first", both, false, true, false, false},
        {"fill-rank", both, false, false, false, false},
        {NULL, "packed-tail", false, false, true, false},
        {"cpu-share,fill-rank", both, false, false, false, true},
        {"packed-tail", both, true, false, false, false}};
    enum { NM = sizeof modes / sizeof modes[0] };
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    char what[400];
    uint64_t gpu_read[NM] = {0}, cpu_read[NM] = {0}, built = 0;
    for (int mi = 0; mi < NM; mi++) {
        char *saved = env_push(modes[mi].dis);
        char *saved_on = env_var_push("SPILLGRAPH_GPU_ENABLE", modes[mi].en);
        char md[120];
        snprintf(md, sizeof md, "disabled: %s, enabled: %s", modes[mi].dis ? modes[mi].dis : "none",
                 modes[mi].en ? modes[mi].en : "none");
        for (int k = 0; k < TG_NKINDS; k++) {
            sg_graph *g = tg_make((tg_kind)k, SMALL_N, 13, false, false);
            const uint64_t n = nverts(g), *x = sg_graph_offsets(g), m = x[n];
            char base[200];
            describe(base, sizeof base, (tg_kind)k, SMALL_N, 13, false, false, g);
            for (int i = 0; i < 3; i++) {
                snprintf(what, sizeof what, "%s, hybrid split %d/8 %d/8 %d/8, %s", base,
                         fr[i][0], fr[i][1], fr[i][2], md);
                sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, fr[i], n);
                mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
                static const char *const names[] = {
                    "packed_tail",       "packed_gpu_entries", "packed_cpu_entries",
                    "packed_tail_bytes", "packed_tail_refused", "cache_slots",
                    "weight_order",      "cpu_entries_read"};
                uint64_t c[8];
                need_counters(run, what, names, c, 8);
                const uint64_t tail = c[0], pg = c[1], pc = c[2], bytes = c[3], refused = c[4];
                const uint64_t slots = c[5], word = c[6], ce = c[7];
                const uint64_t pa = x[fr[i][1] * n / 8], pw = x[fr[i][2] * n / 8];
                const uint64_t from = pa > pw ? pa : pw; /* A and W both on the host */
                const bool off = modes[mi].off;
                if (refused != (off ? 1u : 0u) || bytes != (off ? 0 : 6 * (m - from)))
                    fail_msg("%s: packed tail refused %llu, %llu bytes; want %d, %llu", what,
                             (unsigned long long)refused, (unsigned long long)bytes, off,
                             (unsigned long long)(off ? 0 : 6 * (m - from)));
                /* (lists read from their heads, in weight order on a
                 * graph with hubs, do not stream) */
                const bool want = !off && from < m && slots > 0 && word == 0;
                if (tail != (want ? 1u : 0u) || (!tail && (pg || pc)))
                    fail_msg("%s: packed_tail %llu (want %d), read by the GPU %llu, the CPU "
                             "%llu",
                             what, (unsigned long long)tail, want, (unsigned long long)pg,
                             (unsigned long long)pc);
                /* streamed, the two sides read every host entry once (the
                 * CPU from A and W without "packed-cpu"); the GPU nothing
                 * in place, the CPU nothing without a share */
                const bool streams = !modes[mi].in_place;
                if (tail && ((streams && pg + ce != m - from) || (!streams && pg != 0) ||
                             (modes[mi].no_share && ce != 0) ||
                             pc != (modes[mi].cpu_aw ? 0 : ce)))
                    fail_msg("%s: the packed tail's %llu entries read %llu by the GPU and "
                             "%llu by the CPU (%llu entries by the CPU in all)",
                             what, (unsigned long long)(m - from), (unsigned long long)pg,
                             (unsigned long long)pc, (unsigned long long)ce);
                gpu_read[mi] += pg;
                cpu_read[mi] += pc;
                built += bytes > 0;
                sg_run_free(run);
            }
            sg_graph_free(g);
        }
        env_var_pop("SPILLGRAPH_GPU_ENABLE", saved_on);
        env_pop(saved);
    }
    /* the GPU's pieces: surely without a CPU share (with one, on graphs
     * this small the threads may take every list past both prefixes) */
    for (int mi = 0; mi < NM; mi++) {
        if ((modes[mi].in_place && gpu_read[mi] > 0) || (modes[mi].no_share && gpu_read[mi] == 0))
            fail_msg("mode %d: the GPU read %llu packed entries", mi,
                     (unsigned long long)gpu_read[mi]);
        if (!modes[mi].off &&
            (cpu_read[mi] == 0) != (modes[mi].no_share || modes[mi].cpu_aw))
            fail_msg("mode %d: the CPU read %llu packed entries", mi,
                     (unsigned long long)cpu_read[mi]);
    }
    assert_true(built > 0);
    /* refused: f32 weights; and 2^17 ids beside a weight of 2^31 */
    char *saved_on = env_var_push("SPILLGRAPH_GPU_ENABLE", "packed-tail");
    {
        sg_graph *g = tg_make(TG_RANDOM, SMALL_N, 13, false, true);
        static const int half[3] = {4, 4, 4};
        sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, half, nverts(g));
        mst_check(cpu, run, SG_BACKEND_HYBRID, g, "random, f32 weights, split 4/8");
        static const char *const names[] = {"packed_tail_refused", "packed_tail"};
        uint64_t c[2];
        need_counters(run, "f32 weights", names, c, 2);
        assert_int_equal(c[0], 2);
        assert_int_equal(c[1], 0);
        sg_run_free(run);
        sg_graph_free(g);
    }
    {
        enum { N = 70000 };
        uint32_t *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v), *w = malloc(N * sizeof *w);
        assert_true(u && v && w);
        uint64_t ne = 0;
        for (uint32_t a = 0; a + 1 < N; a += 2) /* pairs, and a few heavy edges across */
            u[ne] = a, v[ne] = a + 1, w[ne] = 1 + a % 5, ne++;
        for (uint32_t a = 1; a + 2 < N && ne < N; a += 4)
            u[ne] = a, v[ne] = a + 2, w[ne] = a % 7 ? 9 : 0x80000000u, ne++;
        sg_graph *g = tg_from_edges(N, ne, u, v, w, false, false);
        static const int half[3] = {4, 4, 4};
        for (int mi = 0; mi < 2; mi++) {
            char *saved = env_push(mi ? "packed-tail" : NULL);
            sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, half, N);
            mst_check(cpu, run, SG_BACKEND_HYBRID, g, "70000 vertices, weights to 2^31");
            static const char *const names[] = {"packed_tail_refused", "packed_tail"};
            uint64_t c[2];
            need_counters(run, "weights to 2^31", names, c, 2);
            assert_int_equal(c[0], mi ? 1 : 3);
            assert_int_equal(c[1], 0);
            sg_run_free(run);
            env_pop(saved);
        }
        sg_graph_free(g);
        free(u), free(v), free(w);
    }
    env_var_pop("SPILLGRAPH_GPU_ENABLE", saved_on);
    sg_run_free(cpu);
}

/* SSSP's light index built with the CPU threads (kernels/sssp.cu,
 * IndexShare): the lists wholly past the device prefixes of A and W are
 * counted and copied by the threads and by the GPU, meeting where their
 * rates put them (by default), with the threads taking every such list
 * ("dynamic-split" off), or by the GPU alone ("cpu-light" off); in one
 * fused pass (by default; the threads' chunks in one sweep, or, with
 * "light-sweep" off, a count then a tally and a copy) or a count and a
 * fill ("fused-index" off); the threads' uploads through the ring on the
 * compute stream (by default; on these graphs it turns, its halves sized
 * from the chunks) or the staging buffers in turn ("index-ring" off). Exact
 * distances on every family at splits that leave all, some or none of the
 * lists on the host (A and W split apart), with the automatic width and a
 * narrow one; the counters say who took which lists: the threads' first
 * vertex lies at or past the first list wholly in host memory, exactly
 * there with the fixed split (each of their passes then reads every one of
 * its entries), and they read nothing with "cpu-light" off or without an
 * index. */
static void test_hybrid_sssp_share(void **state)
{
    (void)state;
    static const int fr[][3] = {{8, 8, 8}, {0, 0, 0}, {3, 5, 1}, {6, 2, 4}};
    const int nfr = (int)(sizeof fr / sizeof fr[0]);
    static const char *const modes[] = {NULL,          "dynamic-split", "cpu-light",
                                        "fused-index", "light-sweep",   "index-ring"};
    enum { NMODES = sizeof modes / sizeof modes[0] };
    char what[300];
    for (int mi = 0; mi < NMODES; mi++) {
        char *saved = env_push(modes[mi]);
        uint64_t cpu_lists_total = 0, indexed = 0, swept = 0, turned = 0;
        for (int k = 0; k < TG_NKINDS; k++)
            for (int si = 0; si < n_sizes(); si++)
                for (int f32 = 0; f32 < 2; f32++) {
                    const int directed = (k + si) % 2;
                    sg_graph *g = tg_make((tg_kind)k, size_at(si), 5, directed, f32);
                    const uint64_t n = nverts(g), *x = sg_graph_offsets(g), m = x[n];
                    uint32_t src[3];
                    const int ns = sources_of(g, 5, src);
                    for (int i = 0; i < nfr; i++) {
                        /* the first vertex whose list lies wholly past both prefixes */
                        const uint64_t ad = x[(uint64_t)fr[i][1] * n / 8],
                                       wd = x[(uint64_t)fr[i][2] * n / 8];
                        const uint64_t dev = ad > wd ? ad : wd;
                        uint64_t low = 0;
                        while (low < n && x[low] < dev) low++;
                        for (int di = 0; di < 2; di++) {
                            char base[200];
                            describe(base, sizeof base, (tg_kind)k, size_at(si), 5, directed, f32,
                                     g);
                            snprintf(what, sizeof what,
                                     "%s, hybrid split %d/8 %d/8 %d/8, delta %s, disabled: %s",
                                     base, fr[i][0], fr[i][1], fr[i][2], di ? "3" : "auto",
                                     modes[mi] ? modes[mi] : "none");
                            sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, fr[i], n);
                            sssp_check(run, SG_BACKEND_HYBRID, g, src[(i + di) % ns],
                                       SG_SSSP_DELTA, di ? 3.0 : 0.0, di, what);
                            uint64_t split = 0, lists = 0, ent = 0, light = 0, up = 0, fused = 0,
                                     sweeps = 0, wait = 0, cus = 0, turns = 0;
                            if (!tu_counter(run, "index_fused", &fused) ||
                                !tu_counter(run, "cpu_index_ring_turns", &turns) ||
                                !tu_counter(run, "cpu_index_sweeps", &sweeps) ||
                                !tu_counter(run, "cpu_index_wait_us", &wait) ||
                                !tu_counter(run, "cpu_index_us", &cus) ||
                                !tu_counter(run, "cpu_index_split", &split) ||
                                !tu_counter(run, "cpu_index_lists", &lists) ||
                                !tu_counter(run, "cpu_index_entries", &ent) ||
                                !tu_counter(run, "cpu_upload_bytes", &up) ||
                                !tu_counter(run, "light_edges", &light))
                                fail_msg("%s: no cpu_index_* / light_edges counters", what);
                            /* light_edges 0: no index (the threads may have counted one
                             * not kept: split n) or an empty one (a split of its own) */
                            const bool gpu_only = modes[mi] && !strcmp(modes[mi], "cpu-light");
                            if (gpu_only) {
                                if (split != n || lists != 0 || ent != 0 || up != 0)
                                    fail_msg("%s: the CPU threads took lists from %llu (%llu "
                                             "entries read) with %llu light edges",
                                             what, (unsigned long long)split,
                                             (unsigned long long)ent, (unsigned long long)light);
                            } else if (split < low || split > n || lists != n - split) {
                                fail_msg("%s: the CPU threads' lists from %llu (%llu of them); "
                                         "the first wholly on the host is %llu",
                                         what, (unsigned long long)split,
                                         (unsigned long long)lists, (unsigned long long)low);
                            } else if (modes[mi] && strstr(modes[mi], "dynamic-split") &&
                                       low < n && light > 0) {
                                /* fixed: every host-only list, read once by the fused
                                 * pass, twice by the count and the fill */
                                const uint64_t span = m - x[low], passes = fused ? 1 : 2;
                                if (split != low || (span ? ent % span != 0 || ent < passes * span
                                                          : ent != 0))
                                    fail_msg("%s: fixed split: the CPU threads from %llu read "
                                             "%llu entries; want %llu, passes of %llu",
                                             what, (unsigned long long)split,
                                             (unsigned long long)ent, (unsigned long long)low,
                                             (unsigned long long)span);
                            }
                            /* chunks swept at once only in the fused pass's share */
                            if (sweeps > 0 && (gpu_only || !fused ||
                                               (modes[mi] && strstr(modes[mi], "light-sweep"))))
                                fail_msg("%s: %llu chunks swept at once (fused %llu)", what,
                                         (unsigned long long)sweeps, (unsigned long long)fused);
                            swept += sweeps;
                            /* the ring turns only when the threads upload through it */
                            if (turns > 0 && (gpu_only || (modes[mi] &&
                                                           strstr(modes[mi], "index-ring"))))
                                fail_msg("%s: the uploads' ring turned %llu times", what,
                                         (unsigned long long)turns);
                            turned += turns;
                            /* the threads' waits for the staging copies are part of
                             * their time, and there are none without them */
                            if (wait > cus || (gpu_only && wait != 0))
                                fail_msg("%s: the CPU threads waited %llu us of their %llu us",
                                         what, (unsigned long long)wait, (unsigned long long)cus);
                            indexed += !gpu_only && light > 0;
                            cpu_lists_total += gpu_only ? 0 : lists;
                            sg_run_free(run);
                        }
                    }
                    sg_graph_free(g);
                }
        const bool share_on = !modes[mi] || strcmp(modes[mi], "cpu-light") != 0;
        if (share_on && (indexed == 0 || cpu_lists_total == 0))
            fail_msg("disabled: %s: the CPU threads took no list of the light index (%llu runs "
                     "with a shared index)",
                     modes[mi] ? modes[mi] : "none", (unsigned long long)indexed);
        /* as built the threads' chunks are swept at once */
        if ((!modes[mi] || !strcmp(modes[mi], "dynamic-split")) && swept == 0)
            fail_msg("disabled: %s: no chunk of the light index swept at once",
                     modes[mi] ? modes[mi] : "none");
        /* as built the uploads' ring turns on some of these graphs */
        if ((!modes[mi] || !strcmp(modes[mi], "fused-index")) && turned == 0)
            fail_msg("disabled: %s: the light index's upload ring never turned",
                     modes[mi] ? modes[mi] : "none");
        env_pop(saved);
    }
}

/* Budgets from the working arrays alone up to the whole graph: auto picks
 * hybrid while the graph does not fit (gpu once it does), the plan keeps
 * its device bytes within what the budget leaves, the accountant's peak
 * stays within the budget, and the results are the oracles'. The forest
 * too, down to its in-place executor's own arrays (where the contracted
 * list no longer fits and the vertex rounds go to the end); below those,
 * auto runs it on the cpu and says why. */
/* The forest of g on `backend` (hybrid, or auto choosing it) at budgets
 * from its working bytes (from a plan on the default budget) up to 0.7 of
 * the graph more: the CPU's forest, a plan within each budget, and the
 * accountant's peak within it too; weight_order >= 0: the counter
 * "weight_order" must equal it. Returns the working bytes. */
static uint64_t forest_budgets(sg_run *cpu, const sg_graph *g, sg_backend backend,
                               const char *tag, int weight_order)
{
    const uint64_t n = nverts(g), full = (n + 1) * 8 + sg_graph_offsets(g)[n] * 8;
    char what[200];
    snprintf(what, sizeof what, "%s, hybrid mst, default budget", tag);
    sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, NULL, n);
    mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
    const uint64_t fwork = expect_plan(run, NULL, n, true, what).work_bytes;
    sg_run_free(run);
    static const double frac[] = {0.0, 0.05, 0.2, 0.45, 0.7};
    for (unsigned i = 0; i < sizeof frac / sizeof frac[0]; i++) {
        const uint64_t budget = fwork + (uint64_t)(frac[i] * (double)full) + 4096;
        snprintf(what, sizeof what, "%s n %llu, mst, %s, budget work + %.0f%% of the graph", tag,
                 (unsigned long long)n, backend == SG_BACKEND_AUTO ? "auto" : "hybrid",
                 100 * frac[i]);
        run = mkhybrid(backend, budget, NULL, n);
        mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
        const sg_plan pl = expect_plan(run, NULL, n, true, what);
        const uint64_t dev = pl.device_bytes[0] + pl.device_bytes[1] + pl.device_bytes[2];
        if (dev + pl.work_bytes > budget)
            fail_msg("%s: plan puts %llu + %llu bytes on the device", what, (unsigned long long)dev,
                     (unsigned long long)pl.work_bytes);
        const sg_device_report rep = expect_report(run, true, what);
        if (rep.peak_bytes > budget)
            fail_msg("%s: peak %llu over the budget", what, (unsigned long long)rep.peak_bytes);
        uint64_t wo = 0;
        if (weight_order >= 0 && (!tu_counter(run, "weight_order", &wo) || wo != (uint64_t)weight_order))
            fail_msg("%s: weight_order %llu, want %d", what, (unsigned long long)wo, weight_order);
        sg_run_free(run);
    }
    return fwork;
}

/* SSSP over lists in weight order (its light index takes each list's light
 * entries wherever they are), in core and at splits that spill, on every
 * family, directed and undirected, and on a graph whose f32 weights include
 * -0.0 (first in weight order, heavy by their bits): distances and trees
 * equal Dijkstra's. (An index read from the light runs at the lists' heads
 * was built and measured: no faster, docs/benchmarks.md.) */
static void test_weight_order_sssp(void **state)
{
    (void)state;
    static const int fr[][3] = {{8, 8, 8}, {0, 0, 0}, {3, 5, 1}};
    char what[300];
    for (int k = 0; k < TG_NKINDS; k++)
        for (int si = 0; si < n_sizes(); si++)
            for (int directed = 0; directed < 2; directed++)
                for (int f32 = 0; f32 < 2; f32++) {
                    sg_graph *g = tg_make((tg_kind)k, size_at(si), 7, directed, f32);
                    sg_error err = {0};
                    if (sg_graph_sort_by_weight(g, 2, &err) != SG_OK) fail_msg("%s", err.msg);
                    const uint64_t n = nverts(g);
                    uint32_t src[3];
                    const int ns = sources_of(g, 7, src);
                    char base[200];
                    describe(base, sizeof base, (tg_kind)k, size_at(si), 7, directed, f32, g);
                    for (int i = 0; i < 4; i++) {
                        const bool incore = i == 3;
                        const int *f = fr[i < 3 ? i : 1];
                        snprintf(what, sizeof what, "%s, lists by weight, %s", base,
                                 incore ? "gpu" : "hybrid");
                        sg_run *run = incore ? mkrun(SG_BACKEND_GPU, 0)
                                             : mkhybrid(SG_BACKEND_HYBRID, 0, f, n);
                        sssp_check(run, incore ? SG_BACKEND_GPU : SG_BACKEND_HYBRID, g,
                                   src[i % ns], SG_SSSP_DELTA, 0.0, i % 2, what);
                        sg_run_free(run);
                    }
                    sg_graph_free(g);
                }
    /* f32 weights with -0.0 and +0.0 among small and large ones, and a hub */
    const uint64_t n = 600, ne = 5000;
    uint32_t *u = malloc(ne * 4), *v = malloc(ne * 4), *wb = malloc(ne * 4);
    assert_true(u && v && wb);
    uint64_t rs = 99;
    for (uint64_t i = 0; i < ne; i++) {
        u[i] = i < 300 ? 0 : (uint32_t)(tu_rand(&rs) % n);
        v[i] = (uint32_t)(tu_rand(&rs) % n);
        const uint64_t r = tu_rand(&rs) % 8;
        const float f = r == 0 ? -0.0f : r == 1 ? 0.0f : r < 5 ? 0.125f * (float)r : 40.0f * (float)r;
        memcpy(&wb[i], &f, 4);
    }
    for (int directed = 0; directed < 2; directed++) {
        sg_graph *g = tg_from_edges(n, ne, u, v, wb, directed, true);
        sg_error err = {0};
        if (sg_graph_sort_by_weight(g, 2, &err) != SG_OK) fail_msg("%s", err.msg);
        for (int i = 0; i < 3; i++) {
            snprintf(what, sizeof what, "-0.0 weights, %s, lists by weight, %s",
                     directed ? "directed" : "undirected", i == 2 ? "gpu" : "hybrid");
            sg_run *run = i == 2 ? mkrun(SG_BACKEND_GPU, 0) : mkhybrid(SG_BACKEND_HYBRID, 0, fr[i + 1], n);
            for (uint32_t s = 0; s < 3; s++)
                sssp_check(run, i == 2 ? SG_BACKEND_GPU : SG_BACKEND_HYBRID, g, s * 97,
                           SG_SSSP_DELTA, 0.5, s == 1, what);
            uint64_t light = 0;
            if (!tu_counter(run, "light_edges", &light) || light == 0)
                fail_msg("%s: no light index", what);
            sg_run_free(run);
        }
        sg_graph_free(g);
    }
    free(u), free(v), free(wb);
}

/* Lists in weight order (sg_graph_sort_by_weight, as a store written by
 * renumber --lists weight holds them): the in-core forest skips its sort,
 * the in-place executor reads each list from its head (counter
 * "weight_order" 1) into its vertex cache (four slots, or one with
 * "wide-cache" disabled: many refills), or without the cache ("vertex-cache"
 * disabled) probing the heads every round, at every split and at budgets
 * that spill; the forest is the CPU's and Kruskal's. The heads are read on
 * graphs with hubs (max degree >= 16 m / n), whole lists on the others,
 * unless "heads-rule" is disabled (the heads whenever the lists are in
 * weight order); with "weight-order" disabled whole lists always. */
static void test_hybrid_weight_order(void **state)
{
    (void)state;
    static const struct {
        int f[3];
        const char *off; /* disable names */
    } runs[] = {{{8, 8, 8}, "heads-rule"},
                {{0, 0, 0}, "heads-rule"},
                {{8, 0, 0}, "heads-rule"},
                {{0, 8, 8}, "heads-rule"},
                {{3, 5, 1}, "heads-rule"},
                {{5, 1, 7}, "heads-rule"},
                {{4, 4, 4}, "heads-rule"},
                {{0, 0, 0}, "heads-rule,vertex-cache"},
                {{3, 5, 1}, "heads-rule,vertex-cache"},
                {{0, 0, 0}, "heads-rule,wide-cache"},
                {{4, 4, 4}, "weight-order"},
                {{0, 0, 0}, NULL}};
    const int nruns = (int)(sizeof runs / sizeof runs[0]);
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    char what[300];
    uint64_t headed = 0, by_rule[2] = {0, 0}; /* the rule's picks: whole lists, heads */
    for (int k = 0; k < TG_NKINDS; k++)
        for (int si = 0; si < n_sizes(); si++)
            for (int f32 = 0; f32 < 2; f32++) {
                sg_graph *g = tg_make((tg_kind)k, size_at(si), 5, false, f32);
                sg_error err = {0};
                if (sg_graph_sort_by_weight(g, 2, &err) != SG_OK) fail_msg("%s", err.msg);
                const uint64_t n = nverts(g), m = sg_graph_offsets(g)[n];
                sg_graph_info gi;
                sg_graph_get_info(g, &gi);
                const bool hubs = n > 0 && (double)gi.max_degree >= 16.0 * (double)m / (double)n;
                char base[200];
                describe(base, sizeof base, (tg_kind)k, size_at(si), 5, false, f32, g);
                snprintf(what, sizeof what, "%s, lists by weight, gpu", base);
                sg_run *gpu = mkrun(SG_BACKEND_GPU, 0);
                mst_check(cpu, gpu, SG_BACKEND_GPU, g, what);
                sg_run_free(gpu);
                for (int i = 0; i < nruns; i++) {
                    const int *f = runs[i].f;
                    const char *dis = runs[i].off ? runs[i].off : "";
                    const bool heads = !strstr(dis, "weight-order") &&
                                       (strstr(dis, "heads-rule") || hubs);
                    const bool off = !heads;
                    snprintf(what, sizeof what,
                             "%s, lists by weight, hybrid split %d/8 %d/8 %d/8, disabled: %s", base,
                             f[0], f[1], f[2], runs[i].off ? runs[i].off : "none");
                    char *saved = runs[i].off ? env_push(runs[i].off) : NULL;
                    sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, f, n);
                    mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
                    expect_plan(run, f, n, true, what);
                    uint64_t wo = 0, iters = 0, slots = 0;
                    if (!tu_counter(run, "weight_order", &wo) || !tu_counter(run, "iterations", &iters) ||
                        !tu_counter(run, "cache_slots", &slots))
                        fail_msg("%s: no weight_order / iterations / cache_slots counter", what);
                    if (iters > 0 && wo != (off ? 0u : 1u))
                        fail_msg("%s: weight_order %llu", what, (unsigned long long)wo);
                    const uint64_t want_slots = strstr(dis, "vertex-cache") ? 0
                                                : strstr(dis, "wide-cache")   ? 1
                                                                              : 4;
                    if (iters > 0 && slots != want_slots)
                        fail_msg("%s: %llu cache slots, want %llu", what, (unsigned long long)slots,
                                 (unsigned long long)want_slots);
                    /* the heads are read over PCIe exactly when the lists
                     * live in host memory */
                    uint64_t hb = 0;
                    if (!tu_counter(run, "host_list_bytes", &hb))
                        fail_msg("%s: no host_list_bytes", what);
                    if (!off && f[1] == 8 && f[2] == 8 && hb != 0)
                        fail_msg("%s: %llu host bytes with the lists on the device", what,
                                 (unsigned long long)hb);
                    if (!off && f[1] == 0 && f[2] == 0 && iters > 0 && hb == 0)
                        fail_msg("%s: no host bytes with the lists in host memory", what);
                    headed += wo;
                    if (!runs[i].off && iters > 0) by_rule[wo ? 1 : 0]++;
                    sg_run_free(run);
                    if (runs[i].off) env_pop(saved);
                }
                sg_graph_free(g);
            }
    if (headed == 0) fail_msg("the executor never read lists from their heads");
    if (by_rule[0] == 0 || by_rule[1] == 0)
        fail_msg("the heads rule chose whole lists %llu times and heads %llu times",
                 (unsigned long long)by_rule[0], (unsigned long long)by_rule[1]);
    char *saved = env_push("heads-rule"); /* the heads, whatever the rule */
    /* budgets that spill, the accountant's peak within each */
    sg_graph *g = tg_make(TG_RMAT, small_only ? 256 : 4096, 2, false, false);
    sg_error err = {0};
    if (sg_graph_sort_by_weight(g, 2, &err) != SG_OK) fail_msg("%s", err.msg);
    (void)forest_budgets(cpu, g, SG_BACKEND_HYBRID, "rmat by weight", 1);
    env_pop(saved);
    sg_graph_free(g);
    sg_run_free(cpu);
}

static void test_hybrid_budget(void **state)
{
    (void)state;
    sg_graph *g = tg_make(TG_RMAT, small_only ? 256 : 4096, 2, false, false);
    const uint64_t n = nverts(g), full = (n + 1) * 8 + sg_graph_offsets(g)[n] * 8;
    uint32_t s = 0;
    sg_error err = {0};
    if (sg_graph_random_source(g, 1, &s, &err) != SG_OK) fail_msg("%s", err.msg);
    /* the working arrays, from a plan on a large budget */
    uint64_t work[2];
    for (int a = 0; a < 2; a++) {
        sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, NULL, n);
        if (a == 0)
            sssp_check(run, SG_BACKEND_HYBRID, g, s, SG_SSSP_DELTA, 0.0, true, "rmat, hybrid");
        else
            bfs_check(run, SG_BACKEND_HYBRID, g, s, 0, 0, true, "rmat, hybrid", NULL);
        const sg_plan pl = expect_plan(run, NULL, n, a == 0, "rmat, hybrid, default budget");
        if (pl.split[0] != n || pl.split[1] != n)
            fail_msg("rmat, hybrid, default budget: splits %llu %llu, want all on the device",
                     (unsigned long long)pl.split[0], (unsigned long long)pl.split[1]);
        work[a] = pl.work_bytes;
        sg_run_free(run);
    }
    /* SSSP's hybrid working bytes include room for its light index, about
     * a quarter of the 4096-vertex graph's bytes, so up to 0.7 of the graph
     * it still spills. On the 256-vertex graph of SG_TEST_SMALL the index's
     * fixed part is more than a third of the graph, and budgets at which
     * the graph and the in-core arrays fit are left out: auto runs those in
     * core (its rule, sgi_gpu_pick in src/gpu_engine.c; the last block
     * checks that choice). */
    static const double frac[] = {0.0, 0.05, 0.2, 0.45, 0.7};
    const uint64_t graph_bytes[2] = {full, full - sg_graph_offsets(g)[n] * 4}; /* sssp, bfs */
    uint64_t incore[2] = {UINT64_MAX, UINT64_MAX};
#if SG_HAVE_CUDA
    incore[0] = sgk_sssp_bytes(n, sg_graph_offsets(g)[n], SGK_SSSP_BUCKETS) + graph_bytes[0];
    incore[1] = sgk_bfs_bytes(n, sg_graph_offsets(g)[n], true) + graph_bytes[1];
#endif
    unsigned spilled_budgets = 0, x_room = 0;
    for (unsigned i = 0; i < sizeof frac / sizeof frac[0]; i++)
        for (int a = 0; a < 2; a++) {
            const uint64_t budget = work[a] + (uint64_t)(frac[i] * (double)graph_bytes[a]) + 4096;
            if (budget >= incore[a]) continue;
            spilled_budgets++;
            char what[160];
            snprintf(what, sizeof what, "rmat n %llu, %s, auto, budget work + %.0f%% of the graph",
                     (unsigned long long)n, a == 0 ? "sssp" : "bfs", 100 * frac[i]);
            sg_run *run = mkhybrid(SG_BACKEND_AUTO, budget, NULL, n);
            if (a == 0)
                sssp_check(run, SG_BACKEND_HYBRID, g, s, SG_SSSP_DELTA, 0.0, true, what);
            else
                bfs_check(run, SG_BACKEND_HYBRID, g, s, 0, 0, true, what, NULL);
            const sg_plan pl = expect_plan(run, NULL, n, a == 0, what);
            const uint64_t dev = pl.device_bytes[0] + pl.device_bytes[1] + pl.device_bytes[2];
            if (dev + pl.work_bytes > budget)
                fail_msg("%s: plan puts %llu + %llu bytes on the device", what,
                         (unsigned long long)dev, (unsigned long long)pl.work_bytes);
            /* X is placed first: all of it where the budget holds it beside
             * this plan's working arrays (which include the rooms it keeps:
             * BFS's gather buffers over pinned lists, 6 KB on the small
             * graph, more than a fifth of it) */
            if (budget >= pl.work_bytes + (n + 1) * 8) {
                x_room++;
                if (pl.split[0] != n)
                    fail_msg("%s: X (%llu bytes) not all on the device, %llu bytes beside the "
                             "working arrays", what, (unsigned long long)(n + 1) * 8,
                             (unsigned long long)(budget - pl.work_bytes));
            }
            if (frac[i] == 0.0 && pl.split[1] != 0 && pl.split[1] == n)
                fail_msg("%s: A all on the device with no room for it", what);
            sg_run_free(run);
        }
    if (x_room < 2)
        fail_msg("rmat n %llu: only %u spilling budgets hold X beside the working arrays",
                 (unsigned long long)n, x_room);
    if (spilled_budgets < (small_only ? 4u : 10u))
        fail_msg("rmat n %llu: only %u of the 10 budgets spill (in core: sssp %llu, bfs %llu bytes)",
                 (unsigned long long)n, spilled_budgets, (unsigned long long)incore[0],
                 (unsigned long long)incore[1]);
    /* Room for everything: auto runs in core. */
    {
        sg_run *run = mkhybrid(SG_BACKEND_AUTO, 0, NULL, n);
        sssp_check(run, SG_BACKEND_GPU, g, s, SG_SSSP_DELTA, 0.0, false, "rmat, auto, room");
        if (sg_run_plan(run, NULL, NULL)) fail_msg("rmat, auto, room: a plan for an in-core run");
        sg_run_free(run);
    }
    /* The forest. */
    {
        sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
        sg_run *run = NULL;
        const uint64_t fwork = forest_budgets(cpu, g, SG_BACKEND_AUTO, "rmat", -1);
        /* A whole copy of the graph left on the device by an in-core SSSP
         * is kept when the forest does not fit in core but its plan puts
         * every array on the device: nothing is uploaded again, and the
         * next in-core call uses the same copy. */
        {
            const uint64_t budget = fwork + full + 4096;
            const char *what = "rmat, auto, in-core sssp then the forest in place";
            run = mkhybrid(SG_BACKEND_AUTO, budget, NULL, n);
            sssp_check(run, SG_BACKEND_GPU, g, s, SG_SSSP_DELTA, 0.0, false, what);
            sg_device_report r0, r1, r2;
            sg_run_device_report(run, &r0);
            mst_check(cpu, run, SG_BACKEND_HYBRID, g, what);
            sg_run_device_report(run, &r1);
            const sg_plan pl = expect_plan(run, NULL, n, true, what);
            if (pl.split[0] != n || pl.split[1] != n || pl.split[2] != n)
                fail_msg("%s: splits %llu %llu %llu, want all on the device", what,
                         (unsigned long long)pl.split[0], (unsigned long long)pl.split[1],
                         (unsigned long long)pl.split[2]);
            sssp_check(run, SG_BACKEND_GPU, g, s, SG_SSSP_DELTA, 0.0, false, what);
            sg_run_device_report(run, &r2);
            if (r0.upload_bytes != full || r1.upload_bytes != full || r2.upload_bytes != full)
                fail_msg("%s: %llu, %llu, %llu bytes uploaded after each call; the graph has %llu",
                         what, (unsigned long long)r0.upload_bytes,
                         (unsigned long long)r1.upload_bytes, (unsigned long long)r2.upload_bytes,
                         (unsigned long long)full);
            if (r2.peak_bytes > budget)
                fail_msg("%s: peak %llu over the budget %llu", what,
                         (unsigned long long)r2.peak_bytes, (unsigned long long)budget);
            sg_run_free(run);
        }
        sg_forest *f = NULL;
        run = mkhybrid(SG_BACKEND_AUTO, fwork / 2, NULL, n);
        if (sg_mst(run, g, &f, &err) != SG_OK) fail_msg("auto mst, small budget: %s", err.msg);
        expect_backend(run, SG_BACKEND_CPU, "auto mst, budget below the working arrays", "sg_mst");
        if (sg_verify_forest(g, f, &err) != SG_OK) fail_msg("auto mst: %s", err.msg);
        sg_forest_free(f);
        sg_run_free(run);
        sg_run_free(cpu);
    }
    sg_graph_free(g);
}

/* Stores loaded into managed and pinned host memory for hybrid runs (the
 * kind auto picks for a graph over the budget, and each kind asked for),
 * with splits forced and planned. */
/* Searches into one result (sg_sssp_into, sg_bfs_into), as `--searches K`
 * runs them: in core, with every list on the host, with half of them there,
 * and with the planner's own split under a budget a third of the graph's.
 * Each search equals the oracle's; the graph's device part is copied once
 * (the upload bytes stay those of the first search); SSSP's light index is
 * built by the first search of a width and reused by the next ones
 * (index_reused, the same light_edges, no host bytes read before the
 * rounds), built again for another width, dropped when BFS runs, and never
 * kept with "keep-index" disabled; BFS's working arrays are reused by the
 * next search with the same parents setting (work_reused) unless
 * "keep-work" is disabled; the device peak stays within the
 * budget throughout. With the planner's split the plan of every search is
 * the first's. Widths 4 and 8 (weights 1..64): light indexes of ~5 and ~11 %
 * of the entries, within the room the plan keeps for one (m / 8). */
static void sssp_into_check(sg_run *run, const sg_graph *g, sg_sssp_result *r, uint32_t source,
                            double delta, uint64_t want_reused, const char *what)
{
    const sg_sssp_options o = {.source = source, .delta = delta, .want_parents = true};
    sg_error err = {0};
    if (sg_sssp_into(run, g, &o, r, &err) != SG_OK)
        fail_msg("%s: sg_sssp_into from %u, delta %g: %s", what, source, delta, err.msg);
    if (r->source != source || sg_verify_sssp(g, r, &err) != SG_OK)
        fail_msg("%s: into from %u, delta %g: verify: %s", what, source, delta, err.msg);
    uint64_t reused = 2, pre = 1;
    if (!tu_counter(run, "index_reused", &reused) || reused != want_reused)
        fail_msg("%s: into from %u, delta %g: index_reused %llu, want %llu", what, source, delta,
                 (unsigned long long)reused, (unsigned long long)want_reused);
    if (reused && (!tu_counter(run, "preprocess_host_bytes", &pre) || pre != 0))
        fail_msg("%s: a reused index read %llu host bytes before the rounds", what,
                 (unsigned long long)pre);
    expect_report(run, true, what);
}

static void test_searches_into(void **state)
{
    (void)state;
    static const int all_host[3] = {0, 0, 0}, half[3] = {8, 4, 4};
    for (int v = 0; v < 10; v++) {
        const int kind = v % 5, f32 = v / 5; /* kind 4: in core with keep-index off */
        const uint64_t nn = small_only ? 256 : 4096;
        sg_graph *g = tg_make(TG_RMAT, nn, 6, false, f32);
        const uint64_t n = nverts(g);
        char what[300], base[200];
        describe(base, sizeof base, TG_RMAT, nn, 6, false, f32, g);
        snprintf(what, sizeof what, "%s, %s", base,
                 kind == 0 ? "in core" : kind == 1 ? "lists on the host" :
                 kind == 2 ? "half the lists on the host" :
                 kind == 3 ? "the planner's split" : "in core, keep-index off");
        char *saved = env_push(kind == 4 ? "keep-index,keep-work" : NULL);
        const sg_backend b = kind == 0 || kind == 4 ? SG_BACKEND_GPU : SG_BACKEND_HYBRID;
        /* the planner's split: its working bytes (with the room it keeps
         * for the index), from a plan on the default budget, and half the
         * graph */
        uint64_t tight = 0;
        if (kind == 3) {
            sg_run *r0 = mkhybrid(SG_BACKEND_HYBRID, 0, NULL, n);
            sssp_check(r0, SG_BACKEND_HYBRID, g, 0, SG_SSSP_DELTA, 4.0, true, what);
            sg_plan pl;
            double ms = 0;
            if (!sg_run_plan(r0, &pl, &ms)) fail_msg("%s: no plan on the default budget", what);
            tight = pl.work_bytes + full_upload(g, true) / 2;
            sg_run_free(r0);
        }
        sg_run *run = b == SG_BACKEND_GPU ? mkrun(b, 0)
                      : kind == 3 ? mkhybrid(b, tight, NULL, n)
                                  : mkhybrid(b, 0, kind == 1 ? all_host : half, n);
        const bool keep = kind != 4;
        sg_error err = {0};
        sg_sssp_options o = {.source = 0, .delta = 4.0, .want_parents = true};
        sg_sssp_result *r = NULL;
        if (sg_sssp(run, g, &o, &r, &err) != SG_OK) fail_msg("%s: sg_sssp: %s", what, err.msg);
        expect_backend(run, b, what, "the first sg_sssp");
        if (sg_verify_sssp(g, r, &err) != SG_OK) fail_msg("%s: first search: %s", what, err.msg);
        uint64_t light = 0, reused = 2, l2 = 0;
        if (!tu_counter(run, "light_edges", &light) || light == 0 ||
            !tu_counter(run, "index_reused", &reused) || reused != 0)
            fail_msg("%s: first search: %llu light edges, index_reused %llu", what,
                     (unsigned long long)light, (unsigned long long)reused);
        const uint64_t up = expect_report(run, true, what).upload_bytes;
        sg_plan p0;
        double ms = 0;
        const bool planned = sg_run_plan(run, &p0, &ms);
        if (b == SG_BACKEND_HYBRID && (!planned || (kind == 3 && p0.split[1] == n)))
            fail_msg("%s: no plan, or the planner kept every list on the device", what);
        for (uint32_t s = 1; s < n; s += (uint32_t)(n / 4) + 3) {
            sssp_into_check(run, g, r, s, 4.0, keep, what);
            if (!tu_counter(run, "light_edges", &l2) || l2 != light)
                fail_msg("%s: into from %u: %llu light edges, the first search %llu", what, s,
                         (unsigned long long)l2, (unsigned long long)light);
            if (expect_report(run, true, what).upload_bytes != up)
                fail_msg("%s: into from %u: the graph was copied again", what, s);
            sg_plan p1;
            if (planned && (!sg_run_plan(run, &p1, &ms) || p1.split[0] != p0.split[0] ||
                            p1.split[1] != p0.split[1] || p1.split[2] != p0.split[2]))
                fail_msg("%s: into from %u: another plan", what, s);
            /* the reused index was not built: no index term in this call's plan */
            if (planned && keep &&
                (p1.t_index != 0.0 ||
                 fabs(p1.predicted_s - (p0.predicted_s - p0.t_index)) > 1e-9 * p0.predicted_s))
                fail_msg("%s: into from %u: predicted %g s with an index term of %g (the first "
                         "search: %g with %g)", what, s, p1.predicted_s, p1.t_index,
                         p0.predicted_s, p0.t_index);
        }
        sssp_into_check(run, g, r, 2, 8.0, 0, what); /* another width: built again */
        sssp_into_check(run, g, r, 3, 8.0, keep, what);
        /* BFS on the same run frees the index; the searches go on into one result */
        sg_bfs_options bo = {.source = 0};
        sg_bfs_result *br = NULL;
        if (sg_bfs(run, g, &bo, &br, &err) != SG_OK) fail_msg("%s: sg_bfs: %s", what, err.msg);
        /* four more: two into the first's result, then with parents (a new
         * result, new arrays), then into that one */
        for (int i = 0; i < 4; i++) {
            const uint32_t s = (uint32_t)((uint64_t)i * (n / 4) + (uint64_t)i);
            bo.source = s;
            bo.want_parents = i >= 2;
            if (i == 2) {
                if (sg_bfs_into(run, g, &bo, br, &err) == SG_OK)
                    fail_msg("%s: BFS into a result without parents asked for them", what);
                sg_bfs_free(br);
                br = NULL;
                if (sg_bfs(run, g, &bo, &br, &err) != SG_OK) fail_msg("%s: %s", what, err.msg);
            } else if (sg_bfs_into(run, g, &bo, br, &err) != SG_OK) {
                fail_msg("%s: BFS into from %u: %s", what, s, err.msg);
            }
            uint64_t wr = 2;
            if (sg_verify_bfs(g, br, &err) != SG_OK || !tu_counter(run, "work_reused", &wr) ||
                wr != (uint64_t)(keep && i != 2))
                fail_msg("%s: BFS from %u: %s, work_reused %llu", what, s, err.msg,
                         (unsigned long long)wr);
            expect_report(run, true, what);
        }
        sg_bfs_free(br);
        sssp_into_check(run, g, r, 4, 8.0, 0, what);
        expect_report(run, true, what);
        sg_sssp_free(r);
        sg_run_free(run);
        env_pop(saved);
        sg_graph_free(g);
    }
}

/* Small near rounds run on the device (near_loop, kernels/sssp.cu), and
 * with them the buckets' settle passes and mid splits: on graphs of long
 * paths (a path, a grid, SSCA2's cliques), in core and with every list on
 * the host (where settled lists from max(256, n / 256) vertices go back to
 * the host to be sorted), u32 and f32, the loop as built, with
 * "device-buckets" off (near rounds only) and with "device-rounds" off (no
 * loop): each source's distances equal Dijkstra's (sssp_check), and the
 * counters say the loop did what each mode lets it (device_rounds within the
 * rounds counted, device_settles and device_splits within the settle passes
 * and buckets, none where it is off; each kind ran at least once where it
 * is on). */
static void test_sssp_device_rounds(void **state)
{
    (void)state;
    static const tg_kind kinds[3] = {TG_PATH, TG_GRID, TG_SSCA2};
    static const int all_host[3] = {0, 0, 0};
    static const char *const modes[3] = {NULL, "device-buckets", "device-rounds"};
    static const char *const mode_names[3] = {"as built", "device buckets off", "device rounds off"};
    for (int v = 0; v < 36; v++) {
        const tg_kind kind = kinds[v % 3];
        const bool f32 = (v / 3) & 1, host = (v / 6) & 1;
        const int mode = v / 12;
        const uint64_t nn = small_only ? 300 : 3000;
        char *saved = env_push(modes[mode]);
        sg_graph *g = tg_make(kind, nn, 8, false, f32);
        char what[300], base[200];
        describe(base, sizeof base, kind, nn, 8, false, f32, g);
        snprintf(what, sizeof what, "%s, %s, %s", base, host ? "lists on the host" : "in core",
                 mode_names[mode]);
        const sg_backend b = host ? SG_BACKEND_HYBRID : SG_BACKEND_GPU;
        sg_run *run = host ? mkhybrid(b, 0, all_host, nverts(g)) : mkrun(b, 0);
        uint32_t src[3];
        const int ns = sources_of(g, 8, src);
        uint64_t rounds_total = 0, settles_total = 0, splits_total = 0;
        for (int i = 0; i < ns; i++)
            for (int w = 0; w < 2; w++) {
                sssp_check(run, b, g, src[i], SG_SSSP_DELTA, w ? 8.0 : 0.0, w == 0, what);
                uint64_t dr = 0, it = 0, ds = 0, sp = 0, dsp = 0, bk = 0;
                if (!tu_counter(run, "device_rounds", &dr) || !tu_counter(run, "iterations", &it) ||
                    !tu_counter(run, "device_settles", &ds) || !tu_counter(run, "settle_passes", &sp) ||
                    !tu_counter(run, "device_splits", &dsp) || !tu_counter(run, "buckets", &bk))
                    fail_msg("%s: from %u: a device loop counter is missing", what, src[i]);
                if (dr > it || ds > sp || dsp >= bk || (mode == 2 && dr != 0) ||
                    (mode >= 1 && (ds != 0 || dsp != 0)))
                    fail_msg("%s: from %u: %llu device rounds of %llu, %llu settle passes of "
                             "%llu, %llu splits of %llu buckets",
                             what, src[i], (unsigned long long)dr, (unsigned long long)it,
                             (unsigned long long)ds, (unsigned long long)sp,
                             (unsigned long long)dsp, (unsigned long long)bk);
                rounds_total += dr;
                settles_total += ds;
                splits_total += dsp;
            }
        if (mode < 2 && rounds_total == 0) fail_msg("%s: no round ran on the device", what);
        if (mode == 0 && (settles_total == 0 || splits_total == 0))
            fail_msg("%s: %llu settle passes and %llu mid splits ran on the device", what,
                     (unsigned long long)settles_total, (unsigned long long)splits_total);
        expect_report(run, true, what);
        sg_run_free(run);
        sg_graph_free(g);
        env_pop(saved);
    }
}


/* A hybrid SSSP run's settle counters agree: streamed bytes within the host
 * bytes and with chunks; chunks only from sorted passes (host-launched);
 * the longest host pass within their sum, timed when one ran, and its
 * entries within those scanned. Returns the chunks streamed. */
static uint64_t settle_counters(const sg_run *run, const char *what, uint32_t src)
{
    uint64_t ch = 0, by = 0, hb = 0, so = 0, us = 0, mx = 0, me = 0, sc = 0;
    if (!tu_counter(run, "settle_streamed_chunks", &ch) ||
        !tu_counter(run, "settle_streamed_bytes", &by) || !tu_counter(run, "host_list_bytes", &hb) ||
        !tu_counter(run, "settle_sorted", &so) || !tu_counter(run, "settle_us", &us) ||
        !tu_counter(run, "settle_max_us", &mx) || !tu_counter(run, "settle_max_entries", &me) ||
        !tu_counter(run, "edges_scanned", &sc))
        fail_msg("%s: from %u: a settle counter is missing", what, src);
    if (by > hb || (ch == 0) != (by == 0) || (ch > 0 && so == 0) || mx > us || me > sc ||
        (so > 0 && us == 0))
        fail_msg("%s: from %u: %llu chunks, %llu bytes streamed, %llu host bytes; %llu sorted "
                 "passes, %llu us in host passes, the longest %llu us over %llu of %llu entries",
                 what, src, (unsigned long long)ch, (unsigned long long)by, (unsigned long long)hb,
                 (unsigned long long)so, (unsigned long long)us, (unsigned long long)mx,
                 (unsigned long long)me, (unsigned long long)sc);
    return ch;
}

/* SSSP's streamed settle passes (kernels/sssp.cu): every family, directed
 * and undirected, u32 and f32, at splits that spill (X, A and W split
 * differently; registered host arrays), and an R-MAT store opened in
 * pinned and in managed memory, each as built (chunks read half or more
 * are streamed; from managed memory through the CPU threads' copies), with
 * "settle-rule" off (every chunk a pass reads is), with "settle-bounce"
 * off (managed memory not streamed), with "settle-compact" off (bounced
 * chunks whole, not only the pass's lists) and with "settle-stream" off
 * (none):
 * distances and trees equal Dijkstra's, the accountant's peak within the
 * budget, the settle counters consistent (settle_counters); R-MAT streams
 * chunks as built from either memory, the families too with "settle-rule"
 * off, managed memory none with "settle-bounce" off, and nothing streams
 * with "settle-stream" off; the managed store's bounced chunks are
 * compacted as built and with "settle-rule" off, never otherwise. The
 * gathered settle passes of pinned lists without hubs (test_settle_gather)
 * are off throughout, so that the streaming they replace is what runs. */
static void test_settle_stream(void **state)
{
    (void)state;
    static const int fr[][3] = {{0, 0, 0}, {8, 3, 3}, {3, 5, 1}};
    static const char *const modes[] = {NULL, "settle-rule", "settle-stream", "settle-bounce",
                                        "settle-compact"};
    const unsigned scale = small_only ? 11 : 13;
    char path[512];
    char *dir = rmat_store("gpu-settle", scale, 3, path, sizeof path);
    sg_error err = {0};
    for (int mi = 0; mi < 5; mi++) {
        char names[100];
        snprintf(names, sizeof names, "settle-gather%s%s", modes[mi] ? "," : "",
                 modes[mi] ? modes[mi] : "");
        char *saved = env_push(names);
        char what[300];
        uint64_t fam_chunks = 0, kind_chunks[2] = {0, 0}, compacted = 0;
        for (int k = 0; k < TG_NKINDS; k++)
            for (int f32 = 0; f32 < 2; f32++) {
                const int directed = (k + f32) % 2;
                sg_graph *g = tg_make((tg_kind)k, MEDIUM_N, 4, directed, f32);
                uint32_t src[3];
                const int ns = sources_of(g, 4, src);
                for (int i = 0; i < 3; i++) {
                    char base[200];
                    describe(base, sizeof base, (tg_kind)k, MEDIUM_N, 4, directed, f32, g);
                    snprintf(what, sizeof what, "%s, split %d/8 %d/8 %d/8, disabled: %s", base,
                             fr[i][0], fr[i][1], fr[i][2], modes[mi] ? modes[mi] : "none");
                    sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, fr[i], nverts(g));
                    for (int j = 0; j < ns; j++) {
                        sssp_check(run, SG_BACKEND_HYBRID, g, src[j], SG_SSSP_DELTA, 0.0, j == 0,
                                   what);
                        fam_chunks += settle_counters(run, what, src[j]);
                    }
                    expect_report(run, true, what);
                    sg_run_free(run);
                }
                sg_graph_free(g);
            }
        static const sg_mem_kind kinds[2] = {SG_MEM_MANAGED, SG_MEM_PINNED};
        for (int ki = 0; ki < 2; ki++) {
            snprintf(what, sizeof what, "rmat %u, %s memory, lists on the host, disabled: %s",
                     scale, ki ? "pinned" : "managed", modes[mi] ? modes[mi] : "none");
            static const int all_host[3] = {8, 0, 0};
            sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, all_host, 1u << scale);
            const sg_graph_options go = {.mem = kinds[ki]};
            sg_graph *g = NULL;
            if (sg_graph_open(run, path, &go, &g, &err) != SG_OK) fail_msg("%s: %s", what, err.msg);
            for (uint64_t seed = 1; seed <= 3; seed++) {
                uint32_t s = 0;
                if (sg_graph_random_source(g, seed, &s, &err) != SG_OK) fail_msg("%s", err.msg);
                sssp_check(run, SG_BACKEND_HYBRID, g, s, SG_SSSP_DELTA, 0.0, seed == 1, what);
                const uint64_t ch = settle_counters(run, what, s);
                kind_chunks[ki] += ch;
                /* bounced chunks (managed memory) carry only the pass's
                 * lists unless "settle-compact" is disabled; chunks copied by
                 * DMA (pinned) are whole */
                uint64_t cc = 0, saved_b = 0;
                if (!tu_counter(run, "settle_compacted_chunks", &cc) ||
                    !tu_counter(run, "settle_compact_saved_bytes", &saved_b))
                    fail_msg("%s: no settle_compact counters", what);
                if ((ki == 1 || mi == 4) ? cc != 0 || saved_b != 0 : cc > ch)
                    fail_msg("%s: from %u: %llu of %llu streamed chunks compacted (%llu bytes "
                             "not moved)",
                             what, s, (unsigned long long)cc, (unsigned long long)ch,
                             (unsigned long long)saved_b);
                compacted += cc;
            }
            expect_report(run, true, what);
            sg_graph_free(g);
            sg_run_free(run);
        }
        /* as built, the families' passes may all be sparse; R-MAT's first
         * bucket is not */
        const bool off = mi == 2, no_bounce = mi == 3;
        if ((off || no_bounce ? kind_chunks[0] != 0 : kind_chunks[0] == 0) ||
            (off ? fam_chunks + kind_chunks[1] != 0
                 : (mi == 1 && fam_chunks == 0) || kind_chunks[1] == 0))
            fail_msg("disabled: %s: %llu chunks streamed over the families, %llu managed, %llu "
                     "pinned", modes[mi] ? modes[mi] : "none", (unsigned long long)fam_chunks,
                     (unsigned long long)kind_chunks[0], (unsigned long long)kind_chunks[1]);
        if ((mi == 0 || mi == 1) && compacted == 0)
            fail_msg("disabled: %s: no bounced chunk compacted", modes[mi] ? modes[mi] : "none");
        env_pop(saved);
    }
    tu_rm_rf(dir);
    free(dir);
}

/* SSSP's gathered settle passes (kernels/sssp.cu): over pinned host lists
 * of a graph without a hub queue, a settle pass of SORT_MIN (256) vertices
 * or more on these graphs goes sorted to the host, which relaxes its
 * device lists in place and gathers the rest (neighbours and weights) in
 * chunks into two device buffers. Every family, directed and undirected,
 * u32 and f32, at splits with A and W wholly and partly on the host (X, A
 * and W split differently): distances and trees equal Dijkstra's, the
 * settle counters consistent, the gathered bytes within the host bytes;
 * gathered passes ran, in more chunks than passes (both buffers turn), and
 * none with "settle-gather" off; the GPU's side shares of their host
 * parts ran, and none with "settle-side" off or without gathered passes.
 * With "settle-rule" off every chunk a pass reads counts as dense, so the
 * passes that would be gathered stream instead (the dense passes'
 * streaming in gather mode, exercised whatever the families' passes):
 * dense passes ran, each streaming a chunk or more; none with
 * "settle-gather" off. */
static void test_settle_gather(void **state)
{
    (void)state;
    static const int fr[][3] = {{8, 0, 0}, {8, 4, 3}, {3, 5, 1}};
    const uint64_t nv = small_only ? 20000 : 60000;
    static const char *const modes[] = {NULL, "settle-side", "settle-gather", "settle-rule"};
    for (int mi = 0; mi < 4; mi++) {
        const bool off = mi == 2, side_off = mi >= 1 && mi <= 2, any_dense = mi == 3;
        char *saved = env_push(modes[mi]);
        uint64_t passes = 0, chunks = 0, side = 0, dense = 0;
        char what[300];
        for (int k = 0; k < TG_NKINDS; k++)
            for (int f32 = 0; f32 < 2; f32++) {
                const int directed = (k + f32) % 2;
                sg_graph *g = tg_make((tg_kind)k, nv, 5, directed, f32);
                uint32_t src[3];
                (void)sources_of(g, 2, src);
                const int ns = 2; /* 0 and a random one */
                for (int i = 0; i < 3; i++) {
                    char base[200];
                    describe(base, sizeof base, (tg_kind)k, nv, 5, directed, f32, g);
                    snprintf(what, sizeof what, "%s, split %d/8 %d/8 %d/8, %s off", base,
                             fr[i][0], fr[i][1], fr[i][2], modes[mi] ? modes[mi] : "nothing");
                    sg_run *run = mkhybrid(SG_BACKEND_HYBRID, 0, fr[i], nverts(g));
                    for (int j = 0; j < ns; j++) {
                        sssp_check(run, SG_BACKEND_HYBRID, g, src[j], SG_SSSP_DELTA, 0.0, j == 0,
                                   what);
                        const uint64_t sch = settle_counters(run, what, src[j]);
                        uint64_t gp = 0, gc = 0, gb = 0, hb = 0, sv = 0, dp = 0;
                        if (!tu_counter(run, "settle_gathered_passes", &gp) ||
                            !tu_counter(run, "settle_gathered_chunks", &gc) ||
                            !tu_counter(run, "settle_gathered_bytes", &gb) ||
                            !tu_counter(run, "host_list_bytes", &hb) ||
                            !tu_counter(run, "settle_side_vertices", &sv) ||
                            !tu_counter(run, "settle_dense_passes", &dp))
                            fail_msg("%s: no settle_gathered counters", what);
                        if (dp > sch || (off && dp))
                            fail_msg("%s: from %u: %llu dense passes streamed %llu chunks", what,
                                     src[j], (unsigned long long)dp, (unsigned long long)sch);
                        if ((side_off || !gp) && sv)
                            fail_msg("%s: from %u: %llu vertices in side shares of %llu gathered "
                                     "passes", what, src[j], (unsigned long long)sv,
                                     (unsigned long long)gp);
                        if (gb > hb || (gc == 0) != (gb == 0) || (off && gp))
                            fail_msg("%s: from %u: %llu gathered passes, %llu chunks, %llu of "
                                     "%llu host bytes gathered", what, src[j],
                                     (unsigned long long)gp, (unsigned long long)gc,
                                     (unsigned long long)gb, (unsigned long long)hb);
                        passes += gp;
                        chunks += gc;
                        side += sv;
                        dense += dp;
                    }
                    expect_report(run, true, what);
                    sg_run_free(run);
                }
                sg_graph_free(g);
            }
        if (!off && !any_dense && (passes == 0 || chunks <= passes || (!side_off && side == 0)))
            fail_msg("%s off: %llu gathered settle passes in %llu chunks, %llu vertices in side "
                     "shares: the gather was not exercised", modes[mi] ? modes[mi] : "nothing",
                     (unsigned long long)passes, (unsigned long long)chunks,
                     (unsigned long long)side);
        if (any_dense && dense == 0)
            fail_msg("settle-rule off: no dense pass streamed in gather mode");
        env_pop(saved);
    }
}

static void test_hybrid_host_memory(void **state)
{
    (void)state;
    const unsigned scale = small_only ? 9 : 12;
    char path[512];
    char *dir = rmat_store("gpu-hybrid", scale, 7, path, sizeof path);
    sg_error err = {0};
    /* auto: a budget just below X and A, so that neither SSSP's nor BFS's
     * graph fits (BFS needs no W) while their working arrays do */
    uint64_t xa = 0;
    {
        sg_run *cpu = mkhybrid(SG_BACKEND_CPU, 0, NULL, 0);
        sg_graph *g = NULL;
        if (sg_graph_open(cpu, path, NULL, &g, &err) != SG_OK) fail_msg("open: %s", err.msg);
        sg_graph_info gi;
        sg_graph_get_info(g, &gi);
        xa = 8 * (gi.n_vertices + 1) + 4 * gi.n_edges - 1;
        sg_graph_free(g);
        sg_run_free(cpu);
    }
    static const int fr[][3] = {{0, 0, 0}, {8, 3, 3}, {8, 8, 8}};
    const sg_mem_kind kinds[] = {SG_MEM_AUTO, SG_MEM_MANAGED, SG_MEM_PINNED, SG_MEM_PLAIN};
    for (int ki = 0; ki < 4; ki++)
        for (int i = 0; i < 4; i++) {
            char what[200];
            snprintf(what, sizeof what, "rmat %u in host memory kind %d, split %d", scale,
                     (int)kinds[ki], i);
            /* without the CPU share the GPU walks every host-resident list
             * of the forest's first round: streamed by DMA from pinned or
             * registered memory, by a kernel from managed memory */
            char *saved = env_push(i < 2 ? "cpu-share" : NULL);
            sg_run *run = i < 3 ? mkhybrid(SG_BACKEND_HYBRID, 0, fr[i], 1u << scale)
                                : mkhybrid(SG_BACKEND_AUTO, xa, NULL, 0);
            const sg_graph_options go = {.mem = kinds[ki]};
            sg_graph *g = NULL;
            if (sg_graph_open(run, path, &go, &g, &err) != SG_OK) fail_msg("%s: %s", what, err.msg);
            sg_graph_info gi;
            sg_graph_get_info(g, &gi);
            /* auto: managed under the managed cap (the device's free memory
             * beyond the budget): none is left beside the default budget */
            const sg_mem_kind want = kinds[ki] != SG_MEM_AUTO ? kinds[ki]
                                     : i < 3                  ? SG_MEM_PINNED
                                                              : SG_MEM_MANAGED;
            if (gi.mem != want) fail_msg("%s: memory kind %d, want %d", what, (int)gi.mem, (int)want);
            uint32_t s = 0;
            if (sg_graph_random_source(g, 2, &s, &err) != SG_OK) fail_msg("%s", err.msg);
            sssp_check(run, SG_BACKEND_HYBRID, g, s, SG_SSSP_DELTA, 0.0, true, what);
            const sg_plan pl = expect_plan(run, i < 3 ? fr[i] : NULL, gi.n_vertices, true, what);
            const sg_spill_kind sk = gi.mem == SG_MEM_MANAGED ? SG_SPILL_MANAGED : SG_SPILL_PINNED;
            for (int k = 0; k < 3; k++)
                if (pl.host_bytes[k] && pl.spill_kind[k] != sk)
                    fail_msg("%s: array %d spilled as %s", what, k,
                             sg_spill_kind_name(pl.spill_kind[k]));
            bfs_check(run, SG_BACKEND_HYBRID, g, s, 0, 0, true, what, NULL);
            if (i < 3) { /* auto's budget is sized for SSSP and BFS */
                sg_forest *f = NULL;
                if (sg_mst(run, g, &f, &err) != SG_OK) fail_msg("%s: mst: %s", what, err.msg);
                expect_backend(run, SG_BACKEND_HYBRID, what, "sg_mst");
                if (sg_verify_forest(g, f, &err) != SG_OK) fail_msg("%s: mst: %s", what, err.msg);
                sg_forest_free(f);
                uint64_t pieces = 0;
                if (!tu_counter(run, "streamed_pieces", &pieces) || (i < 2) != (pieces > 0))
                    fail_msg("%s: mst: %llu first-round pieces streamed", what,
                             (unsigned long long)pieces);
                /* the run kept every counter of the three algorithms (a full
                 * table drops the later ones' names) */
                if (sg_run_counter_count(run) >= SG_RUN_MAX_COUNTERS)
                    fail_msg("%s: %u counters after sssp, bfs and mst: the table is full", what,
                             sg_run_counter_count(run));
            }
            sg_graph_free(g);
            sg_run_free(run);
            env_pop(saved);
        }
    tu_rm_rf(dir);
    free(dir);
}

/* The first search's result prepared while the graph loads
 * (sg_graph_options.prepare) on a GPU run, as the CLI asks for it: the
 * levels and the distances and parents of 600,000 vertices (2.4, 4.8 and
 * 2.4 MB) are pinned by the helper thread (result_pinned) and the levels
 * downloaded by one DMA (no host copy out of the staging buffers:
 * download_host_us 0); with "prepare-pin" off nothing is pinned and the
 * host copies them out. Levels and distances equal the CPU's. Each is done
 * twice: freed results unpin their arrays, or the second load, whose
 * arrays the allocator is likely to place where the first's were, could
 * not pin them (an address registered twice is refused). */
static void test_prepared_pinned(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("gpu-prep");
    char path[512];
    snprintf(path, sizeof path, "%s/g", dir);
    tu_graph t = tu_random_graph(600000, 1500000, 1000, 5, false);
    tu_write_store(path, &t, NULL);
    sg_error err = {0};
    sg_run *cpu = mkrun(SG_BACKEND_CPU, 0);
    sg_graph *gc = NULL;
    if (sg_graph_open(cpu, path, NULL, &gc, &err) != SG_OK) fail_msg("open on cpu: %s", err.msg);
    sg_bfs_result *bc = NULL;
    const sg_bfs_options bo = {.source = 3};
    if (sg_bfs(cpu, gc, &bo, &bc, &err) != SG_OK) fail_msg("cpu bfs: %s", err.msg);
    sg_sssp_result *sc = NULL;
    const sg_sssp_options so = {.source = 3, .want_parents = true};
    if (sg_sssp(cpu, gc, &so, &sc, &err) != SG_OK) fail_msg("cpu sssp: %s", err.msg);
    for (int mode = 0; mode < 2; mode++) {
        char *saved = env_push(mode ? "prepare-pin" : NULL);
        for (int rep = 0; rep < 2; rep++) {
            const char *what = mode ? "prepare-pin off" : rep ? "pinned, again" : "pinned";
            sg_run *run = mkrun(SG_BACKEND_GPU, 0);
            sg_graph *g = NULL;
            sg_graph_options go = {.prepare = SG_PREPARE_BFS, .no_weights = true};
            if (sg_graph_open(run, path, &go, &g, &err) != SG_OK)
                fail_msg("%s: open: %s", what, err.msg);
            uint64_t pinned = 99, host_us = 99, prefault = 0;
            if (!tu_counter(run, "result_pinned", &pinned) ||
                !tu_counter(run, "result_prefault_us", &prefault) || pinned != (mode ? 0u : 1u))
                fail_msg("%s: BFS levels: %llu arrays pinned", what, (unsigned long long)pinned);
            sg_bfs_result *b = NULL;
            if (sg_bfs(run, g, &bo, &b, &err) != SG_OK) fail_msg("%s: bfs: %s", what, err.msg);
            if (sg_run_backend(run) != SG_BACKEND_GPU) fail_msg("%s: bfs not on the gpu", what);
            if (!tu_counter(run, "download_host_us", &host_us) || (host_us == 0) != (mode == 0))
                fail_msg("%s: the levels' host copy took %llu us", what,
                         (unsigned long long)host_us);
            if (b->reached != bc->reached || memcmp(b->level, bc->level, t.n * 4) != 0)
                fail_msg("%s: levels differ from the CPU's", what);
            sg_bfs_free(b);
            sg_graph_free(g);
            go = (sg_graph_options){.prepare = SG_PREPARE_SSSP, .prepare_parents = true};
            if (sg_graph_open(run, path, &go, &g, &err) != SG_OK)
                fail_msg("%s: open: %s", what, err.msg);
            if (!tu_counter(run, "result_pinned", &pinned) || pinned != (mode ? 0u : 2u))
                fail_msg("%s: SSSP: %llu arrays pinned", what, (unsigned long long)pinned);
            sg_sssp_result *r = NULL;
            if (sg_sssp(run, g, &so, &r, &err) != SG_OK) fail_msg("%s: sssp: %s", what, err.msg);
            if (r->reached != sc->reached || memcmp(r->dist, sc->dist, t.n * 8) != 0)
                fail_msg("%s: distances differ from the CPU's", what);
            if (sg_verify_sssp(g, r, &err) != SG_OK) fail_msg("%s: %s", what, err.msg);
            sg_sssp_free(r);
            sg_graph_free(g);
            sg_run_free(run);
        }
        env_pop(saved);
    }
    sg_bfs_free(bc);
    sg_sssp_free(sc);
    sg_graph_free(gc);
    sg_run_free(cpu);
    tu_graph_free(&t);
    tu_rm_rf(dir);
    free(dir);
}

int main(void)
{
    if (!sg_gpu_built()) {
        fprintf(stderr, "skipped: this build has no CUDA (sg_gpu_built() is false), so no gpu "
                        "backend to test\n");
        return 77;
    }
    if (sg_gpu_count() == 0) {
        fprintf(stderr, "skipped: no GPU found (sg_gpu_count() == 0)\n");
        return 77;
    }
    small_only = getenv("SG_TEST_SMALL") != NULL;
    if (small_only) fprintf(stderr, "SG_TEST_SMALL: small graphs and one seed only\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mst),
        cmocka_unit_test(test_sssp),
        cmocka_unit_test(test_sssp_light_index),
        cmocka_unit_test(test_sssp_fused_fallback),
        cmocka_unit_test(test_sssp_auto_delta),
        cmocka_unit_test(test_bfs),
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_disable_switches),
        cmocka_unit_test(test_device_budget),
        cmocka_unit_test(test_load_to_device),
        cmocka_unit_test(test_hybrid_splits),
        cmocka_unit_test(test_hybrid_bfs_gather),
        cmocka_unit_test(test_hybrid_forest_cache),
        cmocka_unit_test(test_hybrid_first_loops),
        cmocka_unit_test(test_hybrid_fill_rank),
        cmocka_unit_test(test_hybrid_slots48_fallback),
        cmocka_unit_test(test_hybrid_first_minima),
        cmocka_unit_test(test_hybrid_packed_tail),
        cmocka_unit_test(test_hybrid_narrow_weights),
        cmocka_unit_test(test_forest_round_guard),
        cmocka_unit_test(test_auto_inplace),
        cmocka_unit_test(test_inplace_contract_gate),
        cmocka_unit_test(test_spec_prepared),
        cmocka_unit_test(test_hybrid_sssp_share),
        cmocka_unit_test(test_hybrid_budget),
        cmocka_unit_test(test_hybrid_weight_order),
        cmocka_unit_test(test_weight_order_sssp),
        cmocka_unit_test(test_hybrid_host_memory),
        cmocka_unit_test(test_searches_into),
        cmocka_unit_test(test_sssp_device_rounds),
        cmocka_unit_test(test_settle_stream),
        cmocka_unit_test(test_settle_gather),
        cmocka_unit_test(test_prepared_pinned),
    };
    /* e.g. "test_bfs" (meson runs each so, tests/meson.build), or a pattern */
    const char *only = getenv("SG_TEST_ONLY");
    if (only) {
        bool named = strpbrk(only, "*?") != NULL;
        for (size_t i = 0; i < sizeof tests / sizeof tests[0] && !named; i++)
            named = strcmp(tests[i].name, only) == 0;
        if (!named) {
            fprintf(stderr, "SG_TEST_ONLY=%s names no test of test_gpu_algo\n", only);
            return 1;
        }
        cmocka_set_test_filter(only);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
