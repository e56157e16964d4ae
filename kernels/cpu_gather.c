/* BFS's gathered steps and SSSP's gathered settle passes on the host
 * threads: see cpu_gather.h. */
#include "cpu_gather.h"

#include <omp.h>
#include <string.h>

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
