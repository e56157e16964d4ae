/* The graph handle: a whole store loaded into host memory as CSR (plain or
 * pinned), or a copy of caller arrays. */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "sg_config.h"
#if SG_HAVE_CUDA
#include "gpu.h"
#endif

void sgi_touch_pages(void *p, size_t bytes, bool all_threads)
{
    volatile unsigned char *const b = p;
    const int64_t pages = (int64_t)((bytes + 4095) / 4096);
#pragma omp parallel for schedule(static, 512) if (all_threads)
    for (int64_t i = 0; i < pages; i++) b[(size_t)i * 4096] = 0;
}

/* Plain memory in whole pages (len, bytes rounded up to 4 KiB), so that an
 * array can be pinned in place (cudaHostRegister) without sharing a page
 * with another; 2 MiB pages from 2 MiB up. */
static void *page_alloc(uint64_t bytes, size_t *len)
{
    const size_t page = 4096;
    *len = ((size_t)(bytes ? bytes : 1) + page - 1) & ~(page - 1);
    return *len >= ((size_t)2 << 20) ? sgi_huge_alloc(*len) : sgi_aligned_alloc(page, *len);
}

#if SG_HAVE_CUDA
/* Registers [p, p + len) for device: `what`, of `bytes`, as the error
 * names it. */
static sg_status pin_array(int device, void *p, size_t len, uint64_t bytes, const char *what,
                           sg_error *err)
{
    sg_error e = {0};
    const sg_status st = sgk_host_pin(device, p, len, &e);
    if (st != SG_OK)
        return sgi_fail(err, st, "pinning %llu bytes for %s: %s", (unsigned long long)bytes,
                        what, e.msg);
    return SG_OK;
}
#endif

/* Page-locked host memory for `what`, in place: plain memory in pages
 * (page_alloc), faulted in by every thread, then registered with the
 * device (cudaHostRegister, portable and mapped) unless `len_out` is given:
 * then the caller registers its *len_out bytes (graph_new, beside the
 * load). cudaHostAlloc pins and maps page by page on one thread: for 17 GB
 * on the H100 host it took 8.2 s and its free 2.7 s, where this took 0.9 s
 * and 0.3 s, and the GPU reads both alike (DMA 55 GB/s, random lines 6
 * GB/s; docs/benchmarks.md, fortieth session). Freed by graph_release. */
static sg_status pinned_alloc(int device, uint64_t bytes, void **out, size_t *len_out,
                              const char *what, sg_error *err)
{
#if SG_HAVE_CUDA
    size_t len = 0;
    void *p = page_alloc(bytes, &len);
    if (!p)
        return sgi_fail(err, SG_E_NOMEM, "out of memory allocating %s (%llu bytes)", what,
                        (unsigned long long)bytes);
    sgi_touch_pages(p, len, true);
    if (len_out) {
        *len_out = len;
        *out = p;
        return SG_OK;
    }
    const sg_status st = pin_array(device, p, len, bytes, what, err);
    if (st != SG_OK) {
        sgi_free(p);
        return st;
    }
    *out = p;
    return SG_OK;
#else
    (void)device;
    (void)bytes;
    (void)out;
    (void)len_out;
    return sgi_fail(err, SG_E_UNSUPPORTED,
                    "pinned memory for %s needs a build with CUDA (this one has none)", what);
#endif
}

/* One array of the handle in the requested memory kind (managed memory is
 * advised for GPU `device`). */
static sg_status graph_alloc(sg_mem_kind mem, int device, uint64_t bytes, void **out,
                             const char *what, sg_error *err)
{
    if (mem == SG_MEM_PINNED) return pinned_alloc(device, bytes, out, NULL, what, err);
    if (mem == SG_MEM_MANAGED) {
#if SG_HAVE_CUDA
        sg_status st = sgk_managed_alloc(device, (size_t)bytes, out, err);
        if (st != SG_OK) {
            char cuda_msg[sizeof err->msg];
            snprintf(cuda_msg, sizeof cuda_msg, "%s", err ? err->msg : "");
            return sgi_fail(err, st, "allocating managed %llu bytes for %s: %s",
                            (unsigned long long)bytes, what, cuda_msg);
        }
        return SG_OK;
#else
        (void)bytes;
        (void)out;
        (void)device;
        return sgi_fail(err, SG_E_UNSUPPORTED,
                        "managed memory for %s needs a build with CUDA (this one has none)", what);
#endif
    }
    /* (a hybrid run may pin it in place later: sgi_graph_device_readable) */
    size_t len = 0;
    void *p = page_alloc(bytes, &len);
    if (!p)
        return sgi_fail(err, SG_E_NOMEM, "out of memory allocating %s (%llu bytes)", what,
                        (unsigned long long)bytes);
    *out = p;
    return SG_OK;
}

static void graph_release(sg_mem_kind mem, bool registered, void *p)
{
    if (!p) return;
#if SG_HAVE_CUDA
    if (mem == SG_MEM_MANAGED) {
        sgk_managed_free(p);
        return;
    }
    if (registered) sgk_host_unregister(p); /* pinned (pinned_alloc) or pinned in place */
#else
    (void)registered;
#endif
    (void)mem;
    sgi_free(p);
}

#if SG_HAVE_CUDA
/* The registration of a pinned graph's A and W (touched, not yet
 * registered) on a thread of its own while the load decodes into them:
 * registering 17 GB took 0.43 s on the H100 host, which the decode hides
 * (docs/benchmarks.md, fortieth session). X is registered before, so a
 * machine without a GPU fails at once. */
struct sgi_pinning {
    pthread_t thread;
    bool threaded; /* registering on `thread` (else done already) */
    int device;
    void *p[3];
    size_t len[3];
    const char *what[3];
    unsigned bit[3]; /* g->pinned's bit for each */
    bool ok[3];
    sg_status st;
    sg_error err;
};

static void *pinning_main(void *arg)
{
    struct sgi_pinning *j = arg;
    for (int i = 0; i < 3 && j->st == SG_OK; i++)
        if (j->p[i]) {
            j->st = pin_array(j->device, j->p[i], j->len[i], j->len[i], j->what[i], &j->err);
            j->ok[i] = j->st == SG_OK;
        }
    return NULL;
}
#endif

/* Waits for g's registration of A and W, if it runs (graph_new); its
 * status (err may be NULL). Afterwards g->pinned says which are pinned. */
static sg_status pinning_wait(sg_graph *g, sg_error *err)
{
    if (!g->pinning) return SG_OK;
#if SG_HAVE_CUDA
    struct sgi_pinning *j = g->pinning;
    g->pinning = NULL;
    if (j->threaded) (void)pthread_join(j->thread, NULL);
    for (int i = 0; i < 3; i++) g->pinned |= j->ok[i] ? j->bit[i] : 0u;
    const sg_status st = j->st;
    if (st != SG_OK && err) *err = j->err;
    sgi_free(j);
    return st;
#else
    (void)err;
    return SG_OK;
#endif
}

void sg_graph_free(sg_graph *g)
{
    if (!g) return;
    (void)pinning_wait(g, NULL);
    graph_release(g->mem, (g->pinned & 1u) != 0, g->x);
    graph_release(g->mem, (g->pinned & 2u) != 0, g->a);
    graph_release(g->mem, (g->pinned & 4u) != 0, g->w);
    graph_release(g->mem, (g->pinned & 8u) != 0, g->w16);
    graph_release(g->mem, (g->pinned & 16u) != 0, g->w8);
    sgi_free(g->orig);
    sgi_free(g->source);
    sgi_free(g);
}

/* A pinned graph's A and W (or W16 and W8): allocated and faulted in here,
 * registered by a thread of its own (sgi_pinning) while the caller loads
 * them; the load ends with pinning_wait. */
static sg_status pinned_start(sg_graph *g, int device, bool weights, bool narrow, sg_error *err)
{
#if SG_HAVE_CUDA
    sg_status st = SG_OK;
    struct sgi_pinning *j = sgi_calloc(1, sizeof *j);
    if (!j) return sgi_fail(err, SG_E_NOMEM, "out of memory allocating the graph's pinning");
    j->device = device;
    j->what[0] = "the neighbours (A)";
    j->bit[0] = 2u;
    st = pinned_alloc(device, g->m * sizeof(uint32_t), (void **)&g->a, &j->len[0], j->what[0],
                      err);
    if (st == SG_OK && weights && narrow) {
        j->what[1] = "the weights' low 16 bits (W16)";
        j->what[2] = "the weights' bits 16-23 (W8)";
        j->bit[1] = 8u;
        j->bit[2] = 16u;
        st = pinned_alloc(device, g->m * sizeof(uint16_t), (void **)&g->w16, &j->len[1],
                          j->what[1], err);
        if (st == SG_OK)
            st = pinned_alloc(device, g->m, (void **)&g->w8, &j->len[2], j->what[2], err);
    } else if (st == SG_OK && weights) {
        j->what[1] = "the weights (W)";
        j->bit[1] = 4u;
        st = pinned_alloc(device, g->m * sizeof(uint32_t), &g->w, &j->len[1], j->what[1], err);
    }
    if (st != SG_OK) {
        sgi_free(j);
        return st;
    }
    j->p[0] = g->a;
    j->p[1] = narrow ? (void *)g->w16 : g->w;
    j->p[2] = narrow ? g->w8 : NULL;
    g->pinning = j;
    j->threaded = pthread_create(&j->thread, NULL, pinning_main, j) == 0;
    if (j->threaded) return SG_OK;
    pinning_main(j); /* no thread to spare: here, before the load */
    return pinning_wait(g, err);
#else
    (void)g, (void)device, (void)weights, (void)narrow;
    return sgi_fail(err, SG_E_UNSUPPORTED, "pinned memory needs a build with CUDA");
#endif
}

/* Allocates the handle and its arrays (contents undefined; a pinned
 * graph's A and W are registered by the time pinning_wait returns);
 * narrow: W as W16 and W8 (not in managed memory). */
static sg_status graph_new(uint64_t n, uint64_t m, bool weights, bool narrow, sg_mem_kind mem,
                           int device, const char *source, sg_graph **out, sg_error *err)
{
    sg_status st = SG_OK;
    sg_graph *g = NULL;
    SG_ALLOC(g, sgi_calloc(1, sizeof *g), err, "the graph handle");
    g->n = n;
    g->m = m;
    g->mem = mem;
    g->wt = SG_WEIGHT_U32;
    g->uid = sgi_graph_uid();
    SG_ALLOC(g->source, sgi_strdup(source), err, "the graph's name");
    SG_TRY(graph_alloc(mem, device, (n + 1) * sizeof(uint64_t), (void **)&g->x,
                       "the offsets (X)", err));
    SG_CHECK(!narrow || mem != SG_MEM_MANAGED, SG_E_INVALID, err,
             "24-bit weights are not held in managed memory");
    if (mem == SG_MEM_PINNED) {
        g->pinned = 1u;
        SG_TRY(pinned_start(g, device, weights, narrow, err));
    } else {
        SG_TRY(graph_alloc(mem, device, m * sizeof(uint32_t), (void **)&g->a,
                           "the neighbours (A)", err));
        if (weights && narrow) {
            SG_TRY(graph_alloc(mem, device, m * sizeof(uint16_t), (void **)&g->w16,
                               "the weights' low 16 bits (W16)", err));
            SG_TRY(graph_alloc(mem, device, m, (void **)&g->w8, "the weights' bits 16-23 (W8)",
                               err));
        } else if (weights) {
            SG_TRY(graph_alloc(mem, device, m * sizeof(uint32_t), &g->w, "the weights (W)", err));
        }
    }
    *out = g;
    return SG_OK;
fail:
    sg_graph_free(g);
    return st;
}

uint64_t sgi_graph_uid(void)
{
    static uint64_t next = 0;
    return __atomic_add_fetch(&next, 1, __ATOMIC_RELAXED);
}

/* g's longest list and its degree descents (the vertices of lower degree
 * than the one before: 0 in ascending degree order, the planner's
 * renumbering hint), in one pass over X. */
static void degree_scan(sg_graph *g)
{
    const uint64_t *x = g->x;
    uint64_t best = 0, desc = 0;
#pragma omp parallel for reduction(max : best) reduction(+ : desc) schedule(static)
    for (uint64_t v = 0; v < g->n; v++) {
        const uint64_t d = x[v + 1] - x[v];
        if (d > best) best = d;
        desc += v > 0 && d < x[v] - x[v - 1];
    }
    g->max_degree = best;
    g->degree_descents = desc;
}

/* (spillgraph.h: the store's and the switches' part of the rule) */
bool sg_narrow_store(const sg_store_info *info, sg_mem_kind mem, sg_narrow how)
{
    return how != SG_NARROW_NONE && info->weight_type == SG_WEIGHT_U32 && !info->weight_order &&
           info->n_edges > 0 && mem != SG_MEM_MANAGED && !sgi_switch_off("narrow-weights") &&
           (how == SG_NARROW_ALWAYS || sgi_switch_on("narrow-weights"));
}

/* Whether the load of a store (info) with these options holds W in 24
 * bits (sg_graph_options.narrow_weights): sg_narrow_store's rule, and for
 * SG_NARROW_HYBRID_FOREST a run whose forest will take the hybrid backend
 * (sgi_gpu_forest_hybrid). */
static bool load_narrow(sg_run *run, const sg_store_info *info, const sg_graph_options *opt)
{
    if (opt->no_weights || !sg_narrow_store(info, opt->mem, opt->narrow_weights)) return false;
    return opt->narrow_weights == SG_NARROW_ALWAYS ||
           sgi_gpu_forest_hybrid(run, info->n_vertices, info->n_edges);
}

static sg_status graph_open(sg_run *run, const char *path, const sg_graph_options *opt,
                            bool try_narrow, sg_graph **out, sg_error *err)
{
    sg_status st = SG_OK;
    bool narrow = false;
    double t0 = sgi_now();
    sg_store *s = NULL;
    sg_graph *g = NULL;
    sgi_prefault *pf = NULL;
    SG_TRY(sg_store_open(path, &s, err));
    sg_store_info info;
    sg_store_get_info(s, &info);
    bool weights = !opt->no_weights;
    narrow = try_narrow && load_narrow(run, &info, opt);
    sg_mem_kind mem = opt->mem;
    if (narrow && mem == SG_MEM_AUTO) /* (the spilled part's DMA needs no managed memory) */
        mem = run->backend == SG_BACKEND_CPU ? SG_MEM_PLAIN : SG_MEM_PINNED;
    const uint64_t bytes = (info.n_vertices + 1) * 8 + info.n_edges * 4 * (weights ? 2 : 1);
    if (mem == SG_MEM_AUTO) {
        mem = sgi_gpu_host_kind(run, bytes);
        if (opt->forest && mem == SG_MEM_MANAGED) mem = SG_MEM_PINNED; /* (above) */
    }
    if (mem == SG_MEM_MANAGED) SG_TRY(sgi_gpu_managed_room(run, bytes, path, err));
    const double ta = sgi_now();
    SG_TRY(graph_new(info.n_vertices, info.n_edges, weights, narrow, mem, run->device, path, &g,
                     err));
    const double tr = sgi_now();
    /* the first search's result, faulted in beside the reads below */
    SG_TRY(sgi_prefault_start(opt, info.n_vertices, info.weight_type,
                              run->backend == SG_BACKEND_CPU ? -1 : run->device, &pf, err));
    g->directed = info.directed;
    g->negative_weights = info.negative_weights;
    g->weight_order = info.weight_order;
    g->wt = info.weight_type;
    sgi_run_progress(run, "load", 0.0);
    sg_read_request req = {.v_begin = 0, .v_end = info.n_vertices, .x = g->x, .a = g->a,
                           .w = g->w, .w16 = g->w16, .w8 = g->w8};
    sg_read_options ro = opt->read;
    if (ro.threads <= 0) ro.threads = run->threads;
    bool staged = false;
    /* (a narrow graph is for the hybrid forest: no whole copy on the device,
     * and the staged load would read W as 32-bit weights) */
    if (info.n_vertices > 0 && !opt->host_only && !narrow)
        SG_TRY(sgi_gpu_load(run, s, g, &ro, &staged, err));
    if (staged) {
        /* read, copied to the device and into the host arrays */
    } else if (info.n_vertices > 0) {
        SG_TRY(sg_store_read(s, &req, &ro, NULL, err));
    } else {
        g->x[0] = 0;
    }
    const double tw = sgi_now();
    degree_scan(g);
    if (opt->original_ids && info.has_original_ids && info.n_vertices > 0) {
        SG_ALLOC(g->orig, sgi_huge_alloc(info.n_vertices * sizeof *g->orig), err,
                 "the original ids");
        SG_TRY(sg_store_original_ids(s, 0, info.n_vertices, g->orig, err));
    }
    sgi_prefault_finish(pf, run, g->uid);
    pf = NULL;
    const double tp = sgi_now();
    SG_TRY(pinning_wait(g, err));
    const double te = sgi_now();
    sgi_run_progress(run, "load", 1.0);
    sg_store_close(s);
    /* where the load's time went: the store's opening and the memory
     * kind's choice, the arrays (a pinned graph's faults and X's
     * registration), the store's read, the wait for A and W's
     * registration after it (pinned: graph_new), and the rest */
    const double t1 = sgi_now();
    sg_run_set(run, "load_setup_us", (uint64_t)llround((ta - t0) * 1e6));
    sg_run_set(run, "load_alloc_us", (uint64_t)llround((tr - ta) * 1e6));
    sg_run_set(run, "load_read_us", (uint64_t)llround((tw - tr) * 1e6));
    sg_run_set(run, "load_pin_wait_us", (uint64_t)llround((te - tp) * 1e6));
    sg_run_set(run, "load_finish_us", (uint64_t)llround((t1 - te + tp - tw) * 1e6));
    sg_run_set(run, "narrow_weights", narrow);
    run->seconds[SG_PHASE_LOAD] += t1 - t0;
    *out = g;
    return SG_OK;
fail:
    sgi_prefault_drop(pf);
    sg_store_close(s);
    sg_graph_free(g);
    if (st == SG_E_RANGE && narrow) run->seconds[SG_PHASE_LOAD] += sgi_now() - t0;
    return st;
}

sg_status sg_graph_open(sg_run *run, const char *path, const sg_graph_options *opt, sg_graph **out,
                        sg_error *err)
{
    static const sg_graph_options defaults = {0};
    if (!opt) opt = &defaults;
    if (!run || !path || !out) return sgi_fail(err, SG_E_INVALID, "sg_graph_open: NULL argument");
    sg_error e = {0};
    const sg_status st = graph_open(run, path, opt, true, out, &e);
    if (st != SG_E_RANGE || opt->narrow_weights == SG_NARROW_NONE) {
        if (st != SG_OK && err) *err = e;
        return st;
    }
    /* a weight of 2^24 or more in the store: loaded again, with 32-bit
     * weights (the time of both loads is the load's) */
    sg_run_set(run, "narrow_weights_refused", 1);
    return graph_open(run, path, opt, false, out, err);
}

sg_status sg_graph_sort_by_weight(sg_graph *g, int threads, sg_error *err)
{
    if (!g) return sgi_fail(err, SG_E_INVALID, "sg_graph_sort_by_weight: NULL graph");
    const sg_status ns = sgi_narrow_refused(g, "weight order", err);
    if (ns != SG_OK) return ns;
    if (!g->w)
        return sgi_fail(err, SG_E_INVALID,
                        "%s: no weights loaded: weight order needs them (load W)", g->source);
    const uint64_t n = g->n, md = g->max_degree;
    const int nt = threads > 0 ? threads : omp_get_max_threads();
    uint64_t *buf = md > 0 ? sgi_huge_alloc((size_t)nt * 2 * md * sizeof *buf) : NULL;
    if (md > 0 && !buf)
        return sgi_fail(err, SG_E_NOMEM, "%s: out of memory for the list sort scratch (%llu bytes)",
                        g->source, (unsigned long long)((uint64_t)nt * 16 * md));
    uint32_t *a = g->a, *w = g->w;
    const sg_weight_type wt = g->wt;
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nt)
    for (uint64_t v = 0; v < n; v++) {
        const uint64_t b = g->x[v], d = g->x[v + 1] - b;
        if (d < 2) continue;
        uint64_t *k = buf + (size_t)omp_get_thread_num() * 2 * md;
        for (uint64_t j = 0; j < d; j++)
            k[j] = (uint64_t)sgi_weight_key(wt, w[b + j]) << 32 | a[b + j];
        const uint64_t *r = sgi_sort_u64(k, d, k + d);
        for (uint64_t j = 0; j < d; j++) {
            a[b + j] = (uint32_t)r[j];
            w[b + j] = sgi_weight_unkey(wt, (uint32_t)(r[j] >> 32));
        }
    }
    sgi_free(buf);
    g->weight_order = true;
    g->uid = sgi_graph_uid(); /* device copies of the old order no longer match */
    return SG_OK;
}

sg_status sg_graph_from_arrays(uint64_t n, const uint64_t *x, const uint32_t *a, const void *w,
                               sg_weight_type wt, bool directed, sg_graph **out, sg_error *err)
{
    sg_status st = SG_OK;
    sg_graph *g = NULL;
    if (!x || !out) return sgi_fail(err, SG_E_INVALID, "sg_graph_from_arrays: NULL argument");
    if (n > ((uint64_t)1 << 32))
        return sgi_fail(err, SG_E_RANGE, "%llu vertices: ids are 32-bit, at most 2^32 vertices",
                        (unsigned long long)n);
    if (wt != SG_WEIGHT_U32 && wt != SG_WEIGHT_F32)
        return sgi_fail(err, SG_E_INVALID, "unknown weight type %d", (int)wt);
    if (x[0] != 0) return sgi_fail(err, SG_E_INVALID, "offsets: x[0] is %llu, not 0", (unsigned long long)x[0]);
    for (uint64_t v = 0; v < n; v++)
        if (x[v + 1] < x[v])
            return sgi_fail(err, SG_E_INVALID, "offsets decrease at vertex %llu", (unsigned long long)v);
    uint64_t m = x[n];
    if (m && !a) return sgi_fail(err, SG_E_INVALID, "sg_graph_from_arrays: %llu edges but no neighbours",
                                 (unsigned long long)m);
    for (uint64_t e = 0; e < m; e++)
        if (a[e] >= n)
            return sgi_fail(err, SG_E_INVALID, "edge %llu: neighbour %u is not below n = %llu",
                            (unsigned long long)e, a[e], (unsigned long long)n);
    bool negative = false;
    if (w && wt == SG_WEIGHT_F32)
        for (uint64_t e = 0; e < m; e++) {
            float f = ((const float *)w)[e];
            if (!isfinite(f))
                return sgi_fail(err, SG_E_INVALID, "edge %llu: weight is not finite",
                                (unsigned long long)e);
            if (f < 0) negative = true;
        }
    SG_TRY(graph_new(n, m, true, false, SG_MEM_PLAIN, 0, "memory", &g, err));
    g->directed = directed;
    g->wt = wt;
    g->negative_weights = negative;
    memcpy(g->x, x, (n + 1) * sizeof *x);
    if (m) memcpy(g->a, a, m * sizeof *a);
    for (uint64_t e = 0; e < m; e++)
        ((uint32_t *)g->w)[e] = w ? ((const uint32_t *)w)[e] : (wt == SG_WEIGHT_F32 ? 0x3f800000u : 1u);
    degree_scan(g);
    *out = g;
    return SG_OK;
fail:
    sg_graph_free(g);
    return st;
}

void sg_graph_get_info(const sg_graph *g, sg_graph_info *out)
{
    memset(out, 0, sizeof *out);
    out->n_vertices = g->n;
    out->n_edges = g->m;
    out->directed = g->directed;
    out->negative_weights = g->negative_weights;
    out->has_weights = sgi_graph_has_w(g);
    out->narrow_weights = g->w16 != NULL;
    out->weight_type = g->wt;
    out->mem = g->mem;
    out->bytes = (g->n + 1) * sizeof(uint64_t) + g->m * sizeof(uint32_t) +
                 g->m * (g->w ? 4 : g->w16 ? 3 : 0);
    out->max_degree = g->max_degree;
    out->degree_descents = g->degree_descents;
    out->has_original_ids = g->orig != NULL;
    out->weight_order = g->weight_order;
    out->source = g->source;
}

const uint64_t *sg_graph_offsets(const sg_graph *g) { return g->x; }
const uint32_t *sg_graph_neighbors(const sg_graph *g) { return g->a; }
const void *sg_graph_weights(const sg_graph *g) { return g->w; }

/* splitmix64: a counter-based stream, so the draw depends only on the seed. */
static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Whether v has an edge to a vertex other than itself. */
static bool has_real_edge(const sg_graph *g, uint64_t v)
{
    for (uint64_t e = g->x[v]; e < g->x[v + 1]; e++)
        if (g->a[e] != v) return true;
    return false;
}

sg_status sg_graph_random_source(const sg_graph *g, uint64_t seed, uint32_t *out, sg_error *err)
{
    if (!g || !out) return sgi_fail(err, SG_E_INVALID, "sg_graph_random_source: NULL argument");
    if (g->n == 0) return sgi_fail(err, SG_E_INVALID, "the graph has no vertices: no source to draw");
    for (uint64_t i = 0; i < 4096; i++) {
        uint64_t v = mix64(seed * 4096 + i) % g->n;
        if (has_real_edge(g, v)) {
            *out = (uint32_t)v;
            return SG_OK;
        }
    }
    /* Sparse in edges: pick the k-th vertex with an edge, k from the seed. */
    uint64_t count = 0;
    for (uint64_t v = 0; v < g->n; v++) count += has_real_edge(g, v);
    if (count == 0)
        return sgi_fail(err, SG_E_INVALID,
                        "no vertex has an edge to another vertex: no source to draw");
    uint64_t k = mix64(seed) % count;
    for (uint64_t v = 0; v < g->n; v++)
        if (has_real_edge(g, v) && k-- == 0) {
            *out = (uint32_t)v;
            return SG_OK;
        }
    return sgi_fail(err, SG_E_INVALID, "no source found"); /* not reached */
}

const uint64_t *sg_graph_original_ids(const sg_graph *g) { return g->orig; }

sg_status sg_graph_find_original(const sg_graph *g, uint64_t orig, uint32_t *v, sg_error *err)
{
    if (!g || !v) return sgi_fail(err, SG_E_INVALID, "sg_graph_find_original: NULL argument");
    if (!g->orig)
        return sgi_fail(err, SG_E_INVALID,
                        "%s has no original ids loaded (a store converted with --ids compact "
                        "keeps them)", g->source);
    uint64_t lo = 0, hi = g->n;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (g->orig[mid] < orig) lo = mid + 1;
        else hi = mid;
    }
    if (lo == g->n || g->orig[lo] != orig)
        return sgi_fail(err, SG_E_NOTFOUND, "no vertex of %s has the original id %llu", g->source,
                        (unsigned long long)orig);
    *v = (uint32_t)lo;
    return SG_OK;
}

sg_status sgi_narrow_refused(const sg_graph *g, const char *what, sg_error *err)
{
    if (!g->w16) return SG_OK;
    return sgi_fail(err, SG_E_UNSUPPORTED,
                    "%s: %s reads 32-bit weights, and this graph holds them in 24 bits for the "
                    "hybrid backend's forest (sg_graph_options.narrow_weights): load it without "
                    "that option", g->source, what);
}

sg_status sgi_graph_device_readable(sg_graph *g, sg_error *err)
{
    if (g->mem != SG_MEM_PLAIN || g->pinned) return SG_OK;
#if SG_HAVE_CUDA
    /* (bits of g->pinned: 1 << i) */
    void *const arr[5] = {g->x, g->m ? g->a : NULL, g->m ? g->w : NULL, g->m ? g->w16 : NULL,
                          g->m ? g->w8 : NULL};
    const size_t len[5] = {(g->n + 1) * sizeof(uint64_t), g->m * sizeof(uint32_t),
                           g->m * sizeof(uint32_t), g->m * sizeof(uint16_t), g->m};
    sg_status st = SG_OK;
    for (unsigned i = 0; i < 5 && st == SG_OK; i++)
        if (arr[i] && (st = sgk_host_register(arr[i], len[i], err)) == SG_OK) g->pinned |= 1u << i;
    if (st == SG_OK) return SG_OK;
    for (unsigned i = 0; i < 5; i++)
        if (g->pinned & (1u << i)) sgk_host_unregister(arr[i]);
    g->pinned = 0;
    char cuda_msg[sizeof err->msg];
    snprintf(cuda_msg, sizeof cuda_msg, "%s", err ? err->msg : "");
    return sgi_fail(err, st, "pinning the graph's arrays in place: %s", cuda_msg);
#else
    return sgi_fail(err, SG_E_UNSUPPORTED, "the GPU cannot read host memory without CUDA");
#endif
}
