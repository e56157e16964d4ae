/* BFS's gathered steps and SSSP's gathered settle passes on the host
 * threads: see cpu_gather.h. */
#include "cpu_gather.h"

#include <omp.h>
#include <string.h>

#include "sg_common.h"

/* The lists of ids[0, cnt) (x, a: the host arrays; w: a second array of
 * the same positions, or NULL), one after another into out (and outw),
 * their offsets into off[0, k + 1) for the first k vertices whose lists
 * fit `cap` entries together (at least one: the callers keep every list
 * under cap). Returns k. By the host threads, a range of
 * ids each: its degrees (a local prefix in off), the ranges' sums, k, then
 * each thread copies its range's lists (its offsets still in cache),
 * prefetching AHEAD lists on (one thread's memcpy alone has one list in
 * flight: SSCA2 26's 128-byte lists came at 5-12 GB/s without). */
uint64_t sgk_gather_lists(const uint64_t *x, const uint32_t *a, const uint32_t *w,
                          const uint32_t *ids, uint64_t cnt, uint64_t cap, uint32_t *off,
                          uint32_t *out, uint32_t *outw, bool prefetch, int threads)
{
    enum { MAXT = 256 };
    const uint64_t AHEAD = 16; /* lists in flight a thread: each is a random read */
    uint64_t part[MAXT + 1];
    int nt = threads > 0 ? threads : omp_get_max_threads();
    if (nt > MAXT) nt = MAXT;
    if ((uint64_t)nt > cnt / 1024 + 1) nt = (int)(cnt / 1024 + 1);
    uint64_t k = cnt;
    part[0] = 0;
    off[0] = 0;
#pragma omp parallel num_threads(nt)
    {
        const uint64_t t = (uint64_t)omp_get_thread_num(), T = (uint64_t)omp_get_num_threads();
        const uint64_t b = cnt * t / T, e = cnt * (t + 1) / T;
        uint64_t sum = 0;
        for (uint64_t i = b; i < e; i++) {
            if (prefetch && i + AHEAD < e) __builtin_prefetch(x + ids[i + AHEAD], 0, 0);
            const uint32_t u = ids[i];
            sum += x[(uint64_t)u + 1] - x[u];
            off[i + 1] = (uint32_t)sum; /* local to the range */
        }
        part[t + 1] = sum;
#pragma omp barrier
#pragma omp single
        {
            for (uint64_t r = 1; r <= T; r++) part[r] += part[r - 1];
            if (part[T] > cap) { /* the range where the cap falls, then the vertex */
                uint64_t r = 0;
                while (part[r + 1] <= cap) r++;
                const uint64_t rb = cnt * r / T;
                uint64_t lo = rb, hi = cnt * (r + 1) / T; /* the last i with entries <= cap */
                while (lo < hi) {
                    const uint64_t mid = hi - (hi - lo) / 2;
                    if (part[r] + off[mid] <= cap)
                        lo = mid;
                    else
                        hi = mid - 1;
                }
                k = lo > 0 ? lo : 1;
            }
        }
        uint64_t pos = part[t];
        const uint64_t stop = e < k ? e : k;
        for (uint64_t i = b; i < stop; i++) {
            if (prefetch && i + AHEAD < stop) { /* the list AHEAD on: its first 3 lines */
                const uint64_t at = x[ids[i + AHEAD]];
                const uint32_t *q = a + at;
                __builtin_prefetch(q, 0, 0);
                __builtin_prefetch(q + 16, 0, 0);
                __builtin_prefetch(q + 32, 0, 0);
                if (w) {
                    __builtin_prefetch(w + at, 0, 0);
                    __builtin_prefetch(w + at + 16, 0, 0);
                    __builtin_prefetch(w + at + 32, 0, 0);
                }
            }
            const uint32_t u = ids[i];
            const uint64_t d = x[(uint64_t)u + 1] - x[u];
            memcpy(out + pos, a + x[u], (size_t)d * sizeof *out);
            if (w) memcpy(outw + pos, w + x[u], (size_t)d * sizeof *outw);
            pos += d;
            off[i + 1] = (uint32_t)pos;
        }
    }
    return k;
}

/* The key of entry p's weight: sgi_key_of_bits(f32, w[p]), or with w NULL
 * the 24-bit weight w16[p] | w8[p] << 16. */
static inline uint32_t weight_key(const uint32_t *w, const uint16_t *w16, const uint8_t *w8,
                                  bool f32, uint64_t p)
{
    return w ? sgi_key_of_bits(f32, w[p]) : (uint32_t)w16[p] | (uint32_t)w8[p] << 16;
}

/* The edges a thread finds go out SGK_CW_BLOCK at a time. */
#define SGK_CW_BLOCK 1024

typedef struct {
    uint32_t k[SGK_CW_BLOCK], u[SGK_CW_BLOCK], v[SGK_CW_BLOCK];
    unsigned cnt;
} cw_buf;

/* The block's edges into the slots below the top's `taken` (see
 * sgk_contract_walk); those whose slot falls below 0 are dropped. */
static void cw_flush(cw_buf *b, uint32_t *key, uint32_t *mn, uint32_t *mx, uint64_t cap,
                     uint64_t *taken)
{
    const uint64_t at = __atomic_fetch_add(taken, (uint64_t)b->cnt, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < b->cnt && at + i < cap; i++) {
        const uint64_t s = cap - 1 - (at + i);
        key[s] = b->k[i];
        mn[s] = b->u[i];
        mx[s] = b->v[i];
    }
    b->cnt = 0;
}

/* The last vertex whose list starts at or before position p (x ascending,
 * x[0] <= p < x[n]). */
static uint64_t cw_owner(const uint64_t *x, uint64_t n, uint64_t p)
{
    uint64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const uint64_t mid = hi - (hi - lo) / 2;
        if (x[mid] <= p)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

uint64_t sgk_contract_walk(const uint64_t *x, uint64_t n, const uint32_t *a, const uint32_t *w,
                           const uint16_t *w16, const uint8_t *w8, bool f32,
                           const uint32_t *comp, uint64_t p0, uint64_t p1, uint32_t *key,
                           uint32_t *mn, uint32_t *mx, uint64_t cap, uint64_t *taken,
                           int threads)
{
    const uint32_t NONE = 0xffffffffu;
    const uint64_t AHEAD = 24; /* entries: their neighbours' trees prefetched */
    if (n == 0 || p1 <= p0) return 0;
    int nt = threads > 0 ? threads : omp_get_max_threads();
    if ((uint64_t)nt > (p1 - p0) / 4096 + 1) nt = (int)((p1 - p0) / 4096 + 1);
    uint64_t found = 0;
#pragma omp parallel num_threads(nt) reduction(+ : found)
    {
        const uint64_t t = (uint64_t)omp_get_thread_num(), T = (uint64_t)omp_get_num_threads();
        const uint64_t b = p0 + (p1 - p0) * t / T, e = p0 + (p1 - p0) * (t + 1) / T;
        cw_buf local; /* (12 KiB of the thread's stack, not zeroed) */
        cw_buf *const buf = &local;
        buf->cnt = 0;
        if (b < e) {
            uint64_t v = cw_owner(x, n, b), p = b;
            while (p < e) {
                while (x[v + 1] <= p) v++; /* (empty lists) */
                const uint64_t end = x[v + 1] < e ? x[v + 1] : e;
                const uint32_t tv = comp[v];
                if (tv != NONE) {
                    for (; p < end; p++) {
                        if (p + AHEAD < e) __builtin_prefetch(comp + a[p + AHEAD], 0, 0);
                        const uint32_t nb = a[p];
                        if (nb <= v || comp[nb] == tv) continue;
                        buf->k[buf->cnt] = weight_key(w, w16, w8, f32, p);
                        buf->u[buf->cnt] = (uint32_t)v;
                        buf->v[buf->cnt] = nb;
                        found++;
                        if (++buf->cnt == SGK_CW_BLOCK) cw_flush(buf, key, mn, mx, cap, taken);
                    }
                }
                p = end;
            }
            cw_flush(buf, key, mn, mx, cap, taken);
        }
    }
    return found;
}

void sgk_defer_keys(uint32_t *key, uint64_t cnt, uint64_t base, const uint32_t *w,
                    const uint16_t *w16, const uint8_t *w8, bool f32, int threads)
{
    const uint64_t AHEAD = 16;
    if (cnt == 0) return;
    int nt = threads > 0 ? threads : omp_get_max_threads();
    if ((uint64_t)nt > cnt / 2048 + 1) nt = (int)(cnt / 2048 + 1);
#pragma omp parallel num_threads(nt)
    {
        const uint64_t t = (uint64_t)omp_get_thread_num(), T = (uint64_t)omp_get_num_threads();
        const uint64_t b = cnt * t / T, e = cnt * (t + 1) / T;
        for (uint64_t i = b; i < e; i++) {
            if (i + AHEAD < e) {
                const uint64_t q = base + key[i + AHEAD];
                if (w) {
                    __builtin_prefetch(w + q, 0, 0);
                } else {
                    __builtin_prefetch(w16 + q, 0, 0);
                    __builtin_prefetch(w8 + q, 0, 0);
                }
            }
            key[i] = weight_key(w, w16, w8, f32, base + key[i]);
        }
    }
}
