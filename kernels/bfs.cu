// Placeholder: BFS on the device (being written).
#include "kinternal.cuh"
uint64_t sgk_bfs_bytes(uint64_t n, uint64_t m, bool parents) { return 16 * n; }
sg_status sgk_bfs(sgk_ctx *c, const sgk_graph *g, uint32_t source, int alpha, int beta,
                  uint32_t *level, uint32_t *parent, sgk_stats *stats, sg_error *err)
{
    return sgi_fail(err, SG_E_UNSUPPORTED, "GPU bfs not written yet");
}
