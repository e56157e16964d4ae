/* The run context: resolved backend, threads, seconds per phase, counters. */
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

const char *sg_backend_name(sg_backend b)
{
    switch (b) {
    case SG_BACKEND_AUTO: return "auto";
    case SG_BACKEND_CPU: return "cpu";
    case SG_BACKEND_GPU: return "gpu";
    case SG_BACKEND_HYBRID: return "hybrid";
    }
    return "unknown";
}

bool sg_backend_parse(const char *name, sg_backend *out)
{
    static const sg_backend all[] = {SG_BACKEND_AUTO, SG_BACKEND_CPU, SG_BACKEND_GPU,
                                     SG_BACKEND_HYBRID};
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(name, sg_backend_name(all[i])) == 0) {
            *out = all[i];
            return true;
        }
    return false;
}

const char *sg_phase_name(sg_phase p)
{
    static const char *const names[SG_NPHASES] = {"load", "preprocess", "compute", "write"};
    return (unsigned)p < SG_NPHASES ? names[p] : "unknown";
}

sg_status sg_run_create(const sg_run_options *opt, sg_run **out, sg_error *err)
{
    static const sg_run_options defaults = {0};
    if (!opt) opt = &defaults;
    if (!out) return sgi_fail(err, SG_E_INVALID, "sg_run_create: out is NULL");
    if (opt->threads < 0)
        return sgi_fail(err, SG_E_INVALID, "thread count %d is negative", opt->threads);
    if (opt->device < 0)
        return sgi_fail(err, SG_E_INVALID, "GPU index %d is negative", opt->device);
    sg_backend b = opt->backend;
    const int gpus = sg_gpu_count();
    switch (b) {
    case SG_BACKEND_AUTO: b = gpus > opt->device ? SG_BACKEND_GPU : SG_BACKEND_CPU; break;
    case SG_BACKEND_CPU: break;
    case SG_BACKEND_GPU:
    case SG_BACKEND_HYBRID:
        if (!sg_gpu_built())
            return sgi_fail(err, SG_E_UNSUPPORTED,
                            "the %s backend needs a build with CUDA (this one has none); use "
                            "--backend cpu or auto", sg_backend_name(b));
        if (gpus <= opt->device)
            return sgi_fail(err, SG_E_UNSUPPORTED,
                            "the %s backend needs a GPU: %s (see spillgraph devices); use "
                            "--backend cpu or auto", sg_backend_name(b),
                            gpus == 0 ? "none found" : "no GPU with that index");
        break;
    default: return sgi_fail(err, SG_E_INVALID, "unknown backend %d", (int)b);
    }
    sg_run *r = sgi_calloc(1, sizeof *r);
    if (!r) return sgi_fail(err, SG_E_NOMEM, "out of memory allocating the run context");
    r->backend = b;
    r->requested = opt->backend;
    r->device = opt->device;
    r->device_mem = opt->device_mem;
    r->force_split = opt->force_split;
    for (int k = 0; k < 3; k++) r->split[k] = opt->split[k];
    r->plan_steps[0] = opt->plan_steps[0];
    r->plan_steps[1] = opt->plan_steps[1];
    r->threads = opt->threads > 0 ? opt->threads : omp_get_max_threads();
    r->progress = opt->progress;
    r->progress_ctx = opt->progress_ctx;
    *out = r;
    return SG_OK;
}

void sgi_run_drop_kept(sg_run *r)
{
    if (!r || !r->cpu_kept) return;
    void *k = r->cpu_kept;
    r->cpu_kept = NULL;
    r->cpu_kept_free(k);
    r->cpu_kept_free = NULL;
}

void sg_run_free(sg_run *r)
{
    if (!r) return;
    sgi_run_drop_kept(r);
    sgi_run_drop_prepared(r);
    sgi_gpu_release(r);
    sgi_free(r);
}
sg_backend sg_run_backend(const sg_run *r) { return r->backend; }
int sg_run_threads(const sg_run *r) { return r->threads; }

double sg_run_seconds(const sg_run *r, sg_phase p)
{
    return (unsigned)p < SG_NPHASES ? r->seconds[p] : 0.0;
}

void sg_run_add_seconds(sg_run *r, sg_phase p, double seconds)
{
    if (r && (unsigned)p < SG_NPHASES) r->seconds[p] += seconds;
}

static int counter_slot(sg_run *r, const char *name)
{
    for (unsigned i = 0; i < r->n_counters; i++)
        if (strcmp(r->counter_name[i], name) == 0) return (int)i;
    if (r->n_counters == SG_RUN_MAX_COUNTERS) { /* a programming error: said once */
        static bool told = false;
        if (!told)
            fprintf(stderr, "spillgraph: internal: counter '%s' dropped: more than %d counters "
                            "(raise SG_RUN_MAX_COUNTERS, src/spillgraph.h)\n", name,
                    SG_RUN_MAX_COUNTERS);
        told = true;
        return -1;
    }
    r->counter_name[r->n_counters] = name;
    r->counter_value[r->n_counters] = 0;
    return (int)r->n_counters++;
}

void sg_run_name_vertices(sg_run *r, const uint64_t *orig, uint64_t n)
{
    if (!r) return;
    r->orig = orig;
    r->orig_n = orig ? n : 0;
}

void sg_run_count(sg_run *r, const char *name, uint64_t value)
{
    int i = r && name ? counter_slot(r, name) : -1;
    if (i >= 0) r->counter_value[i] += value;
}

void sg_run_set(sg_run *r, const char *name, uint64_t value)
{
    int i = r && name ? counter_slot(r, name) : -1;
    if (i >= 0) r->counter_value[i] = value;
}

unsigned sg_run_counter_count(const sg_run *r) { return r->n_counters; }

const char *sg_run_counter(const sg_run *r, unsigned i, uint64_t *value)
{
    if (i >= r->n_counters) return NULL;
    if (value) *value = r->counter_value[i];
    return r->counter_name[i];
}

void sgi_run_progress(const sg_run *r, const char *phase, double fraction)
{
    if (r && r->progress) r->progress(r->progress_ctx, phase, fraction);
}

bool sg_run_plan(const sg_run *r, sg_plan *out, double *measured_s)
{
    if (!r || !r->has_plan) return false;
    if (out) *out = r->plan;
    if (measured_s) *measured_s = r->hybrid_seconds;
    return true;
}

