/* The order of a stored neighbour list.
 *
 * A store keeps every list in one of two orders (the manifest's
 * SGI_FLAG_WEIGHT_ORDER says which):
 *   - by neighbour id, strictly increasing (the default; no duplicate
 *     neighbours follows);
 *   - by (weight key, neighbour id), strictly increasing, with no neighbour
 *     twice ("weight order": the reference papers' preprocessing, Kolganov
 *     2016; the forest's lightest edge leaving a tree is then the first such
 *     entry of each list, and the weight key is sgi_key_of_bits, so this is
 *     the forest's tie order for a fixed vertex).
 * In weight order a duplicate neighbour can hide anywhere in the list, so
 * it is found with a small open-addressing set of the list's ids (lists of
 * up to 32 entries compare pairwise): O(d) per list, the set reused. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define PAIRWISE_MAX 32

void sgi_idset_free(sgi_idset *s)
{
    free(s->tab);
    s->tab = NULL;
    s->cap = 0;
}

/* The first k in [1, d) with a[k] equal to an earlier a[j], or d. */
static int first_repeat(const uint32_t *a, uint64_t d, sgi_idset *s, uint64_t *at)
{
    if (d <= PAIRWISE_MAX) {
        for (uint64_t k = 1; k < d; k++)
            for (uint64_t j = 0; j < k; j++)
                if (a[j] == a[k]) {
                    *at = k;
                    return SGI_LIST_DUP;
                }
        return SGI_LIST_OK;
    }
    size_t cap = 64;
    while (cap < 2 * d) cap <<= 1;
    if (cap > s->cap) {
        uint32_t *t = malloc(cap * sizeof *t);
        if (!t) return SGI_LIST_NOMEM;
        free(s->tab);
        s->tab = t;
        s->cap = cap;
    }
    memset(s->tab, 0, cap * sizeof *s->tab); /* slots hold id + 1; 0 is empty */
    const size_t mask = cap - 1;
    for (uint64_t k = 0; k < d; k++) {
        const uint32_t id = a[k];
        size_t h = (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 32) & mask;
        for (;;) {
            const uint32_t t = s->tab[h];
            if (t == 0) {
                s->tab[h] = id + 1;
                break;
            }
            if (t == id + 1) {
                *at = k;
                return SGI_LIST_DUP;
            }
            h = (h + 1) & mask;
        }
    }
    return SGI_LIST_OK;
}

int sgi_list_order_check(const uint32_t *a, const uint32_t *w, uint64_t d, bool weight_order,
                         bool f32, sgi_idset *s, uint64_t *at)
{
    if (!weight_order) {
        for (uint64_t k = 1; k < d; k++)
            if (a[k] <= a[k - 1]) {
                *at = k;
                return a[k] == a[k - 1] ? SGI_LIST_DUP : SGI_LIST_ORDER;
            }
        return SGI_LIST_OK;
    }
    for (uint64_t k = 1; k < d; k++) {
        const uint32_t k0 = sgi_key_of_bits(f32, w[k - 1]), k1 = sgi_key_of_bits(f32, w[k]);
        if (k1 < k0 || (k1 == k0 && a[k] <= a[k - 1])) {
            *at = k;
            return k1 == k0 && a[k] == a[k - 1] ? SGI_LIST_DUP : SGI_LIST_ORDER;
        }
    }
    return first_repeat(a, d, s, at);
}
