/* The GPU gateway: device discovery and the self-test. Skips (exit 77)
 * where there is no GPU or the build has no CUDA. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spillgraph.h"

/* CUDA_MODULE_LOADING as main found it, before the first CUDA call */
static const char *user_loading;

/* Eager unless the environment named a mode: the library sets it before its
 * first CUDA call, and the driver reports the mode in effect. */
static void module_loading(void **state)
{
    (void)state;
    sg_gpu_info g;
    sg_error err = {0};
    assert_int_equal(sg_gpu_info_get(0, &g, &err), SG_OK);
    print_message("module loading %s (CUDA_MODULE_LOADING was %s)\n", g.module_loading,
                  user_loading ? user_loading : "unset");
    if (!user_loading) assert_string_equal(g.module_loading, "eager");
    else if (strcmp(user_loading, "LAZY") == 0) assert_string_equal(g.module_loading, "lazy");
    else if (strcmp(user_loading, "EAGER") == 0) assert_string_equal(g.module_loading, "eager");
}

static void device_facts(void **state)
{
    (void)state;
    sg_gpu_info g;
    sg_error err = {0};
    assert_int_equal(sg_gpu_info_get(0, &g, &err), SG_OK);
    assert_true(strlen(g.name) > 0);
    assert_true(g.total_bytes > (1ull << 30));
    assert_true(g.free_bytes <= g.total_bytes);
    assert_true(g.sm_count > 0);
    assert_true(g.cc_major >= 7);
    print_message("GPU 0: %s, cc %d.%d, %d SMs, %.1f GiB (%.1f free)\n", g.name, g.cc_major,
                  g.cc_minor, g.sm_count, g.total_bytes / 1073741824.0, g.free_bytes / 1073741824.0);
    assert_int_equal(sg_gpu_info_get(sg_gpu_count(), &g, &err), SG_E_INVALID);
}

static void selftest_round_trip(void **state)
{
    (void)state;
    double gbps = 0;
    sg_error err = {0};
    if (sg_gpu_selftest(0, 64ull << 20, &gbps, &err)) fail_msg("selftest: %s", err.msg);
    assert_true(gbps > 0.1);
    print_message("host->device %.1f GB/s\n", gbps);
    assert_int_equal(sg_gpu_selftest(0, 2, &gbps, &err), SG_E_INVALID);
}

int main(void)
{
    if (!sg_gpu_built()) {
        sg_error err = {0};
        sg_gpu_info g;
        /* without CUDA the gateway answers clearly instead of crashing */
        if (sg_gpu_count() != 0 || sg_gpu_info_get(0, &g, &err) != SG_E_UNSUPPORTED) return 1;
        fprintf(stderr, "skipped: built without CUDA\n");
        return 77;
    }
    /* The first CUDA call (sg_gpu_count) sets eager loading unless the user
     * named a mode; checked here, with or without a GPU, and a mode the user
     * named is kept. */
    const char *env = getenv("CUDA_MODULE_LOADING");
    char *named = env ? strdup(env) : NULL; /* kept for the whole run */
    user_loading = named;
    const int count = sg_gpu_count();
    const char *now = getenv("CUDA_MODULE_LOADING");
    if (!now || strcmp(now, named ? named : "EAGER") != 0) {
        fprintf(stderr, "CUDA_MODULE_LOADING is '%s' after the first CUDA call, not '%s'\n",
                now ? now : "(unset)", named ? named : "EAGER");
        return 1;
    }
    if (count == 0) {
        fprintf(stderr, "skipped: no GPU\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(module_loading),
        cmocka_unit_test(device_facts),
        cmocka_unit_test(selftest_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
