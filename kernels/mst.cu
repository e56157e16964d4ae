// Placeholder: Borůvka on the device (being written).
#include "kinternal.cuh"
uint64_t sgk_mst_bytes(uint64_t n, uint64_t m) { return 16 * m + 64 * n; }
sg_status sgk_mst(sgk_ctx *c, const sgk_graph *g, uint32_t *u, uint32_t *v, uint32_t *w,
                  uint64_t *n_edges, sgk_stats *stats, sg_error *err)
{
    return sgi_fail(err, SG_E_UNSUPPORTED, "GPU forest not written yet");
}
