/* storage/codec.c: transforms and the block codec. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void roundtrip(sgi_codec *c, const uint32_t *vals, size_t n, uint8_t expect_codec)
{
    uint8_t *out = malloc(sgi_codec_bound(n));
    size_t len = 0;
    uint8_t codec = 99;
    sg_error err = {0};
    assert_int_equal(sgi_codec_encode(c, 0, vals, n, out, &len, &codec, &err), SG_OK);
    if (expect_codec != 255) assert_int_equal(codec, expect_codec);
    sgi_block_entry e = {.codec = codec, .n_elems = (uint32_t)n, .stored_bytes = (uint32_t)len};
    const uint32_t *back;
    assert_int_equal(sgi_codec_decode(c, &e, out, &back, &err), SG_OK);
    assert_memory_equal(back, vals, n * 4);
    free(out);
}

static void compressible_and_random_blocks(void **state)
{
    (void)state;
    const size_t n = 65536;
    sgi_codec *c = sgi_codec_new(3, n);
    assert_non_null(c);
    uint32_t *v = malloc(n * 4);
    for (size_t i = 0; i < n; i++) v[i] = (uint32_t)(i % 7);
    roundtrip(c, v, n, SGI_CODEC_ZSTD_SHUF);
    uint64_t s = 42;
    for (size_t i = 0; i < n; i++) v[i] = (uint32_t)tu_rand(&s);
    roundtrip(c, v, n, SGI_CODEC_RAW); /* incompressible: stored raw */
    roundtrip(c, v, 1, 255);
    for (size_t i = 0; i < n; i++) v[i] = 1 + (uint32_t)(tu_rand(&s) % (1u << 20));
    roundtrip(c, v, n, SGI_CODEC_ZSTD_SHUF); /* 20-bit weights: a whole byte plane is zero */
    free(v);
    sgi_codec_free(c);
}

static void transforms(void **state)
{
    (void)state;
    const uint32_t deg[5] = {3, 0, 2, 5, 1};
    uint64_t x[5];
    sgi_untransform_x(deg, 100, 0, 5, x);
    const uint64_t ex[5] = {100, 103, 103, 105, 110};
    assert_memory_equal(x, ex, sizeof ex);
    sgi_untransform_x(deg, 100, 2, 2, x);
    assert_int_equal(x[0], 103);
    assert_int_equal(x[1], 105);
    /* wrapping differences: a list boundary goes "down" */
    const uint32_t ids[6] = {5, 9, 4000000000u, 2, 3, 7};
    uint32_t d[6], back[6];
    d[0] = ids[0];
    for (int i = 1; i < 6; i++) d[i] = ids[i] - ids[i - 1];
    sgi_untransform_a(d, 0, 6, back);
    assert_memory_equal(back, ids, sizeof ids);
    sgi_untransform_a(d, 3, 3, back);
    assert_memory_equal(back, ids + 3, 3 * 4);
}

static void corrupt_input_is_an_error(void **state)
{
    (void)state;
    const size_t n = 4096;
    sgi_codec *c = sgi_codec_new(3, n);
    uint32_t *v = calloc(n, 4);
    for (size_t i = 0; i < n; i++) v[i] = (uint32_t)(i & 15);
    uint8_t *out = malloc(sgi_codec_bound(n));
    size_t len;
    uint8_t codec;
    sg_error err = {0};
    assert_int_equal(sgi_codec_encode(c, 0, v, n, out, &len, &codec, &err), SG_OK);
    const uint32_t *back;
    sgi_block_entry e = {.codec = codec, .n_elems = (uint32_t)n, .stored_bytes = (uint32_t)len};
    /* wrong length claims */
    e.n_elems = (uint32_t)n + 1;
    assert_int_equal(sgi_codec_decode(c, &e, out, &back, &err), SG_E_CORRUPT);
    e.n_elems = (uint32_t)n / 2;
    assert_int_equal(sgi_codec_decode(c, &e, out, &back, &err), SG_E_CORRUPT);
    /* garbage bytes */
    e.n_elems = (uint32_t)n;
    memset(out, 0xA5, len);
    assert_int_equal(sgi_codec_decode(c, &e, out, &back, &err), SG_E_CORRUPT);
    e.codec = 7;
    assert_int_equal(sgi_codec_decode(c, &e, out, &back, &err), SG_E_FORMAT);
    e.codec = SGI_CODEC_RAW;
    e.stored_bytes = 12;
    assert_int_equal(sgi_codec_decode(c, &e, out, &back, &err), SG_E_CORRUPT);
    free(out);
    free(v);
    sgi_codec_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compressible_and_random_blocks),
        cmocka_unit_test(transforms),
        cmocka_unit_test(corrupt_input_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
