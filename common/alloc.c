/* Counted allocation with failure injection (SQLite test_malloc style). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <string.h>

#include "sg_common.h"

static atomic_long live_allocs;
static atomic_long calls;
static atomic_long fail_at = -1; /* absolute call number that fails */

void sgi_alloc_fail_after(long n)
{
    atomic_store(&fail_at, n < 0 ? -1 : atomic_load(&calls) + n);
}

long sgi_alloc_live(void) { return atomic_load(&live_allocs); }
long sgi_alloc_count(void) { return atomic_load(&calls); }

static bool should_fail(void)
{
    long c = atomic_fetch_add(&calls, 1);
    return c == atomic_load(&fail_at);
}

static void *counted(void *p)
{
    if (p) atomic_fetch_add(&live_allocs, 1);
    return p;
}

void *sgi_malloc(size_t n)
{
    if (should_fail()) return NULL;
    return counted(malloc(n ? n : 1));
}

void *sgi_calloc(size_t count, size_t size)
{
    if (should_fail()) return NULL;
    return counted(calloc(count ? count : 1, size ? size : 1));
}

void *sgi_realloc(void *p, size_t n)
{
    if (!p) return sgi_malloc(n);
    if (should_fail()) return NULL;
    return realloc(p, n ? n : 1);
}

void *sgi_aligned_alloc(size_t align, size_t n)
{
    if (should_fail()) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align, n ? n : 1) != 0) return NULL;
    return counted(p);
}

void *sgi_huge_alloc(size_t n)
{
    const size_t huge = (size_t)2 << 20;
    if (n < huge) return sgi_aligned_alloc(64, n);
    size_t rounded = (n + huge - 1) & ~(huge - 1);
    void *p = sgi_aligned_alloc(huge, rounded);
#ifdef MADV_HUGEPAGE
    /* Advice only: without THP support the call fails and nothing changes. */
    if (p) (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

void sgi_free(void *p)
{
    if (!p) return;
    atomic_fetch_sub(&live_allocs, 1);
    free(p);
}

char *sgi_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = sgi_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

uint64_t sgi_available_memory(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kib;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
                fclose(f);
                return (uint64_t)kib * 1024;
            }
        }
        fclose(f);
    }
    long pages = sysconf(_SC_AVPHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    if (pages < 0 || page < 0) return UINT64_MAX; /* unknown: do not refuse */
    return (uint64_t)pages * (uint64_t)page;
}
