/* Block codec: transformed u32 values -> byte transposition -> zstd.
 *
 * Transposition puts byte k of every value in plane k. Small deltas and
 * degrees leave the high planes nearly constant and random weights leave
 * whole planes empty, which zstd's entropy stage then removes; decoding is
 * one zstd call plus a vectorisable gather. */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem */
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "internal.h"

struct sgi_codec {
    ZSTD_CCtx *cctx;
    ZSTD_DCtx *dctx;
    int level;
    size_t max_elems;
    uint8_t *planes;   /* 4 * max_elems */
    uint32_t *vals;    /* max_elems */
};

static void *zalloc(void *opaque, size_t n) { (void)opaque; return sgi_malloc(n); }
static void zfree(void *opaque, void *p) { (void)opaque; sgi_free(p); }
static const ZSTD_customMem zmem = {zalloc, zfree, NULL};

sgi_codec *sgi_codec_new(int zstd_level, size_t max_elems)
{
    sgi_codec *c = sgi_calloc(1, sizeof *c);
    if (!c) return NULL;
    c->level = zstd_level > 0 ? zstd_level : 3;
    c->max_elems = max_elems;
    c->cctx = ZSTD_createCCtx_advanced(zmem);
    c->dctx = ZSTD_createDCtx_advanced(zmem);
    /* Matches shorter than 7 bytes in the sparse high byte planes cost more
     * to decode than they save: with minMatch 7 the ratio is the same or
     * better and A blocks decode about 1.5x faster (docs/benchmarks.md). */
    if (c->cctx && (ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, c->level)) ||
                    ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_minMatch, 7)))) {
        sgi_codec_free(c);
        return NULL;
    }
    c->planes = sgi_malloc(4 * max_elems);
    c->vals = sgi_malloc(4 * max_elems);
    if (!c->cctx || !c->dctx || !c->planes || !c->vals) {
        sgi_codec_free(c);
        return NULL;
    }
    return c;
}

void sgi_codec_free(sgi_codec *c)
{
    if (!c) return;
    ZSTD_freeCCtx(c->cctx);
    ZSTD_freeDCtx(c->dctx);
    sgi_free(c->planes);
    sgi_free(c->vals);
    sgi_free(c);
}

size_t sgi_codec_bound(size_t n)
{
    size_t b = ZSTD_compressBound(4 * n);
    return b > 4 * n ? b : 4 * n;
}

static void transpose(const uint32_t *restrict v, size_t n, uint8_t *restrict out)
{
    uint8_t *restrict p0 = out, *restrict p1 = out + n, *restrict p2 = out + 2 * n,
                      *restrict p3 = out + 3 * n;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = v[i];
        p0[i] = (uint8_t)x;
        p1[i] = (uint8_t)(x >> 8);
        p2[i] = (uint8_t)(x >> 16);
        p3[i] = (uint8_t)(x >> 24);
    }
}

static void untranspose(const uint8_t *restrict in, size_t n, uint32_t *restrict v)
{
    const uint8_t *restrict p0 = in, *restrict p1 = in + n, *restrict p2 = in + 2 * n,
                            *restrict p3 = in + 3 * n;
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)p0[i] | (uint32_t)p1[i] << 8 | (uint32_t)p2[i] << 16 |
               (uint32_t)p3[i] << 24;
}

sg_status sgi_codec_encode(sgi_codec *c, int level, const uint32_t *vals, size_t n,
                           uint8_t *out, size_t *out_len, uint8_t *codec, sg_error *err)
{
    if (level > 0 && level != c->level) {
        size_t r = ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, level);
        if (ZSTD_isError(r))
            return sgi_fail(err, SG_E_INVALID, "zstd level %d: %s", level, ZSTD_getErrorName(r));
        c->level = level;
    }
    if (n > c->max_elems)
        return sgi_fail(err, SG_E_INVALID, "block of %zu values exceeds codec capacity %zu", n,
                        c->max_elems);
    transpose(vals, n, c->planes);
    size_t r = ZSTD_compress2(c->cctx, out, sgi_codec_bound(n), c->planes, 4 * n);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation)
            return sgi_fail(err, SG_E_NOMEM, "zstd: out of memory compressing a block");
        r = SIZE_MAX; /* fall back to raw */
    }
    if (r >= 4 * n) {
        memcpy(out, vals, 4 * n); /* little-endian host */
        *out_len = 4 * n;
        *codec = SGI_CODEC_RAW;
    } else {
        *out_len = r;
        *codec = SGI_CODEC_ZSTD_SHUF;
    }
    return SG_OK;
}

/* Checks the entry and leaves the block's bytes in c->planes (codec 1) or
 * c->vals (codec 0); *raw tells which. */
static sg_status decode_planes(sgi_codec *c, const sgi_block_entry *e, const uint8_t *src,
                               bool *raw, sg_error *err)
{
    size_t n = e->n_elems;
    if (n > c->max_elems)
        return sgi_fail(err, SG_E_CORRUPT, "block claims %zu values (at most %zu)", n,
                        c->max_elems);
    if (e->codec == SGI_CODEC_RAW) {
        if (e->stored_bytes != 4 * n)
            return sgi_fail(err, SG_E_CORRUPT, "raw block of %zu values has %u bytes", n,
                            e->stored_bytes);
        memcpy(c->vals, src, 4 * n);
        *raw = true;
        return SG_OK;
    }
    if (e->codec != SGI_CODEC_ZSTD_SHUF)
        return sgi_fail(err, SG_E_FORMAT, "unknown block codec %u", e->codec);
    size_t r = ZSTD_decompressDCtx(c->dctx, c->planes, 4 * n, src, e->stored_bytes);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation)
            return sgi_fail(err, SG_E_NOMEM, "zstd: out of memory decoding a block");
        return sgi_fail(err, SG_E_CORRUPT, "zstd: %s", ZSTD_getErrorName(r));
    }
    if (r != 4 * n)
        return sgi_fail(err, SG_E_CORRUPT, "block decodes to %zu bytes, expected %zu", r, 4 * n);
    *raw = false;
    return SG_OK;
}

sg_status sgi_codec_decode(sgi_codec *c, const sgi_block_entry *e, const uint8_t *src,
                           const uint32_t **vals, sg_error *err)
{
    bool raw;
    sg_status st = decode_planes(c, e, src, &raw, err);
    if (st != SG_OK) return st;
    if (!raw) untranspose(c->planes, e->n_elems, c->vals);
    *vals = c->vals;
    return SG_OK;
}

/* Value i of a decoded block, from the planes or the raw values. */
#define PLANE_VAL(p, n, i)                                                                 \
    ((uint32_t)(p)[i] | (uint32_t)(p)[(n) + (i)] << 8 | (uint32_t)(p)[2 * (n) + (i)] << 16 | \
     (uint32_t)(p)[3 * (n) + (i)] << 24)

#if defined(__SSE2__)
#include <emmintrin.h>
/* Full blocks, 16 values a step: bytes of the four planes interleaved by
 * unpacking (value j = p0[j] | p1[j] << 8 | p2[j] << 16 | p3[j] << 24), then
 * for A an in-register prefix sum carried from vector to vector. */
static size_t planes_simd(const uint8_t *restrict p, size_t n, uint32_t *restrict d, bool prefix)
{
    const uint8_t *p0 = p, *p1 = p + n, *p2 = p + 2 * n, *p3 = p + 3 * n;
    __m128i carry = _mm_setzero_si128();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m128i b0 = _mm_loadu_si128((const __m128i *)(p0 + i));
        const __m128i b1 = _mm_loadu_si128((const __m128i *)(p1 + i));
        const __m128i b2 = _mm_loadu_si128((const __m128i *)(p2 + i));
        const __m128i b3 = _mm_loadu_si128((const __m128i *)(p3 + i));
        const __m128i lo01 = _mm_unpacklo_epi8(b0, b1), hi01 = _mm_unpackhi_epi8(b0, b1);
        const __m128i lo23 = _mm_unpacklo_epi8(b2, b3), hi23 = _mm_unpackhi_epi8(b2, b3);
        __m128i v[4] = {_mm_unpacklo_epi16(lo01, lo23), _mm_unpackhi_epi16(lo01, lo23),
                        _mm_unpacklo_epi16(hi01, hi23), _mm_unpackhi_epi16(hi01, hi23)};
        for (int k = 0; k < 4; k++) {
            __m128i x = v[k];
            if (prefix) {
                x = _mm_add_epi32(x, _mm_slli_si128(x, 4));
                x = _mm_add_epi32(x, _mm_slli_si128(x, 8));
                x = _mm_add_epi32(x, carry);
                carry = _mm_shuffle_epi32(x, 0xFF);
            }
            _mm_storeu_si128((__m128i *)(d + i + 4 * k), x);
        }
    }
    return i;
}
#else
static size_t planes_simd(const uint8_t *p, size_t n, uint32_t *d, bool prefix)
{
    (void)p, (void)n, (void)d, (void)prefix;
    return 0;
}
#endif

sg_status sgi_codec_decode_into(sgi_codec *c, const sgi_block_entry *e, const uint8_t *src,
                                size_t skip, size_t count, void *dst, bool x_last, sg_error *err)
{
    bool raw;
    sg_status st = decode_planes(c, e, src, &raw, err);
    if (st != SG_OK) return st;
    const size_t n = e->n_elems;
    if (skip + count > n) return sgi_fail(err, SG_E_INVALID, "decode range past the block");
    if (raw) {
        const uint32_t *v = c->vals;
        if (e->array == SG_ARRAY_X) {
            uint64_t *d = dst;
            sgi_untransform_x(v, e->base, skip, count, d);
            if (x_last) d[count] = d[count - 1] + v[skip + count - 1];
        } else if (e->array == SG_ARRAY_A) {
            sgi_untransform_a(v, skip, count, dst);
        } else {
            memcpy(dst, v + skip, count * 4);
        }
        return SG_OK;
    }
    /* One pass from the byte planes to the caller's buffer. */
    const uint8_t *restrict p = c->planes;
    if (e->array != SG_ARRAY_X && skip == 0 && count == n) {
        const bool prefix = e->array == SG_ARRAY_A;
        uint32_t *restrict d = dst;
        size_t i = planes_simd(p, n, d, prefix);
        uint32_t run = prefix && i ? d[i - 1] : 0;
        for (; i < n; i++) {
            const uint32_t v = PLANE_VAL(p, n, i);
            run = prefix ? run + v : v;
            d[i] = run;
        }
        return SG_OK;
    }
    if (e->array == SG_ARRAY_W) {
        uint32_t *restrict d = dst;
        for (size_t i = 0; i < count; i++) d[i] = PLANE_VAL(p, n, skip + i);
    } else if (e->array == SG_ARRAY_A) {
        uint32_t *restrict d = dst;
        uint32_t run = 0;
        for (size_t i = 0; i < skip; i++) run += PLANE_VAL(p, n, i);
        for (size_t i = 0; i < count; i++) {
            run += PLANE_VAL(p, n, skip + i);
            d[i] = run;
        }
    } else {
        uint64_t *restrict d = dst;
        uint64_t run = e->base;
        for (size_t i = 0; i < skip; i++) run += PLANE_VAL(p, n, i);
        for (size_t i = 0; i < count; i++) {
            d[i] = run;
            run += PLANE_VAL(p, n, skip + i);
        }
        if (x_last) d[count] = run;
    }
    return SG_OK;
}

sg_status sgi_codec_decode_w24(sgi_codec *c, const sgi_block_entry *e, const uint8_t *src,
                              size_t skip, size_t count, uint16_t *d16, uint8_t *d8,
                              uint32_t *wide, sg_error *err)
{
    if (e->array != SG_ARRAY_W)
        return sgi_fail(err, SG_E_INVALID, "24-bit decode of a block that holds no weights");
    bool raw;
    sg_status st = decode_planes(c, e, src, &raw, err);
    if (st != SG_OK) return st;
    const size_t n = e->n_elems;
    if (skip + count > n) return sgi_fail(err, SG_E_INVALID, "decode range past the block");
    uint32_t top = 0; /* the high bytes ORed: 0 when every weight fits */
    if (raw) {
        const uint32_t *restrict v = c->vals + skip;
        for (size_t i = 0; i < count; i++) {
            d16[i] = (uint16_t)v[i];
            d8[i] = (uint8_t)(v[i] >> 16);
            top |= v[i] >> 24;
        }
    } else { /* the low two planes interleaved, the third copied, the fourth tested */
        const uint8_t *restrict p0 = c->planes + skip, *restrict p1 = p0 + n,
                                *restrict p2 = p1 + n, *restrict p3 = p2 + n;
        for (size_t i = 0; i < count; i++) {
            d16[i] = (uint16_t)(p0[i] | p1[i] << 8);
            top |= p3[i];
        }
        memcpy(d8, p2, count);
    }
    *wide = 0;
    if (top)
        for (size_t i = 0; i < count; i++) {
            const uint32_t v = raw ? c->vals[skip + i] : PLANE_VAL(c->planes, n, skip + i);
            if (v >> 24) {
                *wide = v;
                break;
            }
        }
    return SG_OK;
}

void sgi_untransform_x(const uint32_t *deg, uint64_t base, size_t skip, size_t count,
                       uint64_t *dst)
{
    uint64_t run = base;
    for (size_t i = 0; i < skip; i++) run += deg[i];
    for (size_t i = 0; i < count; i++) {
        dst[i] = run;
        run += deg[skip + i];
    }
}

void sgi_untransform_a(const uint32_t *delta, size_t skip, size_t count, uint32_t *dst)
{
    uint32_t run = 0;
    for (size_t i = 0; i < skip; i++) run += delta[i];
    for (size_t i = 0; i < count; i++) {
        run += delta[skip + i];
        dst[i] = run;
    }
}
