/* A parallel, stable LSD radix sort of weighted edges by (key, u, v). */
#include <omp.h>
#include <string.h>

#include "internal.h"

enum { DIGIT_BITS = 11, BUCKETS = 1 << DIGIT_BITS, MAX_THREADS = 256 };

/* Field f of a record: 0 = v, 1 = u, 2 = key (least significant first). */
static inline uint32_t field(const sgi_wedge *r, int f)
{
    return f == 0 ? r->v : f == 1 ? r->u : r->key;
}

void sgi_sort_wedges(sgi_wedge *e, sgi_wedge *tmp, uint64_t n, int threads)
{
    if (n < 2) return;
    if (threads <= 0) threads = omp_get_max_threads();
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    /* Small inputs: one thread avoids the fork and the per-thread tables. */
    if (n < ((uint64_t)1 << 16)) threads = 1;
    uint64_t (*hist)[BUCKETS] = sgi_malloc((size_t)threads * sizeof *hist);
    bool serial_hist = hist == NULL; /* out of memory: fall back to one table */
    uint64_t one[BUCKETS];
    if (serial_hist) {
        hist = (uint64_t (*)[BUCKETS])one;
        threads = 1;
    }
    sgi_wedge *src = e, *dst = tmp;
    for (int f = 0; f < 3; f++) {
        for (int shift = 0; shift < 32; shift += DIGIT_BITS) {
            uint64_t total[BUCKETS];
#pragma omp parallel num_threads(threads)
            {
                int t = omp_get_thread_num(), nt = omp_get_num_threads();
                uint64_t lo = n * (uint64_t)t / (uint64_t)nt, hi = n * (uint64_t)(t + 1) / (uint64_t)nt;
                uint64_t *h = hist[t];
                memset(h, 0, sizeof hist[0]);
                for (uint64_t i = lo; i < hi; i++) h[(field(&src[i], f) >> shift) & (BUCKETS - 1)]++;
#pragma omp barrier
#pragma omp single
                {
                    /* Exclusive offsets per (bucket, thread), in bucket-major
                     * order so the sort stays stable. */
                    uint64_t sum = 0;
                    for (int b = 0; b < BUCKETS; b++) {
                        total[b] = 0;
                        for (int k = 0; k < nt; k++) {
                            uint64_t c = hist[k][b];
                            hist[k][b] = sum;
                            sum += c;
                            total[b] += c;
                        }
                    }
                }
                /* Skip a digit that is the same in every record. */
                bool skip = false;
                for (int b = 0; b < BUCKETS; b++)
                    if (total[b] == n) skip = true;
                if (!skip)
                    for (uint64_t i = lo; i < hi; i++) {
                        uint32_t d = (field(&src[i], f) >> shift) & (BUCKETS - 1);
                        dst[h[d]++] = src[i];
                    }
            }
            bool skipped = false;
            for (int b = 0; b < BUCKETS; b++)
                if (total[b] == n) skipped = true;
            if (!skipped) {
                sgi_wedge *t = src;
                src = dst;
                dst = t;
            }
        }
    }
    if (src != e) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (uint64_t i = 0; i < n; i++) e[i] = src[i];
    }
    if (!serial_hist) sgi_free(hist);
}
