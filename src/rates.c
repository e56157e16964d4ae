/* Machine rates for the placement planner: defaults (the GPU host's
 * measured limits) and a rates file of `key value` lines. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

typedef struct rate_key {
    const char *key;
    size_t off;
} rate_key;

static const rate_key keys[] = {
    {"hbm_gbps", offsetof(sg_rates, hbm_gbps)},
    {"pcie_gbps", offsetof(sg_rates, pcie_gbps)},
    {"zc_rand_gbps", offsetof(sg_rates, zc_rand_gbps)},
    {"managed_rand_gbps", offsetof(sg_rates, managed_rand_gbps)},
    {"cpu_scan_gbps", offsetof(sg_rates, cpu_scan_gbps)},
    {"managed_seq_gbps", offsetof(sg_rates, managed_seq_gbps)},
    {"host_shared_gbps", offsetof(sg_rates, host_shared_gbps)},
};
#define NKEYS (sizeof keys / sizeof keys[0])

void sg_rates_default(sg_rates *r)
{
    memset(r, 0, sizeof *r);
    /* The H100 host (docs/plan.md, measured 2026-11): HBM 3.1 TB/s
     * sequential; pinned copies 54 GB/s; random 128-byte reads of pinned
     * memory 5.6 GB/s, of hinted managed memory 47.5 GB/s; 16 OpenMP
     * threads reading host memory 88 GB/s; streamed GPU reads of managed
     * memory 51 GB/s alone, and beside the 16 threads' scan the two sides
     * together 124 GB/s (GPU 48 + CPU 76). */
    r->hbm_gbps = 3100.0;
    r->pcie_gbps = 54.0;
    r->zc_rand_gbps = 5.6;
    r->managed_rand_gbps = 47.5;
    r->cpu_scan_gbps = 88.0;
    r->managed_seq_gbps = 51.0;
    r->host_shared_gbps = 124.0;
    snprintf(r->origin, sizeof r->origin, "defaults (the H100 host's measured limits)");
}

sg_status sg_rates_load(const char *path, sg_rates *r, sg_error *err)
{
    sg_status st = SG_OK;
    FILE *f = NULL;
    char line[512];
    unsigned lineno = 0;
    sg_rates t;
    SG_CHECK(path && r, SG_E_INVALID, err, "sg_rates_load: NULL argument");
    sg_rates_default(&t);
    f = fopen(path, "r");
    if (!f) return sgi_fail_errno(err, errno, "%s: cannot open the rates file", path);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        SG_CHECK(strchr(line, '\n') || feof(f), SG_E_FORMAT, err, "%s:%u: line too long", path,
                 lineno);
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '#' || *s == '\n' || *s == '\0') continue;
        char key[64];
        int used = 0;
        SG_CHECK(sscanf(s, "%63s %n", key, &used) == 1 && used > 0, SG_E_FORMAT, err,
                 "%s:%u: expected 'key value'", path, lineno);
        const rate_key *k = NULL;
        for (size_t i = 0; i < NKEYS; i++)
            if (strcmp(keys[i].key, key) == 0) k = &keys[i];
        SG_CHECK(k, SG_E_FORMAT, err,
                 "%s:%u: unknown key '%s' (known: hbm_gbps, pcie_gbps, zc_rand_gbps, "
                 "managed_rand_gbps, cpu_scan_gbps, managed_seq_gbps, host_shared_gbps)",
                 path, lineno, key);
        char *end = NULL;
        errno = 0;
        const double v = strtod(s + used, &end);
        while (end && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) end++;
        SG_CHECK(errno == 0 && end != s + used && *end == '\0' && v > 0.0 && isfinite(v),
                 SG_E_FORMAT, err, "%s:%u: %s: expected a positive number", path, lineno, key);
        *(double *)((char *)&t + k->off) = v;
    }
    SG_CHECK(!ferror(f), SG_E_IO, err, "%s: read error", path);
    snprintf(t.origin, sizeof t.origin, "%s", path);
    *r = t;
fail:
    if (f) fclose(f);
    return st;
}

sg_status sgi_cache_path(char *buf, size_t cap, const char *name, const char *what,
                         const char *override, sg_error *err)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int w;
    if (xdg && *xdg)
        w = snprintf(buf, cap, "%s/spillgraph/%s", xdg, name);
    else if (home && *home)
        w = snprintf(buf, cap, "%s/.cache/spillgraph/%s", home, name);
    else
        return sgi_fail(err, SG_E_NOTFOUND, "no %s: set %s, XDG_CACHE_HOME or HOME", what,
                        override);
    if (w < 0 || (size_t)w >= cap) return sgi_fail(err, SG_E_INVALID, "%s too long", what);
    return SG_OK;
}

sg_status sg_rates_cache_path(char *buf, size_t cap, sg_error *err)
{
    const char *env = getenv("SPILLGRAPH_RATES");
    if (env && *env) {
        const int w = snprintf(buf, cap, "%s", env);
        if (w < 0 || (size_t)w >= cap)
            return sgi_fail(err, SG_E_INVALID, "rates cache path too long");
        return SG_OK;
    }
    char host[128] = "localhost", name[160];
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    snprintf(name, sizeof name, "rates-%s", host);
    return sgi_cache_path(buf, cap, name, "rates cache path", "SPILLGRAPH_RATES", err);
}
