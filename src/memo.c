/* What earlier searches on a store measured that the planner cannot read
 * from the store: BFS's levels and SSSP's rounds (sg_memo, spillgraph.h).
 * Their count follows the graph's diameter; on a graph without hubs it
 * decides much of a search's time (SSCA2 26: 690 levels, ~14,000 rounds;
 * R-MAT 26: 8 levels, ~100 rounds), so the plan's latency term
 * (src/plan.c) takes the count of the last search recorded here.
 *
 * One small text file per store in the cache directory, named by a hash of
 * the store's real path and its manifest's identity (device, inode, size,
 * modification time): a store written again at the same path gets a fresh
 * memo. Lines: `bfs_levels N NOTE` and `sssp_rounds N NOTE`, # comments. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "../storage/internal.h" /* sgi_replace_file, SGI_MANIFEST_NAME */

static const char *const memo_keys[2] = {"bfs_levels", "sssp_rounds"};

/* The key's slot: 0 for BFS, 1 for SSSP; -1 for the forest (no memo). */
static int memo_slot(sg_plan_algo algo)
{
    return algo == SG_PLAN_BFS ? 0 : algo == SG_PLAN_SSSP ? 1 : -1;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

bool sg_memo_enabled(void)
{
    const char *e = getenv("SPILLGRAPH_MEMO");
    return !(e && strcmp(e, "off") == 0);
}

/* sg_memo_path, leaving the store's real path in real (PATH_MAX bytes). */
static sg_status memo_path(const char *store_path, char *real, char *buf, size_t cap,
                           sg_error *err)
{
    if (!realpath(store_path, real))
        return sgi_fail_errno(err, errno, "%s: cannot resolve the store's path", store_path);
    char man[PATH_MAX + 32];
    int w = snprintf(man, sizeof man, "%s/%s", real, SGI_MANIFEST_NAME);
    if (w < 0 || (size_t)w >= sizeof man) return sgi_fail(err, SG_E_INVALID, "%s: path too long", real);
    struct stat sb;
    if (stat(man, &sb) != 0) return sgi_fail_errno(err, errno, "%s: cannot read the store's manifest", man);
    const uint64_t id[5] = {(uint64_t)sb.st_dev, (uint64_t)sb.st_ino, (uint64_t)sb.st_size,
                            (uint64_t)sb.st_mtim.tv_sec, (uint64_t)sb.st_mtim.tv_nsec};
    uint64_t h = fnv(0xcbf29ce484222325ull, real, strlen(real) + 1);
    h = fnv(h, id, sizeof id);
    const char *dir = getenv("SPILLGRAPH_MEMO_DIR");
    char name[64];
    snprintf(name, sizeof name, "graph-%016llx", (unsigned long long)h);
    if (!dir || !*dir) {
        char rel[80];
        snprintf(rel, sizeof rel, "graphs/%s", name);
        return sgi_cache_path(buf, cap, rel, "memo path", "SPILLGRAPH_MEMO_DIR", err);
    }
    w = snprintf(buf, cap, "%s/%s", dir, name);
    if (w < 0 || (size_t)w >= cap) return sgi_fail(err, SG_E_INVALID, "memo path too long");
    return SG_OK;
}

sg_status sg_memo_path(const char *store_path, char *buf, size_t cap, sg_error *err)
{
    if (!store_path || !buf || cap == 0) return sgi_fail(err, SG_E_INVALID, "sg_memo_path: NULL argument");
    char real[PATH_MAX];
    return memo_path(store_path, real, buf, cap, err);
}

/* Reads the memo file at path into *m (all zero when it does not exist).
 * SG_E_FORMAT names the file and line of a line it cannot read. */
static sg_status memo_read(const char *path, sg_memo *m, sg_error *err)
{
    sg_status st = SG_OK;
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return SG_OK;
        return sgi_fail_errno(err, errno, "%s: cannot open the memo", path);
    }
    char line[512];
    unsigned lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        SG_CHECK(strchr(line, '\n') || feof(f), SG_E_FORMAT, err, "%s:%u: line too long", path,
                 lineno);
        line[strcspn(line, "\r\n")] = '\0';
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '#' || *s == '\0') continue;
        char key[32];
        int used = 0;
        SG_CHECK(sscanf(s, "%31s%n", key, &used) == 1 && used > 0, SG_E_FORMAT, err,
                 "%s:%u: expected 'bfs_levels N ...' or 'sssp_rounds N ...'", path, lineno);
        int k = -1;
        for (int i = 0; i < 2; i++)
            if (strcmp(key, memo_keys[i]) == 0) k = i;
        SG_CHECK(k >= 0, SG_E_FORMAT, err,
                 "%s:%u: unknown key '%s' (known: bfs_levels, sssp_rounds)", path, lineno, key);
        const char *num = s + used;
        while (*num == ' ' || *num == '\t') num++;
        char *end = NULL;
        errno = 0;
        const unsigned long long v = *num >= '0' && *num <= '9' ? strtoull(num, &end, 10) : 0;
        SG_CHECK(v > 0 && errno == 0 && end && (*end == '\0' || *end == ' ' || *end == '\t'),
                 SG_E_FORMAT, err, "%s:%u: %s: expected a positive count", path, lineno, key);
        const char *note = end;
        while (*note == ' ' || *note == '\t') note++;
        m->steps[k] = v;
        snprintf(m->note[k], sizeof m->note[k], "%s", note);
    }
    SG_CHECK(!ferror(f), SG_E_IO, err, "%s: read error", path);
fail:
    fclose(f);
    return st;
}

sg_status sg_memo_load(const char *store_path, sg_memo *out, sg_error *err)
{
    if (!store_path || !out) return sgi_fail(err, SG_E_INVALID, "sg_memo_load: NULL argument");
    char path[PATH_MAX + 64];
    sg_status st = sg_memo_path(store_path, path, sizeof path, err);
    if (st != SG_OK) return st;
    sg_memo m;
    if ((st = memo_read(path, &m, err)) == SG_OK) *out = m;
    return st;
}

uint64_t sg_memo_steps(const sg_memo *m, sg_plan_algo algo)
{
    const int k = memo_slot(algo);
    return m && k >= 0 ? m->steps[k] : 0;
}

sg_status sg_memo_record(const char *store_path, sg_plan_algo algo, uint64_t steps,
                         const char *note, sg_error *err)
{
    const int k = memo_slot(algo);
    if (!store_path || k < 0 || steps == 0)
        return sgi_fail(err, SG_E_INVALID,
                        "sg_memo_record: a store path, BFS or SSSP and a positive count");
    sg_status st = SG_OK;
    char path[PATH_MAX + 64], real[PATH_MAX], text[1024 + PATH_MAX];
    if ((st = memo_path(store_path, real, path, sizeof path, err)) != SG_OK) return st;
    sg_memo m;
    /* a memo that cannot be read is replaced (it holds only counts) */
    if (memo_read(path, &m, NULL) != SG_OK) memset(&m, 0, sizeof m);
    m.steps[k] = steps;
    char when[32] = "";
    const time_t now = time(NULL);
    struct tm tmv;
    if (gmtime_r(&now, &tmv)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    snprintf(m.note[k], sizeof m.note[k], "%s%s%s", note && *note ? note : "",
             note && *note ? ", " : "", when);
    int w = snprintf(text, sizeof text,
                     "# spillgraph memo: what earlier searches on a store measured (docs/plan.md)\n"
                     "# store %s\n",
                     real);
    for (int i = 0; i < 2 && w > 0 && (size_t)w < sizeof text; i++)
        if (m.steps[i])
            w += snprintf(text + w, sizeof text - (size_t)w, "%s %llu %s\n", memo_keys[i],
                          (unsigned long long)m.steps[i], m.note[i]);
    SG_CHECK(w > 0 && (size_t)w < sizeof text, SG_E_INVALID, err, "%s: memo text too long", path);
    st = sgi_replace_file(path, text, (size_t)w, err);
fail:
    return st;
}
