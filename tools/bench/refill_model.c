// A model of the in-place forest's cached rounds (kernels/mst.cu, "THE
// VERTEX CACHE"), serial, on a bin32 edge file (spillgraph export STORE
// --format bin32 -o FILE): per Borůvka round the lists read again
// (refills), the entries they read, the entries still leaving their tree
// (exact), the live lists' lengths (the contraction's bound, C_LIVE) and a
// per-vertex bound (each list's leaving count at its last read), and the
// live trees after the round's merge. Prints the
// forest's edge count and weight (compare with spillgraph mst).
// Build: cc -O2 -o refill_model tools/bench/refill_model.c
// Usage: refill_model FILE K PASSES [K2]
//   K       cache slots in the first round (1..16)
//   PASSES  1: refill every spent cache whose bound does not exceed its
//           tree's minimum (the kernels' rule); p > 1: the first p - 1
//           passes refill, per tree, only those with the smallest bound
//   K2      slots from the second round on (the first round's copied up)
// docs/plan.md ("SSCA2's refills") has the figures it gave at scale 20.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE64 UINT64_MAX
#define NONE32 UINT32_MAX
static uint32_t *comp;
static uint64_t *x;
static uint32_t *a, *w;
static uint64_t *vc;
static int K, K2;
static uint64_t nread, nrefill;
static uint32_t *cnt;
static void fill(uint32_t v)
{
    uint64_t *s = vc + (uint64_t)v * K;
    for (int i = 0; i < K; i++) s[i] = NONE64;
    nrefill++;
    uint32_t c = 0;
    for (uint64_t p = x[v]; p < x[v + 1]; p++) {
        nread++;
        uint32_t nb = a[p];
        if (comp[nb] == comp[v]) continue;
        c++;
        uint64_t e = (uint64_t)w[p] << 32 | nb;
        for (int i = 0; i < K && e != NONE64; i++)
            if (e < s[i]) {
                uint64_t t = s[i];
                s[i] = e;
                e = t;
            }
    }
    cnt[v] = c;
}
static uint32_t find(uint32_t *par, uint32_t v)
{
    while (par[v] != v) {
        par[v] = par[par[v]];
        v = par[v];
    }
    return v;
}
int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s FILE K PASSES [K2]\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    K = atoi(argv[2]);
    int passes = atoi(argv[3]);
    K2 = argc > 4 ? atoi(argv[4]) : 0;
    if (K < 1 || K > 16 || K2 > 16 || passes < 1) {
        fprintf(stderr, "K and K2 in 1..16, PASSES >= 1\n");
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint64_t me = sz / 12;
    uint32_t *t = malloc(sz);
    if (sz <= 0 || sz % 12 || !t || fread(t, 1, sz, f) != (size_t)sz) {
        fprintf(stderr, "%s: not a readable bin32 file (12-byte u, v, w triples)\n", argv[1]);
        return 1;
    }
    fclose(f);
    uint32_t n = 0;
    for (uint64_t i = 0; i < me; i++) {
        if (t[3 * i] + 1 > n) n = t[3 * i] + 1;
        if (t[3 * i + 1] + 1 > n) n = t[3 * i + 1] + 1;
    }
    x = calloc(n + 2, 8);
    for (uint64_t i = 0; i < me; i++) x[t[3 * i] + 1]++, x[t[3 * i + 1] + 1]++;
    for (uint32_t v = 0; v < n; v++) x[v + 1] += x[v];
    uint64_t m = x[n];
    a = malloc(m * 4), w = malloc(m * 4);
    uint64_t *pos = malloc((n + 1) * 8);
    memcpy(pos, x, (n + 1) * 8);
    for (uint64_t i = 0; i < me; i++) {
        uint32_t u = t[3 * i], v = t[3 * i + 1], ww = t[3 * i + 2];
        a[pos[u]] = v, w[pos[u]++] = ww;
        a[pos[v]] = u, w[pos[v]++] = ww;
    }
    printf("n %u m %llu K %d passes %d\n", n, (unsigned long long)m, K, passes);
    comp = malloc(n * 4);
    cnt = calloc(n, 4);
    uint32_t *par = malloc(n * 4);
    vc = malloc((uint64_t)n * (K2 > K ? K2 : K) * 8);
    uint64_t *cand = malloc(n * 8);
    uint64_t *bA = malloc(n * 8); // per tree: key<<32|min
    uint32_t *bB = malloc(n * 4); // max
    uint32_t *minlb = malloc(n * 4);
    uint8_t *alive = malloc(n), *spent = malloc(n), *tlive = malloc(n);
    for (uint32_t v = 0; v < n; v++) comp[v] = v, alive[v] = x[v + 1] > x[v], tlive[v] = 1;
    double wsum = 0;
    uint64_t forest = 0, tot_read = 0, tot_ref = 0;
    for (int it = 1;; it++) {
        nread = nrefill = 0;
        uint64_t ns = 0, exact = 0, clive = 0, bound = 0;
        for (uint32_t v = 0; v < n; v++) {
            if (!alive[v]) continue;
            ns++;
            clive += x[v + 1] - x[v];
            bound += it == 1 ? x[v + 1] - x[v] : cnt[v];
            for (uint64_t p = x[v]; p < x[v + 1]; p++) exact += comp[a[p]] != comp[v];
        }
        if (ns == 0) break;
        if (it == 1)
            for (uint32_t v = 0; v < n; v++)
                if (alive[v]) fill(v);
        uint64_t r1 = 0;
        for (int pass = 0;; pass++) {
            // pick + reduce
            for (uint32_t c = 0; c < n; c++) bA[c] = NONE64, bB[c] = NONE32, minlb[c] = NONE32;
            for (uint32_t v = 0; v < n; v++) {
                if (!alive[v]) continue;
                uint64_t *s = vc + (uint64_t)v * K, c = NONE64;
                int i = 0;
                for (; i < K; i++) {
                    if (s[i] == NONE64) break;
                    if (comp[(uint32_t)s[i]] != comp[v]) {
                        c = s[i];
                        break;
                    }
                }
                cand[v] = c;
                spent[v] = i == K;
                if (c == NONE64) continue;
                uint32_t nb = (uint32_t)c, mn = v < nb ? v : nb, mx = v < nb ? nb : v;
                uint64_t A = (c >> 32) << 32 | mn;
                uint32_t T = comp[v];
                if (A < bA[T] || (A == bA[T] && mx < bB[T])) bA[T] = A, bB[T] = mx;
            }
            // needers
            uint64_t need = 0;
            for (uint32_t v = 0; v < n; v++) {
                if (!alive[v] || !spent[v]) continue;
                uint32_t lb = vc[(uint64_t)v * K + K - 1] >> 32, T = comp[v];
                if (bA[T] == NONE64 || (bA[T] >> 32) >= lb) {
                    need++;
                    if (lb < minlb[T]) minlb[T] = lb;
                }
            }
            if (need == 0) break;
            int last = pass + 1 >= passes;
            for (uint32_t v = 0; v < n; v++) {
                if (!alive[v] || !spent[v]) continue;
                uint32_t lb = vc[(uint64_t)v * K + K - 1] >> 32, T = comp[v];
                if (bA[T] == NONE64 || (bA[T] >> 32) >= lb)
                    if (last || lb == minlb[T]) fill(v);
            }
            if (pass == 0) r1 = nrefill;
            if (it == 1) break;
        }
        // merge
        uint64_t k = 0;
        for (uint32_t c = 0; c < n; c++) par[c] = c;
        for (uint32_t c = 0; c < n; c++) {
            if (bA[c] == NONE64) continue;
            uint32_t u = (uint32_t)bA[c], v = bB[c];
            uint32_t ru = find(par, comp[u]), rv = find(par, comp[v]);
            if (ru != rv) {
                par[ru] = rv;
                forest++;
                wsum += (double)(bA[c] >> 32);
            }
        }
        // trees with no edge: drop
        for (uint32_t c = 0; c < n; c++) tlive[c] = bA[c] != NONE64;
        for (uint32_t v = 0; v < n; v++) {
            uint32_t T = comp[v];
            if (alive[v]) alive[v] = (cand[v] != NONE64 || spent[v]) && tlive[T];
        }
        for (uint32_t v = 0; v < n; v++) comp[v] = find(par, comp[v]);
        for (uint32_t c = 0; c < n; c++) k += par[c] == c && tlive[c];
        tot_read += nread, tot_ref += nrefill;
        if (it == 1 && K2 > K) { // widen: slots K.. copy the last slot
            for (int64_t v = n - 1; v >= 0; v--) {
                uint64_t o[16];
                for (int i = 0; i < K; i++) o[i] = vc[(uint64_t)v * K + i];
                for (int i = 0; i < K2; i++) vc[(uint64_t)v * K2 + i] = o[i < K ? i : K - 1];
            }
            K = K2;
        }
        printf("it %2d ns %9llu refills %9llu (pass1 %9llu) read %11llu exact_leaving %11llu "
               "live_len %11llu bound %11llu trees_after %9llu\n",
               it, (unsigned long long)ns, (unsigned long long)nrefill, (unsigned long long)r1,
               (unsigned long long)nread, (unsigned long long)exact, (unsigned long long)clive,
               (unsigned long long)bound, (unsigned long long)k);
    }
    printf("forest %llu weight %.0f refills %llu read %llu (%.2f m)\n", (unsigned long long)forest,
           wsum, (unsigned long long)tot_ref, (unsigned long long)tot_read, (double)tot_read / m);
    return 0;
}
