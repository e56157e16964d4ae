/* The forest's CPU share, host C (kernels/cpu_topk.c): the K lightest list
 * entries of one vertex, the inner loop of the hybrid forest's first round
 * on the CPU threads (kernels/mst.cu, cpu_first_fill). Plain C so that it
 * builds with the host compiler's vector instructions and is tested without
 * a GPU (tests/test_topk.c). */
#ifndef SGK_CPU_TOPK_H
#define SGK_CPU_TOPK_H

#include <stdbool.h>
#include <stdint.h>

#include "sg_common.h" /* SGI_HOST_DEVICE */

#ifdef __cplusplus
extern "C" {
#endif

/* Lists longer than SGK_TOPK_BLOCKS_PAST are taken past their first
 * SGK_TOPK_HEAD entries in blocks of SGK_TOPK_BLOCK whose weights alone
 * decide which entries' A is read (`filter`). */
#define SGK_TOPK_HEAD 64
#define SGK_TOPK_BLOCKS_PAST 128
#define SGK_TOPK_BLOCK 16
/* sgk_topk_simd takes lists of 1 to SGK_TOPK_SHORT entries with sorting
 * networks, longer ones (or their heads) as rows of keys. */
#define SGK_TOPK_SHORT 16

/* The K (1 to 4) smallest keys (weight key << 32 | neighbour; the weight key
 * is the u32 weight, or for f32 weights the order-preserving map of their
 * bits) among the entries a[0..len), w[0..len) of vertex v's list other than
 * self-loops (a[i] == v), as a multiset, ascending into out[0..K), UINT64_MAX
 * for slots left empty. With `filter` and len > SGK_TOPK_BLOCKS_PAST, past
 * the first SGK_TOPK_HEAD entries the list is taken in blocks of
 * SGK_TOPK_BLOCK (the last may be shorter): an entry whose weight key is
 * above the K-th kept key's at the block's start is passed over without
 * reading its a[]. Returns the entries that are not self-loops, an entry
 * passed over counted whatever its a[] (so with the filter an upper bound).
 * Every implementation returns the same out[] and count for the same
 * arguments. Time O(len K). */
typedef uint64_t (*sgk_topk_fn)(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v,
                                bool f32, int K, bool filter, uint64_t *out);

/* Branch-free insertion of each entry through the K slots (~550 M entries
 * per second per thread for K = 2 on short random lists). */
uint64_t sgk_topk_scalar(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v,
                         bool f32, int K, bool filter, uint64_t *out);

/* AVX-512F where the CPU has it: lists of 1 to SGK_TOPK_SHORT entries by
 * sorting networks, longer ones (or their heads) as rows of keys sorted
 * column by column so that each vector lane keeps its four smallest, the
 * lanes merged at the end; else (and for an empty list) sgk_topk_scalar. */
uint64_t sgk_topk_simd(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v, bool f32,
                       int K, bool filter, uint64_t *out);

/* sgk_topk_simd under another address: sgk_topk_lists and
 * sgk_topk_packed given it take every list alone, where given
 * sgk_topk_simd they take two neighbouring lists of SGK_TOPK_SHORT + 1 to
 * SGK_TOPK_HEAD entries together (the hybrid forest's disable name
 * "topk-pairs"; the same slots and counts either way). */
uint64_t sgk_topk_simd_single(const uint32_t *a, const uint32_t *w, uint64_t len, uint32_t v,
                              bool f32, int K, bool filter, uint64_t *out);

/* Whether sgk_topk_simd runs vector code on this CPU (AVX-512F and BW). */
bool sgk_topk_simd_available(void);

/* What sgk_topk_lists adds up: the lists with entries, those taken with the
 * filter's blocks, their entries, and topk's counts. */
typedef struct sgk_topk_tally {
    uint64_t lists, longs, entries, leaving;
} sgk_topk_tally;

/* How far ahead sgk_topk_lists prefetches, in entries (4 KiB of each array),
 * and the prefetch's locality hint (3: into L1, 2: L2, 1: L3, 0: non-
 * temporal). Overridable at build time for the benches
 * (tools/bench/topk_store.c) only. */
#ifndef SGK_TOPK_AHEAD
#define SGK_TOPK_AHEAD 1024
#endif
#ifndef SGK_TOPK_LOCALITY
#define SGK_TOPK_LOCALITY 3
#endif
/* How far ahead the vector code's filter blocks (a long list's entries
 * past its head) prefetch the weights' lines inside a list of more than
 * 2 SGK_TOPK_AHEAD entries, in entries (0: not at all, the hardware's
 * prefetch alone past the SGK_TOPK_AHEAD entries that sgk_topk_lists
 * prefetches from each list's start). Lists of 100000 entries from memory
 * took 0.15 ns an entry so, 0.43 without, on one thread of the development
 * machine; on the H200 host's 16 threads R-MAT 26's forest's first round
 * at 6 GiB took 153-156 ms against 153-162 (docs/benchmarks.md,
 * forty-seventh session). Not for 24-bit weights, which lost.
 * Overridable at build time for the benches only. */
#ifndef SGK_TOPK_INLIST
#define SGK_TOPK_INLIST 512
#endif

/* topk over every list v in [v0, v1) (x: the offsets; list v is a[x[v] ..
 * x[v + 1]) and w's same entries) into out[(v - v0) K ..], adding to *t.
 * Given sgk_topk_simd on a CPU with AVX-512F, two neighbouring lists of
 * SGK_TOPK_SHORT + 1 to SGK_TOPK_HEAD entries are taken together: their
 * lanes' last two merges made in one set of vectors (one thread in
 * cache, lists of 24 to 64 entries 27-32 % faster on the development
 * machine, ~20-30 % on the H100 host's Xeon; 16 threads on SSCA2 26's
 * lists 7.5-8.3 to 9.9-10.3 G entries/s, docs/benchmarks.md, thirty-fifth
 * session).
 * With `prefetch`, the lines of A and W up to SGK_TOPK_AHEAD entries ahead
 * are prefetched as two streams. One thread streams host memory at a few
 * GB/s on its demand misses and the hardware's prefetch alone (the forest's
 * CPU share, kernels/mst.cu; docs/benchmarks.md has the rates); the
 * software prefetch keeps more lines in flight. (Prefetching A only where
 * topk reads it whole lost on the development machine: 1.42 against 1.03
 * ns an entry on R-MAT 22.) Time O((v1 - v0) + entries K). */
void sgk_topk_lists(const uint64_t *x, const uint32_t *a, const uint32_t *w, uint64_t v0,
                    uint64_t v1, sgk_topk_fn topk, bool f32, int K, bool filter, bool prefetch,
                    uint64_t *out, sgk_topk_tally *t);

/* sgk_topk_lists packed: only the lists with entries, in order, each as a
 * record of K slots (rec[r K ..]) and its vertex (idx[r]); the others'
 * slots are all UINT64_MAX, as the device's cache starts. rec holds room
 * for (v1 - v0) K slots and idx for v1 - v0 vertices (v < 2^32); nothing
 * past the records returned is written. Returns the records. (At R-MAT 26
 * about half the lists the CPU threads take are empty: their slots were
 * half of what the threads sent to the device.) */
uint64_t sgk_topk_packed(const uint64_t *x, const uint32_t *a, const uint32_t *w, uint64_t v0,
                         uint64_t v1, sgk_topk_fn topk, bool f32, int K, bool filter,
                         bool prefetch, uint64_t *rec, uint32_t *idx, sgk_topk_tally *t);

/* sgk_topk_lists and sgk_topk_packed over 24-bit weights (u32 weights
 * below 2^24 as w16, their low 16 bits, and w8, bits 16-23: the hybrid
 * forest's narrow graphs, sg_graph_options.narrow_weights): the same slots,
 * counts and records. topk names the code (sgk_topk_scalar, or the vector
 * code with pairs, sgk_topk_simd, or without, sgk_topk_simd_single); the
 * vector code reads 16 weights with a 16-bit and an 8-bit load widened in
 * the vector, where W takes one 32-bit load. */
void sgk_topk24_lists(const uint64_t *x, const uint32_t *a, const uint16_t *w16, const uint8_t *w8,
                      uint64_t v0, uint64_t v1, sgk_topk_fn topk, int K, bool filter,
                      bool prefetch, uint64_t *out, sgk_topk_tally *t);
uint64_t sgk_topk24_packed(const uint64_t *x, const uint32_t *a, const uint16_t *w16,
                           const uint8_t *w8, uint64_t v0, uint64_t v1, sgk_topk_fn topk, int K,
                           bool filter, bool prefetch, uint64_t *rec, uint32_t *idx,
                           sgk_topk_tally *t);

/* 48-bit list entries, a step towards the packed tail (docs/plan.md): a
 * list's entry p lies at e + 6 p, six bytes little-endian holding
 * w << idbits | nb, for a neighbour nb < 2^idbits and a u32 weight w <
 * 2^(48 - idbits), so that entries order as their keys (w << 32 | nb) do
 * and one entry is one key, read in one load. Both generators' scale-26
 * and 27 graphs fit (26 or 27 id bits, weights under 2^20): 6 bytes an
 * entry where A and W take 8. */

/* The id bits for n vertices (the bits of n - 1, at least 1), or -1 where
 * a weight up to max_weight does not fit beside them. */
int sgk_e48_bits(uint64_t n, uint32_t max_weight);

/* Entries a[0..cnt), w[0..cnt) (u32 weights) into out[0..6 cnt); returns
 * the largest weight packed, which the caller checks against the bits left
 * (48 - idbits): an entry whose weight does not fit is garbled. */
uint32_t sgk_e48_pack(const uint32_t *a, const uint32_t *w, uint64_t cnt, int idbits,
                      uint8_t *out);
/* Entries [from, to) of whole arrays a and w into e + 6 from .. e + 6 to
 * (the entries at their own positions), in pieces on `threads` OpenMP
 * threads (each piece's pages first touched by its thread); returns the
 * largest weight packed, as sgk_e48_pack. */
uint32_t sgk_e48_pack_range(const uint32_t *a, const uint32_t *w, uint64_t from, uint64_t to,
                            int idbits, int threads, uint8_t *e);

/* Entry p of e. */
static inline uint64_t sgk_e48_get(const uint8_t *e, uint64_t p)
{
    const uint8_t *q = e + 6 * p;
    return (uint64_t)q[0] | (uint64_t)q[1] << 8 | (uint64_t)q[2] << 16 | (uint64_t)q[3] << 24 |
           (uint64_t)q[4] << 32 | (uint64_t)q[5] << 40;
}

/* sgk_topk_fn over 48-bit entries: the same slots (weight << 32 |
 * neighbour) and count as sgk_topk_fn over the unpacked list (u32
 * weights), the filter included. */
typedef uint64_t (*sgk_topk48_fn)(const uint8_t *e, uint64_t len, uint32_t v, int idbits, int K,
                                  bool filter, uint64_t *out);
uint64_t sgk_topk48_scalar(const uint8_t *e, uint64_t len, uint32_t v, int idbits, int K,
                           bool filter, uint64_t *out);
/* The vector code (AVX-512F and BW), as sgk_topk_simd's: each half of 16
 * entries one load and one word permute into 8 keys, the slots turned
 * into the caller's keys in the vectors at the end. */
uint64_t sgk_topk48_simd(const uint8_t *e, uint64_t len, uint32_t v, int idbits, int K,
                         bool filter, uint64_t *out);
/* The same, but sgk_topk48_lists and sgk_topk48_packed given it take every
 * list alone (as sgk_topk_simd_single). */
uint64_t sgk_topk48_simd_single(const uint8_t *e, uint64_t len, uint32_t v, int idbits, int K,
                                bool filter, uint64_t *out);

/* sgk_topk_lists over 48-bit entries (list v: entries x[v] .. x[v + 1] of
 * e); given sgk_topk48_simd, lists of 17 to 64 entries in pairs. */
void sgk_topk48_lists(const uint64_t *x, const uint8_t *e, int idbits, uint64_t v0, uint64_t v1,
                      sgk_topk48_fn topk, int K, bool filter, bool prefetch, uint64_t *out,
                      sgk_topk_tally *t);
/* sgk_topk_packed over 48-bit entries: records only for the lists with
 * entries. */
uint64_t sgk_topk48_packed(const uint64_t *x, const uint8_t *e, int idbits, uint64_t v0,
                           uint64_t v1, sgk_topk48_fn topk, int K, bool filter, bool prefetch,
                           uint64_t *rec, uint32_t *idx, sgk_topk_tally *t);


/* The first round's slots in 6 bytes (slot48). The CPU threads' results
 * cross host memory twice (their stores, then the copy engine's or the
 * scatter's reads) and the bus once: on SSCA2 26 at 6 GiB 1.39 GB of slots
 * beside 17 GB of lists, where host memory bounds the round. A slot (weight
 * key << 32 | neighbour, or UINT64_MAX for none) becomes weight key <<
 * idbits | neighbour in 48 bits, none SGK_SLOT48_NONE; it fits where the
 * weight key is below 2^(48 - idbits) - 1 (u32 weights; both generators'
 * graphs at scale 26 and 27 by far), so that no key packs to the none
 * value. */
#define SGK_SLOT48_NONE 0xFFFFFFFFFFFFull

/* Packs slots s[0..cnt) into out[0..6 cnt) (little-endian), for ids of
 * idbits bits (sgk_e48_bits(n, 0)). Returns false where some key's weight
 * does not fit (its slot is then garbled): the caller sends those slots
 * in 8 bytes instead. AVX-512BW where the CPU has it. */
bool sgk_slots48_pack(const uint64_t *s, uint64_t cnt, int idbits, uint8_t *out);
bool sgk_slots48_pack_scalar(const uint64_t *s, uint64_t cnt, int idbits, uint8_t *out);
/* sgk_slots48_pack writing the whole 64-byte lines of out (32 slots, from
 * the first line boundary that a slot starts on; none where out is odd) by
 * non-temporal stores, the partial lines at either end as sgk_slots48_pack
 * does, then a store fence (so the slots are seen by other threads and the
 * copy engine once the caller's later synchronization is). The slots go to
 * host memory without first reading their lines (for ownership), a third
 * of the bytes that a slot costs host memory (its store's read and write,
 * the copy's read), and they do not take cache lines from the lists being
 * read. Same bytes and result as sgk_slots48_pack. */
bool sgk_slots48_stream(const uint64_t *s, uint64_t cnt, int idbits, uint8_t *out);

/* A packed slot's 48 bits back as its key (host and device). */
static inline SGI_HOST_DEVICE uint64_t sgk_slot48_key(uint64_t k48, int idbits)
{
    if (k48 == SGK_SLOT48_NONE) return UINT64_MAX;
    return (k48 >> idbits) << 32 | (k48 & ((1ull << idbits) - 1));
}

/* Where the lists of a first-round fill are and how they are taken: x the
 * offsets, and one source: a and w (u32 or f32 bits), or a with w16 and w8
 * (24-bit weights), or e48 (48-bit entries of e48_bits id bits); topk and
 * topk48 name the code, as for sgk_topk_lists and sgk_topk48_lists. */
typedef struct sgk_topk_src {
    const uint64_t *x;
    const uint32_t *a, *w;
    bool f32;
    const uint16_t *w16;
    const uint8_t *w8;
    const uint8_t *e48;
    int e48_bits;
    sgk_topk_fn topk;
    sgk_topk48_fn topk48;
    int K;
    bool filter, prefetch;
    bool stream; /* the slots' whole lines stored by non-temporal stores */
} sgk_topk_src;

/* sgk_topk_lists (idx NULL) or sgk_topk_packed (idx set) over the lists
 * [v0, v1) of src, as the kind of src's source takes them (sgk_topk24_*,
 * sgk_topk48_*): the slots into out. Where src->stream, the lists are
 * taken in runs as by sgk_topk_fill48 and each run's slots copied to out,
 * the whole lines by non-temporal stores (then a store fence). Returns the
 * records written (with idx) or v1 - v0. */
uint64_t sgk_topk_fill(const sgk_topk_src *src, uint64_t v0, uint64_t v1, uint64_t *out,
                       uint32_t *idx, sgk_topk_tally *t);

/* sgk_topk_fill with the slots going out in 6 bytes (sgk_slots48_pack, or
 * sgk_slots48_stream where src->stream): vertex or record r's slot j at
 * out48 + 6 (r K + j). The lists are taken
 * SGK_TOPK48_RUN vertices at a time into a buffer in cache and packed from
 * there, the prefetch running on across the runs (runs of 64 to 4096 lists
 * within a few per cent of each other on the development machine; the
 * size overridable at build time for the benches only). Returns the records
 * written (with idx) or v1 - v0; *fits false where some slot did not fit
 * (u32 weights only: f32 keys never fit). */
#ifndef SGK_TOPK48_RUN
#define SGK_TOPK48_RUN 256
#endif
uint64_t sgk_topk_fill48(const sgk_topk_src *src, int idbits, uint64_t v0, uint64_t v1,
                         uint8_t *out48, uint32_t *idx, sgk_topk_tally *t, bool *fits);

#ifdef __cplusplus
}
#endif
#endif
