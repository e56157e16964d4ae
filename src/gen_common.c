/* Helpers shared by the generators (R-MAT, SSCA2, uniform, grid): the label
 * permutation and the open / finish frame around the store writer. */
#include <assert.h>
#include <string.h>

#include "internal.h"

#define GOLDEN 0x9E3779B97F4A7C15ull

void sgi_perm_init(sgi_perm *p, unsigned bits, uint64_t seed)
{
    assert(bits >= 1 && bits <= 32);
    memset(p, 0, sizeof *p);
    p->mask = (1ull << bits) - 1;
    p->shift = (bits + 1) / 2;
    uint64_t s = seed ^ 0x5851F42D4C957F2Dull;
    for (int r = 0; r < 4; r++) {
        p->mul[r] = sgi_mix64(s += GOLDEN) | 1;
        p->add[r] = sgi_mix64(s += GOLDEN);
    }
}

sg_status sgi_gen_open(const char *path, uint64_t n, const sg_write_options *store, int threads,
                       const char *creator, sg_progress_fn progress, void *progress_ctx,
                       sg_store_writer **wr, sg_error *err)
{
    sg_write_options wo = *store;
    wo.directed = false;
    wo.weight_type = SG_WEIGHT_U32;
    if (wo.threads == 0) wo.threads = threads;
    if (!wo.progress) {
        wo.progress = progress;
        wo.progress_ctx = progress_ctx;
    }
    if (!wo.creator) wo.creator = creator;
    return sg_store_writer_open(path, n, &wo, wr, err);
}

sg_status sgi_gen_finish(sg_store_writer *wr, sgi_csr *g, int threads, double *seconds,
                         sg_error *err)
{
    const double t0 = sgi_now();
    sg_status st = sgi_csr_append(g, wr, threads, err);
    sgi_csr_free(g);
    if (st != SG_OK) {
        sg_store_writer_abort(wr);
        return st;
    }
    st = sg_store_writer_finish(wr, err); /* frees the writer in any case */
    *seconds = sgi_now() - t0;
    return st;
}
