// Placeholder: SSSP on the device (being written).
#include "kinternal.cuh"
uint64_t sgk_sssp_bytes(uint64_t n, uint64_t m, sgk_sssp_method method) { return 16 * n + 6 * m; }
sg_status sgk_sssp(sgk_ctx *c, const sgk_graph *g, uint32_t source, sgk_sssp_method method,
                   double delta, uint64_t *dist, sgk_stats *stats, sg_error *err)
{
    return sgi_fail(err, SG_E_UNSUPPORTED, "GPU sssp not written yet");
}
