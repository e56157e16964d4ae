/* SSSP's settle passes on the CPU threads (kernels/cpu_settle.h). A
 * memory-bound loop over host lists, branch-free: every entry's neighbour,
 * weight and final bit are read, the push is written unconditionally and
 * the count advanced by the test's outcome. (The first version branched on
 * each entry; the final-bit test is unpredictable, and each mispredicted
 * branch threw away the loads in flight: ~30 ns an entry, a tenth of the
 * memory's rate, docs/benchmarks.md.) A list is taken in segments no longer
 * than the buffer's room, so that the unconditional writes stay inside it. */
#include "cpu_settle.h"

#include <stdbool.h>
#include <string.h>

static inline uint64_t add_f32(uint64_t d, uint32_t wbits)
{
    double dd;
    float wf;
    memcpy(&dd, &d, sizeof dd);
    memcpy(&wf, &wbits, sizeof wf);
    dd += (double)wf;
    uint64_t r;
    memcpy(&r, &dd, sizeof r);
    return r;
}

/* Entries [e, stop) of a list from distance du, pushes from pv[k] on
 * (room for stop - e of them); returns the new k. Inlined with constant
 * f32 and fin, so each variant is its own loop. */
static inline uint64_t segment(const sgk_settle_in *in, uint64_t du, uint64_t e, uint64_t stop,
                               uint32_t *pv, uint64_t *pd, uint64_t k, bool f32, bool fin)
{
    const uint32_t *a = in->a, *w = in->w, *done = in->done;
    const uint64_t T = in->T, lb = in->light_bound;
    for (; e < stop; e++) {
        const uint32_t wb = w[e], v = a[e];
        const uint64_t nd = f32 ? add_f32(du, wb) : du + wb;
        uint64_t keep = !(nd < T && (uint64_t)wb < lb); /* not a rounds' edge */
        if (fin) keep &= ~(done[v >> 5] >> (v & 31)) & 1u; /* not final */
        pv[k] = v;
        pd[k] = nd;
        k += keep;
    }
    return k;
}

enum { PF_NEAR = 4, PF_FAR = 8 }; /* prefetch distances, in positions */

uint64_t sgk_settle_push(const sgk_settle_in *in, sgk_settle_at *at, uint64_t i1, uint32_t *pv,
                         uint64_t *pd, uint64_t cap, uint64_t *read)
{
    const uint64_t *x = in->x;
    const bool f32 = in->f32 != 0, fin = in->done != NULL;
    uint64_t k = 0;
    for (; at->i < i1; at->i++, at->e = SGK_SETTLE_FRESH) {
        /* the lists a few positions on: their offsets, then their first
         * lines (a settle pass's lists are short and far apart: each one a
         * random access the hardware does not foresee) */
        if (at->i + PF_FAR < i1) __builtin_prefetch(x + in->ids[at->i + PF_FAR]);
        if (at->i + PF_NEAR < i1) {
            const uint64_t f = x[in->ids[at->i + PF_NEAR]];
            __builtin_prefetch(in->a + f);
            __builtin_prefetch(in->w + f);
        }
        const uint32_t u = in->ids[at->i];
        const uint64_t du = in->dist[at->i], end = x[(uint64_t)u + 1];
        uint64_t e = at->e == SGK_SETTLE_FRESH ? x[u] : at->e;
        while (e < end && k < cap) {
            /* each entry pushes at most once: room for the whole segment */
            const uint64_t stop = end - e < cap - k ? end : e + (cap - k);
            if (f32)
                k = fin ? segment(in, du, e, stop, pv, pd, k, true, true)
                        : segment(in, du, e, stop, pv, pd, k, true, false);
            else
                k = fin ? segment(in, du, e, stop, pv, pd, k, false, true)
                        : segment(in, du, e, stop, pv, pd, k, false, false);
            *read += stop - e;
            e = stop;
        }
        if (e < end) { /* the buffer is full: resume at e */
            at->e = e;
            return k;
        }
    }
    return k;
}
