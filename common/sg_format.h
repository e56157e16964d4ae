/* spillgraph — fast decimal formatting shared by the text writers (store
 * export, result files). Header-only: the functions inline into the
 * per-line loops. */
#ifndef SG_FORMAT_H
#define SG_FORMAT_H

#include <stdint.h>
#include <string.h>

/* "00" .. "99": two digits per table lookup. */
static const char sgi_digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Decimal digits of v: a comparison tree below 10^10 (ids and u32 values,
 * the common case), a loop above. */
static inline unsigned sgi_dec_len(uint64_t v)
{
    if (v < 100000) return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : 5;
    if (v < 10000000000ull)
        return v < 1000000 ? 6 : v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
    unsigned n = 10;
    for (v /= 10000000000ull; v; v /= 10) n++;
    return n;
}

/* Writes v in decimal at p (no terminator); returns the end. */
static inline char *sgi_put_u64(char *p, uint64_t v)
{
    char *const end = p + sgi_dec_len(v);
    char *q = end;
    while (v >= 10000) { /* four digits per (dependent) division */
        const uint32_t r = (uint32_t)(v % 10000);
        v /= 10000;
        q -= 4;
        memcpy(q, sgi_digits2 + 2 * (r / 100), 2);
        memcpy(q + 2, sgi_digits2 + 2 * (r % 100), 2);
    }
    if (v >= 100) {
        const uint32_t r = (uint32_t)(v % 100);
        v /= 100;
        q -= 2;
        memcpy(q, sgi_digits2 + 2 * r, 2);
    }
    if (v >= 10) memcpy(q - 2, sgi_digits2 + 2 * v, 2);
    else q[-1] = (char)('0' + v);
    return end;
}

#endif
