/* spillgraph — internals of the bottom layer (common/): error helpers,
 * counted allocation, the clock. Every folder may include this; it includes
 * nothing of the project but sg_status.h. Not installed. */
#ifndef SG_COMMON_H
#define SG_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ errors
 * A function declares `sg_status st = SG_OK;`, uses SG_TRY/SG_CHECK, and ends
 * with a `fail:` label that frees what it owns and returns st. */
sg_status sgi_fail(sg_error *err, sg_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* errno (positive) to status: ENOSPC/EDQUOT -> SG_E_NOSPACE, ENOENT ->
 * SG_E_NOTFOUND, ENOMEM -> SG_E_NOMEM, EEXIST -> SG_E_EXISTS, else SG_E_IO;
 * the message gets ": strerror" appended. */
sg_status sgi_fail_errno(sg_error *err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
sg_status sgi_errno_status(int errnum);

#define SG_TRY(expr)                                                                   \
    do {                                                                               \
        sg_status sg_try_s_ = (expr);                                                  \
        if (sg_try_s_ != SG_OK) { st = sg_try_s_; goto fail; }                        \
    } while (0)
#define SG_CHECK(cond, code, err, ...)                                                 \
    do {                                                                               \
        if (!(cond)) { st = sgi_fail((err), (code), __VA_ARGS__); goto fail; }        \
    } while (0)
#define SG_ALLOC(ptr, expr, err, what)                                                 \
    do {                                                                               \
        if (((ptr) = (expr)) == NULL) {                                                \
            st = sgi_fail((err), SG_E_NOMEM, "out of memory allocating %s", (what));  \
            goto fail;                                                                 \
        }                                                                              \
    } while (0)

/* ------------------------------------------------------------ allocation
 * Every library allocation goes through these, so tests can make the n-th
 * one fail and count what is still live at the end. */
void *sgi_malloc(size_t n);
void *sgi_calloc(size_t count, size_t size);
void *sgi_realloc(void *p, size_t n);
void *sgi_aligned_alloc(size_t align, size_t n); /* free with sgi_free */
void sgi_free(void *p);
/* A large array (counted like sgi_malloc, freed with sgi_free): 2 MiB
 * aligned and advised for transparent huge pages, which cuts TLB misses in
 * random access over hundreds of MiB. Contents uninitialised. */
void *sgi_huge_alloc(size_t n);
/* Bytes of memory available to a new allocation: MemAvailable from
 * /proc/meminfo (page cache counts as available), else free pages;
 * UINT64_MAX when neither can be read. */
uint64_t sgi_available_memory(void);
char *sgi_strdup(const char *s);
/* Test hooks: the allocation `n` calls from now fails (0 = the next one);
 * n < 0 disables. Failing persists for that one call only. */
void sgi_alloc_fail_after(long n);
long sgi_alloc_live(void);   /* allocations not yet freed */
long sgi_alloc_count(void);  /* allocation calls so far */

/* ------------------------------------------------------------ weight keys
 * An order-preserving key of 32-bit weight bits: comparing keys as unsigned
 * integers orders the weights (f32: as floats, -0 before +0; NaN never
 * occurs; u32: the bits themselves). One definition for the CPU engine
 * (src/internal.h sgi_weight_key), the GPU kernels (kernels/kinternal.cuh
 * sgk_weight_key) and the CPU share's top-K (kernels/cpu_topk.c), so the
 * forest's tie rule is one rule everywhere. */
#ifdef __CUDACC__
#define SGI_HOST_DEVICE __host__ __device__
#else
#define SGI_HOST_DEVICE
#endif
static inline SGI_HOST_DEVICE uint32_t sgi_key_of_bits(bool f32, uint32_t bits)
{
    if (!f32) return bits;
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}
/* The inverse of sgi_key_of_bits. */
static inline SGI_HOST_DEVICE uint32_t sgi_bits_of_key(bool f32, uint32_t key)
{
    if (!f32) return key;
    return (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
}

/* ------------------------------------------------------------ time */
double sgi_now(void); /* monotonic seconds */

/* ------------------------------------------------------------ device memory */
/* The device memory a default budget leaves free: max(256 MiB, 3% of the
 * device's total) (kernels' default budget, the planner's managed cap). */
static inline uint64_t sgi_device_margin(uint64_t total_bytes)
{
    const uint64_t pct = total_bytes / 100 * 3, floor_b = (uint64_t)256 << 20;
    return pct > floor_b ? pct : floor_b;
}

/* The most rounds a right Borůvka run on n vertices takes: bits(n) + 2.
 * Each round merges every tree with a leaving edge into another (the
 * minima are exact), so those trees at least halve: at most bits(n) rounds
 * merge, and one more may drop the last lists (one spare). Every forest
 * test checks its runs against it (tests/testutil.c tu_expect_rounds). */
static inline uint64_t sgi_boruvka_rounds_max(uint64_t n)
{
    unsigned bits = 0;
    while (bits < 64 && (n >> bits) != 0) bits++;
    return (uint64_t)bits + 2;
}

/* The GPU forest's rounds (kernels/mst.cu) fail past twice that plus 4
 * rather than run without end where the minima do not shrink the trees (a
 * corrupted copy of the graph, a wrong kernel). */
static inline uint64_t sgi_boruvka_round_limit(uint64_t n)
{
    return 2 * sgi_boruvka_rounds_max(n) + 4;
}

/* A graph without hubs: its largest list under 16 times the mean (m / n).
 * SSSP doubles its automatic bucket width on such graphs (kernels/sssp.cu)
 * and the planner keeps room for the wider light index (src/plan.c). */
static inline bool sgi_hub_free(uint64_t n, uint64_t m, uint64_t max_degree)
{
    return n > 0 && (double)max_degree < 16.0 * (double)m / (double)n;
}

/* BFS over lists in pinned host memory (kernels/bfs.cu, "bfs-gather"): a
 * large top-down frontier's host lists are gathered by the CPU threads into
 * chunks of at most sgi_bfs_gather_vertices(n) vertices and
 * sgi_bfs_gather_entries(m) entries, copied by DMA into one of two device
 * buffers of sgi_bfs_gather_bytes(n, m) together (the planner keeps room
 * for them: src/plan.c). Small graphs get small chunks, so that their
 * searches take several. */
static inline uint64_t sgi_bfs_gather_vertices(uint64_t n)
{
    const uint64_t v = n / 64 > 256 ? n / 64 : 256;
    return v < ((uint64_t)1 << 15) ? v : (uint64_t)1 << 15;
}
static inline uint64_t sgi_bfs_gather_entries(uint64_t m)
{
    const uint64_t e = m / 64 > 512 ? m / 64 : 512;
    return e < ((uint64_t)1 << 20) ? e : (uint64_t)1 << 20;
}
static inline uint64_t sgi_bfs_gather_bytes(uint64_t n, uint64_t m)
{
    return 2 * (4 * (sgi_bfs_gather_vertices(n) + 1) + 4 * sgi_bfs_gather_entries(m));
}
/* The first vertex v in [0, n] whose list starts at or past entry e
 * (x[0..n]: ascending offsets), x[v] >= e; n where none does: where a list
 * prefix of e entries ends in vertices (the hybrid runs' host lists). */
static inline uint64_t sgi_first_list_from(const uint64_t *x, uint64_t n, uint64_t e)
{
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (x[mid] < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The GPU's side share of a gathered host part (kernels/kinternal.cuh,
 * sgk_side_share): the share of the part's vertices at which the side
 * kernel, at sv vertices in st seconds so far, and the host's gather, at hv
 * in ht, would end together (each side's share inversely as its time per
 * vertex), within [lo, hi]; lo where neither rate is known. */
static inline double sgi_side_balance(double sv, double st, double hv, double ht, double lo,
                                      double hi)
{
    const double rs = st > 0 ? sv / st : 0, rh = ht > 0 ? hv / ht : 0;
    if (!(rs + rh > 0)) return lo;
    const double f = rs / (rs + rh);
    return f < lo ? lo : f > hi ? hi : f;
}

/* SSSP's gathered settle passes over pinned host lists (kernels/sssp.cu,
 * "settle-gather"): chunks of BFS's vertices and of its entries or the
 * longest list, neighbours and weights, in two device buffers of
 * sgi_sssp_gather_bytes together (16.8 MB from scale 21 up on graphs
 * without long lists). */
static inline uint64_t sgi_sssp_gather_entries(uint64_t m, uint64_t max_degree)
{
    const uint64_t e = sgi_bfs_gather_entries(m);
    return e < max_degree ? max_degree : e;
}
static inline uint64_t sgi_sssp_gather_bytes(uint64_t n, uint64_t m, uint64_t max_degree)
{
    return 2 * 4 * (sgi_bfs_gather_vertices(n) + 1 + 2 * sgi_sssp_gather_entries(m, max_degree));
}

#ifdef __cplusplus
}
#endif
#endif
