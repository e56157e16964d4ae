// spillgraph kernels/ — what the .cu files share (CUDA C++ only; never
// included from C). The context and device-graph structs, the memory
// accountant, checked CUDA calls, and RAII device buffers so that every
// early return frees what was allocated.
//
// Error style: functions return sg_status; a failing CUDA call returns at
// once through SGK_CU (naming the call, file and line and CUDA's message);
// device buffers (sgk_dbuf) free themselves through the accountant when
// they go out of scope, so no cleanup labels are needed.
#ifndef SG_KERNELS_KINTERNAL_CUH
#define SG_KERNELS_KINTERNAL_CUH

#include <cuda_runtime.h>

#include <stddef.h>
#include <stdint.h>

#include <unordered_map>
#include <utility>
#include <vector>

#include "gpu.h"
#include "sg_common.h"

// ------------------------------------------------------------ checked calls

// Fills err with "CALL: cudaErrorName (message) at FILE:LINE", returns SG_E_DEVICE.
sg_status sgk_cuda_fail(sg_error *err, const char *call, cudaError_t e, const char *file, int line);

// Returns from the enclosing function on a CUDA error (err must be in scope).
#define SGK_CU(call)                                                                      \
    do {                                                                                  \
        const cudaError_t sgk_e_ = (call);                                                \
        if (sgk_e_ != cudaSuccess) return sgk_cuda_fail(err, #call, sgk_e_, __FILE__, __LINE__); \
    } while (0)

// After a <<<...>>> launch: checks the launch itself (configuration errors).
#define SGK_LAUNCHED(what) SGK_CU(cudaGetLastError())

// Returns from the enclosing function when an sg_status call fails.
#define SGK_TRY(expr)                                                                     \
    do {                                                                                  \
        const sg_status sgk_s_ = (expr);                                                  \
        if (sgk_s_ != SG_OK) return sgk_s_;                                               \
    } while (0)

// ------------------------------------------------------------ the context

struct sgk_ctx {
    int device;
    char name[128];
    int sm_count;
    uint64_t l2_bytes;
    uint64_t budget, in_use, peak, allocations, refused;
    std::unordered_map<void *, size_t> *sizes; // live allocations
    cudaStream_t stream;      // compute
    cudaStream_t copy;        // staged uploads (the highest priority)
    // staging
    void *stage[2];           // pinned, SGK_STAGE_BYTES each
    cudaEvent_t stage_done[2];
    bool stage_busy[2];
    int stage_next;
    cudaEvent_t copy_first, copy_last; // span of the copies since the last finish
    bool copy_started;
    uint64_t copy_bytes;
    // busy time: one (start, end) event pair per staging buffer fill
    std::vector<std::pair<cudaEvent_t, cudaEvent_t>> *busy;
    bool slot_timed[2];       // the current fill of the slot has its start event
    // sgk_download's time so far: waiting for the copy engine's pieces, and
    // the host threads' copies out of the staging buffers (microseconds)
    uint64_t dl_wait_us, dl_copy_us;
    char disabled[256];       // SPILLGRAPH_GPU_DISABLE, with commas around: ",a,b,"
    char enabled[256];        // SPILLGRAPH_GPU_ENABLE, the same way
    int threads;              // host threads for the context's host work (0: OpenMP's)
};

// Both staging buffers lent to a caller that queues copies out of them on
// a stream of its own choosing (SSSP's light index, sssp.cu: Uploads):
// sgk_stage_lend waits for their earlier copies and gives them;
// sgk_stage_return records the end of whatever was queued on `stream`, so
// that the next sgk_stage_begin or sgk_download waits for those copies.
sg_status sgk_stage_lend(sgk_ctx *c, void *bufs[2], sg_error *err);
sg_status sgk_stage_return(sgk_ctx *c, cudaStream_t stream, sg_error *err);
// The GPU's side share of a gathered host part (BFS's gathered steps,
// SSSP's gathered settle passes): while the CPU threads gather the part's
// front into chunks, a kernel on a stream of its own reads a share from the
// part's end in place (zero-copy), with at most half the resident blocks
// so that the chunks' kernels find room. A part of `min_part` vertices or
// more (SIDE_MIN, 512; a chunk's eighth, at least 32, on small graphs)
// gets a share. It starts at 30 % of the part's vertices; after each part
// of a chunk's vertices or more it becomes the share at which both sides
// would have ended together (sgi_side_balance), at their rates (vertices
// a second) summed over such parts so far: the side kernel's time by
// events, the host's by its clock. A step's own rates swing with its
// lists: moved by each step's, BFS's share wandered 24-55 % between
// searches of one graph. The share stays within 2 % and a most the user
// sets: 80 % for BFS, 35 % for SSSP, whose scattered in-place reads slow
// the threads' gather as the share grows (at 31 and 35 % the gather kept
// 7.5-10 GB/s, at 46 % it fell to 4.7 and the search lost 0.6 s), so that
// the balance runs away upwards. (docs/benchmarks.md, forty-second
// session.) The stream and events are made once (make); reset() starts a
// search.
struct sgk_side_share {
    static constexpr uint64_t SIDE_MIN = 512;
    static constexpr double FRAC0 = 0.3, FRAC_MIN = 0.02;
    double frac_max = 0.8; // BFS; SSSP's 0.35 (make)
    cudaStream_t stream = nullptr;
    cudaEvent_t t0 = nullptr, t1 = nullptr;
    uint64_t min_part = SIDE_MIN, chunk = 0; // chunk: the host's chunk vertices
    double frac = FRAC0;
    double sv = 0, st = 0, hv = 0, ht = 0; // summed vertices and seconds, side and host
    uint64_t vertices = 0;                 // the side kernels' vertices and time
    double seconds = 0;
    sgk_side_share() = default;
    sgk_side_share(const sgk_side_share &) = delete;
    sgk_side_share &operator=(const sgk_side_share &) = delete;
    ~sgk_side_share()
    {
        if (t0) (void)cudaEventDestroy(t0);
        if (t1) (void)cudaEventDestroy(t1);
        if (stream) (void)cudaStreamDestroy(stream);
    }
    sg_status make(double most, sg_error *err)
    {
        frac_max = most;
        if (!stream) SGK_CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        if (!t0) SGK_CU(cudaEventCreate(&t0));
        if (!t1) SGK_CU(cudaEventCreate(&t1));
        return SG_OK;
    }
    // A search with chunks of gv vertices.
    void reset(uint64_t gv)
    {
        chunk = gv;
        min_part = gv / 8 > 32 ? gv / 8 : 32;
        if (min_part > SIDE_MIN) min_part = SIDE_MIN;
        frac = FRAC0;
        sv = st = hv = ht = 0;
        vertices = 0;
        seconds = 0;
    }
    // The side share of a host part of hn vertices (0: none).
    uint64_t take(uint64_t hn) const { return hn >= min_part ? (uint64_t)((double)hn * frac) : 0; }
    // After a part with a side share of sn vertices (its kernel between t0
    // and t1, done) beside the host's hn in th seconds.
    sg_status adapt(uint64_t sn, uint64_t hn, double th, sg_error *err)
    {
        float ms = 0;
        SGK_CU(cudaEventElapsedTime(&ms, t0, t1));
        const double ts = ms * 1e-3;
        vertices += sn;
        seconds += ts;
        if (sn + hn < chunk || ts <= 0 || th <= 0) return SG_OK; // too small to say
        sv += (double)sn;
        st += ts;
        hv += (double)hn;
        ht += th;
        frac = sgi_side_balance(sv, st, hv, ht, FRAC_MIN, frac_max);
        return SG_OK;
    }
};

// Two device buffers that chunks gathered by the CPU threads into two
// host staging buffers are copied to, in turn (BFS's gathered steps, SSSP's
// gathered settle passes): the host refills staging buffer b only once its
// last upload has read it (host_wait); the copy stream uploads into device
// buffer b only after the kernel that read it last (read), and the
// kernel's stream waits for the upload (upload). begin() starts a step or
// pass, whose first use of each buffer waits for nothing.
struct sgk_chunk_pair {
    struct piece {
        void *dst;
        const void *src;
        size_t bytes; // 0: nothing to copy
    };
    cudaEvent_t up[2] = {nullptr, nullptr}, used[2] = {nullptr, nullptr};
    bool pending[2] = {false, false};
    sgk_chunk_pair() = default;
    sgk_chunk_pair(const sgk_chunk_pair &) = delete;
    sgk_chunk_pair &operator=(const sgk_chunk_pair &) = delete;
    ~sgk_chunk_pair()
    {
        for (cudaEvent_t e : {up[0], up[1], used[0], used[1]})
            if (e) (void)cudaEventDestroy(e);
    }
    sg_status make(sg_error *err)
    {
        for (int b = 0; b < 2; b++) {
            if (!up[b]) SGK_CU(cudaEventCreateWithFlags(&up[b], cudaEventDisableTiming));
            if (!used[b]) SGK_CU(cudaEventCreateWithFlags(&used[b], cudaEventDisableTiming));
        }
        return SG_OK;
    }
    void begin() { pending[0] = pending[1] = false; }
    // Waits until staging buffer b's last upload has read it.
    sg_status host_wait(int b, sg_error *err)
    {
        if (pending[b]) SGK_CU(cudaEventSynchronize(up[b]));
        return SG_OK;
    }
    // The chunk's pieces (staging buffer b into device buffer b) on `copy`
    // after buffer b's last reader; `st` waits for them.
    sg_status upload(int b, const piece *pp, int np, cudaStream_t copy, cudaStream_t st,
                     sg_error *err)
    {
        SGK_CU(cudaStreamWaitEvent(copy, used[b], 0));
        for (int i = 0; i < np; i++)
            if (pp[i].bytes)
                SGK_CU(cudaMemcpyAsync(pp[i].dst, pp[i].src, pp[i].bytes, cudaMemcpyHostToDevice,
                                       copy));
        SGK_CU(cudaEventRecord(up[b], copy));
        pending[b] = true;
        SGK_CU(cudaStreamWaitEvent(st, up[b], 0));
        return SG_OK;
    }
    // After the kernel that reads device buffer b, queued on `st`.
    sg_status read(int b, cudaStream_t st, sg_error *err)
    {
        SGK_CU(cudaEventRecord(used[b], st));
        return SG_OK;
    }
};

// The staging buffers lent for a while (BFS's gathered steps, SSSP's
// gathered settle passes) and given back, with the end of the copies
// queued out of them on the copy stream, however the holder ends: `c` set
// once sgk_stage_lend gave them.
struct sgk_stage_loan {
    sgk_ctx *c = nullptr;
    sgk_stage_loan() = default;
    sgk_stage_loan(const sgk_stage_loan &) = delete;
    sgk_stage_loan &operator=(const sgk_stage_loan &) = delete;
    ~sgk_stage_loan()
    {
        sg_error e;
        (void)end(&e);
    }
    // Gives the buffers back now (before something else lends them).
    sg_status end(sg_error *err)
    {
        sgk_ctx *const k = c;
        c = nullptr;
        return k ? sgk_stage_return(k, k->copy, err) : SG_OK;
    }
};

// memcpy on the host by OpenMP threads (`threads`; 0: the default count),
// a piece a thread (at least 64 KiB).
void sgk_host_pcopy(void *dst, const void *src, size_t bytes, int threads);

// One graph array as the kernels read it: entries [0, s) from the device
// prefix d, the rest from h, the whole array in device-accessible host
// memory (pinned and mapped, or managed), indexed like d. In device memory
// alone, s covers the array and h == d. Splits are vertex boundaries, so a
// list never straddles one; the select is two instructions per load.
template <class T> struct sgk_arr {
    const T *d = nullptr;
    const T *h = nullptr;
    uint64_t s = 0;
    __host__ __device__ __forceinline__ const T *base(uint64_t i) const { return i < s ? d : h; }
    __device__ __forceinline__ T operator[](uint64_t i) const { return base(i)[i]; }
    __device__ __forceinline__ T ldg(uint64_t i) const { return __ldg(base(i) + i); }
    // How many of the entries [lo, hi) are read from host memory (the
    // kernels' host_list_bytes counters).
    __host__ __device__ __forceinline__ uint64_t host_count(uint64_t lo, uint64_t hi) const
    {
        const uint64_t b = lo > s ? lo : s;
        return hi > b ? hi - b : 0;
    }
    // An array wholly in device memory.
    static sgk_arr device(const T *p, uint64_t count)
    {
        sgk_arr r;
        r.d = r.h = p;
        r.s = count;
        return r;
    }
};

struct sgk_graph {
    sgk_ctx *ctx;
    sgk_graph_desc d;
    uint64_t *x;              // device prefix: d.x_dev entries of X (n + 1 in all)
    uint32_t *a;              // d.a_dev entries of A (m in all)
    uint32_t *w;              // d.w_dev entries of W, or NULL (u32 weights or f32 bits)
    uint16_t *w16;            // d.w24: d.w_dev entries of W16 and W8 (w NULL), or NULL
    uint8_t *w8;
    sgk_arr<uint64_t> X;      // what the kernels read
    sgk_arr<uint32_t> A, W;   // (W empty where d.w24)
    sgk_arr<uint16_t> W16;    // d.w24: the weights' low 16 bits...
    sgk_arr<uint8_t> W8;      // ...and bits 16-23
    const uint32_t *ha, *hw;  // the host arrays as given (copy sources), or NULL
    const uint16_t *hw16;     // d.w24: the host W16 and W8 as given, or NULL
    const uint8_t *hw8;
    const uint64_t *hx;       // the host offsets as given (whole), or NULL
    const uint8_t *he;        // the packed tail (sgk_graph_set_packed), or NULL:
    uint64_t he_from;         // its entries [he_from, m) at he + 6 p,
    int he_bits;              // w << he_bits | nb; read by the CPU threads too:
    bool he_cpu;
    bool h_managed;           // host A or W is managed memory (else pinned / registered)
    bool spilled;             // some entries live on the host
    // What an executor keeps on the device between its calls on this graph
    // (SSSP's light index, BFS's working arrays: `kept_free` is the
    // kernel's own deleter, which identifies it), its bytes through the
    // accountant; freed with the graph or by sgk_graph_drop_kept. Mutable: the kernels take the
    // graph const, and this is a cache beside it.
    mutable void *kept;
    mutable void (*kept_free)(void *);
    mutable uint64_t kept_bytes;
};

// What g keeps between calls, for the kernel whose deleter is `mine`:
// detached and returned (g keeps nothing then); anything another kernel
// kept is freed and null returned. sgk_graph_keep hands g a new state.
void *sgk_graph_take_kept(const sgk_graph *g, void (*mine)(void *));
void sgk_graph_keep(const sgk_graph *g, void *state, void (*free_fn)(void *), uint64_t bytes);

// SG_E_INVALID when a split graph's host arrays were not given
// (sgk_graph_set_host) for the entries past its device prefixes.
sg_status sgk_graph_ready(const sgk_graph *g, sg_error *err);

// ------------------------------------------------------------ the accountant

// Allocates `bytes` of device memory for `what` ("the frontier queue"),
// within the budget: SG_E_NOMEM naming what, the bytes asked, in use and
// the budget (and --device-mem) when it does not fit; SG_E_DEVICE when
// cudaMalloc fails. bytes == 0 allocates a minimal block (never NULL).
sg_status sgk_alloc(sgk_ctx *c, void **p, size_t bytes, const char *what, sg_error *err);
// Frees and returns the bytes to the budget (accepts NULL).
void sgk_free(sgk_ctx *c, void *p);

// A result's summary on the device, where the result is, instead of a
// host pass over it after the download: *count += the entries other than
// inf, *mx = the largest of them (both zero before; BFS levels, SSSP
// distance bits).
template <class T>
__global__ void sgk_sum_finite(const T *__restrict__ v, uint64_t n, T inf,
                               unsigned long long *count, unsigned long long *mx)
{
    unsigned long long r = 0, m = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const T x = v[i];
        r += x != inf;
        m = x != inf && (unsigned long long)x > m ? (unsigned long long)x : m;
    }
    for (int o = 16; o > 0; o >>= 1) {
        r += __shfl_down_sync(0xffffffffu, r, o);
        const unsigned long long y = __shfl_down_sync(0xffffffffu, m, o);
        m = y > m ? y : m;
    }
    if ((threadIdx.x & 31) == 0) {
        if (r) atomicAdd(count, r);
        if (m) atomicMax(mx, m);
    }
}

// A device array of T that frees itself. Not copyable.
template <class T> struct sgk_dbuf {
    sgk_ctx *c = nullptr;
    T *p = nullptr;
    size_t n = 0;
    sgk_dbuf() = default;
    sgk_dbuf(const sgk_dbuf &) = delete;
    sgk_dbuf &operator=(const sgk_dbuf &) = delete;
    ~sgk_dbuf() { release(); }
    sg_status alloc(sgk_ctx *ctx, size_t count, const char *what, sg_error *err)
    {
        release();
        void *q = nullptr;
        const sg_status st = sgk_alloc(ctx, &q, count * sizeof(T), what, err);
        if (st != SG_OK) return st;
        c = ctx;
        p = static_cast<T *>(q);
        n = count;
        return SG_OK;
    }
    void release()
    {
        if (p) sgk_free(c, p);
        p = nullptr;
        n = 0;
    }
    void swap(sgk_dbuf &o)
    {
        std::swap(c, o.c);
        std::swap(p, o.p);
        std::swap(n, o.n);
    }
    T *get() const { return p; }
    operator T *() const { return p; }
    // The bytes the accountant holds for it (sgk_alloc's minimal block for
    // none asked); 0 when nothing is allocated.
    uint64_t bytes() const { return !p ? 0 : n > 0 ? n * sizeof(T) : 256; }
};

// An array of T in pinned host memory (sgk_host_alloc) that frees itself,
// for words the device writes and the host polls. Not copyable.
template <class T> struct sgk_hbuf {
    T *p = nullptr;
    sgk_hbuf() = default;
    sgk_hbuf(const sgk_hbuf &) = delete;
    sgk_hbuf &operator=(const sgk_hbuf &) = delete;
    ~sgk_hbuf() { sgk_host_free(p); }
    sg_status alloc(size_t count, sg_error *err)
    {
        sgk_host_free(p);
        p = nullptr;
        void *q = nullptr;
        const sg_status st = sgk_host_alloc(count * sizeof(T), &q, err);
        if (st == SG_OK) p = static_cast<T *>(q);
        return st;
    }
};

// Grid size for a grid-stride loop over `items` with `block` threads:
// enough blocks to fill the device (sm_count * 8), fewer for small work.
static inline unsigned sgk_grid(const sgk_ctx *c, uint64_t items, unsigned block)
{
    uint64_t b = (items + block - 1) / block;
    const uint64_t cap = (uint64_t)c->sm_count * 8;
    if (b > cap) b = cap;
    return b ? (unsigned)b : 1u;
}

// Whole microseconds since t0 (an sgi_now() reading), for the us counters.
static inline uint64_t sgk_us_since(double t0) { return (uint64_t)((sgi_now() - t0) * 1e6); }

// ------------------------------------------------------------ small device helpers

// Adds each lane's v into *d with one atomicAdd per warp (skipped when
// zero): the kernels' counters. Every lane of the warp must call it.
__device__ __forceinline__ void sgk_warp_add(unsigned long long v, unsigned long long *d)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31u) == 0 && v) atomicAdd(d, v);
}

// Relaxed 64-bit atomic min on unsigned words (returns the old value).
__device__ __forceinline__ unsigned long long sgk_atomic_min_u64(uint64_t *p, uint64_t v)
{
    return atomicMin(reinterpret_cast<unsigned long long *>(p), (unsigned long long)v);
}

// An order-preserving key of a weight (common/sg_common.h sgi_key_of_bits):
// comparing keys as unsigned integers orders the weights, f32 as floats.
__host__ __device__ __forceinline__ uint32_t sgk_weight_key(bool f32, uint32_t bits)
{
    return sgi_key_of_bits(f32, bits);
}
__host__ __device__ __forceinline__ uint32_t sgk_weight_unkey(bool f32, uint32_t key)
{
    return sgi_bits_of_key(f32, key);
}

#endif
