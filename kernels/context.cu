// The device context: memory accountant, streams, staged uploads through
// two pinned buffers, device graphs, and the stats helper.
#include <cuda_runtime.h>

#include <new>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinternal.cuh"

sg_status sgk_cuda_fail(sg_error *err, const char *call, cudaError_t e, const char *file, int line)
{
    const char *base = strrchr(file, '/');
    return sgi_fail(err, SG_E_DEVICE, "%s: %s (%s) at %s:%d", call, cudaGetErrorName(e),
                    cudaGetErrorString(e), base ? base + 1 : file, line);
}

static double gib(uint64_t b) { return (double)b / (double)(1ull << 30); }

// ------------------------------------------------------------ accountant

sg_status sgk_alloc(sgk_ctx *c, void **p, size_t bytes, const char *what, sg_error *err)
{
    const size_t want = bytes ? bytes : 256;
    if (c->in_use + want > c->budget) {
        c->refused++;
        return sgi_fail(err, SG_E_NOMEM,
                        "device memory budget exceeded allocating %s: %llu bytes (%.2f GiB) "
                        "asked, %.2f GiB in use, budget %.2f GiB (--device-mem)",
                        what, (unsigned long long)want, gib(want), gib(c->in_use), gib(c->budget));
    }
    void *q = nullptr;
    const cudaError_t e = cudaMalloc(&q, want);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        c->refused++;
        return sgi_fail(err, e == cudaErrorMemoryAllocation ? SG_E_NOMEM : SG_E_DEVICE,
                        "cudaMalloc of %llu bytes for %s: %s (%s); %.2f GiB in use of a %.2f GiB "
                        "budget",
                        (unsigned long long)want, what, cudaGetErrorName(e), cudaGetErrorString(e),
                        gib(c->in_use), gib(c->budget));
    }
    try {
        (*c->sizes)[q] = want;
    } catch (...) {
        cudaFree(q);
        return sgi_fail(err, SG_E_NOMEM, "out of host memory recording a device allocation");
    }
    c->in_use += want;
    if (c->in_use > c->peak) c->peak = c->in_use;
    c->allocations++;
    *p = q;
    return SG_OK;
}

void sgk_free(sgk_ctx *c, void *p)
{
    if (!p || !c) return;
    auto it = c->sizes->find(p);
    if (it != c->sizes->end()) {
        c->in_use -= it->second;
        c->sizes->erase(it);
    }
    (void)cudaFree(p);
}

// ------------------------------------------------------------ context

uint64_t sgk_default_margin(uint64_t total_bytes) { return sgi_device_margin(total_bytes); }

void sgk_ctx_free(sgk_ctx *c)
{
    if (!c) return;
    (void)cudaSetDevice(c->device);
    if (c->sizes) {
        for (auto &kv : *c->sizes) (void)cudaFree(kv.first);
        delete c->sizes;
    }
    for (int i = 0; i < 2; i++) {
        if (c->stage_done[i]) (void)cudaEventSynchronize(c->stage_done[i]);
        if (c->stage_done[i]) (void)cudaEventDestroy(c->stage_done[i]);
        if (c->stage[i]) (void)cudaFreeHost(c->stage[i]);
    }
    if (c->busy) {
        for (auto &pr : *c->busy) {
            (void)cudaEventDestroy(pr.first);
            (void)cudaEventDestroy(pr.second);
        }
        delete c->busy;
    }
    if (c->copy_first) (void)cudaEventDestroy(c->copy_first);
    if (c->copy_last) (void)cudaEventDestroy(c->copy_last);
    if (c->stream) (void)cudaStreamDestroy(c->stream);
    if (c->copy) (void)cudaStreamDestroy(c->copy);
    free(c);
}

static sg_status ctx_init(sgk_ctx *c, int index, uint64_t budget, sg_error *err)
{
    cudaDeviceProp p;
    size_t free_b = 0, total_b = 0;
    sgk_cuda_start();
    SGK_CU(cudaGetDeviceProperties(&p, index));
    SGK_CU(cudaSetDevice(index));
    SGK_CU(cudaMemGetInfo(&free_b, &total_b));
    c->device = index;
    snprintf(c->name, sizeof c->name, "%.127s", p.name);
    c->sm_count = p.multiProcessorCount;
    c->l2_bytes = (uint64_t)p.l2CacheSize;
    if (budget == 0) {
        const uint64_t margin = sgk_default_margin(total_b);
        budget = free_b > margin ? free_b - margin : 0;
    } else if (budget > free_b) {
        return sgi_fail(err, SG_E_INVALID,
                        "device budget %.2f GiB (--device-mem) is more than the %.2f GiB free on "
                        "GPU %d (%s)",
                        gib(budget), gib(free_b), index, c->name);
    }
    c->budget = budget;
    try {
        c->sizes = new std::unordered_map<void *, size_t>();
        c->busy = new std::vector<std::pair<cudaEvent_t, cudaEvent_t>>();
    } catch (...) {
        return sgi_fail(err, SG_E_NOMEM, "out of host memory creating the device context");
    }
    SGK_CU(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    // The copy stream at the highest priority: its kernels (the forest CPU
    // share's scatter out of a staging buffer, kernels/mst.cu) are short
    // and hold a buffer the CPU threads wait for, beside the compute
    // stream's long walks.
    int prio_low = 0, prio_high = 0;
    SGK_CU(cudaDeviceGetStreamPriorityRange(&prio_low, &prio_high));
    SGK_CU(cudaStreamCreateWithPriority(&c->copy, cudaStreamNonBlocking, prio_high));
    for (int i = 0; i < 2; i++) {
        SGK_CU(cudaHostAlloc(&c->stage[i], SGK_STAGE_BYTES, cudaHostAllocPortable));
        SGK_CU(cudaEventCreateWithFlags(&c->stage_done[i], cudaEventDisableTiming));
    }
    SGK_CU(cudaEventCreate(&c->copy_first));
    SGK_CU(cudaEventCreate(&c->copy_last));
    const char *dis = getenv("SPILLGRAPH_GPU_DISABLE");
    snprintf(c->disabled, sizeof c->disabled, ",%s,", dis ? dis : "");
    const char *en = getenv("SPILLGRAPH_GPU_ENABLE");
    snprintf(c->enabled, sizeof c->enabled, ",%s,", en ? en : "");
    return SG_OK;
}

sg_status sgk_ctx_create(int index, uint64_t budget, sgk_ctx **out, sg_error *err)
{
    if (!out) return sgi_fail(err, SG_E_INVALID, "sgk_ctx_create: out is NULL");
    const int count = sgk_device_count();
    if (index < 0 || index >= count)
        return sgi_fail(err, SG_E_DEVICE, "no GPU with index %d (%d present)", index, count);
    sgk_ctx *c = static_cast<sgk_ctx *>(calloc(1, sizeof *c));
    if (!c) return sgi_fail(err, SG_E_NOMEM, "out of memory allocating the device context");
    const sg_status st = ctx_init(c, index, budget, err);
    if (st != SG_OK) {
        sgk_ctx_free(c);
        return st;
    }
    *out = c;
    return SG_OK;
}

void sgk_ctx_mem(const sgk_ctx *c, sgk_mem_stats *out)
{
    out->budget = c->budget;
    out->in_use = c->in_use;
    out->peak = c->peak;
    out->allocations = c->allocations;
    out->refused = c->refused;
}

void sgk_ctx_reset_peak(sgk_ctx *c) { c->peak = c->in_use; }
const char *sgk_ctx_device_name(const sgk_ctx *c) { return c->name; }
int sgk_ctx_device_index(const sgk_ctx *c) { return c->device; }

void sgk_ctx_set_threads(sgk_ctx *c, int threads) { c->threads = threads > 0 ? threads : 0; }

bool sgk_ctx_disabled(const sgk_ctx *c, const char *name)
{
    char key[80];
    snprintf(key, sizeof key, ",%s,", name);
    return strstr(c->disabled, key) != nullptr;
}

bool sgk_ctx_enabled(const sgk_ctx *c, const char *name)
{
    char key[80];
    snprintf(key, sizeof key, ",%s,", name);
    return strstr(c->enabled, key) != nullptr && !sgk_ctx_disabled(c, name);
}

void sgk_stats_set(sgk_stats *s, const char *name, uint64_t value)
{
    for (unsigned i = 0; i < s->n; i++)
        if (strcmp(s->name[i], name) == 0) {
            s->value[i] = value;
            return;
        }
    if (s->n == SGK_MAX_STATS) { // a programming error: say so once, not silently
        static bool told = false;
        if (!told)
            fprintf(stderr, "spillgraph: internal: counter '%s' dropped: more than %d counters "
                            "(raise SGK_MAX_STATS, kernels/gpu.h)\n", name, SGK_MAX_STATS);
        told = true;
        return;
    }
    s->name[s->n] = name;
    s->value[s->n++] = value;
}

// ------------------------------------------------------------ staging

sg_status sgk_stage_begin(sgk_ctx *c, sgk_stage *out, sg_error *err)
{
    const int slot = c->stage_next;
    if (c->stage_busy[slot]) {
        SGK_CU(cudaEventSynchronize(c->stage_done[slot]));
        c->stage_busy[slot] = false;
    }
    c->stage_next = 1 - slot;
    out->buf = c->stage[slot];
    out->cap = SGK_STAGE_BYTES;
    out->slot = slot;
    return SG_OK;
}

// Waits for every copy still queued out of the staging buffers.
static sg_status stage_idle(sgk_ctx *c, sg_error *err)
{
    for (int i = 0; i < 2; i++)
        if (c->stage_busy[i]) {
            SGK_CU(cudaEventSynchronize(c->stage_done[i]));
            c->stage_busy[i] = false;
        }
    return SG_OK;
}

sg_status sgk_stage_lend(sgk_ctx *c, void *bufs[2], sg_error *err)
{
    SGK_TRY(stage_idle(c, err));
    bufs[0] = c->stage[0];
    bufs[1] = c->stage[1];
    return SG_OK;
}

sg_status sgk_stage_return(sgk_ctx *c, cudaStream_t stream, sg_error *err)
{
    for (int i = 0; i < 2; i++) {
        SGK_CU(cudaEventRecord(c->stage_done[i], stream));
        c->stage_busy[i] = true;
    }
    return SG_OK;
}

// A new (start, end) event pair on the copy engine's busy list.
static sg_status busy_pair(sgk_ctx *c, cudaEvent_t *pa, cudaEvent_t *pb, sg_error *err)
{
    cudaEvent_t a = nullptr, b = nullptr;
    SGK_CU(cudaEventCreate(&a));
    const cudaError_t e = cudaEventCreate(&b);
    if (e != cudaSuccess) {
        (void)cudaEventDestroy(a);
        return sgk_cuda_fail(err, "cudaEventCreate", e, __FILE__, __LINE__);
    }
    try {
        c->busy->push_back({a, b});
    } catch (...) {
        (void)cudaEventDestroy(a);
        (void)cudaEventDestroy(b);
        return sgi_fail(err, SG_E_NOMEM, "out of host memory for copy timing events");
    }
    *pa = a;
    *pb = b;
    return SG_OK;
}

sg_status sgk_stage_copy(sgk_ctx *c, const sgk_stage *s, size_t off, void *dst, size_t bytes,
                         sg_error *err)
{
    if (off > s->cap || bytes > s->cap - off)
        return sgi_fail(err, SG_E_INVALID, "staged copy of %zu bytes at %zu overruns the %zu-byte "
                        "staging buffer", bytes, off, s->cap);
    if (bytes == 0) return SG_OK;
    if (!c->copy_started) {
        SGK_CU(cudaEventRecord(c->copy_first, c->copy));
        c->copy_started = true;
    }
    if (!c->slot_timed[s->slot]) {
        cudaEvent_t a = nullptr, b = nullptr;
        SGK_TRY(busy_pair(c, &a, &b, err));
        SGK_CU(cudaEventRecord(a, c->copy));
        c->slot_timed[s->slot] = true;
    }
    SGK_CU(cudaMemcpyAsync(dst, static_cast<char *>(s->buf) + off, bytes, cudaMemcpyHostToDevice,
                           c->copy));
    c->copy_bytes += bytes;
    return SG_OK;
}

sg_status sgk_stage_end(sgk_ctx *c, const sgk_stage *s, sg_error *err)
{
    SGK_CU(cudaEventRecord(c->stage_done[s->slot], c->copy));
    if (c->slot_timed[s->slot]) SGK_CU(cudaEventRecord(c->busy->back().second, c->copy));
    c->slot_timed[s->slot] = false;
    c->stage_busy[s->slot] = true;
    return SG_OK;
}

sg_status sgk_stage_finish(sgk_ctx *c, uint64_t *bytes, double *seconds, double *span,
                           sg_error *err)
{
    float ms = 0.0f;
    double busy = 0.0;
    if (c->copy_started) {
        SGK_CU(cudaEventRecord(c->copy_last, c->copy));
        SGK_CU(cudaEventSynchronize(c->copy_last));
        SGK_CU(cudaEventElapsedTime(&ms, c->copy_first, c->copy_last));
    }
    SGK_CU(cudaStreamSynchronize(c->copy));
    for (auto &pr : *c->busy) {
        float one = 0.0f;
        SGK_CU(cudaEventElapsedTime(&one, pr.first, pr.second));
        busy += one * 1e-3;
    }
    for (auto &pr : *c->busy) {
        (void)cudaEventDestroy(pr.first);
        (void)cudaEventDestroy(pr.second);
    }
    c->busy->clear();
    c->stage_busy[0] = c->stage_busy[1] = false;
    c->slot_timed[0] = c->slot_timed[1] = false;
    if (bytes) *bytes = c->copy_bytes;
    if (seconds) *seconds = busy;
    if (span) *span = ms * 1e-3;
    c->copy_bytes = 0;
    c->copy_started = false;
    return SG_OK;
}

sg_status sgk_upload(sgk_ctx *c, void *dst, const void *src, size_t bytes, sg_error *err)
{
    if (bytes == 0) return SG_OK;
    // Pinned (or registered) sources go to the device by DMA from where
    // they are; anything else through the staging buffers.
    cudaPointerAttributes at;
    memset(&at, 0, sizeof at);
    SGK_CU(cudaPointerGetAttributes(&at, src));
    if (at.type == cudaMemoryTypeHost) {
        cudaEvent_t a = nullptr, b = nullptr;
        SGK_TRY(busy_pair(c, &a, &b, err));
        if (!c->copy_started) {
            SGK_CU(cudaEventRecord(c->copy_first, c->copy));
            c->copy_started = true;
        }
        SGK_CU(cudaEventRecord(a, c->copy));
        SGK_CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, c->copy));
        SGK_CU(cudaEventRecord(b, c->copy));
        c->copy_bytes += bytes;
        return SG_OK;
    }
    // Into each staging buffer by every host thread while the copy engine
    // takes the one before: a managed source (the hybrid plan's device part)
    // went at ~5 GB/s on one thread, ~1 s of a BFS load on SSCA2 26 at 6 GiB
    // (docs/benchmarks.md, fortieth session).
    size_t done = 0;
    while (done < bytes) {
        sgk_stage s = {nullptr, 0, 0};
        SGK_TRY(sgk_stage_begin(c, &s, err));
        const size_t piece = bytes - done < s.cap ? bytes - done : s.cap;
        sgk_host_pcopy(s.buf, static_cast<const char *>(src) + done, piece, c->threads);
        SGK_TRY(sgk_stage_copy(c, &s, 0, static_cast<char *>(dst) + done, piece, err));
        SGK_TRY(sgk_stage_end(c, &s, err));
        done += piece;
    }
    return SG_OK;
}

void sgk_host_pcopy(void *dst, const void *src, size_t bytes, int threads)
{
    const int t = threads > 0 ? threads : omp_get_max_threads();
    // a piece a thread (at least 64 KiB, whole 4 KiB pages)
    size_t piece = (bytes / (size_t)t + 4095) & ~(size_t)4095;
    if (piece < ((size_t)64 << 10)) piece = (size_t)64 << 10;
    const long k = (long)((bytes + piece - 1) / piece);
#pragma omp parallel for schedule(static) if (k > 1) num_threads(t)
    for (long i = 0; i < k; i++) {
        const size_t off = (size_t)i * piece;
        const size_t len = bytes - off < piece ? bytes - off : piece;
        memcpy(static_cast<char *>(dst) + off, static_cast<const char *>(src) + off, len);
    }
}

void sgk_download_us(const sgk_ctx *c, uint64_t *wait, uint64_t *copy)
{
    *wait = c->dl_wait_us;
    *copy = c->dl_copy_us;
}

sg_status sgk_download(sgk_ctx *c, void *dst, const void *src, size_t bytes, sg_error *err)
{
    // Waits for uploads still in flight on the staging buffers first.
    SGK_TRY(stage_idle(c, err));
    // A page-locked destination (a result pinned while the graph loaded)
    // takes one DMA, no host copy.
    cudaPointerAttributes at;
    memset(&at, 0, sizeof at);
    SGK_CU(cudaPointerGetAttributes(&at, dst));
    if (at.type == cudaMemoryTypeHost) {
        SGK_CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, c->stream));
        const double t0 = sgi_now();
        SGK_CU(cudaStreamSynchronize(c->stream));
        c->dl_wait_us += (uint64_t)((sgi_now() - t0) * 1e6);
        return SG_OK;
    }
    const size_t cap = SGK_STAGE_BYTES;
    const size_t pieces = (bytes + cap - 1) / cap;
    // Queue piece 0; then for each piece: queue the next one into the other
    // buffer, wait for this one, copy it out while the next is on the wire.
    for (size_t i = 0; i < pieces; i++) {
        if (i == 0) {
            const size_t len = bytes < cap ? bytes : cap;
            SGK_CU(cudaMemcpyAsync(c->stage[0], src, len, cudaMemcpyDeviceToHost, c->stream));
            SGK_CU(cudaEventRecord(c->stage_done[0], c->stream));
        }
        if (i + 1 < pieces) {
            const int b = (int)((i + 1) & 1);
            const size_t off = (i + 1) * cap, len = bytes - off < cap ? bytes - off : cap;
            SGK_CU(cudaMemcpyAsync(c->stage[b], static_cast<const char *>(src) + off, len,
                                   cudaMemcpyDeviceToHost, c->stream));
            SGK_CU(cudaEventRecord(c->stage_done[b], c->stream));
        }
        const int b = (int)(i & 1);
        const double t0 = sgi_now();
        SGK_CU(cudaEventSynchronize(c->stage_done[b]));
        const double t1 = sgi_now();
        const size_t off = i * cap, len = bytes - off < cap ? bytes - off : cap;
        sgk_host_pcopy(static_cast<char *>(dst) + off, c->stage[b], len, c->threads);
        c->dl_wait_us += (uint64_t)((t1 - t0) * 1e6);
        c->dl_copy_us += (uint64_t)((sgi_now() - t1) * 1e6);
    }
    return SG_OK;
}

// ------------------------------------------------------------ device graphs

sg_status sgk_graph_create(sgk_ctx *c, const sgk_graph_desc *d, sgk_graph **out, sg_error *err)
{
    const uint64_t xd = d->split ? d->x_dev : d->n + 1, ad = d->split ? d->a_dev : d->m;
    const uint64_t wd = !d->has_weights ? 0 : d->split ? d->w_dev : d->m;
    if (xd > d->n + 1 || ad > d->m || wd > d->m)
        return sgi_fail(err, SG_E_INVALID,
                        "device graph split past the arrays: X %llu of %llu, A %llu and W %llu of "
                        "%llu entries",
                        (unsigned long long)xd, (unsigned long long)(d->n + 1),
                        (unsigned long long)ad, (unsigned long long)wd, (unsigned long long)d->m);
    sgk_graph *g = static_cast<sgk_graph *>(calloc(1, sizeof *g));
    if (!g) return sgi_fail(err, SG_E_NOMEM, "out of memory allocating a device graph handle");
    g->ctx = c;
    g->d = *d;
    g->d.x_dev = xd;
    g->d.a_dev = ad;
    g->d.w_dev = wd;
    g->spilled = xd < d->n + 1 || ad < d->m || (d->has_weights && wd < d->m);
    sg_status st = SG_OK;
    // Whole graphs get every array (a minimal block when empty), split ones
    // only the prefixes that hold entries.
    const bool all = !d->split;
    if (xd || all)
        st = sgk_alloc(c, reinterpret_cast<void **>(&g->x), xd * sizeof(uint64_t),
                       "the offsets (X)", err);
    if (st == SG_OK && (ad || all))
        st = sgk_alloc(c, reinterpret_cast<void **>(&g->a), ad * sizeof(uint32_t),
                       "the neighbours (A)", err);
    const bool wx = wd || (all && d->has_weights);
    if (st == SG_OK && wx && !d->w24)
        st = sgk_alloc(c, reinterpret_cast<void **>(&g->w), wd * sizeof(uint32_t),
                       "the weights (W)", err);
    if (st == SG_OK && wx && d->w24)
        st = sgk_alloc(c, reinterpret_cast<void **>(&g->w16), wd * sizeof(uint16_t),
                       "the weights' low 16 bits (W16)", err);
    if (st == SG_OK && wx && d->w24)
        st = sgk_alloc(c, reinterpret_cast<void **>(&g->w8), wd, "the weights' bits 16-23 (W8)",
                       err);
    if (st != SG_OK) {
        sgk_graph_free(g);
        return st;
    }
    g->X = sgk_arr<uint64_t>::device(g->x, xd);
    g->A = sgk_arr<uint32_t>::device(g->a, ad);
    g->W = sgk_arr<uint32_t>::device(g->w, d->w24 ? 0 : wd);
    g->W16 = sgk_arr<uint16_t>::device(g->w16, d->w24 ? wd : 0);
    g->W8 = sgk_arr<uint8_t>::device(g->w8, d->w24 ? wd : 0);
    *out = g;
    return SG_OK;
}

// The device address of host array p (pinned, registered or managed);
// *managed (when given) is set for managed memory.
static sg_status host_view(const void *p, const char *what, const void **out, bool *managed,
                           sg_error *err)
{
    cudaPointerAttributes at;
    memset(&at, 0, sizeof at);
    SGK_CU(cudaPointerGetAttributes(&at, p));
    if (at.type == cudaMemoryTypeManaged) {
        *out = p;
        if (managed) *managed = true;
        return SG_OK;
    }
    if (at.type != cudaMemoryTypeHost || !at.devicePointer)
        return sgi_fail(err, SG_E_INVALID,
                        "%s is in host memory the GPU cannot read (not pinned, registered or "
                        "managed)", what);
    *out = at.devicePointer;
    return SG_OK;
}

sg_status sgk_graph_ready(const sgk_graph *g, sg_error *err)
{
    const sgk_graph_desc &d = g->d;
    const bool wh = d.w24 ? g->W16.h && g->W8.h : g->W.h != nullptr;
    if ((d.x_dev < d.n + 1 && !g->X.h) || (d.a_dev < d.m && !g->A.h) ||
        (d.has_weights && d.w_dev < d.m && !wh))
        return sgi_fail(err, SG_E_INVALID,
                        "a split device graph without its host arrays (sgk_graph_set_host)");
    return SG_OK;
}

sg_status sgk_graph_set_host(sgk_graph *g, const uint64_t *x, const uint32_t *a,
                             const uint32_t *w, sg_error *err)
{
    const void *hx = nullptr, *ha = nullptr, *hw = nullptr;
    bool ma = false, mw = false;
    if (g->d.x_dev < g->d.n + 1) SGK_TRY(host_view(x, "the offsets (X)", &hx, nullptr, err));
    if (g->d.a_dev < g->d.m) SGK_TRY(host_view(a, "the neighbours (A)", &ha, &ma, err));
    if (g->d.has_weights && g->d.w_dev < g->d.m && !g->d.w24) { // (24 bits: below)
        if (!w) return sgi_fail(err, SG_E_INVALID, "a split graph with weights needs host W");
        SGK_TRY(host_view(w, "the weights (W)", &hw, &mw, err));
    }
    g->h_managed = ma || mw;
    g->hx = x;
    if (hx) g->X.h = static_cast<const uint64_t *>(hx);
    if (ha) g->A.h = static_cast<const uint32_t *>(ha), g->ha = a;
    if (hw) g->W.h = static_cast<const uint32_t *>(hw), g->hw = w;
    return SG_OK;
}

sg_status sgk_graph_set_host_w24(sgk_graph *g, const uint16_t *w16, const uint8_t *w8,
                                 sg_error *err)
{
    if (!g->d.w24 || !g->d.has_weights)
        return sgi_fail(err, SG_E_INVALID, "24-bit host weights for a graph without them");
    if (g->d.w_dev >= g->d.m) return SG_OK;
    const void *h16 = nullptr, *h8 = nullptr;
    bool m16 = false, m8 = false;
    SGK_TRY(host_view(w16, "the weights' low 16 bits (W16)", &h16, &m16, err));
    SGK_TRY(host_view(w8, "the weights' bits 16-23 (W8)", &h8, &m8, err));
    if (m16 || m8) // (the streamed pieces copy them by DMA)
        return sgi_fail(err, SG_E_INVALID, "24-bit weights in managed memory, not pinned");
    g->W16.h = static_cast<const uint16_t *>(h16);
    g->W8.h = static_cast<const uint8_t *>(h8);
    g->hw16 = w16;
    g->hw8 = w8;
    return SG_OK;
}

sg_status sgk_graph_set_packed(sgk_graph *g, const uint8_t *e, uint64_t from, int idbits,
                               bool cpu, sg_error *err)
{
    g->he = nullptr;
    g->he_from = g->d.m;
    g->he_bits = 0;
    g->he_cpu = false;
    if (!e) return SG_OK;
    if (!g->d.has_weights || g->d.f32 || from > g->d.m || idbits < 1 || idbits > 32 ||
        (idbits < 32 && g->d.n > (1ull << idbits)))
        return sgi_fail(err, SG_E_INVALID,
                        "a packed tail from entry %llu with %d id bits for a graph of %llu "
                        "vertices and %llu entries (%s weights)",
                        (unsigned long long)from, idbits, (unsigned long long)g->d.n,
                        (unsigned long long)g->d.m,
                        !g->d.has_weights ? "no" : g->d.f32 ? "f32" : "u32");
    if (from < g->d.m) { // (copied by DMA: pinned, not managed)
        const void *view = nullptr;
        bool managed = false;
        SGK_TRY(host_view(e + 6 * from, "the packed tail", &view, &managed, err));
        if (managed)
            return sgi_fail(err, SG_E_INVALID, "the packed tail is managed memory, not pinned");
    }
    g->he = e;
    g->he_from = from;
    g->he_bits = idbits;
    g->he_cpu = cpu;
    return SG_OK;
}

uint64_t sgk_graph_kept_bytes(const sgk_graph *g) { return g && g->kept ? g->kept_bytes : 0; }

// What g keeps, detached from it (g keeps nothing after).
static void *detach_kept(const sgk_graph *g)
{
    void *k = g->kept;
    g->kept = nullptr;
    g->kept_free = nullptr;
    g->kept_bytes = 0;
    return k;
}

void sgk_graph_drop_kept(const sgk_graph *g)
{
    if (!g || !g->kept) return;
    void (*f)(void *) = g->kept_free;
    f(detach_kept(g));
}

void *sgk_graph_take_kept(const sgk_graph *g, void (*mine)(void *))
{
    if (!g->kept) return nullptr;
    if (g->kept_free == mine) return detach_kept(g);
    sgk_graph_drop_kept(g);
    return nullptr;
}

void sgk_graph_keep(const sgk_graph *g, void *state, void (*free_fn)(void *), uint64_t bytes)
{
    sgk_graph_drop_kept(g);
    g->kept = state;
    g->kept_free = free_fn;
    g->kept_bytes = bytes;
}

void sgk_graph_free(sgk_graph *g)
{
    if (!g) return;
    sgk_graph_drop_kept(g);
    sgk_free(g->ctx, g->x);
    sgk_free(g->ctx, g->a);
    sgk_free(g->ctx, g->w);
    sgk_free(g->ctx, g->w16);
    sgk_free(g->ctx, g->w8);
    free(g);
}

const sgk_graph_desc *sgk_graph_get_desc(const sgk_graph *g) { return &g->d; }

void sgk_graph_device_arrays(sgk_graph *g, void **x, void **a, void **w)
{
    if (x) *x = g->x;
    if (a) *a = g->a;
    if (w) *w = g->w;
}

void sgk_graph_device_w24(sgk_graph *g, uint16_t **w16, uint8_t **w8)
{
    *w16 = g->w16;
    *w8 = g->w8;
}
