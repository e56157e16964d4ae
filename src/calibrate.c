/* spillgraph calibrate: the planner's rates measured on this machine (the
 * CPU threads' host-memory read rate here; the GPU rates through
 * kernels/calibrate.cu when a GPU is present), and the rates file writer. */
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "sg_config.h"
#include "../storage/internal.h" /* sgi_replace_file */
#if SG_HAVE_CUDA
#include "gpu.h"
#endif

static volatile uint64_t calib_sink;

/* Best of three parallel sums over `bytes` of host memory, GB/s. */
static sg_status cpu_scan_rate(uint64_t bytes, int threads, double *gbps, sg_error *err)
{
    const size_t n = bytes / sizeof(uint64_t);
    uint64_t *buf = sgi_malloc(n * sizeof *buf);
    if (!buf) return sgi_fail(err, SG_E_NOMEM, "out of memory for a %llu-byte calibration buffer",
                              (unsigned long long)bytes);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++) buf[i] = i * 0x9e3779b97f4a7c15ull;
    double best = 1e30;
    uint64_t sink = 0;
    for (int r = 0; r < 3; r++) {
        const double t0 = sgi_now();
        uint64_t s = 0;
#pragma omp parallel for schedule(static) reduction(^ : s) num_threads(threads)
        for (size_t i = 0; i < n; i++) s ^= buf[i];
        const double t = sgi_now() - t0;
        sink ^= s;
        if (t > 0 && t < best) best = t;
    }
    sgi_free(buf);
    calib_sink = sink; /* keeps the sums */
    *gbps = (double)(n * sizeof(uint64_t)) / best / 1e9;
    return SG_OK;
}

sg_status sg_calibrate(const sg_calibrate_options *o, sg_rates *out, sg_error *err)
{
    if (!o || !out) return sgi_fail(err, SG_E_INVALID, "sg_calibrate: NULL argument");
    if (o->bytes < (16u << 20))
        return sgi_fail(err, SG_E_INVALID, "calibration buffer %llu bytes: at least 16 MiB",
                        (unsigned long long)o->bytes);
    const int threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    sg_rates r;
    sg_rates_default(&r);
    sg_status st = cpu_scan_rate(o->bytes, threads, &r.cpu_scan_gbps, err);
    if (st != SG_OK) return st;
    char host[128] = "?";
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = '\0';
    char when[32] = "";
    const time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char gpu[200] = "";
#if SG_HAVE_CUDA
    if (o->device >= 0 && o->device < sgk_device_count()) {
        sgk_calibration c;
        st = sgk_calibrate(o->device, o->bytes, threads, &c, err);
        if (st != SG_OK) return st;
        r.hbm_gbps = c.hbm_gbps;
        r.pcie_gbps = c.pcie_gbps;
        r.zc_rand_gbps = c.zc_rand_gbps;
        r.managed_rand_gbps = c.managed_rand_gbps;
        r.managed_seq_gbps = c.managed_seq_gbps;
        r.shared_gpu_gbps = c.shared_gpu_gbps;
        r.shared_cpu_gbps = c.shared_cpu_gbps;
        r.host_shared_gbps = c.shared_gpu_gbps + c.shared_cpu_gbps;
        sgk_device_info d;
        if (sgk_device_query(o->device, &d, err) == SG_OK)
            snprintf(gpu, sizeof gpu, "GPU %d (%s) measured", o->device, d.name);
    }
#endif
    snprintf(r.origin, sizeof r.origin, "calibrated %s on %s, %d threads: CPU measured, %s", when,
             host, threads, gpu[0] ? gpu : "GPU rates are the defaults (no GPU)");
    *out = r;
    return SG_OK;
}

sg_status sg_rates_save(const char *path, const sg_rates *r, sg_error *err)
{
    sg_status st = SG_OK;
    char text[1024];
    SG_CHECK(path && r, SG_E_INVALID, err, "sg_rates_save: NULL argument");
    const int w = snprintf(text, sizeof text,
                           "# spillgraph rates (spillgraph calibrate; docs/plan.md)\n"
                           "# %s\n"
                           "hbm_gbps %.6g\npcie_gbps %.6g\nzc_rand_gbps %.6g\n"
                           "managed_rand_gbps %.6g\ncpu_scan_gbps %.6g\n"
                           "managed_seq_gbps %.6g\nhost_shared_gbps %.6g\n",
                           r->origin, r->hbm_gbps, r->pcie_gbps, r->zc_rand_gbps,
                           r->managed_rand_gbps, r->cpu_scan_gbps, r->managed_seq_gbps,
                           r->host_shared_gbps);
    SG_CHECK(w > 0 && (size_t)w < sizeof text, SG_E_INVALID, err, "%s: rates text too long", path);
    st = sgi_replace_file(path, text, (size_t)w, err);
fail:
    return st;
}
